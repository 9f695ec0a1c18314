"""The PyTorch surface a porter reaches for (issue 12, section 2): in-place methods and
the leaf rule, clamp with Tensor bounds, allclose/isclose, norm/linalg.norm, movedim,
format of 0-d Tensors, and the std/var METHOD defaults. Each compared with torch on
numpy, strict and dask."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from conftest import on_backend

import arrayflow as af

torch = pytest.importorskip("torch")

BACKENDS = ["numpy", "strict", "dask"]
RNG = np.random.default_rng(12)
X = RNG.standard_normal((3, 4))
Y = RNG.standard_normal((3, 4)) + 2.0
P = RNG.uniform(0.5, 2.0, (3, 4))


def _close(ours, theirs, rtol=1e-7, atol=0.0):
    o = ours.detach().numpy() if isinstance(ours, af.Tensor) else np.asarray(ours)
    t = theirs.detach().numpy() if isinstance(theirs, torch.Tensor) else np.asarray(theirs)
    np.testing.assert_allclose(o, t, rtol=rtol, atol=atol)


# (name, args builder (af module or torch, value) -> args, kwargs, data)
INPLACE = [
    ("add_", lambda m, t: ((t(Y),), {}), X),
    ("add_", lambda m, t: ((t(Y),), {"alpha": -0.5}), X),
    ("add_", lambda m, t: ((2.5,), {}), X),
    ("sub_", lambda m, t: ((t(Y),), {"alpha": 3}), X),
    ("mul_", lambda m, t: ((t(Y),), {}), X),
    ("mul_", lambda m, t: ((t(Y[0]),), {}), X),  # broadcast other
    ("div_", lambda m, t: ((t(Y),), {}), X),
    ("div_", lambda m, t: ((t(Y),), {"rounding_mode": "floor"}), X * 5),
    ("div_", lambda m, t: ((t(Y),), {"rounding_mode": "trunc"}), X * 5),
    ("pow_", lambda m, t: ((t(Y),), {}), P),
    ("pow_", lambda m, t: ((2,), {}), X),
    ("clamp_", lambda m, t: ((-0.5, 0.5), {}), X),
    ("clamp_", lambda m, t: ((), {"min": t(X[0] * 0.1)}), X),
    ("clamp_min_", lambda m, t: ((0.2,), {}), X),
    ("clamp_max_", lambda m, t: ((t(Y * 0.1),), {}), X),
    ("masked_fill_", lambda m, t: ((t(X > 0), -7.0), {}), X),
    ("copy_", lambda m, t: ((t(Y[1]),), {}), X),
    ("neg_", lambda m, t: ((), {}), X), ("abs_", lambda m, t: ((), {}), X),
    ("exp_", lambda m, t: ((), {}), X), ("log_", lambda m, t: ((), {}), P),
    ("sqrt_", lambda m, t: ((), {}), P), ("sigmoid_", lambda m, t: ((), {}), X),
    ("tanh_", lambda m, t: ((), {}), X), ("relu_", lambda m, t: ((), {}), X),
    ("sin_", lambda m, t: ((), {}), X), ("floor_", lambda m, t: ((), {}), X * 3),
    ("reciprocal_", lambda m, t: ((), {}), P), ("square_", lambda m, t: ((), {}), X),
]
IDS = [f"{n}-{i}" for i, (n, _, _) in enumerate(INPLACE)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("name", "make", "data"), INPLACE, ids=IDS)
def test_inplace_values_gradients_and_version_match_torch(backend, name, make, data):
    """``y = w * 1.5; y.<name>(...)`` then backward: values and the gradients of ``w`` and of
    every Tensor argument equal torch's; the version counter moves; ``y`` is returned."""
    t_args, t_kw = make(torch, lambda a: torch.tensor(a, requires_grad=a.dtype.kind == "f"))
    tw = torch.tensor(data, requires_grad=True)
    ty = tw * 1.5
    tout = getattr(ty, name)(*t_args, **t_kw)
    assert tout is ty
    with on_backend(backend):
        a_args, a_kw = make(af, lambda a: af.asarray(a, requires_grad=a.dtype.kind == "f"))
        w = af.asarray(data, requires_grad=True)
        y = w * 1.5
        v0 = y._version
        out = getattr(y, name)(*a_args, **a_kw)
        assert out is y and y._version > v0
        _close(y, ty)
        weight = np.arange(12.0).reshape(3, 4)
        (y * af.asarray(weight)).sum().backward()
    (ty * torch.from_numpy(weight)).sum().backward()
    _close(w.grad, tw.grad)
    for ours, theirs in zip([*a_args, *a_kw.values()], [*t_args, *t_kw.values()]):
        if isinstance(theirs, torch.Tensor) and theirs.requires_grad:
            _close(ours.grad, theirs.grad)


LEAF_CALLS = {
    "add_": lambda t: t.add_(1), "sub_": lambda t: t.sub_(1), "mul_": lambda t: t.mul_(2),
    "div_": lambda t: t.div_(2), "pow_": lambda t: t.pow_(2), "clamp_": lambda t: t.clamp_(0),
    "copy_": lambda t: t.copy_(t.detach() * 0), "exp_": lambda t: t.exp_(),
    "neg_": lambda t: t.neg_(), "fill_": lambda t: t.fill_(1.0), "zero_": lambda t: t.zero_(),
    "uniform_": lambda t: t.uniform_(), "normal_": lambda t: t.normal_(),
    "masked_fill_": lambda t: t.masked_fill_(t.detach() > 0, 0.0),
    "clamp_min_": lambda t: t.clamp_min_(0.0), "sigmoid_": lambda t: t.sigmoid_(),
    "fill_diagonal_": lambda t: t.fill_diagonal_(0.0),
    "__iadd__": lambda t: t.__iadd__(1), "__setitem__": lambda t: t.__setitem__(0, 1.0),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(LEAF_CALLS))
