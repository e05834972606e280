"""Wiring: build the root requirements, run resolvelib with a round cap, translate its
exceptions into tofu-solve errors at this one boundary, and collect the result."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from resolvelib import BaseReporter
from resolvelib.resolvers import ResolutionImpossible, ResolutionTooDeep

from ..addrs.product import OPENTOFU, Product
from ..config.tree import ModuleTree
from ..errors import (
    LockedVersionMismatch,
    NoMatchingVersionError,
    ResolutionError,
    TofuSolveError,
    WarningText,
)
from ..events import LookingForDeadEnds, StillResolving
from ..versions import goversions as gvs
from .context import Context
from .model import (
    ROOT,
    CoreRequirement,
    ModuleCandidate,
    ModuleRequirement,
    ProviderCandidate,
    ProviderRequirement,
    TofuCandidate,
)
from .provider import TofuSolveProvider, requirements_of_tree
from .reporter import Interrupted, SearchReporter
from .search import Search

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


THRASH_BACKTRACKS = 16  # backtracks before the search stops to look for certain dead ends (issue #13: of
# the 320 solvable assembled pairs, 318 go back fewer than 10 times, one 12 and one 56 times;
# the impossible ones go back from 5 to hundreds of times)


class Unsatisfiable(ResolutionError):
    """The search proved that no consistent set of versions exists.

    Carries the facts an explanation starts from (:func:`tofu_solve.explain.explain_impossible`
    turns them into the error a user sees): resolvelib's ``causes`` (empty when the dead-end
    pass proved the clash), the root ``requirements`` and ``tree``, and the ``root`` directory.
    """

    def __init__(self, causes, requirements: list, tree: ModuleTree, root):
        super().__init__("No consistent set of versions",
                         "No choice of module, provider and OpenTofu versions meets every constraint.",
                         explanation={"kind": "conflict"})
        self.causes = list(causes)
        self.requirements = requirements
        self.tree = tree
        self.root = root


def root_requirements(tree: ModuleTree, ctx: Context) -> list:
    return requirements_of_tree(tree, ROOT, None, None, ctx)


def provider_lock_mismatch(req: ProviderRequirement, ctx: Context) -> LockedVersionMismatch | None:
    """When the lock holds ``req``'s provider at a version the root's constraint no longer
    allows: OpenTofu's refusal (``internal/providercache/installer.go``: "locked provider
    %s %s does not match configured version constraint %s; must use tofu init -upgrade to
    allow selection of new versions"), the lock named as the party that holds it, and the
    one ``-upgrade=`` that frees only this provider (issue #24)."""
    lock = ctx.locks.providers.get(str(req.address))
    if lock is None or req.constraint is None:
        return None
    try:
        locked = gvs.Version.parse(lock.version)
    except TofuSolveError:
        return None
    if gvs.meets(req.constraint.spec, locked):
        return None
    names = ",".join(dict.fromkeys((*ctx.options.upgrade_targets, req.address.for_display)))
    return LockedVersionMismatch(
        "Incompatible locked provider version",
        f"locked provider {req.address} {lock.version} does not match configured version constraint "
        f'"{req.text or req.constraint.text}"; must use tofu-solve init -upgrade={names} to allow selection of '
        f"new versions. The lock file holds {req.address.for_display} at {lock.version}: -upgrade={names} moves "
        "only that provider, every other lock is kept.", req.origin.where)


def precheck(reqs: list, ctx: Context) -> None:
    """Fail fast, with OpenTofu's own messages, on root module calls that can never be
    satisfied (no versions, no matching version), and on a call of the root module (or of a
    local module inside it) whose locked version its edited constraint no longer allows:
    only ``-upgrade`` chooses another, as OpenTofu says of a provider
    (``internal/providercache/installer.go``; issue #21).

    Raises:
        LockedVersionMismatch, NoVersionsError, NoMatchingVersionError.
    """
    module_reqs = [r for r in reqs if isinstance(r, ModuleRequirement)]
    if not ctx.options.upgrade:
        for r in module_reqs:
            mismatch = ctx.lock_mismatch(r)
            if mismatch is not None:
                raise mismatch
        for r in reqs:
            if isinstance(r, ProviderRequirement):
                mismatch = provider_lock_mismatch(r, ctx)
                if mismatch is not None:
                    raise mismatch
    for r in reqs:  # the root's provider listings start at once, beside the module listings
        if isinstance(r, ProviderRequirement) and not r.address.is_builtin:
            ctx.prefetch_provider(r.address)
    unlocked = [r for r in module_reqs if ctx.locked_candidate(r) is None]
    for r in unlocked:
        ctx.prefetch_available(r)
    for r in unlocked:
        if not ctx.module_candidates(r):
            raise ctx.no_match_error(r)


def solve(tree: ModuleTree, ctx: Context, root=None) -> Resolution:
    """Resolve the tree rooted at ``tree``.

    Raises:
        Unsatisfiable: no consistent choice exists (the facts for an explanation:
            :func:`tofu_solve.explain.solve` explains it).
        ResolutionError: the round cap was reached (naming what the search went back and
            forth on).
        NoMatchingVersionError, NoVersionsError: a root call that can
            never be satisfied as written.
        NetworkError, RegistryError: the outside world failed.
    """
    from .propagate import propagate

    reqs = root_requirements(tree, ctx)
    precheck(reqs, ctx)
    provider = TofuSolveProvider(ctx)
    pruning = None
    def read_ahead_below_the_other_parties(criterion, candidate) -> None:
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
            provider = TofuSolveProvider(ctx, {k: set(v) for k, v in pruning.dead.items()})
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
    log.debug("search done: %d rounds, %d backtracks", reporter.rounds, reporter.backtracks)
    started = time.monotonic()
    result = _improve(result, reqs, provider, ctx, rounds=max(500, 2 * reporter.rounds),
                      pruning=pruning if pruning is not None and not pruning.partial else None)

    log.debug("after-solve pass in %.2f s", time.monotonic() - started)
    modules, module_reqs, providers, provider_reqs, core = {}, {}, {}, {}, []
    tofu = None
    for ident, cand in result.mapping.items():
        if isinstance(cand, ModuleCandidate):
            modules[ident[1]] = cand
        elif isinstance(cand, ProviderCandidate):
            providers[ident[1]] = cand
        elif isinstance(cand, TofuCandidate):
            tofu = cand
    for ident, crit in result.criteria.items():
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
                     product=ctx.options.target.product)
    res.warnings.extend(fenced_off_warnings(res, ctx))
    return res


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


