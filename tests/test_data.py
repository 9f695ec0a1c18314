"""arrayflow.utils.data: TensorDataset and DataLoader on every backend."""

from __future__ import annotations

import pytest
from conftest import forbid_compute, on_backend

import arrayflow as af
from arrayflow.utils.data import DataLoader, Dataset, TensorDataset

DATA_BACKENDS = ["numpy", "strict", "dask"]


@pytest.fixture(params=DATA_BACKENDS)
def bk(request):
    with on_backend(request.param):
        yield request.param


def _data(n=10):
    x = af.reshape(af.arange(2 * n, dtype=af.float32), (n, 2))
    y = af.arange(n, dtype=af.int64)
    return x, y


def test_tensor_dataset_indexing(bk):
    x, y = _data()
    ds = TensorDataset(x, y)
    assert len(ds) == 10
    item = ds[3]
    assert isinstance(item, tuple) and len(item) == 2
    assert all(isinstance(t, af.Tensor) for t in item)
    assert item[0].tolist() == [6.0, 7.0] and item[1].item() == 3
    assert item[0].backend.name == bk
    assert ds[2:4][0].shape == (2, 2)


def test_tensor_dataset_errors():
    x = af.zeros((4, 2))
    with pytest.raises(ValueError, match="size mismatch.*\\[4, 3\\]"):
        TensorDataset(x, af.zeros((3,)))
    with pytest.raises(ValueError, match="at least one"):
        TensorDataset()
    with pytest.raises(TypeError, match="expected a Tensor"):
        TensorDataset(x, [1, 2, 3, 4])
    with pytest.raises(ValueError, match="0-d"):
        TensorDataset(af.asarray(1.0))


@pytest.mark.parametrize("n,bs,drop,expected", [
    (10, 3, False, 4), (10, 3, True, 3), (9, 3, False, 3), (9, 3, True, 3), (2, 5, True, 0),
])
def test_len_as_pytorch(n, bs, drop, expected):
    x, y = _data(n)
    loader = DataLoader(TensorDataset(x, y), batch_size=bs, drop_last=drop)
    assert len(loader) == expected
    assert len(list(loader)) == expected


def test_sequential_batches(bk):
    x, y = _data()
    loader = DataLoader(TensorDataset(x, y), batch_size=4)
    batches = list(loader)
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert batches[0][0].shape == (4, 2)
    assert all(b[0].backend.name == bk for b in batches)
    dropped = list(DataLoader(TensorDataset(x, y), batch_size=4, drop_last=True))
    assert [b[1].tolist() for b in dropped] == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_shuffle_is_a_seeded_permutation(bk):
    x, y = _data()
    ds = TensorDataset(x, y)

    def epoch_orders(seed):
        af.manual_seed(seed)
        loader = DataLoader(ds, batch_size=3, shuffle=True)
        return [sum((b[1].tolist() for b in loader), []) for _ in range(2)]

    first, second = epoch_orders(0)
    assert sorted(first) == list(range(10)) and sorted(second) == list(range(10))
    assert first != second  # a new order every epoch
    assert epoch_orders(0) == [first, second]  # same seed, same orders
    # rows stay paired across the dataset's tensors
    af.manual_seed(1)
    for xb, yb in DataLoader(ds, batch_size=4, shuffle=True):
        assert [r[0] for r in xb.tolist()] == [2.0 * v for v in yb.tolist()]


def test_explicit_generator_seed(bk):
    x, y = _data()
    ds = TensorDataset(x, y)

    def order(seed):
        return sum((b[1].tolist() for b in DataLoader(ds, batch_size=4, shuffle=True,
                                                       generator=seed)), [])

    af.manual_seed(123)
    a = order(7)
    af.manual_seed(456)  # the global seed does not matter with generator=
    assert order(7) == a
    assert sorted(a) == list(range(10))
    assert order(8) != a


def test_dask_batches_stay_lazy_and_follow_slices():
    with on_backend("dask", chunks=4):
        af.manual_seed(0)
        x = af.rand(12, 2)  # random constructors use the backend's chunks: (4, 4, 4)
        y = af.arange(12, dtype=af.int64)
        loader = DataLoader(TensorDataset(x, y), batch_size=4)
        assert loader.chunk_hint() == (4, 4, 4)
        with forbid_compute("dask"):
            batches = list(loader)
            shuffled = list(DataLoader(TensorDataset(x, y), batch_size=4, shuffle=True,
                                       generator=0))
        # batch_size equal to the chunk size: each batch is exactly one chunk
        assert all(b[0].array.numblocks == (1, 1) for b in batches)
        assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
        rows = x.tolist()
        assert batches[1][0].tolist() == rows[4:8]
        for xb, yb in shuffled:
            assert xb.tolist() == [rows[i] for i in yb.tolist()]


def test_generic_dataset_is_stacked():
    class Squares(Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return af.asarray(float(i)), af.asarray(float(i * i))

    batches = list(DataLoader(Squares(), batch_size=2))
    assert [b[1].tolist() for b in batches] == [[0.0, 1.0], [4.0, 9.0], [16.0]]


def test_bad_arguments():
    x, y = _data()
    ds = TensorDataset(x, y)
    with pytest.raises(ValueError, match="batch_size"):
        DataLoader(ds, batch_size=0)
    with pytest.raises(TypeError, match="generator"):
        DataLoader(ds, shuffle=True, generator="seed")
