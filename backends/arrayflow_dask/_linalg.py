"""``linalg`` for the Dask plug-in: batched and missing functions, still lazy.

``dask.array.linalg`` factorizes single 2-D matrices only (no batch dimensions),
has no ``det``, ``slogdet``, ``eigh``, ``eigvalsh``, ``eig`` or ``eigvals``, and
lacks ``qr(mode="complete")`` and ``svd(full_matrices=True)``. This module fills
those gaps without computing anything:

- **Dask's blocked algorithms first.** Where Dask has a correct algorithm for
  the call (2-D ``cholesky`` with square chunks, 2-D ``inv`` and ``solve``,
  tall-and-skinny or short-and-fat ``qr(mode="reduced")`` and
  ``svd(full_matrices=False)``), it is used: those work on matrices larger than
  one block.
- **Otherwise NumPy per block** through :func:`dask.array.apply_gufunc`: the
  matrix (core) dimensions are rechunked to a single chunk, the batch (loop)
  dimensions keep their chunks, and the NumPy function (itself batched) runs
  on each block. The graph has one task per batch block.

Trade-off: on the per-block path every matrix must fit in one chunk (one
worker's memory), and a 2-D input is a single task, so a huge 2-D ``det`` or
``eigh`` is not parallel. Batches of small or medium matrices, the common case
in deep learning, parallelize over their batch chunks.

Output dtypes are found by running the NumPy function on a 1 x 1 matrix of the
input dtype (eager, tiny, cached), so no block is ever computed to build the
graph.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

__all__ = ["EigResult", "patch_linalg"]


class EigResult(NamedTuple):
    """``linalg.eig``'s result: complex ``eigenvalues`` and ``eigenvectors`` (columns)."""

    eigenvalues: object
    eigenvectors: object


@functools.cache
def _probe_dtypes(fn, dtypes, core_ndims):
    """Output dtypes of ``fn`` for inputs of ``dtypes`` (run on 1 x 1 arrays of ones)."""
    import numpy as np

    args = []
    for dt, nd in zip(dtypes, core_ndims):
        a = np.ones((1,) * nd, dtype=dt)
        args.append(a)
    out = fn(*args)
    if isinstance(out, tuple):
        return tuple(np.asarray(o).dtype for o in out)
    return np.asarray(out).dtype


def _single_core_chunks(x, n_core):
    """``x`` with its last ``n_core`` dimensions in one chunk each."""
    if all(x.numblocks[d] == 1 for d in range(x.ndim - n_core, x.ndim)):
        return x
    return x.rechunk({d: -1 for d in range(x.ndim - n_core, x.ndim)})


def _gufunc(fn, signature, *arrays, output_sizes=None):
    """Apply NumPy's batched ``fn`` per batch block: core dims one chunk, outputs lazy."""
    import dask.array as da
    import numpy as np

    ins = signature.split("->")[0]
    core_ndims = tuple(len([d for d in s.strip("()").split(",") if d]) for s in
                       ins.replace("),(", ")|(").split("|"))
    arrays = [_single_core_chunks(a, n) for a, n in zip(arrays, core_ndims)]
    dtypes = _probe_dtypes(fn, tuple(a.dtype for a in arrays), core_ndims)
    # empty metas of the output dtypes (dask's own ``astype`` of the input's meta warns
    # when a complex input has real outputs)
    sample = arrays[0]._meta
    meta = (tuple(np.empty_like(sample, dtype=d) for d in dtypes) if isinstance(dtypes, tuple)
            else np.empty_like(sample, dtype=dtypes))
    return da.apply_gufunc(fn, signature, *arrays, meta=meta, output_sizes=output_sizes,
                           vectorize=False)


# --- NumPy kernels (module level, so graphs tokenize and pickle) -------------------------------

def _np_cholesky_lower(a):
    import numpy as np

    return np.linalg.cholesky(a)


def _np_cholesky_upper(a):
    import numpy as np

    return np.linalg.cholesky(a, upper=True)


