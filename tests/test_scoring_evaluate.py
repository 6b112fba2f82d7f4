"""The fan evaluator (mcr_env.scoring.evaluate): NotAWinError, and the set-combination
selection (docs/rules.md §5) checked exhaustively against PyMahjongGB 1.4.0 on every
combination of four melded chows and of three melded pungs."""

from __future__ import annotations

import random
from itertools import combinations, combinations_with_replacement

import numpy as np
import pytest

from mcr_env.scoring import NotAWinError, score_win
from mcr_env.scoring.decompose import regular_waits
from mcr_env.scoring.evaluate import _regular_wait_kinds, _select
from mcr_env.scoring.fans import Fan
from mcr_env.testing import pymahjonggb_available, random_winning_hand
from mcr_env.testing.hands import WinningHand
from mcr_env.testing.oracle import pymahjonggb_score

needs_oracle = pytest.mark.skipif(not pymahjonggb_available(), reason="needs pymahjonggb==1.4.0")

HAND = ["W1", "W2", "W3", "W4", "W5", "W6", "T7", "T8", "T9", "B2", "B3", "B5", "B5"]


def test_not_a_win_raises_not_a_win_error():
    with pytest.raises(NotAWinError, match="not a winning hand"):
        score_win(HAND[:-1] + ["F1"], "B4")
    assert issubclass(NotAWinError, ValueError)
    # other bad input is a plain ValueError, not NotAWinError
    with pytest.raises(ValueError) as e:
        score_win(HAND[:-1], "B4")
    assert not isinstance(e.value, NotAWinError)


def test_select_principles():
    # 123m 123m 456m 456m: two Pure Double Chows and one Short Straight (3 = 4 sets - 1)
    inst = [
        (Fan.PURE_DOUBLE_CHOW, 0b0011),
        (Fan.PURE_DOUBLE_CHOW, 0b1100),
        (Fan.SHORT_STRAIGHT, 0b0101),
        (Fan.SHORT_STRAIGHT, 0b0110),
        (Fan.SHORT_STRAIGHT, 0b1001),
        (Fan.SHORT_STRAIGHT, 0b1010),
    ]
    assert _select(inst, 4) == (Fan.PURE_DOUBLE_CHOW, Fan.PURE_DOUBLE_CHOW, Fan.SHORT_STRAIGHT)
    # a triple fan plus one pair fan linking the fourth set; no pair inside the triple
    inst = [
        (Fan.PURE_STRAIGHT, 0b0111),
        (Fan.PURE_DOUBLE_CHOW, 0b1001),
        (Fan.SHORT_STRAIGHT, 0b0011),
        (Fan.SHORT_STRAIGHT, 0b1010),
    ]
    assert _select(inst, 4) == (Fan.PURE_STRAIGHT, Fan.PURE_DOUBLE_CHOW)
    # non-identical: one set may not serve the same fan twice
    inst = [(Fan.MIXED_DOUBLE_CHOW, 0b011), (Fan.MIXED_DOUBLE_CHOW, 0b101)]
    assert _select(inst, 3) == (Fan.MIXED_DOUBLE_CHOW,)


def _melded(melds, pair: int) -> WinningHand:
    return WinningHand(
        hand=(pair,),
        win_tile=pair,
        melds=tuple(melds),
        is_self_drawn=False,
        is_4th_tile=False,
        is_wall_last=False,
        is_about_kong=False,
        seat_wind=0,
        prevalent_wind=1,
        flowers=0,
        form="regular",
    )


def _check(wh: WinningHand) -> None:
    total, fans = pymahjonggb_score(wh)
    res = score_win(**wh.kwargs(), profile="botzone")
    assert (res.as_dict(), res.total) == (fans, total), wh


@needs_oracle
def test_every_four_chow_combination_matches_oracle():
    lowest = [9 * s + r for s in range(3) for r in range(7)]
    n = 0
    for combo in combinations_with_replacement(lowest, 4):
        _check(_melded([("CHI", t + 1, 1) for t in combo], 33))
        n += 1
    assert n == 10626


