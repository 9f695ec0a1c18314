"""A fused custom op with native kernels: GELU, tanh approximation, and its backward.

``gelu_tanh(x) = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x**3)))``, PyTorch's
``torch.nn.functional.gelu(x, approximate="tanh")``, registered with
:mod:`arrayflow.library` as two custom ops:

- ``examples::gelu_tanh(x)``, the forward;
- ``examples::gelu_tanh_backward(g, x)``, ``g * gelu_tanh'(x)``: the fused backward, itself
  differentiable (its own ``register_autograd`` is written with arrayflow ops and the op
  itself), so double backward works.

Each op has three kernels:

(a) the default kernel, written against the array API with arrayflow ops: it runs on
    every backend (``strict`` among them) and is the reference the others are checked
    against;
(b) a Numba ``@njit(parallel=True, fastmath=False)`` CPU kernel registered for ``"numpy"``
    when Numba is importable (``pip install 'arrayflow[kernels]'``), written with
    ``0.5 * (1 + tanh(u)) = 1 / (1 + exp(-2u))`` (one ``exp`` per element) in the input's
    precision. Both ops are declared ``elementwise=True``, so on Dask the NumPy kernel runs
    block by block, lazily, with no Dask code here;
(c) a CuPy ``ElementwiseKernel`` registered for ``"cupy"`` when CuPy is installed and a GPU
    is present.

Why fuse: composed from array API ops, the forward makes about eight full-size
temporaries and autograd records as many nodes whose backward passes make more; a fused
kernel reads ``x`` once and writes the result once in each direction
(``benchmarks/bench_custom_op.py``; numbers in ``docs/custom-ops.md``).

Check it with ``af.library.opcheck(gelu_tanh, [(x,)])`` or::

    arrayflow-conformance function examples::gelu_tanh --import arrayflow.examples.kernels \\
        --inputs arrayflow.examples.kernels:gelu_tanh_inputs

:func:`make_gelu_tanh` registers the pair under other names (with or without the native
kernels): the tests use it for deliberately broken copies.
"""

from __future__ import annotations

import importlib.util
import math
from typing import Any

import arrayflow as af
from arrayflow import Tensor
from arrayflow.library import CustomOpDef

__all__ = ["COEF", "CUPY_BACKWARD_SOURCE", "CUPY_FORWARD_SOURCE", "CUPY_KERNELS",
           "NUMBA_FUNCTIONS", "NUMBA_KERNELS", "SQRT_2_OVER_PI", "cupy_source", "flat_float",
           "gelu_tanh", "gelu_tanh_backward", "gelu_tanh_backward_inputs",
           "gelu_tanh_composed", "gelu_tanh_grad_composed", "gelu_tanh_inputs",
           "gelu_tanh_second_composed", "make_gelu_tanh", "numba_functions",
           "register_cupy_kernels", "register_numba_kernels", "require_floating"]

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
"""``sqrt(2 / pi)``, the scale inside the tanh."""
COEF = 0.044715
"""The cubic coefficient of the tanh approximation."""


# --- (a) the array API version (the default kernels) --------------------------------------------

def require_floating(op: str, **arrays: Any) -> None:
    """Raise RuntimeError (as ``F.gelu`` does) if an argument is not real floating-point.

    Parameters
    ----------
    op : str
        The op's name, for the message.
    **arrays : Tensor
        The arguments by name.

    Raises
    ------
    RuntimeError
        Naming the op, the argument and its dtype.
    """
    for name, a in arrays.items():
        if a.dtype.kind != "real floating":
            raise RuntimeError(f"{op}: argument {name!r} must be a real floating-point Tensor, "
                               f"got dtype {a.dtype}")


def gelu_tanh_composed(x: Tensor) -> Tensor:
    """GELU with the tanh approximation, composed from arrayflow (array API) operations.

    Differentiable through the ops it is made of (autograd records each of them).

    Parameters
    ----------
    x : Tensor
        Any shape, real floating dtype.

    Returns
    -------
    Tensor
        ``0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x**3)))``, shape and dtype of ``x``.
    """
    xp = af.get_namespace(x)
    inner = SQRT_2_OVER_PI * (x + COEF * x * x * x)
    return 0.5 * x * (1.0 + xp.tanh(inner))


