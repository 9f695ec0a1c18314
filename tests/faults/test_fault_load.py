"""Bad checkpoint files: ``af.load`` either loads exactly what was saved or raises
``af.CheckpointError`` naming the file and the reason; memory stays bounded by the file.

A Hypothesis fuzz test mutates valid files 1,000 times (truncation, flipped bytes,
header JSON edits of dtype/shape/offsets/metadata, a forged length prefix, appended
bytes); nothing but ``CheckpointError`` may escape and nothing wrong may load.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arrayflow as af
from arrayflow import _serialize

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _objects():
    w = af.asarray([[1.5, -2.0], [3.0, 4.25]], requires_grad=True)
    return [
        {"w": w, "b": af.asarray([0.5, 0.25]), "step": 3, "name": "x", "t": (1, None)},
        [af.asarray([True, False, True]), af.asarray([1, -2], dtype=af.int64),
         af.asarray(np.array([1 + 2j], dtype=np.complex64)), 2.5, {"k": w}],
        {"u8": af.asarray(np.arange(3, dtype=np.uint8)), "f64": af.asarray(np.array([1e300])),
         "empty": af.zeros((0, 2))},
    ]


def _bytes_of(obj) -> bytes:
    with tempfile.TemporaryDirectory() as d:
        af.save(obj, os.path.join(d, "f"))
        with open(os.path.join(d, "f"), "rb") as f:
            return f.read()


def _split(data: bytes):
    n = struct.unpack("<Q", data[:8])[0]
    return json.loads(data[8:8 + n]), data[8 + n:]


def _join(header: dict, body: bytes) -> bytes:
    head = json.dumps(header).encode()
    return struct.pack("<Q", len(head)) + head + body


def _legacy(data: bytes) -> bytes:
    """The same checkpoint as format 1 (no digest: what older versions wrote)."""
    header, body = _split(data)
    meta = header["__metadata__"]
    meta["arrayflow.version"] = "1"
    del meta["arrayflow.sha256"]
    return _join(header, body)


OBJECTS = _objects()
FILES = [_bytes_of(o) for o in OBJECTS]
# format-1 files have no digest: a damaged one may load other numbers, but only ever
# raise CheckpointError (the header, offsets, dtypes and tree are checked all the same)
LEGACY = [_legacy(f) for f in FILES]


def _same(a, b) -> bool:
    """Exactly equal nests: types, values, Tensor dtype/shape/bits/requires_grad."""
    if isinstance(a, af.Tensor):
        if not isinstance(b, af.Tensor) or a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.requires_grad != b.requires_grad:
            return False
        x, y = np.asarray(a.detach().numpy()), np.asarray(b.detach().numpy())
        return x.tobytes() == y.tobytes()
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


_CODES = ["F32", "F64", "I64", "I32", "U8", "BOOL", "F16", "BF16", "C64", "X", 7, None]


@st.composite
def mutated(draw):
    i = draw(st.integers(0, len(FILES) - 1))
    legacy = draw(st.integers(0, 3)) == 0  # a quarter: format 1
    data = (LEGACY if legacy else FILES)[i]
    kind = draw(st.sampled_from(["truncate", "flip", "header", "length", "append"]))
    if kind == "truncate":
        data = data[:draw(st.integers(0, len(data) - 1))]
    elif kind == "flip":
        for _ in range(draw(st.integers(1, 3))):
            pos = draw(st.integers(0, len(data) - 1))
            data = data[:pos] + bytes([data[pos] ^ draw(st.integers(1, 255))]) + data[pos + 1:]
    elif kind == "length":
        n = draw(st.one_of(st.integers(0, 2**64 - 1), st.integers(0, len(data))))
        data = struct.pack("<Q", n) + data[8:]
    elif kind == "append":
        data = data + draw(st.binary(min_size=1, max_size=16))
    else:
        header, body = _split(data)
        keys = [k for k in header if k != "__metadata__"]
        edit = draw(st.sampled_from(["dtype", "shape", "offsets", "meta", "drop", "add"]))
        if edit in ("dtype", "shape", "offsets", "drop") and keys:
            k = draw(st.sampled_from(keys))
            if edit == "dtype":
                header[k]["dtype"] = draw(st.sampled_from(_CODES))
            elif edit == "shape":
                header[k]["shape"] = draw(st.one_of(
                    st.lists(st.integers(-2, 2**40), max_size=4), st.just("2"),
                    st.just([2**62, 2**62])))
            elif edit == "offsets":
                header[k]["data_offsets"] = draw(st.lists(
                    st.integers(-1, len(body) + 8), min_size=0, max_size=3))
            else:
                del header[k]
        elif edit == "meta":
            meta = header["__metadata__"]
            key = draw(st.sampled_from(sorted(meta)))
            value = meta[key]
            choice = draw(st.integers(0, 3))
            if choice == 0:
                del meta[key]
            elif choice == 1 and value:
                pos = draw(st.integers(0, len(value) - 1))
                meta[key] = value[:pos] + draw(st.sampled_from('"{}[]:,0a\\')) + value[pos:]
            elif choice == 2:
                meta[key] = draw(st.sampled_from(["1", "2", "", "{}", "[]", "null"]))
            else:
                meta[key] = 3  # not a str
        else:
            header[draw(st.sampled_from(["t9", "__x", "a"]))] = draw(st.sampled_from([
                {"dtype": "F32", "shape": [0], "data_offsets": [0, 0]}, [], "x", None]))
        data = _join(header, body)
    return i, legacy, data


@settings(max_examples=1000, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated())
def test_fuzz_mutated_files_load_exactly_or_raise_checkpoint_error(case):
    i, legacy, data = case
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "mutated.safetensors")
        with open(path, "wb") as f:
            f.write(data)
        try:
            out = af.load(path)
        except af.CheckpointError as e:
            msg = str(e)
            assert repr(path) in msg and "not a valid arrayflow checkpoint: " in msg
            assert msg.split("checkpoint: ", 1)[1].strip(), msg  # a reason follows
            return
        if not legacy:  # the digest: nothing but the saved contents can load
            assert _same(out, OBJECTS[i]), "a damaged file loaded different contents"


def test_digest_catches_a_flipped_data_byte(tmp_path):
    path = tmp_path / "f"
    af.save({"w": af.asarray([1.0, 2.0, 3.0])}, path)
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x01  # inside the float data: without the digest this loads 3.0000002
    path.write_bytes(bytes(data))
    with pytest.raises(af.CheckpointError, match="SHA-256"):
        af.load(path)


def _zero_tensors_file(path, count: int) -> None:
    """A header claiming ``count`` zero-size tensors (a 'huge count', no data)."""
    meta = ('"__metadata__":{"arrayflow.format":"arrayflow-checkpoint",'
            '"arrayflow.version":"1","arrayflow.tree":"{\\"t\\":\\"none\\"}"}')
    parts = [meta] + [f'"t{i}":{{"dtype":"F32","shape":[0],"data_offsets":[0,0]}}'
                      for i in range(count)]
    head = ("{" + ",".join(parts) + "}").encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(head)) + head)


def test_huge_count_rejected_before_allocation(tmp_path):
    """Today's main: a 30 MB header of zero-size tensors costs ~500 MB RSS in
    safetensors' parser; now it is rejected after reading the header bytes."""
    path = tmp_path / "count.safetensors"
    _zero_tensors_file(path, 500_000)
    size = os.path.getsize(path)
    code = ("import resource, arrayflow as af, sys\n"
            "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
            "try:\n    af.load(sys.argv[1])\nexcept af.CheckpointError as e:\n"
            "    print(e)\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base)\n")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                         text=True, cwd=ROOT, timeout=120, check=True).stdout.splitlines()
    assert "JSON values, more than the 2000000 load accepts" in out[0]
    grown_kb = int(out[1])
    assert grown_kb * 1024 < 3 * size, (grown_kb, size)  # the header bytes, a copy or two


