"""Held-out opponents: bot kinds that no agent of this project trains, distils or is selected against.

The gauntlet (:mod:`training.evaluation.gauntlet`) is what agents are chosen on, so its columns are no longer
a fair test of play the agents have never met. This module keeps a second, smaller set for that test only:
``python -m training.gauntlet --heldout`` plays a policy against it. Keep these bots out of every training
pool, distillation and selection; the self-play config (``pool.scripted``, ``eval.opponents``) and
``training.distill`` (``--opponents``, ``--teacher``, ``--teacher-of``) refuse them (:func:`is_heldout`).

They are rules of the kinds people write for this game, none of them in the standard set:

=============== ==================================================================================
class           rule (Δ(c): the change in its own card points if it took the card c; cost = Δ(c) − pot)
=============== ==================================================================================
``LowCard``     collects low cards: takes any c ≤ 12, any card with Δ(c) ≤ 0 (it extends a run), or a
                pot of at least half the card (2·pot ≥ c)
``Hoarder``     keeps its chips: takes only free cards (cost ≤ 0) while it has more than 3 chips, then
                any card with cost ≤ 12
``Clock``       a threshold that rises through the deal: takes iff cost ≤ −3 + 20·f, f the share of the
                deck already turned (0 at the first card, 1 at the last)
``ChipRich``    compares chips (perfect memory of the public chip movements): takes iff cost ≤ 0 while
                it holds more chips than every opponent, else iff cost ≤ 8
``Gambler``     a noisy human: a fresh threshold T uniform in −4..16 at every decision, takes iff cost ≤ T
``PotGrab``     card-blind: passes until the pot holds at least 11 chips, then takes whatever card it is
``LetItRider``  with no card yet takes only c ≥ 25 with a pot above 8; then only a card next to one of its
                own (c ± 1 held), and only with a pot above 8
``Neighbour``   takes any card within 2 of a card it holds (c ± 1, c ± 2), whatever the pot; nothing else
``PennyClock``  a ratio whose chip value falls through the deal: takes iff c ≤ (1 + 20·f)·pot, f the share of
                the deck still face down (one chip buys any card ≤ 21 at the start; late it wants pot ≥ c)
``Impulsive``   never takes an empty pot; takes a card just below one of its own (c + 1 held) or a pot of more
                than half the card, else on a whim with probability 1/4
``DeckRank``    takes iff cost ≤ the 30% quantile of the cards it has not seen (about 12 at the start)
``Budget``      paces its chips over the deal: with s = chips − chips_per_player·(cards left)/deck_size, takes
                iff cost ≤ clip(4 − 2·s, −4, 20) (picky when ahead of its budget, panics when behind)
``Spoiler``     takes iff cost ≤ 3, or cost ≤ 15 when the card extends any opponent's run (denies it)
=============== ==================================================================================

The first five are our own; the other eight are our versions of rules described in public No Thanks! bot
collections (no code taken): ``PotGrab`` a tournament entry that takes once more than 10 chips sit on the card
(DanielStoyell/nothanksgame), ``LetItRider`` aaronrsiphone/NoThanks (card 25, 8 chips), ``Neighbour`` a
take-if-within-2 player of a public simulator, ``PennyClock`` RDShah/nothanks (a chip worth 1 + 20 × the
share of cards left), ``Impulsive`` jlkcz/nothanksarena; ``DeckRank``, ``Budget`` and ``Spoiler`` are
public-style rules (compare a card with the cards to come, panic when short of chips, deny an opponent's run)
with parameters of our choosing, not tuned.

Every bot takes when it has no chip. Specs: ``training.evaluation.heldout:LowCard`` and so on
(:func:`nothanks_env.specs.load_policy`'s ``module:attr`` form), listed in :data:`HELDOUT_OPPONENTS`. Tables
print them by class name (``LowCard ×2``, :func:`short_name`); the gauntlet's JSON keeps the full spec too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

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


def _holds(cards: np.ndarray, card: np.ndarray) -> np.ndarray:
    """bool (B,): whether bit ``card`` of the card masks ``cards`` is set (cards outside 0..62: not held)."""
    inside = (card >= 0) & (card < 63)
    return inside & (((cards >> np.clip(card, 0, 62)) & 1) == 1)


def _own_cards(view: BatchView) -> np.ndarray:
    """int64 (B,): the acting seat's face-up cards as a bit mask (bit c set: it holds card c)."""
    return view.cards[np.arange(len(view)), view.seat]


