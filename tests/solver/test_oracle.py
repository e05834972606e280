"""The solver against a brute-force oracle on small generated universes (issue #34: the
conservative update; issue #35: the solver oracle). Hypothesis generates module universes
(packages in two layers, nested calls, one or two providers with constraints, OpenTofu
constraints), a lock taken from one consistent selection, and an edit of the root; the
oracle (:mod:`tests.solver.oracle`) enumerates every consistent selection. Properties:

* every selection the solver returns meets every constraint (checked by the oracle's
  enumeration, not by the solver);
* the solver finds a selection exactly when one exists;
* under a lock, after any edit, no selection moves fewer locks than the solver's (the
  conservative update: nothing moves that no edit requires);
* the selection is optimal by the stated objective (issue #48 §3: locks moved, module
  versions skipped depth by depth, fenced off, provider versions skipped, lexicographically), the oracle's
  reading of it computed from the user guide's words, and the solver reports that value;
* ``-upgrade=NAME`` on an unedited, locked root moves no other lock, and takes NAME to the
  newest version any selection that keeps every other lock allows.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, event, find, given, settings, target
from hypothesis import strategies as st

from tests.solver.oracle import PROVIDER_HOST, Selection, lock_cost, objective, solutions
from tests.world.memory import MemoryContext, universe_from_index
from tofu_solve.addrs.module_source import lock_source, parse_source
from tofu_solve.addrs.provider import parse_provider_source
from tofu_solve.errors import NoMatchingVersionError, NoVersionsError, ResolutionError
from tofu_solve.lockfile import LockFile, ModuleLock
from tofu_solve.lockfile.entries import ProviderLock
from tofu_solve.solver.resolve import Unsatisfiable, solve
from tofu_solve.versions.hashicorp_go_version import GoVersion

MODULE_VERSIONS = ["1.0.0", "1.1.0", "2.0.0", "2.1.0", "3.0.0"]
PROVIDER_VERSIONS = ["1.0.0", "1.5.0", "2.0.0", "2.5.0", "3.0.0"]
MODULE_CONSTRAINTS = [None, "~> 1.0", "~> 2.0", ">= 1.1.0", "< 3.0.0", "2.0.0", ">= 2.0.0"]
PROVIDER_CONSTRAINTS = [None, ">= 1.5.0", "< 2.5.0", "~> 2.0", ">= 2.0.0", "< 2.0.0", "~> 1.0"]
TOP = ["acme/top-a/aws", "acme/top-b/aws"]
LEAF = ["acme/leaf/aws"]
PROVIDERS = ["hashicorp/aws", "hashicorp/tls"]


def _provider_reqs(draw, allow_empty=True) -> list[dict]:
    out = []
    for i, name in enumerate(PROVIDERS):
        if draw(st.booleans()) or (not allow_empty and not out and name == PROVIDERS[-1]):
            text = draw(st.sampled_from(PROVIDER_CONSTRAINTS))
            p = {"name": name.split("/")[1], "source": name, "file": "versions.tf", "line": 3 + 4 * i}
            if text is not None:
                p["version"] = text
            out.append(p)
    return out


def _call(draw, name: str, packages: list[str], line: int) -> dict:
    c = {"name": name, "source": draw(st.sampled_from(packages)), "file": "main.tf", "line": line,
         "version_line": line + 2}
    text = draw(st.sampled_from(MODULE_CONSTRAINTS))
    if text is not None:
        c["version"] = text
    return c


@st.composite
def universes(draw) -> dict:
    """An index: two top packages whose versions may call the leaf package, a leaf, two
    providers, an OpenTofu target with constraints that may exclude it."""
    modules: dict[str, dict] = {}
    for pkg in LEAF + TOP:
        versions = draw(st.lists(st.sampled_from(MODULE_VERSIONS), min_size=1, max_size=4, unique=True))
        modules[pkg] = {}
        for v in sorted(versions, key=GoVersion.parse):
            tree: dict = {"calls": [], "providers": _provider_reqs(draw)}
            if pkg in TOP and draw(st.integers(0, 2)) == 0:
                tree["calls"].append(_call(draw, "inner", LEAF, 10))
            if draw(st.integers(0, 5)) == 0:
                tree["opentofu"] = [{"constraint": draw(st.sampled_from([">= 1.10", "< 1.12.0", "~> 1.12"])),
                                     "file": "versions.tofu", "line": 2}]
            modules[pkg][v] = tree
    providers = {p: draw(st.lists(st.sampled_from(PROVIDER_VERSIONS), min_size=1, max_size=5, unique=True))
                 for p in PROVIDERS}
    n = draw(st.integers(1, 3))
    root = {"calls": [_call(draw, f"m{i}", TOP + LEAF, 1 + 5 * i) for i in range(n)],
            "providers": _provider_reqs(draw)}
    return {"target": "1.12.6", "providers": providers, "modules": modules, "root": root}


def _resolve(index: dict, locks: LockFile | None = None, targets: tuple[str, ...] = ()):
    """The solver's resolution, or None when it proves there is none; ``targets``: as
    ``-upgrade=NAME,...`` names them (:meth:`LockTerms.of`)."""
    from tofu_solve.addrs.product import OPENTOFU
    from tofu_solve.solver.lock_terms import LockTerms

    u = universe_from_index(index)
    terms = LockTerms.of(locks or LockFile(), u.root, OPENTOFU, upgrade_only=targets) if targets else locks
    ctx = MemoryContext(u, locks=terms, upgrade_targets=targets)
    try:
        return solve(u.root, ctx)
    except (Unsatisfiable, NoMatchingVersionError, NoVersionsError):
        return None
    finally:
        ctx.close()


def _selection(res) -> Selection:
    return Selection(tuple(sorted((p, c.version_text) for p, c in res.modules.items())),
                     tuple(sorted((a, str(c.version)) for a, c in res.providers.items())))


def _solve(index: dict, locks: LockFile | None = None, targets: tuple[str, ...] = ()):
    """The solver's selection, or None when it proves there is none."""
    res = _resolve(index, locks, targets)
    return _selection(res) if res is not None else None


