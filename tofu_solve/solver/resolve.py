"""Wiring: build the root requirements, run resolvelib with a round cap, translate its
exceptions into tofu-solve errors at this one boundary, and collect the result."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from resolvelib import BaseReporter
from resolvelib.resolvers import Criterion, ResolutionImpossible, ResolutionTooDeep, Result

from ..addrs.product import OPENTOFU, Product
from ..config.tree import ModuleTree
from ..errors import (
    ConfigurationError,
    NoMatchingVersionError,
    ResolutionError,
    SourceRange,
    TofuSolveError,
    WarningText,
    locked_version_gone,
)
from ..events import LookingForDeadEnds, StillResolving
from ..versions import apparentlymart_go_versions as gvs
from ..versions.hashicorp_go_version import GoVersion
from .conservative import Feasibility, check_budget, fewest_to_release
from .context import Context
from .fenced import fences, same_line_newer
from .locks import Holds, freed_by_upgrade, locked_subjects, module_requirements_of, moved
from .model import (
    ROOT,
    Candidate,
    CoreRequirement,
    Identity,
    Kind,
    ModuleCandidate,
    ModuleRequirement,
    NewerThan,
    ProviderCandidate,
    ProviderRequirement,
    Requirement,
    TofuCandidate,
)
from .optimum import DEPTHS, Optimality, optimise, settled
from .provider import TofuSolveProvider, requirements_of_tree
from .reporter import Interrupted, SearchReporter
from .search import Search

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
    # -upgrade=NAME: names a newer version of which needs other locks to move (BlockedUpgrade)
    blocked_upgrades: list = field(default_factory=list)
    # the selection's objective and whether it is proven best (issue #48 §3; .optimum)
    optimality: Optimality | None = None
    searches: SearchCounts = field(default_factory=lambda: SearchCounts())


HYPOTHETICAL_FETCH_BUDGET = 64  # module versions the feasibility searches of one question may fetch, together


@dataclass
class SearchCounts:
    """The searches one solve made (``init -json``: ``stats.searches``; issue #48 §4): the
    held search, the one holding nothing, the feasibility searches of the lock minimisation
    and of ``-upgrade=NAME``'s question (memoised: a held set is searched once), a final
    search when no feasibility search found the answer, the exact optimiser's; and the
    module versions the hypothetical searches fetched (within
    :data:`HYPOTHETICAL_FETCH_BUDGET` per question)."""

    held: int = 0
    holding_none: int = 0
    feasibility: int = 0
    final: int = 0
    exact: int = 0
    fetches: int = 0

    def data(self) -> dict[str, int]:
        return {"held": self.held, "holding_none": self.holding_none, "feasibility": self.feasibility,
                "final": self.final, "exact": self.exact, "hypothetical_fetches": self.fetches}


def _hypothetical(ctx: Context) -> Context:
    """The context of hypothetical searches: the solve's clients and memo, a fetch budget of
    :data:`HYPOTHETICAL_FETCH_BUDGET` module versions shared by all of them, and nobody told
    of likely provider picks (so no provider package download starts)."""
    return ctx.view(fetch_budget=HYPOTHETICAL_FETCH_BUDGET, likely_provider=None)


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
    result = _improve(result, reqs, provider, ctx, rounds=max(500, 2 * reporter.rounds),
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
    res = Resolution(dict(sorted(modules.items())), module_reqs, dict(sorted(providers.items())), provider_reqs,
                     core, tofu, tree, rounds=reporter.rounds, target_origin=ctx.options.target.origin,
                     product=ctx.options.target.product,
                     released=released, soft_moves=soft_moves, optimality=optimality, searches=searches)
    res.warnings.extend(fenced_off_warnings(res, ctx))
    res.blocked_upgrades = blocked_upgrades(res, reqs, ctx, subjects, provider.pruned, searches)
    return res


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
    hypothetical = _hypothetical(ctx)
    feasibility = Feasibility(
        lambda held: _feasible(reqs, hypothetical, pruned, Holds(held, subjects)),
        # the held search failed; holding nothing, and so holding all but what it moved, solved
        {subjects: None, frozenset(): soft.result, subjects - upper: soft.result})
    released, found = fewest_to_release(subjects, feasibility, upper, check_budget(len(soft.result.mapping)),
                                        known=dead_locks)
    searches.feasibility += feasibility.searches
    searches.fetches += HYPOTHETICAL_FETCH_BUDGET - (hypothetical.fetch_budget or 0)
    log.debug("locks released in %.2f s: %s (a search holding none moved %d; %d searches)",
              time.monotonic() - started, ", ".join(sorted(s.name for s in released)), len(upper),
              feasibility.searches)
    holds = Holds(subjects, subjects).without(released)
    if found is not None:  # the search that proved the release feasible found this solution: not searched again
        done = _Searched(found, TofuSolveProvider(ctx, pruned, holds), soft.reporter, soft.pruning)
        return done, released, len(upper)
    searches.final += 1
    return _search(reqs, ctx, tree, root, holds, pruned), released, len(upper)


def _feasible(reqs: list, ctx: Context, pruned: Mapping[str, set[str]], holds: Holds, extra: tuple = (),
              floors: dict | None = None) -> Result | None:
    """The result of a search holding ``holds`` (with ``extra`` requirements and provider
    ``floors``, see :class:`~.provider.TofuSolveProvider`), or None when it finds no
    solution within the round cap: one question of the lock minimisation. No dead-end
    pass, no read-ahead beyond the search's."""
    from .context import FetchBudgetExceeded

    provider = TofuSolveProvider(ctx, pruned, holds, floors)
    try:
        return Search(provider, BaseReporter()).resolve(reqs + list(extra), max_rounds=ctx.options.max_rounds)
    except (ResolutionImpossible, ResolutionTooDeep, FetchBudgetExceeded):
        return None  # beyond the budget counts as no solution: an answer is always one a search found


@dataclass(frozen=True)
class BlockedUpgrade:
    """``-upgrade=NAME`` moved NAME only as far as every other lock allows: ``newer`` needs
    the locks in ``others`` to move too, each (name as people name it, locked version,
    version it would take, where its constraint is written when it is a root module call)."""

    name: str
    selected: str
    newer: str
    others: tuple[tuple[str, str, str, SourceRange | None], ...]
    # whether freeing NAME and the others (the one -upgrade= the warning names) was solved and
    # moves NAME past ``selected`` (issue #48 §4: verified before it is printed); None: not asked
    lands: bool | None = None

    def text(self, upgrade_names: tuple[str, ...]) -> str:
        moves = ", ".join(f"{n} {old} -> {new}" for n, old, new, _ in self.others)
        head = (f"{self.name} is at {self.selected}, the newest its constraints allow while every other lock is kept. "
                f"{self.name} {self.newer} needs {moves}; tofu-solve moved nothing else.")
        if all(_newer(new, old) for _, old, new, _ in self.others):
            names = ",".join(dict.fromkeys((*upgrade_names, self.name, *(n for n, *_ in self.others))))
            if self.lands is False:  # -upgrade takes the newest of each, and those newest do not fit together
                return (f"{head} -upgrade={names} would take the newest of each, which do not fit together; "
                        "constraints that hold the others at those versions do.")
            return f"{head} To allow it: tofu-solve init -upgrade={names}"
        # a lock that would have to go down: -upgrade takes the newest, so only a constraint does it;
        # the ones that go up move with the same command as NAME (issue #48 §4: one command, not three)
        down = [(n, new, where) for n, old, new, where in self.others if not _newer(new, old)]
        up = [n for n, old, new, _ in self.others if _newer(new, old)]
        if all(where is not None for _, _, where in down):
            pins = "; ".join(f'{n} to version = "{new}" ({where})' for n, new, where in down)
            names = ",".join(dict.fromkeys((*upgrade_names, self.name, *up)))
            return (f"{head} -upgrade takes the newest of each, so what goes down needs a pin: pin {pins}, then "
                    f"tofu-solve init -upgrade={names}")
        return f"{head} -upgrade takes the newest of each, so it cannot; a constraint that excludes the newer ones can."


def _newer(new: str, old: str) -> bool:
    try:
        return GoVersion.parse(new).compare(GoVersion.parse(old)) > 0
    except TofuSolveError:
        return False


def blocked_upgrades(res: Resolution, reqs: list, ctx: Context, subjects: frozenset[Identity],
                     pruned: Mapping[str, set[str]], searches: SearchCounts | None = None) -> list[BlockedUpgrade]:
    """For each ``-upgrade=NAME`` target (a subject the lock file holds that the targets
    freed; for a module, the outermost call), whether a newer version than the one
    selected exists if other locks moved, and the fewest that must (as ``cargo update -p``
    says nothing moves but NAME, tofu-solve says what a newer NAME would need)."""
    if not ctx.options.upgrade_targets or ctx.options.upgrade:
        return []
    recorded = ctx.recorded_locks
    freed_set = freed_by_upgrade(recorded, ctx.locks)
    freed_modules = sorted(s.name for s in freed_set if s.kind is Kind.MODULE)
    freed = [p for p in freed_modules if not any(p.startswith(q + ".") for q in freed_modules)]
    freed += sorted(s.name for s in freed_set if s.kind is Kind.PROVIDER)
    short = ctx.options.target.product.short
    out: list[BlockedUpgrade] = []
    for subject in freed:
        extra: tuple = ()
        floors: dict = {}
        if subject in res.modules:
            cand = res.modules[subject]
            if cand.version is None:
                continue
            extra = (NewerThan(subject, cand.version, cand.version_text),)
            selected, name = cand.version_text, subject
        elif subject in res.providers:
            selected_version = res.providers[subject].version
            floors = {subject: selected_version}
            selected, name = str(selected_version), short(subject)
        else:
            continue
        hypothetical = _hypothetical(ctx)

        def search(held: frozenset[Identity], extra: tuple = extra, floors: dict = floors,
                   hypothetical: Context = hypothetical) -> Result | None:
            return _feasible(reqs, hypothetical, pruned, Holds(held, subjects), extra, floors)
        feasibility = Feasibility(search)
        try:
            if feasibility(subjects):
                continue  # a newer one fits with every lock kept: nothing to say (the search took its own order)
            soft = feasibility.result(frozenset())
            if soft is None:
                continue  # no newer version fits at all: NAME is as new as it can be
            upper = frozenset(moved(soft.mapping, module_requirements_of(soft.criteria), ctx, subjects))
            feasibility.known.setdefault(subjects - upper, soft)
            release, found = fewest_to_release(subjects, feasibility, upper, check_budget(len(soft.mapping)))
        finally:
            if searches is not None:
                searches.feasibility += feasibility.searches
                searches.fetches += HYPOTHETICAL_FETCH_BUDGET - (hypothetical.fetch_budget or 0)
        result = found if found is not None else soft
        picked = result.mapping.get(Identity.module(subject)) or result.mapping.get(Identity.provider(subject))
        if picked is None:
            continue
        newer = picked.version_text if isinstance(picked, ModuleCandidate) else str(picked.version)
        others: list[tuple[str, str, str, SourceRange | None]] = []
        for s in sorted(release):
            picked_other = result.mapping.get(s)
            if s.kind is Kind.PROVIDER:
                to = str(picked_other.version) if isinstance(picked_other, ProviderCandidate) else "?"
                others.append((short(s.name), recorded.providers[s.name].version, to, None))
            else:
                to = picked_other.version_text if isinstance(picked_other, ModuleCandidate) else "?"
                req = res.module_requirements.get(s.name)
                where = req.call.constraint_where if req is not None and req.origin.call_path == ROOT else None
                others.append((s.name, recorded.modules[s.name].version, to, where))
        if others:
            lands = None
            if all(_newer(new, old) for _, old, new, _ in others):
                lands = _upgrade_lands(reqs, ctx, pruned, release, subject, selected)
            out.append(BlockedUpgrade(name, selected, newer, tuple(others), lands))
    return out


def _upgrade_lands(reqs: list, ctx: Context, pruned: Mapping[str, set[str]], release: frozenset[Identity],
                   subject: str, selected: str) -> bool:
    """Whether ``init -upgrade=NAME,OTHERS`` (the warning's command) moves ``subject`` past
    ``selected``: the subjects of ``release`` (with the calls inside a released call) left
    out of the locks, as ``init`` leaves them out, every other lock held, searched once on a
    fetch budget. A search cut off by its budget or round cap counts as "does not land"."""
    from ..lockfile import LockFile

    def freed(path: str) -> bool:
        return any(s.kind is Kind.MODULE and (path == s.name or path.startswith(s.name + ".")) for s in release)
    locks = LockFile({a: p for a, p in ctx.locks.providers.items() if Identity.provider(a) not in release},
                     {p: m for p, m in ctx.locks.modules.items() if not freed(p)})
    view = ctx.view(locks=locks, fetch_budget=HYPOTHETICAL_FETCH_BUDGET, likely_provider=None)
    held = locked_subjects(reqs, view)
    result = _feasible(reqs, view, pruned, Holds(held, held))
    if result is None:
        return False
    picked = result.mapping.get(Identity.module(subject)) or result.mapping.get(Identity.provider(subject))
    if isinstance(picked, ModuleCandidate):
        return _newer(picked.version_text, selected)
    return isinstance(picked, ProviderCandidate) and _newer(str(picked.version), selected)


def _search(reqs: list, ctx: Context, tree: ModuleTree, root: Path | None, holds: Holds,
            pruned: dict | None = None) -> _Searched:
    """One search with ``holds``, with the dead-end pass once it keeps going back.

    Raises:
        Unsatisfiable, ResolutionError: as :func:`solve`.
    """
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


def _lag(result: Result, ctx: Context) -> tuple[tuple[int, ...], dict[str, int]]:
    """How many candidates each module call skipped: the selected candidate's position in
    the order the search offers the call's candidates (:meth:`.Context.preferred_candidates`:
    a locked version first, a lock that must move nearest first, else newest first), so that
    the pass never moves a call away from what that order prefers (issue #47)."""
    per_call = {}
    reqs = {}
    for ident, crit in result.criteria.items():
        for info in crit.information:
            if isinstance(info.requirement, ModuleRequirement):
                reqs[ident] = info.requirement
    for ident, cand in result.mapping.items():
        if not isinstance(cand, ModuleCandidate) or cand.version is None or ident not in reqs:
            continue
        locked = ctx.locked_candidate(reqs[ident])
        if locked is not None and locked.version_text == cand.version_text:
            per_call[ident.name] = 0
            continue
        try:
            cands = ctx.preferred_candidates(reqs[ident])
        except TofuSolveError:
            continue
        per_call[ident.name] = next((i for i, c in enumerate(cands) if c.version_text == cand.version_text),
                                   len(cands))
    # compared as the objective compares it (.optimum): depth by depth, the root's calls first
    by_depth = [0] * DEPTHS
    for path, lag in per_call.items():
        by_depth[min(path.count("."), DEPTHS - 1)] += lag
    return tuple(by_depth), per_call


IMPROVE_FETCH_BUDGET = 24  # module versions the improvement pass may fetch beyond what the solve fetched


def _improve(result: Result, reqs: list, provider: TofuSolveProvider, ctx: Context, max_attempts: int = 8,
             rounds: int = 3000, pruning: Pruning | None = None) -> Result:
    """Look for a solution that goes back fewer versions in total.

    resolvelib returns the first consistent assignment its order reaches; when it had to go
    back, which call went back depends on that order. Here each call that went back is
    asked, in turn, to take a newer version than it got; a solution found that way with a
    smaller total lag (versions skipped, summed over calls) replaces the current one.
    Bounded in attempts, rounds and downloads: metadata is memoized, and at most
    :data:`IMPROVE_FETCH_BUDGET` module versions not fetched by the solve are fetched. Each
    attempt may take at most twice the rounds of the first resolution. When nothing went back
    (newest-per-call is consistent, the ``tofu init`` case) it does nothing. ``pruning``: the
    solve's own dead-end pass, when it made one (what it proved is not computed again).
    """
    # The pass may look at module versions the solve never fetched, but only a few: an
    # attempt that needs more is abandoned (a lower total lag is a preference, not worth
    # hundreds of downloads), and nothing is prefetched meanwhile.
    budgeted = ctx.view(fetch_budget=IMPROVE_FETCH_BUDGET, likely_provider=ctx.likely_provider)
    return _improve_within_budget(result, reqs, provider, budgeted, max_attempts, rounds, pruning)


def _improve_within_budget(result: Result, reqs: list, provider: TofuSolveProvider, ctx: Context,
                           max_attempts: int, rounds: int, pruning: Pruning | None = None) -> Result:
    from .context import FetchBudgetExceeded
    from .model import NewerThan
    from .propagate import propagate

    total, per_call = _lag(result, ctx)
    if not any(total):
        return result
    # What is already read proves some newer versions dead (a root constraint they cannot
    # meet): an attempt for a call whose every newer version is dead is not made, and dead
    # versions are never offered, so no fetch is spent on them.
    if pruning is None:
        pruning = propagate(reqs, ctx, fetch=False)
    # else the solve's pass, which fetched every candidate it examined: the same pass over
    # what is known now examines the same candidates with the same metadata and finds the
    # same dead ends
    dead = {k: set(v) for k, v in pruning.dead.items()}
    for k, v in getattr(provider, "pruned", {}).items():
        dead.setdefault(k, set()).update(v)
    provider = TofuSolveProvider(ctx, dead, provider.holds, provider.floors)  # the same locks held
    attempts = 0
    tried = set()
    while any(total) and attempts < max_attempts:
        improved = False
        for call_path, lag in sorted(per_call.items(), key=lambda kv: (-kv[1], kv[0])):
            if lag == 0 or attempts >= max_attempts:
                continue
            cand = result.mapping[Identity.module(call_path)]
            key = (call_path, cand.version.string)
            if key in tried:
                continue
            tried.add(key)
            crit = result.criteria.get(Identity.module(call_path))
            call_req = next((i.requirement for i in crit.information if isinstance(i.requirement, ModuleRequirement)),
                            None) if crit is not None else None
            listed = ctx.listed(call_req) if call_req is not None else None
            if listed is not None and all(c.version_text in dead.get(call_path, ()) for c in listed
                                          if c.version is not None and c.version.compare(cand.version) > 0):
                continue  # every newer version is a proven dead end
            attempts += 1
            floor = NewerThan(call_path, cand.version, cand.version.string)
            try:
                alt = Search(provider, BaseReporter()).resolve(reqs + [floor], max_rounds=rounds)
            except (ResolutionImpossible, ResolutionTooDeep, FetchBudgetExceeded):
                continue
            alt_total, alt_per_call = _lag(alt, ctx)
            if alt_total < total:
                result, total, per_call = alt, alt_total, alt_per_call
                improved = True
                break
        if not improved:
            break
    return result


def fenced_off_warnings(res: Resolution, ctx: Context) -> list[str]:
    """Warn when a selected module version's own line later fenced off the provider version
    chosen: a newer release of the same major.minor (within the call's constraint) narrows
    that provider's range to exclude it (e.g. eks 20.37.0 chosen with aws 6.x while 20.37.1
    requires aws < 6.0.0). Uses only metadata already known; never fetches."""
    out: list[str] = []
    for path, cand in res.modules.items():
        if cand.version is None:
            continue
        req = res.module_requirements.get(path)
        if req is None:
            continue
        cands = ctx.known_candidates(req)  # this run's listing, or the cached one (a re-init lists nothing)
        if cands is None:
            continue
        newer = same_line_newer(cand.version, ((c.version, c) for c in cands if c.version is not None))
        trees = [(n, tree if isinstance(tree := ctx.known_tree(n), ModuleTree) else None) for n in newer]
        for prov_addr, pcand in res.providers.items():
            def only(address: str, p: str = prov_addr, v: gvs.Version = pcand.version) -> gvs.Version | None:
                return v if address == p else None
            for n, r, version in fences(trees, only):
                out.append(WarningText(
                    "Module version fenced off by its own line",
                    f'Module "{path}" is at {cand.version_text}, but {n.version_text} of the same line requires '
                    f'{r.address.for_display} "{r.constraint.text if r.constraint else ""}" ({r.where}), which '
                    f"excludes the selected {version}: its authors may have found {cand.version_text} incompatible "
                    "with it."))
                break
    return out


__all__ = ["NoMatchingVersionError", "Resolution", "solve"]
