"""nothanks: the No Thanks! (Geschenkt) rules engine and PettingZoo environment."""

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
]
