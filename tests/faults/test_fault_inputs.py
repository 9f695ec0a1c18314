"""Bad input to the tools and the API: one clear line and nothing lost.

Modes entered twice, report paths that cannot be written, checkpoint file modes and the
stale temporary files of killed saves.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import arrayflow as af
from arrayflow import _serialize
from arrayflow.ops._registry import _dispatch_state
from arrayflow.overrides import ArrayflowFunctionMode

torch = pytest.importorskip("torch")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# --- modes ------------------------------------------------------------------------------------

def test_same_mode_instance_nested_as_pytorch():
    """torch 2.13's TorchFunctionMode pushes on every entry: nested, the handler runs
    twice per call; leaving pops one entry each time; none stays active."""
    from torch.overrides import TorchFunctionMode, _get_current_function_mode_stack

    seen_t, seen_a = [], []

    class TM(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen_t.append(func.__name__)
            return func(*args, **(kwargs or {}))

    class AM(ArrayflowFunctionMode):
        def __arrayflow_function__(self, func, types, args=(), kwargs=None):
            seen_a.append(func.__name__)
            return func(*args, **(kwargs or {}))

    tm, am = TM(), AM()
    depth_t, depth_a = [], []
    with tm, am:
        depth_t.append(len(_get_current_function_mode_stack()))
        depth_a.append(len(_dispatch_state.get().modes))
        with tm, am:
            depth_t.append(len(_get_current_function_mode_stack()))
            depth_a.append(len(_dispatch_state.get().modes))
            torch.add(torch.ones(2), 1)
            af.add(af.ones(2), 1)
        depth_t.append(len(_get_current_function_mode_stack()))
        depth_a.append(len(_dispatch_state.get().modes))
    depth_t.append(len(_get_current_function_mode_stack()))
    depth_a.append(len(_dispatch_state.get().modes) if _dispatch_state.get() else 0)
    assert depth_a == depth_t == [1, 2, 1, 0]
    assert seen_a == seen_t == ["ones", "ones", "add", "add"]
    assert _dispatch_state.get() is None  # exactly the state before: dispatch's fast path
    seen_a.clear()
    af.add(af.ones(2), 1)
    assert seen_a == []


def test_mode_exit_on_error_and_exit_without_enter():
    class AM(ArrayflowFunctionMode):
        pass

    m = AM()
    with pytest.raises(ZeroDivisionError):
        with m:
            with m:
                raise ZeroDivisionError
    assert _dispatch_state.get() is None
    with pytest.raises(RuntimeError, match="not active"):
        m.__exit__(None, None, None)


# --- conformance report paths -----------------------------------------------------------------

@pytest.mark.parametrize("flag,path,why", [
    ("--json", "{tmp}/missing-dir/r.json", "does not exist"),
    ("--junit-xml", "{tmp}", "is a directory"),
    ("--html", "{tmp}/file.txt/r.html", "does not exist"),
    ("--json", "/proc/arrayflow-report.json", "cannot write"),
])
def test_conformance_unwritable_report_fails_at_once(tmp_path, flag, path, why):
    (tmp_path / "file.txt").write_text("x")
    path = path.format(tmp=tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "arrayflow_conformance", "backend", "numpy", "--quick",
         "--no-progress", flag, path], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 2
    assert proc.stdout == ""  # nothing ran
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f"argument {flag}" in proc.stderr and why in proc.stderr


def test_conformance_existing_report_is_not_touched_by_the_check(tmp_path):
    from arrayflow_conformance.__main__ import _check_output_paths, build_parser

    j = tmp_path / "r.json"
    j.write_text("old")
    args = build_parser().parse_args(["backend", "numpy", "--json", str(j),
                                      "--html", str(tmp_path / "new.html")])
    assert _check_output_paths(args) is None
    assert j.read_text() == "old"
    assert not (tmp_path / "new.html").exists()


# --- file modes and stale temporary files ------------------------------------------------------

def _mode(p):
    return os.stat(p).st_mode & 0o777


def test_checkpoint_mode_follows_umask_and_is_kept_on_overwrite(tmp_path):
    old = os.umask(0o022)
    try:
        af.save({"a": 1}, tmp_path / "new")
        assert _mode(tmp_path / "new") == 0o644  # today's main: 0600 (mkstemp)
        os.umask(0o027)
        af.save({"a": 2}, tmp_path / "new2")
        assert _mode(tmp_path / "new2") == 0o640
        os.chmod(tmp_path / "new", 0o604)
        af.save({"a": 3}, tmp_path / "new")
        assert _mode(tmp_path / "new") == 0o604
        assert af.load(tmp_path / "new") == {"a": 3}
    finally:
        os.umask(old)


def test_stale_temp_of_killed_save_is_ignored_then_removed(tmp_path):
    path = tmp_path / "ck.safetensors"
    af.save({"w": af.asarray([1.0])}, path)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    stale = tmp_path / f".ck.safetensors.{dead}-0123456789abcdef.tmp"
    stale.write_bytes(b"half a checkpoint")
    other = tmp_path / f".other.{dead}-0123456789abcdef.tmp"  # another file's: kept
    other.write_bytes(b"x")
    alive = tmp_path / f".ck.safetensors.{os.getpid()}-fedcba9876543210.tmp"
    alive.write_bytes(b"a save in progress")  # a live process's: kept
    assert af.load(path)["w"].tolist() == [1.0]
    af.save({"w": af.asarray([2.0])}, path)
    assert sorted(os.listdir(tmp_path)) == sorted([path.name, other.name, alive.name])
    assert af.load(path)["w"].tolist() == [2.0]
    assert _serialize.remove_stale_temps(str(path), any_name=True) == [str(other)]