def _locks_of(index: dict, sel: Selection) -> tuple[LockFile, dict, dict]:
    """A lock file holding ``sel``, and its module and provider locks as the oracle takes them."""
    from tests.solver.oracle import calls_of

    calls = calls_of(index, sel)
    modules, oracle_modules = {}, {}
    for path, version in sel.modules:
        call = calls[path]
        source = lock_source(parse_source(call["source"]), call.get("version") is not None, version)
        modules[path] = ModuleLock(path, version, source, call.get("version") or "", ("h1:x",), "", True)
        oracle_modules[path] = (call["source"], version)
    providers = {a: ProviderLock(parse_provider_source(a.removeprefix(PROVIDER_HOST)), v) for a, v in sel.providers}
    return LockFile(providers, modules), oracle_modules, dict(sel.providers)


COMMON = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@COMMON
@given(universes())
def test_the_solver_finds_a_selection_exactly_when_one_exists_and_it_is_consistent(index):
    expected = solutions(index)
    try:
        got = _solve(index)
    except ResolutionError:
        got = None
    if not expected:
        assert got is None, "the solver found a selection where none exists"
        return
    assert got is not None, f"no selection found; the oracle has {len(expected)}, e.g. {expected[0]}"
    assert got in set(expected), f"{got} breaks a constraint"


@st.composite
def tangled_universes(draw) -> dict:
    """An index where module versions move with the provider, as real ones do (a newer
    release requires a newer provider, some releases fence it off above), so that an edit
    often forces other locks to move, and which to move is a real choice."""
    modules: dict[str, dict] = {}
    pv = PROVIDER_VERSIONS
    for pkg in LEAF + TOP:
        versions = sorted(draw(st.lists(st.sampled_from(MODULE_VERSIONS), min_size=3, max_size=5, unique=True)),
                          key=GoVersion.parse)
        modules[pkg] = {}
        for i, v in enumerate(versions):
            shape = draw(st.sampled_from(["floor", "floor", "fence", "none"]))
            lo = pv[min(i, len(pv) - 1)]
            reqs = []
            if shape == "floor":
                reqs = [{"name": "aws", "source": "hashicorp/aws", "version": f">= {lo}", "file": "versions.tf", "line": 3}]
            elif shape == "fence":
                hi = pv[min(i + draw(st.integers(1, 2)), len(pv) - 1)]
                reqs = [{"name": "aws", "source": "hashicorp/aws", "version": f">= {lo}, < {hi}", "file": "versions.tf",
                         "line": 3}]
            tree: dict = {"calls": [], "providers": reqs}
            if pkg in TOP and draw(st.booleans()):
                tree["calls"].append(_call(draw, "inner", LEAF, 10))
            modules[pkg][v] = tree
    root = {"calls": [_call(draw, f"m{i}", TOP + LEAF, 1 + 5 * i) for i in range(draw(st.integers(2, 3)))],
            "providers": [{"name": "aws", "source": "hashicorp/aws", "file": "versions.tf", "line": 3}]}
    return {"target": "1.12.6", "providers": {"hashicorp/aws": list(pv), "hashicorp/tls": ["1.0.0"]},
            "modules": modules, "root": root}


