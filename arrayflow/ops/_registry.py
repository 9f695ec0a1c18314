"""The op registry and the one wrapper every public function goes through.

An op is a forward function written against an array API namespace ``xp``::

    @op("exp")
    def exp(xp, x, /):
        y = xp.exp(x)
        return y, (y,)          # value, and what the VJP will need

The decorator returns an :class:`Op`: the public, callable function. Calling it
runs :func:`_dispatch`, which

1. looks at the arguments (and the elements of list/tuple arguments): Tensors
   are unwrapped to their backend arrays, backend arrays and Python scalars
   pass, and :mod:`arrayflow._dispatch` says whether anything else takes part in
   ``__arrayflow_function__`` dispatch;
2. hands the call to :func:`arrayflow._dispatch.dispatch_call` when something
   takes part or a mode is active (the whole protocol lives there);
3. finds the backend (the Tensors' one; creation functions use the current
   one) and checks that all Tensors share it;
4. calls ``forward(xp, ...)`` with raw arrays and wraps the result in Tensors.

The public signature (``inspect.signature(af.exp)``) is the forward's minus
``xp``.
"""

from __future__ import annotations

import functools
import inspect
import re
from typing import Any

from .. import _backend, _device, _dtypes
from .. import _dispatch as _proto
from .._backend import BackendMismatchError
from . import _blockwise

__all__ = ["Op", "AliasOp", "op", "alias", "OPS", "ALIASES", "SECTIONS", "DTYPE_CATEGORIES",
           "install", "unwrap", "wrap"]

OPS: dict[str, Op] = {}
"""Every op by qualified name (``"linalg.det"``), in registration order."""
ALIASES: dict[str, AliasOp] = {}
"""Every PyTorch spelling of an op (``"mul"``), by qualified name (see :func:`alias`)."""

SECTIONS: dict[str, str] = {
    "array_object": "Array Object",
    "constants": "Constants",
    "creation": "Creation Functions",
    "data_type": "Data Type Functions",
    "elementwise": "Element-wise Functions",
    "indexing": "Indexing Functions",
    "linear_algebra": "Linear Algebra Functions",
    "manipulation": "Manipulation Functions",
    "searching": "Searching Functions",
    "set": "Set Functions",
    "sorting": "Sorting Functions",
    "statistical": "Statistical Functions",
    "utility": "Utility Functions",
    "linalg": "Linear Algebra Extension",
    "fft": "Fourier Transform Functions",
    "torch": "PyTorch functions outside the standard",
    "lazy": "Dask's lazy evaluation (compute, persist, chunks)",
}
"""Where an op is specified: the array API standard's (2025.12) sections, by key."""

DTYPE_CATEGORIES: dict[str, str] = {
    "any": "any dtype",
    "numeric": "numeric (integer, real or complex floating)",
    "real": "real-valued (integer or real floating)",
    "integer": "integer",
    "integer or boolean": "integer or boolean",
    "boolean": "boolean",
    "floating": "floating-point (real or complex)",
    "real floating": "real-valued floating-point",
    "complex floating": "complex floating-point",
}
"""The standard's input dtype categories, by key (:attr:`Op.dtypes`)."""

# What the layers above provide, filled in by :func:`install` (imports flow one way: ops
# sits below autograd and tensor). Read at call time as ``_registry.Tensor``; never
# ``from ..ops._registry import Tensor`` at module level (that binds the placeholder).
Tensor: Any = type(None)
_record_hook: Any = None  # autograd.graph.record: record a backward node for an op call
_grad_enabled = bool  # autograd's grad-mode getter (no autograd: a call never records)
_view_hook: Any = None  # autograd._views.on_view: make a view op's output a view of its input
# Forward mode (autograd.forward_ad): the active dual levels (a list that module owns and
# mutates: empty means off, one truth test per call) and the call that adds tangents.
_fw_levels: list = []
_fw_call: Any = None


def install(*, tensor: type | None = None, record=None, grad_enabled=None, view=None,
            forward=None) -> None:
    """The one injection point of the op layer: what the layers above it provide.

    Called by :mod:`arrayflow.autograd` (``record``, ``grad_enabled``, ``view``) and by
    :mod:`arrayflow.tensor` (``tensor``), once each at import; arguments left None keep
    their current value.

    Parameters
    ----------
    tensor : type, optional
        The Tensor class: what ops wrap their results in, and the one type that never
        takes part in ``__arrayflow_function__`` dispatch (handed on to
        :mod:`arrayflow._dispatch`).
    record : callable, optional
        ``record(op, backend, outputs, residuals, inputs)``: attach a backward node.
    grad_enabled : callable, optional
        ``grad_enabled() -> bool``: whether grad mode is on in this context.
    view : callable, optional
        ``view(op, backend, base, args, kwargs, out, residuals)``: make ``out`` a view.
    forward : tuple, optional
        ``(levels, call)`` from :mod:`arrayflow.autograd.forward_ad`: the list of active
        dual levels (non-empty while forward mode is on) and
        ``call(op, args, kwargs, public)``, which runs the op and gives its outputs their
        tangents.
    """
    global Tensor, _record_hook, _grad_enabled, _view_hook, _fw_levels, _fw_call
    if tensor is not None:
        Tensor = tensor
        _proto._set_tensor_type(tensor)
    if record is not None:
        _record_hook = record
    if grad_enabled is not None:
        _grad_enabled = grad_enabled
    if view is not None:
        _view_hook = view
    if forward is not None:
        _fw_levels, _fw_call = forward


