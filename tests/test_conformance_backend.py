"""``arrayflow-conformance backend``: good backends pass, broken ones fail with a repro.

Broken backends are NumPy-backend subclasses whose namespace lies about one function; they are
registered in a subprocess (so the test session's registry stays clean) and run through
:func:`arrayflow_conformance.main`, like the console script.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import arrayflow as af
from arrayflow_conformance import main
from arrayflow_conformance.results import CheckResult, Report

ROOT = Path(__file__).resolve().parents[1]

BROKEN = '''
import sys
import array_api_compat.numpy as _npx
import arrayflow as af
from arrayflow_numpy import NumpyBackend


class _Namespace:
    """array_api_compat.numpy with some functions replaced."""

    def __init__(self, **replaced):
        self._replaced = replaced

    def __getattr__(self, name):
        return self._replaced.get(name) or getattr(_npx, name)


def _exp_wrong_from_one(x):          # wrong only where x >= 1: Hypothesis has to find it
    return _npx.where(x >= 1, _npx.exp(x) * 1.5, _npx.exp(x))


class BrokenExp(NumpyBackend):
    name = "broken-exp"

    def load_namespace(self):
        return _Namespace(exp=_exp_wrong_from_one)


class BrokenCos(NumpyBackend):       # sin is right, but its VJP (cos) is not
    name = "broken-cos"

    def load_namespace(self):
        return _Namespace(cos=lambda x: _npx.cos(x) + 0.25)


af.backends.register_backend("broken-exp", BrokenExp)
af.backends.register_backend("broken-cos", BrokenCos)
from arrayflow_conformance import main
sys.exit(main(sys.argv[1:]))
'''


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if k != "ARRAYFLOW_BACKEND"}
    return {**env, **extra}


def _run_broken(tmp_path, *args):
    script = tmp_path / "run_broken.py"
    script.write_text(BROKEN)
    return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True,
                          env=_env(), timeout=600)


def _results(path):
    data = json.loads(Path(path).read_text())
    return data, {f"{r['group']}:{r['name']}": r for r in data["results"]}


def test_good_backend_exits_0_and_writes_every_report(tmp_path):
    """numpy --quick passes; JSON, JUnit XML and HTML parse and agree with the run."""
    j, x, h = tmp_path / "r.json", tmp_path / "r.xml", tmp_path / "r.html"
    out = subprocess.run([sys.executable, "-m", "arrayflow_conformance", "backend", "numpy",
                          "--quick", "--no-progress", "--json", str(j), "--junit-xml", str(x),
                          "--html", str(h)], capture_output=True, text=True, env=_env(),
                         timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "OK:" in out.stdout and "forward" in out.stdout
    data, by_id = _results(j)
    assert data["ok"] is True and data["target"] == "numpy" and data["meta"]["quick"] is True
    groups = {r["group"] for r in data["results"]}
    assert {"forward", "promotion", "devices", "dlpack", "gradcheck", "gradgradcheck"} <= groups
    # registry-generated: every op of the registry has a forward check
    from arrayflow.ops import OPS
    from arrayflow.testing import CASES

    case_ops = {c.id: c.op for c in CASES}
    assert {case_ops[r["name"]] for r in data["results"] if r["group"] == "forward"} == set(OPS)
    suite = ET.parse(x).getroot()
    assert int(suite.get("tests")) == len(data["results"])
    assert suite.get("failures") == "0" and suite.get("errors") == "0"
    assert "PASSED" in h.read_text()


def test_broken_function_fails_with_shrunk_input_and_repro(tmp_path):
    """A wrong ``exp`` fails forward:exp-*, names it, shows a shrunk input and a command that
    reproduces the same failure; the other functions still pass."""
    j, x, h = tmp_path / "r.json", tmp_path / "r.xml", tmp_path / "r.html"
    out = _run_broken(tmp_path, "backend", "broken-exp", "--quick", "--no-progress",
                      "--only", "forward:exp-*", "forward:sin-*", "--json", str(j),
                      "--junit-xml", str(x), "--html", str(h))
    assert out.returncode == 1, out.stdout + out.stderr
    data, by_id = _results(j)
    failed = {k for k, r in by_id.items() if r["status"] == "failed"}
    assert failed and all(k.startswith("forward:exp-") for k in failed)
    assert any(r["status"] == "passed" for k, r in by_id.items() if k.startswith("forward:sin"))
    r = by_id[sorted(failed)[0]]
    assert r["inputs"].startswith("exp(array(")
    # shrunk to the threshold where exp goes wrong (the case's own input is not round)
    numbers = {float(v) for v in re.findall(r"-?\d+\.\d*(?:e[-+]?\d+)?", r["inputs"])}
    assert 1.0 in numbers and numbers <= {0.0, 1.0}, r["inputs"]
    assert f"--only {r['group']}:{r['name']}" in r["repro"]
    assert f"FAILED {r['group']}:{r['name']}" in out.stdout and r["repro"] in out.stdout
    # the repro command runs that one check again, with the same smallest input
    argv = shlex.split(r["repro"])
    assert argv[0] == "arrayflow-conformance"
    again = _run_broken(tmp_path, *argv[1:], "--no-progress", "--json", str(tmp_path / "2.json"))
    assert again.returncode == 1
    _, by_id2 = _results(tmp_path / "2.json")
    assert list(by_id2) == [f"{r['group']}:{r['name']}"]
    assert by_id2[f"{r['group']}:{r['name']}"]["inputs"] == r["inputs"]
    # the CI formats carry the failure
    suite = ET.parse(x).getroot()
    fails = [c for c in suite.iter("testcase") if c.find("failure") is not None]
    assert {c.get("name") for c in fails} == {k.split(":", 1)[1] for k in failed}
    assert r["inputs"] in fails[0].find("failure").text
    page = h.read_text()
    assert "FAILED" in page and r["name"] in page and "<script" not in page
    assert "http" not in page.split("<body>")[1]  # self-contained: nothing to fetch


def test_wrong_vjp_fails_gradcheck_and_vjp_but_not_forward(tmp_path):
    """``cos`` off by 0.25 breaks sin's backward: gradcheck and the VJP-vs-NumPy check fail."""
    j = tmp_path / "r.json"
    out = _run_broken(tmp_path, "backend", "broken-cos", "--quick", "--no-progress",
                      "--only", "forward:sin-*", "gradcheck:sin-*", "vjp:sin-*", "--json", str(j))
    assert out.returncode == 1, out.stdout + out.stderr
    _, by_id = _results(j)
    status = {k.split(":")[0]: r["status"] for k, r in by_id.items()}
    assert status == {"forward": "passed", "gradcheck": "failed", "vjp": "failed"}, by_id
    assert "NumPy" in by_id[next(k for k in by_id if k.startswith("vjp:"))]["detail"]


