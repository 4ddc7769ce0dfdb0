"""Throughput benchmarks. One sub-command per subject; each prints a table.

    python -m training.benchmark env [--seconds S] [--players 3 5 7] [--clock wall|cpu] [--preset NAME]
    python -m training.benchmark eval [--games N] [--workers W] [--seed S]
    python -m training.benchmark selfplay [CONFIG] [--set KEY=VALUE ...] [--steps N] [--naive-steps N]
                                          [--players P] [--snapshots K] [--pool default|snapshots] [--clock wall|cpu]
    python -m training.benchmark rllib [--iterations N] [--env-runners R] [--envs-per-runner E] [--address A]
    python -m training.benchmark serve [--opponents SPEC ...] [--moves N] [--preset P] [--seed S]
    python -m training.benchmark gym [--seconds S] [--players 3 5 7] [--opponents SPEC] [--num-envs N]
                                     [--opponent-rng per_env|shared]
    python -m training.benchmark all     # env, eval, gym (x3), serve and selfplay in turn, load averages recorded

``eval``: scripted-vs-scripted games per second through :func:`training.evaluate.evaluate` (three threshold
bots, 3 players, batched games, ``--workers`` processes); see :func:`training.evaluate.bench_eval`.

``selfplay``: learner steps per second of self-play against a config's opponent mix (``CONFIG`` and ``--set``
as ``python -m training.selfplay`` takes them; the default config without), on two cores (a collector process
beside the learner, the default) and on one, with where the time goes, next to a naive loop (one ``predict``
per decision) timed in the same run; it prints the rollout and PPO settings it timed. See
:mod:`training.bench_selfplay`.

``all``: every sub-command above but ``rllib`` (which needs the ray extra and starts Ray), in turn, with the
load average before each: the run the README's Benchmarks section is copied from.

``gym``: the Gymnasium single-agent envs against ``--opponents`` (default ``random``, the cheapest policy, so
that the env's own cost shows), next to the AEC env, one process: ``aec_env`` decisions/s as below;
``single_env`` learner steps/s and decisions/s (learner and opponents) of ``gymnasium.make(...)``;
``vector_env`` the same for ``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")`` with
``--num-envs`` sub-envs (SameStep autoreset, so every step is a decision; ``--opponent-rng`` as the env's
``opponent_rng``: ``per_env`` calls a stochastic opponent once per sub-env). Learner actions are random legal.

``serve``: latency of one move over HTTP against the web server (median and 90th percentile, ms); see
:mod:`training.web.bench`. Needs the ``web`` extra.

``env``: decisions per second of uniformly random legal play, on one process (one core), at these levels:

- ``engine``: :meth:`nothanks_env.game.Game.step` alone (the random choice and resets included).
- ``vector_engine``: :meth:`nothanks_env.vector.VectorGame.step` over a batch of 1024 games (the
  batched fast path that training and evaluation use; random choice and re-deals included).
- ``aec_env``: ``nothanks_v0.env()`` with its wrappers, one ``last()`` (full observation) and one
  ``step()`` per decision, the PettingZoo loop of a real agent.
- ``seat_view+encode``: ``encoding.encode(game.seat_view(seat))``, the reference observation path, per call.
- ``encode``: ``encoding.encode(view)`` alone on prepared seat views, per call.
- ``vector_encode``: ``encoding.encode_batch(VectorGame.view())`` on a batch of 1024 games, per observation.

``--preset NAME`` runs the levels on that variant (default ``standard``). With special cards (``wildcards``)
random legal play draws uniformly among the legal ids of each phase (offers, bids, drops, choices), so
auctions run long; the batched levels have no special cards and print ``-``.

Rates are wall-clock (``time.perf_counter``) over about ``--seconds`` per cell; the machine's load average
is printed because other processes on a shared machine lower them. ``--clock cpu`` times with
``time.process_time`` instead (CPU seconds of this process), which is less sensitive to that load. To add
a level, append a ``(name, function(num_players, seconds, clock, preset) -> rate)`` pair to :data:`ENV_LEVELS`
(return NaN for a preset the level cannot run).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable

import numpy as np

from nothanks_env import encoding, nothanks_v0
from nothanks_env.game import PASS, TAKE, Game, GameConfig, SeatView
from nothanks_env.presets import resolve_config
from nothanks_env.vector import VectorGame
from training.cli import refuse

VECTOR_BATCH: int = 1024

Clock = Callable[[], float]
"""A timer in seconds: ``time.perf_counter`` (wall) or ``time.process_time`` (CPU)."""


def _config(num_players: int, preset: str) -> GameConfig:
    return resolve_config(num_players=num_players, preset=preset)


def _random_action(game: Game, rng: random.Random) -> int:
    """A uniformly random legal action: pass/take by one random bit, else one of the phase's legal ids."""
    if not game.config.special_cards:
        return rng.getrandbits(1) if game.chips[game.current_seat] else TAKE
    legal = game.legal_actions()
    return legal[rng.randrange(len(legal))]


