"""Incremental completeness test for the engine's hot path (RULES.md section 2, winning forms).

The engine asks, at every discard and every draw, "is this waiting hand complete with tile t
added?" for up to three seats of every game. Instead of building ``(N, 34)`` count arrays each
time, it keeps a small summary of each seat's waiting hand (``13 - 3 * n_melds`` tiles),
refreshed only when that hand changes, and answers with a few uint64 / int64 operations:

* ``planes (N, 4) uint64`` -- bit t of plane k is set where the count of tile t is > k;
* ``suit_keys (N, 3) int64`` -- each suit's nine counts read as one base-5 number;
* ``suit_sums (N, 3) int16`` -- tiles per suit; ``honor_pairs (N,) int16`` -- honors held twice.

:func:`complete_with` is exact for the regular form (a table of the base-5 keys of every suit
that splits into sets, with or without one pair), Seven Pairs, Thirteen Orphans and Honors and
Knitted Tiles; it marks Knitted Straight candidates as ``uncertain`` for the caller to settle
with :func:`mcr_env.scoring.shanten.complete_mask`.
"""

from __future__ import annotations

from itertools import combinations_with_replacement, permutations

import numpy as np

POW5 = 5 ** np.arange(9, dtype=np.int64)
"""``(9,) int64``: base-5 weights of the ranks in a suit key."""


def _build_suit_table() -> np.ndarray:
    """``(5**9,) uint8``: bit 0 where the suit splits into sets only, bit 1 into sets + a pair."""
    sets = []
    for r in range(7):
        v = np.zeros(9, dtype=np.int64)
        v[r : r + 3] = 1
        sets.append(v)
    for r in range(9):
        v = np.zeros(9, dtype=np.int64)
        v[r] = 3
        sets.append(v)
    vecs = [np.zeros(9, dtype=np.int64)]
    for k in range(1, 5):
        for combo in combinations_with_replacement(range(len(sets)), k):
            vecs.append(sum(sets[i] for i in combo))
    v = np.array(vecs)
    v = v[(v <= 4).all(axis=1)]
    table = np.zeros(5**9, dtype=np.uint8)
    table[v @ POW5] |= 1
    for r in range(9):
        w = v.copy()
        w[:, r] += 2
        w = w[(w <= 4).all(axis=1)]
        table[w @ POW5] |= 2
    return table


SUIT_TABLE = _build_suit_table()
_KEYS_SUMS = np.zeros((34, 6))  # counts @ this = (suit keys W T B, suit sizes W T B)
for _s in range(3):
    _KEYS_SUMS[9 * _s : 9 * _s + 9, _s] = POW5
    _KEYS_SUMS[9 * _s : 9 * _s + 9, 3 + _s] = 1
"""``(5**9,) uint8`` indexed by suit key: bit 0 = sets only, bit 1 = sets and one pair."""


def _bitmask(tiles) -> np.uint64:
    out = 0
    for t in tiles:
        out |= 1 << int(t)
    return np.uint64(out)


_U1, _ZERO = np.uint64(1), np.uint64(0)
_HONORS = _bitmask(range(27, 34))
_SIMPLES = _bitmask([t for t in range(27) if t % 9 not in (0, 8)])
_ORPHANS13 = _bitmask([0, 8, 9, 17, 18, 26, *range(27, 34)])
_KNITTED = [
    _bitmask([9 * suit + start + 3 * j for suit, start in enumerate(perm) for j in range(3)])
    for perm in permutations(range(3))
]  # the six knitted arrangements (147 / 258 / 369 over the three suits)
_KNITTED_ROW = np.array(_KNITTED, dtype=np.uint64)[None, :]  # (1, 6)
_KNITTED_OUTSIDE = ~(_KNITTED_ROW | _HONORS)  # (1, 6): tiles outside arrangement + honors
_SUITED = _bitmask(range(27))
_BYTE_BITS = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def _popcount(x: np.ndarray) -> np.ndarray:
    """``(N,) uint64`` -> ``(N,)`` number of set bits."""
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(x)
    return _BYTE_BITS[np.ascontiguousarray(x).view(np.uint8).reshape(-1, 8)].sum(axis=1)


def _knitted_any(p: np.ndarray, rows: np.ndarray, test) -> np.ndarray:
    """``(N,) bool``: ``test(p[rows][:, None])`` (an ``(R, 6)`` test over the six knitted
    arrangements) holds for some arrangement, evaluated on ``rows`` only (False elsewhere)."""
    out = np.zeros(p.shape[0], dtype=bool)
    r = np.nonzero(rows)[0]
    if r.size:
        out[r] = test(p[r][:, None]).any(axis=1)
    return out


_THRESH = np.arange(4, dtype=np.int8)[None, :, None]


