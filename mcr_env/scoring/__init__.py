"""MCR scoring: the 81 fans (RULES.md section 6) and the exact scorer :func:`score_win`."""

from mcr_env.scoring.fans import (
    FAN_BY_NAME,
    FAN_IMPLIES,
    FAN_NAMES,
    FAN_POINTS,
    FAN_POINTS_BY_PROFILE,
    PROFILES,
    Fan,
)
from mcr_env.scoring.score import FanResult, ScoreResult, score_win

__all__ = [
    "FAN_BY_NAME",
    "FAN_IMPLIES",
    "FAN_NAMES",
    "FAN_POINTS",
    "FAN_POINTS_BY_PROFILE",
    "PROFILES",
    "Fan",
    "FanResult",
    "ScoreResult",
    "score_win",
]
