"""Solve, then verify (split from ``command/init.py`` in issue #71 §2): the root solved with
the run's context, each module package verified against the lock while the provider lock
blocks are planned beside it, what the lock and the state record need gathered in one
:class:`SolvedAndVerified`.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from .._threads import worker_pool
from ..config.tree import ModuleTree
from ..events import PhaseDone, Progress
from ..lockfile import ModuleLock
from ..plugins import ProviderLockPlan, current_platform
from ..plugins.packages import packages_for_run
from ..plugins.provider_locks import plan_for_resolution
from ..plugins.provider_readahead import ProviderReadAhead
from ..providers import Package
from ..remote.package_store.store import PackageStore
from ..remote.registry import ask_provider_repositories
from ..settings import Settings
from ..solver.changes import lock_change_reasons
from ..solver.locks import refuse_against_policy
from ..solver.model import ModuleCandidate
from ..solver.resolve import Resolution
from ..solver.verdicts import kept_out
from ..solver.wiring import Wiring
from .accept import AcceptedChecksums
from .overrides import refuse_provider_expressions, refuse_unloadable
from .solved import snapshot
from .stamp import HashMemo
from .store_sync import solve_listing_from_store, store_listing
from .verify import AcceptedChecksum, hash_diagnosis, verify_packages

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class InstallFlags:
    """What of ``init``'s flags the solve and the verification read.

    Attributes:
        upgrade: ``-upgrade`` (no lock applies).
        readonly: ``-lockfile=readonly``.
        offline: ``-offline``.
        platforms: ``-platform`` (default this machine's).
        plugin_cache: where provider packages go when the CLI configuration names no
            ``plugin_cache_dir``.
        workers: parallel provider lock work.
    """

    upgrade: bool = False
    readonly: bool = False
    offline: bool = False
    platforms: tuple[str, ...] = ()
    plugin_cache: Path | None = None
    workers: int = 48


@dataclass
class SolvedAndVerified:
    """What the solve and the verification gave ``init``.

    Attributes:
        res: the resolution.
        selected: call path -> (candidate, package, new lock), verified.
        trees: the module trees installed copies are written from.
        verified: call paths whose package matched the lock.
        plan: the provider lock blocks.
        new_modules: call path -> new module lock.
        state_doc: the record ``why`` and ``graph`` read (``.terraform/tofu-solve.json``).
        reasons: subject -> why its lock changed.
        moves: call path -> (locked, found) package locations of the same identity.
        provider_ms: milliseconds the provider locks took, beside the verification.
        read_ahead: provider versions read ahead during the solve.
        plugin_cache: where provider packages were placed for the client's init.
    """

    res: Resolution
    selected: dict[str, tuple[ModuleCandidate, Package, ModuleLock]]
    trees: dict
    verified: list[str]
    plan: ProviderLockPlan
    new_modules: dict[str, ModuleLock]
    state_doc: dict
    reasons: dict[str, str]
    moves: dict[str, tuple[str, str]]
    provider_ms: int
    read_ahead: int
    plugin_cache: Path | None
    accepted: dict[str, tuple[AcceptedChecksum, str]] = field(default_factory=dict)  # path -> (it, its NAME)
    dropped: dict[str, tuple[str, ...]] = field(default_factory=dict)  # a merged block's unverified hashes (#67 §5)
    asking: tuple = ()  # the threads asking providers' repositories for the SBOM (never on the critical path)
    kept_out: dict = field(default_factory=dict)  # (subject, version) -> the rule that kept it out (.verdicts)


def solve_and_verify(tree: ModuleTree, root: Path, settings: Settings, wired: Wiring, store: PackageStore | None,
                     memo: HashMemo, progress: Progress | None, accept: AcceptedChecksums | None = None,
                     merged: frozenset[str] = frozenset(), *, flags: InstallFlags) -> SolvedAndVerified:
    """Solve ``tree`` with the run's context (``wired``), whose lock terms
    (:class:`~tofu_solve.solver.lock_terms.LockTerms`) say which locks hold; then verify the
    module packages against the lock while the provider lock blocks are planned (both are
    network round trips that do not depend on each other). The context is closed at the end.

    Raises:
        TofuSolveError: the solve's, the verification's and the provider plan's errors
            (:func:`~tofu_solve.workdir.verify.verify_packages`).
    """
    ctx = wired.context
    terms = ctx.terms
    locks, providers_again = terms.recorded, terms.relisted_providers
    packages = packages_for_run(wired, flags.offline, flags.plugin_cache)
    platforms = tuple(dict.fromkeys(flags.platforms)) or (current_platform(),)
    # The solver's likely provider picks are read ahead while it runs (issue #13).
    ahead = ProviderReadAhead(packages, platforms, {} if flags.upgrade else {
        a: p.version for a, p in terms.kept.providers.items()})
    moves: dict[str, tuple[str, str]] = {}  # locked packages found at another location (issue #34)
    try:
        started = time.monotonic()
        listing = store_listing(ctx, store, terms.kept, bool(flags.upgrade or flags.offline), providers_again)
        res = solve_listing_from_store(tree, ctx, ahead, root, listing)
        log.debug("modules solved in %.2f s: %d module calls, %d packages fetched, %d trees read",
                  time.monotonic() - started, len(res.modules), ctx.stats.packages_fetched, ctx.stats.trees_read)
        refuse_unloadable(res, ctx.options.target)
        refuse_provider_expressions(res, ctx.options.target)
        accept = accept or AcceptedChecksums()
        accept.refuse_moves(res, locks)
        if progress:
            progress(PhaseDone("modules", len(res.modules), ctx.stats.packages_fetched))
        # each provider's source repository, for the SBOM (issue #60 §3): asked beside the
        # downloads and never waited for (issue #72 §1: nothing the lock does not need is on
        # the critical path); what has not answered when the run ends is asked by the next one
        asking = ask_provider_repositories(wired.client, [p.address for p in res.providers.values()]) \
            if wired.client is not None else ()
        with worker_pool(1, "tofu-solve-provider-locks") as one:
            started = time.monotonic()
            # against the lock file as it was: targeted providers are rebuilt, changes reported truly
            planned = one.submit(plan_for_resolution, res, locks, packages, platforms, flags.workers,
                                 providers_again, frozenset(accept.providers), merged)
            accepted: list[AcceptedChecksum] = []
            dropped: dict[str, tuple[str, ...]] = {}
            selected, trees, verified = verify_packages(
                res, terms.verified_against(), wired, flags.upgrade, flags.readonly, moves, memo,
                hash_diagnosis(root, settings, memo), frozenset(accept.modules), accepted, merged, dropped,
                recorded=locks)
            log.debug("module packages verified in %.2f s", time.monotonic() - started)
            plan = planned.result()
            provider_ms = round((time.monotonic() - started) * 1000)
            log.debug("provider locks planned in %.2f s", provider_ms / 1000)
        if progress:
            progress(PhaseDone("providers", len(plan.providers)))
        new_modules = {p: lock for p, (_, _, lock) in selected.items()}
        refuse_against_policy(ctx.options.policy, new_modules, plan.unsigned)
        state_doc = snapshot(res, ctx, locks.with_modules(new_modules))
        kept = kept_out(ctx, res)  # what a rule kept out, recorded once the search is done
        reasons = lock_change_reasons(res, ctx, locks, kept)
    finally:
        ahead.close()
        ctx.close()
    return SolvedAndVerified(res, selected, trees, verified, plan, new_modules, state_doc, reasons, moves, provider_ms,
                   sum(len(v) for v in ahead.guesses().values()), packages.plugin_cache_dir,
                   {a.path: (a, accept.modules[a.path]) for a in accepted if a.changed}, {**dropped, **plan.dropped},
                   asking, kept)
