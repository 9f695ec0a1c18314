"""``__arrayflow_function__`` spelled three ways, as PyTorch accepts ``__torch_function__``.

The seeds' ScalarTensor and MetadataTensor define it as a plain instance method; PyTorch
looks the method up on the instance (``overloaded_arg.__torch_function__``), so a plain
method is bound to the first argument of that type, with a one-time ``UserWarning``. A
classmethod (the recommended form) and a staticmethod get the same four arguments. All
of this is decided by ``arrayflow.overrides.protocol_method``; these tests check every
place that calls a protocol method: function dispatch, Tensor methods and operators,
``handle_arrayflow_function``/``overridable``, modes, ``explain_dispatch``.
"""

from __future__ import annotations

import warnings

import pytest

import arrayflow as af
from arrayflow import _dispatch, overrides

torch = pytest.importorskip("torch")


def _ducks(lib):
    """The three spellings, recording what their method received."""
    calls = []

    class Plain:
        def __init__(self, name):
            self.name = name

        def __repr__(self):
            return f"Plain({self.name})"

    def plain(self, func, types, args=(), kwargs=None):
        calls.append(("plain", self, func, types, args, kwargs))
        return "plain"

    class Klass(Plain):
        pass

    def klass(cls, func, types, args=(), kwargs=None):
        calls.append(("class", cls, func, types, args, kwargs))
        return "class"

    class Static(Plain):
        pass

    def static(func, types, args=(), kwargs=None):
        calls.append(("static", None, func, types, args, kwargs))
        return "static"

    attr = "__torch_function__" if lib == "torch" else "__arrayflow_function__"
    Plain_ = type("Plain", (Plain,), {attr: plain})
    Klass_ = type("Klass", (Klass,), {attr: classmethod(klass)})
    Static_ = type("Static", (Static,), {attr: staticmethod(static)})
    return Plain_, Klass_, Static_, calls


@pytest.fixture(autouse=True)
def _no_plain_warning_noise():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Defining your `__(arrayflow|torch)_function__`")
        yield


@pytest.mark.parametrize("form", [0, 1, 2], ids=["plain", "classmethod", "staticmethod"])
def test_each_form_receives_what_pytorch_passes(form):
    got = {}
    for lib, mod in (("arrayflow", af), ("torch", torch)):
        P, K, S, calls = _ducks(lib)
        cls = (P, K, S)[form]
        a, b = cls("a"), cls("b")
        assert mod.mean(a) == ("plain", "class", "static")[form]
        assert mod.add(a, b) == ("plain", "class", "static")[form]
        kind, bound, func, types, args, kwargs = calls[0]
        # (PyTorch's builtins pass kwargs=None when there are none, arrayflow passes {})
        assert func is mod.mean and types == (cls,) and args == (a,) and not kwargs
        # the plain method is bound to the instance, the classmethod to the class
        assert bound is (a, cls, None)[form]
        kind, bound, func, types, args, kwargs = calls[1]
        assert func is mod.add and args == (a, b) and types == (cls,)
        assert bound is (a, cls, None)[form]  # the first argument of that type
        got[lib] = [(c[0], c[4] == (a,) or c[4] == (a, b)) for c in calls]
    assert got["arrayflow"] == got["torch"]


def test_plain_method_warns_once_per_process_like_pytorch():
    Plain, Klass, Static, calls = _ducks("arrayflow")
    _dispatch._plain_method_warned = False  # as in a fresh process
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        af.mean(Klass("k"))
        af.mean(Static("s"))
        assert w == []
        af.mean(Plain("p"))
        af.sum(Plain("q"))
        af.add(Plain("r"), Plain("t"))
    assert len(w) == 1 and w[0].category is UserWarning
    assert "Defining your `__arrayflow_function__` as a plain method is deprecated" in \
        str(w[0].message)
    # PyTorch: UserWarning, once per process, whatever the warnings filter says
    code = ("import warnings, torch\n"
            "class P:\n"
            "    def __torch_function__(self, func, types, args=(), kwargs=None):\n"
            "        return 1\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    torch.mean(P()); torch.sum(P()); torch.add(P(), P())\n"
            "print(len(w), w[0].category.__name__, 'as a plain method' in str(w[0].message))\n")
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["1", "UserWarning", "True"]


def test_plain_method_in_every_dispatch_path():
    Plain, _, _, calls = _ducks("arrayflow")
    p = Plain("p")
    # has_arrayflow_function / is_tensor_like
    assert overrides.has_arrayflow_function((p,)) and overrides.is_tensor_like(p)
    # a Tensor operator and a Tensor method with the duck as the other operand
    t = af.ones(2)
    assert (t + p) == "plain" and calls[-1][1] is p
    assert t.mm(p) == "plain" and calls[-1][1] is p
    # a third party's overridable function, and handle_arrayflow_function
    @overrides.overridable
    def mine(x):
        return "mine"

    assert mine(p) == "plain" and calls[-1][1] is p and calls[-1][2] is mine
    assert overrides.handle_arrayflow_function(mine, (p,), p) == "plain"
    # explain_dispatch shows the bound call's result
    rep = overrides.explain_dispatch(af.mean, p)
    assert rep.result == "plain" and calls[-1][1] is p
    assert ("Plain", "'plain'") in rep.outcomes
    # a list argument (concat) collects the element
    assert af.concat([p, af.ones(2)]) == "plain" and calls[-1][1] is p


def test_plain_method_returning_notimplemented_raises_typeerror():
    class Refuses:
        def __arrayflow_function__(self, func, types, args=(), kwargs=None):
            assert isinstance(self, Refuses)
            return NotImplemented

    with pytest.raises(TypeError, match="no implementation found for 'arrayflow.mean' on "
                                        "types that implement __arrayflow_function__: "
                                        r"\[Refuses\]"):
        af.mean(Refuses())


def test_modes_with_either_form_do_not_warn():
    seen = []

    class PlainMode(overrides.ArrayflowFunctionMode):
        def __arrayflow_function__(self, func, types, args=(), kwargs=None):
            assert isinstance(self, PlainMode)
            seen.append(func)
            return func(*args, **(kwargs or {}))

    class ClassMode(overrides.ArrayflowFunctionMode):
        @classmethod
        def __arrayflow_function__(cls, func, types, args=(), kwargs=None):
            assert cls is ClassMode
            seen.append(func)
            return func(*args, **(kwargs or {}))

    _dispatch._plain_method_warned = False
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with PlainMode():
            af.zeros(2)
        with ClassMode():
            af.ones(2)
    assert w == [] and seen == [af.zeros, af.ones]
    _dispatch._plain_method_warned = True


def test_protocol_method_is_the_one_lookup():
    Plain, Klass, Static, _ = _ducks("arrayflow")
    p = Plain("p")
    assert overrides.protocol_method(Plain, p).__self__ is p
    assert overrides.protocol_method(Klass).__self__ is Klass
    assert overrides.protocol_method(Static)("f", (), (), {}) == "static"
    with pytest.raises(TypeError, match="plain instance method"):
        overrides.protocol_method(Plain)
    assert [overrides.protocol_form(c) for c in (Plain, Klass, Static)] == [
        "instance method", "classmethod", "staticmethod"]
    with pytest.raises(TypeError, match="does not define __arrayflow_function__"):
        overrides.protocol_method(int)
    # Tensor subclasses use Tensor's classmethod default
    class Sub(af.Tensor):
        pass

    assert overrides.protocol_method(Sub).__self__ is Sub
