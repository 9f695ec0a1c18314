"""Neural-network building blocks with PyTorch's semantics: :class:`Module`,
:class:`Parameter`, the containers, layers and losses (:mod:`.layers`), the
functional API (:mod:`.functional`) and the initializers (:mod:`.init`).

Imports no array library: a backend's library is imported when a Tensor is made.
"""

from . import functional, init
from .containers import ModuleDict, ModuleList, Sequential
from .layers import *  # noqa: F403
from .layers import __all__ as _layers_all
from .module import Module, RemovableHandle
from .parameter import Parameter

__all__ = ["Module", "ModuleDict", "ModuleList", "Parameter", "RemovableHandle", "Sequential",
           "functional", "init", *_layers_all]
