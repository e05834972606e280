"""Issue #62 §1: a ``*.policy.hcl`` file read into rules and judged against one subject, with
no solve around it: every binding, the inputs' order of precedence and types, locals across
a file and a block, label matching by package, and the errors of the subset."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tofu_solve.addrs.module_source import parse_source
from tofu_solve.config.policy import Policy, Subject, find_policies, load_policy
from tofu_solve.errors import ConfigurationError
from tofu_solve.versions.hashicorp_go_version import GoVersion

DEFAULT_HOST = "registry.opentofu.org"

NOW = datetime(2026, 11, 28, tzinfo=UTC)


def load(tmp_path, text: str, environ: dict | None = None, overrides=frozenset(), inputs=()) -> Policy:
    (tmp_path / "p.policy.hcl").write_text(text)
    policy = load_policy(tmp_path, None, environ or {}, overrides=overrides, now=lambda: NOW, inputs=inputs)
    assert policy is not None
    return policy


def failing(policy: Policy, package: str, version: str, address: str, source: str) -> list[str]:
    return [f.rule.label for f in policy.module_verdicts(package, version, Subject(address, source))]


@pytest.mark.parametrize("condition,fails", [
    ('meta.source == "terraform-aws-modules/vpc/aws"', False),  # as written in the call
    ('meta.version == "6.5.1"', False),
    ('meta.address == "module.net.module.vpc"', False),
    ("meta.tfe_stack == null", False),
    ("attrs == null", False),
    ('meta.version == "6.6.0"', True),
])
def test_module_bindings(tmp_path, condition, fails):
    policy = load(tmp_path, f'module_policy "*" "r" {{\n  enforce {{\n    condition = {condition}\n  }}\n}}\n')
    assert failing(policy, "registry.opentofu.org/terraform-aws-modules/vpc/aws", "6.5.1", "module.net.module.vpc",
                   "terraform-aws-modules/vpc/aws") == (["r"] if fails else [])


@pytest.mark.parametrize("condition", [
    'meta.source == "hashicorp/aws"', 'meta.namespace == "hashicorp"', 'meta.type == "aws"',
    'meta.name == "aws"', 'meta.version == "5.100.0"', "meta.alias == null", "attrs.region == null",
])
def test_provider_bindings(tmp_path, condition):
    """Issue #69 §1: as HashiCorp's v0.4.x examples bind them (``meta.source ==
    "hashicorp/aws"`` for a provider of the default registry)."""
    policy = load(tmp_path, f'provider_policy "aws" "r" {{\n  enforce {{\n    condition = {condition}\n  }}\n}}\n')
    assert policy.provider_verdicts("registry.opentofu.org/hashicorp/aws", "5.100.0") == []
    broken = load(tmp_path, f'provider_policy "aws" "r" {{\n  enforce {{\n    condition = !({condition})\n  }}\n}}\n')
    assert [f.rule.label for f in broken.provider_verdicts("registry.opentofu.org/hashicorp/aws", "5.100.0")] == ["r"]


@pytest.mark.parametrize("label,matches", [
    ("*", True), ("aws", True), ("hashicorp/aws", True), ("registry.opentofu.org/hashicorp/aws", True),
    ("google", False), ("aw", False),
])
def test_provider_labels(tmp_path, label, matches):
    policy = load(tmp_path, f'provider_policy "{label}" "r" {{\n  enforce {{\n    condition = false\n  }}\n}}\n')
    assert bool(policy.provider_verdicts("registry.opentofu.org/hashicorp/aws", "5.0.0")) is matches


@pytest.mark.parametrize("label,source,package,matches", [
    ("terraform-aws-modules/vpc/aws", "terraform-aws-modules/vpc/aws",
     "registry.opentofu.org/terraform-aws-modules/vpc/aws", True),
    ("registry.opentofu.org/terraform-aws-modules/vpc/aws", "terraform-aws-modules/vpc/aws",
     "registry.opentofu.org/terraform-aws-modules/vpc/aws", True),
    ("terraform-aws-modules/vpc/aws", "terraform-aws-modules/vpc/aws//modules/vpc-endpoints",
     "registry.opentofu.org/terraform-aws-modules/vpc/aws", True),  # a subdirectory of the package
    ("terraform-aws-modules/vpc", "terraform-aws-modules/vpc/aws",
     "registry.opentofu.org/terraform-aws-modules/vpc/aws", False),  # never a substring
    ("registry.terraform.io/terraform-aws-modules/vpc/aws", "terraform-aws-modules/vpc/aws",
     "registry.opentofu.org/terraform-aws-modules/vpc/aws", False),  # another registry
    ("git::https://example.com/acme/net.git", "git::https://example.com/acme/net.git?ref=v1.2.0",
     "git::https://example.com/acme/net.git", True),  # any ref
    ("git::https://example.com/acme/net.git", "git::https://example.com/acme/other.git?ref=v1.2.0",
     "git::https://example.com/acme/other.git", False),
])
def test_module_labels_match_by_package(tmp_path, label, source, package, matches):
    policy = load(tmp_path, f'module_policy "{label}" "r" {{\n  enforce {{\n    condition = false\n  }}\n}}\n')
    assert bool(failing(policy, package, "1.2.0", "module.x", source)) is matches


INPUT = '''
input "floor" {
  type    = string
  default = "1.0.0"
}
module_policy "*" "r" {
  enforce {
    condition     = core::semverconstraint(meta.version, ">= ${input.floor}")
    error_message = "below ${input.floor}"
  }
}
'''


@pytest.mark.parametrize("environ,flags,floor", [
    ({}, (), "1.0.0"),  # the default
    # an environment variable with the input's exact name is never read (issue #67 §2: v0.3.x
    # read it, v0.4.x does not, and a pull request's policy would read the job's secrets)
    ({"floor": "2.0.0"}, (), "1.0.0"),
    ({"TFPOLICY_INPUT_floor": "3.0.0"}, (), "3.0.0"),
    ({"TFPOLICY_INPUT_floor": "3.0.0"}, ("floor=4.0.0",), "4.0.0"),  # -policy-input first, as tfpolicy -input
    ({}, ("floor=2.0.0", "floor=5.0.0"), "5.0.0"),  # the last one given
])
def test_inputs_in_their_order_of_precedence(tmp_path, environ, flags, floor):
    policy = load(tmp_path, INPUT, environ, inputs=flags)
    assert [f.reason for f in policy.module_verdicts("p", "0.9.0", None)] == [f"below {floor}"]


def test_an_input_named_after_a_secret_reads_no_secret(tmp_path):
    """Issue #67 §2: ``input "TF_TOKEN_app_terraform_io"`` gets no value from that variable."""
    text = INPUT.replace('"floor"', '"TF_TOKEN_app_terraform_io"').replace("input.floor", "input.TF_TOKEN_app_terraform_io")
    policy = load(tmp_path, text, {"TF_TOKEN_app_terraform_io": "secret-token", "GITHUB_TOKEN": "x"})
    assert [f.reason for f in policy.module_verdicts("p", "0.9.0", None)] == ["below 1.0.0"]
    without_default = text.replace('  default = "1.0.0"\n', "")
    with pytest.raises(ConfigurationError) as e:
        load(tmp_path, without_default, {"TF_TOKEN_app_terraform_io": "secret-token"})
    assert e.value.summary == "No value for required input" and "secret-token" not in str(e.value)


