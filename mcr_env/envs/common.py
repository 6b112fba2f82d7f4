"""Helpers shared by the environments: batched random legal actions and opponent policies."""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

import numpy as np

from mcr_env.encoding.seat_view import SeatView
from mcr_env.engine.actions import NUM_ACTIONS


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row, drawn batched (no Python loop over rows).

    Args:
        mask: ``(..., 235) bool`` legal actions.
        rng: numpy Generator (advanced by one ``random`` call of shape ``mask.shape[:-1]``).

    Returns:
        ``(...) int64`` action ids; rows without any legal action get 0 (Pass).
    """
    mask = np.asarray(mask, dtype=bool)
    cnt = mask.sum(axis=-1)
    k = np.floor(rng.random(mask.shape[:-1]) * cnt).astype(np.int64)
    cs = np.cumsum(mask, axis=-1, dtype=np.int16)
    a = np.argmax(cs > k[..., None], axis=-1)
    return np.where(cnt > 0, a, 0).astype(np.int64)


class RandomPolicy:
    """Uniformly random legal action; batched ``.act(obs, mask, view=None) -> (N,)``.

    Args:
        rng: a numpy Generator or a seed; the environment reseeds it through :meth:`seed`.
    """

    needs_obs = False
    needs_view = False

    def __init__(self, rng: np.random.Generator | int | None = None):
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)

    def seed(self, rng: np.random.Generator) -> None:
        """Use ``rng`` from now on (the environment passes its own seeded generator)."""
        self.rng = rng

    def act(self, obs: Any, mask: np.ndarray, view: Any = None) -> np.ndarray:
        return random_legal_actions(mask, self.rng)


def call_policy(policy: Any, obs: np.ndarray | None, mask: np.ndarray, state, games, seats):
    """Actions of ``policy`` for N decisions.

    ``policy`` is an agent object with a batched ``act(obs (N, C, 34), mask (N, 235) bool,
    view) -> (N,)`` (the :mod:`baselines.agents` interface; ``needs_obs`` / ``needs_view``
    attributes honoured), or a callable ``policy({"observation": (C, 34), "action_mask":
    (235,) int8}) -> int`` called once per decision.

    Raises:
        TypeError: ``policy`` is neither.
        ValueError: an action is outside 0..234 (legality is checked by the engine).
    """
    n = mask.shape[0]
    if hasattr(policy, "act"):
        view = None
        if getattr(policy, "needs_view", False):
            view = SeatView.from_state(state, games, seats)
        o = obs if getattr(policy, "needs_obs", True) else None
        if getattr(policy, "needs_ids", False):  # told which (game, seat) each row is
            acts = np.asarray(policy.act(o, mask, view, games=games, seats=seats)).reshape(n)
        else:
            acts = np.asarray(policy.act(o, mask, view)).reshape(n)
    elif callable(policy):
        if obs is None:
            raise ValueError("a callable policy needs observations")
        m8 = mask.astype(np.int8)
        acts = np.array(
            [int(policy({"observation": obs[i], "action_mask": m8[i]})) for i in range(n)],
            dtype=np.int64,
        )
    else:
        raise TypeError(
            f"policy must have .act(obs, mask, view) or be callable, got {type(policy).__name__}"
        )
    acts = acts.astype(np.int64)
    if n and (acts.min() < 0 or acts.max() >= NUM_ACTIONS):
        raise ValueError(f"policy returned an action outside 0..{NUM_ACTIONS - 1}: {acts}")
    return acts


def policy_label(policy: Any) -> str:
    """Short description of a policy for error messages: a function's name (``always_pass``),
    else the class name plus its ``name`` attribute if any (``RuleBasedAgent name='rule'``)."""
    if not hasattr(policy, "act") and hasattr(policy, "__qualname__"):
        return policy.__qualname__
    label = type(policy).__name__
    name = getattr(policy, "name", None)
    return f"{label} name={name!r}" if isinstance(name, str) else label


def policy_needs_obs(policy: Any) -> bool:
    """Whether ``policy`` reads observations (callables always do)."""
    return getattr(policy, "needs_obs", True) if hasattr(policy, "act") else True


AGENT_SPEC_GROUP = "mcr_env.agent_specs"
"""Entry-point group of agent-spec factories ``factory(spec: str, seed: int) -> agent`` that
raise ValueError for specs they do not know. The project registers
``baselines.agents:make_agent`` (``rule``, ``random``, ``*.pt`` checkpoints) in pyproject.toml,
so the envs accept those strings without importing the baselines layer."""


def make_opponent(spec: Any, seed: int | None = None) -> Any:
    """One opponent policy from ``spec``: a policy object (an agent with ``act(obs, mask,
    view)`` or a callable ``policy(obs_dict) -> action``, returned as is) or a string:
    ``"random"`` (:class:`RandomPolicy`, reseeded by the env) or any spec a registered factory
    of :data:`AGENT_SPEC_GROUP` knows (``"rule"``, ``"path/to/final.pt"``, ...).

    Raises:
        ValueError: an unknown spec string (the message lists the known names).
        TypeError: ``spec`` is neither a string nor a policy.
    """
    if isinstance(spec, str):
        if spec == "random":
            return RandomPolicy(seed)
        errors = []
        for ep in entry_points(group=AGENT_SPEC_GROUP):
            try:
                return ep.load()(spec, seed=0 if seed is None else int(seed))
            except ValueError as e:
                errors.append(f"{ep.name}: {e}")
        hint = (
            "; ".join(errors)
            if errors
            else ("no agent factory is registered (install the project: pip install -e .)")
        )
        raise ValueError(f"unknown opponent spec {spec!r}; valid: 'random', {hint}")
    if hasattr(spec, "act") or callable(spec):
        return spec
    raise TypeError(
        "an opponent must be a spec string ('random', 'rule', '*.pt'), an agent with "
        f".act(obs, mask, view) or a callable policy(obs_dict) -> action; got {type(spec).__name__}"
    )
