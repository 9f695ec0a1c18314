"""``arrayflow.special``'s gamma, beta and zeta functions (``arrayflow/ops/special_gamma.py``):
values against SciPy over wide grids (the accuracy claims of the docstrings), against mpmath
where SciPy itself loses accuracy, gradients against PyTorch (``torch.special`` or torch
compositions of ``lgamma``) and mpmath, the derivatives that are not implemented."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from test_special import EDGE, _max_rel

import arrayflow as af
import arrayflow.autograd.forward_ad as fwAD

sp = pytest.importorskip("scipy.special")
torch = pytest.importorskip("torch")
mp = pytest.importorskip("mpmath")


def _scipy(name, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(sp, name)(*args)


def _af(name, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's overflow warnings in unused lanes
        out = getattr(af.special, name)(*(af.asarray(a) if isinstance(a, np.ndarray) else a
                                          for a in args))
        return out.numpy()


def _err_scaled(got, want):
    """Largest ``|got - want| / max(1, |want|)``, NaN == NaN and equal infinities exact."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert np.array_equal(np.isnan(got), np.isnan(want)), got[np.isnan(got) != np.isnan(want)]
    same = (got == want) | np.isnan(want)
    return float(np.max(np.where(same, 0.0, np.abs(got - want) / np.maximum(np.abs(want), 1.0))))


GRID = np.concatenate([np.linspace(-180.0, 180.0, 72001), np.linspace(-3.0, 3.0, 6001),
                       np.arange(-200.0, 200.0), np.arange(-200.0, 200.0) + 0.5,
                       np.logspace(-30, 300, 500), -np.logspace(-30, 9, 500), EDGE])


# --- values against SciPy ------------------------------------------------------------------

