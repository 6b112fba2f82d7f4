"""Agent specs (``"random"``, ``"rule"``, ``"path/ckpt.pt"``, ...) resolved through a registry.

:mod:`mcr_env` does not import the packages that define agents (DESIGN.md: baselines sit above
the library). They register factories instead: :func:`register_agent` directly, or as an
installed plugin, an entry point of group ``mcr_env.agents`` whose object is a function
``register(register_agent)`` (``baselines`` declares ``baselines.agents:register`` in
pyproject.toml). :func:`make_agent` loads the plugins the first time a spec is not found.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["make_agent", "register_agent", "registered_specs"]

Factory = Callable[[str, int], Any]
"""``factory(spec, seed) -> agent``."""

_EXACT: dict[str, Factory] = {}
_SUFFIX: dict[str, Factory] = {}
_plugins_loaded = False


def register_agent(spec: str, factory: Factory, *, suffix: bool = False) -> None:
    """Register ``factory`` for the spec ``spec`` (or, with ``suffix``, for every spec ending
    in it, e.g. ``".pt"``). A later registration of the same spec replaces the earlier one.

    Raises:
        ValueError: an empty spec.
    """
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"spec must be a non-empty string, got {spec!r}")
    (_SUFFIX if suffix else _EXACT)[spec] = factory


def _load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    from importlib.metadata import entry_points

    for ep in entry_points(group="mcr_env.agents"):
        ep.load()(register_agent)


def _lookup(spec: str) -> Factory | None:
    if spec in _EXACT:
        return _EXACT[spec]
    for suf, f in _SUFFIX.items():
        if spec.endswith(suf):
            return f
    return None


def registered_specs() -> list[str]:
    """The registered specs (suffix specs as ``*<suffix>``), plugins loaded."""
    _load_plugins()
    return sorted(_EXACT) + [f"*{s}" for s in sorted(_SUFFIX)]


def make_agent(spec: str, seed: int = 0) -> Any:
    """Build the agent of ``spec`` seeded with ``seed``.

    Raises:
        ValueError: no factory is registered for ``spec`` (the message lists the valid specs).
        Whatever the factory raises (e.g. FileNotFoundError for a missing checkpoint).
    """
    factory = _lookup(spec)
    if factory is None:
        _load_plugins()
        factory = _lookup(spec)
    if factory is None:
        raise ValueError(f"unknown agent spec {spec!r}; valid: {', '.join(registered_specs())}")
    return factory(spec, int(seed))
