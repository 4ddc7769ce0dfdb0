"""Alias of :mod:`training.scale.rllib_config`, where this module moved.

``python -m training.rllib_config`` runs it and ``import training.rllib_config`` returns it:
the same module object, so attributes set here are set there.
"""

import importlib
import sys

if __name__ == "__main__":
    import runpy

    runpy.run_module("training.scale.rllib_config", run_name="__main__", alter_sys=True)
else:
    sys.modules[__name__] = importlib.import_module("training.scale.rllib_config")
