"""``functional_call`` and ``stack_module_state``: a Module as a function of its state.

torch.func's semantics (``torch.nn.utils.stateless`` and
``torch.nn.utils._named_member_accessor`` in PyTorch 2.13): for the duration of
the call the Module's parameters and buffers named in the dictionaries are
swapped for the given Tensors (entries written straight into ``_parameters`` /
``_buffers``, so plain Tensors are accepted in place of Parameters), and the
originals are put back afterwards, also when the call raises.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..nn.module import Module
from ..ops.manipulation import stack
from ..tensor import Tensor

__all__ = ["functional_call", "stack_module_state"]

_MISSING: Any = object()


def _check_tensor(name: str, value: Any) -> None:
    if value is not None and value is not _MISSING and not isinstance(value, Tensor):
        raise TypeError(f"functional_call: the value for {name!r} must be a Tensor or None, "
                        f"got {type(value).__name__}")


class _Accessor:
    """Dotted-name access to a Module's tensors (PyTorch's ``NamedMemberAccessor``)."""

    def __init__(self, module: Module):
        self.module = module
        self.memo: dict[str, Module] = {}

    def submodule(self, name: str) -> Module:
        if not name:
            return self.module
        if name in self.memo:
            return self.memo[name]
        prefix, dot, attr = name.rpartition(".")
        owner = self.submodule(prefix) if dot else self.module
        try:
            sub = getattr(owner, attr)
        except AttributeError as ex:
            raise AttributeError(
                f"functional_call: {owner._get_name()} has no attribute `{attr}` (in "
                f"{name!r})") from ex
        if not isinstance(sub, Module):
            raise TypeError(f"functional_call: submodule `{name}`: {type(sub).__name__} is "
                            f"not a Module")
        self.memo[name] = sub
        return sub

    def swap(self, name: str, value: Any) -> Any:
        """Put ``value`` at ``name`` (``_MISSING``: delete it); return what was there."""
        _check_tensor(name, value)
        prefix, _, attr = name.rpartition(".")
        if attr == "":
            raise KeyError(f"functional_call: tensor name can't be empty string \"\" (key "
                           f"{name!r})")
        mod = self.submodule(prefix)
        params, buffers = mod._parameters, mod._buffers
        if attr in params:
            orig = params[attr]
            if value is _MISSING:
                del params[attr]
            else:
                params[attr] = value
        elif attr in buffers:
            orig = buffers[attr]
            if value is _MISSING:
                del buffers[attr]
            else:
                buffers[attr] = value
        else:
            orig = getattr(mod, attr) if hasattr(mod, attr) else _MISSING
            if orig is not _MISSING and orig is not None and not isinstance(orig, Tensor):
                raise TypeError(f"functional_call: attribute `{name}`: "
                                f"{type(orig).__name__} is not a Tensor")
            if value is not _MISSING:
                setattr(mod, attr, value)
            elif hasattr(mod, attr):
                delattr(mod, attr)
        return orig

    def swap_all(self, named: Mapping[str, Any]) -> dict[str, Any]:
        orig: dict[str, Any] = {}
        try:
            for name, value in named.items():
                orig[name] = self.swap(name, value)
        except BaseException:
            for name, value in orig.items():
                self.swap(name, value)
            raise
        return orig

    def named_tensors(self) -> Iterator[tuple[str, Tensor]]:
        yield from self.module.named_parameters(remove_duplicate=False)
        yield from self.module.named_buffers(remove_duplicate=False)


def _untie(module: Module, given: dict[str, Any]) -> dict[str, Any]:
    """``given`` with every name tied to a given name (the same Tensor in the Module)
    mapped to the given value."""
    names_of: dict[int, set[str]] = {}
    for name, t in list(module.named_parameters(remove_duplicate=False)) + \
            list(module.named_buffers(remove_duplicate=False)):
        names_of.setdefault(id(t), set()).add(name)
    tied: dict[str, set[str]] = {}
    for names in names_of.values():
        if len(names) > 1:
            for n in names:
                tied[n] = names
    given_tied = {n for n in given if n in tied}
    for n in given_tied:
        group = tied[n]
        if len(group & given_tied) > 1 and \
                len({id(given[m]) for m in group if m in given}) != 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(group)}, which are "
                f"tied. Consider using tie_weights=False")
    out = dict(given)
    for n in given_tied:
        for m in tied[n]:
            out[m] = given[n]
    return out


@contextlib.contextmanager
def _reparametrize(module: Module, given: dict[str, Any], tie_weights: bool,
                   strict: bool) -> Iterator[None]:
    named = _untie(module, given) if tie_weights else given
    acc = _Accessor(module)
    if strict:
        valid = {n for n, _ in acc.named_tensors()}
        keys = set(named)
        errors = []
        unexpected, missing = sorted(keys - valid), sorted(valid - keys)
        if unexpected:
            errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if errors:
            raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t"
                               + "\n\t".join(errors))
    for name, value in named.items():
        _check_tensor(name, value)
    orig = acc.swap_all(named)
    try:
        yield
    finally:
        new = acc.swap_all(orig)
        # a forward that rebinds a buffer (self.b = self.b + 1) leaves the new value in
        # the dictionary given, as in PyTorch
        given.update({k: new[k] for k in given if k in new})


def functional_call(module: Module,
                    parameter_and_buffer_dicts: Mapping[str, Tensor]
                    | Sequence[Mapping[str, Tensor]],
                    args: Any = None, kwargs: dict[str, Any] | None = None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """Call ``module`` with its parameters and buffers replaced by the given Tensors.

    Parameters
    ----------
    module : Module
        The Module to call; it is unchanged afterwards (its own Parameters and
        buffers are put back, also when the call raises).
    parameter_and_buffer_dicts : dict of str to Tensor, or sequence of such dicts
        Dotted names as in ``named_parameters()`` / ``named_buffers()``. Names not
        given keep the Module's own Tensors (unless ``strict``); several dicts
        must have distinct keys.
    args : Any, optional
        Positional arguments; a non-tuple is the single argument.
    kwargs : dict, optional
        Keyword arguments of the call.
    tie_weights : bool, default True
        Whether Tensors tied in the Module (one Tensor under two names) stay tied:
        a value given for one name is used for all of them.
    strict : bool, default False
        Whether the names must be exactly the Module's parameters and buffers.

    Returns
    -------
    Any
        What ``module(*args, **kwargs)`` returns; differentiable with respect to the
        given Tensors, so ``grad`` of a function calling ``functional_call``
        differentiates the state.

    Raises
    ------
    ValueError
        If ``parameter_and_buffer_dicts`` is neither a dict nor a sequence of dicts,
        if a key appears in two dicts, or if tied names get different values.
    RuntimeError
        With ``strict=True``, for missing or unexpected keys.
    TypeError
        If a value is not a Tensor (or None).
    AttributeError
        If a dotted name goes through a sub-Module that does not exist.

    Notes
    -----
    Source: ``torch.func.functional_call`` (PyTorch 2.13).
    """
    if not isinstance(module, Module):
        raise TypeError(f"functional_call: module must be an arrayflow.nn.Module, got "
                        f"{type(module).__name__}")
    if isinstance(parameter_and_buffer_dicts, dict):
        given = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence) and \
            not isinstance(parameter_and_buffer_dicts, str):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("functional_call: Expected all elements of "
                             "parameter_and_buffer_dicts to be dictionaries")
        counts: dict[str, int] = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"functional_call: {repeated} appeared in multiple "
                             f"dictionaries; behavior of functional call is ambiguous")
        given = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(
            f"functional_call: Expected parameter_and_buffer_dicts to be a dict, or a "
            f"list/tuple of dicts, but got {type(parameter_and_buffer_dicts)}")
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize(module, given, tie_weights, strict):
        return module(*args, **kwargs)


def _stacked_leaf(tensors: list[Tensor], name: str) -> Tensor:
    req = [t.requires_grad for t in tensors]
    if any(req) and not all(req):
        raise RuntimeError(f"stack_module_state: Expected {name} from each model to have the "
                           f"same .requires_grad")
    out = stack([t.detach() for t in tensors], axis=0)
    return out.requires_grad_() if all(req) else out


def stack_module_state(models: Sequence[Module]) -> tuple[dict[str, Tensor],
                                                          dict[str, Tensor]]:
    """Stack the parameters and buffers of ``M`` Modules of one class along a new axis 0.

    Parameters
    ----------
    models : sequence of Module (or ModuleList)
        Modules of the same class and the same training mode.

    Returns
    -------
    (params, buffers) : tuple of dict of str to Tensor
        Keyed as ``named_parameters()`` / ``named_buffers()`` of ``models[0]``, each of
        shape ``(M, *shape)``. Stacked parameters are new leaves that require grad
        (unrelated to the originals, so an optimizer can take them); buffers do not.

    Raises
    ------
    RuntimeError
        For no models, models of different classes or training modes, or a
        parameter that requires grad in some models only.

    Notes
    -----
    Source: ``torch.func.stack_module_state`` (PyTorch 2.13); used with
    :func:`functional_call` for model ensembles.
    """
    models = list(models)
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode.")
    cls = type(models[0])
    if not all(type(m) is cls for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: _stacked_leaf([p[k] for p in all_params], k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: _stacked_leaf([b[k] for b in all_buffers], k) for k in all_buffers[0]}
    return params, buffers
