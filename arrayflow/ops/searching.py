"""Searching, sorting and set functions (array API standard 2025.12, "Searching
Functions", "Sorting Functions" and "Set Functions").

Each op is one unit: its ``@op(...)`` metadata, its forward, its VJP right after and its
forward-mode rule (JVP) after that.
"""

from __future__ import annotations

from typing import Literal

from .._typing import Array, Axis
from ._registry import op
from ._vjp_util import sum_to_shape as _sum_to
from .manipulation import take_along_axis as _take_along_axis

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where",
           "argsort", "sort", "isin", "unique_all", "unique_counts", "unique_inverse",
           "unique_values"]


# --- searching functions -----------------------------------------------------------------------

@op("argmax", section="searching", dtypes="real", differentiable=False)
def argmax(xp, x: Array, /, *, axis: int | None = None, keepdims: bool = False):
    """Index of the first maximum of ``x`` along ``axis``.

    Parameters
    ----------
    x : Tensor
        Input, real dtype.
    axis : int or None
        The axis; None (default) searches the flattened ``x``.
    keepdims : bool
        Keep the searched axis with size 1.

    Returns
    -------
    Tensor
        The default integer dtype (int64), ``x``'s shape without ``axis`` (0-d for
        None). Not differentiable.

    Raises
    ------
    ValueError
        If ``x`` is empty (eager backends).

    Notes
    -----
    Source: array API standard 2025.12, "Searching Functions", ``argmax``.
    """
    return xp.argmax(x, axis=axis, keepdims=keepdims)


@op("argmin", section="searching", dtypes="real", differentiable=False)
def argmin(xp, x: Array, /, *, axis: int | None = None, keepdims: bool = False):
    """Index of the first minimum of ``x`` along ``axis``.

    Parameters
    ----------
    x : Tensor
        Input, real dtype.
    axis : int or None
        The axis; None (default) searches the flattened ``x``.
    keepdims : bool
        Keep the searched axis with size 1.

    Returns
    -------
    Tensor
        The default integer dtype (int64), ``x``'s shape without ``axis`` (0-d for
        None). Not differentiable.

    Raises
    ------
    ValueError
        If ``x`` is empty (eager backends).

    Notes
    -----
    Source: array API standard 2025.12, "Searching Functions", ``argmin``.
    """
    return xp.argmin(x, axis=axis, keepdims=keepdims)


@op("count_nonzero", section="searching", dtypes="any", differentiable=False)
def count_nonzero(xp, x: Array, /, *, axis: Axis = None, keepdims: bool = False):
    """Number of non-zero elements of ``x`` over ``axis``.

    Parameters
    ----------
    x : Tensor
        Input, any dtype.
    axis : int, tuple of int or None
        Axes to count over; None (default) counts all.
    keepdims : bool
        Keep the counted axes with size 1.

    Returns
    -------
    Tensor
        The default integer dtype, ``x``'s shape without (or with size-1) counted
        axes. Not differentiable.

    Notes
    -----
    Source: array API standard 2025.12, "Searching Functions", ``count_nonzero``.
    """
    return xp.count_nonzero(x, axis=axis, keepdims=keepdims)


@op("nonzero", section="searching", dtypes="any", differentiable=False, out="tuple")
def nonzero(xp, x: Array, /):
    """Indices of the non-zero elements of ``x``, one Tensor per dimension.

    Parameters
    ----------
    x : Tensor
        Input, any dtype, at least 1-D.

    Returns
    -------
    tuple of Tensor
        ``x.ndim`` 1-D Tensors of the default integer dtype, all of the same
        data-dependent length (lazy backends may not support it).

    Raises
    ------
    ValueError
        If ``x`` is 0-d (the standard).

    Notes
    -----
    Source: array API standard 2025.12, "Searching Functions", ``nonzero``
    (PyTorch ``nonzero(as_tuple=True)``).
    """
    return tuple(xp.nonzero(x))


