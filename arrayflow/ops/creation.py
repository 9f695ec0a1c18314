"""Creation functions (array API standard 2025.12, "Creation Functions") and
PyTorch's random constructors.

Creation functions run on the current backend (``af.get_backend()``); the
``*_like`` functions and ``asarray`` of a Tensor use that Tensor's backend.
Floating results default to ``af.get_default_dtype()`` (float32, as in
PyTorch); integer results to int64; arrays passed in keep their dtype. Every
creation function also takes ``requires_grad=`` (PyTorch).
"""

from __future__ import annotations

import builtins
import operator

from .. import _backend, _dtypes
from ._registry import op

__all__ = [
    "arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like",
    "linspace", "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like",
    "tensor", "randn", "rand", "randint", "randperm",
]

_PYTHON_SCALARS = frozenset({builtins.bool, int, float, complex})
_PYTHON_DATA = _PYTHON_SCALARS | {list, tuple}


def default_float(backend):
    """The native default floating dtype of ``backend``."""
    return backend.native_dtype(_dtypes.get_default_dtype())


def _scalar_dtype(backend, value):
    """Default dtype for a Python scalar value: bool, int64, float or complex default."""
    if isinstance(value, builtins.bool):
        return backend.native_dtype(_dtypes.bool)
    if isinstance(value, int):
        return backend.native_dtype(_dtypes.int64)
    if isinstance(value, complex):
        return backend.native_dtype(_dtypes.default_complex())
    return default_float(backend)


def _dev(device):
    return {} if device is None else {"device": device}


def _shape(fname, shape):
    if isinstance(shape, int) and not isinstance(shape, builtins.bool):
        return (shape,)
    try:
        if isinstance(shape, builtins.bool) or any(isinstance(s, builtins.bool) for s in shape):
            raise TypeError
        return tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(
            f"arrayflow.{fname}: argument 'shape' must be an int or a tuple of ints, "
            f"got {shape!r}"
        ) from None


def _size_of(fname, shape, more, size):
    """The shape from any of ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])``, ``f(shape=(2, 3))``
    (array API) and ``f(size=(2, 3))`` (PyTorch)."""
    if size is not None:
        if shape is not None or more:
            raise TypeError(f"arrayflow.{fname}: got multiple values for argument 'size'")
        shape = size
    elif shape is None:
        if more:
            shape = more[0]
            more = more[1:]
        else:
            raise TypeError(
                f"arrayflow.{fname}: missing the required argument 'shape' (a tuple of ints, "
                f"ints as separate arguments, or size=)")
    if more:
        return _shape(fname, (shape, *more))  # f(2, 3): every size an int
    return _shape(fname, shape)


@op("arange", creation=True, differentiable=False)
def arange(backend, start, /, stop=None, step=1, *, dtype=None, device=None, chunks=None):
    """Evenly spaced values in the half-open interval ``[start, stop)``.

    ``arange(stop)`` starts at 0. Without ``dtype``, integer arguments give
    int64 and any float argument gives the default floating dtype.

    Returns
    -------
    Tensor
        1-D, ``ceil((stop - start) / step)`` elements.

    Source: array API standard 2025.12, ``arange``.
    """
    if dtype is None:
        vals = (start, stop, step)
        if builtins.any(isinstance(v, float) for v in vals):
            dtype = default_float(backend)
        else:
            dtype = backend.native_dtype(_dtypes.int64)
    return backend.rechunk(backend.xp.arange(start, stop, step, dtype=dtype, **_dev(device)),
                           chunks)


