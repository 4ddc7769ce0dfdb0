"""Step through a recorded game forwards and backwards in the terminal.

Usage::

    python -m training.replay games/nothanks__standard__7__20250101-120000.json
    python -m training.replay game.json --seat 2 --policy heuristic
    python -m training.replay game.json --full --print-all | less

Step ``k`` is the table after the first ``k`` recorded actions (step 0: before the first decision). The
table is shown from one seat's view, which never shows the cards removed face down, the order of the deck
or chips the variant hides, or in the full view, which shows everything. The default is the seat of the
human if the record names one (agent ``"human"``), else the full view. That seat is called ``player_N (you)``,
as :mod:`training.play` called it.

With ``--policy SPEC`` (:mod:`training.specs`) each step also shows that policy's probabilities of PASS
and TAKE for the seat to act, computed from that seat's own view (with special cards, ``--preset
wildcards``: its most likely actions, bids, drops and choices included, with their probabilities; the
policy must play special cards). A policy that has
``action_probabilities(view: SeatView) -> np.ndarray`` (shape (2,), float, [P(pass), P(take)]) is asked
for them; for any other policy they are estimated from ``--samples`` draws of its action on the same view,
which is exact (probability 1) for deterministic policies such as the scripted baselines.

Keys: ``n`` or Enter = next, ``b`` = back, ``g N`` = go to step N, ``s N`` = view of seat N, ``f`` = full
view, ``h`` = help, ``q`` = quit. ``--print-all`` prints every step, from step 0, and exits (for pipes and tests;
``--step`` is refused with it). ``--samples`` without ``--policy`` is refused (there is nothing to estimate).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import numpy as np

from nothanks_env.game import Game, SeatView, describe_action
from nothanks_env.policy import Policy, PolicyActionError, legal_action, whole_actions
from nothanks_env.records import GameRecord, RecordError, replay
from nothanks_env.vector import BatchView
from training.people.tui import (
    HUMAN,
    YOU,
    Display,
    InputFn,
    deal_over_title,
    deal_summary,
    describe,
    final_results,
    policy_name,
    seat_names,
)

DEFAULT_SAMPLES = 32

HELP = """\
n, Enter  next step          b  back one step        g N  go to step N
s N       view of seat N     f  full view            q    quit"""


def game_at(record: GameRecord, step: int) -> Game:
    """The game after the first ``step`` recorded actions.

    Raises:
        ValueError: if ``step`` is not in 0..len(record.actions).
        RecordError: if the record does not replay.
    """
    if not 0 <= step <= len(record.actions):
        raise ValueError(f"step: expected 0..{len(record.actions)}, got {step}")
    return replay(dataclasses.replace(record, actions=record.actions[:step], penalties=None))


def _repeat(batch: BatchView, n: int) -> BatchView:
    """``n`` copies of a batch of one (every array field repeated along the batch axis)."""
    arrays = {
        f.name: np.repeat(getattr(batch, f.name), n, axis=0)
        for f in dataclasses.fields(batch)
        if isinstance(getattr(batch, f.name), np.ndarray)
    }
    return dataclasses.replace(batch, **arrays, _obs_cache={})


def special_probabilities(policy: Policy, view: SeatView, samples: int = DEFAULT_SAMPLES) -> tuple[np.ndarray, str]:
    """:func:`action_probabilities` for a config with special cards: float64 (config.num_actions,), one
    probability per action id (:data:`nothanks_env.game.ACTION_PIECES`), summing to 1.

    Raises:
        ValueError: if the policy's own probabilities do not have that shape, are negative or do not sum to 1, or
            a drawn action is no whole action id the phase allows (:func:`~nothanks_env.policy.legal_action`'s
            :class:`~nothanks_env.policy.PolicyActionError`, naming the policy).
    """
    k = view.config.num_actions
    own = getattr(policy, "action_probabilities", None)
    if callable(own):
        p = np.asarray(own(view), dtype=np.float64)
        if p.shape != (k,) or (p < 0).any() or not np.isclose(p.sum(), 1.0):
            raise ValueError(f"action_probabilities: expected {k} probabilities summing to 1, got shape {p.shape}")
        return p, "from the policy"
    counts = np.bincount([legal_action(policy, view, policy.act(view)) for _ in range(samples)], minlength=k)
    return counts / samples, f"estimated from {samples} draws"


def probability_line(policy: Policy, view: SeatView, samples: int = DEFAULT_SAMPLES, top: int = 4) -> str:
    """One line of the policy's probabilities for the seat to act: P(pass) and P(take), or with special
    cards its ``top`` most likely actions by name (``P(bid 0) = 0.90  P(drop) = 0.10``)."""
    if not view.config.special_cards:
        p, source = action_probabilities(policy, view, samples)
        return f"{policy_name(policy)}: P(pass) = {p[0]:.2f}   P(take) = {p[1]:.2f}   ({source})"
    p, source = special_probabilities(policy, view, samples)
    best = [int(a) for a in np.argsort(-p, kind="stable")[:top] if p[a] > 0]
    shown = "   ".join(f"P({describe_action(view.config, a)}) = {p[a]:.2f}" for a in best)
    return f"{policy_name(policy)}: {shown}   ({source})"


def action_probabilities(policy: Policy, view: SeatView, samples: int = DEFAULT_SAMPLES) -> tuple[np.ndarray, str]:
    """The policy's probabilities of PASS and TAKE for the seat to act, and where they come from.

    Args:
        policy: any policy; its own ``action_probabilities(view)`` is used when it has one.
        view: the view of the seat to act.
        samples: draws of the policy's action used to estimate them otherwise.

    Returns:
        ``(p, source)``: p is float64, shape (2,), [P(pass), P(take)], summing to 1; source is a short note.

    Raises:
        ValueError: if the policy's own probabilities are not 2 non-negative numbers summing to 1, or its drawn
            actions are not whole, legal action ids (:class:`~nothanks_env.policy.PolicyActionError`).
    """
    own = getattr(policy, "action_probabilities", None)
    if callable(own):
        p = np.asarray(own(view), dtype=np.float64)
        if p.shape != (2,) or (p < 0).any() or not np.isclose(p.sum(), 1.0):
            raise ValueError(f"action_probabilities: expected [P(pass), P(take)] summing to 1, got {p!r}")
        return p, "from the policy"
    batch = BatchView.from_seat_view(view)
    actions = whole_actions(policy, policy.act_batch(_repeat(batch, samples)), (samples,), 2)
    illegal = batch.action_mask()[0][actions] == 0
    if illegal.any():
        raise PolicyActionError(
            f"policy {policy_name(policy)}: expected legal actions (PASS=0 needs a chip, TAKE=1), got PASS in "
            f"{int(illegal.sum())} of {samples} draws with {int(batch.own_chips[0])} chips"
        )
    counts = np.bincount(actions, minlength=2)
    return counts / samples, f"estimated from {samples} draws"


def show_step(
    display: Display,
    record: GameRecord,
    step: int,
    seat: int | None,
    policy: Policy | None = None,
    samples: int = DEFAULT_SAMPLES,
) -> None:
    """Print step ``step`` of ``record`` from ``seat``'s view (None = full view)."""
    game = game_at(record, step)
    cfg = record.config
    names = seat_names(cfg.num_players, record.agents)
    total = len(record.actions)
    view_label = "full view" if seat is None else f"view of player_{seat}"
    display.heading(f"step {step}/{total}   {view_label}")
    if step == 0:
        display.line("start of the game")
    else:
        last = game.history[step - 1]
        display.line("last: " + describe(last, f"player_{last.seat}", cfg))
        if last.deal_index != game.deal_index or game.is_over:
            title = deal_over_title(last.deal_index, cfg.num_deals)  # play's words for the same moment
            display.grid(*deal_summary(game, last.deal_index, names), title=title)
    # the legend names the seat shown: "you" for the human's seat, as play said; another seat by its name
    human = seat is not None and record.agents is not None and record.agents[seat] == HUMAN
    viewer = "" if seat is None else (YOU if human else names[seat])
    display.table(game, seat=seat, names=names, viewer=viewer)
    if game.is_over:
        header, rows, winners = final_results(game, names)
        display.grid(header, rows, title="final results")
        return
    acting = game.current_seat
    played = f"   recorded: {describe_action(record.config, record.actions[step])}" if step < total else (
        "   (record ends here)")  # fmt: skip
    display.line(f"to act: player_{acting}{played}")
    if policy is not None:
        display.line(probability_line(policy, game.seat_view(acting), samples))


