"""Nothing escapes the oracle: every op is mapped to PyTorch or listed with a reason.

This is the one module collected without torch: it then skips with a single line saying how
to install the ``oracle`` extra (``tests/oracle/conftest.py`` leaves the others out).
"""

from __future__ import annotations

import pytest
from conftest import BACKENDS, backend_unusable_reason  # noqa: I001 - tests/conftest.py

torch = pytest.importorskip(
    "torch", reason="torch not installed: pip install -e '.[oracle]' to run the PyTorch "
                    "oracle suite")

import arrayflow as af  # noqa: E402
from arrayflow.nn import functional as AF  # noqa: E402
from arrayflow.ops import OPS  # noqa: E402
from arrayflow.testing.oracle import (  # noqa: E402
    DIFFERENCES,
    NO_COUNTERPART,
    ORACLE_CASES,
    TORCH,
)

MIN_COMPARED = 250


def test_every_op_is_mapped_or_has_no_counterpart_with_a_reason():
    unmapped = sorted(n for n in OPS if n not in TORCH and n not in NO_COUNTERPART)
    assert unmapped == [], f"ops neither mapped to torch nor listed in NO_COUNTERPART: {unmapped}"
    both = sorted(set(TORCH) & set(NO_COUNTERPART))
    assert both == []
    assert all(len(reason) > 20 for reason in NO_COUNTERPART.values())
    stale = sorted((set(TORCH) | set(NO_COUNTERPART)) - set(OPS))
    assert stale == [], f"mapped names that are not ops: {stale}"


def test_every_mapped_op_has_a_compared_case():
    compared = {c.op for c in ORACLE_CASES}
    assert sorted(set(TORCH) - compared) == []


def test_differences_name_real_cases_and_the_document():
    ids = {c.id for c in ORACLE_CASES}
    for key, reason in DIFFERENCES.items():
        assert key.split(":")[0] in ids, key
        assert "docs/pytorch-differences.md" in reason, key


def test_count_of_compared_functions(capsys):
    """At least 250 functions are compared with PyTorch (op table, aliases, Tensor methods and
    operators, nn.functional, layers, optimizers and schedulers)."""
    from test_nn_functional import CASES as FUNCTIONAL_CASES

    from oracle.test_aliases import CASES as ALIAS_CASES
    from oracle.test_methods import COMPARED_METHODS
    from oracle.test_nn import EXTRA, LAYERS
    from oracle.test_optim import CONFIGS, SCHEDULERS

    ops = {c.op for c in ORACLE_CASES}
    functional = {c.name.split("-")[0] for c in FUNCTIONAL_CASES + EXTRA}
    layers = {c[0].split("-")[0] for c in LAYERS}
    optimizers = {n for n, _ in CONFIGS} | set(SCHEDULERS)
    counts = {"op table": len(ops), "PyTorch-named aliases": len({c[1] for c in ALIAS_CASES}),
              "Tensor methods and operators": len(COMPARED_METHODS),
              "nn.functional": len(functional), "nn layers and losses": len(layers),
              "optimizers and schedulers": len(optimizers)}
    total = sum(counts.values())
    with capsys.disabled():
        print(f"\nPyTorch oracle: {total} functions compared ("
              + ", ".join(f"{k} {v}" for k, v in counts.items())
              + f"; {len(NO_COUNTERPART)} ops without a torch counterpart) on "
              + ", ".join(b for b in BACKENDS if backend_unusable_reason(b) is None))
    assert len(ops) == len(TORCH) == len(OPS) - len(NO_COUNTERPART)
    assert total >= MIN_COMPARED


def test_optional_backends_left_out():
    """One line for the optional backends that cannot run here (the cases are not generated)."""
    from oracle import ORACLE_BACKENDS

    out = {b: backend_unusable_reason(b) for b in BACKENDS if b not in ORACLE_BACKENDS}
    if out:
        pytest.skip("oracle runs on " + ", ".join(ORACLE_BACKENDS) + "; left out: "
                    + "; ".join(f"{b} ({r})" for b, r in out.items()))


def test_torch_is_the_pinned_version():
    assert torch.__version__.split("+")[0] == "2.13.0", torch.__version__
    assert af.__name__ == "arrayflow" and set(AF.__all__)
