#!/usr/bin/env bash
# Build the wheel, install it into a fresh venv (not editable), import every
# package and select every backend. Proves `pip install .` ships what it must.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
.venv/bin/python -m build --wheel --outdir "$tmp/dist" . >"$tmp/build.log" 2>&1 || {
  cat "$tmp/build.log"; exit 1; }
python3 -m venv "$tmp/venv"
whl=$(ls "$tmp"/dist/arrayflow-*.whl)
"$tmp/venv/bin/pip" install -q "${whl}[dask]"
cd "$tmp"
"$tmp/venv/bin/python" - <<'PY'
import importlib, sys
import arrayflow as af
assert not {"numpy", "dask", "cupy"} & set(sys.modules), "import arrayflow imported an array library"
for mod in ("arrayflow", "arrayflow.linalg", "arrayflow.fft", "arrayflow.overrides",
            "arrayflow.plugin", "arrayflow.autograd", "arrayflow.autograd.functional",
            "arrayflow.nn", "arrayflow.optim", "arrayflow.utils", "arrayflow.utils.data",
            "arrayflow.testing", "arrayflow.examples.demo", "arrayflow.examples.scalar_tensor",
            "arrayflow.examples.metadata_tensor", "arrayflow.examples.custom_function",
            "arrayflow_numpy", "arrayflow_strict",
            "arrayflow_dask", "arrayflow_cupy", "arrayflow_conformance",
            "arrayflow_conformance.backend", "arrayflow_conformance.tensor_like",
            "arrayflow_conformance.function", "arrayflow_conformance.reporters",
            "arrayflow_conformance.pytest_plugin",
            "arrayflow.testing.grad", "arrayflow.testing.lazy", "arrayflow.testing.promotion"):
    importlib.import_module(mod)
import importlib.resources as r
assert (r.files("arrayflow") / "py.typed").is_file(), "py.typed missing from the wheel"
for info in af.backends.available():
    if info.usable:
        with af.use_backend(info.name):
            x = af.asarray([1.0, 2.0]) * 2
            assert x.tolist() == [2.0, 4.0], (info.name, x)
        print(f"wheel: backend {info.name} selected and computed")
    else:
        try:
            af.set_backend(info.name)
        except af.BackendUnavailableError as e:
            print(f"wheel: backend {info.name} unavailable as expected: {e}")
        else:
            raise SystemExit(f"{info.name} reported unusable but selection succeeded")
x = af.asarray([1.0, 2.0], requires_grad=True)
(x * x).sum().backward()
assert x.grad.tolist() == [2.0, 4.0]
print("wheel check passed:", af.__file__)
PY
"$tmp/venv/bin/arrayflow-conformance" backends
