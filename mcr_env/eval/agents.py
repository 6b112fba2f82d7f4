"""Anything that plays, as an agent of the batched interface (``act(obs, mask, view)``).

:func:`as_agent` accepts, as the environments do (:func:`mcr_env.envs.common.call_policy`):

* an agent object with a batched ``act(obs (N, C, 34), mask (N, 235) bool, view) -> (N,)``
  (``needs_obs`` / ``needs_view`` attributes honoured; the :mod:`baselines.agents` interface);
* a torch module ``module(obs (N, C, 34) float32 tensor, mask (N, 235) bool tensor)`` returning
  logits ``(N, 235)`` or a tuple whose first item is the logits: played greedily (the most
  probable legal action; illegal logits are ignored whatever the module does with the mask);
* a plain callable ``policy({"observation": (C, 34) float32, "action_mask": (235,) int8}) ->
  int``, called once per decision.

The wrapped agent gets ``name`` (the ``name`` argument, else the object's ``name`` attribute,
else its function or class name). torch is imported only when a module is wrapped.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

__all__ = ["CallableAgent", "ModuleAgent", "as_agent", "agent_name"]


def agent_name(obj: Any, default: str = "agent") -> str:
    """``obj.name`` if it is a string, else a function's ``__name__``, else the class name."""
    name = getattr(obj, "name", None)
    if isinstance(name, str) and name:
        return name
    fn_name = getattr(obj, "__name__", None)
    if isinstance(fn_name, str) and fn_name:
        return fn_name
    return type(obj).__name__ or default


class CallableAgent:
    """A per-decision callable ``policy(obs_dict) -> action`` as a batched agent."""

    needs_obs = True
    needs_view = False

    def __init__(self, policy, name: str | None = None) -> None:
        if not callable(policy):
            raise TypeError(f"policy must be callable, got {type(policy).__name__}")
        self.policy = policy
        self.name = name or agent_name(policy)

    def act(self, obs, mask: np.ndarray, view=None) -> np.ndarray:
        """``(N,) int64`` actions, one ``policy`` call per row."""
        if obs is None:
            raise ValueError(f"agent {self.name!r}: a callable policy needs observations")
        m8 = np.asarray(mask).astype(np.int8)
        return np.array(
            [
                int(self.policy({"observation": obs[i], "action_mask": m8[i]}))
                for i in range(len(m8))
            ],
            dtype=np.int64,
        )


class ModuleAgent:
    """A torch module mapping ``(obs, mask)`` tensors to logits, played greedily."""

    needs_obs = True
    needs_view = False

    def __init__(self, module, name: str | None = None) -> None:
        self.module = module
        self.name = name or agent_name(module)

    def act(self, obs, mask: np.ndarray, view=None) -> np.ndarray:
        """``(N,) int64``: argmax of the module's logits over the legal actions."""
        import torch

        mask = np.asarray(mask, dtype=bool)
        if obs is None:
            raise ValueError(f"agent {self.name!r}: a torch module needs observations")
        if len(mask) == 0:
            return np.zeros(0, dtype=np.int64)
        with torch.no_grad():
            out = self.module(
                torch.as_tensor(np.asarray(obs, dtype=np.float32)), torch.as_tensor(mask)
            )
        logits = out[0] if isinstance(out, (tuple, list)) else out
        logits = np.asarray(logits.detach().cpu().numpy(), dtype=np.float64)
        if logits.shape != mask.shape:
            raise ValueError(
                f"agent {self.name!r}: the module returned logits of shape {logits.shape}, "
                f"expected {mask.shape}"
            )
        return np.where(mask, logits, -np.inf).argmax(axis=1).astype(np.int64)


def _is_torch_module(obj: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(obj, torch.nn.Module)


def as_agent(obj: Any, name: str | None = None) -> Any:
    """``obj`` as a batched agent (see the module docstring); agent objects pass unchanged
    (``name``, if given, is then set on them).

    Raises:
        TypeError: ``obj`` is neither an agent, a torch module nor a callable.
    """
    if hasattr(obj, "act"):
        if name is not None:
            obj.name = name
        return obj
    if _is_torch_module(obj):
        return ModuleAgent(obj, name)
    if callable(obj):
        return CallableAgent(obj, name)
    raise TypeError(
        "an agent must have .act(obs, mask, view), be a torch module or a callable "
        f"policy(obs_dict) -> action; got {type(obj).__name__}"
    )
