"""JSON views of a game for the web page: what one seat may know, or everything for a replay's full view.

A seat's view is built from :meth:`nothanks_env.game.Game.seat_view` and the public history only, so it
never holds the deck order, the cards removed face down, the seed, or chips the variant hides. The full
view (:func:`full_view`) adds them; the server sends it only for records the browser already holds.

Chips are shown by :data:`ChipsShown`: ``"hidden"`` (the published rule: opponents' chips are ``null``),
``"visible"`` (the variant shows them), ``"counted"`` (the "perfect memory" toggle: every chip movement is
public, so the counts a careful player would keep, ``SeatView.tracked_chips``) or ``"all"`` (once the match
is over, as players count chips for the score, and in the full view).

With the house special cards (the ``wildcards`` preset) the view adds the ``phase``, the ``auction`` (the
card auctioned, the high bid and its bidder, who is still in), each seat's ``wild_value``, ``paid`` chips
and pending delete, and the ``discarded`` cards; actions are then named as
:func:`nothanks_env.game.describe_action` names them (``"bid 3"``, ``"drop"``, ``"value 17"``, ``"delete 9"``).

Units: card values 3..35 (standard rules); chips; penalty points (lower is better). ``move`` counts the
decisions taken so far in the match; a client sends it back with its action so that a stale move is refused.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from nothanks_env.game import PHASES, SPECIAL_NAMES, Game, GameConfig, HistoryEntry, describe_action
from nothanks_env.outcome import ranks_and_winners
from nothanks_env.render import card_runs

ActionName = str
"""``"pass"`` or ``"take"``; with special cards also ``"bid N"``, ``"drop"``, ``"value N"``, ``"delete N"``."""
ChipsShown = Literal["hidden", "visible", "counted", "all"]


class Move(BaseModel):
    """One public decision."""

    seat: int = Field(description="the seat that acted, 0..players-1")
    action: ActionName = Field(description="'pass', 'take'; with special cards 'bid N', 'drop', 'value N', 'delete N'")
    card: int = Field(description="the face-up card it acted on; -1 for the wild, -2 for the delete card")
    special: str | None = Field(None, description="'wild' or 'delete' when the move was about a special card")
    pot: int = Field(description="chips on the card before the decision")
    deal: int = Field(description="0-based deal number")


class PlayerView(BaseModel):
    """One seat at the table, as the viewer sees it."""

    seat: int
    label: str = Field(description="'you', a policy spec such as 'ppo-3p', or 'player_i' in replays")
    cards: list[int] = Field(description="cards taken in this deal, ascending")
    runs: list[tuple[int, int]] = Field(description="the cards as runs of consecutive values, (lowest, highest)")
    card_points: int = Field(description="sum of the lowest card of each run")
    chips: int | None = Field(description="chips held; null when hidden from the viewer")
    penalty: int | None = Field(description="card points minus chips in this deal; null when chips are hidden")
    match_penalty: int = Field(description="total penalty of the finished deals of the match")
    last_action: Move | None = Field(description="this seat's latest decision in this deal")
    wild_value: int | None = Field(None, description="special cards: the value this seat's wild counts as")
    paid: int = Field(0, description="special cards: chips paid to auctions this deal (they left the game)")
    delete_due: bool = Field(False, description="special cards: its next number card taken is discarded")


class AuctionView(BaseModel):
    """The auction of a special card (all public)."""

    card: Literal["wild", "delete"]
    high_bid: int | None = Field(description="chips; null before the opener's bid")
    high_bidder: int | None
    in_auction: list[bool] = Field(description="by seat: still in the auction")


class Outcome(BaseModel):
    """Results of a finished match."""

    penalties: list[int] = Field(description="match totals by seat, penalty points (lower is better)")
    ranks: list[float] = Field(description="1 = best; tied seats share the average rank")
    winners: list[int] = Field(description="seats with the lowest total; ties share the win")


class GameView(BaseModel):
    """The table from one seat's point of view (``seat``), or the full view (``seat`` null) in replays."""

    seat: int | None = Field(description="the viewing seat; null for the full view")
    num_players: int
    num_deals: int
    deal: int = Field(description="0-based number of the current (or last) deal")
    move: int = Field(description="decisions taken so far in the match; send it back with your action")
    over: bool
    to_act: int | None = Field(description="the seat to act; null once the match is over")
    face_up_card: int | None
    pot: int = Field(description="chips on the face-up card")
    cards_in_deck: int = Field(description="face-down cards still to come, not counting the face-up card")
    removed_face_up: list[int] = Field(description="cards removed face up before the deal (known to all)")
    chips_shown: ChipsShown = Field(description="how opponents' chips are shown (module docstring)")
    legal_actions: list[ActionName] = Field(description="the viewer's legal actions; empty when not its turn")
    phase: str = Field("offer", description=f"one of {list(PHASES)}; always 'offer' without special cards")
    auction: AuctionView | None = Field(None, description="the special card being auctioned or used")
    discarded: list[int] = Field([], description="special cards: number cards discarded by delete this deal")
    take_cost: int | None = Field(
        description="change in the viewer's penalty if it took the face-up card now: card points gained minus "
        "the pot; null when over, in the full view or while a special card is up"
    )
    players: list[PlayerView]
    deal_penalties: list[list[int]] = Field(description="penalty of every finished deal, by seat")
    outcome: Outcome | None = Field(description="results, once the match is over")
    deck: list[int] | None = Field(None, description="full view only: the cards to come, next first")
    removed_hidden: list[int] | None = Field(None, description="full view only: cards removed face down")


