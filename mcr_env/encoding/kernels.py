"""Compiled (numba) row kernels of the ``planes-v0``, ``oracle-v0`` and ``planes-v1`` encoders.

Each kernel loops over the N (game, seat) pairs of one ``encode`` call and writes every channel
of its block of ``out (N, C, 34) float32`` (or uint8) straight from the engine's ``GameState``
arrays (no cache kept between calls: exact for any state whose seats' discards fill the first
``n_discards`` slots, as the engine's do). They restate, row by row,
the readable piece functions of :mod:`mcr_env.encoding.planes` (the reference; tests check the
bytes are identical), and ``tests/test_encoding_kernels.py`` checks them against a plain-Python
restatement on many states.

Information (docs/design.md, Information): :func:`planes_v0_rows` receives the public arrays
and reads the private ones (``hand``, ``drawn_tile``, ``angang_tile``) only at the observer's
own ``[game, seat]`` row; only :func:`oracle_rows` (``oracle-v0``) receives the hidden wall
and reads other seats' private rows.

Channel offsets are the pieces' (:data:`PLANES_V0_OFFSETS`, checked against the piece table
when :mod:`mcr_env.encoding.planes` is imported). Seats relative to the observer: relative seat
r is absolute seat ``(seat + r) % 4``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mcr_env.engine.state import EndReason, MeldKind, Phase

T = 34
"""Tile kinds (columns)."""

# planes-v0 channel offsets (piece name -> first channel), in piece order
PLANES_V0_OFFSETS = {
    "hand": 0,
    "drawn_tile": 4,
    "own_angang": 5,
    "chi": 6,
    "peng": 10,
    "gang": 14,
    "angang_count": 18,
    "discards": 22,
    "recent_discards": 26,
    "flowers": 42,
    "unseen": 46,
    "tile_in_play": 50,
    "played_by": 51,
    "current_seat": 55,
    "seat_wind": 59,
    "prevalent_wind": 60,
    "tiles_left": 61,
    "wall_empty": 65,
    "phase": 69,
    "after_kong": 74,
}
PLANES_V0_CHANNELS = 75
ORACLE_OFFSETS = {"other_hands": 0, "other_angang": 12, "wall_remaining": 15, "next_draw": 19}
"""Offsets of the oracle pieces from the first oracle channel (75 in ``oracle-v0``)."""
ORACLE_CHANNELS = 23
MATCH_OFFSETS = {"match_hand": 0, "match_scores": 16}
"""Offsets of the match pieces from the first match channel (75 in ``planes-v1``)."""
MATCH_CHANNELS = 20

_OFF = PLANES_V0_OFFSETS
_O_HAND, _O_DRAWN, _O_OWN_ANGANG = _OFF["hand"], _OFF["drawn_tile"], _OFF["own_angang"]
_O_CHI, _O_PENG, _O_GANG = _OFF["chi"], _OFF["peng"], _OFF["gang"]
_O_ANGANG_COUNT, _O_DISCARDS = _OFF["angang_count"], _OFF["discards"]
_O_RECENT, _O_FLOWERS, _O_UNSEEN = _OFF["recent_discards"], _OFF["flowers"], _OFF["unseen"]
_O_TILE_IN_PLAY, _O_PLAYED_BY = _OFF["tile_in_play"], _OFF["played_by"]
_O_CURRENT, _O_SEAT_WIND = _OFF["current_seat"], _OFF["seat_wind"]
_O_PREVALENT, _O_TILES_LEFT = _OFF["prevalent_wind"], _OFF["tiles_left"]
_O_WALL_EMPTY, _O_PHASE, _O_AFTER_KONG = _OFF["wall_empty"], _OFF["phase"], _OFF["after_kong"]
_X_HANDS, _X_ANGANG = ORACLE_OFFSETS["other_hands"], ORACLE_OFFSETS["other_angang"]
_X_WALL, _X_NEXT = ORACLE_OFFSETS["wall_remaining"], ORACLE_OFFSETS["next_draw"]
_M_HAND, _M_SCORES = MATCH_OFFSETS["match_hand"], MATCH_OFFSETS["match_scores"]
N_RECENT = 4
TILES_LEFT_SCALE = 144.0
SCORE_SCALE = 100.0
SCORE_CLIP = 20.0

_CHI = int(MeldKind.CHI)
_PENG = int(MeldKind.PENG)
_GANG = int(MeldKind.GANG)
_ANGANG = int(MeldKind.ANGANG)
_P_OVER = int(Phase.OVER)
_R_DISCARD = int(EndReason.DISCARD)
_R_ROB = int(EndReason.ROB_KONG)
_BOTZONE_SEGMENT = 34


# The row kernels view ``out`` as ``(N, C * 34)`` (``out`` must be C-contiguous: the Python
# wrappers in :mod:`mcr_env.encoding.planes` guarantee it), zero the encoder's channels of a row
# with one loop (while the row sits in L1) and then write only the non-zero values: dense,
# vectorized loops for the thermometers and the broadcast channels, single stores for the
# one-hot and count channels. They index the arrays element by element and take no per-row
# views (a view costs reference-count calls). Offsets into a row are unsigned (``np.uintp``:
# numba then skips the negative-index wrap-around select that keeps a loop from vectorizing;
# never mix them with signed ints, whose sum numba types as float). Loops over the 34 columns
# run to ``w = out.shape[2]`` (a runtime bound, always 34): with the compile-time constant LLVM
# unrolls them into scalar stores, with the runtime bound it vectorizes them (but the broadcast
# fills of uint8 rows, :func:`_fill`). Broadcast channels whose value is zero are not written
# (the row is zeroed first).

try:  # compiled: unsigned offsets
    from numba.extending import overload as _overload

    _U = np.uintp
except ImportError:  # the Botzone export's numba stand-in runs the kernels as plain Python:
    _U = int  # Python ints (numpy 1.x types np.uint64 + int as float, not an index)
    _overload = None
_U1 = _U(1)


def _fill(flat, i, b, w, value):
    """``flat[i, b:b + w] = value`` (one channel of a row: a broadcast value); ``b``, ``w``
    unsigned, ``w`` = 34. Compiled (an ``overload``, chosen by the row dtype when the kernel
    is typed): byte rows (uint8) loop over the constant ``T`` columns, which LLVM writes as
    a few vector stores; float32 rows over the runtime bound, which vectorizes (a constant
    bound is unrolled into scalar stores there). (A run-time test of the item size compiled
    both loops, and LLVM merged them into one ``memset`` call of a run-time length per
    channel: about 10 calls per uint8 row, each spilling the vector registers.) Plain
    Python (the Botzone export's numba stand-in): the loop over ``w``."""
    for t in range(w):
        flat[i, b + t] = value


if _overload is not None:  # compiled: the row dtype picks the loop at typing time

    @_overload(_fill, inline="always")
    def _fill_compiled(flat, i, b, w, value):
        if flat.dtype.bitwidth == 8:

            def fill_bytes(flat, i, b, w, value):
                for t in range(T):
                    flat[i, b + _U(t)] = value

            return fill_bytes

        def fill_words(flat, i, b, w, value):
            for t in range(w):
                flat[i, b + t] = value

        return fill_words


@njit(cache=True, nogil=True, inline="always")
def _thermo(flat, i, b, w, counts, g, s):
    """Channels ``k = 0..3`` from the unsigned flat offset ``b`` of row ``i``:
    ``counts[g, s, t] > k``."""
    for k in range(4):
        o = b + _U(k) * w
        for t in range(w):
            flat[i, o + t] = 1 if counts[g, s, t] > k else 0


@njit(cache=True, nogil=True)
def planes_v0_rows(
    games,
    seats,
    out,
    meld_kind,
    meld_tile,
    discards,
    n_discards,
    visible_count,
    flower_count,
    phase,
    current_seat,
    tile_in_play,
    played_by,
    after_kong,
    tiles_left,
    dealer,
    prevalent_wind,
    winner,
    end_reason,
    hand,
    drawn_tile,
    angang_tile,
    left_scale,
):
    """Write the 75 ``planes-v0`` channels (``out[:, 0:75]``) of the pairs ``games``,
    ``seats`` ``(N,) intp`` (valid indices) into ``out (N, >= 75, 34)`` (C-contiguous;
    float32, or uint8 for the compact observations; any content on entry: channels 0..74 are
    overwritten). The ``tiles_left`` channels hold ``tiles_left / left_scale``
    (``TILES_LEFT_SCALE`` for float32, 1.0 for uint8: the count itself). The other arguments
    are the ``GameState`` fields of the same names (public; private ones read at the
    observer's row only). A seat's discards are the first ``n_discards`` slots of its row of
    ``discards`` (filled in order)."""
    n_rows = games.shape[0]
    w = _U(out.shape[2])
    flat = out.reshape(n_rows, out.shape[1] * out.shape[2])
    n_slots = meld_kind.shape[2]
    n_kongs = angang_tile.shape[2]
    cap = discards.shape[2]
    # unsigned flat offsets of the channels
    o_hand, o_drawn, o_own = _U(_O_HAND) * w, _U(_O_DRAWN) * w, _U(_O_OWN_ANGANG) * w
    o_unseen, o_tip, o_played = _U(_O_UNSEEN) * w, _U(_O_TILE_IN_PLAY) * w, _U(_O_PLAYED_BY) * w
    o_current, o_seat_wind = _U(_O_CURRENT) * w, _U(_O_SEAT_WIND) * w
    o_prevalent, o_phase = _U(_O_PREVALENT) * w, _U(_O_PHASE) * w
    o_after, n_zero = _U(_O_AFTER_KONG) * w, _U(PLANES_V0_CHANNELS) * w
    for i in range(n_rows):
        g = games[i]
        s = seats[i]
        for j in range(n_zero):
            flat[i, j] = 0
        # ---- private: own hand, drawn tile, own concealed kongs
        _thermo(flat, i, o_hand, w, hand, g, s)
        d = drawn_tile[g, s]
        if 0 <= d < T:
            flat[i, o_drawn + _U(d)] = 1
        for j in range(n_kongs):
            t = angang_tile[g, s, j]
            if 0 <= t < T:
                flat[i, o_own + _U(t)] += 1
        # ---- public, per relative seat r (absolute seat a = (s + r) % 4)
        for r in range(4):
            a = (s + r) % 4
            o_chi, o_peng = _U(_O_CHI + r) * w, _U(_O_PENG + r) * w
            o_gang, o_disc = _U(_O_GANG + r) * w, _U(_O_DISCARDS + r) * w
            n_angang = 0
            for j in range(n_slots):
                k = meld_kind[g, a, j]
                t = meld_tile[g, a, j]
                if k == _ANGANG:
                    n_angang += 1
                if t < 0 or t >= T:
                    continue
                if k == _CHI:  # the chow around middle tile t holds t - 1, t, t + 1
                    b = o_chi + _U(t)
                    flat[i, b] += 1
                    if t >= 1:
                        flat[i, b - _U1] += 1
                    if t + 1 < T:
                        flat[i, b + _U1] += 1
                elif k == _PENG:
                    flat[i, o_peng + _U(t)] += 1
                elif k == _GANG:
                    flat[i, o_gang + _U(t)] += 1
            if n_angang:  # (the row was zeroed: zero values are not written again)
                _fill(flat, i, _U(_O_ANGANG_COUNT + r) * w, w, n_angang)
            nd = min(max(n_discards[g, a], 0), cap)
            for j in range(nd):
                t = discards[g, a, j]
                if 0 <= t < T:
                    flat[i, o_disc + _U(t)] += 1
            for k in range(min(N_RECENT, nd)):
                t = discards[g, a, nd - 1 - k]
                if 0 <= t < T:
                    flat[i, _U(_O_RECENT + N_RECENT * r + k) * w + _U(t)] = 1
            fc = flower_count[g, a]
            if fc:
                _fill(flat, i, _U(_O_FLOWERS + r) * w, w, fc)
            left = tiles_left[g, a]
            if left:
                _fill(flat, i, _U(_O_TILES_LEFT + r) * w, w, left / left_scale)  # out's dtype
            if left <= 0:
                _fill(flat, i, _U(_O_WALL_EMPTY + r) * w, w, 1)
        # ---- unseen: 4 - own hand - visible - own concealed kongs (a won discard once): the
        # thermometer of 4 - hand - visible for every tile, then the columns of the own kongs'
        # tiles and of a won discard rewritten with their exact counts
        tip = tile_in_play[g]
        ph = phase[g]
        er = end_reason[g]
        won = ph == _P_OVER and (er == _R_DISCARD or er == _R_ROB) and winner[g] == s
        for k in range(4):
            o = o_unseen + _U(k) * w
            for t in range(w):
                flat[i, o + t] = 1 if hand[g, s, t] + visible_count[g, t] < 4 - k else 0
        for j in range(-1, n_kongs):
            t = tip if j < 0 else angang_tile[g, s, j]
            if (j >= 0 or won) and 0 <= t < T:
                c = 4 - hand[g, s, t] - visible_count[g, t] + (1 if won and t == tip else 0)
                for m in range(n_kongs):
                    if angang_tile[g, s, m] == t:
                        c -= 4
                for k in range(4):
                    flat[i, o_unseen + _U(k) * w + _U(t)] = 1 if c > k else 0
        # ---- per game / per observer
        if 0 <= tip < T:
            flat[i, o_tip + _U(tip)] = 1
        pb = played_by[g]
        if pb >= 0:
            _fill(flat, i, o_played + _U((pb - s) % 4) * w, w, 1)
        cur = current_seat[g]
        if ph != _P_OVER and cur >= 0:
            _fill(flat, i, o_current + _U((cur - s) % 4) * w, w, 1)
        flat[i, o_seat_wind + _U(27 + (s - dealer[g]) % 4)] = 1
        pw = 27 + prevalent_wind[g]
        if 0 <= pw < T:
            flat[i, o_prevalent + _U(pw)] = 1
        if 0 <= ph < 5:
            _fill(flat, i, o_phase + _U(ph) * w, w, 1)
        if after_kong[g]:
            _fill(flat, i, o_after, w, 1)


@njit(cache=True, nogil=True)
def _wall_counts(g, wall, wall_front, wall_back, counts):
    """``counts (34,)``: undrawn tiles of game ``g``'s wall by kind (slots ``front <= slot <
    back`` of their segment: one segment in the official layout, four of 34 slots in the
    botzone layout, the last one running to the end of the wall)."""
    counts[:] = 0
    n_wall = wall.shape[1]
    botzone = False
    for k in range(1, wall_back.shape[1]):
        if wall_back[g, k] > 0:
            botzone = True
    for seg in range(4 if botzone else 1):
        lo = seg * _BOTZONE_SEGMENT if botzone else 0
        hi = (seg + 1) * _BOTZONE_SEGMENT if botzone and seg < 3 else n_wall
        for slot in range(max(lo, wall_front[g, seg]), min(hi, wall_back[g, seg])):
            t = wall[g, slot]
            if 0 <= t < T:
                counts[t] += 1
    return botzone


@njit(cache=True, nogil=True)
def oracle_rows(games, seats, out, c0, hand, angang_tile, wall, wall_front, wall_back):
    """Write the 23 oracle channels (``out[:, c0:c0 + 23]``: other hands, other concealed
    kongs, the undrawn wall, each seat's next front-of-wall tile) of the pairs ``games``,
    ``seats`` ``(N,) intp`` into ``out`` (C-contiguous); reads hidden fields (``oracle-v0``
    only). The wall counts are computed once per run of rows of the same game."""
    n_rows = games.shape[0]
    w = _U(out.shape[2])
    flat = out.reshape(n_rows, out.shape[1] * out.shape[2])
    counts = np.zeros(T, dtype=np.int32)
    n_wall = wall.shape[1]
    lo, hi = _U(c0) * w, _U(c0 + ORACLE_CHANNELS) * w
    o_wall, o_next = _U(c0 + _X_WALL) * w, _U(c0 + _X_NEXT) * w
    last_g = -1
    botzone = False
    for i in range(n_rows):
        g = games[i]
        s = seats[i]
        for j in range(lo, hi):
            flat[i, j] = 0
        if g != last_g:
            botzone = _wall_counts(g, wall, wall_front, wall_back, counts)
            last_g = g
        for r in range(1, 4):
            a = (s + r) % 4
            _thermo(flat, i, _U(c0 + _X_HANDS + 4 * (r - 1)) * w, w, hand, g, a)
            o_kong = _U(c0 + _X_ANGANG + r - 1) * w
            for j in range(angang_tile.shape[2]):
                t = angang_tile[g, a, j]
                if 0 <= t < T:
                    flat[i, o_kong + _U(t)] += 1
        for k in range(4):
            o = o_wall + _U(k) * w
            for t in range(w):
                flat[i, o + t] = 1 if counts[t] > k else 0
        for r in range(4):
            seg = (s + r) % 4 if botzone else 0
            front = wall_front[g, seg]
            if front < wall_back[g, seg]:
                t = wall[g, min(front, n_wall - 1)]
                if 0 <= t < T:
                    flat[i, o_next + _U(r) * w + _U(t)] = 1


@njit(cache=True, nogil=True)
def match_rows(games, seats, out, c0, hand_number, player_at_seat, match_scores):
    """Write the 20 match channels of ``planes-v1`` (``out[:, c0:c0 + 20]``: hand number in
    the match one-hot, running score of the player at each relative seat / 100 clipped to
    +-20) of the pairs ``games``, ``seats`` ``(N,) intp`` (every channel written whole)."""
    scale = np.float32(SCORE_SCALE)
    clip = np.float32(SCORE_CLIP)
    for i in range(games.shape[0]):
        g = games[i]
        s = seats[i]
        for h in range(16):
            value = 1.0 if h == hand_number[g] else 0.0
            for t in range(out.shape[2]):
                out[i, c0 + _M_HAND + h, t] = value
        for r in range(4):
            p = player_at_seat[g, (s + r) % 4]
            if p < 0:  # no player (empty state): numpy's index -1 wraps to the last player
                p += match_scores.shape[1]
            v = min(max(np.float32(match_scores[g, p]) / scale, -clip), clip)
            for t in range(out.shape[2]):
                out[i, c0 + _M_SCORES + r, t] = v
