"""Gauntlet: one policy against a broad, fixed set of opponent tables, one row per table.

A *column* is a table of opponents. For a single spec it is that opponent in every other seat
(``P − 1`` copies of one policy object); a mixed table such as ``utility+extort`` fills the ``P − 1``
other seats cyclically (at 4 players: utility, extort, utility); a table with more specs than seats is
refused. Each column is one :func:`training.evaluate.evaluate` with the same seed (seats rotated, duplicate
deals, Student-t 95% intervals over deals, win rate with ties split), so any row can be reproduced alone with
``python -m training.evaluate --policy A --opponents B B --games N --seed S``. All columns share one process
pool (:func:`training.evaluate.run_many`), and the results do not depend on ``workers``.

The standard set is declared once, here: :data:`STANDARD_OPPONENTS` (one spec per column, reused by
anything that needs "the opponents people write", e.g. a league pool) and :data:`MIXED_TABLES`. Slow
opponents have a cap on their games (:data:`GAMES_CAP`: the search bot plays a few games a second
against two copies of itself); the output says which columns were capped, and ``--column-games`` changes
a cap. Every deal is played once per seat rotation, so a column's games are rounded up to a multiple of
``P`` (3000 at 7 players plays 3003); the output says so when it happens. The summary is the minimum and the
mean of the win rate over the columns; parity is ``1 / P``. Each report records the rules played (``preset`` and
``config`` in the JSON, as ``training.evaluate --json`` writes them; named in the headers unless they are the standard
game's).

Command line::

    python -m training.gauntlet --players 3 --policy ppo-3p --games 3000 --seed 0 --workers 2 \\
        --json runs/gauntlet.json --md runs/gauntlet.md
    python -m training.gauntlet --players 4 --policy heuristic ppo-mixed --games 600 --md runs/g4.md
    python -m training.gauntlet --list        # the standard columns
    python -m training.gauntlet --players 3 --policy ppo-3p --heldout   # bots no agent was chosen on

``--heldout`` swaps the standard set for :data:`HELDOUT_COLUMNS` (:mod:`training.evaluation.heldout`): kinds
of bot and tables that no agent is trained, distilled or selected against, so a score there says whether the
gauntlet's scores carry over to play an agent never met. Tables name those bots by class (``ChipRich ×2``); the
JSON's ``column`` and ``opponents`` keep their full specs (``training.evaluation.heldout:ChipRich``).
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from nothanks_env.game import GameConfig
from nothanks_env.policy import Policy, special_cards_only
from nothanks_env.specs import _holds_checkpoint
from training.cli import Parser, add_overwrite_argument, check_outputs, int_in, workers_arg
from training.evaluation.evaluate import (
    MAX_GAMES,
    PolicyStats,
    config_dict,
    label_policies,
    plan_matchup,
    recorded_preset,
    rounded_games,
    run_many,
    unique_names,
    variant_label,
)
from training.evaluation.heldout import HELDOUT_MIXED, HELDOUT_OPPONENTS, short_name
from training.variants import (
    add_variant_arguments,
    pass_take_only,
    plays_special_cards,
    special_card_players,
    special_cards_only_specs,
    special_cards_problem,
    standard_table_problem,
    variant_config,
)

STANDARD_OPPONENTS: tuple[str, ...] = (
    "random",
    "never-take",
    "threshold:T=-2",
    "threshold:T=2",
    "threshold",
    "threshold:T=12",
    "ratio:r=0.3",
    "ratio",
    "ratio:r=0.8",
    "ratio:r=0.3,runs=True",
    "ratio:runs=True",
    "stochastic",
    "stochastic:T=2,temp=1.0",
    "blocker",
    "utility",
    "utility:chip_memory=False",
    "extort",
    "extort:chip_memory=False",
    "heuristic",
    "search:iters=16",
)
"""The standard opponents, each a policy spec (:func:`training.specs.load_policy`) equal to the name the
policy reports, so tables name exactly what played. Families: thresholds from taking nearly nothing
(T = −2) to nearly everything cheap (T = 12); pot/card ratio bots, pass-heavy (r = 0.8) to eager, with and
without run awareness; stochastic value bots; the run-aware blocking/milking bot; the utility and chip
pressure bots of :mod:`nothanks_env.baselines.public` with and without chip memory (the strongest public
kind); our heuristic and search bot; never-take and random."""

MIXED_TABLES: tuple[tuple[str, ...], ...] = (
    ("utility", "extort"),
    ("heuristic", "utility"),
    ("heuristic", "extort"),
    ("blocker", "ratio"),
)
"""Mixed tables: the specs fill the ``P − 1`` other seats cyclically."""

GAMES_CAP: dict[str, int] = {"search:iters=16": 300}
"""Column label -> most games it plays by default (slow opponents)."""


@dataclass(frozen=True)
class Column:
    """One opponent table.

    Attributes:
        opponents: policy specs filling the other seats cyclically (one spec: every other seat).
        max_games: most games to play in this column (``None``: as many as asked).
    """

    opponents: tuple[str, ...]
    max_games: int | None = None

    @property
    def label(self) -> str:
        """``spec`` or ``spec+spec``: the column's key in JSON and in ``--column-games``."""
        return "+".join(self.opponents)

    def seat_specs(self, num_players: int) -> list[str]:
        """The ``num_players − 1`` opponent specs in the seats after the candidate's, in turn order."""
        return [self.opponents[i % len(self.opponents)] for i in range(num_players - 1)]

    def display(self, num_players: int) -> str:
        """``utility ×2`` for a single opponent; ``utility + extort`` for a mixed table (its seats). Held-out bots
        are named by their class (``ChipRich ×2``, :func:`training.evaluation.heldout.short_name`); :attr:`label`
        keeps their full spec."""
        if len(self.opponents) == 1:
            return f"{short_name(self.opponents[0])} ×{num_players - 1}"
        return " + ".join(short_name(s) for s in self.seat_specs(num_players))


