"""ShardedBatchEnv: identical results to the in-process MCRBatchEnv for every k and B, records,
errors, and a killed worker (docs/design.md "Scale")."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from mcr_env.engine.config import RulesConfig
from mcr_env.engine.records import GameRecorder, replay
from mcr_env.envs.batch import MCRBatchEnv
from mcr_env.envs.sharded import (
    BACKENDS,
    ShardedBatchEnv,
    WorkerError,
    default_num_workers,
    keyed_random_actions,
    make_batch_env,
    shard_bounds,
)

STEPS = 130  # more than one hand (about 100 steps) so autoreset and second deals are covered


def per_game_actions(obs: dict, step: int) -> np.ndarray:
    """A policy of each (table, seat) alone: the ``(7 b + 3 s + step) % n``-th legal action, so
    a table's play does not depend on B or on the other tables."""
    mask = obs["action_mask"]
    b = mask.shape[0]
    n = mask.sum(axis=2)
    pick = (7 * np.arange(b)[:, None] + 3 * np.arange(4)[None, :] + step) % np.maximum(n, 1)
    order = np.cumsum(mask, axis=2) - 1  # rank of each legal action
    hit = mask & (order == pick[:, :, None])
    return np.where(n > 0, hit.argmax(axis=2), 0).astype(np.int64)


def trajectory(env, steps: int = STEPS, seed: int = 11) -> list[dict]:
    """Everything the env returns, step by step, as (B, ...) arrays keyed by name."""
    obs, info = env.reset(seed=seed)
    out = [{"obs": obs, "info": info}]
    for t in range(steps):
        obs, rew, term, trunc, info = env.step(per_game_actions(obs, t))
        out.append(
            {"obs": obs, "rewards": rew, "terminated": term, "truncated": trunc, "info": info}
        )
    return out


def random_trajectory(env, steps: int = STEPS, seed: int = 11, key: int = 5) -> list[dict]:
    """As :func:`trajectory` with the random play of ``ShardedBatchEnv.step_random(key)``;
    an in-process ``MCRBatchEnv`` plays ``keyed_random_actions`` of its own masks instead."""
    obs, info = env.reset(seed=seed)
    out = [{"obs": obs, "info": info}]
    for t in range(steps):
        if isinstance(env, MCRBatchEnv):
            acts = keyed_random_actions(obs["action_mask"], obs["to_act"], key, t)
            obs, rew, term, trunc, info = env.step(acts)
        else:
            obs, rew, term, trunc, info = env.step_random(key)
        out.append(
            {"obs": obs, "rewards": rew, "terminated": term, "truncated": trunc, "info": info}
        )
    return out


def assert_same(a: list[dict], b: list[dict]) -> None:
    assert len(a) == len(b)
    for t, (x, y) in enumerate(zip(a, b)):
        assert x.keys() == y.keys()
        for part in x:
            if isinstance(x[part], dict):
                assert x[part].keys() == y[part].keys(), (t, part)
                for k in x[part]:
                    np.testing.assert_array_equal(x[part][k], y[part][k], err_msg=f"{t} {k}")
            else:
                np.testing.assert_array_equal(x[part], y[part], err_msg=f"{t} {part}")


def table_rows(traj: list[dict], n: int) -> list[dict]:
    """The trajectory of tables 0..n-1 only (packed observations re-indexed by (game, seat))."""
    out = []
    for step in traj:
        obs = step["obs"]
        keep = obs["games"] < n
        row = {
            "mask": obs["action_mask"][:n],
            "to_act": obs["to_act"][:n],
            "obs": obs["observation"][keep],
            "games": obs["games"][keep],
            "seats": obs["seats"][keep],
        }
        if "rewards" in step:
            row["rewards"] = step["rewards"][:n]
            row["terminated"] = step["terminated"][:n]
            row["settlement"] = step["info"]["settlement"][:n]
        out.append(row)
    return out


