"""The interop table of issue 16: library calls run on arrayflow Tensors.

Each :class:`Case` is declarative: a name, the library it needs, a callable taking
array-API arrays (arrayflow Tensors, or NumPy arrays for the reference) and returning one
array, the shapes and domains of the differentiated inputs, constant inputs (NumPy arrays the
runner converts to the namespace of the call), and whether the gradient is measured
(``grad=False``: forward values only, for integer-valued or non-differentiable calls).

:func:`run_case` measures one case on one backend:

* gradient class: the output is reduced to a scalar ``sum(w * out)`` with fixed random
  weights ``w``, ``backward()`` runs, and each input's ``.grad`` is compared with central
  finite differences of the same reduction through the same call on NumPy. Classes:
  ``MATCH``, ``WRONG`` (gradient differs), ``NO_GRAD`` (the output does not require grad or
  an input got no gradient where the finite differences are not zero: the graph was lost),
  ``ERROR`` (forward or backward raised), ``NOT_TENSOR`` (the call returned something other
  than a Tensor, e.g. a NumPy array).
* value class: the forward value on plain (no-grad) Tensors against the NumPy call:
  ``VALUE_OK``, ``VALUE_WRONG``, ``ERROR``.

``SCIPY_ARRAY_API=1`` must be set before SciPy is first imported: run the table through
``tools/interop_table.py`` (which sets it, and runs each backend in a fresh process).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import signal
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

GRAD_CLASSES = ("MATCH", "WRONG", "NO_GRAD", "ERROR", "NOT_TENSOR")
VALUE_CLASSES = ("VALUE_OK", "VALUE_WRONG", "ERROR")

LIBRARIES = {
    "sklearn": "sklearn",
    "scipy": "scipy",
    "array_api_extra": "array_api_extra",
    "einops": "einops",
}


@dataclasses.dataclass(frozen=True)
class Case:
    """One library call of the table.

    Attributes
    ----------
    name : str
        Unique name, ``<library>.<call>[<variant>]``.
    lib : str
        Import name of the library the call needs (a key of ``LIBRARIES``).
    fn : callable
        ``fn(*inputs, *consts)`` on arrays of one namespace; returns one array.
    shapes : tuple of tuple of int
        Shapes of the differentiated (float64) inputs.
    domain : str or tuple of str
        Domain of the random inputs: ``"real"`` (standard normal), ``"pos"`` (in [0.5, 2.5]),
        ``"unit"`` (in [0.1, 0.9]); one per input or one for all.
    consts : tuple of numpy.ndarray
        Constant (not differentiated) inputs, converted with ``xp.asarray``.
    grad : bool
        Whether the gradient is measured (else forward values only).
    """

    name: str
    lib: str
    fn: Callable[..., Any]
    shapes: tuple[tuple[int, ...], ...]
    domain: str | tuple[str, ...] = "real"
    consts: tuple[Any, ...] = ()
    grad: bool = True


def _ns(x: Any) -> Any:
    return x.__array_namespace__()


# --- library imports, resolved at call time (the module imports without the libraries) --------


def _sk(path: str) -> Any:
    mod, _, attr = path.rpartition(".")
    return getattr(importlib.import_module("sklearn." + mod), attr)


def _sp(path: str) -> Any:
    mod, _, attr = path.rpartition(".")
    return getattr(importlib.import_module("scipy." + mod), attr)


def _xpx(name: str) -> Any:
    return getattr(importlib.import_module("array_api_extra"), name)


def _ein(name: str) -> Any:
    return getattr(importlib.import_module("einops.array_api"), name)


# --- the cases -----------------------------------------------------------------------------

X = (6, 3)
Y = (4, 3)
V = (8,)
M = (8, 2)
_rng_c = np.random.default_rng(1234)
LABELS = np.array([0, 1, 0, 1, 2, 2])
TARGET = _rng_c.standard_normal(6)
INT_VEC = np.array([3, 1, 4, 1, 5, 9, 2, 6])
SHAPE_A = np.linspace(0.6, 3.0, 8)  # shape parameters / degrees of freedom (constants)
SHAPE_B = np.linspace(4.0, 1.5, 8)
COUNT_N = INT_VEC + 6.0  # trials (integer-valued, above INT_VEC)


def _sk_call(path: str, **kw: Any) -> Callable[..., Any]:
    return lambda *a: _sk(path)(*a, **kw)


def _sk_est(path: str, method: str = "fit_transform", **kw: Any) -> Callable[..., Any]:
    return lambda *a: getattr(_sk(path)(**kw), method)(*a)


def _sp_call(path: str, **kw: Any) -> Callable[..., Any]:
    return lambda *a: _sp(path)(*a, **kw)


def _sp_in_last(path: str) -> Callable[..., Any]:
    """``scipy.<path>(*consts, v)``: a function of the differentiated ``v`` with its shape
    parameters (which have no derivative) given as constants, in SciPy's argument order."""
    return lambda v, *consts: _sp(path)(*consts, v)


