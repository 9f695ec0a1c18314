"""arrayflow.nn core: Parameter, Module, containers, with PyTorch's semantics.

The seeds' ``Linear`` example (``arrayflow.examples.custom_module``, on the seeds'
``LinearFunction``) runs on every backend; ``tests/seeds/`` runs the seeds' verbatim copies.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest
from conftest import forbid_compute

import arrayflow as af
from arrayflow import nn
from arrayflow.examples.custom_module import Linear


def host(t):
    return np.asarray(t.detach().numpy())


# --- the seed example ---------------------------------------------------------------------


def test_seed_linear_forward_backward(backend):
    af.manual_seed(0)
    m = Linear(3, 2)
    w, b = host(m.weight), host(m.bias)
    assert w.shape == (2, 3) and b.shape == (2,)
    assert np.all((w >= -0.1) & (w < 0.1)) and np.all((b >= -0.1) & (b < 0.1))
    assert np.any(w != 0)
    xn = np.arange(12, dtype=np.float32).reshape(4, 3) / 7
    x = af.asarray(xn).requires_grad_()
    with forbid_compute(backend):
        out = m(x)
        out.sum().backward()
    np.testing.assert_allclose(host(out), xn @ w.T + b, rtol=1e-6)
    ones = np.ones((4, 2), np.float32)
    np.testing.assert_allclose(host(m.weight.grad), ones.T @ xn, rtol=1e-6)
    np.testing.assert_allclose(host(m.bias.grad), np.full(2, 4.0), rtol=1e-6)
    np.testing.assert_allclose(host(x.grad), ones @ w, rtol=1e-6)


def test_seed_linear_repr_and_parameters(backend):
    m = Linear(3, 2)
    assert str(m) == "Linear(input_features=3, output_features=2, bias=True)"
    assert repr(Linear(4, 5, bias=False)) == \
        "Linear(input_features=4, output_features=5, bias=False)"
    params = list(m.parameters())
    assert len(params) == 2
    assert params[0] is m.weight and params[1] is m.bias
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in params)
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"]
    nobias = Linear(3, 2, bias=False)
    assert nobias.bias is None
    assert [n for n, _ in nobias.named_parameters()] == ["weight"]
    assert list(nobias.state_dict()) == ["weight"]
    assert "bias" in nobias._parameters


def test_seed_linear_state_dict_round_trip(backend):
    af.manual_seed(1)
    a, b = Linear(3, 2), Linear(3, 2)
    sd = a.state_dict()
    assert isinstance(sd, OrderedDict) and list(sd) == ["weight", "bias"]
    assert all(type(v) is af.Tensor and not v.requires_grad for v in sd.values())
    assert not np.array_equal(host(a.weight), host(b.weight))
    v0 = b.weight._version
    result = b.load_state_dict(sd)
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert repr(result) == "<All keys matched successfully>"
    np.testing.assert_array_equal(host(b.weight), host(a.weight))
    np.testing.assert_array_equal(host(b.bias), host(a.bias))
    assert b.weight._version > v0 and b.weight.requires_grad and b.weight.is_leaf
    # a copy, not an alias: changing the source later leaves b alone
    before = host(b.weight).copy()
    a.weight.data.uniform_(5.0, 6.0)
    np.testing.assert_array_equal(host(b.weight), before)
    # the loaded module still trains
    b(af.ones((1, 3))).sum().backward()
    np.testing.assert_allclose(host(b.weight.grad), np.ones((2, 3)))


# --- Parameter ------------------------------------------------------------------------------


def test_parameter_semantics(backend):
    t = af.asarray([1.0, 2.0])
    p = nn.Parameter(t)
    assert isinstance(p, af.Tensor) and type(p) is nn.Parameter
    assert p.requires_grad and p.is_leaf and not t.requires_grad
    t[0] = 5.0  # shares storage
    assert host(p)[0] == 5.0
    assert not nn.Parameter(t, requires_grad=False).requires_grad
    y = p * 2
    assert type(y) is af.Tensor and y.requires_grad
    assert type(af.exp(p)) is af.Tensor
    r = repr(p)
    assert r.startswith("Parameter containing:\ntensor(") and r.endswith("requires_grad=True)")
    assert type(nn.Parameter()) is nn.Parameter and nn.Parameter().shape == (0,)
    with pytest.raises(TypeError, match="Parameter"):
        nn.Parameter([1.0, 2.0])
    with pytest.raises(RuntimeError):
        nn.Parameter(af.asarray([1, 2]))  # integers cannot require grad


# --- Module registration and traversal ---------------------------------------------------


class Leaf(nn.Module):
    def __init__(self, n=2):
        super().__init__()
        self.w = nn.Parameter(af.ones((n,)))
        self.register_buffer("running", af.zeros((n,)))
        self.register_buffer("scratch", af.zeros((1,)), persistent=False)
        self.plain = 3

    def forward(self, x):
        return x * self.w + self.running


class Tree(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Leaf()
        self.b = Leaf()
        self.shared = self.a  # the same Module twice
        self.top = nn.Parameter(af.zeros((1,)))

    def forward(self, x):
        return self.b(self.a(x))


def test_registration_and_order(backend):
    t = Tree()
    assert list(t._parameters) == ["top"] and list(t._modules) == ["a", "b", "shared"]
    assert [n for n, _ in t.named_parameters()] == ["top", "a.w", "b.w"]
    assert [n for n, _ in t.named_parameters(remove_duplicate=False)] == \
        ["top", "a.w", "b.w", "shared.w"]
    assert [n for n, _ in t.named_parameters(recurse=False)] == ["top"]
    assert [n for n, _ in t.named_parameters(prefix="m")] == ["m.top", "m.a.w", "m.b.w"]
    assert [n for n, _ in t.named_buffers()] == \
        ["a.running", "a.scratch", "b.running", "b.scratch"]
    assert len(list(t.buffers(recurse=False))) == 0
    assert [n for n, _ in t.named_modules()] == ["", "a", "b"]
    assert [n for n, _ in t.named_children()] == ["a", "b"]
    assert list(t.children()) == [t.a, t.b]
    assert list(t.modules()) == [t, t.a, t.b]
    assert t.get_submodule("a") is t.a and t.get_submodule("") is t
    assert t.get_parameter("b.w") is t.b.w and t.get_buffer("a.running") is t.a.running
    with pytest.raises(AttributeError, match="nope"):
        t.get_submodule("a.nope")
    assert list(t.state_dict()) == ["top", "a.w", "a.running", "b.w", "b.running",
                                    "shared.w", "shared.running"]
    kv = t.state_dict(keep_vars=True)
    assert kv["a.w"] is t.a.w and kv["a.running"] is t.a.running
    assert t.a.plain == 3 and "plain" not in t.a._parameters
    assert {"w", "running", "scratch", "plain"} <= set(dir(t.a))


def test_setattr_rules(backend):
    m = Leaf()
    with pytest.raises(TypeError, match="'w'"):
        m.w = af.ones((2,))  # a plain Tensor cannot replace a Parameter
    m.w = None
    assert m.w is None and list(m.parameters()) == []
    with pytest.raises(TypeError, match="running"):
        m.running = 3
    m.running = af.ones((2,))
    assert host(m.state_dict()["running"]).tolist() == [1.0, 1.0]
    m.sub = Leaf()
    with pytest.raises(TypeError, match="sub"):
        m.sub = 3
    m.plain = nn.Parameter(af.ones((1,)))  # an attribute becomes a Parameter
    assert "plain" in m._parameters and "plain" not in m.__dict__
    del m.sub
    assert "sub" not in m._modules
    with pytest.raises(AttributeError, match="sub"):
        m.sub  # noqa: B018
    with pytest.raises(KeyError, match="already exists"):
        m.register_buffer("plain", af.zeros(1))
    with pytest.raises(KeyError):
        m.register_parameter("a.b", None)
    with pytest.raises(TypeError, match="Parameter or None"):
        m.register_parameter("q", af.zeros(1))
    with pytest.raises(TypeError):
        m.add_module("q", 3)

    class Early(nn.Module):
        def __init__(self):
            self.p = nn.Parameter(af.zeros(1))

    with pytest.raises(AttributeError, match="__init__"):
        Early()


def test_missing_forward():
    with pytest.raises(NotImplementedError, match="forward"):
        nn.Module()(1)


# --- state_dict loading ---------------------------------------------------------------------


def test_load_state_dict_errors_change_nothing(backend):
    m = Leaf(2)
    sd = OrderedDict(w=af.full((2,), 7.0), running=af.ones((3,)))
    before = host(m.w).copy()
    with pytest.raises(RuntimeError, match=r"size mismatch for running.*\(3,\).*\(2,\)"):
        m.load_state_dict(sd)
    np.testing.assert_array_equal(host(m.w), before)  # w was valid but not copied
    with pytest.raises(RuntimeError, match="dtype mismatch for w"):
        m.load_state_dict({"w": af.ones((2,), dtype=af.float64), "running": af.ones((2,))})
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "running"'):
        m.load_state_dict({"w": af.ones((2,))})
    with pytest.raises(RuntimeError, match=r'Unexpected key\(s\) in state_dict: "x"'):
        m.load_state_dict({"w": af.ones((2,)), "running": af.ones((2,)), "x": af.ones(1)})
    np.testing.assert_array_equal(host(m.w), before)
    r = m.load_state_dict({"w": af.full((2,), 4.0), "x": af.ones(1)}, strict=False)
    assert r == (["running"], ["x"]) and r.missing_keys == ["running"]
    assert host(m.w).tolist() == [4.0, 4.0]
    with pytest.raises(RuntimeError, match="expected a Tensor"):
        m.load_state_dict({"w": [1.0, 2.0], "running": af.ones((2,))})


def test_load_state_dict_backend_mismatch():
    with af.use_backend("numpy"):
        m = Leaf(2)
    with af.use_backend("strict"):
        sd = {"w": af.ones((2,)), "running": af.ones((2,))}
    with pytest.raises(RuntimeError, match="backend mismatch for w"):
        m.load_state_dict(sd)


# --- modes, grads, apply, to ------------------------------------------------------------------


def test_train_eval_zero_grad_apply_requires_grad(backend):
    t = Tree()
    assert t.training and t.a.training
    assert t.eval() is t and not t.training and not t.a.training and not t.b.training
    t.train()
    assert t.b.training
    with pytest.raises(ValueError, match="bool"):
        t.train("yes")
    t(af.ones((2,))).sum().backward()
    assert host(t.a.w.grad).tolist() == [1.0, 1.0]
    t.zero_grad(set_to_none=False)
    assert host(t.a.w.grad).tolist() == [0.0, 0.0]
    t.zero_grad()
    assert t.a.w.grad is None
    seen = []
    assert t.apply(lambda m: seen.append(type(m).__name__)) is t
    assert seen == ["Leaf", "Leaf", "Tree"]  # children first
    t.requires_grad_(False)
    assert not any(p.requires_grad for p in t.parameters())


@pytest.mark.parametrize("dst", ["strict", "dask"])
def test_to_moves_in_place(dst):
    with af.use_backend("numpy"):
        m = Leaf(2)
        m.w.data.uniform_(1.0, 2.0)
        w = m.w
        values = host(w).copy()
        m(af.ones((2,))).sum().backward()
    assert m.to(dst) is m
    assert m.w is w and type(m.w) is nn.Parameter and m.w.requires_grad
    assert m.w.backend.name == dst and m.running.backend.name == dst
    assert m.w.grad.backend.name == dst
    np.testing.assert_array_equal(host(m.w), values)
    m.to(backend="numpy", dtype=af.float64)
    assert m.w.dtype is af.float64 and m.running.dtype is af.float64
    assert m.w.backend.name == "numpy"
    with pytest.raises(ValueError, match="floating"):
        m.to(dtype=af.int32)


def test_to_keeps_integer_buffers(backend):
    m = nn.Module()
    m.register_buffer("count", af.zeros((1,), dtype=af.int64))
    m.p = nn.Parameter(af.zeros((1,)))
    m.double()
    assert m.count.dtype is af.int64 and m.p.dtype is af.float64


# --- hooks --------------------------------------------------------------------------------


def test_forward_hooks(backend):
    m = Leaf(2)
    calls = []
    h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 10,))
    h2 = m.register_forward_hook(lambda mod, args, out: out + 1)
    m.register_forward_pre_hook(lambda mod, args: calls.append("first"), prepend=True)
    m.register_forward_hook(lambda mod, args, out: calls.append(host(out).tolist()))
    out = m(af.ones((2,)))
    assert host(out).tolist() == [11.0, 11.0]  # 1*10*w(1) + running(0) + 1
    assert calls == ["first", [11.0, 11.0]]
    h1.remove()
    h2.remove()
    h2.remove()  # idempotent
    assert host(m(af.ones((2,)))).tolist() == [1.0, 1.0]
    with m.register_forward_hook(lambda mod, args, kwargs, out: out * 0, with_kwargs=True):
        assert host(m(af.ones((2,)))).tolist() == [0.0, 0.0]
    assert host(m(af.ones((2,)))).tolist() == [1.0, 1.0]


# --- repr and containers -----------------------------------------------------------------


class Foo(nn.Module):
    def forward(self, x):
        return x


def test_repr_tree():
    outer = nn.Module()
    outer.sub = Foo()
    assert repr(outer) == "Module(\n  (sub): Foo()\n)"
    lin = Linear(3, 2)
    lin.sub = Foo()
    assert repr(lin) == ("Linear(\n  input_features=3, output_features=2, bias=True\n"
                         "  (sub): Foo()\n)")
    seq = nn.Sequential(Foo(), nn.Sequential(Foo()))
    assert repr(seq) == ("Sequential(\n  (0): Foo()\n  (1): Sequential(\n"
                         "    (0): Foo()\n  )\n)")
    ml = nn.ModuleList([Foo(), Foo(), Linear(1, 1)])
    assert repr(ml) == ("ModuleList(\n  (0-1): 2 x Foo()\n"
                        "  (2): Linear(input_features=1, output_features=1, bias=True)\n)")
    assert repr(nn.ModuleList()) == "ModuleList()"


class AddOne(nn.Module):
    def forward(self, x):
        return x + 1


class Double(nn.Module):
    def forward(self, x):
        return x * 2


def test_sequential(backend):
    s = nn.Sequential(AddOne(), Double(), AddOne())
    assert host(s(af.asarray([1.0]))).tolist() == [5.0]  # ((1+1)*2)+1
    assert len(s) == 3 and isinstance(s[1], Double) and isinstance(s[-1], AddOne)
    sl = s[1:]
    assert type(sl) is nn.Sequential and list(sl._modules) == ["1", "2"]
    assert host(sl(af.asarray([1.0]))).tolist() == [3.0]
    with pytest.raises(IndexError):
        s[3]
    s.append(Double())
    assert host(s(af.asarray([1.0]))).tolist() == [10.0]
    del s[0]
    assert list(s._modules) == ["0", "1", "2"] and isinstance(s[0], Double)
    s.insert(0, AddOne())
    assert [type(m).__name__ for m in s] == ["AddOne", "Double", "AddOne", "Double"]
    named = nn.Sequential(OrderedDict([("inc", AddOne()), ("dbl", Double())]))
    assert named.inc is named[0] and host(named(af.asarray([0.0]))).tolist() == [2.0]
    s.extend([AddOne()])
    assert len(s) == 5


def test_module_list_and_dict(backend):
    ml = nn.ModuleList([AddOne(), Double()])
    ml.append(AddOne())
    ml.extend([Double()])
    ml.insert(1, Double())
    assert [type(m).__name__ for m in ml] == ["AddOne", "Double", "Double", "AddOne", "Double"]
    assert ml[-1] is ml[4] and type(ml[1:3]) is nn.ModuleList and len(ml[1:3]) == 2
    del ml[0]
    assert list(ml._modules) == ["0", "1", "2", "3"]
    ml += [AddOne()]
    assert len(ml) == 5
    with pytest.raises(IndexError):
        ml[5]
    with pytest.raises(TypeError):
        nn.ModuleList(3)
    holder = nn.Module()
    holder.layers = ml
    assert [n for n, _ in holder.named_modules()][:3] == ["", "layers", "layers.0"]

    md = nn.ModuleDict({"a": AddOne(), "b": Double()})
    md["c"] = AddOne()
    md.update([("d", Double())])
    assert list(md) == ["a", "b", "c", "d"] and "c" in md and len(md) == 4
    assert isinstance(md["b"], Double)
    assert md.pop("a") is not None and list(md.keys()) == ["b", "c", "d"]
    with pytest.raises(ValueError):
        md.update([("x", AddOne(), 3)])
    with pytest.raises(TypeError):
        md["e"] = 3


def test_container_parameters_and_state_dict(backend):
    net = nn.Sequential(Linear(3, 4), Linear(4, 2))
    assert [n for n, _ in net.named_parameters()] == ["0.weight", "0.bias", "1.weight",
                                                      "1.bias"]
    other = nn.Sequential(Linear(3, 4), Linear(4, 2))
    other.load_state_dict(net.state_dict())
    x = af.ones((1, 3))
    np.testing.assert_array_equal(host(other(x)), host(net(x)))


def test_import_has_no_array_library():
    import subprocess
    import sys

    code = ("import sys, arrayflow, arrayflow.nn; "
            "print(sorted(m for m in ('numpy', 'dask', 'cupy', 'safetensors') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