def test_inplace_on_leaf_that_requires_grad_raises_as_torch(backend, name):
    call = LEAF_CALLS[name]
    tl = torch.ones(3, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used "
                                           "in an in-place operation"):
        call(tl)
    with on_backend(backend):
        leaf = af.ones((3, 3), requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being "
                                               "used in an in-place operation"):
            call(leaf)
        assert leaf._version == 0 and leaf.detach().numpy().tolist() == [[1.0] * 3] * 3
        with af.no_grad():
            call(leaf)  # allowed, as PyTorch
        assert leaf.requires_grad and leaf.is_leaf and leaf._version >= 1
    with torch.no_grad():
        call(tl)


INPLACE_CASTS = [("float32", "float64"), ("float64", "float32"), ("int64", "float32"),
                 ("float32", "int64"), ("int32", "int64"), ("int64", "int32"), ("bool", "int64"),
                 ("int64", "bool"), ("float32", "complex64"), ("complex64", "float64"),
                 ("complex64", "complex128")]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("dst", "src"), INPLACE_CASTS, ids=[f"{d}-{s}" for d, s in INPLACE_CASTS])
@pytest.mark.parametrize("spelling", ["add_", "+="])
def test_inplace_result_cast_back_as_torch(backend, dst, src, spelling):
    """PyTorch casts an in-place result to the Tensor's dtype where canCast allows
    (``f32.add_(f64)`` stays float32) and raises RuntimeError otherwise, leaving it unchanged."""
    def run(lib, make):
        t = make([1, 0, 1], getattr(lib, dst))
        o = make([2, 3, 1], getattr(lib, src))
        try:
            if spelling == "add_":
                t.add_(o)
            else:
                t += o
        except RuntimeError:
            return "raises", make([1, 0, 1], getattr(lib, dst)), t
        return "ok", t, t

    want, tt, _ = run(torch, lambda v, d: torch.tensor(v, dtype=d))
    with on_backend(backend):
        got, ot, kept = run(af, lambda v, d: af.asarray(v, dtype=d))
        assert got == want
        assert ot.dtype is getattr(af, dst)
        np.testing.assert_array_equal(ot.numpy(), tt.numpy())
        if got == "raises":  # a failed call changes nothing
            np.testing.assert_array_equal(kept.numpy(), tt.numpy())


@pytest.mark.parametrize("backend", BACKENDS)
def test_inplace_dtype_rules(backend):
    with on_backend(backend):
        i = af.asarray([1, 2, 3])
        with pytest.raises(RuntimeError, match="can't be cast"):  # torch's type and words
            i.add_(1.5)
        with pytest.raises(RuntimeError, match="can't be cast"):
            i.div_(2)
        assert i.numpy().tolist() == [1, 2, 3]
        i.div_(2, rounding_mode="floor")
        assert i.dtype is af.int64 and i.numpy().tolist() == [0, 1, 1]
        f = af.asarray([1.0, 2.0])
        f.mul_(af.asarray([2, 3]))  # an int operand keeps float32 (PyTorch's promotion)
        assert f.dtype is af.float32 and f.numpy().tolist() == [2.0, 6.0]
        f.copy_(af.asarray([7, 8]))  # copy_ casts
        assert f.dtype is af.float32 and f.numpy().tolist() == [7.0, 8.0]
        im = af.asarray([1, 2, 3])
        im.masked_fill_(af.asarray([True, False, True]), 9.7)  # truncated, as torch
    ti = torch.tensor([1, 2, 3])
    ti.masked_fill_(torch.tensor([True, False, True]), 9.7)
    assert im.numpy().tolist() == ti.tolist()
    with pytest.raises(RuntimeError):
        torch.tensor([1, 2, 3]).add_(1.5)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("a", "b"), [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (-6, 4)])
def test_div_rounding_modes_match_torch(backend, a, b):
    with on_backend(backend):
        for mode in ("trunc", "floor"):
            for dt, tdt in ((af.int64, torch.int64), (af.float64, torch.float64)):
                ours = af.asarray([a], dtype=dt).div(af.asarray([b], dtype=dt),
                                                     rounding_mode=mode)
                theirs = torch.tensor([a], dtype=tdt).div(torch.tensor([b], dtype=tdt),
                                                          rounding_mode=mode)
                assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
                _close(ours, theirs)
        with pytest.raises(RuntimeError, match="rounding_mode"):
            af.asarray([1.0]).div(2.0, rounding_mode="round")


