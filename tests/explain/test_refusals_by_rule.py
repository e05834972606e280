"""One line per reason (issue #84 §2, issue #83 §3): versions kept out for one reason are
one line with their range, whatever the reason's words say of each version; the reasons are
the one closed vocabulary of :mod:`tofu_solve.solver.kept_out`."""

from __future__ import annotations

from tofu_solve.errors import SourceRange
from tofu_solve.explain.facts import UnusableCall, UnusableVersion
from tofu_solve.explain.render import subject_part
from tofu_solve.solver.kept_out import KeptOut, Why, merged
from tofu_solve.solver.model import Identity, Kind

HEADING = 'module_policy "terraform-aws-modules/eks/aws" "eks_tested_line" (p.policy.hcl:1)'
RULE = (f"the policy denies it: {HEADING}: "
        "eks {v} is not on the tested line (mandatory_overridable: -policy-override=eks_tested_line lifts it)")


def _policy(v: str) -> KeptOut:
    return KeptOut(Why.POLICY, RULE.format(v=v), HEADING, SourceRange("p.policy.hcl", 1))


def test_a_rule_naming_each_version_is_one_line_with_its_versions_newest_first():
    versions = ["20.0.0", "20.10.0", "20.2.1", "20.37.2"]
    by_version = {v: _policy(v) for v in versions}
    by_version["20.1.0"] = KeptOut(Why.UNLOADABLE, "the package does not load: main.tf:3: Invalid syntax")
    out = merged(by_version)
    assert len(out) == 2
    assert out[0].versions == ("20.37.2", "20.10.0", "20.2.1", "20.0.0")
    shown = out[0].sentence()
    assert shown.startswith("20.0.0 to 20.37.2: " + RULE.format(v="20.37.2")) and \
        "the message names each version" in shown
    assert out[0].words["20.0.0"] == RULE.format(v="20.0.0")  # -json keeps each version's words
    assert out[1].sentence() == "20.1.0: the package does not load: main.tf:3: Invalid syntax"


def test_one_message_for_every_version_is_said_as_it_is():
    out = merged({"20.1.0": _policy("X"), "20.0.0": _policy("X")})
    assert [s.sentence() for s in out] == [f"20.1.0, 20.0.0: {RULE.format(v='X')}"]


def test_the_same_words_of_two_kinds_are_two_reasons():
    """The kind is part of what merges: a revocation and a policy rule never share a line."""
    out = merged({"2.0.0": KeptOut(Why.POLICY, "x", "r"), "1.0.0": KeptOut(Why.REVOCATION, "x", "r")})
    assert len(out) == 2


def test_the_cooldown_is_one_line_for_every_young_version():
    """Each young version's words carry its own dates; the cooldown is one reason."""
    label = "-min-age=7d"
    by_version = {v: KeptOut(Why.COOLDOWN, f"it is younger than {label}: released {d} days ago", label)
                  for v, d in (("1.2.0", 1), ("1.1.0", 3), ("1.0.0", 5), ("0.9.0", 6))}
    [said] = merged(by_version)
    assert said.sentence().startswith(f"0.9.0 to 1.2.0: it is younger than {label}: released 1 days ago") and \
        "the details differ by version" in said.sentence()


def test_the_explanation_says_each_reason_once_and_keeps_each_version_in_json():
    by_version = {v: _policy(v) for v in ["20.0.0", "20.1.0", "20.2.0", "20.3.0"]}
    lines, data = subject_part(UnusableCall(Identity(Kind.UNUSABLE, "eks"), "eks", "eks", by_version))
    assert len(lines) == 2 and lines[1].startswith("  - 20.0.0 to 20.3.0: ")
    assert data["kept_out"][0]["why"] == "policy" and data["kept_out"][0]["versions"][0] == "20.3.0"
    assert len(data["reasons"]) == 4  # each version's own words, as before


def test_what_would_work_follows_a_policy_refusal_by_its_kind_not_its_words():
    """A refusal is recognised by its kind: a revocation whose words begin like a policy's
    gets no policy advice."""
    lines, _ = subject_part(UnusableVersion(Identity(Kind.UNUSABLE, "eks", "1.0.0"), "eks", "eks", "1.0.0",
                                            _policy("1.0.0"), "main.tf:3"))
    assert any("A version or source the rule allows would" in line for line in lines)
    lines, data = subject_part(UnusableVersion(Identity(Kind.UNUSABLE, "eks", "1.0.0"), "eks", "eks", "1.0.0",
                                               KeptOut(Why.REVOCATION, "the policy denies it: looks alike"), ""))
    assert not any("the rule allows" in line for line in lines) and data["why"] == "revocation"


def test_a_revocation_and_a_policy_denial_are_each_their_own_kind():
    from tofu_solve.remote.lifecycle import Revocation
    from tofu_solve.solver.kept_out import of_refusal

    revoked = of_refusal(Revocation("registry.opentofu.org/acme/eks/aws", "1.0.0", "CVE-1", "https://x"))
    assert revoked.why is Why.REVOCATION and revoked.text.startswith("its registry revoked it: CVE-1")
    other = of_refusal(Revocation("registry.opentofu.org/acme/eks/aws", "1.1.0", "CVE-1", "https://x"))
    assert [s.versions for s in merged({"1.0.0": revoked, "1.1.0": other})] == [("1.1.0", "1.0.0")]


def test_init_json_names_each_denied_versions_kind_in_the_same_vocabulary():
    """``init -json``'s ``policy.denied``: each version's ``why`` is the explanation's."""
    from types import SimpleNamespace

    from tofu_solve.command.views.lock_view import policy_data
    from tofu_solve.remote.lifecycle import Revocation

    policy = SimpleNamespace(file="p.hcl", files=("p.hcl",), overrides=(), committed=())
    revoked = Revocation("registry.opentofu.org/acme/eks/aws", "1.0.0", "CVE-1")
    data = policy_data(policy, {("eks", "1.0.0"): revoked}, [])
    assert data is not None and data["denied"][0]["why"] == "revocation"
