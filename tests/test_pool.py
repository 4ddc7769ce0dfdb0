"""training.pool: the opponent mixture, snapshots and their eviction, PFSP weights, seating, resume state."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from netweights import random_weights

from nothanks_env.baselines import RandomPolicy
from training.pool import OpponentPool, pfsp_weight, split_lineup, target_weight


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
    expected = "weighting: expected one of 'hard', 'variance', 'uniform', 'target', got 'easy'"
    with pytest.raises(ValueError, match=expected):
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


def test_target_weight_is_a_step_at_the_target():
    w = target_weight(np.array([0.80, 0.85, 0.90, 0.20]), np.array([0.85, 0.85, 0.85, 0.60]), 0.03)
    np.testing.assert_allclose(w, [1 / (1 + np.exp(-5 / 3)), 0.5, 1 / (1 + np.exp(5 / 3)), 1 / (1 + np.exp(-40 / 3))])
    assert w[0] == pytest.approx(0.841, abs=1e-3) and w[2] == pytest.approx(0.159, abs=1e-3)
    assert target_weight(np.array([0.0, 1.0]), np.array(0.5), 1e-4).tolist() == pytest.approx([1.0, 0.0])  # no overflow


def test_target_league_moves_toward_the_member_furthest_below_its_target():
    """The learner beats a (0.9) and c (0.5) beyond their targets and falls short against b (0.6 of 0.8):
    b's share rises from 1/3 toward all but the floors, and a member back under target gets weight back."""
    pool = three_member_pool(weighting="target", targets={"a": 0.8, "b": 0.8, "c": 0.4}, window=1, floor=0.05)
    np.testing.assert_allclose(pool.probabilities(), [1 / 3] * 3)  # no games yet: every member at its target
    a, b, c = pool.active
    for mid, win in ((a, 0.9), (b, 0.6), (c, 0.5)):
        pool.record(np.array([[-1, mid, mid]] * 256), np.full(256, win), 3)
    league = pool.league()
    assert league["b"]["win_rate"] == pytest.approx(0.6)
    f = [1 / (1 + np.exp(10 / 3)), 1 / (1 + np.exp(-20 / 3)), 1 / (1 + np.exp(10 / 3))]
    w = np.array(f) + 0.05
    np.testing.assert_allclose(pool.probabilities(), w / w.sum())
    assert league["b"]["share"] > 0.8 and league["a"]["share"] < 0.1
    pool.record(np.array([[-1, a, a]] * 256), np.full(256, 0.7), 3)  # a falls below its 0.8
    assert pool.league()["a"]["share"] > 0.4


def test_win_rate_is_the_plain_mean_until_a_window_of_games():
    pool = three_member_pool(weighting="target", targets={"a": 0.8, "b": 0.8, "c": 0.4}, window=2000)
    a = pool.active[0]
    pool.record(np.array([[-1, a, -1]] * 256), np.full(256, 1.0), 3)  # one seat each: 256 games, then 768
    pool.record(np.array([[-1, a, -1]] * 768), np.full(768, 0.0), 3)
    assert pool.league()["a"]["win_rate"] == pytest.approx(0.25)  # an EMA from the first batch: 0.68
    assert pool.league()["a"]["games"] == 1024


def test_target_league_reads_one_member_tables_only():
    """A member seated beside another (or beside snapshots) is not what the gauntlet's column measures."""
    pool = three_member_pool(weighting="target", targets={"a": 0.8, "b": 0.8, "c": 0.4}, window=1)
    a, b, _ = pool.active
    pool.record(np.array([[-1, a, b]] * 256), np.full(256, 0.1), 3)  # mixed tables: weights unmoved
    league = pool.league()
    assert league["a"]["win_rate"] == pytest.approx(0.1) and np.isnan(league["a"]["table_win_rate"])
    np.testing.assert_allclose(pool.probabilities(), [1 / 3] * 3)
    pool.record(np.array([[a, -1, a]] * 256), np.full(256, 0.9), 3)
    assert pool.league()["a"]["table_win_rate"] == pytest.approx(0.9)
    assert pool.league()["a"]["share"] < 0.1
    restored = three_member_pool(weighting="target", targets={"a": 0.8, "b": 0.8, "c": 0.4}, window=1)
    restored.load_state_dict(pool.state_dict())
    np.testing.assert_allclose(restored.probabilities(), pool.probabilities())


def test_target_league_needs_a_target_for_every_member_and_nothing_else():
    missing = r"targets: expected a target win share for every scripted member and lineup, missing \['c'\]"
    with pytest.raises(ValueError, match=missing):
        three_member_pool(weighting="target", targets={"a": 0.8, "b": 0.8})
    extra = r"targets: expected only scripted members and lineups \['a', 'b', 'c'\], got \['d'\] as well"
    with pytest.raises(ValueError, match=extra):
        three_member_pool(weighting="target", targets={"a": 0.8, "b": 0.8, "c": 0.5, "d": 0.5})
    with pytest.raises(ValueError, match=r"targets: expected win shares in \(0, 1\), got \{'c': 1.0\}"):
        three_member_pool(weighting="target", targets={"a": 0.8, "b": 0.8, "c": 1.0})
    with pytest.raises(ValueError, match="targets: only used with weighting 'target', got weighting 'hard'"):
        three_member_pool(weighting="hard", targets={"a": 0.8})


