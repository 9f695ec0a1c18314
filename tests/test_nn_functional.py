"""arrayflow.nn.functional against PyTorch: values and gradients, on every backend.

Each case is one call written once for both libraries (``fn(F, **inputs)`` with ``F``
either ``torch.nn.functional`` or ``arrayflow.nn.functional``).
``tests/data/nn_functional.json`` holds PyTorch's float64 output and the gradients of
``sum(output * cotangent)`` with respect to the inputs marked differentiable, produced with
PyTorch 2.13 (CPU) by running this file's ``CASES`` through ``torch`` (the generator is
``tests/data/generate.py``; PyTorch is not needed to run the tests). On Dask, forward and
backward must not compute.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from conftest import forbid_compute

import arrayflow as af
from arrayflow.nn import functional as AF

RTOL, ATOL = 1e-10, 1e-12


def _x(*shape, scale=2.0, phase=0.3):
    """Deterministic inputs: ``scale * sin(1.7 k + phase)``, reshaped."""
    n = math.prod(shape)
    return scale * np.sin(np.arange(n) * 1.7 + phase).reshape(shape)


def _cot(shape):
    n = math.prod(shape)
    return np.cos(np.arange(n) * 0.7 + 0.1).reshape(shape)


def _idx(*values):
    return np.asarray(values, dtype=np.int64)


class Case:
    def __init__(self, name, fn, grad=None, const=None):
        self.name = name
        self.fn = fn
        self.grad = grad or {}     # differentiable inputs
        self.const = const or {}   # other Tensor inputs (targets, running stats)


X34 = _x(3, 4)
T3 = _idx(0, 3, 1)
P34 = np.abs(_x(3, 4, phase=0.5)) / np.abs(_x(3, 4, phase=0.5)).sum(axis=1, keepdims=True)
CASES = [
    Case("relu", lambda F, x: F.relu(x), {"x": X34}),
    Case("relu6", lambda F, x: F.relu6(x), {"x": _x(3, 4, scale=8.0)}),
    Case("leaky_relu", lambda F, x: F.leaky_relu(x, 0.2), {"x": X34}),
    Case("elu", lambda F, x: F.elu(x, 1.3), {"x": X34}),
    Case("selu", lambda F, x: F.selu(x), {"x": X34}),
    Case("hardtanh", lambda F, x: F.hardtanh(x, -0.5, 1.0), {"x": X34}),
    Case("sigmoid", lambda F, x: F.sigmoid(x), {"x": _x(3, 4, scale=40.0)}),
    Case("tanh", lambda F, x: F.tanh(x), {"x": X34}),
    Case("logsigmoid", lambda F, x: F.logsigmoid(x), {"x": _x(3, 4, scale=40.0)}),
    Case("softplus", lambda F, x: F.softplus(x, beta=2.0, threshold=3.0), {"x": X34}),
    Case("silu", lambda F, x: F.silu(x), {"x": X34}),
    Case("gelu", lambda F, x: F.gelu(x), {"x": _x(3, 4, scale=4.0)}),
    Case("gelu-tanh", lambda F, x: F.gelu(x, approximate="tanh"), {"x": X34}),
    Case("softmax", lambda F, x: F.softmax(x, dim=1), {"x": X34}),
    Case("softmax-dim0", lambda F, x: F.softmax(x, dim=0), {"x": X34}),
    Case("softmax-large", lambda F, x: F.softmax(x * 400.0, dim=-1), {"x": X34}),
    Case("log_softmax", lambda F, x: F.log_softmax(x, dim=1), {"x": X34}),
    Case("log_softmax-large", lambda F, x: F.log_softmax(x * 1000.0, dim=1), {"x": X34}),
    Case("linear", lambda F, x, w, b: F.linear(x, w, b),
         {"x": X34, "w": _x(2, 4, phase=1.0), "b": _x(2, phase=2.0)}),
    Case("linear-nobias", lambda F, x, w: F.linear(x, w),
         {"x": _x(2, 3, 4), "w": _x(5, 4, phase=1.0)}),
    Case("bilinear", lambda F, x1, x2, w, b: F.bilinear(x1, x2, w, b),
         {"x1": _x(3, 2), "x2": _x(3, 4, phase=0.9), "w": _x(5, 2, 4, phase=1.1),
          "b": _x(5, phase=0.2)}),
    Case("mse_loss", lambda F, x, t: F.mse_loss(x, t), {"x": X34, "t": _x(3, 4, phase=2.0)}),
    Case("mse_loss-sum", lambda F, x, t: F.mse_loss(x, t, reduction="sum"),
         {"x": X34, "t": _x(3, 4, phase=2.0)}),
    Case("l1_loss", lambda F, x, t: F.l1_loss(x, t), {"x": X34, "t": _x(3, 4, phase=2.0)}),
    Case("l1_loss-none", lambda F, x, t: F.l1_loss(x, t, reduction="none"),
         {"x": X34, "t": _x(3, 4, phase=2.0)}),
    Case("smooth_l1_loss", lambda F, x, t: F.smooth_l1_loss(x, t, beta=0.5),
         {"x": X34, "t": _x(3, 4, phase=2.0)}),
    Case("huber_loss", lambda F, x, t: F.huber_loss(x, t, delta=0.7),
         {"x": X34, "t": _x(3, 4, phase=2.0)}),
    Case("cross_entropy", lambda F, x, t: F.cross_entropy(x, t), {"x": X34}, {"t": T3}),
    Case("cross_entropy-smoothing", lambda F, x, t: F.cross_entropy(x, t, label_smoothing=0.1),
         {"x": X34}, {"t": T3}),
    Case("cross_entropy-weight-ignore",
         lambda F, x, t, w: F.cross_entropy(x, t, weight=w, ignore_index=2),
         {"x": _x(4, 3)}, {"t": _idx(0, 2, 1, 1), "w": np.array([0.3, 1.5, 0.7])}),
    Case("cross_entropy-weight-ignore-smoothing",
         lambda F, x, t, w: F.cross_entropy(x, t, weight=w, ignore_index=-100,
                                            label_smoothing=0.2),
         {"x": _x(4, 3)}, {"t": _idx(0, -100, 2, 1), "w": np.array([0.3, 1.5, 0.7])}),
    Case("cross_entropy-sum-smoothing",
         lambda F, x, t: F.cross_entropy(x, t, reduction="sum", label_smoothing=0.3),
         {"x": X34}, {"t": T3}),
    Case("cross_entropy-none", lambda F, x, t: F.cross_entropy(x, t, reduction="none"),
         {"x": X34}, {"t": T3}),
    Case("cross_entropy-3d", lambda F, x, t: F.cross_entropy(x, t, label_smoothing=0.1),
         {"x": _x(2, 3, 4)}, {"t": _idx([0, 1, 2, 2], [1, 0, 0, 2])}),
    Case("cross_entropy-probs", lambda F, x, p: F.cross_entropy(x, p, label_smoothing=0.1),
         {"x": X34, "p": P34}),
    Case("cross_entropy-large", lambda F, x, t: F.cross_entropy(x * 1000.0, t),
         {"x": X34}, {"t": T3}),
    Case("nll_loss", lambda F, x, t: F.nll_loss(x, t), {"x": X34}, {"t": T3}),
    Case("nll_loss-weight-ignore", lambda F, x, t, w: F.nll_loss(x, t, weight=w, ignore_index=1),
         {"x": _x(4, 3)}, {"t": _idx(0, 2, 1, 1), "w": np.array([0.3, 1.5, 0.7])}),
    Case("binary_cross_entropy_with_logits",
         lambda F, x, t: F.binary_cross_entropy_with_logits(x, t),
         {"x": _x(3, 4, scale=30.0)}, {"t": np.abs(_x(3, 4, scale=1.0, phase=1.0))}),
    Case("binary_cross_entropy_with_logits-pos-weight",
         lambda F, x, t, w, pw: F.binary_cross_entropy_with_logits(
             x, t, weight=w, pos_weight=pw, reduction="sum"),
         {"x": X34}, {"t": np.abs(_x(3, 4, scale=1.0, phase=1.0)),
                      "w": np.array([0.5, 1.0, 2.0, 1.5]), "pw": np.array([3.0, 0.5, 1.0, 2.0])}),
    Case("binary_cross_entropy", lambda F, x, t: F.binary_cross_entropy(F.sigmoid(x), t),
         {"x": X34}, {"t": np.abs(_x(3, 4, scale=1.0, phase=1.0))}),
    Case("layer_norm", lambda F, x, w, b: F.layer_norm(x, (4,), w, b),
         {"x": X34, "w": _x(4, phase=1.0), "b": _x(4, phase=2.0)}),
    Case("layer_norm-2d", lambda F, x: F.layer_norm(x, (3, 4), eps=1e-3), {"x": _x(2, 3, 4)}),
    Case("batch_norm-train", lambda F, x, w, b: F.batch_norm(x, None, None, w, b, training=True),
         {"x": _x(4, 3), "w": _x(3, phase=1.0), "b": _x(3, phase=2.0)}),
    Case("batch_norm-train-3d", lambda F, x: F.batch_norm(x, None, None, training=True),
         {"x": _x(2, 3, 4)}),
    Case("batch_norm-eval", lambda F, x, w, b, m, v: F.batch_norm(x, m, v, w, b, eps=0.1),
         {"x": _x(4, 3), "w": _x(3, phase=1.0), "b": _x(3, phase=2.0)},
         {"m": np.array([0.1, -0.2, 0.3]), "v": np.array([1.5, 0.5, 2.0])}),
    Case("embedding", lambda F, w, i: F.embedding(i, w, padding_idx=1),
         {"w": _x(5, 3)}, {"i": _idx([1, 2, 4], [4, 1, 0])}),
    Case("conv2d", lambda F, x, w, b: F.conv2d(x, w, b, stride=2, padding=1),
         {"x": _x(2, 3, 5, 6), "w": _x(4, 3, 3, 3, phase=1.0), "b": _x(4, phase=2.0)}),
    Case("conv2d-groups-dilation", lambda F, x, w: F.conv2d(x, w, groups=2, dilation=(2, 1)),
         {"x": _x(1, 4, 6, 5), "w": _x(6, 2, 2, 3, phase=1.0)}),
    Case("conv2d-same", lambda F, x, w: F.conv2d(x, w, padding="same"),
         {"x": _x(1, 2, 4, 5), "w": _x(3, 2, 3, 3, phase=1.0)}),
    Case("conv1d", lambda F, x, w, b: F.conv1d(x, w, b, stride=2, padding=1),
         {"x": _x(2, 3, 7), "w": _x(4, 3, 3, phase=1.0), "b": _x(4, phase=2.0)}),
    Case("max_pool2d", lambda F, x: F.max_pool2d(x, 2), {"x": _x(2, 3, 4, 6)}),
    Case("max_pool2d-pad-stride", lambda F, x: F.max_pool2d(x, 3, stride=2, padding=1),
         {"x": _x(1, 2, 5, 6)}),
    Case("avg_pool2d", lambda F, x: F.avg_pool2d(x, 2), {"x": _x(2, 3, 4, 6)}),
    Case("avg_pool2d-pad-exclude", lambda F, x: F.avg_pool2d(x, 3, stride=2, padding=1,
                                                             count_include_pad=False),
         {"x": _x(1, 2, 5, 6)}),
]


@functools.cache
def torch_reference():
    """PyTorch 2.13's outputs and input gradients by case name (``data/nn_functional.json``)."""
    return json.loads((Path(__file__).parent / "data" / "nn_functional.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_matches_pytorch(case, backend):
    """Output and input gradients equal PyTorch's (float64, within 1e-10)."""
    ref = torch_reference()[case.name]
    grads = {k: af.asarray(v, dtype=af.float64, requires_grad=True) for k, v in case.grad.items()}
    const = {k: af.asarray(v) for k, v in case.const.items()}
    expected = np.asarray(ref["out"], dtype=np.float64)
    with forbid_compute(backend):  # lazy backends: forward and backward stay one graph
        out = case.fn(AF, **grads, **const)
        assert out.backend.name == backend
        (out * af.asarray(_cot(expected.shape))).sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=RTOL, atol=ATOL)
    assert tuple(out.shape) == expected.shape
    for k, g in grads.items():
        assert g.grad is not None, f"{case.name}: no gradient for {k}"
        np.testing.assert_allclose(g.grad.numpy(), np.asarray(ref["grads"][k]), rtol=RTOL,
                                   atol=ATOL, err_msg=f"{case.name}: d/d{k}")


def test_every_function_has_a_case():
    """Every public function of the module is exercised against PyTorch here."""
    covered = {c.name.split("-")[0] for c in CASES} | {"dropout", "one_hot"}
    assert set(AF.__all__) <= covered, sorted(set(AF.__all__) - covered)


def test_softmax_rows_sum_to_one_and_gradient_of_sum_is_zero(backend):
    x = af.asarray(_x(3, 4, scale=50.0), requires_grad=True)
    y = AF.softmax(x, dim=1)
    y.sum().backward()
    np.testing.assert_allclose(y.detach().numpy().sum(axis=1), 1.0, rtol=1e-14)
    np.testing.assert_allclose(x.grad.numpy(), 0.0, atol=1e-14)


def test_dropout(backend):
    """Training: zeros with probability p, survivors scaled by 1/(1-p), seeded; else identity."""
    x = af.ones((200, 50), dtype=af.float64)
    assert AF.dropout(x, 0.3, training=False) is x
    assert AF.dropout(x, 0.0) is x
    np.testing.assert_array_equal(AF.dropout(x, 1.0).numpy(), 0.0)
    af.manual_seed(7)
    y = AF.dropout(x, 0.3).numpy()
    af.manual_seed(7)
    y2 = AF.dropout(x, 0.3).numpy()
    np.testing.assert_array_equal(y, y2)
    assert set(np.unique(y).tolist()) == {0.0, 1 / 0.7}
    assert abs((y == 0).mean() - 0.3) < 0.03
    xg = af.asarray(np.ones((4, 5)), requires_grad=True)
    out = AF.dropout(xg, 0.5)
    out.sum().backward()
    np.testing.assert_array_equal(xg.grad.numpy(), out.detach().numpy())
    with pytest.raises(ValueError, match="between 0 and 1"):
        AF.dropout(x, 1.5)


def test_one_hot(backend):
    y = AF.one_hot(af.asarray(_idx(0, 2, 1)), num_classes=4)
    assert y.dtype == af.int64
    np.testing.assert_array_equal(y.numpy(), np.eye(4, dtype=np.int64)[[0, 2, 1]])
    with pytest.raises(ValueError, match="num_classes"):
        AF.one_hot(af.asarray(_idx(0, 1)))


def test_invalid_reduction_raises():
    x = af.zeros((2,))
    with pytest.raises(ValueError, match="reduction"):
        AF.mse_loss(x, x, reduction="avg")


def test_functions_are_overridable():
    """``__arrayflow_function__`` types intercept the functional API (public function passed)."""
    seen = []

    class Tracer:
        @classmethod
        def __arrayflow_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return "intercepted"

    assert AF.cross_entropy(Tracer(), af.asarray(T3)) == "intercepted"
    assert AF.relu(Tracer()) == "intercepted"
    assert seen == [AF.cross_entropy, AF.relu]


def test_gelu_uses_exact_erf():
    """GELU's exact form differs from the tanh approximation (and matches erf's definition)."""
    x = np.linspace(-4, 4, 17)
    exact = AF.gelu(af.asarray(x)).numpy()
    from scipy.special import erf

    np.testing.assert_allclose(exact, 0.5 * x * (1 + erf(x / math.sqrt(2))), rtol=1e-15,
                               atol=1e-16)
    assert np.abs(exact - AF.gelu(af.asarray(x), approximate="tanh").numpy()).max() > 1e-5
