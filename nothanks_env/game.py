"""Pure rules engine for No Thanks! (Geschenkt / No Merci). Standard library only, no RL import.

Rules (Thorsten Gimmler, *Geschenkt*, Amigo 2004; English edition *No Thanks!*, Z-Man Games):

- Cards ``lowest_card .. highest_card`` (3..35, 33 cards). ``num_removed`` (9) are removed face down and
  never revealed; the rest (24) form the deck. Variants may also remove cards face up, known to all.
- Chips per player: 11 with 3-5 players, 9 with 6, 7 with 7 (55 chips in the box).
- The top card is face up. The seat to act either PASSes ("No thanks!"): one of its chips goes on the
  card (the *pot*) and the next seat clockwise acts; or TAKEs: the card and its pot go to the taker, who
  turns the next card face up and acts again. A seat with 0 chips may only take.
- The deal ends when the last card is taken. Penalty = sum of the lowest card of each run of consecutive
  cards, minus chips held (may be negative). Lowest penalty wins; tied seats share the win.
- A match of ``num_deals`` deals adds penalties up; the starting seat moves one seat clockwise each deal.

House variant ``special_cards=("wild", "delete")`` (preset ``wildcards``; issue 9 states the rules):

- The special cards join the number cards before the face-down removal, so with 9 removed 26 cards are
  played; a removed special card is never revealed. In a :class:`Deal` they are the ids :data:`WILD` (-1)
  and :data:`DELETE` (-2).
- A special card turned face up is auctioned at once. The seat that turned it (the taker, the auction
  winner, or the deal's starting seat) opens with a bid of 0 or more chips and may not drop before it has
  bid. Then, clockwise, each seat still in raises (more than the high bid, at most its chips) or drops out
  for good. The last seat in wins at its bid; the chips paid leave the game (nobody gets them).
- wild: the winner names a value ``lowest_card..highest_card`` that it holds no number card of; the wild
  then scores as that card (a later number card of that value adds nothing). delete: the winner discards
  one of its number cards (the wild cannot be discarded); with none, its next number card taken is
  discarded as it is taken (the pot is still its own). Discards leave the game, face up.
- Then the winner turns the next card and acts, as a taker does; after the last card the deal ends.
- Everything in the auction is public (bids, payments, values, discards).

Units: card values are ints; chips are ints; penalties are penalty points (lower is better). One *decision*
is one call to :meth:`Game.step`.
"""

from __future__ import annotations

import difflib
import numbers
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

PASS: int = 0
"""Action id for "No thanks!": put one chip on the face-up card."""
TAKE: int = 1
"""Action id for taking the face-up card and its pot."""
ACTION_NAMES: tuple[str, str] = ("pass", "take")

MIN_PLAYERS: int = 3
MAX_PLAYERS: int = 7
MAX_CARD_VALUES: int = 33
"""Largest number of distinct card values a config may use (the observation layout is sized for it)."""
MAX_CARD: int = 60
"""Highest card value a config may use (cards are stored as bits of a Python int)."""
TOTAL_CHIPS_IN_BOX: int = 55

SPECIAL_CARDS: tuple[str, ...] = ("wild", "delete")
"""Names of the house special cards, in the order of their observation slots."""
WILD: int = -1
"""Id of the wild ("?") card in :attr:`Deal.deck` and :attr:`Deal.removed_hidden`."""
DELETE: int = -2
"""Id of the delete card in :attr:`Deal.deck` and :attr:`Deal.removed_hidden`."""
SPECIAL_IDS: dict[str, int] = {"wild": WILD, "delete": DELETE}
SPECIAL_NAMES: dict[int, str] = {WILD: "wild", DELETE: "delete"}
PHASES: tuple[str, ...] = ("offer", "auction", "choose_value", "choose_discard")
"""Decision phases: pass/take an offered card, bid in an auction, name the wild's value, pick a discard."""
MAX_BID: int = TOTAL_CHIPS_IN_BOX
"""Highest bid the action space holds: every chip in the box (a config with special cards may deal no more)."""

ACTION_PIECES: tuple[tuple[str, int], ...] = (
    ("pass", 1),
    ("take", 1),
    ("bid", MAX_BID + 1),
    ("drop", 1),
    ("value", MAX_CARD_VALUES),
    ("delete", MAX_CARD_VALUES),
)
"""The action space of a config with special cards, as named ranges in order: ``bid`` k is id
``BID0 + k`` (k chips, 0..55); ``value`` and ``delete`` are indexed by ``card - lowest_card``. Standard
configs use only the first two (``Discrete(2)``)."""

