"""The Fast Fourier Transform extension (array API standard 2025.12, "Fourier
transform Functions"), exposed as :mod:`arrayflow.fft`.

Each forward calls the backend namespace's ``fft`` extension function of the
same name. ``fftfreq`` and ``rfftfreq`` are creation functions: they run on the
current backend and default to arrayflow's default floating dtype (float32).
"""

from __future__ import annotations

from ._registry import op
from .creation import _dev, default_float

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft",
           "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift", "FFT"]

_M = "arrayflow.fft"

_ONE_DOC = """{summary}

Parameters
----------
x : Tensor
    Input ({inp}).
n : int, optional
    Length of the transformed axis of the {what}: ``x`` is zero-padded or
    trimmed to it. Default: {default}.
axis : int
    Axis over which to compute the transform (default -1).
norm : {{"backward", "ortho", "forward"}}
    Normalization mode (default ``"backward"``).

Returns
-------
Tensor
    {ret}

Source: array API standard 2025.12, ``fft.{name}``.
"""

_N_DOC = """{summary}

Parameters
----------
x : Tensor
    Input ({inp}).
s : sequence of int, optional
    Length of each transformed axis of the {what} (zero-padding or trimming).
    Default: {default}.
axes : sequence of int, optional
    Axes over which to compute the transform (default: all, or the last
    ``len(s)``).
norm : {{"backward", "ortho", "forward"}}
    Normalization mode (default ``"backward"``).

Returns
-------
Tensor
    {ret}

Source: array API standard 2025.12, ``fft.{name}``.
"""

_CPLX = "complex floating; real input is promoted"
_SAME = "the input's size along that axis"
_SAME_N = "the input's sizes along ``axes``"
_C_OUT = "Complex, the dtype of ``x`` (or the complex dtype matching a real ``x``)."
_R_OUT = "Real floating, the precision of ``x``."
_C_PREC = "Complex, the precision of ``x``."

_ONE = {
    "fft": ("One-dimensional discrete Fourier transform.", _CPLX, "input", _SAME, _C_OUT),
    "ifft": ("One-dimensional inverse discrete Fourier transform.", _CPLX, "input", _SAME,
             _C_OUT),
    "rfft": ("One-dimensional discrete Fourier transform of real input (the non-negative "
             "frequencies).", "real floating", "input", _SAME, _C_PREC),
    "irfft": ("Inverse of :func:`rfft`: real signal from its non-negative frequencies.",
              "complex floating", "output", "``2 * (m - 1)`` for input size ``m``", _R_OUT),
    "hfft": ("Discrete Fourier transform of a signal with Hermitian symmetry (real "
             "spectrum).", "complex floating", "output",
             "``2 * (m - 1)`` for input size ``m``", _R_OUT),
    "ihfft": ("Inverse of :func:`hfft`.", "real floating", "input", _SAME, _C_PREC),
}
_N = {
    "fftn": ("N-dimensional discrete Fourier transform.", _CPLX, "input", _SAME_N, _C_OUT),
    "ifftn": ("N-dimensional inverse discrete Fourier transform.", _CPLX, "input", _SAME_N,
              _C_OUT),
    "rfftn": ("N-dimensional discrete Fourier transform of real input.", "real floating",
              "input", _SAME_N, _C_PREC),
    "irfftn": ("Inverse of :func:`rfftn`.", "complex floating", "output",
               "``2 * (m - 1)`` along the last axis, else the input's sizes", _R_OUT),
}


def _make_one(name, summary, inp, what, default, ret):
    def forward(xp, x, /, *, n=None, axis=-1, norm="backward"):
        return getattr(xp.fft, name)(x, n=n, axis=axis, norm=norm), (x.shape, n, axis, norm)

    forward.__name__ = forward.__qualname__ = name
    doc = _ONE_DOC.format(summary=summary, inp=inp, what=what, default=default, ret=ret,
                          name=name)
    return op(f"fft.{name}", module=_M, doc=doc)(forward)


def _make_n(name, summary, inp, what, default, ret):
    def forward(xp, x, /, *, s=None, axes=None, norm="backward"):
        return getattr(xp.fft, name)(x, s=s, axes=axes, norm=norm), (x.shape, s, axes, norm)

    forward.__name__ = forward.__qualname__ = name
    doc = _N_DOC.format(summary=summary, inp=inp, what=what, default=default, ret=ret,
                        name=name)
    return op(f"fft.{name}", module=_M, doc=doc)(forward)


