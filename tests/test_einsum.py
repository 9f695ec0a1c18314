"""``af.einsum`` against ``torch.einsum``: values, gradients, double backward and forward
mode on ~20 equations, on every backend; PyTorch's errors; the list forms; complex."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import forbid_compute

import arrayflow as af
import arrayflow.autograd.forward_ad as fwAD

torch = pytest.importorskip("torch")

# (equation, operand shapes)
EQUATIONS = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ii->", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("iij->ji", [(3, 3, 2)]),
    ("iii->i", [(3, 3, 3)]),
    ("bij,bjk->bik", [(4, 2, 3), (4, 3, 5)]),
    ("...ij,...jk", [(2, 4, 2, 3), (4, 3, 2)]),
    ("...ij,...jk->...ik", [(1, 2, 3), (5, 3, 2)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,i->", [(5,), (5,)]),
    ("i,i->i", [(1,), (4,)]),
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ba", [(2, 3)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("ab,bc,cd,de->ae", [(2, 3), (3, 4), (4, 5), (5, 2)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("...ij->ij", [(5, 2, 3)]),
    ("i...i->...", [(3, 2, 3)]),
    ("i j , j k -> k i", [(2, 3), (3, 4)]),
    ("ij,jk,ki->", [(3, 4), (4, 2), (2, 3)]),
    ("i,->i", [(3,), ()]),
    ("ijk,ilk->jl", [(2, 3, 4), (2, 5, 4)]),
    ("ij,jj->i", [(2, 3), (3, 3)]),
    ("ii,i->i", [(3, 3), (3,)]),
    ("ij,kl->ijkl", [(1, 2), (3, 1)]),
]
IDS = [e for e, _ in EQUATIONS]


def _inputs(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes]


def _torch_grads(eq, xs, u, create_graph=False):
    ts = [torch.tensor(x, requires_grad=True) for x in xs]
    out = torch.einsum(eq, *ts)
    gs = torch.autograd.grad(out, ts, torch.tensor(u), create_graph=create_graph)
    return ts, out, gs


@pytest.mark.parametrize(("eq", "shapes"), EQUATIONS, ids=IDS)
def test_values_and_gradients_match_torch(backend, eq, shapes):
    xs = _inputs(shapes)
    leaves = [af.asarray(x, requires_grad=True) for x in xs]
    with forbid_compute(backend):  # lazy on Dask
        out = af.einsum(eq, *leaves)
    tout = torch.einsum(eq, *[torch.tensor(x) for x in xs])
    np.testing.assert_allclose(out.detach().numpy(), tout.numpy(), rtol=1e-12, atol=1e-12)
    u = np.random.default_rng(1).standard_normal(tuple(tout.shape))
    with forbid_compute(backend):
        gs = af.autograd.grad(out, leaves, grad_outputs=af.asarray(u))
    _, _, tgs = _torch_grads(eq, xs, u)
    for k, (g, tg) in enumerate(zip(gs, tgs)):
        assert tuple(g.shape) == tuple(tg.shape)
        np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-12, atol=1e-12,
                                   err_msg=f"operand {k}")


@pytest.mark.parametrize(("eq", "shapes"), EQUATIONS, ids=IDS)
def test_double_backward_matches_torch(backend, eq, shapes):
    xs = _inputs(shapes)
    rng = np.random.default_rng(2)
    leaves = [af.asarray(x, requires_grad=True) for x in xs]
    out = af.einsum(eq, *leaves)
    u = rng.standard_normal(tuple(out.shape))
    vs = [rng.standard_normal(s) for s in shapes]
    gs = af.autograd.grad(out, leaves, grad_outputs=af.asarray(u), create_graph=True)
    s = sum(af.sum(g * af.asarray(v)) for g, v in zip(gs, vs))
    if len(shapes) == 1:  # linear: the gradient is a constant (torch's too)
        assert not s.requires_grad
        return
    ggs = af.autograd.grad(s, leaves, allow_unused=True)
    ts, _, tgs = _torch_grads(eq, xs, u, create_graph=True)
    ts_ = sum((g * torch.tensor(v)).sum() for g, v in zip(tgs, vs))
    tggs = torch.autograd.grad(ts_, ts, allow_unused=True)
    for k, (g, tg) in enumerate(zip(ggs, tggs)):
        if tg is None:
            assert g is None or np.allclose(g.numpy(), 0.0), k
            continue
        got = np.zeros(shapes[k]) if g is None else g.numpy()
        np.testing.assert_allclose(got, tg.numpy(), rtol=1e-11, atol=1e-12,
                                   err_msg=f"operand {k}")


@pytest.mark.parametrize(("eq", "shapes"), EQUATIONS, ids=IDS)
def test_forward_mode_matches_torch(backend, eq, shapes):
    import torch.autograd.forward_ad as tfw

    xs = _inputs(shapes)
    vs = _inputs(shapes, seed=5)
    with fwAD.dual_level():
        duals = [fwAD.make_dual(af.asarray(x), af.asarray(v)) for x, v in zip(xs, vs)]
        got = fwAD.unpack_dual(af.einsum(eq, *duals)).tangent.numpy()
    with tfw.dual_level():
        tduals = [tfw.make_dual(torch.tensor(x), torch.tensor(v)) for x, v in zip(xs, vs)]
        want = tfw.unpack_dual(torch.einsum(eq, *tduals)).tangent.numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_forward_mode_with_some_operands_dual():
    import torch.autograd.forward_ad as tfw

    xs = _inputs([(2, 3), (3, 4), (4, 2)])
    v = _inputs([(3, 4)], seed=3)[0]
    with fwAD.dual_level():
        ops = [af.asarray(xs[0]), fwAD.make_dual(af.asarray(xs[1]), af.asarray(v)),
               af.asarray(xs[2])]
        got = fwAD.unpack_dual(af.einsum("ij,jk,kl->il", *ops)).tangent.numpy()
    with tfw.dual_level():
        ops = [torch.tensor(xs[0]), tfw.make_dual(torch.tensor(xs[1]), torch.tensor(v)),
               torch.tensor(xs[2])]
        want = tfw.unpack_dual(torch.einsum("ij,jk,kl->il", *ops)).tangent.numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_complex_values_and_gradients_match_torch():
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal(s) + 1j * rng.standard_normal(s) for s in [(2, 3), (3, 3)]]
    leaves = [af.asarray(x, requires_grad=True) for x in xs]
    out = af.einsum("ij,jj->ij", *leaves)
    ts = [torch.tensor(x, requires_grad=True) for x in xs]
    tout = torch.einsum("ij,jj->ij", *ts)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12)
    u = rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))
    gs = af.autograd.grad(out, leaves, grad_outputs=af.asarray(u))
    tgs = torch.autograd.grad(tout, ts, torch.tensor(u))
    for g, tg in zip(gs, tgs):
        np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-12)


def test_complex_forward_mode_matches_torch():
    import torch.autograd.forward_ad as tfw

    rng = np.random.default_rng(4)

    def c(*s):
        return rng.standard_normal(s) + 1j * rng.standard_normal(s)

    xs, vs = [c(2, 3), c(3, 3)], [c(2, 3), c(3, 3)]
    with fwAD.dual_level():
        duals = [fwAD.make_dual(af.asarray(x), af.asarray(v)) for x, v in zip(xs, vs)]
        got = fwAD.unpack_dual(af.einsum("ij,jj->ji", *duals)).tangent.numpy()
    with tfw.dual_level():
        tduals = [tfw.make_dual(torch.tensor(x), torch.tensor(v)) for x, v in zip(xs, vs)]
        want = tfw.unpack_dual(torch.einsum("ij,jj->ji", *tduals)).tangent.numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_list_forms_match_torch():
    a, b = _inputs([(2, 3), (4, 3)])
    la, lb = af.asarray(a, requires_grad=True), af.asarray(b, requires_grad=True)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    for call, tcall in [
        (lambda: af.einsum("ij,kj", [la, lb]), lambda: torch.einsum("ij,kj", [ta, tb])),
        (lambda: af.einsum(la, [0, 1], lb, [2, 1], [0, 2]),
         lambda: torch.einsum(ta, [0, 1], tb, [2, 1], [0, 2])),
        (lambda: af.einsum(la, [0, 1], lb, [2, 1]),
         lambda: torch.einsum(ta, [0, 1], tb, [2, 1])),
        (lambda: af.einsum(la, [..., 1], [1]), lambda: torch.einsum(ta, [..., 1], [1])),
    ]:
        out, tout = call(), tcall()
        np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12)
        u = np.random.default_rng(3).standard_normal(tuple(tout.shape))
        gs = af.autograd.grad(out, [la, lb], grad_outputs=af.asarray(u), allow_unused=True)
        tgs = torch.autograd.grad(tout, [ta, tb], torch.tensor(u), allow_unused=True)
        for g, tg in zip(gs, tgs):
            if tg is None:
                assert g is None
            else:
                np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-12)


def test_forward_mode_of_the_list_form_raises_instead_of_dropping_the_tangent():
    a, b = _inputs([(2, 3), (3, 2)])
    with fwAD.dual_level():
        d = fwAD.make_dual(af.asarray(a), af.asarray(b.T))
        with pytest.raises(NotImplementedError, match="einsum"):
            af.einsum("ij,jk", [d, af.asarray(b)])


ERRORS = [
    ("ij->ii", [(2, 3)]),
    ("ij->k", [(2, 3)]),
    ("ij,jk", [(2, 3), (2, 3)]),
    ("ij,jk->ik", [(2, 3)]),
    ("ij->ij", [(2, 3), (2, 3)]),
    ("ii->i", [(2, 3)]),
    ("ijk->i", [(2, 3)]),
    ("i..->i", [(2, 3)]),
    ("i1->i", [(2, 3)]),
    ("i...,i...->...", [(2, 3), (2, 4)]),
]


@pytest.mark.parametrize(("eq", "shapes"), ERRORS, ids=[e for e, _ in ERRORS])
def test_errors_are_torchs(eq, shapes):
    xs = _inputs(shapes)
    with pytest.raises(Exception) as texc:
        torch.einsum(eq, *[torch.tensor(x) for x in xs])
    with pytest.raises(type(texc.value), match=r"^einsum\(\)") as exc:
        af.einsum(eq, *[af.asarray(x) for x in xs])
    # the same sentence as PyTorch's, up to the spelling of "Tensor"
    assert str(exc.value).split(",")[0][:40] == str(texc.value).split(",")[0][:40]


def test_other_errors():
    a = af.asarray(np.ones((2, 3)))
    with pytest.raises(RuntimeError, match="one dtype"):
        af.einsum("ij,jk", a, af.asarray(np.ones((3, 2), dtype=np.float32)))
    with pytest.raises(TypeError, match="einsum"):
        af.einsum("ij,", a, 3.0)
    with pytest.raises(ValueError, match="at least one operand"):
        af.einsum("ij")
    with pytest.raises(ValueError, match=r"\[0, 52\)"):
        af.einsum(a, [0, 60])


def test_integer_and_bool_dtypes_match_torch():
    rng = np.random.default_rng(0)
    a = rng.integers(-5, 5, (2, 3)).astype(np.int32)
    b = rng.integers(-5, 5, (3, 2)).astype(np.int32)
    for eq, ops in [("ij,jk", (a, b)), ("ij->i", (a,)), ("ij->ji", (a,))]:
        got = af.einsum(eq, *[af.asarray(o) for o in ops])
        want = torch.einsum(eq, *[torch.tensor(o) for o in ops])
        assert got.dtype.name == str(want.dtype).removeprefix("torch.")
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    m = np.array([[True, False], [True, True]])
    for eq in ("ij->ji", "ii->i", "ii", "ij,ij->ij"):
        ops = (m,) * (eq.count(",") + 1)
        got = af.einsum(eq, *[af.asarray(o) for o in ops])
        want = torch.einsum(eq, *[torch.tensor(o) for o in ops])
        assert got.dtype.name == str(want.dtype).removeprefix("torch.")
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_every_optimize_choice_gives_the_same_values():
    xs = _inputs([(2, 3), (3, 4), (4, 5), (5, 2)])
    ops = [af.asarray(x) for x in xs]
    want = torch.einsum("ab,bc,cd,de->ae", *[torch.tensor(x) for x in xs]).numpy()
    choices = [False, True, "auto", [(2, 3), (0, 1), (0, 1)]]
    try:
        import opt_einsum  # noqa: F401

        choices += ["greedy", "optimal"]
    except ImportError:
        pass
    for opt in choices:
        got = af.einsum("ab,bc,cd,de->ae", *ops, optimize=opt).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=str(opt))


def test_the_path_is_opt_einsums(monkeypatch):
    opt_einsum = pytest.importorskip("opt_einsum")
    from arrayflow.ops import einsum as mod

    seen = []
    real = opt_einsum.contract_path

    def spy(*a, **k):
        r = real(*a, **k)
        seen.append(r[0])
        return r

    monkeypatch.setattr(opt_einsum, "contract_path", spy)
    xs = _inputs([(2, 30), (30, 40), (40, 2)])
    af.einsum("ij,jk,kl->il", *[af.asarray(x) for x in xs])
    assert seen and mod._path([(0, 1), (1, 2), (2, 3)], (0, 3),
                              {0: 2, 1: 30, 2: 40, 3: 2}, "auto") == [tuple(p) for p in seen[0]]


def test_without_opt_einsum_left_to_right(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "opt_einsum", None)  # import fails
    xs = _inputs([(2, 3), (3, 4), (4, 2)])
    got = af.einsum("ij,jk,kl->il", *[af.asarray(x) for x in xs]).numpy()
    np.testing.assert_allclose(got, xs[0] @ xs[1] @ xs[2], rtol=1e-12)
    with pytest.raises(ModuleNotFoundError, match="opt_einsum"):
        af.einsum("ij,jk,kl->il", *[af.asarray(x) for x in xs], optimize="greedy")


def test_vmap_matches_a_loop():
    xs = _inputs([(4, 2, 3), (3, 5)])
    a, b = af.asarray(xs[0]), af.asarray(xs[1])
    got = af.func.vmap(lambda x: af.einsum("ij,jk", x, b))(a).numpy()
    np.testing.assert_allclose(got, np.einsum("bij,jk->bik", *xs), rtol=1e-12)
    got = af.func.vmap(lambda x, y: af.einsum("i...,j->...j", y, x), in_dims=(0, None))(
        af.asarray(xs[1][:, :2].T.copy()), af.asarray(xs[0][0])).numpy()
    want = np.stack([np.einsum("i...,j->...j", xs[0][0], r) for r in xs[1][:, :2].T])
    np.testing.assert_allclose(got, want, rtol=1e-12)
