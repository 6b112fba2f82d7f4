"""Batched uniform sampling of legal actions (random play: benchmarks, random agents, tests).

:func:`sample_legal_actions` draws, for every row of a legal-action mask, one of its legal
action ids uniformly at random, with one random integer per row (not one key per action): the
legal ids of each row are counted, one bounded integer per row is drawn (``rng.integers(0,
counts)``), then each row picks that one of its own ids (two small compiled loops).
"""

from __future__ import annotations

import numpy as np
from numba import njit


def sample_legal_actions(
    mask: np.ndarray, rng: np.random.Generator, acting: np.ndarray | None = None
) -> np.ndarray:
    """A uniformly random legal action for each row of ``mask``.

    Args:
        mask: ``(..., A) bool`` legal actions (e.g. the engine's ``legal_mask (B, 4, 235)`` or an
            agent's ``(N, 235)`` mask).
        rng: a ``numpy.random.Generator`` (advanced by one bounded integer draw per sampled
            row).
        acting: optional ``(...) bool`` (``mask.shape[:-1]``): sample only these rows (e.g. the
            engine's ``to_act``); faster when most rows are empty. Default: every row that has
            a legal action.

    Returns:
        ``(...) int64`` action ids; 0 for rows not sampled (not ``acting``) or without any legal
        action.

    Raises:
        TypeError: ``mask`` (or ``acting``) is not a bool array, ``rng`` not a Generator.
        ValueError: ``mask`` has no action axis, or ``acting`` has the wrong shape, or an
            ``acting`` row has no legal action.
    """
    if type(mask) is not np.ndarray:
        mask = np.asarray(mask)
    if mask.dtype != np.bool_:
        raise TypeError(f"mask must be a bool array, got dtype {mask.dtype}")
    if mask.ndim < 1 or mask.shape[-1] == 0:
        raise ValueError(f"mask must have shape (..., A) with A >= 1, got {mask.shape}")
    if type(rng) is not np.random.Generator and not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    lead = mask.shape[:-1]
    if not mask.flags.c_contiguous:
        mask = np.ascontiguousarray(mask)
    out = np.zeros(lead, dtype=np.int64)
    # rows[0]: the rows sampled (flat indices over ``lead``), rows[1]: their legal counts
    rows = np.empty((2, out.size), dtype=np.int64)
    if acting is None:
        n = _legal_rows(mask, rows)
    else:
        if type(acting) is not np.ndarray:
            acting = np.asarray(acting)
        if acting.dtype != np.bool_ or acting.shape != lead:
            raise ValueError(
                f"acting must be a {lead} bool array, got {acting.dtype} {acting.shape}"
            )
        if not acting.flags.c_contiguous:
            acting = np.ascontiguousarray(acting)
        n = _acting_rows(mask, acting, rows)
        if n < 0:
            bad = int(rows[0, 0])
            raise ValueError(f"acting row {np.unravel_index(bad, lead)} has no legal action")
    if n == 0:
        return out
    # uniform among the row's own ids: the (counts - 1 - r)-th legal id of the row; a few rows
    # draw one scalar at a time (the same stream as one array draw, and cheaper for few rows)
    counts = rows[1]
    if n <= 4:
        for i in range(n):
            counts[i] -= 1 + rng.integers(0, counts[i])
    else:
        counts[:n] -= 1 + rng.integers(0, counts[:n])
    _pick(mask, rows, n, out)
    return out


@njit(cache=True, nogil=True)
def _legal_rows(mask, rows):
    """Rows of ``mask (..., A) bool`` (flat over the leading axes) with a legal id into
    ``rows[0]``, their counts into ``rows[1]``; returns how many."""
    flat = mask.reshape((-1, mask.shape[-1]))
    n = 0
    for r in range(flat.shape[0]):
        c = 0
        for a in range(flat.shape[1]):
            c += flat[r, a]
        if c:
            rows[0, n] = r
            rows[1, n] = c
            n += 1
    return n


@njit(cache=True, nogil=True)
def _acting_rows(mask, acting, rows):
    """The ``acting (...)`` rows of ``mask (..., A) bool`` into ``rows[0]`` with their counts
    in ``rows[1]``; returns how many, or -1 with ``rows[0, 0]`` an acting row without a legal
    id."""
    flat = mask.reshape((-1, mask.shape[-1]))
    act = acting.reshape(-1)
    n = 0
    for r in range(flat.shape[0]):
        if not act[r]:
            continue
        c = 0
        for a in range(flat.shape[1]):
            c += flat[r, a]
        if c == 0:
            rows[0, 0] = r
            return -1
        rows[0, n] = r
        rows[1, n] = c
        n += 1
    return n


@njit(cache=True, nogil=True)
def _pick(mask, rows, n, out):
    """``out`` (flat) at ``rows[0, i]``: the ``rows[1, i]``-th (0-based, ascending) legal id of
    that row (``i < n``)."""
    flat = mask.reshape((-1, mask.shape[-1])).view(np.uint8)
    o = out.reshape(-1)
    for i in range(n):
        r = rows[0, i]
        k = rows[1, i]
        row = flat[r]
        for a in range(row.shape[0]):
            k -= row[a]  # (no branch on the mask bytes: the loop stops past the k-th id)
            if k < 0:
                o[r] = a
                break
