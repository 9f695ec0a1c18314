"""``arrayflow.special``: SciPy's special functions (``scipy.special``), differentiable.

The same function objects as :mod:`arrayflow.ops.special`: each one is written once from
array API standard functions (so it runs on every backend, lazily on Dask), with SciPy's
semantics (values at 0, infinities, NaN, outside the domain) and gradients in both modes.

SciPy dispatches to this namespace: with ``SCIPY_ARRAY_API=1``, ``scipy.special.erfc(t)``
on a Tensor ``t`` looks up ``arrayflow.special.erfc`` and returns a Tensor that carries the
graph (``scipy.special._support_alternative_backends._get_native_func`` reads
``xp.special.<name>`` of the array's namespace).
"""

from .ops import elementwise as _elementwise  # noqa: F401 (registers the aliases below)
from .ops import special_bessel as _bessel
from .ops import special_elementary as _elementary
from .ops import special_gamma as _gamma
from .ops import special_hyper as _hyper
from .ops import special_incomplete as _incomplete
from .ops import special_inverse_beta as _inverse_beta
from .ops import special_inverse_gamma as _inverse_gamma
from .ops._registry import ALIASES as _ALIASES
from .ops.special import (
    digamma,
    entr,
    erf,
    erfc,
    erfcinv,
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
from .ops.special_bessel import *  # noqa: F403 (names: that module's __all__)
from .ops.special_elementary import *  # noqa: F403
from .ops.special_gamma import *  # noqa: F403
from .ops.special_hyper import *  # noqa: F403
from .ops.special_incomplete import *  # noqa: F403
from .ops.special_inverse_beta import *  # noqa: F403
from .ops.special_inverse_gamma import *  # noqa: F403

psi = digamma
"""SciPy's name of :func:`digamma` (``scipy.special.psi`` dispatches to it)."""

# SciPy's (and torch.special's) spellings of the namespace's expm1 and log1p: distinct
# aliases declared on their ops (arrayflow.ops.aliases), so that scipy.special.expm1(t) -- a
# SciPy ufunc on a Tensor, through __array_ufunc__ -- and torch.special.expm1 code find them
expm1 = _ALIASES["special.expm1"]
log1p = _ALIASES["special.log1p"]

__all__ = ["digamma", "entr", "erf", "erfc", "erfcinv", "erfinv", "expit", "expm1", "gammaln",
           "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr",
           "log_softmax", "logit", "logsumexp", "ndtr", "ndtri", "psi", "rel_entr", "sinc",
           "softmax", "xlog1py", "xlogy"]
__all__ += _bessel.__all__
__all__ += _elementary.__all__
__all__ += _gamma.__all__
__all__ += _hyper.__all__
__all__ += _incomplete.__all__
__all__ += _inverse_beta.__all__
__all__ += _inverse_gamma.__all__
