"""SIGKILL at random points: during ``af.save`` and during a training run that writes a
checkpoint after every step.

Children are forked from a ``multiprocessing`` forkserver that preloaded arrayflow and
the training job (a fork costs milliseconds, so 50 kills of each kind fit the CI
budget). After every kill the file/directory holds the previous complete checkpoint or
the new complete one, and training resumes from it; a run killed again and again
finishes with parameters bit-identical to an uninterrupted run.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import re
import time

import numpy as np
import pytest

import arrayflow as af

pytest.importorskip("sklearn")
pytest.importorskip("matplotlib")
pytest.importorskip("tqdm")

import fault_child  # noqa: E402 - tests/faults/fault_child.py, on sys.path beside this file

from arrayflow.examples import train  # noqa: E402

KILLS = 50
HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def ctx():
    if "forkserver" not in multiprocessing.get_all_start_methods():  # Windows
        pytest.skip("needs the forkserver start method (POSIX)")
    c = multiprocessing.get_context("forkserver")
    c.set_forkserver_preload(["arrayflow", "arrayflow.examples.train", "sklearn.datasets",
                              "sklearn.model_selection", "tqdm", "matplotlib.pyplot",
                              "fault_child"])
    p = c.Process(target=fault_child.nothing)  # start the server (and its imports) now,
    p.start()  # not inside the first measured or killed run
    p.join()
    assert p.exitcode == 0
    return c


def _kill_after(proc, delay: float) -> bool:
    """SIGKILL ``proc`` after ``delay`` s; False if it had already exited."""
    proc.join(delay)
    if proc.exitcode is not None:
        return False
    proc.kill()
    proc.join()
    assert proc.exitcode in (-9, 0)  # 0: it exited just before the signal
    return proc.exitcode == -9


def test_sigkill_during_save_keeps_a_complete_file(ctx, tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    path = str(d / "ck.safetensors")
    af.save(fault_child.saved_object(1), path)
    rng = random.Random(17)
    versions, killed = set(), 0
    while killed < KILLS:
        ready = str(tmp_path / f"ready-{killed}")
        p = ctx.Process(target=fault_child.save_forever, args=(path, ready))
        p.start()
        while not os.path.exists(ready) and p.exitcode is None:
            time.sleep(0.001)
        os.unlink(ready)
        killed += _kill_after(p, rng.uniform(0.0, 0.03))
        got = af.load(path)  # never a half-written or mixed file
        v = got["version"]
        assert v in (1, 2) and got["tail"] == [v] * 3
        assert np.all(got["w"].numpy() == float(v))
        versions.add(v)
        others = [n for n in os.listdir(d) if n != "ck.safetensors"]
        assert all(re.fullmatch(r"\.ck\.safetensors\.\d+-[0-9a-f]{16}\.tmp", n)
                   for n in others), others
    assert versions == {1, 2}
    af.save(fault_child.saved_object(3), path)  # removes the killed saves' temp files
    assert os.listdir(d) == ["ck.safetensors"]
    assert af.load(path)["version"] == 3


BASE = ["--epochs", "2", "--batch-size", "64", "--test-size", "1500", "--seed", "3",
        "--quiet", "--checkpoint-every", "1"]


def _params(net) -> dict:
    return {k: v.numpy().tobytes() for k, v in net.state_dict().items()}


def _bundle_params(bundle) -> dict:
    with af.use_backend("numpy"):
        return {k: v.numpy().tobytes()
                for k, v in af.load(os.path.join(bundle, "model.safetensors")).items()}


def _check_dir(out, last_step):
    """Every visible checkpoint is complete; ``latest`` names one, never going back."""
    names = os.listdir(out) if os.path.isdir(out) else []  # killed before --out existed
    for n in names:
        if n.startswith("checkpoint-"):
            assert train.verify_bundle(os.path.join(out, n)) is None, n
        else:
            assert n in ("latest", "history.json", "curves.png") or n.endswith(".tmp"), n
    if "latest" not in names:
        assert last_step < 0  # no checkpoint written yet in this chain
        return last_step
    bundle = train.find_bundle(out)
    assert os.path.basename(bundle) == open(os.path.join(out, "latest")).read().strip()
    state = train.load_bundle(bundle)
    assert state["global_step"] >= last_step
    for f in ("model", "optimizer", "scheduler"):  # what --resume loads
        af.load(os.path.join(bundle, f + ".safetensors"))
    return state["global_step"]


def test_sigkill_during_training_resumes_bit_identical(ctx, tmp_path):
    ref = train.run(BASE + ["--out", str(tmp_path / "ref")])
    expected = _params(ref["net"])
    with open(tmp_path / "ref" / "history.json") as f:
        expected_loss = json.load(f)["loss"]
    t = time.perf_counter()
    p = ctx.Process(target=fault_child.train_main, args=(BASE + ["--out", str(tmp_path / "t")],))
    p.start()
    p.join()
    assert p.exitcode == 0
    span = time.perf_counter() - t  # one whole run in a child, checkpoints included
    rng = random.Random(5)
    killed = chains = 0
    seen = set()  # the checkpoint steps found after the kills
    while killed < KILLS:
        out = str(tmp_path / f"chain{chains}")
        last_step, same = -1, 0
        while True:  # kill, resume, kill ... until a child finishes the run
            argv = (["--resume", out, "--quiet", "--checkpoint-every", "1"]
                    if os.path.exists(os.path.join(out, "latest")) else BASE + ["--out", out])
            p = ctx.Process(target=fault_child.train_main, args=(argv,))
            p.start()
            # after 4 kills without progress (a slow start or end), let one child finish
            if killed < KILLS and same < 4 and _kill_after(p, rng.uniform(0.0, span * 0.6)):
                killed += 1
                step = _check_dir(out, last_step)
                same = same + 1 if step == last_step else 0
                last_step = step
                seen.add(step)
                continue
            p.join()
            assert p.exitcode == 0
            break
        _check_dir(out, last_step)
        assert _bundle_params(train.find_bundle(out)) == expected
        with open(os.path.join(out, "history.json")) as f:
            assert json.load(f)["loss"] == expected_loss
        chains += 1
    # the kills landed at several points of the run (before the first checkpoint is -1)
    assert len(seen) >= 3, seen
