"""Manipulation functions (array API standard 2025.12, "Manipulation Functions")
and indexing (``take``, ``take_along_axis``, ``__getitem__``).
"""

from __future__ import annotations

import math

from ._registry import op

__all__ = [
    "broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat", "expand_dims", "flip",
    "moveaxis", "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile",
    "unstack", "take", "take_along_axis", "getitem", "index_put",
]


@op("broadcast_arrays", out="tuple")
def broadcast_arrays(xp, *arrays):
    """Broadcast Tensors against each other; returns a tuple of Tensors of one shape.

    Source: array API standard 2025.12, ``broadcast_arrays``.
    """
    return tuple(xp.broadcast_arrays(*arrays)), tuple(a.shape for a in arrays)


@op("broadcast_shapes", backend_arg=True, differentiable=False, out="raw")
def broadcast_shapes(backend, *shapes):
    """The shape that ``shapes`` broadcast to (pure Python; no arrays needed).

    Raises
    ------
    ValueError
        If the shapes are not broadcast-compatible.

    Source: array API standard 2025.12, ``broadcast_shapes``.
    """
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(-ndim, 0):
        size = 1
        for s in shapes:
            if len(s) < -i:
                continue
            d = s[i]
            if d is None:
                size = None if size in (1, None) else size
                continue
            if d == 1:
                continue
            if size in (1, None) or size == d:
                size = d
            else:
                raise ValueError(
                    f"arrayflow.broadcast_shapes: shapes {shapes} are not broadcast-compatible "
                    f"(dimension {i}: {size} vs {d})"
                )
        out.append(size)
    return tuple(out)


@op("broadcast_to")
def broadcast_to(xp, x, /, shape):
    """Broadcast ``x`` to ``shape`` (a read-only view on backends that have views).

    Source: array API standard 2025.12, ``broadcast_to``.
    """
    return xp.broadcast_to(x, tuple(shape)), (x.shape,)


@op("concat")
def concat(xp, arrays, /, *, axis=0):
    """Join a sequence of Tensors along an existing ``axis`` (None: flatten first).

    Source: array API standard 2025.12, ``concat`` (PyTorch ``cat``).
    """
    return xp.concat(arrays, axis=axis), (tuple(a.shape for a in arrays), axis)


@op("expand_dims")
def expand_dims(xp, x, /, axis):
    """Insert a size-1 dimension at ``axis`` (an int or, since 2025.12, a tuple).

    Raises
    ------
    IndexError
        If an axis is outside ``[-N, N)`` for the result's ``N`` dimensions.
    ValueError
        If a tuple ``axis`` names one dimension twice.

    Source: array API standard 2025.12, ``expand_dims`` (PyTorch ``unsqueeze``).
    """
    if isinstance(axis, tuple):
        ndim = x.ndim + len(axis)
        for a in axis:
            if not -ndim <= a < ndim:
                raise IndexError(
                    f"arrayflow.expand_dims: axis {a} is out of bounds for a result with "
                    f"{ndim} dimensions")
        axes = sorted(a % ndim for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"arrayflow.expand_dims: repeated axis in {axis}")
        y = x
        for a in axes:
            y = xp.expand_dims(y, axis=a)
        return y, (x.shape,)
    return xp.expand_dims(x, axis=axis), (x.shape,)


@op("flip")
def flip(xp, x, /, *, axis=None):
    """Reverse the order of elements along ``axis`` (all axes when None).

    Source: array API standard 2025.12, ``flip``.
    """
    return xp.flip(x, axis=axis), (axis,)


@op("moveaxis")
def moveaxis(xp, x, source, destination, /):
    """Move axes of ``x`` from ``source`` to ``destination`` positions.

    Source: array API standard 2025.12, ``moveaxis``.
    """
    return xp.moveaxis(x, source, destination), (source, destination)


@op("permute_dims")
def permute_dims(xp, x, /, axes):
    """Permute the axes of ``x`` (PyTorch ``permute``).

    Source: array API standard 2025.12, ``permute_dims``.
    """
    return xp.permute_dims(x, tuple(axes)), (tuple(axes),)


