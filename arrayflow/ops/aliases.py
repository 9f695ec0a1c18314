"""PyTorch's names for the standard's functions (``mul`` for ``multiply``).

Each alias is declared beside its op (``@op("multiply", aliases=("mul",))``) and is a
distinct :class:`~arrayflow.ops._registry.AliasOp`, as in PyTorch
(``torch.mul is not torch.multiply``): ``__arrayflow_function__`` overrides and
modes receive the function the user called, errors name it, and
``get_testing_overrides`` lists both. The computation, the VJP and the recorded
backward node are the canonical op's (``arrayflow.mul.canonical is
arrayflow.multiply``); an override that handles both spellings alike can key its
table on ``getattr(func, "canonical", func)``. PyTorch's functions whose signatures differ
(``cumsum(input, dim)``, ``gather(input, dim, index)``, ...) are their own functions, in
:mod:`arrayflow.ops.torch_functions`.

This module only collects the top-level aliases from :data:`~arrayflow.ops._registry.ALIASES`
so that ``from arrayflow.ops.aliases import *`` exports them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import creation, elementwise, linalg, manipulation  # noqa: F401  (registers the ops)
from ._registry import ALIASES

globals().update({n: a for n, a in ALIASES.items() if "." not in n})
__all__ = [n for n in ALIASES if "." not in n]

if TYPE_CHECKING:  # what the registry holds, spelled out for type checkers only
    # (tests/test_op_table.py checks this block names exactly the registered aliases)
    from ._registry import AliasOp

    absolute: AliasOp
    arccos: AliasOp
    arcsin: AliasOp
    arctan: AliasOp
    arctan2: AliasOp
    as_tensor: AliasOp
    cat: AliasOp
    clamp: AliasOp
    concatenate: AliasOp
    div: AliasOp
    mm: AliasOp
    movedim: AliasOp
    mul: AliasOp
    neg: AliasOp
    permute: AliasOp
    power: AliasOp
    sub: AliasOp
    true_divide: AliasOp
    __all__ = ["absolute", "arccos", "arcsin", "arctan", "arctan2", "as_tensor", "cat", "clamp",
               "concatenate", "div", "mm", "movedim", "mul", "neg", "permute", "power", "sub",
               "true_divide"]