FORCING = [">= 1.1.0", ">= 2.0.0", "~> 2.0", "3.0.0", ">= 2.1.0"]  # edits that move a call up


def _edit(draw, index: dict, forcing: bool = False) -> dict:
    """The index with its root edited as a person would: a call's constraint or source
    changed, a call added or removed, a provider constraint changed. ``forcing``: a call's
    constraint raised or a call added at a newer version (what makes other locks move)."""
    edited = copy.deepcopy(index)
    root = edited["root"]
    if forcing:
        if draw(st.booleans()):
            c = draw(st.sampled_from(root["calls"]))
            c["version"] = draw(st.sampled_from(FORCING))
        else:
            added = _call(draw, "added", TOP + LEAF, 40)
            added["version"] = draw(st.sampled_from(FORCING))
            root["calls"].append(added)
        return edited
    kind = draw(st.sampled_from(["constraint", "source", "add", "remove", "provider", "none"]))
    if kind == "constraint" and root["calls"]:
        c = draw(st.sampled_from(root["calls"]))
        text = draw(st.sampled_from(MODULE_CONSTRAINTS))
        c.pop("version", None)
        if text is not None:
            c["version"] = text
    elif kind == "source" and root["calls"]:
        draw(st.sampled_from(root["calls"]))["source"] = draw(st.sampled_from(TOP + LEAF))
    elif kind == "add":
        root["calls"].append(_call(draw, "added", TOP + LEAF, 40))
    elif kind == "remove" and len(root["calls"]) > 1:
        root["calls"].pop(draw(st.integers(0, len(root["calls"]) - 1)))
    elif kind == "provider":
        root["providers"] = _provider_reqs(draw)
    return edited


@st.composite
def locked_edits(draw, base=universes(), forcing: bool = False):  # noqa: B008 (a Hypothesis strategy, built once)
    """(index before, the lock it solved to, index after an edit), the lock taken from any
    consistent selection of the first (not necessarily the solver's own)."""
    before = draw(base)
    options = solutions(before)
    if not options:
        return None
    lock = draw(st.sampled_from(options))
    return before, lock, _edit(draw, before, forcing)


def assert_fewest_moves(case, record: bool = True) -> None:
    """The solver's selection for the edited index under the lock is consistent, and moves
    exactly as many locks as the selection that moves the fewest (the oracle's). An empty draw
    (None) is a failure, never a silent pass (issue #83 §1: callers ``assume`` it away)."""
    assert case is not None, "an empty draw reached the oracle: the caller must assume(case is not None)"
    _, lock, after = case
    locks, module_locks, provider_locks = _locks_of(case[0], lock)
    expected = solutions(after)
    res = _resolve(after, locks)
    got = _selection(res) if res is not None else None
    if record and res is not None and res.soft_moves is not None:  # issue #48 §5: the examples reach it
        event("the minimisation ran")
        if len(res.released) < res.soft_moves:
            event("it moved fewer locks than the search that only prefers them")
        target(float(res.soft_moves - len(res.released)), label="locks the minimisation saved")
    if not expected:
        assert got is None
        return
    assert got is not None and got in set(expected), got
    fewest = min(lock_cost(after, s, module_locks, provider_locks) for s in expected)
    mine = lock_cost(after, got, module_locks, provider_locks)
    assert mine == fewest, f"moved {mine} locks where {fewest} suffice: {got} (lock {lock})"


