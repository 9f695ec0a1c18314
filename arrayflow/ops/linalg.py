"""Linear algebra: the main namespace's functions and the ``linalg`` extension
(array API standard 2025.12, "Linear Algebra Functions" and "Linear Algebra
Extension").

Where a backend's namespace lacks a function, a fallback written against the
standard serves (``cross``, ``matrix_power``, ``pinv``); functions that cannot
be built from the standard raise ``NotImplementedError`` naming the backend.
"""

from __future__ import annotations

from typing import NamedTuple

from .. import _backend
from ._registry import op

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot", "LINALG"]

_L = "arrayflow.linalg"


class SVDResult(NamedTuple):
    """``linalg.svd``'s result (array API standard 2025.12)."""

    U: object
    S: object
    Vh: object


@op("matmul", promote=("x1", "x2"), mixed_kinds="raise", aliases=("mm",))
def matmul(xp, x1, x2, /):
    """Matrix product with broadcasting over leading dimensions (``@``).

    1-D operands are promoted to matrices and the added dimension removed.
    Source: array API standard 2025.12, ``matmul`` (PyTorch ``mm``/``matmul``).
    """
    return xp.matmul(x1, x2), (x1, x2, x1.shape, x2.shape)


@op("matrix_transpose")
def matrix_transpose(xp, x, /):
    """Swap the last two dimensions of ``x`` (``x.mT``).

    Source: array API standard 2025.12, ``matrix_transpose``.
    """
    return xp.matrix_transpose(x), ()


@op("tensordot", promote=("x1", "x2"), mixed_kinds="raise")
def tensordot(xp, x1, x2, /, *, axes=2):
    """Tensor contraction over ``axes`` (an int, or two sequences of axes).

    Source: array API standard 2025.12, ``tensordot``.
    """
    return xp.tensordot(x1, x2, axes=axes), (x1, x2, axes)


@op("vecdot", promote=("x1", "x2"), mixed_kinds="raise")
def vecdot(xp, x1, x2, /, *, axis=-1):
    """Dot product of vectors along ``axis`` (conjugating ``x1`` for complex).

    Source: array API standard 2025.12, ``vecdot``.
    """
    return xp.vecdot(x1, x2, axis=axis), (x1, x2, axis)


def _missing(xp, name):
    raise NotImplementedError(
        f"arrayflow.linalg.{name}: the backend namespace {xp.__name__!r} has no "
        f"linalg.{name}, and it cannot be written with standard functions"
    )


def _la(xp, name):
    fn = getattr(xp.linalg, name, None)
    if fn is None:
        _missing(xp, name)
    return fn


@op("linalg.cholesky", module=_L)
def cholesky(xp, x, /, *, upper=False):
    """Cholesky factor of Hermitian positive-definite matrices (lower unless ``upper``).

    Shape ``(..., M, M)``. Source: array API 2025.12, ``linalg.cholesky``.
    """
    y = _la(xp, "cholesky")(x, upper=upper)
    return y, (y, upper)


@op("linalg.cross", module=_L, promote=("x1", "x2"), mixed_kinds="raise")
def cross(xp, x1, x2, /, *, axis=-1):
    """Cross product of 3-element vectors along ``axis``.

    Source: array API 2025.12, ``linalg.cross``.
    """
    fn = getattr(xp.linalg, "cross", None)
    if fn is not None:
        return fn(x1, x2, axis=axis), (x1, x2, axis)
    nd1, nd2 = x1.ndim, x2.ndim
    a = [x1[(slice(None),) * (axis % nd1) + (slice(i, i + 1), Ellipsis)] for i in range(3)]
    b = [x2[(slice(None),) * (axis % nd2) + (slice(i, i + 1), Ellipsis)] for i in range(3)]
    y = xp.concat([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                   a[0] * b[1] - a[1] * b[0]], axis=axis)
    return y, (x1, x2, axis)


@op("linalg.det", module=_L)
def det(xp, x, /):
    """Determinant of square matrices ``(..., M, M)`` -> ``(...)``.

    Source: array API 2025.12, ``linalg.det``.
    """
    y = _la(xp, "det")(x)
    return y, (x, y)


@op("linalg.diagonal", module=_L)
def diagonal(xp, x, /, *, offset=0):
    """The ``offset``-th diagonal of the last two dimensions.

    Source: array API 2025.12, ``linalg.diagonal``.
    """
    return xp.linalg.diagonal(x, offset=offset), (x.shape, offset)


