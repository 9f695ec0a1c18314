"""Custom autograd Functions: PyTorch's ``torch.autograd.Function`` API.

::

    class MulConstant(af.autograd.Function):
        @staticmethod
        def forward(ctx, tensor, constant):
            ctx.constant = constant
            return tensor * constant

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.constant, None

    y = MulConstant.apply(x, 2.0)       # y.grad_fn is a MulConstantBackward

Also the split form ``forward(*args)`` + ``setup_context(ctx, inputs, output)``.
``forward`` runs with grad disabled and receives Tensors; ``backward`` receives
Tensors and returns one gradient (or None) per ``forward`` argument (extra
trailing Nones are allowed). When ``backward`` is written with differentiable
arrayflow operations, higher-order gradients work.
"""

from __future__ import annotations

import functools
import inspect
import sys
import traceback
from collections.abc import Callable
from typing import Any

from .. import _backend
from .._typing import Array
from ..ops import _registry
from ..ops._vjp_util import sum_to_shape
from ..ops.creation import zeros_like
from ..ops.dtypes import astype
from . import forward_ad as _fw
from . import graph as _graph
from ._views import _ViewCell, function_alias, rebase_view
from .grad_mode import _enabled, set_grad_enabled

__all__ = ["Function", "FunctionCtx", "once_differentiable", "BackwardCFunction"]


class FunctionCtx:
    """The ``ctx`` object passed to ``forward``/``setup_context`` and ``backward``.

    Attributes
    ----------
    needs_input_grad : tuple of bool
        For each ``forward`` argument, whether its gradient is needed.
    xp
        The backend's raw array API namespace (for work on ``t.array``).
    backend
        The backend of the Tensor arguments.
    """

    def __init__(self) -> None:
        self._to_save: tuple[Any, ...] = ()
        self._saved: tuple[Any, ...] | None = None
        self._non_differentiable: set[int] = set()
        self._dirty: set[int] = set()
        self.materialize_grads = True
        self.needs_input_grad: tuple[bool, ...] = ()
        self._in_meta: tuple[Any, ...] = ()
        self.xp: Any = None
        self.backend: Any = None
        self._fname = "Function"
        self._fw_saved: tuple[Any, ...] = ()
        self._in_jvp = False

    def save_for_backward(self, *tensors: Array | None) -> None:
        """Save Tensors (or None) for ``backward``; read them back with ``saved_tensors``.

        Parameters
        ----------
        *tensors : Tensor or None
            Inputs or outputs of ``forward`` (checked against later in-place changes).

        Raises
        ------
        TypeError
            If an argument is neither a Tensor nor None.
        """
        Tensor: Any = _registry.Tensor  # the Tensor class (a hook filled by tensor.py)

        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"{self._fname}.save_for_backward: argument {i} must be a Tensor or None, "
                    f"got {type(t).__name__}")
        self._to_save = tensors

    def save_for_forward(self, *tensors: Array | None) -> None:
        """Save Tensors (or None) for ``jvp``; inside ``jvp``, ``saved_tensors`` returns
        them (PyTorch's ``ctx.save_for_forward``).

        Parameters
        ----------
        *tensors : Tensor or None
            Inputs, outputs or intermediates of ``forward``.

        Raises
        ------
        TypeError
            If an argument is neither a Tensor nor None.
        """
        Tensor: Any = _registry.Tensor
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"{self._fname}.save_for_forward: argument {i} must be a Tensor or None, "
                    f"got {type(t).__name__}")
        self._fw_saved = tensors

    @property
    def saved_tensors(self) -> tuple:
        """The Tensors given to ``save_for_backward`` (inside ``jvp``: to
        ``save_for_forward``).

        Raises
        ------
        RuntimeError
            If one was modified in place after it was saved (naming the versions),
            or the graph was already freed by a previous backward.
        """
        if self._in_jvp:
            return tuple(self._fw_saved)
        if self._saved is None:
            raise RuntimeError(
                f"Trying to backward through the graph a second time (or directly access "
                f"saved tensors after they have already been freed): {self._fname}Backward's "
                f"saved tensors were freed by backward(). Specify retain_graph=True if you "
                f"need to backward through the graph a second time or if you need to access "
                f"saved tensors after calling backward.")
        out: list = []
        for entry in self._saved:
            if entry is None:
                out.append(None)
                continue
            t, version = entry
            if t._cell.version != version:
                raise RuntimeError(
                    f"one of the variables needed for gradient computation has been modified "
                    f"by an inplace operation: [{t.dtype} Tensor of shape {t.shape}], saved by "
                    f"{self._fname}Backward (save_for_backward), is at version "
                    f"{t._cell.version}; expected version {version} instead")
            out.append(t)
        return tuple(out)

    saved_variables = saved_tensors

    def mark_non_differentiable(self, *outputs: Array) -> None:
        """Declare outputs that do not require grad (their gradients are zeros/None).

        Parameters
        ----------
        *outputs : Tensor
            Outputs of ``forward``.
        """
        self._non_differentiable.update(id(o) for o in outputs)

    def mark_dirty(self, *inputs: Array) -> None:
        """Declare inputs modified in place by ``forward`` (they must be returned).

        Parameters
        ----------
        *inputs : Tensor
            Inputs of ``forward`` it changed in place.
        """
        self._dirty.update(id(t) for t in inputs)

    def set_materialize_grads(self, value: bool) -> None:
        """With False, ``backward`` receives None instead of zeros for unused outputs.

        Parameters
        ----------
        value : bool
            Whether to materialize missing output gradients as zeros (the default).
        """
        self.materialize_grads = bool(value)


