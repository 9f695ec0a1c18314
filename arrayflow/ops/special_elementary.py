"""``arrayflow.special``: Compositions of elementary functions: boxcox family, cbrt, degree
trigonometry, cosm1, exp2, exp10, exprel, erfcx, huber, pseudo_huber, kl_div, radian.

Each op is one unit as in :mod:`arrayflow.ops.special` (decorator with the metadata, the
forward written from array API standard functions, its VJP and JVP), with SciPy's semantics.
Where SciPy computes with a Cephes routine (``sindg.c``, ``tandg.c``, ``exp2.c``,
``exp10.c``, ``unity.c``) the same operations are done in the same order, so that float64
results agree with SciPy's to the last bit in most places (exact zeros and ones of the
degree functions, ``exp10(3) == 1000.0``).
"""

from __future__ import annotations

import math

from .._typing import Array
from ._blockwise import blockwise
from ._registry import op
from ._vjp_util import is_array, sum_to_shape
from .special import (
    _M,
    _RA,
    _RB,
    _SA,
    _SAME,
    _SB,
    _X,
    _arrays,
    _doc,
    _erfc,
    _hi,
    _poly,
    _real,
    _unary_rules,
)
from .special import rel_entr as _rel_entr_op

__all__ = ["boxcox", "boxcox1p", "cbrt", "cosdg", "cosm1", "cotdg", "erfcx", "exp10", "exp2",
           "exprel", "huber", "inv_boxcox", "inv_boxcox1p", "kl_div", "pseudo_huber", "radian",
           "sindg", "tandg"]


def _polevl(z, coeffs):
    """Cephes ``polevl``: ``coeffs`` from the highest power down (same Horner order)."""
    return _poly(z, tuple(reversed(coeffs)))


def _p1evl(z, coeffs):
    """Cephes ``p1evl``: ``polevl`` with an implicit leading coefficient 1."""
    return _poly(z, tuple(reversed(coeffs)) + (1.0,))


def _ldexp(xp, v, n):
    """``v * 2**n`` for integer-valued float ``n``, as C's ``ldexp`` (one rounding): the power
    in two halves, so that neither overflows nor underflows before the product does."""
    n1 = xp.floor(n / 2.0)
    two = xp.full_like(n, 2.0)
    return (v * xp.pow(two, n1)) * xp.pow(two, n - n1)


def _sign1(xp, v):
    """-1 where ``v < 0``, else 1, in ``v``'s dtype."""
    one = xp.ones_like(v)
    return xp.where(v < 0, -one, one)


def _nary_rules(names, *partials):
    """VJP and JVP of an element-wise op of the operands ``names`` from its partial derivatives
    ``partials[i](xp, *operands)`` (every operand as an array; the forward saves the operands as
    given). Gradients are summed back to each operand's shape; a Python-scalar operand gets
    none."""
    partials = tuple(blockwise(d) for d in partials)

    def arrays(xp, args):
        like = next(a for a in args if is_array(a))
        return [a if is_array(a) else xp.full_like(like, a) for a in args]

    def vjp(xp, res, g):
        arrs = arrays(xp, res)
        return tuple(sum_to_shape(xp, g * d(xp, *arrs), a.shape) if is_array(a) else None
                     for a, d in zip(res, partials))

    def jvp(xp, tangents, out, *args):
        arrs = arrays(xp, args)
        t = None
        for name, d in zip(names, partials):
            if name in tangents:
                term = tangents[name] * d(xp, *arrs)
                t = term if t is None else t + term
        if t is not None and tuple(t.shape) != tuple(out.shape):
            t = xp.broadcast_to(t, tuple(out.shape))
        return t
    return vjp, jvp


def _series(z, coeffs):
    """``sum(c[k] * z**k)`` (Horner), for the Taylor series of the derivatives."""
    return _poly(z, coeffs)


_BCAST = ("Tensor\n    The broadcast shape of the operands, in their promoted floating dtype.")


# --- cbrt ------------------------------------------------------------------------------------

def _cbrt(xp, x):
    a = xp.abs(x)
    ok = (a > 0) & (a < xp.inf)
    ac = xp.where(ok, a, 1.0)
    r = xp.exp(xp.log(ac) / 3.0)
    for _ in range(2):  # Newton on r**3 = a, written so that r**3 never overflows
        r = r - (r - ac / (r * r)) / 3.0
    out = xp.copysign(r, x)
    return xp.where(ok, out, x)  # +-0, +-inf, NaN: themselves


_cbrt_vjp, _cbrt_jvp = _unary_rules(lambda xp, x, out: 1.0 / (3.0 * (out * out)))


@op("special.cbrt", module=_M, section="torch", dtypes="real floating", floating=True,
    torch_name=None, vjp=_cbrt_vjp, jvp=_cbrt_jvp, doc=_doc(
        "The real cube root, ``cbrt(x) = sign(x) * |x|**(1/3)``.",
        "Defined for negative ``x`` (``cbrt(-27) = -3``); ``cbrt(+-0) = +-0``,\n"
        "``cbrt(+-inf) = +-inf``, exact at perfect cubes (``cbrt(27.0) == 3.0``).", _X, _SAME,
        "``exp(log|x| / 3)`` refined by two Newton steps ``r - (r - |x| / r**2) / 3``.\n"
        "Relative error against SciPy below 3e-16 in float64 over ``[-1e300, 1e300]``\n"
        "including subnormals (``tests/test_special_elementary.py``). Derivative\n"
        "``1 / (3 cbrt(x)**2)`` (``inf`` at 0). PyTorch has no ``cbrt``.",
        "SciPy ``scipy.special.cbrt`` (Cephes ``cbrt``)."))
def cbrt(xp, x: Array, /):
    _real(xp, "cbrt", x)
    out = _cbrt(xp, x)
    return out, (None, out)


# --- exp2, exp10 (Cephes exp2.c, exp10.c) -----------------------------------------------------

_EXP2_P = (2.30933477057345225087E-2, 2.02020656693165307700E1, 1.51390680115615096133E3)
_EXP2_Q = (2.33184211722314911771E2, 4.36821166879210612817E3)
_EXP10_P = (4.09962519798587023075E-2, 1.17452732554344059015E1, 4.06717289936872725516E2,
            2.39423741207388267439E3)
_EXP10_Q = (8.50936160849306532625E1, 1.27209271178345121210E3, 2.07960819286001865907E3)
_LOG210 = 3.32192809488736234787e0
_LG102A = 3.01025390625000000000E-1
_LG102B = 4.60503898119521373889E-6
_MAXL10 = 308.2547155599167
_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


def _exp2(xp, x):
    inside = (x >= -1024.0) & (x <= 1024.0)  # False for NaN
    xc = xp.where(inside, x, 0.0)
    n = xp.floor(xc + 0.5)
    f = xc - n
    ff = f * f
    p = f * _polevl(ff, _EXP2_P)
    r = p / (_p1evl(ff, _EXP2_Q) - p)
    out = _ldexp(xp, 1.0 + 2.0 * r, n)
    out = xp.where(x > 1024.0, xp.inf, xp.where(x < -1024.0, 0.0, out))
    return xp.where(xp.isnan(x), x, out)


