"""Configs: every shipped YAML validates; unknown or ill-typed keys and bad overrides are clear errors."""

from __future__ import annotations

import pytest
import yaml
from pydantic import ValidationError

from training.config import (
    CONFIG_DIR,
    ConfigError,
    dotted_flags_as_set,
    dump_config,
    load_config,
    parse_overrides,
    split_dotted_flags,
)

SELFPLAY_CONFIGS = sorted(p for p in CONFIG_DIR.glob("*.yaml") if not p.name.startswith(("rllib", "sweep")))


@pytest.mark.parametrize("path", SELFPLAY_CONFIGS, ids=lambda p: p.name)
def test_shipped_configs_validate(path):
    cfg = load_config(path)
    assert cfg.ppo.batch_size <= cfg.n_envs * cfg.ppo.n_steps


@pytest.mark.parametrize("name", ["rllib.yaml", "rllib_smoke.yaml"])
def test_shipped_rllib_configs_validate(name):
    from training.rllib_config import RLlibConfig

    cfg = load_config(CONFIG_DIR / name, model=RLlibConfig)
    assert cfg.num_players == 3 and cfg.ppo.minibatch_size <= cfg.ppo.train_batch_size
    assert cfg.module_ids() == ["learner", *(f"snapshot_{i}" for i in range(cfg.pool.snapshots))]


def test_shipped_sweep_validates_against_its_base():
    from training.sweep import load_sweep

    sweep, base = load_sweep(CONFIG_DIR / "sweep.yaml")
    assert base == CONFIG_DIR / "selfplay.yaml"
    assert list(sweep.space) == ["ppo.learning_rate", "ppo.ent_coef", "pool.snapshot_weight"]
    assert sweep.space["ppo.learning_rate"].grid == [1.0e-4, 3.0e-4]


def test_default_config_is_three_players_standard_rules():
    cfg = load_config()
    assert cfg.game.num_players == [3]
    g = cfg.game.game_config(3)
    assert (g.lowest_card, g.highest_card, g.num_removed, g.chips_per_player, g.opponent_chips) == (
        3,
        35,
        9,
        11,
        "hidden",
    )
    assert cfg.run.torch_threads == 1 and cfg.env.reward == "win_share"


def test_variant_configs():
    assert load_config(CONFIG_DIR / "selfplay_4p.yaml").game.num_players == [4]
    assert load_config(CONFIG_DIR / "selfplay_5p.yaml").game.num_players == [5]
    assert len(load_config(CONFIG_DIR / "selfplay_mixed.yaml").game.num_players) > 1


def test_overrides_and_dotted_flags():
    rest, dotted = split_dotted_flags(["cfg.yaml", "--ppo.learning_rate", "1e-4", "--run.seed=3", "--resume", "x"])
    assert rest == ["cfg.yaml", "--resume", "x"] and dotted == ["ppo.learning_rate=1e-4", "run.seed=3"]
    cfg = load_config(None, [*dotted, "ppo.net_arch=[64, 32]", "game.num_players=4", "pool.scripted={random: 1}"])
    assert cfg.ppo.learning_rate == pytest.approx(1e-4) and cfg.run.seed == 3
    assert cfg.ppo.net_arch == [64, 32] and cfg.game.num_players == [4] and cfg.pool.scripted == {"random": 1.0}
    assert parse_overrides(["a.b.c=x"]) == {"a": {"b": {"c": "x"}}}


