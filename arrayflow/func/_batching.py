"""Batched Tensors and batching rules: what :func:`arrayflow.func.vmap` runs (private).

A value being vmapped is a :class:`BatchedTensor`: a Tensor subclass that carries a
*physical* plain Tensor whose leading dimensions are the batch dimensions of the
active vmap levels it depends on (one per level, outermost first, ordered by level
id), followed by the *logical* shape the vmapped function sees. It takes part in
``__arrayflow_function__`` dispatch, so every op, Tensor method, operator and
``nn.functional`` call on it reaches :func:`handle`, which

- runs an op once on the physical Tensors through its batching rule: the op's
  ``batch`` slot in the op table when it has one (declared beside the op's forward,
  VJP and JVP in ``arrayflow/ops/<family>.py``, with the helpers of
  :mod:`arrayflow.ops._batch_util`), else one derived here from the op table (section
  ``elementwise``:
  align ranks and broadcast; an ``axis`` parameter: axes shifted past the batch
  dimensions, written negative so that the leading dimensions never move);
- decomposes composite functions (Tensor methods, ``nn.functional``, third-party
  ``@overridable`` functions) by running their body on the batched values, so
  the ops they call are batched in turn;
- falls back to a Python loop over the batch (unbind, call, stack) for ops
  without a rule, with a one-time ``UserWarning`` naming the op.

The backend array of a BatchedTensor is never read directly (``_cell`` raises): a
code path that would read the physical array as if it were the logical one fails
loudly instead of computing on the wrong shape.
"""

from __future__ import annotations

import contextvars
import inspect
import itertools
import warnings
from typing import Any, NamedTuple

from .. import _dtypes
from ..autograd import forward_ad as _fw
from ..autograd import function
from ..autograd.function import Function, FunctionCtx, _bind_with_defaults
from ..nn import functional as F  # noqa: N812
from ..ops import _batch_util as _bu
from ..ops import creation as _c
from ..ops import dtypes as _dt
from ..ops import manipulation as _m
from ..ops import reductions as _r
from ..ops import searching as _s
from ..ops._batch_util import aligned as _aligned
from ..ops._batch_util import all_args as _all_args
from ..ops._batch_util import elementwise as _elementwise
from ..ops._batch_util import flat as _flat
from ..ops._batch_util import levels_of, physical
from ..ops._batch_util import norm_axes as _norm_axes
from ..ops._batch_util import norm_axis as _norm_axis
from ..ops._batch_util import only_first_batched as _only_first_batched
from ..ops._batch_util import origin as _origin
from ..ops._batch_util import single_axis as _single_axis
from ..ops._batch_util import union as _union
from ..ops._batch_util import wrap as _wrap
from ..ops._registry import Op
from ..tensor import Tensor

__all__ = ["BatchedTensor", "VmapLevel", "handle", "active_levels", "make",
           "levels_of", "expand_to", "physical", "add_level", "remove_level"]


class VmapLevel:
    """One active ``vmap`` call: its batch size, the function and randomness."""
    __slots__ = ("id", "size", "func_name", "randomness", "active")
    _counter = itertools.count(1)

    def __init__(self, size: int, func_name: str, randomness: str):
        self.id = next(VmapLevel._counter)
        self.size = size
        self.func_name = func_name
        self.randomness = randomness
        self.active = True  # False once the vmapped function has returned

    def __repr__(self) -> str:
        return f"<vmap level {self.id} of {self.func_name}, size {self.size}>"


_active: contextvars.ContextVar[tuple] = contextvars.ContextVar("arrayflow_vmap_levels",
                                                                default=())


def active_levels() -> tuple:
    """The vmap levels whose function is running now, outermost first."""
    return _active.get()


# --- the batched value ---------------------------------------------------------------------

