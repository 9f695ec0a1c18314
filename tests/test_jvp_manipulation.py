"""Forward mode (issue 14) of the manipulation, indexing, creation, dtype and chunking ops,
against PyTorch's ``torch.autograd.forward_ad``: complex tangents of every ``complex_ok``
op of these families, ``index_put`` through ``x[idx] = v`` (dual ``x`` and/or ``v``, views),
``getitem`` with advanced keys, ``astype`` (complex to real, to integers), ``tril``/``triu``,
the ``*_like`` constructors, ``concat``/``stack`` beside integer arrays; and on Dask the
tangents of ``rechunk``/``persist`` laid out and persisted as the values are.
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest
from conftest import forbid_compute, on_backend

import arrayflow as af
import arrayflow.autograd.forward_ad as fwAD

torch = pytest.importorskip("torch")
tfw = torch.autograd.forward_ad


def _np(t):
    return None if t is None else np.asarray(t.numpy())


def _tnp(t):
    return None if t is None else t.detach().resolve_conj().numpy()


def _data(rng, shape, complex_=False):
    a = rng.standard_normal(shape)
    if complex_:
        a = a + 1j * rng.standard_normal(shape)
    return a


def _af_duals(pairs):
    return [fwAD.make_dual(af.asarray(p), af.asarray(t)) for p, t in pairs]


def _torch_duals(pairs):
    return [tfw.make_dual(torch.from_numpy(p), torch.from_numpy(t)) for p, t in pairs]


def _af_tangents(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [(_np(o), _np(fwAD.unpack_dual(o).tangent)) for o in outs]


def _torch_tangents(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [(_tnp(o), _tnp(tfw.unpack_dual(o).tangent)) for o in outs]


def _compare(got, want):
    assert len(got) == len(want)
    for (gp, gt), (wp, wt) in zip(got, want):
        np.testing.assert_allclose(gp, wp, rtol=1e-12, atol=1e-12)
        if wt is None:
            assert gt is None or not np.any(gt), "PyTorch gives no tangent here"
        else:
            assert gt is not None, "PyTorch gives a tangent here"
            np.testing.assert_allclose(gt, wt, rtol=1e-12, atol=1e-12)


def _idx(lib, v):
    return af.asarray(v) if lib is af else torch.tensor(v)


# --- every complex_ok op of these families on a complex input ---------------------------

# (id, shapes of the dual inputs, f(lib, *xs)) with lib either arrayflow or torch
COMPLEX_CASES = [
    ("broadcast_arrays", [(3, 1), (1, 4)],
     lambda lib, a, b: (af.broadcast_arrays(a, b) if lib is af
                        else torch.broadcast_tensors(a, b))),
    ("broadcast_to", [(3, 1)], lambda lib, a: lib.broadcast_to(a, (2, 3, 4))),
    ("concat", [(2, 3), (1, 3)],
     lambda lib, a, b: af.concat([a, b], axis=0) if lib is af else torch.cat([a, b], 0)),
    ("expand_dims", [(2, 3)],
     lambda lib, a: af.expand_dims(a, axis=1) if lib is af else torch.unsqueeze(a, 1)),
    ("flip", [(2, 3)],
     lambda lib, a: af.flip(a, axis=1) if lib is af else torch.flip(a, (1,))),
    ("moveaxis", [(2, 3, 4)], lambda lib, a: lib.moveaxis(a, 0, -1)),
    ("permute_dims", [(2, 3, 4)],
     lambda lib, a: af.permute_dims(a, (2, 0, 1)) if lib is af else a.permute(2, 0, 1)),
    ("repeat", [(2, 3)],
     lambda lib, a: (af.repeat(a, 2, axis=1) if lib is af
                     else torch.repeat_interleave(a, 2, dim=1))),
    ("reshape", [(2, 3)], lambda lib, a: lib.reshape(a, (3, 2))),
    ("roll", [(2, 3)],
     lambda lib, a: af.roll(a, 1, axis=1) if lib is af else torch.roll(a, 1, 1)),
    ("squeeze", [(2, 1, 3)],
     lambda lib, a: af.squeeze(a, axis=1) if lib is af else torch.squeeze(a, 1)),
    ("stack", [(2, 3), (2, 3)],
     lambda lib, a, b: af.stack([a, b], axis=1) if lib is af else torch.stack([a, b], 1)),
    ("tile", [(2, 3)], lambda lib, a: lib.tile(a, (2, 1))),
    ("unstack", [(2, 3)],
     lambda lib, a: af.unstack(a, axis=1) if lib is af else torch.unbind(a, 1)),
    ("take", [(3, 4)],
     lambda lib, a: (af.take(a, af.asarray([2, 0, 2]), axis=1) if lib is af
                     else torch.index_select(a, 1, torch.tensor([2, 0, 2])))),
    ("take_along_axis", [(3, 4)],
     lambda lib, a: (lib.take_along_dim if lib is torch else af.take_along_axis)(
         a, _idx(lib, [[0, 3], [1, 1], [2, 0]]), **({"dim": 1} if lib is torch
                                                     else {"axis": 1}))),
    ("getitem", [(3, 4)], lambda lib, a: a[_idx(lib, [2, 0]), 1:]),
    ("index_put", [(3, 4), (2, 4)],
     lambda lib, a, v: (af.index_put(a, (af.asarray([2, 0]),), v) if lib is af
                        else a.index_put((torch.tensor([2, 0]),), v))),
    ("asarray", [(2, 3)], lambda lib, a: lib.asarray(a) if lib is af else torch.as_tensor(a)),
    ("meshgrid", [(3,), (2,)], lambda lib, a, b: lib.meshgrid(a, b, indexing="xy")),
    ("tril", [(3, 3)], lambda lib, a: lib.tril(a, diagonal=0) if lib is torch
     else af.tril(a, k=0)),
    ("triu", [(3, 3)], lambda lib, a: torch.triu(a, 1) if lib is torch else af.triu(a, k=1)),
    ("astype", [(2, 3)],
     lambda lib, a: af.astype(a, af.complex64) if lib is af else a.to(torch.complex64)),
]


@pytest.mark.parametrize("case", COMPLEX_CASES, ids=lambda c: c[0])
def test_complex_tangents_match_torch(case, backend):
    _, shapes, fn = case
    rng = np.random.default_rng(0)
    pairs = [(_data(rng, s, True), _data(rng, s, True)) for s in shapes]
    with fwAD.dual_level():
        got = _af_tangents(fn(af, *_af_duals(pairs)))
    with tfw.dual_level():
        want = _torch_tangents(fn(torch, *_torch_duals(pairs)))
    if case[0] == "astype":  # complex64: single precision
        for (gp, gt), (wp, wt) in zip(got, want):
            np.testing.assert_allclose(gp, wp, rtol=1e-6)
            np.testing.assert_allclose(gt, wt, rtol=1e-6)
        return
    _compare(got, want)


@pytest.mark.parametrize("name", ["rechunk", "persist"])
def test_rechunk_and_persist_pass_complex_tangents_through(name, backend):
    # neither PyTorch nor the standard has them: identities on values and tangents
    rng = np.random.default_rng(1)
    p, t = _data(rng, (4, 3), True), _data(rng, (4, 3), True)
    with fwAD.dual_level():
        (x,) = _af_duals([(p, t)])
        y = af.rechunk(x, 2) if name == "rechunk" else af.persist(x)[0]
        got = fwAD.unpack_dual(y).tangent
        np.testing.assert_allclose(_np(got), t, rtol=0, atol=0)


# --- index_put: af.index_put and x[idx] = v ------------------------------------------

KEYS = {
    "slice": (lambda lib: (slice(1, 3),), (2, 4)),
    "int-array": (lambda lib: (_idx(lib, [2, 0]),), (2, 4)),
    "int-array-scalar-broadcast": (lambda lib: (_idx(lib, [2, 0]),), (4,)),
    "two-int-arrays": (lambda lib: (_idx(lib, [0, 2]), _idx(lib, [3, 1])), (2,)),
    "int-and-int-array": (lambda lib: (1, _idx(lib, [3, 0])), (2,)),
    "bool-mask": (lambda lib: (_idx(lib, [True, False, True]),), (2, 4)),
    "mask-and-slice": (lambda lib: (_idx(lib, [False, True, True]), slice(0, 2)), (2, 2)),
}


@pytest.mark.parametrize("which", ["both", "x", "v"])
@pytest.mark.parametrize("key", sorted(KEYS))
@pytest.mark.parametrize("how", ["setitem", "index_put"])
def test_index_put_tangent_matches_torch(how, key, which, backend):
    """x[key] = v with x and/or v dual: PyTorch's tangent (x's outside the written places,
    v's inside, zero for the one without)."""
    make_key, vshape = KEYS[key]
    rng = np.random.default_rng(2)
    xp_, xt = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    vp, vt = rng.standard_normal(vshape), rng.standard_normal(vshape)

    def run(lib, fw, dual):
        with fw.dual_level():
            x = dual(xp_, xt) if which in ("both", "x") else lib.asarray(xp_.copy())
            v = dual(vp, vt) if which in ("both", "v") else lib.asarray(vp)
            k = make_key(lib)
            if how == "setitem":
                x[k] = v
                out = x
            else:
                out = af.index_put(x, k, v) if lib is af else x.index_put(
                    tuple(torch.as_tensor(e) if not isinstance(e, (int, slice)) else e
                          for e in k), v) if key not in ("slice", "int-and-int-array",
                                                         "mask-and-slice") else None
                if out is None:  # torch's index_put takes tensors only: its __setitem__
                    x = x.clone()
                    x[k] = v
                    out = x
            p, t = fw.unpack_dual(out)
            return p.detach().numpy().copy(), None if t is None else t.detach().numpy().copy()

    got = run(af, fwAD, lambda p, t: fwAD.make_dual(af.asarray(p.copy()), af.asarray(t)))
    want = run(torch, tfw, lambda p, t: tfw.make_dual(torch.from_numpy(p.copy()),
                                                     torch.from_numpy(t)))
    np.testing.assert_allclose(got[0], want[0], rtol=0, atol=0)
    assert got[1] is not None and want[1] is not None
    np.testing.assert_allclose(got[1], want[1], rtol=0, atol=0)


