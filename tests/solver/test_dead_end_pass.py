"""The dead-end pass (tofu_solve/solver/propagate.py) as the solve runs it: after the search
has gone back often enough, it reads the candidates of the root calls a conflict involves,
not those of calls no conflict touched (issue #23: the 22 older vpc versions the 27-call iam
root read in vain), and of those only what comes before the first version known to be live;
the selection is the same as when it reads them all."""

from __future__ import annotations

import pytest

from tests.world.memory import MemoryContext, universe_from_index
from tofu_solve.solver import resolve as resolve_module
from tofu_solve.solver.propagate import propagate
from tofu_solve.solver.resolve import root_requirements, solve


class ReadingContext(MemoryContext):
    """A memory universe whose trees count as known only once read, like a real run's (per
    package and version, whichever call read it); ``read`` records the reads per call."""

    def __init__(self, u):
        super().__init__(u)
        self.read: set[tuple[str, str]] = set()
        self.known: set[tuple[str, str]] = set()

    def view(self, **kw):
        v = super().view(**kw)
        v.read, v.known = self.read, self.known  # one record for the run, whichever view reads
        return v

    def tree_known(self, cand):
        return (cand.package, cand.version_text) in self.known

    def tree(self, cand):
        self.read.add((cand.call_path, cand.version_text))
        self.known.add((cand.package, cand.version_text))
        return super().tree(cand)


def _versions(n: int) -> list[str]:
    return [f"1.{i}.0" for i in range(n)]


def index() -> dict:
    """``a``'s 20 newest versions need provider null >= 2.0, which the root forbids: the
    search walks ``a`` down past the dead-end pass's threshold. ``z`` needs nothing and
    keeps its newest version."""
    a = {v: {"calls": [], "providers": [{"name": "null", "source": "hashicorp/null",
                                          "version": ">= 2.0" if i >= 10 else ">= 1.0",
                                          "file": "versions.tf", "line": 3}]}
         for i, v in enumerate(_versions(30))}
    z = {v: {"calls": [], "providers": []} for v in _versions(30)}
    return {"providers": {"hashicorp/null": ["1.0.0", "1.5.0", "2.0.0", "2.5.0"]},
            "modules": {"t/a/null": a, "t/z/null": z},
            "root": {"calls": [{"name": "a", "source": "t/a/null", "version": ">= 1.0", "file": "main.tf", "line": 1},
                               {"name": "z", "source": "t/z/null", "version": ">= 1.0", "file": "main.tf", "line": 5}],
                     "providers": [{"name": "null", "source": "hashicorp/null", "version": "< 2.0",
                                    "file": "main.tf", "line": 9}]}}


def _solve_index(idx: dict) -> tuple[dict[str, str], set[tuple[str, str]]]:
    """(call path -> version selected, the (call path, version) pairs read)."""
    u = universe_from_index(idx)
    ctx = ReadingContext(u)
    try:
        res = solve(u.root, ctx)
    finally:
        ctx.close()
    return {p: c.version_text for p, c in res.modules.items()}, ctx.read


@pytest.fixture(autouse=True)
def _without_the_exact_optimiser(monkeypatch):
    """What the dead-end pass reads, not what the exact optimiser after it reads (the
    universe, on purpose: tofu_solve/solver/optimum.py)."""
    monkeypatch.setattr(resolve_module, "optimise", lambda result, *a: (result, None))


def _solve(monkeypatch, every_call: bool):
    if every_call:
        monkeypatch.setattr(resolve_module, "_involved_root_calls", lambda reqs, involved: None)
    return _solve_index(index())


def test_the_pass_reads_only_the_calls_a_conflict_involves(monkeypatch):
    selection, read = _solve(monkeypatch, every_call=False)
    assert selection == {"a": "1.9.0", "z": "1.29.0"}
    a_read = {v for p, v in read if p == "a"}
    assert len(a_read) > 16  # walked down, then its candidates read by the pass
    assert {v for p, v in read if p == "z"} == {"1.29.0"}  # no conflict touched z


def test_same_selection_as_a_pass_over_every_root_call(monkeypatch):
    narrow, _ = _solve(monkeypatch, every_call=False)
    monkeypatch.undo()
    wide, read = _solve(monkeypatch, every_call=True)
    assert narrow == wide
    assert len({v for p, v in read if p == "z"}) == 30  # the old pass read all of z


def test_nothing_beyond_the_first_known_live_version_is_read():
    """Call ``a`` pins ``t/a/null`` at 1.9.0 exactly; call ``b`` takes any version of it and
    walks down from 1.29.0 past the pass's threshold. The pass finds 1.9.0 already read and
    live: it reads nothing more (it read every version down to 1.0.0 before)."""
    idx = index()
    idx["root"]["calls"] = [{"name": "a", "source": "t/a/null", "version": "1.9.0", "file": "main.tf", "line": 1},
                            {"name": "b", "source": "t/a/null", "version": ">= 1.0", "file": "main.tf", "line": 5}]
    selection, read = _solve_index(idx)
    assert selection == {"a": "1.9.0", "b": "1.9.0"}
    read_b = {v for p, v in read if p == "b"}
    assert min(read_b, key=lambda v: int(v.split(".")[1])) == "1.9.0"  # nothing older than what it took
    assert len(read_b) == 21  # 1.29.0 down to 1.9.0