def test_shard_bounds_cover_the_batch():
    assert shard_bounds(7, 3) == [(0, 3), (3, 5), (5, 7)]
    assert shard_bounds(64, 2) == [(0, 32), (32, 64)]
    assert shard_bounds(1, 1) == [(0, 1)]
    assert default_num_workers() >= 1


@pytest.mark.parametrize("b", [1, 7, 64])
def test_identical_for_every_k_and_b(b):
    """k = 1, 2, 3 workers, processes or threads, give exactly the in-process env's trajectory
    (packed observations, same-step autoreset), and table t's trajectory is the same for
    every B."""
    # the skipping claim rounds keep hands at about 100 steps, so STEPS covers re-deals (with
    # the default claim_round="all" a hand takes about 170; tests/test_two_worlds.py plays
    # that default through the sharded env)
    ref = trajectory(MCRBatchEnv(b, observe="packed", claim_round="options"))
    assert sum(int(s["terminated"].sum()) for s in ref[1:]) >= b  # hands ended and re-dealt
    # step_random: the shards draw the actions themselves, keyed by (seed, table, step)
    ref_random = random_trajectory(MCRBatchEnv(b, observe="packed", claim_round="options"))
    assert sum(int(s["terminated"].sum()) for s in ref_random[1:]) >= b
    for backend in BACKENDS:
        for k in (1, 2, 3):
            with ShardedBatchEnv(
                b, observe="packed", num_workers=k, claim_round="options", backend=backend
            ) as env:
                assert env.num_workers == min(k, b) and env.backend == backend
                assert_same(trajectory(env), ref)
                assert_same(random_trajectory(env), ref_random)
                if backend == "thread":  # the caller serves shard 0: k - 1 helpers
                    assert len(env.worker_threads) == env.num_workers - 1
                    assert env.worker_pids == []
            assert not _shard_threads()
    # B-independence: the first table of every batch size plays the same game
    small = table_rows(trajectory(MCRBatchEnv(1, observe="packed", claim_round="options")), 1)
    assert_same(table_rows(ref, 1), small)
    one = MCRBatchEnv(1, observe="packed", claim_round="options")
    assert_same(table_rows(ref_random, 1), table_rows(random_trajectory(one), 1))


@pytest.mark.parametrize(
    "observe, autoreset, backend, k, dtype",
    [
        ("all", "next_step", "process", 2, "float32"),
        ("acting", "same_step", "process", 2, "uint8"),
        ("none", "disabled", "process", 2, "float32"),
        ("packed", "same_step", "process", 3, "uint8"),
        ("all", "same_step", "thread", 2, "uint8"),
        ("acting", "next_step", "thread", 2, "float32"),
        ("packed", "same_step", "thread", 1, "float32"),  # final_obs of one shard: a view
    ],
)
def test_identical_other_modes_with_views(observe, autoreset, backend, k, dtype):
    """Other observation/autoreset modes and observation dtypes (``obs_dtype="uint8"``: the
    same compact observations as ``MCRBatchEnv``'s), with ``copy_obs=False`` (read-only views
    into the shared buffers, compared step by step in lockstep since the next step overwrites
    them)."""
    kw = {"observe": observe, "autoreset_mode": autoreset, "obs_dtype": dtype}
    ref = MCRBatchEnv(5, **kw)
    with ShardedBatchEnv(5, num_workers=k, copy_obs=False, backend=backend, **kw) as env:
        a, b = ref.reset(seed=4), env.reset(seed=4)
        assert_same([{"obs": a[0]}], [{"obs": b[0]}])
        finals = 0
        for t in range(2 * STEPS):  # every seat asked: ~170 steps a hand
            act = per_game_actions(a[0], t)
            a, b = ref.step(act), env.step(act)
            assert_same([dict(zip("otrui", a))], [dict(zip("otrui", b))])
            # every array returned is a read-only view (the finished tables of all shards
            # too: the shards place them contiguously, shards 2.. moved down in place)
            arrays = [*b[0].values(), *b[1:4], *(x for x in b[4].values())]
            assert not any(x.flags.writeable or x.flags.owndata for x in arrays), t
            if "final_obs" in b[4]:
                finals += len(b[4]["final_obs"])
        assert (finals > 0) == (autoreset == "same_step" and observe != "none")
        if observe != "none":
            assert b[0]["observation"].dtype == np.dtype(dtype) == env.obs_dtype
        if observe != "none":
            with pytest.raises(ValueError, match="read-only"):
                b[0]["observation"][...] = 1.0
        np.testing.assert_array_equal(env.observe(), ref.observe())
        g, s = np.array([4, 0, 2]), np.array([3, 1, 0])
        np.testing.assert_array_equal(env.observe(g, s), ref.observe(g, s))


