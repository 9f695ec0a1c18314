"""The ``__arrayflow_function__`` protocol against PyTorch's ``__torch_function__``.

Each case builds the same duck types, Tensor subclasses and modes for both libraries
(``__torch_function__`` on one side, ``__arrayflow_function__`` on the other), runs the
same call, and compares what PyTorch 2.13 does with what arrayflow does: which arguments
are collected (positional, inside lists/tuples, keyword values), the order their types are
tried in (subclasses before superclasses, else parameter order), what happens when all
return ``NotImplemented``, disabled implementations, the two switches, and modes.

The four places that used to decide "does this argument take part?" (the op wrapper, its
list scan, Tensor methods, ``overrides``) now ask :mod:`arrayflow._dispatch`; the cases run
through each entry point: an op, an operator, a Tensor method, ``@overridable``,
``handle_arrayflow_function``/``has_arrayflow_function`` and ``explain_dispatch``.
"""

from __future__ import annotations

import pytest

import arrayflow as af
from arrayflow import overrides

torch = pytest.importorskip("torch")
from torch import overrides as toverrides  # noqa: E402

# --- the two sides ------------------------------------------------------------------------------


class _Side:
    """One library: how to spell the protocol, its switches, modes and functions."""

    def __init__(self, name):
        self.name = name
        self.log = []
        if name == "torch":
            self.attr = "__torch_function__"
            self.Tensor = torch.Tensor
            self.Mode = toverrides.TorchFunctionMode
            self.disable_sub = torch._C.DisableTorchFunctionSubclass
            self.disable_all = torch._C.DisableTorchFunction
            self.disabled_impl = torch._C._disabled_torch_function_impl
            self.has = toverrides.has_torch_function
            self.handle = toverrides.handle_torch_function
            self.is_tensor_like = toverrides.is_tensor_like
            self.ones = lambda n: torch.ones(n)
            self.add = torch.add
            self.stack = torch.stack
            self.clip = torch.clamp
            self.reshape = torch.reshape
            self.zeros = torch.zeros
            self.exp = torch.exp
        else:
            self.attr = "__arrayflow_function__"
            self.Tensor = af.Tensor
            self.Mode = overrides.ArrayflowFunctionMode
            self.disable_sub = overrides.DisableArrayflowFunctionSubclass
            self.disable_all = overrides.DisableArrayflowFunction
            self.disabled_impl = overrides.disabled_arrayflow_function_impl
            self.has = overrides.has_arrayflow_function
            self.handle = overrides.handle_arrayflow_function
            self.is_tensor_like = overrides.is_tensor_like
            self.ones = lambda n: af.ones(n)
            self.add = af.add
            self.stack = af.stack
            self.clip = af.clip
            self.reshape = af.reshape
            self.zeros = af.zeros
            self.exp = af.exp

    def duck(self, name, result=NotImplemented, base=object):
        """A class whose classmethod override logs ``(name, type names)`` and answers
        ``result``."""
        log = self.log

        def handler(cls, func, types, args=(), kwargs=None):
            log.append((name, tuple(t.__name__ for t in types)))
            return result

        return type(name, (base,), {self.attr: classmethod(handler)})

    def mode(self, name, result="call"):
        """A mode that logs ``(name, type names)``; ``result="call"`` runs the function."""
        log = self.log

        def handler(self_, func, types, args=(), kwargs=None):
            log.append((name, tuple(t.__name__ for t in types)))
            if result == "call":
                return func(*args, **(kwargs or {}))
            return result

        return type(name, (self.Mode,), {self.attr: handler})()

    def run(self, fn):
        """``(outcome, log)``: the result (type names for Tensors) or the exception type."""
        self.log.clear()
        try:
            r = fn(self)
            out = ("result", type(r).__name__ if isinstance(r, self.Tensor) else r)
        except TypeError:
            out = ("raises", "TypeError")
        return out, list(self.log)


TORCH, AF = _Side("torch"), _Side("arrayflow")


def _same(case):
    """Run ``case`` on both sides; they must agree. Returns arrayflow's outcome and log."""
    want = TORCH.run(case)
    got = AF.run(case)
    assert got == want, f"arrayflow {got} != PyTorch {want}"
    return got


# --- which arguments take part, and in which order ----------------------------------------------