# The __arrayflow_function__ protocol is arrayflow._dispatch; these names are its, kept
# here for the wrapper's hot path and for older imports.
_dispatch_state = _proto.state  # one ContextVar read per call; None in the common case
_state_get = _proto.state.get
_takes_part = _proto.type_takes_part
_subclass_dispatches = _proto.type_dispatches
overridable_method = _proto.overridable_method

_DType = _dtypes.DType
_DEVICE_TYPES = (str, _device.device)  # device= values mapped onto a backend
_PASS = _proto.PASS_TYPES  # never take part in dispatch; passed to the forward as they are
_NUMBERS = frozenset({int, float, bool, complex})

TORCH_KEYWORDS = frozenset({
    "sum", "mean", "prod", "argmax", "argmin", "all", "any", "count_nonzero",
    "cumulative_sum", "cumulative_prod", "expand_dims", "unstack", "diff",
    "linalg.vector_norm",
})
"""Ops that also take PyTorch's keywords ``dim=``/``keepdim=`` for ``axis=``/``keepdims=``
(``af.sum(x, dim=1)``): only those whose result then equals PyTorch's. ``max``/``min``
and ``sort`` (PyTorch returns ``(values, indices)``) and ``std``/``var`` (PyTorch's
``correction=1``) are left out on purpose: a ``TypeError`` there beats a silently
different result."""
_KW_ALIASES = {"dim": "axis", "keepdim": "keepdims"}
TORCH_POSITIONAL_DIM = frozenset({
    "sum", "mean", "prod", "argmax", "argmin", "all", "any", "count_nonzero",
    "cumulative_sum", "cumulative_prod", "unstack",
})
"""Ops of :data:`TORCH_KEYWORDS` that also take PyTorch's positional ``(x, dim, keepdim)``
(``af.sum(x, 1)``); not ``diff``/``vector_norm``, whose second positional argument is
PyTorch's ``n``/``ord``."""
# Parameter names that take an array (a Python scalar too for x1/x2, as the standard).
_ARRAY_PARAMS = frozenset({"x", "x1", "x2", "condition"})
# element-wise (broadcasting) ops outside the standard's element-wise section
_ELEMENTWISE_OTHER = frozenset({"where", "erf", "isclose"})
# arrayflow.special mirrors scipy.special, whose functions are ufuncs (element-wise with
# broadcasting) except these reductions
_SPECIAL_REDUCTIONS = frozenset({"special.logsumexp", "special.softmax", "special.log_softmax"})


# The public return annotation per ``Op.out``; ``"raw"`` results are returned as they are,
# so a raw op publishes its forward's own return annotation (``-> bool``, ``-> DType``).
_RETURNS = {"tensor": "Tensor", "tuple": "tuple[Tensor, ...]"}


def _public_annotation(ann):
    """``Array`` -> ``Tensor`` inside a forward's (string) annotation."""
    if not isinstance(ann, str) or "Array" not in ann:
        return ann
    return re.sub(r"\bArray\b", "Tensor", ann)



