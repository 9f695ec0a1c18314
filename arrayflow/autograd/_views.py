"""Views: Tensors whose values are part of another Tensor's storage (PyTorch's views).

A call of a view op (basic indexing, ``reshape``/``view``, ``permute_dims``,
``matrix_transpose``, ``expand_dims``, ``squeeze``, ``moveaxis``,
``broadcast_to``) gives a Tensor whose cell is a :class:`_ViewCell` (below):
its values are recomputed from the root storage whenever that storage was written,
and a write into it is scattered into the root storage. So views behave the same on
every backend, whether or not the backend's arrays alias (NumPy's do, Dask's do not).

Storage writes are functional: an in-place operation gives the storage a new array
and never changes an existing one, so a value autograd saved can never change under
it. Views share the version counter of their root, so backward through a node that
saved a Tensor modified since (through any view) raises PyTorch's version error.

A recorded write into a view rebases the graph as PyTorch's ``CopySlices`` does: the
base gets the history of "base with this view replaced by the new value", and every
live view of the storage gets the history of the view op applied to its base again
(PyTorch regenerates a view's ``grad_fn`` the same way).
"""

from __future__ import annotations

import sys
import weakref

from .._backend import use_backend
from ..ops import _registry
from ..ops.manipulation import index_put
from .grad_mode import _enabled

__all__ = ["VIEW_OPS", "install", "on_view", "rebase_view", "refresh"]

#: op name -> kind: "index" (basic indexing; scattered back with index_put), "bijective"
#: (the op's own VJP maps a new view value back to the base), "expand" (read-only).
VIEW_OPS = {
    "getitem": "index", "reshape": "bijective", "permute_dims": "bijective",
    "matrix_transpose": "bijective", "expand_dims": "bijective", "squeeze": "bijective",
    "moveaxis": "bijective", "broadcast_to": "expand",
}

_BASIC = (int, slice, type(None), type(Ellipsis))


def _basic_key(key) -> bool:
    if type(key) is not tuple:
        return type(key) in _BASIC
    for k in key:
        if type(k) not in _BASIC:
            return False
    return True


class Step:
    """One view op call: how to go from a base array to the view and back."""

    __slots__ = ("op", "backend", "rest", "kwargs", "res", "kind")

    def __init__(self, op_, backend, rest, kwargs, res, kind):
        self.op, self.backend, self.rest, self.kwargs = op_, backend, rest, kwargs
        self.res, self.kind = res, kind

    def fwd(self, a):
        """The view of raw array ``a``."""
        op_, b = self.op, self.backend
        first = b if op_.backend_arg else (b._xp or b.xp)
        return op_.forward(first, a, *self.rest, **self.kwargs)[0]

    def scatter(self, a, new):
        """Raw array ``a`` with this view's elements replaced by ``new`` (a new array)."""
        if self.kind == "index":  # index_put's own rule: the same key normalisation
            return index_put.forward(self.backend, a, self.rest[0], new)[0]
        return self.op.vjp(self.backend._xp or self.backend.xp, self.res, new)[0]

    def fwd_t(self, t):
        """The view of Tensor ``t``, recorded."""
        return self.op(t, *self.rest, **self.kwargs)

    def scatter_t(self, t, new):
        """Tensor ``t`` with this view replaced by Tensor ``new``, recorded."""
        if self.kind == "index":
            return index_put(t, self.rest[0], new)


        with use_backend(self.backend):
            return self.op.vjp(sys.modules["arrayflow"], self.res, new)[0]


def forward_chain(steps, a):
    for s in steps:
        a = s.fwd(a)
    return a


def scatter_chain(steps, a, new):
    inter = [a]
    for s in steps[:-1]:
        inter.append(s.fwd(inter[-1]))
    for s, x in zip(reversed(steps), reversed(inter)):
        new = s.scatter(x, new)
    return new


def on_view(op_, backend, x, rest, kwargs, out, res):
    """Called by the dispatcher after a view op made Tensor ``out`` from Tensor ``x``."""
    kind = op_.view
    if kind == "index" and not _basic_key(rest[0]):
        return
    if kwargs and kwargs.get("copy"):  # reshape(..., copy=True): the standard's copy
        return
    step = Step(op_, backend, tuple(rest), dict(kwargs) if kwargs else _NO_KW, res, kind)
    xc = x._cell
    grad_mode = _enabled.get()
    if type(xc) is _ViewCell:
        root, steps = xc.root, xc.steps + (step,)
        writable = False if kind == "expand" or xc.writable is False else xc.writable
        if xc.owner is not None and xc.owner() is x:  # a view of a view: same base
            base, n_grad, grad_mode = xc.base, xc.n_grad + 1, grad_mode and xc.grad_mode
        else:  # a detached alias of a view: the alias is the base
            base, n_grad = x, 1
    else:
        root, steps, base, n_grad, writable = xc, (step,), x, 1, kind != "expand"
    cell = _ViewCell(root, base, steps, n_grad, out._cell.array, grad_mode, writable)
    cell.owner = weakref.ref(out)
    out._cell = cell
    if grad_mode:
        _register(root, cell.owner)


