"""Chunked and lazy layout: ``rechunk`` and ``persist`` (Dask's words).

Both are differentiable identities: the gradient passes through unchanged, so
``af.persist(h)`` or ``h.rechunk(...)`` inside a model keeps the graph. On
eager, unchunked backends (NumPy, array_api_strict, CuPy) they return the same
values: code written for Dask runs unchanged everywhere. Identities on values,
their VJPs are right for complex values too (PyTorch's convention).
"""

from __future__ import annotations

from typing import Any

from .._typing import Array
from ._registry import op

__all__ = ["persist", "rechunk"]


@op("rechunk", backend_arg=True, section="lazy", dtypes="any", torch_name=None,
    complex_ok=True, jvp="linear")
def rechunk(backend, x: Array, /,
            chunks: int | str | tuple[Any, ...] | dict[int, Any] = "auto"):
    """``x`` laid out in blocks of ``chunks`` (Dask ``Array.rechunk``).

    Parameters
    ----------
    x : Tensor
        Any shape and dtype.
    chunks : int, tuple, dict or "auto"
        Dask's chunk specification: a block size for every axis, one size (or
        tuple of sizes, -1 for the whole axis) per axis, or ``{axis: size}``.

    Returns
    -------
    Tensor
        Same shape, dtype and values; ``.chunks`` is the new layout. Backends
        without chunks return ``x``'s values unchanged.

    Raises
    ------
    ValueError
        From Dask, when ``chunks`` does not fit ``x``'s shape.

    Notes
    -----
    Source: Dask ``dask.array.Array.rechunk`` (neither the array API standard nor
    PyTorch has it).
    """
    return backend.rechunk(x, chunks), ()


@rechunk.defvjp
def _rechunk_vjp(xp, res, g):
    return (g,)


@op("persist", backend_arg=True, out="tuple", section="lazy", dtypes="any",
    torch_name=None, complex_ok=True)
def persist(backend, *tensors: Array):
    """Start computing ``tensors`` and keep their values in (distributed) memory.

    Dask's ``persist``: one graph execution for all arguments (shared work is done
    once); the results are Tensors on the same backend whose graphs are just the
    stored blocks, so later work does not recompute them. With a
    ``dask.distributed.Client`` the blocks stay on the workers. Eager backends
    return the same values (CuPy synchronizes).

    Parameters
    ----------
    *tensors : Tensor
        Tensors of one backend.

    Returns
    -------
    tuple of Tensor
        One per argument, same shapes, dtypes and values. Differentiable: the
        gradient passes through to the inputs.

    Raises
    ------
    TypeError
        (``BackendMismatchError``) If the Tensors live on different backends.

    Notes
    -----
    Source: Dask ``dask.persist`` (neither the array API standard nor PyTorch has
    it).
    """
    return tuple(backend.materialize(*tensors)), ()


@persist.defvjp
def _persist_vjp(xp, res, *gs):
    return gs


@persist.defjvp
def _persist_jvp(xp, tangents, out, *tensors):
    # The tangents get the same treatment, in one execution of their own: computed and
    # kept (so later forward-mode work does not recompute them); None where none.
    ts = tangents["tensors"]
    done = iter(xp.persist(*(t for t in ts if t is not None)))
    return tuple(None if t is None else next(done) for t in ts)
