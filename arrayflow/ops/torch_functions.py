"""PyTorch's functions whose signatures differ from the standard function they compute.

``torch.cumsum(input, dim)``, ``torch.gather(input, dim, index)``,
``torch.unbind(input, dim=0)`` and ``torch.repeat_interleave(input, repeats, dim=None)``
take their arguments in PyTorch's order and names, so they cannot be aliases of
``cumulative_sum``, ``take_along_axis``, ``unstack`` and ``repeat`` (whose axis is
keyword-only): each is its own function that maps PyTorch's arguments onto the
standard op (which records the gradient). They dispatch ``__arrayflow_function__``
like every function.
"""

from __future__ import annotations

from .. import _tensor_methods
from .._tensor_methods import gather as _gather
from ..overrides import overridable
from . import manipulation as _m
from . import reductions as _r

__all__ = ["cumsum", "cumprod", "gather", "unbind", "repeat_interleave"]


@overridable
def cumsum(input, dim, *, dtype=None):
    """Cumulative sum along ``dim`` (PyTorch ``torch.cumsum``; the standard's
    :func:`arrayflow.cumulative_sum`).

    Raises
    ------
    TypeError
        Without ``dim`` (PyTorch requires it).
    """
    return _r.cumulative_sum(input, axis=dim, dtype=dtype)


@overridable
def cumprod(input, dim, *, dtype=None):
    """Cumulative product along ``dim`` (PyTorch ``torch.cumprod``; the standard's
    :func:`arrayflow.cumulative_prod`)."""
    return _r.cumulative_prod(input, axis=dim, dtype=dtype)


@overridable
def gather(input, dim, index):
    """``out[i][j] = input[i][index[i][j]]`` along ``dim`` (PyTorch ``torch.gather``).

    ``index`` has ``input``'s number of dimensions and may be smaller in the other
    dimensions (only that leading block of ``input`` is read, as PyTorch; never
    broadcast). Gradients flow to ``input``.

    Raises
    ------
    RuntimeError
        ``index`` with another number of dimensions (PyTorch's error).
    IndexError
        ``dim`` or an index out of range.
    """
    return _gather(input, dim, index)


@overridable
def unbind(input, dim=0):
    """A tuple of the slices along ``dim`` (PyTorch ``torch.unbind``; the standard's
    :func:`arrayflow.unstack`)."""
    return _m.unstack(input, axis=dim)


@overridable
def repeat_interleave(input, repeats, dim=None):
    """Repeat each element ``repeats`` times along ``dim`` (flattened when None)
    (PyTorch ``torch.repeat_interleave``; the standard's :func:`arrayflow.repeat`)."""
    return _m.repeat(input, repeats, axis=dim)


# --- PyTorch's functions that are Tensor methods there too ------------------------------------
# ``torch.f(input, ...)`` is ``input.f(...)``: each computes what the method computes
# (arrayflow/_tensor_methods.py), with PyTorch's signature; only names the array API
# standard does not define (``flip``, ``sort``, ``max``... keep the standard's meaning).

def _m_impl(name):
    return getattr(_tensor_methods, name)


@overridable
def flatten(input, start_dim=0, end_dim=-1):
    """Dimensions ``start_dim``..``end_dim`` merged (PyTorch ``torch.flatten``)."""
    return _m_impl("flatten")(input, start_dim, end_dim)


@overridable
def sigmoid(input):
    """``1 / (1 + exp(-x))`` (PyTorch ``torch.sigmoid``)."""
    return _m_impl("sigmoid")(input)


@overridable
def relu(input):
    """``max(x, 0)`` (PyTorch ``torch.relu``)."""
    return _m_impl("relu")(input)


@overridable
def softmax(input, dim, dtype=None):
    """Softmax over ``dim`` (PyTorch ``torch.softmax``)."""
    return _m_impl("softmax")(input, dim, dtype)


@overridable
def log_softmax(input, dim, dtype=None):
    """Log-softmax over ``dim`` (PyTorch ``torch.log_softmax``)."""
    return _m_impl("log_softmax")(input, dim, dtype)


@overridable
def topk(input, k, dim=-1, largest=True, sorted=True):
    """The ``k`` largest (smallest) values and indices along ``dim`` (``torch.topk``)."""
    return _m_impl("topk")(input, k, dim, largest, sorted)


