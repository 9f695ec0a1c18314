"""The ``tensor-like`` suite: how a duck-typed tensor class handles every overridable function.

``arrayflow-conformance tensor-like MODULE:CLASS [--factory MODULE:FUNC] [--fail-under PCT]``

Every function that :func:`arrayflow.overrides.get_overridable_functions` lists
(``arrayflow``, ``arrayflow.linalg``, ``arrayflow.fft``,
``arrayflow.nn.functional`` and the ``Tensor`` methods and operators) is called
with instances of the class in place of every Tensor argument, and each call is
classified (statuses of :mod:`.results`):

``handled``
    the class's ``__arrayflow_function__`` took the call, returned the wrapper
    type where plain Tensors give a Tensor, and honoured the keyword arguments
    that were probed;
``not_implemented``
    every override returned ``NotImplemented`` (the ``TypeError`` "no
    implementation found for ..." reached the caller);
``raised``
    the call raised something else (the error is in ``detail``), also when it
    raised only for a call with keyword arguments;
``dropped_kwargs``
    the call was handled, but a keyword argument that changes the result for
    plain Tensors made no difference to the duck type's result;
``lost_type``
    handled, but where plain Tensors give a Tensor the duck type returned
    something that is not an instance of the class;
``skipped``
    no sample call with a Tensor argument exists (creation functions such as
    ``zeros`` have no argument a duck type could take the place of, so only
    modes see them) or no valid sample inputs are known; not counted in coverage.

Sample inputs come from the op case table :data:`arrayflow.testing.CASES` for
every function that is an op (and for the Tensor methods and operators that are
spelled differently from their op: ``__add__`` uses the ``add`` cases).
Functions without cases (``nn.functional``, Tensor-only methods such as
``unsqueeze``, the lazy-backend helpers ``compute``/``persist``) use the small
tables :data:`FUNCTIONAL_SAMPLES`, :data:`METHOD_SAMPLES` and
:data:`FUNCTION_SAMPLES` below; their entries come before the cases. Calls run on the NumPy backend.

Coverage is ``handled / classified`` (skipped functions excluded), overall and
per namespace. The "implement next" list is every function that is not
``handled``, namespaces in the order of :data:`NAMESPACE_PRIORITY` (the most
used first: the ``arrayflow`` functions, then ``Tensor`` methods and operators,
``nn.functional``, ``linalg``, ``fft``), alphabetical within a namespace.
"""

from __future__ import annotations

import importlib
import inspect
import math
import time

from .results import CheckResult, Report

__all__ = ["FUNCTIONAL_SAMPLES", "FUNCTION_SAMPLES", "METHOD_SAMPLES", "NAMESPACE_PRIORITY",
           "format_summary", "run"]

SUITE = "tensor-like"

#: Order of namespaces in the "implement next" list (most used first).
NAMESPACE_PRIORITY = ("arrayflow", "Tensor", "arrayflow.nn.functional", "arrayflow.linalg",
                      "arrayflow.fft")

# Severity of a classification: a function's status is the worst over its probes.
_SEVERITY = {"handled": 0, "lost_type": 1, "dropped_kwargs": 2, "not_implemented": 3,
             "raised": 4}


# --- loading --------------------------------------------------------------------------------

