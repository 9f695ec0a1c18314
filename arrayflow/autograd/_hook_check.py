"""The check every gradient returned by a user hook goes through.

PyTorch validates what a hook returns against the gradient it replaces: same
shape (``hook 'h' has changed the size of value``), same dtype, same device; it
never broadcasts or casts. Module backward hooks use this; the Tensor-hook path of
the engine can call the same function.
"""

from __future__ import annotations

from typing import Any

from ..ops import _registry

__all__ = ["check_hook_grad", "hook_name"]


def hook_name(hook: object) -> str:
    """The name PyTorch shows for a hook: its ``__name__``, else its repr."""
    name = getattr(hook, "__name__", None)
    return name if isinstance(name, str) else repr(hook)


def check_hook_grad(hook: object, value: Any, shape: tuple, dtype: Any, backend: Any,
                    where: str) -> Any:
    """Check ``value``, returned by ``hook``, can replace a gradient of that ``shape``,
    ``dtype`` and ``backend``; returns ``value`` (a Tensor or None).

    Parameters
    ----------
    hook : callable
        The user's hook (named in the error).
    value : Tensor or None
        What the hook returned for one gradient.
    shape, dtype, backend
        The gradient it replaces (or the Tensor the gradient is for).
    where : str
        The caller and position, e.g. ``"Module.register_full_backward_hook: grad_input[0]"``.

    Raises
    ------
    TypeError
        If ``value`` is neither a Tensor nor None.
    RuntimeError
        If its shape, dtype or backend differs (PyTorch: ``hook 'h' has changed the size of
        value``); no broadcasting or casting is done.
    """
    if value is None:
        return None
    name = hook_name(hook)
    if not isinstance(value, _registry.Tensor):
        raise TypeError(
            f"{where}: hook {name!r} returned {type(value).__name__}, expected a Tensor or None")
    if not value._backend.same_kind(backend):
        raise RuntimeError(
            f"{where}: hook {name!r} has changed the backend of value (was {backend.name!r} "
            f"got {value._backend.name!r})")
    if tuple(value.shape) != tuple(shape):
        raise RuntimeError(
            f"{where}: hook {name!r} has changed the size of value (was {tuple(shape)} got "
            f"{tuple(value.shape)}); gradients returned by hooks are not broadcast")
    if value.dtype is not dtype:
        raise RuntimeError(
            f"{where}: hook {name!r} has changed the type of value (was {dtype} got "
            f"{value.dtype}); gradients returned by hooks are not cast")
    return value
