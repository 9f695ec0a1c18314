"""Pytrees: nested tuples, lists, dicts and namedtuples of leaves (private).

The containers ``torch.utils._pytree`` flattens by default: ``tuple``, ``list``,
``dict`` and ``collections.OrderedDict`` (in insertion order) and namedtuples.
Everything else -- a Tensor, a number, ``None``, a subclass of ``list`` -- is a
leaf, as in PyTorch 2.13 (where ``None`` is a leaf too). ``arrayflow.func`` uses
these to take and return arguments of any such structure.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

__all__ = ["TreeSpec", "tree_flatten", "tree_unflatten", "tree_map", "tree_leaves",
           "LEAF"]


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


class TreeSpec:
    """The structure of a pytree without its leaves.

    Attributes
    ----------
    kind : type or None
        The container type of this node (``tuple``, ``list``, ``dict``,
        ``OrderedDict`` or a namedtuple class); None for a leaf.
    context : tuple
        The keys of a dict node, in order (empty for other kinds).
    children : tuple of TreeSpec
        The specs of the children.
    num_leaves : int
        How many leaves the tree holds.
    """

    __slots__ = ("kind", "context", "children", "num_leaves")

    def __init__(self, kind: type | None, context: tuple = (), children: tuple = ()):
        self.kind = kind
        self.context = context
        self.children = children
        self.num_leaves = 1 if kind is None else sum(c.num_leaves for c in children)

    def is_leaf(self) -> bool:
        """Whether this spec is a single leaf."""
        return self.kind is None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (self.kind is other.kind and self.context == other.context
                and self.children == other.children)

    def __hash__(self) -> int:
        return hash((self.kind, self.context, self.children))

    def __repr__(self) -> str:
        if self.kind is None:
            return "*"
        kids = [repr(c) for c in self.children]
        if self.kind is tuple:
            return "(" + ", ".join(kids) + ("," if len(kids) == 1 else "") + ")"
        if self.kind is list:
            return "[" + ", ".join(kids) + "]"
        if self.kind in (dict, OrderedDict):
            if self.kind is dict:
                return "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(self.context, kids)) + "}"
            items = ", ".join(f"({k!r}, {c})" for k, c in zip(self.context, kids))
            return f"OrderedDict([{items}])"
        kind: Any = self.kind  # a namedtuple class
        fields = ", ".join(f"{f}={c}" for f, c in zip(kind._fields, kids))
        return f"{self.kind.__name__}({fields})"


LEAF = TreeSpec(None)


def _children(tree: Any):
    """(kind, context, children) of a container node, or None for a leaf."""
    t = type(tree)
    if t is tuple or t is list:
        return t, (), tuple(tree)
    if t is dict or t is OrderedDict:
        keys = tuple(tree.keys())
        return t, keys, tuple(tree[k] for k in keys)
    if _is_namedtuple(tree):
        return t, (), tuple(tree)
    return None


def tree_flatten(tree: Any) -> tuple[list[Any], TreeSpec]:
    """Flatten ``tree`` into its leaves (depth first, left to right) and its spec.

    Parameters
    ----------
    tree : Any
        Nested tuples, lists, dicts, OrderedDicts and namedtuples; anything else is a leaf.

    Returns
    -------
    (list, TreeSpec)
        The leaves and the structure; ``tree_unflatten(leaves, spec)`` rebuilds ``tree``.
        Source: ``torch.utils._pytree.tree_flatten``.
    """
    leaves: list[Any] = []

    def flat(node):
        c = _children(node)
        if c is None:
            leaves.append(node)
            return LEAF
        kind, context, kids = c
        return TreeSpec(kind, context, tuple(flat(k) for k in kids))

    spec = flat(tree)
    return leaves, spec


def tree_leaves(tree: Any) -> list[Any]:
    """The leaves of ``tree`` (see :func:`tree_flatten`)."""
    return tree_flatten(tree)[0]


def tree_unflatten(leaves: Any, spec: TreeSpec) -> Any:
    """Rebuild the pytree of structure ``spec`` from ``leaves``.

    Raises
    ------
    ValueError
        If the number of leaves is not ``spec.num_leaves``.
    """
    leaves = list(leaves)
    if len(leaves) != spec.num_leaves:
        raise ValueError(
            f"tree_unflatten: treespec {spec} expects {spec.num_leaves} leaves, got "
            f"{len(leaves)}")
    it = iter(leaves)

    def build(s):
        if s.kind is None:
            return next(it)
        kids = [build(c) for c in s.children]
        if s.kind is tuple or s.kind is list:
            return s.kind(kids)
        if s.kind is dict or s.kind is OrderedDict:
            return s.kind(zip(s.context, kids))
        return s.kind(*kids)  # a namedtuple

    return build(spec)


def tree_map(fn: Callable[..., Any], tree: Any, *rest: Any) -> Any:
    """Apply ``fn`` to every leaf of ``tree`` (and the matching leaves of ``rest``).

    Raises
    ------
    ValueError
        If a tree of ``rest`` does not have the structure of ``tree``.
    """
    leaves, spec = tree_flatten(tree)
    others = []
    for k, r in enumerate(rest):
        rl, rs = tree_flatten(r)
        if rs != spec:
            raise ValueError(
                f"tree_map: tree {k + 1} has structure {rs}, expected {spec} (that of the "
                f"first tree)")
        others.append(rl)
    return tree_unflatten([fn(*xs) for xs in zip(leaves, *others)], spec)
