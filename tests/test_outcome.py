"""nothanks_env.outcome: ranks, win shares and reward modes, scalar against batched, and their declared ranges."""

from __future__ import annotations

import random

import numpy as np
import pytest

from nothanks_env.game import RuleError
from nothanks_env.outcome import (
    ENV_REWARDS,
    REWARDS,
    SELFPLAY_REWARDS,
    ranks,
    ranks_and_winners,
    reward_values,
    reward_values_batch,
    selfplay_reward,
    win_shares,
)


def random_penalties(rng: np.random.Generator, n: int) -> np.ndarray:
    pen = rng.integers(-4, 4, (500, n))  # many ties
    pen[0] = 2  # an all-way tie
    pen[1] = np.arange(n)  # no tie
    return pen


@pytest.mark.parametrize("mode", sorted(REWARDS))
def test_scalar_and_batched_forms_agree_for_every_mode(mode):
    rng = np.random.default_rng(0)
    for n in (2, 3, 5, 7):
        pen = random_penalties(rng, n)
        batch = reward_values_batch(pen, mode)
        assert batch.dtype == np.float64 and batch.shape == pen.shape
        scalar = np.array([reward_values(list(map(int, p)), mode) for p in pen])
        np.testing.assert_allclose(batch, scalar, rtol=0, atol=1e-12)


@pytest.mark.parametrize("mode", sorted(REWARDS))
def test_every_mode_keeps_its_declared_range_and_zero_sum_flag(mode):
    m = REWARDS[mode]
    rng = np.random.default_rng(1)
    for n in (3, 4, 7):
        r = reward_values_batch(random_penalties(rng, n), mode)
        assert (r >= m.low).all() and (r <= m.high).all()
        sums = r.sum(axis=1)
        if m.zero_sum:
            np.testing.assert_allclose(sums, 0.0, atol=1e-9)
        else:
            assert not np.allclose(sums, 0.0)


def test_the_two_win_rewards_are_different_rewards():
    pen = [3, 1, 2, 9, 1]
    assert reward_values(pen, "win") == pytest.approx([-1 / 3, 0.5, -1 / 3, -1 / 3, 0.5])
    assert reward_values(pen, "win_share") == [0.0, 0.5, 0.0, 0.0, 0.5]
    assert REWARDS["win"].zero_sum and not REWARDS["win_share"].zero_sum
    assert set(ENV_REWARDS) | set(SELFPLAY_REWARDS) == set(REWARDS)


def test_penalty_modes_in_points():
    assert reward_values([4, 2, 9], "penalty") == [1.0, 3.0, -4.0]
    # seat 0: others' mean (2 + 9) / 2 = 5.5, minus its own 4 = 1.5 points = 0.015
    assert reward_values([4, 2, 9], "penalty_diff") == pytest.approx([0.015, 0.045, -0.06])


def test_ranks_and_win_shares_scalar_against_batched():
    rng = random.Random(2)
    rows = [[rng.randint(-3, 3) for _ in range(5)] for _ in range(300)]
    pen = np.array(rows)
    got_ranks, got_shares = ranks(pen), win_shares(pen)
    for i, row in enumerate(rows):
        r, winners = ranks_and_winners(row)
        assert got_ranks[i].tolist() == r
        assert got_shares[i].tolist() == [1 / len(winners) if s in winners else 0.0 for s in range(5)]
    np.testing.assert_allclose(ranks(np.array([[5, 5, 9]])), [[1.5, 1.5, 3]])


def test_unknown_modes_are_refused_naming_the_choices():
    with pytest.raises(RuleError, match=r"reward: expected one of \['win', 'win_share', 'rank'"):
        reward_values([1, 2, 3], "elo")
    with pytest.raises(RuleError, match=r"reward: expected one of \['win', 'rank', 'penalty'\], got 'win_share'"):
        reward_values_batch(np.zeros((1, 3), dtype=np.int64), "win_share", ENV_REWARDS)
    with pytest.raises(RuleError, match="reward: expected one of"):
        selfplay_reward("rank")


def test_selfplay_reads_the_old_name_win_as_win_share():
    with pytest.warns(DeprecationWarning, match="means 'win_share'"):
        assert selfplay_reward("win") == "win_share"
    assert selfplay_reward("penalty_diff") == "penalty_diff"


def test_vector_keeps_deprecated_aliases():
    import nothanks_env.vector as vector

    with pytest.warns(DeprecationWarning, match="nothanks_env.outcome.win_shares"):
        assert vector.winner_shares is win_shares
    with pytest.warns(DeprecationWarning, match="nothanks_env.outcome.ranks"):
        assert vector.ranks is ranks
