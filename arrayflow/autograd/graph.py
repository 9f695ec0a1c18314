"""Backward graph nodes (``grad_fn``) and the recording of built-in ops.

Every recorded op call creates one :class:`OpNode` holding the op, its raw
residuals (what its forward chose to keep), the edges to the nodes of its
inputs, and the metadata needed to check saved Tensors were not modified in
place. A leaf Tensor that requires grad gets one :class:`AccumulateGrad` node.

A node's class is named as PyTorch names it: ``multiply`` records a ``MulBackward0``,
``matmul`` of matrices an ``MmBackward0``, ``sum`` a ``SumBackward0`` (all elements) or
``SumBackward1`` (over ``axis``) (:data:`TORCH_NODE_NAMES`; other ops
``<CamelName>Backward0``), a custom Function ``MulConstant`` a ``MulConstantBackward``.
"""

from __future__ import annotations

import itertools
import sys
import traceback
import weakref
from collections.abc import Callable
from typing import Any

from .._backend import use_backend
from ..ops import _registry

__all__ = ["Node", "OpNode", "AccumulateGrad", "record", "grad_edge", "node_class_for"]

_seq = itertools.count()
_FLOAT_KINDS = ("real floating", "complex floating")

anomaly_state = {"enabled": False}


class Node:
    """A node of the backward graph: a function from output grads to input grads.

    Attributes
    ----------
    next_functions : tuple of (Node or None, int)
        For each differentiable input, the node producing its gradient and the
        output index of that node (PyTorch's ``next_functions``).
    """

    __slots__ = ("_edges", "_seq", "_n_out", "_tensor_hooks", "_hooks", "_trace", "__weakref__")

    def __init__(self, edges=(), n_out=1):
        self._edges = edges
        self._seq = next(_seq)
        self._n_out = n_out
        self._tensor_hooks = None
        self._hooks = None
        self._trace = None

    def name(self) -> str:
        """The node's name (``"ExpBackward"``)."""
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"

    @property
    def next_functions(self) -> tuple:
        return tuple(self._edges)

    def register_hook(self, fn: Callable[..., Any]) -> _RemovableHandle:
        """Run ``fn(grad_inputs, grad_outputs)`` after this node computes (PyTorch ``Node``).

        Parameters
        ----------
        fn : callable
            Called as ``fn(grad_inputs, grad_outputs)``; may return replacement
            ``grad_inputs``.

        Returns
        -------
        RemovableHandle
            Its ``remove()`` unregisters the hook.
        """
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(fn)
        return _RemovableHandle(self._hooks, fn)

    def _add_tensor_hook(self, output_nr, fn):
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        hooks = self._tensor_hooks.setdefault(output_nr, [])
        hooks.append(fn)
        return _RemovableHandle(hooks, fn)

    def _apply(self, grads, create_graph):  # pragma: no cover - abstract
        raise NotImplementedError


class _RemovableHandle:
    __slots__ = ("_list", "_fn")

    def __init__(self, lst, fn):
        self._list, self._fn = lst, fn

    def remove(self) -> None:
        """Unregister the hook."""
        try:
            self._list.remove(self._fn)
        except ValueError:
            pass


class AccumulateGrad(Node):
    """The node of a leaf Tensor: adds incoming gradients into ``leaf.grad``."""

    __slots__ = ("_variable",)

    def __init__(self, variable):
        super().__init__((), 1)
        self._variable = weakref.ref(variable)

    @property
    def variable(self):
        """The leaf Tensor (None once it is garbage collected)."""
        return self._variable()


