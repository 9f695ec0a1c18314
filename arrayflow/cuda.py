"""``arrayflow.cuda``: PyTorch's ``torch.cuda`` queries, answered by the backend plug-ins.

"cuda" is the device type a GPU backend plug-in declares
(``Backend.device_type = "cuda"``); nothing here names a backend.
"""

from __future__ import annotations

from . import _backend
from ._device import _backend_for, _declared_types
from ._device import device as _device

__all__ = ["is_available", "device_count", "current_device", "synchronize", "manual_seed",
           "manual_seed_all"]


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


def _first(fname: str):
    usable = _usable()
    if usable:
        return usable[0]
    _backend_for(_device("cuda"), _backend.get_backend(), fname)  # raises, with the reasons
    raise AssertionError("unreachable")  # pragma: no cover


def current_device() -> int:
    """The index of the CUDA device new arrays go to (PyTorch ``torch.cuda.current_device``).

    Raises
    ------
    BackendUnavailableError
        A ``RuntimeError`` when no CUDA backend can run here, saying what to install.
    """
    b = _first("arrayflow.cuda.current_device")
    return list(b.devices()).index(b.default_device())


def synchronize() -> None:
    """Wait for the work queued on the CUDA backend to finish (``torch.cuda.synchronize``).

    Raises
    ------
    BackendUnavailableError
        A ``RuntimeError`` when no CUDA backend can run here, saying what to install.
    """
    _first("arrayflow.cuda.synchronize").materialize()


def manual_seed(seed: int) -> None:
    """Seed the random generators of the CUDA backends only; silently nothing when none
    is usable (PyTorch ``torch.cuda.manual_seed``). ``arrayflow.manual_seed`` seeds every
    backend.

    Raises
    ------
    TypeError
        If ``seed`` is not an int.
    """
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"arrayflow.cuda.manual_seed: argument 'seed' must be an int, got "
                        f"{seed!r}")
    for b in _usable():
        b.set_seed(seed)


manual_seed_all = manual_seed
