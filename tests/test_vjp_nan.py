"""Gradients at singular points equal PyTorch's (issue 12, section 3: "NaN where PyTorch is
finite").

Each case is a point where the naive VJP divides by zero (a zero in a product, a constant
input to ``std``, a zero vector in a norm, ``0 ** p`` ...). arrayflow's gradient must be
PyTorch's there: finite where PyTorch is finite, and NaN or inf exactly where PyTorch gives
NaN or inf (compared with ``equal_nan``). ``max``/``min`` are the array API reductions:
they follow ``torch.amax``/``torch.amin`` (ties split the gradient evenly).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import arrayflow as af

torch = pytest.importorskip("torch")

INF, NAN = math.inf, math.nan
LA, TLA = af.linalg, torch.linalg


def assert_grads_match(f, ft, inputs):
    """``sum(f(*inputs))`` differentiated by arrayflow and by torch: equal, NaN-aware."""
    arrays = [np.asarray(x, dtype=np.float64) for x in inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        xs = [af.asarray(a, requires_grad=True) for a in arrays]
        af.sum(f(*xs)).backward()
        got = [None if x.grad is None else x.grad.numpy() for x in xs]
        ts = [torch.tensor(a, requires_grad=True) for a in arrays]
        ft(*ts).sum().backward()
    for k, (g, t) in enumerate(zip(got, ts)):
        if t.grad is None:  # PyTorch gives no gradient at all (vector_norm with ord=0)
            assert g is None, k
            continue
        want = t.grad.numpy()
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-300, equal_nan=True,
                                   err_msg=f"input {k}")


CASES = {
    # cumulative_prod: PyTorch's rule for zeros (one, several, leading, trailing, all)
    "cumprod-one-zero": (lambda x: af.cumulative_prod(x, axis=0),
                         lambda x: torch.cumprod(x, 0), [2.0, 0.0, 3.0, 4.0]),
    "cumprod-two-zeros": (lambda x: af.cumulative_prod(x, axis=0),
                          lambda x: torch.cumprod(x, 0), [2.0, 0.0, 3.0, 0.0, 5.0]),
    "cumprod-leading-zero": (lambda x: af.cumulative_prod(x, axis=0),
                             lambda x: torch.cumprod(x, 0), [0.0, 2.0, 3.0]),
    "cumprod-trailing-zero": (lambda x: af.cumulative_prod(x, axis=0),
                              lambda x: torch.cumprod(x, 0), [2.0, 3.0, 0.0]),
    "cumprod-all-zeros": (lambda x: af.cumulative_prod(x, axis=0),
                          lambda x: torch.cumprod(x, 0), [0.0, 0.0, 0.0]),
    "cumprod-2d-axis1": (lambda x: af.cumulative_prod(x, axis=1), lambda x: torch.cumprod(x, 1),
                         [[2.0, 0.0, 3.0, 0.0], [0.0, 1.0, 2.0, 3.0]]),
    "cumprod-2d-axis0": (lambda x: af.cumulative_prod(x, axis=0), lambda x: torch.cumprod(x, 0),
                         [[2.0, 0.0], [0.0, 1.0], [3.0, 2.0]]),
    "cumprod-include-initial": (lambda x: af.cumulative_prod(x, axis=0, include_initial=True),
                                lambda x: torch.cat([torch.ones(1, dtype=x.dtype),
                                                     torch.cumprod(x, 0)]),
                                [2.0, 0.0, 3.0]),
    # prod with zeros
    "prod-one-zero": (af.prod, torch.prod, [2.0, 0.0, 3.0]),
    "prod-two-zeros": (af.prod, torch.prod, [2.0, 0.0, 0.0]),
    "prod-axis-zeros": (lambda x: af.prod(x, axis=1), lambda x: torch.prod(x, 1),
                        [[0.0, 2.0], [0.0, 0.0]]),
    # std / var: constant input, N == correction, N < correction, 0-d
    "std-constant": (af.std, lambda x: torch.std(x, correction=0), [1.0, 1.0, 1.0]),
    "std-constant-correction1": (lambda x: af.std(x, correction=1),
                                 lambda x: torch.std(x, correction=1), [2.0, 2.0]),
    "std-constant-axis": (lambda x: af.std(x, axis=1), lambda x: torch.std(x, 1, correction=0),
                          [[1.0, 2.0], [3.0, 3.0]]),
    "std-n1-correction1": (lambda x: af.std(x, correction=1),
                           lambda x: torch.std(x, correction=1), [1.0]),
    "var-n1-correction1": (lambda x: af.var(x, correction=1),
                           lambda x: torch.var(x, correction=1), [1.0]),
    "var-dof0": (lambda x: af.var(x, correction=2), lambda x: torch.var(x, correction=2),
                 [1.0, 2.0]),
    "std-dof0": (lambda x: af.std(x, correction=2), lambda x: torch.std(x, correction=2),
                 [1.0, 2.0]),
    "var-axis-dof0": (lambda x: af.var(x, axis=1, correction=2),
                      lambda x: torch.var(x, 1, correction=2), [[1.0, 2.0], [3.0, 3.0]]),
    "var-axis-dof-negative": (lambda x: af.var(x, axis=1, correction=3),
                              lambda x: torch.var(x, 1, correction=3),
                              [[1.0, 2.0], [3.0, 3.0]]),
    "std-axis-dof0": (lambda x: af.std(x, axis=1, correction=2),
                      lambda x: torch.std(x, 1, correction=2), [[1.0, 2.0], [3.0, 3.0]]),
    "std-0d": (af.std, lambda x: torch.std(x, correction=0), 3.0),
    # norms at zero
    **{f"vector_norm-{o}-zero-vector": (lambda x, o=o: LA.vector_norm(x, ord=o),
                                        lambda x, o=o: TLA.vector_norm(x, ord=o),
                                        [0.0, 0.0])
       for o in (2, 1, 3, 1.5, 0.5, -1, INF, -INF, 0)},
    **{f"vector_norm-{o}-zero-entry": (lambda x, o=o: LA.vector_norm(x, ord=o),
                                       lambda x, o=o: TLA.vector_norm(x, ord=o),
                                       [0.0, 1.0, -2.0])
       for o in (2, 1, 3, 1.5, 0.5, -1, INF, -INF)},
    "vector_norm-axis-zero-row": (lambda x: LA.vector_norm(x, axis=1),
                                  lambda x: TLA.vector_norm(x, dim=1),
                                  [[0.0, 0.0], [3.0, 4.0]]),
    **{f"matrix_norm-{o}-zero": (lambda x, o=o: LA.matrix_norm(x, ord=o),
                                 lambda x, o=o: TLA.matrix_norm(x, ord=o),
                                 [[0.0, 0.0], [0.0, 0.0]])
       for o in ("fro", 1, INF, "nuc", 2)},
    **{f"matrix_norm-{o}-tie": (lambda x, o=o: LA.matrix_norm(x, ord=o),
                                lambda x, o=o: TLA.matrix_norm(x, ord=o),
                                [[1.0, 2.0], [2.0, 1.0]])
       for o in (1, INF, -1, -INF)},
    # ord 2 / -2 are amax / amin of the singular values: ties split the gradient
    "matrix_norm-2-tied-singular-values": (lambda x: LA.matrix_norm(x, ord=2),
                                           lambda x: TLA.matrix_norm(x, ord=2),
                                           [[2.0, 0.0], [0.0, -2.0]]),
    "matrix_norm--2-tied-singular-values": (lambda x: LA.matrix_norm(x, ord=-2),
                                            lambda x: TLA.matrix_norm(x, ord=-2),
                                            [[3.0, 0.0, 0.0], [0.0, 1.0, 0.0],
                                              [0.0, 0.0, 1.0]]),
    # an exactly singular matrix: PyTorch's LU-based rule gives (g * det) A^{-H} = 0
    "det-singular": (LA.det, TLA.det, [[1.0, 2.0], [2.0, 4.0]]),
    "det-zero-matrix": (LA.det, TLA.det, [[0.0, 0.0], [0.0, 0.0]]),
    "det-batch-one-singular": (LA.det, TLA.det, [[[1.0, 2.0], [2.0, 4.0]],
                                                 [[2.0, 1.0], [1.0, 3.0]]]),
    # element-wise singular points
    "sqrt-0": (af.sqrt, torch.sqrt, [0.0, 4.0]),
    "pow-half-0": (lambda x: x ** 0.5, lambda x: x ** 0.5, [0.0, 4.0]),
    "abs-0": (af.abs, torch.abs, [0.0, -1.0]),
    "hypot-0-0": (af.hypot, torch.hypot, [0.0, 3.0], [0.0, 4.0]),
    "atan2-0-0": (af.atan2, torch.atan2, [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]),
    "pow-base0": (af.pow, torch.pow, [0.0, 0.0, 0.0, 0.0, 2.0],
                  [0.0, 2.0, 0.5, -1.0, -1.0]),
    "pow-scalar-exponent-0": (lambda x: x ** 0, lambda x: x ** 0, [0.0, 2.0]),
    "pow-scalar-exponent-negative": (lambda x: x ** -1, lambda x: x ** -1, [0.0, 2.0]),
    "pow-scalar-base-0": (lambda x: 0.0 ** x, lambda x: 0.0 ** x, [0.0, 1.0, -1.0]),
    "pow-scalar-base-negative": (lambda x: (-2.0) ** x, lambda x: (-2.0) ** x, [2.0, 0.5]),
    "log-0": (af.log, torch.log, [0.0, -1.0]),
    "log2-0": (af.log2, torch.log2, [0.0]),
    "reciprocal-0": (af.reciprocal, torch.reciprocal, [0.0]),
    "acos-1": (af.acos, torch.acos, [1.0, -1.0]),
    "atanh-1": (af.atanh, torch.atanh, [1.0]),
    "logaddexp-neg-inf": (af.logaddexp, torch.logaddexp, [-INF, -INF, INF],
                          [-INF, 0.0, INF]),
    "divide-by-0": (af.divide, torch.div, [1.0, 0.0], [0.0, 0.0]),
    "copysign-0": (af.copysign, torch.copysign, [0.0, 1.0], [-1.0, -1.0]),
    # ties
    "maximum-tie": (af.maximum, torch.maximum, [1.0, 2.0], [1.0, 1.0]),
    "minimum-tie": (af.minimum, torch.minimum, [1.0, 2.0], [1.0, 1.0]),
    # a NaN operand: no comparison holds, both operands get the whole gradient (PyTorch)
    "maximum-nan": (af.maximum, torch.maximum, [NAN, 1.0, NAN, 2.0], [1.0, NAN, NAN, 0.0]),
    "minimum-nan": (af.minimum, torch.minimum, [NAN, 1.0, NAN, 2.0], [1.0, NAN, NAN, 3.0]),
    "maximum-scalar-nan": (lambda x: af.maximum(x, 0.0),
                           lambda x: torch.maximum(x, torch.zeros((), dtype=x.dtype)),
                           [NAN, -1.0, 0.0, 2.0]),
    "max-reduction-nan": (af.max, torch.amax, [1.0, NAN, 3.0]),
    "clip-nan": (lambda x: af.clip(x, 0.0, 1.0), lambda x: torch.clamp(x, 0.0, 1.0),
                 [NAN, 0.5]),
    "max-reduction-tie": (af.max, torch.amax, [1.0, 3.0, 3.0]),
    "min-reduction-tie-axis": (lambda x: af.min(x, axis=1), lambda x: torch.amin(x, 1),
                               [[1.0, 1.0], [0.0, 2.0]]),
    "clip-at-bounds": (lambda x: af.clip(x, 0.0, 1.0), lambda x: torch.clamp(x, 0.0, 1.0),
                       [0.0, 1.0, 2.0]),
    "sort-tie": (lambda x: af.sort(x) * af.asarray(np.array([1.0, 2.0, 3.0])),
                 lambda x: torch.sort(x, stable=True).values
                 * torch.tensor([1.0, 2.0, 3.0], dtype=x.dtype), [1.0, 1.0, 0.0]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_at_singular_point_matches_torch(backend, name):
    f, ft, *inputs = CASES[name]
    assert_grads_match(f, ft, inputs)


def test_cumprod_zero_gradient_is_finite_and_exact(backend):
    # The old rule divided by x: NaN at the zero. PyTorch's value at the zero is the sum of
    # the products of the other factors: 1 + 3 + 3 * 4 = 16 for [0, 3, 4].
    x = af.asarray(np.array([0.0, 3.0, 4.0]), requires_grad=True)
    af.sum(af.cumulative_prod(x, axis=0)).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [16.0, 0.0, 0.0])


def test_std_of_constant_has_zero_gradient(backend):
    x = af.asarray(np.full((2, 3), 5.0), requires_grad=True)
    af.sum(af.std(x, axis=1, correction=1)).backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 3)))
