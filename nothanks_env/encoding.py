"""The observation layout, declared once as named pieces, and the encoder from a :class:`SeatView`.

One layout serves every player count 3..7 and every card range of up to 33 values: card pieces are
indexed by ``card - config.lowest_card``; seat pieces have :data:`MAX_PLAYERS` slots in seat order
*relative to the observer* (slot 0 = the observer, slot 1 = the next seat clockwise, ...), and slots of
absent seats are zero with ``seat_present = 0``. Every value is float32.

The table below is checked against :data:`LAYOUT` by the test suite.

=====================  =====  ==========================================================================
piece                  size   meaning (unit, scale)
=====================  =====  ==========================================================================
face_up_card           33     one-hot of the card on offer (all zero when the game is over)
pot                    1      chips on the face-up card / 55
own_chips              1      the observer's chips / 55
must_take              1      1 if the observer has 0 chips (PASS illegal), else 0
cards_in_deck          1      face-down cards still to come / 33
unseen                 33     1 for each card the observer has not seen (deck + hidden removals)
removed_face_up        33     1 for each card removed face up before the deal
seat_present           7      1 for each seat slot that is at the table
to_act                 7      one-hot of the slot that acts
seat_cards             231    7 slots x 33 cards, 1 where that seat holds the card
seat_card_points       7      each seat's card points this deal (lowest card of each run) / 100
seat_chips             7      each seat's chips / 55 where known, else 0
seat_chips_known       7      1 where that seat's chips are in the observation
seat_take_delta        7      change in that seat's card points if it took the face-up card / 35
seat_match_penalty     7      each seat's penalty total over the finished deals of the match / 100
num_players            5      one-hot of the player count 3..7
deals_left             1      deals still to play after this one / 10
=====================  =====  ==========================================================================

Configs with special cards (``special_cards``, the ``wildcards`` preset) append :data:`SPECIAL_LAYOUT`
after ``deals_left``, so their vector is :data:`SPECIAL_OBS_SIZE` long (499) and its first 389 values keep
the meaning above; a standard config's vector is unchanged, byte for byte. While a special card is up,
``face_up_card`` and ``seat_take_delta`` are zero and ``auction_card`` says which one it is; ``seat_cards``
holds number cards only and ``seat_card_points`` counts a wild at its value.

=====================  =====  ==========================================================================
special piece          size   meaning (unit, scale)
=====================  =====  ==========================================================================
phase                  4      one-hot: offer, auction, choose_value, choose_discard
auction_card           2      one-hot of the special card up (auction or its use): wild, delete
high_bid               1      the auction's high bid / 55 (0 before the opening bid)
high_bidder            7      one-hot of the slot holding the high bid
in_auction             7      1 for each slot still in the auction
seat_paid              7      chips each slot paid to auctions this deal / 55 (they left the game)
wild_holder            7      one-hot of the slot holding the wild
wild_value             33     one-hot of the value the wild counts as
pending_delete         7      1 where that slot's next number card taken is discarded
special_unseen         2      1 for each special card not yet turned face up: wild, delete
discarded              33     1 for each number card discarded by delete this deal
=====================  =====  ==========================================================================

The option ``behaviour=True`` (every encoder, the envs' ``behaviour`` argument, self-play's
``env.behaviour``) appends :data:`BEHAVIOUR_LAYOUT` last: each seat's public pass/take record of this deal
(:data:`nothanks_env.game.BEHAVIOUR_FIELDS`), so a memoryless policy can tell what kind of player each
opponent has been so far. Every value in it follows from the public history, so it is the same for every
observer (up to the slot rotation). Its vector is 56 values longer: 445 (555 with special cards).

=====================  =====  ==========================================================================
behaviour piece        size   meaning (unit, scale)
=====================  =====  ==========================================================================
seat_passes            7      passes this deal / 55
seat_free_takes        7      takes made while holding chips / 33
seat_took              7      1 once the slot has taken freely this deal
seat_take_cost_max     7      highest cost (take delta - pot, penalty points) of a free take / 35
seat_take_raw_max      7      highest card - pot of a free take / 35
seat_passed            7      1 once the slot has passed this deal
seat_pass_cost_min     7      lowest cost (take delta - pot) at which it passed / 35
seat_pass_raw_min      7      lowest card - pot at which it passed / 35
=====================  =====  ==========================================================================

Opponents' chips are filled in when the config shows them (``opponent_chips="visible"``) or when the
encoder is asked for ``chip_memory=True``: every chip movement is public (passes add one chip to the
pot, takes move the whole pot), so a player with perfect memory knows every count. ``chip_memory``
gives a memoryless policy that recall, from :attr:`SeatView.tracked_chips`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from nothanks_env.game import (
    MAX_CARD_VALUES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PHASES,
    SPECIAL_CARDS,
    TOTAL_CHIPS_IN_BOX,
    GameConfig,
    SeatView,
)

if TYPE_CHECKING:
    from nothanks_env.vector import BatchView

CHIP_SCALE: float = float(TOTAL_CHIPS_IN_BOX)
POINT_SCALE: float = 100.0
CARD_SCALE: float = 35.0
DECK_SCALE: float = float(MAX_CARD_VALUES)
DEALS_SCALE: float = 10.0


@dataclass(frozen=True)
class Piece:
    """A named, contiguous block of the observation vector."""

    name: str
    size: int
    doc: str


LAYOUT: tuple[Piece, ...] = (
    Piece("face_up_card", MAX_CARD_VALUES, "one-hot of the card on offer"),
    Piece("pot", 1, "chips on the face-up card / 55"),
    Piece("own_chips", 1, "the observer's chips / 55"),
    Piece("must_take", 1, "1 if the observer has 0 chips"),
    Piece("cards_in_deck", 1, "face-down cards still to come / 33"),
    Piece("unseen", MAX_CARD_VALUES, "cards the observer has not seen"),
    Piece("removed_face_up", MAX_CARD_VALUES, "cards removed face up"),
    Piece("seat_present", MAX_PLAYERS, "seat slot at the table"),
    Piece("to_act", MAX_PLAYERS, "one-hot of the slot that acts"),
    Piece("seat_cards", MAX_PLAYERS * MAX_CARD_VALUES, "cards held per seat slot"),
    Piece("seat_card_points", MAX_PLAYERS, "card points / 100"),
    Piece("seat_chips", MAX_PLAYERS, "chips / 55 where known"),
    Piece("seat_chips_known", MAX_PLAYERS, "1 where chips are observed"),
    Piece("seat_take_delta", MAX_PLAYERS, "card-point change if that seat took the face-up card / 35"),
    Piece("seat_match_penalty", MAX_PLAYERS, "match penalty of finished deals / 100"),
    Piece("num_players", MAX_PLAYERS - MIN_PLAYERS + 1, "one-hot of 3..7"),
    Piece("deals_left", 1, "deals after this one / 10"),
)


SPECIAL_LAYOUT: tuple[Piece, ...] = (
    Piece("phase", len(PHASES), "one-hot of offer, auction, choose_value, choose_discard"),
    Piece("auction_card", len(SPECIAL_CARDS), "one-hot of the special card up: wild, delete"),
    Piece("high_bid", 1, "the auction's high bid / 55"),
    Piece("high_bidder", MAX_PLAYERS, "one-hot of the slot holding the high bid"),
    Piece("in_auction", MAX_PLAYERS, "slots still in the auction"),
    Piece("seat_paid", MAX_PLAYERS, "chips paid to auctions this deal / 55"),
    Piece("wild_holder", MAX_PLAYERS, "one-hot of the slot holding the wild"),
    Piece("wild_value", MAX_CARD_VALUES, "one-hot of the wild's value"),
    Piece("pending_delete", MAX_PLAYERS, "slots whose next number card taken is discarded"),
    Piece("special_unseen", len(SPECIAL_CARDS), "special cards not yet turned: wild, delete"),
    Piece("discarded", MAX_CARD_VALUES, "number cards discarded by delete"),
)
"""Pieces appended after :data:`LAYOUT` for configs with special cards (see the module docstring)."""


BEHAVIOUR_LAYOUT: tuple[Piece, ...] = (
    Piece("seat_passes", MAX_PLAYERS, "passes this deal / 55"),
    Piece("seat_free_takes", MAX_PLAYERS, "takes made while holding chips / 33"),
    Piece("seat_took", MAX_PLAYERS, "1 once the slot has taken freely"),
    Piece("seat_take_cost_max", MAX_PLAYERS, "highest take delta - pot of a free take / 35"),
    Piece("seat_take_raw_max", MAX_PLAYERS, "highest card - pot of a free take / 35"),
    Piece("seat_passed", MAX_PLAYERS, "1 once the slot has passed"),
    Piece("seat_pass_cost_min", MAX_PLAYERS, "lowest take delta - pot at a pass / 35"),
    Piece("seat_pass_raw_min", MAX_PLAYERS, "lowest card - pot at a pass / 35"),
)
"""Pieces appended last with ``behaviour=True`` (see the module docstring)."""
BEHAVIOUR_SIZE: int = sum(p.size for p in BEHAVIOUR_LAYOUT)
"""Values the ``behaviour`` option adds (56)."""


def _offsets(layout: tuple[Piece, ...], start: int = 0) -> dict[str, slice]:
    out = {}
    for p in layout:
        out[p.name] = slice(start, start + p.size)
        start += p.size
    return out


SLICES: dict[str, slice] = _offsets(LAYOUT)
"""Piece name -> slice of the observation vector."""
OBS_SIZE: int = sum(p.size for p in LAYOUT)
"""Length of the observation vector (389)."""
SPECIAL_SLICES: dict[str, slice] = _offsets(LAYOUT + SPECIAL_LAYOUT)
"""Piece name -> slice of the observation vector of a config with special cards (all pieces)."""
SPECIAL_OBS_SIZE: int = OBS_SIZE + sum(p.size for p in SPECIAL_LAYOUT)
"""Length of the observation vector of a config with special cards (499)."""


def layout(config: GameConfig, behaviour: bool = False) -> tuple[Piece, ...]:
    """The pieces of ``config``'s observation: :data:`LAYOUT`, then :data:`SPECIAL_LAYOUT` with special cards,
    then :data:`BEHAVIOUR_LAYOUT` with ``behaviour``."""
    out = LAYOUT + SPECIAL_LAYOUT if config.special_cards else LAYOUT
    return out + BEHAVIOUR_LAYOUT if behaviour else out


def obs_size(config: GameConfig, behaviour: bool = False) -> int:
    """Length of ``config``'s observation vector: :data:`OBS_SIZE` (389), or :data:`SPECIAL_OBS_SIZE` (499)
    with special cards; :data:`BEHAVIOUR_SIZE` (56) more with ``behaviour``."""
    base = SPECIAL_OBS_SIZE if config.special_cards else OBS_SIZE
    return base + BEHAVIOUR_SIZE if behaviour else base


def behaviour_slices(config: GameConfig) -> dict[str, slice]:
    """Piece name -> slice of the :data:`BEHAVIOUR_LAYOUT` pieces in ``config``'s vector with ``behaviour``."""
    return _offsets(BEHAVIOUR_LAYOUT, obs_size(config))


