"""The packed state and output buffers the engine's kernels take (mcr_env.engine.kernels).

Every GameState field of a state made by ``GameState.empty``/``copy`` is a view of one of three
buffers; the kernels rebuild the same views from the buffers (``state_views``), and the
engine's outputs are views of its output buffers (``output_views``). These tests pin that both
sides see the same memory with the documented shapes and dtypes.
"""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

from mcr_env.engine import MCREngine
from mcr_env.engine.kernels import (
    RNG64,
    SCRATCH64,
    STATE_FIELDS,
    kernel_carry,
    output_buffers,
    output_views,
    random_step_views,
    state_views,
)
from mcr_env.engine.state import GameState


def _ptr(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


@pytest.mark.parametrize("b", [1, 3, 64])
def test_kernel_views_are_the_state_fields(b):
    st = GameState.empty(b)
    bufs = st.packed_buffers()
    assert bufs is not None and len(bufs) == 3
    views = state_views(*bufs)
    assert len(views) == len(STATE_FIELDS)
    for name, v in zip(STATE_FIELDS, views):
        f = getattr(st, name)
        assert (_ptr(v), v.shape, v.dtype) == (_ptr(f), f.shape, f.dtype), name
    # the fields do not overlap: writing one field changes no other
    for name in STATE_FIELDS:
        arr = getattr(st, name)
        before = {n: getattr(st, n).copy() for n in STATE_FIELDS if n != name}
        arr[...] = 1 if arr.dtype != np.bool_ else True
        for n, old in before.items():
            assert (getattr(st, n) == old).all(), (name, n)


def test_empty_fields_keep_their_sentinels_and_copy_is_packed():
    st = GameState.empty(2)
    for f in dataclasses.fields(st):
        assert (getattr(st, f.name) == f.metadata["sentinel"]).all(), f.name
    st.hand[1, 2, 5] = 3
    c = st.copy()
    assert c.packed_buffers() is not None
    assert c.hand[1, 2, 5] == 3 and not np.shares_memory(c.hand, st.hand)
    plain = GameState(**{f.name: getattr(st, f.name).copy() for f in dataclasses.fields(st)})
    assert plain.packed_buffers() is None
    again = pickle.loads(pickle.dumps(st))
    assert again.packed_buffers() is None and (again.hand == st.hand).all()


def test_output_views_shapes():
    o8, o32, o64 = output_buffers(5)
    names = ("to_act", "legal_mask", "hand_over", "illegal", "need", "hu_state")
    shapes = ((5, 4), (5, 4, 235), (5,), (5, 4), (5,), (5, 4))
    views = output_views(o8, o32, o64)
    for name, shape, v in zip(names, shapes, views[:6]):
        assert v.shape == shape and v.dtype == (np.int8 if name == "hu_state" else np.bool_)
    rewards, player_rewards, cand, ev = views[6:]
    assert rewards.shape == player_rewards.shape == (5, 4) and rewards.dtype == np.int32
    assert cand.shape == (20, 4) and ev.shape == (5, 4) and cand.dtype == np.int64
    terminated, live, acts, rng = random_step_views(o8, o32, o64)
    assert terminated.shape == live.shape == (5,) and terminated.dtype == live.dtype == np.bool_
    assert acts.shape == (5, 4) and acts.dtype == np.int64 and rng.shape == (RNG64,)
    # each view starts where the one before ends
    seq = [*views[:6], terminated, live]
    for prev, nxt in zip(seq, seq[1:]):
        assert _ptr(prev) + prev.nbytes == _ptr(nxt)
    assert _ptr(live) + live.nbytes == _ptr(o8) + o8.nbytes  # the int8 buffer is exactly covered
    # then the kernels' carry (wait cache, pending draws; none: -1), acts, the bit generator,
    # the kernel's scratch and the 3 counters
    waits, pend = kernel_carry(o32, o64)
    assert waits.shape == (5, 4) and (waits == -1).all()
    assert pend.shape == (5,) and (pend == -1).all()
    for prev, nxt in zip((cand, ev, waits, pend, acts), (ev, waits, pend, acts, rng)):
        assert _ptr(prev) + prev.nbytes == _ptr(nxt)
    assert _ptr(rng) + rng.nbytes + (SCRATCH64 + 3) * 8 == _ptr(o64) + o64.nbytes


def test_engine_outputs_are_buffer_views_and_load_state_needs_a_packed_state():
    eng = MCREngine(2)
    eng.reset(seed=1)
    o8 = eng._obufs[0]
    assert np.shares_memory(eng.legal_mask, o8) and np.shares_memory(eng.to_act, o8)
    assert np.shares_memory(eng.terminated, o8)
    st = eng.state.copy()
    eng.load_state(st, copy=False)
    assert eng.state is st
    assert all(a is b for a, b in zip(eng._bufs, st.packed_buffers()))
    plain = GameState(**{f.name: getattr(st, f.name).copy() for f in dataclasses.fields(st)})
    with pytest.raises(ValueError, match="GameState.empty or GameState.copy"):
        eng.load_state(plain, copy=False)
    eng.load_state(plain)  # copied into the engine's own buffers
    assert eng.state is not plain and (eng.state.hand == plain.hand).all()