BEHAVIOUR_FIELDS: tuple[str, ...] = (
    "passes",
    "free_takes",
    "take_cost_max",
    "take_raw_max",
    "pass_cost_min",
    "pass_raw_min",
)
"""Each seat's public pass/take record of the current deal (:attr:`SeatView.behaviour`), in this order:

- ``passes``: number of passes (chips).
- ``free_takes``: number of takes made while holding chips (a seat at 0 chips has no choice).
- ``take_cost_max``: the highest *cost* at which the seat took freely, where cost = the change in its card
  points from the card (:func:`take_delta`, 0 under a pending delete) minus the pot, in penalty points;
  0 while ``free_takes`` is 0.
- ``take_raw_max``: the highest ``card - pot`` at which it took freely; 0 while ``free_takes`` is 0.
- ``pass_cost_min``: the lowest cost at which it passed; 0 while ``passes`` is 0.
- ``pass_raw_min``: the lowest ``card - pot`` at which it passed; 0 while ``passes`` is 0.

Every input is public (cards held, the pot, whether a seat has chips follows from the public chip
movements), so every seat sees the same record. Auction decisions are not counted."""


def _action_starts() -> dict[str, int]:
    out, start = {}, 0
    for name, size in ACTION_PIECES:
        out[name] = start
        start += size
    return out


ACTION_STARTS: dict[str, int] = _action_starts()
BID0: int = ACTION_STARTS["bid"]
"""Action id of a bid of 0 chips (2); a bid of k chips is ``BID0 + k``."""
DROP: int = ACTION_STARTS["drop"]
"""Action id for dropping out of an auction (58)."""
VALUE0: int = ACTION_STARTS["value"]
"""Action id for naming the wild's value ``lowest_card`` (59); value v is ``VALUE0 + v - lowest_card``."""
DELETE0: int = ACTION_STARTS["delete"]
"""Action id for discarding card ``lowest_card`` (92); card v is ``DELETE0 + v - lowest_card``."""
NUM_SPECIAL_ACTIONS: int = sum(size for _, size in ACTION_PIECES)
"""Size of the action space with special cards on (125)."""

CHIPS_BY_PLAYERS: dict[int, int] = {3: 11, 4: 11, 5: 11, 6: 9, 7: 7}
"""Starting chips per player by player count, from the published rules."""

ChipVisibility = Literal["hidden", "visible"]


class RuleError(ValueError):
    """An invalid config, deal or action. The message names the field, what was expected and what was got."""


class IllegalActionError(RuleError):
    """An action that the rules forbid in the current state (e.g. PASS with 0 chips, any action after the end)."""


def did_you_mean(got: object, choices: Sequence[object]) -> str:
    """``" (did you mean 'x'?)"`` naming the choice closest to ``got`` (a string; :func:`difflib.get_close_matches`),
    or ``""`` when none is close: the hint every misspelt name gets (presets, special cards, config choices).

    Example:
        >>> did_you_mean("rel", ["tanh", "relu"])
        " (did you mean 'relu'?)"
        >>> did_you_mean("xyz", ["tanh", "relu"])
        ''
    """
    close = difflib.get_close_matches(got, [str(c) for c in choices], n=1) if isinstance(got, str) else []
    return f" (did you mean {close[0]!r}?)" if close else ""


def _fail(what: str, expected: str, got: object) -> RuleError:
    return RuleError(f"{what}: expected {expected}, got {got!r}")


