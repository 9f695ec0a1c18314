"""``einsum``: PyTorch's Einstein summation, built from array API functions.

The equation is parsed as PyTorch parses it (``torch.einsum``: letters ``[a-zA-Z]``, one
``...`` per term, implicit output in alphabetical order, ellipsis dimensions summed when
the explicit output leaves them out, dimensions of size 1 broadcast); the list forms
``einsum(equation, [ops])`` and ``einsum(op0, sublist0, op1, sublist1, ..., [out])`` too.

The computation: each operand first loses the dimensions that broadcast (size 1 against a
larger size elsewhere), takes its diagonals (repeated labels, ``linalg.diagonal``) and sums
the labels no other term needs; then the operands are contracted pairwise (``tensordot``,
or ``matmul`` over batch labels) in the order :func:`opt_einsum.contract_path` gives when
opt_einsum is installed (left to right otherwise), and the result is permuted to the
output's order. Only standard functions are used, so it runs on every backend (lazily on
Dask).

einsum is multilinear: the VJP of each operand is another einsum (the cotangent with the
conjugates of the other operands, into the operand's labels, its diagonals embedded and its
broadcast dimensions restored) and the JVP is the sum of einsums with one operand replaced
by its tangent. Both run through the same engine, so they differentiate again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._typing import Array
from . import _batch_util as _bu
from ._registry import op
from ._vjp_util import cj as _cj

__all__ = ["einsum"]

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_SCALARS = (bool, int, float, complex)


def _err(msg: str) -> RuntimeError:
    return RuntimeError(f"einsum(): {msg}")


# --- parsing ------------------------------------------------------------------------------

def _sublist_term(sub: Any) -> str:
    out = []
    for n in sub:
        if n is Ellipsis:
            out.append("...")
        elif isinstance(n, int) and not isinstance(n, bool) and 0 <= n < 52:
            out.append(_LETTERS[n])
        else:
            raise ValueError("einsum(): subscript in subscript list is not within the valid "
                             "range [0, 52)")
    return "".join(out)


def _normalize(args: tuple) -> tuple[str, list, str]:
    """``(equation, operands, layout)`` of a call's positional arguments.

    ``layout`` says where the operands were: ``"str"`` (``equation, *operands``),
    ``"list"`` (``equation, [operands]``) or ``"sub"`` (operand, sublist, ...)."""
    if not args or (isinstance(args[0], str) and len(args) == 1):
        raise ValueError("einsum(): must specify the equation string and at least one "
                         "operand, or at least one operand and its subscripts list")
    if isinstance(args[0], str):
        ops = list(args[1:])
        if len(ops) == 1 and isinstance(ops[0], (list, tuple)):
            return args[0], list(ops[0]), "list"
        return args[0], ops, "str"
    ops = list(args[0::2])
    subs = list(args[1::2])
    out = None
    if len(args) % 2 == 1:  # the last argument is the output's sublist
        out = ops.pop()
    terms = [_sublist_term(s) for s in subs]
    eq = ",".join(terms) + ("" if out is None else "->" + _sublist_term(out))
    return eq, ops, "sub"


def _parse_term(term: str, offset: int, what: str) -> tuple[list[str], bool]:
    labels: list[str] = []
    ell = False
    i = 0
    while i < len(term):
        c = term[i]
        if c == ".":
            if term[i:i + 3] != "..." or ell:
                raise _err(f"found '.' for {what} that is not part of any ellipsis")
            ell = True
            labels.append("...")
            i += 3
            continue
        if c not in _LETTERS:
            raise _err(f"invalid subscript given at index {offset + i} in the equation "
                       f"string, subscripts must be in [a-zA-Z]")
        labels.append(c)
        i += 1
    return labels, ell


def _parse(equation: str, shapes: list[tuple[int, ...]]):
    """Labels (ints) per operand, the output's labels, and each label's size."""
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, rhs = eq.split("->", 1)
        rhs_off = len(lhs) + 2
    else:
        lhs, rhs, rhs_off = eq, None, 0
    terms = lhs.split(",")
    if len(terms) > len(shapes):
        raise _err("fewer operands were provided than specified in the equation")
    if len(terms) < len(shapes):
        raise _err("more operands were provided than specified in the equation")
    parsed = []
    off = 0
    for k, t in enumerate(terms):
        parsed.append(_parse_term(t, off, f"operand {k}"))
        off += len(t) + 1
    ell_nd = 0
    for k, ((labels, ell), shape) in enumerate(zip(parsed, shapes)):
        n = len(labels) - ell
        if ell:
            if n > len(shape):
                raise _err(f"the number of subscripts in the equation ({n}) is more than the "
                           f"number of dimensions ({len(shape)}) for operand {k}")
            ell_nd = max(ell_nd, len(shape) - n)
        elif n != len(shape):
            raise _err(f"the number of subscripts in the equation ({n}) does not match the "
                       f"number of dimensions ({len(shape)}) for operand {k} and no ellipsis "
                       f"was given")
    # internal labels: ellipsis dimensions 0..ell_nd-1, letters after them
    ids = {c: ell_nd + i for i, c in enumerate(_LETTERS)}
    sizes: dict[int, int] = {}
    specs: list[tuple[int, ...]] = []
    counts: dict[int, int] = {}
    for k, ((labels, _ell), shape) in enumerate(zip(parsed, shapes)):
        spec: list[int] = []
        d = 0
        for c in labels:
            if c == "...":
                m = len(shape) - (len(labels) - 1)
                spec.extend(range(ell_nd - m, ell_nd))
                d += m
            else:
                spec.append(ids[c])
                d += 1
        seen: dict[int, int] = {}
        for lab, n in zip(spec, shape):
            if lab in seen:
                if seen[lab] != n:
                    raise _err(f"subscript {_name(lab, ell_nd)} is repeated for operand {k} "
                               f"but the sizes don't match, {n} != {seen[lab]}")
                continue
            seen[lab] = n
            prev = sizes.get(lab)
            if prev is None or prev == 1:
                sizes[lab] = n
            elif n != 1 and n != prev:
                if lab < ell_nd:
                    raise _err(f"dimension {lab - ell_nd + len(spec)} covered by ellipsis in "
                               f"operand {k} has size {n} which does not broadcast with "
                               f"previously seen ellipsis with size {prev} for the respective "
                               f"dimension")
                raise _err(f"subscript {_name(lab, ell_nd)} has size {n} for operand {k} which "
                           f"does not broadcast with previously seen size {prev}")
        for lab in spec:
            counts[lab] = counts.get(lab, 0) + 1
        specs.append(tuple(spec))
    any_ell = any(e for _, e in parsed)
    if rhs is None:
        out = list(range(ell_nd)) if any_ell else []
        out += sorted(lab for lab, c in counts.items() if lab >= ell_nd and c == 1)
    else:
        labels, ell = _parse_term(rhs, rhs_off, "the output")
        out = []
        for c in labels:
            if c == "...":
                out.extend(range(ell_nd))
                continue
            lab = ids[c]
            if lab in out:
                raise _err(f"output subscript {c} appears more than once in the output")
            if lab not in counts:
                raise _err(f"output subscript {c} does not appear in the equation for any "
                           f"input operand")
            out.append(lab)
    for lab in range(ell_nd):  # ellipsis dimensions that no operand has: size 1
        sizes.setdefault(lab, 1)
    return specs, tuple(out), sizes


def _name(lab: int, ell_nd: int) -> str:
    return _LETTERS[lab - ell_nd] if lab >= ell_nd else "..."


# --- the engine (any namespace: a backend's on raw arrays, or arrayflow's on Tensors) -----

def _path(specs: list[tuple[int, ...]], out: tuple[int, ...], sizes: dict[int, int],
          optimize: Any) -> list[tuple[int, ...]]:
    """The pairwise contraction order: opt_einsum's when installed, else left to right."""
    n = len(specs)
    if isinstance(optimize, (list, tuple)):
        path = [tuple(p) for p in optimize if not isinstance(p, str)]
        return path
    if n <= 2 or optimize is False:
        return [(0, 1)] * (n - 1)
    try:
        import opt_einsum
    except ImportError:
        if optimize not in (True, "auto"):
            raise ModuleNotFoundError(
                f"einsum(): optimize={optimize!r} needs opt_einsum (pip install opt_einsum)"
            ) from None
        return [(0, 1)] * (n - 1)
    sym = opt_einsum.get_symbol
    eq = ",".join("".join(sym(lab) for lab in s) for s in specs) + "->" + "".join(
        sym(lab) for lab in out)
    shapes = [tuple(sizes[lab] for lab in s) for s in specs]
    strategy = "auto" if optimize is True else optimize
    path, _ = opt_einsum.contract_path(eq, *shapes, shapes=True, optimize=strategy)
    return [tuple(p) for p in path]