@pytest.mark.parametrize(("name", "tol64", "tol32"), [("gamma", 1e-14, 1e-5),
                                                      ("rgamma", 1e-14, 1e-5)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_gamma_and_rgamma_relative_error(name, tol64, tol32, dtype):
    x = GRID.astype(dtype)
    got, want = _af(name, x), _scipy(name, x)
    assert got.dtype == np.dtype(dtype)
    assert _max_rel(got, want, np.finfo(dtype).tiny) <= (tol64 if dtype == "float64" else tol32)


def test_gamma_special_values_as_scipy():
    x = np.array([0.0, -0.0, -1.0, -170.0, np.inf, -np.inf, np.nan, 171.6, 171.7, -170.5,
                  -171.5, -180.5, 1e-300, -1e-300, 5e-324])
    got, want = _af("gamma", x), _scipy("gamma", x)
    assert _max_rel(got, want, 1e-300) <= 1e-15  # (NaN and the infinities exactly)
    assert np.signbit(got[1]) and not np.signbit(got[0])
    got, want = _af("rgamma", x), _scipy("rgamma", x)
    assert _max_rel(got, want, 1e-300) <= 1e-15
    assert np.signbit(got[1])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_gammasgn_as_scipy(dtype):
    # below -2**31 SciPy casts floor(x) to a C int (undefined): compared above that only
    x = GRID[np.isnan(GRID) | (GRID > -2.0 ** 31)].astype(dtype)
    got, want = _af("gammasgn", x), _scipy("gammasgn", x)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_loggamma_real_as_scipy(dtype):
    # (below the smallest normal, SciPy's Cephes lgam overflows 1/x to inf; as gammaln)
    x = GRID[(np.abs(GRID) >= np.finfo(dtype).tiny) | (GRID == 0) | np.isnan(GRID)]
    x = x.astype(dtype)
    got, want = _af("loggamma", x), _scipy("loggamma", x)
    assert got.dtype == np.dtype(dtype)
    assert _err_scaled(got, want) <= (4e-15 if dtype == "float64" else 2e-6)
    assert np.all(np.isnan(got[x < 0]))


@pytest.mark.parametrize(("name", "args"), [
    ("gamma", ("z",)), ("rgamma", ("z",)), ("gammasgn", ("z",)), ("loggamma", ("z",)),
    ("zetac", ("z",)), ("zeta", ("z",)), ("betaln", ("z", "x")), ("betaln", ("x", "z")),
    ("zeta", ("z", "x")), ("zeta", ("x", "z")), ("polygamma", ("z", "x")),
    ("poch", ("z", "x")), ("poch", ("x", "z")), ("binom", ("z", "x")), ("binom", ("x", "z")),
    ("polygamma", ("x", "z")), ("multigammaln", ("z", 2)),
])
def test_complex_input_raises_at_every_position(name, args, backend):
    # real formulas (SciPy's complex loggamma and Riemann zeta are not implemented)
    values = {"z": af.asarray([1.5 + 1j, 2.5 - 2j]), "x": af.asarray([2.5, 3.0])}
    with pytest.raises(TypeError, match=f"arrayflow.special.{name}: .*complex"):
        getattr(af.special, name)(*(values.get(a, a) for a in args))


def _betaln_grid(rng, lo, hi, n=20000):
    return rng.uniform(lo, hi, n), rng.uniform(lo, hi, n)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_betaln_against_scipy_where_gamma_is_finite(dtype):
    rng = np.random.default_rng(0)
    # float32: positive arguments (next to the poles of Gamma(a + b) below 0, the float32
    # rounding of a + b dominates: SciPy adds in float64)
    a, b = _betaln_grid(rng, -50.0 if dtype == "float64" else 0.01, 50.0)
    a, b = a.astype(dtype), b.astype(dtype)
    got, want = _af("betaln", a, b), _scipy("betaln", a, b)
    assert got.dtype == np.dtype(dtype)
    assert _err_scaled(got, want) <= (1e-13 if dtype == "float64" else 1e-5)


def test_betaln_integers_and_poles_as_scipy():
    v = np.array([-6.0, -3.0, -2.0, -1.0, -0.0, 0.0, 1.0, 2.0, 3.0, 7.0, -2.5, 0.5, np.inf,
                  -np.inf, np.nan, 1e7, -1e300, 1e300])
    a, b = (g.ravel() for g in np.meshgrid(v, v))
    got, want = _af("betaln", a, b), _scipy("betaln", a, b)
    # (at a = b = 1e300 SciPy's own error is 1.7e-13, this one's 6e-14: mpmath)
    assert _err_scaled(got, want) <= 2e-13


def test_betaln_large_arguments_against_mpmath():
    # SciPy's lgam(a) + lgam(b) - lgam(a + b) cancels (4e-9 relative at a = 7.6e5, b = 0.18);
    # the Stirling difference used here keeps the relative accuracy
    mp.mp.dps = 40
    rng = np.random.default_rng(1)
    a = 10 ** rng.uniform(2.3, 9, 150)
    b = 10 ** rng.uniform(-3, 9, 150)
    want = np.array([float(mp.log(mp.beta(mp.mpf(x), mp.mpf(y)))) for x, y in zip(a, b)])
    got = _af("betaln", a, b)
    assert _err_scaled(got, want) <= 1e-14
    got32 = _af("betaln", a.astype("float32"), b.astype("float32"))
    want32 = np.array([float(mp.log(mp.beta(mp.mpf(float(x)), mp.mpf(float(y)))))
                       for x, y in zip(a.astype("float32"), b.astype("float32"))])
    assert _err_scaled(got32, want32) <= 2e-6


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_poch_against_scipy(dtype):
    rng = np.random.default_rng(6)
    z, m = rng.uniform(-50.0, 50.0, 40000), rng.uniform(-50.0, 50.0, 40000)
    if dtype == "float32":  # (positive: float32's z + m next to a pole, as betaln)
        z, m = np.abs(z) / 2, m / 4
    z, m = z.astype(dtype), m.astype(dtype)
    want = _scipy("poch", z, m)
    keep = (np.abs(want) > 1e-290) & (np.abs(want) < 1e290)  # (subnormal, overflow)
    got = _af("poch", z, m)
    assert got.dtype == np.dtype(dtype)
    # SciPy's own error reaches 5e-12 here (its recurrence and exp(lgam - lgam)): the test
    # against mpmath below holds this one to 1e-13
    assert _max_rel(got[keep], want[keep], 1e-300) <= (1e-11 if dtype == "float64" else 1e-5)


def test_poch_against_mpmath():
    mp.mp.dps = 40
    rng = np.random.default_rng(7)
    z = np.concatenate([rng.uniform(-60, 60, 150), 10 ** rng.uniform(2, 9, 50)])
    m = np.concatenate([rng.uniform(-60, 60, 150), rng.uniform(-40, 40, 50)])
    z = np.concatenate([z, [-22.556534293417275, 150.3, -100.3, 8327.427837636897]])
    m = np.concatenate([m, [-49.443404756091255, -140.2, 40.7, -38.930871582808294]])
    want = np.array([float(mp.rf(mp.mpf(a), mp.mpf(b))) for a, b in zip(z, m)])
    got = _af("poch", z, m)
    keep = (np.abs(want) > 1e-290) & (np.abs(want) < 1e290)
    # exp of a large logarithm: |log poch| * 1e-16 (SciPy's as well)
    bound = 1e-13 + 2e-16 * np.abs(np.log(np.abs(want[keep])))
    assert np.all(np.abs(got[keep] - want[keep]) / np.abs(want[keep]) <= bound)


def test_poch_poles_and_infinities_as_scipy():
    v = np.array([-3.0, -2.0, -1.0, -0.0, 0.0, 1.0, 2.0, 3.0, 0.5, -2.5, 1.5, np.inf, -np.inf,
                  np.nan, 1e5, -1e5, 1e20, -45.0])
    z, m = (g.ravel() for g in np.meshgrid(v, v))
    got, want = _af("poch", z, m), _scipy("poch", z, m)
    assert _max_rel(got, want, 1e-300) <= 1e-13


def test_poch_gradients():
    z = np.array([0.5, 2.5, 30.0, 7.0, 200.0])
    m = np.array([1.5, -0.7, 4.0, 2.2, -3.5])
    tz, tm = af.asarray(z, requires_grad=True), af.asarray(m, requires_grad=True)
    gz, gm = af.autograd.grad(af.sum(af.special.poch(tz, tm)), [tz, tm], create_graph=True)
    hz, hm = af.autograd.grad(af.sum(gz + gm), [tz, tm])
    uz, um = torch.tensor(z, requires_grad=True), torch.tensor(m, requires_grad=True)
    ref = torch.exp(torch.lgamma(uz + um) - torch.lgamma(uz))
    rz, rm = torch.autograd.grad(ref.sum(), [uz, um], create_graph=True)
    sz, sm = torch.autograd.grad((rz + rm).sum(), [uz, um])
    assert_allclose(gz.detach().numpy(), rz.detach().numpy(), rtol=1e-9)
    assert_allclose(gm.detach().numpy(), rm.detach().numpy(), rtol=1e-9)
    assert_allclose(hz.numpy(), sz.numpy(), rtol=1e-7)
    assert_allclose(hm.numpy(), sm.numpy(), rtol=1e-7)
    # below 0 (torch's lgamma loses the sign): finite differences
    zn, mn = af.asarray(np.array([-2.5, -0.3]), requires_grad=True), af.asarray(
        np.array([1.2, -1.7]), requires_grad=True)
    assert af.autograd.gradcheck(af.special.poch, (zn, mn))
    with fwAD.dual_level():
        d = fwAD.make_dual(af.asarray(m), af.ones_like(af.asarray(m)))
        tan = fwAD.unpack_dual(af.special.poch(af.asarray(z), d)).tangent.numpy()
    assert_allclose(tan, rm.detach().numpy(), rtol=1e-9)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_binom_against_scipy(dtype):
    rng = np.random.default_rng(8)
    grids = [(rng.uniform(-300, 300, 30000), rng.uniform(-300, 300, 30000)),
             (np.round(rng.uniform(-5, 80, 30000)), np.round(rng.uniform(-5, 80, 30000))),
             (rng.uniform(-5, 60, 30000), np.round(rng.uniform(-5, 30, 30000)))]
    if dtype == "float32":  # (no poles of Gamma(n - k + 1): float32's n - k next to one)
        n32 = rng.uniform(0, 30, 30000)
        grids = [(n32, n32 * rng.uniform(0, 1, 30000)), grids[1]]
    for n, k in grids:
        n, k = n.astype(dtype), k.astype(dtype)
        got, want = _af("binom", n, k), _scipy("binom", n, k)
        assert got.dtype == np.dtype(dtype)
        keep = np.abs(want) > (1e-290 if dtype == "float64" else 1e-30)
        assert _max_rel(got[keep], want[keep], 1e-300) <= (
            2e-12 if dtype == "float64" else 5e-5)  # (float32: beta from logs)


def test_binom_against_mpmath_where_scipy_cancels():
    # SciPy's lgam(a) + lgam(b) - lgam(a + b) loses up to 1.7e-7 (binom(2.5e7, 27))
    mp.mp.dps = 40
    rng = np.random.default_rng(9)
    n = np.concatenate([10 ** rng.uniform(3, 9, 100), [24872660.413345058, 1e5, 1e5]])
    k = np.concatenate([rng.uniform(0, 40, 100), [26.984969342136804, 1.5, 20.0]])
    want = np.array([float(mp.binomial(mp.mpf(a), mp.mpf(b))) for a, b in zip(n, k)])
    got = _af("binom", n, k)
    keep = np.abs(want) < 1e290  # (beyond, 1/((n+1) beta) passes a subnormal beta)
    # an exponential of a large logarithm: |log f| * 2e-16
    bound = 1e-13 + 2e-16 * np.abs(np.log(np.abs(want[keep])))
    assert np.all(np.abs(got[keep] - want[keep]) / np.abs(want[keep]) <= bound)


def test_binom_special_values_as_scipy():
    v = np.array([-3.0, -2.0, -1.0, -0.0, 0.0, 1.0, 2.0, 3.0, 0.5, -2.5, 1.5, np.inf, -np.inf,
                  np.nan, 1e-9, 20.0, 19.0, 45.0])
    n, k = (g.ravel() for g in np.meshgrid(v, v))
    got, want = _af("binom", n, k), _scipy("binom", n, k)
    assert _max_rel(got, want, 1e-300) <= 1e-13


def test_binom_gradients_against_mpmath_also_at_its_zeros():
    mp.mp.dps = 30
    n = np.array([3.0, 5.5, 10.0, -2.5, 3.0, 7.0, 1e3])
    k = np.array([5.0, 2.2, 3.0, 1.5, -2.0, 3.5, 2.5])
    tn, tk = af.asarray(n, requires_grad=True), af.asarray(k, requires_grad=True)
    gn, gk = af.autograd.grad(af.sum(af.special.binom(tn, tk)), [tn, tk])

    def f(a, b):
        return mp.gamma(a + 1) * mp.rgamma(b + 1) * mp.rgamma(a - b + 1)
    wn = [float(mp.diff(lambda a, b=b: f(a, b), a0)) for a0, b in zip(n, k)]
    wk = [float(mp.diff(lambda b, a0=a0: f(a0, b), b0)) for a0, b0 in zip(n, k)]
    assert_allclose(gn.numpy(), wn, rtol=1e-12, atol=1e-30)  # binom(3, 5) = 0: slope -1/20
    assert_allclose(gk.numpy(), wk, rtol=1e-12, atol=1e-30)
    tn, tk = af.asarray(n[:6], requires_grad=True), af.asarray(k[:6], requires_grad=True)
    assert af.autograd.gradcheck(af.special.binom, (tn, tk))
    assert af.autograd.gradgradcheck(af.special.binom, (tn, tk))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_hurwitz_zeta_positive_q(dtype):
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.uniform(1.0001, 40.0, 20000), 1.0 + 10 ** rng.uniform(-8, 0, 2000)])
    q = np.concatenate([10 ** rng.uniform(-4, 11, 22000)])
    x, q = x.astype(dtype), q.astype(dtype)
    got, want = _af("zeta", x, q), _scipy("zeta", x, q)
    assert got.dtype == np.dtype(dtype)
    # float32: below 1e-30 the Euler-Maclaurin terms are subnormal (SciPy sums in float64)
    tiny = np.finfo(dtype).tiny if dtype == "float64" else 1e-30
    assert _max_rel(got, want, tiny) <= (1e-14 if dtype == "float64" else 2e-6)