_SLICES_BY_SIZE: dict[int, dict[str, slice]] = {
    size: _offsets(pieces)
    for size, pieces in {
        OBS_SIZE: LAYOUT,
        SPECIAL_OBS_SIZE: LAYOUT + SPECIAL_LAYOUT,
        OBS_SIZE + BEHAVIOUR_SIZE: LAYOUT + BEHAVIOUR_LAYOUT,
        SPECIAL_OBS_SIZE + BEHAVIOUR_SIZE: LAYOUT + SPECIAL_LAYOUT + BEHAVIOUR_LAYOUT,
    }.items()
}
"""Vector length -> piece slices, for each of the four layouts (built once: :func:`split` is called per view)."""


def split(obs: np.ndarray) -> dict[str, np.ndarray]:
    """Named views into an observation of any of the four sizes (389, 499, 445, 555: with special cards,
    with ``behaviour``, or both); ``seat_cards`` becomes ``(..., 7, 33)``."""
    if obs.shape[-1] not in _SLICES_BY_SIZE:
        raise ValueError(f"obs: expected last dimension one of {sorted(_SLICES_BY_SIZE)}, got shape {obs.shape}")
    slices = _SLICES_BY_SIZE[obs.shape[-1]]
    out = {name: obs[..., s] for name, s in slices.items()}
    out["seat_cards"] = out["seat_cards"].reshape(*obs.shape[:-1], MAX_PLAYERS, MAX_CARD_VALUES)
    return out


