"""Uniform batched sampling of legal actions (mcr_env.engine.sampling)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mcr_env.engine import MCREngine, RulesConfig
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


def _same_state(x, y) -> bool:
    """Equal bit generator states (dicts holding ints and, for MT19937, an array)."""
    if isinstance(x, dict):
        return x.keys() == y.keys() and all(_same_state(x[k], y[k]) for k in x)
    return bool(np.array_equal(x, y))


BIT_GENERATORS = (np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937, np.random.Philox)
BIT_GENERATORS += (np.random.SFC64,)


@pytest.mark.parametrize("bitgen", BIT_GENERATORS)
def test_compiled_draws_are_numpys_integers_for_every_bit_generator(bitgen):
    """The compiled draws (straight from the bit generator) give the values and leave the
    generator in the state that ``rng.integers(0, counts)`` does, with rows of 1 to ~3000
    legal ids (a row with one legal id draws nothing)."""
    gen = np.random.default_rng(7)
    for trial in range(20):
        rows, width = int(gen.integers(1, 12)), int(gen.integers(1, 4000))
        mask = gen.random((rows, width)) < gen.random()
        mask[gen.integers(0, rows)] = False  # a row without any legal id
        got_rng = np.random.Generator(bitgen(trial))
        ref_rng = np.random.Generator(bitgen(trial))
        got = sample_legal_actions(mask, got_rng)
        legal_rows = np.flatnonzero(mask.any(axis=1))
        expect = np.zeros(rows, dtype=np.int64)
        if legal_rows.size:
            counts = mask[legal_rows].sum(axis=1)
            r = ref_rng.integers(0, counts)
            for i, row in enumerate(legal_rows):
                expect[row] = np.flatnonzero(mask[row])[counts[i] - 1 - r[i]]
        np.testing.assert_array_equal(got, expect)
        assert _same_state(got_rng.bit_generator.state, ref_rng.bit_generator.state)
        # the generator goes on as NumPy's own: the next draws agree
        assert got_rng.integers(0, 1 << 40, 3).tolist() == ref_rng.integers(0, 1 << 40, 3).tolist()


def test_bounded_draw_rejection_path_matches_numpy():
    """With n = 3 * 2**29 a quarter of the 32-bit outputs are rejected (threshold 2**30), so
    the rejection loop of the compiled draw runs often; values and generator states agree."""
    from mcr_env.engine.sampling import bounded_draw, generator_pointers

    n = 3 * (1 << 29)
    got_rng, ref_rng = np.random.default_rng(11), np.random.default_rng(11)
    fn, state = generator_pointers(got_rng)
    got = [int(bounded_draw(fn, state, n)) for _ in range(400)]
    assert got == [int(ref_rng.integers(0, n)) for _ in range(400)]
    assert got_rng.bit_generator.state == ref_rng.bit_generator.state
    assert [int(bounded_draw(fn, state, 1)) for _ in range(3)] == [0, 0, 0]
    assert got_rng.bit_generator.state == ref_rng.bit_generator.state  # n = 1 draws nothing


def _outputs(eng: MCREngine) -> list[np.ndarray]:
    st = eng.state
    fields = [getattr(st, f.name).copy() for f in dataclasses.fields(st)]
    outs = (eng.to_act, eng.legal_mask, eng.rewards, eng.player_rewards, eng.hand_over)
    return fields + [x.copy() for x in (*outs, eng.terminated, eng.table_points)]


@pytest.mark.parametrize(
    "config",
    [
        RulesConfig(),
        RulesConfig(wall_layout="botzone", claim_round="all"),
        RulesConfig(match="match"),
    ],
    ids=["official-options", "botzone-all", "match"],
)
@pytest.mark.parametrize("b", [1, 5])
def test_step_random_is_step_of_sampled_actions(config, b):
    """``step_random(rng)`` == ``step(sample_legal_actions(legal_mask, rng, to_act))``: the
    same state, outputs, hand results and generator state after every step (finished games
    reset in both), and the number of seats that acted is returned."""
    engines = [MCREngine(b, config), MCREngine(b, config)]
    rngs = [np.random.default_rng(21), np.random.default_rng(21)]
    for eng in engines:
        eng.reset(seed=4)
    ends = 0
    for _ in range(300):
        acting = int(engines[0].to_act.sum())
        engines[0].step(sample_legal_actions(engines[0].legal_mask, rngs[0], engines[0].to_act))
        assert engines[1].step_random(rngs[1]) == acting
        for x, y in zip(_outputs(engines[0]), _outputs(engines[1])):
            np.testing.assert_array_equal(x, y)
        assert rngs[0].bit_generator.state == rngs[1].bit_generator.state
        for r0, r1 in zip(engines[0].last_hand_result, engines[1].last_hand_result):
            assert (r0 is None) == (r1 is None)
            if r0 is not None:
                assert (r0.end_reason, r0.winner, r0.total) == (r1.end_reason, r1.winner, r1.total)
                np.testing.assert_array_equal(r0.settlement, r1.settlement)
        ends += int(engines[0].hand_over.sum())
        if engines[0].terminated.any():
            for eng in engines:
                eng.reset(games=eng.terminated.copy())
    assert ends >= b  # hands ended (and were reset) along the way


def test_step_random_errors_and_a_new_generator_is_taken():
    eng = MCREngine(2)
    with pytest.raises(RuntimeError, match="reset"):
        eng.step_random(np.random.default_rng(0))
    eng.reset(seed=1)
    with pytest.raises(TypeError, match="Generator"):
        eng.step_random(0)
    # switching generators: each call draws from the generator it is given
    ref = MCREngine(2)
    ref.reset(seed=1)
    for k in range(6):
        rng_a, rng_b = np.random.default_rng(k), np.random.default_rng(k)
        eng.step_random(rng_a)
        ref.step(sample_legal_actions(ref.legal_mask, rng_b, ref.to_act))
        np.testing.assert_array_equal(eng.legal_mask, ref.legal_mask)
        np.testing.assert_array_equal(eng.state.hand, ref.state.hand)
