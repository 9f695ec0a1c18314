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

from . import _dtypes
from .ops import aliases as _al
from .ops import comparison as _cmp
from .ops import dtypes as _dt
from .ops import elementwise as _e
from .ops import manipulation as _m
from .ops import searching as _s
from .ops._registry import overridable_method

__all__ = ["install"]

Tensor = None  # set by install()


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

def add_(self, other, *, alpha=1):
    """``self += alpha * other`` in place (PyTorch ``Tensor.add_``).

    Raises
    ------
    RuntimeError
        On a leaf that requires grad outside ``no_grad`` (PyTorch's error).
    TypeError
        If the result's dtype is not this Tensor's (an int Tensor plus a float).
    """
    if alpha == 1:
        return self._inplace(_e.add, other, "add_")
    return self._inplace(lambda s, o: _e.add(s, o * alpha), other, "add_")


def sub_(self, other, *, alpha=1):
    """``self -= alpha * other`` in place (PyTorch ``Tensor.sub_``); errors as :meth:`add_`."""
    if alpha == 1:
        return self._inplace(_e.subtract, other, "sub_")
    return self._inplace(lambda s, o: _e.subtract(s, o * alpha), other, "sub_")


def mul_(self, other):
    """``self *= other`` in place (PyTorch ``Tensor.mul_``); errors as :meth:`add_`."""
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


def div(self, other, *, rounding_mode=None):
    """``self / other`` (PyTorch ``Tensor.div``); ``rounding_mode`` ``"trunc"`` rounds
    towards zero, ``"floor"`` down (zero gradient, as PyTorch).

    Raises
    ------
    RuntimeError
        An unknown ``rounding_mode`` (PyTorch's error).
    """
    return _div(self, other, rounding_mode, "div")


def div_(self, other, *, rounding_mode=None):
    """``self /= other`` in place (PyTorch ``Tensor.div_``), ``rounding_mode`` as
    :meth:`div`; errors as :meth:`add_` (true division of an int Tensor raises)."""
    return _inplace(self, lambda s, o: _div(s, o, rounding_mode, "div_"), other, "div_")


def pow_(self, exponent):
    """``self **= exponent`` in place (PyTorch ``Tensor.pow_``); errors as :meth:`add_`."""
    return self._inplace(_e.pow, exponent, "pow_")


# --- clamp ----------------------------------------------------------------------------------

def _clamp_check(fname, min, max):
    if min is None and max is None:
        raise RuntimeError(f"{fname}: At least one of 'min' or 'max' must not be None")


def clamp(self, min=None, max=None):
    """Clamp to ``[min, max]`` (PyTorch ``Tensor.clamp``; also ``clip``).

    ``min``/``max`` may be Python scalars or Tensors (broadcast; both differentiable);
    mixed kinds promote as PyTorch (an int Tensor clamped to 1.5 is float).

    Raises
    ------
    RuntimeError
        If both bounds are None (PyTorch's error).
    """
    _clamp_check("clamp", min, max)
    return _e.clip(self, min, max)


def clamp_(self, min=None, max=None):
    """:meth:`clamp` in place (PyTorch ``Tensor.clamp_``); errors as :meth:`add_`."""
    _clamp_check("clamp_", min, max)
    return self._inplace(lambda s, _o: _e.clip(s, min, max), _grad_other(min, max), "clamp_")


def clamp_min(self, min):
    """``max(self, min)`` element-wise (PyTorch ``Tensor.clamp_min``)."""
    return _e.clip(self, min, None)


def clamp_max(self, max):
    """``min(self, max)`` element-wise (PyTorch ``Tensor.clamp_max``)."""
    return _e.clip(self, None, max)


def clamp_min_(self, min):
    """:meth:`clamp_min` in place (PyTorch ``Tensor.clamp_min_``)."""
    return self._inplace(lambda s, o: _e.clip(s, o, None), min, "clamp_min_")


def clamp_max_(self, max):
    """:meth:`clamp_max` in place (PyTorch ``Tensor.clamp_max_``)."""
    return self._inplace(lambda s, o: _e.clip(s, None, o), max, "clamp_max_")


# --- copy, masked fill, diagonal --------------------------------------------------------------