def engine_rate(num_players: int, seconds: float, clock: Clock = time.perf_counter, preset: str = "standard") -> float:
    """Decisions/s of ``Game.step`` with random legal actions (resets included)."""
    game = Game(_config(num_players, preset))
    rng = random.Random(0)
    decisions, seed = 0, 0
    special = bool(game.config.special_cards)
    start = clock()
    while clock() - start < seconds:
        game.reset(seed=seed)
        seed += 1
        chips = game.chips  # the engine mutates this list in place within a deal
        while not game.is_over:
            if special:
                game.step(_random_action(game, rng))
            else:
                game.step(rng.getrandbits(1) if chips[game.current_seat] else TAKE)
            decisions += 1
    return decisions / (clock() - start)


def vector_engine_rate(
    num_players: int, seconds: float, clock: Clock = time.perf_counter, preset: str = "standard"
) -> float:
    """Decisions/s of ``VectorGame.step`` on :data:`VECTOR_BATCH` games, random legal actions, re-deals included."""
    config = _config(num_players, preset)
    if config.special_cards:
        return float("nan")
    vg = VectorGame(config, VECTOR_BATCH, seed=0)
    rng = np.random.default_rng(0)
    decisions = 0
    start = clock()
    while clock() - start < seconds:
        can_pass = vg.action_mask()[:, PASS] == 1
        actions = np.where(can_pass & (rng.random(VECTOR_BATCH) < 0.5), PASS, TAKE)
        decisions += int((~vg.done).sum())
        vg.step(actions)
        vg.reset_games(vg.done)
    return decisions / (clock() - start)


def vector_encode_rate(
    num_players: int, seconds: float, clock: Clock = time.perf_counter, preset: str = "standard"
) -> float:
    """Observations/s of ``encoding.encode_batch(VectorGame.view())`` on :data:`VECTOR_BATCH` games mid-deal."""
    config = _config(num_players, preset)
    if config.special_cards:
        return float("nan")
    vg = VectorGame(config, VECTOR_BATCH, seed=0)
    rng = np.random.default_rng(1)
    for _ in range(40):  # move the games into mid-deal states
        can_pass = vg.action_mask()[:, PASS] == 1
        vg.step(np.where(can_pass & (rng.random(VECTOR_BATCH) < 0.7), PASS, TAKE))
        vg.reset_games(vg.done)
    calls = 0
    start = clock()
    while clock() - start < seconds:
        encoding.encode_batch(vg.view())
        calls += VECTOR_BATCH
    return calls / (clock() - start)


def aec_env_rate(num_players: int, seconds: float, clock: Clock = time.perf_counter, preset: str = "standard") -> float:
    """Decisions/s of ``nothanks_v0.env()``: one ``last()`` and one ``step()`` per decision."""
    env = nothanks_v0.env(num_players=num_players, preset=preset)
    special = bool(env.unwrapped.config.special_cards)
    rng = random.Random(0)
    decisions, seed = 0, 0
    start = clock()
    while clock() - start < seconds:
        env.reset(seed=seed)
        seed += 1
        for _agent in env.agent_iter():
            obs, _reward, terminated, _truncated, _info = env.last()
            if terminated:
                env.step(None)
                continue
            if special:
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.randrange(len(legal))]))
            else:
                env.step(rng.getrandbits(1) if obs["action_mask"][0] else TAKE)
            decisions += 1
    return decisions / (clock() - start)


def _random_views(num_players: int, count: int, preset: str = "standard") -> list[SeatView]:
    """``count`` seat views of the seat to act, taken along random games."""
    game = Game(_config(num_players, preset))
    rng = random.Random(1)
    out: list[SeatView] = []
    seed = 0
    while len(out) < count:
        game.reset(seed=seed)
        seed += 1
        while not game.is_over and len(out) < count:
            out.append(game.seat_view(game.current_seat))
            game.step(_random_action(game, rng))
    return out


