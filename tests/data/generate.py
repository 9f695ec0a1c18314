"""Regenerate the golden values in ``tests/data/*.json`` from PyTorch.

Every number in these files is an output of PyTorch 2.13.0 (CPU, float64), the version
installed by the ``oracle`` extra; nothing in them comes from arrayflow. The inputs and the
calls are the test files' own (imported from them), so a case added to a test file gets its
reference by re-running this script::

    .venv/bin/python tests/data/generate.py            # rewrite every file
    .venv/bin/python tests/data/generate.py --check    # exit 1 if a value would change

The script is deterministic: inputs are closed-form (``sin``/``cos`` of indices, no random
draws), PyTorch runs single-threaded, and the JSON is written with sorted keys and
``repr``-exact floats, so a re-run on the same machine rewrites identical bytes. Another
CPU may round a float64 kernel's last bit differently, so ``--check`` compares numbers within
``CHECK_RTOL``/``CHECK_ATOL`` (far tighter than any test's tolerance).

Files
-----
``nn_functional.json``
    For each ``Case`` of ``tests/test_nn_functional.py``: ``out`` is the float64 output of
    ``case.fn(torch.nn.functional, **inputs)`` and ``grads[k]`` the gradient of
    ``sum(out * _cot(out.shape))`` with respect to differentiable input ``k``.
``nn_layers.json``
    ``ref["mlp"][loss]``: the loss and every parameter's gradient of ``tests/test_nn_layers.py``'s
    MLP under five losses; ``ref[bn]``: a BatchNorm's training output, running statistics
    after two steps and eval output; ``ref["calculate_gain"]``: ``torch.nn.init.calculate_gain``
    for each of ``GAIN_ARGS``.
``optim.json``
    ``trajectories[id]``: ``cat(W.flatten(), b)`` after each of ``STEPS`` steps of
    ``torch.optim.<Name>([W, b], **options)`` on ``mean((tanh(X @ W + b) - Y) ** 2)``, for
    each ``(Name, options)`` of ``OPTIMIZER_CONFIGS`` in ``tests/test_optim.py``;
    ``groups``: the same with two parameter groups (``test_param_groups_trajectory...``);
    ``schedules[name]``: ``get_last_lr()[0]`` after construction and after each of 12
    ``optimizer.step(); scheduler.step()`` with SGD at lr=0.1 (``make_torch_scheduler``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent
TESTS = DATA.parent
TORCH_VERSION = "2.13.0"


def _torch():
    import torch

    if torch.__version__.split("+")[0] != TORCH_VERSION:
        raise SystemExit(f"generate.py: the golden values come from PyTorch {TORCH_VERSION}, "
                         f"this is {torch.__version__}")
    torch.set_num_threads(1)
    return torch


def _header(what):
    # "_source" sorts first in the file
    return {"_source": f"PyTorch {TORCH_VERSION} (CPU, float64), {what}; "
                       "regenerate with tests/data/generate.py, do not edit by hand"}


# --- tests/test_nn_functional.py --------------------------------------------------------------
def nn_functional():
    torch = _torch()
    import test_nn_functional as t
    import torch.nn.functional as TF

    cases = {}
    for case in t.CASES:
        grads = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True)
                 for k, v in case.grad.items()}
        const = {k: torch.from_numpy(np.asarray(v)) for k, v in case.const.items()}
        out = case.fn(TF, **grads, **const)
        (out * torch.from_numpy(t._cot(tuple(out.shape)))).sum().backward()
        cases[case.name] = {"out": out.detach().numpy().tolist(),
                            "grads": {k: g.grad.numpy().tolist() for k, g in grads.items()}}
    return {**_header("torch.nn.functional outputs and input gradients of "
                      "tests/test_nn_functional.py's CASES"), "cases": cases}


# --- tests/test_nn_layers.py ----------------------------------------------------------------
def nn_layers():
    torch = _torch()
    import test_nn_layers as layers
    import torch.nn as tnn

    _x = layers._x

    def tx(*shape, **kw):
        return torch.from_numpy(_x(*shape, **kw))

    model = tnn.Sequential(tnn.Linear(4, 5), tnn.Tanh(), tnn.Linear(5, 6), tnn.GELU(),
                           tnn.Linear(6, 3)).double()
    with torch.no_grad():
        for i, layer in enumerate([model[0], model[2], model[4]]):
            layer.weight.copy_(tx(*layer.weight.shape, phase=0.1 * i, scale=0.8))
            layer.bias.copy_(tx(*layer.bias.shape, phase=1.0 + i, scale=0.3))
    x, t = torch.from_numpy(layers.MLP_X), torch.from_numpy(layers.MLP_T)
    losses = {
        "ce": tnn.CrossEntropyLoss(label_smoothing=0.1)(model(x), t),
        "nll": tnn.NLLLoss()(tnn.LogSoftmax(dim=1)(model(x)), t),
        "mse": tnn.MSELoss()(tnn.Softmax(dim=1)(model(x)), tx(6, 3)),
        "l1": tnn.L1Loss(reduction="sum")(model(x), tx(6, 3)),
        "bce": tnn.BCEWithLogitsLoss()(model(x), torch.from_numpy(np.abs(_x(6, 3, scale=1.0)))),
    }
    ref = {"mlp": {}}
    for name, loss in losses.items():
        model.zero_grad()
        loss.backward(retain_graph=True)
        ref["mlp"][name] = {"loss": loss.item(), "grads": {
            n: p.grad.numpy().tolist() for n, p in model.named_parameters()}}
    for key, make, shape in [("bn1d", lambda: tnn.BatchNorm1d(3), (4, 3)),
                             ("bn1d-3d", lambda: tnn.BatchNorm1d(3, momentum=0.3), (2, 3, 4)),
                             ("bn2d-cma", lambda: tnn.BatchNorm2d(2, momentum=None),
                              (2, 2, 3, 2))]:
        bn = make().double()
        with torch.no_grad():
            bn.weight.copy_(tx(*bn.weight.shape, phase=1.0))
            bn.bias.copy_(tx(*bn.bias.shape, phase=2.0))
        y1 = bn(tx(*shape))
        bn(tx(*shape, phase=0.9, scale=3.0))
        entry = {"train_out": y1.detach().numpy().tolist(),
                 "running_mean": bn.running_mean.numpy().tolist(),
                 "running_var": bn.running_var.numpy().tolist()}
        bn.eval()
        entry["eval_out"] = bn(tx(*shape, phase=2.5)).detach().numpy().tolist()
        ref[key] = entry
    ref["calculate_gain"] = [tnn.init.calculate_gain(n, *a) for n, *a in layers.GAIN_ARGS]
    return {**_header("torch.nn losses, parameter gradients and BatchNorm statistics of "
                      "tests/test_nn_layers.py's models"), "ref": ref}


# --- tests/test_optim.py -----------------------------------------------------------------------
def _torch_params(torch, t):
    w = torch.tensor(t.W0, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(t.B0, dtype=torch.float64, requires_grad=True)
    return w, b


def _torch_run(torch, t, opt, w, b):
    x = torch.tensor(t.X, dtype=torch.float64)
    y = torch.tensor(t.Y, dtype=torch.float64)
    steps = []
    for _ in range(t.STEPS):
        opt.zero_grad()
        torch.mean((torch.tanh(x @ w + b) - y) ** 2).backward()
        opt.step()
        steps.append(torch.cat([w.detach().reshape(-1), b.detach()]).tolist())
    return steps


def make_torch_scheduler(torch, name, opt):
    """PyTorch's twin of ``tests/test_optim.py::make_scheduler``."""
    sched = torch.optim.lr_scheduler
    if name == "StepLR":
        return sched.StepLR(opt, 3, gamma=0.5)
    if name == "CosineAnnealingLR":
        return sched.CosineAnnealingLR(opt, 4, eta_min=0.01)
    return sched.LambdaLR(opt, lambda e: 0.9**e + 0.01 * e)


