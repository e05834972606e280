"""``tofu-solve store push`` and ``tofu-solve store verify`` (issues #49, #57): fill the
package store from lock files without installing anything, and check that every package the
lock files name would install from it, so that an air-gapped environment can be prepared
once and its CI run with every origin blocked."""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .._lazy import load
from ..errors import ConfigurationError, NetworkError, OfflineError, RegistryError, TofuSolveError
from ..lockfile import LOCK_FILE_NAME, LockFile, read_lock_file
from ..lockfile.entries import ModuleLock, ProviderLock
from ..output_edge import json_safe
from ..plugins import current_platform, parse_platform
from ..remote.package_store.address import PUSH_VARIABLE, STORE_VARIABLE, StoreAddress, store_setting
from ..remote.package_store.keys import ModuleKey, ProviderKey, module_key
from ..remote.package_store.ledger import PackageOutcome, StoreOutcome, StoreReport
from ..remote.package_store.store import PackageStore, open_store
from ..settings import Settings
from .views.store_view import outcome_lines, report_data, store_warnings

PUSH_DEADLINE = 1800.0
"""Seconds ``store push`` waits for its pushes at most (it exists to push)."""


@dataclass
class StoreRun:
    """What ``store push`` or ``store verify`` found.

    Attributes:
        lock_files: the lock files read.
        packages: one outcome per package (module package, or provider package per platform),
            in the order the lock files name them.
        report: the store's own report (pushed, rejected, unrepaired, down).
    """

    lock_files: list[str] = field(default_factory=list)
    packages: list[PackageOutcome] = field(default_factory=list)
    report: StoreReport = field(default_factory=StoreReport)

    @property
    def complete(self) -> bool:
        """Whether every package the lock files name is in the store (exit 0)."""
        return all(p.outcome in (StoreOutcome.VERIFIED, StoreOutcome.COMPLETE, StoreOutcome.PUSHED)
                   for p in self.packages)


def _lock_files(roots: list[Path]) -> list[tuple[Path, LockFile]]:
    """The lock files of ``roots``. Raises ConfigurationError (none), LockFileError."""
    locks = [(root / LOCK_FILE_NAME, read_lock_file(root / LOCK_FILE_NAME)) for root in roots
             if (root / LOCK_FILE_NAME).is_file()]
    if not locks:
        raise ConfigurationError("No lock file", f"There is no {LOCK_FILE_NAME} in {', '.join(map(str, roots))}: run "
                                 "tofu-solve init first, and commit the lock file.")
    return locks


def _module_packages(locks: list[tuple[Path, LockFile]]) -> Iterator[tuple[ModuleKey, ModuleLock, Path]]:
    """Each module package the lock files name once, by its store key (packages with no
    identity, or no ``h1:``, have no place in the store)."""
    done: set[ModuleKey] = set()
    for lock_path, lock_file in locks:
        for lock in lock_file.modules.values():
            key = module_key(lock.package) if lock.package else None
            if key is None or key in done or not any(h.startswith("h1:") for h in lock.hashes):
                continue
            done.add(key)
            yield key, lock, lock_path


def _provider_versions(locks: list[tuple[Path, LockFile]]) -> Iterator[tuple[ProviderKey, ProviderLock]]:
    """Each provider version the lock files name once."""
    done: set[ProviderKey] = set()
    for _, lock_file in locks:
        for provider in lock_file.providers.values():
            a = provider.address
            key = ProviderKey(a.host, a.namespace, a.type, provider.version)
            if key not in done and provider.hashes:
                done.add(key)
                yield key, provider


def _open(address: StoreAddress, settings: Settings, pushing: bool):
    """The store and the clients a ``store`` action needs. Raises ConfigurationError."""
    load("tofu_solve.plugins")
    from ..plugins import ProviderPackages
    load("tofu_solve.remote.fetch")
    from ..remote.fetch import Fetcher
    load("tofu_solve.remote.git")
    from ..remote.git import GitRemotes
    load("tofu_solve.remote.registry")
    from ..remote.registry import open_client

    client = open_client(settings)
    env = dict(settings.environ) if pushing else {**settings.environ, PUSH_VARIABLE: "false"}
    store = open_store(address, env, settings.limits, client.counter, configured=client.cli_config.oci_credentials)
    if store is None or (pushing and store.report.read_only):
        raise ConfigurationError("Pushing is turned off", f"{PUSH_VARIABLE}=false: store push has nothing to do.")
    remotes = GitRemotes(client.cache, client.counter, limits=settings.limits, environ=settings.environ)
    fetcher = Fetcher(client.cache, remotes, client.session, client.counter, limits=settings.limits)
    return store, fetcher, ProviderPackages(client, fetcher, client.cache, client.counter)


