"""Pack a policy checkpoint as a Botzone submission: a zip whose forward pass needs only numpy.

:func:`policy_arrays` turns a :class:`baselines.network.PolicyValueNet` (eval mode) into the
arrays of :class:`mcr_env.botzone.numpy_policy.NumpyPolicyAgent`, each batch norm folded into
the convolution before it (``w' = w * g / sqrt(v + eps)``, ``b' = beta - m * g / sqrt(v +
eps)``). :func:`export_submission` writes the zip: ``__main__.py``
(:mod:`mcr_env.botzone.submission`), ``weights.npz``, and the mcr_env packages a bot needs
(tiles, scoring, engine, encoding, botzone) under a stub ``mcr_env/__init__.py`` that does not
import gymnasium, and a stand-in ``numba`` whose ``njit`` leaves the engine's kernels as plain
Python (:data:`NUMBA_STAND_IN`), so ``python bot.zip`` runs with numpy alone, on Python 3.6+
(the packed sources are rewritten for 3.6 by :mod:`baselines.botzone_py36`). The value head is
left out (a bot does not need it).
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np

PACKAGES = ("scoring", "engine", "encoding", "botzone")
"""mcr_env subpackages copied into the zip (with the top-level :data:`MODULES`)."""

MODULES = ("tiles.py", "_checks.py")
"""mcr_env top-level modules the packed subpackages import."""

_STUB = '"""mcr-env, the parts a Botzone bot needs (exported submission)."""\n'

NUMBA_STAND_IN = '''"""Stand-in for numba in an exported Botzone bot (Botzone has numpy, not numba).

``njit`` returns the function unchanged, so the engine's compiled kernels
(mcr_env.engine.kernels and the other ``@njit`` functions) run as the plain Python they are
written in: the same rules and masks, slower, which one table at a time can afford.
"""


def njit(*args, **kwargs):
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda func: func
'''
"""``numba/__init__.py`` of the exported zip (:data:`NUMBA_STAND_IN` replaces ``@njit``)."""


def _fold(conv, bn) -> tuple[np.ndarray, np.ndarray]:
    """(weight, bias) of ``bn(conv(x))`` as one convolution (eval-mode batch norm)."""
    w = conv.weight.detach().double().numpy()
    b = conv.bias.detach().double().numpy() if conv.bias is not None else np.zeros(w.shape[0])
    g = bn.weight.detach().double().numpy()
    beta = bn.bias.detach().double().numpy()
    m = bn.running_mean.detach().double().numpy()
    v = bn.running_var.detach().double().numpy()
    s = g / np.sqrt(v + bn.eps)
    return (w * s[:, None, None]).astype(np.float32), ((b - m) * s + beta).astype(np.float32)


def policy_arrays(net) -> dict[str, np.ndarray]:
    """Arrays of the policy path of ``net`` (a ``PolicyValueNet``), batch norm folded.

    Returns:
        dict of float32 arrays named as in :mod:`mcr_env.botzone.numpy_policy`.
    """
    out: dict[str, np.ndarray] = {"in_channels": np.array(net.in_channels)}
    out["stem_w"], out["stem_b"] = _fold(net.stem[0], net.stem[1])
    for i, blk in enumerate(net.trunk):
        out[f"block{i}_w1"], out[f"block{i}_b1"] = _fold(blk.conv1, blk.bn1)
        out[f"block{i}_w2"], out[f"block{i}_b2"] = _fold(blk.conv2, blk.bn2)
    conv = net.policy_conv[0]
    out["policy_w"] = conv.weight.detach().numpy().astype(np.float32)
    out["policy_b"] = conv.bias.detach().numpy().astype(np.float32)
    fc = net.policy_fc
    out["fc_w"] = fc.weight.detach().numpy().astype(np.float32)
    out["fc_b"] = fc.bias.detach().numpy().astype(np.float32)
    return out


PYTHON_TARGETS = ("3.6", "3.7")
"""Oldest Pythons an export can target: ``3.6`` (Botzone's; packs the dataclasses backport) or
``3.7`` (no backport). The packed sources are rewritten for 3.6 either way
(:func:`baselines.botzone_py36.downgrade_source`)."""


def export_submission(checkpoint, out: str | Path, python: str = "3.6") -> Path:
    """Write the Botzone submission zip of a checkpoint.

    Args:
        checkpoint: path of a ``baselines.network`` checkpoint, or a ``PolicyValueNet``.
        out: path of the zip to write (parent folders are created).
        python: the oldest Python the bot must run on, one of :data:`PYTHON_TARGETS`; ``"3.6"``
            (Botzone's) adds the dataclasses backport under ``_compat36/``
            (:mod:`baselines.botzone_py36`).

    Returns:
        the zip path.

    Raises:
        FileNotFoundError / ValueError: from :func:`baselines.network.load_checkpoint`; a net
            whose encoder is not ``planes-v0`` (the bot encodes planes-v0); ``python`` not one
            of :data:`PYTHON_TARGETS`.
        RuntimeError: ``python="3.6"`` and the backport is neither cached nor fetchable.
    """
    import mcr_env
    from baselines.botzone_py36 import COMPAT36_DIR, dataclasses_backport, downgrade_source

    if python not in PYTHON_TARGETS:
        raise ValueError(f"python must be one of {PYTHON_TARGETS}, got {python!r}")

    if isinstance(checkpoint, (str, Path)):
        from baselines.network import load_checkpoint

        net, _ = load_checkpoint(checkpoint)
    else:
        net = checkpoint.eval()
    if getattr(net, "encoder", "planes-v0") != "planes-v0":
        raise ValueError(f"the bot encodes planes-v0 observations, the net uses {net.encoder!r}")
    root = Path(mcr_env.__file__).resolve().parent
    buf = io.BytesIO()
    np.savez(buf, **policy_arrays(net))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    backport = dataclasses_backport() if python == "3.6" else None

    def put(src: Path, name: str) -> None:
        z.writestr(name, downgrade_source(src.read_text(encoding="utf-8"), str(src)))

    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        put(root / "botzone" / "submission.py", "__main__.py")
        z.writestr("weights.npz", buf.getvalue())
        z.writestr("mcr_env/__init__.py", _STUB)
        z.writestr("numba/__init__.py", NUMBA_STAND_IN)
        if backport is not None:
            z.writestr(f"{COMPAT36_DIR}/dataclasses.py", backport)
        for name in MODULES:
            put(root / name, f"mcr_env/{name}")
        for pkg in PACKAGES:
            for f in sorted((root / pkg).rglob("*.py")):
                put(f, f"mcr_env/{f.relative_to(root).as_posix()}")
    return out
