"""Batched Tensors and batching rules: what :func:`arrayflow.func.vmap` runs (private).

A value being vmapped is a :class:`BatchedTensor`: a Tensor subclass that carries a
*physical* plain Tensor whose leading dimensions are the batch dimensions of the
active vmap levels it depends on (one per level, outermost first, ordered by level
id), followed by the *logical* shape the vmapped function sees. It takes part in
``__arrayflow_function__`` dispatch, so every op, Tensor method, operator and
``nn.functional`` call on it reaches :func:`handle`, which

- runs an op once on the physical Tensors through its batching rule: the op's
  ``batch`` slot in the op table when it has one, else a rule of :data:`RULES`
  (keyed by op name), else one derived from the op table (section ``elementwise``:
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
import operator
import warnings
from typing import Any

from .. import _dtypes
from ..ops import creation as _c
from ..ops import elementwise as _e
from ..ops import manipulation as _m
from ..ops._registry import Op
from ..tensor import Tensor

__all__ = ["BatchedTensor", "VmapLevel", "RULES", "handle", "active_levels", "make",
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
                f"batched Tensor here (a custom autograd Function applied inside vmap: "
                f"Function.vmap / generate_vmap_rule are not supported; call it outside vmap "
                f"or write it with arrayflow ops)")

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


def levels_of(x: Any) -> tuple:
    return x._levels if type(x) is BatchedTensor else ()


def physical(x: Any) -> Any:
    return x._phys if type(x) is BatchedTensor else x


def _union(objs) -> tuple:
    seen: dict = {}
    for o in objs:
        if type(o) is BatchedTensor:
            for lv in o._levels:
                seen[lv.id] = lv
    return tuple(seen[i] for i in sorted(seen))


def _origin(objs) -> str:
    for o in objs:
        if type(o) is BatchedTensor:
            return o._origin
    return "an input"


def _aligned(x: Any, levels: tuple, expand: bool = False, rank: int | None = None) -> Tensor:
    """``x``'s physical Tensor with one leading dimension per level of ``levels`` (size 1
    where ``x`` is not batched, or the level's size with ``expand``), its logical shape
    padded with leading 1s to ``rank`` dimensions."""
    p = physical(x)
    xl = levels_of(x)
    logical = tuple(p.shape[len(xl):])
    pad = () if rank is None else (1,) * (rank - len(logical))
    if xl == levels and not pad:
        return p
    shape = []
    j = 0
    for lv in levels:
        if j < len(xl) and xl[j] is lv:
            shape.append(p.shape[j])
            j += 1
        else:
            shape.append(1)
    if j != len(xl):
        raise RuntimeError("vmap: internal error: a value is batched at a level that is not "
                           "active here (a batched Tensor escaped its vmap)")
    new = tuple(shape) + pad + logical
    if new != tuple(p.shape):
        p = _m.reshape(p, new)
    if expand:
        full = tuple(lv.size for lv in levels) + pad + logical
        if full != tuple(p.shape):
            p = _m.broadcast_to(p, full)
    return p


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
    pos = ls.index(level)
    k = len(ls)
    p = t._phys
    if pos != k - 1 + d:
        p = _m.moveaxis(p, pos, k - 1 + d)
    return make(p, ls[:pos] + ls[pos + 1:], t._origin)


def _wrap(out: Any, levels: tuple, origin: str) -> Any:
    if isinstance(out, Tensor):
        return make(out, levels, origin)
    if isinstance(out, tuple):
        items = [_wrap(o, levels, origin) for o in out]
        return type(out)(*items) if hasattr(out, "_fields") else tuple(items)
    if isinstance(out, list):
        return [_wrap(o, levels, origin) for o in out]
    return out


# --- the handler ---------------------------------------------------------------------------

RULES: dict = {}
"""Batching rules by op name, ``rule(op, public, args, kwargs)``, for ops whose rule is
not derived from the op table (see the module docstring)."""

FUNC_RULES: dict = {}
"""Batching rules of functions that are not ops (``nn.functional``, Tensor methods)."""

_RULE_CACHE: dict = {}
_WARNED: set = set()
_CLOSURE_OPS: dict = {}
_SCALAR_METHODS = {"item": ".item()", "tolist": ".tolist()", "numpy": ".numpy()",
                   "backward": ".backward() (use arrayflow.func.grad inside vmap)"}


def _all_args(args, kwargs):
    for a in args:
        if type(a) is list or type(a) is tuple:
            yield from a
        else:
            yield a
    yield from kwargs.values()


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
        r = getattr(op, "batch", None) or RULES.get(op.name) or _derive(op) or _fallback_op
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

def _norm_axis(a, n: int):
    """Axis ``a`` of a logical rank-``n`` value, as a negative axis (the same physically);
    None when out of range (the caller falls back: the op raises its own error)."""
    a = operator.index(a)
    if not -n <= a < n:
        return None
    return a - n if a >= 0 else a


def _norm_axes(a, n: int):
    if isinstance(a, (tuple, list)):
        out = [_norm_axis(e, n) for e in a]
        return None if any(e is None for e in out) else tuple(out)
    return _norm_axis(a, n)


def _tensors(args, kwargs):
    return [a for a in _all_args(args, kwargs) if isinstance(a, Tensor)]


def _only_first_batched(args, kwargs) -> bool:
    return all(type(a) is not BatchedTensor for a in list(_all_args(args[1:], kwargs)))


def _elementwise(op, public, args, kwargs):
    ts = _tensors(args, kwargs)
    levels = _union(ts)
    r = max(t.ndim for t in ts)

    def conv(a):
        return _aligned(a, levels, rank=r) if type(a) is BatchedTensor else a

    out = public(*(conv(a) for a in args), **{k: conv(v) for k, v in kwargs.items()})
    return _wrap(out, levels, _origin(ts))


def _torch_kw(op, args, kwargs):
    """PyTorch's ``dim``/``keepdim`` spellings (and positional ``dim``) as the op takes them."""
    if op.torch_kw and kwargs and ("dim" in kwargs or "keepdim" in kwargs):
        kwargs = dict(kwargs)
        for t, a in (("dim", "axis"), ("keepdim", "keepdims")):
            if t in kwargs:
                kwargs[a] = kwargs.pop(t)
    if op.torch_pos and len(args) > 1:
        kwargs = dict(kwargs)
        for v, a in zip(args[1:], ("axis", "keepdims")):
            kwargs[a] = v
        args = args[:1]
    if "dim" in kwargs and op.name in ("concat", "stack"):
        kwargs = dict(kwargs)
        d = kwargs.pop("dim")
        if d is not None:
            kwargs["axis"] = d
    return args, kwargs