def _permute(xp, x, labels: list[int], order: list[int]):
    perm = tuple(labels.index(lab) for lab in order)
    if perm == tuple(range(len(perm))):
        return x
    return xp.permute_dims(x, perm)


def _is_bool(xp, x) -> bool:
    return x.dtype == xp.bool


def _prepare(xp, x, spec: tuple[int, ...], sizes: dict[int, int]):
    """Drop broadcast dimensions and take diagonals: ``(array, unique labels)``."""
    labels = list(spec)
    bcast = tuple(p for p, lab in enumerate(labels) if x.shape[p] == 1 and sizes[lab] != 1)
    if bcast:
        x = xp.squeeze(x, axis=bcast)
        labels = [lab for p, lab in enumerate(labels) if p not in bcast]
    while len(set(labels)) < len(labels):
        lab = next(v for v in labels if labels.count(v) > 1)
        p = labels.index(lab)
        q = labels.index(lab, p + 1)
        rest = [i for i in range(len(labels)) if i not in (p, q)]
        x = xp.linalg.diagonal(xp.permute_dims(x, tuple(rest + [p, q])))
        labels = [labels[i] for i in rest] + [lab]
    return x, labels


def _sum(xp, x, labels: list[int], drop: list[int]):
    if not drop:
        return x, labels
    axes = tuple(labels.index(lab) for lab in drop)
    return xp.sum(x, axis=axes), [lab for lab in labels if lab not in drop]


