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

The command lines on Ray report a missing extra in one ``error:`` line (:func:`missing_ray_or_raise`): Ray itself,
a package that Ray's ``rllib`` or ``tune`` part needs (``pip install ray`` installs neither), or a package of the
``train`` extra (torch, stable-baselines3, sb3-contrib...).
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from training.evaluation.evaluate import GamesJob

LOCAL = "local"
"""The address that starts an embedded Ray on this machine (``--ray`` without a value)."""

ADDRESS_FORMS = "'local', 'auto', HOST:PORT or ray://HOST:PORT (PORT a number 1..65535)"
"""The Ray addresses :func:`connect` takes, as error messages name them."""


RAY_INSTALL = 'pip install -e ".[ray]"'
"""The command that installs the ``ray`` extra (``ray[rllib,tune]``), as error messages name it."""

RAY_PARTS: tuple[str, ...] = ("rllib", "tune")
"""The parts of Ray (its extras) that the ``ray`` extra installs, ``ray[rllib,tune]`` in ``pyproject.toml``."""

TRAIN_INSTALL = 'pip install -e ".[train]"'
"""The command that installs the ``train`` extra, as error messages name it."""

TRAIN_PACKAGES: dict[str, str] = {
    "torch": "torch",
    "stable_baselines3": "stable-baselines3",
    "sb3_contrib": "sb3-contrib",
    "tensorboard": "tensorboard",
    "yaml": "pyyaml",
    "pydantic": "pydantic",
    "scipy": "scipy",
    "openskill": "openskill",
    "rich": "rich",
    "tqdm": "tqdm",
    "matplotlib": "matplotlib",
    "safetensors": "safetensors",
}
"""Import name -> package of every requirement of the ``train`` extra (``pyproject.toml``; a test keeps them equal)."""

_IMPORT_NAMES = {"pyyaml": "yaml", "dm_tree": "tree", "dm-tree": "tree"}
"""Packages whose import name is not their package name, lower-cased, ``-`` read as ``_``."""


def _import_name(package: str) -> str:
    """The (lower-case) import name of ``package``: ``dm_tree`` -> ``tree``, ``tensorboardX`` -> ``tensorboardx``."""
    name = package.lower()
    return _IMPORT_NAMES.get(name, name.replace("-", "_"))


def ray_part_packages() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Lower-case import name -> ``(package, parts)`` for every requirement of the :data:`RAY_PARTS` of the
    installed Ray, read from its metadata: ``"tree": ("dm_tree", ("rllib",))``, ``"pyarrow": ("pyarrow",
    ("rllib", "tune"))``. Empty without Ray."""
    from importlib import metadata

    try:
        requirements = metadata.requires("ray") or []
    except metadata.PackageNotFoundError:
        return {}
    found: dict[str, tuple[str, set[str]]] = {}
    for req in requirements:
        name = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
        for part in RAY_PARTS:
            if name and re.search(rf"extra\s*==\s*['\"]{part}['\"]", req):
                found.setdefault(_import_name(name[1]), (name[1], set()))[1].add(part)
    return {k: (package, tuple(p for p in RAY_PARTS if p in parts)) for k, (package, parts) in found.items()}


def missing_module(error: BaseException) -> str | None:
    """The module an import error says is missing: ``error``'s own ``name`` if it is a
    :class:`ModuleNotFoundError`, else that of the :class:`ModuleNotFoundError` it was raised from (Ray's
    ``Can't import ray.tune as some dependencies are missing`` is a plain :class:`ImportError` raised from the
    missing module's). None for any other error."""
    seen: set[int] = set()
    while isinstance(error, ImportError) and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, ModuleNotFoundError):
            return error.name
        error = error.__cause__ or error.__context__  # type: ignore[assignment]
    return None


def missing_ray(error: BaseException) -> str | None:
    """The module that ``error`` reports missing if it is :mod:`ray` or one of its submodules, else None.

    Only a :class:`ModuleNotFoundError` for ``ray`` or ``ray.<...>`` counts: any other import error (a missing
    module of this package, or one that Ray itself imports) is a different fault and is not reported as a
    missing extra.
    """
    name = getattr(error, "name", None) if isinstance(error, ModuleNotFoundError) else None
    if name is None or not (name == "ray" or name.startswith("ray.")):
        return None
    return name


