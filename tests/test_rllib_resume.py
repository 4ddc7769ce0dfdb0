"""``training.rllib_selfplay --resume`` compares the run's config with the resumed one as ``training.selfplay`` does
(:func:`training.learning.runs.resume_change`): the game by the rules it resolves to. Fast: the comparison itself,
without Ray or a run (``tests/test_ray.py`` resumes real runs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from training.learning import runs
from training.learning.config import Config, ConfigError, load_config
from training.scale import rllib_selfplay as rs
from training.scale.rllib_config import DEFAULT_RLLIB_CONFIG, RLlibConfig

STEP = Path("runs/x/rllib/step_000004096")


def rllib(*overrides: str) -> RLlibConfig:
    return load_config(DEFAULT_RLLIB_CONFIG, list(overrides), RLlibConfig)


def test_rllib_resume_compares_the_game_by_the_rules_it_resolves_to():
    # The game was not among the keys an RLlib --resume compared: --set game.num_players=[4] resumed a 3-player
    # run at 4 players without a word. It is now refused naming the rule; the same rules spelled with a preset play.
    run = rllib()
    assert run.game.preset is None and run.num_players == 3
    state = {"config": run.model_dump(mode="json")}
    for same in ([], ["game.preset=standard"], ["game.preset=standard", "run.total_env_steps=4096"]):
        rs.check_resume(rllib(*same), state, STEP)  # accepted
    for override, message in [
        ("game.num_players=[4]", "game.num_players: expected the run's [3]"),
        ("game.preset=visible_chips", "game.opponent_chips: expected the run's 'hidden'"),
        ("game.preset=match3", "game.num_deals: expected the run's 1"),
        ("env.behaviour=true", "env.behaviour: expected the run's False"),
    ]:
        with pytest.raises(ConfigError) as e:
            rs.check_resume(rllib(override), state, STEP)
        assert str(e.value).startswith(
            f"--resume: {message} (RLlib checkpoint step_000004096 was trained with it; start a new run), got "
        ), str(e.value)
    # a run made with the preset written resumes with none, and a saved section this version refuses is compared
    # as written (named, not a crash)
    rs.check_resume(rllib(), {"config": rllib("game.preset=standard").model_dump(mode="json")}, STEP)
    odd = {"config": {"game": {**run.model_dump(mode="json")["game"], "retired_rule": 1}}}
    assert runs.resume_change(odd["config"], run, rs.RESUME_FIXED) == ("game.retired_rule", 1, None)


@pytest.mark.parametrize(
    "overrides",
    [
        [],
        ["game.preset=standard"],
        ["game.preset=visible_chips"],
        ["game.num_players=[4]"],
        ["game.num_players=[3, 4]"],
        ["game.preset=match3"],
        ["ppo.net_arch=[64, 64]"],
        ["run.total_timesteps=8192"],
    ],
)
def test_the_sb3_resume_refuses_exactly_what_the_shared_comparison_names(overrides):
    # training.selfplay.check_resume words what runs.resume_change finds; the rules and shapes are refused, the rest not
    pytest.importorskip("torch", reason="training.selfplay needs the train extra")
    from training.learning.selfplay import RESUME_FIXED, check_resume

    saved = {"config": load_config(None, [], Config).model_dump(mode="json")}
    cfg = load_config(None, overrides, Config)
    change = runs.resume_change(saved["config"], cfg, RESUME_FIXED)
    try:
        check_resume(cfg, saved, STEP)
    except ConfigError as e:
        assert change is not None and str(e).startswith(f"--resume: {change[0]}: expected the run's {change[1]!r} ")
    else:
        assert change is None
    assert (change is None) == (overrides in ([], ["game.preset=standard"], ["run.total_timesteps=8192"]))
