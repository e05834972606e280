"""One line per rule (issue #84 §2): a module rule whose message names the version is one
line with the range of versions it refuses, not one line per version."""

from __future__ import annotations

from tofu_solve.explain.render import by_rule

RULE = ('the policy denies it: module_policy "terraform-aws-modules/eks/aws" "eks_tested_line" (p.policy.hcl:1): '
        "eks {v} is not on the tested line (mandatory_overridable: -policy-override=eks_tested_line lifts it)")


def test_a_rule_naming_each_version_is_one_line_with_its_versions_newest_first():
    versions = ["20.0.0", "20.10.0", "20.2.1", "20.37.2"]
    by_reason = {RULE.format(v=v): [v] for v in versions}
    by_reason["the package does not load: main.tf:3: Invalid syntax"] = ["20.1.0"]
    out = by_rule(by_reason)
    assert len(out) == 2
    shown, vs = out[0]
    assert vs == ["20.37.2", "20.10.0", "20.2.1", "20.0.0"]
    assert shown.startswith(RULE.format(v="20.37.2")) and "the message names each version" in shown
    assert out[1] == ("the package does not load: main.tf:3: Invalid syntax", ["20.1.0"])


def test_one_message_for_every_version_is_said_as_it_is():
    reason = RULE.format(v="X")
    assert by_rule({reason: ["20.1.0", "20.0.0"]}) == [(reason, ["20.1.0", "20.0.0"])]
