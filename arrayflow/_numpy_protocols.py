"""NumPy's dispatch protocols on Tensors: ``__array_ufunc__`` (NEP 13) and
``__array_function__`` (NEP 18), MyGrad's approach.

``np.exp(t)``, ``np.add(t, 1)``, ``ndarray + t``, ``np.sum(t)``, ``np.concatenate([t, u])``
run the arrayflow counterpart and return Tensors, recorded by autograd. NumPy arrays among
the arguments become Tensors of the Tensor's backend (Dask stays lazy). A NumPy function
or ufunc with no arrayflow counterpart (the rule: never drop a graph silently):

- on a Tensor that is differentiated (``requires_grad``, or a forward-mode tangent at an
  active level) raises ``TypeError`` naming the function and, where one exists, the
  arrayflow spelling, whatever the graph-break policy (running NumPy would drop the
  graph; PyTorch raises too, from ``Tensor.numpy()``);
- on Tensors that are not differentiated runs NumPy on their values and returns NumPy's
  result (an ``ndarray`` or NumPy scalar, never a Tensor: nothing claims a gradient),
  as PyTorch does for a tensor that does not require grad (``np.median(t)``).

NumPy is never imported at module level (the core imports no array library): NumPy's own
ufuncs are those that are attributes of the loaded ``numpy`` module under their
``__name__`` (another library's ufunc, SciPy's ``erf``, maps to ``arrayflow.special``), and
functions are recognised by ``__name__`` and ``__module__`` (``"linalg.norm"``).
"""

from __future__ import annotations

import builtins
import sys
from typing import Any

from . import _dtypes, fft, linalg
from . import special as special_ns
from .ops import (
    aliases,
    comparison,
    creation,
    elementwise,
    manipulation,
    reductions,
    searching,
)
from .ops import dtypes as _dt
from .ops import linalg as _ops_linalg
from .tensor import Tensor

__all__ = ["array_function", "array_ufunc"]

_MODULES = (elementwise, comparison, _ops_linalg, manipulation, reductions, searching,
            creation, aliases)


def _af(name: str) -> Any:
    """The arrayflow function ``name`` (``"linalg.inv"`` for a submodule), or None."""
    if name.startswith("linalg."):
        return getattr(linalg, name[7:], None)
    if name.startswith("fft."):
        return getattr(fft, name[4:], None)
    for m in _MODULES:
        f = getattr(m, name, None)
        if f is not None:
            return f
    return None


# --- ufuncs (NEP 13) ------------------------------------------------------------------------

# NumPy ufunc name -> arrayflow function name (where they differ, or to state they agree).
_UFUNCS = {
    "absolute": "abs", "fabs": "abs", "negative": "negative", "positive": "positive",
    "exp": "exp", "expm1": "expm1", "log": "log", "log2": "log2", "log10": "log10",
    "log1p": "log1p", "sqrt": "sqrt", "square": "square", "sign": "sign", "reciprocal":
    "reciprocal", "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "asin",
    "arccos": "acos", "arctan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
    "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "floor": "floor",
    "ceil": "ceil", "trunc": "trunc", "rint": "round", "isnan": "isnan", "isinf": "isinf",
    "isfinite": "isfinite", "signbit": "signbit", "logical_not": "logical_not",
    "invert": "bitwise_invert", "conjugate": "conj",
    "add": "add", "subtract": "subtract", "multiply": "multiply", "divide": "divide",
    "floor_divide": "floor_divide", "remainder": "remainder", "power": "pow",
    "maximum": "maximum", "minimum": "minimum", "arctan2": "atan2", "hypot": "hypot",
    "copysign": "copysign", "nextafter": "nextafter", "logaddexp": "logaddexp",
    "greater": "greater", "greater_equal": "greater_equal", "less": "less",
    "less_equal": "less_equal", "equal": "equal", "not_equal": "not_equal",
    "logical_and": "logical_and", "logical_or": "logical_or", "logical_xor": "logical_xor",
    "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor",
    "left_shift": "bitwise_left_shift", "right_shift": "bitwise_right_shift",
    "matmul": "matmul", "vecdot": "vecdot",
}

# ufunc.reduce / ufunc.accumulate -> arrayflow reduction / cumulative function.
_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
           "logical_and": "all", "logical_or": "any"}
_ACCUMULATE = {"add": "cumulative_sum", "multiply": "cumulative_prod"}


