"""The ``backend`` suite: checks a backend plug-in against NumPy.

Every check is generated from arrayflow's own test machinery, never from a
list kept here:

``forward``
    one check per case of :data:`arrayflow.testing.CASES` (``--quick``: the
    first case of each op): the op on the backend under test against the case's
    NumPy reference, on inputs drawn by Hypothesis. Element-wise functions get
    arrays from ``hypothesis.extra.array_api`` (over the NumPy namespace, special
    values included) in the case's dtypes and shapes; other cases draw the seed
    of the case's input generator. On lazy backends the call runs under
    :func:`arrayflow.testing.lazy.forbid_compute`; a case marked not lazy is held to
    what it declares (a data-dependent shape raises ``DataDependentShapeError``, then
    computes under ``allow_compute()``; ``lazy_raises`` is reported as skipped with its
    reason; otherwise it computes), and its result is compared with the reference.
``promotion``
    the standard's type promotion table (:mod:`arrayflow.testing.promotion`)
    through ``result_type`` and arithmetic, and Python scalar operands.
``devices``, ``dlpack``
    device attributes and placement; DLPack import, export and round trips
    through NumPy on Hypothesis-generated arrays.
``laziness``
    (lazy backends) a forward and backward pass that must not compute, and a
    check that the compute trap itself fires.
``gradcheck``, ``gradgradcheck``
    finite-difference checks of every differentiable op
    (:data:`arrayflow.testing.grad.GRAD_CASES`).
``vjp``
    the same vector-Jacobian product on this backend and on NumPy, on inputs
    drawn by Hypothesis (the case generator's seed).

:func:`plan` lists the checks, :func:`run_check` runs one and returns a
:class:`~arrayflow_conformance.results.CheckResult`, :func:`run` runs them all
into a :class:`~arrayflow_conformance.results.Report`. The pytest plugin
reuses :func:`plan` and :func:`run_check`.
"""

from __future__ import annotations

import contextlib
import fnmatch
import shlex
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .results import CheckResult, Report

__all__ = ["ALL_DTYPES", "Check", "Context", "SkipCheck", "make_context", "plan", "run",
           "run_check"]

ALL_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float32", "float64", "complex64", "complex128")
"""Dtype names ``--dtypes`` accepts (the standard's dtypes)."""

#: Generated examples per Hypothesis check (the case's own input is always tried first).
EXAMPLES = {"quick": 2, "full": 10}
#: ``--quick`` on a lazy backend: gradcheck only cases with at most this many float64 input
#: elements (each element costs two computations of a graph).
QUICK_LAZY_GRADCHECK_ELEMENTS = 8
#: Draws searched for a smaller failing input once a check has failed on the case's own input.
SEARCH_EXAMPLES = 100


class SkipCheck(Exception):
    """Raised by a check that does not apply to the backend (the message says why)."""


class _Failed(Exception):
    """A check body failed; carries the (smallest) failing input."""

    def __init__(self, exc: BaseException, inputs: str):
        super().__init__(str(exc))
        self.exc = exc
        self.inputs = inputs


