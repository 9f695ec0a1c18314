"""PyTorch's functions whose signatures differ from the standard function they compute.

``torch.cumsum(input, dim)``, ``torch.gather(input, dim, index)``,
``torch.unbind(input, dim=0)`` and ``torch.repeat_interleave(input, repeats, dim=None)``
take their arguments in PyTorch's order and names, so they cannot be aliases of
``cumulative_sum``, ``take_along_axis``, ``unstack`` and ``repeat`` (whose axis is
keyword-only): each is its own function that maps PyTorch's arguments onto the
standard op (which records the gradient). They dispatch ``__arrayflow_function__``
like every function.

These are composed functions, not ops of the op table (``arrayflow.ops.OPS``): they
have no forward or VJP of their own, the ops they call record the graph. Each one is
PyTorch's function of the same name (none is in the array API standard).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence

from .. import _tensor_methods
from .._dtypes import DType
from .._tensor_methods import gather as _gather
from .._typing import Scalar
from ..overrides import overridable
from ..tensor import Tensor, _check_dim
from . import manipulation as _m
from . import reductions as _r

__all__ = ["cumsum", "cumprod", "gather", "unbind", "repeat_interleave"]


def _tensor(fname: str, input: object) -> None:
    """PyTorch's ``TypeError`` for an ``input`` that is not a Tensor."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def _check_input_dim(fname: str, input: object, dim: int, *, scalar_ok: bool = True) -> None:
    """PyTorch's checks of ``input`` and ``dim`` before the standard op runs: ``TypeError``
    for an ``input`` without dimensions (a list), ``IndexError``/``TypeError`` for ``dim``
    (the backends disagree otherwise: ``ValueError`` from array-api-strict's ``unstack``)."""
    ndim = getattr(input, "ndim", None)
    if not isinstance(ndim, int):
        _tensor(fname, input)
    else:
        _check_dim(fname, dim, ndim, scalar_ok=scalar_ok)


@overridable
def cumsum(input: Tensor, dim: int, *, dtype: DType | None = None) -> Tensor:
    """Cumulative sum along ``dim`` (PyTorch ``torch.cumsum``).

    Parameters
    ----------
    input : Tensor
        Any shape (a 0-d Tensor is its own cumulative sum), numeric dtype.
    dim : int
        The dimension summed along, in ``[-ndim, ndim)`` (required, as in PyTorch).
    dtype : DType, optional
        The dtype the sum is computed and returned in.

    Returns
    -------
    Tensor
        ``input``'s shape; the standard's dtype rule for ``cumulative_sum`` (a small
        integer dtype gives the default integer dtype). Differentiable.

    Raises
    ------
    TypeError
        Without ``dim``, or a ``dim`` that is not an int (PyTorch's errors).
    IndexError
        ``dim`` out of range, on every backend (PyTorch's error).

    Notes
    -----
    Source: PyTorch ``torch.cumsum``; computed by the standard's
    :func:`arrayflow.cumulative_sum` (``axis=dim``).
    """
    _check_input_dim("cumsum", input, dim)
    return _r.cumulative_sum(input, axis=dim, dtype=dtype)


@overridable
def cumprod(input: Tensor, dim: int, *, dtype: DType | None = None) -> Tensor:
    """Cumulative product along ``dim`` (PyTorch ``torch.cumprod``).

    Parameters
    ----------
    input : Tensor
        Any shape, numeric dtype.
    dim : int
        The dimension multiplied along, in ``[-ndim, ndim)`` (required).
    dtype : DType, optional
        The dtype the product is computed and returned in.

    Returns
    -------
    Tensor
        ``input``'s shape (dtype as :func:`arrayflow.cumulative_prod`). Differentiable.

    Raises
    ------
    TypeError
        Without ``dim``, or a ``dim`` that is not an int.
    IndexError
        ``dim`` out of range, on every backend (PyTorch's error).

    Notes
    -----
    Source: PyTorch ``torch.cumprod``; computed by the standard's
    :func:`arrayflow.cumulative_prod` (``axis=dim``).
    """
    _check_input_dim("cumprod", input, dim)
    return _r.cumulative_prod(input, axis=dim, dtype=dtype)


