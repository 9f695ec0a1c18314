"""Data type functions (array API standard 2025.12, "Data Type Functions")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import _backend, _dtypes
from .._dtypes import DType
from .._typing import Array
from ._registry import op

__all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type",
           "finfo_object", "iinfo_object"]


@dataclass(frozen=True)
class finfo_object:  # noqa: N801 - the standard's name
    """Machine limits of a floating dtype (array API ``finfo_object``; :func:`finfo`).

    Parameters
    ----------
    bits : int
        Number of bits of the dtype (of a complex dtype's real component).
    eps : float
        Difference between 1.0 and the next larger representable number.
    max : float
        Largest representable number.
    min : float
        Smallest (most negative) representable number.
    smallest_normal : float
        Smallest positive normal number (also :attr:`tiny`).
    dtype : DType
        The real floating dtype these limits are of.
    """

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
    """Machine limits of an integer dtype (array API ``iinfo_object``; :func:`iinfo`).

    Parameters
    ----------
    bits : int
        Number of bits of the dtype.
    max : int
        Largest representable integer.
    min : int
        Smallest representable integer.
    dtype : DType
        The integer dtype these limits are of.
    """

    bits: int
    max: int
    min: int
    dtype: _dtypes.DType


def _native_of(fname: str, backend: Any, type: Any, kind: str | tuple[str, ...],
               what: str, other: str) -> Any:
    """The native dtype of ``type`` (a dtype or an array) for ``finfo``/``iinfo``.

    Raises PyTorch's ``TypeError`` for a dtype of another kind (the backends disagree:
    NumPy's namespace raised ``AttributeError``, array-api-strict ``ValueError``).
    """
    native = type.dtype if backend.is_array(type) else type
    try:
        dt = backend.arrayflow_dtype(native)
    except (TypeError, KeyError):  # not a dtype of this backend: the backend's own check
        return native
    if not _dtypes.isdtype(dt, kind):
        hint = "" if dt is _dtypes.bool else f"; use {other}() for {dt.name}"
        raise TypeError(f"{fname}() requires {what} dtype, got {dt.name}{hint}")
    return native


@op("astype", section="data_type", dtypes="any", torch_name=None, complex_ok=True)
def astype(xp, x: Array, dtype: DType, /, *, copy: bool = True, device: Any | None = None):
    """Copy of ``x`` cast to ``dtype`` (also to another ``device``).

    Parameters
    ----------
    x : Tensor
        Any shape, any dtype.
    dtype : DType
        The result's dtype.
    copy : bool
        False returns ``x`` itself when nothing changes (dtype and device).
    device : device, optional
        The result's device; None keeps ``x``'s.

    Returns
    -------
    Tensor
        ``x``'s shape, of ``dtype``. Differentiable: the gradient is cast back to
        ``x``'s dtype (a real input of a complex cast gets the real part of the
        gradient, as PyTorch).

    Raises
    ------
    TypeError
        Where the backend refuses the cast (array-api-strict: complex to real).

    Notes
    -----
    Source: array API standard 2025.12, Data Type Functions, ``astype``; PyTorch spells
    it ``Tensor.to(dtype)`` (no ``torch.astype`` function).
    """
    kw = {} if device is None else {"device": device}
    return xp.astype(x, dtype, copy=copy, **kw), (x.dtype, xp.isdtype(x.dtype,
                                                                    "complex floating"))


@astype.defvjp
def _astype_vjp(xp, res, g):
    # Back to the input's dtype; a real input of a complex cast gets the real part of the
    # gradient, a complex input of a real cast the gradient as its real part (PyTorch).
    dtype, was_complex = res
    if not was_complex and xp.isdtype(g.dtype, "complex floating"):
        g = xp.real(g)
    return (xp.astype(g, dtype),)


@astype.defjvp
def _astype_jvp(xp, tangents, out, x, dtype, /, *, copy=True, device=None):
    # Linear: the tangent cast alike. A cast to an integer or bool dtype has no tangent;
    # a complex-to-real cast takes the real part of the tangent (PyTorch's ``_to_copy``).
    if not xp.isdtype(out.dtype, ("real floating", "complex floating")):
        return None
    t = tangents["x"]
    if xp.isdtype(t.dtype, "complex floating") and not xp.isdtype(out.dtype,
                                                                  "complex floating"):
        t = xp.real(t)
    kw = {} if device is None else {"device": device}
    return xp.astype(t, out.dtype, copy=copy, **kw)


@op("can_cast", section="data_type", dtypes="any", backend_arg=True, differentiable=False,
    out="raw")
def can_cast(backend, from_: DType | Array, to: DType, /) -> bool:
    """Whether ``from_`` (a dtype or Tensor) casts to ``to`` under the standard's rules.

    Parameters
    ----------
    from_ : DType or Tensor
        The source dtype, or a Tensor whose dtype is read (never its values: a lazy
        Tensor stays lazy).
    to : DType
        The target dtype.

    Returns
    -------
    bool
        A Python bool: True where the standard's promotion rules allow the cast.

    Notes
    -----
    Source: array API standard 2025.12, Data Type Functions, ``can_cast``
    (``torch.can_cast``).
    """
    src: Any = from_
    if backend.is_array(src):  # an array: its dtype (never its values; Dask stays lazy)
        src = src.dtype
    return backend.xp.can_cast(src, to)


@op("result_type", section="data_type", dtypes="any", backend_arg=True, differentiable=False,
    out="raw", convert_dtypes=False)
def result_type(backend,
                *arrays_and_dtypes: Array | DType | bool | int | float | complex) -> DType:
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
        At least one Tensor or dtype; a Tensor's dtype is read, never its values.

    Returns
    -------
    DType

    Raises
    ------
    TypeError
        Without a Tensor or dtype, for ``uint64`` with a signed integer (no integer
        dtype holds both), or for an argument of another type.

    Notes
    -----
    Source: array API standard 2025.12, Data Type Functions, ``result_type``; PyTorch
    ``torch.result_type`` and ``torch.promote_types`` for mixed kinds.
    """
    items = []
    a: Any
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


