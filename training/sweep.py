"""Alias of :mod:`training.scale.sweep`, where this module moved.

``python -m training.sweep`` runs it and ``import training.sweep`` returns it:
the same module object, so attributes set here are set there.
"""

import importlib
import sys

if __name__ == "__main__":
    import runpy

    runpy.run_module("training.scale.sweep", run_name="__main__", alter_sys=True)
else:
    sys.modules[__name__] = importlib.import_module("training.scale.sweep")
