"""Compact (uint8) observations: ``Encoder.encode(out=uint8)`` and ``MCRBatchEnv(obs_dtype=)``.

The uint8 planes must be the float32 planes exactly: every channel equal, except the
``tiles_left`` channels (the count where float32 holds count / 144), and
``u8.astype(float32) / encoder.divisor("uint8")[:, None]`` equal to float32 bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

from mcr_env.encoding import get_encoder
from mcr_env.engine import MCREngine, RulesConfig
from mcr_env.engine.sampling import sample_legal_actions
from mcr_env.envs.batch import MCRBatchEnv


def _states(layout: str, steps: int = 160):
    """Yield the engine (16 tables, uniform play, finished tables reset) after each step."""
    eng = MCREngine(16, RulesConfig(wall_layout=layout, claim_round="all"))
    eng.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(steps):
        yield eng
        eng.step(sample_legal_actions(eng.legal_mask, rng, eng.to_act))
        if eng.terminated.any():
            yield eng  # the finished hands (phase OVER, a won discard) before the reset
            eng.reset(games=eng.terminated.copy())


@pytest.mark.parametrize("encoder_id", ["planes-v0", "oracle-v0"])
@pytest.mark.parametrize("layout", ["official", "botzone"])
def test_uint8_planes_equal_float32(encoder_id, layout):
    enc = get_encoder(encoder_id)
    assert enc.dtypes == (np.dtype(np.float32), np.dtype(np.uint8))
    div = enc.divisor(np.uint8)
    left = enc.piece_slice("tiles_left")
    expected = np.ones(enc.num_channels, dtype=np.float32)
    expected[left] = 144.0
    np.testing.assert_array_equal(div, expected)
    others = np.ones(enc.num_channels, dtype=bool)
    others[left] = False
    g = np.repeat(np.arange(16), 4)
    s = np.tile(np.arange(4), 16)
    fractional = 0
    for eng in _states(layout):
        f32 = enc.encode(eng.state, g, s)
        u8 = enc.encode(eng.state, g, s, out=np.full((64, *enc.shape), 77, dtype=np.uint8))
        assert u8.dtype == np.uint8
        assert (u8[:, others] == f32[:, others]).all()
        rel = (s[:, None] + np.arange(4)) % 4  # relative seat r of each observer
        np.testing.assert_array_equal(u8[:, left, 0], eng.state.tiles_left[g[:, None], rel])
        back = u8.astype(np.float32) / div[:, None]
        assert back.tobytes() == f32.tobytes()
        fractional += int((f32[:, left] % 1 != 0).sum())
    assert fractional > 0


def test_uint8_rejected_where_values_do_not_fit():
    enc = get_encoder("planes-v1")  # match scores: negative, fractional
    assert enc.dtypes == (np.dtype(np.float32),)
    with pytest.raises(ValueError, match="planes-v1.*float32, not uint8"):
        MCRBatchEnv(2, encoder="planes-v1", obs_dtype="uint8")
    eng = MCREngine(1)
    eng.reset(seed=0)
    with pytest.raises(ValueError, match="out must be"):
        enc.encode(eng.state, [0], [0], out=np.zeros((1, *enc.shape), dtype=np.uint8))
    with pytest.raises(ValueError, match="not int16"):
        get_encoder("planes-v0").divisor(np.int16)
    with pytest.raises(TypeError, match="numpy dtype"):
        MCRBatchEnv(2, obs_dtype="no-such-dtype")


@pytest.mark.parametrize("observe", ["packed", "all", "acting"])
def test_batch_env_obs_dtype_uint8(observe):
    """Same seeds, same actions: the uint8 env's observations (and final observations) are the
    float32 env's after the divisor; everything else is identical."""
    kw = {"observe": observe, "claim_round": "options"}
    a = MCRBatchEnv(8, **kw)
    b = MCRBatchEnv(8, obs_dtype="uint8", **kw)
    assert a.obs_dtype == np.float32 and b.obs_dtype == np.uint8
    div = b.encoder.divisor("uint8")[:, None]
    oa, _ = a.reset(seed=5)
    ob, _ = b.reset(seed=5)
    rng = np.random.default_rng(5)
    finals = 0
    for _ in range(150):
        assert ob["observation"].dtype == np.uint8
        assert (ob["observation"].astype(np.float32) / div).tobytes() == oa["observation"].tobytes()
        np.testing.assert_array_equal(oa["action_mask"], ob["action_mask"])
        act = sample_legal_actions(oa["action_mask"].view(bool), rng, oa["to_act"])
        oa, ra, ta, _, ia = a.step(act)
        ob, rb, tb, _, ib = b.step(act)
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(ta, tb)
        if "final_obs" in ia:
            finals += 1
            assert ib["final_obs"].dtype == np.uint8
            back = ib["final_obs"].astype(np.float32) / div
            assert back.tobytes() == ia["final_obs"].tobytes()
    assert finals > 0