class OpNode(Node):
    """The node of one built-in op call; subclassed per op to carry its name.

    ``out_meta`` is the ``(shape, dtype)`` of the output (a tuple of them when the op has
    several outputs), for the zeros of an output that gets no gradient.

    ``saved`` has one entry ``(cell, version, k, arr, ref)`` per residual ``k`` that is
    an input's or an output's array ``arr``: ``ref`` is that input Tensor, or the output's
    index (an int). It links the residual to the graph (``create_graph`` reads it as that
    Tensor) and, through the storage ``cell`` and its ``version`` at record time, checks it
    was not modified in place (``cell`` None: not checked, see
    :func:`inplace_input_consumed`).
    """

    __slots__ = ("op", "res", "backend", "positions", "out_meta", "saved", "outs",
                 "real_in", "needs")

    def _release(self):
        # Everything that can hold a saved array goes (``saved`` holds the cells). A node
        # that saved no array (shapes, axes only) stays runnable, as in PyTorch, where only
        # a node whose saved tensors were freed refuses a second backward.
        res = self.res
        if res and (self.saved or _holds_array(res)):  # a saved entry is one of its arrays
            self.res = None
        self.outs = None
        self.saved = ()

    def _call_vjp(self, xp, res, gs, needs):
        op_ = self.op
        if op_.vjp_needs:  # the parameters whose gradients are wanted
            return op_.vjp(xp, res, *gs, needs=self.needs if needs is None else needs)
        return op_.vjp(xp, res, *gs)

    def _apply(self, grads, create_graph, needs=None):
        """The gradients of the node's edges from those of its outputs (``grads``).
        ``needs``: the parameters whose gradients are wanted, narrower than the recorded
        ``self.needs`` where the engine knows the others lead to no requested input
        (``engine._narrowed_needs``); None: ``self.needs``."""
        res = self.res
        if res is None:
            raise RuntimeError(
                f"Trying to backward through the graph a second time (or directly access "
                f"saved tensors after they have already been freed): {self.name()} saved "
                f"intermediate values, which backward() freed. Specify retain_graph=True if "
                f"you need to backward through the graph a second time or if you need to "
                f"access saved tensors after calling backward.")
        for cell, version, k, arr, ref in self.saved:  # copy-on-write (_version_error)
            if cell is not None and cell.version != version and \
                    (create_graph or cell.array is arr):
                raise _version_error(self, cell, version, ~ref if type(ref) is int else k)
        backend = self.backend
        gs = grads
        for g in gs:  # (no ``None in gs``: that compares arrays with ==)
            if g is None:
                meta = self.out_meta
                if self._n_out == 1:
                    meta = (meta,)
                gs = [(_zeros(backend, meta[k], create_graph) if g is None else g)
                      for k, g in enumerate(gs)]
                break
        if create_graph:
            # The rule runs on Tensors through the arrayflow namespace (so it is recorded),
            # with this node's backend current for any array it creates.
            xp = sys.modules["arrayflow"]
            res = _tensor_residuals(self)
            with use_backend(backend):
                in_grads = self._call_vjp(xp, res, gs, needs)
        else:
            xp = backend._xp or backend.xp
            op_ = self.op
            if op_.vjp_needs:  # the parameters whose gradients are wanted
                in_grads = op_.vjp(xp, res, *gs, needs=self.needs if needs is None else needs)
            else:
                in_grads = op_.vjp(xp, res, *gs)
        positions = self.positions
        if len(positions) == 1:
            pidx, j = positions[0]
            g = in_grads[pidx]
            out = [g if j is None or g is None else g[j]]
        else:
            out = []
            n = len(in_grads)
            for pidx, j in self.positions:
                g = in_grads[pidx] if pidx < n else None
                if j is not None and g is not None:
                    g = g[j]
                out.append(g)
        for k in self.real_in:  # a real input of a complex op gets the real part (PyTorch)
            g = out[k]
            if g is not None and xp.isdtype(g.dtype, "complex floating"):
                out[k] = xp.real(g)
        return out


def _bad_slot(op_, pidx) -> RuntimeError:
    """A recorded input whose parameter slot is unknown (negative): the node's backward
    would read ``in_grads[pidx]``, another parameter's gradient, silently."""
    return RuntimeError(
        f"internal error in arrayflow: op '{op_.name}' recorded an input that requires "
        f"grad at gradient slot {pidx}, which names none of its parameters; please report "
        f"this bug")


def _holds_array(res, depth=0) -> bool:
    for r in res:
        tr = type(r)
        if tr in _NOT_ARRAYS:
            continue
        if tr is tuple or tr is list:
            if r and depth < 2 and _holds_array(r, depth + 1):
                return True
            continue
        if tr.__name__ == "DType":
            continue
        return True  # an array, or something we cannot vouch for
    return False