class Op:
    """A public arrayflow function backed by a forward (and, later, a VJP) rule.

    Attributes
    ----------
    name : str
        Qualified name without the package (``"exp"``, ``"linalg.det"``).
    forward : callable
        ``forward(xp, *args, **kwargs)`` on raw arrays. Differentiable ops return
        ``(value, residuals)``; others return the value.
    vjp : callable or None
        ``vjp(xp, residuals, *grads) -> tuple of input grads`` (attached with
        :meth:`defvjp`).
    differentiable : bool
        False for ops whose outputs never require grad (comparisons, ``argmax``).
    complex_ok : bool
        True when the VJP follows PyTorch's complex convention (the gradient of a
        complex input is ``dL/d(re z) + 1j * dL/d(im z)`` for a real loss ``L``).
        Recording a call of an op without it raises ``NotImplementedError`` when a
        complex value requires grad (default False: no silent wrong gradient).
    creation : bool
        True for creation functions: they run on the current backend unless a
        Tensor argument names another, and accept ``requires_grad=``.
    backend_arg : bool
        True when the forward's first argument is the Backend instead of its
        namespace (default: same as ``creation``).
    convert_dtypes : bool
        Whether arrayflow dtypes among the arguments become native dtypes.
    out : {"tensor", "tuple", "raw"}
        How results are wrapped: one array, a (named) tuple of arrays, or as is.
    promote : tuple of str or None
        Names of the parameters whose operands are promoted together before the
        forward runs (``("x1", "x2")``; ``"arrays"`` names a sequence of them): where
        their kinds differ (bool, integer, floating), the lower ones are cast to
        :func:`arrayflow._dtypes.result_type` of all of them, PyTorch's rule. Same-kind
        operands are left to the backend (the standard's table).
    floating : bool
        The result is floating: integer and bool operands are cast to the default
        floating dtype (PyTorch: ``sqrt`` or true division of integers is ``float32``).
    mixed_kinds : {"promote", "raise"}
        What operands of different kinds do: promote (PyTorch's element-wise rule), or
        raise PyTorch's ``RuntimeError`` (``matmul``, ``tensordot``, ``vecdot``, ``cross``:
        PyTorch requires one dtype; same-kind operands still follow the standard's table).
    section : str or None
        Where the op is specified: a key of :data:`SECTIONS` (the array API standard's
        section, or ``"torch"`` for PyTorch functions the standard does not have).
    dtypes : str or None
        The input dtype category the standard allows (a key of :data:`DTYPE_CATEGORIES`,
        e.g. ``"numeric"``, ``"real floating"``); None where the op takes no array.
    aliases : tuple of str
        PyTorch's other spellings of the op (each an :class:`AliasOp` in :data:`ALIASES`).
    torch_name : str or None
        The ``torch`` function computing the same thing (default: ``name``), None when
        PyTorch has none. Documentation and the oracle's cross-check read it.
    identity : callable or None
        ``identity(backend, *raw_args, **kwargs)``: True when the call would return its
        first argument unchanged; the op then returns that Tensor itself (``asarray``).
    batch : callable or None
        The op's ``vmap`` batching rule ``batch(op, public, args, kwargs)`` (arguments
        may be batched Tensors; helpers in :mod:`arrayflow.ops._batch_util`), attached
        with ``batch=`` or :meth:`defbatch`, for ops whose rule
        :mod:`arrayflow.func._batching` does not derive from the table (section, ``axis``
        parameters); None: derived, or a loop over the batch.
    """

    def __init__(self, name, forward, *, differentiable=True, creation=False, out="tensor",
                 backend_arg=None, convert_dtypes=True, module="arrayflow", doc=None,
                 promote=None, floating=False, mixed_kinds="promote", section=None,
                 dtypes=None, aliases=(), torch_name=..., complex_ok=False, vjp=None,
                 res_needs=None, jvp=None, exports=False, identity=None, batch=None,
                 blockwise=None):
        if section is not None and section not in SECTIONS:
            raise ValueError(f"arrayflow.ops.op: section={section!r} for {name!r}; expected "
                             f"one of {sorted(SECTIONS)}")
        if dtypes is not None and dtypes not in DTYPE_CATEGORIES:
            raise ValueError(f"arrayflow.ops.op: dtypes={dtypes!r} for {name!r}; expected "
                             f"one of {sorted(DTYPE_CATEGORIES)}")
        self.name = name
        self.section = section
        self.dtypes = dtypes
        self.aliases = tuple(aliases)
        self.torch_name = name if torch_name is ... else torch_name
        self.backend_arg = creation if backend_arg is None else backend_arg
        self.convert_dtypes = convert_dtypes
        # element-wise with broadcasting: the standard's element-wise functions, a few others,
        # and arrayflow.special (SciPy's ufuncs) but for its reductions; vmap batches these
        # element-wise (func/_batching.py)
        self.elementwise = section == "elementwise" or name in _ELEMENTWISE_OTHER or (
            name.startswith("special.") and name not in _SPECIAL_REDUCTIONS)
        # run one block at a time on chunked lazy backends (ops/_blockwise.py): default, the
        # element-wise arrayflow.special functions (deep array-API compositions)
        self.blockwise = (self.elementwise and name.startswith("special.")) \
            if blockwise is None else bool(blockwise)
        self.forward = _blockwise.blockwise_forward(forward) if self.blockwise else forward
        self.vjp = None
        self.vjp_needs = False
        # Forward mode (arrayflow.autograd.forward_ad): "linear", or
        # jvp(xp, tangents, out, *args, **kwargs) -> the output's tangent(s).
        self.jvp = None
        # The op exports its input's buffer (from_dlpack): an input that requires grad is
        # refused with PyTorch's BufferError instead of silently leaving the graph.
        self.exports = exports
        # vmap (arrayflow.func): batch(op, public, args, kwargs) -> the batched result, for
        # ops whose batching rule is not derived from the table (func/_batching.py)
        self.batch = batch
        self.res_needs = res_needs  # {residual index: param indices whose grads need it}
        self.differentiable = differentiable
        self.complex_ok = complex_ok
        self.view = None  # "index"/"bijective"/"expand" for view ops (autograd._views)
        # identity(backend, *raw_args, **kwargs) -> True when the call returns its first
        # argument unchanged: the op then returns that Tensor itself (PyTorch's
        # ``as_tensor(t) is t``), so later writes to either are seen by both.
        self.identity = identity
        self.creation = creation
        self.out = out
        self.__name__ = name.rsplit(".", 1)[-1]
        self.__qualname__ = self.__name__
        self.__module__ = module
        self.__doc__ = doc if doc is not None else forward.__doc__
        sig = inspect.signature(forward)
        params = list(sig.parameters.values())[1:]
        # The forward's ``Array`` annotations (a backend array inside the forward) read
        # ``Tensor`` publicly; the result is a Tensor (``out``) whatever the forward returns.
        params = [p.replace(annotation=_public_annotation(p.annotation)) for p in params]
        ret = sig.return_annotation if out == "raw" else _RETURNS[out]
        self.__signature__ = sig.replace(parameters=params, return_annotation=ret)
        self.__wrapped__ = forward
        self.param_index = {p.name: i for i, p in enumerate(params)
                            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)}
        # The gradient slot of a keyword-only parameter: its place in the signature (a
        # Tensor passed as ``diff(x, prepend=t)`` gets the VJP's entry there).
        self.kw_index = {p.name: i for i, p in enumerate(params) if p.kind == p.KEYWORD_ONLY}
        self._node_class = None
        # Autograd's per-op decisions, made once per set of parameters that require grad
        # (autograd.graph._grad_plan): {key: (needs, residuals to drop, positions)}.
        self._grad_plans = {}
        # Set by autograd when the node's name depends on the call (sum() / sum(dim)).
        self.node_variant = None
        self.promote = tuple(promote) if promote else None
        self.floating = floating
        self.mixed_raise = mixed_kinds == "raise"
        self.torch_kw = name in TORCH_KEYWORDS
        self.torch_pos = name in TORCH_POSITIONAL_DIM
        if floating and self.promote is None:
            self.promote = ("x",)
        # 1 or 2: the promoted operands are the first positional parameters (fast path)
        self.promote_fast = {("x",): 1, ("x1", "x2"): 2}.get(self.promote, 0) if (
            self.promote and list(self.param_index)[:len(self.promote)] == list(
                self.promote)) else 0
        # Positions that take an array (checked: a dict or a str there is a TypeError
        # naming the function, not an error from deep inside the backend).
        self.array_pos = frozenset() if creation else frozenset(
            i for n, i in self.param_index.items() if n in _ARRAY_PARAMS)
        if vjp is not None:
            self.defvjp(vjp)
        if jvp is not None:
            self.defjvp(jvp)

    def __call__(self, *args, **kwargs):
        return _dispatch(self, args, kwargs)

    def __repr__(self) -> str:
        return f"<arrayflow function {self.__module__}.{self.__name__}>"

    def __reduce__(self):
        return (_op_by_name, (self.name,))

    def __get__(self, obj, objtype=None):
        # Ops used as class attributes (Tensor methods) bind like functions.
        if obj is None:
            return self

        return functools.partial(self, obj)

    def defvjp(self, fn):
        """Attach the VJP rule ``fn(xp, residuals, *grads)``; returns ``fn``.

        A rule that also accepts a keyword ``needs`` receives the set of positional
        parameter indices whose gradients are wanted, and may return None for the
        others (``matmul`` skips a whole matrix product that way).
        """
        self.vjp = fn
        try:
            self.vjp_needs = "needs" in inspect.signature(fn).parameters
        except (TypeError, ValueError):
            self.vjp_needs = False
        return fn

    def defjvp(self, fn):
        """Attach the forward-mode rule; returns ``fn``.

        ``fn`` is ``"linear"`` (the op is linear in its floating-point array arguments
        jointly: the tangent is the op applied to the tangents) or
        ``fn(xp, tangents, out, *args, **kwargs)``: ``tangents`` maps parameter names to
        the arguments' tangents (absent: no tangent), ``out`` is the primal result, the
        arguments are Tensors and ``xp`` is the ``arrayflow`` namespace (so the rule is
        itself differentiable). It returns the output's tangent (a tuple for several
        outputs). See :mod:`arrayflow.autograd.forward_ad`.
        """
        if not (fn == "linear" or callable(fn)):
            raise TypeError(f"arrayflow.{self.name}.defjvp: expected 'linear' or a function, "
                            f"got {fn!r}")
        self.jvp = fn
        return fn

    def defbatch(self, fn):
        """Attach the ``vmap`` batching rule ``fn(op, public, args, kwargs)``; returns ``fn``.

        ``op`` is this op, ``public`` the function the user called (an alias too), the
        arguments as passed, some of them batched Tensors. The rule runs the op once on
        their physical Tensors (see :mod:`arrayflow.ops._batch_util`) and returns the
        batched result, or calls ``_batch_util.fallback_op`` where it does not apply.
        """
        if not callable(fn):
            raise TypeError(f"arrayflow.{self.name}.defbatch: expected a function, got {fn!r}")
        self.batch = fn
        return fn


