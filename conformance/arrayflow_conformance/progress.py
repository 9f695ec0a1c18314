"""Progress display of a running suite.

The contract every suite (``backend``, ``tensor-like``, ``function``) relies on:
``run(args, progress)`` receives an object with three methods,

``progress.start(total: int, description: str)``
    called once, before the first check, with the number of checks;
``progress.advance(n: int = 1)``
    called after each check (or each ``n`` checks);
``progress.stop()``
    called once at the end (also when the suite raises), closes the display.

:class:`Progress` draws a ``tqdm`` bar on standard error when that is a
terminal and tqdm is installed (``pip install 'arrayflow[conformance]'``), else
prints a plain line every 10 % (CI logs). :class:`NullProgress` draws nothing
(``--no-progress``, the pytest plugin).
"""

from __future__ import annotations

import sys
import time

__all__ = ["NullProgress", "Progress"]


class NullProgress:
    """A progress object that shows nothing."""

    def start(self, total: int, description: str) -> None:
        """Begin a run of ``total`` checks."""

    def advance(self, n: int = 1) -> None:
        """``n`` more checks are done."""

    def stop(self) -> None:
        """The run is over."""


class Progress(NullProgress):
    """A progress bar on standard error (tqdm if installed, else plain lines).

    Parameters
    ----------
    stream : file, optional
        Where to draw (default ``sys.stderr``).
    """

    def __init__(self, stream=None):
        self.stream = stream if stream is not None else sys.stderr
        self._bar = None
        self._total = 0
        self._done = 0
        self._next_line = 0
        self._t0 = 0.0
        self._description = ""

    def start(self, total: int, description: str) -> None:
        self._total, self._done, self._description = int(total), 0, description
        self._t0 = time.perf_counter()
        try:
            if not self.stream.isatty():
                raise ImportError  # logs (CI): plain lines, no carriage returns
            from tqdm import tqdm
        except ImportError:
            self._bar = None
            self._next_line = 0
            self._line()
            return
        self._bar = tqdm(total=self._total, desc=description, unit="check", file=self.stream,
                         mininterval=0.5, leave=False)

    def advance(self, n: int = 1) -> None:
        self._done += n
        if self._bar is not None:
            self._bar.update(n)
        elif self._done >= self._next_line:
            self._line()

    def _line(self) -> None:
        elapsed = time.perf_counter() - self._t0
        print(f"{self._description}: {self._done}/{self._total} checks ({elapsed:.0f} s)",
              file=self.stream, flush=True)
        self._next_line = self._done + max(1, self._total // 10)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
