"""Issue 16: ``af.isdtype`` takes a backend's own dtypes (scikit-learn passes NumPy's), and
``Tensor.to`` / ``to_device`` / ``cpu`` moves between backends are differentiable (PyTorch's
``.to`` is): reverse mode, double backward and forward mode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numpy.testing import assert_allclose

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
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    proc = subprocess.run([sys.executable, "-c", SKLEARN_SCRIPT, bname], capture_output=True,
                          text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert sorted(out) == ["add_dummy_feature", "maxabs_scale", "minmax_scale", "scale"]
    for name, (got, want) in out.items():
        assert_allclose(np.array(got), np.array(want), rtol=1e-12, err_msg=name)
