"""Griffe extension for the documentation site (mkdocs.yml): arrayflow's public functions.

arrayflow's public functions are ``Op`` objects (``arrayflow.ops._registry``) whose
``__wrapped__`` is the backend-level forward, ``forward(xp, x1, x2)``. Griffe unwraps every
object before inspecting it, so without this extension the reference would show the
forward's signature (with its ``xp``/``backend`` first parameter) and docstring instead of
the public ones. This puts back what ``inspect.signature(op)`` and ``op.__doc__`` give,
i.e. what ``help(arrayflow.add)`` shows.
"""

from __future__ import annotations

import inspect
from typing import Any

import griffe


def _public_callable(node: griffe.ObjectNode) -> Any:
    """The object as its parent holds it, before griffe's ``inspect.unwrap``; or None."""
    if node.parent is None:
        return None
    try:
        raw = inspect.getattr_static(node.parent.obj, node.name)
    except AttributeError:
        return None
    if inspect.isfunction(raw) or inspect.isclass(raw):
        return None
    own = getattr(raw, "__dict__", None)  # Op instances set both on themselves
    if not isinstance(own, dict) or "__signature__" not in own or "__wrapped__" not in own:
        return None
    return raw


class ArrayflowOps(griffe.Extension):
    """Give each ``Op`` function its public signature and docstring."""

    def on_function_instance(self, *, node: Any, func: griffe.Function, agent: Any,
                             **kwargs: Any) -> None:
        if not isinstance(node, griffe.ObjectNode):
            return
        raw = _public_callable(node)
        if raw is None:
            return
        sig = inspect.signature(raw)
        params = []
        for p in sig.parameters.values():
            default = None if p.default is inspect.Parameter.empty else repr(p.default)
            annotation = (None if p.annotation is inspect.Parameter.empty
                          else getattr(p.annotation, "__name__", str(p.annotation)))
            params.append(griffe.Parameter(p.name, annotation=annotation, default=default,
                                           kind=griffe.ParameterKind(p.kind.description)))
        func.parameters = griffe.Parameters(*params)
        doc = inspect.getdoc(raw)
        if doc:
            func.docstring = griffe.Docstring(
                doc, parent=func, parser=agent.docstring_parser,
                parser_options=agent.docstring_options)
