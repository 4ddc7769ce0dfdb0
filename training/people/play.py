"""Play No Thanks! against agents in the terminal.

Usage::

    python -m training.play --players 4 --opponents heuristic threshold:T=5 ppo-3p
    python -m training.play --opponents heuristic heuristic --preset match3 --seat 0 --save my_game.json

Each opponent is a policy spec (:mod:`training.specs`): a baseline (``heuristic``, ``threshold:T=5``), a
shipped checkpoint's short name, a checkpoint path, or ``module:attr``. The human's seat is drawn from the
seed unless ``--seat`` sets it. Each turn shows the face-up card and its pot, every player's cards in runs
with their penalty, the cards left in the deck and what the others did since your last decision; your
own chips, and the opponents' only when the variant shows them (``--preset visible_chips``).

Commands (case-insensitive): ``t``/``take``, ``p``/``pass``, ``h``/``help``, ``q``/``quit``.

With the house special cards (``--preset wildcards``) the table also shows the auction (the card
auctioned, the high bid and its bidder, who is still in, the chips each player paid) and asks for:
``b N``/``bid N`` (or just ``N``) to bid N chips, ``d``/``drop`` to drop out, then the winner's choice: a
card value ``N`` to name the wild's value or to discard that card. Input that the rules forbid (a bid not
above the high bid or above your chips, the opener dropping, a value you hold, a card you do not hold) is
refused with the reason and asked again.

At the end the game is saved as a JSON record (:mod:`nothanks_env.records`) to ``--save`` or to
``games/nothanks__{preset}__{seed}__{time}.json`` (the time the game started); quitting early offers to save the
unfinished game. The path is checked before the game starts: one that cannot be written, or an existing file
(unless ``--overwrite``), is refused.
Replay it with ``python -m training.replay PATH``. An opponent that returns no legal action (a fraction such as
``1.9`` included: it is not cut to ``1``) stops the game: saving the unfinished game is offered as on a quit,
then one ``error:`` line names the bot and says where the game was saved (exit code 2).

The loop is :func:`play_game`, which takes its input as a function and writes to a :class:`Display`, so
tests drive it with scripted input.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import NoReturn, TextIO

from nothanks_env.game import (
    BID0,
    DELETE0,
    DROP,
    PASS,
    TAKE,
    VALUE0,
    Game,
    GameConfig,
    IllegalActionError,
    RuleError,
    SeatView,
)
from nothanks_env.policy import Policy, PolicyActionError, act_one
from nothanks_env.presets import PRESETS, resolve_config
from nothanks_env.records import GameRecord, record_from_game
from training.people.tui import (
    HUMAN,
    Display,
    InputFn,
    deal_over_title,
    deal_summary,
    describe,
    final_results,
    policy_name,
    seat_names,
)

COMMANDS: dict[str, str] = {
    "t": "take",
    "take": "take",
    "p": "pass",
    "pass": "pass",
    "h": "help",
    "help": "help",
    "?": "help",
    "q": "quit",
    "quit": "quit",
}
"""Accepted inputs (after strip and lower-casing) -> command."""

HELP = """\
t, take  take the face-up card and the chips on it; you then act again on the next card
p, pass  say "No thanks!": put one of your chips on the card; the next player acts
h, help  this help
q, quit  leave the game (you are offered to save it)
Penalty = the lowest card of each run of consecutive cards, summed, minus your chips. Lowest penalty wins."""

DEFAULT_OPPONENT = "heuristic"
RECORD_DIR = Path("games")


SPECIAL_HELP = """\
auction:  b N, bid N, or just N  bid N chips (more than the high bid, at most your chips; the opener may bid 0)
          d, drop                drop out of this auction for good (not before your opening bid)