def test_lazy_backend_that_computes_fails_laziness(tmp_path):
    """A Dask backend whose ``exp`` computes its input fails forward:exp (forbid_compute)."""
    script = tmp_path / "computing.py"
    script.write_text(textwrap.dedent('''
        import sys
        import array_api_compat.dask.array as _dax
        import dask.array as da
        import arrayflow as af
        from arrayflow_dask import DaskBackend

        class _Namespace:
            def __getattr__(self, name):
                if name == "exp":
                    return lambda x: da.from_array(_dax.exp(x).compute())
                return getattr(_dax, name)

        class ComputingDask(DaskBackend):
            name = "computing-dask"

            def load_namespace(self):
                return _Namespace()

        af.backends.register_backend("computing-dask", ComputingDask)
        from arrayflow_conformance import main
        sys.exit(main(sys.argv[1:]))
    '''))
    j = tmp_path / "r.json"
    out = subprocess.run([sys.executable, str(script), "backend", "computing-dask", "--quick",
                          "--no-progress", "--only", "forward:exp-float32", "forward:sin-*",
                          "laziness:*", "--json", str(j)],
                         capture_output=True, text=True, env=_env(), timeout=600)
    assert out.returncode == 1, out.stdout + out.stderr
    _, by_id = _results(j)
    assert by_id["forward:exp-float32"]["status"] == "failed"
    assert "computed" in by_id["forward:exp-float32"]["detail"]
    assert all(r["status"] == "passed" for k, r in by_id.items() if k != "forward:exp-float32")


