"""Ray as a backend for the embarrassingly parallel work: chunks of evaluation games as Ray tasks.

``python -m training.evaluate --ray [ADDR]`` (and ``training.tournament``, ``training.gauntlet``) hands the
chunks of games that :func:`training.evaluate.run_many` would give to its process pool to Ray instead. A
chunk is the same unit of work either way: chunk ``i`` of a job reseeds the job's policies from
``(job.seed, i)`` wherever it runs, so the report equals the local one for the same seed.

Where Ray runs (``ADDR``, as :func:`ray.init` reads its ``address``):

- no ``ADDR`` (``"local"``): Ray starts embedded in this process, on this machine, with ``num_cpus``
  CPUs (``--workers``), and stops when the process ends;
- ``auto``: the cluster already running on this machine (``ray start --head``);
- ``HOST:6379``: join a cluster's head node; ``ray://HOST:10001``: Ray Client to a remote cluster.

Every node of a cluster needs this package installed (the same virtual environment): the tasks import
:mod:`training.evaluate` there. Policies travel to the workers once per call through Ray's object store.
Requires the ``ray`` extra (``pip install -e ".[ray]"``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from training.evaluation.evaluate import GamesJob

LOCAL = "local"
"""The address that starts an embedded Ray on this machine (``--ray`` without a value)."""


def require_ray() -> Any:
    """Import and return :mod:`ray`.

    Raises:
        ImportError: with the install command, if the ``ray`` extra is missing.
    """
    try:
        import ray
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError('Ray is not installed: expected the "ray" extra (pip install -e ".[ray]")') from e
    return ray


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """Raise ConnectionError at once if nothing accepts a TCP connection at a ``HOST:PORT`` or ``ray://HOST:PORT``
    address (``local`` and ``auto`` are not checked: Ray finds those itself, and fails fast when it cannot).

    Args:
        address: a Ray address as :func:`connect` takes it.
        timeout: seconds to wait for the connection, per address the host resolves to.

    Raises:
        ConnectionError: naming the address and what the connection attempt got.
    """
    import socket

    if address in (LOCAL, "auto"):
        return
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        return  # a form Ray reads otherwise (it names its own error)
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as e:
        raise ConnectionError(
            f"Ray address {address!r}: expected a running cluster there, got no answer on {host}:{port} ({e})"
        ) from None


def connect(address: str = LOCAL, *, num_cpus: int | None = None) -> Any:
    """Initialise Ray once per process and return the module.

    Args:
        address: ``"local"`` (embedded, this machine), ``"auto"``, ``"HOST:PORT"`` or ``"ray://HOST:PORT"``.
        num_cpus: CPUs an embedded Ray may use (ignored when joining a cluster, which has its own).

    Raises:
        ValueError: if ``address`` is empty.
        ConnectionError: if no cluster answers at ``address``: nothing listening at a ``HOST:PORT``
            (:func:`check_reachable`, at once), or Ray's own message.
    """
    ray = require_ray()
    if not address:
        raise ValueError("Ray address: expected 'local', 'auto', HOST:PORT or ray://HOST:PORT, got ''")
    if ray.is_initialized():
        return ray
    check_reachable(address)  # Ray itself retries an unreachable HOST:PORT for minutes
    kwargs: dict[str, Any] = {"log_to_driver": False}
    if address == LOCAL:  # a cluster has its own CPUs and dashboard; Ray Client refuses these arguments
        kwargs |= {"num_cpus": num_cpus, "include_dashboard": False}
    try:
        ray.init(address=address, **kwargs)
    except ConnectionError as e:
        raise ConnectionError(f"Ray address {address!r}: expected a running cluster there, got: {e}") from e
    return ray


def _chunk(setups: list, job: int, seed: int, chunk: int, deck, removed, seating) -> tuple[np.ndarray, float]:
    from training.evaluation.evaluate import _timed_chunk

    policies, config = setups[job]
    return _timed_chunk(policies, config, seed, chunk, deck, removed, seating)


def run_chunks(
    jobs: Sequence[GamesJob],
    tasks: Sequence[tuple[int, int, slice]],
    *,
    address: str = LOCAL,
    num_cpus: int | None = None,
) -> Iterator[tuple[int, slice, tuple[np.ndarray, float]]]:
    """Play chunks of games as Ray tasks (one CPU each) and yield them as they finish.

    Args:
        jobs: the jobs, as :func:`training.evaluate.run_many` takes them.
        tasks: ``(job index, chunk index, slice of the job's games)`` per chunk.
        address, num_cpus: as for :func:`connect`.

    Yields:
        ``(job index, slice, (int64 (G, P) penalties, seconds the chunk took))``, in completion order.
    """
    ray = connect(address, num_cpus=num_cpus)
    remote: Callable = ray.remote(num_cpus=1)(_chunk)
    setups = ray.put([(job.policies, job.config) for job in jobs])
    pending = {
        remote.remote(setups, j, jobs[j].seed, i, jobs[j].deck[sl], jobs[j].removed[sl], jobs[j].seating[sl]): (j, sl)
        for j, i, sl in tasks
    }
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            j, sl = pending.pop(ref)
            yield j, sl, ray.get(ref)


def add_ray_argument(parser: Any) -> None:
    """Add ``--ray [ADDR]`` to an :class:`argparse.ArgumentParser` (``args.ray``: None, "local" or ADDR)."""
    parser.add_argument(
        "--ray",
        nargs="?",
        const=LOCAL,
        default=None,
        metavar="ADDR",
        help="run the chunks of games as Ray tasks: alone, on Ray embedded on this machine (--workers CPUs); "
        "with ADDR (auto, HOST:6379, ray://HOST:10001) on that cluster. Same results as without it.",
    )
