"""Verify packages against the lock and install them where OpenTofu looks for them.

* :func:`package_hashes`: the lock's ``hashes`` for a package: ``h1:`` of the extracted
  package (Go dirhash Hash1, version-control directories excluded, as the module-locking
  RFC says) and ``zh:`` of the archive when there was one; the commit or digest the
  package was fetched at is the entry's ``package`` (issue #25).
* :func:`package_changed`: a version that now resolves to another immutable package.
* :func:`verify`: a package whose ``h1:`` is not among the lock's hashes stops init with the
  RFC's message ("Module checksum verification failed", Expected, Got, run ``-upgrade``).
* :func:`install`: ``.terraform/modules/<key>`` per call path and ``modules.json`` exactly as
  OpenTofu writes it (reference §7: compact JSON, records sorted by ``Key``, fields ``Key``,
  ``Source``, ``Version`` (registry modules only), ``Dir``), so a following ``tofu init``
  without ``-upgrade`` reuses exactly these modules.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .._lazy import load
from ..addrs.identifiers import valid_call_path
from ..addrs.module_source import RegistrySource, tofu_source
from ..config.file_selection import OWN_OVERRIDE_FILE
from ..config.tree import ModuleTree
from ..errors import IntegrityError, LockHashEdited, TofuSolveError
from ..lockfile import ModuleLock
from ..lockfile.hashes import VCS_DIRS, hash_dir
from ..lockfile.replacefile import replace_dir, write_atomic
from ..settings import Settings
from .stamp import HashMemo

if TYPE_CHECKING:  # kept out of the import path of `check`, which needs no network code
    from ..providers import Package
    from ..solver.model import ModuleCandidate
    from ..store.cache import Cache

MANIFEST = "modules.json"
NOT_HASHED = frozenset({OWN_OVERRIDE_FILE})  # tofu-solve's override bridge, written into installed copies


def copy_h1(path: Path, memo: HashMemo | None) -> str:
    """The ``h1:`` of a module directory as a lock records it (VCS folders and tofu-solve's
    own override file left out); ``memo``: hashes remembered by directory tree.

    Raises:
        HashError: the directory cannot be read."""
    def compute(p) -> str:
        return hash_dir(Path(p), exclude=VCS_DIRS, exclude_files=NOT_HASHED)
    return memo.h1(path, compute) if memo is not None else compute(path)



def package_hashes(cand: ModuleCandidate, pkg: Package, memo: HashMemo | None = None,
                   cache: Cache | None = None) -> tuple[str, ...]:
    """The hashes recorded for a selected package: its ``h1:`` and, when it came as an
    archive, the archive's ``zh:``. The commit or digest it was fetched at is its
    ``package`` (:attr:`~tofu_solve.providers.Package.pin`), not a hash. ``memo``: hashes
    remembered by directory tree (:class:`~tofu_solve.workdir.stamp.HashMemo`); ``cache``:
    the cache the package entry is in, whose ``h1:`` of an entry it published or checked
    this run is taken as it is (:meth:`~tofu_solve.store.cache.Cache.entry_h1`: the same
    files, read once per run). Raises HashError."""
    known = cache.entry_h1(pkg.root, NOT_HASHED) if cache is not None else None
    out = [known if known is not None else copy_h1(pkg.root, memo)]
    if pkg.zh:
        out.append(pkg.zh)  # the archive's bytes, for packages that came as an archive
    return tuple(out)


def package_changed(call_path: str, shown: str, expected: str, got: str | None, lock_file: str) -> IntegrityError:
    """The error for a version that now resolves to another immutable package than the
    lock file records (issue #25), in the shape of the module-locking RFC's checksum
    error: what was expected, what came, and how to accept it. ``shown``: the package and
    version as people name them; ``got`` None: the source now gives a floating package."""
    return IntegrityError(
        "Module package verification failed",
        f'Module "{call_path}" ({shown}) now resolves to a different package than {lock_file} records.\n'
        "This may indicate that its tag or registry version was moved, or tampered with.\n\n"
        f"Expected: {expected}\nGot:      {got or '(no immutable address: the source now gives a floating package)'}"
        "\n\nNothing was changed. If the new package is intended, review it, then accept it at the same "
        f"version with:\n  {accept_command(call_path)}")


def accept_command(name: str) -> str:
    """The command that accepts a package's new contents at its locked version and moves
    nothing (issue #60 §1): never ``-upgrade``, which may select a version nobody reviewed."""
    return f"tofu-solve init -accept-checksum={name}"


def verification_error(call_path: str, expected: list[str], got: str, place: str,
                       packages: tuple[str, str] | None = None) -> IntegrityError:
    """The checksum error of a module whose contents match none of its lock's ``h1:``
    hashes, in the module-locking RFC's shape; ``packages``: (the package the lock records,
    the package found), each a commit or digest address, shown beside the hashes."""
    exp = "\n          ".join(expected) if expected else "(none)"
    was, now = packages if packages is not None else ("", "")
    return IntegrityError(
        "Module checksum verification failed",
        f'Module "{call_path}" has a checksum that doesn\'t match the lock file ({place}).\n'
        "This may indicate the module has been modified or tampered with.\n\n"
        f"Expected: {exp}" + (f" (package {was})" if was else "") + f"\nGot:      {got}" +
        (f" (package {now})" if now else "") + "\n\n"
        "If the new checksum is intended, review the module, then accept it at the same version for this "
        f"call alone with:\n  {accept_command(call_path)}")


def hash_mismatch(call_path: str, lock: ModuleLock, package_h1: str | None, installed_h1: str | None,
                  recorded_h1s: tuple[str, ...], lock_file: str, where=None,
                  found_package: str | None = None) -> IntegrityError | None:
    """The one diagnosis of a module whose ``h1:`` hashes disagree, which ``init`` and
    ``check`` both give (issue #47 §6), found by comparing each hash with the package's own
    (``package_h1``: the package as fetched, or as the last init recorded it; None when
    neither is at hand):

    * the lock's ``h1:`` matches neither the package nor the installed copy, which agree
      with each other (or with the last init's record): the lock file was edited
      ("Lock file hash edited", at the block's line);
    * the lock and the installed copy agree, and the package does not: the package changed
      where it comes from, or in the cache ("Module checksum verification failed");
    * the lock and the package agree, and the installed copy does not: the copy was edited
      after installation ("Installed module copy changed": ``init`` reinstalls it);

    each with ``-accept-checksum=NAME`` for that one call as the way to accept a new hash
    after review, at the locked version (issue #60 §1: never ``-upgrade``, which may move the
    version). None when nothing disagrees. ``recorded_h1s``: the hashes the last init wrote
    for the call (:func:`tofu_solve.workdir.solved.recorded_module_locks`); ``where``: what
    to cite (default the block's line in ``lock_file``); ``found_package``: the package (a
    commit or digest address) the package's hash was taken of, shown beside the lock's."""
    load("tofu_solve.errors")
    from ..errors import SourceRange

    locked = [h for h in lock.hashes if h.startswith("h1:")]
    if not locked:
        return None
    at = where if where is not None else SourceRange(lock_file, lock.line) if lock.line else None
    genuine = package_h1 if package_h1 is not None else next((h for h in recorded_h1s if h == installed_h1), None)
    accept = ("If the new hash is intended, review the package, then accept it at the same version for this call "
              f"alone with:\n  {accept_command(call_path)}")
    shown = (f"\n\nLocked: {', '.join(locked)}" + (f" (package {lock.package})" if lock.package else "") +
             f"\nFound:  {package_h1}" + (f" (package {found_package})" if found_package else "")
             if package_h1 is not None else "")
    if genuine is not None and genuine not in locked and (installed_h1 == genuine or genuine in recorded_h1s):
        return LockHashEdited(
            "Lock file hash edited",
            f'The module "{call_path}" block of {lock_file} records {", ".join(locked)}, but the package it locks '
            f"hashes to {genuine}" + (", as does the installed copy" if installed_h1 == genuine else "") +
            ": the lock file was edited, not the package." + shown + "\n\n" + accept, at)
    if package_h1 is not None and package_h1 not in locked and installed_h1 in locked:
        return IntegrityError(
            "Module checksum verification failed",
            f'Module "{call_path}" now hashes to {package_h1}, but {lock_file} and the installed copy both record '
            f"{installed_h1}: the package changed where it comes from, or in the cache. This may indicate the "
            "module has been modified or tampered with." + shown + "\n\n" + accept, at)
    if installed_h1 is not None and installed_h1 not in locked and (package_h1 is None or package_h1 in locked):
        return IntegrityError(
            "Installed module copy changed",
            f'The installed copy of module "{call_path}" hashes to {installed_h1}, but {lock_file} records '
            f"{', '.join(locked)}" + (", as the package does" if package_h1 is not None else "") +
            ": it was changed after installation. tofu-solve init reinstalls it from the package verified against "
            "the lock (the lock file is the authority).", at)
    if package_h1 is not None and package_h1 not in locked:
        return verification_error(call_path, locked, package_h1, "the package", (lock.package, found_package or ""))
    return None


def verify(call_path: str, lock: ModuleLock, root: Path, place: str, actual: str | None = None,
           memo: HashMemo | None = None) -> str:
    """Check ``root`` against the lock's ``h1:`` hashes; returns the actual ``h1:``.
    ``actual``: its ``h1:`` when already computed this run (a package shared by calls);
    ``memo``: hashes remembered by directory tree (a copy unchanged since it was hashed is
    not read again).

    Raises:
        IntegrityError: no recorded ``h1:`` matches.
    """
    if actual is None:
        actual = copy_h1(root, memo)
    h1s = [h for h in lock.hashes if h.startswith("h1:")]
    if h1s and actual not in h1s:
        raise verification_error(call_path, h1s, actual, place)
    return actual


# --------------------------------------------------------------------------- modules.json


@dataclass(frozen=True)
class ManifestRecord:
    key: str
    source: str
    version: str
    dir: str

    def as_go(self) -> dict:
        d = {"Key": self.key, "Source": self.source}
        if self.version:
            d["Version"] = self.version
        d["Dir"] = self.dir
        return d


def manifest_json(records: list[ManifestRecord]) -> str:
    """``modules.json`` bytes as Go's ``json.Marshal`` writes them (compact, HTML-escaped,
    records sorted by key, no trailing newline)."""
    doc = {"Modules": [r.as_go() for r in sorted(records, key=lambda r: r.key.encode())]}
    text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def read_manifest(path: Path) -> dict[str, dict]:
    try:
        data = json.loads(path.read_text())
        return {m["Key"]: m for m in data.get("Modules", [])}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def data_dir(root: Path, tf_data_dir: str | None) -> Path:
    """The working directory's data directory: ``TF_DATA_DIR`` (relative to ``root`` unless
    absolute; :attr:`tofu_solve.settings.Settings.data_dir`), else ``root/.terraform``."""
    d = tf_data_dir
    return (root / d) if d and not os.path.isabs(d) else Path(d) if d else root / ".terraform"


def _copy_into(src: Path, dest: Path) -> None:
    """Replace ``dest`` with a copy of ``src`` (written beside it, then renamed), readable as
    tofu's own directories are (copytree kept the cache's 0700)."""
    replace_dir(dest, lambda tmp: shutil.copytree(src, tmp, dirs_exist_ok=True, symlinks=True), 0o755)


def inside(base: Path, key: str) -> Path:
    """``base/key`` for a module call path, refused unless ``key`` is a valid call path and
    the result stays inside ``base`` (defence in depth: names are validated when read).

    Raises:
        TofuSolveError: the key would leave ``base``.
    """
    dest = base / key
    if not valid_call_path(key) or not dest.resolve().is_relative_to(base.resolve()):
        raise TofuSolveError("Refused to write outside the working directory",
                             f'The module key "{key}" would be installed at {dest}, outside {base}.')
    return dest


def install(root: Path, settings: Settings, selected: dict[str, tuple[ModuleCandidate, Package, ModuleLock]],
            root_tree: ModuleTree, trees: dict[str, ModuleTree], reinstall: bool = False,
            replaced: list[str] | None = None, memo: HashMemo | None = None) -> Path:
    """Install every selected package and write ``modules.json``. Installed directories
    that already hold the locked version are verified, not copied again (``reinstall``
    copies every one afresh, as ``-upgrade`` does). The lock, not the working copy, is the
    authority: an installed directory that no longer matches the lock's ``h1:`` (edited or
    damaged after installation) is replaced by the package, which the caller has verified
    against the lock, and its call path added to ``replaced``.

    Raises:
        TofuSolveError: the directory cannot be written.
    """
    modules_dir = data_dir(root, settings.data_dir) / "modules"
    manifest_path = modules_dir / MANIFEST
    old = read_manifest(manifest_path)
    records = [ManifestRecord("", "", "", ".")]
    try:
        modules_dir.mkdir(parents=True, exist_ok=True)
        for path, (cand, pkg, lock) in sorted(selected.items()):
            dest = inside(modules_dir, path)
            version = cand.version.string if isinstance(cand.source, RegistrySource) and cand.version else ""
            # As OpenTofu writes it (``req.SourceAddr.String()``), so that ``tofu init`` reuses the
            # install; .terraform/ is local state, never committed. The lock holds the redacted form.
            source = tofu_source(cand.source, cand.version is not None, cand.available.label)
            prev = old.get(path)
            if not reinstall and prev and prev.get("Source") == source and prev.get("Version", "") == version \
                    and dest.is_dir():
                try:
                    verify(path, lock, dest, "installed", memo=memo)
                except IntegrityError:
                    if memo is not None:
                        memo.forget(dest)
                    _copy_into(pkg.root, dest)
                    if replaced is not None:
                        replaced.append(path)
            else:
                if memo is not None:
                    memo.forget(dest)
                _copy_into(pkg.root, dest)
            rel = os.path.relpath(dest, root).replace(os.sep, "/")
            records.append(ManifestRecord(path, source, version, f"{rel}/{pkg.subdir}" if pkg.subdir else rel))
        for lc in root_tree.local_calls:
            records.append(ManifestRecord(".".join(lc.path), str(lc.call.source), "", lc.dir or "."))
        for path, tree in trees.items():
            base = os.path.relpath(modules_dir / path, root).replace(os.sep, "/")
            cand, pkg, _ = selected[path]
            for lc in tree.local_calls:
                records.append(ManifestRecord(f"{path}." + ".".join(lc.path), str(lc.call.source), "",
                                              f"{base}/{lc.dir}" if lc.dir else base))
        keep = {r.key for r in records}
        for child in modules_dir.iterdir():
            if child.is_dir() and child.name not in keep and not child.name.startswith("."):
                shutil.rmtree(child, ignore_errors=True)
        text = manifest_json(records)
        try:
            unchanged = manifest_path.read_text(encoding="utf-8") == text
        except (OSError, UnicodeDecodeError):
            unchanged = False
        if not unchanged:  # a warm re-init rewrites nothing
            write_atomic(manifest_path, text)
    except OSError as e:
        raise TofuSolveError("Failed to install modules", f"{modules_dir}: {e.strerror or e}") from None
    return manifest_path