def _bind(op, args, kwargs):
    try:
        return op.__signature__.bind(*args, **kwargs).arguments
    except TypeError:
        return None


_REDUCE = {"sum", "prod", "mean", "std", "var", "max", "min", "all", "any", "count_nonzero",
           "linalg.vector_norm"}
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
    if op.section == "elementwise" or name in ("where", "erf", "isclose"):
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


def _single_axis(op, public, args, kwargs, fix):
    """Common body of the one-Tensor axis rules: ``fix(bound, n)`` rewrites the bound
    arguments (None: fall back)."""
    args, kwargs = _torch_kw(op, args, kwargs)
    x = args[0] if args else None
    if type(x) is not BatchedTensor or not _only_first_batched(args, kwargs):
        return _fallback_op(op, public, args, kwargs)
    bound = _bind(op, args, kwargs)
    if bound is None:
        return _fallback_op(op, public, args, kwargs)
    bound = dict(bound)
    try:
        new = fix(bound, x.ndim, x)
    except TypeError:
        new = None
    if new is None:
        return _fallback_op(op, public, args, kwargs)
    if isinstance(new, Tensor):  # the rule computed the result itself
        return new
    out = _call_positional(op, public, x._phys, new)
    return _wrap(out, x._levels, x._origin)


def _call_positional(op, public, phys, bound):
    pos, kw = [phys], {}
    for p in list(op.__signature__.parameters.values())[1:]:
        if p.name not in bound:
            continue
        if p.kind == p.POSITIONAL_ONLY:
            pos.append(bound[p.name])
        elif p.kind == p.VAR_POSITIONAL:
            pos.extend(bound[p.name])
        else:
            kw[p.name] = bound[p.name]
    return public(*pos, **kw)


