"""The after-solve improvement pass: resolvelib returns the first consistent assignment its
order reaches; when it had to go back, which call went back depends on that order. Each
call that went back is asked, in turn, to take a newer version, within a few attempts and
a fetch budget, and a solution that skips fewer versions (by :func:`versions_skipped`, compared as the
objective compares them, :mod:`.optimum`) replaces the current one. The exact optimiser
(:mod:`.optimum`) then proves, or improves, what this pass leaves."""

from __future__ import annotations

from resolvelib import BaseReporter
from resolvelib.resolvers import ResolutionImpossible, ResolutionTooDeep, Result

from ..errors import TofuSolveError
from .context import Context, FetchBudgetExceeded
from .factory import CandidateFactory, position
from .model import Identity, ModuleCandidate, ModuleRequirement, NewerThan
from .optimum import DEPTHS
from .propagate import Pruning, propagate
from .resolvelib_provider import TofuSolveProvider
from .search import Search


def versions_skipped(result: Result, ctx: Context) -> tuple[tuple[int, ...], dict[str, int]]:
    """How many candidates each module call skipped: the selected candidate's position in
    the one order the search offers the call's candidates (:meth:`.CandidateFactory.module_order`:
    a locked version first, a lock that must move nearest first, else newest first), so that
    the pass never moves a call away from what that order prefers (issue #47)."""
    factory = CandidateFactory(ctx)
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
            per_call[ident.name] = position(factory.module_order(reqs[ident]), cand.version_text)
        except TofuSolveError:
            continue
    # compared as the objective compares it (.optimum): depth by depth, the root's calls first
    by_depth = [0] * DEPTHS
    for path, lag in per_call.items():
        by_depth[min(path.count("."), DEPTHS - 1)] += lag
    return tuple(by_depth), per_call


IMPROVE_FETCH_BUDGET = 24  # module versions the improvement pass may fetch beyond what the solve fetched


def improve(result: Result, reqs: list, provider: TofuSolveProvider, ctx: Context, max_attempts: int = 8,
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
    total, per_call = versions_skipped(result, ctx)
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
            alt_total, alt_per_call = versions_skipped(alt, ctx)
            if alt_total < total:
                result, total, per_call = alt, alt_total, alt_per_call
                improved = True
                break
        if not improved:
            break
    return result


__all__ = ["IMPROVE_FETCH_BUDGET", "improve", "versions_skipped"]