def _numpy() -> Any:
    """The NumPy module if it is loaded (a NumPy protocol is being called: it is), else None."""
    return sys.modules.get("numpy")


def _is_ndarray(x: Any) -> bool:
    """A plain ``numpy.ndarray`` (a subclass, e.g. a masked array, is not taken: its
    semantics would be lost)."""
    np = _numpy()
    return np is not None and type(x) is np.ndarray


def _np_scalar(x: Any) -> bool:
    """A NumPy scalar (``np.float32(2)``): taken as the operators take it."""
    np = _numpy()
    return np is not None and isinstance(x, np.generic)


def _first_tensor(objs) -> Tensor | None:
    for o in objs:
        if isinstance(o, Tensor):
            return o
        if isinstance(o, (list, tuple)):
            t = _first_tensor(o)
            if t is not None:
                return t
    return None


def _any_requires_grad(objs) -> bool:
    """Whether a Tensor among ``objs`` (also inside lists and tuples) is differentiated:
    it requires grad, or carries a forward-mode tangent at an active level."""
    from .autograd import forward_ad  # lazily: the autograd layer sits above this one

    for o in objs:
        if isinstance(o, Tensor) and (o.requires_grad or forward_ad._has_tangent(o)):
            return True
        if isinstance(o, (list, tuple)) and _any_requires_grad(o):
            return True
    return False


def _to_tensor(x: Any, like: Tensor) -> Any:
    """A NumPy array (also inside lists and tuples) as a Tensor of ``like``'s backend."""
    if _is_ndarray(x):
        b = like._backend
        return Tensor._from_array(b.from_host(x), b)
    if isinstance(x, list):
        return [_to_tensor(e, like) for e in x]
    if isinstance(x, tuple):
        return tuple(_to_tensor(e, like) for e in x)
    return x


def _to_numpy(x: Any) -> Any:
    """Tensors (also inside lists and tuples) as NumPy arrays of their values."""
    if isinstance(x, Tensor):
        return x.__array__()
    if isinstance(x, list):
        return [_to_numpy(e) for e in x]
    if isinstance(x, tuple):
        return tuple(_to_numpy(e) for e in x)
    return x


def _dtype(fname: str, dtype: Any) -> _dtypes.DType | None:
    """NumPy's ``dtype=`` (a NumPy dtype, type or name, or an arrayflow dtype) as a DType."""
    if dtype is None or isinstance(dtype, _dtypes.DType):
        return dtype
    name = getattr(dtype, "name", None) if not isinstance(dtype, (str, type)) else None
    if name is None:
        import numpy as np  # lazily: a NumPy function is being called, NumPy is loaded

        try:
            name = np.dtype(dtype).name
        except TypeError:
            name = None
    if name is None or name not in _dtypes._BY_NAME:
        raise TypeError(f"{fname}: argument 'dtype' must be a dtype arrayflow has "
                        f"({', '.join(sorted(_dtypes._BY_NAME))}), got {dtype!r}")
    return _dtypes.by_name(name)


def _astype(x: Any, dtype: _dtypes.DType) -> Any:
    return _dt.astype(x, dtype) if isinstance(x, Tensor) else x


def _unsupported(fname: str, arg: str, value: Any) -> TypeError:
    return TypeError(f"{fname}: argument {arg!r} is not supported on arrayflow Tensors "
                     f"(got {value!r}); call the arrayflow function and assign the result")


def _fallback(fname: str, suggestion: str | None, args, kwargs, run):
    """An unmapped NumPy function or ufunc (the module docstring's rule): ``TypeError`` when
    a Tensor among the arguments is differentiated (requires grad or carries a tangent),
    whatever the graph-break policy; otherwise NumPy on the values, NumPy's result (never a
    Tensor, so nothing claims a gradient)."""
    if _any_requires_grad(args) or _any_requires_grad(kwargs.values()):
        hint = (f"; use {suggestion}" if suggestion else
                "; it has no arrayflow counterpart: detach the Tensor to run NumPy on its "
                "values, or write it with arrayflow functions")
        raise TypeError(f"{fname} is not differentiable on arrayflow Tensors (NumPy would "
                        f"drop the autograd graph of a Tensor that requires grad){hint}")
    return run([_to_numpy(a) for a in args], {k: _to_numpy(v) for k, v in kwargs.items()})


