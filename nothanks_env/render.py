"""Plain-text table of a No Thanks! game, from one seat's point of view or with everything shown.

Used by the env's ``render_mode="ansi"/"human"`` and by terminal play.

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

from nothanks_env.game import SPECIAL_NAMES, Game, SeatView, card_points, mask_to_cards


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
        f"No Thanks!  {n} players  deal {game.deal_index + 1}/{cfg.num_deals}  "
        + ("match over" if over else f"cards in deck: {max(len(game.deck) - 1, 0)}")
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
