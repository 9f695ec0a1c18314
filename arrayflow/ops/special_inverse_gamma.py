"""``arrayflow.special``: inverses of the regularized incomplete gamma functions and of the
distribution functions built on them (gammaincinv, gammainccinv, chdtri, pdtri).

Each op is one unit as in :mod:`arrayflow.ops.special` (decorator with the metadata, the
forward written from array API standard functions, its VJP and JVP), with SciPy's semantics.

All four solve ``P(a, x) = p`` (or ``Q(a, x) = q``) with :func:`_igam_inv`: the smaller of
``p`` and ``q = 1 - p`` is matched in relative terms (``log P(a, x) = log p`` in the lower
tail, ``log Q(a, x) = log q`` in the upper), from the best of three initial values (the
small-``x`` and large-``x`` expansions and Wilson and Hilferty's cube-root normal
approximation, the initial values of DiDonato and Morris, ACM TOMS 654, 1986, in simpler
form), by a fixed number of Halley steps in ``log x`` kept inside a bracket that holds the
root (bisection where a step leaves it).
"""

from __future__ import annotations

import math

from .._typing import Array
from ._registry import op
from .special import _M, _doc, _eager, _erfcinv, _gammaln, _real
from .special_incomplete import (
    _bcast,
    _gamma_density,
    _igam,
    _lgam1p,
    _log_igam_fac,
    _rules,
)

__all__: list[str] = ["chdtri", "gammainccinv", "gammaincinv", "pdtri"]

_HALLEY = 7
_LOW_TERMS = 18  # terms of the small-x series of the lower-tail initial value (x <= 1)
_FIXED_POINT = 5  # its fixed-point steps
_DIRECT_X = 1e-3  # below, the small-x value is the result (5 steps: (1e-3)**5 relative)


