"""Rollout throughput with the policy in the loop (docs/design.md "Performance", "Scale").

Plays complete hands with :func:`baselines.rollout.collect_rollout` (PPO's rollout: packed
observations of the acting seats, ONE batched forward pass of the policy network per step for
every acting seat of every table and shard, sampled actions) and prints one JSON line per
backend with ``decisions_per_s`` (acting seats answered per wall-clock second, forced ones
included), ``policy_rows_per_s`` (decisions that went through the network), the split of the
time between env and forward pass, CPU seconds (this process, and the env workers for the
sharded backend) and the machine, versions and commit. Backends, interleaved ``--repeat``
times (fair on a loaded machine):

* ``inprocess``: :class:`mcr_env.envs.batch.MCRBatchEnv` in this process;
* ``sharded``: :class:`mcr_env.envs.sharded.ShardedBatchEnv` with each ``--workers`` k
  (worker processes);
* ``threaded``: the same with ``backend="thread"`` (the k shards as threads of this process,
  the caller serving shard 0);
* ``ray``: :class:`baselines.distributed.RayRollouts`, ``--actors`` actors on a local Ray
  instance (``--ray-address`` for an existing cluster), each with an in-process env.

Example (the default policy network, 2 cores)::

    .venv/bin/python scripts/bench_rollout.py --batch 512 --backends inprocess sharded ray \\
        --workers 1 2 --seconds 20 --repeat 2
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch
from bench_args import nonnegative_int, positive_float, positive_int

import baselines.features  # noqa: F401  (registers planes-v0+rule-v0)
from baselines.config import NetworkConfig
from baselines.network import PolicyValueNet
from baselines.rollout import DEFAULT_BLOCK_ROWS, RolloutBuffer, collect_rollout, resolve_device
from mcr_env.encoding import get_encoder


def _meta() -> dict:
    """bench_engine's machine, versions and commit, plus load, torch and CUDA."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_engine import _meta as engine_meta

    return {
        **engine_meta(),
        "loadavg_1m": round(os.getloadavg()[0], 2),
        "torch": torch.__version__,
        "cuda": torch.cuda.is_available(),
    }


class UniformPolicy(torch.nn.Module):
    """Zero logits and values (uniform over the legal actions): ``--channels 0`` measures the
    rollout loop without the network (env, gathering, sampling)."""

    def __init__(self, in_channels: int):
        super().__init__()
        self.in_channels = in_channels
        self.encoder = "planes-v0"
        self.config = NetworkConfig(channels=0, blocks=0, hidden=0)

    def forward(self, obs, mask=None):
        logits = torch.zeros((obs.shape[0], 235), device=obs.device)
        if mask is not None:
            logits = logits.masked_fill(~mask, -1e9)
        return logits, torch.zeros(obs.shape[0], device=obs.device)


def inference_net(net: PolicyValueNet, mode: str, block_rows: int | None) -> torch.nn.Module:
    """``fused`` (the rollout's default): the module itself, which ``collect_rollout`` folds
    (``inference_copy``); ``eager``: the module itself, not folded; ``frozen``: TorchScript
    traced at ``block_rows`` rows, frozen and optimised for inference."""
    if mode in ("eager", "fused"):
        return net
    rows = block_rows or 128
    example = (torch.zeros(rows, net.in_channels, 34), torch.ones(rows, 235, dtype=torch.bool))
    traced = torch.jit.trace(net, example, check_trace=False)
    return torch.jit.optimize_for_inference(torch.jit.freeze(traced.eval()))


