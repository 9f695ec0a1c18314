"""Backend plug-in interface, entry-point discovery and (context-local) selection.

A backend is a small object that tells arrayflow what its arrays are, which array
API namespace computes on them, how to make random numbers, how to move data in
and out, and how to materialize lazy work. Backends are found through the
``arrayflow.backends`` entry-point group, so a third party's backend is installed
exactly like the built-in ones (NumPy, array_api_strict, Dask, CuPy).

This module never imports an array library; a backend's library is imported the
first time the backend is used (:meth:`Backend.xp`).
"""

from __future__ import annotations

import importlib.util

__all__ = [
    "Backend",
    "BackendInfo",
    "BackendMismatchError",
    "BackendUnavailableError",
    "DataDependentShapeError",
    "compute_allowed",
    "available",
    "get_backend",
    "host_backend",
    "set_backend",
    "use_backend",
    "register_backend",
    "backend_of_array",
    "manual_seed",
    "names",
]

import contextlib
import contextvars
import os
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from . import _dtypes
from ._format import format_host

ENTRY_POINT_GROUP = "arrayflow.backends"
DEFAULT_BACKEND = "numpy"


class BackendMismatchError(TypeError):
    """Raised when one call mixes Tensors of different backends.

    A ``TypeError`` subclass: the message names both backends, the function, and
    the fix (``tensor.to("numpy")``).
    """


class BackendUnavailableError(RuntimeError):
    """Raised when a backend is selected that cannot run here (CuPy without a GPU)."""


class DataDependentShapeError(RuntimeError):
    """Raised on a lazy backend by a function whose output shape depends on values.

    ``unique_*``, ``nonzero`` and ``repeat`` with Tensor repeats cannot stay lazy:
    their output shape is only known once the input is computed. (A boolean-mask
    selection stays lazy on Dask, with ``None`` in its shape; what needs its size
    raises this error.) Compute the input first (``x.compute()``), or opt in with
    ``with arrayflow.allow_compute(): ...`` (the shape is computed, the result
    stays lazy).
    """


_compute_allowed: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "arrayflow_compute_allowed", default=False)


def compute_allowed() -> bool:
    """Whether the current context opted in to computing data-dependent shapes."""
    return _compute_allowed.get()


def data_dependent_error(fname: str, backend: Backend | str) -> DataDependentShapeError:
    """The error a function with a data-dependent output shape raises on a lazy backend.

    ``backend`` is the Backend or its name.
    """
    name = getattr(backend, "name", backend)
    return DataDependentShapeError(
        f"arrayflow.{fname}: the output shape depends on the input's values, which the "
        f"lazy backend {name!r} has not computed. Compute the input first "
        f"(x.compute() gives concrete values), or opt in with "
        f"`with arrayflow.allow_compute(): ...` (the shape is computed, the result stays lazy)"
    )