def seat_view_encode_rate(
    num_players: int, seconds: float, clock: Clock = time.perf_counter, preset: str = "standard"
) -> float:
    """Calls/s of ``encode(game.seat_view(seat))`` on states of random games (stepping not timed)."""
    game = Game(_config(num_players, preset))
    rng = random.Random(2)
    calls, seed, elapsed = 0, 0, 0.0
    while elapsed < seconds:
        game.reset(seed=seed)
        seed += 1
        while not game.is_over:
            t0 = clock()
            encoding.encode(game.seat_view(game.current_seat))
            elapsed += clock() - t0
            calls += 1
            game.step(_random_action(game, rng))
    return calls / elapsed


def encode_rate(num_players: int, seconds: float, clock: Clock = time.perf_counter, preset: str = "standard") -> float:
    """Calls/s of ``encoding.encode(view)`` on prepared seat views from random games."""
    views = _random_views(num_players, 2000, preset)
    calls = 0
    start = clock()
    while clock() - start < seconds:
        for v in views:
            encoding.encode(v)
        calls += len(views)
    return calls / (clock() - start)


ENV_LEVELS: list[tuple[str, Callable[..., float]]] = [
    ("engine", engine_rate),
    ("vector_engine", vector_engine_rate),
    ("aec_env", aec_env_rate),
    ("seat_view+encode", seat_view_encode_rate),
    ("encode", encode_rate),
    ("vector_encode", vector_encode_rate),
]
"""(column name, function(num_players, seconds, clock, preset) -> decisions or calls per second; NaN if the
level cannot run the preset)."""


def gym_rates(
    num_players: int,
    seconds: float,
    clock: Clock = time.perf_counter,
    opponents: str = "random",
    num_envs: int = 256,
    opponent_rng: str = "per_env",
) -> dict[str, float]:
    """Learner steps/s and decisions/s (learner + opponents) of the single and the vector Gymnasium env."""
    import gymnasium

    from nothanks_env.gym_env import ENV_ID

    env = gymnasium.make(ENV_ID, num_players=num_players, opponents=opponents)
    rng = random.Random(0)
    _, info = env.reset(seed=0)
    steps, start, base = 0, clock(), env.unwrapped.opponent_decisions
    while clock() - start < seconds:
        action = rng.getrandbits(1) if info["action_mask"][PASS] else TAKE
        _, _, terminated, _, info = env.step(action)
        steps += 1
        if terminated:
            _, info = env.reset()
    elapsed = clock() - start
    decisions = steps + env.unwrapped.opponent_decisions - base
    out = {"single_steps": steps / elapsed, "single_decisions": decisions / elapsed}
    envs = gymnasium.make_vec(
        ENV_ID, num_envs, vectorization_mode="vector_entry_point", num_players=num_players, opponents=opponents,
        autoreset_mode="SameStep", opponent_rng=opponent_rng,
    )  # fmt: skip
    nrng = np.random.default_rng(0)
    _, infos = envs.reset(seed=0)
    steps, start, base = 0, clock(), envs.unwrapped.opponent_decisions
    while clock() - start < seconds:
        can_pass = infos["action_mask"][:, PASS] == 1
        _, _, _, _, infos = envs.step(np.where(can_pass & (nrng.random(num_envs) < 0.5), PASS, TAKE))
        steps += num_envs
    elapsed = clock() - start
    out["vector_steps"] = steps / elapsed
    out["vector_decisions"] = (steps + envs.unwrapped.opponent_decisions - base) / elapsed
    return out


def bench_gym(args: argparse.Namespace) -> None:
    """Print the ``gym`` table: one row per player count; the AEC env, the single env and the vector env."""
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"Gymnasium envs against {args.opponents} opponents, random legal learner, {args.seconds:g} {args.clock} s "
        f"per cell, vector env {args.num_envs} sub-envs ({args.opponent_rng} opponent RNG), "
        f"python {sys.version.split()[0]}, load average {load}"
    )
    names = ["aec_env", "single_steps", "single_decisions", "vector_steps", "vector_decisions"]
    print(f"{'players':>7}  " + "  ".join(f"{name:>16}" for name in names))
    for n in args.players:
        rates = {"aec_env": aec_env_rate(n, args.seconds, clock)}
        rates |= gym_rates(n, args.seconds, clock, args.opponents, args.num_envs, args.opponent_rng)
        print(f"{n:>7}  " + "  ".join(f"{rates[name]:>16,.0f}" for name in names), flush=True)
    print("units: decisions/s (aec_env, *_decisions: every seat's), learner steps/s (*_steps)")