def forward_flops(net: torch.nn.Module) -> int:
    """Floating-point operations of one observation row through ``net`` (2 per multiply-add
    of every ``Conv1d`` and ``Linear``; BatchNorm, ReLU and the mask not counted), measured
    with forward hooks on one zero row."""
    total = 0

    def hook(mod, inp, out):
        nonlocal total
        if isinstance(mod, torch.nn.Conv1d):
            total += (
                2
                * out.shape[1]
                * out.shape[2]
                * (mod.in_channels // mod.groups)
                * mod.kernel_size[0]
            )
        elif isinstance(mod, torch.nn.Linear):
            total += 2 * mod.in_features * mod.out_features

    hooks = [
        m.register_forward_hook(hook)
        for m in net.modules()
        if isinstance(m, (torch.nn.Conv1d, torch.nn.Linear))
    ]
    try:
        with torch.inference_mode():
            net(torch.zeros(1, net.in_channels, 34), torch.ones(1, 235, dtype=torch.bool))
    finally:
        for h in hooks:
            h.remove()
    return total


def projection(rows: list[dict], cores: int, gpu_tflops: float) -> dict:
    """The projected rollout rate on ``cores`` CPU cores plus one GPU, from this run's rows.

    Method: with the forward pass on the GPU, each decision still costs the CPU its
    ``other_cpu_us_per_decision`` (env step, encoder, gathering, sampling glue, shard workers;
    measured as CPU time, so independent of the load), taken from the ``sharded`` (worker
    process) rows with the most workers (if there are none, the others'; the sharding
    overhead included; median over repeats). Shards and their
    parents are independent processes (several parents, e.g. Ray actors, each with its
    workers, sharing the GPU), so the CPU side gives ``cores / other_cpu``. The GPU side gives
    ``gpu_tflops / (forward_flops_per_row x policy_rows / decisions)`` (``gpu_tflops`` is an
    assumed sustained rate, not measured: no GPU here). The projection is the smaller one.
    Not modelled: memory bandwidth shared by the cores, host-device copies (about 10 KB per
    row), the latency of batching one forward across shards.
    """
    measured = [r for r in rows if "other_cpu_us_per_decision" in r]
    # worker processes when measured (the many-core layout), else threaded or in process
    measured = [r for r in measured if r["backend"] == "sharded"] or measured
    kmax = max(r["workers"] for r in measured)
    use = [r for r in measured if r["workers"] == kmax]
    other = float(np.median([r["other_cpu_us_per_decision"] for r in use]))
    rows_per_dec = float(np.median([r["policy_rows"] / r["decisions"] for r in use]))
    flops = use[0]["forward_flops_per_row"]
    cpu_bound = cores / (other * 1e-6)
    # no network (--channels 0): nothing for a GPU to do, the CPU side is the projection
    gpu_bound = gpu_tflops * 1e12 / (flops * rows_per_dec) if flops else float("inf")
    return {
        "bench": "rollout_projection",
        "cores": cores,
        "gpu_tflops_assumed": gpu_tflops,
        "from_backend": use[0]["backend"],
        "from_workers": kmax,
        "rows_used": len(use),
        "network": use[0]["network"],
        "encoder": use[0]["encoder"],
        "other_cpu_us_per_decision": round(other, 2),
        "policy_rows_per_decision": round(rows_per_dec, 4),
        "forward_flops_per_row": flops,
        "cpu_bound_decisions_per_s": round(cpu_bound),
        "gpu_bound_decisions_per_s": round(gpu_bound) if flops else None,
        "projected_decisions_per_s": round(min(cpu_bound, gpu_bound)),
        "projected_policy_rows_per_s": round(min(cpu_bound, gpu_bound) * rows_per_dec),
        "method": "min(cores / CPU-us per decision outside the forward, GPU FLOP/s / FLOPs per "
        "decision); see projection() in scripts/bench_rollout.py",
    }


def bench(backend: str, args, net, inet, k: int) -> dict:
    """Rollouts for about ``args.seconds`` on one backend; returns the row."""
    from mcr_env.envs.batch import MCRBatchEnv
    from mcr_env.envs.sharded import ShardedBatchEnv

    # the encoder object (not its id): spawned shard workers unpickle it by its module, which
    # registers ids such as planes-v0+rule-v0 there too
    kw = {"observe": "packed", "autoreset_mode": "disabled", "encoder": get_encoder(args.encoder)}
    env = rr = None
    if backend == "inprocess":
        env = MCRBatchEnv(args.batch, **kw)
    elif backend in ("sharded", "threaded"):
        be = "process" if backend == "sharded" else "thread"
        env = ShardedBatchEnv(args.batch, num_workers=k, copy_obs=False, backend=be, **kw)
    else:
        from baselines.distributed import RayRollouts

        rr = RayRollouts(
            args.batch,
            net,
            # the id: an encoder object arriving through Ray's object store has read-only arrays
            {"encoder": args.encoder},
            num_actors=k,
            address=args.ray_address,
            num_cpus=args.ray_cpus,
            torch_threads=args.threads,
            block_rows=args.block_rows,
        )
    dev = resolve_device(args.device)
    buf = None if rr is not None else RolloutBuffer(env.encoder.shape)  # reused, as PPO does
    fuse = args.inference == "fused"

    def one(i: int, st: dict) -> None:
        if rr is not None:
            rr.collect(net, 1000 + i, 7, st)
        else:
            collect_rollout(inet, env, 1000 + i, 7, dev, 0, args.block_rows, st, buf, fuse)

    one(0, {})  # warm-up (worker start, first allocations, kernel selection)
    w0 = env.worker_cpu_seconds() if backend in ("sharded", "threaded") else []
    tot = {
        "decisions": 0,
        "policy_rows": 0,
        "env_seconds": 0.0,
        "forward_seconds": 0.0,
        "forward_cpu_seconds": 0.0,
    }
    rollouts = 0
    t0, c0 = time.perf_counter(), time.process_time()
    while time.perf_counter() - t0 < args.seconds:
        st: dict = {}
        one(rollouts + 1, st)
        rollouts += 1
        for key in tot:
            tot[key] += st.get(key, 0)
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    row = {
        "bench": "rollout",
        "backend": backend,
        "batch": args.batch,
        "workers": k if backend in ("sharded", "threaded") else 0,
        "actors": k if backend == "ray" else 0,
        "network": dataclasses.asdict(net.config),
        "encoder": args.encoder,
        "inference": args.inference,
        "block_rows": args.block_rows,
        "torch_threads": torch.get_num_threads(),
        "device": str(dev),
        "rollouts": rollouts,
        "hands": rollouts * args.batch,
        "decisions": tot["decisions"],
        "policy_rows": tot["policy_rows"],
        "seconds": round(dt, 3),
        "decisions_per_s": round(tot["decisions"] / dt, 1),
        "policy_rows_per_s": round(tot["policy_rows"] / dt, 1),
        "cpu_seconds": round(cpu, 3),
    }
    if rr is None:
        row["env_seconds"] = round(tot["env_seconds"], 3)
        row["forward_seconds"] = round(tot["forward_seconds"], 3)
        row["forward_cpu_seconds"] = round(tot["forward_cpu_seconds"], 3)
    if backend in ("sharded", "threaded"):
        row["worker_cpu_seconds"] = [round(c - w, 3) for c, w in zip(env.worker_cpu_seconds(), w0)]
        env.close()
    if rr is None and tot["decisions"]:
        # worker processes' CPU (shards 1..k-1) comes on top of this process's; shard 0 (served
        # by this thread) and threads are inside it already
        wcpu = sum(row.get("worker_cpu_seconds", [])[1:]) if backend == "sharded" else 0.0
        n = tot["decisions"]
        row["decisions_per_cpu_s"] = round(n / (cpu + wcpu), 1)  # parent + workers
        # everything but the forward pass (env, encoder, gathering, workers): what stays on
        # the CPU cores when the forward runs on a GPU
        row["other_cpu_us_per_decision"] = round(
            (cpu - tot["forward_cpu_seconds"] + wcpu) / n * 1e6, 2
        )
        row["forward_cpu_us_per_row"] = round(
            tot["forward_cpu_seconds"] / max(tot["policy_rows"], 1) * 1e6, 2
        )
    row["forward_flops_per_row"] = forward_flops(net)
    if rr is not None:
        rr.close()
    return row


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=positive_int, default=512, help="tables per rollout")
    ap.add_argument("--seconds", type=positive_float, default=20.0, help="per row")
    ap.add_argument(
        "--backends",
        nargs="+",
        default=["inprocess", "sharded"],
        choices=["inprocess", "sharded", "threaded", "ray"],
    )
    ap.add_argument(
        "--workers",
        type=positive_int,
        nargs="+",
        default=[1, 2],
        help="sharded, threaded: k values",
    )
    ap.add_argument("--actors", type=positive_int, default=2, help="ray: actors")
    ap.add_argument("--ray-address", default=None, help="existing Ray cluster (ray.init address)")
    ap.add_argument(
        "--ray-cpus", type=positive_int, default=None, help="CPUs of a local Ray instance"
    )
    ap.add_argument("--threads", type=positive_int, default=1, help="torch intra-op threads")
    ap.add_argument("--device", default="auto")
    ap.add_argument("--block-rows", type=positive_int, default=DEFAULT_BLOCK_ROWS)
    ap.add_argument("--inference", default="fused", choices=["fused", "eager", "frozen"])
    ap.add_argument(
        "--channels",
        type=nonnegative_int,
        default=NetworkConfig.channels,
        help="0 = no network (uniform)",
    )
    ap.add_argument("--blocks", type=nonnegative_int, default=NetworkConfig.blocks)
    ap.add_argument(
        "--hidden", type=positive_int, default=NetworkConfig.hidden, help="value head width"
    )
    ap.add_argument(
        "--encoder",
        default="planes-v0",
        help="observation encoder id (planes-v0+rule-v0 = the make-run default's)",
    )
    ap.add_argument("--repeat", type=positive_int, default=1)
    ap.add_argument(
        "--project-cores",
        type=nonnegative_int,
        default=16,
        help="cores of the projection row (0 = none)",
    )
    ap.add_argument(
        "--gpu-tflops",
        type=positive_float,
        default=5.0,
        help="assumed sustained GPU float32 TFLOP/s of the projection (an RTX 3090 peaks at 35)",
    )
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    c = get_encoder(args.encoder).num_channels
    if args.channels == 0:
        net = UniformPolicy(c).eval()
        args.inference = "eager"
    else:
        cfg = NetworkConfig(channels=args.channels, blocks=args.blocks, hidden=args.hidden)
        net = PolicyValueNet(c, cfg, encoder=args.encoder).eval()
    dev = resolve_device(args.device)
    net.to(dev)
    inet = inference_net(net, args.inference, args.block_rows) if dev.type == "cpu" else net
    runs = []
    for b in args.backends:
        ks = args.workers if b in ("sharded", "threaded") else [args.actors] if b == "ray" else [0]
        runs += [(b, k) for k in ks]
    meta = _meta()
    rows = []
    for _ in range(args.repeat):
        for backend, k in runs:
            row = bench(backend, args, net, inet, k)
            row.update(meta)
            row["loadavg_1m"] = round(os.getloadavg()[0], 2)
            rows.append(row)
            print(json.dumps(row), flush=True)
    if args.project_cores and any("other_cpu_us_per_decision" in r for r in rows):
        row = projection(rows, args.project_cores, args.gpu_tflops)
        print(json.dumps({**row, **meta}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
