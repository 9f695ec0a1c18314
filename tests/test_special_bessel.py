"""``arrayflow.special``'s Bessel functions, exponential and elliptic integrals
(:mod:`arrayflow.ops.special_bessel`): values against SciPy over wide grids (the docstrings'
accuracy claims) and against mpmath where SciPy itself is off, gradients against SciPy's
values of the derivative identities and finite differences (PyTorch's ``torch.special``
Bessel functions have no derivative)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from test_special import _max_rel

import arrayflow as af

sp = pytest.importorskip("scipy.special")
mpmath = pytest.importorskip("mpmath")

EDGE = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1e-300, -1e-300, 1e300, -1e300,
        0.5, 1.0, -1.0, 2.0, 5.0, 8.0]


def _values(name, *args):
    """arrayflow's and SciPy's values of ``name`` on NumPy inputs."""
    got = getattr(af.special, name)(*(af.asarray(a) for a in args)).numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(sp, name)(*args)
    return got, want


def _max_env(got, want, x, tiny):
    """Largest error relative to ``max(|f|, sqrt(2/(pi |x|)))``: the envelope of the
    oscillating ``j``/``y``, next to whose zeros only absolute accuracy is defined."""
    got, want, x = (np.asarray(v, np.float64) for v in (got, want, x))
    assert np.array_equal(np.isnan(got), np.isnan(want)), x[np.isnan(got) != np.isnan(want)]
    env = np.sqrt(2 / (np.pi * np.maximum(np.abs(x), tiny)))
    scale = np.maximum(np.maximum(np.abs(want), env), tiny)
    same = (got == want) | np.isnan(want)
    return float(np.max(np.where(same, 0.0, np.abs(got - want) / scale)))


_MP = {
    "j0": lambda x: mpmath.besselj(0, x), "j1": lambda x: mpmath.besselj(1, x),
    "y0": lambda x: mpmath.bessely(0, x), "y1": lambda x: mpmath.bessely(1, x),
    "k0": lambda x: mpmath.besselk(0, x), "k1": lambda x: mpmath.besselk(1, x),
    "k0e": lambda x: mpmath.besselk(0, x) * mpmath.exp(x),
    "k1e": lambda x: mpmath.besselk(1, x) * mpmath.exp(x),
}

# --- j0, j1, y0, y1 ----------------------------------------------------------------------------

# name: (grid lo, grid hi, float64 bound, float32 bound) on the envelope error (_max_env)
JY = {"j0": (-40.0, 40.0, 5e-15, 2e-6), "j1": (-40.0, 40.0, 5e-15, 2e-6),
      "y0": (0.0, 40.0, 5e-15, 2e-6), "y1": (0.0, 40.0, 5e-15, 2e-6)}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(JY))
def test_jy_match_scipy_over_a_wide_grid(name, dtype):
    lo, hi, tol64, tol32 = JY[name]
    x = np.concatenate([np.linspace(lo, hi, 40001), np.linspace(-6, 6, 6001), EDGE])
    x = x[np.abs(x) <= 1e3]  # beyond, SciPy rounds x - pi/4: see test_jy_far_against_mpmath
    x = x.astype(dtype)
    got, want = _values(name, x)
    assert got.dtype == np.dtype(dtype)
    assert _max_env(got, want, x, np.finfo(dtype).tiny) <= (tol64 if dtype == "float64"
                                                              else tol32)


@pytest.mark.parametrize("name", list(JY))
def test_jy_far_against_mpmath(name):
    # SciPy's Cephes computes cos(x - pi/4) from a rounded x - pi/4: off by ulp(x) relative to
    # the amplitude (3e-14 at 900, 1e-6 at 1e10); the expansion into cos(x), sin(x) is not
    rng = np.random.default_rng(0)
    x = np.concatenate([10 ** rng.uniform(0, 300, 120), rng.uniform(5, 1e3, 60), [1e300]])
    got = getattr(af.special, name)(af.asarray(x)).numpy()
    mpmath.mp.dps = 40
    want = np.array([float(_MP[name](mpmath.mpf(v))) for v in x])
    assert _max_env(got, want, x, 1e-300) <= 2e-15
    # SciPy, where it is accurate (|x| <= 1e3)
    small = x <= 1e3
    assert _max_env(got[small], getattr(sp, name)(x[small]), x[small], 1e-300) <= 4e-14


@pytest.mark.parametrize("name", ["j0", "j1"])
def test_j_relative_accuracy_next_to_their_first_zeros(name):
    # the first two zeros are factored out: relative accuracy there, against mpmath
    mpmath.mp.dps = 40
    zeros = [float(mpmath.besseljzero(int(name[1]), k)) for k in (1, 2)]
    x = np.concatenate([z + np.array([-1e-6, -1e-12, 0.0, 1e-12, 1e-6]) * z for z in zeros])
    x = x[x <= 5.0]
    got = getattr(af.special, name)(af.asarray(x)).numpy()
    want = np.array([float(_MP[name](mpmath.mpf(v))) for v in x])
    assert_allclose(got, want, rtol=1e-13)


# --- k0, k0e, k1, k1e --------------------------------------------------------------------------

K = {"k0": (0.0, 720.0, 3e-15, 2e-6), "k0e": (0.0, 720.0, 3e-15, 2e-6),
     "k1": (0.0, 720.0, 3e-15, 2e-6), "k1e": (0.0, 720.0, 3e-15, 2e-6)}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(K))
def test_k_match_scipy_over_a_wide_grid(name, dtype):
    lo, hi, tol64, tol32 = K[name]
    x = np.concatenate([np.linspace(lo, hi, 40001), np.linspace(0, 6, 6001),
                        np.logspace(-300, 300, 601), EDGE]).astype(dtype)
    x = x[x != 5e-324]  # SciPy's log(x/2) underflows there: see test_k_at_the_smallest_...
    got, want = _values(name, x)
    assert got.dtype == np.dtype(dtype)
    assert _max_rel(got, want, np.finfo(dtype).tiny) <= (tol64 if dtype == "float64" else tol32)


def test_k_at_the_smallest_subnormal():
    # SciPy (Cephes) computes log(0.5 * x), 0.5 * 5e-324 == 0: its k0 is inf, its k1 NaN
    x = af.asarray([5e-324], dtype=af.float64)
    assert_allclose(af.special.k0(x).numpy(), [float(mpmath.besselk(0, 5e-324))], rtol=1e-15)
    assert_allclose(af.special.k0e(x).numpy(), [float(mpmath.besselk(0, 5e-324))], rtol=1e-15)
    assert np.isposinf(af.special.k1(x).numpy()).all()  # 2e323 overflows
    assert np.isposinf(af.special.k1e(x).numpy()).all()


def test_bessel_special_values_as_scipy(backend):
    x = af.asarray(EDGE, dtype=af.float64)
    for name in list(JY) + list(K):
        got = getattr(af.special, name)(x).numpy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = getattr(sp, name)(np.array(EDGE))
        # j, y at +-1e300: SciPy's rounded x - pi/4 (test_jy_far_against_mpmath); k at
        # 5e-324: test_k_at_the_smallest_subnormal
        keep = np.abs(np.array(EDGE)) != (1e300 if name in JY else 5e-324)
        assert_allclose(got[keep], want[keep], rtol=5e-15, atol=1e-323, equal_nan=True,
                        err_msg=name)
        num = keep & ~np.isnan(want)
        assert np.array_equal(np.signbit(got[num]), np.signbit(want[num])), name


# --- gradients -----------------------------------------------------------------------------

def _derivative(name, x):
    """The derivative identities, from SciPy's values."""
    j0, j1, y0, y1 = sp.j0(x), sp.j1(x), sp.y0(x), sp.y1(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return {
            "j0": -j1, "j1": np.where(x == 0, 0.5, j0 - j1 / x), "y0": -y1,
            "y1": y0 - y1 / x, "k0": -sp.k1(x), "k1": -sp.k0(x) - sp.k1(x) / x,
            "k0e": sp.k0e(x) - sp.k1e(x), "k1e": sp.k1e(x) * (1 - 1 / x) - sp.k0e(x),
        }[name]


@pytest.mark.parametrize("name", list(JY) + list(K))
def test_gradient_is_the_derivative_identity(name):
    lo = -30.0 if name in ("j0", "j1") else 0.05
    x = np.concatenate([np.linspace(lo, 30.0, 301), [0.0] if name == "j1" else [], [2.0, 5.0]])
    t = af.asarray(x, requires_grad=True)
    (g,) = af.autograd.grad(af.sum(getattr(af.special, name)(t)), [t])
    want = _derivative(name, x)
    if name in JY:
        assert _max_env(g.numpy(), want, x, 1e-300) <= 2e-14
    else:
        assert_allclose(g.numpy(), want, rtol=1e-14, atol=1e-15)  # k0e - k1e cancels
    # forward mode gives the same
    import arrayflow.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        d = fwAD.make_dual(af.asarray(x), af.ones_like(af.asarray(x)))
        tan = fwAD.unpack_dual(getattr(af.special, name)(d)).tangent
    assert_allclose(tan.numpy(), g.numpy(), rtol=1e-15)


@pytest.mark.parametrize("name", list(JY) + list(K))
def test_first_and_second_derivatives_against_finite_differences(name):
    x = af.asarray([0.3, 1.7, 2.0, 4.9, 5.0, 5.1, 9.0, 30.0], dtype=af.float64,
                   requires_grad=True)
    f = getattr(af.special, name)
    assert af.autograd.gradcheck(f, (x,))
    assert af.autograd.gradgradcheck(f, (x,))


# --- exp1, expi, spence, ellipk, ellipkm1 ----------------------------------------------------

# name: (grid lo, grid hi, float64 bound, float32 bound), relative error (expi: on
# |error| / max(|f|, 1): next to its zero, 0.3725, relative accuracy is lost, as in SciPy)
# SciPy's expi is off by 3e-14 just past 40, where it switches to its asymptotic series
# (ours against mpmath: test_exponential_integrals_against_mpmath)
OTHERS = {"exp1": (0.0, 720.0, 2e-15, 1e-6), "expi": (-720.0, 720.0, 3e-14, 1e-6),
          "spence": (0.0, 1e4, 4e-15, 1e-6), "ellipk": (-1e4, 1.0, 3e-15, 1e-6),
          "ellipkm1": (0.0, 1e4, 3e-15, 1e-6)}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(OTHERS))
