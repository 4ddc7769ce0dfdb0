"""training.benchmark env: every level runs the chosen preset; levels without special cards say so."""

from __future__ import annotations

import math

import pytest

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


def _recorded_configs(monkeypatch) -> list:
    """Replace the timed parts of ``benchmark selfplay`` by recorders of the config each is given."""
    from training.bench import bench_selfplay as bs

    seen = []

    def fast(cfg, steps, snapshots, clock):
        seen.append(cfg)
        return 1000.0, {}

    def naive(cfg, steps, snapshots, clock):
        seen.append(cfg)
        return 100.0

    monkeypatch.setattr(bs, "_fast_rate", fast)
    monkeypatch.setattr(bs, "_naive_rate", naive)
    return seen


def test_selfplay_benchmark_times_the_config_and_overrides_it_is_given_and_prints_them(capsys, monkeypatch):
    """``benchmark selfplay CONFIG --set KEY=VALUE`` times that config as training reads it (before, it always
    timed the default config's rollouts of 8 x 512 and batches of 1024, and refused ``--set``)."""
    from training.config import CONFIG_DIR

    seen = _recorded_configs(monkeypatch)
    config = str(CONFIG_DIR / "selfplay_3pt.yaml")
    benchmark.main(["selfplay", config, "--set", "ppo.n_steps=64", "--set", "ppo.n_epochs=2", "--steps", "1"])
    out = capsys.readouterr().out
    two, one, naive = seen
    assert (two.run.collector, one.run.collector) == ("process", "inline")
    for cfg in seen:
        assert (cfg.ppo.n_steps, cfg.ppo.batch_size, cfg.ppo.n_epochs, cfg.env.games_per_count) == (64, 8192, 2, 512)
        assert cfg.env.behaviour is True and cfg.pool.league.weighting == "target" and cfg.run.seed == 35
        assert cfg.rollout_steps == 32768 and cfg.run.progress is False
    assert (
        f"  config {config} --set ppo.n_steps=64 --set ppo.n_epochs=2: rollout 32,768 learner steps = ppo.n_steps 64 x "
        "env.games_per_count 512 x 1 player count; ppo.batch_size 8192, ppo.n_epochs 2, ppo.net_arch [128, 128], "
        "env.behaviour true, run.torch_threads 1\n"
    ) in out
    # one of the 27 members is a network checkpoint: it was counted as "the config's league of 27 scripted bots"
    assert "the config's league of 26 scripted bots and 1 network, 20% snapshots" in out

    seen.clear()
    benchmark.main(["selfplay", "--set", "ppo.batch_size=512", "--players", "4", "--seed", "3", "--snapshots", "7"])
    out = capsys.readouterr().out
    for cfg in seen:
        assert (cfg.ppo.n_steps, cfg.ppo.batch_size, cfg.game.num_players, cfg.run.seed) == (8, 512, [4], 3)
        assert cfg.pool.max_snapshots == 7  # room for the 7 snapshots the benchmark adds
    assert "  config configs/selfplay.yaml (default) --set ppo.batch_size=512: rollout 4,096 learner steps = " in out


def test_selfplay_benchmark_refuses_a_bad_config_or_override_in_one_line(capsys, monkeypatch):
    _recorded_configs(monkeypatch)
    for argv, message in [
        (["--set", "ppo.n_steps=0"], "ppo.n_steps: expected an int >= 1, got 0"),
        (["--set", "ppo.n_steps"], "override: expected KEY.PATH=VALUE, got 'ppo.n_steps'"),
        (["no/such.yaml"], "config file not found: expected an existing YAML file, got no/such.yaml"),
    ]:
        with pytest.raises(SystemExit) as exc:
            benchmark.main(["selfplay", *argv])
        assert exc.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error:") and message in err[0], err


def test_selfplay_benchmark_error_names_its_own_overrides_apart_from_the_users(capsys, monkeypatch):
    """The benchmark's own overrides were listed as the user's: ``with overrides ['env.games_per_count=16',
    'run.progress=false', 'game.num_players=4']`` for ``--set env.games_per_count=16 --players 4``."""
    from training.config import CONFIG_DIR

    _recorded_configs(monkeypatch)
    config = str(CONFIG_DIR / "selfplay_3pt.yaml")
    cases = [
        (
            ["--set", "env.games_per_count=16", "--set", "ppo.batch_size=1024", "--players", "4"],
            "with overrides ['env.games_per_count=16', 'ppo.batch_size=1024'] and the benchmark's own overrides "
            "run.progress=false (no progress bar), game.num_players=4 (--players 4): pool.scripted: policy spec "
            "'checkpoints/exploiter-3p': expected a policy for 4 players",
        ),
        (
            ["--players", "4", "--seed", "2"],
            "with the benchmark's own overrides run.progress=false (no progress bar), game.num_players=4 "
            "(--players 4), run.seed=2 (--seed 2): pool.scripted: ",
        ),
    ]
    for argv, message in cases:
        with pytest.raises(SystemExit) as exc:
            benchmark.main(["selfplay", config, *argv])
        assert exc.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"error: invalid config {config} {message}"), err


