"""PyTorch's Tensor methods that the array API standard does not define.

Installed on :class:`arrayflow.Tensor` by :func:`install` (called at the end of
``arrayflow/tensor.py``); kept here so the array object's own module stays about
the standard's array object. Every method follows PyTorch, error types included.

In-place methods (``add_``, ``mul_``, ``copy_``, ``clamp_``, ``exp_``,
``masked_fill_``...) go through the Tensor's one in-place mechanism
(``Tensor._inplace`` / ``Tensor._check_inplace`` and ``Tensor._commit``): the
version counter is bumped, the autograd graph is rebased onto the out-of-place
result, and a leaf that requires grad raises PyTorch's ``RuntimeError`` ("a leaf
Variable that requires grad is being used in an in-place operation") outside
``no_grad``. The result must keep the Tensor's dtype and shape (PyTorch: "result type
Float can't be cast to the desired output type Long" is a ``TypeError`` here).
"""

from __future__ import annotations

import builtins
import warnings
from collections.abc import Sequence
from typing import Any, NamedTuple

from . import _dtypes
from ._dtypes import DType
from ._typing import Array, Axis, Scalar
from .autograd.forward_ad import _LEVELS as _fw_levels
from .autograd.forward_ad import _carry_tangents as _fw_carry
from .autograd.forward_ad import inplace as _fw_inplace
from .autograd.grad_mode import no_grad
from .autograd.graph import rename
from .ops import aliases as _al
from .ops import comparison as _cmp
from .ops import creation as _c
from .ops import dtypes as _dt
from .ops import elementwise as _e
from .ops import linalg as _la
from .ops import manipulation as _m
from .ops import reductions as _r
from .ops import searching as _s
from .ops._registry import overridable_method
from .ops.norms import norm as _norm
from .ops.special import erf as _erf

__all__ = ["install"]

Tensor: Any = None  # the Tensor class, set by install() (tensor.py imports this module)


def _alias(t):
    """A Tensor with ``t``'s current values and autograd history but its own storage.

    In-place methods compute their out-of-place result from it: a composite (``sigmoid``,
    ``div`` with a rounding mode) saves the values it reads in intermediate nodes, and
    those must stay the values before the write (PyTorch saves the original ``self``),
    not be invalidated by ``t``'s version bump. Writes are functional, so sharing the
    array is safe."""
    a = Tensor._from_array(t._cell.array, t._backend)
    a._requires_grad = t._requires_grad
    a.grad_fn = t.grad_fn
    a._output_nr = t._output_nr
    a._grad_acc = t._grad_acc
    if _fw_levels:  # and its forward-mode tangents (else div_, exp_... lose self's)
        _fw_carry(t, a)
    return a


def _inplace(self, fn, other, name):
    """``Tensor._inplace`` with ``fn`` reading an alias of ``self`` (see :func:`_alias`)."""
    return self._inplace(lambda s, o: fn(_alias(s), o), other, name)


def _grad_other(*objs):
    """The first argument that is a Tensor requiring grad (what ``_check_inplace`` needs to
    know to record the operation), else None."""
    for o in objs:
        if isinstance(o, Tensor) and o._requires_grad:
            return o
    return None


# --- arithmetic in place ------------------------------------------------------------------

_WARNED: set = set()


def _old_alpha_form(fname, other, rest, alpha):
    """PyTorch's deprecated ``add_(alpha, other)`` overload (old tutorials'
    ``p.data.add_(-lr, p.grad)``): accepted with PyTorch's warning; returns (other, alpha)."""
    if not rest:
        return other, alpha
    if len(rest) != 1 or alpha != 1 or not isinstance(rest[0], Tensor) or isinstance(
            other, Tensor):
        raise TypeError(f"{fname}(): expected (Tensor other, *, Number alpha=1), got "
                        f"{1 + len(rest)} positional arguments")
    if fname in _WARNED:  # once per process, as PyTorch's TORCH_WARN_ONCE
        return rest[0], other
    _WARNED.add(fname)
    warnings.warn(f"This overload of {fname} is deprecated:\n\t{fname}(Number alpha, Tensor "
                  f"other)\nConsider using one of the following signatures instead:\n\t"
                  f"{fname}(Tensor other, *, Number alpha = 1)", UserWarning, stacklevel=4)
    return rest[0], other


def add_(self, other: Array | Scalar, *rest: Array | Scalar, alpha: Scalar = 1) -> Array:
    """``self += alpha * other`` in place (PyTorch ``Tensor.add_``).

    PyTorch's deprecated ``add_(alpha, other)`` form is accepted with its warning.

    Parameters
    ----------
    other : Tensor or Scalar
        The other operand (a Tensor, broadcast, or a Python scalar).
    *rest : Tensor or Scalar
        PyTorch's deprecated ``(alpha, other)`` form: the Tensor ``other`` after the scalar
        ``alpha``.
    alpha : Scalar, default 1
        The multiplier of ``other``.

    Returns
    -------
    Tensor
        This Tensor, changed in place.

    Raises
    ------
    RuntimeError
        On a leaf that requires grad outside ``no_grad`` (PyTorch's error).
    TypeError
        If the result's dtype is not this Tensor's (an int Tensor plus a float).
    """
    other, alpha = _old_alpha_form("add_", other, rest, alpha)
    if alpha == 1:
        return self._inplace(_e.add, other, "add_")
    return self._inplace(lambda s, o: _e.add(s, o * alpha), other, "add_")


def sub_(self, other: Array | Scalar, *rest: Array | Scalar, alpha: Scalar = 1) -> Array:
    """``self -= alpha * other`` in place (PyTorch ``Tensor.sub_``); errors as :meth:`add_`.

    Parameters
    ----------
    other : Tensor or Scalar
        The other operand (a Tensor, broadcast, or a Python scalar).
    *rest : Tensor or Scalar
        PyTorch's deprecated ``(alpha, other)`` form: the Tensor ``other`` after the scalar
        ``alpha``.
    alpha : Scalar, default 1
        The multiplier of ``other``.

    Returns
    -------
    Tensor
        This Tensor, changed in place.
    """
    other, alpha = _old_alpha_form("sub_", other, rest, alpha)
    if alpha == 1:
        return self._inplace(_e.subtract, other, "sub_")
    return self._inplace(lambda s, o: _e.subtract(s, o * alpha), other, "sub_")


def mul_(self, other: Array | Scalar) -> Array:
    """``self *= other`` in place (PyTorch ``Tensor.mul_``); errors as :meth:`add_`.

    Parameters
    ----------
    other : Tensor or Scalar
        The other operand (a Tensor, broadcast, or a Python scalar).

    Returns
    -------
    Tensor
        This Tensor, changed in place.
    """
    return self._inplace(_e.multiply, other, "mul_")


def _div(s, o, rounding_mode, fname):
    if rounding_mode is None:
        return _e.divide(s, o)
    if rounding_mode == "floor":
        return _e.floor_divide(s, o)
    if rounding_mode == "trunc":
        if _dtypes.category(s.dtype) == 2 or (
                type(o) is float or (isinstance(o, Tensor) and _dtypes.category(o.dtype) == 2)):
            return _e.trunc(_e.divide(s, o))
        q = _e.floor_divide(s, o)  # integers: round the floor towards zero
        r = _e.remainder(s, o)
        return q + _dt.astype((r != 0) & ((s < 0) != (o < 0)), q.dtype)
    raise RuntimeError(f"{fname}: expected rounding_mode to be one of None, 'trunc', or "
                       f"'floor' but found '{rounding_mode}'")


def div(self, other: Array | Scalar, *, rounding_mode: str | None = None) -> Array:
    """``self / other`` (PyTorch ``Tensor.div``); ``rounding_mode`` ``"trunc"`` rounds
    towards zero, ``"floor"`` down (zero gradient, as PyTorch).

    Parameters
    ----------
    other : Tensor or Scalar
        The other operand (a Tensor, broadcast, or a Python scalar).
    rounding_mode : str, optional
        None (true division), ``'trunc'`` (towards zero) or ``'floor'`` (PyTorch's modes).

    Returns
    -------
    Tensor
        The quotient, rounded as ``rounding_mode`` says.

    Raises
    ------
    RuntimeError
        An unknown ``rounding_mode`` (PyTorch's error).
    """
    return _div(self, other, rounding_mode, "div")


def div_(self, other: Array | Scalar, *, rounding_mode: str | None = None) -> Array:
    """``self /= other`` in place (PyTorch ``Tensor.div_``), ``rounding_mode`` as
    :meth:`div`; errors as :meth:`add_` (true division of an int Tensor raises).

    Parameters
    ----------
    other : Tensor or Scalar
        The other operand (a Tensor, broadcast, or a Python scalar).
    rounding_mode : str, optional
        None (true division), ``'trunc'`` (towards zero) or ``'floor'`` (PyTorch's modes).

    Returns
    -------
    Tensor
        This Tensor, changed in place.
    """
    return _inplace(self, lambda s, o: _div(s, o, rounding_mode, "div_"), other, "div_")


def addcmul_(self, tensor1: Array, tensor2: Array, *, value: Scalar = 1) -> Array:
    """``self += value * tensor1 * tensor2`` in place (PyTorch ``Tensor.addcmul_``).

    Parameters
    ----------
    tensor1 : Tensor
        The first factor (broadcast).
    tensor2 : Tensor
        The second factor or divisor (broadcast).
    value : Scalar, default 1
        The scale of the product or quotient.

    Returns
    -------
    Tensor
        This Tensor, changed in place.
    """
    return _inplace(self, lambda s, _o: s + _addcmul_value(s, tensor1, tensor2, value) * (
                        tensor1 * tensor2),
                    _grad_other(tensor1, tensor2), "addcmul_")


