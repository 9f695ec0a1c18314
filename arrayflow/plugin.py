"""The public plug-in API for backend authors.

``from arrayflow.plugin import Backend``, subclass it, and declare the class in
the ``arrayflow.backends`` entry-point group. See ``docs/backends.md``.
"""

from ._backend import (
    Backend,
    BackendInfo,
    BackendMismatchError,
    BackendUnavailableError,
    DataDependentShapeError,
    compute_allowed,
    data_dependent_error,
    host_backend,
    register_backend,
)

__all__ = [
    "Backend",
    "BackendInfo",
    "BackendMismatchError",
    "BackendUnavailableError",
    "DataDependentShapeError",
    "compute_allowed",
    "data_dependent_error",
    "host_backend",
    "register_backend",
]
