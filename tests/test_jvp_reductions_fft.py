"""Forward mode (JVP rules) of the reductions, ``where``, ``sort`` and the FFTs, compared
with PyTorch's forward AD (``torch.autograd.forward_ad``) on the same inputs and tangents.

The generated checks (``tests/test_ops_jvp.py``: finite differences, the transposed VJP,
Dask lazy) run on one float64 sample per case; these cover what they cannot: zeros in
``prod``/``cumulative_prod`` (no NaN from dividing by them), ties in ``max``/``min``
(PyTorch's ``amaxamin_jvp``: the mean of the tied tangents), ``std``/``var`` corrections
including ``n - correction <= 0``, complex inputs, and the complex-to-real FFTs
(``irfft``/``hfft`` of a complex tangent whose DC bin has an imaginary part).
"""

# The lambdas built in loops are called at once (B023 does not apply).
# ruff: noqa: B023

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import forbid_compute, on_backend

import arrayflow as af
import arrayflow.autograd.forward_ad as fwAD

torch = pytest.importorskip("torch")
tfwAD = torch.autograd.forward_ad

RNG = np.random.default_rng(20261123)


def _c(shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def _r(shape):
    return RNG.standard_normal(shape)


def _af_jvp(fn, primals, tangents):
    """The tangent of ``fn(*duals)`` (a NumPy array) on the current backend."""
    with fwAD.dual_level():
        duals = [fwAD.make_dual(af.asarray(p), af.asarray(t))
                 for p, t in zip(primals, tangents)]
        out = fn(*duals)
        t = fwAD.unpack_dual(out).tangent
        assert t is not None, "no tangent on the output"
        return t.numpy()


def _torch_jvp(fn, primals, tangents):
    with tfwAD.dual_level():
        duals = [tfwAD.make_dual(torch.tensor(p), torch.tensor(t))
                 for p, t in zip(primals, tangents)]
        t = tfwAD.unpack_dual(fn(*duals)).tangent
        return t.detach().resolve_conj().resolve_neg().numpy()


def _compare(af_fn, torch_fn, primals, tangents, rtol=1e-10, atol=1e-12, finite=True):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = _af_jvp(af_fn, primals, tangents)
        want = _torch_jvp(torch_fn, primals, tangents)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    if finite:
        assert np.all(np.isfinite(want)), "the reference itself is not finite"
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


# --- prod --------------------------------------------------------------------------------------

PROD_INPUTS = {
    "no-zero": np.array([[1.5, -2.0, 0.5, 3.0], [0.7, 1.1, -1.3, 2.0]]),
    "one-zero": np.array([[1.5, 0.0, 0.5, 3.0], [0.7, 1.1, -1.3, 0.0]]),
    "two-zeros": np.array([[0.0, 2.0, 0.0, 3.0], [0.0, 0.0, -1.3, 2.0]]),
}


@pytest.mark.parametrize("kind", list(PROD_INPUTS))
@pytest.mark.parametrize("cplx", [False, True], ids=["real", "complex"])
def test_prod_jvp_with_zeros_matches_torch(backend, kind, cplx):
    x = PROD_INPUTS[kind] * ((1 + 0.5j) if cplx else 1)
    t = _c(x.shape) if cplx else _r(x.shape)
    for ax in (1, 0, -1):
        _compare(lambda a: af.prod(a, axis=ax), lambda a: torch.prod(a, dim=ax), [x], [t])
        _compare(lambda a: af.prod(a, axis=ax, keepdims=True),
                 lambda a: torch.prod(a, dim=ax, keepdim=True), [x], [t])
    # all axes: over the rows alone (one zero at most) and over everything
    _compare(lambda a: af.prod(a[0]), lambda a: torch.prod(a[0]), [x], [t])
    _compare(lambda a: af.prod(a), lambda a: torch.prod(a), [x], [t])


def test_prod_jvp_over_several_axes_matches_torch(backend):
    # PyTorch's prod takes one dim: reduce twice there (the product is associative).
    x = np.array([[[1.5, 0.0], [0.5, 3.0]], [[0.7, 1.1], [-1.3, 2.0]], [[0.2, 0.0], [0.0, 1]]])
    t = _r(x.shape)
    _compare(lambda a: af.prod(a, axis=(0, 2)),
             lambda a: torch.prod(torch.prod(a, dim=2), dim=0), [x], [t])


def test_prod_jvp_reverse_over_forward_at_zeros_matches_torch(backend):
    # The gradient of the tangent (reverse over forward): finite and equal to PyTorch's.
    x = PROD_INPUTS["one-zero"]
    t = _r(x.shape)
    with fwAD.dual_level():
        xa = af.asarray(x)
        xa.requires_grad_(True)
        y = af.prod(fwAD.make_dual(xa, af.asarray(t)), axis=1)
        (g,) = af.autograd.grad(af.sum(fwAD.unpack_dual(y).tangent), [xa])
    with tfwAD.dual_level():
        xt = torch.tensor(x, requires_grad=True)
        yt = torch.prod(tfwAD.make_dual(xt, torch.tensor(t)), dim=1)
        (gt,) = torch.autograd.grad(tfwAD.unpack_dual(yt).tangent.sum(), [xt])
    assert np.all(np.isfinite(g.numpy()))
    np.testing.assert_allclose(g.numpy(), gt.numpy(), rtol=1e-10, atol=1e-12)


# --- max / min ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["max", "min"])
def test_amax_amin_jvp_with_ties_matches_torch(backend, name):
    tname = {"max": "amax", "min": "amin"}[name]
    f, tf = getattr(af, name), getattr(torch, tname)
    x = np.array([[[1.0, 3.0], [3.0, -2.0]], [[-2.0, -2.0], [-2.0, 0.5]],
                  [[2.0, 2.0], [2.0, 2.0]]])
    t = _r(x.shape)
    _compare(lambda a: f(a), lambda a: tf(a), [x], [t])
    for ax in (0, 1, 2, (0, 2), (1, 2)):
        for kd in (False, True):
            _compare(lambda a: f(a, axis=ax, keepdims=kd), lambda a: tf(a, dim=ax, keepdim=kd),
                     [x], [t])


def test_amax_jvp_with_nan_is_nan_as_torch(backend):
    x = np.array([[1.0, np.nan], [2.0, 3.0]])
    t = _r(x.shape)
    for name, tname in (("max", "amax"), ("min", "amin")):
        _compare(lambda a: getattr(af, name)(a, axis=1),
                 lambda a: getattr(torch, tname)(a, dim=1), [x], [t], finite=False)


# --- std / var ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["std", "var"])
@pytest.mark.parametrize("correction", [0, 1, 1.5, 2, 3, 4])
@pytest.mark.parametrize("axis, keepdims", [(1, False), (0, True), ((0, 1), False),
                                            (None, False)])
@pytest.mark.parametrize("cplx", [False, True], ids=["real", "complex"])
def test_std_var_jvp_matches_torch(backend, request, name, correction, axis, keepdims, cplx):
    if cplx and backend == "strict":
        pytest.skip("array_api_strict's std/var take real floating input only")
    x = _c((2, 3)) if cplx else _r((2, 3))
    t = _c((2, 3)) if cplx else _r((2, 3))
    n = {1: 3, 0: 2}.get(axis, 6)
    if backend == "dask" and n - correction < 0 and name == "std":
        # the forward, not the rule: Dask's std is NaN there, NumPy's and PyTorch's inf
        request.applymarker(pytest.mark.xfail(
            strict=True, reason="Dask's var/std with n - correction < 0 is NaN, not inf"))
    f, tf = getattr(af, name), getattr(torch, name)
    kw = {} if axis is None else {"dim": axis, "keepdim": keepdims}
    # n - correction <= 0: inf/NaN (PyTorch's values, compared as they are)
    _compare(lambda a: f(a, axis=axis, correction=correction, keepdims=keepdims),
             lambda a: tf(a, correction=correction, **kw), [x], [t],
             finite=n - correction > 0)


@pytest.mark.parametrize("name", ["std", "var"])
@pytest.mark.parametrize("correction", [6, 7])
def test_std_var_jvp_without_degrees_of_freedom_matches_torch(backend, name, correction):
    # A full reduction with n - correction <= 0: PyTorch's var_backward path (NaN where x
    # equals the mean, inf elsewhere), for a constant and a varying input.
    f, tf = getattr(af, name), getattr(torch, name)
    for x in (np.full((2, 3), 0.5), _r((2, 3))):
        t = _r(x.shape)
        _compare(lambda a: f(a, correction=correction), lambda a: tf(a, correction=correction),
                 [x], [t], finite=False)


def test_std_jvp_of_a_constant_is_zero_as_torch(backend):
    x = np.full((2, 4), 1.25)
    t = _r(x.shape)
    _compare(lambda a: af.std(a, axis=1, correction=1), lambda a: torch.std(a, dim=1),
             [x], [t])


def test_mean_jvp_matches_torch(backend):
    x, t = _r((2, 3, 4)), _r((2, 3, 4))
    _compare(lambda a: af.mean(a, axis=(0, 2), keepdims=True),
             lambda a: torch.mean(a, dim=(0, 2), keepdim=True), [x], [t])


# --- cumulative_prod / cumulative_sum ------------------------------------------------------------

CUMPROD_INPUTS = {
    "no-zero": np.array([[1.5, -2.0, 0.5, 3.0, 0.9], [0.7, 1.1, -1.3, 2.0, 0.4]]),
    "zeros": np.array([[1.5, 0.0, 0.5, 0.0, 3.0], [0.0, 1.1, -1.3, 2.0, 0.0]]),
    "zero-last": np.array([[1.5, 2.0, 0.5, 3.0, 0.0], [0.7, 1.1, 0.0, 0.0, 0.0]]),
}


@pytest.mark.parametrize("kind", list(CUMPROD_INPUTS))
@pytest.mark.parametrize("cplx", [False, True], ids=["real", "complex"])
def test_cumprod_jvp_with_zeros_matches_torch(backend, kind, cplx):
    x = CUMPROD_INPUTS[kind] * ((1 - 0.5j) if cplx else 1)
    t = _c(x.shape) if cplx else _r(x.shape)
    for ax in (1, 0, -1):
        _compare(lambda a: af.cumulative_prod(a, axis=ax), lambda a: torch.cumprod(a, dim=ax),
                 [x], [t])
    # include_initial: PyTorch's cumprod of the input with a row of ones prepended
    _compare(lambda a: af.cumulative_prod(a, axis=1, include_initial=True),
             lambda a: torch.cumprod(torch.cat([torch.ones_like(a[:, :1]), a], dim=1), dim=1),
             [x], [t])
    _compare(lambda a: af.cumulative_prod(a[0]), lambda a: torch.cumprod(a[0], dim=0),
             [x], [t])


def _torch_cumprod_tangent_exact(x, t):
    """T_k = sum_{j<=k} t_j prod_{i<=k, i != j} x_i along the last axis, as products only
    (PyTorch's prod backward is exact at zeros): a reference differentiable at zeros."""
    n = x.shape[-1]
    i = torch.arange(n)
    k, j, ii = i[:, None, None], i[None, :, None], i[None, None, :]
    keep = (ii <= k) & (ii != j)  # [k, j, i]
    xs = torch.where(keep, x[..., None, None, :], torch.ones((), dtype=x.dtype))
    terms = torch.prod(xs, dim=-1) * t[..., None, :]
    return torch.sum(torch.where(j[..., 0] <= k[..., 0], terms, 0.0), dim=-1)


@pytest.mark.parametrize("kind", list(CUMPROD_INPUTS))
def test_cumprod_jvp_reverse_over_forward_at_zeros_matches_torch(backend, kind):
    # The gradient of the tangent: exact at zeros (PyTorch's own cumprod_jvp gives NaN
    # there, so the reference is the tangent written as products).
    x = CUMPROD_INPUTS[kind]
    t, w = _r(x.shape), _r(x.shape)
    with fwAD.dual_level():
        xa = af.asarray(x)
        xa.requires_grad_(True)
        y = af.cumulative_prod(fwAD.make_dual(xa, af.asarray(t)), axis=1)
        (g,) = af.autograd.grad(af.sum(fwAD.unpack_dual(y).tangent * af.asarray(w)), [xa])
    xt = torch.tensor(x, requires_grad=True)
    ref = _torch_cumprod_tangent_exact(xt, torch.tensor(t))
    with tfwAD.dual_level():  # the reference's values are PyTorch's forward AD's
        want = tfwAD.unpack_dual(torch.cumprod(tfwAD.make_dual(
            torch.tensor(x), torch.tensor(t)), dim=1)).tangent
    np.testing.assert_allclose(ref.detach().numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
    (gt,) = torch.autograd.grad(torch.sum(ref * torch.tensor(w)), [xt])
    assert np.all(np.isfinite(gt.numpy()))
    np.testing.assert_allclose(g.numpy(), gt.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind", list(CUMPROD_INPUTS))
@pytest.mark.parametrize("cplx", [False, True], ids=["real", "complex"])
def test_cumprod_double_backward_at_zeros_matches_torch(backend, kind, cplx):
    # The VJP's own gradient (create_graph): the old rule divided by x and patched zeros
    # with masks, right values but a silently wrong second derivative at zeros.
    x = CUMPROD_INPUTS[kind] * ((1 + 0.5j) if cplx else 1)
    g = _c(x.shape) if cplx else _r(x.shape)
    w = _c(x.shape) if cplx else _r(x.shape)
    xa = af.asarray(x)
    xa.requires_grad_(True)
    for include_initial in (False, True):
        y = af.cumulative_prod(xa, axis=1, include_initial=include_initial)
        gy = np.concatenate([_r((2, 1)), g], axis=1) if include_initial else g
        (gx,) = af.autograd.grad(y, [xa], grad_outputs=[af.asarray(gy)], create_graph=True)
        (h,) = af.autograd.grad(af.real(af.sum(gx * af.asarray(w))), [xa])
        xt = torch.tensor(x, requires_grad=True)
        yt = torch.cumprod(xt, dim=1)
        if include_initial:
            yt = torch.cat([torch.ones_like(yt[:, :1]), yt], dim=1)
        (gxt,) = torch.autograd.grad(yt, [xt], grad_outputs=[torch.tensor(gy).to(yt.dtype)],
                                     create_graph=True)
        (ht,) = torch.autograd.grad(torch.real(torch.sum(gxt * torch.tensor(w))), [xt])
        np.testing.assert_allclose(gx.detach().numpy(), gxt.detach().resolve_conj().numpy(),
                                   rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(h.numpy(), ht.resolve_conj().numpy(), rtol=1e-10,
                                   atol=1e-12)


def test_cumprod_forward_over_forward_at_zeros_is_torchs_reverse_over_reverse(backend):
    # docs/pytorch-differences.md: PyTorch's jacfwd(jacfwd(cumprod)) at zeros differs from
    # its own (exact) jacrev(jacrev(cumprod)); arrayflow's forward-over-forward is exact.
    x = CUMPROD_INPUTS["zeros"][0]
    h = af.func.jacfwd(af.func.jacfwd(lambda a: af.cumulative_prod(a, axis=0)))(af.asarray(x))
    want = torch.func.jacrev(torch.func.jacrev(lambda a: torch.cumprod(a, 0)))(torch.tensor(x))
    np.testing.assert_allclose(h.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


def test_cumprod_jvp_of_a_0d_input_matches_torch(backend):
    x, t = np.array(0.0), np.array(1.5)
    _compare(lambda a: af.cumulative_prod(a), lambda a: torch.cumprod(a, dim=0), [x], [t])
    _compare(lambda a: af.cumulative_prod(a, include_initial=True),
             lambda a: torch.cumprod(torch.stack([torch.ones_like(a), a]), dim=0), [x], [t])


def test_cumsum_jvp_matches_torch(backend):
    x, t = _r((3, 4)), _r((3, 4))
    _compare(lambda a: af.cumulative_sum(a, axis=0), lambda a: torch.cumsum(a, dim=0), [x], [t])
    _compare(lambda a: af.cumulative_sum(a, axis=1, include_initial=True),
             lambda a: torch.cumsum(torch.cat([torch.zeros_like(a[:, :1]), a], dim=1), dim=1),
             [x], [t])


# --- diff --------------------------------------------------------------------------------------

def test_diff_jvp_with_prepend_append_tangents_matches_torch(backend):
    x, tx = _r((2, 5)), _r((2, 5))
    p, tp = _r((2, 2)), _r((2, 2))
    q, tq = _r((2, 1)), _r((2, 1))
    for n in (1, 2, 3):
        # every subset of the three has a tangent
        _compare(lambda a, b, c: af.diff(a, n=n, prepend=b, append=c),
                 lambda a, b, c: torch.diff(a, n=n, prepend=b, append=c),
                 [x, p, q], [tx, tp, tq])
        _compare(lambda b: af.diff(af.asarray(x), n=n, prepend=b, append=af.asarray(q)),
                 lambda b: torch.diff(torch.tensor(x), n=n, prepend=b, append=torch.tensor(q)),
                 [p], [tp])
        _compare(lambda c: af.diff(af.asarray(x), n=n, prepend=af.asarray(p), append=c),
                 lambda c: torch.diff(torch.tensor(x), n=n, prepend=torch.tensor(p), append=c),
                 [q], [tq])
        _compare(lambda a: af.diff(a, n=n, prepend=af.asarray(p), append=af.asarray(q)),
                 lambda a: torch.diff(a, n=n, prepend=torch.tensor(p), append=torch.tensor(q)),
                 [x], [tx])
    r, tr = _r((1, 5)), _r((1, 5))
    _compare(lambda a, b: af.diff(a, axis=0, prepend=b), lambda a, b: torch.diff(
        a, dim=0, prepend=b), [x, r], [tx, tr])


def test_diff_jvp_scalar_and_integer_edges_have_no_tangent(backend):
    # A Python scalar or an integer Tensor joined to x contributes 0 to the tangent, not
    # its value (torch.diff takes Tensor edges only: the scalar is one slice of it).
    x, tx = _r((2, 4)), _r((2, 4))
    _compare(lambda a: af.diff(a, prepend=2.5, append=-1.0),
             lambda a: torch.diff(a, prepend=torch.full((2, 1), 2.5, dtype=a.dtype),
                                  append=torch.full((2, 1), -1.0, dtype=a.dtype)), [x], [tx])
    # a 0-d Tensor edge with a tangent is one slice, broadcast
    _compare(lambda a, b: af.diff(a, prepend=b),
             lambda a, b: torch.diff(a, prepend=b.expand(2, 1)), [x, np.array(0.5)],
             [tx, np.array(2.0)])


def test_diff_jvp_integer_edge_has_no_tangent(backend, request):
    if backend == "strict":
        # the forward, not the rule: diff joins the edges with concat, unpromoted
        request.applymarker(pytest.mark.xfail(
            raises=TypeError, strict=True,
            reason="diff(float x, append=integer Tensor) raises on array_api_strict"))
    x, tx = _r((2, 4)), _r((2, 4))
    ints = np.array([[3], [4]])
    _compare(lambda a: af.diff(a, append=af.asarray(ints)),
             lambda a: torch.diff(a, append=torch.tensor(ints, dtype=a.dtype)), [x], [tx])


# --- where / sort ------------------------------------------------------------------------------

def test_where_jvp_matches_torch(backend):
    cond = np.array([[True, False, True], [False, False, True]])
    x1, t1 = _r((2, 3)), _r((2, 3))
    x2, t2 = _r((3,)), _r((3,))
    c_af, c_t = (lambda: af.asarray(cond)), (lambda: torch.tensor(cond))
    _compare(lambda a, b: af.where(c_af(), a, b), lambda a, b: torch.where(c_t(), a, b),
             [x1, x2], [t1, t2])
    _compare(lambda a: af.where(c_af(), a, af.asarray(x2)),
             lambda a: torch.where(c_t(), a, torch.tensor(x2)), [x1], [t1])
    _compare(lambda b: af.where(c_af(), af.asarray(x1), b),
             lambda b: torch.where(c_t(), torch.tensor(x1), b), [x2], [t2])
    # a Python scalar or an integer Tensor operand has no tangent (0 there, not its value)
    _compare(lambda a: af.where(c_af(), 2.5, a), lambda a: torch.where(c_t(), 2.5, a),
             [x2], [t2])
    _compare(lambda a: af.where(c_af(), a, -3.0), lambda a: torch.where(c_t(), a, -3.0),
             [x1], [t1])
    ints = np.array([4, -1, 7])
    _compare(lambda a: af.where(c_af(), a, af.asarray(ints)),
             lambda a: torch.where(c_t(), a, torch.tensor(ints)), [x1], [t1])


def test_where_jvp_complex_matches_torch(backend):
    cond = np.array([True, False, True, False])
    x1, t1, x2, t2 = _c(4), _c(4), _c(4), _c(4)
    _compare(lambda a, b: af.where(af.asarray(cond), a, b),
             lambda a, b: torch.where(torch.tensor(cond), a, b), [x1, x2], [t1, t2])


def test_sort_jvp_matches_torch(backend):
    x, t = _r((3, 5)), _r((3, 5))
    for ax in (0, 1):
        for desc in (False, True):
            _compare(lambda a: af.sort(a, axis=ax, descending=desc),
                     lambda a: torch.sort(a, dim=ax, descending=desc).values, [x], [t])


# --- FFT ---------------------------------------------------------------------------------------

NORMS = ["backward", "ortho", "forward"]


@pytest.mark.parametrize("name", ["fft", "ifft", "irfft", "hfft"])
@pytest.mark.parametrize("norm", NORMS)
def test_complex_input_fft_jvp_matches_torch(backend, name, norm):
    # irfft/hfft are linear over the reals only: the imaginary part of the tangent's DC
    # (and Nyquist) bin is dropped, as in PyTorch. The tangents here have one.
    x, t = _c((3, 6)), _c((3, 6))
    assert np.all(t[:, 0].imag != 0)
    f, tf = getattr(af.fft, name), getattr(torch.fft, name)
    for n, ax in ((None, -1), (4, -1), (9, -1), (3, 0), (8, 1), (10, 1)):
        _compare(lambda a: f(a, n=n, axis=ax, norm=norm),
                 lambda a: tf(a, n=n, dim=ax, norm=norm), [x], [t])


@pytest.mark.parametrize("name", ["rfft", "ihfft", "fft", "ifft"])
@pytest.mark.parametrize("norm", NORMS)
def test_real_input_fft_jvp_matches_torch(backend, name, norm):
    if backend == "strict" and name in ("fft", "ifft"):
        pytest.skip("array_api_strict's fft/ifft take complex input only")
    x, t = _r((3, 6)), _r((3, 6))
    f, tf = getattr(af.fft, name), getattr(torch.fft, name)
    for n, ax in ((None, -1), (4, -1), (9, 0)):
        _compare(lambda a: f(a, n=n, axis=ax, norm=norm),
                 lambda a: tf(a, n=n, dim=ax, norm=norm), [x], [t])


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
@pytest.mark.parametrize("norm", NORMS)
def test_nd_fft_jvp_matches_torch(backend, name, norm):
    x = _r((3, 4, 6)) if name == "rfftn" else _c((3, 4, 6))
    t = _r((3, 4, 6)) if name == "rfftn" else _c((3, 4, 6))
    f, tf = getattr(af.fft, name), getattr(torch.fft, name)
    for s, axes in ((None, None), ((4, 5), (0, 2)), (None, (1,)), ((2, 8), None)):
        _compare(lambda a: f(a, s=s, axes=axes, norm=norm),
                 lambda a: tf(a, s=s, dim=axes, norm=norm), [x], [t])


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
def test_fftshift_jvp_matches_torch(backend, name):
    x, t = _c((3, 5)), _c((3, 5))
    f, tf = getattr(af.fft, name), getattr(torch.fft, name)
    for axes in (None, 0, (1,), (0, 1)):
        _compare(lambda a: f(a, axes=axes), lambda a: tf(a, dim=axes), [x], [t])


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
@pytest.mark.parametrize("s, axes", [((2, 8), None), ((3, -1), None), ((-1, 5), (0, 2)),
                                     ((5,), None), ((4, -1, 3), None)])
def test_nd_fft_sizes_without_axes_and_minus_one_match_torch(backend, name, s, axes):
    # The standard requires axes with s; PyTorch reads s alone as the last len(s) axes and
    # -1 as the default size (2 * (m - 1) on irfftn's last axis). Dask transformed the
    # first axes and NumPy's irfftn read a last -1 as m: the data differed silently.
    x = _r((3, 4, 6)) if name == "rfftn" else _c((3, 4, 6))
    got = getattr(af.fft, name)(af.asarray(x), s=s, axes=axes).numpy()
    want = getattr(torch.fft, name)(torch.tensor(x), s=s, dim=axes).numpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_irfftn_gradient_with_minus_one_size_matches_torch(backend):
    # s[-1] == -1 on the last axis was the input's length on NumPy while the VJP assumed
    # PyTorch's 2 * (m - 1): it doubled the wrong bins (a silently wrong gradient).
    x = _c((3, 4, 6))
    xa = af.asarray(x)
    xa.requires_grad_(True)
    y = af.fft.irfftn(xa, s=(3, -1))
    g = _r(tuple(y.shape))
    (ga,) = af.autograd.grad(y, [xa], grad_outputs=[af.asarray(g)])
    xt = torch.tensor(x, requires_grad=True)
    yt = torch.fft.irfftn(xt, s=(3, -1))
    (gt,) = torch.autograd.grad(yt, [xt], grad_outputs=[torch.tensor(g)])
    np.testing.assert_allclose(ga.numpy(), gt.numpy(), rtol=1e-10, atol=1e-12)


# --- Dask: lazily ------------------------------------------------------------------------------

LAZY = [
    ("prod-zeros", lambda a: af.prod(a, axis=1), PROD_INPUTS["two-zeros"]),
    ("cumprod-zeros", lambda a: af.cumulative_prod(a, axis=1, include_initial=True),
     CUMPROD_INPUTS["zeros"]),
    ("amax-ties", lambda a: af.max(a, axis=0), np.array([[1.0, 2.0], [1.0, -1.0]])),
    ("std", lambda a: af.std(a, axis=1, correction=1), CUMPROD_INPUTS["no-zero"]),
    ("irfft", lambda a: af.fft.irfft(a, n=7), CUMPROD_INPUTS["no-zero"] * (1 + 1j)),
    ("hfft", lambda a: af.fft.hfft(a), CUMPROD_INPUTS["no-zero"] * (1 - 1j)),
    ("rfftn", lambda a: af.fft.rfftn(a, s=(3, 4)), CUMPROD_INPUTS["no-zero"]),
    ("diff", lambda a: af.diff(a, n=2, prepend=1.0, append=a[:, :1]), PROD_INPUTS["no-zero"]),
]


@pytest.mark.parametrize("fn, x", [c[1:] for c in LAZY], ids=[c[0] for c in LAZY])
def test_dask_jvp_is_lazy_and_equals_numpy(fn, x):
    t = _c(x.shape) if np.iscomplexobj(x) else _r(x.shape)
    got = {}
    for name in ("numpy", "dask"):
        with on_backend(name), forbid_compute(name):
            with fwAD.dual_level():
                out = fn(fwAD.make_dual(af.asarray(x), af.asarray(t)))
                tangent = fwAD.unpack_dual(out).tangent
        got[name] = tangent.numpy()
    np.testing.assert_allclose(got["dask"], got["numpy"], rtol=1e-12, atol=1e-12)