@COMMON
@given(locked_edits())
def test_an_edit_moves_no_more_locks_than_any_selection_must(case):
    assume(case is not None)  # a drawn lock the universe before the edit does not admit: nothing to move
    assert_fewest_moves(case)


@COMMON
@given(locked_edits(tangled_universes(), forcing=True))
def test_an_edit_of_a_tangled_root_moves_the_fewest_locks(case):
    assume(case is not None)
    assert_fewest_moves(case)


def _minimisation_beats_the_soft_search(case) -> bool:
    if case is None:
        return False
    _, lock, after = case
    res = _resolve(after, _locks_of(case[0], lock)[0])
    return res is not None and res.soft_moves is not None and len(res.released) < res.soft_moves


@st.composite
def contested_edits(draw):
    """Edits of the shape where a search that holds no lock moves more locks than must move
    (the first found: ``lock_cases/new-call-moves-fewest-locks.json``): a call added whose
    newest version needs a newer provider than a locked leaf allows, while an older version
    needs less; its versions, constraints and the provider's releases drawn around it."""
    case = copy.deepcopy(json.loads((Path(__file__).parent / "lock_cases" / "new-call-moves-fewest-locks.json")
                                    .read_text()))
    after = case["after"]
    added = next(c for c in after["root"]["calls"] if c["name"] == "added")
    added["version"] = draw(st.sampled_from([">= 1.1.0", ">= 1.0.0", "~> 1.0", None, "< 3.0.0"]))
    if added["version"] is None:
        added.pop("version")
    aws = draw(st.lists(st.sampled_from(PROVIDER_VERSIONS), min_size=2, max_size=5, unique=True))
    for index in (case["before"], after):
        index["providers"]["hashicorp/aws"] = sorted(set(aws) | {"1.0.0"}, key=GoVersion.parse)
        b11 = index["modules"]["acme/top-b/aws"]["1.1.0"]["providers"][0]
        b11["version"] = draw(st.sampled_from([">= 1.5.0", ">= 1.0.0", "~> 1.0", ">= 2.0.0"]))
        leaf = index["modules"]["acme/leaf/aws"]["1.0.0"]["providers"][0]
        leaf["version"] = draw(st.sampled_from([">= 1.0.0, < 2.0.0", "~> 1.0", "< 2.5.0"]))
    lock = Selection(tuple(sorted(case["lock"]["modules"].items())), tuple(sorted(case["lock"]["providers"].items())))
    if lock not in set(solutions(case["before"])):
        return None
    return case["before"], lock, after


def test_the_examples_reach_a_minimisation_that_beats_the_search_that_only_prefers_locks():
    """Issue #48 §5: generated edits include one where the locks as they were admit no
    solution and the minimisation moves fewer locks than the search that holds none (each
    still preferred) did; the run fails when the generator no longer reaches such a case
    (``find`` raises). The case found moves the fewest locks, by the oracle, as does every
    case of the family (:func:`contested_edits`)."""
    case = find(contested_edits(), _minimisation_beats_the_soft_search,
                settings=settings(max_examples=300, deadline=None, database=None,
                                  suppress_health_check=[HealthCheck.too_slow]))
    assert_fewest_moves(case, record=False)


@COMMON
@given(contested_edits())
def test_a_contested_edit_moves_the_fewest_locks(case):
    assume(case is not None)
    assert_fewest_moves(case)


@COMMON
@given(universes(), st.data())
def test_upgrade_name_moves_nothing_else_and_takes_the_newest_the_other_locks_allow(index, data):
    options = solutions(index)
    assume(options)  # no selection to lock: nothing to upgrade
    lock = data.draw(st.sampled_from(options))
    locks, module_locks, provider_locks = _locks_of(index, lock)
    name = data.draw(st.sampled_from(sorted(p for p in lock.module_map if "." not in p)))
    freed = {p for p in locks.modules if p == name or p.startswith(name + ".")}
    got = _solve(index, locks, (name,))
    assert got is not None and got in set(options)
    others = {p: v for p, v in module_locks.items() if p not in freed}
    assert lock_cost(index, got, others, provider_locks) == 0, f"-upgrade={name} moved another lock: {got}"
    keeping = [s for s in options if lock_cost(index, s, others, provider_locks) == 0]
    newest = max((s.module_map[name] for s in keeping), key=GoVersion.parse)
    assert got.module_map[name] == newest, f"-upgrade={name} took {got.module_map[name]}, {newest} fits"