@dataclass
class Context:
    """What every check of one run shares.

    Attributes
    ----------
    backend_name : str
        The backend under test.
    quick : bool
        ``--quick``: fewer cases and examples.
    seed : int
        Hypothesis seed (``--seed``); the same seed gives the same inputs.
    dtypes : tuple of str
        Dtypes to check (``--dtypes``).
    """

    backend_name: str
    quick: bool = False
    seed: int = 0
    dtypes: tuple[str, ...] = ALL_DTYPES

    @property
    def backend(self):
        """The backend instance (``af.use_backend(name)``'s)."""
        import arrayflow as af

        with af.use_backend(self.backend_name) as b:
            return b

    @property
    def lazy(self) -> bool:
        return bool(self.backend.lazy)

    @property
    def mode(self) -> str:
        return "quick" if self.quick else "full"

    def repro(self, check: Check) -> str:
        """Shell command re-running only ``check`` with the same inputs."""
        parts = ["arrayflow-conformance", "backend", self.backend_name, "--seed", str(self.seed)]
        if self.quick:
            parts.append("--quick")
        if tuple(self.dtypes) != ALL_DTYPES:
            parts += ["--dtypes", *self.dtypes]
        parts += ["--only", check.id]
        return shlex.join(parts)

    def hypothesis(self, strategy, body: Callable[[Any], None], describe: Callable[[Any], str],
                   *, examples: int, explicit: tuple = ()) -> None:
        """Run ``body`` on the ``explicit`` values and on ``examples`` values from ``strategy``.

        When a check fails, Hypothesis searches (at least :data:`SEARCH_EXAMPLES`
        draws) for a failing drawn value and shrinks it: :class:`_Failed` is raised
        with ``describe`` of the smallest failing value found, else of the failing
        explicit value. The draws depend only on :attr:`seed`.
        """
        first = None
        for value in explicit:
            try:
                body(value)
            except SkipCheck:
                raise
            except Exception as e:
                first = _Failed(e, describe(value))
                break
        n = (max(examples, SEARCH_EXAMPLES) if first is not None else examples) if examples else 0
        if n:
            from hypothesis import HealthCheck, Phase, Verbosity, given, settings
            from hypothesis import seed as h_seed

            failing: dict[str, str] = {}

            def test(value):
                try:
                    body(value)
                except SkipCheck:
                    raise
                except Exception:
                    failing["inputs"] = describe(value)
                    raise

            t = settings(max_examples=n, deadline=None, database=None,
                         suppress_health_check=list(HealthCheck),
                         phases=(Phase.generate, Phase.shrink), verbosity=Verbosity.quiet,
                         report_multiple_bugs=False, print_blob=False)(given(strategy)(test))
            try:
                h_seed(self.seed)(t)()
            except SkipCheck:
                raise
            except Exception as e:
                raise _Failed(e, failing.get("inputs", "")) from e
        if first is not None:
            raise first from first.exc


@dataclass
class Check:
    """One check of the plan.

    Attributes
    ----------
    group : str
        Check family (``"forward"``, ``"gradcheck"``...), the report's grouping.
    name : str
        The op case or property checked (``"exp-float32"``).
    fn : callable
        ``fn(ctx)``; raises on failure, :class:`SkipCheck` when not applicable.
    """

    group: str
    name: str
    fn: Callable[[Context], None]

    @property
    def id(self) -> str:
        """``"group:name"``, what ``--only`` matches."""
        return f"{self.group}:{self.name}"


# --- describing inputs ----------------------------------------------------------------------

def _fmt(obj) -> str:
    import numpy as np

    from arrayflow.testing.cases import DTypeArg, Raw

    if isinstance(obj, Raw):
        return f"Raw({_fmt(obj.value)})"
    if isinstance(obj, DTypeArg):
        return f"af.{obj.name}"
    if isinstance(obj, np.ndarray):
        body = np.array2string(obj, separator=", ", threshold=64, max_line_width=2000,
                               floatmode="maxprec_equal")
        return f"array({body}, dtype={obj.dtype.name}, shape={obj.shape})"
    if isinstance(obj, tuple):
        return "(" + ", ".join(_fmt(v) for v in obj) + ("," if len(obj) == 1 else "") + ")"
    if isinstance(obj, list):
        return "[" + ", ".join(_fmt(v) for v in obj) + "]"
    if isinstance(obj, dict):
        return "{" + ", ".join(f"{k!r}: {_fmt(v)}" for k, v in obj.items()) + "}"
    return repr(obj)


def describe_call(op: str, sample, seed: int | None = None) -> str:
    """``"exp(array([...], dtype=float32, shape=(3,)))"`` (and the case seed, if drawn)."""
    args, kwargs = sample
    parts = [_fmt(a) for a in args] + [f"{k}={_fmt(v)}" for k, v in kwargs.items()]
    text = f"{op}({', '.join(parts)})"
    return text if seed is None else f"{text}  [case input seed {seed}]"


# --- forward ----------------------------------------------------------------------------------

def _array_dtypes(obj) -> set[str]:
    import numpy as np

    from arrayflow.testing.cases import Raw

    if isinstance(obj, Raw):
        return set()
    if isinstance(obj, np.ndarray):
        return {obj.dtype.name}
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (list, tuple)):
        return {d for v in obj for d in _array_dtypes(v)}
    return set()


