"""``arrayflow.nn.functional`` and every ``arrayflow.nn`` layer and loss against live PyTorch.

Functional: the cases of ``tests/test_nn_functional.py`` (written once for both libraries) plus
the ones below, run through ``torch.nn.functional`` and ``arrayflow.nn.functional`` on float32
and float64: outputs, dtypes and the gradients of every differentiable input. Layers: each
layer is built in both libraries with the same constructor arguments, arrayflow's parameters
and buffers are copied into torch's, and outputs, input and parameter gradients and the
buffers after the call are compared, in training and eval mode.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_nn_functional import CASES as FUNCTIONAL_CASES
from test_nn_functional import Case, _idx, _x

import arrayflow as af
from arrayflow import nn
from arrayflow.nn import functional as AF
from arrayflow.testing.oracle import oracle_tolerance

torch = pytest.importorskip("torch")
TF = torch.nn.functional

P = np.abs(_x(4, 3, phase=0.5)) / np.abs(_x(4, 3, phase=0.5)).sum(axis=1, keepdims=True)
EXTRA = [
    Case("relu-0d", lambda F, x: F.relu(x), {"x": np.asarray(0.7)}),
    Case("softmax-dim-negative-3d", lambda F, x: F.softmax(x, dim=-2), {"x": _x(2, 3, 4)}),
    Case("log_softmax-dim0-3d", lambda F, x: F.log_softmax(x, dim=0), {"x": _x(2, 3, 4)}),
    Case("softplus-default", lambda F, x: F.softplus(x), {"x": _x(3, 4, scale=30.0)}),
    Case("leaky_relu-default", lambda F, x: F.leaky_relu(x), {"x": _x(3, 4)}),
    Case("elu-default", lambda F, x: F.elu(x), {"x": _x(3, 4)}),
    Case("hardtanh-default", lambda F, x: F.hardtanh(x), {"x": _x(3, 4)}),
    Case("dropout-eval", lambda F, x: F.dropout(x, 0.4, training=False), {"x": _x(3, 4)}),
    Case("dropout-p0", lambda F, x: F.dropout(x, 0.0), {"x": _x(3, 4)}),
    Case("one_hot", lambda F, i: F.one_hot(i, 5), {}, {"i": _idx([0, 4], [2, 2])}),
    Case("one_hot-infer", lambda F, i: F.one_hot(i), {}, {"i": _idx(0, 3, 1)}),
    Case("embedding-no-padding", lambda F, w, i: F.embedding(i, w), {"w": _x(5, 3)},
         {"i": _idx(0, 4, 4, 2)}),
    Case("linear-3d-input", lambda F, x, w, b: F.linear(x, w, b),
         {"x": _x(2, 3, 4), "w": _x(5, 4, phase=1.0), "b": _x(5, phase=2.0)}),
    Case("bilinear-nobias", lambda F, x1, x2, w: F.bilinear(x1, x2, w),
         {"x1": _x(3, 2), "x2": _x(3, 4, phase=0.9), "w": _x(5, 2, 4, phase=1.1)}),
    Case("conv1d-groups-dilation", lambda F, x, w: F.conv1d(x, w, groups=2, dilation=2,
                                                           padding=2),
         {"x": _x(2, 4, 9), "w": _x(6, 2, 3, phase=1.0)}),
    Case("conv2d-nobias-stride-tuple", lambda F, x, w: F.conv2d(x, w, stride=(1, 2)),
         {"x": _x(2, 3, 5, 6), "w": _x(2, 3, 2, 3, phase=1.0)}),
    Case("max_pool2d-dilation", lambda F, x: F.max_pool2d(x, 2, dilation=2),
         {"x": _x(1, 2, 6, 7)}),
    Case("max_pool2d-ceil", lambda F, x: F.max_pool2d(x, 2, ceil_mode=True),
         {"x": _x(1, 2, 5, 5)}),
    Case("max_pool2d-indices", lambda F, x: F.max_pool2d(x, 2, return_indices=True)[1],
         {}, {"x": _x(1, 2, 4, 6)}),
    Case("max_pool2d-indices-ceil-pad", lambda F, x: F.max_pool2d(
        x, 3, stride=2, padding=1, ceil_mode=True, return_indices=True)[1],
         {}, {"x": _x(2, 1, 6, 5)}),
    Case("max_pool2d-unbatched-ceil", lambda F, x: F.max_pool2d(x, (2, 3), ceil_mode=True),
         {"x": _x(2, 5, 7)}),
    Case("avg_pool2d-ceil-pad-exclude", lambda F, x: F.avg_pool2d(
        x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
         {"x": _x(1, 2, 6, 5)}),
    Case("avg_pool2d-ceil-pad-include", lambda F, x: F.avg_pool2d(
        x, 3, stride=2, padding=1, ceil_mode=True), {"x": _x(1, 2, 6, 5)}),
    Case("avg_pool2d-ceil-divisor", lambda F, x: F.avg_pool2d(x, 2, ceil_mode=True,
                                                             divisor_override=3),
         {"x": _x(1, 2, 5, 5)}),
    Case("avg_pool2d-stride-tuple", lambda F, x: F.avg_pool2d(x, (2, 3), stride=(1, 2)),
         {"x": _x(2, 1, 5, 7)}),
    Case("batch_norm-train-running", lambda F, x, w, b, m, v: F.batch_norm(
        x, m, v, w, b, training=True, momentum=0.3),
         {"x": _x(5, 3), "w": _x(3, phase=1.0), "b": _x(3, phase=2.0)},
         {"m": np.array([0.1, -0.2, 0.3]), "v": np.array([1.5, 0.5, 2.0])}),
    Case("batch_norm-4d-train", lambda F, x: F.batch_norm(x, None, None, training=True),
         {"x": _x(2, 3, 2, 2)}),
    Case("layer_norm-nobias", lambda F, x, w: F.layer_norm(x, (4,), w),
         {"x": _x(2, 3, 4), "w": _x(4, phase=1.0)}),
    Case("mse_loss-none-target-grad", lambda F, x, t: F.mse_loss(x, t, reduction="none"),
         {"x": _x(3, 4), "t": _x(3, 4, phase=2.0)}),
    Case("mse_loss-broadcast-0d", lambda F, x, t: F.mse_loss(x, t),
         {"x": np.asarray(0.3), "t": np.asarray(-1.2)}),
    Case("l1_loss-sum", lambda F, x, t: F.l1_loss(x, t, reduction="sum"),
         {"x": _x(3, 4), "t": _x(3, 4, phase=2.0)}),
    Case("huber_loss-none", lambda F, x, t: F.huber_loss(x, t, reduction="none", delta=0.5),
         {"x": _x(3, 4), "t": _x(3, 4, phase=2.0)}),
    Case("smooth_l1_loss-sum", lambda F, x, t: F.smooth_l1_loss(x, t, reduction="sum"),
         {"x": _x(3, 4), "t": _x(3, 4, phase=2.0)}),
    Case("smooth_l1_loss-beta0", lambda F, x, t: F.smooth_l1_loss(x, t, beta=0.0),
         {"x": _x(3, 4), "t": _x(3, 4, phase=2.0)}),
    Case("binary_cross_entropy-weight-none",
         lambda F, x, t, w: F.binary_cross_entropy(F.sigmoid(x), t, weight=w, reduction="none"),
         {"x": _x(3, 4)}, {"t": np.abs(_x(3, 4, scale=1.0, phase=1.0)),
                           "w": np.array([0.5, 1.0, 2.0, 1.5])}),
    Case("binary_cross_entropy-sum", lambda F, x, t: F.binary_cross_entropy(
        F.sigmoid(x), t, reduction="sum"),
         {"x": _x(3, 4)}, {"t": np.abs(_x(3, 4, scale=1.0, phase=1.0))}),
    Case("binary_cross_entropy_with_logits-none",
         lambda F, x, t: F.binary_cross_entropy_with_logits(x, t, reduction="none"),
         {"x": _x(3, 4, scale=30.0)}, {"t": np.abs(_x(3, 4, scale=1.0, phase=1.0))}),
    Case("cross_entropy-probs-weight", lambda F, x, p, w: F.cross_entropy(x, p, weight=w),
         {"x": _x(4, 3), "p": P}, {"w": np.array([0.3, 1.5, 0.7])}),
    Case("cross_entropy-probs-none", lambda F, x, p: F.cross_entropy(x, p, reduction="none"),
         {"x": _x(4, 3), "p": P}),
    Case("cross_entropy-3d-weight-ignore", lambda F, x, t, w: F.cross_entropy(
        x, t, weight=w, ignore_index=0, reduction="sum"),
         {"x": _x(2, 3, 4)}, {"t": _idx([0, 1, 2, 2], [1, 0, 0, 2]),
                              "w": np.array([0.3, 1.5, 0.7])}),
    Case("cross_entropy-all-ignored", lambda F, x, t: F.cross_entropy(x, t, ignore_index=1),
         {"x": _x(2, 3)}, {"t": _idx(1, 1)}),
    Case("nll_loss-none", lambda F, x, t: F.nll_loss(x, t, reduction="none"),
         {"x": _x(4, 3)}, {"t": _idx(0, 2, 1, 1)}),
    Case("nll_loss-sum-3d", lambda F, x, t: F.nll_loss(x, t, reduction="sum"),
         {"x": _x(2, 3, 4)}, {"t": _idx([0, 1, 2, 2], [1, 0, 0, 2])}),
]

XFAIL: dict[str, str] = {}
"""Functional cases with a known gap (strict xfails: they flip when implemented)."""

F_CASES = [pytest.param(c, d, id=f"{c.name}-{d}",
                        marks=[pytest.mark.xfail(strict=True, reason=XFAIL[c.name])]
                        if c.name in XFAIL else [])
           for c in FUNCTIONAL_CASES + EXTRA for d in ("float64", "float32")]


def _compare(got, want, where, dtype, scale=1.0):
    assert got.dtype.name == str(want.dtype).removeprefix("torch."), (
        f"{where}: dtype {got.dtype.name}, torch {want.dtype}")
    assert tuple(got.shape) == tuple(want.shape), (
        f"{where}: shape {tuple(got.shape)}, torch {tuple(want.shape)}")
    tol = oracle_tolerance(dtype)
    w = want.detach().numpy()
    if tol is None or w.dtype.kind in "iub":
        np.testing.assert_array_equal(got.detach().numpy(), w, err_msg=where)
    else:
        np.testing.assert_allclose(got.detach().numpy(), w, rtol=tol[0] * 10 * scale,
                                   atol=tol[1] * 10 * scale, err_msg=where)


def _cotangent(shape, dtype):
    return np.random.default_rng(3).uniform(-1, 1, shape).astype(dtype)


DIFFERENCES = {
    "one_hot-infer": "F.one_hot without num_classes raises: arrayflow never reads values "
                     "(docs/pytorch-differences.md)",
}
"""Case names where arrayflow deliberately differs (skipped with the reason)."""


@pytest.mark.parametrize(("case", "dtype"), F_CASES)
def test_functional_matches_torch(case, dtype, backend):
    if backend == "dask" and dtype == "float32":
        pytest.skip("Dask runs the float64 cases (the float32 ones on numpy and strict)")
    if case.name in DIFFERENCES:
        pytest.skip(f"deliberate difference: {DIFFERENCES[case.name]}")
    def cast(v):
        v = np.asarray(v)
        return v.astype(dtype) if v.dtype.kind == "f" else v

    t_grads = {k: torch.from_numpy(cast(v)).requires_grad_() for k, v in case.grad.items()}
    t_const = {k: torch.from_numpy(cast(v)) for k, v in case.const.items()}
    a_grads = {k: af.asarray(cast(v), requires_grad=True) for k, v in case.grad.items()}
    a_const = {k: af.asarray(cast(v)) for k, v in case.const.items()}
    want = case.fn(TF, **t_grads, **t_const)
    got = case.fn(AF, **a_grads, **a_const)
    _compare(got, want, f"{case.name} output", dtype)
    # buffers updated in place (batch_norm running stats) agree as well
    for k in t_const:
        _compare(a_const[k], t_const[k], f"{case.name} {k} after the call", dtype)
    if not t_grads or not want.requires_grad:
        return
    w = _cotangent(tuple(want.shape), str(want.dtype).removeprefix("torch."))
    t_gs = torch.autograd.grad(want, list(t_grads.values()), torch.from_numpy(w),
                               allow_unused=True)
    a_gs = af.autograd.grad(got, list(a_grads.values()), af.asarray(w), allow_unused=True)
    for name, a, t in zip(t_grads, a_gs, t_gs):
        if t is None:
            assert a is None or not np.any(a.numpy()), f"{case.name}: d/d{name} should be 0"
            continue
        assert a is not None, f"{case.name}: no gradient for {name}"
        _compare(a, t, f"{case.name} d/d{name}", dtype)


# --- layers -----------------------------------------------------------------------------------

LAYERS = [
    # (id, constructor args, kwargs, input shapes, integer input (high) or None, target maker)
    ("Linear", (4, 3), {}, [(5, 4)]),
    ("Linear-nobias", (4, 3), {"bias": False}, [(2, 5, 4)]),
    ("Bilinear", (3, 2, 4), {}, [(5, 3), (5, 2)]),
    ("Conv1d", (3, 4, 3), {"stride": 2, "padding": 1}, [(2, 3, 8)]),
    ("Conv1d-groups", (4, 6, 3), {"groups": 2, "dilation": 2, "bias": False}, [(2, 4, 9)]),
    ("Conv2d", (3, 4, 3), {"padding": 1}, [(2, 3, 5, 6)]),
    ("Conv2d-stride-groups", (4, 2, (2, 3)), {"stride": (2, 1), "groups": 2}, [(1, 4, 6, 7)]),
    ("Conv2d-same", (2, 3, 3), {"padding": "same"}, [(1, 2, 4, 5)]),
    ("BatchNorm1d", (3,), {"momentum": 0.2}, [(6, 3)]),
    ("BatchNorm1d-3d", (3,), {"affine": False}, [(4, 3, 5)]),
    ("BatchNorm1d-no-stats", (3,), {"track_running_stats": False}, [(6, 3)]),
    ("BatchNorm2d", (2,), {"eps": 1e-3}, [(3, 2, 4, 4)]),
    ("LayerNorm", ((4,),), {}, [(3, 4)]),
    ("LayerNorm-2d-nobias", ((3, 4),), {"bias": False}, [(2, 3, 4)]),
    ("LayerNorm-no-affine", (4,), {"elementwise_affine": False}, [(2, 4)]),
    ("Embedding", (7, 3), {"padding_idx": 2}, [("int", (2, 4), 7)]),
    ("MaxPool2d", (2,), {}, [(2, 3, 4, 6)]),
    ("MaxPool2d-pad", (3,), {"stride": 2, "padding": 1}, [(1, 2, 5, 6)]),
    ("MaxPool2d-ceil", (3,), {"stride": 2, "ceil_mode": True}, [(2, 1, 6, 7)]),
    ("AvgPool2d", (2,), {}, [(2, 3, 4, 6)]),
    ("AvgPool2d-ceil-pad", (3,), {"stride": 2, "padding": 1, "ceil_mode": True},
     [(1, 2, 6, 5)]),
    ("AvgPool2d-exclude", (3,), {"stride": 2, "padding": 1, "count_include_pad": False},
     [(1, 2, 5, 6)]),
    ("Dropout-p0", (0.0,), {}, [(3, 4)]),
    ("ELU", (0.7,), {}, [(3, 4)]),
    ("GELU", (), {}, [(3, 4)]),
    ("GELU-tanh", (), {"approximate": "tanh"}, [(3, 4)]),
    ("LeakyReLU", (0.1,), {}, [(3, 4)]),
    ("LogSigmoid", (), {}, [(3, 4)]),
    ("LogSoftmax", (), {"dim": 1}, [(3, 4)]),
    ("ReLU", (), {}, [(3, 4)]),
    ("ReLU6", (), {}, [(3, 4)]),
    ("SELU", (), {}, [(3, 4)]),
    ("SiLU", (), {}, [(3, 4)]),
    ("Sigmoid", (), {}, [(3, 4)]),
    ("Softmax", (), {"dim": -1}, [(3, 4)]),
    ("Softplus", (), {"beta": 2.0, "threshold": 1.0}, [(3, 4)]),
    ("Tanh", (), {}, [(3, 4)]),
    ("Identity", (), {}, [(3, 4)]),
    ("Flatten", (), {}, [(2, 3, 4)]),
    ("Unflatten", (1, (2, 2)), {}, [(3, 4)]),
    # losses: (input, target)
    ("MSELoss", (), {}, [(3, 4), (3, 4)]),
    ("L1Loss", (), {"reduction": "sum"}, [(3, 4), (3, 4)]),
    ("HuberLoss", (), {"delta": 0.5}, [(3, 4), (3, 4)]),
    ("SmoothL1Loss", (), {"beta": 0.5, "reduction": "none"}, [(3, 4), (3, 4)]),
    ("BCELoss", (), {}, [("prob", (3, 4)), ("prob", (3, 4))]),
    ("BCEWithLogitsLoss", (), {}, [(3, 4), ("prob", (3, 4))]),
    ("BCEWithLogitsLoss-pos-weight", (), {"pos_weight": ("const", (4,))},
     [(3, 4), ("prob", (3, 4))]),
    ("CrossEntropyLoss", (), {"label_smoothing": 0.1}, [(5, 3), ("int", (5,), 3)]),
    ("CrossEntropyLoss-weight", (), {"weight": ("const", (3,)), "ignore_index": 1},
     [(5, 3), ("int", (5,), 3)]),
    ("NLLLoss", (), {"reduction": "sum"}, [(5, 3), ("int", (5,), 3)]),
]

_FIXED = {"target"}


def _make(spec, rng, dtype):
    if isinstance(spec, tuple) and spec and spec[0] == "int":
        return rng.integers(0, spec[2], spec[1]).astype(np.int64), False
    if isinstance(spec, tuple) and spec and spec[0] == "prob":
        return rng.uniform(0.05, 0.95, spec[1]).astype(dtype), True
    return rng.uniform(-2, 2, spec).astype(dtype), True


def _kwargs(kwargs, rng, dtype, lib):
    out = {}
    for k, v in kwargs.items():
        if isinstance(v, tuple) and v and v[0] == "const":
            a = rng.uniform(0.5, 2.0, v[1]).astype(dtype)
            out[k] = torch.from_numpy(a) if lib is torch else af.asarray(a)
        else:
            out[k] = v
    return out


def _copy_state(a_mod, t_mod):
    """arrayflow's parameters and buffers into torch's module (same names)."""
    t_state = t_mod.state_dict()
    a_state = a_mod.state_dict()
    assert sorted(a_state) == sorted(t_state), (
        f"state_dict keys differ: {sorted(a_state)} vs torch {sorted(t_state)}")
    with torch.no_grad():
        for k, v in a_state.items():
            t_state[k].copy_(torch.from_numpy(np.array(v.numpy())))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode", ["train", "eval"])
@pytest.mark.parametrize(("name", "args", "kwargs", "inputs"), LAYERS, ids=[c[0] for c in LAYERS])
def test_layer_matches_torch(name, args, kwargs, inputs, mode, dtype, backend):
    if backend == "dask" and dtype == "float32":
        pytest.skip("Dask runs the float64 cases (the float32 ones on numpy and strict)")
    cls = name.split("-")[0]
    rng = np.random.default_rng(0)
    a_kw = _kwargs(kwargs, np.random.default_rng(1), dtype, af)
    t_kw = _kwargs(kwargs, np.random.default_rng(1), dtype, torch)
    af.manual_seed(0)
    a_mod = getattr(nn, cls)(*args, **a_kw)
    t_mod = getattr(torch.nn, cls)(*args, **t_kw)
    if dtype == "float64":  # Module.double(): parameters and floating buffers
        a_mod, t_mod = a_mod.double(), t_mod.double()
    _copy_state(a_mod, t_mod)
    a_mod.train(mode == "train")
    t_mod.train(mode == "train")
    arrays = [_make(s, rng, dtype) for s in inputs]
    a_in = [af.asarray(a, requires_grad=g) for a, g in arrays]
    t_in = [torch.from_numpy(a.copy()).requires_grad_(g) for a, g in arrays]
    got = a_mod(*a_in)
    want = t_mod(*t_in)
    _compare(got, want, f"{name} output", dtype)
    for (k, a), (_, t) in zip(sorted(a_mod.state_dict().items()),
                              sorted(t_mod.state_dict().items())):
        _compare(a, t, f"{name} {k} after forward", dtype)
    if not want.requires_grad:
        return
    w = _cotangent(tuple(want.shape), dtype)
    t_leaves = [t for t, (_, g) in zip(t_in, arrays) if g] + list(t_mod.parameters())
    a_leaves = [a for a, (_, g) in zip(a_in, arrays) if g] + list(a_mod.parameters())
    t_gs = torch.autograd.grad(want, t_leaves, torch.from_numpy(w), allow_unused=True)
    a_gs = af.autograd.grad(got, a_leaves, af.asarray(w), allow_unused=True)
    names = [f"input {i}" for i, (_, g) in enumerate(arrays) if g] + [
        n for n, _ in t_mod.named_parameters()]
    assert names[len(names) - len(list(a_mod.named_parameters())):] == [
        n for n, _ in a_mod.named_parameters()]
    for n, a, t in zip(names, a_gs, t_gs):
        if t is None:
            assert a is None or not np.any(a.numpy()), f"{name}: d/d{n} should be 0"
            continue
        assert a is not None, f"{name}: no gradient for {n}"
        _compare(a, t, f"{name} d/d{n}", dtype, scale=10.0)


def test_every_layer_and_function_is_compared():
    """Every public layer class and functional function appears above."""
    layer_names = {c[0].split("-")[0] for c in LAYERS}
    classes = {n for n in dir(nn) if isinstance(getattr(nn, n), type)
               and getattr(nn, n).__module__ == "arrayflow.nn.layers"}
    assert classes - layer_names == set()
    functions = {c.name.split("-")[0] for c in FUNCTIONAL_CASES + EXTRA}
    assert set(AF.__all__) - functions == set()


SMOOTH = {"gelu", "silu", "softplus", "tanh", "sigmoid", "logsigmoid", "softmax", "log_softmax",
          "layer_norm", "batch_norm", "linear", "bilinear", "conv1d", "conv2d", "mse_loss",
          "cross_entropy", "binary_cross_entropy_with_logits", "avg_pool2d", "selu", "elu"}
"""Functions with continuous first derivatives on the cases' inputs (second order compared)."""