def _op_by_name(name: str) -> Op:
    return OPS[name]


def _alias_by_name(name: str) -> AliasOp:
    return ALIASES[name]


class AliasOp(Op):
    """A PyTorch spelling of an op (``arrayflow.mul`` of ``arrayflow.multiply``).

    A distinct public object, as in PyTorch (``torch.mul is not torch.multiply``):
    ``__arrayflow_function__`` overrides and modes receive the function the user
    called, error messages name it, and :func:`arrayflow.overrides.get_testing_overrides`
    lists both. Everything else (the forward, the VJP, the recorded backward node)
    is the canonical op's, reached through :attr:`canonical`.

    Attributes
    ----------
    canonical : Op
        The op this name spells (the array API standard's function).
    """

    def __init__(self, canonical: Op, name: str, *, module: str = "arrayflow") -> None:
        self.canonical = canonical
        self.name = name
        self.__name__ = name.rsplit(".", 1)[-1]
        self.__qualname__ = self.__name__
        self.__module__ = module
        self.__doc__ = (f"PyTorch's name for :func:`{canonical.__module__}."
                        f"{canonical.__name__}` (the same computation and gradient).\n\n"
                        + (canonical.__doc__ or ""))
        self.__signature__ = canonical.__signature__
        self.__wrapped__ = canonical.__wrapped__

    def __getattr__(self, attr):
        # forward, vjp, differentiable, promote, ...: the canonical op's (looked up on
        # each access, so a VJP attached later is shared).
        if attr == "canonical":
            raise AttributeError(attr)
        return getattr(self.canonical, attr)

    def __call__(self, *args, **kwargs):
        return _dispatch(self.canonical, args, kwargs, self)

    def __repr__(self) -> str:
        return f"<arrayflow function {self.__module__}.{self.__name__}>"

    def __reduce__(self):
        return (_alias_by_name, (self.name,))

    def defvjp(self, fn):
        raise TypeError(f"arrayflow.{self.name} is an alias of arrayflow.{self.canonical.name}: "
                        f"attach the VJP to the canonical op")

    def defjvp(self, fn):
        raise TypeError(f"arrayflow.{self.name} is an alias of arrayflow.{self.canonical.name}: "
                        f"attach the JVP to the canonical op")

    def defbatch(self, fn):
        raise TypeError(f"arrayflow.{self.name} is an alias of arrayflow.{self.canonical.name}: "
                        f"attach the batching rule to the canonical op")


