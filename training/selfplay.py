"""Alias of :mod:`training.learning.selfplay`, where this module moved.

``python -m training.selfplay`` runs it and ``import training.selfplay`` returns it:
the same module object, so attributes set here are set there.

Run as a command, it first makes SIGTERM stop the start-up as Ctrl-C does: importing torch and the package
takes a second or two, before the trainer installs its own handlers (which save a checkpoint and exit 0).
A stop in that window, or a second Ctrl-C later, prints one line and exits 128 + the signal's number (130 for
SIGINT, 143 for SIGTERM), with no traceback.
"""

import importlib
import sys

if __name__ == "__main__":
    import runpy
    import signal

    from training.cli import stop_as_ctrl_c

    stop_as_ctrl_c()  # also delivers again a stop that Python swallowed in an import lock's callback
    try:
        runpy.run_module("training.learning.selfplay", run_name="__main__", alter_sys=True)
    except KeyboardInterrupt as e:
        name = str(e) if str(e) in signal.Signals.__members__ else "SIGINT"  # Ctrl-C's carries no name
        print(
            f"{name}: stopped at once; the run's last complete checkpoint, if it has one, stays valid",
            file=sys.stderr,
        )
        sys.exit(128 + signal.Signals[name])  # the shell's code for that signal: 130 for SIGINT, 143 for SIGTERM
else:
    sys.modules[__name__] = importlib.import_module("training.learning.selfplay")
