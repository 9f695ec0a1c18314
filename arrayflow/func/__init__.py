"""``arrayflow.func``: composable function transforms (PyTorch's ``torch.func``).

Reverse mode, on every backend: :func:`grad`, :func:`grad_and_value`, :func:`vjp`,
:func:`jacrev`, and the Module helpers :func:`functional_call` and
:func:`stack_module_state`. They take and return pytrees (nested tuples, lists,
dicts and namedtuples of Tensors) and compose with each other (``grad(grad(f))``,
``jacrev(grad(f))``, ``grad`` of a function calling ``functional_call``).

Forward-mode transforms (``jvp``, ``jacfwd``, ``hessian``, ``linearize``) and
``vmap`` come with forward-mode AD (issue 14); see ``docs/func.md``.
"""

from __future__ import annotations

from ._functional_call import functional_call, stack_module_state
from ._reverse import grad, grad_and_value, jacrev, vjp

__all__ = ["grad", "grad_and_value", "vjp", "jacrev", "functional_call",
           "stack_module_state"]
