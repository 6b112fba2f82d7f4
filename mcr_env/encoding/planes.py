"""``planes-v0`` (what one seat may see) and ``oracle-v0`` (plus everything hidden).

Both produce ``(C, 34) float32`` planes: channel c, column t = tile kind t (Botzone order, 0-33).
Seats are relative to the observer: r = 0 self, 1 next (downstream), 2 across, 3 previous.
"Broadcast" pieces hold one number per channel, repeated over the 34 columns. The channel table
(offsets, ranges) is generated into ``docs/observations.md`` by ``scripts/gen_obs_docs.py``.

``planes-v0`` reads only public fields of the state and the observer's own private entries
(``hand``, ``drawn_tile``, ``angang_tile`` of that seat): another seat's concealed kong counts
(``angang_count``) but its tile does not appear. ``oracle-v0`` = ``planes-v0`` followed by pieces
of scope ``"oracle"`` (other hands, other concealed kongs, the wall); it is for oracle-guided
training only, never for acting in evaluation. ``planes-v1`` = ``planes-v0`` followed by the
match context (hand number in the match, each player's running score; public), for 16-hand
matches (docs/rules.md §4); ``planes-v0`` stays byte-identical.
"""

from __future__ import annotations

import numpy as np

from mcr_env.encoding.base import EncodeContext, Encoder, Piece, register_encoder
from mcr_env.engine.state import EndReason, MeldKind, Phase

_T = 34
_TILES = np.arange(_T)