SECOND = [pytest.param(c, id=c.name) for c in FUNCTIONAL_CASES + EXTRA
          if c.name.split("-")[0] in SMOOTH and c.grad and c.name not in XFAIL]


@pytest.mark.parametrize("case", SECOND)
def test_functional_second_order_matches_torch(case, backend):
    """Gradient of ``<grad, v>`` (``create_graph=True`` on both sides), float64."""
    t_grads = {k: torch.from_numpy(np.array(v, dtype="float64")).requires_grad_()
               for k, v in case.grad.items()}
    t_const = {k: torch.from_numpy(np.array(v)) for k, v in case.const.items()}
    a_grads = {k: af.asarray(np.array(v, dtype="float64"), requires_grad=True)
               for k, v in case.grad.items()}
    a_const = {k: af.asarray(np.array(v)) for k, v in case.const.items()}
    want = case.fn(TF, **t_grads, **t_const)
    got = case.fn(AF, **a_grads, **a_const)
    w = _cotangent(tuple(want.shape), "float64")
    t_g1 = torch.autograd.grad(want, list(t_grads.values()), torch.from_numpy(w),
                               create_graph=True)
    a_g1 = af.autograd.grad(got, list(a_grads.values()), af.asarray(w), create_graph=True)
    rng = np.random.default_rng(11)
    vs = [rng.uniform(-1, 1, tuple(g.shape)) for g in t_g1]
    t_s = sum((g * torch.from_numpy(v)).sum() for g, v in zip(t_g1, vs) if g.requires_grad)
    a_s = sum((g * af.asarray(v)).sum() for g, v in zip(a_g1, vs) if g.requires_grad)
    n = len(t_grads)  # a library may build no graph where the function is linear
    t_g2 = (torch.autograd.grad(t_s, list(t_grads.values()), allow_unused=True)
            if isinstance(t_s, torch.Tensor) else [None] * n)
    a_g2 = (af.autograd.grad(a_s, list(a_grads.values()), allow_unused=True)
            if isinstance(a_s, af.Tensor) else [None] * n)
    for name, a, t in zip(t_grads, a_g2, t_g2):
        if t is None or a is None:
            other = a if t is None else t
            assert other is None or not np.any(other.detach().numpy()), (
                f"{case.name}: second derivative for {name}: one side none, the other not 0")
            continue
        _compare(a, t, f"{case.name} second order d/d{name}", "float64", scale=10.0)


