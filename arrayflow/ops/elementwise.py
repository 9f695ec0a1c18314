"""Element-wise functions of the array API standard (2025.12, "Element-wise Functions").

Each op's forward calls the backend namespace's function of the same name and
keeps its inputs (or output) as residuals for the VJP. Binary functions accept
one Python scalar operand, as the standard allows since 2024.12.
"""

from __future__ import annotations

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


def _make_unary(name, summary, differentiable):
    if differentiable:
        def forward(xp, x, /):
            return getattr(xp, name)(x), (x,)
    else:
        def forward(xp, x, /):
            return getattr(xp, name)(x)
    forward.__name__ = forward.__qualname__ = name
    return op(name, differentiable=differentiable,
              doc=_UNARY_DOC.format(summary=summary, name=name))(forward)


def _make_binary(name, summary, differentiable):
    if differentiable:
        def forward(xp, x1, x2, /):
            return getattr(xp, name)(x1, x2), (x1, x2)
    else:
        def forward(xp, x1, x2, /):
            return getattr(xp, name)(x1, x2)
    forward.__name__ = forward.__qualname__ = name
    return op(name, differentiable=differentiable,
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


@op("clip")
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
