"""Run folders, shared by every trainer (SB3 self-play, RLlib, the sweep's trials, exploit probes).

A run folder is ``{runs_dir}/{name}__{seed}__{UTC time}`` (CleanRL's naming), holding ``config.yaml``,
``checkpoints/`` and whatever the trainer adds. :func:`new_run_dir` makes one; :func:`resume_dir` checks
the folder a ``--resume`` names.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path

from training.learning.config import ConfigError

CONFIG_FILE = "config.yaml"
"""The validated config a run was started with, as written by :func:`training.config.dump_config`."""


def new_run_dir(runs_dir: str | Path, name: str, seed: int, subdirs: Sequence[str] = ("checkpoints",)) -> Path:
    """Create ``{runs_dir}/{name}__{seed}__{YYYYmmdd-HHMMSS}`` (UTC) and its ``subdirs``; return it.

    A run started in the same second as another one of the same name and seed gets ``-2``, ``-3``, ... after
    its time stamp (it used to fail with ``File exists``); an existing folder is never reused.
    """
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
    base = Path(runs_dir) / f"{name}__{seed}__{stamp}"
    base.parent.mkdir(parents=True, exist_ok=True)
    run, k = base, 1
    while True:
        try:
            run.mkdir()  # atomic: of two processes racing for one name, exactly one gets it
            break
        except FileExistsError:
            k += 1
            run = base.with_name(f"{base.name}-{k}")
    for sub in subdirs:
        (run / sub).mkdir()
    return run


def resume_dir(resume: str | Path, config: str | None) -> Path:
    """The run folder that ``--resume`` names, checked before anything is read from it.

    Args:
        resume: the ``--resume`` argument.
        config: the positional config argument, which must be absent on resume.

    Raises:
        FileNotFoundError: if the folder holds no ``config.yaml``.
        ConfigError: if a config file is given as well (changes go through ``--set``).
    """
    run_dir = Path(resume)
    if not (run_dir / CONFIG_FILE).is_file():
        raise FileNotFoundError(f"--resume {run_dir}: expected a run folder with {CONFIG_FILE}")
    if config:
        raise ConfigError(f"--resume: the run's own {CONFIG_FILE} is used; pass changes with --set")
    return run_dir
