"""Gradient recording modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``.

Context-local (a ``ContextVar``): a thread or asyncio task that switches grad
mode does not affect another, as in PyTorch where grad mode is thread-local.
Each is usable as a context manager and as a decorator (``@af.no_grad()`` or
``@af.no_grad``).
"""

from __future__ import annotations

import contextvars
import functools
import inspect
from collections.abc import Callable
from typing import Any, Literal

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"]

_enabled: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "arrayflow_grad_enabled", default=True)
is_grad_enabled_fast = _enabled.get


def is_grad_enabled() -> bool:
    """Whether operations on Tensors that require grad are recorded here.

    Returns
    -------
    bool
        The grad mode of this thread or async task (``contextvars``); True by default.
    """
    return _enabled.get()


class _GradMode:
    mode: bool = True
    _tokens: list[contextvars.Token[bool]]

    def __new__(cls, func: Callable | None = None) -> Any:
        self = super().__new__(cls)
        self._tokens = []
        if func is not None and callable(func):  # used as @no_grad without parentheses
            return self(func)
        return self

    def __enter__(self) -> _GradMode:
        self._tokens.append(_enabled.set(self.mode))
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        _enabled.reset(self._tokens.pop())
        return False

    def __call__(self, func: Callable) -> Callable:
        mode = self.mode
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen_wrapper(*args, **kwargs):
                gen = func(*args, **kwargs)
                token = _enabled.set(mode)
                try:
                    value = next(gen)
                except StopIteration as stop:
                    return stop.value
                finally:
                    _enabled.reset(token)
                while True:
                    sent = yield value
                    token = _enabled.set(mode)
                    try:
                        value = gen.send(sent)
                    except StopIteration as stop:
                        return stop.value
                    finally:
                        _enabled.reset(token)
            return gen_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            token = _enabled.set(mode)
            try:
                return func(*args, **kwargs)
            finally:
                _enabled.reset(token)
        return wrapper


class no_grad(_GradMode):  # noqa: N801 - PyTorch's name
    """Disable gradient recording (context manager or decorator); ``torch.no_grad``.

    Parameters
    ----------
    func : callable, optional
        ``@no_grad`` without parentheses: the function to wrap (its calls, and a generator's
        steps, run with recording off).
    """

    mode = False


class enable_grad(_GradMode):  # noqa: N801 - PyTorch's name
    """Enable gradient recording inside a ``no_grad`` region; ``torch.enable_grad``.

    Parameters
    ----------
    func : callable, optional
        ``@enable_grad`` without parentheses: the function to wrap.
    """

    mode = True


class set_grad_enabled(_GradMode):  # noqa: N801 - PyTorch's name
    """Set grad mode to ``mode``: at once when called, restored on ``with`` exit.

    ``af.set_grad_enabled(False)`` switches recording off for this thread/task;
    ``with af.set_grad_enabled(False): ...`` restores the previous mode after.
    Matches ``torch.set_grad_enabled``.

    Parameters
    ----------
    mode : bool
        True records operations, False does not.

    Raises
    ------
    TypeError
        If ``mode`` is not a bool.
    """

    def __new__(cls, mode: bool) -> set_grad_enabled:
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled: argument 'mode' must be a bool, got {mode!r}")
        self = object.__new__(cls)
        self.mode = mode
        self._tokens = [_enabled.set(mode)]
        return self

    def __enter__(self) -> _GradMode:
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        if self._tokens:
            _enabled.reset(self._tokens.pop())
        return False

    def __call__(self, func: Callable) -> Callable:
        # As a decorator the mode applies inside ``func`` only: undo the switch.
        if self._tokens:
            _enabled.reset(self._tokens.pop())
        return super().__call__(func)