def bench_env(args: argparse.Namespace) -> None:
    """Print the ``env`` table: one row per player count, one column per level of :data:`ENV_LEVELS`."""
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"random legal play, preset {args.preset}, {args.seconds:g} {args.clock} s per cell, "
        f"python {sys.version.split()[0]}, load average {load}"
    )
    names = [name for name, _ in ENV_LEVELS]
    widths = [max(len(name), 12) for name in names]
    print(f"{'players':>7}  " + "  ".join(f"{name:>{w}}" for name, w in zip(names, widths)))
    for n in args.players:
        rates = [fn(n, args.seconds, clock, args.preset) for _, fn in ENV_LEVELS]
        cells = [f"{'-':>{w}}" if np.isnan(rate) else f"{rate:>{w},.0f}" for rate, w in zip(rates, widths)]
        print(f"{n:>7}  " + "  ".join(cells), flush=True)
    print("units: decisions/s (engine, vector_engine, aec_env), observations/s (the encode columns)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; add a sub-command with ``subparsers.add_parser(...).set_defaults(func=...)``."""
    from nothanks_env.game import MAX_PLAYERS, MIN_PLAYERS
    from training.cli import Parser, int_in, positive_float, workers_arg
    from training.scale.ray_backend import ray_address
    from training.variants import PRESET_HELP, preset_name

    players = int_in(MIN_PLAYERS, MAX_PLAYERS)
    parser = Parser(prog="python -m training.benchmark", description=__doc__.split("\n")[0])
    subparsers = parser.add_subparsers(dest="command", required=True)
    p = subparsers.add_parser("env", help="decisions/s of the engine, the AEC env and the observation encoder")
    p.add_argument(
        "--seconds", type=positive_float, default=1.0, help="seconds of the chosen clock per table cell (default 1)"
    )
    p.add_argument("--players", type=players, nargs="+", default=[3, 5, 7], help="player counts (default 3 5 7)")
    p.add_argument("--clock", choices=["wall", "cpu"], default="wall", help="wall clock or process CPU time")
    p.add_argument("--preset", default="standard", type=preset_name, help=PRESET_HELP)
    p.set_defaults(func=bench_env)

    p = subparsers.add_parser("gym", help="steps/s and decisions/s of the Gymnasium single and vector envs")
    p.add_argument(
        "--seconds", type=positive_float, default=1.0, help="seconds of the chosen clock per env (default 1)"
    )
    p.add_argument("--players", type=players, nargs="+", default=[3, 5, 7], help="player counts (default 3 5 7)")
    p.add_argument("--opponents", default="random", help="policy spec of every opponent (default random)")
    p.add_argument(
        "--num-envs", type=int_in(1, 1_000_000), default=256, help="sub-envs of the vector env (default 256)"
    )
    p.add_argument("--opponent-rng", choices=["per_env", "shared"], default="per_env", help="vector env option")
    p.add_argument("--clock", choices=["wall", "cpu"], default="wall", help="wall clock or process CPU time")
    p.set_defaults(func=bench_gym)

    p = subparsers.add_parser("eval", help="scripted-vs-scripted games/s of the evaluation harness")
    p.add_argument("--games", type=int_in(1), default=20000, help="games to play (default 20000)")
    p.add_argument("--workers", type=workers_arg(), default=None, help="processes (default: every core)")
    p.add_argument("--seed", type=int_in(0), default=0)
    p.set_defaults(func=_bench_eval)

    p = subparsers.add_parser("selfplay", help="learner steps/s of self-play: fast path vs a naive loop")
    add_selfplay_arguments(p)
    p.set_defaults(func=_bench_selfplay)

    p = subparsers.add_parser("rllib", help="env and learner steps/s of RLlib PPO self-play (the ray extra)")
    p.add_argument("--iterations", type=int, default=5, help="timed training iterations after one warm-up")
    p.add_argument("--env-runners", type=int, default=0, help="remote EnvRunners (0: sample in the driver)")
    p.add_argument("--envs-per-runner", type=int, default=8, help="games per EnvRunner")
    p.add_argument(
        "--address", default="local", type=ray_address, help="Ray address (default: embedded on this machine)"
    )
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override configs/rllib.yaml")
    p.add_argument("--clock", choices=["wall", "cpu"], default="wall", help="wall clock or this process's CPU time")
    p.set_defaults(func=_bench_rllib)

    p = subparsers.add_parser("serve", help="latency of one move over HTTP against the web server")
    from training.web.bench import add_arguments as add_serve_arguments  # numpy only; the web extra loads later

    add_serve_arguments(p)
    # --opponents left out is told from --opponents typed (a preset with its own table size refuses them otherwise):
    # None here, the server's default filled in by check_serve_args
    p.set_defaults(func=_bench_serve, opponents=None, default_opponents=list(p.get_default("opponents")))

    p = subparsers.add_parser("all", help="every figure of the README's Benchmarks section, in one run")
    p.set_defaults(func=bench_all)
    return parser


ALL_RUNS: tuple[tuple[str, ...], ...] = (
    ("env",),
    ("env", "--preset", "wildcards"),
    ("eval",),  # before anything imports torch, so that its workers fork
    ("gym",),
    ("gym", "--opponents", "heuristic"),
    ("gym", "--opponent-rng", "shared"),
    ("serve", "--opponents", "ppo-3p", "ppo-3p", "--moves", "100"),
    ("selfplay",),
)
"""The sub-commands :func:`bench_all` runs, in order, each with its default options except those given."""


def bench_all(args: argparse.Namespace) -> None:
    """Run every :data:`ALL_RUNS` benchmark in turn: one record of the README's figures, each preceded by the
    command it stands for and the 1/5/15-minute load averages, so a busy machine shows in the record."""
    import datetime as dt
    import platform

    parser = build_parser()
    cpu = platform.processor() or platform.machine()
    print(f"# benchmark all: {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores ({cpu}), "
          f"Python {platform.python_version()}", flush=True)  # fmt: skip
    for argv in ALL_RUNS:
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"\n## python -m training.benchmark {' '.join(argv)}   (load average {load})", flush=True)
        sub = parser.parse_args(list(argv))
        start = time.perf_counter()
        sub.func(sub)
        print(f"({time.perf_counter() - start:.0f} s)", flush=True)