@op("linalg.eigh", module=_L, out="tuple")
def eigh(xp, x, /):
    """Eigenvalues (ascending) and eigenvectors of Hermitian matrices (named tuple).

    Source: array API 2025.12, ``linalg.eigh``.
    """
    res = _la(xp, "eigh")(x)
    return res, tuple(res)


@op("linalg.eigvalsh", module=_L)
def eigvalsh(xp, x, /):
    """Eigenvalues (ascending) of Hermitian matrices. Source: array API 2025.12."""
    return _la(xp, "eigvalsh")(x), (x,)


@op("linalg.eig", module=_L, out="tuple")
def eig(xp, x, /):
    """Eigenvalues and eigenvectors of general square matrices (complex results).

    Source: array API 2025.12, ``linalg.eig``.
    """
    res = _la(xp, "eig")(x)
    return res, tuple(res)


@op("linalg.eigvals", module=_L)
def eigvals(xp, x, /):
    """Eigenvalues of general square matrices (complex). Source: array API 2025.12."""
    return _la(xp, "eigvals")(x), (x,)


@op("linalg.inv", module=_L)
def inv(xp, x, /):
    """Inverse of square matrices. Source: array API 2025.12, ``linalg.inv``."""
    y = _la(xp, "inv")(x)
    return y, (y,)


@op("linalg.matrix_norm", module=_L)
def matrix_norm(xp, x, /, *, keepdims=False, ord="fro"):
    """Matrix norm over the last two dimensions (``ord``: "fro", "nuc", 1, 2, inf, ...).

    Source: array API 2025.12, ``linalg.matrix_norm``.
    """
    y = xp.linalg.matrix_norm(x, keepdims=keepdims, ord=ord)
    return y, (x, y, keepdims, ord)


@op("linalg.matrix_power", module=_L)
def matrix_power(xp, x, n, /):
    """``x`` raised to the integer power ``n`` (negative: of the inverse).

    Source: array API 2025.12, ``linalg.matrix_power``.
    """
    fn = getattr(xp.linalg, "matrix_power", None)
    if fn is not None:
        return fn(x, n), (x, n)
    base = _la(xp, "inv")(x) if n < 0 else x
    k = abs(n)
    eye = xp.eye(x.shape[-1], dtype=x.dtype)
    result = xp.broadcast_to(eye, x.shape) if k == 0 else None
    while k:
        if k & 1:
            result = base if result is None else xp.matmul(result, base)
        k >>= 1
        if k:
            base = xp.matmul(base, base)
    return result, (x, n)


@op("linalg.matrix_rank", module=_L, differentiable=False)
def matrix_rank(xp, x, /, *, rtol=None):
    """Rank of matrices: singular values above ``rtol * largest``.

    Source: array API 2025.12, ``linalg.matrix_rank``.
    """
    return xp.linalg.matrix_rank(x, rtol=rtol)


@op("linalg.outer", module=_L, promote=("x1", "x2"))
def outer(xp, x1, x2, /):
    """Outer product of two 1-D Tensors. Source: array API 2025.12, ``linalg.outer``."""
    return xp.linalg.outer(x1, x2), (x1, x2)


@op("linalg.pinv", module=_L)
def pinv(xp, x, /, *, rtol=None):
    """Moore-Penrose pseudo-inverse; singular values below ``rtol * largest`` are dropped.

    Source: array API 2025.12, ``linalg.pinv``.
    """
    fn = getattr(xp.linalg, "pinv", None)
    if fn is not None:
        y = fn(x, rtol=rtol)
    else:
        u, s, vh = _la(xp, "svd")(x, full_matrices=False)
        if rtol is None:
            rtol = max(x.shape[-2:]) * xp.finfo(x.dtype).eps
        cutoff = rtol * xp.max(s, axis=-1, keepdims=True)
        s_inv = xp.where(s > cutoff, 1 / s, xp.zeros_like(s))
        y = xp.matmul(_mH(xp, vh) * s_inv[..., None, :], _mH(xp, u))
    return y, (x, y)


@op("linalg.qr", module=_L, out="tuple")
def qr(xp, x, /, *, mode="reduced"):
    """QR decomposition (named tuple ``Q, R``); ``mode`` "reduced" or "complete".

    Source: array API 2025.12, ``linalg.qr``.
    """
    res = xp.linalg.qr(x, mode=mode)
    return res, (tuple(res), mode)