class BatchedTensor(Tensor):
    """A Tensor inside ``vmap``: a physical Tensor with leading batch dimensions.

    ``shape``/``ndim``/``size()`` are the logical ones (what the vmapped function
    sees); ``_phys`` is the plain Tensor, ``_levels`` the vmap levels of its leading
    dimensions. Python conversions of the values (``bool``, ``int``, ``float``,
    ``item``, ``tolist``, ``numpy``) raise: they would depend on the sample.
    """
    __slots__ = ("_phys", "_levels", "_origin")
    _phys: Tensor  # the plain Tensor: batch dimensions (one per level) + logical shape
    _levels: tuple[VmapLevel, ...]  # the levels of the leading dimensions, by level id
    _origin: str  # the batched argument it depends on (error messages)

    @classmethod
    def __arrayflow_function__(cls, func, types, args=(), kwargs=None):
        return handle(func, args, kwargs or {})

    @property
    def _cell(self):
        return _CellGuard(self)

    def _raw_access_error(self) -> RuntimeError:
        return RuntimeError(
            f"vmap({self._levels[-1].func_name}): this operation reads the backend array of a "
            f"batched Tensor directly, which vmap does not support (it would see the batch "
            f"dimension); the Tensor depends on {self._origin}")

    @property
    def array(self):
        raise self._raw_access_error()

    @property
    def shape(self) -> tuple:
        return self._phys.shape[len(self._levels):]

    @property
    def ndim(self) -> int:
        return self._phys.ndim - len(self._levels)

    @property
    def dtype(self):
        return self._phys.dtype

    @property
    def device(self):
        return self._phys.device

    @property
    def requires_grad(self) -> bool:
        return self._phys.requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self._phys.requires_grad = value
        self._requires_grad = self._phys._requires_grad

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        self._phys.requires_grad_(requires_grad)
        self._requires_grad = self._phys._requires_grad
        return self

    @property
    def grad_fn(self):
        return self._phys.grad_fn

    @grad_fn.setter
    def grad_fn(self, value):
        if value is not None:
            raise RuntimeError(
                f"vmap({self._levels[-1].func_name}): cannot record autograd history on a "
                f"batched Tensor here (code that sets grad_fn directly bypasses vmap; a "
                f"custom autograd Function goes through Function.vmap or "
                f"generate_vmap_rule=True)")

    def detach(self) -> Tensor:
        return make(self._phys.detach(), self._levels, self._origin)

    @property
    def T(self) -> Tensor:  # noqa: N802
        return _m.permute_dims(self, tuple(range(self.ndim - 1, -1, -1)))

    @property
    def mT(self) -> Tensor:  # noqa: N802
        return _m.moveaxis(self, -1, -2)

    def _data_dependent(self, what: str):
        lv = self._levels[-1]
        return RuntimeError(
            f"vmap({lv.func_name}): {what} on a batched Tensor is not supported: its value "
            f"differs per sample (it depends on the batched argument {self._origin} of "
            f"{lv.func_name}). Data-dependent Python control flow cannot be vmapped (as "
            f"torch.func.vmap); write it with tensor operations such as arrayflow.where, or "
            f"pass the argument with in_dims=None")

    def __bool__(self) -> bool:
        raise self._data_dependent("bool(t) (Python control flow on a Tensor)")

    def __int__(self) -> int:
        raise self._data_dependent("int(t)")

    def __float__(self) -> float:
        raise self._data_dependent("float(t)")

    def __complex__(self) -> complex:
        raise self._data_dependent("complex(t)")

    def __index__(self) -> int:
        raise self._data_dependent("using t as an index (__index__)")

    def __array__(self, dtype=None, copy=None):
        raise self._data_dependent("converting t to a NumPy array")

    def __dlpack__(self, *args, **kwargs):
        raise self._data_dependent("__dlpack__")

    def __len__(self) -> int:
        if not self.ndim:
            raise TypeError("len() of a 0-d Tensor")
        return self.shape[0]

    def __iter__(self):
        if not self.ndim:
            raise TypeError("iteration over a 0-d Tensor")
        for i in range(self.shape[0]):
            yield self[i, ...]

    def __repr__(self) -> str:
        return (f"BatchedTensor(levels={[lv.id for lv in self._levels]}, "
                f"shape={tuple(self.shape)}, physical={self._phys!r})")

    # in-place operations write into the physical Tensor
    def _inplace(self, fn, other, name):
        _check_inplace_levels(name, (self, other), {})
        result = fn(self, other)
        return _write(self, result, name)

    def _assign(self, new_array, name="_assign"):
        self._phys._assign(new_array, name)
        return self


class _CellGuard:
    """A BatchedTensor's storage cell as code that bypasses dispatch sees it: the version
    counter is the physical Tensor's (writes go there); the array, and anything else,
    raise (it has the batch dimensions)."""
    __slots__ = ("_t",)

    def __init__(self, t: BatchedTensor):
        self._t = t

    @property
    def version(self) -> int:
        return self._t._phys._cell.version

    def __getattr__(self, name):
        raise self._t._raw_access_error()


def make(phys: Tensor, levels: tuple, origin: str = "an input") -> Tensor:
    """The value with physical Tensor ``phys`` batched at ``levels`` (``phys`` itself when
    ``levels`` is empty)."""
    if not levels:
        return phys
    t = object.__new__(BatchedTensor)
    t._backend = phys._backend
    # read by code that bypasses dispatch (a custom Function's apply): it then records,
    # and setting a batched Tensor's grad_fn raises instead of dropping the graph
    t._requires_grad = phys._requires_grad
    t._grad = None
    t._retains_grad = False
    t._hooks = None
    t._output_nr = 0
    t._grad_acc = None
    t._phys = phys
    t._levels = levels
    t._origin = origin
    return t