def _np_inv(a):
    import numpy as np

    return np.linalg.inv(a)


def _np_solve(a, b):
    import numpy as np

    return np.linalg.solve(a, b)


def _np_det(a):
    import numpy as np

    return np.linalg.det(a)


def _np_slogdet(a):
    import numpy as np

    return tuple(np.linalg.slogdet(a))


def _np_eigh(a):
    import numpy as np

    return tuple(np.linalg.eigh(a))


def _np_eigvalsh(a):
    import numpy as np

    return np.linalg.eigvalsh(a)


def _complex_of(dtype):
    import numpy as np

    return np.result_type(dtype, np.complex64)


def _np_eig(a):
    # NumPy returns real arrays when every eigenvalue is real; the standard: complex.
    import numpy as np

    w, v = np.linalg.eig(a)
    c = _complex_of(a.dtype)
    return w.astype(c, copy=False), v.astype(c, copy=False)


def _np_eigvals(a):
    import numpy as np

    return np.linalg.eigvals(a).astype(_complex_of(a.dtype), copy=False)


def _np_svd_full(a):
    import numpy as np

    return tuple(np.linalg.svd(a, full_matrices=True))


def _np_svd_reduced(a):
    import numpy as np

    return tuple(np.linalg.svd(a, full_matrices=False))


def _np_svdvals(a):
    import numpy as np

    return np.linalg.svd(a, compute_uv=False)


def _np_qr_complete(a):
    import numpy as np

    return tuple(np.linalg.qr(a, mode="complete"))


def _np_qr_reduced(a):
    import numpy as np

    return tuple(np.linalg.qr(a, mode="reduced"))


# --- the namespace's functions --------------------------------------------------------------

def _dask_svd_applies(x):
    """Whether ``dask.array.linalg.svd`` takes ``x``: 2-D, chunked along one axis at most."""
    return x.ndim == 2 and (x.numblocks[0] == 1 or x.numblocks[1] == 1)


def _dask_qr_applies(x):
    """Whether ``dask.array.linalg.qr`` takes ``x`` (its tsqr and sfqr preconditions)."""
    if x.ndim != 2:
        return False
    nr, nc = x.numblocks
    if nc == 1:
        return True  # tall-and-skinny (tsqr), or a single block
    return nr == 1 and x.chunks[0][0] <= x.chunks[1][0]  # short-and-fat (sfqr)