LOCK_CASES = sorted((Path(__file__).parent / "lock_cases").glob("*.json"))


@pytest.mark.parametrize("path", LOCK_CASES, ids=lambda p: p.stem)
def test_lock_cases(path):
    """Edits the property tests found where a search that holds no lock moves more locks
    than must move, kept as data: the solver moves exactly ``expected_moves`` locks, the
    fewest any selection moves, and, where the case says (``expected_modules``), each to
    the version it names."""
    case = json.loads(path.read_text())
    lock = Selection(tuple(sorted(case["lock"]["modules"].items())), tuple(sorted(case["lock"]["providers"].items())))
    locks, module_locks, provider_locks = _locks_of(case["before"], lock)
    got = _solve(case["after"], locks)
    expected = solutions(case["after"])
    assert got in set(expected)
    assert min(lock_cost(case["after"], s, module_locks, provider_locks) for s in expected) == case["expected_moves"]
    assert lock_cost(case["after"], got, module_locks, provider_locks) == case["expected_moves"]
    if "expected_modules" in case:  # where the moved locks land: the version nearest each lock
        assert {p: v for p, v in got.module_map.items() if p in case["expected_modules"]} == case["expected_modules"]
    if "expected_objective" in case:  # issue #48 §3: the best value by the stated objective, and no selection better
        values = [objective(case["after"], s, module_locks, provider_locks) for s in expected]
        expected_value = tuple(tuple(t) if isinstance(t, list) else t for t in case["expected_objective"])
        assert min(values) == expected_value
        assert objective(case["after"], got, module_locks, provider_locks) == expected_value


def _relaxed(index: dict, keep: set[tuple[str, str]]) -> dict:
    """``index`` with every root constraint not in ``keep`` ((kind, name) of a lever: a
    module call's ``version``, a provider's ``required_providers`` entry) removed."""
    out = copy.deepcopy(index)
    for c in out["root"].get("calls", []):
        if ("module", c["name"]) not in keep:
            c.pop("version", None)
    for p in out["root"].get("providers", []):
        if ("provider", PROVIDER_HOST + p["source"]) not in keep:
            p.pop("version", None)
    return out


CHECKED: Counter[str] = Counter()  # what the clash property checked in earnest (vacuous draws are discarded)


@COMMON
@given(universes())
def _every_clash_is_minimal_and_every_suggested_fix_solves(index):
    """Issue #35 §6 (and #34: "name as the clash only constraints that really clash"): for an
    impossible universe, each clash the explanation names cannot hold with every other root
    constraint relaxed, and holds as soon as any one of its constraints is relaxed too (the
    oracle says so, not the solver); each suggested edit, applied, makes the universe
    solvable."""
    from tests.solver.test_cases import apply_edits
    from tofu_solve.explain import solve as explained_solve

    assume(not solutions(index))  # a solvable universe has nothing to explain
    u = universe_from_index(index)
    ctx = MemoryContext(u)
    try:
        explained_solve(u.root, ctx)
    except ResolutionError as e:
        explanation = getattr(e, "explanation", None) or {}
    except (NoMatchingVersionError, NoVersionsError):
        event("a root call no version of which matches: OpenTofu's own error, no clash")
        return
    else:
        raise AssertionError("the solver solved a universe the oracle finds impossible")
    finally:
        ctx.close()
    if explanation.get("kind") != "conflict":
        event(f"explained as {explanation.get('kind')}, not a conflict")
        return
    for clash in explanation.get("clashes", []):
        levers = {(lv["kind"], lv["name"]) for lv in clash}
        if not levers <= {("module", c["name"]) for c in index["root"]["calls"]} | {
                ("provider", PROVIDER_HOST + p["source"]) for p in index["root"].get("providers", [])}:
            continue  # a clash that names an OpenTofu constraint or a nested one: no root lever to relax
        event("a clash checked against the oracle")
        CHECKED["clash"] += 1
        assert not solutions(_relaxed(index, levers)), f"{clash} is no clash: it holds with the rest relaxed"
        for lever in levers:
            assert solutions(_relaxed(index, levers - {lever})), f"{clash} is not minimal: {lever} is not needed"
    for s in explanation.get("suggestions", []):
        if s.get("edits"):
            event("a suggested fix applied")
            CHECKED["fix"] += 1
            assert solutions(apply_edits(index, s["edits"])), f"suggestion {s['summary']!r} does not solve"


