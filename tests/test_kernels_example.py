"""arrayflow/examples/kernels.py: the fused GELU (tanh) custom ops and their native kernels.

Values and gradients (first and second order) are compared with PyTorch's
``F.gelu(approximate="tanh")`` on every backend: the Numba kernel on numpy, the same kernel
block by block (lazily) on Dask with 8 chunks, the array API default on strict.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import backend_unusable_reason, forbid_compute, on_backend

import arrayflow as af
from arrayflow.library import OpCheckError

torch = pytest.importorskip("torch")
F = torch.nn.functional


class _Example:
    """``arrayflow.examples.kernels``, imported at the first use in a test, not at collection:
    importing it registers custom ops in the global registry, which other test modules'
    walks over ``get_overridable_functions()`` would then see."""

    def __getattr__(self, name):
        if name.startswith(("_", "pytest")):  # pytest's probes during collection
            raise AttributeError(name)
        from arrayflow.examples import kernels

        return getattr(kernels, name)


K = _Example()
ROOT = Path(__file__).resolve().parents[1]
X = np.random.default_rng(7).standard_normal(64) * 3.0   # 8 chunks of 8 on Dask
W = np.random.default_rng(8).standard_normal(64)         # weights of the loss
_ids = itertools.count()


def _torch_reference(x, w):
    tx = torch.tensor(x, requires_grad=True)
    ty = F.gelu(tx, approximate="tanh")
    (tg,) = torch.autograd.grad((ty * torch.tensor(w)).sum(), tx, create_graph=True)
    (tgg,) = torch.autograd.grad((tg * torch.tensor(w)).sum(), tx)
    return ty.detach().numpy(), tg.detach().numpy(), tgg.numpy()


def _arrayflow(x, w, **asarray):
    t = af.asarray(x, requires_grad=True, **asarray)
    wt = af.asarray(w, **asarray)
    y = K.gelu_tanh(t)
    (g,) = af.autograd.grad((y * wt).sum(), t, create_graph=True)
    (gg,) = af.autograd.grad((g * wt).sum(), t)
    return y, g, gg


_CALLS: list = []
_REAL: dict = {}


def _spy_forward(*arrays):
    # module-level functions: Dask's tokenizer pickles a block function by reference then,
    # not by value (a closure's copy would record into a copy of the list)
    _CALLS.append(("examples::gelu_tanh", [type(a).__module__.split(".")[0] for a in arrays],
                   arrays[0].shape))
    return _REAL["examples::gelu_tanh"](*arrays)


def _spy_backward(*arrays):
    _CALLS.append(("examples::gelu_tanh_backward",
                   [type(a).__module__.split(".")[0] for a in arrays], arrays[0].shape))
    return _REAL["examples::gelu_tanh_backward"](*arrays)


@pytest.fixture
def kernel_calls(monkeypatch):
    """Record the calls of the kernels registered for "numpy" (the Numba ones)."""
    _CALLS.clear()
    for op, spy in ((K.gelu_tanh, _spy_forward), (K.gelu_tanh_backward, _spy_backward)):
        kernel = op.kernels.get("numpy")
        if kernel is not None:
            _REAL[op.name] = kernel
            monkeypatch.setitem(op.kernels, "numpy", spy)
    yield _CALLS
    _CALLS.clear()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_values_and_gradients_match_torch_on_every_backend(backend, dtype, kernel_calls):
    x, w = X.astype(dtype), W.astype(dtype)
    ref = _torch_reference(x, w)
    if backend == "dask":
        with forbid_compute("dask"):  # forward, backward and double backward stay lazy
            y, g, gg = _arrayflow(x, w, chunks=8)
        assert y._cell.array.chunks == ((8,) * 8,)
    else:
        y, g, gg = _arrayflow(x, w)
    rtol, atol = (1e-12, 1e-12) if dtype == "float64" else (2e-5, 2e-6)
    for got, want in zip((y, g, gg), ref):
        assert got.dtype == getattr(af, dtype)
        np.testing.assert_allclose(got.detach().numpy(), want, rtol=rtol, atol=atol)
    if backend == "strict" or not K.NUMBA_KERNELS:
        assert kernel_calls == []        # the array API default ran
    else:
        # the Numba kernels ran on NumPy arrays: forward, the fused backward (twice: the
        # first gradient, and its own backward's d/dg); on Dask once per 8-element block
        names = {c[0] for c in kernel_calls}
        assert names == {"examples::gelu_tanh", "examples::gelu_tanh_backward"}
        assert all(set(mods) == {"numpy"} for _, mods, _ in kernel_calls)
        shapes = {shape for *_, shape in kernel_calls}
        assert shapes == ({(8,)} if backend == "dask" else {(64,)})
        if backend == "dask":  # each kernel ran on the 8 blocks (the backward too)
            for name in names:
                assert len([c for c in kernel_calls if c[0] == name]) % 8 == 0


def test_numpy_runs_the_numba_kernel():
    pytest.importorskip("numba")
    assert K.NUMBA_KERNELS
    assert "numpy" in K.gelu_tanh.kernels and "numpy" in K.gelu_tanh_backward.kernels
    with on_backend("numpy"):
        x = af.asarray(X.reshape(8, 8).T)  # a non-contiguous input
        np.testing.assert_allclose(
            K.gelu_tanh(x).numpy(),
            F.gelu(torch.tensor(X.reshape(8, 8).T), approximate="tanh").numpy(), rtol=1e-12,
            atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_extreme_values_match_torch(backend, dtype):
    """Far tails (exp(-2u) overflows in float32 below x ~ -9.4), zeros, inf and nan."""
    x = np.array([-1e3, -60.0, -20.0, -9.5, -9.3, -5.0, -0.0, 0.0, 1e-30, 5.0, 9.5, 20.0,
                  1e3, -np.inf, np.inf, np.nan], dtype=dtype)
    t = af.asarray(x, requires_grad=True)
    y = K.gelu_tanh(t)
    y.backward(af.ones_like(y))
    tx = torch.tensor(x, requires_grad=True)
    ty = F.gelu(tx, approximate="tanh")
    ty.backward(torch.ones_like(ty))
    rtol, atol = (1e-12, 1e-12) if dtype == "float64" else (2e-5, 2e-6)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=rtol, atol=atol)
    finite = np.isfinite(x)  # torch's backward at +-inf is nan (inf * 0); not compared
    np.testing.assert_allclose(t.grad.numpy()[finite], tx.grad.numpy()[finite], rtol=rtol,
                               atol=atol)


@pytest.mark.parametrize("shape", [(), (0,), (2, 3, 4)])
def test_shapes(backend, shape):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    t = af.asarray(x, requires_grad=True)
    y = K.gelu_tanh(t)
    y.sum().backward()
    tx = torch.tensor(x, requires_grad=True)
    ty = F.gelu(tx, approximate="tanh")
    ty.sum().backward()
    assert y.dtype == af.float32 and tuple(y.shape) == shape and t.grad.dtype == af.float32
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(t.grad.numpy(), tx.grad.numpy(), rtol=2e-5, atol=2e-6)


def test_integer_input_raises_runtime_error_as_torch(backend):
    with pytest.raises(RuntimeError):
        F.gelu(torch.tensor([1, 2]), approximate="tanh")
    with pytest.raises(RuntimeError, match=r"examples::gelu_tanh: argument 'x' .*int64"):
        K.gelu_tanh(af.asarray(np.array([1, 2])))


def test_backward_op_checks_shapes(backend):
    with pytest.raises(RuntimeError, match="same shape"):
        K.gelu_tanh_backward(af.asarray(np.ones(3)), af.asarray(np.ones(4)))


def test_opcheck_passes_on_both_ops():
    rng = np.random.default_rng(0)
    samples = [K.gelu_tanh_inputs(rng), (rng.standard_normal(5),), (np.array(0.3),)]
    report = af.library.opcheck(K.gelu_tanh, samples)
    assert set(report) >= {"numpy", "strict", "dask"}
    assert report["strict"]["kernel_vs_default"].startswith("SKIPPED")
    if K.NUMBA_KERNELS:  # the Numba kernel checked against the default, alone and block-wise
        assert report["numpy"]["kernel_vs_default"] == "SUCCESS"
        assert report["dask"]["kernel_vs_default"] == "SUCCESS"
    assert all(report[b][c] == "SUCCESS" for b in report for c in
               ("schema", "call", "mutates_args", "fake", "autograd"))
    report = af.library.opcheck(K.gelu_tanh_backward,
                                [K.gelu_tanh_backward_inputs(rng)])
    assert all(report[b][c] == "SUCCESS" for b in report for c in
               ("schema", "call", "mutates_args", "fake", "autograd"))


def test_backward_op_gradgradcheck():
    """The backward op's own backward (d/dg by the op, d/dx with arrayflow ops)."""
    rng = np.random.default_rng(3)
    g = af.asarray(rng.standard_normal(6), requires_grad=True)
    x = af.asarray(rng.standard_normal(6) * 2, requires_grad=True)
    assert af.autograd.gradcheck(K.gelu_tanh_backward, (g, x))
    assert af.autograd.gradgradcheck(K.gelu_tanh_backward, (g, x))