@pytest.mark.parametrize("backend", BACKENDS)
def test_clamp_with_tensor_bounds_and_clamp_min_max_match_torch(backend):
    lo, hi = X[0] * 0.3 - 0.2, np.abs(X[1]) * 0.5
    tx = torch.tensor(X, requires_grad=True)
    tlo = torch.tensor(lo, requires_grad=True)
    thi = torch.tensor(hi, requires_grad=True)
    touts = [tx.clamp(tlo, thi), tx.clamp(min=tlo), tx.clamp(max=0.3), tx.clamp_min(tlo),
             tx.clamp_max(thi), torch.clamp(tx, tlo, thi)]
    sum(o.sum() * (k + 1) for k, o in enumerate(touts)).backward()
    with on_backend(backend):
        x = af.asarray(X, requires_grad=True)
        alo = af.asarray(lo, requires_grad=True)
        ahi = af.asarray(hi, requires_grad=True)
        outs = [x.clamp(alo, ahi), x.clamp(min=alo), x.clamp(max=0.3), x.clamp_min(alo),
                x.clamp_max(ahi), af.clamp(x, alo, ahi)]
        for o, t in zip(outs, touts):
            _close(o, t)
        total = outs[0].sum()
        for k, o in enumerate(outs[1:], start=2):
            total = total + o.sum() * k
        total.backward()
        with pytest.raises(RuntimeError, match="At least one of 'min' or 'max'"):
            x.clamp()
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max'"):
        tx.clamp()
    for ours, theirs in ((x, tx), (alo, tlo), (ahi, thi)):
        _close(ours.grad, theirs.grad)


@pytest.mark.parametrize("backend", BACKENDS)
def test_copy_broadcasts_casts_and_routes_gradient_as_torch(backend):
    src = RNG.standard_normal((1, 4))
    tw = torch.tensor(X, requires_grad=True)
    ts = torch.tensor(src, dtype=torch.float32, requires_grad=True)
    ty = tw * 2
    ty.copy_(ts)
    assert ty.dtype == torch.float64
    (ty * torch.from_numpy(P)).sum().backward()
    with on_backend(backend):
        w = af.asarray(X, requires_grad=True)
        s = af.asarray(src, dtype=af.float32, requires_grad=True)
        y = w * 2
        y.copy_(s)
        assert y.dtype is af.float64
        _close(y, ty)
        (y * af.asarray(P)).sum().backward()
        with pytest.raises(TypeError, match="must be Tensor"):
            y.copy_(1.0)
    _close(w.grad, tw.grad)  # zeros: overwritten
    _close(s.grad, ts.grad, rtol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_masked_fill_value_gradient_and_errors_match_torch(backend):
    mask = X > 0
    tx = torch.tensor(X, requires_grad=True)
    tv = torch.tensor(2.5, dtype=torch.float64, requires_grad=True)
    tout = tx.masked_fill(torch.from_numpy(mask), tv)
    (tout * torch.from_numpy(P)).sum().backward()
    with on_backend(backend):
        x = af.asarray(X, requires_grad=True)
        v = af.asarray(2.5, dtype=af.float64, requires_grad=True)
        out = x.masked_fill(af.asarray(mask), v)
        _close(out, tout)
        (out * af.asarray(P)).sum().backward()
        with pytest.raises(RuntimeError, match="only supports boolean masks"):
            x.masked_fill(af.asarray(mask.astype("int64")), 1.0)
        with pytest.raises(RuntimeError, match="0-dimensional value tensor"):
            x.masked_fill(af.asarray(mask), af.asarray([1.0]))
    _close(x.grad, tx.grad)
    _close(v.grad, tv.grad)
    with pytest.raises(RuntimeError, match="only supports boolean masks"):
        tx.masked_fill(torch.from_numpy(mask.astype("int64")), 1.0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("shape", "wrap"), [((3, 3), False), ((5, 3), False), ((7, 3), True),
                                             ((2, 5), False), ((3, 3, 3), False)])
def test_fill_diagonal_matches_torch(backend, shape, wrap):
    t = torch.zeros(shape)
    t.fill_diagonal_(4.0, wrap=wrap)
    with on_backend(backend):
        a = af.zeros(shape)
        a.fill_diagonal_(4.0, wrap=wrap)
        _close(a, t)


# --- allclose / isclose ------------------------------------------------------------------------

CLOSE = [
    ([1.0, 2.0, 3.0], [1.0, 2.0 + 1e-6, 3.0], {}),
    ([1.0, 2.0, 3.0], [1.0, 2.0 + 1e-4, 3.0], {}),
    ([1.0, float("nan")], [1.0, float("nan")], {}),
    ([1.0, float("nan")], [1.0, float("nan")], {"equal_nan": True}),
    ([float("inf"), -float("inf")], [float("inf"), float("inf")], {}),
    ([100.0, 0.0], [100.1, 1e-9], {"rtol": 1e-3}),
    ([0.0, 1.0], [1e-6, 1.0], {"atol": 1e-5, "rtol": 0.0}),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("a", "b", "kw"), CLOSE)
def test_isclose_allclose_match_torch(backend, a, b, kw):
    ta, tb = torch.tensor(a, dtype=torch.float64), torch.tensor(b, dtype=torch.float64)
    with on_backend(backend):
        fa, fb = af.asarray(a, dtype=af.float64), af.asarray(b, dtype=af.float64)
        assert af.isclose(fa, fb, **kw).numpy().tolist() == torch.isclose(ta, tb, **kw).tolist()
        assert fa.isclose(fb, **kw).numpy().tolist() == ta.isclose(tb, **kw).tolist()
        r = af.allclose(fa, fb, **kw)
        assert type(r) is bool and r == torch.allclose(ta, tb, **kw)
        assert fa.allclose(fb, **kw) == ta.allclose(tb, **kw)


@pytest.mark.parametrize("backend", BACKENDS)
def test_isclose_errors_and_integers_as_torch(backend):
    with on_backend(backend):
        i = af.asarray([1, 2, 3])
        assert af.isclose(i, af.asarray([1, 2, 4])).numpy().tolist() == [True, True, False]
        with pytest.raises(RuntimeError):
            af.allclose(af.asarray([1.0]), af.asarray([1.0], dtype=af.float64))
        with pytest.raises(RuntimeError, match="rtol"):
            af.isclose(af.asarray([1.0]), af.asarray([1.0]), rtol=-1.0)
    assert torch.isclose(torch.tensor([1, 2, 3]), torch.tensor([1, 2, 4])).tolist() == [
        True, True, False]
    with pytest.raises(RuntimeError):
        torch.allclose(torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64))