def _exp10(xp, x):
    inside = (x >= -_MAXL10) & (x <= _MAXL10)
    xc = xp.where(inside, x, 0.0)
    n = xp.floor(_LOG210 * xc + 0.5)
    f = xc - n * _LG102A
    f = f - n * _LG102B
    ff = f * f
    p = f * _polevl(ff, _EXP10_P)
    r = p / (_p1evl(ff, _EXP10_Q) - p)
    out = _ldexp(xp, 1.0 + 2.0 * r, n)
    out = xp.where(x > _MAXL10, xp.inf, xp.where(x < -_MAXL10, 0.0, out))
    return xp.where(xp.isnan(x), x, out)


_exp2_vjp, _exp2_jvp = _unary_rules(lambda xp, x, out: _LN2 * out)


@op("special.exp2", module=_M, section="torch", dtypes="real floating", floating=True,
    torch_name="special.exp2", vjp=_exp2_vjp, jvp=_exp2_jvp, doc=_doc(
        "``2**x``.",
        "Exact at integers; ``inf`` beyond 1024 and, as SciPy (Cephes ``MINL2``), 0 below\n"
        "-1024 (``exp2(-1030) = 0`` where ``2**-1030`` is a subnormal).", _X, _SAME,
        "Cephes ``exp2.c`` (S. L. Moshier): ``x = n + f`` with ``|f| <= 1/2``, the Pade form\n"
        "``1 + 2 f P(f**2) / (Q(f**2) - f P(f**2))``, scaled by ``2**n``; the same operations\n"
        "as SciPy's, equal to its values to the last bit in float64 on ``[-1024, 1024]``.\n"
        "Derivative ``log(2) * exp2(x)``, as PyTorch's.",
        "SciPy ``scipy.special.exp2``; PyTorch ``torch.special.exp2``."))
def exp2(xp, x: Array, /):
    _real(xp, "exp2", x)
    out = _exp2(xp, x)
    return out, (None, out)


_exp10_vjp, _exp10_jvp = _unary_rules(lambda xp, x, out: _LN10 * out)


@op("special.exp10", module=_M, section="torch", dtypes="real floating", floating=True,
    torch_name=None, vjp=_exp10_vjp, jvp=_exp10_jvp, doc=_doc(
        "``10**x``.",
        "Exact at the integers 0 to 22 (``exp10(3) == 1000.0``); ``inf`` beyond\n"
        "``308.2547...``, 0 below its negative (SciPy's cut-offs).", _X, _SAME,
        "Cephes ``exp10.c`` (S. L. Moshier): ``10**x = 10**f * 2**n``,\n"
        "``f = x - n log10(2)`` (``log10(2)`` in two parts, the first exact in products), a\n"
        "Pade form for ``10**f``; the same operations as SciPy's, equal to its values to the\n"
        "last bit in float64. Derivative ``log(10) * exp10(x)``. PyTorch has no ``exp10``.",
        "SciPy ``scipy.special.exp10``."))
def exp10(xp, x: Array, /):
    _real(xp, "exp10", x)
    out = _exp10(xp, x)
    return out, (None, out)


# --- degree trigonometry (Cephes sindg.c, tandg.c) -------------------------------------------

_PI180 = 1.74532925199432957692E-2
_SINCOF = (1.58962301572218447952E-10, -2.50507477628503540135E-8, 2.75573136213856773549E-6,
           -1.98412698295895384658E-4, 8.33333333332211858862E-3, -1.66666666666666307295E-1)
_COSCOF = (1.13678171382044553091E-11, -2.08758833757683644217E-9, 2.75573155429816611547E-7,
           -2.48015872936186303776E-5, 1.38888888888806666760E-3, -4.16666666666666348141E-2,
           4.99999999999999999798E-1)
_LOSSTH = 1.0e14


def _octants(xp, x):
    """Cephes ``sindg``'s reduction of ``|x|`` (``<= 1e14``) into octants: ``(j, reflected,
    z)`` with ``j`` in ``0..3``, ``reflected`` where the octant was in ``[180, 360)`` and
    ``z`` the remainder in radians; the sine and cosine polynomials on ``z``."""
    ax = xp.abs(x)
    ax = xp.where(ax <= _LOSSTH, ax, 0.0)  # total loss, inf, NaN: handled by the caller
    # modulo 360 first (fmod is exact): the same remainder as Cephes' arithmetic, which is
    # exact in float64 up to 1e14 but not in float32 beyond 2**24 / 45
    ax = xp.remainder(ax, 360.0)
    y = xp.floor(ax / 45.0)
    j = y - 16.0 * xp.floor(y / 16.0)  # exact
    odd = (j - 2.0 * xp.floor(j / 2.0)) == 1.0
    j = xp.where(odd, j + 1.0, j)
    y = xp.where(odd, y + 1.0, y)
    j = j - 8.0 * xp.floor(j / 8.0)
    reflected = j > 3.0
    j = xp.where(reflected, j - 4.0, j)
    z = (ax - y * 45.0) * _PI180
    zz = z * z
    sin_ = z + z * (zz * _polevl(zz, _SINCOF))
    cos_ = 1.0 - zz * _polevl(zz, _COSCOF)
    return j, reflected, sin_, cos_


def _finish_dg(xp, x, neg, val):
    out = xp.where(neg, -val, val)
    out = xp.where(xp.abs(x) > _LOSSTH, 0.0, out)  # Cephes: total loss of precision -> 0
    return xp.where(xp.isnan(x), x, out)


def _sindg(xp, x):
    j, reflected, sin_, cos_ = _octants(xp, x)
    val = xp.where((j == 1.0) | (j == 2.0), cos_, sin_)
    return _finish_dg(xp, x, (x < 0) != reflected, val)


def _cosdg(xp, x):
    j, reflected, sin_, cos_ = _octants(xp, x)
    val = xp.where((j == 1.0) | (j == 2.0), sin_, cos_)
    return _finish_dg(xp, x, reflected != (j > 1.0), val)


def _tancot(xp, x, cot):
    neg = x < 0
    ax = xp.abs(x)
    ax = xp.where(ax <= _LOSSTH, ax, 0.0)
    r = xp.remainder(ax, 180.0)  # exact (fmod), as Cephes' x - 180 floor(x/180) in float64
    if x.dtype == xp.float32:
        return _tancot32(xp, x, neg, r, cot)
    if cot:
        flip = r > 90.0
        r = xp.where(flip, r - 90.0, 90.0 - r)
    else:
        flip = r > 90.0
        r = xp.where(flip, 180.0 - r, r)
    one = xp.ones_like(x)
    sign = xp.where(neg != flip, -one, one)
    val = sign * xp.tan(xp.where(r == 90.0, 0.0, r) * _PI180)
    val = xp.where(r == 45.0, sign, val)
    val = xp.where(r == 0.0, 0.0, val)
    val = xp.where(r == 90.0, xp.inf, val)  # the poles, +inf whatever the side (Cephes)
    val = xp.where(xp.abs(x) > _LOSSTH, 0.0, val)
    return xp.where(xp.isnan(x), x, val)