def _copy(**kw):
    return K.make_gelu_tanh(f"brokenlib::gelu_tanh_{next(_ids)}", **kw)


def test_opcheck_catches_a_wrong_fake_rule_on_a_copy():
    fwd, _ = _copy()
    fwd.register_fake(lambda x: af.empty_like(x, dtype=af.float32))  # wrong for float64
    sample = (np.linspace(-2, 2, 5),)
    with pytest.raises(OpCheckError, match=r"(?s)numpy: call: .*fake rule says.*strict: "):
        af.library.opcheck(fwd, [sample])
    report = af.library.opcheck(fwd, [sample], raise_exception=False)
    for b in ("numpy", "strict", "dask"):
        assert report[b]["call"].startswith("FAILED") and "float32" in report[b]["call"]
    # the original op is untouched
    af.library.opcheck(K.gelu_tanh, [sample])


def test_opcheck_catches_a_wrong_backward_on_a_copy():
    fwd, _ = _copy(numba=False, cupy=False)
    fwd.register_autograd(lambda ctx, g: g * 0.5)  # gelu'(x) is not 1/2
    report = af.library.opcheck(fwd, [(np.linspace(-2, 2, 5),)], raise_exception=False)
    assert all(report[b]["autograd"].startswith("FAILED") for b in report)


