"""Stochastic gradient descent (PyTorch's ``torch.optim.SGD``)."""

from __future__ import annotations

from .optimizer import Optimizer, ParamsT, _check

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent, optionally with momentum (PyTorch semantics).

    With ``g = grad + weight_decay * p`` (negated first when ``maximize``), the
    momentum buffer is ``b = g`` at the first step, then
    ``b = momentum * b + (1 - dampening) * g``; the update direction is ``b``, or
    ``g + momentum * b`` with ``nesterov``; then ``p = p - lr * direction``.

    Parameters
    ----------
    params : iterable of Tensor or dict
        Parameters or parameter groups.
    lr : float, default 1e-3
        Learning rate.
    momentum : float, default 0
        Momentum factor.
    dampening : float, default 0
        Dampening of the momentum.
    weight_decay : float, default 0
        L2 penalty added to the gradient.
    nesterov : bool, default False
        Nesterov momentum.
    maximize : bool, default False
        Maximize the objective instead of minimizing it.

    Raises
    ------
    ValueError
        For a negative ``lr``, ``momentum`` or ``weight_decay``, or ``nesterov``
        without a positive momentum and zero dampening (PyTorch's messages).
    """

    def __init__(self, params: ParamsT, lr: float = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0, nesterov: bool = False, *,
                 maximize: bool = False) -> None:
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize)
        self._check_group(defaults)
        super().__init__(params, defaults)

    def _check_group(self, group):
        lr, momentum = group["lr"], group["momentum"]
        _check("SGD", "lr", lr, lr >= 0.0, "Invalid learning rate", ">= 0")
        _check("SGD", "momentum", momentum, momentum >= 0.0, "Invalid momentum value", ">= 0")
        wd = group["weight_decay"]
        _check("SGD", "weight_decay", wd, wd >= 0.0, "Invalid weight_decay value", ">= 0")
        if group["nesterov"] and (momentum <= 0 or group["dampening"] != 0):
            raise ValueError(
                f"Nesterov momentum requires a momentum and zero dampening (SGD: argument "
                f"nesterov=True expected momentum > 0 and dampening == 0, got momentum="
                f"{momentum!r} and dampening={group['dampening']!r})")

    def _update(self, group, param, grad, state):
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        wd = group["weight_decay"]
        g = -grad if group["maximize"] else grad
        if wd != 0:
            g = g + wd * param
        new_state = {}
        if momentum != 0:
            buf = state.get("momentum_buffer")
            buf = g if buf is None else buf * momentum + (1 - dampening) * g
            new_state["momentum_buffer"] = buf
            g = g + momentum * buf if group["nesterov"] else buf
        return param - lr * g, new_state
