"""``.terraform.lock.hcl``: OpenTofu's provider locks (as ``tofu init`` writes them) and
tofu-solve's module locks (``module "<call.path>" { version, source, constraints, hashes, package }``).

The names below are imported from their modules when first used (PEP 562), so that a part
of the package (the atomic writer, the file's name) costs only itself: the warm path's
hand-over (:mod:`tofu_solve.workdir.stamp`) needs no parser."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import exports

if TYPE_CHECKING:
    from .entries import LockChange, LockFile, ModuleLock, ProviderLock
    from .read import LOCK_FILE_NAME, Diagnostic, LockFileErrors, parse_lock_text, read_lock_file
    from .write import format_lock_file, format_module_lock, format_provider_lock, write_atomic, write_lock_file


__getattr__ = exports(__name__, globals(), {
    "LockChange": ".entries", "LockFile": ".entries", "ModuleLock": ".entries", "ProviderLock": ".entries",
    "LOCK_FILE_NAME": ".filename", "Diagnostic": ".read", "LockFileErrors": ".read", "parse_lock_text": ".read",
    "read_lock_file": ".read", "format_lock_file": ".write", "format_module_lock": ".write",
    "format_provider_lock": ".write", "write_atomic": ".replacefile", "write_lock_file": ".write",
})

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