@pytest.mark.parametrize(
    "text, message",
    [
        ("ppo: {learning_rat: 0.1}", "ppo.learning_rat: unknown key"),
        ("ppo: {learning_rate: fast}", "ppo.learning_rate: expected a number, got 'fast'"),
        ("ppo: {n_epochs: 0}", "ppo.n_epochs: expected an int >= 1, got 0"),
        ("game: {num_players: 9}", "game.num_players: expected player counts in 3..7, got 9"),
        ("game: {num_removed: 40}", "game.num_removed: expected an int in 0..32"),
        ("trainer: {}", "trainer: unknown key, expected one of the sections (run, game, env, pool, ppo, eval)"),
        ("eval: {best_metric: search}", "eval.best_metric: expected 'min' or one of"),
        ("ppo: {batch_size: 100000}", "ppo.batch_size: expected a divisor of the rollout size 4096"),
        ("- just\n- a list", "expected a mapping"),
        ("ppo: [unclosed", "not valid YAML: line 1, column 15: expected ',' or ']', but got '<stream end>'"),
        ("run: 5\n# pasted\nrun:\n  seed: 3\n", "line 3: key 'run' written twice in one mapping (first at line 1)"),
        (
            "pool: {scripted: {random: 1}, league: {weighting: target}}",
            "pool.league.targets: expected a target win share for every scripted member and lineup, missing ['random']",
        ),
        (
            "pool: {scripted: {random: 1}, league: {weighting: target, targets: {random: 0.9, heuristic: 0.5}}}",
            "pool.league.targets: expected only scripted members and lineups ['random'], got ['heuristic'] as well",
        ),
        (
            "pool: {scripted: {random: 1}, league: {targets: {random: 0.9}}}",
            "pool.league.targets: only used with pool.league.weighting 'target', got weighting 'hard'",
        ),
        ("pool: {league: {temperature: 0}}", "pool.league.temperature: expected a number > 0.0, got 0"),
        (
            "pool: {scripted: {random: 1, utility: 1}, homogeneous: 0.5, lineups: {random+heuristic: 1}}",
            "pool.lineups: expected two or more members of pool.scripted joined by '+', got 'random+heuristic' "
            "(no member from 'heuristic' on; members: random, utility)",
        ),
        (
            "pool: {scripted: {stochastic: 1, utility: 1}, homogeneous: 0.5, lineups: {utility+stochastic: 1}}",
            "pool.lineups: expected no held-out table (training.evaluation.heldout; kept out of training and "
            "selection), got 'utility+stochastic', which seats the bots of the held-out table 'stochastic+utility'",
        ),
        (  # the same bots with stochastic's defaults spelled out
            "pool: {scripted: {'stochastic:T=5,temp=3': 1, utility: 1}, homogeneous: 0.5,"
            " lineups: {'stochastic:T=5,temp=3+utility': 1}}",
            "got 'stochastic:T=5,temp=3+utility', which seats the bots of the held-out table 'stochastic+utility'",
        ),
        (
            "pool: {scripted: {random: 1, utility: 1}, homogeneous: 0.5,"
            " lineups: {random+utility: 1, utility+random: 1}}",
            "pool.lineups: expected each table once, got 'random+utility' and 'utility+random', "
            "which seat the same bots",
        ),
        (
            "pool: {scripted: {random: 1, utility: 1}, lineups: {random+utility: 1}}",
            "pool.lineups: a lineup fills a table on the pool.homogeneous share of tables, expected "
            "pool.homogeneous > 0, got 0.0",
        ),
        (
            "pool: {scripted: {random: 1, utility: 1}, homogeneous: 0.5, lineups: {random+utility: -1}}",
            "pool.lineups: expected weights >= 0, got {'random+utility': -1.0}",
        ),
        (
            "pool: {scripted: {random: 1, utility: 1}, homogeneous: 0.5, lineups: {random+utility: 1},"
            " league: {weighting: target, targets: {random: 0.9, utility: 0.3}}}",
            "pool.league.targets: expected a target win share for every scripted member and lineup, "
            "missing ['random+utility']",
        ),
        (
            "ppo:\n  n_epochs: 2\n  n_epochs: 3\n",
            "line 3: key 'n_epochs' written twice in one mapping (first at line 2)",
        ),
    ],
)
def test_bad_config_is_a_clear_error(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert message in str(err.value)
    assert "bad.yaml" in str(err.value)


def test_every_config_error_is_one_clean_line_naming_key_expected_and_received():
    """Each problem is ``key: expected ..., got ...``; several are joined by ``; `` on one line after the source
    (the header used to end in ``:`` and a newline, which the command lines printed as ``:;``)."""
    with pytest.raises(ConfigError) as e:
        load_config(CONFIG_DIR / "smoke.yaml", ["ppo.n_steps=-1", "ppo.nsteps=3", "env.reward=foo", "ppo=3"])
    assert str(e.value) == (
        f"invalid config {CONFIG_DIR / 'smoke.yaml'} with overrides ['ppo.n_steps=-1', 'ppo.nsteps=3', "
        "'env.reward=foo', 'ppo=3']: env.reward: expected 'win_share' or 'penalty_diff', got 'foo'; "
        "ppo: expected a section (a mapping of its keys), got 3"
    )
    with pytest.raises(ConfigError) as e:
        load_config(CONFIG_DIR / "smoke.yaml", ["ppo.n_steps=-1", "ppo.nsteps=3", "run.name=a/b"])
    assert str(e.value).split(": ", 1)[1] == (
        "run.name: expected text matching ^[A-Za-z0-9_.-]+$, got 'a/b'; ppo.n_steps: expected an int >= 1, got -1; "
        "ppo.nsteps: unknown key, expected one of the keys of ppo (learning_rate, gamma, gae_lambda, clip_range, "
        "ent_coef, vf_coef, max_grad_norm, net_arch, activation, lr_schedule, lr_final_fraction, n_steps, "
        "batch_size, n_epochs, target_kl), got 'nsteps' (did you mean 'n_steps'?)"
    )
    for override, problem in [
        ("eval.best_metric=foo", "eval.best_metric: expected 'min' or one of ['heuristic', 'random'], got 'foo'"),
        ("run.critic_warmup=5", "run.critic_warmup: expected 0 without run.init_from (only a warm-started actor is "
         "held), got 5"),
        ("ppo.net_arch=[]", "ppo.net_arch: expected at least 1 item, got []"),
        ("ppo.net_arch=[64, 0]", "ppo.net_arch[1]: expected a value >= 1, got 0"),  # a zero-width layer trained
        ("ppo.learning_rate=-1", "ppo.learning_rate: expected a number > 0.0, got -1"),
    ]:  # fmt: skip
        with pytest.raises(ConfigError) as e:
            load_config(CONFIG_DIR / "smoke.yaml", [override])
        assert str(e.value) == f"invalid config {CONFIG_DIR / 'smoke.yaml'} with overrides [{override!r}]: {problem}"


def test_critic_warmup_as_long_as_the_run_is_refused_with_the_real_limit():
    # a warm-up that covers the whole run would train only the critic: refused, not run. The first message gives
    # the real limit (the start of the last rollout), not "fewer than run.total_timesteps", after which 4095
    # met a second refusal
    sets = ["run.init_from=ppo-3p", "run.total_timesteps=4096"]
    with pytest.raises(ConfigError) as e:
        load_config(CONFIG_DIR / "smoke.yaml", [*sets, "run.critic_warmup=4096"])
    assert str(e.value).split("]: ", 1)[1] == (
        "run.critic_warmup: expected at most 3,584 learner steps (the start of the last PPO rollout: "
        "run.total_timesteps 4,096 runs 8 whole rollouts of 512 learner steps, to 4,096, and the actor learns "
        "only in those that start at or after run.critic_warmup), got 4,096; write run.critic_warmup <= 3,584 or "
        "run.total_timesteps >= 4,097"
    )


def test_critic_warmup_past_the_start_of_the_last_rollout_is_refused():
    # smoke.yaml: rollouts of 16 x 1 x 32 = 512 learner steps. A warm-up of 4095 of 4096 steps held the actor for
    # all 8 updates (the last rollout starts at 3584) and the run ended as done with the actor untrained.
    sets = ["run.init_from=ppo-3p", "run.total_timesteps=4096"]
    for warmup in (3585, 4095):
        with pytest.raises(ConfigError) as e:
            load_config(CONFIG_DIR / "smoke.yaml", [*sets, f"run.critic_warmup={warmup}"])
        assert str(e.value).endswith(
            "run.critic_warmup: expected at most 3,584 learner steps (the start of the last PPO rollout: "
            "run.total_timesteps 4,096 runs 8 whole rollouts of 512 learner steps, to 4,096, and the actor learns "
            f"only in those that start at or after run.critic_warmup), got {warmup:,}; write run.critic_warmup <= "
            "3,584 or run.total_timesteps >= 4,097"
        )
    assert load_config(CONFIG_DIR / "smoke.yaml", [*sets, "run.critic_warmup=3584"]).run.critic_warmup == 3584
    # a total that is not a whole number of rollouts is rounded up first: 4000 runs to 4096 as well
    sets = ["run.init_from=ppo-3p", "run.total_timesteps=4000"]
    assert load_config(CONFIG_DIR / "smoke.yaml", [*sets, "run.critic_warmup=3584"]).run.critic_warmup == 3584
    with pytest.raises(ConfigError) as e:
        load_config(CONFIG_DIR / "smoke.yaml", [*sets, "run.critic_warmup=3585"])
    assert "run.total_timesteps 4,000 runs 8 whole rollouts of 512 learner steps, to 4,096" in str(e.value)


def test_bad_override_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="expected KEY.PATH=VALUE"):
        load_config(None, ["ppo.learning_rate"])
    with pytest.raises(ConfigError, match="run.sed: unknown key"):
        load_config(None, ["run.sed=1"])
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "missing.yaml")