# --- norms ---------------------------------------------------------------------------------------

A3 = RNG.standard_normal((3, 4, 5))
NORMS = [
    ((), {}), (("fro",), {}), ((2,), {}), ((1,), {"dim": 1}), (("fro", 1), {}),
    (("fro", (0, 2)), {}), (("fro", (2, 0)), {"keepdim": True}), (("nuc", (1, 0)), {}),
    ((math.inf,), {"dim": 2, "keepdim": True}), ((3,), {"dim": (0, 1)}), ((0.5,), {}),
]
LINALG_NORMS = [
    ((), {}), ((None, 1), {}), ((2, (0, 2)), {}), (("nuc", (2, 0)), {"keepdim": True}),
    ((-1, (0, 1)), {}), ((3,), {"dim": -1}), ((math.inf, (1, 2)), {}),
    ((-math.inf,), {"dim": 0}), (("fro", (0, 1)), {}),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("which", "args", "kw"),
                         [("norm", *c) for c in NORMS] + [("linalg", *c) for c in LINALG_NORMS])
def test_norm_values_and_gradients_match_torch(backend, which, args, kw):
    tfn = torch.norm if which == "norm" else torch.linalg.norm
    t = torch.tensor(A3, requires_grad=True)
    tout = tfn(t, *args, **kw)
    tout.sum().backward()
    with on_backend(backend):
        a = af.asarray(A3, requires_grad=True)
        fn = af.norm if which == "norm" else af.linalg.norm
        out = fn(a, *args, **kw)
        assert out.shape == tuple(tout.shape)
        _close(out, tout, rtol=1e-10)
        out.sum().backward()
        if which == "norm":
            m = a.norm(*args, **kw)
            _close(m, tout, rtol=1e-10)
    _close(a.grad, t.grad, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_linalg_norm_matrix_and_vector_defaults_match_torch(backend):
    m, v = RNG.standard_normal((4, 3)), RNG.standard_normal(5)
    with on_backend(backend):
        for data in (m, v):
            for ord_ in (None, 1, 2, math.inf, -math.inf) + (("fro", "nuc") if data.ndim == 2
                                                             else ()):
                _close(af.linalg.norm(af.asarray(data), ord_),
                       torch.linalg.norm(torch.tensor(data), ord_), rtol=1e-10)
        with pytest.raises(RuntimeError, match="1D or 2D"):
            af.linalg.norm(af.asarray(A3), 2)
        with pytest.raises(RuntimeError):
            af.norm(af.asarray(A3), "nuc")
    with pytest.raises(RuntimeError, match="1D or 2D"):
        torch.linalg.norm(torch.tensor(A3), 2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_movedim_matches_torch(backend):
    t = torch.tensor(A3, requires_grad=True)
    touts = [torch.movedim(t, 0, -1), t.movedim((0, 1), (2, 0)), t.moveaxis(1, 0)]
    sum((o * k).sum() for k, o in enumerate(touts, 1)).backward()
    with on_backend(backend):
        a = af.asarray(A3, requires_grad=True)
        outs = [af.movedim(a, 0, -1), a.movedim((0, 1), (2, 0)), a.moveaxis(1, 0)]
        for o, to in zip(outs, touts):
            _close(o, to)
        (outs[0].sum() + (outs[1] * 2).sum() + (outs[2] * 3).sum()).backward()
    _close(a.grad, t.grad)


# --- format, std/var methods ---------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_format_zero_dim_as_torch(backend):
    t = torch.tensor(3.14159)
    with on_backend(backend):
        a = af.asarray(3.14159)
        for spec in (".4f", ".2e", "8.3f", ""):
            assert format(a, spec) == format(t, spec) or spec == ""
        assert f"{a:.3f}" == f"{t:.3f}" == "3.142"
        assert format(af.asarray(7), "d") == format(torch.tensor(7), "d")
        with pytest.raises(TypeError):
            format(af.asarray([1.0, 2.0]), ".4f")
        assert format(af.asarray([1.0, 2.0]), "") == str(af.asarray([1.0, 2.0]))
    with pytest.raises(TypeError):
        format(torch.tensor([1.0, 2.0]), ".4f")


STD_CALLS = [((), {}), ((0,), {}), ((1, False), {}), ((1, True, True), {}), ((False,), {}),
             ((), {"dim": 0, "unbiased": False}), ((), {"dim": 1, "correction": 0}),
             ((), {"dim": (0, 1), "correction": 2, "keepdim": True})]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["std", "var"])
@pytest.mark.parametrize(("args", "kw"), STD_CALLS)
def test_std_var_methods_follow_torch(backend, name, args, kw):
    t = torch.tensor(X, requires_grad=True)
    tout = getattr(t, name)(*args, **kw)
    tout.sum().backward()
    with on_backend(backend):
        a = af.asarray(X, requires_grad=True)
        out = getattr(a, name)(*args, **kw)
        assert out.shape == tuple(tout.shape)
        _close(out, tout, rtol=1e-12)
        out.sum().backward()
    _close(a.grad, t.grad, rtol=1e-10)


@pytest.mark.parametrize("backend", BACKENDS)
def test_namespace_std_keeps_the_standards_default(backend):
    with on_backend(backend):
        a = af.asarray(X)
        _close(af.std(a), np.std(X))  # correction=0: the array API standard
        _close(a.std(), np.std(X, ddof=1))  # the method: PyTorch's correction=1
        _close(af.var(a, axis=0), np.var(X, axis=0))


# --- grad_fn names ---------------------------------------------------------------------------

def _names_cases(m, x, y, sq):
    return {
        "add": lambda: x + y, "sub": lambda: x - y, "mul": lambda: x * y, "div": lambda: x / y,
        "neg": lambda: -x, "pow-scalar": lambda: x ** 2, "pow-tensor": lambda: x ** y,
        "exp": lambda: m.exp(x), "log1p": lambda: m.log1p(x * x), "tanh": lambda: m.tanh(x),
        "abs": lambda: m.abs(x), "sqrt": lambda: m.sqrt(x * x), "mm": lambda: m.matmul(x, sq),
        "dot": lambda: m.matmul(x[0], x[1]), "mv": lambda: m.matmul(sq, x[0]),
        "sum": lambda: x.sum(), "sum-dim": lambda: x.sum(0), "mean": lambda: x.mean(),
        "mean-dim": lambda: x.mean(1), "prod": lambda: x.prod(), "max": lambda: x.max(),
        "std": lambda: x.std(0), "var": lambda: x.var(), "reshape": lambda: x.reshape(16),
        "permute": lambda: x.permute(1, 0), "unsqueeze": lambda: x.unsqueeze(0),
        "expand": lambda: x[0].expand(4, 4), "cat": lambda: m.cat([x, y]),
        "stack": lambda: m.stack([x, y]), "where": lambda: m.where(x > 0, x, y),
        "maximum": lambda: m.maximum(x, y), "clamp-scalar": lambda: x.clamp(0, 1),
        "clamp-tensor": lambda: x.clamp(y), "select": lambda: x[0], "slice": lambda: x[1:],
        "cumsum": lambda: m.cumsum(x, 0) if m is torch else m.cumulative_sum(x, axis=0),
        "flip": lambda: m.flip(x, (0,)) if m is torch else m.flip(x, axis=0),
        "det": lambda: m.linalg.det(x + sq), "inv": lambda: m.linalg.inv(x + sq),
        "vector_norm": lambda: m.linalg.vector_norm(x), "atan2": lambda: m.atan2(x, y),
        "to-float32": lambda: x.to(m.float32), "tril": lambda: m.tril(x),
        "movedim": lambda: m.movedim(x, 0, 1),
    }


def test_grad_fn_names_match_torch():
    xn, yn = RNG.standard_normal((4, 4)), RNG.standard_normal((4, 4)) + 3
    sqn = RNG.standard_normal((4, 4)) + 4 * np.eye(4)
    tx, ty = torch.tensor(xn, requires_grad=True), torch.tensor(yn)
    ax, ay = af.asarray(xn, requires_grad=True), af.asarray(yn)
    theirs = _names_cases(torch, tx, ty, torch.tensor(sqn))
    ours = _names_cases(af, ax, ay, af.asarray(sqn))
    assert len(ours) >= 40
    for k in theirs:
        want = type(theirs[k]().grad_fn).__name__
        got = ours[k]().grad_fn
        assert type(got).__name__ == want and got.name() == want, k


def test_inplace_grad_fn_names_match_torch():
    def run(m, w):
        out = {}
        y = w * 1
        y[1] = 0.0
        out["setitem"] = y.grad_fn
        y = w * 1
        y.copy_(w.detach() * 0)
        out["copy_"] = y.grad_fn
        y = w * 1
        y.mul_(2)
        out["mul_"] = y.grad_fn
        return {k: type(v).__name__ for k, v in out.items()}

    assert run(af, af.ones(3, requires_grad=True)) == run(torch, torch.ones(3, requires_grad=True))


def test_custom_function_node_name_as_torch():
    class MyScale(af.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class TMyScale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    a = MyScale.apply(af.ones(2, requires_grad=True))
    t = TMyScale.apply(torch.ones(2, requires_grad=True))
    assert type(a.grad_fn).__name__ == "MyScaleBackward"
    assert type(t.grad_fn).__name__ == "TMyScaleBackward"


# --- more PyTorch methods -------------------------------------------------------------------

IDX = np.array([[0, 2], [1, 1]])
METHOD_CALLS = [
    ("view_as", lambda m, x: x.view_as(x.reshape(4, 3))),
    ("type_as", lambda m, x: x.type_as(m.ones(1, dtype=m.float32))),
    ("contiguous", lambda m, x: x.contiguous()),
    ("repeat", lambda m, x: x.repeat(2, 1, 3)),
    ("repeat-tuple", lambda m, x: x.repeat((1, 2))),
    ("index_select", lambda m, x: x.index_select(1, m.asarray([3, 0, 0]) if m is af
                                                 else torch.tensor([3, 0, 0]))),
    ("index_select-neg-dim", lambda m, x: x.index_select(-2, m.asarray([2]) if m is af
                                                         else torch.tensor([2]))),
    ("gather", lambda m, x: x.gather(1, m.asarray(IDX) if m is af else torch.tensor(IDX))),
    ("gather-dim0", lambda m, x: x.gather(0, m.asarray(IDX) if m is af else torch.tensor(IDX))),
    ("narrow", lambda m, x: x.narrow(1, 1, 2)),
    ("narrow-neg", lambda m, x: x.narrow(0, -2, 2)),
    ("split", lambda m, x: x.split(3, 1)[1]), ("split-list", lambda m, x: x.split([1, 2])[1]),
    ("chunk", lambda m, x: x.chunk(3, 1)[-1]), ("chunk-more", lambda m, x: x.chunk(5)[2]),
    ("masked_select", lambda m, x: x.masked_select(x > 0)),
    ("topk-values", lambda m, x: x.topk(2).values),
    ("topk-smallest", lambda m, x: x.topk(2, dim=0, largest=False).values),
    ("logsumexp", lambda m, x: x.logsumexp(1)),
    ("logsumexp-keep", lambda m, x: x.logsumexp(0, keepdim=True)),
    ("rsqrt", lambda m, x: (x * x + 1).rsqrt()), ("dot", lambda m, x: x[0].dot(x[1])),
    ("mv", lambda m, x: x.mv(x[0])), ("outer", lambda m, x: x[0].outer(x[1])),
    ("bmm", lambda m, x: x.reshape(1, 3, 4).bmm(x.reshape(1, 4, 3))),
    ("erf", lambda m, x: x.erf()),
    ("addcmul_", lambda m, x: (x * 1).addcmul_(x, x, value=0.5)),
    ("addcdiv_", lambda m, x: (x * 1).addcdiv_(x, x * x + 1, value=-2)),
    ("lerp_", lambda m, x: (x * 1).lerp_(x * x, 0.25)),
    ("rsqrt_", lambda m, x: (x * x + 1).rsqrt_()),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("name", "call"), METHOD_CALLS, ids=[c[0] for c in METHOD_CALLS])
def test_more_methods_match_torch(backend, name, call):
    if backend == "dask" and name == "masked_select":
        pytest.skip("a data-dependent shape: Dask needs allow_compute (docs/dask.md)")
    t = torch.tensor(X, requires_grad=True)
    tout = call(torch, t)
    w = torch.from_numpy(RNG.standard_normal(tuple(tout.shape)))
    if tout.dtype == torch.float64:
        (tout * w).sum().backward()
    with on_backend(backend):
        a = af.asarray(X, requires_grad=True)
        out = call(af, a)
        assert out.shape == tuple(tout.shape) and out.dtype.name == str(tout.dtype)[6:]
        _close(out, tout, rtol=1e-10)
        if tout.dtype == torch.float64:
            (out * af.asarray(w.numpy())).sum().backward()
    if tout.dtype == torch.float64:
        _close(a.grad, t.grad, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_dtype_and_size_methods_match_torch(backend):
    t = torch.tensor(X * 3)
    with on_backend(backend):
        a = af.asarray(X * 3)
        for name in ("int", "bool", "short", "byte", "char", "long", "double", "float"):
            o, to = getattr(a, name)(), getattr(t, name)()
            assert o.dtype.name == str(to.dtype)[6:], name
            _close(o, to)
        assert a.is_floating_point() and not a.is_complex() and a.is_contiguous()
        assert a.nelement() == t.nelement() and a.element_size() == t.element_size()
        assert not a.int().is_floating_point()


@pytest.mark.parametrize("backend", BACKENDS)
def test_deprecated_add_alpha_overload_as_torch(backend):
    """Accepted with PyTorch's warning, issued once per process as PyTorch's."""
    import arrayflow._tensor_methods as tm

    t = torch.tensor(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t.add_(-0.5, torch.ones(3, 4, dtype=torch.float64))
    tm._WARNED.discard("add_")
    with on_backend(backend):
        a = af.asarray(X)
        with pytest.warns(UserWarning, match="This overload of add_ is deprecated"):
            a.add_(-0.5, af.ones((3, 4), dtype=af.float64))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            a.add_(0.0, af.ones((3, 4), dtype=af.float64))  # no second warning
        _close(a, t)
        with pytest.raises(TypeError):
            a.add_(af.ones((3, 4)), af.ones((3, 4)))


def test_method_errors_as_torch():
    a, t = af.asarray(X), torch.tensor(X)
    for call in (lambda m: m.repeat(2), lambda m: m.narrow(1, 3, 2), lambda m: m[0].mv(m[0]),
                 lambda m: m.topk(5), lambda m: m.split([1, 1]), lambda m: m.chunk(0)):
        with pytest.raises(RuntimeError):
            call(t)
        with pytest.raises(RuntimeError):
            call(a)


# --- PyTorch's signatures and return types of methods the standard spells otherwise --------

TIES = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, -1.0, 2.0], [0.5, 0.5, 0.5, 0.5]])
SIG_CALLS = [
    ("max-dim", lambda m, x: x.max(1)), ("min-dim-keepdim", lambda m, x: x.min(0, keepdim=True)),
    ("max-all", lambda m, x: x.max()), ("max-other", lambda m, x: x.max(x * 0 + 1.0)),
    ("amax", lambda m, x: x.amax((0, 1))), ("amin-dim", lambda m, x: x.amin(1)),
    ("sort", lambda m, x: x.sort(1)), ("sort-desc", lambda m, x: x.sort(0, descending=True)),
    ("argsort", lambda m, x: x.argsort(dim=1, stable=True)), ("flatten", lambda m, x: x.flatten()),
    ("roll", lambda m, x: x.roll(1, 1)), ("flip", lambda m, x: x.flip(0, 1)),
    ("tril", lambda m, x: x.tril(1)), ("triu", lambda m, x: x.triu(-1)),
    ("add-alpha", lambda m, x: x.add(x, alpha=3)), ("sub-alpha", lambda m, x: x.sub(x, alpha=2)),
    ("take", lambda m, x: x.take(m.asarray([[0, 5], [11, 3]]) if m is af
                                 else torch.tensor([[0, 5], [11, 3]]))),
    ("nonzero", lambda m, x: x.nonzero()),
    ("eq", lambda m, x: x.eq(x * 0 + 2.0)), ("bitwise_not", lambda m, x: (x > 1).bitwise_not()),
    ("cumsum", lambda m, x: x.cumsum(1)), ("cumprod-kw", lambda m, x: x.cumprod(dim=0)),
    ("unbind", lambda m, x: x.unbind(1)), ("repeat_interleave", lambda m, x:
                                            x.repeat_interleave(2, dim=0)),
    ("f-cumsum", lambda m, x: m.cumsum(x, 0)), ("f-cumprod", lambda m, x: m.cumprod(x, dim=1)),
    ("f-unbind", lambda m, x: m.unbind(x, 1)),
    ("f-repeat_interleave", lambda m, x: m.repeat_interleave(x, 2)),
    ("f-gather-small-index", lambda m, x: m.gather(x, 1, m.asarray([[2, 0]]) if m is af
                                                   else torch.tensor([[2, 0]]))),
]


def _flat(o):
    return list(o) if isinstance(o, tuple) else [o]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("name", "call"), SIG_CALLS, ids=[c[0] for c in SIG_CALLS])
