"""``--preset`` and rule overrides for every command-line tool, resolved by one function.

Each tool that plays games (evaluate, tournament, gauntlet) adds the same arguments with
:func:`add_variant_arguments` and turns them into a :class:`~nothanks_env.game.GameConfig` with
:func:`variant_config`, which goes through :func:`nothanks_env.presets.resolve_config`: a named preset,
then the overrides given on the command line (``--players``, ``--deals``, ``--opponent-chips``).

A preset with the house special cards (``wildcards``) is played only by policies with ``plays_special_cards``:
:func:`special_card_players` says which the package offers, and :func:`special_cards_problem` words every
command's refusal of the others the same way (naming them, who can play, and the flag to change). A network trained
on them (125 actions) plays no table without them: :func:`standard_table_problem` words that refusal, and
:func:`table_problem` gives whichever of the two applies.

Example:
    >>> import argparse
    >>> ap = argparse.ArgumentParser()
    >>> add_variant_arguments(ap)
    >>> variant_config(ap.parse_args(["--preset", "match3", "--players", "4"])).num_deals
    3
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence

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


def plays_special_cards(policy: object) -> bool:
    """Whether ``policy`` plays the house special cards (bids, drops, choices): its ``plays_special_cards``."""
    return bool(getattr(policy, "plays_special_cards", False))


def pass_take_only(specs: Sequence[str], policies: Sequence[object]) -> list[str]:
    """The specs (each once, in order) whose policies (``policies[i]`` loaded from ``specs[i]``) play only pass/take:
    what :func:`special_cards_problem` names under their flag."""
    return list(dict.fromkeys(s for s, p in zip(specs, policies, strict=True) if not plays_special_cards(p)))


def special_card_players(num_players: int | None = None) -> list[str]:
    """The specs of the policies the package offers that play the house special cards: the baselines with
    ``plays_special_cards``, then the shipped agents trained on them (a network's ``num_actions`` in its metadata;
    a composite's baseline), read from the code and the checkpoints, never listed by hand.

    Args:
        num_players: keep only the agents that play this table size (None: all).

    Example:
        >>> special_card_players(3)
        ['random', 'heuristic', 'ppo-wildcards']
    """
    from nothanks_env.baselines import BASELINES
    from nothanks_env.game import NUM_SPECIAL_ACTIONS

    names = [name for name, cls in BASELINES.items() if plays_special_cards(cls)]
    try:
        from training import checkpoints
    except ImportError:  # no torch: no shipped agent loads either
        return names
    for name, path in checkpoints.SHIPPED.items():
        try:
            meta = checkpoints.read_metadata(path)
        except (OSError, ValueError):  # a shipped folder missing or damaged: loading it says so
            continue
        counts = meta.get("num_players") or []
        if meta.get("num_actions") == NUM_SPECIAL_ACTIONS and (
            num_players is None or not counts or num_players in counts
        ):
            names.append(name)
    for name, spec in checkpoints.SHIPPED_SPECS.items():  # e.g. best-3p, a search bot: its baseline decides
        if plays_special_cards(BASELINES.get(spec.partition(":")[0].strip())):
            names.append(name)
    return names


def special_cards_problem(
    preset: str,
    config: GameConfig,
    unable: Mapping[str, Sequence[str]],
    *,
    described: Mapping[str, str] | None = None,
    example: str | None = None,
) -> str | None:
    """The one-line refusal of policies that cannot play ``config``'s special cards, or None when there are none
    (or ``config`` has no special cards). Every command words it so: who cannot play, who can, which flag to change.

    Args:
        preset: the ``--preset`` given (e.g. ``wildcards``).
        config: the rules it resolved to.
        unable: flag -> the specs given with it (as typed) that play only pass/take; flags with none are left out.
        described: flag -> how to name its specs instead of the flag, for defaults the user did not type (the
            gauntlet's ``"22 of the 24 standard columns"``); the flag is still the one to change.
        example: a working value to suggest, e.g. ``"--columns random heuristic"``.

    Example:
        >>> from nothanks_env.presets import get_preset
        >>> four = get_preset("wildcards", num_players=4)  # ppo-wildcards plays 3 players only
        >>> text = special_cards_problem("wildcards", four, {"--policy": ["ppo-mixed"]})
        >>> text.endswith("(random, heuristic, or a checkpoint trained on them), got --policy ppo-mixed, which plays "
        ...               "only pass/take: change --policy or --preset")
        True
    """
    given = {flag: list(specs) for flag, specs in unable.items() if specs}
    if not config.special_cards or not given:
        return None
    described = described or {}
    got = " and ".join(f"{described.get(flag, flag)} {' '.join(specs)}" for flag, specs in given.items())
    one = sum(len(specs) for specs in given.values()) == 1
    flags = ", ".join(given) + (f" (e.g. {example})" if example else "")
    return (
        f"--preset {preset}: expected policies that play its special cards ({special_cards_who(config.num_players)}), "
        f"got {got}, which play{'s' if one else ''} only pass/take: change {flags} or --preset"
    )


def special_cards_only_specs(specs: Sequence[str], policies: Sequence[object]) -> list[str]:
    """The specs (each once, in order) whose policies (``policies[i]`` loaded from ``specs[i]``) play only tables with
    special cards (a network trained on them): what :func:`standard_table_problem` names under their flag."""
    from nothanks_env.policy import special_cards_only

    return list(dict.fromkeys(s for s, p in zip(specs, policies, strict=True) if special_cards_only(p)))


def special_card_presets() -> list[str]:
    """The presets whose tables have special cards, e.g. ``["wildcards"]``, read from :data:`PRESETS`."""
    return sorted(name for name, values in PRESETS.items() if values.get("special_cards"))


def standard_table_problem(
    preset: str, config: GameConfig, unable: Mapping[str, Sequence[str]], *, described: Mapping[str, str] | None = None
) -> str | None:
    """The one-line refusal of networks trained on special cards at a table without them, or None when there are
    none (or ``config`` has special cards): who cannot play, the flag or preset to change, and the shipped networks
    that play the table (:func:`nothanks_env.specs.shipped_networks_hint`).

    Args:
        preset: the ``--preset`` given (e.g. ``standard``).
        config: the rules it resolved to.
        unable: flag -> the specs given with it (as typed) that play only special cards; flags with none are left out.
        described: flag -> how to name its specs instead of the flag (see :func:`special_cards_problem`).

    Example:
        >>> from nothanks_env.presets import get_preset
        >>> text = standard_table_problem("standard", get_preset("standard"), {"--opponents": ["ppo-wildcards"]})
        >>> text.endswith("got --opponents ppo-wildcards, trained on special cards (125 actions): change --opponents "
        ...               "or --preset (wildcards); shipped networks for 3 players: ppo-3p, ppo-3p-ens, ppo-mixed")
        True
    """
    from nothanks_env.game import NUM_SPECIAL_ACTIONS
    from nothanks_env.specs import shipped_networks_hint

    given = {flag: list(specs) for flag, specs in unable.items() if specs}
    if config.special_cards or not given:
        return None
    described = described or {}
    got = " and ".join(f"{described.get(flag, flag)} {' '.join(specs)}" for flag, specs in given.items())
    return (
        f"--preset {preset}: expected policies that play pass/take (its table has no special cards), got {got}, "
        f"trained on special cards ({NUM_SPECIAL_ACTIONS} actions): change {', '.join(given)} or --preset "
        f"({', '.join(special_card_presets())}){shipped_networks_hint(config.num_players, special_cards=False)}"
    )


def table_problem(
    preset: str, config: GameConfig, given: Mapping[str, tuple[Sequence[str], Sequence[object]]]
) -> str | None:
    """Every command's refusal of policies that cannot play ``config`` (:func:`special_cards_problem` at a table with
    special cards, :func:`standard_table_problem` at one without), or None.

    Args:
        preset: the ``--preset`` given.
        config: the rules it resolved to.
        given: flag -> (the specs given with it, as typed; the policies loaded from them, in the same order).
    """
    if config.special_cards:
        return special_cards_problem(preset, config, {f: pass_take_only(s, p) for f, (s, p) in given.items()})
    return standard_table_problem(preset, config, {f: special_cards_only_specs(s, p) for f, (s, p) in given.items()})


def special_cards_who(num_players: int | None = None) -> str:
    """Who plays the special cards, in words: ``"random, heuristic, ppo-wildcards, or a checkpoint trained on them"``
    (:func:`special_card_players` at ``num_players``)."""
    return ", ".join([*special_card_players(num_players), "or a checkpoint trained on them"])
