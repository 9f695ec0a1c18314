"""The ``function`` suite: checks of a custom :class:`arrayflow.autograd.Function`.

``arrayflow-conformance function MODULE:CLASS --inputs MODULE:FUNC [--seed N]``

``--inputs`` names a function that returns the arguments of ``CLASS.apply``: a
tuple (a single value is taken as a one-argument tuple). It is called with no
arguments, or, if it accepts one positional argument, with a
``numpy.random.Generator`` seeded with ``--seed``. NumPy arrays among the
arguments become Tensors of each backend checked (``af.asarray``; give float64
arrays: the gradient checks need them); arrayflow Tensors are copied to each
backend through NumPy; every other value (Python numbers, strings, None) is
passed unchanged. Floating-point arrays are the differentiable inputs.

Checks (one :class:`CheckResult` each; group in brackets):

- ``forward[BACKEND]`` (forward): ``CLASS.apply`` runs on every usable backend
  of :func:`arrayflow.backends.available` and agrees with the NumPy backend's
  output; unusable backends are ``skipped`` with the reason.
- ``gradcheck`` (gradcheck) and ``gradgradcheck`` (gradgradcheck): finite
  differences on the NumPy backend in float64; a failure names the input.
  A ``backward`` decorated with ``@once_differentiable`` makes
  ``gradgradcheck`` ``skipped`` (it is not meant to be differentiated twice).
- ``needs_input_grad[NAME]`` (needs_input_grad): for each differentiable
  input alone requiring grad, ``ctx.needs_input_grad`` is what PyTorch gives
  (True exactly for Tensor arguments that require grad), backward runs, and
  only that input gets a ``.grad``; gradients ``backward`` computed for inputs
  that did not need them are noted in ``detail`` (allowed, but wasted work).
- ``lazy[BACKEND]`` (lazy): on every usable lazy backend (Dask) forward and
  backward run under :func:`arrayflow.testing.lazy.forbid_compute`: reading a
  value (``float(x)``, ``x.item()``, ``x.numpy()``) fails the check.

Every failure's ``detail`` names the problem, ``inputs`` describes the inputs
and ``repro`` is the command that reruns the suite.

Custom ops (:mod:`arrayflow.library`)::

    arrayflow-conformance function mylib::name --import MODULE --inputs MODULE:FUNC

A target containing ``::`` is a custom op: ``--import MODULE`` is imported first (the
module that registers the op), ``--inputs`` gives one sample as above, and
:func:`arrayflow.library.opcheck` runs it on each backend
(``raise_exception=False``). Each of its checks becomes one result, named
``CHECK[BACKEND]`` in group ``CHECK``: ``schema``, ``call``, ``mutates_args``,
``fake`` (the fake rule against the real output), ``kernel_vs_default`` (a
registered or block-wise kernel against the default kernel's values) and
``autograd`` (gradcheck of ``register_autograd``'s backward). opcheck's
``SUCCESS`` / ``SKIPPED: why`` / ``FAILED: why`` become ``passed`` / ``skipped`` /
``failed`` with the reason as ``detail``; an unusable backend's checks are
``skipped`` with its reason.
"""

from __future__ import annotations

import inspect
import time

from .results import CheckResult, Report
from .tensor_like import load_object

__all__ = ["CUSTOM_OP_CHECKS", "run"]

SUITE = "function"

#: The checks of :func:`arrayflow.library.opcheck`, in the order they are reported.
CUSTOM_OP_CHECKS = ("schema", "call", "mutates_args", "fake", "kernel_vs_default", "autograd")


def _np():
    import numpy

    return numpy


def _err(e) -> str:
    return f"{type(e).__name__}: {e}"


def _make_inputs(fn, seed):
    np = _np()
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
    except (TypeError, ValueError):
        params = []
    out = fn(np.random.default_rng(seed)) if params else fn()
    return out if isinstance(out, tuple) else (out,)


def _host_inputs(raw):
    """Arguments as NumPy arrays (Tensors copied out) and Python values."""
    import arrayflow as af

    np = _np()
    out = []
    for a in raw:
        if isinstance(a, af.Tensor):
            a = np.asarray(a.detach().numpy())
        out.append(a)
    return tuple(out)


