"""The compiled planes-v0 encoder equals the piece reference when calls alternate between a few
observers and many (all acting rows), as in the batch env's final observations followed by
the next observations (the encoder keeps no state between calls)."""

from __future__ import annotations

import numpy as np

from mcr_env.encoding import get_encoder
from mcr_env.encoding.planes import make_reference
from mcr_env.engine import MCREngine, RulesConfig
from mcr_env.engine.sampling import sample_legal_actions


def test_subset_and_full_calls_equal_the_reference():
    b = 64
    eng = MCREngine(b, RulesConfig(wall_layout="botzone"))
    eng.reset(seed=12)
    enc, ref = get_encoder("planes-v0"), make_reference("planes-v0")
    rng = np.random.default_rng(13)
    small = full = 0
    for step in range(150):
        k = int(rng.integers(1, 12))  # 4 k < B: the few-observers path
        g = rng.integers(0, b, k)
        s = rng.integers(0, 4, k)
        np.testing.assert_array_equal(enc.encode(eng.state, g, s), ref.encode(eng.state, g, s))
        small += 1
        if step % 3 == 0:
            gg, ss = np.nonzero(eng.to_act)
            np.testing.assert_array_equal(
                enc.encode(eng.state, gg, ss), ref.encode(eng.state, gg, ss)
            )
            full += 1
        eng.step(sample_legal_actions(eng.legal_mask, rng, eng.to_act))
        if eng.terminated.any():
            eng.reset(games=eng.terminated.copy())
    np.testing.assert_array_equal(enc.encode(eng.state), ref.encode(eng.state))
    assert small == 150 and full == 50