def _igam_inv(xp, a, p, q, lp, lq):
    """``x`` with ``P(a, x) = p`` (``= 1 - q``) for ``a > 0`` finite, ``0 < p, q < 1``,
    ``p + q = 1`` (the smaller given exactly); ``lp``, ``lq`` their logarithms.

    The increasing function ``h(s) = log P(a, e**s) - log p`` (where ``p <= q``) or
    ``log q - log Q(a, e**s)`` has ``h' = x**a e**-x / (Gamma(a) V)`` (``V`` the ``P`` or
    ``Q`` matched) and ``h'' = h' (a - x) -+ h'**2``; the root lies in
    ``[(p Gamma(a + 1))**(1/a), a / q]`` (``P(a, x) <= x**a / Gamma(a + 1)``, Markov's
    inequality ``Q(a, x) <= a / x``)."""
    upper = q < p
    tiny = float(xp.finfo(a.dtype).smallest_normal)
    # log Gamma(1 + a), accurate relative to a for small a (1 + a rounds to 1 below 1e-16)
    lga1 = xp.where(a < 1.0, _lgam1p(xp, xp.minimum(a, 1.0)), _gammaln(xp, a + 1.0))
    lga = lga1 - xp.log(a)
    # the bracket, in log x
    llo = llo0 = (lp + lga1) / a
    lhi = xp.log(a) - lq
    # 1. small x: P = x**a / Gamma(a + 1) (1 + a u), u = sum_n (-x)**n / (n! (a + n))
    #    (Kummer's 1F1(a; a + 1; -x)), so x = (p Gamma(a + 1))**(1/a) / (1 + a u)**(1/a),
    #    by fixed-point steps (each gains a factor x / (a + 1); x <= 1 here, beyond the
    #    other two start better). The power, not exp(llo): its relative error is
    #    eps / a, exp's |log p| eps / a (the result where x < _DIRECT_X)
    z = p * xp.exp(lga1)
    # (in the upper tail p = 1 - q is rounded: there exp(llo), from log1p(-q))
    direct = ~upper & (z > tiny * 2.0**52) & (lga1 < 30.0)
    x1 = xp.where(direct, xp.pow(xp.where(direct, z, 1.0), 1.0 / a), xp.exp(llo))
    x0 = x1
    for _ in range(_FIXED_POINT):
        xc = xp.minimum(x1, 1.0)
        term, u = xp.ones_like(xc), xp.zeros_like(xc)
        for n in range(1, _LOW_TERMS + 1):
            term = term * (-xc) / n
            u = u + term / (a + n)
        w = a * u
        # log1p(w) / w -> 1 as w -> 0 (w is tiny with a)
        ratio = xp.where(xp.abs(w) < 1e-8, 1.0 - 0.5 * w, xp.log1p(w) / xp.where(w == 0, 1.0, w))
        x1 = x0 * xp.exp(-u * ratio)
    # 2. large x: Q = x**(a-1) e**-x / Gamma(a) (1 + (a-1)/x + (a-1)(a-2)/x**2 + ...)
    x2 = xp.maximum(-lq - lga, 1.0)
    for _ in range(4):
        corr = xp.log(xp.abs(1.0 + (a - 1.0) / x2 + (a - 1.0) * (a - 2.0) / (x2 * x2)))
        x2 = xp.maximum(-lq - lga + (a - 1.0) * xp.log(x2) + corr, tiny)
    # 3. Wilson and Hilferty: (x / a)**(1/3) nearly normal, mean 1 - 1/(9a), variance 1/(9a)
    pm = xp.minimum(p, q)
    z = -math.sqrt(2.0) * _erfcinv(xp, 2.0 * pm)
    z = xp.where(upper, -z, z)
    base = 1.0 - 1.0 / (9.0 * a) + z / (3.0 * xp.sqrt(a))
    x3 = a * xp.where(base > 0, base, 1.0) ** 3
    x3 = xp.where(base > 0, x3, x1)

    def residual(x):
        """``(h, h', h'')`` at ``x`` (evaluated at ``max(x, tiny)``)."""
        xe = xp.maximum(x, tiny)
        v = _igam(xp, a, xe, upper)
        lv = xp.log(v)
        # log of the ratio, not a difference of logs (whose rounding is 1e-13 relative to
        # a value near 1e-300)
        h = xp.where(upper, xp.log(q / v), xp.log(v / p))
        d1 = xp.exp(_log_igam_fac(xp, a, xe) - lv)
        d2 = d1 * (a - xe) + xp.where(upper, d1 * d1, -(d1 * d1))
        return h, d1, d2, xp.log(xe)

    # the best start of the three; each narrows the bracket
    cands = xp.stack([x1, x2, x3], axis=-1)
    ae = xp.expand_dims(a, axis=-1)
    upe = xp.expand_dims(upper, axis=-1)
    ve = _igam(xp, xp.broadcast_to(ae, cands.shape), xp.maximum(cands, tiny),
               xp.broadcast_to(upe, cands.shape))
    he = xp.log(xp.where(upe, xp.expand_dims(q, axis=-1) / ve, ve / xp.expand_dims(p, axis=-1)))
    lce = xp.log(xp.maximum(cands, tiny))
    llo = xp.maximum(llo, xp.max(xp.where(he < 0, lce, -xp.inf), axis=-1))
    lhi = xp.minimum(lhi, xp.min(xp.where(he > 0, lce, xp.inf), axis=-1))
    score = xp.where(xp.isnan(he), xp.inf, xp.abs(he))
    best = xp.argmin(score, axis=-1, keepdims=True)
    x = xp.squeeze(xp.take_along_axis(cands, best, axis=-1), axis=-1)
    # an element whose step is within a few rounding errors of x is done (its later steps
    # only trade rounding noise): frozen, so its value depends on its own arguments alone,
    # and on eager arrays the loop ends once every element is done
    # far in the lower tail the small-x value is the result, more accurate than Halley's
    # steps on gammainc (they would add the rounding of its exp(a log x - x) / Gamma(a))
    series = ((x1 < _DIRECT_X) & ~upper) | ((llo0 < math.log(tiny)) & (x1 < tiny))
    done = series
    eps_h = 32.0 * float(xp.finfo(x.dtype).eps)  # the rounding noise of h (gammainc)
    eager = _eager(x)
    for _ in range(_HALLEY):
        h, d1, d2, lx = residual(x)
        llo = xp.where(h < 0, xp.maximum(llo, lx), llo)
        lhi = xp.where(h > 0, xp.minimum(lhi, lx), lhi)
        newton = h / d1
        # Halley's correction only while it is a correction (|h h''| < h'**2 / 2)
        hal = 2.0 * h * d1 / (2.0 * d1 * d1 - h * d2)
        step = xp.where(xp.abs(h * d2) < 0.5 * d1 * d1, hal, newton)
        ln = lx - step
        # (the bounds carry rounding errors: a step that stays within 1e-9 of them is kept)
        slack = 1e-9 * (1.0 + xp.abs(lx))
        inside = (ln >= llo - slack) & (ln <= lhi + slack)
        mid = 0.5 * (llo + lhi)
        xn = xp.where(inside, x * xp.exp(-step), xp.exp(mid))
        xn = xp.where(done | (h == 0), x, xn)
        # (the noise of h, a few eps, moves log x by that over h': the condition number)
        done = done | (h == 0) | (xp.abs(xn - x) <= eps_h * (1.0 + 1.0 / d1) * xp.abs(x))
        x = xn
        if eager and bool(xp.all(done)):
            break
    return xp.where(series, x1, x)


