"""The notebook version (``documents/extending-pytorch-notebook.md``): each cell run
verbatim (``seed_snippets.SNIPPETS_NOTEBOOK``) and its printed output, as the notebook
shows it (renamed), asserted exactly; values and gradients against PyTorch.

Cell 25 uses ``torch`` imported by cell 23, so it runs after it, as in the notebook.
"""

from __future__ import annotations

import numpy as np
import pytest
import seed_harness as H
from numpy.testing import assert_allclose
from seed_snippets import SNIPPETS_NOTEBOOK as S

torch = pytest.importorskip("torch")


def _bare():
    return {"__name__": "seed"}  # cell 23 imports the library itself


def test_notebook_cell_23_prints_sizes(backend):
    ns = _bare()
    printed = H.run(S["cell_23"], ns)
    assert printed == S["cell_23_output"] + "\n"
    # the PyTorch original prints the same (torch.Size for arrayflow.Size)
    tns = _bare()
    assert H.run_torch(S["cell_23"], tns) == H.to_torch(S["cell_23_output"]) + "\n"
    # the values: output = _input @ weight.T, and its gradients
    x, w, out = ns["_input"], ns["weight"], ns["output"]
    assert str(x.dtype) == "float32" and x.requires_grad and not w.requires_grad
    assert_allclose(H.numpy_of(out), H.numpy_of(x) @ H.numpy_of(w).T, rtol=1e-5, atol=1e-6)
    assert out.requires_grad and type(out.grad_fn).__name__ == "LinearFunctionBackward"
    out.sum().backward()
    assert_allclose(H.numpy_of(x.grad), np.ones((10, 3)) @ H.numpy_of(w), rtol=1e-5)


def test_notebook_cell_25_prints_result_and_grad_fn(backend):
    ns = _bare()
    H.run(S["cell_23"], ns)
    printed = H.run(S["cell_25"], ns)
    if backend == "dask":  # repr of a lazy Tensor never computes (docs/dask.md)
        # (and the suffix goes to the next line past column 80, PyTorch's rule)
        assert printed == ("tensor(<dask array shape=(1,) dtype=float32 chunks=((1,),)>,\n"
                           "       grad_fn=<MulConstantBackward>) True\n")
    else:
        assert printed == S["cell_25_output"] + "\n"
    tns = _bare()
    H.run_torch(S["cell_23"], tns)
    assert H.run_torch(S["cell_25"], tns) == H.to_torch(S["cell_25_output"]) + "\n"
    y, x = ns["y"], ns["_input"]
    y.backward()
    tns["y"].backward()
    assert H.numpy_of(x.grad).tolist() == H.numpy_of(tns["_input"].grad).tolist() == [2.0]