wild:     N                      name the wild's value: a card value you do not hold (it counts as that card)
delete:   N                      discard card N, one of your cards (it leaves the game)
The auction winner pays the bid (those chips leave the game) and then turns the next card."""


def parse_command(text: str) -> str | None:
    """``"take"``, ``"pass"``, ``"help"`` or ``"quit"`` for an accepted input (see :data:`COMMANDS`), else None."""
    return COMMANDS.get(text.strip().lower())


def parse_special(text: str) -> tuple[str, int | None] | None:
    """An auction or choice input: ``("bid", N)`` for ``b N``/``bid N``, ``("number", N)`` for a bare ``N``,
    ``("drop", None)`` for ``d``/``drop``; help and quit as :func:`parse_command`; None if not understood."""
    words = text.strip().lower().split()
    if len(words) == 1 and words[0] in ("d", "drop"):
        return ("drop", None)
    if len(words) == 1 and words[0].isdigit():
        return ("number", int(words[0]))
    if len(words) == 2 and words[0] in ("b", "bid") and words[1].isdigit():
        return ("bid", int(words[1]))
    command = parse_command(text)
    return None if command not in ("help", "quit") else (command, None)


@dataclass(frozen=True)
class PlayResult:
    """How a game at the terminal ended.

    Attributes:
        record: the game as played (``penalties`` is None if it was left unfinished).
        finished: whether the match was played to the end.
        saved_to: where the record was written, or None if it was not saved.
    """

    record: GameRecord
    finished: bool
    saved_to: Path | None


def play_game(
    game: Game,
    human_seat: int,
    opponents: Mapping[int, Policy],
    *,
    display: Display,
    input_fn: InputFn,
    save_path: Path | None,
    seed: int | None = None,
    agents: Sequence[str] | None = None,
) -> PlayResult:
    """Play ``game`` (already reset) to the end or until the human quits.

    Args:
        game: a game after :meth:`Game.reset`; it is stepped in place.
        human_seat: the seat the human plays, 0..num_players-1.
        opponents: a policy for every other seat (a :class:`Policy`, or any object with ``act_batch``).
        display: where the table and messages go.
        input_fn: reads the human's commands (see :data:`InputFn`); EOF or Ctrl-C counts as quit.
        save_path: where to save the record at the end or on a confirmed quit; None = never save.
        seed: the seed ``game`` was reset with, stored in the record.
        agents: agent labels by seat for the record; default the policies' names and ``"human"``.

    Returns:
        The record and how the game ended.

    Raises:
        ValueError: if the seats of ``opponents`` are not exactly the seats other than ``human_seat``.
        PolicyActionError: if an opponent policy returns anything but a legal action id (``2``, a fraction such
            as ``1.9``, a PASS without a chip), naming its seat and label; the action is not replaced. Saving the
            unfinished game is offered first, as on a quit, and the message says where it was saved.
    """
    n = game.config.num_players
    others = sorted(set(range(n)) - {human_seat})
    if sorted(opponents) != others:
        raise ValueError(f"opponents: expected policies for seats {others}, got seats {sorted(opponents)}")
    if agents is None:
        agents = [HUMAN if i == human_seat else policy_name(opponents[i]) for i in range(n)]
    names = seat_names(n, agents, you=human_seat)
    who = [("you" if i == human_seat else f"player_{i}") for i in range(n)]
    for policy in opponents.values():
        if callable(getattr(policy, "reset", None)):  # user policies (module:attr) need only act_batch
            policy.reset()
    shown = len(game.history)  # history before this index has been shown to the human

    def show_events(heading: str) -> None:
        nonlocal shown
        events = game.history[shown:]
        if events:
            display.line(heading)
            for h in events:
                display.line("  " + describe(h, who[h.seat], game.config))
        shown = len(game.history)

    def after_step(deal_ended: bool) -> None:
        if not deal_ended:
            return
        show_events("before the deal ended:")
        d = len(game.deal_penalties) - 1
        display.heading(deal_over_title(d, game.config.num_deals))
        display.grid(*deal_summary(game, d, names))
        if not game.is_over:
            display.line(f"deal {d + 2} starts; player_{game.current_seat} acts first")

    while not game.is_over:
        seat = game.current_seat
        if seat != human_seat:
            try:
                ended = game.step(act_one(opponents[seat], game))
            except (PolicyActionError, IllegalActionError) as e:  # its fault: never replaced by another action
                bot = f"player_{seat} ({agents[seat]})"
                display.line(f"the game stops: {bot} returned no legal action", style="red")
                record = record_from_game(game, seed=seed, agents=list(agents))
                saved, kept = _offer_save(record, display, input_fn, save_path), ""
                if save_path is not None:
                    kept = (
                        f"; the unfinished game was saved to {saved}"
                        if saved
                        else "; the unfinished game was not saved"
                    )
                raise PolicyActionError(f"{bot} at move {len(game.history)}: {e}{kept}") from e
            after_step(ended)
            continue
        display.line("")
        show_events("since your last decision:")
        display.table(game, seat=human_seat, names=names)
        if game.phase == "offer":
            action = _ask_action(game, human_seat, display, input_fn)
        else:
            action = _ask_special(game.seat_view(human_seat), display, input_fn, names)
        if action is None:
            return _quit(game, display, input_fn, save_path, seed, agents)
        entry_index = len(game.history)
        ended = game.step(action)
        display.line(describe(game.history[entry_index], "you", game.config), style="bold cyan")
        shown = len(game.history)
        after_step(ended)

    header, rows, winners = final_results(game, names)
    display.heading("final results")
    display.grid(header, rows)
    display.line("winner" + ("s" if len(winners) > 1 else "") + ": " + ", ".join(names[w] for w in winners),
                 style="bold")  # fmt: skip
    record = record_from_game(game, seed=seed, agents=list(agents))
    return PlayResult(record, finished=True, saved_to=_save(record, save_path, display))


def _ask_action(game: Game, seat: int, display: Display, input_fn: InputFn) -> int | None:
    """The human's legal action, asking again after bad input; None if they quit (or input ends)."""
    view = game.seat_view(seat)
    delta = view.take_delta() - view.pot
    display.line(
        f"take {view.face_up_card} with {view.pot} chip{'' if view.pot == 1 else 's'}: your penalty "
        f"{delta:+d}   pass: {'+1 (one chip)' if view.own_chips else 'not allowed, you have no chips'}"
    )
    while True:
        try:
            text = input_fn(f"your move, {view.own_chips} chips left [t/p/h/q]: ")
        except (EOFError, KeyboardInterrupt):
            display.line("")
            return None
        command = parse_command(text)
        if command is None:
            shown = text.strip()[:20]
            display.line(
                (f"unknown command {shown!r}" if shown else "no command")
                + ": type t (take), p (pass), h (help) or q (quit)",
                style="red",
            )
        elif command == "help":
            display.line(HELP + ("\n" + SPECIAL_HELP if game.config.special_cards else ""))
        elif command == "quit":
            return None
        elif command == "pass" and view.own_chips == 0:
            display.line("you cannot pass: you have no chips left, so you must take the card (t)", style="red")
        else:
            return TAKE if command == "take" else PASS


