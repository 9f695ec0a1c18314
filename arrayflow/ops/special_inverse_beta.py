"""``arrayflow.special``: inverses of the regularized incomplete beta function and of the
distribution functions built on it (betaincinv, bdtri, fdtri, nbdtri).

Each op is one unit as in :mod:`arrayflow.ops.special` (decorator with the metadata, the
forward written from array API standard functions, its VJP and JVP), with SciPy's semantics.

All four solve ``I_x(a, b) = y`` with :func:`_ibetainv`: Newton's method in the logit
``t = log(x / (1 - x))`` on the log of the smaller tail probability (``log I`` where
``y <= 1/2``, ``log(1 - I)`` above). The density of ``t``, ``e**(a t) / (1 + e**t)**(a+b) / B``,
is log-concave, so both ``log I`` and ``log(1 - I)`` are concave in ``t``: after at most one
overshoot the Newton iterates approach the root monotonically, and on the power-law tails
(``I ~ e**(a t) / (a B)``) a step is nearly exact. The iterate is carried as the pair
``(x, 1 - x)``, each updated in relative terms, so that both ends keep full relative accuracy
(``1 - x`` is returned to the distribution functions that need it).
"""

from __future__ import annotations

import math

from .._typing import Array
from ._registry import op
from .special import _M, _doc, _erfcinv, _gammaln, _real
from .special_incomplete import (
    _BC,
    _IBETA_MAX,
    _bcast,
    _beta_density,
    _dbdtr_dp,
    _dfdtr_dx,
    _dnbdtr_dp,
    _ibeta,
    _int_part,
    _log_ibeta_fac,
    _rules,
)

__all__: list[str] = ["bdtri", "betaincinv", "fdtri", "nbdtri"]

_BETA_NEWTON = 8
_MIN_SHAPE = 1e-3


def _expit_pair(xp, t):
    """``(1 / (1 + e**-t), 1 / (1 + e**t))``: ``x`` and ``1 - x``, both relative-accurate."""
    return 1.0 / (1.0 + xp.exp(-t)), 1.0 / (1.0 + xp.exp(t))


