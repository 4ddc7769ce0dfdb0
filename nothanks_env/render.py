"""Pictures of a No Thanks! game: a plain-text table from one seat's point of view (or with everything shown),
and an RGB image of the public table.

The text is the envs' ``render_mode="ansi"/"human"`` and terminal play's; the image (:func:`render_rgb`, NumPy
only) is their ``render_mode="rgb_array"``, for video recorders such as Gymnasium's ``RecordVideo``.

Example (seat 0's view; ``*`` marks the viewer, ``>`` the seat to act):
    >>> from nothanks_env.game import PASS, TAKE, Deal, Game, GameConfig
    >>> deck = (20, 21, 22, 12, 23, 27, *range(13, 20), 24, 25, 26, *range(28, 36))
    >>> g = Game(GameConfig(num_players=3, starting_seat=0))
    >>> g.reset(deals=[Deal(deck, tuple(range(3, 12)))])
    >>> for a in (PASS, PASS, TAKE, TAKE, PASS, TAKE, PASS):
    ...     _ = g.step(a)
    >>> print(render_table(g.seat_view(0), g))
    No Thanks!  3 players  deal 1/1  cards in deck: 20
    face-up card: 12  pot: 1
       seat     chips cards   points penalty
    *  player_0    10 22          22      12
     > player_1     ? -            0       ?
       player_2     ? [20-21]     20       ?
    * = you   > = to act   ? = hidden (every chip movement is public, so it can be counted)
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from nothanks_env.game import (
    BEHAVIOUR_FIELDS,
    SPECIAL_NAMES,
    Game,
    GameConfig,
    RuleError,
    SeatView,
    card_points,
    mask_to_cards,
)


def face_up_line(view: SeatView) -> str:
    """The face-up line: the card and its pot, or the auction (high bid, who is still in, chips paid) or the
    choice being made. Public information only, so any seat's view gives the same line."""
    if view.phase == "offer":
        return f"face-up card: {view.face_up_card}  pot: {view.pot}"
    if view.phase == "choose_value":
        return f"wild (?) won by player_{view.current_seat}: choosing its value"
    if view.phase == "choose_discard":
        return f"delete won by player_{view.current_seat}: choosing a card to discard"
    name = "wild (?)" if view.face_up_special == "wild" else "delete"
    still = ", ".join(f"player_{s}" for s, on in enumerate(view.in_auction) if on)
    bid = "no bid yet" if view.high_bid is None else f"high bid {view.high_bid} by player_{view.high_bidder}"
    return f"auction for {name}: {bid}; still in: {still}; player_{view.current_seat} to bid"


def _card_name(card: int) -> str:
    return SPECIAL_NAMES.get(card, str(card))


def card_runs(cards: Iterable[int]) -> list[tuple[int, int]]:
    """Cards grouped into runs of consecutive values, as ``(lowest, highest)`` pairs in ascending order.

    Only the lowest card of each run scores (see :func:`nothanks_env.game.card_points`).

    >>> card_runs([27, 12, 21, 20, 22])
    [(12, 12), (20, 22), (27, 27)]
    """
    cards = sorted(cards)
    runs: list[tuple[int, int]] = []
    for c in cards:
        if runs and c == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], c)
        else:
            runs.append((c, c))
    return runs


def format_runs(cards: Iterable[int]) -> str:
    """Cards grouped into runs of consecutive values; ``-`` if none.

    >>> format_runs([27, 12, 21, 20, 22])
    '12 [20-22] 27'
    """
    return " ".join(str(lo) if lo == hi else f"[{lo}-{hi}]" for lo, hi in card_runs(cards)) or "-"


def deal_over_title(deal_index: int, num_deals: int) -> str:
    """What play and replay say when a deal ends: ``deal 2/3 over`` (``deal 1/1 over`` for a one-deal game).

    Example:
        >>> deal_over_title(0, 1)
        'deal 1/1 over'
    """
    return f"deal {deal_index + 1}/{num_deals} over"