@op("linalg.slogdet", module=_L, out="tuple")
def slogdet(xp, x, /):
    """Sign and natural log of the absolute determinant (named tuple ``sign, logabsdet``).

    Source: array API 2025.12, ``linalg.slogdet``.
    """
    res = _la(xp, "slogdet")(x)
    return res, (x,)


@op("linalg.solve", module=_L, promote=("x1", "x2"), mixed_kinds="raise")
def solve(xp, x1, x2, /):
    """Solve ``x1 @ y = x2`` for ``y`` (square ``x1``).

    Source: array API 2025.12, ``linalg.solve``.
    """
    y = _la(xp, "solve")(x1, x2)
    return y, (x1, y)


@op("linalg.svd", module=_L, out="tuple")
def svd(xp, x, /, *, full_matrices=True):
    """Singular value decomposition (named tuple ``U, S, Vh``).

    Source: array API 2025.12, ``linalg.svd``.
    """
    U, S, Vh = _la(xp, "svd")(x, full_matrices=full_matrices)
    res = SVDResult(U, S, Vh)  # the standard's named tuple on every backend
    return res, ((U, S, Vh), full_matrices)


@op("linalg.svdvals", module=_L)
def svdvals(xp, x, /):
    """Singular values, descending. Source: array API 2025.12, ``linalg.svdvals``."""
    return _la(xp, "svdvals")(x), (x,)


@op("linalg.trace", module=_L)
def trace(xp, x, /, *, offset=0, dtype=None):
    """Sum along the ``offset``-th diagonal of the last two dimensions.

    Source: array API 2025.12, ``linalg.trace``.
    """
    return xp.linalg.trace(x, offset=offset, dtype=dtype), (x.shape, offset)


@op("linalg.vector_norm", module=_L)
def vector_norm(xp, x, /, *, axis=None, keepdims=False, ord=2):
    """Vector ``ord``-norm over ``axis`` (all elements when None).

    Source: array API 2025.12, ``linalg.vector_norm``.
    """
    y = xp.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)
    return y, (x, y, axis, keepdims, ord)


LINALG = {
    "cholesky": cholesky, "cross": cross, "det": det, "diagonal": diagonal, "eig": eig,
    "eigh": eigh, "eigvals": eigvals, "eigvalsh": eigvalsh, "inv": inv, "matmul": matmul,
    "matrix_norm": matrix_norm, "matrix_power": matrix_power, "matrix_rank": matrix_rank,
    "matrix_transpose": matrix_transpose, "outer": outer, "pinv": pinv, "qr": qr,
    "slogdet": slogdet, "solve": solve, "svd": svd, "svdvals": svdvals,
    "tensordot": tensordot, "trace": trace, "vecdot": vecdot, "vector_norm": vector_norm,
}
"""The ``arrayflow.linalg`` namespace: name -> public function."""


# --- VJPs ------------------------------------------------------------------------------------
# Matrix calculus; complex inputs follow PyTorch's convention (see _vjp_util): the real
# rules with conjugate transposes (``_mH``) where they have transposes of residuals.
# Sources: Giles, "An extended collection of matrix derivative results" (2008); Townsend,
# "Differentiating the singular value decomposition" (2016); PyTorch FunctionsManual.cpp.

from ._vjp_util import cj as _cj  # noqa: E402
from ._vjp_util import is_complex as _is_complex  # noqa: E402
from ._vjp_util import mark_complex_ok as _mark_complex_ok  # noqa: E402
from ._vjp_util import sum_to_shape as _sum_to  # noqa: E402
from ._vjp_util import unreduce as _unreduce  # noqa: E402


def _mT(xp, a):
    return xp.matrix_transpose(a)


def _mH(xp, a):
    """Conjugate transpose (the transpose of a real matrix)."""
    return _cj(xp, xp.matrix_transpose(a))


_PHASE = ("The {what} in the complex case are specified up to multiplication by e^{{i phi}}. "
          "The specified loss function depends on this {term}, so it is ill-defined.")


