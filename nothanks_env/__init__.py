"""nothanks: the No Thanks! (Geschenkt) rules engine and PettingZoo environment."""

from nothanks_env import nothanks_v0
from nothanks_env.env import env, raw_env
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
    "env",
    "raw_env",
    "nothanks_v0",
    "PRESETS",
    "get_preset",
    "GameRecord",
    "replay",
]