def test_index_put_scalar_value_writes_zero_tangent(backend):
    rng = np.random.default_rng(3)
    p, t = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    with fwAD.dual_level():
        x = fwAD.make_dual(af.asarray(p), af.asarray(t))
        x[af.asarray([0, 2])] = 5.0
        got = _np(fwAD.unpack_dual(x).tangent)
    with tfw.dual_level():
        y = tfw.make_dual(torch.from_numpy(p.copy()), torch.from_numpy(t.copy()))
        y[torch.tensor([0, 2])] = 5.0
        want = _tnp(tfw.unpack_dual(y).tangent)
    np.testing.assert_allclose(got, want, rtol=0, atol=0)


def test_inplace_writes_reach_views_and_the_given_tangent_as_in_torch(backend):
    def run(lib, fw, arr):
        res = {}
        with fw.dual_level():
            t = lib.ones(3, dtype=lib.float64)
            x = fw.make_dual(arr([1.0, 2.0, 3.0]), t)
            v = fw.make_dual(arr([5.0]), arr([7.0]))
            w = x[1:]  # a view taken before the write sees it
            x[_idx(lib, [2])] = v
            res["x"], res["t"], res["w"] = (fw.unpack_dual(x).tangent, t,
                                            fw.unpack_dual(w).tangent)
            b = fw.make_dual(lib.zeros((2, 3), dtype=lib.float64),
                             lib.ones((2, 3), dtype=lib.float64))
            row = b[0]
            row[1] = v[0]  # a write into a view reaches the base's tangent
            res["b"] = fw.unpack_dual(b).tangent
            e = fw.make_dual(lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64))
            e += 2 * v
            res["e"] = fw.unpack_dual(e).tangent
            e.zero_()
            res["zero"] = fw.unpack_dual(e).tangent
            q = lib.zeros(3, dtype=lib.float64)
            q.copy_(x)  # a plain Tensor takes the copied tangent
            res["copy"] = fw.unpack_dual(q).tangent
            x.copy_(arr([1.0, 2.0, 3.0]))  # a dual one gets a zero tangent
            res["copy_plain"] = fw.unpack_dual(x).tangent
            r = lib.ones(3, dtype=lib.float64)
            r.add_(2 * e + v)
            res["add_"] = fw.unpack_dual(r).tangent
            return {k: np.array(val.detach().numpy() if lib is torch else val.numpy())
                    for k, val in res.items()}

    got = run(af, fwAD, lambda v: af.asarray(v, dtype=af.float64))
    want = run(torch, tfw, lambda v: torch.tensor(v, dtype=torch.float64))
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=0, atol=0, err_msg=k)


