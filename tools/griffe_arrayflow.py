"""Griffe extension for the documentation site (mkdocs.yml): arrayflow's public functions.

arrayflow's public functions are ``Op`` objects (``arrayflow.ops._registry``) whose
``__wrapped__`` is the backend-level forward, ``forward(xp, x1, x2)``. Griffe unwraps every
object before inspecting it, so without this extension the reference would show the
forward's signature (with its ``xp``/``backend`` first parameter) and docstring instead of
the public ones, and PyTorch's spellings (``af.mul``, an ``AliasOp`` of ``af.multiply``) would
show their canonical op's docstring. This puts back what ``inspect.signature(op)`` and
``op.__doc__`` give, i.e. what ``help(arrayflow.add)`` shows.

Docstrings also use Sphinx roles (``:func:`arrayflow.multiply```), which Markdown would print
as is: they are shown as code instead.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:func|class|meth|mod|attr|data|exc|obj):`~?([^`]+)`")


def _op(holder: Any, name: str) -> Any:
    """``holder.name`` if it is an arrayflow Op (before griffe's ``inspect.unwrap``); or None."""
    try:
        raw = inspect.getattr_static(holder, name)
    except AttributeError:
        return None
    if inspect.isfunction(raw) or inspect.isclass(raw):
        return None
    own = getattr(raw, "__dict__", None)  # Op instances set both on themselves
    if not isinstance(own, dict) or "__signature__" not in own or "__wrapped__" not in own:
        return None
    return raw


def _parameters(raw: Any) -> griffe.Parameters:
    params = []
    for p in inspect.signature(raw).parameters.values():
        default = None if p.default is inspect.Parameter.empty else repr(p.default)
        annotation = (None if p.annotation is inspect.Parameter.empty
                      else getattr(p.annotation, "__name__", str(p.annotation)))
        params.append(griffe.Parameter(p.name, annotation=annotation, default=default,
                                       kind=griffe.ParameterKind(p.kind.description)))
    return griffe.Parameters(*params)


def _docstring(raw: Any, parent: griffe.Object, agent: Any) -> griffe.Docstring | None:
    doc = inspect.getdoc(raw)
    if not doc:
        return None
    return griffe.Docstring(_ROLE.sub(r"`\1`", doc), parent=parent, parser=agent.docstring_parser,
                            parser_options=agent.docstring_options)


class ArrayflowOps(griffe.Extension):
    """Give each ``Op`` function its public signature and docstring; Sphinx roles as code."""

    def on_instance(self, *, node: Any, obj: griffe.Object, agent: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _ROLE.sub(r"`\1`", obj.docstring.value)

    def on_function_instance(self, *, node: Any, func: griffe.Function, agent: Any,
                             **kwargs: Any) -> None:
        if not isinstance(node, griffe.ObjectNode) or node.parent is None:
            return
        raw = _op(node.parent.obj, node.name)
        if raw is None:
            return
        func.parameters = _parameters(raw)
        doc = _docstring(raw, func, agent)
        if doc is not None:
            func.docstring = doc

    def on_alias_instance(self, *, node: Any, alias: griffe.Alias, agent: Any,
                          **kwargs: Any) -> None:
        # ``node`` is the module holding the alias. An Op reached under another name than its
        # forward's (``mul`` -> ``multiply``) is its own public function: document it so.
        if not isinstance(node, griffe.ObjectNode):
            return
        raw = _op(node.obj, alias.name)
        if raw is None or alias.target_path.rsplit(".", 1)[-1] == alias.name:
            return
        func = griffe.Function(alias.name, parameters=_parameters(raw), analysis="dynamic")
        agent.current.set_member(alias.name, func)
        doc = _docstring(raw, func, agent)
        if doc is not None:
            func.docstring = doc
