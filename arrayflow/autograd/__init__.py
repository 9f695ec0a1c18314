"""``arrayflow.autograd``: reverse-mode automatic differentiation.

PyTorch's API (``backward``, ``grad``, ``Function``, grad modes, ``gradcheck``,
``functional``, ``detect_anomaly``), written once over the array API: the
engine never reads array values, so Dask graphs stay lazy through backward.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

from .._typing import Array
from ..ops import _registry
from ..ops.creation import ones_like
from ..ops.dtypes import astype
from . import _views, forward_ad, functional
from . import graph as _graph
from .engine import run_backward
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import _enabled, enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .variable import Variable

__all__ = [
    "Function", "FunctionCtx", "once_differentiable", "backward", "grad", "no_grad",
    "enable_grad", "set_grad_enabled", "is_grad_enabled", "gradcheck", "gradgradcheck",
    "GradcheckError", "functional", "forward_ad", "detect_anomaly", "set_detect_anomaly",
    "Variable",
]


def _install():
    _registry.install(record=_graph.record, grad_enabled=_enabled.get)
    _views.install()


_install()


def _seq(x):
    if x is None:
        return None
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _root_grads(fname, outputs, grads):
    if grads is None:
        grads = (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(
            f"{fname}: got {len(grads)} gradients for {len(outputs)} outputs")
    out = []
    for i, (o, g) in enumerate(zip(outputs, grads)):
        if g is None:
            n = 1
            for s in o.shape:
                n *= s
            if n != 1:
                raise RuntimeError(
                    f"{fname}: grad can be implicitly created only for scalar outputs; output "
                    f"{i} has shape {o.shape}: pass the gradient explicitly")
            if o.dtype.kind == "complex floating":  # PyTorch: a complex loss is ambiguous
                raise RuntimeError(
                    f"{fname}: grad can be implicitly created only for real scalar outputs "
                    f"but got {o.dtype}")
            g = ones_like(o)
        elif not isinstance(g, _registry.Tensor):
            raise TypeError(f"{fname}: gradient {i} must be a Tensor or None, got "
                            f"{type(g).__name__}")
        elif g.shape != o.shape:
            raise RuntimeError(
                f"{fname}: Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                f"output[{i}] has a shape of {o.shape}")
        elif g.dtype is not o.dtype and o.dtype.kind == "real floating" and \
                g.dtype.kind != "complex floating":
            # PyTorch's engine casts gradients to the dtype of what they are for.
            g = astype(g, o.dtype)
        out.append(g)
    return out


def backward(tensors: Array | Sequence[Array], grad_tensors: Array | Sequence[Array] | None = None,
             retain_graph: bool | None = None, create_graph: bool = False,
             inputs: Array | Sequence[Array] | None = None) -> None:
    """Accumulate gradients of ``tensors`` into the ``.grad`` of graph leaves.

    Matches ``torch.autograd.backward``. ``inputs`` restricts accumulation to
    those leaves. ``retain_graph`` defaults to ``create_graph``.

    Parameters
    ----------
    tensors : Tensor or sequence of Tensor
        The outputs to differentiate.
    grad_tensors : Tensor or sequence of Tensor, optional
        The gradients with respect to ``tensors`` (one per output; None allowed for one-element
        outputs).
    retain_graph : bool, optional
        Keep the graph for another backward; None means ``create_graph``.
    create_graph : bool, default False
        Record the backward computation, for higher-order gradients.
    inputs : Tensor or sequence of Tensor, optional
        Accumulate into these leaves only; None for every leaf.

    Raises
    ------
    RuntimeError
        For a non-scalar output without a gradient, an output that does not
        require grad, or a second backward through a freed graph.
    """
    outputs = _seq(tensors)
    grads = _root_grads("backward", outputs, _seq(grad_tensors))
    if retain_graph is None:
        retain_graph = create_graph
    run_backward(outputs, grads, retain_graph=retain_graph, create_graph=create_graph,
                 inputs=_seq(inputs), capture=False)


def grad(outputs: Array | Sequence[Array], inputs: Array | Sequence[Array],
         grad_outputs: Array | Sequence[Array] | None = None,
         retain_graph: bool | None = None, create_graph: bool = False,
         allow_unused: bool = False) -> tuple[Array | None, ...]:
    """Gradients of ``outputs`` with respect to ``inputs``, returned (not accumulated).

    Matches ``torch.autograd.grad``: returns a tuple with one Tensor per input
    (None for unused inputs when ``allow_unused=True``).

    Parameters
    ----------
    outputs : Tensor or sequence of Tensor
        The outputs to differentiate.
    inputs : Tensor or sequence of Tensor
        The Tensors to differentiate with respect to.
    grad_outputs : Tensor or sequence of Tensor, optional
        The gradients with respect to ``outputs`` (None allowed for one-element outputs).
    retain_graph : bool, optional
        Keep the graph for another backward; None means ``create_graph``.
    create_graph : bool, default False
        Record the backward computation, for higher-order gradients.
    allow_unused : bool, default False
        Return None for an input the outputs do not depend on (False: raise).

    Returns
    -------
    tuple of Tensor or None
        One gradient per input, of its shape.
    """
    outputs = _seq(outputs)
    inputs = _seq(inputs)
    grads = _root_grads("grad", outputs, _seq(grad_outputs))
    if retain_graph is None:
        retain_graph = create_graph
    return run_backward(outputs, grads, retain_graph=retain_graph, create_graph=create_graph,
                        inputs=inputs, capture=True, allow_unused=allow_unused, fname="grad")


def set_detect_anomaly(mode: bool) -> None:
    """Turn anomaly detection on or off for the process.

    Parameters
    ----------
    mode : bool
        True turns anomaly detection on.
    """
    _graph.anomaly_state["enabled"] = bool(mode)


@contextlib.contextmanager
def detect_anomaly(check_nan: bool = True) -> Iterator[None]:
    """Record forward tracebacks and raise when backward produces NaN.

    The error names the node (``DivBackward``) and shows the traceback of the
    forward call that created it (``torch.autograd.detect_anomaly``).

    Parameters
    ----------
    check_nan : bool, default True
        Turn detection on inside the block (False: off).

    Yields
    ------
    None
        A context manager; the previous mode is restored on exit.
    """
    old = _graph.anomaly_state["enabled"]
    _graph.anomaly_state["enabled"] = bool(check_nan)
    try:
        yield
    finally:
        _graph.anomaly_state["enabled"] = old
