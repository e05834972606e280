"""What a run reads ahead of the search, in the background, on a bounded thread pool
(issue #51 §1: the context remembers; this reads ahead). Only a run over the network is
given one: an in-memory index has nothing to read ahead.

Two kinds of work: a question the search will ask (a listing, a tree, a provider's
versions) started early and remembered in the run's memo when it ends (:meth:`Prefetcher.future`,
:meth:`Prefetcher.submit`); and the trees nested calls take first, read before anyone asks
(:meth:`Prefetcher.nested`), which count as not read until someone does (the context's
``speculative`` bookkeeping)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol

from .._threads import worker_pool
from ..config.tree import ModuleTree
from ..remote.flight import SingleFlight
from . import readahead
from .model import ModuleCandidate, ModuleRequirement, Origin


class Asked(Protocol):
    """What the read-ahead asks of the context (the view) it reads ahead for."""

    @property
    def options(self) -> Any: ...

    def locked_candidate(self, req: ModuleRequirement) -> ModuleCandidate | None: ...

    def module_candidates(self, req: ModuleRequirement) -> list[ModuleCandidate]: ...

    def tree_key(self, cand: ModuleCandidate) -> tuple[str, str, str]: ...

    def load_tree(self, cand: ModuleCandidate, key: tuple, nested: bool = True) -> Any: ...


class Prefetcher:
    """The run's read-ahead: its pool (``workers`` threads) and what it starts on it, each
    answer kept in ``memo`` (guarded by ``lock``, the run's); ``speculative``: the run's
    memo keys of trees read ahead that nobody asked for yet."""

    def __init__(self, memo: SingleFlight, lock: threading.Lock, speculative: set[tuple], workers: int):
        self.memo, self.lock, self.speculative = memo, lock, speculative
        self.pool = worker_pool(workers, "tofu-solve-net")

    def future(self, key: tuple, fn: Callable, budgeted: bool) -> None:
        """Start ``fn`` for ``key`` in the background unless it is known or being read, or
        the asking view has a fetch budget (``budgeted``: nothing is read ahead then);
        errors surface later, when the answer is asked for."""
        with self.lock:
            if key in self.memo or budgeted:
                return
        self.submit(key, fn)

    def submit(self, key: tuple, fn: Callable) -> None:
        """Start ``fn`` for ``key`` in the background now. The entry exists from now on, not
        from when a worker starts the task: whoever asks for the key meanwhile sees it as
        being read (under a fetch budget, already paid for) and waits for it, or reads it
        first itself, never pays for it twice."""
        self.memo.reserve(key)

        def run() -> None:
            try:
                self.memo.run(key, fn)
            except Exception:
                pass
        self.pool.submit(run)

    def nested(self, ctx: Asked, cand: ModuleCandidate, tree: ModuleTree) -> None:
        """Start reading, in the background, the tree that each nested call of ``cand``
        (read at its ``tree``) takes first: its listing, then its first candidate (the
        newest its constraint admits, or its locked version). Whether or not the search
        pins ``cand``, this shortens a walk down a call that has nested calls from one
        round trip per level to one (each version of eks, then the kms its version calls,
        issue #23). Until asked for, such a tree counts as not read (the run's
        ``speculative`` set). Not with a release cooldown (listing a nested call would note
        held-back versions for calls the search may never reach)."""
        if ctx.options.min_age:
            return
        prefix = f"{cand.call_path}."
        seen: set[tuple] = set()
        for rc in tree.remote_calls:
            what = (str(rc.call.source), rc.call.version.text if rc.call.version is not None else None)
            if what in seen:
                continue  # another call to the same source and constraint takes the same version
            if len(seen) >= readahead.NESTED:
                return  # bounded: a version with hundreds of calls is read as the search reaches them
            seen.add(what)
            child = prefix + ".".join(rc.rel_path)
            req = ModuleRequirement(child, rc.call, Origin(cand.call_path, cand.version_text, rc.call.where),
                                    str(rc.call.source))
            try:
                self.pool.submit(self._first_candidate, ctx, req)
            except RuntimeError:  # the run is closing
                return

    def _first_candidate(self, ctx: Asked, req: ModuleRequirement) -> None:
        # as the search takes them: the locked version, built from the lock (a warm re-init
        # lists nothing), else the first of the listing
        first = ctx.locked_candidate(req)
        if first is None:
            try:
                cands = ctx.module_candidates(req)
            except Exception:  # the search meets the same error, if it gets there
                return
            if not cands:
                return
            first = cands[0]
        key = ctx.tree_key(first)
        memo_key = ("tree",) + key
        speculative = self.speculative
        with self.lock:
            if not self.memo.reserve(memo_key):
                return  # read, or being read, already
            speculative.add(memo_key)

        def run() -> None:
            try:
                self.memo.run(memo_key, lambda: ctx.load_tree(first, key, nested=False))
            except Exception:
                # nobody asked for it: the run goes on as if it had never been read (a
                # failure that was only bad luck is not remembered for the search)
                with self.lock:
                    if memo_key in speculative:
                        speculative.discard(memo_key)
                        self.memo.forget_failure(memo_key)
        try:
            self.pool.submit(run)
        except RuntimeError:  # the run is closing: nobody will ask for it
            with self.lock:
                speculative.discard(memo_key)

    def close(self, abort: Callable[[], None]) -> None:
        """Queued work is dropped, ``abort`` stops what is running (git fetches, downloads),
        then the threads are joined: nothing writes into the cache after this returns."""
        self.pool.shutdown(wait=False, cancel_futures=True)
        abort()
        self.pool.shutdown(wait=True)


__all__ = ["Prefetcher"]