def optim():
    torch = _torch()
    import test_optim as t

    trajectories = {}
    for cid, (name, options) in zip(t.config_ids(t.OPTIMIZER_CONFIGS), t.OPTIMIZER_CONFIGS):
        w, b = _torch_params(torch, t)
        trajectories[cid] = _torch_run(torch, t, getattr(torch.optim, name)([w, b], **options),
                                       w, b)
    w, b = _torch_params(torch, t)
    opt = torch.optim.SGD([{"params": [w]}, {"params": b, "lr": 0.01, "momentum": 0.5}],
                          lr=0.1, momentum=0.9)
    groups = _torch_run(torch, t, opt, w, b)
    schedules = {}
    for name in t.SCHEDULERS:
        p = torch.zeros(1, dtype=torch.float64, requires_grad=True)
        opt = torch.optim.SGD([p], lr=0.1)
        sched = make_torch_scheduler(torch, name, opt)
        lrs = [sched.get_last_lr()[0]]
        for _ in range(12):
            opt.step()
            sched.step()
            lrs.append(sched.get_last_lr()[0])
        schedules[name] = lrs
    return {**_header("torch.optim trajectories and lr_scheduler learning rates of "
                      "tests/test_optim.py"),
            "trajectories": trajectories, "groups": groups, "schedules": schedules}