def test_inplace_write_does_not_reach_tangents_of_other_tensors(backend):
    """Tensors computed from a dual before an in-place write keep their tangents (a rule
    that passes a tangent through must not make two Tensors share one that is then
    written in place)."""
    def run(lib, fw, arr):
        with fw.dual_level():
            t = lib.ones(3, dtype=lib.float64)
            x = fw.make_dual(arr([0.0, 1.0, 2.0]), t)
            q = lib.zeros(3, dtype=lib.float64)
            q += x  # q's tangent: x's passed through
            y = x + 1.0
            p = lib.zeros(3, dtype=lib.float64)
            p.copy_(x)
            x[0] = fw.make_dual(arr(5.0), arr(7.0))
            outs = [fw.unpack_dual(a).tangent for a in (q, y, p, x)] + [t]
            return [np.array(o.numpy()) for o in outs]

    got = run(af, fwAD, lambda v: af.asarray(v, dtype=af.float64))
    want = run(torch, tfw, lambda v: torch.tensor(v, dtype=torch.float64))
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, w, rtol=0, atol=0, err_msg=str(k))


def test_inplace_write_into_a_dual_whose_tangent_requires_grad(backend):
    # PyTorch raises here (an in-place write into a view of a leaf that requires grad);
    # arrayflow gives the dual the new tangent, differentiable in the old one
    with fwAD.dual_level():
        t = af.ones(3, dtype=af.float64, requires_grad=True)
        x = fwAD.make_dual(af.zeros(3, dtype=af.float64), t)
        x[0] = fwAD.make_dual(af.asarray(5.0, dtype=af.float64),
                              af.asarray(7.0, dtype=af.float64))
        tx = fwAD.unpack_dual(x).tangent
        np.testing.assert_array_equal(tx.detach().numpy(), [7.0, 1.0, 1.0])
        (g,) = af.autograd.grad(af.sum(tx * af.asarray([1.0, 2.0, 3.0], dtype=af.float64)),
                                [t])
        np.testing.assert_array_equal(g.numpy(), [0.0, 2.0, 3.0])


