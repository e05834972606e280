"""Reading OpenTofu configuration: module calls, provider requirements and OpenTofu
version constraints of one module directory, each with file and line."""

from .file_selection import config_file_names
from .loader import load_module_dir
from .module_dir import CoreVersionRequirement, ModuleCall, ModuleConfig, RequiredProvider
from .variables import InputValue, collect_input_values

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
