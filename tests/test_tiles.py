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


@pytest.mark.parametrize(
    ("tile", "tid"),
    [
        ("5m", 4),
        ("W5", 4),
        ("w5", 4),
        (" 5m ", 4),
        ("9s", 17),
        ("T9", 17),
        ("5p", 22),
        ("B5", 22),
        ("1z", 27),
        ("E", 27),
        ("F1", 27),
        ("W", 29),
        ("7z", 33),
        ("P", 33),
        ("J3", 33),
        ("H3", 36),
        (4, 4),
        (np.int8(33), 33),
    ],
)
def test_parse_tile_either_notation(tile, tid):
    assert T.parse_tile(tile) == tid


@pytest.mark.parametrize(
    ("tile", "exc", "match"),
    [
        ("123m", ValueError, "expected one tile, got 3"),
        ("", ValueError, "expected one tile, got 0"),
        ("e", ValueError, "uppercase"),
        ("s", ValueError, r"uppercase.*'S' or '2z'"),
        ("5m6", ValueError, "malformed"),
        ("W0", ValueError, "unknown tile code"),
        ("X5", ValueError, "unknown tile code"),
        ("8z", ValueError, "honor rank"),
        (42, ValueError, "out of range"),
        (1.5, TypeError, "tile"),
        (True, TypeError, "tile"),
        (None, TypeError, "tile"),
    ],
)
def test_parse_tile_errors(tile, exc, match):
    with pytest.raises(exc, match=match):
        T.parse_tile(tile)


def test_parse_tiles_sequences_take_either_notation():
    assert T.parse_tiles(["5m", "W5", 4, "E", "7z"]) == [4, 4, 4, 27, 33]


def test_lowercase_honor_letters_are_rejected_with_reason():
    """'s' and 'p' are suit letters (bamboo, dots), so honor letters are uppercase only."""
    with pytest.raises(ValueError, match=r"uppercase only.*'e'"):
        T.parse_compact("123me")
    assert T.parse_compact("123mE") == [0, 1, 2, 27]


def test_botzone_codes_without_spaces_get_a_hint():
    """Reproducer: 'W1F1J1' gave "malformed tile token '1F'" with no hint."""
    with pytest.raises(ValueError, match=r"separate Botzone codes by spaces: 'W1 F1 J1'"):
        T.parse_tiles("W1F1J1")
    with pytest.raises(ValueError, match=r"separate Botzone codes by spaces: 'W1 T2'"):
        T.parse_tiles("w1t2")
    with pytest.raises(ValueError, match="cannot mix"):
        T.parse_tiles("W1 T2 5m")