def _abs_terms(x, q, terms=400):
    """``sum_k |q + k|**-x`` (the scale of the cancelling sum for ``q < 0``)."""
    k = np.arange(terms)[:, None]
    return np.sum(np.abs(q + k) ** -x, axis=0)


def test_hurwitz_zeta_negative_q_integer_x():
    # the sum of (q + k)**-x cancels for odd x: the error is relative to sum |q + k|**-x;
    # SciPy's (a plain sum from q up) is off by up to 50x its value at polygamma(20, -2.5)
    rng = np.random.default_rng(3)
    q = np.concatenate([rng.uniform(-40.0, 0.0, 3000), -rng.uniform(-3, 3, 300) - 1000.0])
    x = np.round(rng.uniform(2.0, 30.0, q.size))
    got, want = _af("zeta", x, q), _scipy("zeta", x, q)
    scale = _abs_terms(x, q, 1100)
    assert np.max(np.abs(got - want) / scale) <= 1e-14
    mp.mp.dps = 50
    for xv, qv in [(19.0, -29.499997551332854), (21.0, -2.5), (11.0, -170.4999977504075)]:
        m = -int(np.floor(qv))  # the terms below 0 summed, then zeta at q + m > 0
        want = float(mp.zeta(xv, mp.mpf(qv) + m)
                     + mp.fsum(mp.power(mp.mpf(qv) + k, -int(xv)) for k in range(m)))
        got = _af("zeta", np.array([xv]), np.array([qv]))[0]
        assert abs(got - want) <= 1e-14 * _abs_terms(np.array([xv]), np.array([qv]), 200)[0]