def load_object(spec: str):
    """Import ``"package.module:attr.sub"`` and return the object.

    Raises
    ------
    ValueError
        If ``spec`` has no ``:``.
    ImportError, AttributeError
        If the module or attribute does not exist.
    """
    if ":" not in spec:
        raise ValueError(f"expected MODULE:NAME, got {spec!r}")
    mod_name, _, attr = spec.partition(":")
    obj = importlib.import_module(mod_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


# --- the functions ----------------------------------------------------------------------------

def _namespace_label(ns) -> str:
    import arrayflow as af

    if ns is af.Tensor:
        return "Tensor"
    return ns.__name__


def _display_name(label: str, attr: str) -> str:
    if label == "Tensor":
        return f"Tensor.{attr}"
    if label == "arrayflow":
        return attr
    return f"{label[len('arrayflow.'):]}.{attr}"


def _attr_name(ns, func) -> str:
    """The name under which ``func`` is found in ``ns`` (its ``__name__`` when possible)."""
    name = getattr(func, "__name__", None)
    if name and getattr(ns, name, None) is func:
        return name
    for n in sorted(dir(ns)):
        if getattr(ns, n, None) is func:
            return n
    return name or repr(func)


def overridable_functions():
    """``[(namespace label, display name, attribute name, function)]``, each function once.

    Read from :func:`arrayflow.overrides.get_overridable_functions`; a function
    listed in several namespaces (``matmul`` in ``arrayflow`` and
    ``arrayflow.linalg``, ``erf`` in ``nn.functional``, element-wise ops as Tensor
    methods) is checked once, under the first namespace that lists it.
    """
    from arrayflow import overrides

    seen = set()
    out = []
    for ns, funcs in overrides.get_overridable_functions().items():
        label = _namespace_label(ns)
        for f in funcs:
            if id(f) in seen:
                continue
            seen.add(id(f))
            attr = _attr_name(ns, f)
            out.append((label, _display_name(label, attr), attr, f))
    return out


# --- sample inputs ------------------------------------------------------------------------------

def _np():
    import numpy

    return numpy


def _f(rng, *shape, low=-2.0, high=2.0):
    return rng.uniform(low, high, size=shape).astype("float64")


def _one(kwargs=None, shape=(3, 4)):
    return lambda rng: ((_f(rng, *shape),), dict(kwargs or {}))


def _two(kwargs=None, low=-2.0, high=2.0):
    return lambda rng: ((_f(rng, 3, 4), _f(rng, 3, 4, low=low, high=high)),
                        dict(kwargs or {}))


def _ints(rng, shape, high):
    return rng.integers(0, high, size=shape).astype("int64")


#: Sample calls of ``arrayflow.nn.functional`` (which has no op cases):
#: ``name -> [make(rng) -> (args, kwargs)]`` with NumPy-level inputs, as in the case table.
#: Keyword arguments are chosen so that they change the result (the dropped-kwargs probe).
FUNCTIONAL_SAMPLES = {
    "relu": [_one()], "relu6": [_one()], "selu": [_one()], "silu": [_one()],
    "sigmoid": [_one()], "logsigmoid": [_one()], "tanh": [_one()], "erf": [_one()],
    "elu": [_one(), _one({"alpha": 0.5})],
    "gelu": [_one(), _one({"approximate": "tanh"})],
    "softplus": [_one(), _one({"beta": 2.0})],
    "hardtanh": [_one(), _one({"min_val": -0.5, "max_val": 0.5})],
    "leaky_relu": [_one(), _one({"negative_slope": 0.2})],
    "softmax": [_one({"dim": 1}), _one({"dim": 0})],
    "log_softmax": [_one({"dim": 1}), _one({"dim": 0})],
    "dropout": [_one({"p": 0.5, "training": False})],
    "mse_loss": [_two(), _two({"reduction": "sum"})],
    "l1_loss": [_two(), _two({"reduction": "sum"})],
    "huber_loss": [_two(), _two({"delta": 0.5})],
    "smooth_l1_loss": [_two(), _two({"beta": 0.5})],
    "binary_cross_entropy": [
        lambda rng: ((_f(rng, 3, 4, low=0.1, high=0.9), _f(rng, 3, 4, low=0.0, high=1.0)), {}),
        lambda rng: ((_f(rng, 3, 4, low=0.1, high=0.9), _f(rng, 3, 4, low=0.0, high=1.0)),
                     {"reduction": "sum"})],
    "binary_cross_entropy_with_logits": [_two(low=0.0, high=1.0),
                                         _two({"reduction": "sum"}, low=0.0, high=1.0)],
    "cross_entropy": [lambda rng: ((_f(rng, 4, 5), _ints(rng, (4,), 5)), {}),
                      lambda rng: ((_f(rng, 4, 5), _ints(rng, (4,), 5)), {"reduction": "sum"})],
    "nll_loss": [lambda rng: ((_f(rng, 4, 5), _ints(rng, (4,), 5)), {}),
                 lambda rng: ((_f(rng, 4, 5), _ints(rng, (4,), 5)), {"reduction": "sum"})],
    "one_hot": [lambda rng: ((_ints(rng, (4,), 3),), {}),
                lambda rng: ((_ints(rng, (4,), 3),), {"num_classes": 5})],
    "embedding": [lambda rng: ((_ints(rng, (3,), 5), _f(rng, 5, 4)), {})],
    "linear": [lambda rng: ((_f(rng, 2, 3), _f(rng, 4, 3), _f(rng, 4)), {})],
    "bilinear": [lambda rng: ((_f(rng, 2, 3), _f(rng, 2, 4), _f(rng, 5, 3, 4), _f(rng, 5)), {})],
    "conv1d": [lambda rng: ((_f(rng, 1, 2, 8), _f(rng, 3, 2, 3)), {}),
               lambda rng: ((_f(rng, 1, 2, 8), _f(rng, 3, 2, 3)), {"padding": 1})],
    "conv2d": [lambda rng: ((_f(rng, 1, 2, 5, 5), _f(rng, 3, 2, 3, 3)), {}),
               lambda rng: ((_f(rng, 1, 2, 5, 5), _f(rng, 3, 2, 3, 3)), {"padding": 1})],
    "avg_pool2d": [lambda rng: ((_f(rng, 1, 2, 4, 4), 2), {}),
                   lambda rng: ((_f(rng, 1, 2, 4, 4), 2), {"stride": 1})],
    "max_pool2d": [lambda rng: ((_f(rng, 1, 2, 4, 4), 2), {}),
                   lambda rng: ((_f(rng, 1, 2, 4, 4), 2), {"stride": 1})],
    "batch_norm": [lambda rng: ((_f(rng, 4, 3), _f(rng, 3), _f(rng, 3, low=0.5, high=2.0)), {}),
                   lambda rng: ((_f(rng, 4, 3), _f(rng, 3), _f(rng, 3, low=0.5, high=2.0)),
                                {"eps": 0.5})],
    "layer_norm": [lambda rng: ((_f(rng, 2, 3), (3,)), {}),
                   lambda rng: ((_f(rng, 2, 3), (3,)), {"eps": 0.5})],
}

#: Tensor methods and operators whose inputs are borrowed from the cases of an op spelled
#: differently (the reflected and in-place operators use their operator's cases).
METHOD_OPS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "pow", "matmul": "matmul",
    "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
    "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift",
    "lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
    "eq": "equal", "ne": "not_equal", "neg": "negative", "pos": "positive",
    "invert": "bitwise_invert", "getitem": "getitem", "setitem": "index_put",
    "clamp": "clip", "permute": "permute_dims", "mm": "matmul",
}

