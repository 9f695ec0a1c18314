"""PyTorch's function names (``arrayflow/ops/aliases.py``) called the PyTorch way vs torch.

Each alias is called with ``torch.<name>``'s own signature (``cat(tensors, dim)``,
``gather(input, dim, index)``, ``cumsum(input, dim)``...) on both libraries: values, dtypes and
the gradients of the floating inputs, on every backend. ``power`` has no torch function
(``torch.pow`` is the spelling): it is compared with ``torch.pow``.
"""

from __future__ import annotations

import numpy as np
import pytest

import arrayflow as af
from arrayflow.ops import aliases
from arrayflow.testing.oracle import assert_same, oracle_tolerance

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(4)
A = RNG.uniform(-0.9, 0.9, (3, 4))
B = RNG.uniform(0.5, 2.0, (3, 4))
C = RNG.uniform(-2, 2, (4, 2))
D3 = RNG.uniform(-2, 2, (2, 3, 4))
IDX = np.asarray([[0, 3], [1, 1], [2, 0]], dtype=np.int64)

# (id, alias, call(lib, fn, *tensors), inputs)
CASES = [
    ("as_tensor", "as_tensor", lambda lib, f: f([1.0, 2.5]), ()),
    ("as_tensor-dtype", "as_tensor", lambda lib, f: f([1, 2], dtype=lib.float64), ()),
    ("mul", "mul", lambda lib, f, a, b: f(a, b), (A, B)),
    ("mul-scalar", "mul", lambda lib, f, a: f(a, 2.5), (A,)),
    ("sub", "sub", lambda lib, f, a, b: f(a, b), (A, B)),
    ("div", "div", lambda lib, f, a, b: f(a, b), (A, B)),
    ("true_divide", "true_divide", lambda lib, f, a, b: f(a, b), (A, B)),
    ("neg", "neg", lambda lib, f, a: f(a), (A,)),
    ("absolute", "absolute", lambda lib, f, a: f(a), (A,)),
    ("mm", "mm", lambda lib, f, a, c: f(a, c), (A, C)),
    ("cat", "cat", lambda lib, f, a, b: f([a, b]), (A, B)),
    ("cat-dim-positional", "cat", lambda lib, f, a, b: f((a, b), 1), (A, B)),
    ("cat-dim-keyword", "cat", lambda lib, f, a, b: f([a, b], dim=-1), (A, B)),
    ("concatenate-axis", "concatenate", lambda lib, f, a, b: f([a, b], axis=1), (A, B)),
    ("permute", "permute", lambda lib, f, x: f(x, (2, 0, 1)), (D3,)),
    ("clamp", "clamp", lambda lib, f, a: f(a, -0.5, 0.5), (A,)),
    ("clamp-min-keyword", "clamp", lambda lib, f, a: f(a, min=0.0), (A,)),
    ("clamp-tensor-bounds", "clamp", lambda lib, f, a, b: f(a, max=b - 1.5), (A, B)),
    ("arccos", "arccos", lambda lib, f, a: f(a), (A,)),
    ("arcsin", "arcsin", lambda lib, f, a: f(a), (A,)),
    ("arctan", "arctan", lambda lib, f, a: f(a), (A,)),
    ("arctan2", "arctan2", lambda lib, f, a, b: f(a, b), (A, B)),
    ("power", "power", lambda lib, f, b, a: f(b, a), (B, A)),
    ("cumsum", "cumsum", lambda lib, f, a: f(a, 1), (A,)),
    ("cumsum-dim-keyword", "cumsum", lambda lib, f, a: f(a, dim=0), (A,)),
    ("cumprod", "cumprod", lambda lib, f, b: f(b, 1), (B,)),
    ("gather", "gather", lambda lib, f, a, i: f(a, 1, i), (A, IDX)),
    ("unbind", "unbind", lambda lib, f, a: f(a), (A,)),
    ("unbind-dim", "unbind", lambda lib, f, a: f(a, 1), (A,)),
    ("repeat_interleave", "repeat_interleave", lambda lib, f, a: f(a, 2, dim=0), (A,)),
    ("repeat_interleave-flat", "repeat_interleave", lambda lib, f, a: f(a, 2), (A,)),
    ("movedim", "movedim", lambda lib, f, x: f(x, 0, -1), (D3,)),
]

XFAIL: dict[str, str] = {}
"""Case ids with a known mismatch (strict xfails: they flip when fixed)."""


def _torch_fn(name):
    return torch.pow if name == "power" else getattr(torch, name)


@pytest.mark.parametrize(
    ("cid", "name", "call", "inputs"),
    [pytest.param(*c, id=c[0], marks=[pytest.mark.xfail(strict=True, reason=XFAIL[c[0]])]
                  if c[0] in XFAIL else []) for c in CASES])
def test_alias_matches_torch(cid, name, call, inputs, backend):
    t_in = [torch.from_numpy(a.copy()).requires_grad_(a.dtype.kind == "f") for a in inputs]
    a_in = [af.asarray(a, requires_grad=a.dtype.kind == "f") for a in inputs]
    want = call(torch, _torch_fn(name), *t_in)
    got = call(af, getattr(af, name), *a_in)
    assert_same(got, want, cid)
    t_outs = [o for o in (want if isinstance(want, tuple) else (want,)) if o.requires_grad]
    if not t_outs:
        return
    a_outs = [o for o in (got if isinstance(got, tuple) else (got,)) if o.requires_grad]
    ws = [np.asarray(RNG.uniform(-1, 1, tuple(o.shape))) for o in t_outs]
    t_leaves = [t for t in t_in if t.requires_grad]
    a_leaves = [a for a in a_in if a.requires_grad]
    t_gs = torch.autograd.grad(t_outs, t_leaves, [torch.from_numpy(w) for w in ws])
    a_gs = af.autograd.grad(a_outs, a_leaves, [af.asarray(w) for w in ws])
    rtol, atol = oracle_tolerance("float64")
    for k, (a, t) in enumerate(zip(a_gs, t_gs)):
        np.testing.assert_allclose(a.numpy(), t.numpy(), rtol=rtol, atol=atol,
                                   err_msg=f"{cid}: gradient {k}")


def test_every_alias_is_compared():
    assert sorted(set(aliases.__all__) - {c[1] for c in CASES}) == []
