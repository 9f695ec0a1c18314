"""Closeness tests with PyTorch's semantics: ``isclose`` and ``allclose``.

Not in the array API standard; ``torch.isclose``/``torch.allclose`` are matched,
defaults included (``rtol=1e-05``, ``atol=1e-08``, ``equal_nan=False``).
"""

from __future__ import annotations

from .._typing import Array, Scalar
from ._registry import op

__all__ = ["isclose", "allclose"]


def _check(fname, xp, x1, x2, rtol, atol):
    d1, d2 = getattr(x1, "dtype", None), getattr(x2, "dtype", None)
    if d1 is not None and d2 is not None and d1 != d2:
        raise RuntimeError(f"{fname}(): {d1} did not match {d2} (PyTorch requires both "
                           f"Tensors to have one dtype; cast one first)")
    if not rtol >= 0:
        raise RuntimeError(f"{fname}(): rtol must be greater than or equal to zero, "
                           f"but got {rtol}")
    if not atol >= 0:
        raise RuntimeError(f"{fname}(): atol must be greater than or equal to zero, "
                           f"but got {atol}")


def _isclose(xp, x1, x2, rtol, atol, equal_nan):
    if not hasattr(x1, "dtype"):  # a Python scalar: the other operand's dtype
        x1 = xp.asarray(x1, dtype=x2.dtype)
    if not hasattr(x2, "dtype"):
        x2 = xp.asarray(x2, dtype=x1.dtype)
    if xp.isdtype(x1.dtype, "bool"):
        return x1 == x2
    if xp.isdtype(x1.dtype, "integral"):  # the tolerance test in floating point
        x1, x2 = xp.astype(x1, xp.float64), xp.astype(x2, xp.float64)
    both = xp.isfinite(x1) & xp.isfinite(x2)
    diff = xp.abs(x1 - x2)
    close = (x1 == x2) | (both & (diff <= atol + rtol * xp.abs(x2)))
    if equal_nan:
        close = close | (xp.isnan(x1) & xp.isnan(x2))
    return close


@op("isclose", section="torch", dtypes="any", differentiable=False)
def isclose(xp, x1: Array | Scalar, x2: Array | Scalar, /, rtol: float = 1e-05,
            atol: float = 1e-08, equal_nan: bool = False):
    """Element-wise ``|x1 - x2| <= atol + rtol * |x2|`` (PyTorch ``torch.isclose``).

    Equal values (infinities of one sign included) are close; NaNs are close to each
    other only with ``equal_nan=True``. Not symmetric (``rtol`` scales ``|x2|``).

    Parameters
    ----------
    x1, x2 : Tensor or Python scalar
        Broadcast against each other; any dtype, the same for both (one of them may be
        a Python scalar, which takes the other's dtype). Integers are compared in
        float64, bools by equality.
    rtol, atol : float
        Relative and absolute tolerance, both >= 0.
    equal_nan : bool
        Whether NaNs at the same position are close.

    Returns
    -------
    Tensor
        Bool, of the broadcast shape. Not differentiable.

    Raises
    ------
    RuntimeError
        If the two Tensors' dtypes differ, or a tolerance is negative (PyTorch's errors).

    Notes
    -----
    Source: PyTorch ``torch.isclose`` (not in the array API standard 2025.12; the
    array-api-extra library has one).
    """
    _check("isclose", xp, x1, x2, rtol, atol)
    return _isclose(xp, x1, x2, rtol, atol, equal_nan)


@op("allclose", section="torch", dtypes="any", differentiable=False, out="raw")
def allclose(xp, x1: Array | Scalar, x2: Array | Scalar, /, rtol: float = 1e-05,
             atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """Whether every element of ``x1`` is close to ``x2`` (PyTorch ``torch.allclose``).

    The :func:`isclose` test reduced with ``all``; on a lazy backend (Dask) the result
    is computed, as ``bool()`` of a Dask array is.

    Parameters
    ----------
    x1, x2 : Tensor or Python scalar
        As :func:`isclose`: broadcast against each other, one dtype.
    rtol, atol : float
        Relative and absolute tolerance, both >= 0.
    equal_nan : bool
        Whether NaNs at the same position are close.

    Returns
    -------
    bool
        A Python bool (True for empty operands).

    Raises
    ------
    RuntimeError
        As :func:`isclose`.

    Notes
    -----
    Source: PyTorch ``torch.allclose`` (not in the array API standard 2025.12).
    """
    _check("allclose", xp, x1, x2, rtol, atol)
    return bool(xp.all(_isclose(xp, x1, x2, rtol, atol, equal_nan)))
