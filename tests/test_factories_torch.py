"""Creation functions take PyTorch's size spellings next to the array API's, and
``Tensor.new_*``; shapes, dtypes and errors compared with PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import arrayflow as af

torch = pytest.importorskip("torch")

DT = {torch.float32: af.float32, torch.float64: af.float64, torch.int64: af.int64,
      torch.bool: af.bool}

SPELLINGS = [((2, 3), {}), (((2, 3),), {}), (([2, 3],), {}), ((), {"size": (2, 3)}),
             ((4,), {}), (((),), {}), ((0, 2), {})]


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
@pytest.mark.parametrize("args, kwargs", SPELLINGS)
def test_size_spellings_match_torch(backend, name, args, kwargs):
    theirs = getattr(torch, name)(*args, **kwargs)
    ours = getattr(af, name)(*args, **kwargs)
    assert ours.shape == tuple(theirs.shape)
    assert ours.dtype is DT[theirs.dtype]
    assert ours.backend.name == backend
    if name in ("zeros", "ones"):
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_array_api_spelling_still_works(backend, name):
    t = getattr(af, name)(shape=(2, 3), dtype=af.float64)
    assert t.shape == (2, 3) and t.dtype is af.float64
    assert getattr(af, name)(5).shape == (5,)


def test_full_takes_size_as_one_argument(backend):
    for args, kwargs in [(((2, 3), 1.5), {}), (([2], 7), {}),
                         ((), {"size": (2,), "fill_value": True})]:
        theirs = torch.full(*args, **kwargs)
        ours = af.full(*args, **kwargs)
        assert ours.shape == tuple(theirs.shape) and ours.dtype is DT[theirs.dtype]
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    # the array API also allows an int shape (PyTorch does not): the standard wins
    assert af.full(2, 1.0).shape == (2,)
    with pytest.raises(TypeError):
        af.full((2,))  # missing fill_value, as in PyTorch
    with pytest.raises(TypeError):
        torch.full((2,))


@pytest.mark.parametrize("args, kwargs", [
    (((2,), 3), {}), ((2.0,), {}), ((True,), {}), ((3,), {"size": (2,)}), ((2, (3,)), {}),
    (((True, 2),), {}), ((), {}),
])
@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_bad_sizes_raise_type_error_like_torch(name, args, kwargs):
    with pytest.raises(TypeError):
        getattr(torch, name)(*args, **kwargs)
    with pytest.raises(TypeError, match=f"arrayflow.{name}"):
        getattr(af, name)(*args, **kwargs)


def test_randint_spellings(backend):
    for args, kwargs in [((5, (3,)), {}), ((1, 5, (2, 2)), {}), ((5,), {"size": (4,)})]:
        theirs = torch.randint(*args, **kwargs)
        ours = af.randint(*args, **kwargs)
        assert ours.shape == tuple(theirs.shape) and ours.dtype is DT[theirs.dtype]
        low = 1 if len(args) == 3 else 0
        v = ours.numpy()
        assert v.min() >= low and v.max() < 5


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_new_methods_match_torch(backend, dtype):
    base_t = torch.zeros(2, dtype=dtype)
    base = af.zeros(2, dtype=DT[dtype])
    cases = [
        ("new_zeros", (2, 3), {}), ("new_zeros", ((2, 3),), {}), ("new_ones", ([4],), {}),
        ("new_empty", (1, 2), {}), ("new_full", ((2,), 3), {}), ("new_full", ((2,), 2.5), {}),
        ("new_tensor", ([1, 2],), {}), ("new_tensor", ([1.5, 2.0],), {}),
        ("new_zeros", (2,), {"dtype": "int64"}), ("new_ones", (2,), {"requires_grad": True}),
    ]
    for name, args, kwargs in cases:
        kt, ka = dict(kwargs), dict(kwargs)
        if "dtype" in kwargs:
            kt["dtype"], ka["dtype"] = torch.int64, af.int64
        theirs = getattr(base_t, name)(*args, **kt)
        ours = getattr(base, name)(*args, **ka)
        assert ours.shape == tuple(theirs.shape), name
        assert ours.dtype is DT[theirs.dtype], name
        assert ours.requires_grad == theirs.requires_grad, name
        assert ours.backend.name == backend, name
        if name != "new_empty":
            np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())


def test_new_tensor_copies_and_detaches(backend):
    src = af.ones(2, requires_grad=True)
    out = af.zeros(1).new_tensor(src)
    assert not out.requires_grad and out.grad_fn is None
    # a copy: writing into it leaves the source alone
    with af.no_grad():
        out.fill_(5.0)
    assert src.detach().numpy().tolist() == [1.0, 1.0]
