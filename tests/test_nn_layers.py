"""arrayflow.nn layers, losses and init against PyTorch: reprs, defaults, initialization,
training-mode behaviour, and an MLP's loss and gradients, on every backend.

``REF`` (end of file) holds float64 values produced with PyTorch 2.13 (CPU) by running
``_torch_reference()`` below (the same models, built with ``torch.nn``); PyTorch is not
needed to run the tests. The expected reprs are PyTorch's strings for the same constructors.
"""

from __future__ import annotations

import math

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


def test_calculate_gain_matches_pytorch():
    got = [init.calculate_gain(n, *a) for n, *a in
           [("linear",), ("sigmoid",), ("tanh",), ("relu",), ("leaky_relu",),
            ("leaky_relu", 0.2), ("selu",), ("conv2d",)]]
    # torch.nn.init.calculate_gain for the same arguments
    assert got == [1, 1, 1.6666666666666667, 1.4142135623730951, 1.4141428569978354,
                   1.3867504905630728, 0.75, 1]
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
        ref = REF["mlp"][name]
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
        ref = REF[key]
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


def _torch_reference():  # pragma: no cover - used to produce REF with PyTorch
    import torch
    import torch.nn as tnn

    def tx(*shape, **kw):
        return torch.from_numpy(_x(*shape, **kw))

    model = tnn.Sequential(tnn.Linear(4, 5), tnn.Tanh(), tnn.Linear(5, 6), tnn.GELU(),
                           tnn.Linear(6, 3)).double()
    with torch.no_grad():
        for i, layer in enumerate([model[0], model[2], model[4]]):
            layer.weight.copy_(tx(*layer.weight.shape, phase=0.1 * i, scale=0.8))
            layer.bias.copy_(tx(*layer.bias.shape, phase=1.0 + i, scale=0.3))
    x, t = torch.from_numpy(MLP_X), torch.from_numpy(MLP_T)
    losses = {
        "ce": tnn.CrossEntropyLoss(label_smoothing=0.1)(model(x), t),
        "nll": tnn.NLLLoss()(tnn.LogSoftmax(dim=1)(model(x)), t),
        "mse": tnn.MSELoss()(tnn.Softmax(dim=1)(model(x)), tx(6, 3)),
        "l1": tnn.L1Loss(reduction="sum")(model(x), tx(6, 3)),
        "bce": tnn.BCEWithLogitsLoss()(model(x), torch.from_numpy(np.abs(_x(6, 3, scale=1.0)))),
    }
    ref = {"mlp": {}}
    for name, loss in losses.items():
        model.zero_grad()
        loss.backward(retain_graph=True)
        ref["mlp"][name] = {"loss": loss.item(), "grads": {
            n: p.grad.numpy().tolist() for n, p in model.named_parameters()}}
    for key, make, shape in [("bn1d", lambda: tnn.BatchNorm1d(3), (4, 3)),
                             ("bn1d-3d", lambda: tnn.BatchNorm1d(3, momentum=0.3), (2, 3, 4)),
                             ("bn2d-cma", lambda: tnn.BatchNorm2d(2, momentum=None),
                              (2, 2, 3, 2))]:
        bn = make().double()
        with torch.no_grad():
            bn.weight.copy_(tx(*bn.weight.shape, phase=1.0))
            bn.bias.copy_(tx(*bn.bias.shape, phase=2.0))
        y1 = bn(tx(*shape))
        bn(tx(*shape, phase=0.9, scale=3.0))
        entry = {"train_out": y1.detach().numpy().tolist(),
                 "running_mean": bn.running_mean.numpy().tolist(),
                 "running_var": bn.running_var.numpy().tolist()}
        bn.eval()
        entry["eval_out"] = bn(tx(*shape, phase=2.5)).detach().numpy().tolist()
        ref[key] = entry
    return ref


