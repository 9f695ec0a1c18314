"""``arrayflow.library``: custom ops with per-backend kernels (PyTorch's ``torch.library``).

An op is written once, against the array API (the *default kernel*, run on every
backend), and may get a native kernel per backend (Numba on CPU, a CuPy kernel on GPU)
without touching private API::

    @af.library.custom_op("mylib::softplus", mutates_args=(), elementwise=True)
    def softplus(x: af.Tensor) -> af.Tensor:
        xp = af.get_namespace(x)
        return xp.logaddexp(x, xp.zeros_like(x))

    @softplus.register_fake
    def _(x):
        return af.empty_like(x)

    @softplus.register_kernel("numpy")
    def _(x):                      # receives and returns NumPy arrays
        return np.logaddexp(x, 0.0)

    softplus.register_autograd(backward, setup_context=setup_context)

A call goes through ``__arrayflow_function__`` dispatch (the op is listed by
``arrayflow.overrides.get_overridable_functions``), then runs the kernel of the
arguments' backend: a registered one (given the backend's raw arrays, its result checked
against the fake rule), on a chunked backend (Dask) an element-wise op's kernel for the
blocks' backend block by block, else the default kernel (given Tensors, run without
recording). With ``register_autograd`` the call is recorded as one node whose backward
is the one registered (written with arrayflow ops it differentiates again); without it,
a backward through the op raises (PyTorch's behaviour).

Source: ``torch.library.custom_op`` / ``CustomOpDef`` (PyTorch 2.4+): the names, the
decorator forms and the ``opcheck`` idea; the per-backend kernels, the block-wise Dask
path and the report per backend are arrayflow's.
"""

from __future__ import annotations

import inspect
import keyword
import math
import sys
import types
import typing
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from . import _backend, _dispatch
from .autograd import forward_ad as _fw
from .autograd.function import Function
from .autograd.grad_mode import _enabled, no_grad
from .ops import _registry
from .tensor import Tensor

__all__ = ["CustomOpDef", "OpCheckError", "custom_op", "get_namespace", "opcheck", "ops"]

_OPS: dict[str, CustomOpDef] = {}


def get_namespace(*arrays: Any) -> Any:
    """The array API namespace for ``arrays``: ``arrayflow`` for Tensors, else the backend's.

    Parameters
    ----------
    *arrays : Tensor or backend array
        The arguments of a kernel (Tensors in a default kernel, raw arrays in a kernel
        registered for a backend).

    Returns
    -------
    module
        ``arrayflow`` when any argument is a Tensor, else the namespace of the backend
        the arrays belong to (NumPy's array API namespace for NumPy arrays, ...).

    Raises
    ------
    TypeError
        If no argument is an array of an installed backend.
    """
    for a in arrays:
        if isinstance(a, Tensor):
            return sys.modules["arrayflow"]
    for a in arrays:
        b = _backend.backend_of_array(a)
        if b is not None:
            return b.xp
    raise TypeError(f"arrayflow.get_namespace: expected Tensors or backend arrays, got "
                    f"{[type(a).__name__ for a in arrays]}")


class OpCheckError(AssertionError):
    """Raised by :func:`opcheck`: one line per failed check, per backend."""


class _Namespace(types.SimpleNamespace):
    """``arrayflow.library.ops.<namespace>.<name>``: the registered custom ops."""


ops = _Namespace()
"""Every custom op by namespace: ``af.library.ops.mylib.softplus`` (PyTorch's ``torch.ops``)."""


def _check_name(name: Any) -> tuple[str, str]:
    if not isinstance(name, str) or name.count("::") != 1:
        raise ValueError(f"arrayflow.library.custom_op: name must be 'namespace::name' (e.g. "
                         f"'mylib::softplus'), got {name!r}")
    ns, op_name = name.split("::")
    for part in (ns, op_name):
        if not part.isidentifier() or keyword.iskeyword(part):
            raise ValueError(f"arrayflow.library.custom_op: {name!r}: {part!r} is not a "
                             f"Python identifier")
    if name in _OPS:
        raise RuntimeError(f"arrayflow.library.custom_op: {name!r} is already registered")
    return ns, op_name


