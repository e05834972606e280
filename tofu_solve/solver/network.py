"""The module index that goes to the network (:class:`~tofu_solve.solver.index.ModuleIndex`):
registries, git remotes and OCI registries through the candidate providers of
:mod:`tofu_solve.providers`, one per kind of source.

A version's tree is read from its configuration files in memory when the source gives them
without unpacking (a git package not yet in the cache, issue #23), else from its package,
fetched and unpacked once per package and version (:meth:`NetworkIndex.fetch`, which the
installer shares). Every fetch is announced: by the run's network counter when it first goes
to the network, else at once.
"""

from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path
from typing import cast

from ..addrs.immutable import pinned_reference
from ..addrs.module_source import (
    ModuleSource,
    OciSource,
    RegistrySource,
    RemoteSource,
    SourceKind,
    parse_source,
)
from ..addrs.product import Product
from ..addrs.redact import redact
from ..config.files import MemoryDir
from ..config.tree import ModuleTree, read_module_tree
from ..errors import ConfigurationError
from ..events import FetchingPackage, Progress
from ..providers import AvailableVersion, ConfigFiles, GitCandidates, Package, PinnedCandidates, RegistryCandidates
from ..providers.base import CandidateProvider
from ..providers.oci_tags import OciCandidates
from ..remote.flight import SingleFlight
from ..remote.ops import OpCounter
from ..remote.registry import RegistryClient
from ..store.cache import key_of
from ..store.metadata import MetadataStore
from .index import Stats, tree_key
from .model import ModuleCandidate, ModuleRequirement


