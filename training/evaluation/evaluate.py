"""Evaluate policies against each other with rotated seats, duplicate deals and confidence intervals.

Method:

- **Lineup**: the candidates and the opponents fill the ``num_players`` seats (one opponent is repeated
  to fill the table if only one is given). The same policy object in several seats is one row of the
  report; distinct objects with the same ``name`` get ``#2``, ``#3`` suffixes. On the command line, checkpoints
  whose folders have the same name are labelled by the end of their paths instead, held-out bots by class, and
  policies of different specs that report the same name by their specs (:func:`label_policies`, shared with the
  gauntlet and the tournament).
- **Duplicate deals and seat rotation**: each shuffled deal is played ``num_players`` times, once per
  cyclic rotation of the lineup, so every policy plays every seat equally often and meets the same
  cards from every seat. ``games`` is therefore rounded up to a multiple of ``num_players`` (5000 asked
  for at 3 players plays 1667 deals, 5001 games); the report keeps the count asked for, and the command
  line says when it rounded and why. Seat 0 acts first in every game, so "seat k" is the k-th seat to act.
- **Variants and matches**: ``config`` (or ``--preset`` with overrides) picks the rules. A match preset
  (``match3``) makes each game a match of ``num_deals`` deals, all of them duplicated across the
  rotations; the start moves one seat clockwise each deal, and the match totals decide the win.
- **Statistics**: the unit of independent sampling is the deal (its rotations share the cards), so
  each statistic is first averaged within a deal, then a Student-t 95% interval is taken over deals
  (:func:`scipy.stats.ttest_1samp`; win-rate intervals clipped to [0, 1]). Win rate splits ties: a
  k-way tie for the lowest penalty gives each 1/k. Penalties are in penalty points (lower is better).
  Rank 1 is best, ties averaged.
- **Reproducible**: ``seed`` fixes every deal and reseeds every policy per chunk of deals, so results
  do not depend on ``workers``.
- **Special cards** (``--preset wildcards``): games run on the scalar engine, one decision at a time
  through each policy's ``act`` (about 100x slower); only policies with ``plays_special_cards``
  (``random``, ``heuristic``) can sit at the table, which is checked before any game.
- **Speed**: games run batched on :class:`~nothanks_env.vector.VectorGame`; each step calls each policy's
  ``act_batch`` once with every game where it is to act. ``workers > 1`` runs chunks of deals in
  processes (forked, or spawned when torch is loaded); policies are pickled to them (baselines are; a
  policy holding unpicklable state must implement ``__getstate__``). Policies are ``reset()`` once per
  chunk, not per game: a policy that keeps per-game state must key it by game itself.
- **Many evaluations at once**: :func:`plan_matchup` deals and seats one evaluation without playing it,
  :func:`run_many` plays several in one process pool, and :meth:`Matchup.report` gives each one's
  report, equal to :func:`evaluate`'s (``training.gauntlet`` plays its columns this way).

Example (the self-play use: one learner against two heuristic bots):

    >>> from nothanks_env.baselines import HeuristicPolicy, ThresholdPolicy
    >>> agent, bot = ThresholdPolicy(T=5), HeuristicPolicy()
    >>> report = evaluate([agent], [bot, bot], num_players=3, games=30, seed=0)
    >>> report.games, sorted(report.win_rate)
    (30, ['heuristic', 'threshold:T=5'])
    >>> 0.0 <= report["threshold:T=5"].win_rate <= 1.0
    True

Command line::

    python -m training.evaluate --players 3 --policy heuristic --opponents threshold threshold \\
        --games 5000 --seed 0 --workers 2 --json out.json --csv out.csv
    python -m training.evaluate --policy ppo-3p --opponents heuristic --ray auto   # chunks as Ray tasks
    python -m training.evaluate --preset match3 --policy ppo-3p --opponents heuristic --games 3000
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import csv
import dataclasses
import json
import math
import multiprocessing
import os
import pathlib
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from nothanks_env.game import Deal, Game, GameConfig
from nothanks_env.outcome import ranks, win_shares
from nothanks_env.policy import Policy, check_player_count, legal_action, special_cards_only
from nothanks_env.table import PolicyActionError, act_grouped
from nothanks_env.vector import VectorGame, deal_cards, deal_matches  # noqa: F401 - deal_cards re-exported
from training.variants import (
    add_variant_arguments,
    plays_special_cards,
    special_cards_who,
    table_problem,
    variant_config,
)

MAX_GAMES = 10_000_000
"""Most games one command plays per table (``--games``): every deal is drawn before the first game, about 90 bytes
per game, so 10M games hold about 0.9 GB; a slip of a few zeros (1e12 asked for 80 TiB) is refused up front."""

CHUNK_DEALS = 512
"""Deals per chunk of work (each played ``num_players`` times); fixed so results do not depend on workers."""


def config_dict(config: GameConfig) -> dict:
    """``config`` as the JSON reports write it (``config`` of ``training.evaluate --json``, of the tournament's
    ``leaderboard.json`` and of the gauntlet's reports): every :class:`GameConfig` field."""
    return asdict(config) | {"removed_face_up": list(config.removed_face_up)}


def matching_preset(config: GameConfig) -> str | None:
    """The preset (other than ``standard``) whose rules at ``config``'s player count are ``config``, or None."""
    from nothanks_env.game import RuleError
    from nothanks_env.presets import PRESETS, get_preset

    for name in PRESETS:
        try:
            if name != "standard" and get_preset(name, num_players=config.num_players) == config:
                return name
        except RuleError:  # a preset that does not allow this player count
            continue
    return None


def recorded_preset(config: GameConfig, preset: str | None = None) -> str | None:
    """The preset a report records for ``config``: ``preset`` when given (the ``--preset`` typed), else the preset
    ``config`` equals (``standard`` for the standard game), else None (rules no preset describes)."""
    if preset is not None:
        return preset
    return matching_preset(config) or (None if variant_label(config) else "standard")


def variant_label(config: GameConfig | dict, preset: str | None = None) -> str:
    """The rules of ``config`` in a few words, ``""`` for the standard game at its player count: the one wording of
    the tournament's and the gauntlet's report headers and of the exploit summary's ``rules:`` line. The preset's
    name (``preset``, else the preset ``config`` equals, else ``custom rules``), then what differs from the standard
    game, e.g. ``"match3, 2 deals"`` or ``"wildcards, special cards wild/delete"``.

    Args:
        config: the rules, or their :func:`config_dict`.
        preset: the ``--preset`` given (``None``: named from ``config`` alone).
    """
    if isinstance(config, dict):
        config = GameConfig(**config)
    facts = []
    if config.num_deals > 1:
        facts.append(f"{config.num_deals} deals")
    if config.special_cards:
        facts.append(f"special cards {'/'.join(config.special_cards)}")
    if config.removed_face_up:
        facts.append(f"{'/'.join(map(str, config.removed_face_up))} removed face up")
    if config.num_removed != GameConfig.num_removed:
        facts.append(f"{config.num_removed} removed face down")
    if config.chips_per_player != GameConfig(num_players=config.num_players).chips_per_player:
        facts.append(f"{config.chips_per_player} chips each")
    if (config.lowest_card, config.highest_card) != (GameConfig.lowest_card, GameConfig.highest_card):
        facts.append(f"cards {config.lowest_card}..{config.highest_card}")
    if config.opponent_chips != GameConfig.opponent_chips:
        facts.append(f"opponent chips {config.opponent_chips}")
    if config.starting_seat is not None:
        facts.append(f"starting seat {config.starting_seat}")
    if not facts:
        return ""
    name = preset if preset is not None else matching_preset(config) or "custom rules"
    return ", ".join([name, *facts])


def rounded_games(games: int, num_players: int) -> int:
    """The games played for ``games`` asked for: the next multiple of ``num_players`` (every deal is played
    once per seat rotation), e.g. 5001 for 5000 at 3 players."""
    return -(-games // num_players) * num_players


def rounding_note(asked: int, played: int, num_players: int, unit: str = "games") -> str:
    """Why ``played`` differs from ``asked``, in words, or ``""`` when they are equal.

    Example: ``"5000 games asked for, rounded up to a multiple of 3: 1667 distinct deals, each played once per
    seat rotation"``.
    """
    if asked == played:
        return ""
    dealt = "deals" if unit == "games" else unit
    return (
        f"{asked} {unit} asked for, rounded up to a multiple of {num_players}: {played // num_players} distinct "
        f"{dealt}, each played once per seat rotation"
    )


# ----------------------------------------------------------------------------- playing games
def play_games(
    policies: Sequence[Policy],
    config: GameConfig,
    deck: np.ndarray,
    removed: np.ndarray,
    seating: np.ndarray,
    on_turn: Callable[[np.ndarray, np.ndarray], None] | None = None,
) -> np.ndarray:
    """Play ``G`` games (single deals or matches) to the end, seat 0 acting first in each (in a match,
    seat d acts first in deal d).

    Args:
        policies: the distinct policies taking part.
        config: rule variant (no special cards: the batched engine plays it).
        deck, removed: each game's deals: int (G, deck_size) and (G, num_removed), or for matches
            (G, num_deals, deck_size) and (G, num_deals, num_removed).
        seating: int (G, P), index into ``policies`` of the policy at each seat.
        on_turn: if given, called before each turn with ``(games, ids)``: int64 arrays (B,) of the games
            about to act and the index into ``policies`` of the policy acting in each. A policy receives
            its games in the order listed (one game at a time for special-card configs).

    Returns:
        int64 (G, P): each seat's match penalty (the deal's for single deals; penalty points, lower is
        better).

    Raises:
        ValueError: if a policy returns a wrong shape or an illegal action.
    """
    g = len(seating)
    if config.special_cards:
        return _play_games_scalar(policies, config, deck, removed, seating, on_turn)
    vg = VectorGame(config, g, seed=0)
    vg.reset_games(np.ones(g, dtype=bool), deck=deck, removed_hidden=removed, first_seat=np.zeros(g, dtype=np.int64))
    actions = np.zeros(g, dtype=np.int64)
    while not vg.done.all():
        idx = np.flatnonzero(~vg.done)
        ids = seating[idx, vg.seat[idx]]
        if on_turn is not None:
            on_turn(idx, ids)
        actions[idx] = act_grouped(vg.view(idx), ids, policies.__getitem__, checked=True)
        vg.step(actions)
    return vg.final_penalties()


def _play_games_scalar(
    policies: Sequence[Policy],
    config: GameConfig,
    deck: np.ndarray,
    removed: np.ndarray,
    seating: np.ndarray,
    on_turn: Callable[[np.ndarray, np.ndarray], None] | None = None,
) -> np.ndarray:
    """:func:`play_games` on the scalar engine, one game at a time, for configs the batched engine does not
    play (special cards). Each policy decides through :meth:`Policy.act` on the seat's view, checked by
    :func:`~nothanks_env.policy.legal_action`: a fraction or an action the phase forbids (a bid of more chips than
    the seat holds) raises :class:`PolicyActionError` naming the policy, as the batched path's ``checked`` does."""
    one = dataclasses.replace(config, starting_seat=0)
    if deck.ndim == 2:
        deck, removed = deck[:, None], removed[:, None]
    out = np.zeros(seating.shape, dtype=np.int64)
    for i in range(len(seating)):
        game = Game(one)
        game.reset(deals=[Deal(tuple(map(int, d)), tuple(map(int, r))) for d, r in zip(deck[i], removed[i])])
        while not game.is_over:
            seat = game.current_seat
            if on_turn is not None:
                on_turn(np.array([i], dtype=np.int64), np.array([seating[i, seat]], dtype=np.int64))
            pol, view = policies[seating[i, seat]], game.seat_view(seat)
            game.step(legal_action(pol, view, pol.act(view)))  # a bid above its chips: its fault, named
        out[i] = game.final_penalties()
    return out


def check_plays(
    policies: Sequence[Policy],
    config: GameConfig,
    *,
    hint: str | None = "evaluate them with --preset wildcards",
    label: str = "policies",
) -> None:
    """Raise ValueError, before any game, if a policy cannot play ``config`` (special cards need policies
    with ``plays_special_cards``: :func:`training.variants.special_card_players` names those offered; a network
    trained on them, with its 125 actions, plays no standard table).

    The command lines refuse such policies first, by flag (:func:`training.variants.table_problem`).

    Args:
        policies: the policies to check, named in the message by their ``name``.
        config: the rules they are to play.
        hint: what to do about a network trained on special cards at a standard table, appended to that
            message (None: nothing to do, e.g. a game record's rules are fixed). The message then names the
            shipped networks that play the table (:func:`nothanks_env.specs.shipped_networks_hint`).
        label: what the message starts with, naming the policies: a command line's flag (``--policy``), so that
            its refusal says it once (``--policy: expected ...``, not ``--policy: policies: expected ...``).
    """
    if not config.special_cards:
        special_only = [getattr(p, "name", type(p).__name__) for p in policies if special_cards_only(p)]
        if special_only:
            from nothanks_env.specs import shipped_networks_hint

            raise ValueError(
                f"{label}: expected policies that play pass/take (a standard table), got {special_only} trained "
                "on special cards (125 actions)"
                + (f": {hint}" if hint else "")
                + shipped_networks_hint(config.num_players, special_cards=False)
            )
        return
    unable = [getattr(p, "name", type(p).__name__) for p in policies if not plays_special_cards(p)]
    if unable:
        raise ValueError(
            f"{label} for {list(config.special_cards)}: expected policies that play special cards "
            f"({special_cards_who(config.num_players)}), got {unable} that play only pass/take"
        )


def _chunk_seeds(seed: int, chunk: int, n: int) -> list[int]:
    return [int(s) for s in np.random.SeedSequence([seed, chunk]).generate_state(n)]


def _play_chunk(policies, config, seed, chunk, deck, removed, seating, on_turn=None) -> np.ndarray:
    for policy, s in zip(policies, _chunk_seeds(seed, chunk, len(policies))):
        if callable(getattr(policy, "seed", None)):
            policy.seed(s)
        if callable(getattr(policy, "reset", None)):
            policy.reset()
    return play_games(policies, config, deck, removed, seating, on_turn)


@dataclass
class GamesJob:
    """Games to play with one set of policies: the unit :func:`run_many` schedules.

    Attributes:
        policies: the distinct policies taking part; ``seating`` indexes into this list.
        config: rule variant (single deals or matches; no special cards).
        deck, removed: each game's deals as :func:`play_games` takes them; the ``P`` rotations of a deal
            are adjacent.
        seating: int (G, P), index into ``policies`` of the policy at each seat (seat 0 acts first).
        seed: chunk ``i`` of the job reseeds every policy from ``(seed, i)``.
    """

    policies: list[Policy]
    config: GameConfig
    deck: np.ndarray
    removed: np.ndarray
    seating: np.ndarray
    seed: int

    def chunks(self) -> list[slice]:
        """Slices of ``CHUNK_DEALS * P`` games: chunk ``i`` is reseeded from ``(seed, i)`` wherever it runs."""
        g, p = self.seating.shape
        size = CHUNK_DEALS * p
        return [slice(s, min(s + size, g)) for s in range(0, g, size)]


_WORKER: dict = {}


class _ChunkStopped(Exception):
    """Raised in a pool worker at its next turn once :func:`pool_map` has set the pool's stop event."""


_STOPS = (signal.SIGINT, signal.SIGTERM)
"""The signals that stop a command (Ctrl-C, and ``kill``, ``timeout`` or a service manager)."""


class _stops_held:
    """Hold back :data:`_STOPS` while the ``with`` block runs, and deliver one sent meanwhile as the block ends: its
    handler runs then, and raises there (KeyboardInterrupt, a trainer's stop) as the block is left.

    It holds them two ways. Python runs a signal's handler in the main thread whichever thread the OS gave the signal
    to (torch's threads take it too), so on the main thread their handlers are swapped for one that only notes the
    stop. And this thread blocks them: processes forked in the block start with them blocked (and the noting
    handler), until :func:`_init_worker` ignores them; threads started in the block keep them blocked. Off the main
    thread, where Python sets no handler (and runs none), it only blocks them; where the OS has no
    ``pthread_sigmask`` it only swaps the handlers.
    """

    def __enter__(self) -> None:
        self.held: list[int] = []
        self.handlers: dict[int, Any] = {}
        self.mask = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS) if hasattr(signal, "pthread_sigmask") else None
        try:
            if threading.current_thread() is threading.main_thread():
                for sig in _STOPS:
                    handler = signal.getsignal(sig)
                    if handler is not None:  # None: set outside Python, left alone
                        signal.signal(sig, self._hold)  # runs the handlers of stops already sent: one may raise
                        self.handlers[sig] = handler
        except BaseException:
            self.__exit__()
            raise

    def _hold(self, signum: int, frame: object) -> None:
        self.held.append(signum)

    def __exit__(self, *exc: object) -> None:
        raised = None
        for sig, handler in self.handlers.items():
            while True:  # signal.signal first runs the handlers of stops sent meanwhile: a stop's own may raise
                try:
                    signal.signal(sig, handler)
                    break
                except BaseException as e:
                    raised = raised or e
        self.handlers = {}
        if self.mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self.mask)  # a stop blocked meanwhile: its handler runs here
        if raised is not None:
            raise raised
        for sig in dict.fromkeys(self.held):  # each once, in the order sent
            signal.raise_signal(sig)


