"""What every command line shares: one way to refuse bad input.

Every entry point (``python -m training.evaluate``, ``tournament``, ``selfplay``, ``play``, ``replay``,
``benchmark``, ``gauntlet``, ``exploit``, ``distill``, ``serve``) reports bad input the same way: one line
``error: <argument>: expected <what>, got <value>`` on stderr, exit code 2, no usage block and no
traceback. :class:`Parser` does it for what argparse checks (types, choices, missing arguments); the
argument types below check ranges while parsing; :func:`refuse` does it for what a command checks itself.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any, NoReturn

EXIT_BAD_INPUT = 2
"""Exit code of every command line for bad input (argparse's own)."""


class Parser(argparse.ArgumentParser):
    """argparse with bad input reported as one ``error:`` line and exit code 2 (no usage block).

    Sub-parsers made by :meth:`add_subparsers` are of this class too.
    """

    def error(self, message: str) -> NoReturn:
        refuse(message)


class DefaultsFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` with ``(default: X)`` after each option that has a default worth showing: not after a
    required option, a flag, or an option whose default is None or empty (nothing to show)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.required or action.nargs == 0 or action.default in (None, [], (), argparse.SUPPRESS):
            return action.help
        return super()._get_help_string(action)


def refuse(message: object) -> NoReturn:
    """Print ``error: <message>`` as one line on stderr and exit with code 2.

    Args:
        message: what was wrong; an exception is printed by its message. Newlines become ``"; "``.

    Raises:
        SystemExit: always, with code 2.
    """
    text = "; ".join(line.strip() for line in str(message).splitlines() if line.strip())
    print(f"error: {text}", file=sys.stderr)
    raise SystemExit(EXIT_BAD_INPUT)


def int_in(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type`` for an int in ``low..high`` (either bound may be None: unbounded).

    The message names the expected range and the value received; argparse adds the argument's name.
    """
    if low is not None and high is not None:
        expected = f"an int in {low}..{high}"
    elif low is not None:
        expected = f"an int >= {low}"
    elif high is not None:
        expected = f"an int <= {high}"
    else:
        expected = "an int"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"expected {expected}, got {value}")
        return value

    parse.__name__ = "int"
    return parse


def _finite_float(text: str, *, zero_ok: bool) -> float:
    """``text`` as a finite float > 0 (or >= 0 with ``zero_ok``); an ``ArgumentTypeError`` saying which."""
    bound = ">= 0" if zero_ok else "> 0"
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number {bound}, got {text!r}") from None
    if not (0 <= value if zero_ok else 0 < value) or not value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a finite number {bound}, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """An argparse ``type`` for a finite float > 0 (seconds, minutes)."""
    return _finite_float(text, zero_ok=False)


def nonnegative_float(text: str) -> float:
    """An argparse ``type`` for a finite float >= 0 (a tolerance, a gain)."""
    return _finite_float(text, zero_ok=True)


def load_spec(load: Callable[..., Any], flag: str, spec: str, **kwargs: Any) -> Any:
    """``load(spec, **kwargs)`` (a policy loader), with any failure re-raised as ``ValueError("<flag>: ...")``.

    Raises:
        ValueError: naming ``flag``, for a spec that does not load (unknown name, missing path, corrupted
            checkpoint, wrong player count).
    """
    try:
        return load(spec, **kwargs)
    except (ValueError, OSError) as e:
        raise ValueError(f"{flag}: {e}") from e
