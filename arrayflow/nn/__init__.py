"""Neural-network building blocks with PyTorch's semantics: :class:`Module`,
:class:`Parameter` and the containers.

Imports no array library: a backend's library is imported when a Tensor is made.
"""

from .containers import ModuleDict, ModuleList, Sequential
from .module import Module, RemovableHandle
from .parameter import Parameter

__all__ = ["Module", "ModuleDict", "ModuleList", "Parameter", "RemovableHandle", "Sequential"]
