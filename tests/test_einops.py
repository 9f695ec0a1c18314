"""Top-level einops on arrayflow Tensors (the einops backend of ``arrayflow._einops``):
values and gradients against the same calls on torch tensors, on every backend."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from conftest import forbid_compute

import arrayflow as af

einops = pytest.importorskip("einops")
torch = pytest.importorskip("torch")

X = (2, 3, 4)
CALLS = [
    ("rearrange-transpose", lambda e, x: e.rearrange(x, "a b c -> c a b")),
    ("rearrange-merge", lambda e, x: e.rearrange(x, "a b c -> (a c) b")),
    ("rearrange-split", lambda e, x: e.rearrange(x, "a b (c d) -> a c b d", d=2)),
    ("reduce-sum", lambda e, x: e.reduce(x, "a b c -> b", "sum")),
    ("reduce-mean", lambda e, x: e.reduce(x, "a b c -> a c", "mean")),
    ("reduce-max", lambda e, x: e.reduce(x, "a b c -> a", "max")),
    ("reduce-min", lambda e, x: e.reduce(x, "a b c -> c b", "min")),
    ("reduce-prod", lambda e, x: e.reduce(x, "a b c -> b", "prod")),
    ("reduce-pool", lambda e, x: e.reduce(x, "a b (c 2) -> a b c", "max")),
    ("repeat-new-axis", lambda e, x: e.repeat(x, "a b c -> a k b c", k=3)),
    ("repeat-tile", lambda e, x: e.repeat(x, "a b c -> (k a) b c", k=2)),
    ("repeat-interleave", lambda e, x: e.repeat(x, "a b c -> a (b k) c", k=2)),
    ("einsum", lambda e, x: e.einsum(x, x, "a b c, a d c -> b d")),
    ("einsum-trace", lambda e, x: e.einsum(x[0, :, :3], "i i ->")),
    ("pack-unpack", lambda e, x: e.unpack(e.pack([x, x[:, :2] * 2], "a * c")[0] * 3,
                                          [(3,), (2,)], "a * c")[1]),
    ("pack", lambda e, x: e.pack([x, x[0]], "* c")[0]),
]


@pytest.mark.parametrize(("name", "call"), CALLS, ids=[n for n, _ in CALLS])
def test_values_and_gradients_match_torch(backend, name, call):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(X)
    t = af.asarray(x, requires_grad=True)
    tt = torch.tensor(x, requires_grad=True)
    out, tout = call(einops, t), call(einops, tt)
    assert isinstance(out, af.Tensor)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12)
    u = rng.standard_normal(tuple(tout.shape))
    with forbid_compute(backend):
        (g,) = af.autograd.grad(out, [t], grad_outputs=af.asarray(u))
    (tg,) = torch.autograd.grad(tout, [tt], torch.tensor(u))
    np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-12, atol=1e-14)


def test_a_list_of_tensors_and_parse_shape():
    xs = [af.asarray(np.full((2, 3), float(i))) for i in range(4)]
    got = einops.rearrange(xs, "n a b -> a (n b)")
    want = einops.rearrange([np.full((2, 3), float(i)) for i in range(4)], "n a b -> a (n b)")
    np.testing.assert_array_equal(got.numpy(), want)
    assert einops.parse_shape(xs[0], "a b") == {"a": 2, "b": 3}


def test_errors_are_einops():
    x = af.asarray(np.ones((2, 3)))
    with pytest.raises(einops.EinopsError):
        einops.rearrange(x, "a b c -> a")


@pytest.mark.parametrize("order", ["einops-first", "arrayflow-first"])
def test_either_import_order_registers_and_arrayflow_alone_does_not_import_einops(order):
    imports = "import einops, arrayflow as af" if order == "einops-first" else \
        "import arrayflow as af, sys; assert 'einops' not in sys.modules; import einops"
    code = (f"{imports}\nimport numpy as np\n"
            "y = einops.rearrange(af.asarray(np.ones((2, 3))), 'a b -> b a')\n"
            "assert isinstance(y, af.Tensor) and tuple(y.shape) == (3, 2)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