def _tancot32(xp, x, neg, r, cot):
    """float32: Cephes' folding, but ``tan`` evaluated on the exact distance to the nearest
    multiple of 90 (``90 - r`` is rounded in float32, and ``tan`` near its poles amplifies
    that rounding a thousandfold; SciPy computes its float32 results in float64)."""
    flip = r > 90.0
    t = xp.where(flip, 180.0 - r, r)  # in [0, 90], exact (Sterbenz)
    one = xp.ones_like(x)
    sign = xp.where(neg != flip, -one, one)
    low = t <= 45.0
    tl = xp.tan(xp.where(low, t, 0.0) * _PI180)
    th = xp.tan(xp.where(low, 45.0, 90.0 - t) * _PI180)  # 90 - t exact for t >= 45
    if cot:
        val = xp.where(low, 1.0 / xp.where(t == 0.0, 1.0, tl), th)
        val = xp.where(t == 90.0, 0.0, sign * val)
        # SciPy (float64): 90 - t rounds to 90 for t <= 2**-47, a pole there
        val = xp.where(t <= 2.0 ** -47, xp.inf, val)
    else:
        val = xp.where(low, tl, 1.0 / xp.where(t == 90.0, 1.0, th))
        val = xp.where(t == 0.0, 0.0, sign * val)
        val = xp.where(t == 90.0, xp.inf, val)
    val = xp.where(t == 45.0, sign, val)
    val = xp.where(xp.abs(x) > _LOSSTH, 0.0, val)
    return xp.where(xp.isnan(x), x, val)


def _lost(xp, x, d):
    """A degree function's derivative, NaN where Cephes gives up (``|x| > 1e14``: the value
    0 there is a convention, not the function)."""
    return xp.where(xp.abs(x) > _LOSSTH, xp.nan, d)


_DG_NOTES = (
    "Cephes ``sindg.c``/``tandg.c`` (S. L. Moshier): the argument reduced exactly modulo\n"
    "360 (octants of 45 degrees) before converting to radians, so multiples of 90 and 45\n"
    "give exact zeros and ones; the same operations as SciPy's, within 1 ulp of its values\n"
    "in float64 on ``[-1e14, 1e14]`` (``tests/test_special_elementary.py``). float32 is\n"
    "reduced with ``remainder`` (exact) and computed in float32: within 2e-7 (5e-7 for\n"
    "``tandg``/``cotdg``, evaluated on the exact distance to the pole) of SciPy's values.\n"
    "Beyond ``|x| > 1e14`` the result is 0, as SciPy's (total loss of precision); the\n"
    "derivative is NaN there.")

_sindg_vjp, _sindg_jvp = _unary_rules(lambda xp, x, out: _lost(xp, x, _PI180 * _cosdg(xp, x)))


@op("special.sindg", module=_M, section="torch", dtypes="real floating", floating=True,
    torch_name=None, vjp=_sindg_vjp, jvp=_sindg_jvp, doc=_doc(
        "Sine of an angle in degrees.",
        "``sindg(90) = 1``, ``sindg(180) = -0.0`` exactly (SciPy's signs of zero); 0 at\n"
        "``+-inf`` (SciPy's value).",
        _X, _SAME, _DG_NOTES + " Derivative ``pi/180 * cosdg(x)``. PyTorch has no ``sindg``.",
        "SciPy ``scipy.special.sindg``."))
def sindg(xp, x: Array, /):
    _real(xp, "sindg", x)
    return _sindg(xp, x), (x, None)


_cosdg_vjp, _cosdg_jvp = _unary_rules(lambda xp, x, out: _lost(xp, x, -_PI180 * _sindg(xp, x)))


@op("special.cosdg", module=_M, section="torch", dtypes="real floating", floating=True,
    torch_name=None, vjp=_cosdg_vjp, jvp=_cosdg_jvp, doc=_doc(
        "Cosine of an angle in degrees.",
        "``cosdg(180) = -1``, ``cosdg(90) = -0.0`` exactly (SciPy's signs of zero); 0 at\n"
        "``+-inf`` (SciPy's value).",
        _X, _SAME,
        _DG_NOTES + " Derivative ``-pi/180 * sindg(x)``. PyTorch has no ``cosdg``.",
        "SciPy ``scipy.special.cosdg``."))
def cosdg(xp, x: Array, /):
    _real(xp, "cosdg", x)
    return _cosdg(xp, x), (x, None)


_tandg_vjp, _tandg_jvp = _unary_rules(lambda xp, x, out: _lost(xp, x, _PI180 * (1.0 + out * out)))


@op("special.tandg", module=_M, section="torch", dtypes="real floating", floating=True,
    torch_name=None, vjp=_tandg_vjp, jvp=_tandg_jvp, doc=_doc(
        "Tangent of an angle in degrees.",
        "``tandg(45) = 1``, ``tandg(180) = 0`` exactly; ``+inf`` at the poles ``90 + 180 k``\n"
        "whatever the sign (SciPy's value), 0 at ``+-inf``.", _X, _SAME,
        _DG_NOTES.replace("octants of 45 degrees", "modulo 180, folded into [0, 90]")
        + " Derivative\n``pi/180 * (1 + tandg(x)**2)``. PyTorch has no ``tandg``.",
        "SciPy ``scipy.special.tandg``."))
def tandg(xp, x: Array, /):
    _real(xp, "tandg", x)
    out = _tancot(xp, x, cot=False)
    return out, (x, out)


_cotdg_vjp, _cotdg_jvp = _unary_rules(
    lambda xp, x, out: _lost(xp, x, -_PI180 * (1.0 + out * out)))


@op("special.cotdg", module=_M, section="torch", dtypes="real floating", floating=True,
    torch_name=None, vjp=_cotdg_vjp, jvp=_cotdg_jvp, doc=_doc(
        "Cotangent of an angle in degrees.",
        "``cotdg(45) = 1``, ``cotdg(90) = 0`` exactly; ``+inf`` at the poles ``180 k``\n"
        "whatever the sign (SciPy's value), 0 at ``+-inf``.", _X, _SAME,
        _DG_NOTES.replace("octants of 45 degrees", "modulo 180, folded into [0, 90]")
        + " Derivative\n``-pi/180 * (1 + cotdg(x)**2)``. PyTorch has no ``cotdg``.",
        "SciPy ``scipy.special.cotdg``."))
def cotdg(xp, x: Array, /):
    _real(xp, "cotdg", x)
    out = _tancot(xp, x, cot=True)
    return out, (x, out)


