"""The public API is typed and documented (issue 13 §5).

Walks the public surface: the names of ``arrayflow`` (its public non-module attributes),
``arrayflow.nn``, ``nn.functional``, ``nn.init``, ``arrayflow.optim`` (and
``optim.lr_scheduler``), ``arrayflow.autograd`` (and ``autograd.functional``),
``arrayflow.linalg``, ``arrayflow.fft``, ``arrayflow.utils.data``, ``arrayflow.func``, plus
the public methods of every public class found there (``Tensor``, ``nn.Module`` and its
layers, the optimizers, ...). For each function and method it asserts:

(a) every parameter but ``self``/``cls`` and the return are annotated (``inspect.signature``;
    a class's ``__init__`` parameters, not its return);
(b) the docstring, parsed by ``numpydoc.docscrape.FunctionDoc``, has a ``Parameters``
    section naming every parameter (when it takes any) and a ``Returns`` (or ``Yields``)
    section unless the annotated return is ``None``.

Known exceptions are listed in ``EXCEPTIONS`` with the reason each cannot be fixed; the
test prints them.
"""

from __future__ import annotations

import inspect
import pathlib
import types
import warnings

import pytest

numpydoc_docscrape = pytest.importorskip("numpydoc.docscrape")

import arrayflow as af  # noqa: E402
import arrayflow.autograd.functional  # noqa: E402,F401
import arrayflow.nn.functional  # noqa: E402,F401
import arrayflow.nn.init  # noqa: E402,F401
import arrayflow.optim.lr_scheduler  # noqa: E402,F401
import arrayflow.utils.data  # noqa: E402,F401

NAMESPACES = {
    "arrayflow": af,
    "arrayflow.nn": af.nn,
    "arrayflow.nn.functional": af.nn.functional,
    "arrayflow.nn.init": af.nn.init,
    "arrayflow.optim": af.optim,
    "arrayflow.optim.lr_scheduler": af.optim.lr_scheduler,
    "arrayflow.autograd": af.autograd,
    "arrayflow.autograd.functional": af.autograd.functional,
    "arrayflow.linalg": af.linalg,
    "arrayflow.fft": af.fft,
    "arrayflow.utils.data": af.utils.data,
    "arrayflow.func": af.func,
    "arrayflow.library": af.library,
    "arrayflow.autograd.forward_ad": af.autograd.forward_ad,
    "arrayflow.overrides": af.overrides,
}

EXCEPTIONS: dict[str, str] = {
}
"""Qualified name -> why its signature or docstring cannot meet the rule."""


def _public_names(mod):
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n in dir(mod) if not n.startswith("_")]
    return sorted(set(names))


def _is_arrayflow(obj) -> bool:
    mod = getattr(obj, "__module__", None) or ""
    return mod.split(".")[0] in {"arrayflow", "arrayflow_numpy", "arrayflow_strict",
                                 "arrayflow_dask", "arrayflow_cupy"}


def _collect():
    """(qualified name, callable, kind) for each public function, class and method."""
    funcs: dict[str, tuple[object, str]] = {}
    classes: dict[str, type] = {}
    for ns, mod in NAMESPACES.items():
        for name in _public_names(mod):
            obj = getattr(mod, name)
            if isinstance(obj, types.ModuleType):
                continue
            if inspect.isclass(obj):
                if issubclass(obj, BaseException) or not _is_arrayflow(obj):
                    continue  # exceptions take the message; dtypes etc. are data
                classes.setdefault(f"{obj.__module__}.{obj.__qualname__}", obj)
            elif callable(obj) and not isinstance(obj, af.DType):
                funcs[f"{ns}.{name}"] = (obj, "function")
    for cname, cls in classes.items():
        funcs[cname] = (cls, "class")
        for name, raw in vars(cls).items():
            if name.startswith("_"):
                continue
            if isinstance(raw, property):
                continue  # attributes: typed by their getter's return, documented in the class
            fn = raw.__func__ if isinstance(raw, (classmethod, staticmethod)) else raw
            if inspect.isfunction(fn):
                funcs[f"{cname}.{name}"] = (fn, "method")
    return funcs


PUBLIC = _collect()


def _signature(obj, kind):
    try:  # a class: the parameters of its own __init__ or __new__, as inspect resolves them
        return inspect.signature(obj)
    except (TypeError, ValueError):
        return None


def _params(sig, kind):
    ps = list(sig.parameters.values())
    if ps and ps[0].name in ("self", "cls"):
        ps = ps[1:]
    return ps


def _missing_annotations(name, obj, kind):
    sig = _signature(obj, kind)
    if sig is None:
        return ["<no signature>"]
    missing = [p.name for p in _params(sig, kind) if p.annotation is inspect.Parameter.empty]
    if kind != "class" and sig.return_annotation is inspect.Signature.empty:
        missing.append("return")
    return missing


def _doc_problems(name, obj, kind):
    sig = _signature(obj, kind)
    doc_obj = obj
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpydoc warns on unknown sections
        if kind == "class":
            doc = numpydoc_docscrape.ClassDoc(obj, config={"show_class_members": False})
            if not doc["Parameters"] and obj.__init__.__doc__ and \
                    obj.__init__ is not object.__init__:
                doc = numpydoc_docscrape.FunctionDoc(obj.__init__)
                doc_obj = obj.__init__
        else:
            doc = numpydoc_docscrape.FunctionDoc(obj)
    if not (inspect.getdoc(doc_obj) or "").strip():
        return ["no docstring"]
    problems = []
    params = [] if sig is None else _params(sig, kind)
    documented = set()
    for p in doc["Parameters"]:
        for n in p.name.split(","):
            documented.add(n.strip().lstrip("*").split(" ")[0])
    undocumented = [p.name for p in params if p.name not in documented]
    if params and not doc["Parameters"]:
        problems.append("no Parameters section")
    elif undocumented:
        problems.append(f"Parameters lacks {undocumented}")
    if kind != "class" and sig is not None:
        ret = sig.return_annotation
        returns_none = ret is None or ret == "None"
        if not returns_none and not (doc["Returns"] or doc["Yields"]):
            problems.append("no Returns section")
    return problems