def _ibetainv(xp, a, b, y, q):
    """``(x, 1 - x)`` with ``I_x(a, b) = y`` on broadcast arrays, ``q = 1 - y`` (exact from the
    caller), for ``0 < y < 1`` and finite ``a, b > 0`` (garbage elsewhere: the callers
    select). Newton's method in ``t = logit(x)`` on ``log I = log y`` (``y <= q``) or
    ``log(1 - I) = log q``, from DiDonato and Morris's / Cephes ``incbi``'s normal
    approximation (Abramowitz and Stegun 26.5.22) for ``a, b > 1`` and from the tail bounds
    otherwise, each step kept inside the bracket ``[t_lo, t_hi]`` with
    ``t_lo = (log y + log(a B)) / a`` (``I <= e**(a t) / (a B)``) and
    ``t_hi = -(log q + log(b B)) / b`` (``1 - I <= e**(-b t) / (b B)``), bisection where a
    step is NaN."""
    ok = (a > 0) & (b > 0) & (y > 0) & (q > 0) & (a <= _IBETA_MAX) & (b <= _IBETA_MAX)
    a, b = xp.where(ok, a, 1.0), xp.where(ok, b, 1.0)
    y, q = xp.where(ok, y, 0.5), xp.where(ok, q, 0.5)
    lower = y <= q
    ly, lq = xp.log(y), xp.log(q)
    lt = xp.where(lower, ly, lq)
    # log(a B(a, b)) and log(b B(a, b)) without cancellation for small a, b
    lgab = _gammaln(xp, a + b)
    lo = (ly + _gammaln(xp, a + 1.0) + _gammaln(xp, b) - lgab) / a
    hi = -(lq + _gammaln(xp, a) + _gammaln(xp, b + 1.0) - lgab) / b
    # the normal approximation (A&S 26.5.22), for a, b > 1
    big = (a > 1.0) & (b > 1.0)
    ab, bb = xp.where(big, a, 2.0), xp.where(big, b, 2.0)
    yp = math.sqrt(2.0) * _erfcinv(xp, 2.0 * xp.minimum(y, q))
    yp = xp.where(lower, yp, -yp)
    lgm = (yp * yp - 3.0) / 6.0
    ra, rb = 1.0 / (2.0 * ab - 1.0), 1.0 / (2.0 * bb - 1.0)
    h = 2.0 / (ra + rb)
    d = 2.0 * (yp * xp.sqrt(h + lgm) / h - (rb - ra) * (lgm + 5.0 / 6.0 - 2.0 / (3.0 * h)))
    tn = xp.log(ab) - xp.log(bb) - d
    # below tmin (x under the smallest normal number) the tail bound is the root to relative
    # accuracy O(x): used there, and the iterates stay above tmin
    tmin = math.log(float(xp.finfo(a.dtype).smallest_normal))
    tail, tail_c = lo, hi
    # (widened by more than their rounding errors, which the 1/a, 1/b amplify)
    lo, hi = lo - 1e-9 * (1.0 + xp.abs(lo)), hi + 1e-9 * (1.0 + xp.abs(hi))
    lo = xp.minimum(xp.maximum(lo, tmin), -tmin)
    hi = xp.minimum(xp.maximum(hi, tmin), -tmin)
    # otherwise the tail form x = (y a B)**(1/a) (or 1 - x = (q b B)**(1/b)) whose first
    # neglected term (I = x**a / (a B) (1 - a (b-1) x / (a+1) + ...)) is the smaller
    xl, xu = xp.exp(xp.minimum(lo, 0.0)), xp.exp(xp.minimum(-hi, 0.0))
    err_lo = xp.where(lo < 0.0, xl * a * xp.abs(b - 1.0) / (a + 1.0), xp.inf)
    err_hi = xp.where(hi > 0.0, xu * b * xp.abs(a - 1.0) / (b + 1.0), xp.inf)
    t_lo = lo - xp.log(-xp.expm1(xp.minimum(lo, -1e-300)))
    t_hi = hi + xp.log(-xp.expm1(-xp.maximum(hi, 1e-300)))
    ts = xp.where(err_lo <= err_hi, t_lo, t_hi)
    ts = xp.where(xp.minimum(err_lo, err_hi) < xp.inf, ts, xp.log(a) - xp.log(b))
    t = xp.where(big, tn, ts)
    t = xp.where(xp.isnan(t), 0.5 * (lo + hi), t)
    t = xp.minimum(xp.maximum(t, lo), hi)
    x, xc = _expit_pair(xp, t)
    for _ in range(_BETA_NEWTON):
        p, pc = _ibeta(xp, a, b, x, xc)
        lp = xp.where(lower, xp.log(p), xp.log(pc))
        # increasing in t: log I - log y (lower), log q - log(1 - I) (upper)
        g = xp.where(lower, lp - lt, lt - lp)
        lo = xp.where(g < 0, xp.maximum(lo, t), lo)
        hi = xp.where(g > 0, xp.minimum(hi, t), hi)
        slope = xp.exp(_log_ibeta_fac(xp, a, b, x, xc) + xp.log(a) - lp)
        tn = t - g / slope
        # on the far side of the other tail (the upper equation at x < 1/2, the lower one at
        # x > 1/2: gamma-like, log(1 - I) ~ -b x) the step is taken in x (or 1 - x)
        r = g * x * xc / slope
        xn, xcn = x - r, xc + r
        sx = ~lower & (x < 0.5) & (xn > 0)
        sxc = lower & (x >= 0.5) & (xcn > 0)
        tn = xp.where(sx, xp.log(xp.where(sx, xn, 0.5)) - xp.log1p(-xp.where(sx, xn, 0.5)), tn)
        tn = xp.where(sxc, xp.log1p(-xp.where(sxc, xcn, 0.5)) - xp.log(xp.where(sxc, xcn, 0.5)),
                      tn)
        tn = xp.minimum(xp.maximum(tn, lo), hi)
        tn = xp.where(g == 0, t, xp.where(xp.isnan(tn), 0.5 * (lo + hi), tn))
        dt = tn - t
        # a small step updates (x, 1 - x) in relative terms (t itself has only absolute
        # accuracy |t| eps); a large one restarts from t
        e = xp.exp(xp.where(xp.abs(dt) < 1.0, dt, 0.0))
        xs, xcs = x / (x + xc / e), xc / (x * e + xc)
        xl, xcl = _expit_pair(xp, tn)
        small = xp.abs(dt) < 1.0
        x, xc = xp.where(small, xs, xl), xp.where(small, xcs, xcl)
        t = tn
    med = (a == b) & (y == q)  # the symmetric median, exactly
    x, xc = xp.where(med, 0.5, x), xp.where(med, 0.5, xc)
    under, over = ~med & (tail < tmin + 1.0), ~med & (tail_c > -tmin - 1.0)
    x = xp.where(under, xp.exp(tail), xp.where(over, 1.0, x))
    xc = xp.where(under, 1.0, xp.where(over, xp.exp(-tail_c), xc))
    # below a, b = 1e-3 (betainc's documented range) the solution is not verified: NaN,
    # except where it under- or overflows (the tail form; its neglected terms carry a, b)
    unknown = ~med & ~under & ~over & (xp.minimum(a, b) < _MIN_SHAPE)
    return xp.where(unknown, xp.nan, x), xp.where(unknown, xp.nan, xc)