class PotGrab(Policy):
    """Card-blind: takes iff the pot holds at least 11 chips, whatever the card."""

    name = f"{MODULE}:PotGrab"

    def act_batch(self, view: BatchView) -> np.ndarray:
        """int64 (B,): TAKE iff pot ≥ 11, or forced."""
        return _take(view.pot >= 11, view)


class LetItRider(Policy):
    """With no card yet, takes only c ≥ 25 with a pot above 8; then only c next to its own with a pot above 8."""

    name = f"{MODULE}:LetItRider"

    def act_batch(self, view: BatchView) -> np.ndarray:
        """int64 (B,): TAKE iff pot > 8 and (no card held and c ≥ 25, or c − 1 or c + 1 held), or forced."""
        c, own = view.face_up_card, _own_cards(view)
        first = (own == 0) & (c >= 25)
        adjacent = _holds(own, c - 1) | _holds(own, c + 1)
        return _take((view.pot > 8) & (first | adjacent), view)


class Neighbour(Policy):
    """Takes any card within 2 of one it holds, whatever the pot; passes everything else until forced."""

    name = f"{MODULE}:Neighbour"

    def act_batch(self, view: BatchView) -> np.ndarray:
        """int64 (B,): TAKE iff one of c − 2, c − 1, c + 1, c + 2 is held, or forced."""
        c, own = view.face_up_card, _own_cards(view)
        near = _holds(own, c - 2) | _holds(own, c - 1) | _holds(own, c + 1) | _holds(own, c + 2)
        return _take(near, view)


class PennyClock(Policy):
    """A ratio bot whose chip value falls through the deal: takes iff c ≤ (1 + 20·f)·pot, f = (face-down cards
    + 1) / deck size (1 at the first card)."""

    name = f"{MODULE}:PennyClock"

    def act_batch(self, view: BatchView) -> np.ndarray:
        """int64 (B,): TAKE iff c ≤ (1 + 20·f)·pot, or forced (an empty pot is never taken by choice)."""
        f = (view.cards_in_deck + 1) / view.config.deck_size
        return _take(view.face_up_card <= (1.0 + 20.0 * f) * view.pot, view)


class Impulsive(Policy):
    """Never takes an empty pot; takes c if c + 1 is held or 2·pot > c, else with probability 1/4.

    Args:
        seed: seed of :attr:`rng`, its only source of randomness.
    """

    name = f"{MODULE}:Impulsive"
    stochastic = True

    def act_batch(self, view: BatchView) -> np.ndarray:
        """int64 (B,): TAKE iff pot > 0 and (c + 1 held, 2·pot > c, or a draw below 1/4), or forced."""
        c, pot = view.face_up_card, view.pot
        whim = self.rng.random(len(view)) < 0.25
        return _take((pot > 0) & (_holds(_own_cards(view), c + 1) | (2 * pot > c) | whim), view)


class DeckRank(Policy):
    """Takes iff Δ(c) − pot is at most the 30% quantile of the cards it has not seen (deck and hidden ones)."""

    name = f"{MODULE}:DeckRank"

    def act_batch(self, view: BatchView) -> np.ndarray:
        """int64 (B,): TAKE iff cost ≤ the k-th lowest unseen card, k = ceil(0.3 × unseen count), or forced."""
        cfg = view.config
        values = np.arange(cfg.lowest_card, cfg.highest_card + 1, dtype=np.int64)
        unseen = ((view.unseen[:, None] >> values) & 1).astype(bool)  # (B, V)
        k = np.maximum(np.ceil(0.3 * unseen.sum(axis=1)).astype(np.int64), 1)
        kth = values[np.argmax(np.cumsum(unseen, axis=1) >= k[:, None], axis=1)]
        bound = np.where(unseen.any(axis=1), kth, cfg.highest_card)
        return _take(own_take_delta(view) - view.pot <= bound, view)


class Budget(Policy):
    """Paces its chips over the deal: T = clip(4 − 2·s, −4, 20) with s its chips less the chips it planned to
    keep for the cards left (``chips_per_player / deck_size`` per card); takes iff Δ(c) − pot ≤ T."""

    name = f"{MODULE}:Budget"

    def act_batch(self, view: BatchView) -> np.ndarray:
        """int64 (B,): TAKE iff cost ≤ clip(4 − 2·(chips − chips_per_player·(face-down + 1)/deck_size), −4, 20)."""
        cfg = view.config
        surplus = view.own_chips - cfg.chips_per_player * (view.cards_in_deck + 1) / cfg.deck_size
        return _take(own_take_delta(view) - view.pot <= np.clip(4.0 - 2.0 * surplus, -4.0, 20.0), view)