def _init_worker(setups, stop) -> None:
    # Ctrl-C and a service manager's SIGTERM reach the whole process group: the parent alone decides what a stop
    # does (pool_map then stops the workers' games), so that no worker dies under it or prints a traceback. The
    # worker was forked with both held (pool_map): ignored now, one sent since is dropped as they are let through.
    for sig in _STOPS:
        signal.signal(sig, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)  # not held in what a policy may start in turn
    _end_with_parent()
    if "torch" in sys.modules:  # inherited by fork: never enter torch's thread pools here (see _start_method)
        sys.modules["torch"].set_num_threads(1)
    _WORKER["setups"] = setups
    _WORKER["stop"] = stop


def _end_with_parent() -> None:
    """End this pool worker the moment its parent ends, from a watcher thread.

    A parent killed before it could stop its workers (SIGKILL, or SIGTERM where no handler is installed) left
    them blocked forever on the pool's pipes; they ignore SIGINT and SIGTERM, and hold nothing to save.
    ``multiprocessing`` gives a child a sentinel of its parent that becomes ready when the parent exits.
    """
    parent = multiprocessing.parent_process()
    if parent is None:  # not started by multiprocessing
        return

    def watch() -> None:
        parent.join()
        os._exit(0)

    threading.Thread(target=watch, name="evaluate-parent-watch", daemon=True).start()


