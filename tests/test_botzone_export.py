"""The exported Botzone submission: a zip that plays with numpy alone, in a fresh venv without
torch, and answers as the torch policy does on the same observations."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
import zipfile

import numpy as np
import pytest
import torch

from baselines.botzone_export import export_submission, policy_arrays
from baselines.config import NetworkConfig
from baselines.network import PolicyValueNet, save_checkpoint
from mcr_env.botzone.bot import BOTZONE_RULES
from mcr_env.botzone.numpy_policy import NumpyPolicyAgent
from mcr_env.encoding import get_encoder
from mcr_env.engine import MCREngine

GAMES = 100


def _net(channels=16, blocks=2, seed=0) -> PolicyValueNet:
    """A small net with non-trivial batch-norm statistics (so folding is exercised)."""
    torch.manual_seed(seed)
    net = PolicyValueNet(get_encoder("planes-v0").num_channels, NetworkConfig(channels, blocks, 32))
    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm1d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)
    return net.eval()


def test_numpy_logits_equal_torch_logits():
    net = _net(channels=8, blocks=3, seed=1)
    obs = np.random.default_rng(0).integers(0, 2, size=(64, net.in_channels, 34)).astype(np.float32)
    with torch.no_grad():
        want, _ = net(torch.from_numpy(obs))
    got = NumpyPolicyAgent(policy_arrays(net)).logits(obs)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="obs must be"):
        NumpyPolicyAgent(policy_arrays(net)).logits(obs[:, :5])


DRIVER = textwrap.dedent(
    """
    import importlib.util, json, sys, time
    import numpy as np
    zip_path, out_path, games = sys.argv[1], sys.argv[2], int(sys.argv[3])
    sys.path.insert(0, zip_path)
    t0 = time.perf_counter()
    from mcr_env.botzone.bot import BOTZONE_RULES, BotzoneBot
    from mcr_env.botzone.judge import play_through_protocol
    from mcr_env.botzone.numpy_policy import NumpyPolicyAgent
    from mcr_env.engine import MCREngine
    import zipfile, io
    with zipfile.ZipFile(zip_path) as z:
        w = dict(np.load(io.BytesIO(z.read("weights.npz"))))
    agent = NumpyPolicyAgent(w)
    startup = time.perf_counter() - t0
    eng = MCREngine(games, BOTZONE_RULES)
    eng.reset(seed=11)
    walls = eng.state.wall.copy()
    steps = []  # (to_act, legal_mask packed, actions) before every step of the judge engine
    step = eng.step
    def recording_step(acts, games=None):
        steps.append((eng.to_act.copy(), np.packbits(eng.legal_mask, axis=2), acts.copy()))
        step(acts, games)
    eng.step = recording_step
    bots = [[BotzoneBot(agent, record=True) for s in range(4)] for g in range(games)]
    times = []
    def respond(g, s, line):
        t = time.perf_counter()
        r = bots[g][s].respond(line)
        if r != "PASS":
            times.append(time.perf_counter() - t)
        return r
    play_through_protocol(eng, respond)
    enc = bots[0][0].encoder
    obs, masks, acts = [], [], []
    for row in bots:
        for bot in row:
            for st, m, a in bot.decisions:
                obs.append(enc.encode(st, np.array([0]), np.array([bot.tracker.seat]))[0])
                masks.append(m)
                acts.append(a)
    np.savez(
        out_path, obs=np.stack(obs), mask=np.stack(masks), act=np.array(acts), walls=walls,
        step_to_act=np.stack([x[0] for x in steps]), step_mask=np.stack([x[1] for x in steps]),
        step_actions=np.stack([x[2] for x in steps]),
        settlement=np.stack([r.settlement for r in eng.last_hand_result]),
    )
    print(json.dumps({
        "torch": importlib.util.find_spec("torch") is not None,
        "modules": sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "gymnasium")),
        "numba": sys.modules["numba"].__file__.startswith(zip_path),
        "games": int(eng.terminated.sum()), "decisions": len(acts), "startup_s": startup,
        "decision_ms_mean": 1e3 * float(np.mean(times)),
        "decision_ms_max": 1e3 * float(np.max(times)),
    }))
    """
)


def _venv(tmp_path_factory, numpy_requirement: str):
    """A venv with numpy only (pip; from the wheel cache when the version was fetched before)."""
    d = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(d)], check=True)
    py = d / "bin" / "python"
    subprocess.run(
        [
            str(py),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            numpy_requirement,
        ],
        check=True,
    )
    return py


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory):
    """A venv with numpy only, the numpy version in use."""
    return _venv(tmp_path_factory, f"numpy=={np.__version__}")


NUMPY_1X = "numpy==1.26.4"
"""The last numpy 1.x: its casting rules (value-based scalar promotion, NEP 50 not yet) are the
ones of the numpy 1.19 a Python 3.6 Botzone machine has (no numpy 1.19 wheel exists for the
Python this project runs on)."""


@pytest.fixture(scope="module")
def numpy1_venv(tmp_path_factory):
    """A venv with numpy 1.x only (:data:`NUMPY_1X`)."""
    return _venv(tmp_path_factory, NUMPY_1X)


def _play_and_check(py, zpath, net, games: int, tmp_path) -> dict:
    """Play ``games`` games in venv ``py`` with every seat the exported bot ``zpath``; check its
    actions equal the torch policy's and its plain-Python engine the compiled engine's."""
    dump = tmp_path / "decisions.npz"
    res = subprocess.run(
        # a RuntimeWarning is an error: numpy scalar arithmetic that overflows (the bot's
        # kernels run as plain Python) warned on stderr of a Botzone bot before
        [str(py), "-W", "error::RuntimeWarning", "-c", DRIVER, str(zpath), str(dump), str(games)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr
    info = json.loads(res.stdout.strip().splitlines()[-1])
    assert info["torch"] is False and info["modules"] == []
    assert info["numba"] is True  # the zip's stand-in: the kernels ran as plain Python
    assert info["games"] == games
    assert info["decisions"] > 20 * games
    assert info["startup_s"] < 5  # < 1 s on an idle core; see scripts/bench_botzone.py
    data = np.load(dump)
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(data["obs"]), torch.from_numpy(data["mask"]))
    np.testing.assert_array_equal(logits.argmax(dim=1).numpy(), data["act"])
    # the plain-Python kernels of the venv played exactly the compiled engine's games: same
    # seeded walls, the same to_act and masks before every step, the same settlements
    eng = MCREngine(games, BOTZONE_RULES)
    eng.reset(seed=11)
    np.testing.assert_array_equal(eng.state.wall, data["walls"])
    for k in range(len(data["step_actions"])):
        np.testing.assert_array_equal(eng.to_act, data["step_to_act"][k])
        np.testing.assert_array_equal(np.packbits(eng.legal_mask, axis=2), data["step_mask"][k])
        eng.step(data["step_actions"][k])
    assert eng.terminated.all()
    got = np.stack([r.settlement for r in eng.last_hand_result])
    np.testing.assert_array_equal(got, data["settlement"])
    return info


def test_exported_zip_plays_in_a_fresh_venv_as_the_torch_policy(tmp_path, fresh_venv):
    net = _net()
    ckpt = save_checkpoint(net, tmp_path / "p.pt")
    zpath = export_submission(ckpt, tmp_path / "bot.zip")
    names = zipfile.ZipFile(zpath).namelist()
    assert "__main__.py" in names and "weights.npz" in names
    assert "mcr_env/__init__.py" in names and "mcr_env/botzone/bot.py" in names
    assert not any(n.startswith(("mcr_env/envs", "baselines")) for n in names)
    # the bot itself: one request on stdin, one answer (start-up time included)
    t = time.perf_counter()
    out = subprocess.run(
        [str(fresh_venv), "-W", "error::RuntimeWarning", str(zpath), "--once"],
        input="1\n0 2 1\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    wall = time.perf_counter() - t
    assert out.returncode == 0, out.stderr
    assert out.stdout == "PASS\n"
    assert wall < 10  # generous: the machine is shared; the driver below measures the import
    # 100 games, every seat the exported bot, in the venv
    _play_and_check(fresh_venv, zpath, net, GAMES, tmp_path)


def test_exported_zip_plays_on_numpy_1x(tmp_path, numpy1_venv):
    """The same check on numpy 1.x (a Botzone machine's numpy is 1.x), fewer games."""
    out = subprocess.run(
        [str(numpy1_venv), "-c", "import numpy; print(numpy.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == NUMPY_1X.split("==")[1]
    net = _net(seed=3)
    zpath = export_submission(net, tmp_path / "bot.zip")
    _play_and_check(numpy1_venv, zpath, net, 16, tmp_path)
