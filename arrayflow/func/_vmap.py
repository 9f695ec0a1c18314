"""``vmap``: vectorizing map, torch.func's semantics (see :mod:`._batching` for the rules)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from .. import _backend
from .._dispatch import ArrayflowFunctionMode
from ..nn import functional as F  # noqa: N812
from ..ops import creation as _c
from ..ops import manipulation as _m
from ..ops._registry import Op
from ..tensor import Tensor
from . import _batching as _b
from ._pytree import tree_flatten, tree_unflatten

__all__ = ["vmap"]

_RANDOMNESS = ("error", "different", "same")
_RANDOM_OPS = {"randn", "rand", "randint", "randperm"}


def _fname(func: Any) -> str:
    return getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or repr(func)


# --- in_dims / out_dims ---------------------------------------------------------------------

def _broadcast_dims(api: str, dims: Any, tree: Any, what: str) -> list:
    """``dims`` (an int/None or a pytree prefix of ``tree``) as one entry per leaf."""
    if dims is None or isinstance(dims, int):
        return [dims] * len(tree_flatten(tree)[0])
    leaves, spec = tree_flatten(tree)
    dleaves, dspec = tree_flatten(dims)
    if dspec == spec:
        for d in dleaves:
            if not (d is None or isinstance(d, int)):
                raise ValueError(f"{api}: {what} must be an int, None or a pytree of those "
                                 f"matching the structure of the {what[:-5]}s, got an entry "
                                 f"of type {type(d).__name__}")
        return dleaves
    # a prefix: walk the structure
    out: list = []
    _prefix(api, dims, tree, out, what)
    return out


def _prefix(api, dims, tree, out, what):
    if dims is None or isinstance(dims, int):
        out.extend([dims] * len(tree_flatten(tree)[0]))
        return
    if type(dims) is not type(tree) or (isinstance(dims, (tuple, list)) and
                                         len(dims) != len(tree)) or (
            isinstance(dims, dict) and set(dims) != set(tree)):
        raise ValueError(
            f"{api}: {what}={dims!r} is not compatible with the structure of the "
            f"{'inputs' if what == 'in_dims' else 'outputs'}: expected an int, None, or a "
            f"(nested) {type(tree).__name__} matching it (got {type(dims).__name__})")
    if isinstance(dims, dict):
        for k in tree:
            _prefix(api, dims[k], tree[k], out, what)
    else:
        for d, t in zip(dims, tree):
            _prefix(api, d, t, out, what)


# --- randomness -----------------------------------------------------------------------------

class _RandomnessMode(ArrayflowFunctionMode):
    """Sees every call inside the vmapped function: random functions follow the
    ``randomness`` flag (torch.func's semantics)."""
    def __init__(self, level: _b.VmapLevel):
        self.level = level

    def __arrayflow_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        canon = getattr(func, "canonical", func)
        if isinstance(canon, Op):
            if canon.name in _RANDOM_OPS:
                return self._random(func, canon.name, args, kwargs)
        elif func in _random_funcs():
            return self._random(func, _random_funcs()[func], args, kwargs)
        return func(*args, **kwargs)

    def _random(self, func, name, args, kwargs):
        lv = self.level
        if name == "dropout" and not _dropout_sig().bind(*args, **kwargs).arguments.get(
                "training", True):
            return func(*args, **kwargs)  # evaluation mode draws nothing (as torch)
        if lv.randomness == "error":
            raise RuntimeError(
                f"vmap({lv.func_name}): called random operation {name} while in randomness "
                f"error mode. Please either use the 'same' or 'different' randomness flags "
                f"on vmap or perform the randomness operation out of vmap")
        if name == "dropout":
            return self._dropout(func, args, kwargs)
        if name in ("uniform_", "normal_"):
            self_ = args[0]
            if lv not in _b.levels_of(self_) and lv.randomness == "different":
                raise RuntimeError(
                    f"vmap({lv.func_name}): Cannot ask for different inplace randomness on an "
                    f"unbatched tensor ({name}). This will appear like same randomness. If "
                    f"this is necessary for your usage, please file an issue with functorch.")
            if lv.randomness == "same" and lv in _b.levels_of(self_):
                with _backend.use_backend(self_.backend):
                    one = _c.zeros(tuple(self_.shape), dtype=self_.dtype)
                getattr(one, name)(*args[1:], **kwargs)
                self_[...] = one
                return self_
            return func(*args, **kwargs)
        if lv.randomness == "same":
            return func(*args, **kwargs)
        samples = [func(*args, **kwargs) for _ in range(lv.size)]
        return _b.add_level(_m.stack(samples, axis=0), lv, 0, f"random {name}()")

    def _dropout(self, func, args, kwargs):
        bound = _dropout_sig().bind(*args, **kwargs).arguments
        x = bound["input"]
        p = bound.get("p", 0.5)
        training = bound.get("training", True)
        if not training or p == 0.0 or not isinstance(x, Tensor):
            return func(*args, **kwargs)
        lv = self.level
        with _backend.use_backend(x.backend):
            ones = _c.ones(tuple(x.shape), dtype=x.dtype)
        if lv.randomness == "same":
            mask = F.dropout(ones, p, True)
        else:
            mask = _b.add_level(_m.stack([F.dropout(ones, p, True) for _ in range(lv.size)],
                                         axis=0), lv, 0, "random dropout()")
        return x * mask


_RANDOM_FUNCS: dict = {}


def _random_funcs() -> dict:
    if not _RANDOM_FUNCS:

        _RANDOM_FUNCS[F.dropout] = "dropout"
        _RANDOM_FUNCS[Tensor.uniform_] = "uniform_"
        _RANDOM_FUNCS[Tensor.normal_] = "normal_"
    return _RANDOM_FUNCS


@functools.lru_cache(maxsize=1)
def _dropout_sig():
    return inspect.signature(F.dropout)


# --- vmap -----------------------------------------------------------------------------------

def vmap(func: Callable[..., Any], in_dims: Any = 0, out_dims: Any = 0,
         randomness: str = "error", *, chunk_size: int | None = None) -> Callable[..., Any]:
    """Vectorize ``func`` over a batch dimension of its inputs (``torch.func.vmap``).

    ``vmap(f)(x)`` computes ``stack([f(x[i]) for i in range(len(x))])`` but runs each op
    once on the whole batch, through its batching rule (ops without one loop over the
    batch, with a one-time ``UserWarning`` naming the op). Composes with itself
    (``vmap(vmap(f))``) and with the reverse-mode transforms: ``vmap(grad(loss),
    in_dims=(None, 0, 0))(params, x, y)`` gives per-sample gradients.

    Parameters
    ----------
    func : callable
        Takes pytrees of Tensors (and any other arguments) and returns a pytree of
        Tensors. Inside, its batched arguments have the per-sample shape.
    in_dims : int, None, or pytree, default 0
        The batch dimension of each positional argument: an int for all, or a tuple with
        one entry per argument, each an int (negative counts from the end), None (not
        batched: the same value for every sample) or a pytree matching that argument.
        Keyword arguments are never batched.
    out_dims : int, None, or pytree, default 0
        Where the batch dimension goes in each output (None: the output must not depend
        on the batch, and is returned once).
    randomness : {"error", "different", "same"}, default "error"
        Random functions inside (``randn``, ``rand``, ``randint``, ``randperm``,
        ``nn.functional.dropout``, ``Tensor.uniform_``/``normal_``): raise; draw
        independently per sample; draw once for the whole batch.
    chunk_size : int or None, default None
        Run the batch in chunks of at most this many samples (less memory), then
        concatenate.

    Returns
    -------
    callable
        The batched function: ``(*args, **kwargs) -> outputs``, each output with the
        batch dimension at its ``out_dims``.

    Raises
    ------
    ValueError
        Mismatched batch sizes (the message names the arguments and their sizes), an
        ``in_dims`` entry out of range or on a non-Tensor, ``in_dims``/``out_dims`` not
        matching the structure, no batched input, a non-Tensor output, an output that
        depends on the batch with ``out_dims=None``.
    IndexError
        An ``out_dims`` entry out of range for its output (PyTorch's type).
    RuntimeError
        ``randomness`` not one of the three values; inside ``func``: ``bool(t)``,
        ``int(t)``, ``float(t)``, ``t.item()`` on a batched value (naming ``func`` and
        the batched argument), an in-place write of a batched value into an unbatched
        Tensor, a random function with ``randomness="error"``.

    Notes
    -----
    Source: ``torch.func.vmap`` (PyTorch 2.13). Works on every backend (on Dask the
    result stays lazy). ``docs/func.md`` lists the differences from torch.func.
    """
    if randomness not in _RANDOMNESS:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got "
                         f"{chunk_size})")
    name = _fname(func)
    api = f"vmap({name}, in_dims={in_dims}, out_dims={out_dims}, ...)(<inputs>)"

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if not (in_dims is None or isinstance(in_dims, (int, tuple))):
            raise ValueError(
                f"{api}: expected `in_dims` to be int or a (potentially nested) tuple matching "
                f"the structure of inputs, got: {type(in_dims)}.")
        if isinstance(in_dims, tuple) and len(in_dims) != len(args):
            raise ValueError(
                f"{api}: in_dims is not compatible with the structure of `inputs`. in_dims "
                f"has structure {in_dims!r} but inputs has {len(args)} positional arguments")
        leaves, spec = tree_flatten(args)
        dims = _broadcast_dims(api, in_dims, args, "in_dims")
        paths = _leaf_paths(args)
        size = None
        sizes: list = []
        for x, d, path in zip(leaves, dims, paths):
            if d is None:
                continue
            if not isinstance(x, Tensor):
                raise ValueError(
                    f"{api}: Got in_dim={d} for an input ({path}) but the input is of type "
                    f"{type(x)}. We cannot vmap over non-Tensor arguments, please use None as "
                    f"the respective in_dim")
            n = x.ndim
            if not -n <= d < n:
                raise ValueError(
                    f"{api}: Got in_dim={d} for some input ({path}), but that input is a "
                    f"Tensor of dimensionality {n} so expected in_dim to satisfy -{n} <= "
                    f"in_dim < {n}.")
            sizes.append((path, d, x.shape[d]))
        if not sizes:
            raise ValueError(f"{api}: at least one input must be batched: got in_dim=None for "
                             f"every input (Expected at least one Tensor to vmap over)")
        size = sizes[0][2]
        if any(s != size for _, _, s in sizes):
            detail = ", ".join(f"{p} has size {s} at dim {d}" for p, d, s in sizes)
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Expected all tensors to have "
                f"the same size in the mapped dimension, got sizes "
                f"{[s for _, _, s in sizes]} for the mapped dimension ({detail})")
        if chunk_size is not None and size > chunk_size:
            return _chunked(func, name, api, leaves, spec, dims, paths, size, kwargs,
                            randomness, out_dims, chunk_size)
        return _run(func, name, api, leaves, spec, dims, paths, size, kwargs, randomness,
                    out_dims)

    return wrapped