def test_methods_with_pytorch_signatures_match_torch(backend, name, call):
    """Values, return structure (named tuples) and gradients, ties included (max/min send the
    gradient to the selected element, as PyTorch)."""
    if backend == "dask" and name == "nonzero":
        pytest.skip("a data-dependent shape: Dask needs allow_compute (docs/dask.md)")
    t = torch.tensor(TIES, requires_grad=True)
    tout = call(torch, t)
    touts = _flat(tout)
    tdiff = [o for o in touts if o.dtype == torch.float64]
    if tdiff:
        sum((o * (k + 1)).sum() for k, o in enumerate(tdiff)).backward()
    with on_backend(backend):
        a = af.asarray(TIES, requires_grad=True)
        out = call(af, a)
        assert type(out) is tuple or isinstance(out, af.Tensor) or hasattr(out, "_fields")
        if type(tout).__module__ == "torch.return_types":  # a named tuple, as torch's
            assert out._fields == ("values", "indices")
            assert out.values is out[0] and out.indices is out[1]
        outs = _flat(out)
        assert len(outs) == len(touts)
        for o, to in zip(outs, touts):
            assert o.shape == tuple(to.shape) and o.dtype.name == str(to.dtype)[6:], name
            _close(o, to)
        diff = [o for o in outs if o.dtype is af.float64]
        if diff:
            total = diff[0].sum()
            for k, o in enumerate(diff[1:], start=2):
                total = total + (o * k).sum()
            total.backward()
    if tdiff:
        _close(a.grad, t.grad)


