"""Python 3.6 sources for an exported Botzone submission (Botzone runs bots on Python 3.6).

mcr-env itself needs Python 3.10+; the modules a bot packs (tiles, scoring, engine, encoding,
botzone) use a few newer features, all of which :func:`downgrade_source` rewrites on the way into
the zip, from the syntax tree (``ast``), without changing what the code does:

========================================  ===================================================
feature (first Python)                    rewritten as
========================================  ===================================================
``from __future__ import annotations``    removed, and every annotation (arguments, returns,
(3.7) with ``X | None``, ``list[int]``    variables, dataclass fields) becomes the string of
annotations (3.9/3.10)                    its source, which Python 3.6 stores unevaluated
``functools.cache`` (3.9)                 ``functools.lru_cache(maxsize=None)`` (the same
                                          unbounded cache)
``zip(..., strict=True)`` (3.10)          ``zip(...)``: the length check only catches a bug
                                          the tests would have caught first
``n.bit_count()`` (3.10)                  ``bin(n).count("1")``
``@dataclass(..., slots=True)`` (3.10)    ``@dataclass(...)``: instances keep a ``__dict__``;
                                          fields, equality, hashing and frozenness are the same
========================================  ===================================================

Dataclasses (3.7) are the one thing rewriting cannot give 3.6: the zip carries the standard
library's own backport (PyPI ``dataclasses==0.8``, the module Python 3.7 added, released for
3.6 by its author) under ``_compat36/``, which the submission puts on ``sys.path`` on Python
3.6 only (:func:`dataclasses_backport` fetches the wheel with pip once and caches it).

The packed sources are checked by ``tests/test_botzone_export.py``: every file parses with
Python's own parser in its 3.6 grammar (``ast.parse(..., feature_version=(3, 6))``), and vermin
(the minimum-version detector) finds nothing that needs more than 3.6 once the backport is
counted. No 3.6 interpreter is reachable from the machines this project is built on (Debian 13
and PyPI ship none), so that static check and the numpy-only run of the rewritten sources on the
current Python are the evidence.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

DATACLASSES_BACKPORT = "dataclasses==0.8"
"""The pip requirement of the dataclasses backport packed for Python 3.6."""

COMPAT36_DIR = "_compat36"
"""Folder of the zip that holds the 3.6-only modules (``dataclasses.py``)."""


class _Downgrade(ast.NodeTransformer):
    """The rewrites of :func:`downgrade_source` (module docstring's table)."""

    # -- __future__ and annotations -------------------------------------------------------
    def visit_ImportFrom(self, node: ast.ImportFrom):
        if node.module == "__future__":
            node.names = [a for a in node.names if a.name != "annotations"]
            return node if node.names else None
        if node.module == "functools" and any(a.name == "cache" for a in node.names):
            out: list[ast.stmt] = []
            keep = [a for a in node.names if a.name != "cache"]
            if keep:
                out.append(ast.ImportFrom(module="functools", names=keep, level=0))
            out.append(
                ast.ImportFrom(
                    module="functools",
                    names=[ast.alias(name="lru_cache", asname="_lru_cache_py36")],
                    level=0,
                )
            )
            for a in node.names:
                if a.name == "cache":
                    out.append(
                        ast.Assign(
                            targets=[ast.Name(id=a.asname or "cache", ctx=ast.Store())],
                            value=_lru_cache_call(ast.Name(id="_lru_cache_py36", ctx=ast.Load())),
                        )
                    )
            return out
        return node

    def _stringify(self, ann: ast.expr | None) -> ast.expr | None:
        if ann is None or (isinstance(ann, ast.Constant) and isinstance(ann.value, str)):
            return ann
        return ast.Constant(value=ast.unparse(ann))

    def _function(self, node):
        a = node.args
        for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
            if arg is not None:
                arg.annotation = self._stringify(arg.annotation)
        node.returns = self._stringify(node.returns)
        self.generic_visit(node)
        return node

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_AnnAssign(self, node: ast.AnnAssign):
        node.annotation = self._stringify(node.annotation)
        if node.value is not None:
            node.value = self.visit(node.value)
        return node

    # -- calls: zip(strict=), dataclass(slots=), n.bit_count(), functools.cache --------
    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Name) and f.id == "zip":
            node.keywords = [k for k in node.keywords if k.arg != "strict"]
        elif (isinstance(f, ast.Name) and f.id == "dataclass") or (
            isinstance(f, ast.Attribute) and f.attr == "dataclass"
        ):
            node.keywords = [k for k in node.keywords if k.arg != "slots"]
        elif isinstance(f, ast.Attribute) and f.attr == "bit_count" and not node.args:
            return ast.Call(
                func=ast.Attribute(
                    value=ast.Call(
                        func=ast.Name(id="bin", ctx=ast.Load()), args=[f.value], keywords=[]
                    ),
                    attr="count",
                    ctx=ast.Load(),
                ),
                args=[ast.Constant(value="1")],
                keywords=[],
            )
        return node

    def visit_Attribute(self, node: ast.Attribute):
        self.generic_visit(node)
        if (
            node.attr == "cache"
            and isinstance(node.value, ast.Name)
            and node.value.id == "functools"
            and isinstance(node.ctx, ast.Load)
        ):
            return _lru_cache_call(
                ast.Attribute(value=node.value, attr="lru_cache", ctx=ast.Load())
            )
        return node