def _gamma_quantile(xp, a, y, upper):
    """``x`` with ``P(a, x) = y`` (``upper=False``) or ``Q(a, x) = y``, SciPy's edges:
    0 and ``inf`` at the ends of ``[0, 1]``; NaN for ``a < 0``, ``y`` outside ``[0, 1]``,
    a NaN, and for ``0 < y < 1`` at ``a = 0`` or ``a = inf`` (where the function inverted
    is constant in ``x``)."""
    inner = (a > 0) & xp.isfinite(a) & (y > 0) & (y < 1)
    av = xp.where(inner, a, 1.0)
    yv = xp.where(inner, y, 0.5)
    yc = 1.0 - yv  # exact where yv >= 1/2; below, log1p(-yv) is the accurate log
    ly, lyc = xp.log(yv), xp.log1p(-yv)
    if upper:
        x = _igam_inv(xp, av, yc, yv, lyc, ly)
    else:
        x = _igam_inv(xp, av, yv, yc, ly, lyc)
    zero, inf = (y == 1, y == 0) if upper else (y == 0, y == 1)
    x = xp.where(zero, 0.0, xp.where(inf, xp.inf, x))
    bad = (a < 0) | xp.isnan(a) | xp.isnan(y) | (y < 0) | (y > 1) | (
        ~zero & ~inf & ((a == 0) | xp.isinf(a)))
    return xp.where(bad, xp.nan, x)


_AY = ("a : Tensor or Python scalar\n    Shape parameter, ``a >= 0`` (NaN below).\n"
       "y : Tensor or Python scalar\n    Probability in ``[0, 1]`` (NaN outside); at least one "
       "of ``a``, ``y`` a\n    Tensor, broadcast together; mixed kinds promote by PyTorch's "
       "element-wise\n    rule.")
_BC = "Tensor\n    The broadcast shape of the arguments, in their promoted floating dtype."
_INV_NOTES = (
    "The smaller of ``y`` and ``1 - y`` is matched in relative terms (``P = p`` in the lower\n"
    "tail, ``Q = q`` in the upper) by 7 Halley steps in ``log x`` from the best of three\n"
    "initial values (the small-``x`` series ``x = (p Gamma(a+1))**(1/a) ...``, the large-``x``\n"
    "expansion, Wilson and Hilferty's cube-root normal approximation; DiDonato and Morris,\n"
    "ACM TOMS 654, 1986), each step kept inside a bracket that holds the root, over\n"
    ":func:`gammainc` / :func:`gammaincc`; below ``x = 1e-3`` in the lower tail the series\n"
    "is the result. Relative error within ``60 eps (1 + |log x|) max(1, 1/a)`` of SciPy for\n"
    "``a`` in ``[1e-3, 1e4]`` and ``y`` from 1e-300 to ``1 - 1e-15`` (``1/a``: the lower\n"
    "tail's condition number; ``|log x|``: the rounding of the exponent ``1/a``, in SciPy as\n"
    "here), and within twice that of mpmath up to ``a = 1e8`` (where SciPy 1.17 is off:\n"
    "``gammaincinv(1e8, 1e-10)`` by 4.7e-6; ``tests/test_special_inverse_gamma.py``).\n"
    "float32 within ``2e-5 max(1, 1/a)``.")