def _per_seat_counts(state, tiles: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """``(B, 4, K)`` tile ids with ``valid`` mask -> ``(B, 4, 34)`` int counts (bincount)."""
    b = tiles.shape[0]
    rows = np.broadcast_to(np.arange(b * 4).reshape(b, 4, 1), tiles.shape)
    idx = rows[valid] * _T + tiles[valid].astype(np.intp)
    return np.bincount(idx, minlength=b * 4 * _T).reshape(b, 4, _T)


def _onehot_rows(out: np.ndarray, tiles: np.ndarray) -> None:
    """``out (N, 34)``: set 1 at ``tiles (N,)`` where ``0 <= tile < 34``."""
    ok = (tiles >= 0) & (tiles < _T)
    out[np.nonzero(ok)[0], tiles[ok].astype(np.intp)] = 1.0


def _thermometer(out: np.ndarray, counts: np.ndarray) -> None:
    """``out (N, K, 34)``: channel k = ``counts (N, 34) >= k + 1``."""
    for k in range(out.shape[1]):
        out[:, k] = counts > k


# --------------------------------------------------------------------------- per-game caches
def _meld_counts(ctx: EncodeContext, kind: MeldKind) -> np.ndarray:
    """``(B, 4, 34)`` per absolute seat: melds of ``kind`` by tile (one bincount for all kinds)."""

    def build():
        s = ctx.state
        b = s.meld_kind.shape[0]
        ok = s.meld_tile >= 0
        rows = np.broadcast_to(np.arange(b * 4).reshape(b, 4, 1), ok.shape)[ok]
        idx = (rows * 5 + s.meld_kind[ok].astype(np.intp)) * _T + s.meld_tile[ok].astype(np.intp)
        return np.bincount(idx, minlength=b * 4 * 5 * _T).reshape(b, 4, 5, _T)

    return ctx.cached("melds", build)[:, :, int(kind)]


def _discard_counts(ctx: EncodeContext) -> np.ndarray:
    def build():
        s = ctx.state
        return _per_seat_counts(s, s.discards, s.discards >= 0)

    return ctx.cached("discards", build)


def _own_angang(ctx: EncodeContext) -> np.ndarray:
    """``(N, 34)`` int: 1 at each tile of the observer's concealed kongs."""

    def build():
        tiles = ctx.own(ctx.state.angang_tile)  # (N, 4) own slots only
        out = np.zeros((tiles.shape[0], _T), dtype=np.int64)
        ok = tiles >= 0
        np.add.at(out, (np.nonzero(ok)[0], tiles[ok].astype(np.intp)), 1)
        return out

    return ctx.cached("own_angang", build)


_P_OVER = int(Phase.OVER)
_R_DISCARD = int(EndReason.DISCARD)
_R_ROB = int(EndReason.ROB_KONG)


# --------------------------------------------------------------------------- private pieces
def _fill_hand(ctx, out):
    _thermometer(out, ctx.own(ctx.state.hand))


def _fill_drawn(ctx, out):
    _onehot_rows(out[:, 0], ctx.own(ctx.state.drawn_tile))


def _fill_own_angang(ctx, out):
    out[:, 0] = _own_angang(ctx)


def _won_discard(state, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """``(N,) bool``: the observer (``games``, ``seats`` ``(N,)``) won the hand on a discard or
    by robbing a kong and the hand is over: the won tile (still ``tile_in_play``; seen by every
    seat) then sits both in its concealed hand and in ``visible_count``, and ``unseen`` must
    count it once."""
    return (
        (state.phase[games] == _P_OVER)
        & np.isin(state.end_reason[games], (_R_DISCARD, _R_ROB))
        & (state.winner[games] == seats)
        & (state.tile_in_play[games] >= 0)
    )


def _fill_unseen(ctx, out):
    s = ctx.state
    unseen = (
        4
        - ctx.own(s.hand).astype(np.int64)
        - s.visible_count[ctx.games].astype(np.int64)
        - 4 * _own_angang(ctx)
    )
    won = np.nonzero(_won_discard(s, ctx.games, ctx.seats))[0]
    unseen[won, s.tile_in_play[ctx.games[won]].astype(np.intp)] += 1  # counted twice above
    _thermometer(out, unseen)


# --------------------------------------------------------------------------- public pieces
def _fill_chi(ctx, out):
    mid = ctx.gather_seats(_meld_counts(ctx, MeldKind.CHI))  # (N, 4, 34) chow middles
    out[:] = mid
    out[:, :, 1:] += mid[:, :, :-1]  # tile t is the high tile of the chow around t - 1
    out[:, :, :-1] += mid[:, :, 1:]  # tile t is the low tile of the chow around t + 1


def _fill_peng(ctx, out):
    out[:] = ctx.gather_seats(_meld_counts(ctx, MeldKind.PENG))


def _fill_gang(ctx, out):
    out[:] = ctx.gather_seats(_meld_counts(ctx, MeldKind.GANG))


def _fill_angang_count(ctx, out):
    n = (ctx.state.meld_kind == MeldKind.ANGANG).sum(axis=2)  # (B, 4)
    out[:] = ctx.gather_seats(n)[:, :, None]


def _fill_discards(ctx, out):
    out[:] = ctx.gather_seats(_discard_counts(ctx))


N_RECENT = 4


def _fill_recent(ctx, out):
    s = ctx.state
    n = ctx.gather_seats(s.n_discards).astype(np.intp)  # (N, 4)
    g = ctx.games[:, None]
    for k in range(N_RECENT):
        pos = n - 1 - k
        ok = pos >= 0
        tiles = np.where(ok, s.discards[g, ctx.rel, np.maximum(pos, 0)], -1)  # (N, 4)
        for r in range(4):
            _onehot_rows(out[:, 4 * r + k], tiles[:, r])


def _fill_flowers(ctx, out):
    out[:] = ctx.gather_seats(ctx.state.flower_count)[:, :, None]


def _fill_tile_in_play(ctx, out):
    _onehot_rows(out[:, 0], ctx.state.tile_in_play[ctx.games])


def _rel_onehot(ctx, out, abs_seat: np.ndarray) -> None:
    """Broadcast one-hot of the relative seat of ``abs_seat (N,)`` (-1 = none: all zero)."""
    ok = abs_seat >= 0
    r = (abs_seat.astype(np.intp) - ctx.seats) % 4
    out[np.nonzero(ok)[0], r[ok]] = 1.0


def _fill_played_by(ctx, out):
    _rel_onehot(ctx, out, ctx.state.played_by[ctx.games])


def _fill_current_seat(ctx, out):
    s = ctx.state
    cur = np.where(s.phase[ctx.games] == Phase.OVER, -1, s.current_seat[ctx.games])
    _rel_onehot(ctx, out, cur)


def _fill_seat_wind(ctx, out):
    wind = (ctx.seats - ctx.state.dealer[ctx.games].astype(np.intp)) % 4
    out[np.arange(ctx.games.shape[0]), 0, 27 + wind] = 1.0


def _fill_prevalent_wind(ctx, out):
    w = ctx.state.prevalent_wind[ctx.games].astype(np.intp)
    out[np.arange(ctx.games.shape[0]), 0, 27 + w] = 1.0


TILES_LEFT_SCALE = 144.0


def _fill_tiles_left(ctx, out):
    out[:] = (ctx.gather_seats(ctx.state.tiles_left) / TILES_LEFT_SCALE)[:, :, None]


def _fill_wall_empty(ctx, out):
    out[:] = (ctx.gather_seats(ctx.state.tiles_left) <= 0)[:, :, None]


def _fill_phase(ctx, out):
    ph = ctx.state.phase[ctx.games].astype(np.intp)
    out[np.arange(ph.shape[0]), ph] = 1.0


def _fill_after_kong(ctx, out):
    out[:, 0] = ctx.state.after_kong[ctx.games][:, None]


# --------------------------------------------------------------------------- oracle pieces
def _fill_other_hands(ctx, out):
    hands = ctx.gather_seats(ctx.state.hand)  # (N, 4, 34)
    for r in range(1, 4):
        _thermometer(out[:, 4 * (r - 1) : 4 * r], hands[:, r])


def _fill_other_angang(ctx, out):
    tiles = ctx.gather_seats(ctx.state.angang_tile)  # (N, 4 rel, 4 slots)
    for r in range(1, 4):
        for j in range(tiles.shape[2]):
            t = tiles[:, r, j]
            ok = t >= 0
            out[np.nonzero(ok)[0], r - 1, t[ok].astype(np.intp)] += 1.0


def _wall_live(state) -> np.ndarray:
    """``(B, 144) bool``: wall slots not drawn yet (front <= slot < back of their segment)."""
    s = state
    slots = np.arange(s.wall.shape[1])
    botzone = _is_botzone(s)
    seg = np.where(botzone[:, None], np.minimum(slots // 34, 3)[None, :], 0)  # (B, 144)
    front = np.take_along_axis(s.wall_front.astype(np.intp), seg, axis=1)
    back = np.take_along_axis(s.wall_back.astype(np.intp), seg, axis=1)
    return (slots[None, :] >= front) & (slots[None, :] < back) & (s.wall >= 0)


def _is_botzone(state) -> np.ndarray:
    """``(B,) bool``: the game uses the four-wall ``botzone`` layout (segments 1-3 in use)."""
    return (state.wall_back[:, 1:] > 0).any(axis=1)


def _fill_wall_remaining(ctx, out):
    def build():
        s = ctx.state
        live = _wall_live(s) & (s.wall < _T)
        b = s.wall.shape[0]
        rows = np.broadcast_to(np.arange(b)[:, None], s.wall.shape)
        idx = rows[live] * _T + s.wall[live].astype(np.intp)
        return np.bincount(idx, minlength=b * _T).reshape(b, _T)

    _thermometer(out, ctx.cached("wall_remaining", build)[ctx.games])


def _fill_next_draw(ctx, out):
    s = ctx.state
    g = ctx.games
    botzone = _is_botzone(s)[g]
    seg = np.where(botzone[:, None], ctx.rel, 0)  # (N, 4) wall segment each rel seat draws from
    front = s.wall_front[g[:, None], seg].astype(np.intp)
    back = s.wall_back[g[:, None], seg].astype(np.intp)
    ok = front < back
    tiles = np.where(ok, s.wall[g[:, None], np.minimum(front, s.wall.shape[1] - 1)], -1)
    for r in range(4):
        _onehot_rows(out[:, r], tiles[:, r])


# --------------------------------------------------------------------------- the pieces
def _planes_pieces() -> list[Piece]:
    P = Piece
    return [
        P("hand", 4, "private", 0, 1, "own concealed hand: channel k = count >= k+1", _fill_hand),
        P("drawn_tile", 1, "private", 0, 1, "the tile own seat just drew (ACT phase)", _fill_drawn),
        P("own_angang", 1, "private", 0, 1, "tiles of own concealed kongs", _fill_own_angang),
        P(
            "chi",
            4,
            "public",
            0,
            4,
            "channel r: number of seat r's chows containing the tile",
            _fill_chi,
        ),
        P("peng", 4, "public", 0, 1, "channel r: seat r has a pung of the tile", _fill_peng),
        P(
            "gang",
            4,
            "public",
            0,
            1,
            "channel r: seat r has a melded kong of the tile (Gang or BuGang)",
            _fill_gang,
        ),
        P(
            "angang_count",
            4,
            "public",
            0,
            4,
            "channel r: number of concealed kongs of seat r (broadcast; tile not shown)",
            _fill_angang_count,
        ),
        P(
            "discards",
            4,
            "public",
            0,
            4,
            "channel r: copies of the tile seat r has discarded (claimed ones included)",
            _fill_discards,
        ),
        P(
            "recent_discards",
            4 * N_RECENT,
            "public",
            0,
            1,
            "channel 4r+k: seat r's (k+1)-th most recent discard (k=0 newest), one-hot",
            _fill_recent,
        ),
        P(
            "flowers",
            4,
            "public",
            0,
            8,
            "channel r: flowers seat r has set aside (broadcast)",
            _fill_flowers,
        ),
        P(
            "unseen",
            4,
            "private",
            0,
            1,
            "copies not visible to own seat (4 - own hand - own concealed kongs - public "
            "discards/melds/tile in play): channel k = unseen >= k+1",
            _fill_unseen,
        ),
        P(
            "tile_in_play",
            1,
            "public",
            0,
            1,
            "the discard being answered (CLAIM) or the tile added by BuGang (ROB), one-hot",
            _fill_tile_in_play,
        ),
        P(
            "played_by",
            4,
            "public",
            0,
            1,
            "channel r: seat r played the tile in play (broadcast one-hot)",
            _fill_played_by,
        ),
        P(
            "current_seat",
            4,
            "public",
            0,
            1,
            "channel r: it is seat r's turn (drawer/discarder; none when over), broadcast",
            _fill_current_seat,
        ),
        P(
            "seat_wind",
            1,
            "public",
            0,
            1,
            "own seat wind: 1 at its wind tile (F1..F4)",
            _fill_seat_wind,
        ),
        P(
            "prevalent_wind",
            1,
            "public",
            0,
            1,
            "prevalent wind: 1 at its wind tile (F1..F4)",
            _fill_prevalent_wind,
        ),
        P(
            "tiles_left",
            4,
            "public",
            0,
            1,
            "channel r: tiles seat r may still draw / 144 (broadcast)",
            _fill_tiles_left,
        ),
        P(
            "wall_empty",
            4,
            "public",
            0,
            1,
            "channel r: seat r has no tile left to draw (broadcast)",
            _fill_wall_empty,
        ),
        P(
            "phase",
            5,
            "public",
            0,
            1,
            "decision asked, one-hot broadcast: ACT, DISCARD, CLAIM, ROB, OVER",
            _fill_phase,
        ),
        P(
            "after_kong",
            1,
            "public",
            0,
            1,
            "the ACT decision follows a kong replacement draw (broadcast)",
            _fill_after_kong,
        ),
    ]


def _oracle_pieces() -> list[Piece]:
    P = Piece
    return [
        P(
            "other_hands",
            12,
            "oracle",
            0,
            1,
            "channel 4(r-1)+k: concealed hand of seat r (1..3), count >= k+1",
            _fill_other_hands,
        ),
        P(
            "other_angang",
            3,
            "oracle",
            0,
            1,
            "channel r-1: tiles of seat r's concealed kongs (r = 1..3)",
            _fill_other_angang,
        ),
        P(
            "wall_remaining",
            4,
            "oracle",
            0,
            1,
            "undrawn wall tiles (all segments, flowers excluded): channel k = count >= k+1",
            _fill_wall_remaining,
        ),
        P(
            "next_draw",
            4,
            "oracle",
            0,
            1,
            "channel r: next front-of-wall tile seat r would draw (zero if a flower or none)",
            _fill_next_draw,
        ),
    ]


PLANES_V0_DESCRIPTION = (
    "Tile-count planes of everything one seat may see: own hand, all melds (another seat's "
    "concealed kong only as a count), discards, flowers, unseen tiles, the tile in play, winds, "
    "wall sizes and the decision asked. Seats relative to the observer."
)
ORACLE_V0_DESCRIPTION = (
    "planes-v0 followed by hidden information (other concealed hands and concealed kongs, the "
    "wall): for oracle-guided training only."
)


# --------------------------------------------------------------------------- fused planes-v0
# The piece functions above are the readable reference; the encoders below compute the same
# planes-v0 bytes in one fused pass (checked by tests/test_encoding_golden.py and against a
# plain piece-by-piece Encoder along whole games):
# * the per-seat tile planes (chows, pungs, kongs, discards, the four most recent discards) of
#   every game are kept in a cache (:class:`_SeatCounts`) that stores the inputs it was
#   computed from and, at each call, recomputes only the (game, seat) rows whose discards or
#   melds differ from them: so it is exact for any state, however it was reached, and cheap
#   when few rows changed (a step changes at most one seat's discards and melds per game);
# * the cache is seat-major (all planes of one seat contiguous): the four relative seats of
#   every observer are gathered at once as ``(N, 4 rel, 8, 34)`` blocks; the per-seat numbers
#   broadcast over the tiles (concealed kongs, flowers, played by, current seat, wall empty,
#   tiles left) are gathered the same way from a small per-call ``(B, 4, k)`` table;
# * every channel is assigned densely (no zeroing, no scatter) as uint8 into a scratch buffer
#   kept by the encoder, converted to float32 by chunks of rows (the only non-integer piece,
#   ``tiles_left``, is written right after each chunk).

_SB_CHI, _SB_PENG, _SB_GANG, _SB_DISCARDS, _SB_RECENT = 0, 1, 2, 3, 4
_SB_CHANNELS = _SB_RECENT + N_RECENT  # chi, peng, gang, discards, recent k = 0..3
_K4 = np.arange(4, dtype=np.int8)[None, :, None]
_M_CHI, _M_PENG, _M_GANG, _M_ANGANG = (
    int(MeldKind.CHI),
    int(MeldKind.PENG),
    int(MeldKind.GANG),
    int(MeldKind.ANGANG),
)
_MELD_CHANNEL = np.full(5, -1, dtype=np.intp)
_MELD_CHANNEL[_M_PENG] = _SB_PENG
_MELD_CHANNEL[_M_GANG] = _SB_GANG
_PHASES = np.arange(5)[None, :]
_S_ANGANG, _S_FLOWERS, _S_PLAYED, _S_CURRENT, _S_EMPTY = range(5)  # per-seat broadcast table
_SEATS = np.arange(4)[None, :]
_CHUNK = 64  # rows converted at a time (64 x 75 x 34 float32 = 650 KB)


def _rows_changed(new: np.ndarray, old: np.ndarray) -> np.ndarray:
    """``(B, 4) bool``: the rows (last axis) of ``new`` and ``old (B, 4, K)`` that differ.

    Compares whole rows as 8/4/2-byte words when the layout allows (XOR, then OR over the few
    words of a row: same result as the element-wise test, far fewer elements)."""
    if new.dtype == old.dtype and new.flags.c_contiguous and old.flags.c_contiguous:
        nbytes = new.shape[-1] * new.itemsize
        for w, dt in ((8, np.int64), (4, np.int32), (2, np.int16)):
            if nbytes % w == 0 and nbytes // w <= 8:
                x = new.view(dt) ^ old.view(dt)
                acc = x[..., 0]
                for i in range(1, x.shape[-1]):
                    acc = acc | x[..., i]
                return acc != 0
    return (new != old).any(axis=-1)


class _SeatCounts:
    """Per-seat public tile planes of B games, validated by input diffs.

    Attributes:
        blocks: ``(B, 4, 8, 34) uint8``: per absolute seat, channel 0 chows containing the
            tile, 1 pungs, 2 melded kongs, 3 discards (claimed included), 4 + k the (k+1)-th
            most recent discard (one-hot).
    """

    def __init__(self, b: int, discard_slots: int, meld_slots: int):
        self.blocks = np.zeros((b, 4, _SB_CHANNELS, _T), dtype=np.uint8)
        # inputs the planes were computed from (-2: never computed, differs from any state)
        self.discards = np.full((b, 4, discard_slots), -2, dtype=np.int8)
        self.n_discards = np.full((b, 4), -2, dtype=np.int8)
        self.meld_kind = np.full((b, 4, meld_slots), -2, dtype=np.int8)
        self.meld_tile = np.full((b, 4, meld_slots), -2, dtype=np.int8)

    def update(self, state, games: np.ndarray | None = None) -> np.ndarray:
        """Bring the planes up to date with ``state`` (only the rows of ``games (G,)``, unique
        game indices, if given: the other rows keep their own, still consistent, inputs);
        returns ``blocks``."""
        d, nd = state.discards, state.n_discards
        if games is None:
            gi, si = np.nonzero(_rows_changed(d, self.discards) | (nd != self.n_discards))
        else:
            changed = _rows_changed(d[games], self.discards[games])
            li, si = np.nonzero(changed | (nd[games] != self.n_discards[games]))
            gi = games[li]
        if gi.size:
            rows = d[gi, si]  # (R, 48)
            self.discards[gi, si] = rows
            n = nd[gi, si]
            self.n_discards[gi, si] = n
            r = gi.size
            block = np.zeros((r, _SB_CHANNELS - _SB_DISCARDS, _T + 1), dtype=np.uint8)
            idx = np.arange(r, dtype=np.intp)[:, None] * (_T + 1) + 1 + rows
            cnt = np.bincount(idx.reshape(-1), minlength=r * (_T + 1)).reshape(r, _T + 1)
            block[:, 0] = cnt
            # recent discards: column tile + 1 of channel 1 + k (column 0 collects no tile)
            pos = n.astype(np.intp)[:, None] - 1 - np.arange(N_RECENT)[None, :]  # (R, K)
            ri, k = np.nonzero(pos >= 0)
            tiles = rows[ri, pos[ri, k]].astype(np.intp)
            ok = (tiles >= 0) & (tiles < _T)
            block[ri[ok], 1 + k[ok], 1 + tiles[ok]] = 1
            self.blocks[gi, si, _SB_DISCARDS:] = block[:, :, 1:]
        kind, tile = state.meld_kind, state.meld_tile
        if games is None:
            changed = _rows_changed(kind, self.meld_kind) | _rows_changed(tile, self.meld_tile)
            gi, si = np.nonzero(changed)
        else:
            changed = _rows_changed(kind[games], self.meld_kind[games])
            changed |= _rows_changed(tile[games], self.meld_tile[games])
            li, si = np.nonzero(changed)
            gi = games[li]
        if gi.size:
            self.meld_kind[gi, si] = kind[gi, si]
            self.meld_tile[gi, si] = tile[gi, si]
            k, t = kind[gi, si], tile[gi, si]  # (R, 4 slots)
            block = np.zeros((gi.size, 3, _T), dtype=np.uint8)  # chi, peng, gang
            ri, j = np.nonzero((t >= 0) & (k != _M_CHI))  # pungs/kongs: unique per tile
            block[ri, _MELD_CHANNEL[k[ri, j]], t[ri, j]] = 1
            for jj in range(k.shape[1]):  # chows may repeat: add slot by slot
                ri = np.nonzero(k[:, jj] == _M_CHI)[0]
                mid = t[ri, jj].astype(np.intp)
                for dt in (-1, 0, 1):
                    block[ri, _SB_CHI, mid + dt] += 1
            self.blocks[gi, si, :3] = block
        return self.blocks


def _fused_planes_v0(
    ctx: EncodeContext, out: np.ndarray, blocks: np.ndarray, u8, sub=None, inv=None
) -> None:
    """Write the 75 planes-v0 channels of ``out (N, >= 75, 34) float32`` (see the note above);
    ``out`` may be uninitialised: all 75 channels are assigned. ``blocks``: the up-to-date
    :attr:`_SeatCounts.blocks` of ``ctx.state`` (at least for the observed games); ``u8``:
    ``(N, 75, 34) uint8`` scratch (any content: every channel is assigned). ``sub``, ``inv``:
    optional unique observed games and each observer's index in them (per-game tables are
    then built for those games only)."""
    st = ctx.state
    g, s = ctx.games, ctx.seats
    n = g.shape[0]

    def per_game(a: np.ndarray) -> np.ndarray:
        return a if sub is None else a[sub]

    gt = g if sub is None else inv  # observer's row in the per-game tables
    off = _OFFSETS
    # ---- per absolute seat, for the four relative seats of each observer (r = seat s + r)
    rel = blocks[g[:, None], ctx.rel]  # (N, 4 rel, 8 ch, 34)
    o = off["chi"]  # chi, peng, gang: consecutive, channel 4 * kind + r
    u8[:, o : o + 12].reshape(n, 3, 4, _T)[...] = rel[:, :, _SB_CHI : _SB_GANG + 1].transpose(
        0, 2, 1, 3
    )
    o = off["discards"]
    u8[:, o : o + 4] = rel[:, :, _SB_DISCARDS]
    o = off["recent_discards"]  # channel 4 r + k
    u8[:, o : o + 4 * N_RECENT].reshape(n, 4, N_RECENT, _T)[...] = rel[:, :, _SB_RECENT:]
    # numbers per absolute seat, broadcast over the tiles
    tiles_left = per_game(st.tiles_left)
    kongs = (per_game(st.meld_kind) == _M_ANGANG).view(np.uint8)  # (B, 4, slots) 0/1
    table = np.empty((kongs.shape[0], 4, 5), dtype=np.uint8)
    n_kongs = kongs[:, :, 0].copy()
    for j in range(1, kongs.shape[2]):
        n_kongs += kongs[:, :, j]
    table[:, :, _S_ANGANG] = n_kongs
    table[:, :, _S_FLOWERS] = per_game(st.flower_count)
    table[:, :, _S_PLAYED] = per_game(st.played_by)[:, None] == _SEATS
    table[:, :, _S_CURRENT] = (per_game(st.current_seat)[:, None] == _SEATS) & (
        per_game(st.phase)[:, None] != _P_OVER
    )
    table[:, :, _S_EMPTY] = tiles_left <= 0
    grel = gt[:, None], ctx.rel  # (N, 4 rel) rows of the per-game tables
    per = table[grel]  # (N, 4 rel, 5)
    o = off["angang_count"]
    u8[:, o : o + 4] = per[:, :, _S_ANGANG, None]
    o = off["flowers"]
    u8[:, o : o + 4] = per[:, :, _S_FLOWERS, None]
    o = off["played_by"]  # played_by, current_seat: consecutive
    u8[:, o : o + 8].reshape(n, 2, 4, _T)[...] = per[:, :, _S_PLAYED : _S_CURRENT + 1].transpose(
        0, 2, 1
    )[:, :, :, None]
    o = off["wall_empty"]
    u8[:, o : o + 4] = per[:, :, _S_EMPTY, None]
    # ---- the observer's own (private) channels
    hand = st.hand[g, s]  # (N, 34) int8
    o = off["hand"]
    u8[:, o : o + 4] = hand[:, None, :] > _K4
    u8[:, off["drawn_tile"]] = st.drawn_tile[g, s][:, None] == _TILES
    ak = st.angang_tile[g, s]  # (N, 4); a tile is in at most one own concealed kong
    own_kong = u8[:, off["own_angang"]]
    own_kong[...] = 0
    ri, j = np.nonzero(ak >= 0)
    own_kong[ri, ak[ri, j]] = 1
    unseen = 4 - hand - st.visible_count[g] - 4 * own_kong.view(np.int8)  # int8: -12..4
    won = np.nonzero(_won_discard(st, g, s))[0]
    unseen[won, st.tile_in_play[g[won]].astype(np.intp)] += 1  # as _fill_unseen
    o = off["unseen"]
    u8[:, o : o + 4] = unseen[:, None, :] > _K4
    # ---- per game / per observer broadcasts
    u8[:, off["tile_in_play"]] = st.tile_in_play[g][:, None] == _TILES
    wind = 27 + (s - st.dealer[g]) % 4
    u8[:, off["seat_wind"]] = wind[:, None] == _TILES
    u8[:, off["prevalent_wind"]] = (27 + st.prevalent_wind[g].astype(np.intp))[:, None] == _TILES
    o = off["phase"]
    u8[:, o : o + 5] = (st.phase[g][:, None] == _PHASES)[:, :, None]
    u8[:, off["after_kong"]] = st.after_kong[g][:, None]
    o = off["tiles_left"]
    left = (tiles_left / TILES_LEFT_SCALE).astype(np.float32)  # as the piece: f64 -> f32
    left = left[grel][:, :, None]  # (N, 4 rel, 1)
    # one uint8 -> float32 pass, then tiles_left, by chunks of rows still in cache
    for i in range(0, n, _CHUNK):
        j = min(i + _CHUNK, n)
        out[i:j, :_C] = u8[i:j]
        out[i:j, o : o + 4] = left[i:j]


class _PlanesEncoder(Encoder):
    """An encoder whose first channels are planes-v0, computed fused (byte-identical to the
    pieces); any further pieces (oracle) are filled by their own functions. Holds one
    :class:`_SeatCounts` cache per batch size (exact whatever states it is given)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._counts: dict[tuple, _SeatCounts] = {}
        self._scratch = np.empty((0, _C, _T), dtype=np.uint8)  # reused uint8 planes buffer

    def _fill(self, ctx: EncodeContext, out: np.ndarray) -> None:
        st = ctx.state
        key = st.discards.shape + st.meld_kind.shape
        cache = self._counts.get(key)
        if cache is None:
            if len(self._counts) >= 4:  # a few batch sizes at most; drop the oldest
                self._counts.pop(next(iter(self._counts)))
            cache = self._counts[key] = _SeatCounts(
                st.discards.shape[0], st.discards.shape[2], st.meld_kind.shape[2]
            )
        n = ctx.games.shape[0]
        if self._scratch.shape[0] < n:
            self._scratch = np.empty((n, _C, _T), dtype=np.uint8)
        sub = inv = None
        if 4 * n < st.phase.shape[0]:  # few observers: diffs and tables of their games only
            sub, inv = np.unique(ctx.games, return_inverse=True)
        _fused_planes_v0(ctx, out, cache.update(st, sub), self._scratch[:n], sub, inv)
        rest = self.pieces[len(_PLANES_PIECES) :]
        if rest:
            out[:, _C:] = 0.0
            self._fill_pieces(ctx, out, rest)


_PLANES_PIECES = _planes_pieces()
_C = sum(p.channels for p in _PLANES_PIECES)
_OFFSETS = Encoder("planes-v0", _PLANES_PIECES).offsets
_OFFSETS = {name: off for name, (off, _) in _OFFSETS.items()}


def make_planes_v0() -> Encoder:
    """The ``planes-v0`` encoder (C = 75)."""
    return _PlanesEncoder("planes-v0", _planes_pieces(), PLANES_V0_DESCRIPTION)


def make_oracle_v0() -> Encoder:
    """The ``oracle-v0`` encoder: ``planes-v0`` channels first, then the oracle pieces."""
    return _PlanesEncoder("oracle-v0", _planes_pieces() + _oracle_pieces(), ORACLE_V0_DESCRIPTION)


def make_reference(encoder_id: str) -> Encoder:
    """The same channels as ``encoder_id`` ("planes-v0" or "oracle-v0") filled piece by piece by
    the readable reference functions (slow; for tests of the fused path; also "planes-v1").

    Raises:
        ValueError: another id.
    """
    pieces = {
        "planes-v0": _planes_pieces,
        "oracle-v0": lambda: _planes_pieces() + _oracle_pieces(),
        "planes-v1": lambda: _planes_pieces() + _match_pieces(),
    }
    if encoder_id not in pieces:
        raise ValueError(f"no reference for {encoder_id!r}; valid: {', '.join(pieces)}")
    return Encoder(encoder_id, pieces[encoder_id](), "reference implementation")


# --------------------------------------------------------------------------- planes-v1: match
SCORE_SCALE = 100.0
"""Running match scores are given in hundreds of points, clipped to +-SCORE_CLIP."""
SCORE_CLIP = 20.0


def _fill_match_hand(ctx, out):
    h = ctx.state.hand_number[ctx.games].astype(np.intp)
    out[np.arange(h.shape[0]), h] = 1.0


def _fill_match_scores(ctx, out):
    s = ctx.state
    g = ctx.games
    abs_seat = (ctx.seats[:, None] + np.arange(4)[None, :]) % 4  # (N, 4) seat at relative r
    players = s.player_at_seat[g[:, None], abs_seat].astype(np.intp)  # (N, 4)
    scores = s.match_scores[g[:, None], players].astype(np.float32) / SCORE_SCALE
    out[:] = np.clip(scores, -SCORE_CLIP, SCORE_CLIP)[:, :, None]


def _match_pieces() -> list[Piece]:
    P = Piece
    return [
        P(
            "match_hand",
            16,
            "public",
            0,
            1,
            "hand number in the match 1..16, one-hot broadcast (single hands: hand 1)",
            _fill_match_hand,
        ),
        P(
            "match_scores",
            4,
            "public",
            -SCORE_CLIP,
            SCORE_CLIP,
            "channel r: running match score of the player at relative seat r, points / 100, "
            "clipped to +-20 (broadcast)",
            _fill_match_scores,
        ),
    ]


PLANES_V1_DESCRIPTION = (
    "planes-v0 followed by the match context: hand number in the match and every player's "
    "running score (seats relative to the observer); seat and prevalent winds are planes-v0's. "
    "For 16-hand matches (docs/rules.md §4); in single hands hand 1 and zero scores."
)


def make_planes_v1() -> Encoder:
    """The ``planes-v1`` encoder (C = 95): ``planes-v0`` channels first (byte-identical), then
    ``match_hand`` (16) and ``match_scores`` (4)."""
    return _PlanesEncoder("planes-v1", _planes_pieces() + _match_pieces(), PLANES_V1_DESCRIPTION)


register_encoder("planes-v0", make_planes_v0)
register_encoder("oracle-v0", make_oracle_v0)
register_encoder("planes-v1", make_planes_v1)