def _pair(xp, a, la: list[int], b, lb: list[int], keep: set[int], sizes: dict[int, int]):
    a, la = _sum(xp, a, la, [lab for lab in la if lab not in lb and lab not in keep])
    b, lb = _sum(xp, b, lb, [lab for lab in lb if lab not in la and lab not in keep])
    shared = [lab for lab in la if lab in lb]
    batch = [lab for lab in shared if lab in keep]
    con = [lab for lab in shared if lab not in keep]
    fa = [lab for lab in la if lab not in shared]
    fb = [lab for lab in lb if lab not in shared]
    if con and (_is_bool(xp, a) or _is_bool(xp, b)):
        raise NotImplementedError("einsum(): \"bmm\" not implemented for 'Bool' (a "
                                  "contraction of boolean operands, as PyTorch)")
    if not con:  # a broadcast product
        a = _permute(xp, a, la, batch + fa)
        b = _permute(xp, b, lb, batch + fb)
        a = xp.reshape(a, tuple(a.shape) + (1,) * len(fb))
        b = xp.reshape(b, tuple(b.shape[:len(batch)]) + (1,) * len(fa)
                       + tuple(b.shape[len(batch):]))
        r = xp.logical_and(a, b) if _is_bool(xp, a) and _is_bool(xp, b) else a * b
        return r, batch + fa + fb
    if not batch:
        r = xp.tensordot(a, b, axes=([la.index(lab) for lab in con],
                                     [lb.index(lab) for lab in con]))
        return r, fa + fb
    a = _permute(xp, a, la, batch + fa + con)
    b = _permute(xp, b, lb, batch + con + fb)
    bs = tuple(sizes[lab] for lab in batch)
    m = _prod(sizes[lab] for lab in fa)
    k = _prod(sizes[lab] for lab in con)
    n = _prod(sizes[lab] for lab in fb)
    r = xp.matmul(xp.reshape(a, bs + (m, k)), xp.reshape(b, bs + (k, n)))
    r = xp.reshape(r, bs + tuple(sizes[lab] for lab in fa + fb))
    return r, batch + fa + fb


def _prod(it) -> int:
    p = 1
    for v in it:
        p *= v
    return p


def _contract(xp, specs: list[tuple[int, ...]], out: tuple[int, ...], arrays: list,
              sizes: dict[int, int], optimize: Any):
    """The einsum of ``arrays`` (labelled by ``specs``) into ``out``; output labels that no
    operand has are broadcast to their ``sizes``."""
    items = [_prepare(xp, x, s, sizes) for x, s in zip(arrays, specs)]
    outs = set(out)
    prepared = []
    for k, (x, labels) in enumerate(items):
        others = {lab for j, (_, lj) in enumerate(items) if j != k for lab in lj}
        prepared.append(_sum(xp, x, labels,
                             [lab for lab in labels if lab not in outs and lab not in others]))
    if len(prepared) > 1:
        path = _path([tuple(lb) for _, lb in prepared], out, sizes, optimize)
        for step in path:
            picked = [prepared[i] for i in step]
            rest = [p for i, p in enumerate(prepared) if i not in step]
            keep = outs | {lab for _, lb in rest for lab in lb}
            x, lx = picked[0]
            for j, (y, ly) in enumerate(picked[1:]):
                later = {lab for _, lb in picked[j + 2:] for lab in lb}
                x, lx = _pair(xp, x, lx, y, ly, keep | later, sizes)
            if len(picked) == 1:
                x, lx = _sum(xp, x, lx, [lab for lab in lx if lab not in keep])
            prepared = rest + [(x, lx)]
        if len(prepared) != 1:
            raise ValueError(f"einsum(): the contraction path {path} leaves "
                             f"{len(prepared)} operands")
    x, labels = prepared[0]
    x, labels = _sum(xp, x, labels, [lab for lab in labels if lab not in outs])
    missing = [lab for lab in out if lab not in labels]
    if missing:  # labels of the output that no operand has (gradients of sums)
        x = xp.reshape(x, tuple(x.shape) + (1,) * len(missing))
        labels = labels + missing
        x = _permute(xp, x, labels, list(out))
        return xp.broadcast_to(x, tuple(sizes[lab] for lab in out))
    return _permute(xp, x, labels, list(out))


