"""PyTorch's names for the standard's functions (``mul`` for ``multiply``).

Each alias is a distinct :class:`~arrayflow.ops._registry.AliasOp`, as in PyTorch
(``torch.mul is not torch.multiply``): ``__arrayflow_function__`` overrides and
modes receive the function the user called, errors name it, and
``get_testing_overrides`` lists both. The computation, the VJP and the recorded
backward node are the canonical op's (``arrayflow.mul.canonical is
arrayflow.multiply``); an override that handles both spellings alike can key its
table on ``getattr(func, "canonical", func)``. PyTorch's functions whose signatures differ
(``cumsum(input, dim)``, ``gather(input, dim, index)``, ...) are their own functions, in
:mod:`arrayflow.ops.torch_functions`.
"""

from __future__ import annotations

from . import creation as _c
from . import elementwise as _e
from . import linalg as _la
from . import manipulation as _m
from ._registry import alias

__all__ = [
    "as_tensor", "mul", "sub", "div", "true_divide", "neg", "absolute", "mm", "cat",
    "concatenate", "permute", "clamp", "arccos", "arcsin", "arctan", "arctan2", "power",
    "movedim",
]

as_tensor = alias(_c.asarray, "as_tensor")
mul = alias(_e.multiply, "mul")
sub = alias(_e.subtract, "sub")
div = alias(_e.divide, "div")
true_divide = alias(_e.divide, "true_divide")
neg = alias(_e.negative, "neg")
absolute = alias(_e.abs, "absolute")
mm = alias(_la.matmul, "mm")
cat = alias(_m.concat, "cat")
concatenate = alias(_m.concat, "concatenate")
permute = alias(_m.permute_dims, "permute")
clamp = alias(_e.clip, "clamp")
arccos = alias(_e.acos, "arccos")
arcsin = alias(_e.asin, "arcsin")
arctan = alias(_e.atan, "arctan")
arctan2 = alias(_e.atan2, "arctan2")
power = alias(_e.pow, "power")
movedim = alias(_m.moveaxis, "movedim")