def test_lazy_backend_not_lazy_cases_are_held_to_their_declaration(tmp_path):
    """Cases marked not lazy do not pass by returning early on an exception: a wrong
    data-dependent result (``nonzero`` off by one) and an undeclared refusal
    (``unique_values`` raising ``NotImplementedError``) fail; the declared refusal
    (``from_dlpack``: ``lazy_raises``) is reported as skipped with its reason; a case that
    computes by design (``allclose``) is compared with the reference and passes."""
    script = tmp_path / "not_lazy.py"
    script.write_text(textwrap.dedent('''
        import sys
        import array_api_compat.dask.array as _dax
        import arrayflow as af
        from arrayflow_dask import DaskBackend

        def _refuse(x):
            raise NotImplementedError("unique_values is not implemented here")

        class _Namespace:
            def __getattr__(self, name):
                if name == "nonzero":
                    return lambda x: tuple(i + 1 for i in _dax.nonzero(x))
                if name == "unique_values":
                    return _refuse
                return getattr(_dax, name)

        class WrongDask(DaskBackend):
            name = "wrong-dask"

            def load_namespace(self):
                return _Namespace()

        af.backends.register_backend("wrong-dask", WrongDask)
        from arrayflow_conformance import main
        sys.exit(main(sys.argv[1:]))
    '''))
    j = tmp_path / "r.json"
    only = ["forward:nonzero-2d", "forward:unique_values-int32", "forward:from_dlpack-tensor",
            "forward:allclose-near"]
    # not --quick: that keeps the first case of each op only (from_dlpack's is lazy)
    out = subprocess.run([sys.executable, str(script), "backend", "wrong-dask",
                          "--no-progress", "--only", *only, "--json", str(j)],
                         capture_output=True, text=True, env=_env(), timeout=600)
    assert out.returncode == 1, out.stdout + out.stderr
    _, by_id = _results(j)
    status = {k: r["status"] for k, r in by_id.items()}
    assert status == {"forward:nonzero-2d": "failed", "forward:unique_values-int32": "failed",
                      "forward:from_dlpack-tensor": "skipped",
                      "forward:allclose-near": "passed"}, by_id
    assert "NotImplementedError" in by_id["forward:unique_values-int32"]["detail"]
    assert "__dlpack__" in by_id["forward:from_dlpack-tensor"]["detail"]


def test_unknown_backend_lists_installed_ones(capsys):
    assert main(["backend", "no-such-backend"]) == 2
    err = capsys.readouterr().err
    assert "NAME" in err and "'no-such-backend'" in err and "numpy" in err and "strict" in err


def test_unusable_backend_is_one_line_exit_2():
    info = {i.name: i for i in af.backends.available()}
    if "cupy" not in info or info["cupy"].usable:
        pytest.skip("needs an installed but unusable backend (CuPy without a GPU)")
    out = subprocess.run([sys.executable, "-m", "arrayflow_conformance", "backend", "cupy"],
                         capture_output=True, text=True, env=_env(), timeout=120)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert "cupy" in out.stderr and info["cupy"].reason in out.stderr


def test_bad_arguments_name_the_argument(capsys):
    with pytest.raises(SystemExit) as e:
        main(["backend", "numpy", "--dtypes", "float31"])
    assert e.value.code == 2 and "--dtypes" in capsys.readouterr().err
    assert main(["backend", "numpy", "--only", "forward:no-such-op*"]) == 2
    assert "--only" in capsys.readouterr().err


def test_list_and_seeded_runs_are_reproducible(tmp_path, capsys):
    assert main(["backend", "strict", "--quick", "--list", "--only", "dlpack:*"]) == 0
    ids = capsys.readouterr().out.split()
    assert ids == ["dlpack:from_dlpack-numpy", "dlpack:numpy.from_dlpack",
                   "dlpack:to-numpy-and-back"]
    assert main(["backend", "strict", "--quick", "--dtypes", "float64", "--list"]) == 0
    listed = capsys.readouterr().out.split()
    assert "forward:exp-float64" in listed and "forward:exp-float32" not in listed


