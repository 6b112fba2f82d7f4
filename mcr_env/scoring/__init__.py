"""MCR scoring: the 81 fans (docs/rules.md §6), the exact scorer :func:`score_win`, hand
analysis (shanten, waits) and settlement (docs/rules.md §3)."""

from mcr_env.scoring.fans import (
    FAN_BY_NAME,
    FAN_IMPLIES,
    FAN_IMPLIES_BY_PROFILE,
    FAN_NAMES,
    FAN_POINTS,
    FAN_POINTS_BY_PROFILE,
    PROFILES,
    Fan,
)
from mcr_env.scoring.score import FanResult, NotAWinError, ScoreResult, score_win
from mcr_env.scoring.settlement import penalty, settle, settle_batch
from mcr_env.scoring.shanten import (
    complete_mask,
    honors_knitted_shanten,
    is_complete,
    knitted_straight_shanten,
    regular_shanten,
    seven_pairs_shanten,
    shanten,
    shanten_batch,
    thirteen_orphans_shanten,
    winning_tiles,
)

__all__ = [
    "FAN_BY_NAME",
    "FAN_IMPLIES",
    "FAN_IMPLIES_BY_PROFILE",
    "FAN_NAMES",
    "FAN_POINTS",
    "FAN_POINTS_BY_PROFILE",
    "PROFILES",
    "Fan",
    "FanResult",
    "NotAWinError",
    "ScoreResult",
    "complete_mask",
    "honors_knitted_shanten",
    "is_complete",
    "knitted_straight_shanten",
    "penalty",
    "regular_shanten",
    "score_win",
    "settle",
    "settle_batch",
    "seven_pairs_shanten",
    "shanten",
    "shanten_batch",
    "thirteen_orphans_shanten",
    "winning_tiles",
]
