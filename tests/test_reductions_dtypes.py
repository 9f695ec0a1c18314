"""``mean``/``std``/``var`` of a non-floating Tensor raise PyTorch's ``RuntimeError``.

The array API standard asks for a floating-point input and leaves the rest unspecified, so
PyTorch's behaviour is the rule: an integer or boolean input raises (NumPy and Dask used to
return float64, array_api_strict raised ``TypeError``). Functions and Tensor methods alike.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

import arrayflow as af

torch = pytest.importorskip("torch")

_NON_FLOATING = ["int64", "int32", "uint8", "bool"]


def _data(dtype):
    if dtype == "bool":
        return np.array([True, False, True, True])
    return np.arange(4).astype(dtype)


@pytest.mark.parametrize("fname", ["mean", "std", "var"])
@pytest.mark.parametrize("dtype", _NON_FLOATING)
def test_non_floating_input_raises_as_torch(backend, fname, dtype):
    data = _data(dtype)
    with pytest.raises(RuntimeError):
        getattr(torch, fname)(torch.from_numpy(data))
    x = af.asarray(data)
    with pytest.raises(RuntimeError, match=rf"arrayflow\.{fname}: argument 'x' .*floating"):
        getattr(af, fname)(x)
    with pytest.raises(RuntimeError):
        getattr(torch.from_numpy(data), fname)()
    with pytest.raises(RuntimeError, match=rf"arrayflow\.{fname}"):
        getattr(x, fname)()


@pytest.mark.parametrize("fname", ["mean", "std", "var"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_floating_input_still_reduces_as_torch(backend, fname, dtype):
    data = np.array([[1.0, 2.5, -3.0], [0.5, 4.0, 2.0]], dtype=dtype)
    kw = {} if fname == "mean" else {"correction": 0}
    want = getattr(torch, fname)(torch.from_numpy(data), dim=1, **kw)
    got = getattr(af, fname)(af.asarray(data), axis=1)
    assert str(got.dtype) == dtype
    assert_allclose(np.asarray(got.numpy()), want.numpy(), rtol=1e-6)


def test_complex_mean_allowed_as_torch(backend):
    data = np.array([1 + 2j, 3 - 1j], dtype=np.complex128)
    got = af.mean(af.asarray(data))
    assert_allclose(np.asarray(got.numpy()), torch.mean(torch.from_numpy(data)).numpy())
