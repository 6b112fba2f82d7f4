"""Helpers shared by the environments: batched random legal actions and opponent policies."""

from __future__ import annotations

import sys
from importlib.metadata import entry_points
from typing import Any

import numpy as np
from numba import njit

from mcr_env.encoding.seat_view import SeatView
from mcr_env.engine.actions import NUM_ACTIONS
from mcr_env.rewards import ScaledReward, SettlementReward, WinLossReward


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row, drawn batched (no Python loop over rows).

    Args:
        mask: ``(..., 235) bool`` legal actions.
        rng: numpy Generator (advanced by one ``random`` call of shape ``mask.shape[:-1]``).

    Returns:
        ``(...) int64`` action ids; rows without any legal action get 0 (Pass).
    """
    mask = np.asarray(mask, dtype=bool)
    cnt = mask.sum(axis=-1)
    k = np.floor(rng.random(mask.shape[:-1]) * cnt).astype(np.int64)
    cs = np.cumsum(mask, axis=-1, dtype=np.int16)
    a = np.argmax(cs > k[..., None], axis=-1)
    return np.where(cnt > 0, a, 0).astype(np.int64)


class RandomPolicy:
    """Uniformly random legal action; batched ``.act(obs, mask, view=None) -> (N,)``.

    Args:
        rng: a numpy Generator or a seed; the environment reseeds it through :meth:`seed`.
    """

    needs_obs = False
    needs_view = False

    def __init__(self, rng: np.random.Generator | int | None = None):
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)

    def seed(self, rng: np.random.Generator) -> None:
        """Use ``rng`` from now on (the environment passes its own seeded generator)."""
        self.rng = rng

    def act(self, obs: Any, mask: np.ndarray, view: Any = None) -> np.ndarray:
        return random_legal_actions(mask, self.rng)


class ObservationBuffers:
    """Reusable ``(n, C, 34)`` observation arrays (``dtype``, default float32) for an env that
    returns new observations at every step.

    Large observations (B=4096 tables: about 42 MB a step) are above the sizes glibc keeps for
    reuse, so a fresh array every step pays a page fault on every page. :meth:`take` hands out
    a view of one of ``count`` buffers instead and reuses a buffer only when nothing outside
    this object references it (``sys.getrefcount`` at its free value: no array, view, tensor
    or memoryview of it is alive anywhere), so an observation the caller still holds is never
    overwritten; when all are held it returns a fresh array.

    Args:
        tail: ``(C, 34)``, the shape of one row.
        count: buffers kept (each grown to the largest ``n`` asked of it).
        dtype: the arrays' dtype (float32, or uint8 for compact observations).
    """

    def __init__(self, tail: tuple[int, ...], count: int = 3, dtype: Any = np.float32):
        self.tail = tuple(tail)
        self.dtype = np.dtype(dtype)
        self._bufs: list[np.ndarray | None] = [None] * count
        probe = [np.empty((0, *self.tail), dtype=self.dtype)]
        self._free = sys.getrefcount(probe[0])  # list slot + argument: nobody else

    def take(self, n: int) -> np.ndarray:
        """An ``(n, C, 34)`` array of ``dtype`` (content uninitialised) that nobody else
        holds."""
        bufs = self._bufs
        for i in range(len(bufs)):
            if bufs[i] is not None and sys.getrefcount(bufs[i]) <= self._free:
                if bufs[i].shape[0] < n:
                    bufs[i] = np.empty((n, *self.tail), dtype=self.dtype)
                return bufs[i][:n]
        for i in range(len(bufs)):
            if bufs[i] is None:
                bufs[i] = np.empty((n, *self.tail), dtype=self.dtype)
                return bufs[i][:n]
        return np.empty((n, *self.tail), dtype=self.dtype)


def acting_pairs(to_act: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.nonzero(to_act)`` of a ``(B, 4) bool`` array in one compiled pass: ``(games,
    seats)``, two ``(N,) int64`` arrays in row-major (game-major) order (views of the first
    N entries of two ``(4B,)`` arrays)."""
    games = np.empty(to_act.size, dtype=np.int64)
    seats = np.empty(to_act.size, dtype=np.int64)
    n = _fill_pairs(to_act, games, seats)
    return games[:n], seats[:n]


@njit(cache=True, nogil=True)
def _fill_pairs(to_act, games, seats):
    """``games``, ``seats``: the indices of the True entries of ``to_act (B, 4)``, in order;
    returns how many."""
    k = 0
    for g in range(to_act.shape[0]):
        for s in range(to_act.shape[1]):
            if to_act[g, s]:
                games[k] = g
                seats[k] = s
                k += 1
    return k


