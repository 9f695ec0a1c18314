"""Backend plug-ins: discovery through entry points, selection, purity of import."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import threading

import pytest

import arrayflow as af

EAGER_LAZY = {"numpy": False, "strict": False, "dask": True, "cupy": False}


def test_import_loads_no_array_library():
    code = (
        "import sys, arrayflow\n"
        "bad = [m for m in ('numpy', 'dask', 'cupy', 'array_api_strict') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == ""


def test_first_use_imports_only_that_backend():
    code = (
        "import sys, arrayflow as af\n"
        "with af.use_backend('strict'):\n"
        "    af.ones(2)\n"
        "print('array_api_strict' in sys.modules, 'dask' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["True", "False"]


def test_builtin_backends_are_installed_entry_points():
    from importlib import metadata

    eps = {ep.name for ep in metadata.entry_points(group="arrayflow.backends")}
    assert {"numpy", "strict", "dask", "cupy"} <= eps
    assert {"numpy", "strict", "dask", "cupy"} <= set(af.backends.names())


def test_available_reports_usability_and_laziness():
    infos = {i.name: i for i in af.backends.available()}
    for name, lazy in EAGER_LAZY.items():
        assert infos[name].lazy is lazy
    assert infos["numpy"].usable and infos["numpy"].reason is None
    assert infos["strict"].usable
    cupy = infos["cupy"]
    if not cupy.usable:
        assert cupy.reason and ("CUDA" in cupy.reason or "not installed" in cupy.reason)


def test_default_backend_is_numpy_and_env_var_selects(monkeypatch):
    code = "import arrayflow as af; print(af.get_backend().name, af.ones(2).backend.name)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={**_env(), "ARRAYFLOW_BACKEND": "strict"})
    assert out.stdout.split() == ["strict", "strict"]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=_env())
    assert out.stdout.split() == ["numpy", "numpy"]


def _env():
    import os

    return {k: v for k, v in os.environ.items() if k != "ARRAYFLOW_BACKEND"}


def test_unknown_backend_lists_available():
    with pytest.raises(ValueError, match="unknown backend 'nope'") as info:
        af.set_backend("nope")
    for name in ("numpy", "strict", "dask"):
        assert name in str(info.value)


def test_cupy_without_gpu_raises_at_selection():
    info = {i.name: i for i in af.backends.available()}["cupy"]
    if info.usable:
        pytest.skip("a CUDA device is present: the no-GPU path cannot be exercised")
    before = af.get_backend()
    with pytest.raises(RuntimeError, match="backend 'cupy' cannot be used here") as exc:
        af.set_backend("cupy")
    assert isinstance(exc.value, af.BackendUnavailableError)
    with pytest.raises(af.BackendUnavailableError):
        with af.use_backend("cupy"):
            pass  # pragma: no cover
    assert af.get_backend() is before  # nothing changed


def test_use_backend_is_scoped_and_nests():
    assert af.get_backend().name == "numpy"
    with af.use_backend("strict") as b:
        assert b.name == "strict" and af.get_backend() is b
        assert af.zeros(3).backend.name == "strict"
        with af.use_backend("dask", chunks=2) as d:
            assert af.get_backend() is d and d.options == {"chunks": 2}
        assert af.get_backend() is b
    assert af.get_backend().name == "numpy"


def test_use_backend_does_not_leak_into_threads():
    seen = {}

    def worker():
        seen["thread"] = af.get_backend().name

    with af.use_backend("strict"):
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        seen["main"] = af.get_backend().name
    assert seen == {"thread": "numpy", "main": "strict"}


def test_use_backend_does_not_leak_between_async_tasks():
    async def task(name, ready, go):
        with af.use_backend(name):
            ready.set()
            await go.wait()
            return af.get_backend().name, af.ones(1).backend.name

    async def main():
        r1, r2, go = asyncio.Event(), asyncio.Event(), asyncio.Event()
        t1 = asyncio.create_task(task("strict", r1, go))
        t2 = asyncio.create_task(task("dask", r2, go))
        await r1.wait()
        await r2.wait()
        go.set()
        return await t1, await t2

    assert asyncio.run(main()) == (("strict", "strict"), ("dask", "dask"))


def test_set_backend_changes_process_default():
    try:
        af.set_backend("strict")
        assert af.get_backend().name == "strict"
        box = {}
        t = threading.Thread(target=lambda: box.setdefault("n", af.get_backend().name))
        t.start()
        t.join()
        assert box["n"] == "strict"
    finally:
        af.set_backend("numpy")
    assert af.get_backend().name == "numpy"


@pytest.mark.parametrize("other", ["strict", "dask"])
def test_mixing_backends_raises_naming_both_and_the_fix(other):
    x = af.asarray([1.0, 2.0])
    with af.use_backend(other):
        y = af.asarray([1.0, 2.0])
    with pytest.raises(TypeError) as info:
        af.add(x, y)
    err = info.value
    assert isinstance(err, af.BackendMismatchError)
    msg = str(err)
    assert "arrayflow.add" in msg and "'numpy'" in msg and f"'{other}'" in msg
    assert ".to(" in msg
    with pytest.raises(af.BackendMismatchError, match="concat"):
        af.concat([x, y])
    with pytest.raises(af.BackendMismatchError):
        x + y


def test_operations_follow_operand_backend_not_current():
    with af.use_backend("strict"):
        x = af.asarray([1.0, 2.0])
    with af.use_backend("dask"):
        y = af.exp(x) + 1
    assert y.backend.name == "strict"


def test_manual_seed_reproducible_on_every_backend():
    for name in ("numpy", "strict", "dask"):
        with af.use_backend(name):
            af.manual_seed(123)
            a = af.randn(3, 4).numpy()
            b = af.rand((2,)).numpy()
            af.manual_seed(123)
            a2 = af.randn(3, 4).numpy()
            b2 = af.rand((2,)).numpy()
            af.manual_seed(124)
            a3 = af.randn(3, 4).numpy()
        assert (a == a2).all() and (b == b2).all(), name
        assert not (a == a3).all(), name
        assert a.shape == (3, 4) and a.dtype.name == "float32"
        assert ((b >= 0) & (b < 1)).all()


def test_random_distributions_are_plausible():
    af.manual_seed(0)
    x = af.randn(20000, dtype=af.float64).numpy()
    assert abs(x.mean()) < 0.05 and abs(x.std() - 1) < 0.05
    u = af.rand(20000).numpy()
    assert abs(u.mean() - 0.5) < 0.02
    p = af.randperm(10).numpy()
    assert sorted(p.tolist()) == list(range(10))
    r = af.randint(3, 7, (1000,)).numpy()
    assert r.min() >= 3 and r.max() < 7 and r.dtype.name == "int64"


TOY = '''
from arrayflow.plugin import Backend


class ToyBackend(Backend):
    """A third party's backend: NumPy arrays under another name."""

    name = "toy"
    array_module = "numpy"

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
'''


def test_third_party_backend_registers_through_entry_point(tmp_path):
    (tmp_path / "toy_backend.py").write_text(TOY)
    dist = tmp_path / "toy_backend-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-backend\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[arrayflow.backends]\ntoy = toy_backend:ToyBackend\n")
    code = textwrap.dedent("""
        import arrayflow as af
        assert "toy" in af.backends.names()
        with af.use_backend("toy"):
            x = af.arange(4, dtype=af.float64)
        y = x * 2 + 1
        print(y.backend.name, y.tolist())
        try:
            af.add(y, af.ones(4, dtype=af.float64))
        except af.BackendMismatchError as e:
            print("mismatch", "'toy'" in str(e) and "'numpy'" in str(e))
    """)
    import os

    env = {**_env(), "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["toy [1.0, 3.0, 5.0, 7.0]", "mismatch True"]


def test_register_backend_rejects_non_backend():
    with pytest.raises(TypeError, match="Backend subclass"):
        af.backends.register_backend("bad", object)


def test_entry_points_load_after_importlib_metadata_backport_is_imported():
    # dask imports importlib_metadata, which changes the EntryPoint class the stdlib returns
    code = ("import importlib_metadata, dask, arrayflow as af\n"
            "with af.use_backend('dask'):\n"
            "    print(af.ones(2).backend.name)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=_env())
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "dask"