fft = _make_one("fft", *_ONE["fft"])
ifft = _make_one("ifft", *_ONE["ifft"])
rfft = _make_one("rfft", *_ONE["rfft"])
irfft = _make_one("irfft", *_ONE["irfft"])
hfft = _make_one("hfft", *_ONE["hfft"])
ihfft = _make_one("ihfft", *_ONE["ihfft"])
fftn = _make_n("fftn", *_N["fftn"])
ifftn = _make_n("ifftn", *_N["ifftn"])
rfftn = _make_n("rfftn", *_N["rfftn"])
irfftn = _make_n("irfftn", *_N["irfftn"])


@op("fft.fftfreq", module=_M, creation=True, differentiable=False)
def fftfreq(backend, n, /, *, d=1.0, dtype=None, device=None, chunks=None):
    """Sample frequencies of the discrete Fourier transform of a signal of length ``n``.

    Parameters
    ----------
    n : int
        Window length.
    d : float
        Sample spacing (default 1.0).
    dtype : DType, optional
        Real floating output dtype; default: arrayflow's default floating dtype.
    device : optional
        Backend device.
    chunks : optional
        Block sizes on chunked backends (Dask); ignored elsewhere.

    Returns
    -------
    Tensor
        Shape ``(n,)``: ``[0, 1, ..., n//2 - 1 + n%2, -(n//2), ..., -1] / (d * n)``.

    Source: array API standard 2025.12, ``fft.fftfreq``.
    """
    return backend.rechunk(backend.xp.fft.fftfreq(n, d=d, dtype=dtype or default_float(backend),
                                                         **_dev(device)), chunks)


@op("fft.rfftfreq", module=_M, creation=True, differentiable=False)
def rfftfreq(backend, n, /, *, d=1.0, dtype=None, device=None, chunks=None):
    """Non-negative sample frequencies of :func:`rfft` for a signal of length ``n``.

    Parameters
    ----------
    n : int
        Window length.
    d : float
        Sample spacing (default 1.0).
    dtype : DType, optional
        Real floating output dtype; default: arrayflow's default floating dtype.
    device : optional
        Backend device.
    chunks : optional
        Block sizes on chunked backends (Dask); ignored elsewhere.

    Returns
    -------
    Tensor
        Shape ``(n//2 + 1,)``: ``[0, 1, ..., n//2] / (d * n)``.

    Source: array API standard 2025.12, ``fft.rfftfreq``.
    """
    return backend.rechunk(backend.xp.fft.rfftfreq(n, d=d, dtype=dtype or default_float(backend),
                                                          **_dev(device)), chunks)


@op("fft.fftshift", module=_M)
def fftshift(xp, x, /, *, axes=None):
    """Shift the zero-frequency component to the center of the spectrum.

    Parameters
    ----------
    x : Tensor
    axes : int or sequence of int, optional
        Axes to shift (default: all).

    Returns
    -------
    Tensor
        Shape and dtype of ``x``.

    Source: array API standard 2025.12, ``fft.fftshift``.
    """
    return xp.fft.fftshift(x, axes=axes), (axes,)


@op("fft.ifftshift", module=_M)
def ifftshift(xp, x, /, *, axes=None):
    """Inverse of :func:`fftshift` (they differ for odd lengths).

    Parameters
    ----------
    x : Tensor
    axes : int or sequence of int, optional
        Axes to shift (default: all).

    Returns
    -------
    Tensor
        Shape and dtype of ``x``.

    Source: array API standard 2025.12, ``fft.ifftshift``.
    """
    return xp.fft.ifftshift(x, axes=axes), (axes,)


FFT = {n: globals()[n] for n in __all__ if n != "FFT"}
"""The ``arrayflow.fft`` namespace: name -> public function."""


# --- VJPs ------------------------------------------------------------------------------------

@fftshift.defvjp
def _fftshift_vjp(xp, res, g):
    (axes,) = res
    return (xp.fft.ifftshift(g, axes=axes),)


@ifftshift.defvjp
def _ifftshift_vjp(xp, res, g):
    (axes,) = res
    return (xp.fft.fftshift(g, axes=axes),)


