"""Certain dead ends, found before the resolver walks into them (one level of propagation).

resolvelib learns that a version of a module call cannot work only by trying it together
with everything else, and a clash between two calls that each have many versions can cost
it thousands of rounds (``-module-versions=shared`` with root kms ``~> 3.0`` and eks 21,
which pins kms to one 4.x version, took 95 s to give up on). This pass reasons per
*subject* instead, over the root's module calls and their direct requirements:

* a subject is a provider, the OpenTofu version, or (with ``-module-versions=shared``) a
  module package; its domain starts as the versions the root's own constraints admit (and
  the lock, when it holds a provider);
* a version of a root call is dead when one of its requirements admits nothing in a
  subject's domain;
* when every live version of a call constrains a subject, the subject's domain narrows to
  what at least one of them admits;

repeated until nothing changes. A root call left with no live version is a certain clash:
it is reported at once, and the resolver never sees dead versions. Everything here only
removes what cannot be part of any solution (constraints deeper than one level are
ignored, which can only keep more alive), so it never changes an answer, only the time to
reach it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from .._lazy import load
from ..addrs.provider import ProviderAddress
from ..config.tree import ModuleTree
from ..errors import ConfigurationError, TofuSolveError
from .context import Context
from .model import (
    OPENTOFU,
    ROOT,
    Identity,
    Kind,
    ModuleCandidate,
    ModuleRequirement,
    ProviderRequirement,
    Requirement,
)

BATCH = 40  # candidates per root call looked at first (newest first)
MAX_VERSIONS_PER_CALL = 200  # a call whose every candidate so far is dead is looked at further, batch by batch
MAX_PASSES = 12


@dataclass
class Kill:
    """Why a version of a root call is dead: its requirement ``req`` on ``subject`` admits
    nothing in the subject's domain at that point."""

    subject: Identity
    req: object


@dataclass
class Pruning:
    """The result of :func:`propagate`.

    Attributes:
        dead: call path -> version text -> why that version cannot be part of a solution.
        empty: root call paths left with no live version (a certain clash).
        narrowed_by: subject -> call paths whose every live version constrains it.
        examined: call path -> the versions examined (their metadata was known to the pass).
        partial: some candidate examined was counted as live for want of its metadata:
            a later pass, when more is known, may find more dead ends (when False, a
            later pass over the same candidates finds exactly these).
    """

    dead: dict[str, dict[str, Kill]] = field(default_factory=dict)
    empty: list[str] = field(default_factory=list)
    narrowed_by: dict[tuple, list[str]] = field(default_factory=dict)
    examined: dict[str, set[str]] = field(default_factory=dict)
    partial: bool = False


def _fetch_all(ctx: Context, cands: list[ModuleCandidate]) -> None:
    for c in cands:
        ctx.prefetch_tree(c)


def _known_tree(ctx: Context, cand: ModuleCandidate, fetch: bool) -> ModuleTree | ConfigurationError | None:
    if not fetch and not ctx.tree_known(cand):
        return None
    try:
        return ctx.tree(cand)
    except TofuSolveError:
        return None


def propagate(root_reqs: list, ctx: Context, *, fetch: bool, only: Collection[str] | None = None) -> Pruning:
    """Find root-call versions that cannot be part of any solution.

    Args:
        root_reqs: the root requirements (as :func:`~.resolve.root_requirements` builds them).
        fetch: fetch the metadata of the candidates of each root call, :data:`BATCH` at a
            time in parallel, further batches (up to :data:`MAX_VERSIONS_PER_CALL`) only
            for calls whose every candidate so far is dead; when False, only metadata
            already known is used and every other candidate counts as live.
        only: with ``fetch``, the root call paths whose candidates are fetched (the calls
            a conflict involves); the others are examined as with ``fetch=False``. None:
            every root call, every candidate. With ``only``, a call whose candidates, in
            the search's order, reach a live version through known ones has only the
            unknown candidates before that version fetched: the search takes that version
            next, and what lies beyond it cannot change that (the 24 iam versions older
            than the 5.60.0 the search already held, issue #23).

    Raises: nothing; a source that cannot be listed is left alone (the resolver reports it).
    """
    plan: dict[str, set[str] | None] | None = None
    if fetch and only is not None:
        known = propagate(root_reqs, ctx, fetch=False)
        plan = {}
        for r in root_reqs:
            if isinstance(r, ModuleRequirement) and r.call_path in only:
                plan[r.call_path] = _before_first_live(r, known, ctx)
        if all(v == set() for v in plan.values()):
            return known  # nothing to read: the pass over what is known is the answer
    limits: dict[str, int] = {}
    while True:
        out, starved = _propagate_once(root_reqs, ctx, fetch, limits, plan)
        grow = [p for p in starved if limits.get(p, BATCH) < MAX_VERSIONS_PER_CALL]
        if not grow:
            return out
        for p in grow:
            limits[p] = limits.get(p, BATCH) + BATCH


