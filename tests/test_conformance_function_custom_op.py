"""``arrayflow-conformance function NS::NAME --import MODULE --inputs MODULE:FUNC``:
custom ops checked by ``af.library.opcheck``, one CheckResult per check and backend."""

from __future__ import annotations

import json

import pytest

import arrayflow as af
from arrayflow_conformance.__main__ import main
from arrayflow_conformance.function import CUSTOM_OP_CHECKS

EXAMPLE = ["function", "examples::gelu_tanh", "--import", "arrayflow.examples.kernels",
           "--inputs", "arrayflow.examples.kernels:gelu_tanh_inputs", "--no-progress"]


def _run(tmp_path, argv):
    j = tmp_path / "r.json"
    code = main([*argv, "--json", str(j)])
    data = json.loads(j.read_text()) if j.exists() else None
    return code, data


def _by_name(data):
    return {r["name"]: r for r in data["results"]}


def test_the_example_op_passes(tmp_path):
    code, data = _run(tmp_path, EXAMPLE)
    from arrayflow.examples import kernels as K  # imported by the run (not at collection)

    assert code == 0 and data["ok"] and data["suite"] == "function"
    res = _by_name(data)
    infos = af.backends.available()
    assert len(res) == len(CUSTOM_OP_CHECKS) * len(infos)
    for info in infos:
        for check in CUSTOM_OP_CHECKS:
            r = res[f"{check}[{info.name}]"]
            assert r["group"] == check
            if not info.usable:
                assert r["status"] == "skipped" and info.reason in r["detail"]
    for b in ("numpy", "strict", "dask"):
        for check in ("schema", "call", "mutates_args", "fake", "autograd"):
            assert res[f"{check}[{b}]"]["status"] == "passed"
    assert res["kernel_vs_default[strict]"]["status"] == "skipped"
    assert "default kernel runs here" in res["kernel_vs_default[strict]"]["detail"]
    if K.NUMBA_KERNELS:  # the Numba kernel, and block-wise on Dask, against the default
        assert res["kernel_vs_default[numpy]"]["status"] == "passed"
        assert res["kernel_vs_default[dask]"]["status"] == "passed"


def test_the_backward_op_passes(tmp_path):
    code, data = _run(tmp_path, ["function", "examples::gelu_tanh_backward", "--import",
                                 "arrayflow.examples.kernels", "--inputs",
                                 "arrayflow.examples.kernels:gelu_tanh_backward_inputs",
                                 "--no-progress"])
    assert code == 0, [r for r in data["results"] if r["status"] == "failed"]
    assert "g=array(shape=(3, 4)" in data["meta"]["inputs_description"]


def test_a_wrong_fake_rule_fails_with_exit_code_1(tmp_path):
    code, data = _run(tmp_path, ["function", "brokenlib::gelu_tanh_wrong_fake", "--import",
                                 "custom_op_fixtures", "--inputs",
                                 "arrayflow.examples.kernels:gelu_tanh_inputs", "--no-progress"])
    assert code == 1 and not data["ok"]
    res = _by_name(data)
    for b in ("numpy", "strict", "dask"):
        r = res[f"call[{b}]"]
        assert r["status"] == "failed", r
        assert "fake rule says" in r["detail"] and "float32" in r["detail"]
        assert r["detail"].startswith(f"on {b}: ")
        assert "--import custom_op_fixtures" in r["repro"]
        assert "x=array(shape=(3, 4), dtype=float64" in r["inputs"]
        # the checks after a failed call did not run: skipped, not passed
        assert res[f"fake[{b}]"]["status"] == "skipped"


def test_a_wrong_backward_fails_autograd(tmp_path):
    code, data = _run(tmp_path, ["function", "brokenlib::gelu_tanh_wrong_backward", "--import",
                                 "custom_op_fixtures", "--inputs",
                                 "arrayflow.examples.kernels:gelu_tanh_inputs", "--no-progress"])
    assert code == 1
    res = _by_name(data)
    for b in ("numpy", "strict", "dask"):
        assert res[f"autograd[{b}]"]["status"] == "failed"
        assert res[f"call[{b}]"]["status"] == "passed"


@pytest.mark.parametrize(("argv", "message"), [
    (["function", "nolib::nothing", "--inputs", "arrayflow.examples.kernels:gelu_tanh_inputs"],
     "no custom op 'nolib::nothing' is registered; give the module that registers it with "
     "--import MODULE"),
    (["function", "examples::gelu_tanh", "--import", "no_such_module_xyz", "--inputs",
      "arrayflow.examples.kernels:gelu_tanh_inputs"], "No module named 'no_such_module_xyz'"),
    (["function", "examples::gelu_tanh", "--import", "arrayflow.examples.kernels", "--inputs",
      "arrayflow.examples.kernels:no_such_inputs"], "no_such_inputs"),
])
def test_a_target_that_cannot_load_exits_2(argv, message, capsys):
    assert main([*argv, "--no-progress"]) == 2
    assert message in capsys.readouterr().err


def test_function_classes_still_run(tmp_path):
    code, data = _run(tmp_path, ["function", "conformance_fixtures:MulConstant", "--inputs",
                                 "conformance_fixtures:mul_inputs", "--no-progress"])
    assert code == 0 and "forward[numpy]" in _by_name(data)
