"""Stable-Baselines3 ``VecEnv`` over the natively batched learner env (optional extra ``sb3``).

:class:`MCRSB3VecEnv` plays ``num_envs`` tables of ``MCR-v0`` (one learner seat each, three
opponent policies) on ONE batched engine (:class:`mcr_env.envs.gym_env.MCRVectorEnv`), instead
of ``num_envs`` Python env copies in a ``DummyVecEnv``. It follows SB3's conventions: ``step``
returns ``(obs, rewards (N,) float32, dones (N,) bool, infos)`` with a list of N info dicts;
a table whose hand ended is reset at once and its last observation is
``infos[i]["terminal_observation"]``; ``seed(s)`` applies at the next ``reset``; and
``action_masks()`` (also through ``env_method("action_masks")``, as sb3-contrib's
``MaskablePPO`` asks for it) gives the ``(N, 235) bool`` legal actions::

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor
    from mcr_env.envs.sb3 import MCRSB3VecEnv

    venv = VecMonitor(MCRSB3VecEnv(64, opponents="random"))
    model = MaskablePPO("MultiInputPolicy", venv, n_steps=64, batch_size=512)
    model.learn(20_000)

Observations are the Gymnasium env's dict (``observation (N, C, 34) float32``, ``action_mask
(N, 235) int8``; SB3's ``MultiInputPolicy`` reads both). Every info dict has the learner's
``settlement`` and ``learner_seat`` of the step (at a terminal step: of the finished hand;
with ``match=True`` also ``hand_number``, ``dealer``, ``prevalent_wind``, ``learner_player``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from mcr_env.envs.gym_env import MCRVectorEnv

__all__ = ["MCRSB3VecEnv"]


class MCRSB3VecEnv(VecEnv):
    """``num_envs`` MCR tables as one SB3 ``VecEnv`` (module docstring).

    Args:
        num_envs: N >= 1 tables.
        **kwargs: arguments of :class:`mcr_env.envs.gym_env.MCREnv` (``opponents``,
            ``learner_seat``, ``reward``, ``encoder``, ``config``, ``illegal_action``,
            ``render_mode`` ...).

    Raises:
        ValueError / TypeError: bad arguments (from :class:`MCRVectorEnv`).
    """

    def __init__(self, num_envs: int = 64, **kwargs: Any):
        self.venv = MCRVectorEnv(num_envs, **kwargs)
        super().__init__(
            num_envs, self.venv.single_observation_space, self.venv.single_action_space
        )
        self._actions: np.ndarray | None = None
        self._obs: dict[str, np.ndarray] | None = None

    # ------------------------------------------------------------------ core API
    def reset(self) -> dict[str, np.ndarray]:
        """Deal a new hand at every table (root seed from :meth:`seed`, if called since)."""
        seed = self._seeds[0]
        obs, info = self.venv.reset(seed=seed)
        self.reset_infos = self._split(info, set())
        self._reset_seeds()
        self._obs = obs
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        """Take the learners' actions: ``(N,)`` (or ``(N, 1)``) integer action ids.

        Raises:
            ValueError: not N actions.
            TypeError: not integers (a float action is not silently truncated).
        """
        a = np.asarray(actions)
        if a.size != self.num_envs:
            raise ValueError(f"actions must be ({self.num_envs},) action ids, got shape {a.shape}")
        if not np.issubdtype(a.dtype, np.integer):
            raise TypeError(f"actions must be integer action ids, got dtype {a.dtype}")
        self._actions = a.reshape(self.num_envs).astype(np.int64)

    def step_wait(self):
        """Play the actions taken by :meth:`step_async`; returns ``(obs, rewards (N,)
        float32, dones (N,) bool, infos)`` (module docstring: autoreset, terminal
        observation)."""
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        obs, rew, term, trunc, info = self.venv.step(self._actions)
        self._actions = None
        dones = term | trunc
        infos = self._split(info, {"final_obs", "final_info", "redeals"})
        if dones.any():
            final = info["final_obs"]
            fin = info["final_info"]
            for i in np.flatnonzero(dones):
                # SB3 convention: a done step's info is the finished episode's
                infos[i].update({k: v[i] for k, v in fin.items() if not k.startswith("_")})
                infos[i]["terminal_observation"] = final[i]
                infos[i]["TimeLimit.truncated"] = bool(trunc[i] and not term[i])
        self._obs = obs
        return obs, rew.astype(np.float32), dones, infos

    def _split(self, info: dict, skip: set) -> list[dict]:
        out: list[dict] = [{} for _ in range(self.num_envs)]
        for k, v in info.items():
            if k.startswith("_") or k in skip:
                continue
            has = info.get(f"_{k}", np.ones(self.num_envs, dtype=bool))
            for i in np.flatnonzero(has):
                out[i][k] = v[i]
        return out

    def action_masks(self) -> np.ndarray:
        """``(N, 235) bool`` legal actions of the learner at every table (after reset/step)."""
        if self._obs is None:
            raise RuntimeError("action_masks() before reset()")
        return self._obs["action_mask"].astype(bool)

    def close(self) -> None:
        self.venv.close()

    def render(self, mode: str | None = None):
        return self.venv.render()

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None] * self.num_envs

    # ------------------------------------------------------------------ per-env access
    def _indices(self, indices) -> list[int]:
        return list(self._get_indices(indices))

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name) or hasattr(self.venv, attr_name)

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        """The attribute of the (shared) env for each index: one value repeated, since the N
        tables are one batched env (``render_mode``, ``action_masks`` ...)."""
        target = self if attr_name == "action_masks" else self.venv
        value = getattr(target, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        raise AttributeError(
            f"MCRSB3VecEnv tables share one batched env; set {attr_name!r} on .venv instead"
        )

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        """``env_method("action_masks")`` returns the N mask rows (what MaskablePPO calls);
        any other method is called once on the batched env and its result repeated."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in idx]
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def _get_indices(self, indices) -> Iterable[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return indices
