"""Helpers of the ops' ``vmap`` batching rules (``Op.batch``; private).

A batching rule ``rule(op, public, args, kwargs)`` runs an op once on the *physical*
Tensors of its batched arguments: each batched value carries ``_phys`` (a plain Tensor
whose leading dimensions are the batch dimensions of the vmap levels in ``_levels``,
outermost first), ``_levels`` and ``_origin`` (the argument it depends on, for error
messages). Rules write axes negative so that the leading batch dimensions never move,
and fall back to a loop over the batch (:func:`fallback_op`) where they do not apply.

The op layer sits below :mod:`arrayflow.func`, which owns the batched Tensor class and
the loop: it hands them down once at import through :func:`install` (the op layer's
injection pattern, as :func:`arrayflow.ops._registry.install`). Rules run only inside
``vmap``, so after that.
"""

from __future__ import annotations

import operator
from typing import Any, Protocol, cast

from .. import _dtypes
from . import _registry


class BatchedValue(Protocol):
    """The attributes the rules read on a batched value (the class is
    ``arrayflow.func._batching.BatchedTensor``, which this layer cannot import)."""

    _phys: Any  # the plain physical Tensor
    _levels: tuple  # its vmap levels, outermost first
    _origin: str  # the batched argument it depends on (error messages)


# What arrayflow.func._batching provides (install): the batched Tensor class, its
# constructor make(phys, levels, origin) and the per-sample loop fallback(func, name,
# args, kwargs). ``type(x) is Batched`` narrows ``x`` to BatchedValue.
Batched: type[BatchedValue] = cast("type[BatchedValue]", type(None))
_make: Any = None
_fallback: Any = None


def install(*, batched: type[BatchedValue], make, fallback) -> None:
    """Called once by :mod:`arrayflow.func._batching` at import."""
    global Batched, _make, _fallback
    Batched, _make, _fallback = batched, make, fallback


def manip():
    from . import manipulation

    return manipulation


def is_batched(x: Any) -> bool:
    return type(x) is Batched


def make(phys, levels: tuple, origin: str = "an input"):
    """The value with physical Tensor ``phys`` batched at ``levels``."""
    return _make(phys, levels, origin)


def fallback_op(op, public, args, kwargs):
    """The loop over the batch (one call per sample, a one-time warning naming the op)."""
    return _fallback(public, op.name, args, kwargs)


def levels_of(x: Any) -> tuple:
    return x._levels if type(x) is Batched else ()


def physical(x: Any) -> Any:
    return x._phys if type(x) is Batched else x


def all_args(args, kwargs):
    for a in args:
        if type(a) is list or type(a) is tuple:
            yield from a
        else:
            yield a
    yield from kwargs.values()


def union(objs) -> tuple:
    """The vmap levels of the batched values among ``objs``, ordered by level id."""
    seen: dict = {}
    for o in objs:
        if type(o) is Batched:
            for lv in o._levels:
                seen[lv.id] = lv
    return tuple(seen[i] for i in sorted(seen))


def origin(objs) -> str:
    for o in objs:
        if type(o) is Batched:
            return o._origin
    return "an input"


def aligned(x: Any, levels: tuple, expand: bool = False, rank: int | None = None):
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
    m = manip()
    if new != tuple(p.shape):
        p = m.reshape(p, new)
    if expand:
        full = tuple(lv.size for lv in levels) + pad + logical
        if full != tuple(p.shape):
            p = m.broadcast_to(p, full)
    return p


def wrap(out: Any, levels: tuple, origin: str) -> Any:
    """Each Tensor in ``out`` (a Tensor, a (named) tuple or a list) batched at ``levels``."""
    if isinstance(out, _registry.Tensor):
        return make(out, levels, origin)
    if isinstance(out, tuple):
        items = [wrap(o, levels, origin) for o in out]
        return type(out)(*items) if hasattr(out, "_fields") else tuple(items)
    if isinstance(out, list):
        return [wrap(o, levels, origin) for o in out]
    return out


def elementwise(op, public, args, kwargs):
    """The rule of an element-wise (broadcasting) op: the batched operands' logical ranks
    aligned (leading 1s behind the batch dimensions), one call. The derived rule of the
    standard's element-wise section; other element-wise ops declare it (``batch=``)."""
    ts = [a for a in all_args(args, kwargs) if isinstance(a, _registry.Tensor)]
    levels = union(ts)
    r = max(t.ndim for t in ts)

    def conv(a):
        return aligned(a, levels, rank=r) if type(a) is Batched else a

    out = public(*(conv(a) for a in args), **{k: conv(v) for k, v in kwargs.items()})
    return wrap(out, levels, origin(ts))


def norm_axis(a, n: int):
    """Axis ``a`` of a logical rank-``n`` value, as a negative axis (the same physically);
    None when out of range (the caller falls back: the op raises its own error)."""
    a = operator.index(a)
    if not -n <= a < n:
        return None
    return a - n if a >= 0 else a


