"""Checks shared by the seed tests: the same snippet text appears in several documents
(the 2019 note, the notebook, the Chinese translation and the 2020 note all define
``LinearFunction``/``MulConstant``/``Linear``), each is tested as a snippet of each
document with these checks. PyTorch running the original text is the oracle."""

from __future__ import annotations

import numpy as np
import seed_harness as H
from numpy.testing import assert_allclose


def define(snippets: list[str], *, lib: str = "arrayflow", ns: dict | None = None) -> dict:
    """Run ``snippets`` in order in a fresh namespace (or ``ns``) of ``lib``; returns it."""
    ns = H.namespace(lib) if ns is None else ns
    for src in snippets:
        (H.run_torch if lib == "torch" else H.run)(src, ns)
    return ns


def both(snippets: list[str]) -> tuple[dict, dict]:
    return define(snippets), define(snippets, lib="torch")


def check_linear_apply(apply_af, apply_torch, *, seed=0):
    """``apply(input, weight[, bias])`` against PyTorch: values and every gradient, with and
    without bias, and with only some inputs requiring grad (``needs_input_grad``)."""
    rng = np.random.default_rng(seed)
    x, w, b = rng.normal(size=(10, 4)), rng.normal(size=(3, 4)), rng.normal(size=(3,))
    g = rng.normal(size=(10, 3))
    for with_bias in (True, False):
        for needs in ((True, True, True), (False, True, False), (True, False, True)):
            xa, xt = H.pair(x, requires_grad=needs[0])
            wa, wt = H.pair(w, requires_grad=needs[1])
            ba, bt = H.pair(b, requires_grad=needs[2])
            args_a = (xa, wa, ba) if with_bias else (xa, wa)
            args_t = (xt, wt, bt) if with_bias else (xt, wt)
            out_a, out_t = apply_af(*args_a), apply_torch(*args_t)
            assert out_a.shape == tuple(out_t.shape) == (10, 3)
            assert_allclose(H.numpy_of(out_a), H.numpy_of(out_t), rtol=1e-12)
            assert_allclose(H.numpy_of(out_a), x @ w.T + (b if with_bias else 0), rtol=1e-12)
            ga, gt = H.pair(g)
            out_a.backward(ga)
            out_t.backward(gt)
            for ta, tt in zip(args_a, args_t):
                if tt.requires_grad:
                    assert ta.grad is not None and ta.grad.shape == tuple(tt.grad.shape)
                    assert_allclose(H.numpy_of(ta.grad), H.numpy_of(tt.grad), rtol=1e-12)
                else:
                    assert ta.grad is None and tt.grad is None


def check_mul_constant(mc_af, mc_torch):
    """``MulConstant.apply(t, c)``: values, gradient ``c``, no gradient for ``c``."""
    x = np.array([[1.0, -2.0, 3.5], [0.25, 4.0, -1.0]])
    for c in (2.0, -0.5, 3):
        xa, xt = H.pair(x, requires_grad=True)
        ya, yt = mc_af.apply(xa, c), mc_torch.apply(xt, c)
        assert_allclose(H.numpy_of(ya), x * c)
        assert_allclose(H.numpy_of(ya), H.numpy_of(yt))
        assert type(ya.grad_fn).__name__ == type(yt.grad_fn).__name__ == "MulConstantBackward"
        (ya * ya).sum().backward()
        (yt * yt).sum().backward()
        assert_allclose(H.numpy_of(xa.grad), 2 * x * c * c)
        assert_allclose(H.numpy_of(xa.grad), H.numpy_of(xt.grad))


def check_gradcheck_snippet(src: str, ns_af: dict, ns_torch: dict):
    """The gradcheck snippet prints ``True`` under both; its inputs are what it says."""
    printed_t = H.run_torch(src, ns_torch)
    printed_a = H.run(src, ns_af)
    assert printed_t == "True\n"
    assert printed_a == printed_t
    assert ns_af["test"] is True
    for a, t in zip(ns_af["input"], ns_torch["input"]):
        assert a.shape == tuple(t.shape) and str(a.dtype) == "float64"
        assert a.requires_grad and a.grad_fn is None


def check_linear_module(Linear_af, Linear_torch, *, bias=True):
    """The ``Linear`` Module: parameters, initialisation, forward and backward, against
    PyTorch running the same class with the same parameter values."""
    m_a, m_t = Linear_af(4, 3, bias=bias), Linear_torch(4, 3, bias=bias)
    names = [n for n, _ in m_a.named_parameters()]
    assert names == [n for n, _ in m_t.named_parameters()]
    assert names == (["weight", "bias"] if bias else ["weight"])
    assert m_a.weight.shape == (3, 4) and m_a.weight.requires_grad
    assert str(m_a.weight.dtype) == "float32"
    w = H.numpy_of(m_a.weight)
    assert np.all(np.abs(w) <= 0.1) and np.unique(w).size > 1  # uniform_(-0.1, 0.1) ran
    import torch

    with torch.no_grad():  # same parameters on both sides
        m_t.weight.copy_(torch.tensor(w))
        if bias:
            m_t.bias.copy_(torch.tensor(H.numpy_of(m_a.bias)))
    x = np.random.default_rng(1).normal(size=(5, 4))
    xa, xt = H.pair(x, dtype="float32", requires_grad=True)
    ya, yt = m_a(xa), m_t(xt)
    assert_allclose(H.numpy_of(ya), H.numpy_of(yt), rtol=1e-5, atol=1e-6)
    ya.sum().backward()
    yt.sum().backward()
    assert_allclose(H.numpy_of(xa.grad), H.numpy_of(xt.grad), rtol=1e-5, atol=1e-6)
    assert_allclose(H.numpy_of(m_a.weight.grad), H.numpy_of(m_t.weight.grad), rtol=1e-5)
    if bias:
        assert_allclose(H.numpy_of(m_a.bias.grad), H.numpy_of(m_t.bias.grad), rtol=1e-5)
    return m_a, m_t
