"""The ``__arrayflow_function__`` protocol (PyTorch's ``__torch_function__`` rules).

When an argument of a public arrayflow function (or an element of a sequence
argument) has a type other than Tensor, backend array or Python scalar that
defines ``__arrayflow_function__``, the call is handed to it::

    type(arg).__arrayflow_function__(func, types, args, kwargs)

``func`` is the public function object (``arrayflow.mean``), so tables keyed by
it work. Types are tried once each, subclasses before superclasses, otherwise
left to right; the first result that is not ``NotImplemented`` wins. If all
return ``NotImplemented`` a ``TypeError`` names the function and the types.

Only the core of the protocol lives here so far; modes and the testing API
(``get_testing_overrides``...) are built on it.
"""

from __future__ import annotations

from .ops import _registry

__all__ = ["handle_arrayflow_function", "has_arrayflow_function", "is_tensor_like"]


def _ordered_types(overloaded):
    types: list[type] = []
    for a in overloaded:
        t = type(a)
        if t not in types:
            types.append(t)
    # Subclasses before superclasses, otherwise left to right (NEP 18 / PyTorch).
    ordered: list[type] = []
    for t in types:
        idx = len(ordered)
        for i, o in enumerate(ordered):
            if issubclass(t, o) and t is not o:
                idx = i
                break
        ordered.insert(idx, t)
    return ordered


def handle_arrayflow_function(public_api, relevant_args, *args, **kwargs):
    """Call the ``__arrayflow_function__`` of each overloaded type in ``relevant_args``.

    Parameters
    ----------
    public_api : callable
        The public function being called (passed on as ``func``).
    relevant_args : iterable
        The arguments that may overload (already filtered or not).
    *args, **kwargs
        The original call's arguments.

    Raises
    ------
    TypeError
        If every implementation returns ``NotImplemented``.
    """
    overloaded = [a for a in relevant_args if _overloads(a)]
    return _handle(public_api, overloaded, args, kwargs)


def _overloads(a) -> bool:
    t = type(a)
    if not hasattr(t, "__arrayflow_function__"):
        return False
    if isinstance(a, _registry.Tensor):
        return _registry._has_own_override(t)
    return True


def _handle(func, overloaded, args, kwargs):
    types = _ordered_types(overloaded)
    for t in types:
        result = t.__arrayflow_function__(func, tuple(types), tuple(args), dict(kwargs))
        if result is not NotImplemented:
            return result
    name = f"{func.__module__}.{func.__name__}"
    raise TypeError(
        f"no implementation found for '{name}' on types that implement "
        f"__arrayflow_function__: [{', '.join(t.__name__ for t in types)}]"
    )


def has_arrayflow_function(relevant_args) -> bool:
    """Whether any of ``relevant_args`` overloads arrayflow functions."""
    return any(_overloads(a) for a in relevant_args)


def is_tensor_like(obj) -> bool:
    """True for Tensors and objects whose type defines ``__arrayflow_function__``."""
    return isinstance(obj, _registry.Tensor) or hasattr(type(obj), "__arrayflow_function__")


def _dispatch_hook(op_, overloaded, args, kwargs):
    return _handle(op_, overloaded, args, kwargs)


_registry._override_hook = _dispatch_hook