def _xpx_call(name: str, **kw: Any) -> Callable[..., Any]:
    return lambda *a: _xpx(name)(*a, **kw)


def _pca(x: Any) -> Any:
    return _sk("decomposition.PCA")(n_components=2, svd_solver="full").fit_transform(x)


def _pca_abs(x: Any) -> Any:
    # PCA components carry a sign convention: the absolute value is smooth where it is not 0
    return _ns(x).abs(_pca(x))


def _lda(x: Any, y: Any) -> Any:
    est = _sk("discriminant_analysis.LinearDiscriminantAnalysis")(solver="svd")
    return est.fit(x, y).predict_proba(x)


def _lda_dec(x: Any, y: Any) -> Any:
    est = _sk("discriminant_analysis.LinearDiscriminantAnalysis")(solver="eigen")
    return est.fit(x, y).decision_function(x)


def _ridge(x: Any, t: Any) -> Any:
    return _sk("linear_model.Ridge")(alpha=0.5, solver="svd").fit(x, t).predict(x)


def _ridge_coef(x: Any, t: Any) -> Any:
    return _sk("linear_model.Ridge")(alpha=0.5, solver="svd").fit(x, t).coef_


def _ridgecv(x: Any, t: Any) -> Any:
    return _sk("linear_model.RidgeCV")(alphas=(0.1, 1.0)).fit(x, t).predict(x)


def _kernel_centerer(x: Any) -> Any:
    k = _sk("metrics.pairwise.linear_kernel")(x)
    return _sk("preprocessing.KernelCenterer")().fit_transform(k)


def _pipeline_rbf(x: Any) -> Any:
    z = _sk("preprocessing.StandardScaler")().fit_transform(x)
    return _sk("metrics.pairwise.rbf_kernel")(z, gamma=0.4)


def _stat(path: str, attr: str = "statistic", **kw: Any) -> Callable[..., Any]:
    return lambda *a: getattr(_sp(path)(*a, **kw), attr)


def _fft_real(path: str, **kw: Any) -> Callable[..., Any]:
    def f(x: Any) -> Any:
        xp = _ns(x)
        y = _sp(path)(x, **kw)
        return xp.real(y) + xp.imag(y) if xp.isdtype(y.dtype, "complex floating") else y

    return f


def _einsum_like(x: Any) -> Any:
    return _ein("reduce")(_ein("rearrange")(x, "a (b c) -> a b c", c=2), "a b c -> a c", "sum")


# ``at`` writes in place where it can: on a leaf that requires grad that raises, by PyTorch's
# leaf rule (as it does in PyTorch), so these recipes apply it to a non-leaf.
def _at_set(x: Any) -> Any:
    return _xpx("at")(x * 1.0)[1:3].set(0.5)


def _at_mul(x: Any) -> Any:
    return _xpx("at")(x * 1.0)[::2].multiply(3.0)


def _apply_where(x: Any) -> Any:
    xp = _ns(x)
    return _xpx("apply_where")(x > 0, x, lambda a: a * a, lambda a: -a, xp=xp)


