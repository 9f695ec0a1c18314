"""``arrayflow.linalg``: the array API standard's linear algebra extension (2025.12).

The same function objects as :mod:`arrayflow.ops.linalg`; ``matmul``,
``matrix_transpose``, ``tensordot`` and ``vecdot`` are the main namespace's. ``norm`` is
PyTorch's ``torch.linalg.norm`` (not in the standard), composed of ``vector_norm`` and
``matrix_norm``.
"""

from .ops.linalg import (
    cholesky,
    cross,
    det,
    diagonal,
    eig,
    eigh,
    eigvals,
    eigvalsh,
    inv,
    matmul,
    matrix_norm,
    matrix_power,
    matrix_rank,
    matrix_transpose,
    outer,
    pinv,
    qr,
    slogdet,
    solve,
    svd,
    svdvals,
    tensordot,
    trace,
    vecdot,
    vector_norm,
)
from .ops.norms import linalg_norm as norm

__all__ = [
    "cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv",
    "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer",
    "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot",
    "vector_norm", "norm",
]