def game_over_title(num_deals: int) -> str:
    """How a table says that its game has ended: its one deal is over (``deal 1/1 over``, as play says when that
    deal ends), or, in a match of several deals, the match (``deal 3/3  match over``).

    Example:
        >>> game_over_title(1), game_over_title(3)
        ('deal 1/1 over', 'deal 3/3  match over')
    """
    if num_deals == 1:
        return deal_over_title(0, 1)
    return f"deal {num_deals}/{num_deals}  match over"


def render_table(view: SeatView | None, game: Game, full: bool = False, *, viewer: str = "you") -> str:
    """Text table of ``game``: face-up card and pot, each seat's cards in runs, points, chips and penalty.

    Args:
        view: the seat whose point of view is shown (its chips are shown, marked ``*``); ``None`` for a
            spectator, who sees chips only where the config makes them visible.
        game: the game (after :meth:`Game.reset`).
        full: show every chip count and the hidden cards (deck order, face-down removals), for debugging.
            Once the match is over every chip count is shown, as players count them for the score.
        viewer: who ``view``'s seat is, in the legend (``* = you``); a replay names the recorded player.

    Returns:
        Lines joined by ``\\n``, no trailing newline. Penalty = card points - chips (penalty points, lower is
        better); ``?`` where the chips are hidden.
    """
    cfg = game.config
    n = cfg.num_players
    over = game.is_over
    show_all = full or over or cfg.opponent_chips == "visible"
    me = None if view is None else view.seat
    lines = [
        f"No Thanks!  {n} players  "
        + (
            game_over_title(cfg.num_deals)  # a one-deal game: "deal 1/1 over", not "match over"
            if over
            else f"deal {game.deal_index + 1}/{cfg.num_deals}  cards in deck: {max(len(game.deck) - 1, 0)}"
        )
    ]
    if not over:
        lines.append(face_up_line(view if view is not None else game.seat_view(0)))
    if cfg.removed_face_up:
        lines.append(f"removed face up: {format_runs(cfg.removed_face_up)}")
    multi = cfg.num_deals > 1
    rows = []
    for seat in range(n):
        pts = card_points(game.scoring_mask(seat))
        if full or over or (view is None and show_all):
            chips: int | None = game.chips[seat]
        else:
            chips = None if view is None else view.chips[seat]
        mark = ("*" if seat == me else " ") + (">" if not over and seat == game.current_seat else " ")
        held = format_runs(mask_to_cards(game.cards[seat]))
        if cfg.special_cards:
            wild, paid = game.wild_value[seat], game.paid[seat]
            held += (f" ?={wild}" if wild is not None else "") + (" (delete due)" if game.pending_delete[seat] else "")
            held += f" paid {paid}" if paid else ""
        rows.append(
            (mark, f"player_{seat}", "?" if chips is None else str(chips), held,
             str(pts), "?" if chips is None else str(pts - chips))
            + ((str(game.match_penalties[seat]),) if multi else ())
        )  # fmt: skip
    header = ("", "seat", "chips", "cards", "points", "penalty") + (("match",) if multi else ())
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    for r in (header, *rows):
        cells = [r[0].ljust(2), r[1].ljust(widths[1]), r[2].rjust(widths[2]), r[3].ljust(widths[3])]
        lines.append(" ".join(cells + [c.rjust(w) for c, w in zip(r[4:], widths[4:])]))
    if over:
        _, winners = game.ranks_and_winners()
        lines.append("winner" + ("s" if len(winners) > 1 else "") + ": " + ", ".join(f"player_{w}" for w in winners))
    if cfg.special_cards and game.discarded:
        lines.append(f"discarded: {format_runs(game.discarded)}")
    if full and not over:
        lines.append(f"deck (next first): {' '.join(map(_card_name, game.deck[1:])) or '-'}")
        lines.append(f"removed face down: {' '.join(map(_card_name, game.removed_hidden)) or '-'}")
    legend = [f"* = {viewer}"] if me is not None else []
    if not over:
        legend.append("> = to act")
    if not show_all:
        legend.append("? = hidden (every chip movement is public, so it can be counted)")
    if legend:
        lines.append("   ".join(legend))
    return "\n".join(lines)


