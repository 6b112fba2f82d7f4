"""Scoring profiles (RULES.md section 7): "mcr" (default) and "botzone" (= PyMahjongGB 1.4.0)
differ only on hands with two concealed kongs or one concealed plus one melded kong."""

from __future__ import annotations

import numpy as np

from mcr_env.scoring import FAN_POINTS_BY_PROFILE, Fan, score_win
from mcr_env.testing import random_winning_hand

# 123m 456m + 55p pair, two kongs (East, South) melded or concealed
HAND = ["W1", "W2", "W3", "W4", "W5", "W6", "B5"]


def _kongs(a: str, b: str):
    return [(a, "F1", 0 if a == "ANGANG" else 1), (b, "F2", 0 if b == "ANGANG" else 2)]


def test_two_concealed_kongs_points():
    mcr = score_win(HAND, "B5", _kongs("ANGANG", "ANGANG"), seat_wind=2, prevalent_wind=2)
    bz = score_win(
        HAND, "B5", _kongs("ANGANG", "ANGANG"), seat_wind=2, prevalent_wind=2, profile="botzone"
    )
    assert mcr.as_dict() == bz.as_dict()
    assert mcr.as_dict()["Two Concealed Kongs"] == 1
    assert mcr.total - bz.total == 2
    assert {f.name: f.points for f in mcr.fans}["Two Concealed Kongs"] == 8
    assert {f.name: f.points for f in bz.fans}["Two Concealed Kongs"] == 6


def test_concealed_plus_melded_kong():
    mcr = score_win(HAND, "B5", _kongs("ANGANG", "GANG"), seat_wind=2, prevalent_wind=2)
    bz = score_win(
        HAND, "B5", _kongs("ANGANG", "GANG"), seat_wind=2, prevalent_wind=2, profile="botzone"
    )
    assert bz.as_dict() == {
        "Short Straight": 1,
        "Pung of Terminals or Honors": 2,
        "One Voided Suit": 1,
        "Single Wait": 1,
        "Concealed Kong and Melded Kong": 1,
    }
    assert bz.total == 10
    assert mcr.as_dict() == {
        "Two Melded Kongs": 1,
        "Concealed Kong": 1,
        "Short Straight": 1,
        "Pung of Terminals or Honors": 2,
        "One Voided Suit": 1,
        "Single Wait": 1,
    }
    assert mcr.total == 11


def test_two_melded_kongs_same_in_both():
    kw = dict(seat_wind=2, prevalent_wind=2)
    a = score_win(HAND, "B5", _kongs("GANG", "BUGANG"), **kw)
    b = score_win(HAND, "B5", _kongs("GANG", "BUGANG"), profile="botzone", **kw)
    assert a == b and a.as_dict()["Two Melded Kongs"] == 1


def test_points_tables_differ_only_on_two_concealed_kongs():
    mcr, bz = FAN_POINTS_BY_PROFILE["mcr"], FAN_POINTS_BY_PROFILE["botzone"]
    assert [f for f in Fan if mcr[f] != bz[f]] == [Fan.TWO_CONCEALED_KONGS]


def _kong_case(melds) -> bool:
    kinds = [k for k, _, _ in melds if k in ("GANG", "BUGANG", "ANGANG")]
    return len(kinds) == 2 and "ANGANG" in kinds


def test_profiles_differ_only_on_kong_hands():
    rng = np.random.default_rng(77)
    n_kong_cases = n_other = 0
    while n_kong_cases < 150 or n_other < 3000:
        wh = random_winning_hand(rng, form="regular")
        a = score_win(**wh.kwargs())
        b = score_win(**wh.kwargs(), profile="botzone")
        if _kong_case(wh.melds):
            n_kong_cases += 1
            n_concealed = sum(k == "ANGANG" for k, _, _ in wh.melds)
            if n_concealed == 2:
                assert a.as_dict() == b.as_dict() and a.total == b.total + 2
            else:
                da, db = a.as_dict(), b.as_dict()
                assert db.pop("Concealed Kong and Melded Kong") == 1
                assert da.pop("Two Melded Kongs") == 1 and da.pop("Concealed Kong") == 1
                assert da == db and a.total == b.total + 1
        else:
            n_other += 1
            assert a == b, wh