def _bench_eval(args: argparse.Namespace) -> None:
    from training.evaluation.evaluate import bench_eval

    bench_eval(args)


def add_selfplay_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``python -m training.benchmark selfplay`` (here, not in :mod:`training.bench.bench_selfplay`,
    so that building the parser imports no torch: ``eval``'s worker processes then fork, not spawn)."""
    from nothanks_env.game import MAX_PLAYERS, MIN_PLAYERS
    from training.cli import int_in

    parser.add_argument(
        "config", nargs="?",
        help="YAML config of self-play training whose game, env, pool and PPO settings are timed, as "
        "python -m training.selfplay takes it (default configs/selfplay.yaml)",
    )  # fmt: skip
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE",
        help="override a config value, as in training (e.g. --set ppo.n_steps=128 --set ppo.batch_size=8192)",
    )  # fmt: skip
    parser.add_argument(
        "--steps", type=int_in(1), default=200_000,
        help="learner steps timed on each fast path (default 200,000; rounded up to whole rollouts: "
        "env.games_per_count x player counts x ppo.n_steps, 4096 in the default config)",
    )  # fmt: skip
    parser.add_argument(
        "--naive-steps", type=int_in(1), default=8192, help="learner steps timed on the naive loop (default 8192)"
    )
    parser.add_argument(
        "--players", type=int_in(MIN_PLAYERS, MAX_PLAYERS), default=None,
        help="player count (default: the config's game.num_players, 3 in the default config)",
    )  # fmt: skip
    parser.add_argument("--snapshots", type=int_in(0), default=5, help="snapshot opponents in the pool (default 5)")
    parser.add_argument(
        "--pool",
        choices=["default", "snapshots"],
        default="default",
        help="opponents: the config's league plus the snapshots (default), or snapshots in every seat",
    )
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall", help="wall clock or process CPU time")
    parser.add_argument(
        "--seed", type=int_in(0), default=None, help="run.seed (default: the config's, 0 in the default)"
    )


def _bench_selfplay(args: argparse.Namespace) -> None:
    try:
        from training.bench.bench_selfplay import bench_selfplay  # imports torch: only with the train extra
    except ImportError as exc:  # keep the other benchmarks usable with the base install
        refuse(f"benchmark selfplay needs the train extra (pip install -e '.[train]'): {exc}")
        return
    bench_selfplay(args)