def _elementwise(case) -> bool:
    """Whether the case's op is an element-wise function (its section in the op table)."""
    from arrayflow.ops import OPS

    return OPS[case.op].section == "elementwise"


def _xps():
    import array_api_compat.numpy as npx
    from hypothesis.extra.array_api import make_strategies_namespace

    return make_strategies_namespace(npx)


def _array_strategy(obj, xps):
    """Strategy replacing each real floating NumPy array of ``obj`` by generated ones."""
    import numpy as np
    from hypothesis import strategies as st

    if isinstance(obj, np.ndarray) and obj.dtype.kind == "f":
        return xps.arrays(dtype=obj.dtype, shape=obj.shape)
    if isinstance(obj, (tuple, list)):
        return st.tuples(*[_array_strategy(v, xps) for v in obj]).map(type(obj))
    if isinstance(obj, dict):
        return st.fixed_dictionaries({k: _array_strategy(v, xps) for k, v in obj.items()})
    return st.just(obj)


_RELATED_INPUTS = {"clip"}
"""Element-wise functions whose inputs must satisfy a relation (``clip``: ``min <= max``, else
the result is unspecified): they draw the case generator's seed instead of free arrays."""


def _case_inputs(case):
    """``(strategy, explicit examples, describe)`` for the inputs of ``case``.

    Strategy values are ``(case input seed or None, (args, kwargs))``.
    """
    from hypothesis import strategies as st

    base = case.sample(0)
    dtypes = _array_dtypes(base)
    if (_elementwise(case) and case.op not in _RELATED_INPUTS and case.values
            and case.check is None and dtypes and all(d.startswith("float") for d in dtypes)):
        strategy = st.tuples(st.none(), _array_strategy(base, _xps()))
    else:
        strategy = st.integers(0, 2**32 - 1).map(lambda s: (s, case.sample(s)))
    return strategy, ((0, base),), lambda v: describe_call(case.op, v[1], v[0])


def _outputs(result):
    from arrayflow.testing.cases import tensors_in

    return tensors_in(result)


def _not_lazy_call(case, a_args, a_kwargs, b):
    """The call of a case marked not lazy (``case.lazy`` False) on a lazy backend.

    What the case declares is asserted, as ``tests/test_ops_reference.py`` does; nothing
    passes by returning early:

    - a data-dependent output shape (``lazy_note`` is the case table's data-dependent
      note) raises :class:`arrayflow.DataDependentShapeError` without computing, and
      under ``allow_compute()`` gives the result (compared with the reference);
    - ``lazy_raises=(type, regex)``: the call raising that is the declared refusal, and
      the check is reported as skipped with the case's ``lazy_note`` (a backend that
      computes the call instead has its result compared with the reference); any other
      exception fails the check;
    - no declaration: the call computes (``bool()``, ``persist``) and its result is
      compared with the reference, as on an eager backend.
    """
    import re

    import arrayflow as af
    from arrayflow.ops import OPS
    from arrayflow.testing.cases import _NOT_LAZY_SHAPE
    from arrayflow.testing.lazy import forbid_compute

    fn = OPS[case.op]
    if case.lazy_note == _NOT_LAZY_SHAPE:
        try:
            with forbid_compute(b):
                fn(*a_args, **a_kwargs)
        except af.DataDependentShapeError:
            pass
        else:
            raise AssertionError(
                f"{case.id}: a data-dependent output shape on a lazy backend must raise "
                f"DataDependentShapeError outside allow_compute(); the call returned")
        with af.allow_compute():
            return fn(*a_args, **a_kwargs)
    if case.lazy_raises is not None:
        exc_type, pattern = case.lazy_raises
        try:
            return fn(*a_args, **a_kwargs)
        except exc_type as e:
            if not re.search(pattern, str(e)):
                raise
            raise SkipCheck(f"declared not lazy ({case.lazy_note}): raises "
                            f"{type(e).__name__} as the case declares") from e
    return fn(*a_args, **a_kwargs)


