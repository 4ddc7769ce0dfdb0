"""training.benchmark env: every level runs the chosen preset; levels without special cards say so."""

from __future__ import annotations

import math

from training import benchmark


def test_env_levels_run_wildcards_and_the_batched_ones_print_a_dash(capsys):
    rates = {name: fn(3, 0.05, benchmark.time.process_time, "wildcards") for name, fn in benchmark.ENV_LEVELS}
    assert math.isnan(rates["vector_engine"]) and math.isnan(rates["vector_encode"])
    assert all(rates[k] > 0 for k in ("engine", "aec_env", "seat_view+encode", "encode"))
    benchmark.main(["env", "--seconds", "0.05", "--players", "3", "--preset", "wildcards", "--clock", "cpu"])
    out = capsys.readouterr().out
    assert "preset wildcards" in out
    row = next(line for line in out.splitlines() if line.strip().startswith("3 "))
    cells = row.split()
    assert cells[2] == "-" and cells[6] == "-" and all(c != "-" for c in cells[1:2] + cells[3:6])


def test_selfplay_benchmark_prints_two_cores_one_core_naive_and_the_breakdown(capsys):
    import argparse

    from training.bench.bench_selfplay import bench_selfplay

    rates = bench_selfplay(argparse.Namespace(steps=4096, naive_steps=256, snapshots=2))
    out = capsys.readouterr().out
    assert set(rates) == {"two_cores", "one_core", "naive"} and all(v > 0 for v in rates.values())
    assert "the default league of 14 scripted bots" in out and "load average" in out
    collector, learner, one = (line for line in out.splitlines() if "us per learner step" in line)
    for part in ("engine", "opponents", "encoding", "learner_forward"):
        assert f"{part} " in collector, part
    assert "collector process" in collector and "learner process" in learner
    assert "update " in learner and "wait " in learner
    assert "update " in one and "opponents " in one


def test_selfplay_benchmark_refuses_bad_counts(capsys):
    import pytest

    for argv in (["--steps", "0"], ["--naive-steps", "-3"], ["--snapshots", "-1"], ["--players", "9"]):
        with pytest.raises(SystemExit) as exc:
            benchmark.main(["selfplay", *argv])
        assert exc.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error:") and argv[0] in err[0], err


def test_benchmark_all_runs_parse_as_sub_commands():
    parser = benchmark.build_parser()
    commands = [parser.parse_args(list(argv)).command for argv in benchmark.ALL_RUNS]
    assert commands[0] == "env" and "selfplay" == commands[-1] and "rllib" not in commands
    assert commands.index("eval") < commands.index("selfplay")  # eval's workers fork before torch is loaded


def test_serve_refuses_a_bad_preset_or_opponents_before_starting_the_server(capsys, monkeypatch):
    # These used to start the server and end with exit code 1 and "POST /api/games: 422 ...", three lines, or a
    # JSONDecodeError traceback.
    import pytest

    from training.web import bench

    def no_server(*args, **kwargs):
        raise AssertionError("the server was started")

    monkeypatch.setattr(bench, "server_process", no_server)
    presets = "['match3', 'open_removed', 'six_player_one_removed', 'standard', 'visible_chips', 'wildcards']"
    for argv, message in [
        (["--preset", "nope"], f"argument --preset: expected one of {presets}, got 'nope'"),
        (["--preset", ""], f"argument --preset: expected one of {presets}, got ''"),
        (
            ["--opponents", "heuristic"],
            "--opponents: expected 2 to 6 policy specs, one per opponent (the table is the opponents and the timed "
            "seat: 3..7 players), got 1: ['heuristic']",
        ),
        (["--opponents", "nosuch", "heuristic"], "--opponents: policy spec 'nosuch': expected a baseline (random, "),
        (
            ["--opponents", "threshold:T=x", "threshold:T=x"],
            "--opponents: policy spec 'threshold:T=x': T: expected an integer, got 'x'",
        ),
        (["--opponents", "ppo-3p", "ppo-3p", "ppo-3p"], "--opponents: policy spec 'ppo-3p': expected a policy for 4"),
        (["--opponents", "ppo-wildcards", "heuristic"], "--opponents: policies: expected policies that play pass/take"),
        (
            ["--opponents", "never-take", "heuristic", "--preset", "wildcards"],
            "--opponents: policies for ['wild', 'delete']: expected policies that play special cards",
        ),
    ]:
        with pytest.raises(SystemExit) as exc:
            benchmark.main(["serve", "--moves", "1", *argv])
        assert exc.value.code == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"error: {message}"), (argv, err)