class Backend:
    """Base class of backend plug-ins (the public plug-in interface).

    Subclass it, set the class attributes and implement the methods marked
    *required*, then declare the class in the ``arrayflow.backends`` entry-point
    group of your package::

        [project.entry-points."arrayflow.backends"]
        mybackend = "my_package:MyBackend"

    Class attributes
    ----------------
    name : str
        The name users select (``af.set_backend("numpy")``).
    array_module : str
        Top-level module of the array library (``"numpy"``). Arrays are only
        recognised when this module is already in ``sys.modules``, so
        recognition never imports anything.
    lazy : bool
        True when arrays are lazy (Dask): arrayflow then never reads values.
    host_accessible : bool
        True when ``np.asarray`` may read the arrays (CPU memory).
    integer_array_setitem : bool
        False when ``array[int_array] = v`` is refused (the standard does not
        define it): arrayflow then writes with standard functions.
    device_type : str
        The PyTorch device type of the arrays (``"cpu"``, the default, or
        ``"cuda"``): ``af.device("cuda")``, ``t.cuda()`` and ``af.cuda.is_available()``
        find backends by it; an index selects ``devices()[index]``.
    host : bool
        True when the backend can serve as arrayflow's *host backend* (see
        :func:`host_backend`): the one that holds finite-difference Jacobians
        (``gradcheck``), the concrete results of ``af.compute`` on a lazy backend,
        ``device("cpu")`` when the current backend is not on the CPU, and host
        round trips (``from_dlpack`` without a native one). Such a backend must
        be eager (``lazy = False``), on the CPU (``device_type = "cpu"``,
        ``host_accessible = True``), support float64 and complex128, and make
        its arrays from NumPy arrays without loss (:meth:`from_host`). Default
        False; the NumPy plug-in declares it.
    block_backend : str or None
        For a chunked backend (Dask): the name of the backend whose arrays its blocks
        are (``"numpy"``); then :meth:`map_blocks` runs that backend's code block by block
        (``arrayflow.library`` uses it for element-wise custom ops). None otherwise.

    Instances are created by arrayflow, one per set of ``options`` (the keyword
    arguments of ``af.use_backend(name, **options)``).
    """

    name: str = ""
    array_module: str = ""
    lazy: bool = False
    host_accessible: bool = True
    integer_array_setitem: bool = True
    device_type: str = "cpu"
    host: bool = False
    block_backend: str | None = None

    def __init__(self, **options: Any) -> None:
        self.options = dict(options)
        self._xp = None
        self._native = None
        self._from_native = None
        self._rng = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        opts = "".join(f", {k}={v!r}" for k, v in self.options.items())
        return f"<arrayflow backend {self.name!r}{opts}>"

    # --- required ---------------------------------------------------------------
    def load_namespace(self) -> Any:
        """*Required.* Import the library and return its array API namespace."""
        raise NotImplementedError

    def to_host(self, array: Any) -> Any:
        """*Required.* Return a NumPy array with the values of ``array``.

        Computes lazy arrays and copies device memory to the host.
        """
        raise NotImplementedError

    def from_host(self, array: Any, *, device: Any = None) -> Any:
        """*Required.* Make a backend array from a NumPy array."""
        raise NotImplementedError

    # --- optional ---------------------------------------------------------------
    def unusable_reason(self) -> str | None:
        """Why this backend cannot run here (``"no CUDA device"``), or None.

        Must not raise. The default checks that ``array_module`` is importable.
        """

        if importlib.util.find_spec(self.array_module) is None:
            return f"{self.array_module} is not installed"
        return None

    def getitem(self, array: Any, key: Any) -> Any:
        """``array[key]`` with the standard's semantics (default: the library's ``[]``).

        ``arrayflow.getitem`` (``Tensor.__getitem__``) calls this with raw
        arrays: ``key`` is an index, or a tuple of integers, slices, ``...``,
        ``None`` and backend arrays (integer or boolean). Override it when the
        library's ``__getitem__`` lacks some of the standard's indexing, e.g.
        several integer arrays broadcast together (Dask).
        """
        return array[key]

    def python_scalar(self, obj: Any) -> bool | int | float | complex | None:
        """``obj`` as a Python scalar when it is one of the library's scalar types
        (NumPy's ``np.float64(2)``), else None (the default).

        Such scalars combined with Tensors act as Python scalars, as in PyTorch
        (``np.float64(2) * t`` keeps ``t``'s float32), on every backend.
        """
        return None

    def check_values(self, array: Any, ok: Callable[[Any, Any], Any],
                     error: Callable[[Any, Any, Any], BaseException]) -> Any:
        """``array``, once every element satisfies ``ok``; else ``error`` is raised.

        ``ok(xp, a)`` is an element-wise boolean function written against a
        namespace ``xp``; ``error(xp, a, mask)`` builds the exception from the
        values and ``mask = ok(xp, a)``. Used for index bounds and class
        targets (``take``, ``x[idx]``, ``cross_entropy``).

        The default checks now (eager backends: the exception is raised by
        this call). A lazy backend makes the check part of the graph instead:
        the returned array raises ``error`` when it is computed (Dask).
        """
        xp = self.xp
        mask = ok(xp, array)
        if not bool(xp.all(mask)):
            raise error(xp, array, mask)
        return array

    def is_array(self, obj: Any) -> bool:
        """Whether ``obj`` is an array of this backend, importing nothing.

        The default accepts objects whose type comes from ``array_module`` once
        that module has been imported by someone else.
        """
        if self.array_module not in sys.modules:
            return False
        t = type(obj)
        mod = t.__module__
        if not (mod == self.array_module or mod.startswith(self.array_module + ".")):
            return False
        # arrays have a shape and a dtype; the library's dtype objects (numpy.dtypes.*) and
        # other helpers from the same module are not arrays
        return hasattr(t, "dtype") and hasattr(t, "shape") and not isinstance(obj, type)

    def dtype_from_name(self, name: str) -> Any:
        """The native dtype object for a standard dtype name (default ``getattr(xp, name)``)."""
        return getattr(self.xp, name, None)

    def materialize(self, *arrays: Any) -> tuple:
        """Finish pending work on ``arrays`` and return them (no-op by default).

        Dask persists them, CuPy synchronizes the device.
        """
        return arrays

    def compute(self, *arrays: Any) -> tuple:
        """Return concrete arrays for lazy ones, in one execution (identity by default).

        Lazy backends return host arrays, as :meth:`to_host` does (Dask: NumPy
        arrays), or arrays of another eager backend; :func:`arrayflow.compute` wraps
        each on the host backend (:func:`host_backend`) when it recognises it, else on
        the backend that does.
        """
        return arrays

    def ignore_float_errors(self) -> contextlib.AbstractContextManager[Any]:
        """A context in which floating-point exceptions (overflow, division by zero, invalid
        operation) give their IEEE 754 results silently, as PyTorch's kernels do.

        arrayflow enters it around element-wise functions that compute every branch on
        every element and select with ``where`` (the ``arrayflow.special`` forwards and
        their derivatives): the lanes a branch does not own may overflow or divide by zero
        by design. The values are unchanged; only the library's warnings are. Default: no
        change (a library that does not warn); NumPy-based plug-ins return
        ``numpy.errstate(all="ignore")``.
        """
        return contextlib.nullcontext()

    def map_blocks(self, fn: Callable[..., Any], *arrays: Any, dtype: Any) -> Any:
        """Apply ``fn`` (code for :attr:`block_backend`'s arrays) to corresponding blocks.

        The arrays have one shape and one chunking; ``fn`` maps blocks to a block of the
        same shape and of dtype ``dtype`` (native). Lazy on a lazy backend.

        Raises
        ------
        NotImplementedError
            On backends that are not chunked (the default).
        """
        raise NotImplementedError(
            f"backend {self.name!r} is not chunked: map_blocks needs a block_backend")

    def chunks_of(self, array: Any) -> tuple:
        """The chunking of ``array``: a tuple with the block sizes along each axis.

        The default, for unchunked backends, is one block per axis
        (``((n0,), (n1,), ...)``). Unknown sizes are None.
        """
        return tuple((None if s is None or s != s else int(s),) for s in array.shape)

    def rechunk(self, array: Any, chunks: Any = None) -> Any:
        """Return ``array`` laid out in ``chunks`` (Dask's ``rechunk``; default: unchanged).

        ``chunks=None`` means the backend's default layout for new arrays: creation
        functions call this on every array they make, with the ``chunks=`` the user
        passed. Backends without chunks ignore it.
        """
        return array

    def resolve_shape(self, array: Any) -> Any:
        """Compute the unknown (data-dependent) sizes of a lazy ``array``'s shape.

        Called only under :func:`arrayflow.allow_compute`, after an op such as
        ``nonzero`` or boolean-mask indexing produced an array whose shape
        contains None/NaN. The result stays lazy. Lazy backends implement it.
        """
        raise DataDependentShapeError(
            f"arrayflow: backend {self.name!r} cannot compute data-dependent shapes")

    def unknown_shapes(self, op_name: str, section: str | None, inputs: Any,
                       outputs: Any) -> bool:
        """Whether op ``op_name`` may take or give arrays of unknown (data-dependent) size.

        Called on a lazy backend when an input or an output of an op has an unknown size
        (None/NaN in its shape); ``False`` (the default) makes the op raise
        :class:`DataDependentShapeError` (outside :func:`arrayflow.allow_compute`). A
        backend that returns ``True`` guarantees the op's values and gradient are right
        without the sizes (Dask: boolean-mask selections, element-wise functions on them,
        and writing them back; it then implements :meth:`mask_select`,
        :meth:`mask_scatter` and :meth:`mask_put`).
        """
        return False

    def mask_select(self, array: Any, mask: Any) -> Any:
        """``array[mask]`` (``mask`` over the leading dimensions) of unknown length,
        lazily. Backends whose :meth:`unknown_shapes` accepts selections implement it."""
        raise DataDependentShapeError(
            f"arrayflow: backend {self.name!r} has no lazy boolean-mask selection")

    def mask_scatter(self, mask: Any, values: Any, shape: tuple) -> Any:
        """Zeros of ``shape`` with ``values`` (a :meth:`mask_select` with ``mask``, of
        unknown length) where ``mask`` is True: the gradient of the selection."""
        raise DataDependentShapeError(
            f"arrayflow: backend {self.name!r} has no lazy boolean-mask scatter")

    def mask_put(self, array: Any, mask: Any, values: Any) -> Any:
        """``array`` with ``array[mask] = values`` for ``values`` of unknown length
        selected with ``mask`` (``a[m] = f(b[m])``), lazily."""
        raise DataDependentShapeError(
            f"arrayflow: backend {self.name!r} has no lazy boolean-mask write")

    def set_seed(self, seed: int | None) -> None:
        """Reset this backend's random generator with ``seed`` (None: fresh entropy)."""
        self._rng = self.make_generator(seed)

    def make_generator(self, seed: int | None) -> Any:
        """*Required for random functions.* A new random generator for ``seed``."""
        raise NotImplementedError(f"backend {self.name!r} has no random number generator")

    def random(self, kind: str, shape: tuple, *, dtype: Any, device: Any = None,
               **params: Any) -> Any:
        """*Required for random functions.* Draw random numbers.

        Parameters
        ----------
        kind : {"normal", "uniform", "integers", "permutation"}
            ``normal`` uses ``mean`` and ``std``; ``uniform`` uses ``low`` and
            ``high`` (half-open); ``integers`` uses ``low`` and ``high``
            (half-open); ``permutation`` uses ``n`` and ignores ``shape``.
        shape : tuple of int
        dtype
            Native dtype of the result.
        device
            Native device, or None for the default.
        """
        raise NotImplementedError(f"backend {self.name!r} has no random number generator")

    def get_rng_state(self) -> Any:
        """*Optional.* The state of this backend's random generator as JSON-compatible
        data (dicts, lists, str, int), for checkpoints that resume exactly
        (``torch.get_rng_state``). Backends with a generator implement it.

        Raises
        ------
        NotImplementedError
            If the backend cannot export its generator's state.
        """
        raise NotImplementedError(
            f"backend {self.name!r} cannot export its random generator's state")

    def set_rng_state(self, state: Any) -> None:
        """*Optional.* Restore a state returned by :meth:`get_rng_state`: the draws that
        follow are those that followed it (``torch.set_rng_state``).

        Raises
        ------
        NotImplementedError
            If the backend cannot restore a generator's state.
        ValueError
            If ``state`` is not a state of this backend's generator.
        """
        raise NotImplementedError(
            f"backend {self.name!r} cannot restore its random generator's state")

    @property
    def generator(self) -> Any:
        """This backend's current random generator (created on first use)."""
        if self._rng is None:
            with self._lock:
                if self._rng is None:
                    self._rng = self.make_generator(_seed_state["seed"])
        return self._rng

    # --- provided ---------------------------------------------------------------
    @property
    def xp(self) -> Any:
        """The backend's array API namespace, imported on first use."""
        if self._xp is None:
            with self._lock:
                if self._xp is None:
                    self._xp = self.load_namespace()
        return self._xp

    def _dtype_maps(self):
        if self._native is None:
            native = {}
            for d in _dtypes.ALL_DTYPES:
                nd = self.dtype_from_name(d.name)
                if nd is not None:
                    native[d] = nd
            self._from_native = {nd: d for d, nd in native.items()}
            self._native = native
        return self._native, self._from_native

    def native_dtype(self, dtype: _dtypes.DType | Any) -> Any:
        """The native dtype for an arrayflow dtype (native dtypes pass through).

        Raises
        ------
        TypeError
            If ``dtype`` is neither an arrayflow dtype nor one of this backend's.
        """
        native, from_native = self._dtype_maps()
        try:
            return native[dtype]
        except (KeyError, TypeError):
            pass
        try:
            if dtype in from_native:
                return dtype
        except TypeError:
            pass
        d = self._dtype_by_equality(dtype)
        if d is not None:
            return native[d]
        raise TypeError(
            f"arrayflow: expected an arrayflow dtype such as arrayflow.float32 for backend "
            f"{self.name!r}, got {dtype!r}"
        )

    def arrayflow_dtype(self, native: Any) -> _dtypes.DType:
        """The arrayflow dtype for a native dtype object."""
        from_native = self._from_native
        if from_native is None:
            from_native = self._dtype_maps()[1]
        try:
            return from_native[native]
        except (KeyError, TypeError):
            d = self._dtype_by_equality(native)
            if d is not None:
                return d
            raise TypeError(
                f"arrayflow: backend {self.name!r} produced dtype {native!r}, which is not "
                f"an array API dtype"
            ) from None

    def _dtype_by_equality(self, obj: Any) -> _dtypes.DType | None:
        """The arrayflow dtype of a native dtype spelled another way that compares equal
        to it (NumPy's scalar type ``numpy.float64`` for ``numpy.dtype("float64")``, as
        ``numpy.dtype(...) == numpy.float64``); None for anything else. Strings, numbers
        and arrays never match (``numpy.dtype("float64") == "float64"`` holds too)."""
        if obj is None or isinstance(obj, (str, bytes, int, float, complex)) or \
                backend_of_array(obj) is not None:
            return None
        lib = _library_of(obj)
        for d, nd in self._dtype_maps()[0].items():
            try:
                # only the same library's spellings (array-api-strict warns on any other)
                if type(nd) is not type(obj) and _library_of(nd) == lib and bool(nd == obj):
                    return d
            except Exception:  # noqa: BLE001 - an object whose == raises is no dtype
                continue
        return None

    def devices(self) -> list:
        """The devices this backend can place arrays on."""
        return list(self.xp.__array_namespace_info__().devices())

    def default_device(self) -> Any:
        """The device new arrays go to."""
        return self.xp.__array_namespace_info__().default_device()

    def same_kind(self, other: Backend) -> bool:
        """Whether two backend instances hold the same kind of arrays."""
        return self is other or self.name == other.name

    def format_array(self, array: Any) -> str:
        """The values part of a Tensor's repr, in PyTorch's format (``[[1., 2.],\n ...]``,
        for a prefix of ``len("tensor(")``), from :meth:`to_host`. Lazy backends override
        it: a repr never computes."""

        return format_host(self.to_host(array))

    def with_options(self, **options: Any) -> Backend:
        """A backend of the same kind configured with ``options``."""
        return _instance(self.name, options)


