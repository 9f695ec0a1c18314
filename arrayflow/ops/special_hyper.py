"""``arrayflow.special``: the confluent hypergeometric function ``hyp1f1`` and the associated
Legendre function ``lpmv``.

Each op is one unit as in :mod:`arrayflow.ops.special` (decorator with the metadata, the
forward written from array API standard functions, its VJP and JVP), with SciPy's semantics.

``hyp1f1`` is computed where it can be checked: every element carries an estimate of its
own error (rounding and cancellation in the series, truncation, the dropped exponentially
small part of the asymptotic expansion) and is NaN where that estimate exceeds about
``4000`` ulps (9e-13 in float64), never a number of unknown accuracy. ``lpmv`` follows
SciPy's ``specfun`` ``LPMV`` (Zhang and Jin), with fixed caps on the order and the degree.
"""

from __future__ import annotations

import math

from .._typing import Array
from ._registry import op
from .special import _M, _digamma, _doc, _gammaln, _real
from .special_gamma import _cospi, _gammasgn, _sinpi
from .special_incomplete import _bcast, _rules

__all__: list[str] = ["hyp1f1", "lpmv"]


# --- hyp1f1 ----------------------------------------------------------------------------------

_H_SERIES_TERMS = 150  # power series terms (|x| up to ~60 for moderate a, b)
_H_ASYM_TERMS = 40  # terms of the large-|x| expansion (summed while they decrease)
_H_TOL_ULPS = 4000.0  # accepted error estimate, in units of the dtype's epsilon
_H_ASYM_MIN = 10.0  # the asymptotic expansion is tried from |x| = 10 on


def _is_int(xp, v):
    return v == xp.floor(v)


def _h_series(xp, c, b, z):
    """``sum_k (c)_k / (b)_k z**k / k!`` with ``_H_SERIES_TERMS`` terms; returns the sum,
    ``sum_k (k + 1) |t_k|`` (the rounding bound: each term carries ~k roundings) and a bound
    of the truncated tail (inf where the terms do not yet decrease geometrically)."""
    t = xp.ones_like(z)
    s = xp.ones_like(z)
    w = xp.ones_like(z)
    for k in range(_H_SERIES_TERMS):
        den = b + k
        t = t * ((c + k) / xp.where(den == 0, 1.0, den)) * (z / (k + 1))
        s = s + t
        w = w + (k + 2) * xp.abs(t)
    n = float(_H_SERIES_TERMS)
    den = b + n
    r = xp.abs((c + n) / xp.where(den == 0, 1.0, den) * (z / (n + 1)))
    rs = xp.where(r < 0.5, r, 0.0)
    tail = xp.where(r < 0.5, xp.abs(t) * rs / (1.0 - rs), xp.inf)
    return s, w, xp.where(t == 0, 0.0, tail)


