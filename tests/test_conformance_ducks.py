"""Tests of the conformance runner's ``tensor-like`` and ``function`` suites.

The expected classifications follow from how the classes are written: the shipped
examples (``arrayflow.examples.scalar_tensor``, ``metadata_tensor``) and the
fixtures in ``tests/conformance_fixtures.py``.
"""

from __future__ import annotations

import argparse

import pytest

import arrayflow as af
from arrayflow import overrides
from arrayflow.examples.scalar_tensor import HANDLED_FUNCTIONS
from arrayflow_conformance import function, tensor_like
from arrayflow_conformance.results import STATUSES

FIX = "conformance_fixtures"


class _Progress:
    """Records what the suite reports to the progress bar."""

    def __init__(self):
        self.total = None
        self.advanced = 0
        self.stopped = False

    def start(self, total, description):
        self.total = total

    def advance(self, n=1):
        self.advanced += n

    def stop(self):
        self.stopped = True


def _tensor_like(target, factory=None, fail_under=None, progress=None):
    ns = argparse.Namespace(target=target, factory=factory, fail_under=fail_under, seed=0)
    return tensor_like.run(ns, progress or _Progress())


def _by_name(report):
    return {r.name: r for r in report.results}


@pytest.fixture(scope="module")
def scalar_report():
    progress = _Progress()
    report = _tensor_like("arrayflow.examples.scalar_tensor:ScalarTensor",
                          factory=f"{FIX}:scalar_tensor", progress=progress)
    return report, progress


@pytest.fixture(scope="module")
def metadata_report():
    return _tensor_like("arrayflow.examples.metadata_tensor:MetadataTensor")


# --- tensor-like -------------------------------------------------------------------------------

def test_every_overridable_function_is_classified_once(scalar_report):
    report, progress = scalar_report
    funcs = {id(f) for fs in overrides.get_overridable_functions().values() for f in fs}
    fn_results = [r for r in report.results if r.group != "coverage"]
    assert len(fn_results) == len(funcs) == progress.total == progress.advanced
    assert progress.stopped
    groups = {"arrayflow", "arrayflow.linalg", "arrayflow.fft", "arrayflow.nn.functional",
              "Tensor"}
    if af.library in overrides.get_overridable_functions():  # custom ops made earlier in
        groups.add("arrayflow.library")  # this process (tests/test_library.py) count too
    assert {r.group for r in fn_results} == groups
    assert all(r.status in STATUSES and r.suite == "tensor-like" for r in report.results)


def test_scalar_tensor_handles_exactly_its_registered_functions(scalar_report):
    report, _ = scalar_report
    res = _by_name(report)
    assert set(HANDLED_FUNCTIONS) == {af.add, af.mean}
    assert res["add"].status == "handled"  # ScalarTensor + ScalarTensor -> ScalarTensor
    # mean(input) takes no keywords: af.mean(s, axis=...) raises inside the override, and
    # af.mean(s) returns a float where Tensors give a 0-d Tensor
    assert res["mean"].status == "raised"
    assert "unexpected keyword argument 'axis'" in res["mean"].detail
    assert "lost_type" in res["mean"].detail
    for r in report.results:
        if r.name in ("add", "mean") or r.status == "skipped" or r.group == "coverage":
            continue
        assert r.status == "not_implemented", (r.name, r.status, r.detail)
        if r.status == "not_implemented":
            assert "no implementation found for" in r.detail
    meta = report.meta
    assert meta["handled"] == 1
    assert meta["coverage"] == round(100 / meta["classified"], 1)
    assert meta["coverage_by_namespace"]["arrayflow"]["handled"] == 1
    assert meta["coverage_by_namespace"]["arrayflow.nn.functional"]["percent"] == 0.0
    assert report.ok  # classification statuses never fail a run without --fail-under