def _names_checkpoint(spec: str) -> bool:
    """Whether ``spec`` is a checkpoint on disk (its folder or a file in it), alone or as ``PATH:key=value``
    (parameters without ``+``: what follows one is the next spec)."""
    path, _, params = spec.rpartition(":")
    return _holds_checkpoint(spec) or ("=" in params and "+" not in params and _holds_checkpoint(path))


def parse_column(text: str, name: str = "column") -> Column:
    """A column from its label: ``spec`` or ``spec+spec+...``, with the default cap of :data:`GAMES_CAP`.

    A ``+`` that is a number's sign (after ``=``, as in ``threshold:T=+3``, or in an exponent, as in
    ``temp=1e+1``) is part of its spec. A checkpoint path that holds ``+`` (``runs/a+b/final``) is one spec: where
    some consecutive ``+``-separated parts join into an existing checkpoint path (the longest such join wins),
    they are not split.

    Raises:
        ValueError: ``"<name>: expected ..."`` for an empty label or an empty spec between ``+`` signs (the command
            line names its flag, ``--columns``).
    """
    parts: list[str] = []
    for part in text.split("+"):
        if parts and re.search(r"(=|\d[eE])\s*$", parts[-1]) and re.match(r"\s*[\d.]", part):
            parts[-1] += "+" + part  # a sign: T=+3, 1e+1
        else:
            parts.append(part)
    specs, i = [], 0
    while i < len(parts):
        j = next((j for j in range(len(parts), i + 1, -1) if _names_checkpoint("+".join(parts[i:j]).strip())), i + 1)
        specs.append("+".join(parts[i:j]).strip())
        i = j
    if not text.strip() or not all(specs):
        raise ValueError(f"{name}: expected a policy spec or specs joined by '+', got {text!r}")
    label = "+".join(specs)
    return Column(tuple(specs), GAMES_CAP.get(label))


STANDARD_COLUMNS: tuple[Column, ...] = tuple(parse_column(s) for s in STANDARD_OPPONENTS) + tuple(
    Column(t, GAMES_CAP.get("+".join(t))) for t in MIXED_TABLES
)
"""The standard gauntlet: one column per standard opponent, then the mixed tables (built from their specs, not
parsed: no file system look-up, :func:`parse_column`'s, can change them)."""

