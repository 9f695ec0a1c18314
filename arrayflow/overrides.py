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
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import warnings
from dataclasses import dataclass, field

from .ops import _registry

__all__ = [
    "ArrayflowFunctionMode", "DisableArrayflowFunction", "DisableArrayflowFunctionSubclass",
    "disable_arrayflow_function_subclass", "disabled_arrayflow_function_impl",
    "explain_dispatch", "get_ignored_functions", "get_overridable_functions",
    "get_testing_overrides", "handle_arrayflow_function", "has_arrayflow_function",
    "is_tensor_like", "overridable", "protocol_form", "protocol_method", "resolve_name",
    "DispatchReport",
]

_State = _registry.DispatchState
_state = _registry._dispatch_state


def _current() -> _State:
    st = _state.get()
    return st if st is not None else _State()


# --- ordering and calling ---------------------------------------------------------------------

def _ordered_types(overloaded):
    """Distinct types of ``overloaded``: subclasses before superclasses, else left to right."""
    types: list[type] = []
    for a in overloaded:
        t = type(a)
        if t not in types:
            types.append(t)
    ordered: list[type] = []
    for t in types:
        idx = len(ordered)
        for i, o in enumerate(ordered):
            if issubclass(t, o) and t is not o:
                idx = i
                break
        ordered.insert(idx, t)
    return ordered


_active: contextvars.ContextVar[frozenset] = contextvars.ContextVar(
    "arrayflow_active_overrides", default=frozenset())


def _handle(func, overloaded, args, kwargs):
    types = _ordered_types(overloaded)
    # pytorch#55284: an override that calls ``func`` again on the very same objects would
    # recurse forever; stop at the first repeat with an explanation.
    key = (func, tuple(id(a) for a in overloaded))
    active = _active.get()
    if key in active:
        raise TypeError(
            f"{_qualname(func)}: __arrayflow_function__ of {types[0].__name__} called "
            f"{_qualname(func)} again with the same arguments, which would recurse forever. "
            f"Unwrap your objects (pass Tensors) before calling arrayflow inside "
            f"__arrayflow_function__, or run the call under "
            f"arrayflow.overrides.DisableArrayflowFunction().")
    token = _active.set(active | {key})
    try:
        tt = tuple(types)
        for t in types:
            impl = protocol_method(t, _first_of_type(overloaded, t))
            result = impl(func, tt, tuple(args), dict(kwargs))
            if result is not NotImplemented:
                return result
    finally:
        _active.reset(token)
    raise TypeError(_no_impl_message(func, types))


def _first_of_type(overloaded, t):
    """The first argument of exact type ``t`` (PyTorch calls each type's method on it)."""
    for a in overloaded:
        if type(a) is t:
            return a
    raise AssertionError(f"no argument of type {t.__name__}")  # pragma: no cover


_plain_method_warned = False


def protocol_method(t: type, instance=None, *, mode: bool = False):
    """How to call ``__arrayflow_function__`` of type ``t``: the callable that takes
    ``(func, types, args, kwargs)``.

    The one place that decides it, used by dispatch, modes, :func:`explain_dispatch`
    and the conformance runner. As in PyTorch, the attribute is looked up on the
    instance, so all three spellings work:

    - a ``classmethod`` (recommended) is bound to ``t``;
    - a ``staticmethod`` is called as is;
    - a plain instance method ``def __arrayflow_function__(self, func, types, args=(),
      kwargs=None)`` (the seeds' ScalarTensor and MetadataTensor) is bound to
      ``instance``, the first argument of that type in the call. PyTorch accepts it
      with a one-time ``UserWarning`` ("Defining your `__torch_function__` as a plain
      method is deprecated ..."), issued once per process; so does arrayflow.

    Parameters
    ----------
    t : type
        A type that defines ``__arrayflow_function__``.
    instance : object, optional
        An instance of ``t`` (required when the method is a plain instance method).
    mode : bool, default False
        ``instance`` is an :class:`ArrayflowFunctionMode`, whose plain method is the
        normal spelling (no warning, as in PyTorch's ``TorchFunctionMode``).

    Returns
    -------
    callable
        ``impl(func, types, args, kwargs)``.

    Raises
    ------
    TypeError
        If ``t`` does not define ``__arrayflow_function__``, or it is a plain instance
        method and no ``instance`` was given.
    """
    global _plain_method_warned
    if protocol_form(t) != "instance method":
        return t.__arrayflow_function__  # bound to the class, or static
    if instance is None:
        raise TypeError(f"protocol_method: {t.__name__}.__arrayflow_function__ is a plain "
                        f"instance method; pass an instance of {t.__name__} to call it on")
    if not mode and not _plain_method_warned:
        _plain_method_warned = True
        warnings.warn(
            "Defining your `__arrayflow_function__` as a plain method is deprecated and will "
            "be an error in future, please define it as a classmethod.", UserWarning,
            stacklevel=4)
    return t.__arrayflow_function__.__get__(instance, t)


