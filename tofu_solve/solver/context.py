"""Everything the resolver asks about the outside world, with caching and prefetching.

* ``module_candidates(req)``: the versions a module call may take, OpenTofu's filter and
  order (newest first); ``preferred_candidates(req)``: the same in the one order the search
  offers them (:func:`~.locks.preferred_order`: the only place "locked first" and "nearest"
  are applied to a listing);
* ``tree(candidate)``: the candidate's requirements, from the on-disk metadata cache or by
  asking the module index (one read per package and version, never one per call;
  :mod:`.trees`);
* ``provider_versions(address)``: from the provider registry.

What module sources offer and what a version requires come from a
:class:`~tofu_solve.solver.index.ModuleIndex`: the network's
(:class:`~tofu_solve.solver.network.NetworkIndex`) or a universe in memory; the context
memoizes, budgets and caches around it the same way for both.

A context is a :class:`Run` (what every part of one run shares) and a :class:`Scope` (what
one search has of its own); :meth:`Context.view` gives a part of the run a scope of its own.
A run over the network reads ahead (:class:`~tofu_solve.solver.prefetch.Prefetcher`): when
a module version's requirements are read, the listings of its child calls and the content
of their newest candidates are requested in the background, so network round trips overlap
while the resolver works; an in-memory run is given no prefetcher.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..addrs.module_source import ModuleSource, OciSource, RegistrySource, RemoteSource
from ..addrs.provider import ProviderAddress
from ..config.policy import Subject
from ..errors import (
    NoMatchingVersionError,
    NoVersionsError,
    TofuSolveError,
)
from ..events import Progress
from ..lockfile import LockFile
from ..providers import AvailableVersion
from ..providers.base import ProviderVersionSource
from ..remote.lifecycle import Deprecation, Revocation
from ..remote.registry import RegistryClient
from ..store.metadata import MetadataStore
from ..versions import apparentlymart_go_versions as gvs
from ..versions.constraints import ProviderConstraint
from ..versions.hashicorp_go_version import GoVersion
from ..versions.version_pick import list_module_versions
from .index import ModuleIndex, Stats
from .lock_terms import LockTerms
from .locks import module_lock_anchor, policy_denial, preferred_order
from .model import Kind, ModuleCandidate, ModuleRequirement
from .release_cooldown import Cooldown
from .run import Refusal, Run, Scope, SolveOptions, StoreView
from .trees import FetchBudgetExceeded, TreeReads

log = logging.getLogger(__name__)


class Context(TreeReads):
    """See the module docstring. Thread-safe.

    Args:
        options: the solve's options.
        locks: whether each lock holds (:class:`~.lock_terms.LockTerms`, issue #83 §2); a
            lock file: every entry of it holds (none with ``options.upgrade``).
        index: what module sources offer and what their versions require.
        metadata: the on-disk cache of module trees; None: none (an in-memory index).
        client: the registry client, for what an earlier run kept (listings, release
            times) and the CLI configuration; None: none (an in-memory index).
        stats: the run's statistics, shared with the index; default new ones.
        progress: where the search's phases are told (looking for dead ends, still resolving).
        provider_source: where provider versions are listed; default ``client``.

    Raises:
        TypeError: neither a provider source nor a client is given.
    """

    def __init__(self, options: SolveOptions, locks: LockTerms | LockFile, index: ModuleIndex,
                 metadata: MetadataStore | None, *, client: RegistryClient | None = None, stats: Stats | None = None,
                 progress: Progress | None = None, provider_source: ProviderVersionSource | None = None,
                 store: StoreView | None = None, prefetch: bool = True):
        terms = locks if isinstance(locks, LockTerms) else LockTerms.holding(locks, options.upgrade)
        self.run = Run(options, terms, index, metadata, client=client, stats=stats, progress=progress,
                       provider_source=provider_source, store=store, prefetch=prefetch)
        self.scope = Scope(terms)

    # ------------------------------------------------------------------ the run's, shared by every view

    @property
    def options(self) -> SolveOptions:
        return self.run.options

    @options.setter
    def options(self, value: SolveOptions) -> None:
        self.run.options = value

    @property
    def recorded_locks(self) -> LockFile:
        return self.run.recorded_locks

    @property
    def index(self) -> ModuleIndex:
        return self.run.index

    @property
    def client(self) -> RegistryClient | None:
        return self.run.client

    @property
    def provider_source(self) -> ProviderVersionSource:
        return self.run.provider_source

    @property
    def metadata(self) -> MetadataStore | None:
        return self.run.metadata

    @property
    def store(self) -> StoreView | None:
        return self.run.store

    @property
    def stats(self) -> Stats:
        return self.run.stats

    @property
    def progress(self) -> Progress:
        return self.run.progress

    @progress.setter
    def progress(self, value: Progress) -> None:
        self.run.progress = value

    @property
    def pool(self) -> ThreadPoolExecutor:
        """The read-ahead's pool (a run over the network).

        Raises:
            TypeError: an in-memory run, which reads nothing ahead.
        """
        if self.run.prefetcher is None:
            raise TypeError("an in-memory run has no read-ahead pool")
        return self.run.prefetcher.pool

    @pool.setter
    def pool(self, value: ThreadPoolExecutor) -> None:
        if self.run.prefetcher is None:
            raise TypeError("an in-memory run has no read-ahead pool")
        self.run.prefetcher.pool = value

    @property
    def cooldown(self) -> Cooldown:
        return self.run.cooldown

    @property
    def tree_effects(self) -> dict[int, tuple]:
        return self.run.tree_effects

    # ------------------------------------------------------------------ this view's own (its Scope)

    @property
    def terms(self) -> LockTerms:
        """Whether each lock holds in this view (:class:`~.lock_terms.LockTerms`)."""
        return self.scope.terms

    @property
    def locks(self) -> LockFile:
        """The locks this view keeps (:attr:`LockTerms.kept`)."""
        return self.scope.terms.kept

    @property
    def fetch_budget(self) -> int | None:
        return self.scope.fetch_budget

    @property
    def likely_provider(self) -> Callable[[ProviderAddress, str], None] | None:
        return self.scope.likely_provider

    @property
    def calls(self) -> dict[str, ModuleRequirement]:
        return self.scope.calls

    def sources_listed(self) -> int:
        """How many distinct sources were listed this run."""
        with self.run.lock:
            return sum(1 for k in self.run.memo.keys() if k[0] == "list" and self.run.memo.succeeded(k))  # noqa: SIM118 (SingleFlight is no mapping)

    def close(self) -> None:
        """End the run's background work: queued prefetches are dropped, git fetches and
        downloads still running (read-ahead the solve no longer needs) are stopped, then the
        pool's threads are joined, so nothing writes into the cache after this returns
        (issue #13: the run no longer waits for fetches nobody will read)."""
        if self.run.prefetcher is not None:
            self.run.prefetcher.close(self.index.abort)
        else:
            self.index.abort()

    # ------------------------------------------------------------------ memoized work

    def _wait(self, key: tuple, fn: Callable[[], Any]) -> Any:
        """``fn()`` once per key for the run (its error too); concurrent callers wait for
        the first. Never waits on the thread pool, so pool tasks cannot deadlock."""
        return self.run.memo.run(key, fn)

    def note_calls(self, reqs: Iterable[object]) -> None:
        """Record the module calls among ``reqs`` as the latest requirement of each call path
        (what explanations, holds and the cooldown look calls up in)."""
        for r in reqs:
            if isinstance(r, ModuleRequirement):
                self.calls[r.call_path] = r

    def view(self, *, locks: LockFile | LockTerms | None = None, fetch_budget: int | None = None,
             likely_provider: Callable[[ProviderAddress, str], None] | None = None,
             own_calls: bool = False) -> Context:
        """This context for one part of a run (a what-if attempt, the improvement pass, a
        solve whose provider picks are read ahead): the same clients, caches, memo, pool,
        statistics and cooldown record, with its own ``locks`` (default: these; a lock file:
        these terms keeping that file, :meth:`LockTerms.with_kept`), fetch budget
        (None: no limit), provider-pick listener (None: nobody listens) and, with
        ``own_calls``, its own record of the calls seen, so that this context's is left as
        it was."""
        v = object.__new__(type(self))  # the same run, a scope of its own
        v.run = self.run
        terms = self.terms if locks is None else locks if isinstance(locks, LockTerms) else \
            self.terms.with_kept(locks)
        v.scope = Scope(terms, fetch_budget, likely_provider,
                        dict(self.calls) if own_calls else self.calls)
        return v

    # ------------------------------------------------------------------ candidate providers

    def _listing_key(self, req: ModuleRequirement) -> tuple:
        """The memo key of the call's listing: one per package for a versioned call, one
        per address named for a call that names its version itself."""
        source = req.call.source
        if req.versioned:
            return ("list", self.index.package_address(source))
        if isinstance(source, OciSource):
            return ("pinned", str(source))
        if not isinstance(source, RemoteSource):  # a local source is followed, never listed
            raise TypeError(f"no listing for a local source: {source}")
        return ("pinned", source.package)

    def package_address(self, source: ModuleSource) -> str:
        """The package address of a source (:meth:`.index.ModuleIndex.package_address`)."""
        return self.index.package_address(source)

    def available(self, req: ModuleRequirement) -> list[AvailableVersion]:
        """What the call's source offers (listing cached per package for the run)."""
        return self._wait(self._listing_key(req), lambda: self.index.versions(req))

    def prefetch_available(self, req: ModuleRequirement) -> None:
        if self.run.prefetcher is not None:
            self.run.prefetcher.future(self._listing_key(req), lambda: self.index.versions(req),
                                       self.fetch_budget is not None)

    def module_candidates(self, req: ModuleRequirement) -> list[ModuleCandidate]:
        """The versions the call's constraint admits, newest first, as OpenTofu filters and
        orders them (no lock consulted: :meth:`preferred_candidates` gives the search's
        order). Raises NoVersionsError (nothing usable published, or a git remote without
        strict-SemVer tags) and network errors.

        Memoized per (call, source, constraint): the search asks again on every step back,
        and a large tree would otherwise re-select the same listing thousands of times
        (issue #23). What-if views share the memo."""
        key = (req.call_path, req.source_key, req.constraint.text if req.constraint is not None else None)
        hit = self.run.candidates.get(key)
        if hit is None:
            hit = self.run.candidates[key] = self._module_candidates(req)
        return list(hit)

    def _module_candidates(self, req: ModuleRequirement) -> list[ModuleCandidate]:
        avail = self.available(req)
        source = req.call.source
        pkg = self.package_address(source)
        if not req.versioned:
            return [ModuleCandidate(req.call_path, source, a, pkg) for a in avail]
        if not avail:
            kind = "versions" if isinstance(source, RegistrySource) else "semver tags"
            raise NoVersionsError("Module has no versions",
                                  f'Module "{req.call_path}" ({source}) has no {kind} to choose from.',
                                  req.call.version_where or req.call.where)
        by_label = {a.label: a for a in avail}
        labels = tuple(a.label for a in avail)
        # many calls share a package and a constraint: select once per pair
        key = (labels, req.constraint.text if req.constraint is not None else None)
        matching = self.run.matching.get(key)
        if matching is None:
            matching = self.run.matching[key] = list_module_versions(req.constraint, list(labels)).matching
        out = [ModuleCandidate(req.call_path, source, by_label[v.original], pkg) for v in matching]
        return out

    def locked_candidate(self, req: ModuleRequirement) -> ModuleCandidate | None:
        """The call's locked version as a candidate, built from the lock alone (no listing),
        when it applies: not upgrading, same source, still allowed by the constraint, and not
        denied by the policy (issue #47: a policy change is a lock change, as an edited
        constraint is: :meth:`lock_anchor` is where it moves from)."""
        cand = self.lock_anchor(req)
        if cand is None or self.lock_denial(cand) is not None:
            return None
        return cand

    def lock_denial(self, cand: ModuleCandidate) -> Refusal | None:
        """Why ``cand``'s version may not be selected, or None: its registry revoked it
        (:meth:`revocation`, issue #62 §3), else the policy rule that denies it
        (:func:`~.locks.policy_denial`; the call's address and source as written bound for
        ``module_policy`` rules). Remembered per candidate for the run's policy.

        Raises:
            ConfigurationError: a ``*.policy.hcl`` rule that cannot be evaluated."""
        policy = self.options.policy
        req = self.calls.get(cand.call_path)
        source = req.call.source_text if req is not None else cand.source_key
        key = (id(policy), cand.call_path, cand.available.label, cand.package, source)
        memo = self.run.refusals
        if key in memo:
            return memo[key]
        found: Refusal | None = self.revocation(cand)
        if found is None and policy is not None and policy.decides_versions:
            found = policy_denial(policy, Kind.MODULE, cand.package, cand.version,
                                  Subject.of_call(cand.call_path, source))
        memo[key] = found
        return found

    def lifecycle(self, source: ModuleSource) -> tuple[dict[str, Revocation], dict[str, Deprecation]]:
        """What its registry says of the versions of ``source``'s package (issue #62 §3):
        the revoked ones (HCP's and TFE's v2 API: "blocks new users";
        :meth:`~tofu_solve.remote.registry.RegistryClient.revocations`) and the deprecated
        ones (the listing already read), each by version label; both empty for another kind
        of source. The one place the solver asks."""
        if not isinstance(source, RegistrySource) or self.client is None:
            return {}, {}
        return self.client.lifecycle.revocations(source.package), self.client.lifecycle.deprecations(source.package)

    def deprecation(self, cand: ModuleCandidate) -> Deprecation | None:
        """The registry's deprecation of ``cand``'s version, or None (:meth:`lifecycle`)."""
        return self.lifecycle(cand.source)[1].get(cand.available.label)

    def revocation(self, cand: ModuleCandidate) -> Revocation | None:
        """The registry's revocation of ``cand``'s version, or None (:meth:`lifecycle`)."""
        return self.lifecycle(cand.source)[0].get(cand.available.label)

    def lock_anchor(self, req: ModuleRequirement) -> ModuleCandidate | None:
        """The call's locked version as a candidate whenever the configuration still admits
        it (not upgrading, same source, the constraint allows it), whether or not the policy
        denies it: what a lock that must move moves nearest to."""
        return module_lock_anchor(req, self.terms, self.package_address(req.call.source))

    def preferred_candidates(self, req: ModuleRequirement,
                             denied: Callable[[ModuleCandidate], object] | None = None) -> list[ModuleCandidate]:
        """The call's candidates in the one order the search offers them, which the
        improvement pass's lag is also measured in (issue #47): the locked version first
        when its lock applies; versions the policy denies passed over (kept only when
        nothing else is left, so that the conflict names the rule); then, for a call with a
        lock (applying, or one the policy denies), the versions nearest the locked one first
        (:func:`~.locks.nearest_first`), else newest first, as ``tofu init`` picks.

        ``denied``: whether the policy denies a candidate (None: allowed); default
        :meth:`lock_denial`. The search passes its own, which records each denial for the
        warnings.

        Raises:
            LockedVersionGone: the source no longer offers the locked version.
            NoVersionsError, network errors: as :meth:`module_candidates`.
        """
        listed = self.module_candidates(req)
        policy = self.options.policy
        revoked, deprecated = self.lifecycle(req.call.source)
        is_denied: Callable[[ModuleCandidate], object] | None = None
        if revoked or (policy is not None and policy.decides_versions):
            is_denied = denied if denied is not None else self.lock_denial
        locked = self.locked_candidate(req)
        anchor = locked if locked is not None else self.lock_anchor(req)
        lock = self.locks.modules.get(req.call_path)
        return preferred_order(req, listed, locked, anchor, is_denied, lock.line if lock is not None else 0,
                               (lambda c: c.available.label in deprecated) if deprecated else None)

    def listed(self, req: ModuleRequirement) -> list[ModuleCandidate] | None:
        """The call's candidates if its source was already listed this run, else None
        (never touches the network)."""
        if not self.run.memo.succeeded(self._listing_key(req)):
            return None
        try:
            return self.module_candidates(req)
        except TofuSolveError:
            return None

    def known_candidates(self, req: ModuleRequirement) -> list[ModuleCandidate] | None:
        """The call's candidates from what is already known, never the network: this run's
        listing, else, for a registry source, the listing an earlier run left in the cache
        (for warnings that follow from a locked selection on every init)."""
        listed = self.listed(req)
        if listed is not None or not isinstance(req.call.source, RegistrySource) or req.constraint is None:
            return listed
        labels = self.client.cached_module_versions(req.call.source.package) if self.client is not None else None
        if labels is None:
            return None
        avail = []
        for label in labels:
            try:
                avail.append(AvailableVersion(label, GoVersion.parse(label)))
            except TofuSolveError:
                continue
        by_label = {a.label: a for a in avail}
        pkg = str(req.call.source.package)
        return [ModuleCandidate(req.call_path, req.call.source, by_label[v.original], pkg)
                for v in list_module_versions(req.constraint, [a.label for a in avail]).matching]

    def listing_time(self, req: ModuleRequirement) -> float | None:
        """When the listing :meth:`known_candidates` gives was read (seconds since the epoch;
        registry sources), or None."""
        if not isinstance(req.call.source, RegistrySource) or self.client is None:
            return None
        return self.client.module_versions_listed_at(req.call.source.package)

    def no_match_error(self, req: ModuleRequirement) -> TofuSolveError:
        """OpenTofu's "Unresolvable module version constraint" for a call whose constraint
        matches nothing the source offers."""
        avail = self.available(req)
        listing = list_module_versions(req.constraint, [a.label for a in avail])
        newest = listing.newest
        where = req.call.version_where or req.call.where
        detail = (f'There is no available version of module "{req.call_path}" ({req.call.source}) which matches '
                  f'the given version constraint "{req.constraint.text if req.constraint else ""}".')
        if newest is not None:
            detail += f" The newest available version is {newest.string}."
        return NoMatchingVersionError("Unresolvable module version constraint", detail, where,
                                      newest=newest.string if newest else None)

    # ------------------------------------------------------------------ providers

    def provider_lock_listed(self, address: ProviderAddress, version: str) -> bool:
        """Whether ``address``'s listing offers the locked ``version``; a listing kept from
        an earlier run that does not (a teammate locked a newer release) is asked again
        first, unless offline."""
        if any(str(v) == version for v in self.provider_versions(address)):
            return True
        if self.options.offline:
            return False
        with self.run.lock:
            self.run.relisted.add(str(address))
        return any(str(v) == version for v in self.provider_versions(address, self.provider_source.relist))

    def relist_providers(self, addresses: set[str]) -> None:
        """Forget the listings of ``addresses`` this run: the next search asks for them again
        (init, after a search on the package store's listings moved one of them)."""
        with self.run.lock:
            self.run.relisted |= addresses

    def provider_versions(self, address: ProviderAddress,
                          lister: Callable[[ProviderAddress], list[str]] | None = None) -> list[gvs.Version]:
        """Provider versions ascending (a stable sort of the registry list); after
        :meth:`provider_lock_listed` asked again, the fresh listing."""
        fresh = str(address) in self.run.relisted
        lister = lister or self.provider_source.provider_versions

        def do() -> list[gvs.Version]:
            out = []
            for text in lister(address):
                try:
                    out.append(gvs.Version.parse(text))
                except TofuSolveError:
                    continue
            import functools
            out.sort(key=functools.cmp_to_key(lambda a, b: a.compare(b)))
            return out
        return self._wait(("provider", str(address)) + (("fresh",) if fresh else ()), do)

    def provider_allowed(self, address: ProviderAddress, constraint: ProviderConstraint) -> frozenset:
        """The released versions of ``address`` one constraint admits (memoized)."""
        def do() -> frozenset:
            return frozenset(v for v in self.provider_versions(address)
                             if not v.prerelease and gvs.meets(constraint.spec, v))
        return self._wait(("allowed", str(address), constraint.text, str(address) in self.run.relisted), do)

    def prefetch_provider(self, address: ProviderAddress) -> None:
        if self.run.prefetcher is not None:
            self.run.prefetcher.future(("provider_prefetch", str(address)), lambda: self.provider_versions(address),
                                       self.fetch_budget is not None)


__all__ = ["Context", "FetchBudgetExceeded", "Run", "Scope", "SolveOptions", "StoreView"]
