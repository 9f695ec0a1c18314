"""``Module``: the base class of layers and models, with PyTorch's semantics.

A Module registers the Parameters, sub-Modules and buffers assigned to it, walks
them in a deterministic order (registration order, depth first), saves and loads
them as a ``state_dict``, moves them between backends, dtypes and devices in place
and runs forward hooks around ``forward``. Nothing here reads array values, so a
forward on a lazy backend stays lazy.
"""

from __future__ import annotations

import builtins
import itertools
import weakref
from collections import OrderedDict, namedtuple

from ..autograd import no_grad
from ..tensor import Tensor
from .parameter import Parameter

__all__ = ["Module", "RemovableHandle"]


class RemovableHandle:
    """A handle returned by hook registration; ``remove()`` unregisters the hook.

    Also a context manager: the hook is removed on exit.
    """

    _next_id = itertools.count()

    def __init__(self, *hook_dicts):
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

    # --- forward ------------------------------------------------------------------------
    def forward(self, *args, **kwargs):
        """The computation; every subclass defines it.

        Raises
        ------
        NotImplementedError
            If the subclass does not define ``forward``.
        """
        raise NotImplementedError(
            f"Module [{type(self).__name__}] is missing the required \"forward\" function")

    def __call__(self, *args, **kwargs):
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
        output = self.forward(*args, **kwargs)
        for hid, hook in list(self._forward_hooks.items()):
            if hid in self._forward_hooks_with_kwargs:
                result = hook(self, args, kwargs, output)
            else:
                result = hook(self, args, output)
            if result is not None:
                output = result
        return output

    def register_forward_pre_hook(self, hook, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """Call ``hook(module, args)`` before every ``forward``.

        The hook may return new positional arguments (a tuple, or one value that is
        wrapped into a tuple). With ``with_kwargs=True`` it is called as
        ``hook(module, args, kwargs)`` and may return ``(args, kwargs)``.
        ``prepend=True`` runs it before the hooks already registered.

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

    def register_forward_hook(self, hook, *, prepend: bool = False,
                              with_kwargs: bool = False) -> RemovableHandle:
        """Call ``hook(module, args, output)`` after every ``forward``.

        A non-None return value replaces the output. With ``with_kwargs=True`` it is
        called as ``hook(module, args, kwargs, output)``. ``prepend=True`` runs it
        before the hooks already registered.

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
    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        """Yield ``(name, module)`` for this Module and every descendant, depth first.

        A Module reachable twice is yielded once unless ``remove_duplicate=False``.
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

    def modules(self):
        """Yield this Module and every descendant (each once), depth first."""
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        """Yield ``(name, module)`` for the direct sub-Modules (each once)."""
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self):
        """Yield the direct sub-Modules (each once)."""
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
                         remove_duplicate: bool = True):
        """Yield ``(name, Parameter)``: this Module's, then each sub-Module's, in order.

        ``recurse=False`` gives only this Module's own parameters; a Parameter
        shared by two Modules is yielded once unless ``remove_duplicate=False``.
        """
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                   remove_duplicate)

    def parameters(self, recurse: bool = True):
        """Yield the Parameters (see :meth:`named_parameters`)."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True):
        """Yield ``(name, Tensor)`` for the buffers, persistent or not, in order."""
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                   remove_duplicate)

    def buffers(self, recurse: bool = True):
        """Yield the buffers (see :meth:`named_buffers`)."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_submodule(self, target: str) -> Module:
        """The sub-Module at dotted path ``target`` (``""`` is this Module).

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

    def state_dict(self, *, destination=None, prefix: str = "", keep_vars: bool = False):
        """The parameters and persistent buffers by dotted name (an ``OrderedDict``).

        Values share storage with the Module's Tensors; with ``keep_vars=False``
        (the default) they are detached plain Tensors, else the Parameters and
        buffers themselves.
        """
        if destination is None:
            destination = OrderedDict()
        for key, mod, name, kind in self._state_items(prefix):
            t = getattr(mod, kind)[name]
            destination[key] = t if keep_vars else t.detach()
        return destination

    def load_state_dict(self, state_dict, strict: bool = True):
        """Copy values from ``state_dict`` into the parameters and buffers, in place.

        Everything is checked before anything is copied: a failed load leaves the
        Module unchanged. The copy runs under ``no_grad`` and bumps the Tensors'
        version counters.

        Parameters
        ----------
        state_dict : mapping
            Dotted names to Tensors, as :meth:`state_dict` returns.
        strict : bool, default True
            Whether missing and unexpected keys are errors.

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
        """
        if not hasattr(state_dict, "keys") or not hasattr(state_dict, "__getitem__"):
            raise TypeError(
                f"Module.load_state_dict: expected 'state_dict' to be a mapping, got "
                f"{type(state_dict).__name__}")
        expected = OrderedDict((key, (mod, name, kind))
                               for key, mod, name, kind in self._state_items())
        missing = [k for k in expected if k not in state_dict]
        unexpected = [k for k in state_dict.keys() if k not in expected]
        errors = []
        copies = []
        for key, (mod, name, kind) in expected.items():
            if key not in state_dict:
                continue
            src = state_dict[key]
            dst = getattr(mod, kind)[name]
            if not isinstance(src, Tensor):
                errors.append(
                    f"While copying the parameter named {key!r}, expected a Tensor from the "
                    f"checkpoint, got {type(src).__name__}.")
                continue
            if not dst.backend.same_kind(src.backend):
                errors.append(
                    f"backend mismatch for {key}: copying a Tensor on backend "
                    f"{src.backend.name!r} from checkpoint, the backend in current model is "
                    f"{dst.backend.name!r}; load with arrayflow.load(..., backend="
                    f"{dst.backend.name!r}) or move it with .to()")
                continue
            if tuple(src.shape) != tuple(dst.shape):
                errors.append(
                    f"size mismatch for {key}: copying a param with shape {tuple(src.shape)} "
                    f"from checkpoint, the shape in current model is {tuple(dst.shape)}.")
                continue
            if src.dtype is not dst.dtype:
                errors.append(
                    f"dtype mismatch for {key}: copying a param with dtype {src.dtype} from "
                    f"checkpoint, the dtype in current model is {dst.dtype}.")
                continue
            copies.append((dst, src))
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
            for dst, src in copies:
                if dst._cell is not src._cell:
                    dst._assign(src.array)
        return _IncompatibleKeys(missing, unexpected)

    # --- modes and in-place transformations ---------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Set training mode (``mode=True``) or evaluation mode on every Module.

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
        """Set evaluation mode on every Module (``train(False)``)."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set ``requires_grad`` of every parameter in place; returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter: to None (default), or to zeros."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad.detach()
                with no_grad():
                    p.grad = g.clone().zero_()

    def apply(self, fn) -> Module:
        """Call ``fn(module)`` on every sub-Module (children first), then on self."""
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

    def to(self, *args, backend=None, device=None, dtype=None) -> Module:
        """Move parameters and buffers to a backend, device and/or dtype, in place.

        Accepts what :meth:`Tensor.to` accepts (``module.to("dask")``,
        ``module.to(af.float64)``, ``module.to(backend="numpy", dtype=...)``). A
        dtype applies to floating point Tensors only (PyTorch). Parameters keep
        their identity: an optimizer holding them sees the moved values.

        Returns
        -------
        Module
            self.

        Raises
        ------
        ValueError
            If ``dtype`` is not a floating point dtype.
        """
        from .. import _dtypes

        for a in args:
            if isinstance(a, _dtypes.DType):
                dtype = a
        args = tuple(a for a in args if not isinstance(a, _dtypes.DType))
        if dtype is not None and dtype.kind not in ("real floating", "complex floating"):
            raise ValueError(
                f"Module.to: expected a floating point dtype for 'dtype', got {dtype}")

        def convert(t):
            floating = t.dtype.kind in ("real floating", "complex floating")
            return t.to(*args, backend=backend, device=device,
                        dtype=dtype if floating else None)

        self._move_tensors(convert)
        return self

    def float(self) -> Module:
        """Cast floating point parameters and buffers to float32, in place."""
        from .. import _dtypes

        return self.to(dtype=_dtypes.float32)

    def double(self) -> Module:
        """Cast floating point parameters and buffers to float64, in place."""
        from .. import _dtypes

        return self.to(dtype=_dtypes.float64)

    # --- repr ---------------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """Extra information for ``repr`` (override in subclasses; one or more lines)."""
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
