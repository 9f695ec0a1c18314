"""``arrayflow.special`` on NumPy against SciPy's compiled ufuncs (what a NumPy user calls).

For a few functions of each kind (closed forms, series, iterative inverses) on ``N`` float64
elements with random arguments over their usual ranges:

- arrayflow on the NumPy backend (the forward written once in array API calls; no graph);
- ``scipy.special.<name>`` on the same NumPy arrays (compiled Cephes / Boost).

Each row: seconds (median over ``--repeat`` interleaved rounds) and the ratio to SciPy. The
ratio is the price of one implementation for every backend (lazy Dask, GPU) with gradients;
only ratios from one run mean anything on a shared machine.

Run: ``python benchmarks/bench_special_numpy.py [--n 100000] [--repeat 5]``
"""

from __future__ import annotations

import argparse
import statistics
import time


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=100_000)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()

    import warnings

    import numpy as np
    import scipy.special as sc

    import arrayflow as af

    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    n = args.n
    shape = 10 ** rng.uniform(-1, 3, n)  # shape parameters from 0.1 to 1000
    prob = rng.uniform(0, 1, n)
    xs = rng.uniform(0.1, 80, n)
    cases = [
        ("erf", (rng.normal(0, 2, n),)),
        ("ndtri", (prob,)),
        ("gammaln", (xs,)),
        ("i0e", (xs,)),
        ("gammainc", (shape, xs)),
        ("betainc", (shape, shape[::-1], prob)),
        ("stdtr", (shape, rng.normal(0, 3, n))),
        ("gammaincinv", (shape, prob)),
        ("betaincinv", (shape, shape[::-1], prob)),
        ("stdtrit", (shape, prob)),
    ]
    print(f"N = {n}, median of {args.repeat} rounds (seconds)")
    print(f"{'function':<14}{'arrayflow':>12}{'scipy':>12}{'ratio':>9}")
    for name, np_args in cases:
        af_args = [af.asarray(a) for a in np_args]
        f, g = getattr(af.special, name), getattr(sc, name)
        t_af, t_sp = [], []
        for _ in range(args.repeat):  # interleaved: the same machine state for both
            t = time.perf_counter()
            f(*af_args)
            t_af.append(time.perf_counter() - t)
            t = time.perf_counter()
            g(*np_args)
            t_sp.append(time.perf_counter() - t)
        a, s = statistics.median(t_af), statistics.median(t_sp)
        print(f"{name:<14}{a:>12.4f}{s:>12.4f}{a / s:>8.0f}x")


if __name__ == "__main__":
    main()
