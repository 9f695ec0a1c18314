"""``Module``: the base class of layers and models, with PyTorch's semantics.

A Module registers the Parameters, sub-Modules and buffers assigned to it, walks
them in a deterministic order (registration order, depth first), saves and loads
them as a ``state_dict``, moves them between backends, dtypes and devices in place
and runs forward hooks around ``forward``. Nothing here reads array values, so a
forward on a lazy backend stays lazy.
"""

from __future__ import annotations

import builtins
import contextvars
import itertools
import warnings
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .. import _backend, _dtypes
from .._device import cuda_device, resolve_device
from ..autograd import Function, is_grad_enabled, no_grad
from ..autograd._hook_check import check_hook_grad, hook_name
from ..tensor import Tensor
from .parameter import Parameter

__all__ = ["Module", "RemovableHandle"]


class RemovableHandle:
    """A handle returned by hook registration; ``remove()`` unregisters the hook.

    Also a context manager: the hook is removed on exit.

    Parameters
    ----------
    *hook_dicts : dict
        The hook dicts the hook is registered in (kept by weak reference); ``remove()`` deletes
        the handle's id from each.
    """

    _next_id = itertools.count()

    def __init__(self, *hook_dicts: dict) -> None:
        self.id = next(RemovableHandle._next_id)
        self._refs = [weakref.ref(d) for d in hook_dicts]

    def remove(self) -> None:
        """Unregister the hook (a no-op if already removed)."""
        for ref in self._refs:
            d = ref()
            if d is not None:
                d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: ``(missing_keys, unexpected_keys)``."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class _BackwardHookFunction(Function):
    """Identity on the Tensors given; its backward hands the gradients to a callback.

    The node PyTorch's ``BackwardHook`` puts around a Module's inputs and outputs
    (``BackwardHookFunctionBackward``): the forward receives, and the caller gets,
    new Tensors on the same storage.
    """

    @staticmethod
    def forward(ctx, on_backward, materialize, *args):
        ctx.on_backward = on_backward
        ctx.set_materialize_grads(materialize)
        return args

    @staticmethod
    def backward(ctx, *grads):
        return (None, None, *ctx.on_backward(grads))


class _BackwardHook:
    """One forward call's full backward (pre-)hooks: PyTorch's ``torch.utils.hooks.BackwardHook``.

    Input gradients are captured by an identity node on the Module's positional
    Tensor inputs, output gradients by one on its outputs. The pre-hooks run when
    the output gradients arrive; the hooks when the input gradients are computed,
    with both.
    """

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_meta = None
        self.n_inputs = -1
        self.input_tensors_index = None
        self.input_meta = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    @staticmethod
    def _unpack_none(indices, values):
        return tuple(values[idx] for idx in indices)

    def _check(self, hook, result, expected_len, meta, what, kind):
        grad = "grad_input" if what == "Backward hook" else "grad_output"
        if not isinstance(result, (tuple, list)) or len(result) != expected_len:
            n = len(result) if hasattr(result, "__len__") else type(result).__name__
            raise RuntimeError(
                f"Module.{kind}: {what} {hook_name(hook)!r} returned an invalid number of "
                f"{grad}, got {n}, but expected {expected_len} (return a tuple with one "
                f"entry per {'input' if grad == 'grad_input' else 'output'}, or None)")
        out = []
        for i, v in enumerate(result):
            m = meta.get(i)
            if m is None:  # a non-Tensor position: whatever comes back is dropped
                out.append(v)
                continue
            out.append(check_hook_grad(hook, v, *m, where=f"Module.{kind}: {grad}[{i}]"))
        return tuple(out)

    def _apply_on_tensors(self, on_backward, args, materialize):
        idx, tensors = [], []
        requires_grad = False
        for i, a in enumerate(args):
            if isinstance(a, Tensor):
                idx.append(i)
                tensors.append(a)
                requires_grad |= a.requires_grad
        if not (requires_grad and is_grad_enabled()):
            return args, None, None, None
        # Tensors that do not require grad pass unchanged: their gradient entry is None.
        diff = [k for k, t in enumerate(tensors) if t.requires_grad]
        new = _BackwardHookFunction.apply(on_backward, materialize,
                                          *(tensors[k] for k in diff))
        out = list(args)
        for k, t in zip(diff, new):
            out[idx[k]] = t
        meta = {i: (tuple(t.shape), t.dtype, t._backend) for i, t in zip(idx, tensors)}
        out = tuple(out) if type(args) is tuple else type(args)(*out)
        return out, idx, meta, [idx[k] for k in diff]

    def setup_input_hook(self, args):
        res, idx, meta, self._input_diff = self._apply_on_tensors(self._on_input_grads, args,
                                                                      True)
        self.n_inputs = len(args)
        self.input_tensors_index = idx
        self.input_meta = meta
        return res

    def _on_input_grads(self, grads):
        if self.grad_outputs is None:
            # the gradient reached the inputs without passing through the outputs
            # (double backward): PyTorch does not call the hooks then
            return grads
        res = list(self._pack_with_none(self._input_diff, grads, self.n_inputs))
        for i in self.input_tensors_index:
            if i not in self._input_diff:
                # a Tensor input that does not require grad: a zero gradient (PyTorch
                # materializes one for it)
                shape, dtype, backend = self.input_meta[i]
                res[i] = Tensor._from_array(
                    backend.xp.zeros(shape, dtype=backend.native_dtype(dtype)), backend)
        res = tuple(res)
        for hook in self.user_hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            res = self._check(hook, out, len(res), self.input_meta, "Backward hook",
                              "register_full_backward_hook")
        self.grad_outputs = None
        return self._unpack_none(self._input_diff, res)

    def setup_output_hook(self, result):
        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        res, _, meta, self._output_diff = self._apply_on_tensors(self._on_output_grads,
                                                                     args, False)
        self.n_outputs = len(args)
        self.output_meta = meta
        return res if is_tuple else res[0]

    def _on_output_grads(self, grads):
        self.grad_outputs = self._pack_with_none(self._output_diff, grads, self.n_outputs)
        for hook in self.user_pre_hooks:
            out = hook(self.module, self.grad_outputs)
            if out is None:
                continue
            self.grad_outputs = self._check(hook, out, len(self.grad_outputs),
                                            self.output_meta, "Backward pre hook",
                                            "register_full_backward_pre_hook")
        local = self.grad_outputs
        if self.input_tensors_index is None:
            # no input requires grad: the hooks fire now, with grad_input all None
            warnings.warn(
                "Full backward hook is firing when gradients are computed with respect to "
                "module outputs since no inputs require gradients.", stacklevel=2)
            grad_inputs = self._pack_with_none([], [], self.n_inputs)
            for hook in self.user_hooks:
                r = hook(self.module, grad_inputs, self.grad_outputs)
                if r is not None and not (isinstance(r, tuple) and all(e is None for e in r)):
                    raise RuntimeError(
                        "Module.register_full_backward_hook: Backward hook for Modules where "
                        "no input requires gradient should always return None or None for "
                        f"all gradients (hook {hook_name(hook)!r})")
            self.grad_outputs = None
        return tuple(local[i] for i in self._output_diff)


