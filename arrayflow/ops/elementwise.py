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

import cmath
import math
import textwrap

from .._typing import Array, Scalar
from ._registry import DTYPE_CATEGORIES, op
from ._vjp_util import cj as _cj
from ._vjp_util import is_array as _is_array
from ._vjp_util import is_complex as _is_complex
from ._vjp_util import sum_to_shape as _sum_to

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


def _unary_jvp(fn):
    """The registry's JVP rule (:meth:`~arrayflow.ops._registry.Op.defjvp`) of a unary row's
    ``jvp(xp, x, dx, y)``; ``"linear"`` and None pass as they are."""
    if fn is None or fn == "linear":
        return fn

    def rule(xp, tangents, out, x):
        return fn(xp, x, tangents["x"], out)
    return rule


def _binary_jvp(fn):
    """The registry's JVP rule of a binary row's ``jvp(xp, x1, x2, dx1, dx2, y)``: ``dx1``
    or ``dx2`` is None for an operand without a tangent (a Python scalar has none). The rows
    combine the tangents with operators, which broadcast each to the output's shape."""
    if fn is None or fn == "linear":
        return fn

    def rule(xp, tangents, out, x1, x2):
        return fn(xp, x1, x2, tangents.get("x1"), tangents.get("x2"), out)
    return rule


def _unary(name, summary, *, dtypes, floating=False, bool_result=False, saves="input",
           complex_ok=False, aliases=(), torch_name=..., vjp=None, jvp=None):
    """Register the element-wise op ``name(x)`` from one table row; returns the Op.

    ``vjp(xp, v, g) -> gradient of x`` receives the saved value ``v``: the input ``x``
    (``saves="input"``), the output ``y`` (``saves="output"``, for rules cheapest from
    the output: ``exp``'s ``g * y``) or None (``saves=None``: the rule needs ``g`` only,
    nothing is kept, as PyTorch keeps nothing for ``neg`` or ``floor``). Without ``vjp``
    the op is not differentiable; ``bool_result=True`` documents a boolean result.

    ``jvp`` is ``"linear"`` or ``jvp(xp, x, dx, y) -> the tangent of y`` (``dx`` the
    tangent of ``x``, ``y`` the primal result), made into the Op's forward-mode rule
    (:meth:`~arrayflow.ops._registry.Op.defjvp`) by :func:`_unary_jvp`.
    """
    fn_name = name
    if vjp is None:
        def forward(xp, x: Array, /):
            return getattr(xp, fn_name)(x)
    elif saves is None:
        def forward(xp, x: Array, /):
            return getattr(xp, fn_name)(x), (None,)
    elif saves == "output":
        def forward(xp, x: Array, /):
            y = getattr(xp, fn_name)(x)
            return y, (y,)
    elif saves == "input":
        def forward(xp, x: Array, /):
            return getattr(xp, fn_name)(x), (x,)
    else:
        raise ValueError(f"elementwise._unary: saves={saves!r} for {name!r}; expected "
                         f"'input', 'output' or None")
    forward.__name__ = forward.__qualname__ = name
    o = op(name, section="elementwise", dtypes=dtypes, differentiable=vjp is not None,
           floating=floating, complex_ok=complex_ok, aliases=aliases, torch_name=torch_name,
           vjp=None if vjp is None else (lambda xp, res, g: (vjp(xp, res[0], g),)),
           jvp=_unary_jvp(jvp),
           doc=_doc(_UNARY_DOC, name, summary, dtypes, floating, bool_result, False, vjp,
                    complex_ok, name if torch_name is ... else torch_name))(forward)
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

    ``jvp`` is ``"linear"`` or ``jvp(xp, x1, x2, dx1, dx2, y) -> the tangent of y``, made
    into the Op's forward-mode rule by :func:`_binary_jvp`.
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
           res_needs=res_needs, vjp=rule, jvp=_binary_jvp(jvp),
           doc=_doc(_BINARY_DOC, name, summary, dtypes, floating, bool_result, promote, vjp,
                    complex_ok, name if torch_name is ... else torch_name))(forward)
    return o


# --- helpers shared by several rules ---------------------------------------------------------

def _zero_grad(xp, x, g):
    """Piecewise-constant functions: zero derivative almost everywhere (PyTorch's zeros)."""
    return xp.zeros_like(g)