def _special_prompt(view: SeatView, names: Sequence[str]) -> str:
    """What the human is asked in an auction or a choice: the auction's state, or the choice's range."""
    me = view.seat
    if view.phase == "auction":
        card = "wild (?)" if view.face_up_special == "wild" else "delete"
        still = ", ".join(names[s] for s, on in enumerate(view.in_auction) if on)
        paid = ", ".join(f"{names[s]} {c}" for s, c in enumerate(view.paid) if c) or "nobody yet"
        if view.high_bid is None:
            state = "you open: bid 0 or more (you may not drop before your first bid)"
        else:
            state = f"high bid {view.high_bid} by {names[view.high_bidder]}; bid {view.high_bid + 1} or more, or drop"
        return (
            f"auction for the {card}: {state}\n  still in: {still}   chips paid to auctions this deal: {paid}\n"
            f"  your chips: {view.own_chips}   [b N / N / d / h / q]: "
        )
    if view.phase == "choose_value":
        return (
            f"you won the wild (?): name its value, a card you do not hold "
            f"({view.config.lowest_card}..{view.config.highest_card}, "
            f"not {', '.join(map(str, view.cards[me])) or '-'}) "
            "[N / h / q]: "
        )
    return f"you won the delete: discard one of your cards ({', '.join(map(str, view.cards[me]))}) [N / h / q]: "


def _ask_special(view: SeatView, display: Display, input_fn: InputFn, names: Sequence[str]) -> int | None:
    """The human's legal auction or choice action, asking again after bad input; None if they quit."""
    legal = set(view.legal_actions)
    lo = view.config.lowest_card
    prompt = _special_prompt(view, names)
    while True:
        try:
            text = input_fn(prompt)
        except (EOFError, KeyboardInterrupt):
            display.line("")
            return None
        parsed = parse_special(text)
        shown = text.strip()[:20]
        if parsed is None:
            want = "b N (bid N chips) or d (drop)" if view.phase == "auction" else "a card value N"
            unknown = f"unknown command {shown!r}" if shown else "no command"
            display.line(f"{unknown}: type {want}, h (help) or q (quit)", style="red")
            continue
        kind, n = parsed
        if kind == "help":
            display.line(SPECIAL_HELP)
            continue
        if kind == "quit":
            return None
        problem = _special_problem(view, kind, n)
        if problem is not None:
            display.line(problem, style="red")
            continue
        if view.phase == "auction":
            action = DROP if kind == "drop" else BID0 + n
        elif view.phase == "choose_value":
            action = VALUE0 + n - lo
        else:
            action = DELETE0 + n - lo
        if action in legal:  # _special_problem states every rule; this holds it to the engine's mask
            return action
        display.line(f"{shown!r} is not allowed now", style="red")


