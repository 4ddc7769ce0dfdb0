"""Terminal output shared by :mod:`training.play` and :mod:`training.replay`.

One :class:`Display` writes to one text stream: rich tables and colour when the stream is a terminal
(and `rich <https://rich.readthedocs.io>`_ is installed), plain text otherwise, so piped output and tests
read the same facts. The plain table is :func:`nothanks_env.render.render_table`; the rich table is built
from the same sources, so both show exactly the same information:

- a seat's view is built from :meth:`Game.seat_view` alone (plus the public history): it never shows the
  cards removed face down, the order of the deck or chips the variant hides;
- the full view (``seat=None``) shows everything, for replays and debugging.

Names: seats are ``player_0 .. player_{n-1}``; ``names[i]`` labels seat ``i`` (e.g. ``"player_2 (you)"``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Literal, TextIO

from nothanks_env.game import (
    BID0,
    DELETE,
    DELETE0,
    DROP,
    PASS,
    SPECIAL_NAMES,
    TAKE,
    VALUE0,
    WILD,
    Game,
    GameConfig,
    HistoryEntry,
    SeatView,
    card_points,
    mask_to_cards,
)
from nothanks_env.outcome import ranks_and_winners
from nothanks_env.render import deal_over_title as deal_over_title  # play and replay import it from here
from nothanks_env.render import face_up_line, format_runs, game_over_title, render_table

try:  # rich is optional: without it every stream gets the plain fallback
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text
except ImportError:  # pragma: no cover - exercised only where rich is missing
    Console = None  # type: ignore[assignment,misc]

Style = Literal["auto", "rich", "plain"]

InputFn = Callable[[str], str]
"""Shows a prompt and returns one line of input (no newline); raises EOFError at the end of input."""

HUMAN = "human"
"""Agent label of the human's seat in saved records."""

HIDDEN = "?"


def stream_input(stream: TextIO, out: TextIO) -> InputFn:
    """An :data:`InputFn` reading lines from ``stream`` and writing prompts to ``out`` (for tests and pipes)."""

    def ask(prompt: str) -> str:
        out.write(prompt)
        out.flush()
        line = stream.readline()
        if not line:
            raise EOFError
        return line.rstrip("\r\n")

    return ask


def policy_name(policy: object) -> str:
    """A policy's display name: its ``name`` attribute, else its class name (user policies need not set one)."""
    return str(getattr(policy, "name", type(policy).__name__))


YOU = "you"
"""What play and replay call the human's seat: ``player_1 (you)``, the legend's ``* = you``."""


def seat_names(num_players: int, agents: Sequence[str] | None = None, you: int | None = None) -> list[str]:
    """Display names by seat: ``player_i``, with ``(you)`` or the agent's name in brackets (none when the agent's
    name is the seat's own, as the env's records name seats).

    The human's seat is ``(you)`` wherever it is shown: at play, and in a replay of a record that names it (agent
    :data:`HUMAN`), as play called it.

    Args:
        num_players: seats at the table.
        agents: optional agent label by seat (e.g. a record's ``agents``: policy specs, ``"human"``).
        you: the human's seat, labelled ``(you)`` whatever its agent label.

    Example:
        >>> seat_names(3, ["heuristic", "human", "player_2"])
        ['player_0 (heuristic)', 'player_1 (you)', 'player_2']
    """
    names = []
    for i in range(num_players):
        label = agents[i] if agents is not None else None
        label = YOU if i == you or label == HUMAN else label
        names.append(f"player_{i}" + (f" ({label})" if label and label != f"player_{i}" else ""))
    return names


def describe(entry: HistoryEntry, who: str, config: GameConfig | None = None) -> str:
    """One public decision in words: ``"player_2 passed on 27 (pot now 3)"``, ``"player_3 took 27 with 4 chips"``;
    with special cards also ``"player_1 bid 2 for the wild"``, ``"player_1 named the wild 17"``,
    ``"player_1 discarded 30 (delete)"`` (``config`` gives the card range; default 3..35)."""
    if entry.action == PASS:
        return f"{who} passed on {entry.card} (pot now {entry.pot + 1})"
    if entry.action == TAKE:
        return f"{who} took {entry.card} with {entry.pot} chip{'' if entry.pot == 1 else 's'}"
    card = SPECIAL_NAMES.get(entry.card, str(entry.card))  # special cards (wildcards preset)
    if entry.action == DROP:
        return f"{who} dropped out of the {card} auction"
    if entry.action < DROP:
        return f"{who} bid {entry.action - BID0} for the {card}"
    lo = (config or GameConfig()).lowest_card
    if entry.card == WILD:
        return f"{who} named the wild {entry.action - VALUE0 + lo}"
    if entry.card == DELETE:
        return f"{who} discarded {entry.action - DELETE0 + lo} (delete)"
    return f"{who} chose action {entry.action} for the {card}"


