"""The resolvelib provider: only the callbacks, each saying why it does what it does.

It knows nothing about printing; it asks :class:`~.context.Context` for versions and
requirements and builds requirement objects that carry their provenance.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import cast

from resolvelib.providers import AbstractProvider
from resolvelib.resolvers import Criterion

from ..addrs.module_source import ModuleSource, OciSource, RegistrySource, RemoteSource
from ..addrs.provider import ProviderAddress
from ..addrs.redact import redact
from ..config.policy import DenyRule
from ..config.tree import ModuleTree
from ..errors import (
    ConfigurationError,
    ModuleNotFound,
    SourceRange,
    TofuSolveError,
)
from ..versions import apparentlymart_go_versions as gvs
from ..versions.constraints import ProviderConstraint
from ..versions.cooldown import HeldBack, format_age
from . import readahead
from .context import Context
from .locks import Holds, nearest_provider_versions, provider_lock_denial
from .model import (
    ROOT,
    Candidate,
    CoreRequirement,
    Identity,
    Kind,
    ModuleCandidate,
    ModuleRequirement,
    Origin,
    PackageCandidate,
    PackagePin,
    ProviderCandidate,
    ProviderRequirement,
    Requirement,
    TofuCandidate,
    Unusable,
)

_TEXT = operator.attrgetter("text")
_RANK = {Kind.UNUSABLE: 0, Kind.OPENTOFU: 1, Kind.MODULE: 2, Kind.PACKAGE: 3, Kind.PROVIDER: 4}


def display_package(source: ModuleSource) -> str:
    """A module package as people name it in output: the registry address, else the source
    address redacted (credentials never reach a line of output or a file)."""
    return source.package.for_display if isinstance(source, RegistrySource) else redact(str(source))


def requirements_of_tree(tree: ModuleTree, call_path: str, version: str | None, package: str | None,
                         ctx: Context, *, modules: bool = True) -> list:
    """The requirements a module tree imposes when installed at ``call_path`` (``ROOT``
    for the root module). ``modules=False``: only its provider and OpenTofu requirements
    (the dead-end pass, which looks at nested calls only with ``-module-versions=shared``).
    Reads ``ctx`` only for the target version; a caller that adopts the calls records them
    (:meth:`Context.note_calls`)."""
    out: list = []
    prefix = f"{call_path}." if call_path else ""
    for rc in tree.remote_calls if modules else ():
        child = prefix + ".".join(rc.rel_path)
        origin = Origin(".".join((call_path,) + rc.local_path) if rc.local_path and call_path else
                        (".".join(rc.local_path) if rc.local_path else call_path), version, rc.call.constraint_where,
                        package)
        out.append(ModuleRequirement(child, rc.call, origin, str(rc.call.source)))
    for path, p in tree.providers:
        if p.address.is_builtin:
            continue  # built into OpenTofu: nothing to select, install or lock
        imposed = ".".join(([call_path] if call_path else []) + list(path))
        origin = Origin(imposed, version, p.where, package)
        text = p.constraint.text if p.constraint else ""
        out.append(ProviderRequirement(p.address, p.constraint, origin, text, f"{imposed}@{p.where}"))
    for path, c in tree.core:
        if not c.counts_for(ctx.options.target.triple, ctx.options.target.terraform):
            continue
        imposed = ".".join(([call_path] if call_path else []) + list(path))
        origin = Origin(imposed, version, c.where, package)
        out.append(CoreRequirement(c.constraint, origin, c.kind, c.constraint.text, f"{imposed}@{c.where}"))
    return out


MAX_CALL_DEPTH = 64


def module_identity(source: ModuleSource) -> str:
    """What makes two calls the same module for cycle detection: the package without
    any ref, tag or digest, plus the subdirectory."""
    if isinstance(source, RegistrySource):
        return f"{source.package}//{source.subdir}"
    if isinstance(source, OciSource):
        return f"oci://{source.registry}/{source.repository}//{source.subdir}"
    if isinstance(source, RemoteSource):
        return f"{source.package.split('?', 1)[0]}//{source.subdir}"
    return str(source)


def check_remote_cycle(req: ModuleRequirement, calls: Mapping[str, ModuleRequirement]) -> None:
    """Refuse a remote call that reaches a module already on its own chain of calls (A
    calls B calls A), and chains deeper than :data:`MAX_CALL_DEPTH`: either would grow
    the call path for ever. Local cycles are refused the same way while a package's tree
    is read (:func:`tofu_solve.config.tree.read_module_tree`).

    Raises:
        ConfigurationError: "Module call cycle" naming the chain, at the closing call's
            file and line.
    """
    parts = req.call_path.split(".")
    if len(parts) > MAX_CALL_DEPTH:
        raise ConfigurationError(
            "Module call chain too deep",
            f'Module "{req.call_path}" is nested {len(parts)} calls deep; tofu-solve stops at {MAX_CALL_DEPTH}.',
            req.call.where)
    ident = module_identity(req.call.source)
    chain = [calls[p] for p in (".".join(parts[:i]) for i in range(1, len(parts))) if p in calls]
    for i, anc in enumerate(chain):
        if module_identity(anc.call.source) == ident:
            steps = " -> ".join(f'module "{c.call_path}" ({display_package(c.call.source)})'
                                for c in chain[i:] + [req])
            raise ConfigurationError(
                "Module call cycle",
                f"Remote module calls form a cycle: {steps}. A module cannot call itself, directly or "
                "through other modules.", req.call.where)


def _cause_identities(backtrack_causes: Sequence) -> set:
    causes = set()
    for c in backtrack_causes:
        causes.add(c.requirement.identifier)
        if c.parent is not None:
            causes.add(c.parent.identifier)
    return causes


def _order(identifier: Identity) -> tuple:
    kind = identifier.kind
    depth = identifier.name.count(".") if kind is Kind.MODULE else 0
    return (_RANK[kind], depth, identifier)


def _preference(identifier: Identity, causes: set) -> tuple:
    return (identifier not in causes, *_order(identifier))


@dataclass(frozen=True)
class _Summary:
    """What a provider's requirements ask, as far as its matches go: the set of their
    texts (``""`` for none; the key of the matches) and their distinct constraints by text,
    in the order first met."""

    texts: frozenset
    constraints: dict

    @staticmethod
    def of(reqs: Iterable[ProviderRequirement]) -> _Summary:
        reqs = list(reqs)
        return _Summary(frozenset(map(_TEXT, reqs)),
                        {r.constraint.text: r.constraint for r in reqs if r.constraint is not None})

    def plus(self, req: ProviderRequirement) -> _Summary:
        known = req.text in self.texts
        if known and (req.constraint is None or req.constraint.text in self.constraints):
            return self
        constraints = self.constraints
        if req.constraint is not None and req.constraint.text not in constraints:
            constraints = {**constraints, req.constraint.text: req.constraint}
        return _Summary(self.texts if known else self.texts | {req.text}, constraints)


_NO_REQUIREMENTS = _Summary(frozenset(), {})


def cited_source(req: ModuleRequirement) -> SourceRange | None:
    """Where a failure to reach a call's source is cited: its ``source`` line; inside a
    package, named with the package and version first, as every citation reads (issue #24;
    issue #50 §5: never a bare line number that reads as the user's own file)."""
    at = req.call.source_at
    if at is None or req.origin.call_path == ROOT or not req.origin.package:
        return at
    return replace(at, file=f"{req.origin.package} {req.origin.version}: {at.file}")


#: A call's candidates in the order a search should try them, or None for the solver's own
#: order (:class:`TofuSolveProvider`'s ``module_order`` hook).
ModuleOrder = Callable[[ModuleRequirement], "list[ModuleCandidate] | None"]


class TofuSolveProvider(AbstractProvider[Requirement, Candidate, Identity]):
    """resolvelib callbacks for module calls, module packages, providers and OpenTofu."""

    def __init__(self, ctx: Context, pruned: Mapping[str, set[str]] | None = None, holds: Holds | None = None,
                 floors: Mapping[str, gvs.Version] | None = None, *, module_order: ModuleOrder | None = None,
                 lenient_providers: bool = False, provider_first: Mapping[str, gvs.Version] | None = None):
        """``pruned``: call path -> version texts known to be dead ends
        (:func:`~.propagate.propagate`); they are never offered. ``holds``: the locks this
        search keeps fixed and those it offers first (:class:`~.locks.Holds`); None holds
        nothing and offers every applicable lock first (the what-if solves). ``floors``:
        provider address -> a version only newer ones than which are offered (whether a
        newer provider is possible, for ``-upgrade=NAME``).

        The public hooks for other searches (the what-if solves of
        :mod:`tofu_solve.explain.whatif`; issue #51 §3, instead of overriding private
        methods): ``module_order`` gives, for a call, its candidates in the order to try
        them, or None for the solver's own order; a call it orders is offered no lock first
        and is read ahead from its first candidate on, as a call that has already gone back.
        ``lenient_providers``: when the matches of a provider's whole criterion are asked
        and its listing fails, it offers no version (ruling out what requires it) instead of
        failing the search. ``provider_first``: provider address -> a version offered first
        when it matches (the exact optimiser's answer, :mod:`.optimum`)."""
        self.ctx = ctx
        self.provider_first = dict(provider_first or {})
        self.module_order = module_order
        self.lenient_providers = lenient_providers
        self.pruned = pruned or {}
        self.holds = holds if holds is not None else Holds()
        self.floors = dict(floors or {})
        self._ahead_done: set[tuple[str, str]] = set()  # conflict parties already read ahead of
        self._parties_done: dict[int, ModuleCandidate] = {}  # id -> party already read ahead of
        self.spend_budget_at_once = False
        # (provider, constraint texts) -> (candidates meeting them all, constraints)
        self._meeting: dict[tuple, tuple] = {}
        # A provider's criterion gains a requirement per module version that requires it:
        # what its constraints are is kept per criterion and extended by the one added
        # (see adding_requirement), not read again from all of them on every pin.
        self._summaries: dict[int, tuple] = {}  # id(criterion) -> (criterion, _Summary)
        self._adding: tuple | None = None  # (identifier, criterion or None, requirement) being added
        self._added: tuple | None = None  # (identifier, _Summary) that find_matches made for it

    def identify(self, requirement_or_candidate: Requirement | Candidate) -> Identity:
        return requirement_or_candidate.identifier

    def get_preference(self, identifier: Identity, resolutions: Mapping, candidates: Mapping, information: Mapping,
                       backtrack_causes: Sequence) -> tuple:
        """Unusable markers and OpenTofu first (they prune at once), then module calls
        shallowest first, then packages, then providers last, so that whenever the newest
        version of every call is consistent it is exactly what ``tofu init`` picks and the
        providers get the newest version all of them allow. Identities involved in the
        last conflict go first (pip's heuristic against long backtracking)."""
        return _preference(identifier, _cause_identities(backtrack_causes))

    def narrow_requirement_selection(self, identifiers: Iterable, resolutions: Mapping, candidates: Mapping,
                                     information: Mapping, backtrack_causes: Sequence) -> Iterable:
        """The one identifier :meth:`get_preference` prefers, found in one pass: resolvelib
        asks for the preference of every unsatisfied identifier on every round (half a million
        calls on a 1,050-call tree) and skips that when the selection is narrowed to one."""
        causes = _cause_identities(backtrack_causes)
        return [min(identifiers, key=lambda i: _preference(i, causes))]

    def search_order(self, identifier: Identity) -> tuple:
        """The part of :meth:`get_preference` that does not depend on the search's state:
        identifiers of the last conflict first, then the least of these keys (a total
        order). :class:`~.search.Search` keeps unsatisfied identifiers in a heap by it."""
        return _order(identifier)

    def read_ahead_below_parties(self, information: Iterable, candidate: Candidate) -> None:
        """:meth:`read_ahead_below` each module version that imposed one of ``information``
        (a conflict's requirements), except the rejected ``candidate``. A provider's
        conflict names every module version that requires it, again at every rejection:
        a version already read below is passed over by identity, not compared again."""
        done = self._parties_done
        for info in information:
            parent = info.parent
            if parent is None or parent is candidate or done.get(id(parent)) is parent:
                continue
            if isinstance(parent, ModuleCandidate) and parent != candidate:
                self.read_ahead_below(parent)
                done[id(parent)] = parent  # holds it: its id is never reused meanwhile

    def read_ahead_below(self, cand: ModuleCandidate) -> None:
        """``cand`` is party to a conflict: the search may go back over its call next, or
        over the other party's. Read the next :data:`.readahead.CONFLICT` older versions of
        its call ahead of need, once per version, so that whichever call the search (or
        the after-solve pass) goes back over finds its metadata already there, fetched in
        parallel with the other's (issue #13). Uses only listings already known."""
        key = (cand.call_path, cand.version_text)
        if key in self._ahead_done or cand.version is None:
            return
        self._ahead_done.add(key)
        req = self.ctx.calls.get(cand.call_path)
        listed = self.ctx.listed(req) if req is not None else None
        if not listed or req is None:
            return
        dead = self.pruned.get(cand.call_path, ())
        older = [c for c in listed if c.version is not None and c.version.compare(cand.version) < 0
                 and c.version_text not in dead and self.is_satisfied_by(req, c)]
        for c in older[:readahead.CONFLICT]:
            self.ctx.prefetch_tree(c)

    def adding_requirement(self, identifier: Identity, criterion: Criterion[Requirement, Candidate] | None,
                           requirement: Requirement) -> None:
        """:class:`~.search.Search` says that the next :meth:`find_matches` for ``identifier``
        is for the requirements of ``criterion`` (None: there is none yet) followed by
        ``requirement`` (resolvelib's ``_add_to_criteria``). For a provider, the matches
        then come from the criterion's kept summary plus the one requirement: adding to a
        criterion of n requirements costs what adding to one of a few costs (a 1,050-call
        tree adds a thousand requirements to the same provider's criterion, issue #23)."""
        self._adding = (identifier, criterion, requirement) if identifier.kind is Kind.PROVIDER else None
        self._added = None

    def added_requirement(self, identifier: Identity, criterion: Criterion[Requirement, Candidate] | None) -> None:
        """:class:`~.search.Search` says that the add announced by :meth:`adding_requirement`
        made ``criterion``; None: it made none (the requirements conflicted)."""
        added, self._added, self._adding = self._added, None, None
        if added is not None and criterion is not None and added[0] == identifier:
            self._summaries[id(criterion)] = (criterion, added[1])  # holds it: its id is not reused

    def _summary(self, criterion: Criterion[Requirement, Candidate]) -> _Summary:
        hit = self._summaries.get(id(criterion))
        if hit is not None and hit[0] is criterion:
            return hit[1]
        # a provider's criterion: its requirements are that provider's constraints
        summary = _Summary.of(cast("list[ProviderRequirement]", list(criterion.iter_requirement())))
        self._summaries[id(criterion)] = (criterion, summary)
        return summary

    def find_matches(self, identifier: Identity, requirements: Mapping[Identity, Iterator[Requirement]],
                     incompatibilities: Mapping[Identity, Iterator[Candidate]]) -> Iterable[Candidate]:
        adding = self._adding
        if adding is not None and adding[0] == identifier:
            self._adding = None
            _, criterion, requirement = adding
            before = self._summary(criterion) if criterion is not None else _NO_REQUIREMENTS
            summary = before.plus(requirement)
            self._added = (identifier, summary)
            return self._provider_matches_of(requirement.address, summary, set(incompatibilities[identifier]))
        reqs = list(requirements[identifier])
        bad = set(incompatibilities[identifier])
        kind = identifier.kind
        if kind is Kind.MODULE:
            calls = [r for r in reqs if isinstance(r, ModuleRequirement)]
            if not calls:
                return []
            # resolvelib takes a callable that returns a fresh iterator too (its build_iter_view)
            return cast("Iterable[Candidate]", self._module_matches(calls[0], reqs, bad))
        if kind is Kind.PACKAGE:  # a package's requirements are its pins
            versions = {r.version for r in reqs if isinstance(r, PackagePin)}
            if len(versions) != 1:
                return []
            pin = PackageCandidate(identifier.name, versions.pop())
            return [] if pin in bad else [pin]
        if kind is Kind.PROVIDER:  # a provider's requirements are its constraints
            provider_reqs = [r for r in reqs if isinstance(r, ProviderRequirement)]
            if self.lenient_providers:
                try:
                    return self._provider_matches(provider_reqs, bad)
                except TofuSolveError:
                    return []
            return self._provider_matches(provider_reqs, bad)
        if kind is Kind.OPENTOFU:
            cand = TofuCandidate(self.ctx.options.target.version)
            return [cand] if cand not in bad and all(self.is_satisfied_by(r, cand) for r in reqs) else []
        return []  # unusable

    def _module_matches(self, call: ModuleRequirement, reqs: list, bad: set) -> Callable[[], Iterator[ModuleCandidate]]:
        """Lazily: the locked version first, built from the lock without listing the source
        (a warm re-init needs no network); nothing else when the lock is held; else the
        listing, nearest the locked version first when a lock applies (it moves as little
        as it can), newest first when none does (:mod:`.locks`)."""
        dead = self.pruned.get(call.call_path, ())
        ok = lambda c: c not in bad and c.version_text not in dead and \
            all(self.is_satisfied_by(r, c) for r in reqs)  # noqa: E731
        ordered = self.module_order(call) if self.module_order is not None else None
        if ordered is not None:
            cands = [c for c in ordered if ok(c)]
            return lambda: self.reading_ahead(cands, max(1, len(bad)))

        def factory() -> Iterator[ModuleCandidate]:
            locked = self.ctx.locked_candidate(call)
            if locked is not None:
                if ok(locked):
                    yield locked  # a warm re-init stops here: no listing, no network
                if call.identifier in self.holds:
                    return
            try:
                cands = self.ctx.preferred_candidates(call, self._denied)
            except TofuSolveError as e:  # a source that cannot be listed: at the call's source line
                raise e.at(cited_source(call)) from None
            # filtered as they are taken: resolvelib iterates a call's candidates afresh
            # whenever it asks whether any are left, and usually takes only the first
            usable = (c for c in cands if not (locked is not None and c.version_text == locked.version_text) and ok(c))
            yield from self.reading_ahead(usable, len(bad))
        return factory

    def reading_ahead(self, usable: Iterable[ModuleCandidate], rejected: int) -> Iterator[ModuleCandidate]:
        """``usable`` in order, each candidate's metadata read ahead of need, in parallel,
        as far as :func:`.readahead.window` says (``rejected``: versions of this call already
        given up; under a fetch budget, read-ahead spends that budget, at once with
        :attr:`spend_budget_at_once`). ``usable`` is drawn only as far as the window reaches."""
        source = iter(usable)
        taken: list[ModuleCandidate] = []
        n = 0
        while True:
            ahead = readahead.window(n + rejected, self.ctx.fetch_budget, self.spend_budget_at_once)
            taken.extend(itertools.islice(source, max(0, n + ahead - len(taken))))
            if n >= len(taken):
                return
            for nxt in taken[n:n + ahead]:
                self.ctx.prefetch_tree(nxt)
            yield taken[n]
            n += 1

    def _provider_matches(self, reqs: list[ProviderRequirement], bad: set) -> list[ProviderCandidate]:
        return self._provider_matches_of(reqs[0].address, _Summary.of(reqs), bad)

    def _provider_matches_of(self, address: ProviderAddress, summary: _Summary, bad: set) -> list[ProviderCandidate]:
        """Newest first, every constraint met (``MeetingConstraints`` of all of them ANDed).
        Released versions are checked against each distinct constraint's cached member set;
        prereleases (which one constraint may request for all) against the whole AND."""
        memo_key = (str(address), summary.texts)
        hit = self._meeting.get(memo_key)
        if hit is None:  # the same set of constraints comes back on most rounds of a large tree
            constraints = list(summary.constraints.values())
            hit = self._meeting[memo_key] = (self._meeting_all(address, constraints), constraints)
        meeting, constraints = hit
        key = str(address)
        if self.ctx.options.policy is not None:  # denied versions are not candidates, locked or not (issue #39)
            meeting = [c for c in meeting if not self._provider_denied(key, c.version)]
        lock = self.ctx.locks.providers.get(key)
        # a lock the policy denies no longer applies, but moves as little as one that must (issue #47)
        subject = Identity.provider(key)
        locked = lock.version if lock is not None and not self.ctx.options.upgrade and (
            self.holds.applies(subject) or provider_lock_denial(self.ctx, key) is not None) else None
        if locked is not None and subject in self.holds:  # held: the locked version or nothing
            out = [c for c in meeting if c not in bad and str(c.version) == locked]
        else:
            out = [c for c in meeting if c not in bad]
            floor = self.floors.get(key)
            if floor is not None:
                out = [c for c in out if c.version.compare(floor) > 0]
            if locked is not None:  # may move: as little as it can
                out = nearest_provider_versions(out, self.ctx.provider_versions(address), locked)
            if self.ctx.options.min_age:  # the release cooldown (issue #25); the locked version is exempt
                out = [c for c in out if self._provider_too_young(address, str(c.version), constraints) is None]
        first = self.provider_first.get(key)
        if first is not None:
            out = sorted(out, key=lambda c: c.version != first)  # stable: the rest keep their order
        if out and self.ctx.likely_provider is not None:
            self.ctx.likely_provider(address, str(out[0].version))  # its package can be read ahead
        return out

    def _meeting_all(self, address: ProviderAddress, constraints: list) -> list[ProviderCandidate]:
        """Candidates of every version of ``address`` that meets all ``constraints``, newest
        first (of equal versions the last listed first)."""
        versions = self.ctx.provider_versions(address)
        allowed = [self.ctx.provider_allowed(address, c) for c in constraints]
        both = frozenset.intersection(*allowed) if allowed else None
        spec = tuple(s for c in constraints for s in c.spec)
        out = []
        for v in reversed(versions):
            if v.prerelease or v == gvs.UNSPECIFIED:
                if not gvs.meets(spec, v):
                    continue
            elif both is not None and v not in both:
                continue
            out.append(ProviderCandidate(address, v))
        return out

    def is_satisfied_by(self, requirement: Requirement, candidate: Candidate) -> bool:
        """Each requirement answers for itself (:mod:`.model`)."""
        return requirement.is_satisfied_by(candidate)

    def get_dependencies(self, candidate: Candidate) -> Iterable:
        if not isinstance(candidate, ModuleCandidate):
            return []
        denied = self._denied(candidate)
        if denied is not None:
            return denied
        if isinstance(candidate.source, RegistrySource):
            # a registry's published_at tells the age before anything is fetched
            young = self._cooldown(candidate, final=False)
            if young is not None:
                return young
        try:
            tree = self.ctx.tree(candidate)
        except TofuSolveError as e:  # the package cannot be had (unreachable, endless redirects...):
            call = self.ctx.calls.get(candidate.call_path)  # cited at the call's source line (issue #34)
            raise e.at(cited_source(call) if call is not None else None) from None
        young = self._cooldown(candidate)  # a commit's or manifest's date, known once fetched
        if young is not None:
            return young
        if isinstance(tree, ConfigurationError):
            if tree.where is not None:  # inside the package
                return [Unusable(candidate.call_path, candidate.version_text,
                                 f"{tree.summary}: {tree.detail} ({tree.where})", tree.where)]
            call = self.ctx.calls.get(candidate.call_path)  # about the package as a whole: cite the call
            at = call.call.where if call is not None else None
            return [Unusable(candidate.call_path, candidate.version_text,
                             f"{tree.summary}: {tree.detail}" + (f" (called at {at})" if at else ""), at)]
        pkg_display = display_package(candidate.source)
        deps = requirements_of_tree(tree, candidate.call_path, candidate.version_text, pkg_display, self.ctx)
        self.ctx.note_calls(deps)
        for d in deps:
            if isinstance(d, ModuleRequirement):
                check_remote_cycle(d, self.ctx.calls)
        if self.ctx.options.shared:
            deps.append(PackagePin(candidate.package, candidate.available.label,
                                   Origin(candidate.call_path, candidate.version_text, None, pkg_display)))
        listed = []
        for d in deps:
            try:
                if isinstance(d, ModuleRequirement) and self.ctx.locked_candidate(d) is None:
                    self.ctx.prefetch_available(d)
                    listed.append(d)
                elif isinstance(d, ProviderRequirement):
                    self.ctx.prefetch_provider(d.address)
            except TofuSolveError:
                pass
        refused = self._refused_call(candidate, deps)
        if refused is not None:
            return refused
        missing = self._missing_call(listed)
        if missing is not None:
            d, gone = missing
            return [Unusable(candidate.call_path, candidate.version_text,
                             f'it calls module "{d.call.name}" ({display_package(d.call.source)}), which cannot be '
                             f"found: {gone.detail}", d.call.where)]
        return deps

    def _denied(self, candidate: ModuleCandidate) -> list | None:
        """An :class:`Unusable` marker when the policy denies ``candidate``'s version of its
        package (issue #39), citing the rule; else None."""
        policy = self.ctx.options.policy
        rule = policy.module_denial(candidate.package, candidate.version) if policy is not None else None
        if rule is None:
            return None
        self._note_denied(candidate.call_path, candidate.version_text, rule)
        return [Unusable(candidate.call_path, candidate.version_text, f"the policy denies it: {rule.cite()}",
                         rule.where)]

    def _refused_call(self, candidate: ModuleCandidate, deps: list) -> list | None:
        """An :class:`Unusable` marker when ``candidate`` calls a source the policy refuses
        (another version of it may not), citing the call and the pattern; else None."""
        policy = self.ctx.options.policy
        if policy is None:
            return None
        for d in deps:
            if isinstance(d, ModuleRequirement):
                refusal = policy.source_refusal(d.call.source)
                if refusal is not None:
                    return [Unusable(candidate.call_path, candidate.version_text,
                                     f'it calls module "{d.call.name}" from {refusal[1]}, which the policy refuses '
                                     f"({policy.refusal_words(refusal[0])})", d.call.where)]
        return None

    def _cooldown(self, candidate: ModuleCandidate, final: bool = True) -> list | None:
        """An :class:`Unusable` marker when the release cooldown keeps ``candidate`` out
        (:meth:`_too_young`), citing the call's version constraint; else None."""
        held = self._too_young(candidate, final)
        if held is None:
            return None
        call = self.ctx.calls.get(candidate.call_path)
        at = (call.call.version_where or call.call.where) if call is not None else None
        return [Unusable(candidate.call_path, candidate.version_text,
                         f"it is younger than {self.ctx.cooldown.label}: released {format_age(held.age)} ago "
                         f"({held.note})", at)]

    # -------------------------------------------------------------- the cooldown's and the policy's record

    def _note_denied(self, subject: str, version: str, rule: DenyRule) -> None:
        """Record that the policy kept ``version`` of ``subject`` (a call path or provider
        address) out, for the warnings and ``-json`` (the run's record)."""
        with self.ctx.run.lock:
            self.ctx.denied[(subject, version)] = rule

    def _provider_denied(self, address: str, version: gvs.Version) -> bool:
        """Whether the policy denies ``version`` of the provider (recorded when it does)."""
        policy = self.ctx.options.policy
        rule = policy.provider_denial(address, version) if policy is not None else None
        if rule is not None:
            self._note_denied(address, str(version), rule)
        return rule is not None

    def _too_young(self, cand: ModuleCandidate, final: bool = True) -> HeldBack | None:
        """``cand`` as held back when the release cooldown keeps it out
        (:meth:`.cooldown.Cooldown.module`), its release time asked of its source only when
        needed."""
        ctx = self.ctx
        held = ctx.cooldown.module(cand, ctx.calls.get(cand.call_path), lambda: ctx.index.release_time(cand), final)
        ctx.stats.release_time_unknown = ctx.cooldown.unknown
        return held

    def _provider_too_young(self, address: ProviderAddress, version: str,
                            constraints: Iterable[ProviderConstraint]) -> HeldBack | None:
        """As :meth:`_too_young`, for a provider version (the registry's ``published_at``)."""
        client = self.ctx.client
        if client is None:
            return None
        return self.ctx.cooldown.provider(str(address), version, constraints,
                                          lambda: client.release_times("provider", str(address)).get(version))

    def _missing_call(self, calls: list[ModuleRequirement]) -> tuple[ModuleRequirement, ModuleNotFound] | None:
        """The first of ``calls`` (whose listings are being read in parallel) whose source
        the registry definitely does not have (404), with that error; None when all exist
        or only fail otherwise (network failures stay errors, raised where the listing is
        needed). Such a candidate is passed over like one whose constraints clash."""
        for d in calls:
            try:
                self.ctx.available(d)
            except ModuleNotFound as e:
                return d, e
            except TofuSolveError:
                continue
        return None


__all__ = ["ROOT", "ModuleOrder", "TofuSolveProvider", "requirements_of_tree"]
