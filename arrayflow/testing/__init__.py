"""Test machinery for arrayflow and for authors of backends and duck types.

:mod:`arrayflow.testing.cases` holds the op case table: for every public
function in :data:`arrayflow.ops.OPS`, inputs, a NumPy reference, tolerances
per dtype and flags (differentiable, works on lazy backends). The test suite,
the conformance runner and the gradient checks all read it.

The same package holds the rest of the shared machinery, imported by the test
suite and by the conformance runner (``arrayflow-conformance``):
:mod:`arrayflow.testing.grad` (the gradient-checked cases and how to build
them), :mod:`arrayflow.testing.lazy` (``forbid_compute`` for lazy backends) and
:mod:`arrayflow.testing.promotion` (the standard's type promotion table).

Importing this package (or those modules) imports no array library; NumPy is
imported the first time a case is built or evaluated.
"""

from .cases import (
    CASES,
    NON_DIFFERENTIABLE,
    DTypeArg,
    OpCase,
    Raw,
    assert_matches,
    cases_for,
    default_tolerance,
    evaluate,
    missing_ops,
    to_arrayflow,
    to_numpy,
)

__all__ = [
    "CASES", "NON_DIFFERENTIABLE", "DTypeArg", "OpCase", "Raw", "assert_matches", "cases_for",
    "default_tolerance", "evaluate", "missing_ops", "to_arrayflow", "to_numpy",
]
