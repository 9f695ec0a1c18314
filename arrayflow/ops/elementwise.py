"""Element-wise functions of the array API standard (2025.12, "Element-wise Functions").

One table, one row per op (HIPS autograd's ``numpy_vjps.py`` style): each row is a call
of :func:`_unary` or :func:`_binary` carrying every fact about its op: name, summary,
the standard's dtype category, whether the result is floating, what the forward keeps
for the VJP (``saves``), whether the VJP follows PyTorch's complex convention, PyTorch's
other spellings, and the VJP itself (a lambda, or a named rule defined just above the
row). A row without a VJP is a non-differentiable op (comparisons, bitwise and logical
functions). ``clip`` has more parameters and is written out as a decorated op.

Each forward calls the backend namespace's function of the same name. Binary functions
accept one Python scalar operand, as the standard allows since 2024.12. The VJP rules use
only operators and standard functions, so ``create_graph=True`` differentiates the rules
themselves.
"""

from __future__ import annotations

import math
import textwrap

from .._typing import Array, Scalar
from ._registry import DTYPE_CATEGORIES, op
from ._vjp_util import cj as _cj
from ._vjp_util import is_array as _is_array
from ._vjp_util import is_complex as _is_complex
from ._vjp_util import sum_to_shape as _sum_to

__all__: list[str] = []

_UNARY_DOC = """{summary}

Parameters
----------
x : Tensor
    Input of any shape. The standard's dtype category for ``x``: {category}.

Returns
-------
Tensor
    Same shape as ``x``; {result}

Raises
------
TypeError
    If ``x`` is not a Tensor.

Notes
-----
{grad}

Source: array API standard 2025.12, Element-wise Functions, ``{name}`` (input dtype
category ``"{dtypes}"``); PyTorch {torch}.
"""

_BINARY_DOC = """{summary}

Parameters
----------
x1, x2 : Tensor or Python scalar
    Broadcast against each other; at most one may be a Python scalar. The standard's
    dtype category for both: {category}.

Returns
-------
Tensor
    Broadcast shape; {result}

Raises
------
BackendMismatchError
    If ``x1`` and ``x2`` are Tensors of different backends.
TypeError
    If ``x1`` or ``x2`` is neither a Tensor nor a Python scalar.{raises}

Notes
-----
{grad}

Source: array API standard 2025.12, Element-wise Functions, ``{name}`` (input dtype
category ``"{dtypes}"``); PyTorch {torch}.
"""

_NO_COMPLEX_GRAD = """
NotImplementedError
    If a complex operand requires grad where the backend computes the op for complex
    values (no complex gradient rule: an error rather than a wrong gradient)."""


def _doc(template, name, summary, dtypes, floating, bool_result, promote, vjp, complex_ok,
         torch_name):
    """The numpydoc docstring of a table-made op, from its row."""
    if bool_result:
        result = "dtype ``bool``."
    elif floating:
        result = ("floating: the (promoted) dtype of floating inputs; integer and bool inputs "
                  "compute in the default floating dtype (PyTorch's rule).")
    elif promote:
        result = ("dtype by the standard's type promotion rules (mixed kinds: PyTorch's "
                  "rule).")
    else:
        result = (f"dtype by the standard's rules for ``{name}`` (that of ``x`` unless the "
                  f"summary says otherwise).")
    if vjp is None:
        grad = "Not differentiable: the result never requires grad."
    elif complex_ok:
        grad = ("Differentiable; complex inputs get PyTorch's convention (the gradient of "
                "``z`` is ``dL/d(re z) + 1j * dL/d(im z)``).")
    else:
        grad = "Differentiable for real inputs."
    torch = "has no such function" if torch_name is None else f"``torch.{torch_name}``"
    doc = template.format(
        summary=summary, name=name, dtypes=dtypes, category=DTYPE_CATEGORIES[dtypes],
        result=result, grad=grad, torch=torch,
        raises=_NO_COMPLEX_GRAD if vjp is not None and not complex_ok else "")
    lines = []
    for line in doc.splitlines():
        indent = line[:len(line) - len(line.lstrip())]
        lines.extend(textwrap.wrap(line, 88, subsequent_indent=indent,
                                   break_on_hyphens=False, break_long_words=False) or [""])
    return "\n".join(lines) + "\n"


