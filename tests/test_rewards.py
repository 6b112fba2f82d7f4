"""Reward functions over settlements and potential-based shaping (mcr_env.rewards)."""

import numpy as np
import pytest

from mcr_env import rewards as R

# Settlements of docs/rules.md §3 (x = winner's total points).
DISCARD_WIN = [-8, 24 + 10, -8, -(8 + 10)]  # seat 1 wins on seat 3's discard, x = 10
SELF_DRAWN = [-(8 + 9), -(8 + 9), 24 + 27, -(8 + 9)]  # seat 2 self-drawn, x = 9
PENALTY = [10, 10, -30, 10]  # seat 2 false Hu
DRAW = [0, 0, 0, 0]
S = np.array([DISCARD_WIN, SELF_DRAWN, PENALTY, DRAW], dtype=np.int32)
TERM = np.array([True, True, True, True])


def test_settlement_and_scaled():
    r = R.make_reward("settlement")(S, TERM)
    assert r.dtype == np.float32 and r.shape == (4, 4)
    np.testing.assert_array_equal(r, S.astype(np.float32))
    np.testing.assert_array_equal(r.sum(axis=1), 0)
    r = R.make_reward("scaled", scale=50)(S, TERM)
    np.testing.assert_allclose(r, S / 50.0)
    assert R.make_reward("scaled")(S, TERM)[0, 1] == pytest.approx(0.34)


def test_win_loss_exact():
    r = R.make_reward("win_loss")(S, TERM)
    third = np.float32(1.0 / 3.0)
    expected = np.array(
        [
            [0, 1, 0, -1],
            [-third, -third, 1, -third],
            [third, third, -1, third],
            [0, 0, 0, 0],
        ],
        dtype=np.float32,
    )
    np.testing.assert_allclose(r, expected, rtol=1e-6)
    np.testing.assert_allclose(r.sum(axis=1), 0, atol=1e-6)


@pytest.mark.parametrize(
    "totals, points",
    [
        ([100, 50, -30, -120], [4, 2, 1, 0]),
        ([-5, 50, 50, -95], [1, 3, 3, 0]),
        ([0, 0, 0, 0], [1.75, 1.75, 1.75, 1.75]),
        ([10, 10, 10, -30], [7 / 3, 7 / 3, 7 / 3, 0]),
        ([-1, 5, -1, -3], [1.5, 4, 1.5, 0]),
    ],
)
def test_table_points(totals, points):
    got = R.table_points(np.array([totals]))
    np.testing.assert_allclose(got[0], points, rtol=1e-6)
    assert got.sum() == pytest.approx(7.0)


def test_table_points_reward_pays_at_match_end():
    fn = R.make_reward("table_points", hands_per_match=2)
    no = np.zeros(4, dtype=bool)
    s1 = np.array([DISCARD_WIN, SELF_DRAWN], dtype=np.int32)
    zeros = np.zeros((2, 4), dtype=np.int32)
    # Game 0 ends two hands, game 1 ends one: only game 0 is paid at its second hand end.
    np.testing.assert_array_equal(fn(s1, np.array([True, True])), 0)
    np.testing.assert_array_equal(fn(zeros, no[:2]), 0)
    r = fn(np.array([DISCARD_WIN, DRAW], dtype=np.int32), np.array([True, False]))
    # Game 0 totals: 2 * DISCARD_WIN = [-16, 68, -16, -36] -> 1.5, 4, 1.5, 0
    np.testing.assert_allclose(r[0], [1.5, 4, 1.5, 0])
    np.testing.assert_array_equal(r[1], 0)
    np.testing.assert_array_equal(fn.match_totals[0], 0)
    np.testing.assert_array_equal(fn.match_totals[1], SELF_DRAWN)
    centered = R.TablePointsReward(hands_per_match=1, centered=True)
    r = centered(S, TERM)
    np.testing.assert_allclose(r.sum(axis=1), 0, atol=1e-6)


class FakeEngine:
    """Carries a potential the test sets by hand."""

    def __init__(self, phi):
        self.phi = np.asarray(phi, dtype=np.float32)
        self.batch_size = self.phi.shape[0]


def _phi(engine):
    return engine.phi


@pytest.mark.parametrize("terminal_zero", [True, False])
@pytest.mark.parametrize("gamma", [1.0, 0.9])
def test_shaping_telescopes(terminal_zero, gamma):
    rng = np.random.default_rng(0)
    b, steps = 3, 7
    phis = rng.normal(size=(steps + 1, b, 4)).astype(np.float32)
    fn = R.PotentialShaping(
        base="settlement", gamma=gamma, potential=_phi, terminal_zero=terminal_zero
    )
    eng = FakeEngine(phis[0])
    fn.reset(eng)
    total = np.zeros((b, 4))
    zero = np.zeros((b, 4), dtype=np.int32)
    for t in range(steps):
        eng.phi = phis[t + 1]
        term = np.full(b, t == steps - 1)
        r = fn(zero, term, eng)
        total += gamma**t * r
    end = 0.0 if terminal_zero else gamma**steps * phis[steps]
    np.testing.assert_allclose(total, end - phis[0], rtol=1e-5, atol=1e-5)


def test_shaping_emit_mask_and_base():
    fn = R.PotentialShaping(base="win_loss", gamma=0.5, potential=_phi, terminal_zero=False)
    eng = FakeEngine([[1, 2, 3, 4]])
    fn.reset(eng)
    eng.phi = np.array([[2, 2, 2, 2]], dtype=np.float32)
    emit = np.array([[True, False, False, False]])
    r = fn(np.zeros((1, 4), dtype=np.int32), np.array([False]), eng, emit)
    np.testing.assert_allclose(r, [[0.5 * 2 - 1, 0, 0, 0]])
    # Seat 1 was not emitted: its previous potential is still 2 (start), now 6.
    eng.phi = np.array([[6, 6, 6, 6]], dtype=np.float32)
    r = fn(np.array([DISCARD_WIN], dtype=np.int32), np.array([True]), eng)
    np.testing.assert_allclose(r, [[3 - 2 + 0, 3 - 2 + 1, 3 - 3, 3 - 4 - 1]])
    np.testing.assert_allclose(fn.last_shaping, [[1, 1, 0, -1]])


def test_errors():
    with pytest.raises(ValueError, match="unknown reward 'nope'.*settlement"):
        R.make_reward("nope")
    with pytest.raises(TypeError):
        R.make_reward(3)
    with pytest.raises(ValueError, match="keyword"):
        R.make_reward(R.SettlementReward(), scale=2)
    with pytest.raises(ValueError, match="scale"):
        R.ScaledReward(0)
    with pytest.raises(ValueError, match="gamma"):
        R.PotentialShaping(gamma=0.0, potential=_phi)
    with pytest.raises(ValueError, match=r"\(B, 4\)"):
        R.SettlementReward()(np.zeros((2, 3), dtype=np.int32), np.zeros(2, dtype=bool))
    with pytest.raises(TypeError, match="integer"):
        R.SettlementReward()(np.zeros((2, 4)), np.zeros(2, dtype=bool))
    with pytest.raises(ValueError, match="hands_per_match"):
        R.TablePointsReward(hands_per_match=0)
    fn = R.PotentialShaping(potential=_phi)
    with pytest.raises(RuntimeError, match="reset"):
        fn(np.zeros((1, 4), dtype=np.int32), np.zeros(1, dtype=bool), FakeEngine([[0] * 4]))
    with pytest.raises(ValueError, match="engine"):
        fn(np.zeros((1, 4), dtype=np.int32), np.zeros(1, dtype=bool))
