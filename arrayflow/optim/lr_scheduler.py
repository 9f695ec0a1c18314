"""Learning-rate schedulers (PyTorch's ``torch.optim.lr_scheduler``).

A scheduler sets ``group["lr"]`` of every parameter group of an optimizer. As in
PyTorch, constructing a scheduler records ``initial_lr`` in each group and takes an
initial step (``last_epoch`` becomes 0); call :meth:`LRScheduler.step` after each
``optimizer.step()``.
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable

from .optimizer import Optimizer

__all__ = ["LRScheduler", "StepLR", "CosineAnnealingLR", "LambdaLR"]


class LRScheduler:
    """Base class of learning-rate schedulers.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer whose learning rates are scheduled.
    last_epoch : int, default -1
        Index of the last epoch; -1 starts a new schedule, another value resumes one
        (every group must then have ``initial_lr``).

    Raises
    ------
    TypeError
        If ``optimizer`` is not an :class:`~arrayflow.optim.Optimizer`.
    KeyError
        When resuming (``last_epoch != -1``) and a group has no ``initial_lr``.
    """

    _get_closed_form = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        name = type(self).__name__
        if not isinstance(optimizer, Optimizer):
            raise TypeError(
                f"{name}: argument optimizer expected an arrayflow.optim.Optimizer, got "
                f"{type(optimizer).__name__}")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"{name}: param 'initial_lr' is not specified in param_groups[{i}] "
                        f"when resuming an optimizer (argument last_epoch={last_epoch})")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._is_initial = False
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self) -> list[float]:
        """The learning rates for ``last_epoch``, computed from the current ones.

        Returns
        -------
        list of float
            One learning rate per parameter group.
        """
        raise NotImplementedError(f"{type(self).__name__}.get_lr is not implemented")

    def _closed_form_lr(self) -> list | None:
        """The learning rates at ``last_epoch`` from a closed formula, or None."""
        return None

    def step(self, epoch: int | None = None) -> None:
        """Advance the schedule by one epoch and set the groups' learning rates.

        Parameters
        ----------
        epoch : int, optional
            Deprecated in PyTorch: jump to ``epoch`` (uses the closed form where one
            exists).
        """
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = epoch
            closed = self._closed_form_lr()
            values = self.get_lr() if closed is None else closed
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def get_last_lr(self) -> list:
        """The learning rates set by the last :meth:`step` (one per group).

        Returns
        -------
        list of float
            One learning rate per parameter group.
        """
        return list(self._last_lr)

    def state_dict(self) -> dict:
        """Every attribute but the optimizer (PyTorch's format).

        Returns
        -------
        dict
            The scheduler's attributes but the optimizer (PyTorch's format).
        """
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore attributes saved by :meth:`state_dict`.

        Parameters
        ----------
        state_dict : dict
            What :meth:`state_dict` returned.

        Raises
        ------
        TypeError
            If ``state_dict`` is not a dict.
        """
        if not isinstance(state_dict, dict):
            raise TypeError(
                f"{type(self).__name__}.load_state_dict: argument state_dict expected a "
                f"dict, got {type(state_dict).__name__}")
        self.__dict__.update(state_dict)


class StepLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every ``step_size`` epochs.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer.
    step_size : int
        Period of the decay, in epochs.
    gamma : float, default 0.1
        Decay factor.
    last_epoch : int, default -1
        Index of the last epoch (-1: start).

    Raises
    ------
    ValueError
        If ``step_size`` is not a positive integer.
    """

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        if isinstance(step_size, bool) or not isinstance(step_size, int) or step_size <= 0:
            raise ValueError(
                f"StepLR: argument step_size expected a positive integer, got {step_size!r}")
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """``lr * gamma`` at multiples of ``step_size``, else the current lr.

        Returns
        -------
        list of float
            One learning rate per parameter group.
        """
        groups = self.optimizer.param_groups
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return [g["lr"] for g in groups]
        return [g["lr"] * self.gamma for g in groups]

    def _closed_form_lr(self):
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Cosine annealing from the initial lr to ``eta_min`` over ``T_max`` epochs.

    Follows PyTorch's recursive form, which approximates
    ``eta_min + (base_lr - eta_min) * (1 + cos(pi * last_epoch / T_max)) / 2``.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer.
    T_max : int
        Half period, in epochs.
    eta_min : float, default 0
        Minimum learning rate.
    last_epoch : int, default -1
        Index of the last epoch (-1: start).

    Raises
    ------
    ValueError
        If ``T_max`` is not a positive integer.
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0,  # noqa: N803
                 last_epoch: int = -1) -> None:
        if isinstance(T_max, bool) or not isinstance(T_max, int) or T_max <= 0:
            raise ValueError(
                f"CosineAnnealingLR: argument T_max expected a positive integer, got {T_max!r}")
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The next learning rates (PyTorch's recursive formula).

        Returns
        -------
        list of float
            One learning rate per parameter group.
        """
        groups = self.optimizer.param_groups
        t, tmax, eta = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return [g["lr"] for g in groups]
        if self._step_count == 1 and t > 0:
            return [eta + (b - eta) * (1 + math.cos(t * math.pi / tmax)) / 2
                    for b in self.base_lrs]
        if (t - 1 - tmax) % (2 * tmax) == 0:
            return [g["lr"] + (b - eta) * (1 - math.cos(math.pi / tmax)) / 2
                    for b, g in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * t / tmax)) / (1 + math.cos(math.pi * (t - 1) / tmax))
                * (g["lr"] - eta) + eta for g in groups]

    def _closed_form_lr(self):
        t, tmax, eta = self.last_epoch, self.T_max, self.eta_min
        return [eta + (b - eta) * (1 + math.cos(math.pi * t / tmax)) / 2 for b in self.base_lrs]


class LambdaLR(LRScheduler):
    """Learning rate ``initial_lr * lr_lambda(last_epoch)``.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer.
    lr_lambda : callable or list of callable
        A function of the epoch, or one per parameter group.
    last_epoch : int, default -1
        Index of the last epoch (-1: start).

    Raises
    ------
    ValueError
        If a list of ``lr_lambda`` does not have one function per group.
    TypeError
        If ``lr_lambda`` is not callable.
    """

    def __init__(self, optimizer: Optimizer,
                 lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
                 last_epoch: int = -1) -> None:
        n = len(optimizer.param_groups) if isinstance(optimizer, Optimizer) else 0
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != n:
                raise ValueError(
                    f"LambdaLR: argument lr_lambda expected {n} functions (one per group), "
                    f"got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * n
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(
                    f"LambdaLR: argument lr_lambda expected a callable, got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """``base_lr * lr_lambda(last_epoch)`` per group.

        Returns
        -------
        list of float
            One learning rate per parameter group.
        """
        return [b * fn(self.last_epoch) for b, fn in zip(self.base_lrs, self.lr_lambdas)]

    def state_dict(self) -> dict:
        """Attributes but the optimizer; lambdas saved only when callable objects.

        Returns
        -------
        dict
            The scheduler's attributes but the optimizer; ``lr_lambdas`` holds None for plain
            functions and the ``__dict__`` of callable objects.
        """
        sd = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        sd["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                            for fn in self.lr_lambdas]
        return sd

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore attributes; callable-object lambdas get their saved ``__dict__``.

        Parameters
        ----------
        state_dict : dict
            What :meth:`state_dict` returned.

        Raises
        ------
        TypeError
            If ``state_dict`` is not a dict.
        """
        sd = dict(state_dict) if isinstance(state_dict, dict) else state_dict
        lambdas = sd.pop("lr_lambdas", None) if isinstance(sd, dict) else None
        super().load_state_dict(sd)  # checks the type, restores the other attributes
        for fn, saved in zip(self.lr_lambdas, lambdas or ()):
            if saved is not None:
                fn.__dict__.update(saved)
