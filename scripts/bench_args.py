"""argparse value types shared by the ``scripts/bench_*.py`` scripts: sizes, counts and
durations whose bad values are a one-line usage error (``argument --batch: must be >= 1, got
0``, exit status 2) instead of a traceback from inside the benchmark.

It imports nothing of the project (``bench_shanten.py`` times the first import of the
scorer).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def int_at_least(low: int) -> Callable[[str], int]:
    """An argparse ``type``: an int ``>= low``.

    Raises (from the returned parser):
        argparse.ArgumentTypeError: not an int, or below ``low`` (argparse reports it as
            ``argument --NAME: ...``).
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}, got {value}")
        return value

    parse.__name__ = f"int >= {low}"  # argparse names the type in some messages
    return parse


positive_int = int_at_least(1)
"""Batch sizes, game and hand counts, rounds, threads: an int >= 1."""

nonnegative_int = int_at_least(0)
"""Counts where 0 means none or off (warm-up steps, in-process workers): an int >= 0."""


def positive_float(text: str) -> float:
    """An argparse ``type``: a finite number > 0 (durations in seconds, rates).

    Raises:
        argparse.ArgumentTypeError: not a number, not finite, or <= 0.
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid float value: {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text}")
    return value
