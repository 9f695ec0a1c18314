"""Safe checkpoints: ``save(obj, path)`` and ``load(path, backend=None)``.

A checkpoint is a safetensors file. Its tensors are the Tensors of ``obj`` (copied
to host memory); its metadata key ``"arrayflow.tree"`` holds a JSON description of
the nesting (dicts, lists, tuples, numbers, strings, bools, None) in which each
Tensor is a reference to a safetensors key. Loading parses JSON and raw buffers
only: nothing is unpickled or executed, and every node is checked, so a crafted
file gives a :class:`CheckpointError`, never code execution.

Writes are atomic: the bytes go to a temporary file in the target's directory,
which is flushed, fsynced and renamed over the target with ``os.replace``.

numpy and safetensors are imported inside the functions (``import arrayflow``
imports no array library).
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections import OrderedDict

from . import _backend
from .tensor import Tensor

__all__ = ["CheckpointError", "save", "load"]

FORMAT = "arrayflow-checkpoint"
FORMAT_VERSION = "1"
MAX_DEPTH = 200
"""Deepest nesting ``load`` accepts (a crafted file cannot exhaust the stack)."""

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


def save(obj, path) -> None:
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
    OSError
        If the file cannot be written; the previous file, if any, is left intact.
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

    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            _write_bytes(f, data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:  # make the rename durable (POSIX); not every platform can open a directory
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


# --- load -----------------------------------------------------------------------------------

def _bad(path, msg):
    return CheckpointError(f"load: {path!r} is not a valid arrayflow checkpoint: {msg}")


class _Decoder:
    def __init__(self, path, handle, backend, complex_keys):
        self.path = path
        self.handle = handle
        self.keys = set(handle.keys())
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

        try:
            arr = self.handle.get_tensor(k)
        except Exception as e:  # safetensors' own error types
            raise self.fail(f"tensor {k!r} cannot be read ({e})") from None
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


def load(path, backend=None):
    """Load what :func:`save` wrote, onto ``backend``.

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
        (a ``ValueError``) If the file is not a valid checkpoint: not safetensors
        (a pickle, a truncated file, a huge or invalid header), missing or malformed
        arrayflow metadata, a node of unknown type or with fields of the wrong
        type, a reference to a tensor the file lacks, an unsupported dtype.
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If ``backend`` names no backend.
    """
    from safetensors import safe_open

    b = _backend.get_backend() if backend is None else _backend._select(backend, {})
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"load: no such file {path!r}")
    try:
        handle_cm = safe_open(path, framework="np")
    except Exception as e:  # safetensors raises its own SafetensorError and others
        raise _bad(path, f"not a safetensors file ({type(e).__name__}: {e})") from None
    with handle_cm as handle:
        meta = handle.metadata() or {}
        if meta.get("arrayflow.format") != FORMAT:
            raise _bad(path, "missing the 'arrayflow.format' metadata")
        if meta.get("arrayflow.version") != FORMAT_VERSION:
            raise _bad(path, f"unsupported format version {meta.get('arrayflow.version')!r}"
                             f" (expected {FORMAT_VERSION!r})")
        try:
            tree = json.loads(meta["arrayflow.tree"])
            complex_keys = json.loads(meta.get("arrayflow.complex", "{}"))
        except (KeyError, ValueError, RecursionError) as e:
            raise _bad(path, f"the tree metadata is not valid JSON ({e})") from None
        if not (isinstance(complex_keys, dict)
                and all(isinstance(v, str) and v in _COMPLEX_PARTS
                        for v in complex_keys.values())):
            raise _bad(path, "the 'arrayflow.complex' metadata is malformed")
        decoder = _Decoder(path, handle, b, complex_keys)
        try:
            return decoder.decode(tree)
        except RecursionError:
            raise _bad(path, "the tree is nested too deeply") from None

