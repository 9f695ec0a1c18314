"""The values part of a Tensor's ``repr``, in PyTorch's format.

A port of ``torch/_tensor_str.py`` (PyTorch 2.13, default print options: precision 4,
line width 80, summarised above 1,000 elements with 3 edge items): one formatter for all
the values shown; floats whose nonzero finite values are all integral print as ``4.``,
others with 4 decimals, in scientific notation when the largest nonzero magnitude is
over 1e8, the smallest under 1e-4 or their ratio over 1,000; values are right-aligned
to a common width; rows wrap at 80 columns. Complex values format their real and
imaginary parts with one formatter each.

It reads a host array (what :meth:`Backend.to_host` returns: a NumPy array) only through
``shape``, ``dtype.kind``, indexing and ``tolist()``, so the core imports no NumPy.
"""

from __future__ import annotations

import math

__all__ = ["format_host"]

PRECISION = 4
LINEWIDTH = 80
THRESHOLD = 1000
EDGEITEMS = 3


class _Formatter:
    """PyTorch's ``_Formatter``: one width and notation for all values shown."""

    def __init__(self, values, floating: bool):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        if not floating:
            for v in values:
                self.max_width = max(self.max_width, len(f"{v}"))
            return
        nonzero = [v for v in values if math.isfinite(v) and v != 0]
        if not nonzero:
            return
        absval = [abs(v) for v in nonzero]
        lo, hi = min(absval), max(absval)
        self.int_mode = all(v == math.ceil(v) for v in nonzero)
        self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        for v in nonzero:
            if self.sci_mode:
                width = len(f"{v:.{PRECISION}e}")
            elif self.int_mode:
                width = len(f"{v:.0f}") + 1
            else:
                width = len(f"{v:.{PRECISION}f}")
            self.max_width = max(self.max_width, width)

    def format(self, v) -> str:
        if self.floating:
            if self.sci_mode:
                s = f"{v:{self.max_width}.{PRECISION}e}"
            elif self.int_mode:
                s = f"{v:.0f}"
                if not (math.isinf(v) or math.isnan(v)):
                    s += "."
            else:
                s = f"{v:.{PRECISION}f}"
        else:
            s = f"{v}"
        return (self.max_width - len(s)) * " " + s


def _shown(a, ndim: int, summarize: bool):
    """Nested lists of the Python values shown (``...`` where rows are elided)."""
    if ndim == 0 or not summarize:
        return a.tolist()
    n = a.shape[0]
    if n > 2 * EDGEITEMS:
        rows = list(range(EDGEITEMS)) + [None] + list(range(n - EDGEITEMS, n))
    else:
        rows = list(range(n))
    return [... if i is None else _shown(a[i], ndim - 1, summarize) for i in rows]


def _leaves(data, out):
    if isinstance(data, list):
        for d in data:
            _leaves(d, out)
    elif data is not ...:
        out.append(data)
    return out


def _value(v, f1, f2) -> str:
    if f2 is None:
        return f1.format(v)
    real = f1.format(v.real)
    imag = (f2.format(v.imag) + "j").lstrip()
    return real + imag if imag[0] in "+-" else real + "+" + imag


def _vector(data, indent, f1, f2) -> str:
    element_length = f1.max_width + 2
    if f2 is not None:
        element_length += f2.max_width + 1
    per_line = max(1, math.floor((LINEWIDTH - indent) / element_length))
    items = [" ..." if v is ... else _value(v, f1, f2) for v in data]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(data, ndim, indent, f1, f2) -> str:
    if ndim == 0:
        return _value(data, f1, f2)
    if ndim == 1:
        return _vector(data, indent, f1, f2)
    slices = ["..." if d is ... else _nested(d, ndim - 1, indent + 1, f1, f2) for d in data]
    return "[" + ("," + "\n" * (ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def format_host(a, indent: int = 7) -> str:
    """The values of host array ``a`` as PyTorch prints them after ``tensor(``.

    Parameters
    ----------
    a : numpy.ndarray
        The values (any shape; bool, integer, floating or complex dtype).
    indent : int, default 7
        Columns before the opening bracket (``len("tensor(")``).

    Returns
    -------
    str
        ``"[]"`` for an empty array, else PyTorch's text (without the suffixes).
    """
    shape = tuple(a.shape)
    ndim = len(shape)
    n = 1
    for s in shape:
        n *= s
    if n == 0:
        return "[]"
    summarize = n > THRESHOLD
    data = _shown(a, ndim, summarize)
    values = _leaves(data, [])
    kind = a.dtype.kind
    if kind == "c":
        f1 = _Formatter([v.real for v in values], True)
        f2 = _Formatter([v.imag for v in values], True)
    else:
        f1, f2 = _Formatter(values, kind == "f"), None
    return _nested(data, ndim, indent, f1, f2)
