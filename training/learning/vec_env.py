"""The training fast path: one learner seat per game, opponents from a pool, many games per NumPy step.

:class:`SelfPlayVecEnv` is an SB3 ``VecEnv`` over :class:`~nothanks_env.table.LearnerTable` (one per player
count, so a mixed-count run is one network over one observation layout), the batched core that the
Gymnasium vector env :class:`nothanks_env.gym_vector.NoThanksVectorEnv` also runs on. Env slot ``i`` is the
learner's seat in one game:

- each new game deals fresh cards, puts the learner in a seat drawn uniformly, and draws each other seat's
  opponent from the :class:`OpponentPool`;
- after the learner acts, every game's opponents act until it is the learner's turn again (or the game
  ends), with one batched ``act_batch`` call per opponent policy per round, never a per-decision predict;
- **reward**: when a game ends, on the learner's take or on an opponent's, the learner's slot gets the
  learner's own final reward in a :mod:`nothanks_env.outcome` mode (``win_share``: 1, or 1/k on a k-way tie
  for lowest penalty, else 0; ``penalty_diff``: (mean opponent penalty - own penalty) / 100) and ``done``;
  every other step pays 0.
  The observation returned with ``done`` is already the first decision of the slot's next game;
  ``terminal_observation`` is not provided (there are no truncations, so SB3 never needs it).
- a game that ends before the learner's first decision (possible only against always-take bots) is
  re-dealt silently: the learner never acted in it, so there is nothing to reward.

The env steps games; the pool (:mod:`training.pool`, re-exported here) owns the opponents: scripted
baselines and frozen :class:`~training.checkpoints.MLPPolicy` snapshots of the learner, all behind the one
``Policy`` interface.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import partial
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from nothanks_env import encoding as enc
from nothanks_env.game import GameConfig
from nothanks_env.outcome import reward_values_batch, selfplay_reward, win_shares
from nothanks_env.policy import Policy
from nothanks_env.scalar_table import ScalarLearnerTable
from nothanks_env.table import Finished, LearnerTable
from training.learning.pool import Member, OpponentPool, Weighting, pfsp_weight

__all__ = ["BatchVecEnv", "Member", "OpponentPool", "Reward", "SelfPlayVecEnv", "Weighting", "pfsp_weight"]

Reward = Literal["win_share", "penalty_diff"]
"""Self-play reward modes (:data:`nothanks_env.outcome.SELFPLAY_REWARDS`); ``"win"`` is a deprecated alias of
``"win_share"``."""


class BatchVecEnv(VecEnv):
    """An SB3 ``VecEnv`` that is one object over all its slots, with no per-slot gym env to reach into.

    The ``VecEnv`` boilerplate of such an env, held once for :class:`SelfPlayVecEnv` and
    :class:`training.learning.collector.CollectorEnv`: no per-env attribute but ``render_mode`` (None, so
    SB3 renders nothing), no per-env method, no wrapper, no reseeding after construction, nothing to close.
    A subclass with a per-env attribute or method (``action_masks``) answers it in its own :meth:`get_attr`
    or :meth:`env_method` and hands every other name to these, which raise ``AttributeError`` naming the
    subclass. ``reset``, ``step_async`` and ``step_wait`` are the subclass's.
    """

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name == "render_mode":
            return [None] * self._count(indices)
        raise AttributeError(f"{type(self).__name__} has no per-env attribute {attr_name!r}")

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"{type(self).__name__} has no per-env attribute {attr_name!r}")

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        raise AttributeError(f"{type(self).__name__} has no per-env method {method_name!r}")

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * self._count(indices)

    def seed(self, seed: int | None = None) -> list[int | None]:
        """Nothing: the slots are seeded once, when the env is built (reseeding mid-run would break resume)."""
        return [None] * self.num_envs

    def close(self) -> None:
        """Nothing to release (a subclass that holds a process overrides this)."""

    def _count(self, indices: Any) -> int:
        """How many slots ``indices`` (None: all, an int, or a sequence of ints) names."""
        return len(list(self._get_indices(indices)))


class SelfPlayVecEnv(BatchVecEnv):
    """SB3 ``VecEnv``: ``games_per_count`` learner slots for each player count, opponents from ``pool``.

    A thin adapter over one :class:`~nothanks_env.table.LearnerTable` per player count (the machinery of
    the Gymnasium vector env too): the pool seats each new game, the table's ``on_finish`` hook reports
    every finished game to the pool's league (:meth:`OpponentPool.record`) before the next seats are drawn.

    Observation: float32 ``(OBS_SIZE,)`` laid out as :data:`nothanks_env.encoding.LAYOUT` (the same for every
    player count), encoded with ``chip_memory``; with ``behaviour`` ``(OBS_SIZE + BEHAVIOUR_SIZE,)``, the
    seats' public pass/take records (:data:`nothanks_env.encoding.BEHAVIOUR_LAYOUT`) last.
    Action: ``Discrete(2)``, PASS (0) or TAKE (1); illegal
    actions (PASS at 0 chips) raise, and MaskablePPO never picks them given :meth:`action_masks`.
    Configs with special cards (``wildcards``) run on :class:`~nothanks_env.scalar_table.ScalarLearnerTable`
    (the batched engine has none): observation ``(SPECIAL_OBS_SIZE,)`` (499), action ``Discrete(125)``
    (:data:`nothanks_env.game.ACTION_PIECES`), masks (num_envs, 125); every config of one env must agree.
    Reward and episode end: see the module docstring. ``info["episode"]`` (``r``, ``l`` in learner turns,
    ``t``) and ``info["num_players"]`` come with each ``done``.

    Args:
        configs: one single-deal :class:`GameConfig` per player count.
        games_per_count: games stepped together per config.
        pool: the opponents.
        chip_memory: encoding of the learner's observation.
        behaviour: append the seats' pass/take records to the learner's observation.
        reward: ``"win_share"`` (the objective) or ``"penalty_diff"``; ``"win"``, the old name of
            ``"win_share"``, is read with a DeprecationWarning.
        seed: seeds the deals and learner seats.

    Attributes:
        tables: one :class:`~nothanks_env.table.LearnerTable` per config; opponent ids are pool member ids.
        seat_rngs: the RNG of each table's learner-seat draws (saved for resume with the engines' RNGs).
    """

    def __init__(
        self,
        configs: Sequence[GameConfig],
        games_per_count: int,
        pool: OpponentPool,
        *,
        chip_memory: bool = True,
        behaviour: bool = False,
        reward: Reward = "win_share",
        seed: int = 0,
    ) -> None:
        self.pool = pool
        self.chip_memory = chip_memory
        self.behaviour = behaviour
        self.reward_kind = selfplay_reward(reward)
        seeds = [int(s) for s in np.random.SeedSequence(seed).generate_state(len(configs))]
        self.seat_rngs = [np.random.default_rng(s + 1) for s in seeds]
        special = {bool(c.special_cards) for c in configs}
        if len(special) != 1:
            raise ValueError("configs: expected all with special cards or all without, got a mix")
        scalar = special.pop()
        table = ScalarLearnerTable if scalar else LearnerTable
        # the engine keeps pass/take records only if someone reads them: the learner (and so its snapshots)
        # or a pool member that is a network trained with them
        readers = behaviour or any(
            getattr(p, "behaviour", False) for m in pool.members.values() for p in m.policies.values()
        )
        extra = {} if scalar else {"record_behaviour": readers}
        self.tables = [
            table(
                c,
                games_per_count,
                policy=partial(self._member_policy, c.num_players),
                seat=partial(self._seat, c.num_players, rng),
                seed=s,
                chip_memory=chip_memory,
                behaviour=behaviour,
                on_finish=partial(self._record, c.num_players),
                **extra,
            )
            for c, s, rng in zip(configs, seeds, self.seat_rngs)
        ]
        size, actions = enc.obs_size(configs[0], behaviour), configs[0].num_actions
        obs_space = gym.spaces.Box(-np.inf, np.inf, shape=(size,), dtype=np.float32)
        super().__init__(games_per_count * len(configs), obs_space, gym.spaces.Discrete(actions))
        self._actions: np.ndarray | None = None
        self._masks = np.ones((self.num_envs, actions), dtype=bool)

    @property
    def seconds(self) -> dict[str, float]:
        """Wall seconds so far in ``engine``, ``opponents`` and ``encoding``, every table together (see
        :class:`~nothanks_env.table.LearnerTable`; zeros for special-card tables, which do not count)."""
        out = {"engine": 0.0, "opponents": 0.0, "encoding": 0.0}
        for t in self.tables:
            for k, v in getattr(t, "seconds", {}).items():
                out[k] += v
        return out

    @property
    def opponent_decisions(self) -> int:
        """Opponent actions taken so far, every game of every table."""
        return sum(t.opponent_decisions for t in self.tables)

    # ---------------------------------------------------------------- VecEnv API
    def reset(self) -> np.ndarray:
        for t in self.tables:
            t.reset()
        return self._observe()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        rewards, dones, infos = [], [], []
        start = 0
        for t in self.tables:
            fin = t.step(self._actions[start : start + t.num_games])  # every game is at the learner's turn
            start += t.num_games
            r = np.zeros(t.num_games, dtype=np.float32)
            d = np.zeros(t.num_games, dtype=bool)
            info: list[dict] = [{} for _ in range(t.num_games)]
            if len(fin):
                val, win, own = self._rewards(fin)
                r[fin.rows] = val
                d[fin.rows] = True
                now = time.time()
                for k, g in enumerate(fin.rows.tolist()):
                    info[g] = {
                        "episode": {"r": float(val[k]), "l": int(fin.turns[k]), "t": round(now - fin.started[k], 6)},
                        "num_players": t.num_players,
                        "win": float(win[k]),
                        "penalty": int(own[k]),
                    }
            rewards.append(r)
            dones.append(d)
            infos.extend(info)
        return self._observe(), np.concatenate(rewards), np.concatenate(dones), infos

    def action_masks(self) -> np.ndarray:
        """Legal actions of every learner slot: bool (num_envs, 2), column 0 PASS, 1 TAKE."""
        return self._masks

    def prune_pool(self) -> None:
        """Drop the snapshots beyond the pool's limit that no game still seats (:meth:`OpponentPool.prune`)."""
        self.pool.prune(np.concatenate([t.opponents.ravel() for t in self.tables]))

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name == "action_masks":
            return [self.action_masks] * self._count(indices)
        return super().get_attr(attr_name, indices)

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        if method_name == "action_masks":
            idx = list(self._get_indices(indices))
            return list(self._masks[idx])
        return super().env_method(method_name, *args, indices=indices, **kwargs)

    def force_deal(
        self,
        slot: int,
        deck: np.ndarray,
        removed_hidden: np.ndarray,
        *,
        first_seat: int,
        learner_seat: int,
        opponents: Sequence[str] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Replace slot ``slot``'s game by a fixed deal (for tests and demonstrations).

        Args:
            slot: env index.
            deck, removed_hidden: int arrays of shape (1, deck_size) and (1, num_removed).
            first_seat, learner_seat: seats that act first and that the learner plays.
            opponents: member names per seat (the learner's entry is ignored); default: drawn from the pool.

        Returns:
            The slot's observation float32 (OBS_SIZE,) and mask bool (2,), once opponents have acted.
        """
        offset = 0
        for t in self.tables:
            if slot - offset >= t.num_games:
                offset += t.num_games
                continue
            one = np.zeros(t.num_games, dtype=bool)
            one[slot - offset] = True
            if opponents is not None:
                by_name = {m.name: i for i, m in self.pool.members.items()}
                ids = np.array([[by_name[n] if s != learner_seat else -1 for s, n in enumerate(opponents)]])
            else:
                ids = self.pool.draw((1, t.num_players))
            t.new_games(
                one,
                deck=deck,
                removed_hidden=removed_hidden,
                first_seat=np.array([first_seat]),
                learner=np.array([learner_seat]),
                opponents=ids,
            )
            t.advance()
            obs = self._observe()
            return obs[slot], self._masks[slot]
        raise IndexError(f"slot: expected 0..{self.num_envs - 1}, got {slot}")

    # ---------------------------------------------------------------- internals
    def _observe(self) -> np.ndarray:
        obs, masks = zip(*(t.observe() for t in self.tables))
        self._masks = np.concatenate(masks).astype(bool)
        return np.concatenate(obs)

    def _member_policy(self, num_players: int, member_id: int) -> Policy:
        return self.pool.members[member_id].policy(num_players)

    def _seat(self, num_players: int, rng: np.random.Generator, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Learner seats drawn uniformly, every other seat's opponent drawn from the pool (and counted)."""
        learner = rng.integers(0, num_players, len(idx))
        return learner, self.pool.seat(learner, num_players)

    def _record(self, num_players: int, fin: Finished) -> None:
        """League statistics: every finished game, before its row's next opponents are drawn."""
        win = win_shares(fin.penalties)[np.arange(len(fin)), fin.learner]
        self.pool.record(fin.opponents, win, num_players)

    def _rewards(self, fin: Finished) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(reward, win share, own penalty) of the learner in each finished game, float64/float64/int64 (k,)."""
        rows = np.arange(len(fin))
        own = fin.penalties[rows, fin.learner]
        win = win_shares(fin.penalties)[rows, fin.learner]
        return reward_values_batch(fin.penalties, self.reward_kind)[rows, fin.learner], win, own
