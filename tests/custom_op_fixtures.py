"""Broken copies of the example custom op for ``arrayflow-conformance function NS::NAME``.

Imported by the CLI through ``--import custom_op_fixtures`` (tests/ is on ``sys.path``):
each op is a copy of ``examples::gelu_tanh`` (``make_gelu_tanh`` under a new name) with one
deliberate fault.
"""

from __future__ import annotations

import arrayflow as af
from arrayflow.examples.kernels import make_gelu_tanh

# the fake rule says float32 whatever the input: wrong for the float64 samples
wrong_fake, _ = make_gelu_tanh("brokenlib::gelu_tanh_wrong_fake")
wrong_fake.register_fake(lambda x: af.empty_like(x, dtype=af.float32))

# the backward is half the right one
wrong_backward, _ = make_gelu_tanh("brokenlib::gelu_tanh_wrong_backward", numba=False,
                                   cupy=False)
wrong_backward.register_autograd(lambda ctx, g: g * 0.5)