def _zeros(backend, meta, as_tensor):
    shape, dtype = meta
    arr = backend.xp.zeros(shape, dtype=backend.native_dtype(dtype))
    if as_tensor:
        return _registry.Tensor._from_array(arr, backend)
    return arr


def _version_error(node, cell, version, k) -> RuntimeError:
    """Copy-on-write (issue 16; ``docs/autograd.md``): a saved input or output written in
    place since the op ran is an error only where its saved value is no longer what the
    op saw -- its array was changed in place (a custom op kernel declaring
    ``mutates_args``) -- or where backward needs it as a Tensor of the graph
    (``create_graph``: the Tensor now holds the new values). Arrayflow's own writes give
    the Tensor a new array, so the array saved here is intact and the gradient is that of
    the program as written (PyTorch raises in both cases). ``OpNode._apply`` checks each
    entry of ``node.saved``; this is the error for the one that fails."""
    what = f"residual {k}" if k >= 0 else f"output {~k}"
    arr = cell.array
    return RuntimeError(
        f"one of the variables needed for gradient computation has been modified by "
        f"an inplace operation: [{node.backend.arrayflow_dtype(arr.dtype)} Tensor of "
        f"shape {tuple(arr.shape)}], saved by {node.name()} ({what}), is at version "
        f"{cell.version}; expected version {version} instead. Make a copy (clone()) "
        f"before modifying it, or modify it after backward().")


def inplace_input_consumed(node, t) -> None:
    """An in-place op recorded ``node`` reading Tensor ``t``, whose storage it now
    overwrites: the array ``node`` saved stays intact (writes are functional), so, as
    PyTorch saves the original ``self`` of an in-place op, drop the version check on it
    and make a differentiable backward read that original value, not ``t``'s new one."""
    if not isinstance(node, OpNode) or not node.saved:
        return
    cell = t._cell
    if not any(e[0] is cell for e in node.saved):
        return
    saved = []
    old = None
    for e in node.saved:
        if e[0] is cell:  # no version check on it any more
            ref = e[4]
            if ref is t:
                if old is None:
                    old = _registry.Tensor._from_array(cell.array, t._backend)
                    old._requires_grad = t._requires_grad
                    old.grad_fn = t.grad_fn
                    old._output_nr = t._output_nr
                    old._grad_acc = t._grad_acc
                ref = old
            e = (None, None, e[2], e[3], ref)
        saved.append(e)
    node.saved = tuple(saved)


def _tensor_residuals(node):
    """Residuals as Tensors linked to the graph, for differentiable backward (create_graph)."""
    res = list(node.res)
    linked = set()
    for _, _, k, _, ref in node.saved:
        linked.add(k)
        if type(ref) is not int:  # an input
            res[k] = ref
        else:  # an output: rebuild it if its Tensor is gone
            t = node.outs[ref]() if node.outs is not None else None
            if t is None:
                t = _registry.Tensor._from_array(res[k], node.backend)
                t._requires_grad = True
                t.grad_fn = node
                t._output_nr = ref
            res[k] = t
    # Other saved arrays (inputs that do not require grad) become constant Tensors: the
    # rule runs with ``xp = arrayflow`` and must see Tensors, not raw arrays.
    backend = node.backend
    for k, r in enumerate(res):
        if k not in linked and type(r) not in _SCALARS and backend.is_array(r):
            res[k] = _registry.Tensor._from_array(r, backend)
    return tuple(res)


_node_classes: dict[tuple[str, type], type] = {}


def _is_arr(a) -> bool:
    return hasattr(a, "shape") and hasattr(a, "dtype")


def _axis_given(args, kw) -> bool:
    return kw.get("axis") is not None or (len(args) > 1 and args[1] is not None)


def _matmul_name(args, kw):
    n1, n2 = (len(a.shape) if _is_arr(a) else 0 for a in args[:2])
    if n1 == 1 and n2 == 1:
        return "DotBackward0"
    if n1 == 2 and n2 == 2:
        return "MmBackward0"
    if n1 == 2 and n2 == 1:
        return "MvBackward0"
    return "UnsafeViewBackward0" if n1 >= 3 else "MmBackward0"


