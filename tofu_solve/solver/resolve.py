"""Wiring: build the root requirements, run resolvelib with a round cap, translate its
exceptions into tofu-solve errors at this one boundary, and collect the result."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from resolvelib.resolvers import Criterion, ResolutionImpossible, ResolutionTooDeep, Result

from .._lazy import load
from ..addrs.product import OPENTOFU, Product
from ..config.policy import Subject
from ..config.tree import ModuleTree
from ..errors import (
    ConfigurationError,
    NoMatchingVersionError,
    ResolutionError,
    TofuSolveError,
    locked_version_gone,
)
from ..events import LookingForDeadEnds, StillResolving
from . import hypothetical
from .conservative import Feasibility, check_budget, fewest_to_release
from .context import Context
from .factory import requirements_of_tree
from .fenced import FencedOff, fenced_off
from .hypothetical import SearchCounts
from .improve import improve
from .locks import Holds, locked_subjects, module_requirements_of, moved
from .model import (
    ROOT,
    Candidate,
    CoreRequirement,
    Identity,
    ModuleCandidate,
    ModuleRequirement,
    ProviderCandidate,
    ProviderRequirement,
    Requirement,
    TofuCandidate,
)
from .optimum import Optimality, optimise, settled
from .reporter import Interrupted, SearchReporter
from .resolvelib_provider import TofuSolveProvider
from .search import Search
from .upgrades import BlockedUpgrade, blocked_upgrades

if TYPE_CHECKING:
    from .propagate import Pruning

log = logging.getLogger(__name__)  # TF_LOG=DEBUG: the phases of a solve


@dataclass
class Resolution:
    """A consistent choice for the whole tree.

    Attributes:
        modules: call path -> selected candidate.
        module_requirements: call path -> the requirement (the call and who made it).
        providers: provider address -> selected version.
        provider_requirements: provider address -> every constraint on it.
        core_requirements: every OpenTofu constraint that counts for the target.
        tofu: the OpenTofu version solved for.
        root_tree: the root module's tree.
        warnings: things the user should know (human text).
    """

    modules: dict[str, ModuleCandidate]
    module_requirements: dict[str, ModuleRequirement]
    providers: dict[str, ProviderCandidate]
    provider_requirements: dict[str, list[ProviderRequirement]]
    core_requirements: list[CoreRequirement]
    tofu: TofuCandidate
    root_tree: ModuleTree
    warnings: list[str] = field(default_factory=list)
    rounds: int = 0
    target_origin: str = ""
    product: Product = OPENTOFU  # what tofu is a version of: OpenTofu or Terraform
    released: frozenset[Identity] = frozenset()  # locks that applied and had to move (the fewest: issue #34)
    # when the locks as they were admitted no solution: how many locks the search that holds
    # none (each still preferred) moved, the bound the minimisation started from; else None
    soft_moves: int | None = None
    # -upgrade=NAME: names a newer version of which needs other locks to move
    blocked_upgrades: list[BlockedUpgrade] = field(default_factory=list)
    # selected module versions their own line fenced off (init warns about each)
    fenced_off: list[FencedOff] = field(default_factory=list)
    # the selection's objective and whether it is proven best (issue #48 §3; .optimum)
    optimality: Optimality | None = None
    searches: SearchCounts = field(default_factory=lambda: SearchCounts())


THRASH_BACKTRACKS = 16  # backtracks before the search stops to look for certain dead ends (issue #13: of
# the 320 solvable assembled pairs, 318 go back fewer than 10 times, one 12 and one 56 times;
# the impossible ones go back from 5 to hundreds of times)


class Unsatisfiable(ResolutionError):
    """The search proved that no consistent set of versions exists.

    Carries the facts an explanation starts from (:func:`tofu_solve.explain.explain_impossible`
    turns them into the error a user sees): resolvelib's ``causes`` (empty when the dead-end
    pass proved the clash), the root ``requirements`` and ``tree``, and the ``root`` directory.
    """

    def __init__(self, causes: Iterable[object], requirements: list, tree: ModuleTree, root: Path | None) -> None:
        super().__init__("No consistent set of versions",
                         "No choice of module, provider and OpenTofu versions meets every constraint.",
                         explanation={"kind": "conflict"})
        self.causes = list(causes)
        self.requirements = requirements
        self.tree = tree
        self.root = root


def root_requirements(tree: ModuleTree, ctx: Context) -> list:
    reqs = requirements_of_tree(tree, ROOT, None, None, ctx)
    ctx.note_calls(reqs)
    return reqs


def precheck(reqs: list, ctx: Context) -> None:
    """Fail fast, with OpenTofu's own messages, on root module calls that can never be
    satisfied (no versions, no matching version), and on a provider lock whose version the
    provider's listing no longer offers (:func:`~tofu_solve.errors.locked_version_gone`). A lock an
    edited constraint no longer admits is not an error: that call is solved afresh
    (issue #34, the conservative update).

    Raises:
        LockedVersionGone, NoVersionsError, NoMatchingVersionError.
    """
    module_reqs = [r for r in reqs if isinstance(r, ModuleRequirement)]
    for r in reqs:  # the root's provider listings start at once, beside the module listings
        if isinstance(r, ProviderRequirement) and not r.address.is_builtin:
            ctx.prefetch_provider(r.address)
    unlocked = [r for r in module_reqs if ctx.locked_candidate(r) is None]
    for r in unlocked:
        ctx.prefetch_available(r)
    for r in unlocked:
        try:
            if not ctx.module_candidates(r):
                raise ctx.no_match_error(r)
        except TofuSolveError as e:  # a source that cannot be listed (404, unreachable): at its source line
            raise e.at(r.call.source_at) from None


def refuse_sources(reqs: list, ctx: Context) -> None:
    """A call of the root module (or of its local modules) from a source the policy
    refuses is an error at its ``source`` line naming the rule (issue #39); a package's
    calls make that version unusable instead (:meth:`TofuSolveProvider._refused_call`).

    Raises:
        ConfigurationError: "Module source refused by policy"."""
    policy = ctx.options.policy
    if policy is None:
        return
    for r in reqs:
        if isinstance(r, ModuleRequirement):
            refusal = policy.source_refusal(r.call.source)
            if refusal is not None:
                raise ConfigurationError(
                    "Module source refused by policy",
                    f'Module "{r.call_path}" comes from {refusal[1]}, which the policy refuses '
                    f"({policy.refusal_words(refusal[0])}). Use a source the policy allows, or change the policy.",
                    r.call.source_at)


def refuse_local_calls(tree: ModuleTree, ctx: Context) -> None:
    """A local call of the root module (or of its local modules) that a ``mandatory``
    ``module_policy`` refuses (issue #62: ``meta.version`` is null for a local path, which
    has no versions to choose among) is an error at its ``source`` line naming the rule.

    Raises:
        ConfigurationError: "Module call refused by policy"."""
    policy = ctx.options.policy
    if policy is None or not policy.hcl_rules:
        return
    for lc in tree.local_calls:
        path = ".".join(lc.path)
        failed = next((f for f in policy.module_verdicts(lc.call.source_text, None,
                                                         Subject.of_call(path, lc.call.source_text))
                       if f.level != "advisory" and not f.overridden), None)
        if failed is not None:
            raise ConfigurationError("Module call refused by policy",
                                     f'Module "{path}" ({lc.call.source_text}) fails {failed.cite()}. Change the '
                                     "call, or the policy.", lc.call.source_at)


def refuse_gone_provider_locks(subjects: frozenset[Identity], reqs: list, ctx: Context) -> None:
    """A provider lock that applies, whose version the provider's listing no longer offers,
    is an error naming it (OpenTofu: "the previously-selected version %s is no longer
    available"), never a silent re-pick.

    Raises:
        LockedVersionGone.
    """
    addresses = {str(r.address): r for r in reqs if isinstance(r, ProviderRequirement)}
    for addr, lock in sorted(ctx.locks.providers.items()):
        if Identity.provider(addr) not in subjects:
            continue
        req = addresses.get(addr)
        if req is None:
            continue  # required only inside modules: checked when the search lists it
        if not ctx.provider_lock_listed(req.address, lock.version):
            raise locked_version_gone(f"provider {req.address.for_display}", lock.version,
                                      f"-upgrade={ctx.options.target.product.short(addr)}", req.origin.where)


@dataclass
class _Searched:
    """One search's outcome: the result, the candidate provider it ran with (its dead
    ends), the reporter's counts, and the dead-end pass if one ran."""

    result: Result
    provider: TofuSolveProvider
    reporter: SearchReporter
    pruning: Pruning | None


def solve(tree: ModuleTree, ctx: Context, root: Path | None = None) -> Resolution:
    """Resolve the tree rooted at ``tree``, moving as few locks as a solution allows.

    Every lock that applies (:mod:`.locks`) is held first; a warm re-init ends there. When
    the locks as they are admit no solution (an edit needs another lock to move), the
    fewest locks are released (:func:`.conservative.minimal_release`), each moving to the
    version nearest its lock; a call whose constraint was edited so that it no longer
    admits its lock, a new call and an ``-upgrade`` target are chosen afresh, newest first.

    Raises:
        Unsatisfiable: no consistent choice exists whatever the locks (the facts for an
            explanation: :func:`tofu_solve.explain.solve` explains it).
        ResolutionError: the round cap was reached (naming what the search went back and
            forth on).
        LockedVersionGone: a locked version its source no longer offers.
        NoMatchingVersionError, NoVersionsError: a root call that can
            never be satisfied as written.
        NetworkError, RegistryError: the outside world failed.
    """
    reqs = root_requirements(tree, ctx)
    refuse_sources(reqs, ctx)
    refuse_local_calls(tree, ctx)
    precheck(reqs, ctx)
    subjects = locked_subjects(reqs, ctx)
    refuse_gone_provider_locks(subjects, reqs, ctx)
    released: frozenset[Identity] = frozenset()
    soft_moves: int | None = None
    searches = SearchCounts(held=1)
    try:
        done = _search(reqs, ctx, tree, root, Holds(subjects, subjects))
    except Unsatisfiable:
        if not subjects:
            raise
        done, released, soft_moves = _release_fewest(reqs, ctx, tree, root, subjects, searches)
    result, provider, reporter, pruning = done.result, done.provider, done.reporter, done.pruning
    log.debug("search done: %d rounds, %d backtracks", reporter.rounds, reporter.backtracks)
    started = time.monotonic()
    result = improve(result, reqs, provider, ctx, rounds=max(500, 2 * reporter.rounds),
                     pruning=pruning if pruning is not None and not pruning.partial else None)
    log.debug("after-solve pass in %.2f s", time.monotonic() - started)
    started = time.monotonic()
    optimality = settled(result, ctx, subjects)
    if optimality is None:  # the stated objective, met exactly over the universe read (issue #48 §3)
        dead = {k: set(v) for k, v in provider.pruned.items()}
        if pruning is not None and not pruning.partial:
            for k, v in pruning.dead.items():
                dead.setdefault(k, set()).update(v)
        searches.exact += 1
        result, optimality = optimise(result, reqs, ctx, subjects, dead, ctx.options.max_rounds)
        log.debug("exact optimiser in %.2f s: %s", time.monotonic() - started, optimality)
    res = _collect(result, ctx, tree)
    res.rounds, res.released, res.soft_moves, res.optimality, res.searches = \
        reporter.rounds, released, soft_moves, optimality, searches
    res.fenced_off = fenced_off(res.modules, res.module_requirements, res.providers, ctx)
    res.blocked_upgrades = blocked_upgrades((res.modules, res.module_requirements, res.providers), reqs, ctx,
                                            subjects, provider.pruned, searches)
    return res


def _collect(result: Result, ctx: Context, tree: ModuleTree) -> Resolution:
    """The resolution a search's ``result`` selects: each module call's and provider's pick
    (sorted), every requirement that took part, the OpenTofu version (the target's when no
    requirement named one)."""
    modules: dict[str, ModuleCandidate] = {}
    module_reqs: dict[str, ModuleRequirement] = {}
    providers: dict[str, ProviderCandidate] = {}
    provider_reqs: dict[str, list[ProviderRequirement]] = {}
    core: list[CoreRequirement] = []
    tofu = None
    for ident, cand in result.mapping.items():
        if isinstance(cand, ModuleCandidate):
            modules[ident.name] = cand
        elif isinstance(cand, ProviderCandidate):
            providers[ident.name] = cand
        elif isinstance(cand, TofuCandidate):
            tofu = cand
    for crit in result.criteria.values():
        for info in crit.information:
            r = info.requirement
            if isinstance(r, ModuleRequirement):
                module_reqs[r.call_path] = r
            elif isinstance(r, ProviderRequirement):
                provider_reqs.setdefault(str(r.address), []).append(r)
            elif isinstance(r, CoreRequirement):
                core.append(r)
    if tofu is None:
        tofu = TofuCandidate(ctx.options.target.version)
    return Resolution(dict(sorted(modules.items())), module_reqs, dict(sorted(providers.items())), provider_reqs,
                      core, tofu, tree, target_origin=ctx.options.target.origin, product=ctx.options.target.product)


def _release_fewest(reqs: list, ctx: Context, tree: ModuleTree, root: Path | None, subjects: frozenset[Identity],
                    searches: SearchCounts) -> tuple[_Searched, frozenset[Identity], int]:
    """The locks as they are admit no solution: a search that holds none (each still offered
    first) proves one exists, or raises the clash to explain, and what it moved bounds what
    must move; the fewest locks are released (:func:`.conservative.fewest_to_release`, each
    held set searched once, on a fetch budget). Returns (the solution, the released locks,
    how many the search holding none moved).

    Raises:
        Unsatisfiable, ResolutionError: as :func:`solve`.
    """
    started = time.monotonic()
    searches.holding_none += 1
    soft = _search(reqs, ctx, tree, root, Holds(frozenset(), subjects))
    upper = frozenset(moved(soft.result.mapping, module_requirements_of(soft.result.criteria), ctx, subjects))
    pruned = {k: set(v) for k, v in soft.provider.pruned.items()}
    dead_locks = [frozenset({Identity.module(p)}) for p, lock in ctx.locks.modules.items()
                  if Identity.module(p) in subjects and lock.version in pruned.get(p, ())]
    view = hypothetical.view(ctx)
    feasibility = Feasibility(
        lambda held: hypothetical.feasible(reqs, view, pruned, Holds(held, subjects)),
        # the held search failed; holding nothing, and so holding all but what it moved, solved
        {subjects: None, frozenset(): soft.result, subjects - upper: soft.result})
    released, found = fewest_to_release(subjects, feasibility, upper, check_budget(len(soft.result.mapping)),
                                        known=dead_locks)
    searches.feasibility += feasibility.searches
    searches.spent(view)
    log.debug("locks released in %.2f s: %s (a search holding none moved %d; %d searches)",
              time.monotonic() - started, ", ".join(sorted(s.name for s in released)), len(upper),
              feasibility.searches)
    holds = Holds(subjects, subjects).without(released)
    if found is not None:  # the search that proved the release feasible found this solution: not searched again
        done = _Searched(found, TofuSolveProvider(ctx, pruned, holds), soft.reporter, soft.pruning)
        return done, released, len(upper)
    searches.final += 1
    return _search(reqs, ctx, tree, root, holds, pruned), released, len(upper)


def _search(reqs: list, ctx: Context, tree: ModuleTree, root: Path | None, holds: Holds,
            pruned: dict | None = None) -> _Searched:
    """One search with ``holds``, with the dead-end pass once it keeps going back.

    Raises:
        Unsatisfiable, ResolutionError: as :func:`solve`.
    """
    load("tofu_solve.solver.propagate")
    from .propagate import propagate

    provider = TofuSolveProvider(ctx, pruned, holds)
    pruning = None

    def read_ahead_below_the_other_parties(criterion: Criterion[Requirement, Candidate], candidate: Candidate) -> None:
        # The other parties to this conflict (module versions already pinned whose
        # requirements the candidate cannot meet): the search may have to go back over
        # them too, so their older versions are read ahead now, beside the candidate's.
        provider.read_ahead_below_parties(criterion.information, candidate)

    passes: list = []  # the dead-end pass, once it has run

    def look_for_dead_ends() -> bool:
        # The search keeps going back: read the candidates of the root calls the conflicts
        # involve (in parallel) and find the versions that cannot be part of any solution.
        # True: the search starts again without them (or a root call has none left, a
        # certain clash); False: nothing is dead, and the search goes on where it stood.
        ctx.progress(LookingForDeadEnds())
        only = _involved_root_calls(reqs, reporter.involved)
        started = time.monotonic()
        log.debug("search went back %d times in %d rounds: looking for dead ends of %s", reporter.backtracks,
                  reporter.rounds, "every root call" if only is None else ", ".join(sorted(only)))
        found = propagate(reqs, ctx, fetch=True, only=only)
        passes.append(found)
        dead = sum(len(v) for v in found.dead.values())
        log.debug("dead-end pass: %d versions dead in %.2f s%s", dead, time.monotonic() - started,
                  "" if dead or found.empty else "; the search goes on")
        return bool(dead or found.empty)

    reporter = SearchReporter(
        THRASH_BACKTRACKS, on_reject=read_ahead_below_the_other_parties, on_interrupt=look_for_dead_ends,
        on_round=lambda index, backtracks: ctx.progress(StillResolving(index, backtracks)))
    try:
        try:
            result = Search(provider, reporter).resolve(reqs, max_rounds=ctx.options.max_rounds)
        except Interrupted:
            pruning = passes[0]
            if pruning.empty:  # a root call has no version left: a certain clash, explained now
                raise Unsatisfiable([], reqs, tree, root) from None
            dead = {k: set(v) for k, v in pruning.dead.items()}
            for k, v in (pruned or {}).items():
                dead.setdefault(k, set()).update(v)
            provider = TofuSolveProvider(ctx, dead, holds)
            result = Search(provider, reporter).resolve(reqs, max_rounds=ctx.options.max_rounds)
        if passes:
            pruning = passes[0]
    except ResolutionImpossible as e:
        raise Unsatisfiable(e.causes, reqs, tree, root) from None
    except ResolutionTooDeep:
        named = "; ".join(reporter.back_and_forth())
        raise ResolutionError(
            "Resolution took too long",
            f"tofu-solve gave up after {ctx.options.max_rounds} resolution rounds ({reporter.backtracks} "
            "candidates rejected) without finding a consistent set of versions or proving there is none. "
            f"The search went back and forth on: {named}. Narrow the version constraints of those module calls, "
            "or raise the limit with -max-rounds.",
            explanation={"kind": "too deep", "back_and_forth": reporter.back_and_forth()}) from None
    return _Searched(result, provider, reporter, pruning)


def _involved_root_calls(reqs: list, involved: set[str]) -> set[str] | None:
    """The root calls (call paths of the root's module requirements) that are, or contain,
    a call the search went back over or that took part in a conflict; None (every root
    call) when there is none: the dead-end pass fetches the candidates of these only.
    A call the conflicts never touched keeps its newest version, and reading its older
    versions would only delay the pass (the 22 older vpc versions of the 27-call iam root,
    issue #23)."""
    paths = {r.call_path for r in reqs if isinstance(r, ModuleRequirement)}
    hit = {p for p in paths if any(c == p or c.startswith(p + ".") for c in involved)}
    return hit or None


__all__ = ["NoMatchingVersionError", "Resolution", "solve"]
