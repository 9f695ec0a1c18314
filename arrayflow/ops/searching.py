"""Searching, sorting and set functions (array API standard 2025.12)."""

from __future__ import annotations

from ._registry import op

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where",
           "argsort", "sort", "isin", "unique_all", "unique_counts", "unique_inverse",
           "unique_values"]


@op("argmax", differentiable=False)
def argmax(xp, x, /, *, axis=None, keepdims=False):
    """Index of the first maximum along ``axis`` (flattened when None); default int dtype.

    Source: array API standard 2025.12, ``argmax``.
    """
    return xp.argmax(x, axis=axis, keepdims=keepdims)


@op("argmin", differentiable=False)
def argmin(xp, x, /, *, axis=None, keepdims=False):
    """Index of the first minimum along ``axis``. Source: array API 2025.12, ``argmin``."""
    return xp.argmin(x, axis=axis, keepdims=keepdims)


@op("count_nonzero", differentiable=False)
def count_nonzero(xp, x, /, *, axis=None, keepdims=False):
    """Number of non-zero elements along ``axis``. Source: array API 2025.12."""
    return xp.count_nonzero(x, axis=axis, keepdims=keepdims)


@op("nonzero", differentiable=False, out="tuple")
def nonzero(xp, x, /):
    """Indices of non-zero elements, one Tensor per dimension (data-dependent shape).

    Source: array API standard 2025.12, ``nonzero``.
    """
    return tuple(xp.nonzero(x))


@op("searchsorted", differentiable=False)
def searchsorted(xp, x1, x2, /, *, side="left", sorter=None):
    """Indices where ``x2``'s elements go into the sorted 1-D ``x1`` to keep it sorted.

    Source: array API standard 2025.12, ``searchsorted``.
    """
    if sorter is not None:  # not every backend takes ``sorter`` (Dask): sort first
        x1 = xp.take(x1, sorter)
    return xp.searchsorted(x1, x2, side=side)


@op("where", promote=("x1", "x2"))
def where(xp, condition, x1, x2, /):
    """Elements of ``x1`` where ``condition`` is true, else of ``x2`` (broadcast).

    Source: array API standard 2025.12, ``where``.
    """
    return xp.where(condition, x1, x2), (condition, x1, x2)


@op("argsort", differentiable=False)
def argsort(xp, x, /, *, axis=-1, descending=False, stable=True):
    """Indices that sort ``x`` along ``axis``. Source: array API 2025.12, ``argsort``."""
    return xp.argsort(x, axis=axis, descending=descending, stable=stable)


@op("sort")
def sort(xp, x, /, *, axis=-1, descending=False, stable=True):
    """Sorted copy of ``x`` along ``axis``. Source: array API 2025.12, ``sort``."""
    y = xp.sort(x, axis=axis, descending=descending, stable=stable)
    return y, (x, axis, descending, stable)


@op("isin", differentiable=False)
def isin(xp, x1, x2, /, *, invert=False):
    """Whether each element of ``x1`` occurs in ``x2``. Source: array API 2025.12."""
    out = xp.isin(x1, x2)  # ``invert`` applied here: array_api_strict 2.6 ignores it
    return xp.logical_not(out) if invert else out


@op("unique_all", differentiable=False, out="tuple")
def unique_all(xp, x, /):
    """Unique values with indices, inverse indices and counts (a named tuple).

    Data-dependent output shape: lazy backends may not support it.
    Source: array API standard 2025.12, ``unique_all``.
    """
    return xp.unique_all(x)


@op("unique_counts", differentiable=False, out="tuple")
def unique_counts(xp, x, /):
    """Unique values and their counts (named tuple ``values, counts``)."""
    return xp.unique_counts(x)


@op("unique_inverse", differentiable=False, out="tuple")
def unique_inverse(xp, x, /):
    """Unique values and inverse indices (named tuple ``values, inverse_indices``)."""
    return xp.unique_inverse(x)


@op("unique_values", differentiable=False)
def unique_values(xp, x, /):
    """Sorted unique values of ``x`` (1-D). Source: array API 2025.12."""
    return xp.unique_values(x)


# --- VJPs ------------------------------------------------------------------------------------

from ._vjp_util import sum_to_shape as _sum_to  # noqa: E402
from .manipulation import take_along_axis as _take_along_axis  # noqa: E402


@where.defvjp
def _where_vjp(xp, res, g):
    cond, x1, x2 = res
    zero = xp.zeros((), dtype=g.dtype)  # 0-d: broadcasts, no array the size of g
    g1 = _sum_to(xp, xp.where(cond, g, zero), x1.shape) if hasattr(x1, "shape") else None
    g2 = _sum_to(xp, xp.where(cond, zero, g), x2.shape) if hasattr(x2, "shape") else None
    return (None, g1, g2)


@sort.defvjp
def _sort_vjp(xp, res, g):
    x, axis, descending, stable = res
    order = xp.argsort(x, axis=axis, descending=descending, stable=stable)
    inverse = xp.argsort(order, axis=axis, stable=True)
    if hasattr(xp, "take_along_axis"):
        return (xp.take_along_axis(g, inverse, axis=axis),)
    # the op, with its standard-only fallback
    return (_take_along_axis.forward(xp, g, inverse, axis=axis)[0],)


from ._vjp_util import mark_complex_ok as _mark_complex_ok  # noqa: E402

_mark_complex_ok(where)  # sort (real-only in the standard) raises for complex values
