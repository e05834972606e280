"""The lock file's name (``internal/depsfile``'s ``LockFilePath``), apart from the parser so
that naming it costs nothing."""

LOCK_FILE_NAME = ".terraform.lock.hcl"

__all__ = ["LOCK_FILE_NAME"]
