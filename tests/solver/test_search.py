"""The search (tofu_solve/solver/search.py): resolvelib's search with what a round cannot
change kept from round to round. Event for event the same search as resolvelib's own loop
(every pin, rejection, conflict and round, the selections or the failure); far fewer
``is_satisfied_by`` calls."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from resolvelib import BaseReporter, Resolver
from resolvelib.resolvers import ResolutionImpossible, ResolutionTooDeep

from tests.world.memory import MemoryContext, make_universe, universe_from_index
from tofu_solve.solver.resolve import root_requirements
from tofu_solve.solver.resolvelib_provider import TofuSolveProvider
from tofu_solve.solver.search import Search, incremental


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
    """Every event of the search, in order, by value."""

    def __init__(self):
        self.rounds = 0
        self.backtracks = 0
        self.events: list = []

    def starting_round(self, index):
        self.events.append(("round", index))

    def ending_round(self, index, state):
        self.rounds = index + 1
        self.events.append(("end", index, len(state.mapping), len(state.criteria)))

    def pinning(self, candidate):
        self.events.append(("pin", _name(candidate)))

    def rejecting_candidate(self, criterion, candidate):
        self.backtracks += 1
        self.events.append(("reject", _name(candidate)))

    def resolving_conflicts(self, causes):
        self.events.append(("conflict", sorted(str(c.requirement.identifier) for c in causes)))


def _name(c) -> str:
    return f"{c.identifier}@{c.version_text if hasattr(c, 'version_text') else c.version}"


def _run(resolver_class, universe, provider_class=CountingProvider, max_rounds=200000):
    u = make_universe(*universe) if isinstance(universe, tuple) else universe_from_index(universe)
    ctx = MemoryContext(u)
    provider, reporter = provider_class(ctx), Rounds()
    reqs = root_requirements(u.root, ctx)
    try:
        result = resolver_class(provider, reporter).resolve(reqs, max_rounds=max_rounds)
        outcome = sorted((str(k), _name(c)) for k, c in result.mapping.items())
        outcome.append(sorted((str(k), sorted(map(str, result.graph.iter_children(k)))) for k in result.graph))
    except ResolutionImpossible as e:
        outcome = ("impossible", sorted(str(c.requirement.identifier) for c in e.causes))
    except ResolutionTooDeep as e:
        outcome = ("too deep", e.round_count)
    finally:
        ctx.close()
    return outcome, reporter.rounds, reporter.backtracks, reporter.events, provider.checks


def tangled_index(seed: int) -> dict:
    """A small universe where the search must go back often and may fail: few versions,
    narrow provider ranges, exact and pessimistic module constraints."""
    rnd = random.Random(seed)
    layers = [[f"t/l{d}p{i}/null" for i in range(4)] for d in range(3)]
    providers = {"hashicorp/null": [f"{m}.0.0" for m in range(1, 9)]}
    modules = {}
    for d, layer in enumerate(layers):
        for name in layer:
            modules[name] = {}
            for v in (f"{ma}.{mi}.0" for ma in (1, 2) for mi in range(3)):
                calls = []
                if d + 1 < len(layers):
                    for j, child in enumerate(rnd.sample(layers[d + 1], 2)):
                        version = rnd.choice(["~> 1.0", "~> 2.0", ">= 1.1", "= 2.0.0", "~> 1.2.0", None])
                        calls.append({"name": f"c{j}", "source": child, "version": version,
                                      "file": "main.tf", "line": 1 + j})
                lo = rnd.randint(1, 6)
                needs = [{"name": "null", "source": "hashicorp/null", "version": f">= {lo}.0, < {lo + rnd.randint(1, 4)}.0",
                          "file": "versions.tf", "line": 5}]
                modules[name][v] = {"calls": calls, "providers": needs if rnd.random() < 0.5 else []}
    root = {"calls": [{"name": f"r{j}", "source": layers[0][j], "version": rnd.choice([">= 1.0", "~> 2.0", None]),
                       "file": "main.tf", "line": 1 + j} for j in range(4)]}
    if seed % 3 == 0:  # the root narrows the provider too: some of these cannot be solved
        root["providers"] = [{"name": "null", "source": "hashicorp/null", "version": f">= {rnd.randint(4, 7)}.0",
                              "file": "versions.tf", "line": 2}]
    return {"providers": providers, "modules": modules, "root": root}


def test_this_resolvelib_lets_the_search_keep_its_scans(resolvelib_loop):
    """If a resolvelib release inside the admitted range moves a member the search uses,
    it falls back to resolvelib's loop; this says so before the speed goes. Every private
    member is checked, attributes too; ``--resolvelib-loop=resolvelib`` forces the fallback."""
    from tofu_solve.solver.search import _has_members

    assert _has_members()
    assert incremental() is (resolvelib_loop == "tofu-solve")


def test_a_resolvelib_without_a_member_falls_back_to_its_own_loop(monkeypatch):
    """A renamed attribute (not only a method) makes the search resolvelib's ``Resolver``
    instead of an error (issue #35)."""
    import resolvelib.resolvers.resolution as resolution

    from tofu_solve.solver.search import _has_members

    real_init = resolution.Resolution.__init__

    def init_without_ratio(self, provider, reporter):
        real_init(self, provider, reporter)
        del self._optimistic_backjumping_ratio
    monkeypatch.setattr(resolution.Resolution, "__init__", init_without_ratio)
    assert not _has_members()


@pytest.fixture
def incremental_loop(monkeypatch):
    """These tests are of the incremental loop itself (against resolvelib's): it runs
    whichever loop the session forces (``--resolvelib-loop``)."""
    from tofu_solve.solver import search

    monkeypatch.setattr(search, "_HAS_MEMBERS", search._has_members())
    assert search.incremental()


UNIVERSES = [(60, 30, 2, 15), (30, 12, 2, 8, 3), (45, 20, 3, 10, 7), (24, 10, 3, 9, 11), (36, 16, 2, 12, 5, 4)]


@pytest.mark.parametrize("args", UNIVERSES)
def test_same_search_as_resolvelibs_own_loop_with_far_fewer_checks(args, incremental_loop):
    ours = _run(Search, args)
    theirs = _run(Resolver, args, UnnarrowedProvider)
    assert ours[0] == theirs[0]  # same selections and graph (or the same failure)
    assert ours[3] == theirs[3]  # event for event: rounds, pins, rejections, conflicts
    assert theirs[1] > 20  # a search of some length
    assert ours[4] * 3 < theirs[4]  # pin checks answered from what is kept


def test_searches_that_go_back_and_fail_are_the_same_too():
    """Tangled universes: searches that go back many times, end in ResolutionImpossible or
    run out of rounds (through resolvelib's optimistic backjumping and its rollback), event
    for event as resolvelib's loop runs them."""
    seen = set()
    for seed in range(60):
        index = tangled_index(seed)
        ours, theirs = _run(Search, index, max_rounds=300), _run(Resolver, index, UnnarrowedProvider, max_rounds=300)
        assert ours[:4] == theirs[:4], seed
        seen.add(ours[0][0] if isinstance(ours[0], tuple) else "resolved")
        if ours[2] >= 5:
            seen.add("went back")
    assert {"resolved", "impossible", "too deep", "went back"} <= seen, seen


def _compared_cases() -> list[Path]:
    """The solver cases whose loops are compared event by event: all but those that say why
    not (``loops_not_compared``: resolvelib's own loop, unnarrowed, is too slow on them)."""
    paths = sorted((Path(__file__).parent / "cases").glob("*.json"))
    return [p for p in paths if not json.loads(p.read_text()).get("loops_not_compared")]


@pytest.mark.parametrize("case", _compared_cases(), ids=lambda p: p.stem)
def test_the_solver_cases_search_the_same(case):
    index = json.loads(case.read_text())["index"]
    ours, theirs = _run(Search, index), _run(Resolver, index, UnnarrowedProvider)
    assert ours[:4] == theirs[:4]


class CheckedProvider(CountingProvider):
    """Every provider's matches the search asks for, computed both ways: from the kept
    summary of the criterion plus the one requirement added (as the search asks), and from
    all the criterion's requirements (as resolvelib's own loop asks); they must agree."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.kept = 0

    def find_matches(self, identifier, requirements, incompatibilities):
        kept = self._adding is not None and self._adding[0] == identifier
        got = super().find_matches(identifier, requirements, incompatibilities)
        if kept:  # a provider's: a list (a module call's are a factory, for resolvelib to take lazily)
            self.kept += 1
            full = list(self.factory.matches(identifier, list(requirements[identifier]),
                                             set(incompatibilities[identifier])))
            assert got == full, identifier
        return got


def test_a_providers_matches_are_those_of_all_its_requirements(incremental_loop):
    """The search tells the provider which criterion each new requirement extends, and the
    provider's matches come from what it kept of that criterion: the same matches as from
    all its requirements, on searches that go back, fail and patch criteria."""
    kept = 0
    for seed in range(30):
        index = tangled_index(seed)
        ours, theirs = _run(Search, index, CheckedProvider, max_rounds=300), _run(Resolver, index, max_rounds=300)
        assert ours[:4] == theirs[:4], seed
    for args in UNIVERSES[:2]:
        u = make_universe(*args)
        ctx = MemoryContext(u)
        provider = CheckedProvider(ctx)
        Search(provider, BaseReporter()).resolve(root_requirements(u.root, ctx), max_rounds=20000)
        kept += provider.kept
        ctx.close()
    assert kept > 100