def stop_check(games: np.ndarray, ids: np.ndarray) -> None:
    """An ``on_turn`` of :func:`play_games` for a call run by :func:`pool_map`: end the call at this turn once the
    parent has stopped the pool. Outside a pool worker it does nothing."""
    stop = _WORKER.get("stop")
    if stop is not None and stop.is_set():
        raise _ChunkStopped


def _timed_chunk(policies, config, seed, chunk, deck, removed, seating, on_turn=None) -> tuple[np.ndarray, float]:
    start = time.perf_counter()
    out = _play_chunk(policies, config, seed, chunk, deck, removed, seating, on_turn)
    return out, time.perf_counter() - start


def _worker_chunk(job, seed, chunk, deck, removed, seating) -> tuple[np.ndarray, float]:
    policies, config = _WORKER["setups"][job]
    return _timed_chunk(policies, config, seed, chunk, deck, removed, seating, stop_check)


def _start_method() -> str:
    """``fork`` wherever the OS has it, torch loaded or not; else ``spawn``.

    A forked child must not enter the OpenMP thread pool it inherits from a parent that used torch on
    several threads, so each worker sets torch to one thread before its first task (``_init_worker``);
    the networks' forward passes run on one thread anyway (:meth:`training.checkpoints.MLPPolicy.logits`).
    ``spawn`` re-imports torch in every worker (1-2 s each), which made ``--workers 2`` slower than one
    process for checkpoint evaluations of a few thousand games (7.7 s against 5.6 s for 3000 games of
    ``ppo-3p``; with fork 4.1 s against 4.6 s in-process).
    """
    if "fork" not in multiprocessing.get_all_start_methods():
        return "spawn"
    return "fork"


