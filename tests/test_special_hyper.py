"""``arrayflow.special.hyp1f1`` and ``lpmv`` (:mod:`arrayflow.ops.special_hyper`): values
against mpmath and SciPy by region (the docstrings' and docs/special.md's accuracy claims),
NaN (never a wrong number) outside the implemented domain, SciPy's values at the edges on
every backend, the x-derivatives against mpmath (first and second order, both modes),
``NotImplementedError`` for the parameters without a derivative."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import arrayflow as af

sp = pytest.importorskip("scipy.special")
mpmath = pytest.importorskip("mpmath")


def _scipy(name, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(sp, name)(*args)


def _mp_hyp1f1(a, b, x):
    with mpmath.workdps(50):
        return np.array([float(mpmath.hyp1f1(*map(float, t), maxterms=10**6))
                         for t in zip(a, b, x)])


def _mp_lpmv(m, v, x):
    with mpmath.workdps(40):
        return np.array([float(mpmath.legenp(float(vi), float(mi), float(xi), type=2))
                         for mi, vi, xi in zip(m, v, x)])


def _hyp(a, b, x, dtype="float64"):
    return af.special.hyp1f1(*(af.asarray(np.asarray(c, dtype)) for c in (a, b, x))).numpy()


def _lpmv(m, v, x, dtype="float64"):
    return af.special.lpmv(*(af.asarray(np.asarray(c, dtype)) for c in (m, v, x))).numpy()


def _signed_logs(rng, n, lo, hi):
    return rng.choice([-1.0, 1.0], n) * 10 ** rng.uniform(lo, hi, n)


# --- hyp1f1: values ---------------------------------------------------------------------------

def test_hyp1f1_moderate_parameters_against_mpmath():
    # |a|, |b| <= 5 (b >= 0.1), |x| <= 700: series, Kummer's transformation, asymptotics
    rng = np.random.default_rng(0)
    n = 400
    a, b = rng.uniform(-5, 5, n), rng.uniform(0.1, 5, n)
    x = np.concatenate([rng.uniform(-30, 30, n // 2), rng.uniform(-700, 700, n - n // 2)])
    got, want = _hyp(a, b, x), _mp_hyp1f1(a, b, x)
    fin = np.isfinite(got)
    assert fin.mean() >= 0.98  # NaN only next to the zeros (a < 0), where it is not checked
    assert np.max(np.abs(got[fin] - want[fin]) / np.abs(want[fin])) < 3e-13


def test_hyp1f1_wide_parameters_are_accurate_or_nan():
    # a, b in +-[1e-3, 200], x in +-[1e-3, 700] (log-uniform): wherever finite, within 1e-12
    rng = np.random.default_rng(1)
    n = 500
    a, b, x = (_signed_logs(rng, n, -3, 2.3), _signed_logs(rng, n, -3, 2.3),
               _signed_logs(rng, n, -3, 2.85))
    got, want = _hyp(a, b, x), _mp_hyp1f1(a, b, x)
    fin = np.isfinite(got)
    assert fin.mean() >= 0.85
    assert np.all(np.isfinite(want[fin]))
    assert np.max(np.abs(got[fin] - want[fin]) / np.abs(want[fin])) < 1e-12


def test_hyp1f1_matches_scipy_where_both_are_accurate():
    a, b, x = (v.ravel() for v in np.meshgrid(np.linspace(-4.5, 4.5, 13),
                                               np.linspace(0.25, 6.25, 9),
                                               np.linspace(-40, 40, 41)))
    got, want = _hyp(a, b, x), _scipy("hyp1f1", a, b, x)
    fin = np.isfinite(got)
    assert fin.mean() >= 0.98
    assert np.max(np.abs(got[fin] - want[fin]) / np.abs(want[fin])) < 1e-12


def test_hyp1f1_very_large_arguments_as_scipy():
    # algebraic decay for x -> -inf (the overflowing series must not win), overflow to inf
    a = np.array([1.0, 1.0, 0.5, 2.5, -1.5, 1.0, 3.0, 0.5])
    b = np.array([2.0, 2.0, 1.5, 1.0, 2.0, 2.0, 4.5, 1.5])
    x = np.array([-1e10, 5000.0, -3e4, -1e300, 1e3, 800.0, -700.0, -1e5])
    got, want = _hyp(a, b, x), _scipy("hyp1f1", a, b, x)
    np.testing.assert_allclose(got, want, rtol=1e-13)
    got = _hyp([1.0, 0.5], [2.0, 1.5], [100.0, -1e5], "float32")
    assert got[0] == np.inf
    np.testing.assert_allclose(got[1], _scipy("hyp1f1", 0.5, 1.5, -1e5), rtol=1e-6)


def test_hyp1f1_float32_is_computed_in_float32():
    rng = np.random.default_rng(2)
    a, b, x = rng.uniform(-2, 3, 300), rng.uniform(0.5, 4, 300), rng.uniform(-20, 20, 300)
    got = _hyp(a, b, x, "float32")
    assert got.dtype == np.float32
    a32, b32, x32 = (np.float64(np.float32(v)) for v in (a, b, x))
    want = _scipy("hyp1f1", a32, b32, x32)
    fin = np.isfinite(got)
    assert fin.mean() >= 0.95
    assert np.max(np.abs(got[fin] - want[fin]) / np.abs(want[fin])) < 2e-5


def test_hyp1f1_beyond_its_domain_is_nan_not_wrong():
    # large |a| with moderate x (SciPy's Boost covers it; the fixed-length series does not
    # converge): NaN rather than a partial sum
    a, b, x = np.array([300.0, -250.5]), np.array([1.5, 2.0]), np.array([60.0, 80.0])
    assert np.all(np.isnan(_hyp(a, b, x)))
    assert np.all(np.isfinite(_scipy("hyp1f1", a, b, x)))


# SciPy's values at infinite arguments that arrayflow leaves NaN (docs/special.md): Boost's
# are inconsistent there (hyp1f1(inf, inf, -2) = exp(-2), hyp1f1(3, 1.5, -inf) = 0 but
# hyp1f1(1.5, 3, -inf) = NaN) and it does not return for some (hyp1f1(3, 1.5, inf))
_H_NAN_HERE = {(-2.0, -2.0, np.inf), (-2.0, -2.0, -np.inf), (-2.0, -np.inf, -np.inf),
               (3.0, 1.5, -np.inf)} | {(np.inf, np.inf, x)
                                       for x in (1.5, -2.0, -2.5, -1.0, 3.0, np.inf)}


def _h_edge_grid():
    vals = [0.0, -0.0, 1.5, -2.0, -2.5, -1.0, 3.0, np.inf, -np.inf, np.nan]
    keep, nan_here = [], []
    for a, b, x in itertools.product(vals, repeat=3):
        finite_ab = np.isfinite(a) and np.isfinite(b)
        b_pole = b <= 0 and b == int(b) if np.isfinite(b) else False
        if x == np.inf and finite_ab and not b_pole and a != 0:
            nan_here.append((a, b, x))  # Boost may not return here
        elif np.isinf(x) and a == -1.0 and np.isfinite(b) and b != 0:
            nan_here.append((a, b, x))  # SciPy: inf (either sign of 1 - x/b), NaN for a = -2
        elif (a, b, x) in _H_NAN_HERE:
            nan_here.append((a, b, x))
        else:
            keep.append((a, b, x))
    return keep, nan_here


def test_hyp1f1_edges_as_scipy_on_every_backend(backend):
    keep, nan_here = _h_edge_grid()
    a, b, x = (np.array(c) for c in zip(*keep))
    got, want = _hyp(a, b, x), _scipy("hyp1f1", a, b, x)
    same = (got == want) | (np.isnan(got) & np.isnan(want)) | (
        np.abs(got - want) <= 1e-13 * np.abs(want))
    assert same.all(), [(keep[i], got[i], want[i]) for i in np.where(~same)[0]][:5]
    a, b, x = (np.array(c) for c in zip(*nan_here))
    assert np.all(np.isnan(_hyp(a, b, x)))


def test_hyp1f1_closed_forms():
    x = np.array([-30.0, -1.0, 0.5, 20.0, 300.0])
    np.testing.assert_allclose(_hyp(np.full(5, 2.5), np.full(5, 2.5), x), np.exp(x),
                               rtol=1e-15)
    # 1F1(1; 2; x) = (e**x - 1) / x; 1F1(-2; b; x) = 1 - 2x/b + x**2 / (b (b + 1))
    np.testing.assert_allclose(_hyp(np.ones(5), np.full(5, 2.0), x), np.expm1(x) / x,
                               rtol=5e-14)
    b = 1.7
    np.testing.assert_allclose(_hyp(np.full(5, -2.0), np.full(5, b), x),
                               1 - 2 * x / b + x * x / (b * (b + 1)), rtol=1e-14)
    assert _hyp([-1.0], [3.5], [3.5])[0] == 0.0  # SciPy's exact zero


# --- hyp1f1: derivatives ----------------------------------------------------------------------

def _mp_dx(f, args, order=1):
    with mpmath.workdps(40):
        return np.array([float(mpmath.diff(lambda t, p=p: f(*p[:-1], t), p[-1], order))
                         for p in args])


def test_hyp1f1_x_derivatives_against_mpmath_both_modes():
    a = np.array([0.7, -2.5, 3.0, 1.5, -0.3])
    b = np.array([1.9, 4.0, 0.6, 2.5, 7.0])
    x = np.array([-3.0, 2.5, 15.0, -25.0, 40.0])
    args = list(zip(a, b, x))
    t = af.asarray(x, requires_grad=True)
    (g,) = af.autograd.grad(af.special.hyp1f1(af.asarray(a), af.asarray(b), t).sum(), [t],
                            create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), _mp_dx(mpmath.hyp1f1, args), rtol=1e-12)
    (gg,) = af.autograd.grad(g.sum(), [t])
    np.testing.assert_allclose(gg.numpy(), _mp_dx(mpmath.hyp1f1, args, 2), rtol=1e-12)
    dx = np.array([1.0, -0.5, 2.0, 0.25, 1.0])
    _, tan = af.func.jvp(lambda q: af.special.hyp1f1(af.asarray(a), af.asarray(b), q),
                         (af.asarray(x),), (af.asarray(dx),))
    np.testing.assert_allclose(tan.numpy(), g.detach().numpy() * dx, rtol=1e-14)


@pytest.mark.parametrize(("name", "param", "args", "wrt"), [
    ("hyp1f1", "a", (0.5, 1.5, 2.0), 0), ("hyp1f1", "b", (0.5, 1.5, 2.0), 1),
    ("lpmv", "v", (1.0, 2.5, 0.3), 1)])
def test_parameter_derivatives_raise_at_backward(name, param, args, wrt):
    fn = getattr(af.special, name)
    ts = [af.asarray([v], dtype=af.float64, requires_grad=(i == wrt))
          for i, v in enumerate(args)]
    y = fn(*ts)  # the forward records; only the backward needs the derivative
    msg = f"the derivative of arrayflow.special.{name} with respect to {param} is not impl"
    with pytest.raises(NotImplementedError, match=msg):
        y.sum().backward()
    consts = [af.asarray([v], dtype=af.float64) for v in args]

    def of_wrt(q):
        return fn(*[q if i == wrt else c for i, c in enumerate(consts)])
    with pytest.raises(NotImplementedError, match=msg):
        af.func.jvp(of_wrt, (consts[wrt],), (af.ones_like(consts[wrt]),))
    # an argument that does not require grad is no obstacle
    ts = [af.asarray([v], dtype=af.float64, requires_grad=(i == 2))
          for i, v in enumerate(args)]
    fn(*ts).sum().backward()
    assert ts[2].grad is not None and ts[wrt].grad is None


# --- lpmv: values -----------------------------------------------------------------------------

def test_lpmv_integer_degree_against_mpmath():
    # |m| <= 40, |v| <= 240, x in [-1, 1]: the terminating sums and the degree recurrence
    rng = np.random.default_rng(3)
    n = 500
    m = rng.integers(-40, 41, n).astype(float)
    v = np.round(rng.uniform(-240, 240, n))
    x = rng.uniform(-1, 1, n)
    got, want = _lpmv(m, v, x), _mp_lpmv(m, v, x)
    # NaN exactly where SciPy's specfun does not apply DLMF 14.9.3 (m < 0, |v| + m + 1 <= 0
    # for integer v) or past the recurrence's cap
    vx = np.where(v < 0, -v - 1, v)
    expect_nan = ((m < 0) & (vx + m + 1 <= 0)) | (vx - np.abs(m) - 1 > 200)
    np.testing.assert_array_equal(np.isnan(got), expect_nan)
    ok = ~expect_nan & (want != 0)
    assert np.max(np.abs(got[ok] - want[ok]) / np.abs(want[ok])) < 3e-12
    assert np.all(got[~expect_nan & (want == 0)] == 0)


def test_lpmv_non_integer_degree_against_mpmath():
    # |m| <= 5, |v| <= 20 everywhere on (-1, 1)
    rng = np.random.default_rng(4)
    n = 500
    m = rng.integers(-5, 6, n).astype(float)
    v, x = rng.uniform(-20, 20, n), rng.uniform(-1, 1, n)
    got, want = _lpmv(m, v, x), _mp_lpmv(m, v, x)
    assert np.all(np.isfinite(got))
    assert np.max(np.abs(got - want) / np.abs(want)) < 5e-12
    # and up to |v| = 200 for x >= -0.35
    v, x = rng.uniform(-200, 200, n), rng.uniform(-0.35, 1, n)
    got, want = _lpmv(m, v, x), _mp_lpmv(m, v, x)
    assert np.all(np.isfinite(got))
    assert np.max(np.abs(got - want) / np.abs(want)) < 5e-12


def test_lpmv_matches_scipy_and_its_sign_convention():
    m, v, x = (c.ravel() for c in np.meshgrid([0.0, 1.0, 2.0, 3.0, -1.0, -2.0],
                                               [0.0, 1.0, 2.5, 4.0, 7.3, 12.0, -3.5],
                                               np.linspace(-0.95, 0.95, 39)))
    got, want = _lpmv(m, v, x), _scipy("lpmv", m, v, x)
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-14)
    # Condon-Shortley phase: P_1^1(x) = -sqrt(1 - x**2)
    xs = np.linspace(-0.9, 0.9, 7)
    np.testing.assert_allclose(_lpmv(np.ones(7), np.ones(7), xs), -np.sqrt(1 - xs**2),
                               rtol=1e-15)


def test_lpmv_float32():
    rng = np.random.default_rng(5)
    m = rng.integers(0, 4, 200).astype(np.float32)
    v, x = rng.uniform(0, 8, 200).astype(np.float32), rng.uniform(-0.9, 0.9, 200).astype(
        np.float32)
    got = _lpmv(m, v, x, "float32")
    assert got.dtype == np.float32
    want = _scipy("lpmv", m.astype(float), v.astype(float), x.astype(float))
    np.testing.assert_allclose(got, want, rtol=2e-4, atol=1e-5 * np.max(np.abs(want)))
    # large orders: evaluated in float64 and rounded (float32 products of the order's factors
    # underflow: 0 or 100 % off); equal to SciPy's float64 value rounded to float32
    m, v = np.array([30.0, 25.0, -20.0], np.float32), np.array([60.0, 31.0, 45.0], np.float32)
    x = np.array([0.3, -0.6, 0.8], np.float32)
    want = _scipy("lpmv", m.astype(float), v.astype(float), x.astype(float)).astype(np.float32)
    np.testing.assert_allclose(_lpmv(m, v, x, "float32"), want, rtol=1e-6)


def test_lpmv_beyond_its_domain_is_nan_not_wrong():
    # caps: |m| > 40; a non-integer degree with |m| > 5, or with v >= 20 below x = -0.35
    # (SciPy's specfun loses digits there: 1e-5 at v = 88.2, x = -0.999); |x| > 1
    m = np.array([41.0, 6.0, 2.0, 0.0, 1.0, 1.5])
    v = np.array([50.0, 7.5, 30.5, 2.0, 3.0, 2.0])
    x = np.array([0.3, 0.3, -0.5, 1.5, -1.2, 0.3])
    assert np.all(np.isnan(_lpmv(m, v, x)))


def test_lpmv_edges_as_scipy_on_every_backend(backend):
    vals = [(m, v, x) for m in (0.0, 1.0, -2.0, 3.0, 1.5, np.nan)
            for v in (0.0, 2.0, -2.5, 3.5, -1.0, 5.0, np.nan, np.inf, -np.inf)
            for x in (0.0, -0.0, 1.0, -1.0, 0.5, np.nan)]
    m, v, x = (np.array(c) for c in zip(*vals))
    got, want = _lpmv(m, v, x), _scipy("lpmv", m, v, x)
    same = (got == want) | (np.isnan(got) & np.isnan(want)) | (
        np.abs(got - want) <= 1e-13 * np.abs(want))
    assert same.all(), [(vals[i], got[i], want[i]) for i in np.where(~same)[0]][:5]
    # m = +-inf: NaN (SciPy converts it to a C int: lpmv(inf, -2.5, 1) = -inf)
    got = _lpmv([np.inf, -np.inf, np.inf], [-2.5, 2.0, 0.0], [1.0, 0.5, 0.3])
    assert np.all(np.isnan(got))


# --- lpmv: derivatives ------------------------------------------------------------------------

def test_lpmv_x_derivative_against_mpmath_both_modes():
    m = np.array([0.0, 1.0, 2.0, -1.0, 3.0, 0.0])
    v = np.array([2.5, 4.0, 7.3, 3.5, -5.5, 11.0])
    x = np.array([0.3, -0.8, 0.55, -0.2, -0.6, 0.97])
    t = af.asarray(x, requires_grad=True)
    tm = af.asarray(m, requires_grad=True)
    y = af.special.lpmv(tm, af.asarray(v), t)
    (g,) = af.autograd.grad(y.sum(), [t], create_graph=True)
    with mpmath.workdps(40):
        want = np.array([float(mpmath.diff(lambda s, a=a, b=b: mpmath.legenp(b, a, s, type=2),
                                           c)) for a, b, c in zip(m, v, x)])
        want2 = np.array([float(mpmath.diff(lambda s, a=a, b=b: mpmath.legenp(b, a, s, type=2),
                                            c, 2)) for a, b, c in zip(m, v, x)])
    np.testing.assert_allclose(g.detach().numpy(), want, rtol=1e-11)
    (gg,) = af.autograd.grad(g.sum(), [t])
    np.testing.assert_allclose(gg.numpy(), want2, rtol=1e-10)
    dx = np.array([1.0, 2.0, -1.0, 0.5, 1.0, -2.0])
    _, tan = af.func.jvp(lambda q: af.special.lpmv(af.asarray(m), af.asarray(v), q),
                         (af.asarray(x),), (af.asarray(dx),))
    np.testing.assert_allclose(tan.numpy(), g.detach().numpy() * dx, rtol=1e-13)
    # m is integer-valued: no gradient (as an integer input in PyTorch)
    tm2 = af.asarray(m, requires_grad=True)
    af.special.lpmv(tm2, af.asarray(v), af.asarray(x, requires_grad=True)).sum().backward()
    assert tm2.grad is None


def test_lpmv_x_derivative_at_the_endpoints():
    # one-sided limits (mpmath's derivative just inside); |m| = 1: infinite, NaN here
    m = np.array([0.0, 0.0, 2.0, -2.0, 3.0, 0.0, 2.0, 4.0])
    v = np.array([3.0, 2.5, 5.0, 4.0, 6.0, 4.0, 5.0, 7.0])
    x = np.array([1.0, 1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
    t = af.asarray(x, requires_grad=True)
    af.special.lpmv(af.asarray(m), af.asarray(v), t).sum().backward()
    with mpmath.workdps(50):  # one-sided difference 1e-20 inside
        d = mpmath.mpf(10) ** -20
        want = np.array([float((mpmath.legenp(b, a, c * (1 - d), type=2)
                                - mpmath.legenp(b, a, c * (1 - 2 * d), type=2)) / (d * c))
                         for a, b, c in zip(m, v, x)])
    # |m| >= 3: (1 - x**2)**(m/2) makes the limit 0; 1e-20 inside it is still ~sqrt(1e-20)
    big = np.abs(m) >= 3
    np.testing.assert_allclose(t.grad.numpy()[~big], want[~big], rtol=1e-12)
    np.testing.assert_allclose(t.grad.numpy()[big], want[big], atol=1e-6)
    assert np.all(t.grad.numpy()[big] == 0)
    t = af.asarray([1.0, -1.0], requires_grad=True)
    af.special.lpmv(af.asarray([1.0, -1.0]), af.asarray([2.0, 3.0]), t).sum().backward()
    assert np.all(np.isnan(t.grad.numpy()))


# --- the module's interface -------------------------------------------------------------------

def test_every_function_is_listed_here():
    from arrayflow.ops import special_hyper

    assert sorted(special_hyper.__all__) == ["hyp1f1", "lpmv"]


@pytest.mark.parametrize("name", ["hyp1f1", "lpmv"])
def test_complex_input_raises_instead_of_a_wrong_value(name):
    z = af.asarray([1 + 1j, 0.5 - 2j])
    x = af.asarray([0.5, 0.25], dtype=af.float64)
    for pos in range(3):
        args = [z if i == pos else x for i in range(3)]
        with pytest.raises(TypeError, match=f"arrayflow.special.{name}: .*complex"):
            getattr(af.special, name)(*args)


def test_python_scalars_and_broadcasting():
    x = np.linspace(-0.9, 0.9, 6).reshape(2, 3)
    got = af.special.lpmv(2, 3.5, af.asarray(x)).numpy()
    np.testing.assert_allclose(got, _scipy("lpmv", 2, 3.5, x), rtol=1e-12)
    got = af.special.hyp1f1(0.5, af.asarray([[1.5], [2.5]], dtype=af.float64),
                            af.asarray([1.0, -2.0, 3.0], dtype=af.float64))
    assert tuple(got.shape) == (2, 3)
    np.testing.assert_allclose(got.numpy(), _scipy("hyp1f1", 0.5, [[1.5], [2.5]],
                                                   [1.0, -2.0, 3.0]), rtol=1e-13)