def _unary(name, summary, *, dtypes, floating=False, bool_result=False, saves="input",
           complex_ok=False, aliases=(), torch_name=..., vjp=None, jvp=None):
    """Register the element-wise op ``name(x)`` from one table row; returns the Op.

    ``vjp(xp, v, g) -> gradient of x`` receives the saved value ``v``: the input ``x``
    (``saves="input"``) or the output ``y`` (``saves="output"``, for rules cheapest from
    the output: ``exp``'s ``g * y``). Without ``vjp`` the op is not differentiable;
    ``bool_result=True`` documents a boolean result. ``jvp`` goes to the Op as is
    (:meth:`~arrayflow.ops._registry.Op.defjvp`).
    """
    fn_name = name
    if vjp is None:
        def forward(xp, x: Array, /):
            return getattr(xp, fn_name)(x)
    elif saves == "output":
        def forward(xp, x: Array, /):
            y = getattr(xp, fn_name)(x)
            return y, (y,)
    elif saves == "input":
        def forward(xp, x: Array, /):
            return getattr(xp, fn_name)(x), (x,)
    else:
        raise ValueError(f"elementwise._unary: saves={saves!r} for {name!r}; expected "
                         f"'input' or 'output'")
    forward.__name__ = forward.__qualname__ = name
    o = op(name, section="elementwise", dtypes=dtypes, differentiable=vjp is not None,
           floating=floating, complex_ok=complex_ok, aliases=aliases, torch_name=torch_name,
           vjp=None if vjp is None else (lambda xp, res, g: (vjp(xp, res[0], g),)), jvp=jvp,
           doc=_doc(_UNARY_DOC, name, summary, dtypes, floating, bool_result, False, vjp,
                    complex_ok, name if torch_name is ... else torch_name))(forward)
    __all__.append(name)
    return o


def _binary(name, summary, *, dtypes, floating=False, bool_result=False, saves="input",
            complex_ok=False, promote=True, aliases=(), torch_name=..., res_needs=None,
            vjp=None, jvp=None):
    """Register the element-wise op ``name(x1, x2)`` from one table row; returns the Op.

    ``saves`` says what the forward keeps and how ``vjp`` is called:

    - ``"input"``: ``(x1, x2)``; ``vjp(xp, x1, x2, g) -> (g1, g2)``, summed back here to
      each operand's shape (a Python scalar operand gets None);
    - ``"shapes"``: the operands' shapes only (``add``); ``vjp(xp, (s1, s2), g)`` is the
      Op's rule itself;
    - ``"cross"``: ``(x1, x2, s1, s2)``, each operand's gradient needing the other
      operand (``multiply``); ``vjp(xp, res, g, needs=...)`` is the Op's rule, and
      ``res_needs`` says which residual each gradient needs.

    ``bool_result=True`` documents a boolean result. ``promote=False`` leaves mixed kinds
    to the backend (the logical functions). Without ``vjp`` the op is not differentiable.
    ``jvp`` goes to the Op as is (:meth:`~arrayflow.ops._registry.Op.defjvp`).
    """
    fn_name = name
    if vjp is None:
        def forward(xp, x1: Array | Scalar, x2: Array | Scalar, /):
            return getattr(xp, fn_name)(x1, x2)
    elif saves == "input":
        def forward(xp, x1: Array | Scalar, x2: Array | Scalar, /):
            return getattr(xp, fn_name)(x1, x2), (x1, x2)
    elif saves == "shapes":
        def forward(xp, x1: Array | Scalar, x2: Array | Scalar, /):
            return getattr(xp, fn_name)(x1, x2), (getattr(x1, "shape", None),
                                                  getattr(x2, "shape", None))
    elif saves == "cross":
        def forward(xp, x1: Array | Scalar, x2: Array | Scalar, /):
            return getattr(xp, fn_name)(x1, x2), (x1, x2, getattr(x1, "shape", None),
                                                  getattr(x2, "shape", None))
    else:
        raise ValueError(f"elementwise._binary: saves={saves!r} for {name!r}; expected "
                         f"'input', 'shapes' or 'cross'")
    forward.__name__ = forward.__qualname__ = name
    rule = vjp
    if vjp is not None and saves == "input":
        def rule(xp, res, g):
            x1, x2 = res
            g1, g2 = vjp(xp, x1, x2, g)
            if g1 is None and g2 is None:
                return None, None
            return (_sum_to(xp, g1, x1.shape) if _is_array(x1) and g1 is not None else None,
                    _sum_to(xp, g2, x2.shape) if _is_array(x2) and g2 is not None else None)
    o = op(name, section="elementwise", dtypes=dtypes, differentiable=vjp is not None,
           floating=floating, promote=("x1", "x2") if promote else None,
           complex_ok=complex_ok, aliases=aliases, torch_name=torch_name,
           res_needs=res_needs, vjp=rule, jvp=jvp,
           doc=_doc(_BINARY_DOC, name, summary, dtypes, floating, bool_result, promote, vjp,
                    complex_ok, name if torch_name is ... else torch_name))(forward)
    __all__.append(name)
    return o


