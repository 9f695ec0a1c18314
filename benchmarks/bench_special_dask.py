"""``arrayflow.special`` on Dask: block by block against what a Dask user writes by hand.

For ``gammainc(a, x)`` and its gradient in ``x`` on ``N`` float64 elements in chunks:

- arrayflow on Dask, block-wise (the default: one ``map_blocks`` layer per call);
- arrayflow on Dask, unblocked (the element-wise graph of every series term, as before
  ``arrayflow/ops/_blockwise.py``; measured by telling the mechanism that Dask arrays are not
  chunked);
- by hand: ``da.map_blocks(scipy.special.gammainc, a, x)`` (and the density for the gradient,
  ``exp((a - 1) log x - x - gammaln(a))``);
- arrayflow on NumPy (eager, one process).

Each row: graph build + compute, seconds (median over ``--repeat`` interleaved rounds), the
number of graph layers, and the ratio to the hand-written Dask version. Only ratios from one
run mean anything on a shared machine.

Run: ``python benchmarks/bench_special_dask.py [--n 200000] [--chunk 50000] [--repeat 5]``
"""

from __future__ import annotations

import argparse
import statistics
import time


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=200_000)
    p.add_argument("--chunk", type=int, default=50_000)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()

    import dask
    import dask.array as da
    import numpy as np
    import scipy.special as sc

    import arrayflow as af
    import arrayflow.special as sp
    from arrayflow.ops import _blockwise

    rng = np.random.default_rng(0)
    a_np = rng.uniform(0.5, 50, args.n)
    x_np = rng.uniform(0.1, 80, args.n)

    def af_dask(blocked):
        def run():
            _blockwise._CHUNKED.clear()
            if not blocked:
                _blockwise._CHUNKED[da.Array] = None
            with af.use_backend("dask", chunks=args.chunk):
                a = af.asarray(a_np)
                x = af.asarray(x_np, requires_grad=True)
                y = sp.gammainc(a, x)
                (g,) = af.autograd.grad(y.sum(), [x])
                layers = len(y._cell.array.__dask_graph__().layers) + len(
                    g._cell.array.__dask_graph__().layers)
                yv, gv = af.compute(y, g)
            _blockwise._CHUNKED.clear()
            return layers, np.asarray(yv.numpy()), np.asarray(gv.numpy())
        return run

    def hand():
        a = da.from_array(a_np, chunks=args.chunk)
        x = da.from_array(x_np, chunks=args.chunk)
        y = da.map_blocks(sc.gammainc, a, x, dtype=float)
        g = da.exp((a - 1) * da.log(x) - x - da.map_blocks(sc.gammaln, a, dtype=float))
        layers = len(y.__dask_graph__().layers) + len(g.__dask_graph__().layers)
        yv, gv = dask.compute(y, g)
        return layers, yv, gv

    def af_numpy():
        with af.use_backend("numpy"):
            a = af.asarray(a_np)
            x = af.asarray(x_np, requires_grad=True)
            y = sp.gammainc(a, x)
            (g,) = af.autograd.grad(y.sum(), [x])
            return 0, np.asarray(y.detach().numpy()), np.asarray(g.numpy())

    contenders = {"arrayflow dask, block-wise": af_dask(True),
                  "arrayflow dask, unblocked": af_dask(False),
                  "hand dask.array + scipy": hand,
                  "arrayflow numpy (eager)": af_numpy}
    times: dict[str, list[float]] = {k: [] for k in contenders}
    layers: dict[str, int] = {}
    results = {}
    for _ in range(args.repeat):
        for name, fn in contenders.items():
            t = time.perf_counter()
            n_layers, yv, gv = fn()
            times[name].append(time.perf_counter() - t)
            layers[name] = n_layers
            results[name] = (yv, gv)
    ref_y, ref_g = results["hand dask.array + scipy"]
    base = statistics.median(times["hand dask.array + scipy"])
    print(f"gammainc(a, x) and d/dx on {args.n} float64 elements, chunks of {args.chunk}, "
          f"median of {args.repeat} interleaved rounds")
    print(f"{'contender':30s} {'seconds':>9s} {'layers':>7s} {'/ hand':>7s} {'max rel err':>12s}")
    for name in contenders:
        med = statistics.median(times[name])
        yv, gv = results[name]
        err = max(float(np.max(np.abs(yv - ref_y) / np.maximum(np.abs(ref_y), 1e-300))),
                  float(np.max(np.abs(gv - ref_g) / np.maximum(np.abs(ref_g), 1e-300))))
        print(f"{name:30s} {med:9.3f} {layers[name]:7d} {med / base:7.2f} {err:12.2e}")


if __name__ == "__main__":
    main()