_NO_KW: dict = {}


class _ViewCell:
    """Storage of a view (PyTorch's view semantics on every backend).

    ``array`` is recomputed from the root storage whenever the root was written; setting
    ``array`` scatters the new values into the root. ``version`` is the root's (views
    share their base's version counter, as in PyTorch).
    """

    __slots__ = ("root", "base", "steps", "n_grad", "grad_mode", "writable", "owner",
                 "_arr", "_seen")

    def __init__(self, root, base, steps, n_grad, arr, grad_mode, writable):
        self.root = root  # the _Cell holding the storage
        self.base = base  # the Tensor this view was taken of (PyTorch ``_base``)
        self.steps = steps  # view ops from the root's array to this view's
        self.n_grad = n_grad  # the last n_grad steps lead from ``base`` to this view
        self.grad_mode = grad_mode  # grad mode when the view was created
        # True; False for broadcast (expanded) views (a write raises); or the message
        # raised by a recorded write (an input a custom Function returned as is)
        self.writable = writable
        self.owner = None  # weakref to the Tensor the view op returned
        self._arr = arr
        self._seen = root.version

    @property
    def array(self):
        root = self.root
        if self._seen != root.version:
            self._arr = forward_chain(self.steps, root.array)
            self._seen = root.version
        return self._arr

    @array.setter
    def array(self, new):
        root = self.root
        root.array = scatter_chain(self.steps, root.array, new)
        self._arr = new
        self._seen = root.version

    @property
    def version(self) -> int:
        return self.root.version

    @version.setter
    def version(self, value: int) -> None:
        self.root.version = value


def _register(root, owner_ref):
    views = root.views
    if views is None:
        root.views = views = []
    elif len(views) >= root.views_limit:
        views[:] = [r for r in views if r() is not None]
        root.views_limit = max(16, 2 * len(views))
    views.append(owner_ref)


def own_copy(cell, t):
    """A view cell like ``cell`` owned by Tensor ``t`` (``as_subclass`` of a view: the new
    Tensor is a view of the same base, so writes into it rebase the base)."""
    new = _ViewCell(cell.root, cell.base, cell.steps, cell.n_grad, cell.array, cell.grad_mode,
                    cell.writable)
    new.owner = weakref.ref(t)
    if cell.grad_mode:
        _register(cell.root, new.owner)
    return new


def function_alias(t, fname: str, k: int):
    """Output ``k`` of custom Function ``fname`` that is its input ``t`` returned as is: a
    new Tensor on the same storage whose recorded in-place writes raise PyTorch's error
    (the write would bypass the Function's backward)."""
    xc = t._cell
    if type(xc) is _ViewCell:
        root, steps = xc.root, xc.steps
    else:
        root, steps = xc, ()
    msg = (f"Output {k} of {fname} is a view and is being modified inplace. This view was "
           f"created inside a custom Function (or because an input was returned as-is) and "
           f"the autograd logic to handle view+inplace would override the custom backward "
           f"associated with the custom Function, leading to incorrect gradients. This "
           f"behavior is forbidden. You can fix this by cloning the output of the custom "
           f"Function.")
    cell = _ViewCell(root, t, steps, 0, xc.array, _enabled.get(), msg)
    return _registry.Tensor._from_array(cell.array, t._backend, cell)


def _replay(cell):
    t = cell.base
    for s in cell.steps[len(cell.steps) - cell.n_grad:]:
        t = s.fwd_t(t)
    return t


def refresh(root, also=None):
    """Give every live view of ``root`` (and ``also``) the history of its view op
    applied to its base again, after a recorded write changed the storage."""
    todo = [r() for r in (root.views or ())]
    if also is not None:
        todo.append(also)
    done = set()
    for vt in todo:
        if vt is None or id(vt) in done:
            continue
        done.add(id(vt))
        c = vt._cell
        if type(c) is not _ViewCell or c.root is not root or c.owner() is not vt:
            continue
        if not c.base._requires_grad:
            continue
        t = _replay(c)
        if t.grad_fn is not None:
            vt._set_history(t.grad_fn, t._output_nr)


def rebase_view(view, result):
    """A recorded write of ``result`` (a Tensor) into Tensor ``view``: write the storage,
    give the base the history of the scatter (PyTorch's ``CopySlices``), refresh views."""
    cell = view._cell
    steps = cell.steps[len(cell.steps) - cell.n_grad:]
    base = cell.base
    inter = [base]
    for s in steps[:-1]:
        inter.append(s.fwd_t(inter[-1]))
    new = result
    for s, x in zip(reversed(steps), reversed(inter)):
        new = s.scatter_t(x, new)
    bc = base._cell
    bc.array = new._cell.array
    bc.version += 1
    if new.grad_fn is not None:
        base._set_history(new.grad_fn, new._output_nr)
    refresh(cell.root, also=view)


def install():
    """Mark the view ops in the op table and hand :func:`on_view` to the dispatcher."""
    for name in VIEW_OPS:
        op_ = _registry.OPS.get(name)
        if op_ is not None:
            op_.view = VIEW_OPS[name]
    _registry.install(view=on_view)
