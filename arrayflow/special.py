"""``arrayflow.special``: SciPy's special functions (``scipy.special``), differentiable.

The same function objects as :mod:`arrayflow.ops.special`: each one is written once from
array API standard functions (so it runs on every backend, lazily on Dask), with SciPy's
semantics (values at 0, infinities, NaN, outside the domain) and gradients in both modes.

SciPy dispatches to this namespace: with ``SCIPY_ARRAY_API=1``, ``scipy.special.erfc(t)``
on a Tensor ``t`` looks up ``arrayflow.special.erfc`` and returns a Tensor that carries the
graph (``scipy.special._support_alternative_backends._get_native_func`` reads
``xp.special.<name>`` of the array's namespace).
"""

from .ops.special import (
    digamma,
    entr,
    erf,
    erfc,
    erfinv,
    expit,
    gammaln,
    i0,
    i0e,
    i1,
    i1e,
    log_ndtr,
    log_softmax,
    logit,
    logsumexp,
    ndtr,
    ndtri,
    rel_entr,
    sinc,
    softmax,
    xlog1py,
    xlogy,
)

psi = digamma
"""SciPy's name of :func:`digamma` (``scipy.special.psi`` dispatches to it)."""

__all__ = ["digamma", "entr", "erf", "erfc", "erfinv", "expit", "gammaln", "i0", "i0e", "i1",
           "i1e", "log_ndtr",
           "log_softmax", "logit", "logsumexp", "ndtr", "ndtri", "psi", "rel_entr", "sinc",
           "softmax", "xlog1py", "xlogy"]
