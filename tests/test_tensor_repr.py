"""``repr(Tensor)`` is PyTorch's text (``arrayflow._format`` ports ``torch/_tensor_str.py``):
values, widths, scientific notation, summarisation, line wrapping and suffixes compared
with PyTorch 2.13 character for character. The notebook seed prints
``tensor([2.], grad_fn=<MulConstantBackward>)`` and the 2020 note's sessions print
``tensor([[4., 0.], [0., 4.]])``: these are the same rules."""

from __future__ import annotations

import numpy as np
import pytest

import arrayflow as af

torch = pytest.importorskip("torch")

_rng = np.random.default_rng(0)
VALUES = [
    np.array(3.5, np.float32), np.array(2.0, np.float32), np.array([1.0, 2.0], np.float32),
    np.array([0.12345678, -1.0], np.float32), np.array([1e-5, 1.0], np.float32),
    np.array([1e9, 1.0], np.float32), np.array([np.nan, np.inf, -np.inf, 1.0], np.float32),
    np.array([np.nan, 2.5], np.float32), np.zeros((2, 3), np.float32),
    np.array([[2, 4], [4, 6]]), np.array([True, False]), np.array([-0.0, 0.0], np.float32),
    _rng.normal(size=(3, 4)).astype(np.float32), _rng.normal(size=(30,)).astype(np.float32),
    _rng.normal(size=(2, 3, 4)).astype(np.float32), _rng.normal(size=(2000,)).astype(np.float32),
    _rng.normal(size=(40, 40)).astype(np.float32),
    _rng.normal(size=(11, 12, 13)).astype(np.float32), np.arange(30) * 1000,
    np.array([1 + 2j, -3.5 - 0.25j], np.complex64), np.array(1 - 2j, np.complex64),
    _rng.integers(-1000, 1000, size=(4, 50)), (_rng.normal(size=(5, 5)) * 1e5).astype(np.float32),
    np.array([100000.0, 1.0], np.float32), np.array([1e8, 1.0], np.float32),
    np.array([0.0001, 0.1], np.float32), _rng.normal(size=(3, 3)),
    _rng.integers(0, 100, size=(3,)).astype(np.int32), np.zeros((0, 3), np.int64),
    np.zeros((0,), np.float32), np.zeros((2, 0)),
]


def _torch_text(t):
    return repr(t).replace("torch.", "")


@pytest.mark.parametrize("i", range(len(VALUES)))
def test_repr_is_pytorchs(backend, i):
    a = VALUES[i]
    if backend == "dask":
        pytest.skip("a lazy Tensor's repr never computes (docs/dask.md)")
    got = repr(af.asarray(a))
    assert got == _torch_text(torch.from_numpy(a.copy()))


def test_repr_suffixes_wrap_like_pytorch():
    with af.use_backend("numpy"):
        for shape in ((9,), (10,), (3, 9), (2, 2)):
            x = np.linspace(-1, 1, int(np.prod(shape))).reshape(shape)
            a = af.asarray(x, requires_grad=True)
            t = torch.tensor(x, requires_grad=True)
            assert repr(a) == _torch_text(t)
            assert repr(a * 2).split(", grad_fn")[0] == _torch_text(t * 2).split(", grad_fn")[0]


def test_repr_of_a_subclass_uses_its_name():
    class MyT(af.Tensor):
        pass

    TorchMyT = type("MyT", (torch.Tensor,), {})

    x = np.arange(40, dtype=np.float32).reshape(2, 20) / 3
    with af.use_backend("numpy"):
        a = af.asarray(x).as_subclass(MyT)
    assert repr(a) == _torch_text(torch.from_numpy(x).as_subclass(TorchMyT))
