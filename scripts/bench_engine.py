"""Engine throughput with uniformly random legal actions (DESIGN.md "Performance").

Prints one JSON line per batch size with ``batch``, ``hands_per_s`` (complete hands per second),
``decisions_per_s`` (acting (game, seat) pairs answered per second), ``peak_rss_mb`` and the
machine, versions and git commit. Random actions are drawn batched from the legal masks (only
for the acting rows). Run on one core, e.g.::

    taskset -c 0 .venv/bin/python scripts/bench_engine.py --batch 1 64 1024 --seconds 10
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time

import numpy as np

from mcr_env.engine import MCREngine, RulesConfig
from mcr_env.engine.sampling import sample_legal_actions


def _meta() -> dict:
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        commit = ""
    return {
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "commit": commit,
    }


def random_legal_actions(legal: np.ndarray, to_act: np.ndarray, rng) -> np.ndarray:
    """``(B, 4) int64``: a uniformly random legal action for each acting seat (0 elsewhere).

    :func:`mcr_env.engine.sampling.sample_legal_actions` on the acting rows only (one bounded
    random integer per acting seat).
    """
    return sample_legal_actions(legal, rng, to_act)


def _rates(hands: int, decisions: int, t0: float, c0: float) -> dict:
    """Timing keys of a bench row, measured from ``t0`` (``time.perf_counter``) and ``c0``
    (``time.process_time``) to now: ``seconds``, ``hands_per_s``, ``decisions_per_s`` (wall
    clock), ``cpu_seconds``, ``hands_per_cpu_s`` (process CPU time)."""
    dt = time.perf_counter() - t0
    cpu = time.process_time() - c0
    return {
        "seconds": round(dt, 3),
        "hands_per_s": round(hands / dt, 1),
        "decisions_per_s": round(decisions / dt, 1),
        "cpu_seconds": round(cpu, 3),
        "hands_per_cpu_s": round(hands / cpu, 1),
    }


def bench_engine(
    batch: int,
    seconds: float,
    layout: str = "official",
    seed: int = 0,
    claim_round: str = "options",
) -> dict:
    """Run random legal play on ``batch`` games for about ``seconds``; autoreset finished games.

    ``claim_round``: :attr:`RulesConfig.claim_round` ("options" or "all", docs/rules.md §10).

    Returns:
        dict with ``batch``, ``layout``, ``claim_round``, ``hands``, ``decisions``,
        ``decisions_per_hand``, ``steps``, ``seconds``, ``hands_per_s``, ``decisions_per_s``
        (wall clock) and ``cpu_seconds``, ``hands_per_cpu_s`` (process CPU time: the fair
        figure on a shared machine).
    """
    eng = MCREngine(batch, RulesConfig(wall_layout=layout, claim_round=claim_round))
    eng.reset(seed=seed)
    rng = np.random.default_rng(seed)
    # warm-up (table builds, first allocations)
    for _ in range(20):
        eng.step(random_legal_actions(eng.legal_mask, eng.to_act, rng))
        if eng.terminated.any():
            eng.reset(games=eng.terminated.copy())
    hands = decisions = steps = 0
    t0 = time.perf_counter()
    c0 = time.process_time()
    while True:
        decisions += int(eng.to_act.sum())
        eng.step(random_legal_actions(eng.legal_mask, eng.to_act, rng))
        steps += 1
        hands += int(eng.hand_over.sum())
        if eng.terminated.any():
            eng.reset(games=eng.terminated.copy())
        if steps % 16 == 0 and time.perf_counter() - t0 >= seconds:
            break
    return {
        "batch": batch,
        "layout": layout,
        "claim_round": claim_round,
        "hands": hands,
        "decisions": decisions,
        "decisions_per_hand": round(decisions / max(hands, 1), 2),
        "steps": steps,
        **_rates(hands, decisions, t0, c0),
    }


def bench_env(
    batch: int,
    seconds: float,
    layout: str = "official",
    seed: int = 0,
    claim_round: str = "options",
    workers: int = 0,
) -> dict:
    """The RL path: :class:`mcr_env.envs.batch.MCRBatchEnv` (planes-v0 observations of the
    acting seats (``observe="packed"``), masks, settlement rewards, same-step autoreset)
    under random legal play; with ``workers`` = k >= 1 the same over k worker processes
    (:class:`mcr_env.envs.sharded.ShardedBatchEnv`, shared-memory views, ``copy_obs=False``).

    Returns:
        dict like :func:`bench_engine` (``hands_per_s``, ``decisions_per_s``,
        ``decisions_per_hand``, ``hands_per_cpu_s``) plus ``encoder`` and ``observations``
        (acting-seat observations encoded).
    """
    from mcr_env.envs.sharded import make_batch_env

    kw = {"copy_obs": False} if workers else {}
    config = RulesConfig(wall_layout=layout, claim_round=claim_round)
    env = make_batch_env(batch, workers, config=config, observe="packed", **kw)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(20):
        obs, *_ = env.step(random_legal_actions(obs["action_mask"], obs["to_act"], rng))
    hands = decisions = steps = 0
    w0 = env.worker_cpu_seconds() if workers else []
    t0 = time.perf_counter()
    c0 = time.process_time()
    while True:
        decisions += int(obs["to_act"].sum())
        obs, _, _, _, info = env.step(random_legal_actions(obs["action_mask"], obs["to_act"], rng))
        steps += 1
        hands += int(info["hand_over"].sum())
        if steps % 16 == 0 and time.perf_counter() - t0 >= seconds:
            break
    rates = _rates(hands, decisions, t0, c0)  # CPU time of this process
    if workers:
        # CPU time of the workers too: on a loaded machine the critical path of a step in CPU
        # seconds (parent + slowest worker) says what an idle machine would do
        wcpu = [c - w for c, w in zip(env.worker_cpu_seconds(), w0)]
        rates["worker_cpu_seconds"] = [round(c, 3) for c in wcpu]
        rates["decisions_per_total_cpu_s"] = round(
            decisions / (rates["cpu_seconds"] + sum(wcpu)), 1
        )
        rates["decisions_per_critical_cpu_s"] = round(
            decisions / (rates["cpu_seconds"] + max(wcpu)), 1
        )
        env.close()
    else:
        rates["decisions_per_total_cpu_s"] = rates["decisions_per_critical_cpu_s"] = round(
            decisions / rates["cpu_seconds"], 1
        )
    return {
        "batch": batch,
        "layout": layout,
        "claim_round": claim_round,
        "workers": workers,
        "encoder": env.encoder.id,
        "hands": hands,
        "decisions": decisions,
        "decisions_per_hand": round(decisions / max(hands, 1), 2),
        "observations": decisions,
        "steps": steps,
        **rates,
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, nargs="+", default=[1, 64, 1024])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--layout", default="official", choices=["official", "botzone"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--claim-round",
        nargs="+",
        default=["options"],
        choices=["options", "all"],
        help="RulesConfig.claim_round: who is asked in claim rounds (several: run each, "
        "interleaved per batch size)",
    )
    ap.add_argument(
        "--paths",
        nargs="+",
        default=["engine", "env"],
        choices=["engine", "env"],
        help="engine: MCREngine alone; env: MCRBatchEnv (observations, masks, rewards)",
    )
    ap.add_argument(
        "--workers",
        type=int,
        nargs="+",
        default=None,
        help="env path over k worker processes for each k given (0 = in-process); rows of "
        "all k interleaved, --repeat times (scaling rows on a shared machine)",
    )
    ap.add_argument("--repeat", type=int, default=1, help="rounds of the interleaved --workers")
    args = ap.parse_args(argv)
    meta = _meta()
    benches = {"engine": bench_engine, "env": bench_env}
    runs = [(p, b, cr, None) for p in args.paths for b in args.batch for cr in args.claim_round]
    if args.workers is not None:
        runs = [
            ("env", b, cr, k)
            for _ in range(args.repeat)
            for b in args.batch
            for cr in args.claim_round
            for k in args.workers
        ]
    for path, b, cr, k in runs:
        extra = {} if k is None else {"workers": k}
        row = {"bench": path, **benches[path](b, args.seconds, args.layout, args.seed, cr, **extra)}
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        row["peak_rss_mb"] = round(rss, 1)
        row.update(meta)
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