def _flat(x: BatchedTensor) -> Tensor:
    k = len(x._levels)
    return _m.reshape(x._phys, tuple(x._phys.shape[:k]) + (-1,))


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


def _rule(*names):
    def deco(fn):
        for n in names:
            RULES[n] = fn
        return fn
    return deco


@_rule("flip", "roll", "expand_dims", "squeeze", "unstack", "moveaxis", "permute_dims",
       "fft.fftshift", "fft.ifftshift", "fft.fftn", "fft.ifftn", "fft.rfftn", "fft.irfftn",
       "repeat")
def _manip_axis(op, public, args, kwargs):
    name = op.name
    if name == "repeat" and len(args) > 1 and type(args[1]) is BatchedTensor:
        return _fallback_op(op, public, args, kwargs)

    def fix(b, n, x):
        if name in ("flip", "fft.fftshift", "fft.ifftshift"):
            key = "axis" if name == "flip" else "axes"
            ax = b.get(key)
            b[key] = tuple(range(-n, 0)) if ax is None else _norm_axes(ax, n)
            return None if b[key] is None else b
        if name in ("roll", "repeat"):
            if b.get("axis") is None:
                flat = _flat(x)
                rest = {k: v for k, v in b.items() if k not in ("x", "axis")}
                if name == "roll":
                    out = _call_positional(op, public, flat, dict(rest, axis=-1))
                    out = _m.reshape(out, tuple(x._phys.shape))
                else:
                    out = _call_positional(op, public, flat, dict(rest, axis=-1))
                return make(out, x._levels, x._origin)
            b["axis"] = _norm_axes(b["axis"], n)
            return None if b["axis"] is None else b
        if name == "expand_dims":
            ax = b["axis"]
            m = n + (len(ax) if isinstance(ax, (tuple, list)) else 1)
            b["axis"] = _norm_axes(ax, m)
            return None if b["axis"] is None else b
        if name in ("squeeze", "unstack"):
            b["axis"] = _norm_axes(b.get("axis", 0), n)
            return None if b["axis"] is None else b
        if name == "moveaxis":
            b["source"] = _norm_axes(b["source"], n)
            b["destination"] = _norm_axes(b["destination"], n)
            return None if b["source"] is None or b["destination"] is None else b
        if name == "permute_dims":
            axes = tuple(b["axes"])
            if sorted(a % n if n else a for a in axes) != list(range(n)) or len(axes) != n:
                return None
            k = len(x._levels)
            b["axes"] = tuple(range(k)) + tuple(k + a % n for a in axes)
            return b
        # fftn family
        s, axes = b.get("s"), b.get("axes")
        if axes is None:
            axes = tuple(range(-len(s), 0)) if s is not None else tuple(range(-n, 0))
        b["axes"] = _norm_axes(tuple(axes), n)
        return None if b["axes"] is None else b
    return _single_axis(op, public, args, kwargs, fix)


@_rule("reshape")
def _reshape(op, public, args, kwargs):
    x = args[0]
    if type(x) is not BatchedTensor or not _only_first_batched(args, kwargs):
        return _fallback_op(op, public, args, kwargs)
    shape = args[1] if len(args) > 1 else kwargs.get("shape")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    rest = {k: v for k, v in kwargs.items() if k != "shape"}
    bshape = tuple(x._phys.shape[:len(x._levels)])
    return make(public(x._phys, bshape + shape, **rest), x._levels, x._origin)