def _before_first_live(r: ModuleRequirement, known: Pruning, ctx: Context) -> set[str] | None:
    """The versions of call ``r`` not yet known that come before its first known live
    candidate (in the search's order, within :data:`BATCH`); None when no known candidate
    there is live (then every candidate is to be read)."""
    try:
        cands = ctx.module_candidates(r)[:BATCH]
    except TofuSolveError:
        return None
    dead = known.dead.get(r.call_path, {})
    examined = known.examined.get(r.call_path, set())
    unknown: set[str] = set()
    for c in cands:
        # known as the pass over what is known saw it, not as now: a read that ended since
        # is a version that pass did not examine, not a live one (a race that made the pass
        # read nothing, and the search walk the other calls for seconds, issue #23)
        if c.version_text not in examined:
            unknown.add(c.version_text)
        elif c.version_text not in dead:
            return unknown
    return None


@dataclass(frozen=True)
class _Effect:
    """The ``index``-th requirement :func:`~.factory.requirements_of_tree` builds with
    ``modules=False`` for a tree (on a provider ``address``, or on OpenTofu: None), built
    only when it proves a version dead."""

    index: int
    address: object

    def requirement(self, tree: ModuleTree, call_path: str, version: str, ctx: Context) -> Requirement:
        load("tofu_solve.solver.factory")
        from .factory import requirements_of_tree
        return requirements_of_tree(tree, call_path, version, None, ctx, modules=False)[self.index]


def _tree_effects(tree: ModuleTree, ctx: Context) -> tuple:
    """What a tree's own provider and OpenTofu requirements allow, wherever it is called:
    ``(subject, allowed, _Effect)`` per requirement that :func:`~.factory.requirements_of_tree`
    builds with ``modules=False``, without building them. Read once per tree and run (the
    pass looks at thousands of candidates, and the explanation's what-if solves pass over
    them again and again)."""
    cache = ctx.tree_effects
    hit = cache.get(id(tree))
    if hit is not None and hit[0] is tree:
        return hit[1]
    out = []
    index = 0
    for _path, p in tree.providers:
        if p.address.is_builtin:
            continue
        if p.constraint is not None and "-" not in p.constraint.text:
            out.append((Identity.provider(p.address), ctx.provider_allowed(p.address, p.constraint),
                        _Effect(index, p.address)))
        index += 1
    t = ctx.options.target
    for _path, c in tree.core:
        if not c.counts_for(t.triple, t.terraform):
            continue
        out.append((OPENTOFU, frozenset([t.version]) if c.constraint.allows(t.version) else frozenset(),
                    _Effect(index, None)))
        index += 1
    effects = tuple(out)
    cache[id(tree)] = (tree, effects)  # holds the tree: its id is not reused meanwhile
    return effects


def _propagate_once(root_reqs: list, ctx: Context, fetch: bool, limits: dict[str, int],
                    plan: dict[str, set[str] | None] | None = None) -> tuple[Pruning, list[str]]:
    """One propagation over the first ``limits[call]`` (default :data:`BATCH`) candidates
    of each root call. ``plan`` (with ``fetch``): call path -> the versions to fetch (None:
    all); a call it leaves out is examined as with ``fetch=False``; no plan: fetch all.
    Returns the pruning and the calls whose every examined candidate is dead while more
    remain."""
    run = _Propagation(root_reqs, ctx)
    run.candidates(fetch, limits, plan)
    run.root_domains()
    for r in run.calls:
        run.effects_of(r)
    run.fixpoint()
    out = run.out
    out.dead = {k: v for k, v in out.dead.items() if v}
    starved = [p for p, cs in run.cands.items() if p not in run.complete and cs
               and all(c.version_text in out.dead.get(p, {}) for c in cs)]
    return out, starved


