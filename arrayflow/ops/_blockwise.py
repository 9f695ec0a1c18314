"""Element-wise functions run one block at a time on chunked lazy backends.

An element-wise function written from array API calls (``fn(xp, *operands, **static)``, the
operands arrays or Python scalars, one array of the broadcast shape returned) builds one graph
node per array operation on a lazy backend: ``arrayflow.special.gammainc`` is about a thousand
of them, and each inverse function runs it a dozen times. On a chunked backend whose blocks are
another backend's arrays (:attr:`arrayflow._backend.Backend.block_backend`: Dask's blocks are
NumPy arrays) the same function runs instead on each block, eagerly, inside one
:meth:`~arrayflow._backend.Backend.map_blocks` node: the value is the same (the same
operations on the same numbers, in the block backend's arithmetic), the graph one layer.

:func:`blockwise` wraps such a function; :func:`blockwise_forward` wraps an op's forward that
returns ``(value, residuals)``: the residuals are mapped back to the lazy operands (or to the
lazy value) by what a probe on empty blocks returns. Ops get it from
:class:`arrayflow.ops._registry.Op` (``blockwise``: the element-wise ``arrayflow.special``
functions); the derivative functions of their VJPs and JVPs through the rule helpers of
:mod:`arrayflow.ops.special`.

Elsewhere -- eager backends, Tensors (a VJP recorded with ``create_graph``), tracing proxies of
``af.compile``, operands of unknown size (a boolean-mask selection), a function that fails on
the probe -- the function runs as written, so behaviour and errors are the same as without
this module.

Blocked or not, the function runs in its backend's
:meth:`~arrayflow._backend.Backend.ignore_float_errors` context: it computes every branch on
every element, and the lanes a branch does not own overflow or divide by zero by design
(NumPy would warn; PyTorch's kernels do not).
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Callable
from typing import Any

from .. import _backend
from ._vjp_util import is_array

_MISS = object()
# array type -> the chunked lazy Backend whose arrays they are, or None
_CHUNKED: dict[type, Any] = {}
# (fn, operand kinds, static kwargs) -> (result dtype, residual map) from a probe
_PROBES: dict[tuple, tuple] = {}
_SCALARS = (bool, int, float, complex)


def _chunked(a: Any) -> Any:
    t = type(a)
    b = _CHUNKED.get(t, _MISS)
    if b is _MISS:
        b = _backend.backend_of_array(a)
        if b is None or not b.lazy or b.block_backend is None:
            b = None
        _CHUNKED[t] = b
    return b


def _block_namespace(b: Any) -> Any:
    """The array namespace of ``b``'s blocks, or None where that backend is not installed."""
    try:
        bb = _backend._instance(b.block_backend, {})
        return bb._xp or bb.xp
    except Exception:  # not installed or not usable here: run unblocked
        return None


def _operand(a: Any) -> bool:
    return a is not None and not isinstance(a, _SCALARS) and is_array(a)


def _probe(fn: Callable, bxp: Any, args: tuple, pos: list, kwargs: dict, forward: bool):
    """``(dtype, residual map)`` of ``fn`` on empty blocks (cached), or None when ``fn``
    raises there or its residuals are not operands, the value or constants."""
    try:  # keyed by the exact non-array arguments: constant residuals come from them
        key = (fn, tuple((i, str(args[i].dtype)) for i in pos),
               tuple(None if i in pos else (type(a), repr(a)) for i, a in enumerate(args)),
               tuple(sorted((k, type(v), repr(v)) for k, v in kwargs.items())))
        hash(key)
    except TypeError:
        key = None
    hit = _PROBES.get(key) if key is not None else None
    if hit is not None:
        return hit
    empties = {i: bxp.empty((0,), dtype=args[i].dtype) for i in pos}
    full = [empties.get(i, a) for i, a in enumerate(args)]
    try:
        out = fn(bxp, *full, **kwargs)
    except Exception:  # the unblocked run gives the error (or the value)
        return None
    rmap: tuple | None = None
    if forward:
        out, res = out
        entries: list[tuple[str, Any]] = []
        for r in res:
            if r is None or isinstance(r, _SCALARS):
                entries.append(("const", r))
            elif r is out:
                entries.append(("value", None))
            else:
                k = next((i for i, e in empties.items() if r is e), None)
                if k is None:
                    return None
                entries.append(("arg", k))
        rmap = tuple(entries)
    if not is_array(out):
        return None
    hit = (out.dtype, rmap)
    if key is not None:
        if len(_PROBES) > 4096:  # many distinct scalar arguments: start over
            _PROBES.clear()
        _PROBES[key] = hit
    return hit


