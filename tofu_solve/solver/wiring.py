"""Wiring: the :class:`~tofu_solve.solver.context.Context` a solve runs in, built from the
run's :class:`~tofu_solve.settings.Settings`: the cache, the CLI configuration, one HTTP
session, the registry, git, OCI and download clients, the module index over the candidate
providers per source kind, and where provider versions come from."""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from ..events import Progress
from ..lockfile import LockFile
from ..providers import GitCandidates, PinnedCandidates, RegistryCandidates
from ..providers.oci_tags import OciCandidates
from ..remote.fetch import Fetcher
from ..remote.git import GitRemotes
from ..remote.oci import OciClient
from ..remote.ops import OpCounter
from ..remote.package_store.store import PackageStore
from ..remote.provider_sources import MirrorClient, ProviderSources
from ..remote.registry import RegistryClient, open_client
from ..settings import Settings
from ..store.cache import Cache
from ..store.metadata import MetadataStore
from ..versions.cooldown import min_age_setting, parse_duration
from .context import Context, SolveOptions
from .index import Stats
from .lock_terms import LockTerms
from .network import NetworkIndex


@dataclass(frozen=True)
class Wiring:
    """What :func:`build_context` built for one solve: the context the solver asks, and the
    parts a command uses beside it, so that no command reaches through the context (issue #51
    §1): installing and verifying (``index.fetch``, ``fetcher``, ``cache``, ``pool``), the
    provider packages (``client``, ``fetcher``) and the warnings (the client's CLI
    configuration, the git ``remotes``, the cache's discarded entries).

    Attributes:
        context: the solver's context.
        counter: the run's network operations.
        client: the registry client (its CLI configuration and kept listings).
        index: the module index over the network (``fetch`` a selected package).
        fetcher: module and provider package downloads.
        remotes: the git remotes (the tags that moved or were deleted).
        cache: the download cache.
        pool: the context's thread pool (background fetches; closed with the context).
    """

    context: Context
    counter: OpCounter
    client: RegistryClient
    index: NetworkIndex
    fetcher: Fetcher
    remotes: GitRemotes
    cache: Cache
    pool: ThreadPoolExecutor


def build_context(options: SolveOptions, locks: LockTerms | LockFile, settings: Settings,
                  progress: Progress | None, *, cooldown_from_cli_config: bool = False,
                  client: RegistryClient | None = None,
                  store: PackageStore | None = None) -> Wiring:
    """A context for one solve, with the counter of its network operations and the clients
    a command uses beside it (:class:`Wiring`). Everything the context holds is given here;
    nothing is set on it afterwards.

    Args:
        options: the solve's options.
        locks: whether each lock holds (:class:`~.lock_terms.LockTerms`: the lock file as
            read, ``-upgrade``, ``-upgrade=NAME``, ``-accept-checksum``), whose freed
            providers' kept listings are asked again; a lock file: every entry of it holds.
        cooldown_from_cli_config: the release cooldown is the CLI configuration's: its
            ``module_installation`` block's ``cooldown_period`` (for the modules it covers),
            else its ``tofu_solve_min_age`` (no flag and no environment variable set one).
        client: a registry client opened before (:func:`~tofu_solve.remote.registry.open_client`,
            by ``init``'s early start, whose listings may be in flight): used, with its cache,
            CLI configuration, session and counter, when it was opened for this solve's
            options; else one is opened here.
        store: the package store on an OCI registry (issue #49), which module packages the
            lock names are read from before their origins; None for none.

    Raises:
        ConfigurationError: the CLI configuration is broken (with file and line), or its
            cooldown is not a duration.
    """
    limits = settings.limits
    terms = locks if isinstance(locks, LockTerms) else LockTerms.holding(locks, options.upgrade)
    refresh_only = terms.relisted_providers
    if client is None or (client.refresh, client.offline, client.refresh_only, client.limits) != \
            (options.upgrade, options.offline, refresh_only, limits) or client.cache.root != settings.cache_dir:
        client = open_client(settings, upgrade=options.upgrade, offline=options.offline, refresh_only=refresh_only)
    counter = client.counter
    counter.announce = progress
    cache, session, cli_config = client.cache, client.session, client.cli_config
    if cooldown_from_cli_config:
        modules = cli_config.module_installation
        if modules is not None and modules.cooldown_period:
            # OpenTofu's module_installation block: its modules only, by include/exclude
            options = dataclasses.replace(
                options, min_age=parse_duration(modules.cooldown_period, f"cooldown_period ({modules.where})"),
                cooldown_scope=modules)
        else:
            options = dataclasses.replace(options, min_age=min_age_setting(None, None, cli_config.min_age))
    policy = options.policy
    if policy is not None and policy.min_age > options.min_age:
        # the policy's release_cooldown is a floor: a longer one set by the user still applies
        options = dataclasses.replace(
            options, min_age=policy.min_age, cooldown_scope=None,
            cooldown_label=f"release_cooldown={policy.min_age_text} ({policy.where_of('release_cooldown')})")
    remotes = GitRemotes(cache, counter, offline=options.offline, limits=limits, environ=settings.environ)
    fetcher = Fetcher(cache, remotes, session, counter, offline=options.offline, fresh_refs=options.upgrade,
                      limits=limits, store=store)
    oci = OciCandidates(OciClient(settings.environ, counter, offline=options.offline, limits=limits,
                                  configured=cli_config.oci_credentials), cache)
    provider_source = ProviderSources(client.cli_config.provider_installation, client,
                                      MirrorClient(session, limits, counter), cache, offline=options.offline,
                                      refresh=options.upgrade, store=store)
    metadata = MetadataStore(cache, options.target.product)
    stats = Stats()
    # "Fetching" is announced by the first network operation of a fetch (counter)
    index = NetworkIndex(RegistryCandidates(client, fetcher, oci), GitCandidates(remotes, fetcher),
                         PinnedCandidates(remotes, fetcher), oci, client, metadata, stats, options.target.product,
                         progress=progress, counter=counter)
    ctx = Context(options, terms, index, metadata, client=client, stats=stats, progress=progress,
                  provider_source=provider_source, store=store.ledger if store is not None else None)
    return Wiring(ctx, counter, client, index, fetcher, remotes, cache, ctx.pool)
