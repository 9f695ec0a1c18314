"""Per-sample gradients of the digits MLP with ``vmap(grad(loss))``, and DP-SGD on them.

Differentially private SGD (Abadi et al., 2016) needs the gradient of the loss of *each*
example separately: each is clipped to norm at most ``C``, the clipped gradients are
summed, Gaussian noise of standard deviation ``sigma * C`` is added, and the sum is divided
by the batch size. ``torch.func``'s recipe computes all per-sample gradients at once:

    vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)

where ``loss(params, x_i, y_i)`` runs the model functionally (``functional_call``) on one
example. Here on the MLP of :mod:`arrayflow.examples.train` (64-128-10, the digits data):

- :func:`per_sample_grads`: the batched gradients, one ``(B, *p.shape)`` Tensor per
  parameter; :func:`per_sample_grads_loop`: the same by an explicit loop of ``grad``
  (what ``tests/test_per_sample_grads.py`` checks it against, on NumPy and Dask);
- :func:`clip_and_noise`: the DP-SGD gradient from per-sample gradients;
- :func:`dp_sgd_step`: one step of DP-SGD on a model's parameters.

Run ``python -m arrayflow.examples.per_sample_grads`` for a few DP-SGD epochs on the
digits (needs scikit-learn for the data).
"""

from __future__ import annotations

from typing import Any

import arrayflow as af
from arrayflow import nn
from arrayflow.func import functional_call, grad, vmap

__all__ = ["make_loss", "per_sample_grads", "per_sample_grads_loop", "clip_and_noise",
           "dp_sgd_step"]


def make_loss(model: nn.Module):
    """``loss(params, x_i, y_i)``: the cross-entropy of ``model`` on one example.

    Parameters
    ----------
    model : nn.Module
        A classifier taking ``(N, features)`` and returning ``(N, classes)`` logits; its
        own parameters are not used (``params`` replaces them, ``functional_call``).

    Returns
    -------
    callable
        ``loss(params, x_i, y_i)`` with ``x_i`` of shape ``(features,)`` and ``y_i`` a 0-d
        integer label; returns a 0-d Tensor.
    """
    def loss(params: dict, xi: Any, yi: Any) -> Any:
        logits = functional_call(model, params, (xi[None],))
        return nn.functional.cross_entropy(logits, yi[None])
    return loss


def per_sample_grads(model: nn.Module, params: dict, x: Any, y: Any) -> dict:
    """The gradient of each example's loss w.r.t. ``params``, all at once.

    Parameters
    ----------
    model : nn.Module
        The classifier (see :func:`make_loss`).
    params : dict of str to Tensor
        Parameter values by name (``{k: v.detach() for k, v in model.named_parameters()}``).
    x : Tensor
        Inputs, shape ``(B, features)``.
    y : Tensor
        Integer labels, shape ``(B,)``.

    Returns
    -------
    dict of str to Tensor
        For each parameter ``p``, a ``(B, *p.shape)`` Tensor: row ``i`` is the gradient of
        the loss of example ``i`` alone (torch.func's ``vmap(grad(loss))``).
    """
    return vmap(grad(make_loss(model)), in_dims=(None, 0, 0))(params, x, y)


def per_sample_grads_loop(model: nn.Module, params: dict, x: Any, y: Any) -> dict:
    """:func:`per_sample_grads` by an explicit Python loop of ``grad``, one example at a
    time (the reference; B times slower)."""
    g = grad(make_loss(model))
    rows = [g(params, x[i], y[i]) for i in range(x.shape[0])]
    return {k: af.stack([r[k] for r in rows]) for k in params}


def clip_and_noise(per_sample: dict, max_norm: float, noise_multiplier: float) -> dict:
    """The DP-SGD gradient: per-sample clipping to ``max_norm``, sum, Gaussian noise, mean.

    Parameters
    ----------
    per_sample : dict of str to Tensor
        Per-sample gradients, each ``(B, *p.shape)`` (:func:`per_sample_grads`).
    max_norm : float
        ``C``: each example's gradient (all parameters together) is scaled by
        ``min(1, C / (norm + 1e-6))``.
    noise_multiplier : float
        ``sigma``: noise ``N(0, (sigma * C)^2)`` is added to each entry of the summed
        clipped gradient (drawn with ``arrayflow.randn``; 0 for none).

    Returns
    -------
    dict of str to Tensor
        ``(sum_i clip(g_i) + noise) / B`` per parameter, of the parameter's shape.

    Raises
    ------
    ValueError
        If ``max_norm`` is not positive or ``noise_multiplier`` is negative.
    """
    if not max_norm > 0:
        raise ValueError(f"clip_and_noise: max_norm must be positive, got {max_norm}")
    if not noise_multiplier >= 0:
        raise ValueError(f"clip_and_noise: noise_multiplier must be >= 0, got "
                         f"{noise_multiplier}")
    first = next(iter(per_sample.values()))
    b = first.shape[0]
    sq = sum(af.sum(af.reshape(g, (b, -1)) ** 2, axis=1) for g in per_sample.values())
    factor = af.clip(max_norm / (af.sqrt(sq) + 1e-6), max=1.0)  # (B,)
    out = {}
    for k, g in per_sample.items():
        f = af.reshape(factor, (b,) + (1,) * (g.ndim - 1))
        total = af.sum(g * f, axis=0)
        if noise_multiplier:
            noise = af.randn(tuple(total.shape), dtype=total.dtype, device=total.device)
            total = total + noise * (noise_multiplier * max_norm)
        out[k] = total / b
    return out


def dp_sgd_step(model: nn.Module, x: Any, y: Any, *, lr: float, max_norm: float,
                noise_multiplier: float) -> dict:
    """One DP-SGD step on ``model``'s parameters (in place, without autograd).

    Parameters
    ----------
    model : nn.Module
        Its parameters are updated: ``p -= lr * dp_gradient``.
    x, y : Tensor
        The batch, ``(B, features)`` and ``(B,)``.
    lr, max_norm, noise_multiplier : float
        Learning rate, ``C`` and ``sigma`` (:func:`clip_and_noise`).

    Returns
    -------
    dict of str to Tensor
        The DP gradient that was applied, per parameter name.
    """
    params = {k: v.detach() for k, v in model.named_parameters()}
    g = clip_and_noise(per_sample_grads(model, params, x, y), max_norm, noise_multiplier)
    with af.no_grad():
        for k, p in model.named_parameters():
            # in place: __isub__ returns self (the Parameter), but its stub in tensor.py is
            # typed `-> Tensor`, so mypy thinks `p` is rebound to a plain Tensor
            p -= lr * g[k]  # type: ignore[misc]
    return g


def main() -> None:  # pragma: no cover - a demonstration
    import numpy as np

    from .train import MLP, accuracy, load_data

    af.manual_seed(0)
    x_tr, x_te, y_tr, y_te = load_data(0)
    model = MLP()
    xt, yt = af.asarray(x_te), af.asarray(y_te)
    rng = np.random.default_rng(0)
    for epoch in range(5):
        order = rng.permutation(len(x_tr))
        for s in range(0, len(order), 64):
            idx = order[s:s + 64]
            dp_sgd_step(model, af.asarray(x_tr[idx]), af.asarray(y_tr[idx]), lr=0.5,
                        max_norm=1.0, noise_multiplier=1.0)
        print(f"epoch {epoch}: test accuracy {accuracy(model, xt, yt):.3f} (DP-SGD, C=1, "
              f"sigma=1, batch 64)")


if __name__ == "__main__":  # pragma: no cover
    main()
