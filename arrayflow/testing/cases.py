"""The op case table: every public function of arrayflow, with inputs and a NumPy reference.

Each :class:`OpCase` says how to make the inputs of one call (a function of a
seeded ``numpy.random.Generator`` returning NumPy-level ``args`` and
``kwargs``), how NumPy computes the expected result, with which tolerances per
dtype it is compared, whether the op is differentiable (gradient checks use the
float64 cases) and whether it works on lazy backends (Dask).

Inputs are described once, with NumPy: :func:`to_arrayflow` turns every NumPy
array among them into a Tensor of the current backend (``af.asarray``), every
:class:`DTypeArg` into an arrayflow dtype, and unwraps :class:`Raw` values,
which stay NumPy objects (to test conversions from foreign arrays).
:func:`to_numpy` makes the reference's arguments from the same description.

Where arrayflow documents a choice (float32 as the default floating dtype, as
in PyTorch), the reference spells it out; elsewhere the reference is what the
array API standard (2025.12) requires, which NumPy 2 implements.

Importing this module imports no array library: ``np`` below is a proxy that
imports NumPy on first use.

Typical use::

    from arrayflow.testing import CASES, evaluate, assert_matches

    for case in CASES:
        with af.use_backend(name)  # any installed backend name:
            result, expected = evaluate(case)
            assert_matches(case, result, expected)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import arrayflow as af
from arrayflow.ops import OPS

from ..tensor import Tensor

__all__ = [
    "CASES", "NON_DIFFERENTIABLE", "DTypeArg", "OpCase", "Raw", "assert_matches", "cases_for",
    "default_tolerance", "evaluate", "missing_ops", "to_arrayflow", "to_numpy",
]


class _LazyNumpy:
    """``numpy``, imported on first attribute access (``import arrayflow.testing`` stays light)."""

    def __getattr__(self, name):
        import numpy

        return getattr(numpy, name)


np = _LazyNumpy()


# --- input markers --------------------------------------------------------------------------

@dataclass(frozen=True)
class DTypeArg:
    """A dtype argument by name: ``af.<name>`` for arrayflow, ``np.dtype(name)`` for NumPy."""

    name: str


@dataclass(frozen=True, eq=False)
class Raw:
    """A value passed unchanged to both arrayflow and NumPy (a foreign NumPy array, say)."""

    value: Any


def D(name: str) -> DTypeArg:  # noqa: N802 - short marker used all over the table
    """Shorthand for :class:`DTypeArg`."""
    return DTypeArg(name)


# --- the case -------------------------------------------------------------------------------

NON_DIFFERENTIABLE = frozenset({
    # creation: new data, no inputs to differentiate
    "arange", "tensor", "empty", "zeros", "ones", "full", "eye", "linspace",
    "empty_like", "zeros_like", "ones_like", "full_like", "from_dlpack",
    "randn", "rand", "randint", "randperm",
    # dtype queries
    "can_cast", "result_type", "finfo", "iinfo", "isdtype",
    # boolean or integer results
    "bitwise_invert", "isfinite", "isinf", "isnan", "logical_not", "signbit",
    "bitwise_and", "bitwise_left_shift", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
    "equal", "greater", "greater_equal", "less", "less_equal", "logical_and", "logical_or",
    "logical_xor", "not_equal", "all", "any",
    "argmax", "argmin", "argsort", "count_nonzero", "nonzero", "searchsorted", "isin",
    "isclose", "allclose", "unique_all", "unique_counts", "unique_inverse", "unique_values",
    "linalg.matrix_rank", "broadcast_shapes", "fft.fftfreq", "fft.rfftfreq",
})
"""Ops whose outputs never carry gradients (the table's own judgement, not the registry's).

