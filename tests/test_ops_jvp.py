"""Forward mode for every differentiable op, generated from the case table (issue 14).

For each case of :data:`arrayflow.testing.grad.GRAD_CASES` (float64 inputs):

- the JVP (``forward_ad``) agrees with central finite differences of the op;
- the JVP is the transpose of the VJP: ``<jvp(v), u> == <v, vjp(u)>`` for random ``v``, ``u``;
- on Dask, the tangents equal NumPy's without computing anything.

An op without a JVP rule raises ``NotImplementedError`` naming it; the first test fails for
any differentiable op without one.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import forbid_compute, on_backend

import arrayflow as af
import arrayflow.autograd.forward_ad as fwAD
from arrayflow.ops import OPS
from arrayflow.testing.grad import GRAD_CASES
from arrayflow.testing.grad import build as _build


def test_every_differentiable_op_has_a_jvp():
    missing = sorted(n for n, o in OPS.items() if o.differentiable and o.jvp is None)
    assert missing == []


def _tangents(leaves, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(tuple(x.shape)) for x in leaves]


def _jvp(fn, leaves, vs):
    """Output tangents of ``fn`` at ``leaves`` in the directions ``vs`` (NumPy arrays)."""
    with fwAD.dual_level():
        duals = [fwAD.make_dual(x.detach(), af.asarray(v, dtype=x.dtype))
                 for x, v in zip(leaves, vs)]
        outs = fn(*duals)
        result = []
        for o in outs:
            t = fwAD.unpack_dual(o).tangent
            result.append(np.zeros(tuple(o.shape)) if t is None else t)
    return outs, result


def _np(t):
    return t if isinstance(t, np.ndarray) else t.numpy()


@pytest.mark.parametrize("name", ["numpy", "strict"])
@pytest.mark.parametrize("case", GRAD_CASES, ids=lambda c: c.id)
def test_jvp_matches_finite_differences(case, name):
    with on_backend(name):
        fn, leaves = _build(case)
        vs = _tangents(leaves, 1)
        _, tangents = _jvp(fn, leaves, vs)
        eps = 1e-6
        with af.no_grad():
            plus = fn(*[x.detach() + eps * af.asarray(v) for x, v in zip(leaves, vs)])
            minus = fn(*[x.detach() - eps * af.asarray(v) for x, v in zip(leaves, vs)])
        for k, (t, p, m) in enumerate(zip(tangents, plus, minus)):
            fd = (p.numpy() - m.numpy()) / (2 * eps)
            # Where the output is NaN the difference quotient is NaN whatever the rule
            # (maximum with a NaN operand): compare the finite ones only.
            ok = np.isfinite(fd)
            np.testing.assert_allclose(_np(t)[ok], fd[ok], rtol=1e-4, atol=1e-5,
                                       err_msg=f"{case.id}: output {k}")


@pytest.mark.parametrize("name", ["numpy", "strict"])
@pytest.mark.parametrize("case", GRAD_CASES, ids=lambda c: c.id)
def test_jvp_is_the_transposed_vjp(case, name):
    with on_backend(name):
        fn, leaves = _build(case)
        vs = _tangents(leaves, 2)
        outs, tangents = _jvp(fn, leaves, vs)
        rng = np.random.default_rng(3)
        # no cotangent where the output is NaN: there the JVP (PyTorch's formula) and
        # the VJP (gradient to both operands) of maximum/minimum need not be transposes
        us = [np.where(np.isnan(o.detach().numpy()), 0.0, rng.standard_normal(tuple(o.shape)))
              for o in outs]
        outs = fn(*leaves)
        gs = af.autograd.grad(outs, leaves, grad_outputs=[af.asarray(u) for u in us],
                              allow_unused=True)
        lhs = sum(float(np.sum(np.where(u == 0, 0.0, _np(t)) * u))
                  for t, u in zip(tangents, us))
        # (a NaN output's gradient is NaN in both libraries even with a zero cotangent:
        # max over a row holding NaN; those entries are left out on both sides)
        rhs = sum(0.0 if g is None else float(np.sum(v * np.nan_to_num(g.numpy(), nan=0.0)))
                  for v, g in zip(vs, gs))
        assert lhs == pytest.approx(rhs, rel=1e-8, abs=1e-10), case.id


@pytest.mark.parametrize("case", [c for c in GRAD_CASES if c.lazy], ids=lambda c: c.id)
def test_dask_jvp_matches_numpy_and_stays_lazy(case):
    got = {}
    for name in ("numpy", "dask"):
        with on_backend(name):
            fn, leaves = _build(case)
            vs = _tangents(leaves, 4)
            with forbid_compute(name):
                _, tangents = _jvp(fn, leaves, vs)
            got[name] = [_np(t) for t in tangents]
    for k, (a, b) in enumerate(zip(got["numpy"], got["dask"])):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12, err_msg=f"output {k}")
