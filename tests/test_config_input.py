"""Config input a user found accepted and wrong: a batch size that leaves a one-step minibatch, an empty runs_dir,
a dotted flag that ate the next option, YAML 1.1 readings of --set values and files (010 as 8, yes as true), and a
league key its weighting never reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from training.config import CONFIG_DIR, ConfigError, config_from_dict, dotted_flags_as_set, dump_config, load_config
from training.learning import config as config_module
from training.selfplay import main

REPO = CONFIG_DIR.parent
SMOKE = CONFIG_DIR / "smoke.yaml"
SHIPPED_YAML = sorted([*CONFIG_DIR.glob("*.yaml"), *(REPO / "docs" / "experiments").glob("*.yaml")])
SHIPPED_SELFPLAY = [p for p in SHIPPED_YAML if not p.name.startswith(("rllib", "sweep"))]
OLD_REWARD = "self-play reward 'win' is deprecated"
"""The start of our own DeprecationWarning for ``env.reward: win``, which configs from before 0.2 recorded."""

# A test here that reads the deprecated reward on purpose says so with pytest.warns; any other that triggers the
# warning fails (they showed it 13 times in the run's summary).
pytestmark = pytest.mark.filterwarnings(f"error:{OLD_REWARD}:DeprecationWarning")


def _refused(capsys, argv: list[str]) -> str:
    """Run ``training.selfplay`` with ``argv``; assert one ``error:`` line and exit code 2; return the message."""
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err.removeprefix("error: ").rstrip("\n")


def _without_missing_paths(data: dict) -> dict:
    """``data`` (a config) with each policy spec that names a path not on this machine (``runs/...`` and
    ``/work/cand/...`` of the runs that made the shipped files) replaced by a stand-in baseline of its own, so that
    the rest of it can be validated."""
    data = json.loads(json.dumps(data))
    pool, ev = data.get("pool", {}), data.get("eval", {})
    specs = [*pool.get("scripted", {}), *ev.get("opponents", [])]
    gone = [s for s in dict.fromkeys(specs) if "/" in s and not (REPO / s).exists() and not Path(s).exists()]
    stand_in = {spec: f"threshold:T={20 + i}" for i, spec in enumerate(gone)}

    def swap(spec: str) -> str:
        return stand_in.get(spec, spec)

    for parent, key in ((pool, "scripted"), (pool.get("league", {}), "targets")):
        if key in parent:
            parent[key] = {swap(k): v for k, v in parent[key].items()}
    if "opponents" in ev:
        ev["opponents"] = [swap(s) for s in ev["opponents"]]
        ev["best_metric"] = swap(ev.get("best_metric", "heuristic"))
    return data


# --------------------------------------------------------------------------- 1. ppo.batch_size
def test_a_batch_size_that_leaves_a_one_step_minibatch_is_refused():
    """``ppo.batch_size=7`` on the smoke config's rollout of 512 (16 games x 32 steps): 73 minibatches of 7 and one
    of a single step, whose advantage normalization (std of one value) is NaN: the run crashed mid-way."""
    with pytest.raises(ConfigError) as e:
        load_config(SMOKE, ["ppo.batch_size=7"])
    assert str(e.value) == (
        f"invalid config {SMOKE} with overrides ['ppo.batch_size=7']: ppo.batch_size: expected a divisor of the "
        "rollout size 512 (ppo.n_steps 32 x 16 envs), or at least a size that leaves no last minibatch of a single "
        "step (its advantages normalize to NaN), got 7 (512 = 73 x 7 + 1); the nearest divisors are 4 and 8"
    )


def test_a_batch_size_larger_than_the_rollout_names_the_rollout():
    with pytest.raises(ConfigError) as e:
        load_config(SMOKE, ["ppo.batch_size=1024"])
    assert str(e.value).endswith(
        "ppo.batch_size: expected a divisor of the rollout size 512 (ppo.n_steps 32 x 16 envs), got 1024 (more than "
        "the rollout); the nearest divisor is 512"
    )


def test_a_mixed_count_rollout_names_its_player_counts():
    with pytest.raises(ConfigError) as e:  # 3 x 192 x 8 = 4608 = 1151 x 4 + 4 ... and 4608 = 4607 + 1
        load_config(CONFIG_DIR / "selfplay_mixed.yaml", ["ppo.batch_size=4607"])
    assert str(e.value).endswith(
        "ppo.batch_size: expected a divisor of the rollout size 4608 (ppo.n_steps 8 x 576 envs: env.games_per_count "
        "192 x 3 player counts), or at least a size that leaves no last minibatch of a single step (its advantages "
        "normalize to NaN), got 4607 (4608 = 1 x 4607 + 1); the nearest divisors are 2304 and 4608"
    )


def test_a_batch_size_of_seven_is_refused_before_a_run_folder_exists(tmp_path, capsys):
    message = _refused(capsys, [str(SMOKE), "--set", f"run.runs_dir={tmp_path}", "--set", "ppo.batch_size=7"])
    assert "ppo.batch_size: expected a divisor of the rollout size 512 (ppo.n_steps 32 x 16 envs)" in message
    assert list(tmp_path.iterdir()) == []


def test_a_sweep_grid_with_a_one_step_minibatch_is_refused(tmp_path):
    """The sweep checks every grid value against its base config: 7 on selfplay.yaml's 4096 = 585 x 7 + 1."""
    from training.sweep import load_sweep

    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(
        f"base: {CONFIG_DIR / 'selfplay.yaml'}\nspace:\n  ppo.batch_size: {{grid: [7, 4096]}}\n", encoding="utf-8"
    )
    with pytest.raises(ConfigError) as e:
        load_sweep(sweep)
    assert str(e.value).startswith('space."ppo.batch_size": invalid config ')
    assert str(e.value).endswith(
        "ppo.batch_size: expected a divisor of the rollout size 4096 (ppo.n_steps 8 x 512 envs), or at least a size "
        "that leaves no last minibatch of a single step (its advantages normalize to NaN), got 7 "
        "(4096 = 585 x 7 + 1); the nearest divisors are 4 and 8"
    )
    sweep.write_text(
        f"base: {CONFIG_DIR / 'selfplay.yaml'}\nspace:\n  ppo.batch_size: {{grid: [512, 4096]}}\n", encoding="utf-8"
    )
    assert load_sweep(sweep)[0].space["ppo.batch_size"].grid == [512, 4096]


