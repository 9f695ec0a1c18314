"""The PyTorch oracle suite runs only where torch is installed (the ``oracle`` extra).

Without torch, every module but ``test_coverage.py`` is left uncollected and that one skips
at import: one line in the report says why and how to run the suite.
"""

from __future__ import annotations

import importlib.util
import pathlib

import pytest
from conftest import on_backend

from . import ORACLE_BACKENDS

REASON = "torch not installed: pip install -e '.[oracle]' to run the PyTorch oracle suite"

try:
    _HAVE_TORCH = importlib.util.find_spec("torch") is not None
except ValueError:  # sys.modules["torch"] is None (blocked)
    _HAVE_TORCH = False

if not _HAVE_TORCH:
    collect_ignore = [p.name for p in pathlib.Path(__file__).parent.glob("test_*.py")
                      if p.name != "test_coverage.py"]


@pytest.fixture(params=ORACLE_BACKENDS)
def backend(request):
    """``tests/conftest.py``'s fixture over :data:`ORACLE_BACKENDS` (usable backends only)."""
    with on_backend(request.param):
        yield request.param
