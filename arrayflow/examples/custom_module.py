"""The seeds' custom ``Module``: a ``Linear`` layer built on :class:`LinearFunction`.

As in PyTorch's "Extending PyTorch" note with ``torch`` read as ``arrayflow``: the
Parameters are registered by assignment (``bias`` through ``register_parameter`` when it is
absent), ``forward`` calls the custom Function, ``extra_repr`` feeds ``print(module)``.
Run ``python -m arrayflow.examples.custom_module``.
"""

from __future__ import annotations

import arrayflow as af
from arrayflow import nn
from arrayflow.examples.custom_function import LinearFunction

__all__ = ["Linear"]


class Linear(nn.Module):
    """``input @ weight.T + bias`` with Parameters weight (out, in) and bias (out,)."""

    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features

        # nn.Parameter is a special kind of Tensor, that will get
        # automatically registered as Module's parameter once it's assigned
        # as an attribute.
        self.weight = nn.Parameter(af.Tensor(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(af.Tensor(output_features))
        else:
            # You should always register all possible parameters, but the
            # optional ones can be None if you want.
            self.register_parameter("bias", None)

        # Not a very smart way to initialize weights
        self.weight.data.uniform_(-0.1, 0.1)
        if self.bias is not None:
            self.bias.data.uniform_(-0.1, 0.1)

    def forward(self, input):
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        return "input_features={}, output_features={}, bias={}".format(  # noqa: UP032 (seed)
            self.input_features, self.output_features, self.bias is not None
        )


def main() -> None:
    layer = Linear(3, 2)
    print(layer)
    out = layer(af.ones((4, 3)))
    out.sum().backward()
    print("weight.grad:", layer.weight.grad)


if __name__ == "__main__":
    main()
