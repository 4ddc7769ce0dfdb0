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

Units: card values are ints; chips are ints; penalties are penalty points (lower is better). One *decision*
is one call to :meth:`Game.step`.
"""

from __future__ import annotations

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

CHIPS_BY_PLAYERS: dict[int, int] = {3: 11, 4: 11, 5: 11, 6: 9, 7: 7}
"""Starting chips per player by player count, from the published rules."""

ChipVisibility = Literal["hidden", "visible"]


class RuleError(ValueError):
    """An invalid config, deal or action. The message names the field, what was expected and what was got."""


class IllegalActionError(RuleError):
    """An action that the rules forbid in the current state (e.g. PASS with 0 chips, any action after the end)."""


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
        available = self.num_card_values - len(self.removed_face_up)
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
        """Cards played in each deal (24 for the standard game)."""
        return self.num_card_values - len(self.removed_face_up) - self.num_removed

    @property
    def all_cards(self) -> tuple[int, ...]:
        """Every card value in the box, ascending."""
        return tuple(range(self.lowest_card, self.highest_card + 1))

    @property
    def max_decisions_per_deal(self) -> int:
        """Upper bound on decisions in one deal: one take per card, plus every chip passed once per card."""
        return self.deck_size * (1 + self.num_players * self.chips_per_player)


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
        if got != list(config.all_cards):
            raise _fail("deal cards", "each card of the box exactly once (deck + hidden + face-up removals)", got)

    @staticmethod
    def shuffled(config: GameConfig, rng: random.Random) -> Deal:
        """Draw a uniformly random deal for ``config`` from ``rng``."""
        cards = [c for c in config.all_cards if c not in config.removed_face_up]
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
    card stops being the lowest of its run). Chips (the pot) are not included.
    """
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

    @property
    def legal_actions(self) -> tuple[int, ...]:
        """Legal action ids for the viewer if it is to act, else ``()``."""
        if self.current_seat != self.seat:
            return ()
        return (PASS, TAKE) if self.own_chips > 0 else (TAKE,)

    def take_delta(self, seat: int | None = None, card: int | None = None) -> int:
        """Change in ``seat``'s card points if it took ``card`` (defaults: the viewer, the face-up card).

        It pays ``card`` unless it holds ``card - 1``, and saves ``card + 1`` if it holds ``card + 1``.
        Chips (the pot) are not included.
        """
        seat = self.seat if seat is None else seat
        card = self.face_up_card if card is None else card
        if card is None:
            raise RuleError("take_delta: no face-up card (the game is over)")
        return take_delta(cards_to_mask(self.cards[seat]), card)


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
        ...     g.step(TAKE)
        >>> len(g.history)
        24
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
        self.deal_index += 1
        i = self.deal_index
        deal = self._fixed_deals[i] if i < len(self._fixed_deals) else Deal.shuffled(cfg, self.rng)
        self.deals.append(deal)
        self.deck = list(deal.deck)  # deck[0] is face up
        self.removed_hidden = deal.removed_hidden
        self.chips = [cfg.chips_per_player] * cfg.num_players
        self.tracked = list(self.chips)
        self.cards = [0] * cfg.num_players  # bit masks
        self.pot = 0
        self.current_seat = (self.first_seat + i) % cfg.num_players
        self.is_over = False

    # ---------------------------------------------------------------- rules
    @property
    def face_up_card(self) -> int | None:
        """The card on offer, or ``None`` when the match is over."""
        return None if self.is_over else self.deck[0]

    def legal_actions(self) -> tuple[int, ...]:
        """Legal action ids for the seat to act: ``(PASS, TAKE)``, or ``(TAKE,)`` at 0 chips, ``()`` at the end."""
        if self.is_over:
            return ()
        return (PASS, TAKE) if self.chips[self.current_seat] > 0 else (TAKE,)

    def step(self, action: int) -> bool:
        """Apply ``action`` for the seat to act.

        Returns:
            True if this action ended a deal (the last card was taken); the next deal, if any, has started.

        Raises:
            IllegalActionError: after the end, for an action id other than 0/1, or PASS at 0 chips.
        """
        if self.is_over:
            raise IllegalActionError("step: the match is over; call reset()")
        seat = self.current_seat
        card = self.deck[0]
        if action == PASS and not isinstance(action, bool):
            if self.chips[seat] == 0:
                raise IllegalActionError(f"action: expected TAKE (1) because seat {seat} has 0 chips, got PASS (0)")
            self.history.append(HistoryEntry(self.deal_index, seat, PASS, card, self.pot))
            self.chips[seat] -= 1
            self.tracked[seat] -= 1
            self.pot += 1
            self.current_seat = (seat + 1) % self.config.num_players
            return False
        if action != TAKE or isinstance(action, bool):
            raise IllegalActionError(f"action: expected PASS (0) or TAKE (1), got {action!r}")
        self.history.append(HistoryEntry(self.deal_index, seat, TAKE, card, self.pot))
        self.chips[seat] += self.pot
        self.tracked[seat] += self.pot
        self.cards[seat] |= 1 << card
        self.pot = 0
        self.deck.pop(0)
        if self.deck:
            return False
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
        """Every seat's penalty in the current (or last) deal, in penalty points."""
        return [card_points(m) - c for m, c in zip(self.cards, self.chips)]

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
        card_pts = tuple(card_points(m) for m in self.cards)
        known = [c if c is not None else 0 for c in chips]
        unseen = tuple(sorted((*self.deck[1:], *self.removed_hidden)))
        return SeatView(
            seat=seat,
            num_players=cfg.num_players,
            current_seat=None if self.is_over else self.current_seat,
            face_up_card=self.face_up_card,
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
        )

    def state(self) -> dict:
        """The full state, hidden parts included, as plain JSON-able data (for debugging and critics)."""
        return {
            "config": self.config.__dict__ | {"removed_face_up": list(self.config.removed_face_up)},
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
