"""The seed documents and the snippet copies the seed tests run are what the lead gave.

Every code snippet of the four seed documents is a test in ``tests/seeds/``, run verbatim
(``seed_snippets.py``, only the renames of ``seed_harness.to_arrayflow``). These tests pin
the documents (SHA-256), check that each snippet is a passage of its document, and that
every piece of code in the documents is some snippet.

Out of scope: the "Writing custom C++ extensions" and "Writing custom C extensions"
sections of the 2019 note, its Chinese translation and the 2020 note hold no code, only
links to PyTorch's C++ tutorial and the ``extension-ffi`` repository (C/C++ against
PyTorch's ATen library; arrayflow's equivalent, per-backend kernels for a Function, is
not a seed snippet). The 2020 note's lost images ("Alt text") have no text to run; what
the prose around them says they showed is asserted by the tests of the snippets nearby.
"""

from __future__ import annotations

import re

import pytest
import seed_harness as H
import seed_snippets as S

ALL = {"2019": S.SNIPPETS_2019, "notebook": S.SNIPPETS_NOTEBOOK, "zh": S.SNIPPETS_ZH,
       "2020": S.SNIPPETS_2020}


@pytest.mark.parametrize("doc", list(H.DOCUMENTS))
def test_documents_are_the_leads_originals(doc):
    assert H.sha256(doc) == H.SHA256[doc]


@pytest.mark.parametrize("doc, name", [(d, n) for d, snips in ALL.items() for n in snips])
def test_snippet_is_verbatim_passage_of_its_document(doc, name):
    text = ALL[doc][name]
    original = H.to_torch(text)
    assert original in H.document_text(doc)
    # the copy holds nothing but the allowed renames
    assert H.to_arrayflow(original) == text
    assert not re.search(r"\btorch\b", text)  # `def implements(torch_function)` stays


@pytest.mark.parametrize("doc", ["2019", "zh"])
def test_every_fenced_block_is_a_snippet(doc):
    blocks = re.findall(r"```(?:py)?\n(.*?)\n```", H.document_text(doc), flags=re.S)
    assert len(blocks) == 5
    snippets = [H.to_torch(s) for s in ALL[doc].values()]
    assert sorted(blocks) == sorted(snippets)


def _code_lines(doc):
    """Lines of an unfenced document that are Python code or a ``>>>`` session."""
    pat = re.compile(r"^(\s+\S|class |def |@|import |from |>>> |[A-Za-z_]+ = |print\(|"
                     r"[\[{'(]|\)|torch\.Size|tensor\()")
    return [ln for ln in H.document_text(doc).split("\n") if pat.match(ln)]


@pytest.mark.parametrize("doc", ["notebook", "2020"])
def test_every_code_line_of_unfenced_documents_is_in_a_snippet(doc):
    snippets = "\n".join(H.to_torch(s) for s in ALL[doc].values()).split("\n")
    prose = [ln for ln in _code_lines(doc) if ln not in snippets]
    # the only indented prose lines are the notebook's markdown bullets and headings
    assert all(not ln.strip() or ln.lstrip().startswith(("*", "#")) for ln in prose), prose
