"""``Variable``: PyTorch's deprecated pre-0.4 wrapper, kept as PyTorch keeps it.

Since PyTorch 0.4 a ``Variable`` is a Tensor: ``Variable(t, requires_grad=True)``
returns a plain Tensor (a detached alias of ``t``'s data that requires grad), and
``isinstance(t, Variable)`` holds for every Tensor. Old code (the seeds' Chinese
translation of "Extending PyTorch") runs unchanged. PyTorch issues no warning for
it, so neither does arrayflow (only ``volatile=True`` warns, as in PyTorch).
"""

from __future__ import annotations

import warnings

from .._typing import Array
from ..ops import _registry
from ..ops.creation import empty

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, _registry.Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False, volatile=False)``: returns a Tensor.

    Matches ``torch.autograd.Variable`` (PyTorch 2.x): the result is a new leaf
    Tensor sharing ``data``'s storage (``data.detach()``), with ``requires_grad``
    set as asked; ``Variable()`` is an empty float Tensor.

    Parameters
    ----------
    data : Tensor, optional
        The data (any shape and dtype).
    requires_grad : bool, default False
        Whether the result requires grad (floating and complex dtypes only).
    volatile : bool, default False
        Removed in PyTorch 0.4; ``True`` warns (``UserWarning``) and has no effect.

    Returns
    -------
    Tensor
        Not a ``Variable`` instance type-wise, but ``isinstance(result, Variable)``
        is True, as for every Tensor.

    Raises
    ------
    TypeError
        If ``data`` is not a Tensor (PyTorch: "Variable data has to be a tensor,
        but got float").
    RuntimeError
        ``requires_grad=True`` on an integer or boolean Tensor.
    """

    def __new__(cls, data: Array | None = None, requires_grad: bool = False,
                volatile: bool = False) -> Array:
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use "
                          "`with arrayflow.no_grad():` instead.", UserWarning, stacklevel=2)
        if data is None:
            out = empty((0,))
        elif not isinstance(data, _registry.Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got "
                            f"{type(data).__name__}")
        else:
            out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out