@op("asarray", creation=True, aliases=("as_tensor",))
def asarray(backend, obj, /, *, dtype=None, device=None, copy=None, chunks=None):
    """Convert ``obj`` (Tensor, array, Python scalar or nested sequence) to a Tensor.

    Parameters
    ----------
    obj : Tensor, array, scalar, nested list/tuple or buffer
        Data. A Tensor keeps its backend; other input goes to the current backend.
    dtype : DType, optional
        Output dtype. Default: the input array's dtype, or for Python data bool,
        int64, the default floating dtype (float32) or the default complex dtype.
    device : optional
        Backend device.
    copy : bool, optional
        True always copies, False never copies (raises ``ValueError`` if it must),
        None copies only when needed.

    Notes
    -----
    Source: array API standard 2025.12, ``asarray``; PyTorch ``as_tensor``.
    """
    y = _asarray(backend, obj, dtype, device, copy, chunks)
    # Differentiable in its Tensor argument (PyTorch's as_tensor keeps the graph): the
    # gradient flows back, cast to the input's dtype (its real part for a real input).
    if not backend.is_array(obj):
        return y, (None, False)
    return y, (obj.dtype, backend.xp.isdtype(obj.dtype, "complex floating"))


def _asarray(backend, obj, dtype, device, copy, chunks=None):
    if chunks is None and backend.is_array(obj):
        # an array of this backend keeps its layout unless chunks= asks otherwise
        return _asarray_raw(backend, obj, dtype, device, copy)
    return backend.rechunk(_asarray_raw(backend, obj, dtype, device, copy), chunks)


def _asarray_raw(backend, obj, dtype, device, copy):
    xp = backend.xp
    # Exact types: NumPy scalars (np.float64 subclasses float) are arrays here.
    other = None if type(obj) in _PYTHON_DATA else _backend.backend_of_array(obj)
    if other is not None and not other.same_kind(backend):
        obj = backend.from_host(other.to_host(obj), device=device)
        if dtype is not None:
            obj = xp.astype(obj, dtype)
        return obj
    kw = _dev(device)
    if copy is not None:
        kw["copy"] = copy
    if dtype is not None:
        return xp.asarray(obj, dtype=dtype, **kw)
    if type(obj) in _PYTHON_SCALARS:
        return xp.asarray(obj, dtype=_scalar_dtype(backend, obj), **kw)
    out = xp.asarray(obj, **kw)
    if isinstance(obj, (list, tuple)):
        d = backend.arrayflow_dtype(out.dtype)
        if d.kind == "real floating" and d is not _dtypes.get_default_dtype():
            out = xp.astype(out, default_float(backend))
        elif d.kind == "complex floating" and d is not _dtypes.default_complex():
            out = xp.astype(out, backend.native_dtype(_dtypes.default_complex()))
    return out



def _asarray_is_identity(backend, obj, /, *, dtype=None, device=None, copy=None, chunks=None):
    # PyTorch: as_tensor(t) / asarray(t, copy=False) of a Tensor with its own dtype and
    # device is t itself (the standard: copy=False/None must not copy)
    return (copy is not True and chunks is None and device is None and backend.is_array(obj)
            and (dtype is None or dtype == obj.dtype))


asarray.identity = _asarray_is_identity


@asarray.defvjp
def _asarray_vjp(xp, res, g):
    in_dtype, was_complex = res
    if in_dtype is not None and g.dtype != in_dtype:
        if not was_complex and xp.isdtype(g.dtype, "complex floating"):
            g = xp.real(g)
        g = xp.astype(g, in_dtype)
    return (g,)

@op("tensor", creation=True, differentiable=False)
def tensor(backend, data, /, *, dtype=None, device=None, chunks=None):
    """Copy ``data`` into a new Tensor (PyTorch ``torch.tensor``: always copies).

    Same defaults as :func:`asarray`; use ``asarray``/``as_tensor`` to avoid the copy.
    """
    return _asarray(backend, data, dtype, device, True, chunks)


