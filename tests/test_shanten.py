"""Hand analysis: complete hands, shanten and waits (mcr_env.scoring.shanten).

Differential checks use PyMahjongGB 1.4.0 (``MahjongGB``) as the oracle: docs/rules.md names it the
arbiter of shape questions.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mcr_env.scoring.shanten import (
    KNITTED_ARRANGEMENTS,
    complete_mask,
    honors_knitted_shanten,
    is_complete,
    knitted_straight_shanten,
    regular_shanten,
    seven_pairs_shanten,
    shanten,
    shanten_batch,
    thirteen_orphans_shanten,
    winning_tiles,
)
from mcr_env.tiles import counts_of, parse_tiles, tile_to_code

MahjongGB = pytest.importorskip("MahjongGB")

SUITE = Path("/work/shared/mcr_fan_suites/gbmahjong_unit_test_a2911ad.jsonl")


def counts(text: str) -> np.ndarray:
    return counts_of(parse_tiles(text))


# ------------------------------------------------------------------------------------------
# Complete hands: hand-picked examples
# ------------------------------------------------------------------------------------------

COMPLETE = [
    ("123m456m789m11s222z", 0),  # regular
    ("111m234m345m99p777z", 0),
    ("11122345678999m", 0),  # nine gates shape
    ("11223344556677z", 0),  # seven pairs of honors
    ("1111m2233p445566s", 0),  # seven pairs with four identical tiles
    ("19m19s19p12345677z", 0),  # thirteen orphans
    ("147m258s369p12345z", 0),  # lesser honors and knitted tiles
    ("147s258m369p12345z", 0),  # another arrangement
    ("147m258s369p55z123m", 0),  # knitted straight + set + pair
    ("147m258s369p11z", 1),  # knitted straight with one meld
    ("123456789m11s", 1),
    ("22s345p", 3),
    ("22s", 4),
]

NOT_COMPLETE = [
    ("123m456m789m12s222z", 0),
    ("1122334455667m8m", 0),
    ("11112222333346m", 0),
    ("19m19s19p12345666z", 0),  # orphans with a missing tile and a pung
    ("147m258s369p11234z", 0),  # knitted tiles with a duplicate, no set
    ("147m258s368p12345z", 0),  # broken arrangement
    ("1111z123m456m789m5m", 0),  # four honors are no set
    ("23s", 4),
    ("147m258s36p11z8p", 1),
]


@pytest.mark.parametrize(("text", "n"), COMPLETE)
def test_complete_examples(text, n):
    c = counts(text)
    assert c.sum() == 14 - 3 * n
    assert is_complete(c, n)
    assert complete_mask(c[None], np.array([n]))[0]


@pytest.mark.parametrize(("text", "n"), NOT_COMPLETE)
def test_not_complete_examples(text, n):
    c = counts(text)
    assert c.sum() == 14 - 3 * n
    assert not is_complete(c, n)
    assert not complete_mask(c[None], np.array([n]))[0]


def _suite_rows():
    return [json.loads(line) for line in SUITE.read_text().splitlines() if line.strip()]


@pytest.mark.skipif(not SUITE.exists(), reason="shared fan suite not available")
def test_fan_suite_hands_are_complete():
    rows = _suite_rows()
    assert len(rows) == 129
    cs, ns = [], []
    for row in rows:
        case = row["case"]
        c = counts_of(parse_tiles(case["hand"] + [case["win_tile"]]))
        n = len(case["melds"])
        assert is_complete(c, n), row["gb_string"]
        cs.append(c)
        ns.append(n)
    assert complete_mask(np.array(cs), np.array(ns)).all()


def test_winning_tiles_examples():
    assert winning_tiles(counts("1112345678999m")) == list(range(9))  # nine gates: all nine
    assert winning_tiles(counts("19m19s19p1234567z")) == [0, 8, 9, 17, 18, 26, *range(27, 34)]
    # four W1 in hand: W1 itself is listed (shape only, the fifth copy).
    assert winning_tiles(counts("1111m123s456s789s")) == [0]
    assert winning_tiles(counts("1111222233334m")) == [0, 1, 2, 3, 4]
    assert winning_tiles(counts("147m258s369p1234z")) == [31, 32, 33]
    assert winning_tiles(counts("1z"), 4) == [27]
    assert winning_tiles(counts("12345z19m19s19p66z")) == [33]


# ------------------------------------------------------------------------------------------
# Bad input
# ------------------------------------------------------------------------------------------


def test_bad_input_single():
    c = counts("123m456m789m11s222z")
    with pytest.raises(ValueError, match="shape"):
        is_complete(c[:33])
    with pytest.raises(ValueError, match="<= 4"):
        is_complete(np.where(np.arange(34) == 0, 5, 0) + 0 * c)
    bad = c.astype(np.int64)
    bad[5] = -1
    with pytest.raises(ValueError, match=">= 0"):
        is_complete(bad)
    with pytest.raises(ValueError, match="concealed tiles"):
        is_complete(c, 1)
    with pytest.raises(ValueError, match="n_melds"):
        is_complete(c, 5)
    with pytest.raises(TypeError):
        is_complete(c.astype(float) + 0.5)
    with pytest.raises(ValueError, match="concealed tiles"):
        winning_tiles(c)


def test_bad_input_batch():
    c = np.stack([counts("123m456m789m11s222z")] * 3)
    n = np.zeros(3, dtype=np.int64)
    with pytest.raises(ValueError, match="shape"):
        complete_mask(c[:, :30], n)
    with pytest.raises(ValueError, match="shape"):
        complete_mask(c, n[:2])
    c2 = c.copy()
    c2[1, 3] = 5
    with pytest.raises(ValueError, match="row 1 tile 3"):
        complete_mask(c2, n)
    with pytest.raises(ValueError, match="row 2"):
        complete_mask(c, np.array([0, 0, 1]))
    with pytest.raises(TypeError):
        complete_mask(c.astype(float), n)
    assert complete_mask(np.zeros((0, 34), dtype=np.int8), np.zeros(0, dtype=np.int8)).shape == (0,)


# ------------------------------------------------------------------------------------------
# Random hands
# ------------------------------------------------------------------------------------------

_SETS = [np.eye(34, dtype=np.int64)[t] * 3 for t in range(34)] + [
    np.eye(34, dtype=np.int64)[s * 9 + r : s * 9 + r + 3].sum(0) for s in range(3) for r in range(7)
]
_ORPHAN_IDS = [0, 8, 9, 17, 18, 26, *range(27, 34)]


def random_complete(rng: np.random.Generator, n: int) -> np.ndarray:
    """A random complete concealed part (14 - 3n tiles) in a form allowed with n melds."""
    while True:
        form = rng.integers(5) if n == 0 else (rng.integers(2) * 4 if n == 1 else 0)
        c = np.zeros(34, dtype=np.int64)
        k = 4 - n
        if form == 4:  # knitted straight
            c += KNITTED_ARRANGEMENTS[rng.integers(6)]
            k -= 3
        if form in (0, 4):  # sets + pair
            for _ in range(k):
                c += _SETS[rng.integers(len(_SETS))]
            c[rng.integers(34)] += 2
        elif form == 1:  # seven pairs
            for t in rng.choice(34, size=7, replace=bool(rng.integers(2))):
                c[t] += 2
        elif form == 2:  # thirteen orphans
            c[_ORPHAN_IDS] = 1
            c[rng.choice(_ORPHAN_IDS)] += 1
        else:  # honors and knitted tiles
            pool = np.flatnonzero(KNITTED_ARRANGEMENTS[rng.integers(6)]).tolist() + list(
                range(27, 34)
            )
            c[rng.choice(pool, size=14, replace=False)] = 1
        if c.max() <= 4:
            return c


def perturb(rng: np.random.Generator, c: np.ndarray, swaps: int) -> np.ndarray:
    """Replace ``swaps`` random tiles of ``c`` by random other tiles (keeping counts <= 4)."""
    c = c.copy()
    for _ in range(swaps):
        c[rng.choice(np.flatnonzero(c))] -= 1
        c[rng.choice(np.flatnonzero(c < 4))] += 1
    return c


def random_hands(seed: int, size: int, extra: int) -> list[tuple[np.ndarray, int]]:
    """``size`` hands of ``extra - 3n`` concealed tiles (extra 13 or 14): uniformly random,
    random over few kinds (many sets), and complete hands with 0-3 tiles swapped."""
    rng = np.random.default_rng(seed)
    wall = np.repeat(np.arange(34), 4)
    out = []
    for i in range(size):
        n = int(rng.integers(5)) if i % 2 else 0
        kind = i % 3
        if kind == 0:
            tiles = rng.choice(wall, size=extra - 3 * n, replace=False)
            c = np.bincount(tiles, minlength=34)
        elif kind == 1:
            pool = np.repeat(rng.choice(34, size=int(rng.integers(4, 12)), replace=False), 4)
            c = np.bincount(rng.choice(pool, size=extra - 3 * n, replace=False), minlength=34)
        else:
            c = random_complete(rng, n)
            if extra == 13:
                c[rng.choice(np.flatnonzero(c))] -= 1
            c = perturb(rng, c, int(rng.integers(4)))
        out.append((c, n))
    return out


def codes(c: np.ndarray) -> tuple[str, ...]:
    return tuple(tile_to_code(t) for t in range(34) for _ in range(int(c[t])))


def fake_packs(n: int) -> tuple:
    return tuple(("PENG", "F1", 1) for _ in range(n))


FORMS = [
    (regular_shanten, "RegularShanten", 4),
    (seven_pairs_shanten, "SevenPairsShanten", 0),
    (thirteen_orphans_shanten, "ThirteenOrphansShanten", 0),
    (honors_knitted_shanten, "HonorsAndKnittedTilesShanten", 0),
    (knitted_straight_shanten, "KnittedStraightShanten", 1),
]


@pytest.mark.parametrize("seed", [1, 2])
def test_shanten_matches_pymahjonggb(seed):
    """13 - 3n tiles: every per-form shanten, the overall one and the batch agree exactly."""
    hands = random_hands(seed, 3000, 13)
    for c, n in hands:
        h = codes(c)
        for ours, name, max_melds in FORMS:
            if n <= max_melds:
                assert ours(c, n) == getattr(MahjongGB, name)(h)[0], (name, h)
        assert shanten(c, n) == MahjongGB.MahjongShanten(pack=fake_packs(n), hand=h), h
    cs = np.array([c for c, _ in hands])
    ns = np.array([n for _, n in hands])
    batch = shanten_batch(cs, ns)
    assert batch.dtype == np.int8
    assert batch.tolist() == [shanten(c, n) for c, n in hands]


def test_shanten_of_14_tiles_is_best_after_a_discard():
    """14 - 3n tiles: -1 when complete, else the best 13 - 3n shanten after one discard."""
    hands = random_hands(3, 1200, 14)
    cs = np.array([c for c, _ in hands])
    ns = np.array([n for _, n in hands])
    complete = complete_mask(cs, ns)
    batch = shanten_batch(cs, ns)
    assert 100 < complete.sum() < len(hands)
    for (c, n), comp, b in zip(hands, complete, batch):
        ours = shanten(c, n)
        if comp:
            assert ours == -1
        else:
            eye = np.eye(34, dtype=np.int64)
            after = [
                MahjongGB.MahjongShanten(pack=fake_packs(n), hand=codes(c - eye[t]))
                for t in np.flatnonzero(c)
            ]
            assert ours == min(after) >= 0, codes(c)
        assert b == ours
        assert is_complete(c, n) == comp


def test_complete_mask_agrees_with_is_complete_and_shanten():
    hands = random_hands(4, 3000, 14)
    cs = np.array([c for c, _ in hands])
    ns = np.array([n for _, n in hands])
    mask = complete_mask(cs, ns)
    assert mask.sum() > 300
    assert mask.tolist() == [is_complete(c, n) for c, n in hands]
    assert mask.tolist() == (shanten_batch(cs, ns) == -1).tolist()
    # every generated complete hand is complete
    rng = np.random.default_rng(5)
    made = [(random_complete(rng, n), n) for n in rng.integers(0, 5, size=500).tolist()]
    assert complete_mask(np.array([c for c, _ in made]), np.array([n for _, n in made])).all()


@pytest.mark.skipif(not SUITE.exists(), reason="shared fan suite not available")
def test_fan_suite_shanten_is_minus_one_and_ready_before():
    for row in _suite_rows():
        case = row["case"]
        hand = counts_of(parse_tiles(case["hand"]))
        win = parse_tiles([case["win_tile"]])[0]
        n = len(case["melds"])
        full = hand.copy()
        full[win] += 1
        assert shanten(full, n) == -1
        assert shanten(hand, n) == 0
        assert win in winning_tiles(hand, n)


def test_winning_tiles_match_is_complete_and_pymahjonggb():
    hands = [(c, n) for c, n in random_hands(6, 1500, 13)]
    eye = np.eye(34, dtype=np.int64)
    ready = 0
    for c, n in hands:
        waits = winning_tiles(c, n)
        below_four = [t for t in range(34) if c[t] < 4 and is_complete(c + eye[t], n)]
        assert [t for t in waits if c[t] < 4] == below_four
        h = codes(c)
        if shanten(c, n) == 0:
            ready += 1
            expected = set()
            for _, name, max_melds in FORMS:
                if n <= max_melds:
                    s, useful = getattr(MahjongGB, name)(h)
                    if s == 0:
                        expected |= set(parse_tiles(list(useful)))
            assert waits == sorted(expected), h
        else:
            assert waits == []
    assert ready > 200


def test_shanten_bad_input():
    c = counts("123m456m789m1s222z")
    with pytest.raises(ValueError, match="13 or 14 concealed tiles"):
        shanten(counts("123m456m789m222z"))
    with pytest.raises(ValueError, match="10 or 11 concealed tiles"):
        shanten(c, 1)
    with pytest.raises(ValueError, match="Seven Pairs needs n_melds <= 0"):
        seven_pairs_shanten(counts("123m456m789s1z"), 1)
    with pytest.raises(ValueError, match="Knitted Straight needs n_melds <= 1"):
        knitted_straight_shanten(counts("123m4m"), 3)
    with pytest.raises(TypeError, match="n_melds"):
        regular_shanten(c, 0.0)
    with pytest.raises(ValueError, match="shape"):
        shanten_batch(c, np.zeros(1, dtype=np.int64))
    rows = np.stack([c, c])
    with pytest.raises(ValueError, match="row 1"):
        shanten_batch(rows, np.array([0, 2]))
    assert shanten_batch(rows, np.array([0, 0])).tolist() == [0, 0]


# sha256 of shanten_batch's int8 output on random_hands(11, 6000, 13) and (12, 6000, 14),
# recorded from the allocation-enumerating kernel before the max-plus folds replaced it.
SHANTEN_BATCH_GOLDEN = {
    (11, 13): "c1c044b857fe693b4c8b2f65054bea3d136f51036858590c7ed6571eb51e1970",
    (12, 14): "57c389ca397d68d74d63f8d1def0902de4f32d818b1c806c9c3e3a6386168a0b",
}


@pytest.mark.parametrize(("seed", "extra"), sorted(SHANTEN_BATCH_GOLDEN))
def test_shanten_batch_golden_and_dtypes(seed, extra):
    """Byte-identical output (golden hash) for every integer dtype and memory layout."""
    import hashlib

    hands = random_hands(seed, 6000, extra)
    cs = np.array([c for c, _ in hands], dtype=np.int64)
    ns = np.array([n for _, n in hands], dtype=np.int64)
    ref = shanten_batch(cs, ns)
    assert hashlib.sha256(ref.tobytes()).hexdigest() == SHANTEN_BATCH_GOLDEN[(seed, extra)]
    wide = np.zeros((len(cs), 40), dtype=np.int8)
    wide[:, 3:37] = cs
    for c, n in [
        (cs.astype(np.int8), ns.astype(np.int8)),
        (cs.astype(np.int16), ns.astype(np.uint8)),
        (cs.astype(np.uint8), ns),
        (wide[:, 3:37], ns[::-1][::-1]),  # non-contiguous rows
        (cs.tolist(), ns.tolist()),
    ]:
        out = shanten_batch(c, n)
        assert out.dtype == np.int8
        assert out.tobytes() == ref.tobytes()


def test_shanten_batch_bad_input_any_dtype():
    """The compiled input check falls back to the numpy one: same errors for int8 input."""
    c = np.stack([counts("123m456m789m1s222z")] * 3).astype(np.int8)
    n = np.zeros(3, dtype=np.int8)
    bad = c.copy()
    bad[2, 5] = 5
    with pytest.raises(ValueError, match="row 2 tile 5 has count 5"):
        shanten_batch(bad, n)
    bad = c.copy()
    bad[1, 0] = -1
    with pytest.raises(ValueError, match="row 1 tile 0 has count -1"):
        shanten_batch(bad, n)
    with pytest.raises(ValueError, match="row 1 has -1"):
        shanten_batch(c, np.array([0, -1, 0], dtype=np.int8))
    with pytest.raises(ValueError, match="row 0: a hand with n_melds=1 must hold 10 or 11"):
        shanten_batch(c, np.array([1, 0, 0], dtype=np.int64))
    with pytest.raises(TypeError, match="dtype bool"):
        shanten_batch(c.astype(bool), n)


def test_shanten_examples():
    # PyMahjongGB values, checked by hand: ready, one and two away, complete.
    assert shanten(counts("1112345678999m")) == 0
    assert regular_shanten(counts("19m19s19p1234567z")) == 8
    assert thirteen_orphans_shanten(counts("19m19s19p1234567z")) == 0
    assert seven_pairs_shanten(counts("1133557799m1122z")) == -1
    assert seven_pairs_shanten(counts("1111m2233p445566s")) == -1  # four identical = 2 pairs
    assert honors_knitted_shanten(counts("147m258s369p1234z")) == 0
    assert knitted_straight_shanten(counts("147m258s369p1234z")) == 2
    assert knitted_straight_shanten(counts("147m258s369p11z"), 1) == -1
    assert shanten(counts("11z"), 4) == -1
    assert shanten(counts("1z"), 4) == 0
