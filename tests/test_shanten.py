"""Hand analysis: complete hands, shanten and waits (mcr_env.scoring.shanten).

Differential checks use PyMahjongGB 1.4.0 (``MahjongGB``) as the oracle: RULES.md names it the
arbiter of shape questions.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mcr_env.scoring.shanten import complete_mask, is_complete, winning_tiles
from mcr_env.tiles import counts_of, parse_tiles

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
