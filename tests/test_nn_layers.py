"""arrayflow.nn layers, losses and init against PyTorch: reprs, defaults, initialization,
training-mode behaviour, and an MLP's loss and gradients, on every backend.

``tests/data/nn_layers.json`` holds float64 values produced with PyTorch 2.13 (CPU) by
``tests/data/generate.py`` (the same models, built with ``torch.nn``); PyTorch is not
needed to run the tests. The expected reprs are PyTorch's strings for the same constructors.
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
from arrayflow import nn
from arrayflow.nn import functional as F
from arrayflow.nn import init

RTOL, ATOL = 1e-10, 1e-12


def _x(*shape, scale=2.0, phase=0.3):
    n = math.prod(shape)
    return scale * np.sin(np.arange(n) * 1.7 + phase).reshape(shape)


@functools.cache
def torch_reference():
    """PyTorch 2.13's values (``tests/data/nn_layers.json``, from ``tests/data/generate.py``)."""
    return json.loads((Path(__file__).parent / "data" / "nn_layers.json").read_text())["ref"]


# --- reprs: PyTorch's strings ---------------------------------------------------------------

REPRS = {
    "Linear(in_features=4, out_features=3, bias=True)": lambda: nn.Linear(4, 3),
    "Linear(in_features=4, out_features=3, bias=False)": lambda: nn.Linear(4, 3, bias=False),
    "ReLU()": nn.ReLU,
    "ReLU(inplace=True)": lambda: nn.ReLU(inplace=True),
    "Tanh()": nn.Tanh,
    "Sigmoid()": nn.Sigmoid,
    "SiLU()": nn.SiLU,
    "Softmax(dim=1)": lambda: nn.Softmax(dim=1),
    "LogSoftmax(dim=-1)": lambda: nn.LogSoftmax(dim=-1),
    "Identity()": nn.Identity,
    "Flatten(start_dim=1, end_dim=-1)": nn.Flatten,
    "Unflatten(dim=1, unflattened_size=(2, 3))": lambda: nn.Unflatten(1, (2, 3)),
    "Dropout(p=0.2, inplace=False)": lambda: nn.Dropout(0.2),
    "MSELoss()": nn.MSELoss,
    "L1Loss()": nn.L1Loss,
    "CrossEntropyLoss()": lambda: nn.CrossEntropyLoss(label_smoothing=0.1),
    "NLLLoss()": nn.NLLLoss,
    "BCEWithLogitsLoss()": nn.BCEWithLogitsLoss,
    "GELU(approximate='none')": nn.GELU,
    "GELU(approximate='tanh')": lambda: nn.GELU("tanh"),
    "LeakyReLU(negative_slope=0.01)": nn.LeakyReLU,
    "ELU(alpha=0.5)": lambda: nn.ELU(alpha=0.5),
    "Softplus(beta=1.0, threshold=20.0)": nn.Softplus,
    "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)": lambda: nn.LayerNorm(4),
    "LayerNorm((3, 4), eps=0.001, elementwise_affine=False, bias=False)":
        lambda: nn.LayerNorm((3, 4), eps=1e-3, elementwise_affine=False),
    "Embedding(10, 3)": lambda: nn.Embedding(10, 3),
    "Embedding(10, 3, padding_idx=0)": lambda: nn.Embedding(10, 3, padding_idx=0),
    "BatchNorm1d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)":
        lambda: nn.BatchNorm1d(4),
    "BatchNorm2d(4, eps=1e-05, momentum=None, affine=False, bias=False, "
    "track_running_stats=True)": lambda: nn.BatchNorm2d(4, momentum=None, affine=False),
    "Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1))": lambda: nn.Conv2d(3, 8, 3),
    "Conv2d(4, 8, kernel_size=(3, 5), stride=(2, 2), padding=(1, 1), dilation=(2, 2), "
    "groups=2, bias=False)": lambda: nn.Conv2d(4, 8, (3, 5), stride=2, padding=1, dilation=2,
                                               groups=2, bias=False),
    "Conv2d(2, 2, kernel_size=(3, 3), stride=(1, 1), padding=same)":
        lambda: nn.Conv2d(2, 2, 3, padding="same"),
    "Conv1d(3, 8, kernel_size=(3,), stride=(1,), padding=(1,))": lambda: nn.Conv1d(3, 8, 3,
                                                                                  padding=1),
    "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)":
        lambda: nn.MaxPool2d(2),
    "AvgPool2d(kernel_size=3, stride=2, padding=1)": lambda: nn.AvgPool2d(3, stride=2, padding=1),
    "Bilinear(in1_features=3, in2_features=4, out_features=5, bias=True)":
        lambda: nn.Bilinear(3, 4, 5),
}


