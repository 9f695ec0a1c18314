"""Special functions, written once from standard element-wise operations.

``erf`` is not in the array API standard; it is built here from ``exp``,
arithmetic, ``where`` and ``copysign`` so that it runs on every backend.

The approximation is fdlibm's ``s_erf.c`` (Sun Microsystems, 1993; the
algorithm used by most C libraries): rational minimax approximations on
``[0, 0.84375)``, ``[0.84375, 1.25)``, ``[1.25, 1/0.35)`` and ``[1/0.35, 6)``,
and ``erf(x) = ±1`` beyond. Its error is below 1 ulp in float64.
"""

from __future__ import annotations

import math

from .._typing import Array
from ._registry import op

__all__ = ["erf"]

_ERX = 8.45062911510467529297e-01
_EFX = 1.28379167095512586316e-01
_PP = (1.28379167095512558561e-01, -3.25042107247001499370e-01, -2.84817495755985104766e-02,
       -5.77027029648944159157e-03, -2.37630166566501626084e-05)
_QQ = (1.0, 3.97917223959155352819e-01, 6.50222499887672944485e-02, 5.08130628187576562776e-03,
       1.32494738004321644526e-04, -3.96022827877536812320e-06)
_PA = (-2.36211856075265944077e-03, 4.14856118683748331666e-01, -3.72207876035701323847e-01,
       3.18346619901161753674e-01, -1.10894694282396677476e-01, 3.54783043256182359371e-02,
       -2.16637559486879084300e-03)
_QA = (1.0, 1.06420880400844228286e-01, 5.40397917702171048937e-01, 7.18286544141962662868e-02,
       1.26171219808761642112e-01, 1.36370839120290507362e-02, 1.19844998467991074170e-02)
_RA = (-9.86494403484714822705e-03, -6.93858572707181764372e-01, -1.05586262253232909814e+01,
       -6.23753324503260060396e+01, -1.62396669462573470355e+02, -1.84605092906711035994e+02,
       -8.12874355063065934246e+01, -9.81432934416914548592e+00)
_SA = (1.0, 1.96512716674392571292e+01, 1.37657754143519042600e+02, 4.34565877475229228821e+02,
       6.45387271733267880336e+02, 4.29008140027567833386e+02, 1.08635005541779435134e+02,
       6.57024977031928170135e+00, -6.04244152148580987438e-02)
_RB = (-9.86494292470009928597e-03, -7.99283237680523006574e-01, -1.77579549177547519889e+01,
       -1.60636384855821916062e+02, -6.37566443368389627722e+02, -1.02509513161107724954e+03,
       -4.83519191608651397019e+02)
_SB = (1.0, 3.03380607434824582924e+01, 3.25792512996573918826e+02, 1.53672958608443695994e+03,
       3.19985821950859553908e+03, 2.55305040643316442583e+03, 4.74528541206955367215e+02,
       -2.24409524465858183362e+01)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _poly(z, coeffs):
    """Horner evaluation of ``sum(c[i] * z**i)``."""
    acc = coeffs[-1] * z + coeffs[-2]
    for c in reversed(coeffs[:-2]):
        acc = acc * z + c
    return acc


def _erf(xp, x):
    ax = xp.abs(x)
    # [0, 0.84375): x + x * P(x^2) / Q(x^2)  (odd: computed on x keeps the sign of -0.0)
    # Each branch sees its inputs clamped to its own interval: no overflow in unused lanes.
    xs = xp.where(ax < 0.84375, x, 0.0)
    z = xs * xs
    small = xs + xs * (_poly(z, _PP) / _poly(z, _QQ))
    tiny = xs + _EFX * xs  # |x| < 2**-28
    # [0.84375, 1.25): erx + P(s) / Q(s), s = |x| - 1
    s = xp.minimum(ax, 1.25) - 1.0
    mid = _ERX + _poly(s, _PA) / _poly(s, _QA)
    # [1.25, 6): 1 - exp(-x^2 - 0.5625 + R(1/x^2) / S(1/x^2)) / |x|
    big = xp.minimum(xp.maximum(ax, 1.25), 6.0)
    t = 1.0 / (big * big)
    ratio = xp.where(big < 1 / 0.35, _poly(t, _RA) / _poly(t, _SA), _poly(t, _RB) / _poly(t, _SB))
    # hi: |x| rounded to 20 fraction bits (<= 23 significant bits: hi * hi is exact in float64)
    hi = xp.round(big * 1048576.0) / 1048576.0
    tail = xp.exp(-hi * hi - 0.5625) * xp.exp((hi - big) * (hi + big) + ratio) / big
    large = 1.0 - tail
    mag = xp.where(ax < 6.0, large, 1.0)
    mag = xp.where(ax < 1.25, mid, mag)
    mag = xp.copysign(mag, x)
    out = xp.where(ax < 0.84375, small, mag)
    out = xp.where(ax < 2.0 ** -28, tiny, out)
    return xp.where(xp.isnan(x), x, out)


@op("erf", section="torch", dtypes="real floating")
def erf(xp, x: Array, /):
    """The error function ``erf(x) = 2/sqrt(pi) * integral_0^x exp(-t**2) dt``.

    Parameters
    ----------
    x : Tensor
        Real floating input of any shape.

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; below 1 ulp of error in float64.

    Raises
    ------
    TypeError
        If ``x`` is not a Tensor.

    Notes
    -----
    Not an array API function: built from standard operations (fdlibm's
    rational approximations), so it runs on every backend. Its gradient is
    ``2/sqrt(pi) * exp(-x**2)``.

    Source: PyTorch ``torch.erf`` (``torch.special.erf``); SciPy ``special.erf``.
    """
    return _erf(xp, x), (x,)


@erf.defvjp
def _erf_vjp(xp, res, g):
    (x,) = res
    return (g * (_TWO_OVER_SQRT_PI * xp.exp(-(x * x))),)


@erf.defjvp
def _erf_jvp(xp, tangents, out, x):
    return tangents["x"] * (_TWO_OVER_SQRT_PI * xp.exp(-(x * x)))
