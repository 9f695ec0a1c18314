"""Running test code in a fresh interpreter (for settings read once at import)."""

from __future__ import annotations

import os
import subprocess
import sys


def run_with_scipy_array_api(code: str, *args: str, timeout: int = 300) -> str:
    """Run ``code`` (``python -c``) with ``SCIPY_ARRAY_API=1`` set before SciPy is imported
    (SciPy reads it once, at import); return its standard output, failing the test with the
    end of its standard error if it exits non-zero."""
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    r = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True,
                       text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr[-4000:]
    return r.stdout
