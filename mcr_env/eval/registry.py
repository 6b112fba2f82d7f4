"""Agent specs (``"random"``, ``"rule"``, ``"path/ckpt.pt"``, ...) resolved through a registry.

:mod:`mcr_env` does not import the packages that define agents (docs/design.md: baselines sit above
the library). They register factories instead: :func:`register_agent` directly, or as an
installed plugin, an entry point of group :data:`mcr_env.envs.common.AGENT_SPEC_GROUP`
(``mcr_env.agent_specs``, the group the envs' opponent specs use) whose object is a factory
``factory(spec, seed) -> agent`` raising :class:`UnknownAgentSpec` (a ValueError) for specs
it does not know (``baselines`` declares ``baselines.agents:make_agent`` in pyproject.toml).
:func:`make_agent` tries the registered specs first, then the plugin factories; a plugin's
other errors (a broken checkpoint it recognised) are reported as that plugin's, not as an
unknown spec.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mcr_env.envs.common import UnknownAgentSpec

__all__ = ["UnknownAgentSpec", "make_agent", "register_agent", "registered_specs"]

Factory = Callable[[str, int], Any]
"""``factory(spec, seed) -> agent``."""

_EXACT: dict[str, Factory] = {}
_SUFFIX: dict[str, Factory] = {}


def register_agent(spec: str, factory: Factory, *, suffix: bool = False) -> None:
    """Register ``factory`` for the spec ``spec`` (or, with ``suffix``, for every spec ending
    in it, e.g. ``".pt"``). A later registration of the same spec replaces the earlier one.

    Raises:
        TypeError: ``spec`` is not a str.
        ValueError: an empty spec.
    """
    if not isinstance(spec, str):
        raise TypeError(f"spec must be a non-empty string, got {type(spec).__name__} {spec!r}")
    if not spec:
        raise ValueError("spec must be a non-empty string, got ''")
    (_SUFFIX if suffix else _EXACT)[spec] = factory


def _plugins() -> list:
    from importlib.metadata import entry_points

    from mcr_env.envs.common import AGENT_SPEC_GROUP

    return list(entry_points(group=AGENT_SPEC_GROUP))


def _lookup(spec: str) -> Factory | None:
    if spec in _EXACT:
        return _EXACT[spec]
    for suf, f in _SUFFIX.items():
        if spec.endswith(suf):
            return f
    return None


def registered_specs() -> list[str]:
    """The registered specs (suffix specs as ``*<suffix>``) and the plugin factories (as
    ``plugin:<name>``)."""
    plugins = [f"plugin:{ep.name}" for ep in _plugins()]
    return sorted(_EXACT) + [f"*{s}" for s in sorted(_SUFFIX)] + plugins


def make_agent(spec: str, seed: int = 0) -> Any:
    """Build the agent of ``spec`` seeded with ``seed``.

    Raises:
        TypeError / ValueError: ``seed`` is not an int >= 0 (agents seed numpy generators).
        UnknownAgentSpec (a ValueError): no factory knows ``spec`` (the message lists the
            valid specs).
        ValueError: a plugin factory recognised ``spec`` but could not build it (the message
            names the plugin).
        Whatever the factory raises (e.g. FileNotFoundError for a missing checkpoint).
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    factory = _lookup(spec)
    if factory is not None:
        return factory(spec, int(seed))
    unknown = []
    for ep in _plugins():
        try:
            return ep.load()(spec, int(seed))
        except UnknownAgentSpec as e:
            unknown.append(f"{ep.name}: {e}")
        except ValueError as e:  # the plugin knows the spec, building it failed
            raise ValueError(f"{ep.name}: {e}") from e
    known = ", ".join(sorted(_EXACT) + [f"*{s}" for s in sorted(_SUFFIX)]) or "none registered"
    raise UnknownAgentSpec(
        f"unknown agent spec {spec!r}; registered: {known}"
        + (f"; plugins: {'; '.join(unknown)}" if unknown else "")
    )