@pytest.mark.parametrize("given", ["floor", "=1", "not an id=1"])
def test_a_malformed_policy_input_is_refused(tmp_path, given):
    with pytest.raises(ConfigurationError, match="Invalid -policy-input"):
        load(tmp_path, INPUT, {}, inputs=(given,))


def test_typed_inputs_from_the_environment(tmp_path):
    text = '''
input "allowed" {
  type = list(string)
}
input "strict" {
  type = bool
}
module_policy "*" "r" {
  enforce {
    condition = !input.strict || contains(input.allowed, meta.source)
  }
}
'''
    policy = load(tmp_path, text, {"TFPOLICY_INPUT_allowed": '["a/b/c"]', "TFPOLICY_INPUT_strict": "true"})
    assert failing(policy, "p", "1.0.0", "module.x", "a/b/c") == []
    assert failing(policy, "p", "1.0.0", "module.x", "d/e/f") == ["r"]
    with pytest.raises(ConfigurationError) as e:
        load(tmp_path, text, {"TFPOLICY_INPUT_allowed": "a/b/c", "TFPOLICY_INPUT_strict": "true"})
    assert e.value.summary == "Invalid value for input" and e.value.where.line == 2


def test_locals_of_the_file_and_the_block_in_any_order(tmp_path):
    policy = load(tmp_path, '''
locals {
  floor = local.major
  major = "6.0.0"
}
module_policy "*" "r" {
  locals {
    major = "7.0.0"
  }
  enforce {
    condition     = core::semverconstraint(meta.version, ">= ${local.floor}")
    error_message = "below ${local.floor}"
  }
}
''')
    # the block's local shadows the file's, and the file's floor reads it (one scope per block)
    assert [f.reason for f in policy.module_verdicts("p", "6.5.0", None)] == ["below 7.0.0"]