#: Sample calls of the Tensor methods that no op case describes
#: (``name -> [make(rng) -> (args, kwargs)]``, ``args[0]`` is ``self``).
METHOD_SAMPLES = {
    "to": [lambda rng: ((_f(rng, 2, 3),), {"dtype": _dtype("float32")})],
    "to_device": [lambda rng: ((_f(rng, 2, 3), "cpu"), {})],
    "double": [_one(shape=(2, 3))], "float": [_one(shape=(2, 3))],
    "long": [_one(shape=(2, 3))], "clone": [_one(shape=(2, 3))], "t": [_one(shape=(2, 3))],
    "flatten": [_one(shape=(2, 3))], "zero_": [_one(shape=(2, 3))],
    "dim": [_one(shape=(2, 3))], "numel": [_one(shape=(2, 3))],
    "tolist": [_one(shape=(2, 3))], "numpy": [_one(shape=(2, 3))],
    "item": [_one(shape=(1,))],
    "unsqueeze": [lambda rng: ((_f(rng, 2, 3), 0), {})],
    "expand_as": [lambda rng: ((_f(rng, 1, 3), _f(rng, 2, 3)), {})],
    "expand": [lambda rng: ((_f(rng, 1, 3), 2, 3), {})],
    "transpose": [lambda rng: ((_f(rng, 2, 3), 0, 1), {})],
    "fill_": [lambda rng: ((_f(rng, 2, 3), 1.5), {})],
    "uniform_": [_one(shape=(2, 3))], "normal_": [_one(shape=(2, 3))],
    "permute": [lambda rng: ((_f(rng, 2, 3, 4), 2, 0, 1), {})],
    # PyTorch's names and signatures, which the op cases (array API keywords) do not fit
    "squeeze": [lambda rng: ((_f(rng, 1, 3),), {}), lambda rng: ((_f(rng, 1, 3, 1),), {"dim": 0})],
    "__imatmul__": [lambda rng: ((_f(rng, 2, 3), _f(rng, 3, 3)), {})],
    "__rmatmul__": [lambda rng: ((_f(rng, 3, 4), _f(rng, 2, 3)), {})],
    "backward": [lambda rng: ((_leaf(rng),), {})],
    "compute": [_one()], "persist": [_one()],
    "rechunk": [lambda rng: ((_f(rng, 4, 4), 2), {})],
    # PyTorch's methods beyond the standard (arrayflow/_tensor_methods.py)
    **{n: [_two()] for n in ("add_", "sub_", "mul_", "copy_", "clamp_min", "clamp_max",
                             "clamp_min_", "clamp_max_", "isclose", "allclose")},
    "add_": [_two(), _two({"alpha": 2.0})], "sub_": [_two(), _two({"alpha": 0.5})],
    "div_": [_two(low=0.5, high=2.0), _two({"rounding_mode": "floor"}, low=0.5, high=2.0)],
    "div": [_two(low=0.5, high=2.0), _two({"rounding_mode": "trunc"}, low=0.5, high=2.0)],
    "pow_": [lambda rng: ((_f(rng, 3, 4, low=0.5, high=2.0), 2.0), {})],
    "clamp_": [lambda rng: ((_f(rng, 3, 4), -0.5, 0.5), {})],
    "clip_": [lambda rng: ((_f(rng, 3, 4), -0.5), {"max": 0.5})],
    "masked_fill": [lambda rng: ((_f(rng, 3, 4), _f(rng, 3, 4) > 0, 2.0), {})],
    "masked_fill_": [lambda rng: ((_f(rng, 3, 4), _f(rng, 3, 4) > 0, 2.0), {})],
    "fill_diagonal_": [lambda rng: ((_f(rng, 3, 3), 2.0), {}),
                       lambda rng: ((_f(rng, 5, 2), 2.0), {"wrap": True})],
    **{n: [_one()] for n in ("neg_", "negative_", "abs_", "exp_", "expm1_", "sin_", "cos_",
                             "tan_", "atan_", "sinh_", "cosh_", "tanh_", "floor_", "ceil_",
                             "trunc_", "round_", "sign_", "sigmoid_", "relu_", "square_",
                             "sigmoid", "relu")},
    **{n: [lambda rng: ((_f(rng, 3, 4, low=0.5, high=2.0),), {})]
       for n in ("log_", "log1p_", "log2_", "log10_", "sqrt_", "reciprocal_")},
    **{n: [lambda rng: ((_f(rng, 3, 4, low=-0.9, high=0.9),), {})] for n in ("asin_", "acos_")},
    "softmax": [lambda rng: ((_f(rng, 3, 4), 1), {})],
    "log_softmax": [lambda rng: ((_f(rng, 3, 4), 0), {})],
    "norm": [_one(), lambda rng: ((_f(rng, 3, 4), 1), {"dim": 1, "keepdim": True})],
    "movedim": [lambda rng: ((_f(rng, 2, 3, 4), 0, -1), {})],
    "moveaxis": [lambda rng: ((_f(rng, 2, 3, 4), (0, 1), (2, 0)), {})],
    "std": [_one(), _one({"dim": 1, "unbiased": False})],
    "var": [_one(), _one({"dim": 0, "correction": 0})],
    **{n: [_one()] for n in ("amax", "amin", "bool", "byte", "char", "int", "short",
                             "contiguous", "is_complex", "is_contiguous", "is_floating_point",
                             "nelement", "element_size", "rsqrt_", "bitwise_not")},
    "amax": [_one(), _one({"dim": 1, "keepdim": True})],
    "rsqrt": [lambda rng: ((_f(rng, 3, 4, low=0.5, high=2.0),), {})],
    "rsqrt_": [lambda rng: ((_f(rng, 3, 4, low=0.5, high=2.0),), {})],
    "addcmul_": [lambda rng: ((_f(rng, 3, 4), _f(rng, 3, 4), _f(rng, 3, 4)), {"value": 0.5})],
    "addcdiv_": [lambda rng: ((_f(rng, 3, 4), _f(rng, 3, 4), _f(rng, 3, 4, low=0.5)),
                              {"value": 2.0})],
    "lerp_": [lambda rng: ((_f(rng, 3, 4), _f(rng, 3, 4), 0.25), {})],
    "bmm": [lambda rng: ((_f(rng, 2, 3, 4), _f(rng, 2, 4, 5)), {})],
    "dot": [lambda rng: ((_f(rng, 4), _f(rng, 4)), {})],
    "mv": [lambda rng: ((_f(rng, 3, 4), _f(rng, 4)), {})],
    "outer": [lambda rng: ((_f(rng, 3), _f(rng, 4)), {})],
    "chunk": [lambda rng: ((_f(rng, 3, 4), 2), {"dim": 1})],
    "split": [lambda rng: ((_f(rng, 3, 4), 2), {"dim": 1})],
    "narrow": [lambda rng: ((_f(rng, 3, 4), 1, 1, 2), {})],
    "cumsum": [lambda rng: ((_f(rng, 3, 4), 1), {})],
    "cumprod": [lambda rng: ((_f(rng, 3, 4), 0), {})],
    "unbind": [lambda rng: ((_f(rng, 3, 4),), {"dim": 1})],
    "repeat_interleave": [lambda rng: ((_f(rng, 3, 4), 2), {"dim": 0})],
    "gather": [lambda rng: ((_f(rng, 3, 4), 1, _ints(rng, (3, 2), 4)), {})],
    "index_select": [lambda rng: ((_f(rng, 3, 4), 1, _ints(rng, (5,), 4)), {})],
    "logsumexp": [lambda rng: ((_f(rng, 3, 4), 1), {"keepdim": True})],
    "masked_select": [lambda rng: ((_f(rng, 3, 4), _f(rng, 3, 4) > 0), {})],
    "topk": [lambda rng: ((_f(rng, 3, 4), 2), {"dim": 1})],
    "type_as": [lambda rng: ((_f(rng, 3, 4), _f(rng, 2).astype("float32")), {})],
    "view_as": [lambda rng: ((_f(rng, 3, 4), _f(rng, 4, 3)), {})],
}