def encode(
    view: SeatView, chip_memory: bool = False, out: np.ndarray | None = None, behaviour: bool = False
) -> np.ndarray:
    """Encode a seat view as the observation vector.

    Args:
        view: what the observing seat may know.
        chip_memory: fill opponents' chips from the public history (see module docstring).
        out: optional float32 array of shape ``(obs_size(view.config, behaviour),)`` to write into (it is
            zeroed first).
        behaviour: append :data:`BEHAVIOUR_LAYOUT` (every seat's public pass/take record of this deal).

    Returns:
        np.ndarray, shape ``(obs_size(view.config, behaviour),)``, float32: ``(OBS_SIZE,)`` laid out as
        :data:`LAYOUT`, with special cards :data:`SPECIAL_LAYOUT` after it, and with ``behaviour``
        :data:`BEHAVIOUR_LAYOUT` last.

    Raises:
        ValueError: for ``behaviour`` with a view that carries no record (built by hand).
    """
    if out is None:
        out = np.zeros(obs_size(view.config, behaviour), dtype=np.float32)
    else:
        out.fill(0.0)
    s = SLICES
    lo = view.config.lowest_card
    n = view.num_players
    me = view.seat
    face = view.face_up_card
    if face is not None:
        out[s["face_up_card"].start + face - lo] = 1.0
    out[s["pot"].start] = view.pot / CHIP_SCALE
    out[s["own_chips"].start] = view.own_chips / CHIP_SCALE
    out[s["must_take"].start] = 1.0 if view.own_chips == 0 else 0.0
    out[s["cards_in_deck"].start] = view.cards_in_deck / DECK_SCALE
    u0 = s["unseen"].start - lo
    for c in view.unseen:
        out[u0 + c] = 1.0
    r0 = s["removed_face_up"].start - lo
    for c in view.removed_face_up:
        out[r0 + c] = 1.0
    out[s["seat_present"].start : s["seat_present"].start + n] = 1.0
    if view.current_seat is not None:
        out[s["to_act"].start + (view.current_seat - me) % n] = 1.0
    chips = view.tracked_chips if chip_memory else view.chips
    sc0 = s["seat_cards"].start - lo
    for k in range(n):
        seat = (me + k) % n
        base = sc0 + k * MAX_CARD_VALUES
        for c in view.cards[seat]:
            out[base + c] = 1.0
        out[s["seat_card_points"].start + k] = view.card_points[seat] / POINT_SCALE
        if chips[seat] is not None:
            out[s["seat_chips"].start + k] = chips[seat] / CHIP_SCALE
            out[s["seat_chips_known"].start + k] = 1.0
        if face is not None:
            out[s["seat_take_delta"].start + k] = view.take_delta(seat) / CARD_SCALE
        out[s["seat_match_penalty"].start + k] = view.match_penalties[seat] / POINT_SCALE
    out[s["num_players"].start + n - MIN_PLAYERS] = 1.0
    out[s["deals_left"].start] = (view.num_deals - view.deal_index - 1) / DEALS_SCALE
    if view.config.special_cards:
        _encode_special(view, out)
    if behaviour:
        if len(view.behaviour) != n:
            raise ValueError(f"view.behaviour: expected one record per seat ({n}), got {len(view.behaviour)}")
        rec = np.array(view.behaviour, dtype=np.int64)[(me + np.arange(n)) % n]  # slot order
        _put_behaviour(out[obs_size(view.config) :][None], rec[None], n)
    return out