HELDOUT_COLUMNS: tuple[Column, ...] = tuple(parse_column(s) for s in HELDOUT_OPPONENTS) + tuple(
    Column(t, GAMES_CAP.get("+".join(t))) for t in HELDOUT_MIXED
)
"""The held-out set (``--heldout``): bots and tables no agent is trained or chosen on
(:mod:`training.evaluation.heldout`), to check that an agent's gauntlet scores carry over to play it never met."""


@dataclass
class GauntletRow:
    """The candidate's results in one column (fractions in [0, 1]; penalties in penalty points).

    Attributes:
        column: the column's label (its full specs, as ``--columns`` and ``--column-games`` take it); display: its
            human-readable form at this table size (held-out bots by class name, :meth:`Column.display`).
        opponents: the ``P − 1`` opponent specs in seat order after the candidate (full specs).
        games: games played (a multiple of ``P``); capped: whether a cap cut the games asked for.
        stats: the candidate's :class:`~training.evaluate.PolicyStats` (win rate with CI, mean penalty with
            CI, mean rank, per-seat win rates).
        seconds: time its games took, summed over chunks (CPU-seconds of play, not wall clock).
        games_requested: games asked for in this column (after its cap or ``--column-games``), before
            rounding up to a multiple of ``P`` (``None``: as many as played).
    """

    column: str
    display: str
    opponents: list[str]
    games: int
    capped: bool
    stats: PolicyStats
    seconds: float
    games_requested: int | None = None