def _is_tensor_annotation(ann: Any) -> bool:
    if ann is Tensor or ann == "Tensor" or (isinstance(ann, str) and ann.endswith(".Tensor")):
        return True
    return False


def _tensor_params(fn: Callable, name: str) -> tuple[inspect.Signature, dict[str, str]]:
    """The schema: every parameter and the return annotated; which parameters are Tensors
    (``"tensor"``, ``"optional"``, ``"list"``)."""
    sig = inspect.signature(fn)
    try:
        hints = typing.get_type_hints(fn, globalns={**getattr(fn, "__globals__", {}),
                                                    "Tensor": Tensor})
    except Exception:  # unresolvable string annotations: read them as written
        hints = {k: p.annotation for k, p in sig.parameters.items()}
        hints["return"] = sig.return_annotation
    kinds = {}
    for pname, p in sig.parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise ValueError(f"arrayflow.library.custom_op({name!r}): *args/**kwargs are not "
                             f"supported in a schema (parameter {pname!r})")
        if p.annotation is inspect.Parameter.empty:
            raise ValueError(f"arrayflow.library.custom_op({name!r}): parameter {pname!r} "
                             f"must have a type annotation (the schema is read from them)")
        ann = hints.get(pname, p.annotation)
        if _is_tensor_annotation(ann):
            kinds[pname] = "tensor"
            continue
        args = typing.get_args(ann)
        origin = typing.get_origin(ann)
        if args and any(_is_tensor_annotation(a) for a in args):
            if origin in (list, tuple, Sequence, typing.Sequence) or origin is list:
                kinds[pname] = "list"
            else:  # Optional[Tensor] / Tensor | None
                kinds[pname] = "optional"
    if sig.return_annotation is inspect.Signature.empty:
        raise ValueError(f"arrayflow.library.custom_op({name!r}): the return type must be "
                         f"annotated (Tensor or tuple[Tensor, ...])")
    return sig, kinds


