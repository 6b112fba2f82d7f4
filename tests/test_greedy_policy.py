"""mcr_env.engine.greedy: the compiled greedy policy against the numpy one it replaced.

The reference below is the numpy ``greedy_actions`` of ``scripts/bench_engine.py`` as it was
before the kernel (one ``shanten_batch`` over every legal discard); the kernel must answer
exactly the same actions on every state of seeded uniform and greedy play.
"""

from __future__ import annotations

import numpy as np
import pytest

from mcr_env.engine import MCREngine, RulesConfig
from mcr_env.engine.actions import CHI_OFFSET, HU, NUM_ACTIONS, PASS, PLAY_OFFSET
from mcr_env.engine.greedy import greedy_actions
from mcr_env.engine.sampling import sample_legal_actions
from mcr_env.scoring.shanten import shanten_batch


def reference_greedy(legal, to_act, hands, n_melds) -> np.ndarray:
    """The numpy greedy policy (the slow, obvious version)."""
    out = np.zeros(to_act.shape, dtype=np.int64)
    g, s = np.nonzero(to_act)
    if g.size == 0:
        return out
    m = legal[g, s]
    act = np.zeros(g.size, dtype=np.int64)
    claims = m[:, CHI_OFFSET:]
    has_claim = claims.any(axis=1)
    last = NUM_ACTIONS - 1 - claims[:, ::-1].argmax(axis=1)
    act[has_claim] = last[has_claim]
    plays = m[:, PLAY_OFFSET:CHI_OFFSET]
    need = np.nonzero(~has_claim & plays.any(axis=1))[0]
    if need.size:
        ok = plays[need]
        r, t = np.nonzero(ok)
        cand = hands[g[need][r], s[need][r]].astype(np.int64)
        cand[np.arange(r.size), t] -= 1
        sh = np.full(ok.shape, 99, dtype=np.int64)
        sh[r, t] = shanten_batch(cand, n_melds[g[need][r], s[need][r]].astype(np.int64))
        act[need] = PLAY_OFFSET + sh.argmin(axis=1)
    act[m[:, HU]] = HU
    only_pass = ~m[:, 1:].any(axis=1)
    act[only_pass] = PASS
    out[g, s] = act
    return out


@pytest.mark.parametrize(
    ("policy", "layout", "claim_round"),
    [
        ("greedy", "official", "options"),
        ("uniform", "official", "all"),
        ("greedy", "botzone", "all"),
        ("uniform", "botzone", "options"),
    ],
)
def test_greedy_kernel_matches_reference(policy, layout, claim_round):
    """Every step of 64 tables x 250 steps: identical actions (ties, claims, Hu included)."""
    eng = MCREngine(64, RulesConfig(wall_layout=layout, claim_round=claim_round))
    eng.reset(seed=7)
    rng = np.random.default_rng(7)
    seen = {"hu": 0, "claim": 0, "discard": 0, "pass": 0}
    for _ in range(250):
        legal, to_act, st = eng.legal_mask, eng.to_act, eng.state
        ref = reference_greedy(legal, to_act, st.hand, st.n_melds)
        got = greedy_actions(legal, to_act, st.hand, st.n_melds)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, ref)
        # int8 masks (the envs' action_mask) and a preallocated out give the same answer
        out = np.full((64, 4), -5, dtype=np.int64)
        greedy_actions(legal.view(np.int8), to_act, st.hand, st.n_melds, out=out)
        np.testing.assert_array_equal(out, ref)
        a = ref[to_act]
        seen["hu"] += int((a == HU).sum())
        seen["claim"] += int((a >= CHI_OFFSET).sum())
        seen["discard"] += int(((a >= PLAY_OFFSET) & (a < CHI_OFFSET)).sum())
        seen["pass"] += int((a == PASS).sum())
        eng.step(ref if policy == "greedy" else sample_legal_actions(legal, rng, to_act))
        if eng.terminated.any():
            eng.reset(games=eng.terminated.copy())
    if claim_round == "options":  # only seats with an option are asked: no Pass-only rows
        del seen["pass"]
    assert min(seen.values()) > 0, seen


def test_greedy_picks_lowest_shanten_lowest_tile():
    """A hand-made state: the discard keeping the ready hand, ties to the lowest tile."""
    from mcr_env.tiles import counts_of, parse_tiles

    legal = np.zeros((1, 4, NUM_ACTIONS), dtype=bool)
    to_act = np.zeros((1, 4), dtype=bool)
    hands = np.zeros((1, 4, 34), dtype=np.int8)
    n_melds = np.zeros((1, 4), dtype=np.int8)
    # three chows, a pair and three isolated tiles (5p, 1z, 3z): discarding any isolated tile
    # leaves a 1-shanten hand, breaking a chow or the pair leaves a worse one
    hand = counts_of(parse_tiles("123m456m789m11s5p13z"))
    hands[0, 2] = hand
    to_act[0, 2] = True
    legal[0, 2, PLAY_OFFSET + np.flatnonzero(hand)] = True
    got = greedy_actions(legal, to_act, hands, n_melds)
    ref = reference_greedy(legal, to_act, hands, n_melds)
    np.testing.assert_array_equal(got, ref)
    five_p = parse_tiles("5p")[0]
    assert got[0, 2] == PLAY_OFFSET + five_p  # 5p < 1z < 3z, all leave a 1-shanten hand
    assert got[0, [0, 1, 3]].tolist() == [0, 0, 0]
    legal[0, 2, HU] = True
    assert greedy_actions(legal, to_act, hands, n_melds)[0, 2] == HU
    legal[0, 2, HU] = False
    legal[0, 2, CHI_OFFSET + 5] = legal[0, 2, CHI_OFFSET + 40] = True
    assert greedy_actions(legal, to_act, hands, n_melds)[0, 2] == CHI_OFFSET + 40
    legal[0, 2] = False
    legal[0, 2, PASS] = True
    assert greedy_actions(legal, to_act, hands, n_melds)[0, 2] == PASS


def test_greedy_bad_input():
    legal = np.zeros((2, 4, NUM_ACTIONS), dtype=bool)
    to_act = np.zeros((2, 4), dtype=bool)
    hands = np.zeros((2, 4, 34), dtype=np.int8)
    n_melds = np.zeros((2, 4), dtype=np.int8)
    with pytest.raises(ValueError, match="to_act must have shape"):
        greedy_actions(legal, to_act[:1], hands, n_melds)
    with pytest.raises(TypeError, match="hands"):
        greedy_actions(legal, to_act, hands.astype(float), n_melds)
    with pytest.raises(ValueError, match="out must be"):
        greedy_actions(legal, to_act, hands, n_melds, out=np.zeros((2, 4), dtype=np.int32))
    to_act[1, 3] = True
    legal[1, 3, PLAY_OFFSET] = True  # a legal discard of a tile the (empty) hand lacks
    with pytest.raises(ValueError, match="game 1 seat 3"):
        greedy_actions(legal, to_act, hands, n_melds)
