"""Train a classifier on scikit-learn's handwritten digits, on any arrayflow backend.

Run: ``python -m arrayflow.examples.train [--backend numpy] [--epochs 30] [--out DIR]``
(or the console script ``arrayflow-train``). Needs the ``train`` extra
(``pip install 'arrayflow[train]'``: scikit-learn, matplotlib, tqdm).

The data are ``sklearn.datasets.load_digits`` (1797 8x8 images, shipped with
scikit-learn, no download), scaled to [0, 1] and split into a stratified training set
and a held-out set (``--test-size``, default 20%). The model is a multi-layer
perceptron (64-128-10, ReLU) written with ``af.nn.Module``/``af.nn.Parameter`` and
plain arrayflow operations, initialised as PyTorch's ``nn.Linear`` (uniform
+-1/sqrt(fan_in)); the loss is a numerically stable softmax cross-entropy composed from
``max``, ``exp``, ``log``, ``sum`` and ``take_along_axis``. Training uses ``af.optim.Adam``
and ``arrayflow.utils.data.DataLoader`` (shuffled with ``af.randperm`` on the backend,
seeded by ``af.manual_seed(--seed)``), so the same seed on the same backend gives the same
numbers.

Every epoch prints the mean training loss and the held-out accuracy (a tqdm bar shows
progress when stderr is a terminal and ``--quiet`` is not given). With ``--out DIR`` it
writes ``model.safetensors`` (``af.save(model.state_dict())``), ``optimizer.safetensors``,
``history.json`` and ``curves.png`` (loss and accuracy per epoch).

Dask (``--backend dask``): ``--scheduler`` picks where the graphs run: ``threads`` (Dask's
default), ``processes``, ``synchronous`` (one thread, for debugging and profiling),
``distributed`` (starts a ``dask.distributed.LocalCluster`` of ``--workers`` worker
processes, ``--threads-per-worker`` threads each, prints its dashboard address, closes it
at the end, also on an error or Ctrl-C) or ``tcp://HOST:PORT`` (joins a running cluster's
scheduler; its workers need arrayflow installed). Without ``--scheduler`` whatever Dask is
configured to use runs the graphs (a ``Client`` already active in the calling process when
:func:`run` is called from Python). The data are persisted once (on the workers with a
cluster); every step persists its loss together with the gradients (one graph execution
computes the forward pass once for both) before the optimizer persists the new
parameters, and the epoch's losses are fetched together with the held-out accuracy at its
end (with a progress bar, each step's loss as it goes).

Exit status: 0 on success, 2 for a usage error, an unknown or unusable backend (``--backend
cupy`` without a GPU), a missing optional dependency or an unreachable Dask scheduler (a
one-line message, no traceback).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time

import arrayflow as af

MODELS = ("mlp", "cnn")
SCHEDULERS = ("threads", "processes", "synchronous", "distributed")


class TrainError(Exception):
    """A problem reported to the user as one line (exit status 2)."""


# --- model -------------------------------------------------------------------------------

def MLP(in_features: int = 64, hidden: int = 128, classes: int = 10):  # noqa: N802
    """``Linear -> ReLU -> Linear`` (64-128-10 by default), PyTorch's default init."""
    nn = af.nn
    return nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU(), nn.Linear(hidden, classes))


class CNN(af.nn.Module):
    """A small conv net for the 8x8 digits: Conv2d(1, 16, 3, padding=1) -> ReLU ->
    MaxPool2d(2) -> Flatten -> Linear(16 * 4 * 4, classes)."""

    def __init__(self, classes: int = 10):
        super().__init__()
        nn = af.nn
        self.features = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                                      nn.MaxPool2d(2), nn.Flatten())
        self.classifier = nn.Linear(16 * 4 * 4, classes)

    def forward(self, x):
        return self.classifier(self.features(af.reshape(x, (x.shape[0], 1, 8, 8))))


def build_model(name: str = "mlp", *, in_features: int = 64, classes: int = 10):
    """A fresh model ``name`` on the current backend (uses the backend's generator)."""
    if name == "mlp":
        return MLP(in_features, 128, classes)
    if name == "cnn":
        if in_features != 64:
            raise TrainError(f"--model cnn expects 8x8 images (64 features), got {in_features}")
        return CNN(classes)
    raise TrainError(f"unknown model {name!r}; choose from {', '.join(MODELS)}")


def cross_entropy(logits, target):
    """Mean softmax cross-entropy of ``logits`` (N, C) against int labels ``target`` (N,)."""
    return af.nn.functional.cross_entropy(logits, target)