def _check_phase_invariance(xp, im, where, what, term="quantity"):
    """PyTorch's check that a loss ignores the phase of each complex eigen- or singular
    vector (``im``: the imaginary diagonal the phase would change, ~0): RuntimeError
    otherwise. It reads values, so lazy backends skip it (documented difference)."""
    probe = im._cell.array if hasattr(im, "_cell") else im
    b = _backend.backend_of_array(probe)
    if b is None or b.lazy:
        return
    if not bool(xp.all(xp.abs(im) <= 1e-2)):
        raise RuntimeError(f"{where}: " + _PHASE.format(what=what, term=term))


matmul.res_needs = {0: {1}, 1: {0}}


@matmul.defvjp
def _matmul_vjp(xp, res, g, needs=(0, 1)):
    # An operand is None when only the other's gradient is wanted (res_needs): a's gradient
    # needs b, b's gradient needs a, in every branch.
    a, b, sa, sb = res
    want_a, want_b = 0 in needs, 1 in needs
    if len(sa) >= 2 and len(sb) >= 2:  # the common case
        return (_sum_to(xp, xp.matmul(g, _mH(xp, b)), sa) if want_a else None,
                _sum_to(xp, xp.matmul(_mH(xp, a), g), sb) if want_b else None)
    if len(sa) == 1 and len(sb) == 1:
        return (g * _cj(xp, b) if want_a else None, g * _cj(xp, a) if want_b else None)
    if len(sa) == 1:  # (k,) @ (..., k, n) -> (..., n)
        ga = gb = None
        if want_a:
            ga = _sum_to(xp, xp.matmul(xp.expand_dims(g, axis=-2), _mH(xp, b))[..., 0, :], sa)
        if want_b:
            gb = _sum_to(xp, xp.expand_dims(_cj(xp, a), axis=-1) * xp.expand_dims(g, axis=-2),
                         sb)
        return ga, gb
    # (..., m, k) @ (k,) -> (..., m)
    ga = _sum_to(xp, xp.expand_dims(g, axis=-1) * _cj(xp, b), sa) if want_a else None
    gb = _sum_to(xp, xp.matmul(_mH(xp, a), xp.expand_dims(g, axis=-1))[..., 0], sb) \
        if want_b else None
    return ga, gb


@matrix_transpose.defvjp
def _matrix_transpose_vjp(xp, res, g):
    return (_mT(xp, g),)


def _tensordot_axes(axes, na, nb):
    if isinstance(axes, int):
        return list(range(na - axes, na)), list(range(axes))
    a_ax, b_ax = axes
    return [x % na for x in a_ax], [x % nb for x in b_ax]


def _inverse(perm):
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


@tensordot.defvjp
def _tensordot_vjp(xp, res, g):
    a, b, axes = res
    a_ax, b_ax = _tensordot_axes(axes, a.ndim, b.ndim)
    a_free = [i for i in range(a.ndim) if i not in a_ax]
    b_free = [i for i in range(b.ndim) if i not in b_ax]
    nfa = len(a_free)
    # grad_a: contract g's b-free dims with b's free dims -> dims a_free + b_ax (b order)
    ga = xp.tensordot(g, _cj(xp, b), axes=(list(range(nfa, g.ndim)), b_free))
    b_rest = [i for i in range(b.ndim) if i in b_ax]  # b's contracted dims, ascending
    order_a = a_free + [a_ax[b_ax.index(i)] for i in b_rest]
    ga = xp.permute_dims(ga, _inverse(order_a))
    gb = xp.tensordot(_cj(xp, a), g, axes=(a_free, list(range(nfa))))
    a_rest = [i for i in range(a.ndim) if i in a_ax]
    order_b = [b_ax[a_ax.index(i)] for i in a_rest] + b_free
    gb = xp.permute_dims(gb, _inverse(order_b))
    return ga, gb


@vecdot.defvjp
def _vecdot_vjp(xp, res, g):
    a, b, axis = res
    # y = sum(conj(a) * b): antiholomorphic in a (conj(g) * b), holomorphic in b (g * a).
    ge = xp.expand_dims(g, axis=axis)  # the standard's axis is negative
    return _sum_to(xp, _cj(xp, ge) * b, a.shape), _sum_to(xp, ge * a, b.shape)