class Spoiler(Policy):
    """Takes iff Δ(c) − pot ≤ 3, or ≤ 15 when the card would extend an opponent's run (Δ_o(c) ≤ 0)."""

    name = f"{MODULE}:Spoiler"

    def act_batch(self, view: BatchView) -> np.ndarray:
        """int64 (B,): TAKE iff cost ≤ 3, or cost ≤ 15 and some opponent's Δ(c) ≤ 0, or forced."""
        cost = own_take_delta(view) - view.pot
        others = (view.seat[:, None] + np.arange(1, view.num_players)) % view.num_players  # (B, P-1)
        denies = (np.take_along_axis(view.take_delta, others, axis=1) <= 0).any(axis=1)
        return _take((cost <= 3) | (denies & (cost <= 15)), view)


HELDOUT_OPPONENTS: tuple[str, ...] = tuple(
    f"{MODULE}:{cls.__name__}"
    for cls in (LowCard, Hoarder, Clock, ChipRich, Gambler, PotGrab, LetItRider, Neighbour, PennyClock, Impulsive,
                DeckRank, Budget, Spoiler)
)  # fmt: skip
"""The held-out bots as policy specs, one gauntlet column each (every other seat)."""

HELDOUT_MIXED: tuple[tuple[str, ...], ...] = (
    (f"{MODULE}:LowCard", f"{MODULE}:Hoarder"),
    (f"{MODULE}:Clock", "heuristic"),
    (f"{MODULE}:Gambler", "utility"),
    ("threshold:T=2", "threshold:T=12"),
    ("never-take", "heuristic"),
    ("stochastic", "utility"),
    ("ratio:r=0.3", "extort"),
    (f"{MODULE}:PotGrab", f"{MODULE}:PennyClock"),
    (f"{MODULE}:Budget", f"{MODULE}:Spoiler"),
    (f"{MODULE}:LetItRider", f"{MODULE}:DeckRank"),
)
"""Held-out mixed tables: the held-out bots beside standard ones, and pairs of standard bots that no gauntlet
column seats together (a league pool draws each seat on its own, so self-play may have met such pairs)."""


_SPEC_PREFIX = re.compile(rf"(?<![\w.]){re.escape(MODULE)}:")
"""``training.evaluation.heldout:`` where a spec (or a spec nested in another) starts with it."""


def short_name(spec: str) -> str:
    """``spec`` as a table prints it: each held-out bot by its class name (``training.evaluation.heldout:ChipRich``
    -> ``ChipRich``), in nested specs too (``search:model=(Clock)``); any other spec unchanged. For display
    only: the full spec is what loads."""
    return _SPEC_PREFIX.sub("", spec)


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


def _bot_name(spec: str) -> str:
    """The name the policy of ``spec`` reports (``stochastic:T=5,temp=3`` is ``stochastic``: its defaults spelled
    out), or ``spec`` itself when it does not load (its own error comes where it is loaded)."""
    from nothanks_env.specs import load_policy

    try:
        return str(load_policy(spec.strip(), num_players=3).name)
    except (ValueError, OSError):
        return spec.strip()


def heldout_table(specs: Sequence[str]) -> str | None:
    """The held-out mixed table (:data:`HELDOUT_MIXED`, as ``a+b``) whose bots the table of ``specs`` seats, in any
    seat order and however often each, or None. Bots are compared by the names their policies report, so a spec
    that spells out a bot's defaults (``stochastic:T=5,temp=3`` + ``utility``) is the same table."""
    names = frozenset(_bot_name(s) for s in specs)
    if len(names) < 2:
        return None
    for table in HELDOUT_MIXED:
        if names == frozenset(_bot_name(s) for s in table):
            return "+".join(table)
    return None


def refuse_heldout_tables(where: str, tables: Iterable[Sequence[str]]) -> None:
    """Refuse a table that seats the bots of a held-out mixed table (:func:`heldout_table`) where agents are
    trained or chosen, as :func:`refuse_heldout` refuses the held-out bots.

    Args:
        where: the option or config key being checked (``pool.lineups``, ``--opponents``), named in the error.
        tables: each table's specs (``("stochastic", "utility")``).

    Raises:
        ValueError: naming ``where``, the table as given and the held-out table it is.
    """
    for table in tables:
        held = heldout_table(table)
        if held is not None:
            raise ValueError(
                f"{where}: expected no held-out table (training.evaluation.heldout; kept out of training and "
                f"selection), got {'+'.join(table)!r}, which seats the bots of the held-out table {held!r}"
            )
