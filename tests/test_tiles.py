import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcr_env import tiles as T


def test_ids_follow_botzone_order():
    assert [T.tile_to_code(t) for t in (0, 8, 9, 17, 18, 26, 27, 30, 31, 33, 34, 41)] == [
        "W1",
        "W9",
        "T1",
        "T9",
        "B1",
        "B9",
        "F1",
        "F4",
        "J1",
        "J3",
        "H1",
        "H8",
    ]


def test_predicates():
    assert T.is_terminal(0) and T.is_terminal(26) and not T.is_terminal(27)
    assert T.is_honor(27) and T.is_honor(33) and not T.is_honor(26)
    assert [T.tile_to_code(t) for t in np.flatnonzero(T.IS_GREEN)] == [
        "T2",
        "T3",
        "T4",
        "T6",
        "T8",
        "J2",
    ]
    assert T.format_botzone(np.flatnonzero(T.IS_REVERSIBLE)) == (
        "T2 T4 T5 T6 T8 T9 B1 B2 B3 B4 B5 B8 B9 J3"
    )
    assert T.is_flower(34) and not T.is_flower(33)
    assert T.suit_of(30) is T.Suit.WIND and T.rank_of(30) == 4


def test_compact_examples():
    assert T.parse_compact("123m456s789p1234z") == [0, 1, 2, 12, 13, 14, 24, 25, 26, 27, 28, 29, 30]
    assert T.parse_compact("ESWNCFP") == list(range(27, 34))
    assert T.parse_compact("5z6z7z") == [31, 32, 33]
    assert T.format_compact([33, 0, 9, 18, 27]) == "1m1s1p17z"


def test_botzone_and_auto_detection():
    assert T.parse_tiles("W1 T9 F3 J2 H5") == [0, 17, 29, 32, 38]
    assert T.parse_tiles("19m") == [0, 8]
    assert T.parse_tiles(["W1", 5]) == [0, 5]


@pytest.mark.parametrize(
    "bad, token",
    [("123x", "x"), ("12", "12"), ("8z", "8"), ("0m", "0"), ("W1 X3", "X3"), ("W0 W1", "W0")],
)
def test_malformed_strings_name_the_token(bad, token):
    with pytest.raises(ValueError, match=token):
        T.parse_tiles(bad)


def test_bad_types():
    with pytest.raises(TypeError):
        T.parse_tiles(3.5)
    with pytest.raises(TypeError):
        T.parse_tiles([1.0])
    with pytest.raises(ValueError):
        T.parse_tiles([42])


def test_glyphs():
    assert T.tile_glyph(0) == "\U0001f007" and T.tile_glyph(27) == "\U0001f000"
    assert T.tile_glyph(31) == "\U0001f004" and T.tile_glyph(34) == "\U0001f022"
    assert len(set(T.format_glyphs(range(42)))) == 42


@given(st.lists(st.integers(0, 41), max_size=20))
def test_botzone_round_trip(ids):
    assert T.parse_botzone(T.format_botzone(ids)) == ids


@given(st.lists(st.integers(0, 33), max_size=20))
def test_compact_round_trip(ids):
    assert T.parse_compact(T.format_compact(ids)) == sorted(ids)
    assert T.format_compact(T.parse_compact(T.format_compact(ids))) == T.format_compact(ids)
