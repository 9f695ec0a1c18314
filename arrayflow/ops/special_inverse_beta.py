"""``arrayflow.special``: inverses of the regularized incomplete beta function and of the
distribution functions built on it (betaincinv, bdtri, fdtri, nbdtri).

Each op is one unit as in :mod:`arrayflow.ops.special` (decorator with the metadata, the
forward written from array API standard functions, its VJP and JVP), with SciPy's semantics.
"""

from __future__ import annotations

__all__: list[str] = []
