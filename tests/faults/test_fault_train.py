"""The training job under interruption and write failures, and training in threads.

- SIGINT (a real ``python -m arrayflow.examples.train`` process): exit 130 with one
  line, a complete checkpoint, and ``--resume`` finishes bit-identical to an
  uninterrupted run (numpy and dask); a second SIGINT aborts, leaving the last complete
  checkpoint as it was.
- ENOSPC / a read-only directory while a checkpoint is written: one line, exit 1, the
  previous checkpoint intact and resumable.
- 8 threads training separate models, each with its own grad mode and backend context:
  the results of sequential runs, bit for bit.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from conftest import require_backend

import arrayflow as af
from arrayflow import _serialize

pytest.importorskip("sklearn")
pytest.importorskip("matplotlib")
pytest.importorskip("tqdm")

from arrayflow.examples import train  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# 97 training images: 4 steps of 32 per epoch (Dask runs each step as graphs: keep it small)
SMALL = ["--epochs", "2", "--batch-size", "32", "--test-size", "1700", "--seed", "1",
         "--quiet", "--checkpoint-every", "1"]


def _params(net) -> dict:
    return {k: np.asarray(v.numpy()).tobytes() for k, v in net.state_dict().items()}


def _start(argv, out):
    return subprocess.Popen([sys.executable, "-m", "arrayflow.examples.train", *argv,
                             "--out", str(out)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _wait_for(path, proc, timeout=120):
    t = time.monotonic()
    while not os.path.exists(path):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() - t < timeout
        time.sleep(0.005)


@pytest.mark.parametrize("name", ["numpy", "dask"])
def test_sigint_stops_after_the_step_checkpoints_and_resumes_bit_identical(name, tmp_path):
    require_backend(name)
    argv = SMALL + ["--backend", name]
    ref = train.run(argv)
    proc = _start(argv, tmp_path / "run")
    _wait_for(tmp_path / "run" / "latest", proc)  # training, checkpoints being written
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "interrupted at epoch" in err and "--resume" in err
    bundle = train.find_bundle(str(tmp_path / "run"))
    assert bundle in err  # the message names the checkpoint written
    state = train.load_bundle(bundle)
    assert state["global_step"] < 8  # stopped early (8 steps in all)
    res = train.run(["--resume", str(tmp_path / "run"), "--quiet"])
    assert res["loss"] == ref["loss"] and res["accuracy"] == ref["accuracy"]
    assert _params(res["net"]) == _params(ref["net"])


def test_second_sigint_aborts_and_keeps_the_last_checkpoint(tmp_path):
    argv = SMALL + ["--epochs", "6"]
    ref = train.run(argv)
    proc = _start(argv, tmp_path / "run")
    _wait_for(tmp_path / "run" / "latest", proc)
    proc.send_signal(signal.SIGINT)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "interrupted" in err
    out = tmp_path / "run"
    for n in os.listdir(out):  # no half checkpoint visible; the pointer names a whole one
        if n.startswith("checkpoint-"):
            assert train.verify_bundle(str(out / n)) is None
    res = train.run(["--resume", str(out), "--quiet"])
    assert _params(res["net"]) == _params(ref["net"])


def _fail_writes_to(monkeypatch, marker, err):
    """Make file writes whose path contains ``marker`` raise ``OSError(err)`` (after
    writing half their bytes, as a disk that fills up)."""
    real = _serialize._write_bytes

    def write(f, data):
        if marker in str(f.name):
            f.write(bytes(data)[: len(data) // 2])
            raise OSError(err, os.strerror(err))
        return real(f, data)

    monkeypatch.setattr(_serialize, "_write_bytes", write)


@pytest.mark.parametrize("err", [errno.ENOSPC, errno.EROFS])
def test_disk_full_or_read_only_during_a_checkpoint(tmp_path, monkeypatch, capsys, err):
    out = tmp_path / "run"
    argv = SMALL + ["--out", str(out)]
    ref = train.run(SMALL)
    # the third checkpoint's optimizer file (in its temporary directory)
    _fail_writes_to(monkeypatch, "checkpoint-00000003", err)
    assert train.main(argv) == 1
    msg = capsys.readouterr().err
    assert msg.count("\n") == 1 and os.strerror(err) in msg and "untouched" in msg, msg
    assert ".checkpoint-00000003." in msg and "model.safetensors" in msg, msg
    monkeypatch.undo()
    assert sorted(n for n in os.listdir(out) if not n.startswith(".")) == [
        "checkpoint-00000001", "checkpoint-00000002", "latest"]
    assert [n for n in os.listdir(out) if n.startswith(".")] == []  # temp dir removed
    bundle = train.find_bundle(str(out))
    assert bundle.endswith("checkpoint-00000002")
    res = train.run(["--resume", str(out), "--quiet"])
    assert _params(res["net"]) == _params(ref["net"])


def test_read_only_directory_when_renaming_the_checkpoint(tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    ref = train.run(SMALL)
    real_rename = os.rename
    calls = [0]

    def rename(a, b):
        calls[0] += 1
        if calls[0] == 3:  # the third checkpoint's directory
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), b)
        return real_rename(a, b)

    monkeypatch.setattr(os, "rename", rename)
    assert train.main(SMALL + ["--out", str(out)]) == 1
    monkeypatch.undo()
    assert "Read-only file system" in capsys.readouterr().err
    assert train.find_bundle(str(out)).endswith("checkpoint-00000002")
    res = train.run(["--resume", str(out), "--quiet"])
    assert _params(res["net"]) == _params(ref["net"])


# --- threads ----------------------------------------------------------------------------------

def _train_one(i, x, y, results):
    """Train model ``i`` a few steps: its own backend context and grad modes."""
    from arrayflow.utils.data import DataLoader, TensorDataset

    name = ("numpy", "strict")[i % 2]
    with af.use_backend(name):
        with af.no_grad():  # this thread's grad mode: no graph while building
            net = train.MLP(64, 16, 10)
            assert not af.is_grad_enabled()
        g = np.random.default_rng(i)  # the init from host numbers: no shared generator
        with af.no_grad():
            for p in net.parameters():
                p.copy_(af.asarray(g.standard_normal(p.shape).astype(np.float32) * 0.1))
        opt = af.optim.Adam(net.parameters(), lr=1e-2)
        loader = DataLoader(TensorDataset(af.asarray(x), af.asarray(y)), batch_size=32,
                            shuffle=True, generator=i)
        losses = []
        for _ in range(2):
            for xb, yb in loader:
                with af.enable_grad():
                    opt.zero_grad()
                    loss = train.cross_entropy(net(xb), yb)
                    loss.backward()
                    opt.step()
                with af.no_grad():
                    losses.append(float(loss))
                    assert not af.is_grad_enabled()
                assert af.is_grad_enabled()
                time.sleep(0)  # let the other threads interleave
        results[i] = (name, losses, _params(net))


def test_eight_threads_match_sequential_runs():
    rng = np.random.default_rng(0)
    x = rng.random((96, 64), dtype=np.float32)
    y = rng.integers(0, 10, 96)
    sequential = {}
    for i in range(8):
        _train_one(i, x, y, sequential)
    threaded = {}
    threads = [threading.Thread(target=_train_one, args=(i, x, y, threaded))
               for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(threaded) == list(range(8))
    assert threaded == sequential
    assert len({json.dumps(v[1]) for v in sequential.values()}) == 8  # distinct models