def _suggest(name: str) -> str | None:
    cand = {"fmod": "arrayflow.fmod", "ldexp": "x * 2 ** e", "exp2": "arrayflow.pow(2, x)",
            "deg2rad": "x * (arrayflow.pi / 180)", "rad2deg": "x * (180 / arrayflow.pi)",
            "radians": "x * (arrayflow.pi / 180)", "degrees": "x * (180 / arrayflow.pi)",
            "cbrt": "arrayflow.sign(x) * arrayflow.abs(x) ** (1 / 3)",
            "nansum": "arrayflow.sum(arrayflow.where(arrayflow.isnan(x), 0, x))",
            "ravel": "arrayflow.reshape(x, (-1,))", "swapaxes": "arrayflow.moveaxis",
            "einsum": "arrayflow.einsum", "trace": "arrayflow.linalg.trace",
            "diagonal": "arrayflow.linalg.diagonal", "cross": "arrayflow.linalg.cross",
            "fmax": "arrayflow.maximum", "fmin": "arrayflow.minimum",
            "amax": "arrayflow.max", "amin": "arrayflow.min"}
    if name in cand:
        s = cand[name]
        if not s.startswith("arrayflow.") or _af(s[10:].split("(")[0]) is not None:
            return s
        return None
    return f"arrayflow.{name}" if "(" not in name and _af(name) is not None else None


