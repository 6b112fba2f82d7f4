"""The native batch env over k shards: B tables, one ``step`` for all.

:class:`ShardedBatchEnv` has the API of :class:`mcr_env.envs.batch.MCRBatchEnv` (same
arguments, same ``reset``/``step`` results, same autoreset and observation modes) but runs its
B tables as k contiguous shards (tables ``lo..hi-1``), each an ``MCRBatchEnv``. Inside
``step`` the calling thread serves shard 0 itself (it would only wait otherwise) while shards
1..k-1 run in k - 1 worker processes (``backend="process"``, the default) or helper threads
of this process (``backend="thread"``). It contains no rules.

* **Backends.** ``"process"``: spawned worker processes over shared memory; for many-core
  machines (each worker its own interpreter, no shared GIL). ``"thread"``: helper threads
  over one in-process buffer (commands and answers through ``queue.SimpleQueue``: blocking
  waits, no spinning). The engine's step and deal kernels and the encoders are numba
  ``nogil`` kernels, so thread shards run in parallel except for their Python glue; with few
  cores it has no IPC at all. With k = 1 both backends run the one shard in the caller: no
  worker, no IPC, no wake-up. Both backends run the same shard code and give identical
  results.
* **Handoff (process backend).** A step's command is a code (and step_random's seed and step)
  in the worker's row of a shared control block plus one semaphore release; the worker
  answers with a status word and another semaphore; nothing is pickled and, when the answer
  comes while the waiting side polls its semaphore (up to ``spin`` seconds, a budget that
  shrinks when polls keep failing, as on an oversubscribed machine: :class:`_Waiter`),
  nobody sleeps (no system call, no wake-up latency). Other commands (reset, queries) and
  error reports travel on a pipe.
* **Shared memory.** Actions, observations, masks, ``to_act``, rewards, settlements and the
  other per-step outputs live in one ``multiprocessing.shared_memory`` block (the thread
  backend: one in-process buffer of the same layout); each shard reads its actions from it
  and writes its outputs into it. With ``observe="packed"`` the shards encode the acting seats
  straight into one contiguous ``(N, C, 34)`` block in ``np.nonzero(to_act)`` order (shard i
  at the offset = acting seats of shards 0..i-1) within the step, one round per step: each
  shard, right after its engine step, learns where the rows of the shards before it end and
  publishes where its own end (processes: a chain of semaphores, :class:`_ChainSlot`;
  threads: events, :class:`_OffsetSlot`).
* **Identical results for every k and B.** Shard i's engine is built with
  ``first_game = lo`` (seeded walls derive from the global table index), so the same seed
  deals the same games whatever the sharding, and the engine's games never interact: every
  observation, mask, reward and record equals the in-process env's (tests check k = 1, 2, 3
  against ``MCRBatchEnv`` for B = 1, 7, 64).
* **Random play inside the shards.** :meth:`ShardedBatchEnv.step_random` lets every shard
  draw its own tables' uniformly random legal actions (in parallel, nothing in the caller)
  from a counter-based stream keyed by (seed, env step, global table, seat)
  (:func:`keyed_random_actions`, which also gives the same actions for any env's masks), so
  random play is identical for every k, B and backend.
* **Spawn-safe.** Workers are started with the ``"spawn"`` method by default (safe with torch
  and threads in the parent); they ignore SIGINT (the parent stops them) and exit when their
  parent is gone (checked every second while they wait), so a killed parent leaves no worker
  behind.
* **Failures.** A worker that dies raises :class:`WorkerError` in the parent naming the
  worker, its pid (or thread), tables and exit code (or why the thread ended); every other
  worker is stopped and the shared memory is freed (the env is closed); so does an exception
  inside a shard, and a ``step`` interrupted (Ctrl-C) while the shards run closes the env. An
  illegal action is caught in the parent before any shard steps (same ``ValueError`` text as
  the engine's, with the global table index), so no table changes (k = 1: by the one shard's
  engine, which also refuses before it changes anything; the env stays open).

Use it as a context manager or call :meth:`ShardedBatchEnv.close` (also run at garbage
collection and interpreter exit). ``num_workers`` defaults to the CPUs this process may run on
(:func:`default_num_workers`), at most B.

With ``copy_obs=False`` every array ``step``/``step_random`` returns (the ``obs`` dict's
``observation``, ``action_mask``, ``to_act``, ``games``, ``seats``; ``rewards``,
``terminated``, ``truncated``; ``info``'s ``settlement``, ``hand_over``, ``player_at_seat``,
``final_obs``, ``final_rows``; and ``reset``'s ``obs`` dict) is a read-only view into the
shared buffers, valid until the next ``step``/``reset`` overwrites it (no copy and nothing
per table in the parent: the fast path of the rollout loops, which gather the rows they keep
anyway; keep a value across steps with ``.copy()``); the default ``copy_obs=True`` returns
fresh arrays like ``MCRBatchEnv``. The shards place every variable-length block (packed
rows, finished tables) so that it is contiguous without the parent moving it (the anchor
layout of :class:`_ChainSlot` and :class:`_ShardEnv`), so with k = 2 neither shard waits for
the other within a step.
"""

from __future__ import annotations

import copy
import ctypes
import dataclasses
import multiprocessing as mp
import os
import queue
import signal
import threading
import time
import traceback
import weakref
from multiprocessing.shared_memory import SharedMemory
from typing import Any

import numpy as np
from numba import njit

from mcr_env.encoding import get_encoder
from mcr_env.engine.actions import NUM_ACTIONS
from mcr_env.engine.config import RulesConfig
from mcr_env.engine.state import GameState, Phase
from mcr_env.engine.walls import check_walls
from mcr_env.envs.batch import MASK_DTYPE, MCRBatchEnv, check_modes, table_config
from mcr_env.envs.common import copy_masks, encode_pairs
from mcr_env.rewards import RewardFunction, make_reward

__all__ = [
    "BACKENDS",
    "ShardedBatchEnv",
    "WorkerError",
    "default_num_workers",
    "keyed_random_actions",
    "make_batch_env",
]

BACKENDS = ("process", "thread")
"""Where :class:`ShardedBatchEnv` runs its shards: worker processes or threads of this one."""

_T = 34  # tile kinds (the last axis of every observation)


class WorkerError(RuntimeError):
    """A shard worker died or failed; the env is closed (every worker stopped, shared memory
    freed) and must be rebuilt."""


def default_num_workers() -> int:
    """Worker processes to use by default: the CPUs this process may run on
    (``os.sched_getaffinity``, else ``os.cpu_count()``), at least 1."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def shard_bounds(num_tables: int, num_workers: int) -> list[tuple[int, int]]:
    """Contiguous near-equal shards: ``[(lo, hi), ...]`` covering ``0..num_tables-1``, the first
    ``num_tables % num_workers`` shards one table longer. ``num_workers <= num_tables``."""
    base, extra = divmod(num_tables, num_workers)
    out, lo = [], 0
    for i in range(num_workers):
        hi = lo + base + (1 if i < extra else 0)
        out.append((lo, hi))
        lo = hi
    return out


def _layout(
    b: int, channels: int, observe: str, autoreset_mode: str, obs_dtype: Any, k: int
) -> dict[str, tuple]:
    """Name -> (shape, dtype) of every shared buffer for B tables, C channels, the
    observations' dtype and k shards."""
    lay: dict[str, tuple] = {
        "ctrl": ((k, 4), np.uint64),  # the process backend's control rows (_CODE, ...)
        "ends": ((k,), np.int64),  # packed: where each shard's rows end (_ChainSlot)
        # per shard, its last reset/step: (acting seats = its packed rows, finished tables)
        "counts": ((k, 2), np.int64),
        "actions": ((b, 4), np.int64),
        "to_act": ((b, 4), np.bool_),
        "action_mask": ((b, 4, NUM_ACTIONS), MASK_DTYPE),
        "rewards": ((b, 4), np.float32),
        "settlement": ((b, 4), np.int32),
        "hand_over": ((b,), np.bool_),
        "terminated": ((b,), np.bool_),
        "player_at_seat": ((b, 4), np.int8),
        "player_settlement": ((b, 4), np.int32),
        "phase": ((b,), np.int8),
    }
    if observe in ("all", "acting"):
        lay["observation"] = ((b, 4, channels, _T), obs_dtype)
    elif observe == "packed":
        lay["observation"] = ((4 * b, channels, _T), obs_dtype)
        lay["games"] = ((4 * b,), np.int64)
        lay["seats"] = ((4 * b,), np.int64)
    if autoreset_mode == "same_step":
        lay["final_rows"] = ((b,), np.int64)  # finished tables, placed as their final_obs
        if observe != "none":
            lay["final_obs"] = ((4 * b, channels, _T), obs_dtype)
    return lay


def _offsets(layout: dict[str, tuple]) -> dict[str, int]:
    """Byte offset of every buffer of ``layout``, laid one after the other (64-byte aligned)."""
    out, off = {}, 0
    for name, (shape, dtype) in layout.items():
        out[name] = off
        off += (int(np.prod(shape)) * np.dtype(dtype).itemsize + 63) // 64 * 64
    return out


def _views(buf, layout: dict[str, tuple]) -> dict[str, np.ndarray]:
    """Numpy views of the buffers of ``layout`` in ``buf`` (at :func:`_offsets`)."""
    at = _offsets(layout)
    return {
        name: np.ndarray(shape, dtype=dtype, buffer=buf, offset=at[name])
        for name, (shape, dtype) in layout.items()
    }