def alias(canonical: Op, name: str, *, module: str = "arrayflow") -> AliasOp:
    """Register ``name`` as PyTorch's spelling of ``canonical`` (see :class:`AliasOp`).

    Raises
    ------
    RuntimeError
        If ``name`` is already an op or an alias.
    """
    if isinstance(canonical, AliasOp):
        canonical = canonical.canonical
    if name in OPS or name in ALIASES:
        raise RuntimeError(f"arrayflow: {name!r} registered twice")
    a = AliasOp(canonical, name, module=module)
    ALIASES[name] = a
    return a


def _named(op_, public):
    """The op whose name the user called: an alias when the call came through one."""
    return public if isinstance(public, Op) else op_


def op(name: str, **options) -> Any:
    """Decorator: register ``forward`` as the public function ``name`` (see :class:`Op`).

    One op is one unit: its metadata (the keyword options: ``section``, ``dtypes``,
    ``aliases``, ``torch_name``, ``complex_ok``, ...) here, its forward below the
    decorator and its VJP (``vjp=`` or ``@name.defvjp``) right after the forward.

    Raises
    ------
    RuntimeError
        If ``name`` (or one of its aliases) is already registered.
    ValueError
        If ``section`` or ``dtypes`` is not a known key.
    """

    def deco(forward):
        o = Op(name, forward, **options)
        if name in OPS:
            raise RuntimeError(f"arrayflow: op {name!r} registered twice")
        OPS[name] = o
        for a in o.aliases:
            alias(o, a, module=o.__module__)
        return o

    return deco


def _mismatch(op_: Op, a: _backend.Backend, b: _backend.Backend) -> BackendMismatchError:
    return BackendMismatchError(
        f"arrayflow.{op_.name}: arguments live on different backends ({a.name!r} and "
        f"{b.name!r}); move one first, e.g. tensor.to({a.name!r})"
    )


def _host_constants(op_, args, kwargs, public, fw, a, b):
    """Positional arguments on two backends (the error path of :func:`_dispatch`): where the
    Tensors are all on one chunked backend and the other arguments are plain arrays of the
    backend its blocks are made of (NumPy arrays beside Dask Tensors), those arrays become
    constants of the Tensors' backend and the call runs, as ``dask_array + ndarray`` does
    in Dask; otherwise :class:`BackendMismatchError`."""
    tbs = {x._backend.name: x._backend for x in args if isinstance(x, Tensor)}
    target = next(iter(tbs.values())) if len(tbs) == 1 else None
    if target is not None and target.block_backend is not None:
        new, changed = list(args), False
        for i, x in enumerate(args):
            xb = None if isinstance(x, Tensor) else _backend.backend_of_array(x)
            if xb is None or xb.name == target.name:
                continue
            if xb.name != target.block_backend or xb.python_scalar(x) is not None:
                break
            new[i] = _wrap1(target.from_host(x), target)
            changed = True
        else:
            if changed:
                return _dispatch(op_, tuple(new), kwargs, public, fw)
    raise _mismatch(_named(op_, public), a, b)


def _scan_seq(op_, seq, backend, gi, i, st):
    """Unwrap Tensors inside a list/tuple argument; returns ``(new_seq, backend, over)``,
    ``over`` true when an element takes part in dispatch (:mod:`arrayflow._dispatch`).

    Tensors that require grad are appended to ``gi`` with position ``(i, j)``.
    """
    out = None
    over = False
    for j, e in enumerate(seq):
        te = type(e)
        if te in _PASS:
            continue
        if te is Tensor or (not _takes_part(te, st) and isinstance(e, Tensor)):
            b = e._backend
            if backend is None:
                backend = b
            elif b is not backend and b.name != backend.name:
                raise _mismatch(op_, backend, b)
            if out is None:
                out = list(seq)
            out[j] = e._cell.array
            if e._requires_grad:
                gi.append((e, (i, j)))
        elif _takes_part(te, st):
            over = True
    if out is None:
        return seq, backend, over
    return (tuple(out) if type(seq) is tuple else out), backend, over


def _seq_takes_part(seq, st) -> bool:
    for e in seq:
        te = type(e)
        if te is not Tensor and te not in _PASS and _takes_part(te, st):
            return True
    return False


