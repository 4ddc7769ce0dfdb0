"""SB3 self-play: the trainer, its training env, the opponent pool, the config, run folders and reports."""