@pytest.mark.parametrize("backend", BACKENDS)
def test_match_mode_and_records_identical(backend):
    """16-hand matches (later hands seeded per table) and game records: the sharded records
    equal the in-process ones (global table index in origin.game) and replay."""
    cfg = RulesConfig(match="match")
    ref_env = MCRBatchEnv(3, config=cfg, observe="packed")
    ref_env.engine = GameRecorder(ref_env.engine)
    ref = trajectory(ref_env, steps=300)
    with ShardedBatchEnv(
        3, config=cfg, observe="packed", num_workers=2, record=True, backend=backend
    ) as env:
        got = trajectory(env, steps=300)
        assert_same(got, ref)
        recs = env.pop_records()
        state = env.get_state()
        results = env.hand_results()
        text = env.render(2, seat=1)
    ref_env.engine.pop_finished()  # matches are not over after 300 steps: compare open state
    np.testing.assert_array_equal(state.match_scores, ref_env.engine.state.match_scores)
    np.testing.assert_array_equal(state.hand_number, ref_env.engine.state.hand_number)
    assert [r is None for r in results] == [r is None for r in ref_env.engine.last_hand_result]
    assert text == ref_env.render(2, seat=1)
    assert recs == []  # no match finished yet


@pytest.mark.parametrize("backend", BACKENDS)
def test_single_hand_records_identical_and_replay(backend):
    ref_env = MCRBatchEnv(7, observe="none")
    ref_env.engine = GameRecorder(ref_env.engine)
    trajectory(ref_env, steps=2 * STEPS)  # every seat asked: ~170 steps a hand
    want = sorted(
        ref_env.engine.pop_finished(), key=lambda r: (r["origin"]["game"], r["origin"]["episode"])
    )
    with ShardedBatchEnv(7, observe="none", num_workers=3, record=True, backend=backend) as env:
        trajectory(env, steps=2 * STEPS)
        got = sorted(env.pop_records(), key=lambda r: (r["origin"]["game"], r["origin"]["episode"]))
    assert len(want) >= 7
    assert got == want
    # a record of a table of the last shard re-derives its seeded wall from the global index
    last = next(r for r in got if r["origin"]["game"] == 6)
    replay(last)