def expand_to(x: Tensor, levels: tuple) -> Tensor:
    """``x``'s physical Tensor batched (broadcast) at all ``levels``."""
    return _aligned(x, levels, expand=True)


def add_level(t: Tensor, level: VmapLevel, dim: int = 0, origin: str = "an input") -> Tensor:
    """``t`` (plain or batched at outer levels) with logical dimension ``dim`` made the
    batch dimension of ``level`` (the innermost level)."""
    p = physical(t)
    ls = levels_of(t)
    k = len(ls)
    if dim != 0:
        p = _m.moveaxis(p, k + dim, k)
    return make(p, ls + (level,), t._origin if type(t) is BatchedTensor else origin)


def remove_level(t: Tensor, level: VmapLevel, out_dim: int) -> Tensor:
    """``t`` with ``level``'s batch dimension moved to logical dimension ``out_dim``
    (``t`` broadcast along it when not batched at ``level``)."""
    ls = levels_of(t)
    n = t.ndim
    d = out_dim + n + 1 if out_dim < 0 else out_dim
    if level not in ls:
        y = _m.expand_dims(t, axis=d)
        shape = list(y.shape)
        shape[d] = level.size
        return _m.broadcast_to(y, tuple(shape))
    # ``level`` is among t's levels, so ``t`` is batched (levels_of is () otherwise)
    assert type(t) is BatchedTensor
    pos = ls.index(level)
    k = len(ls)
    p = t._phys
    if pos != k - 1 + d:
        p = _m.moveaxis(p, pos, k - 1 + d)
    return make(p, ls[:pos] + ls[pos + 1:], t._origin)


# --- the handler ---------------------------------------------------------------------------

FUNC_RULES: dict = {}
"""Batching rules of functions that are not ops (``nn.functional``, Tensor methods)."""

_RULE_CACHE: dict = {}
_WARNED: set = set()
_CLOSURE_OPS: dict = {}
_SCALAR_METHODS = {"item": ".item()", "tolist": ".tolist()", "numpy": ".numpy()",
                   "backward": ".backward() (use arrayflow.func.grad inside vmap)"}


def _is_inplace_name(name: str) -> bool:
    return (name.endswith("_") and not name.startswith("_")) or (
        name.startswith("__i") and name.endswith("__") and name not in (
            "__init__", "__iter__", "__index__", "__int__", "__invert__")) or \
        name == "__setitem__"


def _check_inplace_levels(name: str, args, kwargs) -> None:
    """torch.func's error: an in-place write of a batched value into a Tensor not batched
    (at that level)."""
    if not args:
        return
    self_levels = set(levels_of(args[0]))
    for where, o in itertools.chain(
            ((f"args[{i}]", a) for i, a in enumerate(args[1:], 1)),
            ((f"kwargs[{k!r}]", v) for k, v in kwargs.items())):
        extra = [lv for lv in levels_of(o) if lv not in self_levels]
        if extra:
            raise RuntimeError(
                f"vmap({extra[-1].func_name}): {name}(self, *extra_args) is not possible "
                f"because there exists a Tensor `other` in extra_args ({where}, depending on "
                f"{o._origin}) that has more elements than `self`. This happened due to "
                f"`other` being vmapped over but `self` not being vmapped over in a vmap. "
                f"Please try to use out-of-place operators instead of {name}.")


def _check_escaped(args, kwargs) -> None:
    for a in _all_args(args, kwargs):
        if type(a) is BatchedTensor and not a._levels[-1].active:
            raise RuntimeError(
                f"vmap({a._levels[-1].func_name}): a batched Tensor escaped the vmap it "
                f"belongs to (kept in a closure, a global or a container vmap does not "
                f"unwrap) and is used after it returned; return it from the function instead")