def _zero_jvp(xp, x, dx, y):
    """Piecewise-constant functions: a zero tangent (PyTorch's zeros)."""
    return xp.zeros_like(y)


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
    vjp=lambda xp, x, g: g * xp.sign(x),  # sgn(z) = z/|z| for complex; 0 at 0 (PyTorch)
    # PyTorch: re(conj(dz) * sgn(z)) (handle_r_to_c); dx * sign(x) for real x
    jvp=lambda xp, x, dx, y: (xp.real(xp.conj(dx) * xp.sign(x)) if _is_complex(xp, x)
                              else dx * xp.sign(x)))
acos = _unary(
    "acos", "Inverse cosine, in radians.", dtypes="floating", floating=True, complex_ok=True,
    aliases=("arccos",), vjp=lambda xp, x, g: -g / _cj(xp, xp.sqrt(1 - x * x)),
    jvp=lambda xp, x, dx, y: -dx / xp.sqrt(1 - x * x))
acosh = _unary(
    "acosh", "Inverse hyperbolic cosine.", dtypes="floating", floating=True, complex_ok=True,
    vjp=lambda xp, x, g: g / (xp.conj(xp.sqrt(x - 1) * xp.sqrt(x + 1))  # the branch
                              if _is_complex(xp, x) else xp.sqrt((x - 1) * (x + 1))),
    jvp=lambda xp, x, dx, y: dx / (xp.sqrt(x - 1) * xp.sqrt(x + 1) if _is_complex(xp, x)
                                   else xp.sqrt((x - 1) * (x + 1))))
asin = _unary(
    "asin", "Inverse sine, in radians.", dtypes="floating", floating=True, complex_ok=True,
    aliases=("arcsin",), vjp=lambda xp, x, g: g / _cj(xp, xp.sqrt(1 - x * x)),
    jvp=lambda xp, x, dx, y: dx / xp.sqrt(1 - x * x))
asinh = _unary(
    "asinh", "Inverse hyperbolic sine.", dtypes="floating", floating=True, complex_ok=True,
    vjp=lambda xp, x, g: g / _cj(xp, xp.sqrt(x * x + 1)),
    jvp=lambda xp, x, dx, y: dx / xp.sqrt(x * x + 1))
atan = _unary(
    "atan", "Inverse tangent, in radians.", dtypes="floating", floating=True, complex_ok=True,
    aliases=("arctan",), vjp=lambda xp, x, g: g / _cj(xp, 1 + x * x),
    jvp=lambda xp, x, dx, y: dx / (1 + x * x))
atanh = _unary(
    "atanh", "Inverse hyperbolic tangent.", dtypes="floating", floating=True, complex_ok=True,
    vjp=lambda xp, x, g: g / _cj(xp, 1 - x * x),
    jvp=lambda xp, x, dx, y: dx / (1 - x * x))
bitwise_invert = _unary(
    "bitwise_invert", "Bitwise NOT of integer or boolean x.", dtypes="integer or boolean",
    torch_name="bitwise_not")
ceil = _unary(
    "ceil", "Smallest integer-valued number >= x (same dtype).", dtypes="real",
    complex_ok=True, saves=None, vjp=_zero_grad, jvp=_zero_jvp)
conj = _unary(
    "conj", "Complex conjugate.", dtypes="numeric", complex_ok=True, saves=None,
    vjp=lambda xp, x, g: _cj(xp, g), jvp="linear")
cos = _unary(
    "cos", "Cosine of x in radians.", dtypes="floating", floating=True, complex_ok=True,
    vjp=lambda xp, x, g: -g * _cj(xp, xp.sin(x)),
    jvp=lambda xp, x, dx, y: -dx * xp.sin(x))
cosh = _unary(
    "cosh", "Hyperbolic cosine.", dtypes="floating", floating=True, complex_ok=True,
    vjp=lambda xp, x, g: g * _cj(xp, xp.sinh(x)),
    jvp=lambda xp, x, dx, y: dx * xp.sinh(x))
exp = _unary(
    "exp", "Exponential e**x.", dtypes="floating", floating=True, saves="output",
    complex_ok=True, vjp=lambda xp, y, g: g * _cj(xp, y), jvp=lambda xp, x, dx, y: dx * y)
