"""arrayflow's data types: one set of dtype objects for every backend.

Each backend has its own dtype objects (NumPy's ``np.dtype``, array_api_strict's
``DType``...). arrayflow exposes one singleton per standard dtype
(:data:`float32`, :data:`int64`, ...) and every backend plug-in maps them to and
from its own. ``Tensor.dtype`` therefore compares equal to ``af.float32`` on
every backend.

Source: array API standard 2025.12, "Data Types" and "isdtype".
"""

from __future__ import annotations

__all__ = [
    "DType",
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "ALL_DTYPES",
    "by_name",
    "isdtype",
    "get_default_dtype",
    "set_default_dtype",
    "promote_types",
    "result_type",
]

import builtins


class DType:
    """A data type of the array API standard.

    Parameters
    ----------
    name : str
        The standard's name.
    kind : str
        The kind (see Attributes).
    bits : int
        Bits per element.

    Attributes
    ----------
    name : str
        The standard's name (``"float32"``).
    kind : str
        One of ``"bool"``, ``"signed integer"``, ``"unsigned integer"``,
        ``"real floating"``, ``"complex floating"``.
    bits : int
        Size of one element in bits (8 for ``bool``).
    """

    __slots__ = ("name", "kind", "bits")

    def __init__(self, name: str, kind: str, bits: int) -> None:
        self.name = name
        self.kind = kind
        self.bits = bits

    def __repr__(self) -> str:
        return f"arrayflow.{self.name}"

    def __str__(self) -> str:
        return self.name

    def __reduce__(self):
        return (by_name, (self.name,))

    @property
    def itemsize(self) -> int:
        """Size of one element in bytes."""
        return max(self.bits // 8, 1)

    @property
    def is_floating_point(self) -> builtins.bool:
        """True for real floating dtypes (PyTorch's ``dtype.is_floating_point``)."""
        return self.kind == "real floating"

    @property
    def is_complex(self) -> builtins.bool:
        """True for complex floating dtypes (PyTorch's ``dtype.is_complex``)."""
        return self.kind == "complex floating"


bool = DType("bool", "bool", 8)  # noqa: A001 - the standard's name
int8 = DType("int8", "signed integer", 8)
int16 = DType("int16", "signed integer", 16)
int32 = DType("int32", "signed integer", 32)
int64 = DType("int64", "signed integer", 64)
uint8 = DType("uint8", "unsigned integer", 8)
uint16 = DType("uint16", "unsigned integer", 16)
uint32 = DType("uint32", "unsigned integer", 32)
uint64 = DType("uint64", "unsigned integer", 64)
float32 = DType("float32", "real floating", 32)
float64 = DType("float64", "real floating", 64)
complex64 = DType("complex64", "complex floating", 64)
complex128 = DType("complex128", "complex floating", 128)

ALL_DTYPES: tuple[DType, ...] = (
    bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float32, float64, complex64, complex128,
)
_BY_NAME = {d.name: d for d in ALL_DTYPES}

_KINDS = {
    "bool": ("bool",),
    "signed integer": ("signed integer",),
    "unsigned integer": ("unsigned integer",),
    "integral": ("signed integer", "unsigned integer"),
    "real floating": ("real floating",),
    "complex floating": ("complex floating",),
    "numeric": (
        "signed integer", "unsigned integer", "real floating", "complex floating",
    ),
}


def by_name(name: str) -> DType:
    """Return the dtype called ``name`` (``"float32"``).

    Raises
    ------
    TypeError
        If ``name`` is not a dtype of the standard.
    """
    try:
        return _BY_NAME[name]
    except KeyError:
        raise TypeError(
            f"arrayflow: unknown dtype name {name!r}; expected one of {sorted(_BY_NAME)}"
        ) from None


def isdtype(dtype: DType, kind: str | DType | tuple[str | DType, ...]) -> builtins.bool:
    """Whether ``dtype`` is of the given ``kind`` (array API ``isdtype``).

    Parameters
    ----------
    dtype : DType
        The dtype to test.
    kind : DType, str or tuple of those
        A dtype (identity test), a kind name (``"bool"``, ``"signed integer"``,
        ``"unsigned integer"``, ``"integral"``, ``"real floating"``,
        ``"complex floating"``, ``"numeric"``) or a tuple of them (any matches).

    Raises
    ------
    TypeError
        If ``dtype`` is not an arrayflow dtype or ``kind`` is not understood.

    Source: array API standard 2025.12, ``isdtype``.
    """
    if not isinstance(dtype, DType):
        raise TypeError(f"isdtype: argument 'dtype' must be an arrayflow dtype, got {dtype!r}")
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, DType):
        return dtype is kind
    if isinstance(kind, str):
        try:
            return dtype.kind in _KINDS[kind]
        except KeyError:
            raise ValueError(
                f"isdtype: argument 'kind' must be one of {sorted(_KINDS)}, got {kind!r}"
            ) from None
    raise TypeError(
        f"isdtype: argument 'kind' must be a dtype, a kind name or a tuple, got {kind!r}"
    )


_state = {"float": float32}  # process-wide, as torch.set_default_dtype


def get_default_dtype() -> DType:
    """The default real floating dtype of creation functions (float32, as in PyTorch).

    Returns
    -------
    DType
        ``float32`` (default) or ``float64``.
    """
    return _state["float"]


