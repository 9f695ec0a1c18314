"""``arrayflow.func`` (reverse mode): grad, grad_and_value, vjp, jacrev, functional_call,
stack_module_state and the private pytree utilities, each against ``torch.func`` on the same
inputs (PyTorch 2.13), on every backend where values are computed.
"""

from __future__ import annotations

from collections import OrderedDict, namedtuple

import numpy as np
import pytest
from conftest import forbid_compute

import arrayflow as af
from arrayflow import nn
from arrayflow.func import (
    functional_call,
    grad,
    grad_and_value,
    jacrev,
    stack_module_state,
    vjp,
)
from arrayflow.func._pytree import tree_flatten, tree_leaves, tree_map, tree_unflatten

torch = pytest.importorskip("torch")
tfunc = torch.func
tpytree = pytest.importorskip("torch.utils._pytree")

RNG = np.random.default_rng(0)
XN = RNG.standard_normal(4).astype(np.float32)
YN = RNG.standard_normal(4).astype(np.float32)
MN = RNG.standard_normal((3, 4)).astype(np.float32)


def host(t):
    return np.asarray(t.detach().numpy())


def th(t):
    return t.detach().numpy()


def close(a, b, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(host(a), th(b), rtol=rtol, atol=atol)


def close_tree(a, b, rtol=1e-5, atol=1e-6):
    la, sa = tree_flatten(a)
    lb, sb = tpytree.tree_flatten(b)
    assert len(la) == len(lb), (sa, sb)
    assert repr(sa).replace(" ", "") == tpytree.treespec_pprint(sb).replace(" ", "")
    for x, y in zip(la, lb):
        close(x, y, rtol, atol)


# the same functions, written once against either namespace
def f_sin(ns, x, y):
    return (ns.sin(x) * y).sum() + (x * x * y).sum()


def f_vec(ns, x, y):
    return ns.sin(x) * y + x * x


def f_params(ns, p, x):
    h = ns.tanh(p["w"] @ x + p["b"])
    return (h * h).sum() + (p["s"][0] * p["s"][1]).sum() * x.sum()


def af_args(*arrays):
    return tuple(af.asarray(a) for a in arrays)


def t_args(*arrays):
    return tuple(torch.tensor(a) for a in arrays)


# --- pytrees ------------------------------------------------------------------------------------

Point = namedtuple("Point", ["x", "y"])

TREES = [
    1,
    None,
    (1, None, [2, {"b": 3, "a": 4}]),
    {"z": (1, 2), "a": [3, Point(4, [5, 6])], "n": None},
    OrderedDict([("q", 1), ("p", (2,))]),
    [],
    (),
    {},
    Point(x=(1,), y={"k": [2, 3]}),
]


@pytest.mark.parametrize("tree", TREES, ids=lambda t: repr(t)[:30])
def test_pytree_flatten_matches_torch(tree):
    leaves, spec = tree_flatten(tree)
    t_leaves, t_spec = tpytree.tree_flatten(tree)
    assert leaves == t_leaves  # same leaves in the same order (None is a leaf, as in 2.13)
    assert spec.num_leaves == t_spec.num_leaves
    assert repr(spec).replace(" ", "") == tpytree.treespec_pprint(t_spec).replace(" ", "")
    back = tree_unflatten(leaves, spec)
    assert back == tree and type(back) is type(tree)
    assert tree_leaves(tree) == t_leaves


def test_pytree_namedtuple_and_ordereddict_rebuilt_with_their_types():
    tree = {"p": Point(1, 2), "o": OrderedDict([("b", 1), ("a", 2)])}
    out = tree_map(lambda v: v * 10, tree)
    assert type(out["p"]) is Point and out["p"] == Point(10, 20)
    assert type(out["o"]) is OrderedDict and list(out["o"].items()) == [("b", 10), ("a", 20)]


def test_pytree_list_subclass_is_a_leaf_as_in_torch():
    class L(list):
        pass

    tree = (L([1, 2]), 3)
    leaves, _ = tree_flatten(tree)
    assert leaves == tpytree.tree_leaves(tree) == [L([1, 2]), 3]


def test_pytree_map_several_trees_matches_torch():
    a = (1, [2, {"k": 3}])
    b = (10, [20, {"k": 30}])
    assert tree_map(lambda x, y: x + y, a, b) == tpytree.tree_map(lambda x, y: x + y, a, b)


def test_pytree_specs_compare_by_structure():
    assert tree_flatten((1, [2]))[1] == tree_flatten((5, [6]))[1]
    assert tree_flatten((1, [2]))[1] != tree_flatten((1, (2,)))[1]
    assert tree_flatten({"a": 1, "b": 2})[1] != tree_flatten({"b": 1, "a": 2})[1]  # key order
    assert tree_flatten([1])[1] != tree_flatten([[1]])[1]


def test_pytree_errors():
    with pytest.raises(ValueError, match="tree 1 has structure"):
        tree_map(lambda x, y: x, (1, 2), [1, 2])
    _, spec = tree_flatten((1, 2))
    with pytest.raises(ValueError, match="expects 2 leaves, got 3"):
        tree_unflatten([1, 2, 3], spec)


# --- grad, grad_and_value -----------------------------------------------------------------------

@pytest.mark.parametrize("argnums", [0, 1, -1, (0, 1), (1, 0), (-1,)])
def test_grad_argnums_matches_torch(backend, argnums):
    x, y = af_args(XN, YN)
    with forbid_compute(backend):
        g = grad(lambda a, b: f_sin(af, a, b), argnums=argnums)(x, y)
    tg = tfunc.grad(lambda a, b: f_sin(torch, a, b), argnums=argnums)(*t_args(XN, YN))
    close_tree(g, tg)


def test_grad_and_value_matches_torch(backend):
    x, y = af_args(XN, YN)
    g, v = grad_and_value(lambda a, b: f_sin(af, a, b), argnums=(0, 1))(x, y)
    tg, tv = tfunc.grad_and_value(lambda a, b: f_sin(torch, a, b), argnums=(0, 1))(
        *t_args(XN, YN))
    close_tree(g, tg)
    close(v, tv)
    assert not v.requires_grad and not tv.requires_grad


def _params_np():
    return {"w": MN, "b": YN[:3], "s": (np.float32(0.5) * YN[:2], XN[:2])}


def _params(mod, tensor):
    p = _params_np()
    return {"w": tensor(p["w"]), "b": tensor(p["b"]), "s": (tensor(p["s"][0]),
                                                            tensor(p["s"][1]))}


def test_grad_of_a_dict_pytree_matches_torch(backend):
    p = _params(af, af.asarray)
    x = af.asarray(XN)
    g = grad(lambda p, x: f_params(af, p, x))(p, x)
    tg = tfunc.grad(lambda p, x: f_params(torch, p, x))(_params(torch, torch.tensor),
                                                         torch.tensor(XN))
    assert isinstance(g, dict) and list(g) == ["w", "b", "s"] and isinstance(g["s"], tuple)
    close_tree(g, tg)


def test_grad_has_aux_and_kwargs_match_torch(backend):
    def make(ns):
        def f(x, y, *, scale):
            out = (x * y).sum() * scale
            return out, {"out": out, "pair": (x * 2, y + 1)}
        return f

    x, y = af_args(XN, YN)
    g, aux = grad(make(af), argnums=1, has_aux=True)(x, y, scale=3.0)
    tg, taux = tfunc.grad(make(torch), argnums=1, has_aux=True)(*t_args(XN, YN), scale=3.0)
    close(g, tg)
    close_tree(aux, taux)
    assert not aux["out"].requires_grad and not aux["pair"][0].requires_grad
    gv, (v, aux2) = grad_and_value(make(af), has_aux=True)(x, y, scale=2.0)
    tgv, (tv, taux2) = tfunc.grad_and_value(make(torch), has_aux=True)(*t_args(XN, YN),
                                                                       scale=2.0)
    close(gv, tgv)
    close(v, tv)
    close_tree(aux2, taux2)


def test_grad_of_unused_input_is_zeros_as_torch(backend):
    x, y = af_args(XN, YN)
    g = grad(lambda a, b: (a * a).sum(), argnums=(0, 1))(x, y)
    tg = tfunc.grad(lambda a, b: (a * a).sum(), argnums=(0, 1))(*t_args(XN, YN))
    close_tree(g, tg)
    assert np.all(host(g[1]) == 0)
    # an output that does not depend on the input at all
    g0 = grad(lambda a: af.sum(af.ones((3,))))(x)
    assert g0.shape == (4,) and np.all(host(g0) == 0)


def test_grad_keeps_dtype(backend):
    x = af.asarray(XN.astype(np.float64))
    g = grad(lambda a: (a ** 3).sum())(x)
    assert g.dtype == af.float64
    close(g, tfunc.grad(lambda a: (a ** 3).sum())(torch.tensor(XN.astype(np.float64))),
          rtol=1e-12)


def test_grad_does_not_touch_inputs_or_populate_dot_grad(backend):
    x = af.asarray(XN)
    g = grad(lambda a: (a ** 2).sum())(x)
    assert not x.requires_grad and x.grad is None and x.grad_fn is None
    assert not g.requires_grad and g.grad_fn is None  # torch.func: plain input, plain result
    np.testing.assert_array_equal(host(x), XN)
    # an input that requires grad: no .grad, but the result is tracked (as torch.func)
    xr = af.asarray(XN).requires_grad_()
    txr = torch.tensor(XN, requires_grad=True)
    g = grad(lambda a: (a ** 3).sum())(xr)
    tg = tfunc.grad(lambda a: (a ** 3).sum())(txr)
    assert xr.grad is None and txr.grad is None
    assert g.requires_grad == tg.requires_grad is True
    assert xr.requires_grad and xr.grad_fn is None  # still the same leaf
    close(g, tg)
    g.sum().backward()
    tg.sum().backward()
    close(xr.grad, txr.grad)  # d/dx sum(3 x^2) = 6 x, through the transform


def test_grad_closure_over_a_tensor_requiring_grad_matches_torch(backend):
    w = af.asarray(YN).requires_grad_()
    tw = torch.tensor(YN, requires_grad=True)
    x = af.asarray(XN)
    g = grad(lambda a: (af.sin(a) * w).sum())(x)
    tg = tfunc.grad(lambda a: (torch.sin(a) * tw).sum())(torch.tensor(XN))
    assert g.requires_grad == tg.requires_grad is True
    close(g, tg)
    (g * g).sum().backward()
    (tg * tg).sum().backward()
    close(w.grad, tw.grad)


def test_grad_under_no_grad_is_computed_but_not_tracked(backend):
    xr = af.asarray(XN).requires_grad_()
    with af.no_grad():
        g = grad(lambda a: (a ** 3).sum())(xr)
    with torch.no_grad():
        tg = tfunc.grad(lambda a: (a ** 3).sum())(torch.tensor(XN, requires_grad=True))
    assert g.requires_grad == tg.requires_grad is False
    close(g, tg)


def test_grad_respects_no_grad_inside_f_as_torch(backend):
    def make(ns, ctx):
        def f(x):
            with ctx():
                c = x ** 2
            return (x - c).sum()
        return f

    g = grad(make(af, af.no_grad))(af.asarray(XN))
    tg = tfunc.grad(make(torch, torch.no_grad))(torch.tensor(XN))
    close(g, tg)
    np.testing.assert_allclose(host(g), np.ones(4))


def test_grad_same_tensor_twice_gets_separate_gradients(backend):
    x = af.asarray(XN)
    g = grad(lambda a, b: (a * b * b).sum(), argnums=(0, 1))(x, x)
    tx = torch.tensor(XN)
    tg = tfunc.grad(lambda a, b: (a * b * b).sum(), argnums=(0, 1))(tx, tx)
    close_tree(g, tg)


# --- composition ---------------------------------------------------------------------------------

def test_grad_of_grad_matches_torch(backend):
    def f(ns):
        return lambda x: ns.sin(x) * x * x

    x = af.asarray(np.float32(0.7))
    g2 = grad(grad(f(af)))(x)
    g3 = grad(grad(grad(f(af))))(x)
    tx = torch.tensor(np.float32(0.7))
    close(g2, tfunc.grad(tfunc.grad(f(torch)))(tx))
    close(g3, tfunc.grad(tfunc.grad(tfunc.grad(f(torch))))(tx))
    assert not g2.requires_grad and not g3.requires_grad


def test_grad_of_a_function_of_grad_on_vectors(backend):
    # d/dx sum(grad f(x)^2), f with cross terms between x and y
    def outer(ns, inner_grad):
        return lambda x, y: (inner_grad(x, y) ** 2).sum()

    x, y = af_args(XN, YN)
    ig = grad(lambda a, b: f_sin(af, a, b))
    g = grad(outer(af, ig), argnums=(0, 1))(x, y)
    tig = tfunc.grad(lambda a, b: f_sin(torch, a, b))
    tg = tfunc.grad(outer(torch, tig), argnums=(0, 1))(*t_args(XN, YN))
    close_tree(g, tg, rtol=1e-4, atol=1e-5)


def test_jacrev_of_grad_is_torch_hessian(backend):
    x, y = af_args(XN, YN)
    h = jacrev(grad(lambda a, b: f_sin(af, a, b)))(x, y)
    th_ = tfunc.hessian(lambda a, b: f_sin(torch, a, b))(*t_args(XN, YN))
    close(h, th_, rtol=1e-4, atol=1e-5)
    assert h.shape == (4, 4) and not h.requires_grad
    # mixed second derivatives with argnums on both levels
    hm = jacrev(grad(lambda a, b: f_sin(af, a, b), argnums=1), argnums=0)(x, y)
    thm = tfunc.jacrev(tfunc.grad(lambda a, b: f_sin(torch, a, b), argnums=1), argnums=0)(
        *t_args(XN, YN))
    close(hm, thm, rtol=1e-4, atol=1e-5)


def test_grad_of_jacrev_and_of_vjp(backend):
    x, y = af_args(XN, YN)

    def via_jac(ns, jac):
        return lambda a, b: (jac(lambda u: f_vec(ns, u, b))(a) ** 2).sum()

    g = grad(via_jac(af, jacrev), argnums=(0, 1))(x, y)
    tg = tfunc.grad(via_jac(torch, tfunc.jacrev), argnums=(0, 1))(*t_args(XN, YN))
    close_tree(g, tg, rtol=1e-4, atol=1e-5)

    def via_vjp(ns, vjp_):
        def f(a, b):
            _, fn = vjp_(lambda u: f_vec(ns, u, b), a)
            return (fn(b * 3)[0] ** 2).sum()
        return f

    g = grad(via_vjp(af, vjp), argnums=(0, 1))(x, y)
    tg = tfunc.grad(via_vjp(torch, tfunc.vjp), argnums=(0, 1))(*t_args(XN, YN))
    close_tree(g, tg, rtol=1e-4, atol=1e-5)


def test_transforms_stay_lazy_on_dask(backend):
    x, y = af_args(XN, YN)
    with forbid_compute(backend):
        h = jacrev(grad(lambda a, b: f_sin(af, a, b)))(x, y)
        g = grad(lambda a: (grad(lambda b: (af.sin(b) * b).sum())(a) ** 2).sum())(x)
        out, fn = vjp(lambda a: af.sin(a) * y, x)
        r = fn(y)[0]
    assert h.shape == (4, 4) and g.shape == (4,) and r.shape == (4,)


# --- vjp -----------------------------------------------------------------------------------------

def test_vjp_pytree_output_matches_torch(backend):
    def make(ns):
        return lambda x, y: {"a": ns.sin(x) * y, "b": (x.sum(), x[:2] * y[:2])}

    x, y = af_args(XN, YN)
    out, fn = vjp(make(af), x, y)
    tout, tfn = tfunc.vjp(make(torch), *t_args(XN, YN))
    close_tree(out, tout)
    ct_np = {"a": YN * 2, "b": (np.float32(1.5), XN[:2])}
    ct = tree_map(af.asarray, ct_np)
    tct = tpytree.tree_map(torch.tensor, ct_np)
    res, tres = fn(ct), tfn(tct)
    assert isinstance(res, tuple) and len(res) == 2
    close_tree(res, tres)
    close_tree(fn(ct), tres)  # vjp_fn can be called again
    assert not out["a"].requires_grad and not res[0].requires_grad


def test_vjp_has_aux_and_pytree_primals_match_torch(backend):
    def make(ns):
        def f(p, x):
            o = ns.tanh(p["w"] @ x + p["b"])
            return o, {"mean": o.mean()}
        return f

    p = _params(af, af.asarray)
    tp = _params(torch, torch.tensor)
    out, fn, aux = vjp(make(af), p, af.asarray(XN), has_aux=True)
    tout, tfn, taux = tfunc.vjp(make(torch), tp, torch.tensor(XN), has_aux=True)
    close(out, tout)
    close_tree(aux, taux)
    res, tres = fn(af.asarray(YN[:3])), tfn(torch.tensor(YN[:3]))
    close_tree(res, tres)
    assert np.all(host(res[0]["s"][0]) == 0)  # unused primals get zeros, as torch.func


def test_vjp_fn_create_graph_follows_grad_mode_and_inputs(backend):
    xr = af.asarray(XN).requires_grad_()
    txr = torch.tensor(XN, requires_grad=True)
    out, fn = vjp(lambda a: a ** 3, xr)
    tout, tfn = tfunc.vjp(lambda a: a ** 3, txr)
    assert out.requires_grad == tout.requires_grad is True
    r, tr = fn(af.ones_like(out))[0], tfn(torch.ones_like(tout))[0]
    assert r.requires_grad == tr.requires_grad is True
    r.sum().backward()
    tr.sum().backward()
    close(xr.grad, txr.grad)
    with af.no_grad():
        r2 = fn(af.ones_like(out))[0]
    with torch.no_grad():
        tr2 = tfn(torch.ones_like(tout))[0]
    assert r2.requires_grad == tr2.requires_grad is False
    close(r2, tr2)


def test_vjp_cotangent_errors():
    out, fn = vjp(lambda a: {"y": a * 2}, af.asarray(XN))
    with pytest.raises(RuntimeError, match=r"structure of cotangents.*\{'y': \*\}"):
        fn((af.asarray(XN),))
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: cotangent 0 has a shape of "
                                           r"\(3,\) and output 0 has a shape of \(4,\)"):
        fn({"y": af.ones((3,))})
    with pytest.raises(TypeError, match="cotangent 0 must be a Tensor, got float"):
        fn({"y": 1.0})
    # the same calls in torch.func raise RuntimeError for the first two
    _, tfn = tfunc.vjp(lambda a: {"y": a * 2}, torch.tensor(XN))
    for bad in [(torch.tensor(XN),), {"y": torch.ones(3)}]:
        with pytest.raises(RuntimeError):
            tfn(bad)


