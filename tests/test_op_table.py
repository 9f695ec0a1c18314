"""The op table (issue 13 §1): every op is one unit, its metadata complete and true.

- ``Op.section`` and ``Op.dtypes`` agree with the array API standard's own stubs
  (``tests/data/array_api_spec.json``, generated from data-apis/array-api by
  ``tests/data/generate_array_api_spec.py``); ops outside the standard say so.
- ``Op.torch_name`` names a function PyTorch has; ``None`` only where it has none.
- Aliases are declared on their op and registered once.
- In the source, each op's VJP follows its forward directly (no ``# --- VJPs`` section
  far below): the AST check below.
- The documentation's op list (``docs/reference/ops.md``) is generated from this table.
"""

from __future__ import annotations

import ast
import importlib
import json
import pathlib

import pytest

import arrayflow  # noqa: F401  (registers every op)
from arrayflow.ops import OPS
from arrayflow.ops._registry import ALIASES, DTYPE_CATEGORIES, SECTIONS, AliasOp

ROOT = pathlib.Path(__file__).resolve().parents[1]
SPEC = json.loads((ROOT / "tests" / "data" / "array_api_spec.json").read_text())["functions"]

# The spec's stubs of these say only "alias of <function>" (no dtype sentence of their own).
_SPEC_ALIAS_STUBS = {"linalg.matmul", "linalg.matrix_transpose", "linalg.tensordot",
                     "linalg.vecdot"}


@pytest.mark.parametrize("name", list(OPS))
def test_section_and_dtypes_match_the_standard(name):
    o = OPS[name]
    assert o.section in SECTIONS, f"{name}: section={o.section!r}"
    assert o.dtypes is None or o.dtypes in DTYPE_CATEGORIES, f"{name}: dtypes={o.dtypes!r}"
    if name in SPEC:
        assert o.section == SPEC[name]["section"], (
            f"{name}: section {o.section!r}, the standard's stubs say {SPEC[name]['section']!r}")
        assert o.dtypes == SPEC[name]["dtypes"], (
            f"{name}: dtypes {o.dtypes!r}, the standard's stubs say {SPEC[name]['dtypes']!r}")
    else:
        assert o.section in ("torch", "array_object", "lazy"), (
            f"{name} is not in the array API standard 2025.12: section must be 'torch', "
            f"'array_object' or 'lazy', not {o.section!r}")


def test_every_standard_function_is_an_op_or_a_namespace_alias():
    missing = []
    for name in SPEC:
        if name in OPS:
            continue
        ns, _, attr = name.rpartition(".")
        mod = importlib.import_module(f"arrayflow.{ns}" if ns else "arrayflow")
        if name not in _SPEC_ALIAS_STUBS or not hasattr(mod, attr):
            missing.append(name)
    assert not missing, f"standard functions without an op: {missing}"


def _torch_attr(torch, dotted):
    obj = torch
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


@pytest.mark.parametrize("name", list(OPS))
def test_torch_name_is_a_torch_function(name):
    torch = pytest.importorskip("torch")
    o = OPS[name]
    if o.torch_name is None:
        assert _torch_attr(torch, name) is None, (
            f"{name}: torch_name=None, but torch.{name} exists: name it (or say why not)")
    else:
        assert callable(_torch_attr(torch, o.torch_name)), (
            f"{name}: torch_name={o.torch_name!r} is not a torch function")


def test_aliases_are_declared_on_their_op():
    for name, a in ALIASES.items():
        assert isinstance(a, AliasOp)
        assert a.canonical.name in OPS
        assert name in a.canonical.aliases, f"{name} not in {a.canonical.name}.aliases"
    declared = {a for o in OPS.values() for a in o.aliases}
    assert declared == set(ALIASES)


@pytest.mark.parametrize("name", list(OPS))
def test_vjp_matches_differentiability(name):
    o = OPS[name]
    if o.differentiable:
        assert o.vjp is not None, f"{name} is differentiable but has no VJP"
    else:
        assert o.vjp is None and not o.complex_ok, f"{name}: a VJP on a non-differentiable op"


# --- one op, one unit, in the source ------------------------------------------------------

_FAMILIES = sorted((ROOT / "arrayflow" / "ops").glob("*.py"))


def _op_decorator(dec):
    """The ``op(...)`` call of a decorator, or None."""
    if isinstance(dec, ast.Call) and isinstance(dec.func, ast.Name) and dec.func.id == "op":
        return dec
    return None


def _vjp_target(stmt):
    """The op name a statement attaches a VJP to (``@name.defvjp`` / ``name.defvjp(f)``)."""
    decs = stmt.decorator_list if isinstance(stmt, ast.FunctionDef) else []
    calls = [d for d in decs] + ([stmt.value] if isinstance(stmt, ast.Expr) else [])
    for c in calls:
        f = c.func if isinstance(c, ast.Call) else c
        if isinstance(f, ast.Attribute) and f.attr == "defvjp" and isinstance(f.value, ast.Name):
            return f.value.id
    return None


