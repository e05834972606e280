"""Wiring: the :class:`~tofu_solve.solver.context.Context` a solve runs in, built from the
run's :class:`~tofu_solve.settings.Settings`: the cache, the CLI configuration, one HTTP
session, the registry, git, OCI and download clients, the candidate providers per source
kind, and where provider versions come from."""

from __future__ import annotations

from ..config.cliconfig import load_cli_config
from ..events import Progress
from ..lockfile import LockFile
from ..providers import GitCandidates, PinnedCandidates, RegistryCandidates
from ..providers.oci import OciCandidates
from ..remote.fetch import Fetcher
from ..remote.git import GitRemotes
from ..remote.oci import OciClient
from ..remote.ops import OpCounter
from ..remote.provider_sources import MirrorClient, ProviderSources
from ..remote.registry import RegistryClient, make_session
from ..settings import Settings
from ..store.cache import Cache
from ..store.metadata import MetadataStore
from .context import Context, SolveOptions


def build_context(options: SolveOptions, locks: LockFile, settings: Settings,
                  progress: Progress | None) -> tuple[Context, OpCounter]:
    """A context for one solve, and the counter of its network operations.

    Raises:
        ConfigurationError: the CLI configuration is broken (with file and line).
    """
    counter = OpCounter(announce=progress)
    limits = settings.limits
    cache = Cache(settings.cache_dir, fresh=options.upgrade)
    session = make_session()
    client = RegistryClient(load_cli_config(settings.environ), session, counter=counter, cache=cache,
                            offline=options.offline, refresh=options.upgrade, limits=limits)
    remotes = GitRemotes(cache, counter, offline=options.offline, limits=limits, environ=settings.environ)
    fetcher = Fetcher(cache, remotes, session, counter, offline=options.offline, fresh_refs=options.upgrade,
                      limits=limits)
    oci = OciCandidates(OciClient(settings.environ, counter, offline=options.offline, limits=limits), cache)
    ctx = Context(options, locks, RegistryCandidates(client, fetcher, oci), GitCandidates(remotes, fetcher),
                  PinnedCandidates(remotes, fetcher), client, MetadataStore(cache, options.target.product), progress, oci=oci)
    ctx.counter = counter  # "Fetching" is announced by the first network operation of a fetch
    ctx.provider_source = ProviderSources(client.cli_config.provider_installation, client,
                                          MirrorClient(session, limits, counter), cache, offline=options.offline,
                                          refresh=options.upgrade)
    return ctx, counter