def _dispatch(op_: Op, args: tuple, kwargs: dict, public=None, _fw=True):
    """Run ``op_`` on ``args``; ``public`` is the function overrides see (a Tensor operator
    passes itself, as PyTorch passes ``Tensor.__add__``); default the op. While forward
    mode is on, the call goes through its hook (which calls back with ``_fw=False``)."""
    if _fw_levels and _fw:
        return _fw_call(op_, args, kwargs, public)
    backend = None
    # What takes part in __arrayflow_function__ dispatch: None (nothing), the positional
    # arguments that do, in order (the protocol's collection, made here on the way), or True
    # when a list element or a keyword value does (the protocol collects them itself).
    over: Any = None
    uargs = None
    scalars = None
    has_dtype = False
    gi = []  # (Tensor, (param index, element index)) for inputs that require grad
    st = _state_get()  # the dispatch state: None unless a mode or switch is on
    for i, a in enumerate(args):
        t = type(a)
        if t is Tensor:
            b = a._backend
            if backend is None:
                backend = b
            elif b is not backend and b.name != backend.name:
                return _host_constants(op_, args, kwargs, public, _fw, backend, b)
            if uargs is None:
                uargs = list(args)
            uargs[i] = a._cell.array
            if a._requires_grad:
                gi.append((a, (i, None)))
        elif t in _PASS:
            if t is _DType:
                has_dtype = True
            elif t not in _NUMBERS and i in op_.array_pos:
                raise _not_array(_named(op_, public), i, a)
            continue
        elif t is tuple or t is list:
            if i in op_.array_pos:
                raise _not_array(_named(op_, public), i, a)
            new, backend, o = _scan_seq(_named(op_, public), a, backend, gi, i, st)
            if o:
                over = True
            if new is not a:
                if uargs is None:
                    uargs = list(args)
                uargs[i] = new
        elif _takes_part(t, st):
            if over is None:
                over = [a]
            elif over is not True:
                over.append(a)
        elif isinstance(a, Tensor):  # a subclass that takes no part: a plain Tensor
            b = a._backend
            if backend is None:
                backend = b
            elif b is not backend and b.name != backend.name:
                raise _mismatch(_named(op_, public), backend, b)
            if uargs is None:
                uargs = list(args)
            uargs[i] = a._cell.array
            if a._requires_grad:
                gi.append((a, (i, None)))
        elif not op_.creation:
            b = _backend.backend_of_array(a)
            if b is not None and b.python_scalar(a) is not None:
                # a NumPy scalar (np.float64(2)) beside Tensors acts as a Python scalar
                # (PyTorch); without them it stays the library's 0-d array (see below)
                if scalars is None:
                    scalars = []
                scalars.append((i, b))
                continue
            if b is not None:
                if backend is None:
                    backend = b
                elif b is not backend and b.name != backend.name:
                    return _host_constants(op_, args, kwargs, public, _fw, backend, b)
            elif i in op_.array_pos:
                raise _not_array(_named(op_, public), i, a)
    okwargs = kwargs
    if kwargs:
        kwargs = dict(kwargs)
        for k, v in okwargs.items():
            t = type(v)
            if t is not Tensor:
                if t in _PASS:
                    continue
                if t is tuple or t is list:
                    if _seq_takes_part(v, st):
                        over = True
                    continue
                if _takes_part(t, st):
                    over = True
                    continue
            if t is Tensor or isinstance(v, Tensor):
                b = v._backend
                if backend is None:
                    backend = b
                elif b is not backend and b.name != backend.name:
                    raise _mismatch(_named(op_, public), backend, b)
                kwargs[k] = v._cell.array
                if v._requires_grad:
                    gi.append((v, (op_.param_index.get(k, op_.kw_index.get(k, -1)), None)))
    if over or (st is not None and st.modes and not st.disable_all):
        # an argument overrides or a mode is active: the protocol decides
        return _proto.dispatch_call(public or op_, args, okwargs,
                                    [] if over is None else None if over is True else over)
    if scalars is not None:
        if backend is None:
            backend = scalars[0][1]
        else:
            if uargs is None:
                uargs = list(args)
            for i, b in scalars:
                uargs[i] = b.python_scalar(args[i])
    if backend is None:
        backend = _backend.get_backend()
    if kwargs and type(kwargs.get("device")) in _DEVICE_TYPES:  # "cuda", af.device(...)
        backend, uargs = _device.place(op_, backend, kwargs, args, uargs)
    requires_grad = False
    if kwargs:
        if op_.torch_kw:
            _torch_keywords(op_, public, kwargs)
        if op_.convert_dtypes:
            d = kwargs.get("dtype")
            if d is not None:
                kwargs["dtype"] = backend.native_dtype(d)
        if op_.creation and "requires_grad" in kwargs:
            requires_grad = kwargs.pop("requires_grad")
    call_args = args if uargs is None else uargs
    if op_.torch_pos and len(call_args) > 1:  # af.sum(x, 1, True): PyTorch's dim, keepdim
        call_args, kwargs = _torch_positional(op_, public, call_args, kwargs)
    if has_dtype and op_.convert_dtypes:
        call_args = [backend.native_dtype(a) if type(a) is _DType else a for a in call_args]
    if op_.promote is not None:
        # The common calls need no cast, decided here in a few lookups: a first operand of
        # the result's category, a Python scalar or the same dtype beside it; else _promote.
        n = op_.promote_fast
        if len(call_args) < n:
            n = 0
        elif n:
            try:
                a = call_args[0]
                ca = (_NATIVE_CATS.get(backend.name) or _native_cats(backend))[a.dtype]
                if n == 2:
                    b = call_args[1]
                    tb = type(b)
                    cb = _SCALAR_CATS[tb] if tb in _SCALAR_CATS else \
                        ca if b.dtype == a.dtype else 3
                    if cb > ca:
                        n = 0
                if n and ca != 2 and op_.floating:
                    n = 0
            except (AttributeError, KeyError, TypeError):
                n = 0
        if not n:
            call_args = _promote(op_, backend, call_args, kwargs, public)
    if op_.identity is not None and not requires_grad and isinstance(args[0], Tensor) \
            and args[0]._backend is backend and op_.identity(backend, *call_args, **kwargs):
        return args[0]
    if gi and op_.exports:  # DLPack export of a Tensor that requires grad (PyTorch refuses)
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if backend.lazy:
        call_args = _unknown_inputs(op_, backend, call_args)
    if op_.backend_arg:
        out = op_.forward(backend, *call_args, **kwargs)
    else:
        out = op_.forward(backend._xp or backend.xp, *call_args, **kwargs)
    if op_.differentiable:
        out, res = out
        if backend.lazy:
            out = _known_shapes(op_, backend, out, call_args)
        if gi and _grad_enabled():
            kind = op_.out
            if kind == "tensor":
                t = _wrap1(out, backend)
                _record_hook(op_, backend, (t,), res, gi)
                if op_.node_variant is not None and t.grad_fn is not None:
                    # PyTorch's overload suffix (SumBackward0 / SumBackward1)
                    t.grad_fn.__class__ = op_.node_variant(call_args, kwargs)
                if op_.view is not None and isinstance(args[0], Tensor):
                    _view_hook(op_, backend, args[0], call_args[1:], kwargs, t, res)
                return t
            result = wrap(out, backend)
            _record_hook(op_, backend, tuple(o for o in result if isinstance(o, Tensor)),
                         res, gi)
            return result
    elif backend.lazy:
        out = _known_shapes(op_, backend, out, call_args)
    kind = op_.out
    if kind == "tensor":
        t = _wrap1(out, backend)
        if op_.view is not None and args and isinstance(args[0], Tensor):
            _view_hook(op_, backend, args[0], call_args[1:], kwargs, t, res)
        if requires_grad:
            t.requires_grad_(True)
        return t
    if kind == "tuple":
        return wrap(out, backend)
    return out


