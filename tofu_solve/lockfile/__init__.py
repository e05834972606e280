"""``.terraform.lock.hcl``: OpenTofu's provider locks (as ``tofu init`` writes them) and
tofu-solve's module locks (``module "<call.path>" { version, source, constraints, hashes, package }``)."""

from .model import LockChange, LockFile, ModuleLock, ProviderLock
from .read import (
    LOCK_FILE_NAME,
    Diagnostic,
    LockFileErrors,
    parse_lock_text,
    read_lock_file,
)
from .write import (
    format_lock_file,
    format_module_lock,
    format_provider_lock,
    write_atomic,
    write_lock_file,
)

__all__ = [
    "LOCK_FILE_NAME",
    "Diagnostic",
    "LockChange",
    "LockFile",
    "LockFileErrors",
    "ModuleLock",
    "ProviderLock",
    "format_lock_file",
    "format_module_lock",
    "format_provider_lock",
    "parse_lock_text",
    "read_lock_file",
    "write_atomic",
    "write_lock_file",
]
