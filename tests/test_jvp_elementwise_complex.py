"""Forward mode of the element-wise ops and ``erf`` against PyTorch's forward AD (issue 14).

``tests/test_ops_jvp.py`` checks every JVP rule against finite differences and the
transposed VJP on real float64 inputs. This file compares the tangents themselves with
``torch.autograd.forward_ad`` where that cannot: complex inputs (forward mode needs no
conjugation; ``abs``, ``sgn``, ``real``, ``imag`` are not holomorphic), mixed real/complex
operands, a tangent on one operand only, Python-scalar operands (which have no tangent),
broadcasting, and PyTorch's edge cases (ties and NaN of ``maximum``/``minimum``,
``nextafter`` ties, ``clamp``'s bounds, zeros of ``pow``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose

import arrayflow as af
import arrayflow.autograd.forward_ad as fwAD

torch = pytest.importorskip("torch")
tfwAD = torch.autograd.forward_ad


def _cplx(rng, shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


_RNG = np.random.default_rng(14)
Z = _cplx(_RNG, (2, 3))
Z2 = _cplx(_RNG, (2, 3))
V3 = _cplx(_RNG, (3,))
R23 = _RNG.standard_normal((2, 3))
R3 = _RNG.standard_normal((3,))


def _torch_np(t):
    return t.detach().resolve_conj().resolve_neg().numpy()


def _af_jvp(f, primals, tangents):
    """``f`` at ``primals`` (NumPy arrays or Python scalars) with ``tangents`` (None: none)."""
    with fwAD.dual_level():
        args = []
        for p, t in zip(primals, tangents):
            if not isinstance(p, np.ndarray):
                args.append(p)
            elif t is None:
                args.append(af.asarray(p))
            else:
                args.append(fwAD.make_dual(af.asarray(p), af.asarray(t)))
        out = f(*args)
        tangent = fwAD.unpack_dual(out).tangent
        return out.numpy(), None if tangent is None else tangent.numpy(), tangent


def _torch_jvp(f, primals, tangents):
    with tfwAD.dual_level():
        args = []
        for p, t in zip(primals, tangents):
            if not isinstance(p, np.ndarray):
                args.append(p)
            elif t is None:
                args.append(torch.tensor(p))
            else:
                args.append(tfwAD.make_dual(torch.tensor(p), torch.tensor(t)))
        out = f(*args)
        tangent = tfwAD.unpack_dual(out).tangent
        return _torch_np(out), None if tangent is None else _torch_np(tangent)


def assert_jvp_matches(f, ft, primals, tangents, *, rtol=1e-10, atol=1e-12):
    """Same primal, same tangent (values, shape, dtype kind) as PyTorch's forward AD."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y, t, t_af = _af_jvp(f, primals, tangents)
        yt, tt = _torch_jvp(ft, primals, tangents)
    assert_allclose(y, yt, rtol=rtol, atol=atol, err_msg="primal")
    if tt is None:  # PyTorch's result has no tangent: neither has ours
        assert t is None, t
        return
    assert t is not None, "no tangent"
    assert t.shape == tt.shape == y.shape, (t.shape, tt.shape, y.shape)
    assert np.iscomplexobj(t) == np.iscomplexobj(tt), (t.dtype, tt.dtype)
    assert t_af.dtype == af.asarray(y).dtype, (t_af.dtype, y.dtype)  # tangent dtype = primal's
    assert_allclose(t, tt, rtol=rtol, atol=atol, err_msg="tangent")


def assert_jvp_matches_fd(f, primals, tangents, *, eps=1e-6, rtol=1e-6, atol=1e-8):
    """The tangent equals central finite differences along the tangents (complex values
    and non-holomorphic functions alike: the JVP is the directional derivative)."""
    y, t, _ = _af_jvp(f, primals, tangents)
    with af.no_grad():
        def at(sign):
            args = [af.asarray(p + sign * eps * d) if d is not None else
                    (af.asarray(p) if isinstance(p, np.ndarray) else p)
                    for p, d in zip(primals, tangents)]
            return f(*args).numpy()
        fd = (at(1) - at(-1)) / (2 * eps)
    assert t is not None and t.shape == y.shape and np.iscomplexobj(t) == np.iscomplexobj(y)
    assert_allclose(t, fd, rtol=rtol, atol=atol)