def summarize(counts) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Summary of hands for :func:`complete_with`.

    Args:
        counts: ``(N, 34)`` int concealed counts (0..4).

    Returns:
        ``planes (N, 4) uint64``, ``suit_keys (N, 3) int64``, ``suit_sums (N, 3) int16``,
        ``honor_pairs (N,) int16`` (see the module docstring).
    """
    c = np.asarray(counts)
    n = c.shape[0]
    ge = c[:, None, :] > _THRESH  # (N, 4, 34)
    packed = np.zeros((n, 4, 8), dtype=np.uint8)
    packed[:, :, :5] = np.packbits(ge, axis=2, bitorder="little")
    planes = packed.view("<u8").reshape(n, 4)
    ks = c.astype(np.float64) @ _KEYS_SUMS  # exact: keys < 5**9 (a float matmul uses BLAS)
    keys = ks[:, :3].astype(np.int64)
    sums = ks[:, 3:].astype(np.int16)
    honor_pairs = (c[:, 27:] == 2).sum(axis=1).astype(np.int16)
    return planes, keys, sums, honor_pairs


def swap_tile(planes, suit_keys, suit_sums, honor_pairs, add, remove) -> None:
    """Update :func:`summarize` arrays in place for ``add`` then ``remove`` one tile per row.

    Args:
        planes, suit_keys, suit_sums, honor_pairs: summaries of ``(N, 34)`` hands.
        add, remove: ``(N,)`` int tiles (the hand must hold ``remove`` after adding ``add``).
    """
    for tile, sign in ((np.asarray(add, dtype=np.int64), 1), (np.asarray(remove, np.int64), -1)):
        bit = _U1 << tile.astype(np.uint64)
        p, g2, g3, g4 = planes[:, 0], planes[:, 1], planes[:, 2], planes[:, 3]
        c1, c2, c3 = (p & bit) != _ZERO, (g2 & bit) != _ZERO, (g3 & bit) != _ZERO
        c4 = (g4 & bit) != _ZERO
        if sign > 0:
            planes[:, 3] = g4 | (g3 & bit)
            planes[:, 2] = g3 | (g2 & bit)
            planes[:, 1] = g2 | (p & bit)
            planes[:, 0] = p | bit
            delta_pairs = (c1 & ~c2).astype(np.int16) - (c2 & ~c3)  # 1 -> 2, 2 -> 3
        else:
            planes[:, 0] = p & ~(bit & ~g2)
            planes[:, 1] = g2 & ~(bit & ~g3)
            planes[:, 2] = g3 & ~(bit & ~g4)
            planes[:, 3] = g4 & ~bit
            delta_pairs = (c3 & ~c4).astype(np.int16) - (c2 & ~c3)  # 3 -> 2, 2 -> 1
        suited = np.nonzero(tile < 27)[0]
        ts = tile[suited]
        suit_keys[suited, ts // 9] += sign * POW5[ts % 9]
        suit_sums[suited, ts // 9] += sign
        honor = tile >= 27
        honor_pairs += np.where(honor, delta_pairs, 0).astype(np.int16)


def complete_with(planes, suit_keys, suit_sums, honor_pairs, n_melds, tile):
    """Is each waiting hand complete once ``tile`` is added?

    Args:
        planes, suit_keys, suit_sums, honor_pairs: :func:`summarize` of ``(N, 34)`` hands of
            ``13 - 3 * n_melds`` tiles.
        n_melds: ``(N,)`` int melds declared (0..4).
        tile: ``(N,)`` int tile added (0..33).

    Returns:
        ``(complete (N,) bool, uncertain (N,) bool)``: ``complete`` is exact for the regular
        form, Seven Pairs, Thirteen Orphans and Honors and Knitted Tiles; rows in
        ``uncertain`` (not ``complete``, but holding a knitted arrangement) may still be a
        Knitted Straight and must be tested exactly by the caller.
    """
    tile = np.asarray(tile, dtype=np.int64)
    nm = np.asarray(n_melds)
    bit = _U1 << tile.astype(np.uint64)
    p, g2, g3, g4 = planes[:, 0], planes[:, 1], planes[:, 2], planes[:, 3]
    had1, had2, had3 = (p & bit) != _ZERO, (g2 & bit) != _ZERO, (g3 & bit) != _ZERO
    p, g2, g3, g4 = p | bit, g2 | (p & bit), g3 | (g2 & bit), g4 | (g3 & bit)
    keys = suit_keys.copy()
    sums = suit_sums.astype(np.int16, copy=True)
    r = np.nonzero(tile < 27)[0]
    keys[r, tile[r] // 9] += POW5[tile[r] % 9]
    sums[r, tile[r] // 9] += 1
    honor = tile >= 27
    hp = honor_pairs + (honor & had1 & ~had2) - (honor & had2 & ~had3)
    # regular form: each suit splits into sets (3k tiles) or sets + the pair (3k + 2 tiles),
    # honors are pungs or the pair, exactly one pair in all
    mods = sums % 3
    bits = SUIT_TABLE[keys]
    suit_ok = np.where(mods == 0, bits & 1, np.where(mods == 2, bits & 2, 0)) != 0
    honors_odd = ((p & ~g2) | g4) & _HONORS
    regular = suit_ok.all(axis=1) & (honors_odd == _ZERO) & ((mods == 2).sum(axis=1) + hp == 1)
    concealed = nm == 0
    parity = (p & ~g2) | (g3 & ~g4)
    seven = parity == _ZERO
    orphans = ((p & _SIMPLES) == _ZERO) & ((p & _ORPHANS13) == _ORPHANS13)
    single = g2 == _ZERO
    # knitted forms, tested only where they can matter: Honors and Knitted Tiles needs a
    # concealed hand without pairs, a knitted arrangement needs 9 distinct suited tiles
    honors_knitted = _knitted_any(
        p, concealed & single, lambda pc: (pc & _KNITTED_OUTSIDE) == _ZERO
    )
    complete = regular | (concealed & (seven | orphans | honors_knitted))
    maybe_ks = ~complete & (nm <= 1) & (_popcount(p & _SUITED) >= 9)
    uncertain = _knitted_any(p, maybe_ks, lambda pc: (pc & _KNITTED_ROW) == _KNITTED_ROW)
    return complete, uncertain


_HAS_M1 = _bitmask([t for t in range(27) if t % 9 >= 1])  # tile t - 1 is in t's suit
_HAS_M2 = _bitmask([t for t in range(27) if t % 9 >= 2])
_HAS_P1 = _bitmask([t for t in range(27) if t % 9 <= 7])
_HAS_P2 = _bitmask([t for t in range(27) if t % 9 <= 6])


def _at_most_one_bit(x: np.ndarray) -> np.ndarray:
    return (x & (x - _U1)) == _ZERO


def may_wait(planes, suit_sums, honor_pairs, n_melds) -> np.ndarray:
    """Cheap necessary condition for "some tile completes this waiting hand".

    Args:
        planes, suit_sums, honor_pairs: :func:`summarize` of ``(N, 34)`` hands of
            ``13 - 3 * n_melds`` tiles.
        n_melds: ``(N,)`` int.

    Returns:
        ``(N,) bool``; False only where no tile can complete the hand in any form, so the
        engine skips those seats' Hu tests until their hand changes. Regular form: the tiles
        that cannot be part of a set or the pair (held once or four times without chow
        neighbours; honors held once or four times) must all lie within five ranks of one suit
        (one added tile can fix no more), or be a single honor; the suit sizes must allow one
        tile to make every suit 3k except the pair's. Seven Pairs: at most one odd count.
        Thirteen Orphans: only terminals and honors. Honors and Knitted Tiles: no pair, tiles
        within honors and one knitted arrangement. Knitted Straight: at most one tile of a
        knitted arrangement missing.
    """
    nm = np.asarray(n_melds)
    p, g2, g3, g4 = planes[:, 0], planes[:, 1], planes[:, 2], planes[:, 3]
    odd = (p & ~g2) | g4
    a1 = (p << _U1) & _HAS_M1
    a2 = (p << np.uint64(2)) & _HAS_M2
    b1 = (p >> _U1) & _HAS_P1
    b2 = (p >> np.uint64(2)) & _HAS_P2
    partner = (a2 & a1) | (a1 & b1) | (b1 & b2)
    bad = odd & ~partner  # includes every honor held once or four times
    low = bad & (~bad + _U1)  # lowest set bit
    lo = np.log2(np.maximum(low, _U1).astype(np.float64)).astype(np.int64)
    hi = np.log2(np.maximum(bad, _U1).astype(np.float64)).astype(np.int64)
    same_suit = (lo // 9 == hi // 9) & (hi < 27)
    window = (bad == _ZERO) | (same_suit & (hi - lo <= 4)) | ((lo == hi) & (lo >= 27))
    mods = suit_sums % 3
    n1 = (mods == 1).sum(axis=1)
    n2 = (mods == 2).sum(axis=1)
    hp = honor_pairs
    # after adding one tile: no suit with 3k + 1 and exactly one pair in all
    # after adding one tile (to a suit: +1 to its size; to an honor: a pair or a pung more):
    # no suit of 3k + 1 tiles and exactly one pair in all
    sizes = ((n1 == 1) & (n2 == 0) & (hp == 0)) | ((n1 == 0) & (n2 + hp <= 2))
    regular = window & sizes
    concealed = nm == 0
    parity = (p & ~g2) | (g3 & ~g4)
    seven = _at_most_one_bit(parity)
    orphans = (p & _SIMPLES) == _ZERO
    single = g2 == _ZERO
    # knitted forms, tested only where they can matter (see complete_with): a knitted
    # arrangement missing at most one tile needs 8 distinct suited tiles
    hk = _knitted_any(p, concealed & single, lambda pc: (pc & _KNITTED_OUTSIDE) == _ZERO)
    maybe_ks = (nm <= 1) & (_popcount(p & _SUITED) >= 8)
    ks = _knitted_any(p, maybe_ks, lambda pc: _at_most_one_bit(_KNITTED_ROW & ~pc))
    return regular | (concealed & (seven | orphans | hk)) | ks
