"""``cross_entropy``/``nll_loss`` class targets against PyTorch: targets outside
``[0, C)`` raise PyTorch's ``IndexError`` (today ``-1`` trained silently on class
``C - 1``), ``ignore_index`` targets contribute nothing (mean over the non-ignored
weight, class weights, label smoothing), on every backend."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

import arrayflow as af
import arrayflow.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(3)
LOGITS = RNG.standard_normal((5, 4)).astype(np.float32)
LOGITS3 = RNG.standard_normal((2, 4, 3)).astype(np.float32)
W = np.array([0.5, 2.0, 1.0, 3.0], dtype=np.float32)


@pytest.mark.parametrize("fname", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("bad", [-1, 4, 7, -2])
def test_out_of_range_target_raises_like_torch(backend, fname, bad):
    target = np.array([0, bad, 2, 1, 3])
    with pytest.raises(IndexError, match=f"Target {bad} is out of bounds"):
        getattr(TF, fname)(torch.tensor(LOGITS), torch.tensor(target))
    with pytest.raises(IndexError, match=f"Target {bad} is out of bounds"):
        loss = getattr(F, fname)(af.asarray(LOGITS), af.asarray(target))
        float(loss)  # Dask: the check is part of the graph, raised when computed


def test_out_of_range_target_raises_for_every_reduction_and_shape(backend):
    for reduction in ("none", "sum", "mean"):
        with pytest.raises(IndexError, match="Target 4 is out of bounds"):
            F.nll_loss(af.asarray(LOGITS3), af.asarray(np.full((2, 3), 4)),
                       reduction=reduction).numpy()
    with pytest.raises(IndexError, match="Target -1 is out of bounds"):
        F.cross_entropy(af.asarray(LOGITS[0]), af.asarray(np.array(-1))).numpy()


def test_out_of_range_target_gradient_raises_on_dask():
    with af.use_backend("dask"):
        x = af.asarray(LOGITS, requires_grad=True)
        loss = F.cross_entropy(x, af.asarray(np.array([0, -1, 2, 1, 3])))
        loss.backward()  # lazy: builds the graph only
        with pytest.raises(IndexError, match="Target -1 is out of bounds"):
            x.grad.numpy()


CASES = [
    dict(),
    dict(reduction="sum"),
    dict(reduction="none"),
    dict(weight=W),
    dict(weight=W, reduction="sum"),
    dict(label_smoothing=0.2),
    dict(label_smoothing=0.2, weight=W),
    dict(label_smoothing=0.1, reduction="none"),
    dict(ignore_index=2),
    dict(ignore_index=-1),
]


def _kw(kw, lib):
    out = dict(kw)
    if "weight" in out:
        out["weight"] = af.asarray(out["weight"]) if lib == "af" else torch.tensor(out["weight"])
    return out


@pytest.mark.parametrize("kw", CASES, ids=lambda kw: ",".join(f"{k}={v}" if k != "weight"
                                                              else "weight" for k, v in kw.items())
                         or "default")
@pytest.mark.parametrize("fname", ["cross_entropy", "nll_loss"])
def test_ignore_index_matches_torch(backend, fname, kw):
    if fname == "nll_loss" and "label_smoothing" in kw:
        pytest.skip("nll_loss has no label_smoothing")
    ign = kw.get("ignore_index", -100)
    target = np.array([0, ign, 2, ign, 3])
    xa = af.asarray(LOGITS, requires_grad=True)
    xt = torch.tensor(LOGITS, requires_grad=True)
    la = getattr(F, fname)(xa, af.asarray(target), **_kw(kw, "af"))
    lt = getattr(TF, fname)(xt, torch.tensor(target), **_kw(kw, "torch"))
    assert_allclose(la.detach().numpy(), lt.detach().numpy(), rtol=1e-5, atol=1e-6)
    la.sum().backward()
    lt.sum().backward()
    assert_allclose(xa.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)
    assert not np.any(xa.grad.numpy()[[1, 3]])  # ignored rows get no gradient


def test_ignore_index_spatial_targets_match_torch(backend):
    target = np.array([[0, -100, 3], [-100, 1, 2]])
    xa = af.asarray(LOGITS3, requires_grad=True)
    xt = torch.tensor(LOGITS3, requires_grad=True)
    la = F.cross_entropy(xa, af.asarray(target), weight=af.asarray(W), label_smoothing=0.1)
    lt = TF.cross_entropy(xt, torch.tensor(target), weight=torch.tensor(W), label_smoothing=0.1)
    assert_allclose(la.detach().numpy(), lt.detach().numpy(), rtol=1e-5)
    la.backward()
    lt.backward()
    assert_allclose(xa.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_all_targets_ignored_gives_torch_answers(backend):
    target = np.full(5, -100)
    for reduction in ("mean", "sum"):
        la = F.nll_loss(af.asarray(LOGITS), af.asarray(target), reduction=reduction)
        lt = TF.nll_loss(torch.tensor(LOGITS), torch.tensor(target), reduction=reduction)
        assert_allclose(la.numpy(), lt.numpy())  # NaN (0/0) for mean, 0 for sum
