"""The lock file as ``init`` starts from it (split from ``command/init.py`` in issue #71 §2):
the file itself, or, with Git merge-conflict markers, what its two sides merge to (issue
#60 §2); Terraform's provider locks carried over to OpenTofu's registry; and the module
blocks another tool dropped, restored from what the last init recorded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..lockfile import LOCK_FILE_NAME, LockFile, ModuleLock, read_lock_file
from ..lockfile.merge_conflict import MergedLock, conflicted_error
from ..lockfile.read import read_conflicted_lock_file
from ..settings import Settings
from .solved import recorded_module_locks


@dataclass(frozen=True)
class StartingLocks:
    """The lock file as ``init`` starts from it.

    Attributes:
        path: ``.terraform.lock.hcl`` of the root.
        locks: what the solve honours: the file, Terraform's provider locks carried over to
            OpenTofu's registry, and module blocks the file lost restored.
        on_disk: the file's own module blocks (lock changes are reported against them).
        lost: module blocks the last init recorded that another tool dropped from the file.
        merged: the file had Git merge-conflict markers: how its sides were merged (the
            solve starts from ``merged.locks``), None otherwise (issue #60 §2).
    """

    path: Path
    locks: LockFile
    on_disk: dict[str, ModuleLock]
    lost: dict[str, ModuleLock]
    merged: MergedLock | None = None


def read_starting_locks(root: Path, settings: Settings, *, terraform: bool, upgrade: bool,
                        readonly: bool) -> StartingLocks:
    """Read the root's lock file for a solve whose target is Terraform (``terraform``) or
    OpenTofu; ``upgrade`` restores nothing; ``readonly`` (``-lockfile=readonly``) never
    resolves merge conflicts.

    Raises:
        LockFileError: an unreadable or invalid file; "Lock file has merge conflicts" under
            ``readonly``.
    """
    path = root / LOCK_FILE_NAME
    merged = read_conflicted_lock_file(path)
    if merged is not None and readonly:
        raise conflicted_error(LOCK_FILE_NAME, merged, "tofu-solve init -lockfile=readonly")
    locks = merged.locks if merged is not None else read_lock_file(path)
    if not terraform:
        # As tofu init reads a lock written by Terraform: registry.terraform.io/hashicorp/* locks
        # stand for registry.opentofu.org/hashicorp/* (versions kept, hashes not); the old blocks
        # then go, as the configuration no longer requires them (depsfile/locks.go).
        locks.upgrade_from_predecessor()
    lost = {} if upgrade else {p: m for p, m in recorded_module_locks(root, settings).items()
                               if p not in locks.modules}
    on_disk = locks.modules
    if lost:
        # Another tool rewrote the lock file without tofu-solve's module blocks: the selections
        # the last init recorded are kept as if locked, and written back.
        locks = locks.with_modules({**lost, **locks.modules})
    return StartingLocks(path, locks, on_disk, lost, merged)