def test_a_pass_says_when_a_later_one_could_find_more():
    u = universe_from_index(index())
    ctx = ReadingContext(u)
    try:
        reqs = root_requirements(u.root, ctx)
        partial = propagate(reqs, ctx, fetch=True, only={"a"})
        assert partial.partial
        assert set(partial.dead["a"]) == set(_versions(30)[10:])
        assert "z" not in partial.dead
        again = propagate(reqs, ctx, fetch=False)
        assert again.dead == partial.dead and again.partial  # z is still unknown
        full = propagate(reqs, ctx, fetch=True)
        assert not full.partial  # every candidate examined was known: a later pass finds the same
        later = propagate(reqs, ctx, fetch=False)
        assert not later.partial and later.dead == full.dead
    finally:
        ctx.close()


class _CountedSearch(resolve_module.Search):
    """The solve's own searches (those with its reporter), counted."""

    started = 0

    def __init__(self, provider, reporter):
        if isinstance(reporter, resolve_module.SearchReporter):
            _CountedSearch.started += 1
        super().__init__(provider, reporter)


def _solve_tangled(monkeypatch, seed: int) -> tuple[dict[str, str], int, int]:
    """(selection, the solve's searches started, the dead-end passes announced)."""
    from tests.solver.test_search import tangled_index
    from tofu_solve.events import LookingForDeadEnds

    monkeypatch.setattr(resolve_module, "Search", _CountedSearch)
    _CountedSearch.started = 0
    u = universe_from_index(tangled_index(seed))
    ctx = MemoryContext(u)
    events: list = []
    ctx.progress = events.append
    try:
        res = solve(u.root, ctx)
    finally:
        ctx.close()
    looked = sum(isinstance(e, LookingForDeadEnds) for e in events)
    return {p: c.version_text for p, c in res.modules.items()}, _CountedSearch.started, looked


@pytest.mark.parametrize("seed", [1, 2])
def test_a_pass_that_finds_nothing_dead_lets_the_search_go_on(monkeypatch, seed):
    """Tangled universes whose search goes back past the threshold, and whose dead-end pass
    proves nothing: the search goes on where it stood (one search, not a second one from
    round 0), and selects what an uninterrupted search selects and what a search started
    again selects (the behaviour before, issue #23)."""
    selection, searches, looked = _solve_tangled(monkeypatch, seed)
    assert looked == 1 and searches == 1

    monkeypatch.setattr(resolve_module, "THRASH_BACKTRACKS", 10**9)
    uninterrupted, searches, looked = _solve_tangled(monkeypatch, seed)
    assert looked == 0 and searches == 1
    assert uninterrupted == selection

    class StartsAgain(resolve_module.SearchReporter):
        def __init__(self, *args, **kwargs):
            kwargs["on_interrupt"] = (lambda look: lambda: look() or True)(kwargs["on_interrupt"])
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(resolve_module, "THRASH_BACKTRACKS", 16)
    monkeypatch.setattr(resolve_module, "SearchReporter", StartsAgain)
    again, searches, looked = _solve_tangled(monkeypatch, seed)
    assert looked == 1 and searches == 2
    assert again == selection


def test_a_pass_that_finds_dead_versions_starts_the_search_again(monkeypatch):
    monkeypatch.setattr(resolve_module, "Search", _CountedSearch)
    _CountedSearch.started = 0
    selection, _ = _solve_index(index())
    assert selection == {"a": "1.9.0", "z": "1.29.0"}
    assert _CountedSearch.started == 2  # without a's 20 dead versions


class ReadsEndingMeanwhile(ReadingContext):
    """Every version's read ends right after the pass over what is known has looked at it
    (which asks twice per version whether it is known): the read-ahead of a search that
    went back, still under way when the pass starts."""

    def __init__(self, u):
        super().__init__(u)
        self.asked: dict[tuple[str, str], int] = {}

    def tree_known(self, cand):
        key = (cand.package, cand.version_text)
        self.asked[key] = self.asked.get(key, 0) + 1
        return self.asked[key] > 2


def test_a_read_that_ends_during_the_pass_is_not_taken_for_a_live_version():
    """The pass plans its reads from the pass over what is known; a version whose read ended
    since was not examined by that pass, so it is read (and found dead), not taken for the
    first live version (which made the pass read nothing)."""
    u = universe_from_index(index())
    ctx = ReadsEndingMeanwhile(u)
    try:
        reqs = root_requirements(u.root, ctx)
        found = propagate(reqs, ctx, fetch=True, only={"a"})
        assert set(found.dead["a"]) == set(_versions(30)[10:])
    finally:
        ctx.close()