def _forward_once(case, sample, ctx: Context) -> None:
    import numpy as np

    from arrayflow.ops import OPS
    from arrayflow.testing import assert_matches, to_arrayflow, to_numpy
    from arrayflow.testing.lazy import forbid_compute

    args, kwargs = sample
    b = ctx.backend
    if b.lazy and not case.lazy:
        a_args, a_kwargs = to_arrayflow((args, kwargs))
        result = _not_lazy_call(case, a_args, a_kwargs, b)
    else:
        with forbid_compute(b) if b.lazy else contextlib.nullcontext():
            a_args, a_kwargs = to_arrayflow((args, kwargs))
            result = OPS[case.op](*a_args, **a_kwargs)
    n_args, n_kwargs = to_numpy((args, kwargs))
    with np.errstate(all="ignore"):
        expected = case.reference_fn()(*n_args, **n_kwargs)
    for t in _outputs(result):
        assert t.backend.name == ctx.backend_name, (
            f"{case.id}: result on backend {t.backend.name!r}, not {ctx.backend_name!r}")
        assert b.is_array(t.array), (
            f"{case.id}: result array is a {type(t.array).__module__}.{type(t.array).__name__}, "
            f"which the backend's is_array() does not recognise")
    with np.errstate(all="ignore"):
        assert_matches(case, result, expected)


def _forward_check(case) -> Callable[[Context], None]:
    def fn(ctx: Context) -> None:
        strategy, explicit, describe = _case_inputs(case)
        ctx.hypothesis(strategy, lambda v: _forward_once(case, v[1], ctx), describe,
                       examples=EXAMPLES[ctx.mode], explicit=explicit)
    return fn


def _select_cases(cases, ctx: Context, *, one_per_op: bool):
    seen: set[str] = set()
    out = []
    allowed = set(ctx.dtypes)
    for case in cases:
        if one_per_op and case.op in seen:
            continue
        dtypes = _array_dtypes(case.sample(0))
        if dtypes and not dtypes <= allowed:
            continue
        seen.add(case.op)
        out.append(case)
    return out


# --- promotion --------------------------------------------------------------------------------

def _promotion_check(d1: str, d2: str, result: str) -> Callable[[Context], None]:
    def fn(ctx: Context) -> None:
        import numpy as np

        import arrayflow as af

        with af.use_backend(ctx.backend_name):
            out = af.result_type(getattr(af, d1), getattr(af, d2))
            assert out is getattr(af, result), (
                f"result_type({d1}, {d2}) is {out}, the standard says {result}")
            x1 = np.asarray([1, 0, 1, 1], dtype=d1)
            x2 = np.asarray([1, 1, 0, 1], dtype=d2)
            t1, t2 = af.asarray(x1), af.asarray(x2)
            name, ref = (("logical_and", np.logical_and) if d1 == "bool"
                         else ("add", np.add))
            for what, got in ((f"{name}(x1, x2)", getattr(af, name)(t1, t2)),
                              ("x1 * x2" if d1 != "bool" else "x1 & x2",
                               t1 * t2 if d1 != "bool" else t1 & t2)):
                assert got.dtype is getattr(af, result), (
                    f"{what} with {d1}, {d2} gives {got.dtype}, the standard says {result}")
            expected = ref(x1.astype(result), x2.astype(result))
            np.testing.assert_array_equal(getattr(af, name)(t1, t2).numpy(), expected,
                                          strict=True)
    return fn


def _scalar_check(dtype: str) -> Callable[[Context], None]:
    """``array op scalar`` keeps the array's dtype (scalar of the array's kind)."""
    def fn(ctx: Context) -> None:
        import numpy as np

        import arrayflow as af

        kind = np.dtype(dtype).kind
        scalar = {"b": True, "i": 3, "u": 3, "f": 0.5, "c": 1 + 2j}[kind]
        x = np.asarray([1, 0, 1], dtype=dtype)
        with af.use_backend(ctx.backend_name):
            t = af.asarray(x)
            ops = ({"t & s": lambda: t & scalar, "s | t": lambda: scalar | t} if kind == "b"
                   else {"t + s": lambda: t + scalar, "s * t": lambda: scalar * t,
                         "add(t, s)": lambda: af.add(t, scalar)})
            for what, call in ops.items():
                out = call()
                assert out.dtype.name == dtype, (
                    f"{what} with a {dtype} Tensor and the Python scalar {scalar!r} gives "
                    f"{out.dtype}, the standard says {dtype}")
    return fn


# --- devices and DLPack -----------------------------------------------------------------------

