"""``arrayflow.special``: values against SciPy over wide grids (the accuracy claims of the
docstrings), gradients against PyTorch's ``torch.special`` (and finite differences where
PyTorch has no such function), and SciPy's dispatch to this namespace."""

from __future__ import annotations

import json
import os
import textwrap
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from subprocess_helpers import run_with_scipy_array_api

import arrayflow as af

sp = pytest.importorskip("scipy.special")
torch = pytest.importorskip("torch")

EDGE = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1e-300, -1e-300, 1e300, -1e300,
        0.5, 1.0, -1.0, 2.0]


def _values(name, x, *rest):
    """arrayflow's and SciPy's values of ``name`` on NumPy inputs."""
    f = getattr(af.special, name)
    got = f(af.asarray(x), *(af.asarray(r) for r in rest)).numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(sp, name)(x, *rest)
    return got, want


def _max_rel(got, want, tiny):
    """Largest relative error, with NaN == NaN and values below ``tiny`` (subnormal) compared
    absolutely."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert np.array_equal(np.isnan(got), np.isnan(want)), (got[np.isnan(got) != np.isnan(want)])
    diff = np.abs(got - want)
    # NaN == NaN; in the subnormal range, an absolute error below the smallest normal
    ok = np.isnan(want) | (got == want) | ((np.abs(want) < tiny) & (diff < tiny))
    err = diff / np.maximum(np.abs(want), tiny)
    return float(np.max(np.where(ok, 0.0, err)))


# name: (grid lo, grid hi, float64 bound, float32 bound): the docstrings' claims
UNARY = {
    "erfc": (-6.0, 27.0, 1e-13, 2e-6),
    "expit": (-700.0, 700.0, 1e-15, 1e-6),
    "logit": (0.0, 1.0, 1e-14, 1e-6),
    "entr": (-1.0, 50.0, 1e-14, 1e-6),
    "sinc": (-50.0, 50.0, 1e-14, 1e-6),
    "ndtr": (-37.0, 8.0, 1e-13, 2e-5),
    "log_ndtr": (-1e5, 40.0, 1e-13, 1e-5),
    "erfinv": (-1.0, 1.0, 2e-15, 5e-7),
    "erfcinv": (0.0, 2.0, 5e-15, 5e-7),
    "ndtri": (0.0, 1.0, 5e-15, 5e-7),
    "i0": (-720.0, 720.0, 5e-15, 1e-6),
    "i0e": (-720.0, 720.0, 5e-15, 1e-6),
    "i1": (-720.0, 720.0, 5e-15, 2e-6),
    "i1e": (-720.0, 720.0, 5e-15, 2e-6),
}
# name: (grid lo, grid hi, float64 bound, float32 bound) on |error| / max(1, |f|): near the
# zeros of gammaln and psi relative accuracy is lost (SciPy itself is off by 5e-14 relative
# at psi(-49.999) against mpmath, where ours is within 1e-16)
ABSOLUTE = {
    "gammaln": (-50.0, 50.0, 4e-15, 2e-6),
    "digamma": (-50.0, 50.0, 1e-13, 2e-6),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(ABSOLUTE))
def test_gamma_family_matches_scipy(name, dtype):
    lo, hi, tol64, tol32 = ABSOLUTE[name]
    x = np.concatenate([np.linspace(lo, hi, 100001), np.logspace(-30, 300, 2000), EDGE])
    x = x.astype(dtype)
    x = x[(np.abs(x) >= np.finfo(dtype).tiny) | (x == 0) | np.isnan(x)]
    got, want = _values(name, x)
    assert got.dtype == np.dtype(dtype)
    got, want = got.astype(np.float64), want.astype(np.float64)
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    err = np.where(same, 0.0, np.abs(got - want) / np.maximum(np.abs(want), 1.0))
    assert err.max() <= (tol64 if dtype == "float64" else tol32)


def test_psi_is_scipys_name_of_digamma():
    assert af.special.psi is af.special.digamma
    x = np.array([0.0, -0.0, -1.0, -np.inf, np.inf, 0.5])
    got, want = _values("digamma", x)
    assert_allclose(got, sp.psi(x), rtol=1e-15)
    assert np.signbit(got[0]) and not np.signbit(got[1])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_matches_scipy_over_a_wide_grid(name, dtype):
    lo, hi, tol64, tol32 = UNARY[name]
    x = np.concatenate([np.linspace(lo, hi, 40001), np.linspace(-3, 3, 6001), EDGE])
    x = x.astype(dtype)
    tiny = np.finfo(dtype).tiny
    if name == "erfcinv":  # SciPy's is ndtri(y/2): a subnormal y/2 is rounded (mpmath below)
        x = x[(np.abs(x) >= tiny) | (x == 0) | ~np.isfinite(x)]
    got, want = _values(name, x)
    assert got.dtype == np.dtype(dtype)
    assert _max_rel(got, want, tiny) <= (tol64 if dtype == "float64" else tol32)


@pytest.mark.parametrize("name", ["xlogy", "xlog1py", "rel_entr"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_binary_matches_scipy_over_a_grid(name, dtype):
    a = np.concatenate([np.linspace(-5, 5, 101), EDGE]).astype(dtype)
    x, y = (v.ravel() for v in np.meshgrid(a, a))
    got, want = _values(name, x, y)
    assert got.dtype == np.dtype(dtype)
    assert _max_rel(got, want, np.finfo(dtype).tiny) <= (1e-15 if dtype == "float64" else 1e-6)


def test_log_ndtr_and_erfc_tails():
    # the tails where naive formulas give 0 or -inf
    x = np.array([-1e5, -1e3, -40.0, 10.0, 38.0])
    got, want = _values("log_ndtr", x)
    assert_allclose(got, want, rtol=1e-13)
    assert np.all(np.isfinite(got)) and np.all(got[:4] < 0)
    got, want = _values("erfc", np.array([26.0, 26.5, 27.0, -30.0]))
    assert_allclose(got, want, rtol=1e-13, atol=0)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_inverses_in_their_tails(dtype):
    tiny = np.finfo(dtype).tiny
    lo = np.log10(tiny) if dtype == "float32" else -320
    p = np.concatenate([np.logspace(lo, -1, 2000), 0.5 + np.logspace(-17, -2, 300)]).astype(dtype)
    got, want = _values("ndtri", p)
    assert _max_rel(got, want, tiny) <= (5e-15 if dtype == "float64" else 5e-7)
    eps = np.finfo(dtype).eps
    y = np.concatenate([1 - np.logspace(np.log10(eps), -1, 500),
                        -1 + np.logspace(np.log10(eps), -1, 500)]).astype(dtype)
    got, want = _values("erfinv", y)
    assert _max_rel(got, want, tiny) <= (2e-15 if dtype == "float64" else 5e-7)
    # erfcinv: y from the smallest normal number up, and 2 - y down to eps (SciPy's
    # ndtri(y/2) rounds a subnormal y/2: test_erfcinv_against_mpmath_... goes below)
    y = np.concatenate([p[p >= tiny], 2 - np.logspace(np.log10(eps), -1, 500),
                        1 + np.logspace(-17, -1, 300),
                        1 - np.logspace(-17, -1, 300)]).astype(dtype)
    got, want = _values("erfcinv", y)
    assert _max_rel(got, want, tiny) <= (5e-15 if dtype == "float64" else 5e-7)


def test_erfcinv_against_mpmath_and_its_gradient_against_torch():
    mpmath = pytest.importorskip("mpmath")
    # 5e-324 and 1.444e-320: SciPy inf and 2.3e-7 off (its ndtri(y/2) rounds y/2)
    y = np.array([5e-324, 1.444e-320, 1e-300, 1e-30, 0.01, 0.3, 0.9, 1 - 1e-12, 1 + 1e-12,
                  1.4, 1.99, 2 - 1e-15])
    got = af.special.erfcinv(af.asarray(y)).numpy()
    with mpmath.workdps(40):
        want = np.array([float(mpmath.erfinv(1 - mpmath.mpf(v))) if 1e-30 < v
                         else float(mpmath.findroot(lambda z, v=v: mpmath.log(mpmath.erfc(z))
                                                    - mpmath.log(mpmath.mpf(v)), 20))
                         for v in y])
    assert_allclose(got, want, rtol=5e-15)
    # torch has no erfcinv: in the body it is erfinv(1 - y) (1 - y exact there), whose
    # gradient torch differentiates; and -sqrt(pi)/2 exp(x**2) everywhere
    mid = np.linspace(0.55, 1.45, 31)
    t = af.asarray(mid, requires_grad=True)
    af.special.erfcinv(t).sum().backward()
    tt = torch.tensor(mid, requires_grad=True)
    torch.special.erfinv(1 - tt).sum().backward()
    assert_allclose(t.grad.numpy(), tt.grad.numpy(), rtol=1e-13)
    t = af.asarray(y, requires_grad=True)
    af.special.erfcinv(t).sum().backward()
    assert_allclose(t.grad.numpy(), -np.sqrt(np.pi) / 2 * np.exp(want ** 2), rtol=1e-12)


def test_rel_entr_extreme_ratios():
    x = np.array([1e-300, 1e300, 1.0, 1.0 + 1e-12])
    y = np.array([1e300, 1e-300, 1.0, 1.0])
    got, want = _values("rel_entr", x, y)
    assert_allclose(got, want, rtol=1e-14)


def test_scipy_special_semantics_on_every_backend(backend):
    x = af.asarray([0.0, 1.0, -1.0, 0.5, float("nan")], dtype=af.float64)
    ref = np.array([0.0, 1.0, -1.0, 0.5, np.nan])
    for name in UNARY:
        got = getattr(af.special, name)(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = getattr(sp, name)(ref)
        assert_allclose(got.numpy(), want,
                        rtol=1e-14, equal_nan=True, err_msg=name)


def test_integer_input_becomes_the_default_float_as_pytorch():
    t = af.special.erfc(af.asarray([0, 1, 2]))
    ref = torch.special.erfc(torch.tensor([0, 1, 2]))
    assert str(t.dtype) == "float32" and ref.dtype == torch.float32
    assert_allclose(t.numpy(), ref.numpy(), rtol=1e-6)


# --- gradients against PyTorch -------------------------------------------------------------

TORCH_UNARY = {
    "erfc": (-3.0, 3.0), "expit": (-6.0, 6.0), "logit": (0.02, 0.98), "entr": (0.05, 4.0),
    "sinc": (-3.0, 3.0), "ndtr": (-4.0, 4.0), "log_ndtr": (-30.0, 6.0),
    "erfinv": (-0.999, 0.999), "ndtri": (1e-6, 1 - 1e-6),
    "gammaln": (-4.9, 8.0), "digamma": (-4.9, 8.0),
    "i0": (-12.0, 12.0), "i0e": (-12.0, 12.0), "i1": (-12.0, 12.0), "i1e": (-12.0, 12.0),
}


@pytest.mark.parametrize("name", list(TORCH_UNARY))
def test_unary_gradient_matches_torch(name):
    lo, hi = TORCH_UNARY[name]
    x = np.concatenate([np.linspace(lo, hi, 57),
                        [0.0, 1e-4, -1e-4] if name in ("sinc", "i1", "i1e") else []])
    if name in ("gammaln", "digamma"):
        x = x[np.abs(x - np.round(x)) > 0.05]  # away from the poles
    t = af.asarray(x, requires_grad=True)
    tt = torch.tensor(x, requires_grad=True)
    y = getattr(af.special, name)(t)
    yt = getattr(torch.special, name)(tt)
    assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-300)
    w = np.cos(np.arange(x.size))
    (g,) = af.autograd.grad(af.sum(y * af.asarray(w)), [t], create_graph=True)
    (gt,) = torch.autograd.grad((yt * torch.tensor(w)).sum(), [tt], create_graph=True)
    assert_allclose(g.detach().numpy(), gt.detach().numpy(), rtol=1e-9, atol=1e-12)
    # second derivative (double backward through the rule)
    (h,) = af.autograd.grad(af.sum(g), [t])
    (ht,) = torch.autograd.grad(gt.sum(), [tt])
    h, ht = h.numpy(), ht.numpy()
    if name == "sinc":  # PyTorch's is NaN at 0 (its rule masks 0/0 only at first order)
        assert np.isnan(ht[x == 0]).all()
        assert_allclose(h[x == 0], w[x == 0] * (-np.pi ** 2 / 3), rtol=1e-12)
        h, ht = h[x != 0], ht[x != 0]
    assert_allclose(h, ht, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_binary_gradient_matches_torch(name):
    x = np.array([0.0, 0.0, 0.0, 0.0, 1.5, -2.0, 3.0, 0.7])
    y = np.array([0.0, 2.0, -1.0, -3.0, 0.3, 4.0, 0.9, 1.1])
    t1, t2 = af.asarray(x, requires_grad=True), af.asarray(y, requires_grad=True)
    u1, u2 = torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)
    out = getattr(af.special, name)(t1, t2)
    ref = getattr(torch.special, name)(u1, u2)
    assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-14)
    g1, g2 = af.autograd.grad(af.sum(out), [t1, t2])
    r1, r2 = torch.autograd.grad(ref.sum(), [u1, u2])
    assert_allclose(g1.numpy(), r1.numpy(), rtol=1e-14)
    assert_allclose(g2.numpy(), r2.numpy(), rtol=1e-14)
    # forward mode: the same partial derivatives (dual numbers)
    import arrayflow.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        d = fwAD.make_dual(af.asarray(x), af.ones_like(af.asarray(x)))
        tan = fwAD.unpack_dual(getattr(af.special, name)(d, af.asarray(y))).tangent
    finite = np.isfinite(r1.numpy())
    assert_allclose(tan.numpy()[finite], r1.numpy()[finite], rtol=1e-14)


def test_binary_broadcast_and_python_scalar_gradients():
    x = af.asarray(np.linspace(0.5, 2.0, 6).reshape(2, 3), requires_grad=True)
    y = af.asarray(np.array([0.5, 1.0, 3.0]), requires_grad=True)
    ux = torch.tensor(x.detach().numpy(), requires_grad=True)
    uy = torch.tensor(y.detach().numpy(), requires_grad=True)
    gx, gy = af.autograd.grad(af.sum(af.special.xlogy(x, y)), [x, y])
    rx, ry = torch.autograd.grad(torch.special.xlogy(ux, uy).sum(), [ux, uy])
    assert gy.shape == (3,)
    assert_allclose(gx.numpy(), rx.numpy(), rtol=1e-14)
    assert_allclose(gy.numpy(), ry.numpy(), rtol=1e-14)
    (gs,) = af.autograd.grad(af.sum(af.special.xlog1py(2.5, y)), [y])
    (rs,) = torch.autograd.grad(torch.special.xlog1py(2.5, uy).sum(), [uy])
    assert_allclose(gs.numpy(), rs.numpy(), rtol=1e-14)


def test_digamma_derivative_is_trigamma_to_full_precision():
    # PyTorch's trigamma (digamma's backward) is off by up to 5e-10 relative; SciPy's
    # polygamma(1, x) is the reference here
    x = np.concatenate([np.linspace(0.05, 30.0, 300), -np.linspace(0.05, 9.95, 100) - 0.013])
    t = af.asarray(x, requires_grad=True)
    (g,) = af.autograd.grad(af.sum(af.special.digamma(t)), [t])
    assert_allclose(g.numpy(), sp.polygamma(1, x), rtol=2e-14)
    (g,) = af.autograd.grad(af.sum(af.special.gammaln(t)), [t])
    assert_allclose(g.numpy(), sp.psi(x), rtol=1e-13, atol=1e-15)


def test_rel_entr_gradient_against_finite_differences():
    x = af.asarray([0.3, 1.5, 2.0], dtype=af.float64, requires_grad=True)
    y = af.asarray([0.7, 0.4, 2.5], dtype=af.float64, requires_grad=True)
    assert af.autograd.gradcheck(af.special.rel_entr, (x, y))
    gx, gy = af.autograd.grad(af.sum(af.special.rel_entr(x, y)), [x, y])
    xv, yv = x.detach().numpy(), y.detach().numpy()
    assert_allclose(gx.numpy(), np.log(xv / yv) + 1, rtol=1e-14)
    assert_allclose(gy.numpy(), -xv / yv, rtol=1e-14)


# --- SciPy dispatches to arrayflow.special -------------------------------------------------

def test_scipy_special_dispatches_to_arrayflow_with_a_gradient():
    # SciPy reads SCIPY_ARRAY_API when it is imported: a fresh interpreter
    code = textwrap.dedent("""
        import numpy as np, torch, scipy.special as sp, arrayflow as af
        x = np.array([0.2, 0.6, 0.9])
        names = ["erf", "erfc", "erfinv", "expit", "logit", "entr", "ndtr", "log_ndtr",
                 "ndtri", "gammaln", "psi", "i0", "i0e", "i1", "i1e"]
        for name in names:
            t = af.asarray(x, requires_grad=True)
            y = getattr(sp, name)(t)
            assert isinstance(y, af.Tensor), (name, type(y))
            assert y.grad_fn is not None, name
            y.sum().backward()
            if name == "psi":  # torch's trigamma is good to 5e-10 only: SciPy's polygamma
                want = sp.polygamma(1, x)
            else:
                tt = torch.tensor(x, requires_grad=True)
                getattr(torch.special, name)(tt).sum().backward()
                want = tt.grad.numpy()
            np.testing.assert_allclose(t.grad.numpy(), want, rtol=1e-12)
        for name in ["xlogy", "xlog1py", "rel_entr"]:
            t = af.asarray(x, requires_grad=True)
            y = getattr(sp, name)(t, t)
            assert isinstance(y, af.Tensor) and y.grad_fn is not None, name
            np.testing.assert_allclose(y.detach().numpy(), getattr(sp, name)(x, x), rtol=1e-14)
        print("ok")
    """)
    assert run_with_scipy_array_api(code).strip().endswith("ok")


# --- softmax, log_softmax, logsumexp ---------------------------------------------------------

@pytest.mark.parametrize("name", ["softmax", "log_softmax", "logsumexp"])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
def test_reductions_match_scipy(name, axis, backend):
    x = np.random.default_rng(1).normal(size=(3, 4, 5)) * 30
    got = getattr(af.special, name)(af.asarray(x), axis=axis)
    want = getattr(sp, name)(x, axis=axis)
    assert tuple(got.shape) == np.shape(want)
    assert_allclose(got.numpy(),
                    want, rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "logsumexp"])
def test_reductions_special_values_as_scipy(name):
    e = np.array([[-np.inf, -np.inf], [np.inf, -np.inf], [np.inf, np.inf], [np.nan, 1.0],
                  [np.inf, 1.0], [0.0, -1000.0]])
    got = getattr(af.special, name)(af.asarray(e), axis=1).numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(sp, name)(e, axis=1)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("name", ["softmax", "log_softmax", "logsumexp"])
def test_reduction_gradients_match_torch(name, keepdims):
    x = np.random.default_rng(2).normal(size=(3, 4)) * 3
    t, tt = af.asarray(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    if name == "logsumexp":
        y = af.special.logsumexp(t, axis=1, keepdims=keepdims)
        yt = torch.logsumexp(tt, dim=1, keepdim=keepdims)
    else:
        if keepdims:
            pytest.skip("no keepdims")
        y = getattr(af.special, name)(t, axis=1)
        yt = getattr(torch.special, name)(tt, dim=1)
    w = np.cos(np.arange(int(np.prod(yt.shape)))).reshape(tuple(yt.shape))
    (g,) = af.autograd.grad(af.sum(y * af.asarray(w)), [t], create_graph=True)
    (gt,) = torch.autograd.grad((yt * torch.tensor(w)).sum(), [tt], create_graph=True)
    assert_allclose(g.detach().numpy(), gt.detach().numpy(), rtol=1e-12, atol=1e-14)
    (h,) = af.autograd.grad(af.sum(g * g), [t])
    (ht,) = torch.autograd.grad((gt * gt).sum(), [tt])
    assert_allclose(h.numpy(), ht.numpy(), rtol=1e-10, atol=1e-12)
    # forward mode against torch's
    import torch.autograd.forward_ad as tfw

    import arrayflow.autograd.forward_ad as fwAD
    v = np.sin(np.arange(x.size)).reshape(x.shape)
    kw = {"keepdims": keepdims} if name == "logsumexp" else {}
    with fwAD.dual_level():
        d = fwAD.make_dual(af.asarray(x), af.asarray(v))
        tan = fwAD.unpack_dual(getattr(af.special, name)(d, axis=1, **kw)).tangent.numpy()
    with tfw.dual_level():
        dt = tfw.make_dual(torch.tensor(x), torch.tensor(v))
        if name == "logsumexp":
            out = torch.logsumexp(dt, dim=1, keepdim=keepdims)
        else:
            out = getattr(torch.special, name)(dt, dim=1)
        want = tfw.unpack_dual(out).tangent.numpy()
    assert_allclose(tan, want, rtol=1e-12, atol=1e-14)


def test_reductions_default_to_every_axis_as_scipy():
    x = np.arange(6.0).reshape(2, 3)
    assert_allclose(af.special.softmax(af.asarray(x)).numpy(), sp.softmax(x), rtol=1e-15)
    assert af.special.logsumexp(af.asarray(x)).shape == ()
    assert_allclose(af.special.logsumexp(af.asarray(x)).numpy(), sp.logsumexp(x), rtol=1e-15)


def test_no_runtime_warning_at_the_conventional_zeros():
    # xlogy(0, 0) = 0 and logit(0) = -inf are values, not accidents: no NumPy warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        x = af.asarray([0.0, 0.0, 2.0], dtype=af.float64)
        y = af.asarray([0.0, -1.0, 3.0], dtype=af.float64)
        assert_allclose(af.special.xlogy(x, y).numpy(), [0.0, 0.0, 2 * np.log(3.0)])
        assert_allclose(af.special.xlog1py(x, y).numpy(), [0.0, 0.0, 2 * np.log(4.0)])
        assert_allclose(af.special.logit(af.asarray([0.0, 1.0])).numpy(), [-np.inf, np.inf])


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_logsumexp_weights_as_scipy(axis):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(3, 4))
    b = rng.uniform(-0.2, 2.0, size=(4,))
    b[1] = 0.0
    if axis != 0:  # (a column of zero weights holding inf: SciPy NaN, ours -inf)
        x[0, 1] = np.inf  # weight 0: left out, as SciPy
    got = af.special.logsumexp(af.asarray(x), axis=axis, b=af.asarray(b)).numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = sp.logsumexp(x, axis=axis, b=b)
    assert_allclose(got, want, rtol=1e-14, equal_nan=True)


def test_logsumexp_weights_gradients():
    rng = np.random.default_rng(4)
    t = af.asarray(rng.normal(size=(3, 4)), requires_grad=True)
    b = af.asarray(rng.uniform(0.5, 2.0, size=(4,)), requires_grad=True)
    f = lambda a, c: af.special.logsumexp(a, axis=1, b=c)  # noqa: E731
    assert af.autograd.gradcheck(f, (t, b))
    assert af.autograd.gradgradcheck(f, (t, b))  # saved inputs are the given ones
    gx, gb = af.autograd.grad(af.sum(f(t, b)), [t, b])
    assert gx.shape == (3, 4) and gb.shape == (4,)
    import arrayflow.autograd.forward_ad as fwAD
    v = rng.normal(size=(4,))
    with fwAD.dual_level():
        d = fwAD.make_dual(af.asarray(b.detach().numpy()), af.asarray(v))
        tan = fwAD.unpack_dual(f(af.asarray(t.detach().numpy()), d)).tangent.numpy()
    x, bv = t.detach().numpy(), b.detach().numpy()
    eps = 1e-6
    fd = (sp.logsumexp(x, axis=1, b=bv + eps * v) - sp.logsumexp(x, axis=1, b=bv - eps * v)) / (
        2 * eps)
    assert_allclose(tan, fd, rtol=1e-7)


# the functions of arrayflow/ops/special.py (each family module tests its own at every position)
@pytest.mark.parametrize("name", [n for n in af.ops.special.__all__ if n != "erf"])
def test_complex_input_raises_instead_of_a_wrong_value(name, backend):
    # the forwards are real formulas: on complex values they would compute something else
    z = af.asarray([1 + 1j, 0.5 - 2j])
    x = af.asarray([0.5, 1.0])
    args = (z, x) if name in ("xlogy", "xlog1py", "rel_entr") else (z,)
    with pytest.raises(TypeError, match=f"arrayflow.special.{name}: .*complex"):
        getattr(af.special, name)(*args)
    if name in ("xlogy", "xlog1py", "rel_entr"):
        with pytest.raises(TypeError, match="complex"):
            getattr(af.special, name)(x, z)


# (function, argument index) where SciPy dispatches and arrayflow has no derivative: the
# shape parameters (NotImplementedError at backward, as PyTorch's igamma in a)
NO_DERIVATIVE = sorted(
    [f"{n}:0" for n in ("gammainc", "gammaincc", "gammaincinv", "gammainccinv", "chdtr",
                        "chdtrc", "chdtri", "stdtr", "stdtrit", "zeta", "zetac")]
    + [f"{n}:{k}" for n in ("betainc", "betaincc", "betaincinv", "fdtr", "fdtrc", "fdtri",
                            "hyp1f1") for k in (0, 1)]
    + ["gdtr:1", "gdtrc:1", "lpmv:1"])


def test_every_function_scipy_dispatches_is_here_with_scipys_values_and_gradients():
    # SciPy's own list of the functions it dispatches to xp.special (its
    # _support_alternative_backends, with its own argument kinds): each, called on Tensors,
    # returns a Tensor (no conversion through NumPy, which would warn GraphBreakWarning) with
    # SciPy's values, and its gradient in every floating argument is SciPy's central
    # difference, or the backward raises NotImplementedError for the listed shape parameters
    code = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        from scipy_special_checks import check_every_function
        print(json.dumps(check_every_function()))
    """)
    out = json.loads(run_with_scipy_array_api(code).splitlines()[-1])
    assert len(out["names"]) >= 91
    assert (out["not_tensor"], out["wrong_value"], out["bad_gradient"]) == ([], [], [])
    assert out["no_derivative"] == NO_DERIVATIVE