def test_every_clash_is_minimal_and_every_suggested_fix_solves():
    """The property above, run; it fails when its draws never reached a clash to check or
    a fix to apply (a generator that stopped making impossible universes tests nothing)."""
    CHECKED.clear()
    _every_clash_is_minimal_and_every_suggested_fix_solves()
    assert CHECKED["clash"] and CHECKED["fix"], CHECKED


def test_an_impossible_root_resolvelib_1_2_0_could_not_explain():
    """Found by the oracle on CI's lowest dependencies: resolvelib 1.2.0's own backjump
    emptied its state stack on this impossible root (IndexError, in its Resolver as in the
    search); 1.2.1 proves the clash, so ``pyproject.toml`` admits resolvelib 1.2.1 and later."""
    index = {"target": "1.12.6", "providers": {"hashicorp/aws": ["1.0.0"], "hashicorp/tls": ["1.0.0"]},
             "modules": {"acme/leaf/aws": {"1.0.0": {"calls": [], "providers": []}},
                         "acme/top-a/aws": {"1.0.0": {"calls": [], "providers": [], "opentofu": [
                             {"constraint": "< 1.12.0", "file": "versions.tofu", "line": 2}]}},
                         "acme/top-b/aws": {"1.0.0": {"calls": [], "providers": []},
                                            "3.0.0": {"calls": [], "providers": [], "opentofu": [
                                                {"constraint": ">= 1.10", "file": "versions.tofu", "line": 2}]}}},
             "root": {"calls": [{"name": "m0", "source": "acme/top-b/aws", "file": "main.tf", "line": 1},
                                {"name": "m1", "source": "acme/top-a/aws", "file": "main.tf", "line": 6}],
                      "providers": []}}
    assert not solutions(index)
    assert _solve(index) is None


@st.composite
def policed_universes(draw):
    """A universe and the module versions a policy denies (package, version)."""
    index = draw(universes())
    offered = sorted((p, v) for p, versions in index["modules"].items() for v in versions)
    denied = draw(st.lists(st.sampled_from(offered), max_size=4, unique=True))
    return index, denied


@COMMON
@given(policed_universes())
def test_a_policy_is_a_constraint_the_oracle_applies_by_removing_the_denied_versions(case):
    """Issue #39: under a policy that denies some module versions, the solver finds a
    selection exactly when one exists among the versions left, and it is one of those: no
    denied version is ever selected, and nothing compliant is missed."""
    import dataclasses

    from tofu_solve.config.policy import DenyRule, Policy
    from tofu_solve.errors import SourceRange
    from tofu_solve.versions.constraints import module_constraint
    index, denied = case
    allowed = copy.deepcopy(index)
    for pkg, version in denied:
        del allowed["modules"][pkg][version]
    expected = set(solutions(allowed))
    rules = tuple(DenyRule("module", f"registry.opentofu.org/{pkg}", module_constraint(f"= {version}"), "test", "",
                           SourceRange("tofu-solve-policy.hcl", i + 1)) for i, (pkg, version) in enumerate(denied))
    u = universe_from_index(index)
    ctx = MemoryContext(u)
    ctx.options = dataclasses.replace(ctx.options, policy=Policy("tofu-solve-policy.hcl", rules=rules))
    try:
        res = solve(u.root, ctx)
        got = Selection(tuple(sorted((p, c.version_text) for p, c in res.modules.items())),
                        tuple(sorted((a, str(c.version)) for a, c in res.providers.items())))
    except (Unsatisfiable, NoMatchingVersionError, NoVersionsError, ResolutionError):
        got = None
    finally:
        ctx.close()
    if not expected:
        assert got is None, f"{got} selected, but every compliant selection breaks a constraint"
        return
    assert got is not None, f"no selection found; the oracle has {len(expected)} compliant ones"
    assert got in expected, f"{got} selects a denied version or breaks a constraint"


