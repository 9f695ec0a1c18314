"""Out-of-core: one full-batch gradient of a 784-256-10 MLP on the Dask backend over a
synthetic dataset far larger than the blocks in flight (default 2,000,000 x 784 float32 =
6.3 GB, drawn lazily by ``af.randn(..., chunks=(rows, 784))``, never held whole). Reports the
peak resident memory of a fresh process that builds and computes the gradient, and checks the
result against the sum of per-block NumPy gradients (the block regenerated on the host).

Run: ``python benchmarks/bench_dask_outofcore.py [--rows 2000000] [--chunk 50000]
[--target index|onehot] [--quick]``

``--target index`` (the default) is ``F.cross_entropy(logits, y)`` with int64 class indices, as
a PyTorch user writes it; ``--target onehot`` passes ``F.one_hot(y, 10)`` as float32 class
probabilities (same loss, same gradients). The module also holds the model, data and hand-written
gradients that ``bench_dask_throughput.py`` and ``bench_dask_scaling.py`` import.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

SIZES = (784, 256, 10)
SEED = 0
LIMIT_GB = 2.5  # the target: peak resident memory of the whole process


# --- the computation in arrayflow ---------------------------------------------------------

def af_problem(rows, chunk, seed=SEED):
    """Model, data X (rows x 784 float32, lazy, chunked by rows) and labels y on Dask.

    Everything comes from one seeded stream, in this order, so a second call with the same
    arguments rebuilds the same parameters and the same blocks (the checker relies on it).
    """
    import arrayflow as af

    af.manual_seed(seed)
    with af.use_backend("dask"):
        model = af.nn.Sequential(af.nn.Linear(SIZES[0], SIZES[1]), af.nn.ReLU(),
                                 af.nn.Linear(SIZES[1], SIZES[2]))
        x = af.randn(rows, SIZES[0], dtype=af.float32, chunks=(chunk, SIZES[0]))
        y = af.randint(0, SIZES[2], (rows,), chunks=(chunk,))
    return model, x, y


def af_gradient_graph(model, x, y, target="index"):
    """Forward + backward, lazily: returns (loss, [grads]) Tensors, nothing computed yet."""
    import arrayflow as af

    F = af.nn.functional
    for p in model.parameters():
        p.grad = None
    logits = model(x)
    if target == "onehot":
        loss = F.cross_entropy(logits, af.astype(F.one_hot(y, SIZES[2]), af.float32))
    else:
        loss = F.cross_entropy(logits, y)
    loss.backward()
    return loss, [p.grad for p in model.parameters()]


def af_gradient(model, x, y, target="index"):
    """One full-batch gradient, one graph execution: (loss, [grads]) as NumPy arrays."""
    import arrayflow as af

    loss, grads = af_gradient_graph(model, x, y, target)
    out = af.compute(loss, *grads)
    return float(out[0]), [t.numpy() for t in out[1:]]


# --- the same math by hand ----------------------------------------------------------------

def hand_gradient(xp, x, y, w1, b1, w2, b2, scale):
    """Loss and gradients of ``scale * sum(cross_entropy)`` written out by hand.

    ``xp`` is ``numpy`` or ``dask.array`` (both have the calls used); weights are stored as
    in ``nn.Linear``: ``w1`` (256, 784), ``w2`` (10, 256). Class indices are compared with
    ``arange(10)`` (a one-hot mask), which is how one gathers per-row entries blockwise in Dask.
    The weight gradients are ``(x.T @ g).T``, the products arrayflow's ``x @ w.T`` backward
    computes: written ``g.T @ x`` the Dask version ran up to 3x slower here (4 blocks of
    50,000 rows, 2 threads), the same FLOPs in the other operand order.
    """
    h = x @ w1.T + b1
    a = xp.maximum(h, 0)
    z = a @ w2.T + b2
    m = xp.max(z, axis=1, keepdims=True)
    e = xp.exp(z - m)
    s = xp.sum(e, axis=1, keepdims=True)
    onehot = (y[:, None] == xp.arange(SIZES[2])).astype(z.dtype)
    loss = xp.sum(xp.log(s) + m - xp.sum(z * onehot, axis=1, keepdims=True)) * scale
    gz = (e / s - onehot) * scale
    gw2 = (a.T @ gz).T
    gb2 = xp.sum(gz, axis=0)
    gh = (gz @ w2) * (h > 0)
    gw1 = (x.T @ gh).T
    gb1 = xp.sum(gh, axis=0)
    return loss, [gw1, gb1, gw2, gb2]


def params_numpy(model):
    import arrayflow as af

    return [t.numpy() for t in af.compute(*model.parameters())]


def rel_err(a, b):
    import numpy as np

    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30))


# --- peak memory, in a fresh process ----------------------------------------------------

class PeakRSS:
    """Samples this process's RSS every 10 ms (psutil); aborts the process above ``abort_gb``
    so that a run gone wrong cannot take a shared machine's memory."""

    def __init__(self, abort_gb):
        import psutil

        self._proc = psutil.Process()
        self.peak = self._proc.memory_info().rss
        self._abort = abort_gb * 1e9
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.wait(0.01):
            rss = self._proc.memory_info().rss
            self.peak = max(self.peak, rss)
            if rss > self._abort:
                print(json.dumps({"aborted": True, "rss_gb": rss / 1e9}), flush=True)
                os._exit(3)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def worker(args):
    """The measured process: build the graph, compute it once, save the results."""
    import resource

    import dask
    import numpy as np

    import arrayflow as af

    with PeakRSS(args.abort_gb) as mon:
        base = mon.peak
        t0 = time.perf_counter()
        model, x, y = af_problem(args.rows, args.chunk)
        loss, grads = af_gradient_graph(model, x, y, args.target)
        n_tasks = len(dask.base.collections_to_expr(
            [t._cell.array for t in [loss, *grads]]).__dask_graph__())
        t1 = time.perf_counter()
        with dask.config.set(scheduler="threads"):
            out = af.compute(loss, *grads)
        t2 = time.perf_counter()
    np.savez(args.out, *[t.numpy() for t in out])
    print(json.dumps({
        "aborted": False, "graph_s": t1 - t0, "compute_s": t2 - t1, "tasks": n_tasks,
        "base_gb": base / 1e9, "peak_sampled_gb": mon.peak / 1e9,
        "ru_maxrss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9,
    }), flush=True)


