"""Datasets and batch loading (``torch.utils.data``), written once for every backend.

:class:`TensorDataset` wraps Tensors that share their first dimension;
:class:`DataLoader` yields mini-batches of it.

Batches are gathered on the Tensors' own backend: a basic slice ``t[i:j]`` when the
order is sequential (no shuffling; the fast path of a :class:`TensorDataset`) and
``af.take(t, idx, axis=0)`` with an index Tensor made on that backend otherwise.
Nothing is copied to the host except the permutation's indices (a list of
``len(dataset)`` ints per epoch).

Dask (lazy backends)
--------------------
Without shuffling, batch boundaries are PyTorch's (``[k * batch_size, (k + 1) *
batch_size)``, so every backend yields the same batches) and each batch is a basic
slice: Dask keeps it lazy and reads only the chunks it overlaps, never the whole
array. When ``batch_size`` divides the chunk size along axis 0 (or the chunk size
divides ``batch_size``), every batch lies within one chunk (or covers whole chunks);
:meth:`DataLoader.chunk_hint` reports the axis-0 chunk sizes so a caller can choose
``batch_size`` that way. Batches are not rechunked or computed by the loader. With
shuffling, a batch is a ``take`` of scattered rows (one small task per touched chunk).
"""

from __future__ import annotations

import math
import random as _pyrandom
from collections.abc import Iterator
from typing import Any

from .. import _backend, _dtypes
from ..ops.creation import asarray, randperm
from ..ops.manipulation import stack, take
from ..tensor import Tensor

__all__ = ["Dataset", "TensorDataset", "DataLoader"]