def predict(model, x):
    """Class indices predicted by ``model`` for ``x`` (no graph recorded)."""
    with af.no_grad():
        return af.argmax(model(x), axis=1)


def accuracy(model, x, y) -> float:
    """Fraction of rows of ``x`` whose predicted class equals ``y``."""
    hits = af.astype(predict(model, x) == y, af.float64)
    return float(af.mean(hits))


# --- data --------------------------------------------------------------------------------

def load_data(seed: int, test_size: float = 0.2):
    """Digits as host arrays: ``(x_train, x_test, y_train, y_test)``, stratified split."""
    import numpy as np
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    x, y = load_digits(return_X_y=True)
    x = (x / 16.0).astype(np.float32)
    y = y.astype(np.int64)
    return train_test_split(x, y, test_size=test_size, random_state=seed, stratify=y)


# --- helpers -----------------------------------------------------------------------------

def _check_backend(name: str) -> None:
    infos = {i.name: i for i in af.backends.available()}
    info = infos.get(name)
    if info is None:
        raise TrainError(f"unknown backend {name!r}; installed: {', '.join(sorted(infos))}")
    if not info.usable:
        reason = " ".join(str(info.reason).split())
        raise TrainError(f"backend {name!r} is unavailable here: {reason}")


def _require(module: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise TrainError(f"{module} is required: pip install 'arrayflow[train]'") from None


def _scheduler_arg(value: str) -> str:
    """argparse type of ``--scheduler``: a name of :data:`SCHEDULERS` or ``tcp://HOST:PORT``."""
    if value in SCHEDULERS:
        return value
    if "://" in value:
        proto, _, rest = value.partition("://")
        host, _, port = rest.rpartition(":")
        if proto in ("tcp", "tls", "ws", "wss") and host and port.isdigit():
            return value
    raise argparse.ArgumentTypeError(
        f"invalid choice: {value!r} (choose from {', '.join(SCHEDULERS)} or tcp://HOST:PORT)")


def _dashboard_line(url) -> str:
    try:
        import bokeh  # noqa: F401
    except ImportError:
        return "dask dashboard: not available (pip install bokeh to get it)"
    return f"dask dashboard: {url}" if url else "dask dashboard: not available"


@contextlib.contextmanager
def dask_scheduler(name, *, workers: int = 2, threads_per_worker: int = 1,
                   connect_timeout: float = 10.0, say=print):
    """Run the enclosed Dask graphs on scheduler ``name`` (see ``--scheduler``).

    ``None`` changes nothing; ``threads``/``processes``/``synchronous`` set Dask's
    local scheduler; ``distributed`` starts a ``LocalCluster`` of ``workers`` processes
    and a ``Client`` (closed on exit, whatever happens); an address connects a
    ``Client`` to that scheduler (:class:`TrainError` if it cannot be reached within
    ``connect_timeout`` seconds). Yields the ``Client`` or None.
    """
    if name is None:
        yield None
        return
    import dask

    if name in ("threads", "processes", "synchronous"):
        with dask.config.set(scheduler=name):
            yield None
        return
    try:
        import distributed
    except ImportError:
        raise TrainError(f"--scheduler {name} needs dask.distributed: "
                         f"pip install 'arrayflow[dask]'") from None
    with contextlib.ExitStack() as stack:
        if name == "distributed":
            cluster = stack.enter_context(distributed.LocalCluster(
                n_workers=workers, threads_per_worker=threads_per_worker, processes=True,
                dashboard_address=":0"))  # any free port: never clash with another cluster
            client = stack.enter_context(distributed.Client(cluster))
            say(f"dask LocalCluster: {workers} worker processes x {threads_per_worker} "
                f"thread(s), scheduler {cluster.scheduler_address}")
            say(_dashboard_line(cluster.dashboard_link))
        else:
            try:
                client = distributed.Client(name, timeout=connect_timeout)
            except (OSError, TimeoutError) as e:
                msg = " ".join(str(e).split()) or type(e).__name__
                raise TrainError(f"cannot reach the Dask scheduler at {name}: {msg}") from None
            stack.enter_context(client)
            info = client.scheduler_info()
            say(f"dask cluster {name}: {len(info.get('workers', {}))} workers")
            say(_dashboard_line(client.dashboard_link))
        try:
            yield client
        except BaseException:
            # interrupted (Ctrl-C) or failed: the Client's pending gathers are cancelled
            # while closing; keep their "Task exception was never retrieved" noise out of
            # the one-line report
            import logging

            for logger in ("asyncio", "distributed"):
                logging.getLogger(logger).setLevel(logging.CRITICAL)
            raise


def plot_curves(history: dict, path: str) -> None:
    """Write a PNG of training loss and held-out accuracy per epoch (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    epochs = list(range(1, len(history["loss"]) + 1))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
    ax1.plot(epochs, history["loss"], marker="o")
    ax1.set_xlabel("epoch")
    ax1.set_ylabel("training loss")
    ax1.set_title("loss")
    ax2.plot(epochs, history["accuracy"], marker="o", color="tab:green")
    ax2.set_xlabel("epoch")
    ax2.set_ylabel("held-out accuracy")
    ax2.set_title("accuracy")
    fig.suptitle(f"digits, {history['model']} on {history['backend']}")
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=100)
    plt.close(fig)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="arrayflow-train",
                                description=__doc__.splitlines()[0])
    p.add_argument("--backend", default="numpy", help="arrayflow backend (default numpy)")
    p.add_argument("--model", default="mlp", choices=MODELS, help="model (default mlp)")
    p.add_argument("--epochs", type=int, default=30, help="epochs (default 30)")
    p.add_argument("--batch-size", type=int, default=64, help="batch size (default 64)")
    p.add_argument("--lr", type=float, default=3e-3, help="Adam learning rate (default 3e-3)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--test-size", type=float, default=0.2,
                   help="held-out fraction (default 0.2)")
    p.add_argument("--out", default=None, help="directory for checkpoint, history and plot")
    p.add_argument("--quiet", action="store_true", help="no progress bar or per-epoch lines")
    d = p.add_argument_group(
        "Dask", "only with --backend dask (an error with another backend: nothing there "
        "runs on a Dask scheduler)")
    d.add_argument("--scheduler", type=_scheduler_arg, default=None,
                   metavar="{threads,processes,synchronous,distributed,tcp://HOST:PORT}",
                   help="where Dask runs the graphs: a local scheduler, a LocalCluster of "
                        "worker processes started for this run (its dashboard address is "
                        "printed if bokeh is installed), or a running cluster's scheduler "
                        "address (default: Dask's configured scheduler, normally threads)")
    d.add_argument("--workers", type=int, default=2,
                   help="worker processes of --scheduler distributed (default 2)")
    d.add_argument("--threads-per-worker", type=int, default=1,
                   help="threads per worker of --scheduler distributed (default 1)")
    d.add_argument("--connect-timeout", type=float, default=10.0,
                   help="seconds to wait for --scheduler tcp://HOST:PORT (default 10)")
    return p


# --- training ----------------------------------------------------------------------------

def run(argv: list[str] | None = None) -> dict:
    """Train as the command line says; returns the history.

    Returns
    -------
    dict
        ``loss`` and ``accuracy`` (lists, one per epoch), ``test_accuracy`` (final
        held-out accuracy), ``seconds``, ``backend``, ``model`` (its name), ``args``;
        and, not JSON, ``net`` (the trained Module), ``optimizer`` and ``x_test``/
        ``y_test`` (held-out Tensors on the backend).

    Raises
    ------
    TrainError
        Unknown/unusable backend, unavailable model, missing optional dependency, bad
        option value.
    """
    p = parser()
    args = p.parse_args(argv)
    if args.epochs < 1 or args.batch_size < 1 or args.lr <= 0:
        raise TrainError("--epochs and --batch-size must be >= 1 and --lr > 0")
    if args.workers < 1 or args.threads_per_worker < 1 or args.connect_timeout <= 0:
        raise TrainError("--workers and --threads-per-worker must be >= 1 and "
                         "--connect-timeout > 0")
    if args.scheduler is not None and args.backend != "dask":
        p.error(f"--scheduler needs --backend dask (got --backend {args.backend})")
    _check_backend(args.backend)
    for mod in ("sklearn", "tqdm") + (("matplotlib",) if args.out else ()):
        _require(mod)
    from tqdm import tqdm

    verbose = not args.quiet
    x_tr, x_te, y_tr, y_te = load_data(args.seed, args.test_size)
    show_bar = verbose and sys.stderr.isatty()
    say = tqdm.write if show_bar else print
    with dask_scheduler(args.scheduler, workers=args.workers,
                        threads_per_worker=args.threads_per_worker,
                        connect_timeout=args.connect_timeout,
                        say=say if verbose else (lambda *a: None)):
        history = _train(args, x_tr, x_te, y_tr, y_te, verbose, show_bar, say, tqdm)
    return history


def _train(args, x_tr, x_te, y_tr, y_te, verbose, show_bar, say, tqdm):
    from arrayflow.utils.data import DataLoader, TensorDataset

    t0 = time.perf_counter()
    with af.use_backend(args.backend):
        af.manual_seed(args.seed)
        net = build_model(args.model, in_features=x_tr.shape[1], classes=10)
        params = list(net.parameters())
        opt = af.optim.Adam(params, lr=args.lr)
        x_train, y_train = af.asarray(x_tr), af.asarray(y_tr)
        x_test, y_test = af.asarray(x_te), af.asarray(y_te)
        lazy = x_train.backend.lazy
        if lazy:  # once: the graphs of the batches then start from stored blocks (on the
            # workers with a cluster) instead of carrying the host arrays every step
            x_train, y_train, x_test, y_test = af.persist(x_train, y_train, x_test, y_test)
        loader = DataLoader(TensorDataset(x_train, y_train), batch_size=args.batch_size,
                            shuffle=True)
        history = {"loss": [], "accuracy": [], "backend": args.backend, "model": args.model,
                   "scheduler": args.scheduler}
        if verbose:
            say(f"digits: {len(x_tr)} train / {len(x_te)} held-out, {args.model} on "
                f"{args.backend}, {args.epochs} epochs, batch {args.batch_size}, "
                f"Adam lr={args.lr}, seed {args.seed}")
        for epoch in range(1, args.epochs + 1):
            net.train()
            losses, sizes = [], []
            bar = tqdm(loader, desc=f"epoch {epoch}/{args.epochs}", leave=False,
                       disable=not show_bar, file=sys.stderr)
            for xb, yb in bar:
                opt.zero_grad()
                loss = cross_entropy(net(xb), yb)
                loss.backward()
                if lazy:  # one graph execution computes the forward pass once for the loss
                    # and the gradients; the step then starts from their stored blocks
                    with_grad = [p for p in params if p.grad is not None]
                    loss, *grads = af.persist(loss.detach(), *(p.grad for p in with_grad))
                    for p, g in zip(with_grad, grads):
                        p.grad = g
                opt.step()
                sizes.append(xb.shape[0])
                if lazy and not show_bar:  # computed at the end of the epoch, all at once
                    losses.append(loss)
                    continue
                value = float(loss)
                losses.append(value)
                bar.set_postfix(loss=f"{value:.4f}", refresh=False)
            bar.close()
            net.eval()
            hits = af.sum(af.astype(predict(net, x_test) == y_test, af.float64))
            *values, hits = af.compute(*losses, hits)  # one graph execution
            total = sum(float(v) * n for v, n in zip(values, sizes))
            history["loss"].append(total / sum(sizes))
            history["accuracy"].append(float(hits) / len(y_te))
            if verbose:
                say(f"epoch {epoch:3d}  loss {history['loss'][-1]:.4f}  "
                    f"held-out accuracy {history['accuracy'][-1]:.4f}")
        history["test_accuracy"] = history["accuracy"][-1]
        history["seconds"] = time.perf_counter() - t0
        history["args"] = vars(args)
        if verbose:
            print(f"final held-out accuracy {history['test_accuracy']:.4f} "
                  f"({history['test_accuracy'] * len(x_te):.0f}/{len(x_te)}) "
                  f"in {history['seconds']:.1f}s")
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            af.save(net.state_dict(), os.path.join(args.out, "model.safetensors"))
            af.save(opt.state_dict(), os.path.join(args.out, "optimizer.safetensors"))
            with open(os.path.join(args.out, "history.json"), "w") as f:
                json.dump({k: history[k] for k in ("loss", "accuracy", "test_accuracy",
                                                   "seconds", "backend", "model", "args")},
                          f, indent=1)
            plot_curves(history, os.path.join(args.out, "curves.png"))
            if verbose:
                print(f"wrote model.safetensors, optimizer.safetensors, history.json, "
                      f"curves.png to {args.out}")
    history.update(net=net, optimizer=opt, x_test=x_test, y_test=y_test)
    return history


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point (``arrayflow-train``); returns the exit status."""
    try:
        run(argv)
    except TrainError as e:
        print(f"arrayflow-train: error: {e}", file=sys.stderr)
        return 2
    except af.BackendUnavailableError as e:
        msg = " ".join(str(e).split())
        print(f"arrayflow-train: error: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("arrayflow-train: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