def encode_batch(view: BatchView, chip_memory: bool = False, behaviour: bool = False) -> np.ndarray:
    """Encode a batch view (the batched engine's) as observation vectors, one per game.

    Identical to :func:`encode` of each game's :class:`SeatView` with the same options (a test holds them
    equal), also for the finished games of a :meth:`~nothanks_env.vector.VectorGame.final_view`: no face-up
    card, no seat to act. The result is cached on ``view``; do not write into it.

    Args:
        view: what the acting seat of each of B games may know (a standard config: no special cards).
        chip_memory: fill opponents' chips from the public history (see module docstring).
        behaviour: append :data:`BEHAVIOUR_LAYOUT`.

    Returns:
        np.ndarray, float32, shape ``(B, obs_size(view.config, behaviour))``.

    Raises:
        ValueError: for ``behaviour`` with a view that carries no record (``view.behaviour`` is None).
    """
    key = (chip_memory, behaviour)
    if key in view._obs_cache:
        return view._obs_cache[key]
    cfg = view.config
    b, n, lo = len(view), cfg.num_players, cfg.lowest_card
    nv = MAX_CARD_VALUES
    s = SLICES
    out = np.zeros((b, obs_size(cfg, behaviour)), dtype=np.float32)
    rows = np.arange(b)
    values = np.arange(lo, lo + nv, dtype=np.int64)
    out[rows, s["face_up_card"].start + view.face_up_card - lo] = 1.0
    out[:, s["pot"].start] = view.pot / CHIP_SCALE
    out[:, s["own_chips"].start] = view.own_chips / CHIP_SCALE
    out[:, s["must_take"].start] = view.own_chips == 0
    out[:, s["cards_in_deck"].start] = view.cards_in_deck / DECK_SCALE
    out[:, s["unseen"]] = (view.unseen[:, None] >> values) & 1
    face_up_removed = np.zeros(nv, dtype=np.float32)
    face_up_removed[[c - lo for c in cfg.removed_face_up]] = 1.0
    out[:, s["removed_face_up"]] = face_up_removed
    out[:, s["seat_present"].start : s["seat_present"].start + n] = 1.0
    out[:, s["to_act"].start] = 1.0  # the viewer is always the seat to act, unless the game is over
    if view.over is not None:
        out[view.over, s["face_up_card"]] = 0.0
        out[view.over, s["to_act"].start] = 0.0
    order = (view.seat[:, None] + np.arange(n)) % n  # slot k -> absolute seat
    cards = np.take_along_axis(view.cards, order, axis=1)
    bits = (cards[:, :, None] >> values) & 1
    sc = out[:, s["seat_cards"]].reshape(b, MAX_PLAYERS, nv)
    sc[:, :n, :] = bits
    out[:, s["seat_cards"]] = sc.reshape(b, -1)

    def put(name: str, values_: np.ndarray) -> None:
        out[:, s[name].start : s[name].start + n] = values_

    put("seat_card_points", np.take_along_axis(view.card_points, order, axis=1) / POINT_SCALE)
    chips = np.take_along_axis(view.known_chips(chip_memory), order, axis=1)
    known = chips >= 0
    put("seat_chips", np.where(known, chips, 0) / CHIP_SCALE)
    put("seat_chips_known", known)
    put("seat_take_delta", np.take_along_axis(view.take_delta, order, axis=1) / CARD_SCALE)
    put("seat_match_penalty", np.take_along_axis(view.match_penalties, order, axis=1) / POINT_SCALE)
    out[:, s["num_players"].start + n - MIN_PLAYERS] = 1.0
    out[:, s["deals_left"].start] = view.deals_left / DEALS_SCALE
    if behaviour:
        if view.behaviour is None:
            raise ValueError("view.behaviour: expected every seat's record (B, P, 6) for behaviour=True, got None")
        rec = np.take_along_axis(view.behaviour, order[:, :, None], axis=1)
        _put_behaviour(out[:, obs_size(cfg) :], rec, n)
    view._obs_cache[key] = out
    return out