# --- helpers shared by several rules ---------------------------------------------------------

def _zero_grad(xp, x, g):
    """Piecewise-constant functions: zero derivative almost everywhere (PyTorch's zeros)."""
    return xp.zeros_like(g)


def _extremum_vjp(xp, x1, x2, g, sign):
    """PyTorch's maximum (sign 1) / minimum (sign -1) rule: the winner gets g, ties split it,
    and where either operand is NaN (no comparison holds) both get g."""
    zero = xp.zeros((), dtype=g.dtype)
    share = xp.where(x1 == x2, g * 0.5, g)
    lose1, lose2 = (x1 < x2, x1 > x2) if sign > 0 else (x1 > x2, x1 < x2)
    g1 = xp.where(lose1, zero, share)
    return g1, xp.where(lose2, zero, share) if _is_array(x2) else None


# --- unary ops -------------------------------------------------------------------------------
# Holomorphic functions: g * conj(f'(z)) (``_cj`` is free for real arrays).

abs = _unary(
    "abs", "Absolute value |x| (a real dtype of matching precision for complex x).",
    dtypes="numeric", complex_ok=True, aliases=("absolute",),
    vjp=lambda xp, x, g: g * xp.sign(x))  # sgn(z) = z/|z| for complex; 0 at 0 (PyTorch)
acos = _unary(
    "acos", "Inverse cosine, in radians.", dtypes="floating", floating=True, complex_ok=True,
    aliases=("arccos",), vjp=lambda xp, x, g: -g / _cj(xp, xp.sqrt(1 - x * x)))
acosh = _unary(
    "acosh", "Inverse hyperbolic cosine.", dtypes="floating", floating=True, complex_ok=True,
    vjp=lambda xp, x, g: g / (xp.conj(xp.sqrt(x - 1) * xp.sqrt(x + 1))  # the branch
                              if _is_complex(xp, x) else xp.sqrt((x - 1) * (x + 1))))
asin = _unary(
    "asin", "Inverse sine, in radians.", dtypes="floating", floating=True, complex_ok=True,
    aliases=("arcsin",), vjp=lambda xp, x, g: g / _cj(xp, xp.sqrt(1 - x * x)))
asinh = _unary(
    "asinh", "Inverse hyperbolic sine.", dtypes="floating", floating=True, complex_ok=True,
    vjp=lambda xp, x, g: g / _cj(xp, xp.sqrt(x * x + 1)))
atan = _unary(
    "atan", "Inverse tangent, in radians.", dtypes="floating", floating=True, complex_ok=True,
    aliases=("arctan",), vjp=lambda xp, x, g: g / _cj(xp, 1 + x * x))
atanh = _unary(
    "atanh", "Inverse hyperbolic tangent.", dtypes="floating", floating=True, complex_ok=True,
    vjp=lambda xp, x, g: g / _cj(xp, 1 - x * x))
bitwise_invert = _unary(
    "bitwise_invert", "Bitwise NOT of integer or boolean x.", dtypes="integer or boolean",
    torch_name="bitwise_not")
ceil = _unary(
    "ceil", "Smallest integer-valued number >= x (same dtype).", dtypes="real",
    complex_ok=True, vjp=_zero_grad)
conj = _unary(
    "conj", "Complex conjugate.", dtypes="numeric", complex_ok=True,
    vjp=lambda xp, x, g: _cj(xp, g))
cos = _unary(
    "cos", "Cosine of x in radians.", dtypes="floating", floating=True, complex_ok=True,
    vjp=lambda xp, x, g: -g * _cj(xp, xp.sin(x)))
cosh = _unary(
    "cosh", "Hyperbolic cosine.", dtypes="floating", floating=True, complex_ok=True,
    vjp=lambda xp, x, g: g * _cj(xp, xp.sinh(x)))
exp = _unary(
    "exp", "Exponential e**x.", dtypes="floating", floating=True, saves="output",
    complex_ok=True, vjp=lambda xp, y, g: g * _cj(xp, y))