class CustomOpDef:
    """A custom op (made by :func:`custom_op`): call it like a function.

    Parameters
    ----------
    qualname : str
        ``"namespace::name"``.
    fn : callable
        The default kernel (annotated: the schema).
    mutates_args : tuple of str or "unknown"
        The Tensor parameters the op writes into.
    elementwise : bool
        Whether the op maps elements independently.

    Attributes
    ----------
    name : str
        ``"namespace::name"``.
    mutates_args : tuple of str or "unknown"
        The parameters the op writes into.
    elementwise : bool
        Whether the op maps each element independently (then a kernel for a chunked
        backend's blocks runs block by block on it).
    kernels : dict
        Backend name -> registered kernel.
    """

    def __init__(self, qualname: str, fn: Callable, mutates_args: Any, elementwise: bool):
        self.name = qualname
        self._namespace, self.__name__ = qualname.split("::")
        self.__qualname__ = self.__name__
        self.__module__ = getattr(fn, "__module__", "arrayflow.library")
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self._default = fn
        self._sig, self._kinds = _tensor_params(fn, qualname)
        self.__signature__ = self._sig
        if mutates_args != "unknown":
            if isinstance(mutates_args, str) or not isinstance(mutates_args, Iterable):
                raise TypeError(f"arrayflow.library.custom_op({qualname!r}): mutates_args "
                                f"must be a tuple of parameter names or 'unknown', got "
                                f"{mutates_args!r}")
            mutates_args = tuple(mutates_args)
            for a in mutates_args:
                if self._kinds.get(a) not in ("tensor", "optional", "list"):
                    raise ValueError(f"arrayflow.library.custom_op({qualname!r}): mutates_args "
                                     f"names {a!r}, which is not a Tensor parameter of "
                                     f"{list(self._sig.parameters)}")
        self.mutates_args = mutates_args
        self.elementwise = bool(elementwise)
        self.kernels: dict[str, Callable] = {}
        self._fake: Callable | None = None
        self._backward: Callable | None = None
        self._setup_context: Callable | None = None
        self._jvp: Callable | None = None
        self._vmap: Callable | None = None
        self._function = self._make_function()

    def __repr__(self) -> str:
        return f"<CustomOpDef({self.name})>"

    # --- registration --------------------------------------------------------------
    def register_kernel(self, backend: str, fn: Callable | None = None) -> Any:
        """Register ``fn`` as the op's kernel on ``backend`` (a call or a decorator).

        Parameters
        ----------
        backend : str
            An installed backend's name (``"numpy"``, ``"cupy"``, ``"dask"``, ``"strict"``).
        fn : callable, optional
            ``fn(*args)`` with the op's parameters, Tensors given as the backend's raw
            arrays; returns raw arrays of the shapes and dtypes the fake rule gives.
            Omitted: returns a decorator.

        Returns
        -------
        callable
            ``fn``, or the decorator when ``fn`` is omitted.

        Raises
        ------
        ValueError
            If ``backend`` is not an installed backend (the message names those that are).
        TypeError
            If ``fn`` is not callable.
        """
        installed = [i.name for i in _backend.available()]
        if not isinstance(backend, str) or backend not in installed:
            raise ValueError(f"{self.name}.register_kernel: backend {backend!r} is not "
                             f"installed; installed backends: {installed}")

        def deco(f: Callable) -> Callable:
            if not callable(f):
                raise TypeError(f"{self.name}.register_kernel({backend!r}): expected a "
                                f"function, got {type(f).__name__}")
            self.kernels[backend] = f
            return f

        return deco if fn is None else deco(fn)

    def register_fake(self, fn: Callable) -> Callable:
        """Register the shape/dtype rule: ``fn(*args)`` with Tensors, returning Tensors of
        the output's shapes and dtypes (``af.empty_like(x)``); never reads values.

        Used to check every kernel's result and to type a block-wise Dask result.

        Parameters
        ----------
        fn : callable
            The rule.

        Returns
        -------
        callable
            ``fn`` (so it can be a decorator).

        Raises
        ------
        TypeError
            If ``fn`` is not callable.
        """
        if not callable(fn):
            raise TypeError(f"{self.name}.register_fake: expected a function, got "
                            f"{type(fn).__name__}")
        self._fake = fn
        return fn

    def register_autograd(self, backward: Callable, /, *,
                          setup_context: Callable | None = None) -> None:
        """Make the op differentiable (PyTorch's ``register_autograd``).

        Parameters
        ----------
        backward : callable
            ``backward(ctx, *grads)`` returns one gradient (or None) per op parameter.
            Written with arrayflow ops, it is itself differentiable (double backward).
        setup_context : callable, optional
            ``setup_context(ctx, inputs, output)``: save what ``backward`` needs
            (``ctx.save_for_backward(...)``, attributes).
        """
        if not callable(backward) or (setup_context is not None and not callable(
                setup_context)):
            raise TypeError(f"{self.name}.register_autograd: backward and setup_context must "
                            f"be functions")
        self._backward = backward
        self._setup_context = setup_context

    def register_jvp(self, jvp: Callable, /) -> Callable:
        """Give the op a forward-mode rule (``arrayflow.autograd.forward_ad``,
        ``arrayflow.func.jvp``/``jacfwd``); PyTorch's ``Function.jvp`` for the op.

        Parameters
        ----------
        jvp : callable
            ``jvp(ctx, *tangents)`` returns the output's tangent (a tuple for several
            outputs). ``ctx.inputs`` holds the call's arguments (and ``ctx`` whatever the
            ``setup_context`` of :meth:`register_autograd` saved); ``tangents`` has one
            entry per op parameter (zeros for a Tensor without a tangent, None for
            non-Tensors). Written with arrayflow ops it composes with reverse mode.

        Returns
        -------
        callable
            ``jvp``.

        Raises
        ------
        TypeError
            If ``jvp`` is not callable.
        """
        if not callable(jvp):
            raise TypeError(f"{self.name}.register_jvp: expected a function, got "
                            f"{type(jvp).__name__}")
        self._jvp = jvp
        op = self

        def fn_jvp(ctx, *tangents):
            return op._jvp(ctx, *tangents) if op._jvp is not None else None

        # Deliberate: the op's generated Function subclass gets a jvp only once one is
        # registered (apply tells "no jvp" by `cls.jvp is Function.jvp` and then raises
        # PyTorch's error), so the staticmethod is set on the class here; mypy flags any
        # assignment to a method.
        self._function.jvp = staticmethod(fn_jvp)  # type: ignore[method-assign]
        return jvp

    def register_vmap(self, fn: Callable, /) -> Callable:
        """Give the op a batching rule for ``arrayflow.func.vmap`` (PyTorch's
        ``CustomOpDef.register_vmap`` / ``torch.library.register_vmap``).

        Parameters
        ----------
        fn : callable
            ``fn(info, in_dims, *args) -> (output, out_dims)``: ``in_dims`` gives each
            argument's batch dimension (None: not batched), ``args`` are the physical
            Tensors; the rule calls the op (or its kernels) once on the whole batch.

        Returns
        -------
        callable
            ``fn``.

        Raises
        ------
        TypeError
            If ``fn`` is not callable.

        Notes
        -----
        Without a rule, ``vmap`` runs the op's default kernel on the batched values (its
        array API code is batched op by op).
        """
        if not callable(fn):
            raise TypeError(f"{self.name}.register_vmap: expected a function, got "
                            f"{type(fn).__name__}")
        self._vmap = fn
        self._function.vmap = staticmethod(fn)  # type: ignore[method-assign]  # see jvp
        return fn

    def _call_batched(self, args: tuple, kwargs: dict) -> Any:
        """The op inside ``arrayflow.func.vmap`` (some arguments batched): the registered
        batching rule through the op's Function, else the default kernel on the batched
        values."""
        try:
            bound = self._sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.name}: {e}") from None
        flat = tuple(bound.arguments.get(n, p.default) for n, p in self._sig.parameters.items())
        if self._vmap is not None:
            return self._function.apply(*flat)
        return self._default(*flat)

    # --- calling -----------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        st = _dispatch._state_get()
        over = _dispatch.overloaded_args(args, kwargs, self, st)
        if over or _dispatch.modes_active(st):
            return _dispatch.dispatch(self, over, args, kwargs)
        try:
            bound = self._sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.name}: {e}") from None
        flat = tuple(bound.arguments.get(n, p.default) for n, p in self._sig.parameters.items())
        backend = self._backend_of(flat)
        if (_enabled.get() and self._requires_grad(flat)) or (
                _fw._LEVELS and _fw._levels_with_tangents(flat, None)):
            # recorded (reverse mode), or inputs carrying forward-mode tangents: the kernel
            # does not propagate them, so the op's registered jvp must (PyTorch raises
            # without one; a dropped tangent would be silently wrong)
            return self._function.apply(*flat)
        return self._run(backend, flat)

    def _backend_of(self, flat: tuple) -> Any:
        backend = None
        for t in self._tensors(flat):
            if backend is None:
                backend = t._backend
            elif not backend.same_kind(t._backend):
                raise _backend.BackendMismatchError(
                    f"{self.name}: arguments live on different backends ({backend.name!r} "
                    f"and {t._backend.name!r}); move one first, e.g. tensor.to("
                    f"{backend.name!r})")
        return backend if backend is not None else _backend.get_backend()

    def _tensors(self, flat: tuple) -> list:
        out = []
        for v in flat:
            if isinstance(v, Tensor):
                out.append(v)
            elif isinstance(v, (list, tuple)):
                out += [e for e in v if isinstance(e, Tensor)]
        return out

    def _requires_grad(self, flat: tuple) -> bool:
        return any(t.requires_grad for t in self._tensors(flat))

    def _fake_meta(self, flat: tuple) -> list | None:
        if self._fake is None:
            return None
        with no_grad():
            out = self._fake(*flat)
        return [(tuple(o.shape), o.dtype) for o in (out if isinstance(out, tuple) else (out,))]

    def _run(self, backend: Any, flat: tuple) -> Any:
        """One call on ``backend``: the registered kernel, block-wise, or the default."""
        kernel = self.kernels.get(backend.name)
        if kernel is None and backend.lazy and self.elementwise \
                and backend.block_backend in self.kernels:
            return self._run_blocks(backend, flat)
        if kernel is None:
            with no_grad():
                out = self._default(*flat)
            return self._checked(out, backend, "default kernel", flat, wrap=False)
        raw = tuple(_registry.unwrap(v) for v in flat)
        out = kernel(*raw)
        self._bump_versions(flat)
        return self._checked(out, backend, f"kernel for {backend.name!r}", flat, wrap=True)

    def _run_blocks(self, backend: Any, flat: tuple) -> Any:
        meta = self._fake_meta(flat)
        if meta is None:
            raise RuntimeError(f"{self.name}: running the {backend.block_backend!r} kernel "
                               f"block by block on {backend.name!r} needs a fake rule "
                               f"(register_fake) for the result's dtype")
        if len(meta) != 1:
            raise RuntimeError(f"{self.name}: block-wise kernels return one array")
        tensors = [v for v in flat if isinstance(v, Tensor)]
        shapes = {tuple(t.shape) for t in tensors}
        if len(shapes) != 1 or len(tensors) != len([v for v in flat if v is not None]):
            raise RuntimeError(f"{self.name}: block-wise kernels take Tensors of one shape "
                               f"(got shapes {sorted(shapes)}); register a kernel for "
                               f"{backend.name!r} instead")
        kernel = self.kernels[backend.block_backend]
        arrays = [t._cell.array for t in tensors]
        # align every array to the finest chunking among them (most blocks): aligning to
        # the first would run, e.g., a backward kernel on a one-block gradient
        # (broadcast from a sum) as a single block, merging the input's chunks
        chunks = [backend.chunks_of(a) for a in arrays]
        finest = max(chunks, key=lambda c: math.prod(len(axis) for axis in c))
        arrays = [a if c == finest else backend.rechunk(a, finest)
                  for a, c in zip(arrays, chunks)]
        dtype = backend.native_dtype(meta[0][1])
        out = backend.map_blocks(_BlockChecked(self.name, backend.block_backend, backend.name,
                                               kernel, dtype), *arrays, dtype=dtype)
        return _registry.wrap(out, backend)

    def _bump_versions(self, flat: tuple) -> None:
        if self.mutates_args == "unknown":
            names = [n for n, k in self._kinds.items() if k]
        else:
            names = list(self.mutates_args)
        params = list(self._sig.parameters)
        for n in names:
            v = flat[params.index(n)]
            for t in (v if isinstance(v, (list, tuple)) else (v,)):
                if isinstance(t, Tensor):
                    t._cell.version += 1

    def _checked(self, out: Any, backend: Any, who: str, flat: tuple, *, wrap: bool) -> Any:
        outs = out if isinstance(out, tuple) else (out,)
        for k, o in enumerate(outs):
            ok = backend.is_array(o) if wrap else isinstance(o, Tensor)
            if not ok:
                want = f"{backend.name} arrays" if wrap else "Tensors"
                raise TypeError(f"{self.name}: the {who} returned {type(o).__name__} as output "
                                f"{k}; expected {want}")
        result = _registry.wrap(out, backend) if wrap else out
        meta = self._fake_meta(flat)
        if meta is not None:
            got = [(tuple(o.shape), o.dtype)
                   for o in (result if isinstance(result, tuple) else (result,))]
            if got != meta:
                raise RuntimeError(f"{self.name}: the {who} returned "
                                   f"{_fmt_meta(got)} but the fake rule says "
                                   f"{_fmt_meta(meta)}")
        return result

    def _make_function(self) -> type[Function]:
        op = self

        def forward(*flat):
            return op._run(op._backend_of(flat), flat)

        def setup_context(ctx, inputs, output):
            ctx.inputs = inputs
            if op._setup_context is not None:
                op._setup_context(ctx, inputs, output)

        def backward(ctx, *grads):
            if op._backward is None:
                raise RuntimeError(f"Trying to backward through {op.name} but no autograd "
                                   f"formula was registered. Please use register_autograd to "
                                   f"add one.")
            g = op._backward(ctx, *grads)
            return g if isinstance(g, tuple) else (g,)

        cls_name = f"{self._namespace}_{self.__name__}"
        return type(cls_name, (Function,), {
            "forward": staticmethod(forward), "setup_context": staticmethod(setup_context),
            "backward": staticmethod(backward), "__module__": "arrayflow.library"})


