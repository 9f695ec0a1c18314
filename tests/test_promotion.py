"""The array API standard's type promotion rules (2025.12, "Type Promotion Rules").

The tables below are copied from the standard, not computed: every pair of
dtypes of one kind, checked through ``af.result_type`` and through real
arithmetic on Tensors (``af.add``, ``af.multiply``, operators), plus the rules
for Python scalar operands. Run on NumPy and on array_api_strict (which
rejects anything the standard leaves undefined).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import on_backend

import arrayflow as af
from arrayflow.testing.promotion import DTYPE_CODES, PROMOTION_TABLE

BACKENDS = ["numpy", "strict"]

_CODES = DTYPE_CODES
_TABLE = PROMOTION_TABLE

_KIND = {"b": "bool", "i": "signed", "u": "unsigned", "f": "floating", "c": "floating"}


def _family(a, b):
    ka, kb = _KIND[a[0]], _KIND[b[0]]
    if ka == kb:
        return ka
    return "mixed-int" if {ka, kb} == {"signed", "unsigned"} else "floating"


PAIRS = [pytest.param(x, y, r, id=f"{_family(x, y)}-{x}-{y}")
         for (a, b), r in _TABLE.items()
         for x, y in dict.fromkeys([(a, b), (b, a)])]


def _dt(code):
    return getattr(af, _CODES[code])


def _np_dt(code):
    return np.dtype(_CODES[code])


def _tensor(code, values=(1, 0, 1)):
    return af.asarray(np.asarray(values, dtype=_np_dt(code)))


def test_table_is_complete():
    """Every same-kind pair the standard defines is in the table (and nothing else)."""
    groups = [["b"], ["i1", "i2", "i4", "i8"], ["u1", "u2", "u4", "u8"],
              ["f4", "f8", "c8", "c16"]]
    want = {frozenset(p) for g in groups for p in itertools.combinations_with_replacement(g, 2)}
    want |= {frozenset((u, i)) for u in ("u1", "u2", "u4") for i in ("i1", "i2", "i4", "i8")}
    assert {frozenset(k) for k in _TABLE} == want


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("a", "b", "result"), PAIRS)
def test_result_type_of_dtypes(backend, a, b, result):
    """``af.result_type(dtype, dtype)`` follows the table."""
    with on_backend(backend):
        out = af.result_type(_dt(a), _dt(b))
    assert isinstance(out, af.DType)
    assert out is _dt(result), f"{a} with {b}: {out}, standard says {_CODES[result]}"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("a", "b", "result"), PAIRS)
def test_result_type_of_tensors(backend, a, b, result):
    """``af.result_type`` of Tensors (and of a Tensor with a dtype) follows the table."""
    with on_backend(backend):
        assert af.result_type(_tensor(a), _tensor(b)) is _dt(result)
        assert af.result_type(_tensor(a), _dt(b)) is _dt(result)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("a", "b", "result"), PAIRS)
def test_arithmetic_promotes(backend, a, b, result):
    """Functions and operators on two Tensors give the table's dtype and NumPy's values."""
    x1 = np.asarray([1, 0, 1, 1], dtype=_np_dt(a))
    x2 = np.asarray([1, 1, 0, 1], dtype=_np_dt(b))
    rd = _np_dt(result)
    if a == "b":
        ops = {"logical_and": np.logical_and, "bitwise_xor": np.bitwise_xor,
               "__and__": np.bitwise_and, "__or__": np.bitwise_or}
    else:
        ops = {"add": np.add, "multiply": np.multiply, "__add__": np.add, "__mul__": np.multiply,
               "__sub__": np.subtract}
    with on_backend(backend):
        t1, t2 = af.asarray(x1), af.asarray(x2)
        for name, ref in ops.items():
            out = getattr(t1, name)(t2) if name.startswith("__") else getattr(af, name)(t1, t2)
            assert out.dtype is _dt(result), f"{name}({a}, {b}) -> {out.dtype}"
            np.testing.assert_array_equal(out.numpy(), ref(x1.astype(rd), x2.astype(rd)),
                                          strict=True)


@pytest.mark.parametrize("backend", BACKENDS)
def test_result_type_many_operands(backend):
    """Promotion of several operands is associative (table applied pairwise)."""
    with on_backend(backend):
        assert af.result_type(af.int8, af.uint8, af.int16) is af.int16
        assert af.result_type(af.uint8, af.uint16, af.int8) is af.int32
        assert af.result_type(af.float32, af.complex64, af.float64) is af.complex128
        assert af.result_type(af.bool) is af.bool


@pytest.mark.parametrize("backend", BACKENDS)
def test_zero_dim_tensors_promote_like_arrays(backend):
    """0-d Tensors take part by dtype only: no value-based casting (unlike NumPy 1.x)."""
    with on_backend(backend):
        big = af.asarray(1, dtype=af.int64)
        small = af.asarray([1, 2], dtype=af.int8)
        assert (small + big).dtype is af.int64
        f64 = af.asarray(1.0, dtype=af.float64)
        assert (af.asarray([1.0], dtype=af.float32) * f64).dtype is af.float64


# --- Python scalars ----------------------------------------------------------------------------

# (array dtype, scalar, result dtype): the scalar takes the array's kind (2024.12 added
# complex scalars with real floating arrays).
SCALARS = [
    ("float32", 1.0, "float32"), ("float32", 2, "float32"), ("float64", 0.5, "float64"),
    ("int8", 1, "int8"), ("int16", -3, "int16"), ("uint8", 3, "uint8"), ("int64", 7, "int64"),
    ("uint64", 2, "uint64"),
    ("complex64", 1.0, "complex64"), ("complex64", 2, "complex64"),
    ("complex128", 1j, "complex128"), ("complex64", 1 + 2j, "complex64"),
    ("float32", 1j, "complex64"), ("float64", 2j, "complex128"),
]


def _scalar_id(p):
    return f"{p[0]}-{type(p[1]).__name__}"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("dtype", "scalar", "result"), SCALARS,
                         ids=[_scalar_id(p) for p in SCALARS])
def test_python_scalar_operand(backend, dtype, scalar, result):
    """``array <op> scalar`` and ``scalar <op> array`` keep the array's precision."""
    x = np.asarray([1, 2, 3], dtype=dtype)
    rd = np.dtype(result)
    with on_backend(backend):
        t = af.asarray(x)
        cases = {
            "t + s": (t + scalar, np.add(x.astype(rd), scalar)),
            "s + t": (scalar + t, np.add(scalar, x.astype(rd))),
            "t * s": (t * scalar, np.multiply(x.astype(rd), scalar)),
            "add(t, s)": (af.add(t, scalar), np.add(x.astype(rd), scalar)),
            "multiply(s, t)": (af.multiply(scalar, t), np.multiply(scalar, x.astype(rd))),
            "s - t": (scalar - t, np.subtract(scalar, x.astype(rd))),
        }
        for what, (out, expected) in cases.items():
            assert out.dtype.name == result, f"{what} with {dtype}: {out.dtype}"
            np.testing.assert_array_equal(out.numpy(), expected.astype(rd), err_msg=what)


