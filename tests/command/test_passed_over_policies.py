"""No policy file passed over in silence (issue #84 §1): the policy files of the tree that
apply to no root of a ``-recursive`` run are found, named from where it ran, and worded once
with how to apply them."""

from __future__ import annotations

from pathlib import Path

from tofu_solve.command.monorepo import passed_over_policies
from tofu_solve.command.views.warnings import passed_over_policies_warning
from tofu_solve.settings import Settings

RULE = 'module_policy "*" "x" {\n  enforce {\n    condition = true\n  }\n}\n'


def _tree(top: Path) -> list[Path]:
    (top / ".git").mkdir(parents=True)
    for f in ("tofu-solve-policy.hcl", "policies/modules.policy.hcl", "policies/providers.policy.hcl",
              "live/prod/extra.policy.hcl", "policies/tests/m.policytest.hcl"):
        (top / f).parent.mkdir(parents=True, exist_ok=True)
        (top / f).write_text(RULE if f.endswith("policy.hcl") else 'deny "module" "a/b/c" {\n  reason = "x"\n}\n')
    roots = [top / "live" / "prod" / "app", top / "live" / "dev" / "app"]
    for r in roots:
        r.mkdir(parents=True)
        (r / "main.tf").write_text("terraform {}\n")
    return roots


def test_files_on_no_roots_path_are_named_from_where_the_run_stands(tmp_path):
    roots = _tree(tmp_path / "repo")
    settings = Settings.from_environ({"TOFU_SOLVE_CACHE_DIR": str(tmp_path / "cache")})
    assert passed_over_policies(tmp_path / "repo", roots, None, settings) == [
        "policies/modules.policy.hcl", "policies/providers.policy.hcl"]
    # prod's own file applies to prod alone: dev only, and it is passed over
    assert "live/prod/extra.policy.hcl" in passed_over_policies(tmp_path / "repo", roots[1:], None, settings)
    # -policy replaces the repository's files: those it does not name are passed over
    named = passed_over_policies(tmp_path / "repo", roots, str(tmp_path / "repo" / "policies"), settings)
    assert named == ["tofu-solve-policy.hcl", "live/prod/extra.policy.hcl"]


def test_the_warning_names_the_files_and_the_flag_that_applies_them():
    w = passed_over_policies_warning(["policies/modules.policy.hcl", "policies/providers.policy.hcl"], None)
    assert w.summary == "Policy files applied to no root module"
    assert "policies/modules.policy.hcl, policies/providers.policy.hcl" in w and "-policy=policies" in w
    w = passed_over_policies_warning(["tofu-solve-policy.hcl"], "policies")
    assert "replaces the repository's policy files" in w
