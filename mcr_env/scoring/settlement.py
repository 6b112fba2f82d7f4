"""Settlement of a hand: what each seat wins or pays (docs/rules.md §3).

With ``x`` the winner's total points (flowers included):

* win on a discard: the discarder pays ``8 + x``, each other loser pays 8; winner ``+24 + x``;
* self-drawn win: each of the three others pays ``8 + x``; winner ``+24 + 3x``;
* Robbing the Kong: a win on a discard by the kong declarer (pass the declarer as discarder);
* exhaustive draw: nobody pays.

Every settlement sums to zero. The research option "false Hu costs 30" is :func:`penalty`.
All amounts are points, ``int32``, indexed by seat 0..3 (East, South, West, North of the hand).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mcr_env._checks import check_int

__all__ = [
    "BASE_PAYMENT",
    "PENALTY_OTHERS",
    "PENALTY_PAID",
    "penalty",
    "settle",
    "settle_batch",
    "settle_row",
]

NUM_SEATS = 4
BASE_PAYMENT = 8
"""Points every loser pays the winner on top of the hand's value (docs/rules.md §3)."""
PENALTY_PAID = 30
"""Points a false Hu (or a punished illegal action) costs the offender."""
PENALTY_OTHERS = 10
"""Points each other seat receives from a penalty."""


def _seat(value, name: str, allow_none: bool = False) -> int | None:
    if value is None and allow_none:
        return None
    return check_int(value, name, 0, NUM_SEATS - 1, what="a seat number 0..3")


def settle(winner: int | None, total: int = 0, discarder: int | None = None) -> np.ndarray:
    """Point changes of the four seats at the end of a hand (docs/rules.md §3).

    Args:
        winner: seat 0..3 of the winner, or None for an exhaustive draw (all zeros; total and
            discarder must then be left at 0 / None).
        total: the winner's total points ``x``, flowers included (int >= 0).
        discarder: seat that discarded the winning tile (for Robbing the Kong: the seat that
            declared the kong), or None for a self-drawn win.

    Returns:
        ``(4,) int32`` points per seat; sums to zero. Discard win: winner ``24 + x``, discarder
        ``-(8 + x)``, others ``-8``. Self-drawn: winner ``24 + 3x``, others ``-(8 + x)``.

    Raises:
        TypeError: a seat or the total that is not an int.
        ValueError: a seat outside 0..3, winner == discarder, a negative total, or a draw
            given a total or a discarder.
    """
    out = np.zeros(NUM_SEATS, dtype=np.int32)
    w = _seat(winner, "winner", allow_none=True)
    d = _seat(discarder, "discarder", allow_none=True)
    x = check_int(total, "total", 0, what="an int number of points >= 0")
    if w is None:
        if d is not None or x != 0:
            raise ValueError("an exhaustive draw (winner=None) takes no discarder and no total")
        return out
    if d == w:
        raise ValueError(f"winner and discarder must differ, both are seat {w}")
    settle_row(w, x, -1 if d is None else d, out)
    return out


@njit(cache=True, nogil=True)
def settle_row(winner, total, discarder, out):
    """Write the settlement of one hand into ``out (4,)`` (int32): the rule of :func:`settle`
    (docs/rules.md §3) on validated ints, also called from compiled code (the engine's
    :func:`mcr_env.engine.results.wins_kernel`). ``winner`` -1: exhaustive draw (zeros);
    ``discarder`` -1: self-drawn."""
    if winner < 0:
        for s in range(NUM_SEATS):
            out[s] = 0
    elif discarder < 0:
        for s in range(NUM_SEATS):
            out[s] = -(BASE_PAYMENT + total)
        out[winner] = 3 * (BASE_PAYMENT + total)
    else:
        for s in range(NUM_SEATS):
            out[s] = -BASE_PAYMENT
        out[discarder] = -(BASE_PAYMENT + total)
        out[winner] = 3 * BASE_PAYMENT + total


@njit(cache=True, nogil=True)
def _settle_rows(winner, total, discarder, out):
    """:func:`settle_row` of every row (validated ``(N,) int64`` arrays, ``out (N, 4) int32``)."""
    for i in range(winner.shape[0]):
        settle_row(winner[i], total[i], discarder[i], out[i])


def settle_batch(winner, total, discarder) -> np.ndarray:
    """:func:`settle` over N hands (one compiled loop, :func:`settle_row` per hand).

    Args:
        winner: ``(N,)`` int seat of the winner, -1 = no winner (exhaustive draw: the row is
            zeros whatever total and discarder hold).
        total: ``(N,)`` int winner's points ``x`` (flowers included), >= 0 where there is a
            winner.
        discarder: ``(N,)`` int seat that discarded the winning tile (the kong declarer for
            Robbing the Kong), -1 = self-drawn.

    Returns:
        ``(N, 4) int32`` points per hand and seat; every row sums to zero.

    Raises:
        TypeError: non-integer arrays.
        ValueError: shapes that are not the same ``(N,)``, winner outside
            -1..3, discarder outside -1..3, winner == discarder, or a negative total for a
            win (the first offending row is named).
    """
    arrays = {}
    for name, value in (("winner", winner), ("total", total), ("discarder", discarder)):
        a = np.asarray(value)
        if a.dtype.kind not in "iu":
            raise TypeError(f"{name} must be an integer array, got dtype {a.dtype}")
        if a.ndim != 1:
            raise ValueError(f"{name} must have shape (N,), got {a.shape}")
        arrays[name] = a.astype(np.int64)
    w, x, d = arrays["winner"], arrays["total"], arrays["discarder"]
    if not len(w) == len(x) == len(d):
        raise ValueError(
            f"winner, total and discarder must have the same length, got "
            f"{len(w)}, {len(x)}, {len(d)}"
        )
    for name, a in (("winner", w), ("discarder", d)):
        bad = np.flatnonzero((a < -1) | (a >= NUM_SEATS))
        if len(bad):
            raise ValueError(f"{name} must be in -1..3; row {bad[0]} has {a[bad[0]]}")
    won = w >= 0
    bad = np.flatnonzero(won & (w == d))
    if len(bad):
        raise ValueError(f"row {bad[0]}: winner and discarder are both seat {w[bad[0]]}")
    bad = np.flatnonzero(won & (x < 0))
    if len(bad):
        raise ValueError(f"row {bad[0]}: total must be >= 0 points, got {x[bad[0]]}")

    out = np.empty((len(w), NUM_SEATS), dtype=np.int32)
    _settle_rows(w, x, d, out)
    return out


def penalty(offender: int) -> np.ndarray:
    """Points of a false Hu (research option, docs/rules.md §3; the Botzone judge's rule).

    Args:
        offender: seat 0..3 that made the false Hu or punished illegal action.

    Returns:
        ``(4,) int32``: ``-30`` for the offender, ``+10`` for each other seat.

    Raises:
        TypeError: offender is not an int.
        ValueError: offender is not in 0..3.
    """
    o = _seat(offender, "offender")
    out = np.full(NUM_SEATS, PENALTY_OTHERS, dtype=np.int32)
    out[o] = -PENALTY_PAID
    return out