@pytest.mark.parametrize("bad, kind, msg", [
    (lambda a: 1.0, RuntimeError, "expected f\\(\\*primals\\) to return only tensors"),
    (lambda a: None, RuntimeError, "non-empty output"),
    (lambda a: (a, 1.0), RuntimeError, "only tensors, got unsupported type <class 'float'>"),
    (lambda a: af.astype(a, af.int64), RuntimeError, "floating-point or complex"),
])
def test_vjp_output_errors_as_torch(bad, kind, msg):
    with pytest.raises(kind, match=msg):
        vjp(bad, af.asarray(XN))


def test_vjp_non_tensor_primal_and_has_aux_errors():
    with pytest.raises(ValueError, match="Thing passed to transform API must be Tensor, got "
                                         "<class 'float'>"):
        vjp(lambda a: a, 1.0)
    with pytest.raises(ValueError):
        tfunc.vjp(lambda a: a, 1.0)
    with pytest.raises(RuntimeError, match=r"should be a tuple: \(output, aux\)"):
        vjp(lambda a: a, af.asarray(XN), has_aux=True)


# --- jacrev --------------------------------------------------------------------------------------

@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1,)])
def test_jacrev_matches_torch(backend, argnums):
    x, y = af_args(XN, YN)
    j = jacrev(lambda a, b: f_vec(af, a, b), argnums=argnums)(x, y)
    tj = tfunc.jacrev(lambda a, b: f_vec(torch, a, b), argnums=argnums)(*t_args(XN, YN))
    close_tree(j, tj)


