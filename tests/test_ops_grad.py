"""Every differentiable op, generated from the case table: gradcheck and gradgradcheck on
float64 (NumPy and array_api_strict), and on Dask the same VJP as on NumPy without computing.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import forbid_compute, on_backend

import arrayflow as af
from arrayflow.autograd import gradcheck, gradgradcheck
from arrayflow.ops import OPS
from arrayflow.testing import CASES
from arrayflow.testing.cases import NON_DIFFERENTIABLE, to_arrayflow


def _is_f64(a):
    return isinstance(a, np.ndarray) and a.dtype == np.float64


# Cases placed on purpose where the function is not differentiable (rounding ties, zeros of
# sign/copysign, rank changes): finite differences are meaningless there.
AT_A_KINK = {"round-halves-to-even", "sign-zeros", "copysign-signed-zero",
             "linalg.pinv-rank-deficient"}
# These read one triangle of a symmetric input: check them on (x + x.mT) / 2, as PyTorch does.
SYMMETRIC_INPUT = {"linalg.cholesky", "linalg.eigh", "linalg.eigvalsh"}


def _real_outputs(case):
    args, kwargs = case.sample(0)
    from arrayflow.testing.cases import to_numpy

    n_args, n_kwargs = to_numpy((args, kwargs))
    with np.errstate(all="ignore"):
        out = case.reference_fn()(*n_args, **n_kwargs)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return any(np.asarray(o).dtype.kind == "f" for o in outs)


def _grad_case(case):
    if not (case.differentiable and case.gradcheck) or case.id in AT_A_KINK:
        return False
    args, kwargs = case.sample(0)
    leaves = [a for a in args if _is_f64(a)]
    leaves += [e for a in args if isinstance(a, (list, tuple)) for e in a if _is_f64(e)]
    return bool(leaves) and all(a.size <= 64 for a in leaves) and _real_outputs(case)


GRAD_CASES = [c for c in CASES if _grad_case(c)]


def _build(case, seed=0):
    """(function of the float64 leaves, leaf Tensors requiring grad) for ``case``."""
    args, kwargs = case.sample(seed)
    slots = []  # (i, j or None)
    for i, a in enumerate(args):
        if _is_f64(a):
            slots.append((i, None))
        elif isinstance(a, (list, tuple)):
            slots += [(i, j) for j, e in enumerate(a) if _is_f64(e)]
    a_args, a_kwargs = to_arrayflow((args, kwargs))
    leaves = []
    for i, j in slots:
        t = a_args[i] if j is None else a_args[i][j]
        leaves.append(t.detach().requires_grad_())

    def fn(*xs):
        call = [list(a) if isinstance(a, (list, tuple)) else a for a in a_args]
        for (i, j), x in zip(slots, xs):
            if j is None:
                call[i] = x
            else:
                call[i][j] = x
        call = [type(a_args[k])(c) if isinstance(a_args[k], tuple) else c
                for k, c in enumerate(call)]
        if case.op in SYMMETRIC_INPUT:
            call[0] = (call[0] + call[0].mT) / 2
        out = OPS[case.op](*call, **a_kwargs)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        return tuple(o for o in outs if isinstance(o, af.Tensor)
                     and o.dtype.kind == "real floating")

    return fn, tuple(leaves)


def test_every_differentiable_op_has_a_vjp():
    missing = [n for n, o in OPS.items() if o.differentiable and o.vjp is None]
    assert missing == []


def test_non_differentiable_ops_are_declared_so():
    wrong = [n for n in NON_DIFFERENTIABLE if n in OPS and OPS[n].differentiable]
    assert wrong == []


def test_every_differentiable_op_is_gradchecked():
    checked = {c.op for c in GRAD_CASES}
    exempt = {c.op for c in CASES if not c.gradcheck}
    # Complex-valued transforms: their backward raises NotImplementedError until complex
    # autograd lands (test_complex_backward_raises_naming_the_op).
    exempt |= {n for n in OPS if n.startswith("fft.") and n not in ("fft.fftshift",
                                                                      "fft.ifftshift")}
    exempt.add("imag")  # complex input only (the standard), so complex autograd
    unchecked = sorted(n for n, o in OPS.items()
                       if o.differentiable and n not in checked and n not in exempt)
    assert unchecked == []


@pytest.mark.parametrize("name", ["numpy", "strict"])
@pytest.mark.parametrize("case", GRAD_CASES, ids=lambda c: c.id)
def test_gradcheck(case, name):
    with on_backend(name):
        fn, leaves = _build(case)
        assert gradcheck(fn, leaves, eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("name", ["numpy", "strict"])
@pytest.mark.parametrize("case", GRAD_CASES, ids=lambda c: c.id)
def test_gradgradcheck(case, name):
    with on_backend(name):
        fn, leaves = _build(case)
        assert gradgradcheck(fn, leaves, eps=1e-6, atol=1e-4, rtol=1e-3)


@pytest.mark.parametrize("case", [c for c in GRAD_CASES if c.lazy], ids=lambda c: c.id)
def test_dask_vjp_matches_numpy_and_stays_lazy(case):
    grads = {}
    for name in ("numpy", "dask"):
        with on_backend(name):
            fn, leaves = _build(case)
            outs = fn(*leaves)
            seeds = [af.ones_like(o) * 0.5 for o in outs]
            with forbid_compute(name):
                gs = af.autograd.grad(outs, leaves, grad_outputs=seeds, allow_unused=True)
            grads[name] = [None if g is None else g.numpy() for g in gs]
    for k, (a, b) in enumerate(zip(grads["numpy"], grads["dask"])):
        if a is None or b is None:
            assert a is None and b is None, k
        else:
            np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12, err_msg=f"input {k}")


def test_complex_backward_raises_naming_the_op():
    x = af.asarray([1 + 2j, 3 - 1j], requires_grad=True)
    y = af.exp(x)
    with pytest.raises(NotImplementedError, match="ExpBackward.*exp.*complex"):
        y.backward(af.ones_like(y))
