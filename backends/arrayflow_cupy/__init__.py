"""arrayflow's CuPy backend (NVIDIA GPUs).

Registered through the ``arrayflow.backends`` entry point ``cupy``. Selecting it
without a usable CUDA device raises ``BackendUnavailableError`` (a
``RuntimeError``) at selection time, with the reason (``"cupy is not
installed"``, ``"no CUDA device"``), never a CUDA traceback inside an op.
"""

from __future__ import annotations

from typing import Any

from arrayflow.plugin import Backend

__all__ = ["CupyBackend"]


class CupyBackend(Backend):
    """CuPy arrays through ``array_api_compat.cupy``; eager, on the GPU."""

    name = "cupy"
    array_module = "cupy"
    lazy = False
    host_accessible = False
    device_type = "cuda"  # af.device("cuda"), t.cuda(), af.cuda.is_available() find it

    def unusable_reason(self) -> str | None:
        import importlib.util

        if importlib.util.find_spec("cupy") is None:
            return "cupy is not installed (pip install 'arrayflow[cupy]')"
        try:
            import cupy

            n = cupy.cuda.runtime.getDeviceCount()
        except Exception as e:  # CUDA driver or runtime missing
            return f"no CUDA device ({type(e).__name__}: {e})"
        if n < 1:
            return "no CUDA device"
        return None

    def load_namespace(self) -> Any:
        import array_api_compat.cupy as xp

        return xp

    def dtype_from_name(self, name: str) -> Any:
        import numpy as np

        return np.dtype(name)

    def is_array(self, obj: Any) -> bool:
        cp = __import__("sys").modules.get("cupy")
        return cp is not None and isinstance(obj, cp.ndarray)

    def to_host(self, array: Any) -> Any:
        import cupy

        return cupy.asnumpy(array)

    def from_host(self, array: Any, *, device: Any = None) -> Any:
        import cupy

        if device is None:
            return cupy.asarray(array)
        with device:
            return cupy.asarray(array)

    def materialize(self, *arrays: Any) -> tuple:
        import cupy

        cupy.cuda.get_current_stream().synchronize()
        return arrays

    def make_generator(self, seed: int | None) -> Any:
        import cupy

        return cupy.random.default_rng(seed)

    def random(self, kind: str, shape: tuple, *, dtype: Any, device: Any = None,
               **params: Any) -> Any:
        import cupy

        rng = self.generator
        if kind == "normal":
            out = rng.standard_normal(shape, dtype=cupy.float64)
            out = out * params.get("std", 1.0) + params.get("mean", 0.0)
        elif kind == "uniform":
            low, high = params.get("low", 0.0), params.get("high", 1.0)
            out = rng.random(shape, dtype=cupy.float64) * (high - low) + low
        elif kind == "integers":
            out = rng.integers(params["low"], params["high"], size=shape)
        elif kind == "permutation":
            out = rng.permutation(params["n"])
        else:
            raise ValueError(f"random: unknown kind {kind!r}")
        return out.astype(dtype)

