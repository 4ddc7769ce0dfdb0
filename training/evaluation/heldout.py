"""Held-out opponents: bot kinds that no agent of this project trains, distils or is selected against.

The gauntlet (:mod:`training.evaluation.gauntlet`) is what agents are chosen on, so its columns are no longer
a fair test of play the agents have never met. This module keeps a second, smaller set for that test only:
``python -m training.gauntlet --heldout`` plays a policy against it. Keep these bots out of every training
pool, distillation and selection; the self-play config (``pool.scripted``, ``eval.opponents``) and
``training.distill`` (``--opponents``, ``--teacher``, ``--teacher-of``) refuse them (:func:`is_heldout`).

They are our own rules of the kinds people write for this game, none of them in the standard set:

============= ==================================================================================
class         rule (Δ(c): the change in its own card points if it took the card c; cost = Δ(c) − pot)
============= ==================================================================================
``LowCard``   collects low cards: takes any c ≤ 12, any card with Δ(c) ≤ 0 (it extends a run), or a
              pot of at least half the card (2·pot ≥ c)
``Hoarder``   keeps its chips: takes only free cards (cost ≤ 0) while it has more than 3 chips, then
              any card with cost ≤ 12
``Clock``     a threshold that rises through the deal: takes iff cost ≤ −3 + 20·f, f the share of the
              deck already turned (0 at the first card, 1 at the last)
``ChipRich``  compares chips (perfect memory of the public chip movements): takes iff cost ≤ 0 while
              it holds more chips than every opponent, else iff cost ≤ 8
``Gambler``   a noisy human: a fresh threshold T uniform in −4..16 at every decision, takes iff cost ≤ T
============= ==================================================================================

Every bot takes when it has no chip. Specs: ``training.evaluation.heldout:LowCard`` and so on
(:func:`nothanks_env.specs.load_policy`'s ``module:attr`` form), listed in :data:`HELDOUT_OPPONENTS`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from nothanks_env.baselines.simple import forced, own_take_delta
from nothanks_env.policy import Policy
from nothanks_env.vector import BatchView

MODULE = "training.evaluation.heldout"


def _take(take: np.ndarray, view: BatchView) -> np.ndarray:
    return (take | forced(view)).astype(np.int64)


class LowCard(Policy):
    """Takes any card ≤ 12, any card that extends its runs (Δ ≤ 0), or a pot of at least half the card."""

    name = f"{MODULE}:LowCard"

    def act_batch(self, view: BatchView) -> np.ndarray:
        """int64 (B,): TAKE (1) iff c ≤ 12, Δ(c) ≤ 0 or 2·pot ≥ c, or forced; else PASS (0)."""
        c = view.face_up_card
        return _take((c <= 12) | (own_take_delta(view) <= 0) | (2 * view.pot >= c), view)


class Hoarder(Policy):
    """Takes only free cards (Δ(c) − pot ≤ 0) while it holds more than 3 chips, then at Δ(c) − pot ≤ 12."""

    name = f"{MODULE}:Hoarder"

    def act_batch(self, view: BatchView) -> np.ndarray:
        """int64 (B,): TAKE iff cost ≤ 0, or cost ≤ 12 at 3 chips or fewer, or forced."""
        cost = own_take_delta(view) - view.pot
        return _take((cost <= 0) | ((view.own_chips <= 3) & (cost <= 12)), view)


class Clock(Policy):
    """Threshold rising through the deal: takes iff Δ(c) − pot ≤ −3 + 20·f, f the share of the deck turned."""

    name = f"{MODULE}:Clock"

    def act_batch(self, view: BatchView) -> np.ndarray:
        """int64 (B,): TAKE iff cost ≤ −3 + 20·(1 − cards_in_deck / (deck_size − 1)), or forced."""
        turned = 1.0 - view.cards_in_deck / max(view.config.deck_size - 1, 1)
        return _take(own_take_delta(view) - view.pot <= -3 + 20 * turned, view)


class ChipRich(Policy):
    """Refuses (takes only at Δ(c) − pot ≤ 0) while it holds more chips than every opponent, else T = 8."""

    name = f"{MODULE}:ChipRich"

    def act_batch(self, view: BatchView) -> np.ndarray:
        """int64 (B,): TAKE iff cost ≤ (0 if richest else 8), or forced. Chips: ``view.known_chips(True)``."""
        chips = view.known_chips(True).astype(np.int64)
        rows = np.arange(len(view))
        others = chips.copy()
        others[rows, view.seat] = np.iinfo(np.int64).min
        richest = view.own_chips > others.max(axis=1)
        return _take(own_take_delta(view) - view.pot <= np.where(richest, 0, 8), view)


class Gambler(Policy):
    """A fresh threshold T uniform in −4..16 at every decision; takes iff Δ(c) − pot ≤ T.

    Args:
        seed: seed of :attr:`rng`, its only source of randomness.
    """

    name = f"{MODULE}:Gambler"
    stochastic = True

    def act_batch(self, view: BatchView) -> np.ndarray:
        """int64 (B,): TAKE iff cost ≤ T with T drawn for each decision from −4..16, or forced."""
        T = self.rng.integers(-4, 17, len(view))
        return _take(own_take_delta(view) - view.pot <= T, view)


HELDOUT_OPPONENTS: tuple[str, ...] = tuple(
    f"{MODULE}:{cls.__name__}" for cls in (LowCard, Hoarder, Clock, ChipRich, Gambler)
)
"""The held-out bots as policy specs, one gauntlet column each (every other seat)."""

HELDOUT_MIXED: tuple[tuple[str, ...], ...] = (
    (f"{MODULE}:LowCard", f"{MODULE}:Hoarder"),
    (f"{MODULE}:Clock", "heuristic"),
    (f"{MODULE}:Gambler", "utility"),
    ("threshold:T=2", "threshold:T=12"),
    ("never-take", "heuristic"),
    ("stochastic", "utility"),
    ("ratio:r=0.3", "extort"),
)
"""Held-out mixed tables: the held-out bots beside standard ones, and pairs of standard bots that no gauntlet
column seats together (a league pool draws each seat on its own, so self-play may have met such pairs)."""


def is_heldout(spec: str) -> bool:
    """Whether a policy spec names one of this module's bots (``training.evaluation.heldout:...``), nested
    specs included (``search:model=(training.evaluation.heldout:Clock)``)."""
    return f"{MODULE}:" in spec


def refuse_heldout(where: str, specs: Iterable[str]) -> None:
    """Refuse held-out bots where agents are trained or chosen (pools, evaluation opponents that pick the best
    checkpoint, distillation tables and teachers, the exploitability probe's victim, whose best response is
    trained against it); the evaluation tools (gauntlet, evaluate, tournament) take them.

    Args:
        where: the option or config key being checked (``pool.scripted``, ``--teacher``), named in the error.
        specs: the policy specs or ``a+b`` tables given there (a list, not one string).

    Raises:
        TypeError: if ``specs`` is a single string (it would be checked character by character).
        ValueError: naming ``where`` and every held-out spec among ``specs``.
    """
    if isinstance(specs, str):
        raise TypeError(f"refuse_heldout({where!r}, specs): expected a list of specs, got the string {specs!r}")
    held = [s for s in specs if is_heldout(s)]
    if held:
        raise ValueError(
            f"{where}: expected no held-out bots (training.evaluation.heldout is kept out of training and "
            f"selection so that it tests agents on play they never met), got {held}"
        )