def _getitem_name(args, kw):
    key = args[1] if len(args) > 1 else kw.get("key")
    if type(key) is int:
        return "SelectBackward0"
    if type(key) is slice:
        return "SliceBackward0"
    return "IndexBackward0"


def _basic_key(key) -> bool:
    """Only ints, slices, Ellipsis and None: PyTorch writes through a view (CopySlices)."""
    items = key if type(key) is tuple else (key,)
    return all(type(k) in (int, slice, type(Ellipsis), type(None)) for k in items)


def _by_tensor_arg(i, if_tensor, if_scalar):
    return lambda args, kw: if_tensor if len(args) > i and _is_arr(args[i]) else if_scalar


def _reduction(full, over_axis):
    return lambda args, kw: over_axis if _axis_given(args, kw) else full


# PyTorch's node names where they are not ``<CamelOpName>Backward0``; a callable picks the
# name from the call's (unwrapped) arguments, as PyTorch's overloads do (``sum()`` is
# ``SumBackward0``, ``sum(dim)`` ``SumBackward1``). Compared with torch 2.13 in
# tests/test_torch_surface.py.
TORCH_NODE_NAMES: dict = {
    "multiply": "MulBackward0", "subtract": "SubBackward0", "divide": "DivBackward0",
    "negative": "NegBackward0", "square": "PowBackward0", "log1p": "Log1PBackward0",
    "pow": _by_tensor_arg(1, "PowBackward1", "PowBackward0"),
    "remainder": _by_tensor_arg(1, "RemainderBackward1", "RemainderBackward0"),
    "copysign": _by_tensor_arg(1, "CopysignBackward0", "CopysignBackward1"),
    "clip": lambda args, kw: "ClampBackward0" if any(
        _is_arr(a) for a in (*args[1:3], kw.get("min"), kw.get("max"))) else "ClampBackward1",
    "matmul": _matmul_name, "getitem": _getitem_name,
    "sum": _reduction("SumBackward0", "SumBackward1"),
    "mean": _reduction("MeanBackward0", "MeanBackward1"),
    "prod": _reduction("ProdBackward0", "ProdBackward1"),
    "max": _reduction("MaxBackward1", "AmaxBackward0"),
    "min": _reduction("MinBackward1", "AminBackward0"),
    "reshape": "ViewBackward0", "permute_dims": "PermuteBackward0", "moveaxis": "PermuteBackward0",
    "matrix_transpose": "TransposeBackward0", "expand_dims": "UnsqueezeBackward0",
    "squeeze": lambda args, kw: "SqueezeBackward1" if type(
        args[1] if len(args) > 1 else kw.get("axis")) is int else "SqueezeBackward2",
    "broadcast_to": "ExpandBackward0", "concat": "CatBackward0", "astype": "ToCopyBackward0",
    "cumulative_sum": "CumsumBackward0", "cumulative_prod": "CumprodBackward0",
    "take_along_axis": "GatherBackward0", "tile": "RepeatBackward0",
    "unstack": "UnbindBackward0", "index_put": lambda args, kw: "CopySlices" if _basic_key(
        args[1] if len(args) > 1 else kw.get("key")) else "IndexPutBackward0",
    "take": lambda args, kw: "TakeBackward0" if kw.get("axis") is None else
    "IndexSelectBackward0",
    "linalg.vector_norm": "LinalgVectorNormBackward0",
    "linalg.matrix_norm": lambda args, kw: "LinalgVectorNormBackward0" if kw.get(
        "ord", "fro") == "fro" else "LinalgMatrixNormBackward0",
    "linalg.inv": "LinalgInvExBackward0", "linalg.cholesky": "LinalgCholeskyExBackward0",
    "linalg.solve": "LinalgSolveExBackward0", "linalg.svdvals": "LinalgSvdBackward0",
    "linalg.outer": "MulBackward0", "linalg.trace": "TraceBackward0",
    "linalg.diagonal": "DiagonalBackward0",
}


def _camel(stem: str) -> str:
    return stem if stem[:1].isupper() else "".join(
        p[:1].upper() + p[1:] for p in stem.split("_"))


