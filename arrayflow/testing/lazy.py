"""Laziness checks for lazy backends (Dask): nothing may compute inside a block.

:func:`forbid_compute` is what the test suite and the conformance runner wrap
around forward and backward passes on lazy backends: any computation inside
the block raises :class:`AssertionError`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import arrayflow as af

__all__ = ["forbid_compute"]

_HOOKS = ("compute", "materialize", "to_host")


def _refuse_to_compute(*args, **kwargs):
    raise AssertionError("a lazy backend computed during a call that must stay lazy")


def _backend(backend):

    if isinstance(backend, af.backends.Backend):
        return backend
    with af.use_backend(backend) as b:
        return b


@contextlib.contextmanager
def forbid_compute(backend: str | Any) -> Iterator[None]:
    """Fail if a lazy backend computes inside the block; a no-op on eager backends.

    Parameters
    ----------
    backend : str or arrayflow.plugin.Backend
        The backend (name or instance) the block runs on.

    Notes
    -----
    Two traps are set: the backend instance's ``compute``, ``materialize`` and
    ``to_host`` hooks raise, and for Dask-based backends (``array_module == "dask"``) the
    Dask scheduler is replaced by one that raises.
    """
    b = _backend(backend)
    if not b.lazy:
        yield
        return
    with contextlib.ExitStack() as stack:
        if str(getattr(b, "array_module", "")).split(".")[0] == "dask":
            import dask

            stack.enter_context(dask.config.set(scheduler=_refuse_to_compute))
        saved = {k: b.__dict__[k] for k in _HOOKS if k in b.__dict__}
        for k in _HOOKS:
            setattr(b, k, _refuse_to_compute)
        try:
            yield
        finally:
            for k in _HOOKS:
                if k in saved:
                    setattr(b, k, saved[k])
                else:
                    b.__dict__.pop(k, None)
