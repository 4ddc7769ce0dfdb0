"""Scripted bots of the kinds people write for this game, built from public descriptions of their rules.

These are the opponents of :mod:`training.gauntlet`: the bar our agents must clear against play they
were not trained to expect. None of them is copied from anywhere; each is our own vectorised version of
a rule family seen in public No Thanks! bot collections and tournaments. Every rule reads only what the
acting seat may know (a :class:`~nothanks_env.vector.BatchView`); opponents' chips come from
``view.known_chips(chip_memory)`` (perfect memory of the public chip movements by default), and are
estimated as an equal share of the unknown chips without it.

=============== ============================================================ ==============================
name            rule                                                          family
=============== ============================================================ ==============================
``ratio``       take iff pot >= r x cost (cost = card, or Δ(c) with runs)     pot/card ratio bots
``blocker``     threshold + block cards that extend the leader's run + milk   run-aware blocking/milking
``utility``     expected card-set utility with chip and low-chip terms;       utility bots of a public bot
                milks unless an opponent (with its own chips) would take      tournament
``extort``      chip value grows steeply as chips run out; lets a card go     utility bots of a public bot
                round while every opponent must pay to refuse it              tournament
``stochastic``  take with probability sigmoid((T − (Δ(c) − pot)) / temp)      stochastic value bots
=============== ============================================================ ==============================

Units: card values; chips; penalty points (lower is better). Δ(c) is the change in a seat's card points
if it took the face-up card c (see :func:`~nothanks_env.vector.take_delta`).
"""

from __future__ import annotations

import numpy as np

from nothanks_env.baselines.heuristic import estimated_chips, popcount
from nothanks_env.baselines.simple import forced, own_take_delta
from nothanks_env.policy import Policy
from nothanks_env.vector import BatchView, card_points


def _name(base: str, given: dict[str, object], defaults: dict[str, object]) -> str:
    """Canonical spec of a parametrised bot: ``base`` plus every parameter that differs from its default."""
    parts = [f"{k}={v}" for k, v in given.items() if v != defaults[k]]
    return base + (":" + ",".join(parts) if parts else "")


def _opponents(view: BatchView) -> np.ndarray:
    """int64 (B, P-1): the other seats in turn order after the acting seat."""
    n = view.num_players
    return (view.seat[:, None] + np.arange(1, n)) % n


class RatioPolicy(Policy):
    """Pot/card ratio bot: TAKE iff pot >= r x cost, or when out of chips.

    ``cost`` is the card's face value c (``runs=False``, the classic form: "take when the pot pays a
    fixed fraction of the card"), or Δ(c) with ``runs=True``, so a card that extends a run (Δ <= 0) is
    taken at once. A high ``r`` makes a pass-heavy bot that lets pots grow large.

    Args:
        r: pot-to-cost ratio at which it takes (chips per card point), > 0.
        runs: measure the cost by Δ(c) instead of c.
        seed: unused (deterministic); accepted for a uniform constructor.

    Raises:
        ValueError: if ``r <= 0``.
    """

    DEFAULTS = {"r": 0.5, "runs": False}

    def __init__(self, r: float = 0.5, runs: bool = False, seed: int | None = None) -> None:
        super().__init__(seed)
        if not r > 0:
            raise ValueError(f"r: expected a ratio > 0, got {r!r}")
        self.r, self.runs = float(r), bool(runs)
        self.name = _name("ratio", {"r": r, "runs": runs}, self.DEFAULTS)

    def act_batch(self, view: BatchView) -> np.ndarray:
        cost = own_take_delta(view) if self.runs else view.face_up_card
        take = (view.pot >= self.r * cost) | forced(view)
        return take.astype(np.int64)