def test_jacrev_pytree_output_and_input_match_torch(backend):
    def make(ns):
        return lambda p, x: {"h": ns.tanh(p["w"] @ x + p["b"]),
                             "n": ((p["w"] ** 2).sum(), x[0] * p["s"][1])}

    p = _params(af, af.asarray)
    j = jacrev(make(af))(p, af.asarray(XN))
    tj = tfunc.jacrev(make(torch))(_params(torch, torch.tensor), torch.tensor(XN))
    close_tree(j, tj)
    assert j["h"]["w"].shape == (3, 3, 4) and j["n"][0]["b"].shape == (3,)


def test_jacrev_has_aux_scalar_and_empty_outputs_match_torch(backend):
    x = af.asarray(MN)
    j, aux = jacrev(lambda a: ((a ** 2).sum(axis=0), a.mean()), has_aux=True)(x)
    tj, taux = tfunc.jacrev(lambda a: ((a ** 2).sum(0), a.mean()), has_aux=True)(
        torch.tensor(MN))
    close(j, tj)
    close(aux, taux)
    j0 = jacrev(lambda a: (a ** 3).sum())(x)
    close(j0, tfunc.jacrev(lambda a: (a ** 3).sum())(torch.tensor(MN)))
    je = jacrev(lambda a: a[:0] * 2)(x)
    tje = tfunc.jacrev(lambda a: a[:0] * 2)(torch.tensor(MN))
    assert je.shape == tuple(tje.shape) == (0, 4, 3, 4)


