"""The explanation's text and data come from its facts alone (tofu_solve.explain.render reads
nothing): facts written by hand here, no context, no universe, no server."""

from __future__ import annotations

from tofu_solve.explain.facts import (
    ConstraintClash,
    ConstraintFact,
    Explanation,
    NoSuchVersion,
    SideFacts,
)
from tofu_solve.explain.render import error, grouped_constraints
from tofu_solve.explain.whatif import Lever
from tofu_solve.solver.kept_out import version_range
from tofu_solve.solver.model import Identity, Kind


def _fact(constraint, where, imposed_by="", version=""):
    file, line = where.split(":")
    return ConstraintFact("provider hashicorp/aws", constraint, imposed_by, version, where, file, int(line),
                          "the root module", f" at {where}")


def test_a_provider_clash_renders_from_facts():
    side = SideFacts("vpc", "terraform-aws-modules/vpc/aws", '"~> 6.1"', "main.tf:10", "",
                     order=["6.2.0", "6.1.0"],
                     per_version={"6.2.0": [_fact(">= 6.0", "versions.tf:5", "vpc", "6.2.0")],
                                  "6.1.0": [_fact(">= 6.0", "versions.tf:5", "vpc", "6.1.0")]},
                     not_examined={"6.0.0": "Invalid HCL"})
    clash = ConstraintClash(Identity.provider("registry.opentofu.org/hashicorp/aws"), "provider hashicorp/aws", None,
                            [("~> 5.0", _fact("~> 5.0", "main.tf:5"))], [side], [])
    levers = [Lever(Kind.MODULE, "vpc", "~> 6.1", "main.tf", 12, 0),
              Lever(Kind.PROVIDER, "registry.opentofu.org/hashicorp/aws", "~> 5.0", "main.tf", 5, 1)]
    e = error(Explanation([clash], [levers], [], None, False, 7))
    assert e.summary == "No consistent set of versions"
    assert e.detail.split("\n") == [
        "The constraints on provider hashicorp/aws cannot all be met:",
        '  - "~> 5.0" required by the root module at main.tf:5',
        '  - module "vpc" (terraform-aws-modules/vpc/aws "~> 6.1" at main.tf:10) requires, by version:',
        '      6.2.0, 6.1.0: ">= 6.0" (versions.tf:5)',
        "",
        "These cannot hold together:",
        '  - vpc "~> 6.1" (main.tf:12); hashicorp/aws "~> 5.0" (main.tf:5)',
        "",
        "No change to the version constraints of this configuration makes it solvable: the clash is inside the "
        "module versions published.",
    ]
    subject = e.explanation["subjects"][0]
    assert subject["findings"] == ['every version of vpc within "~> 6.1" (6.1.0 to 6.2.0) requires provider '
                                   'hashicorp/aws ">= 6.0" (versions.tf:5)']
    assert subject["not_examined"] == {"vpc": {"6.0.0": "Invalid HCL"}}  # said, not swallowed
    assert e.explanation["what_if_solves"] == 7
    assert subject["requirements"][0]["imposed_by"] == "root"


def test_a_call_that_matches_nothing_uses_opentofus_summary():
    facts = NoSuchVersion(Identity.module("vpc"), 'module call "vpc"', "vpc", "There is no available version ...",
                          "main.tf:3", "", "root -> vpc", "main.tf", 3)
    e = error(Explanation([facts], [], [], None, False, 0))
    assert e.summary == "Unresolvable module version constraint"
    assert e.explanation["kind"] == "no such version"
    assert e.detail.split("\n") == ["There is no available version ...", "  at main.tf:3", "  via root -> vpc"]


def test_the_lock_in_the_way_comes_first():
    e = error(Explanation([], [], [], ["vpc", "hashicorp/aws"], False, 3))
    assert e.explanation["suggestions"][0]["upgrade"] == ["vpc", "hashicorp/aws"]
    assert "run tofu-solve init -upgrade=vpc,hashicorp/aws" in e.detail


def test_shapes_of_versions_and_constraints():
    assert version_range(["3.0.0", "2.0.0", "1.0.0"]) == ["3.0.0", "2.0.0", "1.0.0"]
    assert version_range(["4.0.0", "3.0.0", "2.0.0", "1.0.0"]) == ["1.0.0 to 4.0.0"]
    assert grouped_constraints([]) == "no constraint"
    assert grouped_constraints([_fact(">= 6.0", "b.tf:1"), _fact(">= 6.0", "a.tf:2"), _fact("< 7.0", "a.tf:3")]) == \
        '"< 7.0" (a.tf:3) AND ">= 6.0" (a.tf:2, b.tf:1)'