def _embed(xp, r, target: list[int], spec: tuple[int, ...], shape: tuple[int, ...]):
    """``r`` (labels ``target``) laid out as an operand of labels ``spec`` and ``shape``:
    broadcast dimensions back as size 1, repeated labels as diagonals (zeros elsewhere)."""
    first: dict[int, int] = {}
    new_shape = []
    for p, lab in enumerate(spec):
        if lab in target and lab not in first:
            first[lab] = p
            new_shape.append(shape[p])
        else:
            new_shape.append(1)
    r = xp.reshape(r, tuple(new_shape))
    for q, lab in enumerate(spec):
        f = first.get(lab)
        if f is None or f == q:
            continue
        n = shape[f]
        mshape = [1] * len(spec)
        mshape[f] = mshape[q] = n
        mask = xp.reshape(xp.eye(n, dtype=xp.bool), tuple(mshape))
        r = xp.where(mask, r, xp.zeros((), dtype=r.dtype))
    return r


# --- the op -------------------------------------------------------------------------------

def _check(ops: list, layout: str) -> None:
    for k, x in enumerate(ops):
        if isinstance(x, _SCALARS) or not hasattr(x, "shape"):
            where = f"operand {k}" if layout != "sub" else f"argument {2 * k}"
            raise TypeError(f"einsum(): expected a Tensor as {where}, but got "
                            f"{type(x).__name__}")
    d0 = ops[0].dtype
    for k, x in enumerate(ops[1:], 1):
        if x.dtype != d0:
            raise RuntimeError(f"einsum(): expected every operand to have one dtype (as "
                               f"PyTorch), but operand 0 is {d0} and operand {k} is {x.dtype}")


def _positions(layout: str, n: int) -> list[tuple[int, int | None]]:
    if layout == "str":
        return [(k + 1, None) for k in range(n)]
    if layout == "list":
        return [(1, k) for k in range(n)]
    return [(2 * k, None) for k in range(n)]


@op("einsum", section="torch", dtypes="numeric", complex_ok=True)
def einsum(xp, equation: str | Array, /, *operands: Array | Sequence[Any],
           optimize: bool | str | Sequence[tuple[int, ...]] = "auto"):
    """Einstein summation of ``operands`` as ``equation`` says (PyTorch's ``einsum``).

    Parameters
    ----------
    equation : str
        ``"ij,jk->ik"``: one comma-separated term of letters ``[a-zA-Z]`` per operand
        (at most one ``...`` each: broadcast leading dimensions), then optionally ``->``
        and the output's labels. Without ``->`` the output is the ellipsis dimensions
        followed by the labels that occur once, in alphabetical order (upper case first).
        A label repeated within a term takes the diagonal; labels left out of the output
        are summed (ellipsis dimensions too). Spaces are ignored.
    *operands : Tensor
        One per term, of one dtype. Also accepted as PyTorch does: ``einsum(equation,
        [op0, op1])`` and the sublist form ``einsum(op0, [0, 1], op1, [1, 2], [0, 2])``
        (integers in ``[0, 52)`` and ``...`` for the labels).
    optimize : bool, str or sequence of tuples, default "auto"
        The pairwise contraction order (the result is the same whatever the order):
        ``"auto"``/``True`` use :func:`opt_einsum.contract_path` when opt_einsum is
        installed (PyTorch's default) and left to right otherwise; another opt_einsum
        strategy (``"greedy"``, ``"optimal"``, ...) needs opt_einsum; ``False`` is left
        to right; a list of index tuples is an explicit path (opt_einsum's format).
        PyTorch sets this globally (``torch.backends.opt_einsum.strategy``).

    Returns
    -------
    Tensor
        The output labels' sizes (a size-1 dimension broadcast against a larger one), the
        operands' dtype (a sum of integers or booleans over one operand alone is the
        default integer dtype, as PyTorch's). Differentiable in every floating operand,
        to any order, in both modes.

    Raises
    ------
    RuntimeError
        For an equation PyTorch rejects (invalid subscripts, wrong number of terms or of
        dimensions, sizes that do not broadcast, an output label repeated or absent from
        the inputs), with PyTorch's message; operands of different dtypes.
    ValueError
        No operand, or a sublist label outside ``[0, 52)``.
    TypeError
        An operand that is not a Tensor (a Python number).
    NotImplementedError
        A contraction of boolean operands (PyTorch's ``bmm`` has no boolean kernel).

    Notes
    -----
    Source: PyTorch ``torch.einsum`` (not in the array API standard), computed with the
    standard's ``tensordot``, ``matmul``, ``permute_dims``, ``sum`` and
    ``linalg.diagonal``. Gradient: each operand's is the einsum of the cotangent with the
    conjugates of the other operands into its labels.
    """
    eq, ops, layout = _normalize((equation,) + operands)
    _check(ops, layout)
    specs, out, sizes = _parse(eq, [tuple(x.shape) for x in ops])
    opt = tuple(tuple(p) for p in optimize) if isinstance(optimize, list) else optimize
    r = _contract(xp, specs, out, ops, sizes, opt)
    meta = (tuple(specs), out, tuple(sorted(sizes.items())), opt, layout, len(ops))
    return r, (meta, *ops)