class _Propagation:
    """One propagation's state: the root calls' candidates examined, the subjects' domains
    (provider versions, packages with ``-module-versions=shared``, OpenTofu), each examined
    version's effects on them, and the pruning found."""

    def __init__(self, root_reqs: list, ctx: Context):
        self.root_reqs, self.ctx = root_reqs, ctx
        self.out = Pruning()
        self.calls = [r for r in root_reqs if isinstance(r, ModuleRequirement) and r.versioned]
        self.shared = ctx.options.shared
        self.cands: dict[str, list[ModuleCandidate]] = {}
        self.complete: set[str] = set()  # calls whose every candidate is looked at
        self.fetched: dict[str, set[str] | None] = {}  # call path -> versions fetched (None: all)
        self.domains: dict[Identity, set] = {}  # the subjects' domains, from the root's own constraints
        # per call and version: subject -> (allowed set, requirement)
        self.effects: dict[str, dict[str, Sequence]] = {}
        # versions whose metadata is unknown: only their own package pin (shared mode) is certain
        self.unknown_pins: dict[str, dict[str, list]] = {r.call_path: {} for r in self.calls}
        self.tree_of: dict[str, dict[str, ModuleTree]] = {}  # call path -> version -> its tree
        self.checked: dict[int, tuple] = {}  # id of a tree's effects -> those whose provider can be listed

    def candidates(self, fetch: bool, limits: dict[str, int], plan: dict[str, set[str] | None] | None) -> None:
        """Each root call's first candidates, fetched as ``plan`` says (see :func:`_propagate_once`)."""
        for r in self.calls:
            try:
                full = self.ctx.module_candidates(r)
            except TofuSolveError:
                continue
            limit = limits.get(r.call_path, BATCH)
            self.cands[r.call_path] = full[:limit]
            if len(full) <= limit:
                self.complete.add(r.call_path)
            if not fetch:
                continue
            wanted = None if plan is None else plan.get(r.call_path, set())
            self.fetched[r.call_path] = wanted
            _fetch_all(self.ctx, [c for c in self.cands[r.call_path] if wanted is None or c.version_text in wanted])

    def provider_domain(self, addr: ProviderAddress) -> set | None:
        key = Identity.provider(addr)
        if key not in self.domains:
            try:
                versions = [v for v in self.ctx.provider_versions(addr) if not v.prerelease]
            except TofuSolveError:
                return None
            # (locks are not constraints here: what is dead is dead whatever may move, so
            # the pass serves every search of the conservative update, issue #34)
            self.domains[key] = set(versions)
        return self.domains[key]

    def root_domains(self) -> None:
        """The domains the root's own constraints leave: its providers' released versions
        it admits, and with ``-module-versions=shared`` each package's examined versions."""
        for r in self.root_reqs:
            if isinstance(r, ProviderRequirement) and r.constraint is not None:
                if "-" in r.constraint.text:
                    continue  # a prerelease request: the released-only domain would be wrong
                d = self.provider_domain(r.address)
                if d is not None:
                    d &= self.ctx.provider_allowed(r.address, r.constraint)
        if self.shared:
            for r in self.calls:
                if r.call_path in self.cands:
                    key = Identity.package(self.ctx.package_address(r.call.source))
                    labels = {c.available.label for c in self.cands[r.call_path]}
                    self.domains[key] = labels if key not in self.domains else self.domains[key] & labels

    def effects_of(self, r: ModuleRequirement) -> None:
        """Each examined version's effects on the subjects, for the root call ``r``."""
        ctx, shared = self.ctx, self.shared
        per_version: dict[str, Sequence] = {}
        trees = self.tree_of[r.call_path] = {}
        wanted = self.fetched.get(r.call_path, set())
        for c in self.cands.get(r.call_path, []):
            fetch_this = wanted is None or c.version_text in wanted
            if not fetch_this and not ctx.tree_known(c):
                self.out.partial = True  # counted as live for want of its metadata
            tree = _known_tree(ctx, c, fetch_this)
            own = (Identity.package(c.package), frozenset([c.available.label]), None) if shared else None
            if tree is None and shared:
                self.unknown_pins[r.call_path][c.version_text] = [own]
            if isinstance(tree, ConfigurationError):
                per_version[c.version_text] = [(Identity(Kind.UNUSABLE, r.call_path), frozenset(), tree)]
                continue
            if not isinstance(tree, ModuleTree):
                continue
            own_effects = _tree_effects(tree, ctx)
            usable = self.checked.get(id(own_effects))
            if usable is None:  # without the providers whose versions cannot be listed
                usable = self.checked[id(own_effects)] = tuple(
                    e for e in own_effects if e[2].address is None or self.provider_domain(e[2].address) is not None)
            trees[c.version_text] = tree
            per_version[c.version_text] = self._pins(r, c, tree, usable, own) if shared else usable
        self.effects[r.call_path] = per_version
        self.out.examined[r.call_path] = set(per_version)

    def _pins(self, r: ModuleRequirement, c: ModuleCandidate, tree: ModuleTree, usable: tuple,
              own: tuple | None) -> list[tuple]:
        """With ``-module-versions=shared``: the version's effects, in requirements_of_tree's
        order (the nested calls' packages first, then its providers, then its own package)."""
        load("tofu_solve.solver.factory")
        from .factory import requirements_of_tree

        ctx = self.ctx
        pins: list[tuple] = []
        for d in requirements_of_tree(tree, r.call_path, c.version_text, None, ctx):
            if isinstance(d, ModuleRequirement) and d.versioned:
                try:
                    pinned = frozenset(x.available.label for x in ctx.module_candidates(d))
                except TofuSolveError:
                    continue
                pins.append((Identity.package(ctx.package_address(d.call.source)), pinned, d))
        pins.extend(usable)
        if own is not None:
            pins.append(own)
        return pins

    def fixpoint(self) -> None:
        """Kill versions whose effect meets an empty domain, and narrow the domains to what
        the live versions of a fully examined call allow, until nothing changes (at most
        :data:`MAX_PASSES` passes)."""
        self.domains.setdefault(OPENTOFU, {self.ctx.options.target.version})
        for _ in range(MAX_PASSES):
            changed = False
            for r in self.calls:
                changed = self._kill(r.call_path) | changed
                changed = self._narrow(r.call_path) | changed
            if not changed:
                break

    def _kill(self, path: str) -> bool:
        """Mark the call's versions an effect rules out; whether any was."""
        changed = False
        per_version = self.effects.get(path, {})
        dead = self.out.dead.setdefault(path, {})
        for v, items in list(per_version.items()) + list(self.unknown_pins.get(path, {}).items()):
            if v in dead:
                continue
            for subject, allowed, req in items:
                if subject.kind is Kind.UNUSABLE:
                    dead[v] = Kill(subject, req)
                    break
                dom = self.domains.get(subject)
                if dom is not None and dom.isdisjoint(allowed):
                    if isinstance(req, _Effect):
                        req = req.requirement(self.tree_of[path][v], path, v, self.ctx)
                    dead[v] = Kill(subject, req)
                    break
            if v in dead:
                changed = True
        return changed

    def _narrow(self, path: str) -> bool:
        """Narrow each subject every live version of a fully examined call names to the
        union of what they allow (or record the call as left with none); whether any
        domain changed."""
        per_version = self.effects.get(path, {})
        dead = self.out.dead.get(path, {})
        cands = self.cands.get(path, [])
        live = [v for v in (c.version_text for c in cands) if v not in dead]
        full_view = path in self.complete and len(per_version) == len(cands)
        if not live and cands and full_view:
            if path not in self.out.empty:
                self.out.empty.append(path)
            return False
        if not full_view:
            return False  # some versions unknown or not looked at: they could admit anything
        subjects = None
        for v in live:
            named = {subject for subject, _, _ in per_version[v]}
            subjects = named if subjects is None else subjects & named
        changed = False
        for subject in subjects or ():
            if subject not in self.domains:
                continue
            union = set()
            for v in live:
                for s, allowed, _ in per_version[v]:
                    if s == subject:
                        union |= allowed
            new = self.domains[subject] & union
            if new != self.domains[subject]:
                self.domains[subject] = new
                self.out.narrowed_by.setdefault(subject, []).append(path)
                changed = True
        return changed


__all__ = ["ROOT", "Kill", "Pruning", "propagate"]
