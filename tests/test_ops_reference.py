"""Every op against its NumPy reference, on every backend (cases from ``arrayflow.testing``).

The case table lives in :mod:`arrayflow.testing.cases`; this file only turns it
into tests: one per case and backend, plus checks that the table covers every
op in ``arrayflow.ops.OPS`` and agrees with the registry's flags.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import BACKENDS, forbid_compute, is_lazy, on_backend

import arrayflow as af
from arrayflow.ops import OPS
from arrayflow.testing import CASES, assert_matches, cases_for, evaluate, missing_ops
from arrayflow.testing.cases import _NOT_LAZY_SHAPE

PAIRS = [
    pytest.param(case, name, id=f"{case.id}-{name}")
    for case in CASES
    for name in BACKENDS
    if case.lazy or not is_lazy(name)
]


def _outputs(result):
    from arrayflow.testing.cases import tensors_in

    return tensors_in(result)


@pytest.mark.parametrize(("case", "backend_name"), PAIRS)
def test_forward_matches_numpy(case, backend_name):
    """Result equals NumPy's: dtype name, shape and values within the case's tolerance."""
    with on_backend(backend_name) as b:
        with forbid_compute(backend_name):  # lazy backends: the call builds a graph only
            result, expected = evaluate(case)
        for t in _outputs(result):
            assert t.backend.name == backend_name, f"{case.id}: result on {t.backend.name}"
            assert b.is_array(t.array), f"{case.id}: result array is {type(t.array)}"
            assert not t.requires_grad
        assert_matches(case, result, expected)


def _data_dependent(case):
    return case.lazy_note == _NOT_LAZY_SHAPE


NOT_LAZY = [
    pytest.param(case, name, id=f"{case.id}-{name}")
    for case in CASES
    for name in BACKENDS
    if not case.lazy and is_lazy(name) and not _data_dependent(case)
]
DATA_DEPENDENT = [
    pytest.param(case, name, id=f"{case.id}-{name}")
    for case in CASES
    for name in BACKENDS
    if _data_dependent(case) and is_lazy(name)
]


@pytest.mark.parametrize(("case", "backend_name"), NOT_LAZY)
def test_not_lazy_case_raises_as_declared_or_matches(case, backend_name):
    """A case marked not lazy raises on a lazy backend exactly what its ``lazy_raises``
    declares; without a declaration it computes and equals NumPy's result."""
    with on_backend(backend_name):
        if case.lazy_raises is not None:
            exc_type, match = case.lazy_raises
            with pytest.raises(exc_type, match=match):
                evaluate(case)
        else:
            result, expected = evaluate(case)
            assert_matches(case, result, expected)


def test_lazy_raises_only_on_cases_marked_not_lazy():
    """``lazy_raises`` describes a lazy backend's failure: it needs ``lazy=False`` and a note."""
    bad = [c.id for c in CASES if c.lazy_raises is not None and (c.lazy or not c.lazy_note)]
    assert bad == []


@pytest.mark.parametrize(("case", "backend_name"), DATA_DEPENDENT)
def test_data_dependent_shape_raises_unless_allowed(case, backend_name):
    """Data-dependent output shapes on a lazy backend: a clear error that computes nothing;
    under ``allow_compute()`` the result is lazy, has a known shape and equals NumPy's."""
    with on_backend(backend_name):
        with forbid_compute(backend_name), pytest.raises(
                af.DataDependentShapeError, match=rf"arrayflow\.{case.op}: the output shape "
                                                  r"depends on the input's values"):
            evaluate(case)
        with af.allow_compute():
            result, expected = evaluate(case)
    for t in _outputs(result):
        assert t.backend.name == backend_name
        assert None not in t.shape
    assert_matches(case, result, expected)


def test_every_op_has_a_case():
    """A new op cannot land without a case in arrayflow.testing.cases."""
    assert missing_ops() == []


def test_cases_name_real_ops():
    """Every case names a registered op (no stale entries after a rename)."""
    assert sorted({c.op for c in CASES} - set(OPS)) == []


def test_case_ids_are_unique():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


@pytest.mark.parametrize("name", sorted(OPS))
def test_differentiable_flag_matches_table(name):
    """The registry's ``differentiable`` equals the case table's judgement."""
    flags = {c.differentiable for c in cases_for(name)}
    assert flags == {OPS[name].differentiable}, (
        f"{name}: registry says differentiable={OPS[name].differentiable}, table says {flags}")


def test_missing_ops_reports_uncovered_names():
    """The coverage helper names ops that have no case."""
    fake = {"exp": OPS["exp"], "not_a_real_op": OPS["exp"]}
    assert missing_ops(fake) == ["not_a_real_op"]


def _array_leaves(obj):
    import numpy as np

    if isinstance(obj, np.ndarray):
        return [obj]
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (list, tuple)):
        return [leaf for item in obj for leaf in _array_leaves(item)]
    return []


def test_float64_case_for_every_differentiable_op():
    """Gradient checks need a float64 (or complex128) case of each differentiable op."""
    lacking = []
    for name, op in OPS.items():
        if not op.differentiable:
            continue
        dtypes = {a.dtype.name for case in cases_for(name) for a in _array_leaves(case.sample())}
        if not dtypes & {"float64", "complex128"}:
            lacking.append(name)
    assert lacking == []


def test_testing_package_imports_no_numpy():
    """``import arrayflow.testing`` stays as light as ``import arrayflow``."""
    code = ("import sys, arrayflow, arrayflow.testing\n"
            "assert 'numpy' not in sys.modules, 'numpy imported'\n"
            "assert len(arrayflow.testing.CASES) > 0\n")
    subprocess.run([sys.executable, "-c", code], check=True)
    code = "import sys, arrayflow; assert 'arrayflow.testing' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
