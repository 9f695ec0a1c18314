"""Tests of arrayflow.optim: optimizers and schedulers against PyTorch's values.

The reference values live in ``tests/data/optim.json``, PyTorch 2.13.0's (CPU, float64)
outputs written by ``tests/data/generate.py``: ``torch.optim.<Name>(params, **options)``
for each of ``OPTIMIZER_CONFIGS``, 5 steps on the problem ``mean((tanh(X @ W + b) - Y) ** 2)``
defined here (``X``, ``Y``, ``W0``, ``B0``), recording ``W.flatten()`` and ``b`` after every
step; and the ``SCHEDULERS``' ``get_last_lr()[0]`` after construction and after each of 12
``optimizer.step(); scheduler.step()`` with SGD at lr=0.1. PyTorch is not needed to run
these tests.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from conftest import forbid_compute, is_lazy, on_backend

import arrayflow as af
import arrayflow.optim as optim
from arrayflow.optim import lr_scheduler

X = [[math.sin(1.0 + i * 3 + j) for j in range(3)] for i in range(4)]
Y = [[math.cos(0.5 * i + j) for j in range(2)] for i in range(4)]
W0 = [[0.1 * (i - j) + 0.05 * i * j for j in range(2)] for i in range(3)]
B0 = [0.2, -0.3]
STEPS = 5

OPTIMIZER_CONFIGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"dampening": 0.5, "lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("SGD", {"lr": 0.1, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.1, "maximize": True}),
    ("SGD", {"lr": 0.1, "maximize": True, "momentum": 0.9, "nesterov": True,
             "weight_decay": 0.1}),
    ("Adam", {"lr": 0.1}),
    ("Adam", {"amsgrad": True, "lr": 0.1}),
    ("Adam", {"lr": 0.1, "weight_decay": 0.1}),
    ("Adam", {"amsgrad": True, "betas": (0.8, 0.9), "eps": 1e-06, "lr": 0.1, "maximize": True,
              "weight_decay": 0.1}),
    ("AdamW", {"lr": 0.1}),
    ("AdamW", {"amsgrad": True, "lr": 0.1, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"centered": True, "lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9}),
    ("RMSprop", {"alpha": 0.9, "centered": True, "lr": 0.01, "momentum": 0.5,
                 "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "maximize": True}),
]
"""``(torch.optim name, options)`` run for ``STEPS`` steps against PyTorch's trajectory."""

SCHEDULERS = ["StepLR", "CosineAnnealingLR", "LambdaLR"]
"""Schedulers compared with PyTorch's learning rates (built by ``make_scheduler``)."""


def config_ids(configs):
    """Test ids (and keys of ``optim.json``'s trajectories): ``"SGD-lr=0.1-momentum=0.9"``."""
    return [f"{n}-" + "-".join(f"{k}={v}" for k, v in kw.items()) for n, kw in configs]


@functools.cache
def torch_reference():
    """PyTorch 2.13's values, from ``tests/data/optim.json`` (``tests/data/generate.py``)."""
    return json.loads((Path(__file__).parent / "data" / "optim.json").read_text())


def torch_trajectory(name, options):
    """PyTorch's ``STEPS`` flat parameter vectors for ``(name, options)`` of the configs."""
    [cid] = [i for i, (n, kw) in zip(config_ids(OPTIMIZER_CONFIGS), OPTIMIZER_CONFIGS)
             if n == name and kw == options]
    return torch_reference()["trajectories"][cid]


class _Trajectories(Sequence):
    """``(name, options, PyTorch's trajectory)`` for each of ``OPTIMIZER_CONFIGS``; the
    trajectory is read from ``optim.json`` when an item is taken (``tests/oracle`` reads the
    configurations through this name)."""

    def __len__(self):
        return len(OPTIMIZER_CONFIGS)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(len(self))[i]]
        name, options = OPTIMIZER_CONFIGS[i]
        return name, options, torch_trajectory(name, options)


TORCH_TRAJECTORIES = _Trajectories()


# --- helpers ---------------------------------------------------------------------------
def make_params():
    w = af.asarray(W0, dtype=af.float64).requires_grad_()
    b = af.asarray(B0, dtype=af.float64).requires_grad_()
    return w, b


