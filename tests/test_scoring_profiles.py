"""Scoring profiles (docs/rules.md §7): "mcr" (default) and "botzone" (= PyMahjongGB 1.4.0).

One pair of tests per difference of §7: a hand where the profiles differ exactly as the item
states, and a close hand where they must agree. The survey over the differential test's
20,000 random hands is in tests/test_scoring_differential.py; here, random hands built only
from All Green and All Terminals tiles cover items 4 and 6, which those hands never reach.
"""

from __future__ import annotations

import numpy as np
import pytest

from mcr_env.scoring import (
    FAN_IMPLIES,
    FAN_IMPLIES_BY_PROFILE,
    FAN_POINTS_BY_PROFILE,
    Fan,
    score_win,
)
from mcr_env.scoring.fans import MCR_IMPLIES_CHANGES
from mcr_env.testing import (
    WinningHand,
    pymahjonggb_score,
    random_winning_hand,
    with_promoted_kongs,
)
from mcr_env.testing.profiles import mcr_from_botzone


def both(hand, win, melds=(), **kw) -> tuple[tuple[dict, int], tuple[dict, int]]:
    """``((mcr fans, mcr total), (botzone fans, botzone total))``."""
    m = score_win(hand, win, melds, **kw)
    b = score_win(hand, win, melds, profile="botzone", **kw)
    return (m.as_dict(), m.total), (b.as_dict(), b.total)


def agree(hand, win, melds=(), **kw) -> tuple[dict, int]:
    m, b = both(hand, win, melds, **kw)
    assert m == b
    return m


# ---------------------------------------------------------------------------------------------
# Items 1 and 2: kongs

# 123m 456m + 55p pair, two kongs (East, South) melded or concealed
HAND = ["W1", "W2", "W3", "W4", "W5", "W6", "B5"]
WINDS = dict(seat_wind=2, prevalent_wind=2)


def _kongs(a: str, b: str):
    return [(a, "F1", 0 if a == "ANGANG" else 1), (b, "F2", 0 if b == "ANGANG" else 2)]


def test_item1_two_concealed_kongs_points():
    mcr = score_win(HAND, "B5", _kongs("ANGANG", "ANGANG"), **WINDS)
    bz = score_win(HAND, "B5", _kongs("ANGANG", "ANGANG"), profile="botzone", **WINDS)
    assert mcr.as_dict() == bz.as_dict()
    assert mcr.as_dict()["Two Concealed Kongs"] == 1
    assert mcr.total - bz.total == 2
    assert {f.name: f.points for f in mcr.fans}["Two Concealed Kongs"] == 8
    assert {f.name: f.points for f in bz.fans}["Two Concealed Kongs"] == 6


def test_item1_agree_one_concealed_kong():
    melds = [("ANGANG", "F1", 0), ("PENG", "F2", 2)]
    fans, total = agree(HAND, "B5", melds, **WINDS)
    assert fans["Concealed Kong"] == 1 and total == 7


def test_item2_concealed_plus_melded_kong():
    (mcr, mt), (bz, bt) = both(HAND, "B5", _kongs("ANGANG", "GANG"), **WINDS)
    assert bz == {
        "Short Straight": 1,
        "Pung of Terminals or Honors": 2,
        "One Voided Suit": 1,
        "Single Wait": 1,
        "Concealed Kong and Melded Kong": 1,
    }
    assert bt == 10
    assert mcr == {
        "Two Melded Kongs": 1,
        "Concealed Kong": 1,
        "Short Straight": 1,
        "Pung of Terminals or Honors": 2,
        "One Voided Suit": 1,
        "Single Wait": 1,
    }
    assert mt == 11


def test_item2_agree_two_melded_kongs_one_promoted():
    fans, _ = agree(HAND, "B5", _kongs("GANG", "BUGANG"), **WINDS)
    assert fans["Two Melded Kongs"] == 1


def test_points_tables_differ_only_on_two_concealed_kongs():
    mcr, bz = FAN_POINTS_BY_PROFILE["mcr"], FAN_POINTS_BY_PROFILE["botzone"]
    assert [f for f in Fan if mcr[f] != bz[f]] == [Fan.TWO_CONCEALED_KONGS]