def _f64(xp, fn, *args):
    """``fn(xp, *args)`` in float64 for other dtypes, rounded back (float32's ``log Gamma`` of
    ``a + b`` in the hundreds has an absolute error of 1e-4 and more, which the ratio of the
    prefactor carries into ``I``, and the inverse amplifies by its condition number)."""
    dt = args[0].dtype
    if dt != xp.float64:
        return xp.astype(fn(xp, *(xp.astype(v, xp.float64) for v in args)), dt)
    return fn(xp, *args)


# --- betaincinv ---------------------------------------------------------------------------

def _betaincinv(xp, a, b, y):
    bad = (xp.isnan(a) | xp.isnan(b) | xp.isnan(y) | (a <= 0) | (b <= 0) | (y < 0) | (y > 1))
    inner = (y > 0) & (y < 1)
    fin = xp.isfinite(a) & xp.isfinite(b)
    solve = ~bad & inner & fin
    x = _ibetainv(xp, xp.where(solve, a, 1.0), xp.where(solve, b, 1.0), xp.where(solve, y, 0.5),
               xp.where(solve, 1.0 - y, 0.5))[0]
    # a or b infinite: the limits of the quantile (all mass at 1, or at 0)
    x = xp.where(a == xp.inf, 1.0, xp.where(b == xp.inf, 0.0, x))
    x = xp.where(y == 0, 0.0, xp.where(y == 1, 1.0, x))
    bad = bad | (inner & (a == xp.inf) & (b == xp.inf))
    bad = bad | (solve & (xp.maximum(a, b) > _IBETA_MAX))
    return xp.where(bad, xp.nan, x)


def _dbetaincinv_dy(xp, a, b, y, out):
    return 1.0 / _beta_density(xp, a, b, out, 1.0 - out)


# the forwards save (args..., out): the rules read the solution instead of solving again
_betaincinv_vjp, _betaincinv_jvp = _rules("betaincinv", ("a", "b", "y"),
                                          ("raise", "raise", _dbetaincinv_dy), reads_out=True)


_SOLVER_NOTES = (
    "Newton's method in the logit ``t = log(x / (1 - x))`` on the log of the smaller\n"
    "tail probability (``log I = log y`` for ``y <= 1/2``, ``log(1 - I) = log(1 - y)``\n"
    "above), 8 steps: ``t`` has a log-concave density, so both are concave in ``t`` and\n"
    "the iterates approach the root monotonically after at most one overshoot; on the\n"
    "power-law tails (``I ~ x**a / (a B(a, b))``) a step is nearly exact, and on the far\n"
    "side of the other tail (gamma-like, ``log(1 - I) ~ -b x``) the step is taken in ``x``.\n"
    "Started from the normal approximation of Abramowitz and Stegun 26.5.22 (Cephes\n"
    "``incbi``) for ``a, b > 1`` and from the tail forms ``x = (y a B)**(1/a)``,\n"
    "``1 - x = ((1 - y) b B)**(1/b)`` otherwise (the one whose first neglected term is the\n"
    "smaller); each step kept inside the bracket\n"
    "``[(log y + log(a B)) / a, -(log(1 - y) + log(b B)) / b]`` in ``t`` (from\n"
    "``I <= e**(a t) / (a B)``, ``1 - I <= e**(-b t) / (b B)``), bisection where a step\n"
    "is NaN. The iterate is carried as the pair ``(x, 1 - x)``, each updated in relative\n"
    "terms; below the smallest normal number the tail form is the root (to relative\n"
    "``O(x)``). float32 is computed in float64 and rounded. Not implemented (NaN, never an\n"
    "unverified value) for ``a`` or ``b`` above 3000 (finite), where :func:`betainc` is\n"
    "NaN, and below 1e-3 (its documented range) unless the quantile under- or overflows\n"
    "(0 or 1 from the tail form, e.g. ``betaincinv(1e-300, 2.5, 0.3) = 0``; SciPy has\n"
    "values there, e.g. ``betaincinv(1, 1e-300, 1e-300) = 0.632``).")
