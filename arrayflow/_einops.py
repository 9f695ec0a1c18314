"""The einops backend for arrayflow Tensors: top-level ``einops.rearrange``, ``reduce``,
``repeat``, ``einsum``, ``pack`` and ``unpack`` accept Tensors, differentiably.

How einops finds a backend (einops 0.8, ``einops/_backends.py``): ``get_backend(tensor)``
walks ``AbstractBackend.__subclasses__()`` and instantiates each subclass whose
``framework_name`` is a module in ``sys.modules``. So the subclass must exist before the
first einops call on a Tensor. arrayflow never imports einops itself: :func:`install`
(called when arrayflow is imported) defines the backend at once when ``einops._backends``
is already imported, and otherwise leaves a one-shot import hook that defines it right
after einops imports ``einops._backends``.

Every method is an arrayflow function, so the results are Tensors on the input's backend
(NumPy, array_api_strict, Dask, ...) and carry autograd history (reverse and forward mode).
"""

from __future__ import annotations

import importlib.abc
import sys
from typing import Any

__all__ = ["install", "backend_class"]

_TARGET = "einops._backends"
_CLASS: list[Any] = []  # the backend class, once defined


def backend_class() -> Any:
    """The einops backend class for arrayflow (defined on first call; imports einops)."""
    if _CLASS:
        return _CLASS[0]
    from einops._backends import AbstractBackend

    import arrayflow as af

    class ArrayflowBackend(AbstractBackend):
        """einops' backend for :class:`arrayflow.Tensor` (any arrayflow backend)."""

        framework_name = "arrayflow"

        def is_appropriate_type(self, tensor: Any) -> bool:
            return isinstance(tensor, af.Tensor)

        def from_numpy(self, x: Any) -> Any:
            t = af.asarray(x)
            if t.dtype.kind == "real floating":  # as einops' torch backend: floats need grad
                t.requires_grad_(True)
            return t

        def to_numpy(self, x: Any) -> Any:
            return x.detach().numpy()

        def arange(self, start: int, stop: int) -> Any:
            return af.arange(start, stop, dtype=af.int64)

        def shape(self, x: Any) -> tuple:
            return tuple(x.shape)

        def reshape(self, x: Any, shape: Any) -> Any:
            return af.reshape(x, tuple(shape))

        def transpose(self, x: Any, axes: Any) -> Any:
            return af.permute_dims(x, tuple(axes))

        def reduce(self, x: Any, operation: str, axes: Any) -> Any:
            axes = tuple(axes)
            if operation in ("min", "max", "sum", "mean", "prod", "any", "all"):
                return getattr(af, operation)(x, axis=axes)
            raise NotImplementedError(f"einops: unknown reduction {operation!r}")

        def stack_on_zeroth_dimension(self, tensors: list) -> Any:
            return af.stack(list(tensors))

        def add_axis(self, x: Any, new_position: int) -> Any:
            return af.expand_dims(x, axis=new_position)

        def add_axes(self, x: Any, n_axes: int, pos2len: dict) -> Any:
            for pos in pos2len:  # einops' order: ascending final positions
                x = af.expand_dims(x, axis=pos)
            shape = list(x.shape)
            for pos, n in pos2len.items():
                shape[pos] = n
            return af.broadcast_to(x, tuple(shape))

        def tile(self, x: Any, repeats: Any) -> Any:
            return af.tile(x, tuple(repeats))

        def concat(self, tensors: list, axis: int) -> Any:
            return af.concat(list(tensors), axis=axis)

        def is_float_type(self, x: Any) -> bool:
            return x.dtype.kind == "real floating"

        def einsum(self, pattern: str, *x: Any) -> Any:
            return af.einsum(pattern, *x)

    _CLASS.append(ArrayflowBackend)
    return ArrayflowBackend


class _Hook(importlib.abc.MetaPathFinder):
    """Defines the backend right after ``einops._backends`` is imported (then leaves)."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != _TARGET:
            return None
        sys.meta_path.remove(self)
        spec = None
        for finder in sys.meta_path:  # the finder that would have found it without us
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find is not None else None
            if spec is not None:
                break
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        exec_module = loader.exec_module

        def exec_and_register(module: Any) -> None:
            exec_module(module)
            sys.modules[fullname] = module
            backend_class()

        loader.exec_module = exec_and_register
        return spec


def install() -> None:
    """Make einops know arrayflow Tensors: now if einops is imported, else when it is."""
    if _TARGET in sys.modules:
        backend_class()
        return
    if not any(isinstance(f, _Hook) for f in sys.meta_path):
        sys.meta_path.insert(0, _Hook())
