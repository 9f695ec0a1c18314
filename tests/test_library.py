"""arrayflow.library: custom ops with per-backend kernels (issue 15).

Each test makes its own op under a unique name (the registry is global, names are unique).
Gradients are compared with PyTorch's for the same formula.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import forbid_compute, on_backend

import arrayflow as af
from arrayflow.library import OpCheckError

_ids = itertools.count()


def _name(stem):
    return f"testlib::{stem}_{next(_ids)}"


def _softplus(*, kernel=True, fake=True, autograd=True, elementwise=True):
    @af.library.custom_op(_name("softplus"), mutates_args=(), elementwise=elementwise)
    def softplus(x: af.Tensor) -> af.Tensor:
        xp = af.get_namespace(x)
        return xp.logaddexp(x, xp.zeros_like(x))

    if fake:
        softplus.register_fake(lambda x: af.empty_like(x))
    if kernel:
        softplus.register_kernel("numpy", lambda x: np.logaddexp(x, 0.0))
    if autograd:
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g / (1 + af.exp(-x))

        softplus.register_autograd(backward, setup_context=setup_context)
    return softplus


X = np.array([-2.0, -0.5, 0.0, 0.7, 3.0])


def test_values_and_gradients_match_torch_on_every_backend(backend):
    torch = pytest.importorskip("torch")
    op = _softplus()
    x = af.asarray(X, requires_grad=True)
    y = op(x)
    (y * af.asarray(X + 1)).sum().backward()
    tx = torch.tensor(X, requires_grad=True)
    ty = torch.nn.functional.softplus(tx)
    (ty * torch.tensor(X + 1)).sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)


def test_the_kernel_that_runs_is_the_backends():
    calls = []

    @af.library.custom_op(_name("double"), mutates_args=(), elementwise=True)
    def double(x: af.Tensor) -> af.Tensor:
        calls.append("default")
        return x * 2

    double.register_fake(lambda x: af.empty_like(x))

    @double.register_kernel("numpy")
    def _(x):
        calls.append(type(x).__module__.split(".")[0])
        return x * 2

    with on_backend("numpy"):
        np.testing.assert_array_equal(double(af.asarray([1.0, 2.0])).numpy(), [2.0, 4.0])
    with on_backend("strict"):
        np.testing.assert_array_equal(double(af.asarray([1.0, 2.0])).numpy(), [2.0, 4.0])
    assert calls == ["numpy", "default"]


def test_elementwise_numpy_kernel_runs_block_by_block_on_dask_lazily():
    op = _softplus()
    with on_backend("dask"):
        x = af.asarray(np.linspace(-3, 3, 16), chunks=4)
        with forbid_compute("dask"):
            y = op(x)
        arr = y._cell.array
        assert type(arr).__module__.startswith("dask")
        assert arr.chunks == ((4, 4, 4, 4),)
        assert len(arr.dask) <= 3 * 4 + 4  # one task per block (plus the input's)
        np.testing.assert_allclose(y.numpy(), np.logaddexp(np.linspace(-3, 3, 16), 0))


def test_double_backward_through_a_backward_written_with_arrayflow_ops():
    torch = pytest.importorskip("torch")
    op = _softplus()
    x = af.asarray(X, requires_grad=True)
    (g,) = af.autograd.grad(op(x).sum(), x, create_graph=True)
    g.sum().backward()
    tx = torch.tensor(X, requires_grad=True)
    (tg,) = torch.autograd.grad(torch.nn.functional.softplus(tx).sum(), tx, create_graph=True)
    tg.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10)


def test_backward_without_register_autograd_raises_as_torch():
    op = _softplus(autograd=False)
    x = af.asarray(X, requires_grad=True)
    y = op(x)
    assert y.requires_grad
    with pytest.raises(RuntimeError, match="no autograd formula was registered"):
        y.sum().backward()


def test_dispatch_protocol_reaches_custom_ops():
    op = _softplus()
    seen = []

    class Duck:
        @classmethod
        def __arrayflow_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return "handled"

    assert op(Duck()) == "handled"
    assert seen == [op]
    assert op in af.overrides.get_overridable_functions()[af.library]
    assert op in af.overrides.get_testing_overrides()
    report = af.overrides.explain_dispatch(op, Duck())
    assert "Duck" in str(report)


def test_namespace_object():
    op = _softplus()
    ns, name = op.name.split("::")
    assert getattr(getattr(af.library.ops, ns), name) is op


@pytest.mark.parametrize("bad", ["noname", "a::b::c", "1lib::x", "lib::not-an-id", 3])
def test_name_without_namespace_raises(bad):
    with pytest.raises(ValueError, match=r"namespace::name|not a Python identifier"):
        af.library.custom_op(bad, mutates_args=())(lambda x: x)


def test_duplicate_name_raises():
    def ident(x: af.Tensor) -> af.Tensor:
        return x

    name = _name("dup")
    af.library.custom_op(name, ident, mutates_args=())
    with pytest.raises(RuntimeError, match="already registered"):
        af.library.custom_op(name, ident, mutates_args=())


def test_missing_annotation_raises():
    with pytest.raises(ValueError, match="type annotation"):
        @af.library.custom_op(_name("noann"), mutates_args=())
        def f(x):
            return x


def test_register_kernel_for_a_backend_that_is_not_installed_names_the_installed():
    op = _softplus(kernel=False)
    with pytest.raises(ValueError, match=r"'nosuch' is not installed; installed backends: "
                       r"\[.*'numpy'.*\]"):
        op.register_kernel("nosuch", lambda x: x)


def test_kernel_returning_wrong_shape_dtype_or_type_raises_naming_op_and_backend():
    op = _softplus(kernel=False)
    op.register_kernel("numpy", lambda x: x[:2])
    with pytest.raises(RuntimeError, match=rf"{op.name}: the kernel for 'numpy' returned "
                       r"shape \(2,\)"):
        op(af.asarray(X))
    op.register_kernel("numpy", lambda x: x.astype(np.float32))
    with pytest.raises(RuntimeError, match="float32"):
        op(af.asarray(X))
    op.register_kernel("numpy", lambda x: list(x))
    with pytest.raises(TypeError, match=r"kernel for 'numpy' returned list"):
        op(af.asarray(X))


def test_opcheck_passes_and_reports_per_backend():
    op = _softplus()
    report = af.library.opcheck(op, [(X,), (X.reshape(5, 1),)])
    assert set(report) >= {"numpy", "strict", "dask"}
    assert report["numpy"]["kernel_vs_default"] == "SUCCESS"
    assert report["dask"]["kernel_vs_default"] == "SUCCESS"  # block-wise numpy kernel
    assert report["strict"]["kernel_vs_default"].startswith("SKIPPED")
    assert all(v == "SUCCESS" for b in report.values() for k, v in b.items()
               if k != "kernel_vs_default")


def test_opcheck_catches_a_wrong_fake_rule():
    op = _softplus(kernel=False)
    op.register_fake(lambda x: af.empty((x.shape[0] + 1,), dtype=x.dtype))
    with pytest.raises(OpCheckError, match=r"numpy: call: .*fake rule says") as e:
        af.library.opcheck(op, [(X,)])
    assert "strict" in str(e.value)
    report = af.library.opcheck(op, [(X,)], raise_exception=False)
    assert report["numpy"]["call"].startswith("FAILED")


def test_opcheck_catches_a_kernel_disagreeing_with_the_default():
    op = _softplus(kernel=False)
    op.register_kernel("numpy", lambda x: np.logaddexp(x, 0.0) + 1e-3)
    with pytest.raises(OpCheckError, match="numpy: kernel_vs_default"):
        af.library.opcheck(op, [(X,)])


def test_opcheck_catches_a_wrong_gradient():
    op = _softplus()
    op.register_autograd(lambda ctx, g: g * 2.0)
    with pytest.raises(OpCheckError, match="autograd"):
        af.library.opcheck(op, [(X,)], backends=["numpy"])


def test_opcheck_catches_undeclared_mutation():
    @af.library.custom_op(_name("scale_"), mutates_args=())
    def scale_(x: af.Tensor) -> af.Tensor:
        return x * 2

    def kernel(x):
        x *= 2  # writes into its argument, which mutates_args=() does not declare
        return x.copy()

    scale_.register_kernel("numpy", kernel)
    with pytest.raises(OpCheckError, match=r"numpy: mutates_args: .*wrote \['x'\]"):
        af.library.opcheck(scale_, [(X,)], backends=["numpy"])


def test_declared_mutation_bumps_the_version_so_autograd_sees_it():
    @af.library.custom_op(_name("fill_"), mutates_args=("x",))
    def fill_(x: af.Tensor, v: float) -> af.Tensor:
        return x * 0 + v

    def kernel(x, v):
        x[...] = v
        return x.copy()

    fill_.register_kernel("numpy", kernel)
    a = af.asarray(X, requires_grad=True)
    b = a * 1.0
    c = b * b  # saves b
    fill_(b, 1.0)
    np.testing.assert_array_equal(b.detach().numpy(), np.ones(5))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()
    af.library.opcheck(fill_, [(X, 2.0)], backends=["numpy"])


def test_forward_mode_needs_a_registered_jvp_and_then_matches_torch():
    torch = pytest.importorskip("torch")
    import arrayflow.autograd.forward_ad as fwAD

    op = _softplus()  # its numpy kernel cannot carry tangents
    x = af.asarray(X)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, af.ones_like(x))
        with pytest.raises(NotImplementedError, match="jvp"):
            op(d)  # never a silently dropped tangent
    op.register_jvp(lambda ctx, t: t / (1 + af.exp(-ctx.inputs[0])))
    with fwAD.dual_level():
        d = fwAD.make_dual(x, af.asarray(X + 1))
        tangent = fwAD.unpack_dual(op(d)).tangent
    import torch.autograd.forward_ad as tfw

    with tfw.dual_level():
        td = tfw.make_dual(torch.tensor(X), torch.tensor(X + 1))
        want = tfw.unpack_dual(torch.nn.functional.softplus(td)).tangent
    np.testing.assert_allclose(tangent.numpy(), want.numpy(), rtol=1e-12)
    np.testing.assert_allclose(af.func.jacfwd(op)(x).numpy(),
                               af.func.jacrev(op)(x).numpy(), rtol=1e-12)


def test_vmap_runs_the_registered_rule_once_or_the_default_kernel_batched():
    import warnings

    @af.library.custom_op(_name("scale"), mutates_args=())
    def scale(x: af.Tensor, k: float) -> af.Tensor:
        return x * k

    scale.register_kernel("numpy", lambda x, k: x * k)
    scale.register_fake(lambda x, k: af.empty_like(x))
    x = af.asarray(np.arange(6.0).reshape(2, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no per-sample loop fallback
        got = af.func.vmap(lambda r: scale(r, 2.0))(x)
        np.testing.assert_array_equal(got.numpy(), np.arange(6.0).reshape(2, 3) * 2)
        calls = []

        def rule(info, in_dims, x, k):
            calls.append((info.batch_size, in_dims))
            return scale(x, k), in_dims[0]

        scale.register_vmap(rule)
        got = af.func.vmap(lambda r: scale(r, 3.0), in_dims=1)(x)
    np.testing.assert_array_equal(got.numpy(), (np.arange(6.0).reshape(2, 3) * 3).T)
    # one call for the whole batch; arrayflow moves the batch dim to 0 first (a documented
    # difference: PyTorch passes the caller's dim)
    assert calls == [(3, (0, None))]
