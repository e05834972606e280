"""Refusals a reader acts on (issue #84 §2): a module rule's refusals are one line per rule
with the versions it refuses; a provider rule that no version can pass says so plainly, names
the configuration line and the input it read (with where the input's value came from) and
what would work; ``check`` promises no move ``init`` cannot make."""

from __future__ import annotations

import json

from tests.e2e.conftest import write_root

EKS = 'module "eks" {\n  source  = "terraform-aws-modules/eks/aws"\n  version = "~> 20.0"\n}\n'
EKS_RULE = ('module_policy "terraform-aws-modules/eks/aws" "eks_tested_line" {\n'
            '  enforcement_level = "mandatory_overridable"\n  enforce {\n'
            '    condition     = core::semverconstraint(meta.version, "< 20.0.0")\n'
            '    error_message = "eks ${meta.version} is not on the tested line"\n  }\n}\n')
AWS = ('terraform {\n  required_providers {\n    aws = {\n      source  = "hashicorp/aws"\n      version = ">= 5.0"\n'
       '    }\n  }\n}\n\nprovider "aws" {\n  region = "us-east-1"\n}\n')
REGION_RULE = ('input "allowed_regions" {\n  type    = list(string)\n  default = ["eu-west-1"]\n}\n\n'
               'provider_policy "aws" "allowed_regions" {\n  enforce {\n'
               '    condition     = contains(input.allowed_regions, attrs.region)\n'
               '    error_message = "aws must be configured in an allowed region"\n  }\n}\n')


def test_a_module_rule_naming_each_version_is_one_line(tmp_path, tofu_solve):
    root = write_root(tmp_path / "r", EKS)
    (root / "p.policy.hcl").write_text(EKS_RULE)
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 1
    assert r.err.count("the policy denies it") == 1, r.err  # was one line per version refused
    line = next(ln for ln in r.err.splitlines() if "the policy denies it" in ln)
    assert line.startswith("  - 20.0.0 to 20.37.2: ") and "eks 20.37.2 is not on the tested line" in line
    assert "-policy-override=eks_tested_line" in line
    r = tofu_solve(root, "init", "-handover=false", "-verbose")  # -verbose: each version, one line each
    assert r.code == 1 and "Every version refused, one by one (-verbose):" in r.err
    assert r.err.count("is not on the tested line") > 10 and '  - module call "eks" 20.8.1: ' in r.err, r.err
    r = tofu_solve(root, "init", "-handover=false", "-json")
    error = next(d for d in map(json.loads, r.out.splitlines()) if d["type"] == "diagnostic"
                 and d["@level"] == "error")
    reasons = next(s for s in error["error"]["explanation"]["subjects"] if s.get("kind") == "unusable")
    assert len(reasons["reasons"]) > 1  # -json keeps each version's own message


def test_a_rule_no_version_can_pass_names_the_line_and_the_input_it_read(tmp_path, tofu_solve):
    root = write_root(tmp_path / "r", AWS)
    (root / "p.policy.hcl").write_text(REGION_RULE)
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 1
    said = next(ln for ln in r.err.splitlines() if "is refused by" in ln)
    assert 'every version of hashicorp/aws that ">= 5.0" allows (5.0.0 to 6.58.0)' in said, said
    assert "that no constraint admits" not in r.err
    assert 'attrs.region = "us-east-1" in provider "aws", main.tf:10' in said
    assert 'input.allowed_regions = ["eu-west-1"] (from its default (p.policy.hcl:3))' in said
    assert "-policy-input allowed_regions=VALUE" in said
    r = tofu_solve(root, "init", "-handover=false", "-policy-input", 'allowed_regions=["us-east-1"]')
    assert r.code == 0, r.err  # what the message names works
    (root / "p.policy.hcl").write_text(REGION_RULE)
    r = tofu_solve(root, "check")  # without the input: the lock fails the rule, and no version passes it
    assert r.code == 1
    assert "no version can pass this rule while what it reads stands (input.allowed_regions, attrs.region)" in r.err
    assert "moves it to the nearest allowed version" not in r.err
    r = tofu_solve(root, "check", "-policy-input", 'allowed_regions=["us-east-1"]')
    assert r.code == 0, r.err
