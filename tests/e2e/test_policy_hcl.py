"""Issue #62 §1-2: HashiCorp's policy files (``*.policy.hcl``) applied to every candidate
while solving, against the fixture world: each enforcement level, an override, a policy that
cuts every candidate (explained), a rule on ``meta.address`` decided inside the tree, a
provider rule, inputs from the environment, and ``check`` on a committed lock.

The examples are the reference's (``../shared/docs/policy-lifecycle-reference.md`` §1; the
v0.3.x ``module-policy.mdx`` "version_and_source_check" example and the
``semverconstraint.mdx`` provider example)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.conftest import lock_versions, write_root

VPC = '''
module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 6.0"
}
'''

# The reference's example, with its floor turned into a ceiling the fixture world can show.
CEILING = '''
module_policy "*" "version_and_source_check" {
  enforcement_level = "{level}"
  filter            = meta.version != null
  locals {
    max_version = "6.6.0"
  }
  enforce {
    condition     = core::semverconstraint(meta.version, "< ${local.max_version}")
    error_message = "Module version must be below ${local.max_version}, not ${meta.version}."
  }
}
'''


def policy(level: str) -> str:
    return CEILING.replace("{level}", level)


def result(run) -> dict:
    return json.loads(run.out.strip().splitlines()[-1])["result"]


def test_mandatory_rule_keeps_failing_versions_out_and_names_itself(tmp_path, tofu_solve):
    root = write_root(tmp_path / "repo" / "live", VPC)
    (tmp_path / "repo" / "versions.policy.hcl").write_text(policy("mandatory"))  # found upward, as the old file
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"vpc": "6.5.1"}
    said = " ".join(r.out.split())
    assert ('module_policy "*" "version_and_source_check" (../versions.policy.hcl:2) held back vpc at 6.5.1 '
            "(kept out: 6.6.0): Module version must be below 6.6.0, not 6.6.0.") in said, said
    assert "6.6.0.." not in said
    # why, outdated and list name the rule as they name a deny block
    why = " ".join(tofu_solve(root, "why", "vpc").out.split())
    assert '6.6.0: the policy denies it: module_policy "*" "version_and_source_check" (../versions.policy.hcl:2)' in why, why
    assert "version_and_source_check" in json.dumps(tofu_solve(root, "outdated", "-json").json())
    listed = tofu_solve(root, "list", "-json").json()
    vpc = next(i for i in listed["items"] if i["kind"] == "module")
    assert vpc["policy"] == "allowed"  # 6.5.1 passes
    data = result(tofu_solve(root, "init", "-handover=false", "-json", "-upgrade"))
    assert data["policy"]["files"] == ["../versions.policy.hcl"]
    assert data["policy"]["denied"] == [{"subject": "vpc", "version": "6.6.0", "why": "policy", "rule": {
        "kind": "module", "subject": "*", "policy": "version_and_source_check", "level": "mandatory",
        "overridden": False, "reason": "Module version must be below 6.6.0, not 6.6.0.", "link": None,
        "file": "../versions.policy.hcl", "line": 2}}]


def test_a_policy_that_cuts_every_candidate_is_explained(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", VPC.replace('"~> 6.0"', '"6.6.0"'))
    (root / "versions.policy.hcl").write_text(policy("mandatory"))
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 1
    assert 'module_policy "*" "version_and_source_check" (versions.policy.hcl:2)' in r.err, r.err
    assert "Module version must be below 6.6.0, not 6.6.0." in r.err
    assert 'change "6.6.0" to "6.5.1" at main.tf:3' in r.err  # a fix that works, verified under the policy
    assert not (root / ".terraform.lock.hcl").exists()


def test_an_overridable_rule_fails_until_overridden_by_its_label(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", VPC.replace('"~> 6.0"', '"6.6.0"'))
    (root / "versions.policy.hcl").write_text(policy("mandatory_overridable"))
    refused = tofu_solve(root, "init", "-handover=false")
    assert refused.code == 1
    assert ("Module version must be below 6.6.0, not 6.6.0. (mandatory_overridable: "
            "-policy-override=version_and_source_check lifts it)") in " ".join(refused.err.split()), refused.err
    wrong = tofu_solve(root, "init", "-handover=false", "-policy-override=version_and_source_chek")
    assert wrong.code == 1 and 'Did you mean "version_and_source_check"?' in wrong.err, wrong.err
    r = tofu_solve(root, "init", "-handover=false", "-policy-override=version_and_source_check")
    assert r.code == 0, r.err
    assert "+ module \"vpc\" 6.6.0: new module call (main.tf:1); allowed by -policy-override=version_and_source_check" \
        in r.out, r.out
    listed = tofu_solve(root, "list", "-json").json()  # without the override the locked version is denied
    assert next(i for i in listed["items"] if i["kind"] == "module")["policy"].startswith(
        'denied: module_policy "*" "version_and_source_check"')
    assert lock_versions(r.lock) == {"vpc": "6.6.0"}
    said = " ".join(r.out.split())
    assert ('Warning: module_policy "*" "version_and_source_check" (versions.policy.hcl:2) fails for vpc at 6.6.0: '
            "Module version must be below 6.6.0, not 6.6.0. (-policy-override let it through") in said, said
    data = result(tofu_solve(root, "init", "-handover=false", "-json", "-policy-override=version_and_source_check"))
    assert data["policy"]["overrides"] == ["version_and_source_check"]
    assert data["lock_file"]["changes"] == [] or "allowed by -policy-override" in json.dumps(data["lock_file"])
    assert [(n["subject"], n["version"], n["rule"]["overridden"]) for n in data["policy"]["notices"]] == \
        [("vpc", "6.6.0", True)]


def test_an_advisory_rule_selects_the_best_and_warns(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", VPC)
    (root / "versions.policy.hcl").write_text(policy("advisory"))
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"vpc": "6.6.0"}  # advisory never changes the selection
    said = " ".join(r.out.split())
    assert ('fails for vpc at 6.6.0: Module version must be below 6.6.0, not 6.6.0. (advisory: selected because '
            "no better version passes it)") in said, said


def test_the_file_default_level_applies_to_blocks_that_set_none(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", VPC)
    text = policy("mandatory").replace('  enforcement_level = "mandatory"\n', "")
    (root / "versions.policy.hcl").write_text('policy {\n  enforcement_level = "advisory"\n}\n' + text)
    assert lock_versions(tofu_solve(root, "init", "-handover=false").lock) == {"vpc": "6.6.0"}
    (root / "versions.policy.hcl").write_text(text)  # none at all: mandatory, the reference's default
    assert lock_versions(tofu_solve(root, "init", "-handover=false", "-upgrade").lock) == {"vpc": "6.5.1"}


def test_an_address_rule_is_decided_where_the_tree_puts_the_call(tmp_path, tofu_solve):
    """``meta.address`` of a nested call is known only once its parent's version is chosen:
    the rule refuses label 0.25.0 under module.sg, so sg moves back to the newest version
    whose own call of the label module is older; the root's own label call stays at 0.25.0."""
    root = write_root(tmp_path / "root", '''
        module "sg" {
          source = "cloudposse/security-group/aws"
        }
        module "label" {
          source  = "cloudposse/label/null"
          version = "0.25.0"
        }
    ''')
    (root / "labels.policy.hcl").write_text('''
module_policy "cloudposse/label/null" "old_label_under_sg" {
  filter = startswith(meta.address, "module.sg.")
  enforce {
    condition     = core::semverconstraint(meta.version, "< 0.25.0")
    error_message = "${meta.address} must not use label ${meta.version}"
  }
}
''')
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"sg": "0.3.2", "sg.this": "0.24.1", "label": "0.25.0"}


