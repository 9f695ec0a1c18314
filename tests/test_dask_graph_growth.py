"""Graph growth on Dask (issue 6): a long training loop keeps every step's graph the same size.

Without materializing, each parameter's Dask graph would hold the whole history of the
run (step ``k`` builds on the graph of step ``k - 1``). The optimizers persist the new
parameters and their state through the backend's ``materialize`` hook, so after any step
a parameter's graph is just its stored blocks. The loop below runs 200 Adam steps on a
tiny model and checks the task counts, then that the numbers equal the NumPy backend's.
"""

from __future__ import annotations

import numpy as np
import pytest

import arrayflow as af

pytest.importorskip("dask")

STEPS = 200
CHECK_AT = 10


def _tasks(t) -> int:
    """Number of tasks in the Dask graph behind Tensor ``t``."""
    return len(dict(t._cell.array.__dask_graph__()))


def _train(backend: str, record=None):
    """200 Adam steps of a 3-2 tanh layer on fixed data (float64); returns the results.

    ``record(step, params, opt)`` is called after every step when given.
    """
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((24, 3))
    y_np = np.tanh(x_np @ rng.standard_normal((3, 2)) + 0.3)  # learnable targets
    w, b = rng.standard_normal((3, 2)) * 0.5, np.zeros(2)
    with af.use_backend(backend):
        x = af.asarray(x_np, chunks=(12, 3))  # two row blocks: reductions combine blocks
        y = af.asarray(y_np, chunks=(12, 2))
        params = [af.nn.Parameter(af.asarray(a)) for a in (w, b)]
        opt = af.optim.Adam(params, lr=1e-2)
        losses = []
        for step in range(1, STEPS + 1):
            opt.zero_grad()
            loss = af.mean((af.tanh(x @ params[0] + params[1]) - y) ** 2)
            loss.backward()
            opt.step()
            losses.append(loss.detach())
            if record is not None:
                record(step, params, opt)
        losses = af.compute(*losses)  # one execution for all 200 losses
    return ([float(v) for v in losses], [p.detach().numpy() for p in params])


def test_graph_size_is_constant_over_200_steps_and_numbers_match_numpy():
    sizes = {}

    def record(step, params, opt):
        if step in (1, CHECK_AT, STEPS):
            sizes[step] = ([_tasks(p) for p in params],
                           [_tasks(v) for p in params for v in opt.state[p].values()
                            if isinstance(v, af.Tensor)])
        if step == CHECK_AT + 1:
            # the step's graph (forward + backward + update) is bounded too
            sizes["grad"] = [_tasks(p.grad) for p in params]

    losses, params = _train("dask", record)
    param_tasks, state_tasks = sizes[STEPS]
    assert sizes[CHECK_AT] == sizes[STEPS]
    # persisted: one task per block (parameters are single blocks), state likewise
    assert param_tasks == [1, 1]
    assert state_tasks and all(n == 1 for n in state_tasks), state_tasks
    assert max(sizes["grad"]) < 200, sizes["grad"]

    ref_losses, ref_params = _train("numpy")
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-8)
    for got, want in zip(params, ref_params):
        np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-12)
    assert losses[-1] < 0.5 * losses[0]  # it did train