def print_all(
    record: GameRecord, display: Display, seat: int | None, policy: Policy | None = None, samples: int = DEFAULT_SAMPLES
) -> None:
    """Print every step, 0..len(record.actions)."""
    for step in range(len(record.actions) + 1):
        show_step(display, record, step, seat, policy, samples)


_COMMAND = re.compile(r"^([a-z]+)\s*(-?\d+)?$")


def replay_loop(
    record: GameRecord,
    *,
    display: Display,
    input_fn: InputFn,
    seat: int | None,
    policy: Policy | None = None,
    samples: int = DEFAULT_SAMPLES,
    start: int = 0,
) -> None:
    """Interactive stepping (keys in the module docstring) until ``q``, end of input or Ctrl-C."""
    total = len(record.actions)
    n = record.config.num_players
    step = min(max(start, 0), total)
    show_step(display, record, step, seat, policy, samples)
    while True:
        try:
            text = input_fn("[n]ext [b]ack [g N] [s N] [f]ull [h]elp [q]uit: ").strip().lower()
        except (EOFError, KeyboardInterrupt):
            display.line("")
            return
        m = _COMMAND.match(text)
        key, arg = (m.group(1), m.group(2)) if m else (text, None)
        problem = None
        if text == "" or key in ("n", "next"):
            problem = "already at the last step" if step == total else None
            step = min(step + 1, total)
        elif key in ("b", "back"):
            problem = "already at the first step" if step == 0 else None
            step = max(step - 1, 0)
        elif key in ("g", "go"):
            if arg is None or not 0 <= int(arg) <= total:
                problem = f"go to which step? type g N with N in 0..{total}"
            else:
                step = int(arg)
        elif key in ("s", "seat"):
            if arg is None or not 0 <= int(arg) < n:
                problem = f"which seat? type s N with N in 0..{n - 1}"
            else:
                seat = int(arg)
        elif key in ("f", "full"):
            seat = None
        elif key in ("h", "help", "?"):
            display.line(HELP)
            continue
        elif key in ("q", "quit"):
            return
        else:
            problem = f"unknown command {text[:20]!r}: type h for help"
        if problem:
            display.line(problem, style="red")
            continue
        show_step(display, record, step, seat, policy, samples)


