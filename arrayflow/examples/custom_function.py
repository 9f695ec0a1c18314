"""The seeds' custom autograd Functions, ready for ``arrayflow-conformance function``.

``LinearFunction`` (``input @ weight.T + bias`` with a backward that honours
``ctx.needs_input_grad``) and ``MulConstant`` (a Tensor times a Python number),
as in PyTorch's "Extending PyTorch" note with ``torch`` read as ``arrayflow``;
``linear_inputs`` and ``mul_inputs`` give the conformance runner their inputs::

    arrayflow-conformance function arrayflow.examples.custom_function:LinearFunction \\
        --inputs arrayflow.examples.custom_function:linear_inputs

Run ``python -m arrayflow.examples.custom_function`` for gradchecks on every usable backend's
float64 inputs.
"""

from __future__ import annotations

from typing import Any

from arrayflow.autograd import Function

__all__ = ["LinearFunction", "MulConstant", "linear_inputs", "mul_inputs"]


class LinearFunction(Function):
    """``input @ weight.T + bias``; input (N, in), weight (out, in), bias (out,) or None."""

    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class MulConstant(Function):
    """``tensor * constant`` (``constant`` a Python number, not differentiated)."""

    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


def linear_inputs(rng: Any) -> tuple[Any, Any, Any]:
    """``(input (4, 3), weight (5, 3), bias (5,))`` float64 NumPy arrays from ``rng``."""
    return rng.standard_normal((4, 3)), rng.standard_normal((5, 3)), rng.standard_normal(5)


def mul_inputs() -> tuple[Any, float]:
    """``(tensor (3, 2) float64, 2.5)``."""
    import numpy as np

    return np.linspace(-1.0, 1.0, 6).reshape(3, 2), 2.5


def main() -> None:
    import numpy as np

    import arrayflow as af
    from arrayflow.autograd import gradcheck

    for info in af.backends.available():
        if not info.usable or info.lazy:
            continue
        with af.use_backend(info.name):
            args = [af.asarray(a, requires_grad=True)
                    for a in linear_inputs(np.random.default_rng(0))]
            ok = gradcheck(LinearFunction.apply, tuple(args))
            x = af.asarray(mul_inputs()[0], requires_grad=True)
            ok = ok and gradcheck(lambda t: MulConstant.apply(t, 2.5), (x,))
        print(f"{info.name}: gradcheck {'passed' if ok else 'FAILED'}")


if __name__ == "__main__":
    main()