def test_every_scipy_ufunc_with_a_counterpart_runs_it_on_tensors():
    # without SCIPY_ARRAY_API SciPy's ufuncs reach Tensor.__array_ufunc__, which runs the
    # arrayflow.special function of the same name (also erfcinv, expm1, log1p, which SciPy
    # does not dispatch): the same values and gradients
    from scipy_special_checks import check_every_function

    out = check_every_function(ufuncs_only=True)
    assert len(out["names"]) >= 90
    assert (out["not_tensor"], out["wrong_value"], out["bad_gradient"]) == ([], [], [])
    assert out["no_derivative"] == [n for n in NO_DERIVATIVE if not n.startswith("zeta:")]


@pytest.mark.parametrize("name", ["expm1", "log1p"])
def test_torch_special_spellings_of_expm1_log1p(name, backend):
    # torch.special.expm1 / log1p are torch.expm1 / log1p; af.special's are aliases of
    # af.expm1 / af.log1p (distinct objects, the same op): values and gradients vs torch
    x = np.array([-0.9, -1e-10, 0.0, 1e-12, 0.5, 3.0])
    t = af.asarray(x, requires_grad=True)
    y = getattr(af.special, name)(t)
    assert getattr(af.special, name) is not getattr(af, name)
    assert getattr(af.special, name).canonical is getattr(af, name)
    tt = torch.tensor(x, requires_grad=True)
    yt = getattr(torch.special, name)(tt)
    assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-15, atol=0)
    w = np.cos(np.arange(x.size))
    (y * af.asarray(w)).sum().backward()
    (yt * torch.tensor(w)).sum().backward()
    assert_allclose(t.grad.numpy(), tt.grad.numpy(), rtol=1e-15, atol=0)
