"""One learner seat per game over the batched engine: the core of the Gymnasium vector env and of self-play.

A :class:`LearnerTable` holds one :class:`~nothanks_env.vector.VectorGame` of ``B`` games. In each game one
seat is the *learner*, whose actions come from outside (a training loop), and every other seat holds an
opponent, named by an int id that a resolver turns into a :class:`~nothanks_env.policy.Policy`. Between two
learner decisions the table steps the opponents of every game until it is the learner's turn again, with
one batched ``act_batch`` call per opponent policy per round, never one call per decision. So after
:meth:`LearnerTable.reset` and after every :meth:`LearnerTable.step`, every game waits for its learner.

When a game ends (on the learner's take or on an opponent's) the table records it in a :class:`Finished`
(final penalties, seats, opponents, learner decisions, optionally the learner's final observation), calls
the ``on_finish`` hook, and deals a new game in that row at once: a new deal from ``deal`` (or the
engine's own RNG) and new seats from ``seat``. A game that ends before the learner's first decision
(possible only against opponents that take everything) is dealt again without a record: the learner had
no part in it.

Who sits where, and how deals are drawn, is left to the two callbacks, so that the same table serves
:class:`nothanks_env.gym_vector.NoThanksVectorEnv` (fixed opponents, one RNG per game) and
``training.vec_env.SelfPlayVecEnv`` (opponents drawn from a league, one RNG per table).

The bookkeeping of seats, per-game counters, :class:`Finished` records and deals again is
:class:`LearnerTableBase`'s, which :class:`~nothanks_env.scalar_table.ScalarLearnerTable` (scalar games with
special cards) shares with :class:`LearnerTable`.

Units: one *learner step* is one learner decision in each selected game; one *opponent decision* is one
opponent action in one game (:attr:`LearnerTable.opponent_decisions` counts them).
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from nothanks_env.encoding import encode_batch
from nothanks_env.game import PASS, GameConfig, IllegalActionError
from nothanks_env.policy import Policy, PolicyActionError, guard_actions, whole_actions
from nothanks_env.vector import BatchView, VectorGame

Seating = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
"""``seat(idx) -> (learner, opponents)`` for new games in rows ``idx`` (int64 (m,)): the learner's seat, int64
(m,), and an opponent id per seat, int64 (m, P) (the entry at the learner's seat is ignored)."""
Dealing = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]
"""``deal(idx) -> (deck, removed_hidden, first_seat)`` for rows ``idx``: int64 (m, deck_size) in play order,
(m, num_removed), and (m,) starting seats."""
MAX_UNPLAYED = 1000
"""Consecutive games a row may deal without a learner decision before the table gives up (see step)."""