def array_ufunc(self: Tensor, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """``Tensor.__array_ufunc__``: a NumPy ufunc call on Tensors as its arrayflow function.

    See :meth:`arrayflow.Tensor.__array_ufunc__`.
    """
    name = ufunc.__name__
    numpy_own = getattr(_numpy(), name, None) is ufunc
    # NumPy's own ufuncs by name; another library's (SciPy's ``scipy.special.erf``) through
    # ``arrayflow.special``'s function of the same name (SciPy's semantics), if there is one.
    fname = f"numpy.{name}" if numpy_own else f"ufunc {name!r} (not NumPy's)"
    if method != "__call__":
        fname = f"numpy.{name}.{method}" if numpy_own else f"{fname}.{method}"
    if method not in ("__call__", "reduce", "accumulate", "outer"):
        raise TypeError(f"{fname} is not supported on arrayflow Tensors (in-place or "
                        f"segmented ufunc method); use arrayflow functions (index "
                        f"assignment, arrayflow.sum over slices)")
    if any(isinstance(x, (list, tuple)) for x in inputs):
        import numpy as np  # lazily: a NumPy ufunc is being called, NumPy is loaded

        inputs = tuple(np.asarray(x) if isinstance(x, (list, tuple)) else x for x in inputs)
    for x in inputs:
        if not (isinstance(x, (Tensor, builtins.bool, int, float, complex)) or _is_ndarray(x)
                or _np_scalar(x)):
            return NotImplemented  # another array type: its turn (NEP 13)
    like = _first_tensor(inputs)
    like = self if like is None else like
    if numpy_own:
        target = _UFUNCS.get(name)
        fn = None if target is None else _af(target)
    else:
        fn = getattr(special_ns, name, None) if name in special_ns.__all__ else None

    def run_numpy(a, k):
        return getattr(ufunc, method)(*a, **k)

    if fn is None:
        return _fallback(fname, _suggest(name) if numpy_own else None, inputs, kwargs,
                         run_numpy)
    out = kwargs.get("out")
    if out is not None and all(_is_ndarray(o) for o in out):
        if not _any_requires_grad(inputs):
            # NumPy writes into its own arrays: the values of Tensors that need no graph
            return run_numpy([_to_numpy(x) for x in inputs], kwargs)
        raise TypeError(
            f"{fname}: argument 'out' is a NumPy array (out=, or an in-place operator such "
            f"as ndarray += t): writing into it would drop the autograd graph of a Tensor "
            f"that requires grad; compute the result out of place (acc = acc + t)")
    for arg in ("out", "where", "casting", "order", "subok", "signature", "axes", "initial"):
        if arg in kwargs and not (arg == "where" and kwargs[arg] is True):
            raise _unsupported(fname, arg, kwargs[arg])
    dtype = _dtype(fname, kwargs.pop("dtype", None))
    args = [_to_tensor(x, like) for x in inputs]
    if dtype is not None:
        args = [_astype(a, dtype) if isinstance(a, Tensor) else a for a in args]

    if method == "__call__":
        for arg in ("axis", "keepdims"):
            if arg in kwargs:
                raise _unsupported(fname, arg, kwargs[arg])
        return fn(*args)
    if method in ("reduce", "accumulate"):
        table = _REDUCE if method == "reduce" else _ACCUMULATE
        red = _af(table[name]) if numpy_own and name in table else None
        if red is None:
            return _fallback(fname, None, inputs, kwargs, run_numpy)
        (x,) = args
        kwargs.pop("where", None)  # only where=True gets here
        axis = kwargs.pop("axis", 0)
        keepdims = kwargs.pop("keepdims", False)
        if kwargs:
            k = next(iter(kwargs))
            raise _unsupported(fname, k, kwargs[k])
        if method == "accumulate":
            if keepdims:
                raise _unsupported(fname, "keepdims", keepdims)
            return red(x, axis=axis)
        return red(x, axis=axis, keepdims=keepdims)
    if method == "outer" and len(args) == 2:
        a, b = (x if isinstance(x, Tensor) else creation.asarray(x) for x in args)
        if kwargs:
            k = next(iter(kwargs))
            raise _unsupported(fname, k, kwargs[k])
        a = manipulation.reshape(a, tuple(a.shape) + (1,) * b.ndim)
        return fn(a, b)
    return _fallback(fname, None, inputs, kwargs, run_numpy)


# --- functions (NEP 18) ---------------------------------------------------------------------

_NO_VALUE = object()


def _take(fname: str, kwargs: dict, allowed: dict) -> dict:
    """``kwargs`` checked against ``allowed`` (name -> default); other names, and ``out``,
    ``where``, ``initial``, ``order`` set away from NumPy's default, raise TypeError."""
    out = {}
    for k, v in kwargs.items():
        if k in allowed:
            out[k] = v
        elif k == "out" and v is None or k == "where" and v is True:
            continue
        elif k == "order" and v in ("C", "K", "A", None):
            continue
        elif k == "initial" and v is _NO_VALUE:
            continue
        else:
            raise _unsupported(fname, k, v)
    for k, d in allowed.items():
        out.setdefault(k, d)
    return out


def _float_for_mean(x: Tensor) -> Tensor:
    """NumPy's mean of integers and bools is float64."""
    if x.dtype.kind in ("real floating", "complex floating"):
        return x
    return _astype(x, _dtypes.float64)


def _reduction(af_name, *, dtype_arg=False, mean=False, ddof=False):
    def impl(fname, a, axis=None, dtype=None, out=None, keepdims=False, **kw):
        if out is not None:
            raise _unsupported(fname, "out", out)
        extra = _take(fname, kw, {"ddof": 0, "correction": _NO_VALUE} if ddof else {})
        if ddof and extra["correction"] is not _NO_VALUE:  # NumPy 2's alias of ddof
            if "ddof" in kw:
                raise ValueError(f"{fname}: ddof and correction can't be provided "
                                 f"simultaneously")
            extra["ddof"] = extra["correction"]
        dt = _dtype(fname, dtype)
        x = a if not isinstance(a, (list, tuple)) else creation.asarray(a)
        if dt is not None and not dtype_arg:
            x = _astype(x, dt)
        elif mean:
            x = _float_for_mean(x)
        kwargs = {"axis": axis, "keepdims": builtins.bool(keepdims)}
        if dt is not None and dtype_arg:
            kwargs["dtype"] = dt
        if ddof:
            kwargs["correction"] = extra["ddof"]
        return _af(af_name)(x, **kwargs)
    return impl


def _minmax(af_name):
    def impl(fname, a, axis=None, out=None, keepdims=False, **kw):
        if out is not None:
            raise _unsupported(fname, "out", out)
        _take(fname, kw, {})
        return _af(af_name)(a, axis=axis, keepdims=builtins.bool(keepdims))
    return impl


def _arg(af_name):
    def impl(fname, a, axis=None, out=None, *, keepdims=False):
        if out is not None:
            raise _unsupported(fname, "out", out)
        if axis is None:
            a, axis = manipulation.reshape(a, (-1,)), 0
        return _af(af_name)(a, axis=axis, keepdims=builtins.bool(keepdims))
    return impl


def _cumulative(af_name):
    def impl(fname, a, axis=None, dtype=None, out=None):
        if out is not None:
            raise _unsupported(fname, "out", out)
        if axis is None:
            a, axis = manipulation.reshape(a, (-1,)), 0
        return _af(af_name)(a, axis=axis, dtype=_dtype(fname, dtype))
    return impl


def _concatenate(fname, arrays, axis=0, out=None, **kw):
    if out is not None:
        raise _unsupported(fname, "out", out)
    extra = _take(fname, kw, {"dtype": None, "casting": "same_kind"})
    if extra["casting"] != "same_kind":
        raise _unsupported(fname, "casting", extra["casting"])
    arrays = list(arrays)
    dt = _dtype(fname, extra["dtype"])
    if dt is not None:
        arrays = [_astype(a, dt) for a in arrays]
    return manipulation.concat(arrays, axis=axis)


def _stack(fname, arrays, axis=0, out=None, **kw):
    if out is not None:
        raise _unsupported(fname, "out", out)
    extra = _take(fname, kw, {"dtype": None, "casting": "same_kind"})
    if extra["casting"] != "same_kind":
        raise _unsupported(fname, "casting", extra["casting"])
    arrays = list(arrays)
    dt = _dtype(fname, extra["dtype"])
    if dt is not None:
        arrays = [_astype(a, dt) for a in arrays]
    return manipulation.stack(arrays, axis=axis)


def _reshape(fname, a, shape=None, order="C", *, newshape=None, copy=None):
    if order != "C":
        raise _unsupported(fname, "order", order)
    shape = newshape if shape is None else shape
    if shape is None:
        raise TypeError(f"{fname}: argument 'shape' is required")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return manipulation.reshape(a, shape, copy=copy)


def _transpose(fname, a, axes=None):
    axes = tuple(range(a.ndim))[::-1] if axes is None else tuple(axes)
    return manipulation.permute_dims(a, axes)


def _where(fname, condition, x=_NO_VALUE, y=_NO_VALUE):
    if x is _NO_VALUE and y is _NO_VALUE:
        return searching.nonzero(condition)
    if x is _NO_VALUE or y is _NO_VALUE:
        raise ValueError(f"{fname}: either both or neither of x and y should be given")
    return searching.where(condition, x, y)


def _clip(fname, a, a_min=_NO_VALUE, a_max=_NO_VALUE, out=None, *, min=_NO_VALUE,
          max=_NO_VALUE, **kw):
    if out is not None:
        raise _unsupported(fname, "out", out)
    _take(fname, kw, {})
    lo = a_min if a_min is not _NO_VALUE else (None if min is _NO_VALUE else min)
    hi = a_max if a_max is not _NO_VALUE else (None if max is _NO_VALUE else max)
    return elementwise.clip(a, lo, hi)


def _norm(fname, x, ord=None, axis=None, keepdims=False):
    keepdims = builtins.bool(keepdims)
    if isinstance(axis, int):
        axis = (axis,)
    if axis is None and (ord is None or x.ndim == 1):
        # The 2-norm of all entries (NumPy: Frobenius for a matrix), or a vector's ord-norm.
        out = linalg.vector_norm(x, axis=None, ord=2 if ord is None else ord)
        if keepdims:
            out = manipulation.reshape(out, (1,) * x.ndim)
        return out
    if axis is None:
        axis = tuple(range(x.ndim))
    axis = tuple(a % x.ndim for a in axis)
    if len(axis) == 1:
        return linalg.vector_norm(x, axis=axis[0], keepdims=keepdims,
                                  ord=2 if ord is None else ord)
    if len(axis) == 2:
        m = manipulation.moveaxis(x, axis, (-2, -1))
        out = linalg.matrix_norm(m, ord="fro" if ord is None else ord)
        if keepdims:
            out = manipulation.expand_dims(manipulation.expand_dims(out, axis=-1), axis=-1)
            out = manipulation.moveaxis(out, (-2, -1), axis)
        return out
    raise ValueError(f"{fname}: improper number of dimensions to norm ({len(axis)})")


def _squeeze(fname, a, axis=None):
    if axis is None:
        axis = tuple(i for i, s in enumerate(a.shape) if s == 1)
    return manipulation.squeeze(a, axis=axis)


def _like(af_name):
    def impl(fname, a, *args, dtype=None, order="K", subok=True, shape=None, device=None):
        if shape is not None:
            raise _unsupported(fname, "shape", shape)
        return _af(af_name)(a, *args, dtype=_dtype(fname, dtype))
    return impl


def _dot(fname, a, b, out=None):
    if out is not None:
        raise _unsupported(fname, "out", out)
    if getattr(a, "ndim", 0) == 0 or getattr(b, "ndim", 0) == 0:
        return elementwise.multiply(a, b)
    if a.ndim <= 2 and b.ndim <= 2:
        return _ops_linalg.matmul(a, b)
    return _ops_linalg.tensordot(a, b, axes=([-1], [-2 if b.ndim > 1 else -1]))


def _round(fname, a, decimals=0, out=None):
    if out is not None:
        raise _unsupported(fname, "out", out)
    if decimals != 0:
        raise _unsupported(fname, "decimals", decimals)
    return elementwise.round(a)


def _simple(af_name, *positional, **renames):
    """NumPy ``f(a, p1, p2, ..., k=...)`` -> arrayflow ``f(a, ...)``: the NumPy positional
    names in ``positional`` pass as keywords (renamed by ``renames``)."""
    def impl(fname, a, *args, **kw):
        kwargs = dict(zip(positional, args))
        if len(args) > len(positional):
            raise TypeError(f"{fname}: too many positional arguments")
        for k, v in kw.items():
            if k not in positional:
                raise _unsupported(fname, k, v)
            kwargs[k] = v
        kwargs = {renames.get(k, k): v for k, v in kwargs.items()}
        return _af(af_name)(a, **kwargs)
    return impl


def _close(af_name):
    def impl(fname, a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
        return _af(af_name)(a, b, rtol=rtol, atol=atol, equal_nan=builtins.bool(equal_nan))
    return impl


def _positional(af_name, nargs):
    def impl(fname, *args, **kw):
        if kw:
            k = next(iter(kw))
            raise _unsupported(fname, k, kw[k])
        return _af(af_name)(*args[:nargs])
    return impl


_COMPLEX_IN = ("fft.fft", "fft.ifft", "fft.fftn", "fft.ifftn", "fft.hfft")


def _fft_input(af_name: str, a: Any) -> Any:
    """NumPy's complex transforms take real input (the standard's take complex only)."""
    if af_name in _COMPLEX_IN and isinstance(a, Tensor) and a.dtype.kind != "complex floating":
        a = _astype(a, _dtypes.complex64 if a.dtype == _dtypes.float32 else _dtypes.complex128)
    return a


def _fft1(af_name):
    def impl(fname, a, n=None, axis=-1, norm=None, out=None):
        if out is not None:
            raise _unsupported(fname, "out", out)
        return _af(af_name)(_fft_input(af_name, a), n=n, axis=axis,
                            norm="backward" if norm is None else norm)
    return impl


def _fftn(af_name, default_axes=None):
    def impl(fname, a, s=None, axes=default_axes, norm=None, out=None):
        if out is not None:
            raise _unsupported(fname, "out", out)
        return _af(af_name)(_fft_input(af_name, a), s=s, axes=axes,
                            norm="backward" if norm is None else norm)
    return impl


def _sort(af_name):
    def impl(fname, a, axis=-1, kind=None, order=None, *, stable=None):
        if order is not None:
            raise _unsupported(fname, "order", order)
        if axis is None:
            a, axis = manipulation.reshape(a, (-1,)), 0
        return _af(af_name)(a, axis=axis, stable=True)
    return impl


def _trace_like(af_name):
    def impl(fname, a, offset=0, axis1=0, axis2=1, **kw):
        extra = _take(fname, kw, {"dtype": None} if af_name == "linalg.trace" else {})
        x = manipulation.moveaxis(a, (axis1, axis2), (-2, -1))
        kwargs = {"offset": offset}
        if extra.get("dtype") is not None:
            kwargs["dtype"] = _dtype(fname, extra["dtype"])
        return _af(af_name)(x, **kwargs)
    return impl


def _swapaxes(fname, a, axis1, axis2):
    axes = list(range(a.ndim))
    axes[axis1], axes[axis2] = axes[axis2], axes[axis1]
    return manipulation.permute_dims(a, tuple(axes))


def _diff(fname, a, n=1, axis=-1, prepend=_NO_VALUE, append=_NO_VALUE):
    kw = {"n": n, "axis": axis}
    if prepend is not _NO_VALUE:
        kw["prepend"] = prepend
    if append is not _NO_VALUE:
        kw["append"] = append
    return _af("diff")(a, **kw)


def _outer(fname, a, b, out=None):
    if out is not None:
        raise _unsupported(fname, "out", out)
    a, b = manipulation.reshape(a, (-1, 1)), manipulation.reshape(b, (1, -1))
    return elementwise.multiply(a, b)


def _cov(fname, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None,
         aweights=None, *, dtype=None):
    """NumPy's ``cov`` without weights: variables in rows (``rowvar``), ``ddof`` 1 (0 with
    ``bias``); a 0-d result for one variable."""
    for k, v in (("fweights", fweights), ("aweights", aweights)):
        if v is not None:
            raise _unsupported(fname, k, v)
    x = m if isinstance(m, Tensor) else creation.asarray(m)
    dt = _dtype(fname, dtype)
    x = _float_for_mean(x) if dt is None else _astype(x, dt)
    if x.ndim > 2:
        raise ValueError(f"{fname}: m has more than 2 dimensions")
    if x.ndim < 2:
        x = manipulation.reshape(x, (1, -1))
    if not rowvar and x.shape[0] != 1:
        x = manipulation.permute_dims(x, (1, 0))
    if y is not None:
        yy = _float_for_mean(y if isinstance(y, Tensor) else creation.asarray(y))
        yy = manipulation.reshape(yy, (1, -1)) if yy.ndim < 2 else yy
        if not rowvar and yy.shape[0] != 1:
            yy = manipulation.permute_dims(yy, (1, 0))
        x = manipulation.concat([x, yy], axis=0)
    ddof = (0 if bias else 1) if ddof is None else ddof
    xc = x - reductions.mean(x, axis=1, keepdims=True)
    c = _ops_linalg.matmul(xc, manipulation.permute_dims(elementwise.conj(xc), (1, 0)))
    c = c / (x.shape[1] - ddof)
    return manipulation.reshape(c, ()) if c.shape == (1, 1) else c


def _atleast(ndim: int):
    """NumPy's ``atleast_1d/2d/3d``: where the new axes go (``(n,)`` -> ``(1, n)`` for 2-D,
    ``(1, n, 1)`` for 3-D, ``(m, n)`` -> ``(m, n, 1)``); several arrays give a tuple."""
    def one(a):
        x = a if isinstance(a, Tensor) else creation.asarray(a)
        if x.ndim >= ndim:
            return x
        if x.ndim == 0:
            return manipulation.reshape(x, (1,) * ndim)
        if ndim == 2 or x.ndim == 2:  # (n,) -> (1, n); (m, n) -> (m, n, 1)
            return manipulation.expand_dims(x, axis=0 if ndim == 2 else -1)
        return manipulation.reshape(x, (1,) + tuple(x.shape) + (1,))  # (n,) -> (1, n, 1)

    def impl(fname, *arys):
        out = tuple(one(a) for a in arys)
        return out[0] if len(out) == 1 else out
    return impl


_FUNCTIONS = {
    "atleast_1d": _atleast(1), "atleast_2d": _atleast(2), "atleast_3d": _atleast(3),
    "sum": _reduction("sum", dtype_arg=True), "prod": _reduction("prod", dtype_arg=True),
    "mean": _reduction("mean", mean=True), "std": _reduction("std", mean=True, ddof=True),
    "var": _reduction("var", mean=True, ddof=True),
    "max": _minmax("max"), "amax": _minmax("max"), "min": _minmax("min"),
    "amin": _minmax("min"), "all": _minmax("all"), "any": _minmax("any"),
    "argmax": _arg("argmax"), "argmin": _arg("argmin"),
    "cumsum": _cumulative("cumulative_sum"), "cumprod": _cumulative("cumulative_prod"),
    "concatenate": _concatenate, "concat": _concatenate, "stack": _stack,
    "reshape": _reshape, "transpose": _transpose, "permute_dims": _transpose,
    "where": _where, "clip": _clip, "linalg.norm": _norm, "squeeze": _squeeze,
    "expand_dims": _simple("expand_dims", "axis"), "flip": _simple("flip", "axis"),
    "moveaxis": _positional("moveaxis", 3),
    "broadcast_to": _simple("broadcast_to", "shape"),
    "tensordot": lambda fname, a, b, axes=2: _ops_linalg.tensordot(a, b, axes=axes),
    "dot": _dot,
    "real": _positional("real", 1), "imag": _positional("imag", 1),
    "isclose": _close("isclose"), "allclose": _close("allclose"),
    "zeros_like": _like("zeros_like"), "ones_like": _like("ones_like"),
    "empty_like": _like("empty_like"), "full_like": _like("full_like"),
    "round": _round, "around": _round,
    "cumulative_sum": _simple("cumulative_sum", "axis", "dtype", "include_initial"),
    "cumulative_prod": _simple("cumulative_prod", "axis", "dtype", "include_initial"),
    "sort": _sort("sort"), "argsort": _sort("argsort"),
    "roll": lambda fname, a, shift, axis=None: manipulation.roll(a, shift, axis=axis),
    "tile": lambda fname, a, reps: manipulation.tile(
        a, (reps,) if isinstance(reps, int) else tuple(reps)),
    "repeat": lambda fname, a, repeats, axis=None: manipulation.repeat(a, repeats, axis=axis),
    "ravel": lambda fname, a, order="C": _reshape(fname, a, (-1,), order),
    "swapaxes": _swapaxes, "diff": _diff, "outer": _outer, "cov": _cov,
    "trace": _trace_like("linalg.trace"), "diagonal": _trace_like("linalg.diagonal"),
    "fft.fft": _fft1("fft.fft"), "fft.ifft": _fft1("fft.ifft"), "fft.rfft": _fft1("fft.rfft"),
    "fft.irfft": _fft1("fft.irfft"), "fft.hfft": _fft1("fft.hfft"),
    "fft.ihfft": _fft1("fft.ihfft"),
    "fft.fftn": _fftn("fft.fftn"), "fft.ifftn": _fftn("fft.ifftn"),
    "fft.rfftn": _fftn("fft.rfftn"), "fft.irfftn": _fftn("fft.irfftn"),
    "fft.fft2": _fftn("fft.fftn", (-2, -1)), "fft.ifft2": _fftn("fft.ifftn", (-2, -1)),
    "fft.rfft2": _fftn("fft.rfftn", (-2, -1)), "fft.irfft2": _fftn("fft.irfftn", (-2, -1)),
    "fft.fftshift": _simple("fft.fftshift", "axes"),
    "fft.ifftshift": _simple("fft.ifftshift", "axes"),
    "shape": lambda fname, a: tuple(a.shape),
    "ndim": lambda fname, a: a.ndim,
    "size": lambda fname, a, axis=None: a.size if axis is None else a.shape[axis],
    "linalg.inv": _positional("linalg.inv", 1), "linalg.det": _positional("linalg.det", 1),
    "linalg.solve": _positional("linalg.solve", 2),
    "linalg.cholesky": _simple("linalg.cholesky", "upper"),
    "linalg.slogdet": _positional("linalg.slogdet", 1),
    "linalg.eigh": _simple("linalg.eigh"), "linalg.eigvalsh": _simple("linalg.eigvalsh"),
    "linalg.pinv": _simple("linalg.pinv", "rcond", "hermitian", rcond="rtol"),
    "linalg.matrix_power": _positional("linalg.matrix_power", 2),
    "linalg.svd": _simple("linalg.svd", "full_matrices"),
    "linalg.qr": _simple("linalg.qr", "mode"),
    "linalg.svdvals": _positional("linalg.svdvals", 1),
    "linalg.vector_norm": _simple("linalg.vector_norm", "axis", "keepdims", "ord"),
    "linalg.matrix_norm": _simple("linalg.matrix_norm", "keepdims", "ord"),
}


def _numpy_name(func: Any) -> str:
    """``"sum"``, ``"linalg.norm"``, ``"fft.fft"``: the NumPy function's public name."""
    mod = getattr(func, "__module__", "") or ""
    name = getattr(func, "__name__", repr(func))
    sub = mod[len("numpy."):] if mod.startswith("numpy.") else ""
    sub = sub.split(".")[0] if sub in ("linalg", "fft") or sub.startswith(
        ("linalg.", "fft.")) else ""
    return f"{sub}.{name}" if sub else name


def array_function(self: Tensor, func: Any, types: tuple, args: tuple, kwargs: dict) -> Any:
    """``Tensor.__array_function__``: a NumPy function on Tensors as its arrayflow function.

    See :meth:`arrayflow.Tensor.__array_function__`.
    """
    for t in types:
        if not (issubclass(t, Tensor) or t is getattr(_numpy(), "ndarray", None)):
            return NotImplemented  # another array type: its turn (NEP 18)
    name = _numpy_name(func)
    fname = f"numpy.{name}"
    impl = _FUNCTIONS.get(name)
    if impl is None:
        return _fallback(fname, _suggest(name), args, kwargs,
                         lambda a, k: func(*a, **k))
    like = _first_tensor(args)
    if like is None:
        like = _first_tensor(kwargs.values())
    like = self if like is None else like
    args = tuple(_to_tensor(a, like) for a in args)
    kwargs = {k: _to_tensor(v, like) for k, v in kwargs.items()}
    return impl(fname, *args, **kwargs)