def _h_asym(xp, c, b, y, grow):
    """DLMF 13.7.2's dominant part for ``y > 0``: ``Gamma(b)/Gamma(c) e**y y**(c-b)
    sum_s (1-c)_s (b-c)_s / (s! y**s)`` (``e**y`` left out where ``grow`` is False), summed
    while its terms decrease; returns it and its estimated relative error (first omitted
    term, the recessive part ``Gamma(c)/Gamma(b-c) e**-y y**(b-2c)`` with a margin of 100,
    the rounding of the exponent and of the sum)."""
    u = xp.ones_like(y)
    s = xp.ones_like(y)
    w = xp.ones_like(y)
    active = u == 1.0
    last = xp.zeros_like(y)
    for k in range(_H_ASYM_TERMS):
        un = u * ((1.0 - c + k) * (b - c + k) / ((k + 1) * y))
        stop = active & (xp.abs(un) >= xp.abs(u)) & (un != 0)
        last = xp.where(stop, xp.abs(un), last)
        active = active & ~stop
        s = s + xp.where(active, un, 0.0)
        w = w + xp.where(active, (k + 2) * xp.abs(un), 0.0)
        u = xp.where(active, un, u)
    n = float(_H_ASYM_TERMS)
    un = u * ((1.0 - c + n) * (b - c + n) / ((n + 1) * y))
    last = xp.where(active, xp.abs(un), last)
    lgb, lgc, ly = _gammaln(xp, b), _gammaln(xp, c), xp.log(y)
    expo = lgb - lgc + (c - b) * ly + xp.where(grow, y, 0.0)
    val = (_gammasgn(xp, b) * _gammasgn(xp, c)) * xp.exp(expo) * s
    recessive = lgc - _gammaln(xp, b - c) - y + (b - 2.0 * c) * ly
    fi = xp.finfo(y.dtype)
    err = (last + fi.eps * w) / xp.abs(s) + 100.0 * xp.exp(xp.minimum(recessive, 50.0))
    # the exponent's rounding, unless the value overflows anyway (then +-inf, as SciPy)
    over = expo + xp.log(xp.abs(s)) > math.log(float(fi.max)) + 1.0
    err = err + xp.where(over, 0.0, fi.eps * (xp.abs(lgb) + xp.abs(lgc) + xp.where(grow, y, 0.0)
                                              + xp.abs((c - b) * ly) + 2.0))
    return val, err


def _hyp1f1_core(xp, a, b, x):
    """1F1 for finite ``a, b, x`` (``b`` not a non-positive integer unless the series
    terminates first); NaN where the error estimate exceeds ``_H_TOL_ULPS``."""
    eps = xp.finfo(x.dtype).eps
    bpoly = (b <= 0) & _is_int(xp, b)  # a terminating series (a <= b <= 0 integers): direct
    kummer = (x < 0) & ~bpoly  # 1F1(a, b, x) = e**x 1F1(b - a, b, -x): a positive argument
    c = xp.where(kummer, b - a, a)
    z = xp.where(kummer, -x, x)
    s, w, tail = _h_series(xp, c, b, z)
    ser = xp.exp(xp.where(kummer, x, 0.0)) * s
    err_s = (eps * w + tail) / xp.abs(s)
    y = xp.maximum(xp.abs(z), _H_ASYM_MIN)
    cb = xp.where(bpoly, 1.0, b)
    asy, err_a = _h_asym(xp, c, cb, y, ~kummer)
    err_a = xp.where((xp.abs(z) >= _H_ASYM_MIN) & ~bpoly, err_a, xp.inf)
    use_s = err_s <= err_a  # (a NaN estimate, from an overflowing series, loses)
    out = xp.where(use_s, ser, asy)
    err = xp.where(use_s, err_s, err_a)
    return xp.where(err <= _H_TOL_ULPS * eps, out, xp.nan)


def _hyp1f1(xp, a, b, x):
    """1F1 with SciPy's values at the edges (``scipy/special/boost_special_functions.h``
    ``hyp1f1_wrap``, then Boost)."""
    one = xp.ones_like(x)
    nan = xp.isnan(a) | xp.isnan(b) | xp.isnan(x)
    fin = xp.isfinite(a) & xp.isfinite(b) & xp.isfinite(x)
    aint = _is_int(xp, xp.where(xp.isfinite(a), a, 0.5))  # False at +-inf
    bnpi = (b <= 0) & _is_int(xp, xp.where(xp.isfinite(b), b, 0.0))  # -inf included
    # b a non-positive integer: inf unless a terminating sum comes first (a == b, or an
    # integer a with b <= a < 0); b = -inf: inf unless a is a negative integer (then 1)
    apoly = (a < 0) & aint & (a >= b)
    pole = bnpi & ~(((b != 0) & (a == b)) | apoly)
    ok = fin & ~pole
    aa, bb = xp.where(ok, a, one), xp.where(ok, b, one)
    xx = xp.where(ok, x, 0.0 * one)
    out = _hyp1f1_core(xp, aa, bb, xx)
    out = xp.where((aa == bb) & ~bnpi, xp.exp(xx), out)
    out = xp.where(aa == -1.0, (bb - xx) / bb, out)  # 1 - x/b: exactly 0 at x = b
    out = xp.where(ok, out, xp.nan * one)
    # non-finite arguments (the ones SciPy returns consistently)
    out = xp.where((b == xp.inf) & (xp.isfinite(x) & (a != xp.inf) | (
        (x == xp.inf) & xp.isfinite(a) & ~(aint & (a < 0)))), one, out)
    out = xp.where((b == -xp.inf) & (a < 0) & aint & xp.isfinite(x), one, out)
    out = xp.where((a == xp.inf) & (x == xp.inf) & (b > 0) & xp.isfinite(b), xp.inf * one, out)
    out = xp.where(pole, xp.inf * one, out)
    out = xp.where(((a == 0) | (x == 0)) & ~pole & ~((a == -xp.inf) & (b == -xp.inf)), one,
                   out)
    return xp.where(nan, xp.nan * one, out)


