"""Policy specs for the command lines: re-exported from :mod:`nothanks_env.specs`, where the parser lives.

The parser moved to the env package so that :class:`nothanks_env.SingleAgentEnv` and the vector env take
opponents as specs without importing ``training``. ``from training.specs import load_policy`` keeps working.
"""

from nothanks_env.specs import POLICY_PARAMS, list_baselines, load_policy, spec_param

__all__ = ["POLICY_PARAMS", "list_baselines", "load_policy", "spec_param"]