def test_integrals_match_scipy_over_a_wide_grid(name, dtype):
    lo, hi, tol64, tol32 = OTHERS[name]
    x = np.concatenate([np.linspace(lo, hi, 40001), np.linspace(-3, 3, 6001),
                        np.logspace(-300, 300, 601), -np.logspace(-300, 300, 601), EDGE,
                        [1 - 1e-16, 1 + 1e-15, 709.0, 710.0, 716.0, 717.0, -745.0, -746.0]])
    with np.errstate(over="ignore"):
        x = x.astype(dtype)
    if name == "expi":  # SciPy overflows early there: test_expi_up_to_its_overflow
        x = x[~((x > 709.78) & (x < 716.36))]
    got, want = _values(name, x)
    assert got.dtype == np.dtype(dtype)
    tol = tol64 if dtype == "float64" else tol32
    if name == "expi":
        assert np.array_equal(np.isnan(got), np.isnan(want))
        g, w = got.astype(np.float64), want.astype(np.float64)
        with np.errstate(invalid="ignore"):
            err = np.where((g == w) | np.isnan(w), 0.0, np.abs(g - w) / np.maximum(np.abs(w), 1))
        assert err.max() <= tol
    else:
        assert _max_rel(got, want, np.finfo(dtype).tiny) <= tol