def test_module_labels_match_the_package_never_a_substring(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", VPC)
    rule = '''
module_policy "{label}" "ceiling" {
  enforce {
    condition = meta.version != "6.6.0"
  }
}
'''
    (root / "v.policy.hcl").write_text(rule.replace("{label}", "registry.opentofu.org/terraform-aws-modules/vpc/aws"))
    assert lock_versions(tofu_solve(root, "init", "-handover=false").lock) == {"vpc": "6.5.1"}
    (root / "v.policy.hcl").write_text(rule.replace("{label}", "terraform-aws-modules/vpc"))
    assert lock_versions(tofu_solve(root, "init", "-handover=false", "-upgrade").lock) == {"vpc": "6.6.0"}


def test_a_provider_rule_and_an_input_from_the_environment(tmp_path, tofu_solve, monkeypatch):
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
    free = result(tofu_solve(root, "init", "-handover=false", "-json", "-policy=none"))
    top = next(p["version"] for p in free["providers"] if p["address"].endswith("hashicorp/aws"))
    (root / "providers.policy.hcl").write_text('''
input "banned" {
  type    = string
  default = "0.0.0"
}
provider_policy "aws" "minimum_version" {
  locals {
    allowed = meta.version != input.banned && meta.namespace == "hashicorp" && meta.name == "aws"
  }
  enforce {
    condition     = local.allowed
    error_message = "${meta.source} ${meta.version} is banned"
  }
}
''')
    monkeypatch.setenv("TFPOLICY_INPUT_banned", top)
    r = tofu_solve(root, "init", "-handover=false", "-upgrade")
    assert r.code == 0, r.err
    assert f'version     = "{top}"' not in r.lock and 'provider "registry.opentofu.org/hashicorp/aws"' in r.lock
    assert f"hashicorp/aws {top} is banned" in " ".join(r.out.split())  # meta.source as HashiCorp binds it


def test_check_flags_a_lock_a_mandatory_rule_now_refuses(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", VPC)
    assert tofu_solve(root, "init", "-handover=false").code == 0
    (root / "versions.policy.hcl").write_text(policy("mandatory"))
    r = tofu_solve(root, "check")
    assert r.code == 1
    assert 'module "vpc": is locked at 6.6.0, which the policy denies' in r.err, r.err
    assert "Module version must be below 6.6.0" in r.err
    moved = tofu_solve(root, "init", "-handover=false")  # a policy change is a lock change
    assert moved.code == 0 and lock_versions(moved.lock) == {"vpc": "6.5.1"}
    assert 'module_policy "*" "version_and_source_check"' in " ".join(moved.out.split())


@pytest.mark.parametrize("text,summary,line", [
    ('module_policy "*" "x" {\n  enforce {\n    condition = core::fileexists("a")\n  }\n}\n',
     "Call to unsupported function", 3),
    ('policy {\n  plugins {\n    x = { source = "./bin/x" }\n  }\n}\n', "Policy plugins are not supported", 2),
    ('module_policy "*" "x" {\n  enforce {\n    condition = input.nope == 1\n  }\n}\n',
     "Reference to undeclared input", 3),
    ('module_policy "*" "x" {\n  enforcement_level = "strict"\n  enforce {\n    condition = true\n  }\n}\n',
     "Invalid enforcement level", 2),
    ('input "org" {\n  type = string\n}\n', "No value for required input", 1),
    ('module_policy "*" "x" {\n  enforce {\n    condition = meta.version\n  }\n}\n', "Invalid condition value", 3),
])
def test_what_the_subset_refuses_is_an_error_at_file_and_line(tmp_path, tofu_solve, text, summary, line):
    root = write_root(tmp_path / "root", VPC)
    (root / "bad.policy.hcl").write_text(text)
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 1
    assert f"Error: {summary}" in r.err and f"on bad.policy.hcl line {line}" in r.err, r.err


def test_resource_policies_are_passed_over(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", VPC)
    (root / "mixed.policy.hcl").write_text(policy("mandatory") + '''
resource_policy "aws_s3_bucket" "encrypted" {
  enforce {
    condition = core::try(attrs.server_side_encryption_configuration, null) != null
  }
}
''')
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"vpc": "6.5.1"}
    assert ("mixed.policy.hcl: 1 resource_policy block(s) not evaluated: resources exist only after plan"
            in " ".join(r.out.split())), r.out


def test_a_local_call_a_mandatory_rule_refuses_is_an_error_at_its_source(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", '''
        module "net" {
          source = "./modules/net"
        }
    ''', {"modules/net/main.tf": 'variable "x" {\n  default = 1\n}\n'})
    (root / "p.policy.hcl").write_text('''
module_policy "*" "registry_only" {
  enforce {
    condition     = meta.version != null
    error_message = "${meta.address} (${meta.source}) is not from a registry."
  }
}
''')
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 1
    assert "Error: Module call refused by policy" in r.err and "on main.tf line 2" in r.err, r.err
    assert "module.net (./modules/net) is not from a registry." in " ".join(r.err.split())
    (root / "p.policy.hcl").write_text((root / "p.policy.hcl").read_text().replace(
        'module_policy "*" "registry_only" {', 'module_policy "*" "registry_only" {\n  enforcement_level = "advisory"'))
    assert tofu_solve(root, "init", "-handover=false").code == 0


def test_a_version_whose_nested_call_the_policy_refuses_entirely_is_passed_over_and_named(tmp_path, tofu_solve):
    """Every version of the nested label call is refused under module.sg: each sg version is
    unusable at once (not tried version by version below it), and the explanation says why."""
    root = write_root(tmp_path / "root", '''
        module "sg" {
          source  = "cloudposse/security-group/aws"
          version = ">= 2.0.0"
        }
    ''')
    (root / "labels.policy.hcl").write_text('''
module_policy "cloudposse/label/null" "no_label_under_sg" {
  filter = startswith(meta.address, "module.sg.")
  enforce {
    condition     = false
    error_message = "no label module under sg"
  }
}
''')
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 1
    said = " ".join(r.err.split())
    assert ('it calls module "this" (cloudposse/label/null), every version of which its constraint admits is '
            'refused: the policy denies it: module_policy "cloudposse/label/null" "no_label_under_sg" '
            "(labels.policy.hcl:2): no label module under sg") in said, said


def test_under_recursive_a_shared_policy_file_is_reported_once_at_its_line(tmp_path, tofu_solve):
    base = tmp_path / "repo"
    for env in ("envs/a", "envs/b", "envs/c"):
        write_root(base / env, VPC)
    (base / "versions.policy.hcl").write_text(policy("mandatory") + '''
resource_policy "aws_s3_bucket" "encrypted" {
  enforce {
    condition = true
  }
}
''')
    r = tofu_solve(base, "init", "-recursive", "-handover=false")
    assert r.code == 0, r.out + r.err
    said = " ".join(r.out.split())
    assert r.out.count("Warning: ") == 2, r.out  # the rule, and the passed-over block: once each
    assert ('module_policy "*" "version_and_source_check" (versions.policy.hcl:2) held back vpc at 6.5.1 in 3 roots '
            "(envs/a, envs/b, envs/c)") in said, r.out
    assert "versions.policy.hcl: 1 resource_policy block(s) not evaluated" in said and "(In 3 root modules" in said
    assert len((r.out + r.err).strip().splitlines()) < 40, r.out + r.err


AWS_ROOT = '''
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
  }
}
'''


@pytest.mark.parametrize("level, override", [("mandatory", False), ("mandatory_overridable", True)])
def test_a_provider_rule_that_refuses_every_version_is_named(tmp_path, tofu_solve, level, override):
    """Issue #69 §3: the rule, its file and line and its error_message, as module refusals
    are named; with the override where the rule allows one."""
    root = write_root(tmp_path / "root", AWS_ROOT)
    (root / "providers.policy.hcl").write_text(f'''
provider_policy "aws" "official_only" {{
  enforcement_level = "{level}"
  enforce {{
    condition     = meta.source == "acme/aws"
    error_message = "Only the ACME AWS provider is permitted."
  }}
}}
''')
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 1
    said = " ".join(r.err.split())
    assert ('is refused by provider_policy "aws" "official_only" (providers.policy.hcl:2): Only the ACME AWS '
            "provider is permitted.") in said, said
    assert ("(-policy-override=official_only admits them)" in said) is override
    data = tofu_solve(root, "init", "-handover=false", "-json").stream()
    assert "official_only" in json.dumps(data)


# HashiCorp's v0.4.x provider_policy page, "Complete configuration example", unchanged (kept, with
# its source, in tests/conformance/hashicorp/)
STANDARD_CONFIGURATION = (Path(__file__).resolve().parents[1] / "conformance" / "hashicorp" / "provider_policy" /
                          "policies" / "aws_provider.policy.hcl").read_text(encoding="utf-8")


@pytest.mark.parametrize("region, code", [('"us-east-1"', 0), ('"eu-west-1"', 1), ("data.aws_region.x.name", 0)])
def test_hashicorps_provider_example_runs_unchanged_with_attrs_from_the_provider_block(tmp_path, tofu_solve,
                                                                                       region, code):
    """Issue #69 §1, §5: attrs is the root's provider block; a value only a plan knows passes
    the check over with one note; meta.source is hashicorp/aws."""
    root = write_root(tmp_path / "root", AWS_ROOT + f'''
provider "aws" {{
  region = {region}
}}
''')
    (root / "providers.policy.hcl").write_text(STANDARD_CONFIGURATION)
    r = tofu_solve(root, "init", "-handover=false")
    said = " ".join((r.out + r.err).split())
    assert r.code == code, said
    if code:
        assert "All AWS resources must be deployed in the us-east-1 region." in said
    elif region.startswith("data."):
        assert ('provider_policy "aws" "standard_configuration" (providers.policy.hcl:1) reads attrs.region, which '
                "the provider block at main.tf:10 sets to a value known only after plan") in said, said
        assert said.count("reads attrs.region") == 1
    else:
        assert "known only after plan" not in said


def test_under_recursive_a_shared_policy_files_error_is_said_once(tmp_path, tofu_solve):
    """Issue #70 §1: a policy file above the roots that does not evaluate stops every root;
    its error is printed once, with the roots it stopped, not once per root."""
    base = tmp_path / "repo"
    for name in ("live/a", "live/b", "live/c"):
        write_root(base / name, VPC)
    (base / "broken.policy.hcl").write_text('module_policy "*" "broken" {\n  enforce {\n'
                                            '    condition = length(meta.version) > "x"\n  }\n}\n')
    r = tofu_solve(base, "init", "-recursive", "-handover=false")
    assert r.code == 1
    assert r.err.count("Error: ") == 1, r.err
    assert "In 3 root modules (live/a, live/b, live/c):" in r.err
    assert "broken.policy.hcl line 3" in r.err or "broken.policy.hcl:3" in r.err, r.err