def missing_ray_message(command: str, needs: str, error: BaseException) -> str | None:
    """The ``error:`` line's text for ``command`` when ``error`` says Ray (or a module of it) is missing, or a package
    that Ray's ``rllib`` or ``tune`` part needs (:func:`ray_part_packages`), else None.

    Args:
        command: the command line, e.g. ``"python -m training.rllib_selfplay"``.
        needs: the part of Ray it needs, e.g. ``"Ray RLlib"`` or ``"Ray Tune"``.
        error: the exception raised (:func:`missing_ray` and :func:`missing_module` decide whether it is about Ray).

    Returns:
        ``"<command> needs <needs>, which is not installed (expected the "ray" extra, got no module 'ray'):
        pip install -e ".[ray]"``; when ``ray`` itself imports but a module of it does not (another Ray
        version), a message naming the Ray version and the missing module; when a package of Ray's parts is
        missing (``pip install ray`` without ``[rllib,tune]``), a message naming the package, the part, the Ray
        version and the missing module. None if ``error`` is not about Ray.
    """
    name = missing_ray(error)
    if name is None:
        name = missing_module(error)
        top = name.split(".")[0] if name else ""
        package = ray_part_packages().get(top.lower())
        if package is None or top in TRAIN_PACKAGES:  # pyyaml, pydantic, scipy: the train extra's to name
            return None
        return (
            f'{command} needs {needs} as the "ray" extra installs it (expected package {package[0]} of '
            f"ray[{','.join(package[1])}], got ray {_ray_version()} without module {name!r}): {RAY_INSTALL}"
        )
    ray = sys.modules.get("ray")
    if not isinstance(ray, ModuleType):  # ``import ray`` failed: Ray is not installed
        return (
            f"{command} needs {needs}, which is not installed (expected the \"ray\" extra, got no module 'ray'): "
            f"{RAY_INSTALL}"
        )
    version = getattr(ray, "__version__", "?")
    return (
        f'{command} needs {needs} as the "ray" extra installs it, got ray {version} without module {name!r}: '
        f"{RAY_INSTALL}"
    )


def _ray_version() -> str:
    """The installed Ray's version, from its metadata (``?`` if it has none)."""
    from importlib import metadata

    try:
        return metadata.version("ray")
    except metadata.PackageNotFoundError:
        return "?"


def missing_train_message(command: str, error: BaseException) -> str | None:
    """The ``error:`` line's text for ``command`` when ``error`` says a package of the ``train`` extra is missing
    (:data:`TRAIN_PACKAGES`: torch, stable-baselines3, sb3-contrib...), else None.

    Example: ``python -m training.sweep needs the "train" extra, which is not installed (expected package
    sb3-contrib, got no module 'sb3_contrib'): pip install -e ".[train]"``.
    """
    name = missing_module(error)
    package = TRAIN_PACKAGES.get(name.split(".")[0]) if name else None
    if package is None:
        return None
    return (
        f'{command} needs the "train" extra, which is not installed (expected package {package}, got no module '
        f"{name!r}): {TRAIN_INSTALL}"
    )


def missing_ray_or_raise(command: str, needs: str, error: ImportError) -> str:
    """The ``error:`` line's text for an ``except ImportError`` (or ``except ModuleNotFoundError``) of a command line
    when what is missing is an extra: Ray or a package of its parts (:func:`missing_ray_message`), or a package of
    the ``train`` extra (:func:`missing_train_message`). Any other missing module (or import error) is a fault,
    and ``error`` is raised again, with its traceback."""
    message = missing_ray_message(command, needs, error) or missing_train_message(command, error)
    if message is None:
        raise error
    return message


def require_ray() -> Any:
    """Import and return :mod:`ray`.

    Raises:
        ModuleNotFoundError: with the install command (and ``name`` that of the missing module, so that
            :func:`missing_ray` recognises it), if the ``ray`` extra is missing. Any other import error of Ray
            itself goes on unchanged.
    """
    try:
        import ray
    except ModuleNotFoundError as e:
        if missing_ray(e) is None:
            raise
        raise ModuleNotFoundError(
            f'Ray is not installed: expected the "ray" extra ({RAY_INSTALL}), got no module {e.name!r}', name=e.name
        ) from e
    return ray