def test_resolved_config_round_trips(tmp_path):
    from training.config import dump_config

    cfg = load_config(None, ["run.seed=7"])
    dump_config(cfg, tmp_path / "c.yaml")
    assert load_config(tmp_path / "c.yaml") == cfg
    assert yaml.safe_load((tmp_path / "c.yaml").read_text())["run"]["seed"] == 7


def test_preset_fills_the_game_section_and_the_yaml_overrides_it(tmp_path):
    cfg = load_config(CONFIG_DIR / "selfplay_match.yaml")
    assert cfg.game.preset == "match3" and cfg.game.num_deals == 3
    assert cfg.game.game_config(3).num_deals == 3
    dump_config(cfg, tmp_path / "c.yaml")  # a resume reads the resolved fields back: same rules
    assert load_config(tmp_path / "c.yaml").game.game_config(3) == cfg.game.game_config(3)
    path = tmp_path / "open.yaml"
    path.write_text("game:\n  preset: open_removed\n  num_removed: 5\n")
    g = load_config(path).game.game_config(3)
    assert (g.removed_face_up, g.num_removed, g.chips_per_player) == ((10, 20, 30), 5, 10)


@pytest.mark.parametrize(
    "text, message",
    [
        ("game:\n  preset: nope\n", "game.preset: expected one of ['match3', 'open_removed'"),
        (
            "game:\n  preset: wildcards\npool:\n  scripted: {utility: 1.0}\n",
            "pool.scripted: 'utility': expected a policy that plays special cards",
        ),
        (
            "game:\n  preset: wildcards\neval:\n  opponents: [ppo-3p]\n  best_metric: ppo-3p\n",
            "eval.opponents: 'ppo-3p': expected a policy that plays special cards",
        ),
    ],
)
def test_preset_errors_are_clear(tmp_path, text, message):
    # the wildcards preset itself trains (configs/selfplay_wildcards.yaml); pass/take-only bots cannot play it
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ValueError) as err:
        load_config(path)
    assert message in str(err.value)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("run.seed=true", "run.seed: expected an int, got True"),
        ("run.total_timesteps=false", "run.total_timesteps: expected an int, got False"),
        ("run.seed=3.5", "run.seed: expected an int, got 3.5"),
        ("game.num_players=[3, true]", "game.num_players[1]: expected an int, got True"),
        ("ppo.net_arch=[64, true]", "ppo.net_arch[1]: expected an int, got True"),
        ("run.progress=1", "run.progress: expected true or false, got 1"),
        ("ppo.learning_rate=true", "ppo.learning_rate: expected a number, got the boolean True"),
        ("ppo.clip_range=.inf", "ppo.clip_range: expected a finite number, got inf"),
        ("pool.scripted={random: true}", "pool.scripted.random: expected a number, got the boolean True"),
    ],
)
def test_booleans_floats_and_non_finite_numbers_are_refused_for_typed_keys(override, message):
    with pytest.raises(ConfigError) as e:
        load_config(CONFIG_DIR / "smoke.yaml", [override])
    assert message in str(e.value)


