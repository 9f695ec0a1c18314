"""``grad_fn.register_hook`` (PyTorch ``Node.register_hook``): the hook gets Tensors and its
returned tuple replaces ``grad_inputs``, as in PyTorch (arrayflow passed raw backend arrays and
ignored the return value: a silently different gradient). Differential against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import arrayflow as af

torch = pytest.importorskip("torch")

X, W = [1.0, 2.0, -3.0], [0.5, -1.0, 2.0]


def _run(lib, ret, w_grad=True):
    x = lib.tensor(X, requires_grad=True)
    w = lib.tensor(W, requires_grad=w_grad)
    y = (x * w).sum()
    node = y.grad_fn.next_functions[0][0]  # the multiplication's node: two inputs
    seen = []

    def hook(grad_inputs, grad_outputs):
        seen.append(tuple(None if g is None else type(g).__name__ for g in grad_inputs))
        return ret(lib, grad_inputs)

    node.register_hook(hook)
    try:
        y.backward()
    except Exception as e:  # the exception is the result compared
        return type(e), str(e).split(": hook")[-1].split("hook")[-1], seen
    grads = [None if t.grad is None else t.grad.detach().numpy() for t in (x, w)]
    return grads, seen


def _same(a, b):
    if isinstance(a[0], type):
        assert a[0] is b[0], (a, b)
        return
    for ga, gb in zip(a[0], b[0], strict=True):
        assert (ga is None) == (gb is None)
        if ga is not None:
            np.testing.assert_allclose(ga, gb, rtol=1e-6)


CASES = {
    "none": lambda lib, gi: None,
    "scale-first": lambda lib, gi: (gi[0] * 10, gi[1]),
    "drop-second": lambda lib, gi: (gi[0], None),
    "not-a-tuple": lambda lib, gi: gi[0] * 10,
    "a-list": lambda lib, gi: [gi[0], gi[1]],
    "too-few": lambda lib, gi: (gi[0],),
    "wrong-size": lambda lib, gi: (gi[0][:1], gi[1]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_node_hook_matches_torch(backend, case):
    got = _run(af, CASES[case])
    want = _run(torch, CASES[case])
    _same(got, want)
    if not isinstance(got[0], type):
        # the hook saw Tensors, as PyTorch's does
        assert got[-1] == [("Tensor", "Tensor")] and want[-1] == [("Tensor", "Tensor")]


def _none_grad_run(lib):
    class First(lib.autograd.Function):  # backward gives the second input no gradient
        @staticmethod
        def forward(ctx, a, b):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, None

    a = lib.tensor(X, requires_grad=True)
    b = lib.tensor(W, requires_grad=True)
    y = First.apply(a, b).sum()
    node = y.grad_fn.next_functions[0][0]
    seen = []

    def hook(grad_inputs, grad_outputs):
        seen.append(tuple(None if g is None else type(g).__name__ for g in grad_inputs))
        return (grad_inputs[0], lib.ones(3))

    node.register_hook(hook)
    with pytest.raises(RuntimeError, match="can't replace a None gradient"):
        y.backward()
    return seen


def test_replacing_a_none_gradient_raises_as_torch():
    assert _none_grad_run(af) == _none_grad_run(torch) == [("Tensor", None)]