class _BlockChecked:
    """A block kernel whose every result is checked against the fake rule when it runs.

    The lazy result is typed by the fake rule (``meta``) without running the kernel; a
    kernel whose blocks come back with another dtype or shape would otherwise give data
    that disagrees with the dtype the Tensor reports. Raises RuntimeError naming the op
    and the backends when a block is computed.
    """

    def __init__(self, op: str, block_backend: str, backend: str, kernel: Callable,
                 dtype: Any):
        self.op, self.block_backend, self.backend = op, block_backend, backend
        self.kernel, self.dtype = kernel, dtype
        self.__name__ = getattr(kernel, "__name__", "kernel")

    def __call__(self, *blocks: Any) -> Any:
        out = self.kernel(*blocks)
        shape = tuple(getattr(out, "shape", ()))
        if getattr(out, "dtype", None) != self.dtype or shape != tuple(blocks[0].shape):
            raise RuntimeError(
                f"{self.op}: the kernel for {self.block_backend!r}, run block by block on "
                f"{self.backend!r}, returned {type(out).__name__} shape {shape} dtype "
                f"{getattr(out, 'dtype', None)} for a block of shape "
                f"{tuple(blocks[0].shape)}, but the fake rule says dtype {self.dtype} "
                f"(and an element-wise op keeps the block's shape)")
        return out