def test_creation_functions_are_skipped_not_counted(scalar_report):
    report, _ = scalar_report
    res = _by_name(report)
    for name in ("zeros", "arange", "eye", "randn"):
        assert res[name].status == "skipped"
        assert "only modes" in res[name].detail
    skipped = sum(r.status == "skipped" for r in report.results)
    assert report.meta["skipped"] == skipped
    assert report.meta["classified"] == len(report.results) - skipped


def test_scalar_tensor_without_factory_is_a_setup_error():
    report = _tensor_like("arrayflow.examples.scalar_tensor:ScalarTensor")
    (r,) = report.results
    assert (r.group, r.status) == ("setup", "error")
    assert "--factory" in r.detail
    assert not report.ok


def test_metadata_tensor_handles_nearly_everything(metadata_report):
    report = metadata_report
    meta = report.meta
    assert meta["coverage"] >= 85.0
    assert meta["coverage_by_namespace"]["arrayflow.nn.functional"]["percent"] == 100.0
    assert meta["coverage_by_namespace"]["arrayflow.fft"]["percent"] == 100.0
    # it unwraps and rewraps, keywords included: never lost_type / dropped_kwargs
    counts = report.counts()
    assert "lost_type" not in counts and "dropped_kwargs" not in counts
    assert "not_implemented" not in counts and "error" not in counts
    res = _by_name(report)
    for name in ("add", "sum", "linalg.det", "fft.fft", "nn.functional.conv2d", "Tensor.sum",
                 "Tensor.__add__"):
        assert res[name].status == "handled", (name, res[name].detail)
    # Every failure follows from how MetadataTensor is written (or a core bug):
    for r in report.results:
        if r.status != "raised":
            continue
        explained = (
            # only top-level positional arguments are unwrapped: lists (concat, stack) and
            # keyword Tensors (diff's prepend=) reach the function still wrapped
            "recurse forever" in r.detail
            # it rewraps every result with af.as_tensor, which fails for tuples of Tensors
            or "inhomogeneous" in r.detail)
        assert explained, (r.name, r.detail)
    assert res["concat"].status == res["stack"].status == "raised"
    assert res["linalg.eigh"].status == "raised"
    todo = meta["implement_next"]
    assert todo and all(" (" in t for t in todo)
    # ordered: arrayflow functions first, then Tensor methods, ..., alphabetical inside
    groups = [res[t.split(" (")[0]].group for t in todo]
    prio = [tensor_like.NAMESPACE_PRIORITY.index(g) for g in groups]
    assert prio == sorted(prio)


def test_fail_under(metadata_report):
    cov = metadata_report.meta["coverage"]
    target = "arrayflow.examples.metadata_tensor:MetadataTensor"
    at = _tensor_like(target, fail_under=cov)
    assert at.ok
    assert _by_name(at)["fail-under"].status == "passed"
    below = _tensor_like(target, fail_under=min(100.0, cov + 0.1))
    assert not below.ok
    r = _by_name(below)["fail-under"]
    assert (r.group, r.status) == ("coverage", "failed")
    assert f"{cov}%" in r.detail


def test_format_summary(metadata_report):
    text = tensor_like.format_summary(metadata_report)
    assert f"coverage {metadata_report.meta['coverage']}%" in text
    for ns in ("arrayflow.linalg", "arrayflow.nn.functional", "Tensor"):
        assert ns in text
    assert "implement next" in text


def test_dropped_kwargs_detected():
    res = _by_name(_tensor_like(f"{FIX}:DropsKwargs"))
    for name in ("sum", "mean", "Tensor.sum", "linalg.vector_norm", "nn.functional.softmax",
                 "nn.functional.leaky_relu", "nn.functional.mse_loss"):
        assert res[name].status == "dropped_kwargs", (name, res[name].status, res[name].detail)
    assert "keepdims" in res["sum"].detail
    assert "negative_slope" in res["nn.functional.leaky_relu"].detail
    # no keyword arguments in the samples, or keywords that do not change the result
    for name in ("add", "exp", "linalg.det", "nn.functional.relu"):
        assert res[name].status == "handled", (name, res[name].status, res[name].detail)