def require_ray_parts(*parts: str) -> Any:
    """Import and return :mod:`ray` after importing ``ray.<part>`` for each of ``parts`` (of :data:`RAY_PARTS`),
    so that a command finds a missing part before it starts any work.

    Raises:
        ModuleNotFoundError: if Ray is missing (:func:`require_ray`) or a package one of the parts needs (``pip
            install ray`` installs neither part), with ``name`` that of the missing module, so that
            :func:`missing_ray_or_raise` recognises it; Ray's own ``ImportError`` for a part whose packages are
            missing becomes this error too. Any other import error goes on unchanged.
    """
    ray = require_ray()
    for part in parts:
        try:
            importlib.import_module(f"ray.{part}")
        except ImportError as e:
            name = missing_module(e)
            if name is None or (missing_ray_message("", "", e) or missing_train_message("", e)) is None:
                raise
            raise ModuleNotFoundError(
                f'Ray {part} is not fully installed: expected the "ray" extra ({RAY_INSTALL}), got no module {name!r}',
                name=name,
            ) from e
    return ray


def _host_port(address: str) -> tuple[str, int] | None:
    """``(host, port)`` of a ``HOST:PORT`` or ``ray://HOST:PORT`` address; None for ``local`` and ``auto``.

    Raises:
        ValueError: ``"expected <ADDRESS_FORMS>, got '<address>' (<what is wrong>)"``: no host, no port, or a port
            that is not a number in 1..65535.
    """
    if address in (LOCAL, "auto"):
        return None
    rest = address.removeprefix("ray://")
    host, sep, port = rest.rpartition(":")
    if not address.strip():
        problem = "an empty address"
    elif not rest.strip() or (sep and not host.strip("[] ")):
        problem = "no host"
    elif not sep or host.endswith(":"):  # no colon, or an IPv6 address without [brackets]:PORT
        problem = "no port"
    elif not port.isdigit():
        problem = f"port {port!r} is not a number"
    elif not 0 < int(port) < 65536:
        problem = f"port {port} is out of range"
    else:
        return host, int(port)
    raise ValueError(f"expected {ADDRESS_FORMS}, got {address!r} ({problem})")


def check_address(address: str) -> tuple[str, int] | None:
    """Refuse a malformed Ray address at once, before any connection attempt (Ray's own messages for these are
    long, and it retries some of them for minutes).

    Returns:
        ``(host, port)`` of a ``HOST:PORT`` or ``ray://HOST:PORT`` address; None for ``local`` and ``auto``.

    Raises:
        ValueError: ``"Ray address: expected ..., got '<address>' (<what is wrong>)"``.
    """
    try:
        return _host_port(address)
    except ValueError as e:
        raise ValueError(f"Ray address: {e}") from None


def ray_address(text: str) -> str:
    """An argparse ``type`` for a Ray address (``--ray ADDR``, ``--address ADDR``): ``text`` if its form is one
    :func:`connect` takes, else an error that argparse prefixes with the option's name."""
    import argparse

    try:
        _host_port(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """Raise ConnectionError at once if nothing accepts a TCP connection at a ``HOST:PORT`` or ``ray://HOST:PORT``
    address (``local`` and ``auto`` are not checked: Ray finds those itself, and fails fast when it cannot).

    Args:
        address: a Ray address as :func:`connect` takes it.
        timeout: seconds to wait for the connection, per address the host resolves to.

    Raises:
        ValueError: for a malformed address (:func:`check_address`), before any connection attempt.
        ConnectionError: naming the address and what the connection attempt got.
    """
    import socket

    host_port = check_address(address)
    if host_port is None:
        return
    host, port = host_port
    try:
        socket.create_connection((host.strip("[]"), port), timeout=timeout).close()
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
        ValueError: if ``address`` is not of a form above (:func:`check_address`), before any connection attempt.
        ConnectionError: if no cluster answers at ``address``: nothing listening at a ``HOST:PORT``
            (:func:`check_reachable`, at once), or Ray's own message.
    """
    check_address(address)
    ray = require_ray()
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
        type=ray_address,
        metavar="ADDR",
        help="run the chunks of games as Ray tasks: alone, on Ray embedded on this machine (--workers CPUs); "
        "with ADDR (auto, HOST:6379, ray://HOST:10001) on that cluster. Same results as without it.",
    )