@pytest.mark.parametrize("path", SHIPPED_SELFPLAY, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_shipped_selfplay_config_still_validates(path):
    """configs/ and docs/experiments/: the two experiment files that name exploiters kept under runs/ (not shipped)
    are validated without those members."""
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=config_module.ConfigLoader)
    cfg = config_from_dict(_without_missing_paths(data), source=str(path))
    assert cfg.rollout_steps % cfg.ppo.batch_size != 1


@pytest.mark.parametrize("path", sorted(REPO.glob("checkpoints/*/metadata.json")), ids=lambda p: p.parent.name)
def test_the_configs_recorded_with_the_shipped_checkpoints_still_validate(path):
    """What a resume of the runs that made them would read (a dump: every key, defaults included)."""
    data = json.loads(path.read_text(encoding="utf-8")).get("config")
    if data is None:
        pytest.skip("no config recorded (a merged network: its metadata records its members instead)")
    if data["env"]["reward"] != "win":
        assert config_from_dict(_without_missing_paths(data), source=str(path)).env.reward == data["env"]["reward"]
        return
    with pytest.warns(DeprecationWarning, match=OLD_REWARD):  # recorded before 0.2: read as win_share, with a warning
        assert config_from_dict(_without_missing_paths(data), source=str(path)).env.reward == "win_share"


# --------------------------------------------------------------------------- 2. run.runs_dir and dotted flags
@pytest.mark.parametrize("value", ["", " "])
def test_an_empty_runs_dir_is_refused(value):
    with pytest.raises(ConfigError) as e:
        load_config(SMOKE, [f"run.runs_dir={json.dumps(value) if value else ''}"])
    assert str(e.value).endswith(
        f"run.runs_dir: expected the path of a folder to hold the run folders (e.g. runs), got {value!r}"
    )


def test_an_empty_runs_dir_makes_no_run_folder_in_the_current_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    message = _refused(capsys, [str(SMOKE), "--set", "run.runs_dir="])
    assert message.endswith("run.runs_dir: expected the path of a folder to hold the run folders (e.g. runs), got ''")
    assert list(tmp_path.iterdir()) == []


def test_new_run_dir_refuses_an_empty_runs_dir_for_every_trainer(tmp_path, monkeypatch):
    from training.learning.runs import new_run_dir

    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"^run.runs_dir: expected the path of a folder to hold the run folders"):
        new_run_dir("", "x", 0)
    assert list(tmp_path.iterdir()) == []


def test_a_dotted_flag_does_not_take_the_next_option_as_its_value(tmp_path, monkeypatch, capsys):
    """``--run.runs_dir --set ...`` made a folder named ``--set``; ``--run.seed --ppo.n_steps 32`` said
    ``unrecognized arguments: 32``."""
    monkeypatch.chdir(tmp_path)
    message = _refused(capsys, [str(SMOKE), "--run.runs_dir", "--set", "run.seed=1"])
    assert message == "--run.runs_dir: expected a value after it, got '--set' (write --run.runs_dir=VALUE for a " \
        "value that starts with '--')"  # fmt: skip
    assert list(tmp_path.iterdir()) == []
    message = _refused(capsys, ["--run.seed", "--ppo.n_steps", "32"])
    assert message.startswith("--run.seed: expected a value after it, got '--ppo.n_steps'")
    message = _refused(capsys, ["--run.seed"])
    assert message == "--run.seed: expected a value after it, got nothing (the command line ends)"


