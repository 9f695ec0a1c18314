"""Indexing against PyTorch: negative and out-of-range indices in ``__getitem__``,
``__setitem__``, ``take`` and ``take_along_axis`` (values and VJPs), integer-array VJPs
that accumulate repeated indices, and the key forms PyTorch accepts (issue 12, section 3),
on every backend."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

import arrayflow as af

torch = pytest.importorskip("torch")

X = np.arange(24, dtype=np.float32).reshape(4, 6) / 7.0


def _both(a=X):
    return af.asarray(a), torch.tensor(a)


def _grad_pair(fn_af, fn_t, a=X):
    """Value and gradient of ``sum(fn(x) * w)`` in arrayflow and in PyTorch."""
    xa = af.asarray(a, requires_grad=True)
    xt = torch.tensor(a, requires_grad=True)
    ya, yt = fn_af(xa), fn_t(xt)
    w = np.random.default_rng(0).standard_normal(tuple(yt.shape)).astype(np.float32)
    (ya * af.asarray(w)).sum().backward()
    (yt * torch.tensor(w)).sum().backward()
    assert_allclose(ya.detach().numpy(), yt.detach().numpy(), rtol=1e-6)
    assert_allclose(xa.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("key", [
    -1, (-1, -2), (slice(None), -1), (-4,), (Ellipsis, -6), (slice(None, None, 2), -3),
    (None, -1), (-2, None), (Ellipsis, None), (slice(1, None), None, slice(None, None, 3)),
])
def test_getitem_int_and_basic_keys_match_torch(backend, key):
    _grad_pair(lambda t: t[key], lambda t: t[key])


@pytest.mark.parametrize("idx", [[0, -1], [-1, -1, 2, 0], [-4, 3]])
def test_getitem_integer_array_negative_and_repeated(backend, idx):
    ia, it = af.asarray(np.array(idx)), torch.tensor(idx)
    _grad_pair(lambda t: t[ia], lambda t: t[it])
    _grad_pair(lambda t: t[:, ia], lambda t: t[:, it])
    _grad_pair(lambda t: t[1:, ia], lambda t: t[1:, it])


def test_getitem_several_integer_arrays(backend):
    i, j = np.array([[0, -1], [2, 2]]), np.array([-1, 3])
    ia, ja, it, jt = af.asarray(i), af.asarray(j), torch.tensor(i), torch.tensor(j)
    _grad_pair(lambda t: t[ia, ja], lambda t: t[it, jt])
    _grad_pair(lambda t: t[ia, 1], lambda t: t[it, 1])
    x3 = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    k = np.array([0, -1, 0])
    ka, kt = af.asarray(k), torch.tensor(k)
    _grad_pair(lambda t: t[:, ka, ka], lambda t: t[:, kt, kt], x3)  # adjacent: stays in place
    _grad_pair(lambda t: t[ka, :, ka], lambda t: t[kt, :, kt], x3)  # separated: goes first
    _grad_pair(lambda t: t[ka, 1:3, -1], lambda t: t[kt, 1:3, -1], x3)


def test_getitem_list_key(backend):
    _grad_pair(lambda t: t[[0, 0, -1]], lambda t: t[[0, 0, -1]])


@pytest.mark.parametrize("key", [4, -5, (0, 6), (0, -7), (Ellipsis, 6)])
def test_getitem_out_of_range_int_raises_index_error(backend, key):
    xa, xt = _both()
    with pytest.raises(IndexError):
        xt[key]
    with pytest.raises(IndexError, match="out of bounds"):
        xa[key]


@pytest.mark.parametrize("idx", [[0, 4], [-5], [1, 100]])
def test_getitem_out_of_range_array_raises_index_error(backend, idx):
    xa, xt = _both()
    with pytest.raises(IndexError):
        xt[torch.tensor(idx)]
    with pytest.raises(IndexError, match="out of bounds"):
        xa[af.asarray(np.array(idx))].numpy()  # Dask: raised when computed
    with pytest.raises(IndexError, match="out of bounds"):
        xa[:, af.asarray(np.array(idx)) * 2].numpy()


def test_too_many_indices_raise(backend):
    xa, xt = _both()
    with pytest.raises(IndexError):
        xt[0, 0, 0]
    with pytest.raises(IndexError, match="too many indices"):
        xa[0, 0, 0]


@pytest.mark.parametrize("idx", [[0, -1, 2], [-6, 5], [3, 3, -3]])
def test_take_negative_indices_values_and_vjp(backend, idx):
    ia, it = af.asarray(np.array(idx)), torch.tensor(idx)
    _grad_pair(lambda t: af.take(t, ia, axis=1), lambda t: torch.index_select(t, 1, it % 6))
    _grad_pair(lambda t: af.take(t, ia % 4, axis=0),
               lambda t: torch.index_select(t, 0, it % 4))
    v = X[0]
    _grad_pair(lambda t: af.take(t, ia), lambda t: t[it], v)


@pytest.mark.parametrize("idx", [[0, 6], [-7]])
def test_take_out_of_range_raises_index_error(backend, idx):
    xa, xt = _both()
    with pytest.raises(RuntimeError):  # PyTorch's index_select
        torch.index_select(xt, 1, torch.tensor(idx))
    with pytest.raises(IndexError, match="take: index .* out of bounds for dimension 1"):
        af.take(xa, af.asarray(np.array(idx)), axis=1).numpy()


def test_take_along_axis_negative_indices_values_and_vjp(backend):
    idx = np.array([[0, -1], [-6, 2], [5, -1], [1, 1]])
    ia, it = af.asarray(idx), torch.tensor(idx % 6)
    _grad_pair(lambda t: af.take_along_axis(t, ia, axis=1),
               lambda t: torch.gather(t, 1, it))
    idx0 = np.array([[-1, 0, 3, -4, 2, 1]])
    _grad_pair(lambda t: af.take_along_axis(t, af.asarray(idx0), axis=0),
               lambda t: torch.gather(t, 0, torch.tensor(idx0 % 4)))


@pytest.mark.parametrize("bad", [6, -7])
def test_take_along_axis_out_of_range_raises(backend, bad):
    xa, xt = _both()
    idx = np.zeros((4, 2), dtype=np.int64)
    idx[2, 1] = bad
    with pytest.raises(RuntimeError):  # torch.gather
        torch.gather(xt, 1, torch.tensor(idx))
    with pytest.raises(IndexError, match="out of bounds"):
        af.take_along_axis(xa, af.asarray(idx), axis=1).numpy()


@pytest.mark.parametrize("key", [-1, (1, -2), (slice(None), -1), (Ellipsis, -3), (-2, None)])
def test_setitem_negative_int_matches_torch(backend, key):
    xa, xt = _both()
    xa[key] = 5.0
    xt[key] = 5.0
    assert_allclose(xa.numpy(), xt.numpy())


@pytest.mark.parametrize("key", [4, -5, (0, 6)])
def test_setitem_out_of_range_raises_and_changes_nothing(backend, key):
    xa, xt = _both()
    with pytest.raises(IndexError):
        xt[key] = 1.0
    with pytest.raises(IndexError, match="out of bounds"):
        xa[key] = 1.0
    assert_allclose(xa.numpy(), X)


def test_setitem_integer_array_negative_and_out_of_range(backend):
    xa, xt = _both()
    xa[af.asarray(np.array([0, -1]))] = 5.0
    xt[torch.tensor([0, -1])] = 5.0
    assert_allclose(xa.numpy(), xt.numpy())
    xa, xt = _both()
    with pytest.raises(IndexError):
        xt[torch.tensor([0, 4])] = 1.0
    with pytest.raises(IndexError, match="out of bounds"):
        xa[af.asarray(np.array([0, 4]))] = 1.0
        xa.numpy()  # Dask: the check is part of the graph


def test_setitem_vjp_negative_index(backend):
    va = af.asarray(np.ones(6, dtype=np.float32) * 2, requires_grad=True)
    vt = torch.tensor(np.ones(6, dtype=np.float32) * 2, requires_grad=True)
    xa = af.asarray(X, requires_grad=True) * 1.0
    xt = torch.tensor(X, requires_grad=True) * 1.0
    xa[-1] = va * 3.0
    xt[-1] = vt * 3.0
    w = np.arange(24, dtype=np.float32).reshape(4, 6)
    (xa * af.asarray(w)).sum().backward()
    (xt * torch.tensor(w)).sum().backward()
    assert_allclose(xa.detach().numpy(), xt.detach().numpy())
    assert_allclose(va.grad.numpy(), vt.grad.numpy())


def test_augmented_assignment_with_repeated_index_does_not_accumulate(backend):
    xa, xt = _both()
    xa[[0, 0]] += 1.0
    xt[[0, 0]] += 1
    assert_allclose(xa.numpy(), xt.numpy())


def test_negative_step_is_kept_unlike_torch(backend):
    # A documented difference (docs/pytorch-differences.md): the array API allows
    # negative steps, PyTorch raises ValueError. Values and gradient follow NumPy.
    xt = torch.tensor(X)
    with pytest.raises(ValueError):
        xt[::-1]
    xa = af.asarray(X, requires_grad=True)
    y = xa[::-2, 4:0:-3]
    assert_allclose(y.detach().numpy(), X[::-2, 4:0:-3])
    (y * 2.0).sum().backward()
    expect = np.zeros_like(X)
    expect[::-2, 4:0:-3] = 2.0
    assert_allclose(xa.grad.numpy(), expect)


X4 = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5) / 11.0


@pytest.mark.parametrize("key", [
    (0, slice(None), [0, 2]),
    (slice(None), 0, slice(None), [1, 2]),
    ([0, 1], 0, slice(None), [1, 2]),
    ([0, 1], slice(None), 0, [1, -2]),
    (slice(None), [0, 1], 0, [1, 2]),
    (slice(None), [0, 1], slice(None), -1),
    (1, [[0, 1], [2, 2]], slice(1, 3), 4),
    (Ellipsis, 2, [0, -1]),
])
def test_integers_with_integer_arrays_follow_torch(backend, key):
    # PyTorch applies integers as selects before the integer arrays; NumPy treats them
    # together, which moves the broadcast dimensions to the front in some of these keys.
    ka = tuple(af.asarray(np.array(k)) if isinstance(k, list) else k for k in key)
    kt = tuple(torch.tensor(k) if isinstance(k, list) else k for k in key)
    _grad_pair(lambda t: t[ka], lambda t: t[kt], X4)


def test_setitem_integer_beside_index_array_lays_value_out_as_torch(backend):
    # NumPy would write v transposed here (its broadcast dimension goes first): silent
    x = np.zeros((2, 3, 3), dtype=np.float32)
    v = np.arange(9, dtype=np.float32).reshape(3, 3)
    idx = np.array([2, 0, 1])
    va = af.asarray(v, requires_grad=True)
    vt = torch.tensor(v, requires_grad=True)
    xa = af.asarray(x, requires_grad=True) * 1.0
    xt = torch.tensor(x, requires_grad=True) * 1.0
    xa[0, :, af.asarray(idx)] = va * 1.0
    xt[0, :, torch.tensor(idx)] = vt * 1.0
    assert_allclose(xa.detach().numpy(), xt.detach().numpy())
    w = np.arange(18, dtype=np.float32).reshape(2, 3, 3)
    (xa * af.asarray(w)).sum().backward()
    (xt * torch.tensor(w)).sum().backward()
    assert_allclose(va.grad.numpy(), vt.grad.numpy())


def test_setitem_several_index_arrays_on_every_backend(backend):
    i, j = np.array([0, -1, 2]), np.array([[1], [5]])
    xa, xt = af.asarray(X), torch.tensor(X)
    xa[af.asarray(i), af.asarray(j)] = af.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    xt[torch.tensor(i), torch.tensor(j)] = torch.arange(6.0).reshape(2, 3)
    assert_allclose(xa.numpy(), xt.numpy())  # Dask: through one flat index


def test_take_without_axis_flattens_like_torch_take(backend):
    # n-D x with axis=None: torch.take's flattened gather (NumPy too; Dask and
    # array_api_strict refused, and the NumPy gradient had the wrong shape)
    idx = np.array([0, 23, -1, 7])
    _grad_pair(lambda t: af.take(t, af.asarray(idx)), lambda t: torch.take(t, torch.tensor(idx)))
    with pytest.raises(IndexError):
        torch.take(torch.tensor(X), torch.tensor([24]))
    with pytest.raises(IndexError, match="out of bounds"):
        af.take(af.asarray(X), af.asarray(np.array([24]))).numpy()
