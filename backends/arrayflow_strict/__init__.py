"""arrayflow's array_api_strict backend.

A minimal, strict implementation of the array API standard: arrayflow's test
suite runs on it to prove the core uses nothing outside the standard.
Registered through the ``arrayflow.backends`` entry point ``strict``.
"""

from __future__ import annotations

from typing import Any

from arrayflow.plugin import Backend
from arrayflow_numpy import HostRandomMixin

__all__ = ["StrictBackend"]


class StrictBackend(HostRandomMixin, Backend):
    """``array_api_strict`` arrays (standard version 2025.12); eager, CPU."""

    name = "strict"
    array_module = "array_api_strict"
    lazy = False
    host_accessible = True
    integer_array_setitem = False  # the standard has no integer-array __setitem__

    def ignore_float_errors(self) -> Any:
        """NumPy's floating-point warnings off (PyTorch's kernels do not warn)."""
        import numpy as np

        return np.errstate(all="ignore")

    def load_namespace(self) -> Any:
        import array_api_strict as xp

        xp.set_array_api_strict_flags(api_version="2025.12")
        return xp

    def is_array(self, obj: Any) -> bool:
        xp = __import__("sys").modules.get("array_api_strict")
        return xp is not None and isinstance(obj, xp._array_object.Array)

    def getitem(self, array: Any, key: Any) -> Any:
        """``array[key]``; integer arrays mixed with slices, ``...`` or None (which
        array_api_strict refuses: the standard allows them only with integers) are
        gathered with standard functions (``arrayflow.ops.manipulation.gather_key``)."""
        keys = key if isinstance(key, tuple) else (key,)
        xp = self.xp
        if len(keys) > 1 and any(hasattr(k, "dtype") and xp.isdtype(k.dtype, "bool")
                                 for k in keys):
            # a mask beside other indices (the standard: only alone): its nonzero()
            # integer arrays, one per masked dimension (eager, as NumPy does)
            from arrayflow.ops.manipulation import gather_key

            new = []
            for k in keys:
                if hasattr(k, "dtype") and xp.isdtype(k.dtype, "bool"):
                    new.extend(xp.nonzero(k))
                else:
                    new.append(k)
            return gather_key(xp, array, tuple(new))
        if any(hasattr(k, "dtype") and xp.isdtype(k.dtype, "integral") for k in keys) and \
                not all(type(k) is int or hasattr(k, "dtype") for k in keys):
            from arrayflow.ops.manipulation import gather_key

            return gather_key(xp, array, key)
        return array[key]

    def to_host(self, array: Any) -> Any:
        import numpy as np

        return np.asarray(array)

    def from_host(self, array: Any, *, device: Any = None) -> Any:
        if device is None:
            return self.xp.asarray(array)
        return self.xp.asarray(array, device=device)

