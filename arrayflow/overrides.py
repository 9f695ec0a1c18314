"""The ``__arrayflow_function__`` protocol: PyTorch's ``__torch_function__`` for arrayflow.

When an argument of a public arrayflow function (or an element of a list/tuple
argument, or a keyword argument) is of a type other than exact ``Tensor``, a
backend array or a Python scalar, and that type defines
``__arrayflow_function__``, the call is handed to it::

    arg.__arrayflow_function__(func, types, args, kwargs)

looked up on the first argument of each type, as PyTorch does, so a ``classmethod``
(recommended), a ``staticmethod`` and a plain instance method (the seeds' spelling,
with PyTorch's one-time warning) all work: :func:`protocol_method` decides.
``func`` is the public function object (``arrayflow.mean``), so dispatch
tables keyed by it work. Each type is called once, subclasses before
superclasses, otherwise left to right (NEP 18's and PyTorch's rules); the first
result that is not ``NotImplemented`` wins; if every one returns
``NotImplemented`` a ``TypeError`` names the function and the types.

Tensor subclasses take part too: the default :meth:`Tensor.__arrayflow_function__`
runs the function with subclass dispatch disabled and returns results as the
subclass (PyTorch >= 1.7), gradients included.

Modes (:class:`ArrayflowFunctionMode`) see every call, factories included.

Testing API: :func:`get_overridable_functions`, :func:`get_testing_overrides`
(generated from the real signatures), :func:`get_ignored_functions`, and
:func:`explain_dispatch`, which shows how one call would be dispatched.

The protocol itself -- which arguments take part, their order, modes, switches,
:func:`explain_dispatch` -- is :mod:`arrayflow._dispatch` (below the op table, which
calls it on every op); this module re-exports it and adds the testing API, which reads
the op table.
"""

from __future__ import annotations

import inspect
import sys
from typing import Any

from . import _dispatch
from ._dispatch import (
    ArrayflowFunctionMode,
    DisableArrayflowFunction,
    DisableArrayflowFunctionSubclass,
    DispatchReport,
    disable_arrayflow_function_subclass,
    disabled_arrayflow_function_impl,
    explain_dispatch,
    handle_arrayflow_function,
    has_arrayflow_function,
    is_tensor_like,
    overridable,
    protocol_form,
    protocol_method,
)
from .ops import _registry

__all__ = [
    "ArrayflowFunctionMode", "DisableArrayflowFunction", "DisableArrayflowFunctionSubclass",
    "disable_arrayflow_function_subclass", "disabled_arrayflow_function_impl",
    "explain_dispatch", "get_ignored_functions", "get_overridable_functions",
    "get_testing_overrides", "handle_arrayflow_function", "has_arrayflow_function",
    "is_tensor_like", "overridable", "protocol_form", "protocol_method", "resolve_name",
    "DispatchReport",
]

# how dispatch names a function in its messages (the conformance runner matches them)
_qualname = _dispatch._qualname


# --- the testing API ------------------------------------------------------------------------------

# The public namespaces the testing API lists, in this order. They sit above this module
# (imports flow one way: tests/test_layers.py), so they are looked up by name when the
# testing API is called; importing ``arrayflow.overrides`` has imported them all by then.
_NAMESPACE_NAMES = ("arrayflow", "arrayflow.linalg", "arrayflow.fft", "arrayflow.nn.functional")


def _namespaces():
    return [sys.modules[n] for n in _NAMESPACE_NAMES if n in sys.modules]


def get_overridable_functions() -> dict:
    """``{namespace: [functions]}`` of everything that dispatches on ``__arrayflow_function__``.

    Namespaces are the modules (``arrayflow``, ``arrayflow.linalg``,
    ``arrayflow.fft``, ``arrayflow.nn.functional``), plus ``arrayflow.Tensor`` for its
    methods and operators. As in PyTorch, a module's entry lists what its public names
    (no leading ``_``) hold: private helpers and re-exported modules are left out.

    Returns
    -------
    dict
        Namespace (module, or the Tensor class) -> list of its overridable functions;
        custom ops (:mod:`arrayflow.library`) under ``arrayflow.library``.
    """
    out: dict = {}
    for ns in _namespaces():
        seen = []
        for name in dir(ns):
            if name.startswith("_"):
                continue
            obj = getattr(ns, name)
            if (isinstance(obj, _registry.Op) or obj in _dispatch._THIRD_PARTY) \
                    and obj not in seen:
                seen.append(obj)
        out[ns] = seen
    out[_registry.Tensor] = [getattr(_registry.Tensor, n) for n in _tensor_methods()]
    library = sys.modules.get("arrayflow.library")
    if library is not None and _dispatch.CUSTOM_OPS:
        out[library] = list(_dispatch.CUSTOM_OPS)
    return out


