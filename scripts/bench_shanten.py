"""Benchmark hand analysis: single-hand shanten (ours vs PyMahjongGB) and batched tables.

Prints one JSON line:

* ``shanten_per_s``: :func:`mcr_env.scoring.shanten.shanten` calls per second on random hands of
  13 concealed tiles (uniform from the wall), and ``pymahjonggb_shanten_per_s``:
  ``MahjongGB.MahjongShanten`` on the same hands (tile codes prepared outside the timing);
* ``complete_mask_rows_per_s`` and ``shanten_batch_rows_per_s`` at ``--batch`` rows of 14-tile
  hands (half of them complete hands with a few tiles swapped);
* ``table_build_s``: first-use build of the shanten value tables; ``import_s``.

Usage: ``.venv/bin/python scripts/bench_shanten.py [--hands 20000] [--batch 4096]``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import subprocess
import time

import numpy as np
from bench_args import positive_int

t0 = time.perf_counter()
sh = importlib.import_module("mcr_env.scoring.shanten")  # the module (the package's
# `shanten` attribute is the function of the same name)

IMPORT_S = time.perf_counter() - t0

from mcr_env.tiles import tile_to_code  # noqa: E402


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _random_hands(rng: np.random.Generator, size: int, tiles: int) -> np.ndarray:
    """``(size, 34) int64`` counts of ``tiles`` tiles drawn from the 136-tile wall."""
    wall = np.repeat(np.arange(34), 4)
    out = np.zeros((size, 34), dtype=np.int64)
    for i in range(size):
        out[i] = np.bincount(rng.choice(wall, size=tiles, replace=False), minlength=34)
    return out


def _near_complete(rng: np.random.Generator, size: int) -> np.ndarray:
    """``(size, 34) int64`` 14-tile hands: regular complete hands with 0-2 tiles swapped."""
    sets = [np.eye(34, dtype=np.int64)[t] * 3 for t in range(34)] + [
        np.eye(34, dtype=np.int64)[s * 9 + r : s * 9 + r + 3].sum(0)
        for s in range(3)
        for r in range(7)
    ]
    out = np.zeros((size, 34), dtype=np.int64)
    i = 0
    while i < size:
        c = sum(sets[j] for j in rng.integers(len(sets), size=4))
        c[rng.integers(34)] += 2
        for _ in range(int(rng.integers(3))):
            c[rng.choice(np.flatnonzero(c))] -= 1
            c[rng.integers(34)] += 1
        if c.max() <= 4:
            out[i] = c
            i += 1
    return out


def _rate(fn, items, min_time: float = 1.0) -> float:
    """Calls per second of ``fn(item)`` over ``items`` (repeated until ``min_time`` s)."""
    done, start = 0, time.perf_counter()
    while True:
        for item in items:
            fn(item)
        done += len(items)
        elapsed = time.perf_counter() - start
        if elapsed >= min_time:
            return done / elapsed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=positive_int, default=20000, help="single-hand sample size")
    parser.add_argument("--batch", type=positive_int, default=4096, help="rows per batched call")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)

    t = time.perf_counter()
    sh._value_tables()
    build_s = time.perf_counter() - t

    hands = list(_random_hands(rng, args.hands, 13))
    ours = _rate(lambda c: sh.shanten(c, 0), hands)
    result = {
        "bench": "shanten",
        "hands": args.hands,
        "shanten_per_s": round(ours),
        "shanten_us": round(1e6 / ours, 2),
    }
    try:
        import MahjongGB

        coded = [tuple(tile_to_code(t) for t in range(34) for _ in range(c[t])) for c in hands]
        theirs = _rate(lambda h: MahjongGB.MahjongShanten(pack=(), hand=h), coded)
        result["pymahjonggb_shanten_per_s"] = round(theirs)
        result["pymahjonggb_version"] = "1.4.0"
        agree = all(
            sh.shanten(c) == MahjongGB.MahjongShanten(pack=(), hand=h)
            for c, h in zip(hands[:2000], coded[:2000])
        )
        result["agree_first_2000"] = agree
    except ImportError:
        result["pymahjonggb_shanten_per_s"] = None

    batch = np.concatenate(
        [_near_complete(rng, args.batch // 2), _random_hands(rng, args.batch - args.batch // 2, 14)]
    )
    melds = np.zeros(len(batch), dtype=np.int64)
    result["batch"] = len(batch)
    result["complete_fraction"] = round(float(sh.complete_mask(batch, melds).mean()), 3)
    result["complete_mask_rows_per_s"] = round(
        _rate(lambda b: sh.complete_mask(b, melds), [batch]) * len(batch)
    )
    t = time.perf_counter()
    sh.shanten_batch(batch[:1], melds[:1])  # first call: loads (or compiles) the numba kernel
    result["shanten_batch_first_call_s"] = round(time.perf_counter() - t, 3)
    result["shanten_batch_rows_per_s"] = round(
        _rate(lambda b: sh.shanten_batch(b, melds), [batch]) * len(batch)
    )
    result["table_build_s"] = round(build_s, 3)
    result["import_s"] = round(IMPORT_S, 3)
    result.update(
        machine=platform.machine(),
        processor=platform.processor() or platform.machine(),
        cpus=os.cpu_count(),
        python=platform.python_version(),
        numpy=np.__version__,
        commit=_commit(),
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