@einsum.defvjp
def _einsum_vjp(xp, res, g, needs=None):
    (specs, out, sizes_t, opt, layout, n), ops = res[0], res[1:]
    sizes = dict(sizes_t)
    pos = _positions(layout, n)
    grads: list[Any] = [None] * n
    for k in range(n):
        if needs is not None and pos[k][0] not in needs:
            continue
        spec = specs[k]
        shape = tuple(ops[k].shape)
        target: list[int] = []
        for p, lab in enumerate(spec):
            if lab not in target and not (shape[p] == 1 and sizes[lab] != 1):
                target.append(lab)
        others = [j for j in range(n) if j != k]
        r = _contract(xp, [out] + [specs[j] for j in others], tuple(target),
                      [g] + [_cj(xp, ops[j]) for j in others], sizes,
                      opt if not isinstance(opt, tuple) else "auto")
        grads[k] = _embed(xp, r, target, spec, shape)
    if layout == "list":
        return (None, tuple(grads))
    result: list[Any] = [None] * (max(p for p, _ in pos) + 1)
    for (p, _), gk in zip(pos, grads):
        result[p] = gk
    return tuple(result)


@einsum.defjvp
def _einsum_jvp(xp, tangents, out, *args, optimize="auto"):
    eq, ops, layout = _normalize(args)
    if layout == "list":
        raise NotImplementedError(
            "arrayflow.einsum: forward-mode AD of einsum(equation, [operands]) (operands in "
            "a list) is not supported: pass them as separate arguments, "
            "einsum(equation, *operands)")
    flat = tangents.get("operands") or (None,) * (len(args) - 1)
    at = [tangents.get("equation")] + list(flat)
    pos = _positions(layout, len(ops))
    total = None
    for k, (p, _) in enumerate(pos):
        t = at[p]
        if t is None:
            continue
        term = xp.einsum(eq, *[t if j == k else x for j, x in enumerate(ops)],
                         optimize=optimize)
        total = term if total is None else total + term
    return total


@einsum.defbatch
def _einsum_batch(op_, public, args, kwargs):
    # vmap: one fresh label per vmap level in front of every term and of the output (a
    # size-1 dimension for an operand not batched at that level broadcasts)
    if not args or not isinstance(args[0], str):
        return _bu.fallback_op(op_, public, args, kwargs)
    eq, ops, layout = _normalize(args)
    levels = _bu.union(ops)
    free = [c for c in _LETTERS if c not in eq]
    if layout != "str" or len(free) < len(levels):
        return _bu.fallback_op(op_, public, args, kwargs)
    front = "".join(free[:len(levels)])
    lhs, arrow, rhs = eq.replace(" ", "").partition("->")
    terms = [front + t for t in lhs.split(",")]
    if not arrow:  # the implicit output written out: the new labels must come first
        letters = [c for c in lhs if c in _LETTERS]
        rhs = ("..." if "..." in lhs else "") + "".join(
            sorted(c for c in set(letters) if letters.count(c) == 1))
    new = ",".join(terms) + "->" + front + rhs
    phys = [_bu.aligned(x, levels) for x in ops]
    return _bu.make(public(new, *phys, **kwargs), levels, _bu.origin(ops))
