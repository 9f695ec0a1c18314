"""Argument checks of ``linalg.cross``, ``linalg.outer``, ``linalg.qr`` and
``fft.fftfreq``/``fft.rfftfreq``, against PyTorch.

On NumPy these calls returned silently wrong values (the scalar z-component of 2-vectors,
the outer product of flattened matrices, ``R``'s rows as ``Q`` and ``R``, frequencies
truncated to integers); PyTorch raises ``RuntimeError``, and so does arrayflow now, on
every backend. The neighbouring valid calls still equal PyTorch's results.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arrayflow as af

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(0)
_A23 = _RNG.standard_normal((2, 3))
_A32 = _RNG.standard_normal((3, 2))
_V2 = _RNG.standard_normal(2)
_V3 = _RNG.standard_normal(3)
_V4 = _RNG.standard_normal(4)

# (id, arrayflow call, torch call, numpy inputs)
RAISING = [
    ("cross-size-2", lambda a, b: af.linalg.cross(a, b),
     lambda a, b: torch.linalg.cross(a, b), (_V2, _V2)),
    ("cross-size-2-axis-2", lambda a, b: af.linalg.cross(a, b, axis=-2),
     lambda a, b: torch.linalg.cross(a, b, dim=-2), (_A23, _A23)),
    ("outer-2d-first", lambda a, b: af.linalg.outer(a, b),
     lambda a, b: torch.outer(a, b), (_A23, _V3)),
    ("outer-2d-second", lambda a, b: af.linalg.outer(a, b),
     lambda a, b: torch.outer(a, b), (_V3, _A32)),
    ("outer-method-0d", lambda a, b: a.outer(b), lambda a, b: a.outer(b),
     (_V3, np.asarray(2.0))),
    ("qr-unknown-mode", lambda a: af.linalg.qr(a, mode="full"),
     lambda a: torch.linalg.qr(a, mode="full"), (_A32,)),
    ("fftfreq-int", lambda: af.fft.fftfreq(4, dtype=af.int64),
     lambda: torch.fft.fftfreq(4, dtype=torch.int64), ()),
    ("rfftfreq-int", lambda: af.fft.rfftfreq(5, dtype=af.int32),
     lambda: torch.fft.rfftfreq(5, dtype=torch.int32), ()),
]

VALID = [
    ("cross-size-3-axis-2", lambda a, b: af.linalg.cross(a, b, axis=-2),
     lambda a, b: torch.linalg.cross(a, b, dim=-2), (_A32, _A32[::-1].copy())),
    ("cross-broadcast", lambda a, b: af.linalg.cross(a, b),
     lambda a, b: torch.linalg.cross(a, b[None]), (_A23, _V3)),
    ("outer", lambda a, b: af.linalg.outer(a, b), lambda a, b: torch.outer(a, b),
     (_V3, _V4)),
    ("qr-reduced", lambda a: af.linalg.qr(a)[1], lambda a: torch.linalg.qr(a)[1], (_A32,)),
    ("qr-complete", lambda a: af.linalg.qr(a, mode="complete")[1],
     lambda a: torch.linalg.qr(a, mode="complete")[1], (_A32,)),
    ("fftfreq-float64", lambda: af.fft.fftfreq(5, d=0.5, dtype=af.float64),
     lambda: torch.fft.fftfreq(5, d=0.5, dtype=torch.float64), ()),
    ("rfftfreq-default", lambda: af.fft.rfftfreq(6), lambda: torch.fft.rfftfreq(6), ()),
]


@pytest.mark.parametrize("case", RAISING, ids=lambda c: c[0])
def test_raises_runtime_error_as_pytorch(case, backend):
    _, f, ft, inputs = case
    with pytest.raises(RuntimeError), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ft(*(torch.tensor(x) for x in inputs))
    args = [af.asarray(x) for x in inputs]
    with pytest.raises(RuntimeError, match=r"arrayflow\.(linalg|fft)\.\w+: "):
        f(*args)


@pytest.mark.parametrize("case", VALID, ids=lambda c: c[0])
def test_valid_calls_match_pytorch(case, backend):
    _, f, ft, inputs = case
    got = f(*(af.asarray(x) for x in inputs))
    want = ft(*(torch.tensor(x) for x in inputs))
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(np.asarray(got.numpy()), want.numpy(), rtol=1e-12, atol=1e-12)


def test_cross_gradient_still_matches_pytorch(backend):
    a, b = _A32.T.copy(), _A32[::-1].T.copy()
    xa, xb = af.asarray(a, requires_grad=True), af.asarray(b, requires_grad=True)
    af.sum(af.linalg.cross(xa, xb) * af.asarray(_A23)).backward()
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    (torch.linalg.cross(ta, tb) * torch.tensor(_A23)).sum().backward()
    np.testing.assert_allclose(np.asarray(xa.grad.numpy()), ta.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(xb.grad.numpy()), tb.grad.numpy(), rtol=1e-12)