@_rule("broadcast_to")
def _broadcast_to(op, public, args, kwargs):
    x = args[0]
    if type(x) is not BatchedTensor or not _only_first_batched(args, kwargs):
        return _fallback_op(op, public, args, kwargs)
    shape = tuple(args[1] if len(args) > 1 else kwargs["shape"])
    if len(shape) < x.ndim:
        return _fallback_op(op, public, args, kwargs)
    p = _aligned(x, x._levels, rank=len(shape))
    return make(public(p, tuple(p.shape[:len(x._levels)]) + shape), x._levels, x._origin)


@_rule("broadcast_arrays")
def _broadcast_arrays(op, public, args, kwargs):
    ts = list(args)
    levels = _union(ts)
    shape = _m.broadcast_shapes(*(tuple(t.shape) for t in ts))
    sizes = tuple(lv.size for lv in levels)
    out = []
    for t in ts:
        if type(t) is BatchedTensor:
            p = _aligned(t, levels, expand=True, rank=len(shape))
            out.append(make(_m.broadcast_to(p, sizes + tuple(shape)), levels, t._origin))
        else:
            out.append(_m.broadcast_to(t, tuple(shape)))
    return tuple(out)


@_rule("tile")
def _tile(op, public, args, kwargs):
    x = args[0]
    if type(x) is not BatchedTensor or not _only_first_batched(args, kwargs):
        return _fallback_op(op, public, args, kwargs)
    reps = tuple(args[1] if len(args) > 1 else kwargs["repetitions"])
    r = max(x.ndim, len(reps))
    p = _aligned(x, x._levels, rank=r)
    reps = (1,) * (len(x._levels) + r - len(reps)) + reps
    return make(public(p, reps), x._levels, x._origin)


@_rule("concat", "stack")
def _concat(op, public, args, kwargs):
    args, kwargs = _torch_kw(op, args, kwargs)
    arrays = args[0]
    rest = dict(kwargs)
    if len(args) > 1:
        rest["axis"] = args[1]
    levels = _union(arrays)
    ns = {t.ndim for t in arrays}
    if len(ns) != 1 or not levels:
        return _fallback_op(op, public, args, kwargs)
    n = ns.pop()
    ax = rest.get("axis", 0)
    if ax is None and op.name == "concat":
        ps = [_m.reshape(_aligned(t, levels, expand=True), tuple(lv.size for lv in levels)
                         + (-1,)) for t in arrays]
        rest["axis"] = -1
    else:
        ax = _norm_axis(ax, n + 1 if op.name == "stack" else n)
        if ax is None:
            return _fallback_op(op, public, args, kwargs)
        rest["axis"] = ax
        ps = [_aligned(t, levels, expand=True) for t in arrays]
    return make(public(ps, **rest), levels, _origin(arrays))


@_rule("take")
def _take(op, public, args, kwargs):
    x, idx = args[0], args[1]
    ax = kwargs.get("axis")
    if type(x) is not BatchedTensor and idx.ndim == 1 and (ax is not None or x.ndim == 1):
        # gathering from an unbatched x (an embedding table): all the batched indices at
        # once, then the gathered axis split into the batch dimensions and the indices'
        a = _norm_axis(0 if ax is None else ax, x.ndim)
        if a is None:
            return _fallback_op(op, public, args, kwargs)
        a += x.ndim
        k = len(idx._levels)
        bsh = tuple(idx._phys.shape[:k])
        out = public(x, _m.reshape(idx._phys, (-1,)), axis=a)
        out = _m.reshape(out, tuple(x.shape[:a]) + bsh + tuple(idx.shape) + tuple(
            x.shape[a + 1:]))
        if a:
            out = _m.moveaxis(out, tuple(range(a, a + k)), tuple(range(k)))
        return make(out, idx._levels, idx._origin)
    if type(x) is not BatchedTensor or type(idx) is BatchedTensor:
        return _fallback_op(op, public, args, kwargs)
    if ax is None:
        if x.ndim != 1:
            return _fallback_op(op, public, args, kwargs)
        ax = 0
    ax = _norm_axis(ax, x.ndim)
    if ax is None:
        return _fallback_op(op, public, args, kwargs)
    return make(public(x._phys, idx, axis=ax), x._levels, x._origin)