_P64800 = 4.848136811095359935899141023579479759563533023727e-6  # one arc second in radians

_radian_vjp, _radian_jvp = _nary_rules(
    ("d", "m", "s"),
    lambda xp, d, m, s: xp.full_like(d, 3600.0 * _P64800),
    lambda xp, d, m, s: xp.full_like(m, 60.0 * _P64800),
    lambda xp, d, m, s: xp.full_like(s, _P64800))


@op("special.radian", module=_M, section="torch", dtypes="real floating", floating=True,
    promote=("d", "m", "s"), torch_name=None, vjp=_radian_vjp, jvp=_radian_jvp, doc=_doc(
        "An angle in degrees, arc minutes and arc seconds, in radians.",
        "``radian(d, m, s) = ((d * 60 + m) * 60 + s) * pi / 648000``.",
        "d, m, s : Tensor or Python scalar\n    Degrees, minutes and seconds (at least one a "
        "Tensor), broadcast together;\n    mixed kinds promote by PyTorch's element-wise rule.",
        _BCAST,
        "Cephes ``sindg.c``'s ``radian``, the same operations (equal to SciPy's values to the\n"
        "last bit). Derivatives the constants ``pi/180``, ``pi/10800``, ``pi/648000``.\n"
        "PyTorch has no ``radian``.",
        "SciPy ``scipy.special.radian``."))
def radian(xp, d: Array | float, m: Array | float, s: Array | float, /):
    _real(xp, "radian", d, m, s)
    return ((d * 60.0 + m) * 60.0 + s) * _P64800, (d, m, s)


# --- cosm1, exprel ---------------------------------------------------------------------------

_COSM1_COF = (4.7377507964246204691685E-14, -1.1470284843425359765671E-11,
              2.0876754287081521758361E-9, -2.7557319214999787979814E-7,
              2.4801587301570552304991E-5, -1.3888888888888872993737E-3,
              4.1666666666666666609054E-2)
_PI_4 = math.pi / 4.0

_cosm1_vjp, _cosm1_jvp = _unary_rules(lambda xp, x, out: -xp.sin(x))


@op("special.cosm1", module=_M, section="torch", dtypes="real floating", floating=True,
    torch_name=None, vjp=_cosm1_vjp, jvp=_cosm1_jvp, doc=_doc(
        "``cos(x) - 1``, accurate near 0 (``cosm1(1e-20) = -5e-41``).",
        "NaN at ``+-inf``.", _X, _SAME,
        "Cephes ``unity.c``: ``-x**2/2 + x**4 P(x**2)`` on ``[-pi/4, pi/4]``, ``cos(x) - 1``\n"
        "beyond (as SciPy: absolute accuracy only next to the other multiples of ``2 pi``).\n"
        "Equal to SciPy's values in float64 (the same operations); in float32 within 2e-7\n"
        "relative on ``[-pi/4, pi/4]``, 2.5e-7 absolute beyond. Derivative ``-sin(x)``.\n"
        "PyTorch has no ``cosm1``.",
        "SciPy ``scipy.special.cosm1``."))
def cosm1(xp, x: Array, /):
    _real(xp, "cosm1", x)
    small = xp.abs(x) <= _PI_4
    xs = xp.where(small, x, 0.0)
    xx = xs * xs
    near = -0.5 * xx + xx * xx * _polevl(xx, _COSM1_COF)
    return xp.where(small, near, xp.cos(x) - 1.0), (x, None)


# d/dx exprel(x) = sum_k (k + 1) x**k / (k + 2)!  for |x| < 1/2
_EXPREL_D = tuple((k + 1) / math.factorial(k + 2) for k in range(18))


def _exprel_deriv(xp, x, out):
    small = xp.abs(x) < 0.5
    xs = xp.where(small, x, 0.0)
    series = _series(xs, _EXPREL_D)
    mid_x = xp.where(small | (x > 700.0), 1.0, x)
    mid = (xp.exp(mid_x) * (mid_x - 1.0) + 1.0) / (mid_x * mid_x)
    big_x = xp.where(x > 700.0, x, 701.0)
    h = xp.exp(0.5 * big_x)  # e^x in two halves: finite as long as the derivative is
    big = h * (h * ((big_x - 1.0) / (big_x * big_x)))
    return xp.where(small, series, xp.where(x > 700.0, big, mid))


_exprel_vjp, _exprel_jvp = _unary_rules(_exprel_deriv)


@op("special.exprel", module=_M, section="torch", dtypes="real floating", floating=True,
    torch_name=None, vjp=_exprel_vjp, jvp=_exprel_jvp, doc=_doc(
        "The relative error exponential ``(exp(x) - 1) / x``, 1 at 0.",
        "``exprel(-inf) = 0``, ``inf`` beyond 717 (SciPy's cut-off) and at ``inf``.", _X,
        _SAME,
        "``expm1(x) / x`` (1 for ``|x| < 1e-16``), as SciPy. Relative error against SciPy\n"
        "below 1e-15 in float64. Derivative ``((x - 1) e^x + 1) / x**2``, its Taylor series\n"
        "for ``|x| < 1/2`` (1/2 at 0). PyTorch has no ``exprel``.",
        "SciPy ``scipy.special.exprel``."))
def exprel(xp, x: Array, /):
    _real(xp, "exprel", x)
    special = (xp.abs(x) < 1e-16) | (x > 717.0) | xp.isnan(x)
    xs = xp.where(special, 1.0, x)
    out = xp.expm1(xs) / xs
    if x.dtype == xp.float32:  # SciPy's float32 values are float64's: finite up to ~93
        xb = xp.where(x > 80.0, x, 80.0)
        h = xp.exp(0.5 * xb)
        out = xp.where(x > 80.0, h * (h / xb), out)
    out = xp.where(xp.abs(x) < 1e-16, 1.0, xp.where(x > 717.0, xp.inf, out))
    return xp.where(xp.isnan(x), x, out), (x, out)


# --- erfcx ------------------------------------------------------------------------------------

_ISPI = 1.0 / math.sqrt(math.pi)
# d/dx erfcx(x) = -1/(sqrt(pi) x**2) * sum_k (-1)**k (2k+1)!! / (2x**2)**k  (x -> inf)
_ERFCX_D = tuple((-1.0) ** k * math.prod(range(1, 2 * k + 2, 2)) for k in range(7))