def test_jacrev_chunk_size_accepted_and_checked():
    x, y = af_args(XN, YN)
    for cs in (1, 3, 100):
        close(jacrev(lambda a: f_vec(af, a, y), chunk_size=cs)(x),
              tfunc.jacrev(lambda a: f_vec(torch, a, torch.tensor(YN)), chunk_size=cs)(
                  torch.tensor(XN)))
    for cs in (0, -1):
        with pytest.raises(ValueError, match="jacrev: `chunk_size` should be greater than 0"):
            jacrev(lambda a: a, chunk_size=cs)
        with pytest.raises(ValueError):
            tfunc.jacrev(lambda a: a, chunk_size=cs)


def test_jacrev_complex_errors_as_torch():
    with pytest.raises(RuntimeError, match="Expected all inputs to be real"):
        jacrev(lambda a: a)(af.asarray(XN.astype(np.complex64)))
    with pytest.raises(RuntimeError, match="Expected all outputs to be real"):
        jacrev(lambda a: af.astype(a, af.complex64))(af.asarray(XN))


# --- errors of grad -------------------------------------------------------------------------------

def test_grad_non_scalar_output_names_function_and_shape():
    def myloss(a):
        return a * 2

    with pytest.raises(RuntimeError, match=r"grad\(f\)\(\*args\) with f=.*myloss: Expected "
                                           r"f\(\*args\) to return a scalar Tensor, got tensor "
                                           r"with 1 dims \(shape \(4,\)\)"):
        grad(myloss)(af.asarray(XN))
    with pytest.raises(RuntimeError, match="to return a scalar Tensor"):
        tfunc.grad(myloss)(torch.tensor(XN))
    # a one-element 1-d output is not a scalar either (torch.func checks dim() == 0)
    with pytest.raises(RuntimeError, match=r"1 dims \(shape \(1,\)\)"):
        grad(lambda a: a.sum().reshape((1,)))(af.asarray(XN))


