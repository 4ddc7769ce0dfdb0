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
  learner's own final reward (``win``: its win share, 1 or 1/k on a k-way tie for lowest penalty, else 0;
  ``penalty_diff``: (mean opponent penalty - own penalty) / 100) and ``done``; every other step pays 0.
  The observation returned with ``done`` is already the first decision of the slot's next game;
  ``terminal_observation`` is not provided (there are no truncations, so SB3 never needs it).
- a game that ends before the learner's first decision (possible only against always-take bots) is
  re-dealt silently: the learner never acted in it, so there is nothing to reward.

The pool is the same ``Policy`` interface as everything else: scripted baselines and frozen
:class:`~training.checkpoints.MLPPolicy` snapshots of the learner.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3.common.vec_env import VecEnv

from nothanks_env import encoding as enc
from nothanks_env.game import GameConfig
from nothanks_env.policy import Policy
from nothanks_env.scalar_table import ScalarLearnerTable
from nothanks_env.table import Finished, LearnerTable
from nothanks_env.vector import winner_shares
from training.checkpoints import MLPPolicy

Reward = Literal["win", "penalty_diff"]
PENALTY_SCALE = 100.0


@dataclass
class Member:
    """One opponent in the pool: a scripted baseline (one policy per player count) or a snapshot."""

    id: int
    name: str
    kind: Literal["scripted", "snapshot"]
    policies: dict[int, Policy]
    weight: float = 0.0
    step: int = 0
    snapshot_weights: dict[str, torch.Tensor] | None = field(default=None, repr=False)

    def policy(self, num_players: int) -> Policy:
        return self.policies.get(num_players) or self.policies[0]


Weighting = Literal["hard", "variance", "uniform"]


def pfsp_weight(x: np.ndarray, weighting: Weighting, power: float) -> np.ndarray:
    """Prioritized fictitious self-play: how much to play an opponent the learner scores ``x`` against.

    Args:
        x: float64, any shape: the learner's *normalized* score against each opponent, in [0, 1]:
            its win share times n / ``beaten_at`` at n players, clipped (with the default ``beaten_at = 2``,
            0.5 = parity and 1 = wins twice its share).
        weighting: ``hard``: ``(1 - x) ** power``, most weight on what beats the learner; ``variance``:
            ``x * (1 - x)``, most weight on even matches; ``uniform``: 1 (a fixed mixture, as before).
        power: exponent of ``hard``.

    Returns:
        float64 of ``x``'s shape, >= 0 (before the pool's floor).
    """
    if weighting == "hard":
        return (1.0 - x) ** power
    if weighting == "variance":
        return x * (1.0 - x)
    if weighting == "uniform":
        return np.ones_like(x)
    raise ValueError(f"weighting: expected 'hard', 'variance' or 'uniform', got {weighting!r}")


