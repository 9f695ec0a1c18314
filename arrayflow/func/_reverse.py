"""Reverse-mode transforms: ``grad``, ``grad_and_value``, ``vjp``, ``jacrev``.

torch.func's semantics on arrayflow's engine. torch.func isolates each transform
with a *level* (every Tensor is wrapped once per active transform); arrayflow
has one autograd graph, so a transform isolates itself as follows:

- each differentiated input becomes a Tensor of its own: a fresh leaf
  (``x.detach().requires_grad_()``) when nothing outside the transform can
  differentiate ``x``, otherwise a differentiable alias of ``x`` (a view), so an
  enclosing transform -- or the user's own ``backward`` -- still reaches ``x``;
- gradients are taken with ``autograd.grad`` (returned, never accumulated into
  ``.grad``), with ``create_graph=True`` only when something outside the
  transform can differentiate the result;
- every Tensor handed back is detached unless its graph reaches a Tensor that
  requires grad and is not one of the transform's fresh leaves (what
  torch.func's unwrapping at the end of a level does): ``grad(f)(x)`` of a plain
  ``x`` does not require grad, ``grad(f)(x)`` of an ``x`` that requires grad
  does, and ``grad(grad(f))`` differentiates the inner gradient.

Under ``no_grad`` at the call, nothing outside is differentiable (torch.func:
the transform ignores the outer ``no_grad`` inside, and its results are not
tracked outside).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .._backend import use_backend
from ..autograd import enable_grad, is_grad_enabled
from ..autograd import forward_ad as _fw
from ..autograd import grad as _autograd_grad
from ..autograd.graph import AccumulateGrad, grad_edge
from ..ops.creation import eye, ones_like, zeros, zeros_like
from ..ops.manipulation import concat, reshape
from ..tensor import Tensor
from . import _batching as _vb
from . import _vmap
from ._pytree import tree_flatten, tree_leaves, tree_map, tree_unflatten

__all__ = ["grad", "grad_and_value", "vjp", "jacrev"]

ArgnumsT = int | tuple[int, ...]

_FLOAT_KINDS = ("real floating", "complex floating")


def _fname(func: Any) -> str:
    return getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or repr(func)


# --- argnums ----------------------------------------------------------------------------------

def _wrap_argnum(api: str, argnum: Any, num_args: int) -> int:
    if not isinstance(argnum, int):
        raise RuntimeError(f"{api}: argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"{api}: Got argnum={argnum}, but only {num_args} positional inputs")


def _check_argnums(api: str, argnums: Any, num_args: int) -> ArgnumsT:
    """``argnums`` validated against ``num_args`` positional arguments, negatives wrapped."""
    if isinstance(argnums, int):
        return _wrap_argnum(api, argnums, num_args)
    if not isinstance(argnums, tuple):
        raise RuntimeError(f"{api}: argnums must be int or Tuple[int, ...], got: "
                           f"{type(argnums)}")
    wrapped = tuple(_wrap_argnum(api, a, num_args) for a in argnums)
    if len(wrapped) == 0:
        raise RuntimeError(f"{api}: argnums must be non-empty")
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"{api}: argnums elements must be unique, got {argnums}")
    return wrapped


def _slice_argnums(args: tuple, argnums: ArgnumsT, as_tuple: bool) -> Any:
    if isinstance(argnums, int):
        return (args[argnums],) if as_tuple else args[argnums]
    return tuple(args[i] for i in argnums)


def _replace_args(args: tuple, new: Any, argnums: ArgnumsT) -> tuple:
    if isinstance(argnums, int):
        return tuple(new if i == argnums else a for i, a in enumerate(args))
    return tuple(new[argnums.index(i)] if i in argnums else a for i, a in enumerate(args))


# --- one transform's isolation ("level") -----------------------------------------------------

class _Level:
    """The Tensors one transform call made differentiable, and what it hands back.

    ``enabled``: grad mode at the call; when False nothing the transform returns
    is tracked outside it.
    """

    __slots__ = ("api", "enabled", "fresh", "vmap")

    def __init__(self, api: str):
        self.api = api
        self.enabled = is_grad_enabled()
        self.fresh: set = set()  # the AccumulateGrad nodes of this level's fresh leaves
        # Inside vmap: the active vmap levels. Every differentiated input is then
        # batched (broadcast where it is not) at all of them, so that the gradient of the
        # sum of the batched output with respect to the physical inputs is the
        # per-sample gradient: each sample's output depends on its own slice only.
        self.vmap = _vb.active_levels()

    def make_diff(self, x: Any) -> Tensor:
        if not isinstance(x, Tensor):
            raise ValueError(
                f"{self.api}: Thing passed to transform API must be Tensor, got {type(x)}")
        if self.vmap:
            origin = x._origin if type(x) is _vb.BatchedTensor else "an unbatched input"
            phys = _vb.expand_to(x, self.vmap)
            _vb.tangents_in(x, phys, self.vmap)  # forward-over-reverse: tangents go along
            return _vb.make(self._diff(phys), self.vmap, origin)
        return self._diff(x)

    def physical(self, t: Any) -> Any:
        """The plain Tensor autograd sees for ``t`` (inside vmap: batched at all levels)."""
        if self.vmap and isinstance(t, Tensor):
            return _vb.expand_to(t, self.vmap)
        return t

    def _diff(self, x: Tensor) -> Tensor:
        if self.enabled and x.requires_grad:
            # differentiable outside: an alias keeps the path to x for outer transforms
            return reshape(x, tuple(x.shape))
        y = x.detach().requires_grad_()
        _fw._carry_tangents(x, y)  # forward-over-reverse: the leaf keeps x's tangents
        self.fresh.add(grad_edge(y)[0])
        return y

    def outside(self, tensors: list, memo: dict) -> list[bool]:
        """For each Tensor: does its graph reach a Tensor requiring grad that is not one of
        this level's fresh leaves (something outside the transform can differentiate it)?"""
        fresh = self.fresh
        out = []
        for t in tensors:
            if not isinstance(t, Tensor) or not t.requires_grad:
                out.append(False)
                continue
            root = grad_edge(t)[0]
            stack_ = [root]
            while stack_:
                n = stack_[-1]
                if n in memo:
                    stack_.pop()
                    continue
                if type(n) is AccumulateGrad:
                    # a leaf already collected counts as outside: a backward through the
                    # Tensors computed from it still runs (and needs their graph)
                    memo[n] = n not in fresh
                    stack_.pop()
                    continue
                pending = [m for m, _ in n._edges if m is not None and m not in memo]
                if pending:
                    stack_.extend(pending)
                    continue
                memo[n] = any(memo[m] for m, _ in n._edges if m is not None)
                stack_.pop()
            out.append(memo[root])
        return out

    def unwrap_flat(self, tensors: list, keep_graph: bool) -> list:
        """Tensors handed back: detached unless ``keep_graph`` and reaching outside."""
        if any(type(t) is _vb.BatchedTensor for t in tensors):
            phys = self.unwrap_flat([_vb.physical(t) for t in tensors], keep_graph)
            return [_vb.make_carry(p, t._levels, t._origin) if type(t) is _vb.BatchedTensor
                    else p for p, t in zip(phys, tensors)]
        if _fw._LEVELS:
            memo: dict = {}
            return [self._strip(t, keep_graph, memo, 0) for t in tensors]
        if not keep_graph:
            return [t.detach() if isinstance(t, Tensor) else t for t in tensors]
        reach = self.outside(tensors, {})
        return [t if (r or not isinstance(t, Tensor)) else t.detach()
                for t, r in zip(tensors, reach)]

    def _strip(self, t: Any, keep_graph: bool, memo: dict, depth: int) -> Any:
        """``unwrap_flat`` of one Tensor while forward-AD levels are active: the result
        keeps the Tensor's tangents, themselves unwrapped the same way (a tangent computed
        by the VJP rules of this transform must not carry its graph out of it)."""
        if not isinstance(t, Tensor):
            return t
        keep = keep_graph and t.requires_grad and self.outside([t], memo)[0]
        out = t if keep else t.detach()
        if depth <= len(_fw._LEVELS):
            for lv in _fw._LEVELS:
                tt = lv.tangents.get(t)
                if tt is not None:
                    lv.tangents[out] = self._strip(tt, keep_graph, memo, depth + 1)
        return out

    def unwrap_tree(self, tree: Any, what: str) -> Any:
        leaves, spec = tree_flatten(tree)
        for x in leaves:
            if not isinstance(x, Tensor):
                raise RuntimeError(
                    f"{self.api}: {what} must contain only Tensors (torch.func: Expected "
                    f"tensors), got unsupported type {type(x)}")
        return tree_unflatten(self.unwrap_flat(leaves, self.enabled), spec)


