"""Argument checks shared by the public functions: a value of the wrong type is a TypeError, a
value of the right type outside its range a ValueError, both naming the argument.

Imports numpy only, so every layer may use it (tiles, scoring, engine, envs, eval, play).
"""

from __future__ import annotations

import numpy as np


def check_int(
    value: object, name: str, lo: int | None = None, hi: int | None = None, what: str = ""
) -> int:
    """``int(value)`` for a Python or numpy integer (not a bool) in ``lo..hi``.

    Args:
        value: the argument.
        name: its name in the messages (``"seat"``, ``"walls"``).
        lo, hi: inclusive bounds; ``None`` = unbounded.
        what: how the messages describe the allowed values (default ``"an int lo..hi"``,
            ``"an int >= lo"``...), e.g. ``"a seat 0..3"``.

    Raises:
        TypeError: ``value`` is not an integer (a bool is not one): ``"{name} must be {what},
            got {type} {value!r}"``.
        ValueError: outside ``lo..hi``: ``"{name} must be {what}, got {value}"``.
    """
    if not what:
        if lo is not None and hi is not None:
            what = f"an int {lo}..{hi}"
        elif lo is not None:
            what = f"an int >= {lo}"
        elif hi is not None:
            what = f"an int <= {hi}"
        else:
            what = "an int"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be {what}, got {type(value).__name__} {value!r}")
    x = int(value)
    if (lo is not None and x < lo) or (hi is not None and x > hi):
        raise ValueError(f"{name} must be {what}, got {x}")
    return x
