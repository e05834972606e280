"""``tofu-solve store push`` (issue #49): fill the package store from lock files without
installing anything, so that an air-gapped environment can be prepared once and its CI run
with every origin blocked."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigurationError, IntegrityError
from ..lockfile import LOCK_FILE_NAME, read_lock_file
from ..plugins import parse_platform
from ..remote.package_store import (
    PUSH_VARIABLE,
    STORE_VARIABLE,
    ModuleKey,
    ProviderKey,
    StoreAddress,
    StoreReport,
    module_key,
    open_store,
    store_setting,
)
from ..settings import Settings
from .views.store import report_data, store_warnings

# --------------------------------------------------------------------------- tofu-solve store push

PUSH_DEADLINE = 1800.0
"""Seconds ``store push`` waits for its pushes at most (it exists to push)."""


@dataclass
class PushSummary:
    """What ``store push`` did: lock files read, packages pushed, already present, and the
    store's report."""

    lock_files: list[str] = field(default_factory=list)
    present: list[str] = field(default_factory=list)
    report: StoreReport | None = None


def push_from_locks(roots: list[Path], address: StoreAddress, settings: Settings,
                    platforms: tuple[str, ...] = ()) -> PushSummary:
    """Fill the store from the lock files of ``roots``: every module package they name
    (fetched from its origin by its identity and verified against the lock's ``h1:``) and
    every provider package of every platform whose ``zh:`` they record (``platforms``
    narrows it), verified as ``init`` verifies them; nothing is installed.

    Raises:
        ConfigurationError: no lock file, or pushing is turned off.
        IntegrityError: a package does not match its lock (nothing of it is pushed).
        NetworkError: an origin failed.
    """
    from ..addrs.immutable import pinned_reference
    from ..addrs.module_source import source_dir_subdir
    from ..lockfile.hashes import VCS_DIRS, hash_dir
    from ..plugins import ProviderPackages
    from ..remote.fetch import Fetcher
    from ..remote.git import GitRemotes
    from ..remote.registry import open_client
    from ..workdir.install import verification_error

    summary = PushSummary()
    locks = []
    for root in roots:
        path = root / LOCK_FILE_NAME
        if path.is_file():
            locks.append((path, read_lock_file(path)))
            summary.lock_files.append(str(path))
    if not locks:
        raise ConfigurationError("No lock file", f"There is no {LOCK_FILE_NAME} in {', '.join(map(str, roots))}: run "
                                 "tofu-solve init first, and commit the lock file.")
    client = open_client(settings)
    store = open_store(address, settings.environ, settings.limits, client.counter,
                       configured=client.cli_config.oci_credentials)
    if store is None or store.report.read_only:
        raise ConfigurationError("Pushing is turned off", f"{PUSH_VARIABLE}=false: store push has nothing to do.")
    remotes = GitRemotes(client.cache, client.counter, limits=settings.limits, environ=settings.environ)
    fetcher = Fetcher(client.cache, remotes, client.session, client.counter, limits=settings.limits)
    packages = ProviderPackages(client, fetcher, client.cache, client.counter, store=store)
    done: set[ModuleKey] = set()
    for lock_path, lock_file in locks:
        for lock in lock_file.modules.values():
            key = module_key(lock.package) if lock.package else None
            h1s = [h for h in lock.hashes if h.startswith("h1:")]
            if key is None or not h1s or key in done:
                continue
            done.add(key)
            label = f"{key.origin} at {key.identity}"
            if store.client.has_manifest(address.host, key.repository(address), key.tag) is not None:
                summary.present.append(label)
                continue
            fetched = fetcher.fetch(source_dir_subdir(lock.package)[0], commit=pinned_reference(lock.package))
            got = hash_dir(fetched.path, exclude=VCS_DIRS)
            if got not in h1s:
                raise verification_error(lock.path, h1s, got, f"{lock_path}, line {lock.line}")
            store.push_module(key, fetched.path, got, lock.version)
        for provider in lock_file.providers.values():
            a = provider.address
            key_p = ProviderKey(a.host, a.namespace, a.type, provider.version)
            store.expect_provider(key_p, provider.hashes)
            wanted = platforms or tuple(packages.locked_platforms(a, provider.version, provider.hashes))
            for platform in wanted:
                before = len(store.report.read)
                info = packages.info(a, provider.version, platform)
                if info.h1 not in provider.hashes and f"zh:{info.shasum}" not in provider.hashes:
                    raise IntegrityError("Provider package does not match the lock file",
                                         f"The {platform} package of {a.for_display} {provider.version} hashes to "
                                         f"{info.h1}, which {lock_path} does not record.")
                if len(store.report.read) > before:
                    summary.present.append(f"provider {a} {provider.version} ({platform})")
    summary.report = store.finish(PUSH_DEADLINE)
    return summary


def run(ns, settings: Settings) -> int:
    """``tofu-solve store push``: ``ns`` as the parser left it."""
    from .monorepo import find_roots

    address = store_setting(ns.package_store, settings.environ)
    if address is None:
        raise ConfigurationError("No package store", "Name the store with -package-store=oci://HOST/PREFIX or "
                                 f"{STORE_VARIABLE}.")
    base = Path(ns.chdir or ".")
    roots = find_roots(base) if ns.recursive else [base]
    platforms = tuple(dict.fromkeys(parse_platform(p) for p in ns.platform or ()))
    summary = push_from_locks(roots, address, settings, platforms)
    report = summary.report or StoreReport()
    failed = bool(report.not_pushed or report.rejected or report.down)
    if ns.json:
        print(json.dumps({"store": report_data(address, report), "lock_files": summary.lock_files,
                          "present": sorted(summary.present)}, indent=2))
    else:
        print(f"Package store {address}: {len(report.pushed)} packages pushed, {len(summary.present)} already there "
              f"(from {len(summary.lock_files)} lock files).")
        for label in sorted(report.pushed):
            print(f"  pushed {label}")
        for w in store_warnings(address, report):
            print(f"\nWarning: {w.summary}\n\n{w}", file=sys.stderr)
    return 1 if failed else 0