CASES: tuple[Case, ...] = (
    # scikit-learn: preprocessing
    Case("sklearn.StandardScaler", "sklearn", _sk_est("preprocessing.StandardScaler"), (X,)),
    Case("sklearn.MinMaxScaler", "sklearn", _sk_est("preprocessing.MinMaxScaler"), (X,)),
    Case("sklearn.MaxAbsScaler", "sklearn", _sk_est("preprocessing.MaxAbsScaler"), (X,)),
    Case("sklearn.Normalizer", "sklearn", _sk_est("preprocessing.Normalizer"), (X,)),
    Case("sklearn.normalize", "sklearn", _sk_call("preprocessing.normalize"), (X,)),
    Case("sklearn.normalize[l1]", "sklearn", _sk_call("preprocessing.normalize", norm="l1"),
         (X,), "pos"),
    Case("sklearn.scale", "sklearn", _sk_call("preprocessing.scale"), (X,)),
    Case("sklearn.minmax_scale", "sklearn", _sk_call("preprocessing.minmax_scale"), (X,)),
    Case("sklearn.maxabs_scale", "sklearn", _sk_call("preprocessing.maxabs_scale"), (X,)),
    Case("sklearn.PolynomialFeatures", "sklearn",
         _sk_est("preprocessing.PolynomialFeatures", degree=2), (X,)),
    Case("sklearn.KernelCenterer", "sklearn", _kernel_centerer, (X,)),
    Case("sklearn.Binarizer", "sklearn", _sk_est("preprocessing.Binarizer"), (X,), grad=False),
    # scikit-learn: metrics.pairwise
    Case("sklearn.rbf_kernel", "sklearn", _sk_call("metrics.pairwise.rbf_kernel", gamma=0.3),
         (X, Y)),
    Case("sklearn.linear_kernel", "sklearn", _sk_call("metrics.pairwise.linear_kernel"), (X, Y)),
    Case("sklearn.polynomial_kernel", "sklearn",
         _sk_call("metrics.pairwise.polynomial_kernel", degree=3), (X, Y)),
    Case("sklearn.sigmoid_kernel", "sklearn", _sk_call("metrics.pairwise.sigmoid_kernel"),
         (X, Y)),
    Case("sklearn.laplacian_kernel", "sklearn", _sk_call("metrics.pairwise.laplacian_kernel"),
         (X, Y)),
    Case("sklearn.euclidean_distances", "sklearn",
         _sk_call("metrics.pairwise.euclidean_distances"), (X, Y)),
    Case("sklearn.euclidean_distances[squared]", "sklearn",
         _sk_call("metrics.pairwise.euclidean_distances", squared=True), (X, Y)),
    Case("sklearn.manhattan_distances", "sklearn",
         _sk_call("metrics.pairwise.manhattan_distances"), (X, Y)),
    Case("sklearn.cosine_similarity", "sklearn",
         _sk_call("metrics.pairwise.cosine_similarity"), (X, Y)),
    Case("sklearn.cosine_distances", "sklearn",
         _sk_call("metrics.pairwise.cosine_distances"), (X, Y)),
    Case("sklearn.chi2_kernel", "sklearn", _sk_call("metrics.pairwise.chi2_kernel"), (X, Y),
         "pos"),
    Case("sklearn.additive_chi2_kernel", "sklearn",
         _sk_call("metrics.pairwise.additive_chi2_kernel"), (X, Y), "pos"),
    Case("sklearn.paired_euclidean_distances", "sklearn",
         _sk_call("metrics.pairwise.paired_euclidean_distances"), (X, X)),
    Case("sklearn.paired_cosine_distances", "sklearn",
         _sk_call("metrics.pairwise.paired_cosine_distances"), (X, X)),
    Case("sklearn.pairwise_kernels[rbf]", "sklearn",
         _sk_call("metrics.pairwise.pairwise_kernels", metric="rbf", gamma=0.2), (X, Y)),
    Case("sklearn.pairwise_distances", "sklearn",
         _sk_call("metrics.pairwise.pairwise_distances"), (X, Y)),
    Case("sklearn.pipeline[scale+rbf]", "sklearn", _pipeline_rbf, (X,)),
    # scikit-learn: regression metrics
    Case("sklearn.mean_squared_error", "sklearn",
         _sk_call("metrics.mean_squared_error"), (V, V),
         grad=False),
    Case("sklearn.mean_squared_error[raw_values]", "sklearn",
         _sk_call("metrics.mean_squared_error", multioutput="raw_values"), (M, M)),
    Case("sklearn.root_mean_squared_error", "sklearn",
         _sk_call("metrics.root_mean_squared_error"), (V, V),
         grad=False),
    Case("sklearn.root_mean_squared_error[raw_values]", "sklearn",
         _sk_call("metrics.root_mean_squared_error", multioutput="raw_values"), (M, M)),
    Case("sklearn.mean_absolute_error", "sklearn",
         _sk_call("metrics.mean_absolute_error"), (V, V),
         grad=False),
    Case("sklearn.mean_absolute_error[raw_values]", "sklearn",
         _sk_call("metrics.mean_absolute_error", multioutput="raw_values"), (M, M)),
    Case("sklearn.r2_score", "sklearn",
         _sk_call("metrics.r2_score"), (V, V),
         grad=False),
    Case("sklearn.r2_score[raw_values]", "sklearn",
         _sk_call("metrics.r2_score", multioutput="raw_values"), (M, M)),
    Case("sklearn.explained_variance_score", "sklearn",
         _sk_call("metrics.explained_variance_score"), (V, V),
         grad=False),
    Case("sklearn.explained_variance_score[raw_values]", "sklearn",
         _sk_call("metrics.explained_variance_score", multioutput="raw_values"), (M, M)),
    Case("sklearn.mean_absolute_percentage_error", "sklearn",
         _sk_call("metrics.mean_absolute_percentage_error"), (V, V), "pos",
         grad=False),
    Case("sklearn.mean_absolute_percentage_error[raw_values]", "sklearn",
         _sk_call("metrics.mean_absolute_percentage_error", multioutput="raw_values"), (M, M),
         "pos"),
    Case("sklearn.mean_squared_log_error", "sklearn",
         _sk_call("metrics.mean_squared_log_error"), (V, V), "pos",
         grad=False),
    Case("sklearn.mean_squared_log_error[raw_values]", "sklearn",
         _sk_call("metrics.mean_squared_log_error", multioutput="raw_values"), (M, M), "pos"),
    Case("sklearn.mean_poisson_deviance", "sklearn", _sk_call("metrics.mean_poisson_deviance"),
         (V, V), "pos", grad=False),
    Case("sklearn.mean_gamma_deviance", "sklearn", _sk_call("metrics.mean_gamma_deviance"),
         (V, V), "pos", grad=False),
    Case("sklearn.mean_tweedie_deviance", "sklearn",
         _sk_call("metrics.mean_tweedie_deviance", power=1.5), (V, V), "pos", grad=False),
    Case("sklearn.mean_pinball_loss", "sklearn",
         _sk_call("metrics.mean_pinball_loss"), (V, V),
         grad=False),
    Case("sklearn.mean_pinball_loss[raw_values]", "sklearn",
         _sk_call("metrics.mean_pinball_loss", multioutput="raw_values"), (M, M)),
    Case("sklearn.d2_tweedie_score", "sklearn",
         _sk_call("metrics.d2_tweedie_score"), (V, V),
         "pos", grad=False),
    Case("sklearn.max_error", "sklearn", _sk_call("metrics.max_error"), (V, V), grad=False),
    Case("sklearn.median_absolute_error", "sklearn",
         _sk_call("metrics.median_absolute_error"), (V, V), grad=False),
    Case("sklearn.accuracy_score", "sklearn", _sk_call("metrics.accuracy_score"), (), (),
         (LABELS, np.array([0, 1, 1, 1, 2, 0])), grad=False),
    Case("sklearn.zero_one_loss", "sklearn", _sk_call("metrics.zero_one_loss"), (), (),
         (LABELS, np.array([0, 1, 1, 1, 2, 0])), grad=False),
    # scikit-learn: estimators
    Case("sklearn.PCA", "sklearn", _pca_abs, (X,)),
    Case("sklearn.PCA[value]", "sklearn", _pca, (X,), grad=False),
    Case("sklearn.LinearDiscriminantAnalysis", "sklearn", _lda, (X,), consts=(LABELS,)),
    Case("sklearn.LinearDiscriminantAnalysis[eigen]", "sklearn", _lda_dec, (X,),
         consts=(LABELS,)),
    Case("sklearn.Ridge[svd]", "sklearn", _ridge, (X,), consts=(TARGET,)),
    Case("sklearn.Ridge[svd].coef_", "sklearn", _ridge_coef, (X,), consts=(TARGET,)),
    Case("sklearn.RidgeCV", "sklearn", _ridgecv, (X,), consts=(TARGET,)),
    # SciPy: special
    Case("scipy.special.erf", "scipy", _sp_call("special.erf"), (V,)),
    Case("scipy.special.erfc", "scipy", _sp_call("special.erfc"), (V,)),
    Case("scipy.special.erfinv", "scipy", _sp_call("special.erfinv"), (V,), "unit"),
    Case("scipy.special.erfcinv", "scipy", _sp_call("special.erfcinv"), (V,), "unit"),
    Case("scipy.special.expit", "scipy", _sp_call("special.expit"), (V,)),
    Case("scipy.special.logit", "scipy", _sp_call("special.logit"), (V,), "unit"),
    Case("scipy.special.gammaln", "scipy", _sp_call("special.gammaln"), (V,), "pos"),
    Case("scipy.special.digamma", "scipy", _sp_call("special.digamma"), (V,), "pos"),
    Case("scipy.special.xlogy", "scipy", _sp_call("special.xlogy"), (V, V), "pos"),
    Case("scipy.special.xlog1py", "scipy", _sp_call("special.xlog1py"), (V, V), "pos"),
    Case("scipy.special.softmax", "scipy", _sp_call("special.softmax", axis=1), (X,)),
    Case("scipy.special.log_softmax", "scipy", _sp_call("special.log_softmax", axis=1), (X,)),
    Case("scipy.special.logsumexp", "scipy", _sp_call("special.logsumexp", axis=0), (X,)),
    Case("scipy.special.i0", "scipy", _sp_call("special.i0"), (V,)),
    Case("scipy.special.i0e", "scipy", _sp_call("special.i0e"), (V,)),
    Case("scipy.special.i1", "scipy", _sp_call("special.i1"), (V,)),
    Case("scipy.special.i1e", "scipy", _sp_call("special.i1e"), (V,)),
    Case("scipy.special.ndtr", "scipy", _sp_call("special.ndtr"), (V,)),
    Case("scipy.special.ndtri", "scipy", _sp_call("special.ndtri"), (V,), "unit"),
    Case("scipy.special.log_ndtr", "scipy", _sp_call("special.log_ndtr"), (V,)),
    Case("scipy.special.entr", "scipy", _sp_call("special.entr"), (V,), "pos"),
    Case("scipy.special.rel_entr", "scipy", _sp_call("special.rel_entr"), (V, V), "pos"),
    Case("scipy.special.gammainc", "scipy", _sp_call("special.gammainc"), (V, V), "pos",
         grad=False),
    Case("scipy.special.gammaincc", "scipy", _sp_call("special.gammaincc"), (V, V), "pos",
         grad=False),
    Case("scipy.special.chdtr", "scipy", _sp_call("special.chdtr"), (V, V), "pos", grad=False),
    Case("scipy.special.stdtr", "scipy", _sp_call("special.stdtr"), (V, V), "pos", grad=False),
    Case("scipy.special.betainc", "scipy", _sp_call("special.betainc"), (V, V, V),
         ("pos", "pos", "unit"), grad=False),
    # the same functions differentiated in their variable, the shape parameters constant
    Case("scipy.special.gammainc[x]", "scipy", _sp_in_last("special.gammainc"), (V,), "pos",
         consts=(SHAPE_A,)),
    Case("scipy.special.gammaincc[x]", "scipy", _sp_in_last("special.gammaincc"), (V,),
         "pos", consts=(SHAPE_A,)),
    Case("scipy.special.chdtr[x]", "scipy", _sp_in_last("special.chdtr"), (V,), "pos",
         consts=(SHAPE_A,)),
    Case("scipy.special.stdtr[t]", "scipy", _sp_in_last("special.stdtr"), (V,),
         consts=(SHAPE_A,)),
    Case("scipy.special.betainc[x]", "scipy", _sp_in_last("special.betainc"), (V,), "unit",
         consts=(SHAPE_A, SHAPE_B)),
    # SciPy: inverse distribution functions (quantiles), in the probability
    Case("scipy.special.gammaincinv[y]", "scipy", _sp_in_last("special.gammaincinv"), (V,),
         "unit", consts=(SHAPE_A,)),
    Case("scipy.special.gammainccinv[y]", "scipy", _sp_in_last("special.gammainccinv"), (V,),
         "unit", consts=(SHAPE_A,)),
    Case("scipy.special.chdtri[p]", "scipy", _sp_in_last("special.chdtri"), (V,), "unit",
         consts=(SHAPE_A,)),
    Case("scipy.special.pdtri[y]", "scipy", _sp_in_last("special.pdtri"), (V,), "unit",
         consts=(INT_VEC.astype(np.float64),)),
    Case("scipy.special.stdtrit[p]", "scipy", _sp_in_last("special.stdtrit"), (V,), "unit",
         consts=(SHAPE_A,)),
    Case("scipy.special.betaincinv[y]", "scipy", _sp_in_last("special.betaincinv"), (V,),
         "unit", consts=(SHAPE_A, SHAPE_B)),
    Case("scipy.special.bdtri[y]", "scipy", _sp_in_last("special.bdtri"), (V,), "unit",
         consts=(INT_VEC.astype(np.float64), COUNT_N)),
    Case("scipy.special.fdtri[p]", "scipy", _sp_in_last("special.fdtri"), (V,), "unit",
         consts=(SHAPE_A, SHAPE_B)),
    Case("scipy.special.nbdtri[y]", "scipy", _sp_in_last("special.nbdtri"), (V,), "unit",
         consts=(INT_VEC.astype(np.float64), COUNT_N)),
    # SciPy: stats
    Case("scipy.stats.zscore", "scipy", _sp_call("stats.zscore"), (X,)),
    Case("scipy.stats.zmap", "scipy", _sp_call("stats.zmap"), (X, X)),
    Case("scipy.stats.moment", "scipy", _sp_call("stats.moment", order=3), (X,)),
    Case("scipy.stats.skew", "scipy", _sp_call("stats.skew"), (X,)),
    Case("scipy.stats.kurtosis", "scipy", _sp_call("stats.kurtosis"), (X,)),
    Case("scipy.stats.variation", "scipy", _sp_call("stats.variation"), (X,), "pos"),
    Case("scipy.stats.sem", "scipy", _sp_call("stats.sem"), (X,)),
    Case("scipy.stats.gmean", "scipy", _sp_call("stats.gmean"), (X,), "pos"),
    Case("scipy.stats.hmean", "scipy", _sp_call("stats.hmean"), (X,), "pos"),
    Case("scipy.stats.pmean", "scipy", _sp_call("stats.pmean", p=1.5), (X,), "pos"),
    Case("scipy.stats.entropy", "scipy", _sp_call("stats.entropy"), (V,), "pos"),
    Case("scipy.stats.tmean", "scipy", _sp_call("stats.tmean"), (V,)),
    Case("scipy.stats.trim_mean", "scipy", _sp_call("stats.trim_mean", proportiontocut=0.1),
         (V,), grad=False),
    Case("scipy.stats.pearsonr", "scipy", _stat("stats.pearsonr"), (V, V)),
    Case("scipy.stats.ttest_1samp", "scipy", _stat("stats.ttest_1samp", popmean=0.0), (V,)),
    Case("scipy.stats.ttest_ind", "scipy", _stat("stats.ttest_ind"), (V, V)),
    Case("scipy.stats.rankdata", "scipy", _sp_call("stats.rankdata"), (V,), grad=False),
    # SciPy: fft, signal, integrate, cluster
    Case("scipy.fft.fft", "scipy", _fft_real("fft.fft"), (V,)),
    Case("scipy.fft.rfft", "scipy", _fft_real("fft.rfft"), (V,)),
    Case("scipy.fft.ifft", "scipy", _fft_real("fft.ifft"), (V,)),
    Case("scipy.fft.fft2", "scipy", _fft_real("fft.fft2"), (X,)),
    Case("scipy.fft.dct", "scipy", _sp_call("fft.dct"), (V,)),
    Case("scipy.signal.convolve", "scipy", _sp_call("signal.convolve"), ((8,), (3,))),
    Case("scipy.signal.fftconvolve", "scipy", _sp_call("signal.fftconvolve"), ((8,), (3,))),
    Case("scipy.signal.correlate", "scipy", _sp_call("signal.correlate"), ((8,), (3,))),
    Case("scipy.signal.detrend", "scipy", _sp_call("signal.detrend"), (V,)),
    Case("scipy.integrate.trapezoid", "scipy", _sp_call("integrate.trapezoid"), (V,)),
    Case("scipy.integrate.simpson", "scipy", _sp_call("integrate.simpson"), (V,)),
    Case("scipy.integrate.cumulative_trapezoid", "scipy",
         _sp_call("integrate.cumulative_trapezoid"), (V,)),
    Case("scipy.cluster.vq.whiten", "scipy", _sp_call("cluster.vq.whiten"), (X,)),
    # array-api-extra
    Case("xpx.atleast_nd", "array_api_extra", _xpx_call("atleast_nd", ndim=3), (V,)),
    Case("xpx.cov", "array_api_extra", _xpx_call("cov"), ((3, 6),)),
    Case("xpx.expand_dims", "array_api_extra", _xpx_call("expand_dims", axis=(0, 2)), (X,)),
    Case("xpx.kron", "array_api_extra", _xpx_call("kron"), ((2, 3), (3, 2))),
    Case("xpx.sinc", "array_api_extra", _xpx_call("sinc"), (V,)),
    Case("xpx.create_diagonal", "array_api_extra", _xpx_call("create_diagonal"), (V,)),
    Case("xpx.create_diagonal[offset]", "array_api_extra",
         _xpx_call("create_diagonal", offset=1), (V,)),
    Case("xpx.pad", "array_api_extra", _xpx_call("pad", pad_width=2), (X,)),
    Case("xpx.at.set", "array_api_extra", _at_set, (V,)),
    Case("xpx.at.multiply", "array_api_extra", _at_mul, (V,)),
    Case("xpx.apply_where", "array_api_extra", _apply_where, (V,)),
    Case("xpx.nan_to_num", "array_api_extra", _xpx_call("nan_to_num"), (V,)),
    Case("xpx.nansum", "array_api_extra", _xpx_call("nansum", axis=0), (X,)),
    Case("xpx.nanmean", "array_api_extra", _xpx_call("nanmean", axis=0), (X,)),
    Case("xpx.deg2rad", "array_api_extra", _xpx_call("deg2rad"), (V,)),
    Case("xpx.nunique", "array_api_extra", _xpx_call("nunique"), (), (), (INT_VEC,),
         grad=False),
    Case("xpx.partition", "array_api_extra", lambda x: _xpx("partition")(x, 3), (V,),
         grad=False),
    Case("xpx.argpartition[sorted]", "array_api_extra",
         lambda x: _ns(x).sort(_xpx("argpartition")(x, 3)[:3]), (V,), grad=False),
    Case("xpx.setdiff1d", "array_api_extra", _xpx_call("setdiff1d"), (), (),
         (INT_VEC, np.array([1, 2, 3])), grad=False),
    Case("xpx.isclose", "array_api_extra", _xpx_call("isclose"), (V, V), grad=False),
    Case("xpx.one_hot", "array_api_extra", _xpx_call("one_hot", num_classes=10), (), (),
         (INT_VEC,), grad=False),
    Case("xpx.isin", "array_api_extra", _xpx_call("isin"), (), (),
         (INT_VEC, np.array([1, 2, 3])), grad=False),
    # einops.array_api
    Case("einops.rearrange", "einops",
         lambda x: _ein("rearrange")(x, "a b -> b a"), (X,)),
    Case("einops.reduce[mean]", "einops",
         lambda x: _ein("reduce")(x, "a b -> b", "mean"), (X,)),
    Case("einops.reduce[max]", "einops",
         lambda x: _ein("reduce")(x, "a b -> a", "max"), (X,)),
    Case("einops.repeat", "einops", lambda x: _ein("repeat")(x, "a b -> a b c", c=2), (X,)),
    Case("einops.rearrange+reduce", "einops", _einsum_like, ((3, 4),)),
    # top-level einops: needs an einops backend registered for Tensors (issue 16)
    Case("einops.rearrange[top-level]", "einops",
         lambda x: importlib.import_module("einops").rearrange(x, "a b -> b a"), (X,)),
    Case("einops.reduce[top-level]", "einops",
         lambda x: importlib.import_module("einops").reduce(x, "a b -> b", "sum"), (X,)),
    Case("einops.einsum[top-level]", "einops",
         lambda x, y: importlib.import_module("einops").einsum(x, y, "a b, c b -> a c"),
         (X, Y)),
)


