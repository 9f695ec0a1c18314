"""Type names shared by the annotations of the public API (no runtime behaviour).

``Array`` is what an array parameter of a public function accepts: an arrayflow
``Tensor`` (or a Tensor-like with ``__arrayflow_function__``). Inside an op's forward
(``arrayflow.ops``) the same parameter holds the backend's array: the forward is
written against the array API namespace ``xp``, so its annotations say ``Array`` and the
op's public signature (``inspect.signature(af.exp)``) shows ``Tensor``.
"""

from __future__ import annotations

from typing import Any, TypeAlias

Array: TypeAlias = Any
"""An array argument: a Tensor in the public signature, a backend array in a forward."""

Shape: TypeAlias = tuple[int, ...]
"""A shape: a tuple of non-negative ints."""

Axis: TypeAlias = "int | tuple[int, ...] | None"
"""An axis argument: one axis, several, or None for all."""

Scalar: TypeAlias = "bool | int | float | complex"
"""A Python scalar operand."""

__all__ = ["Array", "Axis", "Scalar", "Shape"]