@pytest.mark.parametrize("path", _FAMILIES, ids=lambda p: p.name)
def test_each_vjp_follows_its_forward(path):
    src = path.read_text()
    assert "# --- VJPs" not in src, f"{path.name}: a separate VJP section"
    body = ast.parse(src).body
    problems = []
    for i, stmt in enumerate(body):
        if not isinstance(stmt, ast.FunctionDef):
            continue
        dec = next((d for d in map(_op_decorator, stmt.decorator_list) if d), None)
        if dec is None:
            continue
        kw = {k.arg: k.value for k in dec.keywords}
        if "vjp" in kw:
            continue
        diff = kw.get("differentiable")
        if isinstance(diff, ast.Constant) and diff.value is False:
            continue
        nxt = body[i + 1] if i + 1 < len(body) else None
        if nxt is None or _vjp_target(nxt) != stmt.name:
            problems.append(f"{path.name}:{stmt.lineno} {stmt.name}: the statement after the "
                            f"forward does not attach its VJP")
    assert not problems, "\n".join(problems)


def test_documented_op_list_is_generated_from_the_table():
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import op_table
    finally:
        sys.path.pop(0)
    md = op_table.render()
    for name, o in OPS.items():
        assert f"`{name}`" in md, f"{name} missing from the generated op list"
        for a in o.aliases:
            assert f"`{a}`" in md
    for key, title in SECTIONS.items():
        if any(o.section == key for o in OPS.values()):
            assert f"## {title}" in md
    page = (ROOT / "docs" / "reference" / "ops.md").read_text()
    assert op_table.MARKER in page


# Ops that vmap runs through the per-sample loop (or whose loop raises), with the reason.
VMAP_LOOP_OR_RAISE = {
    "allclose": "returns a Python bool: data-dependent, raises inside vmap",
    "broadcast_shapes": "takes shapes, never a Tensor",
    "arange": "creation from Python numbers (a batched bound loops)",
    "empty": "creation from a shape", "eye": "creation from sizes",
    "full": "creation from a shape (a batched fill value loops)",
    "linspace": "creation from Python numbers (a batched bound loops)",
    "ones": "creation from a shape", "zeros": "creation from a shape",
    "fft.fftfreq": "creation from sizes", "fft.rfftfreq": "creation from sizes",
    "rand": "random creation", "randn": "random creation", "randint": "random creation",
    "randperm": "random creation",
    "isin": "a test against a set: loops", "searchsorted": "loops (one search per sample)",
    "meshgrid": "loops (variadic, no axis to shift)",
    "nonzero": "data-dependent output shape: the loop's stack raises for ragged samples",
    "unique_all": "data-dependent output shape", "unique_counts": "data-dependent output shape",
    "unique_inverse": "data-dependent output shape",
    "unique_values": "data-dependent output shape",
    "persist": "Dask evaluation control: loops", "rechunk": "Dask chunking: loops",
}


def test_every_op_has_a_batching_rule_or_a_listed_reason():
    from arrayflow.func import _batching

    missing = [n for n, o in OPS.items() if not (o.batch or _batching._derive(o))
               and n not in VMAP_LOOP_OR_RAISE]
    assert not missing, f"ops without a vmap batching rule (declare one with @op.defbatch, or " \
                        f"list the op in VMAP_LOOP_OR_RAISE with the reason): {missing}"
    stale = [n for n in VMAP_LOOP_OR_RAISE if n in OPS
             and (OPS[n].batch or _batching._derive(OPS[n]))]
    assert not stale, f"listed as looping but they have a rule: {stale}"
    # declared rules live in the op table (arrayflow/ops), which imports nothing from func
    for n, o in OPS.items():
        if o.batch is not None:
            assert o.batch.__module__.startswith("arrayflow.ops."), (n, o.batch.__module__)


def test_defbatch_attaches_to_the_canonical_op_only():
    with pytest.raises(TypeError, match="alias of arrayflow.concat"):
        ALIASES["cat"].defbatch(lambda *a: None)
    with pytest.raises(TypeError, match="expected a function"):
        OPS["concat"].defbatch("linear")
    assert ALIASES["cat"].batch is OPS["concat"].batch is not None


def test_static_exports_name_exactly_the_registered_ops():
    # elementwise.__all__ and the type-checking block of aliases.py are written out (so type
    # checkers see af.exp and af.mul); they must stay the registry's.
    from arrayflow.ops import aliases, elementwise

    own = {n for n, o in OPS.items() if o.forward.__module__ == elementwise.__name__}
    assert set(elementwise.__all__) == own
    tree = ast.parse(pathlib.Path(aliases.__file__).read_text())
    block = next(n for n in tree.body if isinstance(n, ast.If))
    declared = {s.target.id for s in block.body if isinstance(s, ast.AnnAssign)}
    listed = next(ast.literal_eval(s.value) for s in block.body if isinstance(s, ast.Assign))
    top_level = {n for n in ALIASES if "." not in n}
    assert declared == set(listed) == top_level
