"""The self-play fast path: whose reward, when; opponents batched; pool mixture and resume state."""

from __future__ import annotations

import numpy as np
import pytest
from netweights import random_weights

from nothanks_env import encoding as enc
from nothanks_env.baselines import AlwaysTakePolicy, HeuristicPolicy, NeverTakePolicy, RandomPolicy
from nothanks_env.game import PASS, TAKE, Deal, Game, GameConfig
from nothanks_env.policy import Policy
from training.pool import OpponentPool
from training.vec_env import SelfPlayVecEnv

# Deal of the terminal-reward tests: 35 first, then 3..25 (one run), 26..34 removed face down.
DECK = np.array([[35, *range(3, 26)]])
HIDDEN = np.array([list(range(26, 35))])


def pool_of(**policies: Policy) -> OpponentPool:
    return OpponentPool({name: (1.0, {0: p}) for name, p in policies.items()}, seed=0)


def fixed_env(reward: str = "win_share") -> SelfPlayVecEnv:
    pool = pool_of(always=AlwaysTakePolicy(), never=NeverTakePolicy())
    env = SelfPlayVecEnv([GameConfig(num_players=3)], 1, pool, reward=reward, seed=0)
    env.reset()
    return env


@pytest.mark.parametrize("reward, expected", [("win_share", 0.0), ("penalty_diff", -0.35)])
def test_learner_is_paid_its_loss_when_an_opponent_takes_the_last_card(reward, expected):
    env = fixed_env(reward)
    obs, mask = env.force_deal(0, DECK, HIDDEN, first_seat=2, learner_seat=2, opponents=["always", "never", "-"])
    assert mask.tolist() == [True, True]
    assert obs[enc.SLICES["face_up_card"].start + 35 - 3] == 1.0
    # Learner takes 35 (no pot) and acts again: no reward yet.
    _, r, d, _ = env.step(np.array([TAKE]))
    assert d.tolist() == [False] and r.tolist() == [0.0]
    # It passes 3; seat 0 (always-take) takes 3..25 and the game ends on its take. Seat 1 never acts.
    # Penalties: learner 35 - 10 = 25; seat 0: 3 - 12 = -9; seat 1: -11 (wins).
    _, r, d, infos = env.step(np.array([PASS]))
    assert d.tolist() == [True]
    assert r[0] == pytest.approx(expected)  # penalty_diff: ((-9 - 11) / 2 - 25) / 100
    assert infos[0]["penalty"] == 25 and infos[0]["win"] == 0.0 and infos[0]["episode"]["l"] == 2


def test_learner_is_paid_its_tie_share_when_an_opponent_takes_the_last_card():
    env = fixed_env()
    env.force_deal(0, DECK, HIDDEN, first_seat=0, learner_seat=0, opponents=["-", "never", "always"])
    # Learner passes, seat 1 (never-take) passes, seat 2 takes 35 with 2 chips and then every card.
    # Penalties: learner -10, seat 1 -10, seat 2: 35 + 3 - 13 = 25: a two-way tie for the win.
    _, r, d, infos = env.step(np.array([PASS]))
    assert d.tolist() == [True] and r.tolist() == [0.5]
    assert infos[0]["penalty"] == -10 and infos[0]["episode"]["l"] == 1


def test_rewards_match_the_scalar_engine_on_random_games():
    """Replay each finished game in the scalar engine: the learner's reward is its own win share there."""
    pool = pool_of(heuristic=HeuristicPolicy(), never=NeverTakePolicy())
    cfg = GameConfig(num_players=3)
    env = SelfPlayVecEnv([cfg], 1, pool, seed=5)
    t = env.tables[0]
    env.reset()
    rng = np.random.default_rng(1)
    on_opponent = 0
    for _ in range(40):  # games
        deal = Deal(tuple(int(c) for c in t.game.deck[0]), tuple(int(c) for c in t.game.removed_hidden[0]))
        first, me = int(t.game.first_seat[0]), int(t.learner[0])
        seats = [None if s == me else pool.members[int(i)] for s, i in enumerate(t.opponents[0])]
        mine: list[int] = []
        while True:
            a = TAKE if not env.action_masks()[0, PASS] or rng.random() < 0.3 else PASS
            mine.append(a)
            _, r, d, _ = env.step(np.array([a]))
            if d[0]:
                break
        g = Game(cfg)
        g.reset(deals=[deal])
        g.current_seat = g.first_seat = first
        todo = list(mine)
        while not g.is_over:
            seat = g.current_seat
            last = seat
            g.step(todo.pop(0) if seat == me else seats[seat].policy(3).act(g.seat_view(seat)))
        assert todo == []
        on_opponent += last != me
        _, winners = g.ranks_and_winners()
        assert r[0] == pytest.approx(1 / len(winners) if me in winners else 0.0)
    assert on_opponent >= 10  # most games end on an opponent's take


def test_every_slot_is_at_the_learners_turn_and_rewards_are_win_shares():
    pool = pool_of(random=RandomPolicy(seed=1), heuristic=HeuristicPolicy())
    pool.add_snapshot(random_weights(), step=0)
    configs = [GameConfig(num_players=n) for n in (3, 5)]
    env = SelfPlayVecEnv(configs, 8, pool, seed=3)
    obs = env.reset()
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(300):
        assert obs.shape == (16, enc.OBS_SIZE) and obs.dtype == np.float32
        for t in env.tables:
            assert not t.game.done.any()
            assert (t.game.seat == t.learner).all()
        np.testing.assert_array_equal(obs[:, enc.SLICES["to_act"].start], 1.0)  # the viewer acts
        players = obs[:, enc.SLICES["num_players"]].argmax(axis=1) + 3
        assert players.tolist() == [3] * 8 + [5] * 8
        masks = env.action_masks()
        actions = np.where(masks[:, PASS] & (rng.random(16) < 0.7), PASS, TAKE)
        obs, rewards, dones, infos = env.step(actions)
        assert ((rewards == 0) | dones).all()
        for i in np.flatnonzero(dones):
            assert 0.0 <= rewards[i] <= 1.0 and infos[i]["num_players"] == (3 if i < 8 else 5)
            ends += 1
    assert ends > 20
    assert env.opponent_decisions > 300 * 16


