"""The lock minimisation on its own (:mod:`tofu_solve.solver.conservative`), against a
known world: a set of hidden cores (sets of locks that cannot all be held), holding a set
being feasible exactly when it contains no hidden core. The answer must be a smallest set
meeting every hidden core, found by brute force here; QuickXplain must return a minimal
core; the budget must only ever make the answer the known-good one, never a wrong one."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from tofu_solve.solver.conservative import _shrink, check_budget, min_hitting_set, minimal_release

SUBJECTS = [f"s{i}" for i in range(9)]


def _feasible(cores: list[frozenset[str]]):
    return lambda held: not any(c <= held for c in cores)


def _smallest_hitting(cores: list[frozenset[str]]) -> int:
    for k in range(len(SUBJECTS) + 1):
        if any(all(c & set(s) for c in cores) for s in itertools.combinations(SUBJECTS, k)):
            return k
    raise AssertionError("unreachable")


hidden_cores = st.lists(st.frozensets(st.sampled_from(SUBJECTS), min_size=1, max_size=4), min_size=0, max_size=5)


@settings(max_examples=300, deadline=None)
@given(hidden_cores, st.data())
def test_the_release_is_a_smallest_one_that_works(cores, data):
    subjects = frozenset(SUBJECTS)
    feasible = _feasible(cores)
    # a release known to work, as a search holding nothing would give: every subject of every core
    upper = frozenset().union(*cores) if cores else frozenset()
    upper = upper | frozenset(data.draw(st.lists(st.sampled_from(SUBJECTS), max_size=3)))
    release = minimal_release(subjects, feasible, upper)
    assert feasible(subjects - release)
    assert len(release) == _smallest_hitting(cores)


@settings(max_examples=300, deadline=None)
@given(hidden_cores.filter(bool))
def test_quickxplain_finds_a_minimal_core(cores):
    held = frozenset(SUBJECTS)
    feasible = _feasible(cores)
    asked = []

    def ask(h):
        asked.append(h)
        return feasible(h)
    core = _shrink(held, ask, frozenset(), lambda: True)
    assert not feasible(core)  # a core
    assert all(feasible(core - {s}) for s in core)  # minimal: every member is needed


@settings(max_examples=200, deadline=None)
@given(hidden_cores.filter(bool), st.integers(1, 6))
def test_out_of_budget_the_answer_still_works(cores, budget):
    subjects = frozenset(SUBJECTS)
    feasible = _feasible(cores)
    upper = frozenset().union(*cores)
    release = minimal_release(subjects, feasible, upper, max_checks=budget)
    assert feasible(subjects - release) and len(release) <= len(upper)


def test_min_hitting_set_prefers_the_known_release_then_sorted_order():
    cores = [frozenset({"a", "b"}), frozenset({"b", "c"})]
    assert min_hitting_set(cores) == frozenset({"b"})
    assert min_hitting_set([frozenset({"a", "b"})], prefer=frozenset({"b"})) == frozenset({"b"})
    assert min_hitting_set([frozenset({"a", "b"})]) == frozenset({"a"})
    assert min_hitting_set([]) == frozenset()


def test_the_budget_shrinks_with_the_tree_and_is_a_count():
    assert check_budget(10) == 200 and check_budget(1050) == 19 and check_budget(10**6) == 8


def test_cores_known_without_a_search_cost_no_search():
    """A lock whose version the dead-end pass proved dead is a core of one: with every core
    known, the minimisation asks one search, the one that confirms the answer."""
    cores = [frozenset({f"s{i}"}) for i in range(6)]
    asked = []

    def feasible(held):
        asked.append(held)
        return not any(c <= held for c in cores)
    release = minimal_release(frozenset(SUBJECTS), feasible, frozenset(SUBJECTS), known=cores)
    assert release == frozenset(f"s{i}" for i in range(6)) and len(asked) == 1


def test_a_blocked_upgrade_names_one_command_for_locks_that_go_up_and_down():
    """Issue #48 §4: when a newer NAME needs one lock to go down (a pin) and another to go up,
    the warning names the pin and the one ``-upgrade=`` that moves NAME and the other
    together, not the pin alone (which took three commands)."""
    from tofu_solve.command.views.warnings import blocked_upgrade_text
    from tofu_solve.errors import SourceRange
    from tofu_solve.solver.upgrades import BlockedUpgrade

    b = BlockedUpgrade("vpc", "6.5.1", "6.6.0", (("eks", "20.37.2", "20.37.0", SourceRange("main.tf", 7)),
                                                  ("hashicorp/aws", "5.100.0", "6.58.0", None)))
    assert blocked_upgrade_text(b, ("vpc",)).endswith('what goes down needs a pin: pin eks to version = "20.37.0" (main.tf:7), then '
                                     "tofu-solve init -upgrade=vpc,hashicorp/aws")
    up = BlockedUpgrade("vpc", "6.5.1", "6.6.0", (("hashicorp/aws", "5.100.0", "6.58.0", None),))
    assert blocked_upgrade_text(up, ("vpc",)).endswith("To allow it: tofu-solve init -upgrade=vpc,hashicorp/aws")
    nested = BlockedUpgrade("vpc", "6.5.1", "6.6.0", (("eks.kms", "2.1.0", "2.0.0", None),))
    assert blocked_upgrade_text(nested, ("vpc",)).endswith("a constraint that excludes the newer ones can.")


def test_the_sequence_searches_each_held_set_once_on_a_budget_and_starts_no_download(monkeypatch):
    """Issue #48 §4: on an edit that forces the minimisation (``new-call-moves-fewest-locks``),
    the held set known infeasible is never searched again, no held set is searched twice, the
    answer the minimisation found is not searched again, every hypothetical search runs on a
    context with a fetch budget and no listener for provider picks (so no provider package
    download starts), and the counts reach the resolution."""
    import json
    from pathlib import Path

    from tests.solver.oracle import Selection
    from tests.solver.test_oracle import _locks_of, _resolve
    from tofu_solve.solver import hypothetical
    from tofu_solve.solver.model import Identity

    case = json.loads((Path(__file__).parent / "lock_cases" / "new-call-moves-fewest-locks.json").read_text())
    lock = Selection(tuple(sorted(case["lock"]["modules"].items())), tuple(sorted(case["lock"]["providers"].items())))
    locks = _locks_of(case["before"], lock)[0]
    asked: list[frozenset[str]] = []
    contexts = []
    real = hypothetical.feasible

    def feasible(reqs, ctx, pruned, holds, *a, **k):
        asked.append(holds.held)
        contexts.append((ctx.fetch_budget, ctx.likely_provider))
        return real(reqs, ctx, pruned, holds, *a, **k)

    monkeypatch.setattr(hypothetical, "feasible", feasible)
    res = _resolve(case["after"], locks)
    assert res is not None and len(res.released) == case["expected_moves"]
    subjects = frozenset({Identity.module(p) for p in locks.modules} | {Identity.provider(a) for a in locks.providers})
    assert asked, "the minimisation asked nothing: the case no longer forces it"
    assert subjects not in asked  # the held search already failed
    assert frozenset() not in asked  # the search holding nothing already answered
    assert len(asked) == len(set(asked))
    assert all(budget is not None and listener is None for budget, listener in contexts)
    assert res.searches.held == 1 and res.searches.holding_none == 1
    assert res.searches.feasibility == len(asked) and res.searches.final == 0


def test_a_provider_lock_the_roots_constraint_excludes_does_not_apply():
    """Issue #48 §1/§5, the rule of issue #34 (the user guide's "What moves when you edit": a
    provider's lock applies while the root module's own constraints admit it; where
    ``tofu init`` asks for ``-upgrade``, the edit lands in one command): aws locked at
    1.0.0, the root then requires ``>= 2.0.0``. The lock does not apply: nothing is released, no lock counts
    as moved, and aws takes the newest the root allows. Making every provider lock apply
    (the mutation the issue names) releases it and counts a move."""
    from tests.solver.test_oracle import _resolve
    from tofu_solve.addrs.provider import parse_provider_source
    from tofu_solve.lockfile import LockFile
    from tofu_solve.lockfile.entries import ProviderLock

    index = {"target": "1.12.6", "providers": {"hashicorp/aws": ["1.0.0", "2.0.0", "2.5.0"]},
             "modules": {"acme/top-a/aws": {"1.0.0": {"calls": [], "providers": [
                 {"name": "aws", "source": "hashicorp/aws", "version": ">= 1.0.0", "file": "versions.tf", "line": 3}]}}},
             "root": {"calls": [{"name": "m0", "source": "acme/top-a/aws", "file": "main.tf", "line": 1,
                                 "version_line": 3}],
                      "providers": [{"name": "aws", "source": "hashicorp/aws", "version": ">= 2.0.0",
                                     "file": "versions.tf", "line": 3}]}}
    addr = "registry.opentofu.org/hashicorp/aws"
    locks = LockFile({addr: ProviderLock(parse_provider_source("hashicorp/aws"), "1.0.0")}, {})
    res = _resolve(index, locks)
    assert res is not None and str(res.providers[addr].version) == "2.5.0"
    assert res.released == frozenset() and res.soft_moves is None
    assert res.optimality is not None and res.optimality.objective is not None
    assert res.optimality.objective.locks_moved == 0


def test_the_one_command_a_blocked_upgrade_names_is_solved_before_it_is_printed():
    """Issue #48 §4: ``-upgrade=m0`` with aws held at 1.0.0 keeps m0 at 1.0.0; m0 2.0.0 needs
    aws 1.0.0 -> 2.0.0. The warning's command (``-upgrade=m0,hashicorp/aws``) is searched
    before it is printed and lands m0 past 1.0.0; a command that would not land is not
    offered."""
    from tests.solver.test_oracle import _resolve
    from tofu_solve.addrs.module_source import lock_source, parse_source
    from tofu_solve.addrs.provider import parse_provider_source
    from tofu_solve.command.views.warnings import blocked_upgrade_text
    from tofu_solve.lockfile import LockFile, ModuleLock
    from tofu_solve.lockfile.entries import ProviderLock
    from tofu_solve.solver.upgrades import BlockedUpgrade

    def aws(text: str) -> dict:
        return {"name": "aws", "source": "hashicorp/aws", "version": text, "file": "versions.tf", "line": 3}
    index = {"target": "1.12.6", "providers": {"hashicorp/aws": ["1.0.0", "2.0.0"]},
             "modules": {"acme/top-a/aws": {"1.0.0": {"calls": [], "providers": [aws(">= 1.0.0")]},
                                            "2.0.0": {"calls": [], "providers": [aws(">= 2.0.0")]}},
                         "acme/top-b/aws": {"1.0.0": {"calls": [], "providers": [aws(">= 1.0.0")]}}},
             "root": {"calls": [{"name": "m0", "source": "acme/top-a/aws", "file": "main.tf", "line": 1,
                                 "version_line": 3},
                                {"name": "m1", "source": "acme/top-b/aws", "file": "main.tf", "line": 6,
                                 "version_line": 8}],
                      "providers": [{"name": "aws", "source": "hashicorp/aws", "file": "versions.tf", "line": 3}]}}
    addr = "registry.opentofu.org/hashicorp/aws"

    def module_lock(path: str, source: str) -> ModuleLock:
        return ModuleLock(path, "1.0.0", lock_source(parse_source(source), False, "1.0.0"), "", ("h1:x",), "", True)
    recorded = LockFile({addr: ProviderLock(parse_provider_source("hashicorp/aws"), "1.0.0")},
                        {"m0": module_lock("m0", "acme/top-a/aws"), "m1": module_lock("m1", "acme/top-b/aws")})
    res = _resolve(index, recorded, ("m0",))
    assert res is not None and res.modules["m0"].version_text == "1.0.0"
    [blocked] = res.blocked_upgrades
    assert blocked.newer == "2.0.0" and blocked.lands is True
    assert blocked_upgrade_text(blocked, ("m0",)).endswith("To allow it: tofu-solve init -upgrade=m0,hashicorp/aws")
    unlanded = BlockedUpgrade("m0", "1.0.0", "2.0.0", (("hashicorp/aws", "1.0.0", "2.0.0", None),), lands=False)
    assert "To allow it" not in blocked_upgrade_text(unlanded, ("m0",)) and "do not fit together" in blocked_upgrade_text(unlanded, ("m0",))
