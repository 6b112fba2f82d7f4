"""Test helpers: a seeded random winning-hand generator and the PyMahjongGB oracle adapter.

Used by the tests, ``scripts/bench_scoring.py`` and ``scripts/diff_scoring.py``; never by the
scorer itself (scoring stays free of RNG).
"""

from mcr_env.testing.hands import FORMS, WinningHand, random_winning_hand, with_promoted_kongs
from mcr_env.testing.oracle import pymahjonggb_available, pymahjonggb_score

__all__ = [
    "FORMS",
    "WinningHand",
    "pymahjonggb_available",
    "pymahjonggb_score",
    "random_winning_hand",
    "with_promoted_kongs",
]
