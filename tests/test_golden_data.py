"""The golden values in ``tests/data/`` are PyTorch's, as ``tests/data/generate.py`` writes
them (to the last bits a CPU may round differently): nobody edited a number by hand, no case
lacks its reference, no reference outlived its case."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

GENERATE = Path(__file__).parent / "data" / "generate.py"


@pytest.mark.skipif(torch.__version__.split("+")[0] != "2.13.0",
                    reason="tests/data holds PyTorch 2.13.0's outputs")
def test_golden_files_are_what_the_generator_writes():
    proc = subprocess.run([sys.executable, str(GENERATE), "--check"], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
