"""Element-wise functions of the array API standard (2025.12, "Element-wise Functions").

Each op's forward calls the backend namespace's function of the same name and
keeps its inputs (or output) as residuals for the VJP. Binary functions accept
one Python scalar operand, as the standard allows since 2024.12.
"""

from __future__ import annotations

import math

from ._registry import op

__all__: list[str] = []

# name -> (saves output instead of input, differentiable, docstring summary)
_UNARY = {
    "abs": "Absolute value |x|.",
    "acos": "Inverse cosine, in radians.",
    "acosh": "Inverse hyperbolic cosine.",
    "asin": "Inverse sine, in radians.",
    "asinh": "Inverse hyperbolic sine.",
    "atan": "Inverse tangent, in radians.",
    "atanh": "Inverse hyperbolic tangent.",
    "conj": "Complex conjugate.",
    "cos": "Cosine of x in radians.",
    "cosh": "Hyperbolic cosine.",
    "exp": "Exponential e**x.",
    "expm1": "exp(x) - 1, accurate for small x.",
    "imag": "Imaginary part of a complex array (real dtype of matching precision).",
    "log": "Natural logarithm.",
    "log1p": "log(1 + x), accurate for small x.",
    "log2": "Base-2 logarithm.",
    "log10": "Base-10 logarithm.",
    "negative": "Numerical negative -x.",
    "positive": "Numerical positive +x (a copy).",
    "real": "Real part of a complex array (real dtype of matching precision).",
    "reciprocal": "1 / x.",
    "sin": "Sine of x in radians.",
    "sinh": "Hyperbolic sine.",
    "sqrt": "Principal square root.",
    "square": "x ** 2.",
    "tan": "Tangent of x in radians.",
    "tanh": "Hyperbolic tangent.",
}
# Piecewise-constant functions: defined almost everywhere with zero derivative
# (PyTorch returns zero gradients for them); still differentiable ops.
_UNARY_ZERO_GRAD = {
    "ceil": "Smallest integer-valued number >= x (same dtype).",
    "floor": "Largest integer-valued number <= x (same dtype).",
    "round": "Round to the nearest integer-valued number, halves to even.",
    "sign": "Sign of x: -1, 0 or 1 (x/|x| for complex).",
    "trunc": "Round towards zero.",
}
_UNARY_NONDIFF = {
    "bitwise_invert": "Bitwise NOT of integer or boolean x.",
    "isfinite": "True where x is finite.",
    "isinf": "True where x is +inf or -inf.",
    "isnan": "True where x is NaN.",
    "logical_not": "Logical NOT of boolean x.",
    "signbit": "True where the sign bit of x is set (also for -0.0 and NaNs).",
}
_BINARY = {
    "add": "x1 + x2.",
    "atan2": "Angle of the point (x2, x1), in radians, in [-pi, pi].",
    "copysign": "|x1| with the sign of x2.",
    "divide": "True division x1 / x2 (floating result).",
    "hypot": "sqrt(x1**2 + x2**2) without undue overflow.",
    "logaddexp": "log(exp(x1) + exp(x2)), computed stably.",
    "maximum": "Element-wise maximum (NaN-propagating).",
    "minimum": "Element-wise minimum (NaN-propagating).",
    "multiply": "x1 * x2.",
    "pow": "x1 ** x2.",
    "subtract": "x1 - x2.",
}
_BINARY_ZERO_GRAD = {
    "floor_divide": "floor(x1 / x2).",
    "remainder": "x1 - floor_divide(x1, x2) * x2, with the sign of x2.",
    "nextafter": "The next representable value after x1 towards x2.",
}
_BINARY_NONDIFF = {
    "bitwise_and": "Bitwise AND.",
    "bitwise_left_shift": "x1 << x2.",
    "bitwise_or": "Bitwise OR.",
    "bitwise_right_shift": "x1 >> x2.",
    "bitwise_xor": "Bitwise XOR.",
    "equal": "x1 == x2 (boolean).",
    "greater": "x1 > x2 (boolean).",
    "greater_equal": "x1 >= x2 (boolean).",
    "less": "x1 < x2 (boolean).",
    "less_equal": "x1 <= x2 (boolean).",
    "logical_and": "Logical AND of booleans.",
    "logical_or": "Logical OR of booleans.",
    "logical_xor": "Logical XOR of booleans.",
    "not_equal": "x1 != x2 (boolean).",
}