def protocol_form(t: type) -> str:
    """How type ``t`` spells ``__arrayflow_function__``: ``"classmethod"``,
    ``"staticmethod"``, ``"instance method"`` (a plain function in the class body, bound
    to an instance by :func:`protocol_method`) or ``"other"`` (a callable object).

    Raises
    ------
    TypeError
        If ``t`` does not define ``__arrayflow_function__``.
    """
    for klass in t.__mro__:
        if "__arrayflow_function__" in vars(klass):
            raw = vars(klass)["__arrayflow_function__"]
            break
    else:
        raise TypeError(f"protocol_method: {t.__name__} does not define "
                        f"__arrayflow_function__")
    if isinstance(raw, classmethod):
        return "classmethod"
    if isinstance(raw, staticmethod):
        return "staticmethod"
    return "instance method" if inspect.isfunction(raw) else "other"


def _qualname(func) -> str:
    qual = getattr(func, "__qualname__", "")
    if qual.startswith("Tensor."):  # a Tensor method or operator
        return f"arrayflow.{qual}"
    return f"{func.__module__}.{func.__name__}"


def _no_impl_message(func, types, mode=None):
    msg = (f"no implementation found for '{_qualname(func)}' on types that implement "
           f"__arrayflow_function__: [{', '.join(t.__name__ for t in types)}]")
    st = _state.get()
    if st is not None and st.modes:
        msg += f" (active mode: {type(st.modes[-1]).__name__})"
    return msg


def _run_mode(func, args, kwargs, overloaded):
    """Give the innermost mode the call, with the mode popped while it runs."""
    st = _state.get()
    mode = st.modes[-1]
    types = tuple(_ordered_types(overloaded or ()))
    token = _state.set(_State(st.modes[:-1], st.disable_subclass, st.disable_all))
    try:
        impl = protocol_method(type(mode), mode, mode=True)
        return impl(func, types, tuple(args), dict(kwargs or {}))
    finally:
        _state.reset(token)


# --- public helpers ---------------------------------------------------------------------------

def _overloads(a) -> bool:
    t = type(a)
    if not hasattr(t, "__arrayflow_function__"):
        return False
    st = _state.get()
    if st is not None and st.disable_all:
        return False
    if isinstance(a, _registry.Tensor):
        if st is not None and st.disable_subclass:
            return False  # inside a Tensor subclass's default __arrayflow_function__
        return t is not _registry.Tensor and _registry._subclass_dispatches(t)
    return True


def _relevant(args, kwargs=None):
    out = []
    for a in (*args, *(kwargs or {}).values()):
        if type(a) in (list, tuple):
            out.extend(e for e in a if _overloads(e))
        elif _overloads(a):
            out.append(a)
    return out


def handle_arrayflow_function(public_api, relevant_args, *args, **kwargs):
    """Dispatch ``public_api(*args, **kwargs)`` to the overrides among ``relevant_args``.

    For third-party functions that want to be overridable (PyTorch's
    ``handle_torch_function``); see also :func:`overridable`.

    Raises
    ------
    TypeError
        If every implementation returns ``NotImplemented``.
    """
    overloaded = [a for a in relevant_args if _overloads(a)]
    st = _state.get()
    if st is not None and st.modes:
        r = _run_mode(public_api, args, kwargs, overloaded)
        if r is not NotImplemented:
            return r
    return _handle(public_api, overloaded, args, kwargs)


def has_arrayflow_function(relevant_args) -> bool:
    """Whether any of ``relevant_args`` overrides arrayflow functions (or a mode is active)."""
    st = _state.get()
    if st is not None and st.modes:
        return True
    return any(_overloads(a) for a in relevant_args)


def is_tensor_like(obj) -> bool:
    """True for Tensors and for objects whose type defines ``__arrayflow_function__``."""
    return isinstance(obj, _registry.Tensor) or hasattr(type(obj), "__arrayflow_function__")