# ------------------------------------------------------------------------------------ the RGB image
CELL = 12
"""Side of a card cell of :func:`render_rgb`, in pixels."""
_PITCH, _MARGIN, _GUTTER, _HEADER, _ROW = CELL + 2, 8, 16, 22, CELL + 4
_GLYPHS = {
    "0": "111101101101111", "1": "010110010010111", "2": "111001111100111", "3": "111001111001111",
    "4": "101101111001001", "5": "111100111001111", "6": "111100111101111", "7": "111001010010010",
    "8": "111101111101111", "9": "111101111001111", "?": "111001011000010", "-": "000000111000000",
    "/": "001001010100100", "x": "000101010101000",
}  # fmt: skip
_FONT = {c: np.array([b == "1" for b in bits]).reshape(5, 3) for c, bits in _GLYPHS.items()}
BACKGROUND, EMPTY, UNSEEN = (24, 26, 32), (52, 55, 64), (96, 108, 132)
FACE_UP, CHIP, PASSED, PAID = (245, 245, 245), (250, 200, 40), (235, 90, 90), (190, 90, 220)
REMOVED, DISCARDED, LEARNER = (0, 0, 0), (130, 36, 36), (60, 220, 230)
SEAT_COLOURS: tuple[tuple[int, int, int], ...] = (
    (66, 135, 245), (255, 140, 30), (60, 180, 75), (220, 80, 200), (170, 110, 60), (190, 200, 40), (150, 150, 255),
)  # fmt: skip
"""RGB colour of each seat in :func:`render_rgb` (seat 0 first)."""


def _rgb_columns(config: GameConfig) -> list[tuple[str, int]]:
    """The number columns right of the cards: (name, width in characters), fixed per config."""
    chips = len(str(config.num_players * config.chips_per_player))
    cols = [
        ("points", len(str(sum(config.all_cards)))),
        ("chips", chips),
        ("passes", len(str(config.max_decisions_per_deal))),
    ]
    if config.special_cards:
        cols.append(("paid", chips))
    if config.num_deals > 1:
        cols.append(("match", 1 + len(str(config.num_deals * sum(config.all_cards)))))
    return cols