def pool_map(
    fn: Callable[..., Any],
    calls: Sequence[tuple],
    *,
    workers: int,
    on_result: Callable[[int, Any], None],
    setups: Any = None,
) -> None:
    """Run ``fn(*calls[i])`` for every ``i`` in a pool of ``workers`` processes, calling ``on_result(i, result)`` in
    this process as each call returns (in the order they return).

    A stop (KeyboardInterrupt, or any exception raised while it waits, such as a trainer's stop signal or an error
    in ``on_result``) or an error in a call ends the pool in a moment: the calls not yet started are cancelled, those
    running end at their next turn when they play their games with :func:`stop_check` as ``on_turn`` (else when
    they return), and the exception propagates. The workers ignore SIGINT and SIGTERM (this process decides what a
    stop does: :func:`training.cli.exit_on_stop`) and end if this process dies without ending them. They are
    forked where the OS can (:func:`_start_method`), and run torch on one thread.

    Args:
        fn: a module-level function (it is pickled to the workers by name).
        calls: the arguments of each call.
        workers: processes.
        on_result: called with each call's index and what it returned.
        setups: sent to every worker once, where ``fn`` reads it as ``_WORKER["setups"]`` (:func:`run_many`'s
            policies and configs), rather than with every call.
    """
    ctx = multiprocessing.get_context(_start_method())
    stop = ctx.Event()
    ex = None
    try:
        # A stop while the pool starts waits until it has: the first submit forks the workers, then starts the
        # thread that hands them work and ends them. A stop in between (delivered there, or in the fork hooks, where
        # Python drops it) left workers that nothing ended, and the command hung on exit, waiting for them; one that
        # reached a worker before _init_worker killed it with a traceback. Held, it is raised as the block ends.
        with _stops_held():
            ex = cf.ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker, initargs=(setups, stop))
            futures = {ex.submit(fn, *args): i for i, args in enumerate(calls)}
        for fut in cf.as_completed(futures):
            on_result(futures[fut], fut.result())
    except BaseException:
        if ex is None:  # stopped before the pool existed
            raise
        # A stop (KeyboardInterrupt, a trainer's) or an error: nothing left is wanted. The calls not yet handed out
        # are cancelled and those running end at their next turn (stop_check), so the pool ends in a moment; it
        # used to run every queued call first.
        stop.set()
        ex.shutdown(wait=True, cancel_futures=True)
        raise
    ex.shutdown()


def run_many(
    jobs: Sequence[GamesJob],
    *,
    workers: int = 1,
    progress: bool = False,
    desc: str = "games",
    ray: str | None = None,
) -> list[tuple[np.ndarray, float]]:
    """Play several jobs' games in chunks, inline, in one pool of ``workers`` processes, or as Ray tasks.

    Chunks of all jobs share the pool (submitted in job order, so put slow jobs first to balance the
    load). A job's results do not depend on ``workers``, on Ray nor on the other jobs: each chunk reseeds
    its job's policies from ``(job.seed, chunk index)``. Policies are pickled to the workers once; an
    object used by several jobs stays one object there.

    A stop (KeyboardInterrupt, or any exception raised while it waits, such as a trainer's stop signal) or an
    error in a chunk ends the pool in a moment: chunks not yet started are cancelled, those being played end at
    their next turn, and the exception propagates. The workers ignore SIGINT and SIGTERM (this process decides)
    and end if this process dies without ending them (:func:`pool_map`).

    Args:
        ray: a Ray address (``"local"`` starts Ray embedded on this machine with ``workers`` CPUs;
            ``"auto"``, ``HOST:PORT``, ``ray://HOST:PORT`` join a cluster): every chunk becomes a Ray task
            (see :mod:`training.ray_backend`). ``None`` (default): no Ray.

    Returns:
        Per job: int64 (G, P) penalties, as :func:`play_games`, and the seconds its chunks took (summed
        over chunks, so with several workers it can exceed the wall-clock time).
    """
    tasks = [(j, i, sl) for j, job in enumerate(jobs) for i, sl in enumerate(job.chunks())]
    out = [np.zeros(job.seating.shape, dtype=np.int64) for job in jobs]
    seconds = [0.0] * len(jobs)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=sum(len(job.seating) for job in jobs), desc=desc, unit="game")

    def store(j: int, sl: slice, result: tuple[np.ndarray, float]) -> None:
        out[j][sl], dt = result
        seconds[j] += dt
        if bar:
            bar.update(sl.stop - sl.start)

    try:
        if ray is not None:
            from training.scale.ray_backend import run_chunks

            for j, sl, result in run_chunks(jobs, tasks, address=ray, num_cpus=workers):
                store(j, sl, result)
        elif workers <= 1 or len(tasks) == 1:
            for j, i, sl in tasks:
                job = jobs[j]
                store(j, sl, _timed_chunk(job.policies, job.config, job.seed, i, job.deck[sl], job.removed[sl],
                                          job.seating[sl]))  # fmt: skip
        else:
            calls = [
                (j, jobs[j].seed, i, jobs[j].deck[sl], jobs[j].removed[sl], jobs[j].seating[sl]) for j, i, sl in tasks
            ]
            setups = [(job.policies, job.config) for job in jobs]
            pool_map(_worker_chunk, calls, workers=workers, setups=setups,
                     on_result=lambda k, result: store(tasks[k][0], tasks[k][2], result))  # fmt: skip
    finally:
        if bar:
            bar.close()
    return list(zip(out, seconds))


def run_games(
    policies: Sequence[Policy],
    config: GameConfig,
    deck: np.ndarray,
    removed: np.ndarray,
    seating: np.ndarray,
    *,
    seed: int,
    workers: int = 1,
    progress: bool = False,
    desc: str = "games",
    ray: str | None = None,
) -> np.ndarray:
    """:func:`play_games` in chunks of ``CHUNK_DEALS * P`` games, inline, in ``workers`` processes or on Ray.

    Games must be grouped by deal (the ``P`` rotations of a deal adjacent); chunk ``i`` reseeds every
    policy from ``(seed, i)``. ``ray`` is a Ray address, as for :func:`run_many`. Returns int64 (G, P)
    penalties, as :func:`play_games`.
    """
    job = GamesJob(list(policies), config, deck, removed, seating, seed)
    return run_many([job], workers=workers, progress=progress, desc=desc, ray=ray)[0][0]