def norm_axes(a, n: int):
    if isinstance(a, (tuple, list)):
        out = [norm_axis(e, n) for e in a]
        return None if any(e is None for e in out) else tuple(out)
    return norm_axis(a, n)


def only_first_batched(args, kwargs) -> bool:
    return all(type(a) is not Batched for a in list(all_args(args[1:], kwargs)))


def torch_kw(op, args, kwargs):
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


def bind(op, args, kwargs):
    try:
        return op.__signature__.bind(*args, **kwargs).arguments
    except TypeError:
        return None


def call_positional(op, public, phys, bound):
    """``public(phys, ...)`` with the bound arguments passed as the signature takes them."""
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


def flat(x) -> Any:
    """``x``'s physical Tensor with its logical dimensions flattened into one."""
    k = len(x._levels)
    return manip().reshape(x._phys, tuple(x._phys.shape[:k]) + (-1,))


def single_axis(op, public, args, kwargs, fix):
    """Common body of the one-Tensor axis rules: ``fix(bound, n, x)`` rewrites the bound
    arguments for the physical call (None: fall back; a Tensor: the result itself)."""
    args, kwargs = torch_kw(op, args, kwargs)
    x = args[0] if args else None
    if type(x) is not Batched or not only_first_batched(args, kwargs):
        return fallback_op(op, public, args, kwargs)
    bound = bind(op, args, kwargs)
    if bound is None:
        return fallback_op(op, public, args, kwargs)
    bound = dict(bound)
    try:
        new = fix(bound, x.ndim, x)
    except TypeError:
        new = None
    if new is None:
        return fallback_op(op, public, args, kwargs)
    if isinstance(new, _registry.Tensor):  # the rule computed the result itself
        return new
    out = call_positional(op, public, x._phys, new)
    return wrap(out, x._levels, x._origin)


def axes_rule(key: str):
    """The rule of an op whose ``key`` parameter is an axis or a tuple of them, None
    meaning all (``flip``, ``fftshift``): the axes written negative."""
    def fix(b, n, x):
        ax = b.get(key)
        b[key] = tuple(range(-n, 0)) if ax is None else norm_axes(ax, n)
        return None if b[key] is None else b

    def rule(op, public, args, kwargs):
        return single_axis(op, public, args, kwargs, fix)
    return rule


def axis_rule(key: str = "axis", default: Any = 0):
    """The rule of an op with one axis parameter ``key`` (an int or tuple of ints,
    ``default`` when absent: ``squeeze``, ``unstack``)."""
    def fix(b, n, x):
        b[key] = norm_axes(b.get(key, default), n)
        return None if b[key] is None else b

    def rule(op, public, args, kwargs):
        return single_axis(op, public, args, kwargs, fix)
    return rule


def flat_or_axis_rule(reshape_back: bool):
    """The rule of ``roll``/``repeat``: the axis negative; ``axis=None`` works on the
    flattened value (the logical dimensions flattened behind the batch dimensions;
    ``roll``'s result reshaped back)."""
    def rule(op, public, args, kwargs):
        def fix(b, n, x):
            if b.get("axis") is None:
                first = next(iter(b))
                rest = {k: v for k, v in b.items() if k not in (first, "axis")}
                out = call_positional(op, public, flat(x), dict(rest, axis=-1))
                if reshape_back:
                    out = manip().reshape(out, tuple(x._phys.shape))
                return make(out, x._levels, x._origin)
            b["axis"] = norm_axes(b["axis"], n)
            return None if b["axis"] is None else b
        return single_axis(op, public, args, kwargs, fix)
    return rule


def fftn_rule(op, public, args, kwargs):
    """``fftn``-family rule: ``axes`` (default: the last ``len(s)``, or all) negative."""
    def fix(b, n, x):
        s, axes = b.get("s"), b.get("axes")
        if axes is None:
            axes = tuple(range(-len(s), 0)) if s is not None else tuple(range(-n, 0))
        b["axes"] = norm_axes(tuple(axes), n)
        return None if b["axes"] is None else b
    return single_axis(op, public, args, kwargs, fix)


# --- indexing keys ------------------------------------------------------------------------

def _is_adv(e) -> bool:
    return isinstance(e, (_registry.Tensor, list)) or (hasattr(e, "dtype") and
                                                       hasattr(e, "shape"))


def _key_tuple(key):
    return key if type(key) is tuple else (key,)


def phys_key(x, key):
    """The key indexing ``x``'s physical Tensor, and whether the batch dimensions end up
    behind the advanced-index dimensions (numpy's rule for separated advanced indices);
    None when the rule does not apply (a batched index, a separated boolean mask)."""
    kt = _key_tuple(key)
    if any(type(e) is Batched for e in kt):
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
                    if isinstance(e, _registry.Tensor) and e.dtype is _dtypes.bool:
                        return None
                    shapes.append(sh)
            nadv = len(manip().broadcast_shapes(*shapes)) if shapes else 0
            nadv = nadv if nadv else -1  # separated but 0-d: batch dims still move
    return (slice(None),) * len(x._levels) + kt, nadv