# ---------------------------------------------------------------------------------------------
# Item 3: self-drawn concealed special hands score Fully Concealed Hand, not Self-Drawn

SPECIAL_HANDS = {
    # name: (13 concealed tiles, winning tile, melds, the special fan)
    "nine gates": ("1112345678999m", "1m", (), "Nine Gates"),
    "seven shifted pairs": ("2233445566778m", "8m", (), "Seven Shifted Pairs"),
    "thirteen orphans": ("19m19s19p1234567z", "1m", (), "Thirteen Orphans"),
    "four concealed pungs": ("111m222p333s444z5p", "5p", (), "Four Concealed Pungs"),
    "seven pairs": ("1133m5577s2288p1z", "1z", (), "Seven Pairs"),
    "greater honors": ("147m25s36p123456z", "7z", (), "Greater Honors and Knitted Tiles"),
    "lesser honors": ("147m258s369p1234z", "5z", (), "Lesser Honors and Knitted Tiles"),
}


@pytest.mark.parametrize("name", SPECIAL_HANDS)
def test_item3_self_drawn_special_hand_scores_fully_concealed_hand(name):
    hand, win, melds, special = SPECIAL_HANDS[name]
    (mcr, mt), (bz, bt) = both(hand, win, melds, is_self_drawn=True)
    assert special in mcr and special in bz
    assert bz.pop("Self-Drawn") == 1 and "Fully Concealed Hand" not in bz
    assert mcr.pop("Fully Concealed Hand") == 1 and "Self-Drawn" not in mcr
    assert "Concealed Hand" not in mcr  # still implied (by the special hand and by FCH)
    assert mcr == bz and mt == bt + 3


@pytest.mark.parametrize("name", SPECIAL_HANDS)
def test_item3_agree_special_hand_won_on_a_discard(name):
    hand, win, melds, special = SPECIAL_HANDS[name]
    fans, _ = agree(hand, win, melds)
    assert special in fans and "Concealed Hand" not in fans


def test_item3_with_replacement_tile_keeps_fully_concealed_hand():
    # four concealed pungs with a concealed kong, won on the kong's replacement tile:
    # Out with Replacement Tile implies Self-Drawn, so botzone has neither; mcr adds FCH
    kw = dict(is_self_drawn=True, is_about_kong=True)
    (mcr, mt), (bz, bt) = both("222p333s444z5p", "5p", [("ANGANG", "1m", 0)], **kw)
    assert "Out with Replacement Tile" in bz and "Self-Drawn" not in bz
    assert mcr.pop("Fully Concealed Hand") == 1 and mcr == bz and mt == bt + 4


def test_item3_agree_ordinary_self_drawn_concealed_hand():
    fans, _ = agree("123456m789s23p55p", "4p", is_self_drawn=True)
    assert fans == {"Fully Concealed Hand": 1, "All Chows": 1, "Short Straight": 1}


# ---------------------------------------------------------------------------------------------
# Item 4: All Green with Green Dragons adds Half Flush


def test_item4_all_green_with_green_dragons_scores_half_flush():
    (mcr, mt), (bz, bt) = both("234s234s666s888s6z", "6z")
    assert bz == {
        "All Green": 1,
        "Concealed Hand": 1,
        "Two Concealed Pungs": 1,
        "Pure Double Chow": 1,
        "Single Wait": 1,
    }
    assert mcr == {**bz, "Half Flush": 1} and mt == bt + 6


def test_item4_agree_all_green_without_dragons_scores_full_flush():
    fans, _ = agree("234s234s666s888s2s", "2s")
    assert fans["All Green"] == 1 and fans["Full Flush"] == 1 and "Half Flush" not in fans


# ---------------------------------------------------------------------------------------------
# Item 5: Nine Gates scores no Pung of Terminals or Honors


def test_item5_nine_gates_scores_no_pung_of_terminals():
    # won on 5m: 111 234 55 678 999, two terminal pungs; botzone keeps one of them
    (mcr, mt), (bz, bt) = both("1112345678999m", "5m")
    assert bz == {"Nine Gates": 1, "Two Concealed Pungs": 1, "Pung of Terminals or Honors": 1}
    assert mcr == {"Nine Gates": 1, "Two Concealed Pungs": 1} and mt == bt - 1


