"""``policy test`` anywhere (issue #84 §3): outside a git repository the folder that holds the
policies is the boundary its tests' targets may not leave; inside one, the repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from tofu_solve.command.policy import run_tests
from tofu_solve.errors import ConfigurationError
from tofu_solve.settings import Settings

RULE = ('module_policy "*" "not_6_6_0" {\n  enforce {\n    condition = meta.version != "6.6.0"\n'
        '    error_message = "a bad release"\n  }\n}\n')


MOCKS = ('module "a/b/c" "ok" {\n  meta = {\n    version = "1.0.0"\n  }\n}\n'
         'module "a/b/c" "bad" {\n  expect_failure = true\n  meta = {\n    version = "6.6.0"\n  }\n}\n')


def _policies(top: Path, target: str) -> Path:
    (top / "policies" / "tests").mkdir(parents=True)
    (top / "policies" / "modules.policy.hcl").write_text(RULE)
    (top / "policies" / "tests" / "m.policytest.hcl").write_text(f'policytest {{\n  targets = ["{target}"]\n}}\n'
                                                                   + MOCKS)
    return top / "policies"


def test_a_copy_of_the_policies_outside_git_is_tested_as_inside(tmp_path):
    policies = _policies(tmp_path / "copy", "../modules.policy.hcl")
    results, _ = run_tests(policies, policies, [], Settings.from_environ({}), base=tmp_path)
    assert [(r.ok, r.failed) for r in results] == [(True, False), (True, True)]


def test_outside_git_a_target_may_not_leave_the_policies_folder(tmp_path):
    (tmp_path / "copy").mkdir()
    (tmp_path / "copy" / "elsewhere.policy.hcl").write_text(RULE)
    policies = _policies(tmp_path / "copy", "../../elsewhere.policy.hcl")
    with pytest.raises(ConfigurationError) as e:
        run_tests(policies, policies, [], Settings.from_environ({}), base=tmp_path)
    assert e.value.summary == "Target outside the repository"
    assert "the folder that holds the policies" in e.value.detail and e.value.where.line == 2


def test_inside_git_the_repository_is_the_boundary(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "elsewhere.policy.hcl").write_text(RULE)
    policies = _policies(repo, "../../elsewhere.policy.hcl")  # leaves policies/, not the repository
    results, _ = run_tests(policies, policies, [], Settings.from_environ({}), base=repo)
    assert [(r.ok, r.failed) for r in results] == [(True, False), (True, True)]
    (tmp_path / "outside.policy.hcl").write_text(RULE)
    (policies / "tests" / "m.policytest.hcl").write_text(
        'policytest {\n  targets = ["../../../outside.policy.hcl"]\n}\nmodule "a/b/c" "ok" {}\n')
    with pytest.raises(ConfigurationError, match="the repository that holds this test file"):
        run_tests(policies, policies, [], Settings.from_environ({}), base=repo)


def test_a_mocks_own_inputs_come_before_the_files(tmp_path):
    """Issue #83 §1, where a test's inputs are put together (``run_tests``): a mock's
    ``inputs {}`` decides over the test file's, which decides over the input's default."""
    top = tmp_path / "p"
    (top / "tests").mkdir(parents=True)
    (top / "floor.policy.hcl").write_text(
        'input "floor" {\n  type = string\n  default = "1.0.0"\n}\n'
        'module_policy "*" "floor" {\n  enforce {\n'
        '    condition = core::semverconstraint(meta.version, ">= ${input.floor}")\n'
        '    error_message = "below the floor"\n  }\n}\n')
    (top / "tests" / "f.policytest.hcl").write_text(
        'policytest {\n  targets = ["../floor.policy.hcl"]\n}\n'
        'inputs {\n  floor = "2.0.0"\n}\n'
        'module "a/b/c" "file_floor" {\n  expect_failure = true\n  meta = {\n    version = "1.5.0"\n  }\n}\n'
        'module "a/b/c" "own_floor" {\n  inputs {\n    floor = "1.0.0"\n  }\n'
        '  meta = {\n    version = "1.5.0"\n  }\n}\n')
    results, _ = run_tests(top, top, [], Settings.from_environ({}), base=tmp_path)
    assert [(r.ok, r.failed) for r in results] == [(True, True), (True, False)]