@pytest.mark.parametrize("claim", [2**63, 100_000_001, 50])
def test_header_length_checked_against_limit_and_file(tmp_path, claim):
    path = tmp_path / "len"
    path.write_bytes(struct.pack("<Q", claim) + b"{}" + b" " * 6)
    with pytest.raises(af.CheckpointError, match="header of .* bytes claimed"):
        af.load(path)


def test_escaped_json_in_tree_is_counted(tmp_path, monkeypatch):
    """``\\u`` escapes hide JSON syntax from the header count: the tree is counted too."""
    monkeypatch.setattr(_serialize, "MAX_JSON_VALUES", 1000)
    tree = '{"t":"list","v":[' + ",".join(['{"t":"none"}'] * 600) + "]}"
    escaped = "".join(f"\\u{ord(c):04x}" for c in tree)  # every byte as \uXXXX
    head = ('{"__metadata__":{"arrayflow.format":"arrayflow-checkpoint",'
            '"arrayflow.version":"1","arrayflow.tree":"' + escaped + '"}}').encode()
    assert _serialize._json_values(head) < 10
    path = tmp_path / "esc"
    path.write_bytes(struct.pack("<Q", len(head)) + head)
    with pytest.raises(af.CheckpointError, match="tree metadata holds up to"):
        af.load(path)


def test_shape_claim_larger_than_data(tmp_path):
    header = {"__metadata__": {"arrayflow.format": "arrayflow-checkpoint",
                               "arrayflow.version": "1",
                               "arrayflow.tree": '{"t":"tensor","k":"a"}'},
              "a": {"dtype": "F32", "shape": [2**20, 2**20], "data_offsets": [0, 8]}}
    path = tmp_path / "shape"
    path.write_bytes(_join(header, b"\0" * 8))
    with pytest.raises(af.CheckpointError, match="claims shape"):
        af.load(path)


def test_save_refuses_what_load_would_reject(tmp_path, monkeypatch):
    monkeypatch.setattr(_serialize, "MAX_JSON_VALUES", 50)
    with pytest.raises(ValueError, match="more than load accepts"):
        af.save(list(range(100)), tmp_path / "big")
    assert os.listdir(tmp_path) == []


def test_legacy_file_with_an_impossible_zero_size_shape(tmp_path):
    header = {"__metadata__": {"arrayflow.format": "arrayflow-checkpoint",
                               "arrayflow.version": "1",
                               "arrayflow.tree": '{"t":"tensor","k":"a"}'},
              "a": {"dtype": "F32", "shape": [0, 2**62], "data_offsets": [0, 0]}}
    path = tmp_path / "zero"
    path.write_bytes(_join(header, b""))
    with pytest.raises(af.CheckpointError, match="impossible shape"):  # not numpy's error
        af.load(path)
    assert _same(af.load(_write(tmp_path, LEGACY[0])), OBJECTS[0])  # format 1 still loads


def _write(tmp_path, data):
    path = tmp_path / "legacy"
    path.write_bytes(data)
    return path
