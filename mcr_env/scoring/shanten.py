"""Hand analysis: winning shapes, shanten and waits (docs/rules.md §2, "A winning hand").

A hand is given as its concealed tile counts ``counts`` ``(34,)`` (tile ids of
:mod:`mcr_env.tiles`) plus ``n_melds``, the number of melded sets (chows, pungs, kongs, concealed
kongs) already declared. The concealed part of a complete hand has ``14 - 3 * n_melds`` tiles; a
hand waiting for its last tile has ``13 - 3 * n_melds``.

Winning forms (shape only, the 8-point minimum is the scorer's business):

* regular: ``4 - n_melds`` sets (chow or pung) and a pair;
* Seven Pairs (``n_melds == 0``; four identical tiles count as two pairs);
* Thirteen Orphans (``n_melds == 0``);
* Lesser/Greater Honors and Knitted Tiles (``n_melds == 0``): 14 distinct tiles taken from the
  honors and one knitted arrangement (147, 258, 369 spread over the three suits);
* Knitted Straight (``n_melds <= 1``): the 9 tiles of one knitted arrangement, one set and a pair.

Shanten is the number of tiles still to exchange before the hand is ready (0 = ready, -1 =
complete), with the meaning of PyMahjongGB's ``RegularShanten`` / ``MahjongShanten`` (shape
only, tile availability ignored). For a regular hand it is ``2k - 2m - t - p`` maximised over the
ways of reading the tiles as ``m`` sets, ``t`` partial sets (a pair, two adjacent tiles, or two
tiles with a gap) and ``p <= 1`` pair, with ``m + t <= k = 4 - n_melds``. Hands with
``14 - 3 * n_melds`` tiles are accepted too (the value is then the best shanten after one discard,
or -1 if the hand is complete).

Implementation: each suit's 9 counts are read as one base-5 number (the *suit key*). Two tables
indexed by suit key are built with numpy:

* ``_SUIT_COMPLETE`` ``(5**9,) uint8`` (at import, ~50 ms): bit 0 set if the suit splits into sets
  only, bit 1 if it splits into sets and one pair;
* ``_SUIT_VALUE`` ``(5**9, 10) int8`` (lazily, at the first shanten call, ~0.4 s): for ``b`` in 0..4
  blocks and ``p`` in {0, 1} pairs, the largest ``2m + t`` with ``m + t <= b`` (column
  ``2 * b + p``), -20 where no pair is possible. Honors have a 5**7 table of the same kind.

A hand's value is then a max-plus combination of four table rows over the ways of sharing the
``k`` blocks and the pair among the three suits and the honors.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from mcr_env.tiles import NUM_TILE_KINDS

__all__ = [
    "KNITTED_ARRANGEMENTS",
    "complete_mask",
    "honors_knitted_shanten",
    "is_complete",
    "knitted_straight_shanten",
    "regular_shanten",
    "seven_pairs_shanten",
    "shanten",
    "shanten_batch",
    "thirteen_orphans_shanten",
    "winning_tiles",
]

_POW5_9 = 5 ** np.arange(9, dtype=np.int64)
_POW5_7 = 5 ** np.arange(7, dtype=np.int64)
# Table value where a (blocks, pair) combination is impossible: low enough that a sum over the
# four components using it never wins (the values are 0..8), high enough for int8 sums.
_NO_PAIR = -20

# Thirteen Orphans tiles: 1 and 9 of each suit, all honors.
_ORPHANS = np.array([0, 8, 9, 17, 18, 26, *range(27, 34)], dtype=np.int64)
_IS_ORPHAN = np.zeros(NUM_TILE_KINDS, dtype=bool)
_IS_ORPHAN[_ORPHANS] = True
_ORPHAN_LIST = _ORPHANS.tolist()


def _knitted_arrangements() -> np.ndarray:
    """The 6 knitted arrangements: ``(6, 34) int8``, 1 on the 9 tiles of 147/258/369."""
    out = np.zeros((6, NUM_TILE_KINDS), dtype=np.int8)
    for i, perm in enumerate(itertools.permutations(range(3))):
        for suit, start in enumerate(perm):  # suit gets ranks start+1, start+4, start+7
            out[i, [suit * 9 + start, suit * 9 + start + 3, suit * 9 + start + 6]] = 1
    return out


KNITTED_ARRANGEMENTS = _knitted_arrangements()
"""``(6, 34) int8``: the knitted arrangements (147, 258, 369 over characters, bamboo, dots in
every order); 1 on the 9 tiles of the arrangement."""
_KNITTED_OR_HONOR = KNITTED_ARRANGEMENTS.astype(bool)
_KNITTED_OR_HONOR[:, 27:] = True


# --------------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------------


def _as_counts(counts) -> np.ndarray:
    """``counts`` as a validated ``(34,) int64`` array (values 0..4)."""
    if isinstance(counts, np.ndarray):
        arr = counts
    else:
        try:
            arr = np.asarray(counts)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"counts must be an array-like of 34 ints: {exc}") from None
    if arr.dtype.kind not in "iu":
        raise TypeError(f"counts must hold integers, got dtype {arr.dtype}")
    if arr.shape != (NUM_TILE_KINDS,):
        raise ValueError(f"counts must have shape (34,), got {arr.shape}")
    arr = arr.astype(np.int64)
    lo, hi = arr.min(), arr.max()
    if lo < 0:
        raise ValueError(f"counts must be >= 0; tile {int(arr.argmin())} has count {int(lo)}")
    if hi > 4:
        raise ValueError(f"counts must be <= 4; tile {int(arr.argmax())} has count {int(hi)}")
    return arr


def _as_n_melds(n_melds) -> int:
    if isinstance(n_melds, (bool, np.bool_)) or not isinstance(n_melds, (int, np.integer)):
        raise TypeError(f"n_melds must be an int, got {type(n_melds).__name__}")
    n = int(n_melds)
    if not 0 <= n <= 4:
        raise ValueError(f"n_melds must be in 0..4, got {n}")
    return n


def _check_total(arr: np.ndarray, n: int, extras: Sequence[int]) -> int:
    """Tile total of ``arr``; raises unless it is ``e - 3 * n`` for some ``e`` in ``extras``."""
    total = int(arr.sum())
    allowed = [e - 3 * n for e in extras]
    if total not in allowed:
        want = " or ".join(str(a) for a in allowed)
        raise ValueError(f"a hand with n_melds={n} must hold {want} concealed tiles, got {total}")
    return total


def _as_batch(counts, n_melds, extras: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Validated ``(N, 34) int64`` counts and ``(N,) int64`` meld numbers."""
    c = np.asarray(counts)
    n = np.asarray(n_melds)
    if c.dtype.kind not in "iu":
        raise TypeError(f"counts must be an integer array, got dtype {c.dtype}")
    if n.dtype.kind not in "iu":
        raise TypeError(f"n_melds must be an integer array, got dtype {n.dtype}")
    if c.ndim != 2 or c.shape[1] != NUM_TILE_KINDS:
        raise ValueError(f"counts must have shape (N, 34), got {c.shape}")
    if n.shape != (c.shape[0],):
        raise ValueError(f"n_melds must have shape ({c.shape[0]},), got {n.shape}")
    c = c.astype(np.int64)
    n = n.astype(np.int64)
    if c.size:
        bad = np.argwhere((c < 0) | (c > 4))
        if len(bad):
            r, t = bad[0]
            raise ValueError(f"counts must be in 0..4; row {r} tile {t} has count {c[r, t]}")
        badn = np.flatnonzero((n < 0) | (n > 4))
        if len(badn):
            raise ValueError(f"n_melds must be in 0..4; row {badn[0]} has {n[badn[0]]}")
        total = c.sum(axis=1)
        ok = np.zeros(len(n), dtype=bool)
        for e in extras:
            ok |= total == e - 3 * n
        badr = np.flatnonzero(~ok)
        if len(badr):
            r = badr[0]
            want = " or ".join(str(e - 3 * n[r]) for e in extras)
            raise ValueError(
                f"row {r}: a hand with n_melds={n[r]} must hold {want} concealed tiles, "
                f"got {total[r]}"
            )
    return c, n