def test_integrals_special_values_as_scipy(backend):
    x = np.array(EDGE + [1.5, 1.7e308, -1.7e308, 709.0, -745.0, -746.0])
    for name in OTHERS:
        got = getattr(af.special, name)(af.asarray(x, dtype=af.float64)).numpy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = getattr(sp, name)(x)
        assert_allclose(got, want, rtol=3e-15, atol=0, equal_nan=True, err_msg=name)
        num = ~np.isnan(want)
        assert np.array_equal(np.signbit(got[num]), np.signbit(want[num])), name


def test_exponential_integrals_against_mpmath():
    rng = np.random.default_rng(1)
    x = np.concatenate([10 ** rng.uniform(-300, 2.85, 200), rng.uniform(0, 50, 100)])
    mpmath.mp.dps = 40
    got = af.special.exp1(af.asarray(x)).numpy()
    assert_allclose(got, [float(mpmath.e1(mpmath.mpf(v))) for v in x], rtol=1e-15)
    x = np.concatenate([x, -x])
    x = x[np.abs(x - 0.3725) > 0.01]  # next to the zero: absolute accuracy only
    got = af.special.expi(af.asarray(x)).numpy()
    assert_allclose(got, [float(mpmath.ei(mpmath.mpf(v))) for v in x], rtol=2e-15)


