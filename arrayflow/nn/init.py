"""Parameter initializers with PyTorch's semantics (``torch.nn.init``).

Every initializer fills its Tensor in place, without recording gradients, from
the seeded generator of the Tensor's backend (``Tensor.uniform_`` /
``Tensor.normal_``; :func:`arrayflow.manual_seed` makes it reproducible), and
returns the Tensor. Fans follow PyTorch: for a weight of shape
``(out, in, *kernel)``, ``fan_in = in * prod(kernel)`` and
``fan_out = out * prod(kernel)``.
"""

from __future__ import annotations

import math
from typing import Any

from ..autograd import no_grad
from ..tensor import Tensor

__all__ = [
    "calculate_gain", "constant_", "kaiming_normal_", "kaiming_uniform_", "normal_", "ones_",
    "uniform_", "xavier_normal_", "xavier_uniform_", "zeros_",
]


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for ``nonlinearity`` (``torch.nn.init.calculate_gain``).

    Parameters
    ----------
    nonlinearity : str
        The nonlinearity's name (``'relu'``, ``'leaky_relu'``, ``'tanh'``, ``'sigmoid'``,
        ``'selu'``, ``'linear'``, ``'conv2d'``, ...).
    param : float, optional
        The negative slope for ``'leaky_relu'`` (None: 0.01).

    Returns
    -------
    float
        The gain.

    Raises
    ------
    ValueError
        For an unknown nonlinearity or an invalid ``negative_slope`` ``param``.
    """
    linear_fns = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d")
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    dims = tensor.ndim
    if dims < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = 1
    for s in tuple(tensor.shape)[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0,
             generator: Any | None = None) -> Tensor:
    """Fill with U(a, b).

    Parameters
    ----------
    tensor : Tensor
        The Tensor to fill in place (without recording gradients).
    a : float, default 0.0
        Lower bound.
    b : float, default 1.0
        Upper bound.
    generator : Any, optional
        Accepted for PyTorch compatibility and ignored: samples come from the backend's seeded
        generator (:func:`arrayflow.manual_seed`).

    Returns
    -------
    Tensor
        ``tensor``, filled in place.
    """
    with no_grad():
        return tensor.uniform_(a, b)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0,
            generator: Any | None = None) -> Tensor:
    """Fill with N(mean, std**2).

    Parameters
    ----------
    tensor : Tensor
        The Tensor to fill in place (without recording gradients).
    mean : float, default 0.0
        Mean of the normal distribution.
    std : float, default 1.0
        Standard deviation of the normal distribution.
    generator : Any, optional
        Accepted for PyTorch compatibility and ignored: samples come from the backend's seeded
        generator (:func:`arrayflow.manual_seed`).

    Returns
    -------
    Tensor
        ``tensor``, filled in place.
    """
    with no_grad():
        return tensor.normal_(mean, std)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``.

    Parameters
    ----------
    tensor : Tensor
        The Tensor to fill in place (without recording gradients).
    val : float
        The fill value.

    Returns
    -------
    Tensor
        ``tensor``, filled in place.
    """
    with no_grad():
        return tensor.fill_(val)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with 0.

    Parameters
    ----------
    tensor : Tensor
        The Tensor to fill in place (without recording gradients).

    Returns
    -------
    Tensor
        ``tensor``, filled in place.
    """
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    """Fill with 1.

    Parameters
    ----------
    tensor : Tensor
        The Tensor to fill in place (without recording gradients).

    Returns
    -------
    Tensor
        ``tensor``, filled in place.
    """
    return constant_(tensor, 1.0)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any | None = None) -> Tensor:
    """Glorot uniform: U(-a, a), ``a = gain * sqrt(6 / (fan_in + fan_out))``.

    Parameters
    ----------
    tensor : Tensor
        The Tensor to fill in place (without recording gradients).
    gain : float, default 1.0
        Scaling factor (see :func:`calculate_gain`).
    generator : Any, optional
        Accepted for PyTorch compatibility and ignored: samples come from the backend's seeded
        generator (:func:`arrayflow.manual_seed`).

    Returns
    -------
    Tensor
        ``tensor``, filled in place.
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any | None = None) -> Tensor:
    """Glorot normal: N(0, std**2), ``std = gain * sqrt(2 / (fan_in + fan_out))``.

    Parameters
    ----------
    tensor : Tensor
        The Tensor to fill in place (without recording gradients).
    gain : float, default 1.0
        Scaling factor (see :func:`calculate_gain`).
    generator : Any, optional
        Accepted for PyTorch compatibility and ignored: samples come from the backend's seeded
        generator (:func:`arrayflow.manual_seed`).

    Returns
    -------
    Tensor
        ``tensor``, filled in place.
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std)


def kaiming_uniform_(tensor: Tensor, a: float = 0.0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator: Any | None = None) -> Tensor:
    """He uniform: U(-bound, bound), ``bound = gain * sqrt(3 / fan)``.

    Parameters
    ----------
    tensor : Tensor
        The Tensor to fill in place (without recording gradients).
    a : float, default 0.0
        The negative slope of the rectifier used after this layer (with
        ``nonlinearity='leaky_relu'``).
    mode : str, default 'fan_in'
        ``'fan_in'`` (preserve the forward variance) or ``'fan_out'`` (the backward one).
    nonlinearity : str, default 'leaky_relu'
        The nonlinearity's name (``'relu'``, ``'leaky_relu'``, ``'tanh'``, ``'sigmoid'``,
        ``'selu'``, ``'linear'``, ``'conv2d'``, ...).
    generator : Any, optional
        Accepted for PyTorch compatibility and ignored: samples come from the backend's seeded
        generator (:func:`arrayflow.manual_seed`).

    Returns
    -------
    Tensor
        ``tensor``, filled in place.
    """
    fan = _calculate_correct_fan(tensor, mode)
    if fan == 0:
        return tensor  # PyTorch warns and leaves zero-element tensors alone
    gain = calculate_gain(nonlinearity, a)
    bound = math.sqrt(3.0) * gain / math.sqrt(fan)
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(tensor: Tensor, a: float = 0.0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator: Any | None = None) -> Tensor:
    """He normal: N(0, std**2), ``std = gain / sqrt(fan)``.

    Parameters
    ----------
    tensor : Tensor
        The Tensor to fill in place (without recording gradients).
    a : float, default 0.0
        The negative slope of the rectifier used after this layer (with
        ``nonlinearity='leaky_relu'``).
    mode : str, default 'fan_in'
        ``'fan_in'`` (preserve the forward variance) or ``'fan_out'`` (the backward one).
    nonlinearity : str, default 'leaky_relu'
        The nonlinearity's name (``'relu'``, ``'leaky_relu'``, ``'tanh'``, ``'sigmoid'``,
        ``'selu'``, ``'linear'``, ``'conv2d'``, ...).
    generator : Any, optional
        Accepted for PyTorch compatibility and ignored: samples come from the backend's seeded
        generator (:func:`arrayflow.manual_seed`).

    Returns
    -------
    Tensor
        ``tensor``, filled in place.
    """
    fan = _calculate_correct_fan(tensor, mode)
    if fan == 0:
        return tensor
    gain = calculate_gain(nonlinearity, a)
    return normal_(tensor, 0.0, gain / math.sqrt(fan))
