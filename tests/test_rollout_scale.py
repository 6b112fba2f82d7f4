"""Batched-inference rollouts: the same games and buffers in one process, over shard workers,
over split table ranges and on Ray actors (local instance) for the same seeds."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch
from script_helpers import load_script

from baselines.config import EnvConfig, NetworkConfig, PPOConfig
from baselines.network import PolicyValueNet
from baselines.ppo import train_ppo
from baselines.rollout import (
    RolloutBuffer,
    collect_rollout,
    counter_uniform,
    forward_blocks,
    inference_copy,
    merge_rollouts,
    resolve_device,
)
from mcr_env.envs.batch import MCRBatchEnv
from mcr_env.envs.sharded import ShardedBatchEnv

B = 6
KW = {"observe": "packed", "autoreset_mode": "disabled"}


def small_net() -> PolicyValueNet:
    torch.manual_seed(5)
    return PolicyValueNet(75, NetworkConfig(channels=16, blocks=1, hidden=32)).eval()


def assert_rollouts_equal(a, b) -> None:
    (ba, pa, wa), (bb, pb, wb) = a, b
    assert ba.keys() == bb.keys()
    for k in ba:
        np.testing.assert_array_equal(ba[k], bb[k], err_msg=k)
    np.testing.assert_array_equal(pa, pb)
    np.testing.assert_array_equal(wa, wb)


BLOCK = 32  # forward block rows (small tables: little padding)


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """One intra-op thread: OpenMP threads spinning on a loaded 2-core machine are 10x slower."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def reference(one_torch_thread):
    net = small_net()
    return net, collect_rollout(net, MCRBatchEnv(B, **KW), 3, 8, block_rows=BLOCK)