def _erfcx_pos(xp, z):
    """``erfcx(z)`` for ``z >= 0`` (NaN and ``inf`` are the caller's)."""
    # [0, 1.25): exp(z**2) * erfc(z), fdlibm's erfc; z**2 < 1.6 costs nothing
    zs = xp.minimum(z, 1.25)
    near = xp.exp(zs * zs) * _erfc(xp, zs)
    # [1.25, 50): fdlibm's tail form erfc(z) = exp(-z**2 - 0.5625 + R/S) / z without exp(-z**2)
    zm = xp.minimum(xp.maximum(z, 1.25), 50.0)
    t = 1.0 / (zm * zm)
    ratio = xp.where(zm < 1 / 0.35, _poly(t, _RA) / _poly(t, _SA), _poly(t, _RB) / _poly(t, _SB))
    mid = xp.exp(ratio - 0.5625) / zm
    # [50, inf): the continued fraction of SciPy's (Faddeeva package), 1/(sqrt(pi) z) beyond 5e7
    zb = xp.minimum(xp.maximum(z, 50.0), 5e7)
    z2 = zb * zb
    far = _ISPI * (z2 * (z2 + 4.5) + 2.0) / (zb * (z2 * (z2 + 5.0) + 3.75))
    zh = xp.maximum(z, 5e7)
    huge = _ISPI / zh
    out = xp.where(z < 1.25, near, xp.where(z < 50.0, mid, xp.where(z > 5e7, huge, far)))
    return out


def _exp_sq(xp, x):
    """``exp(x**2)`` for ``|x| <= 28`` without the rounding of ``x**2`` (``_hi``'s split)."""
    a = xp.minimum(xp.abs(x), 28.0)
    hi = _hi(xp, a)
    return xp.exp(hi * hi) * xp.exp((a - hi) * (a + hi))


def _erfcx(xp, x):
    pos = _erfcx_pos(xp, xp.where(x >= 0, x, -x))
    # x < 0: 2 exp(x**2) - erfcx(-x); inf below -26.7 (SciPy's, where 2 exp(x**2) overflows)
    neg = 2.0 * _exp_sq(xp, xp.where((x < -26.7) | (x >= 0), 0.0, x)) - pos
    out = xp.where(x >= 0, pos, xp.where(x < -26.7, xp.inf, neg))
    out = xp.where(x == xp.inf, 0.0, out)
    return xp.where(xp.isnan(x), x, out)


def _erfcx_deriv(xp, x, out):
    # 2 x erfcx(x) - 2/sqrt(pi) (PyTorch's); its asymptotic series beyond 50, where that
    # difference cancels
    xb = xp.where(x > 50.0, x, 50.0)
    r = 1.0 / (2.0 * xb * xb)
    series = (-_ISPI / (xb * xb)) * _series(r, _ERFCX_D)
    return xp.where(x > 50.0, series, 2.0 * x * out - 2.0 * _ISPI)


_erfcx_vjp, _erfcx_jvp = _unary_rules(_erfcx_deriv)


@op("special.erfcx", module=_M, section="torch", dtypes="real floating", floating=True,
    torch_name="special.erfcx", vjp=_erfcx_vjp, jvp=_erfcx_jvp, doc=_doc(
        "The scaled complementary error function ``erfcx(x) = exp(x**2) * erfc(x)``.",
        "Finite where ``erfc`` underflows (``erfcx(1e10) ~ 5.6e-11``); ``erfcx(inf) = 0``,\n"
        "``inf`` below -26.7 (SciPy's cut-off) and at ``-inf``.", _X, _SAME,
        "For ``x >= 0``: ``exp(x**2) erfc(x)`` below 1.25, fdlibm's tail form\n"
        "``exp(-0.5625 + R(1/x**2)/S(1/x**2)) / x`` (``erfc`` without its ``exp(-x**2)``)\n"
        "up to 50, SciPy's continued fraction (Faddeeva package) beyond; for ``x < 0``:\n"
        "``2 exp(x**2) - erfcx(-x)``, ``x**2`` split so that it is not rounded. Relative\n"
        "error against SciPy below 1e-15 for ``x >= 0`` and 1e-13 below, where SciPy rounds\n"
        "``x*x`` in its ``2 exp(x*x)`` (6e-14 at -26; against mpmath this is within 2e-15).\n"
        "Derivative\n"
        "``2 x erfcx(x) - 2/sqrt(pi)`` (PyTorch's), its asymptotic series beyond 50 where\n"
        "that difference cancels.",
        "SciPy ``scipy.special.erfcx``; PyTorch ``torch.special.erfcx``."))
def erfcx(xp, x: Array, /):
    _real(xp, "erfcx", x)
    out = _erfcx(xp, x)
    return out, (x, out)


# --- Box-Cox transformations ------------------------------------------------------------------

_BOXCOX_TINY = 1e-19  # SciPy: |lmbda| below this is lmbda = 0
# g(t) = (t e^t - expm1(t)) / t**2 = sum_k (k + 1) t**k / (k + 2)!  (= _EXPREL_D)


def _boxcox_core(xp, lg, lam, tiny):
    """SciPy's ``boxcox`` on ``lg = log(x)`` (or ``log1p(x)``), ``tiny`` where it returns
    ``lg``: ``expm1(lam lg) / lam``, or ``sign(lam) exp(lam lg - log|lam|) - 1/lam`` where
    ``lam lg >= 709.78``."""
    ls = xp.where(tiny, 1.0, lam)
    t = ls * lg
    cut = 88.72 if t.dtype == xp.float32 else 709.78  # where exp overflows
    mid = t < cut
    tm = xp.where(mid, t, 0.0)
    val_mid = xp.expm1(tm) / ls
    tb = xp.where(mid, xp.log(xp.abs(ls)), t)  # exp(0) in the unused lanes
    val_big = _sign1(xp, ls) * xp.exp(tb - xp.log(xp.abs(ls))) - 1.0 / ls
    # NaN in t (lg or lam NaN) goes to val_big, which is NaN then
    return xp.where(tiny, lg, xp.where(mid, val_mid, val_big))


def _boxcox_dlam(xp, lg, lam, value):
    """d/dlam of ``expm1(lam lg) / lam`` = ``lg**2 g(lam lg)``, ``g`` from its Taylor series
    for ``|lam lg| < 1/2``, ``(lg e^t - value) / lam`` beyond (``e^t / lam`` in logs)."""
    t = lam * lg
    small = xp.abs(t) < 0.5
    ts = xp.where(small, t, 0.0)
    lgs = xp.where(small, lg, 0.0)
    series = lgs * lgs * _series(ts, _EXPREL_D)
    ls = xp.where(small | (lam == 0), 1.0, lam)
    tl = xp.where(small, 0.0, t)
    e_over_l = _sign1(xp, ls) * xp.exp(tl - xp.log(xp.abs(ls)))
    big = lg * e_over_l - xp.where(small, 0.0, value) / ls
    return xp.where(small, series, big)


def _boxcox_value(xp, x, lam):
    lg = xp.log(x)
    return _boxcox_core(xp, lg, lam, xp.abs(lam) < _BOXCOX_TINY), lg


def _boxcox1p_value(xp, x, lam):
    lg = xp.log1p(x)
    tiny = (xp.abs(lam) < _BOXCOX_TINY) | ((xp.abs(lg) < 1e-289) & (xp.abs(lam) < 1e273))
    return _boxcox_core(xp, lg, lam, tiny), lg