def loss_fn(w, b):
    x = af.asarray(X, dtype=af.float64)
    y = af.asarray(Y, dtype=af.float64)
    return af.mean((af.tanh(x @ w + b) - y) ** 2)


def flat(w, b):
    return np.concatenate([np.asarray(w.detach().numpy()).reshape(-1),
                           np.asarray(b.detach().numpy())])


def compute_grads(opt, w, b, backend_name):
    opt.zero_grad()
    with forbid_compute(backend_name):
        loss_fn(w, b).backward()


@contextlib.contextmanager
def count_computes(name):
    """On lazy backends, count scheduler calls (Dask ``persist``/``compute``)."""
    calls = []
    if not is_lazy(name):
        yield calls
        return
    import dask

    def counting_get(dsk, keys, **kwargs):
        calls.append(1)
        return dask.get(dsk, keys, **kwargs)

    with dask.config.set(scheduler=counting_get):
        yield calls


# --- trajectories against PyTorch -----------------------------------------------------------
@pytest.mark.parametrize("backend_name", ["numpy", "strict", "dask"])
@pytest.mark.parametrize("name,options", OPTIMIZER_CONFIGS, ids=config_ids(OPTIMIZER_CONFIGS))
def test_trajectory_matches_pytorch(backend_name, name, options):
    expected = torch_trajectory(name, options)
    assert len(expected) == STEPS
    with on_backend(backend_name):
        w, b = make_params()
        opt = getattr(optim, name)([w, b], **options)
        for k in range(STEPS):
            compute_grads(opt, w, b, backend_name)
            with count_computes(backend_name) as calls:
                opt.step()
            # one materialization per group on lazy backends, nothing else computed
            assert len(calls) == (1 if is_lazy(backend_name) else 0)
            np.testing.assert_allclose(flat(w, b), expected[k], rtol=1e-12, atol=1e-14)
        assert w.backend.name == backend_name and w.dtype is af.float64
        assert w.requires_grad and w.is_leaf


def test_param_groups_trajectory_matches_pytorch():
    w, b = make_params()
    opt = optim.SGD([{"params": [w]}, {"params": b, "lr": 0.01, "momentum": 0.5}],
                    lr=0.1, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.01]
    assert opt.param_groups[1]["params"] == [b]
    for k in range(STEPS):
        compute_grads(opt, w, b, "numpy")
        opt.step()
        np.testing.assert_allclose(flat(w, b), torch_reference()["groups"][k], rtol=1e-12,
                                   atol=1e-14)


def test_dask_step_persists_parameters():
    with on_backend("dask", chunks=1):
        w, b = make_params()
        opt = optim.Adam([w, b], lr=0.1, amsgrad=True)
        sizes = []
        for _ in range(20):
            compute_grads(opt, w, b, "dask")
            with count_computes("dask") as calls:
                opt.step()
            assert len(calls) == 1
            sizes.append((len(w.array.__dask_graph__()), len(b.array.__dask_graph__()),
                           len(opt.state[w]["exp_avg"].array.__dask_graph__())))
        assert len(set(sizes)) == 1, sizes
        assert sizes[0][0] == w.array.npartitions


# --- the optimizer base ----------------------------------------------------------------
def test_step_writes_in_place_and_bumps_version():
    w, b = make_params()
    data, v0 = w.data, w._version
    opt = optim.SGD([w, b], lr=0.1)
    compute_grads(opt, w, b, "numpy")
    opt.step()
    assert w._version == v0 + 1
    # .data shares the storage
    np.testing.assert_array_equal(data.detach().numpy(), w.detach().numpy())
    assert w.grad_fn is None and w.requires_grad


def test_step_closure_returns_loss_with_grad_enabled():
    w, b = make_params()
    opt = optim.SGD([w, b], lr=0.1)
    seen = []

    def closure():
        seen.append(af.is_grad_enabled())
        opt.zero_grad()
        loss = loss_fn(w, b)
        loss.backward()
        return loss

    with af.no_grad():
        loss = opt.step(closure)
    assert seen == [True]
    assert isinstance(loss, af.Tensor) and loss.requires_grad
    np.testing.assert_allclose(flat(w, b), torch_trajectory("SGD", {"lr": 0.1})[0], rtol=1e-12)
    assert opt.step() is None


