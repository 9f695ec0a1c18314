"""Tune an RBF kernel ridge regression's length-scale by gradient descent on the held-out loss.

Run: ``python -m arrayflow.examples.kernel_ridge [--backend numpy|dask] [--steps 40]``
(needs scikit-learn and SciPy >= 1.14).

The kernel is scikit-learn's own :func:`sklearn.metrics.pairwise.rbf_kernel`, called on
arrayflow Tensors with ``sklearn.set_config(array_api_dispatch=True)``: scikit-learn does the
arithmetic through the array API namespace of its inputs (arrayflow), so the kernel matrix
carries its autograd history. The ridge solve is :func:`arrayflow.linalg.solve`; the held-out
mean squared error is differentiated with respect to ``log_gamma`` (``gamma = 1 / (2 l**2)``,
``l`` the length-scale) and ``af.optim.Adam`` follows the gradient::

    s     = exp(log_gamma / 2)
    K     = rbf_kernel(s * X_train, s * X_train, gamma=1.0)   # = exp(-gamma |x - x'|**2)
    alpha = linalg.solve(K + lam * I, y_train)
    loss  = mean((rbf_kernel(s * X_test, s * X_train, gamma=1.0) @ alpha - y_test) ** 2)

Why the inputs are scaled instead of passing ``gamma=exp(log_gamma)``: scikit-learn's parameter
validation accepts only a Python ``float`` (or ``None``) for ``gamma`` and rejects a 0-d Tensor
(``InvalidParameterError``); converting the Tensor to ``float`` would cut the graph. Since
``exp(-gamma |x - x'|**2) = exp(-|s x - s x'|**2)`` with ``s = sqrt(gamma)``, scaling the inputs
by ``s`` and passing ``gamma=1.0`` computes the same kernel with ``gamma`` inside the graph.

On Dask the forward and backward passes stay lazy (``tests/test_kernel_ridge_example.py``
runs them under ``forbid_compute``) provided scikit-learn's finiteness check of its inputs is
off (``assume_finite=True``, which :func:`sklearn_dispatch` sets by default): with it on,
``rbf_kernel`` -> ``check_pairwise_arrays`` -> ``check_array`` -> ``_assert_all_finite`` calls
``if xp.isfinite(xp.sum(X)):`` and Dask computes the input there. Each optimisation step
computes when the loss is read (``.item()``).

SciPy reads ``SCIPY_ARRAY_API`` when it is first imported and scikit-learn refuses array API
dispatch without it: this module sets ``SCIPY_ARRAY_API=1`` (unless already set) before it
imports scikit-learn, so import it (or run it) before anything imports SciPy.

The run is deterministic: the same arguments give the same numbers, on NumPy and on Dask
alike (to rounding).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import cast

import arrayflow as af

__all__ = ["KernelRidgeData", "graph_breaks_raise", "heldout_loss", "length_scale", "load_data",
           "main", "sklearn_dispatch", "tune"]


def _sklearn():
    """Import scikit-learn with SciPy's array API support requested (see the module notes)."""
    os.environ.setdefault("SCIPY_ARRAY_API", "1")
    import sklearn
    import sklearn.datasets
    import sklearn.metrics.pairwise

    return sklearn


@contextlib.contextmanager
def sklearn_dispatch(assume_finite: bool = True) -> Iterator[None]:
    """``sklearn.config_context(array_api_dispatch=True, assume_finite=...)``.

    Inside the block scikit-learn computes through the namespace of its inputs (arrayflow).

    Parameters
    ----------
    assume_finite : bool
        scikit-learn's ``assume_finite``. ``True`` (the default here) skips scikit-learn's
        input check ``sklearn.utils.validation._assert_all_finite``, which ends in
        ``if xp.isfinite(xp.sum(X)):`` (``bool()`` of a 0-d array) and so forces a
        computation of the input on a lazy backend (Dask) in every ``rbf_kernel`` call
        (``check_pairwise_arrays`` -> ``check_array``). The data here are finite by
        construction; with ``False`` the results are the same but Dask computes the inputs
        of each kernel call during the forward pass.

    Raises
    ------
    ImportError
        scikit-learn (or SciPy) is not installed.
    RuntimeError
        From scikit-learn, when ``SCIPY_ARRAY_API`` is not ``"1"``.
    """
    sklearn = _sklearn()
    with sklearn.config_context(array_api_dispatch=True, assume_finite=assume_finite):
        yield


@contextlib.contextmanager
def graph_breaks_raise() -> Iterator[None]:
    """Inside the block a silent detach raises: graph-break policy ``"error"`` and
    ``af.GraphBreakWarning`` turned into an error (both restored on exit)."""
    old = af.get_graph_break_policy()
    af.set_graph_break_policy("error")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", af.GraphBreakWarning)
            yield
    finally:
        af.set_graph_break_policy(old)


@dataclass(frozen=True)
class KernelRidgeData:
    """A train / held-out split, as float64 Tensors on the current backend.

    Attributes
    ----------
    X_train : Tensor, shape (n_train, d)
    y_train : Tensor, shape (n_train,)
    X_test : Tensor, shape (n_test, d)
    y_test : Tensor, shape (n_test,)
    """

    X_train: af.Tensor
    y_train: af.Tensor
    X_test: af.Tensor
    y_test: af.Tensor


