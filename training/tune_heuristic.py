"""Alias of :mod:`training.evaluation.tune_heuristic`, where this module moved.

``python -m training.tune_heuristic`` runs it and ``import training.tune_heuristic`` returns it:
the same module object, so attributes set here are set there.
"""

import importlib
import sys

if __name__ == "__main__":
    import runpy

    runpy.run_module("training.evaluation.tune_heuristic", run_name="__main__", alter_sys=True)
else:
    sys.modules[__name__] = importlib.import_module("training.evaluation.tune_heuristic")
