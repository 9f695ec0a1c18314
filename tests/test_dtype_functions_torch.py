"""``finfo``/``iinfo`` against PyTorch's ``torch.finfo``/``torch.iinfo``.

The limits of every dtype both libraries have, and PyTorch's ``TypeError`` for a dtype of
the other kind, on every backend (before, NumPy's namespace raised ``AttributeError``
and array-api-strict ``ValueError``: the error depended on the backend).
"""

from __future__ import annotations

import pytest

import arrayflow as af

torch = pytest.importorskip("torch")

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "float32", "float64",
          "complex64", "complex128"]


def _call(fn, dtype):
    try:
        return fn(dtype), None
    except Exception as e:  # the type is what is compared
        return None, e


@pytest.mark.parametrize("fname", ["finfo", "iinfo"])
@pytest.mark.parametrize("name", DTYPES)
def test_limits_and_errors_match_torch(backend, fname, name):
    theirs, their_error = _call(getattr(torch, fname), getattr(torch, name))
    for arg in (getattr(af, name), af.zeros(2, dtype=getattr(af, name))):
        ours, our_error = _call(getattr(af, fname), arg)
        if their_error is not None:
            assert type(our_error) is type(their_error), (fname, name, our_error, their_error)
            assert f"{fname}()" in str(our_error) and name in str(our_error)
            continue
        assert our_error is None, (fname, name, our_error)
        assert ours.bits == theirs.bits
        assert ours.max == theirs.max and ours.min == theirs.min
        if fname == "finfo":
            assert ours.eps == theirs.eps
            assert ours.smallest_normal == theirs.smallest_normal == ours.tiny
