"""Issue #83 §1: every place that applies a rule is held by a fast test.

The architecture page's "Rules and their homes" table names, for each rule, the places that
apply it. Each place is held in one of two ways:

* a mutant of ``scripts/mutants.py`` lands in it (a function, class or module the mutant
  changes), and ``scripts/mutants.py`` shows that a test outside ``tests/e2e/`` fails for it
  (the table of first failing tests is in ``bench/RESULTS.md``); or
* it is wiring (it passes a rule's answer on): :data:`WIRED` names the call it must make,
  and :func:`test_each_wired_place_makes_its_call` fails when that call is gone, which is
  what switching the rule off at that place amounts to. The repository's readers are held by
  ``tests/test_layout.py``'s confined-reader test in the same way.

:func:`test_every_place_the_table_names_is_held` reads the table, so a place added to it
without a mutant or a wiring entry fails here.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "tofu_solve"

WIRED: list[tuple[str, str, str, str]] = [
    # (the place as the table names it, file, function or Class.method, the name it must use)
    ("lock_anchor", "solver/context.py", "Context.lock_anchor", "module_lock_anchor"),
    ("locked_subjects", "solver/locks.py", "locked_subjects", "provider_lock_applies"),
    ("CandidateFactory._provider_lock", "solver/factory.py", "CandidateFactory._provider_lock",
     "provider_lock_denial"),
    ("provider_lock_denial", "solver/locks.py", "provider_lock_denial", "terms"),
    ("solver.changes.lock_change_reasons", "solver/changes.py", "lock_change_reasons", "standing"),
    ("solver.upgrades.blocked_upgrades", "solver/upgrades.py", "blocked_upgrades", "freed"),
    ("Cooldown", "solver/release_cooldown.py", "Cooldown.module", "recorded_at"),
    ("recorded_at", "solver/release_cooldown.py", "Cooldown.provider", "recorded_at"),
    ("workdir.solve_verify", "workdir/solve_verify.py", "solve_and_verify", "verified_against"),
    ("kept", "workdir/solve_verify.py", "solve_and_verify", "kept"),
    ("verified_against", "workdir/solve_verify.py", "solve_and_verify", "verified_against"),
    ("freed", "solver/upgrades.py", "blocked_upgrades", "freed"),
    ("command.outdated._landed", "command/outdated.py", "_landed", "LockTerms"),
    ("_as_init_lands", "command/outdated.py", "_as_init_lands", "_landed"),
    ("read_module", "remote/package_store/reading.py", "StoreReader.read_module", "module_into"),
    ("StoreVerifier.check_module", "remote/package_store/verifying.py", "StoreVerifier.check_module", "module_into"),
    ("check_log", "command/views/sarif.py", "check_log", "_placed"),
    ("github_annotations", "command/views/sarif.py", "github_annotations", "_placed"),
    ("load_cli_config", "config/cliconfig.py", "load_cli_config", "locate"),
    ("ProviderPackages._from_field", "plugins/packages.py", "ProviderPackages._from_field", "info"),
    ("solve_and_verify", "workdir/solve_verify.py", "solve_and_verify", "refuse_provider_expressions"),
    ("OutputEdge", "output_edge.py", "OutputEdge.write", "clean"),
    ("json_stream", "command/views/json_stream.py", "<module>", "json_safe"),
    ("report_views", "command/views/report_views.py", "<module>", "json_safe"),
    ("init_view", "command/views/init_view.py", "<module>", "json_safe"),
    ("graph", "command/graph.py", "<module>", "json_safe"),
    ("logs", "command/logs.py", "<module>", "json_safe"),
    ("monorepo.relative_name", "command/monorepo.py", "relative_name", "one_line"),
    ("schedule", "lsp/server.py", "SolveServer.schedule", "in_workspace"),
    ("read_policy_test", "config/policy_test.py", "_TestReader", "MAX_MOCKS"),
    ("_lazy.exports", "_lazy.py", "exports", "load"),
    ("remote.ops.lazy_import", "remote/ops.py", "_LazyModule", "load"),
    ("InitViews.close", "command/views/init_view.py", "InitViews.close", "append_to_step_summary"),
    ("CheckView._report", "command/views/report_views.py", "CheckView._report", "append_to_step_summary"),
    ("append_to_step_summary", "command/views/report_views.py", "CheckView._report", "render"),
    ("init._run_recursive", "command/init.py", "_run_recursive", "passed_over_policies"),
    ("RootsSummary.passed_over", "command/init.py", "_run_recursive", "passed_over_policies_warning"),
    ("monorepo.passed_over_notice", "command/monorepo.py", "passed_over_notice", "passed_over_policies"),
    ("views.warnings.passed_over_policies_warning", "command/monorepo.py", "passed_over_notice",
     "passed_over_policies_warning"),
    ("explain.analysis._policy_notes", "explain/analysis.py", "_policy_notes", "_what_the_rule_read"),
    ("Unusable", "solver/model.py", "Unusable", "KeptOut"),
    ("_denied", "solver/factory.py", "CandidateFactory._denied", "of_refusal"),
    ("_refused_call", "solver/factory.py", "CandidateFactory._refused_call", "of_refused_source"),
    ("_all_refused_call", "solver/factory.py", "CandidateFactory._all_refused_call", "REFUSED_CALL"),
    ("explain.analysis", "explain/analysis.py", "<module>", "of_unloadable"),
    ("Why.POLICY", "explain/render.py", "subject_part", "POLICY"),
    ("views.warnings.policy_warnings", "command/views/warnings.py", "policy_warnings", "of_refusal"),
    ("views.lock_view.policy_data", "command/views/lock_view.py", "policy_data", "of_refusal"),
    ("init._init", "command/init.py", "_init", "InitWarnings"),
    ("views.warnings.tag_warnings", "command/init.py", "_run_warnings", "tag_warnings"),
    ("config.policy.load_policy", "config/policy.py", "load_policy", "read_committed_overrides"),
    ("views.warnings.policy_notice_warnings", "command/views/warnings.py", "policy_notice_warnings",
     "committed_override"),
    ("solver.verdicts.with_overrides", "solver/verdicts.py", "with_overrides", "committed_override"),
    ("init._warm", "command/init.py", "_warm", "committed_overrides"),
    ("check.run", "command/check.py", "run", "committed"),
    ("init._handover_for", "command/init.py", "_handover_for", "rebased"),
    ("analyse", "lsp/server.py", "SolveServer._solve", "SOLVE_SECONDS"),
    ("holdback.provider_hold_backs", "explain/holdback.py", "provider_hold_backs", "of_refusal"),
    ("holdback._module_clash", "explain/holdback.py", "_module_clash", "of_refused_source"),
    ("why.why_call", "command/why.py", "why_call", "said"),
    ("why.why_provider", "command/why.py", "why_provider", "merged"),
    ("outdated._blocker", "command/outdated.py", "_blocker", "said_of"),
    ("outdated._provider_row", "command/outdated.py", "_provider_row", "said_of"),
    ("lsp.analysis._call", "lsp/analysis.py", "_call", "said"),
    ("workdir.verify.verify_packages", "workdir/verify.py", "verify_packages", "hashes_kept"),
]

CONFINED = ("config.variables", "stack", "unit", "versions.target")  # held by test_layout's confined readers

NOT_PLACES = {
    "policy.denied": "a -json field the verdicts' record fills, held with `what a rule kept out`",
    "store_retries": "a setting's name: the retries are held at `remote.oci._timed_session`",
    "lsp": "a package: its fixes come from `WhatIf._verify`",
    "init": "a command named in prose: its place is `monorepo.select_roots`",
    "outdated": "a command named in prose: its place is `monorepo.each_root`",
    "note": "a SARIF level named in prose",
}


def _node(file: str, qualname: str) -> ast.AST:
    tree = ast.parse((PACKAGE / file).read_text())
    if qualname == "<module>":
        return tree
    node: ast.AST = tree
    for part in qualname.split("."):
        found = next((n for n in ast.walk(node) if isinstance(n, (ast.FunctionDef, ast.ClassDef))
                      and n.name == part), None)
        assert found is not None, f"{file}: no {qualname}"
        node = found
    return node


def _names(node: ast.AST) -> set[str]:
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
        elif isinstance(n, ast.alias):
            out.add(n.asname or n.name.rsplit(".", 1)[-1])
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
            out.add(n.value)  # a key read from a result (``.get("committed_overrides")``)
    return out


@pytest.mark.parametrize(("place", "file", "qualname", "name"), WIRED, ids=[w[0] for w in WIRED])
def test_each_wired_place_makes_its_call(place, file, qualname, name):
    assert name in _names(_node(file, qualname)), \
        f"{place} ({file}: {qualname}) no longer uses {name}: the rule is not applied there"


def _mutant_places() -> set[str]:
    spec = importlib.util.spec_from_file_location("tofu_solve_mutants", REPO / "scripts" / "mutants.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(spec.name, None)
    places: set[str] = set()
    for m in module.MUTANTS:
        path = REPO / m.file
        text = path.read_text()
        if m.old not in text:
            continue  # the mutant scripts/mutants.py has applied to this copy of the tree
        line = text[:text.index(m.old)].count("\n") + 1
        places.add(path.stem)
        for n in ast.walk(ast.parse(text)):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                    and n.lineno <= line <= (n.end_lineno or n.lineno):
                places.add(n.name)
    return places


def _table_places() -> list[tuple[str, str]]:
    doc = (REPO / "docs" / "architecture.md").read_text()
    start = doc.index("| rule | decided by | applied at |")
    rows = [line for line in doc[start:].splitlines()[2:] if line.startswith("|")]
    assert len(rows) > 40
    return [(cells[1].strip(), name) for row in rows for cells in [row.split("|")]
            for name in re.findall(r"`([A-Za-z_][\w.]*)`", cells[3])]


def test_every_place_the_table_names_is_held():
    mutated = _mutant_places()
    wired = {w[0] for w in WIRED}
    unheld = [f"{name} ({rule[:50]})" for rule, name in _table_places()
              if name.rsplit(".", 1)[-1] not in mutated and name not in wired and name not in CONFINED
              and name not in NOT_PLACES]
    assert not unheld, "places that apply a rule and that no fast test holds: " + "; ".join(unheld)


def test_the_wiring_list_names_only_places_the_table_names():
    named = {name for _, name in _table_places()}
    assert {w[0] for w in WIRED} <= named | {"kept", "freed", "recorded_at", "verified_against"}
