"""Every python block of docs/tutorials/*.md runs, in order, one namespace per page.

The pages include their code from arrayflow/examples/ with pymdownx.snippets
(``--8<-- "path"`` on a line of its own); those lines are expanded here the way the docs
build expands them, so what runs is what the site shows.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs" / "tutorials").glob("*.md"))
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
_SNIPPET = re.compile(r'^--8<-- "([^"]+)"$', re.M)


def _blocks(page: Path) -> list[str]:
    text = page.read_text()
    return [_SNIPPET.sub(lambda m: (ROOT / m.group(1)).read_text(), b)
            for b in _BLOCK.findall(text)]


def test_every_tutorial_has_code():
    names = {p.name for p in PAGES}
    assert {"custom-function.md", "custom-module.md", "scalar-tensor.md",
            "metadata-tensor.md"} <= names
    for p in PAGES:
        if p.name != "index.md":
            assert len(_blocks(p)) >= 2, p.name   # the included code and its use


def test_snippet_expansion_includes_the_file():
    blocks = _blocks(ROOT / "docs" / "tutorials" / "custom-module.md")
    assert "class Linear(nn.Module):" in blocks[0]
    assert "--8<--" not in "".join(blocks)


@pytest.mark.parametrize("page", [p for p in PAGES if p.name != "index.md"],
                         ids=lambda p: p.stem)
def test_tutorial_runs(page):
    ns: dict = {"__name__": f"tutorial_{page.stem.replace('-', '_')}"}
    for i, block in enumerate(_blocks(page)):
        exec(compile(block, f"{page.name}[block {i}]", "exec"), ns)


def test_reference_shows_public_signatures_of_op_functions():
    """tools/griffe_arrayflow.py: the API reference shows ``add(x1, x2, /)``, the public
    signature and docstring, not the backend-level forward ``add(xp, x1, x2)`` that griffe
    would find by unwrapping the Op (skips without the docs extra)."""
    griffe = pytest.importorskip("griffe")
    import arrayflow as af

    def load(extensions, module="arrayflow.ops.elementwise", name="add"):
        mod = griffe.load(module, force_inspection=True, extensions=extensions,
                          docstring_parser="numpy")
        return mod[name]

    ext = griffe.load_extensions(str(ROOT / "tools" / "griffe_arrayflow.py") + ":ArrayflowOps")
    add = load(ext)
    assert [p.name for p in add.parameters] == ["x1", "x2"]
    assert add.docstring.value == inspect.getdoc(af.add)
    # PyTorch's spelling is its own function: its docstring says what it is an alias of.
    mul = load(ext, "arrayflow", "mul")
    assert [p.name for p in mul.parameters] == ["x1", "x2"]
    assert mul.docstring.value.startswith("PyTorch's name for `arrayflow.multiply`")
    plain = load(griffe.load_extensions())
    assert [p.name for p in plain.parameters] != ["x1", "x2"]   # what the extension corrects