def _dhyp1f1_dx(xp, a, b, x):
    """DLMF 13.3.15: ``d/dx 1F1(a; b; x) = a/b 1F1(a + 1; b + 1; x)``."""
    d = (a / b) * _hyp1f1(xp, a + 1.0, b + 1.0, x)
    return xp.where(a == 0, xp.zeros_like(d), d)


_hyp1f1_vjp, _hyp1f1_jvp = _rules("hyp1f1", ("a", "b", "x"), ("raise", "raise", _dhyp1f1_dx))

_ABX_H = ("a, b : Tensor or Python scalar\n    The parameters of ``1F1(a; b; x)``, real.\n"
          "x : Tensor or Python scalar\n    The argument; at least one of ``a``, ``b``, ``x`` a "
          "Tensor, broadcast\n    together; mixed kinds promote by PyTorch's element-wise rule.")
_BC = "Tensor\n    The broadcast shape of the arguments, in their promoted floating dtype."


@op("special.hyp1f1", module=_M, section="torch", dtypes="real floating", floating=True,
    promote=("a", "b", "x"), torch_name=None, vjp=_hyp1f1_vjp, jvp=_hyp1f1_jvp, doc=_doc(
        "Kummer's confluent hypergeometric function ``1F1(a; b; x)``.",
        "``1F1(a; b; x) = sum_k (a)_k / (b)_k x**k / k!``. SciPy's values at the edges: 1 at\n"
        "``a = 0`` or ``x = 0``, ``exp(x)`` at ``a = b``; ``inf`` where ``b`` is a "
        "non-positive\ninteger, unless ``a`` is an integer with ``b <= a <= 0`` (a "
        "terminating sum); 1 for\n``b = inf``; NaN for any other infinite argument and for "
        "NaN.", _ABX_H, _BC,
        "Three evaluations, each with an error estimate per element: the power series\n"
        "(150 terms; for ``x < 0`` on Kummer's transformation ``e**x 1F1(b - a; b; -x)``, so\n"
        "that its argument is positive), with its rounding bound ``eps sum (k + 1) |t_k|`` and\n"
        "its tail; and from ``|x| = 10`` on the asymptotic expansion DLMF 13.7.2 (summed\n"
        "while its terms decrease, with :func:`gammaln`), with its first omitted term and the\n"
        "size of the exponentially small part it leaves out. The smaller estimate wins, and\n"
        "an element whose estimate exceeds 4000 ulps (9e-13 in float64) is NaN: not\n"
        "implemented there, rather than a number of unknown accuracy (SciPy's Boost covers\n"
        "more: large ``|a|`` or ``|b|`` with moderate ``x``, the neighbourhood of the zeros\n"
        "for ``a < 0``). Measured relative error against mpmath wherever finite: below\n"
        "1e-12 in float64 on random ``a, b`` in ``+-[1e-3, 200]``, ``x`` in ``+-[1e-3, 700]``\n"
        "(log-uniform; about 90 % finite), below 3e-13 for ``|a|, |b| <= 5`` with ``|x| <=\n"
        "700`` (over 98 % finite; ``tests/test_special_hyper.py``). Infinite ``x`` gives NaN\n"
        "(SciPy's Boost gives ``inf``, 0 or NaN there, and does not return for some\n"
        "``a, b``). Derivative in ``x``: ``a/b 1F1(a + 1; b + 1; x)`` (DLMF 13.3.15); the\n"
        "derivatives in ``a`` and ``b`` are not implemented (``NotImplementedError`` at\n"
        "backward). PyTorch has no ``hyp1f1``.",
        "SciPy ``scipy.special.hyp1f1``."))