def test_item5_agree_nine_gates_won_on_a_terminal():
    # won on 1m: 111 123 456 789 99, one terminal pung, which botzone already omits
    fans, total = agree("1112345678999m", "1m")
    assert fans == {"Nine Gates": 1, "Pure Straight": 1, "Tile Hog": 1} and total == 106


# ---------------------------------------------------------------------------------------------
# Item 6: All Terminals may score Double Pung


def test_item6_all_terminals_scores_double_pungs():
    (mcr, mt), (bz, bt) = both("111m111p999s999m9p", "9p")
    assert bz == {"All Terminals": 1, "Four Concealed Pungs": 1, "Single Wait": 1}
    assert mcr == {**bz, "Double Pung": 2} and mt == bt + 4


def test_item6_agree_all_terminals_with_triple_pung():
    # Triple Pung implies Double Pung in both profiles; the 999m pung has no partner
    fans, _ = agree("111m111s111p999m9p", "9p")
    assert fans["Triple Pung"] == 1 and "Double Pung" not in fans


# ---------------------------------------------------------------------------------------------
# Item 7: no Melded Hand with a promoted kong

MELDED = [("PENG", "1m", 1), ("GANG", "9m", 2), ("CHI", "3s", 3), ("PENG", "4z", 1)]
PROMOTED = [("BUGANG", "9m", 2) if k == "GANG" else (k, t, o) for k, t, o in MELDED]


def test_item7_promoted_kong_melded_hand():
    (mcr, mt), (bz, bt) = both("7p", "7p", PROMOTED, seat_wind=1)
    assert bz == {"Melded Hand": 1, "Pung of Terminals or Honors": 3, "Melded Kong": 1}
    assert bt == 10
    # Melded Hand is not scored, so the single wait it implied is scored on its own
    assert mcr == {"Pung of Terminals or Honors": 3, "Melded Kong": 1, "Single Wait": 1}
    assert mt == 5
    assert not score_win("7p", "7p", PROMOTED, seat_wind=1).is_legal_win
    assert score_win("7p", "7p", PROMOTED, seat_wind=1, profile="botzone").is_legal_win


def test_item7_agree_claimed_kong_melded_hand():
    fans, total = agree("7p", "7p", MELDED, seat_wind=1)
    assert fans["Melded Hand"] == 1 and total == 10


def test_item7_agree_promoted_kong_self_drawn():
    fans, _ = agree("7p", "7p", PROMOTED, seat_wind=1, is_self_drawn=True)
    assert fans["Self-Drawn"] == 1 and "Melded Hand" not in fans


def test_bugang_is_gang_for_every_other_fan():
    rng = np.random.default_rng(5)
    n = 0
    while n < 300:
        wh = random_winning_hand(rng, form="regular")
        if not any(k == "GANG" for k, _, _ in wh.melds):
            continue
        n += 1
        promoted = with_promoted_kongs(wh)
        for profile in ("mcr", "botzone"):
            a = score_win(**wh.kwargs(), profile=profile)
            b = score_win(**promoted.kwargs(), profile=profile)
            if profile == "botzone" or "Melded Hand" not in a.as_dict():
                assert a == b, (wh, profile)


# ---------------------------------------------------------------------------------------------
# The implies tables


def test_mcr_implies_table_is_botzone_changed_by_section7_only():
    mcr, bz = FAN_IMPLIES_BY_PROFILE["mcr"], FAN_IMPLIES_BY_PROFILE["botzone"]
    assert bz is FAN_IMPLIES
    changed = {f for f in Fan if mcr.get(f) != bz.get(f)}
    assert changed == {Fan.NINE_GATES, Fan.ALL_GREEN, Fan.ALL_TERMINALS} == set(MCR_IMPLIES_CHANGES)
    assert bz[Fan.NINE_GATES] - mcr[Fan.NINE_GATES] == {Fan.FULLY_CONCEALED_HAND}
    assert mcr[Fan.NINE_GATES] - bz[Fan.NINE_GATES] == {Fan.PUNG_OF_TERMINALS_OR_HONORS}
    assert bz[Fan.ALL_GREEN] - mcr[Fan.ALL_GREEN] == {Fan.HALF_FLUSH}
    assert bz[Fan.ALL_TERMINALS] - mcr[Fan.ALL_TERMINALS] == {Fan.DOUBLE_PUNG}


