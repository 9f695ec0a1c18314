"""Issue 16: ``af.isdtype`` takes a backend's own dtypes (scikit-learn passes NumPy's), and
``Tensor.to`` / ``to_device`` / ``cpu`` moves between backends are differentiable (PyTorch's
``.to`` is): reverse mode, double backward and forward mode."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest
from numpy.testing import assert_allclose
from subprocess_helpers import run_with_scipy_array_api

import arrayflow as af

torch = pytest.importorskip("torch")


# --- isdtype with native dtypes ------------------------------------------------------------

NATIVE_KINDS = [
    (np.float64, "real floating", True), (np.dtype("float32"), "real floating", True),
    (np.int8, "signed integer", True), (np.uint16, "integral", True),
    (np.bool_, "bool", True), (np.complex64, "complex floating", True),
    (np.float64, "integral", False), (np.dtype("int32"), "real floating", False),
]


@pytest.mark.parametrize("dtype,kind,expected", NATIVE_KINDS)
def test_isdtype_takes_numpy_dtypes(backend, dtype, kind, expected):
    with af.use_backend(backend):
        assert af.isdtype(dtype, kind) is expected
        # the answer NumPy's own isdtype gives
        assert np.isdtype(np.dtype(dtype), kind) is expected


def test_isdtype_native_kind_and_tuple(backend):
    with af.use_backend(backend):
        assert af.isdtype(af.float64, np.float64)
        assert af.isdtype(np.float64, af.float64)
        assert not af.isdtype(np.float32, np.float64)
        assert af.isdtype(np.int16, (np.float64, "integral"))
        assert not af.isdtype(np.int16, (np.float64, "bool"))


@pytest.mark.parametrize("bad", ["float64", None, 3, object, np.float64(1.0), np.ones(2)])
def test_isdtype_rejects_what_is_no_dtype(bad):
    with pytest.raises(TypeError, match=r"isdtype: argument 'dtype' must be an arrayflow dtype"):
        af.isdtype(bad, "real floating")
    if not isinstance(bad, str):  # a str kind is a kind name (ValueError when unknown)
        with pytest.raises(TypeError, match=r"isdtype: argument 'kind'"):
            af.isdtype(af.float32, bad)


SKLEARN_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import arrayflow as af
    import sklearn
    from sklearn.preprocessing import add_dummy_feature, maxabs_scale, minmax_scale, scale
    X = np.array([[1., -2., 3.], [4., 5., -6.], [0.5, 2., 1.], [2., 0., 7.]])
    out = {}
    with af.use_backend(sys.argv[1]), sklearn.config_context(array_api_dispatch=True):
        for f in (scale, minmax_scale, maxabs_scale, add_dummy_feature):
            r = f(af.asarray(X))
            r = r.numpy() if isinstance(r, af.Tensor) else np.asarray(r)
            out[f.__name__] = [r.tolist(), f(X).tolist()]
    print(json.dumps(out))
""")


@pytest.mark.parametrize("bname", ["numpy", "dask"])
def test_sklearn_scalers_on_tensors(bname):
    pytest.importorskip("sklearn")
    pytest.importorskip("scipy")
    if bname == "dask":
        pytest.importorskip("dask")
    out = json.loads(run_with_scipy_array_api(SKLEARN_SCRIPT, bname).strip().splitlines()[-1])
    assert sorted(out) == ["add_dummy_feature", "maxabs_scale", "minmax_scale", "scale"]
    for name, (got, want) in out.items():
        assert_allclose(np.array(got), np.array(want), rtol=1e-12, err_msg=name)


# --- differentiable moves between backends -------------------------------------------------

from arrayflow.testing.lazy import forbid_compute  # noqa: E402

MOVE_BACKENDS = ["numpy", "dask", "strict"]
PAIRS = [(s, d) for s in MOVE_BACKENDS for d in MOVE_BACKENDS if s != d]
X = np.array([0.3, -1.2, 2.5, 0.7])
W = np.array([1.5, -0.5, 2.0, 0.25])