def hyp1f1(xp, a: Array | float, b: Array | float, x: Array | float, /):
    _real(xp, "hyp1f1", a, b, x)
    ab, bb, xb = _bcast(xp, a, b, x)
    return _hyp1f1(xp, ab, bb, xb), (a, b, x)


# --- lpmv ------------------------------------------------------------------------------------

_L_MAX_M = 40  # |m| cap (NaN beyond)
_L_MAX_M_FRAC = 5  # |m| cap for a non-integer degree (beyond, the series and the recurrence
# lose digits: 1e-9 at |m| = 10, in SciPy's specfun as here)
_L_MAX_V_FRAC = 20.0  # and for x < -0.35, where the upward recurrence from the logarithmic
# branch loses digits beyond (1e-5 at v = 88, x = -0.999)
_L_MAX_STEPS = 200  # degree recurrence steps cap: NaN where floor(|v|) - |m| - 1 exceeds it
_L_TERMS = 100  # series terms (specfun's maximum)
_EULER = 0.5772156649015329


def _odd_sign(xp, n):
    """-1 where the integer-valued ``n`` is odd, 1 where even."""
    return 1.0 - 2.0 * (n - 2.0 * xp.floor(0.5 * n))


def _legf(v2, i):
    """``(i**2 + v**2) / (i (i**2 - v**2))`` (specfun's sums of the logarithmic branch)."""
    return (i * i + v2) / (i * (i * i - v2))