_UNARY_DOC = """{summary}

Parameters
----------
x : Tensor
    Input of any shape.

Returns
-------
Tensor
    Same shape as ``x``; dtype by the standard's rules for ``{name}``.

Source: array API standard 2025.12, ``{name}``.
"""

_BINARY_DOC = """{summary}

Parameters
----------
x1, x2 : Tensor or Python scalar
    Broadcast against each other; at most one may be a Python scalar.

Returns
-------
Tensor
    Broadcast shape; dtype by the standard's type promotion rules.

Raises
------
BackendMismatchError
    If ``x1`` and ``x2`` are Tensors of different backends.

Source: array API standard 2025.12, ``{name}``.
"""


# Ops whose result is floating: integer and bool inputs compute in the default floating
# dtype, as PyTorch (``sqrt`` of an int64 Tensor is float32); mixed kinds of the binary
# ops follow PyTorch too (``Op.promote``; ``arrayflow._dtypes.result_type``).
_FLOATING = frozenset({
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp", "expm1", "log",
    "log1p", "log2", "log10", "reciprocal", "sin", "sinh", "sqrt", "tan", "tanh",
    "atan2", "divide", "hypot", "logaddexp", "copysign", "nextafter"})

# Unary ops whose VJP is cheapest from the output y (exp: g * y).
_SAVES_OUTPUT = frozenset({"exp", "expm1", "reciprocal", "sqrt", "tan", "tanh"})


# PyTorch's other spellings (arrayflow.ops.aliases collects them from the registry).
_ALIASES = {"multiply": ("mul",), "subtract": ("sub",), "divide": ("div", "true_divide"),
            "negative": ("neg",), "abs": ("absolute",), "acos": ("arccos",),
            "asin": ("arcsin",), "atan": ("arctan",), "atan2": ("arctan2",), "pow": ("power",)}


def _make_unary(name, summary, differentiable):
    if name in _SAVES_OUTPUT:
        def forward(xp, x, /):
            y = getattr(xp, name)(x)
            return y, (y,)
    elif differentiable:
        def forward(xp, x, /):
            return getattr(xp, name)(x), (x,)
    else:
        def forward(xp, x, /):
            return getattr(xp, name)(x)
    forward.__name__ = forward.__qualname__ = name
    return op(name, differentiable=differentiable, floating=name in _FLOATING,
              aliases=_ALIASES.get(name, ()), doc=_UNARY_DOC.format(summary=summary, name=name))(forward)


# Binary ops whose VJP needs only the operands' shapes (no arrays kept alive).
_SHAPES_ONLY = frozenset({"add", "subtract"})
# Ops whose VJP for one operand needs the other operand's values: (x1, x2, shape1, shape2).
_CROSS = frozenset({"multiply", "divide"})


def _make_binary(name, summary, differentiable):
    if name in _SHAPES_ONLY:
        def forward(xp, x1, x2, /):
            return getattr(xp, name)(x1, x2), (getattr(x1, "shape", None),
                                               getattr(x2, "shape", None))
    elif name in _CROSS:
        def forward(xp, x1, x2, /):
            return getattr(xp, name)(x1, x2), (x1, x2, getattr(x1, "shape", None),
                                               getattr(x2, "shape", None))
    elif differentiable:
        def forward(xp, x1, x2, /):
            return getattr(xp, name)(x1, x2), (x1, x2)
    else:
        def forward(xp, x1, x2, /):
            return getattr(xp, name)(x1, x2)
    forward.__name__ = forward.__qualname__ = name
    return op(name, differentiable=differentiable, floating=name in _FLOATING,
              promote=None if name.startswith("logical_") else ("x1", "x2"),
              aliases=_ALIASES.get(name, ()),
              doc=_BINARY_DOC.format(summary=summary, name=name))(forward)


for _table, _make, _diff in (
    (_UNARY, _make_unary, True),
    (_UNARY_ZERO_GRAD, _make_unary, True),
    (_UNARY_NONDIFF, _make_unary, False),
    (_BINARY, _make_binary, True),
    (_BINARY_ZERO_GRAD, _make_binary, True),
    (_BINARY_NONDIFF, _make_binary, False),
):
    for _name, _summary in _table.items():
        globals()[_name] = _make(_name, _summary, _diff)
        __all__.append(_name)


@op("clip", promote=("x", "min", "max"), aliases=("clamp",))
def clip(xp, x, /, min=None, max=None):
    """Clamp each element of ``x`` to ``[min, max]``.

    Parameters
    ----------
    x : Tensor
        Real-valued input.
    min, max : Tensor, Python scalar or None
        Bounds broadcast against ``x``; None leaves that side unbounded.

    Returns
    -------
    Tensor
        Shape and dtype of ``x``.

    Source: array API standard 2025.12, ``clip`` (PyTorch ``clamp``).
    """
    return xp.clip(x, min, max), (x, min, max)