def _library_of(obj: Any) -> str:
    """The top-level package a dtype object (or a scalar type, ``numpy.float64``) is from."""
    cls = obj if isinstance(obj, type) else type(obj)
    return str(getattr(cls, "__module__", "") or "").split(".")[0]


@dataclass(frozen=True)
class BackendInfo:
    """One row of :func:`available`: a backend's name, whether it is usable here and why not."""

    name: str
    usable: bool
    reason: str | None
    lazy: bool


_registered: dict[str, Any] = {}  # name -> class or entry point
_instances: dict[tuple, Backend] = {}
_instances_lock = threading.Lock()
_discovered = False
_seed_state: dict[str, int | None] = {"seed": None}


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        _registered.setdefault(ep.name, ep)
    _discovered = True


def register_backend(name: str, cls: type[Backend]) -> None:
    """Register a backend class under ``name`` without an entry point (tests, notebooks)."""
    if not (isinstance(cls, type) and issubclass(cls, Backend)):
        raise TypeError(
            f"register_backend: argument 'cls' must be a Backend subclass, got {cls!r}"
        )
    _discover()
    _registered[name] = cls


def names() -> list[str]:
    """Names of all installed backends (entry points and registered ones), sorted."""
    _discover()
    return sorted(_registered)


def _backend_class(name: str) -> type[Backend]:
    _discover()
    try:
        entry = _registered[name]
    except KeyError:
        raise ValueError(
            f"arrayflow: unknown backend {name!r}; available backends: {', '.join(names())}"
        ) from None
    if not isinstance(entry, type) and hasattr(entry, "load"):
        # any EntryPoint flavour: once dask imports importlib_metadata, the stdlib's
        # entry_points() returns that package's EntryPoint class
        entry = entry.load()
        if not (isinstance(entry, type) and issubclass(entry, Backend)):
            raise TypeError(
                f"arrayflow: entry point {name!r} of group {ENTRY_POINT_GROUP!r} must name a "
                f"Backend subclass, got {entry!r}"
            )
        _registered[name] = entry
    return entry