def test_numbers_still_read_as_documented():
    cfg = load_config(CONFIG_DIR / "smoke.yaml", ["ppo.learning_rate=1e-4", "pool.scripted={random: 1}"])
    assert cfg.ppo.learning_rate == 1e-4 and cfg.pool.scripted == {"random": 1.0}  # YAML reads 1e-4 as a string


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("pool.scripted={bogus: 1}", "pool.scripted: policy spec 'bogus': expected a baseline"),
        ("pool.scripted={threshold:X=1: 1}", "pool.scripted: policy spec 'threshold:X=1': threshold takes parameters"),
        ("eval.opponents=[heuristic, ./no/such/ckpt]", "eval.opponents: policy spec './no/such/ckpt': the path"),
        ("eval.opponents=[heuristic, ppo-4p]", "eval.opponents: policy spec 'ppo-4p': expected a policy for 3 players"),
    ],
)
def test_policy_specs_are_validated_with_the_config(override, message):
    with pytest.raises(ConfigError) as e:
        load_config(CONFIG_DIR / "smoke.yaml", [override])
    assert message in str(e.value)
    assert "(got {" not in str(e.value)  # a check across keys does not dump the whole section


def test_old_reward_name_win_is_read_as_win_share_with_a_warning():
    cfg = load_config(CONFIG_DIR / "selfplay.yaml")
    with pytest.warns(DeprecationWarning, match="'win' is deprecated: it means 'win_share'"):
        cfg.env.reward = "win"
    assert cfg.env.reward == "win_share"
    with pytest.raises(ValidationError):
        cfg.env.reward = "rank"  # a nothanks_v0 mode, not a self-play one


def test_game_section_holds_every_rule_field_of_game_config():
    import dataclasses

    from nothanks_env.game import GameConfig
    from training.config import GameSection

    rules = {f.name for f in dataclasses.fields(GameConfig)} - {"num_players", "starting_seat"}
    assert rules <= set(GameSection.model_fields)
    section = GameSection()
    assert section.game_config(4) == GameConfig(num_players=4)
    varied = GameSection(num_removed=5, removed_face_up=[10, 20], num_deals=2, opponent_chips="visible")
    assert varied.game_config(3) == GameConfig(
        num_players=3, num_removed=5, removed_face_up=(10, 20), num_deals=2, opponent_chips="visible"
    )
    with pytest.raises(ValidationError, match="num_removed"):
        GameSection(num_removed=True)  # strict ints, as every other int key


@pytest.mark.parametrize(
    ("override", "message"),
    [
        # numpy's MemoryError after the run folder was made, before the bound
        ("env.games_per_count=100000000", "env.games_per_count: expected an int <= 65536, got 100000000"),
        # trained one whole rollout (512 learner steps here) instead, silently
        (
            "run.total_timesteps=10",
            "run.total_timesteps: expected at least one PPO rollout of 512 learner steps (env.games_per_count x "
            "player counts x ppo.n_steps = 16 x 1 x 32; training goes in whole rollouts), got 10",
        ),
        # named the best metric the bad spec broke instead of the spec
        ("eval.opponents=[nosuch]", "eval.opponents: policy spec 'nosuch': expected a baseline"),
        ("eval.opponents=[random, ./no/such/ckpt]", "eval.opponents: policy spec './no/such/ckpt': the path"),
    ],
)
def test_values_out_of_reach_are_refused_naming_the_key(override, message):
    with pytest.raises(ConfigError) as e:
        load_config(CONFIG_DIR / "smoke.yaml", [override])
    assert str(e.value).startswith(
        f"invalid config {CONFIG_DIR / 'smoke.yaml'} with overrides [{override!r}]: {message}"
    )


def test_the_bounds_themselves_are_accepted():
    from training.config import MAX_GAMES_PER_COUNT

    assert MAX_GAMES_PER_COUNT == 65_536
    cfg = load_config(CONFIG_DIR / "smoke.yaml", ["run.total_timesteps=512"])  # exactly one rollout
    assert cfg.run.total_timesteps == cfg.n_envs * cfg.ppo.n_steps == 512
    sets = ["game.num_players=[3, 4]", "run.total_timesteps=1024"]  # two counts: two slots per game index
    assert load_config(CONFIG_DIR / "smoke.yaml", sets).n_envs * 32 == 1024
    short = r"rollout of 1,024 learner steps \(env.games_per_count x player counts x ppo.n_steps = 16 x 2 x 32;"
    short += r".*got 1,023"
    with pytest.raises(ConfigError, match=short):
        load_config(CONFIG_DIR / "smoke.yaml", [*sets[:1], "run.total_timesteps=1023"])
    # a right opponent list with a best metric outside it is still the metric's error
    with pytest.raises(ConfigError, match=r"eval.best_metric: expected 'min' or one of \['random'\], got 'heuristic'"):
        load_config(CONFIG_DIR / "smoke.yaml", ["eval.opponents=[random]"])


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "expected a mapping of config sections, got an empty file"),  # was the whole default config
        (b"# only a comment\n\n", "expected a mapping of config sections, got an empty file"),
        (b"run:\n  name: caf\xe9\n", "expected UTF-8 text, got the byte 0xe9 on line 2 (byte 17)"),  # named no file
    ],
    ids=["empty", "comments", "latin-1"],
)
def test_an_empty_or_undecodable_config_file_is_refused_naming_it(tmp_path, content, message):
    path = tmp_path / "c.yaml"
    path.write_bytes(content)
    with pytest.raises(ConfigError) as e:
        load_config(path)
    assert str(e.value) == f"config file {path}: {message}"
    (tmp_path / "explicit.yaml").write_text("{}\n")  # an explicit empty mapping still means every default
    assert load_config(tmp_path / "explicit.yaml").run.name == "selfplay"


