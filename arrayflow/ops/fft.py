"""The Fast Fourier Transform extension (array API standard 2025.12, "Fourier
transform Functions"), exposed as :mod:`arrayflow.fft`.

One op is one unit: the ``@op(...)`` decorator with its metadata, the forward, and its
VJP right after it. Every transform is linear over the reals, so its forward-mode rule is
``jvp="linear"`` (the transform of the tangent; for ``irfft``/``hfft`` of a complex
tangent the imaginary parts of the DC and Nyquist bins drop out, as in PyTorch's
``_fft_c2r`` forward AD). Each forward calls the backend namespace's ``fft`` extension function
of the same name. ``fftfreq`` and ``rfftfreq`` are creation functions: they run on the
current backend and default to arrayflow's default floating dtype (float32).

The adjoint of a transform with ``norm`` is the transform the other way with the swapped
``norm`` (the same scale factor); zero-padding and trimming are each other's adjoints.
One-sided transforms follow PyTorch's ``fft_r2c_backward`` / ``fft_c2r_backward``: the
gradient of ``rfft`` is the real part of the inverse transform of the zero-padded full
spectrum; that of ``irfft`` is the ``rfft`` of the gradient with the bins mirrored by
Hermitian symmetry doubled. Each is checked against PyTorch with real and complex inputs
(``tests/test_ops_grad.py``, ``tests/test_complex_autograd.py``).

Errors about the arguments' values (``n < 1``, an unknown ``norm``, an axis out of range)
are the backend's: on NumPy ``ValueError`` (``IndexError`` for an axis), where PyTorch
raises ``RuntimeError`` (``IndexError``).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, Literal

from .._dtypes import DType
from .._typing import Array
from . import _batch_util as _bu
from ._registry import op
from .creation import _dev, default_float

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft",
           "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift", "FFT"]

_M = "arrayflow.fft"


def _check_freq_dtype(backend, name, dtype):
    """PyTorch's check: ``fftfreq``/``rfftfreq`` of an integer dtype would truncate."""
    if dtype is not None and not backend.xp.isdtype(dtype, ("real floating",
                                                            "complex floating")):
        raise RuntimeError(f"arrayflow.fft.{name}: dtype must be a floating dtype, got "
                           f"{backend.arrayflow_dtype(dtype)}")


# --- helpers shared by the VJPs --------------------------------------------------------------

_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _fit(xp, a, axis, n):
    """``a`` trimmed or zero-padded to length ``n`` along ``axis``."""
    m = a.shape[axis]
    if m == n:
        return a
    nd = a.ndim
    axis = axis % nd
    if m > n:
        return a[(slice(None),) * axis + (slice(0, n), Ellipsis)]
    shape = list(a.shape)
    shape[axis] = n - m
    return xp.concat([a, xp.zeros(tuple(shape), dtype=a.dtype)], axis=axis)


def _fit_all(xp, a, axes, sizes):
    for ax, n in zip(axes, sizes):
        a = _fit(xp, a, ax, n)
    return a