_SCALAR_CATS = {int: 1, float: 2}  # bool and complex scalars take the full path
_NATIVE_CATS: dict = {}  # backend name -> {native dtype: category (_dtypes.category)}


def _native_cats(backend) -> dict:
    native = backend._dtype_maps()[0]
    cats = {nd: _dtypes.category(d) for d, nd in native.items()}
    _NATIVE_CATS[backend.name] = cats
    return cats


def _torch_keywords(op_, public, kwargs) -> None:
    """Rename PyTorch's ``dim``/``keepdim`` keywords in place (ops of ``TORCH_KEYWORDS``)."""
    for torch_name, name in _KW_ALIASES.items():
        if torch_name in kwargs:
            if name in kwargs:
                raise TypeError(f"{_named(op_, public).__name__}(): pass '{name}' or "
                                f"PyTorch's '{torch_name}', not both")
            v = kwargs.pop(torch_name)
            kwargs[name] = tuple(v) if type(v) is list else v


def _torch_positional(op_, public, args, kwargs):
    """``(x, dim[, keepdim])`` positional, as PyTorch: moved to ``axis``/``keepdims``."""
    if len(args) > 3:
        raise TypeError(f"{_named(op_, public).__name__}() takes at most 3 positional arguments "
                        f"(input, dim, keepdim), got {len(args)}")
    kwargs = dict(kwargs) if kwargs else {}
    for v, name, torch_name in zip(args[1:], ("axis", "keepdims"), ("dim", "keepdim")):
        if name in kwargs or torch_name in kwargs:
            raise TypeError(f"{_named(op_, public).__name__}(): got multiple values for "
                            f"argument '{torch_name}'")
        kwargs[name] = tuple(v) if type(v) is list else v
    return args[:1], kwargs


def _not_array(op_, i, a) -> TypeError:
    """PyTorch's TypeError for a non-array argument where an array goes."""
    pname = next((n for n, j in op_.param_index.items() if j == i), "x")
    what = "Tensor or a Python scalar" if pname in ("x1", "x2") else "Tensor"
    return TypeError(f"{op_.__name__}(): argument '{pname}' (position {i + 1}) must be "
                     f"{what}, not {type(a).__name__}")


