"""Stopping the evaluation commands while a pool of worker processes plays: Ctrl-C, SIGTERM, the parent killed.

Each command plays far more games than it is given time for (120,000 games against the ``utility`` bot, a
thousand games a second, take half a minute and more on two workers), is stopped once its two pool workers
have started, and must end within seconds with one line and the shell's exit code for the signal. It used to
play every queued chunk first (then print a KeyboardInterrupt traceback), and SIGTERM or SIGKILL to the
command alone left its workers blocked for good.
"""

from __future__ import annotations

import multiprocessing.context
import os
import signal
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from procs import alive, start_with_workers, stop_and_wait, workers_left_after_kill

from training import evaluate as ev

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="finds pool workers in /proc")

STOP_BOUND = 20.0
"""Seconds a stopped command may take to end. It takes a second or two, but the stop runs at the machine's pace: on
a busy machine (the whole suite on two cores, load 6) it once took 11 s. The bound stays well below the half minute
and more that playing the queued chunks took on an idle machine (longer on a busy one), so that bug still fails."""


def slow_games(command: str, out: Path) -> list[str]:
    """``python -m training.<command>`` playing 120,000 games against the slow ``utility`` bot on two workers."""
    common = ["--games", "120000", "--workers", "2", "--no-progress"]
    if command == "evaluate":
        args = ["--policy", "heuristic", "--opponents", "utility"]
    elif command == "gauntlet":
        args = ["--policy", "heuristic", "--columns", "utility"]
    else:
        args = ["--policies", "heuristic", "utility", "threshold", "--out", str(out)]
    return [sys.executable, "-m", f"training.{command}", *args, *common]


@pytest.mark.parametrize(
    ("command", "signum", "whole_group"),
    [
        ("evaluate", signal.SIGINT, True),  # Ctrl-C in a terminal: the whole foreground group
        ("evaluate", signal.SIGTERM, False),  # kill PID
        ("gauntlet", signal.SIGINT, False),  # kill -INT PID
        ("tournament", signal.SIGTERM, True),  # a service manager, `timeout`
    ],
    ids=["evaluate-ctrl-c", "evaluate-sigterm", "gauntlet-sigint", "tournament-sigterm-group"],
)
def test_a_stop_ends_the_pool_at_once_with_one_line(tmp_path, command, signum, whole_group):
    proc, workers = start_with_workers(slow_games(command, tmp_path / "out"), tmp_path)
    out, err, took = stop_and_wait(proc, signum, whole_group)
    name = signal.Signals(signum).name
    assert took < STOP_BOUND, f"{took:.1f} s"
    assert proc.returncode == 128 + signum  # 130 for Ctrl-C, 143 for SIGTERM, as a shell reports them
    assert err == f"{name}: stopped; nothing more is played or written\n"  # no traceback, no worker's word
    assert out == ""
    assert not any(alive(w) for w in workers)
    assert not (tmp_path / "out").exists()  # the tournament writes nothing


def test_workers_end_with_a_killed_parent(tmp_path):
    """SIGKILL (or SIGTERM without a handler) ends the command at once: its workers used to stay, blocked on the
    pool's pipes, for good."""
    proc, workers = start_with_workers(slow_games("evaluate", tmp_path), tmp_path)
    assert workers_left_after_kill(proc, workers, STOP_BOUND) == []


class _FailsInChunk:
    """The heuristic bot, except that it raises in one chunk: a worker's ``fail_in``-th (0 = its first)."""

    def __init__(self, fail_in: int) -> None:
        from nothanks_env.baselines import HeuristicPolicy

        self.bot, self.fail_in, self.chunk = HeuristicPolicy(), fail_in, -1
        self.name = "fails"

    def seed(self, seed: int) -> None:
        self.chunk += 1  # reseeded once per chunk it plays, in chunk order within a worker

    def reset(self) -> None:
        pass

    def act_batch(self, view):
        if self.chunk == self.fail_in:
            raise ValueError("broken policy")
        return self.bot.act_batch(view)