expm1 = _unary(
    "expm1", "exp(x) - 1, accurate for small x.", dtypes="floating", floating=True,
    saves="output", complex_ok=True, vjp=lambda xp, y, g: g * _cj(xp, y + 1))
floor = _unary(
    "floor", "Largest integer-valued number <= x (same dtype).", dtypes="real",
    complex_ok=True, vjp=_zero_grad)


def _imag_vjp(xp, x, g):
    # z -> im z: the gradient g lands on the imaginary part (PyTorch: 1j * g). A real
    # input has imag(x) == 0 whatever x is.
    if _is_complex(xp, x):
        return xp.astype(g, x.dtype) * 1j
    return xp.zeros_like(g)


imag = _unary(
    "imag", "Imaginary part of a complex array (real dtype of matching precision).",
    dtypes="complex floating", complex_ok=True, vjp=_imag_vjp)
isfinite = _unary("isfinite", "True where x is finite.", dtypes="numeric", bool_result=True)
isinf = _unary("isinf", "True where x is +inf or -inf.", dtypes="numeric", bool_result=True)
isnan = _unary("isnan", "True where x is NaN.", dtypes="numeric", bool_result=True)
log = _unary(
    "log", "Natural logarithm.", dtypes="floating", floating=True, complex_ok=True,
    vjp=lambda xp, x, g: g / _cj(xp, x))
log1p = _unary(
    "log1p", "log(1 + x), accurate for small x.", dtypes="floating", floating=True,
    complex_ok=True, vjp=lambda xp, x, g: g / _cj(xp, 1 + x))
log2 = _unary(
    "log2", "Base-2 logarithm.", dtypes="floating", floating=True, complex_ok=True,
    vjp=lambda xp, x, g: g / _cj(xp, x * 0.6931471805599453))
log10 = _unary(
    "log10", "Base-10 logarithm.", dtypes="floating", floating=True, complex_ok=True,
    vjp=lambda xp, x, g: g / _cj(xp, x * 2.302585092994046))
logical_not = _unary("logical_not", "Logical NOT of boolean x.", dtypes="boolean",
                     bool_result=True)
negative = _unary(
    "negative", "Numerical negative -x.", dtypes="numeric", complex_ok=True,
    aliases=("neg",), vjp=lambda xp, x, g: -g)
positive = _unary(
    "positive", "Numerical positive +x (a copy).", dtypes="numeric", complex_ok=True,
    vjp=lambda xp, x, g: g)


def _real_vjp(xp, x, g):
    # z -> re z: the gradient g lands on the real part (PyTorch: g + 0j).
    return xp.astype(g, x.dtype) if _is_complex(xp, x) else g


real = _unary(
    "real", "Real part of a complex array (real dtype of matching precision).",
    dtypes="numeric", complex_ok=True, vjp=_real_vjp)
reciprocal = _unary(
    "reciprocal", "1 / x.", dtypes="floating", floating=True, saves="output",
    complex_ok=True, vjp=lambda xp, y, g: -g * _cj(xp, y * y))
round = _unary(
    "round", "Round to the nearest integer-valued number, halves to even.",
    dtypes="numeric", complex_ok=True, vjp=_zero_grad)


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


sign = _unary(
    "sign", "Sign of x: -1, 0 or 1 (x/|x| for complex).", dtypes="numeric",
    complex_ok=True, vjp=_sign_vjp)
signbit = _unary(
    "signbit", "True where the sign bit of x is set (also for -0.0 and NaNs).",
    dtypes="real floating", bool_result=True)
sin = _unary(
    "sin", "Sine of x in radians.", dtypes="floating", floating=True, complex_ok=True,
    vjp=lambda xp, x, g: g * _cj(xp, xp.cos(x)))
sinh = _unary(
    "sinh", "Hyperbolic sine.", dtypes="floating", floating=True, complex_ok=True,
    vjp=lambda xp, x, g: g * _cj(xp, xp.cosh(x)))
sqrt = _unary(
    "sqrt", "Principal square root.", dtypes="floating", floating=True, saves="output",
    complex_ok=True, vjp=lambda xp, y, g: g / (2 * _cj(xp, y)))
square = _unary(
    "square", "x ** 2.", dtypes="numeric", complex_ok=True,
    vjp=lambda xp, x, g: 2 * _cj(xp, x) * g)
tan = _unary(
    "tan", "Tangent of x in radians.", dtypes="floating", floating=True, saves="output",
    complex_ok=True, vjp=lambda xp, y, g: g * _cj(xp, 1 + y * y))
