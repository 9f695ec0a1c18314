"""PyTorch's functions whose signatures differ from the standard function they compute.

``torch.cumsum(input, dim)``, ``torch.gather(input, dim, index)``,
``torch.unbind(input, dim=0)`` and ``torch.repeat_interleave(input, repeats, dim=None)``
take their arguments in PyTorch's order and names, so they cannot be aliases of
``cumulative_sum``, ``take_along_axis``, ``unstack`` and ``repeat`` (whose axis is
keyword-only): each is its own function that maps PyTorch's arguments onto the
standard op (which records the gradient). They dispatch ``__arrayflow_function__``
like every function.
"""

from __future__ import annotations

from ..overrides import overridable
from . import manipulation as _m
from . import reductions as _r

__all__ = ["cumsum", "cumprod", "gather", "unbind", "repeat_interleave"]


@overridable
def cumsum(input, dim, *, dtype=None):
    """Cumulative sum along ``dim`` (PyTorch ``torch.cumsum``; the standard's
    :func:`arrayflow.cumulative_sum`).

    Raises
    ------
    TypeError
        Without ``dim`` (PyTorch requires it).
    """
    return _r.cumulative_sum(input, axis=dim, dtype=dtype)


@overridable
def cumprod(input, dim, *, dtype=None):
    """Cumulative product along ``dim`` (PyTorch ``torch.cumprod``; the standard's
    :func:`arrayflow.cumulative_prod`)."""
    return _r.cumulative_prod(input, axis=dim, dtype=dtype)


@overridable
def gather(input, dim, index):
    """``out[i][j] = input[i][index[i][j]]`` along ``dim`` (PyTorch ``torch.gather``).

    ``index`` has ``input``'s number of dimensions and may be smaller in the other
    dimensions (only that leading block of ``input`` is read, as PyTorch; never
    broadcast). Gradients flow to ``input``.

    Raises
    ------
    RuntimeError
        ``index`` with another number of dimensions (PyTorch's error).
    IndexError
        ``dim`` or an index out of range.
    """
    from .._tensor_methods import gather as _gather

    return _gather(input, dim, index)


@overridable
def unbind(input, dim=0):
    """A tuple of the slices along ``dim`` (PyTorch ``torch.unbind``; the standard's
    :func:`arrayflow.unstack`)."""
    return _m.unstack(input, axis=dim)


@overridable
def repeat_interleave(input, repeats, dim=None):
    """Repeat each element ``repeats`` times along ``dim`` (flattened when None)
    (PyTorch ``torch.repeat_interleave``; the standard's :func:`arrayflow.repeat`)."""
    return _m.repeat(input, repeats, axis=dim)