def record_file_error(path: Path, error: OSError) -> str:
    """The ``error:`` message for a record file that could not be read: what was expected (a JSON record file) and
    what ``path`` is instead (no such file, a directory, or a file that cannot be read, with the OS's reason)."""
    if isinstance(error, (FileNotFoundError, NotADirectoryError)):  # NotADirectory: a file where a folder should be
        return f"record: expected an existing game record (a JSON file), got {path} (no such file)"
    if isinstance(error, IsADirectoryError):
        return f"record: expected a game record (a JSON file), got {path} (a directory)"
    reason = error.strerror or str(error)
    return f"record: expected a readable game record (a JSON file), got {path} (unreadable: {reason})"


def build_parser() -> argparse.ArgumentParser:
    from training.cli import Parser, int_in

    p = Parser(
        prog="python -m training.replay",
        description="Step through a recorded No Thanks! game forwards and backwards.",
        epilog="keys: n/Enter next, b back, g N go to step, s N seat view, f full view, h help, q quit",
    )
    p.add_argument("record", type=Path, help="a game record (JSON), e.g. saved by training.play")
    view = p.add_mutually_exclusive_group()
    view.add_argument("--seat", type=int_in(0), help="show this seat's view (default: the human's seat if recorded)")
    view.add_argument("--full", action="store_true", help="show everything, hidden information included")
    p.add_argument("--policy", metavar="SPEC", help="show this policy's action probabilities for the seat to act")
    # None defaults: a --samples without --policy, or a --step with --print-all, is refused only when typed
    p.add_argument("--samples", type=int_in(1, 1_000_000), default=None, help="with --policy: draws per step to "
                   f"estimate its probabilities (default {DEFAULT_SAMPLES})")  # fmt: skip
    p.add_argument("--step", type=int_in(0), default=None, help="step to start at (default 0; not with --print-all)")
    p.add_argument("--print-all", action="store_true", help="print every step, from step 0, and exit")
    p.add_argument("--plain", action="store_true", help="plain text even on a terminal")
    return p