def handle(func, args: tuple, kwargs: dict) -> Any:
    """Run ``func(*args, **kwargs)`` where some arguments are batched."""
    _check_escaped(args, kwargs)
    canon = getattr(func, "canonical", func)
    if isinstance(canon, Op):
        return _op_rule(canon)(canon, func, args, kwargs)
    rule = FUNC_RULES.get(func)
    if rule is not None:
        return rule(func, args, kwargs)
    batched = getattr(func, "_call_batched", None)  # an arrayflow.library custom op
    if batched is not None:
        return batched(args, kwargs)
    name = getattr(func, "__name__", "")
    if name in _SCALAR_METHODS and args and type(args[0]) is BatchedTensor:
        raise args[0]._data_dependent(_SCALAR_METHODS[name])
    if _is_inplace_name(name):
        _check_inplace_levels(name, args, kwargs)
        if args and type(args[0]) is BatchedTensor and not name.startswith("__"):
            return _inplace_method(name, args, kwargs)
    wrapped = getattr(func, "__wrapped__", None)
    if wrapped is not None:
        return wrapped(*args, **kwargs)
    op = _closure_op(func)
    if op is not None:
        return handle(op, args, kwargs)
    return _fallback(func, getattr(func, "__qualname__", name), args, kwargs)


def _closure_op(func):
    """The op behind a Tensor operator (``Tensor.__add__`` calls ``add``)."""
    if func in _CLOSURE_OPS:
        return _CLOSURE_OPS[func]
    op = None
    try:
        fn = inspect.getclosurevars(func).nonlocals.get("fn")
        if isinstance(getattr(fn, "canonical", fn), Op):
            op = fn
    except (TypeError, ValueError):
        pass
    _CLOSURE_OPS[func] = op
    return op


def _write(self: BatchedTensor, result: Tensor, name: str) -> Tensor:
    """Store ``result`` (logical shape of ``self``) into ``self``'s physical Tensor."""
    if result.dtype is not self.dtype:
        if not _dtypes.can_cast_inplace(result.dtype, self.dtype):
            raise RuntimeError(f"Tensor.{name}: result type {result.dtype} can't be cast to "
                               f"the desired output type {self.dtype}")
        result = result.astype(self.dtype)
    if tuple(result.shape) != tuple(self.shape):
        raise RuntimeError(
            f"Tensor.{name}: output with shape {list(self.shape)} doesn't match the broadcast "
            f"shape {list(result.shape)}")
    _check_inplace_levels(name, (self, result), {})
    self._phys[...] = _aligned(result, self._levels, expand=True)
    return self


def _inplace_method(name: str, args, kwargs):
    self = args[0]
    if name in ("fill_", "zero_"):
        value = 0 if name == "zero_" else (args[1] if len(args) > 1 else kwargs["value"])
        if isinstance(value, Tensor):
            return _write(self, _c.full_like(self, 0) + value, name)
        self._phys.fill_(value)
        return self
    if name in ("uniform_", "normal_"):
        getattr(self._phys, name)(*args[1:], **kwargs)
        return self
    base = getattr(Tensor, name[:-1], None)
    if base is None:
        raise RuntimeError(f"vmap: the in-place method Tensor.{name} is not supported on a "
                           f"batched Tensor")
    return _write(self, base(*args, **kwargs), name)


def _op_rule(op: Op):
    r = _RULE_CACHE.get(op.name)
    if r is None:
        r = op.batch or _derive(op) or _fallback_op
        _RULE_CACHE[op.name] = r
    return r


# --- the fallback ----------------------------------------------------------------------------

def _fallback_op(op, public, args, kwargs):
    return _fallback(public, op.name, args, kwargs)


def _fallback(func, name: str, args: tuple, kwargs: dict) -> Any:
    """Call ``func`` once per sample (every combination of the batch indices) and stack."""
    levels = _union(_all_args(args, kwargs))
    if name not in _WARNED:
        _WARNED.add(name)
        warnings.warn(
            f"arrayflow.func.vmap: there is no batching rule for {name!r}; falling back to a "
            f"Python loop over the batch (one call per sample), which is slow. There is a "
            f"performance drop because we have not yet implemented the batching rule for "
            f"{name}.", UserWarning, stacklevel=3)
    origin = _origin(_all_args(args, kwargs))
    aligned: dict = {}

    def sample(x, idx):
        if type(x) is BatchedTensor:
            p = aligned.get(id(x))
            if p is None:
                p = aligned[id(x)] = _aligned(x, levels)
            return p[tuple(i if p.shape[j] != 1 else 0 for j, i in enumerate(idx))]
        if type(x) is list or type(x) is tuple:
            return type(x)(sample(e, idx) for e in x)
        return x

    outs = []
    for idx in itertools.product(*(range(lv.size) for lv in levels)):
        outs.append(func(*(sample(a, idx) for a in args),
                         **{k: sample(v, idx) for k, v in kwargs.items()}))
    sizes = tuple(lv.size for lv in levels)

    def combine(items):
        first = items[0]
        if isinstance(first, Tensor):
            st = _m.stack(items, axis=0)
            return make(_m.reshape(st, sizes + tuple(first.shape)), levels, origin)
        if isinstance(first, tuple):
            parts = [combine([it[i] for it in items]) for i in range(len(first))]
            return type(first)(*parts) if hasattr(first, "_fields") else tuple(parts)
        raise RuntimeError(
            f"vmap: {name} returned a {type(first).__name__}, not a Tensor, on a batched "
            f"input: its result would differ per sample (data-dependent), which vmap cannot "
            f"represent")

    return combine(outs)