def _lpmv0(xp, v, m, x):
    """specfun ``LPMV0``: ``P_v^m(x)`` for ``v >= 0``, integer ``m`` in ``[0, _L_MAX_M]``,
    ``-1 <= x <= 1`` (``x = -1`` only for integer ``v``): for integer ``v`` the terminating
    sum in ``1 + x`` (DLMF 14.3.4, 15.2.4; at most 2 terms where it is used), else the
    series in ``(1 - x)/2`` (DLMF 15.2.1) for ``x >= -0.35`` and the logarithmic expansion
    around ``x = -1`` (DLMF 14.3.5, 15.8.10) below."""
    nv = xp.floor(v)
    vint = v == nv
    one = xp.ones_like(x)
    xq = xp.sqrt(xp.maximum(1.0 - x * x, 0.0))
    # c0 = Gamma(v + m + 1) / Gamma(v - m + 1) (xq / 2)**m / m!
    rg = xp.where(m != 0, v * (v + m), one)
    r0 = one
    for j in range(1, _L_MAX_M + 1):
        rg = rg * xp.where(j < m, v * v - float(j * j), one)
        r0 = r0 * xp.where(j <= m, (0.5 / j) * xq, one)
    c0 = r0 * rg
    # integer v
    r = one
    pint = one
    for k in (1, 2):
        r = r * xp.where(k <= nv - m,
                         0.5 * (-nv + m + (k - 1.0)) * (nv + m + k) / (k * (k + m)) * (1.0 + x),
                         0.0 * one)
        pint = pint + r
    pint = c0 * pint * _odd_sign(xp, nv)
    # non-integer v, x >= -0.35: the series in (1 - x) / 2
    xb = xp.where(x >= -0.35, x, 0.0 * one)
    vb = xp.where(vint, 0.5 * one, v)
    r = one
    pser = one
    for k in range(1, _L_TERMS + 1):
        r = r * (0.5 * (-vb + m + (k - 1.0)) * (vb + m + k) / (k * (k + m)) * (1.0 - xb))
        pser = pser + r
    pser = c0 * pser * _odd_sign(xp, m)
    # non-integer v, x < -0.35: the logarithmic expansion around x = -1
    xc = xp.where((x < -0.35) & (x > -1.0), x, -0.5 * one)
    v2 = vb * vb
    vs = _sinpi(xp, vb) / math.pi
    qr = xp.sqrt((1.0 - xc) / (1.0 + xc))
    r2 = one
    s1 = 0.0 * one
    for j in range(1, _L_MAX_M + 1):
        r2 = r2 * xp.where(j <= m, qr * j, one)
        s1 = s1 + xp.where(j <= m, _legf(v2, float(j)), 0.0 * one)
    s0 = one
    r1 = one
    for k in range(1, _L_MAX_M):
        live = k < m
        r1 = r1 * xp.where(live, 0.5 * (-vb + (k - 1.0)) * (vb + k)
                           / (k * xp.where(live, k - m, one)) * (1.0 + xc), one)
        s0 = s0 + xp.where(live, r1, 0.0 * one)
    pv0 = xp.where(m != 0, -vs * r2 / xp.where(m != 0, m, one) * s0, 0.0 * one)
    pa = (2.0 * (_digamma(xp, vb) + _EULER) + math.pi * _cospi(xp, vb) / _sinpi(xp, vb)
          + 1.0 / vb)
    lg = xp.log(0.5 * (1.0 + xc))
    plog = pa + s1 - 1.0 / (m - vb) + lg
    r = one
    s = s1
    s2 = 0.0 * one
    for k in range(1, _L_TERMS + 1):
        r = r * (0.5 * (-vb + m + (k - 1.0)) * (vb + m + k) / (k * (k + m)) * (1.0 + xc))
        s = s - _legf(v2, float(k)) + _legf(v2, k + m)
        s2 = s2 + 1.0 / (k * (k * k - v2))
        plog = plog + (pa + s + 2.0 * v2 * s2 - 1.0 / (m + k - vb) + lg) * r
    plog = pv0 + plog * vs * c0
    return xp.where(vint, pint, xp.where(x >= -0.35, pser, plog))