@dataclass(frozen=True)
class GameConfig:
    """Validated, immutable rule variant.

    Attributes:
        num_players: seats at the table, 3..7.
        num_removed: cards removed face down and never revealed (standard 9).
        removed_face_up: card values removed face up before the deal, known to everyone, e.g. (10, 20, 30).
        starting_chips: chips per player; ``None`` uses :data:`CHIPS_BY_PLAYERS`.
        lowest_card, highest_card: the card range, inclusive (standard 3..35); at most 33 values, up to 60.
        num_deals: deals in a match; penalties add up and the starting seat rotates clockwise.
        starting_seat: seat that acts first in deal 0; ``None`` draws it from the seed.
        opponent_chips: ``"hidden"`` (the published rule) or ``"visible"`` (a common house rule).
        special_cards: house special cards in play, a subset of :data:`SPECIAL_CARDS` (``()`` = none, the
            published game; ``("wild", "delete")`` = the ``wildcards`` preset). With any, the action space is
            :data:`NUM_SPECIAL_ACTIONS` wide and at most :data:`MAX_BID` chips may be dealt in all.

    Raises:
        RuleError: naming the field, the expected value and the value received.
    """

    num_players: int = 3
    num_removed: int = 9
    removed_face_up: tuple[int, ...] = ()
    starting_chips: int | None = None
    lowest_card: int = 3
    highest_card: int = 35
    num_deals: int = 1
    starting_seat: int | None = None
    opponent_chips: ChipVisibility = "hidden"
    special_cards: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        def is_int(x: object) -> bool:
            return isinstance(x, int) and not isinstance(x, bool)

        if not is_int(self.num_players) or not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            raise _fail("num_players", f"an int in {MIN_PLAYERS}..{MAX_PLAYERS}", self.num_players)
        if not is_int(self.lowest_card) or self.lowest_card < 1:
            raise _fail("lowest_card", "an int >= 1", self.lowest_card)
        if not is_int(self.highest_card) or not self.lowest_card < self.highest_card <= MAX_CARD:
            raise _fail("highest_card", f"an int in {self.lowest_card + 1}..{MAX_CARD}", self.highest_card)
        if self.num_card_values > MAX_CARD_VALUES:
            raise _fail(
                "highest_card - lowest_card + 1", f"at most {MAX_CARD_VALUES} card values", self.num_card_values
            )
        if isinstance(self.removed_face_up, (str, bytes, dict)) or not isinstance(self.removed_face_up, Iterable):
            raise _fail("removed_face_up", "a sequence of card values", self.removed_face_up)
        object.__setattr__(self, "removed_face_up", tuple(self.removed_face_up))
        for c in self.removed_face_up:
            if not is_int(c) or not self.lowest_card <= c <= self.highest_card:
                raise _fail("removed_face_up", f"card values in {self.lowest_card}..{self.highest_card}", c)
        if len(set(self.removed_face_up)) != len(self.removed_face_up):
            raise _fail("removed_face_up", "distinct card values", self.removed_face_up)
        if isinstance(self.special_cards, str) or not isinstance(self.special_cards, (tuple, list)):
            raise _fail("special_cards", f"a tuple of names from {SPECIAL_CARDS}", self.special_cards)
        object.__setattr__(self, "special_cards", tuple(self.special_cards))
        if any(c not in SPECIAL_CARDS for c in self.special_cards) or len(set(self.special_cards)) != len(
            self.special_cards
        ):
            error = _fail("special_cards", f"distinct names from {SPECIAL_CARDS}", self.special_cards)
            unknown = [c for c in self.special_cards if c not in SPECIAL_CARDS]
            free = [c for c in SPECIAL_CARDS if c not in self.special_cards]  # not a second "wild" for "wlid"
            hint = did_you_mean(unknown[0], free) if unknown else ""
            if hint and len(self.special_cards) > 1:  # say which name it means
                hint = hint.replace("?)", f" for {unknown[0]!r}?)")
            raise RuleError(f"{error}{hint}") if hint else error
        object.__setattr__(self, "special_cards", tuple(c for c in SPECIAL_CARDS if c in self.special_cards))
        available = self.num_card_values - len(self.removed_face_up) + len(self.special_cards)
        if not is_int(self.num_removed) or not 0 <= self.num_removed <= available - 1:
            raise _fail(
                "num_removed", f"an int in 0..{available - 1} (at least one card must be dealt)", self.num_removed
            )
        if self.starting_chips is not None and (not is_int(self.starting_chips) or self.starting_chips < 0):
            raise _fail("starting_chips", "None or an int >= 0", self.starting_chips)
        if not is_int(self.num_deals) or self.num_deals < 1:
            raise _fail("num_deals", "an int >= 1", self.num_deals)
        if self.starting_seat is not None and (
            not is_int(self.starting_seat) or not 0 <= self.starting_seat < self.num_players
        ):
            raise _fail("starting_seat", f"None or an int in 0..{self.num_players - 1}", self.starting_seat)
        if self.opponent_chips not in ("hidden", "visible"):
            raise _fail("opponent_chips", "'hidden' or 'visible'", self.opponent_chips)
        if self.special_cards and self.num_players * self.chips_per_player > MAX_BID:
            raise _fail(
                "num_players * starting_chips",
                f"at most {MAX_BID} chips dealt in all with special cards (the bid actions go up to {MAX_BID})",
                self.num_players * self.chips_per_player,
            )

    @property
    def num_card_values(self) -> int:
        """Distinct card values in the box (33 for the standard game)."""
        return self.highest_card - self.lowest_card + 1

    @property
    def chips_per_player(self) -> int:
        """Starting chips of each seat (11 with 3-5 players, 9 with 6, 7 with 7, unless overridden)."""
        return CHIPS_BY_PLAYERS[self.num_players] if self.starting_chips is None else self.starting_chips

    @property
    def deck_size(self) -> int:
        """Cards played in each deal, special cards included (24 for the standard game, 26 for ``wildcards``)."""
        return self.num_card_values - len(self.removed_face_up) + len(self.special_cards) - self.num_removed

    @property
    def special_ids(self) -> tuple[int, ...]:
        """Ids of the special cards in play (:data:`WILD`, :data:`DELETE`), in :data:`SPECIAL_CARDS` order."""
        return tuple(SPECIAL_IDS[c] for c in self.special_cards)

    @property
    def num_actions(self) -> int:
        """Size of the action space: 2 (PASS, TAKE) without special cards, else :data:`NUM_SPECIAL_ACTIONS`."""
        return NUM_SPECIAL_ACTIONS if self.special_cards else 2

    @property
    def all_cards(self) -> tuple[int, ...]:
        """Every card value in the box, ascending."""
        return tuple(range(self.lowest_card, self.highest_card + 1))

    @property
    def max_decisions_per_deal(self) -> int:
        """Upper bound on decisions in one deal: one take per card, plus every chip passed once per card;
        an auction adds at most one bid per chip level and one drop per seat, and one choice."""
        chips = self.num_players * self.chips_per_player
        return self.deck_size * (1 + chips) + len(self.special_cards) * (chips + self.num_players + 2)


