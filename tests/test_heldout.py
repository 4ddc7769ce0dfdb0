"""The held-out bots (:mod:`training.evaluation.heldout`): each rule, the gauntlet's --heldout set, and the
guards that keep them out of training."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nothanks_env.game import PASS, TAKE
from tests.test_baselines import act, make_view, stack
from training.evaluation import gauntlet as g
from training.evaluation.heldout import HELDOUT_OPPONENTS, ChipRich, Clock, Gambler, Hoarder, LowCard, is_heldout
from training.specs import load_policy


@pytest.mark.parametrize(
    ("face", "pot", "mine", "expected"),
    [
        (12, 0, [], TAKE),  # a low card, free of charge or not
        (13, 6, [], PASS),  # 2 x 6 < 13
        (13, 7, [], TAKE),  # 2 x 7 >= 13
        (30, 0, [31], TAKE),  # Δ = -1: it extends a run
        (30, 0, [], PASS),
    ],
)
def test_lowcard_rule(face, pot, mine, expected):
    assert act(LowCard(), make_view(face, pot, [mine, [], []], [5, 5, 5])) == expected


def test_hoarder_takes_only_free_cards_until_it_is_short_of_chips():
    assert act(Hoarder(), make_view(20, 19, [[], [], []], [4, 5, 5])) == PASS  # cost 1 > 0 with 4 chips
    assert act(Hoarder(), make_view(20, 20, [[], [], []], [4, 5, 5])) == TAKE  # cost 0
    assert act(Hoarder(), make_view(20, 8, [[], [], []], [3, 5, 5])) == TAKE  # cost 12 at 3 chips
    assert act(Hoarder(), make_view(20, 7, [[], [], []], [3, 5, 5])) == PASS  # cost 13
    assert act(Hoarder(), make_view(35, 0, [[], [], []], [0, 5, 5])) == TAKE  # forced


def test_clock_threshold_rises_through_the_deal():
    # 24-card deck: 23 face down at the first card (T = -3), none at the last (T = 17).
    first = [make_view(20, p, [[], [], []], [5, 5, 5], cards_in_deck=23) for p in (22, 23)]
    last = [make_view(20, p, [[], [], []], [5, 5, 5], cards_in_deck=0) for p in (2, 3)]
    assert Clock().act_batch(stack(first)).tolist() == [PASS, TAKE]  # cost -2 > -3, cost -3 <= -3
    assert Clock().act_batch(stack(last)).tolist() == [PASS, TAKE]  # cost 18 > 17, cost 17 <= 17


def test_chiprich_refuses_while_it_is_the_richest():
    assert act(ChipRich(), make_view(20, 19, [[], [], []], [9, 8, 8])) == PASS  # richest: T = 0, cost 1
    assert act(ChipRich(), make_view(20, 20, [[], [], []], [9, 8, 8])) == TAKE  # cost 0
    assert act(ChipRich(), make_view(20, 12, [[], [], []], [9, 9, 8])) == TAKE  # tied, not richest: T = 8
    assert act(ChipRich(), make_view(20, 11, [[], [], []], [9, 9, 8])) == PASS  # cost 9


def test_gambler_draws_its_threshold_for_each_decision():
    views = stack([make_view(20, 14, [[], [], []], [5, 5, 5])] * 4000)  # cost 6: takes iff T >= 6, p = 11/21
    a = Gambler(seed=1).act_batch(views)
    assert abs(a.mean() - 11 / 21) < 0.03
    np.testing.assert_array_equal(a, Gambler(seed=1).act_batch(views))
    always = stack([make_view(20, 24, [[], [], []], [5, 5, 5])] * 200)  # cost -4: always within T
    assert Gambler(seed=2).act_batch(always).all()


def test_every_heldout_spec_loads_and_is_recognised():
    for spec in HELDOUT_OPPONENTS:
        assert load_policy(spec, num_players=4).name == spec
        assert is_heldout(spec)
    assert is_heldout("search:model=(training.evaluation.heldout:Clock)")
    assert not is_heldout("heuristic") and not is_heldout("threshold:T=2")


def test_gauntlet_heldout_plays_the_heldout_columns(tmp_path, capsys):
    out = tmp_path / "h.json"
    assert g.main(["--players", "3", "--policy", "heuristic", "--heldout", "--games", "9", "--json", str(out),
                   "--no-progress"]) == 0  # fmt: skip
    rows = json.loads(out.read_text())["reports"][0]["rows"]
    assert [r["column"] for r in rows] == [c.label for c in g.HELDOUT_COLUMNS]
    assert len(rows) == 12 and rows[0]["column"] == "training.evaluation.heldout:LowCard"
    assert all(r["games"] == 9 for r in rows)
    assert g.main(["--list", "--heldout"]) == 0
    assert capsys.readouterr().out.splitlines()[-12:] == [c.label for c in g.HELDOUT_COLUMNS]


def test_heldout_bots_are_refused_for_training_and_selection(capsys, tmp_path):
    from training.learning.config import load_config
    from training.learning.distill import _tables

    with pytest.raises(
        ValueError, match=r"pool.scripted: expected no held-out bots .* got \['training.evaluation.heldout:Clock'\]"
    ):
        load_config(None, ["pool.scripted={training.evaluation.heldout:Clock: 1, heuristic: 1}"])
    with pytest.raises(
        ValueError, match=r"eval.opponents: expected no held-out bots .* got \['training.evaluation.heldout:Hoarder'\]"
    ):
        load_config(None, ["eval.opponents=[heuristic, training.evaluation.heldout:Hoarder]"])
    with pytest.raises(
        ValueError,
        match=r"--opponents: expected no held-out bots .* got \['utility\+training.evaluation.heldout:LowCard'\]",
    ):
        _tables(["heuristic", "utility+training.evaluation.heldout:LowCard"], 3)
    from training.learning.distill import main as distill_main

    for option, args in (
        ("--teacher", ["--teacher", "training.evaluation.heldout:Clock", "--opponents", "heuristic"]),
        ("--teacher-of", ["--teacher", "heuristic", "--opponents", "heuristic", "utility",
                          "--teacher-of", "utility", "training.evaluation.heldout:Gambler"]),
    ):  # fmt: skip
        try:
            code = distill_main([*args, "--student", "ppo-3p", "--out", str(tmp_path / "d"), "--games", "10",
                                 "--no-progress"])  # fmt: skip
        except SystemExit as stop:
            code = stop.code
        assert code == 2 and not (tmp_path / "d").exists()
        assert f"error: {option}: expected no held-out bots" in capsys.readouterr().err


def test_the_rllib_config_refuses_heldout_and_unbuildable_eval_opponents():
    # Both used to pass validation: a bad spec then crashed the run at its first evaluation, after Ray had
    # started and a run folder had been made.
    from training.learning.config import load_config
    from training.scale.rllib_config import DEFAULT_RLLIB_CONFIG, RLlibConfig

    def load_rllib_config(path, overrides):
        return load_config(path, overrides, RLlibConfig, default=DEFAULT_RLLIB_CONFIG)

    with pytest.raises(ValueError, match=r"eval.opponents: expected no held-out bots"):
        load_rllib_config(None, ["eval.opponents=[training.evaluation.heldout:Clock]", "eval.best_metric=min"])
    with pytest.raises(ValueError, match=r"eval.opponents: policy spec 'nosuchbot': expected a baseline"):
        load_rllib_config(None, ["eval.opponents=[nosuchbot]", "eval.best_metric=min"])
    with pytest.raises(
        ValueError,
        match=r"eval.opponents: policy spec 'ppo-4p': expected a policy for 3 players, got one trained for \[4, 5\]",
    ):
        load_rllib_config(None, ["eval.opponents=[ppo-4p]", "eval.best_metric=min"])
    assert load_rllib_config(None, ["eval.opponents=[threshold:T=2]", "eval.best_metric=min"]).eval.opponents == [
        "threshold:T=2"
    ]


def test_exploit_refuses_a_heldout_victim_by_its_flag(tmp_path, capsys):
    from training.evaluation.exploit import main as exploit_main
    from training.evaluation.heldout import refuse_heldout

    code = exploit_main(
        ["--victim", "training.evaluation.heldout:Clock", "--timesteps", "9", "--runs-dir", str(tmp_path)]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: --victim: expected no held-out bots") and err.count("\n") == 1
    assert not any(tmp_path.iterdir())
    with pytest.raises(TypeError, match="expected a list of specs, got the string"):
        refuse_heldout("--teacher", "training.evaluation.heldout:Clock")  # not checked letter by letter