def gelu_tanh_grad_composed(x: Tensor) -> Tensor:
    """``d gelu_tanh / dx`` at ``x``, composed from arrayflow operations (shape/dtype of x).

    ``0.5 * (1 + t) + 0.5 * x * (1 - t**2) * sqrt(2/pi) * (1 + 3 * 0.044715 * x**2)`` with
    ``t = tanh(sqrt(2/pi) * (x + 0.044715 * x**3))``.
    """
    xp = af.get_namespace(x)
    x2 = x * x
    t = xp.tanh(SQRT_2_OVER_PI * (x + COEF * x2 * x))
    du = SQRT_2_OVER_PI * (1.0 + 3.0 * COEF * x2)
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * du


def gelu_tanh_second_composed(x: Tensor) -> Tensor:
    """``d2 gelu_tanh / dx2`` at ``x``, composed from arrayflow operations (shape/dtype of x).

    ``s * (u' - x t u'**2 + x u'' / 2)`` with ``u = sqrt(2/pi) (x + 0.044715 x**3)``,
    ``t = tanh(u)``, ``s = 1 - t**2``.
    """
    xp = af.get_namespace(x)
    x2 = x * x
    t = xp.tanh(SQRT_2_OVER_PI * (x + COEF * x2 * x))
    du = SQRT_2_OVER_PI * (1.0 + 3.0 * COEF * x2)
    ddu = SQRT_2_OVER_PI * 6.0 * COEF * x
    return (1.0 - t * t) * (du - x * t * du * du + 0.5 * x * ddu)


# --- the ops ------------------------------------------------------------------------------------