expm1 = _unary(
    "expm1", "exp(x) - 1, accurate for small x.", dtypes="floating", floating=True,
    saves="output", complex_ok=True, aliases=("special.expm1",),
    vjp=lambda xp, y, g: g * _cj(xp, y + 1), jvp=lambda xp, x, dx, y: dx * (y + 1))
floor = _unary(
    "floor", "Largest integer-valued number <= x (same dtype).", dtypes="real",
    complex_ok=True, saves=None, vjp=_zero_grad, jvp=_zero_jvp)


def _imag_vjp(xp, x, g):
    # z -> im z: the gradient g lands on the imaginary part (PyTorch: 1j * g). A real
    # input has imag(x) == 0 whatever x is.
    if _is_complex(xp, x):
        return xp.astype(g, x.dtype) * 1j
    return xp.zeros_like(g)


imag = _unary(
    "imag", "Imaginary part of a complex array (real dtype of matching precision).",
    dtypes="complex floating", complex_ok=True, vjp=_imag_vjp, jvp="linear")
isfinite = _unary("isfinite", "True where x is finite.", dtypes="numeric", bool_result=True)
isinf = _unary("isinf", "True where x is +inf or -inf.", dtypes="numeric", bool_result=True)
isnan = _unary("isnan", "True where x is NaN.", dtypes="numeric", bool_result=True)
log = _unary(
    "log", "Natural logarithm.", dtypes="floating", floating=True, complex_ok=True,
    vjp=lambda xp, x, g: g / _cj(xp, x), jvp=lambda xp, x, dx, y: dx / x)
log1p = _unary(
    "log1p", "log(1 + x), accurate for small x.", dtypes="floating", floating=True,
    complex_ok=True, aliases=("special.log1p",), vjp=lambda xp, x, g: g / _cj(xp, 1 + x),
    jvp=lambda xp, x, dx, y: dx / (1 + x))
log2 = _unary(
    "log2", "Base-2 logarithm.", dtypes="floating", floating=True, complex_ok=True,
    vjp=lambda xp, x, g: g / _cj(xp, x * 0.6931471805599453),
    jvp=lambda xp, x, dx, y: dx / (x * 0.6931471805599453))
log10 = _unary(
    "log10", "Base-10 logarithm.", dtypes="floating", floating=True, complex_ok=True,
    vjp=lambda xp, x, g: g / _cj(xp, x * 2.302585092994046),
    jvp=lambda xp, x, dx, y: dx / (x * 2.302585092994046))
logical_not = _unary("logical_not", "Logical NOT of boolean x.", dtypes="boolean",
                     bool_result=True)
negative = _unary(
    "negative", "Numerical negative -x.", dtypes="numeric", complex_ok=True,
    aliases=("neg",), saves=None, vjp=lambda xp, x, g: -g, jvp="linear")
positive = _unary(
    "positive", "Numerical positive +x (a copy).", dtypes="numeric", complex_ok=True,
    saves=None, vjp=lambda xp, x, g: g, jvp="linear")


def _real_vjp(xp, x, g):
    # z -> re z: the gradient g lands on the real part (PyTorch: g + 0j).
    return xp.astype(g, x.dtype) if _is_complex(xp, x) else g


real = _unary(
    "real", "Real part of a complex array (real dtype of matching precision).",
    dtypes="numeric", complex_ok=True, vjp=_real_vjp, jvp="linear")
reciprocal = _unary(
    "reciprocal", "1 / x.", dtypes="floating", floating=True, saves="output",
    complex_ok=True, vjp=lambda xp, y, g: -g * _cj(xp, y * y),
    jvp=lambda xp, x, dx, y: -dx * (y * y))
round = _unary(
    "round", "Round to the nearest integer-valued number, halves to even.",
    dtypes="numeric", complex_ok=True, saves=None, vjp=_zero_grad, jvp=_zero_jvp)


def _sgn_backward(xp, x, v, s):
    # PyTorch's sgn_backward(x, v, sgn): sgn(z) = z/|z| depends on the angle only; the part
    # of v orthogonal to sgn(z), over |z| (0 at z == 0). Both the VJP (v = g) and the JVP
    # (v = dz): the Jacobian of sgn, as a real 2x2 map, is symmetric.
    r = xp.abs(x)
    zero = r == 0
    orth = v - xp.real(v * xp.conj(s)) * s
    return xp.where(zero, xp.zeros_like(orth), orth / xp.where(zero, xp.ones_like(r), r))