def _special_problem(view: SeatView, kind: str, n: int | None) -> str | None:
    """Why an auction or choice input is refused (what was expected, what was got), or None if it is legal."""
    me, cfg = view.seat, view.config
    if view.phase == "auction":
        if kind == "drop":
            return "you cannot drop yet: the opener must bid first (bid 0 or more)" if view.high_bid is None else None
        low = 0 if view.high_bid is None else view.high_bid + 1
        if n is None or n < low:
            return f"bid {n}: expected at least {low} (more than the high bid {view.high_bid})"
        if n > view.own_chips:
            return f"bid {n}: expected at most your {view.own_chips} chips"
        return None
    if kind == "drop":
        return "there is no auction now: type a card value"
    if view.phase == "choose_value":
        if not cfg.lowest_card <= n <= cfg.highest_card:
            return f"value {n}: expected a card value {cfg.lowest_card}..{cfg.highest_card}"
        if n in view.cards[me]:
            return f"value {n}: expected a value you do not hold (you hold {n})"
        return None
    if n not in view.cards[me]:
        return f"card {n}: expected one of your cards ({', '.join(map(str, view.cards[me]))})"
    return None


def _quit(
    game: Game, display: Display, input_fn: InputFn, save_path: Path | None, seed: int | None, agents: Sequence[str]
) -> PlayResult:
    record = record_from_game(game, seed=seed, agents=list(agents))
    saved = _offer_save(record, display, input_fn, save_path)
    display.line("bye")
    return PlayResult(record, finished=False, saved_to=saved)


def _offer_save(record: GameRecord, display: Display, input_fn: InputFn, save_path: Path | None) -> Path | None:
    """Ask whether to save an unfinished game (end of input answers no); where it was saved, or None."""
    if save_path is None:
        return None
    if _yes_no("save the unfinished game? [y/n]: ", display, input_fn):
        return _save(record, save_path, display)
    display.line("not saved")
    return None


def _yes_no(prompt: str, display: Display, input_fn: InputFn) -> bool:
    """True for y/yes, False for n/no; asks again otherwise. End of input (or Ctrl-C) answers no."""
    while True:
        try:
            answer = input_fn(prompt).strip().lower()
        except (EOFError, KeyboardInterrupt):
            display.line("")
            return False
        if answer in ("y", "yes", "n", "no"):
            return answer.startswith("y")
        display.line("please answer y or n", style="red")


def _save(record: GameRecord, path: Path | None, display: Display) -> Path | None:
    if path is None:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    record.save(path)
    display.line(f"game saved to {path}   (replay: python -m training.replay {path})")
    return path


def default_seat(seed: int, num_players: int) -> int:
    """The human's seat when none is chosen: drawn from the game's seed, 0..num_players-1.

    Its own stream (``"{seed}:seat"``), so the seat does not shift the deals or the opponents' seeds.
    """
    return random.Random(f"{seed}:seat").randrange(num_players)


def default_record_path(preset: str, seed: int, when: datetime) -> Path:
    """``games/nothanks__{preset}__{seed}__{YYYYmmdd-HHMMSS}.json`` (relative to the working directory)."""
    return RECORD_DIR / f"nothanks__{preset}__{seed}__{when:%Y%m%d-%H%M%S}.json"


def build_parser() -> argparse.ArgumentParser:
    from nothanks_env.game import MAX_PLAYERS, MIN_PLAYERS
    from training.cli import Parser, add_overwrite_argument, int_in
    from training.variants import PRESET_HELP, preset_name

    p = Parser(
        prog="python -m training.play",
        description="Play No Thanks! against agents in the terminal.",
        epilog="commands during play: t/take, p/pass, h/help, q/quit",
    )
    p.add_argument("--opponents", nargs="+", metavar="SPEC",
                   help="one policy spec per opponent (baseline, shipped checkpoint name, checkpoint path or "
                   f"module:attr); default {DEFAULT_OPPONENT!r} in every other seat")  # fmt: skip
    p.add_argument("--players", type=int_in(MIN_PLAYERS, MAX_PLAYERS),
                   help="seats at the table, 3..7 (default: the preset's count if it sets one, else one more than "
                   "the number of --opponents, else 3)")  # fmt: skip
    p.add_argument("--seat", type=int_in(0), help="your seat, 0..players-1 (default: drawn from the seed)")
    p.add_argument("--preset", default="standard", type=preset_name, help=PRESET_HELP)
    p.add_argument("--deals", type=int_in(1, 1000), help="deals in the match (default: the preset's)")
    p.add_argument(
        "--seed", type=int_in(0, 2**63 - 1), help="seeds the deals, your seat and the opponents (default: random)"
    )
    p.add_argument("--save", metavar="PATH", help="where to save the game record (default games/...)")
    add_overwrite_argument(p)
    p.add_argument("--plain", action="store_true", help="plain text even on a terminal")
    return p


