"""Reading OpenTofu configuration: module calls, provider requirements and OpenTofu
version constraints of one module directory, each with file and line.

The names below are imported when first used (PEP 562), so that a stage that needs only a
part of this package (the CLI configuration, for the warm path's hand-over) does not import
the configuration loader with it (issue #81 §6)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .file_selection import config_file_names
    from .loader import load_module_dir
    from .module_dir import CoreVersionRequirement, ModuleCall, ModuleConfig, RequiredProvider
    from .variables import InputValue, collect_input_values

_HOMES = {
    "config_file_names": ".file_selection",
    "load_module_dir": ".loader",
    "CoreVersionRequirement": ".module_dir",
    "ModuleCall": ".module_dir",
    "ModuleConfig": ".module_dir",
    "RequiredProvider": ".module_dir",
    "InputValue": ".variables",
    "collect_input_values": ".variables",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value
    return value


__all__ = [
           "CoreVersionRequirement",
           "InputValue",
           "ModuleCall",
           "ModuleConfig",
           "RequiredProvider",
           "collect_input_values",
           "config_file_names",
           "load_module_dir",
]
