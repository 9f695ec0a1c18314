"""The backend conformance suite as a pytest module, for the option-only route::

    pytest --pyargs arrayflow_conformance.pytest_suite --arrayflow-backend NAME

Options: ``--arrayflow-full`` (full suite), ``--arrayflow-seed N``. Needs the
plugin (auto-loaded through the ``pytest11`` entry point, or
``-p arrayflow_conformance.pytest_plugin``).
"""

from arrayflow_conformance.pytest_plugin import backend_conformance

test_backend = backend_conformance()