# The copies a load_state_dict call defers until every check passed (None outside one).
_pending_copies: contextvars.ContextVar[list | None] = contextvars.ContextVar(
    "arrayflow_load_state_dict_pending", default=None)


class _WrappedHook:
    """A load pre-hook, called with its Module first when registered ``with_module``
    (held weakly, as PyTorch's ``_WrappedHook``)."""

    def __init__(self, hook, module=None):
        self.hook = hook
        self.__name__ = hook_name(hook)
        self.module = None if module is None else weakref.ref(module)

    def __call__(self, *args, **kwargs):
        if self.module is None:
            return self.hook(*args, **kwargs)
        module = self.module()
        if module is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return self.hook(module, *args, **kwargs)


def _copy_state(dst: Tensor, src: Tensor) -> None:
    """Copy a checked checkpoint value into a parameter or buffer, in place."""
    with no_grad():
        if dst._cell is not src._cell:
            dst._assign(src.array)


def _addindent(s: str, num_spaces: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    return first + "\n" + "\n".join(num_spaces * " " + line for line in lines)


def _check_name(where: str, kind: str, name) -> None:
    if not isinstance(name, str):
        raise TypeError(f"Module.{where}: {kind} name should be a str, got {type(name).__name__}")
    if "." in name:
        raise KeyError(f"Module.{where}: {kind} name can't contain \".\", got {name!r}")
    if name == "":
        raise KeyError(f"Module.{where}: {kind} name can't be empty string \"\"")


class Module:
    """Base class of every layer and model (PyTorch ``nn.Module``).

    Subclasses call ``super().__init__()`` first, assign Parameters and Modules
    as attributes (they are registered), and define ``forward``. Calling the
    Module runs the forward pre-hooks, ``forward`` and the forward hooks.

    Attributes
    ----------
    training : bool
        Training (True, the default) or evaluation mode; see :meth:`train`.
    """

    _version = 1
    training: bool

    def __init__(self) -> None:
        sa = object.__setattr__
        sa(self, "training", True)
        sa(self, "_parameters", {})
        sa(self, "_buffers", {})
        sa(self, "_non_persistent_buffers_set", set())
        sa(self, "_modules", {})
        sa(self, "_forward_pre_hooks", OrderedDict())
        sa(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        sa(self, "_forward_hooks", OrderedDict())
        sa(self, "_forward_hooks_with_kwargs", OrderedDict())
        sa(self, "_backward_pre_hooks", OrderedDict())
        sa(self, "_backward_hooks", OrderedDict())
        sa(self, "_state_dict_pre_hooks", OrderedDict())
        sa(self, "_state_dict_hooks", OrderedDict())
        sa(self, "_load_state_dict_pre_hooks", OrderedDict())
        sa(self, "_load_state_dict_post_hooks", OrderedDict())

    # --- forward ------------------------------------------------------------------------
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The computation; every subclass defines it.

        Parameters
        ----------
        *args : Any
            The inputs of the computation.
        **kwargs : Any
            Keyword inputs of the computation.

        Returns
        -------
        Any
            The output (subclass-defined).

        Raises
        ------
        NotImplementedError
            If the subclass does not define ``forward``.
        """
        raise NotImplementedError(
            f"Module [{type(self).__name__}] is missing the required \"forward\" function")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        for hid, hook in list(self._forward_pre_hooks.items()):
            if hid in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(
                            f"Module.__call__: a forward pre-hook registered with "
                            f"with_kwargs=True must return None or a tuple (args, kwargs), "
                            f"got {result!r}")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        d = self.__dict__
        bw_hooks = list(d.get("_backward_hooks", {}).values())
        bw_pre_hooks = list(d.get("_backward_pre_hooks", {}).values())
        bw_hook = None
        if bw_hooks or bw_pre_hooks:
            bw_hook = _BackwardHook(self, bw_hooks, bw_pre_hooks)
            args = bw_hook.setup_input_hook(args)
        output = self.forward(*args, **kwargs)
        for hid, hook in list(self._forward_hooks.items()):
            if hid in self._forward_hooks_with_kwargs:
                result = hook(self, args, kwargs, output)
            else:
                result = hook(self, args, output)
            if result is not None:
                output = result
        if bw_hook is not None:
            if not isinstance(output, (Tensor, tuple)):
                warnings.warn(
                    f"For backward hooks to be called, module output should be a Tensor or a "
                    f"tuple of Tensors but received {type(output)}", stacklevel=2)
            output = bw_hook.setup_output_hook(output)
        return output

    def register_forward_pre_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """Call ``hook(module, args)`` before every ``forward``.

        The hook may return new positional arguments (a tuple, or one value that is
        wrapped into a tuple). With ``with_kwargs=True`` it is called as
        ``hook(module, args, kwargs)`` and may return ``(args, kwargs)``.
        ``prepend=True`` runs it before the hooks already registered.

        Parameters
        ----------
        hook : Callable[..., Any]
            The hook, called as described above.
        prepend : bool, default False
            Run this hook before the ones already registered (default: after).
        with_kwargs : bool, default False
            Pass the keyword arguments to the hook too (see above).

        Returns
        -------
        RemovableHandle
            ``handle.remove()`` unregisters the hook.
        """
        handle = RemovableHandle(self._forward_pre_hooks, self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                              with_kwargs: bool = False) -> RemovableHandle:
        """Call ``hook(module, args, output)`` after every ``forward``.

        A non-None return value replaces the output. With ``with_kwargs=True`` it is
        called as ``hook(module, args, kwargs, output)``. ``prepend=True`` runs it
        before the hooks already registered.

        Parameters
        ----------
        hook : Callable[..., Any]
            The hook, called as described above.
        prepend : bool, default False
            Run this hook before the ones already registered (default: after).
        with_kwargs : bool, default False
            Pass the keyword arguments to the hook too (see above).

        Returns
        -------
        RemovableHandle
            ``handle.remove()`` unregisters the hook.
        """
        handle = RemovableHandle(self._forward_hooks, self._forward_hooks_with_kwargs)
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook: Callable[..., Any],
                                        prepend: bool = False) -> RemovableHandle:
        """Call ``hook(module, grad_output)`` when the gradients of the outputs arrive.

        ``grad_output`` is a tuple with one entry per output (None for non-Tensor
        outputs and outputs that do not require grad). The hook may return a new
        tuple of the same length that replaces it. ``prepend=True`` runs it before
        the hooks already registered. PyTorch ``Module.register_full_backward_pre_hook``.

        Parameters
        ----------
        hook : Callable[..., Any]
            The hook, called as described above.
        prepend : bool, default False
            Run this hook before the ones already registered (default: after).

        Returns
        -------
        RemovableHandle
            ``handle.remove()`` unregisters the hook.

        Raises
        ------
        RuntimeError
            In backward, when the hook returns a tuple of the wrong length, or a
            gradient whose shape, dtype or backend differs from the one it replaces
            (nothing is broadcast or cast).
        """
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook: Callable[..., Any],
                                    prepend: bool = False) -> RemovableHandle:
        """Call ``hook(module, grad_input, grad_output)`` when the input gradients are computed.

        ``grad_input`` has one entry per positional argument of the call (None for
        non-Tensor arguments and Tensors that do not require grad; keyword
        arguments are ignored), ``grad_output`` one per output. The hook may return
        a tuple of the same length as ``grad_input`` that replaces it. When no input
        requires grad the hook fires when the output gradients arrive, with
        ``grad_input`` all None (and a warning); when no output requires grad it
        never fires. The forward receives, and the caller gets, new Tensors on the
        same storage as the Module's Tensor inputs and outputs. PyTorch
        ``Module.register_full_backward_hook``.

        Parameters
        ----------
        hook : Callable[..., Any]
            The hook, called as described above.
        prepend : bool, default False
            Run this hook before the ones already registered (default: after).

        Returns
        -------
        RemovableHandle
            ``handle.remove()`` unregisters the hook (calls already made keep it).

        Raises
        ------
        RuntimeError
            In backward, when the hook returns a tuple of the wrong length, or a
            gradient whose shape, dtype or backend differs from the one it replaces.
        """
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    # --- registration -------------------------------------------------------------------
    def _require_init(self, where: str) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(
                f"Module.{where}: cannot assign before Module.__init__() call; call "
                f"super().__init__() first")

    def register_buffer(self, name: str, tensor: Tensor | None,
                        persistent: bool = True) -> None:
        """Register a Tensor that is state but not a parameter (running statistics).

        Persistent buffers are part of ``state_dict()``; all buffers move with
        :meth:`to`.

        Parameters
        ----------
        name : str
            The attribute name (no ``.``, not empty, not an existing non-buffer/parameter/module
            attribute).
        tensor : Tensor or None
            The buffer; None registers the name with no value (skipped by ``buffers()`` and
            ``state_dict()``).
        persistent : bool, default True
            Whether the buffer is part of ``state_dict()``.

        Raises
        ------
        AttributeError
            If called before ``Module.__init__()``.
        TypeError
            If ``name`` is not a str, or ``tensor`` is neither a Tensor nor None.
        KeyError
            If ``name`` is empty, contains ``"."``, or is an existing attribute.
        """
        self._require_init("register_buffer")
        _check_name("register_buffer", "buffer", name)
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"Module.register_buffer: attribute {name!r} already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"Module.register_buffer: cannot assign {type(tensor).__name__} object to "
                f"buffer {name!r} (Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Register a Parameter (or None, a declared but absent parameter).

        Parameters
        ----------
        name : str
            The attribute name (no ``.``, not empty, not an existing non-buffer/parameter/module
            attribute).
        param : Parameter or None
            The Parameter; None registers the name with no value.

        Raises
        ------
        AttributeError
            If called before ``Module.__init__()``.
        TypeError
            If ``name`` is not a str, or ``param`` is neither a Parameter nor None.
        KeyError
            If ``name`` is empty, contains ``"."``, or is an existing attribute.
        ValueError
            If ``param`` is not a leaf Tensor.
        """
        self._require_init("register_parameter")
        _check_name("register_parameter", "parameter", name)
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"Module.register_parameter: attribute {name!r} already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"Module.register_parameter: cannot assign {type(param).__name__} object to "
                f"parameter {name!r} (Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"Module.register_parameter: cannot assign non-leaf Tensor to parameter "
                f"{name!r}; use detach() or create the Parameter from a leaf")
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Register a sub-Module (or None) under ``name``.

        Parameters
        ----------
        name : str
            The attribute name (no ``.``, not empty, not an existing non-buffer/parameter/module
            attribute).
        module : Module or None
            The sub-Module; None registers the name with no value.

        Raises
        ------
        TypeError
            If ``name`` is not a str, or ``module`` is neither a Module nor None.
        KeyError
            If ``name`` is empty, contains ``"."``, or is an existing attribute.
        """
        self._require_init("add_module")
        _check_name("add_module", "module", name)
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"Module.add_module: attribute {name!r} already exists")
        if module is not None and not isinstance(module, Module):
            raise TypeError(
                f"Module.add_module: {type(module).__name__} is not a Module subclass "
                f"(module {name!r})")
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__
        params = d.get("_parameters")

        def remove_from(*dicts):
            for dd in dicts:
                if name in dd:
                    if isinstance(dd, set):
                        dd.discard(name)
                    else:
                        del dd[name]

        if isinstance(value, Parameter):
            if params is None:
                self._require_init("__setattr__")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"Module.__setattr__: cannot assign {type(value).__name__} as parameter "
                    f"{name!r} (Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if params is None:
                self._require_init("__setattr__")
            remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            self._modules[name] = value
        elif params is not None and name in self._modules:
            if value is not None:
                raise TypeError(
                    f"Module.__setattr__: cannot assign {type(value).__name__} as child module "
                    f"{name!r} (Module or None expected)")
            self._modules[name] = value
        elif params is not None and name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"Module.__setattr__: cannot assign {type(value).__name__} as buffer "
                    f"{name!r} (Tensor or None expected)")
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str):
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            store = d.get(key)
            if store is not None and name in store:
                return store[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __delattr__(self, name: str) -> None:
        for key in ("_parameters", "_buffers", "_modules"):
            store = self.__dict__.get(key)
            if store is not None and name in store:
                del store[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = set(super().__dir__())
        keys.update(self._parameters, self._buffers, self._modules)
        return sorted(k for k in keys if not k[0].isdigit())

    # --- traversal -----------------------------------------------------------------------
    def named_modules(self, memo: set[int] | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """Yield ``(name, module)`` for this Module and every descendant, depth first.

        A Module reachable twice is yielded once unless ``remove_duplicate=False``.

        Parameters
        ----------
        memo : set[int], optional
            Ids of Modules already yielded (internal to the recursion; leave None).
        prefix : str, default ''
            Prepended to every name (with a ``.``).
        remove_duplicate : bool, default True
            Yield an object reachable by several names once.

        Returns
        -------
        iterator of (str, Module)
            Each name (``prefix``-relative, ``""`` for this Module) with its Module.
        """
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        """Yield this Module and every descendant (each once), depth first.

        Returns
        -------
        iterator of Module
            This Module and every descendant.
        """
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """Yield ``(name, module)`` for the direct sub-Modules (each once).

        Returns
        -------
        iterator of (str, Module)
            The direct sub-Modules with their names.
        """
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        """Yield the direct sub-Modules (each once).

        Returns
        -------
        iterator of Module
            The direct sub-Modules.
        """
        for _, m in self.named_children():
            yield m

    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None:
                    continue
                if remove_duplicate:
                    if id(v) in seen:
                        continue
                    seen.add(id(v))
                yield module_prefix + ("." if module_prefix else "") + k, v

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """Yield ``(name, Parameter)``: this Module's, then each sub-Module's, in order.

        ``recurse=False`` gives only this Module's own parameters; a Parameter
        shared by two Modules is yielded once unless ``remove_duplicate=False``.

        Parameters
        ----------
        prefix : str, default ''
            Prepended to every name (with a ``.``).
        recurse : bool, default True
            Include the sub-Modules' members (False: only this Module's own).
        remove_duplicate : bool, default True
            Yield an object reachable by several names once.

        Returns
        -------
        iterator of (str, Parameter)
            Each Parameter with its dotted name.
        """
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                   remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Yield the Parameters (see :meth:`named_parameters`).

        Parameters
        ----------
        recurse : bool, default True
            Include the sub-Modules' members (False: only this Module's own).

        Returns
        -------
        iterator of Parameter
            The Parameters, in registration order.
        """
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """Yield ``(name, Tensor)`` for the buffers, persistent or not, in order.

        Parameters
        ----------
        prefix : str, default ''
            Prepended to every name (with a ``.``).
        recurse : bool, default True
            Include the sub-Modules' members (False: only this Module's own).
        remove_duplicate : bool, default True
            Yield an object reachable by several names once.

        Returns
        -------
        iterator of (str, Tensor)
            Each buffer with its dotted name.
        """
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                   remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """Yield the buffers (see :meth:`named_buffers`).

        Parameters
        ----------
        recurse : bool, default True
            Include the sub-Modules' members (False: only this Module's own).

        Returns
        -------
        iterator of Tensor
            The buffers, in registration order.
        """
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_submodule(self, target: str) -> Module:
        """The sub-Module at dotted path ``target`` (``""`` is this Module).

        Parameters
        ----------
        target : str
            The dotted path from this Module (``"layer1.0.weight"``); ``""`` for the Module
            itself where allowed.

        Returns
        -------
        Module
            The sub-Module at ``target``.

        Raises
        ------
        AttributeError
            If a step of the path is not a sub-Module, naming the step and its owner.
        """
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if item not in mod._modules or mod._modules[item] is None:
                raise AttributeError(
                    f"Module.get_submodule: {mod._get_name()} has no attribute {item!r} "
                    f"that is a Module (target {target!r})")
            mod = mod._modules[item]
        return mod

    def _get_owner(self, where: str, target: str):
        module_path, _, name = target.rpartition(".")
        return self.get_submodule(module_path), name

    def get_parameter(self, target: str) -> Parameter:
        """The Parameter at dotted path ``target``.

        Parameters
        ----------
        target : str
            The dotted path from this Module (``"layer1.0.weight"``); ``""`` for the Module
            itself where allowed.

        Returns
        -------
        Parameter
            The Parameter at ``target``.

        Raises
        ------
        AttributeError
            If there is no such Parameter.
        """
        mod, name = self._get_owner("get_parameter", target)
        if name not in mod._parameters or mod._parameters[name] is None:
            raise AttributeError(
                f"Module.get_parameter: {mod._get_name()} has no parameter {name!r} "
                f"(target {target!r})")
        return mod._parameters[name]

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path ``target``.

        Parameters
        ----------
        target : str
            The dotted path from this Module (``"layer1.0.weight"``); ``""`` for the Module
            itself where allowed.

        Returns
        -------
        Tensor
            The buffer at ``target``.

        Raises
        ------
        AttributeError
            If there is no such buffer.
        """
        mod, name = self._get_owner("get_buffer", target)
        if name not in mod._buffers or mod._buffers[name] is None:
            raise AttributeError(
                f"Module.get_buffer: {mod._get_name()} has no buffer {name!r} "
                f"(target {target!r})")
        return mod._buffers[name]

    # --- state ----------------------------------------------------------------------------
    def _state_items(self, prefix=""):
        """``(key, module, name, kind)`` for every state_dict entry, in state_dict order."""
        for name, p in self._parameters.items():
            if p is not None:
                yield prefix + name, self, name, "_parameters"
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                yield prefix + name, self, name, "_buffers"
        for name, m in self._modules.items():
            if m is not None:
                yield from m._state_items(prefix + name + ".")

    def register_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Call ``hook(module, prefix, keep_vars)`` before :meth:`state_dict` saves this Module.

        PyTorch ``Module.register_state_dict_pre_hook``.

        Parameters
        ----------
        hook : Callable[..., Any]
            The hook, called as described above.

        Returns
        -------
        RemovableHandle
        """
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def _register_state_dict_hook(self, hook) -> RemovableHandle:
        """Call ``hook(module, state_dict, prefix, local_metadata)`` after this Module is saved.

        The hook may change ``state_dict`` in place or return a new one, which is used
        only when this Module is the one :meth:`state_dict` was called on (PyTorch's
        private ``_register_state_dict_hook``).

        Raises
        ------
        RuntimeError
            If ``hook`` was already registered with :meth:`register_state_dict_post_hook`.
        """
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError(
                "Module._register_state_dict_hook: cannot register the same function as the "
                "state dict post hook that was previously registered via "
                "register_state_dict_post_hook")
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Call ``hook(module, state_dict, prefix, local_metadata)`` after this Module is saved.

        The hook may change ``state_dict`` in place and must return None
        (PyTorch ``Module.register_state_dict_post_hook``).

        Parameters
        ----------
        hook : Callable[..., Any]
            The hook, called as described above.

        Returns
        -------
        RemovableHandle
        """
        hook._from_public_api = True  # type: ignore[attr-defined]  # a mark on the function
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        """Put this Module's own parameters and persistent buffers (not its children's)
        into ``destination``; :meth:`state_dict` calls it on every Module (override it for
        class-specific saving, as in PyTorch)."""
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()

    def state_dict(self, *args: Any, destination: dict[str, Any] | None = None, prefix: str = "",
                   keep_vars: bool = False) -> dict[str, Any]:
        """The parameters and persistent buffers by dotted name (an ``OrderedDict``).

        Values share storage with the Module's Tensors; with ``keep_vars=False``
        (the default) they are detached plain Tensors, else the Parameters and
        buffers themselves. For every Module, depth first: the state-dict pre-hooks,
        :meth:`_save_to_state_dict`, the children, then the post-hooks. The result's
        ``_metadata`` attribute maps each Module's prefix to ``{"version": ...}``
        (PyTorch ``Module.state_dict``; positional arguments are deprecated there
        and warn here too).

        Parameters
        ----------
        *args : Any
            The inputs of the computation.
        destination : dict[str, Any], optional
            A mapping to fill instead of a new ``OrderedDict``.
        prefix : str, default ''
            Prepended to every name (with a ``.``).
        keep_vars : bool, default False
            Keep the Parameters and buffers themselves (False: detached Tensors).

        Returns
        -------
        dict of str to Tensor
            An ``OrderedDict`` of the parameters and persistent buffers by dotted name
            (``destination`` when given).
        """
        if args:
            warnings.warn(
                "Module.state_dict: positional args are being deprecated, use kwargs instead",
                FutureWarning, stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            # an attribute of the OrderedDict, as PyTorch's (which ignores mypy here too)
            destination._metadata = OrderedDict()  # type: ignore[attr-defined]
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                if result is not None:
                    destination = result
            elif result is not None:
                raise RuntimeError(
                    f"Module.state_dict: state_dict post-hook {hook_name(hook)!r} must return "
                    f"None (change the state_dict in place)")
        return destination

    def _register_load_state_dict_pre_hook(self, hook, with_module: bool = False):
        """Call ``hook(state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this Module loads (PyTorch's private form;
        ``with_module=True`` passes the Module first)."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = _WrappedHook(
            hook, self if with_module else None)
        return handle

    def register_load_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Call ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this Module loads.

        The hook may change ``state_dict`` (a copy of the caller's) and the lists.
        PyTorch ``Module.register_load_state_dict_pre_hook``.

        Parameters
        ----------
        hook : Callable[..., Any]
            The hook, called as described above.

        Returns
        -------
        RemovableHandle
        """
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Call ``hook(module, incompatible_keys)`` after this Module and its children loaded.

        ``incompatible_keys`` has the lists ``missing_keys`` and ``unexpected_keys``; the
        hook may change them in place, which the ``strict`` check then sees (clearing
        both avoids the error). The hook must return None. PyTorch
        ``Module.register_load_state_dict_post_hook``; unlike PyTorch the values are
        copied only once every check passed, so a post-hook still sees the old values.

        Parameters
        ----------
        hook : Callable[..., Any]
            The hook, called as described above.

        Returns
        -------
        RemovableHandle
        """
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        """Load this Module's own parameters and persistent buffers (not its children's).

        :meth:`load_state_dict` calls it on every Module, as PyTorch does; override it
        for class-specific (for instance versioned, ``local_metadata["version"]``)
        loading. It runs the load pre-hooks, then appends to ``missing_keys``,
        ``unexpected_keys`` (when ``strict``) and ``error_msgs`` instead of raising.
        Inside :meth:`load_state_dict` the copies are applied only after every
        Module passed its checks.
        """
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        local_state = {k: v for k, v in self._parameters.items() if v is not None}
        local_state.update((k, v) for k, v in self._buffers.items()
                           if v is not None and k not in self._non_persistent_buffers_set)
        for name, dst in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            src = state_dict[key]
            if not isinstance(src, Tensor):
                error_msgs.append(
                    f"While copying the parameter named {key!r}, expected a Tensor from the "
                    f"checkpoint, got {type(src).__name__}.")
                continue
            if not dst.backend.same_kind(src.backend):
                error_msgs.append(
                    f"backend mismatch for {key}: copying a Tensor on backend "
                    f"{src.backend.name!r} from checkpoint, the backend in current model is "
                    f"{dst.backend.name!r}; load with arrayflow.load(..., backend="
                    f"{dst.backend.name!r}) or move it with .to()")
                continue
            if len(dst.shape) == 0 and tuple(src.shape) == (1,):
                src = src[0]  # PyTorch's backward compatibility for 0-d parameters
            if tuple(src.shape) != tuple(dst.shape):
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {tuple(src.shape)} "
                    f"from checkpoint, the shape in current model is {tuple(dst.shape)}.")
                continue
            assign = local_metadata.get("assign_to_params_buffers", False)
            if src.dtype is not dst.dtype and not assign:
                error_msgs.append(
                    f"dtype mismatch for {key}: copying a param with dtype {src.dtype} from "
                    f"checkpoint, the dtype in current model is {dst.dtype}.")
                continue
            action = ((lambda m=self, n=name, s=src: m._assign_state(n, s)) if assign
                      else (lambda d=dst, s=src: _copy_state(d, s)))
            pending = _pending_copies.get()
            if pending is not None:
                pending.append(action)
            else:
                action()
        if strict:
            for key in state_dict:
                if not key.startswith(prefix):
                    continue
                parts = key[len(prefix):].split(".", 1)
                if len(parts) > 1:
                    if parts[0] not in self._modules:
                        unexpected_keys.append(key)
                elif parts[0] not in local_state:
                    unexpected_keys.append(key)

    def _assign_state(self, name: str, src: Tensor) -> None:
        """``load_state_dict(assign=True)``: make ``src`` the parameter or buffer ``name``
        (a Parameter keeps this Module's ``requires_grad``), as PyTorch."""
        if name in self._parameters:
            old = self._parameters[name]
            if isinstance(src, Parameter):
                src.requires_grad_(old.requires_grad)
                new = src
            else:
                new = Parameter(src.detach(), requires_grad=old.requires_grad)
            self._parameters[name] = new
        else:
            self._buffers[name] = src

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True,
                        assign: bool = False) -> _IncompatibleKeys:
        """Copy values from ``state_dict`` into the parameters and buffers, in place.

        As PyTorch: :meth:`_load_from_state_dict` (with the load pre-hooks) runs on
        every Module, depth first, each Module's load post-hooks after its children.
        Everything is checked before anything is copied: a failed load (including
        an exception raised by a hook) leaves the Module unchanged. The copy runs
        under ``no_grad`` and bumps the Tensors' version counters.

        Parameters
        ----------
        state_dict : mapping
            Dotted names to Tensors, as :meth:`state_dict` returns.
        strict : bool, default True
            Whether missing and unexpected keys are errors.
        assign : bool, default False
            Make the checkpoint's Tensors the parameters and buffers (their dtype
            and storage; a parameter keeps its ``requires_grad``) instead of copying
            into the existing ones (PyTorch's ``assign``).

        Returns
        -------
        namedtuple
            ``(missing_keys, unexpected_keys)``, two lists of names.

        Raises
        ------
        TypeError
            If ``state_dict`` is not a mapping.
        RuntimeError
            Listing every problem: a value that is not a Tensor, a shape, dtype or
            backend mismatch (naming the key, what the checkpoint holds and what the
            Module expects), and, when ``strict``, missing or unexpected keys.
        AssertionError
            If a load post-hook returns a value (PyTorch).
        """
        if not hasattr(state_dict, "keys") or not hasattr(state_dict, "__getitem__"):
            raise TypeError(
                f"Module.load_state_dict: expected 'state_dict' to be a mapping, got "
                f"{type(state_dict).__name__}")
        missing: list = []
        unexpected: list = []
        errors: list = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict((k, state_dict[k]) for k in state_dict.keys())
        if metadata is not None:
            state_dict._metadata = metadata  # type: ignore[attr-defined]  # as above

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata = dict(local_metadata, assign_to_params_buffers=True)
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items()
                                 if k.startswith(child_prefix)}, child_prefix)
            incompatible = _IncompatibleKeys(missing, unexpected)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible) is not None:
                    raise AssertionError(
                        f"Module.load_state_dict: hooks registered with "
                        f"register_load_state_dict_post_hook are not expected to return new "
                        f"values (hook {hook_name(hook)!r}); modify incompatible_keys in place")

        pending: list = []
        token = _pending_copies.set(pending)
        try:
            load(self, state_dict)
        finally:
            _pending_copies.reset(token)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(
                f"Module.load_state_dict: Error(s) in loading state_dict for "
                f"{self._get_name()}:\n\t" + "\n\t".join(errors))
        with no_grad():
            for action in pending:
                action()
        return _IncompatibleKeys(missing, unexpected)

    # --- modes and in-place transformations ---------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Set training mode (``mode=True``) or evaluation mode on every Module.

        Parameters
        ----------
        mode : bool, default True
            True for training mode, False for evaluation mode.

        Returns
        -------
        Module
            This Module.

        Raises
        ------
        ValueError
            If ``mode`` is not a bool.
        """
        if not isinstance(mode, builtins.bool):
            raise ValueError(
                f"Module.train: expected 'mode' to be a bool, got {type(mode).__name__}")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self) -> Module:
        """Set evaluation mode on every Module (``train(False)``).

        Returns
        -------
        Module
            This Module.
        """
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set ``requires_grad`` of every parameter in place; returns self.

        Parameters
        ----------
        requires_grad : bool, default True
            Whether the parameters should record operations.

        Returns
        -------
        Module
            This Module.
        """
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter: to None (default), or to zeros.

        Parameters
        ----------
        set_to_none : bool, default True
            Set the gradients to None (True) or to zeros in place.
        """
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad.detach()
                with no_grad():
                    p.grad = g.clone().zero_()

    def apply(self, fn: Callable[[Module], object]) -> Module:
        """Call ``fn(module)`` on every sub-Module (children first), then on self.

        Parameters
        ----------
        fn : Callable[[Module], object]
            Called with every sub-Module (depth first) and then this Module.

        Returns
        -------
        Module
            This Module.
        """
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def _move_tensors(self, convert) -> None:
        def move(t):
            new = convert(t)
            if new is t:
                return
            # Rebind the storage (PyTorch's ``p.data = p.to(...)``), keeping identity.
            t._cell = new._cell
            t._backend = new._backend

        with no_grad():
            for m in self.modules():
                for p in m._parameters.values():
                    if p is None:
                        continue
                    move(p)
                    if p.grad is not None:
                        move(p.grad)
                for b in m._buffers.values():
                    if b is not None:
                        move(b)

    def to(self, *args: Any, backend: str | _backend.Backend | None = None, device: Any = None,
           dtype: _dtypes.DType | None = None) -> Module:
        """Move parameters and buffers to a backend, device and/or dtype, in place.

        Accepts what :meth:`Tensor.to` accepts (``module.to("dask")``,
        ``module.to(af.float64)``, ``module.to(backend="numpy", dtype=...)``). A
        dtype applies to floating point Tensors only (PyTorch). Parameters keep
        their identity: an optimizer holding them sees the moved values.

        Parameters
        ----------
        *args : Any
            Positionally: a backend name or Backend, a device, a dtype, or a Tensor (its backend
            and dtype).
        backend : str or Backend, optional
            The target backend (name or Backend).
        device : Any, default None
            The target device (a PyTorch-style device selects the backend of that type).
        dtype : DType, optional
            The target floating dtype (floating parameters and buffers only).

        Returns
        -------
        Module
            self.

        Raises
        ------
        ValueError
            If ``dtype`` is not a floating point dtype.
        """
        for a in args:
            if isinstance(a, _dtypes.DType):
                dtype = a
            elif isinstance(a, Tensor):  # module.to(tensor): its dtype and backend
                dtype, backend = a.dtype, a.backend
        args = tuple(a for a in args if not isinstance(a, (_dtypes.DType, Tensor)))
        if dtype is not None and dtype.kind not in ("real floating", "complex floating"):
            raise ValueError(
                f"Module.to: expected a floating point dtype for 'dtype', got {dtype}")

        def convert(t):
            floating = t.dtype.kind in ("real floating", "complex floating")
            return t.to(*args, backend=backend, device=device,
                        dtype=dtype if floating else None)

        self._move_tensors(convert)
        return self

    def cpu(self) -> Module:
        """Move every parameter and buffer to the CPU, in place (PyTorch ``Module.cpu``).

        Returns
        -------
        Module
            This Module (changed in place).
        """
        return self.to("cpu")

    def cuda(self, device: int | Any = None) -> Module:
        """Move every parameter and buffer to a CUDA device, in place (PyTorch
        ``Module.cuda``; see :meth:`Tensor.cuda`).

        Parameters
        ----------
        device : int or Any, default None
            A CUDA device index or device; None for the current one.

        Returns
        -------
        Module
            This Module (changed in place).

        Raises
        ------
        BackendUnavailableError
            A ``RuntimeError`` when no CUDA backend can run here, saying what to install.
        """
        dev = cuda_device(device, "Module.cuda")
        # resolve before moving anything: a failed call changes nothing
        resolve_device(dev, _backend.get_backend(), "Module.cuda")
        return self.to(dev)

    def float(self) -> Module:
        """Cast floating point parameters and buffers to float32, in place.

        Returns
        -------
        Module
            This Module (changed in place).
        """
        return self.to(dtype=_dtypes.float32)

    def double(self) -> Module:
        """Cast floating point parameters and buffers to float64, in place.

        Returns
        -------
        Module
            This Module (changed in place).
        """
        return self.to(dtype=_dtypes.float64)

    # --- repr ---------------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """Extra information for ``repr`` (override in subclasses; one or more lines).

        Returns
        -------
        str
            The extra part of ``repr(module)`` (empty by default); subclasses override it.
        """
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2)
                       for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"
