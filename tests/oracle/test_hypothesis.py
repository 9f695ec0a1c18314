"""Hypothesis draws indexing keys and broadcasting shapes; values and gradients vs PyTorch.

Keys: basic slices (positive steps: torch has no negative steps), negative integers, ``None``,
``Ellipsis``, integer arrays (negative entries included) and boolean masks, on every backend
(array_api_strict gets the keys the standard defines: one entry per axis, no bare integer on
an n-D array). Broadcasting: mutually broadcastable shapes, 0-d and size-0 axes included, for
the differentiable binary ops. Gradients use a random cotangent, the same on both sides.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import arrayflow as af
from arrayflow.testing.oracle import TORCH, oracle_tolerance

torch = pytest.importorskip("torch")

SETTINGS = settings(max_examples=15, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


def _to_torch_key(key):
    if isinstance(key, tuple):
        return tuple(_to_torch_key(k) for k in key)
    if isinstance(key, np.ndarray):
        return torch.from_numpy(key.copy())
    return key


def _to_af_key(key):
    if isinstance(key, tuple):
        return tuple(_to_af_key(k) for k in key)
    if isinstance(key, np.ndarray):
        return af.asarray(key)
    return key


@st.composite
def _slice(draw, n, standard=False):
    """Positive steps; out-of-bounds starts and stops only where NumPy semantics apply (the
    standard leaves them unspecified, and array_api_strict rejects them)."""
    bound = n if standard else n + 1
    start = draw(st.none() | st.integers(-bound, bound))
    stop = draw(st.none() | st.integers(-bound, bound))
    step = draw(st.none() | st.integers(1, 3))
    return slice(start, stop, step)


@st.composite
def basic_keys(draw, shape, standard):
    """One component per axis (int, slice), with None inserted and maybe an Ellipsis."""
    comps = []
    for n in shape:
        if n > 0 and draw(st.booleans()):
            comps.append(draw(st.integers(-n, n - 1)))
        else:
            comps.append(draw(_slice(n, standard)))
    if comps and draw(st.booleans()):  # an Ellipsis replaces a run of full slices
        i = draw(st.integers(0, len(comps)))
        j = draw(st.integers(i, len(comps)))
        comps = comps[:i] + [Ellipsis] + comps[j:]
    for _ in range(draw(st.integers(0, 2))):
        comps.insert(draw(st.integers(0, len(comps))), None)
    if not standard and comps and comps[-1] is not Ellipsis and draw(st.booleans()):
        comps = comps[:draw(st.integers(1, len(comps)))]  # a partial key (NumPy, Dask)
    return tuple(comps)


@st.composite
def advanced_keys(draw, shape, standard):
    """Integer arrays (negative entries too), ints, and with NumPy/Dask also slices."""
    idx_shape = draw(st.sampled_from([(3,), (2, 2), (1,), ()]))
    comps = []
    for n in shape:
        kind = draw(st.sampled_from(["array", "int"] + ([] if standard else ["slice"])))
        if n == 0 or kind == "slice":
            comps.append(draw(_slice(n)) if not standard else slice(None))
        elif kind == "int":
            comps.append(draw(st.integers(-n, n - 1)))
        else:
            vals = draw(st.lists(st.integers(-n, n - 1), min_size=int(np.prod(idx_shape)),
                                 max_size=int(np.prod(idx_shape))))
            comps.append(np.asarray(vals, dtype=np.int64).reshape(idx_shape))
    if not any(isinstance(c, np.ndarray) for c in comps):
        n = shape[0]
        comps[0] = np.asarray(draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=3)),
                              dtype=np.int64)
    return tuple(comps)


SHAPES = st.lists(st.integers(0, 4), min_size=1, max_size=3).map(tuple)
NONEMPTY = st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)


def _check_getitem(x_np, key, backend):
    tx = torch.from_numpy(x_np.copy()).requires_grad_()
    want = tx[_to_torch_key(key)]
    ax = af.asarray(x_np, requires_grad=True)
    if isinstance(key, np.ndarray) and key.dtype == bool:
        with af.allow_compute():  # a data-dependent shape: Dask computes the mask
            got = ax[_to_af_key(key)]
    else:
        got = ax[_to_af_key(key)]
    assert tuple(got.shape) == tuple(want.shape), f"{key!r}: {got.shape} vs {want.shape}"
    assert got.dtype.name == str(want.dtype).removeprefix("torch.")
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy(), err_msg=repr(key))
    w = np.asarray(np.random.default_rng(0).uniform(-1, 1, tuple(want.shape)))
    (t_g,) = torch.autograd.grad(want, [tx], torch.from_numpy(w))
    (a_g,) = af.autograd.grad(got, [ax], af.asarray(w))
    np.testing.assert_allclose(a_g.numpy(), t_g.numpy(), rtol=1e-12, atol=0,
                               err_msg=f"grad of x[{key!r}]")


@SETTINGS
@given(data=st.data(), shape=SHAPES)
def test_basic_indexing_matches_torch(backend, data, shape):
    key = data.draw(basic_keys(shape, standard=backend == "strict"))
    x = np.asarray(np.random.default_rng(1).uniform(-2, 2, shape))
    _check_getitem(x, key, backend)


@SETTINGS
@given(data=st.data(), shape=NONEMPTY)
def test_integer_array_indexing_matches_torch(backend, data, shape):
    key = data.draw(advanced_keys(shape, standard=backend == "strict"))
    x = np.asarray(np.random.default_rng(1).uniform(-2, 2, shape))
    _check_getitem(x, key, backend)


@SETTINGS
@given(data=st.data(), shape=SHAPES)
def test_boolean_mask_indexing_matches_torch(backend, data, shape):
    # Dask masks one axis or all of them (dask.array's own limit: NotImplementedError)
    k = data.draw(st.sampled_from([1, len(shape)]) if backend == "dask"
                  else st.integers(1, len(shape)))
    mask = np.asarray(data.draw(st.lists(st.booleans(), min_size=int(np.prod(shape[:k])),
                                         max_size=int(np.prod(shape[:k])))),
                      dtype=bool).reshape(shape[:k])
    x = np.asarray(np.random.default_rng(1).uniform(-2, 2, shape))
    _check_getitem(x, mask, backend)


BINARY = {
    "add": (-2, 2), "subtract": (-2, 2), "multiply": (-2, 2), "divide": (0.5, 2),
    "maximum": (-2, 2), "minimum": (-2, 2), "atan2": (-2, 2), "hypot": (-2, 2),
    "logaddexp": (-2, 2), "pow": (0.5, 2), "copysign": (-2, 2),
}


@SETTINGS
@given(data=st.data(),
       shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=0,
                                            max_side=3),
       name=st.sampled_from(sorted(BINARY)), dtype=st.sampled_from(["float32", "float64"]))
def test_broadcasting_binary_ops_match_torch(backend, data, shapes, name, dtype):
    lo, hi = BINARY[name]
    rng = np.random.default_rng(2)
    arrays = [np.asarray(rng.uniform(lo, hi, s) * np.where(rng.random(s) < 0.5, -1, 1)
                         if name == "divide" and i == 1 else rng.uniform(lo, hi, s),
                         dtype=dtype) for i, s in enumerate(shapes.input_shapes)]
    ts = [torch.from_numpy(a.copy()).requires_grad_() for a in arrays]
    xs = [af.asarray(a, requires_grad=True) for a in arrays]
    want = TORCH[name](*ts)
    got = getattr(af, name)(*xs)
    assert tuple(got.shape) == tuple(want.shape) == shapes.result_shape
    assert got.dtype.name == dtype
    rtol, atol = oracle_tolerance(dtype)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=rtol,
                               atol=atol, err_msg=name)
    w = np.asarray(rng.uniform(-1, 1, tuple(want.shape)), dtype=dtype)
    t_gs = torch.autograd.grad(want, ts, torch.from_numpy(w))
    a_gs = af.autograd.grad(got, xs, af.asarray(w))
    for k, (a, t) in enumerate(zip(a_gs, t_gs)):
        assert tuple(a.shape) == tuple(t.shape), f"{name} grad {k}: {a.shape} vs {t.shape}"
        np.testing.assert_allclose(a.numpy(), t.numpy(), rtol=rtol * 10, atol=atol * 10,
                                   err_msg=f"{name} {shapes.input_shapes} grad {k}")


@SETTINGS
@given(data=st.data(), shape=SHAPES)
def test_setitem_basic_keys_matches_torch(backend, data, shape):
    """``y = x * 1; y[key] = v``: values, and the gradients of ``x`` and ``v``."""
    key = data.draw(basic_keys(shape, standard=backend == "strict"))
    rng = np.random.default_rng(3)
    x = np.asarray(rng.uniform(-2, 2, shape))
    target = np.empty(shape)[key].shape
    vshape = target[data.draw(st.integers(0, len(target))):]  # v broadcasts to x[key]
    v = np.asarray(rng.uniform(-2, 2, vshape))
    tx, tv = (torch.from_numpy(a.copy()).requires_grad_() for a in (x, v))
    ty = tx * 1.0
    ty[_to_torch_key(key)] = tv
    ax, av = af.asarray(x, requires_grad=True), af.asarray(v, requires_grad=True)
    ay = ax * 1.0
    ay[_to_af_key(key)] = av
    np.testing.assert_array_equal(ay.detach().numpy(), ty.detach().numpy(), err_msg=repr(key))
    w = np.asarray(rng.uniform(-1, 1, shape))
    t_gs = torch.autograd.grad(ty, [tx, tv], torch.from_numpy(w))
    a_gs = af.autograd.grad(ay, [ax, av], af.asarray(w))
    for name, a, t in zip(("x", "v"), a_gs, t_gs):
        np.testing.assert_allclose(a.numpy(), t.numpy(), rtol=1e-12, atol=1e-15,
                                   err_msg=f"d/d{name} of y[{key!r}] = v")
