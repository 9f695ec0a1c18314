"""arrayflow's conformance test runner (``arrayflow-conformance``).

Checks a backend plug-in, a duck-typed tensor class or a custom Function
against arrayflow's op registry, reusing the test machinery of
:mod:`arrayflow.testing`. Subcommands: ``backends`` (list what is installed),
``backend NAME``, ``tensor-like MODULE:CLASS`` and ``function MODULE:CLASS``;
see ``docs/conformance.md``. The pytest plugin is
:mod:`arrayflow_conformance.pytest_plugin`.
"""

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Run the command line (see :func:`arrayflow_conformance.__main__.main`)."""
    from .__main__ import main as _main

    return _main(argv)