def _on_backend(host, diff=None, requires=()):
    """Tensors of the current backend (``requires``: indices that require grad)."""
    import arrayflow as af

    np = _np()
    out = []
    for i, a in enumerate(host):
        if isinstance(a, np.ndarray):
            t = af.asarray(a.copy())
            if i in requires:
                t.requires_grad_(True)
            a = t
        out.append(a)
    return tuple(out)


def _param_names(cls, n):
    """Names of ``forward``'s arguments (without ``ctx``), ``arg0``... where unknown."""
    try:
        params = list(inspect.signature(cls.forward).parameters.values())
        if getattr(cls, "setup_context", None) is None and params:
            params = params[1:]  # ctx
        names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                       p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        names = []
    return [names[i] if i < len(names) else f"arg{i}" for i in range(n)]


def _describe(host, names) -> str:
    np = _np()
    parts = []
    for name, a in zip(names, host):
        if isinstance(a, np.ndarray):
            flat = a.reshape(-1)
            vals = ", ".join(f"{v:.6g}" for v in flat[:6]) + (", ..." if flat.size > 6 else "")
            parts.append(f"{name}=array(shape={a.shape}, dtype={a.dtype}, values=[{vals}])")
        else:
            text = repr(a)
            parts.append(f"{name}={text if len(text) <= 60 else text[:57] + '...'}")
    return "; ".join(parts)


def _outputs(result):
    return result if isinstance(result, tuple) else (result,)


def _to_numpy(result):
    import arrayflow as af

    np = _np()
    return tuple(np.asarray(o.detach().numpy()) if isinstance(o, af.Tensor) else o
                 for o in _outputs(result))


def _compare(got, ref):
    """None if ``got`` matches ``ref`` (tuples of NumPy values), else the mismatch."""
    np = _np()
    if len(got) != len(ref):
        return f"{len(got)} outputs, NumPy backend gives {len(ref)}"
    for k, (g, r) in enumerate(zip(got, ref)):
        if isinstance(r, np.ndarray):
            if not isinstance(g, np.ndarray):
                return f"output {k}: {type(g).__name__}, NumPy backend gives a Tensor"
            if g.shape != r.shape or g.dtype != r.dtype:
                return (f"output {k}: shape {g.shape} dtype {g.dtype}, NumPy backend gives "
                        f"shape {r.shape} dtype {r.dtype}")
            rtol, atol = (1e-4, 1e-5) if r.dtype.itemsize <= 4 and r.dtype.kind in "fc" else (
                1e-7, 1e-10)
            if r.dtype.kind in "fc":
                ok = np.allclose(g, r, rtol=rtol, atol=atol, equal_nan=True)
            else:
                ok = np.array_equal(g, r)
            if not ok:
                diff = np.max(np.abs(g.astype(complex) - r.astype(complex)))
                return f"output {k}: values differ from the NumPy backend (max abs diff {diff:.3g})"
        elif g != r:
            return f"output {k}: {g!r}, NumPy backend gives {r!r}"
    return None


def _loss(result):
    """Sum of every floating output that requires grad (None if there is none)."""
    import arrayflow as af

    loss = None
    for o in _outputs(result):
        if isinstance(o, af.Tensor) and o.requires_grad:
            s = o.sum()
            if s.dtype.kind == "complex floating":
                s = af.real(s)
            loss = s if loss is None else loss + s
    return loss


def _is_once_differentiable(cls) -> bool:
    import arrayflow as af

    bw = inspect.getattr_static(cls, "backward")
    bw = getattr(bw, "__func__", bw)
    return getattr(bw, "__wrapped__", None) is not None and getattr(
        bw, "__code__", None) is af.autograd.once_differentiable(lambda ctx: None).__code__


def _probe_class(cls, record):
    """A subclass of ``cls`` that records ``ctx.needs_input_grad`` and backward's returns."""
    fwd = cls.forward
    bwd = cls.backward

    def backward(ctx, *grads):
        record["backward_needs"] = tuple(ctx.needs_input_grad)
        out = bwd(ctx, *grads)
        record["returned"] = out if isinstance(out, tuple) else (out,)
        return out

    ns = {"backward": staticmethod(backward)}
    if getattr(cls, "setup_context", None) is None:
        def forward(ctx, *args, **kwargs):
            record["needs_input_grad"] = tuple(ctx.needs_input_grad)
            return fwd(ctx, *args, **kwargs)

        ns["forward"] = staticmethod(forward)
    else:
        setup = cls.setup_context

        def setup_context(ctx, inputs, output):
            record["needs_input_grad"] = tuple(ctx.needs_input_grad)
            return setup(ctx, inputs, output)

        ns["setup_context"] = staticmethod(setup_context)
    return type(cls.__name__, (cls,), ns)