@pytest.mark.parametrize("text", ["", "  "])
def test_an_empty_config_path_is_refused(text):
    with pytest.raises(ConfigError) as e:
        load_config(text)
    assert str(e.value) == f"config file: expected the path of a YAML file, got {text!r}"


PRESET_LIST = "['match3', 'open_removed', 'six_player_one_removed', 'standard', 'visible_chips', 'wildcards']"


@pytest.mark.parametrize(
    ("override", "problem"),
    [
        ("game.preset=wildcard", f"game.preset: expected one of {PRESET_LIST}, got 'wildcard' "
         "(did you mean 'wildcards'?)"),
        ("game.preset=[wildcards]", f"game.preset: expected one of {PRESET_LIST}, got ['wildcards']"),  # TypeError
        ("game.preset=nope", f"game.preset: expected one of {PRESET_LIST}, got 'nope'"),  # nothing close: no guess
        ("ppo.activation=rel", "ppo.activation: expected 'tanh' or 'relu', got 'rel' (did you mean 'relu'?)"),
        ("pool.league.weighting=hrad", "pool.league.weighting: expected 'hard', 'variance', 'uniform' or 'target', "
         "got 'hrad' (did you mean 'hard'?)"),
        ("run.collector=proces", "run.collector: expected 'process' or 'inline', got 'proces' "
         "(did you mean 'process'?)"),
        ("game.opponent_chips=visibel", "game.opponent_chips: expected 'hidden' or 'visible', got 'visibel' "
         "(did you mean 'visible'?)"),
        ("eval.best_metric=heuristc", "eval.best_metric: expected 'min' or one of ['heuristic', 'random'], "
         "got 'heuristc' (did you mean 'heuristic'?)"),
        ("ppo.activation=xyz", "ppo.activation: expected 'tanh' or 'relu', got 'xyz'"),
    ],
)  # fmt: skip
def test_a_misspelt_closed_choice_suggests_the_closest_value(override, problem):
    # --preset on the command lines said "did you mean"; the config's game.preset (and its Literal keys) did not
    with pytest.raises(ConfigError) as e:
        load_config(CONFIG_DIR / "smoke.yaml", [override])
    assert str(e.value) == f"invalid config {CONFIG_DIR / 'smoke.yaml'} with overrides [{override!r}]: {problem}"


def test_the_config_says_of_a_preset_what_the_preset_option_says():
    from nothanks_env.presets import preset_problem

    with pytest.raises(ConfigError) as e:
        load_config(CONFIG_DIR / "smoke.yaml", ["game.preset=wildcard"])
    assert str(e.value).endswith(f"game.preset: {preset_problem('wildcard')}")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "pool:\n  scripted:\n    {heuristic:1.5}\n",
            "pool.scripted: entry 'heuristic:1.5' has no weight (YAML needs a space after the colon): "
            "expected 'heuristic: 1.5', got 'heuristic:1.5'",
        ),
        (
            "pool:\n  scripted:\n    heuristic:1.5:\n    random: 1\n",
            "pool.scripted: entry 'heuristic:1.5' has no weight (YAML needs a space after the colon): "
            "expected 'heuristic: 1.5', got 'heuristic:1.5'",
        ),
        (
            "pool:\n  scripted:\n    heuristic:2\n",  # the whole mapping read as one string
            "pool.scripted: entry 'heuristic:2' has no weight (YAML needs a space after the colon): "
            "expected 'heuristic: 2', got 'heuristic:2'",
        ),
        (
            "pool:\n  scripted: {random: 1, threshold:T=5:.5}\n",
            "pool.scripted: entry 'threshold:T=5:.5' has no weight (YAML needs a space after the colon): "
            "expected 'threshold:T=5: .5', got 'threshold:T=5:.5'",
        ),
        (
            "pool:\n  scripted: {heuristic: 1, random: 1}\n  league:\n    weighting: target\n"
            "    targets: {heuristic:0.4, random: 0.9}\n",
            "pool.league.targets: entry 'heuristic:0.4' has no target (YAML needs a space after the colon): "
            "expected 'heuristic: 0.4', got 'heuristic:0.4'",
        ),
    ],
)
def test_a_pool_entry_without_a_space_after_its_colon_says_so(tmp_path, text, problem):
    # YAML reads {heuristic:1.5} as the key 'heuristic:1.5' with no value: the error used to be
    # "pool.scripted.heuristic:1.5: expected a number, got None"
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as e:
        load_config(path)
    assert str(e.value) == f"invalid config {path}: {problem}"