def assert_optimal(case) -> None:
    """Issue #48 §3: under the lock, after the edit, no selection is better by the stated
    objective than the solver's (the oracle computes it for every selection on its own), and
    the solver reports its selection's value and that it is optimal. An empty draw (None) is
    a failure, never a silent pass (issue #83 §1)."""
    assert case is not None, "an empty draw reached the oracle: the caller must assume(case is not None)"
    _, lock, after = case
    locks, module_locks, provider_locks = _locks_of(case[0], lock) if lock is not None else (None, {}, {})
    expected = solutions(after)
    res = _resolve(after, locks)
    if not expected or res is None:
        assert (res is None) == (not expected)
        return
    got = _selection(res)
    values = {s: objective(after, s, module_locks, provider_locks) for s in expected}
    best = min(values.values())
    mine = objective(after, got, module_locks, provider_locks)
    assert res.optimality is not None and res.optimality.optimal, res.optimality
    assert res.optimality.objective.terms() == mine, (res.optimality, mine)
    better = [s for s, v in values.items() if v == best]
    assert mine == best, f"{got} scores {mine}; {better[0]} scores {best} (lock {lock})"
    if res.optimality.improved:
        event("the exact optimiser improved on the search")
    if any(mine[1]) or mine[3]:
        event("the best selection skips versions")


@COMMON
@given(locked_edits())
def test_an_edit_lands_on_the_best_selection_by_the_stated_objective(case):
    assume(case is not None)
    assert_optimal(case)


@COMMON
@given(locked_edits(tangled_universes(), forcing=True))
def test_an_edit_of_a_tangled_root_lands_on_the_best_selection(case):
    assume(case is not None)
    assert_optimal(case)


@COMMON
@given(universes())
def test_a_fresh_root_lands_on_the_best_selection(index):
    assert_optimal((index, None, index))


@COMMON
@given(locked_edits(tangled_universes(), forcing=True))
def test_a_selection_measured_without_the_universe_scores_what_the_oracle_says(case):
    """One truth (issue #48 §3): where the universe is too large to read, the selection's
    value is measured from the selection alone (:func:`tofu_solve.solver.optimum.measure`);
    it must equal the oracle's reading of the objective, and the selection is then not
    claimed optimal."""
    from tofu_solve.solver import optimum

    assume(case is not None)
    _, lock, after = case
    locks, module_locks, provider_locks = _locks_of(case[0], lock)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(optimum, "MAX_CANDIDATES", 0)
        res = _resolve(after, locks)
    if res is None or res.optimality is None:
        event("no selection to measure")
        return
    got = _selection(res)
    assert res.optimality.objective is not None
    if res.optimality.optimal:  # settled: every pick at its lock or first in its order, measured as well
        assert res.optimality.objective.terms() == objective(after, got, module_locks, provider_locks)
        return
    event("measured without the universe")
    assert res.optimality.bound == "more than 0 module candidates"
    assert res.optimality.objective is not None
    assert res.optimality.objective.terms() == objective(after, got, module_locks, provider_locks)


