"""League of policies: games drawn from a pool, seats rotated, Plackett-Luce ratings with uncertainty.

Method:

- **Tables**: each deal seats ``num_players`` distinct policies drawn uniformly from the pool (in random
  order), and is played once per cyclic rotation of them (duplicate deals: every drawn policy meets the
  same cards from every seat). ``games`` is therefore rounded up to a multiple of ``num_players`` (the
  output says so when it happens). All tables are played batched through :func:`training.evaluate.run_games`.
- **Ratings**: openskill's Plackett-Luce model (μ₀ = 25, σ₀ = 25/3, β = 25/6, and τ = 0: scripted bots
  do not change strength, so no drift term keeps σ from shrinking) updates after every game, in a random
  order fixed by the seed, with the game's ranks by penalty (ties share a rank). The leaderboard is
  sorted by the conservative rating ``ordinal = μ − 3σ``.
- **Win rate and mean penalty** with 95% intervals, mean rank and per-seat win rates are computed as in
  :mod:`training.evaluate` (averaged per deal first, Student-t interval over deals). They depend on the
  pool a policy met, so compare them within one leaderboard only.

Outputs in ``--out``: ``leaderboard.md``, ``leaderboard.csv``, ``leaderboard.json`` and ``ratings.png``
(μ with a ±2σ bar per policy). A folder that already holds one of them is refused before any game, unless
``--overwrite``. The rules played are recorded: ``leaderboard.json`` has ``preset`` and ``config`` (the dict
``training.evaluate --json`` writes), and the Markdown starts with a ``Rules:`` line unless they are the standard
game's.

Command line::

    python -m training.tournament --players 3 --policies random never-take threshold heuristic search \\
        --games 20000 --seed 0 --workers 2 --out runs/league-p3
    python -m training.tournament --preset open_removed --policies random threshold heuristic ppo-3p \\
        --games 6000 --out runs/league-open
"""

from __future__ import annotations

import argparse
import json
import pathlib
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from nothanks_env.game import GameConfig
from nothanks_env.policy import Policy, check_player_count
from nothanks_env.table import PolicyActionError
from nothanks_env.vector import deal_matches
from training.evaluation.evaluate import (
    MAX_GAMES,
    PolicyStats,
    check_plays,
    config_dict,
    duplicate_seating,
    label_policies,
    recorded_preset,
    rounded_games,
    rounding_note,
    run_games,
    summarize,
    unique_names,
    variant_label,
    write_stats_csv,
)
from training.variants import add_variant_arguments, table_problem, variant_config

OUTPUT_FILES: tuple[str, ...] = ("leaderboard.md", "leaderboard.csv", "leaderboard.json", "ratings.png")
"""The files :meth:`TournamentResult.write` writes into ``--out``."""


