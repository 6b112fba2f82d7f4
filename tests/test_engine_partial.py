"""Partial resets and partial steps (``games=...``) leave the other games' state alone."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from engine_helpers import random_actions

from mcr_env.engine import MCREngine, RulesConfig, seeded_walls
from mcr_env.engine.actions import HU


def _penalize_all(eng) -> None:
    """One step where every acting seat plays Hu where it is illegal (penalty in every game
    where some acting seat has no Hu), else a random legal action."""
    acts = np.where(eng.to_act, HU, 0)
    eng.step(acts)


def _snapshot(eng) -> dict:
    return {
        "rewards": eng.rewards.copy(),
        "player_rewards": eng.player_rewards.copy(),
        "hand_over": eng.hand_over.copy(),
        "terminated": eng.terminated.copy(),
        "table_points": eng.table_points.copy(),
        "legal_mask": eng.legal_mask.copy(),
        "to_act": eng.to_act.copy(),
        "results": list(eng.last_hand_result),
        **{f.name: getattr(eng.state, f.name).copy() for f in dataclasses.fields(eng.state)},
    }


def test_partial_reset_keeps_other_games_step_outputs():
    """Resetting game 0 must not zero the rewards (or anything else) of games 1..3."""
    eng = MCREngine(4, RulesConfig(illegal_action="penalize"))
    eng.reset(seed=3)
    _penalize_all(eng)  # the dealer cannot Hu on the first draw here: all four games end
    assert eng.terminated.all()
    assert (eng.rewards != 0).all(axis=1).all()
    before = _snapshot(eng)
    sel = np.array([True, False, False, False])
    eng.reset(games=sel)
    after = _snapshot(eng)
    for key, value in before.items():
        if key == "results":
            assert after[key][1:] == value[1:]
            assert after[key][0] is None
            continue
        np.testing.assert_array_equal(after[key][1:], value[1:], err_msg=key)
    assert (eng.rewards[0] == 0).all() and not eng.terminated[0]


def test_partial_reset_in_match_mode_keeps_player_rewards_and_scores():
    eng = MCREngine(3, RulesConfig(illegal_action="penalize", match="match"))
    eng.reset(seed=8)
    _penalize_all(eng)  # hand 1 ends by penalty everywhere; hand 2 is dealt
    assert eng.hand_over.all() and not eng.terminated.any()
    pr, ms = eng.player_rewards.copy(), eng.state.match_scores.copy()
    eng.reset(games=np.array([False, True, False]))
    np.testing.assert_array_equal(eng.player_rewards[[0, 2]], pr[[0, 2]])
    np.testing.assert_array_equal(eng.state.match_scores[[0, 2]], ms[[0, 2]])
    assert eng.hand_over[[0, 2]].all() and not eng.hand_over[1]
    assert (eng.player_rewards[1] == 0).all() and (eng.state.match_scores[1] == 0).all()


def test_partial_reset_with_seed_does_not_reseed_other_games():
    """``reset(seed=s, games=g)`` seeds only the games in ``g``: the later walls of the other
    games (their next episodes, their next hands in a match) still come from their own seed."""
    a = MCREngine(2, RulesConfig(illegal_action="penalize", match="match"))
    b = MCREngine(2, RulesConfig(illegal_action="penalize", match="match"))
    a.reset(seed=1)
    b.reset(seed=1)
    b.reset(seed=99, games=np.array([True, False]))
    np.testing.assert_array_equal(
        b.state.wall[0, :144], seeded_walls("official", 99, np.array([0]), [0], [0])[0]
    )
    _penalize_all(a)
    _penalize_all(b)  # hand 2 of game 1 is dealt from seed 1 in both engines
    np.testing.assert_array_equal(a.state.wall[1], b.state.wall[1])
    # next episode of game 1: seed 1, episode 1
    a.reset(games=np.array([False, True]))
    b.reset(games=np.array([False, True]))
    np.testing.assert_array_equal(a.state.wall[1], b.state.wall[1])
    expect = seeded_walls("official", 1, np.array([1]), [1], [0])[0]
    np.testing.assert_array_equal(b.state.wall[1, :144], expect)
    # game 0 keeps its own new seed for its next episode
    b.reset(games=np.array([True, False]))
    expect = seeded_walls("official", 99, np.array([0]), [1], [0])[0]
    np.testing.assert_array_equal(b.state.wall[0, :144], expect)


def test_partial_reset_drops_the_hu_cache_of_reset_games_only():
    eng = MCREngine(64)
    eng.reset(seed=5)
    rng = np.random.default_rng(0)
    # (most complete hands are decided by the compiled 8-point bound; _hu holds the hands the
    # exact scorer found legal, which take a few hundred steps to meet here)
    for _ in range(1500):
        if any(eng.legal_mask[g, s, HU] for g, s in eng._hu):
            break
        eng.step(random_actions(eng, rng))
        if eng.terminated.any():
            eng.reset(games=eng.terminated.copy())
    keys = [k for k in eng._hu if eng.legal_mask[k[0], k[1], HU]]
    assert keys, "no Hu option reached"
    g0 = keys[0][0]
    sel = np.zeros(64, dtype=bool)
    sel[g0] = True
    kept = {k: v for k, v in eng._hu.items() if k[0] != g0}
    eng.reset(games=sel)
    for k, v in kept.items():
        assert eng._hu[k] is v
    for gi, si in eng._hu:
        if gi == g0:
            assert eng.legal_mask[gi, si, HU]  # only entries of the new hand remain


def test_reset_with_seed_and_walls_deals_the_walls_and_seeds_the_later_hands():
    """``reset(seed=s, walls=w)``: ``w`` is dealt now and ``s`` is the root seed of the later
    seeded hands (match hands 2-16 after an ``(N, L)`` wall, the next ``reset()``), exactly as
    after ``reset(seed=s)``; the Gymnasium and PettingZoo envs rely on this for
    ``reset(seed=..., options={"walls": ...})``. A seed that is not an int is still refused."""
    games = np.arange(2)
    w = seeded_walls("official", 7, games, [3, 3], [0, 0])
    eng = MCREngine(2, RulesConfig(illegal_action="penalize", match="match"))
    ref = MCREngine(2, RulesConfig(illegal_action="penalize", match="match"))
    eng.reset(seed=5, walls=w)
    ref.reset(seed=5)
    np.testing.assert_array_equal(eng.state.wall[:, :144], w)
    _penalize_all(eng)
    _penalize_all(ref)
    hand2 = seeded_walls("official", 5, games, [0, 0], [1, 1])
    np.testing.assert_array_equal(eng.state.wall[:, :144], hand2)
    np.testing.assert_array_equal(ref.state.wall, eng.state.wall)
    eng.reset()
    np.testing.assert_array_equal(
        eng.state.wall[:, :144], seeded_walls("official", 5, games, [1, 1], [0, 0])
    )
    with pytest.raises(TypeError, match="seed must be an int or None, got str"):
        eng.reset(seed="5", walls=w)