def _fmt_meta(meta: list) -> str:
    return ", ".join(f"shape {s} dtype {d}" for s, d in meta)


def custom_op(name: str, fn: Callable | None = None, /, *, mutates_args: Any,
              elementwise: bool = False) -> Any:
    """Register a custom op (PyTorch's ``torch.library.custom_op``); a decorator or a call.

    Parameters
    ----------
    name : str
        ``"namespace::name"``; both parts Python identifiers, the whole unique.
    fn : callable, optional
        The default kernel, with type annotations on every parameter and the return
        (``Tensor``, ``Tensor | None``, ``list[Tensor]``, Python types): the op's schema.
        It receives Tensors and is written against the array API (``xp =
        af.get_namespace(x)``), so it runs on every backend.
    mutates_args : tuple of str or "unknown"
        The Tensor parameters the op writes into (``()`` for a pure op), required as in
        PyTorch.
    elementwise : bool
        Declare that the op maps elements independently: on a chunked backend (Dask)
        without its own kernel, the kernel registered for its blocks' backend
        (``"numpy"``) runs block by block, typed by the fake rule.

    Returns
    -------
    CustomOpDef
        Also reachable as ``af.library.ops.<namespace>.<name>``.

    Raises
    ------
    ValueError
        A name without a namespace, a parameter without an annotation, a
        ``mutates_args`` entry that is not a Tensor parameter.
    RuntimeError
        If the name is already registered.
    """
    ns, op_name = _check_name(name)

    def deco(f: Callable) -> CustomOpDef:
        op = CustomOpDef(name, f, mutates_args, elementwise)
        _OPS[name] = op
        space = getattr(ops, ns, None)
        if space is None:
            space = _Namespace()
            setattr(ops, ns, space)
        setattr(space, op_name, op)
        _dispatch.register_custom_op(op)
        return op

    return deco if fn is None else deco(fn)