@op("empty", creation=True, differentiable=False)
def empty(backend, shape=None, *sizes, size=None, dtype=None, device=None, chunks=None):
    """An uninitialized Tensor of ``shape`` (int or tuple of ints).

    ``empty(2, 3)``, ``empty((2, 3))``, ``empty([2, 3])``, ``empty(shape=(2, 3))`` and
    ``empty(size=(2, 3))`` are the same (the array API's and PyTorch's spellings).
    ``device`` is a backend device or a PyTorch-style ``af.device``/``"cpu"``/``"cuda"``.

    Raises
    ------
    TypeError
        If a size is not an int, or the shape is missing or given twice.

    Source: array API standard 2025.12, ``empty``; PyTorch ``torch.empty``.
    """
    return backend.rechunk(backend.xp.empty(_size_of("empty", shape, sizes, size),
                                             dtype=dtype or default_float(backend),
                                             **_dev(device)), chunks)


@op("zeros", creation=True, differentiable=False)
def zeros(backend, shape=None, *sizes, size=None, dtype=None, device=None, chunks=None):
    """A Tensor of ``shape`` filled with 0 (default floating dtype).

    ``zeros(2, 3)``, ``zeros((2, 3))``, ``zeros([2, 3])``, ``zeros(shape=(2, 3))`` and
    ``zeros(size=(2, 3))`` are the same (the array API's and PyTorch's spellings).
    ``device`` is a backend device or a PyTorch-style ``af.device``/``"cpu"``/``"cuda"``.

    Raises
    ------
    TypeError
        If a size is not an int, or the shape is missing or given twice.

    Source: array API standard 2025.12, ``zeros``; PyTorch ``torch.zeros``.
    """
    return backend.rechunk(backend.xp.zeros(_size_of("zeros", shape, sizes, size),
                                             dtype=dtype or default_float(backend),
                                             **_dev(device)), chunks)


@op("ones", creation=True, differentiable=False)
def ones(backend, shape=None, *sizes, size=None, dtype=None, device=None, chunks=None):
    """A Tensor of ``shape`` filled with 1 (default floating dtype).

    ``ones(2, 3)``, ``ones((2, 3))``, ``ones([2, 3])``, ``ones(shape=(2, 3))`` and
    ``ones(size=(2, 3))`` are the same (the array API's and PyTorch's spellings).
    ``device`` is a backend device or a PyTorch-style ``af.device``/``"cpu"``/``"cuda"``.

    Raises
    ------
    TypeError
        If a size is not an int, or the shape is missing or given twice.

    Source: array API standard 2025.12, ``ones``; PyTorch ``torch.ones``.
    """
    return backend.rechunk(backend.xp.ones(_size_of("ones", shape, sizes, size),
                                             dtype=dtype or default_float(backend),
                                             **_dev(device)), chunks)


@op("full", creation=True, differentiable=False)
def full(backend, shape=None, fill_value=None, *, size=None, dtype=None, device=None,
         chunks=None):
    """A Tensor of ``shape`` filled with ``fill_value``.

    Without ``dtype`` the dtype follows the Python type of ``fill_value``: bool,
    int64, the default floating or the default complex dtype. ``size=`` is
    PyTorch's name for ``shape`` (``full(size=(2, 3), fill_value=1.0)``); as in
    both, the sizes are one argument, never separate ones.

    Raises
    ------
    TypeError
        If ``fill_value`` is missing, or the shape is missing or given twice.

    Source: array API standard 2025.12, ``full``; PyTorch ``torch.full``.
    """
    shape = _size_of("full", shape, (), size)
    if fill_value is None:
        raise TypeError("arrayflow.full: missing the required argument 'fill_value'")
    if dtype is None:
        dtype = _scalar_dtype(backend, fill_value)
    return backend.rechunk(
        backend.xp.full(_shape("full", shape), fill_value, dtype=dtype, **_dev(device)), chunks)


@op("eye", creation=True, differentiable=False)
def eye(backend, n_rows, n_cols=None, /, *, k=0, dtype=None, device=None, chunks=None):
    """A 2-D Tensor with ones on the ``k``-th diagonal and zeros elsewhere.

    Shape ``(n_rows, n_cols or n_rows)``. Source: array API standard 2025.12, ``eye``.
    """
    return backend.rechunk(backend.xp.eye(n_rows, n_cols, k=k,
                                          dtype=dtype or default_float(backend),
                                          **_dev(device)), chunks)


