"""Linear algebra: the main namespace's functions and the ``linalg`` extension
(array API standard 2025.12, "Linear Algebra Functions" and "Linear Algebra
Extension").

Where a backend's namespace lacks a function, a fallback written against the
standard serves (``cross``, ``matrix_power``, ``pinv``); functions that cannot
be built from the standard raise ``NotImplementedError`` naming the backend.
"""

from __future__ import annotations

from ._registry import op

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot", "LINALG"]

_L = "arrayflow.linalg"


@op("matmul")
def matmul(xp, x1, x2, /):
    """Matrix product with broadcasting over leading dimensions (``@``).

    1-D operands are promoted to matrices and the added dimension removed.
    Source: array API standard 2025.12, ``matmul`` (PyTorch ``mm``/``matmul``).
    """
    return xp.matmul(x1, x2), (x1, x2)


@op("matrix_transpose")
def matrix_transpose(xp, x, /):
    """Swap the last two dimensions of ``x`` (``x.mT``).

    Source: array API standard 2025.12, ``matrix_transpose``.
    """
    return xp.matrix_transpose(x), ()


@op("tensordot")
def tensordot(xp, x1, x2, /, *, axes=2):
    """Tensor contraction over ``axes`` (an int, or two sequences of axes).

    Source: array API standard 2025.12, ``tensordot``.
    """
    return xp.tensordot(x1, x2, axes=axes), (x1, x2, axes)


@op("vecdot")
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


@op("linalg.cross", module=_L)
def cross(xp, x1, x2, /, *, axis=-1):
    """Cross product of 3-element vectors along ``axis``.

    Source: array API 2025.12, ``linalg.cross``.
    """
    fn = getattr(xp.linalg, "cross", None)
    if fn is not None:
        return fn(x1, x2, axis=axis), (x1, x2, axis)
    a = [xp.take(x1, xp.asarray([i]), axis=axis) for i in range(3)]
    b = [xp.take(x2, xp.asarray([i]), axis=axis) for i in range(3)]
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


@op("linalg.outer", module=_L)
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
        y = xp.matmul(xp.matrix_transpose(vh) * s_inv[..., None, :],
                      xp.conj(xp.matrix_transpose(u)))
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


@op("linalg.solve", module=_L)
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
    res = _la(xp, "svd")(x, full_matrices=full_matrices)
    return res, (tuple(res), full_matrices)


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
