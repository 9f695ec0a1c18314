"""Mixed-kind type promotion follows PyTorch (issue 12, section 2).

The array API standard defines promotion within one kind only; mixed kinds (bool,
integer, floating) are left to the implementation, and arrayflow follows PyTorch:
the floating operand's dtype wins (float32 with int64 is float32, not NumPy's
float64), integers beat bool, and a Python scalar of a higher kind gives that
kind's default dtype. Everything is compared with ``torch.promote_types`` and with
real torch ops, on numpy, strict (which rejects mixed kinds natively) and dask.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import on_backend

import arrayflow as af

torch = pytest.importorskip("torch")

BACKENDS = ["numpy", "strict", "dask"]
# uint16/32/64 are left out: PyTorch raises for their promotion with anything else.
NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "float32", "float64",
         "complex64", "complex128"]
_KIND = {"bool": 0, "int8": 1, "int16": 1, "int32": 1, "int64": 1, "uint8": 1,
         "float32": 2, "float64": 2, "complex64": 3, "complex128": 3}
MIXED = [(a, b) for a, b in itertools.product(NAMES, NAMES)
         if (_KIND[a] > 1) != (_KIND[b] > 1) or {_KIND[a], _KIND[b]} == {0, 1}]


def _np_values(name, values=(1, 0, 2, 3)):
    if name == "bool":
        return np.asarray([v % 2 == 1 for v in values])
    return np.asarray(values, dtype=name)


def _torch_dtype_name(td) -> str:
    return str(td).removeprefix("torch.")


def test_mixed_table_has_every_mixed_pair():
    assert len(MIXED) == 2 * (1 * 5 + 1 * 4 + 5 * 4)  # bool-int, bool-float, int-float


@pytest.mark.parametrize(("a", "b"), MIXED, ids=[f"{a}-{b}" for a, b in MIXED])
def test_promote_types_matches_torch(a, b):
    want = _torch_dtype_name(torch.promote_types(getattr(torch, a), getattr(torch, b)))
    assert af._dtypes.promote_types(getattr(af, a), getattr(af, b)).name == want


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("a", "b"), MIXED, ids=[f"{a}-{b}" for a, b in MIXED])
def test_result_type_and_ops_match_torch(backend, a, b):
    """``af.result_type``, the functions and the operators agree with torch, values too."""
    x1, x2 = _np_values(a), _np_values(b, (2, 1, 1, 3))
    t1, t2 = torch.from_numpy(x1), torch.from_numpy(x2)
    want = _torch_dtype_name(torch.promote_types(t1.dtype, t2.dtype))
    with on_backend(backend):
        f1, f2 = af.asarray(x1), af.asarray(x2)
        assert af.result_type(f1, f2).name == want
        assert af.result_type(getattr(af, a), getattr(af, b)).name == want
        assert af.result_type(f1, getattr(af, b)).name == want
        cases = {
            "add": (af.add(f1, f2), torch.add(t1, t2)),
            "multiply": (af.multiply(f1, f2), torch.mul(t1, t2)),
            "__mul__": (f1 * f2, t1 * t2),
            "__radd__": (f2.__radd__(f1), t2.__radd__(t1)),
            "maximum": (af.maximum(f1, f2), torch.maximum(t1, t2)) if "complex" not in a + b
            else None,
            "equal": (af.equal(f1, f2), torch.eq(t1, t2)),
            "where": (af.where(af.asarray(x1 != 0), f1, f2),
                      torch.where(torch.from_numpy(x1 != 0), t1, t2)),
        }
        if "bool" not in (a, b):  # torch.sub rejects bool
            cases["__sub__"] = (f1 - f2, t1 - t2)
        for what, pair in cases.items():
            if pair is None:
                continue
            ours, theirs = pair
            assert ours.dtype.name == _torch_dtype_name(theirs.dtype), what
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), err_msg=what)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["bool", "int8", "int64", "uint8", "float32", "float64",
                                   "complex64"])
@pytest.mark.parametrize("scalar", [True, 2, 1.5, 2j], ids=["bool", "int", "float", "complex"])
def test_python_scalar_operands_match_torch(backend, dtype, scalar):
    """A Python scalar of a higher kind gives that kind's default dtype (torch)."""
    x = _np_values(dtype)
    t = torch.from_numpy(x)
    if dtype == "bool" and type(scalar) is bool:
        pytest.skip("bool + bool: torch.add gives bool, the standard has no bool add")
    wname = _torch_dtype_name((t + scalar).dtype)
    with on_backend(backend):
        f = af.asarray(x)
        assert af.result_type(f, scalar).name == wname
        for what, ours, want in [("t + s", f + scalar, t + scalar),
                                 ("s * t", scalar * f, scalar * t),
                                 ("add(t, s)", af.add(f, scalar), torch.add(t, scalar))]:
            assert ours.dtype.name == _torch_dtype_name(want.dtype) == wname, what
            np.testing.assert_allclose(ours.numpy(), want.numpy(), err_msg=what)