@op("searchsorted", section="searching", dtypes="real", differentiable=False)
def searchsorted(xp, x1: Array, x2: Array | int | float, /, *,
                 side: Literal["left", "right"] = "left", sorter: Array | None = None):
    """Indices where the elements of ``x2`` go into the sorted ``x1`` to keep it sorted.

    Parameters
    ----------
    x1 : Tensor
        1-D, real dtype, sorted ascending (unless ``sorter`` is given).
    x2 : Tensor or scalar
        Values to insert.
    side : {"left", "right"}
        Which index to return for values equal to elements of ``x1``.
    sorter : Tensor, optional
        Integer indices that sort ``x1`` (applied with ``take`` before searching:
        not every backend takes it).

    Returns
    -------
    Tensor
        ``x2``'s shape, the default integer dtype. Not differentiable.

    Raises
    ------
    ValueError
        If ``x1`` is not 1-D.

    Notes
    -----
    Source: array API standard 2025.12, "Searching Functions", ``searchsorted``.
    """
    if sorter is not None:  # not every backend takes ``sorter`` (Dask): sort first
        x1 = xp.take(x1, sorter)
    return xp.searchsorted(x1, x2, side=side)


@op("where", section="searching", dtypes="boolean", promote=("x1", "x2"), complex_ok=True)
def where(xp, condition: Array, x1: Array | bool | int | float | complex,
          x2: Array | bool | int | float | complex, /):
    """Elements of ``x1`` where ``condition`` is true, else of ``x2``.

    Parameters
    ----------
    condition : Tensor
        Boolean.
    x1, x2 : Tensor or scalar
        The values; operands of different kinds are promoted as in PyTorch.

    Returns
    -------
    Tensor
        The broadcast shape of the three arguments, the promoted dtype of ``x1``
        and ``x2``. Differentiable in ``x1`` and ``x2`` (each gradient is ``g`` where
        it was chosen, 0 elsewhere, summed back to its shape).

    Notes
    -----
    Source: array API standard 2025.12, "Searching Functions", ``where``.
    """
    # Only the operands' shapes are saved (None for a Python scalar), not their values:
    # as PyTorch's WhereBackward0, which saves the condition alone, so a later in-place
    # change of x1 or x2 does not make backward raise.
    return xp.where(condition, x1, x2), (condition, getattr(x1, "shape", None),
                                         getattr(x2, "shape", None))


@where.defvjp
def _where_vjp(xp, res, g):
    cond, shape1, shape2 = res
    zero = xp.zeros((), dtype=g.dtype)  # 0-d: broadcasts, no array the size of g
    g1 = None if shape1 is None else _sum_to(xp, xp.where(cond, g, zero), shape1)
    g2 = None if shape2 is None else _sum_to(xp, xp.where(cond, zero, g), shape2)
    return (None, g1, g2)


@where.defjvp
def _where_jvp(xp, tangents, out, condition, x1, x2, /):
    # Linear in (x1, x2); the condition passes through. An operand without a tangent (a
    # Python scalar, an integer Tensor, a Tensor not dual) contributes 0, not its value.
    t1, t2 = tangents.get("x1"), tangents.get("x2")
    return xp.where(condition, 0.0 if t1 is None else t1, 0.0 if t2 is None else t2)


# --- sorting functions -------------------------------------------------------------------------

@op("argsort", section="sorting", dtypes="real", differentiable=False)
def argsort(xp, x: Array, /, *, axis: int = -1, descending: bool = False,
            stable: bool = True):
    """Indices that sort ``x`` along ``axis``.

    Parameters
    ----------
    x : Tensor
        Input, real dtype.
    axis : int
        The axis (default: the last).
    descending : bool
        Sort in descending order.
    stable : bool
        Keep the order of equal elements (default True).

    Returns
    -------
    Tensor
        ``x``'s shape, the default integer dtype. Not differentiable.

    Notes
    -----
    Source: array API standard 2025.12, "Sorting Functions", ``argsort``.
    """
    return xp.argsort(x, axis=axis, descending=descending, stable=stable)


# sort (real-only in the standard) has no complex rule: complex_ok False raises.
@op("sort", section="sorting", dtypes="real")
def sort(xp, x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True):
    """Sorted copy of ``x`` along ``axis``.

    Parameters
    ----------
    x : Tensor
        Input, real dtype.
    axis : int
        The axis (default: the last).
    descending : bool
        Sort in descending order.
    stable : bool
        Keep the order of equal elements (default True).

    Returns
    -------
    Tensor
        ``x``'s shape and dtype: the values only (PyTorch's ``sort`` also returns
        the indices: use :func:`argsort`). The gradient is routed back through the
        sorting permutation.

    Notes
    -----
    Source: array API standard 2025.12, "Sorting Functions", ``sort``.
    """
    y = xp.sort(x, axis=axis, descending=descending, stable=stable)
    return y, (x, axis, descending, stable)


