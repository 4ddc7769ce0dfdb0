"""nothanks: the No Thanks! (Geschenkt) rules engine, PettingZoo environment and Gymnasium single-agent envs.

Create the environment the PettingZoo way: ``from nothanks_env import nothanks_v0; env = nothanks_v0.env()``.
(``env``/``raw_env`` are deliberately not re-exported here: that would shadow the ``nothanks_env.env`` module.)
One learner against fixed opponents, the Gymnasium way: ``gymnasium.make("nothanks/NoThanks-v0",
opponents=["heuristic", "random"])`` (:class:`SingleAgentEnv`), or ``gymnasium.make_vec(...,
vectorization_mode="vector_entry_point")`` (:class:`NoThanksVectorEnv`); importing this package registers the id.
"""

from nothanks_env import nothanks_v0
from nothanks_env.game import (
    PASS,
    TAKE,
    Deal,
    Game,
    GameConfig,
    IllegalActionError,
    RuleError,
    SeatView,
    score,
)
from nothanks_env.gym_env import SingleAgentEnv, register
from nothanks_env.gym_vector import NoThanksVectorEnv
from nothanks_env.presets import PRESETS, get_preset
from nothanks_env.records import GameRecord, replay

register()

__version__ = "0.1.0"

__all__ = [
    "PASS",
    "TAKE",
    "Deal",
    "Game",
    "GameConfig",
    "IllegalActionError",
    "RuleError",
    "SeatView",
    "score",
    "nothanks_v0",
    "PRESETS",
    "get_preset",
    "GameRecord",
    "replay",
    "SingleAgentEnv",
    "NoThanksVectorEnv",
]
