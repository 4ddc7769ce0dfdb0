"""Processes for the stop tests (evaluation pools, the collector): a command's pool workers and whether a process
still runs (Linux /proc)."""

from __future__ import annotations

from pathlib import Path


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