def _grads(outputs: list, inputs: list, cotangents: list | None, *, retain_graph: bool,
           create_graph: bool) -> list:
    """``autograd.grad`` over the outputs that require grad; zeros for unused inputs
    (torch.func's ``_autograd_grad``). While a forward-AD level holds tangents the VJP
    rules run on Tensors (``create_graph``), so their ops carry the tangents
    (forward-over-reverse: ``jvp(grad(f))``, ``jacfwd(jacrev(f))``)."""
    if not create_graph and any(len(lv.tangents) for lv in _fw._LEVELS):
        create_graph = retain_graph = True
    if cotangents is None:
        pairs = [(o, None) for o in outputs if o.requires_grad]
    else:
        pairs = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
    if not pairs or not inputs:
        return [zeros_like(x) for x in inputs]
    outs = tuple(o for o, _ in pairs)
    cts = None if cotangents is None else tuple(c for _, c in pairs)
    gs = _autograd_grad(outs, tuple(inputs), grad_outputs=cts, retain_graph=retain_graph,
                        create_graph=create_graph, allow_unused=True)
    return [zeros_like(x) if g is None else g for g, x in zip(gs, inputs)]


# --- grad, grad_and_value ---------------------------------------------------------------------

def _grad_and_value(func, argnums, has_aux, args, kwargs, api_name):
    api = f"{api_name}(f)(*args) with f={_fname(func)}"
    level = _Level(api)
    with enable_grad():
        argnums = _check_argnums(api, argnums, len(args))
        diff = tree_map(level.make_diff, _slice_argnums(args, argnums, as_tuple=False))
        output = func(*_replace_args(args, diff, argnums), **kwargs)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError(
                    f"{api}: output of function f should be a tuple: (output, aux) if "
                    f"has_aux is True, got {type(output).__name__}"
                    + (f" of length {len(output)}" if isinstance(output, tuple) else ""))
            output, aux = output
        if not isinstance(output, Tensor):
            raise RuntimeError(f"{api}: Expected f(*args) to return a Tensor, got "
                               f"{type(output)}")
        if output.ndim != 0:
            raise RuntimeError(
                f"{api}: Expected f(*args) to return a scalar Tensor, got tensor with "
                f"{output.ndim} dims (shape {tuple(output.shape)}). Maybe you wanted to use "
                f"the vjp or jacrev APIs instead?")
        if output.dtype.kind == "complex floating":
            raise RuntimeError(f"{api}: grad can be implicitly created only for real scalar "
                               f"outputs but got {output.dtype}")
        flat_diff, spec = tree_flatten(diff)
        flat_p = [level.physical(d) for d in flat_diff]
        out_p = level.physical(output)
        if level.vmap:
            _vb.tangents_in(output, out_p, level.vmap)
        memo: dict = {}
        reaches = level.outside([out_p], memo)[0]
        create = level.enabled and reaches
        # the graph is freed only when it is wholly this transform's: nothing returned
        # (output or aux) can lead an outside backward into it
        retain = reaches or (has_aux and any(level.outside(
            [_vb.physical(a) for a in tree_leaves(aux)], memo)))
        # inside vmap the output is batched: its sum's gradient is the per-sample one
        cts = [ones_like(out_p)] if level.vmap else None
        gs = _grads([out_p], flat_p, cts, retain_graph=retain, create_graph=create)
        if level.vmap:
            gs = [_vb.make_carry(g, level.vmap, d._origin) for g, d in zip(gs, flat_diff)]
        gs = level.unwrap_flat(gs, create)
        value = level.unwrap_flat([output], level.enabled)[0]
        if has_aux:
            aux = level.unwrap_tree(aux, "aux (the second output of f)")
    g = tree_unflatten(gs, spec)
    return g, ((value, aux) if has_aux else value)


