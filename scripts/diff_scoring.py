"""Long differential run: score_win (botzone profile) vs PyMahjongGB 1.4.0 on random hands.

Shows a tqdm progress bar and prints one JSON summary line (hands, mismatches, per-form
counts, first mismatches). Exit status 1 if any hand differs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import asdict

import numpy as np
from tqdm import tqdm

from mcr_env.scoring import score_win
from mcr_env.testing import pymahjonggb_score, random_winning_hand


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--show", type=int, default=5, help="mismatches to include in the summary")
    args = ap.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    forms: Counter[str] = Counter()
    bad = []
    n_bad = 0
    t0 = time.perf_counter()
    for _ in tqdm(range(args.hands), mininterval=2.0, file=sys.stderr):
        wh = random_winning_hand(rng)
        forms[wh.form] += 1
        total, fans = pymahjonggb_score(wh)
        res = score_win(**wh.kwargs(), profile="botzone")
        if res.as_dict() != fans or res.total != total:
            n_bad += 1
            if len(bad) < args.show:
                bad.append(
                    {"hand": asdict(wh), "ours": [res.as_dict(), res.total], "pm": [fans, total]}
                )
    summary = {
        "diff": "scoring-vs-pymahjonggb",
        "hands": args.hands,
        "seed": args.seed,
        "mismatches": n_bad,
        "agreement": 1 - n_bad / max(args.hands, 1),
        "forms": dict(forms),
        "seconds": round(time.perf_counter() - t0, 1),
        "first_mismatches": bad,
    }
    print(json.dumps(summary))
    return 1 if n_bad else 0


if __name__ == "__main__":
    sys.exit(main())