def _instance(name: str, options: dict) -> Backend:
    key = (name, tuple(sorted(options.items())))
    b = _instances.get(key)
    if b is None:
        with _instances_lock:
            b = _instances.get(key)
            if b is None:
                cls = _backend_class(name)
                b = cls(**options)
                if not b.name:
                    b.name = name
                _instances[key] = b
    return b


def _select(name, options: dict) -> Backend:
    if isinstance(name, Backend):
        b = name if not options else name.with_options(**options)
    elif isinstance(name, str):
        b = _instance(name, options)
    else:
        raise TypeError(f"arrayflow: a backend name must be a str, got {name!r}")
    reason = b.unusable_reason()
    if reason is not None:
        raise BackendUnavailableError(
            f"arrayflow: backend {b.name!r} cannot be used here: {reason}"
        )
    return b


_default: dict[str, Backend | None] = {"backend": None}
_current: contextvars.ContextVar[Backend | None] = contextvars.ContextVar(
    "arrayflow_backend", default=None
)


def get_backend() -> Backend:
    """The backend creation functions use in this context.

    Order: the innermost ``use_backend`` block of this thread or task, then the
    process default set by :func:`set_backend`, then the ``ARRAYFLOW_BACKEND``
    environment variable, then ``DEFAULT_BACKEND`` (``"numpy"``) or, when that
    plug-in is not installed or not usable here, the first usable installed backend
    declaring :attr:`Backend.host` (in name order).

    Returns
    -------
    Backend
        The backend in effect.

    Raises
    ------
    ValueError
        If ``ARRAYFLOW_BACKEND`` names no installed backend.
    BackendUnavailableError
        If the selected backend cannot run here (and, without ``ARRAYFLOW_BACKEND``, no
        usable backend declares ``host``).
    """
    b = _current.get()
    if b is not None:
        return b
    b = _default["backend"]
    if b is None:
        name = os.environ.get("ARRAYFLOW_BACKEND")
        if name is not None:
            b = _select(name, {})
        else:
            try:
                b = _select(DEFAULT_BACKEND, {})
            except (ValueError, BackendUnavailableError):
                b = _first_host([])
                if b is None:
                    raise
        _default["backend"] = b
    return b


