"""Creation functions (array API standard 2025.12, "Creation Functions") and
PyTorch's ``tensor`` and random constructors.

Creation functions run on the current backend (``af.get_backend()``); the
``*_like`` functions and ``asarray`` of a Tensor use that Tensor's backend.
Floating results default to ``af.get_default_dtype()`` (float32, as in
PyTorch); integer results to int64; arrays passed in keep their dtype. Every
creation function also takes ``requires_grad=`` (PyTorch).

Each op is one unit: its ``@op(...)`` metadata, its forward, and its VJP right after.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence
from typing import Any, Literal

from .. import _backend, _dtypes
from .._dtypes import DType
from .._typing import Array
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


def _keep_or_rechunk(backend, array, chunks):
    # *_like results keep x's chunks; chunks= asks for another layout
    return array if chunks is None else backend.rechunk(array, chunks)


def _size(fname, dims, size):
    if not dims and size is None:
        return ()  # randn(): one sample, a 0-d Tensor
    return _size_of(fname, None, dims, size)


def _random(backend, kind, shape, dtype, device, chunks, **params):
    if chunks is not None:
        params["chunks"] = chunks  # chunked backends draw in these blocks directly
    return backend.rechunk(backend.random(kind, shape, dtype=dtype, device=device, **params),
                           chunks)


_DTYPE_DEVICE_CHUNKS = """dtype : DType, optional
    Output dtype. Default: {default}.