def test_hurwitz_zeta_special_values_as_scipy():
    v = np.array([-np.inf, -2.5, -2.0, -0.5, -0.0, 0.0, 0.3, 0.5, 1.0, 1.5, 2.0, 9.0, 1e9,
                  np.inf, np.nan])
    xs = np.array([np.inf, 1e300, 400.0, 2.0, 1.0, 0.5, np.nan, -1.0, 3.0, 1.5, 7.0])
    x, q = (g.ravel() for g in np.meshgrid(xs, v))
    got, want = _af("zeta", x, q), _scipy("zeta", x, q)
    # the cancelling sums of q < 0 against their scale (SciPy is off by 4e-11 relative at
    # zeta(7, -2.5), this one by 1e-15: the test above)
    cancel = (q < 0) & (q != np.floor(q)) & (x == np.floor(x)) & (x > 1) & (x < 1e3)
    assert _max_rel(got[~cancel], want[~cancel], 1e-300) <= 1e-14
    scale = _abs_terms(x[cancel], q[cancel])
    assert np.max(np.abs(got[cancel] - want[cancel]) / scale) <= 1e-14


@pytest.mark.parametrize("name", ["zeta", "zetac"])
def test_riemann_zeta_and_zetac(name):
    x = np.concatenate([np.linspace(-1.0, 130.0, 20001), np.linspace(-170.0, -1.0, 20001),
                        -np.logspace(-5, 2, 300), np.logspace(-5, 2, 300),
                        [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, 1 - 1e-15, 1 + 1e-15, 126.0,
                         127.0, 127.5, -0.01, -0.005, 5e-324, -2.0, -260.0, -300.5]])
    got, want = _af(name, x), _scipy(name, x)
    err = np.abs(got - want) / np.abs(want)
    err[(got == want) | (np.isnan(got) & np.isnan(want))] = 0.0
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert err[x > -0.01].max() <= 1e-14
    # below: SciPy loses up to 1e-11 next to the trivial zeros (its argument reduction);
    # against mpmath this is within 2e-15 there (see the test below)
    assert err[(x <= -0.01) & (np.abs(x / 2 - np.round(x / 2)) > 1e-3)].max() <= 5e-13