class NetworkIndex:
    """See the module docstring. Thread-safe.

    Args:
        registry, git, pinned, oci: the candidate providers of registry sources, git sources
            without a ``ref`` (versioned by semver tags), sources that name one version (a
            git ``ref``, an HTTP archive...), and OCI sources.
        client: the registry client (release times of registry versions).
        metadata: the metadata cache (where a registry version was read from is kept there).
        stats: the run's statistics (packages fetched, time spent reading trees).
        product: whose file-name rules a module directory is read with.
        progress, counter: how fetches are announced (see the module docstring).
    """


    def __init__(self, registry: RegistryCandidates, git: GitCandidates, pinned: PinnedCandidates,
                 oci: OciCandidates | None, client: RegistryClient, metadata: MetadataStore, stats: Stats,
                 product: Product, *, progress: Progress | None = None, counter: OpCounter | None = None):
        self.registry = registry
        self.git = git
        self.pinned = pinned
        self.oci = oci
        self.client = client
        self.metadata = metadata
        self.stats = stats
        self.product = product
        self.progress = progress or (lambda msg: None)
        self.counter = counter
        self._lock = threading.Lock()
        self._fetched = SingleFlight(remember_errors=True)  # one fetch per package and version
        self._read_from: dict[tuple, str | None] = {}  # tree key -> the immutable address it was read from

    # ------------------------------------------------------------------ listings

    def candidate_provider(self, source: ModuleSource, versioned: bool = True) -> CandidateProvider:
        """The candidate provider of a source: the registry's, git tags', OCI tags', or, for
        a source that names one version (``versioned`` False, or a ``ref`` given), the
        pinned one's.

        Raises:
            TypeError: a local source (followed, never listed), or an OCI source without
                an OCI client.

        Each candidate provider takes its own kind of source only; the dispatch on the
        source's kind here is what makes the casts below hold.
        """
        if isinstance(source, OciSource):
            if self.oci is None:
                raise TypeError(f"no OCI client for {source}")
            return cast(CandidateProvider, self.oci)
        if isinstance(source, RegistrySource):
            return cast(CandidateProvider, self.registry)
        if not isinstance(source, RemoteSource):
            raise TypeError(f"no candidate provider for a local source: {source}")
        if versioned and source.kind is SourceKind.GIT and not source.git.ref:
            return cast(CandidateProvider, self.git)
        return cast(CandidateProvider, self.pinned)

    def package_address(self, source: ModuleSource) -> str:
        return self.candidate_provider(source).package_address(source)

    def versions(self, req: ModuleRequirement) -> list[AvailableVersion]:
        source = req.call.source
        if isinstance(source, OciSource) and not req.versioned:
            if self.oci is None:
                raise TypeError(f"no OCI client for {source}")
            return self.oci.pin(source)
        return self.candidate_provider(source, req.versioned).versions(source)

    # ------------------------------------------------------------------ trees

    def held(self, cand: ModuleCandidate) -> None:
        """None: every tree is read (from the network, or the context's metadata cache)."""
        return None

    def tree(self, cand: ModuleCandidate) -> ModuleTree | ConfigurationError:
        key = tree_key(cand)
        light = self._config_files(cand)
        root: Path | MemoryDir
        if light is not None:
            self._remember_read_from(cand, key, light.pin)
            # read from the package's configuration files in memory: a version the solver
            # reads is not unpacked unless it is selected (issue #23)
            root, sub = MemoryDir(light.files), light.subdir.strip("/")
            exists = sub in light.files.dirs
        else:
            package = self.fetch(cand)
            self._remember_read_from(cand, key, package.pin)
            root, sub = package.root, package.subdir.strip("/")
            exists = (package.root / sub).is_dir()
        if sub and not exists:
            # named by package, version and subdirectory, never by its place in the cache
            shown = cand.source.package.for_display if isinstance(cand.source, RegistrySource) else redact(cand.package)
            return ConfigurationError(
                "Module subdirectory not found",
                f'The module package {shown} {cand.version_text} has no subdirectory "{sub}".')
        started = time.perf_counter()
        try:
            return read_module_tree(root, sub, product=self.product, symbols=cand.symbols)
        except ConfigurationError as e:
            return e
        finally:
            with self._lock:
                self.stats.read_seconds += time.perf_counter() - started

    def _config_files(self, cand: ModuleCandidate) -> ConfigFiles | None:
        """The candidate's configuration files in memory, when its source gives them
        without unpacking the package and the package was not fetched this run; else None.
        Announced and counted as a fetch."""
        if tree_key(cand) in self._fetched:
            return None  # unpacked already this run
        reader = self.candidate_provider(cand.source).config_files
        with self._announced(cand):
            files = reader(cand.source, cand.available)
        if files is not None:
            with self._lock:
                self.stats.packages_fetched += 1
        return files

    def fetch(self, cand: ModuleCandidate) -> Package:
        """The candidate's package, fetched and unpacked once per package and version for
        the run (concurrent callers wait for the first; an error is remembered).

        Raises:
            NetworkError, IntegrityError, OfflineError: the package cannot be had.
        """
        def do() -> Package:
            cp = self.candidate_provider(cand.source, cand.version is not None)
            with self._announced(cand):
                pkg = cp.fetch(cand.source, cand.available)
            with self._lock:
                self.stats.packages_fetched += 1
            return pkg
        return self._fetched.run(tree_key(cand), do)

    def _announced(self, cand: ModuleCandidate) -> contextlib.AbstractContextManager[object]:
        """A context manager that announces fetching ``cand``: through the counter, only if
        the fetch goes to the network (not for a cached package); else at once."""
        shown = cand.source.for_display if isinstance(cand.source, RegistrySource) else redact(str(cand.source))
        event = FetchingPackage(shown, cand.version_text or "")
        if self.counter is not None:
            return self.counter.announcing(event)
        self.progress(event)
        return contextlib.nullcontext()

    def abort(self) -> None:
        """Stop the git fetches and downloads still running."""
        self.git.fetcher.abort()

    # ------------------------------------------------------------------ release times (issue #25)

    def release_time(self, cand: ModuleCandidate) -> float | None:
        """When ``cand`` was released, as its source can tell: the registry's
        ``published_at`` for registry versions; the commit's date for git tags, known once
        the package was fetched (its commit is in the mirror), and for registry versions
        without ``published_at`` whose download location is git; for OCI tags, the
        manifest's ``org.opencontainers.image.created``, known once fetched; None when
        unknown."""
        src = cand.source
        if isinstance(src, RegistrySource):
            listed = self.client.lifecycle.release_times("module", str(src.package)).get(cand.available.label)
            if listed is not None:
                return listed
            # no published_at: the date of the commit its download location resolved to, once read
            pin = self._read_from_of(tree_key(cand)) or cand.available.package
            at = parse_source(pin) if pin and pinned_reference(pin) else None
            if isinstance(at, RemoteSource) and at.kind is SourceKind.GIT:
                return self.git.remotes.commit_time(at.git.url, at.git.ref)
            return None
        if isinstance(src, RemoteSource) and src.kind is SourceKind.GIT and cand.available.commit:
            return self.git.remotes.commit_time(src.git.url, cand.available.commit)
        if isinstance(src, OciSource) and self.oci is not None:
            return self.oci.release_time(src, cand.available.label)
        return None

    def _remember_read_from(self, cand: ModuleCandidate, key: tuple, pin: str | None) -> None:
        """Where a registry version's package was read from (its immutable address, whose
        commit dates it when the registry gives no ``published_at``), for this run and, in
        the cache, for runs that find its requirements in the metadata cache."""
        if not isinstance(cand.source, RegistrySource):
            return  # a git or OCI candidate knows its commit or tag itself
        with self._lock:
            self._read_from[key] = pin
        if pin:
            self.metadata.cache.write_json("read-from", key_of(repr(key)), pin)

    def _read_from_of(self, key: tuple) -> str | None:
        with self._lock:
            if key in self._read_from:
                return self._read_from[key]
        got = self.metadata.cache.read_json("read-from", key_of(repr(key)))
        return got if isinstance(got, str) else None