def resolve_name(f: Any) -> str | None:
    """A readable name for a function passed to ``__arrayflow_function__``, or None.

    ``resolve_name(arrayflow.add)`` is ``"arrayflow.add"``,
    ``resolve_name(arrayflow.Tensor.sum)`` is ``"arrayflow.Tensor.sum"``; evaluated
    (after ``import arrayflow``) the name gives back ``f``. An alias is its own object
    and resolves to its own name (``resolve_name(arrayflow.mul)`` is
    ``"arrayflow.mul"``, as PyTorch's ``torch.mul``). Anything not overridable gives
    None. PyTorch
    ``torch.overrides.resolve_name``.

    Parameters
    ----------
    f : callable
        A function handed to ``__arrayflow_function__``.

    Returns
    -------
    str or None
        Its qualified name, None if it is not overridable.
    """
    try:
        hash(f)
    except TypeError:
        return None
    tensor = _registry.Tensor
    for ns, funcs in get_overridable_functions().items():
        if not any(g is f for g in funcs):
            continue
        if ns is tensor:
            for name, obj in vars(tensor).items():
                if obj is f:
                    return f"arrayflow.Tensor.{name}"
            continue
        own = getattr(f, "__name__", None)
        if own is not None and getattr(ns, own, None) is f:
            return f"{ns.__name__}.{own}"
        for name in dir(ns):
            if not name.startswith("_") and getattr(ns, name, None) is f:
                return f"{ns.__name__}.{name}"
    return None


def _tensor_methods():
    names = []
    for name, obj in vars(_registry.Tensor).items():
        if isinstance(obj, _registry.Op) or name in _OPERATORS or getattr(obj, "_arrayflow_method",
                                                                  False):
            names.append(name)
    return sorted(names)


_OPERATORS = frozenset(
    f"__{p}{n}__" for n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
                             "matmul", "and", "or", "xor", "lshift", "rshift")
    for p in ("", "r", "i")) | frozenset(
    f"__{n}__" for n in ("lt", "le", "gt", "ge", "eq", "ne", "neg", "pos", "abs", "invert"))


def _dummy_for(func):
    sig = inspect.signature(func)
    params = []
    defaults = {}
    for i, p in enumerate(sig.parameters.values()):
        if p.default is not inspect.Parameter.empty:
            defaults[f"_d{i}"] = p.default
            p = p.replace(default=_Token(f"_d{i}"))
        params.append(p.replace(annotation=inspect.Parameter.empty))
    # PyTorch's dummies are lambdas: no annotations (the 2020 note prints one's signature)
    text = str(sig.replace(parameters=params, return_annotation=inspect.Signature.empty))
    ns = dict(defaults)
    exec(f"def dummy{text}:\n    return -1\n", ns)  # noqa: S102 - code generated from signatures
    dummy = ns["dummy"]
    dummy.__name__ = getattr(func, "__name__", "dummy")
    return dummy


class _Token:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


def get_testing_overrides() -> dict:
    """``{function: dummy}`` for every overridable function: a lambda-like function
    with exactly its signature that returns -1 (generated, never hand-written).

    Returns
    -------
    dict
        Overridable function -> a dummy with its signature returning -1.
    """
    out = {}
    for funcs in get_overridable_functions().values():
        for f in funcs:
            try:
                out[f] = _dummy_for(f)
            except (TypeError, ValueError):  # a C slot wrapper without a signature
                out[f] = lambda *args, **kwargs: -1
    return out


def get_ignored_functions() -> set:
    """Public callables of the arrayflow namespaces that are not overridable (selection,
    seeding, grad modes, dtype objects, classes).

    Returns
    -------
    set
        The public callables that do not dispatch.
    """
    overridable_ = {id(f) for fs in get_overridable_functions().values() for f in fs}
    out = set()
    for ns in _namespaces():
        for name in getattr(ns, "__all__", None) or dir(ns):
            if name.startswith("_") and name != "__array_namespace_info__":
                continue
            obj = getattr(ns, name, None)
            if callable(obj) and not isinstance(obj, type) and id(obj) not in overridable_:
                out.add(obj)
    return out