tanh = _unary(
    "tanh", "Hyperbolic tangent.", dtypes="floating", floating=True, saves="output",
    complex_ok=True, vjp=lambda xp, y, g: g * _cj(xp, 1 - y * y))
trunc = _unary(
    "trunc", "Round towards zero.", dtypes="real", complex_ok=True, vjp=_zero_grad)


# --- binary ops ------------------------------------------------------------------------------

def _add_vjp(xp, res, g):
    s1, s2 = res
    return _sum_to(xp, g, s1), _sum_to(xp, g, s2)


add = _binary("add", "x1 + x2.", dtypes="numeric", saves="shapes", complex_ok=True,
              vjp=_add_vjp)


def _atan2_vjp(xp, x1, x2, g):
    # 1 / (x1**2 + x2**2), with 0 where it is infinite: PyTorch's finite 0 at (0, 0).
    d = x1 * x1 + x2 * x2
    zero = d == 0
    r = xp.where(zero, xp.zeros_like(d), 1 / xp.where(zero, xp.ones_like(d), d))
    return g * x2 * r, -g * x1 * r


atan2 = _binary(
    "atan2", "Angle of the point (x2, x1), in radians, in [-pi, pi].",
    dtypes="real floating", floating=True, aliases=("arctan2",), vjp=_atan2_vjp)
bitwise_and = _binary("bitwise_and", "Bitwise AND.", dtypes="integer or boolean")
bitwise_left_shift = _binary("bitwise_left_shift", "x1 << x2.", dtypes="integer")
bitwise_or = _binary("bitwise_or", "Bitwise OR.", dtypes="integer or boolean")
bitwise_right_shift = _binary("bitwise_right_shift", "x1 >> x2.", dtypes="integer")
bitwise_xor = _binary("bitwise_xor", "Bitwise XOR.", dtypes="integer or boolean")


def _copysign_vjp(xp, x1, x2, g):
    # d|x1|*s(x2)/dx1 = sign(x1) * s(x2); 0 at x1 == 0 (PyTorch).
    y = xp.copysign(x1, x2)
    ratio = xp.where(x1 == 0, xp.zeros_like(g), y / xp.where(x1 == 0, xp.ones_like(g), x1))
    return g * ratio, xp.zeros_like(g)


copysign = _binary(
    "copysign", "|x1| with the sign of x2.", dtypes="real floating", floating=True,
    vjp=_copysign_vjp)


# Residual k is only kept when a gradient that needs it is wanted (PyTorch saves ``other``
# for ``self``'s gradient only): less memory, and ``y *= 2`` does not trip version checks.
def _divide_vjp(xp, res, g, needs=(0, 1)):
    # PyTorch: g / conj(x2) and -g * conj((x1 / x2) / x2) (the same NaN/inf at x2 == 0).
    x1, x2, s1, s2 = res
    return (_sum_to(xp, g / _cj(xp, x2), s1) if 0 in needs and s1 is not None else None,
            _sum_to(xp, -g * _cj(xp, (x1 / x2) / x2), s2)
            if 1 in needs and s2 is not None else None)


divide = _binary(
    "divide", "True division x1 / x2 (floating result).", dtypes="numeric", floating=True,
    saves="cross", complex_ok=True, aliases=("div", "true_divide"), res_needs={0: {1}},
    vjp=_divide_vjp)
equal = _binary("equal", "x1 == x2 (boolean).", dtypes="any", bool_result=True,
                torch_name="eq")
floor_divide = _binary(
    "floor_divide", "floor(x1 / x2).", dtypes="real",
    vjp=lambda xp, x1, x2, g: (xp.zeros_like(g), xp.zeros_like(g)))
greater = _binary("greater", "x1 > x2 (boolean).", dtypes="real", bool_result=True)
greater_equal = _binary("greater_equal", "x1 >= x2 (boolean).", dtypes="real",
                        bool_result=True)
hypot = _binary(
    "hypot", "sqrt(x1**2 + x2**2) without undue overflow.", dtypes="real floating",
    floating=True,
    vjp=lambda xp, x1, x2, g: (g * x1 / xp.hypot(x1, x2), g * x2 / xp.hypot(x1, x2)))
less = _binary("less", "x1 < x2 (boolean).", dtypes="real", bool_result=True)
less_equal = _binary("less_equal", "x1 <= x2 (boolean).", dtypes="real", bool_result=True)
logaddexp = _binary(
    "logaddexp", "log(exp(x1) + exp(x2)), computed stably.", dtypes="real floating",
    floating=True,
    vjp=lambda xp, x1, x2, g: (g * xp.exp(x1 - xp.logaddexp(x1, x2)),
                               g * xp.exp(x2 - xp.logaddexp(x1, x2))))
