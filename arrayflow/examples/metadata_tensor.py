"""The seeds' ``MetadataTensor``: wraps a Tensor and carries a metadata dict through
every arrayflow function, by unwrapping, calling the function, and rewrapping.

Autograd passes through it: the wrapped Tensor keeps its graph.
Run ``python -m arrayflow.examples.metadata_tensor``.
"""

from __future__ import annotations

import arrayflow as af

__all__ = ["MetadataTensor"]


class MetadataTensor:
    """A Tensor plus ``metadata``, propagated through arrayflow operations (seed example)."""

    def __init__(self, data, metadata=None, **kwargs):
        self._t = af.as_tensor(data, **kwargs)
        self._metadata = metadata

    def __repr__(self):
        return f"Metadata:\n{self._metadata}\n\ndata:\n{self._t}"

    @classmethod
    def __arrayflow_function__(cls, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        metadatas = tuple(a._metadata for a in args if hasattr(a, "_metadata"))
        args = [a._t if hasattr(a, "_t") else a for a in args]
        ret = func(*args, **kwargs)
        return MetadataTensor(ret, metadata=metadatas[0])


def main():
    metadata = {"owner": "Ministry of Silly Walks"}
    m = MetadataTensor([[1, 2], [3, 4]], metadata=metadata)
    t = af.tensor([[1, 2], [1, 2]])
    print(af.add(t, m))
    print(af.mul(t, m))


if __name__ == "__main__":
    main()
