"""The seeds' ``ScalarTensor``: a duck-typed 2-D scalar tensor (``value * eye(N)``) that
takes part in arrayflow functions through ``__arrayflow_function__``.

Two variants, as in PyTorch's "Extending torch" note:

- :class:`ScalarTensor` returns ``NotImplemented`` for functions it does not handle,
  so ``af.mul(s, 3)`` raises ``TypeError: no implementation found ...``;
- :class:`ScalarTensorFallback` converts itself to a Tensor and calls the original
  function instead, so every function works (returning plain Tensors).

Run ``python -m arrayflow.examples.scalar_tensor`` to see both.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import arrayflow as af

__all__ = ["ScalarTensor", "ScalarTensorFallback", "HANDLED_FUNCTIONS", "implements",
           "ensure_tensor", "conformance_instance"]

HANDLED_FUNCTIONS: dict[Callable, Callable] = {}


class ScalarTensor:
    """A ``N x N`` diagonal tensor with ``value`` on the diagonal (seed example)."""

    def __init__(self, N, value):
        self._N = N
        self._value = value

    def __repr__(self):
        return f"DiagonalTensor(N={self._N}, value={self._value})"

    def tensor(self):
        return self._value * af.eye(self._N)

    @classmethod
    def __arrayflow_function__(cls, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        if func not in HANDLED_FUNCTIONS or not all(
            issubclass(t, (af.Tensor, ScalarTensor)) for t in types
        ):
            return NotImplemented
        return HANDLED_FUNCTIONS[func](*args, **kwargs)


def implements(af_function):
    """Register an arrayflow function override for ScalarTensor."""

    @functools.wraps(af_function)
    def decorator(func):
        HANDLED_FUNCTIONS[af_function] = func
        return func

    return decorator


@implements(af.mean)
def mean(input):
    return float(input._value) / input._N


def ensure_tensor(data):
    if isinstance(data, ScalarTensor):
        return data.tensor()
    return af.as_tensor(data)


@implements(af.add)
def add(input, other):
    try:
        if input._N == other._N:
            return ScalarTensor(input._N, input._value + other._value)
        else:
            raise ValueError("Shape mismatch!")
    except AttributeError:
        return af.add(ensure_tensor(input), ensure_tensor(other))


class ScalarTensorFallback(ScalarTensor):
    """The variant that falls back to a Tensor for functions it does not handle."""

    @classmethod
    def __arrayflow_function__(cls, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        if func not in HANDLED_FUNCTIONS or not all(
                issubclass(t, (af.Tensor, ScalarTensor))
                for t in types
        ):
            args = [a.tensor() if hasattr(a, "tensor") else a for a in args]
            return func(*args, **kwargs)
        return HANDLED_FUNCTIONS[func](*args, **kwargs)


def main():
    d = ScalarTensor(5, 2)
    print(d)
    print(d.tensor())
    print("mean:", af.mean(d))
    s = ScalarTensor(2, 2)
    print("add:", af.add(s, s))
    print("add with Tensor:", af.add(s, af.ones((2, 2))))
    try:
        af.mul(s, 3)
    except TypeError as e:
        print("TypeError:", e)
    print("fallback mul:", af.mul(ScalarTensorFallback(2, 2), ScalarTensorFallback(2, 2)))


def conformance_instance(t: af.Tensor | None = None) -> ScalarTensor:
    """``--factory`` for ``arrayflow-conformance tensor-like``: a 2 x 2 ScalarTensor, value 1.5.

    ScalarTensor cannot hold arbitrary data, so the runner's sample Tensor ``t`` is ignored.
    """
    return ScalarTensor(2, 1.5)


if __name__ == "__main__":
    main()