logical_and = _binary("logical_and", "Logical AND of booleans.", dtypes="boolean",
                      bool_result=True, promote=False)
logical_or = _binary("logical_or", "Logical OR of booleans.", dtypes="boolean",
                     bool_result=True, promote=False)
logical_xor = _binary("logical_xor", "Logical XOR of booleans.", dtypes="boolean",
                      bool_result=True, promote=False)
maximum = _binary(
    "maximum", "Element-wise maximum (NaN-propagating).", dtypes="real",
    vjp=lambda xp, x1, x2, g: _extremum_vjp(xp, x1, x2, g, 1))
minimum = _binary(
    "minimum", "Element-wise minimum (NaN-propagating).", dtypes="real",
    vjp=lambda xp, x1, x2, g: _extremum_vjp(xp, x1, x2, g, -1))


def _multiply_vjp(xp, res, g, needs=(0, 1)):
    x1, x2, s1, s2 = res
    return (_sum_to(xp, g * _cj(xp, x2), s1) if 0 in needs and s1 is not None else None,
            _sum_to(xp, g * _cj(xp, x1), s2) if 1 in needs and s2 is not None else None)


multiply = _binary(
    "multiply", "x1 * x2.", dtypes="numeric", saves="cross", complex_ok=True,
    aliases=("mul",), res_needs={0: {1}, 1: {0}}, vjp=_multiply_vjp)
nextafter = _binary(
    "nextafter", "The next representable value after x1 towards x2.",
    dtypes="real floating", floating=True,
    vjp=lambda xp, x1, x2, g: (g, xp.zeros_like(g)))  # one ulp step: slope 1
not_equal = _binary("not_equal", "x1 != x2 (boolean).", dtypes="any", bool_result=True)


def _nonneg_exponent(xp, x2):
    """``x2 >= 0`` (real ``x2``) or ``re x2 >= 0 and im x2 == 0`` (complex), as PyTorch."""
    if not _is_array(x2):
        return complex(x2).real >= 0 and complex(x2).imag == 0
    if _is_complex(xp, x2):
        return (xp.real(x2) >= 0) & (xp.imag(x2) == 0)
    return x2 >= 0


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


pow = _binary("pow", "x1 ** x2.", dtypes="numeric", complex_ok=True, aliases=("power",),
              vjp=_pow_vjp)
remainder = _binary(
    "remainder", "x1 - floor_divide(x1, x2) * x2, with the sign of x2.", dtypes="real",
    vjp=lambda xp, x1, x2, g: (g, -g * xp.floor_divide(x1, x2)))


def _subtract_vjp(xp, res, g):
    s1, s2 = res
    return _sum_to(xp, g, s1), (None if s2 is None else _sum_to(xp, -g, s2))


subtract = _binary("subtract", "x1 - x2.", dtypes="numeric", saves="shapes", complex_ok=True,
                   aliases=("sub",), vjp=_subtract_vjp)


# --- clip ------------------------------------------------------------------------------------

@op("clip", section="elementwise", dtypes="real", promote=("x", "min", "max"),
    aliases=("clamp",))
def clip(xp, x: Array, /, min: Array | int | float | None = None,
         max: Array | int | float | None = None):
    """Clamp each element of ``x`` to ``[min, max]``.

    Parameters
    ----------
    x : Tensor
        Real-valued input (the standard's dtype category ``"real"``).
    min, max : Tensor, Python scalar or None
        Bounds broadcast against ``x``; None leaves that side unbounded.

    Returns
    -------
    Tensor
        Shape and dtype of ``x``.

    Raises
    ------
    BackendMismatchError
        If ``x``, ``min`` and ``max`` are Tensors of different backends.
    TypeError
        If ``x`` is not a Tensor.

    Notes
    -----
    Differentiable in ``x`` and in Tensor bounds, with PyTorch's ``clamp`` gradient: ``x``
    gets ``g`` where ``min <= x <= max``, ``min`` where ``x < min`` (and ``x <= max``),
    ``max`` where ``x > max``.

    Source: array API standard 2025.12, Element-wise Functions, ``clip`` (input dtype
    category ``"real"``); PyTorch ``torch.clip`` (``torch.clamp``).
    """
    return xp.clip(x, min, max), (x, min, max)


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


__all__.append("clip")
