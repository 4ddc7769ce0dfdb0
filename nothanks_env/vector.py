"""Batched rules engine: many independent games (single deals or matches) stepped at once with NumPy.

This is the fast path for training, evaluation and benchmarks. It implements the same rules as
:class:`nothanks_env.game.Game` (see that module for the rules and their source), matches of
``num_deals`` deals included (penalties add up, the starting seat moves one seat clockwise each deal),
and the test suite replays identical deals and actions through both and compares every state. The house
variant with special cards (``special_cards``) is played by the scalar engine only. Card sets are bit masks
in int64 (bit ``c`` for card ``c``), so card values must be <= 60.

Units: chips; card values; penalty points (lower is better). One *decision* is one game's action in
one call to :meth:`VectorGame.step`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from nothanks_env.game import (
    BEHAVIOUR_FIELDS,
    MIN_PLAYERS,
    PASS,
    TAKE,
    Game,
    GameConfig,
    IllegalActionError,
    RuleError,
    SeatView,
    cards_to_mask,
    mask_to_cards,
)
from nothanks_env.game import card_points as scalar_card_points
from nothanks_env.game import take_delta as scalar_take_delta


def card_points(masks: np.ndarray, lowest: int, highest: int) -> np.ndarray:
    """Card points of bit-mask card sets: the sum of the lowest card of each run. Any shape, int64 in/out."""
    heads = np.asarray(masks & ~(masks << 1), dtype=np.int64)
    if heads.size <= 4096:  # small batches (a bot's round): one pass over (..., cards) bits, not 33 passes
        values = np.arange(lowest, highest + 1, dtype=np.int64)
        return ((heads[..., None] >> values) & 1) @ values
    out = np.zeros(heads.shape, dtype=np.int64)  # large ones: a pass per card keeps memory at one array
    for c in range(lowest, highest + 1):
        out += ((heads >> c) & 1) * c
    return out


def take_delta(masks: np.ndarray, card: np.ndarray) -> np.ndarray:
    """Change in card points if a seat with cards ``masks`` took ``card``.

    It pays ``card`` unless it holds ``card - 1``, and saves ``card + 1`` if it holds ``card + 1``.

    Args:
        masks: int64 bit masks, shape (B, P).
        card: int64 card values, shape (B,).

    Returns:
        int64, shape (B, P), penalty points.
    """
    c = card[:, None]
    has_below = (masks >> (c - 1)) & 1
    has_above = (masks >> (c + 1)) & 1
    return np.where(has_below == 1, 0, c) - has_above * (c + 1)


def deal_cards(config: GameConfig, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n`` uniformly shuffled deals from ``rng`` (special cards, if any, as their negative ids; such deals
    are played by the scalar engine, e.g. through :func:`training.evaluate.play_games`).

    Returns:
        (deck, removed_hidden): int64 (n, deck_size) in play order (column 0 is turned first), and
        int64 (n, num_removed) ascending.
    """
    cards = [c for c in config.all_cards if c not in config.removed_face_up] + list(config.special_ids)
    available = np.array(cards, dtype=np.int64)
    shuffled = available[np.argsort(rng.random((n, len(available))), axis=1)]
    return shuffled[:, config.num_removed :], np.sort(shuffled[:, : config.num_removed], axis=1)