def grad_and_value(func: Callable[..., Any], argnums: ArgnumsT = 0,
                   has_aux: bool = False) -> Callable[..., Any]:
    """A function returning the gradient of ``func`` and ``func``'s value.

    Parameters
    ----------
    func : callable
        Returns a scalar (0-d) Tensor, or ``(scalar, aux)`` with ``has_aux=True``
        (``aux`` a pytree of Tensors, returned undifferentiated).
    argnums : int or tuple of int, default 0
        The positional argument(s) to differentiate with respect to; each may be
        a pytree (tuple, list, dict, namedtuple) of floating Tensors.
    has_aux : bool, default False
        Whether ``func`` returns ``(output, aux)``.

    Returns
    -------
    callable
        ``(*args, **kwargs) -> (grad, value)``, or ``(grad, (value, aux))`` with
        ``has_aux=True``. ``grad`` has the structure of ``args[argnums]`` (a tuple
        of those for a tuple ``argnums``), each gradient the shape and dtype of its
        input. Keyword arguments are passed through, never differentiated.

    Raises
    ------
    RuntimeError
        If ``func`` returns a non-Tensor or a Tensor that is not 0-d, if
        ``has_aux=True`` and it does not return a 2-tuple, if ``argnums`` is out of
        range, repeated, empty, or not an int or tuple of ints.
    ValueError
        If an argument to differentiate holds something other than a Tensor.

    Notes
    -----
    Source: ``torch.func.grad_and_value`` (PyTorch 2.13). Inputs are not modified
    and no ``.grad`` is populated; results are tracked by autograd outside the
    transform only where they depend on Tensors that require grad outside it, so
    ``grad_and_value`` nests inside other transforms.
    """
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return _grad_and_value(func, argnums, has_aux, args, kwargs, "grad_and_value")

    return wrapper