def _lpmv(xp, m, v, x):
    """specfun ``LPMV`` (SciPy's ``lpmv``): the reflection ``P_v = P_{-v-1}``, DLMF 14.9.3
    for ``m < 0``, and the upward recurrence in the degree (DLMF 14.10.3) from
    ``v0 + |m|`` and ``v0 + |m| + 1`` where ``floor(v) > max(2, |m|)``."""
    one = xp.ones_like(x)
    fm = xp.isfinite(m)
    mint = fm & (m == xp.floor(xp.where(fm, m, 0.0)))
    fv = xp.isfinite(v)
    vv = xp.where(fv, v, 0.0 * one)
    vx = xp.where(vv < 0, -vv - 1.0, vv)
    mx = xp.where(mint, xp.abs(m), 0.0 * one)
    nv = xp.floor(vx)
    v0 = vx - nv
    rec = (nv > 2) & (nv > mx)
    negm = mint & (m < 0)
    bad = (~mint | ~fv | xp.isnan(x) | (xp.abs(x) > 1) | (mx > _L_MAX_M)
           | ((v0 != 0) & ((mx > _L_MAX_M_FRAC) | ((x < -0.35) & (vx >= _L_MAX_V_FRAC))))
           | (negm & ~((vx + m + 1 > 0) | (v0 != 0)))
           | (rec & (nv - mx - 1 > _L_MAX_STEPS)))
    mm = xp.where(bad, 0.0 * one, mx)
    xx = xp.where(bad, 0.0 * one, x)
    vxx = xp.where(bad, 0.5 * one, vx)
    v0 = xp.where(bad, 0.5 * one, v0)
    nv = xp.where(bad, 0.0 * one, nv)
    rec = rec & ~bad
    p0 = _lpmv0(xp, xp.where(rec, v0 + mm, vxx), mm, xx)
    p1 = _lpmv0(xp, v0 + mm + 1.0, mm, xx)
    for j in range(2, _L_MAX_STEPS + 2):
        jj = mm + j
        act = rec & (jj <= nv)
        den = v0 + jj - mm
        pn = ((2.0 * (v0 + jj) - 1.0) * xx * p1 - (v0 + jj - 1.0 + mm) * p0) / den
        p0, p1 = xp.where(act, p1, p0), xp.where(act, pn, p1)
    out = xp.where(rec, p1, p0)
    # m < 0: P_v^-m = (-1)^m Gamma(v - m + 1) / Gamma(v + m + 1) P_v^m (DLMF 14.9.3)
    ratio = one
    for i in range(-_L_MAX_M + 1, _L_MAX_M + 1):
        ratio = ratio * xp.where((i > -mm) & (i <= mm), vxx + i, one)
    scaled = out / ratio * _odd_sign(xp, mm)
    out = xp.where(negm & (xp.abs(out) < 1e300), scaled, out)
    out = xp.where(bad, xp.nan * one, out)
    # specfun's early returns: x = -1 with a degree that is not a finite integer (NaN and
    # +-inf included): -inf (m = 0) or inf; P_0 = P_{-1} = 1 for every x (NaN included)
    vnotint = ~fv | (vv != xp.floor(vv))
    out = xp.where((x == -1.0) & mint & vnotint, xp.where(m == 0, -xp.inf * one, xp.inf * one),
                   out)
    return xp.where((m == 0) & ((v == 0) | (v == -1)), one, out)


def _lpmv_f(xp, m, v, x):
    """:func:`_lpmv` in float64 for float32 operands, rounded back: the float32 products of
    the order's factors (``(xq/2)**m / m!`` against ``Gamma(v + m + 1)/Gamma(v - m + 1)``)
    underflow and overflow for ``|m|`` beyond about 10 (results off by 100 %)."""
    if x.dtype == xp.float32:
        f64 = [xp.astype(t, xp.float64) for t in (m, v, x)]
        return xp.astype(_lpmv(xp, *f64), xp.float32)
    return _lpmv(xp, m, v, x)


def _dlpmv_dx(xp, m, v, x):
    """DLMF 14.10.5: ``(1 - x**2) dP/dx = (m - v - 1) P_{v+1}^m + (v + 1) x P_v^m``; at
    ``x = +-1`` its limits for ``|m| = 0, 2`` and ``|m| >= 3`` (NaN for ``|m| = 1``, where
    it is infinite)."""
    p = _lpmv_f(xp, m, v, x)
    q = _lpmv_f(xp, m, v + 1.0, x)
    end = xp.abs(x) == 1.0
    one = xp.ones_like(x)
    d = ((m - v - 1.0) * q + (v + 1.0) * x * p) / xp.where(end, one, 1.0 - x * x)
    am = xp.abs(m)
    w = (v - 1.0) * v * (v + 1.0) * (v + 2.0)
    at1 = xp.where(am == 0, 0.5 * v * (v + 1.0), xp.where(
        m == 2, -0.25 * w, xp.where(m == -2, -0.25 * one, 0.0 * one)))
    at1 = xp.where(am == 1, xp.nan * one, at1)
    vint = v == xp.floor(v)
    # x = -1 (integer v): parity P_v^m(-x) = (-1)^(v + m) P_v^m(x)
    atm1 = xp.where(vint, -at1 * _odd_sign(xp, xp.where(vint, v + m, 0.0 * one)),
                    xp.nan * one)
    dend = xp.where(x > 0, at1, atm1)
    return xp.where(end & ~xp.isnan(p), dend, d)