def deal_matches(config: GameConfig, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The deals of ``n`` matches from ``rng``, for :meth:`VectorGame.reset_games`.

    Returns:
        (deck, removed_hidden): for single-deal configs :func:`deal_cards`' arrays (the same draw), int64
        (n, deck_size) and (n, num_removed); for matches int64 (n, num_deals, deck_size) and
        (n, num_deals, num_removed).
    """
    deck, removed = deal_cards(config, n * config.num_deals, rng)
    if config.num_deals == 1:
        return deck, removed
    return deck.reshape(n, config.num_deals, -1), removed.reshape(n, config.num_deals, -1)


def require_batched(config: GameConfig) -> None:
    """Raise :class:`RuleError` if the batched engine cannot play ``config`` (special cards).

    The message names the variant and where it runs instead, for tools to show before any game starts.
    """
    if config.special_cards:
        raise RuleError(
            f"config.special_cards: expected () for the batched engine (the {list(config.special_cards)} "
            "variant runs on the scalar engine: nothanks_env.game.Game, the AEC env and training.play), "
            f"got {config.special_cards}"
        )


@dataclass
class BatchView:
    """What the acting seat of each of ``B`` games may know: the batched counterpart of :class:`SeatView`.

    Seats are absolute. All arrays have a leading batch dimension ``B``; ``P`` is ``num_players``.

    Attributes:
        config: the rule variant (one for the whole batch).
        seat: int64 (B,), the viewing seat (the seat to act).
        face_up_card: int64 (B,), the card on offer (SeatView's name; ``face_up`` is a deprecated alias).
        pot: int64 (B,), chips on it.
        own_chips: int64 (B,).
        tracked_chips: int64 (B, P), every seat's chips as a perfect-memory player knows them from the public
            history (equal to the true counts; SeatView's name for them, while ``SeatView.chips`` hides what
            the seat may not see; ``chips`` is a deprecated alias). Policies that must not use that
            memory read :meth:`known_chips` instead (SeatView.chips' meaning, -1 for hidden);
            :func:`nothanks_env.encoding.encode_batch` does so by default.
        cards: int64 (B, P), every seat's cards as bit masks.
        card_points: int64 (B, P), every seat's card points.
        take_delta: int64 (B, P), every seat's card-point change if it took ``face_up``.
        cards_in_deck: int64 (B,), face-down cards still to come.
        unseen: int64 (B,), bit mask of cards the viewer has not seen (deck + hidden removals).
        match_penalties: int64 (B, P), totals of finished deals of the match (0 for single deals while
            the deal is on; the final penalties in a :meth:`VectorGame.final_view`).
        deals_left: int64 (B,), deals after this one.
        over: optional bool (B,): games that are over (set only by :meth:`VectorGame.final_view`, whose
            viewers are not to act; policies never receive such a view). ``None``: no game is over.
        behaviour: int64 (B, P, len(BEHAVIOUR_FIELDS)), every seat's public pass/take record of this deal
            (:data:`nothanks_env.game.BEHAVIOUR_FIELDS`); ``None`` only for views built by hand.

    Observations are :func:`nothanks_env.encoding.encode_batch` of a view (cached on the view).
    """

    config: GameConfig
    seat: np.ndarray
    face_up_card: np.ndarray
    pot: np.ndarray
    own_chips: np.ndarray
    tracked_chips: np.ndarray
    cards: np.ndarray
    card_points: np.ndarray
    take_delta: np.ndarray
    cards_in_deck: np.ndarray
    unseen: np.ndarray
    match_penalties: np.ndarray
    deals_left: np.ndarray
    over: np.ndarray | None = None
    behaviour: np.ndarray | None = None
    _obs_cache: dict = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.seat)

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def face_up(self) -> np.ndarray:
        """Deprecated alias of :attr:`face_up_card` (removed in the next release)."""
        warnings.warn("BatchView.face_up is deprecated: read face_up_card", DeprecationWarning, stacklevel=2)
        return self.face_up_card

    @property
    def chips(self) -> np.ndarray:
        """Deprecated alias of :attr:`tracked_chips` (removed in the next release)."""
        warnings.warn("BatchView.chips is deprecated: read tracked_chips", DeprecationWarning, stacklevel=2)
        return self.tracked_chips

    @staticmethod
    def from_seat_view(view: SeatView) -> BatchView:
        """A batch of one from a scalar :class:`SeatView` (the viewer must be the seat to act).

        Raises:
            RuleError: if the game is over or the viewer is not the seat to act.
        """
        if view.face_up_card is None or view.current_seat != view.seat:
            raise RuleError(f"view: expected the seat to act, got seat {view.seat} (to act: {view.current_seat})")
        masks = np.array([[sum(1 << c for c in cs) for cs in view.cards]], dtype=np.int64)
        face = np.array([view.face_up_card], dtype=np.int64)
        return BatchView(
            config=view.config,
            seat=np.array([view.seat], dtype=np.int64),
            face_up_card=face,
            pot=np.array([view.pot], dtype=np.int64),
            own_chips=np.array([view.own_chips], dtype=np.int64),
            tracked_chips=np.array([view.tracked_chips], dtype=np.int64),
            cards=masks,
            card_points=np.array([view.card_points], dtype=np.int64),
            take_delta=take_delta(masks, face),
            cards_in_deck=np.array([view.cards_in_deck], dtype=np.int64),
            unseen=np.array([sum(1 << c for c in view.unseen)], dtype=np.int64),
            match_penalties=np.array([view.match_penalties], dtype=np.int64),
            deals_left=np.array([view.num_deals - view.deal_index - 1], dtype=np.int64),
            behaviour=np.array([view.behaviour], dtype=np.int64).reshape(1, view.num_players, len(BEHAVIOUR_FIELDS)),
        )

    @staticmethod
    def from_game(game: Game) -> BatchView:
        """A batch of one: the seat to act's view of a scalar :class:`Game` in progress.

        Equal to ``from_seat_view(game.seat_view(game.current_seat))`` field by field (a test holds them
        equal), built straight from the game's bit masks: the single-agent env's opponents decide through it.

        Raises:
            RuleError: if the game is over (or not dealt).
        """
        if game.is_over:
            raise RuleError("game: expected a game in progress, got one that is over (or not dealt)")
        cfg, seat, face, masks = game.config, game.current_seat, game.deck[0], game.cards
        unseen = cards_to_mask(game.deck[1:]) | cards_to_mask(game.removed_hidden)
        # one array for every field (a single allocation; this runs once per opponent decision)
        flat = np.array(
            [seat, face, game.pot, game.chips[seat], len(game.deck) - 1, unseen, cfg.num_deals - game.deal_index - 1,
             *game.tracked, *masks, *(scalar_card_points(m) for m in masks),
             *(scalar_take_delta(m, face) for m in masks), *game.match_penalties],
            dtype=np.int64,
        )  # fmt: skip
        n = cfg.num_players
        per_seat = flat[7:].reshape(5, 1, n)
        return BatchView(
            config=cfg,
            seat=flat[0:1],
            face_up_card=flat[1:2],
            pot=flat[2:3],
            own_chips=flat[3:4],
            cards_in_deck=flat[4:5],
            unseen=flat[5:6],
            deals_left=flat[6:7],
            tracked_chips=per_seat[0],
            cards=per_seat[1],
            card_points=per_seat[2],
            take_delta=per_seat[3],
            match_penalties=per_seat[4],
            behaviour=np.array([game.behaviour], dtype=np.int64),
        )

    def take(self, rows: np.ndarray | slice) -> BatchView:
        """The views of the games ``rows`` selects (int indices or a slice), as a batch of their own.

        Observations this view has already encoded are carried over (sliced), not encoded again.
        """
        return BatchView(
            config=self.config,
            seat=self.seat[rows],
            face_up_card=self.face_up_card[rows],
            pot=self.pot[rows],
            own_chips=self.own_chips[rows],
            tracked_chips=self.tracked_chips[rows],
            cards=self.cards[rows],
            card_points=self.card_points[rows],
            take_delta=self.take_delta[rows],
            cards_in_deck=self.cards_in_deck[rows],
            unseen=self.unseen[rows],
            match_penalties=self.match_penalties[rows],
            deals_left=self.deals_left[rows],
            over=None if self.over is None else self.over[rows],
            behaviour=None if self.behaviour is None else self.behaviour[rows],
            _obs_cache={k: v[rows] for k, v in self._obs_cache.items()},
        )

    def seat_view(self, i: int) -> SeatView:
        """Game ``i``'s view as a scalar :class:`SeatView` of its viewing seat: the inverse of
        :meth:`from_seat_view`, equal to ``Game.seat_view`` field by field for the standard game (a test holds
        them equal). :meth:`~nothanks_env.policy.Policy.act_batch` hands these to a policy that overrides only ``act``.

        ``chips`` and ``penalties`` hide what the viewer may not see, as ``Game.seat_view`` does; a row that
        is over (:meth:`VectorGame.final_view`) has no seat to act and no card up.
        """
        cfg = self.config
        seat = int(self.seat[i])
        tracked = self.tracked_chips[i].tolist()
        visible = cfg.opponent_chips == "visible"
        chips = tuple(c if (visible or s == seat) else None for s, c in enumerate(tracked))
        points = self.card_points[i].tolist()
        over = self.over is not None and bool(self.over[i])
        return SeatView(
            seat=seat,
            num_players=cfg.num_players,
            current_seat=None if over else seat,
            face_up_card=None if over else int(self.face_up_card[i]),
            pot=int(self.pot[i]),
            own_chips=int(self.own_chips[i]),
            chips=chips,
            tracked_chips=tuple(tracked),
            cards=tuple(tuple(mask_to_cards(m)) for m in self.cards[i].tolist()),
            penalties=tuple(p - (c or 0) for p, c in zip(points, chips)),
            card_points=tuple(points),
            cards_in_deck=int(self.cards_in_deck[i]),
            unseen=tuple(mask_to_cards(int(self.unseen[i]))),
            removed_face_up=cfg.removed_face_up,
            deal_index=cfg.num_deals - int(self.deals_left[i]) - 1,
            num_deals=cfg.num_deals,
            match_penalties=tuple(self.match_penalties[i].tolist()),
            config=cfg,
            behaviour=() if self.behaviour is None else tuple(tuple(r) for r in self.behaviour[i].tolist()),
        )

    def action_mask(self) -> np.ndarray:
        """Legal actions: int8, shape (B, 2); column 0 = PASS (legal iff own chips > 0), 1 = TAKE (always)."""
        m = np.ones((len(self), 2), dtype=np.int8)
        m[:, PASS] = self.own_chips > 0
        return m

    def known_chips(self, chip_memory: bool = False) -> np.ndarray:
        """int64 (B, P): chips the viewer sees without memory (own, and all when the config shows them),
        -1 elsewhere; with ``chip_memory`` every count (see :mod:`nothanks_env.encoding`)."""
        if chip_memory or self.config.opponent_chips == "visible":
            return self.tracked_chips
        out = np.full_like(self.tracked_chips, -1)
        rows = np.arange(len(self))
        out[rows, self.seat] = self.tracked_chips[rows, self.seat]
        return out


class VectorGame:
    """``num_games`` independent games of one config, stepped together: single deals, or matches of
    ``config.num_deals`` deals.

    Each game's deals and starting seat are drawn from one ``numpy.random.Generator`` seeded by ``seed``.
    In a match, when a deal's last card is taken its penalties are added to :attr:`match_penalties`, the
    next deal is dealt and the seat after the previous deal's starting seat acts first. Finished games
    (the last deal's last card taken) stay finished (``done``) until :meth:`reset_games` re-deals them.

    Attributes (besides the current deal's state):
        deal_index: int64 (B,), 0-based deal of the match being played (the last one once ``done``).
        match_penalties: int64 (B, P), totals of the finished deals; once ``done``, the match result.

    Args:
        config: the rule variant (no special cards: the scalar engine plays those).
        num_games: batch size ``B`` >= 1.
        seed: seed for every deal and starting seat.
        record_behaviour: keep every seat's pass/take record (:attr:`behaviour`, the ``behaviour``
            observation option's input). On by default; off, :meth:`step` skips that work (about a third of
            the engine's time) and views carry ``behaviour=None``, so a policy that reads the record fails
            loudly instead of reading stale values.

    Raises:
        RuleError: for a config with special cards or ``num_games < 1``.
    """

    def __init__(
        self, config: GameConfig, num_games: int, seed: int | None = None, record_behaviour: bool = True
    ) -> None:
        require_batched(config)
        if num_games < 1:
            raise RuleError(f"num_games: expected an int >= 1, got {num_games!r}")
        self.config = config
        self.num_games = num_games
        self.record_behaviour = record_behaviour
        self.rng = np.random.default_rng(seed)
        cfg = config
        self._box_mask = sum(1 << c for c in cfg.all_cards if c not in cfg.removed_face_up)
        b, p, d = num_games, cfg.num_players, cfg.deck_size
        self.deck = np.zeros((b, d), dtype=np.int64)
        self.removed_hidden = np.zeros((b, cfg.num_removed), dtype=np.int64)
        # every deal of each match, drawn (or given) when the match starts: (B, num_deals, ...)
        self._decks = np.zeros((b, cfg.num_deals, d), dtype=np.int64)
        self._removed = np.zeros((b, cfg.num_deals, cfg.num_removed), dtype=np.int64)
        self.deal_index = np.zeros(b, dtype=np.int64)
        self.match_penalties = np.zeros((b, p), dtype=np.int64)
        self.pos = np.zeros(b, dtype=np.int64)
        self.cards = np.zeros((b, p), dtype=np.int64)
        self.card_points = np.zeros((b, p), dtype=np.int64)
        self.chips = np.zeros((b, p), dtype=np.int64)
        self.behaviour = np.zeros((b, p, len(BEHAVIOUR_FIELDS)), dtype=np.int64)
        self.pot = np.zeros(b, dtype=np.int64)
        self.seat = np.zeros(b, dtype=np.int64)
        self.first_seat = np.zeros(b, dtype=np.int64)
        self.done = np.ones(b, dtype=bool)
        self._rows = np.arange(b)
        self.reset_games(np.ones(b, dtype=bool))

    def reset_games(
        self,
        mask: np.ndarray,
        deck: np.ndarray | None = None,
        removed_hidden: np.ndarray | None = None,
        first_seat: np.ndarray | None = None,
    ) -> None:
        """Start new games (matches) where ``mask`` (bool, (B,)) is set; optionally with fixed deals.

        Args:
            mask: bool (B,), which games to re-deal.
            deck: optional play orders for the m masked games: int (m, deck_size) for single deals, or
                (m, num_deals, deck_size) for every deal of a match.
            removed_hidden: optional hidden removals, with ``deck``: int (m, num_removed) or
                (m, num_deals, num_removed).
            first_seat: optional int (m,) starting seats of deal 0; otherwise the config's or random.

        Raises:
            RuleError: for ``deck`` without ``removed_hidden`` or arrays of the wrong shape.
        """
        idx = np.flatnonzero(mask)
        m, cfg = len(idx), self.config
        if m == 0:
            return
        nd = cfg.num_deals
        if deck is None:
            deck, removed_hidden = deal_matches(cfg, m, self.rng)
        elif removed_hidden is None:
            raise RuleError("removed_hidden: expected an array with deck, got None")
        deck, removed_hidden = np.asarray(deck), np.asarray(removed_hidden)
        if deck.ndim == 2 and nd == 1:
            deck, removed_hidden = deck[:, None], removed_hidden[:, None]
        if deck.shape != (m, nd, cfg.deck_size) or removed_hidden.shape != (m, nd, cfg.num_removed):
            raise RuleError(
                f"deck, removed_hidden: expected shapes ({m}, {nd}, {cfg.deck_size}) and ({m}, {nd}, "
                f"{cfg.num_removed}), got {deck.shape} and {removed_hidden.shape}"
            )
        self._decks[idx] = deck
        self._removed[idx] = removed_hidden
        self.deal_index[idx] = 0
        self.match_penalties[idx] = 0
        if first_seat is None:
            if cfg.starting_seat is not None:
                first_seat = np.full(m, cfg.starting_seat)
            else:
                first_seat = self.rng.integers(0, cfg.num_players, m)
        self.first_seat[idx] = first_seat
        self._start_deal(idx)
        self.done[idx] = False

    def load_states(
        self,
        idx: np.ndarray,
        *,
        deck: np.ndarray,
        removed_hidden: np.ndarray,
        pos: np.ndarray,
        cards: np.ndarray,
        chips: np.ndarray,
        pot: np.ndarray,
        seat: np.ndarray,
        behaviour: np.ndarray | None = None,
        only: bool = False,
    ) -> None:
        """Put games ``idx`` in given mid-deal states, e.g. worlds sampled by a search, ready to :meth:`step`.

        The loaded deal is the whole game: it ends when its last card is taken, with
        :attr:`match_penalties` from 0. So only single-deal configs take states (a search plays the current
        deal of a match as one deal).

        Args:
            idx: int (m,), the games to overwrite.
            deck: int (m, deck_size), the deal's play order; entries before ``pos`` are not read again.
            removed_hidden: int (m, num_removed), the cards removed face down.
            pos: int (m,), index into ``deck`` of the face-up card, 0..deck_size - 1.
            cards: int64 (m, P), each seat's cards as bit masks (bit ``c`` for card ``c``).
            chips: int (m, P), each seat's chips, >= 0.
            pot: int (m,), chips on the face-up card, >= 0.
            seat: int (m,), the seat to act, which also counts as the deal's starting seat.
            behaviour: optional int (m, P, len(BEHAVIOUR_FIELDS)), every seat's pass/take record of the deal
                so far (:attr:`BatchView.behaviour`); default: none yet (zeros).
            only: also mark every game outside ``idx`` finished, so that stepping plays the loaded ones alone.

        Raises:
            RuleError: for a config with ``num_deals > 1``, arrays of the wrong shape, or values out of range.
        """
        cfg, idx = self.config, np.asarray(idx, dtype=np.int64)
        m, p, d = len(idx), cfg.num_players, cfg.deck_size
        if cfg.num_deals != 1:
            raise RuleError(f"config.num_deals: expected 1 to load states, got {cfg.num_deals}")
        arrays = {"deck": deck, "removed_hidden": removed_hidden, "pos": pos, "cards": cards, "chips": chips,
                  "pot": pot, "seat": seat}  # fmt: skip
        shapes = {"deck": (m, d), "removed_hidden": (m, cfg.num_removed), "pos": (m,), "cards": (m, p),
                  "chips": (m, p), "pot": (m,), "seat": (m,)}  # fmt: skip
        for name, a in arrays.items():
            if np.shape(a) != shapes[name]:
                raise RuleError(f"{name}: expected shape {shapes[name]}, got {np.shape(a)}")
        pos, seat = np.asarray(pos), np.asarray(seat)
        if ((pos < 0) | (pos >= d)).any() or ((seat < 0) | (seat >= p)).any():
            raise RuleError(f"pos, seat: expected 0..{d - 1} and 0..{p - 1}, got {pos} and {seat}")
        if behaviour is not None and np.shape(behaviour) != (m, p, len(BEHAVIOUR_FIELDS)):
            raise RuleError(f"behaviour: expected shape {(m, p, len(BEHAVIOUR_FIELDS))}, got {np.shape(behaviour)}")
        if (np.asarray(chips) < 0).any() or (np.asarray(pot) < 0).any():
            raise RuleError("chips, pot: expected counts >= 0, got a negative one")
        if only:
            self.done[:] = True
        self.deck[idx] = self._decks[idx, 0] = deck
        self.removed_hidden[idx] = self._removed[idx, 0] = removed_hidden
        self.pos[idx] = pos
        self.cards[idx] = cards
        self.card_points[idx] = card_points(np.asarray(cards, dtype=np.int64), cfg.lowest_card, cfg.highest_card)
        self.chips[idx] = chips
        self.pot[idx] = pot
        self.seat[idx] = self.first_seat[idx] = seat
        self.behaviour[idx] = 0 if behaviour is None else behaviour
        self.deal_index[idx] = 0
        self.match_penalties[idx] = 0
        self.done[idx] = False

    def _start_deal(self, idx: np.ndarray) -> None:
        """Deal deal ``deal_index`` of games ``idx``; its starting seat is ``first_seat + deal_index``."""
        cfg = self.config
        d = self.deal_index[idx]
        self.deck[idx] = self._decks[idx, d]
        self.removed_hidden[idx] = self._removed[idx, d]
        self.pos[idx] = 0
        self.cards[idx] = 0
        self.card_points[idx] = 0
        self.chips[idx] = cfg.chips_per_player
        self.behaviour[idx] = 0
        self.pot[idx] = 0
        self.seat[idx] = (self.first_seat[idx] + d) % cfg.num_players

    def final_penalties(self) -> np.ndarray:
        """int64 (B, P): match totals of the finished deals, the match result where ``done``, in penalty
        points. For single deals it equals :meth:`penalties` once a game is done."""
        return self.match_penalties

    @property
    def face_up_card(self) -> np.ndarray:
        """int64 (B,): the card on offer (meaningless where ``done``)."""
        return self.deck[self._rows, np.minimum(self.pos, self.config.deck_size - 1)]

    face_up = face_up_card
    """The old name of :attr:`face_up_card` (BatchView's field name), kept for one release."""

    def action_mask(self) -> np.ndarray:
        """int8 (B, 2) legal actions of the seat to act (PASS needs a chip; done games: all zero).

        The one name of the legal-action mask, as in PettingZoo's ``"action_mask"`` and
        :meth:`BatchView.action_mask`; ``legal_actions`` (Game, SeatView) is the tuple of legal ids.
        """
        m = np.ones((self.num_games, 2), dtype=np.int8)
        m[:, PASS] = self.chips[self._rows, self.seat] > 0
        m[self.done] = 0
        return m

    def legal_mask(self) -> np.ndarray:
        """Deprecated name of :meth:`action_mask`, kept for one release."""
        import warnings

        warnings.warn("VectorGame.legal_mask is deprecated; use action_mask", DeprecationWarning, stacklevel=2)
        return self.action_mask()

    def step(self, actions: np.ndarray, which: np.ndarray | None = None) -> np.ndarray:
        """Apply one action in every unfinished game, or only in the games ``which`` selects.

        Args:
            actions: int (B,), PASS (0) or TAKE (1) for each game's seat to act; entries of finished or
                unselected games are ignored.
            which: optional bool (B,): step only these games; the others keep their state.

        Returns:
            bool (B,): games that ended with this step (the last card of their last deal was taken). In a
            match a deal that ends with more to come deals the next one in the same step.

        Raises:
            IllegalActionError: for an action other than 0/1 or a PASS at 0 chips in an unfinished game.
        """
        actions = np.asarray(actions)
        live = ~self.done if which is None else ~self.done & which
        if actions.shape != (self.num_games,):
            raise IllegalActionError(f"actions: expected shape ({self.num_games},), got {actions.shape}")
        bad = live & (actions != PASS) & (actions != TAKE)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise IllegalActionError(f"actions[{i}]: expected PASS (0) or TAKE (1), got {actions[i]!r}")
        rows, seat = self._rows, self.seat
        own = self.chips[rows, seat]
        passing = live & (actions == PASS)
        if (passing & (own == 0)).any():
            i = int(np.flatnonzero(passing & (own == 0))[0])
            raise IllegalActionError(f"actions[{i}]: expected TAKE (1) because seat {seat[i]} has 0 chips, got PASS")
        taking = live & (actions == TAKE)
        if self.record_behaviour:
            self._record(np.flatnonzero(passing | (taking & (own > 0))), passing)
        p = np.flatnonzero(passing)
        self.chips[p, seat[p]] -= 1
        self.pot[p] += 1
        self.seat[p] = (seat[p] + 1) % self.config.num_players
        t = np.flatnonzero(taking)
        if len(t):
            ts = seat[t]
            card = self.deck[t, self.pos[t]]
            delta = take_delta(self.cards[t, ts][:, None], card)[:, 0]
            self.card_points[t, ts] += delta
            self.cards[t, ts] |= np.int64(1) << card
            self.chips[t, ts] += self.pot[t]
            self.pot[t] = 0
            self.pos[t] += 1
        deal_over = taking & (self.pos >= self.config.deck_size)
        if deal_over.any():
            over = np.flatnonzero(deal_over)
            self.match_penalties[over] += self.card_points[over] - self.chips[over]
            more = over[self.deal_index[over] + 1 < self.config.num_deals]
            if len(more):
                self.deal_index[more] += 1
                self._start_deal(more)
                deal_over[more] = False
        self.done |= deal_over
        return deal_over

    def _record(self, rows: np.ndarray, passing: np.ndarray) -> None:
        """Add the decisions of games ``rows`` (passes, and takes made with chips) to the acting seats'
        :data:`~nothanks_env.game.BEHAVIOUR_FIELDS` records, before the state changes."""
        if not len(rows):
            return
        seat = self.seat[rows]
        card = self.deck[rows, self.pos[rows]]
        pot = self.pot[rows]
        cost = take_delta(self.cards[rows, seat][:, None], card)[:, 0] - pot
        raw = card - pot
        rec = self.behaviour[rows, seat]  # (m, F) copy
        is_pass = passing[rows]
        count = np.where(is_pass, rec[:, 0], rec[:, 1])
        first = count == 0
        # passes keep minima in columns 4-5, free takes maxima in columns 2-3
        lo_cost = np.where(first, cost, np.minimum(rec[:, 4], cost))
        lo_raw = np.where(first, raw, np.minimum(rec[:, 5], raw))
        hi_cost = np.where(first, cost, np.maximum(rec[:, 2], cost))
        hi_raw = np.where(first, raw, np.maximum(rec[:, 3], raw))
        rec[:, 0] += is_pass
        rec[:, 1] += ~is_pass
        rec[:, 4] = np.where(is_pass, lo_cost, rec[:, 4])
        rec[:, 5] = np.where(is_pass, lo_raw, rec[:, 5])
        rec[:, 2] = np.where(is_pass, rec[:, 2], hi_cost)
        rec[:, 3] = np.where(is_pass, rec[:, 3], hi_raw)
        self.behaviour[rows, seat] = rec

    def penalties(self) -> np.ndarray:
        """int64 (B, P): every seat's penalty in the current (or, once done, last) deal: card points minus
        chips, in penalty points. Match results are :meth:`final_penalties`."""
        return self.card_points - self.chips

    def view(self, idx: np.ndarray | None = None) -> BatchView:
        """The acting seat's :class:`BatchView` for games ``idx`` (default: all; they must not be done)."""
        if idx is None:
            idx = self._rows
        seat = self.seat[idx]
        face = self.deck[idx, self.pos[idx]]
        cards = self.cards[idx]
        chips = self.chips[idx]
        held = np.bitwise_or.reduce(cards, axis=1)
        unseen = (self._box_mask & ~held) & ~(np.int64(1) << face)
        n = len(idx)
        return BatchView(
            config=self.config,
            seat=seat,
            face_up_card=face,
            pot=self.pot[idx],
            own_chips=chips[np.arange(n), seat],
            tracked_chips=chips,
            cards=cards,
            card_points=self.card_points[idx],
            take_delta=take_delta(cards, face),
            cards_in_deck=self.config.deck_size - 1 - self.pos[idx],
            unseen=unseen,
            match_penalties=self.match_penalties[idx],
            deals_left=self.config.num_deals - 1 - self.deal_index[idx],
            behaviour=self.behaviour[idx] if self.record_behaviour else None,
        )

    def final_view(self, idx: np.ndarray, seats: np.ndarray) -> BatchView:
        """What seat ``seats[j]`` of finished game ``idx[j]`` sees at the end (for terminal observations).

        Its :func:`~nothanks_env.encoding.encode_batch` equals :func:`encoding.encode` of the scalar engine's final
        :class:`SeatView`: no face-up card, no seat to act, no take deltas, the hidden removals still
        unseen, and the final penalties as ``match_penalties``.

        Args:
            idx: int (m,), games that are over (``done``).
            seats: int (m,), the viewing seat in each.

        Raises:
            RuleError: if a game in ``idx`` is not over.
        """
        idx, seats = np.asarray(idx, dtype=np.int64), np.asarray(seats, dtype=np.int64)
        if not self.done[idx].all():
            raise RuleError(f"idx: expected finished games, got unfinished game {idx[~self.done[idx]][0]}")
        n = len(idx)
        cards, chips = self.cards[idx], self.chips[idx]
        held = np.bitwise_or.reduce(cards, axis=1)
        return BatchView(
            config=self.config,
            seat=seats,
            face_up_card=np.full(n, self.config.lowest_card, dtype=np.int64),  # unused: no card is on offer
            pot=self.pot[idx],
            own_chips=chips[np.arange(n), seats],
            tracked_chips=chips,
            cards=cards,
            card_points=self.card_points[idx],
            take_delta=np.zeros_like(cards),
            cards_in_deck=np.zeros(n, dtype=np.int64),
            unseen=self._box_mask & ~held,
            match_penalties=self.match_penalties[idx],
            deals_left=np.zeros(n, dtype=np.int64),
            over=np.ones(n, dtype=bool),
            behaviour=self.behaviour[idx] if self.record_behaviour else None,
        )


def __getattr__(name: str) -> object:
    """Deprecated homes of the outcome functions, kept for one release: use :mod:`nothanks_env.outcome`."""
    if name in ("ranks", "winner_shares"):
        import warnings

        from nothanks_env import outcome  # imported late: outcome is a layer above the engine

        new = "win_shares" if name == "winner_shares" else name
        msg = f"nothanks_env.vector.{name} is deprecated; use nothanks_env.outcome.{new}"
        warnings.warn(msg, DeprecationWarning, stacklevel=2)
        return getattr(outcome, new)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BatchView",
    "VectorGame",
    "card_points",
    "deal_matches",
    "require_batched",
    "take_delta",
    "MIN_PLAYERS",
]
