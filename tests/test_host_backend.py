"""The host backend (issue 13, section 3): the core selects the backend for finite
differences, computed results, ``device("cpu")`` and host round trips through the
declared capability :attr:`Backend.host` and :func:`arrayflow.backends.host_backend`,
never by the name ``"numpy"``."""

from __future__ import annotations

import ast
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import arrayflow as af
from arrayflow import _backend

ROOT = pathlib.Path(__file__).resolve().parents[1]

HOST_TOY = '''
from arrayflow.plugin import Backend


class HostToyBackend(Backend):
    """A third party's eager CPU backend declaring the host capability (NumPy arrays
    under another name); counts the arrays made through from_host."""

    name = "hosttoy"
    array_module = "numpy"
    host = True
    made = 0

    def load_namespace(self):
        import array_api_compat.numpy as xp
        return xp

    def dtype_from_name(self, name):
        import numpy as np
        return np.dtype(name)

    def to_host(self, array):
        import numpy as np
        return np.asarray(array)

    def from_host(self, array, *, device=None):
        type(self).made += 1
        return array
'''

# Run with the NumPy plug-in taken out of the registry: any selection of "numpy" by name
# left in the core raises ValueError ("unknown backend 'numpy'").
HOST_TOY_RUN = """
import arrayflow as af
from arrayflow import _backend
from arrayflow.autograd import GradcheckError, gradcheck
import toy_host_backend

_backend._discover()
del _backend._registered["numpy"]
for key in [k for k in _backend._instances if k[0] == "numpy"]:
    del _backend._instances[key]
# the default, "numpy", is gone: the first usable backend declaring host takes its place
print("default", af.get_backend().name, af.ones(2).backend.name)
af.set_backend("strict")  # strict does not declare host
print("host", af.backends.host_backend().name)

x = af.asarray([0.3, -1.2, 2.0], dtype=af.float64, requires_grad=True)
before = toy_host_backend.HostToyBackend.made
print("gradcheck", gradcheck(lambda t: (af.sin(t) * t).sum(), (x,)))
print("jacobians on hosttoy", toy_host_backend.HostToyBackend.made > before)


class WrongSin(af.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return af.sin(t)

    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return g * af.cos(t) * 1.5


try:
    gradcheck(WrongSin.apply, (x,))
    print("wrong gradient accepted")
except GradcheckError:
    print("wrong gradient caught")

with af.use_backend("dask"):
    lazy = af.arange(4, dtype=af.float64) * 2
(c,) = af.compute(lazy)
print("compute", c.backend.name, c.tolist())

path = "ckpt.safetensors"
af.save({"w": x.detach(), "lazy": lazy}, path)
back = af.load(path)
print("load", back["w"].backend.name, back["w"].tolist(), back["lazy"].tolist())
with af.use_backend("hosttoy"):
    print("load hosttoy", af.load(path)["lazy"].backend.name)


class Gpu:  # a current backend off the CPU: device("cpu") maps to the host backend
    device_type = "cuda"


print("cpu", af._device._backend_for(af.device("cpu"), Gpu(), "t").name)
"""


def _env(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "ARRAYFLOW_BACKEND"}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), *sys.path])
    return env


def test_plugin_declaring_host_serves_without_the_numpy_plugin(tmp_path):
    (tmp_path / "toy_host_backend.py").write_text(HOST_TOY)
    dist = tmp_path / "toy_host_backend-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-host-backend\n"
                                   "Version: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[arrayflow.backends]\nhosttoy = toy_host_backend:HostToyBackend\n")
    out = subprocess.run([sys.executable, "-c", HOST_TOY_RUN], capture_output=True,
                         text=True, env=_env(tmp_path), cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "default hosttoy hosttoy",
        "host hosttoy",
        "gradcheck True",
        "jacobians on hosttoy True",
        "wrong gradient caught",
        "compute hosttoy [0.0, 2.0, 4.0, 6.0]",
        "load strict [0.3, -1.2, 2.0] [0.0, 2.0, 4.0, 6.0]",
        "load hosttoy hosttoy",
        "cpu hosttoy",
    ]


# --- the selection rule (in process; the registry is restored by monkeypatch) -------------

