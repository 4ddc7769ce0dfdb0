"""training.pool: the opponent mixture, snapshots and their eviction, PFSP weights, seating, resume state."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from netweights import random_weights

from nothanks_env.baselines import RandomPolicy
from training.pool import OpponentPool, pfsp_weight


def test_pool_mixture_eviction_and_state_roundtrip():
    pool = OpponentPool(
        {"a": (3.0, {0: RandomPolicy()}), "b": (1.0, {0: RandomPolicy()})},
        snapshot_weight=0.5,
        latest_share=0.5,
        max_snapshots=2,
        seed=0,
    )
    np.testing.assert_allclose(pool.probabilities(), [0.75, 0.25])
    for step in (10, 20, 30):
        pool.add_snapshot(random_weights(seed=step), step)
    assert [m.step for m in pool.snapshots] == [20, 30]
    np.testing.assert_allclose(pool.probabilities(), [0.375, 0.125, 0.25, 0.25])
    ids = pool.draw((4000,))
    share = {pool.members[i].name: np.mean(ids == i) for i in pool.active}
    assert share["snap@30"] == pytest.approx(0.25, abs=0.03)
    pool.prune(np.array([], dtype=np.int64))
    assert len(pool.members) == 4

    state = pool.state_dict()
    other = OpponentPool({"a": (3.0, {0: RandomPolicy()}), "b": (1.0, {0: RandomPolicy()})}, max_snapshots=2, seed=9)
    other.load_state_dict(state)
    assert [m.step for m in other.snapshots] == [20, 30]
    names = [[p.members[int(i)].name for i in p.draw((50,))] for p in (other, pool)]
    assert names[0] == names[1]
    torch.testing.assert_close(other.snapshots[1].snapshot_weights, pool.snapshots[1].snapshot_weights)


def test_pool_needs_a_scripted_opponent():
    with pytest.raises(ValueError, match="at least one opponent"):
        OpponentPool({"a": (0.0, {0: RandomPolicy()})})


# ------------------------------------------------------------------------------------------ league (PFSP)
def test_pfsp_weightings():
    x = np.array([0.0, 0.25, 0.5, 1.0])
    np.testing.assert_allclose(pfsp_weight(x, "hard", 2.0), [1.0, 0.5625, 0.25, 0.0])
    np.testing.assert_allclose(pfsp_weight(x, "variance", 2.0), [0.0, 0.1875, 0.25, 0.0])
    np.testing.assert_allclose(pfsp_weight(x, "uniform", 2.0), [1.0, 1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="weighting: expected 'hard', 'variance' or 'uniform', got 'easy'"):
        pfsp_weight(x, "easy", 2.0)


def three_member_pool(**kw) -> OpponentPool:
    members = {name: (1.0, {0: RandomPolicy(seed=k)}) for k, name in enumerate(["a", "b", "c"])}
    return OpponentPool(members, seed=3, **kw)


def test_homogeneous_tables_fill_every_opponent_seat_with_one_member():
    none = three_member_pool().draw_tables(4000, 4)
    assert np.array_equal(none, three_member_pool().draw((4000, 4)))  # share 0: the independent draws
    same_rows = (none == none[:, :1]).all(axis=1).mean()
    assert same_rows == pytest.approx(3 * (1 / 3) ** 4, abs=0.02)  # by chance only: 1/27
    half = three_member_pool(homogeneous=0.5).draw_tables(4000, 4)
    same_rows = (half == half[:, :1]).all(axis=1).mean()
    assert same_rows == pytest.approx(0.5 + 0.5 / 27, abs=0.03)
    everyone = three_member_pool(homogeneous=1.0).draw_tables(3000, 3)
    assert (everyone == everyone[:, :1]).all()
    assert np.bincount(everyone[:, 0], minlength=3) / 3000 == pytest.approx([1 / 3] * 3, abs=0.04)
    with pytest.raises(ValueError, match=r"homogeneous: expected a share in \[0, 1\], got 1.5"):
        three_member_pool(homogeneous=1.5)


def test_beaten_at_sets_the_score_that_counts_as_fully_beaten():
    pool = three_member_pool(weighting="hard", window=1, beaten_at=3.0)
    a = pool.active[0]
    pool.record(np.array([[-1, a, a]] * 256), np.full(256, 0.8), 3)  # 0.8 x 3 / 3 = 0.8, not clipped to 1
    assert pool.league()["a"]["score"] == pytest.approx(0.8)
    default = three_member_pool(weighting="hard", window=1)
    default.record(np.array([[-1, a, a]] * 256), np.full(256, 0.8), 3)
    assert default.league()["a"]["score"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="beaten_at: expected a multiple of parity > 1, got 1.0"):
        three_member_pool(beaten_at=1.0)


def test_seat_marks_the_learner_and_counts_the_drawn_opponents():
    pool = three_member_pool()
    ids = pool.seat(np.array([0, 2, 1]), 3)
    assert ids.shape == (3, 3) and ids[0, 0] == ids[1, 2] == ids[2, 1] == -1
    assert (np.delete(ids.ravel(), [0, 5, 7]) >= 0).all()
    assert sum(pool.drawn.values()) == 6
    assert sum(pool.composition().values()) == pytest.approx(1.0) and not pool.drawn
