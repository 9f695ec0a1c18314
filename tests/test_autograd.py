"""Autograd: custom Functions (the seeds' API), the engine, grad modes, gradcheck."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import arrayflow as af
from arrayflow.autograd import Function, gradcheck, gradgradcheck
from arrayflow.examples.custom_function import LinearFunction, MulConstant

BACKENDS = ["numpy", "strict", "dask"]


@pytest.fixture(params=BACKENDS)
def bk(request):
    with af.use_backend(request.param) as b:
        yield b


# --- the seeds' Functions: defined once, in arrayflow.examples.custom_function (imported above);
# the verbatim seed copies are exercised by tests/seeds/ -------------------------------------

linear = LinearFunction.apply


def test_seed_gradcheck_linear_function(bk):
    af.manual_seed(0)
    # The seed's sizes; Dask computes every finite-difference probe, so smaller there.
    n, m, k = (20, 30, 20) if not bk.lazy else (4, 3, 5)
    inp = (af.randn(n, k, dtype=af.double, requires_grad=True),
           af.randn(m, k, dtype=af.double, requires_grad=True))
    assert gradcheck(linear, inp, eps=1e-6, atol=1e-4) is True


def test_linear_function_values_and_bias_grad(bk):
    x = np.arange(6.0).reshape(2, 3)
    w = np.arange(12.0).reshape(4, 3) / 10
    b = np.array([1.0, -1.0, 0.5, 2.0])
    tx, tw, tb = (af.asarray(a, dtype=af.float64).requires_grad_() for a in (x, w, b))
    y = linear(tx, tw, tb)
    assert type(y.grad_fn).__name__ == "LinearFunctionBackward"
    np.testing.assert_allclose(y.detach().numpy(), x @ w.T + b)
    y.sum().backward()
    np.testing.assert_allclose(tx.grad.numpy(), np.ones((2, 4)) @ w)
    np.testing.assert_allclose(tw.grad.numpy(), np.ones((2, 4)).T @ x)
    np.testing.assert_allclose(tb.grad.numpy(), np.full(4, 2.0))


def test_mul_constant_non_tensor_argument(bk):
    x = af.asarray([1.0, 2.0], dtype=af.float64, requires_grad=True)
    y = MulConstant.apply(x, 3.0)
    assert type(y.grad_fn).__name__ == "MulConstantBackward"
    assert y.grad_fn.next_functions[0][0].variable is x
    y.backward(af.asarray([1.0, 10.0], dtype=af.float64))
    assert x.grad.tolist() == [3.0, 30.0]
    assert gradcheck(lambda t: MulConstant.apply(t, 2.5), (x,))


def test_needs_input_grad_and_optional_argument():
    seen = {}

    class F(Function):
        @staticmethod
        def forward(ctx, a, b, scale=1.0):
            seen["needs"] = ctx.needs_input_grad
            return a * b * scale

        @staticmethod
        def backward(ctx, g):
            return g, g, None

    a = af.ones(2, requires_grad=True)
    b = af.ones(2)
    F.apply(a, b).sum().backward()
    assert seen["needs"] == (True, False)
    F.apply(a, b, 2.0)
    assert seen["needs"] == (True, False, False)
    with af.no_grad():
        F.apply(a, b)
    assert seen["needs"] == (False, False)


def test_forward_runs_without_grad_and_outputs_require_grad_by_dtype():
    class F(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.inner = af.is_grad_enabled()
            return x * 2, af.argmax(x)

        @staticmethod
        def backward(ctx, g, gi):
            return g * 2

    x = af.asarray([1.0, 3.0], requires_grad=True)
    y, i = F.apply(x)
    assert y.requires_grad and not i.requires_grad and i.dtype is af.int64
    assert y.grad_fn is not None and i.grad_fn is None


def test_mark_non_differentiable_and_materialize_grads():
    got = {}

    class Sort(Function):
        @staticmethod
        def forward(ctx, x):
            idx = af.argsort(x)
            vals = af.take(x, idx)
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)
            return vals, idx.astype(af.float32)

        @staticmethod
        def backward(ctx, g_vals, g_idx):
            got["g_idx"] = g_idx
            (idx,) = ctx.saved_tensors
            out = af.zeros_like(g_vals)
            out[idx] = g_vals
            return out

    x = af.asarray([3.0, 1.0, 2.0], requires_grad=True)
    vals, idx = Sort.apply(x)
    assert vals.requires_grad and idx.requires_grad  # not marked: idx here is a float copy
    vals.sum().backward()
    assert got["g_idx"] is not None and got["g_idx"].tolist() == [0.0, 0.0, 0.0]

    class NoMat(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 1, x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            got["g2"] = g2
            return g1

    a, _ = NoMat.apply(x)
    a.sum().backward()
    assert got["g2"] is None


def test_split_form_setup_context():
    class Cube(Function):
        @staticmethod
        def forward(x):
            return x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * g

    x = af.asarray([1.0, 2.0], dtype=af.float64, requires_grad=True)
    Cube.apply(x).sum().backward()
    assert x.grad.tolist() == [3.0, 12.0]
    assert gradgradcheck(Cube.apply, (x,))


def test_mark_dirty_inplace_forward():
    class AddOneInplace(Function):
        @staticmethod
        def forward(ctx, x):
            x += 1
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    a = af.asarray([1.0, 2.0], requires_grad=True)
    b = a * 1
    c = AddOneInplace.apply(b)
    assert c is b and c.tolist() == [2.0, 3.0]
    assert type(c.grad_fn).__name__ == "AddOneInplaceBackward"
    (c * 3).sum().backward()
    assert a.grad.tolist() == [3.0, 3.0]


def test_backward_returning_wrong_count_shape_dtype_raises_naming_function():
    def make(ret):
        class Bad(Function):
            @staticmethod
            def forward(ctx, x, y):
                return x + y

            @staticmethod
            def backward(ctx, g):
                return ret(g)
        return Bad

    x = af.ones(3, requires_grad=True)
    y = af.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"function BadBackward returned an incorrect number "
                                           r"of gradients \(expected 2, got 1\)"):
        make(lambda g: (g,)).apply(x, y).sum().backward()
    with pytest.raises(RuntimeError, match=r"BadBackward returned an invalid gradient at index 1 "
                                           r"- got \[2\] but expected shape compatible with \[3\]"):
        make(lambda g: (g, af.ones(2))).apply(x, y).sum().backward()
    with pytest.raises(RuntimeError, match=r"input 0 has dtype complex64, expected float32"):
        make(lambda g: (af.astype(g, af.complex64), g)).apply(x, y).sum().backward()
    with pytest.raises(RuntimeError, match=r"incorrect number of gradients \(expected 2, got 3\)"):
        make(lambda g: (g, g, g)).apply(x, y).sum().backward()
    make(lambda g: (g, g, None, None)).apply(x, y).sum().backward()  # trailing Nones fine
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


def test_saved_tensor_modified_in_place_raises_with_versions():
    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    a = af.ones(2, requires_grad=True)
    b = a * 1
    y = Square.apply(b)
    b += 1
    with pytest.raises(RuntimeError, match=r"Square.*is at version 1; expected version 0 instead"):
        y.sum().backward()


def test_builtin_op_saved_output_modified_in_place_is_copy_on_write():
    # exp saves its output; the write gives y new storage, exp's backward still sees the
    # output it computed (PyTorch raises; its clone-first program gives this gradient)
    a = af.ones(2, requires_grad=True)
    b = a * 1
    y = af.exp(b)
    y += 1
    y.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.exp(np.ones(2)))
    a2 = af.ones(2, requires_grad=True)
    y2 = af.exp(a2 * 1)
    y2 += 1
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation.*ExpBackward.*is "
                                           r"at version 1; expected version 0 instead"):
        af.autograd.grad(y2.sum(), a2, create_graph=True)


def test_higher_order_through_custom_backward():
    class Sin(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return af.sin(x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * af.cos(x)

    x = af.asarray([0.3, 1.2], dtype=af.float64, requires_grad=True)
    (g,) = af.autograd.grad(Sin.apply(x).sum(), x, create_graph=True)
    (gg,) = af.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), -np.sin([0.3, 1.2]))


def test_once_differentiable_blocks_double_backward():
    from arrayflow.autograd.function import once_differentiable

    class Sq(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = af.asarray([1.5], dtype=af.float64, requires_grad=True)
    y = Sq.apply(x).sum()
    (g,) = af.autograd.grad(y, x, create_graph=True)
    assert g.tolist() == [3.0]
    with pytest.raises(RuntimeError, match="Sq.*once_differentiable"):
        g.sum().backward()


def test_function_backend_mixing_raises():
    x = af.ones(2, requires_grad=True)
    with af.use_backend("strict"):
        y = af.ones(2)
    with pytest.raises(af.BackendMismatchError, match="MulConstant"):
        MulConstant.apply(x, y)


def test_ctx_xp_and_backend_allow_backend_generic_kernels(bk):
    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = af.asarray(ctx.xp.exp(x.array))  # a raw backend kernel
            ctx.save_for_backward(y)
            assert ctx.backend is bk
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    x = af.asarray([0.0, 1.0], dtype=af.float64, requires_grad=True)
    Exp.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.0, 1.0]))


# --- the engine ------------------------------------------------------------------------------

def test_backward_accumulates_into_leaves(bk):
    x = af.asarray([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    (x * 2).sum().backward()
    assert x.grad.tolist() == [4.0, 6.0, 8.0]
    assert x.grad.backend is bk and not x.grad.requires_grad


def test_non_scalar_backward_needs_gradient():
    x = af.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        (x * 2).backward()
    (x * 2).backward(af.asarray([1.0, 0.0, 2.0]))
    assert x.grad.tolist() == [2.0, 0.0, 4.0]


def test_second_backward_through_freed_graph_raises_and_retain_graph_allows():
    x = af.asarray([2.0], requires_grad=True)
    y = (af.exp(x) * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (np.exp(2.0) * 3.0), rtol=1e-6)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_backward_without_grad_raises():
    with pytest.raises(RuntimeError, match="does not require grad"):
        af.ones(2).sum().backward()


def test_long_chain_no_recursion_error():
    x = af.asarray([1.0], dtype=af.float64, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0]


def test_grad_function_and_allow_unused():
    x = af.asarray([1.0, 2.0], requires_grad=True)
    z = af.asarray([5.0], requires_grad=True)
    y = (x ** 2).sum()
    (gx,) = af.autograd.grad(y, x, retain_graph=True)
    assert gx.tolist() == [2.0, 4.0] and x.grad is None
    with pytest.raises(RuntimeError, match="not have been used"):
        af.autograd.grad(y, [x, z], retain_graph=True)
    gx, gz = af.autograd.grad(y, [x, z], allow_unused=True)
    assert gz is None and gx.tolist() == [2.0, 4.0]


def test_grad_of_non_leaf_input():
    x = af.asarray([1.0, 2.0], requires_grad=True)
    h = x * 3
    y = (h * h).sum()
    (gh,) = af.autograd.grad(y, h)
    assert gh.tolist() == [6.0, 12.0]


def test_backward_inputs_restricts_accumulation():
    a = af.ones(2, requires_grad=True)
    b = af.ones(2, requires_grad=True)
    (a * b).sum().backward(inputs=[a])
    assert a.grad is not None and b.grad is None


def test_hooks_and_retain_grad():
    x = af.asarray([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g * 10)
    h = x * 2
    h.retain_grad()
    seen = []
    h.register_hook(lambda g: seen.append(g.tolist()))
    (h * h).sum().backward()
    assert seen == [[4.0, 8.0]]
    assert h.grad.tolist() == [4.0, 8.0]
    assert x.grad.tolist() == [80.0, 160.0]


def test_detach_cuts_graph():
    x = af.ones(2, requires_grad=True)
    y = (x * 2).detach()
    assert not y.requires_grad and y.grad_fn is None
    z = (x * 2 + y).sum()
    z.backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_non_differentiable_ops_do_not_require_grad():
    x = af.asarray([1.0, -2.0], requires_grad=True)
    assert not (x > 0).requires_grad
    assert not af.argmax(x).requires_grad
    assert not af.isnan(x).requires_grad
    f = af.floor(x)
    assert f.requires_grad  # zero gradient, as PyTorch
    f.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


def test_grad_modes_context_decorator_and_threads():
    x = af.ones(2, requires_grad=True)
    with af.no_grad():
        assert not af.is_grad_enabled()
        assert not (x * 2).requires_grad
        with af.enable_grad():
            assert (x * 2).requires_grad
    assert af.is_grad_enabled()

    @af.no_grad()
    def f():
        return x * 2

    @af.no_grad
    def f2():
        return x * 2

    assert not f().requires_grad and not f2().requires_grad
    prev = af.set_grad_enabled(False)
    try:
        assert not af.is_grad_enabled()
        box = {}
        t = threading.Thread(target=lambda: box.setdefault("g", af.is_grad_enabled()))
        t.start()
        t.join()
        assert box["g"] is True  # threads do not inherit the switch
    finally:
        prev.__exit__(None, None, None)
    assert af.is_grad_enabled()
    with af.set_grad_enabled(False):
        assert not af.is_grad_enabled()
    assert af.is_grad_enabled()


def test_detect_anomaly_names_op_and_forward_traceback():
    x = af.asarray([0.0, 1.0], requires_grad=True)
    with af.autograd.detect_anomaly():
        y = af.sqrt(x) * 0  # d/dx sqrt(0) * 0 = inf * 0 = nan
        with pytest.raises(RuntimeError, match=r"SqrtBackward.*nan") as info:
            y.sum().backward()
    assert "test_autograd.py" in str(info.value)


def test_dask_backward_stays_lazy():
    import dask

    def refuse(*args, **kwargs):
        raise AssertionError("computed during backward")

    with af.use_backend("dask", chunks=2):
        w = af.asarray(np.arange(12.0).reshape(4, 3), requires_grad=True)
        x = af.ones((5, 4))
    with dask.config.set(scheduler=refuse):
        loss = af.tanh(x @ w).sum()
        loss.backward()
        assert w.grad.backend.name == "dask"
    ref = np.ones((5, 4)).T @ (1 - np.tanh(np.ones((5, 4)) @ np.arange(12.0).reshape(4, 3)) ** 2)
    np.testing.assert_allclose(w.grad.numpy(), ref, rtol=1e-6)


# --- functional ------------------------------------------------------------------------------

def test_functional_jacobian_hessian_vjp_jvp_hvp():
    from arrayflow.autograd import functional as F

    a = np.array([0.5, -1.0, 2.0])
    x = af.asarray(a, dtype=af.float64)

    def f(t):
        return af.sin(t) * t

    J = F.jacobian(f, x)
    np.testing.assert_allclose(J.numpy(), np.diag(np.cos(a) * a + np.sin(a)))

    def s(t):
        return (t ** 3).sum()

    H = F.hessian(s, x)
    np.testing.assert_allclose(H.numpy(), np.diag(6 * a))
    v = af.asarray([1.0, 2.0, 3.0], dtype=af.float64)
    out, vj = F.vjp(f, x, v)
    np.testing.assert_allclose(vj.numpy(), (np.cos(a) * a + np.sin(a)) * [1, 2, 3])
    out, jv = F.jvp(f, x, v)
    np.testing.assert_allclose(jv.numpy(), (np.cos(a) * a + np.sin(a)) * [1, 2, 3])
    out, hv = F.hvp(s, x, v)
    np.testing.assert_allclose(hv.numpy(), 6 * a * [1, 2, 3])
    np.testing.assert_allclose(out.item(), (a ** 3).sum())


def test_gradcheck_reports_mismatch():
    class Wrong(Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g * 3.0

    x = af.asarray([1.0, 2.0], dtype=af.float64, requires_grad=True)
    with pytest.raises(af.autograd.GradcheckError, match=r"output 0 with respect to input 0"):
        gradcheck(Wrong.apply, (x,))
    assert gradcheck(Wrong.apply, (x,), raise_exception=False) is False
    with pytest.warns(UserWarning, match="float64"):
        gradcheck(lambda t: t * 2, (af.ones(2, requires_grad=True),), eps=1e-2, atol=1e-2,
                  rtol=1e-2)


def test_inplace_operations_are_differentiable():
    x = af.asarray([1.0, 2.0, 3.0], dtype=af.float64, requires_grad=True)
    y = x * 1
    y *= 3  # mul saves only what the wanted gradient needs: no false version error
    y += x
    y[1] = 0.0
    assert type(y.grad_fn).__name__ == "CopySlices"  # PyTorch's node for y[1] = v
    y.sum().backward()
    assert x.grad.tolist() == [4.0, 0.0, 4.0]
    v = af.asarray([5.0], dtype=af.float64, requires_grad=True)
    z = af.zeros(3, dtype=af.float64)
    z[0:1] = v * 2
    z.sum().backward()
    assert v.grad.tolist() == [2.0]


def test_inplace_on_leaf_requiring_grad_raises_and_changes_nothing():
    x = af.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Tensor that requires grad"):
        x += 1
    with pytest.raises(RuntimeError, match="leaf Tensor that requires grad"):
        x[0] = 3.0
    assert x.tolist() == [1.0, 1.0] and x._version == 0
    with af.no_grad():
        x += 1
    assert x.tolist() == [2.0, 2.0] and x.grad_fn is None


def test_gradgradcheck_catches_a_wrong_second_derivative_as_torch_does():
    # The backward's value is right (gradcheck passes) but its own derivative is wrong:
    # x**2 * g recomputed from a detached x gives d(grad)/dx = 0 instead of 6 x g.
    # gradgradcheck evaluates the finite differences of the VJP without recording its graph
    # (values only); the check must still fail, as torch's does.
    torch = pytest.importorskip("torch")

    def make(F, detach):
        class Cube(F):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 3 * detach(x) ** 2 * g
        return Cube

    x = af.asarray([1.0, 2.0], dtype=af.float64, requires_grad=True)
    xt = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    good, bad = make(Function, lambda t: t), make(Function, lambda t: t.detach())
    tgood = make(torch.autograd.Function, lambda t: t)
    tbad = make(torch.autograd.Function, lambda t: t.detach())
    assert gradcheck(bad.apply, (x,)) and torch.autograd.gradcheck(tbad.apply, (xt,))
    assert gradgradcheck(good.apply, (x,)) and torch.autograd.gradgradcheck(tgood.apply, (xt,))
    assert not gradgradcheck(bad.apply, (x,), raise_exception=False)
    assert not torch.autograd.gradgradcheck(tbad.apply, (xt,), raise_exception=False)