def main(argv: Sequence[str] | None = None, input_fn: InputFn = input, out: TextIO | None = None) -> int:
    """Entry point; returns the exit status. Bad arguments or an unreadable record exit with 2."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.samples is not None and args.policy is None:  # it was silently ignored
        parser.error(
            f"--samples: expected with --policy (it sets the draws that estimate that policy's probabilities), got "
            f"--samples {args.samples} without --policy"
        )
    if args.step is not None and args.print_all:  # it was silently ignored: every step was printed from step 0
        parser.error(
            f"--step: expected without --print-all (which prints every step, from step 0), got --step {args.step} "
            "with --print-all"
        )
    samples = DEFAULT_SAMPLES if args.samples is None else args.samples
    start = 0 if args.step is None else args.step
    try:
        record = GameRecord.load(args.record)
        replay(record)  # check that it replays to its recorded result before showing anything
    except OSError as e:  # the OS's words ("[Errno 21] Is a directory: 'x'") named neither what was expected
        parser.error(record_file_error(args.record, e))
    except ValueError as e:  # RecordError is a ValueError
        # this line names the record: a fault of the whole record says so once ("record: cannot replay X: expected
        # valid JSON", not "...: record: expected valid JSON")
        parser.error(f"record: cannot replay {args.record}: {e.detail if isinstance(e, RecordError) else e}")
    n = record.config.num_players
    if args.seat is not None and not 0 <= args.seat < n:
        parser.error(f"--seat: expected 0..{n - 1}, got {args.seat}")
    if start > len(record.actions):
        parser.error(f"--step: expected 0..{len(record.actions)}, got {start}")
    seat: int | None = args.seat
    if seat is None and not args.full and record.agents is not None and HUMAN in record.agents:
        seat = record.agents.index(HUMAN)
    policy = None
    if args.policy is not None:  # "" is refused by load_policy, not taken for no policy
        from training.specs import load_policy

        try:
            policy = load_policy(args.policy, seed=0, table=record.config)
        except (ValueError, OSError) as e:
            parser.error(f"--policy: {e}")
        from training.evaluation.evaluate import check_plays

        try:  # the record's rules are its own: no preset to suggest
            check_plays([policy], record.config, hint=None, label="--policy")
        except ValueError as e:
            parser.error(str(e))
    display = Display(out or sys.stdout, "plain" if args.plain else "auto")
    if args.print_all:
        try:
            print_all(record, display, seat, policy, samples)
        except BrokenPipeError:  # piped into head: stop quietly (the Python docs' recipe, "Note on SIGPIPE")
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1
    else:
        replay_loop(record, display=display, input_fn=input_fn, seat=seat, policy=policy, samples=samples,
                    start=start)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