FILES = {"nn_functional.json": nn_functional, "nn_layers.json": nn_layers,
         "optim.json": optim}


def _dump(obj):
    return json.dumps(obj, indent=1, sort_keys=True) + "\n"


CHECK_RTOL, CHECK_ATOL = 1e-13, 1e-15
"""``--check`` tolerance: PyTorch's float64 kernels may round the last bit differently on
another CPU (vector width, thread count); anything larger is a changed or hand-edited value."""


def _differences(stored, fresh, path=""):
    """Where ``stored`` (from disk) and ``fresh`` (PyTorch now) differ: keys, lengths, types,
    strings exactly, numbers beyond ``CHECK_RTOL``/``CHECK_ATOL``."""
    if isinstance(fresh, dict):
        if not isinstance(stored, dict) or set(stored) != set(fresh):
            return [f"{path or '/'}: keys differ"]
        return [d for k in sorted(fresh) for d in _differences(stored[k], fresh[k], f"{path}/{k}")]
    if isinstance(fresh, list):
        if not isinstance(stored, list) or len(stored) != len(fresh):
            return [f"{path}: lengths differ"]
        return [d for i, (a, b) in enumerate(zip(stored, fresh))
                for d in _differences(a, b, f"{path}[{i}]")]
    if isinstance(fresh, (int, float)) and not isinstance(fresh, bool):
        if (isinstance(stored, (int, float)) and not isinstance(stored, bool)
                and (stored == fresh or abs(stored - fresh) <= CHECK_ATOL + CHECK_RTOL * abs(fresh)
                     or (stored != stored and fresh != fresh))):
            return []
        return [f"{path}: {stored!r} on disk, {fresh!r} from PyTorch"]
    return [] if stored == fresh else [f"{path}: {stored!r} on disk, {fresh!r} from PyTorch"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the files on disk (numbers within CHECK_RTOL and "
                             "CHECK_ATOL) instead of writing them")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(TESTS))  # the test modules and their conftest
    stale = []
    for fname, make in FILES.items():
        fresh = json.loads(_dump(make()))  # as the file would hold it (tuples become lists)
        path = DATA / fname
        if args.check:
            if not path.exists():
                stale.append(f"{fname}: missing")
                continue
            diffs = _differences(json.loads(path.read_text()), fresh)
            stale += [f"{fname}{d}" for d in diffs[:10]]
        else:
            path.write_text(_dump(fresh))
            print(f"wrote {path.relative_to(TESTS.parent)}")
    if stale:
        print("out of date (re-run tests/data/generate.py):\n  " + "\n  ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