def test_riemann_zeta_below_zero_against_mpmath():
    mp.mp.dps = 40
    x = np.array([-66.00001333333334, -20.3, -5.5, -100.7, -150.2, -169.9, -3.00001, -0.02,
                  -171.3, -240.7])
    want = np.array([float(mp.zeta(v)) for v in x])
    got = _af("zeta", x)
    rel = np.abs(got - want) / np.abs(want)
    assert rel[x > -170].max() <= 1e-14
    assert rel.max() <= 2e-13  # from the logarithm of Gamma beyond 170


def test_zetac_float32():
    x = np.concatenate([np.linspace(-0.009, 60.0, 5001)]).astype("float32")
    x = x[np.abs(x - 1) > 1e-3]
    got, want = _af("zetac", x), _scipy("zetac", x)
    assert got.dtype == np.float32
    assert _max_rel(got, want, np.finfo("float32").tiny) <= 2e-5


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_polygamma_against_scipy(dtype):
    rng = np.random.default_rng(4)
    x = 10 ** rng.uniform(-3, 5, 20000)
    n = rng.integers(1, 9, x.size)
    if dtype == "float32":  # where zeta(n + 1, x) ~ x**-n / n is a float32 subnormal, the
        keep = x ** -n.astype(float) / n > 1e-30  # product n! zeta loses its digits
        x, n = x[keep], n[keep]
    got = _af("polygamma", n.astype(dtype), x.astype(dtype))
    want = _scipy("polygamma", n, x.astype(dtype))
    assert got.dtype == np.dtype(dtype)
    assert _max_rel(got, want, np.finfo(dtype).tiny) <= (1e-14 if dtype == "float64" else 2e-6)
    # n = 0 is digamma (near its zero 1.46 relative accuracy is lost: absolute there)
    got = _af("polygamma", 0, x.astype(dtype))
    assert _err_scaled(got, _scipy("psi", x.astype(dtype))) <= (
        1e-13 if dtype == "float64" else 2e-6)


def test_polygamma_orders_as_scipy():
    n = np.array([0.0, 1.0, 2.0, 3.0, 1.5, -1.0, np.nan, 7.0])[:, None]
    x = np.array([-np.inf, -2.5, -2.0, -0.5, -0.0, 0.0, 0.3, 1.0, 1e9, np.inf, np.nan])
    got, want = _af("polygamma", n, x), _scipy("polygamma", n, x)
    assert _max_rel(got, want, 1e-300) <= 1e-13


def test_polygamma_negative_x_against_mpmath():
    mp.mp.dps = 40
    for n, x in [(1, -1.5), (2, -2.3), (4, -0.7), (20, -2.5), (3, -30.25)]:
        want = float(mp.polygamma(n, x))
        got = _af("polygamma", n, np.array([x]))[0]
        scale = float(mp.factorial(n)) * _abs_terms(np.array([n + 1.0]), np.array([x]), 200)[0]
        assert abs(got - want) <= 1e-14 * scale, (n, x)