def test_selfplay_benchmark_marks_the_parts_special_cards_do_not_measure(capsys, monkeypatch):
    """With special cards (the scalar engine) engine, opponents and encoding are not timed: they printed 0.0."""
    from training.bench import bench_selfplay as bs
    from training.config import CONFIG_DIR

    zeros = {"engine": 0.0, "opponents": 0.0, "encoding": 0.0}
    by_mode = {
        "process": zeros | {"learner_forward": 27.4, "glue": 359.9, "update": 163.8, "buffer": 3.2, "wait": 232.5},
        "inline": zeros | {"learner_forward_and_glue": 325.6, "update": 81.3},
    }
    monkeypatch.setattr(bs, "_fast_rate", lambda cfg, *a: (2000.0, dict(by_mode[cfg.run.collector])))
    monkeypatch.setattr(bs, "_naive_rate", lambda *a: 1000.0)
    note = "(engine, opponents, encoding -: not measured; special cards run on the scalar engine"
    benchmark.main(["selfplay", str(CONFIG_DIR / "selfplay_wildcards.yaml"), "--set", "ppo.batch_size=512"])
    out = capsys.readouterr().out
    collector, learner, one = (line for line in out.splitlines() if "us per learner step" in line)
    assert collector.endswith("collector process: engine -, opponents -, encoding -, learner_forward 27.4, glue 359.9")
    assert learner.endswith("learner process: update 163.8, buffer 3.2, wait 232.5")
    assert one.endswith("one process: engine -, opponents -, encoding -, learner_forward_and_glue 325.6, update 81.3")
    assert out.count(note) == 1 and "the config's league of 2 scripted bots," in out

    benchmark.main(["selfplay", "--set", "ppo.batch_size=512"])  # no special cards: every part is measured
    out = capsys.readouterr().out
    assert "collector process: engine 0.0, opponents 0.0, encoding 0.0, learner_forward 27.4" in out
    assert note not in out


def test_selfplay_benchmark_runs_a_config_with_behaviour_inputs(capsys):
    """The snapshot networks and the naive loop take the config's inputs (``env.behaviour`` adds 56): before,
    both were built for the default 389 and the run failed."""
    benchmark.main(["selfplay", "--set", "env.behaviour=true", "--set", "env.games_per_count=16", "--set",
                    "ppo.n_steps=16", "--set", "ppo.batch_size=128", "--steps", "256", "--naive-steps", "128",
                    "--snapshots", "2"])  # fmt: skip
    out = capsys.readouterr().out
    assert "rollout 256 learner steps = ppo.n_steps 16 x env.games_per_count 16 x 1 player count" in out
    assert "env.behaviour true" in out
    rates = [
        float(line.split(":")[1].split()[0].replace(",", ""))
        for line in out.splitlines()
        if line.endswith(" learner steps/s")
    ]
    assert len(rates) == 3 and all(r > 0 for r in rates)


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
        (["--opponents", "ppo-wildcards", "heuristic"], "--opponents: expected policies that play pass/take"),
        (
            ["--opponents", "never-take", "heuristic", "--preset", "wildcards"],
            "--opponents for ['wild', 'delete']: expected policies that play special cards",
        ),
    ]:
        with pytest.raises(SystemExit) as exc:
            benchmark.main(["serve", "--moves", "1", *argv])
        assert exc.value.code == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"error: {message}"), (argv, err)


def test_serve_refuses_opponents_that_do_not_fill_a_presets_table(capsys, monkeypatch):
    """``--preset six_player_one_removed --opponents heuristic heuristic`` timed a 3-player table (the preset's six
    seats silently overridden), where ``training.play`` refuses the same input; a preset without its own size takes
    the table the opponents make, and the default opponents with such a preset are refused naming --preset."""
    import pytest

    from training.web import bench

    started = []
    monkeypatch.setattr(bench, "bench_serve", lambda args: started.append(list(args.opponents)))
    for argv, message in [
        (
            ["--preset", "six_player_one_removed", "--opponents", "heuristic", "heuristic"],
            "error: --opponents: expected 5 specs for 6 players (one per other seat: --preset six_player_one_removed "
            "is a 6-player table), got 2: heuristic heuristic",
        ),
        (
            ["--preset", "six_player_one_removed"],
            "error: --preset six_player_one_removed: expected --opponents with 5 specs (one per other seat of its "
            "6-player table; the default, ppo-3p ppo-3p, seats 3), got no --opponents",
        ),
    ]:
        with pytest.raises(SystemExit) as exc:
            benchmark.main(["serve", "--moves", "1", *argv])
        assert exc.value.code == 2, argv
        assert capsys.readouterr().err.splitlines() == [message]
    assert started == []
    benchmark.main(["serve", "--preset", "six_player_one_removed", "--opponents", *["heuristic"] * 5])
    benchmark.main(["serve", "--preset", "match3", "--opponents", *["heuristic"] * 3])
    benchmark.main(["serve"])  # the default opponents, at the standard table
    assert started == [["heuristic"] * 5, ["heuristic"] * 3, ["ppo-3p", "ppo-3p"]]


def test_gym_refuses_a_special_cards_network_before_timing(capsys):
    """The gym envs play standard tables: a wildcards network was a RuleError traceback once timing started."""
    with pytest.raises(SystemExit) as exc:
        benchmark.main(["gym", "--seconds", "0.05", "--players", "3", "--opponents", "ppo-wildcards"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "error: --opponents: opponents: expected policies that play pass/take (the table has no special cards), got "
        "['ppo-wildcards'] trained on special cards (125 actions); shipped networks for 3 players: ppo-3p, "
        "ppo-3p-ens, ppo-mixed"
    ]
