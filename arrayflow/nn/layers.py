"""Layers and losses with PyTorch's constructors, defaults, initialization and reprs.

Each layer's ``forward`` calls :mod:`arrayflow.nn.functional`; parameters are
created on the current backend in the default floating dtype and initialized
from that backend's seeded generator, as PyTorch does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .. import _dtypes
from .._dtypes import DType
from ..autograd import no_grad
from ..ops import creation as _c
from ..ops import manipulation as _m
from ..ops.dtypes import astype
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = [
    "ELU", "GELU", "SELU", "AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d",
    "BatchNorm2d", "Bilinear", "Conv1d", "Conv2d", "CrossEntropyLoss", "Dropout", "Embedding",
    "Flatten", "HuberLoss", "Identity", "L1Loss", "LayerNorm", "LeakyReLU", "Linear",
    "LogSigmoid", "LogSoftmax", "MSELoss", "MaxPool2d", "NLLLoss", "ReLU", "ReLU6", "SiLU",
    "Sigmoid", "SmoothL1Loss", "Softmax", "Softplus", "Tanh", "Unflatten",
]


def _empty(*shape, dtype=None):
    return _c.empty(tuple(shape), dtype=dtype)


def _tuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


# --- simple layers ----------------------------------------------------------------------------

class Identity(Module):
    """Returns its input (``nn.Identity``); constructor arguments are ignored.

    Parameters
    ----------
    *args : Any
        Accepted and ignored (PyTorch's ``nn.Identity`` ignores them too).
    **kwargs : Any
        Accepted and ignored.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            The input (shape as in the class description).

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        return input


class Linear(Module):
    """``y = x @ W.T + b`` (``nn.Linear``): weight (out, in), bias (out,).

    Initialized as PyTorch: ``kaiming_uniform_(W, a=sqrt(5))`` and
    ``b ~ U(-1/sqrt(in), 1/sqrt(in))``.

    Parameters
    ----------
    in_features : int
        Size of each input sample (the last dimension).
    out_features : int
        Size of each output sample.
    bias : bool, default True
        Learn an additive bias.
    device : Any, optional
        Device of the parameters (a PyTorch-style device selects its backend); None for the
        current backend.
    dtype : DType, optional
        Floating dtype of the parameters; None for the default dtype.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Any | None = None, dtype: DType | None = None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(_empty(out_features, in_features, dtype=dtype))
        if bias:
            self.bias = Parameter(_empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-initialize the parameters as PyTorch does (from the backend's seeded generator)."""
        _kaiming_default(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            The input (shape as in the class description).

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        """The detail of ``repr(layer)`` (PyTorch ``extra_repr``).

        Returns
        -------
        str
            The constructor arguments shown by ``repr``.
        """
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


def _kaiming_default(weight, bias):
    """PyTorch's default for Linear and Conv: kaiming_uniform_(a=sqrt(5)), U(+-1/sqrt(fan_in))."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)


class Bilinear(Module):
    """``y = x1 @ W_k @ x2 + b`` (``nn.Bilinear``): weight (out, in1, in2).

    Parameters
    ----------
    in1_features : int
        Size of each first input sample.
    in2_features : int
        Size of each second input sample.
    out_features : int
        Size of each output sample.
    bias : bool, default True
        Learn an additive bias.
    device : Any, optional
        Device of the parameters (a PyTorch-style device selects its backend); None for the
        current backend.
    dtype : DType, optional
        Floating dtype of the parameters; None for the default dtype.
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True,
                 device: Any | None = None, dtype: DType | None = None) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(_empty(out_features, in1_features, in2_features, dtype=dtype))
        if bias:
            self.bias = Parameter(_empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-initialize the parameters as PyTorch does (from the backend's seeded generator)."""
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input1 : Tensor
            First input, shape (N, in1_features) or (in1_features,).
        input2 : Tensor
            Second input, shape (N, in2_features) or (in2_features,), the batch shape of
            ``input1``.

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        """The detail of ``repr(layer)`` (PyTorch ``extra_repr``).

        Returns
        -------
        str
            The constructor arguments shown by ``repr``.
        """
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class Flatten(Module):
    """Flatten dimensions ``start_dim..end_dim`` into one (``nn.Flatten``).

    Parameters
    ----------
    start_dim : int, default 1
        The first dimension to flatten.
    end_dim : int, default -1
        The last dimension to flatten.
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            The input (shape as in the class description).

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        shape = tuple(input.shape)
        nd = len(shape)
        if nd == 0:
            return _m.reshape(input, (1,))
        s = self.start_dim % nd
        e = self.end_dim % nd
        return _m.reshape(input, shape[:s] + (-1,) + shape[e + 1:])

    def extra_repr(self) -> str:
        """The detail of ``repr(layer)`` (PyTorch ``extra_repr``).

        Returns
        -------
        str
            The constructor arguments shown by ``repr``.
        """
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Expand dimension ``dim`` into ``unflattened_size`` (``nn.Unflatten``).

    Parameters
    ----------
    dim : int
        The dimension to expand.
    unflattened_size : Sequence[int]
        The sizes that replace dimension ``dim``.
    """

    def __init__(self, dim: int, unflattened_size: Sequence[int]) -> None:
        super().__init__()
        self.dim = dim
        self.unflattened_size = tuple(unflattened_size)

    def forward(self, input: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            The input (shape as in the class description).

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        shape = tuple(input.shape)
        d = self.dim % len(shape)
        return _m.reshape(input, shape[:d] + self.unflattened_size + shape[d + 1:])

    def extra_repr(self) -> str:
        """The detail of ``repr(layer)`` (PyTorch ``extra_repr``).

        Returns
        -------
        str
            The constructor arguments shown by ``repr``.
        """
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Dropout(Module):
    """Zero elements with probability ``p`` in training (``nn.Dropout``).

    Parameters
    ----------
    p : float, default 0.5
        Probability of zeroing an element, in [0, 1].
    inplace : bool, default False
        Accepted for PyTorch compatibility and ignored: the result is a new Tensor.
    """

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            The input (shape as in the class description).

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        """The detail of ``repr(layer)`` (PyTorch ``extra_repr``).

        Returns
        -------
        str
            The constructor arguments shown by ``repr``.
        """
        return f"p={self.p}, inplace={self.inplace}"


# --- activations ------------------------------------------------------------------------------

class _Inplace(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ReLU(_Inplace):
    """``max(x, 0)`` (``nn.ReLU``).

    Parameters
    ----------
    inplace : bool, default False
        Accepted for PyTorch compatibility and ignored: the result is a new Tensor.
    """

    def forward(self, input: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            The input (shape as in the class description).

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        return F.relu(input)


class ReLU6(_Inplace):
    """``min(max(x, 0), 6)`` (``nn.ReLU6``).

    Parameters
    ----------
    inplace : bool, default False
        Accepted for PyTorch compatibility and ignored: the result is a new Tensor.
    """

    def forward(self, input: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            The input (shape as in the class description).

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        return F.relu6(input)


class SiLU(_Inplace):
    """``x * sigmoid(x)`` (``nn.SiLU``).

    Parameters
    ----------
    inplace : bool, default False
        Accepted for PyTorch compatibility and ignored: the result is a new Tensor.
    """

    def forward(self, input: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            The input (shape as in the class description).

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        return F.silu(input)


class SELU(_Inplace):
    """Scaled ELU (``nn.SELU``).

    Parameters
    ----------
    inplace : bool, default False
        Accepted for PyTorch compatibility and ignored: the result is a new Tensor.
    """

    def forward(self, input: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            The input (shape as in the class description).

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        return F.selu(input)


class Tanh(Module):
    """Hyperbolic tangent (``nn.Tanh``)."""

    def forward(self, input: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            The input (shape as in the class description).

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        return F.tanh(input)


class Sigmoid(Module):
    """Logistic sigmoid (``nn.Sigmoid``)."""

    def forward(self, input: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            The input (shape as in the class description).

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        return F.sigmoid(input)


class LogSigmoid(Module):
    """``log(sigmoid(x))`` (``nn.LogSigmoid``)."""

    def forward(self, input: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            The input (shape as in the class description).

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        return F.logsigmoid(input)


class LeakyReLU(Module):
    """``nn.LeakyReLU(negative_slope=0.01)``.

    Parameters
    ----------
    negative_slope : float, default 0.01
        Slope of the negative part.
    inplace : bool, default False
        Accepted for PyTorch compatibility and ignored: the result is a new Tensor.
    """

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            The input (shape as in the class description).

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        return F.leaky_relu(input, self.negative_slope)

    def extra_repr(self) -> str:
        """The detail of ``repr(layer)`` (PyTorch ``extra_repr``).

        Returns
        -------
        str
            The constructor arguments shown by ``repr``.
        """
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace
                                                           else "")


class ELU(Module):
    """``nn.ELU(alpha=1.0)``.

    Parameters
    ----------
    alpha : float, default 1.0
        The scale of the negative part.
    inplace : bool, default False
        Accepted for PyTorch compatibility and ignored: the result is a new Tensor.
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            The input (shape as in the class description).

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        return F.elu(input, self.alpha)

    def extra_repr(self) -> str:
        """The detail of ``repr(layer)`` (PyTorch ``extra_repr``).

        Returns
        -------
        str
            The constructor arguments shown by ``repr``.
        """
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    """``nn.GELU(approximate='none')``: exact (erf) or tanh approximation.

    Parameters
    ----------
    approximate : str, default 'none'
        ``'none'`` (exact, with erf) or ``'tanh'`` (PyTorch's tanh approximation).
    """

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            The input (shape as in the class description).

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        """The detail of ``repr(layer)`` (PyTorch ``extra_repr``).

        Returns
        -------
        str
            The constructor arguments shown by ``repr``.
        """
        return f"approximate={self.approximate!r}"


class Softplus(Module):
    """``nn.Softplus(beta=1.0, threshold=20.0)``.

    Parameters
    ----------
    beta : float, default 1.0
        The threshold between the quadratic and the linear part.
    threshold : float, default 20.0
        Above ``beta * x > threshold`` the result is ``x`` (linear).
    """

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            The input (shape as in the class description).

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        """The detail of ``repr(layer)`` (PyTorch ``extra_repr``).

        Returns
        -------
        str
            The constructor arguments shown by ``repr``.
        """
        return f"beta={self.beta}, threshold={self.threshold}"


class Softmax(Module):
    """``nn.Softmax(dim=None)``.

    Parameters
    ----------
    dim : int, optional
        The dimension to normalize over; None picks PyTorch's legacy default.
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            The input (shape as in the class description).

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        return F.softmax(input, self.dim)

    def extra_repr(self) -> str:
        """The detail of ``repr(layer)`` (PyTorch ``extra_repr``).

        Returns
        -------
        str
            The constructor arguments shown by ``repr``.
        """
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """``nn.LogSoftmax(dim=None)``.

    Parameters
    ----------
    dim : int, optional
        The dimension to normalize over; None picks PyTorch's legacy default.
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            The input (shape as in the class description).

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        return F.log_softmax(input, self.dim)

    def extra_repr(self) -> str:
        """The detail of ``repr(layer)`` (PyTorch ``extra_repr``).

        Returns
        -------
        str
            The constructor arguments shown by ``repr``.
        """
        return f"dim={self.dim}"


# --- normalization and embedding ------------------------------------------------------------

class LayerNorm(Module):
    """``nn.LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True, bias=True)``.

    Parameters
    ----------
    normalized_shape : int or Sequence[int]
        The trailing shape to normalize over.
    eps : float, default 1e-05
        Added to the variance for numerical stability.
    elementwise_affine : bool, default True
        Learn an element-wise scale (and shift, with ``bias``) of ``normalized_shape``.
    bias : bool, default True
        Learn an additive bias.
    device : Any, optional
        Device of the parameters (a PyTorch-style device selects its backend); None for the
        current backend.
    dtype : DType, optional
        Floating dtype of the parameters; None for the default dtype.
    """

    def __init__(self, normalized_shape: int | Sequence[int], eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True, device: Any | None = None,
                 dtype: DType | None = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_c.ones(self.normalized_shape, dtype=dtype))
            if bias:
                self.bias = Parameter(_c.zeros(self.normalized_shape, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        """Re-initialize the parameters as PyTorch does (from the backend's seeded generator)."""
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            The input (shape as in the class description).

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        """The detail of ``repr(layer)`` (PyTorch ``extra_repr``).

        Returns
        -------
        str
            The constructor arguments shown by ``repr``.
        """
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class _BatchNorm(Module):
    _expected_ndim: tuple = ()

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any | None = None,
                 dtype: DType | None = None, *, bias: bool = True) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(_c.ones((num_features,), dtype=dtype))
            if bias:
                self.bias = Parameter(_c.zeros((num_features,), dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _c.zeros((num_features,), dtype=dtype))
            self.register_buffer("running_var", _c.ones((num_features,), dtype=dtype))
            self.register_buffer("num_batches_tracked", _c.zeros((), dtype=_dtypes.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in self._expected_ndim:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in self._expected_ndim)} "
                             f"input (got {input.ndim}D input)")
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked += 1
            if self.momentum is None:  # cumulative moving average
                momentum = 1.0 / _dtypes_cast(self.num_batches_tracked, self.running_mean)
        use_batch = self.training or self.running_mean is None
        return F.batch_norm(
            input,
            self.running_mean if not self.training or self.track_running_stats else None,
            self.running_var if not self.training or self.track_running_stats else None,
            self.weight, self.bias, use_batch, momentum, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


def _dtypes_cast(t, like):
    return astype(t, like.dtype)


class BatchNorm1d(_BatchNorm):
    """``nn.BatchNorm1d``: input (N, C) or (N, C, L).

    Parameters
    ----------
    num_features : int
        Number of channels C.
    eps : float, default 1e-05
        Added to the variance for numerical stability.
    momentum : float or None, default 0.1
        Weight of the new batch statistics in the running averages; None for a cumulative
        average.
    affine : bool, default True
        Learn a per-channel scale (``weight``) and shift (``bias``).
    track_running_stats : bool, default True
        Keep running mean and variance buffers (used in evaluation mode).
    device : Any, optional
        Device of the parameters (a PyTorch-style device selects its backend); None for the
        current backend.
    dtype : DType, optional
        Floating dtype of the parameters; None for the default dtype.
    bias : bool, default True
        Learn an additive bias.
    """

    _expected_ndim = (2, 3)


class BatchNorm2d(_BatchNorm):
    """``nn.BatchNorm2d``: input (N, C, H, W).

    Parameters
    ----------
    num_features : int
        Number of channels C.
    eps : float, default 1e-05
        Added to the variance for numerical stability.
    momentum : float or None, default 0.1
        Weight of the new batch statistics in the running averages; None for a cumulative
        average.
    affine : bool, default True
        Learn a per-channel scale (``weight``) and shift (``bias``).
    track_running_stats : bool, default True
        Keep running mean and variance buffers (used in evaluation mode).
    device : Any, optional
        Device of the parameters (a PyTorch-style device selects its backend); None for the
        current backend.
    dtype : DType, optional
        Floating dtype of the parameters; None for the default dtype.
    bias : bool, default True
        Learn an additive bias.
    """

    _expected_ndim = (4,)


class Embedding(Module):
    """``nn.Embedding(num_embeddings, embedding_dim, padding_idx=None)``; weight ~ N(0, 1).

    Parameters
    ----------
    num_embeddings : int
        Number of rows of the embedding table.
    embedding_dim : int
        Size of each embedding vector.
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
    _weight : Tensor, optional
        Initial weight (num_embeddings, embedding_dim); None draws it from N(0, 1).
    _freeze : bool, default False
        Create the weight with ``requires_grad=False``.
    device : Any, optional
        Device of the parameters (a PyTorch-style device selects its backend); None for the
        current backend.
    dtype : DType, optional
        Floating dtype of the parameters; None for the default dtype.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False,
                 _weight: Tensor | None = None, _freeze: bool = False, device: Any | None = None,
                 dtype: DType | None = None) -> None:
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            if padding_idx < 0:
                padding_idx += num_embeddings
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        if _weight is None:
            self.weight = Parameter(_empty(num_embeddings, embedding_dim, dtype=dtype),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        """Re-initialize the parameters as PyTorch does (from the backend's seeded generator)."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx, ...] = 0.0

    def forward(self, input: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            Integer indices of any shape.

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        """The detail of ``repr(layer)`` (PyTorch ``extra_repr``).

        Returns
        -------
        str
            The constructor arguments shown by ``repr``.
        """
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        return s


# --- convolution and pooling ------------------------------------------------------------------

class _ConvNd(Module):
    _n = 2
    _fn = None

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | tuple[int, ...],
                 stride: int | tuple[int, ...] = 1, padding: int | tuple[int, ...] | str = 0,
                 dilation: int | tuple[int, ...] = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any | None = None,
                 dtype: DType | None = None) -> None:
        super().__init__()
        n = self._n
        if in_channels % groups or out_channels % groups:
            raise ValueError("in_channels and out_channels must be divisible by groups")
        if padding_mode != "zeros":
            raise NotImplementedError("only padding_mode='zeros' is supported")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _tuple(kernel_size, n)
        self.stride = _tuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n)
        self.dilation = _tuple(dilation, n)
        self.groups = groups
        self.padding_mode = padding_mode
        self.weight = Parameter(_empty(out_channels, in_channels // groups, *self.kernel_size,
                                       dtype=dtype))
        if bias:
            self.bias = Parameter(_empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _kaiming_default(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        fn = F.conv2d if self._n == 2 else F.conv1d
        return fn(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                  self.groups)

    def extra_repr(self) -> str:
        n = self._n
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}"
             f", stride={self.stride}")
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


class Conv1d(_ConvNd):
    """``nn.Conv1d``: input (N, C, L), weight (out, in/groups, k).

    Parameters
    ----------
    in_channels : int
        Number of input channels.
    out_channels : int
        Number of output channels.
    kernel_size : int or tuple[int, ...]
        Window size (one int for both dimensions, or a pair).
    stride : int or tuple[int, ...], default 1
        Step between windows; None uses ``kernel_size``.
    padding : int or tuple[int, ...] or str, default 0
        Implicit zero padding on both sides (for convolutions also ``'same'`` or ``'valid'``).
    dilation : int or tuple[int, ...], default 1
        Spacing between window elements.
    groups : int, default 1
        Number of blocked connections from input to output channels.
    bias : bool, default True
        Learn an additive bias.
    padding_mode : str, default 'zeros'
        Only ``'zeros'`` (NotImplementedError otherwise).
    device : Any, optional
        Device of the parameters (a PyTorch-style device selects its backend); None for the
        current backend.
    dtype : DType, optional
        Floating dtype of the parameters; None for the default dtype.
    """

    _n = 1


class Conv2d(_ConvNd):
    """``nn.Conv2d``: input (N, C, H, W), weight (out, in/groups, kh, kw).

    Parameters
    ----------
    in_channels : int
        Number of input channels.
    out_channels : int
        Number of output channels.
    kernel_size : int or tuple[int, ...]
        Window size (one int for both dimensions, or a pair).
    stride : int or tuple[int, ...], default 1
        Step between windows; None uses ``kernel_size``.
    padding : int or tuple[int, ...] or str, default 0
        Implicit zero padding on both sides (for convolutions also ``'same'`` or ``'valid'``).
    dilation : int or tuple[int, ...], default 1
        Spacing between window elements.
    groups : int, default 1
        Number of blocked connections from input to output channels.
    bias : bool, default True
        Learn an additive bias.
    padding_mode : str, default 'zeros'
        Only ``'zeros'`` (NotImplementedError otherwise).
    device : Any, optional
        Device of the parameters (a PyTorch-style device selects its backend); None for the
        current backend.
    dtype : DType, optional
        Floating dtype of the parameters; None for the default dtype.
    """

    _n = 2


class MaxPool2d(Module):
    """``nn.MaxPool2d(kernel_size, stride=None, padding=0, dilation=1)``.

    Parameters
    ----------
    kernel_size : int or tuple[int, ...]
        Window size (one int for both dimensions, or a pair).
    stride : int or tuple[int, ...], optional
        Step between windows; None uses ``kernel_size``.
    padding : int or tuple[int, ...], default 0
        Implicit zero padding on both sides (for convolutions also ``'same'`` or ``'valid'``).
    dilation : int or tuple[int, ...], default 1
        Spacing between window elements.
    return_indices : bool, default False
        Also return the flat indices of the maxima (per input plane).
    ceil_mode : bool, default False
        Use ceil instead of floor for the output size.
    """

    def __init__(self, kernel_size: int | tuple[int, ...],
                 stride: int | tuple[int, ...] | None = None, padding: int | tuple[int, ...] = 0,
                 dilation: int | tuple[int, ...] = 1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            The input (shape as in the class description).

        Returns
        -------
        Tensor or tuple of Tensor
            The output, with the indices of the maxima when ``return_indices``.
        """
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)

    def extra_repr(self) -> str:
        """The detail of ``repr(layer)`` (PyTorch ``extra_repr``).

        Returns
        -------
        str
            The constructor arguments shown by ``repr``.
        """
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"
                f", dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool2d(Module):
    """``nn.AvgPool2d(kernel_size, stride=None, padding=0)``.

    Parameters
    ----------
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
    """

    def __init__(self, kernel_size: int | tuple[int, ...],
                 stride: int | tuple[int, ...] | None = None, padding: int | tuple[int, ...] = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        """Apply the layer (see the class description).

        Parameters
        ----------
        input : Tensor
            The input (shape as in the class description).

        Returns
        -------
        Tensor
            The output (shape as in the class description).
        """
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        """The detail of ``repr(layer)`` (PyTorch ``extra_repr``).

        Returns
        -------
        str
            The constructor arguments shown by ``repr``.
        """
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


# --- losses -----------------------------------------------------------------------------------

class _Loss(Module):
    def __init__(self, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__()
        # the deprecated flags, when given, select the reduction (PyTorch's _Loss)
        self.reduction = F._legacy_reduction(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """``nn.MSELoss(reduction='mean')``.

    Parameters
    ----------
    size_average : bool, optional
        Deprecated (PyTorch's): when it or ``reduce`` is given, they select the reduction
        instead of ``reduction`` (False: ``'sum'``), with PyTorch's warning.
    reduce : bool, optional
        Deprecated (PyTorch's): ``False`` selects ``'none'``; see ``size_average``.
    reduction : str, default 'mean'
        ``'none'`` (per-element losses), ``'mean'`` or ``'sum'``.
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The loss of ``input`` against ``target`` (see the class description).

        Parameters
        ----------
        input : Tensor
            The predictions (logits or probabilities, as the loss expects).
        target : Tensor
            The targets (class indices or values, as the loss expects).

        Returns
        -------
        Tensor
            The loss: 0-d unless ``reduction='none'``.
        """
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """``nn.L1Loss(reduction='mean')``.

    Parameters
    ----------
    size_average : bool, optional
        Deprecated (PyTorch's): when it or ``reduce`` is given, they select the reduction
        instead of ``reduction`` (False: ``'sum'``), with PyTorch's warning.
    reduce : bool, optional
        Deprecated (PyTorch's): ``False`` selects ``'none'``; see ``size_average``.
    reduction : str, default 'mean'
        ``'none'`` (per-element losses), ``'mean'`` or ``'sum'``.
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The loss of ``input`` against ``target`` (see the class description).

        Parameters
        ----------
        input : Tensor
            The predictions (logits or probabilities, as the loss expects).
        target : Tensor
            The targets (class indices or values, as the loss expects).

        Returns
        -------
        Tensor
            The loss: 0-d unless ``reduction='none'``.
        """
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """``nn.SmoothL1Loss(reduction='mean', beta=1.0)``.

    Parameters
    ----------
    size_average : bool, optional
        Deprecated (PyTorch's): when it or ``reduce`` is given, they select the reduction
        instead of ``reduction`` (False: ``'sum'``), with PyTorch's warning.
    reduce : bool, optional
        Deprecated (PyTorch's): ``False`` selects ``'none'``; see ``size_average``.
    reduction : str, default 'mean'
        ``'none'`` (per-element losses), ``'mean'`` or ``'sum'``.
    beta : float, default 1.0
        The threshold between the quadratic and the linear part.
    """

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The loss of ``input`` against ``target`` (see the class description).

        Parameters
        ----------
        input : Tensor
            The predictions (logits or probabilities, as the loss expects).
        target : Tensor
            The targets (class indices or values, as the loss expects).

        Returns
        -------
        Tensor
            The loss: 0-d unless ``reduction='none'``.
        """
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """``nn.HuberLoss(reduction='mean', delta=1.0)``.

    Parameters
    ----------
    reduction : str, default 'mean'
        ``'none'`` (per-element losses), ``'mean'`` or ``'sum'``.
    delta : float, default 1.0
        The threshold between the quadratic and the linear part.
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The loss of ``input`` against ``target`` (see the class description).

        Parameters
        ----------
        input : Tensor
            The predictions (logits or probabilities, as the loss expects).
        target : Tensor
            The targets (class indices or values, as the loss expects).

        Returns
        -------
        Tensor
            The loss: 0-d unless ``reduction='none'``.
        """
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class NLLLoss(_WeightedLoss):
    """``nn.NLLLoss(weight=None, ignore_index=-100, reduction='mean')``.

    Parameters
    ----------
    weight : Tensor, optional
        Rescaling weight (per class for the classification losses), kept as a buffer; None for
        none.
    size_average : bool, optional
        Deprecated (PyTorch's): when it or ``reduce`` is given, they select the reduction
        instead of ``reduction`` (False: ``'sum'``), with PyTorch's warning.
    ignore_index : int, default -100
        Targets equal to it contribute no loss and no gradient, and are left out of the mean.
    reduce : bool, optional
        Deprecated (PyTorch's): ``False`` selects ``'none'``; see ``size_average``.
    reduction : str, default 'mean'
        ``'none'`` (per-element losses), ``'mean'`` or ``'sum'``.
    """

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 ignore_index: int = -100, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The loss of ``input`` against ``target`` (see the class description).

        Parameters
        ----------
        input : Tensor
            The predictions (logits or probabilities, as the loss expects).
        target : Tensor
            The targets (class indices or values, as the loss expects).

        Returns
        -------
        Tensor
            The loss: 0-d unless ``reduction='none'``.
        """
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """``nn.CrossEntropyLoss(weight=None, ignore_index=-100, reduction='mean',
    label_smoothing=0.0)``.

    Parameters
    ----------
    weight : Tensor, optional
        Rescaling weight (per class for the classification losses), kept as a buffer; None for
        none.
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
    """

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 ignore_index: int = -100, reduce: bool | None = None, reduction: str = "mean",
                 label_smoothing: float = 0.0) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The loss of ``input`` against ``target`` (see the class description).

        Parameters
        ----------
        input : Tensor
            The predictions (logits or probabilities, as the loss expects).
        target : Tensor
            The targets (class indices or values, as the loss expects).

        Returns
        -------
        Tensor
            The loss: 0-d unless ``reduction='none'``.
        """
        return F.cross_entropy(input, target, weight=self.weight,
                               ignore_index=self.ignore_index, reduction=self.reduction,
                               label_smoothing=self.label_smoothing)


class BCELoss(_WeightedLoss):
    """``nn.BCELoss(weight=None, reduction='mean')``.

    Parameters
    ----------
    weight : Tensor, optional
        Rescaling weight (per class for the classification losses), kept as a buffer; None for
        none.
    size_average : bool, optional
        Deprecated (PyTorch's): when it or ``reduce`` is given, they select the reduction
        instead of ``reduction`` (False: ``'sum'``), with PyTorch's warning.
    reduce : bool, optional
        Deprecated (PyTorch's): ``False`` selects ``'none'``; see ``size_average``.
    reduction : str, default 'mean'
        ``'none'`` (per-element losses), ``'mean'`` or ``'sum'``.
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The loss of ``input`` against ``target`` (see the class description).

        Parameters
        ----------
        input : Tensor
            The predictions (logits or probabilities, as the loss expects).
        target : Tensor
            The targets (class indices or values, as the loss expects).

        Returns
        -------
        Tensor
            The loss: 0-d unless ``reduction='none'``.
        """
        return F.binary_cross_entropy(input, target, weight=self.weight,
                                      reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """``nn.BCEWithLogitsLoss(weight=None, reduction='mean', pos_weight=None)``.

    Parameters
    ----------
    weight : Tensor, optional
        Rescaling weight (per class for the classification losses), kept as a buffer; None for
        none.
    size_average : bool, optional
        Deprecated (PyTorch's): when it or ``reduce`` is given, they select the reduction
        instead of ``reduction`` (False: ``'sum'``), with PyTorch's warning.
    reduce : bool, optional
        Deprecated (PyTorch's): ``False`` selects ``'none'``; see ``size_average``.
    reduction : str, default 'mean'
        ``'none'`` (per-element losses), ``'mean'`` or ``'sum'``.
    pos_weight : Tensor, optional
        Weight of the positive examples, broadcast along the last dimension; None for 1.
    """

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean",
                 pos_weight: Tensor | None = None) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The loss of ``input`` against ``target`` (see the class description).

        Parameters
        ----------
        input : Tensor
            The predictions (logits or probabilities, as the loss expects).
        target : Tensor
            The targets (class indices or values, as the loss expects).

        Returns
        -------
        Tensor
            The loss: 0-d unless ``reduction='none'``.
        """
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  reduction=self.reduction,
                                                  pos_weight=self.pos_weight)
