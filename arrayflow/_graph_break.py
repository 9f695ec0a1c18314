"""Graph breaks: conversions that hand a Tensor's values to a foreign array library and so
drop its autograd graph (``np.asarray(t)``, a NumPy function with no arrayflow counterpart).

PyTorch raises a ``RuntimeError`` for ``np.asarray(t)`` on a Tensor that requires grad;
arrayflow warns by default (:class:`GraphBreakWarning`, once per call site) so that library
code that only reads values keeps working, and :func:`set_graph_break_policy` chooses
``"error"`` (PyTorch's behaviour, :class:`GraphBreakError`) or ``"ignore"``.

This module imports nothing from arrayflow (the lowest layer), so every layer may report a
graph break through :func:`graph_break`.
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
from types import FrameType
from typing import Any

__all__ = ["GraphBreakError", "GraphBreakWarning", "get_graph_break_policy", "graph_break",
           "set_graph_break_policy"]

_POLICIES = ("warn", "error", "ignore")
_state = {"policy": "warn"}
_lock = threading.Lock()
_PKG_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


class GraphBreakWarning(UserWarning):
    """A Tensor that requires grad was converted to a foreign array: the autograd graph
    ends there and gradients do not flow back through the conversion.

    Issued once per call site (Python's default warning filter), under the default
    ``"warn"`` policy of :func:`set_graph_break_policy`.
    """


class GraphBreakError(RuntimeError):
    """A conversion would drop the autograd graph of a Tensor that requires grad, under the
    ``"error"`` graph-break policy (PyTorch raises a ``RuntimeError`` there)."""


def set_graph_break_policy(policy: str) -> None:
    """Choose what a conversion that drops the autograd graph does.

    A graph break is a conversion of a Tensor that requires grad into a foreign array:
    ``np.asarray(t)``, ``np.array(t)``, ``t.__array__()``, or a NumPy function with no
    arrayflow counterpart called on such a Tensor. ``t.numpy()`` always raises (PyTorch)
    and DLPack export always raises ``BufferError`` (PyTorch), whatever the policy.

    Parameters
    ----------
    policy : {"warn", "error", "ignore"}
        ``"warn"`` (the default): convert and issue a :class:`GraphBreakWarning` once per
        call site. ``"error"``: raise :class:`GraphBreakError` (a ``RuntimeError``, as
        PyTorch's ``np.asarray(t)`` on a Tensor that requires grad). ``"ignore"``: convert
        silently.

    Raises
    ------
    ValueError
        If ``policy`` is not one of the three names (the policy is left unchanged).
    """
    if not isinstance(policy, str) or policy not in _POLICIES:
        raise ValueError(f"set_graph_break_policy: policy must be one of 'warn', 'error', "
                         f"'ignore', got {policy!r}")
    with _lock:
        _state["policy"] = policy


def get_graph_break_policy() -> str:
    """The current graph-break policy: ``"warn"``, ``"error"`` or ``"ignore"``.

    Returns
    -------
    str
        The policy set by :func:`set_graph_break_policy` (``"warn"`` by default).
    """
    return _state["policy"]


def _skip_prefixes() -> tuple[str, ...]:
    prefixes = [_PKG_DIR]
    np = sys.modules.get("numpy")
    f = getattr(np, "__file__", None)
    if f:
        prefixes.append(os.path.dirname(os.path.abspath(f)) + os.sep)
    return tuple(prefixes)


def _user_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside arrayflow and NumPy (the call site)."""
    prefixes = _skip_prefixes()
    frame: FrameType | None = sys._getframe(2)  # the caller of graph_break: stacklevel 2
    level = 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(prefixes):
        frame = frame.f_back
        level += 1
    return level


def graph_break(conversion: str, tensor: Any) -> None:
    """Report that ``conversion`` drops the autograd graph of ``tensor``.

    Call it only for a Tensor that requires grad. Warns, raises or does nothing according
    to :func:`get_graph_break_policy`; the warning points at the first frame outside
    arrayflow and NumPy, so Python's once-per-location filter shows it once per call site.

    Parameters
    ----------
    conversion : str
        What converts, e.g. ``"numpy.asarray (Tensor.__array__)"``.
    tensor : Tensor
        The Tensor whose graph is dropped (its ``grad_fn`` is named in the message).

    Raises
    ------
    GraphBreakError
        Under the ``"error"`` policy.
    """
    policy = _state["policy"]
    if policy == "ignore":
        return
    fn = getattr(tensor, "grad_fn", None)
    node = "a leaf (grad_fn=None)" if fn is None else f"grad_fn={type(fn).__name__}"
    msg = (f"{conversion}: converting a Tensor that requires grad ({node}) to a foreign "
           f"array drops the autograd graph; gradients will not flow back through it. "
           f"Use an arrayflow function, or tensor.detach() to convert on purpose")
    if policy == "error":
        raise GraphBreakError(msg)
    warnings.warn(msg, GraphBreakWarning, stacklevel=_user_stacklevel())
