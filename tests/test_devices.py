"""PyTorch-style devices: ``af.device``, ``af.cuda``, default device, ``device=`` on the
factories, ``Tensor.to/cpu/cuda`` and ``Module.to/cpu/cuda``, compared with PyTorch.

A fake CUDA plug-in (NumPy arrays, ``device_type = "cuda"``) exercises the mapping
where no GPU is present.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import backend_unusable_reason

import arrayflow as af
from arrayflow import _backend, nn
from arrayflow_numpy import NumpyBackend

torch = pytest.importorskip("torch")

NO_GPU = backend_unusable_reason("cupy") is not None


@pytest.mark.parametrize("args", [("cpu",), ("cuda",), ("cuda:0",), ("cuda", 1), ("cpu:0",)])
def test_device_object_matches_torch(args):
    ours, theirs = af.device(*args), torch.device(*args)
    assert (ours.type, ours.index) == (theirs.type, theirs.index)
    assert repr(ours) == repr(theirs) and str(ours) == str(theirs)
    assert ours == af.device(*args) and hash(ours) == hash(af.device(*args))
    assert af.device(ours) == ours
    assert (ours == str(ours)) == (theirs == str(theirs)) is False


def test_device_equality_with_and_without_index():
    assert (af.device("cuda:0") == af.device("cuda")) == (
        torch.device("cuda:0") == torch.device("cuda")) is False


@pytest.mark.parametrize("args, match", [
    (("foo",), "device type at start of device string: foo"),
    (("CPU",), "device type at start of device string: CPU"),
    (("cuda:x",), "nvalid device string"),
    (("cuda", -1), "must not be negative"),
    (("cuda:0", 1), "must not include an index"),
])
def test_bad_devices_raise_runtime_error_like_torch(args, match):
    with pytest.raises(RuntimeError, match=match):
        torch.device(*args)
    with pytest.raises(RuntimeError, match=match):
        af.device(*args)


def test_cuda_queries_match_this_machine():
    assert af.cuda.is_available() == (not NO_GPU)
    if NO_GPU:
        assert af.cuda.device_count() == 0
        # this torch is the CPU build: it agrees there is no GPU
        assert torch.cuda.is_available() is False and torch.cuda.device_count() == 0


@pytest.mark.skipif(not NO_GPU, reason="a CUDA device is present")
def test_cuda_module_without_gpu_like_torch():
    # seeding is silently nothing (PyTorch); queries that need a device raise
    for lib in (torch, af):
        assert lib.cuda.manual_seed(1) is None and lib.cuda.manual_seed_all(2) is None
    for name in ("current_device", "synchronize"):
        with pytest.raises(AssertionError):
            getattr(torch.cuda, name)()
        with pytest.raises(af.BackendUnavailableError, match="pip install"):
            getattr(af.cuda, name)()
    with pytest.raises(TypeError, match="seed"):
        af.cuda.manual_seed(1.5)


def test_default_device_is_cpu(backend):
    assert af.get_default_device() == af.device("cpu") or backend == "cupy"
    assert repr(torch.get_default_device()) == repr(af.device("cpu"))


@pytest.mark.skipif(not NO_GPU, reason="a CUDA device is present")
def test_cuda_without_gpu_raises_saying_what_to_install():
    # PyTorch's CPU build raises AssertionError("Torch not compiled with CUDA enabled");
    # arrayflow raises BackendUnavailableError, a RuntimeError naming what to install
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        torch.zeros(2, device="cuda")
    t = af.ones(2)
    m = nn.Linear(2, 2)
    w = m.weight.detach().numpy().copy()
    for call in (lambda: af.zeros(2, device="cuda"), lambda: af.tensor([1.0], device="cuda:0"),
                 lambda: af.randn(2, device=af.device("cuda")), t.cuda, lambda: t.to("cuda"),
                 m.cuda, lambda: m.to("cuda"), lambda: af.set_default_device("cuda")):
        with pytest.raises(af.BackendUnavailableError, match="pip install") as e:
            call()
        assert isinstance(e.value, RuntimeError)
    # nothing changed
    assert m.weight.backend.name == "numpy"
    np.testing.assert_array_equal(m.weight.detach().numpy(), w)
    assert af.get_default_device() == af.device("cpu")


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
def test_cpu_device_keeps_the_current_cpu_backend(backend, name):
    if backend == "cupy":
        pytest.skip("not a CPU backend")
    for dev in ("cpu", af.device("cpu"), "cpu:0"):
        t = getattr(af, name)(2, 3, device=dev)
        assert t.backend.name == backend and t.shape == (2, 3)
    t = af.arange(3, device="cpu")
    assert t.backend.name == backend
    assert t.is_cpu and not t.is_cuda
    assert torch.arange(3).is_cpu and not torch.arange(3).is_cuda
    assert t.cpu() is t and t.to("cpu") is t and t.to(af.device("cpu")) is t
    assert af.asarray([1.0], device="cpu").backend.name == backend


def test_native_devices_still_work(backend):
    # the array API's device objects (t.device) keep their meaning
    t = af.asarray(np.arange(6.0).reshape(2, 3))
    dev = t.device
    for u in (af.zeros((2, 3), device=dev), af.asarray([1.0], device=dev), t.to(dev),
              t.to_device(dev)):
        assert u.backend.name == backend and str(u.device) == str(dev)


@pytest.mark.parametrize("lib, nnm", [(af, nn), (torch, torch.nn)], ids=["arrayflow", "torch"])
def test_cuda_with_a_cpu_device_raises(lib, nnm):
    for call in (lambda: lib.zeros(1).cuda("cpu"), lambda: nnm.Linear(1, 1).cuda("cpu")):
        with pytest.raises(RuntimeError, match="Invalid device, must be cuda device"):
            call()


def test_to_dtype_is_differentiable_like_torch(backend):
    ours = af.asarray([1.0, 2.0], dtype=af.float32)
    ours.requires_grad_(True)
    theirs = torch.tensor([1.0, 2.0], requires_grad=True)
    (ours.to(af.float64) ** 2).sum().backward()
    (theirs.to(torch.float64) ** 2).sum().backward()
    assert ours.grad.dtype is af.float32
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy())


def test_to_other_backend_with_grad_keeps_the_graph():
    # issue 16: moves are differentiable (PyTorch's .to); tests/test_to_backend_grad.py
    x = af.ones(2, requires_grad=True)
    y = x.to("strict")
    assert y.requires_grad and y.grad_fn.name() == "ToCopyBackward0"
    (y * 3.0).sum().backward()
    assert x.grad.backend.name == x.backend.name
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
    with af.no_grad():
        assert x.to("strict").backend.name == "strict"
        assert not x.to("strict").requires_grad


def test_to_another_tensor_takes_its_dtype_and_backend():
    with af.use_backend("strict"):
        other = af.zeros(1, dtype=af.float64)
    y = af.ones(2).to(other)
    assert y.dtype is af.float64 and y.backend.name == "strict"
    theirs = torch.ones(2).to(torch.zeros(1, dtype=torch.float64))
    assert theirs.dtype == torch.float64


# --- a fake CUDA plug-in: the mapping where a GPU backend is usable -----------------------


class FakeCuda(NumpyBackend):
    """NumPy arrays that claim to live on a CUDA device (two devices)."""

    name = "fakecuda"
    device_type = "cuda"

    def is_array(self, obj):
        # NumPy arrays; arrayflow.backend_of_array still finds the NumPy backend first
        return isinstance(obj, np.ndarray)

    def unusable_reason(self):
        return None

    def devices(self):
        return ["cpu", "cpu"]


@pytest.fixture
def fake_cuda(monkeypatch):
    monkeypatch.setitem(_backend._registered, "fakecuda", FakeCuda)
    monkeypatch.setattr(_backend, "_instances", dict(_backend._instances))
    monkeypatch.setitem(_backend._default, "backend", _backend.get_backend())
    yield


def test_fake_cuda_mapping(fake_cuda):
    assert af.cuda.is_available() and af.cuda.device_count() == 2
    assert af.cuda.current_device() == 0
    af.cuda.synchronize()
    af.cuda.manual_seed(3)
    a = af.randn(4, device="cuda").numpy()
    af.cuda.manual_seed(3)
    np.testing.assert_array_equal(af.randn(4, device="cuda").numpy(), a)
    t = af.zeros(2, 3, device="cuda")
    assert t.backend.name == "fakecuda"
    assert af.ones(2, device="cuda:1").backend.name == "fakecuda"
    with pytest.raises(RuntimeError, match="out of range"):
        af.ones(2, device="cuda:2")
    c = af.arange(3.0).cuda()
    assert c.backend.name == "fakecuda" and c.cuda() is c
    assert c.is_cuda and not c.is_cpu
    back = c.cpu()
    assert back.backend.name == "numpy" and back.numpy().tolist() == [0.0, 1.0, 2.0]
    moved = af.asarray(af.arange(2.0), device="cuda")
    assert moved.backend.name == "fakecuda"


def test_fake_cuda_module_moves_in_place(fake_cuda):
    m = nn.Linear(3, 2)
    w = m.weight
    before = w.detach().numpy().copy()
    assert m.cuda() is m
    assert m.weight is w and w.backend.name == "fakecuda" and m.bias.backend.name == "fakecuda"
    np.testing.assert_array_equal(w.detach().numpy(), before)
    out = m(af.ones(1, 3, device="cuda"))
    out.sum().backward()
    assert w.grad.backend.name == "fakecuda"
    m.cpu()
    assert w.backend.name == "numpy" and w.grad.backend.name == "numpy"
    m.to(af.device("cuda"))
    assert w.backend.name == "fakecuda"


def test_fake_cuda_default_device(fake_cuda):
    af.set_default_device("cuda")
    assert af.get_default_device() == af.device("cuda", 0)
    assert af.randn(2).backend.name == "fakecuda"
    af.set_default_device(None)
    assert af.get_default_device() == af.device("cpu")
    assert af.zeros(1).backend.name == "numpy"