_BEHAVIOUR_OFFSETS: dict[str, slice] = _offsets(BEHAVIOUR_LAYOUT)


def _put_behaviour(out: np.ndarray, rec: np.ndarray, n: int) -> None:
    """Write :data:`BEHAVIOUR_LAYOUT` into ``out`` float32 (B, BEHAVIOUR_SIZE) from records int64 (B, n, F)
    already in slot order (slot 0 = the viewer)."""
    s = _BEHAVIOUR_OFFSETS
    passes, takes = rec[:, :, 0], rec[:, :, 1]

    def put(name: str, values: np.ndarray) -> None:
        out[:, s[name].start : s[name].start + n] = values

    put("seat_passes", passes / CHIP_SCALE)
    put("seat_free_takes", takes / DECK_SCALE)
    put("seat_took", takes > 0)
    put("seat_take_cost_max", rec[:, :, 2] / CARD_SCALE)
    put("seat_take_raw_max", rec[:, :, 3] / CARD_SCALE)
    put("seat_passed", passes > 0)
    put("seat_pass_cost_min", rec[:, :, 4] / CARD_SCALE)
    put("seat_pass_raw_min", rec[:, :, 5] / CARD_SCALE)


def _encode_special(view: SeatView, out: np.ndarray) -> None:
    s = SPECIAL_SLICES
    lo, n, me = view.config.lowest_card, view.num_players, view.seat

    def slot(seat: int) -> int:
        return (seat - me) % n

    out[s["phase"].start + PHASES.index(view.phase)] = 1.0
    if view.face_up_special is not None:
        out[s["auction_card"].start + SPECIAL_CARDS.index(view.face_up_special)] = 1.0
    if view.high_bid is not None:
        out[s["high_bid"].start] = view.high_bid / CHIP_SCALE
        out[s["high_bidder"].start + slot(view.high_bidder)] = 1.0
    for seat in range(n):
        k = slot(seat)
        out[s["in_auction"].start + k] = 1.0 if view.in_auction[seat] else 0.0
        out[s["seat_paid"].start + k] = view.paid[seat] / CHIP_SCALE
        out[s["pending_delete"].start + k] = 1.0 if view.pending_delete[seat] else 0.0
        if view.wild_values[seat] is not None:
            out[s["wild_holder"].start + k] = 1.0
            out[s["wild_value"].start + view.wild_values[seat] - lo] = 1.0
    for name in view.unseen_special:
        out[s["special_unseen"].start + SPECIAL_CARDS.index(name)] = 1.0
    for c in view.discarded:
        out[s["discarded"].start + c - lo] = 1.0


def action_mask(view: SeatView) -> np.ndarray:
    """Legal-action mask for the viewer: np.ndarray, int8, shape ``(config.num_actions,)``: (2,) with index
    0 = PASS, 1 = TAKE; with special cards (125,) laid out as :data:`nothanks_env.game.ACTION_PIECES`."""
    m = np.zeros(view.config.num_actions, dtype=np.int8)
    m[list(view.legal_actions)] = 1
    return m
