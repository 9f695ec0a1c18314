"""Batched linear algebra and integer-array indexing on Dask: lazy, chunked like the batch.

The Dask plug-in runs NumPy's batched ``linalg`` per batch block where
``dask.array.linalg`` cannot (batches, ``det``, ``eigh``, ...): the batch
dimension keeps its chunks, the matrix dimensions become one chunk, and
nothing is computed until asked.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import forbid_compute, on_backend

import arrayflow as af

BATCH_CHUNKS = (2, 2, 1)


def _batch(rng, n=3, spd=False):
    a = rng.standard_normal((sum(BATCH_CHUNKS), n, n))
    if spd:
        return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
    return a + n * np.eye(n)


def _dask_tensor(a, core_chunk=2):
    """A Dask-backed Tensor chunked along the batch axis and (unevenly) the matrix axes."""
    import dask.array as da

    chunks = (BATCH_CHUNKS,) + tuple(core_chunk for _ in a.shape[1:])
    return af.asarray(da.from_array(a, chunks=chunks))


def _outputs(result):
    return list(result) if isinstance(result, tuple) else [result]


CASES = {
    "det": (lambda x: af.linalg.det(x), lambda a: np.linalg.det(a), False),
    "slogdet": (lambda x: af.linalg.slogdet(x), lambda a: np.linalg.slogdet(a), False),
    "eigvalsh": (lambda x: af.linalg.eigvalsh(x), lambda a: np.linalg.eigvalsh(a), True),
    "inv": (lambda x: af.linalg.inv(x), lambda a: np.linalg.inv(a), False),
    "cholesky": (lambda x: af.linalg.cholesky(x), lambda a: np.linalg.cholesky(a), True),
    "svdvals": (lambda x: af.linalg.svdvals(x), lambda a: np.linalg.svdvals(a), False),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_batched_linalg_keeps_batch_chunks_and_stays_lazy(name):
    fn, ref, spd = CASES[name]
    a = _batch(np.random.default_rng(0), spd=spd)
    with on_backend("dask") as b:
        x = _dask_tensor(a)
        with forbid_compute(b):
            result = fn(x)
        for t, e in zip(_outputs(result), _outputs(ref(a))):
            assert b.is_array(t.array)
            assert t.array.chunks[0] == BATCH_CHUNKS
            np.testing.assert_allclose(t.numpy(), e, rtol=1e-10, atol=1e-12)


def test_batched_eigh_keeps_batch_chunks_and_stays_lazy():
    a = _batch(np.random.default_rng(1), n=4, spd=True)
    with on_backend("dask") as b:
        x = _dask_tensor(a)
        with forbid_compute(b):
            w, v = af.linalg.eigh(x)
        assert w.array.chunks == (BATCH_CHUNKS, (4,))
        assert v.array.chunks == (BATCH_CHUNKS, (4,), (4,))
        ew, ev = np.linalg.eigh(a)
        np.testing.assert_allclose(w.numpy(), ew, rtol=1e-10, atol=1e-12)
        # eigenvectors up to sign: compare the reconstruction and |v|
        vv = v.numpy()
        np.testing.assert_allclose(np.abs(vv), np.abs(ev), rtol=1e-8, atol=1e-10)
        rec = vv @ (w.numpy()[..., :, None] * np.swapaxes(vv, -1, -2))
        np.testing.assert_allclose(rec, a, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("rhs", ["matrix", "vector", "broadcast-matrix"])
def test_batched_solve_keeps_batch_chunks_and_stays_lazy(rhs):
    rng = np.random.default_rng(2)
    a = _batch(rng)
    bshape = {"matrix": (sum(BATCH_CHUNKS), 3, 2), "vector": (3,), "broadcast-matrix": (3, 2)}
    bb = rng.standard_normal(bshape[rhs])
    with on_backend("dask") as b:
        x = _dask_tensor(a)
        y = _dask_tensor(bb) if rhs == "matrix" else af.asarray(bb)
        with forbid_compute(b):
            z = af.linalg.solve(x, y)
        assert z.array.chunks[0] == BATCH_CHUNKS
        np.testing.assert_allclose(z.numpy(), np.linalg.solve(a, bb), rtol=1e-10, atol=1e-12)


def test_batched_linalg_backward_stays_lazy():
    a = _batch(np.random.default_rng(3))
    with on_backend("dask") as b:
        x = _dask_tensor(a)
        x.requires_grad_(True)
        with forbid_compute(b):
            y = af.sum(af.linalg.det(x))
            (g,) = af.autograd.grad(y, [x])
        assert g.array.chunks[0] == BATCH_CHUNKS
        expected = np.linalg.det(a)[:, None, None] * np.swapaxes(np.linalg.inv(a), -1, -2)
        np.testing.assert_allclose(g.numpy(), expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("full_matrices", [True, False])
def test_batched_svd_and_complete_qr(full_matrices):
    a = np.random.default_rng(4).standard_normal((sum(BATCH_CHUNKS), 4, 3))
    with on_backend("dask") as b:
        x = _dask_tensor(a)
        with forbid_compute(b):
            u, s, vh = af.linalg.svd(x, full_matrices=full_matrices)
            q, r = af.linalg.qr(x, mode="complete")
        eu, _, evh = np.linalg.svd(a, full_matrices=full_matrices)
        assert (u.shape, vh.shape) == (eu.shape, evh.shape)
        assert q.shape == (sum(BATCH_CHUNKS), 4, 4) and r.shape == (sum(BATCH_CHUNKS), 4, 3)
        uu, ss, vv = u.numpy(), s.numpy(), vh.numpy()
        np.testing.assert_allclose((uu[..., :, :3] * ss[..., None, :]) @ vv[..., :3, :], a,
                                   atol=1e-12)
        np.testing.assert_allclose(q.numpy() @ r.numpy(), a, atol=1e-12)


KEYS = {
    "two-arrays": lambda: (np.array([4, 0, -1]), np.array([1, 2, 0])),
    "array-and-int": lambda: (np.array([[2], [0]]), 1),
    "separated-by-slice": lambda: (np.array([0, 3]), slice(None), np.array([1, 2])),
    "adjacent-after-slice": lambda: (slice(1, None), np.array([0, 2]), np.array([1, 3])),
    "int-slice-array": lambda: (1, slice(None), np.array([3, 0, 3])),
}
TORCH_ORDER = {"int-slice-array": lambda a: a[1][:, [3, 0, 3]]}
"""Keys where PyTorch's rule differs from NumPy's: an integer beside index arrays selects first
(``x[1, :, idx]`` has shape (4, 3), NumPy's (3, 4)); checked against torch 2.13 by hand."""


@pytest.mark.parametrize("name", sorted(KEYS))
@pytest.mark.parametrize("index_backend", ["dask", "numpy-raw"])
def test_integer_array_indexing_matches_pytorch_and_stays_lazy(name, index_backend):
    a = np.arange(5 * 4 * 5, dtype="float64").reshape(5, 4, 5)
    key = KEYS[name]()
    with on_backend("dask") as b:
        x = _dask_tensor(a)
        if index_backend == "dask":
            tkey = tuple(af.asarray(k) if isinstance(k, np.ndarray) else k for k in key)
        else:
            tkey = key
        with forbid_compute(b):
            y = x[tkey]
        assert b.is_array(y.array)
        expected = TORCH_ORDER[name](a) if name in TORCH_ORDER else a[key]
        np.testing.assert_array_equal(y.numpy(), expected)


def test_integer_arrays_with_new_axis_stay_lazy_and_match():
    a = np.arange(45.0).reshape(5, 3, 3)
    with on_backend("dask") as b:
        x = _dask_tensor(a)
        with forbid_compute(b):
            y = x[np.array([0, 1]), None, np.array([1, 2])]
        assert y.shape == (2, 1, 3)  # torch 2.13 and NumPy agree here
        np.testing.assert_array_equal(y.numpy(), a[np.array([0, 1]), None, np.array([1, 2])])