def _devices(ctx: Context) -> None:
    import numpy as np

    import arrayflow as af

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    with af.use_backend(ctx.backend_name):
        t = af.asarray(x)
        dev = t.device
        assert dev is not None, "Tensor.device is None"
        for what, u in (("asarray(..., device=t.device)", af.asarray(x, device=dev)),
                        ("zeros(..., device=t.device)", af.zeros((2, 3), device=dev)),
                        ("t.to(t.device)", t.to(dev)),
                        ("t + 1", t + 1)):
            assert u.backend.name == ctx.backend_name, f"{what}: on {u.backend.name}"
            assert str(u.device) == str(dev), f"{what}: device {u.device}, expected {dev}"
        np.testing.assert_array_equal(t.to(dev).numpy(), x)


def _dlpack_arrays():
    import numpy as np
    from hypothesis import strategies as st

    xps = _xps()
    dtypes = st.sampled_from([np.dtype(d) for d in ALL_DTYPES if d != "bool"])
    return dtypes.flatmap(lambda d: xps.arrays(d, xps.array_shapes(min_dims=0, max_dims=3,
                                                                   max_side=4)))


def _dlpack_describe(x) -> str:
    return _fmt(x)


def _dlpack_import(ctx: Context) -> None:
    import numpy as np

    import arrayflow as af

    def body(x):
        with af.use_backend(ctx.backend_name):
            t = af.from_dlpack(x)
        assert t.backend.name == ctx.backend_name, f"from_dlpack: on {t.backend.name}"
        assert t.dtype.name == x.dtype.name, f"from_dlpack: dtype {t.dtype}, sent {x.dtype}"
        np.testing.assert_array_equal(t.numpy(), x, strict=True)

    ctx.hypothesis(_dlpack_arrays(), body, _dlpack_describe, examples=EXAMPLES[ctx.mode],
                   explicit=(np.arange(5, dtype=np.float64),))


def _dlpack_export(ctx: Context) -> None:
    import numpy as np

    import arrayflow as af

    with af.use_backend(ctx.backend_name):
        probe = af.zeros(1)
    if not hasattr(probe.array, "__dlpack__"):
        raise SkipCheck(f"{type(probe.array).__name__} arrays do not implement __dlpack__")
    if ctx.lazy:
        raise SkipCheck("lazy backend: exporting through DLPack computes")
    if not ctx.backend.host_accessible:
        raise SkipCheck("arrays are not in host memory (numpy.from_dlpack cannot read them)")

    def body(x):
        with af.use_backend(ctx.backend_name):
            t = af.asarray(x)
        y = np.from_dlpack(t)
        assert y.dtype == x.dtype, f"numpy.from_dlpack(t): dtype {y.dtype}, expected {x.dtype}"
        np.testing.assert_array_equal(y, x, strict=True)

    ctx.hypothesis(_dlpack_arrays(), body, _dlpack_describe, examples=EXAMPLES[ctx.mode],
                   explicit=(np.arange(5, dtype=np.float64),))


def _round_trip(ctx: Context) -> None:
    import numpy as np

    import arrayflow as af

    def body(x):
        with af.use_backend(ctx.backend_name):
            t = af.asarray(x)
        n = t.to("numpy")
        assert n.backend.name == "numpy", f"t.to('numpy'): on {n.backend.name}"
        back = n.to(ctx.backend_name)
        assert back.backend.name == ctx.backend_name, f"round trip: on {back.backend.name}"
        assert back.dtype is t.dtype, f"round trip: dtype {back.dtype}, started as {t.dtype}"
        np.testing.assert_array_equal(n.numpy(), x, strict=True)
        np.testing.assert_array_equal(back.numpy(), x, strict=True)

    ctx.hypothesis(_dlpack_arrays(), body, _dlpack_describe, examples=EXAMPLES[ctx.mode],
                   explicit=(np.arange(5, dtype=np.float64),))


# --- laziness ---------------------------------------------------------------------------------

def _trap_fires(ctx: Context) -> None:
    import arrayflow as af
    from arrayflow.testing.lazy import forbid_compute

    if not ctx.lazy:
        raise SkipCheck("eager backend")
    with af.use_backend(ctx.backend_name):
        t = af.ones(3) + 1
        try:
            with forbid_compute(ctx.backend):
                t.numpy()
        except AssertionError:
            return
    raise AssertionError("forbid_compute did not catch Tensor.numpy() computing: the "
                         "laziness checks cannot detect computation on this backend")


