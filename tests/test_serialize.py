"""Safe checkpoints: ``af.save`` / ``af.load`` (safetensors + JSON tree, never pickle)."""

from __future__ import annotations

import json
import os
import pickle
import struct
from collections import OrderedDict

import numpy as np
import pytest
import safetensors.numpy
from conftest import BACKENDS, on_backend

import arrayflow as af
from arrayflow import _serialize, nn


def host(t):
    return np.asarray(t.detach().numpy())


def _nest():
    w = af.asarray([[1.5, -2.0], [3.0, 4.25]])
    return {
        "state": {0: {"step": 7, "exp_avg": w, "mask": af.asarray([True, False])},
                  1: {"count": af.asarray([1, 2, 3], dtype=af.int64)}},
        "param_groups": [{"lr": 1e-3, "betas": (0.9, 0.999), "nesterov": False,
                          "name": "group-ö", "foreach": None, "eps": float("inf"),
                          "params": [0, 1]}],
        "same": w,
        "od": OrderedDict([("z", 1), ("a", 2)]),
        "f64": af.asarray(np.linspace(0, 1, 5)),
        "u8": af.asarray(np.arange(4, dtype=np.uint8)),
        "scalar": af.asarray(2.5),
        "c": af.asarray(np.array([1 + 2j, -3j], dtype=np.complex64)),
        "big": 2**70,
        "nan": float("nan"),
    }


def _check_nest(out, backend_name):
    assert list(out) == ["state", "param_groups", "same", "od", "f64", "u8", "scalar", "c",
                         "big", "nan"]
    ea = out["state"][0]["exp_avg"]
    assert type(ea) is af.Tensor and ea.backend.name == backend_name
    assert ea.dtype is af.float32 and ea.shape == (2, 2)
    np.testing.assert_array_equal(host(ea), [[1.5, -2.0], [3.0, 4.25]])
    assert out["same"] is ea  # a Tensor stored once loads as one Tensor
    assert out["state"][0]["step"] == 7 and type(out["state"][0]["step"]) is int
    assert host(out["state"][0]["mask"]).tolist() == [True, False]
    assert out["state"][0]["mask"].dtype is af.bool
    cnt = out["state"][1]["count"]
    assert cnt.dtype is af.int64 and host(cnt).tolist() == [1, 2, 3]
    g = out["param_groups"][0]
    assert g == {"lr": 1e-3, "betas": (0.9, 0.999), "nesterov": False, "name": "group-ö",
                 "foreach": None, "eps": float("inf"), "params": [0, 1]}
    assert type(g["betas"]) is tuple and type(g["nesterov"]) is bool
    assert type(out["od"]) is OrderedDict and list(out["od"]) == ["z", "a"]
    assert out["f64"].dtype is af.float64
    np.testing.assert_array_equal(host(out["f64"]), np.linspace(0, 1, 5))
    assert out["u8"].dtype is af.uint8 and host(out["u8"]).tolist() == [0, 1, 2, 3]
    assert out["scalar"].shape == () and float(host(out["scalar"])) == 2.5
    assert out["c"].dtype is af.complex64
    np.testing.assert_array_equal(host(out["c"]), np.array([1 + 2j, -3j], np.complex64))
    assert out["big"] == 2**70 and np.isnan(out["nan"])


def test_round_trip_same_backend(backend, tmp_path):
    path = tmp_path / "ck.safetensors"
    af.save(_nest(), path)
    _check_nest(af.load(path), backend)  # default: the current backend


@pytest.mark.parametrize("dst", BACKENDS)
def test_round_trip_across_backends(backend, dst, tmp_path):
    path = str(tmp_path / "ck.safetensors")
    af.save(_nest(), path)
    with on_backend(dst):
        out = af.load(path)
    _check_nest(out, dst)
    out2 = af.load(path, backend=dst)
    assert out2["same"].backend.name == dst


def test_requires_grad_and_scalars(tmp_path):
    p = nn.Parameter(af.ones((2,)))
    af.save([p, 3, "x", None, True, 1.25], tmp_path / "a")
    out = af.load(tmp_path / "a")
    assert type(out[0]) is af.Tensor and out[0].requires_grad and out[0].is_leaf
    assert out[1:] == [3, "x", None, True, 1.25]
    assert af.load(_save(tmp_path, 5)) == 5


def _save(tmp_path, obj):
    path = tmp_path / "obj"
    af.save(obj, path)
    return path


def test_module_state_dict_through_file(backend, tmp_path):
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Module(), nn.Module()])
            self.layers[0].w = nn.Parameter(af.ones((2, 3)))
            self.layers[1].w = nn.Parameter(af.zeros((3,)))
            self.register_buffer("n", af.asarray([4], dtype=af.int64))

    a, b = Net(), Net()
    a.layers[0].w.data.uniform_(-1.0, 1.0)
    af.save(a.state_dict(), tmp_path / "m.safetensors")
    sd = af.load(tmp_path / "m.safetensors")
    assert list(sd) == ["n", "layers.0.w", "layers.1.w"]
    b.load_state_dict(sd)
    np.testing.assert_array_equal(host(b.layers[0].w), host(a.layers[0].w))


def test_save_rejects_other_objects(tmp_path):
    with pytest.raises(TypeError, match="Module"):
        af.save(nn.Module(), tmp_path / "x")
    with pytest.raises(TypeError, match=r"obj\['k'\]"):
        af.save({"k": object()}, tmp_path / "x")
    with pytest.raises(TypeError, match="dict keys"):
        af.save({(1, 2): 1}, tmp_path / "x")
    assert os.listdir(tmp_path) == []


