"""Compiled (numba) row kernels of the ``planes-v0``, ``oracle-v0`` and ``planes-v1`` encoders.

Each kernel loops over the N (game, seat) pairs of one ``encode`` call and writes every channel
of its block of ``out (N, C, 34) float32`` straight from the engine's ``GameState`` arrays (a few
``(k, 34)`` scratch rows per call, no cache: exact for any state). They restate, row by row,
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


# Loops over the 34 columns of ``out`` run to ``out.shape[2]`` (a runtime bound, always 34):
# with the compile-time constant LLVM unrolls them into scalar stores, with the runtime bound
# it vectorizes them (about 3x faster, measured); every channel of a row is written once.


@njit(cache=True, nogil=True)
def _thermometer(out, i, c, counts):
    """Channels ``c .. c+3`` of row ``i``: ``counts (34,) >= k + 1`` for k = 0..3."""
    for k in range(4):
        for t in range(out.shape[2]):
            out[i, c + k, t] = 1.0 if counts[t] > k else 0.0


@njit(cache=True, nogil=True)
def _onehot(out, i, c, tile):
    """Channel ``c`` of row ``i``: 1 at ``tile`` when ``0 <= tile < 34``, 0 elsewhere."""
    for t in range(out.shape[2]):
        out[i, c, t] = 0.0
    if 0 <= tile < T:
        out[i, c, tile] = 1.0


@njit(cache=True, nogil=True)
def _broadcast(out, i, c, value):
    """Channel ``c`` of row ``i``: ``value`` in all 34 columns."""
    for t in range(out.shape[2]):
        out[i, c, t] = value


@njit(cache=True, nogil=True)
def _copy(out, i, c, values):
    """Channels ``c ..`` of row ``i``: ``values (K, 34) float32``."""
    for k in range(values.shape[0]):
        for t in range(out.shape[2]):
            out[i, c + k, t] = values[k, t]


@njit(cache=True, nogil=True)
def _own_kongs(angang_tile, g, s, own_kong):
    """``own_kong (34,)``: concealed kongs of seat ``s`` in game ``g`` by tile."""
    own_kong[:] = 0
    for j in range(angang_tile.shape[2]):
        t = angang_tile[g, s, j]
        if 0 <= t < T:
            own_kong[t] += 1


@njit(cache=True, nogil=True)
def _seat_tables(g, s, meld_kind, meld_tile, discards, n_discards, melds, disc, recent, n_angang):
    """Per relative seat r of observer ``s`` in game ``g``: ``melds (12, 34)`` chows
    containing each tile (rows 0-3), pungs (4-7), melded kongs (8-11); ``disc (4, 34)``
    discards by tile; ``recent (4, 4)`` the (k+1)-th most recent discard (-1 none);
    ``n_angang (4,)`` concealed kongs."""
    melds[:] = 0.0
    disc[:] = 0.0
    for r in range(4):
        a = (s + r) % 4
        n = 0
        for j in range(meld_kind.shape[2]):
            k = meld_kind[g, a, j]
            t = meld_tile[g, a, j]
            if k == _ANGANG:
                n += 1
            if t < 0 or t >= T:
                continue
            if k == _CHI:  # the chow around middle tile t holds t - 1, t, t + 1
                melds[r, t] += 1.0
                if t >= 1:
                    melds[r, t - 1] += 1.0
                if t + 1 < T:
                    melds[r, t + 1] += 1.0
            elif k == _PENG:
                melds[4 + r, t] += 1.0
            elif k == _GANG:
                melds[8 + r, t] += 1.0
        n_angang[r] = n
        for j in range(discards.shape[2]):
            t = discards[g, a, j]
            if 0 <= t < T:
                disc[r, t] += 1.0
        nd = n_discards[g, a]
        for k in range(N_RECENT):
            pos = nd - 1 - k
            recent[r, k] = discards[g, a, pos] if pos >= 0 else -1


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
    ``seats`` ``(N,) intp`` (valid indices) into ``out (N, >= 75, 34)`` (float32, or uint8 for
    the compact observations; any content on entry: channels 0..74 are overwritten). The
    ``tiles_left`` channels hold ``tiles_left / left_scale`` (``TILES_LEFT_SCALE`` for float32,
    1.0 for uint8: the count itself). The other arguments are the ``GameState`` fields of the
    same names (public; private ones read at the observer's row only)."""
    counts = np.zeros(T, dtype=np.int32)
    own_kong = np.zeros(T, dtype=np.int32)
    melds = np.zeros((12, T), dtype=np.float32)
    disc = np.zeros((4, T), dtype=np.float32)
    recent = np.zeros((4, N_RECENT), dtype=np.int64)
    n_angang = np.zeros(4, dtype=np.int64)
    for i in range(games.shape[0]):
        g = games[i]
        s = seats[i]
        _own_kongs(angang_tile, g, s, own_kong)
        _seat_tables(
            g, s, meld_kind, meld_tile, discards, n_discards, melds, disc, recent, n_angang
        )
        # ---- private: own hand, drawn tile, own concealed kongs
        _thermometer(out, i, _O_HAND, hand[g, s])
        _onehot(out, i, _O_DRAWN, drawn_tile[g, s])
        for t in range(out.shape[2]):
            out[i, _O_OWN_ANGANG, t] = own_kong[t]
        # ---- public, per relative seat r (absolute seat (s + r) % 4)
        _copy(out, i, _O_CHI, melds)  # chi, peng, gang: consecutive
        for r in range(4):
            _broadcast(out, i, _O_ANGANG_COUNT + r, n_angang[r])
        _copy(out, i, _O_DISCARDS, disc)
        for r in range(4):
            for k in range(N_RECENT):
                _onehot(out, i, _O_RECENT + N_RECENT * r + k, recent[r, k])
        for r in range(4):
            _broadcast(out, i, _O_FLOWERS + r, flower_count[g, (s + r) % 4])
        # ---- unseen: 4 - own hand - visible - own concealed kongs (a won discard once)
        for t in range(T):
            counts[t] = 4 - hand[g, s, t] - visible_count[g, t] - 4 * own_kong[t]
        tip = tile_in_play[g]
        ph = phase[g]
        er = end_reason[g]
        if ph == _P_OVER and (er == _R_DISCARD or er == _R_ROB) and winner[g] == s and tip >= 0:
            counts[tip] += 1
        _thermometer(out, i, _O_UNSEEN, counts)
        # ---- per game / per observer
        _onehot(out, i, _O_TILE_IN_PLAY, tip)
        pb = played_by[g]
        r_played = (pb - s) % 4 if pb >= 0 else -1
        cur = current_seat[g]
        r_current = (cur - s) % 4 if ph != _P_OVER and cur >= 0 else -1
        for r in range(4):
            _broadcast(out, i, _O_PLAYED_BY + r, 1.0 if r == r_played else 0.0)
        for r in range(4):
            _broadcast(out, i, _O_CURRENT + r, 1.0 if r == r_current else 0.0)
        _onehot(out, i, _O_SEAT_WIND, 27 + (s - dealer[g]) % 4)
        _onehot(out, i, _O_PREVALENT, 27 + prevalent_wind[g])
        for r in range(4):
            left = tiles_left[g, (s + r) % 4]
            _broadcast(out, i, _O_TILES_LEFT + r, left / left_scale)  # rounded to out's dtype
        for r in range(4):
            _broadcast(out, i, _O_WALL_EMPTY + r, 1.0 if tiles_left[g, (s + r) % 4] <= 0 else 0.0)
        for p in range(5):
            _broadcast(out, i, _O_PHASE + p, 1.0 if p == ph else 0.0)
        _broadcast(out, i, _O_AFTER_KONG, 1.0 if after_kong[g] else 0.0)