# --------------------------------------------------------------------------------------------
# Complete hands
# --------------------------------------------------------------------------------------------


def _suit_blocks(kind: str) -> np.ndarray:
    """Block vectors over the 9 ranks of a suit: ``(K, 9) int8``."""
    rows = []
    if kind in ("set", "all"):
        rows += [np.eye(9, dtype=np.int8)[i] * 3 for i in range(9)]  # pungs
        rows += [np.eye(9, dtype=np.int8)[i : i + 3].sum(0) for i in range(7)]  # chows
    if kind == "all":
        rows += [np.eye(9, dtype=np.int8)[i] * 2 for i in range(9)]  # pair as partial
        rows += [np.eye(9, dtype=np.int8)[i : i + 2].sum(0) for i in range(8)]  # adjacent
        rows += [np.eye(9, dtype=np.int8)[[i, i + 2]].sum(0) for i in range(7)]  # gap
    return np.array(rows, dtype=np.int8)


def _multisets(blocks: np.ndarray, max_blocks: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """All multisets of at most ``max_blocks`` blocks whose sum stays <= 4 per tile.

    Returns one ``(sums (M, D) int8, block ids (M, j) int16)`` pair per size ``j`` (0..max).
    """
    dim = blocks.shape[1]
    levels = [(np.zeros((1, dim), dtype=np.int8), np.zeros((1, 0), dtype=np.int16))]
    for _ in range(max_blocks):
        sums, ids = levels[-1]
        last = ids[:, -1] if ids.shape[1] else np.zeros(len(ids), dtype=np.int16)
        new_s, new_i = [], []
        for b in range(len(blocks)):
            sel = last <= b
            s = sums[sel] + blocks[b]
            keep = (s <= 4).all(axis=1)
            new_s.append(s[keep])
            new_i.append(
                np.concatenate([ids[sel][keep], np.full((keep.sum(), 1), b, np.int16)], axis=1)
            )
        levels.append((np.concatenate(new_s), np.concatenate(new_i)))
    return levels


def _build_suit_complete() -> np.ndarray:
    """``(5**9,) uint8``: bit 0 = splits into sets only, bit 1 = into sets and one pair."""
    table = np.zeros(5**9, dtype=np.uint8)
    pairs = np.eye(9, dtype=np.int8) * 2
    for sums, _ in _multisets(_suit_blocks("set"), 4):
        table[sums.astype(np.int64) @ _POW5_9] |= 1
        with_pair = (sums[:, None, :] + pairs[None, :, :]).reshape(-1, 9)
        with_pair = with_pair[(with_pair <= 4).all(axis=1)]
        table[with_pair.astype(np.int64) @ _POW5_9] |= 2
    return table


_SUIT_COMPLETE = _build_suit_complete()


def _suit_codes(suits: np.ndarray) -> np.ndarray:
    """Completion bits (see ``_SUIT_COMPLETE``) of suit patterns ``(..., 9)`` with counts 0..5.

    A count of 5 (only made up internally by :func:`winning_tiles`: the fifth copy of a tile)
    must contain a pung or the pair, which reduces it to counts <= 4.
    """
    five = suits >= 5
    if not five.any():
        return _SUIT_COMPLETE[suits @ _POW5_9]
    flat = suits.reshape(-1, 9)
    out = np.empty(len(flat), dtype=np.uint8)
    has5 = (flat >= 5).any(axis=1)
    out[~has5] = _SUIT_COMPLETE[flat[~has5] @ _POW5_9]
    rows = flat[has5]
    if (rows > 5).any() or ((rows >= 5).sum(axis=1) > 1).any():
        raise ValueError("internal: a suit pattern with more than one fifth copy")
    e = (rows >= 5).astype(np.int64)
    minus_pung = _SUIT_COMPLETE[(rows - 3 * e) @ _POW5_9]
    minus_pair = _SUIT_COMPLETE[(rows - 2 * e) @ _POW5_9]
    out[has5] = (minus_pung & 1) | (minus_pung & 2) | ((minus_pair & 1) << 1)
    return out.reshape(suits.shape[:-1])


def _regular_parts(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For counts ``(N, 34)``: whether every suit and the honors split into sets with at most
    one pair each, and the number of pairs used. ``(N,) bool, (N,) int64``."""
    codes = _suit_codes(c[:, :27].reshape(-1, 3, 9))  # (N, 3)
    honors = c[:, 27:]
    h_rem = honors % 3
    ok = (codes != 0).all(axis=1) & (h_rem != 1).all(axis=1)
    n_pairs = (codes == 2).sum(axis=1) + (h_rem == 2).sum(axis=1)
    return ok, n_pairs


def _regular_complete(c: np.ndarray) -> np.ndarray:
    """``(N,) bool``: counts ``(N, 34)`` (tile total 3k + 2) read as k sets and one pair."""
    ok, n_pairs = _regular_parts(c)
    return ok & (n_pairs == 1)


def _complete_rows(c: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Unchecked :func:`complete_mask` (counts may include one 5 made by winning_tiles)."""
    total = c.sum(axis=1)
    right_size = total == 14 - 3 * n
    out = _regular_complete(c)
    concealed = (n == 0) & right_size
    if concealed.any():
        cc = c[concealed]
        seven = (cc % 2 == 0).all(axis=1)
        orphans = (cc[:, _ORPHANS] >= 1).all(axis=1) & (cc[:, ~_IS_ORPHAN] == 0).all(axis=1)
        present = cc > 0
        distinct14 = (cc <= 1).all(axis=1)
        outside = present[:, None, :] & ~_KNITTED_OR_HONOR[None, :, :]  # (M, 6, 34)
        honors_knitted = distinct14 & (~outside.any(axis=2)).any(axis=1)
        out[concealed] |= seven | orphans | honors_knitted
    knitted_ok = (n <= 1) & right_size
    if knitted_ok.any():
        cc = c[knitted_ok]
        rem = cc[:, None, :] - KNITTED_ARRANGEMENTS[None, :, :]  # (M, 6, 34)
        has_all = (rem >= 0).all(axis=2)
        rem = np.maximum(rem, 0).reshape(-1, NUM_TILE_KINDS)
        ks = has_all & _regular_complete(rem).reshape(-1, 6)
        out[knitted_ok] |= ks.any(axis=1)
    return out & right_size


def complete_mask(counts, n_melds) -> np.ndarray:
    """Which hands are complete (any winning form, shape only). docs/rules.md §2.

    Args:
        counts: ``(N, 34)`` integer concealed tile counts (0..4), each row holding
            ``14 - 3 * n_melds`` tiles.
        n_melds: ``(N,)`` integer number of declared melds (0..4) of each hand.

    Returns:
        ``(N,) bool``: True where the concealed tiles complete the hand as 4 - n_melds sets and a
        pair, Seven Pairs, Thirteen Orphans, Honors and Knitted Tiles (n_melds = 0) or Knitted
        Straight (n_melds <= 1). Vectorized: no Python loop over N.

    Raises:
        TypeError: non-integer arrays.
        ValueError: wrong shapes, counts outside 0..4, n_melds outside 0..4, or a row whose tile
            total is not 14 - 3 * n_melds (the first offending row is named).
    """
    c, n = _as_batch(counts, n_melds, (14,))
    if len(c) == 0:
        return np.zeros(0, dtype=bool)
    return _complete_rows(c, n)


def is_complete(counts, n_melds: int = 0) -> bool:
    """Whether a hand of ``14 - 3 * n_melds`` concealed tiles is complete (any winning form).

    Args:
        counts: ``(34,)`` concealed tile counts (ints 0..4).
        n_melds: number of declared melds, 0..4.

    Returns:
        True for 4 - n_melds sets and a pair, Seven Pairs, Thirteen Orphans, Honors and Knitted
        Tiles, or Knitted Straight (docs/rules.md §2; shape only, no 8-point check).

    Raises:
        TypeError: non-integer counts or n_melds.
        ValueError: wrong shape, counts outside 0..4, n_melds outside 0..4, or a tile total
            other than 14 - 3 * n_melds.
    """
    arr = _as_counts(counts)
    n = _as_n_melds(n_melds)
    _check_total(arr, n, (14,))
    if _regular_complete_single(arr):
        return True
    if n > 1:
        return False
    lst = arr.tolist()
    present = 0
    for t, x in enumerate(lst):
        if x:
            present |= 1 << t
    if n == 0:
        if all(x % 2 == 0 for x in lst):  # Seven Pairs
            return True
        if present == _ORPHAN_MASK:  # Thirteen Orphans (14 tiles on the 13 kinds)
            return True
        if max(lst) == 1 and any(present & ~(m | _HONOR_MASK) == 0 for m in _KNITTED_MASKS):
            return True
    for i, m in enumerate(_KNITTED_MASKS):  # Knitted Straight
        if present & m == m and _regular_complete_single(arr - KNITTED_ARRANGEMENTS[i]):
            return True
    return False


def _regular_complete_single(arr: np.ndarray) -> bool:
    """Whether one ``(34,)`` hand (counts 0..4, 3k + 2 tiles) is k sets and a pair."""
    codes = _SUIT_COMPLETE[arr[:27].reshape(3, 9) @ _POW5_9].tolist()
    if 0 in codes:
        return False
    pairs = codes.count(2)
    for h in arr[27:].tolist():
        r = h % 3
        if r == 1:
            return False
        pairs += r == 2
    return pairs == 1


def winning_tiles(counts, n_melds: int = 0) -> list[int]:
    """Tile kinds that complete a hand of ``13 - 3 * n_melds`` concealed tiles, ascending.

    Shape only: a tile is listed even if all four copies are already in the hand, and the
    8-point minimum is ignored (docs/rules.md §2).

    Args:
        counts: ``(34,)`` concealed tile counts (ints 0..4).
        n_melds: number of declared melds, 0..4.

    Returns:
        list of tile ids (0..33).

    Raises:
        TypeError: non-integer counts or n_melds.
        ValueError: wrong shape, counts outside 0..4, n_melds outside 0..4, or a tile total
            other than 13 - 3 * n_melds.
    """
    arr = _as_counts(counts)
    n = _as_n_melds(n_melds)
    _check_total(arr, n, (13,))
    if shanten(arr, n) > 0:
        return []
    cand = arr[None, :] + np.eye(NUM_TILE_KINDS, dtype=np.int64)
    mask = _complete_rows(cand, np.full(NUM_TILE_KINDS, n, dtype=np.int64))
    return np.flatnonzero(mask).tolist()


# --------------------------------------------------------------------------------------------
# Shanten tables
# --------------------------------------------------------------------------------------------

_MAX_BLOCKS = 4
_NUM_COLS = 2 * (_MAX_BLOCKS + 1)  # column 2 * b + p


def _honor_blocks() -> np.ndarray:
    eye = np.eye(7, dtype=np.int8)
    return np.concatenate([eye * 3, eye * 2])  # pungs, pairs as partial sets


def _build_value_table(blocks: np.ndarray, values: np.ndarray, dim: int) -> np.ndarray:
    """``(5**dim, 10) int8`` value table of one suit (dim 9) or of the honors (dim 7).

    Column ``2 * b + p``: the largest ``2m + t`` over readings with ``m + t <= b`` blocks
    (``blocks`` with ``values`` 2 for sets, 1 for partial sets) and exactly ``p`` pairs, the
    other tiles left isolated; ``_NO_PAIR`` where no reading has the pair.
    """
    pow5 = 5 ** np.arange(dim, dtype=np.int64)
    size = 5**dim
    flat = np.full(size * _NUM_COLS, _NO_PAIR, dtype=np.int8)
    pairs = np.eye(dim, dtype=np.int8) * 2
    for j, (sums, ids) in enumerate(_multisets(blocks, _MAX_BLOCKS)):
        val = values[ids].sum(axis=1).astype(np.int8) if j else np.zeros(len(sums), np.int8)
        keys = sums.astype(np.int64) @ pow5
        np.maximum.at(flat, keys * _NUM_COLS + 2 * j, val)
        with_pair = sums[:, None, :] + pairs[None, :, :]  # (M, dim, dim)
        ok = (with_pair <= 4).all(axis=2)
        pkeys = with_pair[ok].astype(np.int64) @ pow5
        pval = np.broadcast_to(val[:, None], ok.shape)[ok]
        np.maximum.at(flat, pkeys * _NUM_COLS + 2 * j + 1, pval)
    table = flat.reshape((5,) * dim + (_MAX_BLOCKS + 1, 2))
    # at most b blocks: running max over b; then leftover tiles stay isolated: a pattern is
    # worth the best of every pattern below it (running max along each tile's count).
    for axis in (dim, *range(dim)):
        _running_max(table, axis)
    return table.reshape(size, _NUM_COLS)


def _running_max(a: np.ndarray, axis: int) -> None:
    """In place ``a = np.maximum.accumulate(a, axis)`` by slices (faster on strided axes)."""
    moved = np.moveaxis(a, axis, 0)
    for i in range(1, moved.shape[0]):
        np.maximum(moved[i], moved[i - 1], out=moved[i])


def _allocations(k: int) -> tuple[np.ndarray, np.ndarray]:
    """Ways to share ``k`` blocks and at most one pair among 3 suits + honors.

    Returns ``idx (A, 4) int64`` flat indices into a ``(4, 10)`` row block and
    ``bonus (A,) int16`` (1 where the pair is used).
    """
    idx, bonus = [], []
    for alloc in itertools.product(range(k + 1), repeat=4):
        if sum(alloc) != k:
            continue
        for q in range(-1, 4):
            idx.append([c * _NUM_COLS + 2 * b + (c == q) for c, b in enumerate(alloc)])
            bonus.append(int(q >= 0))
    return np.array(idx, dtype=np.int64), np.array(bonus, dtype=np.int16)


_ALLOC = [_allocations(k) for k in range(_MAX_BLOCKS + 1)]
# Per k: the four index columns and the bonus, for the single-hand path.
_ALLOC_COLS = [
    (*(np.ascontiguousarray(idx[:, j]) for j in range(4)), bonus.astype(np.int8))
    for idx, bonus in _ALLOC
]
# Bit masks over tile ids (bit t = tile t) for the single-hand special forms.
_ORPHAN_MASK = sum(1 << int(t) for t in _ORPHANS)
_KNITTED_MASKS = [sum(1 << int(t) for t in np.flatnonzero(row)) for row in KNITTED_ARRANGEMENTS]
_HONOR_MASK = sum(1 << t for t in range(27, 34))
_TABLES: dict[str, np.ndarray] = {}


def _value_tables() -> tuple[np.ndarray, np.ndarray]:
    """The suit and honor value tables, built on first use (about 0.4 s)."""
    if not _TABLES:
        suit_blocks = _suit_blocks("all")
        suit_values = np.array([2] * 16 + [1] * 24, dtype=np.int8)
        honor_values = np.array([2] * 7 + [1] * 7, dtype=np.int8)
        _TABLES["honor"] = _build_value_table(_honor_blocks(), honor_values, 7)
        _TABLES["suit"] = _build_value_table(suit_blocks, suit_values, 9)
    return _TABLES["suit"], _TABLES["honor"]


def _seven_pairs(c: np.ndarray) -> np.ndarray:
    return 6 - (c // 2).sum(axis=-1)


def _thirteen_orphans(c: np.ndarray) -> np.ndarray:
    o = c[..., _ORPHANS]
    return 13 - (o > 0).sum(axis=-1) - (o > 1).any(axis=-1)


def _honors_knitted(c: np.ndarray) -> np.ndarray:
    present = (c > 0).astype(np.int64)  # (M, 34)
    return 13 - (present @ _KNITTED_OR_HONOR.T.astype(np.int64)).max(axis=-1)


def _single(counts, n_melds, form: str) -> tuple[np.ndarray, int]:
    arr = _as_counts(counts)
    n = _as_n_melds(n_melds)
    _check_total(arr, n, (13, 14))
    if form and n > (1 if form == "Knitted Straight" else 0):
        raise ValueError(
            f"{form} needs n_melds <= {1 if form == 'Knitted Straight' else 0}, got {n}"
        )
    return arr, n


_SHANTEN_DOC = """

    Args:
        counts: ``(34,)`` concealed tile counts (ints 0..4), ``13 - 3 * n_melds`` tiles (or
            ``14 - 3 * n_melds``: the best value after one discard, -1 if complete).
        n_melds: number of declared melds, 0..4.

    Returns:
        int: tiles to exchange before the hand is ready (0 = ready, -1 = complete), shape only,
        as PyMahjongGB computes it.

    Raises:
        TypeError: non-integer counts or n_melds.
        ValueError: wrong shape, counts outside 0..4, n_melds outside 0..4, a wrong tile total,
            or (for a special form) too many melds for that form.
"""


def regular_shanten(counts, n_melds: int = 0) -> int:
    """Shanten toward ``4 - n_melds`` sets and a pair (docs/rules.md §2)."""
    arr, n = _single(counts, n_melds, "")
    return _regular_single(arr, 4 - n)


def seven_pairs_shanten(counts, n_melds: int = 0) -> int:
    """Shanten toward Seven Pairs (four identical tiles count as two pairs); n_melds = 0."""
    arr, _ = _single(counts, n_melds, "Seven Pairs")
    return int(_seven_pairs(arr))


def thirteen_orphans_shanten(counts, n_melds: int = 0) -> int:
    """Shanten toward Thirteen Orphans; n_melds = 0."""
    arr, _ = _single(counts, n_melds, "Thirteen Orphans")
    return int(_thirteen_orphans(arr))


def honors_knitted_shanten(counts, n_melds: int = 0) -> int:
    """Shanten toward Lesser/Greater Honors and Knitted Tiles; n_melds = 0."""
    arr, _ = _single(counts, n_melds, "Honors and Knitted Tiles")
    return int(_honors_knitted(arr[None])[0])


def knitted_straight_shanten(counts, n_melds: int = 0) -> int:
    """Shanten toward Knitted Straight (the 9 knitted tiles, a set and a pair); n_melds <= 1."""
    arr, n = _single(counts, n_melds, "Knitted Straight")
    return _knitted_straight_single(arr, n)


def shanten(counts, n_melds: int = 0) -> int:
    """Shanten of a hand: the minimum over the regular form, Seven Pairs, Thirteen Orphans,
    Honors and Knitted Tiles and Knitted Straight (the forms allowed with ``n_melds`` melds),
    as PyMahjongGB's ``MahjongShanten``."""
    arr, n = _single(counts, n_melds, "")
    best = _regular_single(arr, 4 - n)
    if n > 1 or best == -1:
        return best
    lst = arr.tolist()
    present = 0
    for t, x in enumerate(lst):
        if x:
            present |= 1 << t
    knitted_counts = [(present & m).bit_count() for m in _KNITTED_MASKS]
    knitted_got = max(knitted_counts)
    if n == 0:
        pairs = 0
        for x in lst:
            pairs += x >> 1
        orphans = 13 - (present & _ORPHAN_MASK).bit_count()
        orphans -= any(lst[t] > 1 for t in _ORPHAN_LIST)
        honors_knitted = 13 - knitted_got - (present & _HONOR_MASK).bit_count()
        best = min(best, 6 - pairs, orphans, honors_knitted)
    # Knitted Straight: each arrangement's value is at least (missing tiles - 1).
    for i, got in enumerate(knitted_counts):
        if 9 - got - 1 < best:
            rem = arr - np.minimum(arr, KNITTED_ARRANGEMENTS[i])
            best = min(best, 9 - got + _regular_single(rem, 1 - n))
    return best


def _knitted_straight_single(arr: np.ndarray, n: int) -> int:
    """Knitted Straight shanten of one validated ``(34,) int64`` hand with ``n <= 1`` melds."""
    suit, honor = _value_tables()
    got = np.minimum(arr, KNITTED_ARRANGEMENTS)  # (6, 34)
    rem = arr - got
    g = np.concatenate(
        (suit[rem[:, :27].reshape(6, 3, 9) @ _POW5_9].reshape(6, 30), honor[rem[:, 27:] @ _POW5_7]),
        axis=1,
    )
    k = 1 - n
    i0, i1, i2, i3, bonus = _ALLOC_COLS[k]
    best = (g[:, i0] + g[:, i1] + g[:, i2] + g[:, i3] + bonus).max(axis=1)
    return int((9 + 2 * k - got.sum(axis=1) - best).min())


def _regular_single(arr: np.ndarray, k: int) -> int:
    """Regular shanten of one validated ``(34,) int64`` hand needing ``k`` more sets."""
    suit, honor = _value_tables()
    g = np.concatenate((suit[arr[:27].reshape(3, 9) @ _POW5_9].ravel(), honor[arr[27:] @ _POW5_7]))
    i0, i1, i2, i3, bonus = _ALLOC_COLS[k]
    return 2 * k - int((g[i0] + g[i1] + g[i2] + g[i3] + bonus).max())


for _f in (
    regular_shanten,
    seven_pairs_shanten,
    thirteen_orphans_shanten,
    honors_knitted_shanten,
    knitted_straight_shanten,
    shanten,
):
    _f.__doc__ += _SHANTEN_DOC
del _f


def shanten_batch(counts, n_melds) -> np.ndarray:
    """Batched :func:`shanten`: one compiled (numba) loop over the rows.

    Args:
        counts: ``(N, 34)`` integer concealed tile counts (0..4), each row ``13 - 3 * n_melds``
            or ``14 - 3 * n_melds`` tiles.
        n_melds: ``(N,)`` integer number of declared melds (0..4).

    Returns:
        ``(N,) int8`` shanten (-1 = complete), minimum over all forms allowed for each row.

    Raises:
        TypeError: non-integer arrays.
        ValueError: wrong shapes, counts or n_melds out of range, or a wrong tile total (the
            first offending row is named).
    """
    c, n = _batch_input(counts, n_melds)
    out = np.empty(len(c), dtype=np.int8)
    if len(c) == 0:
        return out
    suit, honor = _value_tables()
    _kernels().shanten_rows(c, n, suit, honor, out)
    return out


# --------------------------------------------------------------------------------------------
# Compiled batch kernel (numba)
# --------------------------------------------------------------------------------------------

_KERNEL: dict[str, object] = {}
# Integer dtypes the kernel takes as they are (one compiled specialisation each); other
# integer dtypes are converted to int64 first.
_NATIVE_DTYPES = (np.dtype(np.int8), np.dtype(np.int64))


def _batch_input(counts, n_melds) -> tuple[np.ndarray, np.ndarray]:
    """Validated ``(N, 34)`` counts and ``(N,)`` meld numbers for the kernel, as in
    :func:`_as_batch` (same errors) but without copies for C-contiguous int8/int64 input."""
    c = counts if isinstance(counts, np.ndarray) else np.asarray(counts)
    n = n_melds if isinstance(n_melds, np.ndarray) else np.asarray(n_melds)
    if (
        c.ndim == 2
        and c.shape[1] == NUM_TILE_KINDS
        and n.shape == (c.shape[0],)
        and c.dtype in _NATIVE_DTYPES
        and n.dtype in _NATIVE_DTYPES
    ):
        c = np.ascontiguousarray(c)
        n = np.ascontiguousarray(n)
        if _kernels().rows_valid(c, n, 13, 14):
            return c, n
    return _as_batch(counts, n_melds, (13, 14))  # converts, or raises naming the bad row


def _kernels():
    """The numba kernel module :mod:`mcr_env.scoring._shanten_kernel` (imported, and its
    kernels compiled or loaded from numba's cache, on first use)."""
    if "module" not in _KERNEL:
        from mcr_env.scoring import _shanten_kernel

        _KERNEL["module"] = _shanten_kernel
    return _KERNEL["module"]
