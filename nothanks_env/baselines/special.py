"""What the scripted baselines do with the house special cards (the ``wildcards`` preset).

The special-card variant runs on the scalar engine, so these rules take one
:class:`~nothanks_env.game.SeatView` and return one action id (:data:`nothanks_env.game.ACTION_PIECES`).
``random`` draws uniformly from the legal ids; ``heuristic`` uses the rule below. All terms are penalty
points, and a chip is worth one point.

Heuristic rule:

1. Offer (a number card is up): the standard heuristic, on a view in which a wild counts as the number
   card of its value (so runs through the wild are seen).
2. Auction: the card's value to me, V:

   - wild: ``-min_v Δ(v)``, where Δ(v) is the change in my card points if the wild became v (negative
     when v extends a run downwards or bridges two runs). Holding nothing, Δ(3) = 3, so V = -3.
   - delete: the most card points one discard saves me (``max_c points(H) - points(H - c)``); with no
     card, :data:`EMPTY_HAND_DELETE_VALUE` (the next card taken is free).

   My ceiling is ``M = min(chips - 1, V - 1)``: never pay what the card saves, and keep a chip so as not
   to be forced to take. The opener bids 0; later I raise by one chip while ``high_bid + 1 <= M``, else I
   drop.
3. Naming the wild: the value with the lowest Δ(v) (the lowest value on ties).
4. Discarding: the card whose loss saves the most points (the highest card on ties).
"""

from __future__ import annotations

import dataclasses

from nothanks_env.game import BID0, DELETE0, DROP, VALUE0, SeatView, card_points, cards_to_mask, take_delta

EMPTY_HAND_DELETE_VALUE: int = 8
"""Value in chips the heuristic puts on a delete when it holds no card (its next card taken is discarded):
about the net cost of a card taken at the usual threshold (it takes cards whose Δ − pot is below ~10)."""


def wild_value_deltas(view: SeatView) -> dict[int, int]:
    """For every value the viewer may name for a wild: the change in its card points (penalty points)."""
    mask, held = view.scoring_mask(view.seat), cards_to_mask(view.cards[view.seat])
    return {v: take_delta(mask, v) for v in view.config.all_cards if not held >> v & 1}


def delete_savings(view: SeatView) -> dict[int, int]:
    """For every number card the viewer holds: the card points a discard of it saves (penalty points)."""
    mask = view.scoring_mask(view.seat)
    base = card_points(mask)
    return {c: base - card_points(mask & ~(1 << c) | _wild_bit(view)) for c in view.cards[view.seat]}


def _wild_bit(view: SeatView) -> int:
    wild = view.wild_values[view.seat] if view.wild_values else None
    return 0 if wild is None else 1 << wild


def special_value(view: SeatView) -> int:
    """The value to the viewer, in chips, of the special card being auctioned (see the module rule 2)."""
    if view.face_up_special == "wild":
        return -min(wild_value_deltas(view).values())
    savings = delete_savings(view)
    return max(savings.values()) if savings else EMPTY_HAND_DELETE_VALUE


def heuristic_bid(view: SeatView) -> int:
    """The heuristic's auction action: bid 0 as opener, raise by one chip up to its ceiling, else drop."""
    if view.high_bid is None:
        return BID0
    ceiling = min(view.own_chips - 1, special_value(view) - 1)
    return BID0 + view.high_bid + 1 if view.high_bid + 1 <= ceiling else DROP


def heuristic_choice(view: SeatView) -> int:
    """The heuristic's choice of the wild's value or of the card to discard (module rules 3 and 4)."""
    lo = view.config.lowest_card
    if view.phase == "choose_value":
        deltas = wild_value_deltas(view)
        return VALUE0 + min(deltas, key=lambda v: (deltas[v], v)) - lo
    savings = delete_savings(view)
    return DELETE0 + max(savings, key=lambda c: (savings[c], c)) - lo


def with_wild_as_card(view: SeatView) -> SeatView:
    """``view`` with every wild counted as a number card of its value (for the standard decision rules)."""
    if not view.wild_values or all(w is None for w in view.wild_values):
        return view
    cards = tuple(
        tuple(sorted(set(cs) | ({w} if w is not None else set()))) for cs, w in zip(view.cards, view.wild_values)
    )
    return dataclasses.replace(view, cards=cards)
