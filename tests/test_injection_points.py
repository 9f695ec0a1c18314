"""The op layer receives what the layers above it provide through one call.

``ops._registry.install(tensor=..., record=..., grad_enabled=..., view=...)`` is the one
injection point (docs/architecture.md); no module assigns ``_registry.<name>`` or
``_dispatch.<name>`` from outside (the seven hook globals issue 13 names are gone), checked
on the source (AST).
"""

from __future__ import annotations

import ast
import pathlib

import arrayflow as af
from arrayflow import _dispatch
from arrayflow.autograd import _views, grad_mode, graph
from arrayflow.ops import _registry

ROOT = pathlib.Path(__file__).resolve().parents[1] / "arrayflow"
TARGETS = {"_registry", "_dispatch", "_proto"}  # the names these modules are imported as

# ``(module, attribute): reason`` for assignments still made from outside; meant to be empty.
KNOWN: dict[tuple[str, str], str] = {}


def _outside_assignments():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in ("ops/_registry.py", "_dispatch.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), rel)):
            targets = node.targets if isinstance(node, ast.Assign) else (
                [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) \
                        and t.value.id in TARGETS:
                    found.append((rel, t.attr, node.lineno))
    return found


def test_no_module_sets_the_op_layers_globals_from_outside():
    bad = [f"arrayflow/{rel}:{line} sets {attr}" for rel, attr, line in _outside_assignments()
           if (rel, attr) not in KNOWN]
    assert not bad, "use ops._registry.install(...):\n" + "\n".join(bad)


def test_install_holds_what_the_layers_above_provide():
    assert _registry.Tensor is af.Tensor and _dispatch._plain is af.Tensor
    assert _registry._record_hook is graph.record
    assert _registry._grad_enabled == grad_mode._enabled.get  # a bound method: equal
    assert _registry._view_hook is _views.on_view
    for gone in ("_override_hook", "_mode_hook", "_DISABLED_IMPL", "register_tensor_type"):
        assert not hasattr(_registry, gone), gone


def test_install_keeps_what_it_is_not_given():
    before = (_registry.Tensor, _registry._record_hook, _registry._grad_enabled,
              _registry._view_hook)
    _registry.install()
    assert (_registry.Tensor, _registry._record_hook, _registry._grad_enabled,
            _registry._view_hook) == before
