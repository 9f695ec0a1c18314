"""arrayflow on a ``dask.distributed`` cluster (issue 6): unchanged code, work on the workers.

One ``LocalCluster`` of two worker *processes* (one thread each) serves the module. The
tests check that gradients computed on the cluster equal the NumPy backend's, that the
tasks ran on the workers, that ``af.compute`` is one graph submission and ``af.persist``
leaves the blocks on the workers, that a custom ``af.autograd.Function`` defined in a
user's ``__main__`` script runs on the workers, that killing a worker process in the
middle of a gradient computation still gives the right gradient (Dask recomputes what
was lost), and the training job's ``--scheduler`` option.

Runs in about a minute on a 2-core machine (the subprocess tests start their own
clusters); the fault test is last because it replaces one of the module's workers.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import arrayflow as af

pytest.importorskip("dask")
distributed = pytest.importorskip(
    "distributed", reason="dask.distributed is not installed (pip install 'arrayflow[dask]')")

from distributed import Client, LocalCluster, futures_of, get_task_stream  # noqa: E402
from distributed.diagnostics.plugin import SchedulerPlugin  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0", silence_logs=logging.ERROR) as c:
        yield c


@pytest.fixture(scope="module")
def client(cluster):
    with Client(cluster) as c:  # the default scheduler of dask.compute/persist while open
        yield c


class _GraphCounter(SchedulerPlugin):
    """Counts graph submissions (``update_graph``) and workers leaving the scheduler."""

    name = "arrayflow-test-counter"

    def __init__(self):
        self.graphs = 0
        self.removed = []

    def update_graph(self, scheduler, **kwargs):
        self.graphs += 1

    def remove_worker(self, scheduler, worker, **kwargs):
        self.removed.append(worker)


@pytest.fixture
def counter(cluster):
    # the LocalCluster's scheduler runs in this process: add the plugin object itself
    plugin = _GraphCounter()
    cluster.scheduler.add_plugin(plugin)
    yield plugin
    cluster.scheduler.remove_plugin(name=plugin.name)


def _mlp_and_data(backend, state=None):
    """A float64 MLP 6-16-3 (``af.nn``) and one batch; ``state`` copies another's weights."""
    rng = np.random.default_rng(1)
    x_np = rng.standard_normal((40, 6))
    y_np = rng.integers(0, 3, size=40)
    with af.use_backend(backend):
        if backend == "numpy":
            af.manual_seed(0)
        nn = af.nn
        net = nn.Sequential(nn.Linear(6, 16, dtype=af.float64), nn.Tanh(),
                            nn.Linear(16, 3, dtype=af.float64))
        if state is not None:
            net.load_state_dict({k: v.to(backend) for k, v in state.items()})
        chunks = {"chunks": (10, 6)} if backend == "dask" else {}
        x = af.asarray(x_np, **chunks)  # four row blocks on Dask
        y = af.asarray(y_np)
    return net, x, y


def _loss_and_grads(net, x, y):
    loss = af.nn.functional.cross_entropy(net(x), y)
    params = list(net.parameters())
    for p in params:
        p.grad = None
    loss.backward()
    return loss, [p.grad for p in params]


def test_mlp_gradients_on_the_cluster_equal_numpy_and_run_on_workers(client, counter):
    ref_net, xr, yr = _mlp_and_data("numpy")
    ref_loss, ref_grads = _loss_and_grads(ref_net, xr, yr)
    net, x, y = _mlp_and_data("dask", ref_net.state_dict())
    with get_task_stream(client) as ts:
        loss, grads = _loss_and_grads(net, x, y)  # lazy: nothing submitted yet
        assert counter.graphs == 0
        loss_v, *grad_v = af.compute(loss, *grads)
    assert counter.graphs == 1  # loss and all gradients: one submission
    assert loss_v.backend.name == "numpy"
    np.testing.assert_allclose(float(loss_v), float(ref_loss), rtol=1e-12)
    for got, want in zip(grad_v, ref_grads):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-14)
    workers = set(client.scheduler_info()["workers"])
    ran_on = {t["worker"] for t in ts.data}
    assert ts.data and ran_on <= workers, ran_on  # the workers did the work
    # the worker processes are not this process
    assert os.getpid() not in set(client.run(os.getpid).values())