def test_positional_left_to_right_one_call_per_type():
    def case(s):
        A, B = s.duck("A"), s.duck("B", "fromB")
        return s.add(A(), B())

    assert _same(case) == (("result", "fromB"), [("A", ("A", "B")), ("B", ("A", "B"))])


def test_keyword_arguments_in_parameter_order_not_call_order():
    # PyTorch orders by the signature (input, min, max) whatever the call's keyword order
    def case(s):
        A, B = s.duck("A"), s.duck("B", "fromB")
        return s.clip(s.ones(2), max=B(), min=A())

    assert _same(case) == (("result", "fromB"), [("A", ("A", "B")), ("B", ("A", "B"))])


def test_list_elements_take_part_one_call_per_type():
    def case(s):
        A, B = s.duck("A"), s.duck("B", "fromB")
        return s.stack([s.ones(2), A(), A(), B()])

    assert _same(case) == (("result", "fromB"), [("A", ("A", "B")), ("B", ("A", "B"))])


def test_tuple_inside_a_keyword_argument_takes_part():
    # torch.reshape(t, shape=(duck, 2)): the keyword value's elements are scanned too
    # (arrayflow's op wrapper skipped keyword tuples and lists before)
    def case(s):
        A = s.duck("A")
        return s.reshape(s.ones(2), shape=(A(), 2))

    assert _same(case) == (("raises", "TypeError"), [("A", ("A",))])


def test_shape_list_of_a_factory_takes_part():
    def case(s):
        A = s.duck("A", "fromA")
        return s.zeros([A()])

    assert _same(case) == (("result", "fromA"), [("A", ("A",))])


def test_subclass_before_its_parent():
    def case(s):
        A = s.duck("A")
        Sub = type("Sub", (A,), {})
        return s.add(A(), Sub())

    assert _same(case) == (("raises", "TypeError"), [("A", ("Sub", "A")), ("A", ("Sub", "A"))])


def test_subclass_inserted_before_its_parent_only():
    # [A, C, SubC]: SubC goes before C, not before A (PyTorch's _get_overloaded_args)
    def case(s):
        A, C = s.duck("A"), s.duck("C")
        SubC = s.duck("SubC", base=C)
        return s.stack([A(), C(), SubC()])

    got = _same(case)
    assert got[1] == [("A", ("A", "SubC", "C")), ("SubC", ("A", "SubC", "C")),
                      ("C", ("A", "SubC", "C"))]


def test_all_not_implemented_raises_type_error():
    def case(s):
        A, C = s.duck("A"), s.duck("C")
        return s.add(A(), C())

    assert _same(case) == (("raises", "TypeError"), [("A", ("A", "C")), ("C", ("A", "C"))])


def test_operator_with_a_duck_on_either_side():
    def right(s):
        return s.ones(2) + s.duck("B", "fromB")()

    def left(s):
        return s.duck("B", "fromB")() + s.ones(2)

    assert _same(right) == (("result", "fromB"), [("B", ("B",))])
    assert _same(left) == (("result", "fromB"), [("B", ("B",))])


# --- Tensor subclasses and disabled implementations ----------------------------------------------

def test_tensor_subclass_and_a_duck():
    def case(s):
        Sub = type("Sub", (s.Tensor,), {})
        B = s.duck("B", "fromB")
        return s.add(s.ones(2).as_subclass(Sub), B())

    # the subclass's default declines (B is not its superclass), B answers
    assert _same(case) == (("result", "fromB"), [("B", ("Sub", "B"))])


def test_tensor_subclass_result_keeps_the_subclass():
    def case(s):
        Sub = type("Sub", (s.Tensor,), {})
        return s.add(s.ones(2).as_subclass(Sub), s.ones(2))

    assert _same(case) == (("result", "Sub"), [])


def test_disabled_impl_subclass_is_a_plain_tensor():
    def case(s):
        P = type("P", (s.Tensor,), {s.attr: s.disabled_impl})
        p = s.ones(2).as_subclass(P)
        return (s.has((p,)), type(s.add(p, s.ones(2))).__name__)

    assert _same(case) == (("result", (False, "Tensor")), [])


def test_duck_with_the_disabled_impl_does_not_take_part():
    # PyTorch: a type whose __torch_function__ is the disabled impl is never collected
    # (arrayflow collected such a duck and called it before)
    def case(s):
        D = type("D", (), {s.attr: s.disabled_impl})
        B = s.duck("B", "fromB")
        return (s.has((D(),)), s.is_tensor_like(D()), s.handle(s.add, (D(), B()), D(), B()))

    assert _same(case) == (("result", (False, True, "fromB")), [("B", ("B",))])