@cholesky.defvjp
def _cholesky_vjp(xp, res, g):
    # A = L L^H; PyTorch's cholesky_backward (Murray 2016): P = tril(L^H gL),
    # gA = L^{-H} (P + tril(P, -1)^H) / 2 L^{-1}.
    y, upper = res
    L = _mH(xp, y) if upper else y
    gL = _mH(xp, g) if upper else g
    P = xp.tril(xp.matmul(_mH(xp, L), gL))
    P = 0.5 * (P + _mH(xp, xp.tril(P, k=-1)))
    Linv = xp.linalg.inv(L)
    return (xp.matmul(xp.matmul(_mH(xp, Linv), P), Linv),)


@cross.defvjp
def _cross_vjp(xp, res, g):
    a, b, axis = res
    fwd = cross.forward if not hasattr(xp, "index_put") else (
        lambda xp_, u, v, axis: (xp_.linalg.cross(u, v, axis=axis), None))
    return (_sum_to(xp, fwd(xp, _cj(xp, b), g, axis=axis)[0], a.shape),
            _sum_to(xp, fwd(xp, g, _cj(xp, a), axis=axis)[0], b.shape))


@det.defvjp
def _det_vjp(xp, res, g):
    # PyTorch: (g * conj(det)) A^{-H}, solved with A's LU factors: 0 where det == 0 (the
    # identity stands in for an exactly singular matrix, whose inverse does not exist).
    x, y = res
    singular = xp.expand_dims(xp.expand_dims(y == 0, axis=-1), axis=-1)
    eye = xp.eye(x.shape[-1], dtype=x.dtype)
    safe = xp.where(singular, eye, x)
    return (xp.expand_dims(xp.expand_dims(g * _cj(xp, y), axis=-1), axis=-1)
            * _mH(xp, xp.linalg.inv(safe)),)


@diagonal.defvjp
def _diagonal_vjp(xp, res, g):
    shape, offset = res
    m, n = shape[-2], shape[-1]
    eye = xp.eye(m, n, k=offset, dtype=g.dtype)
    L = g.shape[-1]
    lead = tuple(g.shape[:-1])
    if offset >= 0:  # element (i, i + k) comes from g[..., i]: index by row
        rows = g if L == m else xp.concat(
            [g, xp.zeros(lead + (m - L,), dtype=g.dtype)], axis=-1)
        return (xp.expand_dims(rows, axis=-1) * eye,)
    cols = g if L == n else xp.concat([g, xp.zeros(lead + (n - L,), dtype=g.dtype)], axis=-1)
    return (xp.expand_dims(cols, axis=-2) * eye,)


def _eigh_grad(xp, w, V, gw, gV):
    # gA = V (diag(gw) + F o (V^H gV)) V^H, F_ij = 1/(w_j - w_i); made Hermitian.
    inner = xp.expand_dims(gw, axis=-1) * xp.eye(w.shape[-1], dtype=w.dtype)
    if gV is not None:
        diff = xp.expand_dims(w, axis=-2) - xp.expand_dims(w, axis=-1)
        eye = xp.eye(w.shape[-1], dtype=w.dtype)
        F = (1 - eye) / (diff + eye)
        VhgV = xp.matmul(_mH(xp, V), gV)
        if _is_complex(xp, V):
            _check_phase_invariance(xp, xp.imag(xp.linalg.diagonal(VhgV)),
                                    "linalg_eigh_backward", "eigenvectors")
        inner = inner + F * VhgV
    gA = xp.matmul(xp.matmul(V, inner), _mH(xp, V))
    return 0.5 * (gA + _mH(xp, gA))


@eigh.defvjp
def _eigh_vjp(xp, res, gw, gV):
    w, V = res
    return (_eigh_grad(xp, w, V, gw, gV),)


@eigvalsh.defvjp
def _eigvalsh_vjp(xp, res, g):
    (x,) = res
    w, V = xp.linalg.eigh(x)
    return (_eigh_grad(xp, w, V, g, None),)


@inv.defvjp
def _inv_vjp(xp, res, g):
    (y,) = res
    yt = _mH(xp, y)
    return (-xp.matmul(xp.matmul(yt, g), yt),)


