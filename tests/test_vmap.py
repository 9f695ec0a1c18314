"""``arrayflow.func.vmap`` against ``torch.func.vmap`` (PyTorch 2.13) and against a Python
loop over the batch: the op table's element-wise ops and reductions (generated), matmul and
linalg, manipulation and indexing, in_dims/out_dims, nesting, randomness, per-sample
gradients (``vmap(grad)``, ``vmap(jacrev)``), the fallback warning and every error.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import forbid_compute

import arrayflow as af
from arrayflow import nn
from arrayflow.func import _batching, functional_call, grad, jacrev, vjp, vmap
from arrayflow.ops._registry import OPS

torch = pytest.importorskip("torch")
tfunc = torch.func

RNG = np.random.default_rng(0)


def host(t):
    return np.asarray(t.detach().numpy())


def close(a, b, rtol=1e-6, atol=1e-8):
    if isinstance(b, torch.Tensor):
        b = b.detach().resolve_conj().numpy()
    b = np.asarray(b.numpy()) if isinstance(b, af.Tensor) else np.asarray(b)
    np.testing.assert_allclose(host(a), b, rtol=rtol, atol=atol)


def loop(f, args, in_dims=0):
    """``stack([f(*args_i) for i])``: the definition of vmap, with plain Tensors."""
    dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
    size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
    outs = []
    for i in range(size):
        sub = [a if d is None else af.take(a, af.asarray([i]), axis=d).squeeze(d)
               for a, d in zip(args, dims)]
        outs.append(f(*sub))
    if isinstance(outs[0], tuple):
        return tuple(af.stack([o[j] for o in outs]) for j in range(len(outs[0])))
    return af.stack(outs)


# --- element-wise ops, generated from the op table ----------------------------------------------

_DOMAIN = {  # inputs inside every element-wise op's domain
    "floating": lambda s: RNG.uniform(0.1, 0.9, s),
    "integer": lambda s: RNG.integers(1, 5, s),
    "boolean": lambda s: RNG.integers(0, 2, s).astype(bool),
    "complex": lambda s: RNG.uniform(0.1, 0.9, s) + 1j * RNG.uniform(0.1, 0.9, s),
}


def _kind(op):
    d = op.dtypes or "real floating"
    if d in ("integer", "integer or boolean"):
        return "integer"
    if d == "boolean":
        return "boolean"
    if d == "complex floating":
        return "complex"
    return "floating"


ELEMENTWISE = sorted(n for n, o in OPS.items() if o.section == "elementwise")


def _arity(op):
    return sum(1 for p in op.__signature__.parameters.values()
               if p.kind == p.POSITIONAL_ONLY)


def _np_args(op, shapes):
    make = _DOMAIN[_kind(op)]
    return [make(s) for s in shapes]


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_every_elementwise_op_matches_a_loop_and_torch(name):
    op = OPS[name]
    n = _arity(op)
    if n == 0 or n > 2:
        pytest.skip(f"{name} takes {n} array arguments")
    # batched (3, 2, 4) at dim 0 against an unbatched (4,) (rank alignment + broadcasting),
    # and the batch at dim 1 of the first argument
    shapes = [(3, 2, 4), (4,)][:n]
    npa = _np_args(op, shapes)
    args = [af.asarray(a) for a in npa]
    in_dims = (0, None)[:n]
    got = vmap(op, in_dims=in_dims)(*args)
    close(got, loop(op, args, in_dims))
    got1 = vmap(op, in_dims=(1,) + (None,) * (n - 1))(*args)
    close(got1, loop(op, args, (1,) + (None,) * (n - 1)))
    tname = op.torch_name
    tfn = getattr(torch, tname, None) if tname else None
    if tfn is None:
        return
    targs = [torch.asarray(a) for a in npa]
    try:
        plain_t = tfn(*[t[0] if i == 0 else t for i, t in enumerate(targs)])
    except (RuntimeError, TypeError):
        return  # torch has no such overload: the loop comparison above is the check
    plain_a = op(*[a[0] if i == 0 else a for i, a in enumerate(args)])
    if plain_t.shape != tuple(plain_a.shape) or not np.allclose(
            host(plain_a), plain_t.numpy(), equal_nan=True):
        return  # the op itself differs from torch (not vmap's concern; see its own tests)
    close(got, tfunc.vmap(tfn, in_dims=in_dims)(*targs))


@pytest.mark.parametrize("name", ["add", "multiply", "atan2", "maximum"])
def test_binary_ops_with_both_batched_at_different_dims(name):
    a = RNG.uniform(0.1, 0.9, (3, 4))
    b = RNG.uniform(0.1, 0.9, (4, 3))
    f = OPS[name]
    got = vmap(f, in_dims=(0, 1))(af.asarray(a), af.asarray(b))
    want = tfunc.vmap(getattr(torch, name), in_dims=(0, 1))(torch.asarray(a), torch.asarray(b))
    close(got, want)


# --- reductions with axis, generated ------------------------------------------------------

REDUCTIONS = ["sum", "prod", "mean", "std", "var", "max", "min", "all", "any",
              "count_nonzero", "argmax", "argmin", "cumulative_sum", "cumulative_prod",
              "linalg.vector_norm"]


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_every_reduction_with_axis_matches_a_loop(name, axis, keepdims):
    op = OPS[name]
    x = af.asarray(RNG.uniform(0.1, 0.9, (3, 2, 4, 5)))
    params = op.__signature__.parameters
    kw = {}
    if isinstance(axis, tuple) and name in ("argmax", "argmin", "cumulative_sum",
                                            "cumulative_prod"):
        pytest.skip("takes one axis")
    if axis is None and name.startswith("cumulative"):
        pytest.skip("axis=None needs a 1-D input")
    kw["axis"] = axis
    if "keepdims" in params:
        kw["keepdims"] = keepdims
    elif keepdims:
        pytest.skip("no keepdims")

    def f(t):
        return op(t, **kw)

    close(vmap(f)(x), loop(f, [x]))
    close(vmap(f, in_dims=2)(x), loop(f, [x], 2))


@pytest.mark.parametrize("method, args", [("sum", (1,)), ("mean", (-1, True)),
                                          ("argmax", (0,)), ("amax", (1,))])
def test_tensor_methods_with_dim_match_torch(method, args):
    a = RNG.standard_normal((3, 4, 5))
    got = vmap(lambda t: getattr(t, method)(*args))(af.asarray(a))
    want = tfunc.vmap(lambda t: getattr(t, method)(*args))(torch.asarray(a))
    close(got, want)


# --- matmul and linalg ----------------------------------------------------------------------

@pytest.mark.parametrize("sa, sb, dims", [
    ((3, 4), (3, 4), (0, 0)),        # vector . vector
    ((3, 4), (4, 5), (0, None)),     # vector @ matrix
    ((3, 2, 4), (4,), (0, None)),    # matrix @ vector
    ((2, 4), (3, 4, 5), (None, 0)),  # unbatched matrix @ batched matrix
    ((3, 6, 2, 4), (4, 5), (0, None)),  # batch of matrices @ matrix
    ((2, 3, 4), (4, 3, 5), (1, 1)),  # both batched, not at 0
    ((4,), (3, 6, 4, 5), (None, 0)),  # unbatched vector @ batched stack
])
def test_matmul_matches_torch(sa, sb, dims):
    a, b = RNG.standard_normal(sa), RNG.standard_normal(sb)
    got = vmap(af.matmul, in_dims=dims)(af.asarray(a), af.asarray(b))
    want = tfunc.vmap(torch.matmul, in_dims=dims)(torch.asarray(a), torch.asarray(b))
    close(got, want)
    got_op = vmap(lambda x, y: x @ y, in_dims=dims)(af.asarray(a), af.asarray(b))
    close(got_op, want)


def test_vecdot_and_linear_match_torch():
    a, b = RNG.standard_normal((3, 2, 4)), RNG.standard_normal((4,))
    close(vmap(af.vecdot, in_dims=(0, None))(af.asarray(a), af.asarray(b)),
          tfunc.vmap(lambda x, y: torch.linalg.vecdot(x, y), in_dims=(0, None))(
              torch.asarray(a), torch.asarray(b)))
    w = RNG.standard_normal((5, 4))
    bias = RNG.standard_normal(5)
    close(vmap(nn.functional.linear, in_dims=(0, None, None))(
              af.asarray(a), af.asarray(w), af.asarray(bias)),
          tfunc.vmap(torch.nn.functional.linear, in_dims=(0, None, None))(
              torch.asarray(a), torch.asarray(w), torch.asarray(bias)))


def _spd(n, batch):
    m = RNG.standard_normal((batch, n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


@pytest.mark.parametrize("name", ["det", "inv", "cholesky", "eigvalsh", "svdvals",
                                  "matrix_norm", "slogdet", "diagonal", "trace", "pinv"])
def test_linalg_single_matrix_ops_match_torch(name):
    a = _spd(3, 4)
    af_fn = getattr(af.linalg, name)
    t_fn = {"trace": lambda t: torch.diagonal(t, dim1=-2, dim2=-1).sum(-1),
            "diagonal": lambda t: torch.diagonal(t, dim1=-2, dim2=-1)}.get(
        name, getattr(torch.linalg, name, None))
    got = vmap(af_fn)(af.asarray(a))
    want = tfunc.vmap(t_fn)(torch.asarray(a))
    if isinstance(got, tuple):
        for g, w in zip(got, want):
            close(g, w, rtol=1e-6, atol=1e-9)
    else:
        close(got, want, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("sb, dims", [((4, 3), (0, 0)), ((3,), (0, None)),
                                      ((4, 3, 2), (0, 0)), ((3, 2), (0, None))])
def test_linalg_solve_matches_torch(sb, dims):
    a = _spd(3, 4)
    b = RNG.standard_normal(sb)
    got = vmap(af.linalg.solve, in_dims=dims)(af.asarray(a), af.asarray(b))
    want = tfunc.vmap(torch.linalg.solve, in_dims=dims)(torch.asarray(a), torch.asarray(b))
    close(got, want)


# --- manipulation and indexing ----------------------------------------------------------------

X4 = RNG.standard_normal((3, 4, 5))

MANIP = [
    (lambda ns, t: ns.reshape(t, (5, 4)) if ns is af else t.reshape(5, 4)),
    (lambda ns, t: af.permute_dims(t, (1, 0)) if ns is af else t.permute(1, 0)),
    (lambda ns, t: af.moveaxis(t, 0, -1) if ns is af else torch.movedim(t, 0, -1)),
    (lambda ns, t: af.expand_dims(t, axis=-1) if ns is af else t.unsqueeze(-1)),
    (lambda ns, t: af.squeeze(af.expand_dims(t, axis=1), axis=1) if ns is af else t),
    (lambda ns, t: af.flip(t) if ns is af else torch.flip(t, (0, 1))),
    (lambda ns, t: af.flip(t, axis=1) if ns is af else torch.flip(t, (1,))),
    (lambda ns, t: af.roll(t, 2) if ns is af else torch.roll(t, 2)),
    (lambda ns, t: af.roll(t, 1, axis=-1) if ns is af else torch.roll(t, 1, -1)),
    (lambda ns, t: af.tile(t, (2, 1, 3)) if ns is af else t.tile((2, 1, 3))),
    (lambda ns, t: af.broadcast_to(t, (2, 4, 5)) if ns is af else t.expand(2, 4, 5)),
    (lambda ns, t: af.concat([t, t * 2], axis=1) if ns is af else torch.cat([t, t * 2], 1)),
    (lambda ns, t: af.stack([t, t + 1], axis=-1) if ns is af else torch.stack([t, t + 1], -1)),
    (lambda ns, t: af.matrix_transpose(t) if ns is af else t.mT),
    (lambda ns, t: t.T),
    (lambda ns, t: t[1]),
    (lambda ns, t: t[:, 1:3]),
    (lambda ns, t: t[..., 0]),
    (lambda ns, t: t[None, 1:, None]),
    (lambda ns, t: t[-1, ::2]),
    (lambda ns, t: t[(af if ns is af else torch).asarray([0, 2, 3])]),
    (lambda ns, t: t[:, (af if ns is af else torch).asarray([4, 0])]),
    (lambda ns, t: t[(af if ns is af else torch).asarray([0, 3]), :,
                     ] if ns is af else t[torch.asarray([0, 3]), :]),
    (lambda ns, t: ns.sort(t, axis=-1) if ns is af else torch.sort(t, -1).values),
    (lambda ns, t: af.take(t, af.asarray([1, 0]), axis=1) if ns is af else
        torch.index_select(t, 1, torch.asarray([1, 0]))),
    (lambda ns, t: af.tril(t) if ns is af else torch.tril(t)),
]


@pytest.mark.parametrize("i", range(len(MANIP)))
def test_manipulation_and_indexing_match_torch(i):
    f = MANIP[i]
    got = vmap(lambda t: f(af, t))(af.asarray(X4))
    want = tfunc.vmap(lambda t: f(torch, t))(torch.asarray(X4))
    close(got, want)
    got1 = vmap(lambda t: f(af, t), in_dims=1)(af.asarray(np.moveaxis(X4, 0, 1).copy()))
    close(got1, want)


def test_getitem_with_separated_advanced_indices_matches_torch():
    x = RNG.standard_normal((3, 4, 5, 6))
    got = vmap(lambda t: t[af.asarray([0, 2]), :, af.asarray([1, 3])])(af.asarray(x))
    want = tfunc.vmap(lambda t: t[torch.asarray([0, 2]), :, torch.asarray([1, 3])])(
        torch.asarray(x))
    close(got, want)


def test_take_along_axis_and_unstack_and_broadcast_arrays():
    x = af.asarray(X4)
    idx = af.asarray(RNG.integers(0, 5, (3, 4, 1)))
    close(vmap(lambda t, i: af.take_along_axis(t, i, axis=-1))(x, idx),
          loop(lambda t, i: af.take_along_axis(t, i, axis=-1), [x, idx]))
    u = vmap(lambda t: af.unstack(t, axis=1))(x)
    for j, uj in enumerate(u):
        close(uj, X4[:, :, j])
    y = af.asarray(RNG.standard_normal(5))
    a, b = vmap(lambda t: af.broadcast_arrays(t, y))(x)
    close(b, np.broadcast_to(np.asarray(y.numpy()), (3, 4, 5)))


def test_index_put_and_setitem_into_a_batched_value_match_torch():
    x = RNG.standard_normal((3, 4))
    v = RNG.standard_normal(3)

    def f(ns, t, s):
        t = t.clone()
        t[1] = s
        t[2:] = 0.0
        return t

    got = vmap(lambda t, s: f(af, t, s))(af.asarray(x), af.asarray(v))
    want = tfunc.vmap(lambda t, s: f(torch, t, s))(torch.asarray(x), torch.asarray(v))
    close(got, want)


def test_inplace_arithmetic_on_a_batched_value_matches_torch():
    x = RNG.standard_normal((3, 4))
    y = RNG.standard_normal(4)

    def f(t, u):
        t = t.clone()
        t += u
        t.mul_(2.0)
        return t

    got = vmap(f, in_dims=(0, None))(af.asarray(x), af.asarray(y))
    want = tfunc.vmap(f, in_dims=(0, None))(torch.asarray(x), torch.asarray(y))
    close(got, want)


# --- in_dims / out_dims ---------------------------------------------------------------------

def test_in_dims_pytree_none_and_negative_match_torch():
    a, b = RNG.standard_normal((4, 3)), RNG.standard_normal((3, 4))
    c = RNG.standard_normal(4)

    def f(ns, d, c):
        return d["a"] * d["b"] + c

    got = vmap(lambda d, c: f(af, d, c), in_dims=({"a": 1, "b": 0}, None))(
        {"a": af.asarray(a), "b": af.asarray(b)}, af.asarray(c))
    want = tfunc.vmap(lambda d, c: f(torch, d, c), in_dims=({"a": 1, "b": 0}, None))(
        {"a": torch.asarray(a), "b": torch.asarray(b)}, torch.asarray(c))
    close(got, want)
    got = vmap(lambda x: x * 2, in_dims=-1)(af.asarray(a))
    close(got, tfunc.vmap(lambda x: x * 2, in_dims=-1)(torch.asarray(a)))


@pytest.mark.parametrize("out_dims", [0, 1, -1, (1, 0)])
def test_out_dims_match_torch(out_dims):
    a = RNG.standard_normal((3, 4, 5))

    def f(x):
        return x * 2, x.sum(0)

    got = vmap(f, out_dims=out_dims)(af.asarray(a))
    want = tfunc.vmap(f, out_dims=out_dims)(torch.asarray(a))
    for g, w in zip(got, want):
        close(g, w)


def test_unbatched_output_is_broadcast_and_out_dims_none_returns_it_once():
    a = af.asarray(RNG.standard_normal((3, 4)))
    c = af.asarray(RNG.standard_normal(4))
    got = vmap(lambda x: (x, c))(a)
    want = tfunc.vmap(lambda x: (x, torch.asarray(c.numpy())))(torch.asarray(a.numpy()))
    close(got[1], want[1])
    got = vmap(lambda x: (x * 2, c), out_dims=(0, None))(a)
    assert tuple(got[1].shape) == (4,)
    close(got[1], c)


@pytest.mark.parametrize("chunk_size", [1, 2, 5])
def test_chunk_size_gives_the_same_result(chunk_size):
    a = af.asarray(RNG.standard_normal((5, 4)))
    close(vmap(lambda x: af.exp(x).sum(), chunk_size=chunk_size)(a),
          vmap(lambda x: af.exp(x).sum())(a))


# --- nesting ----------------------------------------------------------------------------------

def test_nested_vmap_matches_torch():
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal((5, 4))

    def f(x, y):
        return (x * y).sum()

    got = vmap(vmap(f, in_dims=(None, 0)), in_dims=(0, None))(af.asarray(a), af.asarray(b))
    want = tfunc.vmap(tfunc.vmap(f, in_dims=(None, 0)), in_dims=(0, None))(
        torch.asarray(a), torch.asarray(b))
    close(got, want)
    assert tuple(got.shape) == (3, 5)


def test_nested_vmap_with_a_captured_outer_value_matches_torch():
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal((5, 4))

    def outer(ns, x, ys):
        def inner(y):
            return x @ y + x.sum()

        return (vmap if ns is af else tfunc.vmap)(inner)(ys)

    got = vmap(lambda x, ys: outer(af, x, ys), in_dims=(0, None))(af.asarray(a), af.asarray(b))
    want = tfunc.vmap(lambda x, ys: outer(torch, x, ys), in_dims=(0, None))(
        torch.asarray(a), torch.asarray(b))
    close(got, want)


def test_triple_nesting_with_dims_matches_a_loop():
    a = af.asarray(RNG.standard_normal((2, 3, 4)))
    got = vmap(vmap(vmap(lambda t: af.sin(t) * 2), in_dims=1), in_dims=2)(a)
    want = tfunc.vmap(tfunc.vmap(tfunc.vmap(lambda t: torch.sin(t) * 2), in_dims=1),
                      in_dims=2)(torch.asarray(a.numpy()))
    close(got, want)


# --- transforms inside vmap: per-sample gradients ---------------------------------------------

def _mlp_and_data(seed=0):
    af.manual_seed(seed)
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = RNG.standard_normal((7, 6)).astype(np.float32)
    y = RNG.integers(0, 3, 7)
    return model, params, x, y


def test_per_sample_gradients_of_an_mlp_match_torch_func_and_a_loop():
    model, params, x, y = _mlp_and_data()

    def loss(p, xi, yi):
        out = functional_call(model, p, (xi[None],))
        return nn.functional.cross_entropy(out, yi[None])

    xa, ya = af.asarray(x), af.asarray(y)
    per = vmap(grad(loss), in_dims=(None, 0, 0))(params, xa, ya)
    tmodel = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(),
                                 torch.nn.Linear(8, 3))
    tparams = {k: torch.asarray(v.numpy()) for k, v in params.items()}

    def tloss(p, xi, yi):
        out = torch.func.functional_call(tmodel, p, (xi[None],))
        return torch.nn.functional.cross_entropy(out, yi[None])

    tper = tfunc.vmap(tfunc.grad(tloss), in_dims=(None, 0, 0))(
        tparams, torch.asarray(x), torch.asarray(y))
    for k in params:
        close(per[k], tper[k], rtol=1e-5, atol=1e-6)
        # nothing leaks between samples: each row is that sample's own gradient
        rows = af.stack([grad(loss)(params, xa[i], ya[i])[k] for i in range(len(x))])
        close(per[k], rows, rtol=1e-5, atol=1e-7)


def test_per_sample_gradients_with_respect_to_batched_inputs_and_has_aux():
    x = af.asarray(RNG.standard_normal((4, 3)))
    w = af.asarray(RNG.standard_normal(3))

    def f(xi, w):
        v = ((xi * w).tanh() ** 2).sum()
        return v, v * 2

    g, aux = vmap(grad(f, argnums=(0, 1), has_aux=True), in_dims=(0, None))(x, w)
    tg, taux = tfunc.vmap(tfunc.grad(f, argnums=(0, 1), has_aux=True), in_dims=(0, None))(
        torch.asarray(x.numpy()), torch.asarray(w.numpy()))
    close(g[0], tg[0])
    close(g[1], tg[1])
    close(aux, taux)


def test_vmap_of_jacrev_and_vjp_match_torch():
    x = RNG.standard_normal((4, 3))

    def f(t):
        return t.sin() * t.sum()

    close(vmap(jacrev(f))(af.asarray(x)), tfunc.vmap(tfunc.jacrev(f))(torch.asarray(x)))
    ct = RNG.standard_normal((4, 3))

    def g(t, c):
        return vjp(f, t)[1](c)[0]

    close(vmap(g)(af.asarray(x), af.asarray(ct)),
          tfunc.vmap(lambda t, c: tfunc.vjp(f, t)[1](c)[0])(torch.asarray(x),
                                                            torch.asarray(ct)))


def test_vmap_of_grad_of_grad_and_nested_vmap_grad_match_torch():
    x = RNG.standard_normal((2, 3, 4))

    def f(t):
        return (t ** 3).sum()

    close(vmap(grad(lambda t: grad(f)(t).sum()))(af.asarray(x[0])),
          tfunc.vmap(tfunc.grad(lambda t: tfunc.grad(f)(t).sum()))(torch.asarray(x[0])))
    close(vmap(vmap(grad(f)))(af.asarray(x)),
          tfunc.vmap(tfunc.vmap(tfunc.grad(f)))(torch.asarray(x)))


def test_grad_of_vmap_matches_torch():
    x = RNG.standard_normal((4, 3))

    def f(v):
        return (v.sin() * v).sum()

    close(grad(lambda t: vmap(f)(t).sum())(af.asarray(x)),
          tfunc.grad(lambda t: tfunc.vmap(f)(t).sum())(torch.asarray(x)))


# --- backends ---------------------------------------------------------------------------------

def test_vmap_and_per_sample_grad_on_every_backend(backend):
    x = RNG.standard_normal((5, 3))
    w = RNG.standard_normal((3, 2))
    xa, wa = af.asarray(x), af.asarray(w)
    with forbid_compute(backend):
        out = vmap(lambda t, m: af.sum(af.tanh(t @ m) ** 2 + t[1:].mean()),
                   in_dims=(0, None))(xa, wa)
        g = vmap(grad(lambda m, t: af.sum(af.tanh(t @ m) ** 2)), in_dims=(None, 0))(wa, xa)
    assert g.backend.name == backend
    tx, tw = torch.asarray(x), torch.asarray(w)
    close(out, tfunc.vmap(lambda t, m: torch.sum(torch.tanh(t @ m) ** 2 + t[1:].mean()),
                          in_dims=(0, None))(tx, tw))
    close(g, tfunc.vmap(tfunc.grad(lambda m, t: torch.sum(torch.tanh(t @ m) ** 2)),
                        in_dims=(None, 0))(tw, tx))


# --- the fallback ---------------------------------------------------------------------------

def test_an_op_without_a_rule_loops_with_one_warning_naming_it():
    _batching._WARNED.discard("searchsorted")
    a = af.asarray(np.sort(RNG.standard_normal((3, 5)), axis=-1))
    v = af.asarray(RNG.standard_normal(4))

    def f(x):
        return af.searchsorted(x, v)

    with pytest.warns(UserWarning, match="no batching rule for 'searchsorted'"):
        got = vmap(f)(a)
    close(got, loop(f, [a]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vmap(f)(a)  # once per op


@pytest.mark.parametrize("axes", [1, 2, ((0, 1), (1, 0)), ((-1,), (0,))])
def test_tensordot_matches_torch(axes):
    a = RNG.standard_normal((3, 4, 5))
    b = RNG.standard_normal((5, 4)) if axes != 2 else RNG.standard_normal((4, 5, 2))
    if axes == 1 or axes == ((-1,), (0,)):
        b = RNG.standard_normal((5, 2))
    got = vmap(lambda x: af.tensordot(x, af.asarray(b), axes=axes))(af.asarray(a))
    want = tfunc.vmap(lambda x: torch.tensordot(x, torch.asarray(b), dims=axes))(
        torch.asarray(a))
    close(got, want)


@pytest.mark.parametrize("name, kw, tkw", [
    ("fft", {}, {}), ("fft", {"axis": 0}, {"dim": 0}), ("rfft", {"n": 6}, {"n": 6}),
    ("ifft", {"axis": -2}, {"dim": -2}), ("fftn", {}, {}), ("fftn", {"axes": (0,)},
                                                            {"dim": (0,)}),
    ("rfftn", {"s": (4, 4)}, {"s": (4, 4)}), ("fftshift", {}, {}),
    ("fftshift", {"axes": 1}, {"dim": 1}),
])
def test_fft_ops_match_torch(name, kw, tkw):
    a = RNG.standard_normal((3, 4, 5))
    got = vmap(lambda x: getattr(af.fft, name)(x, **kw))(af.asarray(a))
    want = tfunc.vmap(lambda x: getattr(torch.fft, name)(x, **tkw))(torch.asarray(a))
    close(got, want)


# --- errors ---------------------------------------------------------------------------------

@pytest.mark.parametrize("what", ["bool", "item", "int", "float"])
def test_data_dependent_python_raises_naming_the_function_and_argument(what):
    conv = {"bool": lambda t: bool(t.sum() > 0), "item": lambda t: t.sum().item(),
            "int": lambda t: int(t.sum()), "float": lambda t: float(t.sum())}[what]

    def my_function(x):
        return x * conv(x)

    with pytest.raises(RuntimeError):
        tfunc.vmap(my_function)(torch.ones(3, 2))
    with pytest.raises(RuntimeError, match=r"vmap\(.*my_function\): .*batched argument args\[0\]"):
        vmap(my_function)(af.ones((3, 2)))


def test_inplace_write_of_a_batched_value_into_an_unbatched_tensor_raises_as_torch():
    def f(ns, x):
        y = ns.zeros(2, dtype=x.dtype) if ns is torch else af.zeros(2, dtype=x.dtype)
        y.add_(x)
        return y

    with pytest.raises(RuntimeError):
        tfunc.vmap(lambda x: f(torch, x))(torch.ones(3, 2))
    with pytest.raises(RuntimeError, match="vmapped over but `self` not"):
        vmap(lambda x: f(af, x))(af.ones((3, 2)))

    def g(x):
        y = af.zeros(2)
        y += x
        return y

    with pytest.raises(RuntimeError, match="vmapped over but `self` not"):
        vmap(g)(af.ones((3, 2)))

    def h(x):
        y = af.zeros((2, 2))
        y[0] = x
        return y

    with pytest.raises(RuntimeError, match="vmapped over but `self` not"):
        vmap(h)(af.ones((3, 2)))


def test_mismatched_in_dims_sizes_name_the_arguments():
    with pytest.raises(ValueError, match="same size in the mapped dimension"):
        tfunc.vmap(torch.add)(torch.ones(3), torch.ones(4))
    with pytest.raises(ValueError, match=r"args\[0\] has size 3 at dim 0, args\[1\] has size 4"):
        vmap(af.add)(af.ones(3), af.ones(4))


def test_in_dims_and_out_dims_errors_as_torch():
    x = af.ones((3, 2))
    for call, tcall in [
        (lambda: vmap(af.sin, in_dims=2)(x), lambda: tfunc.vmap(torch.sin, in_dims=2)(
            torch.ones(3, 2))),
        (lambda: vmap(af.sin, in_dims=None)(x), lambda: tfunc.vmap(torch.sin, in_dims=None)(
            torch.ones(3, 2))),
        (lambda: vmap(lambda a, b: a, in_dims=(0, 0))(x, 1.0),
         lambda: tfunc.vmap(lambda a, b: a, in_dims=(0, 0))(torch.ones(3, 2), 1.0)),
        (lambda: vmap(lambda a: 1.0)(x), lambda: tfunc.vmap(lambda a: 1.0)(torch.ones(3, 2))),
        (lambda: vmap(lambda a: a, out_dims=None)(x),
         lambda: tfunc.vmap(lambda a: a, out_dims=None)(torch.ones(3, 2))),
    ]:
        with pytest.raises(ValueError):
            tcall()
        with pytest.raises(ValueError):
            call()
    with pytest.raises(RuntimeError, match="randomness"):
        vmap(af.sin, randomness="sometimes")
    with pytest.raises(IndexError):
        tfunc.vmap(torch.sum, out_dims=1)(torch.ones(3, 2))
    with pytest.raises(IndexError, match="Dimension out of range"):
        vmap(af.sum, out_dims=1)(x)


def test_nested_in_dims_and_out_dims_pytrees_match_torch():
    a, b, c = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 3)), RNG.standard_normal(4)

    def f(tup, z):
        return {"s": tup[0] * tup[1][0] + z, "t": (tup[1][1], tup[0].sum())}

    kw = dict(in_dims=((0, (1, 0)), None), out_dims={"s": 1, "t": (1, 0)})
    got = vmap(f, **kw)((af.asarray(a), (af.asarray(b), af.asarray(a))), af.asarray(c))
    want = tfunc.vmap(f, **kw)((torch.asarray(a), (torch.asarray(b), torch.asarray(a))),
                               torch.asarray(c))
    close(got["s"], want["s"])
    close(got["t"][0], want["t"][0])
    close(got["t"][1], want["t"][1])


@pytest.mark.parametrize("fn", [
    lambda ns, x: x + ns.randn(2),
    lambda ns, x: x + ns.rand(2),
    lambda ns, x: x + ns.randint(0, 5, (2,)),
    lambda ns, x: x + ns.randperm(2),
    lambda ns, x: ns.nn.functional.dropout(x, 0.5),
])
def test_random_ops_raise_in_randomness_error_mode_as_torch(fn):
    with pytest.raises(RuntimeError, match="randomness"):
        tfunc.vmap(lambda x: fn(torch, x))(torch.ones(3, 2))
    with pytest.raises(RuntimeError,
                       match=r"vmap\(.*<lambda>\): called random operation .*randomness"):
        vmap(lambda x: fn(af, x))(af.ones((3, 2)))


def test_randomness_different_and_same_as_torch():
    x = af.zeros((4, 3))
    diff = vmap(lambda t: t + af.randn(3), randomness="different")(x).numpy()
    assert not np.allclose(diff[0], diff[1])
    same = vmap(lambda t: t + af.randn(3), randomness="same")(x).numpy()
    np.testing.assert_array_equal(same, np.broadcast_to(same[0], same.shape))
    ones = af.ones((4, 50))
    d = vmap(lambda t: nn.functional.dropout(t, 0.5), randomness="different")(ones).numpy()
    assert not np.array_equal(d[0], d[1])
    assert set(np.unique(d)) <= {0.0, 2.0}
    s = vmap(lambda t: nn.functional.dropout(t, 0.5), randomness="same")(ones).numpy()
    np.testing.assert_array_equal(s, np.broadcast_to(s[0], s.shape))


# --- forward transforms inside vmap (and vmap inside them) ------------------------------------

def _fwd_cases():
    from arrayflow import func as F

    def f(t):
        return (t.sin() * t).sum() + (t ** 3).sum() * t[0]

    def g(t):
        return t.sin() * t.sum()

    return [
        ("jvp", lambda: vmap(lambda t: F.jvp(g, (t,), (af.ones_like(t),))[1]),
         lambda: tfunc.vmap(lambda t: tfunc.jvp(g, (t,), (torch.ones_like(t),))[1])),
        ("jacfwd", lambda: vmap(F.jacfwd(g)), lambda: tfunc.vmap(tfunc.jacfwd(g))),
        ("hessian", lambda: vmap(F.hessian(f)), lambda: tfunc.vmap(tfunc.hessian(f))),
        ("jacfwd(grad)", lambda: vmap(F.jacfwd(grad(f))),
         lambda: tfunc.vmap(tfunc.jacfwd(tfunc.grad(f)))),
        ("jacfwd(vmap)", lambda: F.jacfwd(vmap(g)), lambda: tfunc.jacfwd(tfunc.vmap(g))),
    ]


@pytest.mark.parametrize("i", range(5))
def test_forward_transforms_compose_with_vmap_as_torch(i):
    name, mk, tmk = _fwd_cases()[i]
    x = RNG.standard_normal((4, 3))
    close(mk()(af.asarray(x)), tmk()(torch.asarray(x)), rtol=1e-7, atol=1e-10)


def test_per_sample_hessians_with_unbatched_parameters_match_a_loop():
    from arrayflow import func as F

    x = af.asarray(RNG.standard_normal((4, 3)))
    w = af.asarray(RNG.standard_normal(3))

    def f(w, xi):
        return ((xi * w).tanh() ** 2).sum() + (w ** 3 * xi).sum()

    got = vmap(F.hessian(f), in_dims=(None, 0))(w, x)
    rows = af.stack([F.hessian(f)(w, x[i]) for i in range(4)])
    close(got, rows, rtol=1e-10, atol=1e-12)
    want = tfunc.vmap(tfunc.hessian(f), in_dims=(None, 0))(torch.asarray(w.numpy()),
                                                          torch.asarray(x.numpy()))
    close(got, want)


BACKEND_CASES = [
    lambda ns, t, u: ns.exp(t) * u + ns.abs(t),
    lambda ns, t, u: ns.sum(t, axis=0) if ns is af else torch.sum(t, 0),
    lambda ns, t, u: ns.mean(t, axis=(0, 1)) if ns is af else torch.mean(t, (0, 1)),
    lambda ns, t, u: t @ u,
    lambda ns, t, u: u @ t[0],
    lambda ns, t, u: t[1:, ::2][..., None],
    lambda ns, t, u: ns.concat([t, t[:1]], axis=0) if ns is af else torch.cat([t, t[:1]], 0),
    lambda ns, t, u: ns.stack([t[0], u], axis=1) if ns is af else torch.stack([t[0], u], 1),
    lambda ns, t, u: ns.reshape(t, (-1,)) if ns is af else t.reshape(-1),
    lambda ns, t, u: ns.where(t > 0, t, u),
    lambda ns, t, u: (ns.nn.functional.softmax(t, dim=-1) * u).sum(),
]


@pytest.mark.parametrize("i", range(len(BACKEND_CASES)))
def test_batching_rules_on_every_backend_match_torch(backend, i):
    f = BACKEND_CASES[i]
    x = RNG.standard_normal((4, 3, 2))
    u = RNG.standard_normal(2)
    xa, ua = af.asarray(x), af.asarray(u)
    with forbid_compute(backend):
        got = vmap(lambda t, v: f(af, t, v), in_dims=(0, None))(xa, ua)
        got2 = vmap(vmap(lambda t, v: f(af, t, v), in_dims=(0, None)),
                    in_dims=(None, 0))(xa, af.stack([ua, ua * 2]))
    assert got.backend.name == backend
    close(got, tfunc.vmap(lambda t, v: f(torch, t, v), in_dims=(0, None))(
        torch.asarray(x), torch.asarray(u)))
    close(got2, tfunc.vmap(tfunc.vmap(lambda t, v: f(torch, t, v), in_dims=(0, None)),
                           in_dims=(None, 0))(torch.asarray(x),
                                              torch.stack([torch.asarray(u),
                                                           torch.asarray(u) * 2])))


def test_per_sample_cross_entropy_gradients_on_every_backend(backend):
    model, params, x, y = _mlp_and_data()
    params = {k: af.asarray(v.numpy()) for k, v in params.items()}

    def loss(p, xi, yi):
        out = functional_call(model, p, (xi[None],))
        return nn.functional.cross_entropy(out, yi[None])

    xa, ya = af.asarray(x), af.asarray(y)
    per = vmap(grad(loss), in_dims=(None, 0, 0))(params, xa, ya)
    for k in params:
        assert per[k].backend.name == backend
        rows = af.stack([grad(loss)(params, xa[i], ya[i])[k] for i in range(len(x))])
        close(per[k], rows, rtol=1e-5, atol=1e-7)


def test_vmap_over_a_vjp_fn_gives_the_jacobian_as_torch():
    x = RNG.standard_normal(3)

    def f(t):
        return t.sin() * t.sum()

    _, fn = vjp(f, af.asarray(x))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one batched backward pass, not a loop over the rows
        got = vmap(fn)(af.eye(3, dtype=af.float64))
    _, tfn = tfunc.vjp(f, torch.asarray(x))
    close(got[0], tfunc.vmap(tfn)(torch.eye(3, dtype=torch.float64))[0])


def test_a_custom_function_on_a_batched_value_raises_instead_of_computing_wrong():
    class Square(af.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * t

        @staticmethod
        def backward(ctx, g):
            return g

    x = af.asarray(RNG.standard_normal((3, 2)))
    # the forward(ctx, ...) form has no vmap support in torch.func: its error, both with the
    # forward alone and where its backward would be recorded on a batched value
    # (tests/test_func_function_vmap.py: Function.vmap and generate_vmap_rule)
    with pytest.raises(RuntimeError, match=r"it must override the setup_context staticmethod"):
        vmap(Square.apply)(x)
    with pytest.raises(RuntimeError, match=r"it must override the setup_context staticmethod"):
        vmap(grad(lambda t: Square.apply(t).sum()))(x)


def test_a_batched_value_escaping_its_vmap_raises_when_used():
    kept = []

    def f(t):
        kept.append(t)
        return t * 2

    vmap(f)(af.ones((3, 2)))
    with pytest.raises(RuntimeError, match="escaped the vmap"):
        kept[0] + 1


# --- nn.functional ----------------------------------------------------------------------------

def _nnf(t):
    return nn.functional if isinstance(t, af.Tensor) else torch.nn.functional


_IMG = RNG.standard_normal((3, 2, 1, 6, 6)).astype(np.float32)
_IDX = RNG.integers(0, 10, (3, 4))
_LOGITS = RNG.standard_normal((3, 4, 10))
NN_CASES = {
    "conv2d": (lambda t, w: _nnf(t).conv2d(t, w, padding=1),
               (_IMG, RNG.standard_normal((4, 1, 3, 3)).astype(np.float32)), (0, None)),
    "max_pool2d": (lambda t: _nnf(t).max_pool2d(t, 2), (_IMG,), (0,)),
    "avg_pool2d": (lambda t: _nnf(t).avg_pool2d(t, 2), (_IMG,), (0,)),
    "layer_norm": (lambda t: _nnf(t).layer_norm(t, (6,)), (_IMG,), (0,)),
    "embedding": (lambda i, e: _nnf(e).embedding(i, e),
                  (_IDX, RNG.standard_normal((10, 5))), (0, None)),
    "one_hot": (lambda i: _nnf(i).one_hot(i, 10), (_IDX,), (0,)),
    "mse_loss": (lambda t: _nnf(t).mse_loss(t, t * 0.3), (_IMG,), (0,)),
    "nll_loss_none": (lambda t, i: _nnf(t).nll_loss(t, i, reduction="none"),
                      (_LOGITS, _IDX), (0, 0)),
    "cross_entropy_weight": (lambda t, i, w: _nnf(t).cross_entropy(t, i, weight=w),
                             (_LOGITS, _IDX, RNG.uniform(0.5, 1, 10)), (0, 0, None)),
    "cross_entropy_smoothing": (
        lambda t, i: _nnf(t).cross_entropy(t, i, label_smoothing=0.1), (_LOGITS, _IDX), (0, 0)),
    "cross_entropy_ignore": (lambda t, i: _nnf(t).cross_entropy(t, i, ignore_index=3),
                             (_LOGITS, _IDX), (0, 0)),
    "cross_entropy_probs": (lambda t, p: _nnf(t).cross_entropy(t, p),
                            (_LOGITS, RNG.dirichlet(np.ones(10), (3, 4))), (0, 0)),
    "cross_entropy_unbatched_target": (lambda t, i: _nnf(t).cross_entropy(t, i),
                                       (_LOGITS, _IDX[0]), (0, None)),
    "dropout_eval": (lambda t: _nnf(t).dropout(t, 0.5, training=False), (_IMG,), (0,)),
}


@pytest.mark.parametrize("name", sorted(NN_CASES))
def test_nn_functional_matches_torch_without_the_fallback(name):
    f, arrays, dims = NN_CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a batching rule, not the loop
        got = vmap(f, in_dims=dims)(*[af.asarray(a) for a in arrays])
    close(got, tfunc.vmap(f, in_dims=dims)(*[torch.asarray(a) for a in arrays]),
          rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_take_from_an_unbatched_table_with_batched_indices_matches_torch(axis):
    x = RNG.standard_normal((5, 6, 7))
    idx = RNG.integers(0, x.shape[axis], (3, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vmap(lambda i: af.take(af.asarray(x), i, axis=axis))(af.asarray(idx))
    want = tfunc.vmap(lambda i: torch.index_select(torch.asarray(x), axis % 3, i))(
        torch.asarray(idx))
    close(got, want)


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_every_elementwise_op_on_every_backend_matches_a_loop(backend, name):
    op = OPS[name]
    n = _arity(op)
    if n == 0 or n > 2:
        pytest.skip(f"{name} takes {n} array arguments")
    args = [af.asarray(a) for a in _np_args(op, [(3, 2, 4), (2, 4)][:n])]
    dims = (1, 0)[:n]
    with forbid_compute(backend):
        got = vmap(op, in_dims=dims)(*args)
    assert got.backend.name == backend
    close(got, loop(op, args, dims))


@pytest.mark.parametrize("name", REDUCTIONS)
def test_every_reduction_on_every_backend_matches_a_loop(backend, name):
    op = OPS[name]
    x = af.asarray(RNG.uniform(0.1, 0.9, (3, 2, 4)))

    def f(t):
        return op(t, axis=1)

    with forbid_compute(backend):
        got = vmap(f, in_dims=1)(x)
    close(got, loop(f, [x], 1))


def test_per_sample_gradients_of_a_cnn_match_torch_func():
    af.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(4 * 3 * 3, 3))
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = RNG.standard_normal((5, 1, 6, 6)).astype(np.float32)
    y = RNG.integers(0, 3, 5)

    def loss(p, xi, yi):
        return nn.functional.cross_entropy(functional_call(model, p, (xi[None],)), yi[None])

    per = vmap(grad(loss), in_dims=(None, 0, 0))(params, af.asarray(x), af.asarray(y))
    tmodel = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.ReLU(),
                                 torch.nn.MaxPool2d(2), torch.nn.Flatten(),
                                 torch.nn.Linear(4 * 3 * 3, 3))
    tparams = {k: torch.asarray(np.asarray(v.numpy())) for k, v in params.items()}

    def tloss(p, xi, yi):
        return torch.nn.functional.cross_entropy(
            torch.func.functional_call(tmodel, p, (xi[None],)), yi[None])

    tper = tfunc.vmap(tfunc.grad(tloss), in_dims=(None, 0, 0))(
        tparams, torch.asarray(x), torch.asarray(y))
    for k in params:
        close(per[k], tper[k], rtol=1e-4, atol=1e-6)


def test_model_ensembling_with_stack_module_state_matches_torch():
    from arrayflow.func import stack_module_state

    af.manual_seed(0)
    models = [nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2)) for _ in range(3)]
    params, buffers = stack_module_state(models)
    x = RNG.standard_normal((5, 4)).astype(np.float32)

    def fmodel(p, b, t):
        return functional_call(models[0], (p, b), (t,))

    out = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, af.asarray(x))
    tmodels = [torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(),
                                   torch.nn.Linear(6, 2)) for _ in range(3)]
    for m, tm in zip(models, tmodels):
        tm.load_state_dict({k: torch.asarray(np.asarray(v.detach().numpy()))
                            for k, v in m.state_dict().items()})
    tp, tb = tfunc.stack_module_state(tmodels)

    def tfmodel(p, b, t):
        return tfunc.functional_call(tmodels[0], (p, b), (t,))

    want = tfunc.vmap(tfmodel, in_dims=(0, 0, None))(tp, tb, torch.asarray(x))
    assert out.requires_grad == want.requires_grad
    close(out, want, rtol=1e-5, atol=1e-6)
    # the graph reaches the stacked parameters, as torch's
    g = af.autograd.grad(out.sum(), params["0.weight"])[0]
    tg = torch.autograd.grad(want.sum(), tp["0.weight"])[0]
    close(g, tg, rtol=1e-5, atol=1e-6)


def test_differentiating_per_sample_gradients_again_matches_torch():
    w = RNG.standard_normal(3)
    xs = RNG.standard_normal((4, 3))

    def f(w, x):
        return ((w * x).sin() * w).sum()

    def outer(ns, w, xs):
        inner = (vmap if ns is af else tfunc.vmap)((grad if ns is af else tfunc.grad)(f),
                                                   in_dims=(None, 0))
        return (inner(w, xs) ** 2).sum()

    want = tfunc.grad(lambda v: outer(torch, v, torch.asarray(xs)))(torch.asarray(w))
    close(grad(lambda v: outer(af, v, af.asarray(xs)))(af.asarray(w)), want)
    wt = af.asarray(w).requires_grad_()
    outer(af, wt, af.asarray(xs)).backward()  # the user's own backward reaches w
    close(wt.grad, want)
    # a batched value captured by the differentiated function
    c = vmap(lambda x: grad(lambda v: (v * x).sin().sum())(af.asarray(w)))(af.asarray(xs))
    d = tfunc.vmap(lambda x: tfunc.grad(lambda v: (v * x).sin().sum())(torch.asarray(w)))(
        torch.asarray(xs))
    close(c, d)


def test_inplace_random_fills_follow_randomness_as_torch():
    x = af.zeros((4, 3))
    d = vmap(lambda t: t.clone().uniform_(), randomness="different")(x).numpy()
    assert not np.allclose(d[0], d[1])
    s = vmap(lambda t: t.clone().normal_(), randomness="same")(x).numpy()
    np.testing.assert_array_equal(s, np.broadcast_to(s[0], s.shape))
    for mode in ("error", "different"):
        with pytest.raises(RuntimeError, match="randomness"):
            tfunc.vmap(lambda t: t + torch.zeros(3).uniform_(), randomness=mode)(
                torch.zeros(4, 3))
        with pytest.raises(RuntimeError, match="randomness"):
            vmap(lambda t: t + af.zeros(3).uniform_(), randomness=mode)(x)
    r = vmap(lambda t: t + af.zeros(3).uniform_(), randomness="same")(x).numpy()
    np.testing.assert_array_equal(r, np.broadcast_to(r[0], r.shape))


# --- the rules declared in the op table (Op.batch), each without the loop -----------------------

def _ns(t):
    return af if isinstance(t, af.Tensor) else torch


_A = RNG.standard_normal((3, 4, 5))
_V = RNG.standard_normal((3, 4))
_V5 = RNG.standard_normal((3, 5))
_SQ = RNG.standard_normal((3, 4, 4)) + 4 * np.eye(4)
_C3 = RNG.standard_normal((3, 2, 3))
DECLARED_CASES = {
    "broadcast_arrays": (lambda t, u: _ns(t).broadcast_tensors(t, u) if _ns(t) is torch
                         else af.broadcast_arrays(t, u), (_A, _V[0, :1]), (0, None)),
    "broadcast_to": (lambda t: _ns(t).broadcast_to(t[:1], (2, 4, 5)), (_A,), (0,)),
    "concat": (lambda t: af.concat([t, t], axis=-1) if _ns(t) is af else torch.cat([t, t], -1),
               (_A,), (0,)),
    "stack": (lambda t, u: af.stack([t, u], axis=1) if _ns(t) is af else torch.stack([t, u], 1),
              (_A, _A[0]), (0, None)),
    "expand_dims": (lambda t: af.expand_dims(t, axis=1) if _ns(t) is af else t.unsqueeze(1),
                    (_A,), (0,)),
    "squeeze": (lambda t: af.squeeze(t[:1], axis=0) if _ns(t) is af else t[:1].squeeze(0),
                (_A,), (0,)),
    "unstack": (lambda t: af.unstack(t, axis=1) if _ns(t) is af else torch.unbind(t, 1),
                (_A,), (0,)),
    "flip": (lambda t: af.flip(t, axis=0) if _ns(t) is af else torch.flip(t, (0,)), (_A,), (0,)),
    "roll": (lambda t: af.roll(t, 2) if _ns(t) is af else torch.roll(t, 2), (_A,), (0,)),
    "roll:axis": (lambda t: af.roll(t, 1, axis=1) if _ns(t) is af else torch.roll(t, 1, 1),
                  (_A,), (0,)),
    "moveaxis": (lambda t: _ns(t).movedim(t, 0, 1), (_A,), (0,)),
    "permute_dims": (lambda t: af.permute_dims(t, (1, 0)) if _ns(t) is af else t.permute(1, 0),
                     (_A,), (0,)),
    "repeat": (lambda t: af.repeat(t, 2, axis=0) if _ns(t) is af
               else torch.repeat_interleave(t, 2, 0), (_A,), (0,)),
    "reshape": (lambda t: _ns(t).reshape(t, (2, -1)), (_A,), (0,)),
    "tile": (lambda t: af.tile(t, (2, 1)) if _ns(t) is af else torch.tile(t, (2, 1)), (_A,), (0,)),
    "take": (lambda t, i: af.take(t, i, axis=1) if _ns(t) is af else torch.index_select(t, 1, i),
             (_A, np.array([0, 2, 2])), (0, None)),
    "take_along_axis": (lambda t, i: _ns(t).take_along_dim(t, i, 0) if _ns(t) is torch
                        else af.take_along_axis(t, i, axis=0),
                        (_A, RNG.integers(0, 4, (3, 2, 5))), (0, 0)),
    "getitem": (lambda t: t[1:, ::2][..., None], (_A,), (0,)),
    "index_put": (lambda t, v: af.index_put(t, (af.asarray([0, 2]),), v) if _ns(t) is af
                  else t.index_put((torch.asarray([0, 2]),), v),
                  (_A, _V[:, :1].repeat(5, 1)[:, None, :]), (0, 0)),
    "matmul": (lambda t, u: t @ u, (_A, _V5), (0, 0)),
    "matmul:vector_left": (lambda t, u: u @ t, (_A, _V), (0, 0)),
    "vecdot": (lambda t, u: af.vecdot(t, u, axis=0) if _ns(t) is af
               else torch.linalg.vecdot(t, u, dim=0), (_A, _A[0]), (0, None)),
    "linalg.cross": (lambda t, u: _ns(t).linalg.cross(t, u), (_C3, _C3[0]), (0, None)),
    # both operands batched, and of the batch size (3): the silent-wrong case of the old rule
    "linalg.outer": (lambda t, u: af.linalg.outer(t, u) if _ns(t) is af else torch.outer(t, u),
                     (_V[:, :3], _V[:, 1:]), (0, 0)),
    "linalg.outer:one_batched": (lambda t, u: af.linalg.outer(t, u) if _ns(t) is af
                                 else torch.outer(t, u), (_V[0], _V[:, :3]), (None, 0)),
    "linalg.solve": (lambda t, u: _ns(t).linalg.solve(t, u), (_SQ, _V), (0, 0)),
    "tensordot": (lambda t, u: _ns(t).tensordot(t, u, dims=([0], [0])) if _ns(t) is torch
                  else af.tensordot(t, u, axes=([0], [0])), (_A, _V[0]), (0, None)),
    "einsum": (lambda t, u: _ns(t).einsum("ij,i->j", t, u), (_A, _V), (0, 0)),
    "einsum:one_batched": (lambda t, u: _ns(t).einsum("...i,ij", u, t), (_A, _V[0]),
                           (0, None)),
    "einsum:implicit": (lambda t: _ns(t).einsum("ii", t), (_SQ,), (0,)),
    "fft.fftn": (lambda t: _ns(t).fft.fftn(t), (_A,), (0,)),
    "fft.ifftn": (lambda t: _ns(t).fft.ifftn(t, axes=(0,)) if _ns(t) is af
                  else torch.fft.ifftn(t, dim=(0,)), (_A,), (0,)),
    "fft.rfftn": (lambda t: _ns(t).fft.rfftn(t), (_A,), (0,)),
    "fft.irfftn": (lambda t: _ns(t).fft.irfftn(_ns(t).fft.rfftn(t)), (_A,), (0,)),
    "fft.fftshift": (lambda t: _ns(t).fft.fftshift(t), (_A,), (0,)),
    "fft.ifftshift": (lambda t: af.fft.ifftshift(t, axes=1) if _ns(t) is af
                      else torch.fft.ifftshift(t, dim=1), (_A,), (0,)),
}


def test_every_declared_rule_has_a_case():
    declared = {n for n, o in OPS.items() if o.batch is not None}
    assert declared == {k.split(":")[0] for k in DECLARED_CASES}


@pytest.mark.parametrize("name", sorted(DECLARED_CASES))
def test_declared_batching_rules_match_torch_without_the_loop(name):
    f, arrays, dims = DECLARED_CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the declared rule, not the loop
        got = vmap(f, in_dims=dims)(*[af.asarray(a) for a in arrays])
    want = tfunc.vmap(f, in_dims=dims)(*[torch.asarray(a) for a in arrays])
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            close(g, w, rtol=1e-6, atol=1e-9)
    else:
        close(got, want, rtol=1e-6, atol=1e-9)


# multigammaln's d and yn's n are Python ints (a dimension, a recurrence's length)
_INT_PARAM = {"special.multigammaln", "special.yn"}


@pytest.mark.parametrize("name", sorted(n for n, o in OPS.items() if o.elementwise
                                        and n.startswith("special.") and n not in _INT_PARAM))
def test_special_functions_are_batched_element_wise(name):
    op = OPS[name]
    n = _arity(op)
    args = [af.asarray(RNG.uniform(0.1, 0.9, s)) for s in [(3, 2, 4), (2, 4), (4,)][:n]]
    dims = (1, 0, None)[:n]
    with warnings.catch_warnings():
        # the derived element-wise rule, not the loop (which warns)
        warnings.filterwarnings("error", message=".*falling back to a Python loop")
        got = vmap(op, in_dims=dims)(*args)
    with np.errstate(all="ignore"):
        want = loop(op, args, dims)
    close(got, want)
