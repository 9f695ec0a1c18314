"""Forward-mode transforms: ``jvp``, ``linearize``, ``jacfwd``, ``hessian``.

torch.func's semantics on :mod:`arrayflow.autograd.forward_ad`. Each ``jvp`` call enters
a forward-AD level of its own (``forward_ad._enter_nested``: the public ``dual_level``
keeps PyTorch's "Nested forward mode AD is not supported" rule), makes the primals dual
at that level, calls the function and unpacks the outputs at that level before leaving
it. A JVP rule runs with its level suspended, through the ``arrayflow`` namespace, so
its own ops carry the tangents of the enclosing levels (``jvp(jvp(f))``) and are recorded
by reverse mode (``grad`` of a function calling ``jvp``; ``jacrev(jacfwd(f))``); the
reverse transforms carry tangents through their fresh leaves and run the VJP rules on
Tensors while a level has tangents (``jvp(grad(f))``, ``jacfwd(jacrev(f))``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .._backend import use_backend
from ..autograd import forward_ad as _fw
from ..ops.creation import eye, zeros, zeros_like
from ..ops.manipulation import moveaxis, reshape, stack
from ..tensor import Tensor
from ._pytree import tree_flatten, tree_unflatten
from ._reverse import ArgnumsT, _check_argnums, _error_if_complex, _fname, _numel, jacrev

__all__ = ["jvp", "linearize", "jacfwd", "hessian"]

_JVP_STR = "jvp(f, primals, tangents)"


def _check_tensors(api: str, flat: list, argname: str) -> None:
    if len(flat) == 0:
        raise RuntimeError(f"{api}: Expected {argname} to contain at least one Tensor.")
    for x in flat:
        if not isinstance(x, Tensor):
            raise RuntimeError(f"{api}: Expected {argname} to only contain Tensors, got "
                               f"{type(x)}")


def _jvp(func: Callable[..., Any], primals: Any, tangents: Any, argnums: tuple | None,
         strict: bool, has_aux: bool, fname: str) -> tuple:
    """``(output, jvp_out, aux)``; ``argnums`` (a tuple) picks the primals that get the
    tangents (``jacfwd``), None: all of them (``jvp``). Messages are ``jvp``'s, as torch."""
    api = _JVP_STR
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid "
                           f"to call f(*primals).")
    diff = primals if argnums is None else tuple(primals[i] for i in argnums)
    flat_p, p_spec = tree_flatten(diff)
    flat_t, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(
            f"{api}: Expected primals and tangents to have the same python structure. For "
            f"example, if primals is a tuple of 3 tensors, tangents also must be. Got "
            f"primals with structure {p_spec} and tangents with structure {t_spec}")
    _check_tensors(api, flat_p, "primals")
    _check_tensors(api, flat_t, "tangents")
    level = _fw._enter_nested()
    try:
        duals = []
        for i, (p, t) in enumerate(zip(flat_p, flat_t)):
            try:
                duals.append(_fw.make_dual(p, t, level=level))
            except (RuntimeError, ValueError, TypeError) as e:
                raise type(e)(f"{api} with f={fname}: tangent {i} (flattened pytree "
                              f"index) for primal {i} of shape {tuple(p.shape)} and dtype "
                              f"{p.dtype}: {e}") from None
        dual_tree = tree_unflatten(duals, p_spec)
        if argnums is None:
            call_args = dual_tree
        else:
            call_args = tuple(dual_tree[argnums.index(i)] if i in argnums else a
                              for i, a in enumerate(primals))
        result = func(*call_args)
        aux = None
        if has_aux:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError(f"{api}: output of function f should be a tuple: "
                                   f"(output, aux) if has_aux is True")
            result, aux = result
        flat_out, out_spec = tree_flatten(result)
        if (len(flat_out) == 1 and flat_out[0] is None) or len(flat_out) < 1:
            raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output "
                               f"(got output = {flat_out})")
        outs, touts = [], []
        for o in flat_out:
            if not isinstance(o, Tensor):
                raise RuntimeError(f"{api}: expected f(*args) to return only tensors, got "
                                   f"unsupported type {type(o)}")
            primal, tangent = _fw.unpack_dual(o, level=level)
            if tangent is None:
                if strict:
                    raise RuntimeError(
                        "jvp(f, primals, tangents, strict=True): The output of f is "
                        "independent of the inputs. This is not allowed with strict=True.")
                with use_backend(primal._backend):
                    tangent = zeros_like(primal)
            outs.append(primal)
            touts.append(tangent)
    finally:
        _fw.exit_dual_level(level=level)
    return tree_unflatten(outs, out_spec), tree_unflatten(touts, out_spec), aux


