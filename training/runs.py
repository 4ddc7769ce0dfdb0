"""Alias of :mod:`training.learning.runs`, where this module moved.

``python -m training.runs`` runs it and ``import training.runs`` returns it:
the same module object, so attributes set here are set there.
"""

import importlib
import sys

if __name__ == "__main__":
    import runpy

    runpy.run_module("training.learning.runs", run_name="__main__", alter_sys=True)
else:
    sys.modules[__name__] = importlib.import_module("training.learning.runs")