def deal_end(game: Game, deal_index: int) -> Game:
    """Deal ``deal_index`` of ``game`` replayed alone to its end (its public history on its own deal), so its
    final hands, wilds and chips can be read whatever deal ``game`` is in now."""
    cfg = game.config
    one = dataclasses.replace(cfg, num_deals=1, starting_seat=(game.first_seat + deal_index) % cfg.num_players)
    g = Game(one)
    g.reset(deals=[game.deals[deal_index]])
    for h in game.history:
        if h.deal_index == deal_index:
            g.step(h.action)
    return g


def deal_hands(game: Game, deal_index: int) -> list[list[int]]:
    """Every seat's number cards at the end of deal ``deal_index`` (discards removed)."""
    end = deal_end(game, deal_index)
    return [mask_to_cards(m) for m in end.cards]


def held_text(cards: Sequence[int], wild: int | None = None, paid: int = 0, delete_due: bool = False) -> str:
    """A seat's cards in runs, with its wild's value (``?=17``), a pending delete and the chips it paid."""
    text = format_runs(cards)
    text += f" ?={wild}" if wild is not None else ""
    text += " (delete due)" if delete_due else ""
    return text + (f" paid {paid}" if paid else "")


def deal_summary(game: Game, deal_index: int, names: Sequence[str]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a finished deal: cards, chips left, the deal's penalty and the match total so far.

    Everything here is public once the deal is scored (chips are counted for the penalty).
    """
    pens = game.deal_penalties[deal_index]
    totals = [sum(p[i] for p in game.deal_penalties[: deal_index + 1]) for i in range(len(pens))]
    end = deal_end(game, deal_index)
    special = bool(game.config.special_cards)
    rows = []
    for i in range(len(pens)):
        cards = mask_to_cards(end.cards[i])
        held = held_text(cards, end.wild_value[i], end.paid[i]) if special else format_runs(cards)
        rows.append([names[i], held, str(end.chips[i]), str(pens[i]), str(totals[i])])
    return ["player", "cards", "chips", "penalty", "match total"], rows


def final_results(game: Game, names: Sequence[str]) -> tuple[list[str], list[list[str]], list[int]]:
    """Header, rows (penalty of each deal, total, rank) and the winning seats of a finished match."""
    ranks, winners = ranks_and_winners(game.final_penalties())
    multi = len(game.deal_penalties) > 1
    deal_cols = [f"deal {d + 1}" for d in range(len(game.deal_penalties))] if multi else []
    header = ["player", *deal_cols, "total" if multi else "penalty", "rank"]
    rows = []
    for i, total in enumerate(game.final_penalties()):
        per_deal = [str(p[i]) for p in game.deal_penalties] if multi else []
        rank = f"{ranks[i]:g}" + (" (winner)" if i in winners else "")
        rows.append([names[i], *per_deal, str(total), rank])
    return header, rows, winners


def plain_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell; the first two left-aligned, numbers right-aligned."""
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    lines = []
    for r in (header, *rows):
        cells = [c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


class Display:
    """Writes play and replay output to ``out``: rich when it is a terminal, plain text otherwise.

    Args:
        out: the text stream (``sys.stdout``, or an ``io.StringIO`` in tests).
        style: ``"auto"`` (rich iff ``out.isatty()`` and rich is installed), ``"rich"`` or ``"plain"``.

    Raises:
        ValueError: on an unknown style, or ``"rich"`` when rich is not installed.
    """

    def __init__(self, out: TextIO, style: Style = "auto") -> None:
        if style not in ("auto", "rich", "plain"):
            raise ValueError(f"style: expected 'auto', 'rich' or 'plain', got {style!r}")
        if style == "rich" and Console is None:
            raise ValueError("style: 'rich' needs the rich package (pip install rich)")
        isatty = getattr(out, "isatty", lambda: False)()
        self.out = out
        self.rich = Console is not None and (style == "rich" or (style == "auto" and isatty))
        self.console = Console(file=out, force_terminal=True, highlight=False) if self.rich else None

    def line(self, text: str = "", style: str | None = None) -> None:
        """One line of text; ``style`` is a rich style (``"bold red"``) ignored in plain mode."""
        if self.console is not None:
            self.console.print(Text(text, style=style or ""))
        else:
            self.out.write(text + "\n")
        self.out.flush()

    def heading(self, text: str) -> None:
        """A section heading: a rule on a terminal, ``== text ==`` in plain text."""
        if self.console is not None:
            self.console.rule(text)
        else:
            self.line(f"== {text} ==")

    def grid(self, header: Sequence[str], rows: Sequence[Sequence[str]], title: str | None = None) -> None:
        """A small table of strings (deal summaries, final results)."""
        if self.console is None:
            if title:
                self.line(title)
            self.line(plain_table(header, rows))
            return
        table = Table(title=title, title_justify="left")
        for i, h in enumerate(header):
            table.add_column(h, justify="left" if i < 2 else "right")
        for r in rows:
            table.add_row(*r)
        self.console.print(table)

    def table(self, game: Game, *, seat: int | None, names: Sequence[str], viewer: str = YOU) -> None:
        """The table now: from ``seat``'s view (hidden information hidden), or everything if ``seat`` is None.

        ``viewer`` is who that seat is, as the legend names it: ``you`` at play, the seat's name in a replay."""
        if self.console is None:
            view = None if seat is None else game.seat_view(seat)
            self.line(render_table(view, game, full=seat is None, viewer=viewer))
            return
        if seat is None:
            self.console.print(_rich_full_table(game, names))
        else:
            self.console.print(_rich_seat_table(game.seat_view(seat), names, game.is_over, viewer))


def _title(deal_index: int, num_deals: int, face_up: int | None, pot: int, left: int, special: str = "") -> Text:
    t = Text(f"deal {deal_index + 1}/{num_deals}   ")
    if special:  # an auction or a special card's use: the plain text's line
        return t.append(special, style="bold").append(f"   cards left in deck {left}")
    if face_up is None:  # the game is over: its one deal ("deal 1/1 over"), or the match
        return Text(game_over_title(num_deals), style="bold")
    t.append("face-up card ").append(f" {face_up} ", style="bold black on yellow")
    return t.append(f"  pot {pot}   cards left in deck {left}")


def _new_table(title: Text, multi: bool) -> Table:
    table = Table(title=title, title_justify="left", caption_justify="left")
    for name, justify in (("", "left"), ("player", "left"), ("chips", "right"), ("cards", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for name in ("points", "penalty") + (("match",) if multi else ()):
        table.add_column(name, justify="right")
    return table


def _rich_seat_table(view: SeatView, names: Sequence[str], over: bool, viewer: str = YOU) -> Table:
    """Built from the seat view only, so nothing hidden from that seat can reach the screen."""
    cfg = view.config
    special = face_up_line(view) if cfg.special_cards and view.phase != "offer" and not over else ""
    table = _new_table(_title(view.deal_index, view.num_deals, view.face_up_card, view.pot, view.cards_in_deck,
                              special), cfg.num_deals > 1)  # fmt: skip
    for i in range(view.num_players):
        chips = view.chips[i]
        mark = ">" if view.current_seat == i else ""
        held = (held_text(view.cards[i], view.wild_values[i], view.paid[i], view.pending_delete[i])
                if cfg.special_cards else format_runs(view.cards[i]))  # fmt: skip
        cells = [mark, names[i], HIDDEN if chips is None else str(chips), held,
                 str(view.card_points[i]), HIDDEN if chips is None else str(view.card_points[i] - chips)]  # fmt: skip
        if cfg.num_deals > 1:
            cells.append(str(view.match_penalties[i]))
        table.add_row(*cells, style="bold cyan" if i == view.seat else None)
    notes = [f"your chips: {view.own_chips}" if viewer == YOU else f"chips of {viewer}: {view.own_chips}"]
    if view.removed_face_up:
        notes.append(f"removed face up: {format_runs(view.removed_face_up)}")
    if view.discarded:
        notes.append(f"discarded: {format_runs(view.discarded)}")
    if any(c is None for c in view.chips):
        notes.append(f"{HIDDEN} = chips hidden by the rules")
    if over:
        notes.append("final chips are counted in the results below")
    table.caption = "   ".join(notes)
    return table


def _rich_full_table(game: Game, names: Sequence[str]) -> Table:
    cfg = game.config
    over = game.is_over
    left = 0 if over else len(game.deck) - 1
    special = face_up_line(game.seat_view(0)) if cfg.special_cards and game.phase != "offer" and not over else ""
    table = _new_table(_title(game.deal_index, cfg.num_deals, game.face_up_card, game.pot, left, special),
                       cfg.num_deals > 1)  # fmt: skip
    for i in range(cfg.num_players):
        pts = card_points(game.scoring_mask(i))
        cards = mask_to_cards(game.cards[i])
        held = (held_text(cards, game.wild_value[i], game.paid[i], game.pending_delete[i]) if cfg.special_cards
                else format_runs(cards))  # fmt: skip
        cells = [">" if not over and game.current_seat == i else "", names[i], str(game.chips[i]),
                 held, str(pts), str(pts - game.chips[i])]  # fmt: skip
        if cfg.num_deals > 1:
            cells.append(str(game.match_penalties[i]))
        table.add_row(*cells)
    notes = ["full view: hidden information shown"]
    if cfg.removed_face_up:
        notes.append(f"removed face up: {format_runs(cfg.removed_face_up)}")
    if not over:
        notes.append(f"deck (next first): {' '.join(SPECIAL_NAMES.get(c, str(c)) for c in game.deck[1:]) or '-'}")
        notes.append(f"removed face down: {' '.join(SPECIAL_NAMES.get(c, str(c)) for c in game.removed_hidden) or '-'}")
    table.caption = "\n".join(notes)
    return table