__all__.append("clip")


# --- VJPs ------------------------------------------------------------------------------------
# Each rule gets the namespace ``xp``, the residuals the forward kept, and the output
# gradient; it returns one gradient per positional input. Only operators and standard
# functions, so ``create_graph=True`` differentiates the rules themselves.

from ._vjp_util import cj as _cj  # noqa: E402
from ._vjp_util import is_array as _is_array  # noqa: E402
from ._vjp_util import is_complex as _is_complex  # noqa: E402
from ._vjp_util import mark_complex_ok as _mark_complex_ok  # noqa: E402
from ._vjp_util import sum_to_shape as _sum_to  # noqa: E402


def _u(name, save_output=False):
    """Register the VJP of unary op ``name``: ``fn(xp, x, g)`` (``fn(xp, y, g)`` for ops
    in ``_SAVES_OUTPUT``) returns the input gradient."""
    assert save_output == (name in _SAVES_OUTPUT), name
    o = globals()[name]

    def deco(fn):
        o.defvjp(lambda xp, res, g: (fn(xp, res[0], g),))
        return fn
    return deco


# Holomorphic functions: g * conj(f'(z)) (``_cj`` is free for real arrays).
_u("abs")(lambda xp, x, g: g * xp.sign(x))  # sgn(z) = z/|z| for complex; 0 at 0 (PyTorch)
_u("acos")(lambda xp, x, g: -g / _cj(xp, xp.sqrt(1 - x * x)))
_u("acosh")(lambda xp, x, g: g / (xp.conj(xp.sqrt(x - 1) * xp.sqrt(x + 1))  # the branch
                                   if _is_complex(xp, x) else xp.sqrt((x - 1) * (x + 1))))
_u("asin")(lambda xp, x, g: g / _cj(xp, xp.sqrt(1 - x * x)))
_u("asinh")(lambda xp, x, g: g / _cj(xp, xp.sqrt(x * x + 1)))
_u("atan")(lambda xp, x, g: g / _cj(xp, 1 + x * x))
_u("atanh")(lambda xp, x, g: g / _cj(xp, 1 - x * x))
_u("conj")(lambda xp, x, g: _cj(xp, g))
_u("cos")(lambda xp, x, g: -g * _cj(xp, xp.sin(x)))
_u("cosh")(lambda xp, x, g: g * _cj(xp, xp.sinh(x)))
_u("exp", save_output=True)(lambda xp, y, g: g * _cj(xp, y))
_u("expm1", save_output=True)(lambda xp, y, g: g * _cj(xp, y + 1))
_u("log")(lambda xp, x, g: g / _cj(xp, x))
_u("log1p")(lambda xp, x, g: g / _cj(xp, 1 + x))
_u("log2")(lambda xp, x, g: g / _cj(xp, x * 0.6931471805599453))
_u("log10")(lambda xp, x, g: g / _cj(xp, x * 2.302585092994046))
_u("negative")(lambda xp, x, g: -g)
_u("positive")(lambda xp, x, g: g)
_u("reciprocal", save_output=True)(lambda xp, y, g: -g * _cj(xp, y * y))
_u("sin")(lambda xp, x, g: g * _cj(xp, xp.cos(x)))
_u("sinh")(lambda xp, x, g: g * _cj(xp, xp.cosh(x)))
_u("sqrt", save_output=True)(lambda xp, y, g: g / (2 * _cj(xp, y)))
_u("square")(lambda xp, x, g: 2 * _cj(xp, x) * g)
_u("tan", save_output=True)(lambda xp, y, g: g * _cj(xp, 1 + y * y))
_u("tanh", save_output=True)(lambda xp, y, g: g * _cj(xp, 1 - y * y))
for _name in _UNARY_ZERO_GRAD:  # piecewise constant: zero gradient, as PyTorch
    if _name != "sign":
        _u(_name)(lambda xp, x, g: xp.zeros_like(g))


@_u("real")
def _real_vjp(xp, x, g):
    # z -> re z: the gradient g lands on the real part (PyTorch: g + 0j).
    return xp.astype(g, x.dtype) if _is_complex(xp, x) else g


@_u("imag")
def _imag_vjp(xp, x, g):
    # z -> im z: the gradient g lands on the imaginary part (PyTorch: 1j * g). A real
    # input has imag(x) == 0 whatever x is.
    if _is_complex(xp, x):
        return xp.astype(g, x.dtype) * 1j
    return xp.zeros_like(g)