def measure(rows, chunk, target, abort_gb, out):
    """Run :func:`worker` in a fresh interpreter; its JSON report."""
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--rows", str(rows),
           "--chunk", str(chunk), "--target", target, "--abort-gb", str(abort_gb),
           "--out", out]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise RuntimeError(f"worker failed (rc {proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(lines[-1])


# --- the check: sum of per-block NumPy gradients --------------------------------------

def check(rows, chunk, out):
    """Regenerate every block on the host, one at a time, and add up its NumPy gradient.

    The blocks come from the same seeded graph (``X._cell.array.blocks[i]``, the raw Dask
    array, used by this checker only); the per-block gradient is of the *summed* loss, so
    the total divided by the row count is the mean-reduction gradient arrayflow computed.
    """
    import numpy as np

    model, x, y = af_problem(rows, chunk)
    w1, b1, w2, b2 = params_numpy(model)
    xa, ya = x._cell.array, y._cell.array
    total_loss, total = 0.0, [np.zeros_like(p, dtype=np.float64) for p in (w1, b1, w2, b2)]
    for i in range(xa.numblocks[0]):
        xb, yb = xa.blocks[i].compute(), ya.blocks[i].compute()
        loss_b, grads_b = hand_gradient(np, xb, yb, w1, b1, w2, b2, np.float32(1.0))
        total_loss += float(loss_b)
        for t, g in zip(total, grads_b):
            t += g
    got = np.load(out)
    got = [got[f"arr_{i}"] for i in range(5)]
    ref = [total_loss / rows] + [t / rows for t in total]
    names = ["loss", "W1", "b1", "W2", "b2"]
    return {n: rel_err(g, r) for n, g, r in zip(names, got, ref)}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=2_000_000)
    p.add_argument("--chunk", type=int, nargs="+", default=[50_000],
                   help="rows per block; several values run one after another")
    p.add_argument("--target", choices=["index", "onehot"], nargs="+", default=["index"],
                   help="labels as class indices (F.cross_entropy(logits, y)) or one-hot")
    p.add_argument("--no-check", action="store_true", help="skip the per-block NumPy check")
    p.add_argument("--abort-gb", type=float, default=12.0,
                   help="kill the measured process above this RSS (protects the machine)")
    p.add_argument("--quick", action="store_true", help="smoke run: 100,000 rows, 25,000/block")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--out", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        args.chunk, args.target = args.chunk[0], args.target[0]
        return worker(args)
    if args.quick:
        args.rows, args.chunk = 100_000, [25_000]
    gb = args.rows * SIZES[0] * 4 / 1e9
    print(f"MLP {'-'.join(map(str, SIZES))}, full-batch gradient of mean cross-entropy over "
          f"{args.rows:,} x {SIZES[0]} float32 rows ({gb:.1f} GB, drawn lazily); Dask threads "
          f"scheduler, {os.cpu_count()} cores; each line a fresh process; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'target':<7} {'rows/block':>10} {'blocks':>6} {'tasks':>7} {'build s':>8} "
          f"{'compute s':>10} {'peak RSS GB':>12} {'< ' + str(LIMIT_GB) + ' GB':>8} "
          f"{'max rel err vs NumPy blocks':>28}")
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for target in args.target:
            for chunk in args.chunk:
                out = os.path.join(tmp, f"{target}-{chunk}.npz")
                r = measure(args.rows, chunk, target, args.abort_gb, out)
                blocks = -(-args.rows // chunk)
                if r["aborted"]:
                    print(f"{target:<7} {chunk:>10,} {blocks:>6} {'':>7} {'':>8} {'':>10} "
                          f"{'>' + format(r['rss_gb'], '.2f'):>12} {'no':>8} (aborted)")
                    ok = False
                    continue
                peak = max(r["peak_sampled_gb"], r["ru_maxrss_gb"])
                err = "skipped"
                if not args.no_check:
                    errs = check(args.rows, chunk, out)
                    err = f"{max(errs.values()):.1e}"
                    ok &= max(errs.values()) < 1e-4
                ok &= peak < LIMIT_GB
                print(f"{target:<7} {chunk:>10,} {blocks:>6} {r['tasks']:>7,} "
                      f"{r['graph_s']:8.2f} {r['compute_s']:10.1f} {peak:12.2f} "
                      f"{'yes' if peak < LIMIT_GB else 'NO':>8} {err:>28}")
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    print("all within target" if ok else "NOT all within target")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