# --- checks -------------------------------------------------------------------------------------

def _check_forward(cls, host, infos):
    import arrayflow as af

    results = []
    with af.use_backend("numpy"):
        try:
            ref = _to_numpy(cls.apply(*_on_backend(host)))
        except Exception as e:  # noqa: BLE001
            return [("forward[numpy]", "failed", f"forward raised {_err(e)}")], None
    for info in infos:
        name = f"forward[{info.name}]"
        if not info.usable:
            results.append((name, "skipped", f"backend unusable: {info.reason}"))
            continue
        if info.name == "numpy":
            results.append((name, "passed", ""))
            continue
        try:
            with af.use_backend(info.name):
                got = _to_numpy(cls.apply(*_on_backend(host)))
        except Exception as e:  # noqa: BLE001
            results.append((name, "failed", f"forward raised on {info.name}: {_err(e)}"))
            continue
        bad = _compare(got, ref)
        results.append((name, "failed" if bad else "passed",
                        f"on {info.name}: {bad}" if bad else ""))
    return results, ref


def _check_gradcheck(cls, host, diff, names, second=False):
    import arrayflow as af
    from arrayflow.autograd import gradcheck, gradgradcheck

    check = gradgradcheck if second else gradcheck
    label = "gradgradcheck" if second else "gradcheck"
    if not diff:
        return "skipped", "no floating-point array input to differentiate"
    if second and _is_once_differentiable(cls):
        return "skipped", (f"{cls.__name__}.backward is @once_differentiable: second "
                           "derivatives are not supported by design")
    with af.use_backend("numpy"):
        f64 = tuple(a.astype("float64") if i in diff else a for i, a in enumerate(host))

        def run_with(requires):
            inputs = _on_backend(f64, requires=requires)
            return check(cls.apply, inputs, raise_exception=True)

        try:
            run_with(set(diff))
            return "passed", ""
        except Exception as e:  # noqa: BLE001
            first = e
        if second and "once_differentiable" in str(first):
            return "skipped", (f"{cls.__name__} is once-differentiable: "
                               f"{_err(first).splitlines()[0]}")
        # locate the failing inputs: one differentiable input at a time
        bad = []
        for i in diff:
            try:
                run_with({i})
            except Exception as e:  # noqa: BLE001
                bad.append(f"input {i} ({names[i]}): {_err(e)}")
        where = "\n".join(bad) if bad else _err(first)
        return "failed", f"{label} failed for {where}"


def _check_needs_input_grad(cls, host, diff, names):
    import arrayflow as af

    out = []
    with af.use_backend("numpy"):
        for i in diff:
            name = f"needs_input_grad[{names[i]}]"
            record: dict = {}
            probe = _probe_class(cls, record)
            args = _on_backend(host, requires={i})
            expected = tuple(isinstance(a, af.Tensor) and a.requires_grad for a in args)
            try:
                result = probe.apply(*args)
                loss = _loss(result)
                if loss is None:
                    out.append((name, "failed", "no output requires grad although input "
                                                f"{i} ({names[i]}) does"))
                    continue
                loss.backward()
            except Exception as e:  # noqa: BLE001
                out.append((name, "failed", f"with only {names[i]} requiring grad: {_err(e)}"))
                continue
            problems = []
            got = record.get("needs_input_grad")
            if got != expected:
                problems.append(f"ctx.needs_input_grad in forward is {got}, expected {expected}")
            if record.get("backward_needs", expected) != expected:
                problems.append(f"ctx.needs_input_grad in backward is "
                                f"{record['backward_needs']}, expected {expected}")
            if args[i].grad is None:
                problems.append(f"input {i} ({names[i]}) requires grad but got no .grad")
            for j, a in enumerate(args):
                if j != i and isinstance(a, af.Tensor) and a.grad is not None:
                    problems.append(f"input {j} ({names[j]}) does not require grad but got a "
                                    ".grad")
            if problems:
                out.append((name, "failed", "; ".join(problems)))
                continue
            returned = record.get("returned", ())
            wasted = [names[j] for j, g in enumerate(returned)
                      if j < len(expected) and not expected[j] and j != i
                      and isinstance(g, af.Tensor)]
            note = (f"backward computed gradients for {wasted}, which were not needed "
                    "(allowed; check ctx.needs_input_grad to skip them)") if wasted else ""
            out.append((name, "passed", note))
    return out