# --- the runner --------------------------------------------------------------------------


def library_available(lib: str) -> bool:
    """Whether the library named ``lib`` (a key of ``LIBRARIES``) can be imported."""
    try:
        return importlib.util.find_spec(LIBRARIES[lib]) is not None
    except (ImportError, ValueError):
        return False


def configure() -> None:
    """Turn on the libraries' array API dispatch (scikit-learn's; SciPy's is an env variable)."""
    if library_available("sklearn"):
        import sklearn

        sklearn.set_config(array_api_dispatch=True)


def _inputs(case: Case, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    doms = case.domain if isinstance(case.domain, tuple) else (case.domain,) * len(case.shapes)
    out = []
    for shape, dom in zip(case.shapes, doms):
        if dom == "real":
            a = rng.standard_normal(shape)
        elif dom == "pos":
            a = rng.uniform(0.5, 2.5, shape)
        elif dom == "unit":
            a = rng.uniform(0.1, 0.9, shape)
        else:  # pragma: no cover - a typo in the table
            raise ValueError(f"unknown domain {dom!r} in case {case.name}")
        out.append(a)
    return out


def _first_line(e: BaseException) -> str:
    lines = str(e).strip().splitlines()
    return f"{type(e).__name__}: {lines[0][:160] if lines else ''}"


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Timeout("the call ran past its time limit")


def _np_call(case: Case, arrays: list[np.ndarray]) -> np.ndarray:
    # copies: a library may write into its inputs (array-api-extra's ``at`` on NumPy does)
    out = case.fn(*[a.copy() for a in arrays], *[np.array(c) for c in case.consts])
    return np.asarray(out)


def _numerical_grad(case: Case, arrays: list[np.ndarray], w: np.ndarray,
                    eps: float = 1e-6) -> list[np.ndarray]:
    grads = []
    for i, a in enumerate(arrays):
        g = np.zeros_like(a)
        flat = g.reshape(-1)
        for j in range(a.size):
            plus = [x.copy() for x in arrays]
            minus = [x.copy() for x in arrays]
            plus[i].reshape(-1)[j] += eps
            minus[i].reshape(-1)[j] -= eps
            fp = float(np.sum(w * _np_call(case, plus)))
            fm = float(np.sum(w * _np_call(case, minus)))
            flat[j] = (fp - fm) / (2 * eps)
        grads.append(g)
    return grads


def _graph_break_warned(caught: list[warnings.WarningMessage]) -> bool:
    return any("GraphBreak" in type(m.message).__name__
               or "GraphBreak" in getattr(m.category, "__name__", "") for m in caught)


def run_case(case: Case, backend: str = "numpy", timeout_s: int = 30,
             seed: int = 0) -> dict[str, Any]:
    """Measure one case on one backend.

    Returns
    -------
    dict
        ``{"value": class, "grad": class or None, "detail": str, "warned": bool}``; ``detail``
        is the exception (type and first line) or the largest gradient error.
    """
    import arrayflow as af

    arrays = _inputs(case, seed)
    consts = [np.asarray(c) for c in case.consts]
    result: dict[str, Any] = {"value": None, "grad": None, "detail": "", "value_detail": "",
                              "warned": False}
    try:
        ref = _np_call(case, arrays)
    except Exception as e:  # the reference itself fails: the case is broken here
        result["value"] = result["grad"] = "ERROR"
        result["detail"] = result["value_detail"] = "numpy reference: " + _first_line(e)
        return result

    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        with af.use_backend(backend):
            # forward values, plain Tensors
            signal.alarm(timeout_s)
            try:
                ts = [af.asarray(a.copy(), dtype=af.float64) for a in arrays]
                cs = [af.asarray(c.copy()) for c in consts]
                out = case.fn(*ts, *cs)
                got = (out.detach().numpy() if isinstance(out, af.Tensor)
                       else np.asarray(out))
                signal.alarm(0)
                if got.shape == ref.shape and np.allclose(got, ref, rtol=1e-7, atol=1e-9,
                                                          equal_nan=True):
                    result["value"] = "VALUE_OK"
                else:
                    result["value"] = "VALUE_WRONG"
                    result["value_detail"] = (f"shape {got.shape} vs {ref.shape}"
                                              if got.shape != ref.shape else
                                              f"max abs diff {np.nanmax(np.abs(got - ref)):.3g}")
            except BaseException as e:  # noqa: BLE001 - _Timeout, library errors
                signal.alarm(0)
                if isinstance(e, KeyboardInterrupt):
                    raise
                result["value"] = "ERROR"
                result["value_detail"] = _first_line(e)
            if not case.grad:
                return result
            # gradient
            w = np.random.default_rng(seed + 1).uniform(0.5, 1.5, ref.shape)
            signal.alarm(timeout_s)
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    ts = [af.asarray(a.copy(), dtype=af.float64).requires_grad_(True)
                          for a in arrays]
                    cs = [af.asarray(c.copy()) for c in consts]
                    out = case.fn(*ts, *cs)
                    result["warned"] = _graph_break_warned(caught)
                    if not isinstance(out, af.Tensor):
                        signal.alarm(0)
                        result["grad"] = "NOT_TENSOR"
                        result["detail"] = f"returned {type(out).__module__}.{type(out).__name__}"
                        return result
                    if not out.requires_grad:
                        signal.alarm(0)
                        result["grad"] = "NO_GRAD"
                        result["detail"] = "output does not require grad"
                        return result
                    loss = af.sum(out * af.asarray(w, dtype=af.float64))
                    loss.backward()
                    got_grads = [t.grad.detach().numpy() if t.grad is not None else None
                                 for t in ts]
                    result["warned"] = result["warned"] or _graph_break_warned(caught)
                signal.alarm(0)
            except BaseException as e:  # noqa: BLE001
                signal.alarm(0)
                if isinstance(e, KeyboardInterrupt):
                    raise
                result["grad"] = "ERROR"
                result["detail"] = _first_line(e)
                return result
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)

    num = _numerical_grad(case, arrays, w)
    worst = 0.0
    for g, n in zip(got_grads, num):
        if g is None:
            if np.any(np.abs(n) > 1e-6):
                result["grad"] = "NO_GRAD"
                result["detail"] = "an input got no gradient (graph lost)"
                return result
            continue
        if g.shape != n.shape:
            result["grad"] = "WRONG"
            result["detail"] = f"gradient shape {g.shape} vs {n.shape}"
            return result
        err = np.max(np.abs(g - n) / (1e-5 + 1e-4 * np.abs(n))) if n.size else 0.0
        worst = max(worst, float(err))
    if np.isfinite(worst) and worst <= 1.0:
        result["grad"] = "MATCH"
    else:
        result["grad"] = "WRONG"
        result["detail"] = f"gradient differs from finite differences ({worst:.3g} x tol)"
    return result


def run_table(backend: str = "numpy", timeout_s: int = 30,
              names: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """Run every case (or those in ``names``) whose library is installed, on ``backend``."""
    configure()
    out = {}
    for case in CASES:
        if names is not None and case.name not in names:
            continue
        if not library_available(case.lib):
            continue
        out[case.name] = run_case(case, backend, timeout_s)
    return out