def _boxcox_dx(xp, x, lam, shift):
    base = x + 1.0 if shift else x
    d = xp.pow(base, lam - 1.0)
    return xp.where(base < 0, xp.nan, d)


def _boxcox_dl(xp, x, lam, shift):
    value, lg = (_boxcox1p_value if shift else _boxcox_value)(xp, x, lam)
    d = _boxcox_dlam(xp, lg, lam, value)
    # at x = 0 (x = -1 for boxcox1p), lg = -inf: the value is -1/lam for lam > 0
    base = x + 1.0 if shift else x
    ls = xp.where(lam > 0, lam, 1.0)
    return xp.where(base == 0, xp.where(lam > 0, 1.0 / (ls * ls), xp.nan), d)


_boxcox_vjp, _boxcox_jvp = _nary_rules(
    ("x", "lmbda"),
    lambda xp, x, lam: _boxcox_dx(xp, x, lam, False),
    lambda xp, x, lam: _boxcox_dl(xp, x, lam, False))

_LMBDA = ("x : Tensor or Python scalar\n    The data (at least one operand a Tensor).\n"
          "lmbda : Tensor or Python scalar\n    The power parameter, broadcast with ``x``; "
          "mixed kinds promote by PyTorch's\n    element-wise rule.")
_BOXCOX_NOTES = (
    "SciPy's formulas: ``lmbda`` with ``|lmbda| < 1e-19`` is taken as 0, ``expm1(lmbda *\n"
    "L) / lmbda`` (``L = {L}``), and ``sign(lmbda) exp(lmbda L - log|lmbda|) - 1/lmbda``\n"
    "where ``lmbda L >= 709.78``. Relative error against SciPy below 4e-15 in float64 for\n"
    "``|lmbda L| <= 10``; beyond, the last-bit differences of NumPy's and the C library's\n"
    "``log``/``expm1`` are amplified by ``|lmbda L|`` (1.2e-13 near overflow)\n"
    "(``tests/test_special_elementary.py``). Derivatives ``d/dx = {DX}`` and\n"
    "``d/dlmbda = L**2 g(lmbda L)``, ``g(t) = (t e^t - expm1(t)) / t**2`` (its Taylor series\n"
    "for ``|t| < 1/2``: ``L**2 / 2`` at ``lmbda = 0``). PyTorch has no ``{NAME}``.")


@op("special.boxcox", module=_M, section="torch", dtypes="real floating", floating=True,
    promote=("x", "lmbda"), torch_name=None, vjp=_boxcox_vjp, jvp=_boxcox_jvp, doc=_doc(
        "The Box-Cox transformation ``(x**lmbda - 1) / lmbda``, ``log(x)`` at ``lmbda = 0``.",
        "NaN for ``x < 0``; at ``x = 0``: ``-1/lmbda`` for ``lmbda > 0``, ``-inf`` otherwise.",
        _LMBDA, _BCAST,
        _BOXCOX_NOTES.format(L="log(x)", DX="x**(lmbda - 1)", NAME="boxcox"),
        "SciPy ``scipy.special.boxcox``."))
def boxcox(xp, x: Array | float, lmbda: Array | float, /):
    _real(xp, "boxcox", x, lmbda)
    xa, la = _arrays(xp, x, lmbda)
    return _boxcox_value(xp, xa, la)[0], (x, lmbda)


_boxcox1p_vjp, _boxcox1p_jvp = _nary_rules(
    ("x", "lmbda"),
    lambda xp, x, lam: _boxcox_dx(xp, x, lam, True),
    lambda xp, x, lam: _boxcox_dl(xp, x, lam, True))


@op("special.boxcox1p", module=_M, section="torch", dtypes="real floating", floating=True,
    promote=("x", "lmbda"), torch_name=None, vjp=_boxcox1p_vjp, jvp=_boxcox1p_jvp, doc=_doc(
        "The Box-Cox transformation of ``1 + x``: ``((1 + x)**lmbda - 1) / lmbda``.",
        "``log1p(x)`` at ``lmbda = 0``, accurate for small ``x``; NaN for ``x < -1``.",
        _LMBDA, _BCAST,
        _BOXCOX_NOTES.format(L="log1p(x)", DX="(1 + x)**(lmbda - 1)", NAME="boxcox1p")
        + "\nAs SciPy, ``log1p(x)`` itself where it is below 1e-289 (and ``|lmbda| < 1e273``).",
        "SciPy ``scipy.special.boxcox1p``."))
def boxcox1p(xp, x: Array | float, lmbda: Array | float, /):
    _real(xp, "boxcox1p", x, lmbda)
    xa, la = _arrays(xp, x, lmbda)
    return _boxcox1p_value(xp, xa, la)[0], (x, lmbda)


def _inv_boxcox_log(xp, y, lam):
    """``log(inv_boxcox(y, lam))`` by SciPy's cases: ``y`` at ``lam == 0``,
    ``log1p(lam y) / lam``, and ``(log(sign(lam) (y + 1/lam)) + log|lam|) / lam`` where
    ``lam y >= 1.79e308``."""
    zero = lam == 0
    ls = xp.where(zero, 1.0, lam)
    u = ls * y
    mid = u < 1.79e308
    um = xp.where(mid, u, 0.0)
    v_mid = xp.log1p(um) / ls
    yb = xp.where(mid, 1.0, y)
    v_big = (xp.log(_sign1(xp, ls) * (yb + 1.0 / ls)) + xp.log(xp.abs(ls))) / ls
    return xp.where(zero, y, xp.where(mid, v_mid, v_big))


# h(u) = d/du (log1p(u) / u) = sum_k (-1)**k k u**(k-1) / (k + 1), k >= 1
_INV_BOXCOX_H = tuple((-1.0) ** k * k / (k + 1) for k in range(1, 20))


def _inv_boxcox_dlog(xp, y, lam):
    """``(d/dy, d/dlam)`` of ``log(inv_boxcox(y, lam))`` = ``log1p(lam y) / lam``:
    ``1 / (1 + lam y)`` and ``y**2 h(lam y)`` (Taylor series for ``|lam y| < 0.1``,
    ``(y / (1 + u) - log1p(u) / lam) / lam`` beyond)."""
    u = lam * y
    small = xp.abs(u) < 0.1
    us = xp.where(small, u, 0.0)
    series = y * y * _series(us, _INV_BOXCOX_H)
    ls = xp.where(small, 1.0, lam)
    ub = xp.where(small, 0.0, u)
    big = (y / (1.0 + ub) - xp.log1p(ub) / ls) / ls
    return 1.0 / (1.0 + u), xp.where(small, series, big)


def _inv_boxcox_partials(shift):
    def dy(xp, y, lam):
        e = xp.exp(_inv_boxcox_log(xp, y, lam))
        return e * _inv_boxcox_dlog(xp, y, lam)[0]

    def dl(xp, y, lam):
        e = xp.exp(_inv_boxcox_log(xp, y, lam))
        return e * _inv_boxcox_dlog(xp, y, lam)[1]
    return dy, dl