def addcdiv_(self, tensor1: Array, tensor2: Array, *, value: Scalar = 1) -> Array:
    """``self += value * tensor1 / tensor2`` in place (PyTorch ``Tensor.addcdiv_``).

    Parameters
    ----------
    tensor1 : Tensor
        The first factor (broadcast).
    tensor2 : Tensor
        The second factor or divisor (broadcast).
    value : Scalar, default 1
        The scale of the product or quotient.

    Returns
    -------
    Tensor
        This Tensor, changed in place.

    Raises
    ------
    RuntimeError
        ``tensor1`` and ``tensor2`` both of integer or bool dtype (PyTorch's error).
    """
    _check_addcdiv("addcdiv_", tensor1, tensor2)
    return _inplace(self, lambda s, _o: s + value * (tensor1 / tensor2),
                    _grad_other(tensor1, tensor2), "addcdiv_")


def addcmul(self, tensor1: Array, tensor2: Array, *, value: Scalar = 1) -> Array:
    """``self + value * tensor1 * tensor2`` (PyTorch ``Tensor.addcmul``).

    Parameters
    ----------
    tensor1 : Tensor
        The first factor (broadcast).
    tensor2 : Tensor
        The second factor or divisor (broadcast).
    value : Scalar, default 1
        The scale of the product or quotient.

    Returns
    -------
    Tensor
        ``self + value * tensor1 * tensor2``; a float ``value`` on integer operands is
        truncated to an int first, as PyTorch casts it to the result's dtype.
    """
    return self + _addcmul_value(self, tensor1, tensor2, value) * (tensor1 * tensor2)


def _addcmul_value(self, tensor1, tensor2, value):
    """``value`` as PyTorch applies it: cast to the result's dtype, so a float ``value``
    on integer operands is truncated toward zero (``addcmul(a, a, a, value=1.5)`` of int64
    ``a`` adds ``1 * a * a`` and stays int64; arrayflow returned float32)."""
    if isinstance(value, float) and all(
            _kind(t) in ("signed integer", "unsigned integer") or
            (isinstance(t, int) and not isinstance(t, builtins.bool))
            for t in (self, tensor1, tensor2)):
        return int(value)
    return value


def addcdiv(self, tensor1: Array, tensor2: Array, *, value: Scalar = 1) -> Array:
    """``self + value * tensor1 / tensor2`` (PyTorch ``Tensor.addcdiv``).

    Parameters
    ----------
    tensor1 : Tensor
        The first factor (broadcast).
    tensor2 : Tensor
        The second factor or divisor (broadcast).
    value : Scalar, default 1
        The scale of the product or quotient.

    Returns
    -------
    Tensor
        ``self + value * tensor1 / tensor2``.

    Raises
    ------
    RuntimeError
        ``tensor1`` and ``tensor2`` both of integer or bool dtype (PyTorch's error).
    """
    _check_addcdiv("addcdiv", tensor1, tensor2)
    return self + value * (tensor1 / tensor2)


_INTEGRAL_KINDS = ("bool", "signed integer", "unsigned integer")
# PyTorch's names of the dtypes in its messages: ScalarType ("Long") and C type ("long int")
_TORCH_DTYPE_NAMES = {
    "bool": ("Bool", "bool"), "int8": ("Char", "signed char"),
    "uint8": ("Byte", "unsigned char"), "int16": ("Short", "short int"),
    "int32": ("Int", "int"), "int64": ("Long", "long int"), "float16": ("Half", "c10::Half"),
    "float32": ("Float", "float"), "float64": ("Double", "double"),
    "complex64": ("ComplexFloat", "c10::complex<float>"),
    "complex128": ("ComplexDouble", "c10::complex<double>"),
}


def _torch_dtype(dtype, c_name=False) -> str:
    """``dtype``'s name as PyTorch's messages spell it (``Long``, or ``long int``)."""
    names = _TORCH_DTYPE_NAMES.get(str(dtype))
    return str(dtype) if names is None else names[c_name]


def _kind(obj):
    return getattr(getattr(obj, "dtype", None), "kind", None)


def _check_addcdiv(fname, tensor1, tensor2) -> None:
    """PyTorch refuses ``addcdiv`` of two integer (or bool) Tensors."""
    if _kind(tensor1) in _INTEGRAL_KINDS and _kind(tensor2) in _INTEGRAL_KINDS:
        raise RuntimeError(
            f"{fname}: Integer division with addcdiv is no longer supported, and in a future  "
            f"release addcdiv will perform a true division of tensor1 and tensor2 (got "
            f"{tensor1.dtype} and {tensor2.dtype}). The historic addcdiv behavior can be "
            f"implemented as (input + value * trunc(tensor1 / tensor2)).to(input.dtype) for "
            f"integer inputs and as (input + value * tensor1 / tensor2) for float inputs.")


def _lerp_weight(fname, self, end, weight):
    """PyTorch's checks of ``lerp``: ``end`` (and a Tensor ``weight`` that is not 0-d) of
    ``self``'s dtype (RuntimeError), and a floating or complex dtype (NotImplementedError).
    Returns ``weight``: a 0-d Tensor of another dtype acts as a scalar (PyTorch), so it is
    cast to ``self``'s dtype (differentiably) and the result keeps ``self``'s dtype."""
    for name, other in (("end", end), ("weight", weight)):
        if name == "weight" and isinstance(other, Tensor) and other.ndim == 0:
            continue  # PyTorch: a 0-d weight of any dtype acts as a scalar
        if isinstance(other, Tensor) and other.dtype is not self.dtype:
            raise RuntimeError(
                f"{fname}: expected dtype {_torch_dtype(self.dtype, True)} for `{name}` but "
                f"got dtype {_torch_dtype(other.dtype, True)}")
    if self.dtype.kind not in ("real floating", "complex floating"):
        kernel = "tensor" if isinstance(weight, Tensor) and weight.ndim else "scalar"
        raise NotImplementedError(
            f'{fname}: "lerp_kernel_{kernel}" not implemented for '
            f"'{_torch_dtype(self.dtype)}'")
    if isinstance(weight, Tensor) and weight.dtype is not self.dtype:
        weight = _dt.astype(weight, self.dtype)
    return weight


def lerp(self, end: Array, weight: Array | Scalar) -> Array:
    """``self + weight * (end - self)`` (PyTorch ``Tensor.lerp``).

    Parameters
    ----------
    end : Tensor
        The end point (broadcast).
    weight : Tensor or Scalar
        The interpolation weight (a Tensor or a scalar).

    Returns
    -------
    Tensor
        ``self + weight * (end - self)``.

    Raises
    ------
    RuntimeError
        ``end`` or a Tensor ``weight`` of another dtype than ``self`` (PyTorch's error).
    NotImplementedError
        ``self`` of integer or bool dtype (PyTorch's error).
    """
    weight = _lerp_weight("lerp", self, end, weight)
    return self + weight * (end - self)


def lerp_(self, end: Array, weight: Array | Scalar) -> Array:
    """``self += weight * (end - self)`` in place (PyTorch ``Tensor.lerp_``).

    Parameters
    ----------
    end : Tensor
        The end point (broadcast).
    weight : Tensor or Scalar
        The interpolation weight (a Tensor or a scalar).

    Returns
    -------
    Tensor
        This Tensor, changed in place.

    Raises
    ------
    RuntimeError
        ``end`` or a Tensor ``weight`` of another dtype than ``self`` (PyTorch's error).
    NotImplementedError
        ``self`` of integer or bool dtype (PyTorch's error).
    """
    weight = _lerp_weight("lerp_", self, end, weight)
    return _inplace(self, lambda s, _o: s + weight * (end - s), _grad_other(end, weight),
                    "lerp_")


def pow_(self, exponent: Array | Scalar) -> Array:
    """``self **= exponent`` in place (PyTorch ``Tensor.pow_``); errors as :meth:`add_`.

    Parameters
    ----------
    exponent : Tensor or Scalar
        The exponent (a Tensor or a scalar).

    Returns
    -------
    Tensor
        This Tensor, changed in place.
    """
    return self._inplace(_e.pow, exponent, "pow_")


# --- clamp ----------------------------------------------------------------------------------

def _clamp_check(fname, min, max):
    if min is None and max is None:
        raise RuntimeError(f"{fname}: At least one of 'min' or 'max' must not be None")


def clamp(self, min: Array | Scalar | None = None, max: Array | Scalar | None = None) -> Array:
    """Clamp to ``[min, max]`` (PyTorch ``Tensor.clamp``; also ``clip``).

    ``min``/``max`` may be Python scalars or Tensors (broadcast; both differentiable);
    mixed kinds promote as PyTorch (an int Tensor clamped to 1.5 is float).

    Parameters
    ----------
    min : Tensor or Scalar, optional
        Lower bound (a Tensor, broadcast, or a scalar); None for none.
    max : Tensor or Scalar, optional
        Upper bound (a Tensor, broadcast, or a scalar); None for none.

    Returns
    -------
    Tensor
        The clamped values (the promoted dtype of ``self`` and the bounds).

    Raises
    ------
    RuntimeError
        If both bounds are None (PyTorch's error).
    """
    _clamp_check("clamp", min, max)
    return _e.clip(self, min, max)


def clamp_(self, min: Array | Scalar | None = None, max: Array | Scalar | None = None) -> Array:
    """:meth:`clamp` in place (PyTorch ``Tensor.clamp_``); errors as :meth:`add_`.

    Parameters
    ----------
    min : Tensor or Scalar, optional
        Lower bound (a Tensor, broadcast, or a scalar); None for none.
    max : Tensor or Scalar, optional
        Upper bound (a Tensor, broadcast, or a scalar); None for none.

    Returns
    -------
    Tensor
        This Tensor, changed in place.
    """
    _clamp_check("clamp_", min, max)
    return self._inplace(lambda s, _o: _e.clip(s, min, max), _grad_other(min, max), "clamp_")


