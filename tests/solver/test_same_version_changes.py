"""Issue #83 §1: what changed in a module block whose version stays (issue #50 §5), where the
change list's reason is made (``solver.changes.module_same_version_change``): each part
named, never "source or hashes recorded"."""

from __future__ import annotations

from dataclasses import replace

from tofu_solve.lockfile import ModuleLock
from tofu_solve.solver.changes import module_same_version_change

OLD = ModuleLock("vpc", "6.5.1", "terraform-aws-modules/vpc/aws", "~> 6.0", ("h1:a",),
                 "git::https://h/vpc.git?ref=" + "a" * 40, False)


def test_each_part_of_a_same_version_change_is_named():
    assert module_same_version_change(OLD, OLD) == ""
    assert module_same_version_change(OLD, replace(OLD, package="git::https://h/vpc.git?ref=" + "b" * 40)) == \
        "package changed"
    assert module_same_version_change(replace(OLD, package=""), OLD) == "package recorded"
    assert module_same_version_change(OLD, replace(OLD, constraints="~> 6.5", hashes=("h1:b",))) == \
        'constraint "~> 6.0" -> "~> 6.5" recorded, hashes recorded'
    assert module_same_version_change(OLD, replace(OLD, source="terraform-aws-modules/vpc/aws//sub")) == \
        "source terraform-aws-modules/vpc/aws -> terraform-aws-modules/vpc/aws//sub"
