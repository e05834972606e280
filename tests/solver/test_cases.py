"""Solver and explanation cases as data, no server: ``cases/*.json`` hold a module universe
(an index, :mod:`tests.world.memory`) and what the solve must give, either the
selection (every module call and provider) or the error (summary and the full explanation
text, line by line).

Beside the expected answer each case is checked independently of the solver:
* a selection must be consistent: every selected version meets its call's constraint, every
  provider version meets every constraint of every selected module version and the root,
  every OpenTofu constraint allows the target;
* every suggestion of an explanation, applied to the index as a tool would apply it (the
  quoted constraint replaced at its file and line), must make the universe solvable.

Some cases are written by hand; others are the server-backed explanation scenarios of
``tests/e2e/test_explanations.py`` recorded on the fixture world's real data
(``python -m tests.solver.record_case``, ``"recorded": true``): the whole universe the solve
could walk, replayed here without servers (issue #35).

Regenerate the expected answers after a deliberate change with
``python -m tests.solver.update_cases`` and review the diff.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from tests.world.memory import (
    MemoryContext,
    index_of,
    make_universe,
    universe_from_index,
)
from tofu_solve.errors import TofuSolveError
from tofu_solve.explain import solve
from tofu_solve.versions.constraints import module_constraint, provider_constraint

CASES = sorted((Path(__file__).parent / "cases").glob("*.json"))


def run_case(index: dict):
    """Solve the index's universe: ("ok", selection) or ("error", summary, detail lines, explanation)."""
    u = universe_from_index(index)
    ctx = MemoryContext(u)
    try:
        res = solve(u.root, ctx)
    except TofuSolveError as e:
        return {"error": e.summary, "detail": e.detail.split("\n"),
                "suggestions": [s["summary"] for s in (getattr(e, "explanation", None) or {}).get("suggestions", [])]}, e, None
    finally:
        ctx.close()
    return {"modules": {p: c.version_text for p, c in res.modules.items()},
            "providers": {a: str(c.version) for a, c in res.providers.items()},
            "opentofu": str(res.tofu.version)}, None, res


def assert_consistent(index: dict, selection: dict) -> None:
    """The selection meets every constraint of the index (checked here, not by the solver)."""
    modules = index.get("modules", {})
    target = index.get("target", "1.12.6")
    trees = [index["root"]]
    calls = [("", c) for c in index["root"].get("calls", [])]
    while calls:
        prefix, c = calls.pop()
        path = f"{prefix}.{c['name']}" if prefix else c["name"]
        assert path in selection["modules"], f"call {path} has no selection"
        version = selection["modules"][path]
        if c.get("version"):
            assert module_constraint(c["version"]).allows(version), f"{path} {version} breaks {c['version']}"
        tree = modules[c["source"]][version]
        trees.append(tree)
        calls += [(path, inner) for inner in tree.get("calls", [])]
    for tree in trees:
        for p in tree.get("providers", []):
            addr = "registry.opentofu.org/" + p["source"]
            if p.get("version"):
                assert provider_constraint(p["version"]).allows(selection["providers"][addr]), (addr, p)
        for core in tree.get("opentofu", []):
            assert module_constraint(core["constraint"]).allows(target), core


def apply_edits(index: dict, edits: list[dict]) -> dict:
    """The index with each edit applied: the constraint ``old`` written at ``file:line`` of
    the root becomes ``new``."""
    out = copy.deepcopy(index)
    root = out["root"]
    for e in edits:
        hits = 0
        for c in root.get("calls", []):
            if c.get("file", "main.tf") == e["file"] and e["line"] in (c.get("version_line"), c.get("line")) \
                    and c.get("version") == e["old"]:
                c["version"], hits = e["new"], hits + 1
        for p in root.get("providers", []):
            if p.get("file", "versions.tf") == e["file"] and p.get("line") == e["line"] and p.get("version") == e["old"]:
                p["version"], hits = e["new"], hits + 1
        assert hits == 1, f"edit {e} does not name one constraint of the root"
    return out


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_case(path):
    case = json.loads(path.read_text())
    got, error, _ = run_case(case["index"])
    assert got == case["expect"]
    if error is None:
        assert_consistent(case["index"], got)
        return
    for s in (getattr(error, "explanation", None) or {}).get("suggestions", []):
        if not s.get("edits"):
            continue
        fixed, _, res = run_case(apply_edits(case["index"], s["edits"]))
        assert res is not None, f"suggestion {s['summary']!r} does not solve: {fixed}"
        assert_consistent(apply_edits(case["index"], s["edits"]), fixed)


def test_every_case_says_what_it_is_about():
    for path in CASES:
        case = json.loads(path.read_text())
        assert case.get("about") and case.get("expect"), path.name


@pytest.mark.parametrize("shape", [(9, 10, 2, 3), (30, 20, 2, 5), (60, 30, 2, 15)])
def test_generated_universes_solve_consistently(shape):
    """The benchmark's generated universes (tests.world.memory.make_universe), through the
    index format and back: the same answer as from the universe itself, and consistent."""
    u = make_universe(*shape)
    index = index_of(u)
    direct = MemoryContext(u)
    try:
        res = solve(u.root, direct)
    finally:
        direct.close()
    got, error, _ = run_case(index)
    assert error is None
    assert got["modules"] == {p: c.version_text for p, c in res.modules.items()}
    assert_consistent(index, got)
