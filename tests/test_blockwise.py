"""Element-wise ``arrayflow.special`` functions run one block at a time on Dask
(``arrayflow/ops/_blockwise.py``): one graph layer per op, the same values and gradients as
on NumPy, and the unblocked path wherever blocks cannot be used."""

import pickle
import warnings

import numpy as np
import pytest

import arrayflow as af
import arrayflow.special as sp

pytest.importorskip("dask")
scipy_special = pytest.importorskip("scipy.special")

RNG = np.random.default_rng(7)


def _layers(t):
    return len(t._cell.array.__dask_graph__().layers)


def _np(t):
    return np.asarray(t.numpy())


def test_a_deep_function_is_one_layer_and_bit_identical_to_numpy():
    a = RNG.uniform(0.5, 40, (5, 6))
    x = RNG.uniform(0.1, 60, (5, 6))
    with af.use_backend("numpy"):
        want = _np(sp.gammainc(af.asarray(a), af.asarray(x)))
    with af.use_backend("dask", chunks=(2, 3)):
        ad, xd = af.asarray(a), af.asarray(x)
        got = sp.gammainc(ad, xd)
        # two inputs and one map_blocks layer (about 1100 layers when unblocked)
        assert _layers(got) <= _layers(ad) + _layers(xd) + 1
        assert got._cell.array.chunks == ((2, 2, 1), (3, 3))
        np.testing.assert_array_equal(_np(got), want)
    np.testing.assert_allclose(want, scipy_special.gammainc(a, x), rtol=1e-12)


def test_gradients_of_successive_calls_with_other_scalars_are_each_right():
    # The probe that maps residuals is cached per call signature: a Python-scalar argument
    # saved as a residual must be the one of this call, not of an earlier one (this was a
    # wrong gradient: expn(0, x) then expn(3, x) reused n = 0 in the VJP).
    x = RNG.uniform(0.2, 4, (2, 3))
    grads = {}
    for name in ("numpy", "dask"):
        with af.use_backend(name):
            out = []
            for n in (0, 3, 60, 3):
                t = af.asarray(x, requires_grad=True)
                sp.expn(n, t).sum().backward()
                out.append(_np(t.grad))
            grads[name] = out
    for g_np, g_dask in zip(grads["numpy"], grads["dask"]):
        np.testing.assert_allclose(g_dask, g_np, rtol=1e-13, atol=0)
    # and they are the derivative -E_{n-1}(x)
    for n, g in zip((3, 60), grads["dask"][1:3]):
        np.testing.assert_allclose(g, -scipy_special.expn(n - 1, x), rtol=1e-12)


def test_vjp_is_blockwise_and_matches_numpy():
    a = RNG.uniform(1, 20, (4, 5))
    x = RNG.uniform(0.5, 30, (4, 5))
    grads = {}
    for name in ("numpy", "dask"):
        with af.use_backend(name, **({"chunks": 2} if name == "dask" else {})):
            t = af.asarray(x, requires_grad=True)
            y = sp.gammaincc(af.asarray(a), t)
            (g,) = af.autograd.grad(y, [t], grad_outputs=[af.ones_like(y)])
            if name == "dask":
                assert _layers(g) < 20  # the density as one layer, not hundreds
            grads[name] = _np(g)
    np.testing.assert_array_equal(grads["dask"], grads["numpy"])


def test_broadcast_operands_with_different_chunks():
    a = RNG.uniform(0.5, 5, (1, 6))
    x = RNG.uniform(0.1, 8, (4, 6))
    with af.use_backend("dask"):
        ad = af.asarray(a, chunks=(1, 2))
        xd = af.asarray(x, chunks=(2, 3))
        got = sp.gammainc(ad, xd)
        assert tuple(got.shape) == (4, 6)
        np.testing.assert_allclose(_np(got), scipy_special.gammainc(a, x), rtol=1e-12)
        # a Python scalar beside an array
        np.testing.assert_allclose(_np(sp.gammainc(2.5, xd)), scipy_special.gammainc(2.5, x),
                                   rtol=1e-12)