@pytest.mark.parametrize(("expected", "make"), list(REPRS.items()), ids=list(REPRS))
def test_repr_matches_pytorch(expected, make):
    assert repr(make()) == expected


def test_sequential_repr_nests_layers():
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Dropout(0.1))
    assert repr(model) == ("Sequential(\n  (0): Linear(in_features=4, out_features=3, bias=True)"
                           "\n  (1): ReLU()\n  (2): Dropout(p=0.1, inplace=False)\n)")


# --- parameters, buffers, state_dict keys ---------------------------------------------------

def test_parameter_shapes_and_state_dict_keys(backend):
    """Shapes and state_dict keys are PyTorch's; everything lives on the current backend."""
    lin = nn.Linear(4, 3)
    assert tuple(lin.weight.shape) == (3, 4) and tuple(lin.bias.shape) == (3,)
    assert lin.weight.backend.name == backend and lin.weight.dtype == af.float32
    assert nn.Linear(4, 3, bias=False).bias is None
    assert list(nn.Linear(4, 3, bias=False).state_dict()) == ["weight"]
    bn = nn.BatchNorm1d(4)
    assert list(bn.state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                     "num_batches_tracked"]
    assert [n for n, _ in bn.named_parameters()] == ["weight", "bias"]
    assert list(nn.Embedding(3, 2).state_dict()) == ["weight"]
    conv = nn.Conv2d(4, 6, (3, 2), groups=2)
    assert list(conv.state_dict()) == ["weight", "bias"]
    assert tuple(conv.weight.shape) == (6, 2, 3, 2)
    ln = nn.LayerNorm((3, 4))
    np.testing.assert_array_equal(ln.weight.detach().numpy(), np.ones((3, 4)))
    np.testing.assert_array_equal(ln.bias.detach().numpy(), np.zeros((3, 4)))
    assert tuple(nn.Bilinear(3, 4, 5).weight.shape) == (5, 3, 4)
    assert nn.Linear(2, 2, dtype=af.float64).weight.dtype == af.float64


# --- initialization -------------------------------------------------------------------------

def test_linear_default_init_is_pytorchs(backend):
    """kaiming_uniform_(a=sqrt(5)) gives U(+-1/sqrt(in)); bias U(+-1/sqrt(in)); seeded."""
    af.manual_seed(3)
    lin = nn.Linear(64, 300)
    bound = 1 / math.sqrt(64)
    w = lin.weight.detach().numpy()
    b = lin.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.99 * bound
    assert np.abs(b).max() <= bound and np.abs(b).max() > 0.9 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.02 * bound
    af.manual_seed(3)
    np.testing.assert_array_equal(nn.Linear(64, 300).weight.detach().numpy(), w)
    assert not np.array_equal(nn.Linear(64, 300).weight.detach().numpy(), w)


def test_conv_default_init_uses_receptive_field(backend):
    conv = nn.Conv2d(4, 50, 3)
    bound = 1 / math.sqrt(4 * 9)
    w = conv.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.98 * bound
    assert np.abs(conv.bias.detach().numpy()).max() <= bound


GAIN_ARGS = [("linear",), ("sigmoid",), ("tanh",), ("relu",), ("leaky_relu",),
             ("leaky_relu", 0.2), ("selu",), ("conv2d",)]


def test_calculate_gain_matches_pytorch():
    got = [init.calculate_gain(n, *a) for n, *a in GAIN_ARGS]
    # torch.nn.init.calculate_gain for the same arguments, exactly
    assert got == torch_reference()["calculate_gain"]
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        init.calculate_gain("swish")


