"""The module index: the two questions the solver asks about modules, behind one protocol.

uv's resolver asks its ``ResolverProvider`` two things (``get_package_versions``,
``get_or_build_wheel_metadata``) and caches, batches and prefetches around the answers
itself. tofu-solve's :class:`~tofu_solve.solver.context.Context` does the same around a
:class:`ModuleIndex`: what a module call's source offers (:meth:`ModuleIndex.versions`), and
what one version of a module requires (:meth:`ModuleIndex.tree`). Two indexes implement it:

* :class:`tofu_solve.solver.network.NetworkIndex`: registries, git remotes and OCI
  registries, through the candidate providers of :mod:`tofu_solve.providers`;
* :class:`tests.world.memory.UniverseIndex`: a universe held in memory (the data-driven
  solver tests, the oracle property tests and the synthetic benchmarks).

The context owns everything else, for both: the run's memo (one listing per package, one
tree per package version), fetch budgets, reading ahead, the metadata cache, the locked
version check and the statistics. An index answers; it neither remembers nor prefetches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ..addrs.module_source import LocalSource, OciSource, RegistrySource

if TYPE_CHECKING:
    from ..addrs.module_source import ModuleSource
    from ..config.tree import ModuleTree
    from ..errors import ConfigurationError
    from ..providers.base import AvailableVersion
    from .model import ModuleCandidate, ModuleRequirement


@dataclass
class Stats:
    """What a run read, counted by the context and its index (``init -json``'s ``stats``)."""

    trees_read: int = 0
    read_seconds: float = 0.0  # wall time spent reading fetched packages' module trees (HCL), summed over threads
    trees_from_cache: int = 0
    packages_fetched: int = 0
    improve_fetches: int = 0  # module versions the after-solve pass fetched (bounded)
    release_time_unknown: int = 0  # candidates checked against -min-age whose release time is unknown


SYMBOLS_READING = "\x00symbols"


def tree_key(cand: ModuleCandidate) -> tuple[str, str, str]:
    """The key a candidate's tree is known by, in the run's memo and the metadata cache:
    (package address, reference, subdirectory). The reference is the commit when the
    candidate knows it (a git tag, a locked version), a registry version's normalized
    version, an OCI tag or digest as written (its manifest digest is checked at fetch).
    A symbol library's tree is another reading of the same files, so its subdirectory is
    marked :data:`SYMBOLS_READING` (a NUL, which no path holds).

    Raises:
        TypeError: a local source (followed, never a candidate).
    """
    a = cand.available
    if isinstance(cand.source, LocalSource):
        raise TypeError(f"no candidate of a local source: {cand.source}")
    if isinstance(cand.source, OciSource):
        ref = a.label
    else:
        ref = a.commit or (a.version.string if a.version is not None and isinstance(cand.source, RegistrySource)
                           else a.label)
    return (cand.package, ref, cand.source.subdir + (SYMBOLS_READING if cand.symbols else ""))


class ModuleIndex(Protocol):
    """What module sources offer and what their versions require. An index answers: what
    was read this run is remembered by the context (:class:`~.run.Run`), what is read
    ahead is the prefetcher's (:class:`~.prefetch.Prefetcher`); the network's index keeps
    only where a registry version's package was read from (its pin, in the metadata cache,
    so that a run that finds the tree there still knows it).
    """

    def held(self, cand: ModuleCandidate) -> ModuleTree | ConfigurationError | None:
        """The candidate's tree when the index holds it in memory, never read (an in-memory
        universe holds every one: known without reading, never cached, no fetch budget
        spent); None for an index that reads it (the network's)."""
        ...

    def package_address(self, source: ModuleSource) -> str:
        """The address that names the source's package across calls, without a version
        (``registry.opentofu.org/ns/name/system``, a git URL without ``ref``, an OCI
        repository): what ``-module-versions=shared`` unifies on and listings are kept by."""
        ...

    def versions(self, req: ModuleRequirement) -> list[AvailableVersion]:
        """Every version the call's source offers, in the source's own order; for a source
        that takes no version constraint (a git ``ref``, an OCI tag or digest), the one
        version it names.

        Raises:
            NetworkError, RegistryError, OfflineError: the source cannot be listed.
            KeyError: an in-memory index does not hold the package.
        """
        ...

    def tree(self, cand: ModuleCandidate) -> ModuleTree | ConfigurationError:
        """The candidate's requirements (module calls, ``required_providers``, OpenTofu
        constraints), or the configuration error that makes the version unusable (an
        error is an answer: the solver goes on without that version).

        Raises:
            NetworkError, IntegrityError, OfflineError: the package cannot be had.
            KeyError: an in-memory index does not hold the version.
        """
        ...

    def release_time(self, cand: ModuleCandidate) -> float | None:
        """When the candidate was released, in seconds since the epoch, or None when the
        source cannot tell (the release cooldown, issue #25)."""
        ...

    def abort(self) -> None:
        """Stop work still in flight (downloads the run no longer needs); the run is ending."""
        ...