#: Sample calls of ``arrayflow`` functions that have no op case (lazy-backend helpers).
FUNCTION_SAMPLES = {
    "compute": [lambda rng: ((_f(rng, 3, 4), _f(rng, 2)), {})],
    "persist": [lambda rng: ((_f(rng, 3, 4), _f(rng, 2)), {})],
    "rechunk": [lambda rng: ((_f(rng, 4, 4), 2), {})],
    # PyTorch's functions that are not ops (no case in the op table)
    "isclose": [_two(), _two({"rtol": 0.5})], "allclose": [_two(), _two({"atol": 5.0})],
    "norm": [_one(), _one({"p": 1, "dim": 0})],
    "cumsum": [lambda rng: ((_f(rng, 3, 4), 1), {})],
    "cumprod": [lambda rng: ((_f(rng, 3, 4),), {"dim": 0})],
    "unbind": [lambda rng: ((_f(rng, 3, 4), 1), {})],
    "repeat_interleave": [lambda rng: ((_f(rng, 3, 4), 2), {"dim": 1})],
    "gather": [lambda rng: ((_f(rng, 3, 4), 1, _ints(rng, (3, 2), 4)), {})],
}

# PyTorch's functions that are Tensor methods too (arrayflow.ops.torch_functions): the
# methods' samples (``self`` is ``input``).
FUNCTION_SAMPLES.update({n: METHOD_SAMPLES[n] for n in (
    "flatten", "sigmoid", "relu", "softmax", "log_softmax", "topk", "bmm", "dot", "mv", "outer",
    "narrow", "chunk", "split", "index_select", "masked_select", "masked_fill", "logsumexp",
    "rsqrt", "clamp_min", "clamp_max", "amax", "amin", "transpose", "unsqueeze", "t",
    "numel")})