@overridable
def gather(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """``out[i][j] = input[i][index[i][j]]`` along ``dim`` (PyTorch ``torch.gather``).

    ``index`` has ``input``'s number of dimensions and may be smaller in the other
    dimensions (only that leading block of ``input`` is read, as PyTorch; never
    broadcast). Gradients flow to ``input``.

    Parameters
    ----------
    input : Tensor
        Any dtype, at least 1-D.
    dim : int
        The dimension indexed, in ``[-ndim, ndim)``.
    index : Tensor
        Integer indices into dimension ``dim``, of ``input``'s number of dimensions.

    Returns
    -------
    Tensor
        ``index``'s shape, ``input``'s dtype.

    Raises
    ------
    RuntimeError
        ``index`` not int32/int64, with another number of dimensions, larger than
        ``input`` in a dimension other than ``dim``, or with an entry outside ``[0, size)``
        (negative too; PyTorch's errors; on Dask when the result is computed).
    IndexError
        ``dim`` out of range.

    Notes
    -----
    Source: PyTorch ``torch.gather``; computed by the standard's
    :func:`arrayflow.take_along_axis`.
    """
    return _gather(input, dim, index)


@overridable
def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """A tuple of the slices along ``dim`` (PyTorch ``torch.unbind``).

    Parameters
    ----------
    input : Tensor
        At least 1-D, any dtype.
    dim : int
        The dimension removed, in ``[-ndim, ndim)``.

    Returns
    -------
    tuple of Tensor
        ``input.shape[dim]`` Tensors of ``input``'s shape without ``dim``, its dtype.

    Raises
    ------
    TypeError
        A ``dim`` that is not an int.
    IndexError
        ``dim`` out of range, or a 0-d ``input``, on every backend (PyTorch's error).

    Notes
    -----
    Source: PyTorch ``torch.unbind``; computed by the standard's
    :func:`arrayflow.unstack` (``axis=dim``).
    """
    _check_input_dim("unbind", input, dim, scalar_ok=False)
    return _m.unstack(input, axis=dim)


@overridable
def repeat_interleave(input: Tensor, repeats: int | Tensor, dim: int | None = None) -> Tensor:
    """Repeat each element ``repeats`` times along ``dim`` (PyTorch
    ``torch.repeat_interleave``).

    Parameters
    ----------
    input : Tensor
        Any shape and dtype.
    repeats : int or Tensor
        Repetitions of every element (an int) or of each element along ``dim`` (a 1-D
        integer Tensor; a data-dependent shape on lazy backends).
    dim : int, optional
        The dimension repeated along; None repeats the flattened ``input``.

    Returns
    -------
    Tensor
        ``input``'s dtype; ``dim`` (or the flattened length) multiplied by ``repeats``
        (by their sum for a Tensor).

    Raises
    ------
    RuntimeError
        A negative int ``repeats`` (PyTorch's error).
    IndexError
        ``dim`` out of range, on every backend (PyTorch's error).

    Notes
    -----
    Source: PyTorch ``torch.repeat_interleave``; computed by the standard's
    :func:`arrayflow.repeat` (``axis=dim``).
    """
    if dim is not None:
        _check_input_dim("repeat_interleave", input, dim)
    if isinstance(repeats, int) and not isinstance(repeats, builtins.bool) and repeats < 0:
        raise RuntimeError(f"repeat_interleave(): repeats must be non-negative, got {repeats}")
    return _m.repeat(input, repeats, axis=dim)


# --- PyTorch's functions that are Tensor methods there too ------------------------------------
# ``torch.f(input, ...)`` is ``input.f(...)``: each computes what the method computes
# (arrayflow/_tensor_methods.py), with PyTorch's signature; only names the array API
# standard does not define (``flip``, ``sort``, ``max``... keep the standard's meaning).

def _m_impl(name):
    return getattr(_tensor_methods, name)


@overridable
def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Dimensions ``start_dim``..``end_dim`` merged into one (PyTorch ``torch.flatten``).

    Parameters
    ----------
    input : Tensor
        Any shape and dtype (a 0-d Tensor gives shape ``(1,)``).
    start_dim, end_dim : int
        The first and last dimension merged (inclusive).

    Returns
    -------
    Tensor
        ``input``'s values and dtype, ``ndim - (end_dim - start_dim)`` dimensions.

    Raises
    ------
    RuntimeError
        ``start_dim`` after ``end_dim`` (PyTorch's error).
    IndexError
        A dimension out of range.

    Notes
    -----
    Source: PyTorch ``torch.flatten`` (``Tensor.flatten``).
    """
    return _m_impl("flatten")(input, start_dim, end_dim)


@overridable
def sigmoid(input: Tensor) -> Tensor:
    """``1 / (1 + exp(-x))`` element-wise (PyTorch ``torch.sigmoid``).

    Parameters
    ----------
    input : Tensor
        Any shape; integer and bool inputs give the default floating dtype.

    Returns
    -------
    Tensor
        ``input``'s shape, floating. Differentiable.

    Notes
    -----
    Source: PyTorch ``torch.sigmoid`` (``Tensor.sigmoid``).
    """
    return _m_impl("sigmoid")(input)


@overridable
def relu(input: Tensor) -> Tensor:
    """``max(x, 0)`` element-wise (PyTorch ``torch.relu``).

    Parameters
    ----------
    input : Tensor
        Any shape, real dtype.

    Returns
    -------
    Tensor
        ``input``'s shape; a floating ``input``'s dtype (an integer ``input`` gives the
        default floating dtype today, where PyTorch keeps the integer dtype).
        Differentiable (gradient 0 at 0, as PyTorch).

    Notes
    -----
    Source: PyTorch ``torch.relu`` (``Tensor.relu``).
    """
    return _m_impl("relu")(input)


@overridable
def softmax(input: Tensor, dim: int | None, dtype: DType | None = None) -> Tensor:
    """Softmax over ``dim``: ``exp(x) / sum(exp(x))``, computed stably (PyTorch
    ``torch.softmax``).

    Parameters
    ----------
    input : Tensor
        Any shape, floating dtype.
    dim : int or None
        The dimension normalised; None picks PyTorch's legacy default (0 for 0-, 1-
        and 3-D inputs, else 1).
    dtype : DType, optional
        Cast ``input`` to it first.

    Returns
    -------
    Tensor
        ``input``'s shape; ``dtype`` or ``input``'s dtype. Differentiable.

    Raises
    ------
    IndexError
        ``dim`` out of range.

    Notes
    -----
    Source: PyTorch ``torch.softmax`` (``Tensor.softmax``).
    """
    return _m_impl("softmax")(input, dim, dtype)


@overridable
def log_softmax(input: Tensor, dim: int | None, dtype: DType | None = None) -> Tensor:
    """Log-softmax over ``dim``: ``x - log(sum(exp(x)))``, computed stably (PyTorch
    ``torch.log_softmax``).

    Parameters
    ----------
    input : Tensor
        Any shape, floating dtype.
    dim : int or None
        The dimension normalised (None: as :func:`softmax`).
    dtype : DType, optional
        Cast ``input`` to it first.

    Returns
    -------
    Tensor
        ``input``'s shape; ``dtype`` or ``input``'s dtype. Differentiable.

    Raises
    ------
    IndexError
        ``dim`` out of range.

    Notes
    -----
    Source: PyTorch ``torch.log_softmax`` (``Tensor.log_softmax``).
    """
    return _m_impl("log_softmax")(input, dim, dtype)


@overridable
def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True,
         sorted: bool = True) -> tuple[Tensor, Tensor]:
    """The ``k`` largest (smallest) values along ``dim`` and their indices (PyTorch
    ``torch.topk``).

    Parameters
    ----------
    input : Tensor
        Any shape, real dtype.
    k : int
        How many, in ``[0, input.shape[dim]]``.
    dim : int
        The dimension searched.
    largest : bool
        False selects the smallest.
    sorted : bool
        Accepted for PyTorch's signature; the values always come sorted.

    Returns
    -------
    tuple of Tensor
        A named tuple ``(values, indices)``: ``input``'s shape with ``k`` along ``dim``;
        ``input``'s dtype and the default integer dtype. Gradients flow to the
        selected elements of ``input``.

    Raises
    ------
    RuntimeError
        ``k`` out of range (PyTorch's error).
    IndexError
        ``dim`` out of range.

    Notes
    -----
    Source: PyTorch ``torch.topk`` (``Tensor.topk``).
    """
    return _m_impl("topk")(input, k, dim, largest, sorted)


@overridable
def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    """Batched matrix product of 3-D Tensors (PyTorch ``torch.bmm``).

    Parameters
    ----------
    input : Tensor
        Shape ``(b, n, m)``, numeric dtype.
    mat2 : Tensor
        Shape ``(b, m, p)``, the same dtype.

    Returns
    -------
    Tensor
        Shape ``(b, n, p)``. Differentiable.

    Raises
    ------
    RuntimeError
        An operand that is not 3-D, batch or inner sizes that differ, or operands of
        different dtypes (PyTorch's errors).

    Notes
    -----
    Source: PyTorch ``torch.bmm`` (``Tensor.bmm``); computed by
    :func:`arrayflow.matmul`.
    """
    return _m_impl("bmm")(input, mat2)


@overridable
def dot(input: Tensor, tensor: Tensor) -> Tensor:
    """Inner product of two 1-D Tensors (PyTorch ``torch.dot``; no conjugation).

    Parameters
    ----------
    input, tensor : Tensor
        1-D, of one length and dtype kind.

    Returns
    -------
    Tensor
        0-d. Differentiable.

    Raises
    ------
    RuntimeError
        An operand that is not 1-D, lengths or dtypes that differ (PyTorch's errors).

    Notes
    -----
    Source: PyTorch ``torch.dot`` (``Tensor.dot``); computed by
    :func:`arrayflow.matmul`.
    """
    return _m_impl("dot")(input, tensor)


@overridable
def mv(input: Tensor, vec: Tensor) -> Tensor:
    """Matrix-vector product (PyTorch ``torch.mv``).

    Parameters
    ----------
    input : Tensor
        Shape ``(n, m)``.
    vec : Tensor
        Shape ``(m,)``.

    Returns
    -------
    Tensor
        Shape ``(n,)``. Differentiable.

    Raises
    ------
    RuntimeError
        ``input`` not 2-D, ``vec`` not 1-D, sizes or dtypes that differ (PyTorch's errors).

    Notes
    -----
    Source: PyTorch ``torch.mv`` (``Tensor.mv``); computed by :func:`arrayflow.matmul`.
    """
    return _m_impl("mv")(input, vec)


@overridable
def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """Outer product of two 1-D Tensors (PyTorch ``torch.outer``).

    Parameters
    ----------
    input : Tensor
        Shape ``(n,)``.
    vec2 : Tensor
        Shape ``(m,)``.

    Returns
    -------
    Tensor
        Shape ``(n, m)``. Differentiable.

    Raises
    ------
    RuntimeError
        An operand that is not 1-D (PyTorch's error).

    Notes
    -----
    Source: PyTorch ``torch.outer`` (``Tensor.outer``); computed by the standard's
    :func:`arrayflow.linalg.outer`.
    """
    return _m_impl("outer")(input, vec2)


@overridable
def narrow(input: Tensor, dim: int, start: int | Tensor, length: int) -> Tensor:
    """``length`` elements from ``start`` along ``dim`` (PyTorch ``torch.narrow``).

    Parameters
    ----------
    input : Tensor
        At least 1-D, any dtype.
    dim : int
        The dimension narrowed.
    start : int or Tensor
        First index (negative counts from the end).
    length : int
        Number of elements kept.

    Returns
    -------
    Tensor
        A view of ``input`` with ``length`` elements along ``dim``.

    Raises
    ------
    RuntimeError
        ``start + length`` beyond the dimension (PyTorch's error).
    IndexError
        ``dim`` out of range.

    Notes
    -----
    Source: PyTorch ``torch.narrow`` (``Tensor.narrow``).
    """
    return _m_impl("narrow")(input, dim, start, length)


@overridable
def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """At most ``chunks`` pieces of ``ceil(n / chunks)`` elements along ``dim`` (PyTorch
    ``torch.chunk``).

    Parameters
    ----------
    input : Tensor
        At least 1-D, any dtype.
    chunks : int
        The number of pieces asked for (> 0); fewer come back when ``n`` is small.
    dim : int
        The dimension split.

    Returns
    -------
    tuple of Tensor
        Views of ``input``; the last piece may be smaller.

    Raises
    ------
    RuntimeError
        ``chunks <= 0`` (PyTorch's error).
    IndexError
        ``dim`` out of range.

    Notes
    -----
    Source: PyTorch ``torch.chunk`` (``Tensor.chunk``).
    """
    return _m_impl("chunk")(input, chunks, dim)


@overridable
def split(tensor: Tensor, split_size_or_sections: int | Sequence[int],
          dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces of one size, or of listed sizes, along ``dim`` (PyTorch ``torch.split``).

    Parameters
    ----------
    tensor : Tensor
        At least 1-D, any dtype.
    split_size_or_sections : int or sequence of int
        The size of every piece (the last may be smaller), or each piece's size (they
        sum to the dimension's size).
    dim : int
        The dimension split.

    Returns
    -------
    tuple of Tensor
        Views of ``tensor``.

    Raises
    ------
    RuntimeError
        A non-positive size, or sizes that do not sum to the dimension (PyTorch's
        error).
    IndexError
        ``dim`` out of range.

    Notes
    -----
    Source: PyTorch ``torch.split`` (``Tensor.split``).
    """
    return _m_impl("split")(tensor, split_size_or_sections, dim)


@overridable
def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """Elements at 1-D integer ``index`` along ``dim`` (PyTorch ``torch.index_select``).

    Parameters
    ----------
    input : Tensor
        At least 1-D, any dtype.
    dim : int
        The dimension indexed.
    index : Tensor
        1-D integer indices into dimension ``dim``.

    Returns
    -------
    Tensor
        ``input``'s shape with ``len(index)`` along ``dim``, its dtype. Differentiable.

    Raises
    ------
    IndexError
        ``dim`` out of range, an ``index`` of more than one dimension, or an index outside
        ``[0, size)`` (negative too; on Dask when the result is computed), as PyTorch.
    RuntimeError
        An ``index`` whose dtype is not int32 or int64 (PyTorch's error).

    Notes
    -----
    Source: PyTorch ``torch.index_select`` (``Tensor.index_select``); computed by the
    standard's :func:`arrayflow.take`.
    """
    return _m_impl("index_select")(input, dim, index)


@overridable
def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The elements where ``mask`` is True, as a 1-D Tensor (PyTorch
    ``torch.masked_select``).

    Parameters
    ----------
    input : Tensor
        Any shape and dtype.
    mask : Tensor
        Bool, broadcast against ``input``.

    Returns
    -------
    Tensor
        1-D, ``input``'s dtype (a data-dependent shape: on lazy backends it raises
        :class:`arrayflow.DataDependentShapeError` outside ``allow_compute()``).
        Differentiable.

    Raises
    ------
    RuntimeError
        A ``mask`` that is not bool (PyTorch's error).

    Notes
    -----
    Source: PyTorch ``torch.masked_select`` (``Tensor.masked_select``).
    """
    return _m_impl("masked_select")(input, mask)


@overridable
def masked_fill(input: Tensor, mask: Tensor, value: Tensor | Scalar) -> Tensor:
    """``value`` where ``mask`` is True, ``input`` elsewhere (PyTorch
    ``torch.masked_fill``).

    Parameters
    ----------
    input : Tensor
        Any shape and dtype.
    mask : Tensor
        Bool, broadcast to ``input``'s shape.
    value : Tensor or Python scalar
        A number or a 0-d Tensor (differentiable), cast to ``input``'s dtype.

    Returns
    -------
    Tensor
        ``input``'s shape and dtype. Differentiable.

    Raises
    ------
    RuntimeError
        A ``mask`` that is not bool, or a ``value`` Tensor that is not 0-d (PyTorch's
        errors).

    Notes
    -----
    Source: PyTorch ``torch.masked_fill`` (``Tensor.masked_fill``).
    """
    return _m_impl("masked_fill")(input, mask, value)


@overridable
def logsumexp(input: Tensor, dim: int | tuple[int, ...], keepdim: bool = False) -> Tensor:
    """``log(sum(exp(x)))`` over ``dim``, computed stably (PyTorch ``torch.logsumexp``).

    Parameters
    ----------
    input : Tensor
        Any shape, floating dtype.
    dim : int or tuple of int
        The dimension(s) reduced.
    keepdim : bool
        Keep the reduced dimensions with size 1.

    Returns
    -------
    Tensor
        ``input``'s dtype, ``dim`` reduced. Differentiable.

    Raises
    ------
    IndexError
        ``dim`` out of range.

    Notes
    -----
    Source: PyTorch ``torch.logsumexp`` (``Tensor.logsumexp``).
    """
    return _m_impl("logsumexp")(input, dim, keepdim)


@overridable
def rsqrt(input: Tensor) -> Tensor:
    """``1 / sqrt(x)`` element-wise (PyTorch ``torch.rsqrt``).

    Parameters
    ----------
    input : Tensor
        Any shape; integer and bool inputs give the default floating dtype.

    Returns
    -------
    Tensor
        ``input``'s shape, floating. Differentiable.

    Notes
    -----
    Source: PyTorch ``torch.rsqrt`` (``Tensor.rsqrt``).
    """
    return _m_impl("rsqrt")(input)


@overridable
def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Scalar = 1) -> Tensor:
    """``input + value * tensor1 * tensor2`` element-wise (PyTorch ``torch.addcmul``).

    Parameters
    ----------
    input, tensor1, tensor2 : Tensor
        Broadcast together; promoted as the operators ``+`` and ``*``.
    value : Python scalar
        The factor of the product.

    Returns
    -------
    Tensor
        The broadcast shape and promoted dtype. Differentiable.

    Notes
    -----
    Source: PyTorch ``torch.addcmul`` (``Tensor.addcmul``).
    """
    return _m_impl("addcmul")(input, tensor1, tensor2, value=value)


@overridable
def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Scalar = 1) -> Tensor:
    """``input + value * tensor1 / tensor2`` element-wise (PyTorch ``torch.addcdiv``).

    Parameters
    ----------
    input, tensor1, tensor2 : Tensor
        Broadcast together; ``/`` is true division.
    value : Python scalar
        The factor of the quotient.

    Returns
    -------
    Tensor
        The broadcast shape, floating. Differentiable.

    Raises
    ------
    RuntimeError
        ``tensor1`` and ``tensor2`` both of integer or bool dtype (PyTorch's error).

    Notes
    -----
    Source: PyTorch ``torch.addcdiv`` (``Tensor.addcdiv``).
    """
    return _m_impl("addcdiv")(input, tensor1, tensor2, value=value)


@overridable
def lerp(input: Tensor, end: Tensor, weight: Tensor | Scalar) -> Tensor:
    """``input + weight * (end - input)`` element-wise (PyTorch ``torch.lerp``).

    Parameters
    ----------
    input, end : Tensor
        Broadcast together.
    weight : Tensor or Python scalar
        The interpolation weight (broadcast).

    Returns
    -------
    Tensor
        The broadcast shape and ``input``'s dtype. Differentiable.

    Raises
    ------
    RuntimeError
        ``end`` or a Tensor ``weight`` of another dtype than ``input`` (PyTorch's error).
    NotImplementedError
        ``input`` of integer or bool dtype (PyTorch's error).

    Notes
    -----
    Source: PyTorch ``torch.lerp`` (``Tensor.lerp``).
    """
    return _m_impl("lerp")(input, end, weight)


@overridable
def clamp_min(input: Tensor, min: Tensor | Scalar) -> Tensor:
    """``max(input, min)`` element-wise (PyTorch ``torch.clamp_min``).

    Parameters
    ----------
    input : Tensor
        Any shape, real dtype.
    min : Tensor or Python scalar
        The lower bound (broadcast).

    Returns
    -------
    Tensor
        ``input``'s shape and dtype. Differentiable.

    Raises
    ------
    TypeError
        A ``min`` that is neither a Tensor nor a Python scalar.

    Notes
    -----
    Source: PyTorch ``torch.clamp_min`` (``Tensor.clamp_min``); computed by the
    standard's :func:`arrayflow.clip`.
    """
    return _m_impl("clamp_min")(input, min)


@overridable
def clamp_max(input: Tensor, max: Tensor | Scalar) -> Tensor:
    """``min(input, max)`` element-wise (PyTorch ``torch.clamp_max``).

    Parameters
    ----------
    input : Tensor
        Any shape, real dtype.
    max : Tensor or Python scalar
        The upper bound (broadcast).

    Returns
    -------
    Tensor
        ``input``'s shape and dtype. Differentiable.

    Raises
    ------
    TypeError
        A ``max`` that is neither a Tensor nor a Python scalar.

    Notes
    -----
    Source: PyTorch ``torch.clamp_max`` (``Tensor.clamp_max``); computed by the
    standard's :func:`arrayflow.clip`.
    """
    return _m_impl("clamp_max")(input, max)


@overridable
def amax(input: Tensor, dim: int | tuple[int, ...] = (), keepdim: bool = False) -> Tensor:
    """The maximum over ``dim``, values only (PyTorch ``torch.amax``).

    Parameters
    ----------
    input : Tensor
        Any shape, real dtype.
    dim : int or tuple of int
        The dimension(s) reduced; ``()`` reduces all.
    keepdim : bool
        Keep the reduced dimensions with size 1.

    Returns
    -------
    Tensor
        ``input``'s dtype, ``dim`` reduced. Differentiable (the gradient is shared
        evenly between equal maxima, as PyTorch).

    Raises
    ------
    IndexError
        ``dim`` out of range.

    Notes
    -----
    Source: PyTorch ``torch.amax`` (``Tensor.amax``); computed by the standard's
    :func:`arrayflow.max`.
    """
    return _m_impl("amax")(input, dim, keepdim)


@overridable
def amin(input: Tensor, dim: int | tuple[int, ...] = (), keepdim: bool = False) -> Tensor:
    """The minimum over ``dim``, values only (PyTorch ``torch.amin``).

    Parameters
    ----------
    input : Tensor
        Any shape, real dtype.
    dim : int or tuple of int
        The dimension(s) reduced; ``()`` reduces all.
    keepdim : bool
        Keep the reduced dimensions with size 1.

    Returns
    -------
    Tensor
        ``input``'s dtype, ``dim`` reduced. Differentiable.

    Raises
    ------
    IndexError
        ``dim`` out of range.

    Notes
    -----
    Source: PyTorch ``torch.amin`` (``Tensor.amin``); computed by the standard's
    :func:`arrayflow.min`.
    """
    return _m_impl("amin")(input, dim, keepdim)


@overridable
def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """``input`` with dimensions ``dim0`` and ``dim1`` swapped (PyTorch
    ``torch.transpose``).

    Parameters
    ----------
    input : Tensor
        Any shape and dtype.
    dim0, dim1 : int
        The dimensions swapped.

    Returns
    -------
    Tensor
        A view of ``input``. Differentiable.

    Raises
    ------
    TypeError
        An ``input`` that is not a Tensor (PyTorch's error).
    IndexError
        A dimension out of range.

    Notes
    -----
    Source: PyTorch ``torch.transpose`` (``Tensor.transpose``).
    """
    _tensor("transpose", input)
    return input.transpose(dim0, dim1)


@overridable
def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """``input`` with a size-1 dimension inserted at ``dim`` (PyTorch
    ``torch.unsqueeze``).

    Parameters
    ----------
    input : Tensor
        Any shape and dtype.
    dim : int
        Where the new dimension goes, in ``[-ndim - 1, ndim]``.

    Returns
    -------
    Tensor
        A view of ``input`` with ``ndim + 1`` dimensions. Differentiable.

    Raises
    ------
    TypeError
        An ``input`` that is not a Tensor (PyTorch's error).
    IndexError
        ``dim`` out of range.

    Notes
    -----
    Source: PyTorch ``torch.unsqueeze`` (``Tensor.unsqueeze``).
    """
    _tensor("unsqueeze", input)
    return input.unsqueeze(dim)


@overridable
def t(input: Tensor) -> Tensor:
    """Transpose of a Tensor of at most 2 dimensions (PyTorch ``torch.t``).

    Parameters
    ----------
    input : Tensor
        0-, 1- or 2-D, any dtype.

    Returns
    -------
    Tensor
        A view of ``input`` (0-D and 1-D inputs unchanged). Differentiable.

    Raises
    ------
    TypeError
        An ``input`` that is not a Tensor (PyTorch's error).
    RuntimeError
        More than 2 dimensions (PyTorch's error).

    Notes
    -----
    Source: PyTorch ``torch.t`` (``Tensor.t``).
    """
    _tensor("t", input)
    return input.t()


@overridable
def numel(input: Tensor) -> int:
    """The number of elements (PyTorch ``torch.numel``).

    Parameters
    ----------
    input : Tensor
        Any shape and dtype.

    Returns
    -------
    int

    Raises
    ------
    TypeError
        An ``input`` that is not a Tensor (PyTorch's error).

    Notes
    -----
    Source: PyTorch ``torch.numel`` (``Tensor.numel``).
    """
    _tensor("numel", input)
    return input.numel()


@overridable
def detach(input: Tensor) -> Tensor:
    """A Tensor sharing ``input``'s values, outside the graph (PyTorch ``torch.detach``).

    Parameters
    ----------
    input : Tensor
        Any shape and dtype.

    Returns
    -------
    Tensor
        ``input``'s values (shared storage), ``requires_grad=False``.

    Raises
    ------
    TypeError
        An ``input`` that is not a Tensor (PyTorch's error).

    Notes
    -----
    Source: PyTorch ``torch.detach`` (``Tensor.detach``).
    """
    _tensor("detach", input)
    return input.detach()


__all__ += ["flatten", "sigmoid", "relu", "softmax", "log_softmax", "topk", "bmm", "dot", "mv",
            "outer", "narrow", "chunk", "split", "index_select", "masked_select", "masked_fill",
            "logsumexp", "rsqrt", "addcmul", "addcdiv", "lerp", "clamp_min", "clamp_max",
            "amax", "amin", "transpose", "unsqueeze", "t", "numel", "detach"]