def test_disabled_duck_at_an_array_parameter_raises():
    def case(s):
        D = type("D", (), {s.attr: s.disabled_impl})
        return s.add(D(), s.ones(2))

    assert _same(case) == (("raises", "TypeError"), [])


# --- the switches -----------------------------------------------------------------------------

def test_disable_subclass_switches_off_ducks_too():
    # DisableTorchFunctionSubclass switches off every argument's __torch_function__,
    # ducks included; only modes stay (arrayflow still called ducks there before)
    def case(s):
        B = s.duck("B", "fromB")
        with s.disable_sub():
            assert not s.has((B(),))
            return s.add(s.ones(2), B())

    assert _same(case) == (("raises", "TypeError"), [])


def test_disable_subclass_makes_subclasses_plain():
    def case(s):
        Sub = type("Sub", (s.Tensor,), {})
        with s.disable_sub():
            return s.exp(s.ones(2).as_subclass(Sub))

    assert _same(case) == (("result", "Tensor"), [])


def test_disable_all_switches_off_modes():
    def case(s):
        B = s.duck("B", "fromB")
        x = s.ones(2)
        with s.mode("M"), s.disable_all():
            return (s.has((x, B())), type(s.exp(x)).__name__)

    assert _same(case) == (("result", (False, "Tensor")), [])


# --- modes --------------------------------------------------------------------------------------

def test_mode_not_implemented_with_plain_arguments_raises():
    # PyTorch: "Multiple dispatch failed ... all handlers returned NotImplemented"
    # (arrayflow ran the implementation before)
    def case(s):
        x = s.ones(2)
        with s.mode("M", NotImplemented):
            return s.add(x, x)

    assert _same(case) == (("raises", "TypeError"), [("M", ())])


def test_mode_not_implemented_on_a_factory_raises():
    def case(s):
        with s.mode("M", NotImplemented):
            return s.ones(2)

    assert _same(case) == (("raises", "TypeError"), [("M", ())])


def test_inner_mode_not_implemented_does_not_reach_the_outer_mode():
    def case(s):
        with s.mode("Outer"), s.mode("Inner", NotImplemented):
            return s.ones(2)

    assert _same(case) == (("raises", "TypeError"), [("Inner", ())])


def test_mode_not_implemented_hands_on_to_the_ducks():
    def case(s):
        B, x = s.duck("B", "fromB"), s.ones(2)
        with s.mode("M", NotImplemented):
            return s.add(x, B())

    assert _same(case) == (("result", "fromB"), [("M", ("B",)), ("B", ("B",))])


def test_mode_sees_the_ordered_types_of_ducks_and_subclasses():
    def case(s):
        A, B = s.duck("A"), s.duck("B", "fromB")
        Sub = type("Sub", (s.Tensor,), {})
        x = s.ones(2).as_subclass(Sub)
        with s.mode("M"):
            return s.stack([A(), x, B()])

    assert _same(case) == (("result", "fromB"), [
        ("M", ("A", "Sub", "B")), ("A", ("A", "Sub", "B")), ("B", ("A", "Sub", "B"))])


def test_mode_stays_on_under_disable_subclass():
    def case(s):
        Sub = type("Sub", (s.Tensor,), {})
        x, y = s.ones(2).as_subclass(Sub), s.ones(2)
        with s.mode("M"):
            with s.disable_sub():
                return s.add(x, y)

    assert _same(case) == (("result", "Tensor"), [("M", ())])


def test_subclass_default_after_a_declining_mode_meets_the_mode_again():
    # the mode declines, the subclass's default runs the function (subclasses off), the
    # mode sees that inner call with no types and declines again: TypeError
    def case(s):
        Sub = type("Sub", (s.Tensor,), {})
        x, y = s.ones(2).as_subclass(Sub), s.ones(2)
        with s.mode("M", NotImplemented):
            return s.add(x, y)

    assert _same(case) == (("raises", "TypeError"), [("M", ("Sub",)), ("M", ())])


