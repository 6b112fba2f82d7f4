"""The shanten-greedy policy: realistic play for benchmarks and tests, one compiled call.

:func:`greedy_actions` answers every acting seat of a batch from its legal mask and its own
concealed hand (no hidden information): Hu whenever legal; otherwise the highest legal id
among the claims and kongs (Gang/AnGang/BuGang over Peng over Chi, the action layout of
:mod:`mcr_env.engine.actions`); otherwise the legal discard leaving the lowest shanten
(:func:`mcr_env.scoring.shanten.shanten`, all hand forms; lowest tile on ties); a seat with
only Pass passes. It is the ``greedy`` policy of ``scripts/bench_engine.py``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mcr_env.engine.actions import CHI_OFFSET, HU, NUM_ACTIONS, PASS, PLAY_OFFSET
from mcr_env.scoring._shanten_kernel import _key, closed_forms, form_counts, forms_after_discard
from mcr_env.scoring.shanten import _value_tables
from mcr_env.tiles import NUM_TILE_KINDS

__all__ = ["greedy_actions"]


_POW5 = 5 ** np.arange(9, dtype=np.int64)


@njit(cache=True, nogil=True, inline="always")
def _fold_rows(a, i, r, j, b):
    """``(no pair, one pair)`` at ``b`` blocks of the max-plus fold of row ``r[j]`` into row
    ``a[i]`` (``a``, ``r`` 2-D; as :func:`~mcr_env.scoring._shanten_kernel._fold_at`, indexed
    in place: no row views in the hot loop)."""
    v0 = -1000
    v1 = -1000
    for b1 in range(b + 1):
        b2 = b - b1
        a0 = a[i, 2 * b1]
        r0 = r[j, 2 * b2]
        x = a0 + r0
        if x > v0:
            v0 = x
        x = a[i, 2 * b1 + 1] + r0
        if x > v1:
            v1 = x
        x = a0 + r[j, 2 * b2 + 1]
        if x > v1:
            v1 = x
    return v0, v1


@njit(cache=True, nogil=True)
def _others(rows, g, k, others, scratch):
    """``others[g]``: the max-plus fold (:func:`~mcr_env.scoring._shanten_kernel._fold`) of
    the value-table rows ``rows (4, 10)`` of the three groups other than ``g`` (entries up to
    ``2k + 1``); ``scratch (2, 10)``."""
    h0 = 1 if g == 0 else 0
    h1 = 2 if g <= 1 else 1
    h2 = 3 if g <= 2 else 2
    for b in range(k + 1):
        scratch[0, 2 * b], scratch[0, 2 * b + 1] = _fold_rows(rows, h0, rows, h1, b)
    for b in range(k + 1):
        others[g, 2 * b], others[g, 2 * b + 1] = _fold_rows(scratch, 0, rows, h2, b)


@njit(cache=True, nogil=True, inline="always")
def _special_floor(c, t, n, pre, most):
    """A lower bound of the special forms' shanten of counts ``c`` minus tile ``t`` with
    ``n <= 1`` melds (:func:`~mcr_env.scoring._shanten_kernel.forms_after_discard` without
    the regular form): Seven Pairs and Thirteen Orphans exactly, Honors and Knitted Tiles and
    Knitted Straight with ``most`` (the most kinds of one knitted arrangement held before
    the discard) for the kinds after it."""
    lb = 8 - most  # Knitted Straight: its missing tiles - 1 at least
    if n == 0:
        lb = closed_forms(c, t, pre, most, lb)
    return lb


@njit(cache=True, nogil=True)
def _greedy_kernel(legal, to_act, hands, n_melds, suit, honor, out):
    """Fill ``out (B, 4) int64`` with the greedy action of every acting seat (0 elsewhere).

    A discard's shanten is :func:`~mcr_env.scoring._shanten_kernel.row_shanten` of the hand
    minus that tile, computed incrementally: the regular value is the max-plus fold of the
    four groups' value-table rows (three suits, honors), and a discard changes one group's
    row only, so the fold of the other three groups is computed once per group and each
    discard costs one table look-up and one fold step (the fold is associative and
    commutative: the same integer as the full computation); the special forms are then
    taken from the counts they depend on, updated for the discard
    (:func:`~mcr_env.scoring._shanten_kernel.forms_after_discard`), unless their lower bound
    (:func:`_special_floor`, a few counts) already shows they cannot change the choice.

    Returns -1, or ``4 * game + seat`` of the first acting seat whose hand minus a legal
    discard is not a ``13 - 3 * n_melds`` tile hand (the wrapper raises).
    """
    acc = np.empty(10, dtype=np.int64)
    tmp = np.empty(10, dtype=np.int64)
    scratch = np.empty((2, 10), dtype=np.int64)
    rem = np.empty(34, dtype=np.int64)
    cand = np.empty(34, dtype=np.int64)
    keys = np.empty(4, dtype=np.int64)
    rows = np.empty((4, 10), dtype=np.int64)
    others = np.empty((4, 10), dtype=np.int64)
    have = np.zeros(4, dtype=np.bool_)
    pre = np.empty(10, dtype=np.int64)
    for g in range(legal.shape[0]):
        for s in range(4):
            out[g, s] = 0
            if not to_act[g, s]:
                continue
            if legal[g, s, HU]:
                out[g, s] = HU
                continue
            act = PASS
            # any claim or kong legal? (a branch-free OR the compiler vectorises; most
            # decisions are discards with none, and then the scan below is skipped)
            claims = 0
            for a in range(CHI_OFFSET, NUM_ACTIONS):
                claims |= legal[g, s, a]
            if claims:
                for a in range(NUM_ACTIONS - 1, CHI_OFFSET - 1, -1):
                    if legal[g, s, a]:
                        act = a
                        break
            if act == PASS:
                n = np.int64(n_melds[g, s])
                total = 0
                plays = 0
                for t in range(34):
                    cand[t] = hands[g, s, t]
                    total += cand[t]
                    if legal[g, s, PLAY_OFFSET + t]:
                        plays += 1
                        if cand[t] < 1:
                            return 4 * g + s
                if plays:
                    if total - 1 != 13 - 3 * n or n < 0 or n > 4:
                        return 4 * g + s
                    k = 4 - n
                    for q in range(4):
                        key = _key(cand, 9 * q, 9 if q < 3 else 7)
                        keys[q] = key
                        if q < 3:
                            for j in range(10):
                                rows[q, j] = suit[key, j]
                        else:
                            for j in range(10):
                                rows[q, j] = honor[key, j]
                        have[q] = False
                    # no discard can leave less than the whole hand's shanten (shanten only
                    # grows with tiles) nor less than 0: the first tile reaching the bound is
                    # the lowest of the minimal ones, the rest need not be tried
                    _others(rows, 0, k, others, scratch)
                    have[0] = True
                    v0, v1 = _fold_rows(others, 0, rows, 0, k)
                    reg = 2 * k - (v0 if v0 >= v1 + 1 else v1 + 1)
                    most = 0
                    if n <= 1:
                        form_counts(cand, pre)
                        for a in range(6):
                            if pre[4 + a] > most:
                                most = pre[4 + a]
                    bound = forms_after_discard(
                        cand, -1, n, reg, 99, pre, suit, honor, acc, tmp, rem
                    )
                    if bound < 0:
                        bound = 0
                    best = 99
                    for t in range(34):
                        if not legal[g, s, PLAY_OFFSET + t]:
                            continue
                        q = t // 9 if t < 27 else 3
                        if not have[q]:
                            _others(rows, q, k, others, scratch)
                            have[q] = True
                        key = keys[q] - _POW5[t - 9 * q]
                        if q < 3:
                            v0, v1 = _fold_rows(others, q, suit, key, k)
                        else:
                            v0, v1 = _fold_rows(others, q, honor, key, k)
                        reg = 2 * k - (v0 if v0 >= v1 + 1 else v1 + 1)
                        if reg == bound or n > 1:
                            v = reg  # the other forms cannot go below the bound (or apply)
                        elif _special_floor(cand, t, n, pre, most) >= min(reg, best):
                            # no special form can go below min(reg, best): reg is then the
                            # exact value if it is below best, and otherwise no better
                            # than best, as the exact value would be
                            v = reg
                        else:
                            # exact when below ``best`` (all that decides the choice)
                            v = forms_after_discard(
                                cand, t, n, reg, best, pre, suit, honor, acc, tmp, rem
                            )
                        if v < best:
                            best = v
                            act = PLAY_OFFSET + t
                            if v == bound:
                                break
            out[g, s] = act
    return -1


def greedy_actions(
    legal: np.ndarray,
    to_act: np.ndarray,
    hands: np.ndarray,
    n_melds: np.ndarray,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """The greedy action of every acting seat (docs/rules.md §2 for shanten, §10 for who acts).

    Args:
        legal: ``(B, 4, 235)`` bool or int8 0/1 legal masks (``MCREngine.legal_mask``, or an
            env's ``action_mask``).
        to_act: ``(B, 4)`` bool (or 0/1 ints): the seats that act.
        hands: ``(B, 4, 34)`` integer concealed counts (``state.hand``; each acting seat's
            own hand only is read).
        n_melds: ``(B, 4)`` integer melds per seat (``state.n_melds``).
        out: optional ``(B, 4) int64`` C-contiguous array written in place and returned.

    Returns:
        ``(B, 4) int64``: Hu (1) if legal; else the highest legal claim/kong id (36..234);
        else the legal discard (2 + tile) whose remaining hand has the lowest shanten, lowest
        tile on ties; else Pass (0). 0 for the seats that do not act.

    Raises:
        TypeError: non-integer/bool arrays.
        ValueError: wrong shapes, or an acting seat with a legal discard whose hand is not
            ``14 - 3 * n_melds`` tiles holding that tile (names the game and seat).
    """
    arrays = (("legal", legal), ("to_act", to_act), ("hands", hands), ("n_melds", n_melds))
    for name, arr in arrays:
        if not isinstance(arr, np.ndarray) or arr.dtype.kind not in "biu":
            raise TypeError(f"{name} must be a bool or integer numpy array")
    b = legal.shape[0] if legal.ndim == 3 else -1
    if (
        legal.shape != (b, 4, NUM_ACTIONS)
        or to_act.shape != (b, 4)
        or hands.shape != (b, 4, NUM_TILE_KINDS)
        or n_melds.shape != (b, 4)
    ):
        shapes = ((b, 4, NUM_ACTIONS), (b, 4), (b, 4, NUM_TILE_KINDS), (b, 4))
        for (name, arr), want in zip(arrays, shapes):
            if arr.shape != want:
                raise ValueError(f"{name} must have shape {want}, got {arr.shape}")
    # (one compiled version for bool and int8 masks: bool arrays viewed as int8)
    if legal.dtype.kind == "b":
        legal = legal.view(np.int8)
    if to_act.dtype.kind == "b":
        to_act = to_act.view(np.int8)
    if out is None:
        out = np.empty((b, 4), dtype=np.int64)
    elif out.shape != (b, 4) or out.dtype != np.int64 or not out.flags.c_contiguous:
        raise ValueError(f"out must be a C-contiguous ({b}, 4) int64 array")
    suit, honor = _value_tables()
    bad = _greedy_kernel(legal, to_act, hands, n_melds, suit, honor, out)
    if bad >= 0:
        g, s = divmod(int(bad), 4)
        raise ValueError(
            f"game {g} seat {s}: a legal discard needs a hand of 14 - 3 * n_melds tiles "
            f"holding the tile (n_melds={int(n_melds[g, s])}, {int(hands[g, s].sum())} tiles)"
        )
    return out
