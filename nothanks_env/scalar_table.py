"""One learner seat per game over the scalar engine: :class:`LearnerTable`'s twin for special cards.

The batched engine (:mod:`nothanks_env.vector`) plays no special cards, so configs with them (the
``wildcards`` preset) are trained on ``B`` scalar :class:`~nothanks_env.game.Game` objects instead. The
contract is :class:`~nothanks_env.table.LearnerTable`'s: after :meth:`ScalarLearnerTable.reset` and after
every :meth:`ScalarLearnerTable.step`, every game waits for its learner; games that end are recorded in
a :class:`~nothanks_env.table.Finished` and dealt again at once, with seats from the ``seat`` callback.
That bookkeeping (seats, counters, records, deals again) is :class:`~nothanks_env.table.LearnerTableBase`'s,
shared with ``LearnerTable``; this module adds the scalar engines and the opponents' rounds over them.

Opponents decide in rounds: every game whose seat to act is not the learner's moves once per round.
A policy with ``act_observation(obs, mask)`` (a trained network) gets the round's observations of its
games in one batched call, whose actions pass :func:`~nothanks_env.policy.guard_actions` as at
:class:`~nothanks_env.table.LearnerTable` (a float ``1.9`` is refused, not cut to ``1``); any other policy
decides one seat view at a time through :meth:`~nothanks_env.policy.Policy.act` (scripted baselines that
play special cards: ``random``, ``heuristic``), whose action is checked by :func:`~nothanks_env.policy.legal_action`
even when the policy overrides ``act``: a fraction (``1.9``) or an action the phase forbids (a bid above its
chips) raises :class:`~nothanks_env.policy.PolicyActionError` naming the policy, its seat and its game.

Units: one *learner step* is one learner decision in each game; observations are
:func:`nothanks_env.encoding.encode`'s (float32, :func:`~nothanks_env.encoding.obs_size` values) and masks
int8 of ``config.num_actions`` (125 with special cards).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from nothanks_env import encoding as enc
from nothanks_env.game import Game, GameConfig
from nothanks_env.policy import Policy, PolicyActionError, guard_actions, legal_action
from nothanks_env.table import Finished, LearnerTableBase, Seating

SEED_BOUND = 2**63 - 1


class ScalarLearnerTable(LearnerTableBase):
    """``num_games`` scalar games of one config, each with one learner seat (see the module docstring).

    Args:
        config: the rules (any config; meant for those with special cards).
        num_games: games ``B`` >= 1.
        policy: resolves an opponent id to its policy.
        seat: draws the seats of new games (see :data:`nothanks_env.table.Seating`).
        seed: seeds :attr:`rng`, which draws every game's seed.
        chip_memory: how :meth:`observe` encodes the learner's view.
        behaviour: append each seat's public pass/take record (:data:`nothanks_env.encoding.BEHAVIOUR_LAYOUT`).
        on_finish: called with each :class:`Finished` record as games end, before their rows are dealt again.

    Attributes:
        games: the ``B`` engines.
        rng: ``numpy.random.Generator`` of the deals (saved by self-play for resume).
        learner, opponents, turns, started, opponent_decisions: as in :class:`~nothanks_env.table.LearnerTableBase`.
    """

    def __init__(
        self,
        config: GameConfig,
        num_games: int,
        *,
        policy: Callable[[int], Policy],
        seat: Seating,
        seed: int | None = None,
        chip_memory: bool = False,
        behaviour: bool = False,
        on_finish: Callable[[Finished], None] | None = None,
    ) -> None:
        if num_games < 1:
            raise ValueError(f"num_games: expected an int >= 1, got {num_games}")
        self.config = config
        self.games = [Game(config) for _ in range(num_games)]
        self.rng = np.random.default_rng(seed)
        super().__init__(
            num_games, config.num_players, policy=policy, seat=seat, chip_memory=chip_memory, behaviour=behaviour,
            on_finish=on_finish,
        )  # fmt: skip

    def step(self, actions: np.ndarray) -> Finished:
        """The learner acts in every game (ids of :data:`nothanks_env.game.ACTION_PIECES`); then the opponents.

        Returns:
            The games that ended during this call; their rows already hold new games.

        Raises:
            IllegalActionError: for an action the phase forbids (from the engine; earlier games of the
                batch have moved by then, so treat the table as broken).
        """
        self._found = []
        acts = np.asarray(actions).reshape(self.num_games)
        ended = np.zeros(self.num_games, dtype=bool)
        for i, g in enumerate(self.games):
            g.step(int(acts[i]))
            ended[i] = g.is_over
        return self._after_learner(np.ones(self.num_games, dtype=bool), ended)

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        """The learner's observation and legal actions in every game (each is at the learner's turn).

        Returns:
            (obs, mask): float32 (B, obs_size(config, behaviour)) and int8 (B, config.num_actions), 1 = legal.
        """
        return self._encode(np.arange(self.num_games), self.learner, self.chip_memory, self.behaviour)

    def new_games(
        self, mask: np.ndarray, *, learner: np.ndarray | None = None, opponents: np.ndarray | None = None
    ) -> None:
        """Deal and seat new games in the rows ``mask`` selects (bool (B,)); fixed seats replace the draw."""
        idx = np.flatnonzero(mask)
        if len(idx) == 0:
            return
        for i in idx.tolist():
            self.games[i].reset(seed=int(self.rng.integers(SEED_BOUND)))
        self._seat_games(idx, learner, opponents)

    def advance(self) -> Finished:
        """Step the opponents of every game until each waits for its learner; deal again what ends.

        Raises:
            PolicyActionError: naming the opponent policy, for actions of ``act_observation`` that are no whole
                action ids (``1.9``) or of the wrong shape (:func:`~nothanks_env.policy.guard_actions`), and for
                an action of ``act`` that is no whole action id or one the phase forbids, naming its seat and game
                (:func:`~nothanks_env.policy.legal_action`).
            IllegalActionError: for an action of ``act_observation`` the phase forbids (from the engine).
        """
        while True:
            seats = np.array([g.current_seat if not g.is_over else -1 for g in self.games], dtype=np.int64)
            idx = np.flatnonzero((seats >= 0) & (seats != self.learner))
            if not len(idx):
                break
            ids = self.opponents[idx, seats[idx]]
            acts = np.empty(len(idx), dtype=np.int64)
            for member in np.unique(ids).tolist():
                rows = np.flatnonzero(ids == member)
                pol = self._policy(member)
                act_observation = getattr(pol, "act_observation", None)
                if act_observation is not None:  # encoded as that network was trained
                    memory, record = bool(getattr(pol, "chip_memory", False)), bool(getattr(pol, "behaviour", False))
                    obs, mask = self._encode(idx[rows], seats[idx[rows]], memory, record)
                    acts[rows] = guard_actions(pol, act_observation(obs, mask), rows.shape, self.config.num_actions)
                else:
                    for r in rows.tolist():
                        seat = int(seats[idx[r]])
                        view = self.games[idx[r]].seat_view(seat)
                        try:  # its own act() is checked as Policy.act checks: 1.9 refused, not cut to 1
                            acts[r] = legal_action(pol, view, pol.act(view))
                        except PolicyActionError as e:
                            raise PolicyActionError(f"opponent in seat {seat} of game {int(idx[r])}: {e}") from e
            ended = np.zeros(self.num_games, dtype=bool)
            for k, i in enumerate(idx.tolist()):
                self.games[i].step(int(acts[k]))
                ended[i] = self.games[i].is_over
            self.opponent_decisions += len(idx)
            if ended.any():
                self._finish(ended)
        return self._take_finished()

    def _encode(
        self, rows: np.ndarray, seats: np.ndarray, chip_memory: bool, behaviour: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        obs = np.zeros((len(rows), enc.obs_size(self.config, behaviour)), dtype=np.float32)
        mask = np.zeros((len(rows), self.config.num_actions), dtype=np.int8)
        for k, (i, s) in enumerate(zip(rows.tolist(), seats.tolist())):
            view = self.games[i].seat_view(s)
            enc.encode(view, chip_memory, out=obs[k], behaviour=behaviour)
            mask[k, list(view.legal_actions)] = 1
        return obs, mask

    def _final_penalties(self, rows: np.ndarray) -> np.ndarray:
        return np.array([self.games[i].final_penalties() for i in rows.tolist()], dtype=np.int64)