def _check_lazy(cls, host, diff, infos):
    import arrayflow as af
    from arrayflow.testing.lazy import forbid_compute

    out = []
    lazy = [i for i in infos if i.lazy]
    if not lazy:
        return [("lazy", "skipped", "no lazy backend installed")]
    for info in lazy:
        name = f"lazy[{info.name}]"
        if not info.usable:
            out.append((name, "skipped", f"backend unusable: {info.reason}"))
            continue
        with af.use_backend(info.name):
            args = _on_backend(host, requires=set(diff))
            stage = "forward"
            try:
                with forbid_compute(info.name):
                    result = cls.apply(*args)
                    stage = "backward"
                    loss = _loss(result)
                    if loss is not None:
                        loss.backward()
            except AssertionError as e:
                out.append((name, "failed", f"{stage} read a value on the lazy backend "
                                            f"{info.name} ({e}); avoid float(), .item(), "
                                            ".numpy() and Python control flow on Tensor "
                                            "values"))
                continue
            except Exception as e:  # noqa: BLE001
                out.append((name, "failed", f"{stage} raised on {info.name}: {_err(e)}"))
                continue
        out.append((name, "passed", ""))
    return out


# --- the suite ----------------------------------------------------------------------------------

def run(args, progress) -> Report:
    """Run the function suite.

    Parameters
    ----------
    args : argparse.Namespace
        ``target`` (``"MODULE:CLASS"``, an :class:`arrayflow.autograd.Function`
        subclass), ``inputs`` (``"MODULE:FUNC"``, see the module docstring),
        ``seed`` (int).
    progress : object
        ``start(total, description)``, ``advance(n=1)``, ``stop()``.

    Returns
    -------
    Report
        Groups ``forward``, ``gradcheck``, ``gradgradcheck``,
        ``needs_input_grad``, ``lazy`` (and ``setup`` when loading fails).
    """
    import arrayflow as af

    t0 = time.perf_counter()
    seed = getattr(args, "seed", 0) or 0
    inputs_spec = getattr(args, "inputs", None)
    report = Report(suite=SUITE, target=args.target, meta={"seed": seed, "inputs": inputs_spec})
    repro = f"arrayflow-conformance function {args.target} --inputs {inputs_spec} --seed {seed}"

    def add(group, name, status, detail="", dt=0.0, inputs=""):
        report.add(CheckResult(SUITE, group, name, status, detail=detail,
                               inputs=inputs if status in ("failed", "error") else "",
                               repro=repro if status in ("failed", "error") else "",
                               duration_s=dt))

    if "::" in args.target:
        return _run_custom_op(args, progress, report, t0)
    try:
        cls = load_object(args.target)
        if not (isinstance(cls, type) and issubclass(cls, af.autograd.Function)):
            raise TypeError(f"{args.target} is not an arrayflow.autograd.Function subclass")
        if not inputs_spec:
            raise ValueError("--inputs MODULE:FUNC is required")
        raw = _make_inputs(load_object(inputs_spec), seed)
        host = _host_inputs(raw)
    except Exception as e:  # noqa: BLE001
        add("setup", "load", "error", _err(e))
        return report
    np = _np()
    names = _param_names(cls, len(host))
    diff = [i for i, a in enumerate(host) if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
    desc = _describe(host, names)
    report.meta["inputs_description"] = desc
    infos = list(af.backends.available())
    total = len(infos) + 2 + len(diff) + max(1, sum(i.lazy for i in infos))
    progress.start(total, f"function {cls.__name__}")
    try:
        t1 = time.perf_counter()
        forward, _ = _check_forward(cls, host, infos)
        dt = (time.perf_counter() - t1) / max(1, len(forward))
        for name, status, detail in forward:
            add("forward", name, status, detail, dt, desc)
        progress.advance(len(infos))
        for second in (False, True):
            t1 = time.perf_counter()
            label = "gradgradcheck" if second else "gradcheck"
            try:
                status, detail = _check_gradcheck(cls, host, diff, names, second)
            except Exception as e:  # noqa: BLE001
                status, detail = "error", f"suite error: {_err(e)}"
            add(label, label, status, detail, time.perf_counter() - t1, desc)
            progress.advance(1)
        t1 = time.perf_counter()
        for name, status, detail in _check_needs_input_grad(cls, host, diff, names):
            add("needs_input_grad", name, status, detail,
                (time.perf_counter() - t1) / max(1, len(diff)), desc)
        progress.advance(len(diff))
        t1 = time.perf_counter()
        for name, status, detail in _check_lazy(cls, host, diff, infos):
            add("lazy", name, status, detail, time.perf_counter() - t1, desc)
        progress.advance(max(1, sum(i.lazy for i in infos)))
    finally:
        progress.stop()
    report.meta["duration_s"] = round(time.perf_counter() - t0, 3)
    return report


# --- custom ops (arrayflow.library) -------------------------------------------------------------

def _find_custom_op(name: str):
    """The custom op registered as ``"namespace::name"`` (``af.library.ops``)."""
    import arrayflow as af

    ns, _, op_name = name.partition("::")
    op = getattr(getattr(af.library.ops, ns, None), op_name, None)
    if not isinstance(op, af.library.CustomOpDef):
        raise ValueError(f"no custom op {name!r} is registered; give the module that "
                         f"registers it with --import MODULE")
    return op


def _opcheck_results(report_of_backend: dict, errored: str | None):
    """``(check, status, detail)`` for one backend's opcheck report."""
    out = []
    for check in list(CUSTOM_OP_CHECKS) + [c for c in report_of_backend
                                           if c not in CUSTOM_OP_CHECKS]:
        value = report_of_backend.get(check)
        if value is None:
            out.append((check, "skipped", errored or "not run: an earlier check of the sample "
                                                     "failed"))
        elif value.startswith("FAILED"):
            out.append((check, "failed", value[len("FAILED: "):]))
        elif value.startswith("SKIPPED"):
            out.append((check, "skipped", value[len("SKIPPED: "):]))
        else:
            out.append((check, "passed", ""))
    return out


def _run_custom_op(args, progress, report: Report, t0: float) -> Report:
    """The function suite on a custom op: opcheck per backend, as CheckResults."""
    import importlib

    import arrayflow as af

    seed = getattr(args, "seed", 0) or 0
    inputs_spec = getattr(args, "inputs", None)
    module = getattr(args, "import_module", None)
    report.meta["import"] = module
    repro = (f"arrayflow-conformance function {args.target}"
             + (f" --import {module}" if module else "")
             + f" --inputs {inputs_spec} --seed {seed}")

    def add(group, name, status, detail="", dt=0.0, inputs=""):
        report.add(CheckResult(SUITE, group, name, status, detail=detail,
                               inputs=inputs if status in ("failed", "error") else "",
                               repro=repro if status in ("failed", "error") else "",
                               duration_s=dt))

    try:
        if module:
            importlib.import_module(module)
        op = _find_custom_op(args.target)
        if not inputs_spec:
            raise ValueError("--inputs MODULE:FUNC is required")
        host = _host_inputs(_make_inputs(load_object(inputs_spec), seed))
    except Exception as e:  # noqa: BLE001
        add("setup", "load", "error", _err(e))
        return report
    names = list(op.__signature__.parameters)
    names += [f"arg{i}" for i in range(len(names), len(host))]
    desc = _describe(host, names)
    report.meta["inputs_description"] = desc
    infos = list(af.backends.available())
    progress.start(len(infos), f"function {args.target}")
    try:
        for info in infos:
            t1 = time.perf_counter()
            if not info.usable:
                for check in CUSTOM_OP_CHECKS:
                    add(check, f"{check}[{info.name}]", "skipped",
                        f"backend unusable: {info.reason}")
                progress.advance(1)
                continue
            try:
                checks = af.library.opcheck(op, [host], backends=[info.name],
                                            raise_exception=False)[info.name]
            except Exception as e:  # noqa: BLE001 - opcheck itself failed: an error
                add("opcheck", f"opcheck[{info.name}]", "error",
                    f"opcheck raised on {info.name}: {_err(e)}",
                    time.perf_counter() - t1, desc)
                progress.advance(1)
                continue
            results = _opcheck_results(checks, None)
            dt = (time.perf_counter() - t1) / max(1, len(results))
            for check, status, detail in results:
                add(check, f"{check}[{info.name}]", status,
                    f"on {info.name}: {detail}" if status == "failed" else detail, dt, desc)
            progress.advance(1)
    finally:
        progress.stop()
    report.meta["duration_s"] = round(time.perf_counter() - t0, 3)
    return report