def _lru_cache_call(func: ast.expr) -> ast.Call:
    """``func(maxsize=None)``: the unbounded cache ``functools.cache`` is."""
    return ast.Call(
        func=func, args=[], keywords=[ast.keyword(arg="maxsize", value=ast.Constant(value=None))]
    )


def downgrade_source(source: str, filename: str = "<source>") -> str:
    """``source`` rewritten to run on Python 3.6 (module docstring's table).

    Args:
        source: the text of a Python 3.10+ module.
        filename: its name, for error messages.

    Returns:
        the rewritten module text (``ast.unparse``: comments are dropped, docstrings kept).

    Raises:
        SyntaxError: ``source`` does not parse on this Python (the message names ``filename``).
    """
    tree = ast.parse(source, filename=filename)
    tree = _Downgrade().visit(tree)
    ast.fix_missing_locations(tree)
    return ast.unparse(tree) + "\n"


def dataclasses_backport(cache_dir: str | os.PathLike | None = None) -> bytes:
    """The text (bytes) of ``dataclasses.py`` of :data:`DATACLASSES_BACKPORT`.

    The wheel is fetched once with pip (``pip download --python-version 3.6``) into
    ``cache_dir`` (default ``$XDG_CACHE_HOME/mcr-env`` or ``~/.cache/mcr-env``) and read from
    there afterwards.

    Raises:
        RuntimeError: the wheel is not cached and pip cannot fetch it (no network); the message
            says how to export for Python 3.7+ instead, which needs no backport.
    """
    if cache_dir is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        cache_dir = os.path.join(base, "mcr-env")
    cache = Path(cache_dir)
    wheels = sorted(cache.glob("dataclasses-0.8-*.whl"))
    if not wheels:
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=cache) as tmp:
            res = subprocess.run(
                [
                    sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                    "--disable-pip-version-check", "--only-binary=:all:",
                    "--python-version", "3.6", "--dest", tmp, DATACLASSES_BACKPORT,
                ],
                capture_output=True,
                text=True,
            )  # fmt: skip
            got = sorted(Path(tmp).glob("dataclasses-0.8-*.whl"))
            if res.returncode != 0 or not got:
                raise RuntimeError(
                    f"cannot fetch {DATACLASSES_BACKPORT} (the dataclasses backport a Python 3.6 "
                    f"bot needs) with pip: {res.stderr.strip()[-300:]}; export with "
                    "--python 3.7 for a bot that runs on Python 3.7+ without it"
                )
            os.replace(got[0], cache / got[0].name)
        wheels = sorted(cache.glob("dataclasses-0.8-*.whl"))
    with zipfile.ZipFile(wheels[0]) as z:
        return z.read("dataclasses.py")