@op("repeat")
def repeat(xp, x, repeats, /, *, axis=None):
    """Repeat each element of ``x`` ``repeats`` times along ``axis`` (flattened if None).

    Source: array API standard 2025.12, ``repeat`` (PyTorch ``repeat_interleave``).
    """
    if axis is None:  # flatten here: not every backend accepts axis=None (Dask)
        return xp.repeat(xp.reshape(x, (-1,)), repeats, axis=0), (x.shape, repeats, axis)
    return xp.repeat(x, repeats, axis=axis), (x.shape, repeats, axis)


@op("reshape")
def reshape(xp, x, /, shape, *, copy=None):
    """``x`` with a new ``shape`` (one dimension may be -1).

    Source: array API standard 2025.12, ``reshape``.
    """
    kw = {} if copy is None else {"copy": copy}
    return xp.reshape(x, tuple(shape), **kw), (x.shape,)


@op("roll")
def roll(xp, x, /, shift, *, axis=None):
    """Roll elements of ``x`` by ``shift`` along ``axis`` (flattened when None).

    Source: array API standard 2025.12, ``roll``.
    """
    return xp.roll(x, shift, axis=axis), (shift, axis)


@op("squeeze")
def squeeze(xp, x, /, axis):
    """Remove the size-1 dimension(s) ``axis`` (required by the standard).

    Raises
    ------
    ValueError
        If a named axis does not have size 1.

    Source: array API standard 2025.12, ``squeeze``.
    """
    return xp.squeeze(x, axis=axis), (x.shape,)


@op("stack")
def stack(xp, arrays, /, *, axis=0):
    """Join Tensors of one shape along a new ``axis``.

    Source: array API standard 2025.12, ``stack``.
    """
    return xp.stack(arrays, axis=axis), (len(arrays), axis)


@op("tile")
def tile(xp, x, repetitions, /):
    """Construct a Tensor by repeating ``x`` ``repetitions`` times per dimension.

    Source: array API standard 2025.12, ``tile``.
    """
    return xp.tile(x, tuple(repetitions)), (x.shape, tuple(repetitions))


@op("unstack", out="tuple")
def unstack(xp, x, /, *, axis=0):
    """Split ``x`` into a tuple of Tensors along ``axis`` (PyTorch ``unbind``).

    Source: array API standard 2025.12, ``unstack``.
    """
    return tuple(xp.unstack(x, axis=axis)), (axis,)


@op("take")
def take(xp, x, indices, /, *, axis=None):
    """Elements of ``x`` at integer ``indices`` along ``axis`` (1-D ``x`` if None).

    Source: array API standard 2025.12, ``take``.
    """
    if axis is None and x.ndim == 1:  # the standard allows None for 1-D; Dask does not
        return xp.take(x, indices, axis=0), (x.shape, indices, axis)
    return xp.take(x, indices, axis=axis), (x.shape, indices, axis)


def _take_along_axis_fallback(xp, x, indices, axis):
    # Standard-only fallback: flatten and gather with ``take``.
    axis = axis % x.ndim
    shape = x.shape
    strides = [math.prod(shape[i + 1:]) for i in range(x.ndim)]
    flat = xp.zeros(indices.shape, dtype=indices.dtype)
    for d in range(x.ndim):
        if d == axis:
            idx = indices
        else:
            n = indices.shape[d]
            s = [1] * x.ndim
            s[d] = n
            idx = xp.reshape(xp.arange(n, dtype=indices.dtype), tuple(s))
        flat = flat + idx * strides[d]
    return xp.reshape(xp.take(xp.reshape(x, (-1,)), xp.reshape(flat, (-1,))), indices.shape)


@op("take_along_axis")
def take_along_axis(xp, x, indices, /, *, axis=-1):
    """Elements of ``x`` at ``indices`` matched along ``axis`` (``torch.gather``).

    Source: array API standard 2025.12, ``take_along_axis``.
    """
    fn = getattr(xp, "take_along_axis", None)
    if fn is None:
        y = _take_along_axis_fallback(xp, x, indices, axis)
    else:
        y = fn(x, indices, axis=axis)
    return y, (x.shape, indices, axis)


@op("getitem", backend_arg=True)
def getitem(backend, x, key, /):
    """``x[key]``: basic, integer-array and boolean indexing as the standard allows.

    Whether the result aliases ``x`` is backend-defined (NumPy: basic indexing
    gives views); never rely on it.

    Source: array API standard 2025.12, "Indexing".
    """
    return backend.getitem(x, key), (x.shape, key)  # the plug-in's hook: Dask needs one


