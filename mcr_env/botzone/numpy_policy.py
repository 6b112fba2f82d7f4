"""A policy network's forward pass in numpy alone, for Botzone submissions without torch.

:class:`NumpyPolicyAgent` computes the policy logits of ``baselines.network.PolicyValueNet``
(residual 1-D CNN over the 34-tile axis) from a dict of arrays written by
``baselines.botzone_export.policy_arrays``, batch-norm already folded into the convolutions
(eval mode), and answers with the most probable legal action (greedy), as
``TorchPolicyAgent(greedy=True)`` does. Arrays (F feature maps, C input channels, A = 235):

===================== ============================= =========================================
key                   shape                         meaning
===================== ============================= =========================================
``stem_w``/``stem_b`` ``(F, C, 3)`` / ``(F,)``      first convolution (BN folded), then ReLU
``block{i}_w1``/``b1`` ``(F, F, 3)`` / ``(F,)``     residual block i, first conv (BN folded)
``block{i}_w2``/``b2`` ``(F, F, 3)`` / ``(F,)``     second conv (BN folded); ReLU(x + y)
``policy_w``/``b``    ``(8, F, 1)`` / ``(8,)``      1x1 convolution, then ReLU
``fc_w``/``fc_b``     ``(A, 8 * 34)`` / ``(A,)``    policy logits
``in_channels``       ``()``                        C (checked against the observations)
===================== ============================= =========================================
"""

from __future__ import annotations

import numpy as np

NUM_ACTIONS = 235


def _conv1d(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(N, C, L)`` input, ``(F, C, K)`` kernel (K odd, 'same' zero padding), ``(F,)`` bias ->
    ``(N, F, L)``."""
    n, c, length = x.shape
    f, _, k = w.shape
    pad = k // 2
    xp = np.zeros((n, c, length + 2 * pad), dtype=x.dtype)
    xp[:, :, pad : pad + length] = x
    # columns (N, L, C * K): column (c, j) is x[:, c, l + j - pad]
    cols = np.stack([xp[:, :, j : j + length] for j in range(k)], axis=3)  # (N, C, L, K)
    cols = cols.transpose(0, 2, 1, 3).reshape(n, length, c * k)
    out = cols @ w.reshape(f, c * k).T  # (N, L, F)
    return out.transpose(0, 2, 1) + b[None, :, None]


class NumpyPolicyAgent:
    """Greedy masked policy from numpy arrays (see the module docstring).

    Args:
        arrays: mapping of the arrays (e.g. ``np.load("weights.npz")``).
        name: agent name.

    Raises:
        KeyError: an array is missing.
    """

    needs_obs = True
    needs_view = False

    def __init__(self, arrays, name: str = "numpy-policy"):
        a = {k: np.asarray(arrays[k]) for k in arrays}
        self.in_channels = int(a["in_channels"])
        self.stem = (a["stem_w"].astype(np.float32), a["stem_b"].astype(np.float32))
        self.blocks = []
        i = 0
        while f"block{i}_w1" in a:
            self.blocks.append(
                tuple(a[f"block{i}_{k}"].astype(np.float32) for k in ("w1", "b1", "w2", "b2"))
            )
            i += 1
        self.policy = (a["policy_w"].astype(np.float32), a["policy_b"].astype(np.float32))
        self.fc = (a["fc_w"].astype(np.float32), a["fc_b"].astype(np.float32))
        self.name = name

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """``(N, C, 34) float32`` observations -> ``(N, 235) float32`` raw policy logits.

        Raises:
            ValueError: wrong observation shape.
        """
        x = np.asarray(obs, dtype=np.float32)
        if x.ndim != 3 or x.shape[1] != self.in_channels or x.shape[2] != 34:
            raise ValueError(f"obs must be (N, {self.in_channels}, 34), got {x.shape}")
        h = np.maximum(_conv1d(x, *self.stem), 0.0)
        for w1, b1, w2, b2 in self.blocks:
            y = np.maximum(_conv1d(h, w1, b1), 0.0)
            h = np.maximum(h + _conv1d(y, w2, b2), 0.0)
        p = np.maximum(_conv1d(h, *self.policy), 0.0)
        w, b = self.fc
        return p.reshape(p.shape[0], -1) @ w.T + b

    def act(self, obs, mask, view=None) -> np.ndarray:
        """``(N,) int64`` most probable legal action per row of ``mask (N, 235) bool``."""
        mask = np.asarray(mask, dtype=bool)
        if len(mask) == 0:
            return np.zeros(0, dtype=np.int64)
        lg = np.where(mask, self.logits(obs), -np.inf)
        return np.argmax(lg, axis=1).astype(np.int64)