def test_lost_type_detected():
    report = _tensor_like(f"{FIX}:LosesType")
    res = _by_name(report)
    for name in ("add", "exp", "sum", "linalg.eigh", "Tensor.__add__", "Tensor.sum",
                 "nn.functional.relu"):
        assert res[name].status == "lost_type", (name, res[name].status, res[name].detail)
    # results that are not Tensors for plain Tensors either are not "lost"
    for name in ("Tensor.item", "Tensor.tolist", "Tensor.dim", "finfo"):
        assert res[name].status == "handled", (name, res[name].status)
    assert "dropped_kwargs" not in report.counts()


def test_faithful_wrapper_is_fully_handled():
    report = _tensor_like(f"{FIX}:Faithful")
    bad = [r for r in report.results if r.status not in ("handled", "skipped")]
    assert bad == []


def test_plain_method_duck_type_has_the_classmethod_coverage():
    # the seeds define __arrayflow_function__ as a plain instance method; PyTorch binds it to
    # the instance (with a one-time warning), so the runner must see the same coverage
    import warnings

    report = _tensor_like(f"{FIX}:Faithful")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Defining your `__arrayflow_function__`")
        plain = _tensor_like(f"{FIX}:FaithfulPlainMethod")
    assert plain.meta["coverage"] == report.meta["coverage"] == 100.0
    assert {r.name: r.status for r in plain.results} == \
        {r.name: r.status for r in report.results}
    assert report.meta["protocol_form"] == "classmethod"
    assert plain.meta["protocol_form"] == "instance method"
    note = "note: __arrayflow_function__ is a plain instance method"
    assert note in tensor_like.format_summary(plain)
    assert note not in tensor_like.format_summary(report)


@pytest.fixture(scope="module")
def subclass_report():
    return _tensor_like(f"{FIX}:PlainSubclass")  # no factory: t.as_subclass(cls)


def test_tensor_subclass_defaults_to_as_subclass(subclass_report):
    res = _by_name(subclass_report)
    for name in ("add", "linalg.eigh", "fft.fft", "Tensor.sum", "Tensor.__iadd__"):
        assert res[name].status == "handled", (name, res[name].detail)


def test_tensor_subclass_nn_functional(subclass_report):
    res = _by_name(subclass_report)
    assert res["nn.functional.softmax"].status == "handled", res["nn.functional.softmax"].detail


# --- function ----------------------------------------------------------------------------------

def _function(cls, inputs):
    ns = argparse.Namespace(target=f"{FIX}:{cls}", inputs=f"{FIX}:{inputs}", seed=0)
    progress = _Progress()
    report = function.run(ns, progress)
    assert progress.stopped
    return report


def _dask_usable():
    return any(i.name == "dask" and i.usable for i in af.backends.available())


@pytest.mark.parametrize("cls,inputs", [("LinearFunction", "linear_inputs"),
                                        ("MulConstant", "mul_inputs")])
def test_seed_functions_pass(cls, inputs):
    report = _function(cls, inputs)
    assert report.ok, [(r.name, r.detail) for r in report.results if not r.ok]
    res = _by_name(report)
    infos = af.backends.available()
    for info in infos:
        expected = "passed" if info.usable else "skipped"
        assert res[f"forward[{info.name}]"].status == expected
    assert res["gradcheck"].status == "passed"
    assert res["gradgradcheck"].status == "passed"
    needs = [r for r in report.results if r.group == "needs_input_grad"]
    assert needs and all(r.status == "passed" for r in needs)
    if _dask_usable():
        assert res["lazy[dask]"].status == "passed"


def test_linear_function_needs_input_grad_per_input():
    res = _by_name(_function("LinearFunction", "linear_inputs"))
    for name in ("input", "weight", "bias"):
        r = res[f"needs_input_grad[{name}]"]
        assert r.status == "passed" and r.detail == ""  # backward skips unneeded gradients


