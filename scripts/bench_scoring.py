"""Benchmark score_win against PyMahjongGB 1.4.0 on the same random winning hands (one core).

Prints one JSON line: ours_hands_per_s, pymahjonggb_hands_per_s, ratio (ours / PyMahjongGB),
plus machine, versions and git commit. Target: ratio >= 0.05.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from importlib import metadata

import numpy as np
from bench_args import positive_int

from mcr_env.scoring import score_win
from mcr_env.scoring.evaluate import clear_caches
from mcr_env.scoring.score import _make_result
from mcr_env.testing import random_winning_hand
from mcr_env.testing.oracle import pymahjonggb_args


def _commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument(
        "--hands", type=positive_int, default=20000, help="number of random winning hands"
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--profile", default="botzone", choices=["botzone", "mcr"])
    args = ap.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    hands = [random_winning_hand(rng) for _ in range(args.hands)]
    ours_args = [wh.kwargs() for wh in hands]
    pm_args = [pymahjonggb_args(wh) for wh in hands]

    from MahjongGB import MahjongFanCalculator

    t0 = time.perf_counter()
    for kw in pm_args:
        MahjongFanCalculator(**kw)
    pm_s = time.perf_counter() - t0

    clear_caches()  # cold memo tables: the per-suit tables are the only warm state
    _make_result.cache_clear()
    t0 = time.perf_counter()
    for kw in ours_args:
        score_win(**kw, profile=args.profile)
    ours_s = time.perf_counter() - t0

    ours = args.hands / ours_s
    pm = args.hands / pm_s
    print(
        json.dumps(
            {
                "bench": "scoring",
                "hands": args.hands,
                "seed": args.seed,
                "profile": args.profile,
                "ours_hands_per_s": round(ours, 1),
                "pymahjonggb_hands_per_s": round(pm, 1),
                "ratio": round(ours / pm, 4),
                "machine": platform.machine(),
                "processor": platform.processor() or platform.machine(),
                "python": sys.version.split()[0],
                "numpy": np.__version__,
                "pymahjonggb": metadata.version("pymahjonggb"),
                "commit": _commit(),
            }
        )
    )


if __name__ == "__main__":
    main()
