"""nothanks: the No Thanks! (Geschenkt) rules engine and PettingZoo environment.

Create the environment the PettingZoo way: ``from nothanks_env import nothanks_v0; env = nothanks_v0.env()``.
(``env``/``raw_env`` are deliberately not re-exported here: that would shadow the ``nothanks_env.env`` module.)
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
from nothanks_env.presets import PRESETS, get_preset
from nothanks_env.records import GameRecord, replay

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
]
