"""Bad input to score_win raises ValueError/TypeError naming the problem (never a crash or a
silent answer); a hypothesis property test feeds arbitrary input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcr_env.scoring import score_win
from mcr_env.testing import pymahjonggb_available

# a legal 14-tile reference: 123m 456m 789s 234p 55p won on 4p
HAND = ["W1", "W2", "W3", "W4", "W5", "W6", "T7", "T8", "T9", "B2", "B3", "B5", "B5"]


def test_reference_hand_scores():
    assert score_win(HAND, "B4").total == 5


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        (dict(hand=["W1"] * 4 + HAND[4:], win_tile="W1"), ValueError, "5 copies of tile W1"),
        (dict(hand=HAND[:-1], win_tile="B4"), ValueError, "wrong tile count"),
        (dict(hand=HAND + ["W9"], win_tile="B4"), ValueError, "wrong tile count"),
        (dict(hand=HAND[:-1] + ["X5"], win_tile="B4"), ValueError, "unknown tile code"),
        (dict(hand=HAND, win_tile="W0"), ValueError, "unknown tile code"),
        (dict(hand=HAND, win_tile=34), ValueError, "flower"),
        (dict(hand=HAND, win_tile=99), ValueError, "unknown tile id"),
        (dict(hand=HAND[:-1] + ["H2"], win_tile="B4"), ValueError, "flower"),
        (dict(hand=HAND[3:], win_tile="B4", melds=[("CHI", "F2", 1)]), ValueError, "Chi"),
        (dict(hand=HAND[3:], win_tile="B4", melds=[("CHI", "W1", 1)]), ValueError, "Chi"),
        (dict(hand=HAND[3:], win_tile="B4", melds=[("CHI", "T9", 1)]), ValueError, "Chi"),
        (dict(hand=HAND[3:], win_tile="B4", melds=[("PENG", "W1", 4)]), ValueError, "offer"),
        (dict(hand=HAND[3:], win_tile="B4", melds=[("PENG", "W1", 0)]), ValueError, "offer"),
        (dict(hand=HAND[3:], win_tile="B4", melds=[("ANGANG", "F1", 2)]), ValueError, "offer"),
        (dict(hand=HAND[3:], win_tile="B4", melds=[("PON", "W1", 1)]), ValueError, "kind"),
        (dict(hand=[], win_tile="B4", melds=[("PENG", "F1", 1)] * 5), ValueError, "at most 4"),
        (dict(hand=HAND, win_tile="B4", flowers=9), ValueError, "flowers"),
        (dict(hand=HAND, win_tile="B4", flowers=-1), ValueError, "flowers"),
        (dict(hand=HAND, win_tile="B4", seat_wind=4), ValueError, "seat_wind"),
        (dict(hand=HAND, win_tile="B4", prevalent_wind=-1), ValueError, "prevalent_wind"),
        (dict(hand=HAND, win_tile="B4", profile="riichi"), ValueError, "profile"),
        (dict(hand=HAND[:-1] + ["F1"], win_tile="B4"), ValueError, "not a winning hand"),
        (dict(hand=5, win_tile="B4"), TypeError, "hand"),
        (dict(hand=HAND, win_tile=1.5), TypeError, "win_tile"),
        (dict(hand=HAND, win_tile=True), TypeError, "win_tile"),
        (dict(hand=HAND, win_tile="B4", is_self_drawn=1), TypeError, "is_self_drawn"),
        (dict(hand=HAND, win_tile="B4", is_about_kong="yes"), TypeError, "is_about_kong"),
        (dict(hand=HAND, win_tile="B4", seat_wind="E"), TypeError, "seat_wind"),
        (dict(hand=HAND, win_tile="B4", flowers=2.0), TypeError, "flowers"),
        (dict(hand=HAND, win_tile="B4", melds="CHI"), TypeError, "melds"),
        (dict(hand=HAND[3:], win_tile="B4", melds=[("CHI", "W2")]), TypeError, "meld 0"),
        (dict(hand=HAND[3:], win_tile="B4", melds=[("CHI", "W2", "1")]), TypeError, "offer"),
        (dict(hand=HAND[3:], win_tile="B4", melds=[(1, "W2", 1)]), TypeError, "kind"),
    ],
)
def test_bad_input_raises(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        score_win(**kwargs)


def test_melds_count_against_five_copies():
    hand = ["W1", "W1", "W2", "W3", "W4", "W5", "W6", "B5", "B5", "B5"]
    with pytest.raises(ValueError, match="5 copies of tile W1"):
        score_win(hand, "B5", [("PENG", "W1", 1)])


def test_accepts_ids_codes_strings_and_arrays():
    ids = [0, 1, 2, 3, 4, 5, 15, 16, 17, 19, 20, 22, 22]
    a = score_win(ids, 21)
    assert a == score_win(np.array(ids, dtype=np.int8), "B4")
    assert a == score_win("123456m789s23p55p", "B4")
    assert a == score_win(" ".join(HAND), 21)


_tile = st.one_of(
    st.integers(-3, 45),
    st.sampled_from(["W1", "T9", "B5", "F4", "J3", "H1", "X1", "w2", "", "Z"]),
    st.none(),
    st.floats(allow_nan=True),
    st.booleans(),
)
_meld = st.one_of(
    st.tuples(
        st.sampled_from(["CHI", "PENG", "GANG", "ANGANG", "BUGANG", "chi", "KAN", 3]),
        _tile,
        st.one_of(st.integers(-2, 5), st.text(max_size=2), st.none()),
    ),
    st.lists(_tile, max_size=4),
    st.integers(),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    hand=st.one_of(
        st.lists(_tile, max_size=15),
        st.text(alphabet="123456789mspzESWNCFP WTBJH", max_size=30),
        st.integers(),
        st.none(),
    ),
    win_tile=_tile,
    melds=st.one_of(st.lists(_meld, max_size=5), st.none(), st.text(max_size=3)),
    flags=st.lists(st.one_of(st.booleans(), st.integers(-1, 2), st.none()), min_size=4, max_size=4),
    winds=st.tuples(st.one_of(st.integers(-2, 5), st.text(max_size=1)), st.integers(-2, 5)),
    flowers=st.one_of(st.integers(-2, 10), st.floats()),
)
def test_arbitrary_input_gives_result_or_named_error(hand, win_tile, melds, flags, winds, flowers):
    try:
        res = score_win(
            hand,
            win_tile,
            melds,
            is_self_drawn=flags[0],
            is_4th_tile=flags[1],
            is_wall_last=flags[2],
            is_about_kong=flags[3],
            seat_wind=winds[0],
            prevalent_wind=winds[1],
            flowers=flowers,
        )
    except (ValueError, TypeError) as e:
        assert str(e)
        return
    assert res.total == sum(f.points * f.count for f in res.fans)


@pytest.mark.skipif(not pymahjonggb_available(), reason="needs pymahjonggb==1.4.0")
@settings(max_examples=300, deadline=None)
@given(
    data=st.data(),
    n_melds=st.integers(0, 4),
)
def test_random_valid_shaped_input_agrees_with_oracle_on_win_or_not(data, n_melds):
    """Tile lists of the right size: either both call it a win with the same score, or we raise
    ValueError and PyMahjongGB reports ERROR_NOT_WIN."""
    import MahjongGB

    from mcr_env.tiles import tile_to_code

    melds = []
    pool = [4] * 34
    for _ in range(n_melds):
        t = data.draw(st.integers(0, 33))
        if pool[t] < 3:
            continue
        pool[t] -= 3
        melds.append(("PENG", t, 1))
    n = 13 - 3 * len(melds)
    tiles = []
    for _ in range(n + 1):
        choices = [t for t in range(34) if pool[t] > 0]
        t = data.draw(st.sampled_from(choices))
        pool[t] -= 1
        tiles.append(t)
    hand, win = tiles[:-1], tiles[-1]
    try:
        ours = score_win(hand, win, melds, profile="botzone")
    except ValueError as e:
        assert "not a winning hand" in str(e)
        with pytest.raises(TypeError, match="ERROR_NOT_WIN"):
            MahjongGB.MahjongFanCalculator(
                pack=tuple(("PENG", tile_to_code(t), 1) for _, t, _ in melds),
                hand=tuple(tile_to_code(t) for t in hand),
                winTile=tile_to_code(win),
                flowerCount=0,
                isSelfDrawn=False,
                is4thTile=False,
                isAboutKong=False,
                isWallLast=False,
                seatWind=0,
                prevalentWind=0,
            )
        return
    res = MahjongGB.MahjongFanCalculator(
        pack=tuple(("PENG", tile_to_code(t), 1) for _, t, _ in melds),
        hand=tuple(tile_to_code(t) for t in hand),
        winTile=tile_to_code(win),
        flowerCount=0,
        isSelfDrawn=False,
        is4thTile=False,
        isAboutKong=False,
        isWallLast=False,
        seatWind=0,
        prevalentWind=0,
    )
    assert ours.total == sum(p for p, _ in res)


def test_win_and_meld_tiles_take_either_notation():
    """Reproducer: score_win('1112345678999m', '5m') raised "unknown tile code '5m'"."""
    nine_gates = score_win("1112345678999m", "5m")
    assert nine_gates == score_win("1112345678999m", "W5") == score_win("1112345678999m", 4)
    assert nine_gates.fans[0].name == "Nine Gates"
    codes = score_win("333z44z55m", "4z", [("PENG", "F1", 1), ("PENG", "F2", 2)])
    compact = score_win("333z44z55m", "4z", [("PENG", "1z", 1), ("PENG", "S", 2)])
    assert codes == compact and codes.total == 94
    listed = ["W", "3z", "W", "4z", "N", "5m", "W5"]  # list elements in either notation too
    assert score_win(listed, "N", [("PENG", "E", 1), ("PENG", "2z", 2)]) == codes
    with pytest.raises(ValueError, match=r"win_tile: expected one tile, got 2"):
        score_win("1112345678999m", "55m")
    with pytest.raises(ValueError, match=r"meld 0 tile: .*uppercase only"):
        score_win("333z44z55m", "4z", [("PENG", "e", 1), ("PENG", "S", 2)])