@pytest.mark.parametrize("argnums, msg", [
    (2, "Got argnum=2, but only 2 positional inputs"),
    (-3, "Got argnum=-3, but only 2 positional inputs"),
    ((0, 0), r"argnums elements must be unique, got \(0, 0\)"),
    ((), "argnums must be non-empty"),
    (1.0, "argnums must be int or Tuple\\[int, ...\\], got: <class 'float'>"),
    ([0], "argnums must be int or Tuple\\[int, ...\\], got: <class 'list'>"),
    ((0, "1"), "argnum must be int, got: <class 'str'>"),
])
def test_grad_argnums_errors_as_torch(argnums, msg):
    args = af_args(XN, YN)
    with pytest.raises(RuntimeError, match=msg):
        grad(lambda a, b: (a * b).sum(), argnums=argnums)(*args)
    with pytest.raises(RuntimeError):
        tfunc.grad(lambda a, b: (a * b).sum(), argnums=argnums)(*t_args(XN, YN))


@pytest.mark.parametrize("f, has_aux, kind, msg", [
    (lambda a: (a ** 2).sum(), True, RuntimeError, r"should be a tuple: \(output, aux\)"),
    (lambda a: ((a ** 2).sum(),), True, RuntimeError, r"got tuple of length 1"),
    (lambda a: 1.0, False, RuntimeError, "to return a Tensor, got <class 'float'>"),
    (lambda a: ((a ** 2).sum(), 1.0), True, RuntimeError, "aux .* only Tensors"),
])
def test_grad_output_errors_as_torch(f, has_aux, kind, msg):
    with pytest.raises(kind, match=msg):
        grad(f, has_aux=has_aux)(af.asarray(XN))
    with pytest.raises(kind):
        tfunc.grad(f, has_aux=has_aux)(torch.tensor(XN))


def test_grad_input_errors_as_torch():
    with pytest.raises(ValueError, match="must be Tensor, got <class 'float'>"):
        grad(lambda a: a)(1.0)
    with pytest.raises(ValueError, match="must be Tensor, got <class 'NoneType'>"):
        grad(lambda d: d["a"].sum())({"a": af.asarray(XN), "n": None})
    with pytest.raises(RuntimeError, match="only floating point and complex"):
        grad(lambda a: af.sum(a))(af.asarray([1, 2]))
    with pytest.raises(RuntimeError, match="Got argnum=0, but only 0 positional inputs"):
        grad(lambda: af.ones(()))()
    for bad in (1.0, {"a": torch.tensor(XN), "n": None}):
        with pytest.raises(ValueError):
            tfunc.grad(lambda a: a)(bad)


def test_failed_grad_leaves_inputs_unchanged():
    x = af.asarray(XN)
    with pytest.raises(RuntimeError):
        grad(lambda a: a * 2)(x)
    assert not x.requires_grad and x.grad is None
    np.testing.assert_array_equal(host(x), XN)


# --- functional_call, stack_module_state -------------------------------------------------------

class AfNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 5)
        self.fc2 = nn.Linear(5, 3)
        self.register_buffer("shift", af.zeros((3,)))

    def forward(self, x, *, scale=1.0):
        return self.fc2(af.tanh(self.fc1(x))) * scale + self.shift


class TNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 5)
        self.fc2 = torch.nn.Linear(5, 3)
        self.register_buffer("shift", torch.zeros(3))

    def forward(self, x, *, scale=1.0):
        return self.fc2(torch.tanh(self.fc1(x))) * scale + self.shift


def _state_np(seed=1):
    r = np.random.default_rng(seed)
    shapes = {"fc1.weight": (5, 4), "fc1.bias": (5,), "fc2.weight": (3, 5), "fc2.bias": (3,),
              "shift": (3,)}
    return {k: r.standard_normal(s).astype(np.float32) for k, s in shapes.items()}


def _split(state, tensor):
    params = {k: tensor(v) for k, v in state.items() if k != "shift"}
    return params, {"shift": tensor(state["shift"])}