class Dataset:
    """Base class of map-style datasets: ``__getitem__(index)`` and ``__len__()``."""

    def __getitem__(self, index: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must implement __len__")


class TensorDataset(Dataset):
    """A dataset of Tensors indexed along their first dimension (``torch``'s).

    ``ds[i]`` is a tuple with the ``i``-th row of each Tensor.

    Parameters
    ----------
    *tensors : Tensor
        At least one Tensor, all with the same size of dimension 0 and on the same
        backend.

    Raises
    ------
    TypeError
        If an argument is not a Tensor.
    ValueError
        If no Tensor is given, a Tensor is 0-d, or the first dimensions differ.
    """

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset: expected at least one Tensor")
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise TypeError(
                    f"TensorDataset: argument {i} expected a Tensor, got {type(t).__name__}")
            if t.ndim == 0:
                raise ValueError(f"TensorDataset: argument {i} is 0-d; tensors need a "
                                 f"first dimension to index")
        sizes = [t.shape[0] for t in tensors]
        if any(s != sizes[0] for s in sizes):
            raise ValueError(
                f"TensorDataset: size mismatch between tensors: the first dimensions are "
                f"{sizes}; all must be equal")
        names = {t.backend.name for t in tensors}
        if len(names) > 1:
            raise _backend.BackendMismatchError(
                f"TensorDataset: tensors are on different backends {sorted(names)}; "
                f"move them with tensor.to(name)")
        self.tensors = tuple(tensors)

    def __getitem__(self, index):
        if isinstance(index, (tuple, list)) or isinstance(index, Tensor):
            raise TypeError(
                f"TensorDataset: index must be an int or a slice, got {type(index).__name__}")
        # ``t[i, ...]``: the standard requires an index for every axis (or an ellipsis).
        return tuple(t[index, ...] for t in self.tensors)

    def __len__(self) -> int:
        return int(self.tensors[0].shape[0])

    @property
    def backend(self) -> _backend.Backend:
        """The backend of the dataset's Tensors."""
        return self.tensors[0].backend


def _stack(items):
    first = items[0]
    if isinstance(first, Tensor):
        return stack(list(items), axis=0)
    if isinstance(first, (tuple, list)):
        return type(first)(_stack([it[k] for it in items]) for k in range(len(first)))
    if isinstance(first, dict):
        return {k: _stack([it[k] for it in items]) for k in first}
    return asarray(list(items))


class DataLoader:
    """Mini-batches of a dataset (``torch.utils.data.DataLoader``, single process).

    Parameters
    ----------
    dataset : Dataset
        A :class:`TensorDataset` (fast path: whole batches are gathered with one
        slice or ``take`` per Tensor) or any map-style dataset (items are stacked
        with ``af.stack``).
    batch_size : int, default 1
    shuffle : bool, default False
        Draw a new order every epoch.
    drop_last : bool, default False
        Drop the last batch when it is smaller than ``batch_size``.
    generator : int or None, default None
        Where the order comes from when shuffling. ``None``: ``af.randperm`` on the
        dataset's backend, i.e. the backend's generator seeded by ``af.manual_seed``.
        An int: a seed private to this loader (epoch ``e`` uses a stream derived from
        ``(seed, e)``), independent of the global generator and of the backend.

    Notes
    -----
    ``len(loader)`` is the number of batches (``ceil(n / batch_size)``, or
    ``floor`` with ``drop_last``).
    """

    def __init__(self, dataset: Dataset, batch_size: int = 1, shuffle: bool = False,
                 drop_last: bool = False, generator: Any = None) -> None:
        if (not isinstance(batch_size, int) or isinstance(batch_size, bool)
                or batch_size <= 0):
            raise ValueError(
                f"DataLoader: batch_size should be a positive integer value, got "
                f"{batch_size!r}")
        if generator is not None and (not isinstance(generator, int)
                                      or isinstance(generator, bool)):
            raise TypeError(
                f"DataLoader: generator must be an int seed or None, got "
                f"{type(generator).__name__}")
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = bool(shuffle)
        self.drop_last = bool(drop_last)
        self.generator = generator
        self._epoch = 0

    def __len__(self) -> int:
        n = len(self.dataset)
        if self.drop_last:
            return n // self.batch_size
        return math.ceil(n / self.batch_size)

    def _backend(self):
        ds = self.dataset
        if isinstance(ds, TensorDataset):
            return ds.backend
        return _backend.get_backend()

    def _order(self, n):
        """This epoch's order as a list of ints, or None for sequential."""
        if not self.shuffle:
            return None
        if self.generator is not None:
            order = list(range(n))
            _pyrandom.Random(f"{self.generator}:{self._epoch}").shuffle(order)
            return order
        with _backend.use_backend(self._backend()):
            perm = randperm(n)
        return [int(i) for i in perm.tolist()]

    def chunk_hint(self) -> tuple[int, ...] | None:
        """Axis-0 chunk sizes of the first Tensor of a Dask-backed TensorDataset, else None.

        Returns
        -------
        tuple of int or None
            The first Tensor's chunk sizes along axis 0 (Dask-backed TensorDataset), else None.
        """
        ds = self.dataset
        if isinstance(ds, TensorDataset):
            chunks = getattr(ds.tensors[0].array, "chunks", None)
            if chunks is not None and isinstance(chunks, tuple) and chunks:
                return tuple(int(c) for c in chunks[0])
        return None

    def __iter__(self) -> Iterator[Any]:
        n = len(self.dataset)
        order = self._order(n)
        self._epoch += 1
        bs = self.batch_size
        nb = len(self)
        ds = self.dataset
        tensors = ds.tensors if isinstance(ds, TensorDataset) else None  # the fast path
        for k in range(nb):
            lo, hi = k * bs, min((k + 1) * bs, n)
            if tensors is not None:
                if order is None:
                    yield tuple(t[lo:hi, ...] for t in tensors)
                else:
                    yield self._take(tensors, order[lo:hi])
            else:
                idx = range(lo, hi) if order is None else order[lo:hi]
                yield _stack([ds[i] for i in idx])

    @staticmethod
    def _take(tensors, rows):
        b = tensors[0].backend
        with _backend.use_backend(b):
            idx = asarray(rows, dtype=_dtypes.int64)
        return tuple(take(t, idx, axis=0) for t in tensors)

    def __repr__(self) -> str:
        return (f"DataLoader(batch_size={self.batch_size}, shuffle={self.shuffle}, "
                f"drop_last={self.drop_last}, batches={len(self)})")
