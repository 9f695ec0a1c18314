"""arrayflow's NumPy backend (CPU), the default.

Registered through the ``arrayflow.backends`` entry point ``numpy``. Uses
array-api-compat's NumPy namespace; NumPy is imported on first use only.
"""

from __future__ import annotations

from typing import Any

from arrayflow.plugin import Backend

__all__ = ["NumpyBackend", "HostRandomMixin"]


def pcg64_from_state(state: Any, backend: str, seed_seq: Any = None) -> Any:
    """A NumPy ``PCG64`` set to ``state`` (a ``bit_generator.state`` dict), checked.

    Raises
    ------
    ValueError
        If ``state`` is not a PCG64 state.
    """
    import numpy as np

    if not (isinstance(state, dict) and state.get("bit_generator") == "PCG64"):
        raise ValueError(f"set_rng_state: backend {backend!r} expected a PCG64 state dict "
                         f"from get_rng_state(), got {str(state)[:80]}")
    bg = np.random.PCG64(seed_seq)
    try:
        bg.state = state
    except (TypeError, ValueError, KeyError) as e:
        raise ValueError(f"set_rng_state: backend {backend!r}: invalid PCG64 state "
                         f"({e})") from None
    return bg


class HostRandomMixin:
    """Random numbers drawn with a NumPy ``Generator`` (PCG64) on the host.

    For backends whose arrays are made from NumPy arrays with ``from_host``.
    The same seed gives the same numbers on every backend using this mixin.
    """

    def make_generator(self, seed: int | None) -> Any:
        import numpy as np

        return np.random.default_rng(seed)

    def get_rng_state(self) -> Any:
        """``{"bit_generator": "PCG64", "state": {...}, ...}``: NumPy's bit-generator
        state (JSON-compatible)."""
        import copy

        return copy.deepcopy(self.generator.bit_generator.state)

    def set_rng_state(self, state: Any) -> None:
        import numpy as np

        self._rng = np.random.Generator(pcg64_from_state(state, self.name))

    def random(self, kind: str, shape: tuple, *, dtype: Any, device: Any = None,
               **params: Any) -> Any:
        import numpy as np

        rng = self.generator
        np_dtype = np.dtype(self.arrayflow_dtype(dtype).name) if not isinstance(
            dtype, np.dtype) else dtype
        if kind == "normal":
            out = rng.standard_normal(shape, dtype=np.float64)
            out = out * params.get("std", 1.0) + params.get("mean", 0.0)
        elif kind == "uniform":
            low, high = params.get("low", 0.0), params.get("high", 1.0)
            out = rng.random(shape, dtype=np.float64) * (high - low) + low
        elif kind == "integers":
            out = rng.integers(params["low"], params["high"], size=shape, dtype=np.int64)
        elif kind == "permutation":
            out = rng.permutation(params["n"])
        else:
            raise ValueError(f"random: unknown kind {kind!r}")
        return self.from_host(np.asarray(out, dtype=np_dtype), device=device)


class NumpyBackend(HostRandomMixin, Backend):
    """NumPy arrays through ``array_api_compat.numpy``; eager, CPU only."""

    name = "numpy"
    array_module = "numpy"
    lazy = False
    host_accessible = True
    host = True  # serves host round trips, finite differences, computed results

    def ignore_float_errors(self) -> Any:
        """NumPy's floating-point warnings off (PyTorch's kernels do not warn)."""
        import numpy as np

        return np.errstate(all="ignore")

    def load_namespace(self) -> Any:
        import types

        import array_api_compat.numpy as xp

        # A copy (same ``__name__``: array-api-compat still recognises it) whose ``where``
        # selects bits instead of branching per element (bit for bit np.where's; 3-8x
        # faster on unpredictable masks, see ``_where``).
        from ._where import where

        ns = types.ModuleType(xp.__name__)
        ns.__dict__.update(vars(xp))
        ns.where = where
        return ns

    def dtype_from_name(self, name: str) -> Any:
        import numpy as np

        return np.dtype(name)

    def is_array(self, obj: Any) -> bool:
        np = __import__("sys").modules.get("numpy")
        return np is not None and isinstance(obj, (np.ndarray, np.generic))

    def to_host(self, array: Any) -> Any:
        import numpy as np

        return np.asarray(array)

    def python_scalar(self, obj: Any) -> bool | int | float | complex | None:
        """``np.float64(2)`` -> ``2.0`` (NumPy scalars, not 0-d arrays); else None."""
        np = __import__("sys").modules.get("numpy")
        if np is not None and isinstance(obj, np.generic) and not isinstance(
                obj, (np.datetime64, np.timedelta64, np.void)):
            return obj.item()
        return None

    def from_host(self, array: Any, *, device: Any = None) -> Any:
        return array

