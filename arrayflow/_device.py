"""PyTorch-style devices (``af.device("cuda:0")``) mapped onto backends.

arrayflow places arrays with backends; a PyTorch device names a kind of memory.
Each backend plug-in declares the PyTorch device type its arrays live on
(:attr:`Backend.device_type`: ``"cpu"`` by default, ``"cuda"`` for a GPU
plug-in), so the mapping lives in the plug-ins, not here:

- ``"cpu"``: the current backend if its arrays are on the CPU, else the host
  backend (:func:`arrayflow.backends.host_backend`: an eager CPU plug-in declaring
  ``host = True``, NumPy by default);
- any other type (``"cuda"``): the current backend if it has that type, else the
  first usable installed backend that declares it; none usable raises
  :class:`~arrayflow.BackendUnavailableError` (a ``RuntimeError``) with each
  candidate's reason (what to install).

A device index selects ``backend.devices()[index]``.
"""

from __future__ import annotations

import builtins
from typing import Any

from . import _backend

__all__ = ["device", "get_default_device", "set_default_device", "resolve_device"]


def _declared_types() -> dict:
    """``{device type: [backend names]}`` of the installed plug-ins (imports no array library)."""
    out: dict = {"cpu": []}
    for name in _backend.names():
        try:
            cls = _backend._backend_class(name)
        except Exception:  # a broken third-party plug-in declares nothing
            continue
        out.setdefault(getattr(cls, "device_type", "cpu"), []).append(name)
    return out