def test_an_error_in_one_chunk_ends_the_pool_without_playing_the_rest():
    """The first chunk's error is raised at once: the queued chunks are cancelled and the others end at their next
    turn (they used to be played to the end, half a minute here, before the error came out)."""
    from nothanks_env.baselines import HeuristicPolicy, UtilityPolicy

    bot = HeuristicPolicy()
    m = ev.plan_matchup([_FailsInChunk(1)], [UtilityPolicy()], num_players=3, games=120_000, seed=0)
    assert len(m.chunks()) == 79
    start = time.monotonic()
    with pytest.raises(ValueError, match="broken policy"):
        ev.run_many([m], workers=2)
    assert time.monotonic() - start < STOP_BOUND
    # the pool is usable again and the results are unchanged: the same games in one worker and in two
    small = ev.plan_matchup([bot], [bot], num_players=3, games=6000, seed=1)
    (one, _), (two, _) = ev.run_many([small])[0], ev.run_many([small], workers=2)[0]
    assert np.array_equal(one, two)


@pytest.fixture
def sigint_raises():
    """SIGINT raises KeyboardInterrupt in this process (Python's own handler), as in a command; restored after."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers are set on the main thread")
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def test_a_stop_while_the_pool_starts_ends_its_workers(monkeypatch, sigint_raises):
    """Ctrl-C just after the first worker is forked, before the pool's thread that hands out work and ends the
    workers exists: the command printed its stop line, then hung for good on exit, waiting for that worker (it
    ignores SIGINT, and nothing would ever end it). The stop is held until the pool has started, then raised. It is
    sent to the whole process from a thread that was there before the pool: the OS may hand a Ctrl-C to any thread
    (torch's too), and Python then runs its handler in the main thread all the same."""
    forked = []
    start = multiprocessing.context.ForkProcess.start
    send = threading.Event()

    def ctrl_c() -> None:
        send.wait()
        os.kill(os.getpid(), signal.SIGINT)

    def start_then_stop(process):
        start(process)
        forked.append(process)
        if len(forked) == 1:
            send.set()
            sender.join()  # taken (by this thread or the sender) before the second worker is forked

    sender = threading.Thread(target=ctrl_c, daemon=True)
    sender.start()
    monkeypatch.setattr(ev, "_start_method", lambda: "fork")
    monkeypatch.setattr(multiprocessing.context.ForkProcess, "start", start_then_stop)
    try:
        with pytest.raises(KeyboardInterrupt):
            ev.pool_map(abs, [(-i,) for i in range(100)], workers=2, on_result=lambda i, r: None)
        deadline = time.monotonic() + STOP_BOUND
        while any(p.is_alive() for p in forked) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = [p for p in forked if p.is_alive()]
    finally:
        send.set()
        for p in forked:  # else this test's process would wait for them on exit, for good
            if p.is_alive():
                p.kill()
                p.join()
    assert left == []  # (the worker forked first was left waiting for work, for good)
    assert len(forked) == 2  # the pool started whole, then stopped


def test_a_stop_that_reaches_a_starting_worker_is_left_to_the_parent(monkeypatch, sigint_raises):
    """Ctrl-C reaches the whole process group: a worker it reached before it ignored SIGINT died with a
    traceback, and the pool was broken (a traceback and exit code 1 from the command instead of its stop line).
    Workers start with SIGINT and SIGTERM held, and drop one sent then as they come to ignore them."""
    init = ev._init_worker

    def stopped_first(setups, stop):  # in each worker, before it ignores SIGINT
        signal.raise_signal(signal.SIGINT)
        init(setups, stop)

    monkeypatch.setattr(ev, "_start_method", lambda: "fork")
    monkeypatch.setattr(ev, "_init_worker", stopped_first)
    results = {}
    ev.pool_map(abs, [(-i,) for i in range(100)], workers=2, on_result=results.__setitem__)
    assert results == {i: i for i in range(100)}