_inv_boxcox_vjp, _inv_boxcox_jvp = _nary_rules(("y", "lmbda"), *_inv_boxcox_partials(False))

_INV = ("y : Tensor or Python scalar\n    The transformed data (at least one operand a "
        "Tensor).\nlmbda : Tensor or Python scalar\n    The power parameter, broadcast with "
        "``y``; mixed kinds promote by PyTorch's\n    element-wise rule.")
_INV_NOTES = (
    "SciPy's formulas: ``{F}(log1p(lmbda y) / lmbda)`` ({ZERO} at ``lmbda == 0``), in logs\n"
    "where ``lmbda y >= 1.79e308``. Relative error against SciPy below 4e-15 in float64\n"
    "while the result is within ``[1e-10, 1e10]``; beyond, last-bit differences of ``log1p``\n"
    "are amplified by the exponent (1.2e-13 near overflow).\n"
    "Derivatives ``d/dy = (1 + lmbda y)**(1/lmbda - 1)`` and ``d/dlmbda = (1 + lmbda\n"
    "y)**(1/lmbda) * y**2 h(lmbda y)``, ``h(u) = (u/(1 + u) - log1p(u)) / u**2`` (its Taylor\n"
    "series for ``|u| < 0.1``: ``-y**2 e**y / 2`` at ``lmbda = 0``). PyTorch has no\n"
    "``{NAME}``.")


@op("special.inv_boxcox", module=_M, section="torch", dtypes="real floating", floating=True,
    promote=("y", "lmbda"), torch_name=None, vjp=_inv_boxcox_vjp, jvp=_inv_boxcox_jvp,
    doc=_doc(
        "Inverse of :func:`boxcox`: ``(1 + lmbda y)**(1/lmbda)``, ``exp(y)`` at ``lmbda = 0``.",
        "NaN where ``1 + lmbda y < 0``.", _INV, _BCAST,
        _INV_NOTES.format(F="exp", ZERO="``exp(y)``", NAME="inv_boxcox"),
        "SciPy ``scipy.special.inv_boxcox``."))
def inv_boxcox(xp, y: Array | float, lmbda: Array | float, /):
    _real(xp, "inv_boxcox", y, lmbda)
    ya, la = _arrays(xp, y, lmbda)
    return xp.exp(_inv_boxcox_log(xp, ya, la)), (y, lmbda)


_inv_boxcox1p_vjp, _inv_boxcox1p_jvp = _nary_rules(("y", "lmbda"), *_inv_boxcox_partials(True))


@op("special.inv_boxcox1p", module=_M, section="torch", dtypes="real floating",
    floating=True, promote=("y", "lmbda"), torch_name=None, vjp=_inv_boxcox1p_vjp,
    jvp=_inv_boxcox1p_jvp, doc=_doc(
        "Inverse of :func:`boxcox1p`: ``(1 + lmbda y)**(1/lmbda) - 1``.",
        "``expm1(y)`` at ``lmbda = 0``; NaN where ``1 + lmbda y < 0``.", _INV, _BCAST,
        _INV_NOTES.format(F="expm1", ZERO="``expm1(y)``", NAME="inv_boxcox1p")
        + "\nAs SciPy, ``y`` itself where ``|lmbda y| < 1e-154`` (also when ``lmbda`` is tiny\n"
        "and ``y`` is not, where the value should be ``expm1(y)``: SciPy's value is kept;\n"
        "the derivatives are those of the function).",
        "SciPy ``scipy.special.inv_boxcox1p``."))
def inv_boxcox1p(xp, y: Array | float, lmbda: Array | float, /):
    _real(xp, "inv_boxcox1p", y, lmbda)
    ya, la = _arrays(xp, y, lmbda)
    out = xp.expm1(_inv_boxcox_log(xp, ya, la))
    out = xp.where((xp.abs(la * ya) < 1e-154) & (la != 0), ya, out)
    return out, (y, lmbda)


# --- huber, pseudo_huber, kl_div ---------------------------------------------------------------

def _huber_dd(xp, delta, r):
    a = xp.abs(r)
    return xp.where(delta < 0, xp.nan, xp.where(a <= delta, xp.zeros_like(a), a - delta))


def _huber_dr(xp, delta, r):
    return xp.where(delta < 0, xp.nan, xp.where(xp.abs(r) <= delta, r, delta * xp.sign(r)))


_huber_vjp, _huber_jvp = _nary_rules(("delta", "r"), _huber_dd, _huber_dr)

_DR = ("delta : Tensor or Python scalar\n    The threshold (at least one operand a Tensor).\n"
       "r : Tensor or Python scalar\n    The residuals, broadcast with ``delta``; mixed kinds "
       "promote by PyTorch's\n    element-wise rule.")


@op("special.huber", module=_M, section="torch", dtypes="real floating", floating=True,
    promote=("delta", "r"), torch_name=None, vjp=_huber_vjp, jvp=_huber_jvp, doc=_doc(
        "Huber loss: ``r**2 / 2`` for ``|r| <= delta``, ``delta (|r| - delta/2)`` beyond.",
        "``inf`` for ``delta < 0`` (SciPy's value).", _DR, _BCAST,
        "SciPy's formula (equal to its values to the last bit). Derivatives ``d/dr = r``\n"
        "(``|r| <= delta``) or ``delta sign(r)``, ``d/ddelta = 0`` or ``|r| - delta``: both\n"
        "continuous at ``|r| = delta``; NaN for ``delta < 0``. PyTorch's\n"
        "``nn.functional.huber_loss`` computes the same values, but with a Python-float\n"
        "``delta`` (no gradient) and a reduction: not this function.",
        "SciPy ``scipy.special.huber``."))
def huber(xp, delta: Array | float, r: Array | float, /):
    _real(xp, "huber", delta, r)
    da, ra = _arrays(xp, delta, r)
    a = xp.abs(ra)
    out = xp.where(a <= da, 0.5 * ra * ra, da * (a - 0.5 * da))
    return xp.where(da < 0, xp.inf, out), (delta, r)


def _ph_parts(xp, delta, r):
    """``(ok, v, q)`` of pseudo_huber: where the formula applies, ``v = r/delta`` (0 elsewhere)
    and ``q = sqrt(1 + v**2) / max(1, |v|)`` (no overflow)."""
    ok = (delta > 0) & (r != 0)
    ds = xp.where(ok, delta, 1.0)
    v = xp.where(ok, r, 0.0) / ds
    m = xp.maximum(xp.abs(v), 1.0)
    q = xp.sqrt((1.0 / m) ** 2 + (v / m) ** 2)
    return ok, ds, v, m, q


