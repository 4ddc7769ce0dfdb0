"""Tools for people: the terminal game, replays, the web server (its app is training.web), the terminal UI."""
