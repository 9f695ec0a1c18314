"""arrayflow's conformance test runner (``arrayflow-conformance``).

Checks a backend plug-in, a duck-typed tensor class or a custom Function
against arrayflow's op registry. This release ships the package skeleton and
the ``backends`` subcommand; the checking subcommands come with the runner.
"""

__all__ = ["main"]

from .__main__ import main
