"""Paired duplicate comparison of several agents against three copies of one opponent.

Every agent of ``--agents`` plays the same ``--walls`` walls of block ``--block`` (wall indices
``block x 1,000,000 ...``, seed ``--seed``; the main job's report walls are block 0 and its
selection walls block 1 with seed ``config seed + 10,000`` = 10001) under the 4 rotations
against three ``--opponent`` agents; the script prints each agent's points per hand and its
per-wall difference from the first agent (``mcr_env.eval.paired_difference``, 95% CI over
walls), one JSON line per agent.

Agent specs are those of ``scripts/evaluate.py`` (``rule``, ``rule-lookahead``, ``*.pt``, ...)
plus look-ahead variants ``rule-lookahead:top_k=8,claim_margin=2.0``.

    python scripts/paired_eval.py --agents runs/<run>/bc.pt rule-lookahead --walls 1000
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BLOCK_SIZE = 1_000_000


def build_agent(spec: str, seed: int):
    """An agent for ``spec``: a registry spec or ``rule-lookahead:key=value,...``.

    Raises:
        ValueError: an unknown spec or look-ahead parameter.
    """
    from baselines.agents import LookaheadAgent, make_agent

    if spec.startswith("rule-lookahead:"):
        kwargs: dict = {}
        for item in spec.split(":", 1)[1].split(","):
            key, _, value = item.partition("=")
            if key not in ("top_k", "claim_margin", "sharpness"):
                raise ValueError(f"unknown look-ahead parameter {key!r} in {spec!r}")
            kwargs[key] = int(value) if key == "top_k" else float(value)
        return LookaheadAgent(name=spec, **kwargs)
    agent = make_agent(spec, seed=seed)
    if spec.endswith(".pt"):
        agent.name = spec
    return agent


def main(argv=None) -> int:
    import baselines.features  # noqa: F401  (registers the feature encoders)
    from mcr_env.eval import duplicate_evaluate, paired_difference

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--agents", nargs="+", required=True)
    p.add_argument("--opponent", default="rule")
    p.add_argument("--walls", type=int, default=500)
    p.add_argument("--block", type=int, default=0)
    p.add_argument("--seed", type=int, default=10001)
    p.add_argument("--batch-size", type=int, default=500)
    p.add_argument("--encoder", default="planes-v0+look-v0")
    args = p.parse_args(argv)
    if len(set(args.agents)) != len(args.agents):
        p.error("--agents must be distinct")
    opp = build_agent(args.opponent, 0)
    results = []
    for spec in args.agents:
        # the opponent's own spec plays as the opponent object (self-play reads exactly 0)
        agent = opp if spec == args.opponent else build_agent(spec, 0)
        t0 = time.process_time()
        res = duplicate_evaluate(
            [agent, opp, opp, opp],
            args.walls,
            seed=args.seed,
            wall_offset=args.block * BLOCK_SIZE,
            batch_size=args.batch_size,
            encoder=args.encoder,
            progress=False,
        )
        results.append((agent.name, res))
        s = next(x for x in res.stats if x.agent == agent.name)
        row = {
            "agent": agent.name,
            "opponent": args.opponent,
            "hands": int(s.hands),
            "mean_points": s.mean_points,
            "ci95": [s.ci95_low, s.ci95_high],
            "cpu_seconds": round(time.process_time() - t0, 1),
        }
        if len(results) > 1:
            name0, res0 = results[0]
            for metric in ("points", "placement"):
                d = paired_difference(res, agent.name, res0, name0, metric)
                row[f"minus_first_{metric}"] = [d.mean, d.ci95_low, d.ci95_high]
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
