"""Processes for the stop tests (evaluation and distillation pools, the collector): a command's pool workers, whether
a process still runs (Linux /proc), and a command started until its pool workers play."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def pool_workers(pid: int) -> list[int]:
    """Children of ``pid`` forked from it (same command line): the evaluation's pool workers."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    out = []
    for c in children:
        try:
            if Path(f"/proc/{c}/cmdline").read_bytes() == cmdline:
                out.append(int(c))
        except OSError:
            pass
    return out


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, ended but not yet reaped, counts as ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@contextlib.contextmanager
def sigint_as_in_a_terminal() -> Iterator[None]:
    """While the block starts commands, let SIGINT through in this process if it is ignored here, so that they do
    not inherit it ignored.

    pytest started in the background by a script (``pytest ... &``: the shell ignores SIGINT for it) or under
    ``nohup`` passes an ignored SIGINT on to every command it starts, and Python then installs no Ctrl-C handler:
    the command of a Ctrl-C test never saw the stop and played on (``timed out after 120 seconds``). A terminal
    starts a foreground command with SIGINT at its default, as the commands started here are: only an ignored
    signal is inherited, one with a handler starts at the default.
    """
    ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def start_with_workers(cmd: list[str], cwd: Path, workers: int = 2) -> tuple[subprocess.Popen, list[int]]:
    """Start ``cmd`` (from ``cwd``, in its own session, output piped, with SIGINT as a terminal gives it:
    :func:`sigint_as_in_a_terminal`) and wait until its ``workers`` pool workers play; returns the process and the
    workers' pids."""
    with sigint_as_in_a_terminal():
        proc = subprocess.Popen(
            cmd, cwd=cwd, env=os.environ | {"PYTHONPATH": str(REPO)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, start_new_session=True,
        )  # fmt: skip
    deadline = time.time() + 60
    while len(found := pool_workers(proc.pid)) < workers and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    assert len(found) == workers, proc.communicate(timeout=5) if proc.poll() is not None else "no pool workers"
    time.sleep(0.5)  # work handed out and queued
    return proc, found


def workers_left_after_kill(proc: subprocess.Popen, workers: list[int], bound: float) -> list[int]:
    """SIGKILL ``proc`` and wait up to ``bound`` seconds for its pool ``workers`` to end; returns those still running
    then (and kills them, so that a failing test leaves none behind)."""
    try:
        proc.kill()
        proc.wait(timeout=10)
        deadline = time.time() + bound
        while any(alive(w) for w in workers) and time.time() < deadline:
            time.sleep(0.05)
        return [w for w in workers if alive(w)]
    finally:
        for w in workers:
            if alive(w):
                os.kill(w, signal.SIGKILL)


def stop_and_wait(proc: subprocess.Popen, signum: int, whole_group: bool) -> tuple[str, str, float]:
    """Send ``signum`` to ``proc`` (``whole_group``: to its process group, as Ctrl-C in a terminal does) and wait for
    it to end; returns its stdout, its stderr and the seconds it took (it is killed if the wait fails)."""
    try:
        start = time.monotonic()
        if whole_group:
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
        out, err = proc.communicate(timeout=120)
        return out, err, time.monotonic() - start
    finally:
        if proc.poll() is None:
            proc.kill()