@pytest.mark.parametrize(("fill", "shape", "kind", "scale"), [
    # scale: the uniform bound or the normal std PyTorch uses for this shape
    (lambda t: init.xavier_uniform_(t), (300, 200), "uniform", math.sqrt(6 / 500)),
    (lambda t: init.xavier_uniform_(t, gain=2.0), (300, 200), "uniform", 2 * math.sqrt(6 / 500)),
    (lambda t: init.xavier_normal_(t), (300, 200), "normal", math.sqrt(2 / 500)),
    (lambda t: init.kaiming_uniform_(t, nonlinearity="relu"), (64, 16, 3, 3), "uniform",
     math.sqrt(2) * math.sqrt(3 / 144)),
    (lambda t: init.kaiming_uniform_(t, a=math.sqrt(5)), (200, 100), "uniform", 0.1),
    (lambda t: init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu"), (64, 16, 3, 3),
     "normal", math.sqrt(2) / math.sqrt(64 * 9)),
    (lambda t: init.kaiming_normal_(t, a=0.2), (300, 200), "normal",
     math.sqrt(2 / 1.04) / math.sqrt(200)),
    (lambda t: init.uniform_(t, -0.3, 0.3), (100, 100), "uniform", 0.3),
    (lambda t: init.normal_(t, 0.0, 0.05), (100, 100), "normal", 0.05),
], ids=["xavier_uniform", "xavier_uniform-gain", "xavier_normal", "kaiming_uniform-relu",
        "kaiming_uniform-a", "kaiming_normal-fan_out", "kaiming_normal-a", "uniform", "normal"])
def test_initializer_scales(fill, shape, kind, scale, backend):
    t = af.zeros(shape, dtype=af.float64)
    assert fill(t) is t
    v = t.numpy()
    if kind == "uniform":
        assert np.abs(v).max() <= scale and np.abs(v).max() > 0.99 * scale
        assert abs(v.std() - scale / math.sqrt(3)) < 0.03 * scale
    else:
        assert abs(v.std() - scale) < 0.03 * scale
        assert abs(v.mean()) < 0.05 * scale


def test_constant_initializers_and_errors(backend):
    p = nn.Parameter(af.zeros((2, 3)))
    init.ones_(p)
    np.testing.assert_array_equal(p.detach().numpy(), 1.0)
    assert p.requires_grad and p.grad is None
    init.constant_(p, 0.25)
    np.testing.assert_array_equal(p.detach().numpy(), 0.25)
    init.zeros_(p)
    np.testing.assert_array_equal(p.detach().numpy(), 0.0)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(af.zeros((3,)))
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_uniform_(af.zeros((3, 3)), mode="fan_avg")


# --- behaviour --------------------------------------------------------------------------------

def test_dropout_module_respects_training(backend):
    d = nn.Dropout(0.5)
    x = af.ones((50, 40))
    y = d(x).numpy()
    assert set(np.unique(y).tolist()) == {0.0, 2.0}
    d.eval()
    assert d(x) is x
    with pytest.raises(ValueError):
        nn.Dropout(-0.1)


def test_embedding_padding_row(backend):
    emb = nn.Embedding(5, 3, padding_idx=-1)
    assert emb.padding_idx == 4
    np.testing.assert_array_equal(emb.weight.detach().numpy()[4], 0.0)
    out = emb(af.asarray(np.array([[4, 1], [1, 0]], dtype=np.int64)))
    assert tuple(out.shape) == (2, 2, 3)
    out.sum().backward()
    np.testing.assert_array_equal(emb.weight.grad.numpy()[:, 0], [1.0, 2.0, 0.0, 0.0, 0.0])


def test_flatten_unflatten(backend):
    x = af.zeros((2, 3, 4, 5))
    assert tuple(nn.Flatten()(x).shape) == (2, 60)
    assert tuple(nn.Flatten(0, 2)(x).shape) == (24, 5)
    assert tuple(nn.Unflatten(1, (3, 20))(nn.Flatten()(x)).shape) == (2, 3, 20)


def test_layers_call_functional(backend):
    """Conv/pool/norm modules equal the functional call with their parameters."""
    x = af.asarray(_x(2, 4, 6, 5))
    conv = nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2)
    np.testing.assert_allclose(
        conv(x).detach().numpy(),
        F.conv2d(x, conv.weight, conv.bias, stride=2, padding=1, groups=2).detach().numpy())
    assert tuple(conv(x).shape) == (2, 6, 3, 3)
    assert tuple(nn.MaxPool2d(2)(x).shape) == (2, 4, 3, 2)
    assert tuple(nn.AvgPool2d(3, stride=2, padding=1)(x).shape) == (2, 4, 3, 3)
    c1 = nn.Conv1d(4, 2, 3, padding=1)
    assert tuple(c1(af.asarray(_x(2, 4, 7))).shape) == (2, 2, 7)
    bil = nn.Bilinear(3, 4, 5)
    assert tuple(bil(af.asarray(_x(6, 3)), af.asarray(_x(6, 4))).shape) == (6, 5)
    with pytest.raises(ValueError, match="expected 2D or 3D input"):
        nn.BatchNorm1d(4)(x)