@pytest.mark.parametrize("backend", BACKENDS)
def test_inplace_chain_on_plain_buffer_gets_history_as_torch(backend):
    """A buffer that does not require grad takes the history of the Tensors written into it
    (composite in-place methods included) and the gradient reaches them, as PyTorch."""
    def run(m, w):
        buf = m.zeros(3, dtype=m.float64)
        buf.sigmoid_()
        buf.add_(w, alpha=2.0)
        buf.mul_(w)
        buf.clamp_(max=w * 0.5 + 1.9)
        buf.div_(w + 1, rounding_mode=None)
        buf.sum().backward()
        return buf

    wn = np.array([0.5, 1.0, 2.0])
    tw = torch.tensor(wn, requires_grad=True)
    tb = run(torch, tw)
    with on_backend(backend):
        w = af.asarray(wn, requires_grad=True)
        b = run(af, w)
        assert b.requires_grad and not b.is_leaf
        _close(b, tb)
    _close(w.grad, tw.grad)


# --- PyTorch's dim=/keepdim= keywords on namespace reductions -----------------------------

DIM_CALLS = [
    ("sum", {"dim": 1}), ("sum", {"dim": (0, 1), "keepdim": True}), ("mean", {"dim": 0}),
    ("mean", {"dim": -1, "keepdim": True}), ("prod", {"dim": 1}), ("argmax", {"dim": 1}),
    ("argmin", {"dim": 0, "keepdim": True}), ("all", {"dim": 1}), ("any", {"dim": 0}),
    ("count_nonzero", {"dim": 1}),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("name", "kw"), DIM_CALLS, ids=[f"{n}-{sorted(k)}" for n, k in DIM_CALLS])
