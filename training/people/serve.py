"""Serve the web page and JSON API: play No Thanks! against agents in a browser, watch records and agents.

Usage::

    python -m training.serve                                   # http://127.0.0.1:8000
    python -m training.serve --port 8080 --opponents search:iters=64 runs/my_run/checkpoints/best
    python -m training.serve --host 0.0.0.0                    # reachable from other machines: read below

The page offers the scripted baselines, the shipped agents and every ``--opponents`` spec
(:mod:`training.specs`); requests can name only those. The API is documented at ``/docs``.

Binding: the default ``127.0.0.1`` serves this machine only. ``--host 0.0.0.0`` serves the network: the
server has no accounts, so anyone who reaches it can start games (up to ``--max-games``); game ids are
unguessable and are the only key to a game; it speaks plain HTTP, so put it behind a reverse proxy that
adds TLS (and a login, if needed) before exposing it beyond a trusted network.

Needs the ``web`` extra: ``pip install -e ".[web]"``.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import socket
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
STARTUP_FAILURE = 3
"""Exit status when uvicorn does not start (uvicorn's own), e.g. the app fails to load."""


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``(host, port)`` as uvicorn binds one (IPv6 for a host with ``:``, SO_REUSEADDR), to
    hand to ``uvicorn.Server.run(sockets=...)``: binding it first finds a port in use before the server starts.

    Raises:
        OSError: if it cannot be bound (``errno.EADDRINUSE``: the port is in use), or the host does not resolve.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto=IPPROTO_TCP: asyncio sets TCP_NODELAY only on sockets that say so; without it Nagle and delayed
    # ACKs added about 40 ms to every response on a kept-alive connection.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def bind_error(host: str, port: int, error: OSError) -> str:
    """The ``error:`` message for a ``--host``/``--port`` that :func:`listening_socket` could not bind."""
    reason = error.strerror or str(error)
    if error.errno == errno.EADDRINUSE:
        return f"--port {port}: expected a free port, got one already in use on {host} ({reason})"
    if error.errno == errno.EACCES:
        return (
            f"--port {port}: expected a port this user may listen on (1024 and above), got a privileged one ({reason})"
        )
    return (
        f"--host {host}: expected an address of this machine to listen on (e.g. 127.0.0.1 or 0.0.0.0), got one it "
        f"cannot bind ({reason})"
    )


@contextlib.contextmanager
def serve_in_background(app: Any, host: str = DEFAULT_HOST, port: int = 0) -> Iterator[str]:
    """Run ``app`` with uvicorn in a daemon thread; yields its base URL (``http://host:port/``).

    For tests: ``port=0`` takes a free port. The server stops on exit. ``app`` is any ASGI app.

    Raises:
        RuntimeError: if the server does not start within 30 s.
    """
    import uvicorn

    sock = listening_socket(host, port)
    # log_config=None: a server inside another program leaves that program's logging alone (uvicorn's own
    # config would run logging.config.dictConfig, which closes every handler already installed)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", log_config=None))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        for _ in range(300):
            if server.started:
                break
            if not thread.is_alive():
                raise RuntimeError("uvicorn stopped before it started serving")
            threading.Event().wait(0.1)
        else:
            raise RuntimeError("uvicorn did not start within 30 s")
        yield f"http://{host}:{sock.getsockname()[1]}/"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def build_parser() -> argparse.ArgumentParser:
    from training.cli import Parser, int_in, positive_float

    p = Parser(prog="python -m training.serve", description=__doc__.split("\n")[0])
    p.add_argument("--host", default=DEFAULT_HOST, help=f"address to bind (default {DEFAULT_HOST}: this machine only)")
    p.add_argument("--port", type=int_in(0, 65535), default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.add_argument("--opponents", nargs="+", default=[], metavar="SPEC",
                   help="more policy specs to offer besides the baselines and shipped agents (checkpoint paths, "
                   "module:attr, baselines with parameters)")  # fmt: skip
    p.add_argument(
        "--seed", type=int_in(0, 2**63 - 1), help="seeds every game's seed, for a reproducible server (default: random)"
    )
    p.add_argument(
        "--max-games", type=int_in(1, 100_000), default=None, help="live games at most; more are refused (default 64)"
    )
    p.add_argument(
        "--idle-minutes", type=positive_float, default=30.0, help="a game idle this long expires (default 30)"
    )
    p.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"],
                   help="uvicorn's log level; 'info' logs every request (default info)")  # fmt: skip
    p.add_argument("--records", type=Path, default=Path("games"),
                   help="saved records offered under 'Watch' (default games/, where training.play saves)")  # fmt: skip
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status. Bad arguments, an opponent spec that does not load, or a ``--host`` and
    ``--port`` that cannot be bound (a port in use) exit with 2 after one ``error:`` line, before the server starts."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        import uvicorn

        from training.web.app import create_app
        from training.web.games import DEFAULT_MAX_GAMES, GameStore, PolicyCatalog
    except ImportError as e:
        parser.error(f"the web server needs the web extra (pip install -e '.[web]'): {e}")
    if not 0 <= args.port <= 65535:
        parser.error(f"--port: expected 0..65535, got {args.port}")
    if args.records.exists() and not args.records.is_dir():  # a folder not made yet is fine: play saves there later
        parser.error(f"--records: expected a folder of saved game records, got the file {args.records}")
    try:
        store = GameStore(
            max_games=args.max_games if args.max_games is not None else DEFAULT_MAX_GAMES,
            idle_seconds=args.idle_minutes * 60.0,
            seed=args.seed,
        )
        catalog = PolicyCatalog(extra=args.opponents)
    except (ValueError, OSError) as e:
        parser.error(f"--opponents: {e}")
    try:  # bound here, then handed to uvicorn: a port in use is one error line, not uvicorn's exit code 3
        sock = listening_socket(args.host, args.port)
    except OSError as e:
        parser.error(bind_error(args.host, args.port, e))
    port = sock.getsockname()[1]  # --port 0: the port the system chose
    app = create_app(catalog, store, records_dir=args.records)
    server = uvicorn.Server(uvicorn.Config(app, host=args.host, port=port, log_level=args.log_level))
    print(f"No Thanks! on http://{args.host}:{port}/  (API docs at /docs; Ctrl-C stops)", flush=True)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn raises the Ctrl-C it handled again once it has shut down, as uvicorn.run does
        pass
    finally:
        sock.close()
    return 0 if server.started else STARTUP_FAILURE


if __name__ == "__main__":
    sys.exit(main())