# The adjoint of a transform with ``norm`` is the transform the other way with the swapped
# ``norm`` (the same scale factor); zero-padding and trimming are each other's adjoints.
# One-sided transforms follow PyTorch's fft_r2c_backward / fft_c2r_backward: the gradient
# of rfft is the real part of the inverse transform of the zero-padded full spectrum; that
# of irfft is the rfft of the gradient with the bins mirrored by Hermitian symmetry doubled.

_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}

from ._vjp_util import mark_complex_ok as _mark_complex_ok  # noqa: E402


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


def _c2c_vjp(other):
    def vjp(xp, res, g):
        shape, n, axis, norm = res
        return (_fit(xp, getattr(xp.fft, other)(g, axis=axis, norm=_SWAP[norm]), axis,
                     shape[axis]),)
    return vjp


fft.defvjp(_c2c_vjp("ifft"))
ifft.defvjp(_c2c_vjp("fft"))


def _r2c_grad(xp, g, m, n, axis, norm):
    """Gradient of ``rfft(x, n, axis, norm)`` for an input of length ``m``."""
    n = m if n is None else n  # ``n=`` zero-pads the one-sided g to the full spectrum
    return _fit(xp, xp.real(xp.fft.ifft(g, n=n, axis=axis, norm=_SWAP[norm])), axis, m)


def _c2r_grad(xp, g, m, n, axis, norm):
    """Gradient of ``irfft(x, n, axis, norm)`` for an input of length ``m``."""
    n = 2 * (m - 1) if n is None else n
    gi = _double_mirrored(xp, xp.fft.rfft(g, axis=axis, norm=_SWAP[norm]), axis, n)
    return _fit(xp, gi, axis, m)


@rfft.defvjp
def _rfft_vjp(xp, res, g):
    shape, n, axis, norm = res
    return (_r2c_grad(xp, g, shape[axis], n, axis, norm),)


@irfft.defvjp
def _irfft_vjp(xp, res, g):
    shape, n, axis, norm = res
    return (_c2r_grad(xp, g, shape[axis], n, axis, norm),)


@hfft.defvjp
def _hfft_vjp(xp, res, g):
    # hfft(x, norm) = irfft(conj(x), norm=swapped)
    shape, n, axis, norm = res
    return (xp.conj(_c2r_grad(xp, g, shape[axis], n, axis, _SWAP[norm])),)


@ihfft.defvjp
def _ihfft_vjp(xp, res, g):
    # ihfft(x, norm) = conj(rfft(x, norm=swapped))
    shape, n, axis, norm = res
    return (_r2c_grad(xp, xp.conj(g), shape[axis], n, axis, _SWAP[norm]),)


def _c2cn_vjp(other):
    def vjp(xp, res, g):
        shape, s, axes, norm = res
        axes, s = _axes_sizes(shape, s, axes)
        gx = getattr(xp.fft, other)(g, axes=axes, norm=_SWAP[norm])
        return (_fit_all(xp, gx, axes, [shape[a] for a in axes]),)
    return vjp


fftn.defvjp(_c2cn_vjp("ifftn"))
ifftn.defvjp(_c2cn_vjp("fftn"))


@rfftn.defvjp
def _rfftn_vjp(xp, res, g):
    shape, s, axes, norm = res
    axes, s = _axes_sizes(shape, s, axes)
    full = [g.shape[a] for a in axes[:-1]] + [s[-1]]  # zero-pads the one-sided axis
    gx = xp.real(xp.fft.ifftn(g, s=full, axes=axes, norm=_SWAP[norm]))
    return (_fit_all(xp, gx, axes, [shape[a] for a in axes]),)


@irfftn.defvjp
def _irfftn_vjp(xp, res, g):
    shape, s, axes, norm = res
    axes, s = _axes_sizes(shape, s, axes, c2r=True)
    gi = _double_mirrored(xp, xp.fft.rfftn(g, axes=axes, norm=_SWAP[norm]), axes[-1], s[-1])
    return (_fit_all(xp, gi, axes, [shape[a] for a in axes]),)


_mark_complex_ok(fft, ifft, rfft, irfft, hfft, ihfft, fftn, ifftn, rfftn, irfftn, fftshift,
                 ifftshift)
