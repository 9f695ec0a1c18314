"""``arrayflow/examples/per_sample_grads.py``: per-sample gradients of the digits MLP with
``vmap(grad(loss))`` against an explicit loop of ``grad`` (NumPy, strict, Dask) and against
``torch.func``, and the DP-SGD gradient (clipping, noise) against NumPy by hand."""

from __future__ import annotations

import numpy as np
import pytest

import arrayflow as af
from arrayflow.examples import per_sample_grads as ex
from arrayflow.examples.train import MLP

torch = pytest.importorskip("torch")
pytest.importorskip("sklearn")


def _digits(n=12):
    from sklearn.datasets import load_digits

    x, y = load_digits(return_X_y=True)
    return (x[:n] / 16.0).astype(np.float32), y[:n].astype(np.int64)


def _model_and_params():
    af.manual_seed(3)
    model = MLP()
    return model, {k: v.detach() for k, v in model.named_parameters()}


def host(t):
    return np.asarray(t.detach().numpy())


def test_per_sample_grads_match_a_loop_of_grad(backend):
    model, params = _model_and_params()
    x, y = _digits()
    xa, ya = af.asarray(x), af.asarray(y)
    params = {k: af.asarray(host(v)) for k, v in params.items()}  # on this backend
    got = ex.per_sample_grads(model, params, xa, ya)
    want = ex.per_sample_grads_loop(model, params, xa, ya)
    assert set(got) == set(params)
    for k, p in params.items():
        assert got[k].backend.name == backend
        assert tuple(got[k].shape) == (len(x),) + tuple(p.shape)
        np.testing.assert_allclose(host(got[k]), host(want[k]), rtol=1e-4, atol=1e-6)
    # the per-sample gradients average to the batch gradient
    batch = af.func.grad(lambda p: af.nn.functional.cross_entropy(
        af.func.functional_call(model, p, (xa,)), ya))(params)
    for k in params:
        np.testing.assert_allclose(host(got[k]).mean(0), host(batch[k]), rtol=1e-4, atol=1e-6)


def test_per_sample_grads_match_torch_func():
    model, params = _model_and_params()
    x, y = _digits()
    got = ex.per_sample_grads(model, params, af.asarray(x), af.asarray(y))
    tmodel = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(),
                                 torch.nn.Linear(128, 10))
    tparams = {k: torch.asarray(host(v)) for k, v in params.items()}

    def tloss(p, xi, yi):
        out = torch.func.functional_call(tmodel, p, (xi[None],))
        return torch.nn.functional.cross_entropy(out, yi[None])

    want = torch.func.vmap(torch.func.grad(tloss), in_dims=(None, 0, 0))(
        tparams, torch.asarray(x), torch.asarray(y))
    for k in params:
        np.testing.assert_allclose(host(got[k]), want[k].numpy(), rtol=1e-4, atol=1e-6)


def test_clip_and_noise_without_noise_matches_numpy_by_hand(backend):
    model, params = _model_and_params()
    x, y = _digits()
    params = {k: af.asarray(host(v)) for k, v in params.items()}
    loop = ex.per_sample_grads_loop(model, params, af.asarray(x), af.asarray(y))
    rows = {k: host(v) for k, v in loop.items()}
    norms = np.sqrt(sum((g.reshape(len(x), -1) ** 2).sum(1) for g in rows.values()))
    c = float(np.median(norms))  # about half of the examples are clipped
    scale = np.minimum(1.0, c / (norms + 1e-6))
    got = ex.clip_and_noise(ex.per_sample_grads(model, params, af.asarray(x), af.asarray(y)),
                            c, 0.0)
    clipped_norms = []
    for k, g in rows.items():
        want = (g * scale.reshape((-1,) + (1,) * (g.ndim - 1))).mean(0)
        assert got[k].backend.name == backend
        np.testing.assert_allclose(host(got[k]), want, rtol=1e-4, atol=1e-7)
        clipped_norms.append((g * scale.reshape((-1,) + (1,) * (g.ndim - 1))).reshape(
            len(x), -1))
    assert (np.sqrt((np.concatenate(clipped_norms, 1) ** 2).sum(1)) <= c * (1 + 1e-5)).all()
    assert (scale < 1).any() and (scale == 1).any()


def test_clip_and_noise_adds_gaussian_noise_of_sigma_c_over_b():
    model, params = _model_and_params()
    x, y = _digits(8)
    per = ex.per_sample_grads(model, params, af.asarray(x), af.asarray(y))
    clean = ex.clip_and_noise(per, 0.5, 0.0)
    af.manual_seed(11)
    noisy = ex.clip_and_noise(per, 0.5, 2.0)
    z = np.concatenate([((host(noisy[k]) - host(clean[k])) * len(x) / (2.0 * 0.5)).ravel()
                        for k in per])
    assert z.size > 9000  # every parameter entry gets its own draw
    assert abs(z.mean()) < 0.05 and abs(z.std() - 1.0) < 0.05
    with pytest.raises(ValueError, match="max_norm"):
        ex.clip_and_noise(per, 0.0, 1.0)
    with pytest.raises(ValueError, match="noise_multiplier"):
        ex.clip_and_noise(per, 1.0, -1.0)


def test_dp_sgd_step_updates_the_model_by_the_dp_gradient():
    model, params = _model_and_params()
    x, y = _digits()
    before = {k: host(v) for k, v in params.items()}
    g = ex.dp_sgd_step(model, af.asarray(x), af.asarray(y), lr=0.1, max_norm=1.0,
                       noise_multiplier=0.0)
    for k, p in model.named_parameters():
        np.testing.assert_allclose(host(p), before[k] - 0.1 * host(g[k]), rtol=1e-6,
                                   atol=1e-7)
