"""Alias of :mod:`training.scale.ray_backend`, where this module moved.

``python -m training.ray_backend`` runs it and ``import training.ray_backend`` returns it:
the same module object, so attributes set here are set there.
"""

import importlib
import sys

if __name__ == "__main__":
    import runpy

    runpy.run_module("training.scale.ray_backend", run_name="__main__", alter_sys=True)
else:
    sys.modules[__name__] = importlib.import_module("training.scale.ray_backend")