# ----------------------------------------------------------------------------- statistics
def mean_ci(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean and Student-t confidence interval of independent values: (mean, low, high).

    With fewer than two values, or no spread, the interval is the mean itself.
    """
    x = np.asarray(values, dtype=np.float64)
    m = float(x.mean()) if len(x) else math.nan
    if len(x) < 2 or np.ptp(x) == 0:
        return m, m, m
    from scipy import stats  # imported here: worker processes do not need it (it takes ~1 s to import)

    ci = stats.ttest_1samp(x, 0.0).confidence_interval(confidence)
    return m, float(ci.low), float(ci.high)


@dataclass
class PolicyStats:
    """One policy's results. Win rates are fractions in [0, 1]; penalties in penalty points.

    Attributes:
        name: display name (unique within the report).
        role: ``"candidate"`` or ``"opponent"`` (``"pool"`` in a tournament).
        games: seat-games played (a policy in two seats of a game counts twice).
        win_rate, win_rate_ci: win share with ties split, and its 95% interval (low, high).
        mean_penalty, mean_penalty_ci: mean final penalty and its 95% interval.
        mean_rank: mean rank, 1 = lowest penalty, ties averaged.
        seat_win_rates: win share in each seat, seat 0 acting first (NaN for a seat never played).
    """

    name: str
    role: str
    games: int
    win_rate: float
    win_rate_ci: tuple[float, float]
    mean_penalty: float
    mean_penalty_ci: tuple[float, float]
    mean_rank: float
    seat_win_rates: list[float]


def summarize(
    names: Sequence[str], roles: Sequence[str], penalties: np.ndarray, seating: np.ndarray, deal: np.ndarray
) -> list[PolicyStats]:
    """Per-policy statistics of finished games.

    Args:
        names, roles: per policy index used in ``seating``.
        penalties: int (G, P) final penalties by seat.
        seating: int (G, P) policy index at each seat.
        deal: int (G,) deal id of each game; games of one deal are averaged together before intervals.
    """
    share, rank = win_shares(penalties), ranks(penalties)
    _, deal = np.unique(deal, return_inverse=True)
    out = []
    for j, (name, role) in enumerate(zip(names, roles)):
        sits = seating == j
        count = np.bincount(deal, sits.sum(axis=1), minlength=deal.max() + 1)
        played = count > 0

        def per_deal(x: np.ndarray, sits=sits, count=count, played=played) -> np.ndarray:
            return np.bincount(deal, (x * sits).sum(axis=1), minlength=len(count))[played] / count[played]

        wr, wr_lo, wr_hi = mean_ci(per_deal(share))
        wr_lo, wr_hi = max(wr_lo, 0.0), min(wr_hi, 1.0)  # a t interval may overshoot a rate's bounds
        mp, mp_lo, mp_hi = mean_ci(per_deal(penalties))
        seat_wr = [float(share[sits[:, s], s].mean()) if sits[:, s].any() else math.nan for s in range(sits.shape[1])]
        out.append(
            PolicyStats(
                name=name,
                role=role,
                games=int(sits.sum()),
                win_rate=wr,
                win_rate_ci=(wr_lo, wr_hi),
                mean_penalty=mp,
                mean_penalty_ci=(mp_lo, mp_hi),
                mean_rank=float(rank[sits].mean()),
                seat_win_rates=seat_wr,
            )
        )
    return out


def unique_names(policies: Sequence[Policy]) -> list[str]:
    """Display names of distinct policies, ``#2``, ``#3`` appended to repeated names."""
    seen: dict[str, int] = {}
    out = []
    for p in policies:
        base = getattr(p, "name", type(p).__name__)
        seen[base] = seen.get(base, 0) + 1
        out.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return out


def label_policies(policies: Sequence[Policy], specs: Sequence[str]) -> None:
    """Name the policies of a command line for its tables and reports: the one labelling of ``training.evaluate``,
    ``training.gauntlet`` (its candidates) and ``training.tournament``.

    Held-out bots are named by class, as the shipped bots by their short spec (``ChipRich``, not
    ``training.evaluation.heldout:ChipRich``: :func:`training.evaluation.heldout.short_name`); checkpoints loaded
    from paths by their folder's name and the spec's parameters, told apart by the end of their paths where two
    would share a name (:func:`label_by_path`). Policies of different specs that would still share a name are
    named by their whole specs (``heuristic`` and ``heuristic:chip_memory=True``, :func:`label_by_spec`). Other
    policies keep their names; the same spec twice keeps one name (:func:`unique_names` numbers the second).

    Args:
        policies: the policies as loaded (an object given twice counts once); their ``name`` is set.
        specs: the spec each was loaded from, in the same order.
    """
    from training.evaluation.heldout import is_heldout, short_name

    for policy in policies:
        name = getattr(policy, "name", None)
        if isinstance(name, str) and is_heldout(name):
            policy.name = short_name(name)
    label_by_path(policies, specs)
    label_by_spec(policies, specs)


def label_by_spec(policies: Sequence[Policy], specs: Sequence[str]) -> None:
    """Rename policies that share a name but were loaded from different specs by their specs (stripped).

    A spec's policy reports a short name that several specs can share: ``heuristic`` and
    ``heuristic:chip_memory=True`` (the default written out) both report ``heuristic``, ``threshold:T=5`` and
    ``threshold:T=+5`` both ``threshold:T=5``. Each policy of such a name is labelled by its whole spec instead, so
    the table, the JSON and the Markdown say which spec each row is. Specs are the same when they are equal after
    stripping spaces or load the same checkpoint folder with the same parameters (``x/best`` and ``x/best/``):
    those keep their name, which :func:`unique_names` numbers. Run after :func:`label_by_path`. A policy whose
    ``name`` cannot be set keeps it (and is numbered).

    Args:
        policies: the policies as loaded (an object given twice counts once); their ``name`` is set.
        specs: the spec each was loaded from, in the same order.
    """
    distinct: list[tuple[Policy, str]] = []
    for policy, spec in zip(policies, specs, strict=True):
        if not any(policy is q for q, _ in distinct):
            distinct.append((policy, spec.strip()))
    sources: dict[str, set[object]] = {}  # name -> the distinct sources of the policies that report it
    for policy, spec in distinct:
        sources.setdefault(getattr(policy, "name", type(policy).__name__), set()).add(checkpoint_source(spec) or spec)
    for policy, spec in distinct:
        if len(sources[getattr(policy, "name", type(policy).__name__)]) > 1:
            try:
                policy.name = spec
            except AttributeError:  # a read-only name (a property): unique_names numbers it
                pass


def label_by_path(policies: Sequence[Policy], specs: Sequence[str]) -> None:
    """Rename checkpoints loaded from paths whose folder name another policy has too, by the end of their path.

    A checkpoint loaded from a path is named after its folder (``runs/x/checkpoints/best``: ``best``), with the
    spec's parameters if it has any (``runs/x/checkpoints/best:deterministic=False``:
    ``best:deterministic=False``). Where two checkpoints from different folders have the same folder name, or
    one's folder name is another policy's name (with or without parameters: ``x/ppo-3p:deterministic=False``
    beside the shipped ``ppo-3p``), each such checkpoint is named instead by the shortest end of its folder's
    path that no other checkpoint folder of the name ends with and no other policy is named, its parameters
    kept: ``x/checkpoints/best`` and ``y/checkpoints/best:deterministic=False`` rather than ``best`` and
    ``best:deterministic=False``. The same folder twice keeps one label (:func:`unique_names` numbers the second);
    other policies keep their names. The one labelling of ``training.evaluate``, ``gauntlet`` and ``tournament``.

    Args:
        policies: the policies as loaded (an object given twice counts once); their ``name`` is set.
        specs: the spec each was loaded from, in the same order.
    """
    distinct: list[Policy] = []
    found: dict[int, tuple[tuple[str, ...], str]] = {}  # id(policy) -> its folder's absolute path parts, params
    for policy, spec in zip(policies, specs, strict=True):
        if any(policy is q for q in distinct):
            continue
        distinct.append(policy)
        source = checkpoint_source(spec)
        if source is not None and getattr(policy, "name", None) == source[0].name + source[1]:  # as loaded
            found[id(policy)] = (source[0].parts, source[1])
    named = [getattr(p, "name", type(p).__name__) for p in distinct]
    taken = {name for p, name in zip(distinct, named) if id(p) not in found}
    bases = {name.partition(":")[0] for name in taken}  # ppo-3p of ppo-3p:deterministic=False, threshold:T=5
    for policy, name in zip(distinct, named):
        if id(policy) not in found:
            continue
        parts, params = found[id(policy)]
        others = {found[id(q)][0] for q in distinct if id(q) in found and found[id(q)][0][-1] == parts[-1]} - {parts}
        if not others and name not in taken and parts[-1] not in bases:
            continue
        for k in range(1, len(parts) + 1):
            end = pathlib.PurePath(*parts[-k:]).as_posix()
            label = end + params
            if label not in taken and end not in bases and all(o[-k:] != parts[-k:] for o in others):
                policy.name = label
                break


def checkpoint_source(spec: str) -> tuple[pathlib.Path, str] | None:
    """Where a spec that is a path loads its checkpoint from: the absolute checkpoint folder and the spec's
    parameters (``""``, or ``":deterministic=False"``), as :func:`nothanks_env.specs.load_policy` reads it first the
    whole spec as a path, then the part before its last ``:``. None for any other spec: a baseline, a shipped
    name (``ppo-3p``, not a path), a path holding no checkpoint."""
    spec = spec.strip()
    folder = _checkpoint_folder(spec)
    if folder is not None:
        return folder, ""
    head, sep, params = spec.rpartition(":")
    if sep and "=" in params and head:
        folder = _checkpoint_folder(head)
        if folder is not None:
            return folder, f":{params}"
    return None


def _checkpoint_folder(spec: str) -> pathlib.Path | None:
    """The absolute checkpoint folder a spec loads from when it is a path (None: a baseline, a shipped name, ...)."""
    from training.checkpoints import resolve_checkpoint

    try:  # a Path, not a str: a shipped short name is not a path
        return pathlib.Path(os.path.abspath(resolve_checkpoint(pathlib.Path(spec.strip()))))
    except (OSError, ValueError):  # no checkpoint there (FileNotFoundError), a name the file system refuses
        return None


@dataclass
class EvalReport:
    """Result of :func:`evaluate`. ``report[name]`` is a :class:`PolicyStats`; ``report.win_rate[name]`` a float.

    Attributes:
        num_players, games, deals, seed: what was played (``games = deals * num_players``).
        config: the rule variant, as a dict.
        seconds: wall-clock time of the games.
        policies: one :class:`PolicyStats` per distinct policy, candidates first.
        games_requested: the games asked for (``games`` rounds it up to a multiple of ``num_players``;
            ``None``: as many as played).
    """

    num_players: int
    games: int
    deals: int
    seed: int
    config: dict
    seconds: float
    policies: list[PolicyStats] = field(default_factory=list)
    games_requested: int | None = None

    def __getitem__(self, name: str) -> PolicyStats:
        for p in self.policies:
            if p.name == name:
                return p
        raise KeyError(f"policy name: expected one of {[p.name for p in self.policies]}, got {name!r}")

    @property
    def win_rate(self) -> dict[str, float]:
        """Policy name -> win rate with ties split (a fair share is ``1 / num_players``)."""
        return {p.name: p.win_rate for p in self.policies}

    @property
    def mean_penalty(self) -> dict[str, float]:
        """Policy name -> mean final penalty (penalty points)."""
        return {p.name: p.mean_penalty for p in self.policies}

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else math.inf

    @property
    def played(self) -> str:
        """What was played, in words: ``"300 games"``, or for matches ``"60 matches of 3 deals"``."""
        deals = int(self.config.get("num_deals", 1))
        return f"{self.games} games" if deals == 1 else f"{self.games} matches of {deals} deals"

    @property
    def rounding_note(self) -> str:
        """Why more games were played than asked for (:func:`rounding_note`), or ``""``."""
        unit = "games" if int(self.config.get("num_deals", 1)) == 1 else "matches"
        asked = self.games if self.games_requested is None else self.games_requested
        return rounding_note(asked, self.games, self.num_players, unit)

    def to_dict(self) -> dict:
        """Every field, plus ``games_per_second`` and ``games_note`` (:attr:`rounding_note`)."""
        return asdict(self) | {"games_per_second": self.games_per_second, "games_note": self.rounding_note}

    def write_json(self, path: str) -> None:
        """Write :meth:`to_dict` as JSON to ``path``, creating its parent folders."""
        pathlib.Path(path).parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w") as f:
            json.dump(self.to_dict(), f, indent=2)

    def write_csv(self, path: str) -> None:
        write_stats_csv(path, self.policies)

    def table(self, title: str | None = None, *, compact: bool = False):
        """A :class:`rich.table.Table` of the report; ``compact`` leaves out the penalty's interval and the win
        rate by seat (for a terminal too narrow for them)."""
        return stats_table(
            self.policies, self.num_players, title or f"{self.played}, {self.num_players} players", compact=compact
        )


def write_stats_csv(path: str, rows: Sequence[PolicyStats], extra: Sequence[dict] | None = None) -> None:
    """One CSV row per policy: flat columns, intervals as ``_lo``/``_hi``, seats as ``seat_k_win_rate``."""
    flat = []
    for i, r in enumerate(rows):
        d = {"name": r.name, "role": r.role, "games": r.games}
        d |= (extra[i] if extra else {}) | {"win_rate": r.win_rate}
        d |= {"win_rate_lo": r.win_rate_ci[0], "win_rate_hi": r.win_rate_ci[1], "mean_penalty": r.mean_penalty}
        d |= {"mean_penalty_lo": r.mean_penalty_ci[0], "mean_penalty_hi": r.mean_penalty_ci[1]}
        d |= {"mean_rank": r.mean_rank} | {f"seat_{s}_win_rate": w for s, w in enumerate(r.seat_win_rates)}
        flat.append(d)
    pathlib.Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(flat[0]))
        w.writeheader()
        w.writerows(flat)


