"""Run folders, shared by every trainer (SB3 self-play, RLlib, the sweep's trials, exploit probes).

A run folder is ``{runs_dir}/{name}__{seed}__{UTC time}`` (CleanRL's naming), holding ``config.yaml``,
``checkpoints/`` and whatever the trainer adds. :func:`new_run_dir` makes one; :func:`resume_dir` checks
the folder a ``--resume`` names; :func:`check_runs_dir` the folder that holds the runs.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path

from training.learning.config import ConfigError

CONFIG_FILE = "config.yaml"
"""The validated config a run was started with, as written by :func:`training.config.dump_config`."""


def check_runs_dir(runs_dir: str | Path) -> None:
    """Refuse a ``run.runs_dir`` that cannot hold run folders: a file, or a path through a file.

    Raises:
        ConfigError: naming ``run.runs_dir``, the path and the file in the way.
    """
    path = Path(runs_dir)
    for part in (path, *path.parents):  # the nearest existing part must be a folder
        if part.exists():
            if not part.is_dir():
                what = "which is a file" if part == path else f"and {str(part)!r} is a file"
                raise ConfigError(
                    f"run.runs_dir: expected a folder to hold the run folders, got {str(runs_dir)!r}, {what}"
                )
            return


def new_run_dir(runs_dir: str | Path, name: str, seed: int, subdirs: Sequence[str] = ("checkpoints",)) -> Path:
    """Create ``{runs_dir}/{name}__{seed}__{YYYYmmdd-HHMMSS}`` (UTC) and its ``subdirs``; return it.

    A run started in the same second as another one of the same name and seed gets ``-2``, ``-3``, ... after
    its time stamp (it used to fail with ``File exists``); an existing folder is never reused.

    Raises:
        ConfigError: for a ``runs_dir`` that is a file or lies inside one (:func:`check_runs_dir`).
    """
    check_runs_dir(runs_dir)
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
        ConfigError: for an empty ``resume`` (it would name the current folder), or if a config file is given
            as well (changes go through ``--set``).
    """
    if not str(resume).strip():
        raise ConfigError(f"--resume: expected a run folder, got {str(resume)!r}")
    run_dir = Path(resume)
    if not (run_dir / CONFIG_FILE).is_file():
        raise FileNotFoundError(f"--resume {run_dir}: expected a run folder with {CONFIG_FILE}")
    if config is not None:
        raise ConfigError(f"--resume: the run's own {CONFIG_FILE} is used; pass changes with --set")
    return run_dir
