"""Alias of :mod:`training.learning.distill`, where this module moved.

``python -m training.distill`` runs it and ``import training.distill`` returns it:
the same module object, so attributes set here are set there.
"""

import importlib
import sys

if __name__ == "__main__":
    import runpy

    runpy.run_module("training.learning.distill", run_name="__main__", alter_sys=True)
else:
    sys.modules[__name__] = importlib.import_module("training.learning.distill")