def load_data(n_samples: int = 240, n_test: int = 80, seed: int = 0) -> KernelRidgeData:
    """Friedman #1 regression data (``sklearn.datasets.make_friedman1``, 5 features, noise 1).

    Parameters
    ----------
    n_samples : int
        Rows in all; the last ``n_test`` are held out.
    n_test : int
        Held-out rows, ``0 < n_test < n_samples``.
    seed : int
        ``random_state`` of ``make_friedman1``: the same seed gives the same data.

    Returns
    -------
    KernelRidgeData
        float64 Tensors on the current backend (``af.use_backend``).

    Raises
    ------
    ValueError
        ``n_test`` is not in ``(0, n_samples)``.
    """
    if not 0 < n_test < n_samples:
        raise ValueError(f"load_data: n_test must be in (0, n_samples={n_samples}), got {n_test}")
    sklearn = _sklearn()
    X, y = sklearn.datasets.make_friedman1(n_samples=n_samples, n_features=5, noise=1.0,
                                           random_state=seed)
    n_train = n_samples - n_test
    f64 = af.float64
    return KernelRidgeData(af.asarray(X[:n_train], dtype=f64), af.asarray(y[:n_train], dtype=f64),
                           af.asarray(X[n_train:], dtype=f64), af.asarray(y[n_train:], dtype=f64))


def heldout_loss(log_gamma: af.Tensor, data: KernelRidgeData, lam: float = 1e-2) -> af.Tensor:
    """Held-out mean squared error of RBF kernel ridge regression with ``gamma = exp(log_gamma)``.

    Must be called inside :func:`sklearn_dispatch` (scikit-learn's array API dispatch).

    Parameters
    ----------
    log_gamma : Tensor, shape (), float64
        Log of the RBF kernel's ``gamma`` (``k(x, x') = exp(-gamma |x - x'|**2)``).
    data : KernelRidgeData
        The split (:func:`load_data`).
    lam : float
        Ridge penalty added to the kernel matrix's diagonal.

    Returns
    -------
    Tensor, shape (), float64
        ``mean((K(X_test, X_train) @ solve(K(X_train, X_train) + lam I, y_train) - y_test)**2)``,
        differentiable with respect to ``log_gamma``.
    """
    rbf_kernel = _sklearn().metrics.pairwise.rbf_kernel
    s = af.exp(0.5 * log_gamma)  # sqrt(gamma): gamma enters through the inputs (module notes)
    Xtr = data.X_train * s
    Xte = data.X_test * s
    K = rbf_kernel(Xtr, Xtr, gamma=1.0)
    n = data.X_train.shape[0]
    alpha = af.linalg.solve(K + lam * af.eye(n, dtype=K.dtype), data.y_train[:, None])[:, 0]
    pred = rbf_kernel(Xte, Xtr, gamma=1.0) @ alpha
    return af.mean((pred - data.y_test) ** 2)


def length_scale(log_gamma: float) -> float:
    """The RBF length-scale ``l`` of ``gamma = exp(log_gamma) = 1 / (2 l**2)``."""
    return math.sqrt(0.5 / math.exp(log_gamma))


def tune(data: KernelRidgeData, log_gamma0: float = 2.0, steps: int = 40, lr: float = 0.1,
         lam: float = 1e-2, every: int = 0) -> tuple[float, list[float]]:
    """Adam on ``log_gamma`` for ``steps`` steps; returns the final ``log_gamma`` and the losses.

    Parameters
    ----------
    data : KernelRidgeData
        The split, on the current backend.
    log_gamma0 : float
        Starting ``log(gamma)``.
    steps : int
        Optimisation steps (one forward and backward pass each).
    lr : float
        Adam's learning rate.
    lam : float
        Ridge penalty.
    every : int
        Print the loss every ``every`` steps (0: never).

    Returns
    -------
    (float, list of float)
        The tuned ``log_gamma`` and the held-out loss before each step (``steps`` values).
    """
    log_gamma = af.nn.Parameter(af.asarray(log_gamma0, dtype=af.float64))
    opt = af.optim.Adam([log_gamma], lr=lr)
    losses: list[float] = []
    with sklearn_dispatch():
        for step in range(steps):
            opt.zero_grad()
            loss = heldout_loss(log_gamma, data, lam)
            loss.backward()
            losses.append(cast(float, loss.item()))
            if every and step % every == 0:
                print(f"step {step:3d}  held-out MSE {losses[-1]:.5f}  "
                      f"length-scale {length_scale(cast(float, log_gamma.item())):.4f}")
            opt.step()
    return cast(float, log_gamma.item()), losses


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m arrayflow.examples.kernel_ridge [--backend dask]``."""
    p = argparse.ArgumentParser(prog="python -m arrayflow.examples.kernel_ridge",
                                description=__doc__.splitlines()[0])
    p.add_argument("--backend", default=None,
                   help="arrayflow backend (numpy or dask; default: af.get_backend())")
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--log-gamma0", type=float, default=2.0, help="starting log(gamma)")
    p.add_argument("--every", type=int, default=5, help="print the loss every N steps")
    args = p.parse_args(argv)
    backend = args.backend or af.get_backend().name
    with af.use_backend(backend), graph_breaks_raise():
        data = load_data()
        lg, losses = tune(data, log_gamma0=args.log_gamma0, steps=args.steps, lr=args.lr,
                          every=args.every)
        with sklearn_dispatch(), af.no_grad():
            final = heldout_loss(af.asarray(lg, dtype=af.float64), data).item()
    print(f"held-out MSE {losses[0]:.5f} -> {final:.5f}; gamma {math.exp(args.log_gamma0):.4f} -> "
          f"{math.exp(lg):.4f}; tuned length-scale {length_scale(lg):.4f} "
          f"(backend {backend})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
