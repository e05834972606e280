"""A package's exported names, imported from their modules when first used (PEP 562), so that
naming one part of a package costs only that part (the warm path's hand-over needs almost
nothing). One mechanism for every package that exports lazily."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any


def exports(package: str, namespace: MutableMapping[str, Any], where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module-level ``__getattr__`` for ``package``. ``where``: exported name -> the module
    it comes from, relative to ``package`` (``.model``) or absolute (``tofu_solve.errors``),
    with ``:attribute`` when the attribute has another name there (``.x:Version``). A value,
    once imported, is kept in ``namespace`` (the package's ``globals()``), so it is looked up
    once.

    Raises (from the returned function): AttributeError for a name ``where`` does not hold;
    ImportError as ``importlib.import_module`` raises it."""
    def __getattr__(name: str) -> Any:
        target = where.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = target.partition(":")
        value = getattr(importlib.import_module(module, package), attribute or name)
        namespace[name] = value
        return value
    return __getattr__


__all__ = ["exports"]
