"""The backward engine: iterative, deterministic, never reads array values.

Nodes run in decreasing creation order (a heap keyed by sequence number, as
PyTorch's engine orders ready nodes; a node that is known to come first skips the
heap), each once all its consumers have handed it their gradients. No recursion: a
chain of 100,000 ops backpropagates.

Plain ``backward()`` passes raw backend arrays through the VJPs (fast, nothing
recorded). ``create_graph=True`` passes Tensors and the ``arrayflow``
namespace, so the backward computation is itself recorded.
"""

from __future__ import annotations

import heapq
import threading
import traceback

from ..ops.dtypes import astype
from . import graph as _graph
from ._hook_check import check_hook_grad, hook_name
from .grad_mode import _enabled

__all__ = ["run_backward"]


from ..ops import _registry  # noqa: E402


def _as_tensor(g, backend):
    Tensor = _registry.Tensor
    if isinstance(g, Tensor):
        return g
    return Tensor._from_array(g, backend)


def _raw(g):
    return g._cell.array if isinstance(g, _registry.Tensor) else g


def _discover(root_nodes):
    """Dependency counts (number of consumers) of every node reachable from the roots
    (a root nothing consumes is absent: its count is 0). The counts are also the set of
    nodes seen: a node is walked the first time it is counted."""
    deps: dict = {}
    stack = list(root_nodes)
    roots = set(root_nodes)
    get = deps.get
    while stack:
        node = stack.pop()
        for nxt, _ in node._edges:
            if nxt is None:
                continue
            d = get(nxt)
            if d is None:
                deps[nxt] = 1
                if nxt not in roots:  # (a root is walked from the start)
                    stack.append(nxt)
            else:
                deps[nxt] = d + 1
    return deps


def _needed(seen, targets, include_targets):
    """The nodes that must run to reach the ``targets`` nodes: those from which some
    target is reachable through at least one edge, plus the targets themselves where
    ``include_targets`` (``backward(inputs=...)`` runs a non-leaf input's ``grad_fn``;
    ``autograd.grad`` only captures the gradient flowing into it, as PyTorch's engine)."""
    parents: dict = {}
    for node in seen:
        for nxt, _ in node._edges:
            if nxt is not None:
                parents.setdefault(nxt, []).append(node)
    needed = set()
    stack = [n for n in targets if n in seen]
    if include_targets:
        needed.update(stack)
    while stack:
        n = stack.pop()
        for p in parents.get(n, ()):
            if p not in needed:
                needed.add(p)
                stack.append(p)
    return needed


def _narrowed_needs(needed, visit, target_nodes):
    """The ``needs`` of the op nodes that run when backward has ``inputs``, where they are
    narrower than the ones fixed at record time: a parameter stays only if one of its
    edges leads to a node in ``visit`` (a node that runs or whose gradient is captured).
    PyTorch decides this at backward time too (``should_compute_output`` from the
    engine's ``exec_info``, node by node), so a VJP with no derivative for one argument
    (``zeta``'s ``x``) still gives the other's gradient when only that one is asked
    for. ``{node: frozenset}``, only for the nodes whose ``needs`` shrink.

    A node of ``needed`` has an edge into ``visit`` (that is why it runs), so one that
    wants a single parameter keeps it, unless it is itself a target
    (``backward(inputs=[y])`` runs ``y``'s node)."""
    OpNode = _graph.OpNode
    narrow = {}
    for node in needed:
        if not isinstance(node, OpNode) or not node.op.vjp_needs or (
                len(node.needs) < 2 and node not in target_nodes):
            continue
        keep = set()
        for (nxt, _), (pidx, _) in zip(node._edges, node.positions):
            if nxt is not None and nxt in visit:
                keep.add(pidx)
        needs = node.needs
        if not needs <= keep:
            narrow[node] = needs & frozenset(keep)
    return narrow


def _accumulate(buf, nr, g):
    old = buf[nr]
    buf[nr] = g if old is None else old + g


