"""Hypothesis drives ``x[key]`` (values and VJP) against PyTorch on every backend:
integers (negative included), positive-step slices with out-of-range bounds, ``None``,
``...``, Python bools and integer arrays (negative, repeated) in any mix; a key PyTorch
refuses with ``IndexError`` is refused with ``IndexError``."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

import arrayflow as af

torch = pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies


@st.composite
def shapes_and_keys(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    n_idx = draw(st.integers(0, len(shape)))
    entries = []
    ellipsis = draw(st.sampled_from(["none", "front", "back"]))
    dims = list(shape[len(shape) - n_idx:] if ellipsis == "front" else shape[:n_idx])
    for n in dims:
        kind = draw(st.sampled_from(["int", "slice", "arr", "mask"]))
        if kind == "int":
            entries.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            start = draw(st.none() | st.integers(-n - 1, n + 1))
            stop = draw(st.none() | st.integers(-n - 1, n + 1))
            step = draw(st.none() | st.integers(1, 3))
            entries.append(slice(start, stop, step))
        elif kind == "mask":
            entries.append(np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))))
        else:
            m = draw(st.integers(1, 3))
            entries.append(draw(st.lists(st.integers(-n, n - 1), min_size=m, max_size=m)))
    # lists of integer arrays broadcast only when of one length: make them one length
    lens = {len(e) for e in entries if isinstance(e, list)}
    if len(lens) > 1:
        m = min(lens)
        entries = [e[:m] if isinstance(e, list) else e for e in entries]
    n_extra = draw(st.integers(0, 2))
    for _ in range(n_extra):
        pos = draw(st.integers(0, len(entries)))
        extra = draw(st.sampled_from([None, True, False]))
        entries.insert(pos, extra)
    if ellipsis == "front":
        entries.insert(0, Ellipsis)
    elif ellipsis == "back":
        entries.append(Ellipsis)
    return shape, tuple(entries)


def _keys(key):
    """The key for arrayflow and for PyTorch: lists are integer index arrays, NumPy
    arrays boolean masks."""
    ka = tuple(af.asarray(np.array(k, dtype=np.int64)) if isinstance(k, list)
               else af.asarray(k) if isinstance(k, np.ndarray) else k for k in key)
    kt = tuple(torch.tensor(k, dtype=torch.int64) if isinstance(k, list)
               else torch.tensor(k) if isinstance(k, np.ndarray) else k for k in key)
    return ka, kt


@hypothesis.settings(max_examples=60, deadline=None,
                     suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture])
@hypothesis.given(case=shapes_and_keys())
def test_getitem_matches_torch(backend, case):
    shape, key = case
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) / 5.0
    ka, kt = _keys(key)
    xt = torch.tensor(x, requires_grad=True)
    xa = af.asarray(x, requires_grad=True)
    try:
        yt = xt[kt]
    except IndexError:  # PyTorch refuses the key (index tensors that do not broadcast)
        yt = None
    if yt is None:
        with pytest.raises(IndexError), af.allow_compute():
            xa[ka]
    else:
        _check(xa, xt, ka, yt, key)


def _check(xa, xt, ka, yt, key):
    with af.allow_compute():  # boolean masks on Dask: data-dependent shapes
        ya = xa[ka]
    assert tuple(ya.shape) == tuple(yt.shape), (key, ya.shape, yt.shape)
    assert_allclose(ya.detach().numpy(), yt.detach().numpy())
    w = np.random.default_rng(0).standard_normal(tuple(yt.shape)).astype(np.float32)
    (yt * torch.tensor(w)).sum().backward()
    (ya * af.asarray(w)).sum().backward()
    assert_allclose(xa.grad.numpy(), xt.grad.numpy(), rtol=1e-6, atol=1e-6)


@hypothesis.settings(max_examples=60, deadline=None,
                     suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture])
@hypothesis.given(case=shapes_and_keys())
def test_setitem_matches_torch(backend, case):
    shape, key = case
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) / 5.0
    ka, kt = _keys(key)
    xt = torch.tensor(x, requires_grad=True) * 1.0
    vt = torch.tensor(3.0, requires_grad=True)
    xa = af.asarray(x, requires_grad=True) * 1.0
    va = af.asarray(3.0, requires_grad=True)
    try:
        xt[kt] = vt * 2.0
    except IndexError:
        xt = None
    if xt is None:
        with pytest.raises(IndexError), af.allow_compute():
            xa[ka] = va * 2.0
    else:
        with af.allow_compute():  # masks beside other index arrays: nonzero() on Dask
            xa[ka] = va * 2.0
        assert_allclose(xa.detach().numpy(), xt.detach().numpy())
        w = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        (xt * torch.tensor(w)).sum().backward()
        (xa * af.asarray(w)).sum().backward()
        assert_allclose(va.grad.numpy(), vt.grad.numpy(), rtol=1e-5, atol=1e-6)
