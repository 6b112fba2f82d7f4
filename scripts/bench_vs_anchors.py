"""Our engine against RiichiEnv (Rust, riichi mahjong) in one process, interleaved.

Rows, repeated ``--rounds`` times in the order riichienv B=1, ours B=1, ours B=1024 so that the
load of a shared machine hits all alike (each row runs ``--seconds``):

* ``riichienv``: ``RiichiEnv(game_mode="4p-red-single", skip_mjai_logging=True)``, one hand per
  episode, every observed player answering a uniformly random legal action (Python
  ``random.choice`` over ``legal_actions()``), reset when done;
* ``mcr-env``: :func:`bench_engine.bench_engine` (``uniform`` policy: batched random legal
  actions, same-step partial resets) at B = 1 and B = 1024.

Prints one JSON line per row (``hands_per_s``, ``hands_per_cpu_s``) and a final ``summary`` line
with the medians and the ratios ours / RiichiEnv at B=1 (wall clock and CPU time) and ours at
B=1024 / RiichiEnv. RiichiEnv is a benchmark-only dependency, not installed by the project::

    .venv/bin/python -m pip install riichienv==0.4.11
    taskset -c 0 .venv/bin/python scripts/bench_vs_anchors.py --seconds 10 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_args import positive_float, positive_int  # noqa: E402
from bench_engine import _meta, bench_engine  # noqa: E402


def bench_riichienv(seconds: float, seed: int = 0) -> dict:
    """Random legal play in RiichiEnv single-hand 4-player games for about ``seconds``.

    Raises:
        SystemExit: riichienv is not installed (the message says how to install it).
    """
    try:
        import riichienv
        from riichienv import RiichiEnv
    except ImportError as exc:  # a benchmark-only dependency
        raise SystemExit("bench_vs_anchors needs `pip install riichienv==0.4.11`") from exc
    rng = random.Random(seed)
    env = RiichiEnv(game_mode="4p-red-single", skip_mjai_logging=True)
    obs = env.reset()
    for _ in range(50):  # warm-up
        if env.done():
            obs = env.reset()
        obs = env.step({p: rng.choice(o.legal_actions()) for p, o in obs.items()})
    hands = decisions = steps = 0
    t0 = time.perf_counter()
    c0 = time.process_time()
    while True:
        if env.done():
            hands += 1
            obs = env.reset()
        decisions += len(obs)
        obs = env.step({p: rng.choice(o.legal_actions()) for p, o in obs.items()})
        steps += 1
        if steps % 64 == 0 and time.perf_counter() - t0 >= seconds:
            break
    dt = time.perf_counter() - t0
    cpu = time.process_time() - c0
    return {
        "bench": "riichienv",
        "version": getattr(riichienv, "__version__", "0.4.11"),
        "game_mode": "4p-red-single",
        "batch": 1,
        "hands": hands,
        "decisions": decisions,
        "seconds": round(dt, 3),
        "hands_per_s": round(hands / dt, 1),
        "cpu_seconds": round(cpu, 3),
        "hands_per_cpu_s": round(hands / cpu, 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=positive_float, default=10.0)
    ap.add_argument("--rounds", type=positive_int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    meta = _meta()
    rows: dict[str, list[dict]] = {"riichienv": [], "ours_b1": [], "ours_b1024": []}
    for r in range(args.rounds):
        runs = (
            ("riichienv", lambda r=r: bench_riichienv(args.seconds, args.seed + r)),
            ("ours_b1", lambda: {"bench": "mcr-env", **bench_engine(1, args.seconds)}),
            ("ours_b1024", lambda: {"bench": "mcr-env", **bench_engine(1024, args.seconds)}),
        )
        for key, run in runs:
            row = run()
            row["round"] = r
            rows[key].append(row)
            print(json.dumps({**row, **meta}), flush=True)

    def med(key: str, field: str) -> float:
        return statistics.median(x[field] for x in rows[key])

    summary = {"bench": "summary", "rounds": args.rounds, "seconds": args.seconds}
    for key in rows:
        summary[f"{key}_hands_per_s"] = med(key, "hands_per_s")
        summary[f"{key}_hands_per_cpu_s"] = med(key, "hands_per_cpu_s")
    for clock in ("hands_per_s", "hands_per_cpu_s"):
        base = summary[f"riichienv_{clock}"]
        summary[f"ratio_b1_{clock}"] = round(summary[f"ours_b1_{clock}"] / base, 3)
        summary[f"ratio_b1024_{clock}"] = round(summary[f"ours_b1024_{clock}"] / base, 3)
    print(json.dumps({**summary, **meta}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
