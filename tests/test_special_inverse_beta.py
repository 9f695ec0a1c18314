"""``arrayflow.special`` inverses of the incomplete beta family
(:mod:`arrayflow.ops.special_inverse_beta`: betaincinv, bdtri, fdtri, nbdtri): values against
SciPy over wide grids where SciPy is right, through SciPy's forward functions (the residual,
scaled by the quantile's condition number) everywhere, against mpmath at hard points and where
SciPy is wrong, SciPy's values at the edges on every backend, float32, gradients against
finite differences and against ``1 / density`` from ``scipy.stats``, ``NotImplementedError``
for the shape parameters, forward against reverse mode. Expected values
come from SciPy and mpmath only."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from test_special import _max_rel

import arrayflow as af

sp = pytest.importorskip("scipy.special")
stats = pytest.importorskip("scipy.stats")
mpmath = pytest.importorskip("mpmath")

NAMES = ["betaincinv", "bdtri", "fdtri", "nbdtri"]
TWO_M56 = 2.0 ** -56  # SciPy 1.17's (Boost's) floor of betaincinv: wrong below it


def _floored(v):
    """Where SciPy returned its floor (about 2**-56) for betaincinv."""
    return np.abs(v / TWO_M56 - 1) < 1e-12


def _scipy(name, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            return getattr(sp, name)(*args)


def _grid(n_ab=41, lo=-2.0, hi=3.0):
    """a, b log-spaced in [10**lo, 10**hi], y from 1e-100 to 1 - 1e-15."""
    ab = np.logspace(lo, hi, n_ab)
    ys = np.concatenate([np.logspace(-100, -1, 40), np.linspace(0.1, 0.9, 9),
                         1 - np.logspace(-1, -15, 20)])
    A, B, Y = np.meshgrid(ab, ab, ys, indexing="ij")
    return A.ravel(), B.ravel(), Y.ravel()


def _beta_residual(a, b, y, x):
    """(relative error of x implied by SciPy's betainc residual, condition number): the
    residual of the smaller tail probability over ``x density(x)``, and that tail
    probability over ``x density(x)``."""
    with np.errstate(all="ignore"):
        xc = 1.0 - x
        small = x < 0.5
        lower = y <= 0.5
        p = np.where(small, _scipy("betainc", a, b, x), _scipy("betaincc", b, a, xc))
        q = np.where(small, _scipy("betaincc", a, b, x), _scipy("betainc", b, a, xc))
        res = np.abs(np.where(lower, p - y, q - (1 - y)))
        tgt = np.minimum(y, 1 - y)
        lf = np.where(small, stats.beta.logpdf(x, a, b), stats.beta.logpdf(xc, b, a))
        scale = np.exp(np.log(x) + lf)
        return res / scale, tgt / scale


# --- betaincinv: values ---------------------------------------------------------------------

def test_betaincinv_residual_over_a_wide_grid():
    # a, b in [0.01, 1000], y in [1e-100, 1 - 1e-15]: the relative error of x (from SciPy's
    # betainc, accurate to a few ulps, at our x) within 5e-13 max(1, c) plus x's rounding,
    # c the condition number (up to 1/a, 1/b in the tails: y's own rounding costs c ulps)
    A, B, Y = _grid()
    x = af.special.betaincinv(af.asarray(A), af.asarray(B), af.asarray(Y)).numpy()
    assert not np.any(np.isnan(x))
    keep = (x > 1e-300) & (x < 1)  # x normal, 1 - x not rounded to 0
    assert keep.sum() > 80000
    err, cond = _beta_residual(A[keep], B[keep], Y[keep], x[keep])
    score = (err - 2.3e-16) / np.maximum(1.0, cond)
    assert np.max(score) < 5e-13, np.max(score)


def test_betaincinv_small_shape_parameter():
    # a or b in [1e-3, 1e-2] (the other in [1e-3, 1e3]): 3e-13 max(1, c) (measured 2.9e-13)
    rng = np.random.default_rng(1)
    n = 4000
    a, b = 10 ** rng.uniform(-3, -2, n), 10 ** rng.uniform(-3, 3, n)
    sw = rng.random(n) < 0.5
    a, b = np.where(sw, a, b), np.where(sw, b, a)
    y = np.exp(rng.uniform(np.log(1e-100), 0, n))
    y = np.where(rng.random(n) < 0.5, y, 1 - y)
    x = af.special.betaincinv(af.asarray(a), af.asarray(b), af.asarray(y)).numpy()
    assert not np.any(np.isnan(x))
    keep = (x > 1e-300) & (x < 1)
    assert keep.sum() > 700
    err, cond = _beta_residual(a[keep], b[keep], y[keep], x[keep])
    assert np.max((err - 2.3e-16) / np.maximum(1.0, cond)) < 4e-13


def test_betaincinv_matches_scipy_where_scipy_is_right():
    A, B, Y = _grid(31)
    got = af.special.betaincinv(af.asarray(A), af.asarray(B), af.asarray(Y)).numpy()
    want = _scipy("betaincinv", A, B, Y)
    # SciPy's Boost floors its quantile at 2**-56 (test_betaincinv_where_scipy_is_wrong);
    # compared where SciPy's own residual shows it right, x normal and 1 - x not rounded
    err_s, cond = _beta_residual(A, B, Y, want)
    keep = ((want > 1e-300) & (want < 0.5) & ~_floored(want)
            & (err_s / np.maximum(1.0, cond) < 1e-13))
    assert keep.sum() > 30000
    rel = np.abs(got[keep] - want[keep]) / want[keep]
    assert np.max(rel / np.maximum(1.0, cond[keep])) < 5e-13
    # and in the bulk (condition number below 10): 1e-12 plain
    bulk = cond[keep] < 10
    assert bulk.sum() > 20000
    assert np.max(rel[bulk]) < 1e-12, np.max(rel[bulk])


@pytest.mark.parametrize(("a", "b", "y"), [
    # SciPy (Boost): 2**-56 (floor), NaN, off by 3e-12 or 3e-8 at a symmetric median
    (2.371373705661655, 0.023713737056616554, 5.3556669177069074e-42),
    (4.216965034285822, 0.1, 3.3529241492495943e-72),
    (0.1333521432163324, 0.1333521432163324, 0.5),
    (1.7782794100389228, 1.7782794100389228, 0.5),
    # hard: tiny a with huge b (condition number 1/a), large a and b, y near 1
    (0.001, 1000.0, 0.9), (0.01333521432163324, 562.341325190349, 0.7),
    (800.0, 900.0, 1e-90), (50.0, 3.0, 1 - 1e-12), (300.0, 0.5, 1e-50), (1.0, 1000.0, 0.6),
    (2.0, 40.0, 1e-100),
])
def test_betaincinv_against_mpmath(a, b, y):
    x = af.special.betaincinv(*(af.asarray(np.array([v])) for v in (a, b, y))).numpy()[0]
    with mpmath.workdps(50):
        ma, mb, my = mpmath.mpf(a), mpmath.mpf(b), mpmath.mpf(y)
        upper = y > 0.5
        tgt = 1 - my if upper else my

        near1 = x > 0.5  # solved in s = log(1 - x) there, in s = log(x) below

        def g(s):  # log of the smaller tail probability at x(s), minus its target
            xs = 1 - mpmath.exp(s) if near1 else mpmath.exp(s)
            v = (mpmath.betainc(ma, mb, xs, 1, regularized=True) if upper
                 else mpmath.betainc(ma, mb, 0, xs, regularized=True))
            return mpmath.log(v) - mpmath.log(tgt)

        s0 = mpmath.log(1 - mpmath.mpf(x)) if near1 else mpmath.log(mpmath.mpf(x))
        root = mpmath.exp(mpmath.findroot(g, s0))
        ref = 1 - root if near1 else root
        # the condition number min(y, 1-y) / (x density): y's rounding alone costs that
        dens = mpmath.exp((ma - 1) * mpmath.log(ref) + (mb - 1) * mpmath.log(1 - ref)
                          - mpmath.log(mpmath.beta(ma, mb)))
        cond = float(tgt / (min(ref, 1 - ref) * dens))
        rel = float(abs((mpmath.mpf(x) - ref) / ref))
    assert rel < 2.5e-13 * max(1.0, cond), (rel, cond)


def test_betaincinv_where_scipy_is_wrong():
    # SciPy 1.17 returns 2**-56 for quantiles below it, NaN at y = 5e-324, and 0.49999998600
    # for the median of beta(0.13, 0.13) (exactly 1/2 by symmetry); values checked against
    # mpmath above
    a = np.array([4.216965034285822, 2.0, 0.1333521432163324, 0.01])
    b = np.array([0.1, 3.0, 0.1333521432163324, 0.01])
    y = np.array([3.3529241492495943e-72, 5e-324, 0.5, 0.5])
    got = af.special.betaincinv(af.asarray(a), af.asarray(b), af.asarray(y)).numpy()
    want = _scipy("betaincinv", a, b, y)
    assert _floored(want[0]) and np.isnan(want[1]) and abs(want[2] - 0.5) > 1e-8
    np.testing.assert_allclose(got[0], 2.6135476103046707e-17, rtol=5e-14)
    # y = 5e-324 (subnormal, one bit): betainc's value there has no relative precision
    np.testing.assert_allclose(got[1], 9.0743745959087684e-163, rtol=1e-6)
    np.testing.assert_array_equal(got[2:], [0.5, 0.5])


def test_betaincinv_round_trip():
    rng = np.random.default_rng(3)
    n = 3000
    a, b = 10 ** rng.uniform(-2, 3, n), 10 ** rng.uniform(-2, 3, n)
    y = np.concatenate([rng.uniform(0, 1, n // 2), 10 ** rng.uniform(-100, 0, n - n // 2)])
    x = af.special.betaincinv(af.asarray(a), af.asarray(b), af.asarray(y))
    back = af.special.betainc(af.asarray(a), af.asarray(b), x).numpy()
    xn = x.numpy()
    keep = (xn > 1e-300) & (xn < 0.5) & (y <= 0.5)
    _, cond = _beta_residual(a[keep], b[keep], y[keep], xn[keep])
    # betainc's own error (documented 5e-12) and the rounding of x (1/c of y per ulp)
    rel = np.abs(back[keep] - y[keep]) / y[keep]
    assert np.all(rel < 5e-12 + 4e-16 / np.minimum(1.0, cond)), np.max(rel)


def test_betaincinv_float32():
    A, B, Y = _grid(21, -2.0, 3.0)
    Y = np.clip(Y, 1e-30, 1 - 1e-6)
    a, b, y = (v.astype(np.float32) for v in (A, B, Y))
    got = af.special.betaincinv(af.asarray(a), af.asarray(b), af.asarray(y))
    assert got.dtype == af.float32
    a64, b64, y64 = (v.astype(np.float64) for v in (a, b, y))
    want = _scipy("betaincinv", a64, b64, y64)
    x64 = af.special.betaincinv(af.asarray(a64), af.asarray(b64), af.asarray(y64)).numpy()
    # float32 is solved in float64 and rounded: the float64 value, rounded
    np.testing.assert_array_equal(got.numpy(), x64.astype(np.float32))
    err, cond = _beta_residual(a64, b64, y64, want)
    keep = ((want > 1e-37) & (want < 0.5) & ~_floored(want)
            & (err / np.maximum(1.0, cond) < 1e-13))
    rel = np.abs(got.numpy()[keep].astype(np.float64) - want[keep]) / want[keep]
    assert np.max(rel) < 1e-7  # float32's rounding (6e-8)


# --- the distribution functions: values ---------------------------------------------------

def _probabilities(n, seed):
    rng = np.random.default_rng(seed)
    y = np.exp(rng.uniform(np.log(1e-100), 0, n))
    return np.clip(np.where(rng.random(n) < 0.5, y, 1 - y), 1e-300, 1 - 1e-15), rng


def _dist_score(y, p, back_lower, back_upper, dens):
    """Residual of the smaller tail, over max(its target, p |dF/dp|): the relative error of
    p where the problem is well-conditioned, of the target probability otherwise."""
    tgt = np.minimum(y, 1 - y)
    back = np.where(y <= 0.5, back_lower, back_upper)
    return np.abs(back - tgt) / np.maximum(tgt, np.abs(p) * dens)


def test_fdtri_over_a_wide_sample():
    y, rng = _probabilities(20000, 11)
    n = y.size
    dfn, dfd = 10 ** rng.uniform(-1.5, 3.3, n), 10 ** rng.uniform(-1.5, 3.3, n)
    x = af.special.fdtri(af.asarray(dfn), af.asarray(dfd), af.asarray(y)).numpy()
    keep = (x > 1e-300) & np.isfinite(x)
    assert keep.sum() > 15000 and not np.any(np.isnan(x))
    dfn, dfd, y, x = dfn[keep], dfd[keep], y[keep], x[keep]
    s = _dist_score(y, x, _scipy("fdtr", dfn, dfd, x), _scipy("fdtrc", dfn, dfd, x),
                    stats.f.pdf(x, dfn, dfd))
    assert np.max(s) < 2.5e-13, np.max(s)
    # against SciPy where its own residual shows it right
    want = _scipy("fdtri", dfn, dfd, y)
    sw = _dist_score(y, want, _scipy("fdtr", dfn, dfd, want),
                     _scipy("fdtrc", dfn, dfd, want), stats.f.pdf(want, dfn, dfd))
    good = sw < 1e-13
    assert good.sum() > 10000
    cond = np.minimum(y, 1 - y) / (x * stats.f.pdf(x, dfn, dfd))
    rel = np.abs(x - want) / want
    assert np.max((rel / np.maximum(1.0, cond))[good]) < 1e-12


@pytest.mark.parametrize("name", ["bdtri", "nbdtri"])
def test_binomial_inverses_over_a_wide_sample(name):
    y, rng = _probabilities(20000, 12 if name == "bdtri" else 13)
    n = np.floor(10 ** rng.uniform(0, 3.4, y.size)) + 1
    if name == "bdtri":
        k = np.floor(rng.uniform(0, 1, y.size) * n)
    else:
        k = np.floor(rng.uniform(0, 2999, y.size))
    p = getattr(af.special, name)(af.asarray(k), af.asarray(n), af.asarray(y)).numpy()
    assert not np.any(np.isnan(p))
    # the forward through SciPy's betainc (Boost; its bdtr/nbdtr, Cephes, lose up to 1e-11)
    if name == "bdtri":  # bdtr(k, n, p) = I_{1-p}(n-k, k+1) = 1 - I_p(k+1, n-k)
        lo, up = _scipy("betaincc", k + 1, n - k, p), _scipy("betainc", k + 1, n - k, p)
        dens = stats.beta.pdf(p, k + 1, n - k)
    else:  # nbdtr(k, n, p) = I_p(n, k+1)
        lo, up = _scipy("betainc", n, k + 1, p), _scipy("betaincc", n, k + 1, p)
        dens = stats.beta.pdf(p, n, k + 1)
    keep = (p > 1e-300) & (p < 1)
    assert keep.sum() > 15000
    s = _dist_score(y, p, lo, up, dens)[keep]
    assert np.max(s) < 2.5e-13, np.max(s)
    # SciPy (Cephes incbi) where its own residual shows it right
    want = _scipy(name, k, n, y)
    if name == "bdtri":
        wl, wu = _scipy("betaincc", k + 1, n - k, want), _scipy("betainc", k + 1, n - k, want)
        wd = stats.beta.pdf(want, k + 1, n - k)
    else:
        wl, wu = _scipy("betainc", n, k + 1, want), _scipy("betaincc", n, k + 1, want)
        wd = stats.beta.pdf(want, n, k + 1)
    good = keep & (_dist_score(y, want, wl, wu, wd) < 1e-13) & (want > 1e-300)
    assert good.sum() > 5000
    with np.errstate(divide="ignore"):
        cond = np.minimum(y, 1 - y) / (p * dens)
    rel = np.abs(p - want) / want
    assert np.max((rel / np.maximum(1.0, cond))[good]) < 1e-12


def test_distribution_inverses_where_scipy_is_wrong():
    # SciPy: fdtri(0.001, 1, 0.5) = 2.2e-305 (a floor; the quantile is about 1e-598, 0 in
    # float64), fdtri(2.93, 0.087, 1.5e-26) off by 45 %, bdtri and nbdtri 1 - 2**-53 and 2**-53
    # where Cephes' incbi gives up (checked through mpmath's betainc below)
    x = af.special.fdtri(af.asarray(np.array([0.001, 2.928501626676191])),
                         af.asarray(np.array([1.0, 0.0866935975286017])),
                         af.asarray(np.array([0.5, 1.528369211679217e-26]))).numpy()
    assert x[0] == 0.0 and _scipy("fdtri", 0.001, 1.0, 0.5) > 1e-306
    with mpmath.workdps(40):
        w = mpmath.mpf(2.928501626676191) * x[1] / (0.0866935975286017
                                                      + 2.928501626676191 * x[1])
        back = mpmath.betainc(2.928501626676191 / 2, 0.0866935975286017 / 2, 0, w,
                              regularized=True)
        assert abs(float(back / mpmath.mpf(1.528369211679217e-26)) - 1) < 1e-13
    p = af.special.nbdtri(af.asarray(np.array([2.0])), af.asarray(np.array([1462.0])),
                          af.asarray(np.array([2.885666019686451e-20]))).numpy()[0]
    assert _scipy("nbdtri", 2.0, 1462.0, 2.885666019686451e-20) < 1e-15
    p2 = af.special.bdtri(af.asarray(np.array([9.0])), af.asarray(np.array([2110.0])),
                          af.asarray(np.array([1.9051524729417048e-17]))).numpy()[0]
    assert _scipy("bdtri", 9.0, 2110.0, 1.9051524729417048e-17) > 0.999
    with mpmath.workdps(40):
        back = mpmath.betainc(1462, 3, 0, p, regularized=True)
        assert abs(float(back / mpmath.mpf(2.885666019686451e-20)) - 1) < 1e-12
        back2 = mpmath.betainc(10, 2101, p2, 1, regularized=True)  # bdtr = 1 - I_p(k+1, n-k)
        assert abs(float(back2 / mpmath.mpf(1.9051524729417048e-17)) - 1) < 1e-12


@pytest.mark.parametrize("name", NAMES)
def test_distribution_inverses_float32(name):
    y, rng = _probabilities(2000, 21)
    y = np.clip(y, 1e-30, 1 - 1e-6).astype(np.float32)
    if name in ("betaincinv", "fdtri"):
        a, b = 10 ** rng.uniform(-1, 2.5, y.size), 10 ** rng.uniform(-1, 2.5, y.size)
    else:
        b = np.floor(10 ** rng.uniform(0, 2.5, y.size)) + 1
        a = np.floor(rng.uniform(0, 1, y.size) * b)
    a, b = a.astype(np.float32), b.astype(np.float32)
    got = getattr(af.special, name)(af.asarray(a), af.asarray(b), af.asarray(y))
    assert got.dtype == af.float32
    g64 = getattr(af.special, name)(*(af.asarray(v.astype(np.float64)) for v in (a, b, y)))
    g64 = g64.numpy()
    fin = np.isfinite(g64) & (np.abs(g64) > 1e-37) & (np.abs(g64) < 1e37)
    # the float64 solution, rounded (float32 is solved in float64)
    rel = np.abs(got.numpy()[fin].astype(np.float64) - g64[fin]) / np.abs(g64[fin])
    assert np.max(rel) < 6e-8


# --- edges --------------------------------------------------------------------------------

EDGE_SHAPES = [0.0, 1.0, 2.5, -1.0, np.inf, np.nan, 0.5, 1e-300]
EDGE_P = [0.0, 1.0, 0.3, 0.5, 0.9, -0.1, 1.1, np.nan, 1e-300]


@pytest.mark.parametrize("name", NAMES)
def test_edges_as_scipy_on_every_backend(name, backend):
    grid = list(itertools.product(EDGE_SHAPES, EDGE_SHAPES, EDGE_P))
    a, b, y = (np.array(c) for c in zip(*grid))
    got = getattr(af.special, name)(af.asarray(a), af.asarray(b), af.asarray(y)).numpy()
    want = _scipy(name, a, b, y)
    inside = (0 < y) & (y < 1) & (a > 0) & (b > 0)
    if name in ("betaincinv", "fdtri"):
        # the documented differences: NaN (not verified) for a shape parameter below 1e-3
        # (dfn, dfd below 2e-3) unless the quantile under- or overflows; SciPy's floors
        # (2**-56, 2.2e-308 and multiples) where the quantile is below them (0 here) and the
        # ratio of those where the F quantile overflows
        lim = 1e-3 if name == "betaincinv" else 2e-3
        unverified = inside & np.isnan(got) & (np.minimum(a, b) < lim)
        want[unverified] = np.nan
        floor = _floored(want) | ((want > 0) & (want < 1e-7) & (got < 1e-300))
        want[floor] = got[floor]
        assert np.all(got[floor] < 1e-300)
    if name == "betaincinv":
        # a = inf (b finite) -> 1 and b = inf -> 0 inside (SciPy: NaN unless the other is 1)
        lim = inside & (np.isinf(a) ^ np.isinf(b))
        limit = np.where(np.isinf(a), 1.0, 0.0)[lim]
        assert np.all(np.isnan(want[lim]) | (want[lim] == limit))
        want[lim] = limit
    if name == "fdtri":  # dfd = 1e-300: the quantile overflows (inf); SciPy 1e-300 / 2.2e-308
        over = inside & (b == 1e-300) & (a >= 0.5) & np.isfinite(a) & (y > 1e-300)
        assert np.all(got[over] == np.inf) and np.all(want[over] < 1e8)
        want[over] = np.inf
    # y = 1e-300: the tail probability's exponent (-690) costs betainc 690 ulps
    with np.errstate(invalid="ignore"):  # inf - inf where both are inf
        assert _max_rel(got, want, 1e-300) < 3e-13


def test_edges_documented():
    inf = np.inf
    a = np.array([inf, inf, 2.0, 2.0, inf, inf, inf, 5000.0, 0.01])
    b = np.array([2.0, 2.0, inf, inf, inf, inf, inf, 5000.0, 0.01])
    y = np.array([0.3, 0.0, 0.7, 1.0, 0.0, 1.0, 0.5, 0.5, 0.5])
    got = af.special.betaincinv(af.asarray(a), af.asarray(b), af.asarray(y)).numpy()
    # the limits (all mass at 1, at 0); NaN for inf/inf inside and for a, b above 3000
    # (not implemented there); the symmetric median exactly
    np.testing.assert_array_equal(got, [1.0, 0.0, 0.0, 1.0, 0.0, 1.0, np.nan, np.nan, 0.5])
    # bdtri: k is floored (SciPy), n truncated; k >= n is NaN; y = 0 -> 1, y = 1 -> 0
    k = np.array([0.5, 1.7, -0.5, 3.0, 2.0, 2.0, 1.0, 1.0])
    n = np.array([2.0, 3.0, 2.0, 3.0, 5.0, 5.0, 2.7, 3500.0])
    y = np.array([0.5, 0.5, 0.5, 0.5, 0.0, 1.0, 0.5, 0.5])
    got = af.special.bdtri(af.asarray(k), af.asarray(n), af.asarray(y)).numpy()
    want = _scipy("bdtri", k, n, y)
    want[-1] = np.nan  # n - k above 3000: not implemented (NaN)
    assert _max_rel(got, want, 1e-300) < 1e-14
    # nbdtri: k and n truncated toward 0, n < 1 is NaN
    k = np.array([-0.5, 1.7, 1.0, 1.0, 1.0, 1.0])
    n = np.array([2.0, 3.0, 0.5, 2.7, 3.0, 3.0])
    y = np.array([0.5, 0.5, 0.5, 0.5, 0.0, 1.0])
    got = af.special.nbdtri(af.asarray(k), af.asarray(n), af.asarray(y)).numpy()
    assert _max_rel(got, _scipy("nbdtri", k, n, y), 1e-300) < 1e-14


# --- gradients ------------------------------------------------------------------------------

def _inverse_density(name, a, b, out):
    """d out / dy from SciPy's densities: 1 / (dF/dx) at the solution."""
    if name == "betaincinv":
        return 1.0 / stats.beta.pdf(out, a, b)
    if name == "bdtri":  # bdtr decreases in p: -1 / beta(k+1, n-k) density
        return -1.0 / stats.beta.pdf(out, np.floor(a) + 1, np.trunc(b) - np.floor(a))
    if name == "nbdtri":
        return 1.0 / stats.beta.pdf(out, np.trunc(b), np.trunc(a) + 1)
    return 1.0 / stats.f.pdf(out, a, b)


GRAD_ARGS = {"betaincinv": (np.array([0.7, 3.0, 25.0, 0.2, 300.0]),
                            np.array([2.5, 0.9, 40.0, 0.3, 2.0])),
             "fdtri": (np.array([0.7, 3.0, 25.0, 4.0, 300.0]),
                       np.array([2.5, 0.9, 40.0, 12.0, 2.0])),
             "bdtri": (np.array([0.0, 3.0, 7.0, 1.0, 20.0]),
                       np.array([1.0, 10.0, 8.0, 30.0, 200.0])),
             "nbdtri": (np.array([0.0, 3.0, 7.0, 1.0, 20.0]),
                        np.array([1.0, 10.0, 8.0, 30.0, 200.0]))}
GRAD_Y = np.array([0.3, 1e-8, 0.95, 0.5, 0.999])


@pytest.mark.parametrize("name", NAMES)
def test_gradient_is_the_inverse_density(name):
    a, b = GRAD_ARGS[name]
    ty = af.asarray(GRAD_Y, requires_grad=True)
    out = getattr(af.special, name)(af.asarray(a), af.asarray(b), ty)
    out.sum().backward()
    o = out.detach().numpy()
    np.testing.assert_allclose(ty.grad.numpy(), _inverse_density(name, a, b, o), rtol=1e-11)
    # and central differences of SciPy's inverse (where SciPy is right: the bulk)
    h = 1e-6 * np.minimum(GRAD_Y, 1 - GRAD_Y)
    fd = (_scipy(name, a, b, GRAD_Y + h) - _scipy(name, a, b, GRAD_Y - h)) / (2 * h)
    np.testing.assert_allclose(ty.grad.numpy(), fd, rtol=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_second_derivative_against_finite_differences(name):
    a, b = GRAD_ARGS[name]
    ty = af.asarray(GRAD_Y, requires_grad=True)
    (g,) = af.autograd.grad(getattr(af.special, name)(af.asarray(a), af.asarray(b), ty).sum(),
                            [ty], create_graph=True)
    (gg,) = af.autograd.grad(g.sum(), [ty])
    h = 1e-5 * np.minimum(GRAD_Y, 1 - GRAD_Y)
    up = _inverse_density(name, a, b, _scipy(name, a, b, GRAD_Y + h))
    dn = _inverse_density(name, a, b, _scipy(name, a, b, GRAD_Y - h))
    np.testing.assert_allclose(gg.numpy(), (up - dn) / (2 * h), rtol=1e-5, atol=1e-9)


@pytest.mark.parametrize("name", NAMES)
def test_forward_mode_matches_reverse_mode(name):
    a, b = (af.asarray(v) for v in GRAD_ARGS[name])
    y = af.asarray(GRAD_Y)
    dy = af.asarray([1.0, -0.5, 2.0, 0.25, -3.0], dtype=af.float64)
    fn = getattr(af.special, name)
    _, t = af.func.jvp(lambda q: fn(a, b, q), (y,), (dy,))
    yr = af.asarray(GRAD_Y, requires_grad=True)
    fn(a, b, yr).sum().backward()
    np.testing.assert_allclose(t.numpy(), yr.grad.numpy() * dy.numpy(), rtol=1e-14)


@pytest.mark.parametrize(("name", "params"), [("betaincinv", ("a", "b")),
                                              ("fdtri", ("dfn", "dfd"))])
def test_shape_parameter_derivatives_raise_at_backward(name, params):
    fn = getattr(af.special, name)
    for i, pname in enumerate(params):
        args = [af.asarray([2.5]), af.asarray([3.5]), af.asarray([0.3])]
        args[i] = af.asarray([2.5 if i == 0 else 3.5], requires_grad=True)
        out = fn(*args)  # the forward records; only the backward needs the derivative
        msg = f"the derivative of arrayflow.special.{name} with respect to {pname} is not impl"
        with pytest.raises(NotImplementedError, match=msg):
            out.sum().backward()
        # (forward mode: the first shape parameter given a tangent, zero or not)
        msg = f"the derivative of arrayflow.special.{name} with respect to {params[0]} is not"
        tangents = [af.asarray([0.0])] * 3
        tangents[i] = af.asarray([1.0])
        with pytest.raises(NotImplementedError, match=msg):
            af.func.jvp(fn, (af.asarray([2.5]), af.asarray([3.5]), af.asarray([0.3])),
                        tuple(tangents))
    y = af.asarray([0.3], requires_grad=True)
    fn(af.asarray([2.5]), af.asarray([3.5]), y).sum().backward()  # no grad on shapes: fine
    assert y.grad is not None


@pytest.mark.parametrize("name", ["bdtri", "nbdtri"])
def test_integer_arguments_get_no_gradient(name):
    k, n = (af.asarray(v, requires_grad=True) for v in ([3.0, 1.0], [10.0, 4.0]))
    y = af.asarray([0.3, 0.8], requires_grad=True)
    getattr(af.special, name)(k, n, y).sum().backward()
    assert k.grad is None and n.grad is None and y.grad is not None


@pytest.mark.parametrize(("name", "k", "n", "y"), [
    ("bdtri", 1.0, 2000.0, 0.9), ("nbdtri", 2000.0, 2.0, 0.4), ("bdtri", 60.0, 300.0, 1e-20),
    ("nbdtri", 7.0, 40.0, 1 - 1e-10), ("bdtri", 0.0, 3000.0, 0.5)])
def test_binomial_inverses_against_mpmath(name, k, n, y):
    # SciPy (Cephes incbi) is off by 8e-13 and 2.4e-13 at the first two
    p = getattr(af.special, name)(*(af.asarray(np.array([v])) for v in (k, n, y))).numpy()[0]
    with mpmath.workdps(50):
        if name == "bdtri":  # bdtr(k, n, p) = I_{1-p}(n - k, k + 1) = 1 - I_p(k + 1, n - k)
            def f(q):
                return mpmath.betainc(k + 1, n - k, q, 1, regularized=True) - mpmath.mpf(y)
        else:
            def f(q):
                return mpmath.betainc(n, k + 1, 0, q, regularized=True) - mpmath.mpf(y)
        ref = mpmath.findroot(f, mpmath.mpf(p))
        assert float(abs((p - ref) / ref)) < 2e-15 * max(1.0, n - k)
