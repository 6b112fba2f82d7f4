"""The engine passes promoted kongs to the scorer (docs/rules.md §7 item 7): a Melded Hand
whose kong was made by BuGang is not a legal Hu in the mcr profile when it drops below 8
points, and is one in the botzone profile. Scripted official-layout game on an explicit wall."""

from __future__ import annotations

import numpy as np
import pytest

from mcr_env.engine import EndReason, MCREngine, MeldKind, Phase, RulesConfig, make_wall
from mcr_env.engine.actions import HU, bugang_action, chi_action, peng_action, play_action
from mcr_env.engine.results import K_OK, score_args
from mcr_env.scoring import score_win
from mcr_env.scoring.evaluate import MELD_CHOW, MELD_PROMOTED_KONG, MELD_PUNG
from mcr_env.scoring.score import score_counts
from mcr_env.scoring.shanten import complete_mask
from mcr_env.tiles import parse_tiles

# Seat 1 (South) pengs 9m from seat 0, 4z and 5p from seat 2, chows 3s from seat 0, promotes
# its 9m pung with the 9m it draws, and waits alone on 7p, which seat 2 then discards.
HANDS = [
    "9m 3s 1m2m3m 4m5m6m 7s8s9s 1z 2z",
    "9m9m 4z4z 2s4s 5p5p 7p 5z6z7z 1z",
    "4z 5p 7p 1p2p3p 4p6p8p 2m 3m 5m 6m",
    "1s1s 5s5s 6s6s 8p8p 9p9p 8m8m 7m",
]
DRAWS = ["3z", "8s", "2p", "3p", "4s", "2s", "6m", "7m", "4m", "9m", "9p"]
REPLACEMENTS = ["6p"]


def T(code: str) -> int:
    (t,) = parse_tiles(code)
    return t


def _play_to_the_7p_discard(profile: str, claim_round: str = "options") -> MCREngine:
    eng = MCREngine(1, RulesConfig(scoring_profile=profile, claim_round=claim_round))
    eng.reset(seed=0, walls=make_wall(HANDS, DRAWS, REPLACEMENTS)[None])

    def step(seat: int, action: int) -> None:
        a = np.zeros((1, 4), dtype=np.int64)
        a[0, seat] = action
        eng.step(a)

    def play(seat: int, tile: str, claim: int | None = None) -> None:
        """``seat`` discards ``tile``; seat 1 then makes ``claim``, or everyone passes."""
        step(seat, play_action(T(tile)))
        if claim is not None:
            step(1, claim)
        elif eng.phase[0] == Phase.CLAIM:
            eng.step(np.zeros((1, 4), dtype=np.int64))

    play(0, "9m", peng_action(T("9m")))
    play(1, "5z")
    play(2, "4z", peng_action(T("4z")))
    play(1, "6z")
    play(2, "5p", peng_action(T("5p")))
    play(1, "7z")
    play(2, "3p")
    play(3, "4s")
    play(0, "3s", chi_action(T("3s"), T("3s")))
    play(1, "1z")
    play(2, "6m")
    play(3, "7m")
    play(0, "4m")
    assert eng.current_seat[0] == 1 and eng.state.drawn_tile[0, 1] == T("9m")
    step(1, bugang_action(T("9m")))
    if eng.phase[0] == Phase.ROB:  # claim_round="all": everyone is asked, nobody can rob
        assert not eng.legal_mask[0, :, HU].any()
        eng.step(np.zeros((1, 4), dtype=np.int64))
    assert eng.phase[0] == Phase.ACT and eng.state.drawn_tile[0, 1] == T("6p")  # not robbed
    st = eng.state
    assert st.meld_kind[0, 1, 0] == MeldKind.GANG and st.meld_added[0, 1, 0]
    play(1, "6p")
    step(2, play_action(T("7p")))
    return eng


# seat 1's melds as score_win takes them, and in the evaluator's (kind, tile) form (a chow
# named by its lowest tile) that the engine's scoring key holds
MELDS = [("BUGANG", T("9m"), 1), ("PENG", T("4z"), 3), ("PENG", T("5p"), 3), ("CHI", T("3s"), 2)]
EVAL_MELDS = (
    (MELD_PROMOTED_KONG, T("9m")),
    (MELD_PUNG, T("4z")),
    (MELD_PUNG, T("5p")),
    (MELD_CHOW, T("2s")),
)


def _scoring_args(eng: MCREngine) -> tuple:
    """The score_counts arguments the engine builds for seat 1 winning on the 7p discard."""
    key = eng._score_keys(np.array([[0, 1, T("7p"), 0]], dtype=np.int64))[0]
    assert key[K_OK] == 1
    return score_args(tuple(key))


def test_engine_passes_bugang_to_the_scorer():
    eng = _play_to_the_7p_discard("mcr")
    args = _scoring_args(eng)
    assert args[2] == EVAL_MELDS
    standing = [0] * 34
    standing[T("7p")] = 1
    assert args[:2] == (tuple(standing), T("7p"))
    # not self-drawn, no Last Tile / last wall tile / kong flags, seat 1 (South), East wind,
    # no flowers
    assert args[3:] == (False, False, False, False, 1, 0, 0, "mcr")


@pytest.mark.parametrize("claim_round", ["options", "all"])
@pytest.mark.parametrize("profile", ["mcr", "botzone"])
def test_promoted_kong_melded_hand_hu_depends_on_profile(profile, claim_round):
    eng = _play_to_the_7p_discard(profile, claim_round)
    hand14 = eng.state.hand[0, 1].copy()
    hand14[T("7p")] += 1
    assert complete_mask(hand14[None], eng.state.n_melds[0, 1:2])[0]  # complete either way
    res = score_win(["7p"], "7p", MELDS, seat_wind=1, profile=profile)
    assert score_counts(*_scoring_args(eng)) == res  # what the engine's scorer call gives
    if profile == "mcr":
        assert res.as_dict() == {
            "Pung of Terminals or Honors": 2,
            "Melded Kong": 1,
            "Single Wait": 1,
        }
        assert not res.is_legal_win
        assert not eng.legal_mask[0, 1, HU]
        # "options": not even asked (nothing to claim 7p with); "all": asked, Pass only
        assert eng.to_act[0, 1] == (claim_round == "all")
    else:
        assert res.as_dict() == {
            "Melded Hand": 1,
            "Pung of Terminals or Honors": 2,
            "Melded Kong": 1,
        }
        assert res.total == 9 and res.is_legal_win
        assert eng.to_act[0, 1] and eng.legal_mask[0, 1, HU]
        a = np.zeros((1, 4), dtype=np.int64)
        a[0, 1] = HU
        eng.step(a)
        out = eng.last_hand_result[0]
        assert out.end_reason == EndReason.DISCARD and out.winner == 1 and out.win_from == 2
        assert out.total == 9
        assert eng.rewards[0].tolist() == [-8, 24 + 9, -(8 + 9), -8]


def test_same_hand_with_a_claimed_kong_is_a_legal_win_in_mcr():
    # the only difference from the game: the 9m kong claimed from a discard
    res = score_win(
        ["7p"],
        "7p",
        [("GANG", "9m", 1), ("PENG", "4z", 3), ("PENG", "5p", 3), ("CHI", "3s", 2)],
        seat_wind=1,
    )
    assert res.is_legal_win and res.as_dict()["Melded Hand"] == 1
