"""The objective a solve meets, and the exact optimiser that proves it (issue #48 §3).

What a solve optimises, lexicographically (:class:`Objective`, least first):

1. **locks moved**: subjects whose lock applies (:mod:`.locks`) at another version;
2. **module versions skipped**: for each module call, the position of its version in the
   one order the search offers the call's candidates (:meth:`.Context.preferred_candidates`:
   a lock that applies first, then the versions nearest it, the newer of two equally near
   first; a call without one newest first), among the versions its constraint admits;
   summed per depth and compared depth by depth: the root's own calls first, then the calls
   inside them, and so on. Summed over all calls, a version that calls one module fewer
   could win over a newer root call (``-upgrade=NAME`` would then not take NAME's newest);
   by depth, what the root asks for comes first;
3. **fenced off**: selected module versions whose own line later fenced off a selected
   provider version (:mod:`.fenced`), where one can be avoided. Issue #48 put this term
   second; after the versions skipped, it never sends a call to an older line to escape
   a fence (``-upgrade=eks`` would take eks from 20.37.0 down to 20.36.1:
   ``tests/e2e/test_day2.py``), and still picks, of selections skipping as many versions,
   one without a fence;
4. **provider versions skipped**: the same for each provider, among the versions the root
   module's own constraints admit (a lock that applies first, then nearest it; else newest).

Positions count versions the constraint admits, dead ends included, so the value does not
depend on what the search happened to prove. Ties are the search's: of equally good
selections the one resolvelib reaches first in that order is kept.

:func:`optimise` takes a solution and answers whether a better one exists, over the
*candidate universe*: every candidate of every call reachable from the root, with its
requirements. The universe is encoded as weighted MaxSAT (one variable per module candidate
and provider version, a hard clause per requirement, a soft clause per unit of the objective
at lexicographic weights) and solved exactly by PySAT's RC2 (Ignatiev, Morgado and
Marques-Silva, 2019); resolvelib still finds the candidates and explains conflicts, and a
better answer is taken only once a resolvelib search with its versions first reaches it.
Reading the universe is bounded by counts, never by time, so every machine writes the same
lock: at most :data:`FETCH_BUDGET` module versions not read yet, at most
:data:`MAX_CANDIDATES` module candidates, for selections of at most :data:`MAX_CALLS` module
calls. When a bound cuts it, the answer is the best
within what was read and :class:`Optimality` says so (``init -json``: ``selection``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field

from resolvelib import BaseReporter
from resolvelib.resolvers import ResolutionImpossible, ResolutionTooDeep, Result

from .._lazy import load
from ..addrs.provider import ProviderAddress
from ..errors import TofuSolveError
from ..versions import apparentlymart_go_versions as gvs
from .context import Context, FetchBudgetExceeded
from .factory import CandidateFactory, Summary, position
from .fenced import fenced_off, fences, line_trees
from .locks import Holds
from .model import (
    CoreRequirement,
    Identity,
    ModuleCandidate,
    ModuleRequirement,
    PackageCandidate,
    PackagePin,
    ProviderCandidate,
    ProviderRequirement,
    TofuCandidate,
    Unusable,
)
from .resolvelib_provider import TofuSolveProvider
from .search import Search

log = logging.getLogger(__name__)

FETCH_BUDGET = 32  # module versions not read yet that reading the universe may fetch
MAX_CANDIDATES = 1000  # module candidates the universe may hold
MAX_CALLS = 100  # module calls of a selection whose universe is read (the largest real root has 45)


class _TooLarge(Exception):
    """The universe holds more than :data:`MAX_CANDIDATES` module candidates: reading stops."""


DEPTHS = 6  # call depths told apart in the objective (deeper calls count with the sixth)


@dataclass(frozen=True, order=True)
class Objective:
    """A selection's value, compared lexicographically (least is best); see the module
    docstring for each term. ``module_versions_skipped_by_depth``: the module versions
    skipped by the root's own calls, then by the calls inside them, and so on
    (:data:`DEPTHS` entries, compared in that order)."""

    locks_moved: int = 0
    module_versions_skipped_by_depth: tuple[int, ...] = (0,) * DEPTHS
    fenced_off: int = 0
    provider_versions_skipped: int = 0

    @staticmethod
    def of(units: list[int]) -> Objective:
        """From units per tier (:data:`_MOVED`, the depths, :data:`_FENCED`, :data:`_PROVIDER`)."""
        return Objective(units[_MOVED], tuple(units[_MODULE:_MODULE + DEPTHS]), units[_FENCED], units[_PROVIDER])

    @property
    def module_versions_skipped(self) -> int:
        return sum(self.module_versions_skipped_by_depth)

    def terms(self) -> tuple[int, tuple[int, ...], int, int]:
        """The terms in the order they are compared."""
        return (self.locks_moved, self.module_versions_skipped_by_depth, self.fenced_off,
                self.provider_versions_skipped)

    def data(self) -> dict:
        """The terms by name, in the order they are compared (``init -json``'s ``objective``),
        with the total of versions skipped."""
        return {"locks_moved": self.locks_moved, "module_versions_skipped": self.module_versions_skipped,
                "module_versions_skipped_by_depth": list(self.module_versions_skipped_by_depth),
                "fenced_off": self.fenced_off, "provider_versions_skipped": self.provider_versions_skipped}


@dataclass(frozen=True)
class Optimality:
    """Whether the selection is proven best by :class:`Objective`.

    Attributes:
        objective: the selection's value (None: it could not be measured).
        optimal: no selection is better (the whole universe was read and solved exactly).
        bound: why it is not proven, in words (a bound that cut the universe), else None.
        improved: the exact optimiser replaced the search's selection with a better one.
    """

    objective: Objective | None
    optimal: bool
    bound: str | None = None
    improved: bool = False

    def data(self) -> dict:
        return {"optimal": self.optimal, "objective": self.objective.data() if self.objective else None,
                "bound": self.bound, "improved_by_exact_optimiser": self.improved}


_MOVED, _MODULE = 0, 1  # tiers: locks moved, then one per depth of call from _MODULE on
_FENCED, _PROVIDER = _MODULE + DEPTHS, _MODULE + DEPTHS + 1
_TIERS = _PROVIDER + 1


def _depth_tier(call_path: str) -> int:
    return _MODULE + min(call_path.count("."), DEPTHS - 1)


@dataclass
class _Universe:
    """The candidate universe as weighted MaxSAT: variables, hard clauses, soft clauses
    (clause, tier, units), and what each variable stands for."""

    module_vars: dict[tuple[str, str, str], int] = field(default_factory=dict)
    module_cands: dict[int, ModuleCandidate] = field(default_factory=dict)
    provider_vars: dict[tuple[str, str], int] = field(default_factory=dict)
    provider_cands: dict[int, ProviderCandidate] = field(default_factory=dict)
    package_vars: dict[tuple[str, str], int] = field(default_factory=dict)
    hard: list[list[int]] = field(default_factory=list)
    amo: list[list[int]] = field(default_factory=list)  # groups of which at most one is true
    soft: list[tuple[list[int], int, int]] = field(default_factory=list)
    constant: list[int] = field(default_factory=lambda: [0] * _TIERS)  # units every selection pays
    cut: list[str] = field(default_factory=list)  # what a bound left out
    next_var: int = 1
    modules_forced: bool = False  # every call has one candidate: only the providers are a choice

    def var(self) -> int:
        v = self.next_var
        self.next_var += 1
        return v

    def weights(self) -> list[int]:
        """Lexicographic weights per tier: each tier outweighs every unit below it."""
        out = [0] * _TIERS
        w = 1
        for tier in reversed(range(_TIERS)):
            out[tier] = w
            w = w * (1 + sum(units for _, t, units in self.soft if t == tier))
        return out

    def value(self, true: set[int]) -> Objective | None:
        """The objective of the assignment setting ``true`` (every other variable false), or
        None when it breaks a hard clause (it is not a selection of this universe)."""
        if any(not any((lit > 0) == (abs(lit) in true) for lit in c) for c in self.hard) or \
                any(len(true.intersection(group)) > 1 for group in self.amo):
            return None
        units = list(self.constant)
        for clause, tier, n in self.soft:
            if not any((lit > 0) == (abs(lit) in true) for lit in clause):
                units[tier] += n
        return Objective.of(units)


def _amo(u: _Universe, lits: list[int]) -> None:
    """At most one of ``lits`` (encoded when solved: :func:`_solve`)."""
    if len(lits) > 1:
        u.amo.append(lits)


class _Reader:
    """Reads the universe reachable from the root requirements, one requirement at a time."""

    def __init__(self, ctx: Context, reqs: list, subjects: frozenset[Identity], pruned: Mapping[str, set[str]],
                 skip_caps: Mapping[str, int] | None = None):
        """``skip_caps``: root call path -> the last position of its order that can be part of
        a selection no worse than the search's (:func:`_skip_caps`); a candidate at a later
        position is left out unread (never fetched)."""
        self.ctx = ctx
        self.skip_caps = skip_caps
        self.reqs = reqs
        self.subjects = subjects
        self.pruned = pruned
        self.u = _Universe()
        self.factory = CandidateFactory(ctx, pruned, Holds(frozenset(), subjects))
        self.expanded: set[int] = set()
        self.dead: set[int] = set()  # variables of proven dead ends (``pruned``)
        self.provider_reqs: list[tuple[int | None, ProviderRequirement]] = []
        self.module_reqs_by_path: dict[str, list[int]] = {}
        self.target = TofuCandidate(ctx.options.target.version)
        # (parent, candidate variable, its newer releases of the same line with their trees)
        self.fence_checks: list[tuple[int | None, int, list]] = []

    def read(self) -> _Universe:
        stack: list[tuple[int | None, object]] = [(None, r) for r in self.reqs]
        while stack:
            parent, r = stack.pop()
            if isinstance(r, ModuleRequirement):
                for cand_var in self._module(parent, r):
                    if cand_var in self.expanded or cand_var in self.dead:
                        continue  # a proven dead end is never selected: its requirements are not read
                    self.expanded.add(cand_var)
                    stack.extend((cand_var, d) for d in self._dependencies(cand_var))
            elif isinstance(r, ProviderRequirement):
                self.provider_reqs.append((parent, r))
            elif isinstance(r, CoreRequirement):
                if not r.is_satisfied_by(self.target):
                    self.u.hard.append([-parent] if parent is not None else [])
            elif isinstance(r, PackagePin) and parent is not None:
                key = (r.package, r.version)
                v = self.u.package_vars.get(key)
                if v is None:
                    v = self.u.package_vars[key] = self.u.var()
                self.u.hard.append([-parent, v])
            elif isinstance(r, Unusable) and parent is not None:
                self.u.hard.append([-parent])
        for path_vars in self.module_reqs_by_path.values():
            _amo(self.u, sorted(set(path_vars)))
        self.u.modules_forced = all(len(set(vs)) == 1 for vs in self.module_reqs_by_path.values())
        by_package: dict[str, list[int]] = {}
        for (package, _), v in self.u.package_vars.items():
            by_package.setdefault(package, []).append(v)
        for vs in by_package.values():
            _amo(self.u, vs)
        self._providers()
        return self.u

    def order(self, req: ModuleRequirement) -> list[ModuleCandidate]:
        """The call's candidates in the search's one order (:meth:`.CandidateFactory.module_order`)."""
        return self.factory.module_order(req)

    def _module(self, parent: int | None, req: ModuleRequirement) -> list[int]:
        u = self.u
        order = self.order(req)
        if self.skip_caps is not None and req.call_path in self.skip_caps:  # a root call (see _skip_caps)
            order = order[:self.skip_caps[req.call_path] + 1]
        dead = self.pruned.get(req.call_path, ())
        for c in order:  # their metadata read in parallel (within the fetch budget), then expanded
            if c.version_text not in dead:
                self.ctx.prefetch_tree(c)
        usable = []
        for i, c in enumerate(order):
            key = (req.call_path, c.source_key, c.version_text)
            v = u.module_vars.get(key)
            if v is None:
                if len(u.module_vars) >= MAX_CANDIDATES:
                    raise _TooLarge()
                v = u.module_vars[key] = u.var()
                u.module_cands[v] = c
                self.module_reqs_by_path.setdefault(req.call_path, []).append(v)
                if c.version_text in dead:
                    u.hard.append([-v])
                    self.dead.add(v)
            usable.append(v)
            if i:
                u.soft.append(([-v] + ([-parent] if parent is not None else []), _depth_tier(req.call_path), i))
            self._fenced(parent, req, c, v, order)
        u.hard.append(([-parent] if parent is not None else []) + usable)
        locked = self.ctx.locked_candidate(req)
        if locked is not None:
            held = u.module_vars.get((req.call_path, locked.source_key, locked.version_text))
            if held is not None:
                u.soft.append(([held] + ([-parent] if parent is not None else []), _MOVED, 1))
            elif parent is None:
                u.constant[_MOVED] += 1
            else:
                u.soft.append(([-parent], _MOVED, 1))
        return usable

    def _fenced(self, parent: int | None, req: ModuleRequirement, c: ModuleCandidate, v: int,
                order: list[ModuleCandidate]) -> None:
        trees = line_trees(c, req, self.ctx, order)  # the one reading of a line's newer releases
        if not any(t is not None for _, t in trees):
            return
        self.fence_checks.append((parent, v, trees))

    def _dependencies(self, cand_var: int) -> list:
        c = self.u.module_cands[cand_var]
        try:
            return list(self.factory.dependencies(c))
        except FetchBudgetExceeded:
            self.u.cut.append(f"{c.call_path} {c.version_text} not read (more than {FETCH_BUDGET} to fetch)")
        except TofuSolveError as e:
            self.u.cut.append(f"{c.call_path} {c.version_text} could not be read: {e.summary}")
        self.u.hard.append([-cand_var])
        return []

    def _providers(self) -> None:
        u = self.u
        addresses: dict[str, ProviderAddress] = {}
        for _, r in self.provider_reqs:
            addresses.setdefault(str(r.address), r.address)
        for key, address in sorted(addresses.items()):
            root = [r for p, r in self.provider_reqs if p is None and str(r.address) == key]
            order = self.provider_order(key, address, root)
            # the release cooldown holds back every provider's young versions, declared by the root
            # or not, exact pins anywhere in the universe exempt (issue #58 §1.2: the search cannot
            # take them, so neither may the optimum)
            pins = [r.constraint for _, r in self.provider_reqs if str(r.address) == key and r.constraint is not None]
            young = {str(pc.version) for pc in order if self.ctx.options.min_age and
                     self.factory.provider_too_young(address, str(pc.version), pins) is not None}
            vs = []
            for i, pc in enumerate(order):
                v = u.provider_vars[(key, str(pc.version))] = u.var()
                u.provider_cands[v] = pc
                vs.append(v)
                if str(pc.version) in young:
                    u.hard.append([-v])
                if i:
                    u.soft.append(([-v], _PROVIDER, i))
            _amo(u, vs)
            lock = self.ctx.locks.providers.get(key)
            if lock is not None and Identity.provider(key) in self.subjects and not self.ctx.options.upgrade:
                for v in vs:
                    if str(u.provider_cands[v].version) != lock.version:
                        u.soft.append(([-v], _MOVED, 1))
            admitted: dict[str, list[int]] = {}  # constraint text -> the versions it admits (asked once)
            for parent, r in self.provider_reqs:
                if str(r.address) != key:
                    continue
                ok = admitted.get(r.text)
                if ok is None:
                    ok = admitted[r.text] = [v for v in vs if r.is_satisfied_by(u.provider_cands[v])]
                u.hard.append(([-parent] if parent is not None else []) + ok)
        for parent, v, trees in self.fence_checks:
            for pv, pc in u.provider_cands.items():
                chosen = str(pc.address)

                def only(address: str, a: str = chosen, ver: gvs.Version = pc.version) -> gvs.Version | None:
                    return ver if address == a else None
                if next(fences(trees, only), None) is not None:
                    u.soft.append(([-v, -pv] + ([-parent] if parent is not None else []), _FENCED, 1))

    def provider_order(self, key: str, address: ProviderAddress,
                       root: list[ProviderRequirement]) -> list[ProviderCandidate]:
        """The provider's versions the root's own constraints admit and the policy allows, in
        the search's one order (:meth:`.CandidateFactory.provider_order`), the young ones
        kept: the universe rules them out with its own pins (:meth:`_providers`)."""
        return self.factory.provider_order(address, Summary.of(root), cooled=False)


def assignment(u: _Universe, result: Result) -> set[int] | None:
    """The variables ``result`` sets true, or None when one of its picks is not in ``u``."""
    true: set[int] = set()
    for ident, cand in result.mapping.items():
        if isinstance(cand, ModuleCandidate):
            v = u.module_vars.get((ident.name, cand.source_key, cand.version_text))
        elif isinstance(cand, ProviderCandidate):
            v = u.provider_vars.get((ident.name, str(cand.version)))
        elif isinstance(cand, PackageCandidate):
            v = u.package_vars.get((cand.package, cand.version))
        else:
            continue
        if v is None:
            return None
        true.add(v)
    return true


def settled(result: Result, ctx: Context, subjects: frozenset[Identity]) -> Optimality | None:
    """The selection proven optimal without reading the universe, or None when that takes
    more: every pick at its applicable lock (the only selection that moves none: a warm
    re-init, never a listing), or every term at zero, measured on what the search already
    listed (the ``tofu init`` case: the newest of every call is consistent)."""
    reqs_of: dict[str, ModuleRequirement] = {}
    for ident, crit in result.criteria.items():
        for info in crit.information:
            if isinstance(info.requirement, ModuleRequirement):
                reqs_of[ident.name] = info.requirement
    reader = _Reader(ctx, [], subjects, {})
    all_locked = True
    zero = True
    for ident, cand in result.mapping.items():
        if isinstance(cand, ModuleCandidate):
            req = reqs_of.get(ident.name)
            if req is None:
                return None
            locked = ctx.locked_candidate(req)
            if locked is not None and locked.version_text == cand.version_text:
                continue
            all_locked = False
            if ctx.listed(req) is None:
                return None
            try:
                order = reader.order(req)
            except TofuSolveError:
                return None
            zero = zero and bool(order) and position(order, cand.version_text) == 0
        elif isinstance(cand, ProviderCandidate):
            key = ident.name
            lock = ctx.locks.providers.get(key)
            if lock is not None and ident in subjects and not ctx.options.upgrade and lock.version == str(cand.version):
                continue
            all_locked = False
            root = reader_root_providers(result, key)
            try:
                porder = reader.provider_order(key, cand.address, root)
            except TofuSolveError:
                return None
            zero = zero and bool(porder) and position(porder, str(cand.version)) == 0
        if not zero:
            return None
    fenced = _fenced_count(result, ctx, reqs_of)
    if all_locked:  # the only selection that moves no lock, fenced or not
        return Optimality(Objective(fenced_off=fenced), True)
    if fenced:
        return None
    return Optimality(Objective(), True)


def reader_root_providers(result: Result, key: str) -> list[ProviderRequirement]:
    """The root module's own constraints on the provider at ``key`` in ``result``."""
    crit = result.criteria.get(Identity.provider(key))
    if crit is None:
        return []
    return [i.requirement for i in crit.information
            if i.parent is None and isinstance(i.requirement, ProviderRequirement)]


def _fenced_count(result: Result, ctx: Context, reqs_of: Mapping[str, ModuleRequirement]) -> int:
    """The (module pick, provider pick) pairs where the module's own line fenced the
    provider's version off (metadata already read): :func:`~.fenced.fenced_off`'s count, as
    the encoding counts them."""
    modules = {i.name: c for i, c in result.mapping.items() if isinstance(c, ModuleCandidate)}
    providers = {str(c.address): c for c in result.mapping.values() if isinstance(c, ProviderCandidate)}
    return len(fenced_off(modules, reqs_of, providers, ctx))


def _estimate(result: Result, ctx: Context, caps: Mapping[str, int] | None) -> int:
    """A lower bound on the module candidates the universe holds, from the calls ``result``
    selected and the listings already read (a call not listed counts one)."""
    load("tofu_solve.solver.locks")
    from .locks import module_requirements_of

    reader = _Reader(ctx, [], frozenset(), {})
    total = 0
    for req in module_requirements_of(result.criteria).values():
        if ctx.listed(req) is None:
            total += 1
            continue
        try:
            n = len(reader.order(req))
        except TofuSolveError:
            n = 1
        total += min(n, caps[req.call_path] + 1) if caps is not None and req.call_path in caps else n
    return total


def measure(result: Result, ctx: Context, subjects: frozenset[Identity]) -> Objective | None:
    """``result``'s value by :class:`Objective`, from the selection alone (no universe),
    where the universe is too large to read; the same terms as the encoding's soft clauses.
    None when a listing it needs is not known (nothing is listed for it)."""
    load("tofu_solve.solver.locks")
    from .locks import module_requirements_of, moved

    reqs_of = module_requirements_of(result.criteria)
    reader = _Reader(ctx, [], subjects, {})
    units = [0] * _TIERS
    try:
        for req in reqs_of.values():
            cand = result.mapping.get(req.identifier)
            if not isinstance(cand, ModuleCandidate):
                continue
            locked = ctx.locked_candidate(req)
            if locked is not None and locked.version_text == cand.version_text:
                continue
            if ctx.listed(req) is None:
                return None
            order = reader.order(req)
            units[_depth_tier(req.call_path)] += position(order, cand.version_text)
        for ident, pick in result.mapping.items():
            if not isinstance(pick, ProviderCandidate):
                continue
            porder = reader.provider_order(ident.name, pick.address, reader_root_providers(result, ident.name))
            units[_PROVIDER] += position(porder, str(pick.version))
    except TofuSolveError:
        return None
    units[_FENCED] = _fenced_count(result, ctx, reqs_of)
    units[_MOVED] = len(moved(result.mapping, reqs_of, ctx, subjects))
    return Objective.of(units)


def _dead_alone(reader: _Reader, cand: ModuleCandidate, root: Mapping[str, list[ProviderRequirement]],
                admitted: dict[str, list[ProviderCandidate]]) -> bool:
    """Whether ``cand`` is in no selection whatever the other calls take, from what is
    already read (never fetches): its tree failed, or one of its own requirements no
    version the root module's own constraints admit meets (a provider), or the target
    OpenTofu version does not meet (``required_version``). Unknown: False. ``admitted``:
    provider address -> the versions the root admits, filled as they are asked (one order
    per address for all the candidates examined)."""
    tree = reader.ctx.known_tree(cand)
    if tree is None:
        return False
    if isinstance(tree, TofuSolveError):
        return True
    try:
        deps = list(reader.factory.dependencies(cand))
    except TofuSolveError:
        return True
    for r in deps:
        if isinstance(r, Unusable) or (isinstance(r, CoreRequirement) and not r.is_satisfied_by(reader.target)):
            return True
        if isinstance(r, ProviderRequirement) and str(r.address) in root:
            key = str(r.address)
            if key not in admitted:
                admitted[key] = reader.provider_order(key, r.address, root[key])
            if not any(r.is_satisfied_by(pc) for pc in admitted[key]):
                return True
    return False


def _skip_caps(result: Result, ctx: Context, subjects: frozenset[Identity], reqs: list,
               pruned: Mapping[str, set[str]]) -> dict[str, int] | None:
    """Root call path -> the last position in its order that a selection no worse than
    ``result`` can take, when ``result`` moves no lock; else None (no cap: a selection that
    moves fewer locks may skip more).

    No selection moves fewer locks, and the root's calls are compared first, so a better one
    skips at most the ``S`` versions ``result``'s root calls skipped. Every other root call
    skips at least the proven dead ends (``pruned``, never selected) at the head of its
    order, and those dead whatever else is selected (:func:`_dead_alone`), so call ``X`` may
    take a position up to ``S`` minus those of the others. The calls inside them are not
    capped: a better root may need any of theirs."""
    load("tofu_solve.solver.locks")
    from .locks import module_requirements_of, moved

    if moved(result.mapping, module_requirements_of(result.criteria), ctx, subjects):
        return None
    reader = _Reader(ctx, [], subjects, {})
    root: dict[str, list[ProviderRequirement]] = {}
    for r in reqs:
        if isinstance(r, ProviderRequirement):
            root.setdefault(str(r.address), []).append(r)
    taken: dict[str, int] = {}
    least: dict[str, int] = {}
    admitted: dict[str, list[ProviderCandidate]] = {}
    for req in module_requirements_of(result.criteria).values():
        cand = result.mapping.get(req.identifier)
        if not isinstance(cand, ModuleCandidate) or "." in req.call_path:
            continue
        try:
            order = reader.order(req)
        except TofuSolveError:
            return None
        dead = pruned.get(req.call_path, ())
        taken[req.call_path] = position(order, cand.version_text)
        least[req.call_path] = next((i for i, c in enumerate(order[:taken[req.call_path]])
                                     if c.version_text not in dead and not _dead_alone(reader, c, root, admitted)),
                                    taken[req.call_path])
    skipped, floor = sum(taken.values()), sum(least.values())
    return {path: skipped - (floor - least[path]) for path in taken}


def optimise(result: Result, reqs: list, ctx: Context, subjects: frozenset[Identity],
             pruned: Mapping[str, set[str]], max_rounds: int) -> tuple[Result, Optimality]:
    """The best selection by :class:`Objective`, starting from the search's ``result``.

    Args:
        result: a solution (resolvelib's result) of ``reqs``, the root requirements.
        ctx: the solve's context; the universe is read through a view of it with a fetch
            budget of :data:`FETCH_BUDGET` module versions.
        subjects: the locks that apply (:func:`~.locks.locked_subjects`).
        pruned: call path -> versions proven dead ends (never selected).
        max_rounds: the round cap of the search that reaches the better selection.

    Returns:
        (the selection, whether it is proven optimal). ``result`` itself when nothing is
        better, or when the better answer could not be reached by a search (logged).

    Raises:
        NetworkError, RegistryError: a listing failed while the universe was read.
    """
    budgeted = ctx.view(fetch_budget=FETCH_BUDGET, likely_provider=None)
    caps = _skip_caps(result, budgeted, subjects, reqs, pruned)
    too_large = f"more than {MAX_CANDIDATES} module candidates"
    calls = sum(isinstance(c, ModuleCandidate) for c in result.mapping.values())
    if calls > MAX_CALLS:
        return result, Optimality(measure(result, budgeted, subjects), False, f"more than {MAX_CALLS} module calls")
    if _estimate(result, budgeted, caps) > MAX_CANDIDATES:  # the calls already selected say so: nothing read
        return result, Optimality(measure(result, budgeted, subjects), False, too_large)
    try:
        universe = _Reader(budgeted, reqs, subjects, pruned, caps).read()
    except _TooLarge:
        return result, Optimality(measure(result, budgeted, subjects), False, too_large)
    bound = "; ".join(dict.fromkeys(universe.cut)) or None
    current_true = assignment(universe, result)
    current = universe.value(current_true) if current_true is not None else None
    if current is None:
        log.debug("exact optimiser: the search's selection is not a selection of the universe read")
        return result, Optimality(None, False, bound or "the selection could not be measured")
    if current == Objective.of(universe.constant):
        return result, Optimality(current, True)  # nothing to gain: every term at its least
    if universe.modules_forced and current.fenced_off == universe.constant[_FENCED]:
        # The module versions are forced, so each provider is a choice of its own among the
        # versions every constraint admits, and the search took the first of them in the one
        # order (locked first, then nearest; else newest): least moved, least skipped.
        return result, Optimality(current, bound is None)
    best = _solve(universe)
    if best is None:
        return result, Optimality(current, False, bound or "the exact optimiser found no selection")
    true, value = best
    if value >= current:
        return result, Optimality(current, bound is None, bound)
    chosen_modules = {universe.module_cands[v].call_path: universe.module_cands[v] for v in true
                      if v in universe.module_cands}
    chosen_providers = {str(universe.provider_cands[v].address): universe.provider_cands[v].version for v in true
                        if v in universe.provider_cands}
    provider = TofuSolveProvider(ctx, pruned, Holds(frozenset(), subjects),
                                 module_order=lambda r: [chosen_modules[r.call_path]]
                                 if r.call_path in chosen_modules else None,
                                 provider_first=chosen_providers)
    try:
        better = Search(provider, BaseReporter()).resolve(reqs, max_rounds=max_rounds)
    except (ResolutionImpossible, ResolutionTooDeep, TofuSolveError) as e:
        log.debug("exact optimiser: the better selection %s was not reached by a search: %s", value, e)
        return result, Optimality(current, False, bound or "the better selection was not reached")
    reached_true = assignment(universe, better)
    reached = universe.value(reached_true) if reached_true is not None else None
    if reached is None or reached >= current:
        log.debug("exact optimiser: the search reached %s, not better than %s", reached, current)
        return result, Optimality(current, False, bound or "the better selection was not reached")
    return better, Optimality(reached, bound is None and reached <= value, bound, improved=True)


def _solve(u: _Universe) -> tuple[set[int], Objective] | None:
    """RC2's optimum of ``u``: (the true variables, their objective), or None (no model)."""
    load("pysat.card")
    from pysat.card import CardEnc, EncType
    load("pysat.examples.rc2")
    from pysat.examples.rc2 import RC2Stratified
    load("pysat.formula")
    from pysat.formula import WCNF

    weights = u.weights()
    wcnf = WCNF()
    for c in u.hard:
        wcnf.append(c)
    top = u.next_var - 1
    for group in u.amo:  # a sequential counter: linear in the group, auxiliary variables above top
        enc = CardEnc.atmost(lits=group, bound=1, top_id=top, encoding=EncType.seqcounter)
        top = max(top, enc.nv)
        for c in enc.clauses:
            wcnf.append(c)
    for clause, tier, units in u.soft:
        wcnf.append(clause, weight=weights[tier] * units)
    if not u.hard and not u.soft and not u.amo:
        return set(), Objective.of(u.constant)
    with RC2Stratified(wcnf, adapt=True, exhaust=True, minz=True) as rc2:
        model = rc2.compute()
    if model is None:
        return None
    true = {lit for lit in model if 0 < lit < u.next_var}
    value = u.value(true)
    return (true, value) if value is not None else None


__all__ = ["FETCH_BUDGET", "MAX_CALLS", "MAX_CANDIDATES", "Objective", "Optimality", "optimise"]

