"""What every command line shares: one way to refuse bad input.

Every entry point (``python -m training.evaluate``, ``tournament``, ``selfplay``, ``play``, ``replay``,
``benchmark``, ``gauntlet``, ``exploit``, ``distill``, ``serve``) reports bad input the same way: one line
``error: <argument>: expected <what>, got <value>`` on stderr, exit code 2, no usage block and no
traceback. :class:`Parser` does it for what argparse checks (types, choices, missing arguments); the
argument types below check ranges while parsing; :func:`refuse` does it for what a command checks itself.

Output paths (``--json``, ``--csv``, ``--md``, ``--png``, ``--save``, ``--out``) are checked by
:func:`check_outputs` before any game or training starts, so that nothing is played only to fail at the end,
and nothing already saved is replaced unless the command is given ``--overwrite``
(:func:`add_overwrite_argument`).

The evaluation commands (``evaluate``, ``gauntlet``, ``tournament``) and ``distill`` end on Ctrl-C or SIGTERM the
same way too: one line and the shell's exit code for the signal (:func:`exit_on_stop`).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

EXIT_BAD_INPUT = 2
"""Exit code of every command line for bad input (argparse's own)."""

REDELIVER_SECONDS = 0.05
"""How long after Python swallowed a stop :func:`stop_as_ctrl_c` sends it again."""


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


def exit_on_stop(main: Callable[[], Any]) -> NoReturn:
    """Run a command's ``main`` with SIGTERM stopping it as Ctrl-C does, then exit.

    A stop (SIGINT or SIGTERM) prints one line, ``SIGTERM: stopped; nothing more is played or written``, on stderr
    and exits 128 + the signal's number (130 for SIGINT, 143 for SIGTERM), with no traceback; clean-up on the way
    runs (:func:`training.evaluate.run_many` ends its worker processes). Otherwise it exits with ``main``'s return
    value when that is an int, else 0.

    Args:
        main: the command's entry point, called with no arguments (it reads ``sys.argv``).
    """
    import signal

    stop_as_ctrl_c()
    try:
        code = main()
    except KeyboardInterrupt as e:
        name = str(e) if str(e) in signal.Signals.__members__ else "SIGINT"  # Ctrl-C's carries no name
        for sig in (signal.SIGINT, signal.SIGTERM):  # a second stop ends the process at once, with no traceback
            signal.signal(sig, signal.SIG_DFL)
        try:
            print(f"{name}: stopped; nothing more is played or written", file=sys.stderr)
        except OSError:  # stderr gone (a pipe whose reader the same Ctrl-C stopped)
            pass
        sys.exit(128 + signal.Signals[name])
    sys.exit(code if isinstance(code, int) else 0)


def stop_as_ctrl_c() -> None:
    """Make SIGTERM raise ``KeyboardInterrupt("SIGTERM")``, as Ctrl-C raises ``KeyboardInterrupt``, and see that
    neither stop is lost.

    Python ignores an exception raised inside a weakref callback or a ``__del__`` (it prints ``Exception ignored
    in: ...`` and goes on). A stop that landed while an import lock's callback ran (``_get_module_lock.<locals>.cb``,
    during the second or two a command spends importing torch) was swallowed that way, and the command ran on as
    if never stopped. :data:`sys.unraisablehook` now sends such a stop again, from a thread,
    :data:`REDELIVER_SECONDS` later, so it is raised at the next point where it can be; other unraisable exceptions
    go to the previous hook.
    """
    import signal
    import threading

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    def redeliver(unraisable: Any) -> None:
        exc = unraisable.exc_value
        if not isinstance(exc, KeyboardInterrupt):
            previous(unraisable)
            return
        name = str(exc) if str(exc) in signal.Signals.__members__ else "SIGINT"  # Ctrl-C's carries no name
        # Not signal.raise_signal here: it runs the handler at once, inside this hook, where the raise is ignored
        # again. A thread sends it a moment later, when the main thread is back where it can raise (if it lands in
        # a callback again, this hook sends it again).
        resend = threading.Timer(REDELIVER_SECONDS, os.kill, (os.getpid(), signal.Signals[name]))
        resend.daemon = True
        resend.start()

    previous = sys.unraisablehook
    signal.signal(signal.SIGTERM, stop)
    sys.unraisablehook = redeliver


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


MAX_WORKERS = 256
"""The most worker processes any command line's ``--workers`` takes."""


def workers_arg() -> Callable[[str], int]:
    """The argparse ``type`` of every ``--workers``: an int in ``1..MAX_WORKERS``."""
    return int_in(1, MAX_WORKERS)


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


def add_overwrite_argument(
    parser: argparse.ArgumentParser, help: str = "replace output files that already exist (refused otherwise)"
) -> None:
    """Add ``--overwrite``: let the command replace output files that already exist (refused otherwise).

    Args:
        parser: the command's parser.
        help: the option's help, for a command where it covers only some of the outputs.
    """
    parser.add_argument("--overwrite", action="store_true", help=help)


def check_outputs(
    outputs: Mapping[str, str | None], *, overwrite: bool, files_in: Sequence[str] = (), whole_folder: bool = False
) -> None:
    """Refuse, before any long work, output paths that could not be written or would replace a saved file.

    Missing parent folders are fine when they can be created (the commands create them when writing).

    Args:
        outputs: flag -> the path as typed on the command line (None: that output was not asked for). Each is a
            file path, or, with ``files_in``, a folder that receives the files named there.
        overwrite: whether existing output files may be replaced (the command's ``--overwrite``).
        files_in: the names of the files each folder of ``outputs`` receives (empty: ``outputs`` are files).
        whole_folder: with ``files_in``, each folder is written whole and replaces an existing one (a checkpoint
            directory, written aside and renamed): a folder that exists is refused without ``overwrite``, and
            with it too if it holds anything but ``files_in`` (that would be lost).

    Raises:
        ValueError: ``"<flag>: expected ..., got ..."`` for an empty or blank path; a file path that is a
            directory, or a folder path that is a file or the filesystem root; a file that exists (a folder
            that holds one of ``files_in``, or with ``whole_folder`` any folder) without ``overwrite``; with
            ``whole_folder``, a folder that holds other files; a parent that is a file, or a folder that
            cannot be written to; two flags given the same file.
    """
    seen: dict[Path, str] = {}
    for flag, text in outputs.items():
        if text is None:
            continue
        kind = "folder" if files_in else "file"
        if not text.strip():
            raise ValueError(f"{flag}: expected a {kind} path, got {text!r} (an empty path)")
        path = Path(text)
        if files_in:
            _check_folder(flag, text, path, files_in, overwrite, whole_folder)
            continue
        if os.path.isdir(path):
            raise ValueError(f"{flag}: expected a file path, got the directory {text!r}")
        if os.path.lexists(path) and not overwrite:
            raise ValueError(
                f"{flag}: expected a path that does not exist yet (pass --overwrite to replace it), got {text!r} "
                "(an existing file)"
            )
        _check_writable(flag, text, path.parent)
        key = path.resolve()
        if key in seen:
            raise ValueError(f"{flag}: expected a path other than {seen[key]}'s, got {text!r} (the same file)")
        seen[key] = flag


def _check_folder(flag: str, text: str, folder: Path, names: Sequence[str], overwrite: bool, whole: bool) -> None:
    """:func:`check_outputs` for a folder receiving the files ``names`` (``whole``: replacing the folder whole)."""
    if os.path.lexists(folder) and not os.path.isdir(folder):
        raise ValueError(f"{flag}: expected a directory, got the file {text!r}")
    if folder.resolve() == Path(folder.resolve().anchor):
        raise ValueError(f"{flag}: expected a folder other than the filesystem root, got {text!r}")
    if whole:  # not inside a folder of the same kind (a checkpoint in a checkpoint): replacing that would take it
        for parent in folder.resolve().parents:
            held = [name for name in names if os.path.isfile(parent / name)]
            if len(held) >= min(2, len(names)):
                raise ValueError(
                    f"{flag}: expected a folder outside other folders of its kind (each is written and replaced "
                    f"whole), got {text!r}, inside {str(parent)!r}, which holds {', '.join(held)}"
                )
    if whole and os.path.isdir(folder):
        if not overwrite:
            raise ValueError(
                f"{flag}: expected a folder that does not exist yet (pass --overwrite to replace it), got {text!r} "
                "(an existing folder)"
            )
        others = sorted(set(os.listdir(folder)) - set(names))
        if others:
            shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
            raise ValueError(
                f"{flag}: expected a folder to replace that holds only {', '.join(names)} (--overwrite replaces the "
                f"folder whole), got {text!r}, which also holds {shown}"
            )
        _check_writable(flag, text, folder.parent)  # written beside it, then renamed over it
        return
    inside = [name for name in names if os.path.isdir(folder / name)]
    if inside:
        raise ValueError(
            f"{flag}: expected a folder where {inside[0]} can be written, got {text!r}, where it is a directory"
        )
    present = [name for name in names if os.path.lexists(folder / name)]
    if present and not overwrite:
        raise ValueError(
            f"{flag}: expected a folder without {', '.join(names)} (pass --overwrite to replace them), got {text!r}, "
            f"which holds {', '.join(present)}"
        )
    _check_writable(flag, text, folder.parent if whole else folder)


def _check_writable(flag: str, text: str, folder: Path) -> None:
    """Refuse ``text`` unless ``folder`` is a writable directory, or can be created in one."""
    existing = folder
    while not os.path.lexists(existing):  # the nearest folder that exists: the command creates the rest
        existing = existing.parent
    if not os.path.isdir(existing):
        raise ValueError(
            f"{flag}: expected a path whose folders can be created, got {text!r} ({str(existing)!r} is not a folder)"
        )
    if not _can_write(existing):
        raise ValueError(
            f"{flag}: expected a path in a writable folder, got {text!r} ({str(existing)!r} is not writable)"
        )


def _can_write(folder: Path) -> bool:
    """Whether a file can be created in ``folder``: ``os.access``, then a real try (root passes ``os.access``
    even where nothing can be created, e.g. ``/proc``); the trial file is removed at once."""
    if not os.access(folder, os.W_OK | os.X_OK):
        return False
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".write-check-"):
            return True
    except OSError:
        return False