@matrix_norm.defvjp
def _matrix_norm_vjp(xp, res, g):
    x, y, keepdims, ord = res
    if not keepdims:
        g = xp.expand_dims(xp.expand_dims(g, axis=-1), axis=-1)
        y = xp.expand_dims(xp.expand_dims(y, axis=-1), axis=-1)
    if ord == "fro":
        safe = xp.where(y == 0, xp.ones_like(y), y)
        return (xp.where(y == 0, xp.zeros_like(x), g * x / safe),)
    if ord == "nuc" or ord in (2, -2):
        # The gradient of singular value k is u_k vh_k; 2 / -2 are amax / amin of the
        # singular values: ties split the gradient evenly (PyTorch).
        u, s, vh = xp.linalg.svd(x, full_matrices=False)
        if ord == "nuc":
            return (g * xp.matmul(u, vh),)
        pick = (xp.max if ord == 2 else xp.min)(s, axis=-1, keepdims=True)
        w = xp.astype(s == pick, s.dtype)
        w = w / xp.sum(w, axis=-1, keepdims=True)
        return (g * xp.matmul(u * xp.astype(xp.expand_dims(w, axis=-2), u.dtype), vh),)
    # 1, -1: max/min of column abs sums; inf, -inf: of row abs sums (ties split evenly).
    axis = -2 if ord in (1, -1) else -1
    sums = xp.sum(xp.abs(x), axis=axis, keepdims=True)
    pick = xp.max(sums, axis=-1 if axis == -2 else -2, keepdims=True) if ord in (1, float("inf")) \
        else xp.min(sums, axis=-1 if axis == -2 else -2, keepdims=True)
    mask = xp.astype(sums == pick, x.dtype)
    mask = mask / xp.sum(mask, axis=-1 if axis == -2 else -2, keepdims=True)
    return (g * xp.sign(x) * mask,)


@matrix_power.defvjp
def _matrix_power_vjp(xp, res, g):
    x, n = res
    if n == 0:
        return (xp.zeros_like(x), None)
    base = xp.linalg.inv(x) if n < 0 else x
    k = abs(n)
    powers = [None] * k  # powers[i] = base^i (transposed later)
    eye = xp.broadcast_to(xp.eye(x.shape[-1], dtype=x.dtype), x.shape)
    powers[0] = eye
    for i in range(1, k):
        powers[i] = xp.matmul(powers[i - 1], base)
    gb = None
    for i in range(k):
        term = xp.matmul(xp.matmul(_mH(xp, powers[i]), g), _mH(xp, powers[k - 1 - i]))
        gb = term if gb is None else gb + term
    if n < 0:
        yt = _mH(xp, base)
        gb = -xp.matmul(xp.matmul(yt, gb), yt)
    return (gb, None)


@outer.defvjp
def _outer_vjp(xp, res, g):
    a, b = res
    return xp.matmul(g, _cj(xp, b)), xp.matmul(_mT(xp, g), _cj(xp, a))


@pinv.defvjp
def _pinv_vjp(xp, res, g):
    # PyTorch's pinv_backward.
    a, p = res
    m, n = a.shape[-2], a.shape[-1]
    ph = _mH(xp, p)
    gh = _mH(xp, g)
    if m <= n:
        K = xp.matmul(gh, p)
        KpH = xp.matmul(K, ph)
        ga = (-_mH(xp, xp.matmul(p, K)) + KpH - xp.matmul(xp.matmul(a, p), KpH)
              + xp.matmul(xp.matmul(ph, p), gh - xp.matmul(K, a)))
    else:
        K = xp.matmul(p, gh)
        pHK = xp.matmul(ph, K)
        ga = (-_mH(xp, xp.matmul(K, p)) + pHK - xp.matmul(pHK, xp.matmul(p, a))
              + xp.matmul(xp.matmul(gh - xp.matmul(a, K), p), ph))
    return (ga,)


@qr.defvjp
def _qr_vjp(xp, res, gQ, gR):
    # Reduced QR with m >= n (PyTorch linalg_qr_backward):
    # M = R gR^H - gQ^H Q; gA = (gQ + Q copyltu(M)) R^{-H}.
    (Q, R), mode = res
    m, n = Q.shape[-2], R.shape[-1]
    if m < n or (mode != "reduced" and m != n):  # square: 'complete' is 'reduced' (PyTorch)
        raise NotImplementedError(
            "arrayflow.linalg.qr: the gradient is implemented for mode='reduced' with "
            "rows >= columns, and for square input")
    M = xp.matmul(R, _mH(xp, gR)) - xp.matmul(_mH(xp, gQ), Q)
    low = xp.tril(M, k=-1)
    copyltu = low + _mH(xp, low) + xp.tril(xp.triu(M))
    b = gQ + xp.matmul(Q, copyltu)
    return (xp.matmul(b, _mH(xp, xp.linalg.inv(R))),)


