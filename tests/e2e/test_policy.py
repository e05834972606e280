"""Issue #39: a team's module policy applied while solving, against the fixture world: a
denied version skipped and named, a call whose allowed versions are all denied explained
with the rule, refused sources, a denied provider version, and a committed lock that today's
policy denies caught by ``check``."""

from __future__ import annotations

import json

import pytest

from tests.e2e.conftest import lock_versions, write_root
from tofu_solve.config.policy import find_policy, read_policy
from tofu_solve.errors import ConfigurationError

VPC = '''
module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 6.0"
}
'''

DENY_VPC_660 = '''
deny "module" "terraform-aws-modules/vpc/aws" {
  versions = "6.6.0"
  reason   = "breaks the NAT gateways"
  link     = "https://example.com/incidents/42"
}
'''


def test_a_denied_version_is_not_a_candidate_and_is_named(tmp_path, tofu_solve):
    root = write_root(tmp_path / "repo" / "envs" / "prod", VPC)
    (tmp_path / "repo" / "tofu-solve-policy.hcl").write_text(DENY_VPC_660)  # found from the root upward
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"vpc": "6.5.1"}  # the newest the policy allows
    assert ('Warning: module "vpc" is at 6.5.1, not: 6.6.0, denied by deny "module" '
            '"registry.opentofu.org/terraform-aws-modules/vpc/aws" at ../../tofu-solve-policy.hcl:2: breaks the NAT '
            "gateways (https://example.com/incidents/42).") in r.out
    # without the policy (-policy=none), the newest
    assert lock_versions(tofu_solve(root, "init", "-handover=false", "-upgrade", "-policy=none").lock) == \
        {"vpc": "6.6.0"}


def test_only_denied_versions_left_is_a_conflict_naming_the_rule(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", VPC.replace('"~> 6.0"', '"6.6.0"'))
    (tmp_path / "root" / "tofu-solve-policy.hcl").write_text(DENY_VPC_660)
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 1
    assert "the policy denies it" in r.err and "tofu-solve-policy.hcl:2" in r.err, r.err
    assert "main.tf" in r.err  # beside the constraint that pins it
    assert not (root / ".terraform.lock.hcl").exists()


def test_a_refused_source_is_an_error_at_the_call(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", VPC)
    policy = tmp_path / "policy.hcl"
    policy.write_text('sources {\n  allow = ["cloudposse/*/*"]\n}\n')
    r = tofu_solve(root, "init", "-handover=false", f"-policy={policy}")
    assert r.code == 1
    assert "Error: Module source refused by policy" in r.err and "on main.tf line 2" in r.err
    assert "not in sources.allow at" in r.err
    policy.write_text('sources {\n  deny = ["terraform-aws-modules/vpc/*"]\n}\n')
    r = tofu_solve(root, "init", "-handover=false", f"-policy={policy}")
    assert r.code == 1 and 'sources.deny "registry.opentofu.org/terraform-aws-modules/vpc/*"' in r.err


def test_a_denied_provider_version_is_skipped(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", '''
        terraform {
          required_providers {
            aws = {
              source  = "hashicorp/aws"
              version = "~> 5.0"
            }
          }
        }
    ''')
    free = tofu_solve(root, "init", "-handover=false", "-policy=none")
    assert free.code == 0, free.err
    newest = json.loads(tofu_solve(root, "init", "-handover=false", "-json", "-policy=none").out.strip()
                        .splitlines()[-1])["result"]["providers"]
    top = next(p["version"] for p in newest if p["address"].endswith("hashicorp/aws"))
    (root / "tofu-solve-policy.hcl").write_text(f'deny "provider" "hashicorp/aws" {{\n  versions = "{top}"\n'
                                                f'  reason   = "GHSA-test"\n}}\n')
    r = tofu_solve(root, "init", "-handover=false", "-upgrade")
    assert r.code == 0, r.err
    assert f'version     = "{top}"' not in r.lock and 'provider "registry.opentofu.org/hashicorp/aws"' in r.lock
    assert "GHSA-test" in r.out + r.err


def test_check_catches_a_lock_that_todays_policy_denies(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", VPC)
    assert tofu_solve(root, "init", "-handover=false").code == 0
    assert tofu_solve(root, "check").code == 0
    (root / "tofu-solve-policy.hcl").write_text(DENY_VPC_660)  # a rule added after the lock was committed
    r = tofu_solve(root, "check")
    assert r.code == 1
    assert 'module "vpc": is locked at 6.6.0, which the policy denies' in r.err
    assert "breaks the NAT gateways" in r.err and "tofu-solve init -upgrade=vpc" in r.err
    data = tofu_solve(root, "check", "-json").json()
    assert [d["kind"] for d in data["differences"]] == ["policy"]
    assert data["differences"][0]["file"].endswith("tofu-solve-policy.hcl") and data["differences"][0]["line"] == 2
    moved = tofu_solve(root, "init", "-handover=false", "-upgrade=vpc")
    assert moved.code == 0 and lock_versions(moved.lock) == {"vpc": "6.5.1"}
    assert tofu_solve(root, "check").code == 0


@pytest.mark.parametrize("text,summary,line", [
    ('deny "module" "a/b/c" {\n  reason = "x"\n}\n', "Missing required argument", 1),
    ('deny "module" "a/b/c" {\n  versions = "~> not"\n  reason = "x"\n}\n', "Invalid version constraint", 2),
    ('deny "provider" "a/b/c/d" {\n  versions = "1.0.0"\n  reason = "x"\n}\n', "Invalid provider source address", 1),
    ('sources {\n  allow = "x"\n}\n', "Invalid policy value", 2),
    ('allow = ["x"]\n', "Unsupported argument", 1),
    ('permit "x" {\n}\n', "Unsupported block type", 1),
    ('deny "module" "a/b/c" {\n  versions = "1.0.0"\n  reason = "x"\n  why = "y"\n}\n', "Unsupported argument", 4),
])
def test_policy_file_errors_name_file_and_line(tmp_path, text, summary, line):
    p = tmp_path / "tofu-solve-policy.hcl"
    p.write_text(text)
    with pytest.raises(ConfigurationError) as e:
        read_policy(p, "tofu-solve-policy.hcl")
    assert (e.value.summary, e.value.where.file, e.value.where.line) == (summary, "tofu-solve-policy.hcl", line)


def test_the_policy_file_is_found_upward_and_named_by_flag_or_variable(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "tofu-solve-policy.hcl").write_text("")
    assert find_policy(tmp_path / "a" / "b", None, {}) == tmp_path / "tofu-solve-policy.hcl"
    other = tmp_path / "other.hcl"
    other.write_text("")
    assert find_policy(tmp_path / "a", None, {"TOFU_SOLVE_POLICY": str(other)}) == other
    assert find_policy(tmp_path / "a", "none", {"TOFU_SOLVE_POLICY": str(other)}) is None  # the flag wins
    with pytest.raises(ConfigurationError, match="Policy file not found"):
        find_policy(tmp_path, str(tmp_path / "missing.hcl"), {})
