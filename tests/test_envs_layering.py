"""docs/design.md layers: tiles -> scoring -> engine -> encoding -> envs -> baselines / scripts.

Every import inside ``mcr_env`` (module level or inside functions) must point to the same or a
lower layer; ``mcr_env.botzone`` sits with the envs (it reads the engine and the encoders);
``mcr_env.eval`` and ``mcr_env.play`` sit with the baselines (they run agents) and may import
anything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import mcr_env

ROOT = Path(mcr_env.__file__).parent

# layer rank of each top-level part of the package (higher may import lower, never the reverse)
RANK = {
    "mcr_env.tiles": 0,
    "mcr_env.scoring": 1,
    "mcr_env.engine": 2,
    "mcr_env.encoding": 3,
    "mcr_env.rewards": 4,
    "mcr_env.envs": 4,
    "mcr_env.pettingzoo": 4,
    "mcr_env.botzone": 4,  # reads the engine and the encoders (docs/design.md "Layers")
    "mcr_env.eval": 5,
    "mcr_env.play": 5,
    "baselines": 5,
}


def _rank(module: str) -> int | None:
    for prefix, r in RANK.items():
        if module == prefix or module.startswith(prefix + "."):
            return r
    return None


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
            out += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
    return out


def test_no_upward_imports():
    bad = []
    for path in sorted(ROOT.rglob("*.py")):
        mod = "mcr_env." + ".".join(path.relative_to(ROOT).with_suffix("").parts)
        mod = mod.removesuffix(".__init__")
        own = _rank(mod)
        if own is None:
            continue
        for line, target in _imports(path):
            r = _rank(target)
            if r is not None and r > own:
                bad.append(f"{path.relative_to(ROOT.parent)}:{line} imports {target}")
    assert not bad, "upward imports:\n" + "\n".join(bad)


def test_seat_view_lives_in_encoding_and_eval_reexports_it():
    from mcr_env.encoding.seat_view import SeatView
    from mcr_env.eval.seat_view import SeatView as EvalSeatView

    assert EvalSeatView is SeatView


def test_needs_view_opponents_get_their_own_seat_view():
    import numpy as np

    from mcr_env.encoding.seat_view import SeatView
    from mcr_env.envs.gym_env import MCREnv

    seen = []

    class ViewAgent:
        needs_obs = False
        needs_view = True

        def act(self, obs, mask, view):
            assert obs is None and isinstance(view, SeatView)
            assert view.hand.shape == (mask.shape[0], 34)
            assert (view.hand.sum(axis=1) + 3 * (view.meld_kind > 0).sum(axis=1) >= 13).all()
            seen.append(view.hand.copy())
            return mask.argmax(axis=1)

    env = MCREnv(opponents=ViewAgent())
    obs, _ = env.reset(seed=2)
    for _ in range(40):
        obs, _, term, _, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        if term:
            break
    assert seen
