"""Checks of ``scipy.special`` called on Tensors, shared by the dispatch test (SciPy with
``SCIPY_ARRAY_API=1``, in a subprocess) and the ``__array_ufunc__`` test (SciPy's ufuncs on
Tensors without it): SciPy's own list of functions and their argument kinds."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

import arrayflow as af

# functions of arrayflow.special that are SciPy ufuncs SciPy does not dispatch (reached
# through Tensor.__array_ufunc__ only): (name, number of arguments)
UFUNC_ONLY = [("erfcinv", 1), ("expm1", 1), ("log1p", 1)]


def _functions(ufuncs_only: bool) -> list[tuple[str, int, tuple, tuple]]:
    """``(name, n_args, int_only, python_int)`` of SciPy's dispatched functions (and, for the
    ufunc path, :data:`UFUNC_ONLY`)."""
    from scipy.special import _support_alternative_backends as sab

    out = []
    for info in sab._special_funcs:
        if ufuncs_only and not info.is_ufunc:
            continue
        ints = info.int_only or (False,) * info.n_args
        py_int = info.scalar_or_0d_only or info.python_int_only or {}
        if isinstance(py_int, dict):
            py_int = py_int.get("numpy", (False,) * info.n_args)
        out.append((info.func.__name__, info.n_args, tuple(ints), tuple(py_int)))
    if ufuncs_only:
        out += [(n, k, (False,) * k, (False,) * k) for n, k in UFUNC_ONLY]
    return out


def check_every_function(ufuncs_only: bool = False, seed: int = 0) -> dict[str, Any]:
    """Call each function through ``scipy.special`` on Tensors (the floating arguments
    requiring grad) and compare with SciPy on NumPy arrays.

    Returns
    -------
    dict
        ``names`` (the functions called), ``not_tensor`` (names whose result is not a
        Tensor), ``wrong_value`` (names off SciPy's values by more than 1e-12 relative),
        ``no_derivative`` (``"name:k"`` where the backward raised NotImplementedError) and
        ``bad_gradient`` (``[name, k, ours, central differences]`` off by more than 1e-5).
    """
    import scipy.special as sp

    rng = np.random.default_rng(seed)
    res: dict[str, Any] = {"names": [], "not_tensor": [], "wrong_value": [],
                           "no_derivative": [], "bad_gradient": []}
    for name, _, ints, py_int in _functions(ufuncs_only):
        res["names"].append(name)
        assert hasattr(af.special, name), name
        shift = 1.0 if name == "multigammaln" else 0.0  # a > (d - 1)/2
        args = [1 if p else np.array([1, 2, 3, 4]) if i else rng.uniform(0.2, 0.8, 4) + shift
                for i, p in zip(ints, py_int)]
        diff = [k for k, (i, p) in enumerate(zip(ints, py_int)) if not i and not p]
        ts = [af.asarray(a, requires_grad=k in diff) if isinstance(a, np.ndarray) else a
              for k, a in enumerate(args)]
        with warnings.catch_warnings():
            warnings.simplefilter("error", af.GraphBreakWarning)
            out = getattr(sp, name)(*ts)
        if not isinstance(out, af.Tensor):
            res["not_tensor"].append(name)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = getattr(sp, name)(*args)
        got = out.detach().numpy()
        same = (got == want) | (np.isnan(got) & np.isnan(want))
        if not np.all(same | (np.abs(got - want) <= 1e-12 * np.abs(want))):
            res["wrong_value"].append(name)
        for k in diff:
            try:
                (g,) = af.autograd.grad(out.sum(), [ts[k]], retain_graph=True,
                                        allow_unused=True)
            except NotImplementedError:
                res["no_derivative"].append(f"{name}:{k}")
                continue
            a = args[k]
            h = 1e-6 * np.maximum(1.0, np.abs(a))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                up = getattr(sp, name)(*[a + h if j == k else v for j, v in enumerate(args)])
                dn = getattr(sp, name)(*[a - h if j == k else v for j, v in enumerate(args)])
            fd = (up - dn) / (2 * h)
            fin = np.isfinite(fd) & np.isfinite(want)  # (lpmv: NaN at a non-integer m)
            gv = np.zeros_like(a) if g is None else g.numpy()
            if not np.allclose(gv[fin], fd[fin], rtol=1e-5, atol=1e-8):
                res["bad_gradient"].append([name, k, gv.tolist(), fd.tolist()])
    res["no_derivative"].sort()
    return res