def grad(func: Callable[..., Any], argnums: ArgnumsT = 0,
         has_aux: bool = False) -> Callable[..., Any]:
    """A function computing the gradient of scalar ``func`` with respect to ``args[argnums]``.

    Parameters
    ----------
    func : callable
        Returns a scalar (0-d) Tensor, or ``(scalar, aux)`` with ``has_aux=True``.
    argnums : int or tuple of int, default 0
        The positional argument(s) to differentiate; each may be a pytree of Tensors.
    has_aux : bool, default False
        Whether ``func`` returns ``(output, aux)``; then the result is ``(grad, aux)``.

    Returns
    -------
    callable
        ``(*args, **kwargs) -> grad`` (or ``(grad, aux)``), ``grad`` with the structure
        of ``args[argnums]`` and each entry the shape and dtype of its input.
        ``grad(grad(f))`` gives second derivatives.

    Raises
    ------
    RuntimeError
        Non-scalar or non-Tensor output (the message names ``func`` and the shape),
        ``has_aux=True`` without a 2-tuple output, invalid ``argnums``.
    ValueError
        If an argument to differentiate holds something other than a Tensor.

    Notes
    -----
    Source: ``torch.func.grad`` (PyTorch 2.13): inputs are not modified, ``.grad``
    is never populated, an input that does not influence the output gets zeros.
    """
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        g, rest = _grad_and_value(func, argnums, has_aux, args, kwargs, "grad")
        return (g, rest[1]) if has_aux else g

    return wrapper