def run_backward(roots, root_grads, *, retain_graph, create_graph, inputs=None,
                 capture=False, allow_unused=False, fname="backward"):
    """Run the graph from ``roots`` (Tensors) seeded with ``root_grads`` (Tensors).

    With ``capture=True`` returns the gradients of ``inputs`` instead of
    accumulating into leaves' ``.grad`` (``autograd.grad``). With ``inputs`` and
    ``capture=False`` only those leaves accumulate (``backward(inputs=...)``).

    With ``inputs``, only the nodes on a path to them run, as in PyTorch's engine; the
    others are neither run nor freed (``retain_graph=False`` frees the saved arrays of
    the nodes that ran, and only those), so another backward can still go through them.
    A node that runs computes only the gradients of its inputs on such a path
    (:func:`_narrowed_needs`); without ``inputs`` every gradient fixed at record time.
    """
    root_edges = []
    for i, t in enumerate(roots):
        if t.grad_fn is None and not t._requires_grad:
            raise RuntimeError(
                f"{fname}: element {i} of tensors does not require grad and does not have a "
                f"grad_fn")
        root_edges.append(_graph.grad_edge(t))
    targets = None
    if inputs is not None:
        targets = {}
        for k, t in enumerate(inputs):
            if t.grad_fn is None and not t._requires_grad:
                raise RuntimeError(
                    f"{fname}: One of the differentiated Tensors does not require grad "
                    f"(input {k})")
            targets.setdefault(_graph.grad_edge(t), []).append(k)
        if not capture:
            for t in inputs:  # PyTorch: backward(inputs=[y]) fills a non-leaf y's .grad
                if t.grad_fn is not None:
                    t.retain_grad()
    root_nodes = list(dict.fromkeys(n for n, _ in root_edges))
    deps = _discover(root_nodes)
    needed = visit = None  # None: every node runs
    narrow: dict = {}
    if targets:
        target_nodes = {n for n, _ in targets}
        needed = _needed(deps.keys() | root_nodes, target_nodes, include_targets=not capture)
        visit = needed | target_nodes  # popped: hooks run, gradients captured
        narrow = _narrowed_needs(needed, visit, target_nodes)

    buffers: dict = {}
    for (node, nr), g in zip(root_edges, root_grads):
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node._n_out
        g = g if create_graph else _raw(g)
        _accumulate(buf, nr, g)
    ready = [(-n._seq, id(n), n) for n in root_nodes
             if deps.get(n, 0) == 0 and (visit is None or n in visit)]
    heapq.heapify(ready)
    captured = [None] * len(inputs) if capture else None
    token = _enabled.set(bool(create_graph))
    backend_of = {}
    try:
        AccG = _graph.AccumulateGrad
        heappop, heappush = heapq.heappop, heapq.heappush
        # The node to run next is the ready one created last (the largest ``_seq``, as in
        # PyTorch's engine). ``held`` is a ready node that comes before everything in the
        # heap: a chain runs without touching the heap.
        held = None
        while True:
            if held is not None:
                node = held
                held = None
            elif ready:
                node = heappop(ready)[2]
            else:
                break
            grads = buffers.pop(node, None) or [None] * node._n_out
            if node._tensor_hooks:
                for nr, hooks in node._tensor_hooks.items():
                    g = grads[nr]
                    if g is None:
                        continue
                    for hook in _retain_last(hooks):
                        g = _run_hook(hook, g, backend_of.get(node) or _backend(node),
                                      create_graph)
                    grads[nr] = g
            if targets is not None:
                for nr in range(node._n_out):
                    ks = targets.get((node, nr))
                    if ks and capture:
                        for k in ks:
                            captured[k] = grads[nr]
            if type(node) is AccG:
                if not capture:
                    leaf = node.variable
                    if leaf is not None and grads[0] is not None and (
                            targets is None or (node, 0) in targets):
                        _accumulate_leaf(leaf, grads[0], create_graph)
                continue
            if needed is None:
                in_grads = node._apply(grads, create_graph)  # raw arrays unless create_graph
            elif node not in needed:
                continue  # a captured input's grad_fn: not run, so not freed
            elif narrow and node in narrow:  # only the gradients that lead to ``inputs``
                in_grads = node._apply(grads, create_graph, narrow[node])
            else:
                in_grads = node._apply(grads, create_graph)
            if node._trace is not None:
                _check_anomaly(node, in_grads)
            if node._hooks:
                in_grads = _run_node_hooks(node, in_grads, grads,
                                           backend_of.get(node) or _backend(node), create_graph)
            if not retain_graph:
                node._release()
            for (nxt, nr), g in zip(node._edges, in_grads):
                if nxt is None:
                    continue
                if g is not None:
                    buf = buffers.get(nxt)
                    if buf is None:
                        if nxt._n_out == 1:
                            buffers[nxt] = [g]
                        else:
                            buf = buffers[nxt] = [None] * nxt._n_out
                            buf[nr] = g
                    else:
                        old = buf[nr]
                        buf[nr] = g if old is None else old + g
                d = deps[nxt] - 1
                deps[nxt] = d
                if d == 0 and (visit is None or nxt in visit):
                    if held is None:
                        if ready and nxt._seq < -ready[0][0]:
                            heappush(ready, (-nxt._seq, id(nxt), nxt))
                        else:
                            held = nxt
                    elif nxt._seq > held._seq:
                        heappush(ready, (-held._seq, id(held), held))
                        held = nxt
                    else:
                        heappush(ready, (-nxt._seq, id(nxt), nxt))
    finally:
        _enabled.reset(token)
    if capture:
        out = []
        for k, (t, g) in enumerate(zip(inputs, captured)):
            if g is None:
                if not allow_unused:
                    raise RuntimeError(
                        f"{fname}: The differentiated Tensor at index {k} appears to not have "
                        f"been used in the graph. Set allow_unused=True if this is the desired "
                        f"behavior.")
                out.append(None)
            else:
                gt = _as_tensor(g, t._backend)
                gs, ts = tuple(gt.shape), tuple(t.shape)
                if gs != ts and None not in gs and None not in ts:  # a VJP gone wrong
                    raise RuntimeError(
                        f"{fname}: the gradient computed for input {k} of shape "
                        f"{tuple(t.shape)} has shape {tuple(gt.shape)} (internal error in a "
                        f"backward rule; please report)")
                if gt.dtype is not t.dtype and t.dtype.kind == "real floating" and \
                        gt.dtype.kind == "real floating":
                    gt = astype(gt, t.dtype)  # PyTorch: the input's dtype
                out.append(gt)
        return tuple(out)
    return None


