"""Differentiable moves between backends and devices (``Tensor.to``, ``to_device``, ``cpu``).

PyTorch's ``Tensor.to(device)`` is differentiable: its ``ToCopyBackward0`` node copies the
gradient back to the input's device and dtype. Here a move changes the backend (numpy,
dask, strict, cupy) and/or the device, so the node's outputs live on one backend and its
inputs on another: :class:`ToCopyBackward0` records both (``backend``: the output's, which
the engine uses for the output's hooks; ``in_backend``: the input's, for the gradient it
returns). The gradient is moved back with the same data path as the forward (DLPack, else
host memory), cast to the input's dtype and placed on the input's device. With
``create_graph=True`` the backward move is itself a recorded move, so double backward goes
through; in forward mode the tangent is moved as the primal is.
"""

from __future__ import annotations

import traceback
from typing import Any

from .. import _backend
from ..ops import _registry
from . import forward_ad as _fw
from . import graph as _graph
from .grad_mode import is_grad_enabled_fast

__all__ = ["ToCopyBackward0", "move", "move_array"]


def move_array(arr: Any, src: _backend.Backend, dst: _backend.Backend) -> Any:
    """Move a backend array from ``src`` to ``dst``: DLPack when both sides support it,
    else host memory (``src.to_host`` then ``dst.from_host``)."""
    if dst is src or dst.same_kind(src):
        return arr
    fn = getattr(dst.xp, "from_dlpack", None)
    if fn is not None and hasattr(arr, "__dlpack__"):
        try:
            return fn(arr)
        except (TypeError, BufferError, ValueError, RuntimeError, NotImplementedError,
                AttributeError):
            pass
    return dst.from_host(src.to_host(arr))


def _device(arr: Any) -> Any:
    import array_api_compat

    return array_api_compat.device(arr)


def _to_device(arr: Any, native: Any) -> Any:
    import array_api_compat

    if native is None or array_api_compat.device(arr) == native:
        return arr
    return array_api_compat.to_device(arr, native)


def _cast(arr: Any, backend: _backend.Backend, dtype: Any) -> Any:
    """``arr`` (on ``backend``) as arrayflow dtype ``dtype``; a complex array cast to a real
    dtype keeps its real part (PyTorch's ``ToCopyBackward0`` for a real input)."""
    xp = backend.xp
    if backend.arrayflow_dtype(arr.dtype) is dtype:
        return arr
    if dtype.kind != "complex floating" and \
            backend.arrayflow_dtype(arr.dtype).kind == "complex floating":
        arr = xp.real(arr)
    return xp.astype(arr, backend.native_dtype(dtype))


class ToCopyBackward0(_graph.Node):
    """The node of a move between backends/devices (PyTorch's ``ToCopyBackward0``): the
    gradient goes back to the input's backend, device and dtype."""

    __slots__ = ("backend", "in_backend", "in_dtype", "in_device")
    backend: Any  # the output's backend
    in_backend: Any  # the input's: the gradient goes back there
    in_dtype: Any
    in_device: Any

    def _release(self) -> None:
        return None

    def _apply(self, grads, create_graph):
        g = grads[0]
        if g is None:
            return [None]
        if create_graph:  # the move back is recorded: double backward goes through it
            Tensor = _registry.Tensor
            if not isinstance(g, Tensor):
                g = Tensor._from_array(g, self.backend)
            return [move(g, self.in_backend, self.in_dtype, self.in_device)]
        arr = move_array(g, self.backend, self.in_backend)
        arr = _cast(arr, self.in_backend, self.in_dtype)
        return [_to_device(arr, self.in_device)]


def move(t: Any, dst: _backend.Backend, dtype: Any = None, native: Any = None) -> Any:
    """``t`` on backend ``dst`` (and native device ``native``, dtype ``dtype`` where given),
    a new Tensor that is differentiable: it requires grad when ``t`` does (grad mode on,
    floating result), its ``grad_fn`` a :class:`ToCopyBackward0`; a tangent ``t`` carries at
    an active forward-AD level is moved the same way.

    Parameters
    ----------
    t : Tensor
        The Tensor moved.
    dst : Backend
        The target backend (may be ``t``'s own for a device move).
    dtype : DType, optional
        The result's dtype; None keeps ``t``'s.
    native : Any, optional
        The target backend's native device; None for the one the move lands on.

    Returns
    -------
    Tensor
        Always a new Tensor (the caller applies PyTorch's "returns self" rule).
    """
    Tensor = _registry.Tensor
    src = t._backend
    arr = t._cell.array
    out_arr = move_array(arr, src, dst)
    if dtype is not None and dtype is not t.dtype:
        out_arr = _cast(out_arr, dst, dtype)
    out_arr = _to_device(out_arr, native)
    out = Tensor._from_array(out_arr, dst)
    floating = out.dtype.kind in ("real floating", "complex floating")
    if t._requires_grad and floating and is_grad_enabled_fast():
        node = ToCopyBackward0.__new__(ToCopyBackward0)
        _graph.Node.__init__(node, (_graph.grad_edge(t),), 1)
        node.backend = dst
        node.in_backend = src
        node.in_dtype = t.dtype
        node.in_device = _device(arr)
        if _graph.anomaly_state["enabled"]:
            node._trace = traceback.extract_stack()[:-1]
        out._requires_grad = True
        out.grad_fn = node
        out._output_nr = 0
    if _fw._LEVELS and floating:
        for lv in _fw._LEVELS:
            if lv.suspended:
                continue
            tangent = lv.tangents.get(t)
            if tangent is None:
                continue
            lv.suspended += 1
            try:
                moved = move(tangent, dst, out.dtype, native)
            finally:
                lv.suspended -= 1
            lv.tangents[out] = moved
    return out