def _sign_vjp(xp, x, g):
    # Real: piecewise constant, zero gradient. Complex: PyTorch's sgn_backward.
    if not _is_complex(xp, x):
        return xp.zeros_like(g)
    return _sgn_backward(xp, x, g, xp.sign(x))


def _sign_jvp(xp, x, dx, y):
    # Real: PyTorch's sign, zero tangent. Complex: PyTorch's sgn, sgn_backward(x, dx, y).
    if not _is_complex(xp, x):
        return xp.zeros_like(y)
    return _sgn_backward(xp, x, dx, y)


sign = _unary(
    "sign", "Sign of x: -1, 0 or 1 (x/|x| for complex).", dtypes="numeric",
    complex_ok=True, vjp=_sign_vjp, jvp=_sign_jvp)
signbit = _unary(
    "signbit", "True where the sign bit of x is set (also for -0.0 and NaNs).",
    dtypes="real floating", bool_result=True)
sin = _unary(
    "sin", "Sine of x in radians.", dtypes="floating", floating=True, complex_ok=True,
    vjp=lambda xp, x, g: g * _cj(xp, xp.cos(x)),
    jvp=lambda xp, x, dx, y: dx * xp.cos(x))
sinh = _unary(
    "sinh", "Hyperbolic sine.", dtypes="floating", floating=True, complex_ok=True,
    vjp=lambda xp, x, g: g * _cj(xp, xp.cosh(x)),
    jvp=lambda xp, x, dx, y: dx * xp.cosh(x))
sqrt = _unary(
    "sqrt", "Principal square root.", dtypes="floating", floating=True, saves="output",
    complex_ok=True, vjp=lambda xp, y, g: g / (2 * _cj(xp, y)),
    jvp=lambda xp, x, dx, y: dx / (2 * y))
square = _unary(
    "square", "x ** 2.", dtypes="numeric", complex_ok=True,
    vjp=lambda xp, x, g: 2 * _cj(xp, x) * g, jvp=lambda xp, x, dx, y: 2 * x * dx)
tan = _unary(
    "tan", "Tangent of x in radians.", dtypes="floating", floating=True, saves="output",
    complex_ok=True, vjp=lambda xp, y, g: g * _cj(xp, 1 + y * y),
    jvp=lambda xp, x, dx, y: dx * (1 + y * y))
tanh = _unary(
    "tanh", "Hyperbolic tangent.", dtypes="floating", floating=True, saves="output",
    complex_ok=True, vjp=lambda xp, y, g: g * _cj(xp, 1 - y * y),
    jvp=lambda xp, x, dx, y: dx * (1 - y * y))
trunc = _unary(
    "trunc", "Round towards zero.", dtypes="real", complex_ok=True, saves=None,
    vjp=_zero_grad, jvp=_zero_jvp)


# --- binary ops ------------------------------------------------------------------------------
# JVP rows get dx1/dx2 = None for an operand without a tangent; the rules combine the
# tangents present with operators (which broadcast them to the output's shape).

def _tsum(a, b):
    """``a + b`` of two optional tangents (None when both are)."""
    return b if a is None else a if b is None else a + b


def _add_jvp(xp, x1, x2, dx1, dx2, y):
    # Not "linear": a Python-scalar operand is a constant, not a tangent (x + 2 has dx).
    return _tsum(dx1, dx2)


def _subtract_jvp(xp, x1, x2, dx1, dx2, y):
    return dx1 if dx2 is None else -dx2 if dx1 is None else dx1 - dx2


def _add_vjp(xp, res, g):
    s1, s2 = res
    return _sum_to(xp, g, s1), _sum_to(xp, g, s2)


add = _binary("add", "x1 + x2.", dtypes="numeric", saves="shapes", complex_ok=True,
              vjp=_add_vjp, jvp=_add_jvp)


def _atan2_vjp(xp, x1, x2, g):
    # 1 / (x1**2 + x2**2), with 0 where it is infinite: PyTorch's finite 0 at (0, 0).
    d = x1 * x1 + x2 * x2
    zero = d == 0
    r = xp.where(zero, xp.zeros_like(d), 1 / xp.where(zero, xp.ones_like(d), d))
    return g * x2 * r, -g * x1 * r


