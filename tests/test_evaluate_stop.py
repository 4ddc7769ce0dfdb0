"""Stopping the evaluation commands while a pool of worker processes plays: Ctrl-C, SIGTERM, the parent killed.

Each command plays far more games than it is given time for (120,000 games against the ``utility`` bot, a
thousand games a second, take half a minute and more on two workers), is stopped once its two pool workers
have started, and must end within seconds with one line and the shell's exit code for the signal. It used to
play every queued chunk first (then print a KeyboardInterrupt traceback), and SIGTERM or SIGKILL to the
command alone left its workers blocked for good.
"""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from procs import alive, start_with_workers, stop_and_wait, workers_left_after_kill

from training import evaluate as ev

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="finds pool workers in /proc")

STOP_BOUND = 10.0
"""Seconds a stopped command may take to end: generous (it takes under a second), far below the half minute and
more that playing the queued chunks took."""


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
