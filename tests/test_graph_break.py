"""Graph breaks are loud (issue 16, "Silent detach"): ``np.asarray``/``np.array`` of a Tensor
that requires grad warns once per call site (``af.GraphBreakWarning``), raises under the
``"error"`` policy (PyTorch raises ``RuntimeError``), or is silent under ``"ignore"``;
``t.numpy()`` and DLPack export raise as PyTorch's whatever the policy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arrayflow as af

torch = pytest.importorskip("torch")

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])


@pytest.fixture(autouse=True)
def _restore_policy():
    before = af.get_graph_break_policy()
    yield
    af.set_graph_break_policy(before)


def _leaf(x=X):
    return af.asarray(x, dtype=af.float64).requires_grad_(True)


def test_public_names():
    assert issubclass(af.GraphBreakWarning, UserWarning)
    assert issubclass(af.GraphBreakError, RuntimeError)
    assert af.get_graph_break_policy() == "warn"


@pytest.mark.parametrize("convert", [np.asarray, np.array, lambda t: t.__array__()])
def test_asarray_of_requires_grad_warns_with_grad_fn(backend, convert):
    t = af.exp(_leaf())
    with pytest.warns(af.GraphBreakWarning, match=r"Tensor\.__array__.*ExpBackward0") as rec:
        out = convert(t)
    np.testing.assert_allclose(out, np.exp(X))  # the values still come (policy "warn")
    assert type(out) is np.ndarray
    assert rec[0].filename == __file__  # the call site, not arrayflow or NumPy


def test_leaf_is_named_in_message():
    with pytest.warns(af.GraphBreakWarning, match=r"leaf \(grad_fn=None\)"):
        np.asarray(_leaf())


def test_warns_once_per_call_site():
    t = _leaf()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("default")
        for _ in range(3):
            np.asarray(t)  # one call site, three calls
        np.asarray(t)  # a second call site
    breaks = [w for w in rec if issubclass(w.category, af.GraphBreakWarning)]
    assert len(breaks) == 2
    assert {w.filename for w in breaks} == {__file__}
    assert breaks[1].lineno == breaks[0].lineno + 1  # the two call sites


def test_call_site_through_numpy_python_code():
    """np.testing converts inside NumPy's own Python code: the warning names our line."""
    t = _leaf()
    with pytest.warns(af.GraphBreakWarning) as rec:
        np.testing.assert_allclose(t, X)
    assert {w.filename for w in rec} == {__file__}


def test_error_policy_raises_like_torch():
    af.set_graph_break_policy("error")
    assert af.get_graph_break_policy() == "error"
    with pytest.raises(RuntimeError):
        np.asarray(torch.tensor(X, requires_grad=True))  # PyTorch's rule
    with pytest.raises(af.GraphBreakError, match=r"Tensor\.__array__.*MulBackward0"):
        np.asarray(_leaf() * 2)


def test_ignore_policy_is_silent():
    af.set_graph_break_policy("ignore")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(np.asarray(_leaf()), X)


def test_no_grad_tensor_converts_silently(backend):
    t = af.asarray(X) * 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(np.asarray(t), X * 2)
        np.testing.assert_allclose(np.asarray(_leaf().detach()), X)


def test_bad_policy_raises_and_changes_nothing():
    af.set_graph_break_policy("error")
    for bad in ("raise", None, 1):
        with pytest.raises(ValueError, match="set_graph_break_policy"):
            af.set_graph_break_policy(bad)
    assert af.get_graph_break_policy() == "error"


@pytest.mark.parametrize("policy", ["warn", "error", "ignore"])
def test_numpy_method_raises_whatever_the_policy(policy):
    af.set_graph_break_policy(policy)
    with pytest.raises(RuntimeError):
        torch.tensor(X, requires_grad=True).numpy()
    with pytest.raises(RuntimeError, match="detach"):
        _leaf().numpy()


@pytest.mark.parametrize("policy", ["warn", "error", "ignore"])
def test_dlpack_of_requires_grad_raises_like_torch(policy):
    af.set_graph_break_policy(policy)
    tt = torch.tensor(X, requires_grad=True)
    t = _leaf()
    with pytest.raises(BufferError) as theirs:
        tt.__dlpack__()
    with pytest.raises(BufferError) as ours:
        t.__dlpack__()
    assert str(theirs.value) in str(ours.value)
    with pytest.raises(BufferError):
        np.from_dlpack(tt)
    with pytest.raises(BufferError):
        np.from_dlpack(t)
    np.testing.assert_allclose(np.from_dlpack(t.detach()), X)  # detached exports


@pytest.mark.parametrize("policy", ["warn", "error", "ignore"])
def test_concatenate_keeps_the_graph(policy):
    """np.concatenate on requires-grad Tensors goes through __array_function__: no break."""
    af.set_graph_break_policy(policy)
    a, b = _leaf(), _leaf(X[::-1].copy())
    ta, tb = torch.tensor(X, requires_grad=True), torch.tensor(X[::-1].copy(),
                                                                requires_grad=True)
    w = np.arange(12.0).reshape(4, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = np.concatenate([a, b])
    assert isinstance(out, af.Tensor)
    af.sum(out * af.asarray(w)).backward()
    (torch.cat([ta, tb]) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy())
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy())


@pytest.mark.parametrize("policy", ["warn", "error", "ignore"])
def test_unmapped_numpy_function_never_detaches(policy):
    af.set_graph_break_policy(policy)
    with pytest.raises(TypeError, match=r"numpy\.median"):
        np.median(_leaf())


def test_from_dlpack_of_a_tensor_that_requires_grad_raises_as_torch(backend):
    torch = pytest.importorskip("torch")
    t = af.ones(3, requires_grad=True)
    with pytest.raises(BufferError) as ours:
        af.from_dlpack(t)
    with pytest.raises(BufferError) as theirs:
        torch.from_dlpack(torch.ones(3, requires_grad=True))
    assert str(ours.value) == str(theirs.value)
    if backend != "dask":  # (a Dask array has no __dlpack__ to export)
        np.testing.assert_array_equal(af.from_dlpack(t.detach()).numpy(), np.ones(3))
