"""Chebyshev coefficients of arrayflow.special's modified Bessel functions (i0, i0e, i1, i1e).

Interpolates, at Chebyshev points with 40-digit mpmath values, the smooth functions

- ``exp(-x) I0(x)`` and ``exp(-x) I1(x) / x`` of ``s = x/4 - 1`` for ``x`` in ``[0, 8]``;
- ``exp(-x) I0(x) sqrt(x)`` and ``exp(-x) I1(x) sqrt(x)`` of ``s = 16/x - 1`` for ``x >= 8``

(Cephes' split and scaling, S. L. Moshier), and prints the coefficients, trimmed where they
fall below 1e-18 of the leading one. Run: ``python tools/special_bessel_coefficients.py``.
"""

import textwrap

import mpmath
import numpy as np

mpmath.mp.dps = 40


def cheb(f, deg):
    k = np.arange(deg + 1)
    nodes = [mpmath.cos(mpmath.pi * (j + mpmath.mpf(1) / 2) / (deg + 1)) for j in k]
    vals = [f(s) for s in nodes]
    coeffs = []
    for m in k:
        c = sum(v * mpmath.cos(m * mpmath.pi * (j + mpmath.mpf(1) / 2) / (deg + 1))
                for j, v in zip(k, vals)) * 2 / (deg + 1)
        coeffs.append(c)
    coeffs[0] /= 2
    out = [float(c) for c in coeffs]
    big = abs(out[0])
    while abs(out[-1]) < 1e-18 * big:
        out.pop()
    return out


def near(order):
    def f(s):
        x = 4 * (s + 1)
        if order == 0:
            return mpmath.exp(-x) * mpmath.besseli(0, x)
        return mpmath.exp(-x) * (mpmath.besseli(1, x) / x if x else mpmath.mpf(1) / 2)
    return f


def far(order):
    def f(s):
        x = 16 / (s + 1)
        return mpmath.exp(-x) * mpmath.besseli(order, x) * mpmath.sqrt(x)
    return f


if __name__ == "__main__":
    for name, f, deg in [("_I0_NEAR", near(0), 40), ("_I1_NEAR", near(1), 40),
                         ("_I0_FAR", far(0), 60), ("_I1_FAR", far(1), 60)]:
        c = cheb(f, deg)
        body = textwrap.fill(", ".join(repr(v) for v in c), width=92,
                             initial_indent=" " * 4, subsequent_indent=" " * 4)
        print(f"{name} = (\n{body},\n)")
