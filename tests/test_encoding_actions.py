"""Readable action names and Botzone response strings (mcr_env.encoding.actions)."""

import numpy as np
import pytest

from mcr_env.encoding import actions as A
from mcr_env.engine import actions as engine_actions


def test_reexports_are_the_engine_layout():
    assert A.NUM_ACTIONS == 235
    assert A.ACTION_KIND is engine_actions.ACTION_KIND
    assert A.chi_action is engine_actions.chi_action
    assert A.PLAY_OFFSET == 2 and A.BUGANG_OFFSET == 201


@pytest.mark.parametrize(
    "action, name",
    [
        (0, "Pass"),
        (1, "Hu"),
        (2 + 2, "Play W3"),
        (A.chi_action(11, 10), "Chi T3 (claimed T2)"),
        (99 + 22, "Peng B5"),
        (133 + 27, "Gang F1"),
        (167 + 32, "AnGang J2"),
        (201 + 4, "BuGang W5"),
        (234, "BuGang J3"),
        (36, "Chi W2 (claimed W1)"),
        (98, "Chi B8 (claimed B9)"),
    ],
)
def test_action_names(action, name):
    assert A.action_name(action) == name
    assert A.parse_action_name(name) == action
    assert A.parse_action_name("  " + name.lower().replace(" ", "  ")) == action


def test_names_unique_and_round_trip():
    assert len(set(A.ACTION_NAMES)) == 235
    for a in range(235):
        assert A.parse_action_name(A.action_name(a)) == a
    assert A.action_name(np.int16(5)) == "Play W4"


def test_name_errors():
    with pytest.raises(ValueError, match="out of range"):
        A.action_name(235)
    with pytest.raises(ValueError, match="out of range"):
        A.action_name(-1)
    with pytest.raises(TypeError):
        A.action_name("Pass")
    with pytest.raises(TypeError):
        A.action_name(True)
    with pytest.raises(A.ActionNameError, match="Play X3"):
        A.parse_action_name("Play X3")
    with pytest.raises(TypeError):
        A.parse_action_name(3)


@pytest.mark.parametrize(
    "action, next_play, text",
    [
        (0, None, "PASS"),
        (1, None, "HU"),
        (2 + 2, None, "PLAY W3"),
        (99 + 14, 2 + 15, "PENG T7"),
        (99 + 14, "T7", "PENG T7"),
        (A.chi_action(11, 10), 2 + 15, "CHI T3 T7"),
        (133 + 0, None, "GANG"),
        (167 + 0, None, "GANG W1"),
        (201 + 4, None, "BUGANG W5"),
    ],
)
def test_to_botzone(action, next_play, text):
    assert A.to_botzone(action, next_play) == text


def test_to_botzone_errors():
    with pytest.raises(A.BotzoneFormatError, match="next_play"):
        A.to_botzone(99 + 14)
    with pytest.raises(A.BotzoneFormatError, match="next_play"):
        A.to_botzone(A.chi_action(11, 10))
    with pytest.raises(A.BotzoneFormatError, match="only meaningful"):
        A.to_botzone(2, 3)
    with pytest.raises(A.BotzoneFormatError, match="must be a Play"):
        A.to_botzone(99, 99)
    with pytest.raises(A.BotzoneFormatError, match="flower"):
        A.to_botzone(99, "H1")
    with pytest.raises(ValueError, match="out of range"):
        A.to_botzone(300)


@pytest.mark.parametrize(
    "text, last, expected",
    [
        ("PASS", None, (0,)),
        ("HU", None, (1,)),
        ("play w3", None, (4,)),
        ("PENG T7", "T6", (99 + 14, 2 + 15)),
        ("PENG T7", 14, (99 + 14, 2 + 15)),
        ("CHI T3 T7", "T2", (A.chi_action(11, 10), 2 + 15)),
        ("CHI T3 T7", "T4", (A.chi_action(11, 12), 2 + 15)),
        ("GANG", "F2", (133 + 28,)),
        ("GANG W1", None, (167,)),
        ("  BUGANG   W5 ", None, (201 + 4,)),
    ],
)
def test_from_botzone(text, last, expected):
    assert A.from_botzone(text, last) == expected


def test_botzone_round_trip_all_actions():
    for a in range(235):
        kind, tile, claimed = A.decode_action(a)
        nxt = 2 + 33 if kind in (A.ActionKind.CHI, A.ActionKind.PENG) else None
        last = claimed if kind == A.ActionKind.CHI else tile if tile >= 0 else None
        ids = A.from_botzone(A.to_botzone(a, nxt), last)
        assert ids == ((a, nxt) if nxt is not None else (a,))


@pytest.mark.parametrize(
    "text, last, match",
    [
        ("", None, "empty"),
        ("DISCARD W1", None, "unknown Botzone verb"),
        ("PLAY", None, "takes 1"),
        ("PLAY W1 W2", None, "takes 1"),
        ("CHI T3", "T2", "takes 2"),
        ("PLAY X9", None, "bad tile"),
        ("PLAY H1", None, "flower"),
        ("PENG T7", None, "last_tile"),
        ("GANG", None, "last_tile"),
        ("CHI T3 T7", "T6", "not part of the chow"),
        ("CHI T1 T7", "T2", "rank 2..8"),
        ("CHI F2 T7", "F1", "rank 2..8"),
    ],
)
def test_from_botzone_errors(text, last, match):
    with pytest.raises(A.BotzoneFormatError, match=match):
        A.from_botzone(text, last)


def test_from_botzone_type_errors():
    with pytest.raises(TypeError):
        A.from_botzone(None)
    with pytest.raises(TypeError):
        A.from_botzone("GANG", 1.5)
    with pytest.raises(ValueError, match="last_tile"):
        A.from_botzone("GANG", 40)