class BlockerPolicy(Policy):
    """Run-aware blocking and milking heuristic.

    1. Forced: at 0 chips it takes.
    2. It *wants* c iff Δ(c) − pot <= T, with T = ``base`` + ``scarcity`` x max(0, 5 − chips).
    3. Blocking: it also takes c, even unwanted, when c extends the run of the *leader* (the opponent
       with the lowest estimated penalty, card points − chips) and Δ(c) − pot <= ``block_T``: it keeps the
       leader from a cheap card and its pot.
    4. Milking: a wanted card that does not extend any opponent's run is passed while it holds at least
       ``milk_min_chips`` chips and no opponent would take it when it comes round (opponent k seats later
       sees pot + k; it takes at 0 chips or when Δ_o(c) − (pot + k) <= ``milk_opp_T``).

    Defaults: a grid search (base 2-12, scarcity 0-4, block_T none-20, milk_opp_T −3-6, milk_min_chips
    2-6) for the win rate against two heuristic bots on tuning seeds (600 games each); on a third seed
    (1500 games, 3 players) it wins 0.34 against 2× ``heuristic``, which wins 0.49 against 2× it. Milking
    carries most of that (without it: 0.12); blocking is about neutral against these opponents.

    Args:
        base, scarcity, block_T, milk_opp_T: thresholds in penalty points.
        milk_min_chips: least own chips to milk.
        chip_memory: read opponents' chips from the public history (default True).
        seed: unused (deterministic).
    """

    DEFAULTS = {"base": 10.0, "scarcity": 3.0, "block_T": 12.0, "milk_opp_T": 0.0, "milk_min_chips": 6}

    def __init__(
        self,
        base: float = 10.0,
        scarcity: float = 3.0,
        block_T: float = 12.0,
        milk_opp_T: float = 0.0,
        milk_min_chips: int = 6,
        chip_memory: bool = True,
        seed: int | None = None,
    ) -> None:
        super().__init__(seed)
        self.base, self.scarcity, self.block_T = base, scarcity, block_T
        self.milk_opp_T, self.milk_min_chips, self.chip_memory = milk_opp_T, milk_min_chips, chip_memory
        given = {"base": base, "scarcity": scarcity, "block_T": block_T, "milk_opp_T": milk_opp_T}
        self.name = _name("blocker", given | {"milk_min_chips": milk_min_chips}, self.DEFAULTS)
        if not chip_memory:
            self.name += ("," if ":" in self.name else ":") + "chip_memory=False"

    def act_batch(self, view: BatchView) -> np.ndarray:
        rows = np.arange(len(view))
        n = view.num_players
        card, pot, own = view.face_up_card, view.pot, view.own_chips
        cost = own_take_delta(view) - pot
        wants = cost <= self.base + self.scarcity * np.maximum(0, 5 - own)

        opp = _opponents(view)
        opp_delta = np.take_along_axis(view.take_delta, opp, axis=1)
        chips = estimated_chips(view, self.chip_memory)
        penalty = view.card_points - chips
        leader = opp[rows, np.argmin(np.take_along_axis(penalty, opp, axis=1), axis=1)]
        leader_delta = view.take_delta[rows, leader]
        block = (leader_delta < card) & (cost <= self.block_T)

        opp_chips = np.take_along_axis(chips, opp, axis=1)
        seen_pot = pot[:, None] + np.arange(1, n)
        likely_taken = ((opp_chips < 1) | (opp_delta - seen_pot <= self.milk_opp_T)).any(axis=1)
        helps_opponent = (opp_delta < card[:, None]).any(axis=1)
        milk = wants & ~helps_opponent & (own >= self.milk_min_chips) & ~likely_taken
        take = ((wants | block) & ~milk) | forced(view)
        return take.astype(np.int64)


