"""Containers of Modules: ``Sequential``, ``ModuleList``, ``ModuleDict`` (PyTorch's)."""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import ItemsView, Iterable, KeysView, Mapping, ValuesView
from typing import Any

from .module import Module, _addindent

__all__ = ["Sequential", "ModuleList", "ModuleDict"]


def _abs_index(where: str, idx, n: int) -> int:
    idx = operator.index(idx)
    if not -n <= idx < n:
        raise IndexError(f"{where}: index {idx} is out of range for length {n}")
    return idx + n if idx < 0 else idx


class Sequential(Module):
    """Modules run in order, each one's output the next one's input.

    ``Sequential(m0, m1, ...)`` names them ``"0"``, ``"1"``, ...;
    ``Sequential(OrderedDict([("name", m), ...]))`` keeps the given names.

    Parameters
    ----------
    *args : Module or OrderedDict of str to Module
        The Modules, in order (named ``"0"``, ``"1"``, ...), or one ``OrderedDict`` naming them.

    Raises
    ------
    TypeError
        If an element is not a Module.
    """

    def __init__(self, *args: Module | OrderedDict[str, Module]) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, m in enumerate(args):
                self.add_module(str(idx), m)  # type: ignore[arg-type]  # a runtime TypeError

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        keys = list(self._modules)
        return self._modules[keys[_abs_index("Sequential.__getitem__", idx, len(keys))]]

    def __setitem__(self, idx, module) -> None:
        keys = list(self._modules)
        self.add_module(keys[_abs_index("Sequential.__setitem__", idx, len(keys))], module)

    def __delitem__(self, idx) -> None:
        keys = list(self._modules)
        if isinstance(idx, slice):
            for key in keys[idx]:
                del self._modules[key]
        else:
            del self._modules[keys[_abs_index("Sequential.__delitem__", idx, len(keys))]]
        # PyTorch renumbers so that the names stay 0..n-1.
        self._renumber()

    def _renumber(self) -> None:
        values = list(self._modules.values())
        keys = list(self._modules)
        if all(k.isdigit() for k in keys):
            self._modules.clear()
            self._modules.update((str(i), m) for i, m in enumerate(values))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(
                f"Sequential.__add__: expected a Sequential, got {type(other).__name__}")
        return Sequential(*self, *other)

    def append(self, module: Module) -> Sequential:
        """Add ``module`` at the end; returns self.

        Parameters
        ----------
        module : Module
            The Module to add at the end.

        Returns
        -------
        Sequential
            This Sequential.
        """
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> Sequential:
        """Append every Module of ``modules``; returns self.

        Parameters
        ----------
        modules : Iterable[Module]
            The Modules to add.

        Returns
        -------
        Sequential
            This Sequential.
        """
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Insert ``module`` before position ``index``; returns self.

        Parameters
        ----------
        index : int
            The position (negative counts from the end).
        module : Module
            The Module to insert.

        Returns
        -------
        Sequential
            This Sequential.

        Raises
        ------
        AssertionError
            If ``module`` is not a Module (PyTorch's error type).
        IndexError
            If ``index`` is out of range.
        """
        if not isinstance(module, Module):
            raise AssertionError(
                f"Sequential.insert: expected a Module, got {type(module).__name__}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Sequential.insert: index {index} is out of range for length {n}")
        if index < 0:
            index += n
        values = list(self._modules.values())
        values.insert(index, module)
        self._modules.clear()
        self._modules.update((str(i), m) for i, m in enumerate(values))
        return self

    def pop(self, index: int | slice) -> Module:
        """Remove and return the Module at ``index``.

        Parameters
        ----------
        index : int or slice
            The position or a slice.

        Returns
        -------
        Module
            The removed Module.
        """
        v = self[index]
        del self[index]
        return v

    def forward(self, input: Any) -> Any:
        """Call each Module in order on the output of the previous one.

        Parameters
        ----------
        input : Any
            The first Module's input (usually a Tensor).

        Returns
        -------
        Any
            The last Module's output (``input`` itself when the Sequential is empty).
        """
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of Modules, registered as sub-Modules named ``"0"``, ``"1"``, ...

    Parameters
    ----------
    modules : iterable of Module, optional
        The initial Modules.

    Raises
    ------
    TypeError
        If an element is not a Module.
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_abs_index("ModuleList.__getitem__", idx, len(self)))]

    def __setitem__(self, idx, module) -> None:
        self.add_module(str(_abs_index("ModuleList.__setitem__", idx, len(self))), module)

    def __delitem__(self, idx) -> None:
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                del self._modules[str(k)]
        else:
            del self._modules[str(_abs_index("ModuleList.__delitem__", idx, len(self)))]
        values = list(self._modules.values())
        self._modules.clear()
        self._modules.update((str(i), m) for i, m in enumerate(values))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        combined = ModuleList()
        for m in self:
            combined.append(m)
        for m in other:
            combined.append(m)
        return combined

    def insert(self, index: int, module: Module) -> None:
        """Insert ``module`` before position ``index``.

        Parameters
        ----------
        index : int
            The position (negative counts from the end).
        module : Module
            The Module to insert.
        """
        values = list(self._modules.values())
        values.insert(index, module)
        if not isinstance(module, Module):
            raise TypeError(
                f"ModuleList.insert: {type(module).__name__} is not a Module subclass")
        self._modules.clear()
        self._modules.update((str(i), m) for i, m in enumerate(values))

    def append(self, module: Module) -> ModuleList:
        """Add ``module`` at the end; returns self.

        Parameters
        ----------
        module : Module
            The Module to add at the end.

        Returns
        -------
        ModuleList
            This ModuleList.
        """
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Append every Module of the iterable ``modules``; returns self.

        Parameters
        ----------
        modules : Iterable[Module]
            The Modules to add.

        Returns
        -------
        ModuleList
            This ModuleList.

        Raises
        ------
        TypeError
            If ``modules`` is not iterable.
        """
        try:
            it = iter(modules)
        except TypeError:
            raise TypeError(
                f"ModuleList.extend: expected an iterable of Modules, got "
                f"{type(modules).__name__}") from None
        for m in it:
            self.append(m)
        return self

    def pop(self, key: int | slice = -1) -> Module:
        """Remove and return the Module at ``key``.

        Parameters
        ----------
        key : int or slice, default -1
            The position or a slice (default: the last).

        Returns
        -------
        Module
            The removed Module.
        """
        v = self[key]
        del self[key]
        return v

    def __repr__(self) -> str:
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        ranges = [[0, 0]]
        blocks = [reprs[0]]
        for i, r in enumerate(reprs[1:], 1):
            if r == blocks[-1]:
                ranges[-1][1] += 1
                continue
            ranges.append([i, i])
            blocks.append(r)
        lines = []
        for (start, end), b in zip(ranges, blocks, strict=True):
            local = f"({start}): {b}" if start == end else \
                f"({start}-{end}): {end - start + 1} x {b}"
            lines.append(_addindent(local, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "ModuleList.forward: a ModuleList is not callable; iterate over it instead")


class ModuleDict(Module):
    """A dict of Modules (insertion order), registered as sub-Modules by key.

    Parameters
    ----------
    modules : mapping or iterable of (str, Module), optional
        The initial items.

    Raises
    ------
    TypeError
        If a value is not a Module, or ``modules`` is neither a mapping nor an
        iterable of ``(key, module)`` pairs.
    """

    def __init__(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]] | None = None
                 ) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Remove every item."""
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Remove and return the Module under ``key``.

        Parameters
        ----------
        key : str
            The key.

        Returns
        -------
        Module
            The removed Module.
        """
        v = self[key]
        del self[key]
        return v

    def keys(self) -> KeysView[str]:
        """The keys, in insertion order.

        Returns
        -------
        KeysView of str
            The keys, in insertion order.
        """
        return self._modules.keys()

    def items(self) -> ItemsView[str, Module]:
        """``(key, module)`` pairs, in insertion order.

        Returns
        -------
        ItemsView of (str, Module)
            The pairs, in insertion order.
        """
        return self._modules.items()

    def values(self) -> ValuesView[Module]:
        """The Modules, in insertion order.

        Returns
        -------
        ValuesView of Module
            The Modules, in insertion order.
        """
        return self._modules.values()

    def update(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]]) -> None:
        """Add or replace items from a mapping or an iterable of ``(key, module)`` pairs.

        Parameters
        ----------
        modules : Mapping[str, Module] or Iterable[tuple[str, Module]]
            A mapping, or an iterable of ``(key, module)`` pairs.

        Raises
        ------
        TypeError
            If ``modules`` is not iterable, or an element is not a pair.
        ValueError
            If an element has a length other than 2.
        """
        if isinstance(modules, Mapping):
            for key, module in modules.items():
                self[key] = module
            return
        try:
            it = iter(modules)
        except TypeError:
            raise TypeError(
                f"ModuleDict.update: expected a mapping or an iterable of (key, module) "
                f"pairs, got {type(modules).__name__}") from None
        for j, m in enumerate(it):
            if isinstance(m, (str, bytes)) or not hasattr(m, "__len__"):
                raise TypeError(
                    f"ModuleDict.update: element #{j} should be a (key, module) pair, got "
                    f"{type(m).__name__}")
            if len(m) != 2:
                raise ValueError(
                    f"ModuleDict.update: element #{j} should have length 2, got {len(m)}")
            self[m[0]] = m[1]

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "ModuleDict.forward: a ModuleDict is not callable; index it instead")
