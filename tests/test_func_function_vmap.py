"""Custom autograd Functions under ``arrayflow.func.vmap``: ``Function.vmap`` and
``generate_vmap_rule = True``, against ``torch.func.vmap`` on the same Function written
with torch (values, per-sample gradients ``vmap(grad)``, ``grad(vmap)``, nesting), and
torch's errors for a Function with neither, with both, or without ``setup_context``.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import forbid_compute

import arrayflow as af
from arrayflow.func import grad, vmap

torch = pytest.importorskip("torch")
tfunc = torch.func

RNG = np.random.default_rng(7)


def close(a, b, rtol=1e-6, atol=1e-9):
    np.testing.assert_allclose(np.asarray(a.detach().numpy()),
                               b.detach().numpy(), rtol=rtol, atol=atol)


def cube(ns, *, generate=False, vmap_rule=None, setup=True):
    """``x**3 * w`` with a hand-written backward (and ``ctx.k``, a non-Tensor attribute)."""
    body = {
        "generate_vmap_rule": generate,
        "backward": staticmethod(lambda ctx, g: (g * ctx.k * ctx.saved_tensors[0] ** 2
                                                 * ctx.saved_tensors[1],
                                                 g * ctx.saved_tensors[0] ** 3)),
    }
    if setup:
        body["forward"] = staticmethod(lambda x, w: x ** 3 * w)

        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)
            ctx.k = 3
        body["setup_context"] = staticmethod(setup_context)
    else:
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            ctx.k = 3
            return x ** 3 * w
        body["forward"] = staticmethod(forward)
    if vmap_rule is not None:
        body["vmap"] = staticmethod(vmap_rule)
    return type("Cube", (ns.autograd.Function,), body)


# --- generate_vmap_rule = True -------------------------------------------------------------------

def test_generated_rule_values_and_per_sample_gradients_match_torch(backend):
    x, w = RNG.standard_normal((4, 3)), RNG.standard_normal(3)
    A, T = cube(af, generate=True), cube(torch, generate=True)  # noqa: N806
    xa, wa, xt, wt = af.asarray(x), af.asarray(w), torch.asarray(x), torch.asarray(w)
    with forbid_compute(backend):
        got = vmap(A.apply, in_dims=(0, None))(xa, wa)
    assert got.backend.name == backend
    close(got, tfunc.vmap(T.apply, in_dims=(0, None))(xt, wt))

    def loss(F):  # noqa: N803
        return lambda xi, v: F.apply(xi, v).sum()

    g = vmap(grad(loss(A), argnums=(0, 1)), in_dims=(0, None))(xa, wa)
    tg = tfunc.vmap(tfunc.grad(loss(T), argnums=(0, 1)), in_dims=(0, None))(xt, wt)
    for a, b in zip(g, tg):
        close(a, b)
    # grad of a vmap: the unbatched w's gradient is the sum over the samples
    g2 = grad(lambda v: vmap(A.apply, in_dims=(0, None))(xa, v).sum())(wa)
    close(g2, tfunc.grad(lambda v: tfunc.vmap(T.apply, in_dims=(0, None))(xt, v).sum())(wt))


def test_generated_rule_nested_vmap_and_backward_match_torch():
    x, w = RNG.standard_normal((2, 4, 3)), RNG.standard_normal((4, 3))
    A, T = cube(af, generate=True), cube(torch, generate=True)  # noqa: N806
    got = vmap(vmap(A.apply), in_dims=(0, None))(af.asarray(x), af.asarray(w))
    close(got, tfunc.vmap(tfunc.vmap(T.apply), in_dims=(0, None))(torch.asarray(x),
                                                                   torch.asarray(w)))
    # a plain backward through the vmapped Function reaches both leaves
    xa = af.asarray(x).requires_grad_()
    wa = af.asarray(w).requires_grad_()
    xt = torch.asarray(x).requires_grad_()
    wt = torch.asarray(w).requires_grad_()
    (vmap(vmap(A.apply), in_dims=(0, None))(xa, wa) ** 2).sum().backward()
    (tfunc.vmap(tfunc.vmap(T.apply), in_dims=(0, None))(xt, wt) ** 2).sum().backward()
    close(xa.grad, xt.grad)
    close(wa.grad, wt.grad)


# --- the vmap staticmethod -------------------------------------------------------------------

def _rule(F_name):  # noqa: N803
    """torch's documented pattern: the batch moved to the last dimension, one apply on the
    plain Tensors, the batch dimension reported in out_dims."""
    def rule(info, in_dims, x, w):
        calls.append((info.batch_size, info.randomness, in_dims))
        F = rule.F  # noqa: N806
        x = x.movedim(in_dims[0], -1) if in_dims[0] is not None else x.unsqueeze(-1)
        w = w.movedim(in_dims[1], -1) if in_dims[1] is not None else w.unsqueeze(-1)
        return F.apply(x, w), x.ndim - 1
    calls: list = []
    rule.calls = calls
    return rule


def test_vmap_staticmethod_matches_torch_values_and_gradients():
    x, w = RNG.standard_normal((5, 3)), RNG.standard_normal(3)
    ra, rt = _rule("a"), _rule("t")
    A = cube(af, vmap_rule=ra)  # noqa: N806
    T = cube(torch, vmap_rule=rt)  # noqa: N806
    ra.F, rt.F = A, T
    xa, wa, xt, wt = af.asarray(x), af.asarray(w), torch.asarray(x), torch.asarray(w)
    got = vmap(A.apply, in_dims=(1, None), randomness="same")(xa.T, wa)
    want = tfunc.vmap(T.apply, in_dims=(1, None), randomness="same")(xt.T, wt)
    close(got, want)
    # torch reports the batch dimension where it lies in its storage (1 here); arrayflow
    # moves it to the front when vmap starts and always reports 0 (docs/pytorch-differences)
    assert rt.calls == [(5, "same", (1, None))]
    assert ra.calls == [(5, "same", (0, None))]

    def loss(F):  # noqa: N803
        return lambda xi, v: (F.apply(xi, v) ** 2).sum()

    g = vmap(grad(loss(A), argnums=(0, 1)), in_dims=(0, None))(xa, wa)
    tg = tfunc.vmap(tfunc.grad(loss(T), argnums=(0, 1)), in_dims=(0, None))(xt, wt)
    for a, b in zip(g, tg):
        close(a, b)


def test_vmap_staticmethod_with_a_function_that_leaves_arrayflow():
    # forward through NumPy (no arrayflow op to batch): only the vmap rule makes it vmappable
    class NumpySin(af.autograd.Function):
        @staticmethod
        def forward(x):
            return af.asarray(np.sin(x.detach().numpy()))

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * af.asarray(np.cos(x.detach().numpy()))

        @staticmethod
        def vmap(info, in_dims, x):
            return NumpySin.apply(x), in_dims[0]

    x = RNG.standard_normal((4, 3))
    got = vmap(NumpySin.apply)(af.asarray(x))
    np.testing.assert_allclose(got.numpy(), np.sin(x))
    g = vmap(grad(lambda t: NumpySin.apply(t).sum()))(af.asarray(x))
    close(g, torch.cos(torch.asarray(x)))


# --- errors, as torch ---------------------------------------------------------------------------

def _torch_error(f, *args):
    with pytest.raises(RuntimeError) as e:
        f(*args)
    return str(e.value)


@pytest.mark.parametrize("case", ["neither", "both", "no_setup_context", "unbatched_inside"])
def test_errors_match_torch(case):
    x, w = np.ones((3, 2)), np.ones(2)
    kw = {"neither": {}, "both": {"generate": True, "vmap_rule": lambda i, d, x, w: (x, 0)},
          "no_setup_context": {"setup": False, "generate": True},
          "unbatched_inside": {}}[case]
    A, T = cube(af, **kw), cube(torch, **kw)  # noqa: N806
    if case == "unbatched_inside":  # torch checks inside vmap whatever is batched
        def fa(t):
            return t + A.apply(af.asarray(w), af.asarray(w))

        def ft(t):
            return t + T.apply(torch.asarray(w), torch.asarray(w))
        want = _torch_error(tfunc.vmap(ft), torch.asarray(x))
        with pytest.raises(RuntimeError) as e:
            vmap(fa)(af.asarray(x))
    else:
        want = _torch_error(tfunc.vmap(T.apply, in_dims=(0, None)), torch.asarray(x),
                            torch.asarray(w))
        with pytest.raises(RuntimeError) as e:
            vmap(A.apply, in_dims=(0, None))(af.asarray(x), af.asarray(w))
    head = want.split(".")[0]
    assert str(e.value).startswith(head), (str(e.value), want)
    if case != "no_setup_context":
        assert "Cube" in str(e.value)


def test_a_function_outside_vmap_is_unchanged():
    A = cube(af)  # noqa: N806  (no vmap support: fine outside vmap, as torch)
    x = af.asarray(RNG.standard_normal(3)).requires_grad_()
    A.apply(x, af.ones(3)).sum().backward()
    close(x.grad, 3 * torch.asarray(x.detach().numpy()) ** 2)