# --- VJPs ------------------------------------------------------------------------------------

from ._vjp_util import segment_sum as _segment_sum  # noqa: E402
from ._vjp_util import sum_to_shape as _sum_to  # noqa: E402


@broadcast_arrays.defvjp
def _broadcast_arrays_vjp(xp, res, *gs):
    return tuple(_sum_to(xp, g, s) for g, s in zip(gs, res))


@broadcast_to.defvjp
def _broadcast_to_vjp(xp, res, g):
    return (_sum_to(xp, g, res[0]),)


@concat.defvjp
def _concat_vjp(xp, res, g):
    shapes, axis = res
    if axis is None:
        sizes = [math.prod(s) for s in shapes]
    else:
        sizes = [s[axis] for s in shapes]
    out, start = [], 0
    nd = g.ndim
    for s, n in zip(shapes, sizes):
        if axis is None:
            out.append(xp.reshape(g[start:start + n], s))
        else:
            a = axis % nd
            out.append(g[(slice(None),) * a + (slice(start, start + n), Ellipsis)])
        start += n
    return (out,)


def _reshape_back(xp, res, g):
    return (xp.reshape(g, res[0]),)


expand_dims.defvjp(_reshape_back)
reshape.defvjp(_reshape_back)
squeeze.defvjp(_reshape_back)


@flip.defvjp
def _flip_vjp(xp, res, g):
    return (xp.flip(g, axis=res[0]),)


@moveaxis.defvjp
def _moveaxis_vjp(xp, res, g):
    source, destination = res
    return (xp.moveaxis(g, destination, source),)


@permute_dims.defvjp
def _permute_dims_vjp(xp, res, g):
    (axes,) = res
    inv = [0] * len(axes)
    for i, a in enumerate(axes):
        inv[a % len(axes)] = i
    return (xp.permute_dims(g, tuple(inv)),)


@repeat.defvjp
def _repeat_vjp(xp, res, g):
    shape, repeats, axis = res
    if axis is None:
        flat_n = math.prod(shape)
        gx = _repeat_grad(xp, g, repeats, 0, flat_n)
        return (xp.reshape(gx, shape), None)
    return (_repeat_grad(xp, g, repeats, axis, shape[axis]), None)


def _repeat_grad(xp, g, repeats, axis, n):
    axis = axis % g.ndim
    if isinstance(repeats, int):
        new_shape = tuple(g.shape[:axis]) + (n, repeats) + tuple(g.shape[axis + 1:])
        return xp.sum(xp.reshape(g, new_shape), axis=axis + 1)
    # Array repeats: element i owns the segment [cum[i], cum[i+1]) of g.
    cum = xp.cumulative_sum(repeats, include_initial=True)
    idx = xp.searchsorted(cum[1:], xp.arange(g.shape[axis], dtype=cum.dtype), side="right")
    return _segment_sum(xp, g, idx, n, axis)


@roll.defvjp
def _roll_vjp(xp, res, g):
    shift, axis = res
    neg = tuple(-s for s in shift) if isinstance(shift, tuple) else -shift
    return (xp.roll(g, neg, axis=axis),)


@stack.defvjp
def _stack_vjp(xp, res, g):
    n, axis = res
    return (list(xp.unstack(g, axis=axis)),)


@tile.defvjp
def _tile_vjp(xp, res, g):
    shape, reps = res
    nd = max(len(shape), len(reps))
    shape = (1,) * (nd - len(shape)) + tuple(shape)
    reps = (1,) * (nd - len(reps)) + tuple(reps)
    inter = []
    for r, s in zip(reps, shape):
        inter += [r, s]
    gx = xp.sum(xp.reshape(g, tuple(inter)), axis=tuple(range(0, 2 * nd, 2)))
    return (xp.reshape(gx, res[0]),)


@unstack.defvjp
def _unstack_vjp(xp, res, *gs):
    (axis,) = res
    return (xp.stack(gs, axis=axis),)


@take.defvjp
def _take_vjp(xp, res, g):
    shape, indices, axis = res
    if axis is None:
        axis = 0
    return (_segment_sum(xp, g, indices, shape[axis], axis), None)