_INV_ACCURACY = (
    "Measured (``tests/test_special_inverse_beta.py``) for ``a, b`` in ``[0.01, 1000]``,\n"
    "``y`` in ``[1e-100, 1 - 1e-15]``: the relative error of ``x``, from the residual of\n"
    "SciPy's ``betainc``, below ``3.1e-13 max(1, c)`` plus ``x``'s rounding, ``c`` the\n"
    "condition number ``min(y, 1 - y) / (x density(x))`` (up to ``1/a``, ``1/b`` in the\n"
    "tails: the rounding of ``y`` alone costs ``c`` ulps; the worst where ``1 - I`` is\n"
    "formed as ``1 - w`` with ``w`` close to 1, small ``a``); against SciPy where it is\n"
    "right the same bound (median 1.5e-15); for ``a`` or ``b`` in ``[1e-3, 1e-2]``\n"
    "3e-13. A subnormal ``y`` loses accuracy (its ``betainc`` has no\n"
    "relative precision: ``betaincinv(2, 3, 5e-324)`` within 4e-7).")
_ABY = ("a, b : Tensor or Python scalar\n    Shape parameters, ``a, b > 0`` (NaN otherwise).\n"
        "y : Tensor or Python scalar\n    Probability in ``[0, 1]`` (NaN outside); at least one "
        "argument a Tensor,\n    broadcast together; mixed kinds promote by PyTorch's "
        "element-wise rule.")


@op("special.betaincinv", module=_M, section="torch", dtypes="real floating", floating=True,
    promote=("a", "b", "y"), torch_name=None, vjp=_betaincinv_vjp, jvp=_betaincinv_jvp,
    doc=_doc(
        "Inverse of :func:`betainc` in ``x``: ``betainc(a, b, betaincinv(a, b, y)) = y``.",
        "The ``y``-quantile of the beta distribution; 0 at ``y = 0`` and 1 at ``y = 1``; 1 for\n"
        "``a = inf`` and 0 for ``b = inf`` inside (the limits; SciPy 1.17 gives those only\n"
        "for ``b = 1``, resp. ``a = 1``, NaN otherwise); NaN for ``a <= 0``, ``b <= 0``, ``y``\n"
        "outside ``[0, 1]``, a NaN argument, or ``a = b = inf`` inside. SciPy 1.17 (Boost's\n"
        "``ibeta_inv``) is wrong where the quantile is below ``2**-56``: it returns ``2**-56``\n"
        "(e.g. ``betaincinv(4.2, 0.1, 3.35e-72)`` is 2.6135e-17, not 1.3878e-17), NaN at\n"
        "``y = 5e-324`` (``betaincinv(2, 3, 5e-324)`` is 9.0744e-163), and loses digits at\n"
        "``y = 1/2`` for ``a = b`` (``betaincinv(0.13, 0.13, 0.5)`` is 0.5, SciPy\n"
        "0.49999998600); the values here are the right ones (checked with mpmath).", _ABY, _BC,
        _SOLVER_NOTES + "\n\n" + _INV_ACCURACY + "\n\n"
        "Derivative in ``y``: ``1 / density(betaincinv(a, b, y))`` (the beta density); the\n"
        "derivatives in ``a`` and ``b`` are not implemented (``NotImplementedError`` at\n"
        "backward). PyTorch has no ``betaincinv``.",
        "SciPy ``scipy.special.betaincinv``."))