def _atan2_jvp(xp, x1, x2, dx1, dx2, y):
    # PyTorch: (x2 * dx1 - x1 * dx2) / (x1**2 + x2**2) (NaN at (0, 0), where its VJP is 0)
    return _tsum(None if dx1 is None else x2 * dx1,
                 None if dx2 is None else -x1 * dx2) / (x1 * x1 + x2 * x2)


atan2 = _binary(
    "atan2", "Angle of the point (x2, x1), in radians, in [-pi, pi].",
    dtypes="real floating", floating=True, aliases=("arctan2",), vjp=_atan2_vjp,
    jvp=_atan2_jvp)
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


def _copysign_jvp(xp, x1, x2, dx1, dx2, y):
    # PyTorch: dx1 * (y / x1), 0 where x1 == 0; x2 only moves the sign: no tangent from it
    # (PyTorch's result has none when x1 has none).
    if dx1 is None:
        return None
    zero = x1 == 0
    return dx1 * xp.where(zero, xp.zeros_like(y), y / xp.where(zero, xp.ones_like(x1), x1))


copysign = _binary(
    "copysign", "|x1| with the sign of x2.", dtypes="real floating", floating=True,
    vjp=_copysign_vjp, jvp=_copysign_jvp)


# Residual k is only kept when a gradient that needs it is wanted (PyTorch saves ``other``
# for ``self``'s gradient only): less memory, and ``y *= 2`` does not trip version checks.
def _divide_vjp(xp, res, g, needs=(0, 1)):
    # PyTorch: g / conj(x2) and -g * conj((x1 / x2) / x2) (the same NaN/inf at x2 == 0).
    x1, x2, s1, s2 = res
    return (_sum_to(xp, g / _cj(xp, x2), s1) if 0 in needs and s1 is not None else None,
            _sum_to(xp, -g * _cj(xp, (x1 / x2) / x2), s2)
            if 1 in needs and s2 is not None else None)


def _divide_jvp(xp, x1, x2, dx1, dx2, y):
    # PyTorch: (dx1 - dx2 * y) / x2
    return _subtract_jvp(xp, x1, x2, dx1, None if dx2 is None else dx2 * y, y) / x2


divide = _binary(
    "divide", "True division x1 / x2 (floating result).", dtypes="numeric", floating=True,
    saves="cross", complex_ok=True, aliases=("div", "true_divide"), res_needs={0: {1}},
    vjp=_divide_vjp, jvp=_divide_jvp)
equal = _binary("equal", "x1 == x2 (boolean).", dtypes="any", bool_result=True,
                torch_name="eq")
floor_divide = _binary(
    "floor_divide", "floor(x1 / x2).", dtypes="real", saves="shapes",
    vjp=lambda xp, res, g: (_sum_to(xp, xp.zeros_like(g), res[0]),
                            _sum_to(xp, xp.zeros_like(g), res[1])),
    jvp=lambda xp, x1, x2, dx1, dx2, y: xp.zeros_like(y))  # piecewise constant
greater = _binary("greater", "x1 > x2 (boolean).", dtypes="real", bool_result=True)
greater_equal = _binary("greater_equal", "x1 >= x2 (boolean).", dtypes="real",
                        bool_result=True)
hypot = _binary(
    "hypot", "sqrt(x1**2 + x2**2) without undue overflow.", dtypes="real floating",
    floating=True,
    vjp=lambda xp, x1, x2, g: (g * x1 / xp.hypot(x1, x2), g * x2 / xp.hypot(x1, x2)),
    jvp=lambda xp, x1, x2, dx1, dx2, y: _tsum(None if dx1 is None else dx1 * x1,
                                              None if dx2 is None else dx2 * x2) / y)
less = _binary("less", "x1 < x2 (boolean).", dtypes="real", bool_result=True)
less_equal = _binary("less_equal", "x1 <= x2 (boolean).", dtypes="real", bool_result=True)
logaddexp = _binary(
    "logaddexp", "log(exp(x1) + exp(x2)), computed stably.", dtypes="real floating",
    floating=True,
    vjp=lambda xp, x1, x2, g: (g * xp.exp(x1 - xp.logaddexp(x1, x2)),
                               g * xp.exp(x2 - xp.logaddexp(x1, x2))),
    # PyTorch's form (finite where one operand is +inf)
    jvp=lambda xp, x1, x2, dx1, dx2, y: _tsum(
        None if dx1 is None else dx1 / (1 + xp.exp(x2 - x1)),
        None if dx2 is None else dx2 / (1 + xp.exp(x1 - x2))))