# --- derived rules -----------------------------------------------------------------------------

_REDUCE = {"sum", "prod", "mean", "std", "var", "max", "min", "all", "any", "count_nonzero",
           "linalg.vector_norm", "special.logsumexp", "special.softmax", "special.log_softmax"}
_AXIS_INT = {"argmax", "argmin", "cumulative_sum", "cumulative_prod", "sort", "argsort",
             "fft.fft", "fft.ifft", "fft.rfft", "fft.irfft", "fft.hfft", "fft.ihfft", "diff"}
_LEADING = {"linalg.cholesky", "linalg.det", "linalg.diagonal", "linalg.eigh",
            "linalg.eigvalsh", "linalg.eig", "linalg.eigvals", "linalg.inv",
            "linalg.matrix_norm", "linalg.matrix_power", "linalg.matrix_rank", "linalg.pinv",
            "linalg.qr", "linalg.slogdet", "linalg.svd", "linalg.svdvals", "linalg.trace",
            "matrix_transpose", "tril", "triu"}
_UNARY_PHYS = {"empty_like", "zeros_like", "ones_like", "full_like", "asarray", "tensor",
               "astype", "from_dlpack"}


def _derive(op: Op):
    name = op.name
    if op.out == "raw" and name != "getitem":
        if op.section == "data_type":
            return _dtype_only
        return None
    if op.elementwise:  # Op.elementwise: the standard's section, where, arrayflow.special...
        return _elementwise
    if name in _REDUCE:
        return _reduce
    if name in _AXIS_INT:
        return _axis_int
    if name in _LEADING:
        return _leading
    if name in _UNARY_PHYS:
        return _unary_phys
    if op.section == "data_type":
        return _dtype_only
    return None


def _dtype_only(op, public, args, kwargs):
    return public(*(physical(a) for a in args), **{k: physical(v) for k, v in kwargs.items()})


def _unary_phys(op, public, args, kwargs):
    if not _only_first_batched(args, kwargs) or type(args[0]) is not BatchedTensor:
        return _fallback_op(op, public, args, kwargs)
    x = args[0]
    return _wrap(public(x._phys, *args[1:], **kwargs), x._levels, x._origin)


def _leading(op, public, args, kwargs):
    """Ops on the trailing (..., M, N) dimensions: the batch dimensions lead."""
    x = args[0] if args else None
    if type(x) is not BatchedTensor or not _only_first_batched(args, kwargs) or x.ndim < 2:
        return _fallback_op(op, public, args, kwargs)
    return _wrap(public(x._phys, *args[1:], **kwargs), x._levels, x._origin)


def _reduce(op, public, args, kwargs):
    def fix(b, n, x):
        ax = b.get("axis")
        if ax is None:
            b["axis"] = tuple(range(-n, 0))
        else:
            b["axis"] = _norm_axes(ax, n)
            if b["axis"] is None:
                return None
        return b
    return _single_axis(op, public, args, kwargs, fix)


def _axis_int(op, public, args, kwargs):
    if op.name == "diff" and any(type(kwargs.get(k)) is BatchedTensor
                                 for k in ("prepend", "append")):
        return _fallback_op(op, public, args, kwargs)

    def fix(b, n, x):
        if "axis" not in b:
            b["axis"] = -1 if op.name in ("sort", "argsort", "diff") or op.name.startswith(
                "fft.") else None
        ax = b["axis"]
        if ax is None:
            if op.name in ("argmax", "argmin"):
                out = public(_flat(x), axis=-1)
                if b.get("keepdims"):
                    out = _m.reshape(out, tuple(out.shape) + (1,) * n)
                return make(out, x._levels, x._origin)
            if n != 1:
                return None
            b["axis"] = -1
            return b
        b["axis"] = _norm_axis(ax, n)
        return None if b["axis"] is None else b
    return _single_axis(op, public, args, kwargs, fix)