# --- opcheck -------------------------------------------------------------------------------

def _usable_backends() -> list[str]:
    return [i.name for i in _backend.available() if i.usable]


def _to_backend(v: Any, name: str) -> Any:
    af = sys.modules["arrayflow"]
    if isinstance(v, Tensor):
        return v.detach().to(name)
    if isinstance(v, (list, tuple)):
        return type(v)(_to_backend(e, name) for e in v)
    if _backend.backend_of_array(v) is not None:
        with _backend.use_backend(name):
            return af.asarray(v)
    return v


def _host(v: Any) -> Any:
    if isinstance(v, Tensor):
        return v.detach().numpy().copy()
    if isinstance(v, (list, tuple)):
        return [_host(e) for e in v]
    return v


def opcheck(op: CustomOpDef | str, samples: Sequence[tuple], *,
            backends: Sequence[str] | None = None, raise_exception: bool = True,
            rtol: float = 1e-5, atol: float = 1e-6) -> dict[str, dict[str, str]]:
    """Check a custom op on every usable backend (PyTorch's ``torch.library.opcheck``).

    For each backend and sample: the arguments bind to the schema; the result's types
    match its annotation; the fake rule agrees with the real output (shape, dtype) of the
    kernel that runs there; a registered kernel agrees with the default kernel's values;
    no argument outside ``mutates_args`` is written; with ``register_autograd``, the
    gradient passes ``gradcheck`` on float64 copies of the sample.

    Parameters
    ----------
    op : CustomOpDef or str
        The op or its ``"namespace::name"``.
    samples : sequence of tuple
        Positional arguments, one tuple per call (Tensors or NumPy arrays; moved to each
        backend).
    backends : sequence of str, optional
        Default: every usable backend.
    raise_exception : bool
        Raise :class:`OpCheckError` listing the failures (default), or return the report.
    rtol, atol : float
        Tolerances of the value comparisons.

    Returns
    -------
    dict
        ``{backend: {check: "SUCCESS" | "SKIPPED: why" | "FAILED: why"}}``.

    Raises
    ------
    OpCheckError
        If a check failed and ``raise_exception`` is true.
    KeyError
        If ``op`` names no registered op.
    """
    if isinstance(op, str):
        if op not in _OPS:
            raise KeyError(f"arrayflow.library.opcheck: no custom op {op!r}; registered: "
                           f"{sorted(_OPS)}")
        op = _OPS[op]
    names = list(backends) if backends is not None else _usable_backends()
    report: dict[str, dict[str, str]] = {}
    for bname in names:
        checks: dict[str, str] = {}
        report[bname] = checks

        def record(check: str, error: str | None, *, _checks=checks) -> None:
            prev = _checks.get(check)
            if error is None:
                _checks.setdefault(check, "SUCCESS")
            elif prev is None or not prev.startswith("FAILED"):
                _checks[check] = f"FAILED: {error}"

        for k, sample in enumerate(samples):
            args = _to_backend(tuple(sample), bname)
            try:
                op._sig.bind(*args)
                record("schema", None)
            except TypeError as e:
                record("schema", f"sample {k}: {e}")
                continue
            before = _host(list(args))
            try:
                with _backend.use_backend(bname):
                    out = op(*args)
                    # run it: a lazy backend's kernels (block-wise ones checked against the
                    # fake rule as they run) fail here, as an eager backend's did above
                    _host(list(out if isinstance(out, tuple) else (out,)))
            except Exception as e:  # noqa: BLE001 - reported per check
                record("call", f"sample {k}: {type(e).__name__}: {e}")
                continue
            record("call", None)
            outs = out if isinstance(out, tuple) else (out,)
            bad = [type(o).__name__ for o in outs if not isinstance(o, Tensor)]
            record("schema", f"sample {k}: outputs {bad} are not Tensors" if bad else None)
            after = _host(list(args))
            written = [p for p, b, a in zip(op._sig.parameters, before, after)
                       if not _same(b, a)]
            allowed = list(op._sig.parameters) if op.mutates_args == "unknown" \
                else list(op.mutates_args)
            wrong = [p for p in written if p not in allowed]
            record("mutates_args", f"sample {k}: wrote {wrong}, which mutates_args "
                   f"{tuple(op.mutates_args)} does not declare" if wrong else None)
            if op._fake is None:
                checks.setdefault("fake", "SKIPPED: no fake rule registered")
            else:
                try:
                    meta = op._fake_meta(args)
                    got = [(tuple(o.shape), o.dtype) for o in outs]
                    record("fake", None if meta == got else
                           f"sample {k}: fake {_fmt_meta(meta or [])}, real {_fmt_meta(got)}")
                except Exception as e:  # noqa: BLE001
                    record("fake", f"sample {k}: {type(e).__name__}: {e}")
            if bname in op.kernels or _block_kernel(op, bname):
                with _backend.use_backend(bname), no_grad():
                    fresh = _to_backend(tuple(sample), bname)
                    ref = op._default(*fresh)
                refs = ref if isinstance(ref, tuple) else (ref,)
                errs = [f"output {j}: max |diff| {_maxdiff(a, b):.3g}"
                        for j, (a, b) in enumerate(zip(outs, refs)) if not _close(
                            a, b, rtol, atol)]
                record("kernel_vs_default", f"sample {k}: " + "; ".join(errs) if errs
                       else None)
            else:
                checks.setdefault("kernel_vs_default", "SKIPPED: the default kernel runs here")
            if op._backward is None:
                checks.setdefault("autograd", "SKIPPED: no autograd registered")
            else:
                err = _gradcheck(op, sample, bname)
                record("autograd", None if err is None else f"sample {k}: {err}")
    failures = [f"{b}: {c}: {v[len('FAILED: '):]}" for b, cs in report.items()
                for c, v in cs.items() if v.startswith("FAILED")]
    if failures and raise_exception:
        raise OpCheckError(f"opcheck({op.name}) failed:\n  " + "\n  ".join(failures))
    return report