def test_params_without_grad_are_skipped():
    w, b = make_params()
    opt = optim.Adam([w, b], lr=0.1)
    w.grad = af.ones_like(w)
    opt.step()
    assert b not in opt.state and opt.state[w]["step"] == 1
    np.testing.assert_array_equal(b.detach().numpy(), np.asarray(B0))


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    w, b = make_params()
    opt = optim.SGD([w, b])
    loss_fn(w, b).backward()
    g = w.grad
    opt.zero_grad(set_to_none=set_to_none)
    if set_to_none:
        assert w.grad is None and b.grad is None
    else:
        assert w.grad is g
        np.testing.assert_array_equal(w.grad.detach().numpy(), np.zeros((3, 2)))


@pytest.mark.parametrize("backend_name", ["numpy", "strict", "dask"])
def test_state_does_not_alias_grad(backend_name):
    """A momentum buffer that starts as the gradient survives zeroing the gradient in place."""
    with on_backend(backend_name):
        w = af.ones(2, dtype=af.float64).requires_grad_()
        opt = optim.SGD([w], lr=0.1, momentum=0.9)
        w.grad = af.ones(2, dtype=af.float64)
        opt.step()
        opt.zero_grad(set_to_none=False)
        np.testing.assert_array_equal(opt.state[w]["momentum_buffer"].detach().numpy(),
                                      [1.0, 1.0])
        w.grad = af.ones(2, dtype=af.float64)
        opt.step()
        np.testing.assert_allclose(w.detach().numpy(), [1 - 0.1 - 0.19] * 2, rtol=1e-15)


def test_constructor_errors():
    w, b = make_params()
    with pytest.raises(TypeError, match="iterable of Tensors or dicts"):
        optim.SGD(w)
    with pytest.raises(TypeError, match="set"):
        optim.SGD({w, b})
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.SGD([])
    with pytest.raises(TypeError, match="can only optimize Tensors, got int"):
        optim.SGD([w, 3])
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [w]}, {"params": [w, b]}])
    with pytest.raises(ValueError, match="non-leaf"):
        optim.SGD([w * 2])
    with pytest.raises(ValueError, match="didn't specify a value of required"):
        optim.Optimizer([w], {"lr": optim.required})


def test_add_param_group():
    w, b = make_params()
    opt = optim.Adam([w], lr=0.1)
    opt.add_param_group({"params": b, "betas": (0.5, 0.6)})
    g = opt.param_groups[1]
    assert g["params"] == [b] and g["betas"] == (0.5, 0.6) and g["lr"] == 0.1
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        opt.add_param_group({"params": [af.zeros(2)], "lr": -1})
    assert len(opt.param_groups) == 2