def _set(param, values):
    with af.no_grad():
        param[...] = af.asarray(values, dtype=param.dtype)


def _mlp():
    model = nn.Sequential(nn.Linear(4, 5, dtype=af.float64), nn.Tanh(),
                          nn.Linear(5, 6, dtype=af.float64), nn.GELU(),
                          nn.Linear(6, 3, dtype=af.float64))
    for i, layer in enumerate([model[0], model[2], model[4]]):
        _set(layer.weight, _x(*layer.weight.shape, phase=0.1 * i, scale=0.8))
        _set(layer.bias, _x(*layer.bias.shape, phase=1.0 + i, scale=0.3))
    return model


MLP_X = _x(6, 4)
MLP_T = np.array([0, 2, 1, 1, 0, 2], dtype=np.int64)


def test_mlp_loss_and_gradients_match_pytorch(backend):
    """An MLP classifier's loss and every parameter gradient equal PyTorch's (float64)."""
    model = _mlp()
    x, t = af.asarray(MLP_X), af.asarray(MLP_T)
    with forbid_compute(backend):
        losses = {
            "ce": nn.CrossEntropyLoss(label_smoothing=0.1)(model(x), t),
            "nll": nn.NLLLoss()(nn.LogSoftmax(dim=1)(model(x)), t),
            "mse": nn.MSELoss()(nn.Softmax(dim=1)(model(x)), af.asarray(_x(6, 3))),
            "l1": nn.L1Loss(reduction="sum")(model(x), af.asarray(_x(6, 3))),
            "bce": nn.BCEWithLogitsLoss()(model(x), af.asarray(np.abs(_x(6, 3, scale=1.0)))),
        }
    for name, loss in losses.items():
        model.zero_grad()
        with forbid_compute(backend):
            loss.backward(retain_graph=True)
        ref = torch_reference()["mlp"][name]
        np.testing.assert_allclose(loss.detach().numpy(), ref["loss"], rtol=RTOL, atol=ATOL)
        for pname, p in model.named_parameters():
            np.testing.assert_allclose(p.grad.numpy(), np.asarray(ref["grads"][pname]),
                                       rtol=RTOL, atol=ATOL, err_msg=f"{name}: {pname}")


def test_batchnorm_running_stats_match_pytorch(backend):
    """Two training steps update running stats as PyTorch; eval then uses them."""
    for key, make, shape in [("bn1d", lambda: nn.BatchNorm1d(3, dtype=af.float64), (4, 3)),
                             ("bn1d-3d", lambda: nn.BatchNorm1d(3, momentum=0.3,
                                                                dtype=af.float64), (2, 3, 4)),
                             ("bn2d-cma", lambda: nn.BatchNorm2d(2, momentum=None,
                                                                 dtype=af.float64), (2, 2, 3, 2))]:
        ref = torch_reference()[key]
        bn = make()
        _set(bn.weight, _x(*bn.weight.shape, phase=1.0))
        _set(bn.bias, _x(*bn.bias.shape, phase=2.0))
        x1 = af.asarray(_x(*shape), requires_grad=True)
        y1 = bn(x1)
        bn(af.asarray(_x(*shape, phase=0.9, scale=3.0)))
        np.testing.assert_allclose(y1.detach().numpy(), ref["train_out"], rtol=RTOL, atol=ATOL)
        y1.sum().backward()  # constant sum under batch norm: only the bias matters
        np.testing.assert_allclose(x1.grad.numpy(), 0.0, atol=1e-12)
        np.testing.assert_allclose(bn.running_mean.numpy(), ref["running_mean"], rtol=RTOL)
        np.testing.assert_allclose(bn.running_var.numpy(), ref["running_var"], rtol=RTOL)
        assert int(bn.num_batches_tracked.numpy()) == 2
        bn.eval()
        np.testing.assert_allclose(bn(af.asarray(_x(*shape, phase=2.5))).detach().numpy(),
                                   ref["eval_out"], rtol=RTOL, atol=ATOL)