def test_counter_uniform_is_keyed_and_in_range():
    g = np.arange(1000)
    u = counter_uniform(1, g, g % 4, g // 7)
    assert u.min() > 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.05
    np.testing.assert_array_equal(counter_uniform(1, g[500:], g[500:] % 4, g[500:] // 7), u[500:])
    assert not np.array_equal(counter_uniform(2, g, g % 4, g // 7), u)
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ValueError, match="device"):
        resolve_device("nonsense")


def test_forward_blocks_row_results_do_not_depend_on_the_batch():
    net = small_net()
    x = torch.rand(200, 75, 34).numpy()
    m = np.ones((200, 235), dtype=bool)
    full_l, full_v = forward_blocks(net, x, m, torch.device("cpu"), 64)
    for lo, hi in [(0, 1), (3, 70), (150, 200)]:
        lg, v = forward_blocks(net, x[lo:hi], m[lo:hi], torch.device("cpu"), 64)
        assert torch.equal(lg, full_l[lo:hi]) and torch.equal(v, full_v[lo:hi])
    ref_l, _ = net(torch.from_numpy(x), torch.from_numpy(m))
    torch.testing.assert_close(full_l, ref_l)


def test_rollout_is_the_same_for_any_split(reference):
    net, ref = reference
    buf, points, winners = ref
    assert len(buf["action"]) > 100 and np.all(np.diff(buf["step"]) >= 0)
    assert points.sum() == 0  # settlements sum to zero per table
    # two table ranges in two in-process envs, merged
    parts = [
        collect_rollout(
            net, MCRBatchEnv(hi - lo, first_game=lo, **KW), 3, 8, first_table=lo, block_rows=BLOCK
        )
        for lo, hi in [(0, 2), (2, 6)]
    ]
    merged = (
        merge_rollouts([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]),
    )
    assert_rollouts_equal(merged, ref)
    # one sharded env over 3 worker processes (batched inference across the shards)
    with ShardedBatchEnv(B, num_workers=3, copy_obs=False, **KW) as env:
        assert_rollouts_equal(collect_rollout(net, env, 3, 8, block_rows=BLOCK), ref)
    # the same shards as threads of this process
    with ShardedBatchEnv(B, num_workers=3, copy_obs=False, backend="thread", **KW) as env:
        assert_rollouts_equal(collect_rollout(net, env, 3, 8, block_rows=BLOCK), ref)


def test_inference_copy_folds_batchnorm_and_keeps_the_function():
    net = small_net()
    gen = torch.Generator().manual_seed(1)
    for m in net.modules():  # BatchNorm statistics far from the identity
        if isinstance(m, torch.nn.BatchNorm1d):
            m.running_mean.uniform_(-1, 1, generator=gen)
            m.running_var.uniform_(0.5, 2, generator=gen)
            m.weight.data.uniform_(0.5, 1.5, generator=gen)
            m.bias.data.uniform_(-0.5, 0.5, generator=gen)
    before = {k: v.clone() for k, v in net.state_dict().items()}
    fused = inference_copy(net)
    assert not any(isinstance(m, torch.nn.BatchNorm1d) for m in fused.modules())
    assert all(not p.requires_grad for p in fused.parameters())
    x = torch.rand(40, 75, 34, generator=gen)
    m = torch.rand(40, 235, generator=gen) < 0.2
    m[:, 0] = True
    with torch.no_grad():
        (la, va), (lb, vb) = net(x, m), fused(x, m)
    torch.testing.assert_close(lb, la, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(vb, va, rtol=1e-4, atol=1e-4)
    assert (lb[~m] == -1e9).all() and (la - lb).abs().max() > 0  # folded: rounding differs
    assert all(torch.equal(before[k], v) for k, v in net.state_dict().items())  # net unchanged


def test_reused_buffer_gives_the_same_rollouts(reference):
    """A RolloutBuffer that starts with one row and is reused: the same arrays as fresh
    buffers, for two rollouts in a row (the second overwrites the first)."""
    net, ref = reference
    env = MCRBatchEnv(B, **KW)
    buf = RolloutBuffer(env.encoder.shape, capacity=1)
    got = collect_rollout(net, env, 3, 8, block_rows=BLOCK, buffer=buf)
    assert buf.capacity >= len(ref[0]["action"]) > 1
    assert_rollouts_equal(got, ref)
    other = collect_rollout(net, MCRBatchEnv(B, **KW), 4, 9, block_rows=BLOCK)
    assert_rollouts_equal(collect_rollout(net, env, 4, 9, block_rows=BLOCK, buffer=buf), other)
    assert np.shares_memory(got[0]["obs"], buf["obs"])


PPO_CFG = PPOConfig(iterations=2, num_envs=5, update_epochs=1, minibatch_size=64, num_workers=0)


def ppo_run(**overrides) -> tuple[dict, dict]:
    """Two PPO iterations from the same small net; returns (summary without timing, weights)."""
    net = small_net()
    summary = train_ppo(net, replace(PPO_CFG, **overrides), EnvConfig(), seed=4, progress=False)
    summary.pop("seconds")
    return summary, {k: v.clone() for k, v in net.state_dict().items()}


def assert_same_training(a, b) -> None:
    np.testing.assert_equal(a[0], b[0])  # NaN statistics (no win yet) compare equal
    assert a[1].keys() == b[1].keys()
    for k in a[1]:
        assert torch.equal(a[1][k], b[1][k]), k


@pytest.fixture(scope="module")
def ppo_reference(one_torch_thread):
    return ppo_run()


def test_ppo_num_workers_2_matches_in_process(ppo_reference):
    """PPO smoke run with the rollout env sharded over 2 workers: the same statistics and the
    same trained weights as the in-process env."""
    assert ppo_reference[0]["iteration"] == 2 and ppo_reference[0]["decisions"] > 0
    assert_same_training(ppo_run(num_workers=2), ppo_reference)
    assert_same_training(ppo_run(num_workers=2, shard_backend="thread"), ppo_reference)
    with pytest.raises(ValueError, match="backend"):
        ppo_run(backend="spark")
    with pytest.raises(ValueError, match="ppo.shard_backend 'fork' not valid"):
        ppo_run(num_workers=2, shard_backend="fork")


def test_ray_backend_matches_in_process(reference, ppo_reference):
    """On a local Ray instance: RayRollouts over 2 actors gives the in-process rollout, and PPO
    with ``backend: ray`` the in-process statistics and weights (one Ray start for both)."""
    import ray  # the optional extra "ray", installed by `make test`

    from baselines.distributed import RayRollouts

    net, ref = reference
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        rr = RayRollouts(B, net, {}, num_actors=2, workers_per_actor=0, block_rows=BLOCK)
        try:
            assert rr.ranges == [(0, 3), (3, 6)]
            assert_rollouts_equal(rr.collect(net, 3, 8), ref)
        finally:
            rr.close()
        assert ray.is_initialized()  # not started by RayRollouts: left running
        assert_same_training(ppo_run(backend="ray", ray_actors=2), ppo_reference)
    finally:
        ray.shutdown()


def test_bench_rollout_script_prints_rows(capsys):
    """scripts/bench_rollout.py with tiny budgets: one JSON row per backend and worker count."""
    import json

    mod = load_script("bench_rollout")
    argv = ["--batch", "3", "--seconds", "0.05", "--channels", "8", "--blocks", "1"]
    enc = ["--encoder", "planes-v0+rule-v0"]  # the make-run default's (84 channels)
    mod.main([*argv, *enc, "--backends", "inprocess", "sharded", "threaded", "--workers", "2"])
    mod.main([*argv[:4], "--channels", "0", "--backends", "inprocess"])
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    proj = [r for r in out if r["bench"] == "rollout_projection"]
    rows = [r for r in out if r["bench"] == "rollout"]
    assert [(r["backend"], r["workers"]) for r in rows] == [
        ("inprocess", 0),
        ("sharded", 2),
        ("threaded", 2),
        ("inprocess", 0),
    ]
    for r in rows:
        assert r["decisions"] >= r["policy_rows"] > 0 and r["decisions_per_s"] > 0
        assert r["commit"] is not None and r["torch"] and r["other_cpu_us_per_decision"] > 0
    assert len(rows[1]["worker_cpu_seconds"]) == 2 and rows[3]["network"]["channels"] == 0
    assert len(rows[2]["worker_cpu_seconds"]) == 2  # per shard, inside this process's CPU
    # 8 channels, 1 block, 84 input channels: stem 3-wide conv, two 3-wide convs, two 1x1
    # heads and the three linear layers, 2 FLOPs per multiply-add
    assert rows[1]["forward_flops_per_row"] == 2 * 34 * (
        84 * 8 * 3 + 2 * 8 * 8 * 3 + 8 * 8 + 8 * 4
    ) + 2 * (8 * 34 * 235 + 4 * 34 * 256 + 256)
    # one projection per call, from the rows with the most shard workers
    assert [(p["from_backend"], p["from_workers"], p["cores"]) for p in proj] == [
        ("sharded", 2, 16),
        ("inprocess", 0, 16),
    ]
    p = proj[0]
    assert p["other_cpu_us_per_decision"] == rows[1]["other_cpu_us_per_decision"]
    assert p["projected_decisions_per_s"] == min(
        p["cpu_bound_decisions_per_s"], p["gpu_bound_decisions_per_s"]
    )
    assert p["cpu_bound_decisions_per_s"] == round(16 / (p["other_cpu_us_per_decision"] * 1e-6))
    # no network: no GPU side, the CPU side is the projection
    assert proj[1]["gpu_bound_decisions_per_s"] is None
    assert proj[1]["projected_decisions_per_s"] == proj[1]["cpu_bound_decisions_per_s"]
    assert rows[1]["encoder"] == "planes-v0+rule-v0" and rows[1]["inference"] == "fused"
