"""``arrayflow.func``: composable function transforms (PyTorch's ``torch.func``).

Reverse mode, on every backend: :func:`grad`, :func:`grad_and_value`, :func:`vjp`,
:func:`jacrev`, and the Module helpers :func:`functional_call` and
:func:`stack_module_state`. They take and return pytrees (nested tuples, lists,
dicts and namedtuples of Tensors) and compose with each other (``grad(grad(f))``,
``jacrev(grad(f))``, ``grad`` of a function calling ``functional_call``).

Forward mode (:mod:`arrayflow.autograd.forward_ad`), on every backend: :func:`jvp`,
:func:`linearize`, :func:`jacfwd` and :func:`hessian` (``jacfwd(jacrev(f))``); they
nest and compose with the reverse transforms in any order. :func:`vmap` vectorizes
any of them over a batch dimension (``vmap(grad(loss))``: per-sample gradients).
See ``docs/func.md``.
"""

from __future__ import annotations

from ._forward import hessian, jacfwd, jvp, linearize
from ._functional_call import functional_call, stack_module_state
from ._reverse import grad, grad_and_value, jacrev, vjp
from ._vmap import vmap

__all__ = ["grad", "grad_and_value", "vjp", "jacrev", "functional_call",
           "stack_module_state", "jvp", "linearize", "jacfwd", "hessian", "vmap"]
