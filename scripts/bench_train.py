"""Training throughput of the policy-value network: samples per second of forward + backward +
Adam step (the BC / PPO update), per network size and torch thread count.

One JSON line per (channels, blocks, hidden, threads) with ``samples_per_s``, ``params``,
``batch`` and the machine, versions and git commit. Sizes and thread counts are interleaved
round by round so load changes hit all of them. Example::

    .venv/bin/python scripts/bench_train.py --sizes 64x4 32x2 32x1 --threads 1 2 --seconds 5
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
import torch
from bench_args import positive_float, positive_int
from bench_engine import _meta

from baselines.config import NetworkConfig
from baselines.network import PolicyValueNet

IN_CHANNELS = 75  # planes-v0


def bench_size(cfg: NetworkConfig, threads: int, batch: int, seconds: float) -> dict:
    """Steps of masked cross-entropy + value MSE on random data for about ``seconds``."""
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    net = PolicyValueNet(IN_CHANNELS, cfg).train()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    gen = np.random.default_rng(0)
    obs = torch.from_numpy(gen.random((batch, IN_CHANNELS, 34), dtype=np.float32))
    mask = torch.from_numpy(gen.random((batch, 235)) < 0.1)
    mask[:, 2] = True
    target = torch.full((batch,), 2, dtype=torch.int64)
    ret = torch.zeros(batch)

    def step():
        logits, values = net(obs, mask)
        loss = torch.nn.functional.cross_entropy(logits, target) + ((values - ret) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()

    for _ in range(2):
        step()
    n = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        step()
        n += 1
    dt = time.perf_counter() - t0
    return {
        "channels": cfg.channels,
        "blocks": cfg.blocks,
        "hidden": cfg.hidden,
        "threads": threads,
        "batch": batch,
        "params": sum(p.numel() for p in net.parameters()),
        "steps": n,
        "seconds": round(dt, 3),
        "samples_per_s": round(n * batch / dt, 1),
    }


def network_size(text: str) -> tuple[int, int]:
    """An argparse ``type``: ``CHANNELSxBLOCKS`` (e.g. ``32x2``) as ``(channels >= 1,
    blocks >= 0)``; raises argparse.ArgumentTypeError otherwise."""
    parts = text.lower().split("x")
    try:
        ch, bl = (int(x) for x in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected CHANNELSxBLOCKS, got {text!r}") from None
    if ch < 1 or bl < 0:
        raise argparse.ArgumentTypeError(f"need channels >= 1 and blocks >= 0, got {text!r}")
    return ch, bl


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--sizes",
        type=network_size,
        nargs="+",
        default=[(64, 4), (32, 2), (32, 1), (16, 1)],
        help="CHANNELSxBLOCKS",
    )
    ap.add_argument("--hidden", type=positive_int, default=128)
    ap.add_argument("--threads", type=positive_int, nargs="+", default=[1, 2])
    ap.add_argument("--batch", type=positive_int, default=512)
    ap.add_argument("--seconds", type=positive_float, default=5.0)
    ap.add_argument("--rounds", type=positive_int, default=1)
    args = ap.parse_args(argv)
    meta = {**_meta(), "torch": torch.__version__}
    for r in range(args.rounds):
        for ch, bl in args.sizes:
            for th in args.threads:
                cfg = NetworkConfig(channels=ch, blocks=bl, hidden=args.hidden)
                row = {
                    "bench": "train",
                    "round": r,
                    **bench_size(cfg, th, args.batch, args.seconds),
                }
                print(json.dumps({**row, **meta}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