def _node_name(name: str) -> str:
    """The node class name of op ``name`` when no call decides it."""
    v = TORCH_NODE_NAMES.get(name)
    if isinstance(v, str):
        return v
    space, _, stem = name.rpartition(".")
    prefix = _camel(space) if space else ""  # linalg.det: LinalgDetBackward0, as PyTorch
    return f"{prefix}{_camel(stem)}Backward0"


def _named_class(cls_name: str, base) -> type:
    key = (cls_name, base)
    cls = _node_classes.get(key)
    if cls is None:
        cls = type(cls_name, (base,), {"__slots__": ()})
        _node_classes[key] = cls
    return cls


def node_class_for(name: str, base=OpNode) -> type:
    """The node class of op ``name`` (PyTorch's name, see :data:`TORCH_NODE_NAMES`), or,
    for a custom Function (``base`` not ``OpNode``), ``<ClassName>Backward`` as PyTorch."""
    if base is OpNode:
        return _named_class(_node_name(name), base)
    return _named_class(f"{_camel(name.rsplit('.', 1)[-1])}Backward", base)


def rename(node, cls_name: str) -> None:
    """Give recorded op node ``node`` PyTorch's name ``cls_name`` (``copy_`` records an
    ``index_put`` node that PyTorch calls ``CopyBackwards``)."""
    if isinstance(node, OpNode):
        node.__class__ = _named_class(cls_name, OpNode)


def node_variant(op_):
    """For op ``op_`` whose node name depends on the call: ``fn(args, kwargs) -> class``
    (PyTorch's overload suffixes); None for the others. Used by the dispatch after
    recording (it sets the recorded node's class)."""
    v = TORCH_NODE_NAMES.get(op_.name)
    if not callable(v):
        return None
    return lambda args, kw: _named_class(v(args, kw), OpNode)


def grad_edge(t):
    """The (node, output_nr) edge that receives the gradient of Tensor ``t``."""
    fn = t.grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    acc = t._grad_acc
    if acc is None:
        acc = AccumulateGrad(t)
        t._grad_acc = acc
    return (acc, 0)


def record(op_, backend, outputs, res, grad_inputs):
    """Attach an OpNode to ``outputs`` (Tensors) of a call of ``op_``.

    On the hot path of every recorded op: plain attribute work, no properties, no sets
    or generators per call. What depends only on the op and on where the inputs that
    require grad were passed (the node's positions, the ``needs`` of its VJP, the
    residuals to drop) is decided once per op and key (:func:`_grad_plan`).

    Parameters
    ----------
    grad_inputs : list of (Tensor, (param_index, element_index or None))
        The inputs that require grad and where they were passed.
    """
    cls = op_._node_class
    if cls is None:
        cls = op_._node_class = node_class_for(op_.name)
        op_.node_variant = node_variant(op_)
    if len(grad_inputs) == 1:
        t, pos = grad_inputs[0]
        if pos[1] is None:  # a whole argument: the plan holds the positions too
            key = pos[0]
            positions = None
        else:
            key = (pos[0],)
            positions = (pos,)
    else:
        positions = [pos for _, pos in grad_inputs]
        key = tuple([pos[0] for pos in positions])
    plan = op_._grad_plans.get(key)
    if plan is None:
        plan = _grad_plan(op_, key)
    needs, drop, one = plan
    node = cls.__new__(cls)
    if positions is None:
        fn = t.grad_fn
        node._edges = ((fn, t._output_nr) if fn is not None else grad_edge(t),)
        node.positions = one
    else:
        node._edges = [(t.grad_fn, t._output_nr) if t.grad_fn is not None else grad_edge(t)
                       for t, _ in grad_inputs]
        node.positions = positions
    node._seq = next(_seq)
    node._n_out = n_out = len(outputs)
    node._tensor_hooks = None
    node._hooks = None
    node._trace = traceback.extract_stack()[:-3] if anomaly_state["enabled"] else None
    node.op = op_
    node.needs = needs
    if drop is not None and res:
        res = list(res)
        for k in drop:
            if k < len(res):
                res[k] = None
        res = tuple(res)
    node.res = res
    node.backend = backend
    to_af = backend.arrayflow_dtype
    if n_out == 1:
        arr = outputs[0]._cell.array
        try:  # the backend's own table first (what to_af reads), without the call
            dtype = backend._from_native[arr.dtype]
        except (KeyError, TypeError, AttributeError):  # not filled yet, or another spelling
            dtype = to_af(arr.dtype)
        meta = (arr.shape, dtype)  # one output: its pair, not a tuple of pairs
        real_in = () if op_.complex_ok and dtype.kind != "complex floating" else \
            _complex_check(op_, (meta,), grad_inputs, to_af)
    else:
        meta = tuple([(o._cell.array.shape, to_af(o._cell.array.dtype)) for o in outputs])
        real_in = _complex_check(op_, meta, grad_inputs, to_af)
    node.out_meta = meta
    node.real_in = real_in
    # The residuals that are inputs' or outputs' arrays: linked to those Tensors (for
    # create_graph) and version-checked. Mostly none or one: tuples, grown by ``+=``.
    saved = ()
    outs = None
    if res:
        for k, r in enumerate(res):
            if type(r) in _SCALARS:
                continue
            for t, _ in grad_inputs:
                cell = t._cell
                if r is cell.array:
                    saved += ((cell, cell.version, k, r, t),)
                    break
            else:
                for i, o in enumerate(outputs):
                    cell = o._cell
                    if r is cell.array:
                        saved += ((cell, cell.version, k, r, i),)
                        if outs is None:
                            outs = tuple([weakref.ref(x) for x in outputs])
                        break
    node.saved = saved
    node.outs = outs
    if n_out == 1:
        if dtype.kind in _FLOAT_KINDS:
            o = outputs[0]
            o._requires_grad = True
            o.grad_fn = node
            o._output_nr = 0
        return node
    for i, o in enumerate(outputs):
        if meta[i][1].kind in _FLOAT_KINDS:
            o._requires_grad = True
            o.grad_fn = node
            o._output_nr = i
    return node