@dataclass(frozen=True)
class Deal:
    """One shuffled deal: the deck in play order (``deck[0]`` is turned first) and the hidden removals.

    Raises:
        RuleError: if, with the config's face-up removals, the cards are not exactly the box, once each.
    """

    deck: tuple[int, ...]
    removed_hidden: tuple[int, ...]

    def validate(self, config: GameConfig) -> None:
        """Check this deal against ``config``; raise :class:`RuleError` naming the problem.

        Card values must be ints (``bool`` and floats such as ``3.0`` are refused: they would compare equal
        to the box's cards here and break the bit masks later).
        """
        for field_name in ("deck", "removed_hidden"):
            cards = getattr(self, field_name)
            if not isinstance(cards, (tuple, list)):
                raise _fail(f"deal.{field_name}", "a sequence of card values (ints)", cards)
            bad = [c for c in cards if isinstance(c, bool) or not isinstance(c, numbers.Integral)]
            if bad:
                raise _fail(f"deal.{field_name}", "card values as ints", bad[0])
        if len(self.removed_hidden) != config.num_removed:
            raise _fail("deal.removed_hidden", f"{config.num_removed} cards", len(self.removed_hidden))
        if len(self.deck) != config.deck_size:
            raise _fail("deal.deck", f"{config.deck_size} cards", len(self.deck))
        got = sorted((*self.deck, *self.removed_hidden, *config.removed_face_up))
        if got != sorted((*config.all_cards, *config.special_ids)):
            raise _fail("deal cards", "each card of the box exactly once (deck + hidden + face-up removals)", got)

    @staticmethod
    def shuffled(config: GameConfig, rng: random.Random) -> Deal:
        """Draw a uniformly random deal for ``config`` from ``rng`` (special cards shuffled in as their ids).

        Without special cards the draw is the one earlier versions made, so seeds keep their deals."""
        cards = [c for c in config.all_cards if c not in config.removed_face_up]
        cards += config.special_ids
        rng.shuffle(cards)
        k = config.num_removed
        return Deal(deck=tuple(cards[k:]), removed_hidden=tuple(sorted(cards[:k])))


def validate_deals(config: GameConfig, deals: Sequence[Deal] | None) -> list[Deal]:
    """Check fixed deals for a match of ``config`` and return them as a list; changes no state.

    Raises:
        RuleError: if there are more deals than ``num_deals``, an entry is not a :class:`Deal`, or a deal
            does not fit the config (see :meth:`Deal.validate`).
    """
    fixed = list(deals or [])
    if len(fixed) > config.num_deals:
        raise _fail("deals", f"at most num_deals={config.num_deals} deals", len(fixed))
    for i, d in enumerate(fixed):
        if not isinstance(d, Deal):
            raise _fail(f"deals[{i}]", "a Deal", d)
        d.validate(config)
    return fixed


def cards_to_mask(cards: Iterable[int]) -> int:
    """Set of card values -> bit mask (bit ``c`` set for card ``c``)."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def mask_to_cards(mask: int) -> list[int]:
    """Bit mask -> ascending list of card values."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def card_points(mask: int) -> int:
    """Penalty points of a set of cards (as a bit mask): the sum of the lowest card of each run."""
    heads = mask & ~(mask << 1)
    return sum(mask_to_cards(heads))


def take_delta(mask: int, card: int) -> int:
    """Change in card points if a hand with cards ``mask`` (bit mask) took ``card``.

    It pays ``card`` unless it holds ``card - 1``, and saves ``card + 1`` if it holds ``card + 1`` (that
    card stops being the lowest of its run). Chips (the pot) are not included. A hand that already scores
    ``card`` (a wild named that value) gains nothing: 0.
    """
    if mask >> card & 1:
        return 0
    return (0 if mask >> (card - 1) & 1 else card) - (card + 1 if mask >> (card + 1) & 1 else 0)


def score(cards: Iterable[int], chips: int) -> int:
    """Penalty of a hand: the lowest card of each run of consecutive cards, summed, minus chips held.

    Args:
        cards: card values held (any order, no duplicates).
        chips: chips held, >= 0.

    Returns:
        Penalty points (lower is better; may be negative).

    Raises:
        RuleError: on a duplicate card, a card < 1, or negative chips.

    >>> score([20, 21, 22], 0)
    20
    >>> score([12, 23, 27], 12)
    50
    """
    cards = list(cards)
    if len(set(cards)) != len(cards):
        raise _fail("cards", "distinct card values", cards)
    if any(not isinstance(c, int) or c < 1 for c in cards):
        raise _fail("cards", "card values >= 1", cards)
    if chips < 0:
        raise _fail("chips", "an int >= 0", chips)
    return card_points(cards_to_mask(cards)) - chips


def ranks_and_winners(penalties: Sequence[int]) -> tuple[list[float], list[int]]:
    """Competition ranks with ties averaged (1 = best) and the winning seats (lowest penalty)."""
    order = sorted(penalties)
    ranks = []
    for p in penalties:
        first = order.index(p)
        count = order.count(p)
        ranks.append(first + (count + 1) / 2)
    best = order[0]
    return ranks, [i for i, p in enumerate(penalties) if p == best]


