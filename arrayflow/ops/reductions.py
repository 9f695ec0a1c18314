"""Statistical and utility reductions (array API standard 2025.12,
"Statistical Functions" and "Utility Functions").
"""

from __future__ import annotations

from ._registry import op

__all__ = ["sum", "prod", "mean", "std", "var", "max", "min", "cumulative_sum",
           "cumulative_prod", "all", "any", "diff"]

_REDUCE_DOC = """{summary}

Parameters
----------
x : Tensor
axis : int, tuple of int or None
    Axes to reduce; None reduces all.
keepdims : bool
    Keep reduced axes with size 1.

Returns
-------
Tensor
    ``x``'s shape without (or with size-1) reduced axes.

Source: array API standard 2025.12, ``{name}``.
"""


@op("sum", doc=_REDUCE_DOC.format(summary="Sum of elements; ``dtype`` sets the accumulator "
                                  "and result dtype.", name="sum"))
def sum(xp, x, /, *, axis=None, dtype=None, keepdims=False):
    return xp.sum(x, axis=axis, dtype=dtype, keepdims=keepdims), (x.shape, axis, keepdims)


@op("prod", doc=_REDUCE_DOC.format(summary="Product of elements.", name="prod"))
def prod(xp, x, /, *, axis=None, dtype=None, keepdims=False):
    y = xp.prod(x, axis=axis, dtype=dtype, keepdims=keepdims)
    return y, (x, y, axis, keepdims)


@op("mean", doc=_REDUCE_DOC.format(summary="Arithmetic mean (floating input).", name="mean"))
def mean(xp, x, /, *, axis=None, keepdims=False):
    return xp.mean(x, axis=axis, keepdims=keepdims), (x.shape, axis, keepdims)


@op("std", doc=_REDUCE_DOC.format(
    summary="Standard deviation; ``correction`` is Bessel's (0: population, 1: sample). "
            "Note PyTorch's default is 1, the standard's 0.", name="std"))
def std(xp, x, /, *, axis=None, correction=0.0, keepdims=False):
    y = xp.std(x, axis=axis, correction=correction, keepdims=keepdims)
    return y, (x, y, axis, correction, keepdims)


@op("var", doc=_REDUCE_DOC.format(
    summary="Variance; ``correction`` as in :func:`std`.", name="var"))
def var(xp, x, /, *, axis=None, correction=0.0, keepdims=False):
    return xp.var(x, axis=axis, correction=correction, keepdims=keepdims), (
        x, axis, correction, keepdims)


@op("max", doc=_REDUCE_DOC.format(summary="Maximum (NaN-propagating). Returns values only: "
                                  "PyTorch's ``max(dim)`` also returns indices.", name="max"))
def max(xp, x, /, *, axis=None, keepdims=False):
    y = xp.max(x, axis=axis, keepdims=keepdims)
    return y, (x, y, axis, keepdims)


@op("min", doc=_REDUCE_DOC.format(summary="Minimum (NaN-propagating).", name="min"))
def min(xp, x, /, *, axis=None, keepdims=False):
    y = xp.min(x, axis=axis, keepdims=keepdims)
    return y, (x, y, axis, keepdims)


@op("cumulative_sum")
def cumulative_sum(xp, x, /, *, axis=None, dtype=None, include_initial=False):
    """Cumulative sum along ``axis`` (may be None only for 1-D ``x``).

    ``include_initial`` prepends a zero. Source: array API standard 2025.12,
    ``cumulative_sum`` (PyTorch ``cumsum``).
    """
    if x.ndim == 0:  # the standard leaves 0-d open: PyTorch's 0-d result (backends differ)
        y = _cumulative_0d(xp, xp.cumulative_sum, x, dtype, include_initial)
        return y, (x.shape, axis, include_initial)
    return xp.cumulative_sum(x, axis=axis, dtype=dtype, include_initial=include_initial), (
        x.shape, axis, include_initial)


def _cumulative_0d(xp, fn, x, dtype, include_initial):
    """``cumsum``/``cumprod`` of a 0-d ``x`` as PyTorch: 0-d (``include_initial``: shape (2,))."""
    y = fn(xp.reshape(x, (1,)), axis=0, dtype=dtype, include_initial=include_initial)
    return y if include_initial else xp.reshape(y, ())


@op("cumulative_prod")
def cumulative_prod(xp, x, /, *, axis=None, dtype=None, include_initial=False):
    """Cumulative product along ``axis``; ``include_initial`` prepends a one.

    Source: array API standard 2025.12, ``cumulative_prod`` (PyTorch ``cumprod``).
    """
    if x.ndim == 0:  # the standard leaves 0-d open: PyTorch's 0-d result (backends differ)
        y = _cumulative_0d(xp, xp.cumulative_prod, x, dtype, include_initial)
        return y, (x, y, axis, include_initial)
    y = xp.cumulative_prod(x, axis=axis, dtype=dtype, include_initial=include_initial)
    return y, (x, y, axis, include_initial)