@sort.defvjp
def _sort_vjp(xp, res, g):
    x, axis, descending, stable = res
    order = xp.argsort(x, axis=axis, descending=descending, stable=stable)
    inverse = xp.argsort(order, axis=axis, stable=True)
    if hasattr(xp, "take_along_axis"):
        return (xp.take_along_axis(g, inverse, axis=axis),)
    # the op, with its standard-only fallback
    return (_take_along_axis.forward(xp, g, inverse, axis=axis)[0],)


@sort.defjvp
def _sort_jvp(xp, tangents, out, x, /, *, axis=-1, descending=False, stable=True):
    # PyTorch's: the tangent gathered by the sorting permutation (the order the VJP uses).
    order = xp.argsort(x, axis=axis, descending=descending, stable=stable)
    return xp.take_along_axis(tangents["x"], order, axis=axis)


# --- set functions -----------------------------------------------------------------------------

@op("isin", section="set", dtypes="integer", differentiable=False)
def isin(xp, x1: Array | int, x2: Array | int, /, *, invert: bool = False):
    """Whether each element of ``x1`` occurs in ``x2``.

    Parameters
    ----------
    x1 : Tensor or int
        The elements to test (integer dtype in the standard).
    x2 : Tensor or int
        The elements to test against.
    invert : bool
        Test for absence instead.

    Returns
    -------
    Tensor
        Boolean, ``x1``'s shape (0-d for a scalar ``x1``). Not differentiable.

    Notes
    -----
    Source: array API standard 2025.12, "Set Functions", ``isin``.
    """
    out = xp.isin(x1, x2)  # ``invert`` applied here: array_api_strict 2.6 ignores it
    return xp.logical_not(out) if invert else out


@op("unique_all", section="set", dtypes="any", torch_name=None, differentiable=False,
    out="tuple")
def unique_all(xp, x: Array, /):
    """Unique values of ``x`` with their first indices, inverse indices and counts.

    Parameters
    ----------
    x : Tensor
        Input, any dtype.

    Returns
    -------
    tuple of Tensor
        Named tuple ``(values, indices, inverse_indices, counts)``: ``values`` 1-D
        sorted (data-dependent length: lazy backends may not support it), ``indices``
        and ``counts`` of its length, ``inverse_indices`` of ``x``'s shape.

    Notes
    -----
    Source: array API standard 2025.12, "Set Functions", ``unique_all``. PyTorch has
    no such function (``torch.unique`` with ``return_inverse``/``return_counts``).
    """
    return xp.unique_all(x)


@op("unique_counts", section="set", dtypes="any", torch_name=None, differentiable=False,
    out="tuple")
def unique_counts(xp, x: Array, /):
    """Unique values of ``x`` and their counts.

    Parameters
    ----------
    x : Tensor
        Input, any dtype.

    Returns
    -------
    tuple of Tensor
        Named tuple ``(values, counts)``, both 1-D of a data-dependent length.

    Notes
    -----
    Source: array API standard 2025.12, "Set Functions", ``unique_counts``
    (PyTorch: ``torch.unique(x, return_counts=True)``).
    """
    return xp.unique_counts(x)


@op("unique_inverse", section="set", dtypes="any", torch_name=None, differentiable=False,
    out="tuple")
def unique_inverse(xp, x: Array, /):
    """Unique values of ``x`` and the indices that rebuild ``x`` from them.

    Parameters
    ----------
    x : Tensor
        Input, any dtype.

    Returns
    -------
    tuple of Tensor
        Named tuple ``(values, inverse_indices)``: ``values`` 1-D of a data-dependent
        length, ``inverse_indices`` of ``x``'s shape.

    Notes
    -----
    Source: array API standard 2025.12, "Set Functions", ``unique_inverse``
    (PyTorch: ``torch.unique(x, return_inverse=True)``).
    """
    return xp.unique_inverse(x)


@op("unique_values", section="set", dtypes="any", torch_name="unique", differentiable=False)
def unique_values(xp, x: Array, /):
    """Sorted unique values of ``x``.

    Parameters
    ----------
    x : Tensor
        Input, any dtype.

    Returns
    -------
    Tensor
        1-D of a data-dependent length (lazy backends may not support it), ``x``'s
        dtype.

    Notes
    -----
    Source: array API standard 2025.12, "Set Functions", ``unique_values`` (PyTorch
    ``unique``).
    """
    return xp.unique_values(x)