# --- vjp ----------------------------------------------------------------------------------------

def _vjp(func, primals, argnums, has_aux, api):
    level = _Level(api)
    with enable_grad():
        if argnums is None:
            diff = tree_map(level.make_diff, primals)
            call_args = diff
        else:
            argnums = _check_argnums(api, argnums, len(primals))
            diff = tree_map(level.make_diff, _slice_argnums(primals, argnums, as_tuple=False))
            call_args = _replace_args(primals, diff, argnums)
        out = func(*call_args)
        aux = None
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError(
                    f"{api}: output of function f should be a tuple: (output, aux) if "
                    f"has_aux is True, got {type(out).__name__}"
                    + (f" of length {len(out)}" if isinstance(out, tuple) else ""))
            out, aux = out
            aux = level.unwrap_tree(aux, "aux (the second output of f)")
        flat_out, out_spec = tree_flatten(out)
        if len(flat_out) == 0 or (len(flat_out) == 1 and flat_out[0] is None):
            raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output "
                               f"(got output = {flat_out})")
        for o in flat_out:
            if not isinstance(o, Tensor):
                raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got "
                                   f"unsupported type {type(o)}")
            if o.dtype.kind not in _FLOAT_KINDS:
                raise RuntimeError(f"{api}: All outputs of f must be floating-point or "
                                   f"complex Tensors, got Tensor with dtype {o.dtype}")
        flat_diff, diff_spec = tree_flatten(diff)
        results = tree_unflatten(level.unwrap_flat(flat_out, level.enabled), out_spec)
    flat_diff_p = [level.physical(d) for d in flat_diff]
    flat_out_p = [level.physical(o) for o in flat_out]
    for o, p in zip(flat_out, flat_out_p) if level.vmap else ():
        _vb.tangents_in(o, p, level.vmap)
    out_reaches = level.outside(flat_out_p, {})

    def vjp_fn(cotangents: Any, retain_graph: bool = True,
               create_graph: bool | None = None) -> Any:
        """The vector-Jacobian product with ``cotangents`` (the structure of the output).

        Returns a tuple with one entry per primal (the structure of the primals).
        """
        if create_graph is None:
            create_graph = is_grad_enabled()
        flat_ct, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError(
                f"{api} vjp_fn: Expected pytree structure of cotangents to be the same as "
                f"pytree structure of outputs to the function. cotangents: {ct_spec}, "
                f"primal output: {out_spec}")
        for i, (c, o) in enumerate(zip(flat_ct, flat_out)):
            if not isinstance(c, Tensor):
                raise TypeError(f"{api} vjp_fn: cotangent {i} must be a Tensor, got "
                                f"{type(c).__name__}")
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(
                    f"{api} vjp_fn: Mismatch in shape: cotangent {i} has a shape of "
                    f"{tuple(c.shape)} and output {i} has a shape of {tuple(o.shape)}")
        if any(lv not in level.vmap for lv in _vb._union(flat_ct)):
            # vmap over the cotangents (a vjp taken outside that vmap): one VJP per row
            if level.vmap:
                raise NotImplementedError(
                    f"{api} vjp_fn: vmapping a vjp_fn over its cotangents inside another "
                    f"vmap is not supported; call vjp inside the vmap instead")

            batched = _batched_rows(level, flat_out_p, flat_diff_p, flat_ct, out_reaches,
                                    create_graph)
            if batched is not None:
                return tree_unflatten(batched, diff_spec)

            def row(*cts):
                res = vjp_fn(tree_unflatten(list(cts), out_spec), True, create_graph)
                return tuple(tree_leaves(res))

            return tree_unflatten(list(_vb._fallback(row, "vjp_fn", tuple(flat_ct), {})),
                                  diff_spec)
        ct_grad = any(c.requires_grad for c in flat_ct)
        create = bool(create_graph) and (ct_grad or (level.enabled and any(out_reaches)))
        with enable_grad():
            gs = _grads(flat_out_p, flat_diff_p, [level.physical(c) for c in flat_ct],
                        retain_graph=retain_graph, create_graph=create)
        if level.vmap:
            gs = [_vb.make_carry(g, level.vmap, d._origin) for g, d in zip(gs, flat_diff)]
        return tree_unflatten(level.unwrap_flat(gs, create), diff_spec)

    return results, vjp_fn, aux