def betaincinv(xp, a: Array | float, b: Array | float, y: Array | float, /):
    _real(xp, "betaincinv", a, b, y)
    ab, bb, yb = _bcast(xp, a, b, y)
    out = _f64(xp, _betaincinv, ab, bb, yb)
    return out, (a, b, y, out)


# --- bdtri --------------------------------------------------------------------------------

def _bdtri(xp, k, n, y):
    # bdtr(k, n, p) = I_{1-p}(n - k, k + 1): 1 - p is the solution, p its complement
    fk, nn, bad = _bdtr_parts_y(xp, k, n, y)
    bad = bad | (fk < 0) | (fk >= nn)
    inner = ~bad & (y > 0) & (y < 1)
    a = xp.where(inner, nn - fk, 1.0)
    b = xp.where(inner, fk + 1.0, 1.0)
    p = _ibetainv(xp, a, b, xp.where(inner, y, 0.5), xp.where(inner, 1.0 - y, 0.5))[1]
    p = xp.where(y == 0, 1.0, xp.where(y == 1, 0.0, p))
    bad = bad | (inner & (xp.maximum(a, b) > _IBETA_MAX))
    return xp.where(bad, xp.nan, p)


def _bdtr_parts_y(xp, k, n, y):
    fk, nn = xp.floor(xp.where(xp.isfinite(k), k, 0.0)), _int_part(xp, n)
    bad = xp.isnan(y) | (y < 0) | (y > 1) | ~xp.isfinite(k) | ~xp.isfinite(n)
    return fk, nn, bad


_dbdtr = _dbdtr_dp(-1.0)


def _dbdtri_dy(xp, k, n, y, out):
    return 1.0 / _dbdtr(xp, k, n, out)


_bdtri_vjp, _bdtri_jvp = _rules("bdtri", ("k", "n", "y"), (None, None, _dbdtri_dy),
                                reads_out=True)


_KNY = ("k : Tensor or Python scalar\n    Number of successes; its integer part is used "
        "(``floor(k)``, SciPy's).\n"
        "n : Tensor or Python scalar\n    Number of trials, an integer (a float is truncated "
        "toward 0, as SciPy).\n"
        "y : Tensor or Python scalar\n    Probability in ``[0, 1]`` (NaN outside); at least "
        "one argument a\n    Tensor, broadcast together.")


@op("special.bdtri", module=_M, section="torch", dtypes="real floating", floating=True,
    promote=("k", "n", "y"), torch_name=None, vjp=_bdtri_vjp, jvp=_bdtri_jvp, doc=_doc(
        "Inverse of :func:`bdtr` in ``p``: ``bdtr(k, n, bdtri(k, n, y)) = y``.",
        "The success probability ``p`` for which the binomial distribution function at ``k``\n"
        "is ``y``: ``1 - betaincinv(n - k, k + 1, y)`` (computed as the complement of the\n"
        "solution, with its relative accuracy); 1 at ``y = 0`` and 0 at ``y = 1``; NaN for\n"
        "``k < 0``, ``k >= n``, ``y`` outside ``[0, 1]`` or a NaN or infinite argument (SciPy's\n"
        "values). SciPy 1.17 (Cephes ``incbi``) gives up in far tails of large ``n``\n"
        "(``bdtri(9, 2110, 1.9e-17)`` is 0.02955, SciPy ``1 - 2**-53``) and is off by up to\n"
        "8e-13 elsewhere (``bdtri(1, 2000, 0.9)``); the values here are the right ones\n"
        "(checked with mpmath).", _KNY, _BC,
        "Solved by :func:`betaincinv`'s method on ``I_{1-p}(n - k, k + 1) = y`` (its\n"
        "accuracy, for ``p``); NaN for ``n - k`` above 3000 (not implemented). Derivative in\n"
        "``y``: ``1 / (d bdtr / dp)``, minus the reciprocal of the beta density of\n"
        "``(k + 1, n - k)`` at ``p``; ``k`` and ``n`` are integer-valued and get no gradient.\n"
        "PyTorch has no ``bdtri``.",
        "SciPy ``scipy.special.bdtri``."))
