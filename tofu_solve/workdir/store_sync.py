"""The package store beside a run (issue #49): what the lock tells the store to expect, the
store listing the locked providers for the solve (and the solve again on the registries'
listings when that moved one), and the verified module packages pushed after."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from ..config.cliconfig import CliConfig
from ..errors import TofuSolveError
from ..explain import solve
from ..lockfile import LockFile, ModuleLock
from ..lockfile.entries import content_hashes
from ..plugins.provider_readahead import ProviderReadAhead
from ..providers import Package
from ..remote.package_store.address import store_setting
from ..remote.package_store.keys import ProviderKey, module_key
from ..remote.package_store.store import PackageStore, open_store
from ..remote.provider_sources import ProviderSources
from ..settings import Settings
from ..solver.context import Context
from ..solver.model import ModuleCandidate
from ..solver.resolve import Resolution

log = logging.getLogger(__name__)


def open_run_store(flag: str | None, settings: Settings, cli_config: Callable[[], CliConfig], offline: bool,
                   locks: LockFile) -> PackageStore | None:
    """The package store of an ``init`` run (issue #49): ``-package-store`` (``flag``, None
    when not given) else ``TOFU_SOLVE_PACKAGE_STORE``, with the CLI configuration's
    ``oci_credentials`` (``cli_config``, asked only when there is a store), told what the
    lock file records; None without one or ``offline``.

    Raises:
        ConfigurationError: an invalid address or grace.
    """
    address = store_setting(flag, settings.environ)
    if address is None:
        return None
    store = open_store(address, settings.environ, settings.limits, offline=offline,
                       configured=cli_config().oci_credentials)
    if store is not None:
        expect_locked_packages(store, locks)
    return store


def expect_locked_packages(store: PackageStore, locks: LockFile) -> None:
    """Tell the store what the lock file records (issue #49): each module package's hashes
    by its identity, each provider version's hashes; nothing else is read from it."""
    for lock in locks.modules.values():
        key = module_key(lock.package) if lock.package else None
        if key is not None:
            store.ledger.expect_module(key, content_hashes(lock), lock.version, lock.path)
    for provider in locks.providers.values():
        a = provider.address
        store.ledger.expect_provider(ProviderKey(a.host, a.namespace, a.type, provider.version), provider.hashes)


def store_listing(ctx: Context, store: PackageStore | None, locks: LockFile, fresh: bool,
                  again: frozenset[str]) -> ProviderSources | None:
    """With a package store, let it list the providers the lock holds (issue #49): the
    provider sources, told each locked provider's version; None without a store, with
    ``fresh`` (``-upgrade`` or ``-offline``: nothing is listed from the store), or without the
    CLI configuration's sources."""
    sources = ctx.provider_source if isinstance(ctx.provider_source, ProviderSources) else None
    if store is None or sources is None or fresh:
        return None
    sources.store_listing = {a: p.version for a, p in locks.providers.items() if a not in again}
    return sources


def solve_listing_from_store(tree, ctx: Context, ahead: ProviderReadAhead, root: Path,
                              sources: ProviderSources | None) -> Resolution:
    """The solve, with the locked providers listed by the package store when ``sources``
    says so; when that solve fails, or moves a provider the store listed, the solve runs
    again on the registries' listings, so that the answer is the one the registries give
    (a store holds only the versions jobs locked)."""
    failure: TofuSolveError | None = None
    try:
        res = solve(tree, ctx.view(likely_provider=ahead.likely), root)
    except TofuSolveError as e:
        failure = e
    if sources is None or not sources.listed_by_store:
        if failure is not None:
            raise failure
        return res
    locked = dict(sources.store_listing)
    if failure is None and all(str(res.providers[a].version) == locked[a]
                               for a in sources.listed_by_store if a in res.providers):
        return res
    log.debug("a provider the package store listed moved: solving again on the registries' listings")
    ctx.relist_providers(sources.stop_store_listing())
    return solve(tree, ctx.view(likely_provider=ahead.likely), root)


def push_verified_modules(store: PackageStore, selected: dict[str, tuple[ModuleCandidate, Package, ModuleLock]]) \
        -> None:
    """Push every selected module package that did not come from the store, now that it is
    verified against the new lock (issue #49); in the background."""
    for _, pkg, lock in selected.values():
        key = module_key(lock.package) if lock.package else None
        h1 = next((h for h in lock.hashes if h.startswith("h1:")), None)
        if key is not None and h1 is not None:
            store.ledger.name_module(key, lock.path, lock.version)
            store.pusher.push_module(key, pkg.root, h1, lock.version)


__all__ = ["expect_locked_packages", "push_verified_modules", "solve_listing_from_store", "store_listing"]