def push_from_locks(roots: list[Path], address: StoreAddress, settings: Settings,
                    platforms: tuple[str, ...] = ()) -> StoreRun:
    """Fill the store from the lock files of ``roots`` so that it holds every package they
    name, whatever the local cache holds: each module package is read from the store and
    verified against its lock's ``h1:`` (a module package is small), and pushed when it is
    missing or fails (from the cache when it is verified there, else from its origin); each
    provider package of every platform whose ``zh:`` the lock records (``platforms``
    narrows it) is checked in the store (OpenTofu's format, the zip's digest one of the
    lock's ``zh:``, the blob there at its size) and pushed from its registry when it is not
    there (a partial index is completed). Nothing is installed.

    Returns one outcome per package: COMPLETE, PUSHED, MISSING (its origin could not give
    it) or REJECTED (a corrupt blob only a deletion clears). Raises ConfigurationError (no
    lock file, or pushing turned off) and LockFileError.
    """
    load("tofu_solve.addrs.immutable")
    from ..addrs.immutable import pinned_reference
    load("tofu_solve.addrs.module_source")
    from ..addrs.module_source import source_dir_subdir
    load("tofu_solve.lockfile.hashes")
    from ..lockfile.hashes import VCS_DIRS, hash_dir

    run = StoreRun()
    locks = _lock_files(roots)
    run.lock_files = [str(p) for p, _ in locks]
    store, fetcher, packages = _open(address, settings, pushing=True)
    pending: list[PackageOutcome] = []  # pushed in the background: the outcome is known at the end
    with tempfile.TemporaryDirectory(prefix="tofu-solve-store-") as scratch:
        for key, lock, lock_path in _module_packages(locks):
            h1s = tuple(h for h in lock.hashes if h.startswith("h1:"))
            store.ledger.expect_module(key, lock.hashes, lock.version, lock.path)
            found = store.verifier.check_module(key, h1s, Path(scratch))
            if found.outcome is StoreOutcome.VERIFIED:
                run.packages.append(PackageOutcome(found.package, StoreOutcome.COMPLETE))
                continue
            try:
                fetched = fetcher.fetch(source_dir_subdir(lock.package)[0], commit=pinned_reference(lock.package))
                got = hash_dir(fetched.path, exclude=VCS_DIRS)
            except (NetworkError, RegistryError, OfflineError) as e:
                run.packages.append(PackageOutcome(found.package, StoreOutcome.MISSING,
                                                   f"{found.reason}; its origin failed: {e.summary}: {e.detail}"))
                continue
            if got not in h1s:
                run.packages.append(PackageOutcome(found.package, StoreOutcome.MISSING,
                                                   f"{found.reason}; its origin's contents hash to {got}, but "
                                                   f"{lock_path} line {lock.line} records {', '.join(h1s)}"))
                continue
            store.pusher.push_module(key, fetched.path, got, lock.version)
            pending.append(found)
    for pkey, provider in _provider_versions(locks):
        a = provider.address
        store.ledger.expect_provider(pkey, provider.hashes)
        if not packages.from_registry(a, provider.version):
            continue  # the CLI configuration installs it from a mirror: init never reads it from the store
        try:
            wanted = list(platforms) or packages.locked_platforms(a, provider.version, provider.hashes)
        except (NetworkError, RegistryError) as e:
            # the registry cannot say which platforms the lock's zh: stand for: the store's own index
            # can, and what it holds is checked there; only what it lacks needs the registry (#68 §3)
            run.packages.extend(_checked_in_store(store, pkey, provider, f"its registry failed ({e.summary})"))
            continue
        for platform in wanted:
            found = store.verifier.provider_complete(pkey, platform)
            if found.outcome is StoreOutcome.COMPLETE:
                run.packages.append(found)
                continue
            if any(lbl == found.package for lbl, _ in store.report.unrepaired):
                run.packages.append(found)  # a corrupt blob of the same digest: only a deletion clears it
                continue
            try:
                archive, _ = packages.origin_zip(a, provider.version, platform)
            except TofuSolveError as e:
                run.packages.append(PackageOutcome(found.package, StoreOutcome.MISSING,
                                                   f"{found.reason}; its registry failed: {e.summary}: {e.detail}"))
                continue
            store.pusher.push_provider(pkey, platform, archive)
            pending.append(found)
    run.report = store.pusher.finish(PUSH_DEADLINE)
    run.packages.extend(_pushed(p, run.report) for p in pending)
    return run