def _block_kernel(op: CustomOpDef, bname: str) -> bool:
    """Whether ``op`` runs a block backend's kernel block by block on ``bname``."""
    with _backend.use_backend(bname) as b:
        return op.elementwise and b.lazy and b.block_backend in op.kernels


def _same(a: Any, b: Any) -> bool:
    import numpy as np

    if isinstance(a, list):
        return all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=True))
    return True


def _close(a: Any, b: Any, rtol: float, atol: float) -> bool:
    import numpy as np

    x, y = a.detach().numpy(), b.detach().numpy()
    return x.shape == y.shape and bool(np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True))


def _maxdiff(a: Any, b: Any) -> float:
    import numpy as np

    x, y = a.detach().numpy(), b.detach().numpy()
    if x.shape != y.shape:
        return float("inf")
    return float(np.max(np.abs(x - y))) if x.size else 0.0


def _gradcheck(op: CustomOpDef, sample: tuple, bname: str) -> str | None:
    af = sys.modules["arrayflow"]
    leaves = []
    args = []
    with _backend.use_backend(bname):
        for v in _to_backend(tuple(sample), bname):
            if isinstance(v, Tensor) and v.dtype.kind == "real floating":
                t = af.astype(v.detach(), af.float64).requires_grad_()
                leaves.append(t)
                args.append(t)
            else:
                args.append(v)
        if not leaves:
            return None
        pos = [i for i, a in enumerate(args) if any(a is t for t in leaves)]

        def fn(*xs):
            call = list(args)
            for i, x in zip(pos, xs):
                call[i] = x
            return op(*call)

        try:
            af.autograd.gradcheck(fn, tuple(leaves), eps=1e-6, atol=1e-5, rtol=1e-3)
        except Exception as e:  # noqa: BLE001 - reported
            return f"{type(e).__name__}: {str(e).splitlines()[0]}"
    return None