def act_grouped(
    view: BatchView, ids: np.ndarray, policy: Callable[[int], Policy], *, checked: bool = False
) -> np.ndarray:
    """Every game's action, with one batched call per policy: the one loop that drives policies over a batch.

    A policy with ``act_observation`` (a network) gets observations encoded by
    :func:`~nothanks_env.encoding.encode_batch` with its ``chip_memory`` and ``behaviour``; any other gets
    its games' part of ``view`` through ``act_batch``. Each policy's games reach it in view order.
    Networks that share a ``stack`` attribute (e.g. :class:`training.checkpoints.MLPStack`: ``logits(obs,
    which)``, ``index`` from ``id(policy)`` to its position, ``chip_memory``, ``behaviour``) get their
    logits from one pass of the stack, then each acts on its own rows with ``act_from_logits(logits, mask)``.

    Args:
        view: the games to act in, B of them (each at its acting seat).
        ids: int (B,): who acts in each game, an id that ``policy`` turns into a :class:`Policy`.
        policy: id -> policy, called once per distinct id.
        checked: raise if a policy returns a wrong shape or an illegal action (for untrusted policies).
            Without it, :func:`~nothanks_env.policy.guard_actions` reads them: int (or bool) arrays of the
            right shape are taken as they are (the hot path of self-play; the engine refuses an id out of range
            or a PASS at 0 chips), and any other array (floats, objects) or shape is checked by
            :func:`~nothanks_env.policy.whole_actions`: ``1.0`` is TAKE, ``1.9`` is refused, not cut to TAKE.

    Returns:
        int64 (B,): PASS (0) or TAKE (1) per game.

    Raises:
        PolicyActionError: naming the policy, on a wrong shape or a value that is no whole action id; with
            ``checked`` also on a PASS at 0 chips or an int out of range.
    """
    ids = np.asarray(ids)
    acts = np.empty(len(ids), dtype=np.int64)
    mask = None
    order = np.argsort(ids, kind="stable")  # each policy's games, contiguous and in view order
    cuts = np.flatnonzero(ids[order][1:] != ids[order][:-1]) + 1
    stacked: dict[int, list[tuple[Policy, np.ndarray]]] = {}
    for start, stop in zip([0, *cuts.tolist()], [*cuts.tolist(), len(ids)]):
        pol = policy(int(ids[order[start]]))
        rows = order[start:stop] if stop - start > 1 else slice(order[start], order[start] + 1)
        act_observation = getattr(pol, "act_observation", None)
        if getattr(pol, "stack", None) is not None:
            stacked.setdefault(id(pol.stack), []).append((pol, order[start:stop]))
            continue
        if act_observation is not None:  # encoded once per round for every such policy
            mask = view.action_mask() if mask is None else mask
            obs = encode_batch(view, bool(getattr(pol, "chip_memory", False)), bool(getattr(pol, "behaviour", False)))
            out = np.asarray(act_observation(obs[rows], mask[rows]))
        else:
            out = np.asarray(pol.act_batch(view.take(rows)))
        if checked:
            _check_actions(pol, out, view.own_chips[rows])
        else:
            out = guard_actions(pol, out, (stop - start,), 2)  # 1.9 refused, not cut to TAKE; no broadcast
        acts[rows] = out
    for parts in stacked.values():
        stack = parts[0][0].stack
        mask = view.action_mask() if mask is None else mask
        obs = encode_batch(view, bool(stack.chip_memory), bool(stack.behaviour))
        rows = np.concatenate([r for _, r in parts])
        which = np.concatenate([np.full(len(r), stack.index[id(p)]) for p, r in parts])
        logits = stack.logits(obs[rows], which)
        at = 0
        for pol, r in parts:
            out = np.asarray(pol.act_from_logits(logits[at : at + len(r)], mask[r]))
            at += len(r)
            if checked:
                _check_actions(pol, out, view.own_chips[r])
            else:
                out = guard_actions(pol, out, r.shape, 2)
            acts[r] = out
    return acts


def _check_actions(policy: Policy, actions: np.ndarray, own_chips: np.ndarray) -> None:
    """Refuse what :func:`~nothanks_env.policy.whole_actions` refuses (a wrong shape, a value that is no action
    id, ``1.9``), then a PASS at 0 chips."""
    ids = whole_actions(policy, actions, own_chips.shape, 2)
    bad = (ids == PASS) & (own_chips == 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise PolicyActionError(
            f"policy {getattr(policy, 'name', type(policy).__name__)}: expected legal actions (PASS=0 needs a "
            f"chip, TAKE=1), got {int(bad.sum())} illegal of {len(ids)}, the first {actions[i].item()!r} with "
            f"{int(own_chips[i])} chips"
        )


@dataclass(frozen=True)
class Finished:
    """Games that ended with the learner having acted in them, in the order they ended.

    Attributes:
        rows: int64 (k,), the table rows (games) that ended; each at most once per call.
        learner: int64 (k,), the learner's seat in each.
        penalties: int64 (k, P), every seat's final penalty (absolute seats), penalty points.
        opponents: int64 (k, P), the opponent id of each seat, -1 at the learner's.
        turns: int64 (k,), learner decisions in the game.
        started: float64 (k,), ``time.time()`` when the game was dealt (seconds).
        observation: float32 (k, OBS_SIZE), the learner's final observation, or None when the table was
            built without ``final_observations``.
    """

    rows: np.ndarray
    learner: np.ndarray
    penalties: np.ndarray
    opponents: np.ndarray
    turns: np.ndarray
    started: np.ndarray
    observation: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.rows)

    @staticmethod
    def concat(parts: Sequence[Finished], num_players: int) -> Finished:
        """One record of several (an empty record when ``parts`` is empty)."""
        if len(parts) == 1:
            return parts[0]
        if not parts:
            empty = np.zeros(0, dtype=np.int64)
            seats = np.zeros((0, num_players), dtype=np.int64)
            return Finished(empty, empty, seats, seats, empty, np.zeros(0))
        obs = None if parts[0].observation is None else np.concatenate([p.observation for p in parts])
        fields = ("rows", "learner", "penalties", "opponents", "turns", "started")
        return Finished(*(np.concatenate([getattr(p, f) for p in parts]) for f in fields), observation=obs)