def _lag(result, ctx: Context) -> tuple[int, dict[str, int]]:
    """How many candidates each module call skipped: the selected candidate's position in
    the call's preference order (a locked version first, then newest first)."""
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
            per_call[ident[1]] = 0
            continue
        try:
            cands = ctx.module_candidates(reqs[ident])
        except TofuSolveError:
            continue
        per_call[ident[1]] = next((i for i, c in enumerate(cands) if c.version_text == cand.version_text),
                                   len(cands))
    return sum(per_call.values()), per_call


IMPROVE_FETCH_BUDGET = 24  # module versions the improvement pass may fetch beyond what the solve fetched


def _improve(result, reqs: list, provider, ctx: Context, max_attempts: int = 8, rounds: int = 3000,
             pruning=None):
    """Look for a solution that goes back fewer versions in total.

    resolvelib returns the first consistent assignment its order reaches; when it had to go
    back, which call went back depends on that order. Here each call that went back is
    asked, in turn, to take a newer version than it got; a solution found that way with a
    smaller total lag (versions skipped, summed over calls) replaces the current one.
    Bounded in attempts, rounds and downloads: metadata is memoized, and at most
    :data:`IMPROVE_FETCH_BUDGET` module versions not fetched by the solve are fetched. Each attempt may take at most twice the rounds of the
    first resolution. When nothing went back (newest-per-call is consistent, the ``tofu
    init`` case) it does nothing. ``pruning``: the solve's own dead-end pass, when it made
    one (what it proved is not computed again).
    """
    # The pass may look at module versions the solve never fetched, but only a few: an
    # attempt that needs more is abandoned (a lower total lag is a preference, not worth
    # hundreds of downloads), and nothing is prefetched meanwhile.
    ctx.fetch_budget = IMPROVE_FETCH_BUDGET
    try:
        return _improve_within_budget(result, reqs, provider, ctx, max_attempts, rounds, pruning)
    finally:
        ctx.fetch_budget = None


def _improve_within_budget(result, reqs: list, provider, ctx: Context, max_attempts: int, rounds: int,
                           pruning=None):
    from .context import FetchBudgetExceeded
    from .model import NewerThan
    from .propagate import propagate

    total, per_call = _lag(result, ctx)
    if total == 0:
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
    provider = TofuSolveProvider(ctx, dead)
    attempts = 0
    tried = set()
    while total > 0 and attempts < max_attempts:
        improved = False
        for call_path, lag in sorted(per_call.items(), key=lambda kv: (-kv[1], kv[0])):
            if lag == 0 or attempts >= max_attempts:
                continue
            cand = result.mapping[("module", call_path)]
            key = (call_path, cand.version.string)
            if key in tried:
                continue
            tried.add(key)
            crit = result.criteria.get(("module", call_path))
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
    out = []
    for path, cand in res.modules.items():
        if cand.version is None:
            continue
        req = res.module_requirements.get(path)
        if req is None:
            continue
        cands = ctx.known_candidates(req)  # this run's listing, or the cached one (a re-init lists nothing)
        if cands is None:
            continue
        v = cand.version
        newer = [c for c in cands if c.version is not None and c.version.compare(v) > 0
                 and c.version.segments[:2] == v.segments[:2]]
        for prov_addr, pcand in res.providers.items():
            for n in sorted(newer, key=lambda c: c.version):
                tree = ctx.metadata.get(*ctx._tree_key(n))
                if not isinstance(tree, ModuleTree):
                    continue
                excl = [(p, r) for p, r in tree.providers if str(r.address) == prov_addr and r.constraint
                        and not r.constraint.allows(pcand.version)]
                if excl:
                    _, r = excl[0]
                    out.append(WarningText(
                        "Module version fenced off by its own line",
                        f'Module "{path}" is at {cand.version_text}, but {n.version_text} of the same line requires '
                        f'{r.address.for_display} "{r.constraint.text}" ({r.where}), which excludes the selected '
                        f"{pcand.version}: its authors may have found {cand.version_text} incompatible with it."))
                    break
    return out


__all__ = ["Resolution", "solve", "NoMatchingVersionError"]