_lpmv_vjp, _lpmv_jvp = _rules("lpmv", ("m", "v", "x"), (None, "raise", _dlpmv_dx))

_MVX = ("m : Tensor or Python scalar\n    The order, an integer (NaN where it is not; "
        "``|m| <= 40``).\n"
        "v : Tensor or Python scalar\n    The degree, real.\n"
        "x : Tensor or Python scalar\n    The argument, ``-1 <= x <= 1`` (NaN outside); at least "
        "one argument a\n    Tensor, broadcast together; mixed kinds promote by PyTorch's "
        "element-wise\n    rule.")


@op("special.lpmv", module=_M, section="torch", dtypes="real floating", floating=True,
    promote=("m", "v", "x"), torch_name=None, vjp=_lpmv_vjp, jvp=_lpmv_jvp, doc=_doc(
        "Associated Legendre function of the first kind ``P_v^m(x)``, integer order ``m``.",
        "With the Condon-Shortley phase, as SciPy: ``P_v^m(x) = (-1)**m (1 - x**2)**(m/2)\n"
        "d**m P_v(x) / dx**m`` for ``m >= 0`` (``lpmv(1, 1, x) = -sqrt(1 - x**2)``);\n"
        "``P_v = P_{-v-1}``; ``m < 0`` by DLMF 14.9.3 (NaN where SciPy's ``specfun`` does\n"
        "not apply it: integer ``v`` with ``|v| + m + 1 <= 0``...). At ``x = -1`` with a\n"
        "non-integer degree: ``-inf`` for ``m = 0``, ``inf`` otherwise (SciPy's).", _MVX,
        "Tensor\n    The broadcast shape of the arguments, in their promoted floating dtype.",
        "SciPy's ``specfun`` ``LPMV`` (Zhang and Jin, 1996), with fixed loop lengths: the\n"
        "hypergeometric series in ``(1 - x)/2`` (100 terms) for ``x >= -0.35``, the\n"
        "logarithmic expansion about ``x = -1`` below, the terminating sum for integer\n"
        "degrees, and the upward recurrence in the degree from ``v - floor(v) + |m|``.\n"
        "Caps: ``|m| <= 40`` and ``floor(|v|) - |m| <= 201`` (the recurrence's 200 steps);\n"
        "NaN beyond, and NaN for ``|x| > 1`` (SciPy continues the ``m = 0`` series there;\n"
        "docs/special.md). Measured relative error against mpmath ``legenp`` in float64:\n"
        "below 3e-12 for integer ``v`` (``|m| <= 40``, ``|v| <= 240``); for non-integer\n"
        "``v`` below 5e-12 with ``|m| <= 5``, ``|v| <= 20`` (and ``|v| <= 200`` for\n"
        "``x >= -0.35``); NaN for a non-integer degree with ``|m| > 5``, or with ``v >= 20``\n"
        "below ``x = -0.35``, where the series and the recurrence lose digits (in SciPy too).\n"
        "Derivative in ``x`` from DLMF 14.10.5, ``((m - v - 1)\n"
        "P_{v+1}^m + (v + 1) x P_v^m) / (1 - x**2)``, with its limits at ``x = +-1`` (NaN\n"
        "for ``|m| = 1``, where it is infinite). float32 operands are evaluated in float64\n"
        "and rounded (in float32 the factors of the order underflow and overflow past\n"
        "``|m| ~ 10``). ``m`` is integer-valued and gets no\n"
        "gradient; the derivative in ``v`` is not implemented (``NotImplementedError`` at\n"
        "backward). PyTorch has no ``lpmv``.",
        "SciPy ``scipy.special.lpmv``."))
def lpmv(xp, m: Array | float, v: Array | float, x: Array | float, /):
    _real(xp, "lpmv", m, v, x)
    mb, vb, xb = _bcast(xp, m, v, x)
    return _lpmv_f(xp, mb, vb, xb), (m, v, x)