def _checked_in_store(store: PackageStore, key: ProviderKey, provider: ProviderLock,
                      registry_failed: str) -> list[PackageOutcome]:
    """``store push``'s outcomes for a provider version whose registry failed: each platform
    the store's index holds with a ``zh:`` the lock records, checked in the store (COMPLETE
    when its blob is there at its size and digest); each ``zh:`` the store lacks MISSING,
    since only the registry could give it. One outcome per platform package, as
    ``store verify`` counts them."""
    zhs = {h for h in provider.hashes if h.startswith("zh:")}
    label = f"provider {provider.address} {provider.version}"
    try:
        stored, rejected = store.reader.stored_platforms(key)
    except NetworkError as e:
        return [PackageOutcome(label, StoreOutcome.MISSING, f"the store did not answer ({e.summary}); "
                               f"{registry_failed}")]
    if rejected:
        return [PackageOutcome(label, StoreOutcome.REJECTED, rejected)]
    out = []
    for platform, zh in sorted(stored.items()):
        if zh in zhs:
            found = store.verifier.provider_complete(key, platform)
            out.append(found if found.outcome is not StoreOutcome.MISSING else
                       PackageOutcome(found.package, StoreOutcome.MISSING, f"{found.reason}; {registry_failed}"))
    out.extend(PackageOutcome(lacking_label(provider, zh), StoreOutcome.MISSING,
                              f"not in the store, and {registry_failed}")
               for zh in sorted(zhs - set(stored.values())))
    return out


def lacking_label(provider: ProviderLock, zh: str) -> str:
    """How a report names a platform package the lock records only by its ``zh:`` (which
    platform it is, only its registry's signed SHA256SUMS says)."""
    return f"provider {provider.address} {provider.version} (the platform of {zh[:15]}...)"


def _pushed(before: PackageOutcome, report: StoreReport) -> PackageOutcome:
    """The outcome of a package ``store push`` pushed, from the store's report."""
    label = before.package
    unrepaired = next((why for lbl, why in report.unrepaired if lbl == label), None)
    if unrepaired is not None:
        return PackageOutcome(label, StoreOutcome.REJECTED, unrepaired)
    failed = next((n for n in report.not_pushed if n.startswith(label + " (")), None)
    if failed is not None or (report.down and label not in report.pushed):
        return PackageOutcome(label, StoreOutcome.MISSING, f"{before.reason}; the push failed: "
                              f"{failed[len(label) + 2:-1] if failed else report.down}")
    if label in report.pushed:
        return PackageOutcome(label, StoreOutcome.PUSHED, before.reason)
    return PackageOutcome(label, StoreOutcome.COMPLETE)  # another job wrote it meanwhile


