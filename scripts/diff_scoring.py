"""Long differential run: score_win (botzone profile) vs PyMahjongGB 1.4.0 on random hands.

Every random hand is scored, and so is its promoted-kong variant (melded kongs as ``BUGANG``)
when it has a melded kong. With ``--profiles`` the mcr profile is checked on the same hands
against the item-by-item restatement of docs/rules.md §7
(:func:`mcr_env.testing.profiles.mcr_from_botzone`), and every hand where the profiles differ
is counted under the §7 items that explain it. Shows a tqdm progress bar and prints one JSON
summary line (hands, mismatches, per-form counts, per-item differences, first mismatches).
Exit status 1 if any hand differs from PyMahjongGB, from the restatement, or differs between
the profiles with no §7 item to explain it.
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
from mcr_env.testing import pymahjonggb_score, random_winning_hand, with_promoted_kongs
from mcr_env.testing.profiles import mcr_from_botzone


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--show", type=int, default=5, help="mismatches to include in the summary")
    ap.add_argument(
        "--profiles", action="store_true", help="also check the mcr profile (docs/rules.md §7)"
    )
    args = ap.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    forms: Counter[str] = Counter()
    by_item: Counter[str] = Counter()
    bad: list[dict] = []
    n_bad = n_scored = n_mcr_bad = n_unexplained = n_differ = 0
    t0 = time.perf_counter()
    for _ in tqdm(range(args.hands), mininterval=2.0, file=sys.stderr):
        wh = random_winning_hand(rng)
        forms[wh.form] += 1
        promoted = with_promoted_kongs(wh)
        for v in (wh,) if promoted is None else (wh, promoted):
            n_scored += 1
            total, fans = pymahjonggb_score(v)
            res = score_win(**v.kwargs(), profile="botzone")
            if res.as_dict() != fans or res.total != total:
                n_bad += 1
                if len(bad) < args.show:
                    bad.append(
                        {"hand": asdict(v), "ours": [res.as_dict(), res.total], "pm": [fans, total]}
                    )
            if not args.profiles:
                continue
            mcr = score_win(**v.kwargs(), profile="mcr")
            exp_total, exp_fans, items = mcr_from_botzone(v)
            if (mcr.as_dict(), mcr.total) != (exp_fans, exp_total):
                n_mcr_bad += 1
                if len(bad) < args.show:
                    bad.append(
                        {
                            "hand": asdict(v),
                            "mcr": [mcr.as_dict(), mcr.total],
                            "restated": [exp_fans, exp_total],
                        }
                    )
            if (mcr.as_dict(), mcr.total) != (res.as_dict(), res.total):
                n_differ += 1
                by_item.update(str(i) for i in sorted(items))
                n_unexplained += not items
    summary = {
        "diff": "scoring-vs-pymahjonggb",
        "hands": args.hands,
        "scored": n_scored,
        "seed": args.seed,
        "mismatches": n_bad,
        "agreement": 1 - n_bad / max(n_scored, 1),
        "forms": dict(forms),
    }
    if args.profiles:
        summary.update(
            {
                "mcr_vs_restatement_mismatches": n_mcr_bad,
                "profiles_differ": n_differ,
                "differences_by_item": dict(sorted(by_item.items())),
                "unexplained_differences": n_unexplained,
            }
        )
    summary["seconds"] = round(time.perf_counter() - t0, 1)
    summary["first_mismatches"] = bad
    print(json.dumps(summary))
    return 1 if n_bad or n_mcr_bad or n_unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