def test_compute_is_one_graph_execution_and_persist_keeps_blocks_on_workers(client, counter):
    net, x, y = _mlp_and_data("dask", _mlp_and_data("numpy")[0].state_dict())
    loss, grads = _loss_and_grads(net, x, y)
    af.compute(loss, *grads)
    assert counter.graphs == 1
    # the same values one by one: one submission each. (Fresh keys: x * 1.0. Submitting
    # keys the scheduler still knows, fused differently, makes it warn: dask/dask#9888.)
    loss2, grads2 = _loss_and_grads(net, x * 1.0, y)
    float(loss2)
    for g in grads2:
        g.numpy()
    assert counter.graphs == 2 + len(grads)

    h = af.tanh(x * 2.0)
    (hp,) = af.persist(h)
    futures = futures_of(hp.array)
    assert len(futures) == 4  # one Future per block, the graph is just the blocks
    assert len(dict(hp.array.__dask_graph__())) == 4
    distributed.wait(futures)
    assert counter.graphs == 3 + len(grads)  # (persist returns before the scheduler hears)
    who = client.who_has(futures)
    workers = set(client.scheduler_info()["workers"])
    assert all(who[f.key] and set(who[f.key]) <= workers for f in futures), who
    np.testing.assert_allclose(hp.compute().numpy(), np.tanh(2.0 * x.compute().numpy()))

    # an optimizer step leaves the new parameters on the workers, as Futures
    opt = af.optim.SGD(net.parameters(), lr=0.1)
    before = [p.detach().compute().numpy() for p in net.parameters()]
    opt.step()
    for p, g, b in zip(net.parameters(), grads2, before):
        fs = futures_of(p.array)
        assert fs and all(f.status in ("pending", "finished") for f in fs)
        np.testing.assert_allclose(p.detach().compute().numpy(),
                                   b - 0.1 * g.compute().numpy(), rtol=1e-12)


SCRIPT = '''
"""A user's script: a custom Function whose per-block kernel is defined here, in __main__."""
import logging
import os
import sys

import numpy as np

import arrayflow as af
from distributed import Client, LocalCluster, get_worker


def cube_block(block):
    # user code that Dask runs once per block. A function defined in __main__ cannot be
    # imported by the workers: cloudpickle ships it by value, and this proves it ran there.
    get_worker()  # raises ValueError("No worker found") outside a worker
    return block ** 3


def dcube_block(block, g):
    get_worker()
    return 3.0 * block ** 2 * g


class Cube(af.autograd.Function):
    """x**3 with user kernels applied blockwise on the Tensor's Dask array."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        a = x.array  # the backend's array (here a dask.array)
        out = a.map_blocks(cube_block, dtype=a.dtype, meta=np.empty((0,), a.dtype))
        return af.asarray(out)  # a lazy Tensor on the same backend

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        a = x.array
        out = a.map_blocks(dcube_block, g.array, dtype=a.dtype,
                           meta=np.empty((0,), a.dtype))
        return af.asarray(out)


if __name__ == "__main__":
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0", silence_logs=logging.ERROR) as cluster, \\
            Client(cluster) as client:
        with af.use_backend("dask"):
            x = af.asarray(np.linspace(-2.0, 2.0, 12), chunks=3).requires_grad_()
            y = af.sum(Cube.apply(x) * af.asarray(np.arange(12.0), chunks=3))
            y.backward()
            value, grad = af.compute(y, x.grad)
        xs, w = np.linspace(-2.0, 2.0, 12), np.arange(12.0)
        np.testing.assert_allclose(float(value), np.sum(xs ** 3 * w), rtol=1e-12)
        np.testing.assert_allclose(grad.numpy(), 3.0 * xs ** 2 * w, rtol=1e-12)
        pids = set(client.run(os.getpid).values())
        assert os.getpid() not in pids
        print("OK", len(pids), "workers")
'''


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (ROOT, env.get("PYTHONPATH")) if p)
    return env


def test_custom_function_defined_in_main_script_runs_on_workers(tmp_path):
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent(SCRIPT))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          cwd=tmp_path, env=_env(), timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK 2 workers" in proc.stdout


