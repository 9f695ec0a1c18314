"""``arrayflow.cuda``: PyTorch's ``torch.cuda`` queries, answered by the backend plug-ins.

"cuda" is the device type a GPU backend plug-in declares
(``Backend.device_type = "cuda"``); nothing here names a backend.
"""

from __future__ import annotations

from . import _backend
from ._device import _declared_types

__all__ = ["is_available", "device_count"]


def _usable():
    out = []
    for name in _declared_types().get("cuda", []):
        try:
            b = _backend._instance(name, {})
            if b.unusable_reason() is None:
                out.append(b)
        except Exception:  # a broken plug-in is not a usable GPU
            continue
    return out


def is_available() -> bool:
    """Whether a backend with device type ``"cuda"`` can run here (a GPU and its library).

    Never raises. Source: PyTorch ``torch.cuda.is_available``.
    """
    return bool(_usable())


def device_count() -> int:
    """The number of CUDA devices of the first usable ``"cuda"`` backend (0 when none).

    Source: PyTorch ``torch.cuda.device_count``.
    """
    usable = _usable()
    if not usable:
        return 0
    try:
        return len(usable[0].devices())
    except Exception:
        return 0