def jvp(func: Callable[..., Any], primals: Any, tangents: Any, *, strict: bool = False,
        has_aux: bool = False) -> tuple:
    """``func(*primals)`` and its Jacobian-vector product with ``tangents`` (forward mode).

    Parameters
    ----------
    func : callable
        Takes ``*primals`` and returns a pytree of Tensors (``(output, aux)`` with
        ``has_aux=True``).
    primals : tuple
        The point: a tuple of pytrees of floating or complex Tensors, ``func(*primals)``.
    tangents : tuple
        The direction: the structure of ``primals``, each Tensor of its primal's shape
        and backend (a floating tangent of another dtype is cast to the primal's).
    strict : bool, default False
        Raise when an output does not depend on the primals (otherwise its tangent is
        zeros).
    has_aux : bool, default False
        Whether ``func`` returns ``(output, aux)``; ``aux`` comes back undifferentiated.

    Returns
    -------
    tuple
        ``(output, jvp_out)``, or ``(output, jvp_out, aux)`` with ``has_aux=True``;
        ``jvp_out`` has the output's structure, each tangent the shape and dtype of its
        output.

    Raises
    ------
    RuntimeError
        ``primals`` not a tuple, ``tangents`` of another structure, no Tensor or a
        non-Tensor among them, a tangent of another shape (the message names the
        flattened index and the primal's shape), ``func`` returning a non-Tensor or
        nothing, ``has_aux=True`` without a 2-tuple, ``strict=True`` with an output
        independent of the inputs.
    ValueError
        A primal or tangent that is not floating-point or complex.
    NotImplementedError
        An op (or custom Function without ``jvp``) on the path with no forward-mode rule.

    Notes
    -----
    Source: ``torch.func.jvp`` (PyTorch 2.13). Each call is its own forward-AD level, so
    ``jvp`` nests (``jvp(jvp(f))``) and composes with the reverse transforms in both
    orders. Inputs are not modified.
    """
    out, tout, aux = _jvp(func, primals, tangents, None, strict, has_aux, _fname(func))
    return (out, tout, aux) if has_aux else (out, tout)


def linearize(func: Callable[..., Any], *primals: Any) -> tuple:
    """``func(*primals)`` and a function computing JVPs at ``primals``.

    Parameters
    ----------
    func : callable
        Takes ``*primals`` and returns a pytree of Tensors.
    *primals : pytrees of Tensors
        The point.

    Returns
    -------
    tuple
        ``(output, jvp_fn)``; ``jvp_fn(*tangents)`` takes tangents of the primals'
        structure, shapes, dtypes and backends and returns the JVP (the output's
        structure).

    Raises
    ------
    RuntimeError
        From ``jvp_fn``: tangents of another structure, or a tangent whose shape, dtype
        or backend differs from its primal's (torch's message, naming the flattened
        index), and the errors of :func:`jvp`.

    Notes
    -----
    Source: ``torch.func.linearize`` (PyTorch 2.13). torch traces ``func`` once into a
    graph; here ``jvp_fn`` runs ``func`` forward again under :func:`jvp` on each call
    (same results; no tracing on any backend).
    """
    output = func(*primals)
    _, out_spec = tree_flatten(output)
    flat_p, p_spec = tree_flatten(primals)
    meta = [(tuple(p.shape), p.dtype, p._backend.name) if isinstance(p, Tensor) else None
            for p in flat_p]
    fname = _fname(func)

    def jvp_fn(*tangents: Any) -> Any:
        flat_t, t_spec = tree_flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(f"Expected the tangents {t_spec} to have the same argspec as "
                               f"the primals {p_spec}")
        for idx, (t, m) in enumerate(zip(flat_t, meta)):
            if not isinstance(t, Tensor) or m is None:
                continue
            if tuple(t.shape) != m[0]:
                raise RuntimeError(f"tangent:{idx} with shape {tuple(t.shape)} in flattened "
                                   f"pytree doesn't match the shape {m[0]} of the "
                                   f"corresponding primal.")
            if t._backend.name != m[2]:
                raise RuntimeError(f"tangent:{idx} with backend {t._backend.name!r} in "
                                   f"flattened pytree doesn't match the backend {m[2]!r} of "
                                   f"the corresponding primal.")
            if t.dtype != m[1]:
                raise RuntimeError(f"tangent:{idx} with dtype {t.dtype} in flattened pytree "
                                   f"doesn't match the dtype {m[1]} of the corresponding "
                                   f"primal.")
        tout = _jvp(func, tuple(primals), tangents, None, False, False, fname)[1]
        flat, spec = tree_flatten(tout)
        return tree_unflatten(flat, out_spec) if spec == out_spec else tout

    return output, jvp_fn


_RANDOMNESS = ("error", "different", "same")