def _ph_dr(xp, delta, r):
    # r / sqrt(1 + (r/delta)**2) = delta * (v/m) / q
    ok, ds, v, m, q = _ph_parts(xp, delta, r)
    d = ds * (v / m) / q
    return xp.where(delta < 0, xp.nan, xp.where(ok, d, xp.zeros_like(d)))


def _ph_dd(xp, delta, r):
    # delta (sqrt(1 + v**2) - 1)**2 / sqrt(1 + v**2), from expm1 for |v| <= 1
    ok, ds, v, m, q = _ph_parts(xp, delta, r)
    vs = xp.where(xp.abs(v) <= 1.0, v, 0.0)
    qm1 = xp.expm1(0.5 * xp.log1p(vs * vs))
    small = ds * qm1 * qm1 / (1.0 + qm1)
    big = ds * (m * q) * (1.0 - 1.0 / (m * q)) ** 2
    d = xp.where(xp.abs(v) <= 1.0, small, big)
    # delta = 0 (r != 0): the right derivative |r|; r = 0: 0
    d = xp.where(ok, d, xp.where((delta == 0) & (r != 0), xp.abs(r), xp.zeros_like(d)))
    return xp.where(delta < 0, xp.nan, d)


_pseudo_huber_vjp, _pseudo_huber_jvp = _nary_rules(("delta", "r"), _ph_dd, _ph_dr)


@op("special.pseudo_huber", module=_M, section="torch", dtypes="real floating",
    floating=True, promote=("delta", "r"), torch_name=None, vjp=_pseudo_huber_vjp,
    jvp=_pseudo_huber_jvp, doc=_doc(
        "Pseudo-Huber loss ``delta**2 (sqrt(1 + (r/delta)**2) - 1)``.",
        "0 where ``delta == 0`` or ``r == 0``, ``inf`` for ``delta < 0`` (SciPy's values).",
        _DR, _BCAST,
        "SciPy's formula ``delta**2 expm1(log1p((r/delta)**2) / 2)``: within 2e-15 of its\n"
        "values for ``|r/delta| <= 1e4``, up to 6e-14 for huge ``|r/delta|`` (last-bit\n"
        "differences of ``log1p`` amplified by ``expm1``). Derivatives\n"
        "``d/dr = r / sqrt(1 + (r/delta)**2)`` and ``d/ddelta =\n"
        "delta (s - 1)**2 / s``, ``s = sqrt(1 + (r/delta)**2)``, written so that neither\n"
        "overflows; at ``delta = 0`` the right derivatives 0 and ``|r|``; NaN for\n"
        "``delta < 0``. PyTorch has no ``pseudo_huber``.",
        "SciPy ``scipy.special.pseudo_huber``."))
def pseudo_huber(xp, delta: Array | float, r: Array | float, /):
    _real(xp, "pseudo_huber", delta, r)
    da, ra = _arrays(xp, delta, r)
    zero = (da == 0) | (ra == 0)
    ds = xp.where(zero, 1.0, da)
    v = ra / ds
    out = ds * ds * xp.expm1(0.5 * xp.log1p(v * v))
    if out.dtype == xp.float32:  # SciPy's float32 values are float64's: no overflow of v**2
        far = xp.abs(v) > 1e15
        vf = xp.where(far, v, 1e15)
        out = xp.where(far, ds * (xp.abs(ra) * xp.sqrt(1.0 + (1.0 / vf) ** 2)) - ds * ds, out)
    out = xp.where(zero, xp.zeros_like(out), out)
    return xp.where(da < 0, xp.inf, out), (delta, r)


def _log_ratio(xp, x, y):
    """``log(x / y)`` for ``x, y > 0``: ``log1p((x - y)/y)`` near 1 (rel_entr's split),
    ``log(x) - log(y)`` where the ratio over- or underflows."""
    r = x / y
    near = (r > 0.5) & (r < 2.0)
    ok = (r > xp.finfo(r.dtype).smallest_normal) & (r < xp.inf)
    return xp.where(near, xp.log1p((x - y) / y),
                    xp.where(ok, xp.log(xp.where(ok, r, 1.0)), xp.log(x) - xp.log(y)))


def _kl_dx(xp, x, y):
    pos = (x > 0) & (y > 0)
    xs, ys = xp.where(pos, x, 1.0), xp.where(pos, y, 1.0)
    return xp.where(pos, _log_ratio(xp, xs, ys),
                    xp.where((x == 0) & (y >= 0), xp.full_like(xs, -xp.inf), xp.nan))


def _kl_dy(xp, x, y):
    pos = (x > 0) & (y > 0)
    xs, ys = xp.where(pos, x, 1.0), xp.where(pos, y, 1.0)
    return xp.where(pos, (ys - xs) / ys,
                    xp.where((x == 0) & (y >= 0), xp.ones_like(xs), xp.nan))


_kl_div_vjp, _kl_div_jvp = _nary_rules(("x", "y"), _kl_dx, _kl_dy)


@op("special.kl_div", module=_M, section="torch", dtypes="real floating", floating=True,
    promote=("x", "y"), torch_name=None, vjp=_kl_div_vjp, jvp=_kl_div_jvp, doc=_doc(
        "Elementwise Kullback-Leibler divergence ``x log(x / y) - x + y``.",
        "``y`` where ``x == 0`` and ``y >= 0``; ``inf`` elsewhere outside ``x, y > 0``; NaN\n"
        "where either is NaN (SciPy's conventions).",
        "x, y : Tensor or Python scalar\n    Real floating operands (at least one a Tensor), "
        "broadcast together;\n    mixed kinds promote by PyTorch's element-wise rule.",
        _BCAST,
        ":func:`rel_entr` ``- x + y``, so ``x log(x / y)`` keeps its accuracy near ``x = y``\n"
        "and where ``x / y`` over- or underflows (where SciPy's ``x * log(x / y)`` gives\n"
        "``+-inf``: ``kl_div(1e300, 1e-300)`` is ``1.38e303`` here, ``inf`` in SciPy).\n"
        "Elsewhere within ``1e-15 (|x| + |y|)`` of SciPy (its own rounding of ``-x + y``).\n"
        "Gradients ``log(x / y)`` and ``1 - x / y`` where ``x, y > 0``; ``-inf`` and 1 where\n"
        "``x == 0, y >= 0`` (the one-sided limits); NaN where the value is ``inf``. PyTorch's\n"
        "``kl_div`` takes log-probabilities and reduces: not this function.",
        "SciPy ``scipy.special.kl_div``."))
def kl_div(xp, x: Array | float, y: Array | float, /):
    _real(xp, "kl_div", x, y)
    xa, ya = _arrays(xp, x, y)
    re = _rel_entr_op.forward(xp, xa, ya)[0]
    pos = (xa > 0) & (ya > 0)
    out = xp.where(pos, re - xa + ya,
                   xp.where((xa == 0) & (ya >= 0), ya, xp.full_like(re, xp.inf)))
    return xp.where(xp.isnan(xa) | xp.isnan(ya), xp.nan, out), (x, y)