def test_namespace_reductions_take_torch_dim_keywords(backend, name, kw):
    data = X if name not in ("all", "any", "count_nonzero") else X > 0
    t = torch.tensor(data)
    theirs = getattr(torch, name)(t, **kw)
    with on_backend(backend):
        ours = getattr(af, name)(af.asarray(data), **kw)
        assert ours.shape == tuple(theirs.shape)
        _close(ours, theirs)
        with pytest.raises(TypeError, match="not both"):
            getattr(af, name)(af.asarray(data), dim=0, axis=0)


def test_dim_keyword_left_out_where_results_would_differ():
    """torch.max(x, dim=1) returns (values, indices) and torch.std(x, dim=0) uses
    correction=1: the namespace functions refuse dim= rather than differ silently."""
    a = af.asarray(X)
    assert type(torch.max(torch.tensor(X), dim=1)).__module__ == "torch.return_types"
    for fn in (af.max, af.min, af.std, af.var, af.sort):
        with pytest.raises(TypeError):
            fn(a, dim=0)


POS_CALLS = [("sum", (1,)), ("sum", (0, True)), ("mean", (-1,)), ("prod", (0,)),
             ("argmax", (1,)), ("argmin", (0, True)), ("all", (1,)), ("any", (0,)),
             ("count_nonzero", (1,))]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("name", "args"), POS_CALLS, ids=[f"{n}-{a}" for n, a in POS_CALLS])