@dataclass
class Rating:
    """A Plackett-Luce rating: mean ``mu``, uncertainty ``sigma`` (rating points), ``ordinal = mu - 3 sigma``."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass
class LeaderboardRow:
    rating: Rating
    stats: PolicyStats


@dataclass
class TournamentResult:
    """Leaderboard rows sorted by ordinal (best first), plus what was played (``games``; ``games_requested``
    is the count asked for, which ``games`` rounds up to a multiple of ``num_players``; ``config``, the rules as
    ``training.evaluate --json`` writes them, and ``preset``, the preset named or matched, None for rules no
    preset describes)."""

    num_players: int
    games: int
    seed: int
    seconds: float
    rows: list[LeaderboardRow] = field(default_factory=list)
    games_requested: int | None = None
    config: dict = field(default_factory=dict)
    preset: str | None = None

    @property
    def rounding_note(self) -> str:
        """Why more games were played than asked for (:func:`training.evaluate.rounding_note`), or ``""``."""
        asked = self.games if self.games_requested is None else self.games_requested
        return rounding_note(asked, self.games, self.num_players)

    @property
    def variant(self) -> str:
        """The rules in a few words (:func:`training.evaluate.variant_label`), ``""`` for the standard game."""
        return variant_label(self.config or GameConfig(num_players=self.num_players), self.preset)

    def __getitem__(self, name: str) -> LeaderboardRow:
        for r in self.rows:
            if r.stats.name == name:
                return r
        raise KeyError(f"policy name: expected one of {[r.stats.name for r in self.rows]}, got {name!r}")

    def markdown(self) -> str:
        """The leaderboard as a Markdown table (win rate and penalty with 95% intervals), after a line naming the
        rules unless they are the standard game's."""
        head = [f"Rules: {self.variant} ({self.num_players} players).", ""] if self.variant else []
        lines = [
            *head,
            "| # | policy | rating μ ± σ | ordinal | win rate [95% CI] | mean penalty [95% CI] | mean rank | games |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for i, r in enumerate(self.rows, 1):
            s, g = r.stats, r.rating
            lines.append(
                f"| {i} | {s.name} | {g.mu:.2f} ± {g.sigma:.2f} | {g.ordinal:.2f} | "
                f"{s.win_rate:.3f} [{s.win_rate_ci[0]:.3f}, {s.win_rate_ci[1]:.3f}] | "
                f"{s.mean_penalty:.2f} [{s.mean_penalty_ci[0]:.2f}, {s.mean_penalty_ci[1]:.2f}] | "
                f"{s.mean_rank:.2f} | {s.games} |"
            )
        return "\n".join(lines) + "\n"

    def write(self, out: pathlib.Path) -> None:
        """Write :data:`OUTPUT_FILES` (leaderboard.md/.csv/.json, ratings.png) into directory ``out`` (created if
        missing), replacing them if they exist."""
        out.mkdir(parents=True, exist_ok=True)
        (out / "leaderboard.md").write_text(self.markdown())
        extra = [{"mu": r.rating.mu, "sigma": r.rating.sigma, "ordinal": r.rating.ordinal} for r in self.rows]
        write_stats_csv(str(out / "leaderboard.csv"), [r.stats for r in self.rows], extra)
        data = {
            "num_players": self.num_players,
            "games": self.games,
            "games_requested": self.games_requested,
            "games_note": self.rounding_note,
            "preset": self.preset,
            "config": self.config,
            "seed": self.seed,
            "seconds": self.seconds,
            "rows": [asdict(r.stats) | e for r, e in zip(self.rows, extra)],
        }
        (out / "leaderboard.json").write_text(json.dumps(data, indent=2))
        plot_ratings(self, out / "ratings.png")


def plot_ratings(result: TournamentResult, path: pathlib.Path) -> None:
    """PNG of each policy's μ with a ±2σ error bar (≈95%), best at the top."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result.rows[::-1]
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(rows) + 1.5))
    y = np.arange(len(rows))
    ax.errorbar([r.rating.mu for r in rows], y, xerr=[2 * r.rating.sigma for r in rows], fmt="o", capsize=4)
    ax.set_yticks(y, [r.stats.name for r in rows])
    ax.set_xlabel("Plackett-Luce rating μ (bars: ±2σ)")
    rules = f", {result.variant}" if result.variant else ""
    ax.set_title(f"{result.num_players} players, {result.games} games{rules}")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def rate_games(num_policies: int, seating: np.ndarray, penalties: np.ndarray, seed: int) -> list[Rating]:
    """Plackett-Luce ratings after every game, played through in a seeded random order.

    Args:
        num_policies: size of the pool.
        seating: int (G, P), policy index at each seat (distinct within a game).
        penalties: int (G, P), final penalties (lower is better; equal penalties share a rank).
        seed: fixes the order of the updates.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0.0)
    ratings = [model.rating() for _ in range(num_policies)]
    for g in np.random.default_rng(seed).permutation(len(seating)):
        teams = [[ratings[j]] for j in seating[g]]
        new = model.rate(teams, ranks=[float(x) for x in penalties[g]])
        for j, team in zip(seating[g], new):
            ratings[j] = team[0]
    return [Rating(r.mu, r.sigma) for r in ratings]


