"""Optimizers and learning-rate schedulers with PyTorch's semantics, written once.

``import arrayflow.optim as optim`` gives :class:`Optimizer`, :class:`SGD`,
:class:`Adam`, :class:`AdamW`, :class:`RMSprop` and the ``lr_scheduler`` module.
Updates run under ``af.no_grad()`` with arrayflow operations on the parameters'
own backend, are computed for every group before anything is written (an
exception leaves parameters and state unchanged), and are materialized through
the backend's hook (Dask persists them, so graphs do not grow over steps).
"""

from . import lr_scheduler
from .adam import Adam, AdamW
from .optimizer import Optimizer, required
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "required", "SGD", "Adam", "AdamW", "RMSprop", "lr_scheduler"]
