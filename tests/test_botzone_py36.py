"""The exported Botzone submission targets Python 3.6 (Botzone's): the rewrite of the packed
sources (baselines/botzone_py36.py) and static checks of the whole zip against 3.6.

No Python 3.6 interpreter is reachable on this project's machines, so the zip is checked with
Python's own parser in its 3.6 grammar and with vermin (the minimum-version detector); the
rewritten sources are run for real, numpy only, by tests/test_botzone_export.py.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from baselines.botzone_export import export_submission
from baselines.botzone_py36 import COMPAT36_DIR, downgrade_source
from baselines.config import NetworkConfig
from baselines.network import PolicyValueNet
from mcr_env.encoding import get_encoder

VERMIN = str(Path(sys.executable).with_name("vermin"))
"""vermin's command in this venv (the ``dev`` extra installs it)."""

SOURCE = """from __future__ import annotations
import functools
from functools import cache, reduce
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class A:
    x: int | None = None  # a comment
    y: list[int] = None


def f(a: dict[str, int], *b: int, c: tuple[int, ...] = (), **d) -> set[int]:
    v: list[int] = [n.bit_count() for n in a.values()]
    return set(x for x, y in zip(v, v, strict=True))


@functools.cache
def g():
    return 1


@cache
def h():
    return 2
"""

EXPECTED = """import functools
from functools import reduce
from functools import lru_cache as _lru_cache_py36
cache = _lru_cache_py36(maxsize=None)
from dataclasses import dataclass

@dataclass(frozen=True)
class A:
    x: 'int | None' = None
    y: 'list[int]' = None

def f(a: 'dict[str, int]', *b: 'int', c: 'tuple[int, ...]'=(), **d) -> 'set[int]':
    v: 'list[int]' = [bin(n).count('1') for n in a.values()]
    return set((x for x, y in zip(v, v)))

@functools.lru_cache(maxsize=None)
def g():
    return 1

@cache
def h():
    return 2
"""


def test_downgrade_source_exact_rewrite():
    assert downgrade_source(SOURCE) == EXPECTED


def test_downgraded_source_behaves_the_same():
    ns_old: dict = {}
    ns_new: dict = {}
    # dont_inherit: this test module's own `from __future__ import annotations` must not leak in
    exec(compile(SOURCE, "old", "exec", dont_inherit=True), ns_old)
    exec(compile(downgrade_source(SOURCE), "new", "exec", dont_inherit=True), ns_new)
    arg = {"a": 7, "b": 255, "c": 1 << 40}
    assert ns_new["f"](arg) == ns_old["f"](arg) == {3, 8, 1}
    assert ns_new["g"]() == 1 and ns_new["h"]() == 2
    assert ns_new["g"].cache_info().maxsize is None  # unbounded, as functools.cache
    assert ns_new["A"](x=3) == ns_new["A"](x=3) != ns_new["A"](x=4)  # dataclass __eq__
    assert repr(ns_new["A"](x=3)) == repr(ns_old["A"](x=3)) == "A(x=3, y=None)"
    assert ns_new["A"].__annotations__ == {"x": "int | None", "y": "list[int]"}
    with pytest.raises(Exception, match="cannot assign"):
        ns_new["A"]().x = 1  # still frozen


def test_downgrade_source_names_the_file_on_a_syntax_error():
    with pytest.raises(SyntaxError) as e:
        downgrade_source("def f(:\n", "bad_module.py")
    assert e.value.filename == "bad_module.py"


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    d = tmp_path_factory.mktemp("py36")
    net = PolicyValueNet(get_encoder("planes-v0").num_channels, NetworkConfig(8, 1, 16)).eval()
    zpath = export_submission(net, d / "bot.zip")
    out = d / "unzipped"
    with zipfile.ZipFile(zpath) as z:
        z.extractall(out)
    return zpath, out


def test_every_packed_file_parses_in_the_python_3_6_grammar(exported):
    _, root = exported
    files = sorted(root.rglob("*.py"))
    assert len(files) > 30
    names = {p.relative_to(root).as_posix() for p in files}
    assert f"{COMPAT36_DIR}/dataclasses.py" in names and "__main__.py" in names
    for p in files:
        src = p.read_text(encoding="utf-8")
        ast.parse(src, filename=str(p), feature_version=(3, 6))
        if not p.relative_to(root).as_posix().startswith(COMPAT36_DIR):
            assert "from __future__ import annotations" not in src, p
            assert ".bit_count()" not in src and "strict=" not in src, p


def test_vermin_finds_nothing_newer_than_python_3_6_in_the_zip(exported):
    _, root = exported
    res = subprocess.run(
        [
            VERMIN, "--no-tips", "--violations", "-t=3.6-",
            "--backport", "dataclasses", "--eval-annotations", str(root),
        ],
        capture_output=True,
        text=True,
    )  # fmt: skip
    assert res.returncode == 0, res.stdout + res.stderr
    m = re.search(r"Minimum required versions: (\S+)", res.stdout)
    assert m is not None, res.stdout
    assert tuple(int(x) for x in m.group(1).split(".")) <= (3, 6), res.stdout


def test_vermin_sees_the_features_in_the_unrewritten_sources():
    """The check above is not vacuous: on the library's own sources vermin reports 3.10."""
    path = importlib.util.find_spec("mcr_env.scoring.shanten").origin
    res = subprocess.run(
        [VERMIN, "--no-tips", "-t=3.6-", "--eval-annotations", path],
        capture_output=True,
        text=True,
    )
    assert res.returncode != 0
    assert "Minimum required versions: 3.9" in res.stdout or "3.10" in res.stdout, res.stdout


def test_python_target_is_checked(tmp_path):
    net = PolicyValueNet(get_encoder("planes-v0").num_channels, NetworkConfig(8, 1, 16)).eval()
    with pytest.raises(ValueError, match="python must be one of"):
        export_submission(net, tmp_path / "b.zip", python="2.7")
    z = export_submission(net, tmp_path / "b37.zip", python="3.7")
    assert not any(n.startswith(COMPAT36_DIR) for n in zipfile.ZipFile(z).namelist())
