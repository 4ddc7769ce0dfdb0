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
ratio      take iff pot >= r x cost                      :class:`RatioPolicy`
blocker    run-aware blocking and milking                :class:`BlockerPolicy`
utility    position utility, milks unless tempted away   :class:`UtilityPolicy`
extort     chip pressure; lets cards go round            :class:`ExtortPolicy`
stochastic noisy threshold (sigmoid)                     :class:`StochasticPolicy`
========== ============================================= ==============================================

Each class documents its exact rule; the last five, in :mod:`.public`, are our versions of rule families
found in public bot collections (the gauntlet's opponents). :data:`BASELINES` maps the names to the classes;
command lines build them through :func:`training.specs.load_policy` (e.g. ``threshold:T=5``, ``search:iters=64``).
"""

from __future__ import annotations

from nothanks_env.baselines.heuristic import HeuristicParams, HeuristicPolicy
from nothanks_env.baselines.public import BlockerPolicy, ExtortPolicy, RatioPolicy, StochasticPolicy, UtilityPolicy
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
    "ratio": RatioPolicy,
    "blocker": BlockerPolicy,
    "utility": UtilityPolicy,
    "extort": ExtortPolicy,
    "stochastic": StochasticPolicy,
}
"""Baseline name -> policy class; every class builds with keyword arguments only."""

__all__ = [
    "BASELINES",
    "AlwaysTakePolicy",
    "BlockerPolicy",
    "ExtortPolicy",
    "HeuristicParams",
    "HeuristicPolicy",
    "NeverTakePolicy",
    "RandomPolicy",
    "RatioPolicy",
    "SearchPolicy",
    "StochasticPolicy",
    "ThresholdPolicy",
    "UtilityPolicy",
]