@pytest.mark.parametrize("cls,kwargs,message", [
    (optim.SGD, {"lr": -1}, "Invalid learning rate: -1"),
    (optim.SGD, {"momentum": -0.5}, "Invalid momentum value: -0.5"),
    (optim.SGD, {"weight_decay": -1e-3}, "Invalid weight_decay value: -0.001"),
    (optim.SGD, {"nesterov": True}, "Nesterov momentum requires a momentum and zero dampening"),
    (optim.SGD, {"nesterov": True, "momentum": 0.9, "dampening": 0.1},
     "Nesterov momentum requires a momentum and zero dampening"),
    (optim.Adam, {"lr": -0.1}, "Invalid learning rate: -0.1"),
    (optim.Adam, {"eps": -1}, "Invalid epsilon value: -1"),
    (optim.Adam, {"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0: 1.0"),
    (optim.Adam, {"betas": (0.9, -0.1)}, "Invalid beta parameter at index 1: -0.1"),
    (optim.Adam, {"weight_decay": -1}, "Invalid weight_decay value: -1"),
    (optim.AdamW, {"lr": -1}, "Invalid learning rate: -1"),
    (optim.AdamW, {"betas": (0.9, 1.5)}, "Invalid beta parameter at index 1: 1.5"),
    (optim.RMSprop, {"lr": -1}, "Invalid learning rate: -1"),
    (optim.RMSprop, {"eps": -1}, "Invalid epsilon value: -1"),
    (optim.RMSprop, {"momentum": -1}, "Invalid momentum value: -1"),
    (optim.RMSprop, {"weight_decay": -1}, "Invalid weight_decay value: -1"),
    (optim.RMSprop, {"alpha": -1}, "Invalid alpha value: -1"),
])
def test_argument_validation(cls, kwargs, message):
    w, _ = make_params()
    with pytest.raises(ValueError, match=message) as info:
        cls([w], **kwargs)
    assert cls.__name__ in str(info.value) or "Nesterov" in str(info.value)


def test_defaults():
    w, _ = make_params()
    assert optim.SGD([w]).defaults == dict(lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                                           nesterov=False, maximize=False)
    assert optim.Adam([w]).defaults == dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                                            weight_decay=0, amsgrad=False, maximize=False)
    assert optim.AdamW([w]).defaults["weight_decay"] == 1e-2
    d = optim.RMSprop([w]).defaults
    assert (d["lr"], d["alpha"], d["eps"], d["momentum"], d["centered"]) == (
        1e-2, 0.99, 1e-8, 0, False)


# --- atomic step ---------------------------------------------------------------------
def snapshot(opt, params):
    values = [p.detach().numpy().copy() for p in params]
    versions = [p._version for p in params]
    state = {id(p): {k: (v.detach().numpy().copy() if isinstance(v, af.Tensor) else v)
                     for k, v in s.items()} for p, s in opt.state.items()}
    return values, versions, state


def assert_unchanged(before, after):
    (v0, ver0, s0), (v1, ver1, s1) = before, after
    for a, b in zip(v0, v1):
        np.testing.assert_array_equal(a, b, strict=True)
    assert ver0 == ver1
    assert s0.keys() == s1.keys()
    for key in s0:
        assert s0[key].keys() == s1[key].keys()
        for k in s0[key]:
            np.testing.assert_array_equal(s0[key][k], s1[key][k], strict=True)


@pytest.mark.parametrize("backend_name", ["numpy", "strict", "dask"])
@pytest.mark.parametrize("failure", ["grad_shape", "group_value", "grad_dtype"])
def test_step_is_atomic(backend_name, failure):
    with on_backend(backend_name):
        w, b = make_params()
        opt = optim.Adam([{"params": [w]}, {"params": [b], "lr": 0.01}], lr=0.1,
                         amsgrad=True)
        for _ in range(2):
            compute_grads(opt, w, b, backend_name)
            opt.step()
        compute_grads(opt, w, b, backend_name)
        before = snapshot(opt, [w, b])
        state_objects = {id(p): dict(s) for p, s in opt.state.items()}
        if failure == "grad_shape":  # (assigning .grad checks it: set the slot to corrupt)
            b._grad = af.ones(3, dtype=af.float64)
            error = ValueError
            match = r"Adam.step: the gradient .* shape \(2,\), got \(3,\)"
        elif failure == "grad_dtype":
            b._grad = af.ones(2, dtype=af.float32)
            error = TypeError
            match = "dtype float64, got float32"
        else:
            opt.param_groups[1]["betas"] = (0.9, 1.5)
            error = ValueError
            match = "Invalid beta parameter at index 1: 1.5"
        with pytest.raises(error, match=match):
            opt.step()
        assert_unchanged(before, snapshot(opt, [w, b]))
        for p, s in opt.state.items():
            assert all(s[k] is state_objects[id(p)][k] for k in s)


# --- state dicts -----------------------------------------------------------------------
def test_state_dict_format():
    w, b = make_params()
    opt = optim.Adam([{"params": [w]}, {"params": [b], "lr": 0.01}], lr=0.1, amsgrad=True)
    compute_grads(opt, w, b, "numpy")
    opt.step()
    sd = opt.state_dict()
    assert set(sd) == {"state", "param_groups"}
    assert [g["params"] for g in sd["param_groups"]] == [[0], [1]]
    assert sd["param_groups"][1]["lr"] == 0.01 and sd["param_groups"][0]["amsgrad"] is True
    assert set(sd["state"]) == {0, 1}
    assert set(sd["state"][0]) == {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}
    assert sd["state"][0]["step"] == 1
    assert isinstance(sd["state"][0]["exp_avg"], af.Tensor)
    assert sd["state"][0]["exp_avg"].shape == (3, 2)


