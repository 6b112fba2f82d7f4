"""Baseline agents' throughput: complete hands per second with four copies at every table.

One JSON line per (agent, batch, round) with ``agent``, ``batch``, ``hands``, ``decisions``
(agent decisions answered, forced ones included), ``seconds``, ``hands_per_s``,
``decisions_per_s``, ``cpu_seconds``, ``hands_per_cpu_s`` and the machine, versions and git
commit. The agents are run interleaved, round by round, so load changes hit all of them. The
time includes the engine and building the agents' seat views (the whole play loop of
:func:`mcr_env.eval.play.play_games`); a warm-up hand compiles the numba code first. One core::

    taskset -c 0 .venv/bin/python scripts/bench_agents.py --agents rule rule-defensive random
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
from bench_args import positive_int
from bench_engine import _meta, _rates

from baselines.agents import LookaheadAgent, RandomAgent, RuleBasedAgent
from mcr_env.engine import MCREngine
from mcr_env.eval.play import play_games

AGENTS = {
    "rule": lambda: RuleBasedAgent(),
    "rule-defensive": lambda: RuleBasedAgent(defensive=True),
    "rule-lookahead": lambda: LookaheadAgent(),
    "random": lambda: RandomAgent(seed=0),
}


class _Counting:
    """Wraps an agent and counts the decisions it answers."""

    def __init__(self, agent):
        self.agent = agent
        self.name = agent.name
        self.needs_obs = agent.needs_obs
        self.needs_view = agent.needs_view
        self.decisions = 0

    def act(self, obs, mask, view=None):
        self.decisions += len(mask)
        return self.agent.act(obs, mask, view)


def bench_agent(spec: str, batch: int, hands: int, seed: int) -> dict:
    """Play ``hands`` hands (in batches of ``batch``) with four copies of agent ``spec``."""
    agent = _Counting(AGENTS[spec]())
    warm = MCREngine(2)
    warm.reset(seed=seed + 999)
    play_games(warm, [agent], np.zeros((2, 4), dtype=np.int64))
    agent.decisions = 0
    done = 0
    t0 = time.perf_counter()
    c0 = time.process_time()
    while done < hands:
        n = min(batch, hands - done)
        eng = MCREngine(n)
        eng.reset(seed=seed + done)
        play_games(eng, [agent], np.zeros((n, 4), dtype=np.int64))
        done += n
    return {
        "agent": spec,
        "batch": batch,
        "hands": done,
        "decisions": agent.decisions,
        **_rates(done, agent.decisions, t0, c0),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--agents", nargs="+", default=["rule", "rule-defensive", "random"], choices=sorted(AGENTS)
    )
    ap.add_argument("--batch", type=positive_int, nargs="+", default=[256])
    ap.add_argument(
        "--hands", type=positive_int, default=1024, help="hands per (agent, batch, round)"
    )
    ap.add_argument("--rounds", type=positive_int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    meta = _meta()
    for r in range(args.rounds):
        for b in args.batch:
            for spec in args.agents:
                row = {"bench": "agents", "round": r, **bench_agent(spec, b, args.hands, args.seed)}
                row.update(meta)
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
