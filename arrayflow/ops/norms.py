"""PyTorch's ``norm`` functions, composed of the standard's ``vector_norm`` and
``matrix_norm`` (so their VJPs, complex rules and backends are those ops').

``arrayflow.norm`` is ``torch.norm`` (``p="fro"`` by default) and
``arrayflow.linalg.norm`` is ``torch.linalg.norm`` (vector norm for one dimension,
matrix norm for two). Both dispatch ``__arrayflow_function__`` like every function.
"""

from __future__ import annotations

import builtins
import operator

from .._dtypes import DType
from .._typing import Array
from ..overrides import overridable
from . import dtypes as _dt
from . import linalg as _la
from . import manipulation as _m

__all__ = ["norm", "linalg_norm"]


def _dims(fname, dim, ndim):
    """``dim`` as a tuple of non-negative ints (None stays None), PyTorch's checks."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        dims = tuple(dim)
    else:
        dims = (dim,)
    out = []
    for d in dims:
        if isinstance(d, builtins.bool):
            raise TypeError(f"{fname}(): argument 'dim' must be an int or a tuple of ints, "
                            f"not bool")
        try:
            d = operator.index(d)
        except TypeError:
            raise TypeError(f"{fname}(): argument 'dim' must be an int or a tuple of ints, "
                            f"not {type(d).__name__}") from None
        n = builtins.max(ndim, 1)
        if not -n <= d < n:
            raise IndexError(f"{fname}(): Dimension out of range (expected to be in range of "
                             f"[{-n}, {n - 1}], but got {d})")
        out.append(d % n)
    if len(set(out)) != len(out):
        raise RuntimeError(f"{fname}(): dim {tuple(dims)} appears multiple times in the list "
                           f"of dims")
    return tuple(out)


def _matrix_norm(x, ord, dims, keepdim):
    """Matrix norm over ``dims`` (rows, columns) of any position."""
    d0, d1 = dims
    nd = x.ndim
    rest = [i for i in range(nd) if i not in dims]
    if (d0, d1) != (nd - 2, nd - 1):
        x = _m.permute_dims(x, (*rest, d0, d1))
    y = _la.matrix_norm(x, keepdims=False, ord=ord)
    if keepdim:
        y = _m.expand_dims(y, axis=tuple(sorted(dims)))
    return y


def _cast(x, dtype):
    return x if dtype is None or x.dtype is dtype else _dt.astype(x, dtype)


@overridable
def linalg_norm(A: Array, ord: int | float | str | None = None,
                dim: int | tuple[int, ...] | list[int] | None = None, keepdim: bool = False,
                *, dtype: DType | None = None) -> Array:
    """Vector or matrix norm, as ``torch.linalg.norm``.

    - ``dim`` an int (or a 1-tuple): the vector ``ord``-norm over it (``ord=None``: 2).
    - ``dim`` a 2-tuple: the matrix ``ord``-norm over those (rows, columns)
      (``ord=None``: ``"fro"``).
    - ``dim=None``: with ``ord=None`` the 2-norm of all elements; with ``ord`` given,
      ``A`` must be 1-D (vector norm) or 2-D (matrix norm).

    Parameters
    ----------
    A : Tensor
        Floating or complex (the result is real).
    ord : int, float, inf, -inf, "fro" or "nuc", optional
        The norm: a vector ``ord``-norm (see :func:`arrayflow.linalg.vector_norm`) or a
        matrix norm (see :func:`arrayflow.linalg.matrix_norm`), as ``dim`` says.
    dim : int or tuple of int, optional
        One dimension (vector norm) or two (matrix norm over rows, columns); negative
        values count from the end.
    keepdim : bool, default False
        Keep the reduced dimensions with size 1.
    dtype : DType, optional
        Cast ``A`` to it first.

    Returns
    -------
    Tensor
        ``A``'s shape without the reduced dimensions (size 1 there with ``keepdim``); the
        real floating dtype of ``A``'s precision.

    Raises
    ------
    RuntimeError
        ``ord`` given with ``dim=None`` on an input that is not 1-D or 2-D; a string
        ``ord`` for a vector norm; ``dim`` with more than two dimensions (PyTorch's
        errors).
    IndexError
        A dimension out of range.
    TypeError
        A ``dim`` that is not an int or a tuple of ints.

    Notes
    -----
    Source: PyTorch ``torch.linalg.norm`` (not in the array API standard). Gradients are
    those of :func:`arrayflow.linalg.vector_norm` and :func:`arrayflow.linalg.matrix_norm`.
    """
    A = _cast(A, dtype)
    dims = _dims("linalg.norm", dim, A.ndim)
    if dims is None:
        if ord is None:
            return _la.vector_norm(A, axis=None, keepdims=keepdim, ord=2)
        if A.ndim == 1:
            dims = (0,)
        elif A.ndim == 2:
            dims = (0, 1)
        else:
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input "
                               f"must be 1D or 2D. Got {A.ndim}D.")
    if len(dims) == 1:
        if isinstance(ord, str):
            raise RuntimeError(f"linalg.vector_norm: ord must be a number for a vector norm, "
                               f"got {ord!r}")
        return _la.vector_norm(A, axis=dims, keepdims=keepdim, ord=2 if ord is None else ord)
    if len(dims) == 2:
        return _matrix_norm(A, "fro" if ord is None else ord, dims, keepdim)
    raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. "
                       f"Got {list(dims)}")


linalg_norm.__name__ = linalg_norm.__qualname__ = "norm"
linalg_norm.__module__ = "arrayflow.linalg"


@overridable
def norm(input: Array, p: int | float | str = "fro",
         dim: int | tuple[int, ...] | list[int] | None = None, keepdim: bool = False,
         dtype: DType | None = None) -> Array:
    """The norm of ``input``, as ``torch.norm`` (``p="fro"`` by default).

    - ``p="fro"``: the 2-norm of all elements (``dim=None``) or of one dimension; the
      Frobenius matrix norm over a 2-tuple ``dim``.
    - ``p="nuc"``: the nuclear matrix norm over ``dim`` (a 2-tuple; ``dim=None``
      needs a 2-D input).
    - ``p`` a number (or ``inf``): the vector ``p``-norm over ``dim`` (None: all
      elements; an int or a tuple of them).

    Parameters
    ----------
    input : Tensor
        Floating or complex (the result is real).
    p : int, float, inf, "fro" or "nuc", default "fro"
        The norm, as listed above.
    dim : int or tuple of int, optional
        The dimensions reduced (default: all); negative values count from the end.
    keepdim : bool, default False
        Keep the reduced dimensions with size 1.
    dtype : DType, optional
        Cast ``input`` to it first.

    Returns
    -------
    Tensor
        ``input``'s shape without the reduced dimensions (size 1 there with ``keepdim``);
        the real floating dtype of ``input``'s precision.

    Raises
    ------
    RuntimeError
        ``"nuc"`` without a 2-tuple ``dim`` on an input that is not 2-D; ``"fro"`` over
        more than two dimensions; an unknown string ``p``.
    IndexError
        A dimension out of range.
    TypeError
        A ``dim`` that is not an int or a tuple of ints.

    Notes
    -----
    Source: PyTorch ``torch.norm`` (not in the array API standard). Gradients are those of
    :func:`arrayflow.linalg.vector_norm` and :func:`arrayflow.linalg.matrix_norm`.
    """
    input = _cast(input, dtype)
    dims = _dims("norm", dim, input.ndim)
    if p == "fro":
        if dims is None or len(dims) == 1:
            return _la.vector_norm(input, axis=dims, keepdims=keepdim, ord=2)
        if len(dims) == 2:
            return _matrix_norm(input, "fro", dims, keepdim)
        raise RuntimeError(f"norm(): the Frobenius norm takes at most 2 dims, got "
                           f"{list(dims)}")
    if p == "nuc":
        if dims is None:
            if input.ndim != 2:
                raise RuntimeError(f"norm(): the nuclear norm without dim needs a 2-D input, "
                                   f"got {input.ndim}-D")
            dims = (0, 1)
        if len(dims) != 2:
            raise RuntimeError(f"norm(): the nuclear norm takes 2 dims, got {list(dims)}")
        return _matrix_norm(input, "nuc", dims, keepdim)
    if isinstance(p, str):
        raise RuntimeError(f"norm(): p must be a number, 'fro' or 'nuc', got {p!r}")
    return _la.vector_norm(input, axis=dims, keepdims=keepdim, ord=p)
