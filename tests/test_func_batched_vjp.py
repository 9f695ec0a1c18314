"""``vmap(vjp_fn)`` computes its rows in one backward pass (the VJP rules run on batched
Tensors, through the batching rules): for every case of
:data:`arrayflow.testing.grad.GRAD_CASES`, the batched rows equal one plain backward per
row; ``jacrev(chunk_size=...)`` is built on it and matches torch.func."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arrayflow as af
from arrayflow.func import jacrev, vjp, vmap
from arrayflow.testing.grad import GRAD_CASES
from arrayflow.testing.grad import build as _build

torch = pytest.importorskip("torch")


def _host(t):
    return np.asarray(t.detach().numpy())


@pytest.mark.parametrize("case", GRAD_CASES, ids=lambda c: c.id)
def test_batched_vjp_rows_equal_one_backward_per_row(case):
    fn, leaves = _build(case)
    leaves = [x.detach() for x in leaves]
    outs, vjp_fn = vjp(lambda *xs: fn(*xs), *leaves)
    outs_t = outs if isinstance(outs, tuple) else (outs,)
    rng = np.random.default_rng(5)
    cts = [af.asarray(rng.standard_normal((3,) + tuple(o.shape)).astype(
        np.dtype(str(o.numpy().dtype)))) for o in outs_t]
    got = vmap(vjp_fn)(tuple(cts) if isinstance(outs, tuple) else cts[0])
    for b in range(3):
        row = [c[b] for c in cts]
        want = vjp_fn(tuple(row) if isinstance(outs, tuple) else row[0])
        for g, w in zip(got, want):
            np.testing.assert_allclose(_host(g)[b], _host(w), rtol=1e-10, atol=1e-12,
                                       err_msg=case.id)


@pytest.mark.parametrize("chunk_size", [None, 1, 3, 100])
def test_jacrev_chunk_size_matches_torch_without_a_loop(chunk_size):
    rng = np.random.default_rng(1)
    w, x = rng.standard_normal((5, 4)), rng.standard_normal(4)

    def f(t):
        m = af.asarray(w)
        return af.sin(m @ t) * t.sum() + af.cumulative_sum(af.exp(m @ t), axis=0)

    def tf(t):
        m = torch.asarray(w)
        return torch.sin(m @ t) * t.sum() + torch.cumsum(torch.exp(m @ t), 0)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # batched rows: no per-row loop
        got = jacrev(f, chunk_size=chunk_size)(af.asarray(x))
    want = torch.func.jacrev(tf, chunk_size=chunk_size)(torch.asarray(x))
    np.testing.assert_allclose(_host(got), want.numpy(), rtol=1e-10, atol=1e-12)