def test_dual_write_into_a_view_of_a_plain_tensor_raises_and_changes_nothing(backend):
    # PyTorch makes the base dual; arrayflow cannot reach a base without a tangent: an
    # error rather than a tangent silently missing from the base
    with fwAD.dual_level():
        v = fwAD.make_dual(af.asarray([5.0], dtype=af.float64),
                           af.asarray([7.0], dtype=af.float64))
        c = af.zeros((2, 3), dtype=af.float64)
        row = c[1]
        with pytest.raises(NotImplementedError, match="view"):
            row[0] = v[0]
        np.testing.assert_array_equal(c.numpy(), np.zeros((2, 3)))


# --- getitem with advanced keys -----------------------------------------------------------

GETITEM_KEYS = {
    "int-array": lambda lib: _idx(lib, [2, 0, 2]),
    "int-array-2d": lambda lib: _idx(lib, [[0, 1], [2, 2]]),
    "negative": lambda lib: _idx(lib, [-1, 0]),
    "two-int-arrays": lambda lib: (_idx(lib, [0, 2]), _idx(lib, [1, 0])),
    "int-then-array": lambda lib: (1, slice(None), _idx(lib, [1, 0])),
    "array-slice-array": lambda lib: (_idx(lib, [0, 2]), slice(0, 2), _idx(lib, [1, 0])),
    "bool-mask": lambda lib: _idx(lib, [True, False, True]),
    "bool-mask-2d": lambda lib: _idx(lib, [[True, False], [False, True], [True, True]]),
    "mask-and-slice": lambda lib: (slice(None), _idx(lib, [False, True])),
    "list": lambda lib: [0, 2],
    "none-and-array": lambda lib: (None, _idx(lib, [1, 2])),
}