def test_mlp_training_matches_torch(backend):
    """Layers, a loss and an optimizer together: 10 Adam steps of a float64 MLP on
    cross-entropy, same initial weights; the parameters after every step equal torch's."""
    rng = np.random.default_rng(8)
    x, t = rng.uniform(-1, 1, (16, 5)), rng.integers(0, 3, (16,))

    def build(lib):
        m = lib.nn.Sequential(lib.nn.Linear(5, 8), lib.nn.Tanh(), lib.nn.Linear(8, 8),
                              lib.nn.GELU(), lib.nn.Linear(8, 3)).double()
        return m

    a_mod, t_mod = build(af), build(torch)
    _copy_state(a_mod, t_mod)
    a_opt = af.optim.Adam(a_mod.parameters(), lr=0.05)
    t_opt = torch.optim.Adam(t_mod.parameters(), lr=0.05)
    a_loss, t_loss = af.nn.CrossEntropyLoss(label_smoothing=0.1), torch.nn.CrossEntropyLoss(
        label_smoothing=0.1)
    ax, at = af.asarray(x), af.asarray(t)
    tx, tt = torch.from_numpy(x), torch.from_numpy(t)
    for step in range(10):
        for opt, loss in ((a_opt, a_loss(a_mod(ax), at)), (t_opt, t_loss(t_mod(tx), tt))):
            opt.zero_grad()
            loss.backward()
            opt.step()
        for (k, a), (_, w) in zip(a_mod.state_dict().items(), t_mod.state_dict().items()):
            np.testing.assert_allclose(a.numpy(), w.numpy(), rtol=1e-10, atol=1e-12,
                                       err_msg=f"step {step + 1}: {k}")
