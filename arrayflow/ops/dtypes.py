"""Data type functions (array API standard 2025.12, "Data Type Functions")."""

from __future__ import annotations

from dataclasses import dataclass

from .. import _dtypes
from ._registry import op

__all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type",
           "finfo_object", "iinfo_object"]


@op("astype")
def astype(xp, x, dtype, /, *, copy=True, device=None):
    """Copy of ``x`` cast to ``dtype`` (also to another ``device``).

    Parameters
    ----------
    x : Tensor
    dtype : DType
    copy : bool
        False returns ``x`` itself when nothing changes.

    Notes
    -----
    Source: array API standard 2025.12, ``astype``.
    """
    kw = {} if device is None else {"device": device}
    return xp.astype(x, dtype, copy=copy, **kw), (x.dtype, xp.isdtype(x.dtype,
                                                                    "complex floating"))



@op("can_cast", backend_arg=True, differentiable=False, out="raw")
def can_cast(backend, from_, to, /):
    """Whether ``from_`` (a dtype or Tensor) casts to ``to`` under the standard's rules.

    Source: array API standard 2025.12, ``can_cast``.
    """
    if backend.is_array(from_):  # an array: its dtype (never its values; Dask stays lazy)
        from_ = from_.dtype
    return backend.xp.can_cast(from_, to)


@op("result_type", backend_arg=True, differentiable=False, out="raw", convert_dtypes=False)
def result_type(backend, *arrays_and_dtypes):
    """The dtype Tensors, dtypes and Python scalars promote to.

    The same rule every promoting function and operator applies
    (:func:`arrayflow._dtypes.result_type`): same-kind dtypes follow the array API
    standard's table; mixed kinds (bool, integer, floating), which the standard leaves
    to the implementation, follow PyTorch: the floating operand's dtype wins
    (``result_type(float32, int64)`` is ``float32``), an integer beats bool, and a
    Python scalar of a higher kind gives that kind's default dtype (``int64`` Tensor
    with ``1.5`` is :func:`arrayflow.get_default_dtype`). Identical on every backend.

    Parameters
    ----------
    *arrays_and_dtypes : Tensor, DType or Python scalar
        At least one Tensor or dtype.

    Returns
    -------
    DType

    Raises
    ------
    TypeError
        Without a Tensor or dtype, for ``uint64`` with a signed integer (no integer
        dtype holds both), or for an argument of another type.

    Source: array API standard 2025.12, ``result_type``; PyTorch ``torch.result_type``
    and ``torch.promote_types`` for mixed kinds.
    """
    items = []
    for a in arrays_and_dtypes:
        if isinstance(a, _dtypes.DType) or type(a) in (bool, int, float, complex):
            items.append(a)
        elif backend.is_array(a):  # its dtype only (never its values: Dask stays lazy)
            items.append(backend.arrayflow_dtype(a.dtype))
        else:
            try:  # a native dtype of this backend
                items.append(backend.arrayflow_dtype(backend.native_dtype(a)))
            except TypeError:
                raise TypeError(f"result_type: expected Tensors, dtypes or Python scalars, "
                                f"got {type(a).__name__}") from None
    return _dtypes.result_type(*items)


@dataclass(frozen=True)
class finfo_object:  # noqa: N801 - the standard's name
    """Machine limits of a floating dtype (array API ``finfo_object``)."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: _dtypes.DType

    @property
    def tiny(self) -> float:
        """Alias of ``smallest_normal`` (PyTorch, NumPy)."""
        return self.smallest_normal


@dataclass(frozen=True)
class iinfo_object:  # noqa: N801 - the standard's name
    """Machine limits of an integer dtype (array API ``iinfo_object``)."""

    bits: int
    max: int
    min: int
    dtype: _dtypes.DType


@op("finfo", backend_arg=True, differentiable=False, out="raw")
def finfo(backend, type, /):
    """Machine limits of a floating dtype or of a floating Tensor's dtype.

    Source: array API standard 2025.12, ``finfo``.
    """
    f = backend.xp.finfo(type.dtype if backend.is_array(type) else type)
    return finfo_object(int(f.bits), float(f.eps), float(f.max), float(f.min),
                        float(f.smallest_normal), backend.arrayflow_dtype(f.dtype))


@op("iinfo", backend_arg=True, differentiable=False, out="raw")
def iinfo(backend, type, /):
    """Machine limits of an integer dtype or of an integer Tensor's dtype.

    Source: array API standard 2025.12, ``iinfo``.
    """
    f = backend.xp.iinfo(type.dtype if backend.is_array(type) else type)
    return iinfo_object(int(f.bits), int(f.max), int(f.min), backend.arrayflow_dtype(f.dtype))


@op("isdtype", backend_arg=True, differentiable=False, out="raw", convert_dtypes=False)
def isdtype(backend, dtype, kind):
    """Whether ``dtype`` is of ``kind`` (see :func:`arrayflow._dtypes.isdtype`).

    Source: array API standard 2025.12, ``isdtype``.
    """
    return _dtypes.isdtype(dtype, kind)


@astype.defvjp
def _astype_vjp(xp, res, g):
    # Back to the input's dtype; a real input of a complex cast gets the real part of the
    # gradient, a complex input of a real cast the gradient as its real part (PyTorch).
    dtype, was_complex = res
    if not was_complex and xp.isdtype(g.dtype, "complex floating"):
        g = xp.real(g)
    return (xp.astype(g, dtype),)


from ._vjp_util import mark_complex_ok as _mark_complex_ok  # noqa: E402

_mark_complex_ok(astype)