def clamp_min(self, min: Array | Scalar) -> Array:
    """``max(self, min)`` element-wise (PyTorch ``Tensor.clamp_min``).

    Parameters
    ----------
    min : Tensor or Scalar
        Lower bound (a Tensor, broadcast, or a scalar); None for none.

    Returns
    -------
    Tensor
        The clamped values.
    """
    return _e.clip(self, min, None)


def clamp_max(self, max: Array | Scalar) -> Array:
    """``min(self, max)`` element-wise (PyTorch ``Tensor.clamp_max``).

    Parameters
    ----------
    max : Tensor or Scalar
        Upper bound (a Tensor, broadcast, or a scalar); None for none.

    Returns
    -------
    Tensor
        The clamped values.
    """
    return _e.clip(self, None, max)


def clamp_min_(self, min: Array | Scalar) -> Array:
    """:meth:`clamp_min` in place (PyTorch ``Tensor.clamp_min_``).

    Parameters
    ----------
    min : Tensor or Scalar
        Lower bound (a Tensor, broadcast, or a scalar); None for none.

    Returns
    -------
    Tensor
        This Tensor, changed in place.
    """
    return self._inplace(lambda s, o: _e.clip(s, o, None), min, "clamp_min_")


def clamp_max_(self, max: Array | Scalar) -> Array:
    """:meth:`clamp_max` in place (PyTorch ``Tensor.clamp_max_``).

    Parameters
    ----------
    max : Tensor or Scalar
        Upper bound (a Tensor, broadcast, or a scalar); None for none.

    Returns
    -------
    Tensor
        This Tensor, changed in place.
    """
    return self._inplace(lambda s, o: _e.clip(s, None, o), max, "clamp_max_")


# --- copy, masked fill, diagonal --------------------------------------------------------------

def copy_(self, src: Array, non_blocking: builtins.bool = False) -> Array:
    """Copy ``src``'s values into this Tensor in place (PyTorch ``Tensor.copy_``).

    ``src`` is broadcast to this Tensor's shape, cast to its dtype and moved to its
    backend, as PyTorch does. Differentiable: the gradient flows to ``src`` (summed
    over broadcast dimensions), the overwritten values get none.

    Parameters
    ----------
    src : Tensor
        The values to copy (broadcast to this Tensor's shape, cast, moved to its backend).
    non_blocking : bool, default False
        Accepted for PyTorch compatibility and ignored.

    Returns
    -------
    Tensor
        This Tensor, changed in place.

    Raises
    ------
    TypeError
        If ``src`` is not a Tensor.
    ValueError
        If ``src`` does not broadcast to this Tensor's shape.
    RuntimeError
        On a leaf that requires grad outside ``no_grad`` (PyTorch's error).
    """
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' (position 1) must be Tensor, not "
                        f"{type(src).__name__}")
    records = self._check_inplace("copy_", src)
    if src._backend.name != self._backend.name:
        src = src.to(backend=self._backend.name)
    if src.dtype is not self.dtype:
        src = _dt.astype(src, self.dtype)
    if src.shape != self.shape:
        src = _m.broadcast_to(src, self.shape)
    if _fw_levels:  # forward mode: this Tensor's tangent becomes src's (zero without)
        _fw_inplace(self, src, check=True)
    if records:
        result = _m.index_put(self, Ellipsis, src)
        rename(result.grad_fn, "CopyBackwards")  # PyTorch's name for copy_'s node
        self._commit(result._cell.array, result)
    else:
        self._commit(src._cell.array)
    if _fw_levels:
        _fw_inplace(self, src)
    return self


def _fill_value(fname, self, value):
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"{fname} only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.ndim} dimension(s).")
        return value if value.dtype is self.dtype else _dt.astype(value, self.dtype)
    if type(value) not in (builtins.bool, int, float, complex):
        raise TypeError(f"{fname}(): argument 'value' must be a Number or a 0-d Tensor, not "
                        f"{type(value).__name__}")
    kind = self.dtype.kind
    if kind == "bool":
        return builtins.bool(value)
    if kind in ("signed integer", "unsigned integer"):
        return int(value)  # PyTorch truncates a float fill of an integer Tensor
    if kind == "real floating":
        return float(value)
    return value


def _masked_fill(self, mask, value, fname):
    if not isinstance(mask, Tensor):
        raise TypeError(f"{fname}(): argument 'mask' (position 1) must be Tensor, not "
                        f"{type(mask).__name__}")
    if mask.dtype is not _dtypes.bool:
        raise RuntimeError(f"{fname} only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype}")
    return _s.where(mask, _fill_value(fname, self, value), self)


def masked_fill(self, mask: Array, value: Array | Scalar) -> Array:
    """``value`` where ``mask`` is True, else this Tensor's values (PyTorch
    ``Tensor.masked_fill``); ``mask`` broadcasts, ``value`` is a number or a 0-d Tensor
    (differentiable) cast to this Tensor's dtype.

    Parameters
    ----------
    mask : Tensor
        A bool Tensor, broadcast to this Tensor's shape.
    value : Tensor or Scalar
        The fill value (a scalar or a 0-d Tensor).

    Returns
    -------
    Tensor
        A copy with ``value`` where ``mask`` is True.

    Raises
    ------
    RuntimeError
        A mask that is not bool, or a value Tensor that is not 0-d (PyTorch's errors).
    """
    return _masked_fill(self, mask, value, "masked_fill")


def masked_fill_(self, mask: Array, value: Array | Scalar) -> Array:
    """:meth:`masked_fill` in place (PyTorch ``Tensor.masked_fill_``).

    Parameters
    ----------
    mask : Tensor
        A bool Tensor, broadcast to this Tensor's shape.
    value : Tensor or Scalar
        The fill value (a scalar or a 0-d Tensor).

    Returns
    -------
    Tensor
        This Tensor, changed in place.
    """
    return self._inplace(lambda s, v: _masked_fill(s, mask, v, "masked_fill_"), value,
                         "masked_fill_")