def _nbytes(layout: dict[str, tuple]) -> int:
    return sum((int(np.prod(s)) * np.dtype(d).itemsize + 63) // 64 * 64 for s, d in layout.values())


class _ShardEnv(MCRBatchEnv):
    """One shard (tables lo..hi-1, shard ``index``) inside a worker: ``MCRBatchEnv`` whose
    outputs are written into the shared buffers instead of fresh arrays.

    Where a step's variable-length outputs go (so that shards 0 and 1 never wait for each
    other and the parent returns every block as one view, copying nothing): the finished
    tables' ``final_rows`` and ``final_obs`` of shard 0 end at its ``hi`` (right-aligned in
    its own table range), those of every other shard start at its ``lo``; so shards 0 and 1
    are adjacent at ``hi_0``, and with k >= 3 the parent moves the few rows of shards 2.. down
    behind them (:meth:`ShardedBatchEnv._finals`). Packed observations: see
    :class:`_ChainSlot`."""

    def __init__(
        self,
        lo: int,
        hi: int,
        first_game: int,
        views: dict[str, np.ndarray],
        observe: str,
        index: int = 0,
        **kw,
    ):
        super().__init__(hi - lo, first_game=first_game + lo, **kw)
        # MCRBatchEnv.step reads observe_mode only to decide on info["final_obs"]; _obs below
        # replaces its observation building
        self.observe_mode = observe
        self.lo, self.hi, self.index = lo, hi, index
        self.engine_first_game = first_game + lo  # global index of this shard's table 0
        # packed blocks, final rows and counts are shared by all shards (each writes its own
        # rows); the others are (B, ...) arrays of which this shard owns rows lo..hi-1
        whole = {"games", "seats", "final_obs", "final_rows", "counts"} | (
            {"observation"} if observe == "packed" else set()
        )
        self.v = {k: (a if k in whole else a[lo:hi]) for k, a in views.items()}
        self.counts = views["counts"][index]  # (acting seats, finished tables) of the last step
        self.acting: tuple[np.ndarray, np.ndarray] = (np.zeros(0, np.int64),) * 2
        n = hi - lo
        self._pairs = (np.zeros(4 * n, np.int64), np.zeros(4 * n, np.int64))  # acting (g, s)
        self._mask_dst = self.v["action_mask"].view(np.uint8).reshape(-1)
        self._mask_plan: tuple = (None,)  # (source address, arguments of the copy kernel)
        self.delta_masks = False  # publish only changed mask lines (set per command)

    def _final_slot(self, n: int) -> int:
        """Global table slot where this shard's ``n`` finished tables' outputs start."""
        return self.hi - n if self.index == 0 else self.lo

    def _obs(self) -> dict:  # called at the end of MCRBatchEnv.reset / step
        eng, v = self.engine, self.v
        st = eng.state
        g, s = self._pairs
        self._publish_masks(eng.legal_mask.view(np.uint8).reshape(-1))
        # to_act, phase, player_at_seat and the acting pairs in one compiled pass
        n = _publish(
            eng.to_act,
            v["to_act"],
            st.phase,
            v["phase"],
            st.player_at_seat,
            v["player_at_seat"],
            g,
            s,
        )
        self.acting = (g[:n], s[:n])
        mode = self.observe_mode
        if mode == "all":
            c = self.encoder.num_channels
            self.encoder.encode(eng.state, out=v["observation"].reshape(-1, c, _T))
        elif mode == "acting":
            v["observation"][...] = 0.0
            if n:
                v["observation"][g[:n], s[:n]] = encode_pairs(
                    self.encoder, eng.state, g[:n], s[:n], dtype=self.obs_dtype
                )
        return {}

    def _publish_masks(self, src: np.ndarray) -> None:
        """The engine's masks ``src (n * 940,) uint8`` into this shard's shared rows. After a
        ``step`` (the caller chose the actions: its policy read the masks) the shards other
        than 0 write only the 64-byte lines that changed (about a fifth per step), so a line
        the caller read stays valid in the caller's cache and is not taken back from it (a
        full copy made such a worker's step ~40% slower than the caller's shard and the
        caller's next reads slower; measured on 2 cores, B = 2048); shard 0 (served by the
        caller itself) and every shard after ``reset``/``step_random`` (nobody had to read
        the masks) copy them (:func:`~mcr_env.envs.common.copy_masks`), which costs about
        half."""
        dst = self._mask_dst
        if self.index == 0 or not self.delta_masks:  # reading only the acting rows
            eng = self.engine
            copy_masks(eng.legal_mask, eng.to_act, self.v["action_mask"])
            return
        addr = src.ctypes.data
        if self._mask_plan[0] != addr:
            d = dst.ctypes.data
            if (addr - d) % 8 == 0:  # the same alignment: compare and copy 8-byte words
                head = (-d) % 8
                words = (dst.size - head) // 8
                s64 = src[head : head + 8 * words].view(np.uint64)
                d64 = dst[head : head + 8 * words].view(np.uint64)
                first = ((-(d + head)) % 64) // 8 or 8
                flags = np.zeros(words // 8 + 1, np.bool_)
                self._mask_plan = (addr, (s64, d64, head, first, flags))
            else:
                self._mask_plan = (addr, None)
        args = self._mask_plan[1]
        if args is None:
            _copy_changed_lines(src, dst, 64 - dst.ctypes.data % 64)
        else:
            _copy_changed_words(src, dst, *args)

    def _encode_into(self, g: np.ndarray, s: np.ndarray, out: np.ndarray) -> None:
        """Observations of the pairs ``g, s`` (built here, valid) into ``out (n, C, 34)``:
        the encoder's unchecked ``encode_rows`` when it has one, else ``encode(out=...)``."""
        rows = getattr(self.encoder, "encode_rows", None)
        if rows is None:
            self.encoder.encode(self.engine.state, g, s, out=out)
        else:
            rows(self.engine.state, g, s, out)

    def _final_obs(self, rows: np.ndarray) -> np.ndarray:
        """As :meth:`MCRBatchEnv._final_obs`, encoded straight into this shard's slots
        (:meth:`_final_slot`) of the shared ``final_obs`` block (returned as a view of it)."""
        n, c = len(rows), self.encoder.num_channels
        at = 4 * self._final_slot(n)
        block = self.v["final_obs"][at : at + 4 * n]
        self._encode_into(np.repeat(rows, 4), np.tile(np.arange(4), n), block)
        return block.reshape(n, 4, c, _T)

    def encode_packed(self, offset: int) -> None:
        """Encode the acting seats into rows ``offset..offset+N-1`` of the packed block."""
        g, s = self.acting
        n = len(g)
        v = self.v
        self._encode_into(g, s, v["observation"][offset : offset + n])
        v["games"][offset : offset + n] = g + self.lo
        v["seats"][offset : offset + n] = s


@njit(cache=True, nogil=True, inline="always")
def _copy_changed(src, dst, lo, hi):
    """``dst[lo:hi] = src[lo:hi]`` only if they differ (a line unchanged is not written)."""
    acc = 0
    for t in range(lo, hi):
        acc |= src[t] ^ dst[t]
    if acc:
        for t in range(lo, hi):
            dst[t] = src[t]


@njit(cache=True, nogil=True)
def _copy_changed_lines(src, dst, first):
    """``dst[:] = src`` (``(n,) uint8`` each) writing only the 64-byte lines of ``dst`` that
    differ (a line not written stays clean in every cache that holds it); ``dst``'s first
    line boundary is ``first`` bytes in (64 if aligned)."""
    size = src.shape[0]
    head = min(first % 64, size)
    _copy_changed(src, dst, 0, head)
    full = (size - head) // 64
    for line in range(full):
        j = head + 64 * line
        a = src[j : j + 64]
        d = dst[j : j + 64]
        acc = 0
        for t in range(64):  # a fixed trip count: vectorized
            acc |= a[t] ^ d[t]
        if acc:
            for t in range(64):
                d[t] = a[t]
    _copy_changed(src, dst, head + 64 * full, size)


@njit(cache=True, nogil=True, inline="always")
def _copy_changed_64(s64, d64, lo, hi):
    """``d64[lo:hi] = s64[lo:hi]`` (``uint64``) only if they differ."""
    acc = np.uint64(0)
    for t in range(lo, hi):
        acc |= s64[t] ^ d64[t]
    if acc != 0:
        for t in range(lo, hi):
            d64[t] = s64[t]


@njit(cache=True, nogil=True)
def _copy_changed_words(src, dst, s64, d64, head, first, flags):
    """:func:`_copy_changed_lines` by 8-byte words: ``src``/``dst`` ``(n,) uint8``, ``s64``/
    ``d64`` ``uint64`` views of their bytes ``head .. head + 8 len(s64)`` (the same alignment:
    ``dst[head]`` is 8-aligned), the first line boundary ``first`` words in (8 if aligned);
    ``flags (>= len(s64) // 8,) bool`` scratch. Two passes: which lines differ (branch-free,
    vectorized), then copy those."""
    _copy_changed(src, dst, 0, head)
    n = s64.shape[0]
    j0 = min(first % 8, n)
    _copy_changed_64(s64, d64, 0, j0)
    lines = (n - j0) // 8
    a = s64[j0 : j0 + 8 * lines].reshape((lines, 8))
    d = d64[j0 : j0 + 8 * lines].reshape((lines, 8))
    for line in range(lines):
        acc = np.uint64(0)
        for t in range(8):
            acc |= a[line, t] ^ d[line, t]
        flags[line] = acc != 0
    for line in range(lines):
        if flags[line]:
            for t in range(8):
                d[line, t] = a[line, t]
    _copy_changed_64(s64, d64, j0 + 8 * lines, n)
    _copy_changed(src, dst, head + 8 * n, src.shape[0])


@njit(cache=True, nogil=True)
def _publish(to_act, to_act_dst, phase, phase_dst, pas, pas_dst, g, s):
    """One shard's small per-step outputs into the shared buffers: ``to_act (n, 4) bool``,
    ``phase (n,)`` and ``pas (n, 4)`` (player at seat) copied; the acting pairs in
    ``np.nonzero(to_act)`` order into ``g``/``s`` (``(4n,) int64``). Returns their number."""
    c = 0
    for b in range(to_act.shape[0]):
        phase_dst[b] = phase[b]
        for k in range(4):
            pas_dst[b, k] = pas[b, k]
            if to_act[b, k]:
                to_act_dst[b, k] = True
                g[c] = b
                s[c] = k
                c += 1
            else:
                to_act_dst[b, k] = False
    return c


@njit(cache=True, nogil=True)
def _first_illegal(mask, to_act, actions):
    """Flat index ``4 * game + seat`` of the first acting seat of ``to_act (B, 4) bool`` whose
    action in ``actions (B, 4) int64`` is outside ``0..A-1`` or not set in ``mask (B, 4, A)
    int8``; -1 if every acting seat's action is legal."""
    for b in range(to_act.shape[0]):
        for s in range(4):
            if to_act[b, s]:
                a = actions[b, s]
                if a < 0 or a >= mask.shape[2] or mask[b, s, a] == 0:
                    return 4 * b + s
    return -1


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, nogil=True, inline="always")
def _mix64(x):
    """splitmix64's finaliser (wrapping ``uint64`` arithmetic)."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True, nogil=True, inline="always")
def _absorb(h, part):
    """The hash ``h`` with one more key part (a non-negative int) mixed in."""
    return _mix64(h ^ (np.uint64(part) * _GOLDEN + np.uint64(1)))


@njit(cache=True, nogil=True)
def _keyed_actions(mask, to_act, key, first, step, out):
    """:func:`keyed_random_actions` into ``out (n, 4) int64`` (acting seats only) for
    ``mask (n, 4, A) uint8``, ``to_act (n, 4) bool``, ``key`` (uint64 of the seed), ``first``
    (global index of row 0) and ``step``; returns -1, or ``4 * row + seat`` of the first acting
    seat without a legal action (``out`` is then partly written)."""
    hs = _absorb(_mix64(key + _GOLDEN), step)
    a_n = mask.shape[2]
    for b in range(to_act.shape[0]):
        hb = _absorb(hs, first + b)
        for s in range(4):
            if not to_act[b, s]:
                continue
            row = mask[b, s]
            c = 0
            for a in range(a_n):
                c += row[a]
            if c == 0:
                return 4 * b + s
            r = 0
            if c > 1:
                # Lemire's unbiased bounded draw on the high 32 bits of hash j = 0, 1, ...
                hseat = _absorb(hb, s)
                j = 0
                m = np.int64(_absorb(hseat, j) >> np.uint64(32)) * c
                threshold = ((1 << 32) - c) % c
                while (m & 0xFFFFFFFF) < threshold:
                    j += 1
                    m = np.int64(_absorb(hseat, j) >> np.uint64(32)) * c
                r = m >> 32
            for a in range(a_n):
                r -= row[a]
                if r < 0:
                    out[b, s] = a
                    break
    return -1


def keyed_random_actions(
    action_mask: np.ndarray,
    to_act: np.ndarray,
    seed: int,
    step: int,
    first_game: int = 0,
) -> np.ndarray:
    """Uniformly random legal actions drawn from a counter-based stream keyed by the table,
    not by the batch: what :meth:`ShardedBatchEnv.step_random` plays (random play:
    benchmarks, random opponents, tests), computed here for any batch env's masks.

    The draw (one compiled pass): an acting seat ``s`` of global table ``g = first_game + b``
    with ``c`` legal actions at env step ``step`` takes its ``r``-th legal id (0-based,
    ascending), ``r`` uniform in ``0..c-1`` by Lemire's unbiased multiply-and-reject on the high
    32 bits of the splitmix64 hashes ``H(seed, step, g, s, j)``, ``j = 0, 1, ...`` (a rejection
    takes the next ``j``; no draw for ``c = 1``). The key holds no batch size, shard or call
    order, so the same ``(seed, step)`` gives table ``g`` the same actions in an env of any B
    and any sharding (``docs/rules.md §10``: who is asked, hence ``to_act``, is the engine's).

    Args:
        action_mask: ``(B, 4, A)`` int8/uint8/bool, 1 = legal (an env's ``action_mask``).
        to_act: ``(B, 4) bool``, the seats to draw for.
        seed: any int (taken modulo 2**64). step: the env step (>= 0).
        first_game: global index of table 0 (a shard's ``lo``).

    Returns:
        ``(B, 4) int64``: the drawn action of every acting seat, 0 elsewhere.

    Raises:
        ValueError: shapes differ, ``step`` or ``first_game`` negative, or an acting seat has
            no legal action (the message names table and seat).
        TypeError: ``seed``/``step`` not ints.
    """
    mask = np.asarray(action_mask)
    act = np.asarray(to_act)
    if mask.ndim != 3 or mask.shape[1] != 4 or act.shape != mask.shape[:2]:
        raise ValueError(
            f"action_mask must be (B, 4, A) and to_act (B, 4), got {mask.shape} and {act.shape}"
        )
    if act.dtype != np.bool_:
        raise TypeError(f"to_act must be a bool array, got dtype {act.dtype}")
    for name, v in (("seed", seed), ("step", step), ("first_game", first_game)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{name} must be an int, got {type(v).__name__}")
    if step < 0 or first_game < 0:
        raise ValueError(f"step and first_game must be >= 0, got {step}, {first_game}")
    out = np.zeros(act.shape, dtype=np.int64)
    flat = np.ascontiguousarray(mask).view(np.uint8) if mask.dtype.itemsize == 1 else None
    if flat is None:
        raise TypeError(f"action_mask must be int8/uint8/bool, got dtype {mask.dtype}")
    bad = _keyed_actions(flat, act, _seed_key(seed), int(first_game), int(step), out)
    if bad >= 0:
        raise ValueError(f"table {bad // 4}, seat {bad % 4} is acting without a legal action")
    return out


def _seed_key(seed: int) -> np.uint64:
    return np.uint64(int(seed) % (1 << 64))


def _make_shard(
    lo: int,
    hi: int,
    first_game: int,
    views: dict,
    observe: str,
    kwargs: dict,
    record: bool,
    index: int,
) -> _ShardEnv:
    """The shard env of tables ``lo..hi-1`` (shard ``index``) writing into ``views`` (wrapped
    in a :class:`~mcr_env.engine.records.GameRecorder` with ``record``)."""
    env = _ShardEnv(lo, hi, first_game, views, observe, index, **kwargs)
    if record:
        from mcr_env.engine.records import GameRecorder

        env.engine = GameRecorder(env.engine)
    return env


def _answer(env: _ShardEnv, views: dict, cmd: str, arg: Any) -> tuple[str, Any]:
    """``("ok", reply)`` of one command, or ``("error", (type name, message, traceback))``."""
    try:
        return "ok", _serve(env, views, cmd, arg)
    except Exception as e:  # reported to the parent, which re-raises it
        return "error", (type(e).__name__, str(e), traceback.format_exc())


# The process backend's control words: ``ctrl (k, 4) uint64`` in the shared block, row i for
# worker i: the command code, step_random's seed key and step, and the worker's reply status.
_CODE, _KEY, _STEP, _STATUS = range(4)
_PIPE, _STEP_CMD, _RANDOM_CMD, _CLOSE = 1, 2, 3, 4  # codes: the pipe holds the command; steps
_OK, _ERROR = 1, 2  # statuses (an error's text follows on the pipe)
_FAST = {"step": _STEP_CMD, "step_random": _RANDOM_CMD}
DEFAULT_SPIN = 1e-3
"""Seconds a process-backend wait polls its semaphore before it blocks (see
:class:`ShardedBatchEnv`, ``spin``)."""


class _Gone(Exception):
    """Inside a worker: the parent is gone or closes the env; the worker ends."""


class _Waiter:
    """Waits on semaphores, polling each one up to a budget before blocking (a busy wait: no
    sleep and no wake-up when the other side answers within it; on an idle core a blocked
    wait costs the wake-up of a sleeping CPU, tens to hundreds of microseconds in a virtual
    machine, several times per step). The budget adapts: it doubles (up to ``spin`` seconds)
    after a wait answered while polling and halves (down to ``spin / 64``) after one that had
    to block, or that was answered while polling but with this process descheduled for more
    than half of the poll (the machine has more runnable work than cores: polling takes a
    core from someone), so on a busy machine polling soon costs next to nothing; every 256th
    wait polls the full ``spin`` again, so a machine that has become quiet is noticed.
    ``spin = 0``: never poll."""

    def __init__(self, spin: float):
        self.spin = self.budget = float(spin)
        self.count = 0
        # counters (:meth:`stats`): waits, answered while polling, that blocked; wall seconds
        self.waits = self.polled = self.blocked = 0
        self.poll_s = self.block_s = 0.0

    def stats(self) -> dict:
        """``{"waits", "at_once", "polled", "blocked", "poll_s", "block_s"}``: waits so far,
        those the other side had answered already, answered while polling, and that had to
        block (each of which costs a wake-up: on an idle virtual CPU tens to hundreds of
        microseconds), and the wall seconds spent polling and blocked."""
        return {
            "waits": self.waits,
            "at_once": self.waits - self.polled - self.blocked,
            "polled": self.polled,
            "blocked": self.blocked,
            "poll_s": round(self.poll_s, 6),
            "block_s": round(self.block_s, 6),
        }

    def wait(self, sem, check, slice_s: float) -> None:
        """Acquire ``sem``; while blocked, call ``check()`` every ``slice_s`` seconds (it
        raises when the other side is gone)."""
        self.waits += 1
        if sem.acquire(False):
            return
        self.count += 1
        budget = self.spin if self.count % 256 == 0 else self.budget
        clock = time.perf_counter
        if budget > 0.0:
            t0, c0 = clock(), time.thread_time()
            end = t0 + budget
            while True:
                now = clock()
                if sem.acquire(False):
                    polled = now - t0
                    ran = time.thread_time() - c0
                    if polled < 5e-5 or ran >= 0.5 * polled:
                        self.budget = min(self.spin, 2.0 * budget)
                    else:  # descheduled while polling: the cores are oversubscribed
                        self.budget = max(self.spin / 64.0, 0.5 * budget)
                    self.polled += 1
                    self.poll_s += polled
                    return
                if now >= end:
                    break
            self.budget = max(self.spin / 64.0, 0.5 * budget)
            self.poll_s += now - t0
        self.blocked += 1
        t1 = clock()
        while not sem.acquire(True, slice_s):
            check()
        self.block_s += clock() - t1


class _ChainSlot:
    """Process backend, packed observations: shard ``i``'s place in one step's packed block,
    laid around the ``anchor`` row ``4 hi_0`` (the end of shard 0's share of the block):
    shard 0's rows end at the anchor (:meth:`offset` returns ``anchor - count``), shard 1's
    start there, so neither waits for the other (k = 2 has no chain at all); shard ``i >= 2``
    waits until shard ``i - 1`` has published where its rows end (``ends[i - 1]``, signalled
    by the semaphore ``prev``). Shard ``i >= 1`` publishes ``ends[i]`` = its start + its
    acting count and signals ``own`` (None for the last shard), so every shard encodes within
    its step command (one round per step). Used as a context manager around the step: a
    failing step still takes its signal from ``i - 1`` and gives one to ``i + 1`` (exactly one
    each per command, so the next command's offsets stay right), so no later shard waits for
    it."""

    def __init__(self, index: int, ends: np.ndarray, prev, own, spin: float, check, anchor: int):
        self.index, self.ends, self.prev, self.own = index, ends, prev, own
        self.anchor = int(anchor)
        self.waiter, self.check = _Waiter(spin), check
        self.start: int | None = self.anchor
        self.signalled = True

    def _take_start(self) -> int:
        if self.start is None:
            self.waiter.wait(self.prev, self.check, 0.05)
            self.start = int(self.ends[self.index - 1])
        return self.start

    def offset(self, count: int) -> int:
        if self.index == 0:
            return self.anchor - count
        start = self._take_start()
        self._publish(start + count)
        return start

    def _publish(self, end: int) -> None:
        self.ends[self.index] = end
        self.signalled = True
        if self.own is not None:
            self.own.release()

    def __enter__(self) -> _ChainSlot:
        self.start = None if self.index >= 2 else self.anchor
        self.signalled = self.index == 0
        return self

    def __exit__(self, *exc) -> None:
        if not self.signalled:  # the step failed before its offset: no rows of its own
            self._publish(self._take_start())


def _worker_main(
    index: int,
    lo: int,
    hi: int,
    first_game: int,
    shm_name: str,
    layout: dict,
    kwargs: dict,
    observe: str,
    record: bool,
    conn,
    sems: tuple,
    spin: float,
    anchor: int,
) -> None:
    """Worker process ``index`` (shard ``index`` >= 1; the parent serves shard 0): wait for a
    command on the semaphore ``sems[0]``, whose code is in its control row; steps are served
    straight from the shared block and answered with a status word and ``sems[1]``; other
    commands (and errors) travel on the pipe. Ends on ``close``, or when the parent is gone
    (its pid changes) or closes the env."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us
    parent = os.getppid()
    cmd_sem, done_sem, prev, own = sems
    shm = SharedMemory(name=shm_name)
    views: dict = {}
    try:
        views = _views(shm.buf, layout)
        ctrl = views["ctrl"][index]

        def check() -> None:
            if os.getppid() != parent or ctrl[_CODE] == _CLOSE:
                raise _Gone

        env = _make_shard(lo, hi, first_game, views, observe, kwargs, record, index)
        packed = observe == "packed"
        slot = _ChainSlot(index, views["ends"], prev, own, spin, check, anchor) if packed else None
        conn.send(("ok", None))
        waiter = _Waiter(spin)
        while True:
            waiter.wait(cmd_sem, check, 1.0)
            code = int(ctrl[_CODE])
            if code == _CLOSE:
                return
            if code != _PIPE:
                cmd = "step" if code == _STEP_CMD else "step_random"
                arg = {"seed": int(ctrl[_KEY]), "step": int(ctrl[_STEP]), "offset": slot}
                status, payload = _answer(env, views, cmd, arg)
                ctrl[_STATUS] = _OK if status == "ok" else _ERROR
                if status != "ok":
                    conn.send((status, payload))
                done_sem.release()
                continue
            try:
                cmd, arg = conn.recv()
            except (EOFError, OSError):
                return  # the parent is gone
            if cmd == "cpu":
                conn.send(("ok", time.process_time()))
                continue
            if cmd == "waits":  # its command waits and the packed-offset chain's
                chain = slot.waiter.stats() if slot is not None else None
                conn.send(("ok", {"command": waiter.stats(), "chain": chain}))
                continue
            if cmd == "reset" and packed:
                arg["offset"] = slot
            conn.send(_answer(env, views, cmd, arg))
    except _Gone:
        return
    finally:
        views.clear()
        env = ctrl = slot = None
        try:
            shm.close()
        except BufferError:  # a view still referenced: the OS unmaps it at exit
            pass


def _sched_yield_function():
    """libc's ``sched_yield`` as a ctypes function (None where there is none)."""
    try:
        fn = ctypes.CDLL(None).sched_yield
    except (OSError, AttributeError, TypeError):
        return None
    fn.restype, fn.argtypes = ctypes.c_int, []
    return fn


_SCHED_YIELD = _sched_yield_function()


def _make_poll():
    """The thread backend's polling kernel (None without ``sched_yield``):
    ``poll(seq, i, j, target, polls) -> bool``, True once ``seq[i, j] >= target`` (int64),
    False after ``polls`` tries. It runs without the GIL, so the threads it waits for run
    their Python meanwhile; each try that fails yields the CPU (``sched_yield``: a no-op on
    an idle core, another thread's turn on a busy one), and that opaque call makes every try
    read ``seq`` from memory again. Compiled on first use (a ctypes function: not cached)."""
    if _SCHED_YIELD is None:
        return None
    yield_ = _SCHED_YIELD

    @njit(nogil=True)
    def poll(seq, i, j, target, polls):
        for _ in range(polls):
            if seq[i, j] >= target:
                return True
            yield_()
        return seq[i, j] >= target

    return poll


class _ThreadPoller:
    """Thread backend: polls a sequence word without the GIL before a blocking queue wait
    (as :class:`_Waiter` for the process backend: a blocked wait on an idle core costs the
    wake-up of a sleeping CPU). The budget (tries, calibrated to ``spin`` seconds) doubles
    after a wait answered while polling and halves (down to 1/64) after one that was not;
    every 256th wait polls the full budget again. ``spin = 0`` or no ``sched_yield``: never
    poll."""

    _kernel: Any = None
    _tries_per_s = 0.0

    def __init__(self, spin: float):
        cls = type(self)
        if spin > 0 and cls._kernel is None and _SCHED_YIELD is not None:
            cls._kernel = _make_poll()
            probe = np.zeros((1, 1), np.int64)
            cls._kernel(probe, 0, 0, 1, 10)  # compile
            t0 = time.perf_counter()
            cls._kernel(probe, 0, 0, 1, 2000)
            cls._tries_per_s = 2000 / max(time.perf_counter() - t0, 1e-6)
        self.full = int(spin * cls._tries_per_s) if cls._kernel is not None else 0
        self.budget = self.full
        self.count = 0

    def wait(self, seq: np.ndarray, i: int, j: int, target: int) -> bool:
        """True if ``seq[i, j]`` reached ``target`` while polling (then the queue holds the
        message); False: poll no more, block on the queue."""
        if self.full == 0:
            return False
        if seq[i, j] >= target:
            return True
        self.count += 1
        budget = self.full if self.count % 256 == 0 else self.budget
        if type(self)._kernel(seq, i, j, target, budget):
            self.budget = min(self.full, 2 * budget)
            return True
        self.budget = max(self.full // 64, budget // 2, 1)
        return False


class _ShardThread:
    """A helper thread of the thread backend serving one shard: commands arrive on
    ``self.commands``, answers leave on ``self.replies`` (both ``queue.SimpleQueue``); each
    message is also counted in ``seq[index]`` (commands in column 0, by the caller; replies
    in column 1, by this thread), which the waiting side polls without the GIL
    (:class:`_ThreadPoller`) before its blocking ``get``. ``self.cpu``: CPU seconds
    (``time.thread_time``) spent serving commands. If the thread ends for any reason other
    than ``close`` it posts ``("dead", text)`` first, so the caller never waits for
    nothing."""

    def __init__(self, index: int, env: _ShardEnv, views: dict, seq: np.ndarray, spin: float):
        self.index = index
        self.commands: queue.SimpleQueue = queue.SimpleQueue()
        self.replies: queue.SimpleQueue = queue.SimpleQueue()
        self.cpu = 0.0
        self.seq = seq
        self.poller = _ThreadPoller(spin)
        self.thread = threading.Thread(
            target=self._main, args=(env, views), name=f"mcr-shard-{index}", daemon=True
        )
        self.thread.start()

    def _main(self, env: _ShardEnv, views: dict) -> None:
        seq, i, taken = self.seq, self.index, 0
        try:
            while True:
                self.poller.wait(seq, i, 0, taken + 1)
                cmd, arg = self.commands.get()
                taken += 1
                if cmd == "close":
                    self.replies.put(("ok", None))
                    return
                if cmd == "cpu":
                    reply = ("ok", self.cpu)
                else:
                    t0 = time.thread_time()
                    reply = _answer(env, views, cmd, arg)
                    self.cpu += time.thread_time() - t0
                self.replies.put(reply)
                seq[i, 1] += 1
        except BaseException as e:  # noqa: BLE001 - the thread ends: say why, then end
            self.replies.put(("dead", f"{type(e).__name__}: {e}"))


def _stop_threads(threads: list[_ShardThread]) -> None:
    """Ask every helper thread to end and join it (a thread busy with a command ends after
    it)."""
    for t in threads:
        t.commands.put(("close", None))
    for t in threads:
        t.thread.join(timeout=10.0)


class _OffsetSlot:
    """Thread backend, packed observations: shard ``i``'s place in one step's packed block,
    around the anchor row as with :class:`_ChainSlot` (shard 0 ends there, shard 1 starts
    there; neither waits). :meth:`offset` publishes the shard's acting count and, for
    ``i >= 2``, waits (blocking, no spinning) for the counts of shards ``1..i-1``, so every
    shard encodes within its step command (one round per step; shards 0 and 1 never wait,
    so nothing can wait in a circle). Used as a context manager around the step: a failing
    step still publishes (count 0) and nobody waits for it forever."""

    def __init__(self, offsets: _PackedOffsets, index: int):
        self.offsets, self.index = offsets, index

    def offset(self, count: int) -> int:
        o = self.offsets
        o.counts[self.index] = count
        o.ready[self.index].set()
        if self.index == 0:
            return o.anchor - count
        for j in range(1, self.index):
            o.ready[j].wait()
        return o.anchor + int(sum(o.counts[1 : self.index]))

    def __enter__(self) -> _OffsetSlot:
        return self

    def __exit__(self, *exc) -> None:
        self.offsets.ready[self.index].set()


class _PackedOffsets:
    """The acting counts of one step's shards (thread backend), see :class:`_OffsetSlot`."""

    def __init__(self, k: int, anchor: int):
        self.anchor = int(anchor)
        self.counts = [0] * k
        self.ready = [threading.Event() for _ in range(k)]
        self.slots = [_OffsetSlot(self, i) for i in range(k)]

    def clear(self) -> None:
        """Before a step's commands are sent (every shard is idle then)."""
        for e in self.ready:
            e.clear()


def _serve(env: _ShardEnv, views: dict, cmd: str, arg: Any) -> Any:
    """Run one command on the shard; returns the (small) reply payload."""
    if cmd in ("reset", "step", "step_random"):
        # packed: encode within the command at the row the slot gives (_ChainSlot of the
        # process backend, _OffsetSlot of the thread backend; None: not packed)
        offset = arg.pop("offset")
        if offset is not None:
            with offset:
                return _serve_step(env, views, cmd, arg, offset)
        return _serve_step(env, views, cmd, arg, offset)
    if cmd == "observe":
        g, s = arg
        return env.observe(g, s)
    if cmd == "render":
        return env.render(*arg)
    if cmd == "state":
        return env.engine.state
    if cmd == "hand_results":
        return list(env.engine.last_hand_result)
    if cmd == "records":
        return env.engine.pop_finished() if hasattr(env.engine, "pop_finished") else []
    raise ValueError(f"unknown worker command {cmd!r}")


def _serve_step(env: _ShardEnv, views: dict, cmd: str, arg: dict, offset: Any) -> None:
    """``reset``/``step`` of one shard: outputs into the shared buffers, its acting count and
    finished tables in its row of ``counts`` (the finished tables' indices in ``final_rows``
    at :meth:`_ShardEnv._final_slot`); the reply is None."""
    v, lo = env.v, env.lo
    env.delta_masks = cmd == "step"  # the caller's policy read the masks (_publish_masks)
    if cmd == "reset":
        env.reset(**arg)
        info: dict = {}
        terminated = env.engine.terminated
        rewards = np.zeros((env.num_tables, 4), np.float32)
        v["settlement"][...] = 0
        v["player_settlement"][...] = 0
        v["hand_over"][...] = False
    else:
        actions = views["actions"][lo : env.hi]
        if cmd == "step_random":  # the shard draws its own tables' actions
            eng = env.engine
            bad = _keyed_actions(
                eng.legal_mask.view(np.uint8),
                eng.to_act,
                _seed_key(arg["seed"]),
                env.engine_first_game,
                arg["step"],
                actions,
            )
            if bad >= 0:
                table = lo + bad // 4
                raise RuntimeError(f"engine invariant: table {table} acts without a legal action")
        _, rewards, terminated, _, info = env.step(actions)
        np.copyto(v["settlement"], info["settlement"])
        np.copyto(v["hand_over"], info["hand_over"])
        if "player_settlement" in info:  # match mode
            np.copyto(v["player_settlement"], info["player_settlement"])
    np.copyto(v["rewards"], rewards)
    np.copyto(v["terminated"], terminated)
    rows = info.get("final_rows")
    n_final = 0 if rows is None else len(rows)
    if n_final:
        at = env._final_slot(n_final)
        np.add(rows, lo, out=v["final_rows"][at : at + n_final])
    n_acting = len(env.acting[0])
    env.counts[0] = n_acting
    env.counts[1] = n_final
    if offset is not None:  # packed: the slot says where this shard's rows go
        env.encode_packed(offset.offset(n_acting))
    return None


def _shutdown(
    procs: list, conns: list, shm: SharedMemory | None, ctrl_offset: int, cmd_sems: list
) -> None:
    """Stop every worker (a close code in its control row and a wake-up, then terminate, then
    kill) and free the shared memory."""
    if procs and shm is not None:
        try:
            ctrl = np.ndarray((len(cmd_sems), 4), np.uint64, buffer=shm.buf, offset=ctrl_offset)
            ctrl[:, _CODE] = _CLOSE
            del ctrl
        except (TypeError, ValueError):  # the block is gone already
            pass
        for sem in cmd_sems[1:]:
            sem.release()
    for p in procs:
        p.join(timeout=2.0)
        if p.is_alive():
            p.terminate()
            p.join(timeout=1.0)
        if p.is_alive():
            p.kill()
            p.join(timeout=1.0)
    for c in conns:
        try:
            c.close()
        except OSError:
            pass
    if shm is not None:
        try:
            shm.close()
        except BufferError:  # views still alive in the parent: the OS frees it at exit
            pass
        try:
            shm.unlink()
        except FileNotFoundError:
            pass


def _refused(name: str, msg: str) -> bool:
    """Whether a shard's step error is its engine refusing an illegal action
    (:meth:`MCREngine.step` with ``illegal_action="raise"``: a ValueError whose text starts
    ``"illegal action "``, raised before any game changes)."""
    return name == "ValueError" and msg.startswith("illegal action ")


def _exit_text(code: int | None) -> str:
    if code is None:
        return "exit code unknown"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


class ShardedBatchEnv:
    """:class:`~mcr_env.envs.batch.MCRBatchEnv` over ``num_workers`` shards: the caller and k - 1
    worker processes or helper threads.

    Args:
        num_tables: B >= 1.
        config, encoder, reward, reward_kwargs, autoreset_mode, observe, claim_round: as for
            :class:`~mcr_env.envs.batch.MCRBatchEnv` (an ``Encoder`` or ``RewardFunction``
            object must be picklable: each worker gets its own copy; ``claim_round="all"`` by
            default, "options" leaks hidden hands through ``to_act``, docs/rules.md §10).
        num_workers: k shards (default :func:`default_num_workers`), at most B
            (``self.num_workers`` is the number used): the caller serves shard 0 and k - 1
            worker processes or threads the others.
        copy_obs: return fresh arrays (default) or read-only views into the shared
            buffers, valid until the next ``step``/``reset`` (every array of the results:
            observations, masks, ``to_act``, rewards, flags and ``info``'s arrays; module
            docstring).
        record: wrap each shard's engine in :class:`mcr_env.engine.records.GameRecorder`;
            finished games' records are fetched with :meth:`pop_records`.
        start_method: multiprocessing start method (``"spawn"`` default, ``"forkserver"``,
            ``"fork"``).
        first_game: global index of table 0 when these B tables are themselves part of a
            larger batch (e.g. one Ray actor's share): shard i's engine gets
            ``first_game + lo``; ``games`` in packed observations stay local (0..B-1).
        backend: ``"process"`` (default: k worker processes, shared memory; for many cores)
            or ``"thread"`` (the k shards in this process: the calling thread runs shard 0
            inside ``step`` and k - 1 helper threads the others, in parallel because the
            engine's and the encoders' numba kernels release the GIL; no IPC and no extra
            process, so on a few cores it costs less; ``start_method`` is ignored). Both give
            identical results.
        spin: the most seconds a wait for the other side (a worker for its next command,
            the caller for a worker's step, a shard for the packed offset of the one before
            it) polls before it blocks (default :data:`DEFAULT_SPIN`; adaptive: less after
            polls that failed; processes: :class:`_Waiter`, threads: :class:`_ThreadPoller`,
            which polls without the GIL; 0 = always block at once).
        obs_dtype: dtype of ``observation`` and ``info["final_obs"]`` in the shared buffers
            and the arrays returned: ``"float32"`` (default) or ``"uint8"`` where the encoder
            writes it, exactly as :class:`~mcr_env.envs.batch.MCRBatchEnv`'s ``obs_dtype``
            (the same values; a quarter of the bytes to write and read per step).

    ``reset``/``step``/``step_random`` return exactly what ``MCRBatchEnv`` returns for the
    same arguments (``obs`` dict with ``observation``, ``action_mask (B, 4, 235) int8`` (1 = legal,
    :data:`mcr_env.envs.batch.MASK_DTYPE`), ``to_act (B, 4) bool``, and ``games``/``seats``
    with ``observe="packed"``; ``rewards (B, 4) float32``, ``terminated (B,) bool``,
    ``truncated (B,) bool``, ``info`` with ``settlement (B, 4) int32``, ``hand_over (B,)
    bool``, ``player_at_seat`` and ``player_settlement`` in match mode, ``final_obs`` /
    ``final_rows`` with same-step autoreset).

    Raises:
        ValueError / TypeError: bad arguments (the message names them).
        WorkerError: a worker failed to start or died (the env is closed).
    """

    def __init__(
        self,
        num_tables: int,
        config: RulesConfig | None = None,
        encoder: Any = "planes-v0",
        reward: str | RewardFunction = "settlement",
        reward_kwargs: dict | None = None,
        autoreset_mode: str = "same_step",
        observe: str = "all",
        claim_round: str = "all",
        num_workers: int | None = None,
        copy_obs: bool = True,
        record: bool = False,
        start_method: str = "spawn",
        first_game: int = 0,
        backend: str = "process",
        obs_dtype: Any = "float32",
        spin: float = DEFAULT_SPIN,
    ):
        self._procs: list = []
        self._conns: list = []
        self._shm: SharedMemory | None = None
        self._threads: list[_ShardThread] = []
        self._closed = True
        if backend not in BACKENDS:
            raise ValueError(f"backend {backend!r} not valid; valid: {', '.join(BACKENDS)}")
        self.backend = backend
        if isinstance(num_tables, bool) or not isinstance(num_tables, (int, np.integer)):
            raise TypeError(f"num_tables must be an int, got {type(num_tables).__name__}")
        if num_tables < 1:
            raise ValueError(f"num_tables must be >= 1, got {num_tables}")
        check_modes(autoreset_mode, observe)
        if num_workers is None:
            num_workers = default_num_workers()
        if isinstance(num_workers, bool) or not isinstance(num_workers, (int, np.integer)):
            raise TypeError(f"num_workers must be an int or None, got {type(num_workers).__name__}")
        if num_workers < 1:
            raise ValueError(f"num_workers must be >= 1, got {num_workers}")
        config = table_config(config, claim_round)
        if isinstance(first_game, bool) or not isinstance(first_game, (int, np.integer)):
            raise TypeError(f"first_game must be an int, got {type(first_game).__name__}")
        if first_game < 0:
            raise ValueError(f"first_game must be >= 0, got {first_game}")
        self.first_game = int(first_game)
        self.num_tables = int(num_tables)
        self.config = config
        self.encoder = get_encoder(encoder) if isinstance(encoder, str) else encoder
        self.reward_fn = make_reward(reward, **(reward_kwargs or {}))  # validates the spec
        # as MCRBatchEnv: the encoder's check, float32 only for an encoder without one
        check = getattr(self.encoder, "check_dtype", None)
        self.obs_dtype = np.dtype(obs_dtype) if check is None else check(obs_dtype)
        if check is None and self.obs_dtype != np.float32:
            raise ValueError(f"encoder {self.encoder!r} writes float32 observations only")
        self.autoreset_mode = autoreset_mode
        self.observe_mode = observe
        self.copy_obs = bool(copy_obs)
        self.num_workers = int(min(num_workers, num_tables))
        self.shards = shard_bounds(self.num_tables, self.num_workers)
        self._started = False
        self._root_drawn = False
        self._steps = 0  # env steps since the last reset (the key of step_random's draws)
        b, c = self.num_tables, self.encoder.num_channels
        layout = _layout(b, c, observe, autoreset_mode, self.obs_dtype, self.num_workers)
        kwargs = {
            "config": config,
            "encoder": encoder,
            "reward": reward,
            "reward_kwargs": reward_kwargs,
            "autoreset_mode": autoreset_mode,
            "claim_round": claim_round,
            "obs_dtype": self.obs_dtype.name,
        }
        self._inline: tuple[str, Any] | None = None  # shard 0's pending command
        self._ro: dict[str, np.ndarray] = {}  # read-only views of the shared buffers
        # copy_obs=False: truncated, a read-only view of all-False (tables never truncate)
        self._no_truncation = np.zeros(self.num_tables, dtype=bool).view()
        self._no_truncation.flags.writeable = False
        self._cpu0 = 0.0  # CPU seconds the caller spent serving shard 0
        # packed rows: shard 0's end at this row, shard 1's start there (_ChainSlot)
        self._anchor = 4 * self.shards[0][1]
        if isinstance(spin, bool) or not isinstance(spin, (int, float)) or not spin >= 0:
            raise ValueError(f"spin must be a number of seconds >= 0, got {spin!r}")
        self.spin = float(spin)
        if backend == "thread":
            self._start_threads(layout, kwargs, observe, record)
            return
        k = self.num_workers
        if k == 1:  # no worker: this process's memory. Measured: a shard over a shared block
            # (tmpfs, no transparent huge pages on this machine) took ~10% more CPU per step at
            # B = 2048 than over this process's memory
            self._buf = np.zeros(max(_nbytes(layout), 1), dtype=np.uint8)
            self._v = _views(self._buf, layout)
        else:
            self._shm = SharedMemory(create=True, size=max(_nbytes(layout), 1))
            self._v = _views(self._shm.buf, layout)
        ctx = mp.get_context(start_method)
        # worker i >= 1: a command and a done semaphore; chain[i], 1 <= i <= k - 2: shard i
        # published where its packed rows end (read by shard i + 1; shards 0 and 1 meet at
        # the anchor and wait for nobody)
        self._cmd_sems = [None] + [ctx.Semaphore(0) for _ in range(1, k)]
        self._done_sems = [None] + [ctx.Semaphore(0) for _ in range(1, k)]
        chain = [None] + [ctx.Semaphore(0) for _ in range(1, k - 1)] + [None]
        self._fast = [False] * k  # worker i's pending command went through the control row
        self._waiters = [_Waiter(self.spin) for _ in range(k)]
        self._closed = False
        self._finalizer = weakref.finalize(
            self,
            _shutdown,
            self._procs,
            self._conns,
            self._shm,
            _offsets(layout)["ctrl"],
            self._cmd_sems,
        )
        lo0, hi0 = self.shards[0]
        kw0 = copy.deepcopy(kwargs)  # the parent's shard: its own objects, as a worker's
        self._shard_envs = [_make_shard(lo0, hi0, first_game, self._v, observe, kw0, record, 0)]
        packed = observe == "packed"
        self._slot0 = (
            _ChainSlot(0, self._v["ends"], None, None, self.spin, None, self._anchor)
            if packed
            else None
        )
        for i in range(1, k):
            lo, hi = self.shards[i]
            parent_end, child_end = ctx.Pipe(duplex=True)
            sems = (self._cmd_sems[i], self._done_sems[i], chain[i - 1], chain[i])
            p = ctx.Process(
                target=_worker_main,
                args=(i, lo, hi, first_game, self._shm.name, layout, kwargs, observe, record)
                + (child_end, sems, self.spin, self._anchor),
                name=f"mcr-shard-{i}",
                daemon=True,
            )
            p.start()
            child_end.close()  # the worker sees EOF once the parent's end closes
            self._procs.append(p)
            self._conns.append(parent_end)
        self._gather(range(1, k), "start")

    def _start_threads(self, layout: dict, kwargs: dict, observe: str, record: bool) -> None:
        """Thread backend: the shard envs over one in-process buffer, helper threads for
        shards 1..k-1 (shard 0 is served by the caller)."""
        self._buf = np.zeros(max(_nbytes(layout), 1), dtype=np.uint8)
        self._v = _views(self._buf, layout)
        self._offsets = _PackedOffsets(self.num_workers, self._anchor)
        self._closed = False
        self._finalizer = weakref.finalize(self, _stop_threads, self._threads)
        self._shard_envs = []
        for i, (lo, hi) in enumerate(self.shards):
            # each shard its own encoder and reward objects, as each worker process has
            kw = {k: copy.deepcopy(v) for k, v in kwargs.items()}
            self._shard_envs.append(
                _make_shard(lo, hi, self.first_game, self._v, observe, kw, record, i)
            )
        # messages to (column 0) and from (column 1) each helper, polled before blocking
        self._tseq = np.zeros((self.num_workers, 2), np.int64)
        self._tpollers = [_ThreadPoller(self.spin) for _ in range(self.num_workers)]
        self._treplies = [0] * self.num_workers  # replies taken from each helper
        for i in range(1, self.num_workers):
            self._threads.append(
                _ShardThread(i, self._shard_envs[i], self._v, self._tseq, self.spin)
            )

    # ------------------------------------------------------------------ plumbing
    def _recv(self, i: int, what: str) -> tuple[str, Any]:
        """The reply of worker ``i`` to its pending command (shard 0: run the command now, in
        the calling thread)."""
        if i == 0:
            cmd, arg = self._inline
            self._inline = None
            if cmd == "cpu":
                return "ok", self._cpu0
            t0 = time.thread_time()
            reply = _answer(self._shard_envs[0], self._v, cmd, arg)
            self._cpu0 += time.thread_time() - t0
            return reply
        if self.backend == "process":
            if self._fast[i]:  # a step through the control row: wait for the status word
                self._fast[i] = False
                proc = self._procs[i - 1]

                def check() -> None:
                    if proc.exitcode is not None:
                        self._died(i, what)

                self._waiters[i].wait(self._done_sems[i], check, 0.05)
                if self._v["ctrl"][i, _STATUS] == _OK:
                    return "ok", {}
            try:
                return self._conns[i - 1].recv()
            except (EOFError, OSError):
                self._died(i, what)
        helper = self._threads[i - 1]
        self._treplies[i] += 1
        self._tpollers[i].wait(self._tseq, i, 1, self._treplies[i])
        while True:
            try:
                reply = helper.replies.get(timeout=1.0)
            except queue.Empty:
                if not helper.thread.is_alive():
                    self._died(i, what)
                continue
            if reply[0] == "dead":
                self._died(i, what, reply[1])
            return reply

    def _gather(self, workers, what: str) -> dict[int, Any]:
        """Replies of ``workers`` (indices), in order; a dead worker is noticed by the end of
        its pipe (the parent holds only its own end, so a worker's exit closes the pipe and
        ``recv`` raises EOFError) or, with threads, by the note a helper thread posts when it
        ends; re-raise errors. A blocking ``recv`` per worker: waiting on every pipe and
        process sentinel at once built a selector per call (about 0.1 ms of parent CPU per
        step). Interrupted (e.g. Ctrl-C) the shards are out of step: the env is closed."""
        try:
            return self._gather_replies(workers, what)
        except (WorkerError, ValueError, TypeError):
            raise
        except BaseException:
            self.close()
            raise

    def _gather_replies(self, workers, what: str) -> dict[int, Any]:
        replies: dict[int, Any] = {}
        errors: list[tuple[int, tuple]] = []
        for i in sorted({int(i) for i in workers}):
            status, payload = self._recv(i, what)
            if status == "ok":
                replies[i] = payload
            else:
                errors.append((i, payload))
        if errors:
            i, (name, msg, tb) = errors[0]
            lo, hi = self.shards[i]
            exc_type = {"ValueError": ValueError, "TypeError": TypeError}.get(name)
            text = f"shard {i} (tables {lo}..{hi - 1}, local index = table - {lo}): {msg}"
            if exc_type is not None and what == "reset":
                raise exc_type(text)
            if self.num_workers == 1 and what == "step" and _refused(name, msg):
                raise ValueError(msg)  # the engine's own text; it changed nothing
            self.close()
            raise WorkerError(
                f"{what} failed in {text}; the env is closed. Worker traceback:\n{tb}"
            )
        return replies

    def _died(self, i: int, what: str, why: str | None = None) -> None:
        lo, hi = self.shards[i]
        if self.backend == "thread":
            who, how = f"thread {self._threads[i - 1].thread.name}", why or "ended"
        else:
            proc = self._procs[i - 1]
            proc.join(timeout=1.0)
            who, how = f"pid {proc.pid}", _exit_text(proc.exitcode)
        text = (
            f"shard worker {i} ({who}, tables {lo}..{hi - 1}) died during {what} "
            f"({how}); all workers were stopped and the env is closed"
        )
        self.close()
        raise WorkerError(text)

    def _send(self, i: int, cmd: str, arg: Any = None) -> None:
        """Give worker ``i`` its next command (shard 0: kept for :meth:`_recv` to run).
        Process backend: a step's code, seed and step number go in the worker's control row,
        anything else on its pipe; then its command semaphore wakes it."""
        if i == 0:
            self._inline = (cmd, arg)
            return
        if self.backend == "thread":
            self._threads[i - 1].commands.put((cmd, arg))
            self._tseq[i, 0] += 1  # after the put: a helper that sees it finds the message
            return
        ctrl = self._v["ctrl"][i]
        code = _FAST.get(cmd)
        if code is not None:
            ctrl[_KEY] = _seed_key(arg.get("seed", 0))
            ctrl[_STEP] = arg.get("step", 0)
            self._fast[i] = True
        else:
            code = _PIPE
            try:
                self._conns[i - 1].send((cmd, arg))
            except (OSError, BrokenPipeError):
                self._died(i, cmd)
        ctrl[_CODE] = code
        self._cmd_sems[i].release()

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("the ShardedBatchEnv is closed")

    def _step_offsets(self) -> list:
        """The ``offset`` of each shard's reset/step command (packed observations): every
        shard encodes within the command, at the row its slot gives (threads:
        :class:`_OffsetSlot`; processes: :class:`_ChainSlot`, the workers' own)."""
        if self.observe_mode != "packed":
            return [None] * self.num_workers
        if self.backend == "thread":
            self._offsets.clear()
            return self._offsets.slots
        return [self._slot0] + [None] * (self.num_workers - 1)

    def _view(self, name: str) -> np.ndarray:
        """A read-only view of the shared buffer ``name`` (made once)."""
        view = self._ro.get(name)
        if view is None:
            view = self._v[name].view()
            view.flags.writeable = False
            self._ro[name] = view
        return view

    def _out(self, name: str, start: int | None = None, end: int | None = None) -> np.ndarray:
        """Rows ``start:end`` (default all) of the shared buffer ``name`` as returned: a copy
        (``copy_obs=True``) or a read-only view of the buffer, valid until the next step."""
        view = self._view(name)
        if start is not None:
            view = view[start:end]
        return view.copy() if self.copy_obs else view

    def _collect(self) -> dict[str, np.ndarray]:
        """The observation dict of a finished reset/step (from the shared buffers; the
        packed rows where the shards put them: around the anchor, :class:`_ChainSlot`)."""
        obs: dict[str, np.ndarray] = {
            "action_mask": self._out("action_mask"),
            "to_act": self._out("to_act"),
        }
        mode = self.observe_mode
        if mode in ("all", "acting"):
            obs["observation"] = self._out("observation")
        elif mode == "packed":
            counts = self._v["counts"][:, 0]
            start = self._anchor - int(counts[0])
            end = start + int(counts.sum())
            obs["observation"] = self._out("observation", start, end)
            obs["games"] = self._out("games", start, end)
            obs["seats"] = self._out("seats", start, end)
        return obs

    def _finals(self, info: dict) -> None:
        """Same-step autoreset, some table finished: ``info["final_rows"]`` and
        ``info["final_obs"]`` from where the shards put them (:class:`_ShardEnv`: shard 0's
        end at ``hi_0``, shard 1's start there; those of shards 2.. are moved down behind
        them here, a few rows: the tables that ended at this step)."""
        v = self._v
        done = v["counts"][:, 1]
        hi0 = self.shards[0][1]
        start, end = hi0 - int(done[0]), hi0
        for i in range(1, self.num_workers):
            n = int(done[i])
            lo = self.shards[i][0]
            if n and lo != end:  # shard i >= 2: behind the rows of shard i - 1 (overlap-safe)
                np.copyto(v["final_rows"][end : end + n], v["final_rows"][lo : lo + n])
                if "final_obs" in v:
                    np.copyto(
                        v["final_obs"][4 * end : 4 * (end + n)],
                        v["final_obs"][4 * lo : 4 * (lo + n)],
                    )
            end += n
        info["final_rows"] = self._out("final_rows", start, end)
        if "final_obs" in v:
            block = self._out("final_obs", 4 * start, 4 * end)
            info["final_obs"] = block.reshape(end - start, 4, *block.shape[1:])

    # ------------------------------------------------------------------ reset / step
    def reset(self, seed: int | None = None, walls: Any = None) -> tuple[dict, dict]:
        """Deal new hands at every table (as :meth:`MCRBatchEnv.reset`).

        Args:
            seed: root seed (table b's walls derive from (seed, b, episode), whatever k and B).
            walls: optional explicit walls ``(B, 144)`` / ``(B, 136)`` (``(B, 16, L)`` in match
                mode), split over the shards.

        Returns:
            ``(obs, info)``; ``info["player_at_seat"]`` ``(B, 4) int8``.

        Raises:
            TypeError / ValueError: bad seed or walls. WorkerError: a worker died.
        """
        self._check_open()
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
                raise TypeError(f"seed must be an int or None, got {type(seed).__name__}")
        elif not self._root_drawn:
            # one random root seed shared by every table, as in one engine
            seed = int(np.random.SeedSequence().entropy % (1 << 63))
        self._root_drawn = True
        parts: list[Any] = [None] * self.num_workers
        if walls is not None:
            arr = np.asarray(walls)
            if arr.ndim not in (2, 3) or arr.shape[0] != self.num_tables:
                raise ValueError(
                    f"walls must have B = {self.num_tables} rows, got shape {arr.shape}"
                )
            check_walls(arr.reshape(-1, arr.shape[-1]), self.config.wall_layout)
            parts = [arr[lo:hi] for lo, hi in self.shards]
        offsets = self._step_offsets()
        for i in range(self.num_workers):
            self._send(i, "reset", {"seed": seed, "walls": parts[i], "offset": offsets[i]})
        self._gather(range(self.num_workers), "reset")
        self._started = True
        self._steps = 0
        obs = self._collect()
        return obs, {"player_at_seat": self._v["player_at_seat"].copy()}

    def step(self, actions: Any) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Apply ``actions (B, 4)`` in every shard at once (as :meth:`MCRBatchEnv.step`).

        Raises:
            RuntimeError: before ``reset`` or after ``close``.
            ValueError / TypeError: shape or dtype of ``actions``; an illegal action for an
                acting seat (with ``illegal_action="raise"``; checked here, before any shard
                steps, so no table changes; the message names the global table index, as
                the engine's; with k = 1 the one shard's engine checks it, also before it
                changes anything, and this scan of the masks is saved).
            WorkerError: a worker died or failed (the env is closed).
        """
        self._check_open()
        if not self._started:
            raise RuntimeError("call reset() before step()")
        b, v = self.num_tables, self._v
        acts = np.asarray(actions)
        if acts.shape != (b, 4):
            raise ValueError(f"actions must have shape (B, 4) = ({b}, 4), got {acts.shape}")
        if acts.dtype == bool or not np.issubdtype(acts.dtype, np.integer):
            raise TypeError(f"actions must be integer action ids, got dtype {acts.dtype}")
        np.copyto(v["actions"], acts, casting="unsafe")  # read by the workers on "step"
        if self.config.illegal_action == "raise" and self.num_workers > 1:
            self._check_legal(acts)  # k = 1: the shard's engine refuses (_gather_replies)
        return self._step_shards("step", {})

    def step_random(self, seed: int = 0) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Every acting seat plays a uniformly random legal action, drawn inside the shards
        (in parallel, nothing computed or copied in the caller): random play for benchmarks,
        random opponents and tests. Returns what :meth:`step` returns.

        Seeding: the actions are :func:`keyed_random_actions` of the current masks with
        ``seed`` and ``step`` = the env steps (``step`` and ``step_random`` calls) since the
        last :meth:`reset`, table ``g``'s draws keyed by its global index
        ``first_game + g``. So they depend on neither k, nor B, nor the backend:
        ``MCRBatchEnv.step(keyed_random_actions(obs["action_mask"], obs["to_act"], seed, t))``
        at step ``t`` plays the same games (a tested property).

        Args:
            seed: any int (taken modulo 2**64); the same seed may be used at every step.

        Raises:
            RuntimeError: before ``reset`` or after ``close``.
            TypeError: ``seed`` is not an int.
            WorkerError: a worker died or failed (the env is closed).
        """
        self._check_open()
        if not self._started:
            raise RuntimeError("call reset() before step_random()")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"seed must be an int, got {type(seed).__name__}")
        return self._step_shards("step_random", {"seed": int(seed), "step": self._steps})

    def _step_shards(self, cmd: str, arg: dict) -> tuple:
        """One ``step``/``step_random`` command to every shard; the step's results."""
        v = self._v
        offsets = self._step_offsets()
        for i in range(self.num_workers):
            self._send(i, cmd, {**arg, "offset": offsets[i]})
        self._gather(range(self.num_workers), cmd)
        self._steps += 1  # (not after a step the k = 1 shard's engine refused)
        obs = self._collect()
        out = self._out
        terminated = out("terminated")
        info: dict[str, Any] = {"settlement": out("settlement"), "hand_over": out("hand_over")}
        if self.config.match == "match":
            info["player_at_seat"] = out("player_at_seat")
            info["player_settlement"] = out("player_settlement")
        if self.autoreset_mode == "same_step" and v["counts"][:, 1].any():
            self._finals(info)
        truncated = np.zeros_like(terminated) if self.copy_obs else self._no_truncation
        return obs, out("rewards"), terminated, truncated, info

    def _check_legal(self, acts: np.ndarray) -> None:
        """Raise the engine's ValueError for the first acting seat (in (game, seat) order, as
        the engine) whose action is illegal; the actions were copied into the shared int64
        buffer already (a compiled scan of it, :func:`_first_illegal`)."""
        v = self._v
        bad = _first_illegal(v["action_mask"], v["to_act"], v["actions"])
        if bad >= 0:
            gi, si = divmod(int(bad), 4)
            legal_ids = np.nonzero(v["action_mask"][gi, si])[0].tolist()
            raise ValueError(
                f"illegal action {int(acts[gi, si])} for game {gi}, seat {si} "
                f"(phase {Phase(int(v['phase'][gi])).name}); legal: {legal_ids}"
            )

    # ------------------------------------------------------------------ queries
    def _split_pairs(self, games: Any, seats: Any) -> tuple[np.ndarray, np.ndarray]:
        b = self.num_tables
        if games is None and seats is None:
            g = np.repeat(np.arange(b), 4)
            s = np.tile(np.arange(4), b)
        else:
            g = np.asarray(games, dtype=np.int64).reshape(-1)
            s = np.asarray(seats, dtype=np.int64).reshape(-1)
            if g.shape != s.shape:
                raise ValueError(f"games {g.shape} and seats {s.shape} differ in shape")
            if g.size and (g.min() < 0 or g.max() >= b):
                raise ValueError(f"game index out of range 0..{b - 1}")
            if s.size and (s.min() < 0 or s.max() > 3):
                raise ValueError("seat index out of range 0..3")
        return g, s

    def observe(self, games: Any = None, seats: Any = None) -> np.ndarray:
        """Observations of (game, seat) pairs now: ``(N, C, 34) float32`` (all pairs:
        ``(B * 4, C, 34)``, game-major), as :meth:`MCRBatchEnv.observe`."""
        self._check_open()
        g, s = self._split_pairs(games, seats)
        out = np.zeros((len(g), *self.encoder.shape), dtype=np.float32)
        asked = []
        for i, (lo, hi) in enumerate(self.shards):
            sel = np.nonzero((g >= lo) & (g < hi))[0]
            if sel.size:
                self._send(i, "observe", (g[sel] - lo, s[sel]))
                asked.append((i, sel))
        replies = self._gather([i for i, _ in asked], "observe")
        for i, sel in asked:
            out[sel] = replies[i]
        return out

    def _owner(self, game: int) -> int:
        if not 0 <= int(game) < self.num_tables:
            raise ValueError(f"game index {game} out of range 0..{self.num_tables - 1}")
        return next(i for i, (lo, hi) in enumerate(self.shards) if lo <= game < hi)

    def render(self, game: int = 0, seat: int | None = None) -> str:
        """Text of table ``game`` (seen from ``seat``, or everything if None)."""
        self._check_open()
        i = self._owner(game)
        self._send(i, "render", (int(game) - self.shards[i][0], seat))
        return self._gather([i], "render")[i]

    def _all(self, cmd: str) -> list:
        self._check_open()
        for i in range(self.num_workers):
            self._send(i, cmd)
        replies = self._gather(range(self.num_workers), cmd)
        return [replies[i] for i in range(self.num_workers)]

    def get_state(self) -> GameState:
        """The :class:`~mcr_env.engine.state.GameState` of all B tables now (gathered from the
        workers: a copy, not per-step material)."""
        parts = self._all("state")
        return GameState(
            **{
                f.name: np.concatenate([getattr(p, f.name) for p in parts])
                for f in dataclasses.fields(GameState)
            }
        )

    def hand_results(self) -> list:
        """``MCREngine.last_hand_result`` of all B tables (``HandResult`` or None each)."""
        return [r for part in self._all("hand_results") for r in part]

    def pop_records(self) -> list[dict]:
        """Records of the games finished since the last call (``record=True``), shard by shard
        in finishing order; ``origin.game`` is the global table index (RuntimeError if the env
        was built without ``record=True``)."""
        return [r for part in self._all("records") for r in part]

    def worker_cpu_seconds(self) -> list[float]:
        """CPU seconds each worker has used so far, in shard order: benchmarks on a loaded
        machine compare CPU time, not only wall time. Shard 0 (both backends): the thread
        time (``time.thread_time``) the caller spent serving it, so the caller's own part is
        its thread time minus ``[0]``; the other shards: each worker process's user + system
        time (``time.process_time``, its waits' polling included) or the thread time spent
        serving each shard's commands."""
        return [float(x) for x in self._all("cpu")]

    def wait_stats(self) -> list[dict]:
        """How the waits of the process backend went so far (a benchmark diagnostic: a wait
        that has to block costs a wake-up, on an idle virtual CPU tens to hundreds of
        microseconds, which polling for up to ``spin`` seconds avoids), one dict per worker
        process (shards 1..k-1, in order): ``"done"``, the caller's waits for that worker's
        step answers; ``"command"``, the worker's waits for its next command (every command,
        this query's included: the time the caller spends between steps); ``"chain"``, with
        packed observations and shards 2.., the worker's waits for the packed offset of the
        shard before it (None otherwise). Each: ``waits``, ``at_once`` (answered before the
        wait), ``polled`` (answered while polling), ``blocked``, ``poll_s`` and ``block_s``
        (wall seconds). Empty for the thread backend and k = 1 (no worker process).

        Raises:
            RuntimeError: the env is closed. WorkerError: a worker died.
        """
        self._check_open()
        if self.backend != "process" or self.num_workers == 1:
            return []
        workers = range(1, self.num_workers)
        for i in workers:
            self._send(i, "waits")
        replies = self._gather(workers, "waits")
        return [
            {
                "done": self._waiters[i].stats(),
                "command": replies[i]["command"],
                "chain": replies[i]["chain"] if i >= 2 else None,
            }
            for i in workers
        ]

    # ------------------------------------------------------------------ lifetime
    def close(self) -> None:
        """Stop the workers and free the shared memory (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self._v, self._ro = {}, {}
        self._finalizer()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran (or a worker died)."""
        return self._closed

    @property
    def worker_pids(self) -> list[int]:
        """Process ids of the worker processes of shards 1..k-1 (in shard order; the caller
        serves shard 0; empty with the thread backend or k = 1)."""
        return [p.pid for p in self._procs]

    @property
    def worker_threads(self) -> list[threading.Thread]:
        """The helper threads of the thread backend (shards 1..k-1; empty otherwise)."""
        return [t.thread for t in self._threads]

    def __enter__(self) -> ShardedBatchEnv:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:  # the finalizer also runs at interpreter exit
        try:
            self.close()
        except Exception:
            pass


def make_batch_env(num_tables: int, num_workers: int | None = 0, **kwargs: Any):
    """A batch env of ``num_tables`` tables: in-process :class:`MCRBatchEnv` when
    ``num_workers`` is 0, else a :class:`ShardedBatchEnv` with ``num_workers`` workers
    (None = :func:`default_num_workers`). ``kwargs`` go to the env (``copy_obs``, ``record``,
    ``start_method`` and ``backend`` only to the sharded one; ``first_game`` to both)."""
    if num_workers == 0:
        for k in ("copy_obs", "record", "start_method", "backend"):
            kwargs.pop(k, None)
        return MCRBatchEnv(num_tables, **kwargs)
    return ShardedBatchEnv(num_tables, num_workers=num_workers, **kwargs)