def test_a_pool_override_without_a_space_after_its_colon_says_so():
    with pytest.raises(ConfigError) as e:
        load_config(CONFIG_DIR / "smoke.yaml", ["pool.scripted={heuristic:1.5}"])
    assert str(e.value).endswith(
        ": pool.scripted: entry 'heuristic:1.5' has no weight (YAML needs a space after the colon): "
        "expected 'heuristic: 1.5', got 'heuristic:1.5'"
    )
    # written with the space, or with a value, the same entries load
    cfg = load_config(CONFIG_DIR / "smoke.yaml", ["pool.scripted={heuristic: 1.5, threshold:T=5: 2}"])
    assert cfg.pool.scripted == {"heuristic": 1.5, "threshold:T=5": 2.0}
    with pytest.raises(ConfigError) as e:  # no value, but not NAME:NUMBER: the usual error, the key as --set quotes it
        load_config(CONFIG_DIR / "smoke.yaml", ["pool.scripted={threshold:T=5}"])
    assert str(e.value).endswith(': pool.scripted."threshold:T=5": expected a number, got None')


def test_the_rounding_of_total_timesteps_to_whole_rollouts_is_said():
    # 16,000,000 learner steps in rollouts of 512 x 8 = 4,096 used to become 16,003,072 without a word
    sets = ["env.games_per_count=512", "ppo.n_steps=8", "ppo.batch_size=1024"]
    cfg = load_config(CONFIG_DIR / "smoke.yaml", [*sets, "run.total_timesteps=16000000"])
    assert cfg.rollout_steps == 4096 and cfg.planned_timesteps() == 16_003_072
    assert cfg.rounding_note() == (
        "run.total_timesteps 16,000,000 rounded up to 16,003,072: training goes in whole rollouts of 4,096 "
        "learner steps"
    )
    assert cfg.planned_timesteps(start=4000) == 4000 + 3906 * 4096  # a resume counts from its checkpoint
    assert cfg.rounding_note(start=16_000_000) is None  # nothing left to train
    whole = load_config(CONFIG_DIR / "smoke.yaml", [*sets, f"run.total_timesteps={3906 * 4096}"])
    assert whole.planned_timesteps() == 3906 * 4096 and whole.rounding_note() is None  # nothing to say


def test_changed_key_names_the_entry_inside_a_section_that_differs():
    from training.learning.config import changed_key

    saved = {"game": {"preset": "standard", "num_players": [3], "chips": None}, "env": {"chip_memory": True}}
    mine = {"game": {"preset": "standard", "num_players": [4], "chips": None}, "env": {"chip_memory": True}}
    assert changed_key(saved, mine, ["env.chip_memory", "game"]) == ("game.num_players", [3], [4])
    mine["game"]["num_players"] = [3]
    assert changed_key(saved, mine, ["env.chip_memory", "game"]) is None
    mine["game"]["extra"] = 1  # an entry only the new config has
    assert changed_key(saved, mine, ["game"]) == ("game.extra", None, 1)


# --------------------------------------------------------------------------- quoted key parts in overrides
HINT = "quote a key part that holds '.' or '=': pool.scripted.\"threshold:T=2\"=1.5"


def test_a_quoted_key_part_is_taken_literally():
    # pool entries are policy specs that hold '=' (and '.'): the key was split at every '.' and the item at
    # its first '=', so pool.scripted.threshold:T=2=1.5 set 'threshold:T' to '2=1.5'
    items = [
        'pool.scripted."threshold:T=2"=1.5',
        'pool.league.targets."ratio:r=0.3"=0.8',
        'pool.scripted."runs/a.b/checkpoints/final"=2',  # a '.' inside quotes is no separator either
        "eval.opponents=[heuristic, 'threshold:T=2']",  # quotes in the value are YAML's, as before
        "a.b=c=d",  # the value is everything after the first '='
    ]
    assert parse_overrides(items) == {
        "pool": {
            "scripted": {"threshold:T=2": 1.5, "runs/a.b/checkpoints/final": 2},
            "league": {"targets": {"ratio:r=0.3": 0.8}},
        },
        "eval": {"opponents": ["heuristic", "threshold:T=2"]},
        "a": {"b": "c=d"},
    }


@pytest.mark.parametrize(
    "item, problem",
    [
        ('pool.scripted."threshold:T=2=1.5', "the quote at character 15 is never closed"),
        ('pool.scripted."threshold:T=2"', "no '=' outside the quotes"),
        ('pool.scripted.""=1', "an empty quoted key part at character 15"),
        ("pool..scripted=1", "an empty key part at character 6"),
        ("=1", "an empty key part at character 1"),
        ("pool.scripted.=1", "an empty key part at character 15"),
        ('pool.scri"pted"=1', "a quote at character 10 inside a key part: quote the whole part"),
        ('pool."scripted.x"y=1', "'y' at character 18 after a closing quote: expected '.' or '='"),
        # one spelling per key (training.exploit's check of the keys it sets compares them as text)
        (
            'pool."snapshot_weight"=0.3',
            "quotes around 'snapshot_weight', which holds neither '.' nor '=': write it without them",
        ),
    ],
)
def test_a_malformed_override_key_says_how_to_quote_it(item, problem):
    with pytest.raises(ConfigError) as e:
        parse_overrides([item])
    assert str(e.value) == f"override: expected KEY.PATH=VALUE ({HINT}), got {item!r} ({problem})"