def _bench_rllib(args: argparse.Namespace) -> None:
    from training.scale.ray_backend import missing_ray_or_raise

    try:
        from training.scale.rllib_selfplay import bench_rllib  # the train extra (pydantic); Ray is imported later
    except ImportError as exc:  # keep the other benchmarks usable with the base install
        refuse(f"benchmark rllib needs the train and ray extras (pip install -e '.[train,ray]'): {exc}")
    try:
        bench_rllib(args)
    except ConnectionError as e:  # no cluster at --address (found before any work): one error line
        refuse(e)
    except ModuleNotFoundError as e:  # Ray missing: one line; any other missing module is a fault, with its traceback
        refuse(missing_ray_or_raise("python -m training.benchmark rllib", "Ray RLlib", e))


def check_serve_args(args: argparse.Namespace) -> None:
    """Refuse, before any server starts, a ``serve`` run the server would refuse or play otherwise than asked: a
    number of ``--opponents`` that makes no table, or not the table of a ``--preset`` with its own size (as
    ``training.play`` refuses it), or an opponent spec that does not load or cannot play the table (its size, or
    special cards). An unknown ``--preset`` is refused while parsing (:func:`training.variants.preset_name`).
    ``args.opponents`` None (not typed) becomes ``args.default_opponents``.

    Raises:
        SystemExit: after one ``error:`` line (:func:`training.cli.refuse`), with code 2.
    """
    from nothanks_env.game import MAX_PLAYERS, MIN_PLAYERS, RuleError
    from nothanks_env.presets import PRESETS
    from nothanks_env.specs import load_policy
    from training.cli import load_spec
    from training.evaluation.evaluate import check_plays

    typed = args.opponents is not None
    if not typed:
        args.opponents = list(args.default_opponents)
    k = len(args.opponents)
    if not MIN_PLAYERS - 1 <= k <= MAX_PLAYERS - 1:
        refuse(
            f"--opponents: expected {MIN_PLAYERS - 1} to {MAX_PLAYERS - 1} policy specs, one per opponent (the table "
            f"is the opponents and the timed seat: {MIN_PLAYERS}..{MAX_PLAYERS} players), got {k}: {args.opponents}"
        )
    n = PRESETS[args.preset].get("num_players")  # a preset with its own table size: played at it, or refused
    if n is not None and k != n - 1:
        if typed:
            refuse(
                f"--opponents: expected {n - 1} specs for {n} players (one per other seat: --preset {args.preset} is "
                f"a {n}-player table), got {k}: {' '.join(args.opponents)}"
            )
        refuse(
            f"--preset {args.preset}: expected --opponents with {n - 1} specs (one per other seat of its {n}-player "
            f"table; the default, {' '.join(args.opponents)}, seats {k + 1}), got no --opponents"
        )
    try:
        config = resolve_config(num_players=k + 1, preset=args.preset)
    except RuleError as e:
        refuse(f"--preset {args.preset} with {k} --opponents: {e}")
    try:
        policies = [load_spec(load_policy, "--opponents", spec, table=config) for spec in args.opponents]
    except ValueError as e:
        refuse(e)
    try:
        check_plays(policies, config, label="--opponents")
    except ValueError as e:
        refuse(e)


def _bench_serve(args: argparse.Namespace) -> None:
    check_serve_args(args)
    try:
        import fastapi  # noqa: F401
    except ImportError as exc:
        refuse(f"benchmark serve needs the web extra (pip install -e '.[web]'): {exc}")
    from training.web.bench import bench_serve

    bench_serve(args)


def main(argv: list[str] | None = None) -> None:
    """Run the command line; bad input exits with code 2 after one ``error:`` line (:mod:`training.cli`)."""
    args = build_parser().parse_args(argv)
    if args.command == "gym":  # build the opponents once before timing, so a bad spec is refused up front
        from nothanks_env.gym_env import check_opponents
        from nothanks_env.specs import load_policy
        from training.cli import load_spec

        try:
            for n in args.players:
                policy = load_spec(load_policy, "--opponents", args.opponents, num_players=n)
                try:  # the envs' own check, here rather than as a traceback once timing starts
                    check_opponents([policy], _config(n, "standard"))
                except ValueError as e:
                    raise ValueError(f"--opponents: {e}") from e
        except ValueError as e:
            refuse(e)
    args.func(args)


if __name__ == "__main__":
    main()