@slogdet.defvjp
def _slogdet_vjp(xp, res, gsign, glogabs):
    # PyTorch's slogdet_backward: (glogabs + 1j * im(gsign * conj(sign))) A^{-H}; the
    # sign of a real matrix is piecewise constant.
    (x,) = res
    ge = glogabs
    if _is_complex(xp, x):
        sign = _la(xp, "slogdet")(x)[0]
        ge = xp.astype(ge, x.dtype) + 1j * xp.astype(xp.imag(gsign * xp.conj(sign)), x.dtype)
    return (xp.expand_dims(xp.expand_dims(ge, axis=-1), axis=-1)
            * _mH(xp, xp.linalg.inv(x)),)


@solve.defvjp
def _solve_vjp(xp, res, g):
    a, y = res
    vec = y.ndim == 1 or (y.ndim == a.ndim - 1 and g.ndim == y.ndim)
    gb = xp.linalg.solve(_mH(xp, a), g)
    if vec:
        ga = -xp.expand_dims(gb, axis=-1) * xp.expand_dims(_cj(xp, y), axis=-2)
    else:
        ga = -xp.matmul(gb, _mH(xp, y))
    return _sum_to(xp, ga, a.shape), gb


def _svd_grad(xp, U, S, Vh, gU, gS, gVh):
    # Townsend (2016), reduced SVD A = U diag(S) Vh; complex as PyTorch's svd_backward:
    # conjugate transposes, and the term 1j * im(diag(U^H gU)) / S on the diagonal.
    V = _mH(xp, Vh)
    k = S.shape[-1]
    eye = xp.eye(k, dtype=S.dtype)
    s_row = xp.expand_dims(S, axis=-2)
    s_col = xp.expand_dims(S, axis=-1)
    inner = xp.expand_dims(gS, axis=-1) * eye if gS is not None else 0
    if gU is not None or gVh is not None:
        diff = s_row * s_row - s_col * s_col  # s_j^2 - s_i^2
        F = (1 - eye) / (diff + eye)
        Sm = xp.expand_dims(S, axis=-1) * eye
        if _is_complex(xp, U):
            im = 0
            if gU is not None:
                im = im + xp.imag(xp.linalg.diagonal(xp.matmul(_mH(xp, U), gU)))
            if gVh is not None:
                im = im + xp.imag(xp.linalg.diagonal(xp.matmul(Vh, _mH(xp, gVh))))
            _check_phase_invariance(xp, im, "svd_backward", "singular vectors",
                                    "phase term")
        if gU is not None:
            UhgU = xp.matmul(_mH(xp, U), gU)
            J = F * (UhgU - _mH(xp, UhgU))
            inner = inner + xp.matmul(J, Sm)
            if _is_complex(xp, U):
                im = xp.imag(xp.linalg.diagonal(UhgU)) / S
                inner = inner + xp.astype(xp.expand_dims(im, axis=-1) * eye, U.dtype) * 1j
        if gVh is not None:
            gV = _mH(xp, gVh)
            VhgV = xp.matmul(Vh, gV)
            K = F * (VhgV - _mH(xp, VhgV))
            inner = inner + xp.matmul(Sm, K)
    gA = xp.matmul(xp.matmul(U, inner), Vh)
    m, n = U.shape[-2], Vh.shape[-1]
    s_inv = 1 / S
    if gU is not None and m > k:
        proj = xp.eye(m, dtype=U.dtype) - xp.matmul(U, _mH(xp, U))
        gA = gA + xp.matmul(xp.matmul(proj, gU) * xp.expand_dims(s_inv, axis=-2), Vh)
    if gVh is not None and n > k:
        proj = xp.eye(n, dtype=U.dtype) - xp.matmul(V, Vh)
        gA = gA + xp.matmul(U * xp.expand_dims(s_inv, axis=-2), xp.matmul(gVh, proj))
    return gA


@svd.defvjp
def _svd_vjp(xp, res, gU, gS, gVh):
    (U, S, Vh), full = res
    m, n = U.shape[-2], Vh.shape[-1]
    if full and m != n:
        raise NotImplementedError(
            "arrayflow.linalg.svd: the gradient with full_matrices=True is defined only for "
            "square matrices; use full_matrices=False")
    return (_svd_grad(xp, U, S, Vh, gU, gS, gVh),)


