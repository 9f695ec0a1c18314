"""``Parameter``: a Tensor that a :class:`~arrayflow.nn.Module` registers as a parameter."""

from __future__ import annotations

from ..ops import creation
from ..overrides import disabled_arrayflow_function_impl
from ..tensor import Tensor

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A Tensor that is a Module parameter (PyTorch ``nn.Parameter``).

    Assigning a Parameter as a Module attribute registers it: it appears in
    ``parameters()`` and ``state_dict()``. The Parameter shares ``data``'s storage
    and requires grad by default. Operations on Parameters return plain Tensors
    (``__arrayflow_function__`` is disabled, as in PyTorch).

    Parameters
    ----------
    data : Tensor, optional
        The values; its storage is shared, not copied. None gives an empty 1-D
        Tensor of the default dtype on the current backend.
    requires_grad : bool, default True
        Whether the Parameter requires grad.

    Raises
    ------
    TypeError
        If ``data`` is not a Tensor (``Parameter: expected a Tensor, got <type>``).
    RuntimeError
        If ``requires_grad`` is true and ``data`` has no floating dtype.
    """

    __arrayflow_function__ = classmethod(disabled_arrayflow_function_impl)

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = creation.empty((0,))
        if not isinstance(data, Tensor):
            raise TypeError(
                f"Parameter: expected 'data' to be a Tensor, got {type(data).__name__}")
        self = object.__new__(cls)
        self._init(data._cell.array, data._backend, data._cell)
        if requires_grad:
            self.requires_grad_(True)
        return self

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass  # everything happens in __new__ (Tensor.__init__ takes sizes)

    def __repr__(self) -> str:
        t = Tensor._from_array(self._cell.array, self._backend, self._cell)
        t._requires_grad = self._requires_grad
        return "Parameter containing:\n" + Tensor.__repr__(t)

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        raise TypeError("Parameter: pickling is not supported; use arrayflow.save")

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = Parameter(self.detach().clone(), self.requires_grad)
        memo[id(self)] = result
        return result