def copy_(self, src, non_blocking=False):
    """Copy ``src``'s values into this Tensor in place (PyTorch ``Tensor.copy_``).

    ``src`` is broadcast to this Tensor's shape, cast to its dtype and moved to its
    backend, as PyTorch does. Differentiable: the gradient flows to ``src`` (summed
    over broadcast dimensions), the overwritten values get none.

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
    if records:
        from .autograd.graph import rename

        result = _m.index_put(self, Ellipsis, src)
        rename(result.grad_fn, "CopyBackwards")  # PyTorch's name for copy_'s node
        self._commit(result._cell.array, result)
    else:
        self._commit(src._cell.array)
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


def masked_fill(self, mask, value):
    """``value`` where ``mask`` is True, else this Tensor's values (PyTorch
    ``Tensor.masked_fill``); ``mask`` broadcasts, ``value`` is a number or a 0-d Tensor
    (differentiable) cast to this Tensor's dtype.

    Raises
    ------
    RuntimeError
        A mask that is not bool, or a value Tensor that is not 0-d (PyTorch's errors).
    """
    return _masked_fill(self, mask, value, "masked_fill")


def masked_fill_(self, mask, value):
    """:meth:`masked_fill` in place (PyTorch ``Tensor.masked_fill_``)."""
    return self._inplace(lambda s, v: _masked_fill(s, mask, v, "masked_fill_"), value,
                         "masked_fill_")


def fill_diagonal_(self, fill_value, wrap=False):
    """Fill the main diagonal in place (PyTorch ``Tensor.fill_diagonal_``).

    For a 2-D Tensor the elements ``[i, i]``; with ``wrap=True`` a tall matrix's diagonal
    restarts after ``N`` columns (one row skipped), as NumPy's ``fill_diagonal``. An
    n-D Tensor must have all dimensions equal (elements ``[i, i, ..., i]``).

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

def _nn(name):
    def fn(x):
        from .nn import functional as F

        return getattr(F, name)(x)
    return fn


_UNARY_INPLACE = {
    "neg_": _al.neg, "negative_": _e.negative, "abs_": _e.abs, "exp_": _e.exp,
    "expm1_": _e.expm1, "log_": _e.log, "log1p_": _e.log1p, "log2_": _e.log2,
    "log10_": _e.log10, "sqrt_": _e.sqrt, "square_": _e.square, "reciprocal_": _e.reciprocal,
    "sin_": _e.sin, "cos_": _e.cos, "tan_": _e.tan, "asin_": _e.asin, "acos_": _e.acos,
    "atan_": _e.atan, "sinh_": _e.sinh, "cosh_": _e.cosh, "tanh_": _e.tanh,
    "floor_": _e.floor, "ceil_": _e.ceil, "trunc_": _e.trunc, "round_": _e.round,
    "sign_": _e.sign, "sigmoid_": _nn("sigmoid"), "relu_": _nn("relu"),
}


def _unary_inplace(name, fn):
    def method(self):
        return _inplace(self, lambda s, _o: fn(s), None, name)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = (f"In-place ``{name[:-1]}`` (PyTorch ``Tensor.{name}``); a leaf that "
                      f"requires grad raises outside ``no_grad``.")
    return method


# --- out-of-place PyTorch methods ----------------------------------------------------------------

def sigmoid(self):
    """``1 / (1 + exp(-x))`` (PyTorch ``Tensor.sigmoid``)."""
    from .nn import functional as F

    return F.sigmoid(self)


def relu(self):
    """``max(x, 0)`` (PyTorch ``Tensor.relu``)."""
    from .nn import functional as F

    return F.relu(self)


def softmax(self, dim, dtype=None):
    """Softmax over ``dim`` (PyTorch ``Tensor.softmax``)."""
    from .nn import functional as F

    return F.softmax(self, dim, dtype=dtype)


def log_softmax(self, dim, dtype=None):
    """Log-softmax over ``dim`` (PyTorch ``Tensor.log_softmax``)."""
    from .nn import functional as F

    return F.log_softmax(self, dim, dtype=dtype)


def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Element-wise closeness (see :func:`arrayflow.isclose`, PyTorch's semantics)."""
    return _cmp.isclose(self, other, rtol=rtol, atol=atol, equal_nan=equal_nan)


def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether all elements are close: a Python bool (see :func:`arrayflow.allclose`)."""
    return _cmp.allclose(self, other, rtol=rtol, atol=atol, equal_nan=equal_nan)


def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
    """The norm (PyTorch ``Tensor.norm``; see :func:`arrayflow.norm`)."""
    from .ops.norms import norm as _norm

    return _norm(self, p, dim, keepdim, dtype)


def movedim(self, source, destination):
    """Move dimensions ``source`` to ``destination`` (PyTorch ``Tensor.movedim``; the
    standard's ``moveaxis``)."""
    return _m.moveaxis(self, source, destination)


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
    from .ops import reductions as _r
    from .tensor import _axis, _keep

    if isinstance(dim, builtins.bool):  # std(unbiased): PyTorch's overload
        if unbiased is not None:
            raise TypeError(f"{fname}(): 'unbiased' given twice")
        dim, unbiased = None, dim
    corr = _correction(fname, unbiased, correction)
    fn = _r.std if fname == "std" else _r.var
    return fn(self, axis=_axis(fname, dim, axis), correction=corr,
              keepdims=_keep(fname, keepdim, keepdims))


def std(self, dim=None, unbiased=None, keepdim=None, *, correction=None, axis=None,
        keepdims=None):
    """Standard deviation over ``dim``, with PyTorch's METHOD defaults.

    As ``torch.Tensor.std``: Bessel's correction by default (``correction=1``);
    ``t.std(dim, unbiased=False)``, ``t.std(False)``, ``t.std(dim, True, keepdim)`` and
    ``correction=`` as PyTorch. The namespace function :func:`arrayflow.std` keeps the
    array API standard's default ``correction=0`` (documented in
    ``docs/pytorch-differences.md``).

    Raises
    ------
    TypeError
        Both ``unbiased`` and ``correction``, or both ``dim`` and ``axis``.
    """
    return _std_var(self, "std", dim, unbiased, keepdim, correction, axis, keepdims)


def var(self, dim=None, unbiased=None, keepdim=None, *, correction=None, axis=None,
        keepdims=None):
    """Variance over ``dim``, with PyTorch's METHOD defaults (see :meth:`std`)."""
    return _std_var(self, "var", dim, unbiased, keepdim, correction, axis, keepdims)


def __format__(self, spec):
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