@overridable
def bmm(input, mat2):
    """Batched matrix product of 3-D Tensors (``torch.bmm``)."""
    return _m_impl("bmm")(input, mat2)


@overridable
def dot(input, tensor):
    """Inner product of 1-D Tensors (``torch.dot``)."""
    return _m_impl("dot")(input, tensor)


@overridable
def mv(input, vec):
    """Matrix-vector product (``torch.mv``)."""
    return _m_impl("mv")(input, vec)


@overridable
def outer(input, vec2):
    """Outer product of 1-D Tensors (``torch.outer``)."""
    return _m_impl("outer")(input, vec2)


@overridable
def narrow(input, dim, start, length):
    """``length`` elements from ``start`` along ``dim`` (``torch.narrow``)."""
    return _m_impl("narrow")(input, dim, start, length)


@overridable
def chunk(input, chunks, dim=0):
    """At most ``chunks`` pieces along ``dim`` (``torch.chunk``)."""
    return _m_impl("chunk")(input, chunks, dim)


@overridable
def split(tensor, split_size_or_sections, dim=0):
    """Pieces of a size, or of listed sizes, along ``dim`` (``torch.split``)."""
    return _m_impl("split")(tensor, split_size_or_sections, dim)


@overridable
def index_select(input, dim, index):
    """Elements at 1-D ``index`` along ``dim`` (``torch.index_select``)."""
    return _m_impl("index_select")(input, dim, index)


@overridable
def masked_select(input, mask):
    """The elements where ``mask`` is True, 1-D (``torch.masked_select``)."""
    return _m_impl("masked_select")(input, mask)


@overridable
def masked_fill(input, mask, value):
    """``value`` where ``mask`` is True (``torch.masked_fill``)."""
    return _m_impl("masked_fill")(input, mask, value)


@overridable
def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(x)))`` over ``dim``, stably (``torch.logsumexp``)."""
    return _m_impl("logsumexp")(input, dim, keepdim)


@overridable
def rsqrt(input):
    """``1 / sqrt(x)`` (``torch.rsqrt``)."""
    return _m_impl("rsqrt")(input)


@overridable
def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2`` (``torch.addcmul``)."""
    return _m_impl("addcmul")(input, tensor1, tensor2, value=value)


@overridable
def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2`` (``torch.addcdiv``)."""
    return _m_impl("addcdiv")(input, tensor1, tensor2, value=value)


@overridable
def lerp(input, end, weight):
    """``input + weight * (end - input)`` (``torch.lerp``)."""
    return _m_impl("lerp")(input, end, weight)


@overridable
def clamp_min(input, min):
    """``max(input, min)`` (``torch.clamp_min``)."""
    return _m_impl("clamp_min")(input, min)


@overridable
def clamp_max(input, max):
    """``min(input, max)`` (``torch.clamp_max``)."""
    return _m_impl("clamp_max")(input, max)


@overridable
def amax(input, dim=(), keepdim=False):
    """The maximum over ``dim`` (``()``: all), values only (``torch.amax``)."""
    return _m_impl("amax")(input, dim, keepdim)


@overridable
def amin(input, dim=(), keepdim=False):
    """The minimum over ``dim`` (``()``: all), values only (``torch.amin``)."""
    return _m_impl("amin")(input, dim, keepdim)


@overridable
def transpose(input, dim0, dim1):
    """Swap dimensions ``dim0`` and ``dim1`` (``torch.transpose``)."""
    return input.transpose(dim0, dim1)


@overridable
def unsqueeze(input, dim):
    """Insert a size-1 dimension at ``dim`` (``torch.unsqueeze``)."""
    return input.unsqueeze(dim)


@overridable
def t(input):
    """Transpose of a Tensor of at most 2 dimensions (``torch.t``)."""
    return input.t()


@overridable
def numel(input):
    """The number of elements (``torch.numel``)."""
    return input.numel()


@overridable
def detach(input):
    """A Tensor sharing ``input``'s values, outside the graph (``torch.detach``)."""
    return input.detach()


__all__ += ["flatten", "sigmoid", "relu", "softmax", "log_softmax", "topk", "bmm", "dot", "mv",
            "outer", "narrow", "chunk", "split", "index_select", "masked_select", "masked_fill",
            "logsumexp", "rsqrt", "addcmul", "addcdiv", "lerp", "clamp_min", "clamp_max",
            "amax", "amin", "transpose", "unsqueeze", "t", "numel", "detach"]
