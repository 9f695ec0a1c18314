"""``arrayflow.backends``: which backends are installed and usable here.

``af.backends.available()`` lists every installed backend with whether it can
run on this machine and, if not, why (CuPy: ``"no CUDA device"``).
"""

from ._backend import (
    Backend,
    BackendInfo,
    BackendMismatchError,
    BackendUnavailableError,
    available,
    get_backend,
    host_backend,
    names,
    register_backend,
    set_backend,
    use_backend,
)

__all__ = [
    "Backend", "BackendInfo", "BackendMismatchError", "BackendUnavailableError", "available",
    "get_backend", "host_backend", "names", "register_backend", "set_backend", "use_backend",
]