@pytest.mark.parametrize("backend", BACKENDS)
def test_default_dtype_follows_set_default_dtype(backend):
    with on_backend(backend):
        i = af.asarray([1, 2, 3])
        af.set_default_dtype(af.float64)
        try:
            assert (i * 1.5).dtype is af.float64
            assert (i / i).dtype is af.float64
        finally:
            af.set_default_dtype(af.float32)
        assert (i * 1.5).dtype is af.float32


@pytest.mark.parametrize("backend", BACKENDS)
def test_float32_model_stays_float32_with_integer_tensors(backend):
    """The issue's examples: ``x ** p`` with an integer p, ``mse_loss`` with an integer
    target, true division and sqrt of integers: float32, as PyTorch (not float64)."""
    xn = np.asarray([0.5, 1.5, 2.0], dtype="float32")
    pn = np.asarray([2, 3, 1])
    with on_backend(backend):
        x = af.asarray(xn)
        x.requires_grad_(True)
        p = af.asarray(pn)
        y = x ** p
        assert y.dtype is af.float32
        y.sum().backward()
        assert x.grad.dtype is af.float32
        loss = af.nn.functional.mse_loss(x, p)
        assert loss.dtype is af.float32
        assert (p / p).dtype is af.float32 and af.sqrt(p).dtype is af.float32
        assert af.exp(af.asarray([True, False])).dtype is af.float32
    tx = torch.from_numpy(xn).requires_grad_(True)
    tp = torch.from_numpy(pn)
    (tx ** tp).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(loss.detach().numpy(),
                               torch.nn.functional.mse_loss(tx, tp).detach().numpy(),
                               rtol=1e-6)
    assert (tp / tp).dtype == torch.float32 and torch.sqrt(tp).dtype == torch.float32


@pytest.mark.parametrize("backend", BACKENDS)
def test_concat_stack_clip_promote_as_torch(backend):
    fn, i_n = np.asarray([[1.5, 2.5]], dtype="float32"), np.asarray([[1, 2]])
    tf, ti = torch.from_numpy(fn), torch.from_numpy(i_n)
    with on_backend(backend):
        f, i = af.asarray(fn), af.asarray(i_n)
        for ours, theirs in [(af.concat([f, i]), torch.cat([tf, ti])),
                             (af.stack([i, f], 1), torch.stack([ti, tf], 1)),
                             (af.clip(i, 1.5), torch.clamp(ti, min=1.5)),
                             (af.clamp(i, max=af.asarray([[1.5, 1.5]])),
                              torch.clamp(ti, max=torch.tensor([[1.5, 1.5]])))]:
            assert ours.dtype.name == _torch_dtype_name(theirs.dtype)
            np.testing.assert_allclose(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("backend", BACKENDS)
def test_inplace_keeps_dtype_with_integer_operand(backend):
    with on_backend(backend):
        x = af.asarray([1.0, 2.0])
        x += af.asarray([1, 2])
        assert x.dtype is af.float32 and x.numpy().tolist() == [2.0, 4.0]
        x *= af.asarray([True, False])
        assert x.numpy().tolist() == [2.0, 0.0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_uint64_with_signed_raises_like_torch(backend):
    with pytest.raises(RuntimeError):
        torch.promote_types(torch.uint64, torch.int64)
    with on_backend(backend):
        with pytest.raises(TypeError, match="uint64"):
            af.result_type(af.uint64, af.int64)


@pytest.mark.parametrize("backend", BACKENDS)
def test_matrix_products_with_mixed_kinds_raise_as_torch(backend):
    """PyTorch's matmul/tensordot/vecdot/cross require one dtype: mixed kinds raise its
    RuntimeError (never NumPy's silent float64); ``outer`` promotes as ``mul``. Same-kind
    operands keep the standard's promotion (float32 @ float64 is float64)."""
    fn, i_n = np.ones((2, 3), dtype="float32"), np.ones((3, 3), dtype="int64")
    tf, ti = torch.from_numpy(fn), torch.from_numpy(i_n)
    for call in (lambda: tf @ ti, lambda: torch.tensordot(tf, ti, dims=1),
                 lambda: torch.linalg.vecdot(tf, tf.int()),
                 lambda: torch.linalg.solve(torch.eye(3), ti)):
        with pytest.raises(RuntimeError):
            call()
    with on_backend(backend):
        f, i = af.asarray(fn), af.asarray(i_n)
        for call in (lambda: f @ i, lambda: af.matmul(f, i), lambda: af.mm(f, i),
                     lambda: af.tensordot(f, i, axes=1),
                     lambda: af.vecdot(f, f.astype(af.int32)),
                     lambda: af.linalg.cross(f, af.ones((2, 3), dtype=af.int8)),
                     lambda: af.linalg.solve(af.eye(3), i)):
            with pytest.raises(RuntimeError, match="same dtype"):
                call()
        out = af.linalg.outer(f[0], i[0])
        assert out.dtype.name == str(torch.outer(tf[0], ti[0]).dtype)[6:]
        assert (f @ af.ones((3, 3), dtype=af.float64)).dtype is af.float64
