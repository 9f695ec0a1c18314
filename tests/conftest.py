"""Shared fixtures: the backends every test runs on.

``BACKENDS`` names the backends of the suite. A backend that cannot run here
(CuPy without a GPU) is skipped with the reason ``af.backends.available()``
gives; every other backend must run.
"""

from __future__ import annotations

import contextlib

import pytest

import arrayflow as af
from arrayflow.testing.lazy import forbid_compute  # noqa: F401 - re-exported for the tests

BACKENDS = ["numpy", "strict", "dask", "cupy"]
"""Backends of the suite; a new backend gets every backend-parametrized test by adding its name."""

OPTIONAL_BACKENDS = {"cupy"}
"""Backends that may be unusable on a test machine (they skip instead of failing)."""


def backend_unusable_reason(name: str) -> str | None:
    """Why backend ``name`` cannot run here (from ``af.backends.available()``), or None."""
    for info in af.backends.available():
        if info.name == name:
            return None if info.usable else info.reason
    return f"backend {name!r} is not installed"


def require_backend(name: str) -> None:
    """Skip the test when an optional backend is unusable; fail for a required one."""
    reason = backend_unusable_reason(name)
    if reason is None:
        return
    if name in OPTIONAL_BACKENDS:
        pytest.skip(f"backend {name!r} unavailable: {reason}")
    pytest.fail(f"required backend {name!r} unavailable: {reason}")


def is_lazy(name: str) -> bool:
    """Whether backend ``name`` is lazy (from ``af.backends.available()``)."""
    return any(i.name == name and i.lazy for i in af.backends.available())


@contextlib.contextmanager
def on_backend(name: str, **options):
    """``with on_backend("dask"):`` runs the block under ``af.use_backend(name)``.

    Skips (optional backends) or fails (required ones) when ``name`` is unusable.
    """
    require_backend(name)
    with af.use_backend(name, **options) as b:
        yield b


@pytest.fixture(params=BACKENDS)
def backend(request):
    """The name of a backend of the suite; the test body runs under ``af.use_backend``."""
    with on_backend(request.param):
        yield request.param
