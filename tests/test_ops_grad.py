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
from arrayflow.testing.cases import NON_DIFFERENTIABLE
from arrayflow.testing.grad import GRAD_CASES
from arrayflow.testing.grad import build as _build


def test_every_differentiable_op_has_a_vjp():
    missing = [n for n, o in OPS.items() if o.differentiable and o.vjp is None]
    assert missing == []


def test_non_differentiable_ops_are_declared_so():
    wrong = [n for n in NON_DIFFERENTIABLE if n in OPS and OPS[n].differentiable]
    assert wrong == []


def test_every_differentiable_op_is_gradchecked():
    checked = {c.op for c in GRAD_CASES}
    exempt = {c.op for c in CASES if not c.gradcheck}
    # Complex-valued transforms: finite differences need real inputs and outputs; their
    # complex VJPs are compared with PyTorch in tests/test_complex_autograd.py.
    exempt |= {n for n in OPS if n.startswith("fft.") and n not in ("fft.fftshift",
                                                                      "fft.ifftshift")}
    exempt.add("imag")  # complex input only (the standard): tests/test_complex_autograd.py
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


def test_op_without_a_complex_rule_raises_naming_it():
    # Complex values follow PyTorch's convention where an op declares it (Op.complex_ok,
    # tests/test_complex_autograd.py); any other op raises when recording, never a silent
    # wrong gradient.
    x = af.asarray([1 + 2j, 3 - 1j], requires_grad=True)
    with pytest.raises(NotImplementedError, match=r"arrayflow\.max: .*complex"):
        af.max(x)
    y = af.exp(x)  # declared: recorded
    assert y.requires_grad


@pytest.mark.parametrize("case", GRAD_CASES, ids=lambda c: c.id)
def test_residuals_holding_arrays_are_flat(case):
    # The graph links a saved value to the input or output it is (so create_graph
    # differentiates through it, and in-place changes are caught) only at the top level of
    # the residuals: an array inside a nested tuple would silently be a constant in double
    # backward (qr/svd saved (Q, R) nested: their second derivatives were wrong).
    with on_backend("numpy"):
        fn, leaves = _build(case)
        outs = fn(*leaves)
    nodes = {o.grad_fn for o in outs if o.grad_fn is not None}
    for node in nodes:
        for k, r in enumerate(getattr(node, "res", None) or ()):
            if isinstance(r, (tuple, list)):
                # index arrays (integer, bool) inside a key are constants by nature
                inner = [str(e.dtype) for e in r if isinstance(e, np.ndarray)
                         and e.dtype.kind in "fc"]
                assert not inner, f"{case.op}: residual {k} nests float arrays {inner}"
