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
    mask = np.asarray(mask)
    if mask.dtype != np.bool_:
        raise TypeError(f"mask must be a bool array, got dtype {mask.dtype}")
    if mask.ndim < 1 or mask.shape[-1] == 0:
        raise ValueError(f"mask must have shape (..., A) with A >= 1, got {mask.shape}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    lead = mask.shape[:-1]
    n_act = mask.shape[-1]
    flat = mask.reshape(-1, n_act)
    out = np.zeros(flat.shape[0], dtype=np.int64)
    if acting is None:
        counts = np.empty(flat.shape[0], dtype=np.int64)
        _row_counts(flat, np.arange(flat.shape[0]), counts)
        rows = np.flatnonzero(counts)
        counts = counts[rows]
    else:
        acting = np.asarray(acting)
        if acting.dtype != np.bool_ or acting.shape != lead:
            raise ValueError(
                f"acting must be a {lead} bool array, got {acting.dtype} {acting.shape}"
            )
        rows = np.flatnonzero(acting)
        counts = np.empty(rows.size, dtype=np.int64)
        _row_counts(flat, rows, counts)
        if rows.size and counts.min() == 0:
            bad = int(rows[np.argmin(counts)])
            raise ValueError(f"acting row {np.unravel_index(bad, lead)} has no legal action")
    if rows.size == 0:
        return out.reshape(lead)
    # uniform among the row's own ids: the (counts - 1 - r)-th legal id of the row
    _pick(flat, rows, counts - 1 - rng.integers(0, counts), out)
    return out.reshape(lead)


@njit(cache=True, nogil=True)
def _row_counts(flat, rows, counts):
    """``counts[i]``: legal ids in row ``rows[i]`` of ``flat (R, A) bool``."""
    for i in range(rows.shape[0]):
        n = 0
        for a in range(flat.shape[1]):
            n += flat[rows[i], a]
        counts[i] = n


@njit(cache=True, nogil=True)
def _pick(flat, rows, index, out):
    """``out[rows[i]]``: the ``index[i]``-th (0-based, ascending) legal id of row ``rows[i]``."""
    for i in range(rows.shape[0]):
        k = index[i]
        for a in range(flat.shape[1]):
            if flat[rows[i], a]:
                if k == 0:
                    out[rows[i]] = a
                    break
                k -= 1