def _double_mirrored(xp, a, axis, n):
    """Double bins ``1 .. n - (n//2 + 1)`` of a one-sided spectrum along ``axis``."""
    d = n - (n // 2 + 1)
    if d <= 0:
        return a
    axis = axis % a.ndim
    idx = xp.arange(a.shape[axis])
    mask = xp.astype((idx >= 1) & (idx <= d), a.dtype)
    shape = [1] * a.ndim
    shape[axis] = a.shape[axis]
    return a * (1 + xp.reshape(mask, tuple(shape)))


def _axes_sizes(shape, s, axes, c2r=False):
    """The transformed axes and output sizes of an n-D transform (numpy's defaults)."""
    nd = len(shape)
    if axes is None:
        axes = list(range(nd)) if s is None else list(range(nd - len(s), nd))
    axes = [a % nd for a in axes]
    if s is None:
        s = [shape[a] for a in axes]
        if c2r:
            s[-1] = 2 * (shape[axes[-1]] - 1)
    else:
        s = list(s)
        for i, n in enumerate(s):
            if n == -1:
                s[i] = 2 * (shape[axes[i]] - 1) if c2r and i == len(s) - 1 else shape[axes[i]]
    return axes, s


def _explicit_s_axes(shape, s, axes, c2r=False):
    """``s`` and ``axes`` of an n-D transform made explicit, as PyTorch reads them.

    The standard requires ``axes`` whenever ``s`` is given and leaves -1 in ``s`` loosely
    defined; PyTorch's meaning: without ``axes``, the last ``len(s)`` axes; -1, the
    input's size (``2 * (m - 1)`` on the last axis of a complex-to-real transform). The
    backends differ there (Dask transforms the *first* ``len(s)`` axes; NumPy deprecated
    ``s`` without ``axes`` and reads -1 on ``irfftn``'s last axis as the input's size), so
    the backend is handed both explicitly. Inconsistent arguments go through unchanged,
    for the backend's error.
    """
    if s is None:
        return s, axes
    nd = len(shape)
    try:
        s_ = [operator.index(n) for n in s]
        axes_ = None if axes is None else [operator.index(a) for a in axes]
    except TypeError:
        return s, axes
    if (axes_ is not None and (len(axes_) != len(s_) or not all(-nd <= a < nd for a in axes_))
            or len(s_) > nd):
        return s, axes
    axes_, s_ = _axes_sizes(shape, s_, axes_, c2r)
    return s_, axes_


def _c2c_vjp(other):
    """VJP of a complex-to-complex transform along one axis: ``other`` with the swapped
    ``norm``, fitted back to the input's length (residuals ``(shape, axis, norm)``)."""
    def vjp(xp, res, g):
        shape, axis, norm = res
        return (_fit(xp, getattr(xp.fft, other)(g, axis=axis, norm=_SWAP[norm]), axis,
                     shape[axis]),)
    return vjp


def _c2cn_vjp(other):
    """VJP of an n-D complex-to-complex transform (residuals ``(shape, s, axes, norm)``)."""
    def vjp(xp, res, g):
        shape, s, axes, norm = res
        axes, s = _axes_sizes(shape, s, axes)
        gx = getattr(xp.fft, other)(g, axes=axes, norm=_SWAP[norm])
        return (_fit_all(xp, gx, axes, [shape[a] for a in axes]),)
    return vjp


def _r2c_grad(xp, g, m, n, axis, norm):
    """Gradient of ``rfft(x, n, axis, norm)`` for an input of length ``m``."""
    n = m if n is None else n  # ``n=`` zero-pads the one-sided g to the full spectrum
    return _fit(xp, xp.real(xp.fft.ifft(g, n=n, axis=axis, norm=_SWAP[norm])), axis, m)


def _c2r_grad(xp, g, m, n, axis, norm):
    """Gradient of ``irfft(x, n, axis, norm)`` for an input of length ``m``."""
    n = 2 * (m - 1) if n is None else n
    gi = _double_mirrored(xp, xp.fft.rfft(g, axis=axis, norm=_SWAP[norm]), axis, n)
    return _fit(xp, gi, axis, m)


# --- one-dimensional transforms ---------------------------------------------------------------

@op("fft.fft", module=_M, section="fft", dtypes="complex floating", complex_ok=True,
    vjp=_c2c_vjp("ifft"), jvp="linear")
def fft(xp, x: Array, /, *, n: int | None = None, axis: int = -1,
        norm: Literal["backward", "ortho", "forward"] = "backward"):
    """One-dimensional discrete Fourier transform.

    Parameters
    ----------
    x : Tensor
        Input; complex floating (a real floating ``x`` is promoted on NumPy and Dask).
    n : int, optional
        Length of the transformed axis of the input: ``x`` is zero-padded or trimmed to
        it. Default: the input's size along ``axis``.
    axis : int, default -1
        Axis over which to compute the transform.
    norm : {"backward", "ortho", "forward"}, default "backward"
        Normalization: no scaling, ``1/sqrt(n)``, or ``1/n`` on this forward transform.

    Returns
    -------
    Tensor
        ``x``'s shape with size ``n`` along ``axis``; complex, the dtype of ``x`` (or the
        complex dtype matching a real ``x``).

    Raises
    ------
    ValueError
        If ``n < 1`` or ``norm`` is unknown (the backend's error).
    TypeError
        If ``x`` is real on a backend that requires complex input (array_api_strict).

    Notes
    -----
    Source: array API standard 2025.12, Fourier transform Functions, ``fft.fft``
    (PyTorch ``torch.fft.fft``). Gradient: ``ifft`` of ``g`` with the swapped ``norm``,
    trimmed or zero-padded back to the input's length (PyTorch's ``fft_c2c`` backward).
    """
    return xp.fft.fft(x, n=n, axis=axis, norm=norm), (x.shape, axis, norm)


@op("fft.ifft", module=_M, section="fft", dtypes="complex floating", complex_ok=True,
    vjp=_c2c_vjp("fft"), jvp="linear")
def ifft(xp, x: Array, /, *, n: int | None = None, axis: int = -1,
         norm: Literal["backward", "ortho", "forward"] = "backward"):
    """One-dimensional inverse discrete Fourier transform.

    Parameters
    ----------
    x : Tensor
        Input; complex floating (a real floating ``x`` is promoted on NumPy and Dask).
    n : int, optional
        Length of the transformed axis of the input: ``x`` is zero-padded or trimmed to
        it. Default: the input's size along ``axis``.
    axis : int, default -1
        Axis over which to compute the transform.
    norm : {"backward", "ortho", "forward"}, default "backward"
        Normalization: ``1/n``, ``1/sqrt(n)``, or no scaling on this inverse transform.

    Returns
    -------
    Tensor
        ``x``'s shape with size ``n`` along ``axis``; complex, the dtype of ``x`` (or the
        complex dtype matching a real ``x``).

    Raises
    ------
    ValueError
        If ``n < 1`` or ``norm`` is unknown (the backend's error).
    TypeError
        If ``x`` is real on a backend that requires complex input (array_api_strict).

    Notes
    -----
    Source: array API standard 2025.12, Fourier transform Functions, ``fft.ifft``
    (PyTorch ``torch.fft.ifft``). Gradient: ``fft`` of ``g`` with the swapped ``norm``,
    trimmed or zero-padded back to the input's length (PyTorch's ``fft_c2c`` backward).
    """
    return xp.fft.ifft(x, n=n, axis=axis, norm=norm), (x.shape, axis, norm)


@op("fft.rfft", module=_M, section="fft", dtypes="real floating", complex_ok=True,
    jvp="linear")
def rfft(xp, x: Array, /, *, n: int | None = None, axis: int = -1,
         norm: Literal["backward", "ortho", "forward"] = "backward"):
    """One-dimensional discrete Fourier transform of real input (the non-negative
    frequencies).

    Parameters
    ----------
    x : Tensor
        Input; real floating.
    n : int, optional
        Length of the transformed axis of the input: ``x`` is zero-padded or trimmed to
        it. Default: the input's size along ``axis``.
    axis : int, default -1
        Axis over which to compute the transform.
    norm : {"backward", "ortho", "forward"}, default "backward"
        Normalization: no scaling, ``1/sqrt(n)``, or ``1/n`` on this forward transform.

    Returns
    -------
    Tensor
        ``x``'s shape with size ``n//2 + 1`` along ``axis``; complex of ``x``'s precision.

    Raises
    ------
    ValueError
        If ``n < 1`` or ``norm`` is unknown (the backend's error).
    TypeError
        If ``x`` is complex (the backend's error).

    Notes
    -----
    Source: array API standard 2025.12, Fourier transform Functions, ``fft.rfft``
    (PyTorch ``torch.fft.rfft``). Gradient: PyTorch's ``fft_r2c_backward``, the real part
    of the inverse transform of ``g`` zero-padded to the full spectrum.
    """
    return xp.fft.rfft(x, n=n, axis=axis, norm=norm), (x.shape, n, axis, norm)


@rfft.defvjp
def _rfft_vjp(xp, res, g):
    shape, n, axis, norm = res
    return (_r2c_grad(xp, g, shape[axis], n, axis, norm),)


@op("fft.irfft", module=_M, section="fft", dtypes="complex floating", complex_ok=True,
    jvp="linear")
def irfft(xp, x: Array, /, *, n: int | None = None, axis: int = -1,
          norm: Literal["backward", "ortho", "forward"] = "backward"):
    """Inverse of :func:`rfft`: the real signal from its non-negative frequencies.

    Parameters
    ----------
    x : Tensor
        Input, a one-sided spectrum; complex floating (a real ``x`` is promoted on NumPy
        and Dask).
    n : int, optional
        Length of the transformed axis of the output: the input is zero-padded or trimmed
        to ``n//2 + 1``. Default: ``2 * (m - 1)`` for input size ``m``.
    axis : int, default -1
        Axis over which to compute the transform.
    norm : {"backward", "ortho", "forward"}, default "backward"
        Normalization: ``1/n``, ``1/sqrt(n)``, or no scaling on this inverse transform.

    Returns
    -------
    Tensor
        ``x``'s shape with size ``n`` along ``axis``; real floating of ``x``'s precision.

    Raises
    ------
    ValueError
        If ``n < 1`` or ``norm`` is unknown (the backend's error).

    Notes
    -----
    Source: array API standard 2025.12, Fourier transform Functions, ``fft.irfft``
    (PyTorch ``torch.fft.irfft``). Gradient: PyTorch's ``fft_c2r_backward``, ``rfft`` of
    ``g`` with the bins mirrored by Hermitian symmetry doubled.
    """
    return xp.fft.irfft(x, n=n, axis=axis, norm=norm), (x.shape, n, axis, norm)


@irfft.defvjp
def _irfft_vjp(xp, res, g):
    shape, n, axis, norm = res
    return (_c2r_grad(xp, g, shape[axis], n, axis, norm),)


@op("fft.hfft", module=_M, section="fft", dtypes="complex floating", complex_ok=True,
    jvp="linear")
def hfft(xp, x: Array, /, *, n: int | None = None, axis: int = -1,
         norm: Literal["backward", "ortho", "forward"] = "backward"):
    """Discrete Fourier transform of a signal with Hermitian symmetry (a real spectrum).

    Parameters
    ----------
    x : Tensor
        Input, the non-negative half of a Hermitian signal; complex floating (a real ``x``
        is promoted on NumPy and Dask).
    n : int, optional
        Length of the transformed axis of the output: the input is zero-padded or trimmed
        to ``n//2 + 1``. Default: ``2 * (m - 1)`` for input size ``m``.
    axis : int, default -1
        Axis over which to compute the transform.
    norm : {"backward", "ortho", "forward"}, default "backward"
        Normalization: no scaling, ``1/sqrt(n)``, or ``1/n`` on this forward transform.

    Returns
    -------
    Tensor
        ``x``'s shape with size ``n`` along ``axis``; real floating of ``x``'s precision.

    Raises
    ------
    ValueError
        If ``n < 1`` or ``norm`` is unknown (the backend's error).

    Notes
    -----
    Source: array API standard 2025.12, Fourier transform Functions, ``fft.hfft``
    (PyTorch ``torch.fft.hfft``). Gradient: ``hfft(x, norm) = irfft(conj(x))`` with the
    swapped ``norm``, so the conjugate of ``irfft``'s (PyTorch's ``fft_c2r_backward``).
    """
    return xp.fft.hfft(x, n=n, axis=axis, norm=norm), (x.shape, n, axis, norm)


@hfft.defvjp
def _hfft_vjp(xp, res, g):
    # hfft(x, norm) = irfft(conj(x), norm=swapped)
    shape, n, axis, norm = res
    return (xp.conj(_c2r_grad(xp, g, shape[axis], n, axis, _SWAP[norm])),)


@op("fft.ihfft", module=_M, section="fft", dtypes="real floating", complex_ok=True,
    jvp="linear")
def ihfft(xp, x: Array, /, *, n: int | None = None, axis: int = -1,
          norm: Literal["backward", "ortho", "forward"] = "backward"):
    """Inverse of :func:`hfft`: the one-sided Hermitian signal of a real spectrum.

    Parameters
    ----------
    x : Tensor
        Input; real floating.
    n : int, optional
        Length of the transformed axis of the input: ``x`` is zero-padded or trimmed to
        it. Default: the input's size along ``axis``.
    axis : int, default -1
        Axis over which to compute the transform.
    norm : {"backward", "ortho", "forward"}, default "backward"
        Normalization: ``1/n``, ``1/sqrt(n)``, or no scaling on this inverse transform.

    Returns
    -------
    Tensor
        ``x``'s shape with size ``n//2 + 1`` along ``axis``; complex of ``x``'s precision.

    Raises
    ------
    ValueError
        If ``n < 1`` or ``norm`` is unknown (the backend's error).
    TypeError
        If ``x`` is complex (the backend's error).

    Notes
    -----
    Source: array API standard 2025.12, Fourier transform Functions, ``fft.ihfft``
    (PyTorch ``torch.fft.ihfft``). Gradient: ``ihfft(x, norm) = conj(rfft(x))`` with the
    swapped ``norm``, so ``rfft``'s applied to ``conj(g)`` (PyTorch's
    ``fft_r2c_backward``).
    """
    return xp.fft.ihfft(x, n=n, axis=axis, norm=norm), (x.shape, n, axis, norm)


@ihfft.defvjp
def _ihfft_vjp(xp, res, g):
    # ihfft(x, norm) = conj(rfft(x, norm=swapped))
    shape, n, axis, norm = res
    return (_r2c_grad(xp, xp.conj(g), shape[axis], n, axis, _SWAP[norm]),)


# --- n-dimensional transforms ----------------------------------------------------------------

@op("fft.fftn", module=_M, section="fft", dtypes="complex floating", complex_ok=True,
    vjp=_c2cn_vjp("ifftn"), jvp="linear")
def fftn(xp, x: Array, /, *, s: Sequence[int] | None = None,
         axes: Sequence[int] | None = None,
         norm: Literal["backward", "ortho", "forward"] = "backward"):
    """N-dimensional discrete Fourier transform.

    Parameters
    ----------
    x : Tensor
        Input; complex floating (a real floating ``x`` is promoted on NumPy and Dask).
    s : sequence of int, optional
        Length of each transformed axis of the input (zero-padding or trimming); -1 keeps
        an axis's size. Default: the input's sizes along ``axes``.
    axes : sequence of int, optional
        Axes over which to compute the transform. Default: all, or the last ``len(s)``.
    norm : {"backward", "ortho", "forward"}, default "backward"
        Normalization: no scaling, ``1/sqrt(prod(s))``, or ``1/prod(s)`` on this forward
        transform.

    Returns
    -------
    Tensor
        ``x``'s shape with sizes ``s`` along ``axes``; complex, the dtype of ``x`` (or the
        complex dtype matching a real ``x``).

    Raises
    ------
    ValueError
        If ``s`` and ``axes`` differ in length, a size is below 1, or ``norm`` is unknown
        (the backend's error).
    TypeError
        If ``x`` is real on a backend that requires complex input (array_api_strict).

    Notes
    -----
    Source: array API standard 2025.12, Fourier transform Functions, ``fft.fftn``
    (PyTorch ``torch.fft.fftn``, with ``dim=`` for ``axes``). Gradient: ``ifftn`` of ``g``
    with the swapped ``norm``, fitted back to the input's sizes (PyTorch's ``fft_c2c``
    backward).
    """
    s_, axes_ = _explicit_s_axes(x.shape, s, axes)
    return xp.fft.fftn(x, s=s_, axes=axes_, norm=norm), (x.shape, s, axes, norm)

fftn.defbatch(_bu.fftn_rule)


@op("fft.ifftn", module=_M, section="fft", dtypes="complex floating", complex_ok=True,
    vjp=_c2cn_vjp("fftn"), jvp="linear")
def ifftn(xp, x: Array, /, *, s: Sequence[int] | None = None,
          axes: Sequence[int] | None = None,
          norm: Literal["backward", "ortho", "forward"] = "backward"):
    """N-dimensional inverse discrete Fourier transform.

    Parameters
    ----------
    x : Tensor
        Input; complex floating (a real floating ``x`` is promoted on NumPy and Dask).
    s : sequence of int, optional
        Length of each transformed axis of the input (zero-padding or trimming); -1 keeps
        an axis's size. Default: the input's sizes along ``axes``.
    axes : sequence of int, optional
        Axes over which to compute the transform. Default: all, or the last ``len(s)``.
    norm : {"backward", "ortho", "forward"}, default "backward"
        Normalization: ``1/prod(s)``, ``1/sqrt(prod(s))``, or no scaling on this inverse
        transform.

    Returns
    -------
    Tensor
        ``x``'s shape with sizes ``s`` along ``axes``; complex, the dtype of ``x`` (or the
        complex dtype matching a real ``x``).

    Raises
    ------
    ValueError
        If ``s`` and ``axes`` differ in length, a size is below 1, or ``norm`` is unknown
        (the backend's error).
    TypeError
        If ``x`` is real on a backend that requires complex input (array_api_strict).

    Notes
    -----
    Source: array API standard 2025.12, Fourier transform Functions, ``fft.ifftn``
    (PyTorch ``torch.fft.ifftn``, with ``dim=`` for ``axes``). Gradient: ``fftn`` of ``g``
    with the swapped ``norm``, fitted back to the input's sizes (PyTorch's ``fft_c2c``
    backward).
    """
    s_, axes_ = _explicit_s_axes(x.shape, s, axes)
    return xp.fft.ifftn(x, s=s_, axes=axes_, norm=norm), (x.shape, s, axes, norm)

ifftn.defbatch(_bu.fftn_rule)


@op("fft.rfftn", module=_M, section="fft", dtypes="real floating", complex_ok=True,
    jvp="linear")
def rfftn(xp, x: Array, /, *, s: Sequence[int] | None = None,
          axes: Sequence[int] | None = None,
          norm: Literal["backward", "ortho", "forward"] = "backward"):
    """N-dimensional discrete Fourier transform of real input (the last transformed axis
    one-sided).

    Parameters
    ----------
    x : Tensor
        Input; real floating.
    s : sequence of int, optional
        Length of each transformed axis of the input (zero-padding or trimming); -1 keeps
        an axis's size. Default: the input's sizes along ``axes``.
    axes : sequence of int, optional
        Axes over which to compute the transform. Default: all, or the last ``len(s)``.
    norm : {"backward", "ortho", "forward"}, default "backward"
        Normalization: no scaling, ``1/sqrt(prod(s))``, or ``1/prod(s)`` on this forward
        transform.

    Returns
    -------
    Tensor
        ``x``'s shape with sizes ``s`` along ``axes``, except ``s[-1]//2 + 1`` along the
        last of them; complex of ``x``'s precision.

    Raises
    ------
    ValueError
        If ``s`` and ``axes`` differ in length, a size is below 1, or ``norm`` is unknown
        (the backend's error).
    TypeError
        If ``x`` is complex (the backend's error).

    Notes
    -----
    Source: array API standard 2025.12, Fourier transform Functions, ``fft.rfftn``
    (PyTorch ``torch.fft.rfftn``, with ``dim=`` for ``axes``). Gradient: PyTorch's
    ``fft_r2c_backward``, the real part of ``ifftn`` of ``g`` zero-padded to the full
    spectrum along the last axis.
    """
    s_, axes_ = _explicit_s_axes(x.shape, s, axes)
    return xp.fft.rfftn(x, s=s_, axes=axes_, norm=norm), (x.shape, s, axes, norm)


@rfftn.defvjp
def _rfftn_vjp(xp, res, g):
    shape, s, axes, norm = res
    axes, s = _axes_sizes(shape, s, axes)
    full = [g.shape[a] for a in axes[:-1]] + [s[-1]]  # zero-pads the one-sided axis
    gx = xp.real(xp.fft.ifftn(g, s=full, axes=axes, norm=_SWAP[norm]))
    return (_fit_all(xp, gx, axes, [shape[a] for a in axes]),)

rfftn.defbatch(_bu.fftn_rule)


@op("fft.irfftn", module=_M, section="fft", dtypes="complex floating", complex_ok=True,
    jvp="linear")
def irfftn(xp, x: Array, /, *, s: Sequence[int] | None = None,
           axes: Sequence[int] | None = None,
           norm: Literal["backward", "ortho", "forward"] = "backward"):
    """Inverse of :func:`rfftn`: the real signal from its one-sided n-D spectrum.

    Parameters
    ----------
    x : Tensor
        Input; complex floating (a real ``x`` is promoted on NumPy and Dask).
    s : sequence of int, optional
        Length of each transformed axis of the output (zero-padding or trimming the
        input); -1 keeps the default. Default: ``2 * (m - 1)`` along the last axis (input
        size ``m``), the input's sizes along the others.
    axes : sequence of int, optional
        Axes over which to compute the transform. Default: all, or the last ``len(s)``.
    norm : {"backward", "ortho", "forward"}, default "backward"
        Normalization: ``1/prod(s)``, ``1/sqrt(prod(s))``, or no scaling on this inverse
        transform.

    Returns
    -------
    Tensor
        ``x``'s shape with sizes ``s`` along ``axes``; real floating of ``x``'s precision.

    Raises
    ------
    ValueError
        If ``s`` and ``axes`` differ in length, a size is below 1, or ``norm`` is unknown
        (the backend's error).

    Notes
    -----
    Source: array API standard 2025.12, Fourier transform Functions, ``fft.irfftn``
    (PyTorch ``torch.fft.irfftn``, with ``dim=`` for ``axes``). Gradient: PyTorch's
    ``fft_c2r_backward``, ``rfftn`` of ``g`` with the mirrored bins of the last axis
    doubled.
    """
    s_, axes_ = _explicit_s_axes(x.shape, s, axes, c2r=True)
    return xp.fft.irfftn(x, s=s_, axes=axes_, norm=norm), (x.shape, s, axes, norm)


@irfftn.defvjp
def _irfftn_vjp(xp, res, g):
    shape, s, axes, norm = res
    axes, _ = _axes_sizes(shape, s, axes, c2r=True)
    # The output length along the last axis is read from g, not from ``s``: a -1 there is
    # the input's length on NumPy (not PyTorch's 2 * (m - 1)); guessing it wrongly would
    # double the wrong bins (a silently wrong gradient).
    n = g.shape[axes[-1]]
    gi = _double_mirrored(xp, xp.fft.rfftn(g, axes=axes, norm=_SWAP[norm]), axes[-1], n)
    return (_fit_all(xp, gi, axes, [shape[a] for a in axes]),)

irfftn.defbatch(_bu.fftn_rule)


# --- helper functions ------------------------------------------------------------------------

@op("fft.fftfreq", module=_M, section="fft", dtypes=None, creation=True,
    differentiable=False)
def fftfreq(backend, n: int, /, *, d: float = 1.0, dtype: DType | None = None,
            device: Any | None = None, chunks: Any | None = None):
    """Sample frequencies of the discrete Fourier transform of a signal of length ``n``.

    Parameters
    ----------
    n : int
        Window length.
    d : float, default 1.0
        Sample spacing.
    dtype : DType, optional
        Real floating output dtype. Default: arrayflow's default floating dtype.
    device : optional
        Backend device.
    chunks : optional
        Block sizes on chunked backends (Dask); ignored elsewhere.

    Returns
    -------
    Tensor
        Shape ``(n,)``: ``[0, 1, ..., n//2 - 1 + n%2, -(n//2), ..., -1] / (d * n)``. Not
        differentiable.

    Raises
    ------
    RuntimeError
        If ``dtype`` is not floating, as PyTorch (the frequencies would be truncated).
    ZeroDivisionError
        If ``n`` is 0 (NumPy's error; PyTorch returns an empty Tensor).
    ValueError
        If ``n`` is negative (the backend's error).

    Notes
    -----
    Source: array API standard 2025.12, Fourier transform Functions, ``fft.fftfreq``
    (PyTorch ``torch.fft.fftfreq``).
    """
    _check_freq_dtype(backend, "fftfreq", dtype)
    return backend.rechunk(backend.xp.fft.fftfreq(n, d=d, dtype=dtype or default_float(backend),
                                                         **_dev(device)), chunks)


@op("fft.rfftfreq", module=_M, section="fft", dtypes=None, creation=True,
    differentiable=False)
def rfftfreq(backend, n: int, /, *, d: float = 1.0, dtype: DType | None = None,
             device: Any | None = None, chunks: Any | None = None):
    """Non-negative sample frequencies of :func:`rfft` for a signal of length ``n``.

    Parameters
    ----------
    n : int
        Window length.
    d : float, default 1.0
        Sample spacing.
    dtype : DType, optional
        Real floating output dtype. Default: arrayflow's default floating dtype.
    device : optional
        Backend device.
    chunks : optional
        Block sizes on chunked backends (Dask); ignored elsewhere.

    Returns
    -------
    Tensor
        Shape ``(n//2 + 1,)``: ``[0, 1, ..., n//2] / (d * n)``. Not differentiable.

    Raises
    ------
    RuntimeError
        If ``dtype`` is not floating, as PyTorch (the frequencies would be truncated).
    ZeroDivisionError
        If ``n`` is 0 (NumPy's error; PyTorch returns ``[nan]``).
    ValueError
        If ``n`` is negative (the backend's error).

    Notes
    -----
    Source: array API standard 2025.12, Fourier transform Functions, ``fft.rfftfreq``
    (PyTorch ``torch.fft.rfftfreq``).
    """
    _check_freq_dtype(backend, "rfftfreq", dtype)
    return backend.rechunk(backend.xp.fft.rfftfreq(n, d=d, dtype=dtype or default_float(backend),
                                                          **_dev(device)), chunks)


@op("fft.fftshift", module=_M, section="fft", dtypes="floating", complex_ok=True,
    jvp="linear")
def fftshift(xp, x: Array, /, *, axes: int | Sequence[int] | None = None):
    """Shift the zero-frequency component to the center of the spectrum.

    Parameters
    ----------
    x : Tensor
        Input; floating dtype in the standard (any dtype is shifted).
    axes : int or sequence of int, optional
        Axes to shift. Default: all.

    Returns
    -------
    Tensor
        Shape and dtype of ``x``.

    Raises
    ------
    IndexError
        If an axis is out of range (NumPy's error).

    Notes
    -----
    Source: array API standard 2025.12, Fourier transform Functions, ``fft.fftshift``
    (PyTorch ``torch.fft.fftshift``, with ``dim=`` for ``axes``). Gradient: ``ifftshift``
    of ``g``.
    """
    return xp.fft.fftshift(x, axes=axes), (axes,)


@fftshift.defvjp
def _fftshift_vjp(xp, res, g):
    (axes,) = res
    return (xp.fft.ifftshift(g, axes=axes),)

fftshift.defbatch(_bu.axes_rule("axes"))


@op("fft.ifftshift", module=_M, section="fft", dtypes="floating", complex_ok=True,
    jvp="linear")
def ifftshift(xp, x: Array, /, *, axes: int | Sequence[int] | None = None):
    """Inverse of :func:`fftshift` (they differ for odd lengths).

    Parameters
    ----------
    x : Tensor
        Input; floating dtype in the standard (any dtype is shifted).
    axes : int or sequence of int, optional
        Axes to shift. Default: all.

    Returns
    -------
    Tensor
        Shape and dtype of ``x``.

    Raises
    ------
    IndexError
        If an axis is out of range (NumPy's error).

    Notes
    -----
    Source: array API standard 2025.12, Fourier transform Functions, ``fft.ifftshift``
    (PyTorch ``torch.fft.ifftshift``, with ``dim=`` for ``axes``). Gradient: ``fftshift``
    of ``g``.
    """
    return xp.fft.ifftshift(x, axes=axes), (axes,)


@ifftshift.defvjp
def _ifftshift_vjp(xp, res, g):
    (axes,) = res
    return (xp.fft.fftshift(g, axes=axes),)

ifftshift.defbatch(_bu.axes_rule("axes"))


FFT = {n: globals()[n] for n in __all__ if n != "FFT"}
"""The ``arrayflow.fft`` namespace: name -> public function."""
