"""Alias of :mod:`training.learning.vec_env`, where this module moved.

``python -m training.vec_env`` runs it and ``import training.vec_env`` returns it:
the same module object, so attributes set here are set there.
"""

import importlib
import sys

if __name__ == "__main__":
    import runpy

    runpy.run_module("training.learning.vec_env", run_name="__main__", alter_sys=True)
else:
    sys.modules[__name__] = importlib.import_module("training.learning.vec_env")