@pytest.mark.parametrize("name,options", [
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("Adam", {"lr": 0.1, "amsgrad": True}),
    ("AdamW", {"lr": 0.1}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "centered": True, "momentum": 0.5,
                 "weight_decay": 0.1}),
])
def test_state_dict_round_trip(name, options):
    expected = torch_trajectory(name, options)
    w, b = make_params()
    opt = getattr(optim, name)([w, b], **options)
    for _ in range(3):
        compute_grads(opt, w, b, "numpy")
        opt.step()
    sd = opt.state_dict()
    # a fresh optimizer, on fresh parameters with the same values, on another backend
    with on_backend("strict"):
        w2 = af.asarray(w.detach().numpy().tolist(), dtype=af.float64).requires_grad_()
        b2 = af.asarray(b.detach().numpy().tolist(), dtype=af.float64).requires_grad_()
        opt2 = getattr(optim, name)([w2, b2], lr=123.0)
        opt2.load_state_dict(sd)
        assert opt2.param_groups[0]["lr"] == options["lr"]
        assert opt2.param_groups[0]["params"] == [w2, b2]
        for t in opt2.state[w2].values():
            if isinstance(t, af.Tensor):
                assert t.backend.name == "strict"
        for k in range(3, STEPS):
            compute_grads(opt2, w2, b2, "strict")
            opt2.step()
            np.testing.assert_allclose(flat(w2, b2), expected[k], rtol=1e-12, atol=1e-14)
    # the loaded state is a copy: stepping opt2 left opt's state alone
    for _ in range(3, STEPS):
        compute_grads(opt, w, b, "numpy")
        opt.step()
    np.testing.assert_array_equal(flat(w, b), flat(w2, b2))


def test_load_state_dict_mismatch_changes_nothing():
    w, b = make_params()
    opt = optim.SGD([w, b], lr=0.1, momentum=0.9)
    compute_grads(opt, w, b, "numpy")
    opt.step()
    sd = opt.state_dict()
    w2, b2 = make_params()
    other = optim.SGD([{"params": [w2]}, {"params": [b2]}], lr=0.5)
    groups, state = other.param_groups, other.state
    with pytest.raises(ValueError, match="different number of parameter groups: expected 2"):
        other.load_state_dict(sd)
    two = {"state": {}, "param_groups": [dict(sd["param_groups"][0], params=[0, 1]),
                                         dict(sd["param_groups"][0], params=[])]}
    with pytest.raises(ValueError, match=r"param_groups\[0\] expected 1 parameters, got 2"):
        other.load_state_dict(two)
    bad_shape = {"state": {0: {"momentum_buffer": af.zeros(5, dtype=af.float64)}},
                 "param_groups": [dict(sd["param_groups"][0], params=[0]),
                                  dict(sd["param_groups"][0], params=[1])]}
    with pytest.raises(ValueError, match=r"'momentum_buffer' .* shape \(3, 2\), got \(5,\)"):
        other.load_state_dict(bad_shape)
    with pytest.raises(ValueError, match="missing"):
        other.load_state_dict({"state": {}})
    assert other.param_groups is groups and other.state is state
    assert [g["lr"] for g in other.param_groups] == [0.5, 0.5] and other.state == {}


# --- schedulers --------------------------------------------------------------------------
def make_scheduler(name, opt):
    if name == "StepLR":
        return lr_scheduler.StepLR(opt, 3, gamma=0.5)
    if name == "CosineAnnealingLR":
        return lr_scheduler.CosineAnnealingLR(opt, 4, eta_min=0.01)
    return lr_scheduler.LambdaLR(opt, lambda e: 0.9**e + 0.01 * e)


