"""``arrayflow.special``'s compositions of elementary functions (``arrayflow/ops/
special_elementary.py``): values against SciPy over wide grids (the docstrings' accuracy
claims), SciPy's special values (signed zeros, infinities, NaN, its cut-offs), exactness
where SciPy is exact, gradients against PyTorch (``exp2``, ``erfcx``) and against mpmath
derivatives elsewhere."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from test_special import _max_rel

import arrayflow as af

sp = pytest.importorskip("scipy.special")
torch = pytest.importorskip("torch")
mpmath = pytest.importorskip("mpmath")

EDGE = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1e-300, -1e-300, 1e300, -1e300,
        0.5, 1.0, -1.0, 2.0, 1e-20, -1e-20]
LOGS = np.logspace(-300, 300, 2001)


def _ref(name, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(sp, name)(*args)


def _ours(name, *args):
    return getattr(af.special, name)(*(af.asarray(a) for a in args)).numpy()


# name: (grid lo, grid hi, float64 bound, float32 bound): the docstrings' claims
UNARY = {
    "cbrt": (-1e6, 1e6, 3e-16, 2e-7),
    "exp2": (-1100.0, 1100.0, 0.0, 2e-7),
    "exp10": (-330.0, 330.0, 0.0, 2e-7),
    "sindg": (-1e6, 1e6, 3e-16, 2e-7),
    "cosdg": (-1e6, 1e6, 3e-16, 2e-7),
    "tandg": (-1e6, 1e6, 3e-16, 5e-7),
    "cotdg": (-1e6, 1e6, 3e-16, 5e-7),
    "cosm1": (-50.0, 50.0, 0.0, None),  # float32: absolute accuracy beyond pi/4 (below)
    "exprel": (-800.0, 800.0, 1e-15, 5e-7),
    "erfcx": (-30.0, 100.0, 1e-13, 1e-6),
}


def _grid(name, dtype):
    lo, hi = UNARY[name][:2]
    x = np.concatenate([np.linspace(lo, hi, 40001), np.linspace(-3, 3, 6001),
                        np.linspace(-720, 720, 2881), LOGS, -LOGS, EDGE])
    with np.errstate(over="ignore"):
        return x.astype(dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_matches_scipy_over_a_wide_grid(name, dtype):
    x = _grid(name, dtype)
    got, want = _ours(name, x), _ref(name, x)
    assert got.dtype == np.dtype(dtype)
    bound = UNARY[name][2 if dtype == "float64" else 3]
    if name == "cotdg" and dtype == "float32":
        # SciPy's float32 values are float64's, Cephes' 90 - x rounded: a relative error of
        # ~1.4e-14 / |x| (a pole at |x| <= 2**-47); here the reciprocal of tan(x) (below)
        keep = np.abs(x) > 1e-6
        x, got, want = x[keep], got[keep], want[keep]
    if bound is None:  # cosm1 in float32: cos(x) - 1 beyond pi/4, as SciPy
        assert np.array_equal(np.isnan(got), np.isnan(want))
        small = np.abs(x) <= np.pi / 4
        assert _max_rel(got[small], want[small], np.finfo(dtype).tiny) <= 2e-7
        assert np.max(np.abs(got[~small] - want[~small])[~np.isnan(want[~small])]) <= 2.5e-7
        return
    assert _max_rel(got, want, np.finfo(dtype).tiny) <= bound


def test_erfcx_is_more_accurate_than_its_2exp_x2_where_scipy_rounds_x2():
    # for x < -6.1 SciPy computes 2 exp(x*x), with x*x rounded (error up to ~7e-14 at -26)
    x = np.array([-26.04, -20.3, -10.1, -6.2, -3.3, 0.7, 2.0, 5.0, 27.5, 49.0, 60.0, 1e4])
    got = _ours("erfcx", x)
    mpmath.mp.dps = 40
    want = np.array([float(mpmath.exp(mpmath.mpf(v) ** 2) * mpmath.erfc(mpmath.mpf(v)))
                     for v in x])
    assert np.max(np.abs(got / want - 1)) <= 2e-15


# --- special values, signed zeros and exactness ------------------------------------------------

SPECIAL_POINTS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, -2.0, 30.0, -30.0, 45.0, -45.0, 60.0,
                  90.0, -90.0, 135.0, 180.0, -180.0, 270.0, -270.0, 360.0, -360.0, 1e14,
                  1e14 + 90, 1.0000001e14, -1e15, 1e-20, -1e-17, 709.0, 710.0, 717.0, 718.0,
                  -26.6, -26.7, -27.0, 50.0, 5e7, 6e7, 1023.0, 1024.0, 1024.5, -1024.0,
                  -1024.5, -1074.0, 308.25, 308.3, -308.25, -308.3, 5e-324, -5e-324]


@pytest.mark.parametrize("name", list(UNARY))
def test_special_values_and_signed_zeros_as_scipy(name):
    x = np.array(SPECIAL_POINTS)
    got, want = _ours(name, x), _ref(name, x)
    if name in ("cbrt", "exprel", "tandg", "cotdg"):  # libm/NumPy rounding: 1 ulp
        np.testing.assert_allclose(got, want, rtol=3e-16, atol=0)
    elif name == "erfcx":  # a few ulp (SciPy's 2 exp(x*x) rounds x*x: 2e-14 at -26.6)
        np.testing.assert_allclose(got, want, rtol=2e-14, atol=0)
    else:
        np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want)), x[np.signbit(got) !=
                                                                 np.signbit(want)]


def test_exact_where_scipy_is_exact():
    k = np.arange(1, 100001, dtype=np.float64)
    assert np.array_equal(_ours("cbrt", k ** 3), k)
    assert np.array_equal(_ours("cbrt", -(k ** 3)), -k)
    n = np.arange(0, 23, dtype=np.float64)
    assert np.array_equal(_ours("exp10", n), 10.0 ** n)  # exp10(3) == 1000.0
    m = np.arange(-1022, 1024, dtype=np.float64)
    assert np.array_equal(_ours("exp2", m), 2.0 ** m)
    deg = np.array([90.0, 450.0, -90.0, 270.0, 180.0, 360.0, -180.0])
    assert np.array_equal(_ours("sindg", deg), [1.0, 1.0, -1.0, -1.0, -0.0, 0.0, 0.0])
    assert np.array_equal(np.signbit(_ours("sindg", deg)), np.signbit(_ref("sindg", deg)))
    assert np.array_equal(_ours("cosdg", deg), [0.0, 0.0, 0.0, 0.0, -1.0, 1.0, -1.0])
    assert np.array_equal(np.signbit(_ours("cosdg", deg)), np.signbit(_ref("cosdg", deg)))
    assert np.array_equal(_ours("tandg", np.array([45.0, -45.0, 135.0, 90.0, -90.0, 180.0])),
                          [1.0, -1.0, -1.0, np.inf, np.inf, 0.0])
    assert np.array_equal(_ours("cotdg", np.array([45.0, 0.0, -0.0, 90.0, 180.0])),
                          [1.0, np.inf, np.inf, 0.0, np.inf])
    assert np.array_equal(_ours("radian", np.array([180.0]), np.array([0.0]), np.array([0.0])),
                          [sp.radian(180.0, 0.0, 0.0)])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_degree_functions_exact_in_float32_too(dtype):
    x = np.array([0.0, -0.0, 90.0, 180.0, 270.0, -90.0, 360.0, 3600.0, 1e7 + 90], dtype=dtype)
    for name in ("sindg", "cosdg", "tandg", "cotdg"):
        got, want = _ours(name, x), _ref(name, x.astype(np.float64)).astype(dtype)
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got, want)
        assert np.array_equal(np.signbit(got), np.signbit(want)), name
    assert np.array_equal(_ours("tandg", x[:1] + 45), [1.0])


def test_degree_functions_float32_near_the_poles():
    # float32 computed in float32: tan on the exact distance to the pole
    x = np.array([89.99, -90.01, 0.001, -0.001, 179.999, 90.5], dtype=np.float32)
    for name in ("tandg", "cotdg"):
        got = _ours(name, x).astype(np.float64)
        want = _ref(name, x.astype(np.float64))
        assert np.max(np.abs(got / want - 1)) <= 3e-7, name
    tiny = np.array([1e-8, -3e-10, 2e-14], dtype=np.float32)
    np.testing.assert_allclose(_ours("cotdg", tiny), 180 / (np.pi * tiny.astype(np.float64)),
                               rtol=3e-7)


# --- binary functions --------------------------------------------------------------------------

BINARY = ["boxcox", "boxcox1p", "inv_boxcox", "inv_boxcox1p", "huber", "pseudo_huber"]
LMBDA = [0.0, -0.0, 1e-20, -1e-20, 1e-19, 3e-19, 1e-10, -1e-10, 1e-200, 1e300, -1e300]


def test_binary_matches_scipy_over_a_grid_in_float64():
    a = np.concatenate([np.linspace(-5, 5, 101), EDGE, [-1.0, 710.0, 1e10]])
    b = np.concatenate([np.linspace(-5, 5, 101), EDGE, LMBDA])
    x, y = (v.ravel() for v in np.meshgrid(a, b))
    for name in BINARY:
        got, want = _ours(name, x, y), _ref(name, x, y)
        assert got.dtype == np.float64
        assert _max_rel(got, want, np.finfo(np.float64).tiny) <= 4e-15, name
        zero = (got == 0) & (want == 0)
        assert np.array_equal(np.signbit(got[zero]), np.signbit(want[zero])), name


@pytest.mark.parametrize("name", BINARY)
def test_binary_log_uniform_sweep(name):
    # the far ranges: the exponent amplifies last-bit differences of log/log1p/expm1 (NumPy's
    # against the C library's), up to ~1.2e-13 near overflow (the docstrings' claim)
    rng = np.random.default_rng(7)
    n = 20000

    def lu():
        return rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(-320, 308, n)
    for x, y in [(lu(), lu()), (rng.uniform(-10, 10, n), lu()), (lu(), rng.uniform(-10, 10, n)),
                 (rng.uniform(-3, 3, n), rng.uniform(-3, 3, n) * 10.0 ** rng.integers(-25, 3, n))]:
        got, want = _ours(name, x, y), _ref(name, x, y)
        assert _max_rel(got, want, np.finfo(np.float64).tiny) <= 1.5e-13, name


def test_binary_matches_scipy_in_float32():
    # float32 computed in float32: lmbda * log(x) is rounded in float32 (SciPy computes its
    # float32 results in float64), so the error grows like |lmbda log x| * 6e-8
    x, lam = (v.ravel() for v in np.meshgrid(np.linspace(0.1, 5, 50), np.linspace(-2, 2, 41)))
    x, lam = x.astype(np.float32), lam.astype(np.float32)
    y = np.linspace(-1.5, 1.5, x.size).astype(np.float32)
    for name, args in [("boxcox", (x, lam)), ("boxcox1p", (x, lam)),
                       ("inv_boxcox", (y, lam * 0.3)), ("inv_boxcox1p", (y, lam * 0.3)),
                       ("huber", (x, y)), ("pseudo_huber", (x, y)), ("kl_div", (x, x[::-1]))]:
        got, want = _ours(name, *args), _ref(name, *args)
        assert got.dtype == np.float32, name
        if name == "kl_div":  # x log(x/y) - x + y cancels: absolute accuracy
            scale = np.abs(args[0]) + np.abs(args[1])
            assert np.max(np.abs(got - want) / scale) <= 3e-7
        else:
            assert _max_rel(got, want, np.finfo(np.float32).tiny) <= 2e-6, name


def test_boxcox_small_lmbda_as_scipy():
    # SciPy: |lmbda| < 1e-19 is lmbda = 0 (boxcox, boxcox1p); only lmbda == 0 for the inverses
    x = np.array([0.5, 2.0, 10.0])
    for lam in [0.0, -0.0, 5e-20, -5e-20, 2e-19, 1e-12]:
        for name in ("boxcox", "boxcox1p", "inv_boxcox", "inv_boxcox1p"):
            got, want = _ours(name, x, np.full(3, lam)), _ref(name, x, lam)
            np.testing.assert_allclose(got, want, rtol=1e-15, atol=0, err_msg=f"{name} {lam}")
    # inv_boxcox1p: SciPy returns y itself where |lmbda y| < 1e-154 (kept)
    assert _ours("inv_boxcox1p", np.array([1.0]), np.array([1e-300]))[0] == 1.0


def test_kl_div_as_scipy():
    a = np.concatenate([np.linspace(-5, 5, 101), EDGE])
    x, y = (v.ravel() for v in np.meshgrid(a, a))
    got, want = _ours("kl_div", x, y), _ref("kl_div", x, y)
    with np.errstate(all="ignore"):
        ratio = np.abs(x / y)
    # SciPy's x * log(x / y) is +-inf where x / y over- or underflows; here it is not
    lost = (x > 0) & (y > 0) & ((ratio < np.finfo(np.float64).tiny) | np.isinf(ratio))
    assert np.array_equal(np.isnan(got[~lost]), np.isnan(want[~lost]))
    finite = ~lost & np.isfinite(want)
    assert np.array_equal(got[~lost & ~np.isfinite(want)], want[~lost & ~np.isfinite(want)],
                          equal_nan=True)
    # within SciPy's own rounding of -x + y (absolute, relative to |x| + |y|)
    err = np.abs(got[finite] - want[finite]) / (np.abs(x[finite]) + np.abs(y[finite]) + 1e-300)
    assert err.max() <= 1e-15
    zero = finite & (got == 0)
    assert np.array_equal(np.signbit(got[zero]), np.signbit(want[zero]))
    # where SciPy overflows: the value itself (mpmath)
    mpmath.mp.dps = 30
    for xv, yv in [(1e300, 1e-300), (5e-324, 2.0), (1e-300, 1e300)]:
        g = _ours("kl_div", np.array([xv]), np.array([yv]))[0]
        w = mpmath.mpf(xv) * mpmath.log(mpmath.mpf(xv) / yv) - xv + yv
        assert abs(g - float(w)) <= 1e-15 * abs(float(w)), (xv, yv, g, w)


@pytest.mark.parametrize("name", BINARY + ["kl_div"])
def test_python_scalar_operands_get_no_gradient(name):
    v = np.array([0.3, 1.7, 2.5])
    for scalar_first in (True, False):
        t = af.asarray(v, requires_grad=True)
        args = (0.8, t) if scalar_first else (t, 0.8)
        ref = _ref(name, *((0.8, v) if scalar_first else (v, 0.8)))
        y = getattr(af.special, name)(*args)
        np.testing.assert_allclose(y.detach().numpy(), ref, rtol=1e-15)
        (g,) = af.autograd.grad(y.sum(), [t])
        assert tuple(g.shape) == (3,) and np.all(np.isfinite(g.numpy())), name


def test_radian_broadcasts_and_takes_python_scalars():
    d = np.array([[1.0], [-3.0]])
    m = np.array([30.0, -60.0, 15.0])
    got = _ours("radian", d, m, np.array([0.5]))
    np.testing.assert_array_equal(got, sp.radian(d, m, 0.5))
    t = af.special.radian(af.asarray(d), 30, 1.5)
    np.testing.assert_array_equal(t.numpy(), sp.radian(d, 30, 1.5))


# --- gradients -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["exp2", "erfcx"])
def test_gradients_match_torch_first_and_second_order(name):
    x = np.concatenate([np.linspace(-6, 6, 121), [-26.0, -10.0, 20.0, 49.0]])
    t = af.asarray(x, requires_grad=True)
    (g,) = af.autograd.grad(getattr(af.special, name)(t).sum(), [t], create_graph=True)
    (gg,) = af.autograd.grad(g.sum(), [t])
    tt = torch.tensor(x, requires_grad=True)
    (tg,) = torch.autograd.grad(getattr(torch.special, name)(tt).sum(), [tt], create_graph=True)
    (tgg,) = torch.autograd.grad(tg.sum(), [tt])
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(gg.numpy(), tgg.numpy(), rtol=1e-11, atol=1e-12)


def test_erfcx_gradient_far_out_has_no_cancellation():
    # 2 x erfcx(x) - 2/sqrt(pi) (PyTorch's) cancels for large x; the series beyond 50 does not
    x = np.array([50.5, 60.0, 1e3, 1e6, 1e10])
    t = af.asarray(x, requires_grad=True)
    af.special.erfcx(t).sum().backward()
    mpmath.mp.dps = 60
    want = [float(2 * mpmath.mpf(v) * mpmath.exp(mpmath.mpf(v) ** 2) * mpmath.erfc(v)
                  - 2 / mpmath.sqrt(mpmath.pi)) for v in x]
    np.testing.assert_allclose(t.grad.numpy(), want, rtol=1e-14)


def _mp_boxcox(x, lam):
    return mpmath.log(x) if lam == 0 else (mpmath.power(x, lam) - 1) / lam


def _mp_inv_boxcox(y, lam):
    return mpmath.exp(y) if lam == 0 else mpmath.power(1 + lam * y, 1 / lam)


# name: (mpmath function, points): derivatives by mpmath.diff at 40 digits
MP = {
    "cbrt": (lambda x: mpmath.cbrt(x) if x >= 0 else -mpmath.cbrt(-x),
             [(0.3,), (-2.5,), (1e-5,), (7.0,)]),
    "exp10": (lambda x: mpmath.power(10, x), [(-2.5,), (0.3,), (3.0,)]),
    "sindg": (lambda x: mpmath.sin(x * mpmath.pi / 180), [(30.0,), (-200.0,), (1000.5,)]),
    "cosdg": (lambda x: mpmath.cos(x * mpmath.pi / 180), [(30.0,), (-200.0,), (1000.5,)]),
    "tandg": (lambda x: mpmath.tan(x * mpmath.pi / 180), [(30.0,), (-200.0,), (89.0,)]),
    "cotdg": (lambda x: mpmath.cot(x * mpmath.pi / 180), [(30.0,), (-200.0,), (1.0,)]),
    "cosm1": (lambda x: mpmath.cos(x) - 1, [(1e-3,), (0.5,), (-2.0,)]),
    "exprel": (lambda x: mpmath.expm1(x) / x if x != 0 else mpmath.mpf(1),
               [(1e-9,), (-0.3,), (0.49,), (0.51,), (-5.0,), (30.0,), (705.0,)]),
    "boxcox": (_mp_boxcox, [(0.5, 1.5), (2.0, -0.7), (3.0, 1e-3), (3.0, 1e-9), (0.3, 20.0),
                            (1.5, -0.2), (1e-3, 0.05)]),
    "boxcox1p": (lambda x, lam: _mp_boxcox(1 + x, lam),
                 [(0.5, 1.5), (-0.5, -0.7), (3.0, 1e-3), (3.0, -1e-9), (1e-6, 2.0)]),
    "inv_boxcox": (_mp_inv_boxcox, [(0.5, 1.5), (2.0, -0.3), (1.5, 1e-3), (1.5, 0.0),
                                    (-1.0, 0.05), (3.0, 0.2)]),
    "inv_boxcox1p": (lambda y, lam: _mp_inv_boxcox(y, lam) - 1,
                     [(0.5, 1.5), (2.0, -0.3), (1.5, 1e-3), (1.5, 0.0), (-0.5, 0.2)]),
    "huber": (lambda d, r: r * r / 2 if abs(r) <= d else d * (abs(r) - d / 2),
              [(1.0, 0.5), (1.0, -2.5), (0.3, 0.29), (2.0, 3.0)]),
    "pseudo_huber": (lambda d, r: d * d * (mpmath.sqrt(1 + (r / d) ** 2) - 1),
                     [(1.0, 0.5), (1.0, -2.5), (0.3, 1e-4), (2.0, 300.0), (1e-3, 1e5)]),
    "kl_div": (lambda x, y: x * mpmath.log(x / y) - x + y,
               [(0.5, 1.5), (2.0, 2.0 + 1e-9), (3.0, 0.1), (1e-3, 5.0)]),
    "radian": (lambda d, m, s: ((d * 60 + m) * 60 + s) * mpmath.pi / 648000,
               [(10.0, 30.0, 5.0)]),
}


@pytest.mark.parametrize("name", list(MP))
def test_gradients_match_mpmath(name):
    fn, points = MP[name]
    mpmath.mp.dps = 40
    for p in points:
        ts = [af.asarray(np.array([v]), requires_grad=True) for v in p]
        grads = af.autograd.grad(getattr(af.special, name)(*ts).sum(), ts)
        for i, g in enumerate(grads):
            order = tuple(int(j == i) for j in range(len(p)))
            want = float(mpmath.diff(lambda *a: fn(*a), tuple(mpmath.mpf(v) for v in p), order))
            got = g.numpy()[0]
            assert abs(got - want) <= 5e-14 * max(abs(want), 1e-300), (name, p, i, got, want)


def test_gradients_at_the_edges():
    def grads(name, *vals):
        ts = [af.asarray(np.array(v, dtype=np.float64), requires_grad=True) for v in vals]
        out = af.autograd.grad(getattr(af.special, name)(*ts).sum(), ts)
        return [g.numpy() for g in out]

    # huber: continuous derivatives at |r| = delta; NaN for delta < 0 (value inf)
    gd, gr = grads("huber", [1.0, 1.0, -1.0], [1.0, -1.0, 0.5])
    np.testing.assert_array_equal(gd[:2], [0.0, 0.0])
    np.testing.assert_array_equal(gr[:2], [1.0, -1.0])
    assert np.isnan(gd[2]) and np.isnan(gr[2])
    # kl_div at x = 0: the one-sided limits -inf and 1; NaN where the value is inf
    gx, gy = grads("kl_div", [0.0, -1.0], [2.0, 1.0])
    assert gx[0] == -np.inf and gy[0] == 1.0 and np.isnan(gx[1]) and np.isnan(gy[1])
    # boxcox: d/dlmbda at lmbda = 0 (and SciPy's |lmbda| < 1e-19) is log(x)**2 / 2
    gx, gl = grads("boxcox", [2.0, 2.0, 0.0], [0.0, 5e-20, 0.5])
    np.testing.assert_allclose(gl[:2], np.log(2.0) ** 2 / 2, rtol=1e-15)
    np.testing.assert_allclose(gx[:2], 0.5, rtol=1e-15)
    assert gl[2] == 4.0 and gx[2] == np.inf  # x = 0: value -1/lmbda
    # cbrt at 0: inf, exprel at 0: 1/2, degree functions beyond 1e14: NaN (Cephes gives up)
    assert grads("cbrt", [0.0])[0][0] == np.inf
    assert grads("exprel", [0.0])[0][0] == 0.5
    assert np.isnan(grads("sindg", [1e15])[0][0])


def test_forward_mode_broadcasts_and_skips_python_scalars():
    d = af.asarray(np.array([[1.0], [2.0]]))
    s = af.asarray(np.array([0.5]))
    ones = af.ones_like(s)
    out, tangent = af.func.jvp(lambda s_: af.special.radian(d, 30.0, s_), (s,), (ones,))
    assert tuple(tangent.shape) == tuple(out.shape) == (2, 1)
    np.testing.assert_allclose(tangent.numpy(), np.pi / 648000, rtol=1e-15)
    x = af.asarray(np.array([0.5, 2.0]))
    _, tx = af.func.jvp(lambda x_: af.special.boxcox(x_, 0.5), (x,), (af.ones_like(x),))
    np.testing.assert_allclose(tx.numpy(), np.array([0.5, 2.0]) ** -0.5, rtol=1e-15)


# --- backends, errors, dispatch ----------------------------------------------------------------

def test_every_function_on_every_backend(backend):
    x = np.array([-3.5, -0.2, 0.0, 0.4, 2.0, 45.0, 90.0])
    y = np.array([0.5, 1.5, 0.3, 2.0, 0.0, 1.0, 3.0])
    for name in UNARY:
        got = getattr(af.special, name)(af.asarray(x)).numpy()
        np.testing.assert_allclose(got, _ref(name, x), rtol=1e-13, atol=1e-300, err_msg=name)
    for name in BINARY + ["kl_div"]:
        got = getattr(af.special, name)(af.asarray(x), af.asarray(y)).numpy()
        np.testing.assert_allclose(got, _ref(name, x, y), rtol=1e-13, atol=1e-300,
                                   err_msg=name)


ARITY = {**{n: 1 for n in UNARY}, **{n: 2 for n in BINARY + ["kl_div"]}, "radian": 3}


@pytest.mark.parametrize("name", list(ARITY))
def test_complex_input_raises_and_integers_become_floating(name):
    z = af.asarray(np.array([1 + 1j, 0.5 - 2j]))
    x = af.asarray(np.array([0.5, 1.0]))
    for pos in range(ARITY[name]):
        args = [x] * ARITY[name]
        args[pos] = z
        with pytest.raises(TypeError, match=f"arrayflow.special.{name}: expected a real float"):
            getattr(af.special, name)(*args)


def test_integers_become_floating():
    out = af.special.cbrt(af.asarray(np.array([8, -27])))
    assert out.dtype == af.get_default_dtype()
    np.testing.assert_array_equal(out.numpy(), [2.0, -3.0])