class BackwardCFunction(_graph.Node):
    """The graph node of one ``Function.apply`` call (subclassed per Function)."""

    __slots__ = ("ctx", "fn_cls", "backend", "positions", "out_meta", "n_inputs", "is_tensor")

    def _release(self):
        self.ctx._saved = None
        self.ctx._to_save = ()

    def _apply(self, grads, create_graph):
        Tensor: Any = _registry.Tensor  # the Tensor class (a hook filled by tensor.py)

        ctx = self.ctx
        backend = self.backend
        fname = self.fn_cls.__name__
        gs = []
        for k, g in enumerate(grads):
            if g is None:
                if ctx.materialize_grads:
                    shape, dtype = self.out_meta[k]
                    g = Tensor._from_array(
                        backend.xp.zeros(shape, dtype=backend.native_dtype(dtype)), backend)
            elif not isinstance(g, Tensor):
                g = Tensor._from_array(g, backend)
            gs.append(g)
        result = self.fn_cls.backward(ctx, *gs)
        if not isinstance(result, tuple):
            result = (result,)
        n = self.n_inputs
        if len(result) < n or any(g is not None for g in result[n:]):
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients (expected "
                f"{n}, got {len(result)}); {fname}.backward returns one gradient (or None) per "
                f"forward argument (only trailing None values may be extra)")
        for i in range(n):
            g = result[i]
            if g is not None and not self.is_tensor[i]:
                raise RuntimeError(
                    f"function {self.name()} returned a gradient different than None at "
                    f"position {i + 1}, but the corresponding forward input was not a "
                    f"Variable")
        out = []
        for pidx, (meta_shape, meta_dtype) in zip(self.positions, self._in_meta):
            g = result[pidx]
            if g is not None:
                if not isinstance(g, Tensor):
                    raise TypeError(
                        f"{fname}.backward: gradient for input {pidx} must be a Tensor or None, "
                        f"got {type(g).__name__}")
                if not g._backend.same_kind(backend):
                    raise RuntimeError(
                        f"{fname}.backward: gradient for input {pidx} is on backend "
                        f"{g._backend.name!r}, expected {backend.name!r}")
                if g.shape != meta_shape:
                    # PyTorch (validate_outputs): a gradient the input broadcasts to is
                    # summed to the input's shape; any other shape raises.
                    if not _expandable(meta_shape, g.shape):
                        raise RuntimeError(
                            f"Function {self.name()} returned an invalid gradient at index "
                            f"{pidx} - got {list(g.shape)} but expected shape compatible "
                            f"with {list(meta_shape)} ({fname}.backward, gradient for input "
                            f"{pidx})")


                    with _enabled_as(create_graph):
                        g = sum_to_shape(sys.modules["arrayflow"], g, meta_shape)
                if g.dtype is not meta_dtype:
                    # PyTorch casts the gradient to the input's dtype; real <-> complex is
                    # refused here (it would drop or invent an imaginary part).
                    if (g.dtype.kind == "complex floating") != (
                            meta_dtype.kind == "complex floating"):
                        raise RuntimeError(
                            f"{fname}.backward: gradient for input {pidx} has dtype {g.dtype}, "
                            f"expected {meta_dtype} (the input's dtype)")
                    with _enabled_as(create_graph):
                        g = astype(g, meta_dtype)
            out.append(g if create_graph or g is None else g._cell.array)
        return out

    @property
    def _in_meta(self):
        return self.ctx._in_meta


