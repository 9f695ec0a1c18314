"""Property tests: element-wise functions and broadcasting against NumPy, on generated arrays.

Arrays come from ``hypothesis.extra.array_api`` strategies over
``array_api_compat.numpy`` (so they are NumPy arrays with the standard's
dtypes), special values (NaN, inf, -0.0, zero-size shapes) included. Each is
fed to arrayflow with ``af.asarray`` on the backend under test, and the
result's dtype, shape and values are compared with NumPy's.
"""

from __future__ import annotations

import array_api_compat.numpy as npx
import numpy as np
import pytest
from conftest import on_backend
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.array_api import make_strategies_namespace

import arrayflow as af
from arrayflow.testing import default_tolerance

xps = make_strategies_namespace(npx)

EAGER = ["numpy", "strict"]
SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])

shapes = xps.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)

UNARY_REAL = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh",
              "exp", "expm1", "floor", "isfinite", "isinf", "isnan", "log", "log1p", "log2",
              "log10", "negative", "positive", "reciprocal", "round", "sign", "signbit", "sin",
              "sinh", "sqrt", "square", "tan", "tanh", "trunc"]
UNARY_COMPLEX = ["abs", "conj", "exp", "imag", "isfinite", "isnan", "log", "negative", "real",
                 "sqrt", "square", "sin", "tanh"]
UNARY_INT = ["abs", "negative", "positive", "square", "sign", "bitwise_invert", "ceil",
             "floor", "round", "trunc"]
BINARY_REAL = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "atan2",
               "copysign", "hypot", "logaddexp", "nextafter", "pow", "floor_divide", "remainder",
               "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
BINARY_INT = ["add", "subtract", "multiply", "maximum", "minimum", "floor_divide", "remainder",
              "pow", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
              "bitwise_right_shift", "equal", "less", "greater_equal"]
BINARY_BOOL = ["logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
               "bitwise_xor", "equal", "not_equal"]


def _np_fn(name):
    return getattr(np, name)


def _assert_tensor_equals(t, expected, what):
    """``t`` (a Tensor) has ``expected``'s dtype, shape and values (tolerance per dtype)."""
    expected = np.asarray(expected)
    assert isinstance(t, af.Tensor), what
    assert t.dtype.name == expected.dtype.name, f"{what}: {t.dtype.name} != {expected.dtype}"
    assert tuple(t.shape) == expected.shape, f"{what}: {t.shape} != {expected.shape}"
    got = np.asarray(t.numpy())
    tol = default_tolerance(expected.dtype.name)
    if tol is None:
        np.testing.assert_array_equal(got, expected, err_msg=what)
    else:
        np.testing.assert_allclose(got, expected, rtol=tol[0], atol=tol[1], equal_nan=True,
                                   err_msg=what)


def _check_unary(backend, name, x):
    with on_backend(backend), np.errstate(all="ignore"):
        result = getattr(af, name)(af.asarray(x))
        expected = _np_fn(name)(x)
    _assert_tensor_equals(result, expected, f"{name}({x.dtype}{x.shape}) on {backend}")


def _check_binary(backend, name, x1, x2):
    with on_backend(backend), np.errstate(all="ignore"):
        a1 = x1 if not isinstance(x1, np.ndarray) else af.asarray(x1)
        a2 = x2 if not isinstance(x2, np.ndarray) else af.asarray(x2)
        result = getattr(af, name)(a1, a2)
        expected = _np_fn(name)(x1, x2)
    _assert_tensor_equals(result, expected, f"{name} on {backend}")


@pytest.mark.parametrize("backend", EAGER)
@pytest.mark.parametrize("name", UNARY_REAL)
@SETTINGS
@given(x=xps.arrays(dtype=xps.floating_dtypes(), shape=shapes))
def test_unary_real(backend, name, x):
    """Real floating input, NaN/inf/-0.0 included."""
    _check_unary(backend, name, x)


@pytest.mark.parametrize("backend", EAGER)
@pytest.mark.parametrize("name", UNARY_COMPLEX)
@SETTINGS
@given(x=xps.arrays(dtype=xps.complex_dtypes(), shape=shapes))
def test_unary_complex(backend, name, x):
    """Complex input."""
    _check_unary(backend, name, x)


@pytest.mark.parametrize("backend", EAGER)
@pytest.mark.parametrize("name", UNARY_INT)
@SETTINGS
@given(x=xps.arrays(dtype=xps.integer_dtypes() | xps.unsigned_integer_dtypes(), shape=shapes))
def test_unary_integer(backend, name, x):
    """Integer input (wrap-around at the dtype's limits as in NumPy)."""
    if name == "bitwise_invert":
        expected = np.bitwise_invert(x)
        with on_backend(backend):
            _assert_tensor_equals(af.bitwise_invert(af.asarray(x)), expected, name)
        return
    if name in ("ceil", "floor", "round", "trunc"):
        # The standard: integer input returns the same values and dtype.
        with on_backend(backend):
            _assert_tensor_equals(getattr(af, name)(af.asarray(x)), x, name)
        return
    _check_unary(backend, name, x)