def test_double_backward_runs_unblocked_and_matches_numpy():
    # create_graph: the VJP runs on Tensors (recorded), where blocks are not used
    x = RNG.uniform(0.5, 3, (3,))
    out = {}
    for name in ("numpy", "dask"):
        with af.use_backend(name):
            t = af.asarray(x, requires_grad=True)
            (g,) = af.autograd.grad(sp.j0(t).sum(), [t], create_graph=True)
            (gg,) = af.autograd.grad(g.sum(), [t])
            out[name] = (_np(g.detach()), _np(gg))
    np.testing.assert_allclose(out["dask"][0], out["numpy"][0], rtol=1e-14)
    np.testing.assert_allclose(out["dask"][1], out["numpy"][1], rtol=1e-13)
    # j0'' = -j1' = -(j0 - j1/x)
    np.testing.assert_allclose(out["numpy"][1], -(scipy_special.j0(x) - scipy_special.j1(x) / x),
                               rtol=1e-12)


def test_masked_selection_of_unknown_size_keeps_its_rules():
    # an input of unknown size is not run block-wise: the lazy backend's rule applies as
    # before (DataDependentShapeError, or its size computed under allow_compute)
    x = np.array([0.5, -1.0, 2.0, 3.0, -0.2, 7.0])
    with af.use_backend("dask"):
        t = af.asarray(x)
        sel = t[t > 0]
        assert any(s is None for s in sel.shape)
        with pytest.raises(af.DataDependentShapeError, match="special.ndtr"):
            sp.ndtr(sel)
        with af.allow_compute():
            y = sp.ndtr(sel)
        np.testing.assert_allclose(_np(y), scipy_special.ndtr(x[x > 0]), rtol=1e-14)


def test_bad_input_raises_the_same_error_as_on_numpy():
    z = np.array([1 + 1j, 2.0])
    msgs = []
    for name in ("numpy", "dask"):
        with af.use_backend(name):
            with pytest.raises(TypeError) as e:
                sp.gammainc(af.asarray(z), af.asarray(z))
            msgs.append(str(e.value))
    assert msgs[0] == msgs[1] and "gammainc" in msgs[0]


def test_float32_stays_float32():
    x = RNG.uniform(0.1, 5, (6,)).astype(np.float32)
    with af.use_backend("numpy"):
        want = _np(sp.k0(af.asarray(x)))
    with af.use_backend("dask", chunks=4):
        got = sp.k0(af.asarray(x))
        assert got.dtype == af.float32
        assert _np(got).dtype == np.float32
        np.testing.assert_array_equal(_np(got), want)


def test_the_block_task_pickles_for_other_processes():
    # dask.distributed and the processes scheduler ship tasks by pickling them
    from arrayflow.ops._blockwise import _Kernel
    from arrayflow.ops.special_incomplete import _igam

    k = _Kernel(_igam, "numpy", (None, None), [0, 1], {"upper": False}, False)
    k2 = pickle.loads(pickle.dumps(k))
    a, x = np.array([2.0, 30.0]), np.array([1.0, 25.0])
    np.testing.assert_allclose(k2(a, x), scipy_special.gammainc(a, x), rtol=1e-13)


def test_processes_scheduler_computes_the_same_values():
    import dask

    x = RNG.uniform(0.5, 9, (8,))
    with af.use_backend("dask", chunks=4):
        y = sp.y1(af.asarray(x))
        with warnings.catch_warnings(), dask.config.set(scheduler="processes", num_workers=2):
            warnings.simplefilter("ignore")
            (got,) = dask.compute(y._cell.array)
    np.testing.assert_allclose(got, scipy_special.y1(x), rtol=1e-13)


@pytest.mark.parametrize("name", ["numpy", "strict", "dask"])
def test_masked_lanes_do_not_warn(name):
    # every branch runs on every element and `where` selects: the lanes a branch does not
    # own overflow or divide by zero by design, which NumPy reports as RuntimeWarnings
    # (PyTorch's kernels never do); the values are the IEEE ones either way
    a = np.array([0.0, -1.0, 1e-300, 1e300, np.inf, np.nan, 2.5, 1e5])
    y = np.array([0.0, 0.5, 1e-300, 0.3, 0.5, 0.5, 1.0, 1 - 1e-12])
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = [sp.gammainc(af.asarray(a), af.asarray(y)).numpy(),
                sp.gammaincinv(af.asarray(a), af.asarray(y)).numpy()]
    with af.use_backend(name), warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        yt = af.asarray(y, requires_grad=True)
        p = sp.gammainc(af.asarray(a), yt)
        x = sp.gammaincinv(af.asarray(a), yt)
        (p.sum() + x.sum()).backward()
        got = [p.compute().numpy(), x.compute().numpy()]
        assert yt.grad is not None
        yt.grad.compute().numpy()
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    # outside these functions NumPy's own warnings are untouched
    with pytest.warns(RuntimeWarning):
        np.log(np.zeros(1))