def test_expi_up_to_its_overflow():
    # SciPy's expi is inf from 709.78 (its exp(x) overflows), Ei itself only from 716.35
    x = np.array([700.0, 709.5, 709.79, 710.0, 712.5, 716.0, 716.35, 716.37, 750.0])
    got = af.special.expi(af.asarray(x)).numpy()
    mpmath.mp.dps = 40
    want = np.array([float(mpmath.ei(mpmath.mpf(v))) if v < 716.36 else np.inf for v in x])
    assert_allclose(got, want, rtol=2e-15)
    assert np.isinf(sp.expi(x[3:])).all()


def test_ellipkm1_and_spence_against_mpmath():
    p = np.array([5e-324, 1e-300, 1e-100, 1e-20, 1e-9, 0.3, 0.999, 1.0, 7.0, 1e100, 1e300])
    got = af.special.ellipkm1(af.asarray(p)).numpy()
    with mpmath.workdps(400):
        want = np.array([float(mpmath.ellipk(1 - mpmath.mpf(v))) for v in p])
    assert_allclose(got, want, rtol=1e-15)
    mpmath.mp.dps = 40
    x = np.array([1e-300, 1e-9, 0.25, 0.5, 1 - 1e-9, 1.0, 1 + 1e-9, 1.5, 2.0, 1e5, 1e300])
    got = af.special.spence(af.asarray(x)).numpy()
    want = np.array([float(mpmath.polylog(2, 1 - mpmath.mpf(v))) for v in x])
    assert_allclose(got, want, rtol=1e-15, atol=0)