class LearnerTableBase(ABC):
    """What every learner table keeps, whatever its engine: seats, per-game counters and finished-game records.

    The bookkeeping shared by :class:`LearnerTable` (the batched engine) and
    :class:`~nothanks_env.scalar_table.ScalarLearnerTable` (scalar games with special cards). A subclass owns
    its engine: it deals (:meth:`new_games`, which seats through :meth:`_seat_games`), steps the learner
    (its ``step`` ends with :meth:`_after_learner`) and the opponents (:meth:`advance`, which ends with
    :meth:`_take_finished`), and reads the final penalties (:meth:`_final_penalties`) and, optionally, the
    learner's final observations (:meth:`_final_observations`) of ended games.

    Args:
        num_games: games ``B``.
        num_players: seats ``P`` per game.
        policy: resolves an opponent id to its policy.
        seat: draws the seats of new games (see :data:`Seating`).
        chip_memory: how the learner's observations are encoded.
        behaviour: append each seat's public pass/take record to the learner's observations.
        on_finish: called with each :class:`Finished` record as games end, before their rows are dealt again.

    Attributes:
        learner: int64 (B,), the learner's seat in each game.
        opponents: int64 (B, P), the opponent id of each seat, -1 at the learner's.
        turns: int64 (B,), learner decisions so far in each game.
        started: float64 (B,), ``time.time()`` of each game's deal.
        opponent_decisions: opponent actions taken so far, all games together.
    """

    _UNPLAYED_HINT = ""
    """Appended to the error after :data:`MAX_UNPLAYED` unplayed games in a row: a guess at the cause."""

    def __init__(
        self,
        num_games: int,
        num_players: int,
        *,
        policy: Callable[[int], Policy],
        seat: Seating,
        chip_memory: bool,
        behaviour: bool,
        on_finish: Callable[[Finished], None] | None,
    ) -> None:
        self.num_games = num_games
        self.num_players = num_players
        self.chip_memory = chip_memory
        self.behaviour = behaviour
        self.on_finish = on_finish
        self._policy, self._seat = policy, seat
        self.learner = np.zeros(num_games, dtype=np.int64)
        self.opponents = np.full((num_games, num_players), -1, dtype=np.int64)
        self.turns = np.zeros(num_games, dtype=np.int64)
        self.started = np.zeros(num_games, dtype=np.float64)
        self.opponent_decisions = 0
        self._unplayed = np.zeros(num_games, dtype=np.int64)
        self._found: list[Finished] = []

    def reset(self) -> None:
        """Deal every game afresh and play the opponents up to each learner's first decision."""
        self.new_games(np.ones(self.num_games, dtype=bool))
        self.advance()

    @abstractmethod
    def new_games(
        self, mask: np.ndarray, *, learner: np.ndarray | None = None, opponents: np.ndarray | None = None
    ) -> None:
        """Deal and seat new games in the rows ``mask`` selects (bool (B,)); opponents do not act yet."""

    @abstractmethod
    def advance(self) -> Finished:
        """Step the opponents of every game until each waits for its learner; deal again what ends."""

    @abstractmethod
    def _final_penalties(self, rows: np.ndarray) -> np.ndarray:
        """int64 (k, P): every seat's final penalty in the ended games ``rows`` (int64 (k,))."""

    def _final_observations(self, rows: np.ndarray) -> np.ndarray | None:
        """float32 (k, obs_size): the learner's final observation in the ended games ``rows``; None (the
        default) when the table does not record them."""
        return None

    # ---------------------------------------------------------------- for the subclasses
    def _seat_games(self, idx: np.ndarray, learner: np.ndarray | None, opponents: np.ndarray | None) -> None:
        """Seat the new games in rows ``idx`` (int64 (m,)) and zero their counters; fixed seats (``learner``
        (m,) and ``opponents`` (m, P), both or neither) replace the ``seat`` callback's draw."""
        if learner is None:
            learner, opponents = self._seat(idx)
        opponents = np.array(opponents, dtype=np.int64)
        opponents[np.arange(len(idx)), learner] = -1
        self.learner[idx] = learner
        self.opponents[idx] = opponents
        self.turns[idx] = 0
        self.started[idx] = time.time()

    def _after_learner(self, sel: np.ndarray, ended: np.ndarray) -> Finished:
        """The end of every ``step``: count the learner's decision in the games ``sel`` (bool (B,)), record
        and deal again the games ``ended`` (bool (B,)), then play the opponents (:meth:`advance`)."""
        self.turns[sel] += 1
        self._unplayed[sel] = 0
        if ended.any():
            self._finish(ended)
        return self.advance()

    def _take_finished(self) -> Finished:
        """The end of :meth:`advance`: the games recorded since the step began, as one record."""
        found, self._found = self._found, []
        return Finished.concat(found, self.num_players)

    def _finish(self, ended: np.ndarray) -> None:
        """Record the games ``ended`` (bool (B,)) that the learner acted in, tell ``on_finish``, deal again."""
        rows = np.flatnonzero(ended & (self.turns > 0))
        if len(rows):
            fin = Finished(
                rows=rows,
                learner=self.learner[rows].copy(),
                penalties=self._final_penalties(rows),
                opponents=self.opponents[rows].copy(),
                turns=self.turns[rows].copy(),
                started=self.started[rows].copy(),
                observation=self._final_observations(rows),
            )
            self._found.append(fin)
            if self.on_finish is not None:
                self.on_finish(fin)
        unplayed = ended & (self.turns == 0)
        self._unplayed[unplayed] += 1
        if (self._unplayed >= MAX_UNPLAYED).any():
            row = int(np.flatnonzero(self._unplayed >= MAX_UNPLAYED)[0])
            raise RuntimeError(
                f"game {row}: expected the learner to act in some game, got {MAX_UNPLAYED} games in a row that "
                f"ended before its first decision{self._UNPLAYED_HINT}"
            )
        self.new_games(ended)


