"""``training.replay --policy`` is checked by :func:`training.evaluate.check_plays`, the one check of which
policies play which rules (replay had a copy of its own, in other words)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nothanks_env.baselines import RandomPolicy
from nothanks_env.game import Game, GameConfig
from nothanks_env.presets import get_preset
from nothanks_env.records import record_from_game
from training import replay as rp
from training.evaluate import check_plays
from training.specs import load_policy


def record_of(config: GameConfig, path: Path) -> Path:
    """A finished game of ``config`` between random players, saved at ``path``."""
    game, player = Game(config), RandomPolicy(seed=1)
    game.reset(seed=5)
    while not game.is_over:
        game.step(player.act(game.seat_view(game.current_seat)))
    record_from_game(game, seed=5, agents=["a", "b", "c"]).save(path)
    return path


def refused_line(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as e:
        rp.main(argv)
    assert e.value.code == 2
    return capsys.readouterr().err


def shared_refusal(spec: str, config: GameConfig) -> str:
    """The line replay makes of :func:`check_plays`'s refusal of ``spec`` under ``config``."""
    with pytest.raises(ValueError) as e:
        check_plays([load_policy(spec, num_players=config.num_players)], config, hint=None, label="--policy")
    return f"error: {e.value}\n"


def test_a_pass_take_policy_on_a_special_cards_record_is_refused_by_check_plays(tmp_path, capsys):
    config = get_preset("wildcards", num_players=3)
    record = record_of(config, tmp_path / "wild.json")
    err = refused_line([str(record), "--print-all", "--policy", "threshold"], capsys)
    assert err == shared_refusal("threshold", config)
    assert err == (
        f"error: --policy for {list(config.special_cards)}: expected policies that play special cards "
        "(random, heuristic, ppo-wildcards, or a checkpoint trained on them), got ['threshold'] that play only "
        "pass/take\n"
    )


def test_a_special_cards_network_on_a_standard_record_is_refused_by_check_plays(tmp_path, capsys):
    config = GameConfig(num_players=3)
    record = record_of(config, tmp_path / "std.json")
    err = refused_line([str(record), "--print-all", "--policy", "ppo-wildcards"], capsys)
    assert err == shared_refusal("ppo-wildcards", config)
    # no "evaluate them with --preset wildcards": a record's rules are its own, there is no preset to pass; the
    # networks that play the record's table are named (none were)
    assert err == (
        "error: --policy: expected policies that play pass/take (a standard table), got "
        "['ppo-wildcards'] trained on special cards (125 actions); shipped networks for 3 players: ppo-3p, "
        "ppo-3p-ens, ppo-mixed\n"
    )


def test_a_policy_that_plays_the_records_rules_is_accepted(tmp_path, capsys):
    record = record_of(get_preset("wildcards", num_players=3), tmp_path / "wild.json")
    assert rp.main([str(record), "--print-all", "--policy", "heuristic", "--samples", "1"]) == 0
    assert "heuristic" in capsys.readouterr().out