def test_the_exact_optimiser_avoids_a_fence_the_search_walks_into(monkeypatch):
    """Issue #48 §3, "no fenced-off selection where one can be avoided": ``a`` 1.1.0 needs aws
    >= 2.0.0 and ``b`` 2.0.1 needs aws < 2.0.0. The search, ``a`` first and newest first,
    takes ``a`` 1.1.0 and goes back to ``b`` 2.0.0, which its own line's 2.0.1 fences off
    from aws 2.0.0. Skipping as many versions (one), ``a`` 1.0.0 with ``b`` 2.0.1 and aws
    1.0.0 has no fence: the exact optimiser takes it, and the oracle agrees no selection is
    better. Without the optimiser (the mutation) the search's fenced selection stands."""
    from tofu_solve.solver import resolve as resolve_module

    def aws(text: str) -> dict:
        return {"name": "aws", "source": "hashicorp/aws", "version": text, "file": "versions.tf", "line": 3}
    index = {"target": "1.12.6", "providers": {"hashicorp/aws": ["1.0.0", "2.0.0"]},
             "modules": {"acme/top-a/aws": {"1.0.0": {"calls": [], "providers": []},
                                            "1.1.0": {"calls": [], "providers": [aws(">= 2.0.0")]}},
                         "acme/top-b/aws": {"2.0.0": {"calls": [], "providers": []},
                                            "2.0.1": {"calls": [], "providers": [aws("< 2.0.0")]}}},
             "root": {"calls": [{"name": "a", "source": "acme/top-a/aws", "file": "main.tf", "line": 1,
                                 "version_line": 3},
                                {"name": "b", "source": "acme/top-b/aws", "file": "main.tf", "line": 6,
                                 "version_line": 8}],
                      "providers": [{"name": "aws", "source": "hashicorp/aws", "file": "versions.tf", "line": 3}]}}
    res = _resolve(index)
    got = _selection(res)
    assert got.module_map == {"a": "1.0.0", "b": "2.0.1"} and got.provider_map == {PROVIDER_HOST + "hashicorp/aws": "1.0.0"}
    assert res.optimality.optimal and res.optimality.improved
    assert res.optimality.objective.terms() == objective(index, got, {}, {}) == \
        min(objective(index, s, {}, {}) for s in solutions(index))
    assert not any("fenced off" in str(w) for w in res.warnings)
    monkeypatch.setattr(resolve_module, "optimise", lambda result, *a: (result, None))
    alone = _selection(_resolve(index))
    assert alone.module_map == {"a": "1.1.0", "b": "2.0.0"}
    assert objective(index, alone, {}, {})[2] == 1  # fenced


def test_the_exact_stage_reads_no_version_a_better_selection_cannot_take(monkeypatch):
    """Issue #48, the solve time of conflict roots (``vpc`` 6 with ``security-group`` 4 under
    aws 5: 0.08 to 0.38 s in the resolve-rate bench): ``a``'s two newest versions need aws
    >= 2.0.0 and the root allows aws < 2.0.0, so ``a`` skips two versions in every
    selection, and no selection better than the search's may skip any of ``b``'s. The
    universe the exact stage reads holds ``b``'s newest version only (the skip cap counts
    the versions dead whatever else is selected, :func:`~tofu_solve.solver.optimum._dead_alone`),
    and the selection is still proven optimal (the oracle agrees)."""
    from tofu_solve.solver import optimum

    def aws(text: str) -> dict:
        return {"name": "aws", "source": "hashicorp/aws", "version": text, "file": "versions.tf", "line": 3}
    index = {"target": "1.12.6", "providers": {"hashicorp/aws": ["1.0.0", "2.0.0"]},
             "modules": {"acme/top-a/aws": {"1.0.0": {"calls": [], "providers": []},
                                            "1.1.0": {"calls": [], "providers": [aws(">= 2.0.0")]},
                                            "1.2.0": {"calls": [], "providers": [aws(">= 2.0.0")]}},
                         "acme/top-b/aws": {v: {"calls": [], "providers": []}
                                            for v in ("2.0.0", "2.1.0", "2.2.0", "2.3.0")}},
             "root": {"calls": [{"name": "a", "source": "acme/top-a/aws", "file": "main.tf", "line": 1,
                                 "version_line": 3},
                                {"name": "b", "source": "acme/top-b/aws", "file": "main.tf", "line": 6,
                                 "version_line": 8}],
                      "providers": [aws("< 2.0.0")]}}
    read: list = []
    real_read = optimum._Reader.read

    def recording(self):
        u = real_read(self)
        read.append(sorted((c.call_path, c.version_text) for c in u.module_cands.values()))
        return u
    monkeypatch.setattr(optimum._Reader, "read", recording)
    # the search alone settles a selection with a skip only when the objective is not all zero:
    # here a skips two versions, so the universe is read
    res = _resolve(index)
    got = _selection(res)
    assert got.module_map == {"a": "1.0.0", "b": "2.3.0"}
    assert res.optimality.optimal
    assert res.optimality.objective.terms() == objective(index, got, {}, {}) == \
        min(objective(index, s, {}, {}) for s in solutions(index))
    assert read, "the exact stage did not read a universe"
    assert [v for p, v in read[0] if p == "b"] == ["2.3.0"], read[0]
