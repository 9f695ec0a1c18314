"""Functional neural-network operations with PyTorch's signatures (``torch.nn.functional``).

Every function is written with arrayflow operations only: autograd, every
backend (lazy ones included: nothing here reads array values) and the
``__arrayflow_function__`` protocol come for free. Each is
:func:`~arrayflow.overrides.overridable`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

from .. import _backend, _dtypes
from .. import _tensor_methods as _tm
from .. import ops as _ops  # noqa: F401 - registers every op
from .._dtypes import DType
from ..autograd import no_grad
from ..ops import creation as _c
from ..ops import elementwise as _e
from ..ops import linalg as _la
from ..ops import manipulation as _m
from ..ops import reductions as _r
from ..ops import searching as _s
from ..ops.special import erf as _erf
from ..overrides import overridable
from ..tensor import Tensor

__all__ = [
    "avg_pool2d", "batch_norm", "bilinear", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "conv1d", "conv2d", "cross_entropy", "dropout", "elu",
    "embedding", "gelu", "hardtanh", "huber_loss", "l1_loss", "layer_norm", "leaky_relu",
    "linear", "log_softmax", "logsigmoid", "max_pool2d", "mse_loss", "nll_loss", "one_hot",
    "relu", "relu6", "selu", "sigmoid", "silu", "smooth_l1_loss", "softmax", "softplus", "tanh",
]

_REDUCTIONS = ("none", "mean", "sum")


def _legacy_reduction(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    """The reduction the deprecated ``size_average``/``reduce`` flags select, when either is
    given (they override ``reduction``, with PyTorch's warning), else ``reduction``.

    PyTorch's ``_Reduction.legacy_get_string``: ``reduce=False`` gives ``"none"``, else
    ``size_average=False`` gives ``"sum"``, else ``"mean"`` (None counts as True).
    """
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use "
                  f"reduction='{ret}' instead.", UserWarning, stacklevel=3)
    return ret


def _reduce(loss, reduction, fname):
    if reduction == "mean":
        return _r.mean(loss)
    if reduction == "sum":
        return _r.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"{fname}: reduction must be one of {_REDUCTIONS}, got {reduction!r}")


# --- activations ----------------------------------------------------------------------------

@overridable
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0), with gradient 0 at 0 (PyTorch ``F.relu``). ``inplace`` is accepted, ignored.

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    inplace : bool, default False
        Accepted for PyTorch compatibility and ignored: the result is a new Tensor.

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    return _tm._relu(input)


@overridable
def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(x, 0), 6) (``F.relu6``).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    inplace : bool, default False
        Accepted for PyTorch compatibility and ignored: the result is a new Tensor.

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    return hardtanh(input, 0.0, 6.0)


@overridable
def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    """Clamp to ``[min_val, max_val]`` (``F.hardtanh``); zero gradient outside.

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    min_val : float, default -1.0
        Lower clamp bound.
    max_val : float, default 1.0
        Upper clamp bound.
    inplace : bool, default False
        Accepted for PyTorch compatibility and ignored: the result is a new Tensor.

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    return _s.where(input <= min_val, min_val, _s.where(input >= max_val, max_val, input))


@overridable
def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x for x > 0, ``negative_slope * x`` otherwise (``F.leaky_relu``).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    negative_slope : float, default 0.01
        Slope of the negative part.
    inplace : bool, default False
        Accepted for PyTorch compatibility and ignored: the result is a new Tensor.

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    return _s.where(input > 0, input, input * negative_slope)


@overridable
def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x for x > 0, ``alpha * (exp(x) - 1)`` otherwise (``F.elu``).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    alpha : float, default 1.0
        The scale of the negative part.
    inplace : bool, default False
        Accepted for PyTorch compatibility and ignored: the result is a new Tensor.

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    neg = _e.minimum(input, 0.0)
    return _s.where(input > 0, input, alpha * _e.expm1(neg))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@overridable
def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``scale * elu(x, alpha)`` with the self-normalizing constants (``F.selu``).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    inplace : bool, default False
        Accepted for PyTorch compatibility and ignored: the result is a new Tensor.

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    return _SELU_SCALE * elu(input, _SELU_ALPHA)


@overridable
def sigmoid(input: Tensor) -> Tensor:
    """1 / (1 + exp(-x)), without overflow for large |x| (``F.sigmoid``).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    return _tm._sigmoid(input)


@overridable
def tanh(input: Tensor) -> Tensor:
    """Hyperbolic tangent (``F.tanh``).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    return _e.tanh(input)


@overridable
def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)) = -softplus(-x), computed stably (``F.logsigmoid``).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    return _e.minimum(input, 0.0) - _e.log1p(_e.exp(-_e.abs(input)))


@overridable
def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta * x)) / beta``; linear where ``beta * x > threshold`` (``F.softplus``).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    beta : float, default 1.0
        The threshold between the quadratic and the linear part.
    threshold : float, default 20.0
        Above ``beta * x > threshold`` the result is ``x`` (linear).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    bx = input * beta
    soft = (_e.maximum(bx, 0.0) + _e.log1p(_e.exp(-_e.abs(bx)))) / beta
    return _s.where(bx > threshold, input, soft)


