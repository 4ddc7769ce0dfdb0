"""Scaling out on Ray: RLlib self-play, its config and module, Ray tasks for evaluation, Tune sweeps."""