def verify_from_locks(roots: list[Path], address: StoreAddress, settings: Settings,
                      platforms: tuple[str, ...] = ()) -> StoreRun:
    """Read every package the lock files of ``roots`` name from the store and verify it
    exactly as ``init`` would, installing nothing: each module package against its lock's
    ``h1:`` (after OpenTofu's module package checks); each provider package in OpenTofu's
    format, its zip against the lock's ``zh:`` (or, for a lock with ``h1:`` only, its
    unpacked directory against an ``h1:``). Which provider packages: those of
    ``platforms``; else, when the lock records ``zh:`` hashes, one package for each of them
    (every platform the lock records); else this machine's platform.

    Returns one outcome per package: VERIFIED, MISSING or REJECTED (with what differed).
    Raises ConfigurationError (no lock file) and LockFileError.
    """
    run = StoreRun()
    locks = _lock_files(roots)
    run.lock_files = [str(p) for p, _ in locks]
    store, _, packages = _open(address, settings, pushing=False)
    with tempfile.TemporaryDirectory(prefix="tofu-solve-store-") as scratch:
        for key, lock, _ in _module_packages(locks):
            store.ledger.expect_module(key, lock.hashes, lock.version, lock.path)
            run.packages.append(store.verifier.check_module(key, tuple(h for h in lock.hashes if h.startswith("h1:")),
                                                   Path(scratch)))
        for pkey, provider in _provider_versions(locks):
            store.ledger.expect_provider(pkey, provider.hashes)
            if not packages.from_registry(provider.address, provider.version):
                continue
            run.packages.extend(_verify_provider(store, pkey, provider, platforms, Path(scratch)))
    run.report = store.pusher.finish(0)
    return run


def _verify_provider(store: PackageStore, key: ProviderKey, provider: ProviderLock, platforms: tuple[str, ...],
                     scratch: Path) -> list[PackageOutcome]:
    """``store verify``'s outcomes for one provider version (see :func:`verify_from_locks`)."""
    zhs = {h for h in provider.hashes if h.startswith("zh:")}
    if platforms or not zhs:
        return [store.verifier.check_provider(key, p, scratch) for p in platforms or (current_platform(),)]
    label = f"provider {provider.address} {provider.version}"
    try:
        stored, rejected = store.reader.stored_platforms(key)
    except NetworkError as e:
        return [PackageOutcome(label, StoreOutcome.MISSING, f"the store did not answer ({e.summary})")]
    if rejected:
        return [PackageOutcome(label, StoreOutcome.REJECTED, rejected)]
    # every package the tag names, the lock's or not: one whose zip the lock does not record is the tag
    # re-pointed or a package replaced, rejected as tampering, never passed over (issue #80 §5)
    out = [store.verifier.check_provider(key, p, scratch) for p in sorted(stored)]
    # one outcome per platform package, as store push counts them
    out.extend(PackageOutcome(lacking_label(provider, zh), StoreOutcome.MISSING,
                              "the lock records it, the store does not hold it; tofu-solve store push pushes every "
                              "one, or name the platforms the fleet runs on with -platform")
               for zh in sorted(zhs - set(stored.values())))
    return out


def run(ns, settings: Settings) -> int:
    """``tofu-solve store push|verify``: ``ns`` as the parser left it. Exit 0 when every
    package the lock files name is in the store (verified, for ``verify``), else 1."""
    load("tofu_solve.command.monorepo")
    from .monorepo import walk_roots

    address = store_setting(ns.package_store, settings.environ)
    if address is None:
        raise ConfigurationError("No package store", "Name the store with -package-store=oci://HOST/PREFIX or "
                                 f"{STORE_VARIABLE}.")
    base = Path(ns.chdir or ".")
    roots = walk_roots(base, settings) if ns.recursive else [base]
    platforms = tuple(dict.fromkeys(parse_platform(p) for p in ns.platform or ()))
    act = verify_from_locks if ns.action == "verify" else push_from_locks
    result = act(roots, address, settings, platforms)
    if ns.json:
        print(json.dumps(json_safe({"action": ns.action, "store": report_data(address, result.report),
                                    "lock_files": result.lock_files, "complete": result.complete,
                                    "packages": [{"package": p.package, "outcome": p.outcome.value,
                                                  "reason": p.reason} for p in result.packages]}), indent=2))
    else:
        for line in outcome_lines(address, ns.action, result.packages, len(result.lock_files)):
            print(line)
        for w in store_warnings(address, result.report, rejected=False):
            print(f"\nWarning: {w.summary}\n\n{w}", file=sys.stderr)
    return 0 if result.complete else 1


__all__ = ["PUSH_DEADLINE", "StoreRun", "push_from_locks", "run", "verify_from_locks"]