def tournament(
    policies: Sequence[Policy],
    *,
    num_players: int,
    games: int,
    seed: int,
    config: GameConfig | None = None,
    workers: int = 1,
    progress: bool = False,
    ray: str | None = None,
    preset: str | None = None,
) -> TournamentResult:
    """Play a league among ``policies`` and rate them (method in the module docstring).

    Args:
        policies: the pool, at least ``num_players`` distinct policies.
        num_players: table size.
        games: games to play, rounded up to a multiple of ``num_players`` (the result's ``games`` is the
            count played, ``games_requested`` this one).
        seed: fixes tables, deals, policies' RNGs and the rating order.
        config: rule variant (default: standard rules), e.g. a preset's; with ``num_deals > 1`` each game
            is a match whose totals give the ranks.
        workers, progress, ray: as for :func:`training.evaluate.evaluate` (``ray``: a Ray address to play the
            chunks of games on as Ray tasks; the result is the same).
        preset: the preset ``config`` came from, recorded in the result (None: the preset ``config`` equals, if
            any; :func:`training.evaluate.recorded_preset`).

    Raises:
        ValueError: if the pool is smaller than the table, the config does not match, ``games < 1``, or a
            policy declares other table sizes (a checkpoint trained at other player counts).
    """
    config = config or GameConfig(num_players=num_players)
    if config.num_players != num_players:
        raise ValueError(f"config.num_players: expected {num_players}, got {config.num_players}")
    check_plays(policies, config)
    n = len(policies)
    if n < num_players:
        raise ValueError(f"policies: expected at least {num_players} for {num_players}-player tables, got {n}")
    if games < 1:
        raise ValueError(f"games: expected an int >= 1, got {games!r}")
    for p in policies:
        check_player_count(p, num_players)
    rng = np.random.default_rng(seed)
    deals = rounded_games(games, num_players) // num_players
    lineup = np.argsort(rng.random((deals, n)), axis=1)[:, :num_players]  # P distinct policies, random order
    deck, removed = deal_matches(config, deals, rng)
    seating, deal = duplicate_seating(lineup)
    start = time.perf_counter()
    penalties = run_games(
        list(policies),
        config,
        deck[deal],
        removed[deal],
        seating,
        seed=seed,
        workers=workers,
        progress=progress,
        desc="league",
        ray=ray,
    )
    seconds = time.perf_counter() - start
    ratings = rate_games(n, seating, penalties, seed)
    stats = summarize(unique_names(policies), ["pool"] * n, penalties, seating, deal)
    rows = sorted((LeaderboardRow(r, s) for r, s in zip(ratings, stats)), key=lambda r: -r.rating.ordinal)
    return TournamentResult(
        num_players, len(seating), seed, seconds, rows, games_requested=games, config=config_dict(config),
        preset=recorded_preset(config, preset),
    )  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    """The command line's parser; bad input is one ``error:`` line and exit code 2 (:mod:`training.cli`)."""
    from training.cli import Parser, add_overwrite_argument, int_in, workers_arg

    ap = Parser(prog="python -m training.tournament", description=__doc__.split("\n\n")[0])
    add_variant_arguments(ap)
    ap.add_argument("--policies", nargs="+", required=True, help="policy specs of the pool (see training.specs)")
    ap.add_argument("--games", type=int_in(1, MAX_GAMES), default=20000, help="games (rounded up to a multiple of "
                    "--players, every deal played once per seat rotation; the output says so)")  # fmt: skip
    ap.add_argument("--seed", type=int_in(0), default=0)
    ap.add_argument("--workers", type=workers_arg(), default=1, help="processes (use the core count for speed)")
    ap.add_argument("--out", required=True, help="directory for the leaderboard files (created if missing)")
    add_overwrite_argument(ap)
    ap.add_argument("--no-progress", action="store_true")
    from training.scale.ray_backend import add_ray_argument

    add_ray_argument(ap)
    return ap


def main(argv: Sequence[str] | None = None) -> TournamentResult:
    """Run the command line; bad input exits with code 2 after one ``error:`` line."""
    from training.cli import check_outputs, load_spec, refuse
    from training.scale.ray_backend import connect
    from training.specs import load_policy

    args = build_parser().parse_args(argv)
    try:
        check_outputs({"--out": args.out}, overwrite=args.overwrite, files_in=OUTPUT_FILES)
        config = variant_config(args)
        n = config.num_players
        pool = [load_spec(load_policy, "--policies", s, table=config) for s in args.policies]
        label_policies(pool, args.policies)  # two checkpoints named best: by their paths, not best and best#2
        if len(pool) < n:
            raise ValueError(f"--policies: expected at least {n} specs for {n}-player tables, got {len(pool)}")
        problem = table_problem(args.preset, config, {"--policies": (args.policies, pool)})
        if problem:  # pass/take policies at a special-cards table, or special-cards networks at a standard one
            raise ValueError(problem)
        if args.ray is not None:
            connect(args.ray, num_cpus=args.workers)
    except (ValueError, OSError, ImportError) as e:
        refuse(e)
    t0 = time.perf_counter()
    try:
        result = tournament(
            pool,
            num_players=config.num_players,
            games=args.games,
            seed=args.seed,
            config=config,
            workers=args.workers,
            progress=not args.no_progress,
            ray=args.ray,
            preset=args.preset,
        )
    except PolicyActionError as e:  # a user's bot that returned an illegal action: its fault, one error line
        refuse(e)
    result.write(pathlib.Path(args.out))
    print(result.markdown())
    note = f" ({result.rounding_note})" if result.rounding_note else ""
    print(
        f"{result.games} games{note} in {result.seconds:.1f} s; total {time.perf_counter() - t0:.1f} s; "
        f"wrote {args.out}"
    )
    return result


if __name__ == "__main__":
    from training.cli import exit_on_stop

    exit_on_stop(main)