class OpponentPool:
    """Scripted baselines plus up to ``max_snapshots`` frozen snapshots; draws the opponents of each table.

    Each opponent seat is drawn on its own, except that a share ``homogeneous`` of tables seat one member
    drawn once in every opponent seat (the gauntlet's "(P-1) x X" tables, where a policy that only meets
    a member next to others never learns to exploit it). Before the first snapshot every seat is drawn
    from the scripted members. Afterwards a share
    ``snapshot_weight`` of seats go to snapshots: ``latest_share`` of those to the newest, the rest evenly
    to the older ones (all to the newest while it is the only one).

    **League (PFSP).** The scripted share is split by ``prior x (floor + pfsp_weight(x))``, where ``x`` is
    the learner's normalized score against that member (win share x n / ``beaten_at``, clipped to [0, 1];
    see :func:`pfsp_weight`), estimated from the games
    being played: every finished game updates an exponential moving average for each member seated in
    it (once per seat it filled), with time constant ``window`` games. The score starts at parity; the
    reported win rate starts at the first batch's mean. With ``weighting="uniform"`` the split is the
    priors alone (the fixed mixture).

    Args:
        scripted: name -> (prior weight, {num_players: policy}).
        snapshot_weight, latest_share, max_snapshots, homogeneous: the mixture (see
            :class:`training.config.PoolSection`).
        weighting, power, floor, window, beaten_at: the league (see :class:`training.config.LeagueSection`).
        chip_memory, behaviour, activation, snapshot_sample: how snapshots encode and act.
        seed: seeds the draws and the snapshots' sampling.
    """

    def __init__(
        self,
        scripted: Mapping[str, tuple[float, Mapping[int, Policy]]],
        *,
        snapshot_weight: float = 0.5,
        latest_share: float = 0.5,
        max_snapshots: int = 8,
        weighting: Weighting = "uniform",
        power: float = 2.0,
        floor: float = 0.05,
        window: int = 2000,
        beaten_at: float = 2.0,
        homogeneous: float = 0.0,
        chip_memory: bool = True,
        behaviour: bool = False,
        activation: str = "relu",
        snapshot_sample: bool = True,
        seed: int | None = None,
    ) -> None:
        if not scripted or sum(w for w, _ in scripted.values()) <= 0:
            raise ValueError(f"scripted: expected at least one opponent with weight > 0, got {dict(scripted)}")
        pfsp_weight(np.zeros(1), weighting, power)  # validates weighting
        if window < 1 or floor < 0:
            raise ValueError(f"window, floor: expected window >= 1 and floor >= 0, got {window}, {floor}")
        if beaten_at <= 1.0:
            raise ValueError(f"beaten_at: expected a multiple of parity > 1, got {beaten_at}")
        if not 0.0 <= homogeneous <= 1.0:
            raise ValueError(f"homogeneous: expected a share in [0, 1], got {homogeneous}")
        self.rng = np.random.default_rng(seed)
        self.snapshot_weight = snapshot_weight
        self.latest_share = latest_share
        self.max_snapshots = max_snapshots
        self.weighting, self.power, self.floor, self.window = weighting, power, floor, window
        self.beaten_at, self.homogeneous = beaten_at, homogeneous
        self.chip_memory = chip_memory
        self.behaviour = behaviour
        self.activation = activation
        self.snapshot_sample = snapshot_sample
        self._next_id = 0
        self.members: dict[int, Member] = {}
        self.active: list[int] = []
        for name, (w, pols) in scripted.items():
            self._add(Member(self._next_id, name, "scripted", dict(pols), weight=float(w)))
        self.drawn: Counter[str] = Counter()
        self._probs: np.ndarray | None = None
        # league statistics, by member name: EMA of the normalized score x and of the raw win share
        self.score: dict[str, float] = {}
        self.win_rate: dict[str, float] = {}
        self.games: Counter[str] = Counter()
        self._pending: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._pending_games = 0

    def _add(self, m: Member) -> None:
        self.members[m.id] = m
        self.active.append(m.id)
        self._next_id += 1
        self._probs = None

    @property
    def snapshots(self) -> list[Member]:
        return [self.members[i] for i in self.active if self.members[i].kind == "snapshot"]

    def add_snapshot(self, weights: Mapping[str, torch.Tensor], step: int) -> Member:
        """Freeze actor ``weights`` at learner step ``step`` as a new opponent; evict the oldest if full."""
        weights = {k: v.detach().clone() for k, v in weights.items()}
        pol = MLPPolicy(
            weights,
            activation=self.activation,
            chip_memory=self.chip_memory,
            behaviour=self.behaviour,
            deterministic=not self.snapshot_sample,
            seed=int(self.rng.integers(2**31)),
            name=f"snap@{step}",
        )
        m = Member(self._next_id, pol.name, "snapshot", {0: pol}, step=step, snapshot_weights=weights)
        self._add(m)
        snaps = self.snapshots
        if len(snaps) > self.max_snapshots:
            self.active.remove(snaps[0].id)  # stays in members while games in flight still use it
            self._probs = None
        return m

    def prune(self, in_use: np.ndarray) -> None:
        """Forget evicted members that no game in flight uses (``in_use``: member ids, any shape)."""
        used = set(np.unique(in_use).tolist())
        for i in list(self.members):
            if i not in self.active and i not in used:
                del self.members[i]

    def scripted_weights(self) -> dict[str, float]:
        """Current relative weight of each active scripted member: prior x (floor + f(x)), not normalized."""
        out = {}
        for i in self.active:
            m = self.members[i]
            if m.kind == "scripted":
                x = np.array(self.score.get(m.name, 0.5))
                out[m.name] = m.weight * (self.floor + float(pfsp_weight(x, self.weighting, self.power)))
        return out

    def probabilities(self) -> np.ndarray:
        """Draw probability of each id in :attr:`active`, float64, sums to 1."""
        if self._probs is None:
            ms = [self.members[i] for i in self.active]
            w = self.scripted_weights()
            scripted = np.array([w[m.name] if m.kind == "scripted" else 0.0 for m in ms])
            if scripted.sum() <= 0:  # every prior-weighted member fully beaten with floor 0: fall back to priors
                scripted = np.array([m.weight if m.kind == "scripted" else 0.0 for m in ms])
            p = scripted / scripted.sum()
            snaps = [k for k, m in enumerate(ms) if m.kind == "snapshot"]
            if snaps and self.snapshot_weight > 0:
                sp = np.zeros(len(ms))
                if len(snaps) == 1:
                    sp[snaps[0]] = 1.0
                else:
                    sp[snaps[-1]] = self.latest_share
                    sp[snaps[:-1]] = (1.0 - self.latest_share) / (len(snaps) - 1)
                p = (1.0 - self.snapshot_weight) * p + self.snapshot_weight * sp
            self._probs = p
        return self._probs

    def record(self, opponents: np.ndarray, win: np.ndarray, num_players: int) -> None:
        """Note finished games for the league statistics (folded in every 256 games, cheap per step).

        Args:
            opponents: int64 (G, P): member id per seat, -1 at the learner's seat (P may differ per call).
            win: float64 (G,): the learner's win share in each game (1, 1/k on a k-way tie, else 0).
            num_players: P.
        """
        x = np.clip(win * num_players / self.beaten_at, 0.0, 1.0)
        rows, cols = np.nonzero(opponents >= 0)
        self._pending.append((opponents[rows, cols], win[rows], x[rows]))
        self._pending_games += len(win)
        if self._pending_games >= 256:
            self._fold()

    def _fold(self) -> None:
        if not self._pending:
            return
        mids = np.concatenate([o for o, _, _ in self._pending])
        win = np.concatenate([w for _, w, _ in self._pending])
        x = np.concatenate([s for _, _, s in self._pending])
        self._pending, self._pending_games = [], 0
        for mid in np.unique(mids).tolist():
            m = self.members.get(mid)
            if m is None:
                continue
            here = mids == mid
            name = "snapshots" if m.kind == "snapshot" else m.name
            k = int(here.sum())  # seats it filled (a member in two seats of a game counts twice)
            decay = (1.0 - 1.0 / self.window) ** k  # k updates at once, each by the mean of the k
            self.score[name] = decay * self.score.get(name, 0.5) + (1 - decay) * float(x[here].mean())
            self.win_rate[name] = decay * self.win_rate.get(name, float(win[here].mean())) + (1 - decay) * float(
                win[here].mean()
            )
            self.games[name] += k
        self._probs = None

    def league(self) -> dict[str, dict[str, float]]:
        """Per scripted member (and ``snapshots``): ``win_rate`` (EMA of the learner's win share against it),
        ``score`` (normalized, 0.5 = parity), ``share`` (its current draw probability), ``games`` seen."""
        self._fold()
        p = dict(zip([self.members[i].name for i in self.active], self.probabilities()))
        snap_share = sum(v for k, v in p.items() if k.startswith("snap@"))
        out = {}
        for i in self.active:
            m = self.members[i]
            if m.kind == "scripted":
                out[m.name] = {
                    "win_rate": self.win_rate.get(m.name, float("nan")),
                    "score": self.score.get(m.name, 0.5),
                    "share": p[m.name],
                    "games": float(self.games[m.name]),
                }
        if self.snapshots:
            out["snapshots"] = {
                "win_rate": self.win_rate.get("snapshots", float("nan")),
                "score": self.score.get("snapshots", 0.5),
                "share": snap_share,
                "games": float(self.games["snapshots"]),
            }
        return out

    def draw(self, shape: tuple[int, ...]) -> np.ndarray:
        """Member ids, int64 of ``shape``, drawn independently by :meth:`probabilities`."""
        ids = self.rng.choice(np.array(self.active), size=shape, p=self.probabilities())
        return ids.astype(np.int64)

    def draw_tables(self, num_tables: int, num_players: int) -> np.ndarray:
        """Member ids for every seat of ``num_tables`` new tables, int64 (num_tables, num_players).

        Seats are drawn independently by :meth:`probabilities`, except on a share :attr:`homogeneous` of
        the rows (each row on its own), where one member drawn by the same probabilities fills every seat.
        The caller overwrites the learner's seat. With ``homogeneous = 0`` this is exactly :meth:`draw`.
        """
        ids = self.draw((num_tables, num_players))
        if self.homogeneous > 0.0:
            same = self.rng.random(num_tables) < self.homogeneous
            ids[same] = self.draw((int(same.sum()), 1))
        return ids

    def composition(self, reset: bool = True) -> dict[str, float]:
        """Share of opponent seats drawn per member name (snapshots grouped as ``snapshots``) since last reset."""
        total = sum(self.drawn.values())
        out = {k: v / total for k, v in sorted(self.drawn.items())} if total else {}
        if reset:
            self.drawn.clear()
        return out

    # ---------------------------------------------------------------- resume
    def state_dict(self) -> dict[str, Any]:
        """Snapshots (weights, steps) and RNG state; plain tensors and builtins for ``weights_only`` load."""
        self._fold()
        return {
            "snapshots": [{"step": m.step, "weights": m.snapshot_weights} for m in self.snapshots],
            "rng": self.rng.bit_generator.state,
            "league": {"score": dict(self.score), "win_rate": dict(self.win_rate), "games": dict(self.games)},
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what :meth:`state_dict` saved (snapshots are re-added in order)."""
        for m in self.snapshots:
            self.active.remove(m.id)
            del self.members[m.id]
        self._probs = None
        for s in state["snapshots"]:
            self.add_snapshot(s["weights"], int(s["step"]))
        self.rng.bit_generator.state = state["rng"]
        league = state.get("league", {})  # absent in checkpoints saved before the league existed
        self.score = {k: float(v) for k, v in league.get("score", {}).items()}
        self.win_rate = {k: float(v) for k, v in league.get("win_rate", {}).items()}
        self.games = Counter({k: int(v) for k, v in league.get("games", {}).items()})
        self._probs = None


class SelfPlayVecEnv(VecEnv):
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
        reward: ``"win"`` (the objective) or ``"penalty_diff"``.
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
        reward: Reward = "win",
        seed: int = 0,
    ) -> None:
        if reward not in ("win", "penalty_diff"):
            raise ValueError(f"reward: expected 'win' or 'penalty_diff', got {reward!r}")
        self.pool = pool
        self.chip_memory = chip_memory
        self.behaviour = behaviour
        self.reward_kind = reward
        seeds = [int(s) for s in np.random.SeedSequence(seed).generate_state(len(configs))]
        self.seat_rngs = [np.random.default_rng(s + 1) for s in seeds]
        special = {bool(c.special_cards) for c in configs}
        if len(special) != 1:
            raise ValueError("configs: expected all with special cards or all without, got a mix")
        table = ScalarLearnerTable if special.pop() else LearnerTable
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
            )
            for c, s, rng in zip(configs, seeds, self.seat_rngs)
        ]
        size, actions = enc.obs_size(configs[0], behaviour), configs[0].num_actions
        obs_space = gym.spaces.Box(-np.inf, np.inf, shape=(size,), dtype=np.float32)
        super().__init__(games_per_count * len(configs), obs_space, gym.spaces.Discrete(actions))
        self._actions: np.ndarray | None = None
        self._masks = np.ones((self.num_envs, actions), dtype=bool)

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
                val, win, own = self._rewards(fin, t.num_players)
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

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name == "render_mode":
            return [None] * len(list(self._get_indices(indices)))
        if attr_name == "action_masks":
            return [self.action_masks] * len(list(self._get_indices(indices)))
        raise AttributeError(f"SelfPlayVecEnv has no per-env attribute {attr_name!r}")

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"SelfPlayVecEnv has no per-env attribute {attr_name!r}")

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        if method_name == "action_masks":
            idx = list(self._get_indices(indices))
            return list(self._masks[idx])
        raise AttributeError(f"SelfPlayVecEnv has no per-env method {method_name!r}")

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))

    def seed(self, seed: int | None = None) -> list[int | None]:
        return [None] * self.num_envs  # seeded at construction; reseeding mid-run would break resume

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
        ids = self.pool.draw_tables(len(idx), num_players)
        ids[np.arange(len(idx)), learner] = -1
        names = [self.pool.members[i].name for i in ids[ids >= 0].tolist()]
        self.pool.drawn.update("snapshots" if n.startswith("snap@") else n for n in names)
        return learner, ids

    def _record(self, num_players: int, fin: Finished) -> None:
        """League statistics: every finished game, before its row's next opponents are drawn."""
        win = winner_shares(fin.penalties)[np.arange(len(fin)), fin.learner]
        self.pool.record(fin.opponents, win, num_players)

    def _rewards(self, fin: Finished, num_players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(reward, win share, own penalty) of the learner in each finished game, float64/float64/int64 (k,)."""
        rows = np.arange(len(fin))
        own = fin.penalties[rows, fin.learner]
        win = winner_shares(fin.penalties)[rows, fin.learner]
        if self.reward_kind == "win":
            return win, win, own
        others = (fin.penalties.sum(axis=1) - own) / (num_players - 1)
        return (others - own) / PENALTY_SCALE, win, own