logical_and = _binary("logical_and", "Logical AND of booleans.", dtypes="boolean",
                      bool_result=True, promote=False)
logical_or = _binary("logical_or", "Logical OR of booleans.", dtypes="boolean",
                     bool_result=True, promote=False)
logical_xor = _binary("logical_xor", "Logical XOR of booleans.", dtypes="boolean",
                      bool_result=True, promote=False)


def _extremum_jvp(xp, x1, x2, dx1, dx2, y, wins):
    # PyTorch: dx2 + w * (dx1 - dx2), w = 1/2 at ties, 1 where x1 wins, else 0 (NaN: dx2).
    one = xp.ones_like(y)
    w = xp.where(x1 == x2, 0.5 * one, xp.where(wins, one, xp.zeros_like(y)))
    if dx2 is None:
        return w * dx1
    return (1 - w) * dx2 if dx1 is None else dx2 + w * (dx1 - dx2)


maximum = _binary(
    "maximum", "Element-wise maximum (NaN-propagating).", dtypes="real",
    vjp=lambda xp, x1, x2, g: _extremum_vjp(xp, x1, x2, g, 1),
    jvp=lambda xp, x1, x2, dx1, dx2, y: _extremum_jvp(xp, x1, x2, dx1, dx2, y, x1 > x2))
minimum = _binary(
    "minimum", "Element-wise minimum (NaN-propagating).", dtypes="real",
    vjp=lambda xp, x1, x2, g: _extremum_vjp(xp, x1, x2, g, -1),
    jvp=lambda xp, x1, x2, dx1, dx2, y: _extremum_jvp(xp, x1, x2, dx1, dx2, y, x1 < x2))


def _multiply_vjp(xp, res, g, needs=(0, 1)):
    x1, x2, s1, s2 = res
    return (_sum_to(xp, g * _cj(xp, x2), s1) if 0 in needs and s1 is not None else None,
            _sum_to(xp, g * _cj(xp, x1), s2) if 1 in needs and s2 is not None else None)


multiply = _binary(
    "multiply", "x1 * x2.", dtypes="numeric", saves="cross", complex_ok=True,
    aliases=("mul",), res_needs={0: {1}, 1: {0}}, vjp=_multiply_vjp,
    jvp=lambda xp, x1, x2, dx1, dx2, y: _tsum(None if dx1 is None else dx1 * x2,
                                              None if dx2 is None else x1 * dx2))
nextafter = _binary(
    "nextafter", "The next representable value after x1 towards x2.",
    dtypes="real floating", floating=True,
    # one ulp step: slope 1 in x1, 0 at ties (the result is x2 there), as PyTorch 2.13
    vjp=lambda xp, x1, x2, g: (xp.where(x1 != x2, g, xp.zeros_like(g)), xp.zeros_like(g)),
    # PyTorch: dx1 where x1 != x2; 0 at ties (nextafter(x, x) == x2); none from x2
    jvp=lambda xp, x1, x2, dx1, dx2, y: (
        None if dx1 is None else xp.where(x1 != x2, dx1, xp.zeros_like(y))))
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


def _pow_jvp(xp, x1, x2, dx1, dx2, y):
    # PyTorch's pow_backward_self / pow_backward_exponent without the conjugations:
    # dx1 * x2 * x1**(x2-1) (0 where x2 == 0) + dx2 * y * log(x1) (0 where x1 == 0 and
    # x2 >= 0; -inf or NaN elsewhere at x1 == 0, as PyTorch).
    t1 = t2 = None
    if dx1 is not None:
        if _is_array(x2):
            t1 = xp.where(x2 == 0, xp.zeros_like(y), dx1 * (x2 * x1 ** (x2 - 1)))
        else:
            t1 = xp.zeros_like(y) if x2 == 0 else dx1 * (x2 * x1 ** (x2 - 1))
    if dx2 is not None:
        nonneg = _nonneg_exponent(xp, x2)
        if not _is_array(x1):  # a Python scalar base
            if x1 == 0:
                d2 = xp.where(nonneg, xp.zeros_like(y), y * float("-inf"))
            elif isinstance(x1, complex) or x1 < 0:
                d2 = y * cmath.log(x1) if isinstance(x1, complex) or _is_complex(xp, y) \
                    else y * float("nan")
            else:
                d2 = y * math.log(x1)
        else:
            if _is_complex(xp, y) and not _is_complex(xp, x1):
                x1 = xp.astype(x1, y.dtype)  # a negative real base has a complex log
            zero = x1 == 0
            lg = xp.log(xp.where(zero, xp.ones_like(x1), x1))
            lg = xp.where(zero & ~nonneg, xp.zeros_like(lg) - math.inf, lg)
            d2 = xp.where(zero & nonneg, xp.zeros_like(y), y * lg)
        t2 = dx2 * d2
    return _tsum(t1, t2)