def patch_linalg(la: Any, compat: Any) -> None:
    """Install the batched and missing ``linalg`` functions into the namespace copy ``la``.

    Parameters
    ----------
    la : module
        The copy of ``array_api_compat.dask.array.linalg`` that the plug-in's
        namespace uses; its attributes are replaced in place.
    compat : module
        ``array_api_compat.dask.array`` (for the standard's named tuples).
    """
    import dask.array as da

    cl = compat.linalg

    def cholesky(x, /, *, upper=False):
        if x.ndim == 2 and len(set(x.chunks[0] + x.chunks[1])) == 1:
            # Dask's blocked Cholesky (square chunks); its default is the upper factor
            return da.linalg.cholesky(x, lower=not upper)
        return _gufunc(_np_cholesky_upper if upper else _np_cholesky_lower,
                       "(m,m)->(m,m)", x)

    def _blocked_lu(x):
        # Dask's LU-based inv/solve need a 2-D matrix in square blocks
        return x.ndim == 2 and x.shape[0] > 0 and len(set(x.chunks[0] + x.chunks[1])) == 1

    def inv(x, /):
        if _blocked_lu(x):  # da.linalg.inv solves against a float64 eye: keep x's dtype
            eye = da.eye(x.shape[0], chunks=x.chunks[0][0], dtype=x.dtype)
            return da.linalg.solve(x, eye).astype(x.dtype, copy=False)
        return _gufunc(_np_inv, "(m,m)->(m,m)", x)

    def solve(x1, x2, /):
        if x2.ndim == 1:  # the standard: a 1-D x2 is one vector, broadcast over batches
            return solve(x1, x2[:, None])[..., 0]
        if _blocked_lu(x1) and x2.ndim == 2:
            dtype = da.result_type(x1, x2)
            return da.linalg.solve(x1, x2.rechunk({0: x1.chunks[0]})).astype(dtype, copy=False)
        return _gufunc(_np_solve, "(m,m),(m,n)->(m,n)", x1, x2)

    def det(x, /):
        return _gufunc(_np_det, "(m,m)->()", x)

    def slogdet(x, /):
        return cl.SlogdetResult(*_gufunc(_np_slogdet, "(m,m)->(),()", x))

    def eigh(x, /):
        return cl.EighResult(*_gufunc(_np_eigh, "(m,m)->(m),(m,m)", x))

    def eigvalsh(x, /):
        return _gufunc(_np_eigvalsh, "(m,m)->(m)", x)

    def eig(x, /):
        return EigResult(*_gufunc(_np_eig, "(m,m)->(m),(m,m)", x))

    def eigvals(x, /):
        return _gufunc(_np_eigvals, "(m,m)->(m)", x)

    def svd(x, /, *, full_matrices=True):
        m, n = x.shape[-2:]
        if not full_matrices:
            if _dask_svd_applies(x):
                return cl.SVDResult(*da.linalg.svd(x, coerce_signs=False))
            return cl.SVDResult(*_gufunc(_np_svd_reduced, "(m,n)->(m,k),(k),(k,n)", x,
                                         output_sizes={"k": min(m, n)}))
        return cl.SVDResult(*_gufunc(_np_svd_full, "(m,n)->(m,m),(k),(n,n)", x,
                                     output_sizes={"k": min(m, n)}))

    def svdvals(x, /):
        if x.ndim == 2:
            # Dask's SVD on the tall orientation (one column chunk)
            if x.shape[0] < x.shape[1]:
                x = x.T
            if x.numblocks[1] != 1:
                x = x.rechunk({1: -1})
            return da.linalg.svd(x)[1]
        return _gufunc(_np_svdvals, "(m,n)->(k)", x, output_sizes={"k": min(x.shape[-2:])})

    def matrix_rank(x, /, *, rtol=None):
        s = svdvals(x)
        if rtol is None:
            import numpy as np

            rtol = max(x.shape[-2:]) * np.finfo(s.dtype).eps
        elif hasattr(rtol, "ndim") and rtol.ndim > 0:
            rtol = rtol[..., None]
        return da.count_nonzero(s > rtol * da.max(s, axis=-1, keepdims=True), axis=-1)

    def matrix_norm(x, /, *, keepdims=False, ord="fro"):
        if ord in ("nuc", 2, -2):
            s = svdvals(x)
            red = {"nuc": da.sum, 2: da.max, -2: da.min}[ord]
            y = red(s, axis=-1)
            return y[..., None, None] if keepdims else y
        return cl.matrix_norm(x, keepdims=keepdims, ord=ord)

    def qr(x, /, *, mode="reduced"):
        if mode == "reduced":
            if _dask_qr_applies(x):
                return cl.QRResult(*da.linalg.qr(x))
            m, n = x.shape[-2:]
            return cl.QRResult(*_gufunc(_np_qr_reduced, "(m,n)->(m,k),(k,n)", x,
                                        output_sizes={"k": min(m, n)}))
        if mode == "complete":
            return cl.QRResult(*_gufunc(_np_qr_complete, "(m,n)->(m,m),(m,n)", x))
        raise ValueError(f"linalg.qr: mode must be 'reduced' or 'complete', not {mode!r}")

    for f in (cholesky, inv, solve, det, slogdet, eigh, eigvalsh, eig, eigvals, svd, svdvals,
              matrix_rank, matrix_norm, qr):
        f.__module__ = la.__name__
        setattr(la, f.__name__, f)
