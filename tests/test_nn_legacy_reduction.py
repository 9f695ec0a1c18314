"""The deprecated ``size_average``/``reduce`` flags of the losses select the reduction, as
PyTorch's ``_Reduction.legacy_get_string`` (they were accepted and silently ignored: a
``mean`` where PyTorch returns a ``sum`` or per-element losses). Differential against PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arrayflow as af
import arrayflow.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

FLAGS = [(None, False), (False, None), (False, True), (True, False), (True, True),
         (None, True), (False, False)]


def _inputs(name):
    rng = np.random.default_rng(0)
    if name in ("nll_loss", "cross_entropy"):
        x = rng.standard_normal((4, 3))
        if name == "nll_loss":
            x = x - np.log(np.exp(x).sum(1, keepdims=True))
        return x, np.array([0, 2, 1, 2])
    if name == "binary_cross_entropy":
        return rng.uniform(0.05, 0.95, (4, 3)), rng.uniform(0, 1, (4, 3))
    return rng.standard_normal((4, 3)), rng.standard_normal((4, 3))


def _run(fn, x, t, **kw):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn(x, t, **kw)
    return out, [str(m.message) for m in w]


@pytest.mark.parametrize("size_average,reduce", FLAGS)
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "nll_loss",
                                  "cross_entropy", "binary_cross_entropy",
                                  "binary_cross_entropy_with_logits"])
def test_functional_legacy_flags_match_torch(name, size_average, reduce):
    x, t = _inputs(name)
    kw = dict(size_average=size_average, reduce=reduce)
    got, got_w = _run(getattr(F, name), af.asarray(x), af.asarray(t), **kw)
    want, want_w = _run(getattr(TF, name), torch.tensor(x), torch.tensor(t), **kw)
    assert got.shape == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert got_w == want_w  # the same deprecation message, naming the reduction chosen


@pytest.mark.parametrize("size_average,reduce", FLAGS)
@pytest.mark.parametrize("cls", ["MSELoss", "L1Loss", "NLLLoss", "CrossEntropyLoss",
                                 "BCEWithLogitsLoss", "SmoothL1Loss"])
def test_loss_modules_legacy_flags_match_torch(cls, size_average, reduce):
    name = {"MSELoss": "mse_loss", "L1Loss": "l1_loss", "NLLLoss": "nll_loss",
            "CrossEntropyLoss": "cross_entropy", "SmoothL1Loss": "smooth_l1_loss",
            "BCEWithLogitsLoss": "binary_cross_entropy_with_logits"}[cls]
    x, t = _inputs(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = getattr(af.nn, cls)(size_average=size_average, reduce=reduce)
        tm = getattr(torch.nn, cls)(size_average=size_average, reduce=reduce)
    assert m.reduction == tm.reduction
    got = m(af.asarray(x), af.asarray(t))
    want = tm(torch.tensor(x), torch.tensor(t))
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12)


def test_no_flags_no_warning_and_reduction_kept():
    x, t = _inputs("mse_loss")
    out, w = _run(F.mse_loss, af.asarray(x), af.asarray(t), reduction="sum")
    assert w == []
    np.testing.assert_allclose(out.numpy(), ((x - t) ** 2).sum(), rtol=1e-12)