# --- malicious and corrupt files ------------------------------------------------------------


def _meta_file(tmp_path, tree, tensors=None, **extra):
    meta = {"arrayflow.format": _serialize.FORMAT,
            "arrayflow.version": "1",  # no digest: crafted trees reach the decoder
            "arrayflow.tree": tree if isinstance(tree, str) else json.dumps(tree)}
    meta.update(extra)
    path = tmp_path / "crafted.safetensors"
    path.write_bytes(safetensors.numpy.save(tensors or {"t0": np.zeros(2, np.float32)},
                                            metadata=meta))
    return path


class _Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (exec, (f"open({self.marker!r}, 'w').write('pwned')",))


def test_pickle_is_never_executed(tmp_path):
    marker = tmp_path / "marker"
    path = tmp_path / "evil.pt"
    path.write_bytes(pickle.dumps(_Evil(str(marker))))
    with pytest.raises(af.CheckpointError, match="not a safetensors file"):
        af.load(path)
    assert not marker.exists()
    assert issubclass(af.CheckpointError, ValueError)


@pytest.mark.parametrize("content", [
    struct.pack("<Q", 2**62) + b"{}",  # huge header length
    struct.pack("<Q", 10) + b"not json!!",  # invalid header
    struct.pack("<Q", 100) + b"{}",  # truncated
    b"",
    b"\x00\x01",
], ids=["huge-header", "invalid-json", "truncated", "empty", "tiny"])
def test_corrupt_files(tmp_path, content):
    path = tmp_path / "bad"
    path.write_bytes(content)
    with pytest.raises(af.CheckpointError):
        af.load(path)


def test_plain_safetensors_without_tree(tmp_path):
    path = tmp_path / "plain"
    path.write_bytes(safetensors.numpy.save({"a": np.zeros(1, np.float32)}))
    with pytest.raises(af.CheckpointError, match="arrayflow.format"):
        af.load(path)


@pytest.mark.parametrize("tree,match", [
    ({"t": "tensor", "k": "missing"}, "lacks"),
    ({"t": "tensor", "k": 3}, "type int"),
    ({"t": "pickle", "v": "cos\nsystem\n"}, "unknown node type"),
    ({"t": "list", "v": {"a": 1}}, "type dict"),
    ({"t": "dict", "v": [[{"t": "tensor", "k": "t0"}, {"t": "none"}]]}, "dict key"),
    ({"t": "dict", "v": [[{"t": "str", "v": "a"}]]}, "pair"),
    ({"t": "int", "v": "1e9"}, "invalid int"),
    ({"t": "int", "v": 5}, "type int"),
    ({"t": "float", "v": "__import__('os')"}, "invalid float"),
    ({"t": "str", "v": "a", "code": "x"}, "unknown fields"),
    ({"t": "tensor", "k": "t0", "rg": "yes"}, "rg"),
    ([1, 2], "node object"),
    ("{not json", "JSON"),
], ids=lambda v: v if isinstance(v, str) else None)
def test_crafted_trees(tmp_path, tree, match):
    with pytest.raises(af.CheckpointError, match=match):
        af.load(_meta_file(tmp_path, tree))


def test_deep_nesting_and_bad_dtype(tmp_path):
    deeper = '{"t":"list","v":[' * 500 + '{"t":"none"}' + "]}" * 500  # > MAX_DEPTH
    deepest = '{"t":"list","v":[' * 100000 + '{"t":"none"}' + "]}" * 100000  # > stack
    for t in (deeper, deepest):
        with pytest.raises(af.CheckpointError, match="deep"):
            af.load(_meta_file(tmp_path, t))
    path = _meta_file(tmp_path, {"t": "tensor", "k": "t0"},
                      tensors={"t0": np.zeros(2, np.float16)})
    with pytest.raises(af.CheckpointError, match="float16"):
        af.load(path)
    path = _meta_file(tmp_path, {"t": "tensor", "k": "t0", "rg": True},
                      tensors={"t0": np.zeros(2, np.int32)})
    with pytest.raises(af.CheckpointError, match="requires_grad"):
        af.load(path)
    path = _meta_file(tmp_path, {"t": "tensor", "k": "t0"},
                      **{"arrayflow.version": "99"})
    with pytest.raises(af.CheckpointError, match="version"):
        af.load(path)


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        af.load(tmp_path / "nope")


# --- atomic writes --------------------------------------------------------------------------


def test_crash_mid_save_keeps_old_file(tmp_path, monkeypatch):
    path = tmp_path / "ck.safetensors"
    af.save({"w": af.asarray([1.0, 2.0])}, path)
    old = path.read_bytes()

    def crash(f, data):
        f.write(data[: len(data) // 2])
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(_serialize, "_write_bytes", crash)
    with pytest.raises(OSError, match="simulated"):
        af.save({"w": af.asarray([5.0, 6.0, 7.0])}, path)
    assert path.read_bytes() == old
    assert os.listdir(tmp_path) == ["ck.safetensors"]  # no temp file left
    assert host(af.load(path)["w"]).tolist() == [1.0, 2.0]
    monkeypatch.undo()
    af.save({"w": af.asarray([5.0])}, path)
    assert host(af.load(path)["w"]).tolist() == [5.0]
    assert os.listdir(tmp_path) == ["ck.safetensors"]
