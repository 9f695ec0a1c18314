"""The PyTorch oracle suite (``conftest.py`` says when it runs).

:data:`ORACLE_BACKENDS` are the suite's backends (``tests/conftest.py``) minus the optional
ones that cannot run here (CuPy without a GPU): thousands of parametrized cases would only
skip one by one; ``test_coverage.py`` says once which backends are left out and why.
"""

from conftest import BACKENDS, OPTIONAL_BACKENDS, backend_unusable_reason

ORACLE_BACKENDS = [b for b in BACKENDS
                   if b not in OPTIONAL_BACKENDS or backend_unusable_reason(b) is None]
