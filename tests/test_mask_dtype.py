"""One mask dtype across the env APIs (README "Environments", ``mcr_env.envs.batch.MASK_DTYPE``):
every observation's ``action_mask`` is ``int8`` 0/1 (Gymnasium's ``Discrete.sample(mask=...)``
requires it, PettingZoo's classic games use it) and equals the engine's bool ``legal_mask``;
the ``action_masks()`` methods (sb3-contrib's interface) return ``bool``."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import mcr_env  # noqa: F401  (registers MCR-v0)
from mcr_env.envs.batch import MASK_DTYPE, MCRBatchEnv
from mcr_env.envs.sharded import ShardedBatchEnv
from mcr_env.pettingzoo import env as aec_env
from mcr_env.pettingzoo import parallel_env


def check_mask(mask: np.ndarray, legal: np.ndarray) -> None:
    """``mask`` is int8, has only 0/1 and equals the engine's ``legal`` (bool)."""
    assert mask.dtype == np.int8 and legal.dtype == np.bool_
    assert set(np.unique(mask).tolist()) <= {0, 1}
    np.testing.assert_array_equal(mask.view(bool), legal)


def test_the_documented_dtype_is_int8():
    assert MASK_DTYPE is np.int8


@pytest.mark.parametrize("observe", ["all", "acting", "packed", "none"])
def test_batch_env(observe):
    env = MCRBatchEnv(3, observe=observe)
    obs, _ = env.reset(seed=1)
    for _ in range(3):
        check_mask(obs["action_mask"], env.engine.legal_mask)
        act = np.argmax(obs["action_mask"], axis=2)  # the first legal action of every seat
        obs, *_ = env.step(act)
    check_mask(obs["action_mask"], env.engine.legal_mask)


@pytest.mark.parametrize("copy_obs", [True, False])
def test_sharded_env(copy_obs):
    ref = MCRBatchEnv(3, observe="packed")
    with ShardedBatchEnv(3, observe="packed", num_workers=2, copy_obs=copy_obs) as env:
        obs, _ = env.reset(seed=2)
        ref_obs, _ = ref.reset(seed=2)
        for _ in range(3):
            check_mask(obs["action_mask"], ref.engine.legal_mask)
            act = np.argmax(obs["action_mask"], axis=2)
            obs, *_ = env.step(act)
            ref.step(act)
        check_mask(obs["action_mask"], ref.engine.legal_mask)


def test_gymnasium_single_and_vector():
    env = gym.make("mcr_env/MCR-v0")
    assert env.observation_space["action_mask"].dtype == np.int8
    obs, _ = env.reset(seed=3)
    inner = env.unwrapped
    for _ in range(3):
        legal = inner.action_masks()
        check_mask(obs["action_mask"], legal)
        # Gymnasium's own masked sampling takes the observation's mask as it is
        a = env.action_space.sample(mask=obs["action_mask"])
        assert legal[a]
        obs, *_ = env.step(a)
    venv = gym.make_vec("mcr_env/MCR-v0", num_envs=3, vectorization_mode="vector_entry_point")
    assert venv.single_observation_space["action_mask"].dtype == np.int8
    obs, _ = venv.reset(seed=3)
    for _ in range(3):
        legal = venv.unwrapped.action_masks()
        assert legal.shape == (3, 235)
        check_mask(obs["action_mask"], legal)
        obs, *_ = venv.step(np.argmax(legal, axis=1))


def test_pettingzoo_aec_and_parallel():
    aec = aec_env()
    aec.reset(seed=4)
    for agent in aec.possible_agents:
        assert aec.observation_space(agent)["action_mask"].dtype == np.int8

    def legal(env, agent: str) -> np.ndarray:  # the engine's bool mask of that player's seat
        table = env.unwrapped._table
        return table.engine.legal_mask[0, table.seat_of(env.possible_agents.index(agent))]

    for _ in range(6):
        agent = aec.agent_selection
        o = aec.observe(agent)
        check_mask(o["action_mask"], legal(aec, agent))
        aec.step(int(aec.action_space(agent).sample(mask=o["action_mask"])))
    par = parallel_env()
    obs, _ = par.reset(seed=4)
    for _ in range(3):
        for agent, o in obs.items():
            check_mask(o["action_mask"], legal(par, agent))
        acts = {a: int(np.argmax(o["action_mask"])) for a, o in obs.items()}
        obs, *_ = par.step({a: x for a, x in acts.items() if obs[a]["action_mask"].any()})


def test_sb3_vec_env():
    from mcr_env.envs.sb3 import MCRSB3VecEnv

    venv = MCRSB3VecEnv(3)
    assert venv.observation_space["action_mask"].dtype == np.int8
    obs = venv.reset()
    for _ in range(3):
        legal = venv.action_masks()
        check_mask(obs["action_mask"], legal)
        assert np.array_equal(np.stack(venv.env_method("action_masks")), legal)
        obs, *_ = venv.step(np.argmax(legal, axis=1))
