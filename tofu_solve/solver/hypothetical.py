"""Hypothetical searches: the questions the conservative update and ``-upgrade=NAME`` ask
("is there a solution holding these locks?"), each a resolvelib search on a fetch budget,
with no dead-end pass and no provider package read ahead (issue #48 §4), and the counts
``init -json`` reports of them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from resolvelib import BaseReporter
from resolvelib.resolvers import ResolutionImpossible, ResolutionTooDeep, Result

from .context import Context, FetchBudgetExceeded
from .locks import Holds
from .resolvelib_provider import TofuSolveProvider
from .search import Search

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

    def spent(self, view: Context) -> None:
        """Count what a hypothetical :func:`view` fetched."""
        self.fetches += HYPOTHETICAL_FETCH_BUDGET - (view.fetch_budget or 0)


def view(ctx: Context) -> Context:
    """The context of hypothetical searches: the solve's clients and memo, a fetch budget of
    :data:`HYPOTHETICAL_FETCH_BUDGET` module versions shared by all of them, and nobody told
    of likely provider picks (so no provider package download starts)."""
    return ctx.view(fetch_budget=HYPOTHETICAL_FETCH_BUDGET, likely_provider=None)


def feasible(reqs: list, ctx: Context, pruned: Mapping[str, set[str]], holds: Holds, extra: tuple = (),
             floors: dict | None = None) -> Result | None:
    """The result of a search holding ``holds`` (with ``extra`` requirements and provider
    ``floors``, see :class:`~.resolvelib_provider.TofuSolveProvider`), or None when it finds no
    solution within the round cap or the view's fetch budget: one question of the lock
    minimisation. No dead-end pass, no read-ahead beyond the search's."""
    provider = TofuSolveProvider(ctx, pruned, holds, floors)
    try:
        return Search(provider, BaseReporter()).resolve(reqs + list(extra), max_rounds=ctx.options.max_rounds)
    except (ResolutionImpossible, ResolutionTooDeep, FetchBudgetExceeded):
        return None  # beyond the budget counts as no solution: an answer is always one a search found


__all__ = ["HYPOTHETICAL_FETCH_BUDGET", "SearchCounts", "feasible", "view"]
