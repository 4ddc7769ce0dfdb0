"""The public-style bots (:mod:`nothanks_env.baselines.public`): each rule on hand-made seat views."""

from __future__ import annotations

import numpy as np
import pytest

from nothanks_env.baselines import BlockerPolicy, ExtortPolicy, RatioPolicy, StochasticPolicy, UtilityPolicy
from nothanks_env.game import PASS, TAKE
from tests.test_baselines import act, make_view, stack
from training.specs import load_policy


@pytest.mark.parametrize(
    ("face", "pot", "mine", "runs", "expected"),
    [
        (20, 9, [], False, PASS),  # 9 < 0.5 x 20
        (20, 10, [], False, TAKE),  # 10 >= 10
        (20, 0, [19], False, PASS),  # classic form ignores runs
        (20, 0, [19], True, TAKE),  # Δ = 0: extends a run
        (20, 9, [21], True, TAKE),  # Δ = -1
    ],
)
def test_ratio_rule(face, pot, mine, runs, expected):
    assert act(RatioPolicy(r=0.5, runs=runs), make_view(face, pot, [mine, [], []], [5, 5, 5])) == expected


def test_ratio_forced_and_validation():
    assert act(RatioPolicy(r=5.0), make_view(35, 0, [[], [], []], [0, 5, 5])) == TAKE
    with pytest.raises(ValueError, match="r: expected a ratio > 0, got 0"):
        RatioPolicy(r=0)


def test_blocker_blocks_the_leaders_run_and_milks_otherwise():
    # seat 1 leads (low points, many chips) and holds 21: card 20 extends its run, so seat 0 takes it.
    block = make_view(20, 9, [[], [21], [30]], [6, 9, 1])
    assert act(BlockerPolicy(), block) == TAKE
    # a card seat 0 wants (Δ - pot = 10 - 10 = 0) that nobody else wants: it milks while rich...
    milk = make_view(10, 10, [[], [30], [33]], [6, 6, 6])
    assert act(BlockerPolicy(milk_opp_T=-5.0), milk) == PASS
    # ...and takes at once when it is short of chips.
    assert act(BlockerPolicy(milk_opp_T=-5.0), make_view(10, 10, [[], [30], [33]], [2, 6, 6])) == TAKE


def test_utility_milks_a_card_nobody_else_wants_and_takes_a_contested_one():
    # 20 extends seat 0's 21 (Δ = -1); opponents have neither neighbour and plenty of chips: let it go round.
    alone = make_view(20, 2, [[21], [5], [8]], [6, 8, 8])
    u = UtilityPolicy()
    assert act(u, alone) == PASS
    # seat 1 also holds 19: 20 is worth as much to it, so seat 0 takes before it can.
    contested = make_view(20, 2, [[21], [19], [8]], [6, 8, 8])
    assert act(u, contested) == TAKE
    # a bad card with an empty pot is never worth it
    assert act(u, make_view(34, 0, [[], [], []], [8, 8, 8])) == PASS


def test_utility_values_a_chip_more_when_short():
    u = UtilityPolicy()
    rich, poor = make_view(25, 8, [[], [], []], [9, 9, 9]), make_view(25, 8, [[], [], []], [1, 9, 9])
    ur, up = u.take_utilities(rich)[0, 0], u.take_utilities(poor)[0, 0]
    assert up < ur  # the same pot is worth more to a seat near 0 chips


def test_extort_passes_while_everyone_must_pay_and_takes_when_someone_would_take():
    e = ExtortPolicy()
    # 20 extends seat 0's 21 (a = +1 >= 0): everyone else would pay to refuse 20 with a small pot.
    assert act(e, make_view(20, 1, [[21], [5], [8]], [6, 8, 8])) == PASS
    # seat 1 holds 19 (20 is free for it too): take now.
    assert act(e, make_view(20, 1, [[21], [19], [8]], [6, 8, 8])) == TAKE
    # not worth it, and the pot covers little of it: pass; at 0 chips: take.
    assert act(e, make_view(30, 2, [[], [], []], [8, 8, 8])) == PASS
    assert act(e, make_view(30, 0, [[], [], []], [0, 8, 8])) == TAKE


def test_stochastic_mixes_near_its_threshold_and_is_seeded():
    near = stack([make_view(20, 15, [[], [], []], [5, 5, 5])] * 4000)  # Δ - pot = 5 = T: p = 1/2
    a = StochasticPolicy(T=5, temp=3, seed=3).act_batch(near)
    assert 0.46 < a.mean() < 0.54
    np.testing.assert_array_equal(a, StochasticPolicy(T=5, temp=3, seed=3).act_batch(near))
    far = stack([make_view(35, 0, [[], [], []], [5, 5, 5])] * 500)  # z = -10: p < 1e-4
    assert StochasticPolicy(seed=1).act_batch(far).sum() == 0
    with pytest.raises(ValueError, match="temp: expected a temperature > 0"):
        StochasticPolicy(temp=0)


@pytest.mark.parametrize(
    ("spec", "name"),
    [
        ("ratio", "ratio"),
        ("ratio:r=0.34,runs=True", "ratio:r=0.34,runs=True"),
        ("blocker:block_T=8.0", "blocker:block_T=8.0"),
        ("utility:extort_buffer=4.0", "utility:extort_buffer=4.0"),
        ("extort:chip_memory=False", "extort:chip_memory=False"),
        ("stochastic:T=2,temp=1", "stochastic:T=2,temp=1"),
    ],
)
def test_specs_build_and_name_the_public_bots(spec, name):
    assert load_policy(spec, seed=0).name == name