@op("all", differentiable=False, doc=_REDUCE_DOC.format(
    summary="Whether all elements are true (logical AND reduction).", name="all"))
def all(xp, x, /, *, axis=None, keepdims=False):
    return xp.all(x, axis=axis, keepdims=keepdims)


@op("any", differentiable=False, doc=_REDUCE_DOC.format(
    summary="Whether any element is true (logical OR reduction).", name="any"))
def any(xp, x, /, *, axis=None, keepdims=False):
    return xp.any(x, axis=axis, keepdims=keepdims)


@op("diff")
def diff(xp, x, /, *, axis=-1, n=1, prepend=None, append=None):
    """``n``-th forward difference along ``axis``, with optional ``prepend``/``append``.

    ``prepend``/``append`` are joined to ``x`` with ``concat`` here rather than
    handed to the backend (NumPy's ``diff`` reads ``None`` as data; Dask's
    computes them); a 0-d or Python scalar one counts as one slice along ``axis``.

    Source: array API standard 2025.12, ``diff``.
    """
    y = x
    if prepend is not None or append is not None:
        parts = [_diff_edge(xp, prepend, x, axis), x, _diff_edge(xp, append, x, axis)]
        y = xp.concat([p for p in parts if p is not None], axis=axis)
    return xp.diff(y, axis=axis, n=n), (x.shape, axis, n, prepend, append)


def _diff_edge(xp, v, x, axis):
    if v is None or getattr(v, "ndim", 0):
        return v
    shape = list(x.shape)
    shape[axis] = 1
    if not hasattr(v, "ndim"):
        v = xp.asarray(v, dtype=x.dtype)
    return xp.broadcast_to(v, tuple(shape))


# --- VJPs ------------------------------------------------------------------------------------

import math  # noqa: E402

from ._vjp_util import along as _along  # noqa: E402
from ._vjp_util import cj as _cj  # noqa: E402
from ._vjp_util import mark_complex_ok as _mark_complex_ok  # noqa: E402
from ._vjp_util import norm_axes as _norm_axes  # noqa: E402
from ._vjp_util import rev_cumsum as _rev_cumsum  # noqa: E402
from ._vjp_util import unreduce as _unreduce  # noqa: E402


@sum.defvjp
def _sum_vjp(xp, res, g):
    shape, axis, keepdims = res
    return (_unreduce(xp, g, shape, axis, keepdims),)


@mean.defvjp
def _mean_vjp(xp, res, g):
    shape, axis, keepdims = res
    n = 1
    for a in _norm_axes(axis, len(shape)):
        n *= shape[a]
    return (_unreduce(xp, g, shape, axis, keepdims) / n,)


def _prod_of_others(xp, x, axes):
    """Product of all elements along ``axes`` except each one (exact with zeros)."""
    nd = x.ndim
    rest = [a for a in range(nd) if a not in axes]
    perm = tuple(rest) + tuple(axes)
    xm = xp.permute_dims(x, perm)
    lead = tuple(xm.shape[: len(rest)])
    k = 1
    for a in axes:
        k *= x.shape[a]
    xm = xp.reshape(xm, lead + (k,))
    left = xp.cumulative_prod(xm, axis=-1, include_initial=True)[..., :-1]
    right = xp.flip(xp.cumulative_prod(xp.flip(xm, axis=-1), axis=-1, include_initial=True),
                    axis=-1)[..., 1:]
    others = xp.reshape(left * right, tuple(x.shape[a] for a in perm))
    inv = [0] * nd
    for i, p in enumerate(perm):
        inv[p] = i
    return xp.permute_dims(others, tuple(inv))


@prod.defvjp
def _prod_vjp(xp, res, g):
    # The product of the others (exact with zeros, as PyTorch's prod_backward), conjugated.
    x, y, axis, keepdims = res
    axes = _norm_axes(axis, x.ndim)
    gx = _unreduce(xp, g, x.shape, axis, keepdims)
    if not axes:
        return (gx,)
    return (gx * _cj(xp, _prod_of_others(xp, x, axes)),)


def _extreme_vjp(xp, res, g):
    # PyTorch's amax/amin rule: the gradient is split evenly among tied extremes.
    x, y, axis, keepdims = res
    ye = _unreduce(xp, y, x.shape, axis, keepdims)
    mask = xp.astype(x == ye, g.dtype)
    count = _unreduce(xp, xp.sum(mask, axis=axis, keepdims=True), x.shape, axis, True)
    return (_unreduce(xp, g, x.shape, axis, keepdims) * mask / count,)


