"""Running the seed documents' snippets (``seed_snippets.py``) verbatim.

The seeds are four versions of PyTorch's "Extending PyTorch" note, copied byte for byte
into ``tests/seeds/documents/`` (their SHA-256 digests are pinned in :data:`SHA256`).
A snippet is kept in arrayflow spelling; :func:`to_arrayflow` is the only transformation
allowed (the identifier ``torch`` becomes ``arrayflow``, ``__torch_function__`` becomes
``__arrayflow_function__``; ``torch.Tensor`` and ``torch.autograd.Function`` follow from
the first rule) and :func:`to_torch` undoes it, for the verbatim check and to run the
original snippet under PyTorch as the oracle.

The harness around a snippet only supplies what the document leaves implicit: the names
its text uses without importing them (``Function``, ``nn``, ``Variable``, the module
``torch``/``arrayflow``) and the snippets before it in the same document.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import re
from pathlib import Path

DOC_DIR = Path(__file__).parent / "documents"

DOCUMENTS = {
    "2019": "extending-pytorch-2019.md",
    "notebook": "extending-pytorch-notebook.md",
    "zh": "extending-pytorch-zh.md",
    "2020": "extending-pytorch-custom-function-and-torch-function.md",
}

SHA256 = {
    "2019": "25776b564414ba24c5ef3a96a38bc8c402cf474b9df1cbe19f304c44801312dd",
    "notebook": "e7419b8886c90f226c6df509ed679a2cef6b087fbd14f464ac1f2d6e89e3c92a",
    "zh": "768720b8bb32e27a6b530eced17e8b8ed3d5bee91b8e195a45ae9859fcbf993b",
    "2020": "a1d0c189a4b65af9da95a4706ef78b3dec425e6ba1e2d4807d27caae1ea7b1b0",
}
"""Digests of the lead's originals (``shared/seeds/``): a copy edited to suit the code fails."""


def document_bytes(key: str) -> bytes:
    return (DOC_DIR / DOCUMENTS[key]).read_bytes()


def document_text(key: str) -> str:
    return document_bytes(key).decode("utf-8")


def sha256(key: str) -> str:
    return hashlib.sha256(document_bytes(key)).hexdigest()


def to_arrayflow(src: str) -> str:
    """The only renames allowed: ``__torch_function__`` and the identifier ``torch``."""
    src = src.replace("__torch_function__", "__arrayflow_function__")
    return re.sub(r"\btorch\b", "arrayflow", src)


def to_torch(src: str) -> str:
    """Undo :func:`to_arrayflow` (no seed contains the word ``arrayflow``)."""
    src = src.replace("__arrayflow_function__", "__torch_function__")
    return re.sub(r"\barrayflow\b", "torch", src)


def namespace(lib: str = "arrayflow") -> dict:
    """Globals for a snippet: what the documents use without importing it."""
    if lib == "torch":
        import torch
        from torch import nn
        from torch.autograd import Function, Variable

        return {"torch": torch, "nn": nn, "Function": Function, "Variable": Variable,
                "__name__": "seed"}
    import arrayflow
    from arrayflow import nn
    from arrayflow.autograd import Function, Variable

    return {"arrayflow": arrayflow, "nn": nn, "Function": Function, "Variable": Variable,
            "__name__": "seed"}


def run(src: str, ns: dict, name: str = "snippet") -> str:
    """``exec`` the snippet in ``ns``; returns what it printed."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(src, f"<seed {name}>", "exec"), ns)  # noqa: S102 - the seed's own code
    return buf.getvalue()


def run_torch(src: str, ns: dict, name: str = "snippet") -> str:
    """Run the original (PyTorch) text of an arrayflow-spelled snippet."""
    return run(to_torch(src), ns, name)


def session(text: str) -> list[tuple[str, str]]:
    """Split a ``>>>`` session into ``(statement, expected output)`` pairs."""
    pairs: list[tuple[str, list[str]]] = []
    for line in text.split("\n"):
        if line.startswith(">>> "):
            pairs.append((line[4:], []))
        else:
            pairs[-1][1].append(line)
    return [(stmt, "\n".join(out).strip("\n")) for stmt, out in pairs]


def evaluate(stmt: str, ns: dict):
    """Run one session statement as the interactive interpreter does: the ``repr`` of an
    expression's value (None prints nothing) plus what it printed."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            code = compile(stmt, "<seed session>", "eval")
        except SyntaxError:
            exec(compile(stmt, "<seed session>", "exec"), ns)  # noqa: S102
            value = None
        else:
            value = eval(code, ns)  # noqa: S307 - the seed's own code
    printed = buf.getvalue()
    return printed + ("" if value is None else repr(value))


def same_words(a: str, b: str) -> bool:
    """Equal up to line wrapping (the documents wrap long error messages)."""
    return a.split() == b.split()


def numpy_of(t):
    """Host values of an arrayflow or torch Tensor, as a NumPy array."""
    import numpy as np

    return np.asarray(t.detach().numpy())


def pair(data, *, requires_grad=False, dtype="float64"):
    """The same values as an arrayflow Tensor (current backend) and a torch Tensor."""
    import numpy as np
    import torch

    import arrayflow

    a = arrayflow.asarray(np.asarray(data), dtype=getattr(arrayflow, dtype))
    t = torch.tensor(np.asarray(data), dtype=getattr(torch, dtype))
    if requires_grad:
        a.requires_grad_(True)
        t.requires_grad_(True)
    return a, t