def test_functional_call_matches_torch_and_restores(backend):
    m, tm = AfNet(), TNet()
    before = {k: v for k, v in m.named_parameters()}
    before_np = {k: host(v) for k, v in m.state_dict().items()}
    st = _state_np()
    x = af.asarray(RNG.standard_normal((2, 4)).astype(np.float32))
    tx = torch.tensor(x.numpy())
    params, bufs = _split(st, af.asarray)
    tparams, tbufs = _split(st, torch.tensor)
    out = functional_call(m, (params, bufs), (x,), {"scale": 2.0})
    tout = tfunc.functional_call(tm, (tparams, tbufs), (tx,), {"scale": 2.0})
    close(out, tout)
    out1 = functional_call(m, {**params, **bufs}, x)  # one dict, a single non-tuple arg
    close(out1, tfunc.functional_call(tm, {**tparams, **tbufs}, tx))
    # the module's own state is back, the same objects
    assert {k: v for k, v in m.named_parameters()} == before
    assert all(isinstance(p, nn.Parameter) for p in m.parameters())
    for k, v in m.state_dict().items():
        np.testing.assert_array_equal(host(v), before_np[k])
    # a partial dict: the other parameters are the module's own (strict=False)
    part = functional_call(m, {"fc2.bias": af.asarray(st["fc2.bias"])}, x)
    tm.load_state_dict({k: torch.tensor(before_np[k]) for k in before_np})
    tpart = tfunc.functional_call(tm, {"fc2.bias": torch.tensor(st["fc2.bias"])}, tx)
    close(part, tpart)