def test_a_dotted_flag_still_takes_a_negative_number_or_an_equals_value():
    assert dotted_flags_as_set(["--run.seed", "-3"]) == ["--set", "run.seed=-3"]
    assert dotted_flags_as_set(["--run.name=--x"]) == ["--set", "run.name=--x"]


# --------------------------------------------------------------------------- 3. YAML 1.2 numbers and booleans
HINT = "no leading zeros, 0x/0o/0b prefixes or ':'; '_' only between digits"


@pytest.mark.parametrize("value", ["010", "09", "0x10", "0o10", "0b10", "1:30", "-07", "1__000", "1_"])
def test_an_int_written_other_than_in_plain_decimal_is_refused(value):
    """``--set run.seed=010`` ran seed 8 (YAML 1.1 octal), ``0x10`` 16, ``1:30`` 90 (base 60)."""
    with pytest.raises(ConfigError) as e:
        load_config(SMOKE, [f"run.seed={value}"])
    assert str(e.value).endswith(f"run.seed: expected an int in plain decimal ({HINT}), got {value!r}")


@pytest.mark.parametrize("value", ["010", "0x10", "1:30.5"])
def test_a_float_written_other_than_in_plain_decimal_is_refused(value):
    """``ppo.learning_rate=010`` was 8.0, ``1:30.5`` 90.5; pydantic would read the text '010' as 10.0."""
    with pytest.raises(ConfigError) as e:
        load_config(SMOKE, [f"ppo.learning_rate={value}"])
    assert str(e.value).endswith(f"ppo.learning_rate: expected a number in plain decimal ({HINT}), got {value!r}")


@pytest.mark.parametrize("value", ["yes", "no", "on", "off", "Yes", "ON"])
def test_only_true_and_false_are_booleans(value):
    with pytest.raises(ConfigError) as e:
        load_config(SMOKE, [f"run.progress={value}"])
    assert str(e.value).endswith(f"run.progress: expected true or false (yes/no/on/off are text), got {value!r}")