device : device, str or backend device, optional
    Where the result lives: a backend device or a PyTorch-style ``af.device``/
    ``"cpu"``/``"cuda"`` (which may select another backend). Default: the backend's
    (``x``'s for the ``*_like`` functions).
chunks : optional
    Block layout on chunked backends (Dask's ``chunks``); ignored elsewhere."""


def _doc(summary, params, returns, source, default, raises="", notes=""):
    """A numpydoc docstring for a creation function (the parameters every one shares last)."""
    common = _DTYPE_DEVICE_CHUNKS.format(default=default)
    raises = f"\nRaises\n------\n{raises}\n" if raises else ""
    notes = f"{notes}\n" if notes else ""
    return (f"{summary}\n\nParameters\n----------\n{params}\n{common}\n\nReturns\n-------\n"
            f"Tensor\n    {returns}\n{raises}\nNotes\n-----\n{notes}Every creation function "
            f"also takes PyTorch's ``requires_grad=``.\nSource: {source}\n")


@op("arange", section="creation", dtypes=None, creation=True, differentiable=False,
    doc=_doc("Evenly spaced values in the half-open interval ``[start, stop)``.",
             "start : int or float\n    The first value; with no ``stop``, the end (the start "
             "is then 0).\nstop : int or float, optional\n    The end, excluded.\nstep : int or "
             "float\n    The spacing (default 1).",
             "1-D, ``ceil((stop - start) / step)`` elements.",
             "array API standard 2025.12, \"Creation Functions\", ``arange``.",
             "int64 for integer arguments, the default floating dtype if any is a float"))
def arange(backend, start: int | float, /, stop: int | float | None = None,
           step: int | float = 1, *, dtype: DType | None = None, device: Any | None = None,
           chunks: Any | None = None):
    if dtype is None:
        vals = (start, stop, step)
        if builtins.any(isinstance(v, float) for v in vals):
            dtype = default_float(backend)
        else:
            dtype = backend.native_dtype(_dtypes.int64)
    return backend.rechunk(backend.xp.arange(start, stop, step, dtype=dtype, **_dev(device)),
                           chunks)


@op("asarray", section="creation", dtypes="any", creation=True, aliases=("as_tensor",),
    complex_ok=True, identity=_asarray_is_identity)
def asarray(backend, obj: Any, /, *, dtype: DType | None = None, device: Any | None = None,
            copy: bool | None = None, chunks: Any | None = None):
    """Convert ``obj`` (Tensor, array, Python scalar or nested sequence) to a Tensor.

    Parameters
    ----------
    obj : Tensor, array, scalar, nested list/tuple or buffer
        Data. A Tensor keeps its backend; other input goes to the current backend
        (an array of another backend through host memory).
    dtype : DType, optional
        Output dtype. Default: the input array's dtype, or for Python data bool,
        int64, the default floating dtype (float32) or the default complex dtype.
    device : device, str or backend device, optional
        Where the result lives (a PyTorch-style device may select another backend).
    copy : bool, optional
        True always copies, False never copies (raises ``ValueError`` if it must),
        None copies only when needed.
    chunks : optional
        Block layout on chunked backends (Dask's ``chunks``).

    Returns
    -------
    Tensor
        ``obj``'s shape. A Tensor with its own dtype, on its own device, and no copy
        asked is returned itself (PyTorch's ``as_tensor(t) is t``).

    Raises
    ------
    ValueError
        If ``copy=False`` and a copy is needed.

    Notes
    -----
    Differentiable in a Tensor ``obj`` (PyTorch's ``as_tensor`` keeps the graph): the
    gradient flows back cast to the input's dtype (its real part for a real input).
    Source: array API standard 2025.12, "Creation Functions", ``asarray``; PyTorch
    ``as_tensor``.
    """
    y = _asarray(backend, obj, dtype, device, copy, chunks)
    if not backend.is_array(obj):
        return y, (None, False)
    return y, (obj.dtype, backend.xp.isdtype(obj.dtype, "complex floating"))


@asarray.defvjp
def _asarray_vjp(xp, res, g):
    in_dtype, was_complex = res
    if in_dtype is not None and g.dtype != in_dtype:
        if not was_complex and xp.isdtype(g.dtype, "complex floating"):
            g = xp.real(g)
        g = xp.astype(g, in_dtype)
    return (g,)


@asarray.defjvp
def _asarray_jvp(xp, tangents, out, obj, /, **kwargs):
    # Linear in a Tensor ``obj`` (or the Tensors of a sequence ``obj``, as the VJP): the
    # tangent converted alike (dtype, device, chunks). A cast to an integer or bool dtype
    # has no tangent; a complex-to-real cast takes the real part (PyTorch's ``_to_copy``).
    if not xp.isdtype(out.dtype, ("real floating", "complex floating")):
        return None
    t = tangents["obj"]
    if type(t) is tuple:  # a sequence of Tensors (and numbers): zero where no tangent
        t = [xp.zeros_like(e if xp.is_tensor(e) else xp.asarray(e)) if te is None else te
             for e, te in zip(obj, t)]
    elif xp.isdtype(t.dtype, "complex floating") and not xp.isdtype(out.dtype,
                                                                    "complex floating"):
        t = xp.real(t)
    return xp.asarray(t, **{**kwargs, "dtype": out.dtype})


@op("tensor", section="torch", dtypes=None, creation=True, differentiable=False)
def tensor(backend, data: Any, /, *, dtype: DType | None = None, device: Any | None = None,
           chunks: Any | None = None):
    """Copy ``data`` into a new Tensor (PyTorch's ``torch.tensor``: always copies).

    Parameters
    ----------
    data : Tensor, array, scalar or nested list/tuple
        Data, read as :func:`asarray` reads it.
    dtype : DType, optional
        Output dtype; the defaults of :func:`asarray`.
    device : device, str or backend device, optional
        Where the result lives.
    chunks : optional
        Block layout on chunked backends (Dask's ``chunks``).

    Returns
    -------
    Tensor
        A copy, ``data``'s shape; not part of any graph (use ``asarray``/``as_tensor``
        to keep one, or to avoid the copy).

    Notes
    -----
    Source: PyTorch ``torch.tensor``.
    """
    return _asarray(backend, data, dtype, device, True, chunks)


_FILLED_PARAMS = """shape : int or sequence of int
    The shape; or the first size, the others following as separate ints.
*sizes : int
    The other sizes (``{name}(2, 3)``).
size : int or sequence of int, optional
    PyTorch's keyword for ``shape``."""
_FILLED_RAISES = """TypeError
    If a size is not an int, or the shape is missing or given twice."""


def _filled_doc(name, what):
    return _doc(
        f"A Tensor of the given shape filled with {what}.\n\n``{name}(2, 3)``, "
        f"``{name}((2, 3))``, ``{name}([2, 3])``, ``{name}(shape=(2, 3))`` and "
        f"``{name}(size=(2, 3))`` are the same (the array API's and PyTorch's spellings).",
        _FILLED_PARAMS.format(name=name), "The given shape.",
        f"array API standard 2025.12, \"Creation Functions\", ``{name}``; PyTorch "
        f"``torch.{name}``.", "the default floating dtype (float32)", _FILLED_RAISES)


@op("empty", section="creation", dtypes=None, creation=True, differentiable=False,
    doc=_filled_doc("empty", "uninitialized values"))
def empty(backend, shape: int | Sequence[int] | None = None, *sizes: int,
          size: int | Sequence[int] | None = None, dtype: DType | None = None,
          device: Any | None = None, chunks: Any | None = None):
    return backend.rechunk(backend.xp.empty(_size_of("empty", shape, sizes, size),
                                             dtype=dtype or default_float(backend),
                                             **_dev(device)), chunks)


@op("zeros", section="creation", dtypes=None, creation=True, differentiable=False,
    doc=_filled_doc("zeros", "0"))
def zeros(backend, shape: int | Sequence[int] | None = None, *sizes: int,
          size: int | Sequence[int] | None = None, dtype: DType | None = None,
          device: Any | None = None, chunks: Any | None = None):
    return backend.rechunk(backend.xp.zeros(_size_of("zeros", shape, sizes, size),
                                             dtype=dtype or default_float(backend),
                                             **_dev(device)), chunks)


@op("ones", section="creation", dtypes=None, creation=True, differentiable=False,
    doc=_filled_doc("ones", "1"))
def ones(backend, shape: int | Sequence[int] | None = None, *sizes: int,
         size: int | Sequence[int] | None = None, dtype: DType | None = None,
         device: Any | None = None, chunks: Any | None = None):
    return backend.rechunk(backend.xp.ones(_size_of("ones", shape, sizes, size),
                                             dtype=dtype or default_float(backend),
                                             **_dev(device)), chunks)


@op("full", section="creation", dtypes=None, creation=True, differentiable=False,
    doc=_doc("A Tensor of the given shape filled with ``fill_value``.\n\n``size=`` is "
             "PyTorch's name for ``shape`` (``full(size=(2, 3), fill_value=1.0)``); as in "
             "both, the sizes are one argument, never separate ones.",
             "shape : int or sequence of int\n    The shape.\nfill_value : bool, int, float "
             "or complex\n    The value (required).\nsize : int or sequence of int, optional\n"
             "    PyTorch's keyword for ``shape``.",
             "The given shape.",
             "array API standard 2025.12, \"Creation Functions\", ``full``; PyTorch "
             "``torch.full``.",
             "from the Python type of ``fill_value``: bool, int64, the default floating or "
             "the default complex dtype",
             "TypeError\n    If ``fill_value`` is missing, or the shape is missing or given "
             "twice."))
def full(backend, shape: int | Sequence[int] | None = None,
         fill_value: bool | int | float | complex | None = None, *,
         size: int | Sequence[int] | None = None, dtype: DType | None = None,
         device: Any | None = None, chunks: Any | None = None):
    shape = _size_of("full", shape, (), size)
    if fill_value is None:
        raise TypeError("arrayflow.full: missing the required argument 'fill_value'")
    if dtype is None:
        dtype = _scalar_dtype(backend, fill_value)
    return backend.rechunk(
        backend.xp.full(_shape("full", shape), fill_value, dtype=dtype, **_dev(device)), chunks)


@op("eye", section="creation", dtypes=None, creation=True, differentiable=False,
    doc=_doc("A 2-D Tensor with ones on the ``k``-th diagonal and zeros elsewhere.",
             "n_rows : int\n    Number of rows.\nn_cols : int, optional\n    Number of "
             "columns (default: ``n_rows``).\nk : int\n    The diagonal: 0 the main one, "
             "positive above, negative below.",
             "Shape ``(n_rows, n_cols or n_rows)``.",
             "array API standard 2025.12, \"Creation Functions\", ``eye``.",
             "the default floating dtype"))
def eye(backend, n_rows: int, n_cols: int | None = None, /, *, k: int = 0,
        dtype: DType | None = None, device: Any | None = None, chunks: Any | None = None):
    return backend.rechunk(backend.xp.eye(n_rows, n_cols, k=k,
                                          dtype=dtype or default_float(backend),
                                          **_dev(device)), chunks)


@op("linspace", section="creation", dtypes=None, creation=True, differentiable=False,
    doc=_doc("``num`` evenly spaced samples over ``[start, stop]`` (or ``[start, stop)``).",
             "start : int, float or complex\n    The first sample.\nstop : int, float or "
             "complex\n    The last sample (or the end, excluded, without ``endpoint``).\n"
             "num : int\n    Number of samples.\nendpoint : bool\n    Include ``stop`` "
             "(default True).",
             "1-D, ``num`` elements.",
             "array API standard 2025.12, \"Creation Functions\", ``linspace``.",
             "the default floating dtype, or the default complex dtype for complex "
             "endpoints"))
def linspace(backend, start: int | float | complex, stop: int | float | complex, /,
             num: int, *, dtype: DType | None = None, device: Any | None = None,
             endpoint: bool = True, chunks: Any | None = None):
    if dtype is None:
        if isinstance(start, complex) or isinstance(stop, complex):
            dtype = backend.native_dtype(_dtypes.default_complex())
        else:
            dtype = default_float(backend)
    return backend.rechunk(backend.xp.linspace(start, stop, num, dtype=dtype,
                                               endpoint=endpoint, **_dev(device)), chunks)


def _like_doc(name, what, fill=""):
    return _doc(
        f"A Tensor shaped like ``x`` filled with {what}.",
        "x : Tensor\n    The model: its shape, and the default dtype and device." + fill,
        "``x``'s shape; the result keeps ``x``'s chunks unless ``chunks`` is given.",
        f"array API standard 2025.12, \"Creation Functions\", ``{name}``.", "``x``'s dtype")


@op("empty_like", section="creation", dtypes="any", creation=True, differentiable=False,
    doc=_like_doc("empty_like", "uninitialized values"))
def empty_like(backend, x: Array, /, *, dtype: DType | None = None, device: Any | None = None,
               chunks: Any | None = None):
    return _keep_or_rechunk(backend, backend.xp.empty_like(x, dtype=dtype,
                                    **_dev(device)), chunks)


@op("zeros_like", section="creation", dtypes="any", creation=True, differentiable=False,
    doc=_like_doc("zeros_like", "0"))
def zeros_like(backend, x: Array, /, *, dtype: DType | None = None, device: Any | None = None,
               chunks: Any | None = None):
    return _keep_or_rechunk(backend, backend.xp.zeros_like(x, dtype=dtype,
                                    **_dev(device)), chunks)


@op("ones_like", section="creation", dtypes="any", creation=True, differentiable=False,
    doc=_like_doc("ones_like", "1"))
def ones_like(backend, x: Array, /, *, dtype: DType | None = None, device: Any | None = None,
              chunks: Any | None = None):
    return _keep_or_rechunk(backend, backend.xp.ones_like(x, dtype=dtype,
                                   **_dev(device)), chunks)


@op("full_like", section="creation", dtypes="any", creation=True, differentiable=False,
    doc=_like_doc("full_like", "``fill_value``",
                  "\nfill_value : bool, int, float or complex\n    The value."))
def full_like(backend, x: Array, /, fill_value: bool | int | float | complex, *,
              dtype: DType | None = None, device: Any | None = None,
              chunks: Any | None = None):
    return _keep_or_rechunk(backend, backend.xp.full_like(x, fill_value, dtype=dtype,
                                   **_dev(device)), chunks)


@op("from_dlpack", section="creation", dtypes=None, creation=True, differentiable=False,
    exports=True)
def from_dlpack(backend, x: Any, /, *, device: Any | None = None, copy: bool | None = None):
    """A Tensor from any object implementing ``__dlpack__`` (zero-copy where possible).

    Parameters
    ----------
    x : object
        The producer: an array (of any library) with ``__dlpack__`` and
        ``__dlpack_device__``.
    device : optional
        The backend device to place the result on (default: the producer's).
    copy : bool, optional
        True always copies, False never copies, None copies only when needed.

    Returns
    -------
    Tensor
        ``x``'s shape and dtype on the current backend. Backends without
        ``from_dlpack`` go through host memory.

    Raises
    ------
    BufferError
        If the producer cannot export to this backend's device, or is a Tensor that
        requires grad (PyTorch's "Can't export tensors that require gradient").

    Notes
    -----
    Source: array API standard 2025.12, "Creation Functions", ``from_dlpack``.
    """
    kw = _dev(device)
    if copy is not None:
        kw["copy"] = copy
    fn = getattr(backend.xp, "from_dlpack", None)
    if fn is not None:
        return fn(x, **kw)
    host = _backend.host_backend()
    return backend.from_host(host.to_host(host.xp.from_dlpack(x, **kw)))


@op("meshgrid", section="creation", dtypes="any", out="tuple", complex_ok=True)
def meshgrid(xp, *arrays: Array, indexing: Literal["xy", "ij"] = "xy"):
    """Coordinate matrices from 1-D coordinate Tensors.

    Parameters
    ----------
    *arrays : Tensor
        1-D Tensors of one dtype.
    indexing : {"xy", "ij"}
        Cartesian ("xy", default: the first two output dimensions swapped) or matrix
        ("ij") indexing.

    Returns
    -------
    tuple of Tensor
        One Tensor per input, each of the grid shape (the inputs' lengths, the first
        two swapped for "xy"). Differentiable: each input's gradient is its output's
        gradient summed over the other dimensions.

    Notes
    -----
    Source: array API standard 2025.12, "Creation Functions", ``meshgrid``.
    """
    return tuple(xp.meshgrid(*arrays, indexing=indexing)), (len(arrays), indexing)


@meshgrid.defvjp
def _meshgrid_vjp(xp, res, *gs):
    # every output depends on every input's broadcast; input i only feeds output i
    n, indexing = res
    out = []
    for i, g in enumerate(gs):
        axis = i
        if indexing == "xy" and n >= 2 and i < 2:
            axis = 1 - i
        others = tuple(a for a in range(g.ndim) if a != axis)
        out.append(xp.sum(g, axis=others) if others else g)
    return tuple(out)


@meshgrid.defjvp
def _meshgrid_jvp(xp, tangents, out, *arrays, indexing="xy"):
    # output i depends on input i only (None where it has no tangent): its tangent laid
    # along output i's axis for input i and broadcast, as the forward does with the values
    n = len(arrays)
    res = []
    for i, (t, o) in enumerate(zip(tangents["arrays"], out)):
        if t is None:
            res.append(None)
            continue
        axis = 1 - i if indexing == "xy" and n >= 2 and i < 2 else i
        shape = [1] * o.ndim
        shape[axis] = -1
        res.append(xp.broadcast_to(xp.reshape(t, tuple(shape)), tuple(o.shape)))
    return tuple(res)


@op("tril", section="creation", dtypes="any", complex_ok=True, jvp="linear")
def tril(xp, x: Array, /, *, k: int = 0):
    """Lower triangle of the last two dimensions of ``x``.

    Parameters
    ----------
    x : Tensor
        At least 2-D, any dtype.
    k : int
        The diagonal above which elements are zeroed (0: the main one).

    Returns
    -------
    Tensor
        ``x``'s shape and dtype. The gradient is the same mask applied to ``g``.

    Notes
    -----
    Source: array API standard 2025.12, "Creation Functions", ``tril``.
    """
    return xp.tril(x, k=k), (k,)


@tril.defvjp
def _tril_vjp(xp, res, g):
    return (xp.tril(g, k=res[0]),)


@op("triu", section="creation", dtypes="any", complex_ok=True, jvp="linear")
def triu(xp, x: Array, /, *, k: int = 0):
    """Upper triangle of the last two dimensions of ``x``.

    Parameters
    ----------
    x : Tensor
        At least 2-D, any dtype.
    k : int
        The diagonal below which elements are zeroed (0: the main one).

    Returns
    -------
    Tensor
        ``x``'s shape and dtype. The gradient is the same mask applied to ``g``.

    Notes
    -----
    Source: array API standard 2025.12, "Creation Functions", ``triu``.
    """
    return xp.triu(x, k=k), (k,)


@triu.defvjp
def _triu_vjp(xp, res, g):
    return (xp.triu(g, k=res[0]),)


# --- PyTorch's random constructors -------------------------------------------------------------

_RANDOM_PARAMS = """*sizes : int or sequence of int
    The sizes as separate ints, or one sequence (``{name}((2, 3))``); none gives a
    0-d Tensor.
size : int or sequence of int, optional
    PyTorch's keyword for the sizes."""


def _random_doc(name, what):
    return _doc(
        f"Samples of {what}.\n\n``{name}(2, 3)``, ``{name}((2, 3))``, ``{name}([2, 3])`` "
        f"and ``{name}(size=(2, 3))`` are the same. Reproducible with "
        f":func:`arrayflow.manual_seed`.", _RANDOM_PARAMS.format(name=name),
        "The given shape.", f"PyTorch ``torch.{name}``.", "the default floating dtype",
        _FILLED_RAISES)


@op("randn", section="torch", dtypes=None, creation=True, differentiable=False,
    doc=_random_doc("randn", "the standard normal distribution"))
def randn(backend, *sizes: int | Sequence[int], size: int | Sequence[int] | None = None,
          dtype: DType | None = None, device: Any | None = None, chunks: Any | None = None):
    return _random(backend, "normal", _size("randn", sizes, size), dtype or default_float(backend),
                   device, chunks)


@op("rand", section="torch", dtypes=None, creation=True, differentiable=False,
    doc=_random_doc("rand", "the uniform distribution on ``[0, 1)``"))
def rand(backend, *sizes: int | Sequence[int], size: int | Sequence[int] | None = None,
         dtype: DType | None = None, device: Any | None = None, chunks: Any | None = None):
    return _random(backend, "uniform", _size("rand", sizes, size), dtype or default_float(backend),
                   device, chunks, low=0.0, high=1.0)


@op("randint", section="torch", dtypes=None, creation=True, differentiable=False,
    doc=_doc("Random integers, uniform in ``[low, high)``.\n\n``randint(high, size)`` starts "
             "at 0, as in PyTorch. Reproducible with :func:`arrayflow.manual_seed`.",
             "low : int\n    The lowest value (or ``high``, in ``randint(high, size)``).\n"
             "high : int or sequence of int, optional\n    One above the highest value (or "
             "the size, in ``randint(high, size)``).\nsize : int or sequence of int\n    The "
             "shape.",
             "The given shape.", "PyTorch ``torch.randint``.", "int64",
             "TypeError\n    If the arguments are neither ``(low, high, size)`` nor "
             "``(high, size)``."))
def randint(backend, low: int, high: int | Sequence[int] | None = None,
            size: int | Sequence[int] | None = None, *, dtype: DType | None = None,
            device: Any | None = None, chunks: Any | None = None):
    if size is None and high is not None and not isinstance(high, int):
        low, high, size = 0, low, high
    elif high is None and size is not None:
        low, high = 0, low
    if high is None or size is None:
        raise TypeError("arrayflow.randint: expected (low, high, size) or (high, size)")
    return _random(backend, "integers", _shape("randint", size),
                   dtype or backend.native_dtype(_dtypes.int64), device, chunks,
                   low=low, high=high)


@op("randperm", section="torch", dtypes=None, creation=True, differentiable=False,
    doc=_doc("A random permutation of ``0 .. n - 1``.\n\nReproducible with "
             ":func:`arrayflow.manual_seed`.", "n : int\n    The number of elements.",
             "1-D, ``n`` elements.", "PyTorch ``torch.randperm``.", "int64"))
def randperm(backend, n: int, *, dtype: DType | None = None, device: Any | None = None,
             chunks: Any | None = None):
    return _random(backend, "permutation", (n,), dtype or backend.native_dtype(_dtypes.int64),
                   device, chunks, n=n)