@op("linspace", creation=True, differentiable=False)
def linspace(backend, start, stop, /, num, *, dtype=None, device=None, endpoint=True,
             chunks=None):
    """``num`` evenly spaced samples over ``[start, stop]`` (or ``[start, stop)``).

    Default dtype: the default floating dtype, or the default complex dtype for
    complex endpoints. Source: array API standard 2025.12, ``linspace``.
    """
    if dtype is None:
        if isinstance(start, complex) or isinstance(stop, complex):
            dtype = backend.native_dtype(_dtypes.default_complex())
        else:
            dtype = default_float(backend)
    return backend.rechunk(backend.xp.linspace(start, stop, num, dtype=dtype,
                                               endpoint=endpoint, **_dev(device)), chunks)


def _keep_or_rechunk(backend, array, chunks):
    # *_like results keep x's chunks; chunks= asks for another layout
    return array if chunks is None else backend.rechunk(array, chunks)


def _like_doc(what):
    return f"""A Tensor shaped like ``x`` filled with {what}; dtype and device default to ``x``'s.

Source: array API standard 2025.12.
"""


@op("empty_like", creation=True, differentiable=False, doc=_like_doc("uninitialized values"))
def empty_like(backend, x, /, *, dtype=None, device=None, chunks=None):
    return _keep_or_rechunk(backend, backend.xp.empty_like(x, dtype=dtype,
                                    **_dev(device)), chunks)


@op("zeros_like", creation=True, differentiable=False, doc=_like_doc("0"))
def zeros_like(backend, x, /, *, dtype=None, device=None, chunks=None):
    return _keep_or_rechunk(backend, backend.xp.zeros_like(x, dtype=dtype,
                                    **_dev(device)), chunks)


@op("ones_like", creation=True, differentiable=False, doc=_like_doc("1"))
def ones_like(backend, x, /, *, dtype=None, device=None, chunks=None):
    return _keep_or_rechunk(backend, backend.xp.ones_like(x, dtype=dtype,
                                   **_dev(device)), chunks)


@op("full_like", creation=True, differentiable=False, doc=_like_doc("``fill_value``"))
def full_like(backend, x, /, fill_value, *, dtype=None, device=None, chunks=None):
    return _keep_or_rechunk(backend, backend.xp.full_like(x, fill_value, dtype=dtype,
                                   **_dev(device)), chunks)


@op("from_dlpack", creation=True, differentiable=False)
def from_dlpack(backend, x, /, *, device=None, copy=None):
    """A Tensor from any object implementing ``__dlpack__`` (zero-copy where possible).

    Backends without ``from_dlpack`` go through host memory.

    Raises
    ------
    BufferError
        If the producer cannot export to this backend's device.

    Source: array API standard 2025.12, ``from_dlpack``.
    """
    kw = _dev(device)
    if copy is not None:
        kw["copy"] = copy
    fn = getattr(backend.xp, "from_dlpack", None)
    if fn is not None:
        return fn(x, **kw)
    host = _backend.host_backend()
    return backend.from_host(host.to_host(host.xp.from_dlpack(x, **kw)))


@op("meshgrid", out="tuple")
def meshgrid(xp, *arrays, indexing="xy"):
    """Coordinate matrices from 1-D coordinate Tensors (``indexing`` "xy" or "ij").

    Returns a tuple of Tensors, each of the broadcast grid shape.
    Source: array API standard 2025.12, ``meshgrid``.
    """
    return tuple(xp.meshgrid(*arrays, indexing=indexing)), (len(arrays), indexing)


@op("tril")
def tril(xp, x, /, *, k=0):
    """Lower triangle of the last two dimensions of ``x`` (zeros above diagonal ``k``).

    Source: array API standard 2025.12, ``tril``.
    """
    return xp.tril(x, k=k), (k,)