def bdtri(xp, k: Array | float, n: Array | float, y: Array | float, /):
    _real(xp, "bdtri", k, n, y)
    kb, nb, yb = _bcast(xp, k, n, y)
    out = _f64(xp, _bdtri, kb, nb, yb)
    return out, (k, n, y, out)


# --- nbdtri -------------------------------------------------------------------------------

def _nbdtri(xp, k, n, y):
    # nbdtr(k, n, p) = I_p(n, k + 1)
    kk, nn = _int_part(xp, k), _int_part(xp, n)
    bad = xp.isnan(y) | (y < 0) | (y > 1) | ~xp.isfinite(k) | (kk < 0) | xp.isnan(n)
    # (SciPy's: 0 at y = 0 and 1 at y = 1 even for n < 1 or infinite)
    bad = bad | ((y > 0) & (y < 1) & (~xp.isfinite(n) | (nn < 1)))
    inner = ~bad & (y > 0) & (y < 1)
    a = xp.where(inner, nn, 1.0)
    b = xp.where(inner, kk + 1.0, 1.0)
    p = _ibetainv(xp, a, b, xp.where(inner, y, 0.5), xp.where(inner, 1.0 - y, 0.5))[0]
    p = xp.where(y == 0, 0.0, xp.where(y == 1, 1.0, p))
    bad = bad | (inner & (xp.maximum(a, b) > _IBETA_MAX))
    return xp.where(bad, xp.nan, p)


_dnbdtr = _dnbdtr_dp(1.0)


def _dnbdtri_dy(xp, k, n, y, out):
    return 1.0 / _dnbdtr(xp, k, n, out)


_nbdtri_vjp, _nbdtri_jvp = _rules("nbdtri", ("k", "n", "y"), (None, None, _dnbdtri_dy),
                                  reads_out=True)


_KNY_NB = _KNY.replace("Number of successes; its integer part is used (``floor(k)``, "
                       "SciPy's).", "Number of failures, an integer (truncated toward 0).")
_KNY_NB = _KNY_NB.replace("Number of trials", "Number of successes")


@op("special.nbdtri", module=_M, section="torch", dtypes="real floating", floating=True,
    promote=("k", "n", "y"), torch_name=None, vjp=_nbdtri_vjp, jvp=_nbdtri_jvp, doc=_doc(
        "Inverse of :func:`nbdtr` in ``p``: ``nbdtr(k, n, nbdtri(k, n, y)) = y``.",
        "The success probability ``p`` for which the negative binomial distribution\n"
        "function (at most ``k`` failures before the ``n``-th success) is ``y``:\n"
        "``betaincinv(n, k + 1, y)``; 0 at ``y = 0`` and 1 at ``y = 1``; NaN for ``k < 0``,\n"
        "``n < 1``, ``y`` outside ``[0, 1]`` or a NaN or infinite argument (SciPy's values;\n"
        "as SciPy, 0 and 1 at ``y = 0`` and ``1`` for any non-NaN ``n``). SciPy 1.17 (Cephes\n"
        "``incbi``) gives up in far tails of large ``k`` (``nbdtri(2, 1462, 2.9e-20)`` is\n"
        "0.9649, SciPy ``2**-53``) and is off by up to 3e-13 elsewhere\n"
        "(``nbdtri(2000, 2, 0.4)``); the values here are the right ones (checked with\n"
        "mpmath).", _KNY_NB, _BC,
        "Solved by :func:`betaincinv`'s method on ``I_p(n, k + 1) = y`` (its accuracy); NaN\n"
        "for ``n`` or ``k + 1`` above 3000 (not implemented). Derivative in ``y``:\n"
        "``1 / (d nbdtr / dp)``, the reciprocal of the beta density of ``(n, k + 1)`` at\n"
        "``p``; ``k`` and ``n`` get no gradient. PyTorch has no ``nbdtri``.",
        "SciPy ``scipy.special.nbdtri``."))
def nbdtri(xp, k: Array | float, n: Array | float, y: Array | float, /):
    _real(xp, "nbdtri", k, n, y)
    kb, nb, yb = _bcast(xp, k, n, y)
    out = _f64(xp, _nbdtri, kb, nb, yb)
    return out, (k, n, y, out)


