"""tofu-solve init against real servers (registry over HTTP, git over git daemon and
file://), on root modules with real dependency shapes from the corpus."""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import AWS5_VPC61, VPC6_EKS20, lock_versions, write_root

AWS_5 = '''
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
  }
}
'''


def test_vpc_eks_needs_a_joint_solution(tmp_path, tofu_solve):
    root = write_root(tmp_path, VPC6_EKS20)
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    # newest-per-call would take vpc 6.6.0 (aws >= 6.28) and eks 20.37.2 (aws < 6.0.0): no aws fits.
    # tofu-solve goes back the fewest versions: eks 20.37.0 declares only aws >= 5.95.
    assert lock_versions(r.lock) == {"eks": "20.37.0", "eks.kms": "2.1.0", "vpc": "6.6.0"}
    assert "- vpc in terraform-aws-modules/vpc/aws 6.6.0" in r.out
    assert "- eks.kms in terraform-aws-modules/kms/aws 2.1.0" in r.out  # exact inner pin eks -> kms 2.1.0
    # eks 20.37.1 of the same line fenced aws 6.x off: say so
    assert re.search(r'Warning: Module "eks" is at 20\.37\.0, but 20\.37\.1 of the same line requires '
                     r'hashicorp/aws ">= 5\.95, < 6\.0\.0" \(versions\.tf:7\)', r.out)
    assert 'module "eks.kms" {\n  version     = "2.1.0"' in r.lock


def test_newest_per_call_baseline_fails_on_the_same_root(tmp_path, running, shared_cache):
    from tofu_solve.config.tree import read_module_tree
    from tofu_solve.lockfile import LockFile
    from tofu_solve.settings import Settings
    from tofu_solve.solver.baseline import newest_per_call
    from tofu_solve.solver.context import SolveOptions
    from tofu_solve.solver.wiring import build_context
    from tofu_solve.versions.target import target_version

    root = write_root(tmp_path, VPC6_EKS20)
    env = running.env(shared_cache)
    ctx = build_context(SolveOptions(target_version(None)), LockFile(), Settings.from_environ(env), None).context
    try:
        base = newest_per_call(read_module_tree(root, confine=False), ctx)
    finally:
        ctx.close()
    assert not base.ok
    assert base.modules["vpc"] == "6.6.0" and base.modules["eks"] == "20.37.2"
    assert "hashicorp/aws" in base.failure


def test_cloudposse_stack_under_aws_5(tmp_path, tofu_solve):
    root = write_root(tmp_path, AWS_5 + '''
        module "label" {
          source  = "cloudposse/label/null"
          version = "0.25.0"
        }

        module "vpc" {
          source  = "cloudposse/vpc/aws"
          version = "~> 2.0"
        }

        module "subnets" {
          source  = "cloudposse/dynamic-subnets/aws"
          version = "~> 2.0"
        }

        module "eks_cluster" {
          source  = "cloudposse/eks-cluster/aws"
          version = "~> 4.0"
        }
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    versions = lock_versions(r.lock)
    # eks-cluster 4.11.0 needs aws >= 6.42.0; 4.8.0 (>= 5.75.1) is the newest that fits ~> 5.0
    assert versions["eks_cluster"] == "4.8.0"
    assert versions["label"] == "0.25.0"


def test_impossible_root_is_explained(tmp_path, tofu_solve):
    root = write_root(tmp_path, AWS5_VPC61)
    r = tofu_solve(root, "init")
    assert r.code == 1
    assert r.lock == ""  # nothing written
    expected = '''
Error: No consistent set of versions

The constraints on provider hashicorp/aws cannot all be met:
  - "~> 5.0" required by the root module at main.tf:5
  - module "vpc" (terraform-aws-modules/vpc/aws "~> 6.1" at main.tf:12) requires, by version:
      6.6.0: ">= 6.28" (versions.tf:7)
      6.1.0 to 6.5.1: ">= 6.0" (versions.tf:7)

These cannot hold together:
  - vpc "~> 6.1" (main.tf:12); hashicorp/aws "~> 5.0" (main.tf:5)

What would work:
  - change "~> 5.0" to "~> 6.0" at main.tf:5: hashicorp/aws 6.58.0 would be selected. [fewest edits; keeps the modules]
  - change "~> 6.1" to "~> 6.0" at main.tf:12: vpc 6.0.0 would be selected; but vpc 6.0.0 is fenced off by its own line (6.0.1 requires hashicorp/aws ">= 6.0", which excludes 5.100.0). [keeps the providers]
'''
    assert expected.strip() in r.err, r.err


def test_after_solve_pass_fetches_within_its_budget(running, tmp_path):
    """The pass that looks for a solution skipping fewer versions may fetch only a few module
    versions the solve never fetched (issue #13: it once fetched 200, one at a time); a
    refused fetch is not remembered as a failure."""
    from tofu_solve.config.tree import read_module_tree
    from tofu_solve.lockfile import LockFile
    from tofu_solve.settings import Settings
    from tofu_solve.solver.context import FetchBudgetExceeded, SolveOptions
    from tofu_solve.solver.model import ModuleRequirement
    from tofu_solve.solver.resolve import root_requirements
    from tofu_solve.solver.wiring import build_context
    from tofu_solve.versions.target import target_version

    root = write_root(tmp_path / "root", 'module "kms" {\n  source  = "terraform-aws-modules/kms/aws"\n'
                                         '  version = ">= 1.0"\n}\n')
    ctx = build_context(SolveOptions(target_version("1.10.0")), LockFile(), Settings.from_environ(running.env(tmp_path / "cache")), None).context
    try:
        kms = next(r for r in root_requirements(read_module_tree(root, confine=False), ctx)
                   if isinstance(r, ModuleRequirement))
        a, b = ctx.module_candidates(kms)[:2]
        budgeted = ctx.view(fetch_budget=1)
        budgeted.tree(a)
        with pytest.raises(FetchBudgetExceeded):
            budgeted.tree(b)
        budgeted.tree(a)  # already known: free
        assert not isinstance(ctx.tree(b), Exception)  # the context itself has no budget
        assert ctx.stats.improve_fetches == 1
    finally:
        ctx.close()
