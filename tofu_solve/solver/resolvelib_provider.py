"""The resolvelib provider: only the callbacks, each saying why it does what it does.

It knows nothing about printing, reading or ordering: as pip's ``PipProvider`` over its
``Factory``, it asks its :class:`~.factory.CandidateFactory` for a subject's candidates (in
the one order) and a candidate's requirements, and keeps only what depends on the search's
state: the preference among identifiers and what a provider's criterion asks so far.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import cast

from resolvelib.providers import AbstractProvider
from resolvelib.resolvers import Criterion

from ..versions import apparentlymart_go_versions as gvs
from .context import Context
from .factory import NO_REQUIREMENTS, CandidateFactory, ModuleOrder, Summary
from .locks import Holds
from .model import Candidate, Identity, Kind, ModuleCandidate, ProviderRequirement, Requirement

_RANK = {Kind.UNUSABLE: 0, Kind.OPENTOFU: 1, Kind.MODULE: 2, Kind.PACKAGE: 3, Kind.PROVIDER: 4}


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


class TofuSolveProvider(AbstractProvider[Requirement, Candidate, Identity]):
    """resolvelib callbacks for module calls, module packages, providers and OpenTofu."""

    def __init__(self, ctx: Context, pruned: Mapping[str, set[str]] | None = None, holds: Holds | None = None,
                 floors: Mapping[str, gvs.Version] | None = None, *, module_order: ModuleOrder | None = None,
                 lenient_providers: bool = False, provider_first: Mapping[str, gvs.Version] | None = None,
                 spend_budget_at_once: bool = False):
        """The arguments are the :class:`~.factory.CandidateFactory`'s, which this provider
        builds and asks (``pruned``, ``holds``, ``floors``; the hooks ``module_order``,
        ``lenient_providers``, ``provider_first``, ``spend_budget_at_once`` for other
        searches: issue #51 §3)."""
        self.factory = CandidateFactory(ctx, pruned, holds, floors, module_order=module_order,
                                        lenient_providers=lenient_providers, provider_first=provider_first,
                                        spend_budget_at_once=spend_budget_at_once)
        # A provider's criterion gains a requirement per module version that requires it:
        # what its constraints are is kept per criterion and extended by the one added
        # (see adding_requirement), not read again from all of them on every pin.
        self._summaries: dict[int, tuple] = {}  # id(criterion) -> (criterion, Summary)
        self._adding: tuple | None = None  # (identifier, criterion or None, requirement) being added
        self._added: tuple | None = None  # (identifier, Summary) that find_matches made for it

    @property
    def ctx(self) -> Context:
        return self.factory.ctx

    @property
    def holds(self) -> Holds:
        return self.factory.holds

    @property
    def floors(self) -> dict[str, gvs.Version]:
        return self.factory.floors

    @property
    def pruned(self) -> Mapping[str, set[str]]:
        return self.factory.pruned

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
        """A conflict's parties may be gone back over next: their older versions are read
        ahead (:meth:`.CandidateFactory.read_ahead_below_parties`)."""
        self.factory.read_ahead_below_parties(information, candidate)

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

    def _summary(self, criterion: Criterion[Requirement, Candidate]) -> Summary:
        hit = self._summaries.get(id(criterion))
        if hit is not None and hit[0] is criterion:
            return hit[1]
        # a provider's criterion: its requirements are that provider's constraints
        summary = Summary.of(cast("list[ProviderRequirement]", list(criterion.iter_requirement())))
        self._summaries[id(criterion)] = (criterion, summary)
        return summary

    def find_matches(self, identifier: Identity, requirements: Mapping[Identity, Iterator[Requirement]],
                     incompatibilities: Mapping[Identity, Iterator[Candidate]]) -> Iterable[Candidate]:
        """The factory's candidates for ``identifier`` (:meth:`.CandidateFactory.matches`);
        a provider's from its criterion's kept summary when a requirement is being added."""
        adding = self._adding
        if adding is not None and adding[0] == identifier:
            self._adding = None
            _, criterion, requirement = adding
            before = self._summary(criterion) if criterion is not None else NO_REQUIREMENTS
            summary = before.plus(requirement)
            self._added = (identifier, summary)
            return self.factory.provider_matches(requirement.address, summary, set(incompatibilities[identifier]))
        # resolvelib takes a callable that returns a fresh iterator too (its build_iter_view)
        return cast("Iterable[Candidate]", self.factory.matches(
            identifier, list(requirements[identifier]), set(incompatibilities[identifier])))

    def is_satisfied_by(self, requirement: Requirement, candidate: Candidate) -> bool:
        """Each requirement answers for itself (:mod:`.model`)."""
        return requirement.is_satisfied_by(candidate)

    def get_dependencies(self, candidate: Candidate) -> Iterable:
        """A module version's requirements (:meth:`.CandidateFactory.dependencies`); every
        other candidate requires nothing."""
        if not isinstance(candidate, ModuleCandidate):
            return []
        return self.factory.dependencies(candidate)


__all__ = ["TofuSolveProvider"]
