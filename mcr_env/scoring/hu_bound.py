"""Compiled bounds on "this complete hand is worth 8 points" (docs/rules.md §2, §5, §6, §7).

The engine offers Hu only for a complete hand worth at least 8 points without flowers, and the
exact answer is :func:`mcr_env.scoring.score_win` (Python: about 0.08 ms of CPU time a hand,
measured on ``scripts/bench_scoring.py``'s random winning hands with cold caches). Most
complete hands met in play are far from the line, so :func:`legal_win_bound` decides them
from the tiles with plain integer work and leaves only the close ones to the exact scorer:

* **1, legal in both profiles**: a special form (Seven Pairs 24, Thirteen Orphans 88,
  Honors and Knitted Tiles 12/24, Knitted Straight 12), a last tile (Last Tile Draw/Claim 8),
  a kong-related win (Out with Replacement Tile / Robbing the Kong 8, under the scorer's
  conditions), or some reading holding
  a fan of 8 or more that a reading's sets show directly (Mixed Triple Chow, Mixed Straight,
  Mixed Shifted Pungs, Triple Pung, Pure Triple Chow, Pure Shifted Chows and Pungs, Pure
  Straight, Full Flush), or whose fans that surely count (the win situation, Melded Hand,
  winds and dragons, All Types, One Voided Suit, No Honors, Last Tile) reach 8;
* **0, not legal in either profile**: every reading is free of all fans worth 6 or more and of
  every condition for them, the sum of the points of every smaller fan that could apply
  (each counted at its highest multiplicity, no exclusion applied) stays under 8, and some
  fan surely applies (so the reading is no Chicken Hand);
* **-1, undecided**: the caller asks the exact scorer.

The bound is sound by construction (upper bounds only over-count: a fan is counted whenever
its condition may hold in a reading, and the points are the larger of the two profiles); it
is checked against the exact scorer, both profiles, on many random complete hands
(``tests/test_hu_bound.py``) and, inside the engine, by the engine's differential and golden
tests (whose reference scores every hand exactly).

The engine's step kernel (:mod:`mcr_env.engine.kernels`) calls :func:`legal_win_bound`;
numba's on-disk cache of that kernel does not notice edits of this file, so after changing it
delete ``mcr_env/engine/__pycache__/kernels*.nb*`` (a fresh checkout compiles afresh).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mcr_env.scoring.shanten import KNITTED_ARRANGEMENTS
from mcr_env.tiles import IS_GREEN, IS_REVERSIBLE, IS_TERMINAL_OR_HONOR

LEGAL = 1
""":func:`legal_win_bound`: the hand is worth at least 8 points (both profiles)."""
NOT_LEGAL = 0
""":func:`legal_win_bound`: the hand is worth less than 8 points (both profiles)."""
UNDECIDED = -1
""":func:`legal_win_bound`: the exact scorer must decide."""

# meld kinds as the engine stores them (mcr_env.engine.state.MeldKind; BuGang kongs are GANG)
_MK_CHI = 1
_MK_PENG = 2
_MK_GANG = 3
_MK_ANGANG = 4

_TH = IS_TERMINAL_OR_HONOR[:34].astype(np.bool_)
_GREEN = IS_GREEN[:34].astype(np.bool_)
_REV = IS_REVERSIBLE[:34].astype(np.bool_)
_ORPHAN13 = np.array([0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33], dtype=np.int64)


# the tiles of the six knitted arrangements (147/258/369 over the suits)
_KNITTED = np.array([np.flatnonzero(row) for row in KNITTED_ARRANGEMENTS], dtype=np.int64)


@njit(cache=True, nogil=True)
def _special_form(c, n_melds):
    """Whether concealed counts ``c (34,)`` (14 tiles, no melds) are Seven Pairs, Thirteen
    Orphans or Honors and Knitted Tiles (docs/rules.md §6a)."""
    if n_melds != 0:
        return False
    odd = False
    dup = False
    for t in range(34):
        if c[t] & 1:
            odd = True
        if c[t] >= 2:
            dup = True
    if not odd:
        return True  # Seven Pairs (four of a kind counts as two pairs)
    orphans = True
    for t in range(34):
        if c[t] > 0 and not _TH[t]:
            orphans = False
    if orphans:
        for j in range(13):
            if c[_ORPHAN13[j]] == 0:
                orphans = False
        if orphans:
            return True
    if not dup:
        for a in range(6):
            ok = True
            for t in range(27):
                if c[t] > 0:
                    inside = False
                    for j in range(9):
                        if _KNITTED[a, j] == t:
                            inside = True
                    if not inside:
                        ok = False
            if ok:
                return True
    return False


@njit(cache=True, nogil=True)
def _split(w, k, mask, kind, tile):
    """Split counts ``w (34,)`` (3k tiles; consumed) into k sets, choosing at the lowest tile a
    pung (bit i of ``mask`` set) or a chow; ``kind``/``tile`` out (1 chow from ``tile``, 2
    pung). False when the choices do not fit."""
    t = 0
    for i in range(k):
        while t < 34 and w[t] == 0:
            t += 1
        if t >= 34:
            return False
        if (mask >> i) & 1:
            if w[t] < 3:
                return False
            w[t] -= 3
            kind[i] = 2
        else:
            if t >= 27 or t % 9 > 6 or w[t + 1] == 0 or w[t + 2] == 0:
                return False
            w[t] -= 1
            w[t + 1] -= 1
            w[t + 2] -= 1
            kind[i] = 1
        tile[i] = t
    return True


@njit(cache=True, nogil=True)
def _has_regular(c, k):
    """Whether counts ``c (34,)`` (3k + 2 tiles) split into k sets and a pair."""
    w = np.empty(34, dtype=np.int64)
    kind = np.empty(4, dtype=np.int64)
    tile = np.empty(4, dtype=np.int64)
    for p in range(34):
        if c[p] < 2:
            continue
        for mask in range(1 << k):
            for t in range(34):
                w[t] = c[t]
            w[p] -= 2
            if _split(w, k, mask, kind, tile):
                return True
    return False


@njit(cache=True, nogil=True)
def _knitted_straight(c, n_melds):
    """A Knitted Straight reading: one arrangement held whole and the rest sets and a pair."""
    if n_melds > 1:
        return False
    rem = np.empty(34, dtype=np.int64)
    for a in range(6):
        whole = True
        for j in range(9):
            if c[_KNITTED[a, j]] == 0:
                whole = False
        if not whole:
            continue
        for t in range(34):
            rem[t] = c[t]
        for j in range(9):
            rem[_KNITTED[a, j]] -= 1
        if _has_regular(rem, 1 - n_melds):
            return True
    return False


@njit(cache=True, nogil=True)
def _triple_patterns(sk, st, n):
    """Fans of three sets among ``n`` sets (``sk`` 1 chow / 2 pung or kong, ``st`` lowest
    tile): returns ``(big, six)``: ``big`` a fan of 8 or more is shown (Mixed Triple Chow,
    Mixed Straight, Mixed Shifted Pungs, Triple Pung, Pure Triple Chow, Pure Shifted Chows,
    Pure Straight, Pure Shifted Pungs); ``six`` Mixed Shifted Chows (6) is."""
    big = False
    six = False
    for i in range(n):
        for j in range(i + 1, n):
            for m in range(j + 1, n):
                if sk[i] != sk[j] or sk[j] != sk[m] or st[i] >= 27 or st[j] >= 27 or st[m] >= 27:
                    continue
                si, sj, sm = st[i] // 9, st[j] // 9, st[m] // 9
                ri, rj, rm = st[i] % 9, st[j] % 9, st[m] % 9
                lo = min(ri, min(rj, rm))
                hi = max(ri, max(rj, rm))
                mid = ri + rj + rm - lo - hi
                if si == sj and sj == sm:
                    if sk[i] == 1:
                        # same chow thrice; shifted by one or two; 123 456 789
                        if lo == hi or (mid - lo == hi - mid and hi - mid <= 2):
                            big = True
                        if lo == 0 and mid == 3 and hi == 6:
                            big = True
                    elif mid == lo + 1 and hi == lo + 2:
                        big = True
                elif si != sj and sj != sm and si != sm:
                    if lo == hi:
                        big = True  # Mixed Triple Chow / Triple Pung
                    elif mid == lo + 1 and hi == lo + 2:
                        if sk[i] == 1:
                            six = True  # Mixed Shifted Chows
                        else:
                            big = True  # Mixed Shifted Pungs
                    elif sk[i] == 1 and lo == 0 and mid == 3 and hi == 6:
                        big = True  # Mixed Straight
    return big, six


@njit(cache=True, nogil=True)
def _reading_bound(
    sk,
    st,
    so,
    n,
    pair,
    tot,
    n_open,
    win_tile,
    self_drawn,
    last_tile,
    last_sure,
    seat_wind,
    prevalent_wind,
):
    """Bound of one regular reading: ``n`` = 4 sets ``sk`` (1 chow, 2 pung, 3 kong), ``st``
    (lowest tile), ``so`` (1 open meld, 0 concealed), the pair tile, ``tot (34,)`` every tile of
    the hand (kongs 4). Returns ``(state, ub, sure)``: state 1 a fan of 8+ shows or the fans
    that surely count reach 8 (legal), -1
    a condition of a fan of 6+ may hold (undecided), 0 otherwise with ``ub`` the sum of the
    points of every smaller fan that may apply and ``sure`` some fan surely applies."""
    kk = np.empty(4, dtype=np.int64)
    for i in range(n):
        kk[i] = 2 if sk[i] >= 2 else 1
    big, six = _triple_patterns(kk, st, n)
    if big:
        return 1, 0, True
    # tiles of the hand
    suits = 0
    winds = False
    dragons = False
    all_th = True
    any_th = False
    lo_rank = 9
    hi_rank = -1
    green = True
    rev = True
    for t in range(34):
        if tot[t] == 0:
            continue
        if t < 27:
            suits |= 1 << (t // 9)
            r = t % 9
            lo_rank = min(lo_rank, r)
            hi_rank = max(hi_rank, r)
        elif t < 31:
            winds = True
        else:
            dragons = True
        if _TH[t]:
            any_th = True
        else:
            all_th = False
        if not _GREEN[t]:
            green = False
        if not _REV[t]:
            rev = False
    honors = winds or dragons
    n_suits = (suits & 1) + ((suits >> 1) & 1) + ((suits >> 2) & 1)
    if n_suits == 0:
        return -1, 0, False  # All Honors
    if n_suits == 1:
        if not honors:
            return 1, 0, True  # Full Flush (24)
        return -1, 0, False  # Half Flush (6) and the one-suit fans
    if all_th or green or rev:
        return -1, 0, False  # all terminals/honors; All Green; Reversible
    if not honors and (hi_rank <= 3 or lo_rank >= 5 or (lo_rank >= 3 and hi_rank <= 5)):
        return -1, 0, False  # Upper/Middle/Lower Tiles, Upper/Lower Four
    n_pung = 0
    n_chow = 0
    n_kong = 0
    conc_pung = 0
    wind_pungs = 0
    dragon_pungs = 0
    th_pungs = 0
    outside = _TH[pair]
    fives = pair < 27 and pair % 9 == 4
    even = pair < 27 and pair % 9 % 2 == 1
    ub = 0
    wind_pts = 0
    sure_set = False
    for i in range(n):
        t = st[i]
        if sk[i] == 1:
            n_chow += 1
            r = t % 9
            if r != 0 and r != 6:
                outside = False
            if r < 2 or r > 4:
                fives = False
            even = False
        else:
            n_pung += 1
            if sk[i] == 3:
                n_kong += 1
                ub += 1 if so[i] else 2  # Melded Kong / Concealed Kong
                sure_set = True
            if so[i] == 0:
                conc_pung += 1  # (a pung completed by a discard also counted: an upper bound)
            if _TH[t]:
                sure_set = True  # Dragon Pung, a wind fan or Pung of Terminals or Honors
            else:
                outside = False
            if t >= 31:
                dragon_pungs += 1  # Dragon Pung (2; not also a Pung of Terminals or Honors)
            elif t >= 27:
                wind_pungs += 1
                if t - 27 == prevalent_wind:
                    wind_pts += 2  # Prevalent Wind
                if t - 27 == seat_wind:
                    wind_pts += 2  # Seat Wind
                if t - 27 != prevalent_wind and t - 27 != seat_wind:
                    th_pungs += 1
            elif _TH[t]:
                th_pungs += 1
            if t >= 27 or t % 9 != 4:
                fives = False
            if t >= 27 or t % 9 % 2 == 0:
                even = False
    if n_kong >= 2 or conc_pung >= 3 or wind_pungs >= 3 or dragon_pungs >= 2 or fives:
        return -1, 0, False  # kong fans, Three Concealed Pungs, Big Three Winds, ..., All Five
    if n_pung == 4:
        if even:
            return -1, 0, False  # All Even Pungs
        ub += 6  # All Pungs
    if n_suits == 3 and winds and dragons:
        ub += 6  # All Types
    if six:
        ub += 6  # Mixed Shifted Chows
    if outside:
        ub += 4  # Outside Hand
    # the win situation: exactly one of Fully Concealed Hand (4) / Self-Drawn (1); Concealed
    # Hand (2) or Melded Hand (6, implying Single Wait; without it, as with a promoted kong in
    # the mcr profile, a hand of four melds counts Single Wait) on a discard
    sure = True
    if self_drawn:
        situation = 4 if n_open == 0 else 1
    elif n_open == 0:
        situation = 2
    elif n_open == 4:
        situation = 6
    else:
        situation = 0
        sure = sure_set
    ub += situation
    # a lower bound of the reading: fans that surely count and imply none of each other
    # (Melded Hand only without kongs: a promoted kong withholds it in the mcr profile)
    lb = situation if (self_drawn or n_open != 4 or n_kong == 0) else 0
    lb += 4 if last_sure else 0
    lb += 2 * dragon_pungs + th_pungs + wind_pts
    if n_suits == 3 and winds and dragons:
        lb += 6  # All Types
    if n_suits == 2:
        lb += 1  # One Voided Suit
    if not honors:
        lb += 1  # No Honors (or All Simples / All Chows, which imply it)
    if lb >= 8:
        return 1, 0, True
    ub += wind_pts
    if self_drawn or n_open != 4:
        # Edge, Closed or Single Wait (at most one): only where the winning tile can sit so
        wait = pair == win_tile
        for i in range(n):
            t = st[i]
            if sk[i] == 1 and so[i] == 0 and t <= win_tile <= t + 2 and win_tile < 27:
                r = t % 9
                if (
                    win_tile == t + 1
                    or (r == 0 and win_tile == t + 2)
                    or (r == 6 and win_tile == t)
                ):
                    wait = True
        if wait:
            ub += 1
    if last_tile:
        ub += 4  # Last Tile
    ub += 2 * dragon_pungs + th_pungs  # Dragon Pung, Pung of Terminals or Honors
    if n_chow == 4:
        ub += 2  # All Chows
    if conc_pung == 2:
        ub += 2  # Two Concealed Pungs
    if not any_th:
        ub += 2  # All Simples
    if n_suits == 2:
        ub += 1  # One Voided Suit
        sure = True
    if not honors:
        ub += 1  # No Honors
        sure = True
    # Tile Hog: four of a kind used without a kong
    for t in range(34):
        if tot[t] == 4:
            kong = False
            for i in range(n):
                if sk[i] == 3 and st[i] == t:
                    kong = True
            if not kong:
                ub += 2
    # pairs of sets: Double Pung; Pure/Mixed Double Chow, Short Straight, Two Terminal Chows
    terminal_pairs = 0
    for i in range(n):
        for j in range(i + 1, n):
            a, b = st[i], st[j]
            if kk[i] != kk[j] or a >= 27 or b >= 27:
                continue
            same_suit = a // 9 == b // 9
            ra, rb = a % 9, b % 9
            if kk[i] == 2:
                if not same_suit and ra == rb:
                    ub += 2  # Double Pung
                    sure = True
            elif same_suit:
                if ra == rb:
                    ub += 1  # Pure Double Chow
                    sure = True
                if abs(ra - rb) == 3:
                    ub += 1  # Short Straight
                    sure = True
                if (ra == 0 and rb == 6) or (ra == 6 and rb == 0):
                    ub += 1  # Two Terminal Chows
                    terminal_pairs += 1
                    sure = True
            elif ra == rb:
                ub += 1  # Mixed Double Chow
                sure = True
    if terminal_pairs >= 2:
        return -1, 0, False  # Three-Suited Terminal Chows (16)
    return 0, ub, sure


@njit(cache=True, nogil=True)
def legal_win_bound(
    c,
    n_melds,
    meld_kind,
    meld_tile,
    win_tile,
    self_drawn,
    fourth,
    wall_last,
    about_kong,
    seat_wind,
    prevalent_wind,
):
    """Whether a complete hand reaches the 8-point minimum (docs/rules.md §2), decided from
    the tiles where a bound settles it.

    Args:
        c: ``(34,) int64`` concealed counts, the winning tile included (14 - 3 * n_melds
            tiles; the hand must be complete in some form; not changed).
        n_melds: melds declared (0..4).
        meld_kind: ``(>= n_melds,)`` ints, :class:`mcr_env.engine.state.MeldKind` values
            (1 CHI, 2 PENG, 3 GANG (claimed or promoted), 4 ANGANG).
        meld_tile: ``(>= n_melds,)`` ints: the meld's tile (a chow's middle tile; the
            concealed kong's own tile).
        win_tile: the winning tile id (0..33).
        self_drawn, fourth, wall_last, about_kong: the win flags of ``score_win``
            (``is_self_drawn``, ``is_4th_tile``, ``is_wall_last``, ``is_about_kong``).
        seat_wind, prevalent_wind: 0..3.

    Returns:
        :data:`LEGAL` (1), :data:`NOT_LEGAL` (0) or :data:`UNDECIDED` (-1); 1 and 0 hold in
        both scoring profiles (docs/rules.md §7).
    """
    if wall_last:
        return 1  # Last Tile Draw / Last Tile Claim (8)
    # copies of the winning tile in the hand's chows and pungs (the scorer's Last Tile and
    # Robbing the Kong conditions, docs/rules.md §6a)
    shown = 0
    kongs = 0
    for j in range(n_melds):
        t = meld_tile[j]
        if meld_kind[j] == _MK_CHI:
            if t - 1 <= win_tile <= t + 1:
                shown += 1
        elif meld_kind[j] == _MK_PENG:
            if t == win_tile:
                shown += 3
        else:
            kongs += 1
    if about_kong:
        if self_drawn and kongs > 0:
            return 1  # Out with Replacement Tile (8)
        if not self_drawn and c[win_tile] == 1 and shown == 0:
            return 1  # Robbing the Kong (8)
    last_tile = fourth or shown == 3  # Last Tile may count (an upper bound) ...
    last_sure = (fourth and c[win_tile] == 1) or shown == 3  # ... surely counts
    if _special_form(c, n_melds) or _knitted_straight(c, n_melds):
        return 1
    tot = np.zeros(34, dtype=np.int64)
    for t in range(34):
        tot[t] = c[t]
    sk = np.empty(4, dtype=np.int64)
    st = np.empty(4, dtype=np.int64)
    so = np.empty(4, dtype=np.int64)
    n_open = 0
    for j in range(n_melds):
        kind = meld_kind[j]
        t = np.int64(meld_tile[j])
        if kind == _MK_CHI:
            sk[j] = 1
            st[j] = t - 1
            so[j] = 1
            n_open += 1
            tot[t - 1] += 1
            tot[t] += 1
            tot[t + 1] += 1
        else:
            sk[j] = 2 if kind == _MK_PENG else 3
            st[j] = t
            so[j] = 0 if kind == _MK_ANGANG else 1
            if kind != _MK_ANGANG:
                n_open += 1
            tot[t] += 3 if kind == _MK_PENG else 4
    k = 4 - n_melds
    w = np.empty(34, dtype=np.int64)
    kind = np.empty(4, dtype=np.int64)
    tile = np.empty(4, dtype=np.int64)
    undecided = False
    readings = 0
    for p in range(34):
        if c[p] < 2:
            continue
        for mask in range(1 << k):
            for t in range(34):
                w[t] = c[t]
            w[p] -= 2
            if not _split(w, k, mask, kind, tile):
                continue
            for i in range(k):
                sk[n_melds + i] = kind[i]
                st[n_melds + i] = tile[i]
                so[n_melds + i] = 0
            readings += 1
            state, ub, sure = _reading_bound(
                sk,
                st,
                so,
                4,
                p,
                tot,
                n_open,
                win_tile,
                self_drawn,
                last_tile,
                last_sure,
                seat_wind,
                prevalent_wind,
            )
            if state == 1:
                return 1
            if state == -1 or ub >= 8 or not sure:
                undecided = True
    if undecided or readings == 0:
        return -1
    return 0
