"""Latency of one move over HTTP: ``python -m training.benchmark serve --opponents ppo-3p ppo-3p --moves 100``.

Starts the real server as its own process (``python -m training.serve`` on a free port of 127.0.0.1, access
log off) and plays games through the JSON API with one ``httpx`` keep-alive connection. The human seat
plays uniformly random legal actions. A *move* is one ``POST /api/games/{id}/actions`` round trip: the
human's action, every opponent decision until the human's next turn (or the end), and the new view. Game
creation is not timed; one warm-up game is played first so that first calls are not counted either.

The server runs in its own process, as it is deployed, so the client's work is not counted against it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence

import numpy as np

from training.cli import int_in
from training.variants import PRESET_HELP, preset_name


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The ``serve`` sub-command's options."""
    p.add_argument("--opponents", nargs="+", default=["ppo-3p", "ppo-3p"], metavar="SPEC",
                   help="one policy spec per opponent (default ppo-3p ppo-3p); players = opponents + 1")  # fmt: skip
    p.add_argument("--moves", type=int_in(1), default=100, help="timed moves (default 100)")
    p.add_argument("--preset", default="standard", type=preset_name, help=PRESET_HELP)
    p.add_argument("--seed", type=int_in(0), default=0, help="seeds the games and the human's random actions")


@contextlib.contextmanager
def server_process(opponents: Sequence[str], seed: int, startup_seconds: float = 120.0) -> Iterator[str]:
    """Run ``python -m training.serve`` on a free local port; yields its base URL and stops it on exit.

    Raises:
        SystemExit: if the server exits or does not answer within ``startup_seconds`` (its log is shown).
    """
    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "training.serve", "--host", "127.0.0.1", "--port", str(port), "--seed", str(seed),
           "--max-games", "10000", "--log-level", "warning", "--opponents", *opponents]  # fmt: skip
    url = f"http://127.0.0.1:{port}/"
    with tempfile.TemporaryFile("w+") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + startup_seconds
            while True:
                if proc.poll() is not None:
                    log.seek(0)
                    raise SystemExit(f"the server exited with {proc.returncode}:\n{log.read()}")
                with contextlib.suppress(httpx.TransportError):
                    if httpx.get(url + "api/policies", timeout=5).status_code == 200:
                        break
                if time.monotonic() > deadline:
                    raise SystemExit(f"the server did not answer on {url} within {startup_seconds:g} s")
                time.sleep(0.2)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def bench_serve(args: argparse.Namespace) -> None:
    """Print the median and 90th percentile of the move latency, in milliseconds."""
    import httpx

    if args.moves < 1:
        raise SystemExit(f"--moves: expected >= 1, got {args.moves}")
    rng = np.random.default_rng(args.seed)
    players = len(args.opponents) + 1
    body = {"players": players, "preset": args.preset, "opponents": list(args.opponents)}
    latencies: list[float] = []
    opponent_decisions: list[int] = []
    games = 0
    with server_process(args.opponents, args.seed) as url, httpx.Client(base_url=url, timeout=120) as http:

        def play(timed: bool) -> None:
            nonlocal games
            r = http.post("api/games", json=body)
            if r.status_code != 201:
                raise SystemExit(f"POST /api/games: {r.status_code} {r.json().get('error')}")
            created = r.json()
            view, game_id = created["view"], created["id"]
            games += timed
            while not view["over"] and (not timed or len(latencies) < args.moves):
                action = str(rng.choice(view["legal_actions"]))
                t0 = time.perf_counter()
                r = http.post(f"api/games/{game_id}/actions", json={"action": action, "move": view["move"]})
                elapsed = time.perf_counter() - t0
                if r.status_code != 200:
                    raise SystemExit(f"POST actions: {r.status_code} {r.json().get('error')}")
                result = r.json()
                view = result["view"]
                if timed:
                    latencies.append(elapsed)
                    opponent_decisions.append(len(result["moves"]) - 1)

        play(timed=False)
        while len(latencies) < args.moves:
            play(timed=True)
    ms = np.array(latencies) * 1000.0
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"move latency over HTTP, {players} players ({args.preset}), opponents {' '.join(args.opponents)}, "
          f"{len(ms)} moves in {games} games, load average {load}")  # fmt: skip
    print(f"median {np.median(ms):.1f} ms   p90 {np.percentile(ms, 90):.1f} ms   mean {ms.mean():.1f} ms   "
          f"max {ms.max():.1f} ms   opponent decisions per move: mean {np.mean(opponent_decisions):.2f}")  # fmt: skip