def _dx_dy(sign, scale=1.0, shape=lambda xp, v: v):
    """``d quantile / d y = sign * scale / density(shape(v), quantile / scale)`` (the forward
    saves its output last)."""
    def d(xp, v, y, out):
        return sign * scale / _gamma_density(xp, shape(xp, v), out / scale)
    return d


_gammaincinv_vjp, _gammaincinv_jvp = _rules("gammaincinv", ("a", "y"), ("raise", _dx_dy(1.0)),
                                            reads_out=True)


@op("special.gammaincinv", module=_M, section="torch", dtypes="real floating", floating=True,
    promote=("a", "y"), torch_name=None, vjp=_gammaincinv_vjp, jvp=_gammaincinv_jvp, doc=_doc(
        "Inverse of :func:`gammainc` in ``x``: ``x`` with ``gammainc(a, x) = y``.",
        "0 at ``y = 0``, ``inf`` at ``y = 1``; NaN for ``a < 0``, ``y`` outside ``[0, 1]`` or a\n"
        "NaN argument, and for ``0 < y < 1`` at ``a = 0`` and ``a = inf`` (``gammainc`` is\n"
        "constant in ``x`` there; SciPy 1.17 returns 0 for some of these, e.g.\n"
        "``gammaincinv(0, 1 - 1e-10)``, and 0 for ``gammaincinv(-0.0, 1.5)``).", _AY, _BC,
        _INV_NOTES + "\n\nDerivative in ``y``: ``1 / (x**(a-1) exp(-x) / Gamma(a))`` at the "
        "result; the\nderivative in ``a`` is not implemented (``NotImplementedError`` at "
        "backward).\nPyTorch has no ``gammaincinv``.",
        "SciPy ``scipy.special.gammaincinv``."))
def gammaincinv(xp, a: Array | float, y: Array | float, /):
    _real(xp, "gammaincinv", a, y)
    ab, yb = _bcast(xp, a, y)
    out = _gamma_quantile(xp, ab, yb, upper=False)
    return out, (a, y, out)


_gammainccinv_vjp, _gammainccinv_jvp = _rules("gammainccinv", ("a", "y"),
                                              ("raise", _dx_dy(-1.0)), reads_out=True)


@op("special.gammainccinv", module=_M, section="torch", dtypes="real floating",
    floating=True, promote=("a", "y"), torch_name=None, vjp=_gammainccinv_vjp,
    jvp=_gammainccinv_jvp, doc=_doc(
        "Inverse of :func:`gammaincc` in ``x``: ``x`` with ``gammaincc(a, x) = y``.",
        "``inf`` at ``y = 0``, 0 at ``y = 1``; NaN for ``a < 0``, ``y`` outside ``[0, 1]`` or\n"
        "a NaN argument, and for ``0 < y < 1`` at ``a = 0`` and ``a = inf`` (SciPy 1.17\n"
        "returns 0 for some of these, e.g. ``gammainccinv(0, 1e-10)``). Accurate where ``y``\n"
        "is tiny (``x`` far in the upper tail).", _AY, _BC,
        _INV_NOTES + "\n\nDerivative in ``y``: ``-1 / (x**(a-1) exp(-x) / Gamma(a))`` at the "
        "result; the\nderivative in ``a`` is not implemented (``NotImplementedError`` at "
        "backward).\nPyTorch has no ``gammainccinv``.",
        "SciPy ``scipy.special.gammainccinv``."))
def gammainccinv(xp, a: Array | float, y: Array | float, /):
    _real(xp, "gammainccinv", a, y)
    ab, yb = _bcast(xp, a, y)
    out = _gamma_quantile(xp, ab, yb, upper=True)
    return out, (a, y, out)


_chdtri_vjp, _chdtri_jvp = _rules("chdtri", ("v", "p"),
                                  ("raise", _dx_dy(-1.0, 2.0, lambda xp, v: 0.5 * v)),
                                  reads_out=True)