class _Kernel:
    """``fn`` on one set of corresponding blocks (picklable: the block namespace is looked up
    by name where it runs)."""

    def __init__(self, fn: Callable, block_backend: str, args: tuple, pos: list,
                 kwargs: dict, forward: bool):
        self.fn, self.block_backend, self.kwargs, self.forward = fn, block_backend, kwargs, forward
        self.args = tuple(None if i in pos else a for i, a in enumerate(args))
        self.pos = tuple(pos)
        self.__name__ = getattr(fn, "__name__", "blockwise")

    def __call__(self, *blocks: Any) -> Any:
        bb = _backend._instance(self.block_backend, {})
        full = list(self.args)
        for i, blk in zip(self.pos, blocks):
            full[i] = blk
        with bb.ignore_float_errors():
            out = self.fn(bb._xp or bb.xp, *full, **self.kwargs)
        return out[0] if self.forward else out


def _run(fn: Callable, xp: Any, args: tuple, kwargs: dict, forward: bool) -> Any:
    """``fn``'s result computed block by block, or None where it runs unblocked."""
    pos = [i for i, a in enumerate(args) if _operand(a)]
    if not pos or any(_operand(v) for v in kwargs.values()):
        return None
    b = _chunked(args[pos[0]])
    if b is None or any(_chunked(args[i]) is not b for i in pos[1:]):
        return None
    arrays = [args[i] for i in pos]
    if any(s is None or s != s for a in arrays for s in a.shape):
        return None  # unknown sizes (a boolean-mask selection): as written
    bxp = _block_namespace(b)
    if bxp is None:
        return None
    probe = _probe(fn, bxp, args, pos, kwargs, forward)
    if probe is None:
        return None
    dtype, rmap = probe
    blocks_in = arrays
    if len({tuple(a.shape) for a in arrays}) > 1:
        blocks_in = list(xp.broadcast_arrays(*arrays))
    # align every operand to the finest chunking among them (most blocks)
    chunks = [b.chunks_of(a) for a in blocks_in]
    finest = max(chunks, key=lambda c: math.prod(len(axis) for axis in c))
    blocks_in = [a if c == finest else b.rechunk(a, finest) for a, c in zip(blocks_in, chunks)]
    value = b.map_blocks(_Kernel(fn, b.block_backend, args, pos, kwargs, forward), *blocks_in,
                         dtype=dtype)
    if not forward:
        return value
    res = tuple(v if kind == "const" else value if kind == "value" else args[v]
                for kind, v in rmap)
    return value, res


def _quiet(args: tuple) -> Any:
    """The backend's :meth:`~arrayflow._backend.Backend.ignore_float_errors` context for
    the first array among ``args`` (a no-op context for Tensors or Python scalars): the
    element-wise functions here compute every branch on every element."""
    for a in args:
        if _operand(a):
            b = _backend.backend_of_array(a)
            if b is not None:
                return b.ignore_float_errors()
            break
    return contextlib.nullcontext()


def blockwise(fn: Callable) -> Callable:
    """``fn(xp, *operands, **static)`` (element-wise, one array returned), run block by block
    on chunked lazy backends and as written elsewhere (see the module docstring)."""
    if getattr(fn, "_blockwise", False):
        return fn

    @functools.wraps(fn)
    def run(xp: Any, *args: Any, **kwargs: Any) -> Any:
        out = _run(fn, xp, args, kwargs, False)
        if out is not None:
            return out
        with _quiet(args):
            return fn(xp, *args, **kwargs)
    run._blockwise = True  # type: ignore[attr-defined]
    return run


def blockwise_forward(forward: Callable) -> Callable:
    """An element-wise op's ``forward(xp, *args) -> (value, residuals)`` run block by block on
    chunked lazy backends (the residuals being operands, the value or constants), as written
    elsewhere."""
    @functools.wraps(forward)
    def run(xp: Any, *args: Any, **kwargs: Any) -> Any:
        out = _run(forward, xp, args, kwargs, True)
        if out is not None:
            return out
        with _quiet(args):
            return forward(xp, *args, **kwargs)
    return run