def _forward_params(cls):
    try:
        return list(inspect.signature(cls.forward).parameters.values())
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return None


def _bind_with_defaults(cls, args, kwargs):
    """The split form (``setup_context``): bind to ``forward``'s signature and apply the
    defaults, as PyTorch 2.13's ``Function.apply`` does; ``setup_context`` sees them all."""
    try:
        bound = inspect.signature(cls.forward).bind(*args, **kwargs)
    except (TypeError, ValueError) as e:
        if isinstance(e, ValueError):  # pragma: no cover
            return args, kwargs
        raise TypeError(f"{cls.__name__}.apply: {e}") from None
    bound.apply_defaults()
    return tuple(bound.args), dict(bound.kwargs)


def _bind_kwargs(cls, args, kwargs):
    """The ``forward(ctx, ...)`` form: keyword arguments become positional inputs (so a
    Tensor passed by keyword gets a ``needs_input_grad`` entry and a gradient), with
    PyTorch 2.13's rules and messages: only positional-or-keyword parameters, no gap."""
    params = _forward_params(cls)
    if params is None:  # pragma: no cover
        raise TypeError(f"{cls.__name__}.apply: keyword arguments need an inspectable forward")
    params = params[1:]  # ctx
    names = [p.name for p in params
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    slots = list(args) + [_MISSING] * max(0, len(names) - len(args))
    for k, v in kwargs.items():
        if k not in names or params[names.index(k)].kind is params[0].POSITIONAL_ONLY:
            raise TypeError(f"forward() got an unexpected keyword argument '{k}'")
        i = names.index(k)
        if i < len(args):
            raise TypeError(f"forward() got multiple values for argument '{k}'")
        slots[i] = v
    last = max(names.index(k) for k in kwargs)
    for i in range(len(args), last):
        if slots[i] is _MISSING:
            raise TypeError(
                f"forward() missing required argument: '{names[i]}' (position {i})")
    return tuple(slots[:last + 1] if last + 1 > len(args) else slots[:len(args)])


_MISSING = object()


def _expandable(shape, to) -> bool:
    """Whether ``shape`` broadcasts to ``to`` (PyTorch's ``is_expandable_to``)."""
    if len(shape) > len(to):
        return False
    return all(s == t or s == 1 for s, t in zip(reversed(shape), reversed(to)))


def _enabled_as(mode):
    return set_grad_enabled(bool(mode))


class _FunctionMeta(type):
    def __init__(cls, name, bases, ns):
        super().__init__(name, bases, ns)
        cls._backward_cls = _graph.node_class_for(name, BackwardCFunction)


class Function(metaclass=_FunctionMeta):
    """Base class of custom differentiable operations (``torch.autograd.Function``).

    Subclass with static ``forward(ctx, *args, **kwargs)`` and
    ``backward(ctx, *grad_outputs)`` (or ``forward(*args)`` plus
    ``setup_context(ctx, inputs, output)``) and call ``YourFunction.apply(...)``.

    Parameters
    ----------
    *args, **kwargs : Any
        Not accepted: Function classes are not instantiated (``RuntimeError``, as PyTorch
        since 1.3); call :meth:`apply`.
    """

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:  # pragma: no cover - to be overridden
        """The computation; every subclass defines it (a staticmethod).

        Parameters
        ----------
        *args, **kwargs : Any
            ``(ctx, *inputs)`` in the combined form; ``(*inputs)`` with ``setup_context``.

        Returns
        -------
        Any
            The output Tensor(s).
        """
        raise NotImplementedError("Function subclasses must implement forward")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:  # pragma: no cover - overridden
        """The gradient formula; every subclass defines it (a staticmethod).

        Parameters
        ----------
        ctx : FunctionCtx
            The context ``forward``/``setup_context`` filled (saved Tensors, flags).
        *grad_outputs : Tensor or None
            One gradient per output of ``forward``.

        Returns
        -------
        Any
            One gradient (or None) per input of ``forward``.
        """
        raise NotImplementedError("Function subclasses must implement backward")

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        """The forward-mode formula (optional; PyTorch's ``Function.jvp``).

        Called by :meth:`apply` when an input carries a forward-mode tangent
        (:mod:`arrayflow.autograd.forward_ad`, :func:`arrayflow.func.jvp`), after
        ``forward`` (which runs with the tangents hidden).

        Parameters
        ----------
        ctx : FunctionCtx
            The context of ``forward``; ``ctx.saved_tensors`` returns what
            ``ctx.save_for_forward`` saved.
        *grad_inputs : Tensor or None
            One tangent per ``forward`` input: zeros for a Tensor input without one, None
            for a non-Tensor input (as PyTorch 2.13).

        Returns
        -------
        Any
            One tangent (Tensor or None) per output of ``forward``.

        Raises
        ------
        NotImplementedError
            When not overridden (PyTorch's message, naming the Function).
        """
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it "
            "with forward mode AD.")

    setup_context = None  # the split form defines it

    generate_vmap_rule = False
    """True: ``vmap`` over :meth:`apply` runs ``forward``, ``setup_context`` and ``backward``
    under ``vmap`` (they must use arrayflow operations only); PyTorch's flag."""

    @staticmethod
    def vmap(info: Any, in_dims: tuple, *args: Any) -> Any:
        """The ``vmap`` rule of the Function (optional; PyTorch's ``Function.vmap``).

        Called by :meth:`apply` inside :func:`arrayflow.func.vmap` when an argument is
        batched (only for the split form with ``setup_context``), once per vmap level.

        Parameters
        ----------
        info : VmapInfo
            ``info.batch_size`` (the size of the vmapped dimension) and
            ``info.randomness`` (``vmap``'s flag).
        in_dims : tuple of int or None
            One entry per argument: the argument's batch dimension (0), or None where the
            argument is not batched.
        *args : Any
            The arguments of ``forward`` (batched ones with the batch dimension at 0).

        Returns
        -------
        tuple
            ``(output, out_dims)``: ``out_dims`` has ``output``'s structure (or is one
            int/None for all), the batch dimension of each output or None.

        Raises
        ------
        RuntimeError
            When neither overridden nor ``generate_vmap_rule = True`` (PyTorch's message,
            naming the Function), and when both are.
        """
        raise NotImplementedError(
            "To use autograd.Function with vmap, you must either override the vmap "
            "staticmethod or set generate_vmap_rule=True.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError(
            f"{type(self).__name__}: Function classes are not instantiated; call "
            f"{type(self).__name__}.apply(...)")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run ``forward`` and record the call for autograd.

        Parameters
        ----------
        *args, **kwargs : Any
            The inputs of ``forward`` (keyword arguments are bound to its parameters).

        Returns
        -------
        Any
            ``forward``'s output(s); Tensors among them carry the new graph node.
        """
        Tensor: Any = _registry.Tensor  # the Tensor class (a hook filled by tensor.py)

        if _vmap_hook is not None:  # a batched argument inside arrayflow.func.vmap
            result = _vmap_hook(cls, args, kwargs)
            if result is not NotImplemented:
                return result
        ctx = FunctionCtx()
        ctx._fname = cls.__name__
        if cls.setup_context is not None:
            args, kwargs = _bind_with_defaults(cls, args, kwargs)
        elif kwargs:
            args = _bind_kwargs(cls, args, kwargs)
            kwargs = {}
        backend = None
        tensor_args = []
        for i, a in enumerate(args):
            if isinstance(a, Tensor):
                tensor_args.append((i, a))
                if backend is None:
                    backend = a._backend
                elif not backend.same_kind(a._backend):
                    raise _backend.BackendMismatchError(
                        f"{cls.__name__}.apply: arguments live on different backends "
                        f"({backend.name!r} and {a._backend.name!r}); move one first, e.g. "
                        f"tensor.to({backend.name!r})")
        if backend is None:
            backend = _backend.get_backend()
        ctx.backend = backend
        ctx.xp = backend.xp
        grad_on = _enabled.get()
        needs = tuple(isinstance(a, Tensor) and a._requires_grad and grad_on for a in args)
        ctx.needs_input_grad = needs
        ctx._in_meta = ()
        fw_levels = _fw_levels(cls, args, kwargs) if _fw._LEVELS else ()
        for lv in _fw._LEVELS:  # forward (and setup_context) see no tangents (PyTorch)
            lv.suspended += 1
        try:
            token = _enabled.set(False)
            try:
                if cls.setup_context is not None:
                    output = cls.forward(*args, **kwargs)
                else:
                    output = cls.forward(ctx, *args, **kwargs)
            finally:
                _enabled.reset(token)
            if cls.setup_context is not None:
                cls.setup_context(ctx, args, output)
        finally:
            for lv in _fw._LEVELS:
                lv.suspended -= 1
        if ctx._dirty and grad_on:
            for _, a in tensor_args:
                if id(a) in ctx._dirty and a._requires_grad and a.grad_fn is None:
                    raise RuntimeError(
                        f"{cls.__name__}.apply: a leaf Variable that requires grad has been "
                        f"used in an in-place operation (ctx.mark_dirty on a leaf that "
                        f"requires grad; pass a clone, or call it under af.no_grad())")
        is_tuple = isinstance(output, tuple)
        outputs = output if is_tuple else (output,)
        grad_inputs = [(a, i) for i, a in tensor_args if needs[i]]
        # Outputs that are inputs returned unchanged become new Tensors on the same storage.
        input_ids = {id(a): a for _, a in tensor_args}
        new_outputs = []
        for k, o in enumerate(outputs):
            if isinstance(o, Tensor) and id(o) in input_ids and id(o) not in ctx._dirty:
                marked = id(o) in ctx._non_differentiable
                o = function_alias(o, cls.__name__, k)
                if marked:  # the mark follows the input to its new Tensor
                    ctx._non_differentiable.add(id(o))
            new_outputs.append(o)
        outputs = tuple(new_outputs)
        if grad_inputs:
            node_cls = cls._backward_cls
            node = node_cls.__new__(node_cls)
            _graph.Node.__init__(node, tuple(_graph.grad_edge(t) for t, _ in grad_inputs),
                                 len(outputs))
            node.ctx = ctx
            node.fn_cls = cls
            node.backend = backend
            node.positions = tuple(i for _, i in grad_inputs)
            node.n_inputs = len(args)
            node.is_tensor = tuple(isinstance(a, Tensor) for a in args)
            node.out_meta = tuple((o.shape, o.dtype) if isinstance(o, Tensor) else ((), None)
                                  for o in outputs)
            ctx._in_meta = tuple((t.shape, t.dtype) for t, _ in grad_inputs)
            if _graph.anomaly_state["enabled"]:
                node._trace = traceback.extract_stack()[:-1]
            for k, o in enumerate(outputs):
                if not isinstance(o, Tensor):
                    continue
                if id(o) in ctx._non_differentiable or o.dtype.kind not in (
                        "real floating", "complex floating"):
                    continue
                o._requires_grad = True
                o.grad_fn = node
                o._output_nr = k
            if ctx._dirty:
                _rebase_dirty_views(outputs, ctx._dirty)
        ctx._saved = tuple(None if t is None else (t, t._cell.version) for t in ctx._to_save)
        ctx._to_save = ()
        if fw_levels:
            _fw_tangents(cls, ctx, fw_levels, args, outputs, is_tuple)
        return outputs if is_tuple else outputs[0]


# arrayflow.func (above autograd) hands down vmap's rule for a Function applied to batched
# Tensors: hook(cls, args, kwargs) -> the result, or NotImplemented (nothing batched).
_vmap_hook: Any = None


def install(*, vmap: Callable[..., Any] | None = None) -> None:
    """Called once by :mod:`arrayflow.func` at import: ``vmap`` is its rule for
    :meth:`Function.apply` on batched Tensors (``Function.vmap``/``generate_vmap_rule``)."""
    global _vmap_hook
    if vmap is not None:
        _vmap_hook = vmap


def _fw_levels(cls, args, kwargs) -> list:
    """The forward-AD levels where a Tensor argument has a tangent; raises PyTorch's
    NotImplementedError (before ``forward`` runs) when there is one and ``cls`` has no
    ``jvp``, or when a keyword-only argument (which gets no tangent slot in ``jvp``, as it
    gets no gradient) carries one: its tangent would be dropped."""
    for k, v in (kwargs or {}).items():
        if _fw._has_tangent(v) if isinstance(v, _registry.Tensor) else False:
            raise NotImplementedError(
                f"{cls.__name__}.apply: the keyword-only argument {k!r} carries a "
                f"forward-mode tangent, but jvp gets tangents for positional inputs only; "
                f"pass it positionally")
    levels = _fw._levels_with_tangents(args, None)
    if levels and cls.jvp is Function.jvp:
        raise NotImplementedError(
            f"{cls.__name__}.apply: You must implement the jvp function for custom "
            f"autograd.Function to use it with forward mode AD. (an input of "
            f"{cls.__name__} has a forward-mode tangent; define the staticmethod "
            f"{cls.__name__}.jvp(ctx, *tangents))")
    return levels


def _fw_tangents(cls, ctx, levels, args, outputs, is_tuple) -> None:
    """PyTorch's custom-Function forward mode: per level, ``cls.jvp(ctx, *tangents)``
    (zeros for a Tensor input without a tangent, None for a non-Tensor input) gives the
    outputs' tangents; it runs with that level suspended, so its ops carry the others."""
    Tensor: Any = _registry.Tensor

    for lv in levels:
        tangents: list[Any] = []  # per input: its tangent Tensor, or None (not a Tensor)
        for a in args:
            if not isinstance(a, Tensor):
                tangents.append(None)
                continue
            t = lv.tangents.get(a)
            if t is None:
                with _backend.use_backend(a._backend):
                    t = zeros_like(a)
            tangents.append(t)
        lv.suspended += 1
        ctx._in_jvp = True
        try:
            result = cls.jvp(ctx, *tangents)
        finally:
            ctx._in_jvp = False
            lv.suspended -= 1
        if is_tuple:
            if not isinstance(result, tuple) or len(result) != len(outputs):
                n = len(result) if isinstance(result, tuple) else 1
                raise RuntimeError(
                    f"{cls.__name__}.jvp: expected {len(outputs)} tangents (one per output "
                    f"of forward), got {n}")
        elif isinstance(result, tuple):
            if len(result) != 1:
                raise RuntimeError(f"{cls.__name__}.jvp: expected 1 tangent (forward returns "
                                   f"one output), got {len(result)}")
            result = result[0]
        for t in (result if is_tuple else (result,)):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"{cls.__name__}.jvp: a tangent must be a Tensor or None, got "
                                f"{type(t).__name__}")
        _fw._attach(lv, cls.__name__, outputs if is_tuple else outputs[0], result)


