"""The Gymnasium vector env: equal to N single envs step by step (autoreset included), batching, arguments."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from nothanks_env.game import PASS, TAKE, IllegalActionError, RuleError
from nothanks_env.gym_env import ENV_ID, SingleAgentEnv
from nothanks_env.gym_vector import NoThanksVectorEnv
from nothanks_env.policy import Policy

REPO = Path(__file__).resolve().parent.parent


def assert_same(a, b, path: str = "infos") -> None:
    """Equal values, dtypes and shapes, through dicts and object arrays."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), (path, sorted(a), sorted(b))
        for k in a:
            assert_same(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, np.ndarray) and a.dtype == object:
        assert b.dtype == object and a.shape == b.shape, path
        for i, (x, y) in enumerate(zip(a, b)):
            assert (x is None and y is None) or np.array_equal(x, y), f"{path}[{i}]"
    else:
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape, (path, a.dtype, b.dtype, a.shape, b.shape)
        np.testing.assert_array_equal(a, b, err_msg=path)


CASES = [
    {"num_players": 3, "opponents": ["random", "heuristic"]},
    {"num_players": 5, "opponents": ["stochastic", "heuristic", "random", "threshold"], "reward": "rank"},
    {"num_players": 4, "opponents": "random", "chip_memory": True, "reward": "penalty"},
    {"num_players": 3, "opponents": ["threshold", "heuristic"], "chip_memory": True, "behaviour": True},
    {"preset": "open_removed", "num_players": 4, "opponents": "utility", "learner_seat": 2},
    {"num_players": 3, "opponents": ["always-take", "never-take"]},  # games that end before the learner acts
]


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("kwargs", CASES, ids=lambda k: "-".join(f"{v}" for v in k.values())[:40])
def test_vector_env_equals_single_envs_step_by_step(kwargs, mode):
    n = 6
    vec = NoThanksVectorEnv(n, autoreset_mode=mode, **kwargs)
    ref = SyncVectorEnv([lambda: SingleAgentEnv(**kwargs) for _ in range(n)], autoreset_mode=mode)
    assert vec.metadata["autoreset_mode"] is mode
    assert vec.single_observation_space == ref.single_observation_space
    assert vec.observation_space == ref.observation_space and vec.action_space == ref.action_space
    rng = np.random.default_rng(0)
    ends = 0
    for seed in (3, [7, 8, 9, 10, 11, 12]):
        (obs_v, info_v), (obs_r, info_r) = vec.reset(seed=seed), ref.reset(seed=seed)
        assert_same(obs_v, obs_r, "obs")
        assert_same(info_v, info_r)
        for step in range(150):
            mask = info_r["action_mask"]
            actions = np.where(mask[:, PASS] == 1, rng.integers(0, 2, n), TAKE).astype(np.int64)
            out_v, out_r = vec.step(actions), ref.step(actions)
            for name, a, b in zip(("obs", "rewards", "terminations", "truncations", "infos"), out_v, out_r):
                assert_same(a, b, f"step {step}: {name}")
            info_r = out_r[4]
            ends += int(out_r[2].sum())
            np.testing.assert_array_equal(vec.action_masks(), np.asarray(ref.call("action_masks")))
    assert ends > 20