@take_along_axis.defvjp
def _take_along_axis_vjp(xp, res, g):
    # One-hot contraction: exact, standard-only, lazy; memory indices.size * n.
    shape, indices, axis = res
    nd = len(shape)
    axis = axis % nd
    n = shape[axis]
    slots = xp.arange(n, dtype=indices.dtype)
    onehot = xp.astype(xp.expand_dims(indices, axis=nd) == slots, g.dtype)
    contrib = xp.expand_dims(g, axis=nd) * onehot  # (..., k, ..., n)
    summed = xp.sum(contrib, axis=axis)  # (..., ..., n) with axis removed
    gx = xp.moveaxis(summed, -1, axis)
    return (xp.broadcast_to(gx, shape) if tuple(gx.shape) != tuple(shape) else gx, None)


def _is_int_array(k):
    return hasattr(k, "dtype") and hasattr(k, "shape") and "int" in str(k.dtype)


@getitem.defvjp
def _getitem_vjp(xp, res, g):
    shape, key = res
    keys = key if isinstance(key, tuple) else (key,)
    ints = [i for i, k in enumerate(keys) if _is_int_array(k)]
    if not ints:
        z = xp.zeros(shape, dtype=g.dtype)
        return (_index_put(xp, z, key, g), None)
    if len(ints) == 1 and all(k == slice(None) for i, k in enumerate(keys) if i != ints[0]) \
            and getattr(keys[ints[0]], "ndim", 1) == 1:
        axis = ints[0]
        return (_segment_sum(xp, g, keys[axis], shape[axis], axis), None)
    if all(_is_int_array(k) or isinstance(k, int) for k in keys):
        # Leading integer (array) indices: gather rows of x flattened over those dims.
        lead = len(keys)
        flat = 0
        stride = 1
        for d in range(lead - 1, -1, -1):
            k = keys[d]
            flat = flat + (k % shape[d]) * stride
            stride *= shape[d]
        rest = tuple(shape[lead:])
        idx_shape = tuple(getattr(flat, "shape", ()))
        n_idx = math.prod(idx_shape)
        flat = xp.reshape(flat, (n_idx,)) if idx_shape or hasattr(flat, "shape") else flat
        g2 = xp.reshape(g, (n_idx,) + rest)
        gx = _segment_sum(xp, g2, flat, stride, 0)
        return (xp.reshape(gx, tuple(shape)), None)
    raise NotImplementedError(
        "arrayflow.getitem: the gradient of indexing with several integer arrays, or an "
        "integer array combined with other indices, is not implemented; use take or "
        "take_along_axis")


def _index_put(xp, z, key, value):
    """A copy of ``z`` with ``z[key] = value``; recorded when ``xp`` is arrayflow."""
    put = getattr(xp, "index_put", None)
    if put is not None:  # xp is arrayflow: record it
        return put(z, key, value)
    import array_api_extra as xpx

    return xpx.at(z, key).set(value, copy=True, xp=xp)


@op("index_put")
def index_put(xp, x, key, values, /):
    """A copy of ``x`` with ``x[key] = values`` (out of place; PyTorch ``index_put``).

    Parameters
    ----------
    x : Tensor
    key : index
        Basic indices and boolean masks, as ``__setitem__`` allows.
    values : Tensor or scalar
        Broadcast to ``x[key]``'s shape.

    Returns
    -------
    Tensor
        Shape and dtype of ``x``.
    """
    import array_api_extra as xpx

    return xpx.at(x, key).set(values, copy=True, xp=xp), (key, values)


@index_put.defvjp
def _index_put_vjp(xp, res, g):
    key, values = res
    gx = _index_put(xp, g, key, 0.0)
    gv = None
    if hasattr(values, "shape"):
        gv = _sum_to(xp, g[key], values.shape)
    return (gx, None, gv)


# Pure data movement (copies, sums over broadcast or repeated positions): the VJPs are
# right for complex values as they are (PyTorch's convention, arrayflow.ops._vjp_util).
from ._vjp_util import mark_complex_ok as _mark_complex_ok  # noqa: E402

_mark_complex_ok(broadcast_arrays, broadcast_to, concat, expand_dims, flip, moveaxis,
                 permute_dims, repeat, reshape, roll, squeeze, stack, tile, unstack, take,
                 take_along_axis, getitem, index_put)