def test_has_function_under_a_mode():
    def case(s):
        x = s.ones(1)
        with s.mode("M"):
            plain = s.has((x,))
            with s.disable_sub():
                sub = s.has((x,))
        return (plain, sub)

    assert _same(case) == (("result", (True, True)), [])


# --- handle / has / is_tensor_like -------------------------------------------------------------

def test_handle_orders_the_relevant_args():
    def case(s):
        A = s.duck("A")
        Sub = type("Sub", (A,), {})

        def f(x, y):
            return "impl"

        return s.handle(f, (A(), Sub()), A(), Sub())

    assert _same(case) == (("raises", "TypeError"), [("A", ("Sub", "A")), ("A", ("Sub", "A"))])


def test_handle_with_only_plain_tensors_runs_the_function():
    # torch.overrides.handle_torch_function collects a plain Tensor too (its default
    # __torch_function__ runs the function); nothing at all to collect: TypeError
    def case(s):
        seen = []

        def f(x, y=None):
            seen.append(type(x).__name__)
            return "impl"

        x = s.ones(2)
        first = s.handle(f, (x, 1), x, 1)
        try:
            s.handle(f, (1,), 1)
            second = "ran"
        except TypeError:
            second = "TypeError"
        with s.disable_sub():
            try:
                s.handle(f, (x,), x)
                third = "ran"
            except TypeError:
                third = "TypeError"
        return (first, second, third, seen)

    assert _same(case) == (("result", ("impl", "TypeError", "TypeError", ["Tensor"])), [])


def test_has_function_for_plain_subclass_and_duck():
    def case(s):
        Sub = type("Sub", (s.Tensor,), {})
        B = s.duck("B")
        return (s.has((s.ones(1), 1.0)), s.has((s.ones(1).as_subclass(Sub),)), s.has([1, B()]))

    assert _same(case) == (("result", (False, True, True)), [])


def test_is_tensor_like():
    def case(s):
        B = s.duck("B")
        return (s.is_tensor_like(s.ones(1)), s.is_tensor_like(B()), s.is_tensor_like(B),
                s.is_tensor_like(1.0), s.is_tensor_like([s.ones(1)]))

    # a class itself is tensor-like in PyTorch too (hasattr on the object)
    assert _same(case) == (("result", (True, True, True, False, False)), [])


# --- every entry point asks the same rule --------------------------------------------------------

def _entry_points():
    """Ways into the protocol with an argument list ``(x, other)``, keyword ``k=``."""
    @overrides.overridable
    def third_party(x, other=None, *, k=None):
        return "impl"

    return {
        "op": lambda x, other, k=None: af.where(af.ones(1, dtype=af.bool), x, other)
        if k is None else af.clip(x, min=other, max=k),
        "method": lambda x, other, k=None: af.Tensor.sum(x, other) if k is None
        else af.Tensor.sum(x, other, k),
        "overridable": lambda x, other, k=None: third_party(x, other, k=k),
        "explain": lambda x, other, k=None: overrides.explain_dispatch(
            af.clip, x, min=other, max=k).result,
    }


@pytest.mark.parametrize("entry", ["op", "method", "overridable", "explain"])
def test_every_entry_point_collects_the_same(entry):
    call = _entry_points()[entry]
    log = AF.log
    A, B = AF.duck("A"), AF.duck("B", "fromB")
    Dis = type("Dis", (), {"__arrayflow_function__": overrides.disabled_arrayflow_function_impl})
    log.clear()
    assert call(af.ones(2), A(), B()) == "fromB"
    assert log == [("A", ("A", "B")), ("B", ("A", "B"))]
    log.clear()
    outcomes = []
    with overrides.DisableArrayflowFunctionSubclass():
        for bad in (B(), Dis()):
            try:
                outcomes.append(call(af.ones(2), bad, None))
            except Exception as e:  # the function itself rejects the object: fine here
                outcomes.append(type(e))
    assert log == [] and "fromB" not in outcomes
    log.clear()
    try:
        outcomes = [call(af.ones(2), Dis(), None)]
    except Exception as e:
        outcomes = [type(e)]
    assert log == [] and outcomes != [NotImplemented]


