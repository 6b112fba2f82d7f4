"""Batched uniform sampling of legal actions (random play: benchmarks, random agents, tests).

:func:`sample_legal_actions` draws, for every row of a legal-action mask, one of its legal
action ids uniformly at random, with one random integer per row (not one key per action): the
legal ids of each row are counted, one bounded integer per row is drawn, exactly as
``rng.integers(0, counts)`` would draw it, then each row picks that one of its own ids. The
whole is one compiled call: the kernel draws from the Generator's bit generator itself
(:func:`generator_pointers`, :func:`bounded_draw`), which NumPy makes the same stream as
``rng.integers`` (a tested property), so the Python cost of a call does not grow with the
rows. :meth:`mcr_env.engine.core.MCREngine.step_random` fuses the same draws with the engine
step (:func:`draw_row` is the shared per-row code).

Numba cache note: :mod:`mcr_env.engine.kernels` compiles :func:`draw_row` into its cached
``step_random_kernel``; numba's cache does not notice edits here (nor in
:mod:`mcr_env.engine.intrinsics`), so after changing this module delete
``mcr_env/engine/__pycache__/kernels.*.nb*``.
"""

from __future__ import annotations

import ctypes

import numpy as np
from numba import njit

from mcr_env.engine.intrinsics import next_uint32 as _next_uint32

_BOUND = 1 << 31
"""Rows may have at most this many legal ids (the bounded draw's arithmetic is in int64)."""

_last_rng: list = [None, (0, 0)]  # the last Generator seen and its pointers (one strong ref)


def generator_pointers(rng: np.random.Generator) -> tuple[int, int]:
    """``(next_uint32 address, state address)`` of ``rng``'s bit generator (its ctypes
    interface), the two integers :func:`bounded_draw` takes. They stay valid while ``rng``
    is alive; the last Generator asked about is held (and its pointers cached).

    Raises:
        TypeError: ``rng`` is not a ``numpy.random.Generator``.
    """
    if rng is _last_rng[0]:
        return _last_rng[1]
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    c = rng.bit_generator.ctypes
    ptrs = (int(ctypes.cast(c.next_uint32, ctypes.c_void_p).value), int(c.state_address))
    _last_rng[0], _last_rng[1] = rng, ptrs
    return ptrs


@njit(cache=True, nogil=True, inline="always")
def bounded_draw(fn, state, n):
    """A uniform integer in ``[0, n)`` (``1 <= n < 2**31``) from the bit generator at
    ``(fn, state)`` (:func:`generator_pointers`): NumPy's unbiased bounded draw (Lemire's
    multiply-and-reject on 32-bit outputs), so the same value and the same generator advance as
    ``rng.integers(0, n)`` (no draw at all for ``n == 1``)."""
    if n <= 1:
        return np.int64(0)
    m = np.int64(_next_uint32(fn, state)) * n
    left = m & 0xFFFFFFFF
    if left < n:
        threshold = ((1 << 32) - n) % n
        while left < threshold:
            m = np.int64(_next_uint32(fn, state)) * n
            left = m & 0xFFFFFFFF
    return m >> 32


@njit(cache=True, nogil=True, inline="always")
def draw_row(rows, r, fn, state):
    """A uniformly random legal id of row ``r`` of ``rows (R, A) uint8`` (0/1 masks; the row
    indexed in place, no per-row view): with ``c`` legal ids and ``r = bounded_draw(c)``, the
    ``(c - 1 - r)``-th legal id (0-based, ascending); -1 if the row has no legal id (nothing
    drawn)."""
    c = 0
    for a in range(rows.shape[1]):
        c += rows[r, a]
    if c == 0:
        return np.int64(-1)
    return pick_row(rows, r, c, fn, state)


@njit(cache=True, nogil=True, inline="always")
def pick_row(rows, r, c, fn, state):
    """:func:`draw_row` of row ``r`` of ``rows (R, A) uint8`` whose ``c >= 1`` legal ids the
    caller counted: the ``(c - 1 - bounded_draw(c))``-th legal id."""
    k = c - 1 - bounded_draw(fn, state, c)
    for a in range(rows.shape[1]):
        k -= rows[r, a]  # (no branch on the mask bytes: the loop stops past the k-th id)
        if k < 0:
            return np.int64(a)
    return np.int64(-1)


