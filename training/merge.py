"""Alias of :mod:`training.learning.merge`.

``python -m training.merge`` runs it and ``import training.merge`` returns it:
the same module object, so attributes set here are set there.
"""

import importlib
import sys

if __name__ == "__main__":
    import runpy

    runpy.run_module("training.learning.merge", run_name="__main__", alter_sys=True)
else:
    sys.modules[__name__] = importlib.import_module("training.learning.merge")