def _host_unfit(b: Backend, usable: bool = False) -> str | None:
    """Why ``b`` cannot be the host backend (None when it can); ``usable``: already
    known to be usable here (a selected backend)."""
    if not getattr(b, "host", False):
        return "does not declare host = True"
    wrong = [f"{attr} = {getattr(b, attr, None)!r}" for attr, want in
             (("lazy", False), ("host_accessible", True), ("device_type", "cpu"))
             if getattr(b, attr, None) != want]
    if wrong:
        return f"declares host = True but {', '.join(wrong)} (a host backend is eager, on the CPU)"
    return None if usable else b.unusable_reason()


def _first_host(reasons: list[str]) -> Backend | None:
    """The first usable installed backend declaring ``host``, in name order, or None;
    appends to ``reasons`` why each one before it cannot serve."""
    for name in names():
        try:
            b = _instance(name, {})
            why = _host_unfit(b)
        except Exception as e:  # a broken third-party plug-in is reported, not raised
            why = f"plug-in failed to load: {e}"
        if why is None:
            return b
        reasons.append(f"{name!r} {why}")
    return None


def host_backend() -> Backend:
    """The backend arrayflow uses for host-side work: an eager CPU backend declaring
    :attr:`Backend.host`.

    It holds ``gradcheck``'s finite-difference Jacobians, the concrete results of
    :func:`arrayflow.compute` on a lazy backend, the arrays of ``device("cpu")``
    when the current backend is not on the CPU (``t.cpu()`` of a CuPy Tensor), and
    host round trips (``from_dlpack`` on a backend without one). The core never
    names a backend for these; any plug-in setting ``host = True`` can serve.

    The rule, first match wins:

    1. the backend in use in this context (:func:`get_backend`), if it declares
       ``host`` (``with af.use_backend("mycpu"): gradcheck(...)`` uses ``mycpu``);
    2. the process default backend (:func:`set_backend`, else the
       ``ARRAYFLOW_BACKEND`` environment variable, else ``DEFAULT_BACKEND``,
       ``"numpy"``), if it declares ``host`` and is usable here;
    3. the first usable installed backend declaring ``host``, in name order.

    A backend declaring ``host`` that is lazy or not on the CPU is skipped (a
    broken plug-in). Calling this imports at most the chosen backend's library.

    Returns
    -------
    Backend

    Raises
    ------
    BackendUnavailableError
        A ``RuntimeError`` when no usable installed backend declares ``host``; the
        message gives each installed backend's reason.
    """
    cur = get_backend()
    if _host_unfit(cur, usable=True) is None:
        return cur
    default = _default["backend"]
    if default is None:
        try:
            default = _instance(os.environ.get("ARRAYFLOW_BACKEND", DEFAULT_BACKEND), {})
        except Exception:  # unknown or broken default: step 3 decides
            default = None
    if default is not None and _host_unfit(default, usable=default is cur) is None:
        return default
    reasons: list[str] = []
    b = _first_host(reasons)
    if b is not None:
        return b
    raise BackendUnavailableError(
        "arrayflow.host_backend: no usable installed backend declares host = True (an eager "
        "CPU backend for finite differences, computed results and host round trips); "
        + ("; ".join(reasons) if reasons else "no backend is installed"))