class UtilityPolicy(Policy):
    """Utility bot: values a whole position, takes when taking raises its utility, milks unless an opponent
    would take (our version of the utility bots that led a public bot tournament).

    The *disutility* of seat s (higher is worse, in penalty points) with cards C, chips x and ``d`` cards
    still to come is::

        D(C, x) = points(C) + sum over w in W(C) of  P_s(w) * (Δ_C(w) − value_ratio * w)
                  − x * (chip_weight + d / deck_size) + low_chip_penalty / (x + 1)

    where ``W(C)`` are the unseen neighbours of its cards (cards that would extend a run), ``Δ_C(w)`` the
    change in card points if it took w, and ``P_s(w)`` the chance that w comes to s: the chance that w is
    still in the deck (``d / #unseen``, exact) times ``steal`` (k / P when the nearest other seat that
    also wants w acts k seats before s, else 1) times ``prob_scale``. A chip is worth more early (it must
    last the whole deal) and a stack near 0 costs ``low_chip_penalty / (x + 1)``: a seat that cannot
    afford to pass must take, and opponents near 0 chips are modelled the same way.

    Decision: taking c with pot k changes D by ``u(s, k) = D(C + c, x + k) − D(C, x)`` (d − 1 cards left
    after). At 0 chips it takes. If ``u(me, pot) > 0`` it passes. Otherwise it milks (passes) unless
    some opponent, k seats later, would see ``u(o, pot + k) < extort_buffer``, i.e. could be tempted to
    take it first; then it takes at once. Every opponent is evaluated with its own cards and chips.

    Args:
        prob_scale, value_ratio, chip_weight, low_chip_penalty, extort_buffer: the terms above.
        chip_memory: read opponents' chips from the public history (default True); else estimate them.
        seed: unused (deterministic).
    """

    DEFAULTS = {
        "prob_scale": 0.8,
        "value_ratio": 0.3,
        "chip_weight": 1.0,
        "low_chip_penalty": 20.0,
        "extort_buffer": 7.0,
    }

    def __init__(
        self,
        prob_scale: float = 0.8,
        value_ratio: float = 0.3,
        chip_weight: float = 1.0,
        low_chip_penalty: float = 20.0,
        extort_buffer: float = 7.0,
        chip_memory: bool = True,
        seed: int | None = None,
    ) -> None:
        super().__init__(seed)
        self.prob_scale, self.value_ratio, self.chip_weight = prob_scale, value_ratio, chip_weight
        self.low_chip_penalty, self.extort_buffer, self.chip_memory = low_chip_penalty, extort_buffer, chip_memory
        given = {"prob_scale": prob_scale, "value_ratio": value_ratio, "chip_weight": chip_weight}
        given |= {"low_chip_penalty": low_chip_penalty, "extort_buffer": extort_buffer}
        self.name = _name("utility", given, self.DEFAULTS)
        if not chip_memory:
            self.name += ("," if ":" in self.name else ":") + "chip_memory=False"

    def _card_terms(self, view: BatchView, cards: np.ndarray) -> np.ndarray:
        """points(C) + expected run term, float64 (..., B, P), for card masks ``cards`` (..., B, P) (several
        hands per game at once: each array op then runs once for all of them)."""
        cfg = view.config
        n = view.num_players
        values = np.arange(cfg.lowest_card, cfg.highest_card + 1, dtype=np.int64)
        below = (cards[..., None] >> (values - 1)) & 1  # (..., B, P, V): holds w - 1
        above = (cards[..., None] >> (values + 1)) & 1
        held = (cards[..., None] >> values) & 1
        unseen = ((view.unseen[:, None, None] >> values) & 1).astype(bool)
        wanted = ((below | above) == 1) & (held == 0) & unseen  # (..., B, P, V)
        delta = np.where(below == 1, 0, values) - above * (values + 1)
        # steal: distance back to the nearest other seat that also wants w, as a share of the table
        dist = np.full(wanted.shape, n, dtype=np.float64)
        for k in range(n - 1, 0, -1):  # the nearest wins: overwrite from the farthest
            other = np.roll(wanted, k, axis=-2)  # seat s sees seat s - k
            dist = np.where(other, k, dist)
        p_deck = view.cards_in_deck / np.maximum(popcount(view.unseen), 1)
        p = p_deck[:, None, None] * (dist / n) * self.prob_scale
        run_term = (wanted * p * (delta - self.value_ratio * values)).sum(axis=-1)
        return card_points(cards, cfg.lowest_card, cfg.highest_card) + run_term

    def _chip_term(self, chips: np.ndarray, left: np.ndarray, deck_size: int) -> np.ndarray:
        return -chips * (self.chip_weight + left / deck_size) + self.low_chip_penalty / (chips + 1.0)

    def take_utilities(self, view: BatchView) -> np.ndarray:
        """u(s, pot + k) for every seat s, k seats after the acting seat: float64 (B, P); > 0 means
        taking would hurt s (disutility units, about penalty points)."""
        n = view.num_players
        chips = estimated_chips(view, self.chip_memory)
        after_pot = view.pot[:, None] + (np.arange(n)[None, :] - view.seat[:, None]) % n
        with_card = view.cards | (np.int64(1) << view.face_up_card)[:, None]
        d, size = view.cards_in_deck[:, None], view.config.deck_size
        terms = self._card_terms(view, np.stack([view.cards, with_card]))  # without and with the card
        before = terms[0] + self._chip_term(chips, d, size)
        after = terms[1] + self._chip_term(chips + after_pot, d - 1, size)
        return after - before

    def act_batch(self, view: BatchView) -> np.ndarray:
        rows = np.arange(len(view))
        u = self.take_utilities(view)
        good_for_me = u[rows, view.seat] <= 0
        others = np.take_along_axis(u, _opponents(view), axis=1)
        tempted = (others < self.extort_buffer).any(axis=1)
        take = (good_for_me & tempted) | forced(view)
        return take.astype(np.int64)


