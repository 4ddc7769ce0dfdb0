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

At the end the game is saved as a JSON record (:mod:`nothanks_env.records`) to ``--save`` or to
``games/nothanks__{preset}__{seed}__{time}.json``; quitting early offers to save the unfinished game.
Replay it with ``python -m training.replay PATH``.

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
from typing import TextIO

from nothanks_env.game import PASS, TAKE, Game, RuleError
from nothanks_env.policy import Policy
from nothanks_env.presets import PRESETS, resolve_config
from nothanks_env.records import GameRecord, record_from_game
from nothanks_env.vector import BatchView
from training.people.tui import HUMAN, Display, InputFn, deal_summary, describe, final_results, policy_name, seat_names

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


def parse_command(text: str) -> str | None:
    """``"take"``, ``"pass"``, ``"help"`` or ``"quit"`` for an accepted input (see :data:`COMMANDS`), else None."""
    return COMMANDS.get(text.strip().lower())


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
        IllegalActionError: if an opponent policy returns an illegal action (it is not replaced).
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
                display.line("  " + describe(h, who[h.seat]))
        shown = len(game.history)

    def after_step(deal_ended: bool) -> None:
        if not deal_ended:
            return
        show_events("before the deal ended:")
        d = len(game.deal_penalties) - 1
        display.heading(f"deal {d + 1}/{game.config.num_deals} over")
        display.grid(*deal_summary(game, d, names))
        if not game.is_over:
            display.line(f"deal {d + 2} starts; player_{game.current_seat} acts first")

    while not game.is_over:
        seat = game.current_seat
        if seat != human_seat:
            view = BatchView.from_seat_view(game.seat_view(seat))
            after_step(game.step(int(opponents[seat].act_batch(view)[0])))
            continue
        display.line("")
        show_events("since your last decision:")
        display.table(game, seat=human_seat, names=names)
        action = _ask_action(game, human_seat, display, input_fn)
        if action is None:
            return _quit(game, display, input_fn, save_path, seed, agents)
        entry_index = len(game.history)
        ended = game.step(action)
        display.line(describe(game.history[entry_index], "you"), style="bold cyan")
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
            display.line(HELP)
        elif command == "quit":
            return None
        elif command == "pass" and view.own_chips == 0:
            display.line("you cannot pass: you have no chips left, so you must take the card (t)", style="red")
        else:
            return TAKE if command == "take" else PASS


def _quit(
    game: Game, display: Display, input_fn: InputFn, save_path: Path | None, seed: int | None, agents: Sequence[str]
) -> PlayResult:
    record = record_from_game(game, seed=seed, agents=list(agents))
    saved = None
    if save_path is not None and _yes_no("save the unfinished game? [y/n]: ", display, input_fn):
        saved = _save(record, save_path, display)
    elif save_path is not None:
        display.line("not saved")
    display.line("bye")
    return PlayResult(record, finished=False, saved_to=saved)


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
    from training.cli import Parser, int_in

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
    p.add_argument("--preset", default="standard", choices=sorted(PRESETS), help="rule variant (default standard)")
    p.add_argument("--deals", type=int_in(1, 1000), help="deals in the match (default: the preset's)")
    p.add_argument(
        "--seed", type=int_in(0, 2**63 - 1), help="seeds the deals, your seat and the opponents (default: random)"
    )
    p.add_argument("--save", type=Path, metavar="PATH", help="where to save the game record (default games/...)")
    p.add_argument("--plain", action="store_true", help="plain text even on a terminal")
    return p


def main(argv: Sequence[str] | None = None, input_fn: InputFn = input, out: TextIO | None = None) -> int:
    """Entry point; returns the exit status (0 after a finished or quit game). Bad arguments exit with 2."""
    parser = build_parser()
    args = parser.parse_args(argv)
    from training.specs import load_policy  # imports the baselines; kept out of module import for --help speed

    if args.players is not None:
        num_players = args.players
    elif "num_players" in PRESETS[args.preset]:
        num_players = PRESETS[args.preset]["num_players"]
    else:
        num_players = len(args.opponents) + 1 if args.opponents else 3
    overrides = {} if args.deals is None else {"num_deals": args.deals}
    try:
        config = resolve_config(num_players=num_players, preset=args.preset, **overrides)
    except RuleError as e:
        parser.error(str(e))
    if config.special_cards:
        parser.error(
            f"--preset {args.preset}: expected a variant without special cards (terminal play asks for pass/take "
            f"only), got special cards {list(config.special_cards)}; play them in the AEC env "
            "(nothanks_v0.env(preset='wildcards'))"
        )
    specs = args.opponents or [DEFAULT_OPPONENT] * (num_players - 1)
    if len(specs) != num_players - 1:
        parser.error(f"--opponents: expected {num_players - 1} specs for {num_players} players, got {len(specs)}")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    seat = args.seat if args.seat is not None else default_seat(seed, num_players)
    if not 0 <= seat < num_players:
        parser.error(f"--seat: expected 0..{num_players - 1}, got {seat}")
    others = [i for i in range(num_players) if i != seat]
    try:
        opponents = {i: load_policy(s, num_players=num_players, seed=seed + 1 + i) for i, s in zip(others, specs)}
    except (ValueError, OSError) as e:
        parser.error(f"--opponents: {e}")
    agents = [HUMAN] * num_players
    for i, s in zip(others, specs):
        agents[i] = s
    display = Display(out or sys.stdout, "plain" if args.plain else "auto")
    game = Game(config)
    game.reset(seed=seed)
    display.heading(f"No Thanks!  {num_players} players  preset {args.preset}  "
                    f"{config.num_deals} deal{'s' if config.num_deals > 1 else ''}  seed {seed}")  # fmt: skip
    for i in range(num_players):
        display.line(f"player_{i}: " + ("you" if i == seat else agents[i]))
    display.line(f"player_{game.current_seat} starts.   type h for help")
    save_path = args.save or default_record_path(args.preset, seed, datetime.now())
    play_game(game, seat, opponents, display=display, input_fn=input_fn, save_path=save_path, seed=seed, agents=agents)
    return 0


if __name__ == "__main__":
    sys.exit(main())