def _train_step_lazy(ctx: Context) -> None:
    import arrayflow as af
    from arrayflow.testing.lazy import forbid_compute

    if not ctx.lazy:
        raise SkipCheck("eager backend")
    with af.use_backend(ctx.backend_name):
        af.manual_seed(ctx.seed)
        x = af.randn(8, 4, dtype=af.float64)
        w = af.randn(4, 3, dtype=af.float64, requires_grad=True)
        b = af.zeros(3, dtype=af.float64, requires_grad=True)
        with forbid_compute(ctx.backend):
            loss = af.sum(af.tanh(x @ w + b) ** 2)
            loss.backward()
        assert w.grad is not None and b.grad is not None, "no gradient reached the leaves"
        assert w.grad.backend.name == ctx.backend_name


# --- gradients --------------------------------------------------------------------------------

def _grad_inputs(case, ctx: Context, examples: int):
    from hypothesis import strategies as st

    strategy = st.integers(0, 2**32 - 1).map(lambda s: (s, case.sample(s)))
    return dict(strategy=strategy, explicit=((0, case.sample(0)),), examples=examples,
                describe=lambda v: describe_call(case.op, v[1], v[0]))


def _gradcheck_check(case, second: bool) -> Callable[[Context], None]:
    def fn(ctx: Context) -> None:
        import arrayflow as af
        from arrayflow.autograd import gradcheck, gradgradcheck
        from arrayflow.testing.grad import build

        def body(v):
            with af.use_backend(ctx.backend_name), _eager_scheduler(ctx):
                f, leaves = build(case, sample=v[1])
                if second:
                    gradgradcheck(f, leaves, eps=1e-6, atol=1e-4, rtol=1e-3)
                else:
                    gradcheck(f, leaves, eps=1e-6, atol=1e-5, rtol=1e-3)

        # Only the case's own input: other seeds may land near kinks, where finite
        # differences mean nothing (the vjp checks use drawn inputs instead).
        ctx.hypothesis(**_grad_inputs(case, ctx, 0), body=body)
    return fn


@contextlib.contextmanager
def _eager_scheduler(ctx: Context):
    """Dask-based backends compute the many tiny finite-difference graphs in this thread."""
    if ctx.lazy and str(getattr(ctx.backend, "array_module", "")).split(".")[0] == "dask":
        import dask

        with dask.config.set(scheduler="synchronous"):
            yield
    else:
        yield


def _leaf_elements(case) -> int:
    """Number of float64 input elements of a gradient case (its finite-difference cost)."""
    import numpy as np

    args, _ = case.sample(0)
    items = [e for a in args for e in (a if isinstance(a, (list, tuple)) else (a,))]
    return sum(a.size for a in items if isinstance(a, np.ndarray) and a.dtype == np.float64)


def _skip_lazy_quick_large(ctx: Context) -> None:
    raise SkipCheck(f"--quick on a lazy backend: gradcheck runs on the cases with at most "
                    f"{QUICK_LAZY_GRADCHECK_ELEMENTS} float64 input elements; the others run in "
                    f"the full run (the vjp checks compare every VJP with NumPy's, gradchecked "
                    f"on the eager backends)")


def _block_elementwise(case) -> bool:
    """Whether the case's op is an element-wise function written as one long composition of
    array API calls (the ``arrayflow.special`` functions: ``Op.blockwise``), thousands of
    operations per call."""
    from arrayflow.ops._registry import OPS

    o = OPS.get(case.op)
    return bool(o is not None and o.blockwise)


def _skip_quick_long_composition(ctx: Context) -> None:
    raise SkipCheck("--quick: gradgradcheck of the element-wise special functions runs on the "
                    "NumPy backend and in the full run (their rules are the same array API code "
                    "on every backend; the vjp checks compare this backend's VJPs with NumPy's)")


def _skip_lazy_quick(ctx: Context) -> None:
    raise SkipCheck("--quick on a lazy backend: gradgradcheck runs in the full run only "
                    "(the vjp checks compare this backend's VJPs with NumPy's)")


