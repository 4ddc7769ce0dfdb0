"""The held-out bots (:mod:`training.evaluation.heldout`): each rule, the gauntlet's --heldout set, and the
guards that keep them out of training."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nothanks_env.game import PASS, TAKE
from tests.test_baselines import act, make_view, stack
from training.evaluation import gauntlet as g
from training.evaluation.heldout import (
    HELDOUT_OPPONENTS,
    Budget,
    ChipRich,
    Clock,
    DeckRank,
    Gambler,
    Hoarder,
    Impulsive,
    LetItRider,
    LowCard,
    Neighbour,
    PennyClock,
    PotGrab,
    Spoiler,
    is_heldout,
)
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


def test_potgrab_takes_any_card_once_the_pot_reaches_11():
    assert act(PotGrab(), make_view(3, 10, [[], [], []], [5, 5, 5])) == PASS  # even the 3
    assert act(PotGrab(), make_view(35, 11, [[], [], []], [5, 5, 5])) == TAKE  # even the 35


def test_letitrider_opens_on_a_high_card_then_takes_only_next_to_its_own():
    assert act(LetItRider(), make_view(25, 9, [[], [], []], [5, 5, 5])) == TAKE  # c >= 25, pot > 8
    assert act(LetItRider(), make_view(25, 8, [[], [], []], [5, 5, 5])) == PASS  # pot 8 is not above 8
    assert act(LetItRider(), make_view(24, 20, [[], [], []], [5, 5, 5])) == PASS  # too low a first card
    assert act(LetItRider(), make_view(26, 9, [[27], [], []], [5, 5, 5])) == TAKE  # next to its 27
    assert act(LetItRider(), make_view(30, 20, [[27], [], []], [5, 5, 5])) == PASS  # holds a card, not next to it


def test_neighbour_takes_within_two_of_its_cards_whatever_the_pot():
    assert act(Neighbour(), make_view(22, 0, [[20], [], []], [5, 5, 5])) == TAKE  # 2 above its 20
    assert act(Neighbour(), make_view(18, 0, [[20], [], []], [5, 5, 5])) == TAKE  # 2 below
    assert act(Neighbour(), make_view(23, 30, [[20], [], []], [5, 5, 5])) == PASS  # 3 away, however rich the pot
    assert act(Neighbour(), make_view(23, 0, [[20], [24], []], [0, 5, 5])) == TAKE  # forced


def test_pennyclock_chip_value_falls_through_the_deal():
    # 24-card deck: at the first card (23 face down) f = 1 and one chip buys any card <= 21; at the last card
    # f = 1/24, a chip is worth 1 + 20/24 of a card point: pot 10 buys up to 18.3, pot 11 up to 20.2
    first = [make_view(c, 1, [[], [], []], [5, 5, 5], cards_in_deck=23) for c in (21, 22)]
    assert PennyClock().act_batch(stack(first)).tolist() == [TAKE, PASS]
    last = [make_view(20, p, [[], [], []], [5, 5, 5], cards_in_deck=0) for p in (10, 11)]
    assert PennyClock().act_batch(stack(last)).tolist() == [PASS, TAKE]
    assert act(PennyClock(), make_view(3, 0, [[], [], []], [5, 5, 5], cards_in_deck=23)) == PASS  # an empty pot


def test_impulsive_never_takes_an_empty_pot_and_takes_a_quarter_of_the_rest_on_a_whim():
    assert not Impulsive(seed=0).act_batch(stack([make_view(3, 0, [[4], [], []], [5, 5, 5])] * 500)).any()
    assert act(Impulsive(seed=0), make_view(20, 1, [[21], [], []], [5, 5, 5])) == TAKE  # just below its 21
    assert act(Impulsive(seed=0), make_view(20, 11, [[], [], []], [5, 5, 5])) == TAKE  # 2 x 11 > 20
    whims = Impulsive(seed=3).act_batch(stack([make_view(20, 10, [[], [], []], [5, 5, 5])] * 4000))  # 2 x 10 = 20
    assert abs(whims.mean() - 0.25) < 0.03


def test_deckrank_compares_the_cost_with_the_cards_still_unseen():
    # unseen: the 32 other cards, 3..35 without 20; ceil(0.3 x 32) = 10th lowest is 12
    assert act(DeckRank(), make_view(20, 8, [[], [], []], [5, 5, 5])) == TAKE  # cost 12
    assert act(DeckRank(), make_view(20, 7, [[], [], []], [5, 5, 5])) == PASS  # cost 13
    high = make_view(20, 0, [[], [], []], [5, 5, 5], unseen=[30, 31, 32, 33, 34, 35])  # 2nd lowest: 31
    assert act(DeckRank(), high) == TAKE


def test_budget_threshold_follows_its_chips_against_the_cards_left():
    # 11 chips over 24 cards; 11 cards left (10 face down + this one): it planned to keep 5.04 chips
    assert act(Budget(), make_view(20, 16, [[], [], []], [5, 5, 5])) == TAKE  # on budget: T = 4.08, cost 4
    assert act(Budget(), make_view(20, 15, [[], [], []], [5, 5, 5])) == PASS  # cost 5
    assert act(Budget(), make_view(20, 23, [[], [], []], [9, 5, 5])) == PASS  # ahead: T = -3.9, cost -3
    assert act(Budget(), make_view(20, 8, [[], [], []], [1, 5, 5])) == TAKE  # behind: T = 12.08, cost 12


def test_spoiler_pays_up_to_15_to_take_a_card_an_opponent_needs():
    assert act(Spoiler(), make_view(20, 17, [[], [], []], [5, 5, 5])) == TAKE  # cost 3
    assert act(Spoiler(), make_view(20, 10, [[], [], []], [5, 5, 5])) == PASS  # cost 10, nobody needs it
    assert act(Spoiler(), make_view(20, 5, [[], [], [21]], [5, 5, 5])) == TAKE  # cost 15: extends seat 2's run
    assert act(Spoiler(), make_view(20, 4, [[], [19], []], [5, 5, 5])) == PASS  # cost 16


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
    assert len(rows) == 23 and rows[0]["column"] == "training.evaluation.heldout:LowCard"
    assert all(r["games"] == 9 for r in rows)
    assert g.main(["--list", "--heldout"]) == 0
    assert capsys.readouterr().out.splitlines()[-23:] == [c.label for c in g.HELDOUT_COLUMNS]


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


def test_heldout_mixed_tables_are_refused_for_distillation_by_their_bots(capsys, tmp_path):
    """A held-out table of standard bots, in either order and with a bot's defaults spelled out, at 3 and 4 players;
    a table beside it that is not held out plays."""
    from training.evaluation.heldout import heldout_table
    from training.learning.distill import _tables
    from training.learning.distill import main as distill_main

    assert heldout_table(["utility", "stochastic:T=5,temp=3", "utility"]) == "stochastic+utility"
    assert heldout_table(["utility", "stochastic:T=4,temp=2"]) is None
    assert heldout_table(["utility", "utility"]) is None
    for entry, players in (
        ("stochastic+utility", 3),
        ("utility+stochastic:T=5,temp=3", 3),
        ("extort+ratio:r=0.3+extort", 4),
    ):
        with pytest.raises(ValueError, match=r"--opponents: expected no held-out table .* which seats the bots of"):
            _tables(["heuristic", entry], players)
    assert _tables(["utility+stochastic:T=4,temp=2"], 3) == [["utility", "stochastic:T=4,temp=2"]]
    code = distill_main(["--teacher", "heuristic", "--opponents", "never-take+heuristic", "--student", "ppo-3p",
                         "--out", str(tmp_path / "d"), "--games", "10", "--no-progress"])  # fmt: skip
    assert code == 2 and not (tmp_path / "d").exists()
    err = capsys.readouterr().err
    assert err.startswith("error: --opponents: expected no held-out table") and err.count("\n") == 1
    assert "'never-take+heuristic', which seats the bots of the held-out table 'never-take+heuristic'" in err


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
        match=r"eval.opponents: policy spec 'ppo-4p-v5': expected a policy for 3 players, got one trained for \[4, 5\]",
    ):
        load_rllib_config(None, ["eval.opponents=[ppo-4p-v5]", "eval.best_metric=min"])
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


def test_heldout_columns_show_class_names_and_keep_the_full_specs(tmp_path, capsys):
    # they were shown as their module:attr specs ("training.evaluation.heldout:ChipRich ×2"), where every standard
    # column shows a short name ("threshold:T=2 ×2")
    out, md = tmp_path / "h.json", tmp_path / "h.md"
    assert g.main(["--players", "3", "--policy", "heuristic", "--heldout", "--games", "3", "--json", str(out),
                   "--md", str(md), "--no-progress"]) == 0  # fmt: skip
    printed = capsys.readouterr().out
    rows = {r["column"]: r for r in json.loads(out.read_text())["reports"][0]["rows"]}
    chip = rows["training.evaluation.heldout:ChipRich"]
    assert chip["display"] == "ChipRich ×2"
    assert chip["opponents"] == ["training.evaluation.heldout:ChipRich"] * 2  # the specs that load them
    assert load_policy(chip["opponents"][0], num_players=3).name == "training.evaluation.heldout:ChipRich"
    assert rows["training.evaluation.heldout:LowCard+training.evaluation.heldout:Hoarder"]["display"] == (
        "LowCard + Hoarder"
    )
    assert rows["training.evaluation.heldout:Clock+heuristic"]["display"] == "Clock + heuristic"
    assert rows["threshold:T=2+threshold:T=12"]["display"] == "threshold:T=2 + threshold:T=12"  # standard: as it was
    assert [r["display"] for r in rows.values()][:4] == ["LowCard ×2", "Hoarder ×2", "Clock ×2", "ChipRich ×2"]
    text = md.read_text()
    assert "\n| ChipRich ×2 | 3 | " in text and "\n| PotGrab + PennyClock | 3 | " in text
    assert "│ ChipRich ×2 " in printed and "│ LetItRider + DeckRank " in printed
    assert "heldout:" not in text and "heldout:" not in printed


def test_short_names_only_shorten_heldout_specs():
    from training.evaluation.heldout import short_name

    assert short_name("training.evaluation.heldout:ChipRich") == "ChipRich"
    assert short_name("search:model=(training.evaluation.heldout:Clock)") == "search:model=(Clock)"
    for spec in ("heuristic", "threshold:T=2", "ppo-3p:deterministic=False", "mybots.training.evaluation.heldout:X"):
        assert short_name(spec) == spec
    column = g.parse_column("training.evaluation.heldout:LowCard+training.evaluation.heldout:Hoarder")
    assert column.display(4) == "LowCard + Hoarder + LowCard"  # the seats, filled in turn
    assert column.label == "training.evaluation.heldout:LowCard+training.evaluation.heldout:Hoarder"
    assert g.parse_column("training.evaluation.heldout:Budget").display(5) == "Budget ×4"
