"""What reductions and searching functions save for backward, against PyTorch.

A residual is what a forward keeps for its VJP; a saved Tensor is also version-checked, so
an in-place change of it makes ``backward`` raise. These tests pin both sides to PyTorch:
``prod`` keeps its output (PyTorch's ProdBackward0 saves ``result``: an in-place change of
the output raises there), ``where`` keeps only the condition and the operands' shapes
(WhereBackward0 saves the condition alone), and ``diff`` differentiates a Tensor
``prepend``/``append`` (a keyword-only argument: its gradient once came from the wrong slot).
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

import arrayflow as af

torch = pytest.importorskip("torch")


def _np(t):
    return np.asarray(t.detach().numpy())


def _pair(values, requires_grad=True):
    a = np.asarray(values, dtype=np.float64)
    return (af.asarray(a, requires_grad=requires_grad),
            torch.tensor(a, requires_grad=requires_grad))


def test_prod_output_changed_in_place_is_copy_on_write(backend):
    # PyTorch raises (prod saves its result); arrayflow's write leaves the saved result
    # intact: the gradient is PyTorch's for the clone-first program.
    xa, xt = _pair([1.0, 2.0, 3.0])
    yt = torch.prod(xt * 1)
    yt.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        yt.backward()
    xt.grad = None
    yt = torch.prod(xt * 1).clone()
    yt.mul_(2)
    yt.backward()
    ya = af.prod(xa * 1)
    ya.mul_(2)
    ya.backward()
    assert_allclose(_np(xa.grad), _np(xt.grad))


def test_prod_output_untouched_gradient_as_torch(backend):
    xa, xt = _pair([[1.0, 0.0, 3.0], [2.0, 5.0, -1.0]])
    torch.prod(xt, dim=1).sum().backward()
    af.sum(af.prod(xa, axis=1)).backward()
    assert_allclose(_np(xa.grad), _np(xt.grad))


@pytest.mark.parametrize("operand", [1, 2])
def test_where_operand_changed_in_place_after_the_call_as_torch(backend, operand):
    # PyTorch saves only the condition: backward succeeds with where's own gradient.
    ca = af.asarray(np.array([True, False, True]))
    ct = torch.tensor([True, False, True])
    xa, xt = _pair([1.0, 2.0, 3.0])
    ba, bt = _pair([5.0, 6.0, 7.0])
    at, aa = xt * 1, xa * 1
    yt = torch.where(ct, at, bt) if operand == 1 else torch.where(ct, bt, at)
    ya = af.where(ca, aa, ba) if operand == 1 else af.where(ca, ba, aa)
    at.add_(1)
    aa.add_(1)
    (yt * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
    af.sum(ya * af.asarray(np.array([1.0, 2.0, 3.0]))).backward()
    assert_allclose(_np(xa.grad), _np(xt.grad))
    assert_allclose(_np(ba.grad), _np(bt.grad))


def test_where_broadcast_operands_gradient_as_torch(backend):
    cond = np.array([[True, False, True], [False, False, True]])
    xa, xt = _pair([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    ba, bt = _pair([10.0, 20.0, 30.0])
    (torch.where(torch.tensor(cond), xt, bt) ** 2).sum().backward()
    af.sum(af.where(af.asarray(cond), xa, ba) ** 2).backward()
    assert_allclose(_np(xa.grad), _np(xt.grad))
    assert_allclose(_np(ba.grad), _np(bt.grad))


@pytest.mark.parametrize("case", [
    # (x, prepend, append, axis, n): the first is the shape coincidence (x and prepend both
    # of one element) where the prepend once silently got x's gradient
    ([2.0], [0.5], None, -1, 1),
    ([1.0, 2.0, 4.0], [0.5], [7.0], -1, 1),
    ([1.0, 2.0, 4.0, 8.0], [0.5, 3.0], [1.0, 9.0], 0, 2),
    ([[1.0, 2.0], [4.0, 8.0]], [[0.5, 3.0]], [[1.0, -9.0], [2.0, 2.5]], 0, 1),
    ([[1.0, 2.0], [4.0, 8.0]], None, [[1.0], [2.0]], 1, 1),
])
def test_diff_prepend_append_gradients_as_torch(backend, case):
    x, pre, app, axis, n = case
    xa, xt = _pair(x)
    pa, pt = _pair(pre) if pre is not None else (None, None)
    aa, at = _pair(app) if app is not None else (None, None)
    yt = torch.diff(xt, n=n, dim=axis, prepend=pt, append=at)
    ya = af.diff(xa, n=n, axis=axis, prepend=pa, append=aa)
    w = np.cos(np.arange(yt.numel(), dtype=np.float64)).reshape(tuple(yt.shape)) + 2.0
    (yt * torch.tensor(w)).sum().backward()
    af.sum(ya * af.asarray(w)).backward()
    assert_allclose(_np(ya), _np(yt))
    assert_allclose(_np(xa.grad), _np(xt.grad))
    for a, t in ((pa, pt), (aa, at)):
        if a is not None:
            assert a.grad is not None
            assert_allclose(_np(a.grad), _np(t.grad))


def test_diff_prepend_only_requires_grad_as_torch(backend):
    xa, xt = _pair([1.0, 2.0, 4.0], requires_grad=False)
    pa, pt = _pair([0.5, 3.0])
    (torch.diff(xt, prepend=pt) * torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)
     ).sum().backward()
    af.sum(af.diff(xa, prepend=pa) * af.asarray(np.array([1.0, 2.0, 3.0, 4.0]))).backward()
    assert_allclose(_np(pa.grad), _np(pt.grad))


def test_diff_zero_d_prepend_gets_the_summed_slice(backend):
    # PyTorch takes no 0-d prepend; the standard's one-slice reading equals a (1,)-shaped
    # prepend in PyTorch, gradient included.
    xa, xt = _pair([1.0, 2.0, 4.0])
    pa = af.asarray(np.float64(0.5), requires_grad=True)
    pt = torch.tensor([0.5], dtype=torch.float64, requires_grad=True)
    (torch.diff(xt, prepend=pt) * torch.tensor([3.0, 1.0, 2.0], dtype=torch.float64)
     ).sum().backward()
    af.sum(af.diff(xa, prepend=pa) * af.asarray(np.array([3.0, 1.0, 2.0]))).backward()
    assert pa.grad.shape == ()
    assert_allclose(_np(pa.grad), _np(pt.grad)[0])
    assert_allclose(_np(xa.grad), _np(xt.grad))


def test_diff_prepend_gradient_under_create_graph_as_torch(backend):
    xa, xt = _pair([1.0, 2.0, 4.0])
    pa, pt = _pair([0.5])
    gt = torch.autograd.grad((torch.diff(xt, prepend=pt) ** 2).sum(), (xt, pt),
                             create_graph=True)
    ga = af.autograd.grad(af.sum(af.diff(xa, prepend=pa) ** 2), (xa, pa), create_graph=True)
    for a, t in zip(ga, gt):
        assert_allclose(_np(a), _np(t))
    (gt[1] * 3.0).sum().backward()
    af.sum(ga[1] * 3.0).backward()
    assert_allclose(_np(xa.grad), _np(xt.grad))
    assert_allclose(_np(pa.grad), _np(pt.grad))


@pytest.mark.parametrize("lo_is_scalar", [False, True])
def test_clip_gradient_where_min_exceeds_max_goes_to_max_as_torch(backend, lo_is_scalar):
    # min > max: the output is max (both libraries); PyTorch gives max the gradient and min
    # none. arrayflow gave it to min: silently wrong.
    if backend == "strict":
        pytest.skip("array_api_strict refuses min above max (the standard leaves it "
                    "unspecified)")
    xs = np.array([0.0, 1.5, 3.0])
    lo_v, hi_v = np.array([2.0, 2.0, 2.0]), np.array([1.0, 1.0, 1.0])
    x = af.asarray(xs, requires_grad=True)
    hi = af.asarray(hi_v, requires_grad=True)
    lo = 2.0 if lo_is_scalar else af.asarray(lo_v, requires_grad=True)
    y = af.clip(x, lo, hi)
    (y * af.asarray([1.0, 2.0, 3.0])).sum().backward()
    tx = torch.tensor(xs, requires_grad=True)
    thi = torch.tensor(hi_v, requires_grad=True)
    tlo = 2.0 if lo_is_scalar else torch.tensor(lo_v, requires_grad=True)
    ty = torch.clamp(tx, tlo if not lo_is_scalar else torch.tensor(lo_v), thi)
    (ty * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
    np.testing.assert_array_equal(hi.grad.numpy(), thi.grad.numpy())
    if not lo_is_scalar:
        np.testing.assert_array_equal(lo.grad.numpy(), tlo.grad.numpy())


def test_nextafter_gradient_is_zero_at_ties_as_torch(backend):
    xs, ys = np.array([1.0, 2.0, 3.0]), np.array([1.0, 5.0, 0.0])
    x, y = af.asarray(xs, requires_grad=True), af.asarray(ys, requires_grad=True)
    af.nextafter(x, y).sum().backward()
    tx, ty = torch.tensor(xs, requires_grad=True), torch.tensor(ys, requires_grad=True)
    torch.nextafter(tx, ty).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
    np.testing.assert_array_equal(y.grad.numpy(), ty.grad.numpy())
