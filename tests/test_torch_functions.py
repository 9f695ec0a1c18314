"""PyTorch's functions of ``arrayflow.ops.torch_functions`` raise what PyTorch raises.

``cumsum``/``cumprod``/``unbind``/``repeat_interleave`` check ``dim`` themselves (before,
the standard op underneath raised the backend's error: ``ValueError`` from
array-api-strict's ``unstack`` and Dask's ``repeat``, where PyTorch raises
``IndexError``); a negative ``repeats`` is PyTorch's ``RuntimeError``; the functions that
call a Tensor method raise PyTorch's ``TypeError`` for a non-Tensor ``input`` (before: an
``AttributeError`` from deep inside). Each case runs against the installed PyTorch.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import arrayflow as af

torch = pytest.importorskip("torch")

X = np.arange(12, dtype=np.float64).reshape(3, 4)


def _x(m):
    return af.asarray(X) if m is af else torch.tensor(X)


def _s(m):
    return af.asarray(2.0) if m is af else torch.tensor(2.0)


ERRORS = [
    ("cumsum-dim-2", lambda m: m.cumsum(_x(m), 2)),
    ("cumsum-dim--3", lambda m: m.cumsum(_x(m), -3)),
    ("cumsum-dim-bool", lambda m: m.cumsum(_x(m), True)),
    ("cumsum-0d-dim-1", lambda m: m.cumsum(_s(m), 1)),
    ("cumprod-dim-2", lambda m: m.cumprod(_x(m), dim=2)),
    ("unbind-dim-2", lambda m: m.unbind(_x(m), 2)),
    ("unbind-dim--3", lambda m: m.unbind(_x(m), -3)),
    ("unbind-0d", lambda m: m.unbind(_s(m), 0)),
    ("repeat_interleave-dim-2", lambda m: m.repeat_interleave(_x(m), 2, dim=2)),
    ("repeat_interleave-negative", lambda m: m.repeat_interleave(_x(m), -1, dim=0)),
    ("repeat_interleave-negative-flat", lambda m: m.repeat_interleave(_x(m), -2)),
    ("cumsum-list", lambda m: m.cumsum([1.0, 2.0], 0)),
    ("unbind-tuple", lambda m: m.unbind((1.0, 2.0), 0)),
    ("repeat_interleave-list", lambda m: m.repeat_interleave([1.0, 2.0], 2, dim=0)),
    ("transpose-int", lambda m: m.transpose(3, 0, 1)),
    ("unsqueeze-list", lambda m: m.unsqueeze([1.0], 0)),
    ("t-int", lambda m: m.t(3)),
    ("numel-int", lambda m: m.numel(3)),
    ("detach-float", lambda m: m.detach(1.5)),
]


def _raised(call, m):
    try:
        call(m)
    except Exception as e:  # the type is what is compared
        return e
    return None


@pytest.mark.parametrize(("label", "call"), ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_torch(backend, label, call):
    theirs = _raised(call, torch)
    assert theirs is not None, f"{label}: PyTorch no longer raises; revisit the case"
    with pytest.raises(type(theirs)) as info:
        call(af)
    # the exact type (AxisError is an IndexError *and* a ValueError: not PyTorch's type)
    assert type(info.value) is type(theirs), (label, type(info.value), type(theirs))
    if isinstance(theirs, IndexError):
        assert re.search(r"Dimension (out of range|specified as)", str(info.value))
    if isinstance(theirs, TypeError) and "input" in str(theirs):
        assert "must be Tensor" in str(info.value)


VALID = [
    ("cumsum-0d-dim-0", lambda m: m.cumsum(_s(m), 0)),
    ("cumsum-0d-dim--1", lambda m: m.cumsum(_s(m), -1)),
    ("cumsum-dim--2", lambda m: m.cumsum(_x(m), -2)),
    ("cumprod-dim-1", lambda m: m.cumprod(_x(m), 1)),
    ("unbind-dim--1", lambda m: m.unbind(_x(m), -1)[2]),
    ("repeat_interleave-zero", lambda m: m.repeat_interleave(_x(m), 0, dim=1)),
    ("repeat_interleave-dim--1", lambda m: m.repeat_interleave(_x(m), 2, dim=-1)),
    ("repeat_interleave-flat", lambda m: m.repeat_interleave(_x(m), 2)),
]


@pytest.mark.parametrize(("label", "call"), VALID, ids=[v[0] for v in VALID])
def test_valid_calls_match_torch(backend, label, call):
    theirs = call(torch)
    ours = call(af)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy())



def test_isclose_python_scalar_is_a_documented_difference(backend):
    """docs/pytorch-differences.md: a Python scalar operand of ``isclose``/``allclose`` takes
    the other operand's dtype (PyTorch raises ``TypeError``: Tensors only)."""
    t = af.asarray([1.0, 1.000001, 2.0])
    np.testing.assert_array_equal(af.isclose(t, 1.0).numpy(), [True, True, False])
    np.testing.assert_array_equal(af.isclose(1.0, t).numpy(), [True, True, False])
    assert af.allclose(t[:2], 1.0) is True
    with pytest.raises(TypeError):
        torch.isclose(torch.tensor([1.0]), 1.0)
    with pytest.raises(RuntimeError):  # two Tensors of different dtypes: PyTorch's error
        af.isclose(t, af.asarray([1.0, 1.0, 2.0], dtype=af.float64))