@pytest.mark.parametrize("name", SCHEDULERS)
def test_scheduler_matches_pytorch(name):
    p = af.zeros(1, dtype=af.float64).requires_grad_()
    opt = optim.SGD([p], lr=0.1)
    sched = make_scheduler(name, opt)
    assert sched.last_epoch == 0 and opt.param_groups[0]["initial_lr"] == 0.1
    lrs = [sched.get_last_lr()[0]]
    for _ in range(12):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    np.testing.assert_allclose(lrs, torch_reference()["schedules"][name], rtol=1e-13)
    assert sched.last_epoch == 12 and opt.param_groups[0]["lr"] == lrs[-1]


def test_scheduler_formulas():
    p = af.zeros(1, dtype=af.float64).requires_grad_()
    opt = optim.SGD([p], lr=0.2)
    sched = lr_scheduler.CosineAnnealingLR(opt, 10, eta_min=0.02)
    for t in range(1, 11):
        sched.step()
        assert sched.get_last_lr()[0] == pytest.approx(
            0.02 + (0.2 - 0.02) * (1 + math.cos(math.pi * t / 10)) / 2, rel=1e-12)
    opt = optim.SGD([p], lr=1.0)
    sched = lr_scheduler.StepLR(opt, 2, gamma=0.1)
    for t in range(1, 7):
        sched.step()
        assert sched.get_last_lr()[0] == pytest.approx(0.1 ** (t // 2), rel=1e-12)


def test_scheduler_drives_the_optimizer_lr():
    w = af.ones(2, dtype=af.float64).requires_grad_()
    opt = optim.SGD([w], lr=1.0)
    sched = lr_scheduler.LambdaLR(opt, lambda e: 0.5**e)
    for _ in range(3):
        w.grad = af.ones(2, dtype=af.float64)
        opt.step()
        sched.step()
    np.testing.assert_allclose(w.detach().numpy(), [1 - 1 - 0.5 - 0.25] * 2)


def test_scheduler_state_dict_round_trip():
    p = af.zeros(1, dtype=af.float64).requires_grad_()
    opt = optim.SGD([p], lr=0.1)
    sched = lr_scheduler.StepLR(opt, 3, gamma=0.5)
    for _ in range(4):
        sched.step()
    sd = sched.state_dict()
    assert "optimizer" not in sd and sd["last_epoch"] == 4 and sd["base_lrs"] == [0.1]
    opt2 = optim.SGD([p], lr=0.1)
    opt2.load_state_dict(opt.state_dict())
    sched2 = lr_scheduler.StepLR(opt2, 1, gamma=0.9)
    sched2.load_state_dict(sd)
    assert (sched2.step_size, sched2.gamma, sched2.last_epoch) == (3, 0.5, 4)
    for _ in range(5):
        sched.step()
        sched2.step()
        assert sched2.get_last_lr() == sched.get_last_lr()

    lam = lr_scheduler.LambdaLR(opt, lambda e: 1.0)
    assert lam.state_dict()["lr_lambdas"] == [None]


def test_scheduler_errors():
    p = af.zeros(1, dtype=af.float64).requires_grad_()
    opt = optim.SGD([p], lr=0.1)
    with pytest.raises(KeyError, match=r"'initial_lr' is not specified in param_groups\[0\]"):
        lr_scheduler.StepLR(opt, 3, last_epoch=5)
    with pytest.raises(TypeError, match="StepLR: argument optimizer expected"):
        lr_scheduler.StepLR(object(), 3)
    with pytest.raises(ValueError, match="StepLR: argument step_size expected a positive"):
        lr_scheduler.StepLR(opt, 0)
    with pytest.raises(ValueError, match="LambdaLR: argument lr_lambda expected 1 functions"):
        lr_scheduler.LambdaLR(opt, [lambda e: 1.0, lambda e: 2.0])
    resumed = lr_scheduler.StepLR(opt, 3)
    assert resumed.last_epoch == 0
    opt.param_groups[0]["lr"] = 0.1
    r = lr_scheduler.StepLR(opt, 3, gamma=0.5, last_epoch=5)
    assert r.last_epoch == 6 and r.get_last_lr() == [0.05]