def _backend(node):
    return getattr(node, "backend", None) or node.variable._backend


def _retain_last(hooks):
    """PyTorch runs the ``retain_grad`` hook after every other hook of the Tensor."""
    first = [h for h in hooks if not getattr(h, "_af_retains_grad", False)]
    if len(first) == len(hooks):
        return list(hooks)
    return first + [h for h in hooks if getattr(h, "_af_retains_grad", False)]


def _run_hook(hook, g, backend, create_graph):
    """Call a Tensor hook on gradient ``g``; its return value replaces ``g`` only if it
    has the same shape, dtype and backend (PyTorch: "hook 'h' has changed the size of
    value"); nothing is broadcast or cast."""
    gt = _as_tensor(g, backend)
    new = hook(gt)
    if new is None:  # the hook may have modified its argument in place (PyTorch uses that)
        return gt if create_graph else gt._cell.array
    check_hook_grad(hook, new, gt.shape, gt.dtype, backend, "Tensor.register_hook")
    return new if create_graph else _raw(new)


def _run_node_hooks(node, in_grads, grads, backend, create_graph):
    """Call ``node``'s hooks as ``hook(grad_inputs, grad_outputs)``, with Tensors (None where
    there is no gradient), as PyTorch's ``Node.register_hook``: a returned tuple replaces
    ``grad_inputs`` (same length; each gradient of the replaced one's shape, dtype and
    backend, or None to drop it), None keeps them. Returns the gradients for the edges."""
    # a move between backends (ToCopyBackward0): its inputs' gradients are on another one
    in_backend = getattr(node, "in_backend", None) or backend
    gin = [None if g is None else _as_tensor(g, in_backend) for g in in_grads]
    gout = tuple(None if g is None else _as_tensor(g, backend) for g in grads)
    for hook in list(node._hooks):
        new = hook(tuple(gin), gout)
        if new is None:
            continue
        if not isinstance(new, tuple):
            raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
        if len(new) != len(gin):
            raise RuntimeError(
                f"hook '{hook_name(hook)}' has returned an incorrect number of values (got "
                f"{len(new)}, but expected {len(gin)})")
        for i, (old, v) in enumerate(zip(gin, new)):
            if v is None:
                continue
            if old is None:
                raise RuntimeError("can't replace a None gradient with a non-None value")
            check_hook_grad(hook, v, old.shape, old.dtype, in_backend,
                            f"Node.register_hook: grad_inputs[{i}]")
        gin = list(new)
    return [g if g is None or create_graph else _raw(g) for g in gin]


_grad_lock = threading.Lock()


def _accumulate_leaf(leaf, g, create_graph):
    backend = leaf._backend
    if leaf._hooks:
        for hook in list(leaf._hooks):
            g = _run_hook(hook, g, backend, create_graph)
    gt = _as_tensor(g, backend)
    if gt.shape != leaf.shape:
        raise RuntimeError(
            f"backward: the gradient for a leaf of shape {leaf.shape} has shape {gt.shape}")
    if gt.dtype is not leaf.dtype:
        gt = astype(gt, leaf.dtype)
    cls = type(leaf)
    if cls is not _registry.Tensor and _registry._subclass_dispatches(cls):
        gt = gt if isinstance(gt, cls) else gt.as_subclass(cls)  # grads keep the subclass
    if not create_graph:
        gt = gt.detach().as_subclass(cls) if cls is not _registry.Tensor and \
            _registry._subclass_dispatches(cls) else gt.detach()
    with _grad_lock:  # backward from several threads into one leaf loses nothing
        old = leaf._grad
        if old is None:
            leaf._grad = gt
        else:
            leaf._grad = old + gt if create_graph else _as_tensor(
                old._cell.array + gt._cell.array, backend)


def _check_anomaly(node, in_grads):
    xp = (getattr(node, "in_backend", None) or node.backend).xp
    for k, g in enumerate(in_grads):
        if g is None:
            continue
        arr = _raw(g)
        if bool(xp.any(xp.isnan(arr))):
            where = "".join(traceback.format_list(node._trace))
            raise RuntimeError(
                f"Function '{node.name()}' returned nan values in its {k}th output.\n"
                f"Traceback of forward call that caused the error:\n{where}")