@_rule("take_along_axis")
def _take_along_axis(op, public, args, kwargs):
    x, idx = args[0], args[1]
    ax = kwargs.get("axis", args[2] if len(args) > 2 else -1)
    levels = _union((x, idx))
    if x.ndim != idx.ndim:
        return _fallback_op(op, public, args, kwargs)
    ax = _norm_axis(ax, x.ndim)
    if ax is None:
        return _fallback_op(op, public, args, kwargs)
    xp = _aligned(x, levels, expand=True)
    ip = _aligned(idx, levels, expand=True)
    return make(public(xp, ip, axis=ax), levels, _origin((x, idx)))


@_rule("matmul")
def _matmul(op, public, args, kwargs):
    a, b = args[0], args[1]
    levels = _union((a, b))
    na, nb = a.ndim, b.ndim
    if na == 0 or nb == 0:
        return _fallback_op(op, public, args, kwargs)
    L = max(na, nb, 2)

    def prep(t, vec_axis):
        n = t.ndim
        if type(t) is BatchedTensor:
            p = _aligned(t, levels)
            if n == 1:
                p = _m.expand_dims(p, axis=vec_axis)
            return _aligned(make(p, levels), levels, rank=L)
        if n == 1:
            return _m.expand_dims(t, axis=vec_axis)
        return t

    out = public(prep(a, -2), prep(b, -1))
    if nb == 1:
        out = _m.squeeze(out, axis=-1)
    if na == 1:
        out = _m.squeeze(out, axis=-1 if nb == 1 else -2)
    return make(out, levels, _origin((a, b)))


@_rule("vecdot", "linalg.cross")
def _vecdot(op, public, args, kwargs):
    a, b = args[0], args[1]
    levels = _union((a, b))
    r = max(a.ndim, b.ndim)
    ax = _norm_axis(kwargs.get("axis", -1), r)
    if ax is None or r == 0:
        return _fallback_op(op, public, args, kwargs)

    def conv(t):
        return _aligned(t, levels, rank=r) if type(t) is BatchedTensor else t

    return make(public(conv(a), conv(b), axis=ax), levels, _origin((a, b)))


@_rule("linalg.outer")
def _outer(op, public, args, kwargs):
    a, b = args[0], args[1]
    if a.ndim != 1 or b.ndim != 1:
        return _fallback_op(op, public, args, kwargs)
    levels = _union((a, b))
    pa = _m.expand_dims(_aligned(a, levels), axis=-1) if type(a) is BatchedTensor else \
        _m.expand_dims(a, axis=-1)
    pb = _aligned(b, levels) if type(b) is BatchedTensor else b
    return make(_e.multiply(pa, pb), levels, _origin((a, b)))


@_rule("linalg.solve")
def _solve(op, public, args, kwargs):
    a, b = args[0], args[1]
    levels = _union((a, b))
    if a.ndim < 2 or b.ndim < 1:
        return _fallback_op(op, public, args, kwargs)
    pa = _aligned(a, levels, expand=True)
    if b.ndim == 1:
        pb = _m.expand_dims(_aligned(b, levels, expand=True), axis=-1)
        return make(_m.squeeze(public(pa, pb), axis=-1), levels, _origin((a, b)))
    r = max(a.ndim, b.ndim)
    pa = _aligned(make(pa, levels), levels, rank=r)
    pb = _aligned(b, levels, expand=True, rank=r)
    return make(public(pa, pb), levels, _origin((a, b)))


# --- indexing ---------------------------------------------------------------------------------

def _is_adv(e) -> bool:
    return isinstance(e, (Tensor, list)) or (hasattr(e, "dtype") and hasattr(e, "shape"))


def _key_tuple(key):
    return key if type(key) is tuple else (key,)