def test_copy_without_native_kernels_runs_the_default():
    fwd, bwd = _copy(numba=False, cupy=False)
    assert fwd.kernels == {} and bwd.kernels == {}
    np.testing.assert_allclose(fwd(af.asarray(X)).numpy(),
                               F.gelu(torch.tensor(X), approximate="tanh").numpy(), rtol=1e-12,
                               atol=1e-14)


def test_cupy_kernels_register_and_run_on_a_gpu():
    reason = backend_unusable_reason("cupy")
    if reason is not None:
        pytest.skip(f"backend 'cupy' unavailable: {reason}")
    assert K.CUPY_KERNELS
    assert "cupy" in K.gelu_tanh.kernels and "cupy" in K.gelu_tanh_backward.kernels
    with on_backend("cupy"):
        x, w = X.astype(np.float32), W.astype(np.float32)
        y, g, gg = _arrayflow(x, w)
        for got, want in zip((y, g, gg), _torch_reference(x, w)):
            np.testing.assert_allclose(got.detach().numpy(), want, rtol=2e-5, atol=2e-6)
    report = af.library.opcheck(K.gelu_tanh, [K.gelu_tanh_inputs(np.random.default_rng(0))],
                                backends=["cupy"])
    assert report["cupy"]["kernel_vs_default"] == "SUCCESS"


def _cuda_body_as_python(body):
    """The ElementwiseKernel body read as Python: drop the ``(T)`` casts, the ``T``
    declarations and the semicolons (the body uses nothing else of C)."""
    py = re.sub(r"\(T\)", "", body)
    py = re.sub(r"^\s*T\s+", "", py, flags=re.M)
    return py.replace(";", "")


def test_cupy_kernel_sources_compute_gelu_and_its_gradient():
    """Without a GPU the CUDA bodies cannot compile, but their formulas can be checked:
    evaluated with NumPy they give torch's values and gradients."""
    x = X.copy()
    g = W.copy()
    ns = {"x": x, "g": g, "tanh": np.tanh}
    exec(_cuda_body_as_python(K.cupy_source(K.CUPY_FORWARD_SOURCE)), ns)
    exec(_cuda_body_as_python(K.cupy_source(K.CUPY_BACKWARD_SOURCE)), ns)
    tx = torch.tensor(x, requires_grad=True)
    ty = F.gelu(tx, approximate="tanh")
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(ns["y"], ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ns["dx"], tx.grad.numpy(), rtol=1e-12, atol=1e-12)
    assert "SQRT_2_OVER_PI" not in K.cupy_source(K.CUPY_FORWARD_SOURCE)