def set_backend(name: str | Backend, **options: Any) -> Backend:
    """Set the process-wide default backend (and the current context's, if one is set).

    Parameters
    ----------
    name : str or Backend
        A backend name from :func:`names` (``"numpy"``, ``"dask"``, ...).
    **options
        Backend options (``chunks=`` for Dask).

    Returns
    -------
    Backend

    Raises
    ------
    ValueError
        For an unknown name; the message lists the available backends.
    BackendUnavailableError
        A ``RuntimeError`` when the backend cannot run here (CuPy without a GPU).
    """
    b = _select(name, options)
    _default["backend"] = b
    if _current.get() is not None:
        _current.set(b)
    return b


@contextlib.contextmanager
def use_backend(name: str | Backend, **options: Any) -> Iterator[Backend]:
    """Context manager selecting a backend for this thread or async task only.

    ``with af.use_backend("dask", chunks=1000): ...``. Built on ``contextvars``:
    other threads and tasks keep their own backend. Raises as :func:`set_backend`.

    Parameters
    ----------
    name : str or Backend
        The backend's name (``"numpy"``, ``"strict"``, ``"dask"``, ``"cupy"``, a plug-in's) or a
        Backend.
    **options : Any
        The backend's options (Dask: ``chunks=``, ...).

    Yields
    ------
    Backend
        The selected backend, current inside the block.
    """
    b = _select(name, options)
    token = _current.set(b)
    try:
        yield b
    finally:
        _current.reset(token)


