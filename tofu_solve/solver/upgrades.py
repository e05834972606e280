"""``-upgrade=NAME`` moved NAME only as far as every other lock allows: whether a newer
NAME exists if other locks moved, the fewest that must (:func:`.conservative.fewest_to_release`
over hypothetical searches), and whether the one command that frees them all lands it
(issue #48 §4: verified before the warning offers it). The warning's words are the view's
(:func:`tofu_solve.command.views.warnings.blocked_upgrade_text`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from resolvelib.resolvers import Result

from ..errors import SourceRange, TofuSolveError
from ..versions.hashicorp_go_version import GoVersion
from . import hypothetical
from .conservative import Feasibility, check_budget, fewest_to_release
from .context import Context
from .hypothetical import SearchCounts
from .locks import Holds, locked_subjects, module_requirements_of, moved
from .model import (
    ROOT,
    Identity,
    Kind,
    ModuleCandidate,
    ModuleRequirement,
    NewerThan,
    ProviderCandidate,
)

# the solve's modules (call path -> candidate), their requirements, and providers (address -> candidate)
Selection = tuple[Mapping[str, ModuleCandidate], Mapping[str, ModuleRequirement], Mapping[str, ProviderCandidate]]


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


def newer(new: str, old: str) -> bool:
    """Whether version ``new`` is newer than ``old`` (False when either does not parse)."""
    try:
        return GoVersion.parse(new).compare(GoVersion.parse(old)) > 0
    except TofuSolveError:
        return False


def blocked_upgrades(selection: Selection, reqs: list, ctx: Context, subjects: frozenset[Identity],
                     pruned: Mapping[str, set[str]], searches: SearchCounts | None = None) -> list[BlockedUpgrade]:
    """For each ``-upgrade=NAME`` target (a subject the lock file holds that the targets
    freed; for a module, the outermost call), whether a newer version than the one
    selected exists if other locks moved, and the fewest that must (as ``cargo update -p``
    says nothing moves but NAME, tofu-solve says what a newer NAME would need). ``selection``:
    the solve's modules, their requirements and providers."""
    modules, module_requirements, providers = selection
    if not ctx.options.upgrade_targets or ctx.options.upgrade:
        return []
    recorded = ctx.recorded_locks
    freed_set = ctx.terms.freed
    freed_modules = sorted(s.name for s in freed_set if s.kind is Kind.MODULE)
    freed = [p for p in freed_modules if not any(p.startswith(q + ".") for q in freed_modules)]
    freed += sorted(s.name for s in freed_set if s.kind is Kind.PROVIDER)
    short = ctx.options.target.product.short
    out: list[BlockedUpgrade] = []
    for subject in freed:
        extra: tuple = ()
        floors: dict = {}
        if subject in modules:
            cand = modules[subject]
            if cand.version is None:
                continue
            extra = (NewerThan(subject, cand.version, cand.version_text),)
            selected, name = cand.version_text, subject
        elif subject in providers:
            selected_version = providers[subject].version
            floors = {subject: selected_version}
            selected, name = str(selected_version), short(subject)
        else:
            continue
        view = hypothetical.view(ctx)

        def search(held: frozenset[Identity], extra: tuple = extra, floors: dict = floors,
                   view: Context = view) -> Result | None:
            return hypothetical.feasible(reqs, view, pruned, Holds(held, subjects), extra, floors)
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
                searches.spent(view)
        result = found if found is not None else soft
        picked = result.mapping.get(Identity.module(subject)) or result.mapping.get(Identity.provider(subject))
        if picked is None:
            continue
        found_version = picked.version_text if isinstance(picked, ModuleCandidate) else str(picked.version)
        others: list[tuple[str, str, str, SourceRange | None]] = []
        for s in sorted(release):
            picked_other = result.mapping.get(s)
            if s.kind is Kind.PROVIDER:
                to = str(picked_other.version) if isinstance(picked_other, ProviderCandidate) else "?"
                others.append((short(s.name), recorded.providers[s.name].version, to, None))
            else:
                to = picked_other.version_text if isinstance(picked_other, ModuleCandidate) else "?"
                req = module_requirements.get(s.name)
                where = req.call.constraint_where if req is not None and req.origin.call_path == ROOT else None
                others.append((s.name, recorded.modules[s.name].version, to, where))
        if others:
            lands = None
            if all(newer(new, old) for _, old, new, _ in others):
                lands = _upgrade_lands(reqs, ctx, pruned, release, subject, selected)
            out.append(BlockedUpgrade(name, selected, found_version, tuple(others), lands))
    return out


def _upgrade_lands(reqs: list, ctx: Context, pruned: Mapping[str, set[str]], release: frozenset[Identity],
                   subject: str, selected: str) -> bool:
    """Whether ``init -upgrade=NAME,OTHERS`` (the warning's command) moves ``subject`` past
    ``selected``: the subjects of ``release`` (with the calls inside a released call) left
    out of the locks, as ``init`` leaves them out, every other lock held, searched once on a
    fetch budget. A search cut off by its budget or round cap counts as "does not land"."""
    view = ctx.view(locks=ctx.terms.releasing(release), fetch_budget=hypothetical.HYPOTHETICAL_FETCH_BUDGET,
                    likely_provider=None)
    held = locked_subjects(reqs, view)
    result = hypothetical.feasible(reqs, view, pruned, Holds(held, held))
    if result is None:
        return False
    picked = result.mapping.get(Identity.module(subject)) or result.mapping.get(Identity.provider(subject))
    if isinstance(picked, ModuleCandidate):
        return newer(picked.version_text, selected)
    return isinstance(picked, ProviderCandidate) and newer(str(picked.version), selected)


__all__ = ["BlockedUpgrade", "blocked_upgrades", "newer"]
