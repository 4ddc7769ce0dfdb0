"""Run folders, shared by every trainer (SB3 self-play, RLlib, the sweep's trials, exploit probes).

A run folder is ``{runs_dir}/{name}__{seed}__{UTC time}`` (CleanRL's naming), holding ``config.yaml``,
``checkpoints/`` and whatever the trainer adds. :func:`new_run_dir` makes one; :func:`resume_dir` checks
the folder a ``--resume`` names; :func:`check_runs_dir` the folder that holds the runs. A start wrapped in
:func:`removed_if_start_fails` that fails after its folder was made (e.g. a bad ``run.init_from``, found when the
trainer is built) removes the folder again, so that no empty run folder is left behind.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from training.learning.config import ConfigError, GameSection, changed_key, runs_dir_problem

CONFIG_FILE = "config.yaml"
"""The validated config a run was started with, as written by :func:`training.config.dump_config`."""


def check_runs_dir(runs_dir: str | Path) -> None:
    """Refuse a ``run.runs_dir`` that cannot hold run folders: empty text (the run folder would land in the current
    folder), a file, or a path through a file.

    Raises:
        ConfigError: naming ``run.runs_dir``, the path and the file in the way.
    """
    problem = runs_dir_problem(runs_dir)
    if problem is not None:
        raise ConfigError(f"run.runs_dir: {problem}")
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
        ConfigError: for a ``runs_dir`` that is empty, a file or lies inside one (:func:`check_runs_dir`).
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


def remove_unstarted(run_dir: str | Path) -> bool:
    """Remove a run folder that holds nothing but what a start writes before training: ``config.yaml`` and empty
    sub-folders (``checkpoints/``). A folder holding anything else (a checkpoint, an event file, a link, a file of
    the user's) is left whole, as is one that cannot be read through.

    Returns:
        Whether the folder was removed.
    """
    run = Path(run_dir)
    if run.is_symlink() or not run.is_dir():
        return False
    folders: list[Path] = []
    for root, dirs, files in os.walk(run):  # top-down: each folder before the folders inside it
        here = Path(root)
        if any((here / d).is_symlink() for d in dirs) or any(here != run or f != CONFIG_FILE for f in files):
            return False
        folders.append(here)
    config = run / CONFIG_FILE
    if config.is_symlink():
        return False
    try:
        for folder in reversed(folders[1:]):  # innermost first; rmdir fails on anything written meanwhile
            folder.rmdir()
        config.unlink(missing_ok=True)
        run.rmdir()
    except OSError:
        return False
    return True


@contextlib.contextmanager
def removed_if_start_fails(run_dir: Path) -> Iterator[Path]:
    """Around the start of a new run, from its folder to a built trainer: if it raises, the folder is removed by
    :func:`remove_unstarted` (only while it holds nothing but what the start wrote) and the error goes on.

    Only for a folder :func:`new_run_dir` has just made: a resumed run's folder is never passed here.

    Yields:
        ``run_dir``.
    """
    try:
        yield run_dir
    except BaseException:
        remove_unstarted(run_dir)
        raise


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


def resume_change(saved: Mapping[str, Any] | None, cfg: BaseModel, keys: Sequence[str]) -> tuple[str, Any, Any] | None:
    """What a resumed config changes of a run's: the first of ``keys`` (dotted) whose value in ``saved`` (the
    checkpoint's own config, dumped as JSON) differs in ``cfg`` (the resumed config: the run's ``config.yaml`` with
    the ``--set`` overrides), as :func:`~training.learning.config.changed_key` gives it; None if none does. The
    one comparison of every trainer's ``--resume`` (SB3 self-play and RLlib).

    The ``game`` section is compared by the rules each player count resolves to
    (:meth:`~training.learning.config.GameSection.game_config`), not as written: ``game.preset: standard`` resumes a
    run made with no preset. When the rules differ, the first rule field that differs is named
    (``game.opponent_chips``), not the preset; a saved section this version refuses is compared as written.

    >>> from training.learning.config import Config
    >>> resume_change({"game": {"preset": None}}, Config.model_validate({"game": {"preset": "standard"}}), ["game"])
    >>> resume_change({"game": {"preset": None}}, Config.model_validate({"game": {"preset": "visible_chips"}}),
    ...               ["game"])
    ('game.opponent_chips', 'hidden', 'visible')
    """
    saved, mine = dict(saved or {}), cfg.model_dump(mode="json")
    if saved.get("game") is not None and "game" in keys:  # the rules played, not how they were spelled
        try:
            theirs = GameSection.model_validate(saved["game"])
        except ValidationError:  # a section this version refuses: compared as written
            pass
        else:
            games = (theirs, cfg.game)  # type: ignore[attr-defined]
            rules = [[g.game_config(n) for n in g.num_players] for g in games]
            if rules[0] == rules[1]:
                del saved["game"]
            else:  # name the first rule (or count) that differs; the preset only if nothing else does
                written = [g.model_dump(mode="json", exclude={"preset"}) for g in games]
                if written[0] != written[1]:
                    saved["game"], mine["game"] = written
    return changed_key(saved, mine, keys)