# ---------------------------------------------------------------------------------------------
# Items 4 and 6 on random hands: the scorer against the item-by-item restatement


_ALL_GREEN_PUNGS = tuple(range(10, 13)) + (14, 16, 32)  # 2s 3s 4s 6s 8s 6z
_TERMINAL_PUNGS = (0, 8, 9, 17, 18, 26)


def _palette_hand(rng: np.random.Generator, pungs: tuple[int, ...], chow: int | None):
    """A random winning hand of four sets and a pair drawn from ``pungs`` (pung and pair
    tiles) and the chow starting at ``chow`` (None: no chows), or of seven pairs of those
    tiles; random melds and win flags. None when the draw used a tile five times."""
    if rng.random() < 0.15:
        kinds = [int(t) for t in rng.choice(pungs, size=7)]
        concealed = [t for t in kinds for _ in range(2)]
        melds: list[tuple[str, int, int]] = []
    else:
        concealed, melds = [], []
        for _ in range(4):
            if chow is not None and rng.random() < 0.3:
                tiles = [chow, chow + 1, chow + 2]
                meld = ("CHI", chow + 1, int(rng.integers(1, 4)))
            else:
                t = int(rng.choice(pungs))
                kind = rng.choice(["pung", "kong"], p=[0.8, 0.2])
                tiles = [t] * (4 if kind == "kong" else 3)
                if kind == "kong":
                    k = str(rng.choice(["GANG", "BUGANG", "ANGANG"]))
                    meld = (k, t, 0 if k == "ANGANG" else int(rng.integers(1, 4)))
                else:
                    meld = ("PENG", t, int(rng.integers(1, 4)))
            if len(tiles) == 4 or rng.random() < 0.4:
                melds.append(meld)
            else:
                concealed.extend(tiles)
        pair = int(rng.choice(pungs))
        concealed.extend([pair, pair])
    counts = [0] * 34
    for t in concealed:
        counts[t] += 1
    for k, t, _o in melds:
        for x in (t - 1, t, t + 1) if k == "CHI" else (t,) * (3 if k == "PENG" else 4):
            counts[x] += 1
    if max(counts) > 4:
        return None
    win = concealed.pop(int(rng.integers(len(concealed))))
    self_drawn = bool(rng.random() < 0.5)
    return WinningHand(
        hand=tuple(sorted(concealed)),
        win_tile=win,
        melds=tuple(melds),
        is_self_drawn=self_drawn,
        is_4th_tile=False,
        is_wall_last=bool(rng.random() < 0.1),
        is_about_kong=False,
        seat_wind=int(rng.integers(4)),
        prevalent_wind=int(rng.integers(4)),
        flowers=int(rng.integers(3)),
        form="palette",
    )


@pytest.mark.parametrize(
    ("pungs", "chow", "item"),
    [(_ALL_GREEN_PUNGS, 10, 4), (_TERMINAL_PUNGS, None, 6)],
    ids=["all-green", "all-terminals"],
)
def test_items_4_and_6_on_random_hands(pungs, chow, item):
    rng = np.random.default_rng(400 + item)
    seen = differ = tries = 0
    while seen < 400:
        tries += 1
        assert tries < 20_000
        wh = _palette_hand(rng, pungs, chow)
        if wh is None:
            continue
        total, fans = pymahjonggb_score(wh)
        bz = score_win(**wh.kwargs(), profile="botzone")
        assert (bz.as_dict(), bz.total) == (fans, total), wh
        mcr = score_win(**wh.kwargs())
        exp_total, exp_fans, items = mcr_from_botzone(wh)
        assert (mcr.as_dict(), mcr.total) == (exp_fans, exp_total), wh
        seen += 1
        if (mcr.as_dict(), mcr.total) != (bz.as_dict(), bz.total):
            assert items, wh  # every difference comes from a section 7 item
            differ += item in items
    assert differ >= 50