def move_of(entry: HistoryEntry, config: GameConfig | None = None) -> Move:
    """A history entry as a :class:`Move` (``config`` names special-card actions; default the standard range)."""
    return Move(
        seat=entry.seat,
        action=describe_action(config or GameConfig(special_cards=("wild", "delete")), entry.action),
        card=entry.card,
        pot=entry.pot,
        deal=entry.deal_index,
        special=SPECIAL_NAMES.get(entry.card),
    )


def _last_actions(game: Game) -> list[Move | None]:
    last: list[Move | None] = [None] * game.config.num_players
    for entry in reversed(game.history):
        if entry.deal_index != game.deal_index:
            break
        if last[entry.seat] is None:
            last[entry.seat] = move_of(entry, game.config)
    return last


def _outcome(game: Game) -> Outcome | None:
    if not game.is_over:
        return None
    ranks, winners = ranks_and_winners(game.final_penalties())
    return Outcome(penalties=game.final_penalties(), ranks=ranks, winners=winners)


def seat_view(game: Game, seat: int, labels: list[str], *, perfect_memory: bool = False) -> GameView:
    """What ``seat`` may know of ``game`` now, as JSON-ready data.

    Args:
        game: a game after :meth:`Game.reset`.
        seat: the viewing seat, 0..num_players-1.
        labels: a label by seat (``"you"``, policy specs).
        perfect_memory: show opponents' chips as counted from the public chip movements when the variant
            hides them.

    Raises:
        RuleError: if ``seat`` is out of range.
    """
    view = game.seat_view(seat)
    over = game.is_over
    if over:
        chips: tuple[int | None, ...] = tuple(game.chips)  # counted for the score: public at the end
        shown: ChipsShown = "all"
    elif perfect_memory and any(c is None for c in view.chips):
        chips, shown = view.tracked_chips, "counted"
    else:
        chips, shown = view.chips, ("visible" if all(c is not None for c in view.chips) else "hidden")
    last = _last_actions(game)
    players = [
        PlayerView(
            seat=i,
            label=labels[i],
            cards=list(view.cards[i]),
            runs=card_runs(view.cards[i]),
            card_points=view.card_points[i],
            chips=chips[i],
            penalty=None if chips[i] is None else view.card_points[i] - chips[i],
            match_penalty=view.match_penalties[i],
            last_action=last[i],
            wild_value=view.wild_values[i] if view.wild_values else None,
            paid=view.paid[i] if view.paid else 0,
            delete_due=bool(view.pending_delete[i]) if view.pending_delete else False,
        )
        for i in range(view.num_players)
    ]
    auction = None
    if view.face_up_special is not None and not over:
        auction = AuctionView(card=view.face_up_special, high_bid=view.high_bid, high_bidder=view.high_bidder,
                              in_auction=list(view.in_auction))  # fmt: skip
    return GameView(
        seat=seat,
        num_players=view.num_players,
        num_deals=view.num_deals,
        deal=view.deal_index,
        move=len(game.history),
        over=over,
        to_act=view.current_seat,
        face_up_card=view.face_up_card,
        pot=view.pot,
        cards_in_deck=view.cards_in_deck,
        removed_face_up=list(view.removed_face_up),
        chips_shown=shown,
        legal_actions=[describe_action(game.config, a) for a in view.legal_actions],
        take_cost=None if over or view.face_up_card is None else view.take_delta() - view.pot,
        phase=view.phase,
        auction=auction,
        discarded=list(view.discarded),
        players=players,
        deal_penalties=[list(p) for p in game.deal_penalties],
        outcome=_outcome(game),
    )


def full_view(game: Game, labels: list[str]) -> GameView:
    """Everything about ``game``, hidden parts included (the deck in order, the face-down removals, all chips).

    Only for games whose record the client already holds (replays, agent-vs-agent games).
    """
    view = seat_view(game, 0, labels)
    players = [
        p.model_copy(update={"chips": game.chips[i], "penalty": p.card_points - game.chips[i]})
        for i, p in enumerate(view.players)
    ]
    return view.model_copy(
        update={
            "seat": None,
            "chips_shown": "all",
            "legal_actions": [],
            "take_cost": None,
            "players": players,
            "deck": [] if game.is_over else list(game.deck[1:]),
            "removed_hidden": list(game.removed_hidden),
        }
    )
