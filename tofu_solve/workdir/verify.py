"""Package verification, beside installation (issue #51 §2): every selected module
package fetched (or found in the cache), hashed, checked against its lock entry when the
lock holds the same version, and refused when it resolves to another immutable package
than the lock records; the lock entry each call gets; and the one diagnosis of a hash that
disagrees (:func:`~.install.hash_mismatch`, which ``check`` gives too)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..addrs.immutable import package_identity
from ..addrs.module_source import RegistrySource, lock_source
from ..errors import TofuSolveError
from ..lockfile import LOCK_FILE_NAME, LockFile, ModuleLock
from ..lockfile.entries import content_hashes
from ..settings import Settings
from ..solver.model import ModuleCandidate
from .install import (
    MANIFEST,
    copy_h1,
    data_dir,
    hash_mismatch,
    package_changed,
    package_hashes,
    read_manifest,
    verification_error,
    verify,
)
from .solved import recorded_module_locks
from .stamp import HashMemo

if TYPE_CHECKING:
    from ..solver.resolve import Resolution
    from ..solver.wiring import Wiring


def module_lock_for(path: str, cand: ModuleCandidate, res: Resolution, hashes: tuple[str, ...] = (),
                    pin: str | None = None) -> ModuleLock:
    """The lock entry for a selected call (its source redacted: credentials never reach the
    lock file), pinned to ``pin`` (the package's immutable address, already redacted), or
    floating when there is none."""
    req = res.module_requirements[path]
    source = lock_source(cand.source, req.constraint is not None, cand.available.label)
    return ModuleLock(path, cand.version_text, source, req.constraint.text if req.constraint else "", hashes,
                      pin or "", pin is None)


@dataclass(frozen=True)
class AcceptedChecksum:
    """A package whose new contents ``-accept-checksum`` accepted at its locked version
    (issue #60 §1): the call path, the version, and the lock's ``h1:`` hashes and package
    before and after (a package is a commit or digest address, "" for none)."""

    path: str
    version: str
    old_h1: tuple[str, ...]
    old_package: str
    new_h1: tuple[str, ...]
    new_package: str

    @property
    def changed(self) -> bool:
        """Whether anything the lock records moved (accepting what already matches changes nothing)."""
        return set(self.old_h1) != set(self.new_h1) or self.old_package != self.new_package


def verify_packages(res: Resolution, locks: LockFile, wired: Wiring, upgrade: bool, readonly: bool = False,
                    moves: dict[str, tuple[str, str]] | None = None, memo: HashMemo | None = None,
                    diagnose: Callable[[str, ModuleLock, str, str], TofuSolveError] | None = None,
                    accept: frozenset[str] = frozenset(), accepted: list[AcceptedChecksum] | None = None,
                    merged: frozenset[str] = frozenset(), dropped: dict[str, tuple[str, ...]] | None = None,
                    recorded: LockFile | None = None):
    """Fetch (or find in the cache) every selected package, hash it, and check it against
    the lock when the lock holds the same version (not with ``-upgrade``, which records the
    new checksums). Returns (call path -> (candidate,
    package, new lock entry), call path -> tree, call paths verified). ``moves`` gets the
    locked packages found at another location with the same identity (call path -> (locked
    address, new address)); with ``readonly`` their entries keep the locked address.
    ``diagnose``: the error for a package whose ``h1:`` the lock does not record (call path,
    lock entry, the package's ``h1:``, the package found), telling which of lock, copy and
    package changed. ``accept``: call paths whose new contents are accepted at their locked
    version (``-accept-checksum``): their package is hashed afresh and recorded in place of
    the lock's, each appended to ``accepted``; the caller has made sure the version stays.
    ``merged``: call paths whose block a lock merge conflict formed from both sides' hashes
    (issue #67 §5): verified as any lock, then only the hashes of the package verified here
    are kept; the others go to ``dropped`` (call path -> hashes). ``recorded``: the lock file as
    read, when ``locks`` left some calls out (``-upgrade=NAME``): a version they land on again
    must still be the package it records, as with ``-upgrade`` (issue #67 §5)."""
    selected, trees, verified = {}, {}, []
    moves = {} if moves is None else moves
    source = recorded if recorded is not None else locks
    pinned = _pinned_selections(LockFile(source.providers, {p: m for p, m in source.modules.items()
                                                            if p not in accept}))
    paths = sorted(res.modules)
    for path in paths:  # start the downloads together
        wired.pool.submit(_quiet, wired.index.fetch, res.modules[path])
    hashed: dict[tuple, tuple[str, ...]] = {}  # a package many calls share is hashed once
    for path in paths:
        cand = res.modules[path]
        pkg = wired.index.fetch(cand)
        hashes = hashed.get((pkg.root, pkg.zh))
        if hashes is None:
            hashes = hashed[(pkg.root, pkg.zh)] = package_hashes(cand, pkg, memo, wired.cache)
        new = module_lock_for(path, cand, res, hashes, pkg.pin)
        old = locks.modules.get(path)
        if path in accept and old is not None and old.version == new.version:
            if accepted is not None:
                accepted.append(AcceptedChecksum(path, old.version, tuple(h for h in old.hashes if h.startswith("h1:")),
                                                 old.package, tuple(h for h in hashes if h.startswith("h1:")),
                                                 new.package))
            selected[path] = (cand, pkg, new)  # the new contents' hashes only: the old ones no longer hold
            tree = wired.context.tree(cand)
            if not isinstance(tree, TofuSolveError):
                trees[path] = tree
            continue
        moved_from = _check_package(path, cand, new, source, pinned)
        if moved_from is not None:
            moves[path] = (moved_from, new.package)
            if readonly:
                new = replace(new, package=moved_from)  # recorded by the next writable init
        if not upgrade and old is not None and (old.version, old.source) == (new.version, new.source) \
                and old.hashes:
            if diagnose is not None and hashes[0] not in old.hashes and any(h.startswith("h1:") for h in old.hashes):
                # which of lock, copy and package changed (issue #47 §6)
                raise diagnose(path, old, hashes[0], new.package)
            verify(path, old, pkg.root, f"cached copy in {pkg.root}", actual=hashes[0])
            kept, gone = hashes_kept(old, hashes, path in merged)
            if gone and dropped is not None:
                dropped[path] = gone
            new = replace(new, hashes=kept)
            verified.append(path)
        selected[path] = (cand, pkg, new)
        tree = wired.context.tree(cand)
        if not isinstance(tree, TofuSolveError):
            trees[path] = tree
    return selected, trees, verified


def hashes_kept(old: ModuleLock, verified: Sequence[str], merged: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The hashes a module block records once its package is verified against it, and the
    ones it drops: ``verified`` (the package's hashes, verified here against ``old``). A
    block a lock merge conflict formed from both sides' hashes (``merged``; issue #67 §5)
    keeps only ``verified``: a hash only the other side recorded was never verified here, and
    is dropped. Any other block keeps what it recorded, with ``verified`` added (the union,
    as ``tofu init`` keeps a provider block's hashes)."""
    if merged:
        return tuple(verified), tuple(sorted(set(content_hashes(old)) - set(verified)))
    return tuple(set(content_hashes(old)) | set(verified)), ()


def hash_diagnosis(root: Path, settings: Settings, memo: HashMemo) -> Callable[[str, ModuleLock, str, str],
                                                                                TofuSolveError]:
    """What ``init`` says of a package whose ``h1:`` its lock does not record: the one
    diagnosis ``check`` gives too (:func:`~tofu_solve.workdir.install.hash_mismatch`), from
    the installed copy (when modules.json records it at the locked version) and the hashes
    the last init recorded."""
    def diagnose(path: str, lock: ModuleLock, package_h1: str, found_package: str = "") -> TofuSolveError:
        modules_dir = data_dir(root, settings.data_dir) / "modules"
        record = read_manifest(modules_dir / MANIFEST).get(path)
        installed = None
        if record is not None and (modules_dir / path).is_dir():
            try:
                installed = copy_h1(modules_dir / path, memo)
            except TofuSolveError:
                installed = None
        recorded = recorded_module_locks(root, settings).get(path)
        found = hash_mismatch(path, lock, package_h1, installed, recorded.hashes if recorded else (), LOCK_FILE_NAME,
                              found_package=found_package or None)
        return found if found is not None else verification_error(
            path, [h for h in lock.hashes if h.startswith("h1:")], package_h1, "the package",
            (lock.package, found_package))
    return diagnose


def _pinned_selections(locks: LockFile) -> dict[tuple[str, str], list[ModuleLock]]:
    """The lock's entries that record a package, by (version, source), in call path order."""
    out: dict[tuple[str, str], list[ModuleLock]] = {}
    for _, m in sorted(locks.modules.items()):
        if m.package:
            out.setdefault((m.version, m.source), []).append(m)
    return out


def _check_package(path: str, cand: ModuleCandidate, new: ModuleLock, locks: LockFile,
                   pinned: dict[tuple[str, str], list[ModuleLock]]) -> str | None:
    """Refuse a version that now resolves to another immutable package than the lock file
    records for it (issue #25): the call's own entry first, then any other call locked at
    the same source and version (a new call to a locked package); ``-upgrade=NAME`` and
    ``-upgrade`` alike (issue #67 §5: a re-published tag is refused, never recorded quietly).
    A package is its identity, not its address (issue #34): the same commit, digest or
    checksum found at another location is accepted; the locked address is returned then
    (None otherwise), so that the caller can note the move.

    Raises:
        IntegrityError: :func:`~tofu_solve.workdir.install.package_changed`.
    """
    same = pinned.get((new.version, new.source), [])  # (:func:`_pinned_selections`)
    own = locks.modules.get(path)
    moved_from = None
    for old in ([own] if own in same else []) + [m for m in same if m.path != path]:
        if old.package != new.package:
            identity = package_identity(old.package)
            if identity is not None and new.package and identity == package_identity(new.package):
                moved_from = moved_from or old.package
                continue
            shown = cand.source.package.for_display if isinstance(cand.source, RegistrySource) else new.source
            raise package_changed(old.path, f"{shown} {new.version}" if new.version else shown, old.package,
                                  new.package or None, LOCK_FILE_NAME)
    return moved_from




def _quiet(fn, *args):
    try:
        fn(*args)
    except Exception:
        pass


# --------------------------------------------------------------------------- the command


__all__ = ["AcceptedChecksum", "hash_diagnosis", "module_lock_for", "verify_packages"]