def set_default_dtype(dtype: DType) -> None:
    """Set the default real floating dtype (``float32`` or ``float64``).

    Matches ``torch.set_default_dtype``. The default complex dtype follows it
    (``complex64`` for ``float32``, ``complex128`` for ``float64``).

    Parameters
    ----------
    dtype : DType
        ``float32`` or ``float64``.

    Raises
    ------
    TypeError
        If ``dtype`` is not ``float32`` or ``float64``.
    """
    if dtype is not float32 and dtype is not float64:
        raise TypeError(
            f"set_default_dtype: argument 'dtype' must be arrayflow.float32 or "
            f"arrayflow.float64, got {dtype!r}"
        )
    _state["float"] = dtype


def default_complex() -> DType:
    """The complex dtype matching the default real floating dtype."""
    return complex128 if _state["float"] is float64 else complex64


# --- type promotion --------------------------------------------------------------------------
# The one place arrayflow decides the dtype of a combination of dtypes and Python scalars:
# ``af.result_type`` and the dispatch of every promoting op (element-wise binary functions
# and operators, ``where``, ``clip``, ``concat``/``stack``...) call it.

# PyTorch's categories: a higher category wins a mixed-kind combination.
_CATEGORY = {"bool": 0, "signed integer": 1, "unsigned integer": 1,
             "real floating": 2, "complex floating": 2}
_SCALAR_CATEGORY = {builtins.bool: 0, int: 1, float: 2, complex: 2}


def category(dtype: DType) -> int:
    """PyTorch's type category of ``dtype``: 0 bool, 1 integer, 2 floating (real or complex)."""
    return _CATEGORY[dtype.kind]


def can_cast_inplace(src: DType, dst: DType) -> builtins.bool:
    """Whether an in-place result of dtype ``src`` may be cast back to ``dst`` (PyTorch).

    PyTorch's ``canCast`` for in-place ops and ``out=``: no complex to real, no floating to
    integer, no non-bool to bool; anything else (also a narrowing such as float64 to
    float32) is cast. Source: PyTorch ``c10::canCast``.
    """
    if src.kind == "complex floating" and dst.kind != "complex floating":
        return False
    return _CATEGORY[src.kind] <= _CATEGORY[dst.kind]


def _complex_of(bits: int) -> DType:
    return complex64 if bits <= 32 else complex128


def promote_types(a: DType, b: DType) -> DType:
    """The dtype two dtypes promote to (PyTorch ``torch.promote_types``).

    Same-kind pairs follow the array API standard's table (which equals PyTorch's);
    mixed kinds (bool, integer, floating) follow PyTorch: the operand of the higher
    category wins (``float32`` with ``int64`` is ``float32``, ``int8`` with ``bool``
    is ``int8``, ``complex64`` with ``int64`` is ``complex64``).

    Raises
    ------
    TypeError
        For ``uint64`` with a signed integer dtype: no integer dtype holds both (the
        standard leaves it undefined, PyTorch raises; NumPy's ``float64`` would be a
        silent change of kind).

    Source: array API standard 2025.12, "Type Promotion Rules"; PyTorch "Type
    promotion" (mixed kinds).
    """
    if a is b:
        return a
    ca, cb = _CATEGORY[a.kind], _CATEGORY[b.kind]
    if ca != cb:
        return a if ca > cb else b
    if ca == 2:
        if a.kind == b.kind:
            return a if a.bits >= b.bits else b
        real, cplx = (a, b) if a.kind == "real floating" else (b, a)
        return _complex_of(builtins.max(real.bits, cplx.bits // 2))
    if a.kind == b.kind:  # bool with bool is handled by ``a is b``
        return a if a.bits >= b.bits else b
    s, u = (a, b) if a.kind == "signed integer" else (b, a)
    if u.bits < s.bits:
        return s
    if u.bits < 64:
        return _BY_NAME[f"int{2 * u.bits}"]
    raise TypeError(
        f"result_type: no integer dtype holds both {u} and {s} (the array API standard "
        f"leaves this promotion undefined and PyTorch raises); cast one operand first")


def result_type(*items: DType | builtins.bool | int | float | complex) -> DType:
    """The dtype a combination of dtypes and Python scalars promotes to.

    Parameters
    ----------
    *items : DType or Python bool, int, float, complex
        At least one dtype.

    Returns
    -------
    DType
        Dtypes combine with :func:`promote_types`. A Python scalar of the category of
        the dtypes (or lower) takes their dtype (a ``complex`` scalar makes a real
        floating result complex of the same precision); a scalar of a higher category
        gives that category's default dtype, as PyTorch: ``int64`` for an ``int`` with
        bool, :func:`get_default_dtype` for a ``float`` with bool or integers, the
        default complex dtype for a ``complex`` with bool or integers.

    Raises
    ------
    TypeError
        Without a dtype, for an item that is neither, or where :func:`promote_types`
        raises.

    Source: array API standard 2025.12, ``result_type`` (scalars: 2024.12);
    PyTorch ``torch.result_type`` for mixed kinds.
    """
    r = None
    scalars = []
    for it in items:
        if isinstance(it, DType):
            r = it if r is None else promote_types(r, it)
        elif type(it) in _SCALAR_CATEGORY:
            scalars.append(it)
        else:
            raise TypeError(
                f"result_type: expected dtypes, Tensors or Python scalars, got "
                f"{type(it).__name__}")
    if r is None:
        raise TypeError("result_type: at least one Tensor or dtype is required "
                        "(Python scalars alone have no dtype)")
    if not scalars:
        return r
    cat = _CATEGORY[r.kind]
    top = builtins.max(_SCALAR_CATEGORY[type(s)] for s in scalars)
    cplx = any(type(s) is complex for s in scalars)
    if top > cat:
        if top == 1:
            return int64
        r = _state["float"]
    if cplx and r.kind != "complex floating":
        r = _complex_of(r.bits)
    return r
