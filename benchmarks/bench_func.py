"""``arrayflow.func`` benchmarks: ratios from one run.

Per-sample gradients (the DP-SGD building block): for a batch of 64 digits images, the
gradient of each sample's cross-entropy with respect to every parameter of the digits MLP
(``arrayflow.examples.train.MLP``: 64-128-10, float32), computed three ways on the numpy
backend and CPU torch:

- ``vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)`` (arrayflow),
- a Python loop of ``grad(loss)`` over the 64 samples, stacked (arrayflow),
- ``torch.func.vmap(torch.func.grad(loss), ...)`` on the same weights and data.

All three are checked equal first. Each round times the three back to back (in rotating
order, so a busy machine slows all alike); the ratios reported are medians of the
per-round ratios. The issue's target: ``vmap(grad)`` at least 10x faster than the loop.
BLAS and torch run on one thread (``--threads``): on a shared machine a second thread
makes torch's timings erratic (2 ms or 70 ms for the same call).

``jacfwd`` vs ``jacrev`` (section ``jacobians``): Jacobians of
``f(x) = tanh(W @ x) * 2 + sin(W @ x)`` (float64) on a *wide* function, R^1000 -> R^10
(``W`` of shape (10, 1000): ``jacrev`` needs 10 vector-Jacobian products, ``jacfwd`` 1000
Jacobian-vector products -- ``jacrev`` must win) and a *tall* one, R^10 -> R^1000 (``jacfwd``
10 JVPs, ``jacrev`` 1000 VJPs -- ``jacfwd`` must win). ``jacfwd`` runs one JVP per basis
vector; ``jacrev`` runs the VJP rows batched through ``vmap`` (one backward pass for all
rows, or ``chunk_size`` rows at a time), as torch.func batches both. Both are checked equal
first; each round times the calls back to back (alternating order); the ratio is the
median of the per-round ratios. torch.func's (vmapped) times are printed for reference.

Run: ``python benchmarks/bench_func.py [--rounds 30] [--threads 1] [--jac-rounds 7]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

if __name__ == "__main__":  # before NumPy loads its BLAS
    _t = sys.argv[sys.argv.index("--threads") + 1] if "--threads" in sys.argv else "1"
    for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_v, _t)

import numpy as np  # noqa: E402

import arrayflow as af  # noqa: E402
from arrayflow.func import functional_call, grad, vmap  # noqa: E402

# --- per-sample gradients ------------------------------------------------------------------

def _digits(batch: int):
    from sklearn.datasets import load_digits

    x, y = load_digits(return_X_y=True)
    return (x[:batch] / 16.0).astype(np.float32), y[:batch].astype(np.int64)


def per_sample_grads(rounds: int = 30, batch: int = 64, threads: int = 1) -> dict[str, float]:
    """Median seconds per call and the ratios (loop / vmap, vmap / torch.func)."""
    from arrayflow.examples.train import MLP

    af.manual_seed(0)
    model = MLP()
    params = {k: v.detach() for k, v in model.named_parameters()}
    xn, yn = _digits(batch)
    x, y = af.asarray(xn), af.asarray(yn)

    def loss(p, xi, yi):
        out = functional_call(model, p, (xi[None],))
        return af.nn.functional.cross_entropy(out, yi[None])

    per_sample = vmap(grad(loss), in_dims=(None, 0, 0))
    one = grad(loss)

    def run_vmap():
        return per_sample(params, x, y)

    def run_loop():
        gs = [one(params, x[i], y[i]) for i in range(batch)]
        return {k: af.stack([g[k] for g in gs]) for k in params}

    runs = {"vmap(grad)": run_vmap, "loop of grad": run_loop}
    try:
        import torch
        from torch import func as tfunc
    except ImportError:  # torch is optional: the loop ratio is the target
        torch = None
    if torch is not None:
        torch.set_num_threads(threads)
        tmodel = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(),
                                     torch.nn.Linear(128, 10))
        tparams = {k: torch.asarray(np.asarray(v.numpy())) for k, v in params.items()}
        tx, ty = torch.asarray(xn), torch.asarray(yn)

        def tloss(p, xi, yi):
            out = tfunc.functional_call(tmodel, p, (xi[None],))
            return torch.nn.functional.cross_entropy(out, yi[None])

        t_per_sample = tfunc.vmap(tfunc.grad(tloss), in_dims=(None, 0, 0))
        runs["torch.func vmap(grad)"] = lambda: t_per_sample(tparams, tx, ty)

    # the three agree before anything is timed
    ref = {k: np.asarray(v.numpy()) for k, v in run_vmap().items()}
    for name, fn in runs.items():
        out = fn()
        for k in params:
            v = out[k]
            v = v.detach().numpy() if hasattr(v, "detach") else np.asarray(v.numpy())
            np.testing.assert_allclose(v, ref[k], rtol=1e-4, atol=1e-6,
                                       err_msg=f"{name}: {k} differs from vmap(grad)")
    times: dict[str, list[float]] = {n: [] for n in runs}
    names = list(runs)
    for r in range(rounds):
        for n in names[r % len(names):] + names[:r % len(names)]:
            t0 = time.perf_counter()
            runs[n]()
            times[n].append(time.perf_counter() - t0)
    med = {n: statistics.median(t) for n, t in times.items()}
    loop_ratio = statistics.median(a / b for a, b in zip(times["loop of grad"],
                                                         times["vmap(grad)"]))
    print(f"per-sample gradients, digits MLP 64-128-10, batch {batch}, float32, numpy "
          f"backend ({rounds} rounds, medians):")
    for n in names:
        print(f"  {n:24s} {med[n] * 1e3:9.2f} ms")
    print(f"  loop / vmap(grad):        {loop_ratio:9.1f}x  (target >= 10x)")
    result = {"vmap_s": med["vmap(grad)"], "loop_s": med["loop of grad"],
              "loop_over_vmap": loop_ratio}
    if "torch.func vmap(grad)" in times:
        t_ratio = statistics.median(a / b for a, b in zip(times["vmap(grad)"],
                                                          times["torch.func vmap(grad)"]))
        print(f"  vmap(grad) / torch.func:  {t_ratio:9.2f}x  (for information)")
        result["vmap_over_torch"] = t_ratio
    return result


# --- jacfwd vs jacrev -------------------------------------------------------------------------

def _jac_fn(ns, W):
    def f(x):
        h = W @ x
        return ns.tanh(h) * 2.0 + ns.sin(h)
    return f


def jacobians(rounds: int = 7, threads: int = 1) -> dict[str, float]:
    """Median seconds of jacfwd and jacrev on the wide and the tall function, and the
    median per-round ratios jacfwd / jacrev."""
    from arrayflow.func import jacfwd, jacrev

    rng = np.random.default_rng(0)
    shapes = {"wide R^1000->R^10": (10, 1000), "tall R^10->R^1000": (1000, 10)}
    calls = {}
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        torch.set_num_threads(threads)
    for name, (m, n) in shapes.items():
        Wn = rng.standard_normal((m, n)) / np.sqrt(n)
        xn = rng.standard_normal(n)
        f = _jac_fn(af, af.asarray(Wn))
        x = af.asarray(xn)
        jf, jr = jacfwd(f)(x), jacrev(f)(x)  # warm up, and check they agree
        np.testing.assert_allclose(jf.numpy(), jr.numpy(), rtol=1e-10, atol=1e-12)
        calls[(name, "jacfwd")] = (lambda f=f, x=x: jacfwd(f)(x))
        calls[(name, "jacrev")] = (lambda f=f, x=x: jacrev(f)(x))
        if torch is not None:
            tf = _jac_fn(torch, torch.tensor(Wn))
            tx = torch.tensor(xn)
            np.testing.assert_allclose(torch.func.jacfwd(tf)(tx).numpy(), jf.numpy(),
                                       rtol=1e-10, atol=1e-12)
            calls[(name, "torch.func.jacfwd")] = (lambda tf=tf, tx=tx:
                                                  torch.func.jacfwd(tf)(tx))
            calls[(name, "torch.func.jacrev")] = (lambda tf=tf, tx=tx:
                                                  torch.func.jacrev(tf)(tx))
    times: dict = {k: [] for k in calls}
    ratios: dict = {name: [] for name in shapes}
    keys = list(calls)
    for r in range(rounds):
        got = {}
        for k in (keys if r % 2 == 0 else keys[::-1]):
            t0 = time.perf_counter()
            calls[k]()
            got[k] = time.perf_counter() - t0
        for k, v in got.items():
            times[k].append(v)
        for name in shapes:
            ratios[name].append(got[(name, "jacfwd")] / got[(name, "jacrev")])
    out: dict[str, float] = {}
    print(f"jacfwd vs jacrev, float64, numpy backend ({rounds} rounds, medians):")
    for (name, what), ts in times.items():
        med = statistics.median(ts)
        out[f"{name} {what}"] = med
        print(f"  {name:20s} {what:18s} {med * 1e3:9.2f} ms")
    for name, rs in ratios.items():
        med = statistics.median(rs)
        out[f"{name} jacfwd/jacrev"] = med
        print(f"  {name}: jacfwd / jacrev = {med:.3g} ({'jacfwd' if med < 1 else 'jacrev'} "
              f"wins)")
    return out


def main(rounds: int = 30, threads: int = 1, jac_rounds: int = 7) -> dict[str, dict[str, float]]:
    """Every section, in one run."""
    return {"per_sample_grads": per_sample_grads(rounds, threads=threads),
            "jacobians": jacobians(jac_rounds, threads=threads)}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--jac-rounds", type=int, default=7)
    a = ap.parse_args()
    main(a.rounds, a.threads, a.jac_rounds)