FUNCTION_SAMPLES.update({
    "addcmul": METHOD_SAMPLES["addcmul_"], "addcdiv": METHOD_SAMPLES["addcdiv_"],
    "lerp": METHOD_SAMPLES["lerp_"], "detach": [_one()],
})

#: Sample calls of ``arrayflow.linalg`` functions that have no op case.
LINALG_SAMPLES = {
    "norm": [_one(), _one({"ord": 1, "dim": 1}), lambda rng: ((_f(rng, 3, 4), "nuc"), {})],
}

_TABLES = {"Tensor": METHOD_SAMPLES, "arrayflow.nn.functional": FUNCTIONAL_SAMPLES,
           "arrayflow": FUNCTION_SAMPLES, "arrayflow.linalg": LINALG_SAMPLES}


def _leaf(rng):
    """A float64 scalar leaf that requires grad (``Tensor.backward`` needs one)."""
    import arrayflow as af

    return af.tensor(float(rng.uniform(0.5, 2.0)), dtype=af.float64, requires_grad=True)

# Methods whose results are random (no value comparison, no dropped-kwargs probe).
_RANDOM = {"uniform_", "normal_", "dropout"}


def _dtype(name):
    from arrayflow.testing import DTypeArg

    return DTypeArg(name)


def _method_op(attr: str) -> str:
    """``"__radd__" -> "add"``, ``"__iand__" -> "and"``, ``"clamp" -> "clip"``."""
    name = attr
    if name.startswith("__") and name.endswith("__"):
        name = name[2:-2]
        if name not in METHOD_OPS and name[:1] in ("r", "i") and name[1:] in METHOD_OPS:
            name = name[1:]
    return METHOD_OPS.get(name, name)


def samples_for(label: str, attr: str, func):
    """NumPy-level sample calls for one function: ``[(label, args, kwargs, values)]``.

    ``values`` is False for random results (no value comparisons).
    """
    from arrayflow.ops import OPS, Op
    from arrayflow.testing import cases_for

    op_name = None
    if isinstance(func, Op):
        op_name = getattr(func, "canonical", func).name  # an alias (mul): its op's cases
    elif label == "Tensor":
        op_name = _method_op(attr)
    table = _TABLES.get(label, {})
    out = [(f"{attr}-{i}", make, attr not in _RANDOM) for i, make in enumerate(table.get(attr, ()))]
    if op_name is not None and op_name in OPS:
        out += [(c.id, c.make, c.values) for c in cases_for(op_name)]
    return out


# --- calling and comparing ------------------------------------------------------------------------

class _Uncomparable(Exception):
    pass


def _materialize(args, kwargs):
    from arrayflow.testing import to_arrayflow

    return to_arrayflow((tuple(args), dict(kwargs)))


def _has_tensor(args, kwargs) -> bool:
    import arrayflow as af

    for a in (*args, *kwargs.values()):
        items = a if type(a) in (list, tuple) else (a,)
        if any(type(e) is af.Tensor for e in items):
            return True
    return False


def _wrap_all(args, kwargs, make):
    """Replace every exact Tensor (top level, list/tuple elements, keyword values)."""
    import arrayflow as af

    def one(a):
        if type(a) is af.Tensor:
            return make(a)
        if type(a) in (list, tuple):
            return type(a)(make(e) if type(e) is af.Tensor else e for e in a)
        return a

    return tuple(one(a) for a in args), {k: one(v) for k, v in kwargs.items()}


