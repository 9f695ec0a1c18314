"""The README's promises: its two commands, CI calling the test one, the example running."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _blocks(lang):
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.S)


def test_readme_opens_with_exactly_two_commands():
    head = README.split("\n```bash\n", 1)
    assert head[0].strip() == "# arrayflow", "the README must open with the commands"
    commands = [ln for ln in _blocks("bash")[0].splitlines() if ln.strip()]
    assert len(commands) == 2
    assert "arrayflow.examples.train" in commands[0]
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command():
    test_command = [ln for ln in _blocks("bash")[0].splitlines() if ln.strip()][1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert test_command in ci.splitlines()


def test_readme_example_runs_and_prints_what_it_says():
    code = _blocks("python")[0]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout.splitlines()
    assert out[0] == "float32 numpy [[1.0, 0.0], [0.0, 1.0]]"
    assert out[1] == "[20000. 20000. 20000.]"
    assert "BackendInfo(name='numpy', usable=True" in out[2]


def test_demo_main_job_agrees_across_backends():
    out = subprocess.run([sys.executable, "-m", "arrayflow.examples.demo", "--backend", "numpy",
                          "--backend", "strict"], capture_output=True, text=True, cwd=ROOT,
                         check=True).stdout.splitlines()
    rows = {ln.split()[0]: ln.split()[1:3] for ln in out[2:4]}
    assert rows["numpy"] == rows["strict"]
    err, rms = map(float, rows["numpy"])
    assert err < 1e-2 and 5e-3 < rms < 2e-2  # noise std is 0.01