@overridable
def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x) (``F.silu``).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    inplace : bool, default False
        Accepted for PyTorch compatibility and ignored: the result is a new Tensor.

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    return input * sigmoid(input)


_SQRT_HALF = math.sqrt(0.5)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


@overridable
def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """Gaussian error linear unit (``F.gelu``).

    ``approximate="none"``: ``x * (1 + erf(x / sqrt(2))) / 2`` (exact, with
    :func:`arrayflow.erf`); ``"tanh"``: the tanh approximation.

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    approximate : str, default 'none'
        ``'none'`` (exact, with erf) or ``'tanh'`` (PyTorch's tanh approximation).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    if approximate == "none":
        return 0.5 * input * (1.0 + _erf(input * _SQRT_HALF))
    if approximate == "tanh":
        inner = _SQRT_2_OVER_PI * (input + 0.044715 * input * input * input)
        return 0.5 * input * (1.0 + _e.tanh(inner))
    raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")


@overridable
def softmax(input: Tensor, dim: int | None = None, dtype: DType | None = None) -> Tensor:
    """exp(x) / sum(exp(x)) along ``dim``, with max-subtraction (``F.softmax``).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    dim : int, optional
        The dimension to normalize over; None picks PyTorch's legacy default (0 for 0-, 1- and
        3-d inputs, else 1).
    dtype : DType, optional
        Cast the input to this dtype first; None keeps it.

    Returns
    -------
    Tensor
        Same shape as ``input``; sums to 1 along ``dim``.
    """
    return _tm._softmax(input, dim, dtype)


@overridable
def log_softmax(input: Tensor, dim: int | None = None, dtype: DType | None = None) -> Tensor:
    """x - logsumexp(x) along ``dim``, computed stably (``F.log_softmax``).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    dim : int, optional
        The dimension to normalize over; None picks PyTorch's legacy default (0 for 0-, 1- and
        3-d inputs, else 1).
    dtype : DType, optional
        Cast the input to this dtype first; None keeps it.

    Returns
    -------
    Tensor
        Same shape as ``input``.
    """
    return _tm._log_softmax(input, dim, dtype)


# --- linear layers ----------------------------------------------------------------------------

@overridable
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias`` (``F.linear``; weight of shape (out, in)).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    weight : Tensor
        The weight (shape as stated above).
    bias : Tensor, optional
        The bias added to the output; None for none.

    Returns
    -------
    Tensor
        Shape (*, out_features): the input's leading shape.
    """
    out = _la.matmul(input, _la.matrix_transpose(weight)) if weight.ndim == 2 else \
        _la.matmul(input, weight)
    if bias is not None:
        out = out + bias
    return out