@njit(cache=True, nogil=True)
def oracle_rows(games, seats, out, c0, hand, angang_tile, wall, wall_front, wall_back):
    """Write the 23 oracle channels (``out[:, c0:c0 + 23]``: other hands, other concealed
    kongs, the undrawn wall, each seat's next front-of-wall tile) of the pairs ``games``,
    ``seats`` ``(N,) intp``; reads hidden fields (``oracle-v0`` only)."""
    counts = np.zeros(T, dtype=np.int32)
    n_wall = wall.shape[1]
    for i in range(games.shape[0]):
        g = games[i]
        s = seats[i]
        botzone = False
        for k in range(1, wall_back.shape[1]):
            if wall_back[g, k] > 0:
                botzone = True
        for r in range(1, 4):
            a = (s + r) % 4
            _thermometer(out, i, c0 + _X_HANDS + 4 * (r - 1), hand[g, a])
            _own_kongs(angang_tile, g, a, counts)
            for t in range(out.shape[2]):
                out[i, c0 + _X_ANGANG + r - 1, t] = counts[t]
        counts[:] = 0
        for slot in range(n_wall):
            seg = min(slot // _BOTZONE_SEGMENT, 3) if botzone else 0
            t = wall[g, slot]
            if wall_front[g, seg] <= slot < wall_back[g, seg] and 0 <= t < T:
                counts[t] += 1
        _thermometer(out, i, c0 + _X_WALL, counts)
        for r in range(4):
            seg = (s + r) % 4 if botzone else 0
            front = wall_front[g, seg]
            tile = wall[g, min(front, n_wall - 1)] if front < wall_back[g, seg] else -1
            _onehot(out, i, c0 + _X_NEXT + r, tile)


@njit(cache=True, nogil=True)
def match_rows(games, seats, out, c0, hand_number, player_at_seat, match_scores):
    """Write the 20 match channels of ``planes-v1`` (``out[:, c0:c0 + 20]``: hand number in
    the match one-hot, running score of the player at each relative seat / 100 clipped to
    +-20) of the pairs ``games``, ``seats`` ``(N,) intp``."""
    scale = np.float32(SCORE_SCALE)
    clip = np.float32(SCORE_CLIP)
    for i in range(games.shape[0]):
        g = games[i]
        s = seats[i]
        for h in range(16):
            _broadcast(out, i, c0 + _M_HAND + h, 1.0 if h == hand_number[g] else 0.0)
        for r in range(4):
            p = player_at_seat[g, (s + r) % 4]
            if p < 0:  # no player (empty state): numpy's index -1 wraps to the last player
                p += match_scores.shape[1]
            v = np.float32(match_scores[g, p]) / scale
            _broadcast(out, i, c0 + _M_SCORES + r, min(max(v, -clip), clip))