def test_explain_dispatch_reports_keyword_list_elements_and_the_mode():
    A, x = AF.duck("A", "fromA"), af.ones(2)
    AF.log.clear()
    mode = AF.mode("M")
    with mode:
        rep = overrides.explain_dispatch(af.reshape, x, shape=(A(), 2))
    assert rep.collected == [("kwargs['shape'][0]", "A")]
    assert rep.mode == "M" and rep.result == "fromA"
    # the mode ran first (as in the real dispatch), then A
    assert AF.log == [("M", ("A",)), ("A", ("A",))]
    assert rep.outcomes[0][0] == "mode M"


def test_list_at_an_array_parameter_is_rejected_before_dispatch():
    # PyTorch's parser rejects a list where a Tensor goes; a duck inside is not asked
    def case(s):
        A = s.duck("A", "fromA")
        return s.exp([A()])

    assert _same(case) == (("raises", "TypeError"), [])


def test_explain_dispatch_reports_the_real_call():
    A = AF.duck("A", "fromA")
    AF.log.clear()
    with pytest.raises(TypeError, match=r"exp\(\): argument 'x'"):
        overrides.explain_dispatch(af.exp, [A()])
    assert AF.log == []  # as the real call: the op rejected the list, A was not asked
    x = af.ones(2)
    rep = overrides.explain_dispatch(af.add, x, 1.0)
    assert rep.outcomes == [("arrayflow", repr(rep.result))]
    assert rep.result.tolist() == [2.0, 2.0]


def test_one_rule_answers_for_each_object():
    from arrayflow import _dispatch

    A = AF.duck("A")
    Sub = type("Sub", (af.Tensor,), {})
    P = type("P", (af.Tensor,), {"__arrayflow_function__": classmethod(
        overrides.disabled_arrayflow_function_impl)})
    D = type("D", (), {"__arrayflow_function__": overrides.disabled_arrayflow_function_impl})
    t = af.ones(1)
    cases = [(t, False), (1, False), (None, False), (af.float32, False), ([A()], False),
             (A(), True), (t.as_subclass(Sub), True), (t.as_subclass(P), False), (D(), False),
             (af.nn.Parameter(af.ones(1)), False)]
    for obj, want in cases:
        assert _dispatch.takes_part(obj) is want, obj
    with overrides.DisableArrayflowFunctionSubclass():
        assert not any(_dispatch.takes_part(o) for o, _ in cases)


def test_overridable_fast_path_keeps_every_participant():
    # @overridable skips the collection when every argument is a plain Tensor, a scalar
    # or a type that takes no part (nn.Parameter); anything else still dispatches
    @overrides.overridable
    def f(x, y=None, *, k=None):
        return "impl"

    seen = []

    class Logged(af.Tensor):
        @classmethod
        def __arrayflow_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__arrayflow_function__(func, types, args, kwargs)

    A = AF.duck("A", "fromA")
    t = af.ones(1)
    AF.log.clear()
    assert f(t, 2.0, k=A()) == "fromA" and f(t, [t, A()]) == "fromA"
    assert f(t, k=(A(),)) == "fromA"
    assert f(t.as_subclass(Logged)) == "impl" and seen == [f]
    assert f(af.nn.Parameter(t), k=t) == "impl" and seen == [f]
    assert len(AF.log) == 3


def test_method_fast_path_keeps_every_participant():
    A = AF.duck("A", "fromA")
    t = af.ones(2)
    AF.log.clear()
    assert af.Tensor.sum(t, dim=A()) == "fromA"  # a keyword value
    assert af.Tensor.sum(t, (A(),)) == "fromA"  # a tuple element
    assert AF.log == [("A", ("A",)), ("A", ("A",))]
    p = af.nn.Parameter(af.ones(2))  # takes no part: the fast path, a plain result
    assert type(p.sum(dim=0)) is af.Tensor and p.sum(dim=0).tolist() == 2.0


def test_operator_with_an_object_that_takes_no_part_tries_its_reflected_method():
    # Tensor.__add__ returns NotImplemented for an object whose override is disabled or
    # switched off, so Python calls its __radd__ (arrayflow raised TypeError before)
    def disabled(s):
        D = type("D", (), {s.attr: s.disabled_impl, "__radd__": lambda self, o: "radd"})
        return s.ones(2) + D()

    def switched_off(s):
        B = s.duck("B", "fromB")
        B.__radd__ = lambda self, o: "radd"
        x = s.ones(2)
        with s.disable_sub():
            return x + B()

    assert _same(disabled) == (("result", "radd"), [])
    assert _same(switched_off) == (("result", "radd"), [])
