"""The training job (arrayflow.examples.train) end to end, kept short (two epochs)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from conftest import backend_unusable_reason

import arrayflow as af

pytest.importorskip("sklearn")
pytest.importorskip("matplotlib")
pytest.importorskip("tqdm")

from arrayflow.examples import train  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def two_epochs(tmp_path_factory):
    out = tmp_path_factory.mktemp("train")
    return out, train.run(["--epochs", "2", "--seed", "0", "--out", str(out), "--quiet"])


def test_accuracy_rises_and_is_printed(tmp_path, capsys):
    history = train.run(["--epochs", "2", "--seed", "0"])
    printed = capsys.readouterr().out
    lines = re.findall(r"^epoch +\d+ +loss (\d+\.\d+) +held-out accuracy (\d\.\d+)$",
                       printed, re.M)
    losses = [float(a) for a, _ in lines]
    accs = [float(b) for _, b in lines]
    assert len(accs) == 2 and len(losses) == 2
    assert accs == pytest.approx(history["accuracy"], abs=1e-4)
    assert accs[1] > accs[0]
    assert losses[1] < losses[0]
    assert "final held-out accuracy" in printed
    assert history["test_accuracy"] > 0.8


def test_same_seed_same_numbers(two_epochs):
    _, first = two_epochs
    again = train.run(["--epochs", "2", "--seed", "0", "--quiet"])
    assert again["loss"] == first["loss"]
    assert again["accuracy"] == first["accuracy"]


def test_checkpoint_reloads_into_fresh_model(two_epochs):
    out, history = two_epochs
    for name in ("latest", "history.json", "curves.png"):
        assert (out / name).is_file(), name
    bundle = out / (out / "latest").read_text().strip()
    assert bundle.name == "checkpoint-00000046" and str(bundle) == history["checkpoint"]
    for name in train.BUNDLE_FILES + ("MANIFEST.json",):
        assert (bundle / name).is_file(), name
    fresh = train.build_model("mlp")
    expected = train.predict(history["net"], history["x_test"]).tolist()
    assert train.predict(fresh, history["x_test"]).tolist() != expected
    fresh.load_state_dict(af.load(bundle / "model.safetensors"))
    assert train.predict(fresh, history["x_test"]).tolist() == expected
    with af.no_grad():
        assert af.all(fresh(history["x_test"]) == history["net"](history["x_test"]))
    opt = af.optim.Adam(fresh.parameters(), lr=1.0)
    opt.load_state_dict(af.load(bundle / "optimizer.safetensors"))
    assert opt.param_groups[0]["lr"] == pytest.approx(3e-3)
    assert len(opt.state) == len(list(fresh.parameters()))
    state = train.load_bundle(str(bundle))
    assert (state["epoch"], state["step"], state["global_step"]) == (3, 0, 46)
    assert state["history"]["loss"] == history["loss"]
    assert sorted(n for n in os.listdir(out) if n.startswith("checkpoint-")) == [
        "checkpoint-00000023", "checkpoint-00000046"]  # the newest and the previous one


def test_prints_what_it_wrote(tmp_path, capsys):
    assert train.main(["--epochs", "1", "--out", str(tmp_path)]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last == (f"wrote checkpoint-00000023 (model, optimizer, scheduler, RNG state; "
                    f"named by out/latest), history.json, curves.png to {tmp_path}")


def test_plot_is_a_png(two_epochs):
    out, _ = two_epochs
    data = (out / "curves.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 1000


def test_unknown_model_is_a_one_line_error(capsys):
    with pytest.raises(SystemExit) as info:  # argparse rejects it before training
        train.main(["--model", "resnet", "--quiet"])
    assert info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_cnn_model_learns_and_uses_conv_layers(tmp_path):
    res = train.run(["--model", "cnn", "--epochs", "3", "--quiet", "--seed", "0"])
    assert res["model"] == "cnn"
    assert any(isinstance(m, af.nn.Conv2d) for m in res["net"].modules())
    acc = res["accuracy"]
    assert acc[-1] > acc[0] and acc[-1] > 0.8  # ten classes: chance is 0.1


def test_cupy_without_gpu_exits_2():
    if backend_unusable_reason("cupy") is None:
        pytest.skip("cupy is usable here")
    proc = subprocess.run(
        [sys.executable, "-m", "arrayflow.examples.train", "--backend", "cupy", "--quiet"],
        capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "cupy" in proc.stderr


# --- validation before anything runs ---------------------------------------------------------

@pytest.fixture
def no_data(monkeypatch):
    """Loading the data fails the test: validation must come first."""
    def fail(*a, **k):
        raise AssertionError("the data were loaded before the arguments were checked")
    monkeypatch.setattr(train, "load_data", fail)


@pytest.mark.parametrize("argv,words", [
    (["--lr", "0"], ["--lr", "> 0"]),
    (["--lr", "nan"], ["--lr", "finite"]),
    (["--lr=-1e-3"], ["--lr", "> 0"]),
    (["--lr", "inf"], ["--lr", "finite"]),
    (["--test-size", "0"], ["--test-size", "(0, 1)"]),
    (["--test-size", "1.0"], ["--test-size", "(0, 1)"]),
    (["--test-size", "0.001"], ["--test-size", "[10, 1787]"]),
    (["--test-size", "5"], ["--test-size", "count"]),
    (["--test-size", "1790"], ["--test-size", "count"]),
    (["--seed=-1"], ["--seed", "[0, 4294967296)"]),
    (["--seed", str(2**32)], ["--seed", "[0, 4294967296)"]),
    (["--seed", "1.5"], ["--seed", "integer"]),
    (["--epochs", "0"], ["--epochs", ">= 1"]),
    (["--batch-size", "0"], ["--batch-size", ">= 1"]),
    (["--lr-gamma", "0"], ["--lr-gamma", "(0, 1]"]),
    (["--checkpoint-every=-1"], ["--checkpoint-every", ">= 0"]),
    (["--backend", "nope"], ["--backend", "unknown backend 'nope'", "numpy"]),
    (["--workers", "0", "--backend", "dask"], ["--workers", ">= 1"]),
    (["--scheduler", "threads"], ["--scheduler", "--backend dask"]),
])
def test_bad_arguments_one_line_exit_2_before_loading(argv, words, no_data, capsys):
    try:
        status = train.main(argv + ["--quiet"])
    except SystemExit as e:  # argparse's own exit
        status = e.code
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("arrayflow-train: error: argument "), err
    for w in words:
        assert w in err, (w, err)


def test_out_that_cannot_be_written_fails_before_training(tmp_path, no_data, capsys):
    (tmp_path / "file").write_text("x")
    for out in (tmp_path / "file" / "sub", "/proc/arrayflow-out"):
        assert train.main(["--out", str(out), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "argument --out: cannot write to" in err, err
    out = tmp_path / "new" / "deeper"
    with pytest.raises(AssertionError, match="data were loaded"):  # checks pass: loads
        train.main(["--out", str(out), "--quiet"])
    assert out.is_dir() and os.listdir(out) == []  # created, the probe removed


def test_resume_errors_are_one_line(tmp_path, no_data, capsys):
    (tmp_path / "empty").mkdir()
    for argv, words in (
            (["--resume", str(tmp_path / "missing")], "is not a directory"),
            (["--resume", str(tmp_path / "empty")], "no complete checkpoint"),
    ):
        assert train.main(argv + ["--quiet"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "argument --resume: " in err and words in err


def _interrupt_after(monkeypatch, n):
    """Ask the run to stop (as the first Ctrl-C does) at the ``n``-th check."""
    class Stop(train._StopFlag):
        checks = 0

        @property
        def requested(self):
            Stop.checks += 1
            return Stop.checks >= n

        @requested.setter
        def requested(self, value):
            pass

    monkeypatch.setattr(train, "_StopFlag", Stop)


SMALL = ["--epochs", "2", "--batch-size", "32", "--test-size", "1700", "--seed", "2",
         "--quiet", "--lr-gamma", "0.5"]


def _params(net):
    return {k: v.numpy().tobytes() for k, v in net.state_dict().items()}


@pytest.mark.parametrize("name", ["numpy", "strict", "dask"])
@pytest.mark.parametrize("stop_at,where,steps", [
    (1, "epoch 1 step 1/4", 1), (4, "epoch 1 step 4/4", 4), (7, "epoch 2 step 2/4", 6)])
def test_interrupt_and_resume_is_bit_identical(tmp_path, monkeypatch, name, stop_at, where,
                                               steps):
    """Stopped after step 1, 4 (the end of epoch 1) or 6 of 8 (the flag is also read at
    each epoch's end), resumed: the parameters, losses and accuracies of the
    uninterrupted run, bit for bit (the model, Adam, the StepLR schedule, the backend's
    generator and the shuffling all restored)."""
    if backend_unusable_reason(name):
        pytest.skip(backend_unusable_reason(name))
    argv = SMALL + ["--backend", name]
    ref = train.run(argv)
    _interrupt_after(monkeypatch, stop_at)
    with pytest.raises(train.TrainInterrupted, match=f"interrupted at {where}; checkpoint"):
        train.run(argv + ["--out", str(tmp_path)])
    monkeypatch.undo()
    state = train.load_bundle(train.find_bundle(str(tmp_path)))
    assert state["global_step"] == steps
    res = train.run(["--resume", str(tmp_path), "--quiet"])
    assert res["loss"] == ref["loss"] and res["accuracy"] == ref["accuracy"]
    assert _params(res["net"]) == _params(ref["net"])
    assert res["optimizer"].param_groups[0]["lr"] == ref["optimizer"].param_groups[0]["lr"]


def test_resume_with_more_epochs_continues_the_run(tmp_path, capsys):
    two = train.run(SMALL)
    train.run(SMALL[:1] + ["1"] + SMALL[2:] + ["--out", str(tmp_path)])
    more = train.run(["--resume", str(tmp_path), "--epochs", "2", "--quiet"])
    assert more["loss"] == two["loss"] and _params(more["net"]) == _params(two["net"])
    # a flag fixing the numbers must agree with the checkpoint
    assert train.main(["--resume", str(tmp_path), "--lr", "0.1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "argument --lr: 0.1 differs from the checkpoint's 0.003" in err


def test_damaged_latest_checkpoint_falls_back_to_the_previous(tmp_path):
    train.run(SMALL + ["--out", str(tmp_path)])
    latest = train.find_bundle(str(tmp_path))
    with open(os.path.join(latest, "model.safetensors"), "r+b") as f:
        f.seek(-1, os.SEEK_END)
        last = f.read(1)
        f.seek(-1, os.SEEK_END)
        f.write(bytes([last[0] ^ 1]))
    assert "SHA-256" in train.verify_bundle(latest)
    assert train.find_bundle(str(tmp_path)).endswith("checkpoint-00000004")
    with pytest.raises(train.TrainError, match="damaged"):
        train.find_bundle(latest)


def test_a_new_run_into_an_old_out_replaces_its_checkpoints(tmp_path):
    old = train.run(SMALL[:1] + ["3"] + SMALL[2:] + ["--out", str(tmp_path)])
    assert os.path.basename(old["checkpoint"]) == "checkpoint-00000012"
    new = train.run(SMALL + ["--out", str(tmp_path), "--seed", "5"])
    names = sorted(n for n in os.listdir(tmp_path) if n.startswith("checkpoint-"))
    assert names == ["checkpoint-00000004", "checkpoint-00000008"]  # the old run's: gone
    assert train.find_bundle(str(tmp_path)) == new["checkpoint"]
    assert train.load_bundle(new["checkpoint"])["args"]["seed"] == 5


def _rewrite(bundle, name, data: bytes):
    """Replace a file of a checkpoint and its manifest entry (a consistent forgery)."""
    import hashlib
    import json

    (bundle / name).write_bytes(data)
    manifest = json.loads((bundle / "MANIFEST.json").read_text())
    manifest["files"][name] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    (bundle / "MANIFEST.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize("name,data,words", [
    ("state.json", b"{not json", "state.json cannot be read"),
    ("state.json", b'{"format": "arrayflow-train-checkpoint"}', "not an arrayflow-train"),
    ("model.safetensors", b"junk", "cannot be restored: load:"),
])
def test_resume_of_a_forged_checkpoint_is_one_line(tmp_path, capsys, name, data, words):
    import pathlib

    train.run(SMALL[:1] + ["1"] + SMALL[2:] + ["--out", str(tmp_path)])
    bundle = pathlib.Path(train.find_bundle(str(tmp_path)))
    _rewrite(bundle, name, data)
    assert train.main(["--resume", str(bundle), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "argument --resume: " in err and words in err, err
