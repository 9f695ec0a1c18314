"""Forward-mode transforms of ``arrayflow.func`` (jvp, linearize, jacfwd, hessian) and
their composition with the reverse transforms, differentially against ``torch.func``
(values and tangents) on numpy, strict and dask (lazily: ``forbid_compute``)."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest
from conftest import forbid_compute

import arrayflow as af
from arrayflow.autograd import forward_ad as fwAD
from arrayflow.func import grad, hessian, jacfwd, jacrev, jvp, linearize, vjp
from arrayflow.func._pytree import tree_flatten

torch = pytest.importorskip("torch")
tfunc = torch.func
tpytree = pytest.importorskip("torch.utils._pytree")

RNG = np.random.default_rng(1)
XN = RNG.standard_normal(4)
YN = RNG.standard_normal(4)
VN = RNG.standard_normal(4)
MN = RNG.standard_normal((3, 4))


def host(t):
    return np.asarray(t.detach().numpy())


def close(a, b, rtol=1e-6, atol=1e-8):
    np.testing.assert_allclose(host(a), b.detach().numpy(), rtol=rtol, atol=atol)


def close_tree(a, b, rtol=1e-6, atol=1e-8):
    la, sa = tree_flatten(a)
    lb, sb = tpytree.tree_flatten(b)
    assert len(la) == len(lb), (sa, sb)
    assert repr(sa).replace(" ", "") == tpytree.treespec_pprint(sb).replace(" ", "")
    for x, y in zip(la, lb):
        close(x, y, rtol, atol)


def A(*arrays):
    return tuple(af.asarray(a) for a in arrays)


def T(*arrays):
    return tuple(torch.tensor(a) for a in arrays)


# the same functions, written once against either namespace
def f_vec(ns, x, y):
    return ns.sin(x) * y + x * x


def f_scalar(ns, x, y):
    return (ns.exp(x) * y).sum() + (x * x * x).sum()


def f_tree(ns, p, x):
    h = ns.tanh(p["w"] @ x + p["b"])
    return {"h": h, "s": ((h * h).sum(), x * p["b"].sum())}


# --- jvp ----------------------------------------------------------------------------------------

def test_jvp_matches_torch(backend):
    x, y, v, u = A(XN, YN, VN, XN * 0.5)
    with forbid_compute(backend):
        out, tout = jvp(lambda a, b: f_vec(af, a, b), (x, y), (v, u))
    tout_t = tfunc.jvp(lambda a, b: f_vec(torch, a, b), T(XN, YN), T(VN, XN * 0.5))
    close(out, tout_t[0])
    close(tout, tout_t[1])


def test_jvp_pytree_inputs_and_outputs_match_torch(backend):
    p = {"w": af.asarray(MN), "b": af.asarray(YN[:3])}
    tp = {"w": af.asarray(MN * 0.3), "b": af.asarray(VN[:3])}
    (x,) = A(XN)
    with forbid_compute(backend):
        out, tout = jvp(lambda p, x: f_tree(af, p, x), (p, x), (tp, af.asarray(VN)))
    P = {"w": torch.tensor(MN), "b": torch.tensor(YN[:3])}
    TP = {"w": torch.tensor(MN * 0.3), "b": torch.tensor(VN[:3])}
    r = tfunc.jvp(lambda p, x: f_tree(torch, p, x), (P, torch.tensor(XN)),
                  (TP, torch.tensor(VN)))
    close_tree(out, r[0])
    close_tree(tout, r[1])


def test_jvp_has_aux_and_independent_output_match_torch(backend):
    (x,) = A(XN)
    out, tout, aux = jvp(lambda a: (af.sin(a), {"c": af.cos(a)}), (x,), (af.ones_like(x),),
                         has_aux=True)
    r = tfunc.jvp(lambda a: (torch.sin(a), {"c": torch.cos(a)}), T(XN),
                  (torch.ones(4, dtype=torch.float64),), has_aux=True)
    close(tout, r[1])
    close(aux["c"], r[2]["c"])
    # an output independent of the inputs: zeros, or torch's error with strict=True
    _, tz = jvp(lambda a: af.ones(3), (x,), (x,))
    np.testing.assert_array_equal(host(tz), np.zeros(3))
    with pytest.raises(RuntimeError, match="independent of the inputs"):
        jvp(lambda a: af.ones(3), (x,), (x,), strict=True)


def test_jvp_leaves_no_level_and_no_tangent_behind(backend):
    (x,) = A(XN)
    out, tout = jvp(af.sin, (x,), (x,))
    assert not fwAD._LEVELS
    with fwAD.dual_level():  # the public level is available again, and out is plain
        assert fwAD.unpack_dual(out).tangent is None
        assert fwAD.unpack_dual(tout).tangent is None
    assert not out.requires_grad and not tout.requires_grad


@pytest.mark.parametrize("case", ["not_tuple", "structure", "non_tensor_primal",
                                  "shape", "int_tangent", "int_primal", "non_tensor_out",
                                  "aux", "empty"])
def test_jvp_errors_match_torch(case):
    x = af.asarray(XN)
    tx = torch.tensor(XN)
    calls = {
        "not_tuple": (lambda m, ns, a: m(ns.sin, [a], [a])),
        "structure": (lambda m, ns, a: m(ns.sin, (a,), a)),
        "non_tensor_primal": (lambda m, ns, a: m(lambda u, c: u, (a, 1.0), (a, 1.0))),
        "shape": (lambda m, ns, a: m(ns.sin, (a,), (a[:2],))),
        "int_tangent": (lambda m, ns, a: m(ns.sin, (a,), (ns.ones(4, dtype=ns.int64),))),
        "int_primal": (lambda m, ns, a: m(lambda u: u, (ns.ones(4, dtype=ns.int64),), (a,))),
        "non_tensor_out": (lambda m, ns, a: m(lambda u: (u, 1), (a,), (a,))),
        "aux": (lambda m, ns, a: m(lambda u: u, (a,), (a,), has_aux=True)),
        "empty": (lambda m, ns, a: m(lambda u: (), (a,), (a,))),
    }
    with pytest.raises(Exception) as te:
        calls[case](tfunc.jvp, torch, tx)
    with pytest.raises(te.type) as ae:
        calls[case](jvp, af, x)
    if case == "shape":  # torch's words, and the argument named
        assert "different size" in str(ae.value) and "tangent 0" in str(ae.value)
    if case in ("not_tuple", "structure", "non_tensor_primal", "non_tensor_out"):
        assert str(ae.value).startswith("jvp(f, primals, tangents)")


def test_jvp_tangent_on_another_backend_names_it():
    x = af.asarray(XN)
    with af.use_backend("strict"):
        t = af.asarray(XN)
    with pytest.raises(RuntimeError, match="tangent 0.*backend"):
        jvp(af.sin, (x,), (t,))


def test_jvp_nests_and_public_dual_level_does_not():
    x, v, w = A(XN, VN, YN)

    def inner(a):
        return jvp(lambda z: af.sin(z) * z, (a,), (v,))[1]

    out = jvp(inner, (x,), (w,))[1]
    tout = tfunc.jvp(lambda a: tfunc.jvp(lambda z: torch.sin(z) * z, (a,),
                                         (torch.tensor(VN),))[1], T(XN), T(YN))[1]
    close(out, tout)
    # jvp inside a public level works; a public level inside another does not (PyTorch)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, v)
        o, t = jvp(af.sin, (d,), (w,))
        close(t, torch.cos(torch.tensor(XN)) * torch.tensor(YN))
        close(fwAD.unpack_dual(o).tangent, torch.cos(torch.tensor(XN)) * torch.tensor(VN))
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            with fwAD.dual_level():
                pass


# --- linearize ----------------------------------------------------------------------------------

def test_linearize_matches_torch(backend):
    x, v, w = A(XN, VN, YN)
    with forbid_compute(backend):
        out, fn = linearize(lambda a: f_vec(af, a, a), x)
        j1, j2 = fn(v), fn(w)
    tout, tfn = tfunc.linearize(lambda a: f_vec(torch, a, a), torch.tensor(XN))
    close(out, tout)
    close(j1, tfn(torch.tensor(VN)))
    close(j2, tfn(torch.tensor(YN)))


def test_linearize_errors_match_torch():
    x = af.asarray(XN)
    _, fn = linearize(af.sin, x)
    _, tfn = tfunc.linearize(torch.sin, torch.tensor(XN))
    for bad, tbad, what in ((x[:2], torch.tensor(XN[:2]), "shape"),
                            (af.astype(x, af.float32), torch.tensor(XN, dtype=torch.float32),
                             "dtype")):
        with pytest.raises(RuntimeError, match=f"tangent:0 with {what}"):
            tfn(tbad)
        with pytest.raises(RuntimeError, match=f"tangent:0 with {what}"):
            fn(bad)
    with pytest.raises(RuntimeError, match="same argspec"):
        tfn(torch.tensor(XN), torch.tensor(XN))
    with pytest.raises(RuntimeError, match="same argspec"):
        fn(x, x)


# --- jacfwd, hessian ----------------------------------------------------------------------------

@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (-1, 0)])
def test_jacfwd_matches_torch_and_jacrev(backend, argnums):
    x, y = A(XN, YN)
    with forbid_compute(backend):
        J = jacfwd(lambda a, b: f_vec(af, a, b), argnums=argnums)(x, y)
        R = jacrev(lambda a, b: f_vec(af, a, b), argnums=argnums)(x, y)
    TJ = tfunc.jacfwd(lambda a, b: f_vec(torch, a, b), argnums=argnums)(*T(XN, YN))
    TR = tfunc.jacrev(lambda a, b: f_vec(torch, a, b), argnums=argnums)(*T(XN, YN))
    if argnums == (-1, 0):
        # torch 2.13's jacfwd does not wrap negative argnums when it replaces the
        # arguments: the block of y comes back as zeros (its jacrev is right); arrayflow
        # follows jacrev (docs/func.md, differences)
        assert not TJ[0].any()
        TJ = TR
    close_tree(J, TJ)
    close_tree(R, TR)


def test_jacfwd_pytrees_and_has_aux_match_torch(backend):
    p = {"w": af.asarray(MN), "b": af.asarray(YN[:3])}
    P = {"w": torch.tensor(MN), "b": torch.tensor(YN[:3])}
    with forbid_compute(backend):
        J, aux = jacfwd(lambda p, x: (f_tree(af, p, x), x.sum()), has_aux=True)(
            p, af.asarray(XN))
    TJ, taux = tfunc.jacfwd(lambda p, x: (f_tree(torch, p, x), x.sum()), has_aux=True)(
        P, torch.tensor(XN))
    close_tree(J, TJ)
    close(aux, taux)


def test_jacfwd_scalar_input_and_output_shapes_match_torch(backend):
    x = af.asarray(0.7)
    J = jacfwd(lambda a: af.stack([af.sin(a), a * a]))(x)
    TJ = tfunc.jacfwd(lambda a: torch.stack([torch.sin(a), a * a]))(torch.tensor(0.7))
    assert tuple(J.shape) == tuple(TJ.shape) == (2,)
    close(J, TJ)
    M = af.asarray(MN)
    J2 = jacfwd(lambda m: (m * m).sum())(M)
    assert tuple(J2.shape) == (3, 4)
    close(J2, tfunc.jacfwd(lambda m: (m * m).sum())(torch.tensor(MN)))


def test_jacfwd_errors_match_torch():
    x = af.asarray(XN)
    for call in (lambda m, a: m(lambda u: u, randomness="bad")(a),
                 lambda m, a: m(lambda u: u, argnums=3)(a),
                 lambda m, a: m(lambda u: (u, 2.0))(a)):
        with pytest.raises(RuntimeError) as te:
            call(tfunc.jacfwd, torch.tensor(XN))
        with pytest.raises(RuntimeError) as ae:
            call(jacfwd, x)
        assert type(ae.value) is type(te.value)
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        jacfwd(af.sin, randomness="bad")(x)


def test_hessian_matches_torch(backend):
    x, y = A(XN, YN)
    with forbid_compute(backend):
        H = hessian(lambda a, b: f_scalar(af, a, b))(x, y)
        H01 = hessian(lambda a, b: f_scalar(af, a, b), argnums=(0, 1))(x, y)
    close(H, tfunc.hessian(lambda a, b: f_scalar(torch, a, b))(*T(XN, YN)))
    close_tree(H01, tfunc.hessian(lambda a, b: f_scalar(torch, a, b), argnums=(0, 1))(
        *T(XN, YN)))


# --- composition --------------------------------------------------------------------------------

def test_jacfwd_of_jacrev_and_jacrev_of_jacfwd_match_torch(backend):
    (x,) = A(XN)

    def g(ns, a):
        return ns.tanh(a) * a.sum()

    with forbid_compute(backend):
        a1 = jacfwd(jacrev(lambda a: g(af, a)))(x)
        a2 = jacrev(jacfwd(lambda a: g(af, a)))(x)
    t1 = tfunc.jacfwd(tfunc.jacrev(lambda a: g(torch, a)))(torch.tensor(XN))
    close(a1, t1)
    close(a2, t1)


def test_jvp_of_grad_forward_over_reverse_matches_torch(backend):
    x, v, y = A(XN, VN, YN)
    with forbid_compute(backend):
        out, tout = jvp(grad(lambda a: f_scalar(af, a, y)), (x,), (v,))
    r = tfunc.jvp(tfunc.grad(lambda a: f_scalar(torch, a, torch.tensor(YN))), T(XN), T(VN))
    close(out, r[0])
    close(tout, r[1])
    assert not out.requires_grad and not tout.requires_grad


def test_grad_of_a_function_using_jvp_matches_torch(backend):
    x, v = A(XN, VN)
    with forbid_compute(backend):
        g = grad(lambda a: jvp(lambda z: af.exp(z) * z, (a,), (v,))[1].sum())(x)
    tg = tfunc.grad(lambda a: tfunc.jvp(lambda z: torch.exp(z) * z, (a,),
                                        (torch.tensor(VN),))[1].sum())(torch.tensor(XN))
    close(g, tg)


def test_jvp_of_vjp_and_backward_through_jvp_match_torch(backend):
    x, v, u = A(XN, VN, YN)
    # a tangent's graph reaches an input that requires grad outside: backward works
    xr = af.asarray(XN).requires_grad_()
    _, t = jvp(lambda a: af.sin(a) * a, (xr,), (v,))
    t.sum().backward()
    txr = torch.tensor(XN, requires_grad=True)
    _, tt = tfunc.jvp(lambda a: torch.sin(a) * a, (txr,), (torch.tensor(VN),))
    tt.sum().backward()
    close(xr.grad, txr.grad)

    def h(ns, fn, a):
        return fn(lambda z: ns.sin(z) * z, a)[1](u if ns is af else torch.tensor(YN))[0]

    out = jvp(lambda a: h(af, vjp, a), (x,), (v,))[1]
    tout = tfunc.jvp(lambda a: h(torch, tfunc.vjp, a), T(XN), T(VN))[1]
    close(out, tout)


# --- custom Functions ---------------------------------------------------------------------------

def _mul_fn(ns_function, ns):
    # the split form (forward + setup_context): torch.func requires it for custom Functions
    class MulScale(ns_function):
        calls = []
        generate_vmap_rule = True  # torch's jacfwd runs vmap

        @staticmethod
        def forward(x, y, c):
            MulScale.calls.append("forward")
            return x * y * c

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, y, c = inputs
            ctx.save_for_forward(x, y)
            ctx.save_for_backward(x, y)
            ctx.c = c

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y * ctx.c, g * x * ctx.c, None

        @staticmethod
        def jvp(ctx, tx, ty, tc):
            MulScale.calls.append(("jvp", tc is None))
            x, y = ctx.saved_tensors
            return (tx * y + x * ty) * ctx.c

    return MulScale


def test_custom_function_jvp_matches_torch(backend):
    F = _mul_fn(af.autograd.Function, af)
    TF = _mul_fn(torch.autograd.Function, torch)
    x, y, v = A(XN, YN, VN)
    with forbid_compute(backend):
        with fwAD.dual_level():
            o = F.apply(fwAD.make_dual(x, v), y, 2.0)  # y has no tangent: zeros
            p, t = fwAD.unpack_dual(o)
    import torch.autograd.forward_ad as tfw
    with tfw.dual_level():
        to = TF.apply(tfw.make_dual(torch.tensor(XN), torch.tensor(VN)), torch.tensor(YN), 2.0)
        tp, tt = tfw.unpack_dual(to)
    close(p, tp)
    close(t, tt)
    assert F.calls == TF.calls == ["forward", ("jvp", True)]
    # through the transforms
    close(jvp(lambda a, b: F.apply(a, b, 3.0), (x, y), (v, x))[1],
          tfunc.jvp(lambda a, b: TF.apply(a, b, 3.0), T(XN, YN), T(VN, XN))[1])
    close(jacfwd(lambda a: F.apply(a, y, 1.5))(x),
          tfunc.jacfwd(lambda a: TF.apply(a, torch.tensor(YN), 1.5))(torch.tensor(XN)))


def test_custom_function_forward_sees_no_tangent():
    seen = []

    class Probe(af.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            seen.append(fwAD.unpack_dual(x).tangent)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, tx):
            return tx * 2

    x, v = A(XN, VN)
    _, t = jvp(Probe.apply, (x,), (v,))
    assert seen == [None]
    np.testing.assert_allclose(host(t), 2 * VN)


def test_custom_function_without_jvp_raises_torch_error_naming_it():
    class NoJvp(af.autograd.Function):
        ran = 0

        @staticmethod
        def forward(ctx, x):
            NoJvp.ran += 1
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class TNoJvp(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
        tfunc.jvp(TNoJvp.apply, T(XN), T(VN))
    x, v = A(XN, VN)
    with pytest.raises(NotImplementedError,
                       match="NoJvp.*You must implement the jvp function for custom "
                             "autograd.Function to use it with forward mode AD"):
        jvp(NoJvp.apply, (x,), (v,))
    assert NoJvp.ran == 0  # a failed call changes nothing
    # without tangents the Function still works in a level
    with fwAD.dual_level():
        np.testing.assert_allclose(host(NoJvp.apply(x)), 2 * XN)


def test_custom_function_jvp_several_outputs_and_grad_of_it():
    class SinCos(af.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(x)
            ctx.save_for_backward(x)
            return af.sin(x), af.cos(x)

        @staticmethod
        def backward(ctx, gs, gc):
            (x,) = ctx.saved_tensors
            return gs * af.cos(x) - gc * af.sin(x)

        @staticmethod
        def jvp(ctx, tx):
            (x,) = ctx.saved_tensors
            return tx * af.cos(x), -tx * af.sin(x)

    x, v = A(XN, VN)
    (s, c), (ts, tc) = jvp(SinCos.apply, (x,), (v,))
    np.testing.assert_allclose(host(ts), np.cos(XN) * VN, rtol=1e-12)
    np.testing.assert_allclose(host(tc), -np.sin(XN) * VN, rtol=1e-12)
    # reverse over the custom jvp: d/dx sum(v cos x) = -v sin x
    g = grad(lambda a: jvp(SinCos.apply, (a,), (v,))[1][0].sum())(x)
    np.testing.assert_allclose(host(g), -VN * np.sin(XN), rtol=1e-12)


def test_custom_function_jvp_wrong_count_raises():
    class Bad(af.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0, x * 2.0

        @staticmethod
        def backward(ctx, a, b):
            return a + 2 * b

        @staticmethod
        def jvp(ctx, tx):
            return tx

    x, v = A(XN, VN)
    with pytest.raises(RuntimeError, match="Bad.jvp: expected 2 tangents"):
        jvp(Bad.apply, (x,), (v,))


Pt = namedtuple("Pt", ["a", "b"])


def test_jvp_namedtuple_structure_matches_torch():
    x, y = A(XN, YN)
    out, t = jvp(lambda p: Pt(af.sin(p.a), p.a * p.b), (Pt(x, y),), (Pt(y, x),))
    r = tfunc.jvp(lambda p: Pt(torch.sin(p.a), p.a * p.b), (Pt(*T(XN, YN)),),
                  (Pt(*T(YN, XN)),))
    assert type(t) is Pt
    close_tree(t, r[1])


def test_jvp_of_grad_through_a_closed_over_dual_matches_torch(backend):
    # the tangent reaches grad's VJP rules through a residual that does not require grad
    # (z) and an output residual (exp's), both rebuilt as Tensors under create_graph
    x, z, v = A(XN, YN, VN)
    with forbid_compute(backend):
        t = jvp(lambda z: grad(lambda a: (af.exp(a) * z * z).sum())(x), (z,), (v,))[1]
    tt = tfunc.jvp(lambda z: tfunc.grad(lambda a: (torch.exp(a) * z * z).sum())(
        torch.tensor(XN)), T(YN), T(VN))[1]
    close(t, tt)


# --- arrayflow/examples/func_examples.py ------------------------------------------------------

def _example_params():
    rng = np.random.default_rng(7)
    return {"0.weight": rng.standard_normal((4, 3)), "0.bias": rng.standard_normal(4),
            "2.weight": rng.standard_normal((1, 4)), "2.bias": rng.standard_normal(1)}


def test_example_loss_hessian_matches_a_loop_of_grad_and_torch(backend):
    from arrayflow.examples import func_examples as ex
    from arrayflow.func import functional_call

    model = ex.make_model()
    pn = _example_params()
    params = {k: af.asarray(v) for k, v in pn.items()}
    xn = np.random.default_rng(8).standard_normal((6, 3))
    yn = np.random.default_rng(9).standard_normal(6)
    x, y = af.asarray(xn), af.asarray(yn)
    with forbid_compute(backend):
        H = ex.hessian_matrix(ex.loss_hessian(model, x, y, params))

    # the explicit loop: row i is the gradient of the i-th entry of the gradient
    def loss(p):
        return ((functional_call(model, p, (x,))[:, 0] - y) ** 2).mean()

    def flat_grad(p):
        g = grad(loss)(p)
        return af.concat([af.reshape(g[k], (-1,)) for k in pn])

    n = H.shape[0]
    rows = []
    for i in range(n):
        gi = grad(lambda p, i=i: flat_grad(p)[i])(params)
        rows.append(af.concat([af.reshape(gi[k], (-1,)) for k in pn]))
    np.testing.assert_allclose(host(H), np.stack([host(r) for r in rows]), rtol=1e-10,
                               atol=1e-12)
    # and torch.func.hessian of the same model and loss
    tmodel = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    tparams = {k: torch.tensor(v) for k, v in pn.items()}
    tx, ty = torch.tensor(xn), torch.tensor(yn)
    TH = torch.func.hessian(lambda p: ((torch.func.functional_call(tmodel, p, (tx,))[:, 0]
                                        - ty) ** 2).mean())(tparams)
    TM = torch.cat([torch.cat([TH[a][b].reshape(pn[a].size, pn[b].size) for b in pn], 1)
                    for a in pn], 0)
    np.testing.assert_allclose(host(H), TM.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("which", ["lotka_volterra", "robertson"])
def test_example_ode_jacobian_matches_analytic_and_finite_differences(backend, which):
    from arrayflow.examples import func_examples as ex

    if which == "lotka_volterra":
        un = np.array([10.0, 5.0])
        a, b, d, g = 1.1, 0.4, 0.1, 0.4
        rhs = ex.lotka_volterra_rhs
        exact = np.array([[a - b * un[1], -b * un[0]], [d * un[1], d * un[0] - g]])
    else:
        un = np.array([0.9, 2e-5, 0.1])
        k1, k2, k3 = 0.04, 3e7, 1e4
        rhs = ex.robertson_rhs
        exact = np.array([[-k1, k3 * un[2], k3 * un[1]],
                          [k1, -k3 * un[2] - 2 * k2 * un[1], -k3 * un[1]],
                          [0.0, 2 * k2 * un[1], 0.0]])
    u = af.asarray(un)
    with forbid_compute(backend):
        J = ex.ode_jacobian(rhs, u)
    np.testing.assert_allclose(host(J), exact, rtol=1e-12, atol=1e-12)
    # an explicit loop of central finite differences, one column per state variable
    cols = []
    for k in range(len(un)):
        h = 1e-6 * max(1.0, abs(un[k])) if which == "lotka_volterra" else 1e-9
        e = np.zeros(len(un))
        e[k] = h
        cols.append((host(rhs(af.asarray(un + e))) - host(rhs(af.asarray(un - e)))) / (2 * h))
    np.testing.assert_allclose(host(J), np.stack(cols, axis=1), rtol=1e-5, atol=1e-5)


def test_example_implicit_euler_conserves_mass_and_solves_its_equation():
    from arrayflow.examples import func_examples as ex

    u = af.asarray(np.array([1.0, 0.0, 0.0]))  # float64
    for _ in range(3):
        v = ex.implicit_euler_step(ex.robertson_rhs, u, 0.1)
        res = host(v - u - 0.1 * ex.robertson_rhs(v))
        assert np.abs(res).max() < 1e-10
        u = v
    assert abs(float(af.sum(u)) - 1.0) < 1e-12  # a linear invariant: kept exactly
    assert float(u[2]) > 0.0


def test_custom_function_jvp_nests_and_composes():
    class Square(af.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(x)
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

        @staticmethod
        def jvp(ctx, tx):
            (x,) = ctx.saved_tensors
            return 2 * x * tx

    x, v, w = A(XN, VN, YN)
    # forward over forward: each level's jvp runs with the other level's tangents live
    t2 = jvp(lambda a: jvp(Square.apply, (a,), (v,))[1], (x,), (w,))[1]
    np.testing.assert_allclose(host(t2), 2 * VN * YN, rtol=1e-12)
    # forward over reverse (backward under create_graph) and forward over forward
    for h in (hessian(lambda a: Square.apply(a).sum())(x),
              jacfwd(jacfwd(lambda a: Square.apply(a).sum()))(x)):
        np.testing.assert_allclose(host(h), 2 * np.eye(4), rtol=1e-12)


def test_jvp_requires_grad_of_results_matches_torch():
    cases = []
    for ns in (af, torch):
        mk = af.asarray if ns is af else torch.tensor
        fn = jvp if ns is af else tfunc.jvp
        nograd = af.no_grad if ns is af else torch.no_grad
        x, v = mk(XN), mk(VN)
        xr = mk(XN).requires_grad_()
        vr = mk(VN).requires_grad_()
        got = []
        for p, t in ((xr, v), (x, vr), (x, v)):
            o, tt = fn(ns.sin, (p,), (t,))
            got.append((o.requires_grad, tt.requires_grad))
        with nograd():
            o, tt = fn(ns.sin, (xr,), (v,))
            got.append((o.requires_grad, tt.requires_grad))
        cases.append(got)
    assert cases[0] == cases[1]


def test_jacfwd_refuses_a_function_writing_its_input_in_place():
    # jacfwd runs f once per input element: a write into an input would make the later
    # columns those of another point (torch runs f once, under vmap): an error, not a
    # silently different Jacobian; writing into a clone is fine
    def g(x, y):
        y.add_(x)
        return y * x

    x, y = A(XN[:2], YN[:2])
    with pytest.raises(RuntimeError, match="modified an input in place"):
        jacfwd(g, argnums=(0, 1))(x, y)

    def g2(ns, x, y):
        y = y * 1.0
        y.add_(x)
        return y * x

    J = jacfwd(lambda a, b: g2(af, a, b), argnums=(0, 1))(*A(XN[:2], YN[:2]))
    TJ = tfunc.jacfwd(lambda a, b: g2(torch, a, b), argnums=(0, 1))(*T(XN[:2], YN[:2]))
    close_tree(J, TJ)


def test_custom_function_keyword_only_dual_raises_instead_of_dropping_its_tangent():
    class Scale(af.autograd.Function):
        @staticmethod
        def forward(x, *, s):
            return x * s

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g

        @staticmethod
        def jvp(ctx, tx):
            return tx

    x, v = A(XN, VN)
    with pytest.raises(NotImplementedError, match="keyword-only argument 's'"):
        jvp(lambda s: Scale.apply(x, s=s), (af.asarray(YN),), (v,))
    # a plain keyword-only Tensor is fine
    _, t = jvp(lambda a: Scale.apply(a, s=af.asarray(YN)), (x,), (v,))
    np.testing.assert_allclose(host(t), VN, rtol=1e-12)
