"""Named rule variants (presets), each a :class:`~nothanks_env.game.GameConfig`.

=========================  ======================================================================
preset                     rules
=========================  ======================================================================
standard                   the published game: 3 players (any count 3..7 via ``num_players``),
                           9 cards removed face down, chips by player count (11 / 9 / 7)
open_removed               10, 20 and 30 removed face up (known to all) + 6 face down; 10 chips each
six_player_one_removed     6 players, 9 chips each, 1 card removed face down (32 cards played)
match3                     standard rules, a match of 3 deals (penalties add up, the starting
                           seat rotates clockwise)
visible_chips              standard rules with every player's chips shown (a common house rule)
wildcards                  house rule: a wild ("?") and a delete card join the deck before the
                           removal (26 cards played); each is auctioned when turned, the winner's
                           bid leaves the game, and the winner names the wild's value or discards
                           a card (rules in :mod:`nothanks_env.game`; 125 actions, 499-value obs)
=========================  ======================================================================

Example:
    >>> get_preset("open_removed", num_players=4).removed_face_up
    (10, 20, 30)
    >>> get_preset("standard", num_players=7).chips_per_player
    7
"""

from __future__ import annotations

from dataclasses import fields, replace
from types import MappingProxyType
from typing import Any

from nothanks_env.game import GameConfig, RuleError, did_you_mean

PRESETS: MappingProxyType[str, dict[str, Any]] = MappingProxyType(
    {
        "standard": {},
        "open_removed": {"removed_face_up": (10, 20, 30), "num_removed": 6, "starting_chips": 10},
        "six_player_one_removed": {"num_players": 6, "starting_chips": 9, "num_removed": 1},
        "match3": {"num_deals": 3},
        "visible_chips": {"opponent_chips": "visible"},
        "wildcards": {"special_cards": ("wild", "delete")},
    }
)
"""Preset name -> the :class:`GameConfig` fields it sets (everything else keeps its default)."""

CONFIG_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(GameConfig))
"""Names of the :class:`GameConfig` fields, which are also the accepted overrides."""


def preset_problem(name: object) -> str | None:
    """What is wrong with ``name`` as a preset name, for an error message that names the field or option first;
    None for a key of :data:`PRESETS`.

    Example:
        >>> preset_problem("wildcards") is None
        True
        >>> preset_problem("wildcard").endswith("'wildcards'], got 'wildcard' (did you mean 'wildcards'?)")
        True
    """
    if isinstance(name, str) and name in PRESETS:
        return None
    return f"expected one of {sorted(PRESETS)}, got {name!r}{did_you_mean(name, list(PRESETS))}"


def get_preset(name: str, **overrides: Any) -> GameConfig:
    """Build the config of a named preset, with some fields overridden.

    Args:
        name: a key of :data:`PRESETS`.
        **overrides: :class:`GameConfig` fields that replace the preset's (e.g. ``num_players=5``).

    Returns:
        The validated, frozen config.

    Raises:
        RuleError: on an unknown preset or field name (the message lists the valid ones), or an invalid value.
    """
    problem = preset_problem(name)
    if problem is not None:
        raise RuleError(f"preset: {problem}")
    unknown = sorted(set(overrides) - set(CONFIG_FIELDS))
    if unknown:
        raise RuleError(f"config field: expected one of {list(CONFIG_FIELDS)}, got {unknown}")
    return GameConfig(**{**PRESETS[name], **overrides})


def resolve_config(
    num_players: int | None = None,
    preset: str | None = None,
    config: GameConfig | None = None,
    **overrides: Any,
) -> GameConfig:
    """The config described by a preset name or a config object, with fields overridden.

    Args:
        num_players: seats, 3..7; ``None`` keeps the preset's (or config's) count.
        preset: a key of :data:`PRESETS`; ``None`` means ``"standard"`` unless ``config`` is given.
        config: a config to start from instead of a preset.
        **overrides: other :class:`GameConfig` fields.

    Raises:
        RuleError: if both ``preset`` and ``config`` are given, ``config`` is not a GameConfig, a field name
            is unknown, or a value is invalid.
    """
    if num_players is not None:
        overrides["num_players"] = num_players
    if config is None:
        return get_preset("standard" if preset is None else preset, **overrides)
    if preset is not None:
        raise RuleError(f"preset, config: expected at most one of them, got preset={preset!r} and a config")
    if not isinstance(config, GameConfig):
        raise RuleError(f"config: expected a GameConfig or None, got {type(config).__name__}")
    unknown = sorted(set(overrides) - set(CONFIG_FIELDS))
    if unknown:
        raise RuleError(f"config field: expected one of {list(CONFIG_FIELDS)}, got {unknown}")
    return replace(config, **overrides)
