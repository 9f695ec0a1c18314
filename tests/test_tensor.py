"""The Tensor: fields, storage and versions, the Array object protocol, PyTorch methods."""

from __future__ import annotations

import numpy as np
import pytest

import arrayflow as af

BACKENDS = ["numpy", "strict", "dask"]


@pytest.fixture(params=BACKENDS)
def bk(request):
    with af.use_backend(request.param) as b:
        yield b


def test_fields_of_a_new_tensor(bk):
    t = af.asarray([[1.0, 2.0], [3.0, 4.0]])
    assert t.backend is bk
    assert bk.is_array(t.array)
    assert t.requires_grad is False and t.grad is None and t.grad_fn is None
    assert t.is_leaf and t._version == 0
    assert t.shape == (2, 2) and t.ndim == 2 and t.dtype is af.float32
    assert t.size == 4 and t.size() == (2, 2) and t.size(1) == 2
    assert isinstance(t.size, int)


def test_requires_grad_rules(bk):
    t = af.zeros(3, requires_grad=True)
    assert t.requires_grad and t.is_leaf
    assert af.ones((2,)).requires_grad_().requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        af.arange(3).requires_grad_()
    with pytest.raises(RuntimeError, match="floating point"):
        af.zeros(2, dtype=af.int64, requires_grad=True)


def test_legacy_constructor(bk):
    t = af.Tensor(3, 4)
    assert t.shape == (3, 4) and t.dtype is af.float32 and t.backend is bk
    assert af.Tensor((2, 5)).tolist() == [2.0, 5.0]  # a sequence is data, as in PyTorch
    d = af.Tensor([1, 2])
    assert d.dtype is af.float32 and d.tolist() == [1.0, 2.0]


def test_detach_and_data_share_storage_and_version(bk):
    w = af.zeros(4, requires_grad=True)
    d = w.data
    assert d.requires_grad is False and not w.detach().requires_grad
    af.manual_seed(0)
    w.data.uniform_(-0.1, 0.1)
    vals = w.detach().numpy()
    assert (np.abs(vals) <= 0.1).all() and (vals != 0).all()
    assert w._version == d._version == 1
    d.zero_()
    assert (w.detach().numpy() == 0).all() and w._version == 2


def test_inplace_operators_bump_version_and_keep_dtype(bk):
    x = af.asarray([1.0, 2.0, 3.0])
    alias = x.detach()
    x += 1
    x *= af.asarray([2.0, 2.0, 2.0])
    x -= 1
    assert x.tolist() == [3.0, 5.0, 7.0] and alias.tolist() == [3.0, 5.0, 7.0]
    assert x._version == 3
    i = af.asarray([1, 2, 3])
    with pytest.raises(RuntimeError, match="can't be cast"):  # PyTorch's error
        i /= 2
    assert i.tolist() == [1, 2, 3] and i._version == 0
    with pytest.raises(RuntimeError, match="broadcast shape"):  # PyTorch's error
        x += af.ones((2, 3))
    assert x.tolist() == [3.0, 5.0, 7.0]


def test_setitem_basic_integer_and_boolean(bk):
    x = af.zeros((3, 4))
    x[0, 1] = 5.0
    x[1, :] = af.asarray([1.0, 2.0, 3.0, 4.0])
    x[:, 3] = 9.0
    ref = np.zeros((3, 4), dtype=np.float32)
    ref[0, 1] = 5
    ref[1] = [1, 2, 3, 4]
    ref[:, 3] = 9
    assert (x.numpy() == ref).all() and x._version == 3
    if bk.name != "dask":
        x[x > 4] = -1.0
        ref[ref > 4] = -1
        assert (x.numpy() == ref).all()


@pytest.mark.parametrize("op", ["add", "sub", "mul", "truediv", "pow", "floordiv", "mod"])
def test_arithmetic_operators_match_numpy(bk, op):
    import operator

    f = getattr(operator, op)
    a = np.array([[1.5, 2.0, 3.0], [4.0, 5.0, 6.5]], dtype=np.float64)
    b = np.array([2.0, 0.5, 3.0], dtype=np.float64)
    ta, tb = af.asarray(a), af.asarray(b)
    np.testing.assert_allclose(f(ta, tb).numpy(), f(a, b))
    np.testing.assert_allclose(f(ta, 2.0).numpy(), f(a, 2.0))
    np.testing.assert_allclose(f(3.0, ta).numpy(), f(3.0, a))  # reflected


def test_comparison_bitwise_unary_and_matmul_operators(bk):
    a = np.array([[1, 2], [3, 4]], dtype=np.int64)
    t = af.asarray(a)
    assert ((t < 3).numpy() == (a < 3)).all() and ((t >= 2).numpy() == (a >= 2)).all()
    assert ((t == 2).numpy() == (a == 2)).all() and ((t != 2).numpy() == (a != 2)).all()
    assert ((t & 1).numpy() == (a & 1)).all() and ((t | 8).numpy() == (a | 8)).all()
    assert ((t ^ 3).numpy() == (a ^ 3)).all() and ((~t).numpy() == ~a).all()
    assert ((t << 1).numpy() == (a << 1)).all() and ((t >> 1).numpy() == (a >> 1)).all()
    assert ((-t).numpy() == -a).all() and (abs(-t).numpy() == a).all()
    assert ((t @ t).numpy() == a @ a).all()
    assert (t.mT.numpy() == a.T).all() and (t.T.numpy() == a.T).all()
    with pytest.raises(ValueError, match="2-D"):
        _ = af.ones((2, 2, 2)).T


def test_numpy_array_on_the_left_defers_to_tensor():
    t = af.asarray([1.0, 2.0])
    r = np.array([1.0, 1.0], dtype=np.float32) + t
    assert isinstance(r, af.Tensor) and r.tolist() == [2.0, 3.0]