def _vjp_check(case) -> Callable[[Context], None]:
    def fn(ctx: Context) -> None:
        import numpy as np

        import arrayflow as af
        from arrayflow.testing.grad import vjp
        from arrayflow.testing.lazy import forbid_compute

        def body(v):
            with af.use_backend("numpy"):
                want = vjp(case, sample=v[1])
            with af.use_backend(ctx.backend_name):
                got = vjp(case, sample=v[1], check=lambda: forbid_compute(ctx.backend))
            for k, (a, b) in enumerate(zip(want, got)):
                if a is None or b is None:
                    assert a is None and b is None, (
                        f"gradient of input {k}: {'None' if b is None else 'a Tensor'} on "
                        f"{ctx.backend_name}, {'None' if a is None else 'a Tensor'} on NumPy")
                else:
                    np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12, equal_nan=True,
                                               err_msg=f"gradient of input {k} vs NumPy")

        ctx.hypothesis(**_grad_inputs(case, ctx, EXAMPLES[ctx.mode] // 2), body=body)
    return fn


def _skip_reference(ctx: Context) -> None:
    raise SkipCheck("the VJPs of the NumPy backend are the reference of this check")


# --- the plan ---------------------------------------------------------------------------------

def plan(ctx: Context, only: list[str] | None = None) -> list[Check]:
    """The checks of one run, in order.

    Parameters
    ----------
    ctx : Context
        Backend, mode and dtypes.
    only : list of str, optional
        ``fnmatch`` patterns (or substrings) of check ids (``"forward:exp-*"``);
        None keeps every check.

    Returns
    -------
    list of Check
    """
    from arrayflow.testing import CASES
    from arrayflow.testing.grad import GRAD_CASES
    from arrayflow.testing.promotion import promotion_pairs

    checks: list[Check] = []
    for case in _select_cases(CASES, ctx, one_per_op=ctx.quick):
        checks.append(Check("forward", case.id, _forward_check(case)))
    allowed = set(ctx.dtypes)
    for d1, d2, r in promotion_pairs():
        if {d1, d2} <= allowed:
            checks.append(Check("promotion", f"{d1}+{d2}", _promotion_check(d1, d2, r)))
    for d in ctx.dtypes:
        checks.append(Check("promotion", f"python-scalar-{d}", _scalar_check(d)))
    checks += [Check("devices", "placement", _devices),
               Check("dlpack", "from_dlpack-numpy", _dlpack_import),
               Check("dlpack", "numpy.from_dlpack", _dlpack_export),
               Check("dlpack", "to-numpy-and-back", _round_trip),
               Check("laziness", "compute-trap-fires", _trap_fires),
               Check("laziness", "forward-backward-stay-lazy", _train_step_lazy)]
    if "float64" in allowed:
        # on lazy backends only the cases that can stay lazy (as for ``forward``, a case
        # marked not lazy may refuse there: data-dependent shapes)
        grad_cases = _select_cases([c for c in GRAD_CASES if c.lazy or not ctx.lazy], ctx,
                                   one_per_op=ctx.quick)
        small = [c for c in grad_cases if _leaf_elements(c) <= QUICK_LAZY_GRADCHECK_ELEMENTS]
        for case in (small if ctx.quick and ctx.lazy else grad_cases):
            checks.append(Check("gradcheck", case.id, _gradcheck_check(case, False)))
        if ctx.quick and ctx.lazy and len(small) < len(grad_cases):
            checks.append(Check("gradcheck", "larger-cases-in-full-run", _skip_lazy_quick_large))
        if ctx.quick and ctx.lazy:
            checks.append(Check("gradgradcheck", "skipped-in-quick-lazy-run", _skip_lazy_quick))
        else:
            # --quick on a backend other than the reference: the long compositions (each
            # gradgradcheck runs them hundreds of times) once, as a skip, not per function
            long = ([c for c in grad_cases if _block_elementwise(c)]
                    if ctx.quick and ctx.backend_name != "numpy" else [])
            for case in grad_cases:
                if case not in long:
                    checks.append(Check("gradgradcheck", case.id, _gradcheck_check(case, True)))
            if long:
                checks.append(Check("gradgradcheck", "special-functions-in-full-run",
                                    _skip_quick_long_composition))
        if ctx.backend_name == "numpy":
            checks.append(Check("vjp", "numpy-is-the-reference", _skip_reference))
        else:
            for case in grad_cases:
                checks.append(Check("vjp", case.id, _vjp_check(case)))
    if only:
        checks = [c for c in checks if any(_matches(c.id, p) for p in only)]
    return checks


def _matches(check_id: str, pattern: str) -> bool:
    if pattern == check_id:
        return True
    if any(ch in pattern for ch in "*?["):
        return fnmatch.fnmatchcase(check_id, pattern)
    return pattern == check_id or pattern in check_id


def run_check(check: Check, ctx: Context) -> CheckResult:
    """Run one check; never raises (failures become ``failed``/``error`` results)."""
    import numpy as np

    import arrayflow as af

    start = time.perf_counter()
    status, detail, inputs = "passed", "", ""
    try:
        with np.errstate(all="ignore"), af.use_backend(ctx.backend_name):
            check.fn(ctx)
    except SkipCheck as e:
        status, detail = "skipped", str(e)
    except _Failed as e:
        status, detail, inputs = "failed", _message(e.exc), e.inputs
    except Exception as e:  # the check's own machinery broke
        status, detail = "error", _message(e) + "\n" + "".join(
            traceback.format_exception(e, limit=-4))
    return CheckResult(suite="backend", group=check.group, name=check.name, status=status,
                       detail=detail, inputs=inputs,
                       repro="" if status in ("passed", "skipped") else ctx.repro(check),
                       duration_s=time.perf_counter() - start)


def _message(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return "\n".join(lines[:25])


def make_context(name: str, *, quick=False, seed=0, dtypes=None) -> Context:
    """A :class:`Context` after checking the arguments.

    Raises
    ------
    ValueError
        Unknown backend (the message lists the installed ones) or dtype name.
    arrayflow.backends.BackendUnavailableError
        The backend cannot run here (the message says why).
    """
    import arrayflow as af

    if name not in af.backends.names():
        raise ValueError(f"argument NAME: unknown backend {name!r}; installed backends: "
                         f"{', '.join(af.backends.names())}")
    for info in af.backends.available():
        if info.name == name and not info.usable:
            raise af.backends.BackendUnavailableError(
                f"backend {name!r} cannot run here: {info.reason}")
    dtypes = tuple(dtypes) if dtypes else ALL_DTYPES
    bad = [d for d in dtypes if d not in ALL_DTYPES]
    if bad:
        raise ValueError(f"argument --dtypes: unknown dtype(s) {', '.join(bad)}; choose from "
                         f"{', '.join(ALL_DTYPES)}")
    return Context(backend_name=name, quick=quick, seed=seed, dtypes=dtypes)


def run(args, progress) -> Report:
    """Run the ``backend`` suite for the parsed command line ``args``.

    Parameters
    ----------
    args : argparse.Namespace
        ``name``, ``quick``, ``seed``, ``dtypes``, ``only``.
    progress : arrayflow_conformance.progress.Progress
        Advanced once per check.

    Returns
    -------
    Report
    """
    import platform

    import arrayflow as af

    ctx = make_context(args.name, quick=args.quick, seed=args.seed, dtypes=args.dtypes)
    start = time.perf_counter()
    checks = plan(ctx, getattr(args, "only", None))
    report = Report(suite="backend", target=ctx.backend_name, meta={
        "seed": ctx.seed, "quick": ctx.quick, "dtypes": list(ctx.dtypes),
        "only": getattr(args, "only", None), "lazy": ctx.lazy,
        "versions": _versions(), "python": platform.python_version(),
        "arrayflow": getattr(af, "__version__", "")})
    progress.start(len(checks), f"backend {ctx.backend_name}")
    try:
        for check in checks:
            report.add(run_check(check, ctx))
            progress.advance()
    finally:
        progress.stop()
    report.meta["duration_s"] = round(time.perf_counter() - start, 3)
    return report


def _versions() -> dict[str, str]:
    from importlib import metadata

    out = {}
    for dist in ("arrayflow", "numpy", "hypothesis", "array-api-compat", "array-api-strict",
                 "dask"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return out
