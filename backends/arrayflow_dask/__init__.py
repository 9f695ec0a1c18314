"""arrayflow's Dask backend: chunked, lazy arrays (``dask.array``).

Registered through the ``arrayflow.backends`` entry point ``dask``. Options:
``chunks`` (default ``"auto"``), the chunking of arrays created by arrayflow.
Nothing here computes unless asked (``to_host``, ``compute``).
"""

from __future__ import annotations

from arrayflow.plugin import Backend

__all__ = ["DaskBackend"]


class DaskBackend(Backend):
    """``dask.array`` through ``array_api_compat.dask.array``; lazy."""

    name = "dask"
    array_module = "dask"
    lazy = True
    host_accessible = True

    @property
    def chunks(self):
        return self.options.get("chunks", "auto")

    def load_namespace(self):
        import array_api_compat.dask.array as compat

        return _patched_namespace(compat)

    def dtype_from_name(self, name):
        import numpy as np

        return np.dtype(name)

    def is_array(self, obj):
        da = __import__("sys").modules.get("dask.array")
        return da is not None and isinstance(obj, da.Array)

    def to_host(self, array):
        import numpy as np

        return np.asarray(array.compute() if hasattr(array, "compute") else array)

    def from_host(self, array, *, device=None):
        import dask.array as da

        return da.from_array(array, chunks=self.chunks)

    def materialize(self, *arrays):
        import dask

        return dask.persist(*arrays)

    def compute(self, *arrays):
        import dask

        return dask.compute(*arrays)

    def make_generator(self, seed):
        import dask.array as da

        return da.random.default_rng(seed)

    def random(self, kind, shape, *, dtype, device=None, **params):
        rng = self.generator
        chunks = self.chunks
        if kind == "normal":
            out = rng.standard_normal(shape, chunks=chunks)
            out = out * params.get("std", 1.0) + params.get("mean", 0.0)
        elif kind == "uniform":
            low, high = params.get("low", 0.0), params.get("high", 1.0)
            out = rng.random(shape, chunks=chunks) * (high - low) + low
        elif kind == "integers":
            out = rng.integers(params["low"], params["high"], size=shape, chunks=chunks)
        elif kind == "permutation":
            out = rng.permutation(params["n"])
        else:
            raise ValueError(f"random: unknown kind {kind!r}")
        return out.astype(dtype)

    def format_array(self, array):
        chunks = str(tuple(tuple(c) for c in array.chunks))
        if len(chunks) > 60:  # many blocks: the block size and count say enough
            chunks = f"{tuple(array.chunksize)} x {tuple(array.numblocks)} blocks"
        return f"<dask array shape={tuple(array.shape)} dtype={array.dtype} chunks={chunks}>"


def _patched_namespace(compat):
    """array-api-compat's Dask namespace with Dask's gaps and bugs mended.

    A copy (module objects keep their ``__name__``, so array-api-compat and
    array-api-extra still recognise it as Dask's) in which:

    - ``eye(n, m, k=k)`` is built from comparisons (dask 2026.8's ``da.eye`` with
      ``k != 0`` fails to compute: "Missing dependency");
    - ``linalg.cholesky(x, upper=...)`` passes ``lower=not upper`` (the wrapper
      forwards ``upper`` to ``da.linalg.cholesky``, whose default is the upper factor);
    - ``linspace`` accepts complex endpoints (``da.linspace`` calls ``float()``);
    - ``linalg.svdvals`` and ``linalg.matrix_rank`` use ``da.linalg.svd`` on the tall
      orientation (Dask has no ``full_matrices=True`` and no ``compute_uv``).
    """
    import types

    import dask.array as da

    ns = types.ModuleType(compat.__name__)
    ns.__dict__.update(vars(compat))
    la = types.ModuleType(compat.linalg.__name__)
    la.__dict__.update(vars(compat.linalg))
    ns.linalg = la

    def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None, **kwargs):
        n_cols = n_rows if n_cols is None else n_cols
        rows = da.arange(n_rows)[:, None]
        cols = da.arange(n_cols)[None, :]
        return (cols - rows == k).astype(dtype if dtype is not None else "float64")

    def cholesky(x, /, *, upper=False):
        return da.linalg.cholesky(x, lower=not upper)

    def svdvals(x, /):
        if x.ndim != 2:
            raise NotImplementedError(
                "arrayflow (dask backend): linalg.svdvals supports 2-D arrays only")
        if x.shape[0] < x.shape[1]:
            x = x.T
        if x.numblocks[1] != 1:
            x = x.rechunk({1: -1})
        return da.linalg.svd(x)[1]

    def matrix_rank(x, /, *, rtol=None):
        s = svdvals(x)
        if rtol is None:
            import numpy as np

            rtol = max(x.shape[-2:]) * np.finfo(x.dtype).eps
        return da.count_nonzero(s > rtol * s.max())

    def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True, **kwargs):
        if isinstance(start, complex) or isinstance(stop, complex):
            # da.linspace calls float() on the endpoints
            div = (num - 1) if endpoint else num
            step = (stop - start) / div if div > 0 else 0
            out = start + da.arange(num) * step
            return out.astype(dtype) if dtype is not None else out
        return compat.linspace(start, stop, num, dtype=dtype, device=device,
                               endpoint=endpoint, **kwargs)

    ns.eye = eye
    ns.linspace = linspace
    la.cholesky = cholesky
    la.svdvals = svdvals
    la.matrix_rank = matrix_rank
    return ns
