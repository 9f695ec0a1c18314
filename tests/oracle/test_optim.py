"""Every optimizer and LR scheduler against live PyTorch: 20-step parameter trajectories.

The problem is a small float64 MLP, ``mean((tanh(x @ W1 + b1) @ W2 + b2 - y) ** 2)``, with the
same initial parameters in both libraries. The optimizer configurations are those of
``tests/test_optim.py`` (which holds frozen 5-step trajectories) plus the combinations below;
each runs 20 steps here, on every backend, and every step's parameters must equal torch's.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import is_lazy, on_backend
from test_optim import TORCH_TRAJECTORIES

import arrayflow as af
import arrayflow.optim as optim
from arrayflow.optim import lr_scheduler
from oracle import ORACLE_BACKENDS

torch = pytest.importorskip("torch")

STEPS = 20
RTOL, ATOL = 1e-10, 1e-11

EXTRA = [
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.05,
             "maximize": True}),
    ("Adam", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.02, "betas": (0.8, 0.9), "eps": 1e-6, "maximize": True}),
    ("AdamW", {"lr": 0.01, "amsgrad": True}),
    ("AdamW", {"lr": 0.03, "weight_decay": 0.5, "betas": (0.5, 0.7)}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.005, "alpha": 0.9, "eps": 1e-4, "maximize": True}),
]
CONFIGS = [(n, o) for n, o, _ in TORCH_TRAJECTORIES] + EXTRA
LAZY_CONFIGS = [EXTRA[0], EXTRA[2], EXTRA[5], EXTRA[6]]
"""On lazy backends (one persist per step, ~1 s a run) one rich configuration per optimizer;
every configuration runs on the eager ones."""


def _ids(configs):
    return [f"{n}-" + "-".join(f"{k}={v}" for k, v in o.items()) for n, o in configs]


def _problem():
    rng = np.random.default_rng(0)
    data = {"x": rng.uniform(-1, 1, (8, 3)), "y": rng.uniform(-1, 1, (8, 2))}
    params = [rng.uniform(-0.5, 0.5, s) for s in ((3, 4), (4,), (4, 2), (2,))]
    return data, params


def _loss(lib, data, params):
    w1, b1, w2, b2 = params
    h = lib.tanh(data["x"] @ w1 + b1)
    return ((h @ w2 + b2 - data["y"]) ** 2).mean()


def _run(lib, name, options, scheduler=None, groups=False):
    data, init = _problem()
    if lib is torch:
        data = {k: torch.from_numpy(v) for k, v in data.items()}
        params = [torch.from_numpy(p.copy()).requires_grad_() for p in init]
        mod, sched_mod = torch.optim, torch.optim.lr_scheduler
    else:
        data = {k: af.asarray(v) for k, v in data.items()}
        params = [af.asarray(p.copy()).requires_grad_() for p in init]
        mod, sched_mod = optim, lr_scheduler
    if groups:
        spec = [{"params": params[:2]}, {"params": params[2:], "lr": options["lr"] * 3}]
        opt = getattr(mod, name)(spec, **options)
    else:
        opt = getattr(mod, name)(params, **options)
    sched = scheduler(sched_mod, opt) if scheduler else None
    trajectory, lrs = [], []
    for _ in range(STEPS):
        opt.zero_grad()
        _loss(lib, data, params).backward()
        opt.step()
        if sched is not None:
            sched.step()
            lrs.append(sched.get_last_lr())
        trajectory.append(np.concatenate([np.asarray(p.detach().numpy()).reshape(-1)
                                          for p in params]))
    return trajectory, lrs


def _assert_same_trajectory(got, want):
    for k, (g, w) in enumerate(zip(got, want)):
        # atol scales with the parameters: a maximizing run grows them 1e5-fold in 20 steps
        atol = ATOL * max(1.0, float(np.abs(w).max()))
        np.testing.assert_allclose(g, w, rtol=RTOL, atol=atol, err_msg=f"step {k + 1}")


def _with_backends(configs, ids, lazy_configs):
    return [pytest.param(b, *c, id=f"{b}-{i}") for c, i in zip(configs, ids)
            for b in ORACLE_BACKENDS if not is_lazy(b) or c in lazy_configs]


@pytest.mark.parametrize(("backend_name", "name", "options"),
                         _with_backends(CONFIGS, _ids(CONFIGS), LAZY_CONFIGS))
def test_optimizer_trajectory_matches_torch(backend_name, name, options):
    with on_backend(backend_name):
        got, _ = _run(af, name, options)
    want, _ = _run(torch, name, options)
    _assert_same_trajectory(got, want)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop"])
def test_param_groups_trajectory_matches_torch(name, backend):
    options = {"lr": 0.01, "weight_decay": 0.01} if name != "SGD" else {"lr": 0.05,
                                                                         "momentum": 0.9}
    got, _ = _run(af, name, options, groups=True)
    want, _ = _run(torch, name, options, groups=True)
    _assert_same_trajectory(got, want)


SCHEDULERS = {
    "StepLR": lambda m, opt: m.StepLR(opt, 3, gamma=0.5),
    "CosineAnnealingLR": lambda m, opt: m.CosineAnnealingLR(opt, 7, eta_min=0.001),
    "LambdaLR": lambda m, opt: m.LambdaLR(opt, lambda e: 0.9 ** e + 0.01 * e),
}


_SCHED = [(s, o) for s in SCHEDULERS for o in ("SGD", "Adam")]


@pytest.mark.parametrize(("backend_name", "scheduler", "optimizer"),
                         _with_backends(_SCHED, [f"{s}-{o}" for s, o in _SCHED],
                                        [(s, "Adam") for s in SCHEDULERS]))
def test_scheduler_trajectory_matches_torch(backend_name, scheduler, optimizer):
    options = {"lr": 0.05, "momentum": 0.9} if optimizer == "SGD" else {"lr": 0.02}
    with on_backend(backend_name):
        got, got_lrs = _run(af, optimizer, options, SCHEDULERS[scheduler], groups=True)
    want, want_lrs = _run(torch, optimizer, options, SCHEDULERS[scheduler], groups=True)
    np.testing.assert_allclose(np.asarray(got_lrs), np.asarray(want_lrs), rtol=1e-13)
    _assert_same_trajectory(got, want)


COMPLEX_CONFIGS = [("SGD", {"lr": 0.05, "momentum": 0.9, "weight_decay": 0.01}),
                   ("Adam", {"lr": 0.02, "amsgrad": True}), ("AdamW", {"lr": 0.02}),
                   ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.3})]


def _complex_run(lib, name, options):
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, (6, 3)) + 1j * rng.uniform(-1, 1, (6, 3))
    y = rng.uniform(-1, 1, (6,)) + 1j * rng.uniform(-1, 1, (6,))
    w0 = rng.uniform(-0.5, 0.5, (3,)) + 1j * rng.uniform(-0.5, 0.5, (3,))
    conv = torch.from_numpy if lib is torch else af.asarray
    x, y, w = conv(x), conv(y), conv(w0.copy())
    w = w.requires_grad_()
    opt = getattr(torch.optim if lib is torch else optim, name)([w], **options)
    out = []
    for _ in range(STEPS):
        opt.zero_grad()
        r = x @ w - y
        (r.real ** 2 + r.imag ** 2).mean().backward()
        opt.step()
        out.append(np.asarray(w.detach().numpy()).copy())
    return out


@pytest.mark.parametrize(("backend_name", "name", "options"),
                         _with_backends(COMPLEX_CONFIGS, [n for n, _ in COMPLEX_CONFIGS],
                                        [COMPLEX_CONFIGS[1]]))
def test_complex_parameter_trajectory_matches_torch(backend_name, name, options):
    """Complex parameters step on their real view, as PyTorch's optimizers do."""
    with on_backend(backend_name):
        got = _complex_run(af, name, options)
    _assert_same_trajectory(got, _complex_run(torch, name, options))
