"""What the seeds needed from the Tensor API, each compared with PyTorch:

- ``Tensor.squeeze(dim)`` (the seeds' ``grad_output.sum(0).squeeze(0)``): PyTorch's
  method, a no-op where that dimension's size is not 1, ``dim`` an int or a tuple/list,
  negative dims, IndexError out of range; the namespace ``arrayflow.squeeze`` keeps the
  array API standard's rule (it raises for a size that is not 1).
- ``t.size()`` (the notebook prints ``torch.Size([10, 4])``): an ``arrayflow.Size``, a
  tuple subclass like ``torch.Size``; ``t.size(d)`` an int; ``t.size`` stays the array
  API's int.
- ``arrayflow.autograd.Variable`` (the Chinese translation's gradcheck): PyTorch's
  deprecated alias, returning a Tensor.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arrayflow as af
from arrayflow.autograd import Variable

torch = pytest.importorskip("torch")


def _outcome(f):
    """``("ok", shape)`` or ``("raise", exception type)``."""
    try:
        r = f()
    except (IndexError, TypeError, RuntimeError) as e:
        return ("raise", type(e))
    return ("ok", tuple(r.shape))


SHAPES = [(1, 3, 1), (2, 1), (1,), (), (0, 1), (3,)]
DIMS = [0, 1, 2, -1, -2, -3, 3, -4, (0,), (0, 2), [0, 2], (), (0, 0), (-1, 2), (0, 5),
        1.0, True, "a"]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_squeeze_method_matches_pytorch(backend, shape):
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    a, t = af.asarray(x), torch.tensor(x)
    assert _outcome(lambda: a.squeeze()) == _outcome(lambda: t.squeeze())
    for dim in DIMS:
        got = _outcome(lambda d=dim: a.squeeze(d))
        want = _outcome(lambda d=dim: t.squeeze(d))
        assert got == want, (shape, dim, got, want)
        if got[0] == "ok":
            np.testing.assert_array_equal(a.squeeze(dim).numpy(), t.squeeze(dim).numpy())
    assert _outcome(lambda: a.squeeze(dim=0)) == _outcome(lambda: t.squeeze(dim=0))


def test_squeeze_method_error_messages_are_pytorchs():
    x = af.ones((1, 3, 1))
    with pytest.raises(IndexError, match=r"squeeze: Dimension out of range \(expected to be "
                                         r"in range of \[-3, 2\], but got 3\)"):
        x.squeeze(3)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times"):
        x.squeeze((0, 0))
    with pytest.raises(IndexError, match=r"range of \[-1, 0\], but got 1"):
        af.asarray(1.0).squeeze(1)


def test_squeeze_namespace_function_keeps_the_standard(backend):
    x = af.ones((1, 3, 1))
    assert af.squeeze(x, axis=0).shape == (3, 1)
    with pytest.raises(ValueError):
        af.squeeze(x, axis=1)  # size 3: the standard says raise (torch.squeeze would not)


def test_squeeze_method_gradient(backend):
    # the seeds' bias gradient: grad_output.sum(0).squeeze(0) of a (10, 3) gradient
    g = np.random.default_rng(0).normal(size=(10, 3))
    a, t = af.asarray(g, requires_grad=True), torch.tensor(g, requires_grad=True)
    ra, rt = a.sum(0).squeeze(0), t.sum(0).squeeze(0)
    assert ra.shape == tuple(rt.shape) == (3,)
    w = np.array([1.0, -2.0, 0.5])
    (ra * af.asarray(w)).sum().backward()
    (rt * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy())
    b, u = af.asarray(g[:1], requires_grad=True), torch.tensor(g[:1], requires_grad=True)
    b.squeeze((0, 1)).sum().backward()
    u.squeeze((0, 1)).sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), u.grad.numpy())


@pytest.mark.parametrize("shape", [(10, 4), (2, 0, 3), (), (5,)], ids=str)
def test_size_matches_pytorch(backend, shape):
    a, t = af.zeros(shape), torch.zeros(shape)
    s, st = a.size(), t.size()
    assert type(s) is af.Size and isinstance(s, tuple)
    assert repr(s) == repr(st).replace("torch", "arrayflow") == str(s)
    assert s == st == tuple(st) and hash(s) == hash(tuple(st))
    assert s.numel() == st.numel() and a.size == st.numel() and isinstance(a.size, int)
    assert repr(s[1:]) == repr(st[1:]).replace("torch", "arrayflow")
    assert repr(s + (7,)) == repr(st + (7,)).replace("torch", "arrayflow")
    assert repr((7,) + s) == repr((7,) + st).replace("torch", "arrayflow")
    assert repr(s * 2) == repr(st * 2).replace("torch", "arrayflow")
    for d in range(-len(shape) - 2, len(shape) + 2):
        try:
            want = t.size(d)
        except IndexError as e:
            with pytest.raises(IndexError, match=r"size: Dimension (out of range|specified)"):
                a.size(d)
            assert "Dimension" in str(e)
        else:
            assert a.size(d) == want and type(a.size(d)) is int
            assert a.size(dim=d) == t.size(dim=d)
    for bad in (1.0, True, "0"):
        with pytest.raises(TypeError):
            t.size(bad)
        with pytest.raises(TypeError, match="size\\(\\): argument 'dim'"):
            a.size(bad)


def test_size_class_like_torch_size():
    assert af.Size([2, 3]) == torch.Size([2, 3]) == (2, 3)
    assert repr(af.Size()) == "arrayflow.Size([])" and repr(torch.Size()) == "torch.Size([])"
    assert af.Size((np.int64(2), 3)) == (2, 3)
    with pytest.raises(TypeError):
        torch.Size([2.5])
    with pytest.raises(TypeError):
        af.Size([2.5])
    assert af.zeros(af.zeros((2, 3)).size()).shape == (2, 3)  # usable as a shape
    assert af.ones((2, 3)).reshape(af.Size([3, 2])).shape == (3, 2)


def test_variable_matches_pytorch(backend):
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PyTorch does not warn; neither does arrayflow
        a = af.asarray(x)
        v = Variable(a, requires_grad=True)
        t = torch.tensor(x)
        vt = torch.autograd.Variable(t, requires_grad=True)
    assert type(v) is af.Tensor and type(vt) is torch.Tensor
    assert v.requires_grad and vt.requires_grad and v.grad_fn is None and vt.is_leaf
    assert not a.requires_grad and not t.requires_grad  # the argument is not changed
    assert isinstance(a, Variable) and isinstance(t, torch.autograd.Variable)
    assert not isinstance(3.0, Variable)
    (v * v).sum().backward()
    (vt * vt).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), vt.grad.numpy())
    # a non-leaf argument: the result is a detached leaf, as in PyTorch
    w = af.asarray(x, requires_grad=True) * 2
    wt = torch.tensor(x, requires_grad=True) * 2
    assert Variable(w).requires_grad is torch.autograd.Variable(wt).requires_grad is False
    assert Variable(w).grad_fn is None
    assert Variable(w, True).requires_grad and torch.autograd.Variable(wt, True).requires_grad
    # no data: an empty float Tensor
    assert Variable().shape == tuple(torch.autograd.Variable().shape) == (0,)
    assert str(Variable().dtype) == "float32"


def test_variable_errors_match_pytorch():
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got float"):
        torch.autograd.Variable(3.0)
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got float"):
        Variable(3.0)
    with pytest.raises(RuntimeError):
        torch.autograd.Variable(torch.ones(2, dtype=torch.int64), requires_grad=True)
    with pytest.raises(RuntimeError):
        Variable(af.ones(2, dtype=af.int64), requires_grad=True)
    with pytest.warns(UserWarning, match="volatile was removed"):
        torch.autograd.Variable(torch.ones(2), volatile=True)
    with pytest.warns(UserWarning, match="volatile was removed"):
        Variable(af.ones(2), volatile=True)
    assert af.autograd.Variable is Variable


def test_size_is_accepted_wherever_a_shape_goes(backend):
    x = af.ones((2, 3), requires_grad=True)
    s = x.size()
    assert af.zeros(s).shape == af.empty(s).shape == af.full(s, 2.0).shape == (2, 3)
    assert af.reshape(x, s[::-1]).shape == x.reshape(s[::-1]).shape == (3, 2)
    assert x.expand(af.Size([4, 2, 3])).shape == af.broadcast_to(x, (4,) + s).shape
    y = x.reshape(s[::-1]) * 2
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 2.0))