def _setitem(func, args, kwargs):
    self, key, value = args[0], args[1], args[2]
    _check_inplace_levels("__setitem__", (self, value), {})
    if type(self) is not BatchedTensor:
        return func.__wrapped__(*args, **kwargs)
    pk = _bu.phys_key(self, key)
    if pk is None or pk[1]:
        raise NotImplementedError(
            f"vmap({self._levels[-1].func_name}): x[key] = value with a batched index or "
            f"separated advanced indices is not supported inside vmap; use index_put")
    if type(value) is BatchedTensor:
        sub = _m.getitem(self._phys, pk[0])
        value = _aligned(value, self._levels, expand=True,
                         rank=sub.ndim - len(self._levels))
    self._phys[pk[0]] = value


FUNC_RULES[Tensor.__setitem__] = _setitem


# --- nn.functional losses over class indices -------------------------------------------------

def _class_loss(func, args, kwargs):
    """``cross_entropy``/``nll_loss``: the batch dimensions merged into the loss's own
    batch dimension N, computed once with ``reduction='none'``, then reduced per sample
    as the function does (``'mean'``: over the weight of the non-ignored targets). The
    target check runs on the plain merged target (these functions read its values)."""
    sig = _SIGNATURES.get(func)
    if sig is None:
        sig = _SIGNATURES[func] = inspect.signature(func)
    try:
        b = sig.bind(*args, **kwargs)
    except TypeError:
        return func.__wrapped__(*args, **kwargs)
    b.apply_defaults()
    a = dict(b.arguments)
    inp, tgt, weight = a["input"], a["target"], a.get("weight")
    if type(weight) is BatchedTensor or not isinstance(tgt, Tensor) or inp.ndim == 0:
        return _fallback(func, func.__name__, args, kwargs)
    reduction = F._legacy_reduction(a.pop("size_average"), a.pop("reduce"), a["reduction"])
    levels = _union((inp, tgt))
    sizes = tuple(lv.size for lv in levels)
    k = len(levels)
    ip = _aligned(inp, levels, expand=True)
    tp = _aligned(tgt, levels, expand=True)
    n = inp.ndim
    probs = tgt.dtype.kind in ("real floating", "complex floating") and \
        tuple(tgt.shape) == tuple(inp.shape)
    if n == 1:
        mi = _m.reshape(ip, (-1,) + tuple(ip.shape[k:]))
        mt = _m.reshape(tp, (-1,) + tuple(tp.shape[k:]))
    else:
        mi = _m.reshape(ip, (-1,) + tuple(ip.shape[k + 1:]))
        mt = _m.reshape(tp, (-1,) + tuple(tp.shape[k + 1:]))
    a["input"], a["target"], a["reduction"] = mi, mt, "none"
    loss = func.__wrapped__(**a)
    logical = tuple(tgt.shape) if not probs else tuple(
        s for i, s in enumerate(inp.shape) if i != (0 if n == 1 else 1))
    loss = make(_m.reshape(loss, sizes + logical), levels, _origin((inp, tgt)))
    if reduction != "mean" or probs:
        return F._reduce(loss, reduction, func.__name__)
    valid = tgt != a["ignore_index"]
    if weight is not None:
        safe = _s.where(valid, tgt, 0)
        w = _m.reshape(_m.take(weight, _m.reshape(safe, (-1,))), tuple(safe.shape))
        den = _r.sum(_s.where(valid, w, 0.0))
    else:
        den = _r.sum(_dt.astype(valid, inp.dtype))
    return F._mean_over_weight(_r.sum(loss), den)


_SIGNATURES: dict = {}


_bu.install(batched=BatchedTensor, make=make, fallback=_fallback)


def _install_nn_rules() -> None:
    FUNC_RULES[F.cross_entropy] = _class_loss
    FUNC_RULES[F.nll_loss] = _class_loss


# --- forward-mode tangents across the logical/physical boundary ------------------------------
#
# Forward mode (arrayflow.autograd.forward_ad) keys tangents by Tensor identity. Ops on
# batched values run it at the logical level (the tangent of a BatchedTensor is a logical
# value, batched or not). A reverse transform inside vmap differentiates the physical
# Tensors, so for forward-over-reverse (``vmap(jacfwd(grad(f)))``, ``vmap(hessian(f))``)
# the tangents cross over: in to the physical inputs, out to the batched gradients.

def tangents_in(src: Any, phys: Tensor, levels: tuple) -> None:
    """Give ``phys`` (``src``'s physical Tensor batched at ``levels``) the physical form of
    ``src``'s tangents at every active forward level."""
    for lv in _fw._LEVELS:
        t = lv.tangents.get(src)
        if t is None or lv.tangents.get(phys) is not None:
            continue
        lv.suspended += 1
        try:
            tp = expand_to(t, levels)
        finally:
            lv.suspended -= 1
        lv.tangents[phys] = tp