@op("special.chdtri", module=_M, section="torch", dtypes="real floating", floating=True,
    promote=("v", "p"), torch_name=None, vjp=_chdtri_vjp, jvp=_chdtri_jvp, doc=_doc(
        "Inverse of :func:`chdtrc` in ``x``: ``x`` with ``chdtrc(v, x) = p``.",
        "``chdtri(v, p) = 2 gammainccinv(v / 2, p)`` (the ``1 - p`` quantile of the\n"
        "chi-square distribution with ``v`` degrees of freedom); ``inf`` at ``p = 0``, 0 at\n"
        "``p = 1``; NaN for ``v < 0``, ``p`` outside ``[0, 1]``, and for ``0 < p < 1`` at\n"
        "``v = 0`` and ``v = inf`` (SciPy 1.17 returns 0 for ``chdtri(0, p)`` with small\n"
        "``p``).",
        "v : Tensor or Python scalar\n    Degrees of freedom, ``v >= 0``.\n"
        "p : Tensor or Python scalar\n    Probability in ``[0, 1]``; at least one of ``v``, "
        "``p`` a Tensor, broadcast\n    together.", _BC,
        "Cephes ``chdtri``, over :func:`gammainccinv` (its method and accuracy). Derivative "
        "in\n``p``: minus one over the chi-square density at the result; the derivative in "
        "``v``\nis not implemented (``NotImplementedError`` at backward). PyTorch has no\n"
        "``chdtri``.",
        "SciPy ``scipy.special.chdtri``."))
def chdtri(xp, v: Array | float, p: Array | float, /):
    _real(xp, "chdtri", v, p)
    vb, pb = _bcast(xp, v, p)
    out = 2.0 * _gamma_quantile(xp, 0.5 * vb, pb, upper=True)
    return out, (v, p, out)


def _pdtri(xp, k, y):
    inner = (k >= 0) & xp.isfinite(k) & (y < 1)
    kk = xp.floor(xp.where(inner, k, 0.0)) + 1.0
    out = _gamma_quantile(xp, kk, y, upper=True)
    return xp.where(inner, out, xp.nan)


_pdtri_vjp, _pdtri_jvp = _rules("pdtri", ("k", "y"),
                                (None, _dx_dy(-1.0, shape=lambda xp, k: xp.floor(k) + 1.0)),
                                reads_out=True)


@op("special.pdtri", module=_M, section="torch", dtypes="real floating", floating=True,
    promote=("k", "y"), torch_name=None, vjp=_pdtri_vjp, jvp=_pdtri_jvp, doc=_doc(
        "Inverse of :func:`pdtr` in ``m``: the Poisson mean ``m`` with ``pdtr(k, m) = y``.",
        "``pdtri(k, y) = gammainccinv(floor(k) + 1, y)``; ``inf`` at ``y = 0``; NaN for\n"
        "``k < 0``, ``k = inf``, ``y`` outside ``[0, 1)`` (at ``y = 1`` too, as SciPy's) or a\n"
        "NaN argument.",
        "k : Tensor or Python scalar\n    Number of events, ``k >= 0``; its integer part is "
        "used (``floor(k)``,\n    SciPy's).\n"
        "y : Tensor or Python scalar\n    Probability in ``[0, 1)``; at least one of ``k``, "
        "``y`` a Tensor, broadcast\n    together.", _BC,
        "Cephes ``pdtri``, over :func:`gammainccinv` (its method and accuracy). SciPy 1.17\n"
        "returns NaN for ``k`` above about 1e300 (``pdtri(1e300, 0.3)``); the value here is\n"
        "the quantile. Derivative in ``y``: ``-1 / (exp(-m) m**k / k!)`` at the result; ``k``\n"
        "is integer-valued and gets no gradient. PyTorch has no ``pdtri``.",
        "SciPy ``scipy.special.pdtri``."))
def pdtri(xp, k: Array | float, y: Array | float, /):
    _real(xp, "pdtri", k, y)
    kb, yb = _bcast(xp, k, y)
    out = _pdtri(xp, kb, yb)
    return out, (k, y, out)
