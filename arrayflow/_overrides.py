"""``arrayflow._overrides``: the old name of :mod:`arrayflow.overrides`.

PyTorch 1.5 and 1.6 called the module ``torch._overrides``, and the 2020 "Extending
PyTorch" note (a seed of arrayflow) imports ``get_overridable_functions`` and
``get_testing_overrides`` from there. This name is the same module object.
"""

import sys

from . import overrides as _overrides

sys.modules[__name__] = _overrides