@overridable
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``y_k = x1 @ W_k @ x2 + b_k`` (``F.bilinear``; weight of shape (out, in1, in2)).

    Parameters
    ----------
    input1 : Tensor
        First input, shape (N, in1_features) or (in1_features,).
    input2 : Tensor
        Second input, shape (N, in2_features) or (in2_features,), the batch shape of ``input1``.
    weight : Tensor
        The weight (shape as stated above).
    bias : Tensor, optional
        The bias added to the output; None for none.

    Returns
    -------
    Tensor
        Shape (N, out_features) (or (out_features,)).
    """
    # (..., 1, 1, in1) @ (out, in1, in2) -> (..., out, 1, in2); then with x2 (..., 1, in2, 1)
    x1 = _m.expand_dims(_m.expand_dims(input1, axis=-2), axis=-3)
    x2 = _m.expand_dims(_m.expand_dims(input2, axis=-1), axis=-3)
    out = _la.matmul(_la.matmul(x1, weight), x2)
    out = _m.reshape(out, tuple(out.shape[:-2]))
    if bias is not None:
        out = out + bias
    return out


# --- dropout ----------------------------------------------------------------------------------

@overridable
def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)``.

    The mask comes from the seeded generator of ``input``'s backend
    (:func:`arrayflow.manual_seed`). Identity when ``training`` is false.

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    p : float, default 0.5
        Probability of zeroing an element, in [0, 1].
    training : bool, default True
        Apply the operation as in training (False: evaluation behaviour, as stated above).
    inplace : bool, default False
        Accepted for PyTorch compatibility and ignored: the result is a new Tensor.

    Returns
    -------
    Tensor
        Same shape and dtype as ``input`` (``input`` itself when not training or ``p == 0``).
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    with _backend.use_backend(input.backend):
        u = _c.rand(tuple(input.shape), dtype=input.dtype)
    return _s.where(u >= p, input * (1.0 / (1.0 - p)), 0.0)


# --- normalization and embedding ------------------------------------------------------------

@overridable
def layer_norm(input: Tensor, normalized_shape: int | Sequence[int], weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalize over the last ``len(normalized_shape)`` dimensions (``F.layer_norm``).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    normalized_shape : int or sequence of int
        The trailing shape to normalize over.
    weight : Tensor, optional
        The weight (shape as stated above).
    bias : Tensor, optional
        The bias added to the output; None for none.
    eps : float, default 1e-05
        Added to the variance for numerical stability.

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    axes = tuple(range(-len(normalized_shape), 0))
    mu = _r.mean(input, axis=axes, keepdims=True)
    centered = input - mu
    var = _r.mean(centered * centered, axis=axes, keepdims=True)
    out = centered / _e.sqrt(var + eps)
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


@overridable
def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Batch normalization over every dimension but 1 (``F.batch_norm``).

    In training, normalizes with the batch statistics (biased variance) and
    updates ``running_mean``/``running_var`` in place (unbiased variance), as
    PyTorch does; otherwise uses the running statistics.

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    running_mean : Tensor or None
        Running mean of shape (C,), updated in place in training mode; None to use batch
        statistics only.
    running_var : Tensor or None
        Running variance of shape (C,), updated in place in training mode; None to use batch
        statistics only.
    weight : Tensor, optional
        The weight (shape as stated above).
    bias : Tensor, optional
        The bias added to the output; None for none.
    training : bool, default False
        Apply the operation as in training (False: evaluation behaviour, as stated above).
    momentum : float, default 0.1
        Weight of the new batch statistics in the running averages.
    eps : float, default 1e-05
        Added to the variance for numerical stability.

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    axes = (0,) + tuple(range(2, input.ndim))
    shape = (1, input.shape[1]) + (1,) * (input.ndim - 2)
    if training:
        mu = _r.mean(input, axis=axes, keepdims=True)
        centered = input - mu
        var = _r.mean(centered * centered, axis=axes, keepdims=True)
        if running_mean is not None or running_var is not None:
            n = 1
            for a in axes:
                n *= input.shape[a]
            with no_grad():  # in place, as PyTorch: every reference sees the update
                if running_mean is not None:
                    running_mean[...] = ((1 - momentum) * running_mean
                                         + momentum * _m.reshape(mu, (-1,)))
                if running_var is not None:
                    unbiased = _m.reshape(var, (-1,)) * (n / max(n - 1, 1))
                    running_var[...] = (1 - momentum) * running_var + momentum * unbiased
    else:
        mu = _m.reshape(running_mean, shape)
        var = _m.reshape(running_var, shape)
        centered = input - mu
    out = centered / _e.sqrt(var + eps)
    if weight is not None:
        out = out * _m.reshape(weight, shape)
    if bias is not None:
        out = out + _m.reshape(bias, shape)
    return out


@overridable
def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` at the integer indices ``input`` (``F.embedding``).

    ``padding_idx`` rows get no gradient. ``max_norm``, ``scale_grad_by_freq``
    and ``sparse`` are not supported (NotImplementedError).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    weight : Tensor
        The weight (shape as stated above).
    padding_idx : int, optional
        Index whose embedding row gets no gradient; None for none.
    max_norm : float, optional
        Not supported: must be None (NotImplementedError otherwise).
    norm_type : float, default 2.0
        The p of the p-norm for ``max_norm``.
    scale_grad_by_freq : bool, default False
        Not supported: must be False (NotImplementedError otherwise).
    sparse : bool, default False
        Not supported: must be False (NotImplementedError otherwise).

    Returns
    -------
    Tensor
        Shape ``input.shape + (embedding_dim,)``, the weight's dtype.
    """
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: max_norm, scale_grad_by_freq and sparse are "
                                  "not supported")
    flat = _m.reshape(input, (-1,))
    rows = _m.take(weight, flat, axis=0)
    if padding_idx is not None:
        if padding_idx < 0:
            padding_idx += weight.shape[0]
        keep = _m.expand_dims(flat != padding_idx, axis=-1)
        rows = _s.where(keep, rows, rows.detach())
    return _m.reshape(rows, tuple(input.shape) + (weight.shape[1],))