@pytest.mark.parametrize("d", [1, 2, 5])
def test_multigammaln_against_scipy_and_torch(d):
    a = np.linspace(0.5 * (d - 1) + 0.01, 60.0, 3001)
    got, want = _af("multigammaln", a, d), sp.multigammaln(a, d)
    assert _err_scaled(got, want) <= 1e-14
    ref = torch.special.multigammaln(torch.tensor(a), d).numpy()
    assert _err_scaled(got, ref) <= 1e-14


def test_multigammaln_domain():
    # SciPy raises ValueError where a <= (d - 1)/2 (checking needs the values): NaN there
    got = _af("multigammaln", np.array([0.9, 1.0, 1.1]), 3)
    assert np.isnan(got[:2]).all() and np.isfinite(got[2])
    for d in (0, -1, 2.5, "3", True):
        with pytest.raises(ValueError, match="d should be a positive integer"):
            af.special.multigammaln(af.asarray([3.0]), d)


def test_semantics_on_every_backend(backend):
    x = np.array([-2.5, -1.0, 0.0, 0.5, 3.0, 40.0, np.nan])
    q = np.array([0.5, 1.5, 2.0, 3.0, 0.7, 9.0, 1.0])
    t, u = af.asarray(x, dtype=af.float64), af.asarray(q, dtype=af.float64)
    for name, args, ref in [
        ("gamma", (t,), (x,)), ("rgamma", (t,), (x,)), ("gammasgn", (t,), (x,)),
        ("loggamma", (t,), (x,)), ("zetac", (t,), (x,)), ("zeta", (t,), (x,)),
        ("betaln", (t, u), (x, q)), ("zeta", (u + 1.5, u), (q + 1.5, q)),
        ("polygamma", (2, t), (2, x)), ("poch", (u, t), (q, x)), ("binom", (t, u), (x, q)),
    ]:
        got = getattr(af.special, name)(*args).numpy()
        assert_allclose(got, _scipy(name, *ref), rtol=1e-13, equal_nan=True, err_msg=name)


# --- gradients -----------------------------------------------------------------------------

def _grads(name, x, *rest):
    """First and second derivatives (double backward) of ``name`` in its first argument."""
    t = af.asarray(x, requires_grad=True)
    y = getattr(af.special, name)(t, *rest)
    (g,) = af.autograd.grad(af.sum(y), [t], create_graph=True)
    (h,) = af.autograd.grad(af.sum(g), [t])
    return y.detach().numpy(), g.detach().numpy(), h.numpy()


def _torch_grads(fn, x):
    tt = torch.tensor(x, requires_grad=True)
    y = fn(tt)
    (g,) = torch.autograd.grad(y.sum(), [tt], create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), [tt])
    return g.detach().numpy(), h.numpy()


def _torch_gamma(t):
    # |Gamma| = exp(lgamma), the sign (-1)**floor(x) below 0
    sign = torch.where(t > 0, 1.0, 1.0 - 2.0 * torch.remainder(torch.floor(t), 2.0))
    return sign * torch.exp(torch.lgamma(t))


X_NOT_POLES = np.array([-40.6, -3.7, -2.2, -0.4, 0.3, 1.5, 4.2, 10.7, 40.3, 150.2])


def test_gamma_gradient_against_torch():
    _, g, h = _grads("gamma", X_NOT_POLES)
    gt, ht = _torch_grads(_torch_gamma, X_NOT_POLES)
    assert_allclose(g, gt, rtol=1e-12)  # torch: exp(lgamma) loses |lgamma| * eps
    assert_allclose(h, ht, rtol=1e-9)  # (torch's trigamma: 5e-10)


def test_rgamma_gradient_against_mpmath_and_at_its_zeros():
    mp.mp.dps = 30
    x = np.concatenate([X_NOT_POLES, [0.0, -1.0, -2.0, -5.0]])
    _, g, h = _grads("rgamma", x)
    want1 = np.array([float(mp.diff(mp.rgamma, mp.mpf(v))) for v in x])
    want2 = np.array([float(mp.diff(mp.rgamma, mp.mpf(v), 2)) for v in x])
    assert_allclose(g, want1, rtol=1e-13)  # (-1)**n n! at -n: finite at the zeros
    assert_allclose(h, want2, rtol=1e-12)


def test_loggamma_gradient_against_torch():
    x = np.abs(X_NOT_POLES)
    _, g, h = _grads("loggamma", x)
    gt, ht = _torch_grads(torch.lgamma, x)
    assert_allclose(g, gt, rtol=1e-13)
    assert_allclose(h, ht, rtol=1e-8)  # torch's trigamma


