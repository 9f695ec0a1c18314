"""Regenerate ``tests/data/array_api_spec.json`` from the array API standard's own stubs.

Source: ``data-apis/array-api`` (the specification repository), the signature stubs of
version 2025.12 in ``src/array_api_stubs/_2025_12/<section>.py``. For every function the
file records the section it is specified in and the input dtype category the stub's
``Parameters`` section states for its first array parameter ("Should have a numeric data
type." -> ``"numeric"``), ``"any"`` for an array parameter with no dtype stated, ``null``
for functions without an array parameter. Nothing in it comes from
arrayflow: ``tests/test_op_table.py`` checks arrayflow's op table (``Op.section``,
``Op.dtypes``) against it. Run with a checkout of the specification::

    .venv/bin/python tests/data/generate_array_api_spec.py /path/to/array-api
"""

from __future__ import annotations

import ast
import json
import pathlib
import re
import subprocess
import sys

VERSION = "2025_12"
HERE = pathlib.Path(__file__).parent
OUT = HERE / "array_api_spec.json"

# stub file -> arrayflow.ops._registry.SECTIONS key (and the namespace prefix of its names)
FILES = {
    "creation_functions": ("creation", ""),
    "data_type_functions": ("data_type", ""),
    "elementwise_functions": ("elementwise", ""),
    "indexing_functions": ("indexing", ""),
    "linear_algebra_functions": ("linear_algebra", ""),
    "manipulation_functions": ("manipulation", ""),
    "searching_functions": ("searching", ""),
    "set_functions": ("set", ""),
    "sorting_functions": ("sorting", ""),
    "statistical_functions": ("statistical", ""),
    "utility_functions": ("utility", ""),
    "linalg": ("linalg", "linalg."),
    "fft": ("fft", "fft."),
}

# The stubs' phrases, most specific first -> arrayflow.ops._registry.DTYPE_CATEGORIES key.
PHRASES = [
    ("real-valued floating-point", "real floating"),
    ("complex floating-point", "complex floating"),
    ("floating-point", "floating"),
    ("integer or boolean", "integer or boolean"),
    ("real-valued", "real"),
    ("numeric", "numeric"),
    ("integer", "integer"),
    ("boolean", "boolean"),
]
_SHOULD = re.compile(r"(?:\*\*)?(?:Should|Must|May)(?:\*\*)? have an? ([\w\- ]+?) data type")


def _takes_array(node: ast.FunctionDef) -> bool:
    args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
    if node.args.vararg is not None:
        args = [*args, node.args.vararg]
    return any(a.annotation is not None and "array" in ast.unparse(a.annotation) for a in args)


def _dtypes(node: ast.FunctionDef) -> str | None:
    """The category the first "Should/Must/May have a ... data type" of the Parameters
    states; "any" for an array parameter with none stated; None without array parameters."""
    if not _takes_array(node):
        return None
    doc = ast.get_docstring(node) or ""
    params = doc.split("Returns\n")[0]
    m = _SHOULD.search(" ".join(params.split()))
    if m is None or m.group(1) == "any":
        return "any"
    phrase = m.group(1)
    for words, key in PHRASES:
        if words in phrase:
            return key
    raise ValueError(f"unknown dtype phrase {phrase!r}")


def main(spec_repo: str) -> None:
    root = pathlib.Path(spec_repo) / "src" / "array_api_stubs" / f"_{VERSION}"
    commit = subprocess.run(["git", "-C", spec_repo, "rev-parse", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    funcs: dict[str, dict[str, str | None]] = {}
    for stem, (section, prefix) in FILES.items():
        tree = ast.parse((root / f"{stem}.py").read_text())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                funcs[prefix + node.name] = {
                    "section": section, "dtypes": _dtypes(node)}
    data = {"source": f"data-apis/array-api {commit}, src/array_api_stubs/_{VERSION}",
            "functions": dict(sorted(funcs.items()))}
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(funcs)} functions to {OUT}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
