"""Forward-mode ``arrayflow.func`` examples: a model's loss Hessian and an ODE Jacobian.

- :func:`loss_hessian`: the Hessian of a small MLP's mean-squared-error loss with respect
  to its parameters, with ``functional_call`` + ``hessian`` (``jacfwd(jacrev(loss))``),
  as a dict of dicts of blocks (torch.func's layout) and as one ``(P, P)`` matrix.
- :func:`ode_jacobian`: the Jacobian of an ODE right-hand side with ``jacfwd`` (few
  inputs, as many outputs: forward mode's case), for the Lotka-Volterra predator-prey
  system and Robertson's stiff chemical kinetics; :func:`implicit_euler_step` uses it
  for Newton's method on a stiff step.

Each is checked in ``tests/test_func_examples.py`` against an explicit loop (``grad`` of
each gradient entry; finite differences; the analytic Jacobian). Everything runs on any
backend (on Dask lazily). Run ``python -m arrayflow.examples.func_examples``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import arrayflow as af
from arrayflow import nn
from arrayflow.func import functional_call, hessian, jacfwd

__all__ = ["make_model", "loss_hessian", "hessian_matrix", "lotka_volterra_rhs",
           "robertson_rhs", "ode_jacobian", "implicit_euler_step"]


def make_model(n_in: int = 3, n_hidden: int = 4) -> nn.Module:
    """A small regression MLP: ``Linear(n_in, n_hidden) -> Tanh -> Linear(n_hidden, 1)``.

    Parameters
    ----------
    n_in, n_hidden : int
        Input features and hidden units.

    Returns
    -------
    nn.Module
        The model (float64 parameters if that is the default dtype).
    """
    return nn.Sequential(nn.Linear(n_in, n_hidden), nn.Tanh(), nn.Linear(n_hidden, 1))


def _loss_fn(model: nn.Module, x: Any, y: Any) -> Callable[[dict], Any]:
    def loss(params: dict) -> Any:
        pred = functional_call(model, params, (x,))
        return ((pred[:, 0] - y) ** 2).mean()
    return loss


def loss_hessian(model: nn.Module, x: Any, y: Any, params: dict | None = None) -> dict:
    """The Hessian of ``mean((model(x)[:, 0] - y) ** 2)`` w.r.t. the model's parameters.

    Parameters
    ----------
    model : nn.Module
        Its parameters are read (detached), never changed.
    x : Tensor
        Inputs, shape ``(N, n_in)``.
    y : Tensor
        Targets, shape ``(N,)``.
    params : dict, optional
        Parameter values to use instead of the model's (``functional_call``'s dict).

    Returns
    -------
    dict
        ``H[a][b]`` of shape ``param_a.shape + param_b.shape`` for parameter names ``a``,
        ``b`` (``named_parameters`` order): torch.func.hessian's layout for a dict input.
    """
    if params is None:
        params = {k: v.detach() for k, v in model.named_parameters()}
    return hessian(_loss_fn(model, x, y))(params)


def hessian_matrix(blocks: dict) -> Any:
    """The ``(P, P)`` matrix of a dict-of-dicts Hessian (parameters flattened in order).

    Parameters
    ----------
    blocks : dict
        As returned by :func:`loss_hessian`.

    Returns
    -------
    Tensor
        Shape ``(P, P)``, ``P`` the number of parameter elements.
    """
    names = list(blocks)
    sizes = {}
    for a in names:
        shape = tuple(blocks[a][a].shape)
        n = 1
        for s in shape[:len(shape) // 2]:
            n *= s
        sizes[a] = n
    rows = [af.concat([af.reshape(blocks[a][b], (sizes[a], sizes[b])) for b in names],
                      axis=1) for a in names]
    return af.concat(rows, axis=0)


def lotka_volterra_rhs(u: Any, alpha: float = 1.1, beta: float = 0.4, delta: float = 0.1,
                       gamma: float = 0.4) -> Any:
    """Lotka-Volterra predator-prey right-hand side ``du/dt`` for ``u = (prey, predator)``.

    Parameters
    ----------
    u : Tensor
        Shape ``(2,)``.
    alpha, beta, delta, gamma : float
        Prey growth, predation, predator growth per prey eaten, predator death rates.

    Returns
    -------
    Tensor
        ``(alpha x - beta x y, delta x y - gamma y)``, shape ``(2,)``.
    """
    x, y = u[0], u[1]
    return af.stack([alpha * x - beta * x * y, delta * x * y - gamma * y])


def robertson_rhs(u: Any, k1: float = 0.04, k2: float = 3e7, k3: float = 1e4) -> Any:
    """Robertson's stiff chemical kinetics (three species; ``A -> B``, ``2B -> B + C``,
    ``B + C -> A + C``).

    Parameters
    ----------
    u : Tensor
        Concentrations, shape ``(3,)``.
    k1, k2, k3 : float
        Rate constants (the classic values by default).

    Returns
    -------
    Tensor
        ``du/dt``, shape ``(3,)`` (its entries sum to zero: mass is conserved).
    """
    a, b, c = u[0], u[1], u[2]
    return af.stack([-k1 * a + k3 * b * c,
                     k1 * a - k3 * b * c - k2 * b * b,
                     k2 * b * b])


def ode_jacobian(rhs: Callable[..., Any], u: Any, *params: Any) -> Any:
    """``d rhs(u, *params) / d u`` with forward mode (``jacfwd``).

    Parameters
    ----------
    rhs : callable
        ``rhs(u, *params) -> du/dt`` of ``u``'s shape.
    u : Tensor
        The state, shape ``(n,)``.
    *params
        Passed on to ``rhs`` (not differentiated).

    Returns
    -------
    Tensor
        The ``(n, n)`` Jacobian.
    """
    return jacfwd(rhs)(u, *params)


def implicit_euler_step(rhs: Callable[..., Any], u: Any, dt: float, *params: Any,
                        newton_iters: int = 20) -> Any:
    """One implicit (backward) Euler step ``v = u + dt * rhs(v)``, by Newton's method with
    the Jacobian from :func:`ode_jacobian` (the stiff solver's building block).

    Parameters
    ----------
    rhs : callable
        ``rhs(u, *params)``.
    u : Tensor
        The state, shape ``(n,)``.
    dt : float
        The step.
    *params
        Passed on to ``rhs``.
    newton_iters : int, default 20
        Newton iterations (a fixed number: no data-dependent control flow, so it stays
        lazy on Dask).

    Returns
    -------
    Tensor
        The state after the step, shape ``(n,)``.
    """
    v = u
    eye = af.eye(u.shape[0], dtype=u.dtype)
    for _ in range(newton_iters):
        residual = v - u - dt * rhs(v, *params)
        jac = eye - dt * ode_jacobian(rhs, v, *params)
        v = v - af.linalg.solve(jac, residual[:, None])[:, 0]
    return v


def main() -> None:  # pragma: no cover - a demonstration
    """Print the two examples' results."""
    af.manual_seed(0)
    model = make_model()
    x, y = af.randn(8, 3), af.randn(8)
    H = hessian_matrix(loss_hessian(model, x, y))
    print("loss Hessian:", tuple(H.shape), "symmetric:",
          bool(af.all(af.abs(H - H.T) < 1e-5)))
    print("Lotka-Volterra Jacobian at (10, 5):\n",
          ode_jacobian(lotka_volterra_rhs, af.asarray([10.0, 5.0])))
    u = af.asarray([1.0, 0.0, 0.0])
    for _ in range(5):
        u = implicit_euler_step(robertson_rhs, u, 0.1)
    print("Robertson after 5 implicit steps:", u, "mass:", float(af.sum(u)))


if __name__ == "__main__":  # pragma: no cover
    main()
