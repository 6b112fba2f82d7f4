"""Uniform batched sampling of legal actions (mcr_env.engine.sampling)."""

from __future__ import annotations

import numpy as np
import pytest

from mcr_env.engine import MCREngine
from mcr_env.engine.actions import NUM_ACTIONS
from mcr_env.engine.sampling import sample_legal_actions


def test_uniform_over_legal_ids():
    mask = np.zeros((3, 5), dtype=bool)
    mask[0, [1, 3]] = True
    mask[1, :] = True
    mask[2, 4] = True
    rng = np.random.default_rng(1)
    n = 20000
    counts = np.zeros((3, 5))
    for _ in range(n):
        a = sample_legal_actions(mask, rng)
        counts[np.arange(3), a] += 1
    freq = counts / n
    expect = mask / mask.sum(axis=1, keepdims=True)
    # 5 standard deviations of a frequency of 1/5 over 20000 draws: 0.0142
    assert np.abs(freq - expect).max() < 0.015
    assert (counts[~mask] == 0).all()


def test_rows_without_legal_action_and_not_acting_get_zero():
    mask = np.zeros((2, 4, NUM_ACTIONS), dtype=bool)
    mask[0, 2, [10, 20]] = True
    mask[1, 1, 7] = True
    acting = np.zeros((2, 4), dtype=bool)
    acting[0, 2] = True
    rng = np.random.default_rng(0)
    a = sample_legal_actions(mask, rng)
    assert a.shape == (2, 4) and a.dtype == np.int64
    assert a[0, 2] in (10, 20) and a[1, 1] == 7
    assert (a[[0, 0, 0, 1, 1, 1], [0, 1, 3, 0, 2, 3]] == 0).all()
    b = sample_legal_actions(mask, rng, acting)
    assert b[0, 2] in (10, 20) and b[1, 1] == 0
    assert sample_legal_actions(np.zeros((0, 9), bool), rng).shape == (0,)


def test_same_draws_with_and_without_acting_hint():
    eng = MCREngine(16)
    eng.reset(seed=3)
    for _ in range(30):
        a = sample_legal_actions(eng.legal_mask, np.random.default_rng(5))
        b = sample_legal_actions(eng.legal_mask, np.random.default_rng(5), eng.to_act)
        np.testing.assert_array_equal(a, b)
        assert eng.legal_mask[eng.to_act, a[eng.to_act]].all()
        eng.step(a)
        if eng.terminated.any():
            eng.reset(games=eng.terminated.copy())


def test_bad_input():
    rng = np.random.default_rng(0)
    with pytest.raises(TypeError, match="bool"):
        sample_legal_actions(np.ones((2, 3), dtype=np.int8), rng)
    with pytest.raises(TypeError, match="Generator"):
        sample_legal_actions(np.ones((2, 3), dtype=bool), 0)
    with pytest.raises(ValueError, match="shape"):
        sample_legal_actions(np.ones((2, 0), dtype=bool), rng)
    with pytest.raises(ValueError, match="acting"):
        sample_legal_actions(np.ones((2, 3), dtype=bool), rng, np.ones(3, dtype=bool))
    with pytest.raises(ValueError, match="no legal action"):
        sample_legal_actions(np.zeros((2, 3), dtype=bool), rng, np.ones(2, dtype=bool))


@pytest.mark.parametrize("rows", [1, 2, 4, 5, 9])
def test_draws_are_one_bounded_integer_per_row_in_row_order(rows):
    """The documented stream: row i with c_i legal ids takes its (c_i - 1 - r_i)-th id, where
    r = rng.integers(0, c) over the rows with a legal id in order (one array draw; the sampler
    draws a few rows one scalar at a time, which NumPy makes the same stream)."""
    gen = np.random.default_rng(rows)
    for trial in range(50):
        mask = gen.random((rows, 40)) < gen.random()
        seed = 1000 * rows + trial
        got = sample_legal_actions(mask, np.random.default_rng(seed))
        ref_rng = np.random.default_rng(seed)
        legal_rows = [r for r in range(rows) if mask[r].any()]
        expect = np.zeros(rows, dtype=np.int64)
        if legal_rows:
            counts = mask[legal_rows].sum(axis=1)
            r = ref_rng.integers(0, counts)
            for i, row in enumerate(legal_rows):
                expect[row] = np.flatnonzero(mask[row])[counts[i] - 1 - r[i]]
        np.testing.assert_array_equal(got, expect)
