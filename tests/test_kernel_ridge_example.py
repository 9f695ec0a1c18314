"""arrayflow.examples.kernel_ridge: gradients through scikit-learn's rbf_kernel and linalg.solve.

Checked against references the example does not use: the loss against a plain NumPy
computation (``np.exp(-gamma * squared distances)``, ``np.linalg.solve``), the gradient against
central finite differences of that NumPy loss, laziness on Dask with ``forbid_compute``, and
the same optimisation trajectory on NumPy and Dask.
"""

from __future__ import annotations

import math
import os
import warnings

import numpy as np
import pytest

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # before SciPy is imported (scikit-learn checks it)
pytest.importorskip("sklearn")

from conftest import forbid_compute, on_backend  # noqa: E402

import arrayflow as af  # noqa: E402
from arrayflow.examples import kernel_ridge as kr  # noqa: E402

BACKENDS = ["numpy", "dask"]
LAM = 1e-2


def _numpy_loss(log_gamma: float, X_train, y_train, X_test, y_test, lam=LAM) -> float:
    """The held-out MSE in plain NumPy (float64), independent of scikit-learn and arrayflow."""
    g = math.exp(log_gamma)

    def k(a, b):
        d2 = ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)
        return np.exp(-g * d2)

    alpha = np.linalg.solve(k(X_train, X_train) + lam * np.eye(len(X_train)), y_train)
    return float(np.mean((k(X_test, X_train) @ alpha - y_test) ** 2))


def _numpy_data():
    with on_backend("numpy"):
        d = kr.load_data(n_samples=120, n_test=40)
        return tuple(t.numpy() for t in (d.X_train, d.y_train, d.X_test, d.y_test))


@pytest.fixture
def strict_graph():
    """Silent detaches raise inside the test (graph-break policy "error", warnings as errors)."""
    with kr.graph_breaks_raise():
        yield


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("log_gamma0", [-1.0, 0.5, 2.0])
def test_gradient_matches_finite_differences(name, log_gamma0, strict_graph):
    ref = _numpy_data()
    h = 1e-5
    fd = (_numpy_loss(log_gamma0 + h, *ref) - _numpy_loss(log_gamma0 - h, *ref)) / (2 * h)
    with on_backend(name), kr.sklearn_dispatch():
        data = kr.load_data(n_samples=120, n_test=40)
        lg = af.nn.Parameter(af.asarray(log_gamma0, dtype=af.float64))
        loss = kr.heldout_loss(lg, data, LAM)
        assert loss.grad_fn is not None
        loss.backward()
        np.testing.assert_allclose(loss.item(), _numpy_loss(log_gamma0, *ref), rtol=1e-10)
        assert lg.grad.dtype == af.float64
        np.testing.assert_allclose(lg.grad.item(), fd, rtol=1e-6)


def test_gradient_stays_lazy_on_dask(strict_graph):
    with on_backend("dask") as b, kr.sklearn_dispatch():
        data = kr.load_data(n_samples=120, n_test=40)
        lg = af.nn.Parameter(af.asarray(0.5, dtype=af.float64))
        with forbid_compute(b):
            loss = kr.heldout_loss(lg, data, LAM)
            loss.backward()
        # the trap is real: computing inside forbid_compute raises
        with forbid_compute(b), pytest.raises(AssertionError, match="lazy backend computed"):
            lg.grad.item()
        ref = _numpy_data()
        h = 1e-5
        fd = (_numpy_loss(0.5 + h, *ref) - _numpy_loss(0.5 - h, *ref)) / (2 * h)
        np.testing.assert_allclose(lg.grad.item(), fd, rtol=1e-6)


def test_sklearn_finite_check_is_the_only_compute_on_dask():
    """With scikit-learn's finiteness check on, the forward pass computes exactly there."""
    with on_backend("dask") as b, kr.sklearn_dispatch(assume_finite=False):
        data = kr.load_data(n_samples=120, n_test=40)
        lg = af.nn.Parameter(af.asarray(0.5, dtype=af.float64))
        with forbid_compute(b), pytest.raises(AssertionError, match="lazy backend computed") as e:
            kr.heldout_loss(lg, data, LAM)
        names = [entry.name for entry in e.traceback]
        assert "_assert_all_finite" in names and "rbf_kernel" in names, names
        # the values are those of the lazy run
        loss = kr.heldout_loss(lg, data, LAM)
        ref = _numpy_data()
        np.testing.assert_allclose(loss.item(), _numpy_loss(0.5, *ref), rtol=1e-10)


def test_gamma_as_tensor_is_refused_by_sklearn():
    """Why the example scales the inputs: scikit-learn validates gamma as a Python float.

    If a future scikit-learn accepts a 0-d Tensor here, the example could pass
    ``gamma=af.exp(log_gamma)`` directly (this test then fails as a reminder)."""
    from sklearn.metrics.pairwise import rbf_kernel
    from sklearn.utils._param_validation import InvalidParameterError

    with on_backend("numpy"), kr.sklearn_dispatch():
        X = af.asarray(np.ones((3, 2)))
        with pytest.raises(InvalidParameterError, match="gamma"):
            rbf_kernel(X, X, gamma=af.exp(af.asarray(0.0, dtype=af.float64, requires_grad=True)))


def test_tuning_lowers_loss_and_backends_agree(strict_graph):
    runs = {}
    for name in BACKENDS:
        with on_backend(name):
            data = kr.load_data(n_samples=120, n_test=40)
            runs[name] = kr.tune(data, log_gamma0=2.0, steps=6, lr=0.1)
    lg_np, losses_np = runs["numpy"]
    lg_dask, losses_dask = runs["dask"]
    assert len(losses_np) == 6
    assert all(b < a for a, b in zip(losses_np, losses_np[1:])), losses_np
    assert lg_np < 2.0  # gamma decreased: the starting kernel is too narrow for this data
    np.testing.assert_allclose(losses_dask, losses_np, rtol=1e-8)
    np.testing.assert_allclose(lg_dask, lg_np, rtol=1e-8)
    # the reported loss is the NumPy reference's loss at the parameters of each step
    ref = _numpy_data()
    np.testing.assert_allclose(losses_np[0], _numpy_loss(2.0, *ref), rtol=1e-10)


def test_main_runs_and_prints(capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("error", af.GraphBreakWarning)
        assert kr.main(["--backend", "dask", "--steps", "3", "--every", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("step ") == 3
    assert "tuned length-scale" in out and "(backend dask)" in out