def test_a_local_that_needs_itself_is_an_error(tmp_path):
    policy = load(tmp_path, 'locals {\n  a = local.b\n  b = local.a\n}\nmodule_policy "*" "r" {\n  enforce {\n'
                            "    condition = local.a\n  }\n}\n")
    with pytest.raises(ConfigurationError) as e:
        policy.module_verdicts("p", "1.0.0", None)
    assert e.value.summary == "Cycle in local values"


def test_info_messages_and_every_failing_error_message(tmp_path):
    policy = load(tmp_path, '''
module_policy "*" "r" {
  enforce {
    condition     = false
    error_message = "one"
    info_message  = "checked ${meta.version}"
  }
  enforce {
    condition     = true
    error_message = "never"
  }
  enforce {
    condition = 1 == 2
  }
}
''')
    (f,) = policy.module_verdicts("p", "1.0.0", None)
    assert f.reason == "one; condition 1 == 2 is false"
    assert policy.hcl_rules[0].judge({"version": "1.0.0"}).info == ("checked 1.0.0",)


def test_levels_and_overrides(tmp_path):
    text = 'module_policy "*" "r" {{\n  enforcement_level = "{}"\n  enforce {{\n    condition = false\n  }}\n}}\n'
    for level, denied in [("mandatory", True), ("mandatory_overridable", True), ("advisory", False)]:
        policy = load(tmp_path, text.format(level))
        assert (policy.module_denial("p", "1.0.0", None) is not None) is denied
    provider_text = text.replace('module_policy "*"', 'provider_policy "*"')
    for level, denied in [("mandatory", True), ("mandatory_overridable", True), ("advisory", False)]:
        policy = load(tmp_path, provider_text.format(level))  # the same levels for providers
        assert (policy.provider_denial("registry.opentofu.org/hashicorp/aws", "5.0.0") is not None) is denied
    overridden = load(tmp_path, text.format("mandatory_overridable"), overrides=frozenset({"r"}))
    assert overridden.module_denial("p", "1.0.0", None) is None
    assert [f.overridden for f in overridden.module_verdicts("p", "1.0.0", None)] == [True]
    with pytest.raises(ConfigurationError) as e:
        load(tmp_path, text.format("mandatory"), overrides=frozenset({"r"}))
    assert "only a mandatory_overridable rule can be overridden" in e.value.detail


def test_policy_files_are_found_beside_each_other(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "tofu-solve-policy.hcl").write_text("release_cooldown = \"1d\"\n")
    (tmp_path / "b.policy.hcl").write_text("")
    (tmp_path / "a.policy.hcl").write_text("")
    root = tmp_path / "live" / "prod"
    root.mkdir(parents=True)
    assert [p.name for p in find_policies(root, None, {})] == ["tofu-solve-policy.hcl", "a.policy.hcl",
                                                               "b.policy.hcl"]
    policy = load_policy(root, None, {})
    assert policy is not None and policy.files == ("../../tofu-solve-policy.hcl", "../../a.policy.hcl",
                                                   "../../b.policy.hcl")
    assert policy.min_age == 86400
    assert [p.name for p in find_policies(root, str(tmp_path), {})] == ["tofu-solve-policy.hcl", "a.policy.hcl",
                                                                        "b.policy.hcl"]  # -policy=DIR
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigurationError) as e:
        find_policies(root, str(tmp_path / "empty"), {})
    assert e.value.summary == "No policy files found"


# The reference's kinds of example, as teams write them (policy-lifecycle-reference.md §1).
ALLOW_LIST = '''
input "allowed_prefixes" {
  type    = list(string)
  default = ["terraform-aws-modules/", "app.terraform.io/acme/"]
}
module_policy "*" "approved_sources" {
  filter = !startswith(meta.source, "./") && !startswith(meta.source, "../")
  enforce {
    condition     = anytrue([for p in input.allowed_prefixes : startswith(meta.source, p)])
    error_message = "${meta.address} uses ${meta.source}, which is not an approved source."
  }
}
'''

NO_PRERELEASE = '''
module_policy "*" "no_prerelease" {
  filter = meta.version != null
  enforce {
    condition     = !can(regex("-", meta.version))
    error_message = "Prerelease ${meta.version} is not allowed."
  }
}
'''