def test_python_scalar_conversions(bk):
    t = af.asarray(3.5)
    assert float(t) == 3.5 and int(af.asarray(7)) == 7 and bool(af.asarray(True))
    assert complex(af.asarray(2.0)) == 2 + 0j
    assert [10, 20, 30][af.asarray(1)] == 20  # __index__
    assert t.item() == 3.5
    with pytest.raises(ValueError, match="one-element"):
        af.ones(3).item()


def test_array_namespace_and_info(bk):
    t = af.ones(2)
    assert t.__array_namespace__() is af
    info = af.__array_namespace_info__()
    assert info.default_dtypes()["real floating"] is af.float32
    assert info.default_dtypes()["indexing"] is af.int64
    assert set(info.dtypes(kind="real floating")) == {"float32", "float64"}


def test_numpy_conversion_and_array_protocol(bk):
    t = af.asarray([[1.0, 2.0]])
    n = t.numpy()
    assert isinstance(n, np.ndarray) and n.tolist() == [[1.0, 2.0]]
    assert np.asarray(t).tolist() == [[1.0, 2.0]]
    g = af.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="detach"):
        g.numpy()


@pytest.mark.parametrize("src,dst", [("numpy", "strict"), ("strict", "numpy"),
                                     ("numpy", "dask"), ("dask", "numpy"),
                                     ("dask", "strict")])
def test_to_moves_between_backends(src, dst):
    with af.use_backend(src):
        t = af.asarray([[1.0, 2.0], [3.0, 4.0]], dtype=af.float64)
    u = t.to(dst)
    assert u.backend.name == dst and u.dtype is af.float64
    assert u.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    v = t.to(backend=dst, dtype=af.float32)
    assert v.dtype is af.float32 and v.backend.name == dst
    assert t.to(af.float64) is t


def test_dlpack_roundtrip():
    t = af.asarray([1.0, 2.0, 3.0])
    n = np.from_dlpack(t)
    assert n.tolist() == [1.0, 2.0, 3.0]
    assert t.__dlpack_device__()[0] == 1  # kDLCPU
    back = af.from_dlpack(n)
    assert back.tolist() == [1.0, 2.0, 3.0] and back.backend.name == "numpy"


@pytest.mark.parametrize("values, dtype", [
    ([1.0, 2.0], "float32"), ([1.0, 2.0], "float64"), ([[2, 4], [4, 6]], "int64"),
    ([1, 2], "int32"), ([True, False], "bool"), ([1 + 2j], "complex64"), ([1 + 2j], "complex128")])
def test_repr_follows_pytorch(values, dtype):
    # PyTorch shows the dtype unless it is the default float dtype, its complex
    # counterpart, int64 or bool; the values are formatted the same way.
    torch = pytest.importorskip("torch")
    with af.use_backend("numpy"):
        r = repr(af.asarray(values, dtype=getattr(af, dtype)))
    expected = repr(torch.tensor(values, dtype=getattr(torch, dtype)))
    assert r == expected.replace("torch.", "")
    assert "requires_grad=True" in repr(af.zeros(2, requires_grad=True))


def test_repr_shows_backend_only_when_not_the_current_one():
    with af.use_backend("strict"):
        t = af.ones(2)
        assert "backend" not in repr(t)
    with af.use_backend("numpy"):
        assert repr(t) == "tensor([1., 1.], backend='strict')"


def test_dask_repr_never_computes():
    import dask

    def refuse(*args, **kwargs):
        raise AssertionError("computed")

    with af.use_backend("dask", chunks=2):
        t = af.ones((4, 3)) * 2
    with dask.config.set(scheduler=refuse):
        r = repr(t)
    assert "dask" in r and "(4, 3)" in r and "float32" in r and "chunks=((2, 2), (2, 1))" in r
    with pytest.raises(AssertionError, match="computed"), dask.config.set(scheduler=refuse):
        t.numpy()


def test_pytorch_style_methods(bk):
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = af.asarray(a)
    assert (t.mm(t.t()).numpy() == a @ a.T).all()
    assert t.unsqueeze(0).shape == (1, 2, 3) and t.unsqueeze(-1).shape == (2, 3, 1)
    assert af.ones((1, 3, 1)).squeeze().shape == (3,)
    assert af.ones((1, 3, 1)).squeeze(0).shape == (3, 1)
    assert af.ones(3).expand_as(t).shape == (2, 3)
    assert (t.sum(0).numpy() == a.sum(0)).all() and (t.sum(dim=1).numpy() == a.sum(1)).all()
    assert t.sum(1, keepdim=True).shape == (2, 1)
    assert t.mean().item() == a.mean()
    assert t.double().dtype is af.float64 and t.float().dtype is af.float32
    assert t.reshape(3, 2).shape == (3, 2) and t.reshape((6,)).shape == (6,)
    assert t.permute(1, 0).shape == (3, 2) and t.transpose(0, 1).shape == (3, 2)
    np.testing.assert_allclose(t.exp().numpy(), np.exp(a))
    u = af.empty((2, 2)).fill_(3.0)
    assert u.tolist() == [[3.0, 3.0], [3.0, 3.0]]


def test_normal_and_uniform_fill_in_place(bk):
    af.manual_seed(1)
    t = af.zeros((200, 50))
    t.normal_(2.0, 0.5)
    v = t.numpy()
    assert abs(v.mean() - 2.0) < 0.05 and abs(v.std() - 0.5) < 0.05
    t.uniform_(-3, -2)
    v = t.numpy()
    assert v.min() >= -3 and v.max() < -2 and t._version == 2