def legal_actions_in(
    config: GameConfig, phase: str, own_chips: int, high_bid: int | None, held: int
) -> tuple[int, ...]:
    """The legal action ids of the seat to act, from public facts (the one statement of who may do what).

    Args:
        config: the rule variant.
        phase: one of :data:`PHASES`.
        own_chips: the actor's chips.
        high_bid: the auction's high bid, ``None`` before the opener has bid (auction phase only).
        held: bit mask of the actor's number cards (choice phases only).

    Returns:
        Ascending action ids: offer ``(PASS, TAKE)`` or ``(TAKE,)`` at 0 chips; auction: the opener's first
        bid ``BID0 + 0..chips`` (it may not drop), later ``BID0 + high_bid+1..chips`` and :data:`DROP`;
        choose_value: ``VALUE0 + v - lowest`` for every value not held; choose_discard: ``DELETE0 + v - lowest``
        for every number card held.
    """
    if phase == "offer":
        return (PASS, TAKE) if own_chips > 0 else (TAKE,)
    lo = config.lowest_card
    if phase == "auction":
        if high_bid is None:
            return tuple(range(BID0, BID0 + own_chips + 1))
        return (*range(BID0 + high_bid + 1, BID0 + own_chips + 1), DROP)
    if phase == "choose_value":
        return tuple(VALUE0 + v - lo for v in config.all_cards if not held >> v & 1)
    if phase == "choose_discard":
        return tuple(DELETE0 + v - lo for v in mask_to_cards(held))
    raise _fail("phase", f"one of {PHASES}", phase)


def describe_action(config: GameConfig, action: int) -> str:
    """A short name for an action id: ``"pass"``, ``"take"``, ``"bid 3"``, ``"drop"``, ``"value 17"``, ``"delete 9"``.

    Raises:
        RuleError: for an id outside the config's action space.
    """
    if not (isinstance(action, int) and 0 <= action < config.num_actions):
        raise _fail("action", f"an int in 0..{config.num_actions - 1}", action)
    if action < BID0:
        return ACTION_NAMES[action]
    if action < DROP:
        return f"bid {action - BID0}"
    if action == DROP:
        return "drop"
    if action < DELETE0:
        return f"value {action - VALUE0 + config.lowest_card}"
    return f"delete {action - DELETE0 + config.lowest_card}"


@dataclass(frozen=True)
class SeatView:
    """Exactly what the player in ``seat`` may know. Public API: observations and bots are built from it.

    Seats are absolute (0..num_players-1). Card collections are ascending tuples of card values.

    Attributes:
        seat: the viewing seat.
        num_players: seats at the table.
        current_seat: seat to act (``None`` when the game is over).
        face_up_card: the card on offer (``None`` when the game is over).
        pot: chips on the face-up card.
        own_chips: the viewer's chips.
        chips: every seat's chips, ``None`` for opponents when chips are hidden.
        tracked_chips: every seat's chips as rebuilt from the public history by a player with perfect
            memory (every chip movement is public). Equal to the true counts; provided for memoryless policies.
        cards: every seat's cards.
        penalties: every seat's current penalty in this deal (cards minus chips; opponents' chips
            only counted when visible, otherwise the card points alone).
        card_points: every seat's card points in this deal (no chips).
        cards_in_deck: face-down cards still to come (not counting the face-up card).
        unseen: cards the viewer has not seen: the deck plus the hidden removals, never told apart.
        removed_face_up: cards removed face up before the deal.
        deal_index: 0-based deal number in the match; ``num_deals`` deals in all.
        match_penalties: every seat's total penalty of the finished deals of this match.
        config: the rule variant.

    With special cards (all public; defaults describe the standard game):
        phase: one of :data:`PHASES`.
        face_up_special: ``"wild"`` / ``"delete"`` while that card is face up (``face_up_card`` is then None).
        high_bid, high_bidder: the auction's high bid (chips) and its seat, ``None`` before the opening bid.
        in_auction: per seat, still in the auction (all False outside auctions).
        paid: per seat, chips paid to auctions this deal (they left the game).
        wild_values: per seat, the value its wild counts as, or ``None``.
        pending_delete: per seat, its next number card taken will be discarded.
        discarded: number cards discarded by delete this deal, ascending.
        unseen_special: special cards not yet turned face up (in the deck or removed; never told apart).

    Public behaviour (every config):
        behaviour: per seat, its pass/take record of this deal as ints in the order of
            :data:`BEHAVIOUR_FIELDS` (``()`` only for views built by hand).
    """

    seat: int
    num_players: int
    current_seat: int | None
    face_up_card: int | None
    pot: int
    own_chips: int
    chips: tuple[int | None, ...]
    tracked_chips: tuple[int, ...]
    cards: tuple[tuple[int, ...], ...]
    penalties: tuple[int, ...]
    card_points: tuple[int, ...]
    cards_in_deck: int
    unseen: tuple[int, ...]
    removed_face_up: tuple[int, ...]
    deal_index: int
    num_deals: int
    match_penalties: tuple[int, ...]
    config: GameConfig = field(repr=False)
    phase: str = "offer"
    face_up_special: str | None = None
    high_bid: int | None = None
    high_bidder: int | None = None
    in_auction: tuple[bool, ...] = ()
    paid: tuple[int, ...] = ()
    wild_values: tuple[int | None, ...] = ()
    pending_delete: tuple[bool, ...] = ()
    discarded: tuple[int, ...] = ()
    unseen_special: tuple[str, ...] = ()
    behaviour: tuple[tuple[int, ...], ...] = ()

    @property
    def legal_actions(self) -> tuple[int, ...]:
        """Legal action ids for the viewer if it is to act, else ``()`` (see :func:`legal_actions_in`)."""
        if self.current_seat != self.seat:
            return ()
        held = cards_to_mask(self.cards[self.seat])
        return legal_actions_in(self.config, self.phase, self.own_chips, self.high_bid, held)

    def scoring_mask(self, seat: int) -> int:
        """Bit mask of the cards ``seat`` scores with: its number cards plus its wild's value, if any."""
        mask = cards_to_mask(self.cards[seat])
        wild = self.wild_values[seat] if self.wild_values else None
        return mask if wild is None else mask | 1 << wild

    def take_delta(self, seat: int | None = None, card: int | None = None) -> int:
        """Change in ``seat``'s card points if it took ``card`` (defaults: the viewer, the face-up card).

        It pays ``card`` unless it holds ``card - 1``, and saves ``card + 1`` if it holds ``card + 1``.
        Chips (the pot) are not included.
        """
        seat = self.seat if seat is None else seat
        card = self.face_up_card if card is None else card
        if card is None:
            raise RuleError("take_delta: no face-up number card (the game is over, or a special card is up)")
        if self.pending_delete and self.pending_delete[seat]:
            return 0  # the card would be discarded as it is taken
        return take_delta(self.scoring_mask(seat), card)