class _Host(_backend.Backend):
    array_module = "numpy"
    host = True

    def load_namespace(self):
        import array_api_compat.numpy as xp

        return xp

    def dtype_from_name(self, name):
        import numpy as np

        return np.dtype(name)

    def to_host(self, array):
        return array

    def from_host(self, array, *, device=None):
        return array


class _LazyHost(_Host):
    lazy = True


@pytest.fixture
def registry(monkeypatch):
    """Register toy backends for one test: ``registry("name", cls)``."""
    _backend._discover()
    monkeypatch.setattr(_backend, "_registered", dict(_backend._registered))
    monkeypatch.setattr(_backend, "_instances", dict(_backend._instances))
    monkeypatch.setitem(_backend._default, "backend", _backend._default["backend"])
    return lambda name, cls: _backend._registered.__setitem__(
        name, type(cls.__name__, (cls,), {"name": name}))


def test_default_falls_back_to_a_host_backend_only_without_numpy(tmp_path):
    code = ("import arrayflow as af; from arrayflow import _backend; _backend._discover(); "
            "del _backend._registered['numpy']; print(af.get_backend().name)")
    env = _env(tmp_path)
    # no backend declaring host besides NumPy: the original error, not another backend
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, env=env, timeout=300)
    assert out.returncode != 0 and "unknown backend 'numpy'" in out.stderr, out.stderr
    # NumPy installed: it stays the default even where another CPU backend declares host
    code = ("import arrayflow as af; from arrayflow import _backend; "
            "from arrayflow_numpy import NumpyBackend as N; "
            "_backend.register_backend('aa', type('AA', (N,), {'name': 'aa'})); "
            "print(af.get_backend().name, af.backends.host_backend().name)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["numpy", "numpy"]


def test_numpy_plugin_declares_host_and_others_do_not():
    assert af.backends.host_backend().name == "numpy"
    assert af.backends.host_backend() is af.plugin.host_backend()
    declared = {name for name in af.backends.names()
                if getattr(_backend._backend_class(name), "host", False)}
    assert declared == {"numpy"}
    assert _backend.Backend.host is False


def test_rule_default_before_name_order(registry):
    registry("aahost", _Host)  # sorts before "numpy"
    assert af.backends.host_backend().name == "numpy"  # the default backend declares host
    with af.use_backend("strict"):  # not a host backend: the default serves
        assert af.backends.host_backend().name == "numpy"


def test_rule_current_backend_first(registry):
    registry("aahost", _Host)
    with af.use_backend("aahost"):
        assert af.backends.host_backend().name == "aahost"
    af.set_backend("aahost")  # the process default, also under a non-host backend
    with af.use_backend("dask"):
        assert af.backends.host_backend().name == "aahost"


def test_rule_name_order_when_default_is_not_host(registry, monkeypatch):
    registry("zzhost", _Host)
    registry("aahost", _Host)
    monkeypatch.setattr(type(_backend._instance("numpy", {})), "host", False)
    af.set_backend("strict")
    assert af.backends.host_backend().name == "aahost"


def test_lazy_backend_declaring_host_is_skipped_and_no_host_raises(registry, monkeypatch):
    registry("lazyhost", _LazyHost)
    monkeypatch.setattr(type(_backend._instance("numpy", {})), "host", False)
    with af.use_backend("lazyhost"):
        with pytest.raises(af.BackendUnavailableError) as info:
            af.backends.host_backend()
    msg = str(info.value)
    assert "host_backend" in msg and "no usable installed backend declares host" in msg
    assert "'lazyhost' declares host = True but lazy = True" in msg
    assert "'numpy' does not declare host = True" in msg


def test_gradcheck_and_compute_use_the_current_host_backend(registry):
    registry("aahost", _Host)
    with af.use_backend("dask"):
        lazy = af.ones(3, dtype=af.float64) * 3
    with af.use_backend("aahost"):
        (c,) = af.compute(lazy)
        x = af.asarray([0.5, 1.5], dtype=af.float64, requires_grad=True)
        assert af.autograd.gradcheck(lambda t: (t * t).sum(), (x,))
    assert c.backend.name == "aahost" and c.tolist() == [3.0, 3.0, 3.0]
    (d,) = af.compute(lazy)
    assert d.backend.name == "numpy"


# --- no backend selected by the name "numpy" in the core --------------------------------

SELECTORS = {"get_backend", "use_backend", "set_backend", "_select", "_instance",
             "_backend_class", "to", "with_options"}

ALLOWED = {
    # the plug-in registry's own default (get_backend() without set_backend or
    # $ARRAYFLOW_BACKEND): the one place a backend is named
    ("arrayflow/_backend.py", "DEFAULT_BACKEND"),
}


def _numpy_selections(path: pathlib.Path, root: pathlib.Path = ROOT) -> list[str]:
    """Backend selections by the literal "numpy" in one file: a call of a selector with
    "numpy" as an argument (``use_backend("numpy")``, ``t.to("numpy")``,
    ``backend="numpy"``), a comparison of a name or backend with "numpy"
    (``b.name == "numpy"``), or an assignment of "numpy" to a module constant."""
    tree = ast.parse(path.read_text(), str(path))
    rel = path.relative_to(root).as_posix()
    found = []

    def is_numpy(node):
        return isinstance(node, ast.Constant) and node.value == "numpy"

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", None)
            args = list(node.args) + [k.value for k in node.keywords]
            if name in SELECTORS and any(is_numpy(a) for a in args) or any(
                    k.arg == "backend" and is_numpy(k.value) for k in node.keywords):
                found.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Compare):
            if any(is_numpy(c) for c in [node.left, *node.comparators]):
                found.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Assign) and is_numpy(node.value):
            for t in node.targets:
                if (rel, getattr(t, "id", None)) not in ALLOWED:
                    found.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.keyword) and node.arg == "default" and is_numpy(node.value):
            found.append(f"{rel}:{node.value.lineno}: default='numpy'")  # argparse defaults
    return sorted(found, key=lambda f: int(f.split(":")[1]))