@st.composite
def _pair(draw, dtypes, *, elements=None):
    """Two arrays of mutually broadcastable shapes, with dtypes of one kind."""
    bshapes = draw(xps.mutually_broadcastable_shapes(2, min_dims=0, max_dims=3, min_side=0,
                                                     max_side=4))
    d1 = draw(dtypes)
    d2 = draw(dtypes)
    x1 = draw(xps.arrays(d1, bshapes.input_shapes[0], elements=elements))
    x2 = draw(xps.arrays(d2, bshapes.input_shapes[1], elements=elements))
    return x1, x2, bshapes.result_shape


@pytest.mark.parametrize("backend", EAGER)
@pytest.mark.parametrize("name", BINARY_REAL)
@SETTINGS
@given(data=_pair(xps.floating_dtypes()))
def test_binary_real_broadcasting(backend, name, data):
    """Real floating operands of any two floating dtypes and broadcastable shapes."""
    x1, x2, shape = data
    _check_binary(backend, name, x1, x2)
    with on_backend(backend):
        assert af.broadcast_shapes(x1.shape, x2.shape) == shape


@pytest.mark.parametrize("backend", EAGER)
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "pow", "equal"])
@SETTINGS
@given(data=_pair(xps.complex_dtypes()))
def test_binary_complex_broadcasting(backend, name, data):
    """Complex operands."""
    x1, x2, _ = data
    _check_binary(backend, name, x1, x2)


def _int_operands(name, x1, x2):
    """Keep integer operands inside the standard's defined behaviour for ``name``."""
    if name in ("floor_divide", "remainder"):
        x2 = np.where(x2 == 0, np.ones_like(x2), x2)
    elif name == "pow":
        x2 = np.remainder(x2, np.asarray(4, dtype=x2.dtype))
    elif name in ("bitwise_left_shift", "bitwise_right_shift"):
        x2 = np.remainder(x2, np.asarray(8, dtype=x2.dtype))
    return x1, np.asarray(x2)  # 0-d results of NumPy functions are NumPy scalars


@pytest.mark.parametrize("backend", EAGER)
@pytest.mark.parametrize("name", BINARY_INT)
@pytest.mark.parametrize("kind", ["signed", "unsigned"])
@SETTINGS
@given(data=st.data())
def test_binary_integer_broadcasting(backend, name, kind, data):
    """Integer operands of one signedness (their promotion is defined by the standard)."""
    dtypes = xps.integer_dtypes() if kind == "signed" else xps.unsigned_integer_dtypes()
    x1, x2, _ = data.draw(_pair(dtypes))
    x1, x2 = _int_operands(name, x1, x2)
    _check_binary(backend, name, x1, x2)


@pytest.mark.parametrize("backend", EAGER)
@pytest.mark.parametrize("name", BINARY_BOOL)
@SETTINGS
@given(data=_pair(st.just(npx.bool)))
def test_binary_bool_broadcasting(backend, name, data):
    """Boolean operands."""
    x1, x2, _ = data
    _check_binary(backend, name, x1, x2)


@pytest.mark.parametrize("backend", EAGER)
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "maximum", "less"])
@pytest.mark.parametrize("left", [False, True], ids=["array-scalar", "scalar-array"])
@SETTINGS
@given(x=xps.arrays(xps.floating_dtypes(), shapes),
       s=st.floats(-1e3, 1e3, width=32) | st.integers(-100, 100))
def test_binary_python_scalar(backend, name, left, x, s):
    """A Python scalar operand takes the array's dtype (2024.12 rules), on either side."""
    if left:
        _check_binary(backend, name, s, x)
    else:
        _check_binary(backend, name, x, s)


@pytest.mark.parametrize("backend", EAGER)
@SETTINGS
@given(data=st.data())
def test_broadcast_to_and_arrays(backend, data):
    """``broadcast_arrays`` and ``broadcast_to`` give NumPy's shapes and values."""
    bs = data.draw(xps.mutually_broadcastable_shapes(3, min_dims=0, max_dims=3, max_side=3))
    arrays = [data.draw(xps.arrays(npx.float64, s)) for s in bs.input_shapes]
    with on_backend(backend):
        out = af.broadcast_arrays(*[af.asarray(a) for a in arrays])
        assert af.broadcast_shapes(*bs.input_shapes) == bs.result_shape
        for t, e in zip(out, np.broadcast_arrays(*arrays)):
            _assert_tensor_equals(t, e, "broadcast_arrays")
        t = af.broadcast_to(af.asarray(arrays[0]), bs.result_shape)
        _assert_tensor_equals(t, np.broadcast_to(arrays[0], bs.result_shape), "broadcast_to")


# --- Dask: a few examples of the same properties (lazy graphs, computed at the end) ----------

@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NaN/inf computed in workers
@pytest.mark.parametrize("name", ["exp", "sqrt", "floor", "isnan", "tanh", "sign"])
@FEW
@given(x=xps.arrays(dtype=xps.floating_dtypes(), shape=shapes))
def test_unary_real_dask(name, x):
    """Unary functions on Dask."""
    _check_unary("dask", name, x)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NaN/inf computed in workers
@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "atan2", "less", "remainder"])
@FEW
@given(data=_pair(xps.floating_dtypes()))
def test_binary_real_broadcasting_dask(name, data):
    """Binary functions with broadcasting on Dask."""
    x1, x2, _ = data
    _check_binary("dask", name, x1, x2)