@pytest.mark.parametrize("backend", BACKENDS)
def test_explicit_walls_and_errors(backend):
    from mcr_env.engine.walls import seeded_walls

    walls = seeded_walls("official", 5, np.arange(4), np.zeros(4), np.zeros(4))
    ref = MCRBatchEnv(4, observe="packed")
    o_ref, _ = ref.reset(walls=walls[::-1])
    with ShardedBatchEnv(4, observe="packed", num_workers=2, backend=backend) as env:
        with pytest.raises(RuntimeError, match="reset"):
            env.step(np.zeros((4, 4), dtype=np.int64))
        o, _ = env.reset(walls=walls[::-1])
        for k in o_ref:
            np.testing.assert_array_equal(o[k], o_ref[k])
        with pytest.raises(ValueError, match="rows"):
            env.reset(walls=walls[:3])
        with pytest.raises(TypeError, match="seed"):
            env.reset(seed="1")
        with pytest.raises(ValueError, match="shape"):
            env.step(np.zeros((3, 4), dtype=np.int64))
        with pytest.raises(TypeError, match="integer"):
            env.step(np.zeros((4, 4)))
        # an illegal action: the engine's message with the global table index; nothing changes
        bad = per_game_actions(o, 0)
        g = int(o["games"][-1])
        s = int(o["seats"][-1])
        legal = np.nonzero(o["action_mask"][g, s])[0]
        bad[g, s] = next(a for a in range(235) if a not in legal)
        with pytest.raises(ValueError) as got:
            env.step(bad)
        with pytest.raises(ValueError) as want:
            ref.step(bad)
        assert str(got.value) == str(want.value)
        assert f"game {g}," in str(got.value)
        a = per_game_actions(o, 0)
        o2, r2, *_ = env.step(a)
        o2_ref, r2_ref, *_ = ref.step(a)
        np.testing.assert_array_equal(o2["observation"], o2_ref["observation"])
    assert env.closed
    with pytest.raises(RuntimeError, match="closed"):
        env.reset(seed=1)
    with pytest.raises(ValueError, match="num_workers"):
        ShardedBatchEnv(4, num_workers=0)
    with pytest.raises(ValueError, match="observe"):
        ShardedBatchEnv(4, observe="bad")
    with pytest.raises(ValueError, match="backend 'threads' not valid; valid: process, thread"):
        ShardedBatchEnv(4, backend="threads")
    assert isinstance(make_batch_env(2, num_workers=0, copy_obs=False), MCRBatchEnv)
    assert isinstance(make_batch_env(2, num_workers=0, backend="thread"), MCRBatchEnv)


def assert_engine_errors(env, ref, o: dict, g: int, s: int, actions) -> None:
    """Each of ``actions`` at (table ``g``, seat ``s``) raises in ``env`` the ValueError the
    in-process ``ref`` (at the same state) raises: the engine's text."""
    for a in actions:
        bad = per_game_actions(o, 0)
        bad[g, s] = a
        with pytest.raises(ValueError) as got:
            env.step(bad)
        with pytest.raises(ValueError) as want:
            ref.step(bad)
        assert str(got.value) == str(want.value) and f"illegal action {a} " in str(got.value)