@dataclass(slots=True)
class HistoryEntry:
    """One public decision: which seat did what to which card with how many chips on it."""

    deal_index: int
    seat: int
    action: int
    card: int
    pot: int


class Game:
    """Mutable state of one No Thanks! match (one or more deals) and the rules that move it.

    All randomness comes from ``seed`` in :meth:`reset` (Python's :class:`random.Random`).

    Example:
        >>> g = Game(GameConfig(num_players=3))
        >>> g.reset(seed=0)
        >>> while not g.is_over:
        ...     ended = g.step(TAKE)  # True once the action ends a deal
        >>> ended, len(g.history)
        (True, 24)
    """

    def __init__(self, config: GameConfig | None = None) -> None:
        self.config = config or GameConfig()
        self.is_over = True
        self.history: list[HistoryEntry] = []
        self.deals: list[Deal] = []

    # ---------------------------------------------------------------- set-up
    def reset(self, seed: int | None = None, deals: Sequence[Deal] | None = None) -> None:
        """Start a new match.

        Args:
            seed: seeds the shuffles and the starting seat (unless the config fixes it).
            deals: fixed deals (one per deal of the match, or fewer: the rest are shuffled from ``seed``).

        Raises:
            RuleError: if a fixed deal does not fit the config, or more deals than ``num_deals`` are given.
        """
        cfg = self.config
        fixed = validate_deals(cfg, deals)  # before any state changes: a refused reset leaves the game as it was
        self.rng = random.Random(seed)
        self._fixed_deals = fixed
        self.first_seat = cfg.starting_seat if cfg.starting_seat is not None else self.rng.randrange(cfg.num_players)
        self.match_penalties = [0] * cfg.num_players
        self.deal_penalties: list[list[int]] = []
        self.history = []
        self.deals = []
        self.deal_index = -1
        self._start_deal()

    def _start_deal(self) -> None:
        cfg = self.config
        n = cfg.num_players
        self.deal_index += 1
        i = self.deal_index
        deal = self._fixed_deals[i] if i < len(self._fixed_deals) else Deal.shuffled(cfg, self.rng)
        self.deals.append(deal)
        self.deck = list(deal.deck)  # deck[0] is face up
        self.removed_hidden = deal.removed_hidden
        self.chips = [cfg.chips_per_player] * n
        self.tracked = list(self.chips)
        self.behaviour = [[0] * len(BEHAVIOUR_FIELDS) for _ in range(n)]
        self.cards = [0] * n  # bit masks of number cards held
        self.pot = 0
        self.current_seat = (self.first_seat + i) % n
        self.is_over = False
        # special cards (house variant); inert in the standard game
        self.phase = "offer"
        self.paid = [0] * n
        self.wild_value: list[int | None] = [None] * n
        self.pending_delete = [False] * n
        self.discarded: list[int] = []
        self.in_auction = [False] * n
        self.high_bid: int | None = None
        self.high_bidder: int | None = None
        self._turn_up(self.current_seat)

    # ---------------------------------------------------------------- rules
    @property
    def face_up_card(self) -> int | None:
        """The number card on offer; ``None`` when the match is over or a special card is face up."""
        return None if self.is_over or self.deck[0] < 0 else self.deck[0]

    @property
    def face_up_special(self) -> str | None:
        """``"wild"`` / ``"delete"`` while that special card is face up (auction or its use), else ``None``."""
        if self.phase in ("choose_value", "choose_discard"):
            return "wild" if self.phase == "choose_value" else "delete"
        return None if self.is_over or self.deck[0] >= 0 else SPECIAL_NAMES[self.deck[0]]

    def scoring_mask(self, seat: int) -> int:
        """Bit mask of the cards ``seat`` scores with: its number cards plus its wild's value, if any."""
        wild = self.wild_value[seat]
        return self.cards[seat] if wild is None else self.cards[seat] | 1 << wild

    def legal_actions(self) -> tuple[int, ...]:
        """Legal action ids for the seat to act (see :func:`legal_actions_in`); ``()`` at the end."""
        if self.is_over:
            return ()
        seat = self.current_seat
        return legal_actions_in(self.config, self.phase, self.chips[seat], self.high_bid, self.cards[seat])

    def step(self, action: int) -> bool:
        """Apply ``action`` for the seat to act.

        Returns:
            True if this action ended a deal (its last card was taken, or the use of a last special card
            was chosen); the next deal, if any, has started.

        Raises:
            IllegalActionError: after the end, for an action id outside the space, or one the phase forbids
                (PASS at 0 chips, a bid not above the high bid or above one's chips, ...). The state is
                left unchanged.
        """
        if self.is_over:
            raise IllegalActionError("step: the match is over; call reset()")
        seat = self.current_seat
        if self.phase != "offer" or (action != PASS and action != TAKE) or isinstance(action, bool):
            if self.phase == "offer":
                raise IllegalActionError(f"action: expected PASS (0) or TAKE (1), got {action!r}")
            legal = self.legal_actions()
            if type(action) is not int or action not in legal:
                shown = describe_action(self.config, action) if type(action) is int and 0 <= action < (
                    self.config.num_actions) else repr(action)  # fmt: skip
                raise IllegalActionError(
                    f"action: expected one of {list(legal)} in phase {self.phase!r} for seat {seat}, got {shown}"
                )
            if self.phase == "auction":
                return self._bid(seat, action)
            if self.phase == "choose_value":
                self.history.append(HistoryEntry(self.deal_index, seat, action, WILD, 0))
                self.wild_value[seat] = action - VALUE0 + self.config.lowest_card
                return self._turn_up(seat)
            self.history.append(HistoryEntry(self.deal_index, seat, action, DELETE, 0))
            card = action - DELETE0 + self.config.lowest_card
            self.cards[seat] &= ~(1 << card)
            self.discarded.append(card)
            return self._turn_up(seat)
        card = self.deck[0]
        if action == PASS:
            if self.chips[seat] == 0:
                raise IllegalActionError(f"action: expected TAKE (1) because seat {seat} has 0 chips, got PASS (0)")
            self._record(seat, PASS, card)
            self.history.append(HistoryEntry(self.deal_index, seat, PASS, card, self.pot))
            self.chips[seat] -= 1
            self.tracked[seat] -= 1
            self.pot += 1
            self.current_seat = (seat + 1) % self.config.num_players
            return False
        if self.chips[seat] > 0:
            self._record(seat, TAKE, card)
        self.history.append(HistoryEntry(self.deal_index, seat, TAKE, card, self.pot))
        self.chips[seat] += self.pot
        self.tracked[seat] += self.pot
        if self.pending_delete[seat]:
            self.pending_delete[seat] = False
            self.discarded.append(card)
        else:
            self.cards[seat] |= 1 << card
        self.pot = 0
        self.deck.pop(0)
        return self._turn_up(seat)

    def _record(self, seat: int, action: int, card: int) -> None:
        """Add a pass, or a take made with chips, to ``seat``'s :data:`BEHAVIOUR_FIELDS` record."""
        rec = self.behaviour[seat]
        cost = (0 if self.pending_delete[seat] else take_delta(self.scoring_mask(seat), card)) - self.pot
        raw = card - self.pot
        if action == PASS:
            first = rec[0] == 0
            rec[0] += 1
            rec[4] = cost if first else min(rec[4], cost)
            rec[5] = raw if first else min(rec[5], raw)
        else:
            first = rec[1] == 0
            rec[1] += 1
            rec[2] = cost if first else max(rec[2], cost)
            rec[3] = raw if first else max(rec[3], raw)

    def _turn_up(self, seat: int) -> bool:
        """``seat`` turns the next card (if any) and acts on it; ends the deal after the last card."""
        self.phase = "offer"
        self.current_seat = seat
        if not self.deck:
            return self._end_deal()
        if self.deck[0] < 0:  # a special card: auctioned at once, opened by the seat that turned it
            self.phase = "auction"
            self.in_auction = [True] * self.config.num_players
            self.high_bid = None
            self.high_bidder = None
        return False

    def _bid(self, seat: int, action: int) -> bool:
        n = self.config.num_players
        self.history.append(HistoryEntry(self.deal_index, seat, action, self.deck[0], self.high_bid or 0))
        if action == DROP:
            self.in_auction[seat] = False
        else:
            self.high_bid = action - BID0
            self.high_bidder = seat
        if sum(self.in_auction) > 1:
            nxt = (seat + 1) % n
            while not self.in_auction[nxt]:
                nxt = (nxt + 1) % n
            self.current_seat = nxt
            return False
        winner = self.in_auction.index(True)
        bid = self.high_bid or 0
        self.chips[winner] -= bid
        self.tracked[winner] -= bid
        self.paid[winner] += bid
        self.in_auction = [False] * n
        self.high_bid = None
        self.high_bidder = None
        special = self.deck.pop(0)
        self.current_seat = winner
        if special == WILD:
            self.phase = "choose_value"
            return False
        if self.cards[winner]:
            self.phase = "choose_discard"
            return False
        self.pending_delete[winner] = True
        return self._turn_up(winner)

    def _end_deal(self) -> bool:
        penalties = self.penalties()
        self.deal_penalties.append(penalties)
        self.match_penalties = [a + b for a, b in zip(self.match_penalties, penalties)]
        if self.deal_index + 1 < self.config.num_deals:
            self._start_deal()
        else:
            self.is_over = True
        return True

    # ---------------------------------------------------------------- scores
    def penalties(self) -> list[int]:
        """Every seat's penalty in the current (or last) deal, in penalty points (a wild scores as its value)."""
        return [card_points(self.scoring_mask(s)) - c for s, c in enumerate(self.chips)]

    def final_penalties(self) -> list[int]:
        """Match totals of the finished deals (all of them once :attr:`is_over`)."""
        return list(self.match_penalties)

    def ranks_and_winners(self) -> tuple[list[float], list[int]]:
        """Ranks (1 = best, ties averaged) and winning seats by match totals."""
        return ranks_and_winners(self.match_penalties)

    # ---------------------------------------------------------------- views
    def seat_view(self, seat: int) -> SeatView:
        """What ``seat`` may know now. See :class:`SeatView`.

        Raises:
            RuleError: if ``seat`` is not in 0..num_players-1.
        """
        cfg = self.config
        if not 0 <= seat < cfg.num_players:
            raise _fail("seat", f"an int in 0..{cfg.num_players - 1}", seat)
        visible = cfg.opponent_chips == "visible"
        chips = tuple(c if (visible or i == seat) else None for i, c in enumerate(self.chips))
        card_pts = tuple(card_points(self.scoring_mask(s)) for s in range(cfg.num_players))
        known = [c if c is not None else 0 for c in chips]
        hidden = (*self.deck[1:], *self.removed_hidden)
        unseen = tuple(sorted(c for c in hidden if c >= 0))
        special = cfg.special_cards
        return SeatView(
            seat=seat,
            num_players=cfg.num_players,
            current_seat=None if self.is_over else self.current_seat,
            face_up_card=self.face_up_card if self.phase == "offer" else None,
            pot=self.pot,
            own_chips=self.chips[seat],
            chips=chips,
            tracked_chips=tuple(self.tracked),
            cards=tuple(tuple(mask_to_cards(m)) for m in self.cards),
            penalties=tuple(p - k for p, k in zip(card_pts, known)),
            card_points=card_pts,
            cards_in_deck=max(len(self.deck) - 1, 0),
            unseen=unseen,
            removed_face_up=cfg.removed_face_up,
            deal_index=self.deal_index,
            num_deals=cfg.num_deals,
            match_penalties=tuple(self.match_penalties),
            config=cfg,
            phase=self.phase,
            face_up_special=None if self.is_over else self.face_up_special,
            high_bid=self.high_bid,
            high_bidder=self.high_bidder,
            in_auction=tuple(self.in_auction) if special else (),
            paid=tuple(self.paid) if special else (),
            wild_values=tuple(self.wild_value) if special else (),
            pending_delete=tuple(self.pending_delete) if special else (),
            discarded=tuple(sorted(self.discarded)),
            unseen_special=tuple(SPECIAL_NAMES[c] for c in cfg.special_ids if c in hidden),
            behaviour=tuple(tuple(r) for r in self.behaviour),
        )

    def state(self) -> dict:
        """The full state, hidden parts included, as plain JSON-able data (for debugging and critics)."""
        cfg = self.config.__dict__ | {
            "removed_face_up": list(self.config.removed_face_up),
            "special_cards": list(self.config.special_cards),
        }
        out = {
            "config": cfg,
            "deal_index": self.deal_index,
            "current_seat": None if self.is_over else self.current_seat,
            "deck": list(self.deck),
            "removed_hidden": list(self.removed_hidden),
            "pot": self.pot,
            "chips": list(self.chips),
            "cards": [mask_to_cards(m) for m in self.cards],
            "match_penalties": list(self.match_penalties),
            "is_over": self.is_over,
        }
        if self.config.special_cards:
            out |= {
                "phase": self.phase,
                "high_bid": self.high_bid,
                "high_bidder": self.high_bidder,
                "in_auction": list(self.in_auction),
                "paid": list(self.paid),
                "wild_values": list(self.wild_value),
                "pending_delete": list(self.pending_delete),
                "discarded": sorted(self.discarded),
            }
        return out