def test_an_override_without_equals_is_refused_as_before():
    with pytest.raises(ConfigError) as e:
        parse_overrides(["ppo.n_steps"])
    assert str(e.value) == "override: expected KEY.PATH=VALUE, got 'ppo.n_steps'"


def test_a_quoted_pool_entry_reaches_the_validated_config():
    cfg = load_config(CONFIG_DIR / "smoke.yaml", ['pool.scripted."threshold:T=2"=1.5'])
    assert cfg.pool.scripted["threshold:T=2"] == 1.5
    cfg = load_config(
        CONFIG_DIR / "smoke.yaml",
        [
            "pool.scripted={heuristic: 1}",
            'pool.scripted."ratio:r=0.3"=0.5',
            "pool.league.weighting=target",
            "pool.league.targets.heuristic=0.5",
            'pool.league.targets."ratio:r=0.3"=0.8',
        ],
    )
    assert cfg.pool.scripted == {"heuristic": 1.0, "ratio:r=0.3": 0.5}
    assert cfg.pool.league.targets == {"heuristic": 0.5, "ratio:r=0.3": 0.8}


def test_a_spec_key_cut_at_its_own_equals_sign_says_how_to_quote_it():
    with pytest.raises(ConfigError) as e:
        load_config(CONFIG_DIR / "smoke.yaml", ["pool.scripted.threshold:T=2=1.5"])
    assert str(e.value).endswith(
        "pool.scripted.threshold:T: expected a number, got '2=1.5' "
        "(quote a key that holds '=': pool.scripted.\"threshold:T=2\"=1.5)"
    )
    with pytest.raises(ConfigError) as e:  # an error about another key gets no such hint
        load_config(CONFIG_DIR / "smoke.yaml", ["run.seed=x=1"])
    assert "quote" not in str(e.value)


def test_an_error_names_a_key_that_holds_equals_as_an_override_writes_it():
    with pytest.raises(ConfigError) as e:
        load_config(CONFIG_DIR / "smoke.yaml", ['pool.scripted."threshold:T=2"=abc'])
    assert str(e.value).endswith(": pool.scripted.\"threshold:T=2\": expected a number, got 'abc'")


def test_dotted_flags_become_set_flags_in_place_so_the_last_given_wins():
    """``--run.seed 4 --set run.seed=3`` trained with seed 4: the dotted flags were applied after every ``--set``,
    whatever the order typed, though the two forms are documented as the same."""
    argv = ["cfg.yaml", "--run.seed", "4", "--set", "run.seed=3", '--pool.scripted."threshold:T=2"=1.5', "--resume"]
    assert dotted_flags_as_set(argv) == [
        "cfg.yaml", "--set", "run.seed=4", "--set", "run.seed=3", "--set", 'pool.scripted."threshold:T=2"=1.5',
        "--resume",
    ]  # fmt: skip
    with pytest.raises(ConfigError, match="^--run.seed: expected a value after it, got nothing"):
        dotted_flags_as_set(["--run.seed"])
    # a whole mapping then one entry of it, and the other way round: in the order typed, as two --set do
    assert load_config(None, ["pool.scripted={random: 1}", "pool.scripted.heuristic=2"]).pool.scripted == {
        "random": 1.0, "heuristic": 2.0,
    }  # fmt: skip
    assert load_config(None, ["pool.scripted.heuristic=2", "pool.scripted={random: 1}"]).pool.scripted == {
        "random": 1.0
    }


@pytest.mark.parametrize("value", ["-1", "0", "-0.01"])
def test_target_kl_is_above_zero_or_null(value):
    """A negative ``ppo.target_kl`` stopped every PPO update before its first gradient step (and 0 after one
    minibatch), so the run trained nothing, silently."""
    with pytest.raises(ConfigError) as e:
        load_config(CONFIG_DIR / "smoke.yaml", [f"ppo.target_kl={value}"])
    assert str(e.value).endswith(f": ppo.target_kl: expected a number > 0.0, got {value}")
    assert load_config(CONFIG_DIR / "smoke.yaml", ["ppo.target_kl=null"]).ppo.target_kl is None
    assert load_config(CONFIG_DIR / "smoke.yaml", ["ppo.target_kl=0.02"]).ppo.target_kl == 0.02


def test_a_sweep_refuses_a_target_kl_of_zero_or_below_in_its_grid(tmp_path):
    from training.scale.sweep import load_sweep

    path = tmp_path / "sweep.yaml"
    path.write_text(f"base: {CONFIG_DIR / 'smoke.yaml'}\nspace:\n  ppo.target_kl: {{grid: [0.02, -1]}}\n")
    with pytest.raises(ConfigError) as e:
        load_sweep(path)
    assert str(e.value).startswith('space."ppo.target_kl": invalid config')
    assert str(e.value).endswith("ppo.target_kl: expected a number > 0.0, got -1")
    sweep, _ = load_sweep(path, ['space."ppo.target_kl".grid=[0.02, null]'])  # null: no early stop, allowed
    assert sweep.space["ppo.target_kl"].grid == [0.02, None]