def _grad_plan(op_, key):
    """``(needs, drop, positions)`` for a call of ``op_`` whose inputs that require grad
    were passed as parameter ``key`` (an int: one whole argument) or at parameters ``key``
    (a tuple, one entry per input): the parameter indices whose gradients are wanted (the
    VJP's ``needs``), the residuals no wanted gradient uses (``Op.res_needs``; None when
    all are kept) and, for an int key, the node's ``positions``. Decided once per op and
    key (at most :data:`_MAX_PLANS` keys an op are kept)."""
    idx = key if type(key) is tuple else (key,)
    for p in idx:
        if p < 0:
            raise _bad_slot(op_, p)
    needs = frozenset(idx)
    rn = op_.res_needs
    drop = None
    if rn is not None:
        drop = tuple(k for k in sorted(rn) if not (rn[k] & needs)) or None
    plan = (needs, drop, ((key, None),) if type(key) is int else None)
    if len(op_._grad_plans) < _MAX_PLANS:
        op_._grad_plans[key] = plan
    return plan


_MAX_PLANS = 64  # keys differ by the number of list elements that require grad (stack)


def _complex_check(op_, meta, grad_inputs, to_af):
    """Complex values in a recorded call: raise for ops without a complex rule
    (``Op.complex_ok``); else the edges of real inputs of a complex call (their
    gradients become real parts), () when nothing is complex."""
    cplx_out = False
    for m in meta:
        if m[1].kind == "complex floating":
            cplx_out = True
            break
    if op_.complex_ok and not cplx_out:
        return ()
    kinds = [to_af(t._cell.array.dtype).kind for t, _ in grad_inputs]
    if not op_.complex_ok and (cplx_out or "complex floating" in kinds):
        raise NotImplementedError(
            f"arrayflow.{op_.name}: automatic differentiation with complex inputs or outputs "
            f"is not implemented for {op_.name} (no complex gradient rule); detach the "
            f"complex Tensors or compute it from real and imaginary parts")
    if not cplx_out:
        return ()
    return tuple(k for k, kind in enumerate(kinds) if kind != "complex floating")


_SCALARS = frozenset({type(None), int, float, bool, complex, tuple, str, list})
# What a saved residual can be without holding an array (tuples and lists are looked into).
_NOT_ARRAYS = frozenset({type(None), int, float, bool, complex, str, slice, type(Ellipsis)})
