"""How the time of one full-batch MLP gradient on the Dask backend grows with the row count:
1x, 2x, 4x, 8x a base (default 100,000 -> 800,000 rows of 784 float32, blocks of 50,000 rows).
A table of the median time per gradient, the time per 100,000 rows and the growth against
the row count (linear: 1, 2, 4, 8). One run; sizes interleaved round by round.

By default the data are drawn lazily inside each gradient's graph (the out-of-core setting of
``bench_dask_outofcore.py``: generation is part of the time); ``--data persisted`` draws them once
and keeps the blocks in memory first (the gradient alone). ``--hand`` adds the same gradient
written by hand with dask.array over the same data graph, for Dask's own growth.

Run: ``python benchmarks/bench_dask_scaling.py [--base 100000] [--chunk 50000] [--repeats 3]
[--data lazy|persisted] [--target index|onehot] [--hand] [--quick]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_dask_outofcore import (  # noqa: E402
    SIZES,
    af_gradient,
    af_problem,
    hand_gradient,
    params_numpy,
)

FACTORS = (1, 2, 4, 8)


def make_runs(rows, chunk, data, target, hand):
    """Gradient functions for ``rows``; lazy data: each call rebuilds the data graph too."""
    import dask
    import dask.array as da
    import numpy as np

    persisted = None
    if data == "persisted":
        model, x, y = af_problem(rows, chunk)
        persisted = (model, x.persist(), y.persist())

    def problem():
        return persisted if persisted is not None else af_problem(rows, chunk)

    def af_run():
        return af_gradient(*problem(), target)

    def hand_run():
        model, x, y = problem()
        pd = [da.from_array(v, chunks=v.shape) for v in params_numpy(model)]
        loss, grads = hand_gradient(da, x._cell.array, y._cell.array, *pd,
                                    np.float32(1.0 / rows))
        return dask.compute(loss, *grads)

    return {"arrayflow (dask)": af_run, **({"dask.array by hand": hand_run} if hand else {})}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--base", type=int, default=100_000, help="rows at 1x")
    p.add_argument("--chunk", type=int, default=50_000, help="rows per block")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--data", choices=["lazy", "persisted"], default="lazy")
    p.add_argument("--target", choices=["index", "onehot"], default="index")
    p.add_argument("--hand", action="store_true", help="also time dask.array by hand")
    p.add_argument("--quick", action="store_true", help="smoke run: base 10,000, 1 repeat")
    args = p.parse_args(argv)
    if args.quick:
        args.base, args.chunk, args.repeats = 10_000, 5_000, 1
    import dask

    load0 = os.getloadavg()[0]
    with dask.config.set(scheduler="threads"):
        runs = {f: make_runs(args.base * f, args.chunk, args.data, args.target, args.hand)
                for f in FACTORS}
        names = list(runs[1])
        runs[1][names[0]]()  # warm-up: imports, first graph
        times = {(f, n): [] for f in FACTORS for n in names}
        for _ in range(args.repeats):  # interleaved: each round runs every size
            for f in FACTORS:
                for n in names:
                    t0 = time.perf_counter()
                    runs[f][n]()
                    times[f, n].append(time.perf_counter() - t0)
    print(f"MLP {'-'.join(map(str, SIZES))}, full-batch gradient (mean cross-entropy, "
          f"{args.target} target), {SIZES[0]} float32 features, blocks of {args.chunk:,} rows, "
          f"data {args.data}; Dask threads scheduler, {os.cpu_count()} cores; median of "
          f"{args.repeats}; load average {load0:.1f} before, {os.getloadavg()[0]:.1f} after")
    for n in names:
        base = statistics.median(times[1, n])
        print(f"\n{n}")
        print(f"{'rows':>10} {'x':>3} {'blocks':>6} {'s/gradient':>11} {'s/100k rows':>12} "
              f"{'time / 1x':>10} {'(linear)':>9}")
        for f in FACTORS:
            rows = args.base * f
            m = statistics.median(times[f, n])
            print(f"{rows:>10,} {f:>3} {-(-rows // args.chunk):>6} {m:11.2f} "
                  f"{m / rows * 1e5:12.2f} {m / base:10.2f} {f:>9}")
        top = statistics.median(times[FACTORS[-1], n]) / base / FACTORS[-1]
        print(f"{FACTORS[-1]}x the rows take {top * FACTORS[-1]:.2f}x the time "
              f"(per-row cost at {FACTORS[-1]}x / at 1x: {top:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