@_u("sign")
def _sign_vjp(xp, x, g):
    # Real: piecewise constant, zero gradient. Complex: sgn(z) = z/|z| depends on the angle
    # only; PyTorch's sgn_backward keeps the part of g orthogonal to sgn(z), over |z|
    # (0 at z == 0).
    if not _is_complex(xp, x):
        return xp.zeros_like(g)
    r = xp.abs(x)
    zero = r == 0
    s = xp.sign(x)
    orth = g - xp.real(g * xp.conj(s)) * s
    return xp.where(zero, xp.zeros_like(g), orth / xp.where(zero, xp.ones_like(r), r))


def _b(name):
    """Register the VJP of binary op ``name``: ``fn(xp, x1, x2, g) -> (g1, g2)``.

    Gradients are summed back to each operand's shape; Python scalars get None.
    """
    o = globals()[name]

    def deco(fn):
        def vjp(xp, res, g):
            x1, x2 = res
            g1, g2 = fn(xp, x1, x2, g)
            if g1 is None and g2 is None:
                return None, None
            return (_sum_to(xp, g1, x1.shape) if _is_array(x1) and g1 is not None else None,
                    _sum_to(xp, g2, x2.shape) if _is_array(x2) and g2 is not None else None)
        o.defvjp(vjp)
        return fn
    return deco


def _extremum_vjp(xp, x1, x2, g, sign):
    """PyTorch's maximum (sign 1) / minimum (sign -1) rule: the winner gets g, ties split it,
    and where either operand is NaN (no comparison holds) both get g."""
    zero = xp.zeros((), dtype=g.dtype)
    share = xp.where(x1 == x2, g * 0.5, g)
    lose1, lose2 = (x1 < x2, x1 > x2) if sign > 0 else (x1 > x2, x1 < x2)
    g1 = xp.where(lose1, zero, share)
    return g1, xp.where(lose2, zero, share) if _is_array(x2) else None


# The table-made ops used by name below (explicit, so linters see them).
add, subtract, multiply, divide = (globals()[n] for n in ("add", "subtract", "multiply",
                                                           "divide"))


@add.defvjp
def _add_vjp(xp, res, g):
    s1, s2 = res
    return _sum_to(xp, g, s1), _sum_to(xp, g, s2)


@subtract.defvjp
def _subtract_vjp(xp, res, g):
    s1, s2 = res
    return _sum_to(xp, g, s1), (None if s2 is None else _sum_to(xp, -g, s2))


# Residual k is only kept when a gradient that needs it is wanted (PyTorch saves ``other``
# for ``self``'s gradient only): less memory, and ``y *= 2`` does not trip version checks.
multiply.res_needs = {0: {1}, 1: {0}}
divide.res_needs = {0: {1}}


@multiply.defvjp
def _multiply_vjp(xp, res, g, needs=(0, 1)):
    x1, x2, s1, s2 = res
    return (_sum_to(xp, g * _cj(xp, x2), s1) if 0 in needs and s1 is not None else None,
            _sum_to(xp, g * _cj(xp, x1), s2) if 1 in needs and s2 is not None else None)


@divide.defvjp
def _divide_vjp(xp, res, g, needs=(0, 1)):
    # PyTorch: g / conj(x2) and -g * conj((x1 / x2) / x2) (the same NaN/inf at x2 == 0).
    x1, x2, s1, s2 = res
    return (_sum_to(xp, g / _cj(xp, x2), s1) if 0 in needs and s1 is not None else None,
            _sum_to(xp, -g * _cj(xp, (x1 / x2) / x2), s2)
            if 1 in needs and s2 is not None else None)


@_b("atan2")
def _atan2_vjp(xp, x1, x2, g):
    # 1 / (x1**2 + x2**2), with 0 where it is infinite: PyTorch's finite 0 at (0, 0).
    d = x1 * x1 + x2 * x2
    zero = d == 0
    r = xp.where(zero, xp.zeros_like(d), 1 / xp.where(zero, xp.ones_like(d), d))
    return g * x2 * r, -g * x1 * r


_b("hypot")(lambda xp, x1, x2, g: (g * x1 / xp.hypot(x1, x2), g * x2 / xp.hypot(x1, x2)))
_b("logaddexp")(lambda xp, x1, x2, g: (g * xp.exp(x1 - xp.logaddexp(x1, x2)),
                                        g * xp.exp(x2 - xp.logaddexp(x1, x2))))