PROVIDER_RANGE = '''
provider_policy "aws" "aws_range" {
  locals {
    meets_minimum = core::semverconstraint(meta.version, ">= 5.0.0")
    below_next    = core::semvercmp(meta.version, "7.0.0") < 0
  }
  enforce {
    condition     = local.meets_minimum && local.below_next
    error_message = "aws ${meta.version} is outside >= 5.0.0, < 7.0.0."
  }
}
'''


@pytest.mark.parametrize("source,address,allowed", [
    ("terraform-aws-modules/vpc/aws", "module.vpc", True),
    ("app.terraform.io/acme/net/aws", "module.net", True),
    ("cloudposse/label/null", "module.label", False),
    ("./modules/local", "module.local", True),  # local paths are filtered out
])
def test_a_source_allow_list(tmp_path, source, address, allowed):
    policy = load(tmp_path, ALLOW_LIST)
    found = policy.module_verdicts("p", "1.0.0" if not source.startswith(".") else None, Subject(address, source))
    assert (not found) is allowed
    if not allowed:
        assert found[0].reason == f"{address} uses {source}, which is not an approved source."


@pytest.mark.parametrize("version,allowed", [("0.25.0", True), ("0.25.0-rc.1", False), (None, True)])
def test_no_prerelease(tmp_path, version, allowed):
    assert (not load(tmp_path, NO_PRERELEASE).module_verdicts("p", version, None)) is allowed


@pytest.mark.parametrize("version,allowed", [("4.67.0", False), ("5.0.0", True), ("6.58.0", True),
                                             ("7.0.0", False)])
def test_a_provider_version_range(tmp_path, version, allowed):
    found = load(tmp_path, PROVIDER_RANGE).provider_verdicts("registry.opentofu.org/hashicorp/aws", version)
    assert (not found) is allowed


# --------------------------------------------------------------------------- one policy for the repository (#67 §8)


TOP_POLICY = '''
sources {
  allow = ["terraform-aws-modules/*"]
}
deny "module" "registry.opentofu.org/terraform-aws-modules/vpc/aws" {
  versions = ">= 6.6.0"
  reason   = "6.6 breaks the NAT gateways"
}
'''


