"""Imports that happen after start-up: one guard for all of them, and a package's exported
names imported from their modules when first used (PEP 562), so that naming one part of a
package costs only that part (the warm path's hand-over needs almost nothing).

Why one guard (issue #68): CPython takes a module's import lock *before* it imports the
module's parent (``importlib._bootstrap._find_and_load`` then ``_find_and_load_unlocked``).
Two threads importing one package for the first time through different modules of it
(``requests`` and ``requests.adapters``, ``urllib3`` and ``urllib3.util.retry``, ``lark``
and ``lark.exceptions``) can therefore each hold a lock the other waits for; CPython breaks
that deadlock by handing one of them the partially initialised module, and the import fails
with "cannot import name ... from partially initialized module". :func:`load` takes one
process-wide reentrant lock around every import made after start-up, so one package is
always imported whole by one thread before another thread touches it; and every thread
tofu-solve starts (``tofu_solve._threads``) imports what it needs through it before it
starts."""

from __future__ import annotations

import importlib
import importlib.util
import threading
from collections.abc import Callable, Mapping, MutableMapping
from types import ModuleType
from typing import Any

_IMPORTS = threading.RLock()
"""The one lock every import after start-up takes (reentrant: an import inside an import)."""


def load(name: str) -> ModuleType:
    """The module ``name`` (absolute), imported under the process's one import guard.

    A module imported whole already is returned from ``sys.modules`` by
    :func:`importlib.import_module` without any import lock of CPython's, so the guard costs
    one uncontended lock round trip (well under a microsecond) once a module is loaded.

    Raises: ImportError (ModuleNotFoundError) as :func:`importlib.import_module` raises it."""
    with _IMPORTS:
        return importlib.import_module(name)


def holding_guard() -> bool:
    """True on a thread inside :func:`load` (the import tracer of the tests asks this)."""
    return _IMPORTS._is_owned()  # type: ignore[attr-defined]  # RLock's own test of ownership


def exports(package: str, namespace: MutableMapping[str, Any], where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module-level ``__getattr__`` for ``package``. ``where``: exported name -> the module
    it comes from, relative to ``package`` (``.model``) or absolute (``tofu_solve.errors``),
    with ``:attribute`` when the attribute has another name there (``.x:Version``). A value,
    once imported (through :func:`load`'s guard), is kept in ``namespace`` (the package's
    ``globals()``), so it is looked up once.

    Raises (from the returned function): AttributeError for a name ``where`` does not hold;
    ImportError as ``importlib.import_module`` raises it."""
    def __getattr__(name: str) -> Any:
        target = where.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = target.partition(":")
        absolute = importlib.util.resolve_name(module, package)
        value = getattr(load(absolute), attribute or name)
        namespace[name] = value
        return value
    return __getattr__


__all__ = ["exports", "holding_guard", "load"]
