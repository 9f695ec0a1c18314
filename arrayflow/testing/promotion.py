"""The array API standard's type promotion table (2025.12, "Type Promotion Rules").

Copied from the standard, not computed from any library. Dtypes are written as
short codes (:data:`DTYPE_CODES`); :data:`PROMOTION_TABLE` has one entry per
unordered pair of dtypes the standard defines a promotion for (promotion is
symmetric), and :func:`promotion_pairs` lists both orders with the full names.
Read by ``tests/test_promotion.py`` and by the conformance runner.
"""

from __future__ import annotations

__all__ = ["DTYPE_CODES", "PROMOTION_TABLE", "promotion_pairs"]

DTYPE_CODES: dict[str, str] = {
    "b": "bool", "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
    "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
    "f4": "float32", "f8": "float64", "c8": "complex64", "c16": "complex128",
}
"""Short code of each dtype name used in :data:`PROMOTION_TABLE`."""

PROMOTION_TABLE: dict[tuple[str, str], str] = {
    # bool
    ("b", "b"): "b",
    # signed integers
    ("i1", "i1"): "i1", ("i1", "i2"): "i2", ("i1", "i4"): "i4", ("i1", "i8"): "i8",
    ("i2", "i2"): "i2", ("i2", "i4"): "i4", ("i2", "i8"): "i8",
    ("i4", "i4"): "i4", ("i4", "i8"): "i8",
    ("i8", "i8"): "i8",
    # unsigned integers
    ("u1", "u1"): "u1", ("u1", "u2"): "u2", ("u1", "u4"): "u4", ("u1", "u8"): "u8",
    ("u2", "u2"): "u2", ("u2", "u4"): "u4", ("u2", "u8"): "u8",
    ("u4", "u4"): "u4", ("u4", "u8"): "u8",
    ("u8", "u8"): "u8",
    # mixed unsigned and signed integers (uint64 with a signed type is undefined)
    ("u1", "i1"): "i2", ("u1", "i2"): "i2", ("u1", "i4"): "i4", ("u1", "i8"): "i8",
    ("u2", "i1"): "i4", ("u2", "i2"): "i4", ("u2", "i4"): "i4", ("u2", "i8"): "i8",
    ("u4", "i1"): "i8", ("u4", "i2"): "i8", ("u4", "i4"): "i8", ("u4", "i8"): "i8",
    # real floating
    ("f4", "f4"): "f4", ("f4", "f8"): "f8", ("f8", "f8"): "f8",
    # complex floating, and real with complex floating
    ("c8", "c8"): "c8", ("c8", "c16"): "c16", ("c16", "c16"): "c16",
    ("f4", "c8"): "c8", ("f4", "c16"): "c16", ("f8", "c8"): "c16", ("f8", "c16"): "c16",
}
"""``(code, code) -> code`` for every unordered pair with a defined promotion."""


def promotion_pairs() -> list[tuple[str, str, str]]:
    """Every ordered pair of the table as full dtype names.

    Returns
    -------
    list of tuple of str
        ``(dtype1, dtype2, result)`` such as ``("uint8", "int8", "int16")``;
        both orders of each pair, each once.
    """
    out = []
    for (a, b), r in PROMOTION_TABLE.items():
        for x, y in dict.fromkeys([(a, b), (b, a)]):
            out.append((DTYPE_CODES[x], DTYPE_CODES[y], DTYPE_CODES[r]))
    return out
