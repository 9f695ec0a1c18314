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
    for name in ("model.safetensors", "optimizer.safetensors", "history.json", "curves.png"):
        assert (out / name).is_file(), name
    fresh = train.build_model("mlp")
    expected = train.predict(history["net"], history["x_test"]).tolist()
    assert train.predict(fresh, history["x_test"]).tolist() != expected
    fresh.load_state_dict(af.load(out / "model.safetensors"))
    assert train.predict(fresh, history["x_test"]).tolist() == expected
    with af.no_grad():
        assert af.all(fresh(history["x_test"]) == history["net"](history["x_test"]))
    opt = af.optim.Adam(fresh.parameters(), lr=1.0)
    opt.load_state_dict(af.load(out / "optimizer.safetensors"))
    assert opt.param_groups[0]["lr"] == pytest.approx(3e-3)
    assert len(opt.state) == len(list(fresh.parameters()))


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