class device:
    """A PyTorch-style device: a ``type`` (``"cpu"``, ``"cuda"``) and an optional ``index``.

    ``af.device("cpu")``, ``af.device("cuda")``, ``af.device("cuda:1")``,
    ``af.device("cuda", 1)``, ``af.device(other_device)``. Accepted wherever a
    device goes: ``device=`` of the creation functions, ``Tensor.to``,
    ``Module.to``. Equality, hash, ``repr`` and ``str`` are PyTorch's
    (``device(type='cuda', index=0)``, ``"cuda:0"``); a device never equals a str.

    Parameters
    ----------
    type : str or device
        A device type declared by an installed backend plug-in (``"cpu"`` always),
        optionally with ``":index"``.
    index : int, optional
        The device index (not together with an index in the string).

    Raises
    ------
    RuntimeError
        For an unknown device type, a malformed string, a negative index, or an
        index given twice (PyTorch's errors).
    TypeError
        If ``type`` is neither a str nor a device.

    Source: PyTorch ``torch.device``.
    """

    __slots__ = ("_type", "_index")
    _type: str
    _index: int | None

    def __init__(self, type: str | device, index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            if index is not None:
                raise RuntimeError(
                    f"arrayflow.device: type {type} must not include an index because index "
                    f"was passed explicitly: {index}")
            self._type, self._index = type._type, type._index
            return
        if not isinstance(type, str):
            raise TypeError(
                f"arrayflow.device: expected a str such as 'cpu' or 'cuda:0', or a device, "
                f"got {builtins.type(type).__name__}")
        kind, sep, idx = type.partition(":")
        known = _declared_types()
        if kind not in known:
            raise RuntimeError(
                f"arrayflow.device: expected one of {', '.join(sorted(known))} device type at "
                f"start of device string: {type} (types come from the installed backends)")
        if sep:
            if index is not None:
                raise RuntimeError(
                    f"arrayflow.device: type (string) must not include an index because "
                    f"index was passed explicitly: {type}")
            if not idx.isdigit():
                raise RuntimeError(f"arrayflow.device: invalid device string: {type!r}")
            index = int(idx)
        if index is not None:
            if isinstance(index, builtins.bool) or not isinstance(index, int):
                raise TypeError(
                    f"arrayflow.device: argument 'index' must be an int, got "
                    f"{builtins.type(index).__name__}")
            if index < 0:
                raise RuntimeError(
                    f"arrayflow.device: device index must not be negative, got {index}")
        self._type, self._index = kind, index

    @property
    def type(self) -> str:
        """The device type (``"cpu"``, ``"cuda"``)."""
        return self._type

    @property
    def index(self) -> int | None:
        """The device index, or None (the current device of that type)."""
        return self._index

    def __eq__(self, other) -> bool:
        if not isinstance(other, device):
            return NotImplemented
        return self._type == other._type and self._index == other._index

    def __hash__(self) -> int:
        return hash((self._type, self._index))

    def __repr__(self) -> str:
        if self._index is None:
            return f"device(type={self._type!r})"
        return f"device(type={self._type!r}, index={self._index})"

    def __str__(self) -> str:
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __reduce__(self):
        return (device, (self._type, self._index))


def as_device(obj: Any) -> device | None:
    """``obj`` as a :class:`device` when it is one or a device string, else None.

    Strings that do not start with a declared device type are not devices here
    (they may be a backend's own native device names) and give None.
    """
    if isinstance(obj, device):
        return obj
    if isinstance(obj, str):
        kind = obj.partition(":")[0]
        if kind in _declared_types():
            return device(obj)
    return None


def cuda_device(device_arg: Any, fname: str) -> device:
    """The CUDA device a ``.cuda(device)`` call names (PyTorch ``Tensor.cuda``/``Module.cuda``):
    None is ``cuda``, an int the CUDA device of that index, else a CUDA device or string.

    Raises
    ------
    RuntimeError
        PyTorch's "Invalid device, must be cuda device" for a device of another type.
    """
    if device_arg is None:
        return device("cuda")
    if isinstance(device_arg, int) and not isinstance(device_arg, builtins.bool):
        return device("cuda", device_arg)
    dev = device(device_arg)
    if dev.type != "cuda":
        raise RuntimeError(f"{fname}: Invalid device, must be cuda device, got {dev}")
    return dev


def _backend_for(dev: device, current, fname: str):
    if getattr(current, "device_type", "cpu") == dev.type:
        return current
    if dev.type == "cpu":
        try:
            return _backend.host_backend()
        except _backend.BackendUnavailableError:
            pass  # another usable CPU backend may serve (below)
    candidates = _declared_types().get(dev.type, [])
    reasons = []
    for name in candidates:
        b = _backend._instance(name, {})
        reason = b.unusable_reason()
        if reason is None:
            return b
        reasons.append(f"backend {name!r}: {reason}")
    why = "; ".join(reasons) if reasons else "no installed backend declares this device type"
    raise _backend.BackendUnavailableError(
        f"{fname}: device {str(dev)!r} is not available here ({why})")


def _native(b, dev: device, fname: str):
    if dev.index is None:
        return None
    devs = b.devices()
    if dev.index >= len(devs):
        raise RuntimeError(
            f"{fname}: device {str(dev)!r} is out of range: backend {b.name!r} has "
            f"{len(devs)} device(s) of type {dev.type!r}")
    return devs[dev.index]


def resolve_device(obj: Any, current: _backend.Backend,
                   fname: str = "arrayflow") -> tuple[_backend.Backend, Any]:
    """``(backend, native device)`` for a ``device=`` value.

    A :class:`device` or device string is mapped onto a backend (see the module
    docstring), with the native device of its index (None: the backend's
    default). Anything else is a native device of ``current`` and passes through.

    Raises
    ------
    BackendUnavailableError
        When no usable backend has the device type (the reasons name what to install).
    RuntimeError
        For an index beyond the backend's devices.
    """
    dev = as_device(obj)
    if dev is None:
        return current, obj
    b = _backend_for(dev, current, fname)
    return b, _native(b, dev, fname)


def device_of(backend: _backend.Backend, native: Any = None) -> device:
    """The :class:`device` of arrays of ``backend`` on ``native`` (None: its default)."""
    kind = getattr(backend, "device_type", "cpu")
    if kind == "cpu":
        return device("cpu")
    try:
        devs = list(backend.devices())
        nat = backend.default_device() if native is None else native
        return device(kind, devs.index(nat))
    except Exception:
        return device(kind)


def get_default_device() -> device:
    """The device new Tensors go to: that of the current backend (``device(type='cpu')``).

    Source: PyTorch ``torch.get_default_device``.

    Returns
    -------
    device
        The current backend's device.
    """
    return device_of(_backend.get_backend())


def set_default_device(dev: device | str | None) -> None:
    """Make creation functions allocate on ``dev`` (a device, a device string, or None).

    Selects the backend of that device type as the default (see the module
    docstring): ``set_default_device("cuda")`` selects the GPU backend,
    ``set_default_device("cpu")`` (or None) keeps a CPU backend, or selects the
    host backend. A device index is checked but not remembered: arrays go
    to the backend's current device.

    Parameters
    ----------
    dev : device or str or None
        The device (``"cpu"``, ``"cuda"``, ``"cuda:0"``, an :class:`arrayflow.device`), or None
        for the CPU.

    Raises
    ------
    BackendUnavailableError
        When no usable backend has the device type.

    Source: PyTorch ``torch.set_default_device``.
    """
    if dev is None:
        dev = device("cpu")
    d = as_device(dev)
    if d is None:
        raise TypeError(
            f"arrayflow.set_default_device: expected a device or a device string such as "
            f"'cuda', got {dev!r}")
    b, _ = resolve_device(d, _backend.get_backend(), "arrayflow.set_default_device")
    if b is not _backend.get_backend():
        _backend.set_backend(b)


def place(op_: Any, backend: _backend.Backend, kwargs: dict, args: Any,
          uargs: Any) -> tuple[_backend.Backend, Any]:
    """Resolve a PyTorch-style ``device=`` of an op call (used by the dispatcher).

    Replaces ``kwargs["device"]`` with the native device and returns
    ``(backend, uargs)``: the backend of that device and, for a creation function
    whose array arguments live on another backend (``asarray(t, device="cuda")``),
    the arguments copied there through host memory.

    Raises
    ------
    BackendMismatchError
        When a non-creation function is asked for a device of another backend than
        its arguments'.
    """
    fname = f"arrayflow.{op_.name}"
    new, native = resolve_device(kwargs["device"], backend, fname)
    kwargs["device"] = native
    if new is backend or new.same_kind(backend):
        return backend, uargs
    src = list(args if uargs is None else uargs)
    moved = False
    for i, a in enumerate(src):
        if backend.is_array(a):
            if not op_.creation:
                raise _backend.BackendMismatchError(
                    f"{fname}: device={str(as_device(kwargs.get('device')) or '')!s} is on "
                    f"backend {new.name!r} but the arguments are on {backend.name!r}; move "
                    f"them first with .to(device)")
            src[i] = new.from_host(backend.to_host(a), device=native)
            moved = True
    return new, (src if moved else uargs)
