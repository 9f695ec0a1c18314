"""Fixtures of the conformance-runner tests: custom Functions, their inputs, duck types.

Referenced by ``MODULE:NAME`` strings (``tests.conformance_fixtures:LinearFunction``),
as a user would pass them to ``arrayflow-conformance``.
"""

from __future__ import annotations

import numpy as np

import arrayflow as af
from arrayflow.autograd import Function, once_differentiable

# --- the seeds' Functions, shipped in arrayflow.examples.custom_function -------------------
from arrayflow.examples.custom_function import (  # noqa: F401 - referenced as MODULE:NAME
    LinearFunction,
    MulConstant,
    linear_inputs,
    mul_inputs,
)
from arrayflow.examples.scalar_tensor import ScalarTensor

# --- broken Functions ----------------------------------------------------------------------

class WrongBackwardMul(Function):
    """``x * y`` whose backward gets ``y``'s gradient wrong (returns ``grad * x * 2``)."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        return grad_output * y, grad_output * x * 2.0


def pair_inputs(rng):
    """Two float64 arrays of shape (3,)."""
    return rng.standard_normal(3), rng.standard_normal(3)


class ReadsValue(Function):
    """Scales by ``float(x.sum())``: correct, but reads a value (not lazy)."""

    @staticmethod
    def forward(ctx, x):
        s = float(x.sum())
        ctx.s = s
        return x * s

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.s


class ItemInForward(Function):
    """Branches on ``x.max().item()`` in forward (not lazy)."""

    @staticmethod
    def forward(ctx, x):
        return x * 2.0 if x.max().item() > 0 else x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2.0


def positive_inputs():
    """One float64 array of shape (4,) with positive values."""
    return (np.array([0.5, 1.0, 1.5, 2.0]),)


class OnceExp(Function):
    """``exp(x)`` with an ``@once_differentiable`` backward."""

    @staticmethod
    def forward(ctx, x):
        y = af.exp(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y


class WastefulMul(Function):
    """``x * y`` whose backward always computes both gradients (allowed, but noted)."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        return grad_output * y, grad_output * x


# --- duck types ------------------------------------------------------------------------------

def scalar_tensor(t):
    """``--factory`` for ScalarTensor, which cannot be built from a Tensor: ``2 x 2``, value 1.5."""
    return ScalarTensor(2, 1.5)


class _Wrapper:
    """Base of the deliberately bad duck types: wraps a Tensor as ``self.t``."""

    def __init__(self, t):
        self.t = t

    @staticmethod
    def _unwrap(a):
        if isinstance(a, _Wrapper):
            return a.t
        if type(a) in (list, tuple):
            return type(a)(e.t if isinstance(e, _Wrapper) else e for e in a)
        return a

    @classmethod
    def _rewrap(cls, r):
        if isinstance(r, af.Tensor):
            return cls(r)
        if isinstance(r, tuple):
            items = [cls(e) if isinstance(e, af.Tensor) else e for e in r]
            return type(r)(*items) if hasattr(r, "_fields") else tuple(items)
        return r


class DropsKwargs(_Wrapper):
    """Handles everything and rewraps results, but calls ``func`` without the keywords."""

    @classmethod
    def __arrayflow_function__(cls, func, types, args=(), kwargs=None):
        return cls._rewrap(func(*[cls._unwrap(a) for a in args]))


class LosesType(_Wrapper):
    """Handles everything with the keywords, but returns the raw Tensor results."""

    @classmethod
    def __arrayflow_function__(cls, func, types, args=(), kwargs=None):
        kwargs = {k: cls._unwrap(v) for k, v in (kwargs or {}).items()}
        return func(*[cls._unwrap(a) for a in args], **kwargs)


class Faithful(_Wrapper):
    """Handles everything correctly: unwraps (lists and keywords too), rewraps."""

    @classmethod
    def __arrayflow_function__(cls, func, types, args=(), kwargs=None):
        kwargs = {k: cls._unwrap(v) for k, v in (kwargs or {}).items()}
        return cls._rewrap(func(*[cls._unwrap(a) for a in args], **kwargs))


class PlainSubclass(af.Tensor):
    """A Tensor subclass with the default ``__arrayflow_function__`` (results keep the type)."""


#: Not a Function (the function suite must refuse it).
MetadataLike = Faithful


class FaithfulPlainMethod(_Wrapper):
    """:class:`Faithful` with ``__arrayflow_function__`` as a plain instance method (the
    seeds' spelling, ``def __torch_function__(self, func, types, args=(), kwargs=None)``):
    the runner must report the same coverage as for the classmethod."""

    def __arrayflow_function__(self, func, types, args=(), kwargs=None):
        assert isinstance(self, FaithfulPlainMethod)  # bound to an instance, not shifted
        kwargs = {k: self._unwrap(v) for k, v in (kwargs or {}).items()}
        return self._rewrap(func(*[self._unwrap(a) for a in args], **kwargs))
