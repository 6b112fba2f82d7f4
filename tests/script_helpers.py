"""Shared helper for the tests of ``scripts/`` and ``examples/`` (folders, not packages)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def load_script(name: str, folder: str = "scripts") -> ModuleType:
    """A fresh module of ``<repo>/<folder>/<name>.py``, run once on loading (its
    ``if __name__ == "__main__"`` block is not). As when it runs as ``python
    <folder>/<name>.py``, its folder is on ``sys.path`` (the bench scripts import
    ``bench_args`` and ``bench_engine``). It is registered in ``sys.modules`` as
    ``_<folder>_<name>`` (dataclasses and pickling look a module up there), a name no import
    of the project uses. Raises FileNotFoundError when the file does not exist."""
    path = ROOT / folder / f"{name}.py"
    if not path.is_file():
        raise FileNotFoundError(f"no script {path}")
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(f"_{folder}_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod
