"""The search (tofu_solve/solver/search.py): resolvelib's Resolver with the pin check
remembered per criterion and pin, and the provider's one-pass narrowing. Same selections,
rounds and failures as resolvelib's own loop; far fewer ``is_satisfied_by`` calls."""

from __future__ import annotations

import pytest
from resolvelib import BaseReporter, Resolver
from resolvelib.resolvers import ResolutionImpossible

from tofu_solve.solver.provider import TofuSolveProvider, requirements_of_tree
from tofu_solve.solver.search import Search, remembering
from tofu_solve.world.memory import MemoryContext, make_universe


class CountingProvider(TofuSolveProvider):
    def __init__(self, ctx):
        super().__init__(ctx)
        self.checks = 0

    def is_satisfied_by(self, requirement, candidate) -> bool:
        self.checks += 1
        return super().is_satisfied_by(requirement, candidate)


class UnnarrowedProvider(CountingProvider):
    """resolvelib's default: every unsatisfied identifier goes to get_preference."""

    def narrow_requirement_selection(self, identifiers, resolutions, candidates, information, backtrack_causes):
        return identifiers


class Rounds(BaseReporter):
    def __init__(self):
        self.rounds = 0
        self.backtracks = 0

    def ending_round(self, index, state):
        self.rounds = index + 1

    def rejecting_candidate(self, criterion, candidate):
        self.backtracks += 1


def _run(resolver_class, universe_args, provider_class=CountingProvider):
    u = make_universe(*universe_args)
    ctx = MemoryContext(u)
    provider, reporter = provider_class(ctx), Rounds()
    reqs = requirements_of_tree(u.root, "", None, None, ctx)
    try:
        result = resolver_class(provider, reporter).resolve(reqs, max_rounds=200000)
        outcome = sorted((str(k), c.version_text if hasattr(c, "version_text") else str(c.version))
                         for k, c in result.mapping.items())
    except ResolutionImpossible as e:
        outcome = ("impossible", sorted(str(c.requirement.identifier) for c in e.causes))
    finally:
        ctx.close()
    return outcome, reporter.rounds, reporter.backtracks, provider.checks


def test_this_resolvelib_lets_the_search_remember_pin_checks():
    """If a resolvelib release inside the admitted range moves the two members the search
    overrides, it falls back to resolvelib's loop; this says so before the speed goes."""
    assert remembering()


@pytest.mark.parametrize("args", [(60, 30, 2, 15), (30, 12, 2, 8, 3), (45, 20, 3, 10, 7)])
def test_same_search_as_resolvelibs_own_loop_with_far_fewer_checks(args):
    ours = _run(Search, args)
    theirs = _run(Resolver, args, UnnarrowedProvider)
    assert ours[:3] == theirs[:3]  # same selections (or the same failure), rounds, backtracks
    assert theirs[1] > 20  # a search of some length
    assert ours[3] * 3 < theirs[3]  # pin checks answered from memory