def _integral_derivative(name, x):
    """The derivatives from SciPy's (and NumPy's) values."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return {
            "exp1": -np.exp(-x) / x, "expi": np.exp(x) / x,
            "spence": np.where(x == 1, -1.0, np.log(x) / (1 - x)),
            "ellipk": np.where(x == 0, np.pi / 8, (sp.ellipe(x) - (1 - x) * sp.ellipk(x))
                               / (2 * x * (1 - x))),
            "ellipkm1": np.where(x == 1, -np.pi / 8, -(sp.ellipe(1 - x) - x * sp.ellipkm1(x))
                                 / (2 * (1 - x) * x)),
        }[name]


GRIDS = {"exp1": np.linspace(0.01, 50, 401), "expi": np.linspace(-50, 50, 400),
         "spence": np.concatenate([np.linspace(0.01, 10, 401), [1.0, 1 + 1e-9, 1 - 1e-9]]),
         "ellipk": np.concatenate([-np.logspace(-3, 5, 100), np.linspace(-1, 0.999, 301),
                                   [0.0, 1e-12]]),
         "ellipkm1": np.concatenate([np.logspace(-12, 5, 200), [1.0, 0.999]])}


@pytest.mark.parametrize("name", list(OTHERS))
def test_integral_gradients(name):
    x = GRIDS[name]
    t = af.asarray(x, requires_grad=True)
    (g,) = af.autograd.grad(af.sum(getattr(af.special, name)(t)), [t])
    want = _integral_derivative(name, x)
    # ellipk near 0 and ellipkm1 near 1: SciPy's E - (1 - m) K cancels (ours does not)
    near = np.abs(x) < 0.05 if name == "ellipk" else np.abs(x - 1) < 0.05
    keep = ~near if name.startswith("ellip") else slice(None)
    assert_allclose(g.numpy()[keep], want[keep], rtol=2e-13)
    # the whole grid against mpmath's numerical derivative, where SciPy's formula cancels
    mpmath.mp.dps = 30
    f = {"ellipk": mpmath.ellipk, "ellipkm1": lambda p: mpmath.ellipk(1 - p),
         "exp1": mpmath.e1, "expi": mpmath.ei, "spence": lambda v: mpmath.polylog(2, 1 - v)}
    pick = np.flatnonzero(near) if name.startswith("ellip") else np.arange(0, x.size, 40)
    ref = np.array([float(mpmath.diff(f[name], mpmath.mpf(v))) for v in x[pick]])
    assert_allclose(g.numpy()[pick], ref, rtol=1e-13)
    # forward mode
    import arrayflow.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        d = fwAD.make_dual(af.asarray(x), af.ones_like(af.asarray(x)))
        tan = fwAD.unpack_dual(getattr(af.special, name)(d)).tangent
    assert_allclose(tan.numpy(), g.numpy(), rtol=1e-15)


@pytest.mark.parametrize("name", list(OTHERS))
def test_integral_second_derivatives_against_finite_differences(name):
    x = {"exp1": [0.3, 0.9, 1.0, 1.5, 3.0, 17.0], "expi": [-3.0, -0.5, 0.3, 2.0, 9.0, 17.0],
         "spence": [0.3, 0.9, 1.0, 1.01, 1.07, 2.0, 17.0],
         "ellipk": [-5.0, -0.5, 0.0, 1e-9, 0.3, 0.9, 0.999],
         "ellipkm1": [0.001, 0.1, 0.5, 1.0, 1.5, 5.0, 100.0]}[name]
    t = af.asarray(x, dtype=af.float64, requires_grad=True)
    f = getattr(af.special, name)
    assert af.autograd.gradcheck(f, (t,))
    assert af.autograd.gradgradcheck(f, (t,))


# --- yn ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 30, -1, -2, -5, 200])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_yn_matches_scipy(n, dtype):
    x = np.concatenate([np.linspace(0, 40, 8001), np.logspace(-300, 3, 400),
                        [0.0, -1.0, np.inf, np.nan, 5e-324]]).astype(dtype)
    got, want = _values_yn(n, x)
    assert got.dtype == np.dtype(dtype)
    with np.errstate(over="ignore"):
        want = want.astype(dtype)  # SciPy's yn(int, float32) is float64: round as ours
    tol = 5e-14 if dtype == "float64" else 5e-6
    assert _max_env(got, want, x, np.finfo(dtype).tiny) <= tol


def _values_yn(n, x):
    got = af.special.yn(n, af.asarray(x)).numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = sp.yn(n, x)
    return got, want


def test_yn_order_as_scipy_reads_it():
    x = np.array([0.5, 2.0, 9.0])
    with pytest.warns(RuntimeWarning, match="truncated to an integer"):
        got = af.special.yn(2.7, af.asarray(x)).numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_allclose(got, sp.yn(2.7, x), rtol=1e-15)
        assert_allclose(af.special.yn(-3.5, af.asarray(x)).numpy(), sp.yn(-3.5, x), rtol=1e-15)
        assert np.isnan(af.special.yn(float("nan"), af.asarray(x)).numpy()).all()
        assert np.isnan(sp.yn(np.nan, x)).all()
    assert_allclose(af.special.yn(np.int64(2), af.asarray(x)).numpy(), sp.yn(2, x),
                    rtol=1e-15)
    for n in ("2", None):
        with pytest.raises(TypeError, match="arrayflow.special.yn: expected an integer "
                                            "order n"):
            af.special.yn(n, af.asarray(x))
    with pytest.raises(TypeError, match="arrayflow.special.yn: expected an integer order n, "
                                        "got an array of dtype"):
        af.special.yn(af.asarray([True, False, True]), af.asarray(x))


def test_yn_array_of_orders_as_scipy(backend):
    # SciPy's yn takes an integer array of orders broadcast with x; on Dask each block runs
    # the recurrence to its own largest order
    n = np.array([[0], [1], [2], [-3], [7], [30], [-30], [200]])
    x = np.array([1e-300, 0.5, 2.0, 9.0, 40.0, 700.0, 0.0, -1.0, np.nan])
    got = af.special.yn(af.asarray(n), af.asarray(x)).numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = sp.yn(n, x)
    assert got.shape == want.shape == (8, 9)
    for i in range(len(n)):  # each row as the Python-int order gives it
        assert_allclose(got[i], af.special.yn(int(n[i, 0]), af.asarray(x)).numpy(),
                        rtol=0, atol=0, equal_nan=True)
    fin = np.isfinite(want)
    np.testing.assert_array_equal(got[~fin], want[~fin])
    assert _max_env(got[fin], want[fin], np.broadcast_to(x, want.shape)[fin], 1e-300) <= 5e-14
    # float orders truncated toward 0, NaN where not finite
    nf = af.asarray([2.7, -3.5, np.nan, np.inf], dtype=af.float64)
    got = af.special.yn(nf, af.asarray([2.0, 2.0, 2.0, 2.0], dtype=af.float64)).numpy()
    assert_allclose(got[:2], [sp.yn(2, 2.0), sp.yn(-3, 2.0)], rtol=1e-15)
    assert np.isnan(got[2:]).all()


def test_yn_array_of_orders_gradient_and_long_loops():
    n = np.array([0, 1, 4, -3, 5000])
    x = np.array([0.7, 3.0, 9.0, 2.5, 4.0])
    t = af.asarray(x, requires_grad=True)
    out = af.special.yn(af.asarray(n), t)
    out.sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = (sp.yn(n - 1, x) - sp.yn(n + 1, x)) / 2
    fin = np.isfinite(want)
    assert_allclose(t.grad.numpy()[fin], want[fin], rtol=5e-14)
    # Y_5000(4) overflows: -inf, as SciPy, and the loop ended early (not 5000 steps of work)
    assert out.detach().numpy()[-1] == -np.inf == sp.yn(5000, 4.0)
    # a huge Python-int order ends as soon as every element has overflowed
    assert af.special.yn(10**9, af.asarray([1.0, 50.0])).numpy().tolist() == [-np.inf] * 2


def test_yn_gradient():
    x = np.linspace(0.3, 30.0, 200)
    for n in (0, 1, 2, 5, -3):
        t = af.asarray(x, requires_grad=True)
        (g,) = af.autograd.grad(af.sum(af.special.yn(n, t)), [t])
        want = (sp.yn(n - 1, x) - sp.yn(n + 1, x)) / 2
        assert _max_env(g.numpy(), want, x, 1e-300) <= 5e-14, n
        assert af.autograd.gradgradcheck(lambda v, n=n: af.special.yn(n, v),
                                         (af.asarray([0.5, 3.0, 7.0], dtype=af.float64,
                                                     requires_grad=True),))
        import arrayflow.autograd.forward_ad as fwAD
        with fwAD.dual_level():
            d = fwAD.make_dual(af.asarray(x), af.ones_like(af.asarray(x)))
            tan = fwAD.unpack_dual(af.special.yn(n, d)).tangent
        assert_allclose(tan.numpy(), g.numpy(), rtol=1e-15)


def test_yn_is_lazy_on_dask(backend):
    x = af.asarray([0.5, 2.0, 9.0], dtype=af.float64)
    got = af.special.yn(4, x)
    assert_allclose(got.numpy(), sp.yn(4, np.array([0.5, 2.0, 9.0])), rtol=1e-14)


# --- expn ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_expn_matches_scipy(dtype):
    # n <= 50: beyond, SciPy switches to an asymptotic expansion that is off by up to 1.6e-8
    # (test_expn_against_mpmath)
    x = np.concatenate([np.linspace(0, 720, 4001), np.linspace(0, 3, 1201),
                        np.logspace(-300, 2, 200), EDGE]).astype(dtype)
    n = np.concatenate([np.arange(0, 51), [-1, -5]])
    nn, xx = (v.ravel() for v in np.meshgrid(n, x))
    got, want = _values("expn", nn, xx)
    assert got.dtype == np.dtype(dtype)
    with np.errstate(over="ignore"):
        want = want.astype(dtype)  # SciPy's expn(int array, float32) is float64
    assert _max_rel(got, want, np.finfo(dtype).tiny) <= (3e-15 if dtype == "float64" else 1e-6)


def test_expn_against_mpmath():
    rng = np.random.default_rng(2)
    n = np.concatenate([rng.integers(0, 60, 150), rng.integers(50, 10**6, 50)])
    x = np.concatenate([rng.uniform(0, 3, 100), 10 ** rng.uniform(-300, 2.8, 100)])
    got = af.special.expn(af.asarray(n), af.asarray(x)).numpy()
    mpmath.mp.dps = 40
    want = np.array([float(mpmath.expint(int(k), mpmath.mpf(v))) if v <= 709.78 else 0.0
                     for k, v in zip(n, x)])
    assert _max_rel(got, want, 2.3e-308) <= 1e-15
    # where SciPy's large-n expansion is off
    assert_allclose(af.special.expn(200, af.asarray([100.0], dtype=af.float64)).numpy(),
                    [float(mpmath.expint(200, 100))], rtol=1e-15)
    assert abs(sp.expn(200, 100.0) / float(mpmath.expint(200, 100)) - 1) > 1e-9


def test_expn_order_as_scipy_reads_it(backend):
    x = np.array([0.0, 0.5, 1.5, 2.5, 700.0, 800.0])
    n = np.array([[0], [1], [2], [3], [-1]])
    got = af.special.expn(af.asarray(n), af.asarray(x)).numpy()
    assert got.shape == (5, 6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_allclose(got, sp.expn(n, x), rtol=3e-15, equal_nan=True)
        # float orders are truncated toward 0; NaN, inf and beyond a C int give NaN
        nf = np.array([2.7, -0.5, np.nan, np.inf, 1e10, 2.0])
        got = af.special.expn(af.asarray(nf), af.asarray(x)).numpy()
        assert_allclose(got, sp.expn(nf, x), rtol=3e-15, equal_nan=True)
    with pytest.warns(RuntimeWarning, match="truncated to an integer"):
        got = af.special.expn(2.5, af.asarray(x)).numpy()
    assert_allclose(got, sp.expn(2, x), rtol=3e-15)
    with pytest.raises(TypeError, match="arrayflow.special.expn: expected an integer order n"):
        af.special.expn("2", af.asarray(x))


def test_expn_gradient():
    x = np.concatenate([np.linspace(0.05, 30, 200), [1.0]])
    for n in (0, 1, 2, 5, 60):
        t = af.asarray(x, requires_grad=True)
        (g,) = af.autograd.grad(af.sum(af.special.expn(n, t)), [t])
        want = -np.exp(-x) * (x + 1) / x ** 2 if n == 0 else -sp.expn(n - 1, x)
        # (n = 60: SciPy's large-n expansion for n - 1 = 59 is off by 3.4e-15)
        assert_allclose(g.numpy(), want, rtol=3e-15 if n < 60 else 5e-15, err_msg=str(n))
        import arrayflow.autograd.forward_ad as fwAD
        with fwAD.dual_level():
            d = fwAD.make_dual(af.asarray(x), af.ones_like(af.asarray(x)))
            tan = fwAD.unpack_dual(af.special.expn(n, d)).tangent
        assert_allclose(tan.numpy(), g.numpy(), rtol=1e-15)
    # broadcast array orders: the gradient summed back to x's shape
    t = af.asarray([0.5, 1.5, 2.5], dtype=af.float64, requires_grad=True)
    (g,) = af.autograd.grad(af.sum(af.special.expn(af.asarray([[1], [2]]), t)), [t])
    assert_allclose(g.numpy(), -sp.expn(0, [0.5, 1.5, 2.5]) - sp.expn(1, [0.5, 1.5, 2.5]),
                    rtol=3e-15)
    v = af.asarray([0.3, 0.9, 1.0, 1.5, 7.0], dtype=af.float64, requires_grad=True)
    for n in (0, 3):
        assert af.autograd.gradcheck(lambda v, n=n: af.special.expn(n, v), (v,))
        assert af.autograd.gradgradcheck(lambda v, n=n: af.special.expn(n, v), (v,))


def test_expn_has_no_derivative_in_the_order():
    # PyTorch's behaviour for a derivative it does not implement: an error at backward when
    # the argument requires grad, never a silent zero
    n = af.asarray([1.0, 2.0, 3.0], requires_grad=True)
    x = af.asarray([0.5, 1.5, 2.5], requires_grad=True)
    y = af.special.expn(n, x)
    with pytest.raises(NotImplementedError, match="derivative of arrayflow.special.expn with "
                                                  "respect to n is not implemented"):
        af.sum(y).backward()
    import arrayflow.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        d = fwAD.make_dual(af.asarray([1.0, 2.0]), af.ones_like(af.asarray([1.0, 2.0])))
        with pytest.raises(NotImplementedError, match="with respect to n"):
            af.special.expn(d, af.asarray([0.5, 1.5]))
    # an order that does not require grad is fine
    x = af.asarray([0.5, 1.5, 2.5], requires_grad=True)
    af.sum(af.special.expn(af.asarray([1.0, 2.0, 3.0]), x)).backward()
    assert_allclose(x.grad.numpy(), -sp.expn([0, 1, 2], [0.5, 1.5, 2.5]), rtol=1e-6)


@pytest.mark.parametrize("name", af.ops.special_bessel.__all__)
def test_complex_input_raises_instead_of_a_wrong_value(name):
    z = af.asarray([1 + 1j, 0.5 - 2j])
    args = (2, z) if name in ("yn", "expn") else (z,)
    with pytest.raises(TypeError, match=f"arrayflow.special.{name}: .*complex"):
        getattr(af.special, name)(*args)
