"""Helpers shared by the Botzone tests."""

from __future__ import annotations

import numpy as np


class Eager:
    """Hu > kongs > Peng > Chi when legal, else random: games full of claims and kongs."""

    needs_obs = False
    needs_view = False
    name = "eager"

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def act(self, obs, mask, view=None):
        out = np.zeros(mask.shape[0], dtype=np.int64)
        for i, m in enumerate(mask):
            ids = np.flatnonzero(m)
            for lo, hi in ((1, 2), (133, 235), (99, 133), (36, 99)):
                top = ids[(ids >= lo) & (ids < hi)]
                if top.size:
                    out[i] = self.rng.choice(top)
                    break
            else:
                out[i] = self.rng.choice(ids)
        return out