def test_train_job_on_a_local_cluster():
    pytest.importorskip("sklearn")
    pytest.importorskip("tqdm")
    proc = subprocess.run(
        [sys.executable, "-m", "arrayflow.examples.train", "--backend", "dask",
         "--scheduler", "distributed", "--workers", "2", "--epochs", "1",
         "--batch-size", "256"],
        capture_output=True, text=True, cwd=ROOT, env=_env(), timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "dask LocalCluster: 2 worker processes" in proc.stdout
    assert "dask dashboard:" in proc.stdout
    assert "final held-out accuracy" in proc.stdout
    assert "Traceback" not in proc.stderr
    # shared keys are never resubmitted with a different task (dask/dask#9888)
    assert "Detected different `run_spec`" not in proc.stderr


def test_train_job_unreachable_scheduler_is_a_one_line_error():
    pytest.importorskip("sklearn")
    pytest.importorskip("tqdm")
    proc = subprocess.run(
        [sys.executable, "-m", "arrayflow.examples.train", "--backend", "dask",
         "--scheduler", "tcp://127.0.0.1:1", "--connect-timeout", "1", "--quiet"],
        capture_output=True, text=True, cwd=ROOT, env=_env(), timeout=120)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "tcp://127.0.0.1:1" in proc.stderr


def slow_square(block):
    """Per-block user kernel that takes a while (so a worker can die in the middle)."""
    time.sleep(0.4)
    return block * block


def test_killing_a_worker_mid_gradient_still_gives_the_right_gradient(client, cluster, counter):
    # d/dx sum(w * slow_square(x)) = 2 * w * x; 12 blocks of 0.4 s on 2 one-thread workers
    # take ~2.4 s, and a worker is SIGKILLed once it holds finished blocks: those are lost
    # with it and Dask recomputes them (and the unfinished ones) elsewhere.
    class SlowSquare(af.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            a = x.array
            return af.asarray(a.map_blocks(slow_square, dtype=a.dtype,
                                           meta=np.empty((0,), a.dtype)))

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2.0 * x * g

    xs = np.linspace(-1.0, 1.0, 24)
    w = np.arange(24.0) - 5.0
    before = client.run(os.getpid)
    with af.use_backend("dask"):
        x = af.asarray(xs, chunks=2).requires_grad_()
        loss = af.sum(SlowSquare.apply(x) * af.asarray(w, chunks=2))
        loss.backward()

    killed = {}
    sched = cluster.scheduler

    def kill_when_a_worker_holds_results():
        # blockwise fusion renames the slow tasks, so wait for time rather than names:
        # after 1 s each worker has finished ~2 slow blocks and is running another one
        time.sleep(1.0)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not killed:
            for addr, ws in list(sched.workers.items()):
                if ws.has_what and ws.processing:  # holds results and is still working
                    killed.update(addr=addr, pid=before[addr], held=len(ws.has_what))
                    os.kill(before[addr], signal.SIGKILL)
                    return
            time.sleep(0.02)

    killer = threading.Thread(target=kill_when_a_worker_holds_results, daemon=True)
    killer.start()
    value, grad = af.compute(loss, x.grad)
    killer.join(timeout=5)
    assert killed, "no worker was killed: the computation ended before"
    np.testing.assert_allclose(float(value), np.sum(w * xs * xs), rtol=1e-12)
    np.testing.assert_allclose(grad.numpy(), 2.0 * w * xs, rtol=1e-12)
    assert killed["addr"] in counter.removed  # the scheduler saw the worker die
    # the nanny starts a replacement process; the other worker is untouched
    client.wait_for_workers(2, timeout=60)
    after = client.run(os.getpid)
    assert killed["pid"] not in after.values()
    assert len(after) == 2


def test_scheduler_needs_the_dask_backend(capsys):
    pytest.importorskip("sklearn")
    pytest.importorskip("tqdm")
    from arrayflow.examples import train

    with pytest.raises(SystemExit) as info:  # a usage error, before any data or cluster
        train.main(["--backend", "numpy", "--scheduler", "distributed", "--quiet"])
    assert info.value.code == 2
    assert "--scheduler needs --backend dask" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train.main(["--backend", "dask", "--scheduler", "mpi", "--quiet"])
    assert "tcp://HOST:PORT" in capsys.readouterr().err
