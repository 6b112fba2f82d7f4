"""CleanRL-style masked PPO, one file, on the natively batched Gymnasium vector env
(``gymnasium.make_vec("mcr_env/MCR-v0", vectorization_mode="vector_entry_point")``).

    python examples/cleanrl_masked_ppo.py                      # ~1 minute on one core
    python examples/cleanrl_masked_ppo.py --iterations 2       # smoke run

Action masking as in CleanRL's masked-PPO variants: illegal logits are set to a large negative
number, and the mask is stored in the rollout buffer so that the update uses the same mask as
the rollout. Episode returns are summed per table and closed at the autoreset step
(``terminated``; the finished hand's raw settlement is in ``info["final_info"]``). The reward
is the settlement plus shanten shaping with a non-zero terminal potential, as in
``sb3_maskable_ppo.py``. Prints one JSON line per iteration
(``charts/mean_return``, ``losses/...``) and a summary line.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass

import gymnasium as gym
import numpy as np
import torch
from torch import nn

import mcr_env  # noqa: F401  (registers mcr_env/MCR-v0)


@dataclass
class Args:
    num_envs: int = 64
    """tables played at once by the batched engine"""
    num_steps: int = 32
    """learner decisions per table per rollout"""
    iterations: int = 20
    """rollout + update iterations"""
    lr: float = 3e-4
    """Adam learning rate"""
    gamma: float = 0.99
    """discount per learner decision"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    update_epochs: int = 4
    """epochs over each rollout"""
    minibatches: int = 4
    """minibatches per epoch"""
    clip_coef: float = 0.2
    """PPO clip"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss weight"""
    seed: int = 0
    """seed of torch, the env and its opponents"""


class Agent(nn.Module):
    """MLP over the flattened planes; masked policy head (235 logits) and value head."""

    def __init__(self, obs_dim: int, n_actions: int):
        super().__init__()
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(obs_dim, 256), nn.ReLU())
        self.pi = nn.Linear(256, n_actions)
        self.v = nn.Linear(256, 1)

    def value(self, x):
        return self.v(self.body(x)).squeeze(-1)

    def act(self, x, mask, action=None):
        h = self.body(x)
        logits = self.pi(h).masked_fill(~mask, -1e8)
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.v(h).squeeze(-1)


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, f in Args.__dataclass_fields__.items():
        p.add_argument(f"--{name.replace('_', '-')}", type=type(f.default), default=f.default)
    args = Args(**vars(p.parse_args(argv)))
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    envs = gym.make_vec(
        "mcr_env/MCR-v0",
        num_envs=args.num_envs,
        vectorization_mode="vector_entry_point",
        opponents="random",
        reward="shaping",
        reward_kwargs={"base": "settlement", "gamma": 1.0, "terminal_zero": False},
    )
    obs_shape = envs.single_observation_space["observation"].shape
    n_act = envs.single_action_space.n
    agent = Agent(int(np.prod(obs_shape)), n_act)
    opt = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    T, N = args.num_steps, args.num_envs
    obs_b = torch.zeros((T, N, *obs_shape))
    mask_b = torch.zeros((T, N, n_act), dtype=torch.bool)
    act_b = torch.zeros((T, N), dtype=torch.long)
    logp_b, rew_b, done_b, val_b = (torch.zeros((T, N)) for _ in range(4))
    o, _ = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(o["observation"])
    next_mask = torch.as_tensor(o["action_mask"] == 1)
    next_done = torch.zeros(N)
    ep_ret = np.zeros(N)
    finished: list[float] = []
    rows = []
    t0 = time.perf_counter()
    steps = 0
    for it in range(args.iterations):
        for t in range(T):
            obs_b[t], mask_b[t], done_b[t] = next_obs, next_mask, next_done
            with torch.no_grad():
                a, logp, _, v = agent.act(next_obs, next_mask)
            act_b[t], logp_b[t], val_b[t] = a, logp, v
            o, r, term, trunc, info = envs.step(a.numpy())
            steps += N
            ep_ret += r
            done = term | trunc
            finished += ep_ret[done].tolist()
            ep_ret[done] = 0.0
            rew_b[t] = torch.as_tensor(r, dtype=torch.float32)
            next_obs = torch.as_tensor(o["observation"])
            next_mask = torch.as_tensor(o["action_mask"] == 1)
            next_done = torch.as_tensor(done, dtype=torch.float32)
        with torch.no_grad():  # GAE
            next_v = agent.value(next_obs)
            adv = torch.zeros((T, N))
            last = torch.zeros(N)
            for t in reversed(range(T)):
                nonterm = 1.0 - (next_done if t == T - 1 else done_b[t + 1])
                nv = next_v if t == T - 1 else val_b[t + 1]
                delta = rew_b[t] + args.gamma * nv * nonterm - val_b[t]
                last = delta + args.gamma * args.gae_lambda * nonterm * last
                adv[t] = last
            ret = adv + val_b
        b_obs, b_mask = obs_b.reshape(T * N, *obs_shape), mask_b.reshape(T * N, n_act)
        b_act, b_logp = act_b.reshape(-1), logp_b.reshape(-1)
        b_adv, b_ret = adv.reshape(-1), ret.reshape(-1)
        mb = T * N // args.minibatches
        for _ in range(args.update_epochs):
            perm = torch.randperm(T * N)
            for k in range(args.minibatches):
                idx = perm[k * mb : (k + 1) * mb]
                _, logp, ent, v = agent.act(b_obs[idx], b_mask[idx], b_act[idx])
                ratio = (logp - b_logp[idx]).exp()
                a_n = (b_adv[idx] - b_adv[idx].mean()) / (b_adv[idx].std() + 1e-8)
                pg = torch.max(
                    -a_n * ratio, -a_n * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)
                ).mean()
                vl = 0.5 * ((v - b_ret[idx]) ** 2).mean()
                loss = pg + args.vf_coef * vl - args.ent_coef * ent.mean()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                opt.step()
        recent = finished[-200:]
        row = {
            "iteration": it,
            "global_step": steps,
            "charts/mean_return": round(float(np.mean(recent)), 3) if recent else None,
            "charts/episodes": len(finished),
            "charts/steps_per_s": round(steps / (time.perf_counter() - t0), 1),
            "losses/policy": round(float(pg), 4),
            "losses/value": round(float(vl), 4),
            "losses/entropy": round(float(ent.mean()), 4),
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    means = [r["charts/mean_return"] for r in rows if r["charts/mean_return"] is not None]
    k = max(1, len(means) // 4)
    summary = {
        "global_step": steps,
        "episodes": len(finished),
        "first_mean_return": round(float(np.mean(means[:k])), 3) if means else None,
        "last_mean_return": round(float(np.mean(means[-k:])), 3) if means else None,
        "steps_per_s": rows[-1]["charts/steps_per_s"],
    }
    print(json.dumps(summary), flush=True)
    envs.close()
    return summary


if __name__ == "__main__":
    main()