_b("maximum")(lambda xp, x1, x2, g: _extremum_vjp(xp, x1, x2, g, 1))
_b("minimum")(lambda xp, x1, x2, g: _extremum_vjp(xp, x1, x2, g, -1))
_b("floor_divide")(lambda xp, x1, x2, g: (xp.zeros_like(g), xp.zeros_like(g)))
_b("nextafter")(lambda xp, x1, x2, g: (g, xp.zeros_like(g)))  # one ulp step: slope 1
_b("remainder")(lambda xp, x1, x2, g: (g, -g * xp.floor_divide(x1, x2)))


@_b("copysign")
def _copysign_vjp(xp, x1, x2, g):
    # d|x1|*s(x2)/dx1 = sign(x1) * s(x2); 0 at x1 == 0 (PyTorch).
    y = xp.copysign(x1, x2)
    ratio = xp.where(x1 == 0, xp.zeros_like(g), y / xp.where(x1 == 0, xp.ones_like(g), x1))
    return g * ratio, xp.zeros_like(g)


def _nonneg_exponent(xp, x2):
    """``x2 >= 0`` (real ``x2``) or ``re x2 >= 0 and im x2 == 0`` (complex), as PyTorch."""
    if not _is_array(x2):
        return complex(x2).real >= 0 and complex(x2).imag == 0
    if _is_complex(xp, x2):
        return (xp.real(x2) >= 0) & (xp.imag(x2) == 0)
    return x2 >= 0


@_b("pow")
def _pow_vjp(xp, x1, x2, g):
    # PyTorch: d/dx1 = conj(x2 * x1**(x2-1)), 0 where x2 == 0;
    #          d/dx2 = conj(x1**x2 * log(x1)), 0 where x1 == 0 and x2 >= 0 (else log(0)
    #          = -inf: -inf or NaN, as PyTorch).
    if _is_array(x2):
        d1 = xp.where(x2 == 0, xp.zeros_like(g), x2 * x1 ** (x2 - 1))
    else:
        d1 = xp.zeros_like(g) if x2 == 0 else x2 * x1 ** (x2 - 1)
    g1 = g * _cj(xp, d1)
    if not _is_array(x2):
        return g1, None
    y = x1 ** x2
    nonneg = _nonneg_exponent(xp, x2)
    if not _is_array(x1):  # a Python scalar base
        if x1 == 0:
            return g1, xp.where(nonneg, xp.zeros_like(g), g * _cj(xp, y) * float("-inf"))
        if isinstance(x1, complex) or x1 < 0:
            import cmath

            return g1, g * _cj(xp, y * cmath.log(x1)) if isinstance(x1, complex) or \
                _is_complex(xp, y) else g * y * float("nan")
        return g1, g * _cj(xp, y) * math.log(x1)
    if _is_complex(xp, y) and not _is_complex(xp, x1):
        x1 = xp.astype(x1, y.dtype)  # a negative real base has a complex log
    zero = x1 == 0
    lg = xp.log(xp.where(zero, xp.ones_like(x1), x1))  # no log(0) warning, no NaN at 0 ...
    zero_neg = zero & ~nonneg if _is_array(nonneg) else zero & (not nonneg)
    lg = xp.where(zero_neg, xp.zeros_like(lg) - math.inf, lg)  # ... except where PyTorch's
    return g1, xp.where(zero & nonneg, xp.zeros_like(g), g * _cj(xp, y * lg))


@clip.defvjp
def _clip_vjp(xp, res, g):
    x, lo, hi = res
    inside = xp.ones_like(g) > 0
    if lo is not None:
        inside = inside & (x >= lo)
    if hi is not None:
        inside = inside & (x <= hi)
    zero = xp.zeros_like(g)
    gx = _sum_to(xp, xp.where(inside, g, zero), x.shape)
    glo = ghi = None
    if _is_array(lo):
        below = x < lo
        if hi is not None:
            below = below & (x <= hi)
        glo = _sum_to(xp, xp.where(below, g, zero), lo.shape)
    if _is_array(hi):
        ghi = _sum_to(xp, xp.where(x > hi, g, zero), hi.shape)
    return gx, glo, ghi


# Ops whose VJP follows PyTorch's complex convention; the others raise NotImplementedError
# when a complex value requires grad (they are real-only in the standard anyway).
_mark_complex_ok(*(globals()[n] for n in (*_UNARY, *_UNARY_ZERO_GRAD)),
                 add, subtract, multiply, divide, globals()["pow"])