@dataclass
class GauntletReport:
    """A policy's gauntlet: one :class:`GauntletRow` per column, in the order of the columns given.

    Attributes:
        policy: the candidate's name; num_players, seed: what was played.
        games: games asked for per column (capped columns played fewer; see each row).
        seconds: wall-clock time of all the games; workers: processes used.
        config: the rules, as ``training.evaluate --json`` writes them (:func:`training.evaluate.config_dict`).
        preset: the preset named or matched (:func:`training.evaluate.recorded_preset`), None for rules no preset
            describes.
    """

    policy: str
    num_players: int
    games: int
    seed: int
    seconds: float
    workers: int
    rows: list[GauntletRow] = field(default_factory=list)
    config: dict = field(default_factory=dict)
    preset: str | None = None

    @property
    def variant(self) -> str:
        """The rules in a few words (:func:`training.evaluate.variant_label`), ``""`` for the standard game."""
        return variant_label(self.config or GameConfig(num_players=self.num_players), self.preset)

    @property
    def table_size(self) -> str:
        """``"3 players"``, with the rules when they are not the standard game's: ``"3 players (match3, 2 deals)"``."""
        return f"{self.num_players} players" + (f" ({self.variant})" if self.variant else "")

    @property
    def parity(self) -> float:
        """The fair share of wins, ``1 / num_players``."""
        return 1.0 / self.num_players

    @property
    def min_row(self) -> GauntletRow:
        """The column with the lowest win rate (the first of equals)."""
        return min(self.rows, key=lambda r: r.stats.win_rate)

    @property
    def mean_win_rate(self) -> float:
        """Unweighted mean of the columns' win rates."""
        return float(np.mean([r.stats.win_rate for r in self.rows]))

    @property
    def mean_penalty(self) -> float:
        return float(np.mean([r.stats.mean_penalty for r in self.rows]))

    @property
    def mean_rank(self) -> float:
        return float(np.mean([r.stats.mean_rank for r in self.rows]))

    @property
    def games_played(self) -> int:
        return sum(r.games for r in self.rows)

    @property
    def games_per_second(self) -> float:
        return self.games_played / self.seconds if self.seconds > 0 else math.inf

    @property
    def rounding_note(self) -> str:
        """One sentence on columns that played more games than asked for (rounded up to a multiple of ``P``),
        or ``""``."""
        pairs = {(r.games_requested, r.games) for r in self.rows if r.games_requested not in (None, r.games)}
        if not pairs:
            return ""
        counts = "; ".join(f"{asked} asked for, {played} played" for asked, played in sorted(pairs, reverse=True))
        return (
            f"Games rounded up to a multiple of {self.num_players} (every deal is played once per seat rotation): "
            f"{counts}."
        )

    def to_dict(self) -> dict:
        """Everything, plus ``parity``, ``games_played``, ``games_per_second``, ``games_note`` (:attr:`rounding_note`)
        and ``summary`` (min and mean)."""
        summary = {
            "min_win_rate": self.min_row.stats.win_rate,
            "min_column": self.min_row.column,
            "mean_win_rate": self.mean_win_rate,
            "mean_penalty": self.mean_penalty,
            "mean_rank": self.mean_rank,
            "columns": len(self.rows),
        }
        extra = {"games_played": self.games_played, "games_per_second": self.games_per_second}
        extra |= {"games_note": self.rounding_note}
        return asdict(self) | {"parity": self.parity} | extra | {"summary": summary}

    def caps_note(self) -> str:
        """One sentence on capped columns, or ``""``."""
        capped = [f"`{r.column}` {r.games}" for r in self.rows if r.capped]
        if not capped:
            return ""
        return f"Capped (slow) columns, games played: {', '.join(capped)}."

    def markdown(self) -> str:
        """A Markdown section: a header line, one row per column, then the minimum and the mean."""
        played = rounded_games(self.games, self.num_players)
        notes = "".join(f" {n}" for n in (self.rounding_note, self.caps_note()) if n)
        lines = [
            f"`{self.policy}`, {self.table_size}: {played} games per column, seed {self.seed}, "
            f"seats rotated, duplicate deals; parity {self.parity:.3f}.{notes}",
            "",
            "| opponents | games | win rate | 95% CI | mean penalty | mean rank |",
            "|---|---:|---:|---|---:|---:|",
        ]
        for r in self.rows:
            s = r.stats
            lines.append(
                f"| {r.display} | {r.games} | {s.win_rate:.3f} | [{s.win_rate_ci[0]:.3f}, {s.win_rate_ci[1]:.3f}] "
                f"| {s.mean_penalty:.2f} | {s.mean_rank:.2f} |"
            )
        low = self.min_row
        lines.append(f"| **minimum** ({low.display}) | | **{low.stats.win_rate:.3f}** | | | |")
        lines.append(
            f"| **mean** of {len(self.rows)} columns | | **{self.mean_win_rate:.3f}** | "
            f"| {self.mean_penalty:.2f} | {self.mean_rank:.2f} |"
        )
        return "\n".join(lines) + "\n"

    def table(self):
        """A :class:`rich.table.Table` of the report: win rate with its 95% CI, mean penalty, mean rank and the
        seconds of play (``s``) of each column."""
        from rich.table import Table

        t = Table(title=f"gauntlet of {self.policy}, {self.table_size} (parity {self.parity:.3f})")
        # Short headers, and long opponent names wrap: the figures fit an 80-column terminal uncut
        t.add_column("opponents", overflow="fold")
        for col in ("games", "win rate", "95% CI", "penalty", "rank", "s"):
            t.add_column(col, justify="right", no_wrap=True)
        for r in self.rows:
            s = r.stats
            games = f"{r.games} (capped)" if r.capped else str(r.games)
            ci = f"[{s.win_rate_ci[0]:.3f}, {s.win_rate_ci[1]:.3f}]"
            t.add_row(r.display, games, f"{s.win_rate:.3f}", ci, f"{s.mean_penalty:.2f}", f"{s.mean_rank:.2f}",
                      f"{r.seconds:.1f}")  # fmt: skip
        t.add_section()
        low = self.min_row
        t.add_row(f"minimum ({low.display})", "", f"{low.stats.win_rate:.3f}", "", "", "", "")
        n = len(self.rows)
        t.add_row(f"mean of {n} column{'s' if n != 1 else ''}", "", f"{self.mean_win_rate:.3f}", "",
                  f"{self.mean_penalty:.2f}", f"{self.mean_rank:.2f}", "")  # fmt: skip
        return t


