"""The 2019 "Extending PyTorch" note (``documents/extending-pytorch-2019.md``): each code
block run verbatim (``seed_snippets.SNIPPETS_2019``), against PyTorch running the original.

The note's text uses ``Function`` and ``nn`` without importing them: the harness supplies
``arrayflow.autograd.Function`` and ``arrayflow.nn``. Snippets that use an earlier one
(``linear`` needs ``LinearFunction``) run after it, as a reader would.
"""

from __future__ import annotations

import pytest
import seed_checks as C
from seed_snippets import SNIPPETS_2019 as S

torch = pytest.importorskip("torch")


def test_2019_linear_function(backend):
    # the backward's `grad_output.sum(0).squeeze(0)` needs PyTorch's Tensor.squeeze(dim):
    # a no-op for the (3,) bias gradient, whose dimension 0 is not of size 1
    a, t = C.both([S["linear_function"]])
    C.check_linear_apply(a["LinearFunction"].apply, t["LinearFunction"].apply)


def test_2019_linear_alias(backend):
    a, t = C.both([S["linear_function"], S["linear_alias"]])
    assert a["linear"] == a["LinearFunction"].apply
    C.check_linear_apply(a["linear"], t["linear"], seed=1)


def test_2019_mul_constant(backend):
    a, t = C.both([S["mul_constant"]])
    C.check_mul_constant(a["MulConstant"], t["MulConstant"])


# not on dask: 1000 finite differences of a lazy graph take ~40 s; the same Function's
# values and gradients are compared with PyTorch on dask by the linear_function test
@pytest.mark.parametrize("backend", ["numpy", "strict"], indirect=True)
def test_2019_gradcheck(backend):
    a, t = C.both([S["linear_function"], S["linear_alias"]])
    C.check_gradcheck_snippet(S["gradcheck"], a, t)


def test_2019_linear_module(backend):
    a, t = C.both([S["linear_function"], S["linear_module"]])
    C.check_linear_module(a["Linear"], t["Linear"])


def test_2019_linear_module_quirks_match_pytorch():
    # This version of the note has two bugs that PyTorch runs into as well: `if bias is not
    # None` tests the bool argument, so bias=False reaches `self.bias.data` on None; and
    # extra_repr reads `self.in_features`, which the class never sets.
    a, t = C.both([S["linear_function"], S["linear_module"]])
    for ns in (a, t):
        with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'data'"):
            ns["Linear"](4, 3, bias=False)
        with pytest.raises(AttributeError, match="'Linear' object has no attribute "
                                                 "'in_features'"):
            repr(ns["Linear"](4, 3))