# --- reference values (generated: see module docstring) -------------------------------------
REF: dict = {'mlp': {'ce': {'loss': 1.1308754540474448,
                'grads': {'0.weight': [[0.19225142656296548, -0.03070331174399724,
                                        -0.184339521213259, 0.0782055765228005],
                                       [0.01885353828308139, -0.01952281927453947,
                                        -0.013822722729779528, 0.02308478271435073],
                                       [-0.024111535528175777, 0.022320784649079113,
                                        0.018359715107395966, -0.027051881065923843],
                                       [-0.003894195502860342, -0.14715835361063487,
                                        0.04181528280750873, 0.13638301567631927],
                                       [0.020831753099646563, 0.08395430341892263,
                                        -0.04246585263553478, -0.07301132080361515]],
                          '0.bias': [0.09993364509729279, 0.0115788382254506,
                                     -0.027669210412020792, -0.004830259726890943,
                                     0.04449092084847624],
                          '2.weight': [[0.009602182482609245, 0.1847135670024911,
                                        0.21366302613043542, 0.1993559911541249,
                                        0.1878374520730541],
                                       [-0.05235056434093503, -0.03961334711704121,
                                        -0.06737580176400332, 0.07957532597306013,
                                        0.12709772719085768],
                                       [0.07434272222640559, -0.047830907831215214,
                                        -0.08220234543511377, -0.08953034023442273,
                                        -0.09356188750548247],
                                       [0.07008125591391363, 0.04851624806842147,
                                        0.030358652454213597, -0.05048430019840096,
                                        -0.11846761154366482],
                                       [-0.0006455286070909176, 0.15462775995627273,
                                        0.16449625011940763, 0.15327813943586246,
                                        0.17302923734917136],
                                       [-0.005828648053510251, -0.02245798802735051,
                                        -0.05130788066865528, -0.06313479546116625,
                                        -0.025374471662863676]],
                          '2.bias': [0.20298770637027258, 0.08825087650522988,
                                     -0.08845050757339848, -0.03172025493526876,
                                     0.14210541211987754, -0.08339936878486337],
                          '4.weight': [[0.013341360306354005, 0.07608391356105891,
                                        -0.024329955186437525, 0.03352669469734365,
                                        0.06551576080338115, -0.010408685092637808],
                                       [-0.055724300210147654, 0.010727535007084827,
                                        0.009714847905838698, -0.05842018296600469,
                                        -0.0034335530890114065, 0.010312965341815413],
                                       [0.04238293990379367, -0.08681144856814374,
                                        0.014615107280598822, 0.024893488268661047,
                                        -0.06208220771436974, 9.571975082238899e-05]],
                          '4.bias': [0.04897660305133635, -0.18312029750956932,
                                     0.13414369445823301]}},
         'nll': {'loss': 1.1126913695750025,
                 'grads': {'0.weight': [[0.20887190254700116, -0.033501807639000264,
                                         -0.20023885562053517, 0.08510115582048541],
                                        [0.025829819742076512, -0.029472019662055933,
                                         -0.018235204803625872, 0.034171031144652766],
                                        [-0.021566022104398338, 0.017482068898701953,
                                         0.017061085451412786, -0.02187852275294205],
                                        [-0.006472383849920311, -0.15463881919062278,
                                         0.04632110476406594, 0.1427023805535506],
                                        [0.02048247088992903, 0.08828885040182853,
                                         -0.04323353545384265, -0.07714804437751256]],
                           '0.bias': [0.10840159468911825, 0.017047800063619896,
                                      -0.025641101688275113, -0.009635540781225506,
                                      0.04631168972473068],
                           '2.weight': [[0.0006178028331988372, 0.19126388048588408,
                                         0.22280594607078952, 0.20672124483353158,
                                         0.1966426918435976],
                                        [-0.04741288537085088, -0.03430812367489075,
                                         -0.07068023055771494, 0.08183229696699569,
                                         0.13322522248694552],
                                        [0.08003593711816051, -0.05350272507838021,
                                         -0.08814194008135465, -0.09597055465317661,
                                         -0.10179051664359051],
                                        [0.07128125979018105, 0.04610257000676246,
                                         0.02644172112813459, -0.06072977328083861,
                                         -0.13513883079462402],
                                        [0.005300981006701389, 0.17272768703756772,
                                         0.17423262705335876, 0.14847912100934663,
                                         0.170940597368182],
                                        [-0.006314864375800255, -0.02462162057838155,
                                         -0.057038515649543646, -0.07011133448577889,
                                         -0.028727981327225163]],
                           '2.bias': [0.20947366439685278, 0.09012988354078341,
                                      -0.09417651258157025, -0.03985197941759115,
                                      0.13349591548644274, -0.09229154116350068],
                           '4.weight': [[0.017617761381243217, 0.07986927687954938,
                                         -0.026932777684622208, 0.04018556684624121,
                                         0.06463212604564324, -0.01102774621222115],
                                        [-0.0598806564672089, 0.01762511790858464,
                                         0.008939465715064578, -0.06150656610469895,
                                         0.006816897099389796, 0.00898608039293305],
                                        [0.04226289508596568, -0.09749439478813401,
                                         0.017993311969557623, 0.021320999258457755,
                                         -0.07144902314503304, 0.002041665819288096]],
                           '4.bias': [0.04897660305133636, -0.18312029750956935,
                                      0.134143694458233]}},
         'mse': {'loss': 1.9376617181744242,
                 'grads': {'0.weight': [[-0.06235135824687994, 0.019832204127378242,
                                         0.057240817623764546, -0.034582532526970945],
                                        [0.03104283704763326, -0.05504289778514422,
                                         -0.016858888388259004, 0.05938724768268396],
                                        [0.008190328716235937, -0.03584249591425698,
                                         0.0010458878044877478, 0.035572982143738836],
                                        [-0.007260292888705116, 0.03387435067413089,
                                         -0.0014687542756901594, -0.0334958688703395],
                                        [0.024579432264100146, 0.10054290529130543,
                                         -0.050488231838622284, -0.0875326438930605]],
                           '0.bias': [-0.032211829801970335, 0.026351000460452134,
                                      0.0042168795848710056, -0.01980742383192171,
                                      0.052341478289643924],
                           '2.weight': [[0.03728218764865176, -0.034209389689999314,
                                         -0.04744925120897398, -0.05879695705499274,
                                         -0.11191549803317358],
                                        [0.180045981552367, 0.1609252812439536,
                                         0.05988553991476018, -0.051834377521403276,
                                         -0.0642472900255073],
                                        [-0.053334152317339595, -0.0031608980328116597,
                                         -0.00030442632086278193, 0.0107388175274998,
                                         0.04421733689861453],
                                        [-0.09360649006245982, -0.11346083813515975,
                                         -0.105284783640737, -0.0781746613985301,
                                         -0.08879093423859416],
                                        [0.05805129429587471, 0.0006143498779016297,
                                         -0.01788262507295906, -0.012069877035483132,
                                         -0.04888536582355114],
                                        [-0.007500668209518099, -0.013429302354125537,
                                         -0.043251535063453445, -0.03499043743244821,
                                         -0.012460898398942582]],
                           '2.bias': [-0.034057069809581515, -0.0652666450921674,
                                      -0.0035133840357577037, -0.06634855920618363,
                                      0.008004719327569708, -0.04300523872950102],
                           '4.weight': [[0.06085785620045279, -0.04556286511410652,
                                         -0.015772049949222766, 0.07716700100010987,
                                         -0.11340074207454444, -0.0014868106317051284],
                                        [-0.0030732722986832163, -0.007148322979780186,
                                         0.007850846585048515, -0.0069241014473385015,
                                         -0.0026867770900882225, 0.005119750371054446],
                                        [-0.057784583901769555, 0.052711188093886696,
                                         0.00792120336417425, -0.07024289955277137,
                                         0.11608751916463265, -0.0036329397393493157]],
                           '4.bias': [-0.07686309272120928, 0.005459712173108783,
                                      0.07140338054810053]}},
         'l1': {'loss': 21.686248796529778,
                'grads': {'0.weight': [[-0.8799423740595712, 0.5278066861670647,
                                        0.7439324029295852, -0.7195098746581012],
                                       [-0.4428802008474135, 0.3051646025321853,
                                        0.36424264306710596, -0.39902592082587707],
                                       [-0.5385818035074122, 0.35268027480488473,
                                        0.44769998019692936, -0.4680476298940619],
                                       [0.013443327614996501, -0.31119749467782964,
                                        0.06674884004060172, 0.2939970535981414],
                                       [0.4530370353257541, 1.8992043186614451,
                                        -0.9424410753293745, -1.6563476311531584]],
                          '0.bias': [-0.43586032197167834, -0.3001835952331396,
                                     -0.5133979426381208, -0.16096832397013525,
                                     0.9877595701497406],
                          '2.weight': [[1.4846096029132005, 0.10155592753051529,
                                        -0.19709952200649075, -0.2704354826295601,
                                        -1.151019435887688],
                                       [2.486848562104527, 2.4254207441724276, 1.6059069629840588,
                                        0.4714884904103937, 0.4132194377243731],
                                       [-0.686881637096776, 0.6543201857730466, 0.2647400471223751,
                                        0.28451656346579446, 0.7858914725291704],
                                       [-1.8168996765741787, -2.0675296640963103,
                                        -1.9382115098619346, -1.6379962532485883,
                                        -2.0229401443125647],
                                       [0.15024974874978142, -0.6529869953620758,
                                        0.41560497965854903, 1.9966005287208715,
                                        1.6292855042617442],
                                       [-0.41113187818991487, -0.4637854731001041,
                                        -0.8073610589782382, -0.5666353396211786,
                                        -0.045146462895832004]],
                          '2.bias': [0.16187066106724268, 0.27665718846407833, 0.06880234122835605,
                                     -1.3571180082405307, 2.4453970841242247,
                                     -0.7593800958754873],
                          '4.weight': [[0.842719702840792, -0.5092658631756577,
                                        -0.28686966036175315, 1.2662562651568572,
                                        -1.6016386601771742, -0.10384136203600167],
                                       [-0.5181243268462281, -1.27334260903251, 0.5492935509913621,
                                        -0.9393889425956431, -2.2706198299491636,
                                        0.6819661683217553],
                                       [-1.057766635401291, 0.7933405959064068,
                                        0.09311941376872962, -1.2635883668859123,
                                        1.5608496159443601, -0.028958128004282158]],
                          '4.bias': [-2.0, -4.0, 0.0]}},
         'bce': {'loss': 0.7208686617029338,
                 'grads': {'0.weight': [[0.021217214006878895, -0.012753240938469104,
                                         -0.01793084424818679, 0.017373822057368055],
                                        [0.007912156724574999, -0.006897018025119816,
                                         -0.006134871125387658, 0.008477906760557347],
                                        [0.0008331365020427622, -0.0011041231025821067,
                                         -0.0005486161364583764, 0.001245495439910754],
                                        [0.00960689337863548, -0.012450224726276004,
                                         -0.006398607561190171, 0.014099075437110139],
                                        [0.009321972050062311, 0.01994971390022109,
                                         -0.014462793647691083, -0.016222811232946523]],
                           '0.bias': [0.011264676449772523, 0.004588173802171084,
                                      -0.0033225384967563777, 0.019611924301575757,
                                      0.011967111463114473],
                           '2.weight': [[0.004302826306377659, 0.03452945519380041,
                                         0.04211085042794844, 0.03974230954571603,
                                         0.022603729380719643],
                                        [-0.02109713333728132, -0.02013385639201309,
                                         -0.019822986246552397, 0.00632293173198225,
                                         0.005672708932339947],
                                        [0.002193692360105326, -0.034498243176944304,
                                         -0.03341597374008597, -0.026095058652190133,
                                         -0.01397020614617045],
                                        [0.016521384828207027, 0.012849135235929543,
                                         0.01017274163354571, 0.004833770033952514,
                                         0.009453056043454477],
                                        [-0.007776023301686106, 0.01700916115350669,
                                         0.012549974199581138, 0.03737948781245992,
                                         0.023632625098534265],
                                        [0.004156149351734797, 0.002671164889186981,
                                         0.002012396079663916, 0.00010457482034910733,
                                         -0.0014654202043607792]],
                           '2.bias': [0.04750563125035551, 0.012398941966410098,
                                      -0.031166136334592365, 0.0012047672644703326,
                                      0.05001979856123452, 0.00048325447723749563],
                           '4.weight': [[-0.009825600165613131, -0.005323922365132175,
                                         0.005396907701567251, -0.018122106186759177,
                                         -0.009377074040981766, 0.007868133297021513],
                                        [-0.012791789349104646, -0.02075485615174861,
                                         0.00629288822388586, -0.01434985773203222,
                                         -0.043979784548999395, 0.007935627112857994],
                                        [0.0036292489705852375, -0.013135848127057849,
                                         0.003692178124216549, 0.00031218523447970164,
                                         -0.022297471748720377, 0.005585546919145689]],
                           '4.bias': [-0.016005083420247222, -0.11977108541968012,
                                      -0.010454829493342876]}}},
 'bn1d': {'train_out': [[3.787328266699397, -0.14615194207802443, 1.2670565019657887],
                        [0.32712815542555357, -0.3424429562782945, -2.5376083826454647],
                        [-0.019224837099981726, -1.5258798251982615, -3.858751687877695],
                        [3.1791478295804856, -2.224214403713367, -1.0528123318905265]],
          'running_mean': [-0.12844312472355165, 0.08176349784926598, 0.10737357165910778],
          'running_var': [1.4412183524100162, 1.6293273963694728, 1.5735067866051788],
          'eval_out': [[3.676594317580777, -2.281700422805364, -0.24810997296478426],
                       [4.7124172055032725, -0.9477458000147331, 1.6517989300910572],
                       [2.372197047844426, 0.17885368069723362, -0.2232434241396475],
                       [-0.4327281053646825, -0.30344188477114764, -3.5406008802822058]]},
 'bn1d-3d': {'train_out': [[[2.455691342970506, 3.918722790251883, 0.4883288341686279,
                             -0.0907278641008074],
                            [-0.23857217362332786, -0.41306768496411017, -2.187209364042239,
                             -1.5555370778025868],
                            [-4.00442691905016, -1.6726157164180135, 1.315564659915068,
                             -1.7862677216219718]],
                           [[4.042327786847305, 0.8036394440205652, -0.29558493284099835,
                             3.226361427893826],
                            [-0.2745840584715103, -2.0894855219680806, -1.7192030623205101,
                             0.0002806886564708507],
                            [-2.0690385308959462, 1.2939920889529382, -1.384285893151495,
                             -4.057153768626215]]],
             'running_mean': [0.060166445361149366, 0.07611183454396102, 0.07217643051573247],
             'running_var': [2.5047089246721033, 2.5033863326567474, 2.504025076897113],
             'eval_out': [[[3.0274248901105705, -0.09902252915044622, 0.9594668391135655,
                            3.813153203632249],
                           [-0.9663220302975145, -2.1812410562122406, -0.956838152906397,
                            -0.0574342727724969],
                           [-0.5396695900520166, 0.6272850664574411, -2.915312776655454,
                            -3.1693789779883184]],
                          [[0.07702578596884337, 0.6744378644183509, 3.710553716721315,
                            2.3307680150466],
                           [-2.1698928368487067, -1.1179975115937204, -0.027253499993911346,
                            -1.3602215464097953],
                           [0.7824715547096474, -2.613826296253748, -3.402255212449117,
                            0.1972120885046109]]]},
 'bn2d-cma': {'train_out': [[[[2.2426552492466483, 3.7255865059384976],
                              [0.24853313863360205, -0.3383997525603473],
                              [3.2898997578471376, 2.9418598178987807]],
                             [[-2.0904116919434683, -1.4603143688282247],
                              [0.14703465985091102, -0.8972588087774631],
                              [-2.235504909733516, -0.846360156863861]]],
                            [[[3.8508727486062453, 0.5681325291900231],
                              [-0.5460432389348913, 3.0238078072820973],
                              [3.2180722698866537, -0.40183858921808635]],
                             [[-1.6235722811606952, 0.09162424120138024],
                              [-0.7197222417057892, -2.2258437094906127],
                              [-1.0263863088547063, 0.17064819450220303]]]],
              'running_mean': [0.19710230764275583, 0.06251744699796272],
              'running_var': [3.504614854186791, 3.5329376951661198],
              'eval_out': [[[[2.717429367757057, 0.07435210067079727],
                             [0.9691917738012595, 3.3816787105673844],
                             [1.8651677187125402, -0.15653103437530064]],
                            [[-0.9669269603910374, -0.20983094800431992],
                             [-1.4355984312670789, -1.8768276606440197],
                             [-0.5373602635263086, -0.44129703296331546]]],
                           [[[0.22318214231295463, 0.7282302278508423],
                             [3.2949418059905273, 2.1284804098768833],
                             [-0.1376469108677692, 1.6127705425471053]],
                            [[-0.1844255175563048, -1.3064851560249924],
                             [-1.935504160402843, -0.6513532508914803],
                             [-0.3532457955838883, -1.7142157137449199]]]]}}
