"""Gradient-check machinery generated from the op case table.

:data:`GRAD_CASES` selects the cases of :data:`arrayflow.testing.CASES` on
which finite differences are meaningful (float64 inputs small enough for a
dense Jacobian, real floating outputs, not at a kink), and :func:`build` turns
one case into ``(fn, leaves)`` for :func:`arrayflow.autograd.gradcheck` and
:func:`arrayflow.autograd.gradgradcheck`. The test suite
(``tests/test_ops_grad.py``) and the conformance runner
(``arrayflow-conformance backend``) both read this module.

Importing it imports no array library: :data:`GRAD_CASES` is computed on first
access.

Typical use::

    from arrayflow.autograd import gradcheck
    from arrayflow.testing.grad import GRAD_CASES, build

    with af.use_backend(name)  # any installed backend name:
        fn, leaves = build(GRAD_CASES[0])
        assert gradcheck(fn, leaves, eps=1e-6, atol=1e-5, rtol=1e-3)
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from typing import Any

import arrayflow as af
from arrayflow.ops import OPS

from .cases import CASES, OpCase, to_arrayflow, to_numpy

__all__ = ["AT_A_KINK", "GRAD_CASES", "SYMMETRIC_INPUT", "build", "is_grad_case", "vjp"]

AT_A_KINK = frozenset({"round-halves-to-even", "sign-zeros", "copysign-signed-zero",
                       "linalg.pinv-rank-deficient"})
"""Case ids placed on purpose where the function is not differentiable (rounding ties, zeros
of sign/copysign, rank changes): finite differences are meaningless there."""

SYMMETRIC_INPUT = frozenset({"linalg.cholesky", "linalg.eigh", "linalg.eigvalsh"})
"""Ops that read one triangle of a symmetric input: checked on ``(x + x.mT) / 2``, as PyTorch
does."""


def _is_f64(a) -> bool:
    import numpy as np

    return isinstance(a, np.ndarray) and a.dtype == np.float64


def _real_outputs(case: OpCase) -> bool:
    import numpy as np

    args, kwargs = case.sample(0)
    n_args, n_kwargs = to_numpy((args, kwargs))
    with np.errstate(all="ignore"):
        out = case.reference_fn()(*n_args, **n_kwargs)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return any(np.asarray(o).dtype.kind == "f" for o in outs)


def is_grad_case(case: OpCase) -> bool:
    """Whether ``case`` is gradient-checked.

    Parameters
    ----------
    case : OpCase
        A case of the table.

    Returns
    -------
    bool
        True when the op is differentiable, the case allows finite differences (not
        in :data:`AT_A_KINK`, ``case.gradcheck``), it has float64 array inputs of at
        most 64 elements each and a real floating output.
    """
    if not (case.differentiable and case.gradcheck) or case.id in AT_A_KINK:
        return False
    args, _ = case.sample(0)
    leaves = [a for a in args if _is_f64(a)]
    leaves += [e for a in args if isinstance(a, (list, tuple)) for e in a if _is_f64(e)]
    return bool(leaves) and all(a.size <= 64 for a in leaves) and _real_outputs(case)


class LazyCases:
    """A sequence of cases computed (with NumPy) on first use: ``build()`` gives them."""

    def __init__(self, build: Callable[[], Iterable], name: str) -> None:
        self._build = build
        self._name = name
        self._cases: tuple[OpCase, ...] | None = None

    def _get(self) -> tuple[OpCase, ...]:
        if self._cases is None:
            self._cases = tuple(self._build())
        return self._cases

    def __iter__(self):
        return iter(self._get())

    def __len__(self):
        return len(self._get())

    def __getitem__(self, i):
        return self._get()[i]

    def __repr__(self):
        return f"{self._name}({len(self)} cases)"


GRAD_CASES = LazyCases(lambda: (c for c in CASES if is_grad_case(c)), "GRAD_CASES")
"""The cases of :data:`arrayflow.testing.CASES` selected by :func:`is_grad_case` (a sequence)."""


def build(case: OpCase, seed: int = 0, *, sample: Any = None) -> Any:
    """Turn ``case`` into a function of its float64 array inputs.

    Parameters
    ----------
    case : OpCase
        A case, normally one of :data:`GRAD_CASES`.
    seed : int
        Seed of ``case.sample``.
    sample : tuple, optional
        NumPy-level ``(args, kwargs)`` to use instead of ``case.sample(seed)``.

    Returns
    -------
    fn : callable
        ``fn(*leaves)`` calls the op with the leaves in place of the float64 arrays
        (symmetrised for :data:`SYMMETRIC_INPUT` ops) and returns the tuple of its
        real floating Tensor outputs.
    leaves : tuple of Tensor
        The float64 inputs as Tensors of the current backend, requiring grad.
    """

    args, kwargs = case.sample(seed) if sample is None else sample
    slots: list[tuple[int, int | None]] = []
    for i, a in enumerate(args):
        if _is_f64(a):
            slots.append((i, None))
        elif isinstance(a, (list, tuple)):
            slots += [(i, j) for j, e in enumerate(a) if _is_f64(e)]
    a_args, a_kwargs = to_arrayflow((args, kwargs))
    leaves = []
    for i, j in slots:
        t = a_args[i] if j is None else a_args[i][j]
        leaves.append(t.detach().requires_grad_())

    def fn(*xs):
        call = [list(a) if isinstance(a, (list, tuple)) else a for a in a_args]
        for (i, j), x in zip(slots, xs):
            if j is None:
                call[i] = x
            else:
                call[i][j] = x
        call = [type(a_args[k])(c) if isinstance(a_args[k], tuple) else c
                for k, c in enumerate(call)]
        if case.op in SYMMETRIC_INPUT:
            call[0] = (call[0] + call[0].mT) / 2
        out = OPS[case.op](*call, **a_kwargs)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        return tuple(o for o in outs if isinstance(o, af.Tensor)
                     and o.dtype.kind == "real floating")

    return fn, tuple(leaves)


def vjp(case: OpCase, seed: int = 0, *, sample: Any = None, check: Any = None) -> Any:
    """The vector-Jacobian product of ``case`` on the current backend, as NumPy arrays.

    The cotangent of every output is ``0.5`` everywhere, so two backends can be
    compared exactly (the "same VJP as on NumPy" check).

    Parameters
    ----------
    case : OpCase
        A case of :data:`GRAD_CASES`.
    seed : int
        Seed of ``case.sample``.
    sample : tuple, optional
        ``(args, kwargs)`` to use instead of ``case.sample(seed)``.
    check : callable, optional
        A context-manager factory wrapped around the backward pass only
        (e.g. ``lambda: forbid_compute(backend)``).

    Returns
    -------
    list of numpy.ndarray or None
        One gradient per leaf (None where the leaf is unused).
    """


    fn, leaves = build(case, seed, sample=sample)
    outs = fn(*leaves)
    seeds = [af.ones_like(o) * 0.5 for o in outs]
    with (check() if check is not None else contextlib.nullcontext()):
        gs = af.autograd.grad(outs, leaves, grad_outputs=seeds, allow_unused=True)
    return [None if g is None else g.numpy() for g in gs]
