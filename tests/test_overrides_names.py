"""``overrides.resolve_name`` and the ``nn.functional`` entry of
``get_overridable_functions``, compared with ``torch.overrides``."""

from __future__ import annotations

import types

import pytest

import arrayflow as af
import arrayflow.nn.functional as F
from arrayflow import overrides

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("path", [
    "add", "sum", "matmul", "exp", "linalg.det", "fft.fft", "nn.functional.relu",
    "nn.functional.cross_entropy", "Tensor.sum", "Tensor.__add__", "Tensor.__rmul__",
])
def test_resolve_name_matches_torch(path):
    def get(root):
        obj = root
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj

    theirs = torch.overrides.resolve_name(get(torch))
    ours = overrides.resolve_name(get(af))
    assert theirs == "torch." + path
    assert ours == "arrayflow." + path
    # evaluated, the name gives back the function
    assert eval(ours, {"arrayflow": af}) is get(af)  # noqa: S307 - our own name


def test_resolve_name_of_an_alias_is_its_own_name():
    # af.mul is its own object (as torch.mul): its own name, as PyTorch's resolve_name
    assert torch.overrides.resolve_name(torch.mul) == "torch.mul"
    assert overrides.resolve_name(af.mul) == "arrayflow.mul"
    assert overrides.resolve_name(af.multiply) == "arrayflow.multiply"
    assert overrides.resolve_name(af.Tensor.mul) is not None


@pytest.mark.parametrize("obj", [len, af.get_backend, af.manual_seed, 3, "add", None, [1]])
def test_resolve_name_of_non_overridable_is_none(obj):
    assert overrides.resolve_name(obj) is None
    if obj in (len, 3, "add", None):
        assert torch.overrides.resolve_name(obj) is None


def test_functional_entry_lists_public_names_only():
    ours = overrides.get_overridable_functions()[F]
    theirs = torch.overrides.get_overridable_functions()[torch.nn.functional]
    assert ours
    # PyTorch's rule: what public (no leading "_") names of the module hold, no modules
    tf = torch.nn.functional
    their_names = {n for n in dir(tf) if not n.startswith("_") and any(
        getattr(tf, n) is f for f in theirs)}
    assert len(their_names) >= len(theirs)
    for f in ours:
        assert not isinstance(f, types.ModuleType)
        assert not f.__name__.startswith("_")
        assert getattr(F, f.__name__) is f, f  # reachable under its own public name
    # every name arrayflow lists there is a public function of torch.nn.functional
    # (PyTorch lists F.sigmoid/F.tanh as ignored: they call the Tensor methods)
    assert {f.__name__ for f in ours} <= their_names | {"sigmoid", "tanh"}
    # and the private helper the module imports (``_erf``) is not listed
    assert all(f is not getattr(F, "_erf", None) for f in ours)