def test_out_of_range_actions_raise_the_engines_message():
    """Action ids outside 0..234 of an acting seat (the parent's compiled check) give the
    engine's ValueError text, and a non-acting seat's entry is ignored as in the engine."""
    ref = MCRBatchEnv(3, observe="packed")
    o_ref, _ = ref.reset(seed=8)
    with ShardedBatchEnv(3, observe="packed", num_workers=2, backend="thread") as env:
        o, _ = env.reset(seed=8)
        g, s = int(o["games"][-1]), int(o["seats"][-1])
        assert_engine_errors(env, ref, o, g, s, (-1, 235, 10**6))
        idle = np.nonzero(~o["to_act"])
        ok = per_game_actions(o, 0)
        ok[idle] = -5  # ignored: those seats do not act
        o2, *_ = env.step(ok)
        o2_ref, *_ = ref.step(ok)
        np.testing.assert_array_equal(o2["observation"], o2_ref["observation"])


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_shard_illegal_action_is_the_engines_error(backend):
    """k = 1 checks no action in the caller: the one shard's engine refuses an illegal one
    with its own message (the same as the in-process env's), changes nothing and the env
    goes on (same games; the keyed draws' step counter did not move)."""
    ref = MCRBatchEnv(3, observe="packed")
    o_ref, _ = ref.reset(seed=4)
    with ShardedBatchEnv(3, observe="packed", num_workers=1, backend=backend) as env:
        o, _ = env.reset(seed=4)
        g, s = int(o["games"][0]), int(o["seats"][0])
        legal = np.nonzero(o["action_mask"][g, s])[0]
        assert_engine_errors(env, ref, o, g, s, (next(a for a in range(235) if a not in legal), -1))
        assert not env.closed
        for t in range(30):
            o, *_ = env.step(per_game_actions(o, t))
            o_ref, *_ = ref.step(per_game_actions(o_ref, t))
            np.testing.assert_array_equal(o["observation"], o_ref["observation"])
        o = env.step_random(3)[0]  # step 30: the refused steps did not count
        acts = keyed_random_actions(o_ref["action_mask"], o_ref["to_act"], 3, 30)
        np.testing.assert_array_equal(o["observation"], ref.step(acts)[0]["observation"])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead too: look at its state
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_killed_worker_raises_and_cleans_up():
    """Shard 1's worker (the parent serves shard 0, so pids are of shards 1 and 2) is killed;
    shard 2's worker, waiting in the step for shard 1's packed rows, is stopped too."""
    env = ShardedBatchEnv(8, observe="packed", num_workers=3)
    obs, _ = env.reset(seed=2)
    pids = env.worker_pids
    shm_path = f"/dev/shm/{env._shm.name}"
    assert len(pids) == 2 and os.path.exists(shm_path) and all(_alive(p) for p in pids)
    os.kill(pids[0], signal.SIGKILL)
    time.sleep(0.2)
    with pytest.raises(WorkerError, match=r"worker 1 .*tables 3\.\.5.*SIGKILL"):
        env.step(per_game_actions(obs, 0))
    assert env.closed
    assert not any(_alive(p) for p in pids)
    assert not os.path.exists(shm_path)
    assert not [p for p in mp.active_children() if p.name.startswith("mcr-shard")]
    with pytest.raises(RuntimeError, match="closed"):
        env.step(per_game_actions(obs, 0))


def _shard_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("mcr-shard")]


def _fail_with(exc: BaseException):
    def step(*args, **kwargs):
        raise exc

    return step


@pytest.mark.parametrize(
    "exc, match",
    [
        (
            SystemExit("gone"),
            r"worker 1 \(thread mcr-shard-1, tables 3\.\.5\) died during step"
            r" \(SystemExit: gone\)",
        ),
        (RuntimeError("engine bug"), r"step failed in shard 1 \(tables 3\.\.5.*engine bug"),
    ],
)
def test_thread_worker_that_ends_or_fails_raises_and_cleans_up(exc, match):
    """Thread backend: a helper thread that ends (here: SystemExit inside its shard's step) or
    whose shard raises gives WorkerError in the caller; every helper thread is stopped."""
    env = ShardedBatchEnv(8, observe="packed", num_workers=3, backend="thread")
    obs, _ = env.reset(seed=2)
    threads = env.worker_threads
    assert len(threads) == 2 and all(t.is_alive() for t in threads)
    env._shard_envs[1].engine.step = _fail_with(exc)
    with pytest.raises(WorkerError, match=match):
        env.step(per_game_actions(obs, 0))
    assert env.closed
    assert not any(t.is_alive() for t in threads) and not _shard_threads()
    with pytest.raises(RuntimeError, match="closed"):
        env.step(per_game_actions(obs, 0))