def test_namespace_reductions_take_torch_positional_dim(backend, name, args):
    data = X if name not in ("all", "any", "count_nonzero") else X > 0
    theirs = getattr(torch, name)(torch.tensor(data), *args)
    with on_backend(backend):
        ours = getattr(af, name)(af.asarray(data), *args)
        assert ours.shape == tuple(theirs.shape)
        _close(ours, theirs)
        with pytest.raises(TypeError, match="multiple values"):
            getattr(af, name)(af.asarray(data), 0, dim=1)


# --- PyTorch's top-level functions that are methods there too --------------------------------

def _ix(m, v):
    return m.asarray(v) if m is af else torch.tensor(v)


FUNC_CALLS = [
    ("flatten", lambda m, x: m.flatten(x.reshape(3, 2, 2), 1)),
    ("sigmoid", lambda m, x: m.sigmoid(x)), ("relu", lambda m, x: m.relu(x)),
    ("softmax", lambda m, x: m.softmax(x, 1)), ("log_softmax", lambda m, x: m.log_softmax(x, 0)),
    ("topk", lambda m, x: m.topk(x, 2, 0).values), ("dot", lambda m, x: m.dot(x[0], x[1])),
    ("bmm", lambda m, x: m.bmm(x.reshape(1, 3, 4), x.reshape(1, 4, 3))),
    ("mv", lambda m, x: m.mv(x, x[0])), ("outer", lambda m, x: m.outer(x[0], x[1])),
    ("narrow", lambda m, x: m.narrow(x, 1, 1, 2)), ("chunk", lambda m, x: m.chunk(x, 2, 1)[1]),
    ("split", lambda m, x: m.split(x, [1, 2])[1]),
    ("index_select", lambda m, x: m.index_select(x, 1, _ix(m, [3, 1]))),
    ("masked_fill", lambda m, x: m.masked_fill(x, x > 0, 0.5)),
    ("logsumexp", lambda m, x: m.logsumexp(x, 1)), ("rsqrt", lambda m, x: m.rsqrt(x * x + 1)),
    ("addcmul", lambda m, x: m.addcmul(x, x, x, value=0.5)),
    ("addcdiv", lambda m, x: m.addcdiv(x, x, x * x + 1, value=2)),
    ("lerp", lambda m, x: m.lerp(x, x * 2, 0.25)), ("clamp_min", lambda m, x: m.clamp_min(x, 0.1)),
    ("clamp_max", lambda m, x: m.clamp_max(x, 0.1)), ("amax", lambda m, x: m.amax(x, 1)),
    ("amin", lambda m, x: m.amin(x, (0, 1))), ("transpose", lambda m, x: m.transpose(x, 0, 1)),
    ("unsqueeze", lambda m, x: m.unsqueeze(x, 1)), ("t", lambda m, x: m.t(x)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("name", "call"), FUNC_CALLS, ids=[c[0] for c in FUNC_CALLS])
def test_torch_functions_match_torch(backend, name, call):
    tx = torch.tensor(X, requires_grad=True)
    tout = call(torch, tx)
    w = RNG.standard_normal(tuple(tout.shape))
    (tout * torch.from_numpy(w)).sum().backward()
    with on_backend(backend):
        x = af.asarray(X, requires_grad=True)
        out = call(af, x)
        _close(out, tout, rtol=1e-10)
        (out * af.asarray(w)).sum().backward()
    _close(x.grad, tx.grad, rtol=1e-8, atol=1e-12)
    assert af.numel(af.asarray(X)) == torch.numel(torch.tensor(X))


@pytest.mark.parametrize("backend", BACKENDS)
def test_asarray_of_a_tensor_is_the_tensor_as_torch(backend):
    """``as_tensor(t)``/``asarray(t, copy=False)`` of a Tensor with its own dtype is ``t``
    itself (PyTorch), so a later write is seen through both names; a copy or a cast is not."""
    calls = [("asarray", {}), ("as_tensor", {}), ("asarray", {"copy": False}),
             ("asarray", {"copy": True}), ("asarray", {"dtype": "float64"}),
             ("asarray", {"dtype": "float32"})]
    tt = torch.ones(3, requires_grad=True)
    with on_backend(backend):
        t = af.ones(3, requires_grad=True)
        for name, kw in calls:
            tkw = {k: getattr(torch, v) if k == "dtype" else v for k, v in kw.items()}
            akw = {k: getattr(af, v) if k == "dtype" else v for k, v in kw.items()}
            assert (getattr(af, name)(t, **akw) is t) == (getattr(torch, name)(tt, **tkw) is tt)
        s = af.zeros(3)
        alias = af.asarray(s)
        s += 1
        np.testing.assert_array_equal(alias.numpy(), [1.0, 1.0, 1.0])
