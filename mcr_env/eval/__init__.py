"""Evaluation of agents: the shared play loop and duplicate evaluation (same walls, every seat).

See :mod:`mcr_env.eval.duplicate` for the metrics and :mod:`mcr_env.eval.play` for the loop.
"""

from mcr_env.eval.agents import as_agent
from mcr_env.eval.duplicate import (
    AgentStats,
    Difference,
    DuplicateResult,
    difference,
    difference_ci,
    duplicate_evaluate,
    json_safe,
    make_walls,
    mean_ci,
    paired_difference,
    placement_points,
    results_table,
    seat_permutations,
    write_results,
)
from mcr_env.eval.play import play_games
from mcr_env.eval.seat_view import SeatView

__all__ = [
    "AgentStats",
    "Difference",
    "DuplicateResult",
    "SeatView",
    "as_agent",
    "difference",
    "difference_ci",
    "duplicate_evaluate",
    "mean_ci",
    "paired_difference",
    "placement_points",
    "json_safe",
    "make_walls",
    "play_games",
    "results_table",
    "seat_permutations",
    "write_results",
]
