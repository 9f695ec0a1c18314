"""A short tour of arrayflow, the same code on every usable backend.

Run: ``python -m arrayflow.examples.demo [--backend NAME ...]``

It fits a linear model ``y = X @ w + noise`` by least squares (normal equations,
``af.linalg.solve``) on synthetic data made with the seeded generator, then
prints, per backend, the recovered weights' error and the residual norm. The
code is written once against the array API standard; NumPy and
array_api_strict share a random stream and agree exactly, Dask draws its own
(chunked) stream; the Dask run stays lazy until the result is printed.
"""

from __future__ import annotations

import argparse
import sys
import time

import arrayflow as af


def fit(n_rows: int = 2000, n_features: int = 8, seed: int = 0) -> tuple[af.Tensor, af.Tensor]:
    """Least-squares fit on synthetic data; returns (weight error, residual RMS)."""
    af.manual_seed(seed)
    x = af.randn(n_rows, n_features, dtype=af.float64)
    w_true = af.linspace(-1.0, 1.0, n_features, dtype=af.float64)
    noise = 0.01 * af.randn(n_rows, dtype=af.float64)
    y = x @ w_true + noise
    w = af.linalg.solve(x.mT @ x, x.mT @ y)  # normal equations
    err = af.linalg.vector_norm(w - w_true)
    rms = af.sqrt(af.mean((x @ w - y) ** 2))
    return err, rms


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", action="append",
                        help="backend(s) to run on (default: every usable one)")
    args = parser.parse_args(argv)
    infos = {i.name: i for i in af.backends.available()}
    first = af.backends.host_backend().name  # the host backend (NumPy) leads the table
    names = args.backend or sorted((n for n, i in infos.items() if i.usable),
                                   key=lambda n: (n != first, n))
    print(f"arrayflow {af.__version__}: least squares, 2000 x 8, float64")
    print(f"{'backend':<8} {'|w - w_true|':>14} {'residual RMS':>14} {'time':>9}")
    for name in names:
        info = infos.get(name)
        if info is None or not info.usable:
            why = "not installed" if info is None else info.reason
            print(f"{name:<8} skipped: {why}")
            continue
        with af.use_backend(name):
            t0 = time.perf_counter()
            err_t, rms_t = fit()
            err, rms = float(err_t), float(rms_t)  # computes lazy backends here
            dt = time.perf_counter() - t0
        print(f"{name:<8} {err:14.3e} {rms:14.3e} {dt * 1e3:7.1f}ms")
    for name, info in infos.items():
        if name not in names and not info.usable:
            print(f"{name:<8} unavailable here: {info.reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