def jacfwd(func: Callable[..., Any], argnums: ArgnumsT = 0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable[..., Any]:
    """A function computing the Jacobian of ``func`` with respect to ``args[argnums]``,
    column by column with Jacobian-vector products (forward mode).

    Parameters
    ----------
    func : callable
        Returns a pytree of real Tensors (``(output, aux)`` with ``has_aux=True``).
    argnums : int or tuple of int, default 0
        The positional argument(s) to differentiate; each may be a pytree of Tensors.
    has_aux : bool, default False
        Whether ``func`` returns ``(output, aux)``; then the result is ``(jacobian, aux)``.
    randomness : {"error", "different", "same"}, default "error"
        Checked as torch.func checks it. Without ``vmap`` each basis direction calls
        ``func`` again, so random ops inside ``func`` draw anew per direction.

    Returns
    -------
    callable
        ``(*args) -> jacobian``: for each output leaf (the output's structure), the
        Jacobian with respect to each differentiated input leaf (the structure of
        ``args[argnums]``, a tuple of those for a tuple ``argnums``), of shape
        ``output.shape + input.shape`` and the output's dtype.

    Raises
    ------
    RuntimeError
        Complex inputs or outputs, invalid ``argnums`` or ``randomness``, and the errors
        of :func:`jvp`.

    Notes
    -----
    Source: ``torch.func.jacfwd`` (PyTorch 2.13), which pushes the standard basis through
    ``vmap(jvp)``; here one :func:`jvp` per input element (``numel`` forward passes): it
    beats :func:`jacrev` for functions with fewer inputs than outputs.
    ``jacfwd(jacrev(f))`` is the Hessian (:func:`hessian`).
    """
    api = f"jacfwd(f) with f={_fname(func)}"
    fname = _fname(func)

    @functools.wraps(func)
    def wrapper(*args: Any) -> Any:
        if randomness not in _RANDOMNESS:
            raise RuntimeError(f"Only allowed values for randomness are 'error', "
                               f"'different', or 'same'. Got {randomness}")
        _error_if_complex("jacfwd", args, is_input=True)
        nums = _check_argnums(api, argnums, len(args))
        nums_t = (nums,) if isinstance(nums, int) else nums
        diff = tuple(args[i] for i in nums_t)
        flat_p, p_spec = tree_flatten(diff)
        _check_tensors(_JVP_STR, flat_p, "primals")
        numels = [_numel(p) for p in flat_p]

        def zero_t() -> list:
            # fresh per call: an in-place op on a dual input inside func writes its tangent
            out = []
            for p in flat_p:
                with use_backend(p._backend):
                    out.append(zeros_like(p))
            return out

        cols: list[list] = [[] for _ in flat_p]  # per input leaf: the flat JVP outputs
        first = None

        inputs = [t for t in tree_flatten(args)[0] if isinstance(t, Tensor)]
        versions = [t._cell.version for t in inputs]

        def push(flat_tangents):
            res = _jvp(func, args, tree_unflatten(flat_tangents, p_spec), nums_t, False,
                       has_aux, fname)
            _error_if_complex("jacfwd", res[0], is_input=False)
            for i, t in enumerate(inputs):
                if t._cell.version != versions[i]:
                    raise RuntimeError(
                        f"{api}: f modified an input in place (a Tensor of shape "
                        f"{tuple(t.shape)}); jacfwd calls f once per input element (torch "
                        f"calls it once, under vmap), so each call would see other input "
                        f"values: write into a clone inside f")
            return res

        for j, p in enumerate(flat_p):
            if numels[j] == 0:
                continue
            with use_backend(p._backend):
                basis = eye(numels[j], dtype=p.dtype, device=p.device)
            for k in range(numels[j]):
                ts = zero_t()
                ts[j] = reshape(basis[k], tuple(p.shape))
                res = push(ts)
                if first is None:
                    first = res
                cols[j].append(tree_flatten(res[1])[0])
        if first is None:  # no input element: the output's structure from one call
            first = push(zero_t())
        flat_out, out_spec = tree_flatten(first[0])
        per_output: list[list] = [[] for _ in flat_out]
        for j, p in enumerate(flat_p):
            for i, o in enumerate(flat_out):
                shape = tuple(o.shape) + tuple(p.shape)
                if numels[j] == 0:
                    with use_backend(o._backend):
                        block = zeros(shape, dtype=o.dtype, device=o.device)
                else:
                    col = stack([c[i] for c in cols[j]], axis=0)  # (numel_j, *o.shape)
                    if o.ndim:
                        col = moveaxis(col, 0, -1)
                    block = reshape(col, shape)
                per_output[i].append(block)
        trees = [tree_unflatten(b, p_spec) for b in per_output]
        if isinstance(nums, int):
            trees = [t[0] for t in trees]
        jac = tree_unflatten(trees, out_spec)
        return (jac, first[2]) if has_aux else jac

    return wrapper


def hessian(func: Callable[..., Any], argnums: ArgnumsT = 0) -> Callable[..., Any]:
    """A function computing the Hessian of scalar ``func``: ``jacfwd(jacrev(func))``.

    Parameters
    ----------
    func : callable
        Returns a Tensor (a scalar for the usual Hessian).
    argnums : int or tuple of int, default 0
        The positional argument(s) to differentiate twice.

    Returns
    -------
    callable
        ``(*args) -> hessian`` of shape ``output.shape + input.shape + input.shape`` per
        input pair (nested tuples for a tuple ``argnums``, as torch).

    Raises
    ------
    RuntimeError
        The errors of :func:`jacrev` and :func:`jacfwd`.

    Notes
    -----
    Source: ``torch.func.hessian`` (PyTorch 2.13): forward-over-reverse.
    """
    return jacfwd(jacrev(func, argnums), argnums)
