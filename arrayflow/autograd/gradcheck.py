"""Finite-difference gradient checks: ``gradcheck`` and ``gradgradcheck``.

PyTorch's signatures and semantics (``torch.autograd.gradcheck``): central
differences with step ``eps`` against the analytical Jacobian built from
vector-Jacobian products, ``|analytical - numerical| <= atol + rtol *
|numerical|`` for every entry. Inputs should be float64 (a warning otherwise).
These tools read values (they are for tests), so they also compute Dask arrays.

Complex inputs and outputs are checked in their real view (each complex number is its
real and imaginary parts), which is what PyTorch's convention makes the VJPs compute:
with a cotangent ``a + 1j*b`` the gradient ``p + 1j*q`` is ``J^T [a; b] = [p; q]``.
"""

from __future__ import annotations

import contextvars
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from .. import _backend, _dtypes
from .._backend import host_backend, use_backend
from .._typing import Array
from ..ops import _registry
from ..ops.creation import randn, zeros, zeros_like
from ..ops.elementwise import abs as _abs
from ..ops.elementwise import imag, real
from ..ops.manipulation import concat, stack
from ..ops.searching import argmax

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


# True while _numerical evaluates the function at shifted inputs: gradgradcheck's VJP then
# needs only values, so it runs without recording its own graph (create_graph=False: the
# same numbers; the recorded graph of a deep function's VJP has thousands of nodes, and
# building it for every shifted element dominated gradgradcheck's time)
_VALUES_ONLY: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "arrayflow_gradcheck_values_only", default=False)


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` when analytical and numerical Jacobians differ."""


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def _unravel(flat, shape):
    idx = []
    for s in reversed(shape):
        idx.append(flat % s)
        flat //= s
    return tuple(reversed(idx))


def _is_complex(t) -> bool:
    return t.dtype.kind == "complex floating"


def _host_view(t, as_complex=None):
    """A detached 1-D float64 real view of ``t`` on the host backend (``host_backend()``):
    ``t`` itself, or its real parts then its imaginary parts when complex (or when
    ``as_complex``)."""

    cplx = _is_complex(t)
    if as_complex is None:
        as_complex = cplx
    host = _backend.host_backend()
    arr = t._backend.to_host(t.detach()._cell.array).reshape(-1)
    out = _registry.Tensor._from_array(host.from_host(arr), host)
    if not cplx:
        out = out.astype(_dtypes.float64)
        return concat([out, out * 0.0]) if as_complex else out
    return concat([real(out).astype(_dtypes.float64), imag(out).astype(_dtypes.float64)])


def _view_size(t) -> int:
    return math.prod(t.shape) * (2 if _is_complex(t) else 1)


def _outputs(func, inputs):

    outs = _as_tuple(func(*inputs))
    return tuple(o for o in outs if isinstance(o, _registry.Tensor))


def _numerical(func, inputs, i, eps):
    """d(all outputs, flattened and concatenated)/d(inputs[i]) by central differences.

    Returns a host Tensor of shape (inputs[i].size, total output size).
    """

    x = inputs[i]
    n = math.prod(x.shape)
    cplx = _is_complex(x)
    flat = _host_view(x)
    cols = []
    for d in ((1.0, 1j) if cplx else (1.0,)):  # the real parts, then the imaginary parts
        for e in range(n):
            idx = _unravel(e, x.shape)
            orig = complex(float(flat[e]), float(flat[n + e])) if cplx else float(flat[e])
            vals = []
            for sign in (1.0, -1.0):
                xe = x.detach().clone()
                xe[idx] = orig + sign * eps * d
                if x.requires_grad:
                    xe.requires_grad_()
                args = list(inputs)
                args[i] = xe
                token = _VALUES_ONLY.set(True)
                try:
                    outs = _outputs(func, args)
                finally:
                    _VALUES_ONLY.reset(token)
                vals.append(concat([_host_view(o) for o in outs]) if outs else None)
            cols.append((vals[0] - vals[1]) / (2 * eps))
    return stack(cols)


def _analytical(func, inputs, diff_idx):
    """Rows d(output element k)/d(differentiable inputs), per output element.

    Returns (outputs, host Tensor of shape (total output size, total input size)).
    """
    from . import grad as _grad

    outs = _outputs(func, inputs)
    sizes = [_view_size(inputs[i]) for i in diff_idx]
    cplx_in = [_is_complex(inputs[i]) for i in diff_idx]
    rows = []
    for o in outs:
        m = math.prod(o.shape)
        for unit in ((1.0, 1j) if _is_complex(o) else (1.0,)):  # real parts, imaginary parts
            for k in range(m):
                if not o.requires_grad:
                    rows.append(_host_zeros(sum(sizes)))
                    continue
                v = zeros_like(o)
                if o.shape:
                    v[_unravel(k, o.shape)] = unit
                else:
                    v = v + unit
                gs = _grad(o, [inputs[i] for i in diff_idx], grad_outputs=v,
                           retain_graph=True, allow_unused=True)
                parts = [_host_zeros(n) if g is None else _host_view(g, c)
                         for g, n, c in zip(gs, sizes, cplx_in)]
                rows.append(concat(parts))
    return outs, stack(rows), sizes


def _f64():

    return _dtypes.float64


def _host_zeros(n):
    """Zeros on the host backend, where the Jacobians are assembled."""

    with use_backend(host_backend()):
        return zeros(n, dtype=_f64())


def gradcheck(func: Callable[..., Any], inputs: Array | Sequence[Array], *, eps: float = 1e-6,
              atol: float = 1e-5, rtol: float = 1e-3, raise_exception: bool = True,
              **_unused: Any) -> bool:
    """Check analytical gradients of ``func`` against finite differences.

    Parameters
    ----------
    func : callable
        Takes the Tensors of ``inputs``, returns a Tensor or a tuple of Tensors.
    inputs : Tensor or tuple
        Arguments; those with ``requires_grad=True`` are checked (float64 advised).
    eps : float
        Finite-difference step.
    atol, rtol : float
        Tolerances: ``|a - n| <= atol + rtol * |n|`` entry by entry.
    raise_exception : bool
        Raise :class:`GradcheckError` on failure (else return False).
    **_unused : Any
        PyTorch's other options (``nondet_tol``, ``check_undefined_grad``, ``fast_mode``,
        ...): accepted and ignored.

    Returns
    -------
    bool
        True when every entry agrees.

    Raises
    ------
    GradcheckError
        Naming the output and input, the worst entry, and both Jacobian values.

    Source: ``torch.autograd.gradcheck``.
    """

    inputs = _as_tuple(inputs)
    diff_idx = [i for i, a in enumerate(inputs)
                if isinstance(a, _registry.Tensor) and a.requires_grad]
    if not diff_idx:
        raise ValueError("gradcheck: expected at least one input Tensor with requires_grad=True")
    for i in diff_idx:
        if inputs[i].dtype is not _dtypes.float64 and inputs[i].dtype is not _dtypes.complex128:
            warnings.warn(
                f"gradcheck: input {i} has dtype {inputs[i].dtype}, not float64; the check may "
                f"fail from lack of precision", UserWarning, stacklevel=2)

    outs, ana_all, sizes = _analytical(func, inputs, diff_idx)
    out_shapes = [o.shape for o in outs]
    out_cplx = [_is_complex(o) for o in outs]
    offset = 0
    for col_pos, i in enumerate(diff_idx):
        num = _numerical(func, inputs, i, eps)  # (n_in, n_out)
        with use_backend(host_backend()):
            ana = ana_all[:, offset:offset + sizes[col_pos]].mT  # (n_in, n_out)
            bad = _abs(ana - num) > atol + rtol * _abs(num)
            if bool(bad.any()):
                flat = int(argmax(bad.reshape(-1)))
                e, k = divmod(flat, num.shape[1])
                o_idx, kk = _locate(k, out_shapes, out_cplx)
                n_in = math.prod(inputs[i].shape)
                o_part, kk = _part(kk, math.prod(out_shapes[o_idx]), out_cplx[o_idx])
                i_part, e = _part(e, n_in, _is_complex(inputs[i]))
                msg = (
                    f"gradcheck: Jacobian mismatch for output {o_idx} with respect to input "
                    f"{i}, at output element {_unravel(kk, out_shapes[o_idx])}{o_part} and "
                    f"input element {_unravel(e, inputs[i].shape)}{i_part}:\n"
                    f"numerical: {float(num[e, k])!r}\nanalytical: {float(ana[e, k])!r}\n"
                    f"({int(bad.sum())} of {bad.size} entries differ; atol={atol}, "
                    f"rtol={rtol}, eps={eps})")
                if raise_exception:
                    raise GradcheckError(msg)
                return False
        offset += sizes[col_pos]
    return True


def _locate(k, shapes, cplx):
    for o_idx, (shape, c) in enumerate(zip(shapes, cplx)):
        n = math.prod(shape) * (2 if c else 1)
        if k < n:
            return o_idx, k
        k -= n
    raise IndexError(k)


def _part(k, n, cplx):
    """Element ``k`` of a real view of ``n`` values: (" (real part)", k) or the imaginary."""
    if not cplx:
        return "", k
    return (" (real part)", k) if k < n else (" (imaginary part)", k - n)


def gradgradcheck(func: Callable[..., Any], inputs: Array | Sequence[Array],
                  grad_outputs: Array | Sequence[Array] | None = None, *, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, **_unused: Any) -> bool:
    """Check second-order gradients of ``func`` against finite differences.

    Differentiates the vector-Jacobian product ``grad(func(inputs), inputs,
    grad_outputs, create_graph=True)`` with :func:`gradcheck`, with respect to
    the inputs and ``grad_outputs`` (random float64 when not given).

    Parameters
    ----------
    func : callable
        Takes the Tensors of ``inputs``, returns a Tensor or a tuple of Tensors.
    inputs : Tensor or sequence of Tensor
        Arguments; those with ``requires_grad=True`` are checked (float64 advised).
    grad_outputs : Tensor or sequence of Tensor, optional
        The vectors of the vector-Jacobian product, shaped as the outputs; None draws them.
    eps, atol, rtol, raise_exception
        As :func:`gradcheck`.
    gen_non_contig_grad_outputs : bool, default False
        Accepted for PyTorch compatibility and ignored (arrays have no strides).
    **_unused : Any
        PyTorch's other options: accepted and ignored.

    Returns
    -------
    bool
        True when every entry agrees.

    Raises
    ------
    GradcheckError
        As :func:`gradcheck`.

    Source: ``torch.autograd.gradgradcheck``.
    """
    from . import grad as _grad

    inputs = _as_tuple(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        grad_outputs = []
        for o in outs:
            g = randn(*o.shape, dtype=o.dtype) if o.shape else randn(1, dtype=o.dtype)[0]
            grad_outputs.append(g.to(o.backend).requires_grad_())
        grad_outputs = tuple(grad_outputs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    diff_idx = [i for i, a in enumerate(inputs) if getattr(a, "requires_grad", False)]

    def vjp_func(*args):
        ins, gos = args[:n_in], args[n_in:]
        o = _outputs(func, ins)
        # values only at the shifted inputs of the finite differences (_VALUES_ONLY)
        gs = _grad(o, [ins[i] for i in diff_idx], grad_outputs=gos,
                   create_graph=not _VALUES_ONLY.get(), allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(vjp_func, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