def test_gammasgn_gradient_is_zero():
    t = af.asarray(np.array([-2.5, 0.5, 3.0]), requires_grad=True)
    (g,) = af.autograd.grad(af.sum(af.special.gammasgn(t)), [t])
    np.testing.assert_array_equal(g.numpy(), 0.0)


def test_betaln_gradients_against_torch():
    a = np.array([0.5, 2.5, 30.0, -2.5, 1e7, 250.0])
    b = np.array([1.5, 0.7, 4.0, 1.2, 3.0, 400.0])
    ta, tb = af.asarray(a, requires_grad=True), af.asarray(b, requires_grad=True)
    out = af.special.betaln(ta, tb)
    ga, gb = af.autograd.grad(af.sum(out), [ta, tb], create_graph=True)
    ha, hb = af.autograd.grad(af.sum(ga * gb), [ta, tb])
    ua, ub = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    ref = torch.lgamma(ua) + torch.lgamma(ub) - torch.lgamma(ua + ub)
    ra, rb = torch.autograd.grad(ref.sum(), [ua, ub], create_graph=True)
    sa, sb = torch.autograd.grad((ra * rb).sum(), [ua, ub])
    assert_allclose(ga.detach().numpy(), ra.detach().numpy(), rtol=1e-9, atol=1e-15)
    assert_allclose(gb.detach().numpy(), rb.detach().numpy(), rtol=1e-9, atol=1e-15)
    assert_allclose(ha.numpy(), sa.numpy(), rtol=1e-7, atol=1e-15)
    assert_allclose(hb.numpy(), sb.numpy(), rtol=1e-7, atol=1e-15)
    # forward mode: the same partial derivatives
    with fwAD.dual_level():
        d = fwAD.make_dual(af.asarray(a), af.ones_like(af.asarray(a)))
        tan = fwAD.unpack_dual(af.special.betaln(d, af.asarray(b))).tangent.numpy()
    assert_allclose(tan, ra.detach().numpy(), rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("n", [1, 2, 4])
def test_polygamma_gradient_against_torch(n):
    x = np.array([0.3, 1.7, 4.5, -1.5, -2.3, 12.0, 150.0])
    t = af.asarray(x, requires_grad=True)
    y = af.special.polygamma(n, t)
    (g,) = af.autograd.grad(af.sum(y), [t], create_graph=True)
    (h,) = af.autograd.grad(af.sum(g), [t])
    gt, ht = _torch_grads(lambda u: torch.special.polygamma(n, u), x)
    assert_allclose(y.detach().numpy(), torch.special.polygamma(n, torch.tensor(x)).numpy(),
                    rtol=1e-12 if n > 1 else 1e-9)  # torch's n = 1 is its trigamma
    assert_allclose(g.detach().numpy(), gt, rtol=1e-12)
    assert_allclose(h.numpy(), ht, rtol=1e-10)


def test_polygamma_zero_gradient_is_trigamma_to_full_precision():
    x = np.concatenate([np.linspace(0.05, 30.0, 300), -np.linspace(0.05, 9.95, 100) - 0.013])
    t = af.asarray(x, requires_grad=True)
    (g,) = af.autograd.grad(af.sum(af.special.polygamma(0, t)), [t])
    assert_allclose(g.numpy(), sp.polygamma(1, x), rtol=1e-13)


def test_zeta_gradient_in_q_against_torch():
    x = np.array([2.5, 3.0, 1.5, 7.0, 3.0, 4.0])
    q = np.array([0.3, 1.5, 4.0, 12.0, -2.5, -0.7])
    tq = af.asarray(q, requires_grad=True)
    out = af.special.zeta(af.asarray(x), tq)
    (g,) = af.autograd.grad(af.sum(out), [tq], create_graph=True)
    (h,) = af.autograd.grad(af.sum(g), [tq])
    uq = torch.tensor(q, requires_grad=True)
    ref = torch.special.zeta(torch.tensor(x), uq)
    (gt,) = torch.autograd.grad(ref.sum(), [uq], create_graph=True)
    (ht,) = torch.autograd.grad(gt.sum(), [uq])
    assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-13)
    assert_allclose(g.detach().numpy(), gt.detach().numpy(), rtol=1e-13)
    assert_allclose(h.numpy(), ht.numpy(), rtol=1e-11)
    with fwAD.dual_level():
        d = fwAD.make_dual(af.asarray(q), af.ones_like(af.asarray(q)))
        tan = fwAD.unpack_dual(af.special.zeta(af.asarray(x), d)).tangent.numpy()
    assert_allclose(tan, gt.detach().numpy(), rtol=1e-13)
    # a Python-scalar exponent
    (g2,) = af.autograd.grad(af.sum(af.special.zeta(3.0, tq)), [tq])
    assert_allclose(g2.numpy(), -3.0 * sp.zeta(4.0, q), rtol=1e-13)