def test_quick_runs_leave_the_special_functions_gradgradcheck_to_numpy(capsys):
    # each gradgradcheck of an element-wise special function runs its thousands of array
    # operations hundreds of times (strict --quick: 250 s, 160 of them there): in --quick
    # they run on the NumPy backend only, one skip stands for them elsewhere
    def ids(*argv):
        assert main(["backend", *argv, "--dtypes", "float64", "--list",
                     "--only", "gradgradcheck:*"]) == 0
        return capsys.readouterr().out.split()

    strict_quick, numpy_quick = ids("strict", "--quick"), ids("numpy", "--quick")
    strict_full = ids("strict")
    from arrayflow.ops._registry import OPS

    blockwise = {n for n, o in OPS.items() if o.blockwise}
    assert len(blockwise) > 80
    assert "gradgradcheck:special-functions-in-full-run" in strict_quick
    assert not [i for i in strict_quick if i.split(":")[1].rsplit("-", 1)[0] in blockwise]
    # the other ops stay, the special reductions among them
    assert {"gradgradcheck:exp-float64", "gradgradcheck:special.logsumexp-all-axes"} <= set(
        strict_quick)
    for listed in (numpy_quick, strict_full):
        assert "gradgradcheck:special.gammaincinv-float64" in listed
        assert "gradgradcheck:special-functions-in-full-run" not in listed


def test_missing_suite_is_a_clear_error(monkeypatch, capsys):
    import arrayflow_conformance.__main__ as cli

    monkeypatch.setitem(cli._SUITES, "function", "no_such_suite_module")
    assert main(["function", "a:B", "--inputs", "c:d"]) == 2
    assert "'function' suite is not available" in capsys.readouterr().err


def test_reporters_read_only_the_report(tmp_path):
    """A hand-made Report (any suite) goes through every reporter."""
    from arrayflow_conformance.reporters import format_summary, write_html, write_json, write_junit

    rep = Report("tensor-like", "pkg:Duck", [
        CheckResult("tensor-like", "arrayflow", "exp", "handled"),
        CheckResult("tensor-like", "arrayflow", "sin", "raised", detail="boom"),
        CheckResult("tensor-like", "arrayflow.linalg", "linalg.det", "failed", detail="bad <x>",
                    inputs="det(array([1.]))", repro="arrayflow-conformance tensor-like x"),
    ])
    text = format_summary(rep)
    assert "FAILED tensor-like" not in text and "FAILED arrayflow:linalg.det" not in text
    assert "linalg.det" in text and "det(array([1.]))" in text and text.endswith(
        "1 handled, 1 raised, 1 failed")
    write_json(rep, tmp_path / "r.json")
    assert json.loads((tmp_path / "r.json").read_text())["counts"]["failed"] == 1
    write_junit(rep, tmp_path / "r.xml")
    root = ET.parse(tmp_path / "r.xml").getroot()
    assert root.get("failures") == "1" and root.get("tests") == "3"
    write_html(rep, tmp_path / "r.html")
    page = (tmp_path / "r.html").read_text()
    assert "bad &lt;x&gt;" in page and "det(array([1.]))" in page


