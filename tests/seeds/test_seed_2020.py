"""The 2020 note with ``__torch_function__`` (``documents/extending-pytorch-custom-function-
and-torch-function.md``): each snippet and ``>>>`` session run verbatim
(``seed_snippets.SNIPPETS_2020``), against PyTorch running the original where PyTorch 2.13
still can, else against the document's own printed results.

The document has no code fences; the snippets are its code passages, in order, and each
test runs the ones before it that it builds on, as a reader would. Harness choices, each
the minimum:

- ``__torch_function__`` after the ScalarTensor class ("if we change our implementation of
  __torch_function__ for ScalarTensor to the one below") is a bare ``def``: the harness
  sets it on the class, the change the text describes.
- Two session lines do not parse as Python (a typo in the document itself, so PyTorch's
  interpreter rejects them as well): ``torch.tensor([[1, 2], [1, 2]]])`` has an extra
  ``]`` and ``print([f.__name__ for f in nn_funcs[:5])`` lacks one. Each test asserts the
  line as written raises ``SyntaxError``, then runs the evidently intended line
  (``[[1, 2], [1, 2]]`` is the only value that gives the printed results).
- ``torch._overrides`` was PyTorch 1.5-1.6's name of ``torch.overrides`` (PyTorch 2.13 no
  longer has it); ``arrayflow._overrides`` is kept as that alias, so these sessions run
  unchanged; their results are compared with ``torch.overrides``.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
import seed_checks as C
import seed_harness as H
from numpy.testing import assert_allclose
from seed_snippets import SNIPPETS_2020 as S

import arrayflow
from arrayflow import overrides

torch = pytest.importorskip("torch")

SCALAR = [S[n] for n in ("scalar_tensor", "implements", "mean", "add")]


@pytest.fixture(autouse=True)
def _quiet_plain_method_warning():
    # the seeds define __arrayflow_function__ as a plain method, which warns once per
    # process (tested in test_protocol_method_forms.py); keep the log of these tests clean
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Defining your `__(arrayflow|torch)_function__`")
        yield


# --- Extending torch.autograd / torch.nn ------------------------------------------------

def test_2020_linear_function(backend):
    a, t = C.both([S["linear_function"]])
    C.check_linear_apply(a["LinearFunction"].apply, t["LinearFunction"].apply)


def test_2020_linear_alias(backend):
    a, t = C.both([S["linear_function"], S["linear_alias"]])
    assert a["linear"] == a["LinearFunction"].apply
    C.check_linear_apply(a["linear"], t["linear"], seed=3)


def test_2020_mul_constant(backend):
    a, t = C.both([S["mul_constant"]])
    C.check_mul_constant(a["MulConstant"], t["MulConstant"])


# not on dask: 1000 finite differences of a lazy graph take ~40 s; the same Function's
# values and gradients are compared with PyTorch on dask by the linear_function test
@pytest.mark.parametrize("backend", ["numpy", "strict"], indirect=True)
def test_2020_gradcheck(backend):
    a, t = C.both([S["linear_function"], S["linear_alias"]])
    C.check_gradcheck_snippet(S["gradcheck"], a, t)


@pytest.mark.parametrize("bias", [True, False])
def test_2020_linear_module(backend, bias):
    a, t = C.both([S["linear_function"], S["linear_module"]])
    m_a, m_t = C.check_linear_module(a["Linear"], t["Linear"], bias=bias)
    assert repr(m_a) == repr(m_t) == (
        f"Linear(input_features=4, output_features=3, bias={bias})")


# --- Extending torch with a Tensor-like type --------------------------------------------

def test_2020_scalar_tensor_plain():
    a, t = C.both([S["scalar_tensor_plain"]])
    d, dt = a["ScalarTensor"](5, 2), t["ScalarTensor"](5, 2)
    assert repr(d) == repr(dt) == "DiagonalTensor(N=5, value=2)"
    assert_allclose(H.numpy_of(d.tensor()), 2 * np.eye(5))
    assert_allclose(H.numpy_of(d.tensor()), H.numpy_of(dt.tensor()))
    # the lost image printed d.tensor(): the same text as PyTorch's
    with arrayflow.use_backend("numpy"):
        assert repr(d.tensor()) == repr(dt.tensor()) == (
            "tensor([[2., 0., 0., 0., 0.],\n        [0., 2., 0., 0., 0.],\n"
            "        [0., 0., 2., 0., 0.],\n        [0., 0., 0., 2., 0.],\n"
            "        [0., 0., 0., 0., 2.]])")
    # "If we try to use this object with the torch API, we will run into issues"
    with pytest.raises(TypeError):
        torch.mean(dt)
    with pytest.raises(TypeError, match=r"mean\(\): argument .* must be Tensor, not "
                                        "ScalarTensor"):
        arrayflow.mean(d)


def test_2020_scalar_tensor(backend):
    a, t = C.both([S["scalar_tensor"]])
    for ns, lib in ((a, arrayflow), (t, torch)):
        ST = ns["ScalarTensor"]
        s = ST(3, 1.5)
        assert repr(s) == "DiagonalTensor(N=3, value=1.5)"
        assert lib.overrides.has_torch_function((s,)) if lib is torch else \
            overrides.has_arrayflow_function((s,))
        # HANDLED_FUNCTIONS is empty: every function returns NotImplemented -> TypeError
        with pytest.raises(TypeError):
            lib.mean(s)


def test_2020_implements(backend):
    a, t = C.both(SCALAR[:2])
    for ns, lib in ((a, arrayflow), (t, torch)):
        def my_sum(input):
            return "summed"

        deco = ns["implements"](lib.sum)
        assert deco.__name__ == "sum"  # functools.wraps(torch_function)
        assert deco(my_sum) is my_sum and ns["HANDLED_FUNCTIONS"][lib.sum] is my_sum
        assert lib.sum(ns["ScalarTensor"](2, 1)) == "summed"


def test_2020_mean(backend):
    # "With this change we can now use torch.mean with ScalarTensor" (image lost)
    a, t = C.both(SCALAR[:3])
    for N, value in ((5, 2), (2, 3.0), (4, -1)):
        got = arrayflow.mean(a["ScalarTensor"](N, value))
        assert got == torch.mean(t["ScalarTensor"](N, value)) == value / N
        full = a["ScalarTensor"](N, value).tensor()
        assert_allclose(float(arrayflow.mean(full)), got, rtol=1e-6)


def test_2020_add(backend):
    a, t = C.both(SCALAR)
    s, st = a["ScalarTensor"](2, 2), t["ScalarTensor"](2, 2)
    # fast path: both ScalarTensors -> a ScalarTensor
    r, rt = arrayflow.add(s, s), torch.add(st, st)
    assert repr(r) == repr(rt) == "DiagonalTensor(N=2, value=4)"
    # slow path: with a Tensor -> a Tensor, either operand first
    data = [[1.0, 2.0], [3.0, 4.0]]
    for args_a, args_t in (((s, arrayflow.asarray(data)), (st, torch.tensor(data))),
                           ((arrayflow.asarray(data), s), (torch.tensor(data), st))):
        ra, rt = arrayflow.add(*args_a), torch.add(*args_t)
        assert isinstance(ra, arrayflow.Tensor)
        assert_allclose(H.numpy_of(ra), H.numpy_of(rt))
        assert_allclose(H.numpy_of(ra), np.array(data) + 2 * np.eye(2))
    with pytest.raises(ValueError, match="Shape mismatch!"):
        arrayflow.add(s, a["ScalarTensor"](3, 1))


def _run_session(text, ns):
    for stmt, expected in H.session(text):
        got = H.evaluate(stmt, ns)
        assert got == expected, (stmt, got, expected)


def _session_error(text, ns, exc):
    ((stmt, expected),) = H.session(text)
    name, _, message = expected.partition(": ")
    assert name == exc.__name__
    with pytest.raises(exc) as info:
        H.evaluate(stmt, ns)
    return str(info.value), message


def test_2020_session_alpha():
    a, t = C.both(SCALAR)
    a["s"], t["s"] = a["ScalarTensor"](2, 2), t["ScalarTensor"](2, 2)
    got, message = _session_error(S["session_alpha"], a, TypeError)
    assert got == message == "add() got an unexpected keyword argument 'alpha'"
    got_t, _ = _session_error(H.to_torch(S["session_alpha"]), t, TypeError)
    assert got_t == got


def test_2020_session_mul():
    a, t = C.both(SCALAR)
    a["s"] = a["ScalarTensor"](2, 2)
    got, message = _session_error(S["session_mul"], a, TypeError)
    assert H.same_words(got, message), got
    # PyTorch 2.13 words it differently ("Multiple dispatch failed for 'torch.mul'; all
    # __torch_function__ handlers returned NotImplemented"), the type of error is the same
    t["s"] = t["ScalarTensor"](2, 2)
    with pytest.raises(TypeError, match="torch.mul"):
        torch.mul(t["s"], 3)


def _with_fallback(ns, lib):
    (H.run_torch if lib == "torch" else H.run)(S["fallback_function"], ns)
    ns["ScalarTensor"].__arrayflow_function__ = ns.pop("__arrayflow_function__", None) or \
        ns["__torch_function__"]
    if lib == "torch":
        ns["ScalarTensor"].__torch_function__ = ns["ScalarTensor"].__arrayflow_function__
    return ns


def test_2020_fallback_function(backend):
    a, t = C.both(SCALAR)
    _with_fallback(a, "arrayflow")
    _with_fallback(t, "torch")
    s, st = a["ScalarTensor"](2, 2), t["ScalarTensor"](2, 2)
    # unhandled functions now run on the Tensor; handled ones still use the override
    for fa, ft in ((arrayflow.mul, torch.mul), (arrayflow.subtract, torch.sub)):
        ra, rt = fa(s, s), ft(st, st)
        assert isinstance(ra, arrayflow.Tensor)
        assert_allclose(H.numpy_of(ra), H.numpy_of(rt))
    assert repr(arrayflow.add(s, s)) == "DiagonalTensor(N=2, value=4)"
    assert arrayflow.mean(s) == 1.0


def test_2020_session_fallback_mul():
    a = _with_fallback(C.define(SCALAR), "arrayflow")
    with arrayflow.use_backend("numpy"):
        _run_session(S["session_fallback_mul"], a)
    t = _with_fallback(C.define(SCALAR, lib="torch"), "torch")
    _run_session(H.to_torch(S["session_fallback_mul"]), t)


# --- Extending torch with a Tensor wrapper type -------------------------------------------

TYPO_TENSOR = "t = arrayflow.tensor([[1, 2], [1, 2]]])"
INTENDED_TENSOR = "t = arrayflow.tensor([[1, 2], [1, 2]])"


def test_2020_metadata_tensor(backend):
    a, t = C.both([S["metadata_tensor"]])
    meta = {"owner": "x"}
    m, mt = a["MetadataTensor"]([[1.5, 2.0]], metadata=meta), \
        t["MetadataTensor"]([[1.5, 2.0]], metadata=meta)
    for fa, ft in ((arrayflow.exp, torch.exp), (arrayflow.sum, torch.sum)):
        ra, rt = fa(m), ft(mt)
        assert type(ra).__name__ == "MetadataTensor" and ra._metadata is meta
        assert_allclose(H.numpy_of(ra._t), H.numpy_of(rt._t), rtol=1e-6)


def _metadata_session(lib):
    text = S["session_metadata"]
    assert TYPO_TENSOR in text.split("\n>>> ")[2]
    ns = C.define([S["metadata_tensor"]], lib=lib)
    typo, intended = TYPO_TENSOR, INTENDED_TENSOR
    if lib == "torch":
        text, typo, intended = H.to_torch(text), H.to_torch(typo), H.to_torch(intended)
    with pytest.raises(SyntaxError):
        compile(typo, "<seed>", "exec")
    _run_session(text.replace(typo, intended), ns)


def test_2020_session_metadata():
    with arrayflow.use_backend("numpy"):
        _metadata_session("arrayflow")
    _metadata_session("torch")


# --- Testing coverage of overrides ----------------------------------------------------------

TYPO_PRINT = "print([f.__name__ for f in nn_funcs[:5])"
INTENDED_PRINT = "print([f.__name__ for f in nn_funcs[:5]])"


def test_2020_session_overridable():
    text = S["session_overridable"]
    with pytest.raises(SyntaxError):
        compile(TYPO_PRINT, "<seed>", "exec")
    ns = {"arrayflow": arrayflow}
    pairs = H.session(text.replace(TYPO_PRINT, INTENDED_PRINT))
    for stmt, _ in pairs:
        H.evaluate(stmt, ns)
    from arrayflow._overrides import get_overridable_functions

    assert get_overridable_functions is overrides.get_overridable_functions
    nn_funcs = ns["nn_funcs"]
    names = [f.__name__ for f in nn_funcs[:5]]
    assert H.evaluate(INTENDED_PRINT, ns) == f"{names}\n"
    # the document lists PyTorch's first five; arrayflow's are those of its own
    # nn.functional, public, in alphabetical order, each overridable in PyTorch too
    assert len(names) == 5 and names == sorted(names)
    assert all(not n.startswith("_") for n in nn_funcs_names(nn_funcs))
    torch_nn = {f.__name__ for f in torch.overrides.get_overridable_functions()[
        torch.nn.functional]}
    assert set(names) <= torch_nn
    assert all(callable(getattr(arrayflow.nn.functional, n)) for n in names)


def nn_funcs_names(funcs):
    return [f.__name__ for f in funcs]


def test_2020_session_testing_overrides():
    ns = {"arrayflow": arrayflow}
    pairs = H.session(S["session_testing_overrides"])
    for stmt, _ in pairs[:-1]:
        assert H.evaluate(stmt, ns) == ""
    stmt, shown = pairs[-1]
    got = H.evaluate(stmt, ns)
    # the dummy has exactly the function's parameters (arrayflow.add is the array API's
    # add(x1, x2, /); the document shows PyTorch 1.5's add), without annotations as
    # PyTorch's lambdas, and returns -1
    dummy_add = ns["dummy_add"]
    sig = inspect.signature(arrayflow.add)
    bare = sig.replace(parameters=[p.replace(annotation=inspect.Parameter.empty)
                                   for p in sig.parameters.values()],
                       return_annotation=inspect.Signature.empty)
    assert got == repr(bare)
    assert shown.startswith("<Signature (") and got.startswith("<Signature (")
    assert dummy_add(1, 2) == -1
    t_dummy = torch.overrides.get_testing_overrides()[torch.add]
    assert t_dummy(1, 2) == -1


# --- Operations on multiple types that define __torch_function__ ----------------------------

def test_2020_multiple_types(backend):
    # The rules (an image in the document, lost) as PyTorch applies them: each type is
    # tried once, subclasses before superclasses, otherwise left to right; NotImplemented
    # hands the call on; when every type returns NotImplemented, TypeError.
    a, t = C.both(SCALAR + [S["metadata_tensor"]])
    data = [[1.0, 2.0], [3.0, 4.0]]
    results = {}
    for ns, lib in ((a, arrayflow), (t, torch)):
        s, m = ns["ScalarTensor"](2, 2), ns["MetadataTensor"](data, metadata={"k": 1})
        # ScalarTensor first: it refuses (a MetadataTensor among the types), MetadataTensor
        # unwraps itself and calls add(s, tensor), which ScalarTensor's slow path handles
        r1, r2 = lib.add(s, m), lib.add(m, s)
        assert type(r1).__name__ == type(r2).__name__ == "MetadataTensor"
        assert r1._metadata == {"k": 1}
        results[lib.__name__] = (H.numpy_of(r1._t), H.numpy_of(r2._t))
        # mul: ScalarTensor refuses, MetadataTensor unwraps to mul(s, tensor), where
        # ScalarTensor refuses again -> TypeError
        with pytest.raises(TypeError):
            lib.mul(s, m)
    for x, y in zip(results["arrayflow"], results["torch"]):
        assert_allclose(x, y)
        assert_allclose(x, np.array(data) + 2 * np.eye(2))


def test_2020_ignored_functions():
    # "torch._overrides.get_ignored_functions returns a tuple of functions that explicitly
    # cannot be overridden by __torch_function__ ... useful to confirm that a function that
    # isn't present in the dictionary returned by get_overridable_functions cannot be
    # overridden" (PyTorch 2.13 returns a set; so does arrayflow)
    from arrayflow._overrides import get_ignored_functions, get_overridable_functions

    ignored = get_ignored_functions()
    overridable = {f for fs in get_overridable_functions().values() for f in fs}
    assert ignored and not (ignored & overridable)
    assert type(ignored) is type(torch.overrides.get_ignored_functions())
    for name in ("manual_seed", "get_default_dtype", "is_tensor"):
        f = getattr(arrayflow, name)
        assert f in ignored
        assert (getattr(torch, name) in torch.overrides.get_ignored_functions())
    # an ignored function never consults __arrayflow_function__
    a = C.define(SCALAR)
    assert arrayflow.is_tensor(a["ScalarTensor"](2, 2)) is False


@pytest.mark.parametrize("backend", ["numpy", "strict"], indirect=True)
def test_2020_note_3_higher_order(backend):
    # NOTE 3: "if backward is implemented with differentiable operations ... higher order
    # derivatives will work"; the note points to gradgradcheck for checking them
    a, t = C.both([S["linear_function"], S["linear_alias"], S["mul_constant"]])
    rng = np.random.default_rng(4)
    x, w, b = rng.normal(size=(4, 3)), rng.normal(size=(2, 3)), rng.normal(size=(2,))
    for ns, lib in ((a, arrayflow), (t, torch)):
        if lib is arrayflow:
            ins = tuple(arrayflow.asarray(v, dtype=arrayflow.float64, requires_grad=True)
                        for v in (x, w, b))
        else:
            ins = tuple(torch.tensor(v, requires_grad=True) for v in (x, w, b))
        assert lib.autograd.gradgradcheck(ns["linear"], ins, eps=1e-6, atol=1e-4)
        assert lib.autograd.gradgradcheck(lambda v, ns=ns: ns["MulConstant"].apply(v, 2.5),
                                          (ins[0],), eps=1e-6, atol=1e-4)