def test_seat_marks_the_learner_and_counts_the_drawn_opponents():
    pool = three_member_pool()
    ids = pool.seat(np.array([0, 2, 1]), 3)
    assert ids.shape == (3, 3) and ids[0, 0] == ids[1, 2] == ids[2, 1] == -1
    assert (np.delete(ids.ravel(), [0, 5, 7]) >= 0).all()
    assert sum(pool.drawn.values()) == 6
    assert sum(pool.composition().values()) == pytest.approx(1.0) and not pool.drawn


def test_a_lineup_seats_its_members_cyclically_after_the_learner():
    """At 5 players the lineup a+b fills the four seats after the learner's with a, b, a, b (a gauntlet column's
    order); with homogeneous 1 and the lineup's prior far above the members', every table is that lineup."""
    pool = three_member_pool(homogeneous=1.0, lineups={"a+b": 1e12})
    a, b, _ = pool.active
    learner = np.array([0, 2, 4, 1])
    ids = pool.seat(learner, 5)
    assert ids.tolist() == [[-1, a, b, a, b], [a, b, -1, a, b], [a, b, a, b, -1], [b, -1, a, b, a]]
    assert pool.lineup_seats("a+b", 3) == [a, b]


def test_lineups_share_the_table_draw_with_one_member_tables():
    """Three members of prior 1 and a lineup of prior 1: the homogeneous share splits 1/4 each (by their league
    weights normalized together), and per-seat draws never give the lineup."""
    pool = three_member_pool(homogeneous=1.0, lineups={"b+c": 1.0})
    np.testing.assert_allclose(pool.table_probabilities(), [0.25] * 4)
    np.testing.assert_allclose(pool.probabilities(), [1 / 3] * 3)
    a, b, c = pool.active
    ids = pool.draw_tables(4000, 3, np.zeros(4000, dtype=np.int64))
    lineup = (ids[:, 1] == b) & (ids[:, 2] == c)
    assert lineup.mean() == pytest.approx(0.25, abs=0.03)
    assert ((ids[:, 1] == ids[:, 2]) | lineup).all()  # every other table is one member
    assert pool.league()["b+c"]["share"] == pytest.approx(0.25)
    pool.add_snapshot(random_weights(seed=1), 10)  # snapshots take snapshot_weight of the table draw too
    np.testing.assert_allclose(pool.table_probabilities(), [0.125, 0.125, 0.125, 0.5, 0.125])  # a, b, c, snap, b+c


def test_target_league_weighs_a_lineup_by_its_own_tables():
    """Losing at the lineup's tables (any seat order) raises its share; the same members at one-member tables do
    not count for it, nor it for them."""
    targets = {"a": 0.5, "b": 0.5, "c": 0.5, "a+b": 0.3}
    pool = three_member_pool(weighting="target", targets=targets, window=1, homogeneous=0.5, lineups={"a+b": 1.0})
    a, b, c = pool.active
    pool.record(np.array([[-1, b, a]] * 128 + [[a, -1, b]] * 128), np.full(256, 0.1), 3)  # the lineup, 0.1 < 0.3
    pool.record(np.array([[-1, a, a]] * 256), np.full(256, 0.5), 3)  # a alone, on target
    league = pool.league()
    assert league["a+b"]["table_win_rate"] == pytest.approx(0.1) and league["a+b"]["games"] == 256
    assert league["a"]["table_win_rate"] == pytest.approx(0.5)
    assert np.isnan(league["b"]["table_win_rate"])
    f_lineup = 1 / (1 + np.exp(-0.2 / 0.03))
    w = np.array([0.5 + 0.05, 0.5 + 0.05, 0.5 + 0.05, f_lineup + 0.05])
    np.testing.assert_allclose(pool.table_probabilities(), w / w.sum())
    assert league["a+b"]["share"] == pytest.approx(0.5 * w[3] / w.sum())
    np.testing.assert_allclose(pool.probabilities(), [1 / 3] * 3)  # per-seat draws: members only
    pool.record(np.array([[-1, a, c]] * 256), np.full(256, 0.9), 3)  # a+c is not the lineup
    assert pool.league()["a+b"]["games"] == 256
    restored = three_member_pool(weighting="target", targets=targets, window=1, homogeneous=0.5, lineups={"a+b": 1.0})
    restored.load_state_dict(pool.state_dict())
    np.testing.assert_allclose(restored.table_probabilities(), pool.table_probabilities())


def test_a_lineup_names_two_or_more_scripted_members():
    with pytest.raises(ValueError, match=r"lineups: expected two or more members of pool.scripted joined by '\+', "
                       r"got 'a\+d' \(no member from 'd' on; members: a, b, c\)"):  # fmt: skip
        three_member_pool(homogeneous=0.5, lineups={"a+d": 1.0})
    with pytest.raises(ValueError, match=r"got 'a' \(one member; members: a, b, c\)"):
        three_member_pool(homogeneous=0.5, lineups={"a": 1.0})
    with pytest.raises(ValueError, match=r"lineups: expected prior weights >= 0, got \{'a\+b': -1.0\}"):
        three_member_pool(homogeneous=0.5, lineups={"a+b": -1.0})
    missing = r"targets: expected a target win share for every scripted member and lineup, missing \['a\+b'\]"
    with pytest.raises(ValueError, match=missing):
        three_member_pool(weighting="target", targets={"a": 0.5, "b": 0.5, "c": 0.5}, lineups={"a+b": 1.0})


def test_split_lineup_keeps_a_plus_inside_a_member_name():
    members = ["threshold:T=+3", "utility", "ratio:r=0.3,runs=True"]
    assert split_lineup("threshold:T=+3+utility", members) == ("threshold:T=+3", "utility")
    assert split_lineup(" utility + ratio:r=0.3,runs=True", members) == ("utility", "ratio:r=0.3,runs=True")