def repository(tmp_path: Path) -> Path:
    """A repository whose top holds the team's policy, and a root module two levels down."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "tofu-solve-policy.hcl").write_text(TOP_POLICY)
    root = tmp_path / "envs" / "prod"
    root.mkdir(parents=True)
    return root


def test_every_policy_file_from_the_top_of_the_repository_down_applies(tmp_path):
    root = repository(tmp_path)
    (root / "local.policy.hcl").write_text('module_policy "*" "near" {\n  enforce {\n'
                                           '    condition = meta.version != "6.5.0"\n  }\n}\n')
    policy = load_policy(root, None, {})
    assert policy is not None
    assert policy.files == ("../../tofu-solve-policy.hcl", "local.policy.hcl")
    vpc = "registry.opentofu.org/terraform-aws-modules/vpc/aws"
    assert policy.module_denial(vpc, GoVersion.parse("6.6.0")) is not None  # the top's deny block
    assert policy.module_denial(vpc, GoVersion.parse("6.5.0")) is not None  # the near rule
    assert policy.module_denial(vpc, GoVersion.parse("6.4.0")) is None


def test_a_nearer_file_cannot_widen_an_allow_list_above(tmp_path):
    root = repository(tmp_path)
    (root / "tofu-solve-policy.hcl").write_text('sources {\n  allow = ["*"]\n}\n')
    policy = load_policy(root, None, {})
    assert policy is not None
    assert policy.files == ("../../tofu-solve-policy.hcl", "tofu-solve-policy.hcl")
    refused = policy.source_refusal(parse_source("cloudposse/label/null", DEFAULT_HOST))
    assert refused is not None and policy.refusal_words(refused[0]).startswith(
        "not in sources.allow at ../../tofu-solve-policy.hcl:3")
    # ...and its deny block still applies
    assert policy.module_denial("registry.opentofu.org/terraform-aws-modules/vpc/aws", GoVersion.parse("6.6.0"))


def test_the_runners_policy_replaces_the_repositorys(tmp_path):
    root = repository(tmp_path)
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "only.policy.hcl").write_text('module_policy "*" "ci" {\n  enforce {\n'
                                                     '    condition = true\n  }\n}\n')
    policy = load_policy(root, str(tmp_path / "ci"), {})
    assert policy is not None and policy.files == ("../../ci/only.policy.hcl",)
    assert load_policy(root, "none", {}) is None


def test_outside_a_repository_the_nearest_directory_with_policy_files_applies(tmp_path):
    (tmp_path / "tofu-solve-policy.hcl").write_text(TOP_POLICY)
    root = tmp_path / "r"
    root.mkdir()
    (root / "x.policy.hcl").write_text('module_policy "*" "x" {\n  enforce {\n    condition = true\n  }\n}\n')
    policy = load_policy(root, None, {})
    assert policy is not None and policy.files == ("x.policy.hcl",)


def test_an_override_lifts_only_the_overridable_rule_its_label_names(tmp_path):
    """Issue #69 §2: a mandatory rule sharing the label of an overridable one in another file
    (or of the other block kind) is never lifted; the label is refused as ambiguous."""
    (tmp_path / "a.policy.hcl").write_text('provider_policy "*" "pin" {\n  enforcement_level = '
                                           '"mandatory_overridable"\n  enforce {\n    condition = true\n  }\n}\n')
    (tmp_path / "b.policy.hcl").write_text('module_policy "*" "pin" {\n  enforce {\n'
                                           '    condition = core::semverconstraint(meta.version, "< 6.6.0")\n  }\n}\n')
    with pytest.raises(ConfigurationError) as e:
        load_policy(tmp_path, None, {}, overrides=frozenset({"pin"}), now=lambda: NOW)
    assert e.value.summary == "Ambiguous -policy-override"
    assert 'module_policy "*" "pin" (b.policy.hcl:1, mandatory)' in e.value.detail
    assert 'provider_policy "*" "pin" (a.policy.hcl:1, mandatory_overridable)' in e.value.detail
    # and the one place that decides what an override lifts never lifts a mandatory rule
    policy = load_policy(tmp_path, None, {}, now=lambda: NOW)
    assert policy is not None
    lifted = replace(policy, overrides=frozenset({"pin"}))
    assert lifted.module_denial("registry.opentofu.org/terraform-aws-modules/vpc/aws", "6.6.0", None) is not None


@pytest.mark.parametrize("given, near", [("aws_range", "aws_tested_range"), ("aws_testd_range", "aws_tested_range"),
                                         ("gcp", None)])
def test_a_wrong_override_label_names_the_near_one(tmp_path, given, near):
    text = ('provider_policy "aws" "aws_tested_range" {\n  enforcement_level = "mandatory_overridable"\n'
            '  enforce {\n    condition = true\n  }\n}\n')
    with pytest.raises(ConfigurationError) as e:
        load(tmp_path, text, overrides=frozenset({given}))
    assert (f'Did you mean "{near}"?' in e.value.detail) if near else ("Did you mean" not in e.value.detail)


def test_meta_source_keeps_the_host_of_another_registry(tmp_path):
    policy = load(tmp_path, 'provider_policy "*" "r" {\n  enforce {\n    condition = meta.source == '
                  '"registry.example.com/acme/aws"\n  }\n}\n')
    assert policy.provider_verdicts("registry.example.com/acme/aws", "1.0.0") == []
    assert policy.provider_verdicts("registry.opentofu.org/acme/aws", "1.0.0") != []


@pytest.mark.parametrize("written", ["terraform-aws-modules/iam/aws//modules/role",
                                     "registry.opentofu.org/terraform-aws-modules/iam/aws//modules/role"])
def test_a_module_source_reads_alike_as_written_and_as_locked(tmp_path, written):
    """Issue #69 §2: init binds the call's source as written, check the lock's recorded one;
    both give the default registry's address without its host, so they judge alike."""
    policy = load(tmp_path, 'module_policy "*" "ns" {\n  enforce {\n    condition = startswith(meta.source, '
                  '"terraform-aws-modules/")\n  }\n}\n')
    assert failing(policy, "registry.opentofu.org/terraform-aws-modules/iam/aws", "5.60.0", "module.r", written) == []


def test_a_policy_test_file_holds_a_bounded_number_of_mocks(tmp_path):
    """Issue #80 §5: 4000 mocks took 15 s; past MAX_MOCKS the file is refused at that mock."""
    from datetime import UTC, datetime

    from tofu_solve.config.policy_test import MAX_MOCKS, read_policy_test

    mock = 'module "terraform-aws-modules/vpc/aws" "m{}" {{\n  meta = {{\n    source = "x"\n  }}\n}}\n'
    f = tmp_path / "many.policytest.hcl"
    f.write_text("".join(mock.format(i) for i in range(MAX_MOCKS + 1)))
    with pytest.raises(ConfigurationError) as e:
        read_policy_test(f, f.name, None, lambda: datetime.now(UTC))
    assert e.value.summary == "Too many mocks" and e.value.where.line == 5 * MAX_MOCKS + 1