def make_carry(phys: Tensor, levels: tuple, origin: str) -> Tensor:
    """:func:`make`, and the result gets ``phys``'s tangents as batched (logical) values."""
    out = make(phys, levels, origin)
    if out is phys:
        return out

    for lv in _fw._LEVELS:
        t = lv.tangents.get(phys)
        if t is not None:
            lv.tangents[out] = make(t, levels, origin)
    return out




# --- custom autograd Functions (Function.vmap, generate_vmap_rule) ---------------------------

class VmapInfo(NamedTuple):
    """What ``Function.vmap`` gets first (PyTorch's ``VmapInfo``)."""
    batch_size: int
    randomness: str


_DOCS = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"


def _function_apply(cls, args: tuple, kwargs: dict) -> Any:
    """``cls.apply(*args, **kwargs)`` inside vmap, one vmap level at a time (the innermost
    the arguments depend on), as torch.func: through ``cls.vmap`` or the rule generated
    from ``forward``/``setup_context``/``backward``; NotImplemented (the plain ``apply``)
    outside vmap or when nothing is batched (after torch's checks, which hold inside vmap
    whatever is batched)."""
    if not _active.get():
        return NotImplemented
    _check_escaped(args, kwargs)

    name = cls.__name__
    if cls.setup_context is None:
        raise RuntimeError(
            f"In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
            f"jacrev, ...), it must override the setup_context staticmethod ({name} defines "
            f"forward(ctx, ...)). {_DOCS}")
    overridden = cls.vmap is not Function.vmap
    generate = bool(getattr(cls, "generate_vmap_rule", False))
    if generate and overridden:
        raise RuntimeError(
            f"You tried to vmap over {name}, but it has both generate_vmap_rule=True and an "
            f"overridden vmap staticmethod. Please set generate_vmap_rule=False or delete the "
            f"overridden vmap staticmethod to avoid ambiguity. {_DOCS}")
    if not generate and not overridden:
        raise RuntimeError(
            f"You tried to vmap over {name}, but it does not have vmap support. Please "
            f"override and implement the vmap staticmethod or set generate_vmap_rule=True. "
            f"{_DOCS}")
    # as torch.func: the checks above hold inside vmap even where nothing is batched
    levels = _union(_all_args(args, kwargs))
    if not levels:
        return NotImplemented
    args, kwargs = _bind_with_defaults(cls, args, kwargs)
    lv = levels[-1]
    for k, v in kwargs.items():
        if lv in levels_of(v):
            raise NotImplementedError(
                f"vmap({lv.func_name}): {name}.apply got the batched Tensor {k}= by keyword "
                f"(keyword-only parameter); pass it positionally")
    in_dims = tuple(0 if lv in levels_of(a) else None for a in args)
    inner = [remove_level(a, lv, 0) if d == 0 else a for a, d in zip(args, in_dims)]
    if overridden:
        res = cls.vmap(VmapInfo(lv.size, lv.randomness), in_dims, *inner, **kwargs)
        if not (isinstance(res, tuple) and len(res) == 2):
            raise RuntimeError(
                f"{name}.vmap: expected the vmap staticmethod to return a tuple "
                f"(output, out_dims), got {type(res).__name__}")
        out, out_dims = res
    else:
        out, out_dims = _generated(cls, lv, in_dims).apply(*inner, **kwargs), 0
    return _function_out(name, out, out_dims, lv)


def _function_out(name: str, out: Any, out_dims: Any, lv: VmapLevel) -> Any:
    outs = out if isinstance(out, tuple) else (out,)
    dims: tuple[int | None, ...] | None
    if out_dims is None or isinstance(out_dims, int):
        dims = (out_dims,) * len(outs)
    else:
        dims = tuple(out_dims) if isinstance(out, tuple) else None
        if dims is None or len(dims) != len(outs):
            raise RuntimeError(
                f"{name}.vmap: out_dims {out_dims!r} does not have the structure of the "
                f"output ({len(outs)} output{'s' if len(outs) != 1 else ''})")
    res = []
    for i, (o, d) in enumerate(zip(outs, dims)):
        if d is None:
            res.append(o)
            continue
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{name}.vmap: out_dims[{i}] = {d} for an output that is not "
                               f"a Tensor ({type(o).__name__})")
        if lv in levels_of(o):
            raise RuntimeError(f"{name}.vmap: output {i} is still batched at the vmap level "
                               f"being handled (return the batch as a dimension of a plain "
                               f"Tensor and its index in out_dims)")
        n = o.ndim
        if not -n <= d < n:
            raise IndexError(f"{name}.vmap: out_dims[{i}] = {d} is out of range for an output "
                             f"with {n} dimensions")
        res.append(add_level(o, lv, d % n, f"the output of {name}"))
    return tuple(res) if isinstance(out, tuple) else res[0]