def _report(title, bad):
    lines = [f"{title}: {len(bad)} names"]
    lines += [f"  {n}: {why}" for n, why in sorted(bad.items())]
    return "\n".join(lines)


def test_surface_is_walked():
    # The walk sees what it claims to (a broken walk would pass vacuously): namespace
    # functions, ops, Tensor methods (also those installed after the class), Module and
    # optimizer methods, classes.
    for name in ("arrayflow.exp", "arrayflow.nn.functional.relu", "arrayflow.linalg.inv",
                 "arrayflow.fft.fft", "arrayflow.autograd.grad", "arrayflow.nn.init.zeros_",
                 "arrayflow.tensor.Tensor.backward", "arrayflow.tensor.Tensor.clamp",
                 "arrayflow.tensor.Tensor.exp_", "arrayflow.nn.module.Module.parameters",
                 "arrayflow.optim.optimizer.Optimizer.step", "arrayflow.optim.adam.Adam",
                 "arrayflow.utils.data.DataLoader", "arrayflow.nn.layers.Linear.forward"):
        assert name in PUBLIC, name
    assert len(PUBLIC) > 600


def _bad(x, y=1):
    """Summary only."""
    return x


def _good(x: int, y: int = 1) -> int:
    """Summary.

    Parameters
    ----------
    x : int
        First.
    y : int, default 1
        Second.

    Returns
    -------
    int
        ``x``.
    """
    return x


def test_the_checks_can_fail():
    assert _missing_annotations("_bad", _bad, "function") == ["x", "y", "return"]
    assert _doc_problems("_bad", _bad, "function") == ["no Parameters section",
                                                       "no Returns section"]
    assert _missing_annotations("_good", _good, "function") == []
    assert _doc_problems("_good", _good, "function") == []


def test_exceptions_are_printed_and_current():
    print(_report("known exceptions", EXCEPTIONS))
    stale = [n for n in EXCEPTIONS if n not in PUBLIC]
    assert not stale, f"EXCEPTIONS names that are no longer public: {stale}"


def test_public_api_is_annotated():
    bad = {}
    for name, (obj, kind) in PUBLIC.items():
        if name in EXCEPTIONS:
            continue
        missing = _missing_annotations(name, obj, kind)
        if missing:
            bad[name] = f"unannotated {missing}"
    assert not bad, _report("public callables missing annotations", bad)


def test_public_api_has_numpydoc_sections():
    bad = {}
    for name, (obj, kind) in PUBLIC.items():
        if name in EXCEPTIONS:
            continue
        problems = _doc_problems(name, obj, kind)
        if problems:
            bad[name] = "; ".join(problems)
    assert not bad, _report("public callables missing numpydoc sections", bad)


# --- the user's view: py.typed code using arrayflow type-checks --------------------------

ROOT = pathlib.Path(__file__).resolve().parents[1]

USER_CODE = """
import arrayflow as af
from arrayflow import nn, optim

x: af.Tensor = af.asarray([1.0, 2.0], requires_grad=True)
y: af.Tensor = (x * 2 + 1) @ x - x / 3
z: af.Tensor = -abs(y) ** 2 + (x > 0).float()
e: af.Tensor = x.exp().sum(dim=0) + x.clamp(min=0).mean()
v: af.Tensor = x.max(0).values
model = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
opt = optim.SGD(model.parameters(), lr=0.1)
out = model(x)
loss: af.Tensor = nn.functional.mse_loss(out, af.zeros(3))
loss.backward()
opt.step()
n: int = x.numel()
params: list[nn.Parameter] = list(model.parameters())
"""


def _mypy(tmp_path, monkeypatch, code):
    api = pytest.importorskip("mypy.api")
    (tmp_path / "user_code.py").write_text(code)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MYPYPATH", str(ROOT))  # the editable install's import hook is opaque
    out, err, _ = api.run(["--config-file=", "--follow-imports=silent", "--cache-dir",
                           str(tmp_path / ".mypy_cache"), "--no-error-summary", "user_code.py"])
    return [line for line in out.splitlines() if line.startswith("user_code.py")], err


def test_users_code_type_checks(tmp_path, monkeypatch):
    # Operators, Tensor methods (also those installed after the class), Module, optimizers
    # and nn.functional, as a user's mypy run sees them through py.typed.
    errors, err = _mypy(tmp_path, monkeypatch, USER_CODE)
    assert errors == [], "\n".join(errors) + err
    # and the check sees a user's mistakes (it is not vacuous)
    errors, _ = _mypy(tmp_path, monkeypatch, "import arrayflow as af\n"
                      "x: af.Tensor = af.asarray([1.0])\ny = x.no_such_method()\n"
                      "z = x + 'a'\nw: int = x.sum()\n")
    assert [e.split(":")[1] for e in errors] == ["3", "4", "5"], errors


def test_users_namespace_functions_type_check(tmp_path, monkeypatch):
    errors, err = _mypy(tmp_path, monkeypatch, "import arrayflow as af\n"
                        "x = af.asarray([1.0])\ny = af.sqrt(af.add(x, x))\nz = af.mul(x, 2)\n")
    assert errors == [], "\n".join(errors) + err