class CountingPolicy(Policy):
    name = "counting"

    def __init__(self) -> None:
        super().__init__(0)
        self.calls, self.games = 0, 0

    def act_batch(self, view):
        self.calls += 1
        self.games += len(view)
        return np.where(view.own_chips > 0, PASS, TAKE)


def test_opponents_act_in_one_batched_call_per_policy_per_round():
    bot = CountingPolicy()
    env = SelfPlayVecEnv([GameConfig(num_players=4)], 64, pool_of(counting=bot), seed=0)
    env.reset()
    for _ in range(20):
        env.step(np.ones(64, dtype=np.int64))
    # Never-take opponents: up to 3 rounds after each learner take, each one call for all games.
    assert bot.games == env.opponent_decisions
    assert bot.games / bot.calls > 16


def league_env(weighting: str) -> SelfPlayVecEnv:
    pool = OpponentPool(
        {"heuristic": (1.0, {0: HeuristicPolicy()}), "random": (1.0, {0: RandomPolicy(seed=1)})},
        weighting=weighting,
        window=200,
        seed=0,
    )
    env = SelfPlayVecEnv([GameConfig(num_players=3)], 64, pool, seed=0)
    env.reset()
    return env


def play_randomly(env: SelfPlayVecEnv, steps: int) -> None:
    rng = np.random.default_rng(0)
    for _ in range(steps):
        masks = env.action_masks()
        acts = np.where(masks[:, 0] & masks[:, 1], rng.integers(0, 2, env.num_envs), masks[:, 1].astype(int))
        env.step(acts)


def test_league_weights_move_toward_the_opponent_that_beats_the_learner():
    env = league_env("hard")
    assert env.pool.league()["heuristic"]["share"] == pytest.approx(0.5)
    play_randomly(env, 300)  # a random learner: the heuristic crushes it, random opponents do not
    league = env.pool.league()
    assert league["heuristic"]["games"] > 500 and league["random"]["games"] > 300
    assert league["heuristic"]["win_rate"] < 0.1
    assert league["random"]["win_rate"] > 2 * league["heuristic"]["win_rate"] + 0.05
    h, r = league["heuristic"], league["random"]
    assert h["score"] < r["score"]
    assert h["share"] > 0.55 and h["share"] + r["share"] == pytest.approx(1.0)
    assert h["share"] / r["share"] == pytest.approx((0.05 + (1 - h["score"]) ** 2) / (0.05 + (1 - r["score"]) ** 2))
    # and the draws follow the weights
    env.pool.composition()
    play_randomly(env, 100)
    assert env.pool.composition()["heuristic"] > 0.55


def test_uniform_league_is_the_fixed_mixture_and_league_state_roundtrips():
    env = league_env("uniform")
    play_randomly(env, 200)
    league = env.pool.league()
    assert league["heuristic"]["share"] == pytest.approx(0.5)
    assert league["heuristic"]["win_rate"] < league["random"]["win_rate"]
    state = env.pool.state_dict()
    other = league_env("uniform").pool
    other.load_state_dict(state)
    assert other.league() == league


def test_a_lineup_is_seated_and_scored_in_the_self_play_env():
    """4 players, every table a one-member table or the lineup never+random (never-take, random, never-take after
    the learner): the env seats it in that order, and the league's win rate for it is the mean of the learner's
    win shares at exactly its tables (whatever the seat order), and at no other."""
    pool = OpponentPool(
        {"never": (1.0, {0: NeverTakePolicy()}), "random": (1.0, {0: RandomPolicy(seed=1)})},
        homogeneous=1.0,
        lineups={"never+random": 1.0},
        window=10_000,
        seed=0,
    )
    env = SelfPlayVecEnv([GameConfig(num_players=4)], 64, pool, seed=0)
    env.reset()
    h, r = pool.active
    seen = set()
    for row in env.tables[0].opponents:
        seat = int(np.flatnonzero(row < 0)[0])
        seen.add(tuple(int(row[(seat + k) % 4]) for k in (1, 2, 3)))
    assert seen == {(h, h, h), (r, r, r), (h, r, h)}
    wins: list[float] = []
    record = pool.record

    def spy(opponents: np.ndarray, win: np.ndarray, num_players: int) -> None:
        lineup = (np.sort(opponents, axis=1) == [-1, h, h, r]).all(axis=1)
        wins.extend(win[lineup].tolist())
        record(opponents, win, num_players)

    pool.record = spy
    for _ in range(800):  # a learner that passes while it has chips: it wins some games and loses others
        env.step(np.where(env.action_masks()[:, 0], PASS, TAKE))
    league = pool.league()
    assert league["never+random"]["games"] == len(wins) > 200
    assert league["never+random"]["win_rate"] == pytest.approx(np.mean(wins))
    assert 0.05 < np.mean(wins) < 0.95
    assert league["never+random"]["share"] == pytest.approx(1 / 3)