max.defvjp(_extreme_vjp)
min.defvjp(_extreme_vjp)


def _n_reduced(shape, axis):
    n = 1
    for a in _norm_axes(axis, len(shape)):
        n *= shape[a]
    return n


def _var_grad(xp, x, ge, axis, correction):
    """PyTorch's var_backward for the (unreduced) output gradient ``ge``.

    ``2 / (n - correction) * ge * (x - mean)``; with ``n - correction <= 0`` a full
    reduction (``axis=None``) gives NaN where ``x`` equals the mean and inf elsewhere,
    a reduction over given axes the formula with ``2 / 0 = inf`` (PyTorch's two paths).
    """
    dof = _n_reduced(x.shape, axis) - correction
    centered = x - xp.mean(x, axis=axis, keepdims=True)
    if dof <= 0 and (axis is None or x.ndim == 0):
        nan_inf = xp.where(centered == 0, xp.zeros_like(ge) + math.nan,
                           xp.zeros_like(ge) + math.inf)
        return ge * nan_inf
    scale = 2.0 / dof if dof != 0 else math.inf
    return scale * ge * centered


@var.defvjp
def _var_vjp(xp, res, g):
    x, axis, correction, keepdims = res
    return (_var_grad(xp, x, _unreduce(xp, g, x.shape, axis, keepdims), axis, correction),)


@std.defvjp
def _std_vjp(xp, res, g):
    # PyTorch's std_backward: var's rule for g / (2 * std), with 0 where std == 0 (a
    # constant input has gradient 0, not NaN).
    x, y, axis, correction, keepdims = res
    zero = y == 0
    gy = xp.where(zero, xp.zeros_like(g), g / (2 * xp.where(zero, xp.ones_like(y), y)))
    return (_var_grad(xp, x, _unreduce(xp, gy, x.shape, axis, keepdims), axis, correction),)


@cumulative_sum.defvjp
def _cumsum_vjp(xp, res, g):
    shape, axis, include_initial = res
    if len(shape) == 0:  # y == x (include_initial: y == [0, x])
        return (xp.reshape(g[1:] if include_initial else g, ()),)
    axis = 0 if axis is None else axis
    if include_initial:
        g = g[_along(axis, len(shape), slice(1, None))]
    return (_rev_cumsum(xp, g, axis),)


@cumulative_prod.defvjp
def _cumprod_vjp(xp, res, g):
    # PyTorch's cumprod_backward, zeros included. Along the axis, with z the first zero:
    #   i < z:  sum_{k >= i} g_k conj(y_k) / conj(x_i)   (y_k == 0 for k >= z)
    #   i == z: sum_{k >= z} g_k conj(y'_k), y' the cumulative product with x_z set to 1
    #   i > z:  0                                        (every y_k with k >= i holds x_z)
    x, y, axis, include_initial = res
    if x.ndim == 0:  # y == x (include_initial: y == [1, x])
        return (xp.reshape(g[1:] if include_initial else g, ()),)
    axis = 0 if axis is None else axis
    if include_initial:
        y = y[_along(axis, x.ndim, slice(1, None))]
        g = g[_along(axis, x.ndim, slice(1, None))]
    zero = x == 0
    nz = xp.cumulative_sum(xp.astype(zero, xp.int32), axis=axis)
    before = nz == 0
    first = zero & (nz == 1)
    one = xp.ones_like(x)
    safe = xp.where(before, x, one)
    gx = _rev_cumsum(xp, g * _cj(xp, y), axis) / _cj(xp, safe)
    y1 = xp.cumulative_prod(xp.where(first, one, x), axis=axis)
    gz = _rev_cumsum(xp, g * _cj(xp, y1), axis)
    zeros = xp.zeros_like(gx)
    return (xp.where(before, gx, xp.where(first, gz, zeros)),)


@diff.defvjp
def _diff_vjp(xp, res, g):
    shape, axis, n, prepend, append = res
    nd = len(shape)
    for _ in range(n):
        first = g[_along(axis, nd, slice(0, 1))]
        zero = xp.zeros_like(first)
        g = xp.concat([zero, g], axis=axis) - xp.concat([g, zero], axis=axis)
    if prepend is not None:
        k = prepend.shape[axis] if getattr(prepend, "ndim", 0) else 1
        g = g[_along(axis, nd, slice(k, None))]
    if append is not None:
        k = append.shape[axis] if getattr(append, "ndim", 0) else 1
        g = g[_along(axis, nd, slice(0, g.shape[axis % nd] - k))]
    return (g,)


# Complex values follow PyTorch's convention; max and min (real-only in the standard) raise.
_mark_complex_ok(sum, prod, mean, std, var, cumulative_sum, cumulative_prod, diff)
