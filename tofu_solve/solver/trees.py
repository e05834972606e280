"""How a context reads module trees (split from :class:`~.context.Context` in issue #71 §2):
the candidate's requirements from the on-disk metadata cache, else from the module index (one
read per package and version, never one per call), under the view's fetch budget; trees of
nested calls read ahead and written to the cache only once someone asks for them; and the
check that a locked registry version is still listed, made beside its fetch.

:class:`TreeReads` is a base of :class:`~.context.Context`: it reads the run (:class:`Run`)
and the view's scope (:class:`Scope`) the context holds, and asks the context for listings.
"""

from __future__ import annotations

from collections.abc import Callable

from ..addrs.module_source import RegistrySource
from ..config.tree import ModuleTree
from ..errors import ConfigurationError, TofuSolveError
from ..providers import AvailableVersion
from ..versions.hashicorp_go_version import GoVersion
from ..versions.version_pick import list_module_versions
from .index import tree_key
from .locks import gone_module_lock
from .model import ModuleCandidate, ModuleRequirement
from .run import Run, Scope, SolveOptions


class FetchBudgetExceeded(Exception):
    """The after-solve improvement pass asked for more module versions than its budget."""


class TreeReads:
    """The tree-reading part of a context (thread-safe, as the context is).

    Attributes:
        run: what every part of the run shares (memo, metadata cache, index, statistics).
        scope: this view's own (locks, fetch budget, calls).
    """

    run: Run
    scope: Scope

    def available(self, req: ModuleRequirement) -> list[AvailableVersion]:
        """The call's listing (the context's)."""
        raise NotImplementedError

    def prefetch_available(self, req: ModuleRequirement) -> None:
        """Start the call's listing in the background (the context's)."""
        raise NotImplementedError

    def locked_candidate(self, req: ModuleRequirement) -> ModuleCandidate | None:
        """The call's locked version as a candidate when its lock applies (the context's)."""
        raise NotImplementedError

    def module_candidates(self, req: ModuleRequirement) -> list[ModuleCandidate]:
        """The call's candidates (the context's)."""
        raise NotImplementedError

    @property
    def options(self) -> SolveOptions:
        """The solve's options (the run's)."""
        return self.run.options

    def known_tree(self, cand: ModuleCandidate) -> ModuleTree | ConfigurationError | None:
        """The candidate's tree as the metadata cache holds it (read this run or an earlier
        one), or, from an in-memory index, as the index holds it; None when unknown. Never
        fetches."""
        held = self.run.index.held(cand)
        return held if held is not None else self._cached(self.tree_key(cand))

    def _cached(self, key: tuple[str, str, str]) -> ModuleTree | ConfigurationError | None:
        return self.run.metadata.get(*key) if self.run.metadata is not None else None

    def tree_key(self, cand: ModuleCandidate) -> tuple[str, str, str]:
        """The key the candidate's tree is known by (:func:`.index.tree_key`)."""
        return tree_key(cand)

    def tree(self, cand: ModuleCandidate) -> ModuleTree | ConfigurationError:
        """The candidate's requirements, or the configuration error that makes it unusable.

        Raises:
            NetworkError and the like: fetching the package failed.
            FetchBudgetExceeded: a fetch budget is set (:attr:`fetch_budget`) and it is
                spent; the tree is neither fetched nor remembered as failed.
        """
        key = self.tree_key(cand)
        if self.scope.fetch_budget is not None and self.run.index.held(cand) is None and \
                not self._known_this_run(("tree",) + key) and self._cached(key) is None and not self._spend_fetch():
            raise FetchBudgetExceeded()
        self._claim(("tree",) + key)
        return self.run.memo.run(("tree",) + key, lambda: self.load_tree(cand, key))

    def _spend_fetch(self) -> bool:
        """Take one module version from this view's fetch budget (counted in the run's
        statistics); False when it is spent. No budget: always True."""
        with self.run.lock:
            left = self.scope.fetch_budget
            if left is None:
                return True
            if left <= 0:
                return False
            self.scope.fetch_budget = left - 1
            self.run.stats.improve_fetches += 1
            return True

    def _known_this_run(self, memo_key: tuple) -> bool:
        """Read this run, or being read (a prefetch already counted), by someone who asked
        for it: a nested call's tree read ahead and not yet asked for does not count."""
        with self.run.lock:
            if memo_key in self.run.speculative:
                return False
        return memo_key in self.run.memo

    def _claim(self, memo_key: tuple) -> None:
        """Someone asks for the tree at ``memo_key``: if it was read ahead for a nested call,
        it counts as read from now on, and is written to the metadata cache (now, or when
        its read ends)."""
        with self.run.lock:
            if memo_key not in self.run.speculative:
                return
            self.run.speculative.discard(memo_key)
            if memo_key not in self.run.unsaved:
                return  # still being read: load_tree writes it
            value = self.run.unsaved.pop(memo_key)
        _, package, ref, subdir = memo_key
        if self.run.metadata is not None:
            self.run.metadata.put(package, ref, subdir, value)

    def tree_known(self, cand: ModuleCandidate) -> bool:
        """Whether :meth:`tree` would answer without fetching (read this run, or in the
        metadata cache, or held by an in-memory index)."""
        if self.run.index.held(cand) is not None:
            return True
        key = self.tree_key(cand)
        if self.run.memo.done(("tree",) + key) and self._known_this_run(("tree",) + key):
            return True
        return self._cached(key) is not None

    def prefetch_tree(self, cand: ModuleCandidate) -> None:
        """Start reading the candidate's tree in the background. Under a fetch budget, a
        tree not yet known is read ahead only while the budget lasts, and counts against it."""
        ahead = self.run.prefetcher
        if ahead is None:
            return
        key = self.tree_key(cand)
        if self.scope.fetch_budget is None:
            ahead.future(("tree",) + key, lambda: self.load_tree(cand, key), False)
            self._claim(("tree",) + key)
            return
        if self._known_this_run(("tree",) + key):
            return
        if self._cached(key) is None and not self._spend_fetch():
            return
        self._claim(("tree",) + key)
        if ("tree",) + key not in self.run.memo:
            ahead.submit(("tree",) + key, lambda: self.load_tree(cand, key))

    def load_tree(self, cand: ModuleCandidate, key: tuple, nested: bool = True) -> ModuleTree | ConfigurationError:
        """The tree from the metadata cache, else from the index (then kept in the cache,
        unless it was read ahead and nobody asked for it yet). ``nested``: read the trees
        of the nested calls ahead (:meth:`.prefetch.Prefetcher.nested`); not for a tree itself
        read ahead for a nested call (one level, no cascade), nor in a run without read-ahead
        (an in-memory index)."""
        ahead = self.run.prefetcher if nested else None
        cached = self._cached(key)
        if cached is not None:
            with self.run.lock:
                self.run.stats.trees_from_cache += 1
            if ahead is not None and isinstance(cached, ModuleTree):
                ahead.nested(self, cand, cached)
            return cached
        check = self._locked_version_check(cand)
        try:
            value = self.run.index.tree(cand)
        except Exception:
            if check is not None:
                check()  # a version no longer listed explains why it cannot be had
            raise
        if check is not None:
            check()
        with self.run.lock:
            self.run.stats.trees_read += 1
            unsaved = ("tree",) + key in self.run.speculative
            if unsaved:
                self.run.unsaved[("tree",) + key] = value
        if not unsaved and self.run.metadata is not None:
            self.run.metadata.put(key[0], key[1], key[2], value)
        if ahead is not None and isinstance(value, ModuleTree):
            ahead.nested(self, cand, value)
        return value

    def _locked_version_check(self, cand: ModuleCandidate) -> Callable[[], None] | None:
        """For a registry version built from the lock that is not in the metadata cache (the
        run goes to the network for it anyway): start listing its source beside the fetch,
        and return the check that the listing offers the locked version (a withdrawn version,
        or a hand-edited lock whose package pin still installs another version's contents, is
        an error, issue #34); None when there is nothing to check. A warm run, whose cached
        package the lock's ``h1:`` verifies, lists nothing; a git tag or OCI tag is not
        listed either: its lock names the commit or digest it installs (issue #25), so a
        deleted tag changes nothing, and a moved one is caught by its identity."""
        lock = self.scope.terms.kept.modules.get(cand.call_path)
        req = self.scope.calls.get(cand.call_path)
        if lock is None or req is None or self.run.options.offline or lock.version != cand.version_text \
                or not isinstance(cand.source, RegistrySource):
            return None  # a git or OCI lock is its commit or digest, installed as pinned (issue #25)
        store = self.run.store
        stored = store is not None and store.expects_package(lock.package)
        if not stored:
            self.prefetch_available(req)

        def check() -> None:
            if store is not None and stored and store.served_package(lock.package):
                return  # verified against the lock's h1: as a cached package is: nothing listed
            try:
                listed = {a.label for a in self.available(req)} | {
                    a.version.string for a in self.available(req) if a.version is not None}
            except TofuSolveError:
                return  # the listing's own failure is met where the listing is needed
            if cand.available.label not in listed and cand.version_text not in listed:
                admitted = list_module_versions(req.constraint, [a.label for a in self.available(req)]).matching
                raise gone_module_lock(req, cand.version_text, lock.line,
                                       [v for v in admitted if isinstance(v, GoVersion)])
        return check
