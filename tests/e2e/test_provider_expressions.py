"""Terraform 1.17's const variables and locals in ``required_providers`` through ``init``
and ``why`` (issue #82 §3): locked with the value the variable gives, the variable named
where the constraint is explained, and refused for a target before 1.17."""

from __future__ import annotations

from tests.e2e.conftest import write_root
from tofu_solve.lockfile import parse_lock_text

ROOT = '''
variable "aws_floor" {
  const   = true
  default = "~> 5.90"
}

terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = var.aws_floor
    }
  }
}
'''
AWS = "registry.terraform.io/hashicorp/aws"


def test_a_terraform_1_17_root_locks_what_its_variable_says(isolated, tofu_solve):
    root = write_root(isolated / "root", ROOT)
    (root / ".terraform-version").write_text("1.17.0\n")
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    locks, _ = parse_lock_text(r.lock)
    assert locks.providers[AWS].constraints == "~> 5.90" and locks.providers[AWS].version == "5.100.0"
    why = tofu_solve(root, "why", "hashicorp/aws")
    assert why.code == 0, why.err
    assert "from version = var.aws_floor (its default, main.tf:3)" in why.out
    # a value given from outside is the constraint, and named as such
    r = tofu_solve(root, "init", "-handover=false", "-var=aws_floor=~> 5.95.0", "-upgrade")
    assert r.code == 0, r.err
    assert parse_lock_text(r.lock)[0].providers[AWS].constraints == "~> 5.95.0"


def test_before_1_17_the_same_root_is_refused_at_the_line(isolated, tofu_solve):
    root = write_root(isolated / "root", ROOT)
    (root / ".terraform-version").write_text("1.15.5\n")
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 1
    assert "Error: Invalid version constraint" in r.err and "main.tf line 10" in r.err
    assert "var.aws_floor" in r.err and not (root / ".terraform.lock.hcl").exists()