@op("triu")
def triu(xp, x, /, *, k=0):
    """Upper triangle of the last two dimensions of ``x`` (zeros below diagonal ``k``).

    Source: array API standard 2025.12, ``triu``.
    """
    return xp.triu(x, k=k), (k,)


# --- PyTorch random constructors ----------------------------------------------

def _size(fname, dims, size):
    if not dims and size is None:
        return ()  # randn(): one sample, a 0-d Tensor
    return _size_of(fname, None, dims, size)


def _random(backend, kind, shape, dtype, device, chunks, **params):
    if chunks is not None:
        params["chunks"] = chunks  # chunked backends draw in these blocks directly
    return backend.rechunk(backend.random(kind, shape, dtype=dtype, device=device, **params),
                           chunks)


@op("randn", creation=True, differentiable=False)
def randn(backend, *sizes, size=None, dtype=None, device=None, chunks=None):
    """Samples of the standard normal distribution, shape ``size``.

    ``randn(2, 3)``, ``randn((2, 3))``, ``randn([2, 3])`` and ``randn(size=(2, 3))``
    are the same.
    Reproducible with :func:`arrayflow.manual_seed`. Default floating dtype.
    PyTorch ``torch.randn``.
    """
    return _random(backend, "normal", _size("randn", sizes, size), dtype or default_float(backend),
                   device, chunks)


@op("rand", creation=True, differentiable=False)
def rand(backend, *sizes, size=None, dtype=None, device=None, chunks=None):
    """Samples of the uniform distribution on ``[0, 1)``, shape ``size`` (``torch.rand``).

    ``rand(2, 3)``, ``rand((2, 3))``, ``rand([2, 3])`` and ``rand(size=(2, 3))`` are the
    same.
    """
    return _random(backend, "uniform", _size("rand", sizes, size), dtype or default_float(backend),
                   device, chunks, low=0.0, high=1.0)


@op("randint", creation=True, differentiable=False)
def randint(backend, low, high=None, size=None, *, dtype=None, device=None, chunks=None):
    """Random integers in ``[low, high)``, shape ``size`` (``torch.randint``; int64).

    ``randint(high, size)`` starts at 0, as in PyTorch.
    """
    if size is None and high is not None and not isinstance(high, int):
        low, high, size = 0, low, high
    elif high is None and size is not None:
        low, high = 0, low
    if high is None or size is None:
        raise TypeError("arrayflow.randint: expected (low, high, size) or (high, size)")
    return _random(backend, "integers", _shape("randint", size),
                   dtype or backend.native_dtype(_dtypes.int64), device, chunks,
                   low=low, high=high)


@op("randperm", creation=True, differentiable=False)
def randperm(backend, n, *, dtype=None, device=None, chunks=None):
    """A random permutation of ``0..n-1`` (``torch.randperm``; int64)."""
    return _random(backend, "permutation", (n,), dtype or backend.native_dtype(_dtypes.int64),
                   device, chunks, n=n)


# --- VJPs ------------------------------------------------------------------------------------

@tril.defvjp
def _tril_vjp(xp, res, g):
    return (xp.tril(g, k=res[0]),)


@triu.defvjp
def _triu_vjp(xp, res, g):
    return (xp.triu(g, k=res[0]),)


@meshgrid.defvjp
def _meshgrid_vjp(xp, res, *gs):
    n, indexing = res
    out = []
    for i, g in enumerate(gs):
        axis = i
        if indexing == "xy" and n >= 2 and i < 2:
            axis = 1 - i
        others = tuple(a for a in range(g.ndim) if a != axis)
        out.append(xp.sum(g, axis=others) if others else g)
    # every output depends on every input's broadcast; input i only feeds output i
    return tuple(out)


# Masks and broadcasts: the VJPs are right for complex values as they are (PyTorch's
# convention, arrayflow.ops._vjp_util); ``asarray`` casts back as ``astype`` does.
from ._vjp_util import mark_complex_ok as _mark_complex_ok  # noqa: E402

_mark_complex_ok(asarray, tril, triu, meshgrid)
