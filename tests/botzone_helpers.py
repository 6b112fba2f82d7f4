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


# A bot that knows nothing of mcr_env: simple I/O, keeps its own tiles, discards its
# rightmost tile (by code), passes everything else. "--once": one process per turn (replays
# the history it is given); otherwise keep-running.
TINY_BOT = r"""
import sys

KEEP = ">>>BOTZONE_REQUEST_KEEP_RUNNING<<<"


class Tiny:
    def __init__(self):
        self.seat, self.hand = -1, []

    def answer(self, line, reply=None):
        t = line.split()
        if t[0] == "0":
            self.seat = int(t[1])
        elif t[0] == "1":
            self.hand = t[5:18]
        elif t[0] == "2":
            self.hand.append(t[1])
            self.hand.sort()
            out = reply if reply is not None else "PLAY " + self.hand[-1]
            self.hand.remove(out.split()[1])
            return out
        return "PASS"


def main():
    once = "--once" in sys.argv
    bot = Tiny()
    lines = (x.strip() for x in sys.stdin)
    lines = (x for x in lines if x)
    n = int(next(lines))
    hist = [next(lines) for _ in range(2 * n - 1)]
    for q, r in zip(hist[0::2], hist[1::2]):
        bot.answer(q, r)
    print(bot.answer(hist[-1]))
    if once:
        return
    print(KEEP)
    sys.stdout.flush()
    for line in lines:
        print(bot.answer(line))
        print(KEEP)
        sys.stdout.flush()


main()
"""