def compare_markdown(reports: Sequence[GauntletReport]) -> str:
    """Win rates of several policies side by side: one row per column, one column per policy.

    The reports must share their columns (in the same order), table size and rules; the best rate of each row is
    in bold (every rate that prints as it, to three decimals). Ends with the minimum and the mean rows; starts with a
    line naming the rules unless they are the standard game's.

    Raises:
        ValueError: if the reports have different columns, player counts or rules.
    """
    first = reports[0]
    for r in reports[1:]:
        if [x.column for x in r.rows] != [x.column for x in first.rows] or r.num_players != first.num_players:
            raise ValueError("reports: expected the same columns and player count for a side-by-side table")
        if r.config != first.config:
            raise ValueError(
                f"reports: expected the same rules for a side-by-side table, got {first.config} and {r.config}"
            )

    def cells(values: list[float]) -> str:
        best = f"{max(values):.3f}"  # every rate that prints as the best is bold, not one of two equal-looking ones
        return " | ".join(f"**{v:.3f}**" if f"{v:.3f}" == best and len(values) > 1 else f"{v:.3f}" for v in values)

    head = "| opponents | games | " + " | ".join(f"`{r.policy}`" for r in reports) + " |"
    rules = [f"Rules: {first.variant} ({first.num_players} players).", ""] if first.variant else []
    lines = [*rules, head, "|---|---:|" + "---:|" * len(reports)]
    for i, row in enumerate(first.rows):
        games = "/".join(sorted({str(r.rows[i].games) for r in reports}))
        lines.append(f"| {row.display} | {games} | {cells([r.rows[i].stats.win_rate for r in reports])} |")
    lines.append(f"| **minimum** | | {cells([r.min_row.stats.win_rate for r in reports])} |")
    lines.append(f"| **mean** | | {cells([r.mean_win_rate for r in reports])} |")
    return "\n".join(lines) + "\n"


def gauntlet(
    policy: Policy,
    *,
    num_players: int,
    games: int,
    seed: int,
    columns: Sequence[Column] = STANDARD_COLUMNS,
    column_games: Mapping[str, int] | None = None,
    config: GameConfig | None = None,
    workers: int = 1,
    progress: bool = False,
    ray: str | None = None,
    preset: str | None = None,
) -> GauntletReport:
    """Evaluate ``policy`` against every column (method in the module docstring).

    Args:
        policy: the candidate; it must pickle when ``workers > 1`` (as for :func:`training.evaluate.evaluate`).
        num_players: table size, 3..7.
        games: games per column, rounded up to a multiple of ``num_players``; a column's cap applies.
        seed: every column uses this seed (the same deals in every column).
        columns: the opponent tables (default: :data:`STANDARD_COLUMNS`).
        column_games: column label (or its short name, ``LowCard`` for ``training.evaluation.heldout:LowCard``) ->
            games for that column, replacing its cap and ``games``.
        config: rule variant (default: standard rules), e.g. a preset's; matches count the match win.
        workers: processes shared by all the columns (1 = this process).
        progress: show a progress bar over all the games.
        ray: a Ray address to play the chunks of every column on as Ray tasks
            (:func:`training.evaluate.run_many`); the report is the same.
        preset: the preset ``config`` came from, recorded in the report (None: the preset ``config`` equals, if
            any; :func:`training.evaluate.recorded_preset`).

    Returns:
        :class:`GauntletReport`, rows in the order of ``columns``.

    Raises:
        ValueError: for no or repeated columns, a column with more specs than the other seats, an unknown label
            in ``column_games``, a game count < 1, an opponent spec :func:`training.specs.load_policy` rejects,
            or a lineup or config mismatch.
    """
    from training.specs import load_policy

    check_columns(columns)
    check_seats(columns, num_players)
    overrides = resolve_column_games(columns, column_games or {})
    for label, n in [("games", games), *overrides.items()]:
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"games of {label}: expected an int >= 1, got {n!r}")
    built: dict[str, Policy] = {}  # one object per spec: the same opponent in several seats is one policy
    plans, counts = [], []
    for c in columns:
        seats = []
        for spec in c.seat_specs(num_players):
            if spec not in built:
                built[spec] = load_policy(
                    spec, num_players=num_players, special_cards=bool(config and config.special_cards)
                )
            seats.append(built[spec])
        n = overrides.get(c.label, min(games, c.max_games or games))
        counts.append(n)
        plans.append(plan_matchup([policy], seats, num_players=num_players, games=n, seed=seed, config=config))
    order = sorted(range(len(columns)), key=lambda i: columns[i].max_games is None)  # slow columns first
    start = time.perf_counter()
    played = run_many([plans[i] for i in order], workers=workers, progress=progress, desc=policy.name, ray=ray)
    seconds = time.perf_counter() - start
    results = dict(zip(order, played))
    config = config or GameConfig(num_players=num_players)
    report = GauntletReport(
        policy.name, num_players, games, seed, seconds, workers, config=config_dict(config),
        preset=recorded_preset(config, preset),
    )  # fmt: skip
    for i, c in enumerate(columns):
        penalties, secs = results[i]
        stats = plans[i].report(penalties, secs).policies[0]  # candidates come first
        report.rows.append(
            GauntletRow(
                c.label,
                c.display(num_players),
                c.seat_specs(num_players),
                len(penalties),
                counts[i] < games,
                stats,
                secs,
                counts[i],
            )  # fmt: skip
        )
    return report


