"""The simple scripted baselines: random, never-take, always-take and the greedy threshold bot.

Each rule is written once, vectorised over a :class:`~nothanks_env.vector.BatchView`, and reads only
the acting seat's own cards, chips and the card on offer (none of them needs opponents' chips).
"""

from __future__ import annotations

import numpy as np

from nothanks_env.game import PASS, TAKE, SeatView
from nothanks_env.policy import Policy
from nothanks_env.vector import BatchView


def own_take_delta(view: BatchView) -> np.ndarray:
    """Δ(c) of the acting seat: int64 (B,), change in its card points if it took the face-up card.

    It pays c unless it holds c-1, and saves c+1 if it holds c+1 (so Δ is c, 0, -1 or -(c+1)).
    """
    return view.take_delta[np.arange(len(view)), view.seat]


def forced(view: BatchView) -> np.ndarray:
    """bool (B,): the acting seat has no chip, so TAKE is its only legal action."""
    return view.own_chips <= 0


class RandomPolicy(Policy):
    """Uniform over the legal actions: PASS or TAKE with probability 1/2 each, TAKE when out of chips; with
    special cards, uniform over every legal id (bids, drops and choices).

    Args:
        seed: seed of :attr:`rng` (the only source of its randomness).
    """

    name = "random"
    stochastic = True
    plays_special_cards = True

    def act_batch(self, view: BatchView) -> np.ndarray:
        coin = self.rng.integers(0, 2, len(view), dtype=np.int64)
        return np.where(forced(view), TAKE, coin)

    def act_special(self, view: SeatView) -> int:
        """Uniform over the legal action ids (bids, drops and choices too) of a special-card game."""
        legal = view.legal_actions
        return int(legal[self.rng.integers(0, len(legal))])


class NeverTakePolicy(Policy):
    """ "No thanks!" until forced: PASS while it has a chip, TAKE at 0 chips."""

    name = "never-take"

    def act_batch(self, view: BatchView) -> np.ndarray:
        return np.where(forced(view), TAKE, PASS).astype(np.int64)


class AlwaysTakePolicy(Policy):
    """TAKE every card at once (the mirror of never-take; useful as a rigged opponent in tests)."""

    name = "always-take"

    def act_batch(self, view: BatchView) -> np.ndarray:
        return np.full(len(view), TAKE, dtype=np.int64)


class ThresholdPolicy(Policy):
    """Greedy threshold bot: TAKE iff Δ(c) − pot ≤ T, or when out of chips.

    Δ(c) is the change in its own card points if it took the face-up card c (see :func:`own_take_delta`);
    Δ(c) − pot is then the change in its penalty, since each chip in the pot is one point off.

    Args:
        T: threshold in penalty points. Default 7: the best T in 0..20 by three-player win rate against
            every pair of threshold bots with T in {0, 5, 10, 15, 20}
            (``python -m training.tune_heuristic --sweep-threshold --games 1500``).
        seed: unused (the rule is deterministic); accepted for a uniform constructor.
    """

    DEFAULT_T = 7

    def __init__(self, T: int = DEFAULT_T, seed: int | None = None) -> None:
        super().__init__(seed)
        self.T = T
        self.name = "threshold" if T == self.DEFAULT_T else f"threshold:T={T}"

    def act_batch(self, view: BatchView) -> np.ndarray:
        take = (own_take_delta(view) - view.pot <= self.T) | forced(view)
        return take.astype(np.int64)
