"""The one resolvelib reporter: it counts what the search does and can interrupt it.

resolvelib calls a reporter at each round and each rejected candidate; this one keeps the
counts (rounds, backtracks, per identifier, so that an error can name what the search went
back and forth on), passes each rejection to an optional listener (the candidate provider
reads ahead there) and, once, when the search has gone back ``interrupt_at`` times, stops it
so that the caller can look for certain dead ends (:mod:`tofu_solve.solver.propagate`): by
raising :class:`Interrupted`, or, with ``on_interrupt``, by running the look inside the
search, which goes on where it stood unless the look found something that changes its
candidates. Used by :func:`tofu_solve.solver.resolve.solve`
and by the what-if solves of :mod:`tofu_solve.explain`.
"""

from __future__ import annotations

from collections.abc import Callable

from resolvelib import BaseReporter
from resolvelib.resolvers import Criterion

from .model import Candidate, Identity, Kind, Requirement, subject_name


class Interrupted(Exception):
    """Raised from :meth:`SearchReporter.rejecting_candidate` at the ``interrupt_at``-th
    backtrack (once per reporter), unless ``on_interrupt`` says the search may go on."""


class SearchReporter(BaseReporter):
    """Counts rounds and backtracks; interrupts once at ``interrupt_at`` backtracks.

    Args:
        interrupt_at: backtracks before :class:`Interrupted` is raised (None: never).
        on_round: called with (round index, backtracks so far) every ``round_every`` rounds.
        on_reject: called with (criterion, candidate) for every rejected candidate.
        on_interrupt: called, inside the search, at the ``interrupt_at``-th backtrack;
            :class:`Interrupted` is raised only when it returns True (what it learnt
            changes the candidates, so the search must start again). When it returns
            False the search goes on where it stood: it is then the very search that an
            uninterrupted run makes, without replaying the rounds already made (the
            synthetic 1,050-call universe's dead-end pass finds nothing dead, and its
            search started again from round 0, issue #23). Exceptions it raises leave the
            search.
    """

    def __init__(self, interrupt_at: int | None = None, *,
                 on_round: Callable[[int, int], None] | None = None, round_every: int = 200,
                 on_reject: Callable[[Criterion[Requirement, Candidate], Candidate], None] | None = None,
                 on_interrupt: Callable[[], bool] | None = None):
        self.interrupt_at = interrupt_at
        self.on_round = on_round
        self.round_every = round_every
        self.on_reject = on_reject
        self.on_interrupt = on_interrupt
        self.rounds = 0
        self.backtracks = 0
        self.per_identifier: dict = {}
        self.involved: set[str] = set()  # call paths rejected or party to a rejection
        self._parties_seen: dict[int, object] = {}

    def starting_round(self, index: int) -> None:
        self.rounds = index
        if self.on_round is not None and index and index % self.round_every == 0:
            self.on_round(index, self.backtracks)

    def rejecting_candidate(self, criterion: Criterion[Requirement, Candidate], candidate: Candidate) -> None:
        if self.on_reject is not None:
            self.on_reject(criterion, candidate)
        self.backtracks += 1
        ident = candidate.identifier
        self._note_involved(criterion, ident)
        self.per_identifier[ident] = self.per_identifier.get(ident, 0) + 1
        if self.interrupt_at is not None and self.backtracks >= self.interrupt_at:
            self.interrupt_at = None
            if self.on_interrupt is None or self.on_interrupt():
                raise Interrupted()

    def _note_involved(self, criterion: Criterion[Requirement, Candidate], ident: Identity) -> None:
        """Record the module call paths a conflict involves: the rejected candidate's and
        those of the module versions whose requirements it could not meet (each version
        looked at once, by identity: a provider's criterion lists every version that
        requires it, at every rejection)."""
        if ident.kind is Kind.MODULE or ident.kind is Kind.UNUSABLE:
            self.involved.add(ident.name)
        seen = self._parties_seen
        for info in criterion.information:
            parent = info.parent
            if parent is None or seen.get(id(parent)) is parent:
                continue
            seen[id(parent)] = parent  # holds it: its id is not reused meanwhile
            ident = parent.identifier
            if ident.kind is Kind.MODULE:
                self.involved.add(ident.name)

    def back_and_forth(self, n: int = 6) -> list[str]:
        """The identifiers rejected most often, as names (``module call "eks" (12 versions
        rejected)``), most first."""
        top = sorted(self.per_identifier.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
        return [f"{subject_name(ident)} ({count} versions rejected)" for ident, count in top]