def write_json(path: str | pathlib.Path, reports: Sequence[GauntletReport]) -> None:
    """Write ``{"reports": [report.to_dict(), ...]}`` to ``path``, creating its parent folders."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"reports": [r.to_dict() for r in reports]}, indent=2))


def write_markdown(path: str | pathlib.Path, reports: Sequence[GauntletReport]) -> None:
    """Write the side-by-side table (with several reports) and each report's own table to ``path``."""
    parts = [compare_markdown(reports)] if len(reports) > 1 else []
    parts += [r.markdown() for r in reports]
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(parts))


# ----------------------------------------------------------------------------- command line
def build_parser() -> argparse.ArgumentParser:
    from training.scale.ray_backend import add_ray_argument

    ap = Parser(prog="python -m training.gauntlet", description=__doc__.split("\n\n")[0])
    add_variant_arguments(ap)
    ap.add_argument("--policy", nargs="+", help="policy spec(s) to put through the gauntlet (training.specs)")
    ap.add_argument("--games", type=int_in(1, MAX_GAMES), default=3000, help="games per column (rounded up to a "
                    "multiple of P, every deal played once per seat rotation; the output says so)")  # fmt: skip
    ap.add_argument("--seed", type=int_in(0), default=0)
    ap.add_argument("--workers", type=workers_arg(), default=1, help="processes shared by the columns (the core count)")
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--columns", nargs="+", metavar="LABEL", help="replace the standard set: specs or a+b tables "
                       "(at most P-1 specs, filling the other seats in turn; a checkpoint path with a '+' in it "
                       "is one spec)")  # fmt: skip
    which.add_argument("--heldout", action="store_true", help="replace the standard set with the held-out bots "
                       "and tables (training.evaluation.heldout), which no agent is trained or chosen on")  # fmt: skip
    ap.add_argument("--column-games", nargs="+", default=[], metavar="LABEL=N", help="games of one column")
    ap.add_argument("--json", help="write every report as JSON to this path")
    ap.add_argument("--md", help="write Markdown tables to this path")
    add_overwrite_argument(ap)
    ap.add_argument("--list", action="store_true", help="print the standard (or with --heldout the held-out) columns "
                    "and exit")  # fmt: skip
    ap.add_argument("--no-progress", action="store_true")
    add_ray_argument(ap)
    return ap