def test_dotted_flags_keep_a_quoted_key_part_whole():
    rest, dotted = split_dotted_flags(
        ['--pool.scripted."threshold:T=2"', "1.5", '--pool.scripted."ppo-3p"=2', "--ppo.learning-rate=1e-4", "x"]
    )
    assert rest == ["x"]
    # '-' reads as '_' in a flag's key, but not inside quotes (a spec's own name)
    assert dotted == ['pool.scripted."threshold:T=2"=1.5', 'pool.scripted."ppo-3p"=2', "ppo.learning_rate=1e-4"]


def test_selfplay_command_line_reads_quoted_keys_and_refuses_bad_quotes_in_one_line(capsys):
    from training.selfplay import main

    # a valid quoted key goes through to validation (run.total_timesteps=0 stops the run there)
    assert main(["--set", 'pool.scripted."threshold:T=2"=1.5', "--set", "run.total_timesteps=0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.endswith("run.total_timesteps: expected an int >= 1, got 0\n"), err
    assert main(["--set", 'pool.scripted."threshold:T=2=1.5']) == 2
    assert capsys.readouterr().err == (
        f"error: override: expected KEY.PATH=VALUE ({HINT}), got 'pool.scripted.\"threshold:T=2=1.5' (the quote at "
        "character 15 is never closed)\n"
    )
    assert main(["--set", "pool.scripted.threshold:T=2=1.5", "--set", "run.total_timesteps=0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.endswith(
        "pool.scripted.threshold:T: expected a number, got '2=1.5' "
        "(quote a key that holds '=': pool.scripted.\"threshold:T=2\"=1.5)\n"
    ), err


def test_the_probe_still_refuses_a_quoted_entry_of_a_key_it_sets():
    # training.exploit compares override keys as text: one spelling per key keeps that sound
    from training.evaluation.exploit import check_overrides

    with pytest.raises(ConfigError, match="pool.scripted is the probe's"):
        check_overrides(['pool.scripted."threshold:T=2"=1.5'])
    with pytest.raises(ConfigError, match="quotes around 'snapshot_weight'"):
        parse_overrides(['pool."snapshot_weight"=0.3'])


def test_a_sweep_searches_a_quoted_key_and_its_set_reaches_a_search_key(tmp_path):
    from training.scale.sweep import load_sweep

    path = tmp_path / "sweep.yaml"
    path.write_text(
        f"base: {CONFIG_DIR / 'smoke.yaml'}\nspace:\n  'pool.scripted.\"threshold:T=2\"': {{grid: [0.5, 1.0]}}\n"
        "  ppo.ent_coef: {grid: [0.0, 0.01]}\n"
    )
    sweep, _ = load_sweep(path, ['space."ppo.ent_coef".grid=[0.0, 0.02]'])
    assert sweep.space['pool.scripted."threshold:T=2"'].grid == [0.5, 1.0]
    assert sweep.space["ppo.ent_coef"].grid == [0.0, 0.02]
    with pytest.raises(ConfigError) as e:
        load_sweep(path, ['space."ppo.ent_coef".grid=[0.0, x]'])
    assert str(e.value).startswith('space."ppo.ent_coef": invalid config')


def test_load_config_names_the_overrides_as_the_caller_says():
    # the benchmark names its own overrides apart from the user's; it rewrote the message by string replacement
    with pytest.raises(ConfigError) as e:
        load_config(None, ["ppo.batch_size=0"], overrides_said=" with the tool's own ppo.batch_size=0 (why)")
    assert str(e.value).endswith(
        "selfplay.yaml with the tool's own ppo.batch_size=0 (why): ppo.batch_size: expected an int >= 2, got 0"
    )
    with pytest.raises(ConfigError, match=r"selfplay.yaml with overrides \['ppo.batch_size=0'\]: ppo.batch_size"):
        load_config(None, ["ppo.batch_size=0"])


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        (["game.preset=visible_chips"], {"opponent_chips": "visible", "num_players": [3]}),
        (["game.preset=six_player_one_removed"], {"num_players": [6], "starting_chips": 9, "num_removed": 1}),
        (["game.preset=six_player_one_removed", "game.num_players=3"], {"num_players": [3], "num_removed": 1}),
        (["game.preset=match3"], {"num_deals": 3, "opponent_chips": "hidden"}),  # the file's other fields stay
    ],
)
def test_a_preset_given_as_an_override_sets_its_fields_over_the_files(overrides, expected):
    # configs/selfplay.yaml writes num_players: 3 and opponent_chips: hidden, which silently won over
    # --set game.preset=visible_chips (hidden chips) or six_player_one_removed (a 3-player table)
    game = load_config(None, overrides).game
    assert {k: getattr(game, k) for k in expected} == expected


def test_a_spec_given_twice_in_the_pool_or_the_evaluation_is_refused():
    """' heuristic' and 'heuristic' load one bot: the pool gave it its prior twice, the evaluation played it twice."""
    for override, message in [
        (
            'pool.scripted={"heuristic": 1, " heuristic": 1}',
            "pool.scripted: expected each member once, got 'heuristic' and ' heuristic'",
        ),
        (
            "eval.opponents=[heuristic, heuristic]",
            "eval.opponents: expected each opponent table once, got 'heuristic' and 'heuristic'",
        ),
    ]:
        with pytest.raises(ConfigError) as e:
            load_config(None, [override])
        assert str(e.value).endswith(message), str(e.value)
