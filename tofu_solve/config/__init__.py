"""Reading OpenTofu configuration: module calls, provider requirements and OpenTofu
version constraints of one module directory, each with file and line."""

from .loader import config_file_names, load_module_dir
from .model import CoreVersionRequirement, ModuleCall, ModuleConfig, RequiredProvider
from .variables import InputValue, collect_input_values

__all__ = ["CoreVersionRequirement", "InputValue", "collect_input_values", "ModuleCall", "ModuleConfig", "RequiredProvider",
           "config_file_names", "load_module_dir"]