def copy_masks(legal_mask: np.ndarray, to_act: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out[...] = legal_mask`` (as 0/1 ``int8``, :data:`mcr_env.envs.batch.MASK_DTYPE`)
    for an engine's ``legal_mask (B, 4, 235) bool`` and ``to_act (B, 4) bool``, reading only
    the rows of the acting seats: the engine's mask of a seat that is not asked is all False
    (the masks are rebuilt at each decision, docs/design.md "Engine contract"), so those rows
    of ``out`` are zero-filled without reading the source (at B = 1024 a third of the bytes
    a full copy moves). Every byte of ``out`` (``(B, 4, 235) int8``, a fresh or reused
    buffer of any content) is written. Returns ``out``.

    Raises:
        ValueError: the three shapes do not match ``(B, 4, 235)`` / ``(B, 4)``.
    """
    _check_mask_shapes(legal_mask, to_act, out)
    _copy_acting_rows(legal_mask.view(np.int8), to_act, out, _NO_TO_ACT, _NO_PAIRS, _NO_PAIRS)
    return out


def copy_masks_pairs(
    legal_mask: np.ndarray, to_act: np.ndarray, out: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`copy_masks` and, in the same compiled pass over ``to_act``, a copy of it and
    :func:`acting_pairs` (what an env's observation needs after every step, in one call).

    Returns:
        ``(out, to_act copy (B, 4) bool, games (N,) int64, seats (N,) int64)``: the acting
        (game, seat) pairs in row-major (``np.nonzero``) order, views of the first N entries
        of two ``(4B,)`` arrays.

    Raises:
        ValueError: the shapes do not match ``(B, 4, 235)`` / ``(B, 4)``.
    """
    _check_mask_shapes(legal_mask, to_act, out)
    acting = np.empty(to_act.shape, dtype=bool)
    games = np.empty(to_act.size, dtype=np.int64)
    seats = np.empty(to_act.size, dtype=np.int64)
    n = _copy_acting_rows(legal_mask.view(np.int8), to_act, out, acting, games, seats)
    return out, acting, games[:n], seats[:n]


def _check_mask_shapes(legal_mask: np.ndarray, to_act: np.ndarray, out: np.ndarray) -> None:
    b = legal_mask.shape[0]
    if legal_mask.shape != (b, 4, NUM_ACTIONS) or out.shape != legal_mask.shape:
        raise ValueError(f"masks must be (B, 4, {NUM_ACTIONS}): {legal_mask.shape}, {out.shape}")
    if to_act.shape != (b, 4):
        raise ValueError(f"to_act must be (B, 4) = ({b}, 4), got {to_act.shape}")


_NO_TO_ACT = np.zeros((0, 4), dtype=bool)
_NO_PAIRS = np.zeros(0, dtype=np.int64)


@njit(cache=True, nogil=True)
def _copy_acting_rows(src, to_act, out, acting, games, seats):
    """``out[g, s] = src[g, s]`` where ``to_act[g, s]``, else 0 (``src``, ``out`` ``(B, 4,
    235) int8``; the rows' constant length lets LLVM write them without memcpy / memset
    calls); when given (non-empty), ``acting (B, 4) bool`` a copy of ``to_act`` and
    ``games``, ``seats`` ``(4B,) int64`` the acting pairs in order. Returns how many seats
    act."""
    copy = acting.shape[0] > 0
    pairs = games.shape[0] > 0
    k = 0
    for g in range(src.shape[0]):
        for s in range(src.shape[1]):
            if to_act[g, s]:
                for a in range(NUM_ACTIONS):
                    out[g, s, a] = src[g, s, a]
                if pairs:
                    games[k] = g
                    seats[k] = s
                k += 1
            else:
                for a in range(NUM_ACTIONS):
                    out[g, s, a] = 0
            if copy:
                acting[g, s] = to_act[g, s]
    return k


def settlement_only(reward_fn: Any) -> bool:
    """Whether ``reward_fn`` is one of the stateless rewards that are a function of the
    settlement alone (:class:`mcr_env.rewards.SettlementReward`, ``ScaledReward``,
    ``WinLossReward``; exact types, not subclasses): they are 0 at every engine step where no
    hand ends, so the envs skip the call there."""
    return type(reward_fn) in (SettlementReward, ScaledReward, WinLossReward)


def encode_pairs(
    encoder: Any,
    state,
    games: np.ndarray,
    seats: np.ndarray,
    buffers: ObservationBuffers | None = None,
    dtype: Any = None,
) -> np.ndarray:
    """``encoder``'s observations ``(N, C, 34)`` of the (game, seat) pairs ``games``,
    ``seats`` ``(N,) intp`` that the env built itself (valid by construction): without the
    argument checks (:meth:`mcr_env.encoding.base.Encoder.encode_rows`), written into an
    array of ``buffers`` if given (of the buffers' dtype), else into a new array of ``dtype``
    (default float32), when the encoder has that method; else through its ``encode``
    (float32 only)."""
    rows = getattr(encoder, "encode_rows", None)
    if rows is None:
        return encoder.encode(state, games, seats)
    if buffers is not None:
        out = buffers.take(games.shape[0])
    elif dtype is None or np.dtype(dtype) == np.float32:
        out = None
    else:
        out = np.empty((games.shape[0], *encoder.shape), dtype=dtype)
    return rows(state, games, seats, out)


def random_opponent_actions(
    to_act: np.ndarray,
    legal_mask: np.ndarray,
    learner: np.ndarray,
    active: np.ndarray,
    policies: list,
    out: np.ndarray,
) -> np.ndarray:
    """The actions three :class:`RandomPolicy` opponents take at tables with one learner seat,
    in two compiled passes: the same draws and actions as calling each policy's ``act`` on its
    acting seats (``np.nonzero`` order), as :func:`call_policy` does, without its per-call
    overhead (single-table envs step the engine a few times per learner decision).

    Args:
        to_act: ``(B, 4) bool`` seats asked now; legal_mask: ``(B, 4, 235) bool``.
        learner: ``(B,) int64`` absolute seat of the learner (its seat gets no action).
        active: ``(B,) bool`` tables to play.
        policies: three :class:`RandomPolicy`; ``policies[k]`` plays relative seat ``k + 1``
            of the learner (its generator draws ``random(n_k)`` for its ``n_k`` acting seats,
            nothing when ``n_k = 0``).
        out: ``(B, 4) int64`` written (0 at the seats that do not act) and returned.

    Returns:
        ``out``: a uniformly random legal action of every acting opponent seat.
    """
    n = _count_opponents(to_act, learner, active)
    u = [p.rng.random(int(k)) if k else _NO_DRAWS for p, k in zip(policies, n)]
    _pick_opponents(to_act, legal_mask, learner, active, u[0], u[1], u[2], out)
    return out


_NO_DRAWS = np.zeros(0, dtype=np.float64)


@njit(cache=True, nogil=True)
def _count_opponents(to_act, learner, active):
    """Acting seats of ``active`` tables at relative seats 1, 2, 3 of the learner."""
    n1 = n2 = n3 = 0
    for g in range(to_act.shape[0]):
        if not active[g]:
            continue
        for s in range(4):
            r = (s - learner[g]) % 4
            if r and to_act[g, s]:
                if r == 1:
                    n1 += 1
                elif r == 2:
                    n2 += 1
                else:
                    n3 += 1
    return n1, n2, n3


@njit(cache=True, nogil=True)
def _pick_opponents(to_act, legal_mask, learner, active, u1, u2, u3, out):
    """``out[g, s]``: the ``floor(u * count)``-th legal action of each acting opponent seat
    (``u`` the next draw of its relative seat's policy, tables in order), as
    :func:`random_legal_actions`; 0 elsewhere."""
    out[:] = 0
    i1 = i2 = i3 = 0
    for g in range(to_act.shape[0]):
        if not active[g]:
            continue
        for s in range(4):
            r = (s - learner[g]) % 4
            if r == 0 or not to_act[g, s]:
                continue
            if r == 1:
                u = u1[i1]
                i1 += 1
            elif r == 2:
                u = u2[i2]
                i2 += 1
            else:
                u = u3[i3]
                i3 += 1
            cnt = 0
            for a in range(legal_mask.shape[2]):
                cnt += legal_mask[g, s, a]
            k = np.int64(np.floor(u * cnt))
            for a in range(legal_mask.shape[2]):
                if legal_mask[g, s, a]:
                    if k == 0:
                        out[g, s] = a
                        break
                    k -= 1


def call_policy(policy: Any, obs: np.ndarray | None, mask: np.ndarray, state, games, seats):
    """Actions of ``policy`` for N decisions.

    ``policy`` is an agent object with a batched ``act(obs (N, C, 34), mask (N, 235) bool,
    view) -> (N,)`` (the :mod:`baselines.agents` interface; ``needs_obs`` / ``needs_view``
    attributes honoured), or a callable ``policy({"observation": (C, 34), "action_mask":
    (235,) int8}) -> int`` called once per decision.

    Raises:
        TypeError: ``policy`` is neither.
        ValueError: an action is outside 0..234 (legality is checked by the engine).
    """
    n = mask.shape[0]
    if hasattr(policy, "act"):
        view = None
        if getattr(policy, "needs_view", False):
            view = SeatView.from_state(state, games, seats)
        o = obs if getattr(policy, "needs_obs", True) else None
        if getattr(policy, "needs_ids", False):  # told which (game, seat) each row is
            acts = np.asarray(policy.act(o, mask, view, games=games, seats=seats)).reshape(n)
        else:
            acts = np.asarray(policy.act(o, mask, view)).reshape(n)
    elif callable(policy):
        if obs is None:
            raise ValueError("a callable policy needs observations")
        m8 = mask.astype(np.int8)
        acts = np.array(
            [int(policy({"observation": obs[i], "action_mask": m8[i]})) for i in range(n)],
            dtype=np.int64,
        )
    else:
        raise TypeError(
            f"policy must have .act(obs, mask, view) or be callable, got {type(policy).__name__}"
        )
    acts = acts.astype(np.int64)
    if n and (acts.min() < 0 or acts.max() >= NUM_ACTIONS):
        raise ValueError(f"policy returned an action outside 0..{NUM_ACTIONS - 1}: {acts}")
    return acts


def policy_label(policy: Any) -> str:
    """Short description of a policy for error messages: a function's name (``always_pass``),
    else the class name plus its ``name`` attribute if any (``RuleBasedAgent name='rule'``)."""
    if not hasattr(policy, "act") and hasattr(policy, "__qualname__"):
        return policy.__qualname__
    label = type(policy).__name__
    name = getattr(policy, "name", None)
    return f"{label} name={name!r}" if isinstance(name, str) else label


def policy_needs_obs(policy: Any) -> bool:
    """Whether ``policy`` reads observations (callables always do)."""
    return getattr(policy, "needs_obs", True) if hasattr(policy, "act") else True


AGENT_SPEC_GROUP = "mcr_env.agent_specs"
"""Entry-point group of agent-spec factories ``factory(spec: str, seed: int) -> agent`` that
raise :class:`UnknownAgentSpec` for specs they do not know. The project registers
``baselines.agents:make_agent`` (``rule``, ``random``, ``*.pt`` checkpoints) in pyproject.toml,
so the envs accept those strings without importing the baselines layer."""


class UnknownAgentSpec(ValueError):
    """An agent-spec factory does not know the spec it was given (the protocol of the
    :data:`AGENT_SPEC_GROUP` plugins; any other error of a factory means it recognised the
    spec and could not build it, e.g. a file that is not a checkpoint)."""


def make_opponent(spec: Any, seed: int | None = None) -> Any:
    """One opponent policy from ``spec``: a policy object (an agent with ``act(obs, mask,
    view)`` or a callable ``policy(obs_dict) -> action``, returned as is) or a string:
    ``"random"`` (:class:`RandomPolicy`, reseeded by the env) or any spec a registered factory
    of :data:`AGENT_SPEC_GROUP` knows (``"rule"``, ``"path/to/final.pt"``, ...).

    Raises:
        ValueError: an unknown spec string (the message lists the known names), or one a
            factory recognised but could not build (the message names the factory).
        TypeError: ``spec`` is neither a string nor a policy.
    """
    if isinstance(spec, str):
        if spec == "random":
            return RandomPolicy(seed)
        errors = []
        for ep in entry_points(group=AGENT_SPEC_GROUP):
            try:
                return ep.load()(spec, seed=0 if seed is None else int(seed))
            except UnknownAgentSpec as e:
                errors.append(f"{ep.name}: {e}")
            except ValueError as e:  # the factory knows the spec, building it failed
                raise ValueError(f"opponent spec {spec!r}: {ep.name}: {e}") from e
        hint = (
            "; ".join(errors)
            if errors
            else ("no agent factory is registered (install the project: pip install -e .)")
        )
        raise ValueError(f"unknown opponent spec {spec!r}; valid: 'random', {hint}")
    if hasattr(spec, "act") or callable(spec):
        return spec
    raise TypeError(
        "an opponent must be a spec string ('random', 'rule', '*.pt'), an agent with "
        f".act(obs, mask, view) or a callable policy(obs_dict) -> action; got {type(spec).__name__}"
    )
