"""Three low-level helpers of the engine's kernels, each a plain Python function with a
compiled counterpart (a numba intrinsic, used through ``numba.extending.overload``):

* :func:`carve` -- a C-contiguous view of part of a 1-D buffer: the kernels carve the ~45
  :class:`~mcr_env.engine.state.GameState` field and output views from the packed buffers
  at every call, and numba's ``reshape`` costs ~50 ns a view (it calls a C helper): a sixth
  of a step at B=1. The intrinsic only fills the array header.
* :func:`next_uint32` -- ``next_uint32(state)`` of a NumPy bit generator through its
  addresses (:func:`mcr_env.engine.sampling.generator_pointers`), so compiled code draws
  from a ``numpy.random.Generator``'s own stream.
* :func:`prefetch` -- a cache prefetch hint: the step kernel asks for the cache lines of a
  game a few games ahead (at B = 1024 the batch's arrays do not fit in L2); plain Python
  does nothing.

The plain Python versions are what runs where numba is absent: the Botzone export
(:mod:`baselines.botzone_export`) ships a numba stand-in whose ``njit`` leaves the kernels as
Python, without ``numba.extending``; there the compiled versions are not defined.

Numba cache note: the kernels that call these compile them in, and numba's cache does not
notice edits here: after changing this module delete ``mcr_env/engine/__pycache__/*.nb*``.
"""

from __future__ import annotations

import ctypes

_NEXT_UINT32 = ctypes.CFUNCTYPE(ctypes.c_uint32, ctypes.c_void_p)


def carve(buf, start, shape):
    """``buf[start : start + prod(shape)]`` viewed as a C-contiguous array of ``shape`` (same
    memory, no copy). ``buf`` is 1-D and C-contiguous; compiled, the sizes are not checked
    (callers keep the view inside the buffer)."""
    size = 1
    for d in shape:
        size *= d
    return buf[start : start + size].reshape(shape)


def next_uint32(fn, state):
    """The next 32-bit output of the bit generator whose ``next_uint32`` function is at
    address ``fn`` and whose state is at address ``state``."""
    return _NEXT_UINT32(fn)(state)


def prefetch(arr, index):
    """Hint that element ``index`` of ``arr`` (flat, C order) will be read soon; no effect on
    results (plain Python: nothing). Compiled: LLVM's ``prefetch`` of that element's cache
    line (read, keep in all cache levels); the index is not checked (a prefetch does not
    fault)."""
    return None


try:  # the compiled versions (the Botzone export's numba stand-in has no numba.extending)
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.core.imputils import impl_ret_borrowed
    from numba.extending import intrinsic, overload
    from numba.np.arrayobj import make_array, populate_array
except ImportError:
    pass
else:

    @intrinsic
    def _carve_view(typingctx, buf, start, shape):
        """Compiled :func:`carve`: the view's header (data pointer, shape, C strides, the
        buffer's owner) filled directly."""
        if not (isinstance(buf, types.Array) and buf.ndim == 1 and buf.layout == "C"):
            return None
        if not isinstance(start, types.Integer):
            return None
        if not (
            isinstance(shape, types.BaseTuple) and all(isinstance(x, types.Integer) for x in shape)
        ):
            return None
        nd = len(shape)
        retty = buf.copy(ndim=nd, layout="C")

        def codegen(context, builder, sig, args):
            aryty = sig.args[0]
            ary = make_array(aryty)(context, builder, args[0])
            out = make_array(retty)(context, builder)
            first = context.cast(builder, args[1], sig.args[1], types.intp)
            dims = [
                context.cast(builder, d, t, types.intp)
                for d, t in zip(cgutils.unpack_tuple(builder, args[2]), sig.args[2])
            ]
            itemsize = context.get_abi_sizeof(context.get_data_type(aryty.dtype))
            stride = context.get_constant(types.intp, itemsize)
            strides = [stride] * nd
            for i in range(nd - 1, 0, -1):
                stride = builder.mul(stride, dims[i])
                strides[i - 1] = stride
            populate_array(
                out,
                data=cgutils.gep_inbounds(builder, ary.data, first),
                shape=dims,
                strides=strides,
                itemsize=ary.itemsize,
                meminfo=ary.meminfo,
                parent=ary.parent,
            )
            return impl_ret_borrowed(context, builder, retty, out._getvalue())

        return retty(buf, start, shape), codegen

    # (no ``inline="always"``: numba's IR inlining of these overloads miscompiled the step
    # kernel, claims resolved wrongly in a 300-step match; LLVM inlines the small call anyway)
    @overload(carve)
    def _carve_compiled(buf, start, shape):
        return lambda buf, start, shape: _carve_view(buf, start, shape)

    @intrinsic
    def _call_next_uint32(typingctx, fn, state):
        """Compiled :func:`next_uint32`: ``fn(state)`` called through the address."""
        if not (isinstance(fn, types.Integer) and isinstance(state, types.Integer)):
            return None

        def codegen(context, builder, sig, args):
            ptr = ir.IntType(8).as_pointer()
            fnty = ir.FunctionType(ir.IntType(32), [ptr])
            f = builder.inttoptr(args[0], fnty.as_pointer())
            return builder.call(f, [builder.inttoptr(args[1], ptr)])

        return types.uint32(fn, state), codegen

    @overload(next_uint32)
    def _next_uint32_compiled(fn, state):
        return lambda fn, state: _call_next_uint32(fn, state)

    @intrinsic
    def _prefetch_element(typingctx, arr, index):
        """Compiled :func:`prefetch`: ``llvm.prefetch`` of ``arr``'s data pointer plus
        ``index`` elements."""
        if not (isinstance(arr, types.Array) and arr.layout == "C"):
            return None
        if not isinstance(index, types.Integer):
            return None

        def codegen(context, builder, sig, args):
            ary = make_array(sig.args[0])(context, builder, args[0])
            i = context.cast(builder, args[1], sig.args[1], types.intp)
            i8p = ir.IntType(8).as_pointer()
            ptr = builder.bitcast(builder.gep(ary.data, [i]), i8p)
            i32 = ir.IntType(32)
            fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
            builder.call(fn, [ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
            return context.get_dummy_value()

        return types.none(arr, index), codegen

    @overload(prefetch)
    def _prefetch_compiled(arr, index):
        return lambda arr, index: _prefetch_element(arr, index)
