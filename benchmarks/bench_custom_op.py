"""A fused custom op vs the same op composed from array API ops: GELU (tanh), fwd + bwd.

``examples::gelu_tanh`` (arrayflow/examples/kernels.py) on 10^7 float32 elements, forward
and backward (``y.backward(g)`` with a fixed upstream gradient ``g``), each round timing:

- ``numba``: the custom op with its Numba kernels (forward, fused backward) on NumPy;
- ``composed``: ``gelu_tanh_composed(x)`` run as plain arrayflow ops, autograd recording
  each of them (the default kernel's formula, differentiated op by op);
- ``default op``: the custom op without native kernels (its default kernels run: one
  autograd node, the backward op's default formula);
- ``torch``: ``torch.nn.functional.gelu(x, approximate="tanh")`` on CPU, for reference;
- ``dask numba``: the same custom op on Dask with 8 chunks (the Numba kernel block by
  block), ``y`` and ``x.grad`` computed in one graph execution (``af.compute``) each
  round; compared with ``numba`` on NumPy.

The input Tensors are made once per backend; a round times a fresh leaf
(``x0.detach().requires_grad_()``), the forward, the backward and
``af.compute(y, x.grad)`` (free on NumPy).

Implementations are interleaved round by round; medians and ratios come from this one run
(machines here are noisy). Each implementation runs once before timing: Numba's JIT
compilation (a few seconds on the first float32 call) is excluded. Results are checked
against each other (max abs difference of the gradients).

Run: ``python benchmarks/bench_custom_op.py [--rounds 7] [--n 10000000] [--threads T]``
(needs the ``bench`` and ``kernels`` extras: ``pip install -e '.[bench,kernels]'``).
"""

from __future__ import annotations

import argparse
import statistics
import time


def make_runs(n: int, chunks: int):
    import numpy as np
    import torch

    import arrayflow as af
    from arrayflow.examples import kernels as K

    rng = np.random.default_rng(0)
    x_np = (rng.standard_normal(n) * 2).astype(np.float32)
    g_np = rng.standard_normal(n).astype(np.float32)
    default_op, _ = K.make_gelu_tanh("benchlib::gelu_tanh", numba=False, cupy=False)

    def af_run(fn, backend="numpy", **asarray):
        # inputs made once (af.asarray on Dask hashes and splits 40 MB: not the op's cost)
        with af.use_backend(backend):
            x0, g = af.asarray(x_np, **asarray), af.asarray(g_np, **asarray)

        def run():
            with af.use_backend(backend):
                x = x0.detach().requires_grad_()
                y = fn(x)
                y.backward(g)
                # y and the gradient, in one graph execution on Dask (eager: no copy)
                y, grad = af.compute(y, x.grad)
                return grad.numpy()
        return run

    tx0, tg = torch.from_numpy(x_np), torch.from_numpy(g_np)

    def torch_run():
        x = tx0.detach().requires_grad_()
        y = torch.nn.functional.gelu(x, approximate="tanh")
        y.backward(tg)
        return x.grad.numpy()

    runs = {}
    if K.NUMBA_KERNELS:
        runs["numba"] = af_run(K.gelu_tanh)
    runs["composed"] = af_run(K.gelu_tanh_composed)
    runs["default op"] = af_run(default_op)
    runs["torch"] = torch_run
    if K.NUMBA_KERNELS:
        runs["dask numba"] = af_run(K.gelu_tanh, "dask", chunks=n // chunks)
    return runs, K.NUMBA_KERNELS


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--n", type=int, default=10_000_000)
    p.add_argument("--chunks", type=int, default=8, help="Dask blocks (default 8)")
    p.add_argument("--threads", type=int, default=None,
                   help="threads for Numba and torch (default: Numba's default)")
    args = p.parse_args(argv)

    import numba
    import numpy as np
    import torch

    threads = args.threads or numba.config.NUMBA_NUM_THREADS
    numba.set_num_threads(threads)
    torch.set_num_threads(threads)
    runs, have_numba = make_runs(args.n, args.chunks)
    if not have_numba:
        print("Numba is not importable: only the composed versions run "
              "(pip install 'arrayflow[kernels]')")

    ref = None
    for name, run in runs.items():  # warm-up: Numba JIT, caches; results checked
        t0 = time.perf_counter()
        out = run()
        print(f"warm-up {name:12s} {time.perf_counter() - t0:7.3f} s")
        if ref is None:
            ref = out
        else:
            err = float(np.max(np.abs(out.astype(np.float64) - ref)))
            print(f"    max |grad - {next(iter(runs))}| = {err:.3g}")
            assert err < 1e-4 * max(1.0, float(np.max(np.abs(ref)))), name
    times: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(args.rounds):
        for name, run in runs.items():
            t0 = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - t0)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"\nforward + backward, {args.n:,} float32 elements, {args.rounds} interleaved "
          f"rounds, {threads} thread(s) for Numba and torch; medians:")
    base = "numba" if "numba" in med else "composed"
    for name, t in med.items():
        print(f"  {name:12s} {t * 1e3:9.1f} ms   x{t / med[base]:6.2f} of {base}")
    if have_numba:
        print(f"\ncomposed / numba     = {med['composed'] / med['numba']:.2f}  "
              f"(fused kernels vs array API ops with autograd; expected >= 2)")
        print(f"default op / numba   = {med['default op'] / med['numba']:.2f}")
        print(f"numba / torch        = {med['numba'] / med['torch']:.2f}")
        print(f"dask numba / numba   = {med['dask numba'] / med['numba']:.2f}  "
              f"({args.chunks} chunks, block-wise)")


if __name__ == "__main__":
    main()