class LearnerTable(LearnerTableBase):
    """``num_games`` games (single deals or matches) of one config, each with one learner seat; opponents act batched.

    Args:
        config: the rules: single deals or matches (a game ends, and is recorded, at the match end).
        num_games: games ``B`` >= 1.
        policy: resolves an opponent id to its policy. A policy that also offers ``act_observation(obs,
            mask)`` and ``chip_memory`` / ``behaviour`` attributes (a trained network) gets the round's
            observations, encoded once per round and per encoding for all such policies, instead of a view.
        seat: draws the seats of new games (see :data:`Seating`).
        deal: draws the deals of new games (see :data:`Dealing`); default: the engine's RNG, seeded by
            ``seed``.
        seed: seeds the engine's RNG.
        chip_memory: how :meth:`observe` and the final observations encode the learner's view.
        behaviour: append each seat's public pass/take record (:data:`nothanks_env.encoding.BEHAVIOUR_LAYOUT`)
            to the learner's observations.
        record_behaviour: let the engine keep those records (see :class:`~nothanks_env.vector.VectorGame`);
            may be False only when neither the learner nor any opponent reads them.
        final_observations: record the learner's final observation of each finished game.
        on_finish: called with each :class:`Finished` record as games end, before their rows are dealt
            again (so it sees the finish before the new seats are drawn).

    Attributes:
        game: the engine.
        learner, opponents, turns, started, opponent_decisions: as in :class:`LearnerTableBase`.
        seconds: wall seconds spent so far in ``engine`` (rule steps of every seat), ``opponents``
            (their policies, their observations' encoding included) and ``encoding`` (the learner's
            observations), for the self-play benchmark's breakdown.
    """

    _UNPLAYED_HINT = " (do opponents take every card from a fixed starting seat?)"

    def __init__(
        self,
        config: GameConfig,
        num_games: int,
        *,
        policy: Callable[[int], Policy],
        seat: Seating,
        deal: Dealing | None = None,
        seed: int | None = None,
        chip_memory: bool = False,
        behaviour: bool = False,
        record_behaviour: bool = True,
        final_observations: bool = False,
        on_finish: Callable[[Finished], None] | None = None,
    ) -> None:
        if behaviour and not record_behaviour:
            raise ValueError("record_behaviour: expected True when the learner reads the records (behaviour=True)")
        self.game = VectorGame(config, num_games, seed=seed, record_behaviour=record_behaviour)
        super().__init__(
            num_games, config.num_players, policy=policy, seat=seat, chip_memory=chip_memory, behaviour=behaviour,
            on_finish=on_finish,
        )  # fmt: skip
        self.final_observations = final_observations
        self._deal = deal
        self.seconds = {"engine": 0.0, "opponents": 0.0, "encoding": 0.0}

    # ---------------------------------------------------------------- the learner's API
    def step(self, actions: np.ndarray, which: np.ndarray | None = None) -> Finished:
        """The learner acts in every game (or in the games ``which`` selects); then the opponents play.

        Args:
            actions: int (B,), PASS (0) or TAKE (1) for each game's learner; unselected entries are ignored.
            which: optional bool (B,); unselected games keep their state (they still wait for the learner).

        Returns:
            The games that ended during this call, whoever ended them; their rows already hold new games.

        Raises:
            IllegalActionError: for an action other than 0/1 or a PASS at 0 chips (from the engine).
            RuntimeError: if a row deals :data:`MAX_UNPLAYED` games in a row that end before the learner's
                first decision (opponents that take every card from a fixed starting seat).
        """
        sel = np.ones(self.num_games, dtype=bool) if which is None else np.asarray(which, dtype=bool)
        self._found = []
        t = time.perf_counter()
        ended = self.game.step(actions, which=sel)
        self.seconds["engine"] += time.perf_counter() - t
        return self._after_learner(sel, ended)

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        """The learner's observation and legal actions in every game (each is at the learner's turn).

        Returns:
            (obs, mask): float32 (B, obs_size) laid out as :data:`nothanks_env.encoding.LAYOUT` with
            :attr:`chip_memory` (and :data:`~nothanks_env.encoding.BEHAVIOUR_LAYOUT` after it with
            :attr:`behaviour`), and int8 (B, 2), 1 = legal, [PASS, TAKE].
        """
        t = time.perf_counter()
        view = self.game.view()
        out = encode_batch(view, self.chip_memory, self.behaviour), view.action_mask()
        self.seconds["encoding"] += time.perf_counter() - t
        return out

    # ---------------------------------------------------------------- lower level
    def new_games(
        self,
        mask: np.ndarray,
        *,
        deck: np.ndarray | None = None,
        removed_hidden: np.ndarray | None = None,
        first_seat: np.ndarray | None = None,
        learner: np.ndarray | None = None,
        opponents: np.ndarray | None = None,
    ) -> None:
        """Deal and seat new games in the rows ``mask`` selects (bool (B,)); opponents do not act yet.

        Fixed deals (``deck``, ``removed_hidden``, ``first_seat``: shapes as in :data:`Dealing`) and fixed
        seats (``learner`` (m,) and ``opponents`` (m, P), both or neither) replace the callbacks' draws.
        """
        idx = np.flatnonzero(mask)
        if len(idx) == 0:
            return
        if deck is None and self._deal is not None:
            deck, removed_hidden, first_seat = self._deal(idx)
        self.game.reset_games(mask, deck=deck, removed_hidden=removed_hidden, first_seat=first_seat)
        self._seat_games(idx, learner, opponents)

    def advance(self) -> Finished:
        """Step the opponents of every game until each waits for its learner; deal again what ends.

        Returns:
            The games that ended (since the last :meth:`step` began, when called from it).

        Raises:
            PolicyActionError: naming the opponent policy, for an action that is no whole action id (see
                :func:`act_grouped`), out of range (``2``) or a PASS at 0 chips; the games are unchanged.
        """
        g = self.game
        while True:
            acting = ~g.done & (g.seat != self.learner)
            if not acting.any():
                break
            idx = np.flatnonzero(acting)
            actions = np.ones(self.num_games, dtype=np.int64)
            t0 = time.perf_counter()
            ids = self.opponents[idx, g.seat[idx]]
            actions[idx] = act_grouped(g.view(idx), ids, self._policy)
            t1 = time.perf_counter()
            self.opponent_decisions += len(idx)
            try:
                ended = g.step(actions, which=acting)
            except IllegalActionError as e:  # the engine's "actions[i]" would read as the learner's actions
                self._blame_opponent(g.view(idx), ids, actions[idx], e)
                raise
            self.seconds["opponents"] += t1 - t0
            self.seconds["engine"] += time.perf_counter() - t1
            if ended.any():
                self._finish(ended)
        return self._take_finished()

    def _blame_opponent(self, view: BatchView, ids: np.ndarray, actions: np.ndarray, error: Exception) -> None:
        """After the engine refused the opponents' ``actions`` (the games unchanged), raise the error of
        :func:`act_grouped` with ``checked`` for the opponent at fault, which names its policy."""
        for member in np.unique(ids).tolist():
            rows = np.flatnonzero(ids == member)
            try:
                _check_actions(self._policy(member), actions[rows], view.own_chips[rows])
            except PolicyActionError as named:
                raise named from error

    def _final_penalties(self, rows: np.ndarray) -> np.ndarray:
        return self.game.final_penalties()[rows]

    def _final_observations(self, rows: np.ndarray) -> np.ndarray | None:
        if not self.final_observations:
            return None
        return encode_batch(self.game.final_view(rows, self.learner[rows]), self.chip_memory, self.behaviour)
