"""Which gradients a node computes is decided at backward time, as in PyTorch.

A recorded op's VJP receives ``needs``: the parameters whose gradients are wanted. At
record time these are the inputs that require grad; when backward runs with ``inputs``
(``autograd.grad``, ``backward(inputs=...)``) the engine narrows them to the inputs whose
edge leads to a requested Tensor (PyTorch's ``should_compute_output`` from the engine's
``exec_info``, decided node by node). So an op with no derivative for one argument
(``special.zeta``'s ``x``, ``gammainc``'s ``a``, ``expn``'s ``n``) still gives the other
argument's gradient when only that one is asked for, even if the first requires grad; a
plain ``backward()`` (every leaf) and a graph where that argument leads to the requested
input still raise ``NotImplementedError``. Custom Functions keep ``ctx.needs_input_grad``
as fixed at forward (PyTorch). Differential against torch; the gradients PyTorch lacks
(``expn``) against SciPy's closed form.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

import arrayflow as af

torch = pytest.importorskip("torch")
sp = pytest.importorskip("scipy.special")

X = [2.5, 3.0, 4.25]
Q = [1.5, 2.0, 0.75]
NO_ZETA_X = "the derivative of arrayflow.special.zeta with respect to x is not implemented"


def _np(t):
    return np.asarray(t.detach().numpy())


def _af(values, requires_grad=True):
    return af.asarray(np.array(values, dtype=np.float64), requires_grad=requires_grad)


def _tt(values, requires_grad=True):
    return torch.tensor(values, dtype=torch.float64, requires_grad=requires_grad)


# --- autograd.grad: only the requested input's gradient ----------------------------------

def test_zeta_grad_wrt_q_with_x_requiring_grad_equals_torch(backend):
    x, q = _af(X), _af(Q)
    (g,) = af.autograd.grad(af.sum(af.special.zeta(x, q)), [q])
    xt, qt = _tt(X), _tt(Q)
    (gt,) = torch.autograd.grad(torch.special.zeta(xt, qt).sum(), [qt])
    assert_allclose(_np(g), gt.numpy(), rtol=1e-12)
    assert x.grad is None and q.grad is None  # autograd.grad accumulates nothing


def test_zeta_backward_without_inputs_still_raises_as_torch(backend):
    x, q = _af(X), _af(Q)
    with pytest.raises(NotImplementedError, match=NO_ZETA_X):
        af.sum(af.special.zeta(x, q)).backward()
    assert q.grad is None  # a failed call changes nothing
    xt, qt = _tt(X), _tt(Q)
    with pytest.raises(NotImplementedError):
        torch.special.zeta(xt, qt).sum().backward()
    # and autograd.grad asking for both
    with pytest.raises(NotImplementedError, match=NO_ZETA_X):
        af.autograd.grad(af.sum(af.special.zeta(x, q)), [x, q])
    with pytest.raises(NotImplementedError):
        torch.autograd.grad(torch.special.zeta(xt, qt).sum(), [xt, qt])


def test_zeta_backward_with_inputs_q_fills_only_q_grad_as_torch(backend):
    x, q = _af(X), _af(Q)
    af.sum(af.special.zeta(x, q)).backward(inputs=[q])
    xt, qt = _tt(X), _tt(Q)
    torch.special.zeta(xt, qt).sum().backward(inputs=[qt])
    assert_allclose(_np(q.grad), qt.grad.numpy(), rtol=1e-12)
    assert x.grad is None and xt.grad is None


def test_non_leaf_output_as_the_only_input_runs_its_node_without_the_missing_rule(backend):
    # backward(inputs=[y]) with y = zeta(x, q): y's node runs (PyTorch's engine marks it
    # needed) but none of its inputs leads to y, so neither derivative is computed.
    x, q = _af(X), _af(Q)
    y = af.special.zeta(x, q)
    af.sum(y).backward(inputs=[y])
    xt, qt = _tt(X), _tt(Q)
    yt = torch.special.zeta(xt, qt)
    yt.sum().backward(inputs=[yt])
    assert_allclose(_np(y.grad), yt.grad.numpy())
    assert x.grad is None and q.grad is None and xt.grad is None and qt.grad is None


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_gammainc_grad_wrt_x_with_a_requiring_grad_equals_torch(backend, name):
    a, x = _af([2.5, 0.7, 6.0]), _af([1.5, 2.0, 3.5])
    (g,) = af.autograd.grad(af.sum(getattr(af.special, name)(a, x)), [x])
    at, xt = _tt([2.5, 0.7, 6.0]), _tt([1.5, 2.0, 3.5])
    (gt,) = torch.autograd.grad(getattr(torch.special, name)(at, xt).sum(), [xt])
    assert_allclose(_np(g), gt.numpy(), rtol=1e-12)
    # asking for a as well raises, in both
    msg = f"the derivative of arrayflow.special.{name} with respect to a is not implemented"
    with pytest.raises(NotImplementedError, match=msg):
        af.autograd.grad(af.sum(getattr(af.special, name)(a, x)), [a, x])
    with pytest.raises(NotImplementedError):
        torch.autograd.grad(getattr(torch.special, name)(at, xt).sum(), [at, xt])
    with pytest.raises(NotImplementedError, match=msg):
        af.sum(getattr(af.special, name)(a, x)).backward()
    with pytest.raises(NotImplementedError):
        getattr(torch.special, name)(at, xt).sum().backward()


def test_expn_grad_wrt_x_with_n_requiring_grad_equals_scipy(backend):
    # not in PyTorch: d/dx E_n(x) = -E_{n-1}(x) (SciPy's expn, n >= 1)
    n, x = _af([1.0, 2.0, 5.0]), _af([0.5, 1.5, 3.0])
    (g,) = af.autograd.grad(af.sum(af.special.expn(n, x)), [x])
    assert_allclose(_np(g), -sp.expn([0, 1, 4], [0.5, 1.5, 3.0]), rtol=1e-12)
    with pytest.raises(NotImplementedError, match="expn with respect to n"):
        af.sum(af.special.expn(n, x)).backward()


# --- the unwanted argument is needed through another path: still an error ----------------

def test_x_computed_from_q_still_raises_as_torch(backend):
    q = _af(Q)
    x = q * 2.0 + 1.0  # zeta's x leads to q: its derivative is needed
    with pytest.raises(NotImplementedError, match=NO_ZETA_X):
        af.autograd.grad(af.sum(af.special.zeta(x, q)), [q])
    qt = _tt(Q)
    with pytest.raises(NotImplementedError):
        torch.autograd.grad(torch.special.zeta(qt * 2.0 + 1.0, qt).sum(), [qt])
    # backward(inputs=[q]) too
    q2 = _af(Q)
    with pytest.raises(NotImplementedError, match=NO_ZETA_X):
        af.sum(af.special.zeta(q2 * 2.0 + 1.0, q2)).backward(inputs=[q2])
    assert q2.grad is None


def test_decided_per_node_as_torch_for_outputs_of_one_node(backend):
    # x and q are two outputs of one node (unstack / unbind); the gradient of the q output
    # is asked for. PyTorch's exec_info marks nodes, not outputs, so the x edge counts as
    # leading to the request: both raise.
    v = _af([2.5, 1.5])
    x, q = af.unstack(v)
    with pytest.raises(NotImplementedError, match=NO_ZETA_X):
        af.autograd.grad(af.special.zeta(x, q), [q])
    vt = _tt([2.5, 1.5])
    xt, qt = vt.unbind()
    with pytest.raises(NotImplementedError):
        torch.autograd.grad(torch.special.zeta(xt, qt), [qt])


def test_non_leaf_q_with_x_requiring_grad_equals_torch(backend):
    x, q = _af(X), _af(Q)
    q2 = q * 1.5
    (g,) = af.autograd.grad(af.sum(af.special.zeta(x, q2)), [q2])
    xt, qt = _tt(X), _tt(Q)
    qt2 = qt * 1.5
    (gt,) = torch.autograd.grad(torch.special.zeta(xt, qt2).sum(), [qt2])
    assert_allclose(_np(g), gt.numpy(), rtol=1e-12)
    # through the product to the leaf q
    (g,) = af.autograd.grad(af.sum(af.special.zeta(x, q * 1.5)), [q])
    (gt,) = torch.autograd.grad(torch.special.zeta(xt, qt * 1.5).sum(), [qt])
    assert_allclose(_np(g), gt.numpy(), rtol=1e-12)


# --- create_graph --------------------------------------------------------------------------

def test_zeta_create_graph_grad_wrt_q_and_its_second_derivative_equal_torch(backend):
    x, q = _af(X), _af(Q)
    (g,) = af.autograd.grad(af.sum(af.special.zeta(x, q)), [q], create_graph=True)
    assert g.grad_fn is not None
    (h,) = af.autograd.grad(af.sum(g), [q])
    xt, qt = _tt(X), _tt(Q)
    (gt,) = torch.autograd.grad(torch.special.zeta(xt, qt).sum(), [qt], create_graph=True)
    (ht,) = torch.autograd.grad(gt.sum(), [qt])
    assert_allclose(_np(g), gt.detach().numpy(), rtol=1e-12)
    assert_allclose(_np(h), ht.numpy(), rtol=1e-11)


def test_zeta_create_graph_mixed_second_derivative_is_mpmaths(backend):
    # Deliberate difference (docs/pytorch-differences.md): the q rule -x zeta(x + 1, q) is
    # recorded through the Hurwitz sum's own ops, so its derivative in x exists; PyTorch's
    # rule calls zeta and raises.
    mpmath = pytest.importorskip("mpmath")
    x, q = _af(X), _af(Q)
    (g,) = af.autograd.grad(af.sum(af.special.zeta(x, q)), [q], create_graph=True)
    (m,) = af.autograd.grad(af.sum(g), [x])
    with mpmath.workdps(30):
        ref = [float(mpmath.diff(lambda s, qq=qq: -s * mpmath.zeta(s + 1, qq), xx))
               for xx, qq in zip(X, Q)]
    assert_allclose(_np(m), ref, rtol=1e-10)
    xt, qt = _tt(X), _tt(Q)
    (gt,) = torch.autograd.grad(torch.special.zeta(xt, qt).sum(), [qt], create_graph=True)
    with pytest.raises(NotImplementedError):
        torch.autograd.grad(gt.sum(), [xt])


def test_gammainc_create_graph_grad_wrt_x_and_its_second_derivative_equal_torch(backend):
    av, xv = [2.5, 0.7, 6.0], [1.0, 2.0, 3.5]
    a, x = _af(av), _af(xv)
    (g,) = af.autograd.grad(af.sum(af.special.gammainc(a, x)), [x], create_graph=True)
    (h,) = af.autograd.grad(af.sum(g), [x])
    at, xt = _tt(av), _tt(xv)
    (gt,) = torch.autograd.grad(torch.special.gammainc(at, xt).sum(), [xt],
                                create_graph=True)
    (ht,) = torch.autograd.grad(gt.sum(), [xt])
    assert_allclose(_np(g), gt.detach().numpy(), rtol=1e-12)
    assert_allclose(_np(h), ht.numpy(), rtol=1e-10)
    # the mixed derivative d/da dP/dx has a rule (the first derivative is a formula in a)
    a, x = _af(av), _af(xv)
    (g,) = af.autograd.grad(af.sum(af.special.gammainc(a, x)), [x], create_graph=True)
    (m,) = af.autograd.grad(af.sum(g), [a])
    at, xt = _tt(av), _tt(xv)
    (gt,) = torch.autograd.grad(torch.special.gammainc(at, xt).sum(), [xt],
                                create_graph=True)
    (mt,) = torch.autograd.grad(gt.sum(), [at])
    assert_allclose(_np(m), mt.numpy(), rtol=1e-10)


# --- what the node sees, and custom Functions ---------------------------------------------

def test_node_hook_sees_no_gradient_for_the_pruned_input_as_torch(backend):
    x, q = _af(X), _af(Q)
    y = af.special.zeta(x, q)
    seen = []
    y.grad_fn.register_hook(lambda gin, gout: seen.append(tuple(g is None for g in gin)))
    af.autograd.grad(af.sum(y), [q])
    xt, qt = _tt(X), _tt(Q)
    yt = torch.special.zeta(xt, qt)
    seen_t = []
    yt.grad_fn.register_hook(lambda gin, gout: seen_t.append(tuple(g is None for g in gin)))
    torch.autograd.grad(yt.sum(), [qt])
    assert seen == seen_t == [(True, False)]


def test_multiply_grad_wrt_one_operand_skips_the_other_and_equals_torch(backend):
    # a rule with ``needs`` for both operands: only the requested one is computed
    a, b = _af([1.0, -2.0, 3.0]), _af([0.5, 4.0, -1.5])
    y = a * b
    seen = []
    y.grad_fn.register_hook(lambda gin, gout: seen.append(tuple(g is None for g in gin)))
    (g,) = af.autograd.grad(af.sum(y * y), [b])
    at, bt = _tt([1.0, -2.0, 3.0]), _tt([0.5, 4.0, -1.5])
    (gt,) = torch.autograd.grad(((at * bt) * (at * bt)).sum(), [bt])
    assert_allclose(_np(g), gt.numpy(), rtol=1e-14)
    assert seen == [(True, False)]
    # without inputs both operands get theirs
    af.sum(a * b).backward()
    assert_allclose(_np(a.grad), [0.5, 4.0, -1.5])
    assert_allclose(_np(b.grad), [1.0, -2.0, 3.0])


def test_custom_function_needs_input_grad_is_fixed_at_forward_as_torch(backend):
    def make(base):
        class Mul(base):
            seen: list = []

            @staticmethod
            def forward(ctx, u, v):
                ctx.save_for_backward(u, v)
                return u * v

            @staticmethod
            def backward(ctx, g):
                Mul.seen.append(tuple(ctx.needs_input_grad))
                u, v = ctx.saved_tensors
                return g * v, g * u
        return Mul

    MulAf, MulT = make(af.autograd.Function), make(torch.autograd.Function)
    u, v = _af([1.0, 2.0]), _af([3.0, -4.0])
    (g,) = af.autograd.grad(af.sum(MulAf.apply(u, v)), [v])
    ut, vt = _tt([1.0, 2.0]), _tt([3.0, -4.0])
    (gt,) = torch.autograd.grad(MulT.apply(ut, vt).sum(), [vt])
    assert_allclose(_np(g), gt.numpy())
    assert MulAf.seen == MulT.seen == [(True, True)]


def test_polygamma_grad_wrt_x_with_a_float_order_requiring_grad_equals_torch(backend):
    # PyTorch's order is an int (no gradient); arrayflow's may be a Tensor requiring grad
    n, x = _af([1.0, 2.0]), _af([1.5, 2.5])
    (g,) = af.autograd.grad(af.sum(af.special.polygamma(n, x)), [x])
    xt = _tt([1.5, 2.5])
    (gt,) = torch.autograd.grad(torch.special.polygamma(1, xt[:1]).sum()
                                + torch.special.polygamma(2, xt[1:]).sum(), [xt])
    assert_allclose(_np(g), gt.numpy(), rtol=1e-12)
    with pytest.raises(NotImplementedError, match="polygamma with respect to n"):
        af.sum(af.special.polygamma(n, x)).backward()


def test_func_transforms_with_a_closed_over_tensor_requiring_grad_equal_torch_func(backend):
    # the transforms differentiate their arguments only: a closed-over x that requires grad
    # is not asked for, so zeta's missing x derivative is not needed
    x, q = _af(X), _af(Q, requires_grad=False)
    g = af.func.grad(lambda q: af.sum(af.special.zeta(x, q)))(q)
    j = af.func.jacrev(lambda q: af.special.zeta(x, q))(q)
    xt, qt = _tt(X), _tt(Q, requires_grad=False)
    gt = torch.func.grad(lambda q: torch.special.zeta(xt, q).sum())(qt)
    jt = torch.func.jacrev(lambda q: torch.special.zeta(xt, q))(qt)
    assert_allclose(_np(g), gt.detach().numpy(), rtol=1e-12)
    assert_allclose(_np(j), jt.detach().numpy(), rtol=1e-12)
