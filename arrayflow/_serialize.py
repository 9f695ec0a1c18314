"""Safe checkpoints: ``save(obj, path)`` and ``load(path, backend=None)``.

A checkpoint is a safetensors file. Its tensors are the Tensors of ``obj`` (copied
to host memory); its metadata key ``"arrayflow.tree"`` holds a JSON description of
the nesting (dicts, lists, tuples, numbers, strings, bools, None) in which each
Tensor is a reference to a safetensors key. Loading parses JSON and raw buffers
only: nothing is unpickled or executed, and every node is checked, so a crafted
file gives a :class:`CheckpointError`, never code execution.

Writes are atomic: the bytes go to a temporary file in the target's directory
(``.NAME.PID-RANDOM.tmp``, created with the umask's permissions, or the mode of the
file it replaces), which is flushed, fsynced and renamed over the target with
``os.replace``. Temporary files left by a killed save are never read by ``load`` and
are removed by the next save of the same file.

Loading is bounded by the data present: the header (at most ``MAX_HEADER_BYTES``, like
safetensors) is checked against the file length and its JSON size
(``MAX_JSON_VALUES``) before it is parsed; every tensor's dtype, shape and offsets are
checked before its buffer is allocated; a format-2 file's SHA-256 digest (of the
arrayflow metadata, the tensor table and the data) is verified, so a corrupted file is
rejected instead of loading different numbers.

numpy and safetensors are imported inside the functions (``import arrayflow``
imports no array library).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import secrets
import shutil
import struct
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from . import _backend
from .tensor import Tensor

__all__ = ["CheckpointError", "save", "load"]

FORMAT = "arrayflow-checkpoint"
FORMAT_VERSION = "2"
"""Written by :func:`save`: version 1 plus the ``arrayflow.sha256`` digest.
:func:`load` reads versions 1 (no digest) and 2."""
_VERSIONS = ("1", "2")
MAX_DEPTH = 200
"""Deepest nesting ``load`` accepts (a crafted file cannot exhaust the stack)."""
MAX_HEADER_BYTES = 100_000_000
"""Largest header ``load`` reads (safetensors' limit)."""
MAX_JSON_VALUES = 2_000_000
"""Most JSON values (counted as ``[``, ``{``, ``,`` and ``:`` bytes, an upper bound)
a header may hold: parsing it then costs at most a few hundred MB, whatever it claims.
A state dict of 100,000 Tensors uses about a million."""
_READ_CHUNK = 1 << 20

# safetensors dtype codes of the host dtypes (little-endian)
_ST_DTYPES = {
    "BOOL": ("bool", 1), "U8": ("uint8", 1), "I8": ("int8", 1), "U16": ("uint16", 2),
    "I16": ("int16", 2), "U32": ("uint32", 4), "I32": ("int32", 4), "U64": ("uint64", 8),
    "I64": ("int64", 8), "F32": ("float32", 4), "F64": ("float64", 8),
    "F16": ("float16", 2), "BF16": ("bfloat16", 2),
}

# Host dtypes a checkpoint may hold (complex Tensors are stored as (real, imag) pairs).
_HOST_DTYPES = {
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64",
}
_COMPLEX_PARTS = {"complex64": "float32", "complex128": "float64"}
_KEY_TYPES = ("str", "int", "float", "bool", "none")


class CheckpointError(ValueError):
    """A file is not a valid arrayflow checkpoint (corrupt, crafted or truncated)."""


# --- save -----------------------------------------------------------------------------------

def _encode(obj, tensors: dict, ids: dict, where: str, depth: int = 0):
    if depth > MAX_DEPTH:
        raise ValueError(f"save: 'obj' is nested deeper than {MAX_DEPTH} levels at {where}")
    if obj is None:
        return {"t": "none"}
    if isinstance(obj, bool):
        return {"t": "bool", "v": obj}
    if isinstance(obj, int):
        return {"t": "int", "v": str(int(obj))}
    if isinstance(obj, float):
        return {"t": "float", "v": repr(float(obj))}
    if isinstance(obj, str):
        return {"t": "str", "v": obj}
    if isinstance(obj, Tensor):
        key = ids.get(id(obj))
        if key is None:
            key = f"t{len(tensors)}"
            ids[id(obj)] = key
            host = obj.backend.to_host(obj.array)
            tensors[key] = host
        node = {"t": "tensor", "k": key}
        if obj.requires_grad:
            node["rg"] = True
        return node
    if isinstance(obj, dict):
        items = []
        for k, v in obj.items():
            if k is not None and not isinstance(k, (str, int, float, bool)):
                raise TypeError(
                    f"save: dict keys must be str, int, float, bool or None, got "
                    f"{type(k).__name__} at {where}")
            items.append([_encode(k, tensors, ids, where, depth + 1),
                          _encode(v, tensors, ids, f"{where}[{k!r}]", depth + 1)])
        return {"t": "odict" if isinstance(obj, OrderedDict) else "dict", "v": items}
    if isinstance(obj, (list, tuple)):
        return {"t": "list" if isinstance(obj, list) else "tuple",
                "v": [_encode(v, tensors, ids, f"{where}[{i}]", depth + 1)
                      for i, v in enumerate(obj)]}
    raise TypeError(
        f"save: cannot save {type(obj).__name__} at {where}; expected Tensors, numbers, "
        f"str, bool, None and dicts/lists/tuples of them (save a Module's state_dict())")


def _host_for_file(np, arr):
    name = arr.dtype.name
    if name in _COMPLEX_PARTS:
        return np.asarray(np.stack([arr.real, arr.imag], axis=-1), order="C"), name
    if name not in _HOST_DTYPES:
        raise TypeError(f"save: Tensors of host dtype {name} cannot be saved")
    return np.asarray(arr, order="C"), None


def _write_bytes(f, data: bytes) -> None:
    """Write ``data`` to the open binary file ``f`` (a seam for crash tests)."""
    f.write(data)


def save(obj: Any, path: str | os.PathLike[str]) -> None:
    """Save a nest of Tensors, numbers, strings, bools and None to ``path``, atomically.

    Parameters
    ----------
    obj
        A Tensor, Python scalar, str or None, or dicts (str/number/bool/None keys),
        lists and tuples of them: a Module's ``state_dict()``, an optimizer's
        state dict. A Tensor appearing twice is stored once and loads as one Tensor.
    path : str or os.PathLike
        The file to write; an existing file is replaced only once the new one is
        complete (temporary file in the same directory, fsync, ``os.replace``).

    Raises
    ------
    TypeError
        If ``obj`` contains anything else (naming the position), e.g. a Module or
        an arbitrary object: arrayflow never pickles.
    ValueError
        If ``obj`` is nested deeper than ``MAX_DEPTH``.
    ValueError
        If the header would exceed what :func:`load` accepts (``MAX_HEADER_BYTES``,
        ``MAX_JSON_VALUES``).
    OSError
        If the file cannot be written (``ENOSPC``, read-only directory, ...); the
        previous file, if any, is left intact and no temporary file remains.
    """
    write_atomic(path, encode(obj))


def encode(obj: Any) -> tuple:
    """The bytes of the checkpoint of ``obj`` (what :func:`save` writes), as chunks.

    Raises
    ------
    TypeError, ValueError
        As :func:`save`.
    """
    import numpy as np
    import safetensors.numpy

    tensors: dict = {}
    tree = _encode(obj, tensors, {}, "obj")
    complex_keys = {}
    host = {}
    for key, arr in tensors.items():
        host[key], cplx = _host_for_file(np, np.asarray(arr))
        if cplx is not None:
            complex_keys[key] = cplx
    metadata = {
        "arrayflow.format": FORMAT,
        "arrayflow.version": FORMAT_VERSION,
        "arrayflow.tree": json.dumps(tree, separators=(",", ":")),
        "arrayflow.complex": json.dumps(complex_keys),
    }
    data = safetensors.numpy.save(host, metadata=metadata)
    # add the digest: of the metadata, the tensor table and the data (offsets are
    # relative to the data, so a new header leaves the data as it is)
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    body = memoryview(data)[8 + n:]
    table = _table(header)
    digest = _digest(header["__metadata__"], table, (body,))
    header["__metadata__"]["arrayflow.sha256"] = digest
    head = json.dumps(header, separators=(",", ":")).encode()
    head += b" " * (-len(head) % 8)
    if len(head) > MAX_HEADER_BYTES or _json_values(head) > MAX_JSON_VALUES:
        raise ValueError(
            f"save: 'obj' needs a header of {len(head)} bytes / {_json_values(head)} JSON "
            f"values, more than load accepts ({MAX_HEADER_BYTES} / {MAX_JSON_VALUES}); "
            f"store long lists of numbers as Tensors")
    return struct.pack("<Q", len(head)), head, body


def _table(header: dict) -> list:
    """The tensor entries of a safetensors header as ``[key, dtype, shape, offsets]``."""
    return sorted([k, v["dtype"], list(v["shape"]), list(v["data_offsets"])]
                  for k, v in header.items() if k != "__metadata__")


def _digest(meta: dict, table: list, chunks) -> str:
    """SHA-256 of the arrayflow metadata, the tensor table and the data ``chunks``."""
    h = hashlib.sha256()
    h.update(json.dumps([FORMAT, meta.get("arrayflow.version"), meta.get("arrayflow.tree"),
                         meta.get("arrayflow.complex"), table],
                        separators=(",", ":")).encode())
    h.update(b"\0")
    for c in chunks:
        h.update(c)
    return h.hexdigest()


def _json_values(head: bytes) -> int:
    """An upper bound of the number of JSON values in ``head`` (no parsing)."""
    return sum(head.count(c) for c in (b"[", b"{", b",", b":"))


_TMP_RE = re.compile(r"^\.(?P<base>.+)\.(?P<pid>\d+)-[0-9a-f]{16}\.tmp$")


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # exists (another user's) or cannot tell: leave its file alone
    return True


def temp_name(path: str) -> str:
    """A fresh temporary name beside ``path``: ``.NAME.PID-RANDOM.tmp``."""
    d, base = os.path.split(path)
    return os.path.join(d, f".{base}.{os.getpid()}-{secrets.token_hex(8)}.tmp")


def remove_stale_temps(path: str, *, any_name: bool = False) -> list:
    """Remove the temporary files (and directories) of ``path`` left by saves whose
    process is gone (killed mid-save); with ``any_name``, those of every name in
    ``path``'s directory. Returns the removed paths."""

    d, base = os.path.split(os.path.abspath(path))
    removed: list[str] = []
    try:
        names = os.listdir(d)
    except OSError:
        return removed
    for name in names:
        m = _TMP_RE.match(name)
        if m is None or (m.group("base") != base and not any_name) or _pid_alive(
                int(m.group("pid"))):
            continue
        full = os.path.join(d, name)
        try:
            if os.path.isdir(full) and not os.path.islink(full):
                shutil.rmtree(full)
            else:
                os.unlink(full)
            removed.append(full)
        except FileNotFoundError:
            pass
    return removed


def fsync_dir(directory: str) -> None:
    """Make renames in ``directory`` durable (POSIX; a no-op where a directory cannot be
    opened)."""
    try:
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def write_atomic(path: str | os.PathLike[str], chunks: Iterable[bytes], *,
                 sync_directory: bool = True) -> None:
    """Write the byte ``chunks`` to ``path`` atomically.

    A temporary file beside ``path`` (created with mode 0o666 less the umask, or with
    the mode of the file it replaces) gets the bytes, is fsynced and renamed over
    ``path``; the directory is fsynced (unless ``sync_directory`` is False: a caller
    that fsyncs it once after several writes). Stale temporary files of ``path`` from
    killed saves are removed first. On any error the temporary file is removed and
    ``path`` is left as it was.

    Raises
    ------
    OSError
        If the directory cannot be written (full, read-only, missing).
    """
    path = os.path.abspath(os.fspath(path))
    directory = os.path.dirname(path)
    remove_stale_temps(path)
    try:
        mode = os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    tmp = temp_name(path)
    f = open(tmp, "xb")  # O_CREAT | O_EXCL, mode 0o666 less the umask
    try:
        with f:
            if mode is not None:
                os.chmod(tmp, mode)
            for c in chunks:
                _write_bytes(f, c)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(e, OSError) and e.filename is None and e.errno is not None:
            e.filename = path  # name the file in the report (a failed write() does not)
        raise
    if sync_directory:
        fsync_dir(directory)


# --- load -----------------------------------------------------------------------------------

def _bad(path, msg):
    return CheckpointError(f"load: {path!r} is not a valid arrayflow checkpoint: {msg}")


class _Decoder:
    def __init__(self, path, reader, backend, complex_keys):
        self.path = path
        self.reader = reader
        self.keys = set(reader.entries)
        self.backend = backend
        self.complex_keys = complex_keys
        self.cache = {}

    def fail(self, msg):
        return _bad(self.path, msg)

    def field(self, node, name, types, where):
        if name not in node:
            raise self.fail(f"node at {where} lacks field {name!r}")
        v = node[name]
        if not isinstance(v, types):
            raise self.fail(f"field {name!r} of the node at {where} has type "
                            f"{type(v).__name__}")
        return v

    def decode(self, node, where="obj", depth=0, key=False):
        if depth > MAX_DEPTH:
            raise self.fail(f"nesting deeper than {MAX_DEPTH} levels at {where}")
        if not isinstance(node, dict) or not isinstance(node.get("t"), str):
            raise self.fail(f"expected a node object at {where}, got {type(node).__name__}")
        t = node["t"]
        allowed = {"t", "v", "k", "rg"}
        if set(node) - allowed:
            raise self.fail(f"unknown fields {sorted(set(node) - allowed)} at {where}")
        if key and t not in _KEY_TYPES:
            raise self.fail(f"a dict key at {where} has type {t!r}")
        if t == "none":
            return None
        if t == "bool":
            return self.field(node, "v", bool, where)
        if t == "int":
            v = self.field(node, "v", str, where)
            if not (len(v) <= 4000 and v.lstrip("-").isdigit() and v.isascii()):
                raise self.fail(f"invalid int {v[:40]!r} at {where}")
            return int(v)
        if t == "float":
            v = self.field(node, "v", str, where)
            try:
                if len(v) > 40:
                    raise ValueError
                f = float(v)
            except ValueError:
                raise self.fail(f"invalid float {v[:40]!r} at {where}") from None
            return f if not math.isnan(f) else math.nan
        if t == "str":
            return self.field(node, "v", str, where)
        if t in ("list", "tuple"):
            items = self.field(node, "v", list, where)
            out = [self.decode(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(items)]
            return out if t == "list" else tuple(out)
        if t in ("dict", "odict"):
            items = self.field(node, "v", list, where)
            out = OrderedDict() if t == "odict" else {}
            for i, pair in enumerate(items):
                if not (isinstance(pair, list) and len(pair) == 2):
                    raise self.fail(f"item #{i} of the dict at {where} is not a [key, value] "
                                    f"pair")
                k = self.decode(pair[0], f"{where}<key #{i}>", depth + 1, key=True)
                out[k] = self.decode(pair[1], f"{where}[{k!r}]", depth + 1)
            return out
        if t == "tensor":
            k = self.field(node, "k", str, where)
            rg = node.get("rg", False)
            if not isinstance(rg, bool):
                raise self.fail(f"field 'rg' of the node at {where} is not a bool")
            return self.tensor(k, rg, where)
        raise self.fail(f"unknown node type {t!r} at {where}")

    def tensor(self, k, rg, where):
        if k not in self.keys:
            raise self.fail(f"{where} references tensor {k!r}, which the file lacks")
        if k in self.cache:
            return self.cache[k]
        import numpy as np

        arr = self.reader.read(k)
        name = arr.dtype.name
        if k in self.complex_keys:
            cplx = self.complex_keys[k]
            if _COMPLEX_PARTS.get(cplx) != name or arr.ndim == 0 or arr.shape[-1] != 2:
                raise self.fail(f"tensor {k!r} is not a valid {cplx} pair array")
            arr = (arr[..., 0] + 1j * arr[..., 1]).astype(cplx)
        elif name not in _HOST_DTYPES:
            raise self.fail(f"tensor {k!r} has unsupported dtype {name}")
        arr = np.asarray(arr, order="C")
        t = Tensor._from_array(self.backend.from_host(arr), self.backend)
        if rg:
            if t.dtype.kind not in ("real floating", "complex floating"):
                raise self.fail(f"tensor {k!r} of dtype {t.dtype} is marked requires_grad")
            t.requires_grad_(True)
        self.cache[k] = t
        return t


class _Reader:
    """The validated safetensors layout of an open file; reads one tensor at a time."""

    def __init__(self, path, f):
        self.path = path
        self.f = f
        size = os.fstat(f.fileno()).st_size
        if size < 8:
            raise _bad(path, f"not a safetensors file (only {size} bytes)")
        n = struct.unpack("<Q", f.read(8))[0]
        if n > MAX_HEADER_BYTES:
            raise _bad(path, f"not a safetensors file (header of {n} bytes claimed, the "
                             f"limit is {MAX_HEADER_BYTES})")
        if n > size - 8:
            raise _bad(path, f"not a safetensors file (header of {n} bytes claimed, the "
                             f"file has {size - 8} after the length)")
        head = f.read(n)
        values = _json_values(head)
        if values > MAX_JSON_VALUES:
            raise _bad(path, f"the header holds up to {values} JSON values, more than the "
                             f"{MAX_JSON_VALUES} load accepts")
        try:
            header = json.loads(head)
        except (ValueError, RecursionError) as e:  # UnicodeDecodeError is a ValueError
            raise _bad(path, f"not a safetensors file (header is not JSON: "
                             f"{type(e).__name__}: {str(e)[:100]})") from None
        if not isinstance(header, dict):
            raise _bad(path, "not a safetensors file (header is not a JSON object)")
        meta = header.pop("__metadata__", None)
        if meta is None:
            meta = {}
        if not (isinstance(meta, dict) and all(isinstance(v, str) for v in meta.values())):
            raise _bad(path, "the '__metadata__' of the header is not a str-to-str map")
        self.meta = meta
        self.data_start = 8 + n
        self.data_len = size - 8 - n
        self.entries = {}
        spans = []
        for k, entry in header.items():
            self.entries[k] = self._entry(k, entry)
            spans.append((self.entries[k][2], self.entries[k][3], k))
        spans.sort()
        end = 0
        for begin, stop, k in spans:  # contiguous, no overlap, the whole data (safetensors)
            if begin != end:
                raise _bad(path, f"tensor {k!r} starts at data byte {begin}, expected {end}")
            end = stop
        if end != self.data_len:
            raise _bad(path, f"the tensors cover {end} data bytes, the file has "
                             f"{self.data_len} (truncated or padded)")
        self.table = sorted([k, e["dtype"], list(e["shape"]), list(e["data_offsets"])]
                            for k, e in header.items())

    def _entry(self, k, e):
        if not (isinstance(e, dict) and set(e) == {"dtype", "shape", "data_offsets"}):
            raise _bad(self.path, f"header entry {k[:40]!r} is not a tensor description")
        code, shape, offs = e["dtype"], e["shape"], e["data_offsets"]
        if not isinstance(code, str) or code not in _ST_DTYPES:
            raise _bad(self.path, f"tensor {k[:40]!r} has unsupported dtype {str(code)[:20]}")
        name, itemsize = _ST_DTYPES[code]
        if not (isinstance(shape, list) and len(shape) <= 64 and all(
                type(d) is int and d >= 0 for d in shape)):
            raise _bad(self.path, f"tensor {k[:40]!r} has an invalid shape")
        if not (isinstance(offs, list) and len(offs) == 2 and all(
                type(o) is int for o in offs) and 0 <= offs[0] <= offs[1] <= self.data_len):
            raise _bad(self.path, f"tensor {k[:40]!r} has data offsets outside the file's "
                                  f"{self.data_len} data bytes")
        if math.prod(max(d, 1) for d in shape) * itemsize >= 2**62:  # numpy's limit
            raise _bad(self.path, f"tensor {k[:40]!r} claims an impossible shape {shape}")
        nbytes = math.prod(shape) * itemsize
        if nbytes != offs[1] - offs[0]:
            raise _bad(self.path, f"tensor {k[:40]!r} claims shape {shape} of {code} "
                                  f"({nbytes} bytes) in {offs[1] - offs[0]} bytes")
        return name, tuple(shape), offs[0], offs[1]

    def verify(self, expected: str) -> None:
        """Check the format-2 digest against the file's bytes (read in chunks)."""
        f = self.f
        f.seek(self.data_start)

        def chunks():
            left = self.data_len
            while left > 0:
                c = f.read(min(_READ_CHUNK, left))
                if not c:
                    break
                left -= len(c)
                yield c

        if _digest(self.meta, self.table, chunks()) != expected:
            raise _bad(self.path, "SHA-256 digest mismatch: the file was corrupted after "
                                  "it was written")

    def read(self, k):
        import numpy as np

        name, shape, begin, end = self.entries[k]
        if name not in _HOST_DTYPES:
            raise _bad(self.path, f"tensor {k!r} has unsupported dtype {name}")
        dt = np.dtype(name).newbyteorder("<")
        arr = np.empty(shape, dtype=dt)
        if end > begin:
            self.f.seek(self.data_start + begin)
            got = self.f.readinto(memoryview(arr.reshape(-1)).cast("B"))
            if got != end - begin:
                raise _bad(self.path, f"tensor {k!r} is truncated")
        if name == "bool":  # any nonzero byte is True (never an invalid numpy bool)
            arr = arr.view(np.uint8) != 0
        return arr.astype(arr.dtype.newbyteorder("="), copy=False)


def load(path: str | os.PathLike[str], backend: str | _backend.Backend | None = None) -> Any:
    """Load what :func:`save` wrote, onto ``backend``.

    Memory is bounded by the file: the header is checked against the file length,
    ``MAX_HEADER_BYTES`` and ``MAX_JSON_VALUES`` before it is parsed, each tensor's
    dtype, shape and offsets before its buffer is allocated; the digest of a format-2
    file is verified before any Tensor is made.

    Parameters
    ----------
    path : str or os.PathLike
        A checkpoint written by :func:`save` (on any backend).
    backend : str or Backend, optional
        The backend of the loaded Tensors; default the current backend.

    Returns
    -------
    object
        The saved nest, with Tensors on ``backend`` (``requires_grad`` restored).

    Raises
    ------
    CheckpointError
        (a ``ValueError``) If the file is not a valid checkpoint, with the file and the
        reason: not safetensors (a pickle, a truncated file, a header too large for the
        file or the limits, invalid JSON, offsets outside the data), missing or
        malformed arrayflow metadata, a digest that does not match (corruption), a
        node of unknown type or with fields of the wrong type, a reference to a tensor
        the file lacks, an unsupported dtype.
    FileNotFoundError
        If ``path`` does not exist.
    OSError
        If ``path`` cannot be read (a directory, no permission).
    ValueError
        If ``backend`` names no backend.
    """
    b = _backend.get_backend() if backend is None else _backend._select(backend, {})
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"load: no such file {path!r}")
    with open(path, "rb") as f:
        reader = _Reader(path, f)
        meta = reader.meta
        if meta.get("arrayflow.format") != FORMAT:
            raise _bad(path, "missing the 'arrayflow.format' metadata")
        version = meta.get("arrayflow.version")
        if version not in _VERSIONS:
            raise _bad(path, f"unsupported format version {str(version)[:20]!r}"
                             f" (expected one of {', '.join(map(repr, _VERSIONS))})")
        if version != "1":
            if "arrayflow.sha256" not in meta:
                raise _bad(path, "missing the 'arrayflow.sha256' digest")
            reader.verify(meta["arrayflow.sha256"])
        texts = (meta.get("arrayflow.tree"), meta.get("arrayflow.complex", "{}"))
        if texts[0] is None:
            raise _bad(path, "missing the 'arrayflow.tree' metadata")
        for text in texts:  # \u escapes in the header may hide JSON syntax: count again
            values = _json_values(text.encode("utf-8", "surrogatepass"))
            if values > MAX_JSON_VALUES:
                raise _bad(path, f"the tree metadata holds up to {values} JSON values, more "
                                 f"than the {MAX_JSON_VALUES} load accepts")
        try:
            tree = json.loads(texts[0])
            complex_keys = json.loads(texts[1])
        except (ValueError, RecursionError) as e:
            raise _bad(path, f"the tree metadata is not valid JSON ({e})") from None
        if not (isinstance(complex_keys, dict)
                and all(isinstance(v, str) and v in _COMPLEX_PARTS
                        for v in complex_keys.values())):
            raise _bad(path, "the 'arrayflow.complex' metadata is malformed")
        decoder = _Decoder(path, reader, b, complex_keys)
        try:
            return decoder.decode(tree)
        except RecursionError:
            raise _bad(path, "the tree is nested too deeply") from None