def test_functional_call_restores_when_forward_raises():
    class Boom(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            raise ValueError("boom")

    m = Boom()
    w = m.lin.weight
    with pytest.raises(ValueError, match="boom"):
        functional_call(m, {"lin.weight": af.zeros((2, 2))}, af.ones((2,)))
    assert m.lin.weight is w and isinstance(m.lin.weight, nn.Parameter)
    # a bad key in the middle of the swap: nothing stays swapped either
    with pytest.raises(AttributeError, match="has no attribute `nope`"):
        functional_call(m, {"lin.weight": af.zeros((2, 2)), "nope.weight": af.zeros(2)},
                        af.ones((2,)))
    assert m.lin.weight is w
    with pytest.raises(AttributeError):
        tfunc.functional_call(torch.nn.Linear(2, 2), {"nope.weight": torch.zeros(2)},
                              torch.ones(2))


def test_functional_call_strict_and_dict_errors_as_torch():
    m, tm = AfNet(), TNet()
    x, tx = af.ones((4,)), torch.ones(4)
    with pytest.raises(RuntimeError, match=r"Error\(s\) in reparametrizing for AfNet:\n\t"
                                           r"Unexpected key\(s\): 'extra'\.\n\tMissing key\(s\): "
                                           r"'fc1.bias', 'fc1.weight', 'fc2.bias', "
                                           r"'fc2.weight', 'shift'\."):
        functional_call(m, {"extra": af.ones(1)}, x, strict=True)
    with pytest.raises(RuntimeError, match="Missing key"):
        tfunc.functional_call(tm, {"extra": torch.ones(1)}, tx, strict=True)
    st = _state_np()
    full = {k: af.asarray(v) for k, v in st.items()}
    functional_call(m, full, x, strict=True)  # exactly the keys: fine
    with pytest.raises(ValueError, match=r"\['shift'\] appeared in multiple dictionaries"):
        functional_call(m, ({"shift": af.ones(3)}, {"shift": af.ones(3)}), x)
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        tfunc.functional_call(tm, ({"shift": torch.ones(3)}, {"shift": torch.ones(3)}), tx)
    with pytest.raises(ValueError, match="Expected parameter_and_buffer_dicts to be a dict"):
        functional_call(m, 3, x)
    with pytest.raises(ValueError, match="to be a dict"):
        tfunc.functional_call(tm, 3, tx)
    with pytest.raises(TypeError, match="'shift' must be a Tensor or None, got list"):
        functional_call(m, {"shift": [0.0, 0.0, 0.0]}, x)
    assert isinstance(m.shift, af.Tensor) and "shift" in m._buffers


def test_functional_call_tied_weights_as_torch():
    class Tied(nn.Module):
        def __init__(self, lin):
            super().__init__()
            self.a = lin
            self.b = lin

        def forward(self, x):
            return self.a(x) + self.b(x)

    class TTied(torch.nn.Module):
        def __init__(self, lin):
            super().__init__()
            self.a = lin
            self.b = lin

        def forward(self, x):
            return self.a(x) + self.b(x)

    m, tm = Tied(nn.Linear(2, 2)), TTied(torch.nn.Linear(2, 2))
    with af.no_grad():
        m.a.weight.copy_(af.asarray(MN[:2, :2]))
        m.a.bias.copy_(af.asarray(XN[:2]))
    with torch.no_grad():
        tm.a.weight.copy_(torch.tensor(MN[:2, :2]))
        tm.a.bias.copy_(torch.tensor(XN[:2]))
    x, tx = af.asarray(YN[:2]), torch.tensor(YN[:2])
    w = af.zeros((2, 2))
    tw = torch.zeros(2, 2)
    close(functional_call(m, {"a.weight": w}, x),
          tfunc.functional_call(tm, {"a.weight": tw}, tx))
    close(functional_call(m, {"a.weight": w}, x, tie_weights=False),
          tfunc.functional_call(tm, {"a.weight": tw}, tx, tie_weights=False))
    with pytest.raises(ValueError, match=r"multiple values for keys \['a.weight', "
                                         r"'b.weight'\], which are tied"):
        functional_call(m, {"a.weight": w, "b.weight": af.ones((2, 2))}, x)
    with pytest.raises(ValueError, match="which are tied"):
        tfunc.functional_call(tm, {"a.weight": tw, "b.weight": torch.ones(2, 2)}, tx)
    # the same Tensor for both names is fine
    close(functional_call(m, {"a.weight": w, "b.weight": w}, x),
          tfunc.functional_call(tm, {"a.weight": tw, "b.weight": tw}, tx))


def test_functional_call_buffer_rebound_in_forward_writes_back_as_torch():
    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("n", af.zeros(()))

        def forward(self, x):
            self.n = self.n + 1
            return x + self.n

    class TCounter(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("n", torch.zeros(()))

        def forward(self, x):
            self.n = self.n + 1
            return x + self.n

    m, tm = Counter(), TCounter()
    d, td = {"n": af.asarray(np.float32(5.0))}, {"n": torch.tensor(5.0)}
    out, tout = functional_call(m, d, af.ones(())), tfunc.functional_call(tm, td, torch.ones(()))
    close(out, tout)
    close(d["n"], td["n"])  # the new value is written back into the dict given
    close(m.n, tm.n)  # the module's own buffer is untouched (0)
    assert float(m.n) == 0.0


def test_grad_through_functional_call_matches_torch(backend):
    m, tm = AfNet(), TNet()
    st = _state_np(3)
    xn = RNG.standard_normal((6, 4)).astype(np.float32)
    yn = RNG.standard_normal((6, 3)).astype(np.float32)

    def make(ns, F, model, call):
        def loss(params, bufs, x, y):
            return F.mse_loss(call(model, (params, bufs), (x,)), y)
        return loss

    params, bufs = _split(st, af.asarray)
    tparams, tbufs = _split(st, torch.tensor)
    g, v = grad_and_value(make(af, nn.functional, m, functional_call))(
        params, bufs, af.asarray(xn), af.asarray(yn))
    tg, tv = tfunc.grad_and_value(make(torch, torch.nn.functional, tm,
                                       tfunc.functional_call))(tparams, tbufs,
                                                               torch.tensor(xn),
                                                               torch.tensor(yn))
    close_tree(g, tg)
    close(v, tv)
    assert all(p.grad is None for p in m.parameters())


def test_stack_module_state_matches_torch(backend):
    ms = [AfNet() for _ in range(3)]
    tms = [TNet() for _ in range(3)]
    for i, (m, tm) in enumerate(zip(ms, tms)):
        st = _state_np(10 + i)
        m.load_state_dict({k: af.asarray(v) for k, v in st.items()})
        tm.load_state_dict({k: torch.tensor(v) for k, v in st.items()})
    params, bufs = stack_module_state(ms)
    tparams, tbufs = tfunc.stack_module_state(tms)
    assert list(params) == list(tparams) and list(bufs) == list(tbufs)
    for k in params:
        close(params[k], tparams[k])
        assert params[k].requires_grad == tparams[k].requires_grad is True
        assert params[k].grad_fn is None  # new leaves, as torch
    for k in bufs:
        close(bufs[k], tbufs[k])
        assert bufs[k].requires_grad == tbufs[k].requires_grad is False
    # model i through functional_call with slice i of the stacked state = model i itself
    x = af.asarray(XN)
    for i, m in enumerate(ms):
        pi = {k: v[i] for k, v in params.items()}
        bi = {k: v[i] for k, v in bufs.items()}
        np.testing.assert_allclose(host(functional_call(ms[0], (pi, bi), x)), host(m(x)),
                                   rtol=1e-5, atol=1e-6)


def test_stack_module_state_errors_as_torch():
    with pytest.raises(RuntimeError, match="Expected at least one model, got 0"):
        stack_module_state([])
    with pytest.raises(RuntimeError, match="same class"):
        stack_module_state([nn.Linear(2, 2), nn.Tanh()])
    with pytest.raises(RuntimeError, match="same training/eval mode"):
        stack_module_state([nn.Linear(2, 2), nn.Linear(2, 2).eval()])
    a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    b.weight.requires_grad_(False)
    with pytest.raises(RuntimeError, match="Expected weight from each model to have the same "
                                           ".requires_grad"):
        stack_module_state([a, b])
    ta, tb = torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)
    tb.weight.requires_grad_(False)
    for bad in ([], [ta, torch.nn.Tanh()], [ta, torch.nn.Linear(2, 2).eval()], [ta, tb]):
        with pytest.raises(RuntimeError):
            tfunc.stack_module_state(bad)


# --- per-sample gradients (the DP-SGD building block) with a loop of grad ---------------------

def test_per_sample_gradients_loop_of_grad_matches_torch(backend):
    r = np.random.default_rng(7)
    xn = r.standard_normal((5, 4)).astype(np.float32)
    yn = r.integers(0, 3, size=5)
    m, tm = AfNet(), TNet()
    st = _state_np(5)
    m.load_state_dict({k: af.asarray(v) for k, v in st.items()})
    tm.load_state_dict({k: torch.tensor(v) for k, v in st.items()})
    params = {k: v.detach() for k, v in m.named_parameters()}
    bufs = {k: v.detach() for k, v in m.named_buffers()}

    def loss(p, x, y):
        logits = functional_call(m, (p, bufs), (x[None],))
        return nn.functional.cross_entropy(logits, y[None])

    per_sample = [grad(loss)(params, af.asarray(xn[i]), af.asarray(yn[i:i + 1])[0])
                  for i in range(5)]

    tparams = {k: v.detach() for k, v in tm.named_parameters()}
    tbufs = {k: v.detach() for k, v in tm.named_buffers()}

    def tloss(p, x, y):
        logits = tfunc.functional_call(tm, (p, tbufs), (x[None],))
        return torch.nn.functional.cross_entropy(logits, y[None])

    tper = tfunc.vmap(tfunc.grad(tloss), in_dims=(None, 0, 0))(
        tparams, torch.tensor(xn), torch.tensor(yn))
    for k in params:
        stacked = af.stack([g[k] for g in per_sample], axis=0)
        close(stacked, tper[k], rtol=1e-4, atol=1e-6)
    # their mean is the gradient of the mean loss (what backward() gives)
    out = m(af.asarray(xn))
    nn.functional.cross_entropy(out, af.asarray(yn)).backward()
    for k, p in m.named_parameters():
        np.testing.assert_allclose(np.mean([host(g[k]) for g in per_sample], axis=0),
                                   host(p.grad), rtol=1e-4, atol=1e-6)


# --- docs/func.md -----------------------------------------------------------------------------

def test_docs_func_examples_run(backend):
    import pathlib
    import re

    page = pathlib.Path(__file__).resolve().parents[1] / "docs" / "func.md"
    blocks = re.findall(r"^```python\n(.*?)^```", page.read_text(), re.S | re.M)
    assert len(blocks) >= 5
    ns: dict = {}
    for block in blocks:  # one namespace for the page, in order; each block asserts its results
        exec(compile(block, str(page), "exec"), ns)


# --- custom Functions, complex values, dtypes --------------------------------------------------

def _cube_function(base, split):
    if split:  # the form torch.func requires: forward without ctx, setup_context
        class Cube(base):
            @staticmethod
            def forward(x):
                return x ** 3

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_backward(inputs[0])

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 3 * x ** 2

        return Cube

    class CubeCtx(base):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2

    return CubeCtx


def test_transforms_through_a_custom_function_match_torch(backend):
    tcube = _cube_function(torch.autograd.Function, split=True)
    x, y = af_args(XN, YN)
    tx, ty = t_args(XN, YN)
    tg = tfunc.grad(lambda a: (tcube.apply(a) * ty).sum())(tx)
    th_ = tfunc.jacrev(tfunc.grad(lambda a: (tcube.apply(a) * ty).sum()))(tx)
    for split in (True, False):
        cube = _cube_function(af.autograd.Function, split)
        close(grad(lambda a, cube=cube: (cube.apply(a) * y).sum())(x), tg)
        # second order through the Function's backward (written with Tensor ops)
        close(jacrev(grad(lambda a, cube=cube: (cube.apply(a) * y).sum()))(x), th_, rtol=1e-4)
    # torch.func refuses the ctx-in-forward form; arrayflow computes the same values with it
    # (docs/pytorch-differences.md)
    with pytest.raises(RuntimeError, match="setup_context"):
        tfunc.grad(lambda a: _cube_function(torch.autograd.Function, False).apply(a).sum())(tx)


def test_complex_values_as_torch(backend):
    z = af.asarray((XN + 1j * YN).astype(np.complex64))
    tz = torch.tensor((XN + 1j * YN).astype(np.complex64))
    close(grad(lambda a: af.abs(a * (1 + 2j)).sum())(z),
          tfunc.grad(lambda a: torch.abs(a * (1 + 2j)).sum())(tz))
    out, fn = vjp(lambda a: a * (2 - 1j), z)
    tout, tfn = tfunc.vjp(lambda a: a * (2 - 1j), tz)
    ct = (YN - 1j * XN).astype(np.complex64)
    close(fn(af.asarray(ct))[0], tfn(torch.tensor(ct))[0])
    with pytest.raises(RuntimeError, match=r"grad\(f\).*real scalar outputs but got complex64"):
        grad(lambda a: (a * 1j).sum())(af.asarray(XN))
    with pytest.raises(RuntimeError, match="real scalar outputs"):
        tfunc.grad(lambda a: (a * 1j).sum())(torch.tensor(XN))


def test_vjp_cotangent_of_another_float_dtype_is_cast_as_torch(backend):
    _, fn = vjp(lambda a: a * 2, af.asarray(XN))
    _, tfn = tfunc.vjp(lambda a: a * 2, torch.tensor(XN))
    r = fn(af.asarray(YN.astype(np.float64)))[0]
    tr = tfn(torch.tensor(YN.astype(np.float64)))[0]
    assert r.dtype == af.float32 and tr.dtype == torch.float32
    close(r, tr)


def test_graph_outside_the_transform_survives_it(backend):
    # f reads w, computed with a graph before the transform: grad must not free w's graph
    v = af.asarray(YN).requires_grad_()
    tv = torch.tensor(YN, requires_grad=True)
    w, tw = v * v, tv * tv
    g = grad(lambda a: (a * w).sum())(af.asarray(XN))
    tg = tfunc.grad(lambda a: (a * tw).sum())(torch.tensor(XN))
    close(g, tg)
    w.sum().backward()
    tw.sum().backward()
    close(v.grad, tv.grad)
    # the same when the leaf under w is gone (only the graph remains)
    w2 = af.asarray(YN).requires_grad_() * 3
    g2 = grad(lambda a: (a * w2).sum())(af.asarray(XN))
    assert g2.requires_grad  # as torch.func: it depends on a Tensor that requires grad
    w2.sum().backward()  # raised "backward through the graph a second time" if freed


def test_grad_over_the_modules_own_parameters_matches_torch(backend):
    # the Parameters require grad: the gradients stay tracked (torch.func's note on
    # functional_call), no .grad is written, and the module keeps its Parameters
    m, tm = AfNet(), TNet()
    st = _state_np(4)
    m.load_state_dict({k: af.asarray(v) for k, v in st.items()})
    tm.load_state_dict({k: torch.tensor(v) for k, v in st.items()})
    x, tx = af.asarray(MN), torch.tensor(MN)
    g = grad(lambda p: (functional_call(m, p, (x,)) ** 2).mean())(dict(m.named_parameters()))
    tg = tfunc.grad(lambda p: (tfunc.functional_call(tm, p, (tx,)) ** 2).mean())(
        dict(tm.named_parameters()))
    close_tree(g, tg)
    assert all(g[k].requires_grad == tg[k].requires_grad is True for k in g)
    assert all(p.grad is None for p in m.parameters())
    assert all(isinstance(p, nn.Parameter) for p in m.parameters())
    # detached parameters: untracked results (the faster form torch.func recommends)
    gd = grad(lambda p: (functional_call(m, p, (x,)) ** 2).mean())(
        {k: v.detach() for k, v in m.named_parameters()})
    assert not any(v.requires_grad for v in gd.values())
    close_tree(gd, tg)
