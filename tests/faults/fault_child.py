"""What the fault-injection tests run in killed child processes (forkserver targets:
this module imports only arrayflow and the training job, preloaded in the server)."""

from __future__ import annotations

import os

import arrayflow as af
from arrayflow.examples import train


def nothing() -> None:
    """Return at once (starts the forkserver)."""


def saved_object(version: int) -> dict:
    """One of two distinguishable checkpoints (about 400 KB each)."""
    return {"w": af.full((100_000,), float(version)), "version": version,
            "tail": [version] * 3}


def save_forever(path: str, ready: str) -> None:
    """Save version 1 and version 2 to ``path`` in turn until killed (after creating the
    file ``ready``)."""
    a, b = saved_object(1), saved_object(2)
    open(ready, "w").close()
    while True:
        af.save(a, path)
        af.save(b, path)


def train_main(argv: list) -> None:
    """``arrayflow-train ARGV``; the exit status is the process's."""
    import threading

    from tqdm import tqdm

    # tqdm's default lock holds multiprocessing semaphores, which a SIGKILLed child never
    # releases (the resource tracker then warns at exit): a thread lock is enough here
    tqdm.set_lock(threading.RLock())
    os._exit(train.main(argv))