def test_without_a_gpu_no_cupy_kernel_is_registered():
    if backend_unusable_reason("cupy") is None:
        pytest.skip("a GPU is present: the kernels are registered")
    assert not K.CUPY_KERNELS and "cupy" not in K.gelu_tanh.kernels
    fwd, bwd = _copy(numba=False, cupy=False)
    assert K.register_cupy_kernels(fwd, bwd) is False
    assert "cupy" not in fwd.kernels and "cupy" not in bwd.kernels


def test_example_imports_and_runs_without_numba_and_cupy():
    """The optional kernels are optional: with numba and cupy unimportable the example
    registers the default kernels only, and its values are PyTorch's."""
    code = (
        "import sys\n"
        "sys.modules['numba'] = None; sys.modules['cupy'] = None\n"
        "import importlib.util\n"
        "real = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda n, *a: None if n in ('numba', 'cupy') else "
        "real(n, *a)\n"
        "import numpy as np\n"
        "import arrayflow as af\n"
        "from arrayflow.examples import kernels as K\n"
        "assert not K.NUMBA_KERNELS and not K.CUPY_KERNELS, K.gelu_tanh.kernels\n"
        "assert K.gelu_tanh.kernels == {} and K.gelu_tanh_backward.kernels == {}\n"
        "x = af.asarray(np.array([-1.5, 0.0, 2.0]), requires_grad=True)\n"
        "K.gelu_tanh(x).sum().backward()\n"
        "import json\n"
        "print(json.dumps([K.gelu_tanh(x).detach().numpy().tolist(), "
        "x.grad.numpy().tolist()]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    y, g = (np.array(v) for v in json.loads(out.stdout))
    tx = torch.tensor([-1.5, 0.0, 2.0], dtype=torch.float64, requires_grad=True)
    ty = F.gelu(tx, approximate="tanh")
    ty.sum().backward()
    np.testing.assert_allclose(y, ty.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(g, tx.grad.numpy(), rtol=1e-12)


def test_block_wise_result_disagreeing_with_the_fake_rule_raises_when_computed():
    """On Dask the lazy result is typed by the fake rule; the blocks the kernel returns are
    checked against it when they run (not silently float64 data in a float32 Tensor)."""
    fwd, _ = _copy(cupy=False)
    if "numpy" not in fwd.kernels:
        pytest.skip("needs the Numba kernel (the block-wise path)")
    fwd.register_fake(lambda x: af.empty_like(x, dtype=af.float32))
    with on_backend("dask"):
        x = af.asarray(X, chunks=8)
        with forbid_compute("dask"):
            y = fwd(x)
        assert y.dtype == af.float32
        with pytest.raises(RuntimeError, match=rf"{fwd.name}: the kernel for 'numpy', run "
                           r"block by block on 'dask', returned .*dtype float64.*fake rule "
                           r"says dtype float32"):
            y.numpy()
def _private_names_in_code(code: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(code)):
        name = (node.id if isinstance(node, ast.Name) else node.attr
                if isinstance(node, ast.Attribute) else node.name
                if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else None)
        if isinstance(node, ast.alias):
            name = node.name.rsplit(".", 1)[-1]
        if name and name.startswith("_") and not (name.startswith("__") and
                                                   name.endswith("__")) and name != "_":
            names.add(name)
    return names


def test_example_and_doc_use_no_private_name():
    example = (ROOT / "arrayflow" / "examples" / "kernels.py").read_text()
    assert _private_names_in_code(example) == set()
    assert _private_names_in_code("t._cell.array\nfrom a import _b") == {"_cell", "_b"}
    doc = (ROOT / "docs" / "custom-ops.md").read_text()
    blocks = re.findall(r"^```python\n(.*?)^```", doc, re.S | re.M)
    assert blocks
    for block in blocks:
        assert _private_names_in_code(block) == set()
    assert not re.search(r"_from_array|\._cell\b", doc)


def test_doc_code_blocks_run():
    """docs/custom-ops.md: every python block runs, in order, in one namespace."""
    doc = (ROOT / "docs" / "custom-ops.md").read_text()
    ns: dict = {"__name__": "custom_ops_doc"}
    for i, block in enumerate(re.findall(r"^```python\n(.*?)^```", doc, re.S | re.M)):
        exec(compile(block, f"custom-ops.md[block {i}]", "exec"), ns)
