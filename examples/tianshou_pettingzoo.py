"""Tianshou (2.0) on the PettingZoo AEC env: a DQN learner at one seat (``player_0``) against
three masked-random seats, through Tianshou's ``PettingZooEnv`` adapter and its multi-agent
off-policy algorithm.

    python examples/tianshou_pettingzoo.py                    # well under a minute
    python examples/tianshou_pettingzoo.py --epochs 1 --epoch-steps 200   # smoke run

Masks: Tianshou's PettingZoo adapter passes ``action_mask`` to the policies as ``mask``; both the
DQN policy and the random policy choose only legal actions. Prints one JSON line with the
learner's mean test return per epoch and the number of environment steps.

Version note: written for tianshou 2.0.1 (the ``tianshou.algorithm`` API; 1.x differs), tested
with gymnasium 1.4, pettingzoo 1.27, torch 2.13, numpy 2.4 (extra ``tianshou`` pins it).
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch
from tianshou.algorithm import (
    DQN,
    MARLRandomDiscreteMaskedOffPolicyAlgorithm,
    MultiAgentOffPolicyAlgorithm,
)
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from mcr_env.pettingzoo import env as mcr_aec_env


def make_env() -> PettingZooEnv:
    # settlement rewards scaled to ~[-1, 1] (docs/rules.md §3 points / 100)
    return PettingZooEnv(mcr_aec_env(reward="scaled"))


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--epoch-steps", type=int, default=1000, help="env steps per epoch")
    p.add_argument("--train-envs", type=int, default=4)
    p.add_argument("--test-episodes", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)  # noqa: NPY002 (Tianshou's random policies use the global state)
    torch.set_num_threads(1)
    env = make_env()
    obs_shape = env.observation_space["observation"].shape
    n_actions = int(env.action_space.n)
    net = Net(state_shape=obs_shape, action_shape=n_actions, hidden_sizes=[128])
    learner = DQN(
        policy=DiscreteQLearningPolicy(
            model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.0
        ),
        optim=AdamOptimizerFactory(lr=1e-3),
        n_step_return_horizon=1,
        gamma=0.99,
        target_update_freq=100,
    )
    others = [
        MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in range(3)
    ]
    algo = MultiAgentOffPolicyAlgorithm(algorithms=[learner, *others], env=env)
    train_envs = DummyVectorEnv([make_env for _ in range(args.train_envs)])
    test_envs = DummyVectorEnv([make_env for _ in range(2)])
    train_envs.seed(args.seed)
    test_envs.seed(args.seed + 1000)
    train = Collector[CollectStats](
        algo, train_envs, VectorReplayBuffer(20_000, len(train_envs)), exploration_noise=True
    )
    test = Collector[CollectStats](algo, test_envs, exploration_noise=True)
    train.reset()
    train.collect(n_step=64 * args.train_envs)

    def learner_return(rews: np.ndarray) -> np.ndarray:
        return rews[:, 0]  # player_0 is the learner

    result = algo.run_training(
        OffPolicyTrainerParams(
            training_collector=train,
            test_collector=test,
            max_epochs=args.epochs,
            epoch_num_steps=args.epoch_steps,
            collection_step_num_env_steps=16,
            test_step_num_episodes=args.test_episodes,
            batch_size=64,
            update_step_num_gradient_steps_per_sample=0.1,
            test_in_training=False,
            verbose=False,
            show_progress=False,
            multi_agent_return_reduction=learner_return,
        )
    )
    summary = {
        "epochs": args.epochs,
        "train_env_steps": int(result.train_step),
        "train_episodes": int(result.train_episode),
        "gradient_steps": int(result.update_step),
        "best_test_return": round(float(result.best_reward), 4),
    }
    print(json.dumps(summary), flush=True)
    return summary


if __name__ == "__main__":
    main()
