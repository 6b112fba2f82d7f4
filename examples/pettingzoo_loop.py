"""A plain PettingZoo loop: four seats of one MCR table, each playing a uniformly random legal
action, in the AEC API (``agent_iter``/``last``/``step``) and in the parallel API.

    python examples/pettingzoo_loop.py --hands 3

Prints one JSON line per hand with each agent's summed reward (the settlement, docs/rules.md §3,
sums to zero) and the number of decisions.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from mcr_env.pettingzoo import env as aec_env
from mcr_env.pettingzoo import parallel_env


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def aec_hand(env, seed: int, rng) -> dict:
    env.reset(seed=seed)
    total = dict.fromkeys(env.possible_agents, 0.0)
    decisions = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        total[agent] += reward
        if terminated or truncated:
            action = None  # PettingZoo convention: a finished agent steps with None
        else:
            action = random_legal(obs["action_mask"], rng)
            decisions += 1
        env.step(action)
    return {"api": "aec", "seed": seed, "returns": total, "decisions": decisions}


def parallel_hand(env, seed: int, rng) -> dict:
    obs, infos = env.reset(seed=seed)
    total = dict.fromkeys(env.possible_agents, 0.0)
    decisions = 0
    while env.agents:
        # every agent answers; only the seats asked now have legal actions
        actions = {
            a: random_legal(o["action_mask"], rng)
            for a, o in obs.items()
            if a in env.agents and o["action_mask"].any()
        }
        decisions += len(actions)
        obs, rewards, terms, truncs, infos = env.step(actions)
        for a, r in rewards.items():
            total[a] += r
    return {"api": "parallel", "seed": seed, "returns": total, "decisions": decisions}


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    rows = []
    env = aec_env()
    for h in range(args.hands):
        rows.append(aec_hand(env, args.seed + h, rng))
    penv = parallel_env()
    for h in range(args.hands):
        rows.append(parallel_hand(penv, args.seed + h, rng))
    for row in rows:
        print(json.dumps(row))
    return rows


if __name__ == "__main__":
    main()
