"""Observations of every seat, kept up to date move by move: the env's fast path to ``encoding.encode``.

``encoding.encode(game.seat_view(seat))`` builds a :class:`SeatView` and writes the vector piece by piece,
about 40 us a call; the env needs one per decision. :class:`ObservationTable` keeps a single table in
absolute seat order, ``encode(game.seat_view(0), chip_memory=True)`` (every chip count filled in), plus a
"has 0 chips" flag per seat and a constant 0. A pass or a take changes a handful of entries, which it
updates; the start of a deal rebuilds the table through the encoder itself. Each seat's observation is one
gather from the table: seat pieces rotated so the observer comes first, ``own_chips`` and ``must_take``
read from the observer's entries, and hidden opponents' chips read from the constant 0.

The result equals ``encoding.encode(game.seat_view(seat), chip_memory)`` exactly; the test suite checks this
at every decision of random games for every preset, player count and chip mode. A change to
:data:`encoding.LAYOUT` or to the encoder that this module does not follow fails those tests.
"""

from __future__ import annotations

import numpy as np

from nothanks_env import encoding as enc
from nothanks_env.game import MAX_CARD_VALUES, MAX_PLAYERS, PASS, Game, card_points, take_delta

_S = enc.SLICES
_FACE_UP, _POT, _IN_DECK = _S["face_up_card"].start, _S["pot"].start, _S["cards_in_deck"].start
_UNSEEN, _TO_ACT, _SEAT_CARDS = _S["unseen"].start, _S["to_act"].start, _S["seat_cards"].start
_SEAT_POINTS, _SEAT_CHIPS, _TAKE_DELTA = (
    _S["seat_card_points"].start,
    _S["seat_chips"].start,
    _S["seat_take_delta"].start,
)
_ZERO_CHIPS, _CONST_ZERO = enc.OBS_SIZE, enc.OBS_SIZE + MAX_PLAYERS
_SEAT_PIECES = ("seat_present", "to_act", "seat_card_points", "seat_chips", "seat_chips_known", "seat_take_delta",
                "seat_match_penalty")  # fmt: skip
"""7-slot pieces in seat order relative to the observer (``seat_cards`` is handled as 7 x 33)."""


def gather_index(seat: int, num_players: int, hide_chips: bool) -> np.ndarray:
    """Indices into the table that give ``seat``'s observation: int64, shape (OBS_SIZE,).

    Args:
        seat: the observer.
        num_players: seats at the table.
        hide_chips: opponents' chips unknown (``opponent_chips="hidden"`` without ``chip_memory``).
    """
    n = num_players
    idx = np.arange(enc.OBS_SIZE)
    for k in range(n):
        src = (seat + k) % n
        for name in _SEAT_PIECES:
            idx[_S[name].start + k] = _S[name].start + src
        dst = _SEAT_CARDS + k * MAX_CARD_VALUES
        idx[dst : dst + MAX_CARD_VALUES] = np.arange(MAX_CARD_VALUES) + _SEAT_CARDS + src * MAX_CARD_VALUES
        if hide_chips and k > 0:
            idx[_S["seat_chips"].start + k] = _CONST_ZERO
            idx[_S["seat_chips_known"].start + k] = _CONST_ZERO
    idx[_S["own_chips"].start] = _SEAT_CHIPS + seat
    idx[_S["must_take"].start] = _ZERO_CHIPS + seat
    return idx


class ObservationTable:
    """Every seat's observation of one :class:`Game`, updated move by move.

    Call :meth:`rebuild` after ``reset()``, and :meth:`after_step` after every ``Game.step`` (it rebuilds
    when a deal ends, else calls :meth:`after_pass` / :meth:`after_take`); do not change the game by other
    means in between.

    Args:
        game: the game to follow.
        chip_memory: fill opponents' chips as ``encoding.encode(..., chip_memory=True)`` does.
    """

    def __init__(self, game: Game, chip_memory: bool = False) -> None:
        self.game = game
        n = game.config.num_players
        hide = game.config.opponent_chips == "hidden" and not chip_memory
        self._table = np.zeros(enc.OBS_SIZE + MAX_PLAYERS + 1, dtype=np.float32)
        self._gather = [gather_index(seat, n, hide) for seat in range(n)]
        self._gather_full = gather_index(0, n, hide_chips=False)
        self._points: list[int] = []

    def observation(self, seat: int) -> np.ndarray:
        """``encoding.encode(game.seat_view(seat), chip_memory)``: a new float32 array, shape (OBS_SIZE,)."""
        return self._table.take(self._gather[seat])

    def full_table(self) -> np.ndarray:
        """``encoding.encode(game.seat_view(0), chip_memory=True)``: every seat's chips, absolute seat order."""
        return self._table.take(self._gather_full)

    def rebuild(self) -> None:
        """Recompute everything from the game (through the encoder)."""
        game = self.game
        t = self._table
        enc.encode(game.seat_view(0), chip_memory=True, out=t[: enc.OBS_SIZE])
        for seat, chips in enumerate(game.chips):
            t[_ZERO_CHIPS + seat] = 1.0 if chips == 0 else 0.0
        t[_CONST_ZERO] = 0.0
        self._points = [card_points(m) for m in game.cards]

    def after_step(self, seat: int, action: int, card: int, deal_ended: bool) -> None:
        """Update after ``Game.step(action)`` by ``seat`` with ``card`` face up returned ``deal_ended``."""
        if deal_ended:
            self.rebuild()
        elif action == PASS:
            self.after_pass(seat)
        else:
            self.after_take(seat, card)

    def after_pass(self, seat: int) -> None:
        """Update after ``seat`` passed (the values written are the encoder's, term for term)."""
        game = self.game
        t = self._table
        chips = game.chips[seat]
        t[_SEAT_CHIPS + seat] = chips / enc.CHIP_SCALE
        t[_ZERO_CHIPS + seat] = 1.0 if chips == 0 else 0.0
        t[_POT] = game.pot / enc.CHIP_SCALE
        t[_TO_ACT + seat] = 0.0
        t[_TO_ACT + game.current_seat] = 1.0

    def after_take(self, seat: int, card: int) -> None:
        """Update after ``seat`` took ``card`` and the deal goes on (the next card is face up)."""
        game = self.game
        t = self._table
        lo = game.config.lowest_card
        new = game.deck[0]
        chips = game.chips[seat]
        points = self._points
        points[seat] += take_delta(game.cards[seat] ^ (1 << card), card)
        t[_SEAT_CARDS + seat * MAX_CARD_VALUES + card - lo] = 1.0
        t[_SEAT_POINTS + seat] = points[seat] / enc.POINT_SCALE
        t[_SEAT_CHIPS + seat] = chips / enc.CHIP_SCALE
        t[_ZERO_CHIPS + seat] = 1.0 if chips == 0 else 0.0
        t[_POT] = 0.0
        t[_FACE_UP + card - lo] = 0.0
        t[_FACE_UP + new - lo] = 1.0
        t[_UNSEEN + new - lo] = 0.0
        t[_IN_DECK] = (len(game.deck) - 1) / enc.DECK_SCALE
        for k, mask in enumerate(game.cards):
            t[_TAKE_DELTA + k] = take_delta(mask, new) / enc.CARD_SCALE
