"""PyTorch's aliases are distinct function objects, errors name the function called, and
non-Tensor arguments get PyTorch's TypeError (issue 12, sections 2-3)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from conftest import on_backend

import arrayflow as af
from arrayflow import overrides
from arrayflow.ops import aliases

torch = pytest.importorskip("torch")

BACKENDS = ["numpy", "strict", "dask"]
ALIASES = {name: getattr(af, name) for name in aliases.__all__}


def test_aliases_are_distinct_objects_as_in_torch():
    assert torch.mul is not torch.multiply and torch.cat is not torch.concat
    for name, a in ALIASES.items():
        assert a is not a.canonical, name
        assert isinstance(a, af.ops.Op) and a.__name__ == name
        assert getattr(af, a.canonical.__name__) is a.canonical
    assert af.mul.canonical is af.multiply and af.cat.canonical is af.concat
    assert af.clamp.canonical is af.clip and af.mm.canonical is af.matmul


def test_aliases_pickle_to_themselves():
    for a in (af.mul, af.cat, af.as_tensor):
        assert pickle.loads(pickle.dumps(a)) is a


def test_testing_overrides_list_both_spellings_as_torch():
    ours = overrides.get_testing_overrides()
    theirs = torch.overrides.get_testing_overrides()
    for t_alias, t_canon, a_alias, a_canon in [
            (torch.mul, torch.multiply, af.mul, af.multiply),
            (torch.cat, torch.concat, af.cat, af.concat),
            (torch.clamp, torch.clip, af.clamp, af.clip)]:
        assert t_alias in theirs and t_canon in theirs
        assert a_alias in ours and a_canon in ours


class _Recorder:
    seen = []

    @classmethod
    def __arrayflow_function__(cls, func, types, args=(), kwargs=None):
        cls.seen.append(func)
        return "handled"


def test_override_receives_the_function_called():
    _Recorder.seen.clear()
    r = _Recorder()
    assert af.mul(r, 2) == "handled" and af.multiply(r, 2) == "handled"
    assert af.cat([r]) == "handled"
    assert _Recorder.seen == [af.mul, af.multiply, af.cat]
    assert _Recorder.seen[0] is not af.multiply


def test_override_receives_alias_like_torch():
    seen = []

    class T:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return 0

    torch.mul(T(), 2)
    assert seen == [torch.mul]


@pytest.mark.parametrize("backend", BACKENDS)
def test_alias_computes_and_differentiates_as_its_op(backend):
    xn = np.asarray([[0.5, -1.0], [2.0, 3.0]], dtype="float32")
    with on_backend(backend):
        for a, args in [(af.mul, (2.0,)), (af.div, (4.0,)), (af.neg, ()), (af.clamp, (0.0, 2.5)),
                        (af.absolute, ()), (af.arctan, ()), (af.power, (2.0,))]:
            x = af.asarray(xn, requires_grad=True)
            y = a(x, *args)
            x2 = af.asarray(xn, requires_grad=True)
            y2 = a.canonical(x2, *args)
            np.testing.assert_allclose(y.detach().numpy(), y2.detach().numpy())
            assert type(y.grad_fn) is type(y2.grad_fn)
            y.sum().backward()
            y2.sum().backward()
            np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy())
            tx = torch.from_numpy(xn).requires_grad_(True)
            getattr(torch, {"power": "pow"}.get(a.__name__, a.__name__))(tx, *args).sum().backward()
            np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6)


def test_errors_name_the_function_called():
    x = af.ones(2)
    with pytest.raises(TypeError, match=r"^mul\(\): argument 'x2' \(position 2\)") as info:
        af.mul(x, "a")
    assert "multiply" not in str(info.value)
    with pytest.raises(TypeError, match=r"^mul\(\): argument 'other' \(position 2\)"):
        torch.mul(torch.ones(2), "a")
    with pytest.raises(TypeError, match=r"^multiply\(\): argument 'x2'"):
        af.multiply(x, "a")


@pytest.mark.parametrize("fname", ["sum", "mean", "prod", "max", "std", "var", "exp",
                                   "argmax", "argmin"])
@pytest.mark.parametrize("bad", [{"a": 1}, "abc", object(), [1.0, 2.0]],
                         ids=["dict", "str", "object", "list"])
def test_non_tensor_argument_is_a_type_error_naming_the_function(fname, bad):
    tfn = getattr(torch, fname)
    with pytest.raises(TypeError, match=rf"^{fname}\(\)"):  # overloaded ones list signatures
        tfn(bad)
    with pytest.raises(TypeError, match=rf"^{fname}\(\): argument 'x' \(position 1\) must be "
                                        rf"Tensor, not {type(bad).__name__}"):
        getattr(af, fname)(bad)


@pytest.mark.parametrize("backend", BACKENDS)
def test_cat_stack_axis_positional_and_dim(backend):
    an = np.arange(6, dtype="float32").reshape(2, 3)
    bn = -np.arange(6, dtype="float32").reshape(2, 3)
    ta, tb = torch.from_numpy(an), torch.from_numpy(bn)
    with on_backend(backend):
        a, b = af.asarray(an), af.asarray(bn)
        cases = [
            (af.cat([a, b]), torch.cat([ta, tb])),
            (af.cat([a, b], 1), torch.cat([ta, tb], 1)),
            (af.cat((a, b), dim=1), torch.cat((ta, tb), dim=1)),
            (af.cat([a, b], -1), torch.cat([ta, tb], -1)),
            (af.concat([a, b], 1), torch.concat([ta, tb], 1)),
            (af.concat([a, b], axis=1), torch.concat([ta, tb], axis=1)),
            (af.concatenate([a, b], dim=0), torch.concatenate([ta, tb], dim=0)),
            (af.stack([a, b]), torch.stack([ta, tb])),
            (af.stack([a, b], 2), torch.stack([ta, tb], 2)),
            (af.stack([a, b], dim=1), torch.stack([ta, tb], dim=1)),
            (af.stack([a, b], axis=-1), torch.stack([ta, tb], axis=-1)),
        ]
        for ours, theirs in cases:
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
        with pytest.raises(TypeError, match="not both"):
            af.cat([a, b], 1, dim=0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_cat_dim_gradient(backend):
    an = np.arange(6, dtype="float64").reshape(2, 3)
    w = np.arange(12, dtype="float64").reshape(2, 6)
    with on_backend(backend):
        a = af.asarray(an, requires_grad=True)
        b = af.asarray(an * 2, requires_grad=True)
        (af.cat([a, b], 1) * af.asarray(w)).sum().backward()
    ta = torch.from_numpy(an).requires_grad_(True)
    tb = torch.from_numpy(an * 2).requires_grad_(True)
    (torch.cat([ta, tb], 1) * torch.from_numpy(w)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy())
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy())


@pytest.mark.parametrize("bad", ["a", [1, 2], (1, 2), None, {}], ids=["str", "list", "tuple",
                                                                     "None", "dict"])
@pytest.mark.parametrize("op", ["+", "*", "-", "/", "+="])
def test_operator_with_non_operand_is_pythons_type_error_as_torch(bad, op):
    """Operators return NotImplemented for objects they do not take, so Python raises the
    TypeError PyTorch raises ("unsupported operand type(s) for +: 'Tensor' and 'str'")."""
    def run(t):
        ns = {"t": t, "bad": bad}
        exec(f"t {op} bad" if op != "+=" else "t += bad", ns)  # noqa: S102 - fixed text

    with pytest.raises(TypeError) as theirs:
        run(torch.ones(2))
    with pytest.raises(TypeError) as ours:
        run(af.ones(2))
    assert str(ours.value) == str(theirs.value)
    assert (af.ones(2) == "a") is False and (torch.ones(2) == "a") is False