def test_scan_finds_selections_by_name(tmp_path):
    (tmp_path / "bad.py").write_text(textwrap.dedent("""
        a = get_backend("numpy")
        with use_backend("numpy"):
            pass
        t.to("numpy")
        ok = backend == "numpy" or b.name != "numpy"
        p.add_argument("--backend", default="numpy")
        asarray(x, backend="numpy")
        import numpy  # an import is library use, not a selection
        doc = "a 'numpy' Tensor"
    """))
    found = _numpy_selections(tmp_path / "bad.py", tmp_path)
    assert [f.split(":")[1] for f in found] == ["2", "3", "5", "6", "6", "7", "8"], found
    assert all(f.startswith("bad.py:") for f in found)


def test_core_selects_no_backend_by_the_name_numpy():
    files = sorted((ROOT / "arrayflow").rglob("*.py"))
    assert len(files) > 30
    found = [f for p in files for f in _numpy_selections(p)]
    assert found == []


class _NoDlpack(_Host):
    """An eager backend whose namespace has no ``from_dlpack`` (the core goes through
    the host backend), and which is no host backend itself."""

    host = False

    def load_namespace(self):
        import types

        import array_api_compat.numpy as xp

        ns = types.ModuleType(xp.__name__)
        ns.__dict__.update({k: v for k, v in vars(xp).items() if k != "from_dlpack"})
        return ns


def test_from_dlpack_goes_through_the_host_backend_not_numpy_by_name(registry, monkeypatch):
    np = pytest.importorskip("numpy")
    registry("aahost", _Host)
    registry("nodl", _NoDlpack)
    del _backend._registered["numpy"]  # the registry copy: "numpy" selects nothing now
    for key in [k for k in _backend._instances if k[0] == "numpy"]:
        del _backend._instances[key]
    af.set_backend("aahost")
    calls = []
    monkeypatch.setattr(_Host, "to_host", lambda self, a: calls.append(self.name) or a)
    with af.use_backend("nodl"):
        t = af.from_dlpack(np.array([1.5, -2.0, 3.25]))
    assert t.backend.name == "nodl" and t.tolist() == [1.5, -2.0, 3.25]
    assert "aahost" in calls