def test_multigammaln_gradient_against_torch():
    a = np.array([3.3, 5.0, 10.2, 40.0])
    _, g, h = _grads("multigammaln", a, 3)
    gt, ht = _torch_grads(lambda u: torch.special.multigammaln(u, 3), a)
    assert_allclose(g, gt, rtol=1e-13)
    assert_allclose(h, ht, rtol=1e-8)  # torch's trigamma


# --- derivatives that are not implemented --------------------------------------------------

def test_zeta_derivative_in_x_is_not_implemented_as_torch():
    x = af.asarray(np.array([2.5, 3.0]), requires_grad=True)
    q = af.asarray(np.array([1.5, 2.0]))
    out = af.special.zeta(x, q)  # the forward works
    assert_allclose(out.detach().numpy(), sp.zeta([2.5, 3.0], [1.5, 2.0]), rtol=1e-14)
    with pytest.raises(NotImplementedError, match=r"arrayflow\.special\.zeta with respect "
                                                  r"to x is not implemented"):
        af.sum(out).backward()
    xt = torch.tensor([2.5, 3.0], requires_grad=True)
    with pytest.raises(NotImplementedError):
        torch.special.zeta(xt, torch.tensor([1.5, 2.0])).sum().backward()
    with pytest.raises(NotImplementedError, match="zeta with respect to x"):
        af.sum(af.special.zeta(x)).backward()  # Riemann's
    with fwAD.dual_level():
        d = fwAD.make_dual(af.asarray(np.array([2.5])), af.asarray(np.array([1.0])))
        with pytest.raises(NotImplementedError, match="zeta with respect to x"):
            af.special.zeta(d, af.asarray(np.array([1.5])))


def test_polygamma_derivative_in_n_is_not_implemented():
    n = af.asarray(np.array([1.0, 2.0]), requires_grad=True)
    x = af.asarray(np.array([1.5, 2.5]), requires_grad=True)
    out = af.special.polygamma(n, x)
    with pytest.raises(NotImplementedError, match=r"polygamma with respect to n"):
        af.sum(out).backward()
    # an order that does not require grad: the gradient in x
    (g,) = af.autograd.grad(af.sum(af.special.polygamma(n.detach(), x)), [x])
    assert_allclose(g.numpy(), sp.polygamma([2, 3], [1.5, 2.5]), rtol=1e-13)
    # an integer order takes no gradient
    (g,) = af.autograd.grad(af.sum(af.special.polygamma(af.asarray([1, 2]), x)), [x])
    assert_allclose(g.numpy(), sp.polygamma([2, 3], [1.5, 2.5]), rtol=1e-13)


def test_zetac_derivative_is_not_implemented():
    x = af.asarray(np.array([2.5, -3.0]), requires_grad=True)
    with pytest.raises(NotImplementedError, match="zetac with respect to x"):
        af.sum(af.special.zetac(x)).backward()


# --- vmap ------------------------------------------------------------------------------------
# (no batching rule is declared here: the element-wise rule of arrayflow.special's functions
# belongs to func/_batching's table, for every family at once; meanwhile vmap runs the
# per-sample loop, whose values are checked)

@pytest.mark.parametrize(("name", "make"), [
    ("gamma", lambda t, u: af.special.gamma(t)),
    ("rgamma", lambda t, u: af.special.rgamma(t)),
    ("gammasgn", lambda t, u: af.special.gammasgn(t)),
    ("loggamma", lambda t, u: af.special.loggamma(t)),
    ("zetac", lambda t, u: af.special.zetac(t)),
    ("betaln", lambda t, u: af.special.betaln(t, u)),
    ("zeta", lambda t, u: af.special.zeta(t + 1.0, u)),
    ("riemann", lambda t, u: af.special.zeta(t + 1.0)),
    ("polygamma", lambda t, u: af.special.polygamma(2, t)),
    ("multigammaln", lambda t, u: af.special.multigammaln(t + 2.0, 3)),
    ("poch", lambda t, u: af.special.poch(t, u)),
    ("binom", lambda t, u: af.special.binom(t + 3.0, u)),
])
def test_vmap_matches_the_per_sample_values(name, make):
    from arrayflow.func import vmap
    rng = np.random.default_rng(5)
    x, y = rng.uniform(0.2, 3.0, (3, 4)), rng.uniform(0.2, 3.0, (4,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vmap(make, in_dims=(0, None))(af.asarray(x), af.asarray(y)).numpy()
    want = np.stack([make(af.asarray(r), af.asarray(y)).numpy() for r in x])
    assert_allclose(got, want, rtol=1e-15)
