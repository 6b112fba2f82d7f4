"""Seeded walls (mcr_env.engine.walls, docs/rules.md §2): the documented construction, checked
against an independent plain-Python version (Python integers, ``sorted``), and the stable
bucket sort behind it against ``np.argsort(kind="stable")`` including equal keys."""

from __future__ import annotations

import numpy as np
import pytest

from mcr_env.engine.walls import layout_tiles, seeded_walls, stable_order

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _mix(x: int) -> int:
    """splitmix64 finalizer on a Python int (mod 2**64)."""
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & _MASK
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def _reference_wall(layout: str, root: int, game: int, episode: int, hand: int) -> list[int]:
    """The wall as the module docstring defines it: the sorted tile set ordered by the keys
    ``mix(h + slot * golden)`` (stable), ``h`` the chained hash of (root, game, episode,
    hand)."""
    h = _mix((root + _GOLDEN) & _MASK)
    for v in (game, episode, hand):
        h = _mix(h ^ ((v * _GOLDEN + 1) & _MASK))
    tiles = layout_tiles(layout).tolist()
    keys = [_mix((h + j * _GOLDEN) & _MASK) for j in range(len(tiles))]
    return [tiles[j] for j in sorted(range(len(tiles)), key=lambda j: keys[j])]


@pytest.mark.parametrize("layout", ["official", "botzone"])
def test_seeded_walls_equal_the_plain_python_construction(layout):
    rng = np.random.default_rng(3)
    for root in (0, 7, (1 << 64) - 5):
        games = rng.integers(0, 5000, 12)
        episodes = rng.integers(0, 100, 12)
        hands = rng.integers(0, 16, 12)
        got = seeded_walls(layout, root, games, episodes, hands)
        for i in range(12):
            want = _reference_wall(layout, root, int(games[i]), int(episodes[i]), int(hands[i]))
            assert got[i].tolist() == want, (layout, root, i)


def test_stable_order_is_a_stable_argsort_with_equal_keys_and_shared_top_bytes():
    rng = np.random.default_rng(11)
    start = np.empty(257, dtype=np.int64)
    cases = [
        rng.integers(0, 1 << 63, 144, dtype=np.uint64) * np.uint64(2),  # hashed-like keys
        np.repeat(rng.integers(0, 1 << 63, 9, dtype=np.uint64), 16),  # many equal keys
        # one top byte, low bits only: everything in one bucket (the insertion sort alone)
        rng.integers(0, 1000, 200, dtype=np.uint64) | np.uint64(0xAB << 56),
        np.zeros(5, dtype=np.uint64),
        np.full(3, (1 << 64) - 1, dtype=np.uint64),
        np.zeros(0, dtype=np.uint64),
    ]
    for keys in cases:
        keys = rng.permutation(keys)
        order = np.empty(len(keys), dtype=np.int64)
        stable_order(keys, order, start)
        assert order.tolist() == np.argsort(keys, kind="stable").tolist()
