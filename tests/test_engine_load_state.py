"""Engine additions for the Botzone package: reset(prevalent_wind=...), load_state, penalize."""

from __future__ import annotations

import numpy as np
import pytest

from mcr_env.engine import EndReason, MCREngine, RulesConfig
from mcr_env.engine.sampling import sample_legal_actions

RULES = RulesConfig(wall_layout="botzone", scoring_profile="botzone")


def test_prevalent_wind_of_single_hands():
    eng = MCREngine(4, RULES)
    eng.reset(seed=0, prevalent_wind=[0, 1, 2, 3])
    assert eng.state.prevalent_wind.tolist() == [0, 1, 2, 3]
    eng.reset(seed=0, prevalent_wind=2)
    assert eng.state.prevalent_wind.tolist() == [2, 2, 2, 2]
    eng.reset(seed=0)
    assert eng.state.prevalent_wind.tolist() == [0, 0, 0, 0]
    with pytest.raises(ValueError, match="must be 0..3"):
        eng.reset(seed=0, prevalent_wind=4)
    with pytest.raises(TypeError, match="ints 0..3"):
        eng.reset(seed=0, prevalent_wind=1.5)
    with pytest.raises(ValueError, match="match mode"):
        MCREngine(1, RulesConfig(match="match")).reset(seed=0, prevalent_wind=1)


@pytest.mark.parametrize("layout", ["botzone", "official"])
def test_load_state_rebuilds_the_same_masks(layout):
    """Every state of random games, loaded into a fresh engine, gives the same to_act and
    legal masks (full state: all seats)."""
    b = 16
    eng = MCREngine(b, RulesConfig(wall_layout=layout))
    other = MCREngine(b, RulesConfig(wall_layout=layout))
    eng.reset(seed=3)
    rng = np.random.default_rng(0)
    steps = 0
    while not eng.terminated.all():
        other.load_state(eng.state)
        np.testing.assert_array_equal(other.to_act, eng.to_act)
        np.testing.assert_array_equal(other.legal_mask, eng.legal_mask)
        np.testing.assert_array_equal(other.terminated, eng.terminated)
        eng.step(sample_legal_actions(eng.legal_mask, rng))
        steps += 1
    assert steps > 50


def test_load_state_then_step_continues_the_game():
    eng = MCREngine(2, RULES)
    eng.reset(seed=5)
    rng = np.random.default_rng(1)
    for _ in range(20):
        eng.step(sample_legal_actions(eng.legal_mask, rng))
    twin = MCREngine(2, RULES)
    twin.load_state(eng.state)
    for _ in range(30):
        a = sample_legal_actions(eng.legal_mask, rng)
        eng.step(a)
        twin.step(a)
        np.testing.assert_array_equal(twin.state.hand, eng.state.hand)
        np.testing.assert_array_equal(twin.legal_mask, eng.legal_mask)


def test_load_state_errors():
    eng = MCREngine(2, RULES)
    with pytest.raises(TypeError, match="GameState"):
        eng.load_state({})
    other = MCREngine(3, RULES)
    other.reset(seed=0)
    with pytest.raises(ValueError, match="batch size 3"):
        eng.load_state(other.state)


def test_penalize_ends_the_hand_with_the_judges_scores():
    eng = MCREngine(3, RULES)
    eng.reset(seed=0)
    eng.penalize([1], [2])
    assert eng.terminated.tolist() == [False, True, False]
    assert eng.rewards[1].tolist() == [10, 10, -30, 10]
    assert eng.last_hand_result[1].end_reason == EndReason.PENALTY
    assert eng.last_hand_result[1].offenders == (2,)
    assert not eng.to_act[1].any() and not eng.legal_mask[1].any()
    with pytest.raises(ValueError, match="already terminated"):
        eng.penalize([1], [0])
    with pytest.raises(ValueError, match="listed twice"):
        eng.penalize([0, 0], [0, 1])
    with pytest.raises(ValueError, match="out of range"):
        eng.penalize([0], [4])


def test_penalize_in_match_mode_deals_the_next_hand():
    eng = MCREngine(1, RulesConfig(match="match"))
    eng.reset(seed=0)
    eng.penalize([0], [1])
    assert not eng.terminated[0]
    assert int(eng.state.hand_number[0]) == 1
    assert eng.state.match_scores[0].sum() == 0
    assert eng.to_act[0].sum() == 1