def rgb_shape(config: GameConfig) -> tuple[int, int, int]:
    """(H, W, 3): the size of every :func:`render_rgb` image of ``config`` (each side a multiple of 16, as video
    encoders want)."""
    columns = config.num_card_values + (len(config.special_cards) + 1 if config.special_cards else 0)
    panel = sum(8 * w + 8 for _, w in _rgb_columns(config))
    width = _origin(None, columns)[1] + 6 + panel + _MARGIN
    height = _origin(config.num_players, 0)[0] + _MARGIN
    return -(-height // 16) * 16, -(-width // 16) * 16, 3


def _origin(row: int | None, column: int) -> tuple[int, int]:
    """(y, x) of the top left pixel of cell ``column`` of the card row (``row`` None) or of seat ``row``'s row."""
    y = _MARGIN + _HEADER + 4 + (0 if row is None else _PITCH + 6 + row * _ROW)
    return y, _MARGIN + _GUTTER + column * _PITCH


def rgb_cell(config: GameConfig, seat: int | None, card: int) -> tuple[int, int]:
    """(y, x): the top left pixel of the :data:`CELL` x CELL cell of number card ``card`` in a :func:`render_rgb`
    image of ``config``, in the card row (``seat`` None) or in ``seat``'s row.

    Raises:
        RuleError: for a seat or card the config does not have.
    """
    if seat is not None and not 0 <= seat < config.num_players:
        raise RuleError(f"seat: expected None or a seat in 0..{config.num_players - 1}, got {seat!r}")
    if not config.lowest_card <= card <= config.highest_card:
        raise RuleError(f"card: expected a card value in {config.lowest_card}..{config.highest_card}, got {card!r}")
    return _origin(seat, card - config.lowest_card)


def _text(img: np.ndarray, x: int, y: int, text: str, colour: tuple[int, int, int], scale: int = 2) -> None:
    """Draw ``text`` (digits, ``?``, ``-``, ``/``, ``x``) with its top left corner at (x, y)."""
    for k, ch in enumerate(text):
        if ch != " ":
            glyph = np.kron(_FONT[ch], np.ones((scale, scale), dtype=bool))
            left = x + k * 4 * scale
            img[y : y + 5 * scale, left : left + 3 * scale][glyph] = colour


def _shade(colour: tuple[int, int, int], factor: float) -> tuple[int, int, int]:
    return int(colour[0] * factor), int(colour[1] * factor), int(colour[2] * factor)


def render_rgb(game: Game, *, marked: int | None = None) -> np.ndarray:
    """An RGB image of the public table of ``game``: what every seat may know, nothing hidden.

    Layout (shape :func:`rgb_shape`: one size per config, so a video's frames match):

    - Header: the face-up card's value in white (``?`` for a wild, ``x`` for a delete up for auction), the pot
      in gold digits and one gold square per chip on it; at the right the high bid of an auction, in the
      high bidder's colour, and ``deal/num_deals`` in matches.
    - Card row: one cell per card value, lowest to highest (then the special cards, ``?`` and ``x``): white
      the face-up card, the holder's colour a card taken, slate a card not seen yet (in the deck or removed
      face down: never told apart), black a card removed face up, dark red a card discarded by a delete. At
      the right, the cards left in the deck, in slate digits.
    - One row per seat, seat 0 at the top, in the seat's colour (:data:`SEAT_COLOURS`): its cards, the
      lowest of each run (the cards that score) bright and the rest of the run dark, its wild's value
      bright with a white dot. Left of it: a white square at the seat to act (gold squares at the winners
      once the game is over), a cyan bar at ``marked`` (the learner of the Gymnasium env), a purple bar while
      the seat is in an auction, a dark red one while its next card taken will be discarded. Right of it, in
      digits: its card points (seat colour), its chips (gold; ``?`` while chips are hidden, i.e. unless the
      config's ``opponent_chips="visible"`` or the game is over), its passes this deal (red: every chip it
      put on a card, a public chip movement), its chips paid to auctions (purple; special cards only) and
      its match penalty so far (white; matches only).

    Chip counts hidden by the rules are never read, nor the deck's order or the cards removed face down, so
    two games that differ only there give the same image.

    Args:
        game: a game after :meth:`Game.reset`.
        marked: a seat to mark (cyan), or None.

    Returns:
        uint8 (H, W, 3).

    Raises:
        RuleError: for ``marked`` not None or a seat.
    """
    cfg = game.config
    n = cfg.num_players
    if marked is not None and (not isinstance(marked, (int, np.integer)) or not 0 <= marked < n):
        raise RuleError(f"marked: expected None or a seat in 0..{n - 1}, got {marked!r}")
    view = game.seat_view(0)  # the public fields only: its own chips (chips[0], own_chips) are not read
    over = game.is_over
    chips = list(game.chips) if over or cfg.opponent_chips == "visible" else None
    img = np.empty(rgb_shape(cfg), dtype=np.uint8)
    img[:] = BACKGROUND
    lo, values = cfg.lowest_card, cfg.num_card_values
    x_panel = _origin(None, values + (len(cfg.special_cards) + 1 if cfg.special_cards else 0))[1] + 6

    def cell(row: int | None, column: int, colour: tuple[int, int, int]) -> None:
        y, x = _origin(row, column)
        img[y : y + CELL, x : x + CELL] = colour

    # header: face-up card, pot, auction, deal
    y = _MARGIN
    if view.face_up_card is not None:
        _text(img, _MARGIN, y + 3, str(view.face_up_card).rjust(2), FACE_UP, 3)
    elif view.face_up_special is not None:
        _text(img, _MARGIN + 12, y + 3, "?" if view.face_up_special == "wild" else "x", FACE_UP, 3)
    if not over:
        _text(img, _MARGIN + 36, y + 6, str(view.pot).rjust(2), CHIP)
        x0 = _MARGIN + 60
        per_row = max((x_panel - x0) // 8, 1)
        for k in range(min(view.pot, 2 * per_row)):
            x, yy = x0 + (k % per_row) * 8, y + 3 + (k // per_row) * 8
            img[yy : yy + 6, x : x + 6] = CHIP
    right = [(f"{view.deal_index + 1}/{cfg.num_deals}", FACE_UP)] if cfg.num_deals > 1 else []
    if view.high_bid is not None and view.high_bidder is not None and not over:
        right.insert(0, (str(view.high_bid), SEAT_COLOURS[view.high_bidder]))
    x = img.shape[1] - _MARGIN
    for label, colour in reversed(right):
        x -= 8 * len(label)
        _text(img, x, y + 6, label, colour)
        x -= 8

    # card row
    y = _origin(None, 0)[0]
    owner = {c: s for s, held in enumerate(view.cards) for c in held}
    for k in range(values):
        v = lo + k
        if v == view.face_up_card:
            colour = FACE_UP
        elif v in cfg.removed_face_up:
            colour = REMOVED
        elif v in view.discarded:
            colour = DISCARDED
        elif v in owner:
            colour = SEAT_COLOURS[owner[v]]
        else:
            colour = UNSEEN
        cell(None, k, colour)
    for j, name in enumerate(cfg.special_cards):
        up = not over and view.face_up_special == name
        cell(None, values + 1 + j, FACE_UP if up else UNSEEN if name in view.unseen_special else EMPTY)
        _text(img, _origin(None, values + 1 + j)[1] + 3, y + 1, "?" if name == "wild" else "x", REMOVED)
    _text(img, x_panel, y + 1, str(view.cards_in_deck), UNSEEN)

    # seat rows
    _, winners = game.ranks_and_winners() if over else (None, [])
    passes = BEHAVIOUR_FIELDS.index("passes")
    columns = _rgb_columns(cfg)
    for s in range(n):
        y = _origin(s, 0)[0]
        colour = SEAT_COLOURS[s]
        if s == view.current_seat or s in winners:
            img[y + 2 : y + 10, _MARGIN : _MARGIN + 8] = CHIP if over else FACE_UP
        if s == marked:
            img[y : y + CELL, _MARGIN + 9 : _MARGIN + 12] = LEARNER
        if view.in_auction and view.in_auction[s]:
            img[y : y + CELL, _MARGIN + 13 : _MARGIN + 16] = PAID
        elif view.pending_delete and view.pending_delete[s]:
            img[y : y + CELL, _MARGIN + 13 : _MARGIN + 16] = DISCARDED
        scoring = view.scoring_mask(s)
        wild = view.wild_values[s] if view.wild_values else None
        for k in range(values):
            v = lo + k
            if not scoring >> v & 1:
                cell(s, k, EMPTY)
                continue
            cell(s, k, colour if not scoring >> (v - 1) & 1 else _shade(colour, 0.5))
            if v == wild:
                x = _origin(s, k)[1]
                img[y + 4 : y + 8, x + 4 : x + 8] = FACE_UP
        numbers = {
            "points": (str(card_points(scoring)), colour),
            "chips": ("?" if chips is None else str(chips[s]), CHIP if chips is not None else UNSEEN),
            "passes": (str(view.behaviour[s][passes]) if view.behaviour else "", PASSED),
            "paid": (str(view.paid[s]) if view.paid else "", PAID),
            "match": (str(view.match_penalties[s]), FACE_UP),
        }
        x = x_panel
        for name, width in columns:
            label, tint = numbers[name]
            _text(img, x, y + 1, label.rjust(width), tint)
            x += 8 * width + 8
    return img