_GENERATED: dict = {}


def _generated(cls, lv: VmapLevel, in_dims: tuple):
    """The Function ``vmap(cls.apply, in_dims)`` on plain Tensors (batch at dimension 0 of
    the batched arguments and of every output): PyTorch's generated rule. ``forward``,
    ``setup_context`` and ``backward`` run under :func:`arrayflow.func.vmap`; the gradient
    of an unbatched argument is summed over the batch."""
    key = (cls, in_dims, lv.randomness)
    gen = _GENERATED.get(key)
    if gen is not None:
        return gen
    from ._vmap import vmap

    randomness = lv.randomness
    base = set(vars(FunctionCtx()))

    def forward(*xs):
        return vmap(cls.forward, in_dims=in_dims, randomness=randomness)(*xs)

    def setup_context(ctx, inputs, output):
        outs = output if isinstance(output, tuple) else (output,)
        n = len(inputs)
        state: dict = {}

        def sc(*io):
            c = FunctionCtx()
            c._fname = cls.__name__
            c.needs_input_grad = ctx.needs_input_grad
            c.backend, c.xp = ctx.backend, ctx.xp
            o = io[n:]
            cls.setup_context(c, io[:n], o if isinstance(output, tuple) else o[0])
            saved = tuple(c._to_save)
            attrs = {k: v for k, v in vars(c).items() if k not in base}
            for k, v in attrs.items():
                if isinstance(v, Tensor) and levels_of(v):
                    raise NotImplementedError(
                        f"{cls.__name__}.setup_context under vmap (generate_vmap_rule=True) "
                        f"stores a batched Tensor as ctx.{k}: save it with "
                        f"ctx.save_for_backward")
            state["attrs"] = attrs
            state["materialize"] = c.materialize_grads
            state["none"] = tuple(t is None for t in saved)
            state["nondiff"] = tuple(i for i, t in enumerate(o) if id(t) in c._non_differentiable)
            return tuple(t for t in saved if t is not None)

        saved = vmap(sc, in_dims=in_dims + (0,) * len(outs), randomness=randomness)(
            *inputs, *outs)
        ctx.save_for_backward(*saved)
        ctx._gen_state = state
        ctx.set_materialize_grads(state["materialize"])
        for i in state["nondiff"]:
            ctx.mark_non_differentiable(outs[i])

    def backward(ctx, *grads):
        state = ctx._gen_state
        saved = ctx.saved_tensors
        ng = len(grads)
        present = tuple(g is not None for g in grads)
        nones: dict = {}

        def bw(*a):
            gs = iter(a[:ng])
            g = tuple(next(gs) if p else None for p in present)
            sv = iter(a[ng:])
            full = tuple(None if isnone else next(sv) for isnone in state["none"])
            c = FunctionCtx()
            c._fname = cls.__name__
            c.needs_input_grad = ctx.needs_input_grad
            c.backend, c.xp = ctx.backend, ctx.xp
            c._saved = tuple(None if t is None else (t, t._cell.version) for t in full)
            for k, v in state["attrs"].items():
                setattr(c, k, v)
            r = cls.backward(c, *g)
            r = r if isinstance(r, tuple) else (r,)
            nones["pos"] = tuple(x is None for x in r)
            return tuple(x for x in r if x is not None)

        args = tuple(g for g in grads if g is not None) + tuple(saved)
        dims = (0,) * len(args)
        got = iter(vmap(bw, in_dims=dims, randomness=randomness)(*args))
        res = []
        for i, isnone in enumerate(nones["pos"]):
            g = None if isnone else next(got)
            if g is not None and i < len(in_dims) and in_dims[i] is None:
                g = _r_sum(g, axis=0)  # an unbatched input: every sample's gradient adds up
            res.append(g)
        return tuple(res)

    gen = type(f"Vmapped{cls.__name__}", (Function,), {
        "forward": staticmethod(forward), "setup_context": staticmethod(setup_context),
        "backward": staticmethod(backward), "generate_vmap_rule": True,
        "__doc__": f"vmap of {cls.__qualname__}.apply with in_dims={in_dims} (generated)"})
    if len(_GENERATED) > 256:
        _GENERATED.clear()
    _GENERATED[key] = gen
    return gen


def _r_sum(x, axis):
    return _r.sum(x, axis=axis)


def _install_function_rule() -> None:
    function.install(vmap=_function_apply)


_install_function_rule()
