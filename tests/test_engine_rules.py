"""Scripted scenario tests: one per rule of docs/rules.md §2-§4, on explicit walls."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import ROB_DRAWS, ROB_HANDS

from mcr_env.engine import EndReason, MCREngine, MeldKind, Phase, RulesConfig, make_wall
from mcr_env.engine.actions import (
    HU,
    PASS,
    angang_action,
    bugang_action,
    chi_action,
    gang_action,
    peng_action,
    play_action,
)
from mcr_env.engine.walls import _tiles
from mcr_env.scoring import Fan, score_win
from mcr_env.scoring.shanten import complete_mask
from mcr_env.tiles import counts_of, parse_tiles


def T(code: str) -> int:
    """Tile id of one tile in compact notation (``"6s"``) or a Botzone code (``"H1"``)."""
    (t,) = parse_tiles(code)
    return t


def start(hands, draws=(), replacements=(), layout="official", **cfg) -> MCREngine:
    wall = make_wall(hands, draws, replacements, layout=layout)
    eng = MCREngine(1, RulesConfig(wall_layout=layout, **cfg))
    eng.reset(seed=0, walls=wall[None])
    return eng


def acting(eng) -> set[int]:
    return {int(s) for s in np.nonzero(eng.to_act[0])[0]}


def legal(eng, seat: int) -> set[int]:
    return {int(a) for a in np.nonzero(eng.legal_mask[0, seat])[0]}


def step(eng, **by_seat: int) -> None:
    """Step game 0 with ``s0=..`` .. ``s3=..`` actions; unnamed seats Pass."""
    a = np.zeros((1, 4), dtype=np.int64)
    for key, action in by_seat.items():
        a[0, int(key[1:])] = action
    eng.step(a)


def fan_set(eng) -> set:
    res = eng.last_hand_result[0]
    return {f.fan for f in res.fans}


# Four seats; seat 3 waits on 3s/6s (Pure Straight), seat 2 holds 6s6s and 7s8s, seat 1 holds
# 7s8s (Chi on 6s), the dealer (seat 0) discards 6s.
CLAIM_HANDS = [
    "6s 4z4z 2s2s 3s 3p 7p 9m9m 8m 5m 2m",
    "7s 8s 1s1s 9s9s 5z6z7z 3p 6p 9p 2m",
    "6s6s 1z1z 2z3z4z5z6z7z 7s 8s 8p",
    "123456789m 11p 45s",
]


def claim_start() -> MCREngine:
    eng = start(CLAIM_HANDS, draws=["5p"])
    assert acting(eng) == {0}
    assert eng.state.drawn_tile[0, 0] == T("5p")
    step(eng, s0=play_action(T("6s")))
    return eng


def test_claim_round_options_and_hu_beats_all():
    eng = claim_start()
    assert eng.phase[0] == Phase.CLAIM
    assert acting(eng) == {1, 2, 3}
    chi = chi_action(T("7s"), T("6s"))
    assert legal(eng, 1) == {PASS, chi}
    # seat 2 holds 7s 8s too, but only the next seat may Chi
    assert legal(eng, 2) == {PASS, peng_action(T("6s"))}
    # seat 3 can win (and has no claim on 6s: not the next seat, a single 6s)
    assert legal(eng, 3) == {PASS, HU}
    step(eng, s1=chi, s2=peng_action(T("6s")), s3=HU)
    res = eng.last_hand_result[0]
    assert eng.terminated[0] and res.end_reason == EndReason.DISCARD
    assert res.winner == 3 and res.win_from == 0 and res.win_tile == T("6s")
    x = res.total
    assert Fan.PURE_STRAIGHT in fan_set(eng)
    assert eng.rewards[0].tolist() == [-(8 + x), -8, -8, 24 + x]


def test_peng_beats_chi():
    eng = claim_start()
    step(eng, s1=chi_action(T("7s"), T("6s")), s2=peng_action(T("6s")), s3=PASS)
    st = eng.state
    assert eng.phase[0] == Phase.DISCARD and eng.current_seat[0] == 2
    assert acting(eng) == {2}
    assert st.meld_kind[0, 2, 0] == MeldKind.PENG and st.meld_tile[0, 2, 0] == T("6s")
    assert st.meld_from[0, 2, 0] == 0
    assert st.discard_claimed[0, 0, 0]
    assert st.hand[0, 2, T("6s")] == 0
    # after Peng the claimer only discards
    assert all(2 <= a < 36 for a in legal(eng, 2))
    assert eng.rewards[0].tolist() == [0, 0, 0, 0]


def test_chi_by_next_seat_when_others_pass():
    eng = claim_start()
    step(eng, s1=chi_action(T("7s"), T("6s")))
    st = eng.state
    assert eng.phase[0] == Phase.DISCARD and eng.current_seat[0] == 1
    assert st.meld_kind[0, 1, 0] == MeldKind.CHI
    assert st.meld_tile[0, 1, 0] == T("7s") and st.meld_claimed[0, 1, 0] == T("6s")
    assert st.hand[0, 1, T("7s")] == 0 and st.hand[0, 1, T("8s")] == 0


def test_two_seats_hu_nearest_downstream_wins():
    hands = [
        "6s 4z4z 2s2s 3s 3p 7p 9m9m 8m 5m 2m",
        "1s1s 9s9s 5z5z6z6z7z7z 3p 6p 9p",
        "123456789p 1z1z 4s 5s 7z",  # 13th tile replaced below
        "123456789m 11p 45s",
    ]
    hands[2] = "123456789p 1z1z 4s5s"
    eng = start(hands, draws=["5p"])
    step(eng, s0=play_action(T("6s")))
    assert legal(eng, 2) == {PASS, HU} and legal(eng, 3) == {PASS, HU}
    step(eng, s2=HU, s3=HU)
    res = eng.last_hand_result[0]
    assert res.winner == 2 and res.win_from == 0
    assert eng.rewards[0, 2] == 24 + res.total and eng.rewards[0, 3] == -8
    # seat 3 alone: it wins
    eng = start(hands, draws=["5p"])
    step(eng, s0=play_action(T("6s")))
    step(eng, s2=PASS, s3=HU)
    assert eng.last_hand_result[0].winner == 3


def test_melded_kong_then_win_on_replacement():
    hands = [
        "1z 2z2z 3z3z 4z4z 5z5z 6z6z 7z 9p",
        "1z1z1z 123456789m 5s",
        "1s2s3s 1p2p3p 4p5p6p 7p8p 9s9s",
        "2s3s 4s6s 7s8s 1p 2p 3p 4p 5p 6p 7p",
    ]
    eng = start(hands, draws=["9p"], replacements=["5s"])
    step(eng, s0=play_action(T("1z")))
    assert legal(eng, 1) == {PASS, peng_action(T("1z")), gang_action(T("1z"))}
    step(eng, s1=gang_action(T("1z")))
    st = eng.state
    assert st.meld_kind[0, 1, 0] == MeldKind.GANG and st.meld_from[0, 1, 0] == 0
    assert eng.phase[0] == Phase.ACT and eng.current_seat[0] == 1 and st.after_kong[0]
    assert st.drawn_tile[0, 1] == T("5s")
    assert HU in legal(eng, 1)
    step(eng, s1=HU)
    res = eng.last_hand_result[0]
    assert res.end_reason == EndReason.SELF_DRAWN and res.winner == 1
    assert Fan.OUT_WITH_REPLACEMENT_TILE in fan_set(eng)
    x = res.total
    assert eng.rewards[0].tolist() == [-(8 + x), 3 * (8 + x), -(8 + x), -(8 + x)]


def test_kong_replacement_flower_then_win_is_ordinary_self_draw():
    hands = [
        "1z 2z2z 3z3z 4z4z 5z5z 6z6z 7z 9p",
        "1z1z1z 123456789m 5s",
        "1s2s3s 1p2p3p 4p5p6p 7p8p 9s9s",
        "2s3s 4s6s 7s8s 1p 2p 3p 4p 5p 6p 7p",
    ]
    eng = start(hands, draws=["9p"], replacements=["H1", "5s"])
    step(eng, s0=play_action(T("1z")))
    step(eng, s1=gang_action(T("1z")))
    st = eng.state
    assert st.flower_count[0, 1] == 1 and st.drawn_tile[0, 1] == T("5s")
    assert not st.after_kong[0]
    step(eng, s1=HU)
    assert eng.last_hand_result[0].winner == 1
    assert Fan.OUT_WITH_REPLACEMENT_TILE not in fan_set(eng)
    assert Fan.FLOWER_TILES in fan_set(eng)


def test_concealed_kong_hidden_from_others():
    hands = [
        "9p9p9p9p 1z 2z 3z 4z 5z 6z 7z 1s 5s",
        "1z 2z 3z 4z 5z 6z 7z 2s 3s 4s 6m 7m 8m",
        "1z 2z 3z 4z 5z 6z 7z 2p 3p 4p 6s 7s 8s",
        "123456789m 11p 45s",
    ]
    eng = start(hands, draws=["1m"], replacements=["9s"])
    assert angang_action(T("9p")) in legal(eng, 0)
    step(eng, s0=angang_action(T("9p")))
    st = eng.state
    assert st.meld_kind[0, 0, 0] == MeldKind.ANGANG
    assert st.meld_tile[0, 0, 0] == -1 and st.meld_from[0, 0, 0] == -1  # public: tile hidden
    assert st.angang_tile[0, 0, 0] == T("9p")
    assert st.visible_count[0, T("9p")] == 0
    assert st.drawn_tile[0, 0] == T("9s") and st.after_kong[0]
    for seat in (1, 2, 3):
        view = st.seat_view(seat)
        assert (view["angang_tile"] == -1).all()
        assert (view["hand"][:, 0] == -1).all() or (view["hand"][:, 0] == 0).all()
        assert "wall" not in view
    assert st.seat_view(0)["angang_tile"][0, 0, 0] == T("9p")


# Robbing the kong: ROB_HANDS / ROB_DRAWS of engine_helpers (seat 1 Pengs 9p from the dealer,
# later draws the 4th 9p and adds it; seat 2 waits on 6p/9p).


def rob_start() -> MCREngine:
    eng = start(ROB_HANDS, draws=ROB_DRAWS, replacements=["3m"])
    step(eng, s0=play_action(T("9p")))
    assert legal(eng, 2) == {PASS, HU}
    step(eng, s1=peng_action(T("9p")))
    step(eng, s1=play_action(T("7z")))
    for seat, tile in ((2, "7z"), (3, "1z"), (0, "2z")):
        assert acting(eng) == {seat} and eng.phase[0] == Phase.ACT
        step(eng, **{f"s{seat}": play_action(T(tile))})
    assert acting(eng) == {1} and eng.state.drawn_tile[0, 1] == T("9p")
    assert bugang_action(T("9p")) in legal(eng, 1)
    step(eng, s1=bugang_action(T("9p")))
    return eng


def test_bugang_robbed():
    eng = rob_start()
    assert eng.phase[0] == Phase.ROB and eng.state.tile_in_play[0] == T("9p")
    assert acting(eng) == {2} and legal(eng, 2) == {PASS, HU}
    step(eng, s2=HU)
    res = eng.last_hand_result[0]
    assert res.end_reason == EndReason.ROB_KONG and res.winner == 2 and res.win_from == 1
    assert Fan.ROBBING_THE_KONG in fan_set(eng)
    x = res.total
    assert eng.rewards[0].tolist() == [-8, -(8 + x), 24 + x, -8]
    # the robbed kong reverts to a pung
    assert eng.state.meld_kind[0, 1, 0] == MeldKind.PENG


def test_bugang_not_robbed():
    eng = rob_start()
    step(eng, s2=PASS)
    st = eng.state
    assert eng.phase[0] == Phase.ACT and eng.current_seat[0] == 1 and st.after_kong[0]
    assert st.meld_kind[0, 1, 0] == MeldKind.GANG and st.meld_added[0, 1, 0]
    assert st.drawn_tile[0, 1] == T("3m")
    assert eng.rewards[0].tolist() == [0, 0, 0, 0]


def test_concealed_kong_cannot_be_robbed():
    hands = [
        "9p9p9p 1z 2z 3z 4z 5z 6z 7z 1s 5s 2m",
        "1z 2z 3z 4z 5z 6z 7z 2s 3s 4s 6m 7m 8m",
        "123456789m 1p1p 7p8p",
        "1z 2z 3z 4z 5z 6z 7z 2p 3p 4p 6s 7s 8s",
    ]
    eng = start(hands, draws=["9p"], replacements=["9s"])
    step(eng, s0=angang_action(T("9p")))
    assert eng.phase[0] == Phase.ACT and acting(eng) == {0}


def test_flower_replacements_at_deal_and_draw():
    hands = [
        "123456789m 1z2z3z4z",
        "H3 1s2s3s4s5s6s7s8s9s 5z6z7z",
        "1p2p3p4p5p6p7p8p9p 1z2z3z4z",
        "1p2p3p4p5p6p7p8p9p 5z6z7z1s",
    ]
    # back: seat 1's dealt H3 -> 9m; dealer draws H1 -> H2 -> 7z
    eng = start(hands, draws=["H1"], replacements=["9m", "H2", "7z"])
    st = eng.state
    assert st.flower_count[0].tolist() == [2, 1, 0, 0]
    assert st.flowers[0, 0, 0] and st.flowers[0, 0, 1] and st.flowers[0, 1, 2]
    assert st.hand[0, 1, T("9m")] == 1
    assert st.drawn_tile[0, 0] == T("7z") and st.hand[0, 0, T("7z")] == 1
    assert st.tiles_left[0, 0] == 144 - 52 - 1 - 3
    assert not st.after_kong[0]


def test_complete_hand_under_8_points_cannot_hu():
    hands = [
        "8p 1z1z 2z2z 3z3z 4z4z 5z5z 6z 7z",  # the dealer discards 8p
        "234m 567s 345p 67p 55s",
        "1s2s3s 1p2p 9p9p 1m 9m 6z 7z 5z 9s",
        "1s2s3s 1p2p 9p9p 1m 9m 6z 7z 4z 9s",
    ]
    eng = start(hands, draws=["2m"])
    step(eng, s0=play_action(T("8p")))
    hand14 = counts_of(parse_tiles("234m 567s 345p 678p 55s"))
    assert complete_mask(hand14[None], np.array([0]))[0]
    res = score_win("234m 567s 345p 67p 55s", T("8p"))
    assert res.total_without_flowers < 8
    # seat 1's hand is complete with 8p but scores under 8: only Chi is offered, not Hu
    assert acting(eng) == {1}
    assert legal(eng, 1) == {PASS, chi_action(T("7p"), T("8p"))}
    assert not eng.hand_over[0]


def tsumogiri(eng, stop) -> None:
    """Play game 0 by discarding the drawn tile and passing every claim until ``stop(eng)``."""
    for _ in range(400):
        if stop(eng) or eng.terminated[0]:
            return
        seat = int(eng.current_seat[0])
        if eng.phase[0] == Phase.ACT:
            step(eng, **{f"s{seat}": play_action(int(eng.state.drawn_tile[0, seat]))})
        else:
            step(eng)
    raise AssertionError("game did not reach the expected point")


def end_wall(hands, tail, layout="official", replacements=()):
    """Wall whose remaining tiles are drawn in sorted order with ``tail`` drawn last."""
    used = [t for h in hands for t in _tiles(h)]
    tail_ids = [T(x) for x in tail]
    repl = [T(x) for x in replacements]
    pool = np.bincount(
        np.concatenate([np.repeat(np.arange(34), 4), np.arange(34, 42)]), minlength=42
    )
    for t in used + tail_ids + repl:
        pool[t] -= 1
    assert (pool >= 0).all()
    rest = np.repeat(np.arange(42), pool).tolist()
    return make_wall(hands, rest + tail_ids, repl, layout=layout)


# All 8 flowers are dealt to seat 1 and replaced at the deal, so the 84 remaining draws go
# 0, 1, 2, 3, 0, ... and the last tile (draw 84) reaches seat 3.
END_HANDS = [
    "1m4m7m 2s5s8s 3p6p9p 1z2z3z 4z",
    "H1 H2 H3 H4 H5 H6 H7 H8 1s 9s 9p 1p 5z",
    "2m3m 5m6m 1z1z 7p8p 7z7z 2p2p 6z",
    "123456789m 2z2z 2p 3p",
]
END_REPL = ["1s", "1s", "1s", "9s", "9s", "9s", "1p", "1p"]


def test_no_kong_when_no_tile_is_left_and_last_tile_draw():
    hands = list(END_HANDS)
    hands[3] = "123456789m 4p4p4p 6p"
    wall = end_wall(hands, ["4p"], replacements=END_REPL)
    eng = MCREngine(1)
    eng.reset(walls=wall[None])
    assert eng.state.flower_count[0, 1] == 8
    tsumogiri(eng, lambda e: e.state.tiles_left[0, 0] == 0)
    assert eng.current_seat[0] == 3 and eng.state.drawn_tile[0, 3] == T("4p")
    assert eng.state.hand[0, 3, T("4p")] == 4
    moves = legal(eng, 3)
    assert angang_action(T("4p")) not in moves  # no replacement tile exists
    assert play_action(T("4p")) in moves


def test_last_tile_draw():
    hands = list(END_HANDS)
    hands[3] = "123456789m 2z2z 3p 4p"
    wall = end_wall(hands, ["5p"], replacements=END_REPL)
    eng = MCREngine(1)
    eng.reset(walls=wall[None])
    tsumogiri(eng, lambda e: e.state.tiles_left[0, 0] == 0)
    assert eng.current_seat[0] == 3 and HU in legal(eng, 3)
    step(eng, s3=HU)
    assert Fan.LAST_TILE_DRAW in fan_set(eng)


def test_last_discard_only_hu_and_last_tile_claim():
    hands = list(END_HANDS)
    hands[0] = "123456789m 3z3z 7p 8p"  # seat 0 waits on 6p/9p
    hands[2] = "2m3m 5m6m 1z1z 9p9p 7z7z 2p 6z 2z"  # seat 2 holds 9p9p: no Peng on the last tile
    wall = end_wall(hands, ["9p"], replacements=END_REPL)
    eng = MCREngine(1)
    eng.reset(walls=wall[None])
    tsumogiri(eng, lambda e: e.state.tiles_left[0, 0] == 0)
    assert eng.current_seat[0] == 3
    assert eng.state.drawn_tile[0, 3] == T("9p")
    step(eng, s3=play_action(T("9p")))
    # the last discard: seat 0 may only Hu; nobody may Peng/Chi
    assert eng.phase[0] == Phase.CLAIM and acting(eng) == {0}
    assert legal(eng, 0) == {PASS, HU}
    step(eng, s0=HU)
    assert Fan.LAST_TILE_CLAIM in fan_set(eng)
    assert eng.last_hand_result[0].win_from == 3


def test_exhaustive_draw_pays_nothing():
    hands = list(END_HANDS)
    wall = end_wall(hands, ["5p"], replacements=END_REPL)
    eng = MCREngine(1)
    eng.reset(walls=wall[None])
    tsumogiri(eng, lambda e: False)
    res = eng.last_hand_result[0]
    assert eng.terminated[0] and res.end_reason == EndReason.EXHAUSTIVE
    assert res.winner == -1 and res.settlement.tolist() == [0, 0, 0, 0]
    assert eng.state.tiles_left[0, 0] == 0


def test_last_tile_fourth_copy():
    hands = [
        "9p 1z 2z2z 3z3z 4z4z 5z5z 6z 7z 9s",
        "1s4s7s 2p5p8p 3m 6m 9m 1z 2z 3z 4z",
        "9p9p 2s3s 4s5s 6s7s 8s9s 1p 2p 4p",
        "123456789m 1z1z 7p8p",
    ]
    eng = start(hands, draws=["7p", "9p"])
    step(eng, s0=play_action(T("9p")))
    assert legal(eng, 3) == {PASS, HU}
    step(eng, s2=peng_action(T("9p")))
    assert eng.state.visible_count[0, T("9p")] == 3
    step(eng, s2=play_action(T("1p")))
    assert eng.current_seat[0] == 3 and eng.state.drawn_tile[0, 3] == T("9p")
    step(eng, s3=HU)
    assert Fan.LAST_TILE in fan_set(eng)


def test_penalize_mode_ends_hand():
    eng = start(CLAIM_HANDS, draws=["5p"], illegal_action="penalize")
    step(eng, s0=HU)  # not legal: seat 0 has no win
    res = eng.last_hand_result[0]
    assert res.end_reason == EndReason.PENALTY and res.offenders == (0,)
    assert eng.rewards[0].tolist() == [-30, 10, 10, 10] and eng.terminated[0]


def test_illegal_action_raises_and_changes_nothing():
    eng = start(CLAIM_HANDS, draws=["5p"])
    before = eng.state.copy()
    with pytest.raises(ValueError, match="game 0, seat 0"):
        step(eng, s0=peng_action(T("6s")))
    for name, arr in vars(before).items():
        np.testing.assert_array_equal(arr, getattr(eng.state, name), err_msg=name)


def test_botzone_layout_own_walls():
    hands = CLAIM_HANDS
    eng = start(hands, draws=[["5p"], ["1m"], ["1m"], ["1m"]], layout="botzone")
    assert eng.state.tiles_left[0].tolist() == [20, 21, 21, 21]
    step(eng, s0=play_action(T("6s")))
    step(eng, s3=PASS, s2=PASS, s1=PASS)
    assert eng.current_seat[0] == 1 and eng.state.drawn_tile[0, 1] == T("1m")
    assert eng.state.tiles_left[0].tolist() == [20, 20, 21, 21]