def overridable(func):
    """Decorator: make a third party's own function overridable like arrayflow's.

    Every argument (and list/tuple element) is checked for
    ``__arrayflow_function__``; modes see the call too.
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        st = _state.get()
        relevant = _relevant(args, kwargs)
        if relevant or (st is not None and st.modes and not st.disable_all):
            return handle_arrayflow_function(wrapper, relevant, *args, **kwargs)
        return func(*args, **kwargs)

    _THIRD_PARTY.append(wrapper)
    return wrapper


_THIRD_PARTY: list = []


# --- switches -----------------------------------------------------------------------------------

@contextlib.contextmanager
def _switch(**changes):
    st = _current()
    new = _State(st.modes, changes.get("disable_subclass", st.disable_subclass),
                 changes.get("disable_all", st.disable_all))
    token = _state.set(new)
    try:
        yield
    finally:
        _state.reset(token)


class DisableArrayflowFunction:
    """Context manager: no ``__arrayflow_function__`` is called inside (modes neither)."""

    def __enter__(self):
        self._cm = _switch(disable_all=True)
        self._cm.__enter__()
        return self

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


class DisableArrayflowFunctionSubclass:
    """Context manager: Tensor subclasses behave as plain Tensors inside."""

    def __enter__(self):
        self._cm = _switch(disable_subclass=True)
        self._cm.__enter__()
        return self

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def disable_arrayflow_function_subclass():
    """``with disable_arrayflow_function_subclass():`` (PyTorch's spelling)."""
    return DisableArrayflowFunctionSubclass()


def disabled_arrayflow_function_impl(cls, func, types, args=(), kwargs=None):
    """Set ``__arrayflow_function__ = disabled_arrayflow_function_impl`` on a Tensor
    subclass (``nn.Parameter``) to make it behave as a plain Tensor in every function.
    """
    return NotImplemented  # never called: the dispatcher recognises this object


_registry._DISABLED_IMPL = disabled_arrayflow_function_impl


class ArrayflowFunctionMode:
    """Base class of modes: ``__arrayflow_function__`` sees every arrayflow call inside
    ``with YourMode():`` (factories such as ``zeros`` and ``arange`` too).

    Modes nest; the innermost runs first and is popped while its handler runs, so
    calling ``func(*args, **kwargs)`` there reaches the next mode or the real
    implementation. Returning ``NotImplemented`` hands the call on.
    """

    def __arrayflow_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))

    def __enter__(self):
        # PyTorch's TorchFunctionMode pushes on every entry: the same instance entered
        # twice (nested) is on the stack twice and its handler runs twice per call
        st = _current()
        _state.set(_State(st.modes + (self,), st.disable_subclass, st.disable_all))
        return self

    def __exit__(self, *exc):
        # pop this mode's innermost entry from the current context's stack (the state
        # before the matching ``__enter__``, whatever happened in between, also when
        # the same instance is nested or used by several threads); a per-instance token
        # would be overwritten by a nested entry and leave the mode active
        st = _current()
        modes = st.modes
        for i in range(len(modes) - 1, -1, -1):
            if modes[i] is self:
                rest = modes[:i] + modes[i + 1:]
                default = not (rest or st.disable_subclass or st.disable_all)
                # the default state is None (dispatch's fast path), as before the entry
                _state.set(None if default else _State(rest, st.disable_subclass,
                                                       st.disable_all))
                return False
        raise RuntimeError(
            f"{type(self).__name__}.__exit__: this mode is not active in this context "
            f"(exited more often than entered, or entered in another thread)")


# --- the testing API ------------------------------------------------------------------------------

# The public namespaces the testing API lists, in this order (``arrayflow``,
# ``arrayflow.linalg``, ``arrayflow.fft``, ``arrayflow.nn.functional``). They sit above this
# module, so ``arrayflow/__init__.py`` hands them down once they are imported (imports flow
# one way: tests/test_layers.py).
_NAMESPACES: list = []


def _namespaces():
    return list(_NAMESPACES)


def get_overridable_functions() -> dict:
    """``{namespace: [functions]}`` of everything that dispatches on ``__arrayflow_function__``.

    Namespaces are the modules (``arrayflow``, ``arrayflow.linalg``,
    ``arrayflow.fft``, ``arrayflow.nn.functional``), plus ``arrayflow.Tensor`` for its
    methods and operators. As in PyTorch, a module's entry lists what its public names
    (no leading ``_``) hold: private helpers and re-exported modules are left out.
    """
    out: dict = {}
    for ns in _namespaces():
        seen = []
        for name in dir(ns):
            if name.startswith("_"):
                continue
            obj = getattr(ns, name)
            if (isinstance(obj, _registry.Op) or obj in _THIRD_PARTY) and obj not in seen:
                seen.append(obj)
        out[ns] = seen
    out[_registry.Tensor] = [getattr(_registry.Tensor, n) for n in _tensor_methods()]
    return out


