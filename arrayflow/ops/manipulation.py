"""Manipulation functions (array API standard 2025.12, "Manipulation Functions")
and indexing (``take``, ``take_along_axis``, ``__getitem__``).
"""

from __future__ import annotations

import math

from ._registry import op

__all__ = [
    "broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat", "expand_dims", "flip",
    "moveaxis", "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile",
    "unstack", "take", "take_along_axis", "getitem",
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

    Source: array API standard 2025.12, ``expand_dims`` (PyTorch ``unsqueeze``).
    """
    if isinstance(axis, tuple):
        ndim = x.ndim + len(axis)
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


@op("getitem")
def getitem(xp, x, key, /):
    """``x[key]``: basic, integer-array and boolean indexing as the standard allows.

    Whether the result aliases ``x`` is backend-defined (NumPy: basic indexing
    gives views); never rely on it.

    Source: array API standard 2025.12, "Indexing".
    """
    return x[key], (x.shape, key)