def resolve_column_games(
    columns: Sequence[Column], column_games: Mapping[str, int], name: str = "column_games"
) -> dict[str, int]:
    """``column_games`` keyed by each column's :attr:`Column.label`: a key may be the label or the short name the
    tables print without ``×N`` (``LowCard`` for ``training.evaluation.heldout:LowCard``, ``LowCard+Hoarder``).

    Raises:
        ValueError: ``"<name>: expected ..."`` for a key that names no column, or two keys naming one column.
    """
    labels = [c.label for c in columns]
    short = {"+".join(short_name(s) for s in c.opponents): c.label for c in columns}
    out: dict[str, int] = {}
    keys: dict[str, str] = {}
    for key, n in column_games.items():
        label = key if key in labels else short.get(key, key)
        if label in out:
            raise ValueError(
                f"{name}: expected each column at most once, got {label!r} twice (as {keys[label]!r} and {key!r})"
            )
        out[label], keys[label] = n, key
    unknown = sorted(set(out) - set(labels))
    if unknown:
        names = [k for k, v in short.items() if k != v]
        also = f" (or their short names {names})" if names else ""
        raise ValueError(f"{name}: expected labels among the columns {labels}{also}, got {unknown}")
    return out


def _column_games(items: Sequence[str]) -> dict[str, int]:
    """``--column-games`` as label -> games; a label given twice is refused (which count was meant?)."""
    out: dict[str, int] = {}
    given: dict[str, str] = {}
    for item in items:
        label, _, n = item.rpartition("=")  # a label may hold '=' itself (search:iters=16=3000)
        try:
            games = int(n)
        except ValueError:
            raise ValueError(f"--column-games: expected LABEL=N with N an int, got {item!r}") from None
        if not 1 <= games <= MAX_GAMES:
            raise ValueError(f"--column-games: expected LABEL=N with N in 1..{MAX_GAMES:,}, got {item!r}")
        if label in out:
            raise ValueError(
                f"--column-games: expected each column at most once, got {label!r} twice ({given[label]!r} and "
                f"{item!r})"
            )
        out[label], given[label] = games, item
    return out


def check_columns(columns: Sequence[Column], name: str = "columns") -> None:
    """Refuse no columns, or a column given twice (the same games twice, one row hiding the other in the JSON).

    Raises:
        ValueError: ``"<name>: expected ..."`` naming the labels given (the command line's name is ``--columns``).
    """
    labels = [c.label for c in columns]
    if not columns or len(set(labels)) != len(labels):
        raise ValueError(f"{name}: expected at least one column and no repeats, got {labels}")


def check_seats(columns: Sequence[Column], num_players: int, name: str = "columns") -> None:
    """Refuse a mixed table with more specs than the ``num_players - 1`` seats it fills (the extra specs would
    never play); fewer fill the seats in turn (:meth:`Column.seat_specs`).

    Raises:
        ValueError: ``"<name>: expected ..."`` naming the column and its spec count.
    """
    seats = num_players - 1
    for c in columns:
        if len(c.opponents) > seats:
            raise ValueError(
                f"{name}: expected at most {seats} specs joined by '+' at {num_players} players (one per other "
                f"seat; fewer fill the seats in turn), got {c.label!r} ({len(c.opponents)} specs)"
            )


def _check_args(args: argparse.Namespace) -> None:

    if not args.policy:
        raise ValueError("--policy: expected at least one policy spec, got none")
    check_outputs({"--json": args.json, "--md": args.md}, overwrite=args.overwrite)