def _usable(*names):
    for n in names:
        reason = af.backends.available()
        for info in reason:
            if info.name == n and not info.usable:
                pytest.skip(f"backend {n!r} unavailable: {info.reason}")


def _leaf(values, bname, dtype=af.float64):
    with af.use_backend(bname):
        return af.asarray(values, dtype=dtype).requires_grad_()


def _np(t):
    return np.asarray(t.detach())  # computes a Dask Tensor


@pytest.mark.parametrize("src,dst", PAIRS)
def test_move_backward_matches_numpy_by_hand(src, dst):
    _usable(src, dst)
    x = _leaf(X, src)
    y = x.to(dst)
    assert y._backend.name == dst
    assert y.requires_grad and y.grad_fn is not None
    assert y.grad_fn.name() == "ToCopyBackward0"  # torch: x.to(...).grad_fn.name()
    with af.use_backend(dst):
        w = af.asarray(W, dtype=af.float64)
    loss = af.sum(af.sin(y) * w)
    loss.backward()
    assert x.grad._backend.name == src and x.grad.dtype is af.float64
    assert_allclose(_np(x.grad), np.cos(X) * W, rtol=1e-13)


@pytest.mark.parametrize("src,dst", PAIRS)
def test_move_with_dtype_against_torch(src, dst):
    """``x.to(dst, dtype=float64)`` of a float32 leaf: the gradient comes back float32 on
    ``src``, as torch's ``x.to(torch.float64)``."""
    _usable(src, dst)
    x = _leaf(X, src, af.float32)
    y = x.to(dst, dtype=af.float64)
    assert y.dtype is af.float64 and y._backend.name == dst
    af.sum(af.exp(y) * y).backward()
    xt = torch.tensor(X, dtype=torch.float32, requires_grad=True)
    yt = xt.to(torch.float64)
    (torch.exp(yt) * yt).sum().backward()
    assert yt.grad_fn.name() == y.grad_fn.name()
    assert x.grad.dtype is af.float32 and x.grad._backend.name == src
    assert_allclose(_np(x.grad), xt.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("src,dst", PAIRS)
def test_move_double_backward(src, dst):
    _usable(src, dst)
    x = _leaf(X, src)
    (g,) = af.autograd.grad(af.sum(x.to(dst) ** 3), x, create_graph=True)
    assert g._backend.name == src and g.requires_grad
    (g2,) = af.autograd.grad(af.sum(af.sin(g)), x)
    xt = torch.tensor(X, requires_grad=True)
    (gt,) = torch.autograd.grad((xt.to(torch.float64, copy=True) ** 3).sum(), xt,
                                create_graph=True)
    (g2t,) = torch.autograd.grad(torch.sin(gt).sum(), xt)
    assert_allclose(_np(g), gt.detach().numpy(), rtol=1e-13)
    assert_allclose(_np(g2), g2t.numpy(), rtol=1e-12)
    assert g2._backend.name == src


@pytest.mark.parametrize("src,dst", PAIRS)
def test_move_forward_mode(src, dst):
    _usable(src, dst)
    fwad = af.autograd.forward_ad
    v = np.array([1.0, 2.0, -1.0, 0.5])
    with af.use_backend(src):
        x = af.asarray(X, dtype=af.float32)
        vt = af.asarray(v, dtype=af.float32)
    with fwad.dual_level():
        y = af.sin(fwad.make_dual(x, vt).to(dst, dtype=af.float64))
        primal, tangent = fwad.unpack_dual(y)
    assert tangent is not None and tangent._backend.name == dst
    assert tangent.dtype is af.float64
    tfw = torch.autograd.forward_ad
    with tfw.dual_level():
        yt = torch.sin(tfw.make_dual(torch.tensor(X, dtype=torch.float32),
                                     torch.tensor(v, dtype=torch.float32)).to(torch.float64))
        tt = tfw.unpack_dual(yt).tangent
    assert_allclose(_np(tangent), tt.numpy(), rtol=1e-6)
    assert_allclose(_np(tangent), np.cos(X.astype(np.float32)) * v, rtol=1e-6)


@pytest.mark.parametrize("src,dst", PAIRS)
def test_move_no_grad_and_integer_results(src, dst):
    _usable(src, dst)
    x = _leaf(X, src)
    with af.no_grad():
        assert not x.to(dst).requires_grad
    xi = x.to(dst, dtype=af.int64)
    xt = torch.tensor(X, requires_grad=True)
    assert xi.requires_grad is xt.to(torch.int64).requires_grad is False


def test_same_backend_returns_self(backend):
    x = _leaf(X, backend)
    assert x.to(backend) is x
    assert x.to(backend, dtype=af.float64) is x
    assert x.cpu() is x
    xt = torch.tensor(X, requires_grad=True)
    assert xt.to("cpu") is xt and xt.to(torch.float64) is xt and xt.cpu() is xt


def test_strict_to_device_is_differentiable():
    _usable("strict")
    import array_api_strict

    x = _leaf(X, "strict")
    dev = array_api_strict.Device("device1")
    y = x.to_device(dev)
    assert y.device == dev and y.requires_grad
    af.sum(y * y).backward()
    assert x.grad.device == x.device  # back on the input's device
    assert_allclose(x.grad.numpy(), 2 * X, rtol=1e-15)
    assert x.to_device(x.device) is x


def test_hooks_see_each_side_backend():
    _usable("dask")
    x = _leaf(X, "numpy")
    y = x.to("dask")
    seen = {}
    y.register_hook(lambda g: seen.update(tensor=g._backend.name))
    y.grad_fn.register_hook(
        lambda gin, gout: seen.update(gin=gin[0]._backend.name, gout=gout[0]._backend.name))
    af.sum(y * 2.0).backward()
    assert seen == {"tensor": "dask", "gin": "numpy", "gout": "dask"}
    assert_allclose(x.grad.numpy(), np.full(4, 2.0))


def test_dask_stays_lazy_where_dask_is_the_target():
    _usable("dask")
    x = _leaf(X, "numpy")
    with forbid_compute("dask"):
        y = x.to("dask")
        loss = af.sum(af.sin(y))
        assert loss.requires_grad
    # a Dask leaf whose gradient comes back from numpy: moving it to Dask computes nothing
    xd = _leaf(X, "dask")
    z = xd.to("numpy")
    loss = af.sum(z * z)
    with forbid_compute("dask"):
        loss.backward()
        assert xd.grad._backend.name == "dask"
    assert_allclose(_np(xd.grad), 2 * X, rtol=1e-15)


@pytest.mark.parametrize("src,dst", PAIRS)
def test_round_trip_and_direct_use_accumulate(src, dst):
    """``x`` used directly and through a move there and back: both gradients add up on
    ``x``'s backend (torch: the same function without moves)."""
    _usable(src, dst)
    x = _leaf(X, src)
    with af.use_backend(dst):
        w = af.asarray(W, dtype=af.float64)
    loss = af.sum(x * x) + af.sum(af.exp(x.to(dst)) * w).to(src)
    assert loss._backend.name == src
    loss.backward()
    xt = torch.tensor(X, requires_grad=True)
    ((xt * xt).sum() + (torch.exp(xt) * torch.tensor(W)).sum()).backward()
    assert_allclose(_np(x.grad), xt.grad.numpy(), rtol=1e-13)


def test_move_to_complex_dtype_against_torch():
    _usable("strict")
    x = _leaf(X, "numpy")
    y = x.to("strict", dtype=af.complex128)
    assert y.requires_grad and y.dtype is af.complex128
    af.sum(af.abs(y * (1.0 + 2.0j)) ** 2).backward()
    xt = torch.tensor(X, requires_grad=True)
    (torch.abs(xt.to(torch.complex128) * (1.0 + 2.0j)) ** 2).sum().backward()
    assert x.grad.dtype is af.float64
    assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-13)


def test_to_device_with_stream_refuses_a_requires_grad_tensor():
    _usable("strict")
    import array_api_strict

    x = _leaf(X, "strict")
    with pytest.raises(NotImplementedError, match=r"Tensor.to_device: a stream= move"):
        x.to_device(array_api_strict.Device("device1"), stream=1)