def _leaf_paths(args: tuple) -> list[str]:
    """A readable name per leaf of ``args``: ``args[0]``, ``args[1]['w']``..."""
    out: list[str] = []

    def walk(node, path):
        leaves, spec = tree_flatten(node)
        if spec.is_leaf():
            out.append(path)
            return
        if isinstance(node, dict):
            for k in node:
                walk(node[k], f"{path}[{k!r}]")
        else:
            for i, e in enumerate(node):
                walk(e, f"{path}[{i}]")

    for i, a in enumerate(args):
        walk(a, f"args[{i}]")
    return out


def _chunked(func, name, api, leaves, spec, dims, paths, size, kwargs, randomness, out_dims,
             chunk_size):
    """``vmap`` over chunks of at most ``chunk_size`` samples, outputs concatenated."""
    outs = []
    for start in range(0, size, chunk_size):
        stop = min(start + chunk_size, size)
        part = []
        for x, d in zip(leaves, dims):
            if d is None:
                part.append(x)
            else:
                d = d + x.ndim if d < 0 else d
                part.append(x[(slice(None),) * d + (slice(start, stop),)])
        outs.append(_run(func, name, api, part, spec, dims, paths, stop - start, kwargs,
                         randomness, out_dims))
    flat0, ospec = tree_flatten(outs[0])
    odims = _broadcast_dims(api, out_dims, outs[0], "out_dims")
    flats = [tree_flatten(o)[0] for o in outs]
    res = []
    for i, d in enumerate(odims):
        if d is None:
            res.append(flat0[i])
        else:
            res.append(_m.concat([f[i] for f in flats], axis=d))
    return tree_unflatten(res, ospec)


