"""A reward-shaping experiment: does shaping on hand progress help a short MaskablePPO run?

Three rewards, the same budget and seeds, all evaluated on the same seeded hands by the raw
settlement (docs/rules.md §3) the shaping must not distort:

* ``settlement``: the points alone (0 until the hand ends);
* ``shanten``: settlement + potential-based shaping ``F = Phi(s') - Phi(s)`` with the library's
  ``ShantenPotential`` (``Phi = -shanten``), ``terminal_zero=True`` (policy-invariant,
  Ng et al. 1999);
* ``pairs`` (custom, defined below): the same shaping with a hand-written potential, the number
  of pairs held (what Seven Pairs needs), to show how to plug in your own ``Phi``.

    python examples/reward_shaping.py                                  # ~1 minute
    python examples/reward_shaping.py --timesteps 2048 --eval-hands 64  # smoke run

Prints one JSON line per reward: mean settlement per hand, win rate, deal-in rate, mean
shanten before the learner's last decision of the hand.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from mcr_env.envs.sb3 import MCRSB3VecEnv
from mcr_env.rewards import PotentialShaping
from mcr_env.scoring.shanten import shanten_batch


def pairs_potential(engine) -> np.ndarray:
    """Custom potential ``(B, 4) float32``: pairs in each seat's own concealed hand (a seat's
    own information only, as a potential must be)."""
    return (engine.state.hand >= 2).sum(axis=2).astype(np.float32) * 0.5


def make_reward(name: str):
    if name == "settlement":
        return "settlement"
    if name == "shanten":
        return PotentialShaping(base="settlement", gamma=1.0)
    return PotentialShaping(base="settlement", gamma=1.0, potential=pairs_potential)


def evaluate(model, hands: int, num_envs: int, seed: int) -> dict:
    env = MCRSB3VecEnv(num_envs, opponents="random", reward="settlement")
    env.seed(seed)
    obs = env.reset()
    pts, wins, deal_ins, shanten = [], 0, 0, []
    per_table = max(1, hands // num_envs)  # the same number of hands at every table: quick
    done_hands = np.zeros(num_envs, dtype=np.int64)  # hands (wins) do not crowd out slow ones
    while (done_hands < per_table).any():
        eng = env.venv.engine
        learner = env.venv._t.learner
        rows = np.arange(num_envs)
        sh = shanten_batch(eng.state.hand[rows, learner], eng.state.n_melds[rows, learner])
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        obs, rew, dones, infos = env.step(action)
        for i in np.flatnonzero(dones & (done_hands < per_table)):
            done_hands[i] += 1
            settle = infos[i]["settlement"]  # the finished hand's, by seat
            seat = infos[i]["learner_seat"]
            pts.append(float(rew[i]))
            wins += int(settle[seat] > 0)
            # paid as discarder: paid more than another loser (self-drawn: all pay alike)
            deal_ins += int(settle[seat] < 0 and settle[seat] < settle[settle < 0].max())
            shanten.append(int(sh[i]))
    n = len(pts)
    return {
        "hands": n,
        "mean_points": round(float(np.mean(pts)), 3),
        "win_rate": round(wins / n, 4),
        "deal_in_rate": round(deal_ins / n, 4),
        "mean_last_shanten": round(float(np.mean(shanten)), 3),
    }


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--timesteps", type=int, default=16_384, help="learner decisions per run")
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--eval-hands", type=int, default=512)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    rows = []
    for name in ("settlement", "shanten", "pairs"):
        env = MCRSB3VecEnv(args.num_envs, opponents="random", reward=make_reward(name))
        env.seed(args.seed)
        model = MaskablePPO(
            "MultiInputPolicy",
            env,
            n_steps=32,
            batch_size=min(512, 32 * args.num_envs),
            n_epochs=4,
            seed=args.seed,
        )
        model.learn(args.timesteps)
        row = {"reward": name, "timesteps": int(model.num_timesteps)}
        row.update(evaluate(model, args.eval_hands, args.num_envs, args.seed + 1))
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


if __name__ == "__main__":
    main()
