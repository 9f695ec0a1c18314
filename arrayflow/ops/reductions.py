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
    return xp.cumulative_sum(x, axis=axis, dtype=dtype, include_initial=include_initial), (
        x.shape, axis, include_initial)


@op("cumulative_prod")
def cumulative_prod(xp, x, /, *, axis=None, dtype=None, include_initial=False):
    """Cumulative product along ``axis``; ``include_initial`` prepends a one.

    Source: array API standard 2025.12, ``cumulative_prod`` (PyTorch ``cumprod``).
    """
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

    Source: array API standard 2025.12, ``diff``.
    """
    return xp.diff(x, axis=axis, n=n, prepend=prepend, append=append), (
        x.shape, axis, n, prepend, append)