def _call(func, args, kwargs):
    try:
        return True, func(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - classifying every failure is the point
        return False, e


def _host(obj, depth=0):
    """A comparable NumPy/Python view of a result, duck types unwrapped heuristically."""
    import arrayflow as af

    np = _np()
    if depth > 3:
        raise _Uncomparable("nested too deeply")
    if isinstance(obj, af.Tensor):
        from arrayflow.overrides import DisableArrayflowFunction

        with DisableArrayflowFunction():
            return np.asarray(obj.numpy())
    if obj is None or isinstance(obj, (bool, int, float, complex, str, af.DType)):
        return obj
    if isinstance(obj, (tuple, list)):
        return tuple(_host(e, depth + 1) for e in obj)
    if isinstance(obj, np.ndarray):
        return obj
    # a duck type: a ``tensor()`` method (ScalarTensor), one Tensor attribute (wrappers),
    # or ``__array__``
    meth = getattr(type(obj), "tensor", None)
    if callable(meth):
        try:
            return _host(obj.tensor(), depth + 1)
        except Exception as e:  # noqa: BLE001
            raise _Uncomparable(f"{type(obj).__name__}.tensor() raised {e!r}") from None
    attrs = []
    for name in (*getattr(obj, "__dict__", {}), *getattr(type(obj), "__slots__", ())):
        v = getattr(obj, name, None)
        if isinstance(v, af.Tensor):
            attrs.append(v)
    if len(attrs) == 1:
        return _host(attrs[0], depth + 1)
    if hasattr(obj, "__array__"):
        return np.asarray(obj)
    raise _Uncomparable(f"cannot read the values of a {type(obj).__name__}")


def _same(a, b) -> bool:
    np = _np()
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
                and all(_same(x, y) for x, y in zip(a, b)))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype.kind in "fc":
            return bool(np.allclose(a, b, rtol=1e-7, atol=0, equal_nan=True))
        return bool(np.array_equal(a, b))
    try:
        return bool(a == b) or (isinstance(a, float) and isinstance(b, float)
                                and math.isnan(a) and math.isnan(b))
    except Exception:  # noqa: BLE001
        return False


def _lost_type(plain, duck, cls) -> bool:
    import arrayflow as af

    if isinstance(plain, af.Tensor):
        return not isinstance(duck, cls)
    if isinstance(plain, (tuple, list)) and any(isinstance(p, af.Tensor) for p in plain):
        if isinstance(duck, cls):
            return False
        if not isinstance(duck, (tuple, list)) or len(duck) != len(plain):
            return True
        return any(isinstance(p, af.Tensor) and not isinstance(d, cls)
                   for p, d in zip(plain, duck))
    return False


def _describe(v) -> str:
    import arrayflow as af

    np = _np()
    if isinstance(v, np.ndarray):
        return f"array(shape={v.shape}, dtype={v.dtype})"
    if isinstance(v, af.Tensor):
        return f"Tensor(shape={tuple(v.shape)}, dtype={v.dtype.name})"
    if isinstance(v, (tuple, list)):
        inner = ", ".join(_describe(e) for e in v)
        return f"({inner}{',' if len(v) == 1 else ''})" if isinstance(v, tuple) else f"[{inner}]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}={_describe(e)}" for k, e in v.items()) + "}"
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _not_implemented(err, func) -> bool:
    from arrayflow import overrides

    return (isinstance(err, TypeError)
            and str(err).startswith(f"no implementation found for '{overrides._qualname(func)}'"))


def _err(e) -> str:
    return f"{type(e).__name__}: {e}"


# --- classification -------------------------------------------------------------------------------

