"""The optimizer base class (PyTorch's ``torch.optim.Optimizer``), written once.

An optimizer holds ``param_groups`` (dicts with ``"params"`` and per-group options)
and ``state`` (one dict per parameter, keyed by the Tensor object). Subclasses only
say how one parameter is updated, as a pure function of its value, its gradient and
its state, using arrayflow operations (so the same code runs on every backend).

:meth:`Optimizer.step` is atomic: new values for every parameter and every state
entry of every group are computed (and materialized on lazy backends) before any
parameter or state is written, so an exception raised while computing leaves the
parameters and the optimizer state exactly as they were.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from typing import Any, TypeAlias

from .. import autograd as _autograd
from ..ops.creation import asarray, zeros_like
from ..ops.dtypes import astype
from ..ops.elementwise import imag, real
from ..ops.manipulation import stack
from ..tensor import Tensor

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Marker for an option that has no default and must be given per group."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()
"""Default value of an option each parameter group must specify."""

ParamsT: TypeAlias = "Iterable[Tensor] | Iterable[dict[str, Any]]"
"""What an optimizer's ``params`` accepts: Tensors, or parameter-group dicts (PyTorch's
``ParamsT``)."""


def _describe(obj) -> str:
    return type(obj).__name__


class Optimizer:
    """Base class of all optimizers (PyTorch semantics).

    Parameters
    ----------
    params : iterable of Tensor or iterable of dict
        The Tensors to optimize, or parameter groups: dicts with a ``"params"`` entry
        (a Tensor or a list of Tensors) and options overriding ``defaults``.
    defaults : dict
        Default values of the options (used by groups that do not specify them).

    Attributes
    ----------
    param_groups : list of dict
        The parameter groups, each with ``"params"`` and every option.
    state : dict
        Per-parameter state, keyed by the parameter Tensor.
    defaults : dict
        The default options.

    Raises
    ------
    TypeError
        If ``params`` is a single Tensor, a set, or holds something that is not a
        Tensor or a dict.
    ValueError
        If ``params`` is empty, a parameter is not a leaf, a parameter appears in
        two groups, or a required option is missing.
    """

    def __init__(self, params: ParamsT, defaults: dict[str, Any]) -> None:
        self.defaults = dict(defaults)
        self.state: dict = {}
        self.param_groups: list[dict] = []
        name = type(self).__name__
        if isinstance(params, Tensor):
            raise TypeError(
                f"{name}: argument params expected an iterable of Tensors or dicts, got a "
                f"single {_describe(params)} (params argument given to the optimizer should "
                f"be an iterable of Tensors or dicts)")
        if isinstance(params, (set, frozenset)):
            raise TypeError(
                f"{name}: argument params expected an ordered iterable of Tensors or dicts, "
                f"got a set (its order changes between runs)")
        if not isinstance(params, Iterable):
            raise TypeError(
                f"{name}: argument params expected an iterable of Tensors or dicts, got "
                f"{_describe(params)}")
        param_groups: list[Any] = list(params)
        if not param_groups:
            raise ValueError(f"{name}: optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    # --- hooks for subclasses --------------------------------------------------
    def _check_group(self, group: dict) -> None:
        """Validate a group's options (subclasses raise ``ValueError``)."""

    def _update(self, group: dict, param: Tensor, grad: Tensor, state: dict):
        """Return ``(new_param, new_state)`` for one parameter, without writing anything.

        ``param`` and ``grad`` are detached Tensors; ``state`` is the parameter's
        current state (a dict, empty at the first step) and must not be mutated.
        """
        raise NotImplementedError(f"{type(self).__name__}._update is not implemented")

    # --- groups --------------------------------------------------------------------
    def add_param_group(self, param_group: dict) -> None:
        """Add a parameter group, filling unspecified options from ``defaults``.

        Parameters
        ----------
        param_group : dict
            ``{"params": Tensor or list of Tensors, option: value, ...}``.

        Raises
        ------
        TypeError
            If ``param_group`` is not a dict, its ``params`` is a set, or holds
            something that is not a Tensor.
        ValueError
            If a parameter is not a leaf, already belongs to a group, a required
            option is missing, or an option value is invalid.
        """
        name = f"{type(self).__name__}.add_param_group"
        if not isinstance(param_group, dict):
            raise TypeError(
                f"{name}: argument param_group expected a dict, got {_describe(param_group)}")
        if "params" not in param_group:
            raise ValueError(f"{name}: argument param_group expected a 'params' entry, got "
                             f"keys {sorted(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, (set, frozenset)):
            raise TypeError(
                f"{name}: optimizer parameters need to be organized in ordered collections, "
                f"got a set (its order changes between runs); use a list")
        else:
            params = list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(
                    f"{name}: optimizer can only optimize Tensors, got {_describe(p)}")
            if not p.is_leaf:
                raise ValueError(f"{name}: can't optimize a non-leaf Tensor")
        group = dict(param_group)
        group["params"] = params
        for key, default in self.defaults.items():
            if default is required and key not in group:
                raise ValueError(
                    f"{name}: parameter group didn't specify a value of required "
                    f"optimization parameter {key}")
            group.setdefault(key, default)
        if len({id(p) for p in params}) != len(params):
            warnings.warn(
                f"{name}: optimizer contains a parameter group with duplicate parameters; "
                f"in future, this will cause an error", UserWarning, stacklevel=2)
        existing = {id(p) for g in self.param_groups for p in g["params"]}
        if existing & {id(p) for p in params}:
            raise ValueError(
                f"{name}: some parameters appear in more than one parameter group")
        self._check_group(group)
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all optimized parameters.

        Parameters
        ----------
        set_to_none : bool, default True
            Set ``grad`` to None (PyTorch's default) instead of filling it with zeros.
        """
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:  # in place, on the same Tensor (detached first if it has history)
                    g = p.grad if p.grad.grad_fn is None else p.grad.detach()
                    with _autograd.no_grad():
                        g._assign(zeros_like(g)._cell.array)
                    p.grad = g

    # --- stepping ------------------------------------------------------------------
    def _compute_group(self, group: dict) -> list:
        """New values for every parameter of ``group`` that has a gradient."""
        self._check_group(group)
        name = f"{type(self).__name__}.step"
        updates = []
        for p in group["params"]:
            if p.grad is None:
                continue
            grad = p.grad.detach()
            if tuple(grad.shape) != tuple(p.shape):
                raise ValueError(
                    f"{name}: the gradient of a parameter must have the parameter's shape "
                    f"{tuple(p.shape)}, got {tuple(grad.shape)}")
            if grad.dtype is not p.dtype:
                raise TypeError(
                    f"{name}: the gradient of a parameter must have the parameter's dtype "
                    f"{p.dtype}, got {grad.dtype}")
            if grad.backend is not p.backend:
                raise ValueError(
                    f"{name}: the gradient of a parameter must be on the parameter's backend "
                    f"{p.backend.name!r}, got {grad.backend.name!r}")
            update = self._update_real_view if p.dtype.kind == "complex floating" else \
                self._update
            new_p, new_state = update(group, p.detach(), grad, self.state.get(p, {}))
            if tuple(new_p.shape) != tuple(p.shape) or new_p.dtype is not p.dtype:
                raise ValueError(
                    f"{name}: an update must keep the parameter's shape {tuple(p.shape)} and "
                    f"dtype {p.dtype}, got {tuple(new_p.shape)} and {new_p.dtype}")
            updates.append((p, new_p, self._unalias(p, grad, new_state)))
        return updates

    def _update_real_view(self, group: dict, param: Tensor, grad: Tensor, state: dict):
        """``_update`` of a complex parameter on its real view (PyTorch's optimizers step
        complex parameters through ``view_as_real``: real and imaginary parts update as
        separate real numbers, so Adam's second moments are per part, not ``g * g``).
        The state keeps complex Tensors, as PyTorch's does."""
        shape = tuple(param.shape)

        def as_real(t):
            if isinstance(t, Tensor) and t.dtype.kind == "complex floating" and \
                    tuple(t.shape) == shape:
                return stack([real(t), imag(t)], axis=-1)
            return t

        def as_complex(t):
            if isinstance(t, Tensor) and tuple(t.shape) == shape + (2,):
                return astype(t[..., 0], param.dtype) + astype(t[..., 1], param.dtype) * 1j
            return t

        new_p, new_state = self._update(group, as_real(param), as_real(grad),
                                        {k: as_real(v) for k, v in state.items()})
        return as_complex(new_p), {k: as_complex(v) for k, v in new_state.items()}

    def _unalias(self, p: Tensor, grad: Tensor, new_state: dict) -> dict:
        """Copy new state Tensors that share an array with the gradient, the parameter,
        another entry, or a different entry of the old state.

        In-place writes on backends with mutable arrays (NumPy) may write into the
        array itself, so ``zero_grad(set_to_none=False)`` must not clear a momentum
        buffer that started as the gradient.
        """
        old = self.state.get(p, {})
        seen = {id(grad._cell.array), id(p._cell.array)}
        out = {}
        for key, value in new_state.items():
            if isinstance(value, Tensor):
                arr = value._cell.array
                shared_old = any(
                    isinstance(t, Tensor) and t._cell.array is arr and k != key
                    for k, t in old.items())
                if id(arr) in seen or shared_old:
                    value = asarray(value, copy=True)
                seen.add(id(value._cell.array))
            out[key] = value
        return out

    @staticmethod
    def _materialize(updates: list) -> list:
        """Materialize (Dask: persist) the new arrays of one group, per backend.

        Returns ``(param, new_param_array, {key: array or value})`` triples.
        """
        slots = []  # (backend, array) to materialize, in order
        for p, new_p, new_state in updates:
            slots.append((p.backend, new_p._cell.array))
            for value in new_state.values():
                if isinstance(value, Tensor):
                    slots.append((value.backend, value._cell.array))
        results = [None] * len(slots)
        by_backend: dict = {}
        for i, (backend, _arr) in enumerate(slots):
            by_backend.setdefault(id(backend), (backend, []))[1].append(i)
        for backend, indices in by_backend.values():
            done = backend.materialize(*(slots[i][1] for i in indices))
            for i, arr in zip(indices, done):
                results[i] = arr
        out, k = [], 0
        for p, _new_p, new_state in updates:
            p_arr = results[k]
            k += 1
            state = {}
            for key, value in new_state.items():
                if isinstance(value, Tensor):
                    state[key] = (value.backend, results[k])
                    k += 1
                else:
                    state[key] = value
            out.append((p, p_arr, state))
        return out

    def _commit(self, staged: list) -> None:
        for p, p_arr, new_state in staged:
            p._cell.array = p_arr
            p._cell.version += 1
            old = self.state.get(p, {})
            state = {}
            for key, value in new_state.items():
                if isinstance(value, tuple):
                    backend, arr = value
                    t = old.get(key)
                    if isinstance(t, Tensor):  # keep the object: write through its storage
                        t._cell.array = arr
                        t._cell.version += 1
                    else:
                        t = Tensor._from_array(arr, backend)
                    state[key] = t
                else:
                    state[key] = value
            self.state[p] = state

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform one optimization step (atomically).

        Parameters
        ----------
        closure : callable, optional
            Re-evaluates the model and returns the loss; called with grad enabled.

        Returns
        -------
        object
            The closure's loss, or None without a closure.

        Raises
        ------
        ValueError
            If an option of a group is invalid or a gradient does not match its
            parameter's shape or backend; nothing is changed then.
        TypeError
            If a gradient's dtype differs from its parameter's; nothing is changed then.
        """
        loss = None
        if closure is not None:
            with _autograd.enable_grad():
                loss = closure()
        with _autograd.no_grad():
            staged = []
            for group in self.param_groups:
                staged.extend(self._materialize(self._compute_group(group)))
            self._commit(staged)
        return loss

    # --- state dicts ---------------------------------------------------------------
    def state_dict(self) -> dict:
        """The optimizer's state in PyTorch's format.

        Returns
        -------
        dict
            ``{"state": {index: {name: Tensor or number}}, "param_groups": [{option:
            value, ..., "params": [index, ...]}]}``; parameters are numbered in group
            order. State Tensors are the optimizer's own (not copies).
        """
        mapping: dict = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                mapping.setdefault(id(p), len(mapping))
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {}
        for p, s in self.state.items():
            key = mapping[id(p)] if isinstance(p, Tensor) and id(p) in mapping else p
            state[key] = dict(s)
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a state produced by :meth:`state_dict`; on failure nothing changes.

        State Tensors are copied onto each parameter's backend, floating ones cast to
        its dtype.

        Parameters
        ----------
        state_dict : dict
            ``{"state": ..., "param_groups": ...}`` as :meth:`state_dict` returns.

        Raises
        ------
        ValueError
            If the keys, the number of groups, a group's size or a state Tensor's shape
            does not match this optimizer.
        TypeError
            If ``state_dict`` is not a dict or a state value is not a Tensor or number.
        """
        name = f"{type(self).__name__}.load_state_dict"
        if not isinstance(state_dict, dict):
            raise TypeError(
                f"{name}: argument state_dict expected a dict, got {_describe(state_dict)}")
        missing = {"state", "param_groups"} - set(state_dict)
        if missing:
            raise ValueError(
                f"{name}: argument state_dict expected keys 'state' and 'param_groups', "
                f"missing {sorted(missing)}")
        saved_groups = list(state_dict["param_groups"])
        if len(saved_groups) != len(self.param_groups):
            raise ValueError(
                f"{name}: loaded state dict has a different number of parameter groups: "
                f"expected {len(self.param_groups)}, got {len(saved_groups)}")
        id_map = {}
        for i, (group, saved) in enumerate(zip(self.param_groups, saved_groups)):
            if not isinstance(saved, dict) or "params" not in saved:
                raise ValueError(
                    f"{name}: param_groups[{i}] expected a dict with 'params', got "
                    f"{_describe(saved)}")
            if len(saved["params"]) != len(group["params"]):
                raise ValueError(
                    f"{name}: loaded state dict contains a parameter group that doesn't "
                    f"match the size of optimizer's group: param_groups[{i}] expected "
                    f"{len(group['params'])} parameters, got {len(saved['params'])}")
            for index, p in zip(saved["params"], group["params"]):
                id_map[index] = p
        new_state = {}
        for key, values in dict(state_dict["state"]).items():
            if key not in id_map:
                new_state[key] = dict(values)
                continue
            p = id_map[key]
            new_state[p] = {k: self._load_value(name, p, k, v) for k, v in values.items()}
        new_groups = []
        for group, saved in zip(self.param_groups, saved_groups):
            g = {k: v for k, v in saved.items() if k != "params"}
            g["params"] = group["params"]
            self._check_group(g)
            new_groups.append(g)
        self.state = new_state
        self.param_groups = new_groups

    @staticmethod
    def _load_value(name, p: Tensor, key, value):
        if isinstance(value, Tensor):
            arr = value._cell.array
            if value.backend is not p.backend:
                arr = p.backend.from_host(value.backend.to_host(arr))
            t = Tensor._from_array(arr, p.backend)  # a new storage: a copy
            if t.ndim and tuple(t.shape) != tuple(p.shape):
                raise ValueError(
                    f"{name}: state {key!r} of a parameter expected shape {tuple(p.shape)}, "
                    f"got {tuple(t.shape)}")
            if t.dtype.kind == "real floating" and t.dtype is not p.dtype:
                t = astype(t, p.dtype)
            return t
        if isinstance(value, (bool, int, float, complex)) or value is None:
            return value
        raise TypeError(
            f"{name}: state {key!r} expected a Tensor or a number, got {_describe(value)}")

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)


def _check(cls: str, arg: str, value, ok: bool, torch_message: str, expected: str) -> None:
    """Raise PyTorch's ``ValueError`` message, naming the function, argument and expectation."""
    if not ok:
        raise ValueError(f"{torch_message}: {value} ({cls}: argument {arg} expected "
                         f"{expected}, got {value!r})")