FULL_TABLE_WIDTH = 110
"""Terminal columns below which the command line prints the compact table (no penalty interval, no win
rate by seat; both are in ``--json`` and ``--csv``), so that the figures it shows are not cut."""


def stats_table(rows: Sequence[PolicyStats], num_players: int, title: str, *, compact: bool = False):
    """A :class:`rich.table.Table`: one row per policy (win rate, mean penalty and mean rank, intervals in
    brackets), then the win rates by seat, seat 0 first; ``compact`` leaves out the penalty's interval and
    the win rates by seat."""
    from rich.table import Table

    t = Table(title=title)
    # Names and the per-seat rates wrap in a narrow terminal; the figures are never cut
    t.add_column("policy", overflow="fold", min_width=10)
    t.add_column("role", overflow="fold", min_width=9)
    for col in ("games", "win rate", "95% CI", "penalty", *(() if compact else ("95% CI",)), "rank"):
        t.add_column(col, justify="right", no_wrap=True)
    if not compact:
        t.add_column("win rate by seat " + " / ".join(str(s) for s in range(num_players)), overflow="fold")
    for r in rows:
        cells = [
            r.name,
            r.role,
            str(r.games),
            f"{r.win_rate:.3f}",
            f"[{r.win_rate_ci[0]:.3f}, {r.win_rate_ci[1]:.3f}]",
            f"{r.mean_penalty:.2f}",
            *(() if compact else (f"[{r.mean_penalty_ci[0]:.2f}, {r.mean_penalty_ci[1]:.2f}]",)),
            f"{r.mean_rank:.2f}",
        ]
        t.add_row(*cells, *(() if compact else (" / ".join(f"{w:.3f}" for w in r.seat_win_rates),)))
    return t


