"""Working with lazy backends: ``compute`` and ``allow_compute`` (Dask's words).

``persist`` and ``rechunk`` are ops (:mod:`arrayflow.ops.chunking`), so they are
differentiable; ``compute`` ends the lazy graph and gives concrete values.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from . import _backend
from .ops import _registry
from .ops._registry import _wrap1
from .overrides import overridable

__all__ = ["allow_compute", "compute"]


@overridable
def compute(*tensors: Any) -> tuple[Any, ...]:
    """Compute several Tensors in one graph execution and return concrete Tensors.

    Dask's ``dask.compute``: work shared by the arguments (the forward pass a
    loss and all its gradients depend on) runs once. With a
    ``dask.distributed.Client`` active the work runs on its cluster.

    Parameters
    ----------
    *tensors : Tensor or any
        Tensors, possibly of different backends; other objects pass through.

    Returns
    -------
    tuple
        One entry per argument. A lazy backend's Tensor becomes a Tensor of the
        eager backend holding its values: the host backend
        (:func:`arrayflow.backends.host_backend`, NumPy by default) when the lazy
        backend computes host arrays, as Dask does (so ``float(loss)`` and
        ``.numpy()`` are free), else the backend recognising the computed array; an
        eager backend's Tensor is returned detached (same storage). Results never
        require grad.

    Examples
    --------
    >>> loss, gw = af.compute(loss, model.weight.grad)  # doctest: +SKIP
    """
    out = list(tensors)
    groups: dict[int, tuple] = {}
    for i, t in enumerate(tensors):
        if isinstance(t, _registry.Tensor):  # the Tensor class, filled by tensor.py
            b = t._backend
            groups.setdefault(id(b), (b, []))[1].append(i)
    for b, idx in groups.values():
        if not b.lazy:
            for i in idx:
                out[i] = tensors[i].detach()
            continue
        arrays = b.compute(*(tensors[i]._cell.array for i in idx))
        host = _backend.host_backend()
        for i, a in zip(idx, arrays):
            out[i] = _wrap1(*_concrete(a, b, host))
    return tuple(out)


def _concrete(a, lazy, host):
    """``(array, backend)`` for an array ``lazy.compute`` returned: the host backend's
    when it recognises ``a`` (NumPy arrays on the NumPy plug-in), else the backend that
    does (CuPy arrays from a lazy GPU backend), else ``a`` taken as the host data that
    :meth:`Backend.compute` returns, made an array of the host backend."""
    if host.is_array(a):
        return a, host
    owner = _backend.backend_of_array(a)
    if owner is not None and owner is not lazy:
        return a, owner
    return host.from_host(a), host


@contextlib.contextmanager
def allow_compute() -> Iterator[None]:
    """Let functions with data-dependent output shapes compute them on lazy backends.

    ``unique_*``, ``nonzero``, boolean-mask indexing and ``repeat`` with Tensor
    repeats raise :class:`DataDependentShapeError` on a lazy backend, because
    their output shape is only known from the values. Inside this block they
    compute what they need (Dask: ``compute_chunk_sizes``) and the result stays
    lazy, with a known shape. Context-local (``contextvars``).

    Yields
    ------
    None
        A context manager; the previous setting is restored on exit.

    Examples
    --------
    >>> with af.allow_compute():  # doctest: +SKIP
    ...     pos = x[x > 0]
    """
    token = _backend._compute_allowed.set(True)
    try:
        yield
    finally:
        _backend._compute_allowed.reset(token)
