"""PyTorch as an oracle: every op of :data:`arrayflow.ops.OPS` mapped to its torch counterpart.

:data:`TORCH` maps an op name to an adapter: a callable taking the *same*
arguments as the arrayflow op (positional and keyword, with torch Tensors in
place of arrayflow Tensors and torch dtypes in place of arrayflow dtypes) and
returning what PyTorch computes for that call. :data:`NO_COUNTERPART` lists the
ops PyTorch has no counterpart for, each with the reason. Every op is in
exactly one of the two (``tests/oracle/test_coverage.py`` checks it).

:data:`ORACLE_CASES` are the cases compared with PyTorch: every case of
:data:`arrayflow.testing.CASES` whose op is mapped, plus cases the NumPy table
does not need but a differential test does (0-d and empty inputs, broadcasting
that reduces in the VJP, negative axes). :func:`to_torch` turns a case's
NumPy-level inputs into torch's, :func:`assert_same` compares results.

:data:`DIFFERENCES` names the cases where arrayflow deliberately follows the
array API standard instead of PyTorch (``docs/pytorch-differences.md``).

Importing this module imports neither NumPy nor torch (the test suite
``tests/oracle/`` and the op table are its users).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import arrayflow as af

from .cases import (
    _NOT_LAZY_SHAPE,
    _UNARY,
    CASES,
    FLOATS,
    LIN,
    OpCase,
    Raw,
    _arr,
    _away,
    _inputs,
    np,
)
from .cases import DTypeArg as _DTypeArg
from .grad import LazyCases

__all__ = ["DIFFERENCES", "NO_COUNTERPART", "ORACLE_CASES", "PIECEWISE", "TORCH",
           "TORCH_VJP", "assert_same", "oracle_tolerance", "to_torch", "torch_dtype_name"]


class _LazyTorch:
    """``torch``, imported on first attribute access."""

    def __getattr__(self, name):
        import torch

        return getattr(torch, name)


torch = _LazyTorch()


# --- adapters -------------------------------------------------------------------------------

def _kw(kwargs: dict) -> dict:
    """Array API keyword names to torch's (``axis`` -> ``dim``, ``keepdims`` -> ``keepdim``)."""
    names = {"axis": "dim", "axes": "dim", "keepdims": "keepdim"}
    return {names.get(k, k): v for k, v in kwargs.items()}


def _attr(path: str):
    obj = torch
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _same(path: str) -> Callable[..., Any]:
    """Adapter: torch's ``path`` with the arguments passed through (keywords renamed)."""
    def call(*args, **kwargs):
        return _attr(path)(*args, **_kw(kwargs))
    call.__name__ = f"torch.{path}"
    return call


def _scalar_as(x, other):
    """A Python scalar next to a torch Tensor as a 0-d tensor of the promoted dtype."""
    if isinstance(x, (bool, int, float, complex)) and hasattr(other, "dtype"):
        return torch.tensor(x, dtype=torch.result_type(other, x))
    return x


def _binary(path: str) -> Callable[..., Any]:
    def call(x1, x2):
        return _attr(path)(_scalar_as(x1, x2), _scalar_as(x2, x1))
    call.__name__ = f"torch.{path}"
    return call


def _dims(x, axis):
    if axis is None:
        return tuple(range(x.ndim))
    return (axis,) if isinstance(axis, int) else tuple(axis)


def _reduction(path: str, *, one_dim: bool = False) -> Callable[..., Any]:
    """Reductions: ``axis=None`` reduces everything (``keepdims`` keeps every axis)."""
    def call(x, axis=None, keepdims=False, **kw):
        fn = _attr(path)
        dims = _dims(x, axis)
        if one_dim:  # torch.prod, torch.argmax...: one dim at a time
            out = x
            for d in sorted((d % max(x.ndim, 1) for d in dims), reverse=True):
                out = fn(out, dim=d, keepdim=keepdims, **kw)
            if not dims:
                out = fn(x, **kw) if x.ndim == 0 else out
            return out
        if x.ndim == 0:
            return fn(x, **kw)
        return fn(x, dim=dims, keepdim=keepdims, **kw)
    call.__name__ = f"torch.{path}"
    return call


def _std(path):
    def call(x, axis=None, correction=0.0, keepdims=False):
        dims = None if x.ndim == 0 else _dims(x, axis)
        return _attr(path)(x, dim=dims, correction=correction, keepdim=keepdims)
    return call


def _arg(path):
    def call(x, axis=None, keepdims=False):
        if axis is None and keepdims:
            return _attr(path)(x.reshape(-1), dim=0).reshape((1,) * x.ndim)
        return _attr(path)(x, dim=axis, keepdim=keepdims)
    return call


def _cumulative(path):
    def call(x, axis=None, dtype=None, include_initial=False):
        axis = 0 if axis is None else axis
        out = _attr(path)(x, dim=axis, dtype=dtype)
        if include_initial:
            shape = list(out.shape)
            shape[axis] = 1
            first = (torch.zeros if path == "cumsum" else torch.ones)(shape, dtype=out.dtype)
            out = torch.cat([first, out], dim=axis)
        return out
    return call


def _count_nonzero(x, axis=None, keepdims=False):
    dims = _dims(x, axis)
    out = torch.count_nonzero(x, dim=dims)
    if keepdims:
        for d in sorted(d % x.ndim for d in dims):
            out = out.unsqueeze(d)
    return out