def sample_legal_actions(
    mask: np.ndarray, rng: np.random.Generator, acting: np.ndarray | None = None
) -> np.ndarray:
    """A uniformly random legal action for each row of ``mask``.

    The stream (a tested property): over the sampled rows in order (flat over the leading
    axes), with ``c`` the row's legal ids counted, ``r = rng.integers(0, c)`` (one array draw
    over the rows, which NumPy makes the same stream as one scalar draw per row) and the row
    takes its ``(c - 1 - r)``-th legal id. The draws are made in compiled code straight from
    ``rng.bit_generator`` (the Generator's lock is not taken: do not share ``rng`` with another
    thread during the call).

    Args:
        mask: ``(..., A) bool`` legal actions (e.g. the engine's ``legal_mask (B, 4, 235)`` or an
            agent's ``(N, 235)`` mask).
        rng: a ``numpy.random.Generator`` (advanced by one bounded integer draw per sampled
            row with two or more legal ids).
        acting: optional ``(...) bool`` (``mask.shape[:-1]``): sample only these rows (e.g. the
            engine's ``to_act``). Default: every row that has a legal action.

    Returns:
        ``(...) int64`` action ids; 0 for rows not sampled (not ``acting``) or without any legal
        action.

    Raises:
        TypeError: ``mask`` (or ``acting``) is not a bool array, ``rng`` not a Generator.
        ValueError: ``mask`` has no action axis (or ``A >= 2**31``), or ``acting`` has the wrong
            shape, or an ``acting`` row has no legal action (then nothing is drawn).
    """
    if type(mask) is not np.ndarray:
        mask = np.asarray(mask)
    if mask.dtype != np.bool_:
        raise TypeError(f"mask must be a bool array, got dtype {mask.dtype}")
    if mask.ndim < 1 or not 0 < mask.shape[-1] < _BOUND:
        raise ValueError(f"mask must have shape (..., A) with 1 <= A < 2**31, got {mask.shape}")
    fn, state = generator_pointers(rng)
    lead = mask.shape[:-1]
    if not mask.flags.c_contiguous:
        mask = np.ascontiguousarray(mask)
    out = np.zeros(lead, dtype=np.int64)
    if out.size == 0:
        return out
    flat = mask.reshape(-1, mask.shape[-1]).view(np.uint8)
    if acting is None:
        _sample_all(flat, out.reshape(-1), fn, state)
        return out
    if type(acting) is not np.ndarray:
        acting = np.asarray(acting)
    if acting.dtype != np.bool_:
        raise TypeError(f"acting must be a {lead} bool array, got dtype {acting.dtype}")
    if acting.shape != lead:
        raise ValueError(f"acting must be a {lead} bool array, got shape {acting.shape}")
    bad = _sample_acting(flat, acting.reshape(-1), out.reshape(-1), fn, state)
    if bad >= 0:
        raise ValueError(f"acting row {np.unravel_index(bad, lead)} has no legal action")
    return out


@njit(cache=True, nogil=True)
def _sample_all(flat, out, fn, state):
    """``out[r]``: :func:`draw_row` of every row of ``flat (R, A) uint8`` with a legal id."""
    for r in range(flat.shape[0]):
        a = draw_row(flat, r, fn, state)
        if a >= 0:
            out[r] = a


@njit(cache=True, nogil=True)
def _sample_acting(flat, acting, out, fn, state):
    """``out[r]``: :func:`draw_row` of the ``acting (R,) bool`` rows of ``flat (R, A)
    uint8``; returns -1, or (nothing drawn) the first acting row without a legal id. The
    first pass counts each acting row's legal ids into ``out``, the second draws from them."""
    for r in range(flat.shape[0]):
        if acting[r]:
            c = 0
            for a in range(flat.shape[1]):
                c += flat[r, a]
            if c == 0:
                return r
            out[r] = c
    for r in range(flat.shape[0]):
        if acting[r]:
            out[r] = pick_row(flat, r, out[r], fn, state)
    return -1