def _run(func, name, api, leaves, spec, dims, paths, size, kwargs, randomness, out_dims):
    if not _b.FUNC_RULES.get("installed"):
        _b._install_nn_rules()
        _b.FUNC_RULES["installed"] = True
    level = _b.VmapLevel(size, name, randomness)
    batched = []
    for x, d, path in zip(leaves, dims, paths):
        if d is None:
            batched.append(x)
        else:
            d = d + x.ndim if d < 0 else d
            batched.append(_b.add_level(x, level, d, f"{path} (in_dims={d})"))
    args = tree_unflatten(batched, spec)
    token = _b._active.set(_b._active.get() + (level,))
    try:
        with _RandomnessMode(level):
            out = func(*args, **kwargs)
        return _unwrap_out(api, name, out, level, out_dims)
    finally:
        _b._active.reset(token)
        level.active = False


def _unwrap_out(api, name, out, level, out_dims):
    flat, ospec = tree_flatten(out)
    odims = _broadcast_dims(api, out_dims, out, "out_dims")
    res = []
    for o, d in zip(flat, odims):
        if not isinstance(o, Tensor):
            raise ValueError(
                f"{api}: `{name}` must only return Tensors, got type {type(o)}. Did you mean "
                f"to set out_dims= to None for output?")
        if d is None:
            if level in _b.levels_of(o):
                raise ValueError(
                    f"{api}: can not return a BatchedTensor when out_dim is None (the output "
                    f"depends on the batched inputs)")
            res.append(o)
            continue
        n = o.ndim
        if not -(n + 1) <= d <= n:
            raise IndexError(
                f"{api}: Dimension out of range (expected to be in range of [{-(n + 1)}, {n}], "
                f"but got {d}) for out_dims of an output with {n} dimensions")
        res.append(_b.remove_level(o, level, d))
    return tree_unflatten(res, ospec)