def classify(func, samples, make, cls, seed=0):
    """Classify how ``cls`` handles ``func`` on ``samples``.

    Returns
    -------
    (status, detail, inputs) : tuple of str
        ``status`` is ``skipped`` when no sample call with a Tensor argument
        succeeds on plain Tensors.
    """
    np = _np()
    valid = []
    reasons = []
    for label, mk, values in samples:
        args, kwargs = mk(np.random.default_rng(seed))
        p_args, p_kwargs = _materialize(args, kwargs)
        if not _has_tensor(p_args, p_kwargs):
            reasons.append(f"{label}: no Tensor argument")
            continue
        ok, plain = _call(func, p_args, p_kwargs)
        if not ok:
            reasons.append(f"{label}: plain Tensors raise {_err(plain)}")
            continue
        valid.append((label, args, kwargs, values, plain))
    if not valid:
        why = "; ".join(reasons[:3]) if reasons else "no sample inputs known for this function"
        if reasons and all(r.endswith("no Tensor argument") for r in reasons):
            why = ("no sample call has a Tensor argument, so dispatch cannot reach a duck type "
                   "(only modes see this function)")
        return "skipped", why, ""

    def duck_call(args, kwargs):
        d_args, d_kwargs = _wrap_all(*_materialize(args, kwargs), make)
        return _call(func, d_args, d_kwargs)

    # the main call: the first valid sample without keyword arguments, else the first
    main = next((v for v in valid if not v[2]), valid[0])
    label, args, kwargs, values, plain = main
    inputs = f"{label}: args={_describe(args)}, kwargs={_describe(kwargs)}"
    ok, duck = duck_call(args, kwargs)
    if not ok:
        if _not_implemented(duck, func):
            return "not_implemented", _err(duck), inputs
        return "raised", _err(duck), inputs
    findings = []  # (status, detail, inputs)
    if _lost_type(plain, duck, cls):
        findings.append(("lost_type", f"returned {type(duck).__name__} where plain Tensors "
                                      f"give {type(plain).__name__}", inputs))
    # dropped-kwargs probes: every sample with keyword arguments, one keyword at a time
    for label, args, kwargs, values, plain_full in valid:
        if not kwargs:
            continue
        k_inputs = f"{label}: args={_describe(args)}, kwargs={_describe(kwargs)}"
        ok_full, duck_full = duck_call(args, kwargs)
        if not ok_full:
            status = "not_implemented" if _not_implemented(duck_full, func) else "raised"
            findings.append((status, f"with keyword(s) {sorted(kwargs)}: {_err(duck_full)}",
                             k_inputs))
            continue
        if _lost_type(plain_full, duck_full, cls):
            findings.append(("lost_type", f"returned {type(duck_full).__name__} where plain "
                                          f"Tensors give {type(plain_full).__name__}", k_inputs))
        if not values:
            continue
        for key in kwargs:
            less = {k: v for k, v in kwargs.items() if k != key}
            ok_less, plain_less = _call(func, *_materialize(args, less))
            if not ok_less:
                continue
            try:
                if _same(_host(plain_full), _host(plain_less)):
                    continue  # the keyword does not change this result: nothing to learn
            except _Uncomparable:
                continue
            ok_dl, duck_less = duck_call(args, less)
            if not ok_dl:
                continue
            try:
                if _same(_host(duck_full), _host(duck_less)):
                    findings.append((
                        "dropped_kwargs",
                        f"keyword {key}={_describe(kwargs[key])} changes the result for plain "
                        f"Tensors but not for {cls.__name__}", k_inputs))
            except _Uncomparable:
                pass
    if not findings:
        return "handled", "", inputs
    worst = max(_SEVERITY[s] for s, _, _ in findings)
    chosen = [f for f in findings if _SEVERITY[f[0]] == worst]
    detail = "; ".join(dict.fromkeys(d for _, d, _ in chosen))
    others = [f"{s}: {d}" for s, d, _ in findings if _SEVERITY[s] != worst]
    if others:
        detail += " (also " + "; ".join(dict.fromkeys(others)) + ")"
    return chosen[0][0], detail, chosen[0][2]


# --- instances ------------------------------------------------------------------------------------