@overridable
def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding with a trailing class dimension (``F.one_hot``).

    ``num_classes`` must be given (inferring it would read values).

    Parameters
    ----------
    tensor : Tensor
        Integer class indices of any shape.
    num_classes : int, default -1
        Number of classes; must be given (-1, PyTorch's inference from the values, raises: it
        would read values).

    Returns
    -------
    Tensor
        int64, shape ``tensor.shape + (num_classes,)``.
    """
    if num_classes < 0:
        raise ValueError("one_hot: num_classes must be given (arrayflow never reads values)")
    with _backend.use_backend(tensor.backend):
        classes = _c.arange(num_classes, dtype=tensor.dtype)
    return _ops.dtypes.astype(_m.expand_dims(tensor, axis=-1) == classes,
                              _dtypes.int64)


# --- losses -----------------------------------------------------------------------------------

@overridable
def mse_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
             reduce: bool | None = None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    """Mean squared error (``F.mse_loss``).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    target : Tensor
        The target, broadcastable to ``input`` (class indices for the classification losses, as
        stated above).
    size_average : bool, optional
        Deprecated (PyTorch's): when it or ``reduce`` is given, they select the reduction
        instead of ``reduction`` (False: ``'sum'``), with PyTorch's warning.
    reduce : bool, optional
        Deprecated (PyTorch's): ``False`` selects ``'none'``; see ``size_average``.
    reduction : str, default 'mean'
        ``'none'`` (per-element losses), ``'mean'`` or ``'sum'``.
    weight : Tensor, optional
        The weight (shape as stated above).

    Returns
    -------
    Tensor
        0-d for ``'mean'`` and ``'sum'``; the per-element losses (the input's shape, less the
        class dimension for the classification losses) for ``'none'``.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    d = input - target
    loss = d * d
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, "mse_loss")


@overridable
def l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
            reduce: bool | None = None, reduction: str = "mean",
            weight: Tensor | None = None) -> Tensor:
    """Mean absolute error (``F.l1_loss``).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    target : Tensor
        The target, broadcastable to ``input`` (class indices for the classification losses, as
        stated above).
    size_average : bool, optional
        Deprecated (PyTorch's): when it or ``reduce`` is given, they select the reduction
        instead of ``reduction`` (False: ``'sum'``), with PyTorch's warning.
    reduce : bool, optional
        Deprecated (PyTorch's): ``False`` selects ``'none'``; see ``size_average``.
    reduction : str, default 'mean'
        ``'none'`` (per-element losses), ``'mean'`` or ``'sum'``.
    weight : Tensor, optional
        The weight (shape as stated above).

    Returns
    -------
    Tensor
        0-d for ``'mean'`` and ``'sum'``; the per-element losses (the input's shape, less the
        class dimension for the classification losses) for ``'none'``.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = _e.abs(input - target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, "l1_loss")


@overridable
def smooth_l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
                   reduce: bool | None = None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """Quadratic below ``beta``, linear above (``F.smooth_l1_loss``).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    target : Tensor
        The target, broadcastable to ``input`` (class indices for the classification losses, as
        stated above).
    size_average : bool, optional
        Deprecated (PyTorch's): when it or ``reduce`` is given, they select the reduction
        instead of ``reduction`` (False: ``'sum'``), with PyTorch's warning.
    reduce : bool, optional
        Deprecated (PyTorch's): ``False`` selects ``'none'``; see ``size_average``.
    reduction : str, default 'mean'
        ``'none'`` (per-element losses), ``'mean'`` or ``'sum'``.
    beta : float, default 1.0
        The threshold between the quadratic and the linear part.

    Returns
    -------
    Tensor
        0-d for ``'mean'`` and ``'sum'``; the per-element losses (the input's shape, less the
        class dimension for the classification losses) for ``'none'``.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    d = _e.abs(input - target)
    if beta == 0.0:
        loss = d
    else:
        loss = _s.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    return _reduce(loss, reduction, "smooth_l1_loss")


@overridable
def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """Quadratic below ``delta``, ``delta``-linear above (``F.huber_loss``).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    target : Tensor
        The target, broadcastable to ``input`` (class indices for the classification losses, as
        stated above).
    reduction : str, default 'mean'
        ``'none'`` (per-element losses), ``'mean'`` or ``'sum'``.
    delta : float, default 1.0
        The threshold between the quadratic and the linear part.
    weight : Tensor, optional
        The weight (shape as stated above).

    Returns
    -------
    Tensor
        0-d for ``'mean'`` and ``'sum'``; the per-element losses (the input's shape, less the
        class dimension for the classification losses) for ``'none'``.
    """
    d = _e.abs(input - target)
    loss = _s.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, "huber_loss")


def _class_view(weight, ndim):
    """``weight`` (C,) reshaped to broadcast along the class dimension 1 of an ``ndim`` input."""
    if ndim == 1:
        return weight
    return _m.reshape(weight, (1, weight.shape[0]) + (1,) * (ndim - 2))


def _checked_targets(target, n_classes, ignore_index, fname):
    """``target`` once every class index lies in ``[0, n_classes)`` or equals
    ``ignore_index``; else PyTorch's ``IndexError("Target -1 is out of bounds.")``.
    Eager backends raise now; on Dask the check is part of the graph and raises when
    the loss (or a gradient) is computed (``Backend.check_values``)."""
    def ok(xp, a):
        return ((a >= 0) & (a < n_classes)) | (a == ignore_index)

    def error(xp, a, mask):
        bad = xp.reshape(a, (-1,))[xp.reshape(~mask, (-1,))]
        return IndexError(f"arrayflow.nn.functional.{fname}: Target {int(bad[0])} is out of "
                          f"bounds.")

    b = target.backend
    arr = target.array
    checked = b.check_values(arr, ok, error)
    return target if checked is arr else Tensor._from_array(checked, b)


@overridable
def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
             size_average: bool | None = None, ignore_index: int = -100, reduce: bool | None = None,
             reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of class indices (``F.nll_loss``).

    ``input``: (N, C, ...) or (C,) log-probabilities; ``target``: (N, ...) or
    () int64 class indices. ``mean`` divides by the total weight of the
    non-ignored targets, as PyTorch does (NaN when every target is ignored).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    target : Tensor
        The target, broadcastable to ``input`` (class indices for the classification losses, as
        stated above).
    weight : Tensor, optional
        The weight (shape as stated above).
    size_average : bool, optional
        Deprecated (PyTorch's): when it or ``reduce`` is given, they select the reduction
        instead of ``reduction`` (False: ``'sum'``), with PyTorch's warning.
    ignore_index : int, default -100
        Targets equal to it contribute no loss and no gradient, and are left out of the mean.
    reduce : bool, optional
        Deprecated (PyTorch's): ``False`` selects ``'none'``; see ``size_average``.
    reduction : str, default 'mean'
        ``'none'`` (per-element losses), ``'mean'`` or ``'sum'``.

    Returns
    -------
    Tensor
        0-d for ``'mean'`` and ``'sum'``; the per-element losses (the input's shape, less the
        class dimension for the classification losses) for ``'none'``.

    Raises
    ------
    IndexError
        A target outside ``[0, C)`` that is not ``ignore_index`` (PyTorch: "Target -1
        is out of bounds."). On Dask, when the loss or its gradient is computed.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    cdim = 0 if input.ndim == 1 else 1
    target = _checked_targets(target, input.shape[cdim], ignore_index, "nll_loss")
    valid = target != ignore_index
    safe = _s.where(valid, target, 0)
    picked = _m.squeeze(
        _m.take_along_axis(input, _m.expand_dims(safe, axis=cdim), axis=cdim), axis=cdim)
    if weight is not None:
        w = _m.reshape(_m.take(weight, _m.reshape(safe, (-1,))), tuple(safe.shape))
        w = _s.where(valid, w, 0.0)
    else:
        w = _ops.dtypes.astype(valid, input.dtype)
    loss = -(picked * w)
    if reduction == "mean":
        return _mean_over_weight(_r.sum(loss), _r.sum(w))
    return _reduce(loss, reduction, "nll_loss")


def _mean_over_weight(total, den):
    """``total / den``, PyTorch's ``mean`` over the targets' weight: NaN when every target is
    ignored (``den == 0``), with a zero gradient there, not NaN (``0 * 1/0``)."""
    empty = den == 0
    return total / _s.where(empty, 1.0, den) + _s.where(empty, math.nan, den * 0.0)


@overridable
def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                  size_average: bool | None = None, ignore_index: int = -100,
                  reduce: bool | None = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Cross entropy of logits (``F.cross_entropy``): ``log_softmax`` + ``nll_loss``.

    ``target`` holds class indices (integer dtype, shape of ``input`` without
    the class dimension 1) or class probabilities (floating, same shape as
    ``input``). ``label_smoothing`` mixes the target with the uniform
    distribution, with PyTorch's normalization.

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    target : Tensor
        The target, broadcastable to ``input`` (class indices for the classification losses, as
        stated above).
    weight : Tensor, optional
        The weight (shape as stated above).
    size_average : bool, optional
        Deprecated (PyTorch's): when it or ``reduce`` is given, they select the reduction
        instead of ``reduction`` (False: ``'sum'``), with PyTorch's warning.
    ignore_index : int, default -100
        Targets equal to it contribute no loss and no gradient, and are left out of the mean.
    reduce : bool, optional
        Deprecated (PyTorch's): ``False`` selects ``'none'``; see ``size_average``.
    reduction : str, default 'mean'
        ``'none'`` (per-element losses), ``'mean'`` or ``'sum'``.
    label_smoothing : float, default 0.0
        Amount of smoothing in [0, 1]: the target mixes with the uniform distribution.

    Returns
    -------
    Tensor
        0-d for ``'mean'`` and ``'sum'``; the per-element losses (the input's shape, less the
        class dimension for the classification losses) for ``'none'``.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    cdim = 0 if input.ndim == 1 else 1
    n_classes = input.shape[cdim]
    logp = log_softmax(input, dim=cdim)
    if target.dtype in (_dtypes.float32, _dtypes.float64) and \
            tuple(target.shape) == tuple(input.shape):
        if label_smoothing > 0.0:
            target = target * (1.0 - label_smoothing) + label_smoothing / n_classes
        terms = logp * target
        if weight is not None:
            terms = terms * _class_view(weight, input.ndim)
        loss = -_r.sum(terms, axis=cdim)
        if reduction == "mean":
            n = 1 if input.ndim == 1 else math.prod(input.shape) // n_classes
            return _r.sum(loss) / n
        return _reduce(loss, reduction, "cross_entropy")
    target = _checked_targets(target, n_classes, ignore_index, "cross_entropy")
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing <= 0.0:
        return nll
    valid = target != ignore_index
    terms = logp if weight is None else logp * _class_view(weight, input.ndim)
    smooth = _s.where(valid, -_r.sum(terms, axis=cdim), 0.0)
    if reduction == "mean":
        if weight is not None:
            safe = _s.where(valid, target, 0)
            w = _m.reshape(_m.take(weight, _m.reshape(safe, (-1,))), tuple(safe.shape))
            denom = _r.sum(_s.where(valid, w, 0.0))
        else:
            denom = _r.sum(_ops.dtypes.astype(valid, input.dtype))
        smooth = _mean_over_weight(_r.sum(smooth), denom)
    else:
        smooth = _reduce(smooth, reduction, "cross_entropy")
    return (1.0 - label_smoothing) * nll + smooth * (label_smoothing / n_classes)


@overridable
def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> Tensor:
    """BCE of probabilities; logs clamped at -100 as in PyTorch (``F.binary_cross_entropy``).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    target : Tensor
        The target, broadcastable to ``input`` (class indices for the classification losses, as
        stated above).
    weight : Tensor, optional
        The weight (shape as stated above).
    size_average : bool, optional
        Deprecated (PyTorch's): when it or ``reduce`` is given, they select the reduction
        instead of ``reduction`` (False: ``'sum'``), with PyTorch's warning.
    reduce : bool, optional
        Deprecated (PyTorch's): ``False`` selects ``'none'``; see ``size_average``.
    reduction : str, default 'mean'
        ``'none'`` (per-element losses), ``'mean'`` or ``'sum'``.

    Returns
    -------
    Tensor
        0-d for ``'mean'`` and ``'sum'``; the per-element losses (the input's shape, less the
        class dimension for the classification losses) for ``'none'``.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    log_p = _e.maximum(_e.log(input), -100.0)
    log_q = _e.maximum(_e.log(1.0 - input), -100.0)
    loss = -(target * log_p + (1.0 - target) * log_q)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, "binary_cross_entropy")


@overridable
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average: bool | None = None, reduce: bool | None = None,
                                     reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """BCE of logits, computed stably (``F.binary_cross_entropy_with_logits``).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    target : Tensor
        The target, broadcastable to ``input`` (class indices for the classification losses, as
        stated above).
    weight : Tensor, optional
        The weight (shape as stated above).
    size_average : bool, optional
        Deprecated (PyTorch's): when it or ``reduce`` is given, they select the reduction
        instead of ``reduction`` (False: ``'sum'``), with PyTorch's warning.
    reduce : bool, optional
        Deprecated (PyTorch's): ``False`` selects ``'none'``; see ``size_average``.
    reduction : str, default 'mean'
        ``'none'`` (per-element losses), ``'mean'`` or ``'sum'``.
    pos_weight : Tensor, optional
        Weight of the positive examples, broadcast along the last dimension; None for 1.

    Returns
    -------
    Tensor
        0-d for ``'mean'`` and ``'sum'``; the per-element losses (the input's shape, less the
        class dimension for the classification losses) for ``'none'``.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    # softplus(-x) = log(1 + exp(-x)) = max(-x, 0) + log1p(exp(-|x|))
    sp_neg = _e.maximum(-input, 0.0) + _e.log1p(_e.exp(-_e.abs(input)))
    if pos_weight is not None:
        loss = (1.0 - target) * input + (1.0 + (pos_weight - 1.0) * target) * sp_neg
    else:
        loss = (1.0 - target) * input + sp_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, "binary_cross_entropy_with_logits")


# --- convolution and pooling (im2col from slicing, stack and matmul) ----------------------------

def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _pad2d(x, ph, pw, value=0.0, extra_h=0, extra_w=0):
    """Pad the last two dimensions of ``x`` with ``value`` using concat only: ``ph``/``pw`` on
    both sides, plus ``extra_h``/``extra_w`` more at the bottom/right (``ceil_mode``)."""
    for axis, before, after in ((-2, ph, ph + extra_h), (-1, pw, pw + extra_w)):
        if not (before or after):
            continue
        bands = []
        for n in (before, after):
            shape = list(x.shape)
            shape[axis] = n
            with _backend.use_backend(x.backend):
                bands.append(_c.full(tuple(shape), value, dtype=x.dtype) if n else None)
        x = _m.concat([b for b in (bands[0], x, bands[1]) if b is not None], axis=axis)
    return x


def _pool_extent(size, k, s, p, d, ceil_mode):
    """PyTorch's pooling output size along one axis and the extra padding ``ceil_mode`` needs
    at the end (``pooling_output_shape``: the last window must start inside the input or the
    left padding)."""
    span = size + 2 * p - d * (k - 1) - 1
    out = (span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out, max(0, (out - 1) * s + d * (k - 1) + 1 - (size + 2 * p))


def _patches(x, kh, kw, sh, sw, dh, dw):
    """(N, C, H, W) -> (N, C, kh*kw, OH, OW): the strided windows, by slicing."""
    h, w = x.shape[-2], x.shape[-1]
    oh = (h - dh * (kh - 1) - 1) // sh + 1
    ow = (w - dw * (kw - 1) - 1) // sw + 1
    cols = []
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dh, j * dw
            cols.append(x[:, :, r0:r0 + sh * (oh - 1) + 1:sh, c0:c0 + sw * (ow - 1) + 1:sw])
    return _m.stack(cols, axis=2), oh, ow


@overridable
def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
           stride: int | tuple[int, ...] = 1, padding: int | tuple[int, ...] | str = 0,
           dilation: int | tuple[int, ...] = 1, groups: int = 1) -> Tensor:
    """2-D cross-correlation (``F.conv2d``): input (N, C, H, W), weight (O, C/groups, kh, kw).

    ``padding`` is an int, a pair, ``"valid"`` or ``"same"`` (stride 1).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    weight : Tensor
        The weight (shape as stated above).
    bias : Tensor, optional
        The bias added to the output; None for none.
    stride : int or tuple[int, ...], default 1
        Step between windows; None uses ``kernel_size``.
    padding : int or tuple[int, ...] or str, default 0
        Implicit zero padding on both sides (for convolutions also ``'same'`` or ``'valid'``).
    dilation : int or tuple[int, ...], default 1
        Spacing between window elements.
    groups : int, default 1
        Number of blocked connections from input to output channels.

    Returns
    -------
    Tensor
        Shape (N, O, H_out, W_out) (or (O, H_out, W_out) for an unbatched input).
    """
    unbatched = input.ndim == 3
    if unbatched:
        input = _m.expand_dims(input, axis=0)
    sh, sw = _pair(stride)
    dh, dw = _pair(dilation)
    kh, kw = weight.shape[-2], weight.shape[-1]
    if padding == "valid":
        padding = 0
    if padding == "same":
        th, tw = dh * (kh - 1), dw * (kw - 1)
        if th % 2 or tw % 2:
            raise NotImplementedError("conv2d: padding='same' with an even kernel extent")
        padding = (th // 2, tw // 2)
    ph, pw = _pair(padding)
    x = _pad2d(input, ph, pw)
    n, c = x.shape[0], x.shape[1]
    cols, oh, ow = _patches(x, kh, kw, sh, sw, dh, dw)  # (N, C, K, OH, OW)
    o = weight.shape[0]
    cg, og = c // groups, o // groups
    outs = []
    for g in range(groups):
        cg_cols = cols[:, g * cg:(g + 1) * cg, ...]
        cg_cols = _m.reshape(cg_cols, (n, cg * kh * kw, oh * ow))
        wg = _m.reshape(weight[g * og:(g + 1) * og, ...], (og, cg * kh * kw))
        outs.append(_la.matmul(wg, cg_cols))  # (N, og, OH*OW)
    out = outs[0] if groups == 1 else _m.concat(outs, axis=1)
    out = _m.reshape(out, (n, o, oh, ow))
    if bias is not None:
        out = out + _m.reshape(bias, (1, o, 1, 1))
    return _m.squeeze(out, axis=0) if unbatched else out


@overridable
def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
           stride: int | tuple[int, ...] = 1, padding: int | tuple[int, ...] | str = 0,
           dilation: int | tuple[int, ...] = 1, groups: int = 1) -> Tensor:
    """1-D cross-correlation (``F.conv1d``): input (N, C, L), weight (O, C/groups, k).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    weight : Tensor
        The weight (shape as stated above).
    bias : Tensor, optional
        The bias added to the output; None for none.
    stride : int or tuple[int, ...], default 1
        Step between windows; None uses ``kernel_size``.
    padding : int or tuple[int, ...] or str, default 0
        Implicit zero padding on both sides (for convolutions also ``'same'`` or ``'valid'``).
    dilation : int or tuple[int, ...], default 1
        Spacing between window elements.
    groups : int, default 1
        Number of blocked connections from input to output channels.

    Returns
    -------
    Tensor
        Shape (N, O, L_out) (or (O, L_out) for an unbatched input).
    """
    pad: str | tuple[int, int]
    if isinstance(padding, str):
        pad = padding
    else:
        pad = (0, padding if isinstance(padding, int) else padding[0])
    s = stride if isinstance(stride, int) else stride[0]
    d = dilation if isinstance(dilation, int) else dilation[0]
    x = _m.expand_dims(input, axis=-2)
    out = conv2d(x, _m.expand_dims(weight, axis=-2), bias, (1, s), pad, (1, d), groups)
    return _m.squeeze(out, axis=-2)


@overridable
def max_pool2d(input: Tensor, kernel_size: int | tuple[int, ...],
               stride: int | tuple[int, ...] | None = None, padding: int | tuple[int, ...] = 0,
               dilation: int | tuple[int, ...] = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """2-D max pooling (``F.max_pool2d``): input (N, C, H, W) or (C, H, W).

    ``ceil_mode`` rounds the output size up as PyTorch does (the last window starts inside
    the input or the left padding); ``return_indices`` also returns the int64 position of
    each maximum in the flattened ``H * W`` plane (the first maximum of a window, as
    PyTorch's CPU kernel).

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    kernel_size : int or tuple[int, ...]
        Window size (one int for both dimensions, or a pair).
    stride : int or tuple[int, ...], optional
        Step between windows; None uses ``kernel_size``.
    padding : int or tuple[int, ...], default 0
        Implicit zero padding on both sides (for convolutions also ``'same'`` or ``'valid'``).
    dilation : int or tuple[int, ...], default 1
        Spacing between window elements.
    ceil_mode : bool, default False
        Use ceil instead of floor for the output size.
    return_indices : bool, default False
        Also return the flat indices of the maxima (per input plane).

    Returns
    -------
    Tensor or tuple of Tensor
        The pooled Tensor of shape (N, C, H_out, W_out) (or (C, H_out, W_out)), with the int64
        indices as a second element when ``return_indices``.
    """
    unbatched = input.ndim == 3
    if unbatched:
        input = _m.expand_dims(input, axis=0)
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(stride if stride is not None else kernel_size)
    dh, dw = _pair(dilation)
    ph, pw = _pair(padding)
    h, w = input.shape[-2], input.shape[-1]
    oh, eh = _pool_extent(h, kh, sh, ph, dh, ceil_mode)
    ow, ew = _pool_extent(w, kw, sw, pw, dw, ceil_mode)
    x = _pad2d(input, ph, pw, value=-math.inf, extra_h=eh, extra_w=ew)
    cols, _, _ = _patches(x, kh, kw, sh, sw, dh, dw)
    out = _r.max(cols, axis=2)
    if not return_indices:
        return _m.squeeze(out, axis=0) if unbatched else out
    k = _s.argmax(cols.detach(), axis=2)  # (N, C, OH, OW): the window position of the max
    with _backend.use_backend(input.backend):
        rows = _m.reshape(_c.arange(oh, dtype=k.dtype) * sh - ph, (oh, 1))
        colz = _m.reshape(_c.arange(ow, dtype=k.dtype) * sw - pw, (1, ow))
    idx = (rows + (k // kw) * dh) * w + colz + (k % kw) * dw
    if unbatched:
        return _m.squeeze(out, axis=0), _m.squeeze(idx, axis=0)
    return out, idx


@overridable
def avg_pool2d(input: Tensor, kernel_size: int | tuple[int, ...],
               stride: int | tuple[int, ...] | None = None, padding: int | tuple[int, ...] = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """2-D average pooling (``F.avg_pool2d``): input (N, C, H, W) or (C, H, W).

    The divisor is PyTorch's: the window's size within the padded input
    (``count_include_pad=True``, windows that ``ceil_mode`` extends past it count only the
    part inside), the number of input elements in it (``False``), or ``divisor_override``.

    Parameters
    ----------
    input : Tensor
        The input Tensor (any shape unless stated above; floating dtype).
    kernel_size : int or tuple[int, ...]
        Window size (one int for both dimensions, or a pair).
    stride : int or tuple[int, ...], optional
        Step between windows; None uses ``kernel_size``.
    padding : int or tuple[int, ...], default 0
        Implicit zero padding on both sides (for convolutions also ``'same'`` or ``'valid'``).
    ceil_mode : bool, default False
        Use ceil instead of floor for the output size.
    count_include_pad : bool, default True
        Include the zero padding in the averages.
    divisor_override : int, optional
        If given, the divisor of every window instead of its size.

    Returns
    -------
    Tensor
        Shape (N, C, H_out, W_out) (or (C, H_out, W_out)), the input's dtype.
    """
    unbatched = input.ndim == 3
    if unbatched:
        input = _m.expand_dims(input, axis=0)
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(stride if stride is not None else kernel_size)
    ph, pw = _pair(padding)
    h, w = input.shape[-2], input.shape[-1]
    _, eh = _pool_extent(h, kh, sh, ph, 1, ceil_mode)
    _, ew = _pool_extent(w, kw, sw, pw, 1, ceil_mode)
    x = _pad2d(input, ph, pw, extra_h=eh, extra_w=ew)
    cols, _, _ = _patches(x, kh, kw, sh, sw, 1, 1)
    total = _r.sum(cols, axis=2)
    if divisor_override is not None:
        out = total / divisor_override
    elif (count_include_pad or (ph == 0 and pw == 0)) and not (eh or ew):
        out = total / (kh * kw)
    else:
        with _backend.use_backend(input.backend):
            ones = _c.ones((1, 1, h, w), dtype=input.dtype)
        if count_include_pad:  # the padded input counts, the ceil_mode overhang does not
            region = _pad2d(_pad2d(ones, ph, pw, value=1.0), 0, 0, extra_h=eh, extra_w=ew)
        else:
            region = _pad2d(ones, ph, pw, extra_h=eh, extra_w=ew)
        counts, _, _ = _patches(region, kh, kw, sh, sw, 1, 1)
        out = total / _r.sum(counts, axis=2)
    return _m.squeeze(out, axis=0) if unbatched else out
