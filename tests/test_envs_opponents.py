"""The compiled random-opponent path of the single-learner envs
(:func:`mcr_env.envs.common.random_opponent_actions`) equals the general path: each
:class:`RandomPolicy` asked through :func:`call_policy` for its acting seats in ``np.nonzero``
order, with the same draws from the same generators."""

from __future__ import annotations

import numpy as np

from mcr_env.engine import MCREngine, RulesConfig
from mcr_env.engine.sampling import sample_legal_actions
from mcr_env.envs.common import RandomPolicy, call_policy, random_opponent_actions


def _general(eng, learner, active, policies):
    """The per-policy loop of ``_LearnerTables.opponent_actions`` (plain numpy)."""
    n = eng.batch_size
    acts = np.zeros((n, 4), dtype=np.int64)
    who = eng.to_act & active[:, None]
    who[np.arange(n), learner] = False
    rel = (np.arange(4)[None, :] - learner[:, None]) % 4
    for k, pol in enumerate(policies):
        g, s = np.nonzero(who & (rel == k + 1))
        if g.size:
            acts[g, s] = call_policy(pol, None, eng.legal_mask[g, s], eng.state, g, s)
    return acts


def test_random_opponents_equal_the_policy_loop():
    eng = MCREngine(48, RulesConfig(claim_round="all", wall_layout="botzone"))
    eng.reset(seed=4)
    rng = np.random.default_rng(5)
    fast = [RandomPolicy(np.random.default_rng(10 + k)) for k in range(3)]
    slow = [RandomPolicy(np.random.default_rng(10 + k)) for k in range(3)]
    out = np.full((48, 4), 99, dtype=np.int64)
    asked = 0
    for _ in range(200):
        learner = rng.integers(0, 4, 48)
        active = rng.random(48) < 0.8
        got = random_opponent_actions(eng.to_act, eng.legal_mask, learner, active, fast, out)
        want = _general(eng, learner, active, slow)
        np.testing.assert_array_equal(got, want)
        who = eng.to_act & active[:, None]
        who[np.arange(48), learner] = False
        assert eng.legal_mask[who.nonzero() + (got[who],)].all()  # legal
        assert (got[~who] == 0).all()
        asked += int(who.sum())
        eng.step(sample_legal_actions(eng.legal_mask, rng, eng.to_act))
        if eng.terminated.any():
            eng.reset(games=eng.terminated.copy())
    for f, s in zip(fast, slow):  # the generators advanced alike
        assert f.rng.random() == s.rng.random()
    assert asked > 5000