class ExtortPolicy(Policy):
    """Chip-pressure bot: a chip is worth more the fewer one holds, and a card is let go round while every
    opponent would have to pay to refuse it (our version of a second utility kind from a public tournament).

    For seat s with x chips, seeing the card with pot k: card value ``a = −Δ_s(c)`` (negative: the card
    costs points) and chip value ``b = k * (1 + base ** (scale − x))`` (each chip counts extra when x is
    small). At 0 chips it takes. If ``a + b >= 0`` the card is worth taking: it takes unless every
    opponent j seats later finds it not worth taking (``a_o + b_o(pot + j) < 0``) and refuses it by a wide
    margin (``b_o / −a_o < extort_ratio``); then it passes to collect their chips. Else (``a + b < 0``) it
    takes iff the pot already covers a share ``b / −a > take_ratio`` of the cost.

    Args:
        base, scale: chip-value growth (``base ** (scale − chips)``).
        take_ratio, extort_ratio: ratios of chip value to card cost.
        chip_memory: read opponents' chips from the public history (default True); else estimate them.
        seed: unused (deterministic).
    """

    DEFAULTS = {"base": 2.0, "scale": 3.0, "take_ratio": 0.4, "extort_ratio": 0.25}

    def __init__(
        self,
        base: float = 2.0,
        scale: float = 3.0,
        take_ratio: float = 0.4,
        extort_ratio: float = 0.25,
        chip_memory: bool = True,
        seed: int | None = None,
    ) -> None:
        super().__init__(seed)
        self.base, self.scale, self.take_ratio, self.extort_ratio = base, scale, take_ratio, extort_ratio
        self.chip_memory = chip_memory
        given = {"base": base, "scale": scale, "take_ratio": take_ratio, "extort_ratio": extort_ratio}
        self.name = _name("extort", given, self.DEFAULTS)
        if not chip_memory:
            self.name += ("," if ":" in self.name else ":") + "chip_memory=False"

    def act_batch(self, view: BatchView) -> np.ndarray:
        rows = np.arange(len(view))
        n = view.num_players
        chips = estimated_chips(view, self.chip_memory)
        seen_pot = view.pot[:, None] + (np.arange(n)[None, :] - view.seat[:, None]) % n  # (B, P)
        a = -view.take_delta.astype(np.float64)
        b = seen_pot * (1.0 + self.base ** (self.scale - chips))
        value = a + b
        ratio = np.where(a >= 0, np.inf, b / np.where(a < 0, -a, 1.0))
        me = view.seat
        opp = _opponents(view)
        opp_refuse = (np.take_along_axis(value, opp, axis=1) < 0).all(axis=1)
        opp_far = (np.take_along_axis(ratio, opp, axis=1) < self.extort_ratio).all(axis=1)
        worth = value[rows, me] >= 0
        take = np.where(worth, ~(opp_refuse & opp_far), ratio[rows, me] > self.take_ratio) | forced(view)
        return take.astype(np.int64)


class StochasticPolicy(Policy):
    """Stochastic value bot: TAKE with probability sigmoid((T − (Δ(c) − pot)) / temp); forced at 0 chips.

    A noisy threshold bot: near its threshold it mixes, far from it it is almost sure. Seeded through
    :attr:`rng` (evaluation reseeds it per chunk).

    Args:
        T: threshold in penalty points (probability 1/2 at Δ(c) − pot = T).
        temp: temperature in penalty points, > 0 (larger = noisier).
        seed: seed of :attr:`rng`.

    Raises:
        ValueError: if ``temp <= 0``.
    """

    DEFAULTS = {"T": 5.0, "temp": 3.0}
    stochastic = True

    def __init__(self, T: float = 5.0, temp: float = 3.0, seed: int | None = None) -> None:
        super().__init__(seed)
        if not temp > 0:
            raise ValueError(f"temp: expected a temperature > 0, got {temp!r}")
        self.T, self.temp = float(T), float(temp)
        self.name = _name("stochastic", {"T": T, "temp": temp}, self.DEFAULTS)

    def act_batch(self, view: BatchView) -> np.ndarray:
        z = (self.T - (own_take_delta(view) - view.pot)) / self.temp
        p_take = 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))
        take = (self.rng.random(len(view)) < p_take) | forced(view)
        return take.astype(np.int64)
