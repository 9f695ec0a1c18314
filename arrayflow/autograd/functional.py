"""Higher-level derivatives: ``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``hvp``.

PyTorch's ``torch.autograd.functional`` signatures, built on the engine
(forward-mode products use the double-VJP trick, so every op with a VJP works).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from .._typing import Array
from ..ops.creation import ones_like, zeros_like
from ..ops.manipulation import reshape, stack

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp"]


def _tup(x):
    return (x, False) if isinstance(x, tuple) else ((x,), True)


def _prep(inputs, create_graph):
    out = []
    for x in inputs:
        x = x.detach() if not create_graph else x
        if not x.requires_grad:
            x = x.detach().requires_grad_()
        out.append(x)
    return tuple(out)


def _grad(outputs, inputs, grad_outputs, create_graph, strict=False):
    from . import grad

    gs = grad(outputs, inputs, grad_outputs=grad_outputs, create_graph=True,
              retain_graph=True, allow_unused=True)
    out = []
    for g, x in zip(gs, inputs):
        if g is None:
            if strict:
                raise RuntimeError("functional: the output is independent of an input "
                                   "(strict=True)")
            g = zeros_like(x)
        out.append(g if create_graph else g.detach())
    return tuple(out)


def vjp(func: Callable[..., Any], inputs: Array | Sequence[Array],
        v: Array | Sequence[Array] | None = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """Vector-Jacobian product ``v^T J`` of ``func`` at ``inputs``.

    Parameters
    ----------
    func : callable
        Takes the Tensors of ``inputs``; returns a Tensor or a tuple of Tensors.
    inputs : Tensor or sequence of Tensor
        The point at which to differentiate.
    v : Tensor or sequence of Tensor, optional
        The vector(s) of the product, shaped as the outputs; None for a one-element output.
    create_graph : bool, default False
        Make the results differentiable (record the computation).
    strict : bool, default False
        Raise when an output does not depend on an input (False: zeros).

    Returns
    -------
    (outputs, vjp)
        Same structure as PyTorch (a Tensor or tuple for each).
    """
    inputs, single_in = _tup(inputs)
    inputs = _prep(inputs, create_graph)
    outputs, single_out = _tup(func(*inputs))
    if v is None:
        if any(math.prod(o.shape) != 1 for o in outputs):
            raise RuntimeError("vjp: v can only be omitted for single-element outputs")
        v = tuple(ones_like(o) for o in outputs)
    else:
        v, _ = _tup(v)
    res = _grad(outputs, inputs, v, create_graph, strict)
    outs = tuple(o if create_graph else o.detach() for o in outputs)
    return (outs[0] if single_out else outs), (res[0] if single_in else res)


def jvp(func: Callable[..., Any], inputs: Array | Sequence[Array],
        v: Array | Sequence[Array] | None = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """Jacobian-vector product ``J v`` (via the double-VJP trick).

    Parameters
    ----------
    func : callable
        Takes the Tensors of ``inputs``; returns a Tensor or a tuple of Tensors.
    inputs : Tensor or sequence of Tensor
        The point at which to differentiate.
    v : Tensor or sequence of Tensor, optional
        The vector(s) of the product, shaped as the inputs; None for a one-element input.
    create_graph : bool, default False
        Make the results differentiable (record the computation).
    strict : bool, default False
        Raise when an output does not depend on an input (False: zeros).

    Returns
    -------
    (outputs, jvp)
    """
    inputs, single_in = _tup(inputs)
    inputs = _prep(inputs, True)
    outputs, single_out = _tup(func(*inputs))
    if v is None:
        if any(math.prod(x.shape) != 1 for x in inputs):
            raise RuntimeError("jvp: v can only be omitted for single-element inputs")
        v = tuple(ones_like(x) for x in inputs)
    else:
        v, _ = _tup(v)
    us = tuple(zeros_like(o).requires_grad_() for o in outputs)
    g = _grad(outputs, inputs, us, True, strict)
    res = _grad(g, us, v, create_graph, strict)
    outs = tuple(o if create_graph else o.detach() for o in outputs)
    return (outs[0] if single_out else outs), (res[0] if single_in else res)


def jacobian(func: Callable[..., Any], inputs: Array | Sequence[Array],
             create_graph: bool = False, strict: bool = False) -> Any:
    """The Jacobian of ``func`` at ``inputs``: shape ``output.shape + input.shape``.

    For tuples of inputs/outputs, nested tuples ``J[i][j]`` (output i, input j).

    Parameters
    ----------
    func : callable
        Takes the Tensors of ``inputs``; returns a Tensor or a tuple of Tensors.
    inputs : Tensor or sequence of Tensor
        The point at which to differentiate.
    create_graph : bool, default False
        Make the results differentiable (record the computation).
    strict : bool, default False
        Raise when an output does not depend on an input (False: zeros).

    Returns
    -------
    Tensor or tuple
        The Jacobian (nested tuples for several inputs or outputs).
    """
    inputs, single_in = _tup(inputs)
    inputs = _prep(inputs, True)
    outputs, single_out = _tup(func(*inputs))
    result = []
    for o in outputs:
        m = math.prod(o.shape)
        rows: list[list] = [[] for _ in inputs]
        for k in range(m):
            v = zeros_like(o)
            idx = []
            kk = k
            for s in reversed(o.shape):
                idx.append(kk % s)
                kk //= s
            if o.shape:
                v[tuple(reversed(idx))] = 1.0
            else:
                v = v + 1.0
            gs = _grad((o,), inputs, (v,), create_graph, strict)
            for j, g in enumerate(gs):
                rows[j].append(g)
        per_in = tuple(reshape(stack(r), tuple(o.shape) + tuple(x.shape))
                       for r, x in zip(rows, inputs))
        result.append(per_in[0] if single_in else per_in)
    return result[0] if single_out else tuple(result)


def hessian(func: Callable[..., Any], inputs: Array | Sequence[Array],
            create_graph: bool = False, strict: bool = False) -> Any:
    """The Hessian of a scalar ``func``: shape ``input.shape + input.shape``.

    Parameters
    ----------
    func : callable
        Takes the Tensors of ``inputs``; returns a one-element Tensor.
    inputs : Tensor or sequence of Tensor
        The point at which to differentiate.
    create_graph : bool, default False
        Make the results differentiable (record the computation).
    strict : bool, default False
        Raise when an output does not depend on an input (False: zeros).

    Returns
    -------
    Tensor or tuple
        The Hessian (nested tuples ``H[i][j]`` for several inputs).
    """
    inputs_t, single_in = _tup(inputs)

    def grad_func(*xs):
        out = func(*xs)
        return _grad((out,), xs, None, True, strict)

    j = jacobian(grad_func, inputs_t, create_graph=create_graph, strict=strict)
    if single_in:
        return j[0][0]
    return j


def hvp(func: Callable[..., Any], inputs: Array | Sequence[Array],
        v: Array | Sequence[Array] | None = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """Hessian-vector product of a scalar ``func``.

    Parameters
    ----------
    func : callable
        Takes the Tensors of ``inputs``; returns a one-element Tensor.
    inputs : Tensor or sequence of Tensor
        The point at which to differentiate.
    v : Tensor or sequence of Tensor, optional
        The vector(s) of the product, shaped as the inputs; None for a one-element input.
    create_graph : bool, default False
        Make the results differentiable (record the computation).
    strict : bool, default False
        Raise when an output does not depend on an input (False: zeros).

    Returns
    -------
    (output, hvp)
    """
    inputs, single_in = _tup(inputs)
    inputs = _prep(inputs, True)
    out = func(*inputs)
    g = _grad((out,), inputs, None, True, strict)
    v, _ = _tup(v)
    res = _grad(g, inputs, v, create_graph, strict)
    o = out if create_graph else out.detach()
    return o, (res[0] if single_in else res)