# --- fdtri --------------------------------------------------------------------------------

def _fdtri(xp, dfn, dfd, p):
    # fdtr(dfn, dfd, x) = I_w(dfn/2, dfd/2), w = dfn x / (dfd + dfn x): x = dfd w / (dfn (1-w))
    bad = ((dfn <= 0) | (dfd <= 0) | ~xp.isfinite(dfn) | ~xp.isfinite(dfd) | xp.isnan(p)
           | (p < 0) | (p > 1))
    inner = ~bad & (p > 0) & (p < 1)
    n, d = xp.where(inner, dfn, 1.0), xp.where(inner, dfd, 1.0)
    w, wc = _ibetainv(xp, 0.5 * n, 0.5 * d, xp.where(inner, p, 0.5), xp.where(inner, 1.0 - p, 0.5))
    x = (d / n) * (w / wc)
    x = xp.where(p == 0, 0.0, xp.where(p == 1, xp.inf, x))
    bad = bad | (inner & (0.5 * xp.maximum(n, d) > _IBETA_MAX))
    return xp.where(bad, xp.nan, x)


_dfdtr = _dfdtr_dx(1.0)


def _dfdtri_dp(xp, dfn, dfd, p, out):
    return 1.0 / _dfdtr(xp, dfn, dfd, out)


_fdtri_vjp, _fdtri_jvp = _rules("fdtri", ("dfn", "dfd", "p"),
                                ("raise", "raise", _dfdtri_dp), reads_out=True)


_FP = ("dfn, dfd : Tensor or Python scalar\n    Degrees of freedom of the numerator and the "
       "denominator, positive and\n    finite (NaN otherwise).\n"
       "p : Tensor or Python scalar\n    Probability in ``[0, 1]`` (NaN outside); at least one "
       "argument a Tensor,\n    broadcast together.")


@op("special.fdtri", module=_M, section="torch", dtypes="real floating", floating=True,
    promote=("dfn", "dfd", "p"), torch_name=None, vjp=_fdtri_vjp, jvp=_fdtri_jvp, doc=_doc(
        "Inverse of :func:`fdtr` in ``x``: the ``p``-quantile of the F distribution.",
        "``fdtr(dfn, dfd, fdtri(dfn, dfd, p)) = p``: ``x = dfd w / (dfn (1 - w))`` with\n"
        "``w = betaincinv(dfn/2, dfd/2, p)`` (``w`` and ``1 - w`` both from the solver, in\n"
        "relative terms); 0 at ``p = 0`` and ``inf`` at ``p = 1``; NaN for degrees of freedom\n"
        "not positive and finite, ``p`` outside ``[0, 1]`` or NaN (SciPy's values). SciPy 1.17\n"
        "inherits Boost's floors of the beta quantile (``2**-56``, ``2.2e-308``): it returns\n"
        "2.2e-305 for ``fdtri(0.001, 1, 0.5)`` (the quantile, about 1e-598, underflows: 0\n"
        "here), is off by 45 % at ``fdtri(2.93, 0.087, 1.5e-26)`` and finite (4.5e7) where\n"
        "the quantile overflows (``fdtri(1, 1e-300, 0.3)``: ``inf`` here); the values here\n"
        "are the right ones (checked with mpmath).", _FP, _BC,
        "Solved by :func:`betaincinv`'s method (its accuracy, for ``w`` and ``1 - w``, so\n"
        "``x`` to about twice that); NaN for ``dfn`` or ``dfd`` above 6000 (not\n"
        "implemented). Derivative in ``p``: ``1 / density(fdtri(dfn, dfd, p))``, the F\n"
        "density; the derivatives in the degrees of freedom are not implemented\n"
        "(``NotImplementedError`` at backward). PyTorch has no ``fdtri``.",
        "SciPy ``scipy.special.fdtri``."))
def fdtri(xp, dfn: Array | float, dfd: Array | float, p: Array | float, /):
    _real(xp, "fdtri", dfn, dfd, p)
    nb, db, pb = _bcast(xp, dfn, dfd, p)
    out = _f64(xp, _fdtri, nb, db, pb)
    return out, (dfn, dfd, p, out)