def _close_fn(path):
    def call(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
        x1, x2 = _scalar_as(x1, x2), _scalar_as(x2, x1)
        return _attr(path)(x1, x2, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return call


def _clip(x, min=None, max=None):
    if min is None and max is None:
        return x.clone()
    return torch.clamp(x, min, max)


def _arange(start, stop=None, step=1, *, dtype=None):
    if stop is None:
        start, stop = 0, start
    return torch.arange(start, stop, step, dtype=dtype)


def _eye(n_rows, n_cols=None, *, k=0, dtype=None):
    n_cols = n_rows if n_cols is None else n_cols
    out = torch.zeros((n_rows, n_cols), dtype=dtype or torch.get_default_dtype())
    for i in range(n_rows):
        if 0 <= i + k < n_cols:
            out[i, i + k] = 1
    return out


def _linspace(start, stop, num, *, dtype=None, endpoint=True):
    if endpoint:
        return torch.linspace(start, stop, num, dtype=dtype)
    return torch.linspace(start, stop, num + 1, dtype=dtype)[:-1]


def _concat(arrays, axis=0):
    if axis is None:
        return torch.cat([a.reshape(-1) for a in arrays])
    return torch.cat(list(arrays), dim=axis)


def _expand_dims(x, axis):
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    n = x.ndim + len(axes)
    for a in sorted(a % n for a in axes):
        x = x.unsqueeze(a)
    return x


def _flip(x, axis=None):
    return torch.flip(x, _dims(x, axis))


def _repeat(x, repeats, axis=None):
    if axis is None:
        x, axis = x.reshape(-1), 0
    return torch.repeat_interleave(x, repeats, dim=axis)


def _reshape(x, shape, copy=None):
    return torch.reshape(x, shape).clone() if copy else torch.reshape(x, shape)


def _roll(x, shift, axis=None):
    return torch.roll(x, shift, axis) if axis is not None else torch.roll(x, shift)


def _take(x, indices, axis=None):
    """``x[..., indices, ...]`` along ``axis``: PyTorch's indexing (negative indices wrap;
    ``index_select`` would refuse them)."""
    if axis is None:
        x, axis = x.reshape(-1), 0
    return x[(slice(None),) * (axis % x.ndim) + (indices,)]


def _take_along_axis(x, indices, axis=-1):
    return torch.take_along_dim(x, indices, dim=axis)


def _torch_key(key):
    return tuple(_torch_key(k) for k in key) if isinstance(key, tuple) else key


def _getitem(x, key):
    return x[_torch_key(key)]


def _index_put(x, key, values):
    y = x.clone()
    y[_torch_key(key)] = values
    return y


def _nonzero(x):
    return torch.nonzero(x, as_tuple=True)


def _sort(x, axis=-1, descending=False, stable=True):
    return torch.sort(x, dim=axis, descending=descending, stable=stable).values


def _argsort(x, axis=-1, descending=False, stable=True):
    return torch.argsort(x, dim=axis, descending=descending, stable=stable)


def _searchsorted(x1, x2, side="left", sorter=None):
    return torch.searchsorted(x1, x2, side=side, sorter=sorter)


def _unique_all(x):
    values, inverse, counts = torch.unique(x, sorted=True, return_inverse=True,
                                           return_counts=True)
    # first occurrence of each value (torch.unique has no return_index)
    flat = inverse.reshape(-1)
    pos = torch.arange(flat.numel())
    indices = torch.full((values.numel(),), flat.numel(), dtype=torch.int64)
    indices = indices.scatter_reduce(0, flat, pos, reduce="amin")
    return values, indices, inverse, counts


def _unique_counts(x):
    return tuple(torch.unique(x, sorted=True, return_counts=True))


def _unique_inverse(x):
    return tuple(torch.unique(x, sorted=True, return_inverse=True))


def _tensordot(x1, x2, axes=2):
    return torch.tensordot(x1, x2, dims=axes)


def _vecdot(x1, x2, axis=-1):
    if x1.dtype.is_floating_point or x1.dtype.is_complex:
        return torch.linalg.vecdot(x1, x2, dim=axis)
    # torch.linalg.vecdot takes floating inputs only; integers keep their promoted dtype
    return (x1 * x2).sum(dim=axis, dtype=torch.promote_types(x1.dtype, x2.dtype))


def _trace(x, offset=0, dtype=None):
    return torch.diagonal(x, offset, -2, -1).sum(-1, dtype=dtype)


def _vector_norm(x, axis=None, keepdims=False, ord=2):
    return torch.linalg.vector_norm(x, ord, dim=axis, keepdim=keepdims)


def _matrix_norm(x, keepdims=False, ord="fro"):
    return torch.linalg.matrix_norm(x, ord, keepdim=keepdims)


def _fft1(path):
    def call(x, n=None, axis=-1, norm="backward"):
        return _attr(path)(x, n=n, dim=axis, norm=norm)
    return call


def _fftn(path):
    def call(x, s=None, axes=None, norm="backward"):
        return _attr(path)(x, s=s, dim=axes, norm=norm)
    return call


def _fftfreq(path):
    def call(n, d=1.0, dtype=None):
        return _attr(path)(n, d, dtype=dtype)
    return call


def _fftshift(path):
    def call(x, axes=None):
        return _attr(path)(x, dim=axes)
    return call


def _meshgrid(*arrays, indexing="xy"):
    return torch.meshgrid(*arrays, indexing=indexing)


def _astype(x, dtype, copy=True):
    return x.to(dtype, copy=copy)


def _can_cast(from_, to):
    return torch.can_cast(getattr(from_, "dtype", from_), to)


def _result_type(*arrays_and_dtypes):
    dtypes = [getattr(a, "dtype", a) for a in arrays_and_dtypes]
    scalars = [a for a in dtypes if isinstance(a, (bool, int, float, complex))]
    tensors = [a for a in arrays_and_dtypes if hasattr(a, "dtype")]
    out = None
    for d in dtypes:
        if isinstance(d, (bool, int, float, complex)):
            continue
        out = d if out is None else torch.promote_types(out, d)
    for s in scalars:
        out = torch.result_type(torch.empty((1,), dtype=out), s) if tensors or out else out
    return out


def _from_dlpack(x, copy=None):
    return torch.from_dlpack(x)


def _empty(shape, *, dtype=None):
    return torch.empty(shape, dtype=dtype)


def _randint(low, high, size, *, dtype=None):
    return torch.randint(low, high, tuple(size), dtype=dtype or torch.int64)


def _sized(path):
    def call(*size, dtype=None):
        return _attr(path)(*size, dtype=dtype)
    return call


def _tril(path):
    def call(x, k=0):
        return _attr(path)(x, diagonal=k)
    return call


def _cholesky(x, upper=False):
    return torch.linalg.cholesky(x, upper=upper)


def _cross(x1, x2, axis=-1):
    x1, x2 = torch.broadcast_tensors(x1, x2)
    return torch.linalg.cross(x1, x2, dim=axis)


def _pinv(x, rtol=None):
    return torch.linalg.pinv(x, rtol=rtol)


def _matrix_rank(x, rtol=None):
    return torch.linalg.matrix_rank(x, rtol=rtol)


def _sign(x):
    return torch.sgn(x) if x.is_complex() else torch.sign(x)


def _conj(x):
    return torch.conj(x).resolve_conj()


def _real(x):
    return torch.real(x).clone() if x.is_complex() else x.clone()


def _imag(x):
    return torch.imag(x).clone()


def _diff(x, axis=-1, n=1, prepend=None, append=None):
    return torch.diff(x, n=n, dim=axis, prepend=prepend, append=append)


def _squeeze(x, axis):
    return torch.squeeze(x, axis)


def _finfo(type):
    return torch.finfo(getattr(type, "dtype", type))


def _iinfo(type):
    return torch.iinfo(getattr(type, "dtype", type))


def _broadcast_shapes(*shapes):
    return tuple(torch.broadcast_shapes(*shapes))


def _special_dims(x, axis):
    """SciPy's ``axis`` (None: every axis) as torch's ``dim``."""
    return tuple(range(x.ndim)) if axis is None else axis


def _special_softmax(x, axis, log):
    """SciPy's softmax/log_softmax (``axis=None``: over every element) with torch.special."""
    if isinstance(axis, int):
        return (torch.special.log_softmax if log else torch.special.softmax)(x, dim=axis)
    y = x - torch.logsumexp(x, dim=_special_dims(x, axis), keepdim=True)
    return y if log else torch.exp(y)


# arrayflow.ops.special_gamma: torch adapters / reasons there is none (owned by its module)
def _special_polygamma(n, x):
    """SciPy's ``polygamma(n, x)`` with torch's (whose ``n`` is a Python int): an array of
    orders is evaluated order by order; NaN where ``n`` is not a non-negative integer."""
    if not isinstance(n, torch.Tensor):
        return torch.special.polygamma(int(n), x)
    n, x = torch.broadcast_tensors(n, x)
    out = torch.full_like(x, float("nan"))
    for k in torch.unique(n).tolist():
        if k >= 0 and float(k).is_integer():
            out = torch.where(n == k, torch.special.polygamma(int(k), x), out)
    return out


_TORCH_SPECIAL_GAMMA: dict[str, Callable[..., Any]] = {
    "special.polygamma": _special_polygamma,
    "special.zeta": lambda x, q=None: torch.special.zeta(x, 1.0 if q is None else q),
    "special.multigammaln": lambda a, d: torch.special.multigammaln(a, d),
}
_NO_COUNTERPART_SPECIAL_GAMMA: dict[str, str] = {
    name: f"torch has no {name} (torch.lgamma is gammaln); checked against SciPy, its "
          f"gradient against torch compositions, mpmath and finite differences in "
          f"tests/test_special_gamma.py"
    for name in ("special.gamma", "special.gammasgn", "special.rgamma", "special.loggamma",
                 "special.betaln", "special.binom", "special.poch", "special.zetac")
}

# arrayflow.ops.special_incomplete: torch adapters / reasons there is none (owned by its module)
_TORCH_SPECIAL_INCOMPLETE: dict[str, Callable[..., Any]] = {
    "special.gammainc": _binary("special.gammainc"),
    "special.gammaincc": _binary("special.gammaincc"),
}
_NO_COUNTERPART_SPECIAL_INCOMPLETE: dict[str, str] = {
    **{f"special.{n}": f"SciPy's {what}: torch.special has no {n} (checked against SciPy, "
                       f"and its gradients against finite differences and torch's gammainc, in "
                       f"tests/test_special_incomplete.py)" for n, what in (
        ("chdtr", "chi-square CDF"), ("chdtrc", "chi-square survival function"),
        ("gdtr", "gamma CDF"), ("gdtrc", "gamma survival function"),
        ("pdtr", "Poisson CDF"), ("pdtrc", "Poisson survival function"))},
    **{f"special.{n}": f"SciPy's {what}: torch.special has no {n} (checked against SciPy, "
                       f"and its gradient against SciPy's densities, in "
                       f"tests/test_special_incomplete.py)" for n, what in (
        ("betainc", "regularized incomplete beta function"),
        ("betaincc", "complemented incomplete beta function"),
        ("bdtr", "binomial CDF"), ("bdtrc", "binomial survival function"),
        ("nbdtr", "negative binomial CDF"), ("nbdtrc", "negative binomial survival function"),
        ("fdtr", "F CDF"), ("fdtrc", "F survival function"))},
    "special.stdtr": "SciPy's Student t CDF: torch.special has no stdtr (checked against SciPy "
                     "and mpmath, and its gradient against torch.distributions.StudentT's "
                     "density, in tests/test_special_incomplete.py)",
    "special.stdtrit": "SciPy's Student t quantile: torch.special has no stdtrit (checked "
                       "against SciPy and mpmath, its gradient against finite differences and "
                       "torch.distributions.StudentT's density, in "
                       "tests/test_special_incomplete.py)",
}

# arrayflow.ops.special_bessel: torch adapters / reasons there is none (owned by its module)
_TORCH_BESSEL_NAMES = {
    "j0": "bessel_j0", "j1": "bessel_j1", "y0": "bessel_y0", "y1": "bessel_y1",
    "k0": "modified_bessel_k0", "k1": "modified_bessel_k1", "k0e": "scaled_modified_bessel_k0",
    "k1e": "scaled_modified_bessel_k1"}


def _torch_over_x(v, x):
    """``v / x`` with the limit 1/2 at 0 (``v`` is ``j1``, whose slope at 0 is 1/2)."""
    zero = x == 0
    return torch.where(zero, torch.full_like(v, 0.5), v / torch.where(zero, 1.0, x))


_TORCH_BESSEL_DERIVS: dict[str, Callable[..., Any]] = {
    "j0": lambda f, x: -f("j1", x),
    "j1": lambda f, x: f("j0", x) - _torch_over_x(f("j1", x), x),
    "y0": lambda f, x: -f("y1", x),
    "y1": lambda f, x: f("y0", x) - f("y1", x) / x,
    "k0": lambda f, x: -f("k1", x),
    "k1": lambda f, x: -f("k0", x) - f("k1", x) / x,
    "k0e": lambda f, x: f("k0e", x) - f("k1e", x),
    "k1e": lambda f, x: f("k1e", x) * (1 - 1 / x) - f("k0e", x),
}
_TORCH_BESSEL_FUNCTIONS: dict[str, Any] = {}


def _torch_bessel(name: str, x: Any) -> Any:
    """``torch.special``'s Bessel function ``name`` (its values), with the derivative
    torch lacks (its result has no grad_fn) written from torch.special's values of the
    others (``j0' = -j1``, ``k1' = -k0 - k1/x``, ...: the textbook identities), itself
    differentiable, so that the gradient cases of the oracle compare against torch."""
    if name not in _TORCH_BESSEL_FUNCTIONS:
        torch_fn = getattr(torch.special, _TORCH_BESSEL_NAMES[name])

        class _Bessel(torch.autograd.Function):  # type: ignore[name-defined]
            @staticmethod
            def forward(x):
                return torch_fn(x)

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_backward(inputs[0])

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * _TORCH_BESSEL_DERIVS[name](_torch_bessel, x)

        _TORCH_BESSEL_FUNCTIONS[name] = _Bessel.apply
    return _TORCH_BESSEL_FUNCTIONS[name](x)


def _torch_bessel_of(name: str) -> Callable[..., Any]:
    def fn(x: Any) -> Any:
        return _torch_bessel(name, x)
    return fn


_TORCH_SPECIAL_BESSEL: dict[str, Callable[..., Any]] = {
    f"special.{n}": _torch_bessel_of(n) for n in _TORCH_BESSEL_NAMES}
_NO_COUNTERPART_SPECIAL_BESSEL: dict[str, str] = {
    f"special.{n}": f"SciPy's {n}: torch.special has no {what} (checked against SciPy, mpmath "
                    f"and finite differences in tests/test_special_bessel.py)"
    for n, what in (("yn", "Bessel function of integer order n"),
                    ("expn", "generalized exponential integral"),
                    ("exp1", "exponential integral"), ("expi", "exponential integral"),
                    ("spence", "dilogarithm"),
                    ("ellipk", "complete elliptic integral"),
                    ("ellipkm1", "complete elliptic integral"))}

# arrayflow.ops.special_elementary: torch adapters / reasons there is none (owned by its module)
_TORCH_SPECIAL_ELEMENTARY: dict[str, Callable[..., Any]] = {
    "special.exp2": _same("special.exp2"), "special.erfcx": _same("special.erfcx")}
_NO_COUNTERPART_SPECIAL_ELEMENTARY: dict[str, str] = {
    **{f"special.{n}": f"SciPy's {n}: torch has no such function (values checked against SciPy, "
                       f"gradients against mpmath derivatives in tests/test_special_elementary.py)"
       for n in ("cbrt", "exp10", "sindg", "cosdg", "tandg", "cotdg", "radian", "cosm1",
                 "exprel", "boxcox", "boxcox1p", "inv_boxcox", "inv_boxcox1p", "pseudo_huber")},
    "special.huber": "SciPy's huber(delta, r): torch.nn.functional.huber_loss takes delta as a "
                     "Python float (no gradient) and reduces; checked against SciPy and finite "
                     "differences in tests/test_special_elementary.py",
    "special.kl_div": "SciPy's elementwise x log(x/y) - x + y: torch.kl_div takes "
                      "log-probabilities and reduces; checked against SciPy and finite "
                      "differences in tests/test_special_elementary.py",
}

# arrayflow.ops.special_inverse_gamma: torch adapters / reasons there is none (owned by its module)
_TORCH_SPECIAL_INVERSE_GAMMA: dict[str, Callable[..., Any]] = {}
_NO_COUNTERPART_SPECIAL_INVERSE_GAMMA: dict[str, str] = {
    f"special.{n}": f"SciPy's {what}: torch.special has no {n} (checked against SciPy and "
                    f"mpmath, and its gradient against the reciprocal of "
                    f"torch.distributions.{dist}'s density, in "
                    f"tests/test_special_inverse_gamma.py)" for n, what, dist in (
        ("gammaincinv", "inverse of the regularized lower incomplete gamma function",
         "Gamma"),
        ("gammainccinv", "inverse of the regularized upper incomplete gamma function",
         "Gamma"),
        ("chdtri", "inverse of the chi-square survival function", "Chi2"),
        ("pdtri", "inverse of the Poisson CDF in the mean", "Poisson"))}

# arrayflow.ops.special_inverse_beta: torch adapters / reasons there is none (owned by its module)
_TORCH_SPECIAL_INVERSE_BETA: dict[str, Callable[..., Any]] = {}
_NO_COUNTERPART_SPECIAL_INVERSE_BETA: dict[str, str] = {
    f"special.{n}": f"SciPy's {what}: torch.special has no {n} (checked against SciPy and "
                    f"mpmath, and its gradient against finite differences and the reciprocal "
                    f"of scipy.stats' {dist} density, in tests/test_special_inverse_beta.py)"
    for n, what, dist in (
        ("betaincinv", "inverse of the regularized incomplete beta function", "beta"),
        ("bdtri", "inverse of the binomial CDF in the success probability", "beta"),
        ("fdtri", "F quantile (inverse of the F CDF)", "F"),
        ("nbdtri", "inverse of the negative binomial CDF in the success probability",
         "beta"))}

# arrayflow.ops.special_hyper: torch adapters / reasons there is none (owned by its module)
_TORCH_SPECIAL_HYPER: dict[str, Callable[..., Any]] = {}
_NO_COUNTERPART_SPECIAL_HYPER: dict[str, str] = {
    "special.hyp1f1": "SciPy's confluent hypergeometric 1F1: torch has no such function "
                      "(values checked against SciPy and mpmath, the x-derivative against "
                      "mpmath in tests/test_special_hyper.py)",
    "special.lpmv": "SciPy's associated Legendre function of real degree: torch has only "
                    "Legendre polynomials (special.legendre_polynomial_p, m = 0, integer n); "
                    "checked against SciPy and mpmath legenp in tests/test_special_hyper.py"}


TORCH: dict[str, Callable[..., Any]] = {
    # creation
    "arange": _arange, "asarray": _same("asarray"), "tensor": _same("tensor"),
    "empty": _empty, "zeros": _same("zeros"), "ones": _same("ones"), "full": _same("full"),
    "eye": _eye, "linspace": _linspace, "empty_like": _same("empty_like"),
    "zeros_like": _same("zeros_like"), "ones_like": _same("ones_like"),
    "full_like": _same("full_like"), "from_dlpack": _from_dlpack, "meshgrid": _meshgrid,
    "tril": _tril("tril"), "triu": _tril("triu"), "randn": _sized("randn"),
    "rand": _sized("rand"), "randint": _randint, "randperm": _same("randperm"),
    # dtypes
    "astype": _astype, "can_cast": _can_cast, "result_type": _result_type, "finfo": _finfo,
    "iinfo": _iinfo,
    # element-wise
    "abs": _same("abs"), "acos": _same("acos"), "acosh": _same("acosh"), "asin": _same("asin"),
    "asinh": _same("asinh"), "atan": _same("atan"), "atanh": _same("atanh"),
    "bitwise_invert": _same("bitwise_not"), "ceil": _same("ceil"), "conj": _conj,
    "cos": _same("cos"), "cosh": _same("cosh"), "erf": _same("erf"), "exp": _same("exp"),
    "expm1": _same("expm1"), "floor": _same("floor"), "imag": _imag,
    "isfinite": _same("isfinite"), "isinf": _same("isinf"), "isnan": _same("isnan"),
    "log": _same("log"), "log10": _same("log10"), "log1p": _same("log1p"),
    "log2": _same("log2"), "logical_not": _same("logical_not"), "negative": _same("neg"),
    "positive": lambda x: torch.positive(x).clone(), "real": _real,
    "reciprocal": _same("reciprocal"), "round": _same("round"), "sign": _sign,
    "signbit": _same("signbit"), "sin": _same("sin"), "sinh": _same("sinh"),
    "sqrt": _same("sqrt"), "square": _same("square"), "tan": _same("tan"),
    "tanh": _same("tanh"), "trunc": _same("trunc"),
    "add": _binary("add"), "subtract": _binary("sub"), "multiply": _binary("mul"),
    "divide": _binary("div"), "atan2": _binary("atan2"), "copysign": _binary("copysign"),
    "hypot": _binary("hypot"), "logaddexp": _binary("logaddexp"),
    "nextafter": _binary("nextafter"), "maximum": _binary("maximum"),
    "minimum": _binary("minimum"), "pow": _binary("pow"),
    "floor_divide": _binary("floor_divide"), "remainder": _binary("remainder"),
    "bitwise_and": _binary("bitwise_and"), "bitwise_or": _binary("bitwise_or"),
    "bitwise_xor": _binary("bitwise_xor"),
    "bitwise_left_shift": _binary("bitwise_left_shift"),
    "bitwise_right_shift": _binary("bitwise_right_shift"), "equal": _binary("eq"),
    "not_equal": _binary("ne"), "greater": _binary("gt"), "greater_equal": _binary("ge"),
    "less": _binary("lt"), "less_equal": _binary("le"),
    "logical_and": _binary("logical_and"), "logical_or": _binary("logical_or"),
    "logical_xor": _binary("logical_xor"), "clip": _clip,
    "isclose": _close_fn("isclose"), "allclose": _close_fn("allclose"),
    # linear algebra
    "matmul": _same("matmul"), "matrix_transpose": lambda x: x.mT, "tensordot": _tensordot,
    "einsum": _same("einsum"),
    "vecdot": _vecdot, "linalg.cholesky": _cholesky, "linalg.cross": _cross,
    "linalg.det": _same("linalg.det"), "linalg.diagonal": _same("linalg.diagonal"),
    "linalg.eigh": _same("linalg.eigh"), "linalg.eigvalsh": _same("linalg.eigvalsh"),
    "linalg.eig": _same("linalg.eig"), "linalg.eigvals": _same("linalg.eigvals"),
    "linalg.inv": _same("linalg.inv"), "linalg.matrix_norm": _matrix_norm,
    "linalg.matrix_power": _same("linalg.matrix_power"), "linalg.matrix_rank": _matrix_rank,
    "linalg.outer": _same("outer"), "linalg.pinv": _pinv, "linalg.qr": _same("linalg.qr"),
    "linalg.slogdet": _same("linalg.slogdet"), "linalg.solve": _same("linalg.solve"),
    "linalg.svd": _same("linalg.svd"), "linalg.svdvals": _same("linalg.svdvals"),
    "linalg.trace": _trace, "linalg.vector_norm": _vector_norm,
    # manipulation and indexing
    "broadcast_arrays": lambda *a: torch.broadcast_tensors(*a),
    "broadcast_shapes": _broadcast_shapes, "broadcast_to": _same("broadcast_to"),
    "concat": _concat, "expand_dims": _expand_dims, "flip": _flip,
    "moveaxis": _same("movedim"), "permute_dims": _same("permute"), "repeat": _repeat,
    "reshape": _reshape, "roll": _roll, "squeeze": _squeeze, "stack": _same("stack"),
    "tile": _same("tile"), "unstack": _same("unbind"), "take": _take,
    "take_along_axis": _take_along_axis, "getitem": _getitem, "index_put": _index_put,
    # reductions
    "sum": _reduction("sum"), "prod": _reduction("prod", one_dim=True),
    "mean": _reduction("mean"), "std": _std("std"), "var": _std("var"),
    "max": _reduction("amax"), "min": _reduction("amin"),
    "cumulative_sum": _cumulative("cumsum"), "cumulative_prod": _cumulative("cumprod"),
    "all": _reduction("all"), "any": _reduction("any"), "diff": _diff,
    # searching, sorting, sets
    "argmax": _arg("argmax"), "argmin": _arg("argmin"), "count_nonzero": _count_nonzero,
    "nonzero": _nonzero, "searchsorted": _searchsorted, "where": _same("where"),
    "argsort": _argsort, "sort": _sort, "isin": _same("isin"),
    "unique_all": _unique_all, "unique_counts": _unique_counts,
    "unique_inverse": _unique_inverse, "unique_values": lambda x: torch.unique(x, sorted=True),
    # fft
    "fft.fft": _fft1("fft.fft"), "fft.ifft": _fft1("fft.ifft"), "fft.rfft": _fft1("fft.rfft"),
    "fft.irfft": _fft1("fft.irfft"), "fft.hfft": _fft1("fft.hfft"),
    "fft.ihfft": _fft1("fft.ihfft"), "fft.fftn": _fftn("fft.fftn"),
    "fft.ifftn": _fftn("fft.ifftn"), "fft.rfftn": _fftn("fft.rfftn"),
    "fft.irfftn": _fftn("fft.irfftn"), "fft.fftfreq": _fftfreq("fft.fftfreq"),
    "fft.rfftfreq": _fftfreq("fft.rfftfreq"), "fft.fftshift": _fftshift("fft.fftshift"),
    "fft.ifftshift": _fftshift("fft.ifftshift"),
    # arrayflow.special (SciPy's names and signatures; torch.special computes the same)
    **{f"special.{n}": _same(f"special.{n}") for n in (
        "erfc", "erfinv", "expit", "logit", "xlogy", "xlog1py", "entr", "sinc", "ndtr",
        "log_ndtr", "ndtri", "gammaln", "digamma", "i0", "i0e", "i1", "i1e")},
    "special.softmax": lambda x, axis=None: _special_softmax(x, axis, log=False),
    "special.log_softmax": lambda x, axis=None: _special_softmax(x, axis, log=True),
    "special.logsumexp": lambda x, axis=None, b=None, keepdims=False: torch.logsumexp(
        x if b is None else x + torch.log(b), dim=_special_dims(x, axis), keepdim=keepdims),
    **_TORCH_SPECIAL_GAMMA,
    **_TORCH_SPECIAL_INCOMPLETE,
    **_TORCH_SPECIAL_BESSEL,
    **_TORCH_SPECIAL_ELEMENTARY,
    **_TORCH_SPECIAL_INVERSE_GAMMA,
    **_TORCH_SPECIAL_INVERSE_BETA,
    **_TORCH_SPECIAL_HYPER,
}
"""Op name -> adapter computing the same call with PyTorch."""

TORCH_VJP: dict[str, Callable[..., Any]] = {
    "floor_divide": lambda x1, x2: torch.floor(torch.div(_scalar_as(x1, x2),
                                                         _scalar_as(x2, x1))),
}
"""Adapters used for gradients where torch's own op has no derivative (see DIFFERENCES)."""

NO_COUNTERPART: dict[str, str] = {
    "isdtype": "PyTorch has no dtype-kind predicate (only is_floating_point/is_complex "
               "on tensors); the array API's kinds ('real floating', 'integral', ...) have no "
               "torch spelling",
    "rechunk": "Dask chunk layout: PyTorch tensors are not chunked",
    "persist": "Dask evaluation control: PyTorch is eager",
    "special.rel_entr": "SciPy's relative entropy: torch.special has no rel_entr (checked "
                        "against SciPy and finite differences in tests/test_special.py)",
    "special.erfcinv": "SciPy's inverse complementary error function: torch.special has no "
                       "erfcinv, and erfinv(1 - y) loses the tail (checked against SciPy, "
                       "mpmath and finite differences in tests/test_special.py)",
    **_NO_COUNTERPART_SPECIAL_GAMMA,
    **_NO_COUNTERPART_SPECIAL_INCOMPLETE,
    **_NO_COUNTERPART_SPECIAL_BESSEL,
    **_NO_COUNTERPART_SPECIAL_ELEMENTARY,
    **_NO_COUNTERPART_SPECIAL_INVERSE_GAMMA,
    **_NO_COUNTERPART_SPECIAL_INVERSE_BETA,
    **_NO_COUNTERPART_SPECIAL_HYPER,
}
"""Ops without a PyTorch counterpart, with the reason."""

PIECEWISE = frozenset({
    "abs", "ceil", "floor", "round", "sign", "trunc", "maximum", "minimum", "clip", "max",
    "min", "remainder", "floor_divide", "copysign", "sort", "linalg.vector_norm",
    "linalg.matrix_norm", "hypot", "nextafter",
})
"""Ops not smooth everywhere (kinks, jumps): no second-order comparison (norms: ord=1/inf)."""


# --- deliberate differences -----------------------------------------------------------------

_DOC = "docs/pytorch-differences.md"

DIFFERENCES: dict[str, str] = {
    "can_cast-narrow": f"can_cast: the standard's same-kind-widening only ({_DOC})",
    "sum-uint8-upcast": f"sum of unsigned ints: the standard's uint64, torch's int64 ({_DOC})",
    "prod-uint8-upcast": f"prod of unsigned ints: the standard's uint64, torch's int64 ({_DOC})",
    "can_cast-uint-to-int": f"can_cast: the standard's promotion table ({_DOC})",
    "special.gammaln-special-values": f"gammaln(-inf): SciPy's -inf, torch's inf ({_DOC})",
    "special.zeta-special-values": f"zeta(x, inf): SciPy's 0, torch's NaN ({_DOC})",
    "special.polygamma-special-values": f"polygamma(n, inf): SciPy's 0, torch's NaN ({_DOC})",
    "special.gammainc-special-values": f"gammainc at NaN: SciPy's NaN, torch's 0 or 1 ({_DOC})",
    "special.gammaincc-special-values": f"gammaincc at NaN: SciPy's NaN, torch's 0 or 1 "
                                        f"({_DOC})",
    "special.gammainc-wide": f"gammainc for a > 20 near x = a: torch's igamma is off by up "
                             f"to 1.5e-9 (SciPy and mpmath agree with arrayflow) ({_DOC})",
    "special.gammaincc-wide": f"gammaincc for a > 20 near x = a: torch's igammac is off by up "
                              f"to 1.5e-9 (SciPy and mpmath agree with arrayflow) ({_DOC})",
}
"""Case ids (or ``"<case id>:vjp"``) where arrayflow follows the standard, not PyTorch."""


# --- conversion and comparison --------------------------------------------------------------

def to_torch(obj: Any) -> Any:
    """The case's NumPy-level inputs as torch's: arrays -> tensors (copies), dtypes -> torch's."""
    if isinstance(obj, Raw):
        return obj.value
    if isinstance(obj, _DTypeArg):
        return getattr(torch, obj.name)
    if isinstance(obj, np.ndarray):
        return torch.from_numpy(np.array(obj, copy=True))
    if isinstance(obj, dict):
        return {k: to_torch(v) for k, v in obj.items()}
    if isinstance(obj, (tuple, list)):
        return type(obj)(to_torch(v) for v in obj)
    return obj


def torch_dtype_name(dtype: Any) -> str:
    """``torch.float32`` -> ``"float32"``."""
    return str(dtype).removeprefix("torch.")


def oracle_tolerance(dtype_name: str, case: OpCase | None = None) -> tuple[float, float] | None:
    """``(rtol, atol)`` against torch: the case's own where looser, None (exact) for ints."""
    base = {"float32": (1e-5, 1e-6), "complex64": (1e-5, 1e-6),
            "float64": (1e-10, 1e-12), "complex128": (1e-10, 1e-12)}.get(dtype_name)
    if base is None:
        return None
    if case is not None and dtype_name in case.tol:
        r, a = case.tol[dtype_name]
        base = (max(base[0], r), max(base[1], a))
    return base


def _host(x):
    """A torch or arrayflow Tensor (or raw value) as a NumPy array / Python value."""

    if isinstance(x, af.Tensor):
        return x.detach().numpy()
    if type(x).__module__.startswith("torch") and hasattr(x, "detach"):
        return x.detach().resolve_conj().numpy()
    return x


def assert_same(got: Any, want: Any, where: str, case: OpCase | None = None, *, values: bool = True,
                scale: float = 1.0) -> None:
    """Assert arrayflow's ``got`` equals torch's ``want``: structure, dtype, shape, values.

    Parameters
    ----------
    got, want
        arrayflow and torch results (Tensors, nested tuples of them, or raw values).
    where : str
        Names the comparison in the failure message.
    case : OpCase, optional
        Supplies looser tolerances (linear algebra) and ``canon`` (decompositions).
    values : bool
        False compares dtype and shape only (random and uninitialized results).
    scale : float
        Multiplies the tolerances (second derivatives accumulate more rounding).
    """

    if isinstance(want, (tuple, list)) and not isinstance(got, af.Tensor):
        assert isinstance(got, (tuple, list)), f"{where}: expected a sequence, got {got!r}"
        assert len(got) == len(want), f"{where}: {len(got)} items, torch has {len(want)}"
        if case is not None and case.canon is not None and values:
            g = case.canon(type(got)(*[_host(t) for t in got]) if hasattr(got, "_fields")
                           else tuple(_host(t) for t in got))
            w = case.canon(type(got)(*[_host(t) for t in want]) if hasattr(got, "_fields")
                           else tuple(_host(t) for t in want))
            for i, (a, b) in enumerate(zip(got, want)):
                _check_meta(a, b, f"{where}[{i}]")
            for i, (a, b) in enumerate(zip(g, w)):
                _close(a, b, f"{where}[{i}]", case, scale)
            return
        for i, (a, b) in enumerate(zip(got, want)):
            assert_same(a, b, f"{where}[{i}]", case, values=values, scale=scale)
        return
    if isinstance(got, af.Tensor):
        _check_meta(got, want, where)
        if not values:
            return
        g, w = _host(got), _host(want)
        if case is not None and case.canon is not None:
            g, w = case.canon(g), case.canon(w)
        _close(g, w, where, case, scale)
        return
    if isinstance(got, af.DType):
        assert got.name == torch_dtype_name(want), f"{where}: {got.name}, torch {want}"
        return
    if hasattr(got, "bits"):  # finfo / iinfo
        for name in ("bits", "eps", "max", "min"):
            if hasattr(want, name):
                assert getattr(got, name) == getattr(want, name), (
                    f"{where}.{name}: {getattr(got, name)!r}, torch {getattr(want, name)!r}")
        if hasattr(want, "smallest_normal"):
            assert got.smallest_normal == want.smallest_normal, where
        return
    assert got == want, f"{where}: {got!r}, torch {want!r}"


def _check_meta(got, want, where):

    assert isinstance(got, af.Tensor), f"{where}: expected a Tensor, got {type(got).__name__}"
    assert got.dtype.name == torch_dtype_name(want.dtype), (
        f"{where}: dtype {got.dtype.name}, torch {torch_dtype_name(want.dtype)}")
    assert tuple(got.shape) == tuple(want.shape), (
        f"{where}: shape {tuple(got.shape)}, torch {tuple(want.shape)}")


def _close(g, w, where, case, scale):
    g, w = np.asarray(g), np.asarray(w)
    tol = oracle_tolerance(w.dtype.name, case)
    if tol is None:
        np.testing.assert_array_equal(g, w, err_msg=where)
    else:
        np.testing.assert_allclose(g, w, rtol=tol[0] * scale, atol=tol[1] * scale,
                                   equal_nan=True, err_msg=where)


# --- the cases ------------------------------------------------------------------------------

def _a(shape, dtype, low=-2.0, high=2.0):
    """Spec: like :func:`arrayflow.testing.cases._arr`, always an ndarray (0-d included)."""
    return lambda rng: np.asarray(_arr(rng, shape, dtype, low, high), dtype=dtype)


def _extra_cases() -> list[OpCase]:
    """0-d, empty, broadcasting and negative-axis cases the NumPy table does not need."""
    f32, f64 = "float32", "float64"
    c = []
    for name, (low, high, dtypes) in _UNARY.items():
        for d in dtypes:
            if d in FLOATS:
                c.append(OpCase(name, _inputs(_a((), d, low, high)), label=f"0d-{d}"))
        d = dtypes[0]
        c.append(OpCase(name, _inputs(_a((0, 3), d, low, high)), label=f"empty-{d}"))
        if "complex128" in dtypes:  # the table has complex128; complex64 and 0-d here
            c += [OpCase(name, _inputs(_a((2, 3), "complex64", low, high)), label="complex64"),
                  OpCase(name, _inputs(_a((), "complex128", low, high)), label="0d-complex128")]
    c.append(OpCase("erf", _inputs(_a((), f64)), label="0d-float64"))
    c.append(OpCase("erf", _inputs(_a((0,), f32)), label="empty-float32"))
    smooth_binary = {"add": None, "subtract": None, "multiply": None,
                     "divide": _away, "atan2": None, "hypot": None, "logaddexp": None,
                     "maximum": None, "minimum": None}
    for name, den in smooth_binary.items():
        spec: Callable[..., Any] = (
            (lambda s, d, den=den: den(s, d)) if den else (lambda s, d: _a(s, d)))
        c += [OpCase(name, _inputs(_a((2, 1, 3), f64), spec((4, 1), f64)),
                     label="broadcast-3d-float64"),
              OpCase(name, _inputs(_a((), f32), spec((2, 3), f32)), label="0d-with-2d-float32"),
              OpCase(name, _inputs(_a((0, 3), f64), spec((3,), f64)), label="empty-broadcast"),
              OpCase(name, _inputs(_a((3,), f32), spec((2, 3), f64)),
                     label="promote-broadcast")]
    for name in ("add", "multiply", "pow", "maximum", "atan2"):  # mixed kinds: PyTorch's rule
        c.append(OpCase(name, _inputs(_a((2, 3), f32, 0.5, 2), _a((3,), "int64", 0, 3)),
                        label="mixed-float32-int64"))
    for name in ("isclose", "allclose"):
        c += [OpCase(name, _inputs(_a((2, 3), f64), _a((3,), f64)), label="broadcast"),
              OpCase(name, lambda rng: ((x := _a((2, 3), f32)(rng), x + np.float32(1e-6)),
                                        {"rtol": 1e-3, "atol": 0.0}), label="close-float32"),
              OpCase(name, lambda rng: ((np.asarray([1.0, np.nan]), np.asarray([1.0, np.nan])),
                                        {"equal_nan": True}), label="equal-nan")]
    c.append(OpCase("where", _inputs(_a((2, 3), "bool"), _a((2, 3), f32), _a((3,), "int32")),
                    label="mixed-float32-int32"))
    for name in ("add", "multiply", "divide", "pow"):
        c.append(OpCase(name, _inputs(_a((2, 1, 3), "complex64", 0.5, 1.5),
                                      _a((4, 1), "complex64", 0.5, 1.5)),
                        label="broadcast-complex64"))
    c.append(OpCase("pow", _inputs(_a((2, 1, 3), f64, 0.5, 2), _a((4, 1), f64)),
                    label="broadcast-3d-float64"))
    c.append(OpCase("pow", _inputs(_a((), f64, 0.5, 2), _a((3,), f64)), label="0d-base"))
    c.append(OpCase("where", _inputs(_a((2, 1, 3), "bool"), _a((4, 1), f64), _a((), f64)),
                    label="broadcast-3d-0d"))
    for name in ("sum", "prod", "mean", "max", "min"):
        lo, hi = (0.5, 1.5) if name == "prod" else (-2, 2)
        c += [OpCase(name, _inputs(_a((2, 3, 4), f64, lo, hi), kwargs={"axis": -1}),
                     label="axis-negative"),
              OpCase(name, _inputs(_a((2, 3, 4), f32, lo, hi),
                                   kwargs={"axis": (0, -1), "keepdims": True}),
                     label="axes-negative-keepdims"),
              OpCase(name, _inputs(_a((), f64, lo, hi)), label="0d")]
    for name in ("sum", "prod"):
        c.append(OpCase(name, _inputs(_a((0, 3), f64), kwargs={"axis": 0}), label="empty-axis0"))
    for name in ("std", "var"):
        c += [OpCase(name, _inputs(_a((3, 4), f64), kwargs={"axis": -1, "correction": 1}),
                     label="axis-negative"),
              OpCase(name, _inputs(_a((2, 3, 4), f32), kwargs={"axis": (-1, 0),
                                                               "keepdims": True}),
                     label="axes-negative-keepdims")]
    for name in ("cumulative_sum", "cumulative_prod"):
        lo, hi = (0.5, 1.5) if name == "cumulative_prod" else (-2, 2)
        c += [OpCase(name, _inputs(_a((3, 4), f64, lo, hi), kwargs={"axis": -1}),
                     label="axis-negative"),
              OpCase(name, _inputs(_a((0,), f64)), label="empty")]
    for name in ("argmax", "argmin"):
        c.append(OpCase(name, _inputs(_a((3, 4), f64), kwargs={"axis": -1}),
                        label="axis-negative"))
    c += [
        OpCase("concat", lambda rng: (([_a((2, 3), f64)(rng), _a((2, 1), f64)(rng)],),
                                      {"axis": -1}), label="axis-negative"),
        OpCase("stack", lambda rng: (([_a((2, 3), f64)(rng), _a((2, 3), f64)(rng)],),
                                     {"axis": -2}), label="axis-negative"),
        OpCase("stack", lambda rng: (([_a((), f64)(rng), _a((), f64)(rng)],), {}), label="0d"),
        OpCase("squeeze", _inputs(_a((2, 1), f64), kwargs={"axis": -1}), label="axis-negative"),
        OpCase("moveaxis", _inputs(_a((2, 3, 4), f64), extra=(-1, -3)), label="negative"),
        OpCase("take", _inputs(_a((3, 4), f64), _a((5,), "int64", 0, 4), kwargs={"axis": -1}),
               label="axis-negative"),
        OpCase("unstack", _inputs(_a((2, 3), f64), kwargs={"axis": -1}),
               label="axis-negative"),
        OpCase("flip", _inputs(_a((), f64)), label="0d"),
        OpCase("getitem", _inputs(_a((2, 3), f64), extra=((-1, np.asarray([0, -1, 2])),)),
               label="negative-int-with-array"),
        OpCase("getitem", _inputs(_a((3, 2), f64), extra=((np.asarray([[1], [-3]]), -1),)),
               label="array-with-negative-int"),
        OpCase("getitem", _inputs(_a((0, 2), f64), extra=((slice(None), slice(1, None)),)),
               label="empty"),
        OpCase("getitem", _inputs(_a((), f64), extra=((None, Ellipsis),)), label="0d-newaxis"),
        OpCase("getitem", _inputs(_a((2, 3), f64), extra=((slice(None, 0),),)),
               label="empty-result"),
        OpCase("getitem", lambda rng: ((_a((3, 2, 2), f64)(rng),
                                        np.asarray([True, False, True])), {}),
               label="boolean-mask-leading-axis", lazy=False, lazy_note=_NOT_LAZY_SHAPE),
        OpCase("getitem", lambda rng: ((_a((0, 2), f64)(rng), np.zeros((0,), bool)), {}),
               label="boolean-mask-empty", lazy=False, lazy_note=_NOT_LAZY_SHAPE),
        OpCase("reshape", _inputs(_a((0, 3), f64), extra=((3, 0),)), label="empty"),
        OpCase("broadcast_to", _inputs(_a((), f64), extra=((2, 3),)), label="0d"),
        OpCase("expand_dims", _inputs(_a((), f64), kwargs={"axis": 0}), label="0d"),
        OpCase("matmul", _inputs(_a((3, 0), f64), _a((0, 2), f64)), label="empty-inner"),
        OpCase("matmul", _inputs(_a((4, 2, 3), f64), _a((3,), f64)), label="batch-vec",
               tol=LIN),
        OpCase("linalg.vector_norm", _inputs(_a((3, 4), f64), kwargs={"axis": -1}),
               label="axis-negative", tol=LIN),
        OpCase("linalg.vector_norm", _inputs(_a((), f64)), label="0d", tol=LIN),
        OpCase("vecdot", _inputs(_a((2, 1, 3), f64), _a((4, 3), f64)),
               label="broadcast-3d", tol=LIN),
        OpCase("clip", _inputs(_a((2, 3), f64), _a((3,), f64, -1, 0), _a((2, 1), f64, 0, 1)),
               label="broadcast-bounds"),
        OpCase("clip", _inputs(_a((), f32), extra=(-0.5, 0.5)), label="0d"),
        OpCase("sort", _inputs(_a((0, 3), f64)), label="empty"),
        OpCase("sort", _inputs(_a((3, 4), f32), kwargs={"axis": -2}), label="axis-negative"),
        OpCase("argsort", _inputs(_a((4,), f64), kwargs={"axis": -1, "descending": True}),
               label="descending-negative"),
        OpCase("argmax", _inputs(_a((), f64)), label="0d"),
        OpCase("take_along_axis", lambda rng: ((_a((3, 4), f64)(rng),
                                                rng.integers(-4, 4, (3, 2))), {"axis": -1}),
               label="negative-indices"),
        OpCase("take", _inputs(_a((5,), f64), extra=(np.asarray([-1, 0, -5]),)),
               label="negative-indices"),
        OpCase("roll", _inputs(_a((3, 4), f64), extra=(-5,), kwargs={"axis": -2}),
               label="negative"),
        OpCase("diff", _inputs(_a((3, 4), f64), kwargs={"axis": -2}), label="axis-negative"),
        OpCase("tensordot", _inputs(_a((2, 0), f64), _a((0, 3), f64), kwargs={"axes": 1}),
               label="empty-contraction"),
        OpCase("linalg.det", _inputs(_a((0, 3, 3), f64)), label="empty-batch"),
        OpCase("linalg.inv", _inputs(lambda rng: np.asarray(4.0 * np.eye(2) + 0.1)[None]),
               label="batch-1"),
        OpCase("cumulative_sum", _inputs(_a((), f64)), label="0d"),
        OpCase("cumulative_prod", _inputs(_a((), f64)), label="0d"),
        OpCase("cumulative_sum", _inputs(_a((), "int32", -5, 5)), label="0d-int32"),
        OpCase("concat", lambda rng: (([_a((0, 3), f64)(rng), _a((2, 3), f64)(rng)],), {}),
               label="with-empty"),
        OpCase("stack", lambda rng: (([_a((0,), f64)(rng), _a((0,), f64)(rng)],),
                                     {"axis": -1}), label="empty"),
        OpCase("mean", _inputs(_a((2, 0), f64), kwargs={"axis": -1}), label="empty-axis"),
        OpCase("linalg.vector_norm", _inputs(_a((0, 3), f64), kwargs={"axis": 0}),
               label="empty-axis"),
        OpCase("where", _inputs(_a((), "bool"), _a((), f64), _a((2,), f64)), label="0d-cond"),
    ]
    return c


ORACLE_CASES = LazyCases(
    lambda: (c for c in CASES + tuple(_extra_cases()) if c.op in TORCH), "ORACLE_CASES")
"""Every case compared with PyTorch (the table's cases of mapped ops, then the extra ones)."""
