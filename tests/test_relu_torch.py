"""ReLU as PyTorch's: the input's dtype kept (int64 stays int64; it became float32), NaN
kept, gradient 0 at 0 and ``grad`` at NaN (``threshold_backward`` on the result), the
double backward, bool and complex inputs refused with PyTorch's exception types. Every
entry point (``af.relu``, ``Tensor.relu``, ``Tensor.relu_``, ``F.relu``, ``nn.ReLU``) on
every backend, against PyTorch.
"""

from __future__ import annotations

import numpy as np
import pytest

import arrayflow as af

torch = pytest.importorskip("torch")

ENTRY_POINTS = {
    "relu": lambda m, x: m.relu(x),
    "Tensor.relu": lambda m, x: x.relu(),
    "F.relu": lambda m, x: m.nn.functional.relu(x),
    "nn.ReLU": lambda m, x: m.nn.ReLU()(x),
    "Tensor.relu_": lambda m, x: x.clone().relu_(),
}
INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8"]


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_relu_keeps_an_integer_dtype_as_torch(backend, entry, dtype):
    data = [5, 0, 3, 7] if dtype == "uint8" else [-5, 0, 3, -1]
    fn = ENTRY_POINTS[entry]
    want = fn(torch, torch.tensor(data, dtype=getattr(torch, dtype)))
    got = fn(af, af.tensor(data, dtype=getattr(af, dtype)))
    assert str(got.dtype) == str(want.dtype).removeprefix("torch.")
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relu_values_and_gradient_as_torch(backend, entry, dtype):
    # relu'(0) = 0; at NaN the value stays NaN and the gradient passes (PyTorch's
    # threshold_backward reads the result: nan <= 0 is false).
    data = [float("nan"), -2.0, -0.0, 0.0, 1.5, float("inf"), -float("inf")]
    fn = ENTRY_POINTS[entry]
    tx = torch.tensor(data, dtype=getattr(torch, dtype), requires_grad=True)
    ax = af.tensor(data, dtype=getattr(af, dtype), requires_grad=True)
    ty, ay = fn(torch, tx * 1), fn(af, ax * 1)
    assert str(ay.dtype) == dtype
    assert type(ay.grad_fn).__name__ == type(ty.grad_fn).__name__
    np.testing.assert_array_equal(ay.detach().numpy(), ty.detach().numpy())
    w = [0.5, 1.0, 2.0, 3.0, -1.0, 4.0, 5.0]
    ty.backward(torch.tensor(w, dtype=tx.dtype))
    ay.backward(af.tensor(w, dtype=ax.dtype))
    np.testing.assert_array_equal(ax.grad.numpy(), tx.grad.numpy())


def test_relu_double_backward_through_the_gradient_as_torch(backend):
    # d/dv of <relu'(x) v, u> is relu'(x) u: the backward is recorded with create_graph.
    data, u = [-1.0, 0.0, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0]
    out = []
    for m in (torch, af):
        x = m.tensor(data, requires_grad=True)
        v = m.tensor([1.0, 1.0, 1.0, 1.0], requires_grad=True)
        (g,) = m.autograd.grad(m.relu(x), x, grad_outputs=v, create_graph=True)
        (gv,) = m.autograd.grad((g * m.tensor(u)).sum(), v)
        out.append((g.detach().numpy(), gv.numpy()))
    np.testing.assert_array_equal(out[1][0], out[0][0])
    np.testing.assert_array_equal(out[1][1], out[0][1])


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_relu_of_bool_raises_as_torch(backend, entry):
    fn = ENTRY_POINTS[entry]
    with pytest.raises(RuntimeError, match="Boolean inputs not supported for relu"):
        fn(torch, torch.tensor([True, False]))
    x = af.tensor([True, False])
    with pytest.raises(RuntimeError, match="Boolean inputs not supported for relu"):
        fn(af, x)
    np.testing.assert_array_equal(x.numpy(), [True, False])


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_relu_of_complex_raises_as_torch(backend, entry):
    fn = ENTRY_POINTS[entry]
    with pytest.raises(NotImplementedError, match="clamp is not supported for complex"):
        fn(torch, torch.tensor([1 + 1j, -1 + 0j]))
    x = af.tensor([1 + 1j, -1 + 0j])
    with pytest.raises(NotImplementedError, match="clamp is not supported for complex"):
        fn(af, x)
    np.testing.assert_array_equal(x.numpy(), [1 + 1j, -1 + 0j])


def test_relu_stays_lazy_on_dask():
    from conftest import forbid_compute, on_backend, require_backend

    require_backend("dask")
    with on_backend("dask"):
        x = af.tensor([-1, 0, 4], dtype=af.int64)
        with forbid_compute("dask"):
            y = af.relu(x)
            assert y.dtype is af.int64
        np.testing.assert_array_equal(y.numpy(), [0, 0, 4])