ASYNC_WITH_A_CHECKPOINT = """
import gymnasium, numpy as np, torch
import nothanks_env

def run():
    envs = gymnasium.make_vec(
        "nothanks/NoThanks-v0", num_envs=2, vectorization_mode="async", opponents="ppo-3p",
        vector_kwargs={"context": "fork"},
    )
    obs, _ = envs.reset(seed=0)
    for _ in range(30):
        obs, *_ = envs.step(np.ones(2, dtype=np.int64))  # TAKE is always legal
    envs.close()
    return obs.shape

if __name__ == "__main__":
    threads = torch.get_num_threads()
    print("loaded first", run(), flush=True)  # the parent loads the checkpoint (for the spaces), then forks
    torch.ones(1 << 22).add_(1).sum()  # the user's own torch work, which may start the pool before forking
    print("pool started", run(), torch.get_num_threads() == threads, flush=True)
"""


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs the fork start method")
def test_async_make_vec_with_a_checkpoint_opponent_does_not_hang_after_fork(tmp_path):
    # The parent loaded ppo-3p with torch's OpenMP pool started; every forked worker then waited forever at its
    # first parallel torch operation (copying the weights in), and make_vec never returned.
    script = tmp_path / "async_checkpoint.py"
    script.write_text(ASYNC_WITH_A_CHECKPOINT)
    proc = subprocess.Popen(
        [sys.executable, str(script)], cwd=tmp_path, env=os.environ | {"PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        out, err = proc.communicate(timeout=60)  # a few seconds when it works
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the workers too
        out, err = proc.communicate()
        pytest.fail(f"async make_vec with a checkpoint opponent hung after fork; printed {out!r}")
    assert proc.returncode == 0, err
    assert out.splitlines() == ["loaded first (2, 389)", "pool started (2, 389) True"]


def test_make_vec_builds_the_batched_env():
    envs = gymnasium.make_vec(ENV_ID, num_envs=3, vectorization_mode="vector_entry_point", opponents="threshold")
    assert isinstance(envs.unwrapped, NoThanksVectorEnv) and envs.num_envs == 3
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (3, 389) and obs.dtype == np.float32 and infos["action_mask"].dtype == np.int8
    same = gymnasium.make_vec(ENV_ID, num_envs=3, vectorization_mode="sync", opponents="threshold")
    assert_same(same.reset(seed=0)[0], obs, "obs")


class Counting(Policy):
    """Never-take, counting its calls and the decisions in them."""

    name = "counting"

    def __init__(self, stochastic: bool = False) -> None:
        super().__init__()
        self.stochastic = stochastic
        self.calls, self.decisions = 0, 0

    def act_batch(self, view):
        self.calls += 1
        self.decisions += len(view)
        return np.where(view.own_chips > 0, PASS, TAKE)


def test_deterministic_opponents_are_shared_and_batched_stochastic_ones_copied_per_sub_env():
    shared, own = Counting(), Counting(stochastic=True)
    vec = NoThanksVectorEnv(64, num_players=4, opponents=[shared, shared, own])
    assert vec.policies[0] is shared and len(vec.policies) == 1 + 64
    assert all(p is not own and isinstance(p, Counting) for p in vec.policies[1:])
    assert (vec.slot_ids[:, 0] == vec.slot_ids[:, 1]).all() and len(set(vec.slot_ids[:, 2].tolist())) == 64
    vec.reset(seed=0)
    for _ in range(20):
        vec.step(np.ones(64, dtype=np.int64))
    copies = vec.policies[1:]
    assert shared.decisions + sum(p.decisions for p in copies) == vec.opponent_decisions
    assert shared.decisions / shared.calls > 16  # one call per round for all 64 sub-envs
    assert all(p.calls == p.decisions for p in copies)  # one sub-env's game per call


def test_shared_opponent_rng_batches_stochastic_opponents_and_stays_reproducible():
    kwargs = {"num_players": 4, "opponents": ["random", "stochastic", "heuristic"], "opponent_rng": "shared"}
    a, b = NoThanksVectorEnv(32, **kwargs), NoThanksVectorEnv(32, **kwargs)
    assert len(a.policies) == 3 and (a.slot_ids == [0, 1, 2]).all()
    single = SingleAgentEnv(num_players=4, opponents=["random", "stochastic", "heuristic"])
    (obs_a, info_a), (obs_b, _) = a.reset(seed=5), b.reset(seed=5)
    # deals and learner seats still follow each sub-env's own seed, as in a single env
    for i in range(32):
        single.reset(seed=5 + i)
        assert single.learner == info_a["learner_seat"][i]
        np.testing.assert_array_equal(a.table.game.deck[i], single.game.deals[0].deck)
    np.testing.assert_array_equal(obs_a, obs_b)
    rng = np.random.default_rng(1)
    for _ in range(100):
        acts = np.where(a.action_masks()[:, PASS], rng.integers(0, 2, 32), TAKE)
        out_a, out_b = a.step(acts), b.step(acts)
        for x, y in zip(out_a[:4], out_b[:4]):
            np.testing.assert_array_equal(x, y)


def test_arguments_and_actions_are_checked():
    with pytest.raises(RuleError, match=r"num_deals: expected 1 .* got 3"):
        NoThanksVectorEnv(2, preset="match3")
    with pytest.raises(RuleError, match="num_envs: expected an int >= 1, got 0"):
        NoThanksVectorEnv(0)
    with pytest.raises(
        RuleError, match=r"autoreset_mode: expected one of \['NextStep', 'SameStep', 'Disabled'\], got 'Never'"
    ):
        NoThanksVectorEnv(2, autoreset_mode="Never")
    with pytest.raises(RuleError, match=r"opponent_rng: expected one of \['per_env', 'shared'\], got 'global'"):
        NoThanksVectorEnv(2, opponent_rng="global")
    with pytest.raises(RuleError, match="render_mode: expected None"):
        NoThanksVectorEnv(2, render_mode="ansi")
    vec = NoThanksVectorEnv(2, opponents="never-take", starting_chips=0, learner_seat=0, starting_seat=0)
    with pytest.raises(RuntimeError, match="reset"):
        vec.step(np.ones(2, dtype=np.int64))
    for options, message in [
        ({"deals": []}, "options: expected keys among 'reset_mask', got unknown key 'deals'"),
        ([1], "options: expected a dict or None, got [1]"),
        ([], "options: expected a dict or None, got []"),  # [] and 0 were taken as no options
        (0, "options: expected a dict or None, got 0"),
    ]:
        with pytest.raises(RuleError) as e:
            vec.reset(options=options)
        assert str(e.value) == message
    for seed, message in [
        ([1], "seed: expected a list of 2 ints or None, got 1: [1]"),
        ((1, 2, 3), "seed: expected a list of 2 ints or None, got 3: (1, 2, 3)"),
        ([1.5, 2], "seed[0]: expected an int or None, got 1.5"),  # was cut to 1
        ([None, True], "seed[1]: expected an int or None, got True"),  # was seed 1
        ([2, "3"], "seed[1]: expected an int or None, got '3'"),
        (1.5, "seed: expected None, an int or a list of 2 ints or None, got 1.5"),
        (True, "seed: expected None, an int or a list of 2 ints or None, got True"),
    ]:
        with pytest.raises(RuleError) as e:
            vec.reset(seed=seed)
        assert str(e.value) == message
    vec.reset(seed=[np.int64(3), None])  # NumPy integers are ints
    assert vec.reset(seed=[np.int64(3), 4])[0].tolist() == vec.reset(seed=3)[0].tolist()
    vec.reset(seed=0)
    before = vec.table.game.pos.copy()
    for bad, pattern in [
        (np.ones(3, dtype=np.int64), r"actions: expected ints of shape \(2,\), got int64 of shape \(3,\)"),
        (np.ones(2), r"actions: expected ints of shape \(2,\), got float64"),
        (np.array([1, 2]), r"actions\[1\]: expected PASS \(0\) or TAKE \(1\), got"),
        (np.array([1, 0]), r"actions\[1\]: expected TAKE \(1\) because seat 0 has 0 chips, got PASS"),
    ]:
        with pytest.raises(IllegalActionError, match=pattern):
            vec.step(bad)
    np.testing.assert_array_equal(vec.table.game.pos, before)


def test_an_opponent_returning_a_fraction_or_an_id_out_of_range_is_refused_naming_it():
    # 1.9 was assigned into the table's int actions (a TAKE); 2 was refused as "actions[0]: expected PASS (0) or
    # TAKE (1)", which read as the learner's actions
    from nothanks_env.policy import PolicyActionError

    class Const(Policy):
        def __init__(self, value: object) -> None:
            super().__init__()
            self.value, self.name = value, f"const-{value}"

        def act_batch(self, view):
            return np.full(len(view), self.value)

    for value in (1.9, 2):
        vec = NoThanksVectorEnv(2, opponents=[Const(value), "never-take"], learner_seat=0, starting_seat=0)
        vec.reset(seed=0)
        with pytest.raises(PolicyActionError) as e:
            vec.step(np.full(2, PASS))
        assert str(e.value) == (
            f"policy const-{value}: expected whole action ids (PASS=0 or TAKE=1), got 2 of 2 that are not, the "
            f"first {value}"
        )
    vec = NoThanksVectorEnv(2, opponents=[Const(1.0), "never-take"], learner_seat=0, starting_seat=0)
    vec.reset(seed=0)
    _, _, terminated, _, _ = vec.step(np.full(2, PASS))
    assert terminated.tolist() == [True, True]  # 1.0 is TAKE: seat 1 takes every card after the learner's pass


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_partial_resets_equal_sync_vector_env_of_single_envs(mode):
    # options={"reset_mask": mask} was refused ("the vector env takes no reset options"), and "Disabled"
    # autoreset, which needs it, with it. Partial resets at random moments (mid-game, and in NextStep mode also
    # right after a game ended), with no seed, an int seed and a list of seeds, against SyncVectorEnv.
    n = 5
    kwargs = {"num_players": 4, "opponents": ["random", "heuristic", "stochastic"]}
    vec = NoThanksVectorEnv(n, autoreset_mode=mode, **kwargs)
    ref = SyncVectorEnv([lambda: SingleAgentEnv(**kwargs) for _ in range(n)], autoreset_mode=mode)
    (obs_v, info_v), (obs_r, info_r) = vec.reset(seed=0), ref.reset(seed=0)
    assert_same(obs_v, obs_r, "obs")
    assert_same(info_v, info_r)
    first_infos, first_seats = info_v, info_v["learner_seat"].copy()
    rng = np.random.default_rng(2)
    terminated = np.zeros(n, dtype=bool)
    partial = ended_then_reset = full = 0
    for step in range(400):
        mask, whole = None, terminated.any() and step % 10 == 5  # a full reset right after games ended, unseeded
        if whole:
            mask = np.ones(n, dtype=bool)
        elif terminated.any() and (mode is AutoresetMode.DISABLED or step % 2):  # games that just ended, and others
            mask = terminated | (rng.random(n) < 0.2)
        elif step % 9 == 4:  # mid-game
            mask = rng.random(n) < 0.3
            mask[rng.integers(n)] = True
        if mask is not None:
            seed = [None, 100 + step, [int(s) if s < 50 else None for s in rng.integers(0, 100, n)]][step % 3]
            last_terminated = terminated.copy()
            if whole:
                (obs_v, info_v), (obs_r, info_r) = vec.reset(), ref.reset()
                full += 1
            else:
                options = {"reset_mask": mask}
                obs_v, info_v = vec.reset(seed=seed, options=options)
                assert options == {"reset_mask": mask}  # not popped, as SyncVectorEnv pops it
                obs_r, info_r = ref.reset(seed=seed, options={"reset_mask": mask.copy()})
            assert terminated.tolist() == last_terminated.tolist()  # the last step's array is the caller's
            assert_same(obs_v, obs_r, f"step {step}: partial reset obs")
            assert_same(info_v, info_r, f"step {step}: partial reset infos")
            assert info_v["_action_mask"].tolist() == mask.tolist()
            partial += 1
            ended_then_reset += int((terminated & mask).sum())
        actions = np.where(vec.action_masks()[:, PASS], rng.integers(0, 2, n), TAKE).astype(np.int64)
        out_v, out_r = vec.step(actions), ref.step(actions)
        for name, a, b in zip(("obs", "rewards", "terminations", "truncations", "infos"), out_v, out_r):
            assert_same(a, b, f"step {step}: {name}")
        terminated = out_v[2]
        np.testing.assert_array_equal(vec.action_masks(), np.asarray(ref.call("action_masks")))
    assert partial > 40 and ended_then_reset > 10 and full >= 3
    # the first reset's infos are the caller's: the table's seats array, which later games changed, was returned
    assert first_infos["learner_seat"].tolist() == first_seats.tolist() != vec.table.learner.tolist()
    if mode is AutoresetMode.DISABLED:
        with pytest.raises(IllegalActionError) as e:
            while True:  # play on until some game ends, then step once more without resetting it
                done = vec.step(np.ones(n, dtype=np.int64))[2]
                if done.any():
                    vec.step(np.ones(n, dtype=np.int64))
        assert str(e.value) == (
            f"step: expected a game in progress in every sub-env (autoreset_mode 'Disabled'), got sub-envs "
            f"{np.flatnonzero(done).tolist()} whose game ended; reset them first with reset(options={{'reset_mask': "
            f"mask}})"
        )


def test_a_partial_reset_deals_fresh_games_where_masked_and_leaves_the_others():
    vec = NoThanksVectorEnv(4, num_players=3, opponents="heuristic")
    vec.reset(seed=0)
    for _ in range(5):
        obs, _, terminated, _, infos = vec.step(np.ones(4, dtype=np.int64))
    assert not terminated.any()
    pos, deck = vec.table.game.pos.copy(), vec.table.game.deck.copy()
    mask = np.array([True, False, True, False])
    new_obs, new_infos = vec.reset(seed=10, options={"reset_mask": mask})
    np.testing.assert_array_equal(new_obs[~mask], obs[~mask])  # the others: as the last step left them
    np.testing.assert_array_equal(vec.table.game.pos[~mask], pos[~mask])
    np.testing.assert_array_equal(vec.table.game.deck[~mask], deck[~mask])
    single = SingleAgentEnv(num_players=3, opponents="heuristic")
    for i in (0, 2):  # the reset ones: the first decision of a single env reset with seed 10 + i
        first, info = single.reset(seed=10 + i)
        np.testing.assert_array_equal(new_obs[i], first)
        np.testing.assert_array_equal(vec.table.game.deck[i], single.game.deals[0].deck)
        assert new_infos["learner_seat"][i] == info["learner_seat"]
        assert new_infos["action_mask"][i].tolist() == info["action_mask"].tolist()
    assert new_infos["_action_mask"].tolist() == new_infos["_learner_seat"].tolist() == mask.tolist()
    assert new_infos["action_mask"][~mask].tolist() == [[0, 0], [0, 0]]  # as SyncVectorEnv: no info there
    # the same calls replay the same games
    again = NoThanksVectorEnv(4, num_players=3, opponents="heuristic")
    again.reset(seed=0)
    for _ in range(5):
        again.step(np.ones(4, dtype=np.int64))
    np.testing.assert_array_equal(again.reset(seed=10, options={"reset_mask": mask})[0], new_obs)


def test_a_bad_reset_mask_is_refused_naming_what_was_expected_and_nothing_is_reset():
    vec = NoThanksVectorEnv(3, num_players=3)
    with pytest.raises(RuleError) as e:
        vec.reset(options={"reset_mask": np.ones(3, dtype=bool)})
    assert str(e.value) == (
        "options['reset_mask']: expected a full reset() first (the other sub-envs have no game yet), got a partial "
        "reset before it"
    )
    obs, _ = vec.reset(seed=0)
    pos = vec.table.game.pos.copy()
    for mask, got in [
        ([True, False, True], "[True, False, True]"),
        (np.array([1, 0, 1]), "int64 array of shape (3,)"),
        (np.ones(2, dtype=bool), "bool array of shape (2,)"),
        (np.ones((3, 1), dtype=bool), "bool array of shape (3, 1)"),
    ]:
        with pytest.raises(RuleError) as e:
            vec.reset(seed=5, options={"reset_mask": mask})
        assert str(e.value) == f"options['reset_mask']: expected a bool NumPy array of shape (3,), got {got}"
    with pytest.raises(RuleError) as e:
        vec.reset(seed=5, options={"reset_mask": np.zeros(3, dtype=bool)})
    assert str(e.value) == (
        "options['reset_mask']: expected at least one True (a sub-env to reset), got [False, False, False]"
    )
    with pytest.raises(RuleError) as e:
        vec.reset(options={"reset_mask": np.ones(3, dtype=bool), "deals": []})
    assert str(e.value) == "options: expected keys among 'reset_mask', got unknown key 'deals'"
    np.testing.assert_array_equal(vec.table.game.pos, pos)  # nothing was reset


def test_a_negative_seed_is_refused_in_the_projects_words_by_both_gymnasium_envs():
    # seed=-1 raised Gymnasium's own error ("Seed must be greater or equal to zero"), not a RuleError naming seed;
    # the single env also refused NumPy integers that way and took True as seed 1.
    vec = NoThanksVectorEnv(2, opponents="random")
    first = vec.reset(seed=5)[0]
    for seed, message in [
        (-1, "seed: expected an int >= 0, got -1"),
        (np.int64(-3), "seed: expected an int >= 0, got np.int64(-3)"),
        ([0, -1], "seed[1]: expected an int >= 0 or None, got -1"),
        ([None, np.int64(-2)], "seed[1]: expected an int >= 0 or None, got np.int64(-2)"),
    ]:
        with pytest.raises(RuleError) as e:
            vec.reset(seed=seed)
        assert str(e.value) == message
    assert vec.reset(seed=[5, 6])[0].tolist() == first.tolist() == vec.reset(seed=np.int64(5))[0].tolist()
    single = SingleAgentEnv(opponents="random")
    for seed, message in [
        (-1, "seed: expected an int >= 0, got -1"),
        (np.int64(-1), "seed: expected an int >= 0, got np.int64(-1)"),
        (1.5, "seed: expected an int or None, got 1.5"),
        (True, "seed: expected an int or None, got True"),
    ]:
        with pytest.raises(RuleError) as e:
            single.reset(seed=seed)
        assert str(e.value) == message
    obs, info = single.reset(seed=np.int64(7))  # NumPy integers play, as in the vector env
    again, info_again = SingleAgentEnv(opponents="random").reset(seed=7)
    assert obs.tolist() == again.tolist() and info["learner_seat"] == info_again["learner_seat"]
    assert obs.tolist() == vec.reset(seed=7)[0][0].tolist()  # sub-env 0 with seed 7 is the single env with seed 7