@pytest.mark.parametrize("key", sorted(GETITEM_KEYS))
def test_getitem_advanced_tangent_matches_torch(key, backend):
    rng = np.random.default_rng(4)
    pairs = [(rng.standard_normal((3, 2, 4)), rng.standard_normal((3, 2, 4)))]
    # Dask: a mask's result shape depends on its values (computed on request only)
    masked = "mask" in key and backend == "dask"
    with fwAD.dual_level(), af.allow_compute() if masked else contextlib.nullcontext():
        (x,) = _af_duals(pairs)
        got = _af_tangents(x[GETITEM_KEYS[key](af)])
    with tfw.dual_level():
        (y,) = _torch_duals(pairs)
        want = _torch_tangents(y[GETITEM_KEYS[key](torch)])
    _compare(got, want)


# --- astype ------------------------------------------------------------------------------

def test_astype_complex_to_real_tangent_is_the_real_part(backend):
    rng = np.random.default_rng(5)
    p, t = _data(rng, (2, 3), True), _data(rng, (2, 3), True)
    with fwAD.dual_level():
        (x,) = _af_duals([(p, t)])
        if backend == "strict":  # array_api_strict refuses the cast itself
            with pytest.raises(TypeError):
                af.astype(x, af.float64)
            return
        got = _af_tangents(af.astype(x, af.float64))
    with tfw.dual_level(), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "discards the imaginary part"
        (y,) = _torch_duals([(p, t)])
        want = _torch_tangents(y.to(torch.float64))
    _compare(got, want)
    assert got[0][1].dtype == np.float64


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_astype_tangent_follows_the_cast(dtype, backend):
    rng = np.random.default_rng(6)
    p, t = rng.standard_normal(5), rng.standard_normal(5)
    with fwAD.dual_level():
        (x,) = _af_duals([(p, t)])
        y = af.astype(x, getattr(af, dtype))
        got_t = fwAD.unpack_dual(y).tangent
    with tfw.dual_level():
        (z,) = _torch_duals([(p, t)])
        want_t = tfw.unpack_dual(z.to(getattr(torch, dtype))).tangent
    if want_t is None:  # integer and bool casts: no tangent
        assert got_t is None
    else:
        assert got_t.dtype == af.float32
        np.testing.assert_allclose(_np(got_t), _tnp(want_t), rtol=1e-7)


# --- tril / triu -------------------------------------------------------------------------

@pytest.mark.parametrize("k", [-1, 0, 2])
@pytest.mark.parametrize("name", ["tril", "triu"])
def test_tril_triu_tangents_match_torch(name, k, backend):
    rng = np.random.default_rng(7)
    pairs = [(rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 3, 4)))]
    with fwAD.dual_level():
        (x,) = _af_duals(pairs)
        got = _af_tangents(getattr(af, name)(x, k=k))
    with tfw.dual_level():
        (y,) = _torch_duals(pairs)
        want = _torch_tangents(getattr(torch, name)(y, k))
    _compare(got, want)


# --- creation from a dual ----------------------------------------------------------------

LIKE = {
    "zeros_like": (lambda x: af.zeros_like(x), lambda x: torch.zeros_like(x)),
    "ones_like": (lambda x: af.ones_like(x), lambda x: torch.ones_like(x)),
    "empty_like": (lambda x: af.empty_like(x), lambda x: torch.empty_like(x)),
    "full_like": (lambda x: af.full_like(x, 2.0), lambda x: torch.full_like(x, 2.0)),
}


@pytest.mark.parametrize("name", sorted(LIKE))
def test_like_constructors_have_no_tangent_as_in_torch(name, backend):
    f_af, f_torch = LIKE[name]
    with tfw.dual_level():
        y = tfw.make_dual(torch.ones(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64))
        assert tfw.unpack_dual(f_torch(y)).tangent is None
    with fwAD.dual_level():
        x = fwAD.make_dual(af.ones(3, dtype=af.float64), af.ones(3, dtype=af.float64))
        assert fwAD.unpack_dual(f_af(x)).tangent is None


def test_asarray_tangent_follows_dtype_and_drops_for_integers(backend):
    rng = np.random.default_rng(8)
    p, t = rng.standard_normal(4), rng.standard_normal(4)
    with fwAD.dual_level():
        (x,) = _af_duals([(p, t)])
        assert af.asarray(x) is x
        y = af.asarray(x, dtype=af.float32)
        np.testing.assert_allclose(_np(fwAD.unpack_dual(y).tangent), t.astype(np.float32))
        assert fwAD.unpack_dual(af.asarray(x, dtype=af.int64)).tangent is None
    with tfw.dual_level():
        (z,) = _torch_duals([(p, t)])
        assert tfw.unpack_dual(torch.as_tensor(z, dtype=torch.int64)).tangent is None