Everything else is differentiable, piecewise-constant functions (``floor``,
``sign``...) included: PyTorch gives them zero gradients.
"""

Tolerance = tuple[float, float]


@dataclass(frozen=True, eq=False)
class OpCase:
    """One call of one op, with its NumPy reference.

    Attributes
    ----------
    op : str
        Key in :data:`arrayflow.ops.OPS` (``"exp"``, ``"linalg.det"``).
    make : callable
        ``make(rng) -> (args, kwargs)``: NumPy-level inputs (NumPy arrays,
        Python values, :class:`DTypeArg`, :class:`Raw`, nested in tuples/lists).
    reference : callable or None
        ``reference(*args, **kwargs)`` on NumPy values; None means NumPy's
        function of the same name (``numpy.linalg`` for ``linalg.*``).
    label : str
        Distinguishes the cases of one op (``"float32"``, ``"broadcast"``).
    differentiable : bool
        Whether the op's outputs carry gradients; defaults from
        :data:`NON_DIFFERENTIABLE`.
    lazy : bool
        Whether the call works on lazy backends (False for data-dependent
        shapes and for functions Dask lacks); ``lazy_note`` says why not.
    lazy_raises : tuple or None
        ``(exception type, regex)`` that the call raises on a lazy backend, for
        a case with ``lazy=False`` whose call fails there instead of computing;
        None means the call must succeed (and match the reference) everywhere.
    tol : dict
        ``{dtype name: (rtol, atol)}`` overriding :func:`default_tolerance`.
    values : bool
        False when only shape and dtype are defined (``empty``, random).
    check : callable or None
        ``check(result, expected)`` on NumPy values: an extra assertion
        (random draws lie in range, ...).
    canon : callable or None
        Applied to the result and the reference (as NumPy values) before
        comparing: fixes the freedom of decompositions (signs of eigenvectors).
    gradcheck : bool
        False where finite differences of the outputs are not meaningful
        (gauge-dependent decompositions, complex outputs of real inputs).
    """

    op: str
    make: Callable[[Any], tuple[tuple, dict]]
    reference: Callable[..., Any] | None = None
    label: str = ""
    differentiable: bool | None = None
    lazy: bool = True
    lazy_note: str = ""
    lazy_raises: tuple[type[BaseException], str] | None = None
    tol: dict[str, Tolerance] = field(default_factory=dict)
    values: bool = True
    check: Callable[[Any, Any], None] | None = None
    canon: Callable[[Any], Any] | None = None
    gradcheck: bool = True

    def __post_init__(self):
        if self.differentiable is None:
            object.__setattr__(self, "differentiable", self.op not in NON_DIFFERENTIABLE)

    @property
    def id(self) -> str:
        """Test id: ``"op-label"``."""
        return f"{self.op}-{self.label}" if self.label else self.op

    def __repr__(self) -> str:
        return f"<OpCase {self.id}>"

    def sample(self, seed: int = 0) -> tuple[tuple, dict]:
        """The NumPy-level ``(args, kwargs)`` for ``seed`` (deterministic)."""
        return self.make(np.random.default_rng(seed))

    def reference_fn(self) -> Callable[..., Any]:
        """The reference implementation (NumPy's same-named function by default)."""
        if self.reference is not None:
            return self.reference
        obj: Any = np
        for part in self.op.split("."):
            obj = getattr(obj, part)
        return obj

    def tolerance(self, dtype_name: str) -> Tolerance | None:
        """``(rtol, atol)`` for results of ``dtype_name``; None means exact."""
        return self.tol.get(dtype_name, default_tolerance(dtype_name))


def default_tolerance(dtype_name: str) -> Tolerance | None:
    """Default ``(rtol, atol)`` per result dtype; None (exact) for bool and integers."""
    if dtype_name in ("float32", "complex64"):
        return (2e-5, 1e-6)
    if dtype_name in ("float64", "complex128"):
        return (1e-11, 1e-13)
    return None


# --- conversion and evaluation ----------------------------------------------------------------

def to_arrayflow(obj: Any) -> Any:
    """Replace NumPy arrays by Tensors of the current backend, dtype markers by arrayflow dtypes."""

    ndarray = np.ndarray
    if isinstance(obj, Raw):
        return obj.value
    if isinstance(obj, DTypeArg):
        return getattr(af, obj.name)
    if isinstance(obj, ndarray):
        return af.asarray(obj)
    if isinstance(obj, dict):
        return {k: to_arrayflow(v) for k, v in obj.items()}
    if isinstance(obj, (tuple, list)):
        return type(obj)(to_arrayflow(v) for v in obj)
    return obj


def tensors_in(result: Any) -> list:
    """The Tensors in an op's result (a Tensor, or nested tuples/lists of them), in order."""

    if isinstance(result, Tensor):
        return [result]
    if isinstance(result, (tuple, list)):
        return [t for r in result for t in tensors_in(r)]
    return []


def to_numpy(obj: Any) -> Any:
    """The reference's view of the same inputs: copies of arrays, NumPy dtypes."""
    ndarray = np.ndarray
    if isinstance(obj, Raw):
        return obj.value
    if isinstance(obj, DTypeArg):
        return np.dtype(obj.name)
    if isinstance(obj, ndarray):
        return obj.copy()
    if isinstance(obj, dict):
        return {k: to_numpy(v) for k, v in obj.items()}
    if isinstance(obj, (tuple, list)):
        return type(obj)(to_numpy(v) for v in obj)
    return obj


def evaluate(case: OpCase, seed: int = 0):
    """Run ``case`` on the current backend; returns ``(result, expected)``.

    ``result`` is what arrayflow returned (Tensors, tuples of Tensors or raw
    values); ``expected`` is the reference's NumPy output.
    """

    args, kwargs = case.sample(seed)
    a_args, a_kwargs = to_arrayflow((args, kwargs))
    result = OPS[case.op](*a_args, **a_kwargs)
    n_args, n_kwargs = to_numpy((args, kwargs))
    with np.errstate(all="ignore"):
        expected = case.reference_fn()(*n_args, **n_kwargs)
    return result, expected


def _host(case, result, expected, where):
    """Check types, dtypes and shapes; return both sides as NumPy values."""

    if isinstance(expected, (tuple, list)) and not isinstance(result, af.Tensor):
        assert isinstance(result, (tuple, list)), (
            f"{where}: expected a sequence of {len(expected)}, got {type(result).__name__}")
        assert len(result) == len(expected), (
            f"{where}: expected {len(expected)} items, got {len(result)}")
        fields = getattr(expected, "_fields", None)
        if fields is not None:
            assert getattr(result, "_fields", None) == fields, (
                f"{where}: expected a named tuple with fields {fields}, got "
                f"{getattr(result, '_fields', type(result).__name__)}")
        pairs = [_host(case, r, e, f"{where}[{i}]")
                 for i, (r, e) in enumerate(zip(result, expected))]
        out_r = tuple(p[0] for p in pairs)
        out_e = tuple(p[1] for p in pairs)
        if fields is not None:
            return type(expected)(*out_r), type(expected)(*out_e)
        return out_r, out_e
    if isinstance(result, af.Tensor):
        exp = np.asarray(expected)
        assert result.dtype.name == exp.dtype.name, (
            f"{where}: dtype {result.dtype.name}, expected {exp.dtype.name}")
        got = result.numpy()
        assert tuple(got.shape) == exp.shape, f"{where}: shape {got.shape}, expected {exp.shape}"
        shape = tuple(result.shape)
        assert len(shape) == exp.ndim and all(
            s is None or s == e for s, e in zip(shape, exp.shape)), (
            f"{where}: Tensor.shape {shape}, expected {exp.shape}")
        return got, exp
    # raw values (dtype queries, broadcast_shapes)
    if isinstance(expected, (np.dtype, type)):
        assert isinstance(result, af.DType), f"{where}: expected a DType, got {result!r}"
        assert result.name == np.dtype(expected).name, (
            f"{where}: {result.name}, expected {np.dtype(expected).name}")
        return result.name, np.dtype(expected).name
    assert not isinstance(result, af.Tensor) and type(result) is not np.ndarray, (
        f"{where}: expected a Python value, got {type(result).__name__}")
    return result, expected


def _close(case, got, exp, where):
    if isinstance(exp, tuple):
        for i, (g, e) in enumerate(zip(got, exp)):
            _close(case, g, e, f"{where}[{i}]")
        return
    if not isinstance(exp, np.ndarray):
        assert got == exp and type(got) is type(exp), f"{where}: {got!r}, expected {exp!r}"
        return
    tol = case.tolerance(exp.dtype.name)
    if tol is None:
        np.testing.assert_array_equal(got, exp, err_msg=where, strict=True)
    else:
        np.testing.assert_allclose(got, exp, rtol=tol[0], atol=tol[1], equal_nan=True,
                                   err_msg=where, strict=True)


def assert_matches(case: OpCase, result: Any, expected: Any) -> None:
    """Assert that ``result`` (arrayflow) equals ``expected`` (NumPy) for ``case``.

    Compares structure (named tuple fields), dtype names, shapes, and, unless
    ``case.values`` is False, values within the case's tolerances.

    Raises
    ------
    AssertionError
        With the op, the output position and the mismatch.
    """
    got, exp = _host(case, result, expected, case.id)
    if case.canon is not None:
        got, exp = case.canon(got), case.canon(exp)
    if case.values:
        _close(case, got, exp, case.id)
    if case.check is not None:
        case.check(got, exp)


# --- input helpers --------------------------------------------------------------------------

FLOATS = ("float32", "float64")


def _arr(rng, shape, dtype="float64", low=-2.0, high=2.0):
    """Random array of ``shape`` and ``dtype`` with values in ``[low, high)``."""
    kind = np.dtype(dtype).kind
    if kind == "b":
        return rng.random(shape) < 0.5
    if kind in "iu":
        return rng.integers(int(low), int(high), size=shape).astype(dtype)
    if kind == "c":
        re = rng.uniform(low, high, shape)
        im = rng.uniform(low, high, shape)
        return (re + 1j * im).astype(dtype)
    return rng.uniform(low, high, shape).astype(dtype)


def _away(shape, dtype, low=0.5, high=2.0):
    """Spec: magnitudes in ``[low, high)`` with random signs (safe divisors)."""
    def make(rng):
        mag = _arr(rng, shape, dtype, low, high)
        sign = np.where(rng.random(shape) < 0.5, -1, 1).astype(dtype)
        return mag * sign
    return make


def _fixed(values, dtype):
    """Spec: a fixed array."""
    return lambda rng: np.asarray(values, dtype=dtype)


def _inputs(*specs, extra=(), kwargs=None):
    """``make`` from array specs (tuples for :func:`_arr`, or ``rng -> array`` callables)."""
    def make(rng):
        arrays = tuple(s(rng) if callable(s) else _arr(rng, *s) for s in specs)
        return arrays + tuple(extra), dict(kwargs or {})
    return make


def _near(dtype, seed_shift=0):
    """Spec: (3, 4) values in [1, 2) that differ between the two specs (shift 0 and 1) by
    about 1e-6 to 1e-3 relative: some close, some not, at the default tolerances."""
    def make(rng):
        base = np.linspace(1.0, 2.0, 12, endpoint=False).reshape(3, 4)
        if seed_shift:
            base = base * (1 + np.logspace(-7, -2, 12).reshape(3, 4))
        return base.astype(dtype)
    return make


def _const(*args, **kwargs):
    """``make`` with fixed inputs (creation functions)."""
    return lambda rng: (args, kwargs)


def _spd(n, batch=()):
    """Spec: symmetric positive-definite matrices."""
    def make(rng):
        a = rng.standard_normal(batch + (n, n))
        return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
    return make


def _sym(n, batch=()):
    """Spec: symmetric matrices."""
    def make(rng):
        a = rng.standard_normal(batch + (n, n))
        return (a + np.swapaxes(a, -1, -2)) / 2
    return make


def _wellcond(n, batch=(), dtype="float64"):
    """Spec: well-conditioned square matrices (diagonally shifted)."""
    def make(rng):
        return (rng.standard_normal(batch + (n, n)) + n * np.eye(n)).astype(dtype)
    return make


def _lowrank(m, n, r, batch=()):
    """Spec: ``m x n`` matrices of rank ``r``."""
    def make(rng):
        return rng.standard_normal(batch + (m, r)) @ rng.standard_normal(batch + (r, n))
    return make


# --- canonical forms of decompositions ------------------------------------------------------

def _sign_of_largest(v, axis):
    """Phase of each vector's largest-magnitude component (along ``axis``)."""
    idx = np.argmax(np.abs(v), axis=axis, keepdims=True)
    big = np.take_along_axis(v, idx, axis=axis)
    return big / np.abs(big)


def _canon_eigh(res):
    w, v = res
    return type(res)(w, v / _sign_of_largest(v, -2))


def _canon_eig(res):
    w, v = res
    order = np.argsort(w.real + 1e-3 * w.imag, axis=-1)
    w = np.take_along_axis(w, order, axis=-1)
    v = np.take_along_axis(v, order[..., None, :], axis=-1)
    v = v / np.linalg.norm(v, axis=-2, keepdims=True)
    return type(res)(w, v / _sign_of_largest(v, -2))


def _sorted_eigvals(w):
    return np.sort_complex(w.reshape(-1)).reshape(w.shape)


def _canon_qr(res):
    q, r = res
    d = np.sign(np.diagonal(r, axis1=-2, axis2=-1)).copy()
    d[d == 0] = 1
    return type(res)(q * d[..., None, :], r * d[..., :, None])


def _canon_svd(res):
    u, s, vh = res
    k = s.shape[-1]
    ph = _sign_of_largest(u[..., :, :k], -2)
    u = u.copy()
    u[..., :, :k] = u[..., :, :k] / ph
    vh = vh.copy()
    vh[..., :k, :] = vh[..., :k, :] * np.swapaxes(ph, -1, -2)
    return type(res)(u, s, vh)


def _eig_ref(x):
    res = np.linalg.eig(x)
    c = np.result_type(x.dtype, np.complex64)
    return type(res)(res.eigenvalues.astype(c), res.eigenvectors.astype(c))


def _eigvals_ref(x):
    return np.linalg.eigvals(x).astype(np.result_type(x.dtype, np.complex64))


# --- random and uninitialized results -------------------------------------------------------

def _check_uniform(got, exp):
    assert np.all((got >= 0) & (got < 1)), "rand: values outside [0, 1)"
    assert np.unique(got).size > 1, "rand: all values equal"


def _check_normal(got, exp):
    assert np.all(np.isfinite(got)), "randn: non-finite values"
    assert np.unique(got).size > 1, "randn: all values equal"


def _check_randint(low, high):
    def check(got, exp):
        assert np.all((got >= low) & (got < high)), f"randint: values outside [{low}, {high})"
    return check


def _check_perm(got, exp):
    np.testing.assert_array_equal(np.sort(got), np.arange(got.size), err_msg="randperm")


def _check_finfo(got, exp):
    for name in ("bits", "eps", "max", "min", "smallest_normal"):
        g, e = getattr(got, name), getattr(exp, name)
        assert g == e, f"finfo.{name}: {g!r}, expected {e!r}"
    assert got.dtype.name == exp.dtype.name, f"finfo.dtype: {got.dtype}, expected {exp.dtype}"


def _check_iinfo(got, exp):
    for name in ("bits", "max", "min"):
        g, e = getattr(got, name), getattr(exp, name)
        assert g == e, f"iinfo.{name}: {g!r}, expected {e!r}"
    assert got.dtype.name == exp.dtype.name, f"iinfo.dtype: {got.dtype}, expected {exp.dtype}"


# --- the table ------------------------------------------------------------------------------

_NOT_LAZY_SHAPE = "data-dependent output shape"

LIN = {"float32": (2e-4, 2e-5), "float64": (1e-9, 1e-10),
       "complex64": (2e-4, 2e-5), "complex128": (1e-9, 1e-10)}
"""Tolerances for linear algebra (factorizations differ between LAPACK and Dask)."""


def _creation_cases():
    f32, i64 = "float32", "int64"
    c = [
        OpCase("arange", _const(5), lambda n: np.arange(n, dtype=i64), "int"),
        OpCase("arange", _const(0.0, 1.0, 0.25),
               lambda a, b, s: np.arange(a, b, s, dtype=f32), "float-default"),
        OpCase("arange", _const(1, 8, 3, dtype=D("int32")), label="dtype"),
        OpCase("asarray", _const([[1, 2], [3, 4]]),
               lambda o: np.asarray(o, dtype=i64), "int-list"),
        OpCase("asarray", _const([1.5, -2.5]), lambda o: np.asarray(o, dtype=f32),
               "float-list-default"),
        OpCase("asarray", _const([True, False]), label="bool-list"),
        OpCase("asarray", _inputs(((2, 3), "float64")), label="float64-tensor"),
        OpCase("asarray", _const(2.5), lambda o: np.asarray(o, dtype=f32), "float-scalar"),
        OpCase("asarray", _const(1 + 2j), lambda o: np.asarray(o, dtype="complex64"),
               "complex-scalar"),
        OpCase("asarray", _const([1, 2], dtype=D("float64")), label="dtype"),
        OpCase("asarray", lambda rng: ((Raw(_arr(rng, (2, 3), "float64")),), {}),
               label="numpy-array"),
        OpCase("asarray", lambda rng: ((Raw(_arr(rng, (3,), "int16")),), {"dtype": D("int32")}),
               label="numpy-array-dtype"),
        OpCase("asarray", _inputs(((2, 3), "int8")), label="tensor"),
        OpCase("tensor", lambda rng: ((Raw(_arr(rng, (2, 2), "float64")),), {}),
               lambda o: np.array(o, copy=True), "numpy-array"),
        OpCase("tensor", _const([[1.0, 2.0]]), lambda o: np.asarray(o, dtype=f32),
               "float-list-default"),
        OpCase("empty", _const((2, 3)), lambda s: np.empty(s, dtype=f32), "default",
               values=False),
        OpCase("empty", _const(4, dtype=D("int16")), label="dtype", values=False),
        OpCase("zeros", _const((2, 3)), lambda s: np.zeros(s, dtype=f32), "default"),
        OpCase("zeros", _const(4, dtype=D("int32")), label="dtype"),
        OpCase("ones", _const((3, 1)), lambda s: np.ones(s, dtype=f32), "default"),
        OpCase("ones", _const((2,), dtype=D("complex128")), label="dtype"),
        OpCase("full", _const((2, 2), 3.5), lambda s, v: np.full(s, v, dtype=f32), "float"),
        OpCase("full", _const((3,), 7), lambda s, v: np.full(s, v, dtype=i64), "int"),
        OpCase("full", _const((2,), True), lambda s, v: np.full(s, v, dtype=bool), "bool"),
        OpCase("full", _const((2, 1), 2, dtype=D("float64")), label="dtype"),
        OpCase("eye", _const(3), lambda n: np.eye(n, dtype=f32), "default"),
        OpCase("eye", _const(3, 4, k=1, dtype=D("float64")), label="rect-k"),
        OpCase("eye", _const(4, 2, k=-1, dtype=D("int32")), label="k-negative"),
        OpCase("linspace", _const(0.0, 1.0, 5),
               lambda a, b, n: np.linspace(a, b, n, dtype=f32), "default"),
        OpCase("linspace", _const(-1, 2, num=4, endpoint=False, dtype=D("float64")),
               label="no-endpoint"),
        OpCase("linspace", _const(0j, 1 + 1j, 3),
               lambda a, b, n: np.linspace(a, b, n, dtype="complex64"), "complex"),
        OpCase("empty_like", _inputs(((2, 3), "float64")), values=False, label="float64"),
        OpCase("empty_like", _inputs(((2,), "int8"), kwargs={"dtype": D("float32")}),
               values=False, label="dtype"),
        OpCase("zeros_like", _inputs(((2, 3), "float32")), label="float32"),
        OpCase("zeros_like", _inputs(((3,), "int16"), kwargs={"dtype": D("float64")}),
               label="dtype"),
        OpCase("ones_like", _inputs(((2, 3), "int32")), label="int32"),
        OpCase("ones_like", _inputs(((2,), "float32"), kwargs={"dtype": D("complex64")}),
               label="dtype"),
        OpCase("full_like", _inputs(((2, 3), "float64"), extra=(2.5,)), label="float64"),
        OpCase("full_like", _inputs(((2, 2), "float32"), extra=(4,),
                                    kwargs={"dtype": D("int16")}), label="dtype"),
        OpCase("from_dlpack", lambda rng: ((Raw(_arr(rng, (2, 3), "float32")),), {}),
               label="numpy-producer"),
        OpCase("from_dlpack", _inputs(((3, 2), "int32")), label="tensor", lazy=False,
               lazy_note="Dask arrays do not implement __dlpack__",
               lazy_raises=(AttributeError, "__dlpack__")),
        OpCase("randn", _const(2, 3), lambda *s: np.empty(s, dtype=f32), "varargs",
               values=False, check=_check_normal),
        OpCase("randn", _const((4,), dtype=D("float64")),
               lambda s, dtype: np.empty(s, dtype=dtype), "tuple-dtype", values=False,
               check=_check_normal),
        OpCase("rand", _const(3, 4), lambda *s: np.empty(s, dtype=f32), "varargs",
               values=False, check=_check_uniform),
        OpCase("rand", _const([5], dtype=D("float64")),
               lambda s, dtype: np.empty(s, dtype=dtype), "list-dtype", values=False,
               check=_check_uniform),
        OpCase("randint", _const(0, 5, (3, 4)), lambda lo, hi, s: np.empty(s, dtype=i64),
               "default", values=False, check=_check_randint(0, 5)),
        OpCase("randint", _const(-3, 3, (10,), dtype=D("int32")),
               lambda lo, hi, s, dtype: np.empty(s, dtype=dtype), "dtype", values=False,
               check=_check_randint(-3, 3)),
        OpCase("randperm", _const(6), lambda n: np.empty(n, dtype=i64), "default",
               values=False, check=_check_perm),
        OpCase("meshgrid", _inputs(((3,), "float64"), ((4,), "float64")), label="xy"),
        OpCase("meshgrid", _inputs(((2,), "float32"), ((3,), "float32"), ((4,), "float32"),
                                   kwargs={"indexing": "ij"}), label="ij-3"),
        OpCase("tril", _inputs(((4, 4), "float64")), label="square"),
        OpCase("tril", _inputs(((2, 3, 4), "float32"), kwargs={"k": 1}), label="batched-k"),
        OpCase("triu", _inputs(((4, 4), "float64")), label="square"),
        OpCase("triu", _inputs(((2, 4, 3), "int32"), kwargs={"k": -1}), label="batched-k"),
    ]
    return c


def _dtype_cases():
    return [
        OpCase("astype", _inputs(((2, 3), "float64", -5, 5), extra=(D("int32"),)),
               label="float-to-int"),
        OpCase("astype", _inputs(((2, 3), "int16", -50, 50), extra=(D("float32"),)),
               label="int-to-float"),
        OpCase("astype", _inputs(((3,), "float32"), extra=(D("float32"),),
                                 kwargs={"copy": False}), label="same-no-copy"),
        OpCase("astype", _inputs(((3,), "float64"), extra=(D("complex128"),)),
               label="float-to-complex"),
        OpCase("astype", _inputs(((2, 2), "float64"), extra=(D("float64"),)),
               label="float64-copy"),
        OpCase("can_cast", _const(D("int8"), D("int16")), label="widen"),
        OpCase("can_cast", _const(D("float64"), D("float32")), label="narrow"),
        OpCase("can_cast", _const(D("uint8"), D("int8")), label="uint-to-int"),
        OpCase("can_cast", _inputs(((2,), "float32"), extra=(D("complex64"),)), label="tensor"),
        OpCase("result_type", _const(D("int8"), D("int16")), label="ints"),
        OpCase("result_type", _const(D("uint8"), D("int8")), label="mixed-sign"),
        OpCase("result_type", _inputs(((2,), "float32"), extra=(D("float64"),)),
               label="tensor-dtype"),
        OpCase("result_type", _inputs(((2,), "float32"), extra=(1.0,)), label="tensor-scalar"),
        OpCase("result_type", _const(D("float32"), D("complex64"), D("float64")),
               label="three"),
        OpCase("finfo", _const(D("float32")), values=False, check=_check_finfo, label="float32"),
        OpCase("finfo", _const(D("float64")), values=False, check=_check_finfo, label="float64"),
        OpCase("finfo", _inputs(((2,), "float32")), lambda x: np.finfo(x.dtype), values=False,
               check=_check_finfo, label="tensor"),
        OpCase("iinfo", _const(D("int8")), values=False, check=_check_iinfo, label="int8"),
        OpCase("iinfo", _const(D("uint64")), values=False, check=_check_iinfo, label="uint64"),
        OpCase("iinfo", _inputs(((2,), "int32")), lambda x: np.iinfo(x.dtype), values=False,
               check=_check_iinfo, label="tensor"),
        OpCase("isdtype", _const(D("float32"), "real floating"), label="kind"),
        OpCase("isdtype", _const(D("int8"), ("unsigned integer", "bool")), label="tuple"),
        OpCase("isdtype", _const(D("complex64"), D("complex64")), label="dtype"),
        OpCase("isdtype", _const(D("uint16"), "numeric"), label="numeric"),
        OpCase("isdtype", _const(D("bool"), "integral"), label="bool-integral"),
    ]


# name -> (low, high, dtypes)
_UNARY = {
    "abs": (-2, 2, FLOATS + ("int16", "complex128")),
    "acos": (-0.9, 0.9, FLOATS + ("complex128",)),
    "acosh": (1.1, 3.0, FLOATS),
    "asin": (-0.9, 0.9, FLOATS),
    "asinh": (-2, 2, FLOATS),
    "atan": (-2, 2, FLOATS),
    "atanh": (-0.9, 0.9, FLOATS),
    "conj": (-2, 2, ("float64", "complex64", "complex128")),  # real input: 2024.12
    "cos": (-3, 3, FLOATS + ("complex128",)),
    "cosh": (-2, 2, FLOATS),
    "exp": (-2, 2, FLOATS + ("complex128",)),
    "expm1": (-1, 1, FLOATS),
    "imag": (-2, 2, ("complex64", "complex128")),
    "log": (0.1, 3.0, FLOATS + ("complex128",)),
    "log1p": (-0.5, 2.0, FLOATS),
    "log2": (0.1, 3.0, FLOATS),
    "log10": (0.1, 3.0, FLOATS),
    "negative": (-2, 2, FLOATS + ("int32",)),
    "positive": (-2, 2, FLOATS + ("int8",)),
    "real": (-2, 2, ("float64", "complex64", "complex128")),  # real input: 2024.12
    "reciprocal": (0.5, 2.0, FLOATS),
    "sin": (-3, 3, FLOATS + ("complex128",)),
    "sinh": (-2, 2, FLOATS),
    "sqrt": (0.1, 4.0, FLOATS + ("complex128",)),
    "square": (-2, 2, FLOATS + ("int32", "complex128")),
    "tan": (-1.2, 1.2, FLOATS),
    "tanh": (-2, 2, FLOATS + ("complex128",)),
    "ceil": (-3, 3, FLOATS + ("int32",)),
    "floor": (-3, 3, FLOATS + ("int32",)),
    "round": (-3, 3, FLOATS + ("int32",)),
    "sign": (-2, 2, FLOATS + ("int32", "complex128")),
    "trunc": (-3, 3, FLOATS + ("int32",)),
    "bitwise_invert": (-100, 100, ("int32", "uint8", "bool")),
    "logical_not": (0, 2, ("bool",)),
}

_SPECIAL_FLOATS = [0.0, -0.0, 1.5, -2.0, float("inf"), float("-inf"), float("nan")]


def _elementwise_cases():
    c = []
    for name, (low, high, dtypes) in _UNARY.items():
        for d in dtypes:
            c.append(OpCase(name, _inputs(((2, 3), d, low, high)), label=d))
    for name in ("isfinite", "isinf", "isnan", "signbit"):
        for d in FLOATS:
            c.append(OpCase(name, _inputs(_fixed(_SPECIAL_FLOATS, d)), label=d))
    c.append(OpCase("isnan", _inputs(_fixed([1 + 1j, complex("nan+1j"), 1j], "complex128")),
                    label="complex128"))
    c.append(OpCase("round", _inputs(_fixed([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49], "float64")),
                    label="halves-to-even"))
    c.append(OpCase("sign", _inputs(_fixed([-0.0, 0.0, -3.0, 2.0], "float64")), label="zeros"))

    def binary(name, d1, d2=None, s1=(2, 3), s2=(3,), lo=-2, hi=2, **kw):
        d2 = d2 or d1
        spec2 = kw.pop("spec2", (s2, d2, lo, hi))
        spec1 = kw.pop("spec1", (s1, d1, lo, hi))
        label = kw.pop("label", d1 if d1 == d2 else f"{d1}-{d2}")
        return OpCase(name, _inputs(spec1, spec2), label=label, **kw)

    def scalar(name, d, value, left=False, lo=-2, hi=2, label=None):
        def make(rng):
            x = _arr(rng, (2, 3), d, lo, hi)
            return ((value, x) if left else (x, value)), {}
        side = "left" if left else "right"
        return OpCase(name, make, label=label or f"scalar-{side}-{type(value).__name__}")

    for name in ("add", "subtract", "multiply"):
        c += [binary(name, "float32"), binary(name, "float64", s2=(2, 3)),
              binary(name, "float32", "float64", label="promote-float"),
              binary(name, "int16", lo=-50, hi=50), binary(name, "uint8", lo=0, hi=15),
              binary(name, "complex128"),
              scalar(name, "float32", 1.5), scalar(name, "int32", 3, left=True, lo=-9, hi=9)]
    c += [binary("divide", "float32", spec2=_away((3,), "float32")),
          binary("divide", "float64", spec2=_away((2, 3), "float64")),
          binary("divide", "complex128", spec2=_away((3,), "complex128")),
          OpCase("divide", lambda rng: ((1.0, _away((2, 3), "float32")(rng)), {}),
                 label="scalar-left-float")]
    for name in ("atan2", "copysign", "hypot", "logaddexp", "nextafter"):
        c += [binary(name, "float32"), binary(name, "float64", s1=(3, 1), s2=(1, 4))]
    c.append(binary("copysign", "float64", spec2=_fixed([-0.0, 0.0, -1.0], "float64"),
                    label="signed-zero"))
    for name in ("maximum", "minimum"):
        c += [binary(name, "float32"), binary(name, "int16", lo=-50, hi=50),
              binary(name, "float64", spec1=_fixed([1.0, float("nan"), -1.0], "float64"),
                     spec2=_fixed([float("nan"), 2.0, -3.0], "float64"), label="nan"),
              scalar(name, "float64", 0.5)]
    c += [binary("pow", "float32", lo=0.5, hi=2),
          binary("pow", "float64", spec1=((2, 3), "float64", 0.1, 3), spec2=((3,), "float64")),
          binary("pow", "int32", spec1=((2, 3), "int32", -4, 5), spec2=((3,), "int32", 0, 4)),
          binary("pow", "complex128", lo=0.5, hi=1.5),
          scalar("pow", "float32", 2.0, lo=-2, hi=2),
          scalar("pow", "float64", 2.0, left=True)]
    for name in ("floor_divide", "remainder"):
        c += [binary(name, "float32", spec2=_away((3,), "float32"), lo=-5, hi=5),
              binary(name, "float64", spec2=_away((2, 3), "float64"), lo=-5, hi=5),
              binary(name, "int32", spec1=((2, 3), "int32", -20, 20),
                     spec2=_away((3,), "int32", 1, 6)),
              binary(name, "uint8", spec1=((2, 3), "uint8", 0, 200),
                     spec2=((3,), "uint8", 1, 9)),
              scalar(name, "int16", 3, lo=-20, hi=20)]
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        c += [binary(name, "int32", lo=-100, hi=100), binary(name, "uint8", lo=0, hi=255),
              binary(name, "bool"), scalar(name, "int16", 6, lo=-50, hi=50)]
    for name in ("bitwise_left_shift", "bitwise_right_shift"):
        c += [binary(name, "int32", spec1=((2, 3), "int32", -100, 100),
                     spec2=((3,), "int32", 0, 8)),
              binary(name, "uint8", spec1=((2, 3), "uint8", 0, 255), spec2=((3,), "uint8", 0, 4)),
              scalar(name, "int64", 2, lo=-100, hi=100)]
    for name in ("equal", "not_equal", "greater", "greater_equal", "less", "less_equal"):
        c += [binary(name, "float32", spec2=_fixed([0.5, -1.0, 0.25], "float32"),
                     spec1=lambda rng: np.asarray([[0.5, 0.0, 0.25], [-3.0, -1.0, 1.0]],
                                                  dtype="float32")),
              binary(name, "int8", lo=-3, hi=3), scalar(name, "float64", 0.0)]
    c += [binary("equal", "complex128", spec1=_fixed([1 + 1j, 2, 1j], "complex128"),
                 spec2=_fixed([1 + 1j, 2j, 1j], "complex128"))]
    for name in ("logical_and", "logical_or", "logical_xor"):
        c += [binary(name, "bool"), binary(name, "bool", s1=(3, 1), s2=(1, 4), label="broadcast")]
    c += [
        OpCase("clip", _inputs(((2, 3), "float32"), extra=(-0.5, 0.5)), label="scalars"),
        OpCase("clip", _inputs(((2, 3), "float64"), ((3,), "float64", -1, 0)), label="tensor-min",
               reference=lambda x, lo: np.clip(x, lo, None)),
        OpCase("clip", _inputs(((2, 3), "float64"), kwargs={"max": 0.25}), label="max-only",
               reference=lambda x, max: np.clip(x, None, max)),
        OpCase("clip", _inputs(((2, 3), "int16", -20, 20), extra=(-5, 5)), label="int16"),
        OpCase("clip", _inputs(((4,), "float64"), ((4,), "float64", -2, -1),
                               ((4,), "float64", 1, 2)), label="tensor-bounds"),
    ]
    return c


def _linalg_cases():
    tol = LIN
    c = [
        OpCase("matmul", _inputs(((2, 3), "float32"), ((3, 4), "float32")), label="2d",
               tol=tol),
        OpCase("matmul", _inputs(((2, 1, 3, 4), "float64"), ((5, 4, 2), "float64")),
               label="batch-broadcast", tol=tol),
        OpCase("matmul", _inputs(((3,), "float64"), ((3, 2), "float64")), label="vec-mat",
               tol=tol),
        OpCase("matmul", _inputs(((2, 3), "int32", -5, 5), ((3,), "int32", -5, 5)),
               label="int-mat-vec"),
        OpCase("matmul", _inputs(((2, 2), "complex128"), ((2, 3), "complex128")),
               label="complex128", tol=tol),
        OpCase("matrix_transpose", _inputs(((2, 3, 4), "float64")), label="batched"),
        OpCase("matrix_transpose", _inputs(((3, 2), "int8")), label="int8"),
        OpCase("tensordot", _inputs(((2, 3), "float64"), ((3, 4), "float64"),
                                    kwargs={"axes": 1}), label="axes-1", tol=tol),
        OpCase("tensordot", _inputs(((3, 4, 5), "float32"), ((4, 3, 2), "float32"),
                                    kwargs={"axes": ((1, 0), (0, 1))}), label="axes-pairs",
               tol=tol),
        OpCase("tensordot", _inputs(((2,), "float64"), ((3,), "float64"), kwargs={"axes": 0}),
               label="outer", tol=tol),
        OpCase("tensordot", _inputs(((2, 3, 4), "float64"), ((3, 4), "float64")),
               label="default-axes", tol=tol),
        OpCase("tensordot", _inputs(((2, 3), "uint8", 0, 3), ((3, 2), "uint8", 0, 3),
                                    kwargs={"axes": 1}), label="uint8-keeps-dtype"),
        OpCase("vecdot", _inputs(((2, 3), "float64"), ((3,), "float64")), label="broadcast",
               tol=tol),
        OpCase("vecdot", _inputs(((4, 2), "complex128"), ((4, 2), "complex128"),
                                 kwargs={"axis": -2}), label="complex-axis-2", tol=tol),
        OpCase("vecdot", _inputs(((2, 3), "int32", -5, 5), ((2, 3), "int32", -5, 5)),
               label="int32"),
        OpCase("linalg.cholesky", _inputs(_spd(3)), label="float64", tol=tol),
        OpCase("linalg.cholesky", _inputs(_spd(3, (2,)), kwargs={"upper": True}),
               label="batched-upper", tol=tol),
        OpCase("linalg.cross", _inputs(((4, 3), "float64"), ((4, 3), "float64")),
               label="float64", tol=tol),
        OpCase("linalg.cross", _inputs(((3, 2), "float32"), ((3, 1), "float32"),
                                       kwargs={"axis": -2}), label="axis-2-broadcast", tol=tol),
        OpCase("linalg.cross", _inputs(((2, 3), "int32", -5, 5), ((2, 3), "int32", -5, 5)),
               label="int32"),
        OpCase("linalg.det", _inputs(_wellcond(3)), label="float64", tol=tol),
        OpCase("linalg.det", _inputs(_wellcond(3, (2,), "float32")), label="batched-float32",
               tol=tol),
        OpCase("linalg.diagonal", _inputs(((3, 4), "float64"), kwargs={"offset": 1}),
               label="offset"),
        OpCase("linalg.diagonal", _inputs(((2, 4, 3), "int32")), label="batched"),
        OpCase("linalg.diagonal", _inputs(((4, 4), "float32"), kwargs={"offset": -2}),
               label="negative-offset"),
        OpCase("linalg.eigh", _inputs(_sym(4)), label="float64", tol=tol, canon=_canon_eigh,
               gradcheck=False),
        OpCase("linalg.eigh", _inputs(_sym(3, (2,))), label="batched", tol=tol,
               canon=_canon_eigh, gradcheck=False),
        OpCase("linalg.eigvalsh", _inputs(_sym(3, (2,))), label="batched", tol=tol),
        OpCase("linalg.eig", _inputs(_wellcond(3)), _eig_ref, label="float64", tol=tol,
               canon=_canon_eig, gradcheck=False),
        OpCase("linalg.eigvals", _inputs(_wellcond(4)), _eigvals_ref, label="float64", tol=tol,
               canon=_sorted_eigvals, gradcheck=False),
        OpCase("linalg.inv", _inputs(_wellcond(3)), label="float64", tol=tol),
        OpCase("linalg.inv", _inputs(_wellcond(3, (2,), "float32")), label="batched-float32",
               tol=tol),
        OpCase("linalg.matrix_norm", _inputs(((2, 3, 4), "float64")), label="fro", tol=tol),
        OpCase("linalg.matrix_norm", _inputs(((3, 4), "float64"), kwargs={"ord": "nuc"}),
               label="nuc", tol=tol),
        OpCase("linalg.matrix_norm", _inputs(((3, 4), "float32"),
                                             kwargs={"ord": 1, "keepdims": True}),
               label="ord1-keepdims", tol=tol),
        OpCase("linalg.matrix_norm", _inputs(((2, 3, 3), "float64"),
                                             kwargs={"ord": float("inf")}), label="inf", tol=tol),
        OpCase("linalg.matrix_norm", _inputs(((3, 3), "float64"), kwargs={"ord": 2}),
               label="ord2", tol=tol),
        OpCase("linalg.matrix_power", _inputs(((3, 3), "float64"), extra=(3,)), label="n3",
               tol=tol),
        OpCase("linalg.matrix_power", _inputs(((2, 3, 3), "float32"), extra=(0,)), label="n0"),
        OpCase("linalg.matrix_power", _inputs(_wellcond(3), extra=(-2,)), label="n-2", tol=tol),
        OpCase("linalg.matrix_rank", _inputs(_lowrank(4, 4, 2)), label="rank2"),
        OpCase("linalg.matrix_rank", _inputs(_lowrank(3, 5, 1, (2,))), label="batched"),
        OpCase("linalg.matrix_rank", _inputs(_fixed([[1.0, 0.0], [0.0, 1e-3]], "float64"),
                                             kwargs={"rtol": 1e-2}), label="rtol"),
        OpCase("linalg.outer", _inputs(((3,), "float64"), ((4,), "float64")), label="float64"),
        OpCase("linalg.outer", _inputs(((2,), "int32", -5, 5), ((3,), "int32", -5, 5)),
               label="int32"),
        OpCase("linalg.pinv", _inputs(((4, 3), "float64")), label="tall", tol=tol),
        OpCase("linalg.pinv", _inputs(_lowrank(3, 3, 2), kwargs={"rtol": 1e-8}),
               label="rank-deficient", tol=tol),
        OpCase("linalg.qr", _inputs(((4, 3), "float64")), label="reduced", tol=tol,
               canon=_canon_qr, gradcheck=False),
        OpCase("linalg.qr", _inputs(((3, 3), "float64"), kwargs={"mode": "complete"}),
               label="complete-square", tol=tol, canon=_canon_qr, gradcheck=False),
        OpCase("linalg.slogdet", _inputs(((3, 3), "float64")), label="float64", tol=tol),
        OpCase("linalg.slogdet", _inputs(_wellcond(3, (2,))), label="batched", tol=tol),
        OpCase("linalg.solve", _inputs(_wellcond(3), ((3, 2), "float64")), label="matrix-rhs",
               tol=tol),
        OpCase("linalg.solve", _inputs(_wellcond(3, (2,)), ((2, 3, 2), "float64")),
               label="batched", tol=tol),
        OpCase("linalg.svd", _inputs(((4, 3), "float64"), kwargs={"full_matrices": False}),
               label="reduced", tol=tol, canon=_canon_svd, gradcheck=False),
        OpCase("linalg.svd", _inputs(((3, 3), "float64")), label="full-square", tol=tol,
               canon=_canon_svd, gradcheck=False),
        OpCase("linalg.svdvals", _inputs(((2, 4, 3), "float64")), label="batched", tol=tol),
        OpCase("linalg.svdvals", _inputs(((3, 5), "float32")), label="wide-float32", tol=tol),
        OpCase("linalg.trace", _inputs(((3, 3), "float64")), label="float64"),
        OpCase("linalg.trace", _inputs(((2, 3, 4), "float32"), kwargs={"offset": 1}),
               label="batched-offset"),
        OpCase("linalg.trace", _inputs(((3, 3), "int32", -9, 9)), label="int32"),
        OpCase("linalg.trace", _inputs(((3, 3), "float32"), kwargs={"dtype": D("float64")}),
               label="dtype"),
        OpCase("linalg.vector_norm", _inputs(((2, 3), "float64")), label="l2-all", tol=tol),
        OpCase("linalg.vector_norm", _inputs(((2, 3), "float32"), kwargs={"ord": 1, "axis": 1}),
               label="l1-axis", tol=tol),
        OpCase("linalg.vector_norm", _inputs(((2, 3, 4), "float64"),
                                             kwargs={"ord": float("inf"), "axis": (0, 2),
                                                     "keepdims": True}),
               label="inf-axes-keepdims", tol=tol),
        OpCase("linalg.vector_norm", _inputs(((4,), "float64"), kwargs={"ord": 3}),
               label="ord3", tol=tol),
        OpCase("linalg.vector_norm", _inputs(((3,), "complex128")), label="complex128",
               tol=tol),
    ]
    return c


def _getitem_ref(x, key):
    return x[key]


def _index_put_ref(x, key, values):
    y = x.copy()
    y[key] = values
    return y


def _manipulation_cases():
    f64 = "float64"
    return [
        OpCase("broadcast_arrays", _inputs(((3, 1), f64), ((1, 4), f64)), label="2d"),
        OpCase("broadcast_arrays", _inputs(((2, 3), "int32"), ((3,), "int32"), ((1, 1), "int32")),
               label="three"),
        OpCase("broadcast_shapes", _const((2, 1, 3), (4, 1)), label="two"),
        OpCase("broadcast_shapes", _const((1,), (5, 0), ()), label="zero-size"),
        OpCase("broadcast_shapes", _const((3, 2)), label="one"),
        OpCase("broadcast_to", _inputs(((3, 1), f64), extra=((2, 3, 4),)), label="expand"),
        OpCase("broadcast_to", _inputs(((3,), "int8"), extra=((2, 3),)), label="prepend"),
        OpCase("concat", lambda rng: (([_arr(rng, (2, 3)), _arr(rng, (4, 3))],), {}),
               label="axis0"),
        OpCase("concat", lambda rng: (((_arr(rng, (2, 1), "float32"),
                                        _arr(rng, (2, 3), "float64")),), {"axis": 1}),
               label="axis1-promote"),
        OpCase("concat", lambda rng: (([_arr(rng, (2, 2), "int32"), _arr(rng, (3,), "int32")],),
                                      {"axis": None}), label="axis-none"),
        OpCase("expand_dims", _inputs(((2, 3), f64), kwargs={"axis": 1}), label="axis1"),
        OpCase("expand_dims", _inputs(((2, 3), f64), kwargs={"axis": -1}), label="axis-last"),
        OpCase("expand_dims", _inputs(((2, 3), "int16"), kwargs={"axis": (0, 2)}),
               label="tuple"),
        OpCase("flip", _inputs(((2, 3), f64)), label="all"),
        OpCase("flip", _inputs(((2, 3, 4), "int32"), kwargs={"axis": (0, 2)}), label="axes"),
        OpCase("flip", _inputs(((2, 3), "float32"), kwargs={"axis": -1}), label="last"),
        OpCase("moveaxis", _inputs(((2, 3, 4), f64), extra=(0, -1)), label="int"),
        OpCase("moveaxis", _inputs(((2, 3, 4), f64), extra=((0, 1), (2, 0))), label="tuple"),
        OpCase("permute_dims", _inputs(((2, 3, 4), f64), extra=((2, 0, 1),)), label="3d"),
        OpCase("permute_dims", _inputs(((2, 3), "int8"), extra=((1, 0),)), label="2d"),
        OpCase("repeat", _inputs(((2, 3), f64), extra=(2,)), label="int-flat"),
        OpCase("repeat", _inputs(((3, 2), f64), _fixed([1, 0, 2], "int64"),
                                 kwargs={"axis": 0}), label="tensor-repeats", lazy=False,
               lazy_note=_NOT_LAZY_SHAPE),
        OpCase("repeat", _inputs(((2, 3), "int32"), extra=(3,), kwargs={"axis": 1}),
               label="int-axis"),
        OpCase("reshape", _inputs(((2, 3, 4), f64), extra=((6, -1),)), label="infer"),
        OpCase("reshape", _inputs(((6,), "int32"), extra=((3, 2),), kwargs={"copy": True}),
               reference=lambda x, s, copy: np.reshape(x, s, copy=copy), label="copy"),
        OpCase("reshape", _inputs(((1,), f64), extra=((),)), label="to-0d"),
        OpCase("roll", _inputs(((2, 3), f64), extra=(2,)), label="flat"),
        OpCase("roll", _inputs(((3, 4), "int32"), extra=((1, -1),), kwargs={"axis": (0, 1)}),
               label="axes"),
        OpCase("roll", _inputs(((3, 4), f64), extra=(-1,), kwargs={"axis": 1}), label="axis"),
        OpCase("squeeze", _inputs(((1, 3, 1), f64), kwargs={"axis": 0}), label="int"),
        OpCase("squeeze", _inputs(((1, 3, 1), "int8"), kwargs={"axis": (0, 2)}), label="tuple"),
        OpCase("stack", lambda rng: (([_arr(rng, (2, 3)) for _ in range(3)],), {}),
               label="axis0"),
        OpCase("stack", lambda rng: (((_arr(rng, (2,), "int32"), _arr(rng, (2,), "int32")),),
                                     {"axis": -1}), label="axis-last"),
        OpCase("tile", _inputs(((2, 3), f64), extra=((2, 1),)), label="same-ndim"),
        OpCase("tile", _inputs(((3,), "int16"), extra=((2, 1, 2),)), label="more-dims"),
        OpCase("unstack", _inputs(((3, 2), f64)), label="axis0"),
        OpCase("unstack", _inputs(((2, 3, 2), "int32"), kwargs={"axis": 1}), label="axis1"),
        OpCase("take", _inputs(((5,), f64), _fixed([4, 0, 2, 2], "int64")), label="1d"),
        OpCase("take", _inputs(((3, 4), "float32"), _fixed([3, 1], "int32"),
                               kwargs={"axis": 1}), label="axis1"),
        OpCase("take_along_axis",
               lambda rng: ((x := _arr(rng, (3, 4)), np.argsort(x, axis=1)), {"axis": 1}),
               reference=lambda x, i, axis: np.take_along_axis(x, i, axis=axis), label="axis1"),
        OpCase("take_along_axis",
               lambda rng: ((_arr(rng, (3, 2), "int32", -9, 9),
                             rng.integers(0, 3, (4, 2))), {"axis": 0}),
               reference=lambda x, i, axis: np.take_along_axis(x, i, axis=axis), label="axis0"),
        OpCase("take_along_axis",
               lambda rng: ((_arr(rng, (2, 5)), rng.integers(0, 5, (2, 3))), {}),
               reference=lambda x, i: np.take_along_axis(x, i, axis=-1), label="default-axis"),
        OpCase("getitem", _inputs(((4, 5), f64), extra=((slice(1, None), slice(None, None, 2)),)),
               _getitem_ref, label="slices"),
        OpCase("getitem", _inputs(((2, 3, 4), "int32"), extra=((1, Ellipsis, None),)),
               _getitem_ref, label="int-ellipsis-newaxis"),
        OpCase("getitem", _inputs(((3, 4), f64), extra=((1, 2),)), _getitem_ref,
               label="scalar"),
        OpCase("getitem", _inputs(((3, 4), "float32"), extra=((-1, Ellipsis),)), _getitem_ref,
               label="negative-int"),
        OpCase("getitem", lambda rng: ((_arr(rng, (4, 3)), (np.asarray([3, 0, 0], "int64"),
                                                            np.asarray([1, 2, 0], "int64"))),
                                       {}), _getitem_ref, label="integer-arrays"),
        OpCase("getitem", lambda rng: ((_arr(rng, (4, 3)),
                                        (np.asarray([[2], [0]], "int64"), 1)), {}),
               _getitem_ref, label="integer-array-and-int"),
        OpCase("getitem", lambda rng: ((_arr(rng, (5,), "int32", -9, 9),
                                        np.asarray([4, 0, 4], "int64")), {}),
               _getitem_ref, label="integer-array-1d"),
        OpCase("getitem", lambda rng: ((x := _arr(rng, (3, 4)), x > 0), {}), _getitem_ref,
               label="boolean-mask",
               lazy_note="lazy on Dask with None in the shape (a data-dependent size, "
                         "docs/dask.md); compared with torch under allow_compute"),
        OpCase("index_put", lambda rng: ((_arr(rng, (4, 3)), (slice(1, 3), slice(None)),
                                          _arr(rng, (2, 3))), {}), _index_put_ref, "slices"),
        OpCase("index_put", lambda rng: ((_arr(rng, (2, 3, 2), "float32"), (Ellipsis, 0), 2.5),
                                         {}), _index_put_ref, "ellipsis-scalar"),
        OpCase("index_put", lambda rng: ((_arr(rng, (3, 4), "int32", -9, 9), (1, Ellipsis),
                                          _arr(rng, (4,), "int32", -9, 9)), {}),
               _index_put_ref, "int-row"),
        OpCase("index_put", lambda rng: ((x := _arr(rng, (3, 4)), x < 0, 0.0), {}),
               _index_put_ref, "boolean-mask"),
    ]


def _reduction_cases():
    f32, f64 = "float32", "float64"
    c = []
    for name in ("sum", "prod"):
        lo, hi = (-2, 2) if name == "sum" else (0.5, 1.5)
        c += [OpCase(name, _inputs(((2, 3, 4), f32, lo, hi)), label="all-float32",
                     tol={f32: (1e-4, 1e-5)}),
              OpCase(name, _inputs(((2, 3, 4), f64, lo, hi), kwargs={"axis": (0, 2),
                                                                      "keepdims": True}),
                     label="axes-keepdims"),
              OpCase(name, _inputs(((2, 3), "int32", -5, 5), kwargs={"axis": 1}),
                     label="int32-upcast"),
              OpCase(name, _inputs(((3, 2), "uint8", 0, 5)), label="uint8-upcast"),
              OpCase(name, _inputs(((2, 3), f32, lo, hi), kwargs={"dtype": D(f64)}),
                     label="dtype"),
              OpCase(name, _inputs(((2, 2), "complex128", lo, hi), kwargs={"axis": 0}),
                     label="complex128")]
    c += [OpCase("mean", _inputs(((2, 3, 4), f32)), label="all-float32"),
          OpCase("mean", _inputs(((2, 3, 4), f64), kwargs={"axis": (0, 1), "keepdims": True}),
                 label="axes-keepdims"),
          OpCase("mean", _inputs(((3,), "complex128")), label="complex128")]
    for name in ("std", "var"):
        c += [OpCase(name, _inputs(((3, 4), f32)), label="all-float32"),
              OpCase(name, _inputs(((3, 4), f64), kwargs={"axis": 0, "correction": 1,
                                                          "keepdims": True}),
                     label="correction1-axis0"),
              OpCase(name, _inputs(((2, 5), f64), kwargs={"axis": 1, "correction": 0.5}),
                     label="fractional-correction")]
    for name in ("max", "min"):
        c += [OpCase(name, _inputs(((3, 4), f32), kwargs={"axis": 1}), label="axis1"),
              OpCase(name, _inputs(((3, 4), "int8", -100, 100)), label="int8-all"),
              OpCase(name, _inputs(((2, 3, 2), f64), kwargs={"axis": (0, 2), "keepdims": True}),
                     label="axes-keepdims"),
              OpCase(name, _inputs(_fixed([[1.0, float("nan")], [2.0, 3.0]], f64),
                                   kwargs={"axis": 1}), label="nan")]
    c += [OpCase("cumulative_sum", _inputs(((5,), f64)), label="1d"),
          OpCase("cumulative_sum", _inputs(((3, 4), f32), kwargs={"axis": 1,
                                                                 "include_initial": True}),
                 label="axis1-initial"),
          OpCase("cumulative_sum", _inputs(((2, 3), "int32", -5, 5), kwargs={"axis": 0}),
                 label="int32-upcast"),
          OpCase("cumulative_sum", _inputs(((4,), "float32"), kwargs={"dtype": D(f64)}),
                 label="dtype"),
          OpCase("cumulative_prod", _inputs(((5,), f64, 0.5, 1.5)), label="1d"),
          OpCase("cumulative_prod", _inputs(((3, 2), f64, 0.5, 1.5),
                                            kwargs={"axis": 0, "include_initial": True}),
                 label="axis0-initial"),
          OpCase("cumulative_prod", _inputs(((2, 3), "int16", -3, 3), kwargs={"axis": 1}),
                 label="int16-upcast")]
    for name in ("all", "any"):
        c += [OpCase(name, _inputs(((3, 4), "bool")), label="bool-all"),
              OpCase(name, _inputs(((3, 4), "bool"), kwargs={"axis": 1, "keepdims": True}),
                     label="axis1-keepdims"),
              OpCase(name, _inputs(_fixed([[0.0, 1.5], [2.0, -1.0]], f64), kwargs={"axis": 0}),
                     label="float-axis0"),
              OpCase(name, _inputs(_fixed([[0, 3, 0]], "int32"), kwargs={"axis": (0, 1)}),
                     label="int-axes")]
    c += [OpCase("diff", _inputs(((3, 5), f64)), label="last-axis"),
          OpCase("diff", _inputs(((4, 3), "int32", -9, 9), kwargs={"axis": 0, "n": 2}),
                 label="axis0-n2"),
          OpCase("diff", lambda rng: ((_arr(rng, (2, 4)),),
                                      {"prepend": _arr(rng, (2, 1)), "append": _arr(rng, (2, 2))}),
                 label="prepend-append")]
    return c


def _searching_cases():
    f64 = "float64"
    c = []
    for name in ("argmax", "argmin"):
        c += [OpCase(name, _inputs(((3, 4), f64)), label="flat"),
              OpCase(name, _inputs(((3, 4), "float32"), kwargs={"axis": 1, "keepdims": True}),
                     label="axis1-keepdims"),
              OpCase(name, _inputs(((2, 5), "int16", -3, 3), kwargs={"axis": 0}),
                     label="int16-ties")]
    c += [OpCase("count_nonzero", _inputs(((3, 4), "int32", -1, 2)), label="all"),
          OpCase("count_nonzero", _inputs(((3, 4), "int32", -1, 2),
                                          kwargs={"axis": 1, "keepdims": True}),
                 label="axis1-keepdims"),
          OpCase("count_nonzero", _inputs(((2, 3), "bool"), kwargs={"axis": (0, 1)}),
                 label="bool-axes"),
          OpCase("nonzero", _inputs(((3, 4), "int32", -1, 2)), label="2d", lazy=False,
                 lazy_note=_NOT_LAZY_SHAPE),
          OpCase("nonzero", _inputs(((5,), "bool")), label="1d-bool", lazy=False,
                 lazy_note=_NOT_LAZY_SHAPE),
          OpCase("searchsorted",
                 lambda rng: ((np.sort(_arr(rng, (6,))), _arr(rng, (2, 3))), {}),
                 label="left"),
          OpCase("searchsorted",
                 lambda rng: ((x := _arr(rng, (5,), "int32", 0, 4), _arr(rng, (4,), "int32", 0, 5)),
                              {"side": "right", "sorter": np.argsort(x, stable=True)}),
                 label="right-sorter"),
          OpCase("searchsorted",
                 lambda rng: ((np.sort(_arr(rng, (5,), "int32", -4, 4)), 1), {}),
                 lambda x1, x2: np.searchsorted(x1, x2), label="scalar-x2"),
          OpCase("where", _inputs(((2, 3), "bool"), ((2, 3), f64), ((3,), f64)),
                 label="broadcast"),
          OpCase("where", _inputs(((2, 3), "bool"), ((2, 3), "float32"), ((2, 3), f64)),
                 label="promote"),
          OpCase("where", _inputs(((4,), "bool"), ((4,), "int32"), extra=(0,)),
                 label="scalar"),
          OpCase("argsort", _inputs(((3, 4), f64)), label="last-axis"),
          OpCase("argsort", _inputs(((4, 3), "float32"), kwargs={"axis": 0, "descending": True}),
                 reference=lambda x, axis, descending: np.argsort(-x, axis=axis, stable=True),
                 label="descending-axis0"),
          OpCase("argsort", _inputs(((2, 6), "int8", 0, 3)), label="stable-ties",
                 reference=lambda x: np.argsort(x, stable=True)),
          OpCase("sort", _inputs(((3, 4), "float32")), label="last-axis"),
          OpCase("sort", _inputs(((4, 3), f64), kwargs={"axis": 0, "descending": True}),
                 reference=lambda x, axis, descending: np.flip(np.sort(x, axis=axis), axis=axis),
                 label="descending-axis0"),
          OpCase("sort", _inputs(((2, 5), "int32", -5, 5)), label="int32"),
          OpCase("isin", _inputs(((3, 4), "int32", 0, 10), ((5,), "int32", 0, 10)),
                 label="int32"),
          OpCase("isin", _inputs(((6,), "int64", 0, 6), ((2, 2), "int64", 0, 6),
                                 kwargs={"invert": True}), label="invert"),
          OpCase("isin", _inputs(((2, 3), "int8", -3, 3), extra=(1,)), label="scalar-x2"),
          # PyTorch's isclose/allclose: NumPy's formula and defaults (rtol 1e-5, atol 1e-8)
          OpCase("isclose", _inputs(_near(f64), _near(f64, 1)), label="near"),
          OpCase("isclose", _inputs(_near("float32"), _near("float32", 1),
                                    kwargs={"rtol": 1e-3, "atol": 0.0}), label="rtol"),
          OpCase("isclose", _inputs(_fixed([1.0, float("nan"), float("inf")], f64),
                                    _fixed([1.0, float("nan"), float("inf")], f64),
                                    kwargs={"equal_nan": True}), label="nan-inf"),
          OpCase("allclose", _inputs(_near(f64), _near(f64, 1)), label="near",
                 lazy=False, lazy_note="returns a Python bool: computes, as bool() does"),
          OpCase("allclose", _inputs(_near(f64), _near(f64, 1), kwargs={"atol": 1e-3}),
                 label="atol", lazy=False,
                 lazy_note="returns a Python bool: computes, as bool() does")]
    # unique_values: arrayflow documents sorted values (NumPy >= 2.3 no longer sorts).
    refs = {"unique_values": lambda x: np.unique(x)}
    for name in ("unique_all", "unique_counts", "unique_inverse", "unique_values"):
        c += [OpCase(name, _inputs(((2, 5), "int32", 0, 4)), refs.get(name), "int32",
                     lazy=False, lazy_note=_NOT_LAZY_SHAPE),
              OpCase(name, _inputs(_fixed([2.0, -1.0, 2.0, 0.5, -1.0], f64)), refs.get(name),
                     "float64", lazy=False, lazy_note=_NOT_LAZY_SHAPE)]
    return c


def _fftfreq_ref(fn):
    def ref(n, d=1.0, dtype=None):
        return getattr(np.fft, fn)(n, d).astype(dtype or "float32")
    return ref


def _fft_cases():
    c128, c64, f64, f32 = "complex128", "complex64", "float64", "float32"
    return [
        OpCase("fft.fft", _inputs(((2, 8), c128)), label="complex128"),
        OpCase("fft.fft", _inputs(((6, 3), c64), kwargs={"n": 4, "axis": 0, "norm": "ortho"}),
               label="n-axis0-ortho"),
        OpCase("fft.ifft", _inputs(((2, 8), c128), kwargs={"norm": "forward"}), label="forward"),
        OpCase("fft.ifft", _inputs(((5,), c64), kwargs={"n": 8}), label="pad"),
        OpCase("fft.fftn", _inputs(((2, 3, 4), c128)), label="all-axes"),
        OpCase("fft.fftn", _inputs(((3, 4), c64), kwargs={"s": (4, 2), "axes": (0, 1)}),
               label="s-axes"),
        OpCase("fft.ifftn", _inputs(((3, 4), c128), kwargs={"norm": "ortho"}), label="ortho"),
        OpCase("fft.ifftn", _inputs(((2, 3, 4), c64), kwargs={"axes": (-1,)}), label="last-axis"),
        OpCase("fft.rfft", _inputs(((2, 8), f64)), label="float64"),
        OpCase("fft.rfft", _inputs(((7,), f32), kwargs={"n": 5}), label="trim-float32"),
        OpCase("fft.irfft", _inputs(((2, 5), c128)), label="default-n"),
        OpCase("fft.irfft", _inputs(((5,), c64), kwargs={"n": 9}), label="odd-n"),
        OpCase("fft.rfftn", _inputs(((3, 4), f64)), label="float64"),
        OpCase("fft.rfftn", _inputs(((2, 3, 4), f32), kwargs={"axes": (0, 2)}), label="axes"),
        OpCase("fft.irfftn", _inputs(((3, 5), c128), kwargs={"s": (3, 8), "axes": (0, 1)}),
               label="s"),
        OpCase("fft.irfftn", _inputs(((2, 3), c64)), label="default-s"),
        OpCase("fft.hfft", _inputs(((5,), c128)), label="default-n"),
        OpCase("fft.hfft", _inputs(((2, 4), c64), kwargs={"n": 7}), label="odd-n"),
        OpCase("fft.ihfft", _inputs(((8,), f64)), label="float64"),
        OpCase("fft.ihfft", _inputs(((2, 5), f32), kwargs={"norm": "ortho"}), label="ortho"),
        OpCase("fft.fftfreq", _const(8), _fftfreq_ref("fftfreq"), "default"),
        OpCase("fft.fftfreq", _const(7, d=0.5, dtype=D(f64)), _fftfreq_ref("fftfreq"),
               "d-dtype"),
        OpCase("fft.rfftfreq", _const(8), _fftfreq_ref("rfftfreq"), "default"),
        OpCase("fft.rfftfreq", _const(7, d=2.0, dtype=D(f64)), _fftfreq_ref("rfftfreq"),
               "d-dtype"),
        OpCase("fft.fftshift", _inputs(((5,), f64)), label="1d"),
        OpCase("fft.fftshift", _inputs(((3, 4), c64), kwargs={"axes": (1,)}), label="axes"),
        OpCase("fft.ifftshift", _inputs(((5,), f64)), label="1d"),
        OpCase("fft.ifftshift", _inputs(((3, 5), f32), kwargs={"axes": 0}), label="int-axis"),
    ]


def _scipy_erf(x):
    from scipy.special import erf

    return erf(x)


def _special_cases():
    wide = [-7.0, -5.5, -3.0, -2.0, -1.1, -0.9, -0.5, -1e-9, 0.3, 0.84375, 1.0, 1.25, 2.5,
            2.9, 4.0, 5.9, 6.5]
    return [
        OpCase("erf", _inputs(((2, 3), "float32", -3, 3)), _scipy_erf, "float32"),
        OpCase("erf", _inputs(((2, 3), "float64", -3, 3)), _scipy_erf, "float64"),
        OpCase("erf", _inputs(_fixed(wide, "float64")), _scipy_erf, "branches",
               tol={"float64": (2e-15, 0.0)}),
        OpCase("erf", _inputs(_fixed(_SPECIAL_FLOATS + [1e-300, -1e-20], "float64")),
               _scipy_erf, "special-values", gradcheck=False),
    ] + _scipy_special_cases() + _special_gamma_cases() + _special_incomplete_cases() + \
        _special_bessel_cases() + _special_elementary_cases() + _special_inverse_gamma_cases() + \
        _special_inverse_beta_cases() +         _special_hyper_cases()


def _scipy(name):
    """``scipy.special.<name>`` as a reference (SciPy imported on first call)."""
    def ref(*args, **kwargs):
        import scipy.special

        return getattr(scipy.special, "psi" if name == "digamma" else name)(*args, **kwargs)
    ref.__name__ = name
    return ref


# arrayflow.special: (name, (lo, hi) of a smooth region for gradients, wide values, arity)
_SCIPY_SPECIAL = [
    ("erfc", (-3, 3), [-7.0, -1.1, -0.5, 0.1, 0.3, 0.9, 1.3, 2.9, 5.9, 10.0, 26.0, 27.0], 1),
    ("expit", (-5, 5), [-750.0, -40.0, -1e-9, 1e-9, 3.0, 40.0, 750.0], 1),
    ("logit", (0.05, 0.95), [-0.5, 1e-300, 1e-9, 0.26, 0.5, 0.74, 1 - 1e-9, 1.5], 1),
    ("entr", (0.1, 3), [-1.0, 1e-300, 0.5, 1.0, 1e300], 1),
    ("sinc", (-3, 3), [-2.5, -1.0, -1e-5, 1e-5, 0.5, 3.0, 1e3], 1),
    ("ndtr", (-3, 3), [-40.0, -37.0, -10.0, -1.0, -0.5, 0.5, 1.0, 6.0, 9.0], 1),
    ("log_ndtr", (-4, 4), [-1e5, -40.0, -20.0, -5.0, -1.5, -1.0, 0.0, 3.0, 10.0, 38.0], 1),
    ("erfinv", (-0.9, 0.9), [-1.0, -1 + 1e-15, -0.7, -1e-300, 0.3, 0.5, 0.99, 1 - 1e-12, 1.0], 1),
    ("erfcinv", (0.1, 1.9), [0.0, 1e-300, 1e-20, 0.3, 0.5, 1 - 1e-16, 1.0, 1.2, 1.5,
                             1.7, 2 - 1e-12, 2.0, 2.5, -0.1], 1),
    ("ndtri", (0.05, 0.95), [0.0, 5e-324, 1e-300, 1e-20, 0.1, 0.25, 0.5, 0.75, 1 - 1e-16, 1.0],
     1),
    ("gammaln", (0.3, 6), [-50.5, -2.5, -0.5, 1e-300, 0.5, 1.0, 2.0, 2.5, 12.9, 13.0, 1e8, 1e300],
     1),
    ("digamma", (0.3, 6), [-50.5, -2.5, -0.5, 1e-300, 0.5, 1.0, 2.0, 9.9, 10.0, 1e8, 1e300], 1),
    ("i0", (-10, 10), [-700.0, -9.0, -8.0, -1e-300, 0.5, 7.9, 8.1, 50.0, 709.0, 710.0], 1),
    ("i0e", (-10, 10), [-1e300, -700.0, -8.0, -1e-300, 0.5, 7.9, 8.1, 50.0, 1e5], 1),
    ("i1", (-10, 10), [-700.0, -9.0, -8.0, -1e-300, 0.5, 7.9, 8.1, 50.0, 709.0, 710.0], 1),
    ("i1e", (-10, 10), [-1e300, -700.0, -8.0, -1e-300, 0.5, 7.9, 8.1, 50.0, 1e5], 1),
    ("xlogy", (0.2, 3), None, 2),
    ("xlog1py", (0.2, 3), None, 2),
    ("rel_entr", (0.2, 3), None, 2),
]


def _special_gamma_cases():
    """Cases of :mod:`arrayflow.ops.special_gamma` (SciPy references).

    The arguments without a derivative (``x`` of ``zeta``, ``n`` of ``polygamma``, ``d`` of
    ``multigammaln``) are Python scalars in the gradient-checked cases; the cases with them as
    arrays are value-only."""
    f32, f64 = "float32", "float64"

    def as_dtype_of(name, k=-1):
        # SciPy's result in the dtype of the array argument ``k`` (its loops give float64
        # where a Python int or float takes part; arrayflow keeps the Tensor's dtype)
        fn = _scipy(name)

        def ref(*args):
            return np.asarray(fn(*args)).astype(args[k].dtype)
        ref.__name__ = name
        return ref

    cases = []
    unary = [  # (name, smooth region for gradients or None, wide values)
        ("gamma", (0.3, 6.0), [-170.5, -33.5, -2.5, -0.5, 1e-300, 0.5, 2.0, 2.5, 32.9, 33.1,
                               143.5, 171.6, 172.0]),
        ("rgamma", (-3.5, 5.0), [-180.5, -171.5, -40.5, -2.5, -1.0, -0.5, 1e-300, 0.5, 2.0,
                                 35.0, 171.7]),
        ("loggamma", (0.3, 6.0), [-2.5, 1e-300, 0.5, 1.0, 2.0, 12.9, 13.0, 1e8, 1e300]),
        ("gammasgn", None, [-180.5, -3.5, -2.5, -1.5, -0.5, 1e-300, 0.5, 1e300]),
        ("zetac", None, [-170.5, -20.3, -2.0, -0.5, -0.005, 0.3, 0.999, 1.001, 2.0, 60.0,
                         126.0, 127.0]),
    ]
    for name, region, wide in unary:
        op, ref = f"special.{name}", _scipy(name)
        lo, hi = region or (0.3, 6.0)
        for dt in (f32, f64):
            cases.append(OpCase(op, _inputs(((2, 3), dt, lo, hi)), ref, dt,
                                gradcheck=region is not None))
        cases.append(OpCase(op, _inputs(_fixed(wide, f64)), ref, "wide",
                            tol={f64: (1e-13, 0.0)}, gradcheck=False))
        cases.append(OpCase(op, _inputs(_fixed(_SPECIAL_FLOATS, f64)), ref, "special-values",
                            gradcheck=False))
    # betaln
    ref = _scipy("betaln")
    for dt in (f32, f64):
        cases.append(OpCase("special.betaln", _inputs(((2, 3), dt, 0.3, 6.0),
                                                      ((3,), dt, 0.3, 6.0)), ref, dt,
                            tol={f32: (1e-5, 1e-6)}))
    grid = [v for v in _SPECIAL_FLOATS for _ in _SPECIAL_FLOATS]
    cases.append(OpCase("special.betaln", _inputs(_fixed(grid, f64),
                                                  _fixed(_SPECIAL_FLOATS * 7, f64)),
                        ref, "special-values", gradcheck=False))
    cases.append(OpCase("special.betaln", _inputs(
        _fixed([-3.0, -3.0, -2.0, -2.5, 2e7, 400.0, -180.5, 0.5], f64),
        _fixed([2.0, 4.0, 1.0, 1.5, 3.5, 300.0, 1.2, 1e-300], f64)), ref, "wide",
        tol={f64: (1e-13, 1e-13)}, gradcheck=False))
    cases.append(OpCase("special.betaln", _inputs(((3,), f64, 0.3, 6.0), extra=(1.7,)), ref,
                        "python-scalar", tol={f64: (1e-13, 0.0)}))
    # poch
    ref = _scipy("poch")
    for dt in (f32, f64):
        cases.append(OpCase("special.poch", _inputs(((2, 3), dt, 0.3, 6.0),
                                                    ((3,), dt, -0.2, 3.0)), ref, dt,
                            tol={f32: (2e-5, 1e-6)}))
    cases.append(OpCase("special.poch", _inputs(_fixed(grid, f64),
                                                _fixed(_SPECIAL_FLOATS * 7, f64)),
                        ref, "special-values", gradcheck=False))
    cases.append(OpCase("special.poch", _inputs(
        _fixed([-3.0, -3.0, 2.0, -2.5, 1e5, -100.3, 0.5, -22.6, 250.5], f64),
        _fixed([2.0, -1.0, -2.0, 1.5, 0.5, 40.7, -1.5, -49.4, 3.0], f64)), ref, "wide",
        tol={f64: (1e-13, 0.0)}, gradcheck=False))
    cases.append(OpCase("special.poch", _inputs(((3,), f64, 0.3, 6.0), extra=(1.7,)), ref,
                        "python-scalar", tol={f64: (1e-13, 0.0)}))
    # binom
    ref = _scipy("binom")
    for dt in (f32, f64):
        cases.append(OpCase("special.binom", _inputs(((2, 3), dt, 2.0, 9.0),
                                                     ((3,), dt, 0.3, 2.0)), ref, dt,
                            tol={f32: (2e-5, 1e-6)}))
    cases.append(OpCase("special.binom", _inputs(_fixed(grid, f64),
                                                 _fixed(_SPECIAL_FLOATS * 7, f64)),
                        ref, "special-values", gradcheck=False))
    cases.append(OpCase("special.binom", _inputs(
        _fixed([3.0, 44.0, -3.08, 10.0, -28.3, 5.5, 1e12, 2.5], f64),
        _fixed([5.0, 21.0, 29.0, -2.0, 3.98, 19.0, 3.0, 1e9], f64)), ref, "wide",
        tol={f64: (1e-13, 0.0)}, gradcheck=False))
    cases.append(OpCase("special.binom", _inputs(((3,), f64, 2.0, 6.0), extra=(1.7,)), ref,
                        "python-scalar", tol={f64: (1e-13, 0.0)}))
    # polygamma(n, x): n a Python int (gradients in x), or an integer array (values)
    ref = as_dtype_of("polygamma")
    for n, dt in ((1, f32), (2, f64), (3, f64)):  # (torch: trigamma good to 5e-10 only)
        cases.append(OpCase("special.polygamma",
                            lambda rng, n=n, dt=dt: ((n, _arr(rng, (2, 3), dt, 0.3, 6.0)), {}),
                            ref, f"n{n}-{dt}", tol={f32: (2e-5, 1e-6)}))
    cases.append(OpCase("special.polygamma",
                        lambda rng: ((np.asarray([2, 3, 5], dtype="int64"),
                                      _arr(rng, (2, 3), f64, 0.3, 6.0)), {}),
                        ref, "int-array-n"))
    cases.append(OpCase("special.polygamma",
                        lambda rng: ((np.asarray([[0.0], [2.0], [4.0]]),
                                      np.asarray([-2.5, -1.3, 0.7, 3.0, 40.0])), {}),
                        ref, "float-array-n", gradcheck=False))
    cases.append(OpCase("special.polygamma",
                        lambda rng: ((2, np.asarray(_SPECIAL_FLOATS + [-2.5, 1e300])), {}),
                        ref, "special-values", gradcheck=False))
    # zeta(x, q): x a Python float (gradients in q), both arrays (values), Riemann's (q None)
    ref = as_dtype_of("zeta")
    for dt in (f32, f64):
        cases.append(OpCase("special.zeta",
                            lambda rng, dt=dt: ((2.5, _arr(rng, (2, 3), dt, 0.3, 6.0)), {}),
                            ref, f"q-{dt}", tol={f32: (2e-5, 1e-6)}))
    cases.append(OpCase("special.zeta", _inputs(((2, 3), f64, 1.5, 6.0),
                                                ((3,), f64, 0.3, 6.0)), ref, "both",
                        gradcheck=False))
    cases.append(OpCase("special.zeta", _inputs(
        _fixed([3.0, 4.0, 2.0, 11.0, 1.5, 400.0], f64),
        _fixed([-2.5, -0.7, -30.2, -170.45, 1e9, 0.5], f64)), ref, "wide",
        tol={f64: (1e-12, 0.0)}, gradcheck=False))
    cases.append(OpCase("special.zeta", _inputs(_fixed(grid, f64),
                                                _fixed(_SPECIAL_FLOATS * 7, f64)),
                        ref, "special-values", gradcheck=False))
    cases.append(OpCase("special.zeta", _inputs(((2, 3), f64, 1.5, 6.0)), _scipy("zeta"),
                        "riemann", gradcheck=False))
    # multigammaln(a, d): d a Python int
    ref = as_dtype_of("multigammaln", 0)
    for dt in (f32, f64):
        cases.append(OpCase("special.multigammaln", _inputs(((2, 3), dt, 3.0, 8.0), extra=(3,)),
                            ref, dt, tol={f32: (1e-5, 1e-6)}))
    cases.append(OpCase("special.multigammaln", _inputs(((4,), f64, 0.6, 4.0), extra=(1,)),
                        ref, "d1"))
    return cases


def _special_incomplete_cases():
    """Cases of :mod:`arrayflow.ops.special_incomplete` (SciPy references).

    A shape parameter without a derivative (``a`` of ``gammainc``, ...) is a Python scalar in
    the gradient-checked cases (as a float64 array it would be a gradcheck leaf, and its
    backward raises ``NotImplementedError``); the cases with it as an array are value-only."""
    # (op, parameters: "s" shape (scalar in gradient cases), "i" integer-valued, "x" smooth
    #  differentiable; gradient region per parameter; wide grid of argument tuples)
    table = [
        ("gammainc", [("s", 2.5), ("x", (0.5, 4.0))],
         [(1e-3, 1e-3), (0.5, 0.3), (1.0, 1.05), (5.0, 2.0), (19.9, 24.0), (25.0, 30.0),
          (150.0, 140.0), (500.0, 600.0), (30.0, 4e-5), (0.2, 40.0), (1e-6, 0.5)]),
        ("gammaincc", [("s", 2.5), ("x", (0.5, 4.0))],
         [(1e-3, 1e-3), (0.5, 0.3), (1.0, 1.05), (5.0, 2.0), (19.9, 24.0), (25.0, 30.0),
          (150.0, 140.0), (500.0, 600.0), (30.0, 4e-5), (0.2, 40.0), (1e-6, 0.5)]),
        ("chdtr", [("s", 3.0), ("x", (0.5, 6.0))],
         [(1.0, 0.1), (3.0, 2.0), (10.0, 30.0), (60.0, 50.0), (400.0, 420.0), (0.5, 1e-4)]),
        ("chdtrc", [("s", 3.0), ("x", (0.5, 6.0))],
         [(1.0, 0.1), (3.0, 2.0), (10.0, 30.0), (60.0, 50.0), (400.0, 420.0), (0.5, 1e-4)]),
        ("gdtr", [("x", (0.5, 2.0)), ("s", 2.5), ("x", (0.5, 3.0))],
         [(1.0, 0.5, 0.2), (2.0, 3.0, 1.5), (0.5, 40.0, 70.0), (3.0, 300.0, 90.0),
          (1e-3, 2.0, 5.0)]),
        ("gdtrc", [("x", (0.5, 2.0)), ("s", 2.5), ("x", (0.5, 3.0))],
         [(1.0, 0.5, 0.2), (2.0, 3.0, 1.5), (0.5, 40.0, 70.0), (3.0, 300.0, 90.0),
          (1e-3, 2.0, 5.0)]),
        ("pdtr", [("i", [0.5, 1.4, 2.3, 4.7, 7.6, 10.2]), ("x", (0.5, 6.0))],
         [(0.0, 0.5), (2.0, 3.0), (2.9, 3.0), (20.0, 15.0), (150.0, 180.0), (5.0, 0.0)]),
        ("pdtrc", [("i", [0.5, 1.4, 2.3, 4.7, 7.6, 10.2]), ("x", (0.5, 6.0))],
         [(0.0, 0.5), (2.0, 3.0), (2.9, 3.0), (20.0, 15.0), (150.0, 180.0), (5.0, 0.0)]),
    ]
    beta_wide = [(0.5, 0.5, 0.3), (2.0, 3.0, 0.999), (1e-3, 9.0, 0.4), (30.0, 40.0, 0.45),
                 (400.0, 350.0, 0.55), (5.0, 1e-3, 0.99), (2.5, 7.0, 1e-9)]
    n_k = [12.5, 15.5, 11.5, 20.5, 13.5, 30.5]  # integer parts 12, 15, ... (truncated)
    table += [
        (name, [("s", 2.5), ("s", 3.5), ("x", (0.05, 0.95))], beta_wide)
        for name in ("betainc", "betaincc")
    ] + [
        (name, [("i", [0.5, 1.4, 2.3, 4.7, 7.6, 10.2]), ("i", n_k), ("x", (0.05, 0.95))],
         [(0.0, 10.0, 0.3), (3.0, 10.0, 0.999), (7.0, 40.0, 0.1), (60.0, 300.0, 0.2),
          (9.0, 9.0, 0.5), (2.5, 5.0, 1e-6)])
        for name in ("bdtr", "bdtrc", "nbdtr", "nbdtrc")
    ] + [
        (name, [("s", 3.0), ("s", 5.0), ("x", (0.2, 4.0))],
         [(1.0, 1.0, 0.5), (3.0, 5.0, 40.0), (10.0, 2.0, 1e-4), (200.0, 300.0, 1.1),
          (0.5, 60.0, 3.0)])
        for name in ("fdtr", "fdtrc")
    ] + [
        ("stdtr", [("s", 3.5), ("x", (-3.0, 3.0))],
         [(0.05, -3.0), (1.0, 0.5), (3.5, -40.0), (30.0, 2.0), (100.0, -5.0), (1e4, 1.5),
          (1e10, -3.0), (2.5, 1e6)]),
        ("stdtrit", [("s", 3.5), ("x", (0.05, 0.95))],
         [(0.05, 0.3), (1.0, 0.9), (3.5, 1e-10), (30.0, 0.5 - 1e-9), (100.0, 0.999),
          (1e4, 1e-30), (1e10, 0.2), (2.5, 1e-100)]),
    ]
    # stdtrit: a Newton solve, within 5e-13 of SciPy (docs/special.md)
    return _special_table_cases(table, fixes={"stdtrit": _stdtrit_reference_fix},
                                rtol={"stdtrit": (5e-13, 2e-13)})


def _stdtrit_reference_fix(args, out):
    # SciPy 1.17 (Boost) gives +inf at p = 0 (and at p = 5e-324 for df = 3); the quantile at
    # p = 0 is the support's lower end, -inf: docs/special.md
    df, pr = np.broadcast_arrays(*args)
    return np.where((pr == 0) & (df > 0), -np.inf, out)


def _special_table_cases(table, fixes=None, rtol=None):
    """Op-table cases of element-wise ``arrayflow.special`` functions with SciPy references,
    from ``table``: ``(name, parameters, wide)`` with each parameter ``("s", value)`` (a
    shape parameter: a Python scalar in the gradient-checked cases), ``("i", values)``
    (integer-valued, a fixed array) or ``("x", (lo, hi))`` (differentiable, drawn from the
    range), and ``wide`` a list of argument tuples checked by value. Per op: float32 and
    float64 cases (gradient-checked), every argument an array (value-only), the wide values
    and a grid of special values. ``fixes``: ``name -> f(args, scipy_out)`` where the
    reference departs from SciPy (documented differences); ``rtol``: ``name -> (float64
    tolerance, of the wide values)`` other than ``(1e-13, 2e-13)``."""
    import itertools

    f32, f64 = "float32", "float64"
    fixes, rtol = fixes or {}, rtol or {}
    cases = []

    def ref_for(name):
        # SciPy's loops put a Python-float operand in float64; arrayflow keeps the arrays'
        # dtype (PyTorch's rule for Python scalars): the reference rounds to it
        fn, fix = _scipy(name), fixes.get(name)

        def ref(*args):
            out = fn(*args)
            if fix is not None:
                out = fix(args, out)
            return out.astype(np.result_type(*[a for a in args if isinstance(a, np.ndarray)]))
        ref.__name__ = name
        return ref

    for name, params, wide in table:
        op, ref = f"special.{name}", ref_for(name)

        def make(dt, params=params, shape=(2, 3)):
            def mk(rng):
                args = []
                for kind, spec in params:
                    if kind == "s":
                        args.append(spec)
                    elif kind == "i":
                        args.append(np.asarray(spec, dtype=dt).reshape(shape))
                    else:
                        args.append(_arr(rng, shape, dt, *spec))
                return tuple(args), {}
            return mk

        def arrays(rng, params=params):
            # every parameter an array (value-only: the shape parameter has no derivative)
            args = []
            for k, (kind, spec) in enumerate(params):
                shape = (3,) if k == 0 else (2, 3)
                lo, hi = (1.0, 6.0) if kind == "s" else (0.0, 8.0) if kind == "i" else spec
                args.append(_arr(rng, shape, f64, lo, hi))
            return tuple(args), {}

        cases.append(OpCase(op, make(f32), ref, f32, tol={f32: (2e-5, 1e-6)}))
        rt, wide_rt = rtol.get(name, (1e-13, 2e-13))
        cases.append(OpCase(op, make(f64), ref, f64, tol={f64: (rt, 0.0)}))
        cases.append(OpCase(op, arrays, ref, "arrays", tol={f64: (rt, 0.0)},
                            gradcheck=False))
        cols = list(zip(*wide))
        cases.append(OpCase(op, _inputs(*[_fixed(list(c), f64) for c in cols]), ref, "wide",
                            tol={f64: (wide_rt, 0.0)}, gradcheck=False))
        n = len(params)
        grid = list(itertools.product(_SPECIAL_FLOATS, repeat=n)) if n == 2 else \
            list(itertools.product([0.0, 1.5, -2.0, math.inf, math.nan], repeat=n))
        cols = list(zip(*grid))
        cases.append(OpCase(op, _inputs(*[_fixed(list(c), f64) for c in cols]), ref,
                            "special-values", gradcheck=False))
    return cases


# arrayflow.special Bessel family: (name, (lo, hi) of a smooth region, wide values). j0, j1,
# y0, y1 stay within |x| <= 3 here: beyond, torch.special.bessel_j0 & co. (the oracle) lose
# accuracy in float64 (2e-9 relative at 3.5, 6e-8 at 4.5, 7e-6 past 5);
# tests/test_special_bessel.py checks them everywhere against SciPy and mpmath.
_SPECIAL_BESSEL = [
    ("j0", (-3, 3), [-3.0, -2.404825557695773, -1e-5, 1e-300, 0.7, 2.9]),
    ("j1", (-3, 3), [-3.0, -1.5, -1e-300, 1e-5, 0.7, 2.9]),
    ("y0", (0.5, 3), [1e-300, 0.1, 0.8935769662791675, 2.0, 2.9]),
    ("y1", (0.5, 3), [1e-300, 0.1, 2.197141326031017, 2.5, 2.9]),
    ("k0", (0.3, 10), [1e-300, 1e-5, 0.5, 1.99, 2.0, 2.01, 30.0, 700.0, 800.0]),
    ("k0e", (0.3, 10), [1e-300, 1e-5, 0.5, 1.99, 2.0, 2.01, 30.0, 700.0, 1e300]),
    ("k1", (0.3, 10), [1e-300, 1e-5, 0.5, 1.99, 2.0, 2.01, 30.0, 700.0, 800.0]),
    ("k1e", (0.3, 10), [1e-300, 1e-5, 0.5, 1.99, 2.0, 2.01, 30.0, 700.0, 1e300]),
    ("exp1", (0.1, 5), [1e-300, 1e-5, 0.5, 1.0, 1.01, 3.0, 50.0, 700.0, 800.0]),
    ("expi", (-5, 5), [-800.0, -50.0, -1.0, -1e-300, 1e-300, 0.3725, 1.0, 2.0, 2.01, 16.0,
                       16.5, 40.0, 700.0, 709.7]),  # SciPy's Ei is inf past 709.78 (ours
    # stays finite to 716.35: docs/special.md), so the reference stops there
    ("spence", (0.05, 5), [1e-300, 0.1, 0.4999, 0.5, 0.9, 1.0, 1.2, 1.5, 1.51, 3.0, 1e10,
                           1e300]),
    ("ellipk", (-3, 0.95), [-1e300, -1e10, -1.0, 0.0, 1e-20, 0.3, 0.5, 0.99, 1 - 1e-15, 1.0]),
    ("ellipkm1", (0.05, 3), [1e-300, 1e-15, 0.01, 0.5, 1.0, 2.0, 1e10, 1e300]),
]


def _in_x_dtype(ref):
    """``ref(n, x)`` rounded to ``x``'s floating dtype."""
    def rounded(n, x):
        return np.asarray(ref(n, x)).astype(np.asarray(x).dtype)
    rounded.__name__ = ref.__name__
    return rounded


def _special_bessel_cases():
    """Cases of :mod:`arrayflow.ops.special_bessel` (SciPy references)."""
    cases = []
    for name, (lo, hi), wide in _SPECIAL_BESSEL:
        op, ref = f"special.{name}", _scipy(name)
        for dt in ("float32", "float64"):
            cases.append(OpCase(op, _inputs(((2, 3), dt, lo, hi)), ref, dt))
        cases.append(OpCase(op, _inputs(_fixed(wide, "float64")), ref, "wide",
                            tol={"float64": (1e-13, 1e-16)}, gradcheck=False))
        cases.append(OpCase(op, _inputs(_fixed(_SPECIAL_FLOATS, "float64")), ref,
                            "special-values", gradcheck=False))
    # yn(n, x): the order n a Python int
    # SciPy's NumPy loop for (int, float32) is 'ld->d' (float64); arrayflow keeps the
    # floating argument's dtype (a Python-int order is weak, as in the array API standard):
    # the references are rounded to it (docs/special.md)
    ref = _in_x_dtype(_scipy("yn"))
    for n, dt in ((0, "float64"), (1, "float32"), (3, "float64"), (-4, "float64")):
        cases.append(OpCase("special.yn", lambda rng, n=n, dt=dt: (
            (n, _arr(rng, (2, 3), dt, 0.5, 10)), {}), ref, f"n{n}-{dt}"))
    cases.append(OpCase("special.yn", lambda rng: ((5, np.asarray(
        [0.0, -1.0, 1e-300, 0.5, 7.0, 100.0, 1e3, float("nan"), float("inf")])), {}), ref,
        "wide", tol={"float64": (1e-13, 1e-16)}, gradcheck=False))
    # expn(n, x): n a Python int or an integer array, broadcast with x
    ref = _in_x_dtype(_scipy("expn"))
    for n, dt in ((0, "float64"), (1, "float32"), (3, "float64"), (60, "float64")):
        cases.append(OpCase("special.expn", lambda rng, n=n, dt=dt: (
            (n, _arr(rng, (2, 3), dt, 0.2, 4)), {}), ref, f"n{n}-{dt}"))
    cases.append(OpCase("special.expn", lambda rng: ((np.arange(6, dtype=np.int64).reshape(
        2, 3), _arr(rng, (3,), "float64", 0.2, 4)), {}), ref, "array-n"))
    cases.append(OpCase("special.expn", lambda rng: ((np.asarray(
        [0, 1, 2, 5, 2, 0, 1, 3, -1, 2]), np.asarray(
        [0.0, 0.0, 0.0, 1e-300, 1.0, 700.0, 800.0, float("inf"), 1.0, float("nan")])), {}),
        ref, "wide", tol={"float64": (1e-13, 1e-300)}, gradcheck=False))
    return cases


def _out_of_unit_interval_is_nan(k):
    """A reference fix: NaN where argument ``k`` (a probability) is outside ``[0, 1]``
    (SciPy 1.17 returns 0 for some such arguments with a shape parameter ``-0.0``, e.g.
    ``gammaincinv(-0.0, 1.5)``: docs/special.md)."""
    def fix(args, out):
        y = np.broadcast_arrays(*args)[k]
        return np.where((y < 0) | (y > 1), np.nan, out)
    return fix


def _special_inverse_gamma_cases():
    """Cases of :mod:`arrayflow.ops.special_inverse_gamma` (SciPy references): the wide
    values reach far tails (``y`` down to 1e-300) and the shape parameter from 1e-3 to 1e4;
    float64 within 1e-12 of SciPy (the quantile's condition number ``1/a`` in the lower tail
    multiplies the rounding of ``gammainc``: docs/special.md)."""
    ys = (0.05, 0.95)
    table = [
        (name, [("s", 2.5), ("x", ys)],
         [(1e-3, 0.3), (0.5, 1e-300), (1.0, 0.5), (2.5, 1 - 1e-12), (25.0, 1e-20),
          (150.0, 0.999), (1e4, 1e-100), (3.0, 1e-5)])
        for name in ("gammaincinv", "gammainccinv")
    ] + [
        ("chdtri", [("s", 3.0), ("x", ys)],
         [(1.0, 0.2), (0.2, 1e-300), (3.0, 0.999), (40.0, 1e-12), (600.0, 0.5)]),
        ("pdtri", [("i", [0.5, 1.4, 2.3, 4.7, 7.6, 10.2]), ("x", ys)],
         [(0.0, 0.3), (2.9, 1e-300), (5.0, 0.999), (150.0, 1e-20), (3e3, 0.5)]),
    ]
    fixes = {name: _out_of_unit_interval_is_nan(1)
             for name in ("gammaincinv", "gammainccinv", "chdtri", "pdtri")}
    return _special_table_cases(table, fixes=fixes,
                                rtol={name: (1e-12, 1e-12) for name in fixes})


def _special_inverse_beta_cases():
    """Cases of :mod:`arrayflow.ops.special_inverse_beta` (SciPy references): the wide
    values reach ``y`` = 1e-100 and shape parameters from 0.01 to 1000 where SciPy is right
    (it is off by up to 8e-13 at some large ``n`` of bdtri/nbdtri and far tails of
    betaincinv, and floors tiny quantiles: tests/test_special_inverse_beta.py); float64
    within 1e-12 of SciPy (the quantile's condition number, up to ``1/a`` in the lower
    tail, multiplies the rounding of ``betainc``: docs/special.md)."""
    ys = (0.05, 0.95)
    n_k = [12.5, 15.5, 11.5, 20.5, 13.5, 30.5]  # integer parts 12, 15, ... (truncated)
    table = [
        ("betaincinv", [("s", 2.5), ("s", 3.5), ("x", ys)],
         [(0.5, 0.5, 0.3), (2.0, 3.0, 0.999), (0.01, 9.0, 0.4), (30.0, 40.0, 0.45),
          (400.0, 350.0, 1e-5), (5.0, 0.01, 0.99), (2.5, 7.0, 1e-9), (1e3, 1.0, 0.5),
          (0.05, 800.0, 0.97), (0.7, 2.0, 1e-100)]),
        ("fdtri", [("s", 3.0), ("s", 5.0), ("x", ys)],
         [(1.0, 1.0, 0.5), (3.0, 5.0, 0.999), (10.0, 2.0, 1e-4), (200.0, 300.0, 0.3),
          (0.5, 60.0, 1e-30), (4.0, 0.2, 0.9), (1e3, 5e3, 1e-10)]),
    ] + [
        (name, [("i", [0.5, 1.4, 2.3, 4.7, 7.6, 10.2]), ("i", n_k), ("x", ys)],
         [(0.0, 10.0, 0.3), (3.0, 10.0, 0.999), (7.0, 40.0, 0.1), (60.0, 300.0, 1e-20),
          (8.0, 9.0, 0.5), (2.5, 5.0, 1e-6)])
        for name in ("bdtri", "nbdtri")
    ]
    return _special_table_cases(table, rtol={name: (1e-12, 1e-12) for name in
                                             ("betaincinv", "bdtri", "fdtri", "nbdtri")})


def _special_hyper_cases():
    """Cases of :mod:`arrayflow.ops.special_hyper` (SciPy references).

    ``a``, ``b`` of ``hyp1f1`` and ``m``, ``v`` of ``lpmv`` are Python scalars in the
    gradient-checked cases (``a``, ``b``, ``v`` have no derivative: NotImplementedError at
    backward; a perturbed ``m`` is not an integer: NaN). No infinite ``x`` for ``hyp1f1``:
    SciPy's Boost does not return for some (``hyp1f1(3, 1.5, inf)``)."""
    import itertools

    f32, f64 = "float32", "float64"

    def ref_for(name):
        fn = _scipy(name)

        def ref(*args):  # SciPy computes in float64; rounded to the arrays' dtype
            out = np.asarray(fn(*args))
            return out.astype(np.result_type(*[a for a in args if isinstance(a, np.ndarray)]))
        ref.__name__ = name
        return ref

    h, lp = ref_for("hyp1f1"), ref_for("lpmv")
    nan = float("nan")
    cases = []
    for dt in (f32, f64):
        cases.append(OpCase("special.hyp1f1", lambda rng, dt=dt: (
            (0.7, 1.9, _arr(rng, (2, 3), dt, -4.0, 4.0)), {}), h, dt,
            tol={f32: (2e-5, 1e-6), f64: (1e-13, 0.0)}))
        cases.append(OpCase("special.lpmv", lambda rng, dt=dt: (
            (2, 3.5, _arr(rng, (2, 3), dt, -0.9, 0.9)), {}), lp, dt,
            tol={f32: (2e-5, 1e-6), f64: (1e-12, 0.0)}))
    cases.append(OpCase("special.hyp1f1", lambda rng: ((-1.5, 2.5, _arr(rng, (3,), f64, 12, 40)),
                                                       {}), h, "large-x",
                        tol={f64: (1e-12, 0.0)}))
    cases.append(OpCase("special.lpmv", lambda rng: ((0, 7.0, _arr(rng, (3,), f64, -1, 1)), {}),
                        lp, "integer-degree", tol={f64: (1e-12, 1e-15)}))
    cases.append(OpCase("special.hyp1f1", lambda rng: (
        (_arr(rng, (3,), f64, -3, 3), _arr(rng, (2, 1), f64, 0.5, 4),
         _arr(rng, (2, 3), f64, -20, 20)), {}), h, "arrays", tol={f64: (1e-12, 0.0)},
        gradcheck=False))
    cases.append(OpCase("special.lpmv", lambda rng: (
        (np.asarray([0.0, 1.0, -2.0]), _arr(rng, (2, 1), f64, -6, 6),
         _arr(rng, (2, 3), f64, -0.99, 0.99)), {}), lp, "arrays", tol={f64: (1e-11, 1e-14)},
        gradcheck=False))
    wide_h = [(0.5, 1.5, -700.0), (2.0, 3.0, 650.0), (-2.5, 4.0, 30.0), (30.0, 2.0, 25.0),
              (-7.0, 2.0, 40.0), (1.0, -2.5, 10.0), (4.0, 4.0, 100.0), (-3.0, -5.0, 2.0),
              (1e-3, 80.0, -60.0)]
    cases.append(OpCase("special.hyp1f1", _inputs(*[_fixed(list(c), f64) for c in zip(*wide_h)]),
                        h, "wide", tol={f64: (1e-12, 0.0)}, gradcheck=False))
    wide_l = [(0.0, 150.0, 0.3), (3.0, 40.0, -0.999), (-2.0, 10.0, 0.5), (1.0, 2.5, -0.2),
              (2.0, -3.5, 0.7), (0.0, 0.5, -0.99), (5.0, 5.0, 1.0), (1.0, 3.0, -1.0)]
    cases.append(OpCase("special.lpmv", _inputs(*[_fixed(list(c), f64) for c in zip(*wide_l)]),
                        lp, "wide", tol={f64: (1e-12, 1e-15)}, gradcheck=False))
    vals = [0.0, -0.0, 1.5, -2.0, -1.0, 3.0, nan]
    cols = list(zip(*itertools.product(vals, repeat=3)))
    cases.append(OpCase("special.hyp1f1", _inputs(*[_fixed(list(c), f64) for c in cols]), h,
                        "special-values", gradcheck=False))
    lvals = [(m, v, x) for m in (0.0, 1.0, -2.0, 1.5, nan) for v in (0.0, 2.0, -2.5, 3.5, nan)
             for x in (0.0, 1.0, -1.0, 0.5, nan)]
    cols = list(zip(*lvals))
    cases.append(OpCase("special.lpmv", _inputs(*[_fixed(list(c), f64) for c in cols]), lp,
                        "special-values", gradcheck=False))
    return cases


def _special_elementary_cases():
    """Cases of :mod:`arrayflow.ops.special_elementary` (SciPy references)."""
    # (name, (lo, hi) of a smooth region, wide values)
    unary = [
        ("cbrt", (0.2, 3), [-1e300, -27.0, -8.0, -1e-300, 5e-324, 1e-5, 27.0, 1000.0, 1e300]),
        ("exp2", (-5, 5), [-1074.0, -1024.5, -1024.0, -3.5, 0.5, 10.0, 1023.9, 1025.0]),
        ("exp10", (-3, 3), [-310.0, -307.5, -3.0, 0.3, 3.0, 22.0, 308.2, 309.0]),
        ("sindg", (-400, 400),
         [-1e15, -1e14, -180.0, -90.0, 30.0, 45.0, 180.0, 270.0, 1e13 + 30]),
        ("cosdg", (-400, 400),
         [-1e15, -1e14, -180.0, -90.0, 60.0, 45.0, 180.0, 270.0, 1e13 + 60]),
        ("tandg", (-80, 80), [-1e15, -270.0, -90.0, -45.0, 45.0, 89.99, 90.0, 135.0, 180.0]),
        ("cotdg", (10, 170), [-1e15, -180.0, -90.0, -45.0, 0.01, 45.0, 90.0, 135.0, 180.0]),
        ("cosm1", (-3, 3), [-1e300, -3.0, -0.785, 1e-20, 0.7853981633974483, 0.8, 6.28, 1e5]),
        ("exprel", (-3, 3),
         [-800.0, -710.0, -1.0, -1e-17, 1e-10, 0.49, 0.51, 709.0, 710.0, 718.0]),
        ("erfcx", (-3, 3),
         [-27.0, -26.7, -26.0, -6.2, -1.0, 0.5, 1.3, 3.0, 30.0, 51.0, 1e8, 1e300]),
    ]
    cases = []
    for name, (lo, hi), wide in unary:
        op, ref = f"special.{name}", _scipy(name)
        for dt in ("float32", "float64"):
            cases.append(OpCase(op, _inputs(((2, 3), dt, lo, hi)), ref, dt))
        cases.append(OpCase(op, _inputs(_fixed(wide, "float64")), ref, "wide",
                            tol={"float64": (1e-13, 0.0)}, gradcheck=False))
        cases.append(OpCase(op, _inputs(_fixed(_SPECIAL_FLOATS, "float64")), ref,
                            "special-values", gradcheck=False))
    cases.append(OpCase("special.cbrt", _inputs(((2, 3), "float64", -3, -0.2)), _scipy("cbrt"),
                        "negative"))
    cases.append(OpCase("special.exprel", _inputs(((2, 3), "float64", -0.4, 0.4)),
                        _scipy("exprel"), "series"))
    cases.append(OpCase("special.erfcx", _inputs(((2, 3), "float64", 51, 80)),
                        _scipy("erfcx"), "far"))
    # binary: (name, (lo, hi) of the first operand, (lo, hi) of the second)
    binary = [("boxcox", (0.2, 3), (-2, 2)), ("boxcox1p", (-0.5, 3), (-2, 2)),
              ("inv_boxcox", (0.1, 2), (-0.3, 1)), ("inv_boxcox1p", (0.1, 2), (-0.3, 1)),
              ("huber", (0.5, 2), (-3, 3)), ("pseudo_huber", (0.5, 2), (-3, 3)),
              ("kl_div", (0.2, 3), (0.2, 3))]
    specials = _SPECIAL_FLOATS
    grid = [v for v in specials for _ in specials]
    for name, (lo1, hi1), (lo2, hi2) in binary:
        op, ref = f"special.{name}", _scipy(name)
        for dt in ("float32", "float64"):
            cases.append(OpCase(op, _inputs(((2, 3), dt, lo1, hi1), ((3,), dt, lo2, hi2)), ref,
                                dt))
        cases.append(OpCase(op, _inputs(_fixed(grid, "float64"),
                                        _fixed(specials * len(specials), "float64")),
                            ref, "special-values", gradcheck=False))
        cases.append(OpCase(op, _inputs(((3,), "float64", lo1, hi1), extra=(0.7,)), ref,
                            "python-scalar", tol={"float64": (1e-13, 0.0)}))
    for name in ("boxcox", "boxcox1p", "inv_boxcox", "inv_boxcox1p"):  # near lmbda = 0
        cases.append(OpCase(f"special.{name}", _inputs(((2, 3), "float64", 0.1, 2),
                                                       ((3,), "float64", -0.05, 0.05)),
                            _scipy(name), "small-lmbda"))
    cases.append(OpCase("special.radian", _inputs(((2, 3), "float64", -90, 90),
                                                  ((3,), "float64", -60, 60),
                                                  ((1,), "float64", -60, 60)),
                        _scipy("radian"), "float64"))
    cases.append(OpCase("special.radian", _inputs(((2, 3), "float32", -90, 90),
                                                  ((3,), "float32", -60, 60),
                                                  ((2, 3), "float32", -60, 60)),
                        _scipy("radian"), "float32"))
    cases.append(OpCase("special.radian", _inputs(((3,), "float64", -90, 90), extra=(30, 1.5)),
                        _scipy("radian"), "python-scalar"))
    cases.append(OpCase("special.radian", _inputs(_fixed(specials, "float64"),
                                                  _fixed(specials[::-1], "float64"),
                                                  _fixed([1.0] * len(specials), "float64")),
                        _scipy("radian"), "special-values", gradcheck=False))
    return cases


def _scipy_special_cases():
    cases = []
    for name, (lo, hi), wide, arity in _SCIPY_SPECIAL:
        op, ref = f"special.{name}", _scipy(name)
        shapes = [((2, 3),), ((2, 3), (3,))][arity - 1]
        for dt in ("float32", "float64"):
            cases.append(OpCase(op, _inputs(*[(s, dt, lo, hi) for s in shapes]), ref, dt))
        specials = _SPECIAL_FLOATS
        if arity == 1:
            cases.append(OpCase(op, _inputs(_fixed(wide, "float64")), ref, "wide",
                                tol={"float64": (1e-13, 0.0)}, gradcheck=False))
            cases.append(OpCase(op, _inputs(_fixed(specials, "float64")), ref,
                                "special-values", gradcheck=False))
        else:
            grid = [v for v in specials for _ in specials]
            cases.append(OpCase(op, _inputs(_fixed(grid, "float64"),
                                            _fixed(specials * len(specials), "float64")),
                                ref, "special-values", gradcheck=False))
            cases.append(OpCase(op, _inputs(((3,), "float64", lo, hi), extra=(1.7,)), ref,
                                "python-scalar",
                                tol={"float64": (1e-13, 0.0)}))
    for name in ("softmax", "log_softmax", "logsumexp"):
        op, ref = f"special.{name}", _scipy(name)
        cases.append(OpCase(op, _inputs(((3, 4), "float64", -3, 3)), ref, "all-axes"))
        cases.append(OpCase(op, _inputs(((2, 3, 4), "float32", -3, 3), kwargs={"axis": 1}), ref,
                            "axis-float32"))
        cases.append(OpCase(op, _inputs(((2, 3, 4), "float64", -30, 30),
                                        kwargs={"axis": (0, 2)}), ref, "axes"))
        cases.append(OpCase(op, _inputs(_fixed([[0.0, -1000.0, 5.0], [-math.inf, -math.inf, 1.0]],
                                               "float64"), kwargs={"axis": -1}), ref,
                            "saturated", gradcheck=False))
    cases.append(OpCase("special.logsumexp", _inputs(((3, 4), "float64", -3, 3),
                                                     kwargs={"axis": 0, "keepdims": True}),
                        _scipy("logsumexp"), "keepdims"))
    cases.append(OpCase(
        "special.logsumexp",
        lambda rng: ((_arr(rng, (3, 4), "float64", -3, 3), 1, _arr(rng, (4,), "float64", 0.5, 2)),
                     {}),
        lambda x, axis, b: _scipy("logsumexp")(x, axis=axis, b=b), "weights"))
    return cases


def _einsum_cases():
    # reference: NumPy's einsum (PyTorch's semantics where both define the equation)
    def make(eq, *shapes, dtype="float64"):
        def mk(rng):
            return (eq,) + tuple(rng.standard_normal(s).astype(dtype) for s in shapes), {}
        return mk
    return [
        OpCase("einsum", make("ij,jk->ik", (2, 3), (3, 4)), label="matmul"),
        OpCase("einsum", make("ij,jk", (2, 3), (3, 4), dtype="float32"), label="implicit"),
        OpCase("einsum", make("ii->", (3, 3)), label="trace"),
        OpCase("einsum", make("ii->i", (3, 3)), label="diagonal"),
        OpCase("einsum", make("bij,bjk->bik", (2, 2, 3), (2, 3, 2)), label="batch"),
        OpCase("einsum", make("...ij,...jk->...ik", (2, 2, 3), (3, 2)), label="ellipsis"),
        OpCase("einsum", make("i,j->ij", (3,), (2,)), label="outer"),
        OpCase("einsum", make("ij,jk,kl->il", (2, 3), (3, 4), (4, 2)), label="chain"),
    ]


def _chunking_cases():
    # identities on values: rechunk/persist change layout and evaluation, never values
    f64 = "float64"
    return [
        OpCase("rechunk", _inputs(((5, 4), f64), extra=(2,)), lambda x, c: x, label="int"),
        OpCase("rechunk", _inputs(((6, 3), f64), extra=((4, -1),)), lambda x, c: x,
               label="per-axis"),
        OpCase("persist", _inputs(((3, 4), f64), ((2,), f64)), lambda *xs: tuple(xs),
               label="two", lazy=False, lazy_note="persist computes, by design"),
    ]


CASES: tuple[OpCase, ...] = tuple(
    _creation_cases() + _dtype_cases() + _elementwise_cases() + _linalg_cases()
    + _manipulation_cases() + _reduction_cases() + _searching_cases() + _fft_cases()
    + _special_cases() + _einsum_cases() + _chunking_cases()
)
"""Every case, grouped by op family."""


def cases_for(name: str) -> list[OpCase]:
    """The cases of the op ``name`` (``"exp"``, ``"linalg.det"``)."""
    return [c for c in CASES if c.op == name]


def missing_ops(ops: Any = None) -> list[str]:
    """Names of ops (default: every op in :data:`arrayflow.ops.OPS`) without a case."""
    if ops is None:
        ops = OPS
    covered = {c.op for c in CASES}
    return sorted(name for name in ops if name not in covered)
