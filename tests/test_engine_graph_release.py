"""The backward engine frees only the nodes it ran, as PyTorch's engine does.

``autograd.grad(out, inputs)`` and ``backward(inputs=...)`` run only the nodes on a path
to ``inputs``; with ``retain_graph=False`` PyTorch frees the saved tensors of those nodes
only, so another backward through the others still works (arrayflow freed them too: the
graph was silently lost and the second backward raised). Each program runs on PyTorch and
on arrayflow (every backend) and the outcomes (values, or the exception type) must agree.
"""

from __future__ import annotations

import numpy as np
import pytest

import arrayflow as af

torch = pytest.importorskip("torch")


def _np(t):
    return None if t is None else np.asarray(t.detach().numpy())


def _outcome(fn):
    try:
        return ("ok", fn())
    except RuntimeError as e:
        assert "second time" in str(e), str(e)
        return ("RuntimeError", None)


def _leaves(m):
    v = m.tensor([1.0, 2.0, -3.0], requires_grad=True)
    x = m.tensor([3.0, 4.0, 0.5], requires_grad=True)
    return v, x


def prog_grad_then_backward_skipped_branch(m):
    # The brief's example: w's node is not on the path to x, so grad() must not free it.
    v, x = _leaves(m)
    w = v * v
    out = [_outcome(lambda: _np(m.autograd.grad((x * w).sum(), x)[0]))]

    def second():
        w.sum().backward()
        return _np(v.grad)
    out.append(_outcome(second))
    return out


def prog_grad_then_backward_through_the_ran_nodes(m):
    # The nodes grad() ran are freed: a second backward through them raises.
    v, x = _leaves(m)
    w = v * v
    p = (x * w).sin()
    s = p.sum()
    out = [_outcome(lambda: _np(m.autograd.grad(s, x)[0]))]

    def second():
        s.backward()
        return _np(x.grad)
    out.append(_outcome(second))
    return out


def prog_grad_wrt_nonleaf_keeps_its_grad_fn(m):
    # autograd.grad w.r.t. a non-leaf y captures the gradient flowing into y; y's grad_fn
    # does not run, so it is not freed.
    v, _ = _leaves(m)
    y = v * v
    z = (y.exp() * 2).sum()
    out = [_outcome(lambda: _np(m.autograd.grad(z, y)[0]))]

    def again():
        y.sum().backward()
        return _np(v.grad)
    out.append(_outcome(again))
    out.append(_outcome(lambda: (z.backward(), _np(v.grad))[1]))  # z's own nodes: freed
    return out


def prog_backward_inputs_skipped_branch(m):
    v, x = _leaves(m)
    w = v * v
    s = (x * w).sum()

    def first():
        s.backward(inputs=[x])
        return _np(x.grad), _np(v.grad)
    out = [_outcome(first)]

    def second():
        w.sum().backward()
        return _np(v.grad)
    out.append(_outcome(second))
    out.append(_outcome(lambda: (s.backward(inputs=[x]), _np(x.grad))[1]))  # ran: freed
    return out


def prog_backward_inputs_nonleaf(m):
    # PyTorch: backward(inputs=[y]) fills y.grad (retain_grad) and runs y's grad_fn, so
    # y's grad_fn is freed; nothing below it runs, v.grad stays None.
    v, _ = _leaves(m)
    y = v * v
    z = (y.cos() * 2).sum()

    def first():
        z.backward(inputs=[y])
        return _np(y.grad), _np(v.grad), bool(y.retains_grad)
    out = [_outcome(first)]
    out.append(_outcome(lambda: (y.sum().backward(), _np(v.grad))[1]))
    return out


def prog_retain_graph_true_keeps_everything(m):
    v, x = _leaves(m)
    w = v * v
    s = (x * w).sum()
    out = [_outcome(lambda: _np(m.autograd.grad(s, x, retain_graph=True)[0]))]
    out.append(_outcome(lambda: _np(m.autograd.grad(s, [x, v])[1])))
    out.append(_outcome(lambda: _np(m.autograd.grad(s, v)[0])))  # freed now
    return out


def prog_two_roots_one_unneeded(m):
    # A root with no path to the input is not run (nor freed).
    v, x = _leaves(m)
    a = (v * v).sum()
    b = (x * x).sum()
    out = [_outcome(lambda: [_np(g) for g in m.autograd.grad([a, b], [x])])]
    out.append(_outcome(lambda: (a.backward(), _np(v.grad))[1]))
    return out


def prog_hooks_run_only_on_visited_nodes(m):
    v, x = _leaves(m)
    seen = []
    w = v * v
    w.register_hook(lambda g: seen.append("w"))
    p = x * w
    p.register_hook(lambda g: seen.append("p"))
    g = m.autograd.grad(p.sum(), x)[0]
    return [_np(g), seen]


PROGRAMS = [prog_grad_then_backward_skipped_branch,
            prog_grad_then_backward_through_the_ran_nodes,
            prog_grad_wrt_nonleaf_keeps_its_grad_fn,
            prog_backward_inputs_skipped_branch,
            prog_backward_inputs_nonleaf,
            prog_retain_graph_true_keeps_everything,
            prog_two_roots_one_unneeded,
            prog_hooks_run_only_on_visited_nodes]


def _same(a, b, where="result"):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert a is not None and b is not None, (where, a, b)
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-6,
                                   err_msg=where)
        return
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b), (where, a, b)
        for k, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{k}]")
        return
    assert a == b, (where, a, b)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__[5:])
def test_engine_frees_only_what_ran_as_torch(backend, program):
    expected = program(torch)
    got = program(af)
    _same(got, expected)


def test_the_brief_example_does_not_raise(backend):
    v = af.tensor([1.0, 2.0], requires_grad=True)
    x = af.tensor([3.0, 4.0], requires_grad=True)
    w = v * v
    af.autograd.grad((x * w).sum(), x)
    w.sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), [2.0, 4.0])


@pytest.mark.parametrize("positions", [[(-1, None)], [(0, None), (-1, None)]],
                         ids=["one_input", "two_inputs"])
def test_a_negative_gradient_slot_is_an_internal_error(positions):
    # A slot of -1 (a parameter the op's signature does not know) would make the node's
    # backward read in_grads[-1], the LAST parameter's gradient: silently wrong. Recording
    # it raises instead.
    from arrayflow.autograd import graph
    from arrayflow.ops import _registry

    a = af.tensor([1.0, 2.0], requires_grad=True)
    b = af.tensor([3.0, 4.0], requires_grad=True)
    out = af.Tensor._from_array((a * b).detach()._cell.array, a._backend)
    op_ = _registry._op_by_name("multiply")
    ins = [a, b][:len(positions)]
    with pytest.raises(RuntimeError, match="internal error.*gradient slot -1"):
        graph.record(op_, a._backend, [out], (a._cell.array, b._cell.array),
                     [(t, pos) for t, pos in zip(ins, positions)])
    assert out.grad_fn is None and not out.requires_grad