pow = _binary("pow", "x1 ** x2.", dtypes="numeric", complex_ok=True, aliases=("power",),
              vjp=_pow_vjp, jvp=_pow_jvp)
remainder = _binary(
    "remainder", "x1 - floor_divide(x1, x2) * x2, with the sign of x2.", dtypes="real",
    vjp=lambda xp, x1, x2, g: (g, -g * xp.floor_divide(x1, x2)),
    # PyTorch: dx1 - dx2 * floor(x1 / x2)
    jvp=lambda xp, x1, x2, dx1, dx2, y: _subtract_jvp(
        xp, x1, x2, dx1, None if dx2 is None else dx2 * xp.floor_divide(x1, x2), y))


def _subtract_vjp(xp, res, g):
    s1, s2 = res
    return _sum_to(xp, g, s1), (None if s2 is None else _sum_to(xp, -g, s2))


subtract = _binary("subtract", "x1 - x2.", dtypes="numeric", saves="shapes", complex_ok=True,
                   aliases=("sub",), vjp=_subtract_vjp, jvp=_subtract_jvp)


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
    ``max`` where ``x > max``. Forward mode (:mod:`arrayflow.autograd.forward_ad`) follows
    PyTorch's ``clamp`` too (``clamp_jvp`` for Tensor bounds).

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
    # PyTorch's clamp_backward_min_max: where min > max the output is max, so max gets
    # the gradient there and min none.
    glo = ghi = None
    if _is_array(lo):
        below = x < lo
        if hi is not None:
            below = below & (lo < hi)
        glo = _sum_to(xp, xp.where(below, g, zero), lo.shape)
    if _is_array(hi):
        above = x > hi
        if lo is not None:
            above = above | (hi < lo)
        ghi = _sum_to(xp, xp.where(above, g, zero), hi.shape)
    return gx, glo, ghi


@clip.defjvp
def _clip_jvp(xp, tangents, out, x, /, min=None, max=None):
    # PyTorch: Tensor bounds (clamp.Tensor) follow clamp_jvp: the tangent of max where
    # min > max, of min where x < min, of max where x > max, of x elsewhere (ties and NaN
    # included); a bound that is a Tensor without a tangent contributes zeros. With
    # Python-scalar bounds only (clamp.Scalar): dx where min <= x <= max, else 0.
    zero = xp.zeros_like(out)
    dx = tangents.get("x", zero)
    lo, hi = _is_array(min), _is_array(max)
    if not (lo or hi):
        inside = xp.ones_like(out) > 0
        if min is not None:
            inside = inside & (x >= min)
        if max is not None:
            inside = inside & (x <= max)
        return xp.where(inside, dx, zero)
    dmin, dmax = tangents.get("min", zero), tangents.get("max", zero)
    if min is not None and max is not None:
        return xp.where(min > max, dmax, xp.where(x < min, dmin, xp.where(x > max, dmax, dx)))
    if min is not None:
        return xp.where(x > min, dx, dmin)
    return xp.where(x < max, dx, dmax)


# The table above, by name (static, so type checkers see ``af.exp``; tests/test_op_table.py
# checks it lists exactly this module's ops).
__all__ = [
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and",
    "bitwise_invert", "bitwise_left_shift", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
    "ceil", "clip", "conj", "copysign", "cos", "cosh", "divide", "equal", "exp", "expm1",
    "floor", "floor_divide", "greater", "greater_equal", "hypot", "imag", "isfinite", "isinf",
    "isnan", "less", "less_equal", "log", "log10", "log1p", "log2", "logaddexp", "logical_and",
    "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "multiply", "negative",
    "nextafter", "not_equal", "positive", "pow", "real", "reciprocal", "remainder", "round",
    "sign", "signbit", "sin", "sinh", "sqrt", "square", "subtract", "tan", "tanh", "trunc",
]
