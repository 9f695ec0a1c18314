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
        import array_api_compat.dask.array as xp

        return xp

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
        return (
            f"<dask array shape={tuple(array.shape)} dtype={array.dtype} "
            f"chunksize={tuple(array.chunksize)}>"
        )