def special_cards_refusal(
    args: argparse.Namespace, config: GameConfig, candidates: Sequence[Policy], columns: Sequence[Column]
) -> str | None:
    """The command line's refusal of policies and columns that cannot play ``config``, naming every such ``--policy``
    and column (a column cannot when one of its specs cannot), or None: pass/take policies at a table with special
    cards (:func:`training.variants.special_cards_problem`; the example given is the columns that can play, else the
    policies that do) and networks trained on special cards at one without
    (:func:`training.variants.standard_table_problem`)."""
    from training.specs import load_policy

    special = bool(config.special_cards)
    built: dict[str, bool] = {}

    def plays(spec: str) -> bool:
        if spec not in built:
            policy = load_policy(spec, table=config)
            built[spec] = plays_special_cards(policy) if special else not special_cards_only(policy)
        return built[spec]

    typed = special or args.columns  # the default sets are scripted bots: each plays a standard table
    unable = [c for c in columns if typed and not all(plays(s) for s in c.opponents)]
    labels, described = [c.label for c in unable], {}
    if not special:
        policies = special_cards_only_specs(args.policy, candidates)
        return standard_table_problem(args.preset, config, {"--policy": policies, "--columns": labels})
    policies = pass_take_only(args.policy, candidates)
    able = [c.label for c in columns if c not in unable] or special_card_players(config.num_players)
    if not args.columns:  # the default set, not typed: named as tables name it (ChipRich), counted
        which = "held-out" if args.heldout else "standard"
        labels = ["+".join(short_name(s) for s in c.opponents) for c in unable]
        count = f"all {len(columns)}" if len(unable) == len(columns) else f"{len(unable)} of the {len(columns)}"
        described["--columns"] = f"{count} {which} columns:"
    return special_cards_problem(
        args.preset, config, {"--policy": policies, "--columns": labels}, described=described,
        example=f"--columns {' '.join(able)}" if unable else None,
    )  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0, or 2 after one ``error:`` line on bad input)."""
    import sys

    from rich.console import Console

    from training.cli import load_spec, refuse
    from training.specs import load_policy

    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # --help, or bad input already reported on one line
        return int(e.code or 0)
    default_columns = HELDOUT_COLUMNS if args.heldout else STANDARD_COLUMNS
    if args.list:
        for c in default_columns:
            print(c.label + (f"  (at most {c.max_games} games)" if c.max_games else ""))
        return 0
    try:
        _check_args(args)
        columns = [parse_column(c, "--columns") for c in args.columns] if args.columns else list(default_columns)
        check_columns(columns, "--columns")
        column_games = resolve_column_games(columns, _column_games(args.column_games), "--column-games")
        config = variant_config(args)
        n = config.num_players
        check_seats(columns, n, "--columns")
        candidates = [load_spec(load_policy, "--policy", spec, table=config) for spec in args.policy]
        label_policies(candidates, args.policy)  # two checkpoints named best: by their paths, not both best
        for policy, label in zip(candidates, unique_names(candidates), strict=True):  # the same spec twice: #2
            if getattr(policy, "name", None) != label:
                policy.name = label
        if args.columns:  # a column's spec that does not load is refused naming the flag, before any game
            for spec in dict.fromkeys(s for c in columns for s in c.opponents):
                load_spec(load_policy, "--columns", spec, table=config)
        problem = special_cards_refusal(args, config, candidates, columns)
        if problem:
            raise ValueError(problem)
        if args.ray is not None:
            from training.scale.ray_backend import connect

            connect(args.ray, num_cpus=args.workers)
        reports = []
        for policy in candidates:
            report = gauntlet(
                policy, num_players=config.num_players, games=args.games, seed=args.seed, columns=columns,
                column_games=column_games, config=config, workers=args.workers, progress=not args.no_progress,
                ray=args.ray, preset=args.preset,
            )  # fmt: skip
            reports.append(report)
            console = Console() if sys.stdout.isatty() else Console(width=200)  # files and pipes: no wrapping
            console.print(report.table())
            note = "".join(f" {part}" for part in (report.rounding_note, report.caps_note()) if part)
            print(
                f"{report.games_played} games in {report.seconds:.1f} s ({report.games_per_second:,.0f} games/s, "
                f"{args.workers} worker(s)).{note}"
            )
    except (ValueError, OSError, ImportError) as e:
        try:
            refuse(e)  # one error: line
        except SystemExit as stop:
            return int(stop.code)
    if len(reports) > 1:
        print(compare_markdown(reports))
    if args.json:
        write_json(args.json, reports)
    if args.md:
        write_markdown(args.md, reports)
    return 0


if __name__ == "__main__":
    from training.cli import exit_on_stop

    exit_on_stop(main)
