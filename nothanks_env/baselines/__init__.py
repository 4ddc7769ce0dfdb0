"""Scripted baseline policies behind the one :class:`~nothanks_env.policy.Policy` interface.

========== ============================================= ==============================================
name       rule                                          class
========== ============================================= ==============================================
random     uniform over the legal actions                :class:`RandomPolicy`
never-take "No thanks!" until forced                     :class:`NeverTakePolicy`
always-take take every card                              :class:`AlwaysTakePolicy`
threshold  take iff Δ(c) − pot ≤ T                       :class:`ThresholdPolicy`
heuristic  run-aware threshold with milking              :class:`HeuristicPolicy`
search     determinized Monte-Carlo over the heuristic   :class:`SearchPolicy`
========== ============================================= ==============================================

Each class documents its exact rule. :data:`BASELINES` maps the names to the classes; command lines
build them through :func:`training.specs.load_policy` (e.g. ``threshold:T=5``, ``search:iters=64``).
"""

from __future__ import annotations

from nothanks_env.baselines.heuristic import HeuristicParams, HeuristicPolicy
from nothanks_env.baselines.search import SearchPolicy
from nothanks_env.baselines.simple import AlwaysTakePolicy, NeverTakePolicy, RandomPolicy, ThresholdPolicy
from nothanks_env.policy import Policy

BASELINES: dict[str, type[Policy]] = {
    "random": RandomPolicy,
    "never-take": NeverTakePolicy,
    "always-take": AlwaysTakePolicy,
    "threshold": ThresholdPolicy,
    "heuristic": HeuristicPolicy,
    "search": SearchPolicy,
}
"""Baseline name -> policy class; every class builds with keyword arguments only."""

__all__ = [
    "BASELINES",
    "AlwaysTakePolicy",
    "HeuristicParams",
    "HeuristicPolicy",
    "NeverTakePolicy",
    "RandomPolicy",
    "SearchPolicy",
    "ThresholdPolicy",
]