def test_a_config_file_reads_numbers_and_booleans_by_the_same_rule(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("run:\n  seed: 010\n  progress: on\n", encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        load_config(bad)
    assert str(e.value) == (
        f"invalid config {bad}: run.seed: expected an int in plain decimal ({HINT}), got '010'; "
        "run.progress: expected true or false (yes/no/on/off are text), got 'on'"
    )


@pytest.mark.parametrize(
    "item, key, value",
    [
        ("run.seed=10", "seed", 10),
        ("run.seed=+7", "seed", 7),
        ("run.seed=1_000", "seed", 1000),  # digit groups, as Python and the shipped configs (6_000_000) write them
        ("run.progress=TRUE", "progress", True),
        ("run.progress=False", "progress", False),
        ("run.name=010", "name", "010"),  # text stays the text written (YAML 1.1 made it the int 8: refused)
        ("run.name=yes", "name", "yes"),
    ],
)
def test_plain_values_read_as_written(item, key, value):
    assert getattr(load_config(SMOKE, [item]).run, key) == value


def test_exponents_are_numbers_with_or_without_a_dot():
    cfg = load_config(SMOKE, ["ppo.learning_rate=1e-4", "ppo.ent_coef=2.5E-3", "ppo.max_grad_norm=1_000.5"])
    assert (cfg.ppo.learning_rate, cfg.ppo.ent_coef, cfg.ppo.max_grad_norm) == (1e-4, 2.5e-3, 1000.5)


def test_a_key_given_twice_in_one_override_mapping_is_refused():
    with pytest.raises(ConfigError) as e:
        load_config(SMOKE, ["pool.scripted={random: 1, random: 2}"])
    assert str(e.value) == (
        "override pool.scripted: value '{random: 1, random: 2}': line 1: key 'random' written twice in one mapping "
        "(first at line 1): expected each key once"
    )


@pytest.mark.parametrize("path", SHIPPED_YAML, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_shipped_yaml_reads_the_same_under_the_new_rules(path):
    text = path.read_text(encoding="utf-8")
    assert yaml.load(text, Loader=config_module.ConfigLoader) == yaml.safe_load(text)


@pytest.mark.parametrize("name", ["1e5", "yes", "010", "0x10", "true", "null", ".inf", "1_000"])
def test_a_dumped_config_keeps_text_that_looks_like_a_number_or_a_boolean(tmp_path, name):
    """run.name is any text of [A-Za-z0-9_.-]: dumped and read back (a resume) it is the same text, under the new
    rules and the old ones (tools that read config.yaml with yaml.safe_load)."""
    try:
        cfg = load_config(SMOKE, [f'run.name="{name}"'])
    except ConfigError:
        pytest.skip(f"{name!r} is not a run name")
    dump_config(cfg, tmp_path / "config.yaml")
    assert load_config(tmp_path / "config.yaml").run.name == name
    assert yaml.safe_load((tmp_path / "config.yaml").read_text(encoding="utf-8"))["run"]["name"] == name


# --------------------------------------------------------------------------- 4. weighting-specific league keys
@pytest.mark.parametrize(
    "config, item, message",
    [
        (
            "selfplay.yaml",
            "pool.league.temperature=0.1",
            "pool.league.temperature: only used with pool.league.weighting 'target', got weighting 'hard' and "
            "the override pool.league.temperature=0.1",
        ),
        (
            "selfplay_3pb.yaml",
            "pool.league.power=3",
            "pool.league.power: only used with pool.league.weighting 'hard', got weighting 'uniform' and "
            "the override pool.league.power=3.0",
        ),
        (
            "selfplay_3pt.yaml",
            "pool.league.power=1",
            "pool.league.power: only used with pool.league.weighting 'hard', got weighting 'target' and "
            "the override pool.league.power=1.0",
        ),
    ],
)
def test_an_override_of_a_key_the_weighting_does_not_use_is_refused(config, item, message):
    with pytest.raises(ConfigError) as e:
        load_config(CONFIG_DIR / config, [item])
    assert str(e.value).endswith(message)


def test_an_override_that_replaces_the_league_is_checked_too():
    with pytest.raises(ConfigError) as e:
        load_config(SMOKE, ["pool.league={weighting: variance, temperature: 0.1}"])
    assert str(e.value).endswith(
        "pool.league.temperature: only used with pool.league.weighting 'target', got weighting 'variance' and "
        "the override pool.league.temperature=0.1"
    )


def test_keys_the_weighting_uses_and_files_are_not_refused(tmp_path):
    assert load_config(CONFIG_DIR / "selfplay.yaml", ["pool.league.power=3"]).pool.league.power == 3.0
    cfg = load_config(CONFIG_DIR / "selfplay_3pt.yaml", ["pool.league.temperature=0.05"])
    assert cfg.pool.league.temperature == 0.05
    # a file's power under 'uniform' (configs/selfplay_3pb.yaml and six more ship one) and a run's dump of it
    cfg = load_config(CONFIG_DIR / "selfplay_3pb.yaml")
    assert (cfg.pool.league.weighting, cfg.pool.league.power) == ("uniform", 1.0)
    dump_config(cfg, tmp_path / "config.yaml")
    assert load_config(tmp_path / "config.yaml").pool.league.power == 1.0
    # an override of the weighting leaves the file's keys as they are
    assert load_config(CONFIG_DIR / "selfplay.yaml", ["pool.league.weighting=uniform"]).pool.league.power == 2.0


def test_a_resume_that_overrides_an_unused_league_key_is_refused(tmp_path, capsys):
    from training.learning import runs

    cfg = load_config(CONFIG_DIR / "selfplay_3pb.yaml")
    run_dir = tmp_path / "run"
    (run_dir / "checkpoints").mkdir(parents=True)
    dump_config(cfg, run_dir / runs.CONFIG_FILE)
    message = _refused(capsys, ["--resume", str(run_dir), "--set", "pool.league.temperature=0.5"])
    assert message.endswith(
        "pool.league.temperature: only used with pool.league.weighting 'target', got weighting 'uniform' and "
        "the override pool.league.temperature=0.5"
    )


def test_a_sweep_space_of_an_unused_league_key_is_refused(tmp_path):
    from training.sweep import load_sweep

    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(
        f"base: {CONFIG_DIR / 'selfplay.yaml'}\nspace:\n  pool.league.temperature: {{grid: [0.1]}}\n", encoding="utf-8"
    )
    with pytest.raises(ConfigError) as e:
        load_sweep(sweep)
    assert str(e.value).endswith(
        "pool.league.temperature: only used with pool.league.weighting 'target', got weighting 'hard' and "
        "the override pool.league.temperature=0.1"
    )


def test_a_temperature_override_on_the_command_line_makes_no_run_folder(tmp_path, capsys):
    message = _refused(capsys, [str(SMOKE), "--run.runs_dir", str(tmp_path), "--pool.league.temperature", "0.1"])
    assert message.endswith("pool.league.temperature: only used with pool.league.weighting 'target', got weighting "
                            "'hard' and the override pool.league.temperature=0.1")  # fmt: skip
    assert list(tmp_path.iterdir()) == []
