"""``arrayflow.special``: the confluent hypergeometric function ``hyp1f1`` and the associated
Legendre function ``lpmv``.

Each op is one unit as in :mod:`arrayflow.ops.special` (decorator with the metadata, the
forward written from array API standard functions, its VJP and JVP), with SciPy's semantics.
"""

from __future__ import annotations

__all__: list[str] = []