def _promote(op_, backend, args, kwargs, public):
    """Cast the operands of a promoting op (``Op.promote``) where their kinds differ.

    PyTorch's rule for mixed kinds (see :func:`arrayflow._dtypes.result_type`):
    bool/integer operands combined with floating ones are cast to the result dtype
    before the backend sees them, so every backend (array_api_strict, which rejects
    mixed kinds, included) computes in that dtype. Same-kind operands are left alone:
    the backend applies the standard's table. Returns the (possibly new) arguments;
    ``kwargs`` is updated in place. (:func:`_dispatch` skips the call where a few lookups
    show that nothing is cast.)
    """
    pidx = op_.param_index
    slots = []  # (position or keyword, element index or None, value)
    for name in op_.promote:
        i = pidx[name]
        if i < len(args):
            key, v = i, args[i]
        elif kwargs and name in kwargs:
            key, v = name, kwargs[name]
        else:
            continue
        if name == "arrays" and type(v) in (list, tuple):
            slots.extend((key, j, e) for j, e in enumerate(v))
        elif v is not None:
            slots.append((key, None, v))
    to_af = backend.arrayflow_dtype
    items = []
    first = None
    same = True
    for key, _j, v in slots:
        t = type(v)
        if t in _NUMBERS:
            items.append(v)
            same = False
            continue
        nd = getattr(v, "dtype", None)
        if nd is None or not backend.is_array(v):
            if type(key) is int and key in op_.array_pos:
                raise _not_array(_named(op_, public), key, v)
            pname = key if type(key) is str else next(
                (n for n, k in pidx.items() if k == key), "x")
            raise TypeError(
                f"{_named(op_, public).__name__}(): argument '{pname}' must be Tensor or a "
                f"Python scalar, not {t.__name__}")
        if first is None:
            first = nd
        elif nd != first:
            same = False
        try:
            items.append(to_af(nd))
        except TypeError:  # a native dtype outside the standard: the backend decides
            return args
    if not items:
        return args
    if same:  # one dtype, no scalar: nothing to promote
        if not op_.floating or _dtypes.category(items[0]) == 2:
            return args
    target = _dtypes.result_type(*items)
    tcat = _dtypes.category(target)
    if op_.mixed_raise:
        kinds = {_dtypes.category(d) for d in items if type(d) is _DType}
        if len(kinds) > 1:
            names = ", ".join(sorted({d.name for d in items if type(d) is _DType}))
            raise RuntimeError(
                f"{_named(op_, public).__name__}(): expected both operands to have the same "
                f"dtype, but got {names} (PyTorch requires one dtype for mixed kinds; cast "
                f"one operand first)")
    if op_.floating and tcat < 2:
        target, tcat = _dtypes.get_default_dtype(), 2
    native = None
    xp = backend._xp or backend.xp
    out = None
    for (key, j, v), d in zip(slots, items):
        if type(d) is bool:
            if tcat == 0:
                continue
            v = int(v) if tcat == 1 else float(v)  # as the standard, a scalar of its kind
        elif type(d) is not _DType or _dtypes.category(d) >= tcat:
            continue
        else:
            if native is None:
                native = backend.native_dtype(target)
            v = xp.astype(v, native)
        if type(key) is str:
            if j is None:
                kwargs[key] = v
            else:
                seq = list(kwargs[key])
                seq[j] = v
                kwargs[key] = seq
            continue
        if out is None:
            out = list(args)
        if j is None:
            out[key] = v
        else:
            seq = list(out[key])
            seq[j] = v
            out[key] = seq
    return args if out is None else out


def _unknown(array) -> bool:
    shape = getattr(array, "shape", None)
    return type(shape) is tuple and any(n is None or n != n for n in shape)


def _unknown_inputs(op_: Op, backend, args):
    """On a lazy backend, before the op runs: an input of unknown size (a boolean-mask
    selection) raises :class:`DataDependentShapeError` unless the backend takes it for
    this op (``Backend.unknown_shapes``: Dask's selections), or under
    ``allow_compute()`` gets its shape computed. Returns the arguments to run with."""
    if not any(_unknown(a) for a in args):
        return args
    if _backend.compute_allowed():
        return [backend.resolve_shape(a) if _unknown(a) else a for a in args]
    if not backend.unknown_shapes(op_.name, op_.section, args, ()):
        raise _backend.DataDependentShapeError(
            f"arrayflow.{op_.name}: an input has a size that depends on values the lazy "
            f"backend {backend.name!r} has not computed (a boolean-mask selection, None in "
            f"its shape), and {op_.name} needs it here. Compute the input first "
            f"(x.compute()), or opt in with `with arrayflow.allow_compute(): ...` (the size "
            f"is computed, the result stays lazy)")
    return args


def _known_shapes(op_: Op, backend, out, args=()):
    """On a lazy backend: an output whose shape depends on values (NaN/None sizes) raises
    :class:`DataDependentShapeError` unless the backend takes it
    (``Backend.unknown_shapes``), or under ``allow_compute()`` gets its shape computed."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    if not any(_unknown(o) for o in outs):
        return out
    if not _backend.compute_allowed():
        if backend.unknown_shapes(op_.name, op_.section, args, outs):
            return out
        raise _backend.data_dependent_error(op_.name, backend)
    fixed = [backend.resolve_shape(o) if _unknown(o) else o for o in outs]
    if not isinstance(out, (tuple, list)):
        return fixed[0]
    return type(out)(*fixed) if hasattr(out, "_fields") else type(out)(fixed)


def _wrap1(arr, backend):
    t = Tensor.__new__(Tensor)
    t._init(arr, backend)
    return t


def wrap(obj, backend):
    """Wrap backend arrays (also inside tuples and named tuples) as Tensors."""
    if isinstance(obj, tuple):
        items = [wrap(e, backend) for e in obj]
        if hasattr(obj, "_fields"):
            return type(obj)(*items)
        return tuple(items)
    if isinstance(obj, list):
        return [wrap(e, backend) for e in obj]
    if backend.is_array(obj):
        return _wrap1(obj, backend)
    return obj


def unwrap(obj):
    """The backend array of a Tensor; other objects are returned unchanged."""
    return obj._cell.array if isinstance(obj, Tensor) else obj
