"""The envs' fast paths keep their results: the compiled random opponents of the
single-learner envs (:func:`mcr_env.envs.common.random_opponent_actions`) equal the general
path (each :class:`RandomPolicy` asked through :func:`call_policy` for its acting seats in
``np.nonzero`` order, with the same draws from the same generators), and reused observation
buffers (:class:`mcr_env.envs.common.ObservationBuffers`) never overwrite an observation or an
action mask the caller still holds, the compiled acting pairs equal ``np.nonzero``, and the
mask copy that reads only acting rows (:func:`mcr_env.envs.common.copy_masks`) writes the
engine's whole mask, also when it copies ``to_act`` and lists the acting pairs in the same pass
(:func:`mcr_env.envs.common.copy_masks_pairs`)."""

from __future__ import annotations

import numpy as np

from mcr_env.engine import MCREngine, RulesConfig
from mcr_env.engine.sampling import sample_legal_actions
from mcr_env.envs.batch import MCRBatchEnv
from mcr_env.envs.common import (
    ObservationBuffers,
    RandomPolicy,
    acting_pairs,
    call_policy,
    copy_masks,
    copy_masks_pairs,
    random_opponent_actions,
)


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


def _ptr(x: np.ndarray) -> int:
    """Address of the first element (identifies the buffer without referencing it)."""
    return x.__array_interface__["data"][0]


def test_buffers_are_reused_only_when_nobody_holds_them():
    bufs = ObservationBuffers((2, 34), count=2)
    a = bufs.take(5)
    first = _ptr(a)
    del a
    b = bufs.take(4)  # the first buffer is free again: reused
    assert _ptr(b) == first and b.shape == (4, 2, 34)
    held = b[1:3]  # a view of a view keeps the buffer
    del b
    c = bufs.take(6)  # the second buffer (the first is held through `held`)
    second = _ptr(c)
    assert second != first
    d = bufs.take(3)  # both held (`held`, c): a fresh array
    assert _ptr(d) not in (first, second)
    m = memoryview(c)
    del c
    e = bufs.take(6)  # c's buffer is held by the memoryview, the first by `held`
    assert _ptr(e) not in (first, second)
    del m
    assert _ptr(bufs.take(6)) == second
    del held, d, e
    assert bufs.take(5).shape == (5, 2, 34)
    x = bufs.take(9)  # grown: a new array in the first free slot
    assert x.shape == (9, 2, 34)
    x[:] = 1.0
    y = bufs.take(9)  # x is held: y is another array
    assert _ptr(y) != _ptr(x) and (x == 1.0).all()


def test_batch_env_observations_held_stay_intact():
    """Observations the caller keeps (every step's packed and "all" arrays) are equal to
    fresh encodings of the states they were made from, step after step."""
    for observe in ("packed", "all"):
        env = MCRBatchEnv(8, observe=observe, claim_round="options")
        obs, _ = env.reset(seed=2)
        rng = np.random.default_rng(3)
        kept, states = [], []
        for t in range(40):
            if t % 3 == 0:  # keep a third of them; the others are dropped (buffers reused)
                kept.append((obs["observation"], obs.get("games"), obs.get("seats")))
                states.append(env.engine.state.copy())
            a = sample_legal_actions(obs["action_mask"].view(bool), rng, obs["to_act"])
            obs, *_ = env.step(a)
        for (o, g, s), st in zip(kept, states):
            want = env.encoder.encode(st, g, s) if observe == "packed" else env.encoder.encode(st)
            np.testing.assert_array_equal(o.reshape(want.shape), want)


def test_acting_pairs_equal_nonzero():
    rng = np.random.default_rng(7)
    for b, p in ((1, 0.0), (1, 1.0), (3, 0.5), (64, 0.1), (257, 0.6)):
        to_act = rng.random((b, 4)) < p
        games, seats = acting_pairs(to_act)
        want_g, want_s = np.nonzero(to_act)
        assert games.dtype == want_g.dtype == np.int64 and seats.dtype == np.int64
        np.testing.assert_array_equal(games, want_g)
        np.testing.assert_array_equal(seats, want_s)


def test_batch_env_masks_held_stay_intact():
    """Action masks the caller keeps (reused mask buffers) still equal the engine's legal
    masks of their step, while later steps hand out new masks."""
    env = MCRBatchEnv(6, observe="packed", claim_round="all")
    obs, _ = env.reset(seed=8)
    rng = np.random.default_rng(9)
    kept = []
    for t in range(60):
        assert obs["action_mask"].dtype == np.int8
        np.testing.assert_array_equal(obs["action_mask"].view(bool), env.engine.legal_mask)
        if t % 4 == 0:
            kept.append((obs["action_mask"], env.engine.legal_mask.copy()))
        a = sample_legal_actions(obs["action_mask"].view(bool), rng, obs["to_act"])
        obs, *_ = env.step(a)
    assert len({_ptr(m) for m, _ in kept}) == len(kept)  # held masks were never reused
    for mask, want in kept:
        np.testing.assert_array_equal(mask.view(bool), want)


def test_copy_masks_writes_the_whole_engine_mask():
    """Over whole games (both claim-round modes, match mode, finished tables): the engine's
    rows of seats not asked are all False, and ``copy_masks`` into a buffer full of garbage
    gives exactly the engine's mask as int8 0/1; ``copy_masks_pairs`` the same plus a fresh
    copy of ``to_act`` and ``np.nonzero(to_act)`` (also for a batch where nobody acts)."""
    for cfg in (
        RulesConfig(claim_round="options"),
        RulesConfig(claim_round="all", wall_layout="botzone", match="match"),
    ):
        eng = MCREngine(24, cfg)
        eng.reset(seed=11)
        rng = np.random.default_rng(12)
        out = np.empty((24, 4, 235), dtype=np.int8)
        for t in range(400):
            assert not eng.legal_mask[~eng.to_act].any()
            out.fill(7 if t % 2 else -1)
            assert copy_masks(eng.legal_mask, eng.to_act, out) is out
            np.testing.assert_array_equal(out, eng.legal_mask.astype(np.int8))
            out.fill(5 if t % 2 else -3)
            mask, to_act, games, seats = copy_masks_pairs(eng.legal_mask, eng.to_act, out)
            assert mask is out
            np.testing.assert_array_equal(out, eng.legal_mask.astype(np.int8))
            assert to_act.dtype == bool and not np.shares_memory(to_act, eng.to_act)
            np.testing.assert_array_equal(to_act, eng.to_act)
            want_g, want_s = np.nonzero(eng.to_act)
            assert games.dtype == seats.dtype == np.int64
            np.testing.assert_array_equal(games, want_g)
            np.testing.assert_array_equal(seats, want_s)
            if eng.terminated.all():
                eng.reset()
            eng.step(sample_legal_actions(eng.legal_mask, rng, eng.to_act))
    nobody = np.zeros((3, 4), dtype=bool)
    out = np.full((3, 4, 235), 9, dtype=np.int8)
    mask, to_act, games, seats = copy_masks_pairs(np.zeros((3, 4, 235), bool), nobody, out)
    assert not mask.any() and not to_act.any() and games.size == seats.size == 0
