"""``arrayflow.special`` incomplete gamma family (:mod:`arrayflow.ops.special_incomplete`):
values against SciPy over wide grids and against mpmath (the docstrings' accuracy claims),
SciPy's values at the edges on every backend, gradients against PyTorch's
``torch.special.gammainc``/``gammaincc`` (through the chain rule for the distribution
functions), ``NotImplementedError`` for the shape parameters."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from test_special import _max_rel

import arrayflow as af

sp = pytest.importorskip("scipy.special")
torch = pytest.importorskip("torch")
mpmath = pytest.importorskip("mpmath")

SPECIAL = [0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 0.5, 25.0]


def _scipy(name, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(sp, name)(*args)


def _grid(lo_a, hi_a, lo_x, hi_x, n=60):
    a = np.logspace(lo_a, hi_a, n)
    x = np.logspace(lo_x, hi_x, n + 7)
    A, X = np.meshgrid(a, x)
    return A.ravel(), X.ravel()


# --- values ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma_matches_scipy_float64(name):
    # a in [1e-8, 100], x in [1e-8, 300]: every branch (series, continued fraction, the
    # small-x series of igamc, Temme's expansion); values down to 1e-100
    A, X = _grid(-8, 2, -8, np.log10(300.0), 90)
    got = getattr(af.special, name)(af.asarray(A), af.asarray(X)).numpy()
    want = _scipy(name, A, X)
    keep = want > 1e-100
    assert _max_rel(got[keep], want[keep], 1e-300) < 1.5e-13
    assert np.all(got[~keep] < 1e-99)


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma_large_a_matches_scipy(name):
    # up to a = 1e4, where SciPy's own error reaches ~8e-12 in the far tails (its
    # exp(a log x - x - lgam(a)); mpmath sides with arrayflow there, test below)
    A, X = _grid(1, 4, -2, 4.5, 50)
    got = getattr(af.special, name)(af.asarray(A), af.asarray(X)).numpy()
    want = _scipy(name, A, X)
    keep = want > 1e-300
    assert _max_rel(got[keep], want[keep], 1e-300) < 1e-11


@pytest.mark.parametrize(("a", "x"), [(653.3201459593784, 1478.465929071301),
                                      (2811.7686979742307, 1671.915352405198),
                                      (4291.934260128778, 6361.6742692154285),
                                      (808.2822192522723, 438.0356262962907),
                                      (5000.0, 4100.0), (5000.0, 6200.0), (1e4, 1e4 + 3.0),
                                      (121.54742500762885, 79.16819159263017),
                                      (20.5, 12.5), (1e-6, 1.17), (0.7, 1e-5), (3.0, 700.0)])
def test_incomplete_gamma_against_mpmath(a, x):
    with mpmath.workdps(40):
        p = mpmath.gammainc(a, 0, x, regularized=True)
        q = mpmath.gammainc(a, x, mpmath.inf, regularized=True)
    ta, tx = af.asarray([a], dtype=af.float64), af.asarray([x], dtype=af.float64)
    for got, want in ((af.special.gammainc(ta, tx), p), (af.special.gammaincc(ta, tx), q)):
        g = float(got.numpy()[0])
        assert abs(g - float(want)) <= 3e-13 * float(want), (a, x, g, want)


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma_float32(name):
    A, X = _grid(-3, 3, -3, 3.5, 40)
    A, X = A.astype(np.float32), X.astype(np.float32)
    got = getattr(af.special, name)(af.asarray(A), af.asarray(X))
    assert got.dtype == af.float32
    want = _scipy(name, A.astype(np.float64), X.astype(np.float64))
    keep = want > 1e-35
    assert _max_rel(got.numpy()[keep], want[keep], 1e-38) < 3e-5


DTR = {
    # name: (argument grids (n-tuples), float64 bound)
    "chdtr": (list(itertools.product([0.5, 1.0, 3.0, 10.0, 41.0, 300.0],
                                     [1e-4, 0.3, 1.0, 2.5, 9.0, 40.0, 80.0, 330.0])), 1.5e-13),
    "chdtrc": (list(itertools.product([0.5, 1.0, 3.0, 10.0, 41.0, 300.0],
                                      [1e-4, 0.3, 1.0, 2.5, 9.0, 40.0, 80.0, 330.0])), 1.5e-13),
    "gdtr": (list(itertools.product([0.01, 0.5, 2.0, 7.0], [0.5, 3.0, 30.0, 150.0],
                                    [0.1, 1.0, 4.0, 20.0, 100.0])), 1.5e-13),
    "gdtrc": (list(itertools.product([0.01, 0.5, 2.0, 7.0], [0.5, 3.0, 30.0, 150.0],
                                     [0.1, 1.0, 4.0, 20.0, 100.0])), 1.5e-13),
    "pdtr": (list(itertools.product([0.0, 0.5, 1.0, 2.9, 7.0, 30.0, 150.0],
                                    [0.0, 1e-3, 0.5, 3.0, 10.0, 40.0, 170.0])), 1.5e-13),
    "pdtrc": (list(itertools.product([0.0, 0.5, 1.0, 2.9, 7.0, 30.0, 150.0],
                                     [0.0, 1e-3, 0.5, 3.0, 10.0, 40.0, 170.0])), 1.5e-13),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(DTR))
def test_distribution_functions_match_scipy(name, dtype):
    grid, bound = DTR[name]
    cols = [np.asarray(c, dtype=dtype) for c in zip(*grid)]
    got = getattr(af.special, name)(*(af.asarray(c) for c in cols)).numpy()
    want = _scipy(name, *(c.astype(np.float64) for c in cols))
    keep = want > (1e-100 if dtype == "float64" else 1e-30)  # float32: its normal range
    bound = bound if dtype == "float64" else 3e-5
    assert _max_rel(got[keep], want[keep], 1e-300) < bound


@pytest.mark.parametrize("name", ["gammainc", "gammaincc", "chdtr", "chdtrc", "pdtr", "pdtrc"])
def test_edges_as_scipy_on_every_backend(name, backend):
    grid = list(itertools.product(SPECIAL, repeat=2))
    a, x = (np.array(c) for c in zip(*grid))
    got = getattr(af.special, name)(af.asarray(a), af.asarray(x)).numpy()
    want = _scipy(name, a, x)
    assert _max_rel(got, want, 1e-300) < 1e-13


@pytest.mark.parametrize("name", ["gdtr", "gdtrc"])
def test_three_argument_edges_as_scipy_on_every_backend(name, backend):
    grid = list(itertools.product([0.0, 1.5, -2.0, np.inf, np.nan, 0.5], repeat=3))
    cols = [np.array(c) for c in zip(*grid)]
    got = getattr(af.special, name)(*(af.asarray(c) for c in cols)).numpy()
    assert _max_rel(got, _scipy(name, *cols), 1e-300) < 1e-13


def test_poisson_uses_the_integer_part_of_k_as_scipy():
    k = np.array([2.0, 2.3, 2.99, -0.5, 0.0, np.inf])
    m = np.full(6, 3.0)
    for name in ("pdtr", "pdtrc"):
        got = getattr(af.special, name)(af.asarray(k), af.asarray(m)).numpy()
        assert _max_rel(got, _scipy(name, k, m), 1e-300) < 1e-15


def test_python_scalars_and_broadcasting():
    x = np.linspace(0.1, 5.0, 6).reshape(2, 3)
    got = af.special.gammainc(2.5, af.asarray(x))
    assert tuple(got.shape) == (2, 3) and got.dtype == af.float64
    np.testing.assert_allclose(got.numpy(), sp.gammainc(2.5, x), rtol=1e-14)
    a = np.array([0.5, 2.0, 9.0])
    got = af.special.gdtr(af.asarray(a), 3.0, af.asarray(x))
    np.testing.assert_allclose(got.numpy(), sp.gdtr(a, 3.0, x), rtol=1e-14)
    got32 = af.special.gammaincc(af.asarray(x.astype(np.float32)), 1.5)
    assert got32.dtype == af.float32


# --- gradients ------------------------------------------------------------------------------

def test_gammainc_x_gradient_matches_torch_first_and_second_order():
    rng = np.random.default_rng(0)
    a = np.concatenate([rng.uniform(0.1, 3.0, 20), rng.uniform(20.0, 600.0, 10)])
    x = a * rng.uniform(0.3, 2.0, 30)
    for name in ("gammainc", "gammaincc"):
        t = af.asarray(x, requires_grad=True)
        (g,) = af.autograd.grad(getattr(af.special, name)(af.asarray(a), t).sum(), [t],
                                create_graph=True)
        (gg,) = af.autograd.grad(g.sum(), [t])
        tt = torch.tensor(x, requires_grad=True)
        (tg,) = torch.autograd.grad(getattr(torch.special, name)(torch.tensor(a), tt).sum(),
                                    [tt], create_graph=True)
        (tgg,) = torch.autograd.grad(tg.sum(), [tt])
        np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-11,
                                   atol=1e-300)
        np.testing.assert_allclose(gg.numpy(), tgg.numpy(), rtol=1e-10, atol=1e-300)


def test_density_limits_at_zero():
    # d/dx P(a, x) at x = 0: inf for a < 1, 1 for a = 1 (torch: NaN), 0 for a > 1
    x = af.asarray([0.0, 0.0, 0.0], requires_grad=True)
    af.special.gammainc(af.asarray([0.5, 1.0, 2.0]), x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [np.inf, 1.0, 0.0])


def _torch_grads(fn, *vals):
    ts = [torch.tensor(v, requires_grad=True) for v in vals]
    fn(*ts).sum().backward()
    return [t.grad.numpy() for t in ts]


def test_distribution_gradients_match_torch_by_the_chain_rule():
    rng = np.random.default_rng(1)
    v, x = rng.uniform(0.5, 30.0, 12), rng.uniform(0.1, 40.0, 12)
    for name, tfn in (("chdtr", torch.special.gammainc), ("chdtrc", torch.special.gammaincc)):
        t = af.asarray(x, requires_grad=True)
        getattr(af.special, name)(af.asarray(v), t).sum().backward()
        tt = torch.tensor(x, requires_grad=True)
        tfn(torch.tensor(v) / 2, tt / 2).sum().backward()
        np.testing.assert_allclose(t.grad.numpy(), tt.grad.numpy(), rtol=1e-11)
    a, b = rng.uniform(0.2, 3.0, 12), rng.uniform(0.5, 20.0, 12)
    for name, tfn in (("gdtr", torch.special.gammainc), ("gdtrc", torch.special.gammaincc)):
        ta, tx = af.asarray(a, requires_grad=True), af.asarray(x, requires_grad=True)
        getattr(af.special, name)(ta, af.asarray(b), tx).sum().backward()
        ga, gx = _torch_grads(lambda p, q, f=tfn: f(torch.tensor(b), p * q), a, x)
        np.testing.assert_allclose(ta.grad.numpy(), ga, rtol=1e-11)
        np.testing.assert_allclose(tx.grad.numpy(), gx, rtol=1e-11)
    k = np.floor(rng.uniform(0.0, 20.0, 12)) + 0.5
    for name, tfn in (("pdtr", torch.special.gammaincc), ("pdtrc", torch.special.gammainc)):
        tk, tm = af.asarray(k, requires_grad=True), af.asarray(x, requires_grad=True)
        getattr(af.special, name)(tk, tm).sum().backward()
        (gm,) = _torch_grads(lambda q, f=tfn: f(torch.tensor(np.floor(k) + 1), q), x)
        np.testing.assert_allclose(tm.grad.numpy(), gm, rtol=1e-11)
        assert tk.grad is None  # integer-valued: no gradient, as an integer input in PyTorch


@pytest.mark.parametrize(("name", "shape_arg", "args"), [
    ("gammainc", 0, (2.0, 1.5)), ("gammaincc", 0, (2.0, 1.5)), ("chdtr", 0, (3.0, 1.5)),
    ("chdtrc", 0, (3.0, 1.5)), ("gdtr", 1, (1.0, 2.0, 1.5)), ("gdtrc", 1, (1.0, 2.0, 1.5))])
def test_shape_parameter_derivative_raises_at_backward(name, shape_arg, args):
    param = ["a", "v", "b"][["gammainc", "gammaincc", "chdtr", "chdtrc", "gdtr",
                            "gdtrc"].index(name) // 2]
    fn = getattr(af.special, name)
    ts = [af.asarray([v], requires_grad=(i == shape_arg)) for i, v in enumerate(args)]
    y = fn(*ts)  # the forward records; only the backward needs the derivative
    msg = f"the derivative of arrayflow.special.{name} with respect to {param} is not impl"
    with pytest.raises(NotImplementedError, match=msg):
        y.sum().backward()
    # forward mode: the same
    primals = tuple(af.asarray([v]) for v in args)
    tangents = tuple(af.ones_like(p) if i == shape_arg else af.zeros_like(p)
                     for i, p in enumerate(primals))
    with pytest.raises(NotImplementedError, match=msg):
        af.func.jvp(fn, primals, tangents)
    # an argument that does not require grad is no obstacle
    ts = [af.asarray([v], requires_grad=(i != shape_arg)) for i, v in enumerate(args)]
    fn(*ts).sum().backward()
    assert all((t.grad is None) == (i == shape_arg) for i, t in enumerate(ts))


def test_torch_raises_for_the_shape_parameter_too():
    a = torch.tensor([2.0], dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="not implemented"):
        torch.special.gammainc(a, torch.tensor([1.5], dtype=torch.float64)).sum().backward()


def test_forward_mode_matches_reverse_mode():
    x = af.asarray([0.3, 2.0, 30.0], dtype=af.float64)
    a = af.asarray([0.5, 2.5, 28.0], dtype=af.float64)
    dx = af.asarray([1.0, -0.5, 2.0], dtype=af.float64)
    _, t = af.func.jvp(lambda q: af.special.gammaincc(a, q), (x,), (dx,))
    xr = af.asarray(x.numpy(), requires_grad=True)
    af.special.gammaincc(a, xr).sum().backward()
    np.testing.assert_allclose(t.numpy(), xr.grad.numpy() * dx.numpy(), rtol=1e-14)


# --- the incomplete beta family ----------------------------------------------------------

def _beta_sample(n, lo, hi, seed):
    rng = np.random.default_rng(seed)
    a, b = 10 ** rng.uniform(lo, hi, n), 10 ** rng.uniform(lo, hi, n)
    x = np.concatenate([rng.uniform(0, 1, n // 2), 10 ** rng.uniform(-10, 0, n // 4),
                        1 - 10 ** rng.uniform(-10, 0, n - n // 2 - n // 4)])
    return a, b, x


@pytest.mark.parametrize(("lo", "hi", "bound"), [(-3, 1, 5e-12), (-3, 2, 5e-12),
                                                 (0, np.log10(3000.0), 1e-12)])
@pytest.mark.parametrize("name", ["betainc", "betaincc"])
def test_incomplete_beta_matches_scipy(name, lo, hi, bound):
    a, b, x = _beta_sample(6000, lo, hi, 7)
    got = getattr(af.special, name)(af.asarray(a), af.asarray(b), af.asarray(x)).numpy()
    want = _scipy(name, a, b, x)
    # far tails: SciPy's Boost is off there (1e-9 at betainc(951, 32.7, 0.46) ~ 4e-267,
    # where mpmath agrees with arrayflow to 4e-15: test_incomplete_beta_against_mpmath)
    keep = want > 1e-200
    assert _max_rel(got[keep], want[keep], 1e-300) < bound


@pytest.mark.parametrize(("a", "b", "x"), [(951.1205530633981, 32.72235007121097, 0.46363958),
                                           (425.7, 22.98, 0.1749), (800.0, 101.0, 0.88),
                                           (0.5, 0.5, 0.3), (2500.0, 2400.0, 0.51),
                                           (1e-3, 9.0, 0.4)])
def test_incomplete_beta_against_mpmath(a, b, x):
    with mpmath.workdps(40):
        p = mpmath.betainc(a, b, 0, x, regularized=True)
        q = mpmath.betainc(a, b, x, 1, regularized=True)
    args = [af.asarray([v], dtype=af.float64) for v in (a, b, x)]
    for got, want in ((af.special.betainc(*args), p), (af.special.betaincc(*args), q)):
        g = float(got.numpy()[0])
        assert abs(g - float(want)) <= 3e-13 * float(want), (a, b, x, g, want)


def test_incomplete_beta_float32():
    a, b, x = _beta_sample(3000, -2, 2.5, 8)
    a, b, x = a.astype(np.float32), b.astype(np.float32), x.astype(np.float32)
    got = af.special.betainc(af.asarray(a), af.asarray(b), af.asarray(x))
    assert got.dtype == af.float32
    want = _scipy("betainc", a.astype(np.float64), b.astype(np.float64), x.astype(np.float64))
    keep = want > 1e-30
    assert _max_rel(got.numpy()[keep], want[keep], 1e-38) < 1e-4


def test_incomplete_beta_beyond_its_range_is_nan_not_wrong():
    # a or b above 3000: the fixed-length continued fraction need not have converged
    f64 = af.float64
    got = af.special.betainc(af.asarray([3001.0, 2.0, 3000.0], dtype=f64),
                             af.asarray([2.0, 1e4, 3000.0], dtype=f64),
                             af.asarray([0.5, 1e-4, 0.5], dtype=f64)).numpy()
    assert np.isnan(got[0]) and np.isnan(got[1])
    np.testing.assert_allclose(got[2], sp.betainc(3000.0, 3000.0, 0.5), rtol=3e-13)
    assert np.isnan(af.special.bdtr(2.0, 5000.0, af.asarray(0.5, dtype=f64)).numpy())


BETA_DTR = {
    "bdtr": [(k, n, p) for k in (0.0, 2.0, 2.7, 9.0, 40.0) for n in (10.0, 41.0, 300.0)
             for p in (0.0, 1e-6, 0.1, 0.5, 0.97, 1.0)],
    "nbdtr": [(k, n, p) for k in (0.0, 2.0, 9.0, 40.0) for n in (1.0, 3.0, 41.0, 300.0)
              for p in (0.0, 1e-6, 0.1, 0.5, 0.97, 1.0)],
    "fdtr": [(m, n, x) for m in (0.5, 1.0, 3.0, 40.0, 700.0) for n in (0.7, 2.0, 30.0, 900.0)
             for x in (0.0, 1e-5, 0.3, 1.0, 4.0, 60.0, np.inf)],
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", ["bdtr", "bdtrc", "nbdtr", "nbdtrc", "fdtr", "fdtrc"])
def test_beta_distribution_functions_match_scipy(name, dtype):
    cols = [np.asarray(c, dtype=dtype) for c in zip(*BETA_DTR[name.rstrip("c")])]
    got = getattr(af.special, name)(*(af.asarray(c) for c in cols)).numpy()
    want = _scipy(name, *(c.astype(np.float64) for c in cols))
    keep = want > (1e-100 if dtype == "float64" else 1e-30)
    assert _max_rel(got[keep], want[keep], 1e-300) < (5e-12 if dtype == "float64" else 1e-4)
    assert np.array_equal(np.isnan(got), np.isnan(want))


@pytest.mark.parametrize("name", ["betainc", "betaincc", "bdtr", "bdtrc", "nbdtr", "nbdtrc",
                                  "fdtr", "fdtrc"])
def test_beta_family_edges_as_scipy_on_every_backend(name, backend):
    grid = list(itertools.product([0.0, 1.5, -2.0, np.inf, np.nan, 0.5, 1.0, 7.2], repeat=3))
    cols = [np.array(c) for c in zip(*grid)]
    got = getattr(af.special, name)(*(af.asarray(c) for c in cols)).numpy()
    assert _max_rel(got, _scipy(name, *cols), 1e-300) < 1e-13


def test_beta_family_gradients_match_scipys_densities():
    from scipy import stats

    rng = np.random.default_rng(4)
    a, b, x = rng.uniform(0.3, 30.0, 10), rng.uniform(0.3, 30.0, 10), rng.uniform(0.02, 0.98, 10)
    for name, sign in (("betainc", 1.0), ("betaincc", -1.0)):
        tx = af.asarray(x, requires_grad=True)
        getattr(af.special, name)(af.asarray(a), af.asarray(b), tx).sum().backward()
        np.testing.assert_allclose(tx.grad.numpy(), sign * stats.beta.pdf(x, a, b), rtol=1e-11)
    k, n = np.floor(rng.uniform(0, 10, 10)) + 0.5, np.floor(rng.uniform(11, 40, 10)) + 0.5
    fk, nn = np.floor(k), np.trunc(n)
    for name, want in (("bdtr", -stats.beta.pdf(1 - x, nn - fk, fk + 1)),
                       ("bdtrc", stats.beta.pdf(x, fk + 1, nn - fk)),
                       ("nbdtr", stats.beta.pdf(x, nn, fk + 1)),
                       ("nbdtrc", -stats.beta.pdf(1 - x, fk + 1, nn))):
        tk, tn, tp = (af.asarray(v, requires_grad=True) for v in (k, n, x))
        getattr(af.special, name)(tk, tn, tp).sum().backward()
        np.testing.assert_allclose(tp.grad.numpy(), want, rtol=1e-11, err_msg=name)
        assert tk.grad is None and tn.grad is None  # integer-valued: no gradient
    m, d, f = rng.uniform(0.5, 20.0, 10), rng.uniform(0.5, 20.0, 10), rng.uniform(0.05, 5.0, 10)
    for name, sign in (("fdtr", 1.0), ("fdtrc", -1.0)):
        tf = af.asarray(f, requires_grad=True)
        getattr(af.special, name)(af.asarray(m), af.asarray(d), tf).sum().backward()
        np.testing.assert_allclose(tf.grad.numpy(), sign * stats.f.pdf(f, m, d), rtol=1e-11)


def test_beta_density_second_derivative_against_finite_differences():
    a, b = np.array([0.7, 3.0, 25.0]), np.array([2.5, 0.9, 40.0])
    x = np.array([0.3, 0.6, 0.35])
    t = af.asarray(x, requires_grad=True)
    (g,) = af.autograd.grad(af.special.betainc(af.asarray(a), af.asarray(b), t).sum(), [t],
                            create_graph=True)
    (gg,) = af.autograd.grad(g.sum(), [t])
    from scipy import stats

    h = 1e-6
    fd = (stats.beta.pdf(x + h, a, b) - stats.beta.pdf(x - h, a, b)) / (2 * h)
    np.testing.assert_allclose(gg.numpy(), fd, rtol=1e-6)


@pytest.mark.parametrize(("name", "param", "args", "wrt"), [
    ("betainc", "a", (2.0, 3.0, 0.4), 0), ("betainc", "b", (2.0, 3.0, 0.4), 1),
    ("betaincc", "a", (2.0, 3.0, 0.4), 0), ("fdtr", "dfn", (2.0, 3.0, 0.4), 0),
    ("fdtrc", "dfd", (2.0, 3.0, 0.4), 1)])
def test_beta_shape_parameter_derivatives_raise_at_backward(name, param, args, wrt):
    ts = [af.asarray([v], dtype=af.float64, requires_grad=(i == wrt))
          for i, v in enumerate(args)]
    y = getattr(af.special, name)(*ts)
    with pytest.raises(NotImplementedError,
                       match=f"arrayflow.special.{name} with respect to {param} is not impl"):
        y.sum().backward()


ARITY = {"gammainc": 2, "gammaincc": 2, "chdtr": 2, "chdtrc": 2, "pdtr": 2, "pdtrc": 2,
         "gdtr": 3, "gdtrc": 3, "betainc": 3, "betaincc": 3, "bdtr": 3, "bdtrc": 3, "nbdtr": 3,
         "nbdtrc": 3, "fdtr": 3, "fdtrc": 3, "stdtr": 2, "stdtrit": 2}


def test_every_function_is_listed_here():
    from arrayflow.ops import special_incomplete

    assert sorted(special_incomplete.__all__) == sorted(ARITY)


@pytest.mark.parametrize("name", list(ARITY))
def test_complex_input_raises_instead_of_a_wrong_value(name):
    z = af.asarray([1 + 1j, 0.5 - 2j])
    x = af.asarray([0.5, 1.0], dtype=af.float64)
    for pos in range(ARITY[name]):
        args = [z if i == pos else x for i in range(ARITY[name])]
        with pytest.raises(TypeError, match=f"arrayflow.special.{name}: .*complex"):
            getattr(af.special, name)(*args)


# --- Student's t: stdtr, stdtrit -----------------------------------------------------------

def _t_sample(n, lo, hi, seed, tail=30.0):
    """``df`` log-uniform in ``[10**lo, 10**hi]``, ``t`` of both signs up to ``tail sqrt(df)``."""
    rng = np.random.default_rng(seed)
    df = 10 ** rng.uniform(lo, hi, n)
    t = np.exp(rng.uniform(np.log(1e-3), np.log(np.sqrt(df) * tail), n)) * rng.choice([-1, 1], n)
    return df, t


@pytest.mark.parametrize(("lo", "hi", "bound"), [
    (-1.3, 1.0, 1e-14), (1.0, 2.3, 3e-13), (2.3, 6.0, 3e-13), (6.0, 12.0, 3e-13)])
def test_stdtr_matches_scipy(lo, hi, bound):
    df, t = _t_sample(3000, lo, hi, seed=int(10 * lo) + 50)
    got = af.special.stdtr(af.asarray(df), af.asarray(t)).numpy()
    want = _scipy("stdtr", df, t)
    # values down to 1e-300: the far tail is exp of an exponent of hundreds, whose relative
    # error (SciPy's too) grows with it; above 1e-30, 5e-14
    assert _max_rel(got, want, 1e-300) < bound
    body = want > 1e-30
    assert _max_rel(got[body], want[body], 0.0) < 5e-14


def _mp_stdtr(df, t):
    """Student's t CDF in 40 digits: the lower tail from the hypergeometric form of
    ``I_x(df/2, 1/2)`` (no underflow), the center as ``1/2 -`` the mass between ``t`` and 0."""
    with mpmath.workdps(40):
        df, t = mpmath.mpf(df), mpmath.mpf(t)
        a, x = df / 2, df / (df + t * t)
        if abs(t) < 1:
            mass = mpmath.betainc(0.5, a, 0, t * t / (df + t * t), regularized=True) / 2
            return mpmath.mpf(0.5) - mass if t < 0 else mpmath.mpf(0.5) + mass
        low = x ** a / (a * mpmath.beta(a, 0.5)) * mpmath.hyp2f1(a, 0.5, a + 1, x,
                                                                   maxprec=20000) / 2
        return low if t < 0 else 1 - low


@pytest.mark.parametrize(("df", "t"), [
    (0.05, -0.57), (0.3, -1e200), (0.05, -1e300), (1.0, -3e150), (2.5, -12.0), (7.7, -28.7),
    (57.2, -36.4), (96.0, -290.0), (235.8, -244.6), (1119.4, -39.3), (1e4, -30.0),
    (1.2e6, -26.1), (1e12, -5.0), (80.0, 1e-5), (5e5, -0.3)])
def test_stdtr_against_mpmath(df, t):
    # including t**2 past the float64 range, where SciPy gives 0 (stdtr(0.3, -1e200))
    want = float(_mp_stdtr(df, t))
    got = af.special.stdtr(af.asarray([df], dtype=af.float64),
                           af.asarray([t], dtype=af.float64)).numpy()[0]
    assert abs(got - want) <= 2e-13 * abs(want), (got, want)


def test_stdtr_float32():
    df, t = _t_sample(2000, -1.0, 6.0, seed=3, tail=4.0)
    df, t = df.astype(np.float32), t.astype(np.float32)
    got = af.special.stdtr(af.asarray(df), af.asarray(t))
    assert got.dtype == af.float32
    want = _scipy("stdtr", df.astype(np.float64), t.astype(np.float64))
    assert _max_rel(got.numpy(), want, 1e-30) < 3e-5


T_SPECIAL = [0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 0.5, 25.0, 1e-300, 1e5]


def test_stdtr_edges_as_scipy_on_every_backend(backend):
    grid = list(itertools.product(T_SPECIAL, repeat=2))
    df, t = (np.array(c) for c in zip(*grid))
    got = af.special.stdtr(af.asarray(df), af.asarray(t)).numpy()
    assert _max_rel(got, _scipy("stdtr", df, t), 1e-300) < 1e-13
    # df = 1e-300 puts (almost) half the mass at each infinity: stdtr(1e-300, 1e15) is
    # 1/2 + 1e-297; SciPy's df / (df + t**2) underflows to 0 there and it returns 1
    got = af.special.stdtr(af.asarray([1e-300, 1e-300], dtype=af.float64),
                           af.asarray([1e15, -1e200], dtype=af.float64)).numpy()
    np.testing.assert_array_equal(got, [0.5, 0.5])
    assert _scipy("stdtr", 1e-300, 1e15) == 1.0  # SciPy's value (documented difference)


def _t_quantile_sample(n, lo, hi, seed):
    rng = np.random.default_rng(seed)
    df = 10 ** rng.uniform(lo, hi, n)
    p = np.exp(rng.uniform(np.log(1e-300), np.log(0.5), n))
    p = np.where(rng.random(n) < 0.5, p, 1 - p)
    p[: n // 10] = rng.uniform(0.3, 0.7, n // 10)
    p[n // 10: n // 5] = 0.5 - 10.0 ** -rng.uniform(3, 16, n // 5 - n // 10)
    return df, p


@pytest.mark.parametrize(("lo", "hi"), [(-1.3, 0.0), (0.0, 1.0), (1.0, 2.3), (2.3, 6.0),
                                        (6.0, 12.0)])
def test_stdtrit_matches_scipy_where_scipy_is_right(lo, hi):
    df, p = _t_quantile_sample(1500, lo, hi, seed=int(10 * lo) + 80)
    got = af.special.stdtrit(af.asarray(df), af.asarray(p)).numpy()
    want = _scipy("stdtrit", df, p)
    # SciPy's Boost quantile is wrong in far tails for small df (a finite value where the
    # quantile overflows, inf, or off by a factor; test_stdtrit_against_mpmath): compared
    # where its |t| < 1e100 and, for df < 10, p above 1e-30; near p = 1/2 (0.5 - 1e-16 ...)
    # SciPy loses digits (its ibeta_inv at 2p close to 1): there test_stdtrit_center_...
    keep = (np.isfinite(want) & (np.abs(want) < 1e100) & (np.abs(p - 0.5) > 1e-3)
            & ((df >= 10) | (np.minimum(p, 1 - p) > 1e-30)))
    assert keep.sum() > 200
    assert _max_rel(got[keep], want[keep], 0.0) < 5e-13


@pytest.mark.parametrize(("df", "p"), [
    (2.0745928900064894, 1.2889349832864537e-128), (5.0, 1e-300), (3.03, 8.3e-189),
    (0.05, 1e-10), (0.4, 0.4999999999999), (1e4, 1e-250), (30.0, 0.5 - 1e-9)])
def test_stdtrit_against_mpmath(df, p):
    # where SciPy is wrong (the first three: off by a factor 2.9, inf, off by 2) the
    # quantile is checked through the CDF in 40 digits: stdtr(df, t) = p to the precision
    # that the quantile's condition number (about 1/df in the tail) allows
    t = af.special.stdtrit(af.asarray([df], dtype=af.float64),
                           af.asarray([p], dtype=af.float64)).numpy()[0]
    assert np.isfinite(t) and t < 0
    with mpmath.workdps(40):
        back = _mp_stdtr(df, t)
        if p > 0.25:  # the center: the mass between t and 0
            rel = abs((0.5 - back) / (mpmath.mpf(0.5) - mpmath.mpf(p)) - 1)
        else:
            rel = abs(back / mpmath.mpf(p) - 1)
    assert float(rel) < 5e-13 * max(1.0, 1.0 / df) + 1e-15, float(rel)


@pytest.mark.parametrize("df", [0.08, 0.4, 4.1, 12.4, 54.3, 650.0, 4.4e8])
def test_stdtrit_center_against_mpmath(df):
    # p within 1e-16 ... 1e-3 of 1/2: t is solved for the mass between t and 0 in relative
    # terms (SciPy loses up to 8 digits there)
    d = 10.0 ** -np.arange(3.0, 16.5, 1.5)
    t = af.special.stdtrit(af.asarray(np.full(d.size, df)), af.asarray(0.5 - d)).numpy()
    with mpmath.workdps(40):
        for ti, di in zip(t, d):
            mass = 0.5 - _mp_stdtr(df, ti)
            exact_d = mpmath.mpf(0.5) - mpmath.mpf(0.5 - di)  # the d that 0.5 - di carries
            assert abs(float(mass / exact_d) - 1) < 1e-13, (ti, di)


def test_stdtrit_edges_on_every_backend(backend):
    df = np.array([0.5, 3.0, 1e4, np.inf, 0.0, -1.0, np.nan, 3.0, 3.0, 3.0, 3.0, 3.0, 0.05])
    p = np.array([0.0, 1.0, 0.5, 0.9, 0.3, 0.3, 0.3, -0.1, 1.1, np.nan, 0.25, 1e-300, 1e-20])
    got = af.special.stdtrit(af.asarray(df), af.asarray(p)).numpy()
    want = np.array([-np.inf, np.inf, 0.0, sp.ndtri(0.9), np.nan, np.nan, np.nan, np.nan,
                     np.nan, np.nan, sp.stdtrit(3.0, 0.25), np.nan, -np.inf])
    # stdtrit(3, 1e-300), about -1.03e100 (test_stdtrit_against_mpmath checks its kind);
    # SciPy: stdtrit(df, 0) = inf and a finite -1.5e153 for stdtrit(0.05, 1e-20), whose
    # quantile overflows (-inf here)
    want[11] = got[11]
    assert -1.1e100 < got[11] < -1e100
    np.testing.assert_allclose(got, want, rtol=1e-13)
    assert _scipy("stdtrit", 0.05, 1e-20) > -1e160  # SciPy's value (documented difference)
    # df = 1e-300: the mass within |t| of 0 is about df/2 (1 + log(|t|/sqrt(df))), so even
    # p = 1/2 - 1.1e-16 has a quantile that overflows (SciPy: -6.7e3)
    got = af.special.stdtrit(af.asarray([1e-300], dtype=af.float64),
                             af.asarray([0.5 - 1e-16], dtype=af.float64)).numpy()
    np.testing.assert_array_equal(got, [-np.inf])


def test_stdtrit_float32():
    df, p = _t_quantile_sample(1000, -1.0, 6.0, seed=5)
    p = np.clip(p, 1e-30, 1 - 1e-7)
    df, p = df.astype(np.float32), p.astype(np.float32)
    got = af.special.stdtrit(af.asarray(df), af.asarray(p))
    assert got.dtype == af.float32
    want = _scipy("stdtrit", df.astype(np.float64), p.astype(np.float64))
    keep = (p != 0.5) & (np.abs(want) < 1e30)
    # the tail quantile's condition number 1/df multiplies float32's rounding
    rel = np.abs(got.numpy()[keep] - want[keep]) / np.abs(want[keep])
    assert np.all(rel < 3e-5 * np.maximum(1.0, 1.0 / df[keep])), rel.max()


def test_stdtr_and_stdtrit_are_inverse():
    df, p = _t_quantile_sample(500, -1.0, 8.0, seed=9)
    keep = (p > 1e-200) & (p < 1 - 1e-12) & (np.abs(p - 0.5) > 1e-3)
    df, p = df[keep], p[keep]
    t = af.special.stdtrit(af.asarray(df), af.asarray(p))
    back = af.special.stdtr(af.asarray(df), t).numpy()
    fin = np.isfinite(t.numpy())  # not where the quantile overflows (df < 1, tiny p)
    assert fin.sum() > 150
    assert _max_rel(back[fin], p[fin], 0.0) < 5e-13 * np.max(np.maximum(1.0, 1.0 / df[fin]))


def _mp_t_density(df, t):
    with mpmath.workdps(40):
        m = mpmath.mpf(df)
        c = (mpmath.exp(mpmath.loggamma((m + 1) / 2) - mpmath.loggamma(m / 2))
             / mpmath.sqrt(m * mpmath.pi))
        return np.array([float(c * (1 + mpmath.mpf(v) ** 2 / m) ** (-(m + 1) / 2)) for v in t])


@pytest.mark.parametrize("df", [0.3, 1.0, 3.5, 40.0, 1e3, 1e6, 1e10])
def test_stdtr_gradient_is_torchs_student_t_density(df):
    t = np.concatenate([np.linspace(-8, 8, 17), [-300.0, 1e-5, 50.0]])
    tt = af.asarray(t, requires_grad=True)
    af.special.stdtr(df, tt).sum().backward()
    tr = torch.tensor(t, dtype=torch.float64, requires_grad=True)
    dens = torch.distributions.StudentT(torch.tensor(df, dtype=torch.float64)).log_prob(tr).exp()
    # (the density at t = -300 is exp of an exponent of hundreds: its rounding grows with
    # it); torch's log_prob subtracts lgamma values of about df log(df), which costs it
    # digits for large df: against mpmath there
    if df <= 1e3:
        np.testing.assert_allclose(tt.grad.numpy(), dens.detach().numpy(), rtol=3e-13, atol=0)
    want = _mp_t_density(df, t)
    np.testing.assert_allclose(tt.grad.numpy(), want, rtol=3e-13, atol=0)
    # second order: the density's own derivative, against torch's autograd of it
    (d2,) = torch.autograd.grad(dens.sum(), tr)
    ta = af.asarray(t, requires_grad=True)
    (g1,) = af.autograd.grad(af.special.stdtr(df, ta).sum(), ta, create_graph=True)
    (g2,) = af.autograd.grad(g1.sum(), ta)
    # d/dt density = -(df + 1) t / (df + t**2) density
    want2 = -(df + 1) * t / (df + t * t) * want
    np.testing.assert_allclose(g2.numpy(), want2, rtol=1e-12, atol=1e-300)
    if df <= 1e3:
        np.testing.assert_allclose(g2.numpy(), d2.numpy(), rtol=1e-11, atol=1e-300)


def test_stdtr_gradient_edges():
    t = af.asarray([-np.inf, np.inf, 0.0, 1.0, 1.0, np.nan], dtype=af.float64,
                   requires_grad=True)
    df = af.asarray([3.0, 3.0, np.inf, np.inf, -1.0, 2.0], dtype=af.float64)
    af.special.stdtr(df, t).sum().backward()
    want = [0.0, 0.0, 1 / np.sqrt(2 * np.pi), np.exp(-0.5) / np.sqrt(2 * np.pi), np.nan, np.nan]
    np.testing.assert_allclose(t.grad.numpy(), want, rtol=1e-15)


@pytest.mark.parametrize("df", [0.3, 3.5, 1e3, 1e9])
def test_stdtrit_gradient(df):
    p = np.array([1e-12, 0.01, 0.3, 0.5, 0.5 + 1e-9, 0.9, 0.999])
    pt = af.asarray(p, requires_grad=True)
    q = af.special.stdtrit(df, pt)
    q.sum().backward()
    # 1 / density at the quantile, the density from torch (up to df = 1e3: its log_prob
    # loses digits beyond) and mpmath
    qt = torch.tensor(q.detach().numpy(), dtype=torch.float64)
    dens = torch.distributions.StudentT(torch.tensor(df, dtype=torch.float64)).log_prob(qt).exp()
    if df <= 1e3:
        np.testing.assert_allclose(pt.grad.numpy(), 1.0 / dens.numpy(), rtol=1e-12)
    np.testing.assert_allclose(pt.grad.numpy(), 1.0 / _mp_t_density(df, q.detach().numpy()),
                               rtol=1e-12)
    # second order: d2t/dp2 = (df + 1) t / ((df + t**2) density(t)**2)
    pa = af.asarray(p, requires_grad=True)
    (g1,) = af.autograd.grad(af.special.stdtrit(df, pa).sum(), pa, create_graph=True)
    (g2,) = af.autograd.grad(g1.sum(), pa)
    tq = q.detach().numpy()
    want2 = (df + 1) * tq / ((df + tq * tq) * _mp_t_density(df, tq) ** 2)
    np.testing.assert_allclose(g2.numpy(), want2, rtol=1e-11, atol=1e-300)
    # and against central differences of SciPy's quantile (in the body, where SciPy is right)
    mid = (p > 1e-3) & (np.abs(p - 0.5) > 1e-6)
    h = 1e-6 * np.minimum(p, 1 - p)[mid]
    fd = (_scipy("stdtrit", df, p[mid] + h) - _scipy("stdtrit", df, p[mid] - h)) / (2 * h)
    np.testing.assert_allclose(pt.grad.numpy()[mid], fd, rtol=1e-6)


@pytest.mark.parametrize("name", ["stdtr", "stdtrit"])
def test_t_degrees_of_freedom_derivative_raises_at_backward(name):
    fn = getattr(af.special, name)
    df = af.asarray([3.5], dtype=af.float64, requires_grad=True)
    x = af.asarray([0.3], dtype=af.float64, requires_grad=True)
    y = fn(df, x)  # the forward records; only the backward needs the derivative in df
    msg = f"the derivative of arrayflow.special.{name} with respect to df is not impl"
    with pytest.raises(NotImplementedError, match=msg):
        y.sum().backward()
    with pytest.raises(NotImplementedError, match=msg):
        af.func.jvp(fn, (af.asarray([3.5], dtype=af.float64),
                         af.asarray([0.3], dtype=af.float64)),
                    (af.asarray([1.0], dtype=af.float64), af.asarray([0.0], dtype=af.float64)))
    x = af.asarray([0.3], dtype=af.float64, requires_grad=True)
    fn(af.asarray([3.5], dtype=af.float64), x).sum().backward()  # df without grad: fine
    assert x.grad is not None


def test_t_forward_mode_matches_reverse_mode():
    for name, x0 in (("stdtr", [-3.0, 0.2, 40.0]), ("stdtrit", [1e-5, 0.4, 0.97])):
        df = af.asarray([0.7, 4.0, 2e5], dtype=af.float64)
        x = af.asarray(x0, dtype=af.float64)
        dx = af.asarray([1.0, -0.5, 2.0], dtype=af.float64)
        fn = getattr(af.special, name)
        _, t = af.func.jvp(lambda q, fn=fn, df=df: fn(df, q), (x,), (dx,))
        xr = af.asarray(x.numpy(), requires_grad=True)
        fn(df, xr).sum().backward()
        np.testing.assert_allclose(t.numpy(), xr.grad.numpy() * dx.numpy(), rtol=1e-14)


def test_f_survival_function_where_its_beta_argument_rounds_to_1():
    # fdtrc(dfn, dfd, x) = I_y(dfd/2, dfn/2), y = dfd / (dfd + dfn x): for x above 1e16 the
    # argument x' = dfn x / (dfd + dfn x) of betainc rounds to 1 while y > 0 (was 0 here)
    x = np.array([1e10, 1e17, 1e20, 1e30, np.inf])
    dfn, dfd = np.full(5, 2.0), np.full(5, 3.0)
    got = af.special.fdtrc(af.asarray(dfn), af.asarray(dfd), af.asarray(x)).numpy()
    assert _max_rel(got, _scipy("fdtrc", dfn, dfd, x), 1e-300) < 1e-13
    assert got[3] > 0