def main(argv: Sequence[str] | None = None, input_fn: InputFn = input, out: TextIO | None = None) -> int:
    """Entry point; returns the exit status (0 after a finished or quit game). Bad arguments exit with 2 before the
    game starts, a ``--save`` path that cannot be written or that exists (without ``--overwrite``) included; an
    opponent that returns no legal action (``1.9``, ``2``, a PASS without a chip) stops the game with one
    ``error:`` line naming it, and exit code 2, as ``evaluate`` refuses such a bot."""
    from nothanks_env.game import MAX_PLAYERS, MIN_PLAYERS
    from training.cli import check_outputs
    from training.variants import table_problem

    parser = build_parser()
    args = parser.parse_args(argv)
    from training.specs import load_policy  # imports the baselines; kept out of module import for --help speed

    def refuse_count(message: str, specs: Sequence[str], config: GameConfig) -> NoReturn:
        """Refuse a count of ``specs`` that does not fit the table; a spec that does not load is the error to
        report first, and opponents that cannot play the preset's special cards (no count fixes that) come with
        the count's error on its line, first."""
        policies = []
        for spec in specs:
            try:
                policies.append(load_policy(spec))
            except (ValueError, OSError) as e:
                parser.error(f"--opponents: {e}")
        problem = table_problem(args.preset, config, {"--opponents": (specs, policies)})
        parser.error(f"{problem}; also {message}" if problem else message)

    if args.players is not None:
        num_players = args.players
    elif "num_players" in PRESETS[args.preset]:
        num_players = PRESETS[args.preset]["num_players"]
    elif args.opponents:
        num_players = len(args.opponents) + 1
        if not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
            refuse_count(
                f"--opponents: expected {MIN_PLAYERS - 1}..{MAX_PLAYERS - 1} specs, one per other seat (or --players "
                f"N for a table of N), got {len(args.opponents)}: {' '.join(args.opponents)}",
                args.opponents,
                resolve_config(preset=args.preset),  # the preset's own table: the count given has none
            )
    else:
        num_players = 3
    overrides = {} if args.deals is None else {"num_deals": args.deals}
    try:
        config = resolve_config(num_players=num_players, preset=args.preset, **overrides)
    except RuleError as e:
        parser.error(str(e))
    specs = args.opponents or [DEFAULT_OPPONENT] * (num_players - 1)
    if len(specs) != num_players - 1:
        refuse_count(
            f"--opponents: expected {num_players - 1} specs for {num_players} players (one per other seat), got "
            f"{len(specs)}: {' '.join(specs)}",
            specs,
            config,
        )
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    seat = args.seat if args.seat is not None else default_seat(seed, num_players)
    if not 0 <= seat < num_players:
        parser.error(f"--seat: expected 0..{num_players - 1}, got {seat}")
    others = [i for i in range(num_players) if i != seat]
    try:
        opponents = {i: load_policy(s, seed=seed + 1 + i, table=config) for i, s in zip(others, specs)}
    except (ValueError, OSError) as e:
        parser.error(f"--opponents: {e}")
    problem = table_problem(args.preset, config, {"--opponents": (specs, [opponents[i] for i in others])})
    if problem:  # pass/take policies at a special-cards table, or special-cards networks at a standard one
        parser.error(problem)
    agents = [HUMAN] * num_players
    for i, s in zip(others, specs):
        agents[i] = s
    save_path = Path(args.save) if args.save is not None else default_record_path(args.preset, seed, datetime.now())
    try:  # before the game: a record that cannot be written, or that would replace one, is refused now
        check_outputs({"--save": args.save if args.save is not None else str(save_path)}, overwrite=args.overwrite)
    except ValueError as e:
        parser.error(str(e))
    display = Display(out or sys.stdout, "plain" if args.plain else "auto")
    game = Game(config)
    game.reset(seed=seed)
    display.heading(f"No Thanks!  {num_players} players  preset {args.preset}  "
                    f"{config.num_deals} deal{'s' if config.num_deals > 1 else ''}  seed {seed}")  # fmt: skip
    for i in range(num_players):
        display.line(f"player_{i}: " + ("you" if i == seat else agents[i]))
    display.line(f"player_{game.current_seat} starts.   type h for help")
    try:
        play_game(
            game, seat, opponents, display=display, input_fn=input_fn, save_path=save_path, seed=seed, agents=agents
        )
    except PolicyActionError as e:  # a user's bot that returned no legal action: its fault, one error line
        parser.error(f"--opponents: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