def test_interrupted_step_closes_the_env():
    """Ctrl-C while the caller serves shard 0 leaves the shards out of step: the env closes
    (helper threads stopped) and the KeyboardInterrupt propagates."""
    env = ShardedBatchEnv(4, observe="packed", num_workers=2, backend="thread")
    obs, _ = env.reset(seed=1)
    env._shard_envs[0].engine.step = _fail_with(KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        env.step(per_game_actions(obs, 0))
    assert env.closed and not _shard_threads()


def test_thread_backend_ends_its_threads_when_dropped():
    import gc

    env = ShardedBatchEnv(3, observe="packed", num_workers=3, backend="thread")
    env.reset(seed=0)
    threads = env.worker_threads
    cpu = env.worker_cpu_seconds()
    assert len(cpu) == 3 and all(c >= 0.0 for c in cpu)
    del env
    gc.collect()
    assert not any(t.is_alive() for t in threads)


def test_engine_first_game_deals_the_games_of_the_whole_batch():
    from mcr_env.engine import MCREngine

    whole, part = MCREngine(7), MCREngine(3, first_game=4)
    whole.reset(seed=9)
    part.reset(seed=9)
    np.testing.assert_array_equal(part.state.wall, whole.state.wall[4:])
    np.testing.assert_array_equal(part.legal_mask, whole.legal_mask[4:])
    with pytest.raises(ValueError, match="first_game"):
        MCREngine(3, first_game=-1)
    with pytest.raises(TypeError, match="first_game"):
        MCREngine(3, first_game=1.0)


def test_packed_observations_of_an_encoder_from_outside_the_package():
    """Reproducer: the make-run default's encoder ``planes-v0+rule-v0`` (registered by
    baselines.features) had no ``out=`` argument, so a sharded env with packed observations
    failed in every worker; given as an object it reaches the spawned workers (unpickled by its
    module) and the observations equal the in-process env's."""
    from baselines.features import RuleFeatureEncoder

    enc = RuleFeatureEncoder()
    ref = trajectory(MCRBatchEnv(3, observe="packed", encoder=enc), steps=40)
    assert ref[0]["obs"]["observation"].shape[1:] == (84, 34)
    assert np.abs(ref[-1]["obs"]["observation"][:, 75:]).sum() > 0  # the rule channels are set
    for backend in BACKENDS:  # threads: each shard a deep copy of the encoder object
        with ShardedBatchEnv(
            3, observe="packed", encoder=enc, num_workers=2, backend=backend
        ) as env:
            assert_same(trajectory(env, steps=40), ref)
    one = MCRBatchEnv(1)
    one.reset(seed=0)
    with pytest.raises(ValueError, match=r"out must be \(1, 84, 34\) float32"):
        enc.encode(one.engine.state, [0], [0], out=np.zeros((1, 75, 34), dtype=np.float32))


def test_keyed_random_actions_are_uniform_legal_and_keyed_by_the_table():
    """The draws of ``step_random``: legal, uniform over each seat's legal actions, the same
    for a table whatever batch it is in (``first_game``), different for another seed or step;
    bad input raises."""
    rng = np.random.default_rng(0)
    b = 3000
    mask = np.zeros((b, 4, 235), dtype=np.int8)
    mask[:, :, [0, 7, 40]] = 1  # three legal ids everywhere
    mask[:, 1, :] = 0
    mask[:, 1, 100] = 1  # one legal id: no draw
    to_act = rng.random((b, 4)) < 0.7
    acts = keyed_random_actions(mask, to_act, 9, 12)
    assert acts.dtype == np.int64 and acts.shape == (b, 4)
    assert (acts[~to_act] == 0).all()
    assert (acts[:, 1][to_act[:, 1]] == 100).all()
    picked = acts[:, [0, 2, 3]][to_act[:, [0, 2, 3]]]
    counts = np.array([(picked == a).sum() for a in (0, 7, 40)])
    assert counts.sum() == len(picked)
    # chi-square with 2 degrees of freedom: 13.8 is its 0.999 quantile
    expected = len(picked) / 3
    assert ((counts - expected) ** 2 / expected).sum() < 13.8
    # a sub-batch at its global offset draws the same actions
    part = keyed_random_actions(mask[1000:1100], to_act[1000:1100], 9, 12, first_game=1000)
    np.testing.assert_array_equal(part, acts[1000:1100])
    assert not np.array_equal(keyed_random_actions(mask, to_act, 10, 12), acts)
    assert not np.array_equal(keyed_random_actions(mask, to_act, 9, 13), acts)
    # bool masks (the engine's) give the same draws; the seed is taken modulo 2**64
    np.testing.assert_array_equal(keyed_random_actions(mask.view(bool), to_act, 9, 12), acts)
    wrapped = keyed_random_actions(mask, to_act, 9 + (1 << 64), 12)
    np.testing.assert_array_equal(wrapped, acts)
    empty = mask.copy()
    empty[5, 2] = 0
    act5 = to_act.copy()
    act5[5, 2] = True
    with pytest.raises(ValueError, match="table 5, seat 2 is acting without a legal action"):
        keyed_random_actions(empty, act5, 9, 12)
    with pytest.raises(ValueError, match=r"\(B, 4, A\)"):
        keyed_random_actions(mask[:, :2], to_act[:, :2], 9, 12)
    with pytest.raises(TypeError, match="to_act"):
        keyed_random_actions(mask, to_act.astype(np.int8), 9, 12)
    with pytest.raises(TypeError, match="step"):
        keyed_random_actions(mask, to_act, 9, 1.0)
    with pytest.raises(ValueError, match="step"):
        keyed_random_actions(mask, to_act, 9, -1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_step_random_errors_and_obs_dtype_checks(backend):
    with ShardedBatchEnv(3, observe="packed", num_workers=2, backend=backend) as env:
        with pytest.raises(RuntimeError, match="reset"):
            env.step_random(0)
        env.reset(seed=0)
        with pytest.raises(TypeError, match="seed"):
            env.step_random(1.5)
        obs, rew, term, trunc, info = env.step_random(3)
        assert obs["to_act"].any() and rew.shape == (3, 4) and not trunc.any()
    with pytest.raises(RuntimeError, match="closed"):
        env.step_random(0)
    with pytest.raises(ValueError, match="writes dtypes"):
        ShardedBatchEnv(2, num_workers=1, obs_dtype="int16", backend=backend)


PARENT_SCRIPT = """
import sys, time
from mcr_env.envs.sharded import ShardedBatchEnv
if __name__ == "__main__":
    env = ShardedBatchEnv(4, observe="packed", num_workers=3)
    env.reset(seed=0)
    env.step_random(1)
    print(*env.worker_pids, flush=True)
    time.sleep(60)
"""


def test_workers_end_when_the_parent_is_killed(tmp_path):
    """A parent killed with SIGKILL (no cleanup runs) leaves no worker behind: the workers
    notice that their parent is gone while they wait for a command, and end."""
    import subprocess
    import sys

    script = tmp_path / "parent.py"
    script.write_text(PARENT_SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, env=env)
    try:
        pids = [int(x) for x in proc.stdout.readline().split()]
        assert len(pids) == 2 and all(_alive(p) for p in pids)
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 20.0
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(p) for p in pids)


class WorkerFailingEncoder:
    """planes-v0 that raises in any process but the one that built it, from its fourth call
    on (so a worker's shard fails in a step, after its reset)."""

    def __init__(self):
        from mcr_env.encoding import get_encoder

        self.base = get_encoder("planes-v0")
        self.id, self.num_channels, self.shape = "fails", self.base.num_channels, self.base.shape
        self.home, self.calls = os.getpid(), 0

    def encode(self, state, games=None, seats=None, out=None):
        self.calls += 1
        if os.getpid() != self.home and self.calls > 3:
            raise RuntimeError("boom in the worker")
        return self.base.encode(state, games, seats, out=out)


def test_error_in_a_worker_step_raises_and_cleans_up():
    """A shard that raises inside a step served through the control row: its error text comes
    over the pipe, the env closes, the workers end and the shared memory is freed."""
    env = ShardedBatchEnv(6, observe="packed", num_workers=3, encoder=WorkerFailingEncoder())
    env.reset(seed=1)
    pids = env.worker_pids
    shm_path = f"/dev/shm/{env._shm.name}"
    with pytest.raises(WorkerError, match=r"step_random failed in shard 1 \(tables 2\.\.3.*boom"):
        for _ in range(10):
            env.step_random(0)
    assert env.closed and not os.path.exists(shm_path)
    assert not any(_alive(p) for p in pids)


def test_blocking_waits_give_the_same_games():
    """``spin=0`` (every wait blocks at once) plays the same games, and ``wait_stats`` counts
    every wait of both sides; a bad spin raises."""
    ref = random_trajectory(MCRBatchEnv(7, observe="packed", claim_round="options"), steps=60)
    kw = {"observe": "packed", "claim_round": "options", "num_workers": 3}
    with ShardedBatchEnv(7, spin=0.0, **kw) as env:
        assert env.spin == 0.0
        assert_same(random_trajectory(env, steps=60), ref)
        # wait_stats: nothing polls; every wait the other side had not answered yet blocked
        one, two = env.wait_stats()
        for w in (one, two):
            assert w["done"]["waits"] == 60  # the caller's waits for the 60 steps' answers
            assert w["command"]["waits"] == 62  # reset, 60 steps, this query
            for part in ("done", "command"):
                st = w[part]
                assert st["polled"] == 0 and st["poll_s"] == 0.0 and st["block_s"] >= 0.0
                assert st["at_once"] + st["blocked"] == st["waits"]
        assert one["chain"] is None  # shard 1 starts at the anchor: it never waits
        assert two["chain"]["waits"] == 61 and two["chain"]["polled"] == 0  # reset + steps
    with ShardedBatchEnv(7, **kw) as env:  # polling first (the default spin)
        random_trajectory(env, steps=20)
        for w in env.wait_stats():
            for part in ("done", "command"):
                st = w[part]
                assert st["at_once"] + st["polled"] + st["blocked"] == st["waits"] > 0
                assert st["poll_s"] >= 0.0 and st["block_s"] >= 0.0
    with ShardedBatchEnv(7, backend="thread", **kw) as env:
        assert env.wait_stats() == []
    with pytest.raises(RuntimeError, match="closed"):
        env.wait_stats()
    with pytest.raises(ValueError, match="spin"):
        ShardedBatchEnv(7, spin=-1.0, **kw)


def test_changed_line_copies_equal_a_plain_copy():
    """The kernels that publish a worker shard's masks (only the 64-byte lines that differ,
    by bytes or by 8-byte words) leave exactly the source in the destination, for every
    alignment of the destination and sizes around a line."""
    from mcr_env.envs.sharded import _copy_changed_lines, _copy_changed_words

    rng = np.random.default_rng(3)
    for size in (1, 7, 63, 64, 65, 200, 940 * 3):
        for shift in (0, 1, 5, 8, 13, 40):
            base = np.zeros(size + 128, np.uint8)
            dst = base[shift : shift + size]
            for _ in range(3):  # a few steps: sparse masks, some bytes changing each time
                src = (rng.random(size) < 0.1).astype(np.uint8)
                before = dst.copy()
                _copy_changed_lines(src, dst, 64 - dst.ctypes.data % 64)
                np.testing.assert_array_equal(dst, src)
                dst[...] = before  # the word kernel from the same start
                d = dst.ctypes.data
                head = min((-d) % 8, size)
                words = (size - head) // 8
                src_al = np.zeros(size + 128, np.uint8)[shift : shift + size]  # dst's alignment
                src_al[...] = src
                s64 = src_al[head : head + 8 * words].view(np.uint64)
                d64 = dst[head : head + 8 * words].view(np.uint64)
                first = ((-(d + head)) % 64) // 8 or 8
                flags = np.zeros(words // 8 + 1, np.bool_)
                _copy_changed_words(src_al, dst, s64, d64, head, first, flags)
                np.testing.assert_array_equal(dst, src)
            assert not base[:shift].any() and not base[shift + size :].any()
