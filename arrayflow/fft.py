"""``arrayflow.fft``: the array API standard's Fourier transform extension (2025.12).

The same function objects as :mod:`arrayflow.ops.fft`.
"""

from .ops.fft import (
    fft,
    fftfreq,
    fftn,
    fftshift,
    hfft,
    ifft,
    ifftn,
    ifftshift,
    ihfft,
    irfft,
    irfftn,
    rfft,
    rfftfreq,
    rfftn,
)

__all__ = [
    "fft", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifftn", "ifftshift", "ihfft",
    "irfft", "irfftn", "rfft", "rfftfreq", "rfftn",
]