@pytest.mark.parametrize("backend", BACKENDS)
def test_python_scalar_float32_stays_float32(backend):
    """The motivating example: ``asarray([1], dtype=float32) + 1.0`` is float32."""
    with on_backend(backend):
        t = af.asarray([1], dtype=af.float32) + 1.0
        assert t.dtype is af.float32
        assert t.numpy().tolist() == [2.0]
        u = af.asarray([1], dtype=af.float32)
        u += 1.0
        assert u.dtype is af.float32


@pytest.mark.parametrize("backend", BACKENDS)
def test_python_bool_with_bool_array(backend):
    """A Python bool combines with a bool array into bool."""
    with on_backend(backend):
        t = af.asarray([True, False])
        assert af.logical_and(t, True).dtype is af.bool
        assert (t & False).dtype is af.bool
        assert af.logical_or(t, False).numpy().tolist() == [True, False]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("dtype", "scalar", "result"), [
    ("float32", 1.0, "float32"), ("int16", 1, "int16"), ("float32", 1j, "complex64"),
    ("uint8", 1, "uint8"), ("bool", True, "bool"),
])
def test_result_type_with_python_scalars(backend, dtype, scalar, result):
    """``result_type`` accepts Python scalars (2024.12) with the same rules."""
    with on_backend(backend):
        assert af.result_type(getattr(af, dtype), scalar) is getattr(af, result)


@pytest.mark.parametrize("backend", [*BACKENDS, "dask"])
def test_uint64_with_signed_integer_raises(backend):
    """uint64 with a signed integer has no promotion (the standard leaves it undefined,
    PyTorch raises): a TypeError on every backend, never NumPy's silent float64. (Mixed
    kinds, which the standard also leaves undefined, follow PyTorch: see
    tests/test_promotion_torch.py.)"""
    with on_backend(backend):
        with pytest.raises(TypeError, match="uint64"):
            af.result_type(af.uint64, af.int64)
        with pytest.raises(TypeError, match="uint64"):
            af.add(_tensor("u8"), _tensor("i8"))