def _rebase_dirty_views(outputs, dirty) -> None:
    """A dirty input that is a view (``forward`` wrote into its base's storage): the base
    gets the history of the write, as PyTorch's ``CopySlices`` gives it."""
    for o in outputs:
        cell = getattr(o, "_cell", None)
        if id(o) in dirty and type(cell) is _ViewCell and cell.owner is not None \
                and cell.owner() is o and o.grad_fn is not None:
            rebase_view(o, o)


def once_differentiable(backward: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator for ``backward``: run it without recording (not twice-differentiable).

    A second-order backward through it raises ``RuntimeError`` naming the Function.

    Parameters
    ----------
    backward : callable
        A Function's ``backward(ctx, *grad_outputs)``.

    Returns
    -------
    callable
        The wrapped ``backward``.
    """

    @functools.wraps(backward)
    def wrapper(ctx, *grads):
        Tensor: Any = _registry.Tensor  # the Tensor class (a hook filled by tensor.py)

        # Unlike PyTorch, saved Tensors count too: the result depends on them, so a
        # second differentiation must raise rather than silently give no gradient.
        saved = [e[0] for e in (ctx._saved or ()) if e is not None]
        create = _enabled.get() and any(isinstance(g, Tensor) and g._requires_grad
                                        for g in (*grads, *saved))
        token = _enabled.set(False)
        try:
            result = backward(ctx, *grads)
        finally:
            _enabled.reset(token)
        if create:
            single = not isinstance(result, tuple)
            res = (result,) if single else result
            deps = [t for t in (*grads, *saved) if isinstance(t, Tensor) and t._requires_grad]
            res = tuple(_OnceDifferentiableError.apply(g, ctx._fname, *deps)
                        if isinstance(g, Tensor) else g for g in res)
            return res[0] if single else res
        return result

    return wrapper


class _OnceDifferentiableError(Function):
    @staticmethod
    def forward(ctx, g, fname, *deps):
        ctx.fname = fname
        return g

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(
            f"{ctx.fname}: trying to differentiate twice a function that was marked with "
            f"@once_differentiable")
