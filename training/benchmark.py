"""Alias of :mod:`training.bench.benchmark`, where this module moved.

``python -m training.benchmark`` runs it and ``import training.benchmark`` returns it:
the same module object, so attributes set here are set there.
"""

import importlib
import sys

if __name__ == "__main__":
    import runpy

    runpy.run_module("training.bench.benchmark", run_name="__main__", alter_sys=True)
else:
    sys.modules[__name__] = importlib.import_module("training.bench.benchmark")