# --- joins beside integer arrays, meshgrid ------------------------------------------------

@pytest.mark.parametrize("name", ["concat", "stack"])
def test_join_beside_an_integer_array_gives_zeros_there(name, backend):
    """The integer array is data (promoted), not an index: its values must not enter the
    tangent."""
    rng = np.random.default_rng(9)
    pairs = [(rng.standard_normal(2), rng.standard_normal(2))]
    with fwAD.dual_level():
        (x,) = _af_duals(pairs)
        got = _af_tangents(getattr(af, name)([x, af.asarray([10, 20])]))
    with tfw.dual_level():
        (y,) = _torch_duals(pairs)
        tf = torch.cat if name == "concat" else torch.stack
        want = _torch_tangents(tf([y, torch.tensor([10, 20])]))
    _compare(got, want)


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_tangents_only_where_the_input_is_dual(indexing, backend):
    rng = np.random.default_rng(10)
    p, t, q = rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal(2)
    with fwAD.dual_level():
        (x,) = _af_duals([(p, t)])
        outs = af.meshgrid(x, af.asarray(q), indexing=indexing)
        got = [fwAD.unpack_dual(o).tangent for o in outs]
    with tfw.dual_level():
        (y,) = _torch_duals([(p, t)])
        outs_t = torch.meshgrid(y, torch.from_numpy(q), indexing=indexing)
        want = [tfw.unpack_dual(o).tangent for o in outs_t]
    assert want[1] is None and got[1] is None
    np.testing.assert_allclose(_np(got[0]), _tnp(want[0]), rtol=0, atol=0)


# --- Dask: rechunk and persist treat the tangent as the value ----------------------------

def test_dask_rechunk_lays_the_tangent_out_alike_lazily():
    with on_backend("dask"):
        rng = np.random.default_rng(11)
        p, t = rng.standard_normal((6, 4)), rng.standard_normal((6, 4))
        with fwAD.dual_level(), forbid_compute("dask"):
            x = fwAD.make_dual(af.asarray(p, chunks=6), af.asarray(t, chunks=6))
            y = af.rechunk(x, (2, 4))
            ty = fwAD.unpack_dual(y).tangent
            assert ty.chunks == y.chunks == ((2, 2, 2), (4,))
        np.testing.assert_allclose(ty.numpy(), t)


def test_dask_persist_persists_the_tangents():
    with on_backend("dask", chunks=2):
        rng = np.random.default_rng(12)
        p, t = rng.standard_normal(6), rng.standard_normal(6)
        with fwAD.dual_level():
            x = fwAD.make_dual(af.asarray(p), af.asarray(t))
            y = af.exp(x) * 3
            py, pz = af.persist(y, af.asarray(np.ones(4)))
            ty = fwAD.unpack_dual(py).tangent
            assert fwAD.unpack_dual(pz).tangent is None
            # persisted: the tangent's graph is just its stored blocks
            graph = dict(ty._cell.array.__dask_graph__())
            assert len(graph) == ty._cell.array.npartitions
        np.testing.assert_allclose(ty.numpy(), 3 * np.exp(p) * t)


def test_dask_inplace_writes_update_tangents_lazily():
    with on_backend("dask"):
        with fwAD.dual_level(), forbid_compute("dask"):
            x = fwAD.make_dual(af.zeros((4, 3), dtype=af.float64),
                               af.ones((4, 3), dtype=af.float64))
            w = x[1:]
            v = fwAD.make_dual(af.ones(3, dtype=af.float64) * 5,
                               af.ones(3, dtype=af.float64) * 7)
            x[af.asarray([2])] = v
            x[af.asarray([True, False, False, True])] = 2.0
            q = af.zeros((4, 3), dtype=af.float64)
            q += x
            tw, tq = fwAD.unpack_dual(w).tangent, fwAD.unpack_dual(q).tangent
        want = np.ones((4, 3))
        want[2], want[[0, 3]] = 7.0, 0.0
        np.testing.assert_array_equal(tq.numpy(), want)
        np.testing.assert_array_equal(tw.numpy(), want[1:])
