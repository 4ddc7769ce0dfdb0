"""``--preset`` and rule overrides for every command-line tool, resolved by one function.

Each tool that plays games (evaluate, tournament, gauntlet) adds the same arguments with
:func:`add_variant_arguments` and turns them into a :class:`~nothanks_env.game.GameConfig` with
:func:`variant_config`, which goes through :func:`nothanks_env.presets.resolve_config`: a named preset,
then the overrides given on the command line (``--players``, ``--deals``, ``--opponent-chips``).

Example:
    >>> import argparse
    >>> ap = argparse.ArgumentParser()
    >>> add_variant_arguments(ap)
    >>> variant_config(ap.parse_args(["--preset", "match3", "--players", "4"])).num_deals
    3
"""

from __future__ import annotations

import argparse

from nothanks_env.game import MAX_PLAYERS, MIN_PLAYERS, GameConfig
from nothanks_env.presets import PRESETS, preset_problem, resolve_config
from training.cli import int_in


def preset_name(text: str) -> str:
    """An argparse ``type`` for ``--preset``: ``text`` if it names a preset, else an error that lists the presets,
    shows ``text`` and suggests the closest name (argparse names the option)."""
    problem = preset_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


PRESET_HELP = f"rule variant, one of {', '.join(sorted(PRESETS))} (default standard)"
"""The help of every ``--preset`` option."""


def add_variant_arguments(ap: argparse.ArgumentParser) -> None:
    """Add ``--preset``, ``--players``, ``--deals`` and ``--opponent-chips`` to ``ap``."""
    ap.add_argument("--preset", default="standard", type=preset_name, help=PRESET_HELP)
    players = int_in(MIN_PLAYERS, MAX_PLAYERS)
    ap.add_argument("--players", type=players, help="table size 3..7 (default: the preset's, 3 for standard)")
    ap.add_argument("--deals", type=int_in(1), help="deals per match (default: the preset's, 1 for standard)")
    ap.add_argument("--opponent-chips", choices=["hidden", "visible"], help="override the preset's chip rule")


def variant_config(args: argparse.Namespace) -> GameConfig:
    """The config that ``--preset`` and the overrides in ``args`` describe.

    Raises:
        RuleError: (a ValueError) naming an unknown preset (with the valid names) or an invalid value.
    """
    overrides: dict = {}
    if getattr(args, "deals", None) is not None:
        overrides["num_deals"] = args.deals
    if getattr(args, "opponent_chips", None) is not None:
        overrides["opponent_chips"] = args.opponent_chips
    return resolve_config(num_players=args.players, preset=args.preset, **overrides)
