"""Batched MCR game engine (docs/rules.md §2-§4).

``MCREngine`` plays B games in lockstep over a struct-of-arrays ``GameState``; ``RulesConfig``
selects the wall layout, scoring profile, illegal-action handling and single hand vs match.
"""

from mcr_env.engine.config import RulesConfig
from mcr_env.engine.core import (
    HandResult,
    MCREngine,
    match_hand_layout,
    score_cache_info,
    table_points,
)
from mcr_env.engine.state import EndReason, GameState, MeldKind, Phase, fields_in_scope
from mcr_env.engine.walls import make_wall, seeded_walls, wall_from_judge, wall_to_judge

__all__ = [
    "score_cache_info",
    "EndReason",
    "GameState",
    "HandResult",
    "MCREngine",
    "MeldKind",
    "Phase",
    "RulesConfig",
    "fields_in_scope",
    "make_wall",
    "match_hand_layout",
    "seeded_walls",
    "table_points",
    "wall_from_judge",
    "wall_to_judge",
]