def _batched_rows(level, outs: list, diffs: list, cts: list, out_reaches: list,
                  create_graph: bool) -> list | None:
    """All the rows of ``vmap(vjp_fn)(cotangents)`` in one backward pass: the VJP rules
    run on Tensors (``create_graph``), so the batched cotangents go through their ops'
    batching rules. None where a rule cannot run batched (it reads a value, say): the
    caller then loops over the rows."""
    ct_grad = any(c.requires_grad for c in cts)
    keep = bool(create_graph) and (ct_grad or (level.enabled and any(out_reaches)))
    try:
        with enable_grad():
            gs = _grads(outs, diffs, list(cts), retain_graph=True, create_graph=True)
    except (RuntimeError, NotImplementedError, TypeError, ValueError):
        return None
    return level.unwrap_flat(gs, keep)


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple:
    """``func``'s output at ``primals`` and a function computing vector-Jacobian products.

    Parameters
    ----------
    func : callable
        Takes ``*primals`` and returns a pytree of floating or complex Tensors
        (``(output, aux)`` with ``has_aux=True``).
    *primals : pytrees of Tensors
        The point; every Tensor in them is differentiated.
    has_aux : bool, default False
        Whether ``func`` returns ``(output, aux)``.

    Returns
    -------
    tuple
        ``(output, vjp_fn)`` or ``(output, vjp_fn, aux)``. ``vjp_fn(cotangents,
        retain_graph=True, create_graph=None)`` takes a pytree of the output's
        structure (each cotangent of its output's shape) and returns a tuple with
        one entry per primal, each of the primal's structure, shapes and dtypes.
        ``create_graph`` defaults to the grad mode at the call of ``vjp_fn``.

    Raises
    ------
    RuntimeError
        If ``func`` returns no Tensor, a non-Tensor, an integer or bool Tensor; with
        ``has_aux=True`` without a 2-tuple; from ``vjp_fn``, if the cotangents'
        structure or shapes differ from the output's.
    ValueError
        If a primal holds something other than a Tensor.

    Notes
    -----
    Source: ``torch.func.vjp`` (PyTorch 2.13). ``vjp_fn`` may be called many times
    (the graph is retained unless ``retain_graph=False``).
    """
    results, vjp_fn, aux = _vjp(func, primals, None, has_aux,
                                f"vjp(f, *primals) with f={_fname(func)}")
    return (results, vjp_fn, aux) if has_aux else (results, vjp_fn)


# --- jacrev -----------------------------------------------------------------------------------

def _error_if_complex(api: str, tree: Any, is_input: bool) -> None:
    for idx, x in enumerate(tree_leaves(tree)):
        if isinstance(x, Tensor) and x.dtype.kind == "complex floating":
            what = "inputs" if is_input else "outputs"
            raise RuntimeError(f"{api}: Expected all {what} to be real but received complex "
                               f"tensor at flattened input idx: {idx}")


