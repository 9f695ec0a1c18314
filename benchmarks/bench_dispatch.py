"""Cost of the ``__arrayflow_function__`` check when nothing overrides.

``af.add`` on two shape-(4,) Tensors, normally and inside ``DisableArrayflowFunction()``
(no override collection, no modes), interleaved in one run; prints medians and the ratio.
PyTorch paid for getting this wrong (pytorch#30831).

Run: ``python benchmarks/bench_dispatch.py``
"""

from __future__ import annotations

import statistics
import timeit

import arrayflow as af
from arrayflow.overrides import DisableArrayflowFunction


def main(rounds: int = 30, number: int = 20000):
    x = af.asarray([1.0, 2.0, 3.0, 4.0])
    y = af.asarray([4.0, 3.0, 2.0, 1.0])
    on, off = [], []
    for _ in range(rounds):
        on.append(timeit.timeit(lambda: af.add(x, y), number=number) / number)
        with DisableArrayflowFunction():
            off.append(timeit.timeit(lambda: af.add(x, y), number=number) / number)
    m_on, m_off = statistics.median(on) * 1e6, statistics.median(off) * 1e6
    print("af.add on two shape-(4,) float32 Tensors, no overriding argument")
    print(f"dispatch on : {m_on:.3f} us (median of {rounds} x {number})")
    print(f"dispatch off: {m_off:.3f} us")
    print(f"ratio on/off: {m_on / m_off:.3f}")


if __name__ == "__main__":
    main()