def _phys_key(x: BatchedTensor, key):
    """The key indexing ``x``'s physical Tensor, and whether the batch dimensions end up
    behind the advanced-index dimensions (numpy's rule for separated advanced indices);
    None when the rule does not apply (a batched index, a separated boolean mask)."""
    kt = _key_tuple(key)
    if any(type(e) is BatchedTensor for e in kt):
        return None
    adv = [i for i, e in enumerate(kt) if _is_adv(e)]
    nadv = 0
    if adv:
        marks = [i for i, e in enumerate(kt) if _is_adv(e) or type(e) is int]
        separated = marks != list(range(marks[0], marks[-1] + 1))
        if separated:
            shapes = []
            for i in marks:
                e = kt[i]
                if type(e) is int:
                    shapes.append(())
                elif isinstance(e, list) or getattr(e, "dtype", None) in (_dtypes.bool,):
                    return None
                else:
                    sh = tuple(e.shape)
                    if isinstance(e, Tensor) and e.dtype is _dtypes.bool:
                        return None
                    shapes.append(sh)
            nadv = len(_m.broadcast_shapes(*shapes)) if shapes else 0
            nadv = nadv if nadv else -1  # separated but 0-d: batch dims still move
    return (slice(None),) * len(x._levels) + kt, nadv


@_rule("getitem")
def _getitem(op, public, args, kwargs):
    x, key = args[0], args[1]
    pk = _phys_key(x, key) if type(x) is BatchedTensor else None
    if pk is None:
        return _fallback_op(op, public, args, kwargs)
    phys_key, nadv = pk
    out = public(x._phys, phys_key)
    k = len(x._levels)
    if nadv:
        nadv = max(nadv, 0)
        out = _m.moveaxis(out, tuple(range(nadv, nadv + k)), tuple(range(k)))
    return make(out, x._levels, x._origin)


@_rule("index_put")
def _index_put(op, public, args, kwargs):
    x, key, value = args[0], args[1], args[2]
    levels = _union((x, value))
    xb = make(_aligned(x, levels, expand=True), levels, _origin((x, value)))
    pk = _phys_key(xb, key)
    if pk is None or pk[1]:
        return _fallback_op(op, public, args, kwargs)
    sub = _m.getitem(xb._phys, pk[0])
    if type(value) is BatchedTensor:
        value = _aligned(value, levels, rank=sub.ndim - len(levels))
    return make(public(xb._phys, pk[0], value), levels, xb._origin)


def _setitem(func, args, kwargs):
    self, key, value = args[0], args[1], args[2]
    _check_inplace_levels("__setitem__", (self, value), {})
    if type(self) is not BatchedTensor:
        return func.__wrapped__(*args, **kwargs)
    pk = _phys_key(self, key)
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
    from ..nn import functional as F  # noqa: N812
    from ..ops import dtypes as _dt
    from ..ops import reductions as _r
    from ..ops import searching as _s

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


def _install_nn_rules() -> None:
    from ..nn import functional as F  # noqa: N812

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
    from ..autograd import forward_ad as _fw

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
    from ..autograd import forward_ad as _fw

    for lv in _fw._LEVELS:
        t = lv.tangents.get(phys)
        if t is not None:
            lv.tangents[out] = make(t, levels, origin)
    return out


@_rule("tensordot")
def _tensordot(op, public, args, kwargs):
    """``x1`` batched, ``x2`` not: the contracted axes of ``x1`` written negative (an int
    ``axes`` contracts its last axes already); the batch dimensions stay in front."""
    x1, x2 = args[0], args[1]
    if type(x1) is not BatchedTensor or type(x2) is BatchedTensor:
        return _fallback_op(op, public, args, kwargs)
    axes = kwargs.get("axes", args[2] if len(args) > 2 else 2)
    if not isinstance(axes, int):
        a1 = _norm_axes(tuple(axes[0]), x1.ndim)
        if a1 is None or len(axes) != 2:
            return _fallback_op(op, public, args, kwargs)
        axes = (a1, tuple(axes[1]))
    elif not 0 <= axes <= x1.ndim:
        return _fallback_op(op, public, args, kwargs)
    return make(public(x1._phys, x2, axes=axes), x1._levels, x1._origin)