@needs_oracle
def test_every_three_pung_combination_matches_oracle():
    n = 0
    for combo in combinations(range(34), 3):
        chow = 22 if not {21, 22, 23} & set(combo) else 4
        for pair in (13, 30, 33):
            if pair in combo or (chow == 4 and pair in (3, 4, 5)):
                continue
            _check(_melded([("PENG", t, 1) for t in combo] + [("CHI", chow, 1)], pair))
            n += 1
    assert n > 15000


def test_tie_between_two_pure_triple_chow_readings():
    # 66 7 88 99s + 7s with melded 678s and 789s: 678s x3 + 99s (Closed Wait) and 789s x3 +
    # 66s (Edge Wait) both total 67; PyMahjongGB 1.4.0 scores the later one, Edge Wait
    res = score_win(
        "T6 T6 T7 T8 T8 T9 T9", "T7", [("CHI", "T8", 2), ("CHI", "T7", 3)], profile="botzone"
    )
    assert res.as_dict() == {
        "Full Flush": 1,
        "Pure Triple Chow": 1,
        "Upper Four": 1,
        "All Chows": 1,
        "Tile Hog": 2,
        "Edge Wait": 1,
    }
    assert res.total == 67


def test_tie_pure_triple_chow_over_pure_shifted_pungs():
    # 234m 22 33 444 555p won on a discarded 3p: 234p x3 + 55p (Pure Triple Chow, All Chows)
    # and 333 444 555p + 22p (Pure Shifted Pungs, Two Concealed Pungs) both total 31;
    # PyMahjongGB 1.4.0 scores the Pure Triple Chow reading
    res = score_win("234m2233444555p", "B3", profile="botzone")
    assert res.as_dict() == {
        "Pure Triple Chow": 1,
        "Concealed Hand": 1,
        "All Chows": 1,
        "All Simples": 1,
        "One Voided Suit": 1,
    }
    assert res.total == 31


def test_wait_kinds_equal_decompose_waits():
    # the evaluator's own wait search (group shapes) == decompose.regular_waits, shape only
    rng = np.random.default_rng(11)
    n_waiting = 0
    for _ in range(3000):
        wh = random_winning_hand(rng)
        counts = [0] * 34
        for t in wh.hand:
            counts[t] += 1
        for c in (tuple(counts), tuple(int(x) for x in rng.multinomial(13, [1 / 34] * 34))):
            if sum(c) % 3 != 1 or max(c) > 4:
                continue
            expected = regular_waits(c)
            n_waiting += bool(expected)
            assert tuple(_regular_wait_kinds(c)) == expected, c
    assert n_waiting > 1500


def test_tile_property_fans_memo_key_is_complete():
    """The tile-property fans are memoised by ``_property_key`` (classes, suits, honor kinds):
    on many masks, plain and restricted to the tile classes the fans test, the memoised answer
    is the direct computation of that mask (so two masks sharing a key share the fans)."""
    from mcr_env.scoring import evaluate as ev

    rnd = random.Random(11)
    classes = [allowed for _, allowed in ev._RANGE_FANS] + [
        ev._M_TERMINAL | ev._M_HONOR,
        ev._M_HONOR | ev._M_SUITS[0],
        ev._M_SUITS[1],
        (1 << 27) - 1,
    ]
    seen = set()
    for i in range(6000):
        mask = sum(1 << t for t in rnd.sample(range(34), rnd.randint(1, 14)))
        if i % 2:
            mask &= classes[i // 2 % len(classes)]
            if not mask:
                continue
        want = ev._tile_property_fans_of(mask)
        assert ev._tile_property_fans(mask) == want, hex(mask)
        assert ev._tile_property_pairs(mask) == tuple((f, 1) for f in want), hex(mask)
        seen.update(want)
    # every tile-property fan was met
    assert {int(f) for f, _ in ev._RANGE_FANS} <= seen
    assert {Fan.ALL_TERMINALS_AND_HONORS, Fan.FULL_FLUSH, Fan.HALF_FLUSH, Fan.ALL_TYPES} <= seen