@svdvals.defvjp
def _svdvals_vjp(xp, res, g):
    (x,) = res
    U, S, Vh = xp.linalg.svd(x, full_matrices=False)
    return (_svd_grad(xp, U, S, Vh, None, g, None),)


@trace.defvjp
def _trace_vjp(xp, res, g):
    shape, offset = res
    m, n = shape[-2], shape[-1]
    eye = xp.eye(m, n, k=offset, dtype=g.dtype)
    return (xp.expand_dims(xp.expand_dims(g, axis=-1), axis=-1) * eye,)


@vector_norm.defvjp
def _vector_norm_vjp(xp, res, g):
    # PyTorch's norm_backward, zeros included: sgn(x) |x|^(p-1) scaled by g / norm^(p-1),
    # 0 where the norm is 0 (p >= 1) or where x is 0 (p < 1).
    x, y, axis, keepdims, ord = res
    ge = _unreduce(xp, g, x.shape, axis, keepdims)
    ye = _unreduce(xp, y, x.shape, axis, keepdims)
    if ord == 0:  # piecewise constant; PyTorch returns no gradient at all (grad stays None)
        return (None,)
    if ord == 1:
        return (ge * xp.sign(x),)
    if ord in (float("inf"), float("-inf")):
        mask = xp.astype(xp.abs(x) == ye, ge.dtype)
        count = _unreduce(xp, xp.sum(mask, axis=axis, keepdims=True), x.shape, axis, True)
        return (ge * xp.sign(x) * mask / count,)
    y0 = ye == 0
    safe_y = xp.where(y0, xp.ones_like(ye), ye)
    if ord == 2:
        return (x * xp.where(y0, xp.zeros_like(ge), ge / safe_y),)
    ax = xp.abs(x)
    if ord < 1:
        x0 = ax == 0
        d = xp.where(x0, xp.zeros_like(ax), xp.where(x0, xp.ones_like(ax), ax) ** (ord - 1))
        return (xp.sign(x) * d * (ge * ye ** (1 - ord)),)
    scale = xp.where(y0, xp.zeros_like(ge), ge / safe_y ** (ord - 1))
    return (xp.sign(x) * ax ** (ord - 1) * scale,)


def _eig_grad(xp, L, V, gL, gV):
    # PyTorch's linalg_eig_backward (general square A = V diag(L) V^{-1}, unit columns):
    # gA = V^{-H} (diag(gL) + (V^H gV - V^H V re(diag(V^H gV))) / conj(L_j - L_i)) V^H,
    # the fraction off the diagonal only.
    n = L.shape[-1]
    eye = xp.eye(n, dtype=V.dtype)
    inner = None
    if gV is not None:
        VhgV = xp.matmul(_mH(xp, V), gV)
        _check_phase_invariance(xp, xp.imag(xp.linalg.diagonal(VhgV)), "linalg_eig_backward",
                                "eigenvectors")
        d = xp.astype(xp.real(xp.linalg.diagonal(VhgV)), V.dtype)
        P = VhgV - xp.matmul(_mH(xp, V), V * xp.expand_dims(d, axis=-2))
        E = xp.conj(xp.expand_dims(L, axis=-2) - xp.expand_dims(L, axis=-1)) + eye
        inner = P / E * (1 - eye)
    if gL is not None:
        dg = xp.expand_dims(gL, axis=-1) * eye
        inner = dg if inner is None else inner + dg
    Vh = _mH(xp, V)
    return xp.linalg.solve(Vh, xp.matmul(inner, Vh))


@eig.defvjp
def _eig_vjp(xp, res, gL, gV):
    L, V = res
    return (_eig_grad(xp, L, V, gL, gV),)


@eigvals.defvjp
def _eigvals_vjp(xp, res, g):
    (x,) = res
    L, V = (xp.linalg.eig if hasattr(xp.linalg, "eig") else _la(xp, "eig"))(x)
    return (_eig_grad(xp, L, V, g, None),)


# Checked against PyTorch with complex inputs (tests/test_complex_autograd.py).
_mark_complex_ok(matmul, matrix_transpose, tensordot, vecdot, cholesky, cross, det, diagonal,
                 eig, eigh, eigvals, eigvalsh, inv, matrix_norm, matrix_power, outer, pinv, qr,
                 slogdet, solve, svd, svdvals, trace, vector_norm)