def backend_of_array(obj: Any) -> Backend | None:
    """The backend whose arrays include ``obj``, among backends already in use, or None.

    Only backends whose library is already imported are asked, so this never
    imports an array library.
    """
    for b in list(_instances.values()):
        if b.is_array(obj):
            return b
    _discover()
    for name in list(_registered):
        if any(k[0] == name for k in _instances):
            continue
        try:  # loads the plug-in's module only, never its array library
            module = getattr(_backend_class(name), "array_module", None)
        except Exception:  # a broken third-party plug-in recognises nothing
            continue
        if module and module in sys.modules:
            b = _instance(name, {})
            if b.is_array(obj):
                return b
    return None


def available() -> list[BackendInfo]:
    """All installed backends, whether each is usable here, and why not.

    ``usable`` is False with a reason such as ``"no CUDA device"`` or
    ``"dask is not installed"``. May import the libraries to find out.
    """
    out = []
    for name in names():
        try:
            b = _instance(name, {})
            reason = b.unusable_reason()
            lazy = b.lazy
        except Exception as e:  # a broken third-party plug-in is reported, not raised
            reason, lazy = f"plug-in failed to load: {e}", False
        out.append(BackendInfo(name, reason is None, reason, lazy))
    return out


def manual_seed(seed: int) -> None:
    """Seed the random generators of every backend (``torch.manual_seed``).

    Backends used later start from the same seed, so ``af.randn`` and the
    initializers are reproducible on every backend.

    Parameters
    ----------
    seed : int
        The seed.

    Raises
    ------
    TypeError
        If ``seed`` is not an int.
    """
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"manual_seed: argument 'seed' must be an int, got {seed!r}")
    _seed_state["seed"] = seed
    for b in list(_instances.values()):
        b._rng = None  # recreated from the seed on next use