def fill_diagonal_(self, fill_value: Scalar, wrap: builtins.bool = False) -> Array:
    """Fill the main diagonal in place (PyTorch ``Tensor.fill_diagonal_``).

    For a 2-D Tensor the elements ``[i, i]``; with ``wrap=True`` a tall matrix's diagonal
    restarts after ``N`` columns (one row skipped), as NumPy's ``fill_diagonal``. An
    n-D Tensor must have all dimensions equal (elements ``[i, i, ..., i]``).

    Parameters
    ----------
    fill_value : Scalar
        The value written on the diagonal.
    wrap : bool, default False
        For a tall matrix, restart the diagonal every ``ncols + 1`` rows (PyTorch's ``wrap``).

    Returns
    -------
    Tensor
        This Tensor, changed in place.

    Raises
    ------
    RuntimeError
        Fewer than 2 dimensions, or unequal dimensions for n > 2 (PyTorch's errors).
    """
    shape = self.shape
    if len(shape) < 2:
        raise RuntimeError("fill_diagonal_: dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("fill_diagonal_: all dimensions of input must be of equal length")
    numel = 1
    for n in shape:
        numel *= n
    if len(shape) == 2:
        step = shape[1] + 1
        end = numel if wrap else builtins.min(numel, shape[1] * shape[1])
    else:
        step, p = 1, 1
        for n in shape[:-1]:
            p *= n
            step += p
        end = numel
    xp = self._backend.xp
    idx = xp.arange(numel)
    mask = xp.reshape(((idx % step) == 0) & (idx < end), shape)
    mask = Tensor._from_array(mask, self._backend)
    return self._inplace(lambda s, v: _masked_fill(s, mask, v, "fill_diagonal_"), fill_value,
                         "fill_diagonal_")


# --- unary in place -----------------------------------------------------------------------------

# One implementation each of ReLU, sigmoid, softmax and log-softmax: the Tensor methods,
# their in-place forms, ``af.relu``/``af.sigmoid`` and ``nn.functional`` (a higher layer)
# call these, as PyTorch's ``F.softmax`` calls ``Tensor.softmax``.

def _relu(x):
    """max(x, 0) in ``x``'s dtype, as PyTorch's ``relu``: the forward keeps NaN and the
    backward is ``threshold_backward(grad, result, 0)`` (gradient 0 at 0, ``grad`` at NaN).
    A bool Tensor is a RuntimeError, a complex one NotImplementedError (PyTorch's)."""
    kind = getattr(getattr(x, "dtype", None), "kind", None)
    if kind == "bool":
        raise RuntimeError("relu: Boolean inputs not supported for relu (got a Tensor of "
                           "dtype bool)")
    if kind == "complex floating":
        raise NotImplementedError(f"relu: clamp is not supported for complex types (got a "
                                  f"Tensor of dtype {x.dtype})")
    out = _s.where(x <= 0, 0, x)  # a Python int 0 keeps any real dtype (int64 stays int64)
    if out.grad_fn is not None:
        rename(out.grad_fn, "ReluBackward0")  # PyTorch's name for relu's node
    return out


def _sigmoid(x):
    """1 / (1 + exp(-x)), without overflow for large |x|."""
    e = _e.exp(-_e.abs(x))
    return _s.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _softmax_dim(ndim):
    # PyTorch's legacy implicit dim choice (with a warning there).
    return 0 if ndim in (0, 1, 3) else 1


def _check_softmax_dtype(name, x, dim) -> None:
    """PyTorch's NotImplementedError for a (log-)softmax of a dtype that is not real floating
    (an int Tensor without ``dtype=``: it computed in float32 silently)."""
    kind = getattr(getattr(x, "dtype", None), "kind", "real floating")
    if kind != "real floating":
        last = x.ndim <= 1 or dim in (-1, x.ndim - 1)
        raise NotImplementedError(
            f'{name}: "{name}_{"lastdim_" if last else ""}kernel_impl" not implemented for '
            f"'{_torch_dtype(x.dtype)}' (pass dtype= to compute in a floating dtype)")


def _softmax(x, dim, dtype):
    """exp(x) / sum(exp(x)) along ``dim``, with max-subtraction."""
    if dtype is not None:
        x = _dt.astype(x, dtype)
    if dim is None:
        dim = _softmax_dim(x.ndim)
    _check_softmax_dtype("softmax", x, dim)
    shifted = x - _r.max(x, axis=dim, keepdims=True).detach()
    ex = _e.exp(shifted)
    return ex / _r.sum(ex, axis=dim, keepdims=True)


def _log_softmax(x, dim, dtype):
    """x - logsumexp(x) along ``dim``, computed stably."""
    if dtype is not None:
        x = _dt.astype(x, dtype)
    if dim is None:
        dim = _softmax_dim(x.ndim)
    _check_softmax_dtype("log_softmax", x, dim)
    shifted = x - _r.max(x, axis=dim, keepdims=True).detach()
    return shifted - _e.log(_r.sum(_e.exp(shifted), axis=dim, keepdims=True))


_UNARY_INPLACE = {
    "neg_": _al.neg, "negative_": _e.negative, "abs_": _e.abs, "exp_": _e.exp,
    "expm1_": _e.expm1, "log_": _e.log, "log1p_": _e.log1p, "log2_": _e.log2,
    "log10_": _e.log10, "sqrt_": _e.sqrt, "square_": _e.square, "reciprocal_": _e.reciprocal,
    "sin_": _e.sin, "cos_": _e.cos, "tan_": _e.tan, "asin_": _e.asin, "acos_": _e.acos,
    "atan_": _e.atan, "sinh_": _e.sinh, "cosh_": _e.cosh, "tanh_": _e.tanh,
    "floor_": _e.floor, "ceil_": _e.ceil, "trunc_": _e.trunc, "round_": _e.round,
    "sign_": _e.sign, "sigmoid_": _sigmoid, "relu_": _relu,
    "rsqrt_": lambda x: _e.reciprocal(_e.sqrt(x)),
}


def _unary_inplace(name, fn):
    def method(self) -> Array:
        return _inplace(self, lambda s, _o: fn(s), None, name)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = (f"In-place ``{name[:-1]}`` (PyTorch ``Tensor.{name}``).\n\n"
                      f"Returns\n-------\nTensor\n    This Tensor, changed in place.\n\n"
                      f"Raises\n------\nRuntimeError\n    On a leaf that requires grad outside "
                      f"``no_grad``, or if the result's dtype is not this Tensor's (``exp_`` of "
                      f"an int Tensor), as PyTorch.")
    return method


# --- out-of-place PyTorch methods ----------------------------------------------------------------

def sigmoid(self) -> Array:
    """``1 / (1 + exp(-x))`` (PyTorch ``Tensor.sigmoid``).

    Returns
    -------
    Tensor
        Same shape and dtype.
    """
    return _sigmoid(self)


def relu(self) -> Array:
    """``max(x, 0)`` (PyTorch ``Tensor.relu``).

    Returns
    -------
    Tensor
        Same shape and dtype.
    """
    return _relu(self)


def softmax(self, dim: int | None, dtype: DType | None = None) -> Array:
    """Softmax over ``dim`` (PyTorch ``Tensor.softmax``).

    Parameters
    ----------
    dim : int or None
        The dimension to normalize over; None picks PyTorch's legacy default.
    dtype : DType, optional
        Cast the input to this dtype first; None keeps it.

    Returns
    -------
    Tensor
        Same shape; sums to 1 along ``dim``.
    """
    return _softmax(self, dim, dtype)


def log_softmax(self, dim: int | None, dtype: DType | None = None) -> Array:
    """Log-softmax over ``dim`` (PyTorch ``Tensor.log_softmax``).

    Parameters
    ----------
    dim : int or None
        The dimension to normalize over; None picks PyTorch's legacy default.
    dtype : DType, optional
        Cast the input to this dtype first; None keeps it.

    Returns
    -------
    Tensor
        Same shape.
    """
    return _log_softmax(self, dim, dtype)


def isclose(self, other: Array, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: builtins.bool = False) -> Array:
    """Element-wise closeness (see :func:`arrayflow.isclose`, PyTorch's semantics).

    Parameters
    ----------
    other : Tensor
        The Tensor to compare with.
    rtol : float, default 1e-05
        Relative tolerance.
    atol : float, default 1e-08
        Absolute tolerance.
    equal_nan : bool, default False
        Whether NaNs compare equal.

    Returns
    -------
    Tensor
        bool, the broadcast shape.
    """
    return _cmp.isclose(self, other, rtol=rtol, atol=atol, equal_nan=equal_nan)


def allclose(self, other: Array, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: builtins.bool = False) -> builtins.bool:
    """Whether all elements are close: a Python bool (see :func:`arrayflow.allclose`).

    Parameters
    ----------
    other : Tensor
        The Tensor to compare with.
    rtol : float, default 1e-05
        Relative tolerance.
    atol : float, default 1e-08
        Absolute tolerance.
    equal_nan : bool, default False
        Whether NaNs compare equal.

    Returns
    -------
    bool
        Whether every element is close (computes lazy arrays).
    """
    return _cmp.allclose(self, other, rtol=rtol, atol=atol, equal_nan=equal_nan)


def norm(self, p: float | str | None = "fro", dim: Axis = None, keepdim: builtins.bool = False,
         dtype: DType | None = None) -> Array:
    """The norm (PyTorch ``Tensor.norm``; see :func:`arrayflow.norm`).

    Parameters
    ----------
    p : float or str or None, default 'fro'
        The order of the norm (``'fro'``, ``'nuc'``, a number, ``inf``); see
        :func:`arrayflow.norm`.
    dim : int or tuple of int, default None
        The dimension(s) to reduce; None (``()`` for amax/amin) reduces all.
    keepdim : bool, default False
        Keep the reduced dimensions with size 1.
    dtype : DType, optional
        Compute in this dtype; None keeps the input's.

    Returns
    -------
    Tensor
        The norm(s), real floating.
    """
    return _norm(self, p, dim, keepdim, dtype)


def movedim(self, source: int | tuple[int, ...], destination: int | tuple[int, ...]) -> Array:
    """Move dimensions ``source`` to ``destination`` (PyTorch ``Tensor.movedim``; the
    standard's ``moveaxis``).

    Parameters
    ----------
    source : int or tuple[int, ...]
        The dimension(s) to move.
    destination : int or tuple[int, ...]
        Their new position(s).

    Returns
    -------
    Tensor
        A view with the dimensions moved.
    """
    return _m.moveaxis(self, source, destination)


# --- shapes, dtypes, selection ---------------------------------------------------------------

def _sizes(args):
    """``f(2, 3)`` or ``f((2, 3))``."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


def view_as(self, other: Array) -> Array:
    """This Tensor reshaped to ``other``'s shape (PyTorch ``Tensor.view_as``).

    Parameters
    ----------
    other : Tensor
        The Tensor whose shape or dtype to take.

    Returns
    -------
    Tensor
        This Tensor reshaped to ``other.shape``.
    """
    return _m.reshape(self, tuple(other.shape))


def type_as(self, other: Array) -> Array:
    """This Tensor cast to ``other``'s dtype (PyTorch ``Tensor.type_as``); itself when equal.

    Parameters
    ----------
    other : Tensor
        The Tensor whose shape or dtype to take.

    Returns
    -------
    Tensor
        This Tensor in ``other``'s dtype (``self`` when equal).
    """
    return self if self.dtype is other.dtype else _dt.astype(self, other.dtype)


def contiguous(self, memory_format: object = None) -> Array:
    """This Tensor (arrays have no strides to fix; PyTorch ``Tensor.contiguous``).

    Parameters
    ----------
    memory_format : object, default None
        Accepted for PyTorch compatibility and ignored (arrays have no strides).

    Returns
    -------
    Tensor
        ``self``.
    """
    return self


def is_contiguous(self, memory_format: object = None) -> builtins.bool:
    """True (PyTorch ``Tensor.is_contiguous``; arrayflow's arrays are never strided views).

    Parameters
    ----------
    memory_format : object, default None
        Accepted for PyTorch compatibility and ignored (arrays have no strides).

    Returns
    -------
    bool
        True.
    """
    return True


def is_floating_point(self) -> builtins.bool:
    """Whether the dtype is real floating (PyTorch ``Tensor.is_floating_point``).

    Returns
    -------
    bool
        Whether the dtype is real floating.
    """
    return self.dtype.kind == "real floating"


def is_complex(self) -> builtins.bool:
    """Whether the dtype is complex (PyTorch ``Tensor.is_complex``).

    Returns
    -------
    bool
        Whether the dtype is complex.
    """
    return self.dtype.kind == "complex floating"


def nelement(self) -> int:
    """The number of elements (PyTorch ``Tensor.nelement``, ``numel``).

    Returns
    -------
    int
        The number of elements.
    """
    return self.numel()


def element_size(self) -> int:
    """Bytes per element (PyTorch ``Tensor.element_size``).

    Returns
    -------
    int
        The number of bytes of one element.
    """
    return self.dtype.itemsize


def _caster(dtype_name):
    def method(self) -> Array:
        return self.to(_dtypes.by_name(dtype_name))

    method.__doc__ = (f"This Tensor cast to ``{dtype_name}`` (PyTorch's dtype method).\n\n"
                      f"Returns\n-------\nTensor\n    ``{dtype_name}``, same shape (``self`` "
                      f"when already ``{dtype_name}``).")
    return method


def repeat(self, *sizes: int | Sequence[int]) -> Array:
    """Tile this Tensor ``sizes`` times per dimension (PyTorch ``Tensor.repeat``, which is the
    standard's ``tile``; the standard's ``repeat`` is PyTorch's ``repeat_interleave``).

    Parameters
    ----------
    *sizes : int or sequence of int
        Repetitions per dimension, as separate ints or one sequence (at least ``ndim`` of them).

    Returns
    -------
    Tensor
        The tiled Tensor.

    Raises
    ------
    RuntimeError
        Fewer sizes than dimensions (PyTorch's error).
    """
    sizes = _sizes(sizes)
    if len(sizes) < self.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    return _m.tile(self, sizes)


def _dim(fname, dim, ndim):
    from .tensor import _check_dim

    return _check_dim(fname, dim, ndim, scalar_ok=True)


def index_select(self, dim: int, index: Array) -> Array:
    """Elements at 1-D integer ``index`` along ``dim`` (PyTorch ``Tensor.index_select``).

    Parameters
    ----------
    dim : int
        The dimension.
    index : Tensor
        An integer Tensor of indices.

    Returns
    -------
    Tensor
        The selected elements; size ``len(index)`` along ``dim``.

    Raises
    ------
    IndexError
        ``dim`` out of range, an ``index`` of more than one dimension, or an index outside
        ``[0, size)`` (negative too, as PyTorch: on Dask when the result is computed).
    RuntimeError
        An ``index`` whose dtype is not int32 or int64 (PyTorch's error).
    """
    axis = _dim("index_select", dim, self.ndim)
    _index_tensor("index_select", index)
    if index.ndim > 1:
        raise IndexError(f"index_select(): Index is supposed to be a vector (got an index of "
                         f"shape {tuple(index.shape)})")
    if str(index.dtype) not in ("int32", "int64"):
        raise RuntimeError(f"index_select(): Expected dtype int32 or int64 for index (got "
                           f"{index.dtype})")
    n = self.shape[axis] if self.ndim else 1
    if self.ndim == 0 and index.size is not None and index.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                           f"{index.size} value(s)")

    def error(xp, a, mask):
        bad = int(xp.reshape(a, (-1,))[xp.reshape(~mask, (-1,))][0])
        return IndexError(f"index_select(): index out of range in self (index {bad} for "
                          f"dimension {axis} with size {n})")
    index = _index_in_range(index, n, error)
    if index.ndim == 0:  # PyTorch: a 0-d index selects a length-1 slice
        index = _m.reshape(index, (1,))
    if self.ndim == 0:  # PyTorch: a 0-d input gives a 0-d result
        return _m.reshape(_m.take(_m.reshape(self, (1,)), index, axis=0), ())
    return _m.take(self, index, axis=axis)


def _index_tensor(fname, index) -> None:
    """PyTorch's TypeError for an ``index`` that is not a Tensor (a list)."""
    if not isinstance(index, Tensor):
        raise TypeError(f"{fname}(): argument 'index' must be Tensor, not "
                        f"{type(index).__name__}")


def _index_in_range(index, n, error):
    """``index`` once every entry lies in ``[0, n)``, else ``error(xp, a, mask)`` is raised:
    now on an eager backend, when computed on a lazy one (never reads values there).
    PyTorch's ``gather``/``index_select`` refuse negative indices (they do not wrap)."""
    if n is None or index.size == 0:
        return index
    b = index._backend
    arr = index._cell.array
    checked = b.check_values(arr, lambda xp, a: (a >= 0) & (a < n), error)
    return index if checked is arr else Tensor._from_array(checked, b)


def gather(self, dim: int, index: Array) -> Array:
    """``out[i][j] = self[i][index[i][j]]`` along ``dim`` (PyTorch ``Tensor.gather``;
    ``index`` may be smaller than ``self`` in the other dimensions, as PyTorch allows).

    Parameters
    ----------
    dim : int
        The dimension.
    index : Tensor
        An integer Tensor of indices.

    Returns
    -------
    Tensor
        Shape of ``index``: ``out[i][j] = self[index[i][j]][j]`` for ``dim=0``, etc.

    Raises
    ------
    IndexError
        ``dim`` out of range.
    RuntimeError
        An ``index`` not int32/int64, of another number of dimensions, larger than
        ``self`` in a dimension other than ``dim``, or with an entry outside ``[0, size)``
        (negative too), as PyTorch (on Dask when the result is computed).
    """
    dim = _dim("gather", dim, self.ndim)
    _index_tensor("gather", index)
    if str(index.dtype) not in ("int32", "int64"):
        raise RuntimeError(f"gather(): Expected dtype int32/int64 for index (got "
                           f"{index.dtype})")
    if builtins.max(index.ndim, 1) != builtins.max(self.ndim, 1):  # 0-d counts as 1-d
        raise RuntimeError("gather(): Index tensor must have the same number of dimensions as "
                           "input tensor")
    for i, (s, n) in enumerate(zip(index.shape, self.shape)):
        if i != dim and s is not None and n is not None and s > n:
            raise RuntimeError(
                f"gather(): Size does not match at dimension {i} expected index "
                f"{list(index.shape)} to be no larger than self {list(self.shape)} apart from "
                f"dimension {dim}")
    n = self.shape[dim] if self.ndim else 1

    def error(xp, a, mask):
        bad = int(xp.reshape(a, (-1,))[xp.reshape(~mask, (-1,))][0])
        return RuntimeError(f"gather(): index {bad} is out of bounds for dimension {dim} "
                            f"with size {n}")
    index = _index_in_range(index, n, error)
    if self.ndim == 0 or index.ndim == 0:  # PyTorch reads a 0-d Tensor as 1-d of size 1
        x1 = _m.reshape(self, (1,)) if self.ndim == 0 else self
        out = _m.take_along_axis(x1, _m.reshape(index, (1,)) if index.ndim == 0 else index,
                                 axis=0)
        return _m.reshape(out, tuple(index.shape))
    x = self
    if any(i != dim and s != n for i, (s, n) in enumerate(zip(index.shape, self.shape))):
        x = self[tuple(slice(None) if i == dim else slice(0, s)
                       for i, s in enumerate(index.shape))]
    return _m.take_along_axis(x, index, axis=dim)


def narrow(self, dim: int, start: int | Array, length: int) -> Array:
    """``length`` elements from ``start`` along ``dim`` (PyTorch ``Tensor.narrow``).

    Parameters
    ----------
    dim : int
        The dimension.
    start : int or Tensor
        The first index of the slice (an int or a 0-d int Tensor).
    length : int
        The length of the slice.

    Returns
    -------
    Tensor
        A view of ``length`` elements from ``start`` along ``dim``.
    """
    dim = _dim("narrow", dim, self.ndim)
    n = self.shape[dim]
    if start < 0:
        start += n
    if not 0 <= start <= n or length < 0 or start + length > n:
        raise RuntimeError(f"narrow(): start ({start}) + length ({length}) exceeds dimension "
                           f"size ({n}).")
    return self[(slice(None),) * dim + (slice(start, start + length),)]


def split(self, split_size_or_sections: int | Sequence[int], dim: int = 0) -> tuple[Array, ...]:
    """Pieces along ``dim``: of ``split_size`` each (the last smaller) or of the listed
    sizes (PyTorch ``Tensor.split``). Returns a tuple.

    Parameters
    ----------
    split_size_or_sections : int or sequence of int
        The size of each piece (the last may be smaller), or a list of sizes summing to the size
        of ``dim``.
    dim : int, default 0
        The dimension.

    Returns
    -------
    tuple of Tensor
        The pieces, views along ``dim``.
    """
    dim = _dim("split", dim, self.ndim)
    n = self.shape[dim]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step <= 0 and n:
            raise RuntimeError(f"split(): split_size must be positive, got {step}")
        sizes = [builtins.min(step, n - i) for i in range(0, n, step)] if n else [0]
    else:
        sizes = list(split_size_or_sections)
        if builtins.sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {dim}), but got "
                               f"split_sizes={sizes}")
    out, start = [], 0
    for s in sizes:
        out.append(self[(slice(None),) * dim + (slice(start, start + s),)])
        start += s
    return tuple(out)


def chunk(self, chunks: int, dim: int = 0) -> tuple[Array, ...]:
    """At most ``chunks`` pieces of ``ceil(n / chunks)`` along ``dim`` (PyTorch
    ``Tensor.chunk``).

    Parameters
    ----------
    chunks : int
        The number of pieces (fewer when the size does not divide, as PyTorch).
    dim : int, default 0
        The dimension.

    Returns
    -------
    tuple of Tensor
        The pieces, views along ``dim``.
    """
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0")
    n = self.shape[_dim("chunk", dim, self.ndim)]
    return split(self, builtins.max(-(-n // chunks), 1), dim)


def masked_select(self, mask: Array) -> Array:
    """The elements where ``mask`` (broadcast) is True, as a 1-D Tensor (PyTorch
    ``Tensor.masked_select``; a data-dependent shape on lazy backends).

    Parameters
    ----------
    mask : Tensor
        A bool Tensor, broadcast to this Tensor's shape.

    Returns
    -------
    Tensor
        1-D, the elements where ``mask`` is True (a data-dependent shape).
    """
    if mask.dtype is not _dtypes.bool:
        raise RuntimeError(f"masked_select: expected BoolTensor for mask, got {mask.dtype}")
    x, m = self, mask
    if tuple(m.shape) != tuple(x.shape):
        x, m = _m.broadcast_arrays(x, m)
    return x[m]


class _TopK(NamedTuple):
    """PyTorch's ``torch.return_types.topk``: ``(values, indices)``."""

    values: Array
    indices: Array


_TopK.__name__ = _TopK.__qualname__ = "topk"  # PyTorch's type name, shown by repr


def topk(self, k: int, dim: int = -1, largest: builtins.bool = True,
         sorted: builtins.bool = True) -> _TopK:
    """The ``k`` largest (or smallest) elements along ``dim`` and their indices, as
    PyTorch's ``Tensor.topk`` (a named tuple ``(values, indices)``; gradients flow to the
    selected elements).

    Parameters
    ----------
    k : int
        The number of elements to return.
    dim : int, default -1
        The dimension.
    largest : bool, default True
        Return the largest (True) or the smallest elements.
    sorted : bool, default True
        Return them in sorted order.

    Returns
    -------
    topk
        A named tuple ``(values, indices)``.
    """
    dim = _dim("topk", dim, self.ndim)
    if not 0 <= k <= (self.shape[dim] if self.ndim else 1):
        raise RuntimeError("selected index k out of range")
    idx = _s.argsort(self, axis=dim, descending=largest, stable=True)
    idx = idx[(slice(None),) * dim + (slice(0, k),)]
    return _TopK(_m.take_along_axis(self, idx, axis=dim), idx)


def logsumexp(self, dim: int | tuple[int, ...], keepdim: builtins.bool = False) -> Array:
    """``log(sum(exp(x)))`` over ``dim``, computed stably (PyTorch ``Tensor.logsumexp``).

    Parameters
    ----------
    dim : int or tuple[int, ...]
        The dimension(s) to reduce; None (``()`` for amax/amin) reduces all.
    keepdim : bool, default False
        Keep the reduced dimensions with size 1.

    Returns
    -------
    Tensor
        ``log(sum(exp(self)))`` along ``dim``, computed stably.
    """
    axis = tuple(dim) if isinstance(dim, (tuple, list)) else dim
    with no_grad():
        m = _r.max(self, axis=axis, keepdims=True)
        m = _s.where(_e.isfinite(m), m, _e.multiply(m, 0))
    out = _e.log(_r.sum(_e.exp(self - m), axis=axis, keepdims=True)) + m
    if not keepdim:
        out = _m.squeeze(out, axis=axis if isinstance(axis, tuple) else (axis,))
    return out


def rsqrt(self) -> Array:
    """``1 / sqrt(x)`` (PyTorch ``Tensor.rsqrt``).

    Returns
    -------
    Tensor
        ``1 / sqrt(self)``.
    """
    return _e.reciprocal(_e.sqrt(self))


def dot(self, other: Array) -> Array:
    """Inner product of two 1-D Tensors (PyTorch ``Tensor.dot``).

    Parameters
    ----------
    other : Tensor
        The other operand (a Tensor, broadcast, or a Python scalar).

    Returns
    -------
    Tensor
        0-d, the inner product of two 1-D Tensors.

    Raises
    ------
    RuntimeError
        An operand that is not 1-D, lengths or dtypes that differ (PyTorch's errors).
    """
    if self.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.ndim}D and {other.ndim}D "
                           f"tensors")
    n, m = self.shape[0], other.shape[0]
    if n is not None and m is not None and n != m:
        raise RuntimeError(
            f"dot: inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the "
            f"same number of elements, but got {n} and {m} elements respectively")
    if other.dtype is not self.dtype:
        raise RuntimeError(
            f"dot : expected both vectors to have same dtype, but found "
            f"{_torch_dtype(self.dtype)} and {_torch_dtype(other.dtype)}")
    return _la.matmul(self, other)


def mv(self, vec: Array) -> Array:
    """Matrix-vector product (PyTorch ``Tensor.mv``).

    Parameters
    ----------
    vec : Tensor
        A 1-D Tensor of length ``self.shape[1]``.

    Returns
    -------
    Tensor
        1-D, the matrix-vector product.

    Raises
    ------
    RuntimeError
        ``self`` not 2-D, ``vec`` not 1-D, sizes or dtypes that differ (PyTorch's errors).
    """
    if self.ndim != 2 or vec.ndim != 1:
        raise RuntimeError("vector + matrix @ vector expected, got "
                           f"{self.ndim}D and {vec.ndim}D")
    (r, c), (k,) = self.shape, vec.shape
    if c is not None and k is not None and c != k:
        raise RuntimeError(f"mv: size mismatch, got input ({r}), mat ({r}x{c}), vec ({k})")
    if vec.dtype is not self.dtype:
        raise RuntimeError(
            f"mv: expected the matrix and the vector to have the same dtype, but got "
            f"{_torch_dtype(self.dtype)} and {_torch_dtype(vec.dtype)}")
    return _la.matmul(self, vec)


def bmm(self, mat2: Array) -> Array:
    """Batched matrix product of 3-D Tensors (PyTorch ``Tensor.bmm``).

    Parameters
    ----------
    mat2 : Tensor
        A batch of matrices (b, m, p) for ``self`` of shape (b, n, m).

    Returns
    -------
    Tensor
        Shape (b, n, p), the batched matrix product.

    Raises
    ------
    RuntimeError
        An operand that is not 3-D, batch or inner sizes or dtypes that differ
        (PyTorch's errors).
    """
    if self.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor, got {self.ndim}D")
    if mat2.ndim != 3:
        raise RuntimeError(f"batch2 must be a 3D tensor, got {mat2.ndim}D")
    want, got = (self.shape[0], self.shape[2]), mat2.shape[:2]
    if None not in want and None not in got and tuple(want) != tuple(got):
        raise RuntimeError(
            f"bmm: Expected size for first two dimensions of batch2 tensor to be: "
            f"[{want[0]}, {want[1]}] but got: [{got[0]}, {got[1]}].")
    if mat2.dtype is not self.dtype:
        raise RuntimeError(f"bmm: expected scalar type {_torch_dtype(self.dtype)} but found "
                           f"{_torch_dtype(mat2.dtype)}")
    return _la.matmul(self, mat2)


def outer(self, vec2: Array) -> Array:
    """Outer product of two 1-D Tensors (PyTorch ``Tensor.outer``).

    Parameters
    ----------
    vec2 : Tensor
        The second 1-D Tensor.

    Returns
    -------
    Tensor
        Shape (n, m), the outer product.

    Raises
    ------
    RuntimeError
        An operand that is not 1-D (PyTorch's error type; raised by
        :func:`arrayflow.linalg.outer`).
    """
    return _la.outer(self, vec2)


# --- PyTorch's signatures and return types for methods the standard spells otherwise ----------

class _MaxT(NamedTuple):
    """PyTorch's ``torch.return_types.max``: ``(values, indices)``."""

    values: Array
    indices: Array


_MaxT.__name__ = _MaxT.__qualname__ = "max"  # PyTorch's type name, shown by repr


class _MinT(NamedTuple):
    """PyTorch's ``torch.return_types.min``: ``(values, indices)``."""

    values: Array
    indices: Array


_MinT.__name__ = _MinT.__qualname__ = "min"  # PyTorch's type name, shown by repr


class _SortT(NamedTuple):
    """PyTorch's ``torch.return_types.sort``: ``(values, indices)``."""

    values: Array
    indices: Array


_SortT.__name__ = _SortT.__qualname__ = "sort"  # PyTorch's type name, shown by repr


def _dims_arg(dims):
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        return tuple(dims[0])
    return tuple(dims)


def _nonempty_reduction(fname, self, dims) -> None:
    """PyTorch's errors for a max/min reduction with no element to pick: over every
    dimension (``dims`` None) of an empty Tensor (RuntimeError), or over a dimension of
    size 0 (IndexError). The backends raised ValueError. Unknown (lazy) sizes pass."""
    if dims is None:
        if self.size == 0:
            raise RuntimeError(
                f"{fname}(): Expected reduction dim to be specified for input.numel() == 0. "
                f"Specify the reduction dim with the 'dim' argument.")
        return
    for d in (dims if isinstance(dims, (tuple, list)) else (dims,)):
        if isinstance(d, int) and -self.ndim <= d < self.ndim and self.shape[d] == 0:
            raise IndexError(f"{fname}(): Expected reduction dim {d} to have non-zero size.")


def _extreme(self, fname, dim, keepdim, axis, keepdims, arg, out_t, elementwise, reduce):
    from .tensor import _axis, _keep

    if isinstance(dim, Tensor):  # t.max(other): element-wise
        if keepdim is not None or axis is not None:
            raise TypeError(f"{fname}(): an element-wise {fname} takes no dim/keepdim")
        return elementwise(self, dim)
    ax = _axis(fname, dim, axis)
    kd = builtins.bool(_keep(fname, keepdim, keepdims))
    if ax is None:
        _nonempty_reduction(fname, self, None)
        return reduce(self)  # t.max(): the value only, as PyTorch
    if isinstance(ax, (tuple, list)):
        raise TypeError(f"{fname}(): argument 'dim' must be int, not {type(ax).__name__} "
                        f"(use amax/amin to reduce several dimensions)")
    ax = _dim(fname, ax, self.ndim)
    _nonempty_reduction(fname, self, ax)  # PyTorch names the normalized dim here
    if self.ndim == 0:
        return out_t(self, _c.zeros_like(self, dtype=_dtypes.int64))
    idx = arg(self, axis=ax, keepdims=True)
    values = _m.take_along_axis(self, idx, axis=ax)  # the gradient goes to that element
    if not kd:
        values = _m.squeeze(values, axis=ax)
        idx = _m.squeeze(idx, axis=ax)
    return out_t(values, idx)


def max(self, dim: int | Array | None = None, keepdim: builtins.bool | None = None, *,
        axis: Axis = None, keepdims: builtins.bool | None = None) -> Array | _MaxT:
    """PyTorch's ``Tensor.max``: ``t.max()`` the largest value; ``t.max(dim, keepdim)`` a
    named tuple ``(values, indices)`` (the gradient goes to the selected elements);
    ``t.max(other)`` the element-wise maximum. (The namespace function
    :func:`arrayflow.max` keeps the standard's values-only reduction.)

    Parameters
    ----------
    dim : int or Tensor, optional
        The dimension to reduce, or a Tensor for the element-wise form; None reduces all.
    keepdim : bool, optional
        Keep the reduced dimension with size 1.
    axis : int or tuple of int, default None
        The array API's name for ``dim``.
    keepdims : bool, optional
        The array API's name for ``keepdim``.

    Returns
    -------
    Tensor or max
        The largest value (no ``dim``), a named tuple ``(values, indices)`` (with ``dim``), or
        the element-wise maximum (with a Tensor).
    """
    return _extreme(self, "max", dim, keepdim, axis, keepdims, _s.argmax, _MaxT, _e.maximum,
                    _r.max)


def min(self, dim: int | Array | None = None, keepdim: builtins.bool | None = None, *,
        axis: Axis = None, keepdims: builtins.bool | None = None) -> Array | _MinT:
    """PyTorch's ``Tensor.min`` (see :meth:`max`).

    Parameters
    ----------
    dim : int or Tensor, optional
        The dimension to reduce, or a Tensor for the element-wise form; None reduces all.
    keepdim : bool, optional
        Keep the reduced dimension with size 1.
    axis : int or tuple of int, default None
        The array API's name for ``dim``.
    keepdims : bool, optional
        The array API's name for ``keepdim``.

    Returns
    -------
    Tensor or min
        The smallest value (no ``dim``), a named tuple ``(values, indices)`` (with ``dim``), or
        the element-wise minimum (with a Tensor).
    """
    return _extreme(self, "min", dim, keepdim, axis, keepdims, _s.argmin, _MinT, _e.minimum,
                    _r.min)


def amax(self, dim: int | tuple[int, ...] = (), keepdim: builtins.bool = False) -> Array:
    """The maximum over ``dim`` (an int or a tuple; ``()`` all dimensions), values only
    (PyTorch ``Tensor.amax``).

    Parameters
    ----------
    dim : int or tuple[int, ...], default ()
        The dimension(s) to reduce; None (``()`` for amax/amin) reduces all.
    keepdim : bool, default False
        Keep the reduced dimensions with size 1.

    Returns
    -------
    Tensor
        The maxima over ``dim`` (all dimensions for ``()``).

    Raises
    ------
    RuntimeError
        All dimensions of an empty Tensor (PyTorch's error).
    IndexError
        A reduced dimension of size 0 (PyTorch's error).
    """
    _nonempty_reduction("amax", self, None if dim == () else dim)
    return _r.max(self, axis=tuple(dim) if isinstance(dim, (tuple, list)) and dim else (
        None if dim == () else dim), keepdims=keepdim)


def amin(self, dim: int | tuple[int, ...] = (), keepdim: builtins.bool = False) -> Array:
    """The minimum over ``dim`` (PyTorch ``Tensor.amin``; see :meth:`amax`).

    Parameters
    ----------
    dim : int or tuple[int, ...], default ()
        The dimension(s) to reduce; None (``()`` for amax/amin) reduces all.
    keepdim : bool, default False
        Keep the reduced dimensions with size 1.

    Returns
    -------
    Tensor
        The minima over ``dim`` (all dimensions for ``()``).

    Raises
    ------
    RuntimeError
        All dimensions of an empty Tensor (PyTorch's error).
    IndexError
        A reduced dimension of size 0 (PyTorch's error).
    """
    _nonempty_reduction("amin", self, None if dim == () else dim)
    return _r.min(self, axis=tuple(dim) if isinstance(dim, (tuple, list)) and dim else (
        None if dim == () else dim), keepdims=keepdim)


def sort(self, dim: int = -1, descending: builtins.bool = False, *,
         stable: builtins.bool = False) -> _SortT:
    """Sorted values and their indices along ``dim``, a named tuple ``(values, indices)``
    (PyTorch ``Tensor.sort``; ties keep their order).

    Parameters
    ----------
    dim : int, default -1
        The dimension.
    descending : bool, default False
        Sort in descending order.
    stable : bool, default False
        Keep the order of equal elements.

    Returns
    -------
    sort
        A named tuple ``(values, indices)``.
    """
    if self.ndim == 0:
        return _SortT(self, _c.zeros_like(self, dtype=_dtypes.int64))
    dim = _dim("sort", dim, self.ndim)
    idx = _s.argsort(self, axis=dim, descending=descending, stable=True)
    return _SortT(_m.take_along_axis(self, idx, axis=dim), idx)


def argsort(self, dim: int = -1, descending: builtins.bool = False, *,
            stable: builtins.bool = False) -> Array:
    """Indices that sort along ``dim`` (PyTorch ``Tensor.argsort``; ties keep their order).

    Parameters
    ----------
    dim : int, default -1
        The dimension.
    descending : bool, default False
        Sort in descending order.
    stable : bool, default False
        Keep the order of equal elements.

    Returns
    -------
    Tensor
        int64 indices that sort ``self`` along ``dim``.
    """
    return _s.argsort(self, axis=_dim("argsort", dim, self.ndim), descending=descending,
                      stable=True)


def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Array:
    """Dimensions ``start_dim``..``end_dim`` merged into one (PyTorch ``Tensor.flatten``).

    Parameters
    ----------
    start_dim : int, default 0
        The first dimension to flatten.
    end_dim : int, default -1
        The last dimension to flatten.

    Returns
    -------
    Tensor
        Dimensions ``start_dim`` to ``end_dim`` merged into one.
    """
    if self.ndim == 0:
        return _m.reshape(self, (1,))
    s, e = _dim("flatten", start_dim, self.ndim), _dim("flatten", end_dim, self.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shape = tuple(self.shape)
    return _m.reshape(self, shape[:s] + (-1,) + shape[e + 1:])


def roll(self, shifts: int | tuple[int, ...], dims: int | tuple[int, ...] | None = None) -> Array:
    """Roll elements by ``shifts`` along ``dims`` (flattened when None; PyTorch
    ``Tensor.roll``).

    Parameters
    ----------
    shifts : int or tuple[int, ...]
        The shift(s), one per dimension in ``dims``.
    dims : int or tuple[int, ...], optional
        The dimension(s); None rolls the flattened Tensor.

    Returns
    -------
    Tensor
        The rolled Tensor.
    """
    return _m.roll(self, shifts, axis=dims)


def flip(self, *dims: int | Sequence[int]) -> Array:
    """Reverse the order along ``dims`` (PyTorch ``Tensor.flip(dims)``).

    Parameters
    ----------
    *dims : int or sequence of int
        The dimension(s) to reverse, as separate ints or one sequence.

    Returns
    -------
    Tensor
        The Tensor reversed along ``dims``.
    """
    return _m.flip(self, axis=_dims_arg(dims))


def tril(self, diagonal: int = 0) -> Array:
    """Lower triangle (PyTorch ``Tensor.tril``).

    Parameters
    ----------
    diagonal : int, default 0
        The diagonal: 0 the main one, positive above, negative below.

    Returns
    -------
    Tensor
        The lower triangle (the rest zero).
    """
    return _c.tril(self, k=diagonal)


def triu(self, diagonal: int = 0) -> Array:
    """Upper triangle (PyTorch ``Tensor.triu``).

    Parameters
    ----------
    diagonal : int, default 0
        The diagonal: 0 the main one, positive above, negative below.

    Returns
    -------
    Tensor
        The upper triangle (the rest zero).
    """
    return _c.triu(self, k=diagonal)


def add(self, other: Array | Scalar, *, alpha: Scalar = 1) -> Array:
    """``self + alpha * other`` (PyTorch ``Tensor.add``).

    Parameters
    ----------
    other : Tensor or Scalar
        The other operand (a Tensor, broadcast, or a Python scalar).
    alpha : Scalar, default 1
        The multiplier of ``other``.

    Returns
    -------
    Tensor
        ``self + alpha * other``, with PyTorch's type promotion.
    """
    return _e.add(self, other) if alpha == 1 else _e.add(self, other * alpha)


def sub(self, other: Array | Scalar, *, alpha: Scalar = 1) -> Array:
    """``self - alpha * other`` (PyTorch ``Tensor.sub``).

    Parameters
    ----------
    other : Tensor or Scalar
        The other operand (a Tensor, broadcast, or a Python scalar).
    alpha : Scalar, default 1
        The multiplier of ``other``.

    Returns
    -------
    Tensor
        ``self - alpha * other``, with PyTorch's type promotion.
    """
    return _e.subtract(self, other) if alpha == 1 else _e.subtract(self, other * alpha)


def take(self, index: Array) -> Array:
    """Elements of the flattened Tensor at ``index``, in ``index``'s shape (PyTorch
    ``Tensor.take``).

    Parameters
    ----------
    index : Tensor
        An integer Tensor of indices.

    Returns
    -------
    Tensor
        Shape of ``index``: the elements of the flattened Tensor at ``index``.
    """
    flat = _m.reshape(self, (-1,))
    out = _m.take(flat, _m.reshape(index, (-1,)), axis=0)
    return _m.reshape(out, tuple(index.shape))


def nonzero(self, *, as_tuple: builtins.bool = False) -> Array | tuple[Array, ...]:
    """Indices of the non-zero elements: an ``(n, ndim)`` int64 Tensor, or with
    ``as_tuple=True`` one 1-D Tensor per dimension (PyTorch ``Tensor.nonzero``; a
    data-dependent shape on lazy backends).

    Parameters
    ----------
    as_tuple : bool, default False
        Return one index Tensor per dimension instead of one (n, ndim) Tensor.

    Returns
    -------
    Tensor or tuple of Tensor
        int64 indices of the nonzero elements (a data-dependent shape).
    """
    idx = _s.nonzero(self)
    if as_tuple:
        return idx
    return _m.stack(list(idx), axis=1)


def _compare(fn):
    def method(self, other: Array | Scalar) -> Array:
        return fn(self, other)

    method.__doc__ = (f"Element-wise ``{fn.__name__}`` (PyTorch's comparison method).\n\n"
                      f"Parameters\n----------\nother : Tensor or scalar\n    The right "
                      f"operand, broadcast against this Tensor.\n\nReturns\n-------\nTensor\n"
                      f"    bool, the broadcast shape.")
    return method


def cumsum(self, dim: int, *, dtype: DType | None = None) -> Array:
    """Cumulative sum along ``dim`` (PyTorch ``Tensor.cumsum``).

    Parameters
    ----------
    dim : int
        The dimension.
    dtype : DType, optional
        The dtype of the result and the accumulation; None follows the input.

    Returns
    -------
    Tensor
        Same shape, the cumulative sums along ``dim``.
    """
    return _r.cumulative_sum(self, axis=dim, dtype=dtype)


def cumprod(self, dim: int, *, dtype: DType | None = None) -> Array:
    """Cumulative product along ``dim`` (PyTorch ``Tensor.cumprod``).

    Parameters
    ----------
    dim : int
        The dimension.
    dtype : DType, optional
        The dtype of the result and the accumulation; None follows the input.

    Returns
    -------
    Tensor
        Same shape, the cumulative products along ``dim``.
    """
    return _r.cumulative_prod(self, axis=dim, dtype=dtype)


def unbind(self, dim: int = 0) -> tuple[Array, ...]:
    """The slices along ``dim`` as a tuple (PyTorch ``Tensor.unbind``).

    Parameters
    ----------
    dim : int, default 0
        The dimension.

    Returns
    -------
    tuple of Tensor
        The slices along ``dim``, each without that dimension.
    """
    return _m.unstack(self, axis=dim)


def repeat_interleave(self, repeats: int | Array, dim: int | None = None) -> Array:
    """Repeat each element ``repeats`` times along ``dim`` (PyTorch
    ``Tensor.repeat_interleave``; the standard's ``repeat``).

    Parameters
    ----------
    repeats : int or Tensor
        The number of repetitions of each element (an int or a 1-D int Tensor).
    dim : int, optional
        The dimension; None flattens first.

    Returns
    -------
    Tensor
        The repeated elements (flattened first when ``dim`` is None).
    """
    return _m.repeat(self, repeats, axis=dim)


def erf(self) -> Array:
    """The error function (PyTorch ``Tensor.erf``).

    Returns
    -------
    Tensor
        Same shape and dtype.
    """
    return _erf(self)


def bitwise_not(self) -> Array:
    """Bitwise NOT of an integer or boolean Tensor (PyTorch ``Tensor.bitwise_not``; the
    standard's ``bitwise_invert``).

    Returns
    -------
    Tensor
        Same shape and dtype.
    """
    return _e.bitwise_invert(self)


def _correction(fname, unbiased, correction):
    if unbiased is not None and correction is not None:
        raise TypeError(f"{fname}(): pass 'unbiased' or 'correction', not both")
    if correction is not None:
        return correction
    if unbiased is None:
        return 1  # PyTorch's default (Bessel's correction)
    if not isinstance(unbiased, builtins.bool):
        raise TypeError(f"{fname}(): argument 'unbiased' must be bool, not "
                        f"{type(unbiased).__name__}")
    return 1 if unbiased else 0


def _std_var(self, fname, dim, unbiased, keepdim, correction, axis, keepdims):
    from .tensor import _axis, _keep

    if isinstance(dim, builtins.bool):  # std(unbiased): PyTorch's overload
        if unbiased is not None:
            raise TypeError(f"{fname}(): 'unbiased' given twice")
        dim, unbiased = None, dim
    corr = _correction(fname, unbiased, correction)
    fn = _r.std if fname == "std" else _r.var
    return fn(self, axis=_axis(fname, dim, axis), correction=corr,
              keepdims=_keep(fname, keepdim, keepdims))


def std(self, dim: Axis | builtins.bool = None, unbiased: builtins.bool | None = None,
        keepdim: builtins.bool | None = None, *, correction: int | float | None = None,
        axis: Axis = None, keepdims: builtins.bool | None = None) -> Array:
    """Standard deviation over ``dim``, with PyTorch's METHOD defaults.

    As ``torch.Tensor.std``: Bessel's correction by default (``correction=1``);
    ``t.std(dim, unbiased=False)``, ``t.std(False)``, ``t.std(dim, True, keepdim)`` and
    ``correction=`` as PyTorch. The namespace function :func:`arrayflow.std` keeps the
    array API standard's default ``correction=0`` (documented in
    ``docs/pytorch-differences.md``).

    Parameters
    ----------
    dim : int or tuple of int or bool, default None
        The dimension(s) to reduce; None reduces all (a bool here is PyTorch's ``unbiased``
        overload).
    unbiased : bool, optional
        PyTorch's older flag: True means ``correction=1``, False ``correction=0``; not together
        with ``correction``.
    keepdim : bool, optional
        Keep the reduced dimensions with size 1.
    correction : int or float, optional
        Degrees of freedom subtracted from the count (PyTorch's default for the method: 1).
    axis : int or tuple of int, default None
        The array API's name for ``dim``.
    keepdims : bool, optional
        The array API's name for ``keepdim``.

    Returns
    -------
    Tensor
        The standard deviations; the reduced dimensions removed unless kept.

    Raises
    ------
    TypeError
        Both ``unbiased`` and ``correction``, or both ``dim`` and ``axis``.
    """
    return _std_var(self, "std", dim, unbiased, keepdim, correction, axis, keepdims)


def var(self, dim: Axis | builtins.bool = None, unbiased: builtins.bool | None = None,
        keepdim: builtins.bool | None = None, *, correction: int | float | None = None,
        axis: Axis = None, keepdims: builtins.bool | None = None) -> Array:
    """Variance over ``dim``, with PyTorch's METHOD defaults (see :meth:`std`).

    Parameters
    ----------
    dim : int or tuple of int or bool, default None
        The dimension(s) to reduce; None reduces all (a bool here is PyTorch's ``unbiased``
        overload).
    unbiased : bool, optional
        PyTorch's older flag: True means ``correction=1``, False ``correction=0``; not together
        with ``correction``.
    keepdim : bool, optional
        Keep the reduced dimensions with size 1.
    correction : int or float, optional
        Degrees of freedom subtracted from the count (PyTorch's default for the method: 1).
    axis : int or tuple of int, default None
        The array API's name for ``dim``.
    keepdims : bool, optional
        The array API's name for ``keepdim``.

    Returns
    -------
    Tensor
        The variances; the reduced dimensions removed unless kept.
    """
    return _std_var(self, "var", dim, unbiased, keepdim, correction, axis, keepdims)


def __format__(self, spec: str) -> str:
    """``format(t, ".4f")``: a 0-d Tensor formats its Python value, as PyTorch; an empty
    spec gives ``str(t)``.

    Raises
    ------
    TypeError
        A non-empty spec on a Tensor that is not 0-d (PyTorch's error).
    """
    if self.ndim == 0:
        return format(self.item(), spec)
    if spec:
        raise TypeError("unsupported format string passed to Tensor.__format__")
    return str(self)


_METHODS = {
    "add_": add_, "sub_": sub_, "mul_": mul_, "div_": div_, "div": div, "pow_": pow_,
    "clamp": clamp, "clamp_": clamp_, "clamp_min": clamp_min, "clamp_max": clamp_max,
    "clamp_min_": clamp_min_, "clamp_max_": clamp_max_, "copy_": copy_,
    "masked_fill": masked_fill, "masked_fill_": masked_fill_, "fill_diagonal_": fill_diagonal_,
    "sigmoid": sigmoid, "relu": relu, "softmax": softmax, "log_softmax": log_softmax,
    "isclose": isclose, "allclose": allclose, "norm": norm, "movedim": movedim,
    "moveaxis": movedim, "std": std, "var": var,
    "addcmul_": addcmul_, "addcdiv_": addcdiv_, "lerp_": lerp_, "view_as": view_as,
    "addcmul": addcmul, "addcdiv": addcdiv, "lerp": lerp,
    "type_as": type_as, "contiguous": contiguous, "is_contiguous": is_contiguous,
    "is_floating_point": is_floating_point, "is_complex": is_complex, "nelement": nelement,
    "element_size": element_size, "int": _caster("int32"), "bool": _caster("bool"),
    "short": _caster("int16"), "byte": _caster("uint8"), "char": _caster("int8"),
    "repeat": repeat, "index_select": index_select, "gather": gather, "narrow": narrow,
    "split": split, "chunk": chunk, "masked_select": masked_select, "topk": topk,
    "logsumexp": logsumexp, "rsqrt": rsqrt, "dot": dot, "mv": mv, "bmm": bmm, "outer": outer,
    "erf": erf, "cumsum": cumsum, "cumprod": cumprod, "unbind": unbind,
    "repeat_interleave": repeat_interleave, "max": max, "min": min, "amax": amax,
    "amin": amin, "sort": sort, "argsort": argsort, "flatten": flatten, "roll": roll,
    "flip": flip, "tril": tril, "triu": triu, "add": add, "sub": sub, "take": take,
    "nonzero": nonzero, "bitwise_not": bitwise_not,
    **{n: _compare(f) for n, f in (
        ("eq", _e.equal), ("ne", _e.not_equal), ("lt", _e.less), ("le", _e.less_equal),
        ("gt", _e.greater), ("ge", _e.greater_equal))},
}


def install(cls) -> None:
    """Set the methods on the Tensor class ``cls`` (overridable, as every method)."""
    global Tensor
    Tensor = cls
    methods = dict(_METHODS)
    methods.update({n: _unary_inplace(n, f) for n, f in _UNARY_INPLACE.items()})
    for name, fn in methods.items():
        fn.__qualname__ = f"Tensor.{name}"
        setattr(cls, name, overridable_method(fn))
    cls.clip = cls.clamp
    cls.clip_ = cls.clamp_
    cls.__format__ = __format__