def jacrev(func: Callable[..., Any], argnums: ArgnumsT = 0, *, has_aux: bool = False,
           chunk_size: int | None = None) -> Callable[..., Any]:
    """A function computing the Jacobian of ``func`` with respect to ``args[argnums]``,
    row by row with vector-Jacobian products.

    Parameters
    ----------
    func : callable
        Returns a pytree of real floating Tensors (``(output, aux)`` with ``has_aux``).
    argnums : int or tuple of int, default 0
        The positional argument(s) to differentiate; each may be a pytree of Tensors.
    has_aux : bool, default False
        Whether ``func`` returns ``(output, aux)``; then the result is ``(jacobian, aux)``.
    chunk_size : int or None, default None
        The rows of the Jacobian (one per output element) are computed by ``vmap`` over
        the VJP, ``chunk_size`` rows per backward pass (None: all at once; 1: one VJP per
        row), as torch.func. Inside another ``vmap``, one VJP per row.

    Returns
    -------
    callable
        ``(*args) -> jacobian``: for each output leaf (the output's structure), the
        Jacobian with respect to each differentiated input leaf (the structure of
        ``args[argnums]``, a tuple of those for a tuple ``argnums``), of shape
        ``output.shape + input.shape`` and the input's dtype.

    Raises
    ------
    ValueError
        If ``chunk_size`` is not None and not positive (at the call of ``jacrev``).
    RuntimeError
        For complex inputs or outputs, invalid ``argnums``, and the errors of :func:`vjp`.

    Notes
    -----
    Source: ``torch.func.jacrev`` (PyTorch 2.13). Composes with :func:`grad`:
    ``jacrev(grad(f))`` is the Hessian of ``f``.
    """
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    api = f"jacrev(f) with f={_fname(func)}"

    @functools.wraps(func)
    def wrapper(*args: Any) -> Any:
        _error_if_complex(api, args, is_input=True)
        output, vjp_fn, aux = _vjp(func, args, argnums, has_aux, api)
        flat_out, out_spec = tree_flatten(output)
        _error_if_complex(api, flat_out, is_input=False)
        nums = _check_argnums(api, argnums, len(args))
        flat_primals, primals_spec = tree_flatten(_slice_argnums(args, nums, as_tuple=True))
        numels = [_numel(o) for o in flat_out]
        zero_cts = [zeros_like(o) for o in flat_out]
        rows: list[list] = [[] for _ in flat_primals]
        for i, o in enumerate(flat_out):
            if numels[i] == 0:
                continue
            with use_backend(o._backend):
                basis = eye(numels[i], dtype=o.dtype, device=o.device)
            if not _vb.active_levels():
                # the rows batched: one backward pass per chunk of chunk_size rows
                # (vmap over vjp_fn; its VJP rules run on Tensors, through batching rules)
                def rows_of(ct, i=i):
                    cts = list(zero_cts)
                    cts[i] = ct
                    return tuple(tree_leaves(vjp_fn(tree_unflatten(cts, out_spec))))

                res = _vmap.vmap(rows_of, chunk_size=chunk_size)(
                    reshape(basis, (numels[i],) + tuple(o.shape)))
                for p, r in enumerate(res):
                    rows[p].append(r)
                continue
            for j in range(numels[i]):  # inside vmap: one VJP per row
                cts = list(zero_cts)
                cts[i] = reshape(basis[j], tuple(o.shape))
                res = tree_leaves(vjp_fn(tree_unflatten(cts, out_spec)))
                for p, r in enumerate(res):
                    rows[p].append(reshape(r, (1,) + tuple(r.shape)))
        per_output: list[list] = [[] for _ in flat_out]
        for p, prim in enumerate(flat_primals):
            full = concat(rows[p], axis=0) if rows[p] else None
            start = 0
            for i, o in enumerate(flat_out):
                shape = tuple(o.shape) + tuple(prim.shape)
                if numels[i] == 0:
                    with use_backend(prim._backend):
                        block = zeros(shape, dtype=prim.dtype, device=prim.device)
                else:
                    # output i has elements, so its VJPs appended rows for every primal
                    assert full is not None
                    block = reshape(full[start:start + numels[i]], shape)
                start += numels[i]
                per_output[i].append(block)
        per_output_trees = [tree_unflatten(b, primals_spec) for b in per_output]
        if isinstance(nums, int):
            per_output_trees = [t[0] for t in per_output_trees]
        jac = tree_unflatten(per_output_trees, out_spec)
        return (jac, aux) if has_aux else jac

    return wrapper


def _numel(t: Tensor) -> int:
    n = 1
    for s in t.shape:
        n *= s
    return n
