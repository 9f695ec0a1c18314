"""Tensor methods and operators against torch.Tensor's, called the PyTorch way.

The standard defines only the operators and a few attributes of an array; every other method
follows PyTorch (``t.sum(1, keepdim=True)``, ``t.std()`` with ``correction=1``,
``t.squeeze(0)`` a no-op on a non-1 axis, ``t.sort(1)`` returning values and indices...). Each
call below is written once, with torch's spelling, and run on both Tensors: result structure,
dtypes, shapes and values, and the gradient of the input, on every backend.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

import arrayflow as af
from arrayflow.testing.oracle import assert_same, oracle_tolerance

torch = pytest.importorskip("torch")


class T:
    """A tensor operand: ``T(shape, dtype, low, high)``."""

    def __init__(self, shape, dtype="float64", low=-2.0, high=2.0):
        self.shape, self.dtype, self.low, self.high = shape, dtype, low, high

    def make(self, rng):
        a = rng.uniform(self.low, self.high, self.shape)
        return np.asarray(np.round(a) if self.dtype.startswith("int") else a, dtype=self.dtype)


X = T((3, 4))
POS = T((3, 4), low=0.5, high=2.0)
UNIT = T((3, 4), low=-0.9, high=0.9)
X3 = T((2, 3, 4))
I = T((3, 4), "int64", -5, 5)
B = T((3, 4), "bool")

# (id, method, self, args, kwargs, differentiable)
METHODS = [
    (n, n, s, (), {}, d) for n, s, d in [
        ("abs", X, True), ("acos", UNIT, True), ("acosh", T((3, 4), low=1.1, high=3), True),
        ("asin", UNIT, True), ("asinh", X, True), ("atan", X, True), ("atanh", UNIT, True),
        ("ceil", X, True), ("cos", X, True), ("cosh", X, True), ("exp", X, True),
        ("expm1", X, True), ("floor", X, True), ("log", POS, True), ("log10", POS, True),
        ("log1p", POS, True), ("log2", POS, True), ("neg", X, True), ("negative", X, True),
        ("positive", X, True), ("reciprocal", POS, True), ("round", X, True), ("sign", X, True),
        ("sin", X, True), ("sinh", X, True), ("sqrt", POS, True), ("square", X, True),
        ("tan", UNIT, True), ("tanh", X, True), ("trunc", X, True), ("conj", X, True),
        ("isfinite", X, False), ("isinf", X, False), ("isnan", X, False),
        ("signbit", X, False), ("logical_not", B, False), ("bitwise_not", I, False),
        ("t", T((3, 4)), True), ("clone", X, True), ("detach", X, False),
        ("float", X, True), ("double", T((3, 4), "float32"), True), ("long", X, False),
        ("flatten", X3, True), ("nonzero", I, False), ("argsort", X, False),
        ("sum", X, True), ("mean", X, True), ("prod", POS, True), ("std", X, True),
        ("var", X, True), ("max", X, True), ("min", X, True), ("argmax", X, False),
        ("argmin", X, False), ("all", B, False), ("any", B, False), ("squeeze", T((1, 3, 1)),
                                                                          True),
        ("numel", X, False), ("dim", X, False), ("size", X, False), ("tolist", X, False),
    ]
] + [
    ("sum-dim-keepdim", "sum", X3, (1,), {"keepdim": True}, True),
    ("sum-dims-negative", "sum", X3, ((0, -1),), {}, True),
    ("sum-dtype", "sum", I, (), {"dtype": "float64"}, False),
    ("mean-dim", "mean", X3, (-1,), {}, True),
    ("prod-dim", "prod", T((2, 3), low=0.5, high=1.5), (1,), {"keepdim": True}, True),
    ("std-dim", "std", X3, (1,), {}, True),
    ("std-correction0", "std", X, (), {"correction": 0}, True),
    ("var-dim-keepdim", "var", X3, (0,), {"keepdim": True}, True),
    ("var-unbiased-false", "var", X, (), {"unbiased": False}, True),
    ("max-dim", "max", X, (1,), {}, True),
    ("min-dim-keepdim", "min", X, (0,), {"keepdim": True}, True),
    ("max-dim-keepdim-kw", "max", X3, (), {"dim": -1, "keepdim": True}, True),
    ("max-other", "max", X, (X,), {}, True),
    ("amax-dims", "amax", X3, ((0, 2),), {}, True),
    ("argmax-dim", "argmax", X, (1,), {"keepdim": True}, False),
    ("all-dim", "all", B, (1,), {}, False),
    ("cumsum-dim", "cumsum", X, (1,), {}, True),
    ("cumsum-dim-kw", "cumsum", X, (), {"dim": 0}, True),
    ("cumprod-dim", "cumprod", POS, (0,), {}, True),
    ("sort-dim", "sort", X, (1,), {}, True),
    ("sort-descending", "sort", X, (), {"dim": 0, "descending": True}, True),
    ("argsort-dim", "argsort", X, (0,), {}, False),
    ("squeeze-dim", "squeeze", T((1, 3, 1)), (0,), {}, True),
    ("squeeze-dim-not-1", "squeeze", T((2, 3)), (0,), {}, True),
    ("squeeze-dims", "squeeze", T((1, 3, 1)), ((0, 2),), {}, True),
    ("unsqueeze", "unsqueeze", X, (1,), {}, True),
    ("unsqueeze-negative", "unsqueeze", X, (-1,), {}, True),
    ("view", "view", X, (4, 3), {}, True),
    ("view-tuple", "view", X, ((2, -1),), {}, True),
    ("reshape", "reshape", X, (2, 6), {}, True),
    ("reshape-tuple", "reshape", X, ((-1,),), {}, True),
    ("permute", "permute", X3, (2, 0, 1), {}, True),
    ("permute-tuple", "permute", X3, ((1, 2, 0),), {}, True),
    ("transpose", "transpose", X3, (0, 2), {}, True),
    ("transpose-negative", "transpose", X3, (-1, -2), {}, True),
    ("flatten-range", "flatten", X3, (1,), {}, True),
    ("flatten-start-end", "flatten", X3, (0, 1), {}, True),
    ("expand", "expand", T((3, 1)), (3, 4), {}, True),
    ("expand-minus-one", "expand", T((3, 1)), (2, -1, 5), {}, True),
    ("expand_as", "expand_as", T((3, 1)), (X,), {}, True),
    ("roll", "roll", X, (1, 0), {}, True),
    ("roll-dims", "roll", X, ((1, -1), (0, 1)), {}, True),
    ("flip", "flip", X, (0,), {}, True),
    ("flip-dims", "flip", X3, ((0, 2),), {}, True),
    ("tile", "tile", X, ((2, 1),), {}, True),
    ("repeat_interleave", "repeat_interleave", X, (2,), {"dim": 0}, True),
    ("clamp", "clamp", X, (-0.5, 0.5), {}, True),
    ("clamp-min", "clamp", X, (), {"min": 0.0}, True),
    ("clip", "clip", X, (-1.0, 1.0), {}, True),
    ("take", "take", X, (T((5,), "int64", 0, 11),), {}, True),
    ("tril", "tril", X, (1,), {}, True),
    ("triu-diagonal", "triu", X, (), {"diagonal": -1}, True),
    ("add", "add", X, (T((4,)),), {}, True),
    ("add-alpha", "add", X, (T((4,)),), {"alpha": 2.0}, True),
    ("sub", "sub", X, (1.5,), {}, True),
    ("mul", "mul", X, (T((3, 1)),), {}, True),
    ("div", "div", X, (POS,), {}, True),
    ("div-floor", "div", X, (POS,), {"rounding_mode": "floor"}, False),
    ("div-int-true", "div", I, (3,), {}, False),
    ("pow-scalar", "pow", POS, (2.5,), {}, True),
    ("pow-tensor", "pow", POS, (X,), {}, True),
    ("matmul", "matmul", X, (T((4, 2)),), {}, True),
    ("mm", "mm", X, (T((4, 2)),), {}, True),
    ("maximum", "maximum", X, (X,), {}, True),
    ("atan2", "atan2", X, (POS,), {}, True),
    ("hypot", "hypot", X, (X,), {}, True),
    ("logaddexp", "logaddexp", X, (X,), {}, True),
    ("remainder", "remainder", X, (POS,), {}, True),
    ("floor_divide", "floor_divide", X, (POS,), {}, False),
    ("eq", "eq", I, (I,), {}, False),
    ("ne", "ne", I, (0,), {}, False),
    ("greater", "greater", X, (X,), {}, False),
    ("less_equal", "less_equal", X, (0.0,), {}, False),
    ("logical_and", "logical_and", B, (B,), {}, False),
    ("bitwise_and", "bitwise_and", I, (I,), {}, False),
    ("to-float32", "to", X, ("float32",), {}, True),
    ("to-dtype-kw", "to", X, (), {"dtype": "float32"}, True),
    ("size-dim", "size", X3, (1,), {}, False),
    ("size-negative", "size", X3, (-1,), {}, False),
    ("item", "item", T(()), (), {}, False),
    ("numel-0d", "numel", T(()), (), {}, False),
    ("norm", "norm", X, (), {}, True),
    ("norm-p1-dim", "norm", X, (1, 1), {}, True),
    ("allclose", "allclose", X, (X,), {}, False),
    ("view_as", "view_as", X, (T((4, 3)),), {}, True),
    ("type_as", "type_as", X, (T((2,), "float32"),), {}, True),
    ("index_select", "index_select", X, (1, T((3,), "int64", 0, 3)), {}, True),
    ("gather", "gather", X, (1, T((3, 2), "int64", 0, 3)), {}, True),
    ("narrow", "narrow", X, (1, 1, 2), {}, True),
    ("split", "split", X, (2, 1), {}, True),
    ("split-sizes", "split", X, ([1, 3], 1), {}, True),
    ("chunk", "chunk", X, (2, 0), {}, True),
    ("masked_select", "masked_select", X, (B,), {}, True),
    ("masked_fill", "masked_fill", X, (B, 0.5), {}, True),
    ("topk", "topk", X, (2,), {}, True),
    ("topk-smallest", "topk", X, (2, 0), {"largest": False}, True),
    ("logsumexp", "logsumexp", X, (1,), {}, True),
    ("rsqrt", "rsqrt", POS, (), {}, True),
    ("erf", "erf", X, (), {}, True),
    ("sigmoid", "sigmoid", X, (), {}, True),
    ("relu", "relu", X, (), {}, True),
    ("softmax", "softmax", X, (1,), {}, True),
    ("log_softmax", "log_softmax", X, (-1,), {}, True),
    ("dot", "dot", T((4,)), (T((4,)),), {}, True),
    ("mv", "mv", X, (T((4,)),), {}, True),
    ("bmm", "bmm", X3, (T((2, 4, 2)),), {}, True),
    ("outer", "outer", T((3,)), (T((4,)),), {}, True),
    ("repeat", "repeat", X, (2, 1), {}, True),
    ("movedim", "movedim", X3, (0, -1), {}, True),
    ("lerp", "lerp", X, (X, 0.3), {}, True),
    ("addcmul", "addcmul", X, (X, POS), {"value": 0.5}, True),
    ("std-unbiased-dim", "std", X3, (1,), {"unbiased": False, "keepdim": True}, True),
    ("is_floating_point", "is_floating_point", X, (), {}, False),
    ("is_complex", "is_complex", X, (), {}, False),
    ("nelement", "nelement", X, (), {}, False),
    ("element_size", "element_size", X, (), {}, False),
    ("int", "int", X, (), {}, False),
    ("bool", "bool", X, (), {}, False),
    ("contiguous", "contiguous", X, (), {}, True),
    ("clamp_min", "clamp_min", X, (0.0,), {}, True),
    ("clamp_max", "clamp_max", X, (0.0,), {}, True),
    ("expm1-0d", "expm1", T(()), (), {}, True),
    ("sum-empty", "sum", T((0, 3)), (0,), {}, True),
    ("mean-dims-keepdim", "mean", X3, ((0, 1),), {"keepdim": True}, True),
]

# In-place methods, on ``x * 1`` (a non-leaf) so that the gradient flows to ``x``.
INPLACE = [
    ("add_", (X,), {}), ("add_-alpha", (X,), {"alpha": 0.5}), ("sub_", (1.5,), {}),
    ("mul_", (T((4,)),), {}), ("div_", (POS,), {}), ("pow_", (2.0,), {}),
    ("clamp_", (-0.5, 0.5), {}), ("copy_", (T((4,)),), {}), ("fill_", (0.25,), {}),
    ("zero_", (), {}), ("masked_fill_", (B, -1.0), {}), ("exp_", (), {}),
    ("tanh_", (), {}), ("neg_", (), {}), ("abs_", (), {}), ("sqrt_", (), {}),
    ("addcmul_", (X, POS), {"value": 2.0}), ("lerp_", (X, 0.5), {}),
]

DIFFERENCES: dict[str, str] = {}
"""Method calls where arrayflow deliberately differs (skipped with the reason)."""

XFAIL: dict[str, str] = {}
"""Method ids with a known mismatch (strict xfails: they flip when fixed)."""

OPERATORS = [
    ("__add__", operator.add, X, T((4,))), ("__radd__", lambda a, b: 2.0 + a, X, None),
    ("__sub__", operator.sub, X, X), ("__rsub__", lambda a, b: 1 - a, X, None),
    ("__mul__", operator.mul, X, T((3, 1))), ("__rmul__", lambda a, b: 3 * a, X, None),
    ("__truediv__", operator.truediv, X, POS), ("__rtruediv__", lambda a, b: 1.0 / a, POS, None),
    ("__floordiv__", operator.floordiv, X, POS), ("__mod__", operator.mod, X, POS),
    ("__pow__", operator.pow, POS, X), ("__rpow__", lambda a, b: 2.0 ** a, X, None),
    ("__matmul__", operator.matmul, X, T((4, 2))), ("__neg__", lambda a, b: -a, X, None),
    ("__pos__", lambda a, b: +a, X, None), ("__abs__", lambda a, b: abs(a), X, None),
    ("__lt__", operator.lt, X, X), ("__le__", operator.le, X, 0.0),
    ("__gt__", operator.gt, X, X), ("__ge__", operator.ge, X, X),
    ("__eq__", operator.eq, I, I), ("__ne__", operator.ne, I, 1),
    ("__and__", operator.and_, I, I), ("__or__", operator.or_, B, B),
    ("__xor__", operator.xor, I, I), ("__invert__", lambda a, b: ~a, I, None),
    ("__lshift__", operator.lshift, T((3, 4), "int64", 0, 5), T((4,), "int64", 0, 3)),
    ("__rshift__", operator.rshift, T((3, 4), "int64", 0, 50), 2),
    ("__getitem__", lambda a, b: a[1:, ::2], X, None),
    ("__pow__-int", operator.pow, X, 2), ("__mul__-int-tensor", operator.mul, X, I),
]


def _dtype(lib, name):
    return getattr(lib, name)


def _convert(obj, lib, rng_arrays):
    if isinstance(obj, T):
        a = rng_arrays.pop(0)
        return torch.from_numpy(a.copy()) if lib is torch else af.asarray(a)
    if isinstance(obj, str) and obj.startswith(("float", "int")):
        return _dtype(lib, obj)
    if isinstance(obj, tuple):
        return tuple(_convert(o, lib, rng_arrays) for o in obj)
    if isinstance(obj, dict):
        return {k: _convert(v, lib, rng_arrays) for k, v in obj.items()}
    return obj


def _arrays(spec, rng):
    out = []

    def walk(o):
        if isinstance(o, T):
            out.append(o.make(rng))
        elif isinstance(o, tuple):
            for e in o:
                walk(e)
        elif isinstance(o, dict):
            for e in o.values():
                walk(e)
    walk(spec)
    return out


def _run(lib, fn, self_spec, args, kwargs, rng_seed, grad):
    arrays = _arrays((self_spec, args, kwargs), np.random.default_rng(rng_seed))
    x, args, kwargs = _convert((self_spec, args, kwargs), lib, list(arrays))
    if grad:
        x = x.requires_grad_() if lib is torch else x.detach().requires_grad_()
    return x, fn(x, *args, **kwargs)


def _compare_grad(a_x, a_out, t_x, t_out, where):
    t_outs = [o for o in (t_out if isinstance(t_out, tuple) else (t_out,))
              if isinstance(o, torch.Tensor) and o.requires_grad]
    a_outs = [o for o in (a_out if isinstance(a_out, tuple) else (a_out,))
              if isinstance(o, af.Tensor) and o.requires_grad]
    assert len(a_outs) == len(t_outs), f"{where}: differentiable outputs differ"
    if not t_outs:
        return
    rng = np.random.default_rng(5)
    ws = [np.asarray(rng.uniform(-1, 1, tuple(o.shape)), dtype=str(o.dtype)[6:]) for o in t_outs]
    (t_g,) = torch.autograd.grad(t_outs, [t_x], [torch.from_numpy(w) for w in ws])
    (a_g,) = af.autograd.grad(a_outs, [a_x], [af.asarray(w) for w in ws])
    rtol, atol = oracle_tolerance(str(t_g.dtype)[6:])
    np.testing.assert_allclose(a_g.numpy(), t_g.numpy(), rtol=rtol * 10, atol=atol * 10,
                               err_msg=f"{where}: gradient")


@pytest.mark.parametrize(
    ("mid", "name", "self_spec", "args", "kwargs", "grad"),
    [pytest.param(*m, id=m[0], marks=[pytest.mark.xfail(strict=True, reason=XFAIL[m[0]])]
                  if m[0] in XFAIL else []) for m in METHODS])
def test_method_matches_torch(mid, name, self_spec, args, kwargs, grad, backend):
    if mid in DIFFERENCES:
        pytest.skip(f"deliberate difference: {DIFFERENCES[mid]}")
    t_x, want = _run(torch, lambda x, *a, **k: getattr(x, name)(*a, **k), self_spec, args,
                     kwargs, 0, grad)
    with af.allow_compute():  # nonzero: a data-dependent shape (Dask computes it)
        a_x, got = _run(af, lambda x, *a, **k: getattr(x, name)(*a, **k), self_spec, args,
                        kwargs, 0, grad)
    if isinstance(want, torch.Size):
        want = tuple(want)
    assert_same(got, want, f"t.{mid}")
    if grad:
        _compare_grad(a_x, got, t_x, want, f"t.{mid}")


@pytest.mark.parametrize(("name", "fn", "left", "right"), OPERATORS,
                         ids=[o[0] for o in OPERATORS])
def test_operator_matches_torch(name, fn, left, right, backend):
    grad = left.dtype.startswith("float") and name not in (
        "__lt__", "__le__", "__gt__", "__ge__", "__floordiv__")
    t_x, want = _run(torch, fn, left, (right,), {}, 1, grad)
    a_x, got = _run(af, fn, left, (right,), {}, 1, grad)
    assert_same(got, want, name)
    if grad:
        _compare_grad(a_x, got, t_x, want, name)


@pytest.mark.parametrize(("mid", "args", "kwargs"), INPLACE, ids=[m[0] for m in INPLACE])
def test_inplace_method_matches_torch(mid, args, kwargs, backend):
    """``y = x * 1; y.<method>_(...)``: values, the returned object, and the gradient of x."""
    name = mid.split("-")[0]
    self_spec = POS if name == "sqrt_" else X

    def call(x, *a, **k):
        y = x * 1.0
        out = getattr(y, name)(*a, **k)
        assert out is y, f"{name} returns self"
        return y

    t_x, want = _run(torch, call, self_spec, args, kwargs, 2, True)
    a_x, got = _run(af, call, self_spec, args, kwargs, 2, True)
    assert_same(got, want, f"t.{mid}")
    _compare_grad(a_x, got, t_x, want, f"t.{mid}")


COMPARED_METHODS = sorted({m[1] for m in METHODS} | {o[0].split("-")[0] for o in OPERATORS}
                          | {m[0].split("-")[0] for m in INPLACE})
"""Tensor methods and operators compared with torch here (counted by test_coverage.py)."""