def test_wasteful_backward_is_noted_not_failed():
    res = _by_name(_function("WastefulMul", "pair_inputs"))
    r = res["needs_input_grad[x]"]
    assert r.status == "passed"
    assert "['y']" in r.detail and "not needed" in r.detail


def test_wrong_backward_fails_gradcheck_naming_the_input():
    report = _function("WrongBackwardMul", "pair_inputs")
    assert not report.ok
    r = _by_name(report)["gradcheck"]
    assert r.status == "failed"
    assert "input 1 (y)" in r.detail and "input 0 (x)" not in r.detail
    assert "y=array(shape=(3,), dtype=float64" in r.inputs
    assert r.repro.startswith(f"arrayflow-conformance function {FIX}:WrongBackwardMul "
                              f"--inputs {FIX}:pair_inputs")
    assert _by_name(report)["forward[numpy]"].status == "passed"


@pytest.mark.skipif(not _dask_usable(), reason="dask is not usable here")
@pytest.mark.parametrize("cls", ["ReadsValue", "ItemInForward"])
def test_reading_values_fails_the_lazy_check(cls):
    report = _function(cls, "positive_inputs")
    r = _by_name(report)["lazy[dask]"]
    assert r.status == "failed"
    assert "forward read a value on the lazy backend dask" in r.detail
    assert r.inputs and r.repro
    # the eager results agree: only laziness is wrong
    assert _by_name(report)["forward[dask]"].status == "passed"


def test_once_differentiable_skips_gradgradcheck():
    report = _function("OnceExp", "positive_inputs")
    r = _by_name(report)["gradgradcheck"]
    assert r.status == "skipped"
    assert "once_differentiable" in r.detail
    assert _by_name(report)["gradcheck"].status == "passed"
    assert report.ok


def test_not_a_function_is_a_setup_error():
    ns = argparse.Namespace(target=f"{FIX}:MetadataLike", inputs=f"{FIX}:pair_inputs", seed=0)
    report = function.run(ns, _Progress())
    (r,) = report.results
    assert (r.group, r.status) == ("setup", "error")
    assert "not an arrayflow.autograd.Function" in r.detail


def test_pytest_one_line_for_a_duck_type(tmp_path):
    """``tensor_like_conformance(...)`` in a test module: one test per function; handled
    passes, NotImplemented skips (fails under strict=True), raised fails with the detail."""
    import os
    import subprocess
    import sys

    (tmp_path / "test_duck.py").write_text(
        "from arrayflow_conformance.pytest_plugin import tensor_like_conformance\n"
        "test_scalar = tensor_like_conformance(\n"
        "    'arrayflow.examples.scalar_tensor:ScalarTensor',\n"
        "    factory='arrayflow.examples.scalar_tensor:conformance_instance')\n"
        "test_strict = tensor_like_conformance(\n"
        "    'arrayflow.examples.scalar_tensor:ScalarTensor',\n"
        "    factory='arrayflow.examples.scalar_tensor:conformance_instance', strict=True)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))

    def pytest_run(*k):
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               "test_duck.py", *k], cwd=tmp_path, capture_output=True,
                              text=True, env=env, timeout=300)

    out = pytest_run("-k", "test_scalar and (add or mean or exp)", "-rA")
    assert "PASSED test_duck.py::test_scalar[arrayflow:add]" in out.stdout, out.stdout[-3000:]
    assert "FAILED test_duck.py::test_scalar[arrayflow:mean]" in out.stdout
    assert "SKIPPED" in out.stdout and "exp: not_implemented" in out.stdout
    out = pytest_run("-k", "test_strict and (exp or add)")
    assert out.returncode == 1 and "FAILED test_duck.py::test_strict[arrayflow:exp]" in (
        out.stdout) and "1 passed" in out.stdout, out.stdout[-3000:]