# --- complex inputs: every complex_ok unary op --------------------------------------------

UNARY = {
    "abs": torch.abs, "acos": torch.acos, "acosh": torch.acosh, "asin": torch.asin,
    "asinh": torch.asinh, "atan": torch.atan, "atanh": torch.atanh, "conj": torch.conj,
    "cos": torch.cos, "cosh": torch.cosh, "exp": torch.exp, "expm1": torch.expm1,
    "log": torch.log, "log1p": torch.log1p, "log2": torch.log2, "log10": torch.log10,
    "negative": torch.neg, "positive": torch.positive, "reciprocal": torch.reciprocal,
    "sin": torch.sin, "sinh": torch.sinh, "sqrt": torch.sqrt, "square": torch.square,
    "tan": torch.tan, "tanh": torch.tanh, "real": torch.real, "imag": torch.imag,
    "sign": torch.sgn,
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_complex(name):
    assert_jvp_matches(getattr(af, name), UNARY[name], [Z], [Z2])


@pytest.mark.parametrize("name", ["abs", "sign"])
def test_abs_sign_complex_at_zero(name):
    # |z| and sgn(z) at z == 0: PyTorch's tangent is 0 there (no NaN)
    z = np.array([0j, 1 + 1j, -2 + 0j])
    assert_jvp_matches(getattr(af, name), UNARY[name], [z], [np.array([1 + 2j, 1j, 3 - 1j])])


@pytest.mark.parametrize("name", ["abs", "sign", "ceil", "floor", "round", "trunc"])
def test_real_kinks_and_steps_as_torch(name):
    x = np.array([0.0, -0.0, 1.5, -2.5, 3.0])
    assert_jvp_matches(getattr(af, name), getattr(torch, name), [x], [np.arange(1.0, 6.0)])


def test_round_complex_zero_tangent():
    # torch.round has no complex kernel; a piecewise-constant function: zero tangent
    _, t, _ = _af_jvp(af.round, [Z], [Z2])
    assert t.dtype == Z.dtype
    np.testing.assert_array_equal(t, np.zeros_like(Z))


# --- complex binary ops: mixed kinds, one tangent or both, broadcasting -------------------

BINARY = {"add": torch.add, "subtract": torch.sub, "multiply": torch.mul,
          "divide": torch.div, "pow": torch.pow}


def _mixed_pow(name, kinds, which):
    # PyTorch's forward AD of pow with one real and one complex operand keeps only the real
    # part of the real operand's contribution (handle_r_to_c on a tangent): not the
    # derivative (docs/pytorch-differences.md). Those cases are checked against finite
    # differences instead.
    return name == "pow" and kinds != "cc" and which in ("both", "x1" if kinds == "rc" else "x2")


@pytest.mark.parametrize("which", ["both", "x1", "x2"])
@pytest.mark.parametrize("kinds", ["cc", "rc", "cr"])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_complex_broadcast(name, kinds, which):
    a = Z if kinds[0] == "c" else R23
    b = V3 if kinds[1] == "c" else R3
    ta = Z2 if kinds[0] == "c" else R23[::-1].copy()
    tb = V3[::-1].copy() if kinds[1] == "c" else R3 * 2
    tangents = [ta if which != "x2" else None, tb if which != "x1" else None]
    if _mixed_pow(name, kinds, which):
        assert_jvp_matches_fd(af.pow, [a, b], tangents)
    else:
        assert_jvp_matches(getattr(af, name), BINARY[name], [a, b], tangents)


def test_pow_mixed_real_complex_is_the_derivative_not_torchs():
    # the case where PyTorch differs: arrayflow's tangent is complex, PyTorch's real part only
    x1, x2 = np.array([-1.3, 0.7]), np.array([0.5 + 0.3j, -1.2 + 2j])
    d1 = np.array([1.0, -2.0])
    _, t, _ = _af_jvp(af.pow, [x1, x2], [d1, None])
    _, tt = _torch_jvp(torch.pow, [x1, x2], [d1, None])
    exact = d1 * x2 * x1.astype(complex) ** (x2 - 1)
    assert_allclose(t, exact, rtol=1e-12)
    assert_allclose(tt, exact.real, rtol=1e-12)  # PyTorch 2.13 drops the imaginary part


@pytest.mark.parametrize("scalar", [2, 0.5, 1 + 1j, -2.0, 0.0, 0])
def test_pow_python_scalar_exponent(scalar):
    assert_jvp_matches(lambda z: z ** scalar, lambda z: z ** scalar, [Z], [Z2])
    if isinstance(scalar, complex):  # real base, complex exponent: PyTorch's real part only
        assert_jvp_matches_fd(lambda x: x ** scalar, [np.abs(R23)], [R23])
    else:
        assert_jvp_matches(lambda x: x ** scalar, lambda x: x ** scalar, [np.abs(R23)], [R23])


@pytest.mark.parametrize("scalar", [2, 0.5, 1 + 1j, -2.0, 0.0])
def test_pow_python_scalar_base(scalar):
    assert_jvp_matches(lambda z: scalar ** z, lambda z: scalar ** z, [Z], [Z2])
    x = np.array([0.0, 2.0, -1.0, 0.5])
    if isinstance(scalar, complex):  # complex base, real exponent: as above
        assert_jvp_matches_fd(lambda e: scalar ** e, [x], [np.ones(4)])
    else:
        assert_jvp_matches(lambda e: scalar ** e, lambda e: scalar ** e, [x], [np.ones(4)])


def test_pow_zero_base_and_zero_exponent_as_torch():
    # d/dx1 is 0 where x2 == 0; d/dx2 is 0 where x1 == 0 and x2 >= 0, -inf where x2 < 0
    x1 = np.array([0.0, 0.0, 0.0, 2.0, 3.0])
    x2 = np.array([0.0, 2.0, -1.0, 0.0, 0.5])
    t1, t2 = np.array([1.0, 2.0, 3.0, 4.0, 5.0]), np.array([0.5, 1.5, 2.5, 3.5, 4.5])
    for ts in ([t1, t2], [t1, None], [None, t2]):
        assert_jvp_matches(af.pow, torch.pow, [x1, x2], ts)
    z1 = np.array([0j, 1 + 1j])  # (0j ** 0j is NaN in PyTorch, 1 in NumPy: left out)
    z2 = np.array([2 + 0j, 1j])
    assert_jvp_matches(af.pow, torch.pow, [z1, z2], [np.ones(2) * (1 + 1j), np.ones(2) * 1j])


# --- Python-scalar operands have no tangent; one tangent broadcasts -----------------------

SCALAR_OPS = [
    ("add", lambda x: x + 2.5, lambda x: x + 2.5),
    ("radd", lambda x: 2.5 + x, lambda x: 2.5 + x),
    ("add-fn", lambda x: af.add(x, 2.5), lambda x: torch.add(x, 2.5)),
    ("subtract", lambda x: x - 2.5, lambda x: x - 2.5),
    ("rsubtract", lambda x: 2.5 - x, lambda x: 2.5 - x),
    ("multiply", lambda x: 3 * x, lambda x: 3 * x),
    ("divide", lambda x: x / 4, lambda x: x / 4),
    ("rdivide", lambda x: 4 / x, lambda x: 4 / x),
    ("maximum", lambda x: af.maximum(x, 0.25), lambda x: torch.clamp_min(x, 0.25)),
    ("minimum", lambda x: af.minimum(0.25, x), lambda x: torch.clamp_max(x, 0.25)),
    ("atan2", lambda x: af.atan2(x, 1.5), lambda x: torch.atan2(x, torch.tensor(1.5,
                                                                               dtype=x.dtype))),
    ("remainder", lambda x: x % 0.75, lambda x: x % 0.75),
    # torch's remainder(Scalar, Tensor) has no forward AD; its Tensor-Tensor form has
    ("rremainder", lambda x: 0.75 % x,
     lambda x: torch.remainder(torch.tensor(0.75, dtype=x.dtype), x)),
]


@pytest.mark.parametrize("case", SCALAR_OPS, ids=lambda c: c[0])
def test_python_scalar_operand_has_no_tangent(backend, case):
    # "linear" applied to the tangents would compute dx + 2.5 for x + 2.5: a silent wrong
    _, f, ft = case
    x = np.array([0.5, -1.25, 2.0, 0.125])
    assert_jvp_matches(f, ft, [x], [np.array([1.0, 2.0, -3.0, 0.5])])


BROADCAST = ["add", "subtract", "multiply", "divide", "pow", "atan2", "copysign", "hypot",
             "logaddexp", "maximum", "minimum", "nextafter", "remainder"]


@pytest.mark.parametrize("which", ["x1", "x2", "both"])
@pytest.mark.parametrize("name", BROADCAST)
def test_real_binary_broadcast_one_tangent(backend, name, which):
    x1 = np.abs(_RNG.standard_normal((3, 1))) + 0.5
    x2 = _RNG.standard_normal((1, 4))
    t1 = _RNG.standard_normal((3, 1))
    t2 = _RNG.standard_normal((1, 4))
    ft = getattr(torch, {"subtract": "sub", "multiply": "mul", "divide": "div"}.get(name, name))
    assert_jvp_matches(getattr(af, name), ft, [x1, x2],
                       [t1 if which != "x2" else None, t2 if which != "x1" else None])


# --- real binary ops: PyTorch's edge cases -------------------------------------------------

def test_maximum_minimum_ties_and_nan_as_torch():
    # ties: the mean of the tangents; NaN: PyTorch's formula gives the tangent of x2
    x1 = np.array([1.0, 2.0, -1.0, np.nan, 3.0])
    x2 = np.array([1.0, 1.0, 0.0, 2.0, np.nan])
    t1, t2 = np.array([1.0, 2.0, 3.0, 4.0, 5.0]), np.array([10.0, 20.0, 30.0, 40.0, 50.0])
    for name in ("maximum", "minimum"):
        for ts in ([t1, t2], [t1, None], [None, t2]):
            assert_jvp_matches(getattr(af, name), getattr(torch, name), [x1, x2], ts)


def test_nextafter_as_torch():
    x1 = np.array([0.0, 1.0, 2.0, np.nan])
    x2 = np.array([1.0, 1.0, -3.0, 1.0])
    t = np.array([1.0, 2.0, 3.0, 4.0])
    assert_jvp_matches(af.nextafter, torch.nextafter, [x1, x2], [t, t * 10])
    assert_jvp_matches(af.nextafter, torch.nextafter, [x1, x2], [None, t])


@pytest.mark.parametrize("name", ["atan2", "copysign", "hypot", "logaddexp", "remainder"])
def test_real_binary_special_values_as_torch(name):
    x1 = np.array([0.0, -0.0, 1.5, -2.0, np.inf, 3.0, 0.0])
    x2 = np.array([0.0, 2.0, -0.0, 5.0, 1.0, -np.inf, -1.0])
    t1, t2 = np.arange(1.0, 8.0), np.arange(7.0, 0.0, -1.0)
    for ts in ([t1, t2], [t1, None], [None, t2]):
        assert_jvp_matches(getattr(af, name), getattr(torch, name), [x1, x2], ts)


def test_floor_divide_zero_tangent():
    # PyTorch has no forward AD for floor_divide (NotImplementedError); a piecewise-constant
    # function: a zero tangent (docs/pytorch-differences.md)
    x1, x2 = np.array([5.0, -3.0, 1.0]), np.array([2.0, 2.0, 0.5])
    _, t, _ = _af_jvp(af.floor_divide, [x1, x2], [np.ones(3), np.ones(3)])
    np.testing.assert_array_equal(t, np.zeros(3))
    with tfwAD.dual_level(), pytest.raises(NotImplementedError, match="floor_divide"):
        torch.floor_divide(tfwAD.make_dual(torch.tensor(x1), torch.ones(3)), torch.tensor(x2))


# --- clip: PyTorch's clamp (Scalar bounds) and clamp_jvp (Tensor bounds) --------------------

_X = np.array([0.0, 1.0, 3.0, 1.5, 2.0, np.nan])
_TX = np.arange(1.0, 7.0)


@pytest.mark.parametrize("bounds", [(1.0, 2.0), (1.0, None), (None, 2.0)])
def test_clip_scalar_bounds_as_torch(backend, bounds):
    lo, hi = bounds
    assert_jvp_matches(lambda x: af.clip(x, lo, hi), lambda x: torch.clamp(x, lo, hi),
                       [_X], [_TX])


_LO = np.array([1.0, 1.0, 1.0, 0.5, 2.0, 1.0])
_HI = np.array([2.0, 2.0, 2.0, 2.0, 2.0, 2.0])


@pytest.mark.parametrize("tangents", ["all", "x", "min", "max"])
def test_clip_tensor_bounds_as_torch(backend, tangents):
    tx = _TX if tangents in ("all", "x") else None
    tlo = _TX * 10 if tangents in ("all", "min") else None
    thi = _TX * 100 if tangents in ("all", "max") else None
    assert_jvp_matches(lambda x, a, b: af.clip(x, a, b), lambda x, a, b: torch.clamp(x, a, b),
                       [_X, _LO, _HI], [tx, tlo, thi])
    lo_gt_hi = _LO + np.array([0, 0, 0, 2.0, 0, 0])  # min > max at index 3: max's tangent
    if backend != "strict":  # array_api_strict's clip rejects min > max
        assert_jvp_matches(lambda x, a, b: af.clip(x, a, b),
                           lambda x, a, b: torch.clamp(x, a, b), [_X, lo_gt_hi, _HI],
                           [tx, tlo, thi])
        assert_jvp_matches(lambda x: af.clip(x, 2.0, 1.0), lambda x: torch.clamp(x, 2.0, 1.0),
                           [_X], [_TX])
    assert_jvp_matches(lambda x, a: af.clip(x, min=a), lambda x, a: torch.clamp(x, min=a),
                       [_X, _LO], [tx, tlo])
    assert_jvp_matches(lambda x, b: af.clip(x, max=b), lambda x, b: torch.clamp(x, max=b),
                       [_X, _HI], [tx, thi])


def test_clip_broadcast_bound_tangent(backend):
    x = np.array([[0.0, 1.5, 3.0], [1.0, 2.5, -1.0]])
    lo = np.array([0.5, 1.0, 2.0])
    assert_jvp_matches(lambda a, b: af.clip(a, b, 2.75), lambda a, b: torch.clamp(
        a, b, torch.tensor(2.75, dtype=torch.float64)), [x, lo], [None, np.ones(3)])


# --- erf --------------------------------------------------------------------------------------

def test_erf_as_torch(backend):
    x = np.array([0.0, -0.5, 1.0, 2.5, -7.0, np.inf, np.nan])
    assert_jvp_matches(af.erf, torch.erf, [x], [np.arange(1.0, 8.0)])


# --- rules differentiate again: forward-over-reverse on complex input ----------------------

@pytest.mark.parametrize("name", ["sqrt", "log", "tanh", "reciprocal", "abs"])
def test_jvp_of_the_gradient_complex(name):
    # Hessian-vector product of L(z) = re(sum(f(z) * conj(w))): the tangent of the gradient
    # (the JVP rules of the ops inside the VJP) equals torch's forward-over-reverse.
    w = Z2
    z = af.asarray(Z, requires_grad=True)
    with fwAD.dual_level():
        zd = fwAD.make_dual(z, af.asarray(V3 * np.ones((2, 1))))
        y = getattr(af, name)(zd)
        loss = af.sum(af.real(y * af.conj(af.asarray(w))))
        (g,) = af.autograd.grad(loss, [zd], create_graph=True)
        tg = fwAD.unpack_dual(g).tangent
    zt = torch.tensor(Z, requires_grad=True)
    with tfwAD.dual_level():
        ztd = tfwAD.make_dual(zt, torch.tensor(V3 * np.ones((2, 1))))
        yt = UNARY[name](ztd)
        losst = (yt * torch.tensor(w).conj()).real.sum()
        (gt,) = torch.autograd.grad(losst, [ztd], create_graph=True)
        tgt = tfwAD.unpack_dual(gt).tangent
    assert_allclose(g.detach().numpy(), _torch_np(gt), rtol=1e-10, atol=1e-12)
    assert_allclose(tg.detach().numpy(), _torch_np(tgt), rtol=1e-9, atol=1e-11)


# --- ops that need no residual keep none, as PyTorch ---------------------------------------

@pytest.mark.parametrize("name", ["floor", "ceil", "round", "trunc", "negative"])
def test_no_residual_input_changed_in_place_as_torch(backend, name):
    # PyTorch saves nothing for these: an in-place change of the input after the call
    # leaves backward working (arrayflow used to keep the input and raise).
    x = af.asarray([1.5, -2.5, 0.25], requires_grad=True)
    a = x * 1
    y = getattr(af, name)(a)
    a.mul_(2)
    af.sum(y * af.asarray([1.0, 2.0, 3.0])).backward()
    xt = torch.tensor([1.5, -2.5, 0.25], dtype=torch.float64, requires_grad=True)
    at = xt * 1
    yt = getattr(torch, "neg" if name == "negative" else name)(at)
    at.mul_(2)
    (yt * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
    assert_allclose(x.grad.numpy(), _torch_np(xt.grad))


@pytest.mark.parametrize("name", ["positive", "conj", "floor_divide"])
def test_no_residual_for_copies(backend, name):
    # positive and conj copy here (PyTorch returns the input itself for real Tensors);
    # floor_divide's zero gradient needs only the shapes: an in-place change is harmless.
    x = af.asarray([1.5, -2.5, 0.25], requires_grad=True)
    a = x * 1
    y = af.floor_divide(a, 2.0) if name == "floor_divide" else getattr(af, name)(a)
    a.mul_(2)
    af.sum(y).backward()
    expected = np.zeros(3) if name == "floor_divide" else np.ones(3)
    assert_allclose(x.grad.numpy(), expected)


@pytest.mark.parametrize("name", ["floor", "ceil", "round", "trunc", "negative"])
def test_second_backward_without_residual_works_as_torch(backend, name):
    # PyTorch's node saved nothing, so a second backward without retain_graph works
    # (arrayflow kept the input and raised "Trying to backward through the graph a second
    # time").
    x = af.asarray([1.5, -2.5], requires_grad=True)
    loss = af.sum(getattr(af, name)(x))
    loss.backward()
    loss.backward()
    xt = torch.tensor([1.5, -2.5], dtype=torch.float64, requires_grad=True)
    losst = getattr(torch, "neg" if name == "negative" else name)(xt).sum()
    losst.backward()
    losst.backward()
    assert_allclose(x.grad.numpy(), _torch_np(xt.grad))
