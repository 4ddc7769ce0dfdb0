"""A Ray address with nothing listening is refused at once (Ray itself retries such an address for minutes)."""

from __future__ import annotations

import contextlib
import re
import socket

import pytest

from training import evaluate as ev
from training.scale.ray_backend import check_reachable


def closed_port() -> int:
    """A local TCP port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_port_without_a_listener_is_refused_by_name():
    port = closed_port()
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        with pytest.raises(ConnectionError, match=rf"Ray address '{address}': expected a running cluster there, got "
                           rf"no answer on 127.0.0.1:{port} \(.*refused"):  # fmt: skip
            check_reachable(address, timeout=2.0)


def test_a_listening_port_passes_and_local_addresses_are_left_to_ray():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        check_reachable(f"127.0.0.1:{server.getsockname()[1]}")  # no error
    check_reachable("local")
    check_reachable("auto")


def test_evaluate_refuses_an_unreachable_cluster_with_one_error_line(capsys):
    port = closed_port()
    with pytest.raises(SystemExit) as e:
        ev.main(["--policy", "heuristic", "--opponents", "random", "--games", "3", "--ray", f"127.0.0.1:{port}"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: Ray address '127.0.0.1:{port}': expected a running cluster")


def test_rllib_selfplay_refuses_an_unreachable_cluster_and_leaves_no_run_folder(tmp_path, capsys):
    pytest.importorskip("ray.rllib")
    from training import rllib_selfplay as rs
    from training.config import CONFIG_DIR

    port = closed_port()
    argv = [str(CONFIG_DIR / "rllib_smoke.yaml"), "--address", f"127.0.0.1:{port}", "--set", f"run.runs_dir={tmp_path}"]
    assert rs.main(argv) == 2
    assert capsys.readouterr().err.startswith(f"error: Ray address '127.0.0.1:{port}': expected a running cluster")
    assert list(tmp_path.iterdir()) == []  # the run folder made before the trainer was removed again


@pytest.mark.parametrize("command", ["sweep", "benchmark"])
def test_sweep_and_the_rllib_benchmark_refuse_an_unreachable_cluster_with_one_error_line(command, capsys):
    pytest.importorskip("ray.tune")
    from training import benchmark, sweep
    from training.config import CONFIG_DIR

    port = closed_port()
    address = f"127.0.0.1:{port}"
    with pytest.raises(SystemExit) if command == "benchmark" else contextlib.nullcontext() as e:
        if command == "sweep":
            assert sweep.main([str(CONFIG_DIR / "sweep.yaml"), "--address", address]) == 2
        else:
            benchmark.main(["rllib", "--iterations", "1", "--address", address])
    if command == "benchmark":
        assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(f"error: Ray address '{address}': expected a running cluster there")
    assert not any("Traceback" in line for line in err)


MALFORMED = [
    ("192.0.2.2", "no port"),
    ("ray://192.0.2.2", "no port"),
    ("127.0.0.1:99999", "port 99999 is out of range"),
    ("127.0.0.1:0", "port 0 is out of range"),
    ("host:abc", "port 'abc' is not a number"),
    (":6379", "no host"),
    ("", "an empty address"),
]
FORMS = "expected 'local', 'auto', HOST:PORT or ray://HOST:PORT (PORT a number 1..65535)"


@pytest.fixture
def no_connection(monkeypatch):
    """Fail the test on any connection attempt (a malformed address must be refused before one)."""

    def refuse(*args, **kwargs):
        raise AssertionError("a connection was attempted")

    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.mark.parametrize(("address", "problem"), MALFORMED)
def test_a_malformed_address_is_refused_by_name_before_any_connection(address, problem, no_connection):
    from training.scale.ray_backend import connect

    message = re.escape(f"Ray address: {FORMS}, got {address!r} ({problem})")
    for check in (check_reachable, connect):
        with pytest.raises(ValueError, match=f"^{message}$"):
            check(address)


def _evaluate(flag: str, address: str) -> object:
    return ev.main(["--policy", "random", "--opponents", "random", "--games", "3", flag, address])


def _gauntlet(flag: str, address: str) -> object:
    from training import gauntlet

    return gauntlet.main(["--policy", "random", "--games", "3", flag, address])


def _tournament(flag: str, address: str) -> object:
    from training import tournament

    return tournament.main(["--policies", "random", "random", "random", "--out", "nowhere", flag, address])


def _rllib_selfplay(flag: str, address: str) -> object:
    pytest.importorskip("ray.rllib")
    from training import rllib_selfplay

    return rllib_selfplay.main([flag, address])


def _sweep(flag: str, address: str) -> object:
    pytest.importorskip("ray.tune")
    from training import sweep

    return sweep.main([flag, address])


def _benchmark(flag: str, address: str) -> object:
    from training import benchmark

    return benchmark.main(["rllib", "--iterations", "1", flag, address])


@pytest.mark.parametrize(
    ("command", "flag"),
    [
        (_evaluate, "--ray"),
        (_gauntlet, "--ray"),
        (_tournament, "--ray"),
        (_rllib_selfplay, "--address"),
        (_sweep, "--address"),
        (_benchmark, "--address"),
    ],
)
@pytest.mark.parametrize(("address", "problem"), [MALFORMED[0], MALFORMED[2], MALFORMED[4]])
def test_every_command_refuses_a_malformed_address_with_one_error_line(
    command, flag, address, problem, no_connection, capsys
):
    try:
        code = command(flag, address)
    except SystemExit as e:
        code = e.code
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: argument {flag}: {FORMS}, got {address!r} ({problem})"]