def _instance_maker(cls, factory):
    """``make(tensor) -> instance``: the factory, ``t.as_subclass(cls)`` or ``cls(t)``."""
    import arrayflow as af

    if factory is not None:
        try:
            params = [p for p in inspect.signature(factory).parameters.values()
                      if p.default is inspect.Parameter.empty
                      and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            takes_tensor = bool(params) or any(
                p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
                for p in inspect.signature(factory).parameters.values())
        except (TypeError, ValueError):
            takes_tensor = True
        return (lambda t: factory(t)) if takes_tensor else (lambda t: factory())
    if isinstance(cls, type) and issubclass(cls, af.Tensor):
        return lambda t: t.as_subclass(cls)
    return lambda t: cls(t)


# --- the suite ----------------------------------------------------------------------------------

def _repro(args) -> str:
    cmd = f"arrayflow-conformance tensor-like {args.target}"
    if getattr(args, "factory", None):
        cmd += f" --factory {args.factory}"
    return cmd + f" --seed {getattr(args, 'seed', 0) or 0}"


def run(args, progress) -> Report:
    """Run the tensor-like suite.

    Parameters
    ----------
    args : argparse.Namespace
        ``target`` (``"MODULE:CLASS"``), ``factory`` (``"MODULE:FUNC"`` or None;
        called with a plain Tensor, or with no arguments if it takes none, and
        returns an instance), ``fail_under`` (percent or None), ``seed`` (int).
    progress : object
        ``start(total, description)``, ``advance(n=1)``, ``stop()``.

    Returns
    -------
    Report
        One :class:`CheckResult` per function (group: its namespace), plus a
        ``coverage``/``fail-under`` result when ``fail_under`` is given; ``meta``
        holds ``coverage`` (percent), ``coverage_by_namespace``,
        ``implement_next`` and counts.
    """
    import arrayflow as af
    from arrayflow import overrides

    t0 = time.perf_counter()
    seed = getattr(args, "seed", 0) or 0
    report = Report(suite=SUITE, target=args.target, meta={"seed": seed})
    repro = _repro(args)
    try:
        cls = load_object(args.target)
        factory = load_object(args.factory) if getattr(args, "factory", None) else None
    except Exception as e:  # noqa: BLE001
        report.add(CheckResult(SUITE, "setup", "load", "error", detail=_err(e), repro=repro))
        return report
    make = _instance_maker(cls, factory)
    with af.use_backend("numpy"):
        try:
            probe = make(af.ones((2, 2)))
        except Exception as e:  # noqa: BLE001
            hint = "" if factory is not None else (
                f"; {getattr(cls, '__name__', cls)}(tensor) does not work, pass --factory "
                "MODULE:FUNC returning an instance")
            report.add(CheckResult(SUITE, "setup", "instance", "error",
                                   detail=f"could not make an instance: {_err(e)}{hint}",
                                   repro=repro))
            return report
        if not isinstance(cls, type):
            cls = type(probe)
        try:  # the lookup dispatch uses (a plain instance method is accepted, as in PyTorch)
            report.meta["protocol_form"] = overrides.protocol_form(type(probe))
        except TypeError:
            report.add(CheckResult(SUITE, "setup", "instance", "error",
                                   detail=f"{type(probe).__name__} does not define "
                                          "__arrayflow_function__", repro=repro))
            return report
        funcs = overridable_functions()
        progress.start(len(funcs), f"tensor-like {getattr(cls, '__name__', args.target)}")
        try:
            for label, name, attr, func in funcs:
                t1 = time.perf_counter()
                try:
                    status, detail, inputs = classify(func, samples_for(label, attr, func),
                                                      make, cls, seed)
                except Exception as e:  # noqa: BLE001 - a bug in a sample, not in the duck type
                    status, detail, inputs = "error", f"suite error: {_err(e)}", ""
                report.add(CheckResult(SUITE, label, name, status, detail=detail, inputs=inputs,
                                       repro=repro if status != "handled" else "",
                                       duration_s=time.perf_counter() - t1))
                progress.advance(1)
        finally:
            progress.stop()
    _summarize(report, args)
    report.meta["duration_s"] = round(time.perf_counter() - t0, 3)
    return report


def _summarize(report: Report, args) -> None:
    per_ns: dict = {}
    for r in report.results:
        if r.status == "skipped" or r.group in ("setup", "coverage"):
            continue
        d = per_ns.setdefault(r.group, {"handled": 0, "total": 0})
        d["total"] += 1
        d["handled"] += r.status == "handled"
    for d in per_ns.values():
        d["percent"] = round(100.0 * d["handled"] / d["total"], 1) if d["total"] else 0.0
    handled = sum(d["handled"] for d in per_ns.values())
    total = sum(d["total"] for d in per_ns.values())
    coverage = round(100.0 * handled / total, 1) if total else 0.0
    prio = {ns: i for i, ns in enumerate(NAMESPACE_PRIORITY)}
    todo = sorted((r for r in report.results
                   if r.status not in ("handled", "skipped") and r.group not in ("setup",
                                                                                 "coverage")),
                  key=lambda r: (prio.get(r.group, len(prio)), r.group, r.name))
    report.meta.update({
        "coverage": coverage,
        "handled": handled,
        "classified": total,
        "skipped": sum(r.status == "skipped" for r in report.results),
        "coverage_by_namespace": per_ns,
        "implement_next": [f"{r.name} ({r.status})" for r in todo],
        "implement_next_order": "namespaces " + ", ".join(NAMESPACE_PRIORITY)
                                + " (most used first), then alphabetical",
    })
    fail_under = getattr(args, "fail_under", None)
    if fail_under is not None:
        met = coverage >= float(fail_under)
        report.add(CheckResult(
            SUITE, "coverage", "fail-under", "passed" if met else "failed",
            detail=f"coverage {coverage}% {'>=' if met else '<'} --fail-under {fail_under}%",
            repro=_repro(args) + f" --fail-under {fail_under}"))


def format_summary(report: Report) -> str:
    """Coverage by namespace and the implement-next list, for the terminal."""
    meta = report.meta
    if "coverage" not in meta:
        return "\n".join(f"{r.group}/{r.name}: {r.status} {r.detail}" for r in report.results)
    lines = [f"tensor-like {report.target}: coverage {meta['coverage']}% "
             f"({meta['handled']}/{meta['classified']} handled, {meta['skipped']} skipped)"]
    statuses = ("handled", "not_implemented", "raised", "dropped_kwargs", "lost_type",
                "skipped")
    lines.append(f"  {'namespace':26s} {'cover':>7s}  " + " ".join(f"{s:>15s}" for s in statuses))
    groups = report.by_group()
    for ns, d in meta["coverage_by_namespace"].items():
        counts = groups.get(ns, {})
        lines.append(f"  {ns:26s} {d['percent']:6.1f}%  "
                     + " ".join(f"{counts.get(s, 0):15d}" for s in statuses))
    todo = meta["implement_next"]
    if todo:
        shown = todo[:25]
        lines.append(f"implement next ({len(todo)}): " + ", ".join(shown)
                     + (f", ... ({len(todo) - len(shown)} more)" if len(todo) > len(shown) else ""))
    if meta.get("protocol_form") == "instance method":
        lines.append("note: __arrayflow_function__ is a plain instance method: it works (bound "
                     "to the instance, as PyTorch does) but PyTorch deprecates it; define it "
                     "as a classmethod")
    for r in report.results:
        if r.group == "coverage":
            lines.append(f"fail-under: {r.status}: {r.detail}")
    return "\n".join(lines)
