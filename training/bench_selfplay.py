"""Alias of :mod:`training.bench.bench_selfplay`, where this module moved.

``python -m training.bench_selfplay`` runs it and ``import training.bench_selfplay`` returns it:
the same module object, so attributes set here are set there.
"""

import importlib
import sys

if __name__ == "__main__":
    import runpy

    runpy.run_module("training.bench.bench_selfplay", run_name="__main__", alter_sys=True)
else:
    sys.modules[__name__] = importlib.import_module("training.bench.bench_selfplay")