# ----------------------------------------------------------------------------- evaluate
@dataclass
class Matchup(GamesJob):
    """The games :func:`evaluate` plays: a :class:`GamesJob` plus what its report needs.

    Attributes:
        roles: per policy, ``"candidate"`` or ``"opponent"``.
        deal: int (G,), deal id of each game (its ``P`` rotations share it).
        num_players: table size.
        games_requested: the games asked for (``G`` rounds it up to a multiple of ``P``).
    """

    roles: list[str] = field(default_factory=list)
    deal: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    num_players: int = 0
    games_requested: int | None = None

    def report(self, penalties: np.ndarray, seconds: float) -> EvalReport:
        """The :class:`EvalReport` of this matchup's finished games (``penalties``: int (G, P))."""
        cfg = config_dict(self.config)
        deals = int(self.deal.max()) + 1 if len(self.deal) else 0
        report = EvalReport(self.num_players, len(self.seating), deals, self.seed, cfg, seconds)
        report.games_requested = self.games_requested
        report.policies = summarize(unique_names(self.policies), self.roles, penalties, self.seating, self.deal)
        return report


def duplicate_seating(lineups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Seat each deal's lineup once per cyclic rotation (duplicate deals): every slot plays every seat once.

    Args:
        lineups: int (D, P): per deal, the policy index of each slot.

    Returns:
        (seating, deal): int (D * P, P), the policy index at each seat of each game, and int64 (D * P,),
        the deal each game replays. Game ``g`` is rotation ``r = g % P`` of deal ``g // P``: slot ``i``
        sits at seat ``(i + r) % P``.
    """
    lineups = np.asarray(lineups)
    deals, p = lineups.shape
    deal = np.repeat(np.arange(deals), p)
    rot = np.tile(np.arange(p), deals)
    seating = lineups[deal[:, None], (np.arange(p)[None, :] - rot[:, None]) % p]
    return seating, deal


def plan_matchup(
    candidates: Sequence[Policy],
    opponents: Sequence[Policy],
    *,
    num_players: int,
    games: int,
    seed: int,
    config: GameConfig | None = None,
) -> Matchup:
    """Deal and seat the games of :func:`evaluate` without playing them (same arguments and errors).

    Several matchups can then be played together in one process pool with :func:`run_many`; each one's
    :meth:`Matchup.report` equals what :func:`evaluate` returns for the same arguments (bar ``seconds``).
    """
    config = config or GameConfig(num_players=num_players)
    if config.num_players != num_players:
        raise ValueError(f"config.num_players: expected {num_players}, got {config.num_players}")
    if games < 1:
        raise ValueError(f"games: expected an int >= 1, got {games!r}")
    candidates, opponents = list(candidates), list(opponents)
    for p in [*candidates, *opponents]:
        check_player_count(p, num_players)
    if len(opponents) == 1 and len(candidates) + 1 < num_players:
        opponents = opponents * (num_players - len(candidates))
    lineup = candidates + opponents
    if not candidates or len(lineup) != num_players:
        raise ValueError(
            f"lineup: expected >= 1 candidate and {num_players} policies in all (or one opponent to repeat), "
            f"got {len(candidates)} candidates and {len(opponents)} opponents"
        )
    distinct: list[Policy] = []
    for p in lineup:
        if not any(p is q for q in distinct):
            distinct.append(p)
    check_plays(distinct, config)
    slot_policy = np.array([next(j for j, q in enumerate(distinct) if q is p) for p in lineup])
    roles = ["candidate" if any(p is c for c in candidates) else "opponent" for p in distinct]

    deals = rounded_games(games, num_players) // num_players
    deck, removed = deal_matches(config, deals, np.random.default_rng(seed))
    seating, deal = duplicate_seating(np.tile(slot_policy, (deals, 1)))
    return Matchup(distinct, config, deck[deal], removed[deal], seating, seed, roles, deal, num_players, games)


def evaluate(
    candidates: Sequence[Policy],
    opponents: Sequence[Policy],
    *,
    num_players: int,
    games: int,
    seed: int,
    config: GameConfig | None = None,
    workers: int = 1,
    progress: bool = False,
    ray: str | None = None,
) -> EvalReport:
    """Play candidates against opponents with rotated seats and duplicate deals (see module docstring).

    Args:
        candidates: policies under test (usually one).
        opponents: ``num_players - len(candidates)`` policies filling the other seats, or a single one
            that fills them all. Pass one object twice to treat both seats as one policy.
        num_players: table size; must match ``config.num_players`` when a config is given.
        games: games to play, rounded up to a multiple of ``num_players`` (the report's ``games`` is the
            count played, ``games_requested`` this one).
        seed: fixes every deal and every policy's RNG.
        config: rule variant (default: standard rules for ``num_players``), e.g. a preset's from
            :func:`nothanks_env.presets.resolve_config`. With ``num_deals > 1`` each game is a match: its
            penalties add up over the deals, and win rate, penalty and rank are the match's.
        workers: processes to run in (1 = this process); with ``ray="local"``, the CPUs of the embedded Ray.
        progress: show a progress bar.
        ray: a Ray address to run the chunks of games on as Ray tasks (see :func:`run_many`); the report
            is the same as without it.

    Returns:
        :class:`EvalReport`; e.g. ``report.win_rate[agent.name]``.

    Raises:
        ValueError: for a lineup that does not fill the table, a config mismatch, ``games < 1``, or a policy
            that declares other table sizes (a checkpoint trained at other player counts).
    """
    m = plan_matchup(candidates, opponents, num_players=num_players, games=games, seed=seed, config=config)
    start = time.perf_counter()
    penalties = run_games(
        m.policies, m.config, m.deck, m.removed, m.seating, seed=seed, workers=workers, progress=progress, ray=ray
    )
    return m.report(penalties, time.perf_counter() - start)


# ----------------------------------------------------------------------------- benchmark and CLI
def bench_eval(args: argparse.Namespace | None = None) -> float:
    """Print and return scripted-vs-scripted games per second: three threshold bots, 3 players.

    ``args`` may carry ``games`` (default 20000), ``workers`` (default: all cores) and ``seed`` (0).
    """
    import os

    from nothanks_env.baselines import ThresholdPolicy

    games = getattr(args, "games", None) or 20000
    workers = getattr(args, "workers", None) or os.cpu_count() or 1
    seed = getattr(args, "seed", None) or 0
    bot = ThresholdPolicy()
    report = evaluate([bot], [bot, bot], num_players=3, games=games, seed=seed, workers=workers)
    rate = report.games_per_second
    print(
        f"eval: {report.games} games of 3 threshold bots in {report.seconds:.2f} s "
        f"with {workers} worker(s): {rate:,.0f} games/s"
    )
    return rate


def build_parser() -> argparse.ArgumentParser:
    """The command line's parser; bad input is one ``error:`` line and exit code 2 (:mod:`training.cli`)."""
    from training.cli import Parser, add_overwrite_argument, int_in, workers_arg

    ap = Parser(prog="python -m training.evaluate", description=__doc__.split("\n\n")[0])
    add_variant_arguments(ap)
    ap.add_argument("--policy", nargs="+", required=True, help="candidate policy spec(s), see training.specs")
    ap.add_argument("--opponents", nargs="+", default=["heuristic"], help="opponent specs (one repeats)")
    ap.add_argument(
        "--games", type=int_in(1, MAX_GAMES), default=5000, help="games (rounded up to a multiple of --players: every "
        f"deal is played once per seat rotation; the output says so), at most {MAX_GAMES:,}"
    )  # fmt: skip
    ap.add_argument("--seed", type=int_in(0), default=0)
    ap.add_argument("--workers", type=workers_arg(), default=1, help="processes (use the core count for speed)")
    ap.add_argument("--json", help="write the report as JSON to this path")
    ap.add_argument("--csv", help="write one row per policy as CSV to this path")
    add_overwrite_argument(ap)
    ap.add_argument("--no-progress", action="store_true")
    from training.scale.ray_backend import add_ray_argument

    add_ray_argument(ap)
    return ap


def main(argv: Sequence[str] | None = None) -> EvalReport:
    """Run the command line; returns the report. Bad input exits with code 2 after one ``error:`` line, before any
    game (output paths included: ``--json``/``--csv`` that exist are refused unless ``--overwrite``)."""
    from rich.console import Console

    from training.cli import check_outputs, load_spec, refuse
    from training.scale.ray_backend import connect
    from training.specs import load_policy

    args = build_parser().parse_args(argv)
    built: dict[str, Policy] = {}

    def opponent(spec: str) -> Policy:  # the same opponent spec twice is one policy in two seats
        if spec not in built:
            built[spec] = load_spec(load_policy, "--opponents", spec, table=config)
        return built[spec]

    try:  # bad input: one error line and exit code 2, never a traceback
        check_outputs({"--json": args.json, "--csv": args.csv}, overwrite=args.overwrite)
        config = variant_config(args)
        candidates = [load_spec(load_policy, "--policy", s, table=config) for s in args.policy]
        opponents = [opponent(s) for s in args.opponents]
        label_policies([*candidates, *opponents], [*args.policy, *args.opponents])  # not best and best#2
        given = {"--policy": (args.policy, candidates), "--opponents": (args.opponents, opponents)}
        problem = table_problem(args.preset, config, given)  # plan_matchup's check_plays names no flag
        if problem:
            raise ValueError(problem)
        n = config.num_players
        plan_matchup(candidates, opponents, num_players=n, games=args.games, seed=args.seed, config=config)
        if args.ray is not None:
            connect(args.ray, num_cpus=args.workers)
    except (ValueError, OSError, ImportError) as e:
        refuse(e)
    try:
        report = evaluate(
            candidates,
            opponents,
            num_players=config.num_players,
            games=args.games,
            seed=args.seed,
            config=config,
            workers=args.workers,
            progress=not args.no_progress,
            ray=args.ray,
        )
    except PolicyActionError as e:  # a user's bot that returned an illegal action: its fault, one error line
        refuse(e)
    console = Console() if sys.stdout.isatty() else Console(width=200)  # files and pipes: do not wrap
    console.print(report.table(compact=console.width < FULL_TABLE_WIDTH))
    unit = "games" if report.played.endswith(" games") else "matches"
    note = f"; {report.rounding_note}" if report.rounding_note else ""
    print(f"{report.played} in {report.seconds:.1f} s ({report.games_per_second:,.0f} {unit}/s){note}")
    if args.json:
        report.write_json(args.json)
    if args.csv:
        report.write_csv(args.csv)
    return report


if __name__ == "__main__":
    from training.cli import exit_on_stop

    exit_on_stop(main)