@op("finfo", section="data_type", dtypes="any", backend_arg=True, differentiable=False,
    out="raw")
def finfo(backend, type: DType | Array, /) -> finfo_object:
    """Machine limits of a floating dtype or of a floating Tensor's dtype.

    Parameters
    ----------
    type : DType or Tensor
        A real or complex floating dtype, or a Tensor of one (a complex dtype gives
        the limits of its real component).

    Returns
    -------
    finfo_object
        ``bits``, ``eps``, ``max``, ``min``, ``smallest_normal`` (``tiny``) and
        ``dtype`` (a real floating :class:`~arrayflow.DType`).

    Raises
    ------
    TypeError
        For an integer or bool dtype (PyTorch's error type).

    Notes
    -----
    Source: array API standard 2025.12, Data Type Functions, ``finfo``
    (``torch.finfo``).
    """
    native = _native_of("finfo", backend, type, ("real floating", "complex floating"),
                        "a floating point", "iinfo")
    f = backend.xp.finfo(native)
    return finfo_object(int(f.bits), float(f.eps), float(f.max), float(f.min),
                        float(f.smallest_normal), backend.arrayflow_dtype(f.dtype))


@op("iinfo", section="data_type", dtypes="any", backend_arg=True, differentiable=False,
    out="raw")
def iinfo(backend, type: DType | Array, /) -> iinfo_object:
    """Machine limits of an integer dtype or of an integer Tensor's dtype.

    Parameters
    ----------
    type : DType or Tensor
        An integer dtype, or a Tensor of one.

    Returns
    -------
    iinfo_object
        ``bits``, ``max``, ``min`` and ``dtype``.

    Raises
    ------
    TypeError
        For a floating, complex or bool dtype (PyTorch's error type).

    Notes
    -----
    Source: array API standard 2025.12, Data Type Functions, ``iinfo``
    (``torch.iinfo``).
    """
    native = _native_of("iinfo", backend, type, "integral", "an integer", "finfo")
    f = backend.xp.iinfo(native)
    return iinfo_object(int(f.bits), int(f.max), int(f.min), backend.arrayflow_dtype(f.dtype))


@op("isdtype", section="data_type", dtypes=None, torch_name=None, backend_arg=True,
    differentiable=False, out="raw", convert_dtypes=False)
def isdtype(backend, dtype: DType, kind: DType | str | tuple[DType | str, ...]) -> bool:
    """Whether ``dtype`` is of ``kind`` (see :func:`arrayflow._dtypes.isdtype`).

    Parameters
    ----------
    dtype : DType
        The dtype tested.
    kind : DType, str or tuple
        A dtype (identity), a kind name (``"bool"``, ``"signed integer"``,
        ``"unsigned integer"``, ``"integral"``, ``"real floating"``,
        ``"complex floating"``, ``"numeric"``) or a tuple of them (any matches).

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        For an unknown kind name.
    TypeError
        If ``dtype`` (or a dtype in ``kind``) is neither an arrayflow dtype nor a dtype
        of an installed backend (a string, a class that is no dtype, ...).

    Notes
    -----
    Source: array API standard 2025.12, Data Type Functions, ``isdtype`` (PyTorch has
    no such function: ``dtype.is_floating_point``, ``dtype.is_complex``). A backend's
    own dtype (``numpy.float64``, ``numpy.dtype("float32")``) is accepted and read as
    the arrayflow dtype it maps to, as array-api-compat's namespaces accept their
    library's dtypes (scikit-learn passes NumPy dtypes beside arrayflow Tensors).
    """
    dtype = _as_arrayflow_dtype(backend, dtype, "dtype")
    if isinstance(kind, tuple):
        kind = tuple(k if isinstance(k, str) else _as_arrayflow_dtype(backend, k, "kind")
                     for k in kind)
    elif not isinstance(kind, str):
        kind = _as_arrayflow_dtype(backend, kind, "kind")
    return _dtypes.isdtype(dtype, kind)


def _as_arrayflow_dtype(backend: Any, dtype: Any, arg: str) -> DType:
    """The arrayflow dtype of ``dtype``: itself, or the dtype a backend's native dtype
    maps to (:meth:`Backend.arrayflow_dtype`: this ``backend`` first, then every backend
    instantiated in this process). Raises ``TypeError`` naming ``isdtype`` and ``arg``
    otherwise (a string, a number, an array, a class that is no dtype)."""
    if isinstance(dtype, DType):
        return dtype
    if not isinstance(dtype, (str, bytes)):
        lib = _backend._library_of(dtype)
        for b in [backend] + [b for b in list(_backend._instances.values())
                              if b is not backend]:
            natives = b._dtype_maps()[1]
            if not any(_backend._library_of(nd) == lib for nd in natives):
                continue  # another library's dtypes (array-api-strict warns on comparing)
            try:
                return b.arrayflow_dtype(dtype)
            except TypeError:
                pass
    raise TypeError(
        f"isdtype: argument {arg!r} must be an arrayflow dtype (or a dtype of an installed "
        f"backend, such as numpy.float64), got {dtype!r}")