def _docs_backend() -> str:
    text = (ROOT / "docs" / "conformance.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    code = [b for b in blocks if b.startswith("# my_numpy_backend.py")]
    assert len(code) == 1, "docs/conformance.md: the example backend block is missing"
    return code[0]


def test_docs_example_backend_passes_through_its_entry_point(tmp_path):
    """The backend of docs/conformance.md, installed as a distribution with an entry point."""
    code = _docs_backend()
    assert 25 <= len(code.splitlines()) <= 60
    (tmp_path / "my_numpy_backend.py").write_text(code)
    dist = tmp_path / "my_numpy_backend-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: my-numpy-backend\n"
                                   "Version: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[arrayflow.backends]\nmynumpy = my_numpy_backend:MyNumpyBackend\n")
    env = _env(PYTHONPATH=os.pathsep.join([str(tmp_path), *sys.path]))
    j = tmp_path / "r.json"
    listed = subprocess.run([sys.executable, "-m", "arrayflow_conformance", "backends"],
                            capture_output=True, text=True, env=env, timeout=120)
    assert re.search(r"^mynumpy\s+eager\s+usable$", listed.stdout, flags=re.M), listed.stdout
    out = subprocess.run([sys.executable, "-m", "arrayflow_conformance", "backend", "mynumpy",
                          "--quick", "--no-progress", "--json", str(j)],
                         capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    data, _ = _results(j)
    assert data["target"] == "mynumpy" and data["counts"]["passed"] > 400


def test_pytest_plugin_one_line_parametrizes_and_reports(tmp_path):
    """``backend_conformance(NAME)`` in a test module: one test per check; failures carry the
    input and the repro command. The option-only route works too."""
    (tmp_path / "broken_backend.py").write_text(BROKEN.split("af.backends.register_backend")[0])
    (tmp_path / "conftest.py").write_text(
        "import arrayflow as af\nfrom broken_backend import BrokenExp\n"
        "af.backends.register_backend('broken-exp', BrokenExp)\n")
    (tmp_path / "test_mine.py").write_text(
        "from arrayflow_conformance.pytest_plugin import backend_conformance\n"
        "test_conformance = backend_conformance('broken-exp')\n")
    env = _env(PYTHONPATH=os.pathsep.join([str(tmp_path), *sys.path]))
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "test_mine.py", "-k", "forward and (exp or sin)"],
                         cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 1, out.stdout[-3000:]
    assert re.search(r"FAILED test_mine.py::test_conformance\[broken-exp-forward:exp-float32\]",
                     out.stdout), out.stdout[-3000:]
    assert "reproduce: arrayflow-conformance backend broken-exp" in out.stdout
    assert re.search(r"\d+ passed", out.stdout)
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "--pyargs", "arrayflow_conformance.pytest_suite",
                          "--arrayflow-backend", "strict", "-k", "dlpack or promotion"],
                         cwd=tmp_path, capture_output=True, text=True, env=_env(), timeout=600)
    assert out.returncode == 0, out.stdout[-3000:]
    assert re.search(r"(\d+) passed", out.stdout) and int(
        re.search(r"(\d+) passed", out.stdout).group(1)) >= 80
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "--pyargs", "arrayflow_conformance.pytest_suite"],
                         cwd=tmp_path, capture_output=True, text=True, env=_env(), timeout=600)
    assert out.returncode == 0 and "1 skipped" in out.stdout, out.stdout[-2000:]


def test_plugin_is_inert_when_not_asked_for():
    """Auto-loaded via pytest11, the plugin imports no array library and collects nothing."""
    code = ("import sys, arrayflow_conformance.pytest_plugin\n"
            "bad = [m for m in ('numpy', 'hypothesis', 'arrayflow') if m in sys.modules]\n"
            "assert not bad, bad\n")
    subprocess.run([sys.executable, "-c", code], check=True, env=_env())
    # pytest finds it through the installed distribution's entry points (run away from the
    # checkout, whose stale *.egg-info could shadow the installed metadata)
    code = ("from importlib import metadata\n"
            "print({e.name: e.value for e in metadata.entry_points(group='pytest11')}"
            ".get('arrayflow_conformance'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=_env(), cwd=tempfile.gettempdir(), check=True)
    assert out.stdout.strip() == "arrayflow_conformance.pytest_plugin"


def test_shared_testing_modules_import_no_array_library():
    code = ("import sys, arrayflow.testing.grad, arrayflow.testing.lazy, "
            "arrayflow.testing.promotion\n"
            "bad = [m for m in ('numpy', 'dask', 'array_api_strict') if m in sys.modules]\n"
            "assert not bad, bad\n")
    subprocess.run([sys.executable, "-c", code], check=True, env=_env())


def test_progress_contract_plain_lines_when_not_a_terminal():
    import io

    from arrayflow_conformance.progress import Progress

    stream = io.StringIO()  # not a terminal: plain lines, every 10 %
    p = Progress(stream)
    p.start(20, "backend x")
    for _ in range(20):
        p.advance()
    p.stop()
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("backend x: 0/20") and lines[-1].startswith("backend x: 20/20")
    assert 5 <= len(lines) <= 12 and "\r" not in stream.getvalue()


@pytest.mark.parametrize(("argv", "code"), [
    (["function", "conformance_fixtures:MulConstant", "--inputs",
      "conformance_fixtures:mul_inputs"], 0),
    (["function", "conformance_fixtures:WrongBackwardMul", "--inputs",
      "conformance_fixtures:pair_inputs"], 1),
    (["tensor-like", "conformance_fixtures:Faithful", "--fail-under", "50"], 0),
])
def test_other_suites_run_through_the_same_command_line(tmp_path, argv, code):
    """``tensor-like`` and ``function`` share the options, reporters and exit status."""
    j = tmp_path / "r.json"
    assert main([*argv, "--no-progress", "--json", str(j)]) == code
    data = json.loads(j.read_text())
    assert data["suite"] == argv[0] and data["ok"] is (code == 0)