def make_gelu_tanh(name: str = "examples::gelu_tanh", *, numba: bool = True,
                   cupy: bool = True) -> tuple[CustomOpDef, CustomOpDef]:
    """Register the forward op ``name`` and its backward op ``name + "_backward"``.

    Parameters
    ----------
    name : str
        ``"namespace::name"`` of the forward op (unique: registering twice raises).
    numba, cupy : bool
        Also register the Numba (``"numpy"``) / CuPy (``"cupy"``) kernels where they can
        run here.

    Returns
    -------
    (CustomOpDef, CustomOpDef)
        The forward op ``(x) -> y`` and the backward op ``(g, x) -> g * gelu_tanh'(x)``.

    Raises
    ------
    ValueError, RuntimeError
        As :func:`arrayflow.library.custom_op` (a bad or already registered name).
    """
    fwd_name, bwd_name = name, name + "_backward"

    @af.library.custom_op(fwd_name, mutates_args=(), elementwise=True)
    def forward(x: Tensor) -> Tensor:
        require_floating(fwd_name, x=x)
        return gelu_tanh_composed(x)

    def check_backward_args(g, x):
        require_floating(bwd_name, g=g, x=x)
        if tuple(g.shape) != tuple(x.shape):
            raise RuntimeError(f"{bwd_name}: g and x must have the same shape, got "
                               f"{tuple(g.shape)} and {tuple(x.shape)}")

    @af.library.custom_op(bwd_name, mutates_args=(), elementwise=True)
    def backward(g: Tensor, x: Tensor) -> Tensor:
        check_backward_args(g, x)
        return g * gelu_tanh_grad_composed(x)

    @forward.register_fake
    def gelu_tanh_fake(x):
        require_floating(fwd_name, x=x)
        return af.empty_like(x)

    @backward.register_fake
    def gelu_tanh_backward_fake(g, x):
        check_backward_args(g, x)
        return af.empty_like(x, dtype=af.result_type(g, x))

    def setup_forward(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    def backward_of_forward(ctx, grad):
        (x,) = ctx.saved_tensors
        return backward(grad, x)

    forward.register_autograd(backward_of_forward, setup_context=setup_forward)

    def setup_backward(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    def backward_of_backward(ctx, grad):
        g, x = ctx.saved_tensors
        need_g, need_x = ctx.needs_input_grad
        # d/dg (g * f'(x)) = f'(x): the fused backward op itself (differentiable again);
        # d/dx = g * f''(x), written with arrayflow ops.
        grad_g = backward(grad, x) if need_g else None
        grad_x = grad * g * gelu_tanh_second_composed(x) if need_x else None
        return grad_g, grad_x

    backward.register_autograd(backward_of_backward, setup_context=setup_backward)

    if numba:
        register_numba_kernels(forward, backward)
    if cupy:
        register_cupy_kernels(forward, backward)
    return forward, backward


# --- (b) Numba CPU kernels ----------------------------------------------------------------------

NUMBA_FUNCTIONS: dict[Any, dict[str, Any]] = {}


def numba_functions(dtype: Any) -> dict[str, Any]:
    """The Numba functions ``{"fwd": fwd(x, out), "bwd": bwd(g, x, out)}`` for ``dtype``.

    Parameters
    ----------
    dtype : numpy.dtype
        float32 or float64: the arithmetic is done in this precision (as PyTorch's CPU
        kernels do), the constants cast to it; float32's ``exp`` is about twice as fast.

    Returns
    -------
    dict
        Functions on 1-D contiguous arrays, made once per dtype (Numba is imported here
        only); each compiles on its first call.
    """
    import numba
    import numpy as np

    dtype = np.dtype(dtype)
    if dtype in NUMBA_FUNCTIONS:
        return NUMBA_FUNCTIONS[dtype]
    t = dtype.type
    c, a, one, two, three = t(SQRT_2_OVER_PI), t(COEF), t(1.0), t(2.0), t(3.0)
    # 0.5 * (1 + tanh(u)) = 1 / (1 + exp(-2u)) =: s, and 1 - tanh(u)**2 = 4 s (1 - s)
    # = 4 e s**2 with e = exp(-2u): one exp per element instead of a tanh (a scalar libm
    # tanh costs several exps); e * s * s keeps 1 - s accurate where s is close to 1,
    # s * (1 - s) is used where e is large (and may overflow to inf: then s = 0).

    @numba.njit(parallel=True, fastmath=False)
    def fwd(x, out):  # 1-D contiguous x, out
        for i in numba.prange(x.size):
            v = x[i]
            out[i] = v / (one + math.exp(-two * c * (v + a * v * v * v)))

    @numba.njit(parallel=True, fastmath=False)
    def bwd(g, x, out):
        for i in numba.prange(x.size):
            v = x[i]
            v2 = v * v
            e = math.exp(-two * c * (v + a * v2 * v))
            s = one / (one + e)
            q = e * s * s if e <= one else s * (one - s)  # s (1 - s); e may be inf
            out[i] = g[i] * (s + two * v * q * c * (one + three * a * v2))

    NUMBA_FUNCTIONS[dtype] = {"fwd": fwd, "bwd": bwd}
    return NUMBA_FUNCTIONS[dtype]


def flat_float(a: Any, np: Any) -> Any:
    """A C-contiguous 1-D view (or copy) of the NumPy array ``a``."""
    return np.ascontiguousarray(a).reshape(-1)


def register_numba_kernels(forward: CustomOpDef, backward: CustomOpDef) -> bool:
    """Register Numba kernels for the ``"numpy"`` backend (and so block-wise for Dask).

    Parameters
    ----------
    forward, backward : CustomOpDef
        The ops made by :func:`make_gelu_tanh`.

    Returns
    -------
    bool
        False (nothing registered) when Numba is not importable.
    """
    if importlib.util.find_spec("numba") is None:
        return False
    try:
        import numba  # noqa: F401 - installed but unusable (e.g. too new a NumPy): skip
    except Exception:  # noqa: BLE001
        return False
    import numpy as np

    fwd_name, bwd_name = forward.name, backward.name

    def gelu_tanh_numpy(x):
        if x.dtype.kind != "f":
            raise RuntimeError(f"{fwd_name}: argument 'x' must be a real floating-point "
                               f"array, got dtype {x.dtype}")
        flat = flat_float(x, np)
        out = np.empty_like(flat)
        numba_functions(flat.dtype)["fwd"](flat, out)
        return out.reshape(x.shape)

    def gelu_tanh_backward_numpy(g, x):
        if g.dtype.kind != "f" or x.dtype.kind != "f":
            raise RuntimeError(f"{bwd_name}: g and x must be real floating-point arrays, got "
                               f"dtypes {g.dtype} and {x.dtype}")
        if g.shape != x.shape:
            raise RuntimeError(f"{bwd_name}: g and x must have the same shape, got {g.shape} "
                               f"and {x.shape}")
        dtype = np.result_type(g, x)
        fg = flat_float(g.astype(dtype, copy=False), np)
        fx = flat_float(x.astype(dtype, copy=False), np)
        out = np.empty_like(fx)
        numba_functions(fx.dtype)["bwd"](fg, fx, out)
        return out.reshape(x.shape)

    forward.register_kernel("numpy", gelu_tanh_numpy)
    backward.register_kernel("numpy", gelu_tanh_backward_numpy)
    return True


# --- (c) CuPy GPU kernels -----------------------------------------------------------------------

CUPY_FORWARD_SOURCE = """
T u = (T)SQRT_2_OVER_PI * (x + (T)COEF * x * x * x);
y = (T)0.5 * x * ((T)1 + tanh(u));
"""
CUPY_BACKWARD_SOURCE = """
T x2 = x * x;
T t = tanh((T)SQRT_2_OVER_PI * (x + (T)COEF * x2 * x));
T du = (T)SQRT_2_OVER_PI * ((T)1 + (T)3 * (T)COEF * x2);
dx = g * ((T)0.5 * ((T)1 + t) + (T)0.5 * x * ((T)1 - t * t) * du);
"""


def cupy_source(body: str) -> str:
    """The CUDA body with the constants written in."""
    return (body.replace("SQRT_2_OVER_PI", repr(SQRT_2_OVER_PI))
            .replace("COEF", repr(COEF)))


def register_cupy_kernels(forward: CustomOpDef, backward: CustomOpDef) -> bool:
    """Register CuPy ``ElementwiseKernel`` kernels for the ``"cupy"`` backend.

    Parameters
    ----------
    forward, backward : CustomOpDef
        The ops made by :func:`make_gelu_tanh`.

    Returns
    -------
    bool
        False (nothing registered) when CuPy is not installed or no GPU is present.
    """
    if importlib.util.find_spec("cupy") is None:
        return False
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() < 1:
            return False
    except Exception:  # noqa: BLE001 - a driver or runtime missing: no device usable here
        return False
    fk = cupy.ElementwiseKernel("T x", "T y", cupy_source(CUPY_FORWARD_SOURCE),
                                "arrayflow_gelu_tanh")
    bk = cupy.ElementwiseKernel("T g, T x", "T dx", cupy_source(CUPY_BACKWARD_SOURCE),
                                "arrayflow_gelu_tanh_backward")

    def gelu_tanh_cupy(x):
        if x.dtype.kind != "f":
            raise RuntimeError(f"{forward.name}: argument 'x' must be a real floating-point "
                               f"array, got dtype {x.dtype}")
        return fk(x)

    def gelu_tanh_backward_cupy(g, x):
        if g.dtype.kind != "f" or x.dtype.kind != "f":
            raise RuntimeError(f"{backward.name}: g and x must be real floating-point arrays, "
                               f"got dtypes {g.dtype} and {x.dtype}")
        if g.shape != x.shape:
            raise RuntimeError(f"{backward.name}: g and x must have the same shape, got "
                               f"{g.shape} and {x.shape}")
        dtype = cupy.result_type(g, x)
        return bk(g.astype(dtype, copy=False), x.astype(dtype, copy=False))

    forward.register_kernel("cupy", gelu_tanh_cupy)
    backward.register_kernel("cupy", gelu_tanh_backward_cupy)
    return True


gelu_tanh, gelu_tanh_backward = make_gelu_tanh(numba=False, cupy=False)
NUMBA_KERNELS: bool = register_numba_kernels(gelu_tanh, gelu_tanh_backward)
"""Whether the Numba kernels are registered (Numba importable)."""
CUPY_KERNELS: bool = register_cupy_kernels(gelu_tanh, gelu_tanh_backward)
"""Whether the CuPy kernels are registered (CuPy and a GPU present)."""


# --- inputs for opcheck / arrayflow-conformance ---------------------------------------------------

def gelu_tanh_inputs(rng: Any) -> tuple:
    """``(x,)``: a float64 (3, 4) NumPy array from ``rng`` (``numpy.random.Generator``)."""
    return (rng.standard_normal((3, 4)) * 3.0,)


def gelu_tanh_backward_inputs(rng: Any) -> tuple:
    """``(g, x)``: two float64 (3, 4) NumPy arrays from ``rng``."""
    return (rng.standard_normal((3, 4)), rng.standard_normal((3, 4)) * 3.0)