def resolve_name(f) -> str | None:
    """A readable name for a function passed to ``__arrayflow_function__``, or None.

    ``resolve_name(arrayflow.add)`` is ``"arrayflow.add"``,
    ``resolve_name(arrayflow.Tensor.sum)`` is ``"arrayflow.Tensor.sum"``; evaluated
    (after ``import arrayflow``) the name gives back ``f``. An alias is its own object
    and resolves to its own name (``resolve_name(arrayflow.mul)`` is
    ``"arrayflow.mul"``, as PyTorch's ``torch.mul``). Anything not overridable gives
    None. PyTorch
    ``torch.overrides.resolve_name``.
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
    seeding, grad modes, dtype objects, classes)."""
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


# --- explain_dispatch ---------------------------------------------------------------------------

@dataclass
class DispatchReport:
    """What :func:`explain_dispatch` found: collected arguments, order, and each outcome."""

    function: str
    collected: list = field(default_factory=list)  # (where, type name)
    order: list = field(default_factory=list)  # (type name, why here)
    outcomes: list = field(default_factory=list)  # (who, result repr or exception)
    mode: str | None = None
    result: object = None

    def __str__(self) -> str:
        lines = [f"dispatch of {self.function}:"]
        if self.mode:
            lines.append(f"  active mode: {self.mode} (called first)")
        if not self.collected:
            lines.append("  no argument overrides: the arrayflow implementation runs")
        for where, tname in self.collected:
            lines.append(f"  collected {tname} from {where}")
        for i, (tname, why) in enumerate(self.order, 1):
            lines.append(f"  {i}. {tname}: {why}")
        for who, what in self.outcomes:
            lines.append(f"  -> {who} returned {what}")
        return "\n".join(lines)


def explain_dispatch(func, *args, **kwargs) -> DispatchReport:
    """Run ``func(*args, **kwargs)`` and report how it was dispatched.

    Lists which arguments were collected as overriding (and from which
    position), the order the types are tried in and why, and what each
    ``__arrayflow_function__`` returned. The final result is ``report.result``
    (an exception is recorded in ``outcomes`` and re-raised).
    """
    rep = DispatchReport(_qualname(func))
    overloaded = []
    for i, a in enumerate(args):
        if type(a) in (list, tuple):
            for j, e in enumerate(a):
                if _overloads(e):
                    overloaded.append(e)
                    rep.collected.append((f"args[{i}][{j}]", type(e).__name__))
        elif _overloads(a):
            overloaded.append(a)
            rep.collected.append((f"args[{i}]", type(a).__name__))
    for k, v in kwargs.items():
        if _overloads(v):
            overloaded.append(v)
            rep.collected.append((f"kwargs[{k!r}]", type(v).__name__))
    types = _ordered_types(overloaded)
    first_seen = [type(a) for a in overloaded]
    for t in types:
        subs_of = [o.__name__ for o in types if o is not t and issubclass(t, o)]
        why = (f"subclass of {', '.join(subs_of)}, so before it" if subs_of else
               f"first appears at position {first_seen.index(t)} (left to right)")
        rep.order.append((t.__name__, why))
    st = _state.get()
    if st is not None and st.modes:
        rep.mode = type(st.modes[-1]).__name__
    tt = tuple(types)
    if not types:
        rep.result = func(*args, **kwargs)
        rep.outcomes.append(("arrayflow", _short(rep.result)))
        return rep
    for t in types:
        try:
            r = protocol_method(t, _first_of_type(overloaded, t))(func, tt, tuple(args),
                                                                   dict(kwargs))
        except Exception as e:
            rep.outcomes.append((t.__name__, f"raised {type(e).__name__}: {e}"))
            raise
        rep.outcomes.append((t.__name__, _short(r)))
        if r is not NotImplemented:
            rep.result = r
            return rep
    err = TypeError(_no_impl_message(func, types))
    rep.outcomes.append(("dispatcher", f"raised TypeError: {err}"))
    raise err


def _short(r):
    if r is NotImplemented:
        return "NotImplemented"
    text = repr(r)
    return text if len(text) < 80 else text[:77] + "..."


def _dispatch_hook(op_, overloaded, args, kwargs):
    return _handle(op_, overloaded, args, kwargs)


_registry._override_hook = _dispatch_hook
_registry._mode_hook = _run_mode
