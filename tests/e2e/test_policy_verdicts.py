"""Issue #69 §2: one verdict everywhere. The rules of the user guide's example policy (a
module ceiling in the reference's ``version_and_source_check`` form, a namespace rule on
``meta.source``, a provider rule) run through every command that judges a version: ``check``,
``init -lockfile=readonly``, ``init``, ``outdated``, ``why``, ``graph``, ``list`` (its JSON
and its SBOM) and the language server's engine; each names the same rules for the same
versions, and none names a rule that passes."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from tests.e2e.conftest import lock_versions, write_root
from tofu_solve.lsp.analysis import analyse
from tofu_solve.settings import Settings

MAIN = '''
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 6.0"
    }
  }
}
module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 6.0"
}
module "role" {
  source  = "registry.opentofu.org/terraform-aws-modules/iam/aws//modules/iam-assumable-role"
  version = ">= 5.0"
}
'''

RULES = '''
module_policy "*" "version_and_source_check" {{
  enforcement_level = "mandatory"
  filter            = meta.version != null
  locals {{
    max_version = "{vpc}"
  }}
  enforce {{
    condition     = !startswith(meta.source, "terraform-aws-modules/vpc/") || core::semverconstraint(meta.version, "< ${{local.max_version}}")
    error_message = "Module version must be below ${{local.max_version}}."
  }}
}}

module_policy "*" "approved_namespace" {{
  enforce {{
    condition     = startswith(meta.source, "terraform-aws-modules/")
    error_message = "Module source ${{meta.source}} is not from an approved namespace."
  }}
}}

provider_policy "aws" "no_newest" {{
  enforce {{
    condition     = !core::semverconstraint(meta.version, "= {aws}")
    error_message = "aws ${{meta.version}} is not yet approved."
  }}
}}
'''


def test_every_command_gives_the_same_verdict(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", MAIN)
    assert tofu_solve(root, "init", "-handover=false", "-policy=none").code == 0
    before = lock_versions((root / ".terraform.lock.hcl").read_text())
    listed = tofu_solve(root, "list", "-json").json()["items"]
    vpc_top = next(i["version"] for i in listed if i["kind"] == "module" and i["name"].endswith("vpc/aws"))
    aws = next(i["version"] for i in listed if i["kind"] == "provider")
    assert before["vpc"] == vpc_top
    (root / "guide.policy.hcl").write_text(RULES.format(vpc=vpc_top, aws=aws))

    # check and the language server on the lock as it is: the two rules that refuse a locked
    # version, and never the namespace rule (the lock's recorded source reads as the call's)
    found = tofu_solve(root, "check", "-json").json()["differences"]
    assert sorted((d["subject"], d["line"]) for d in found if d["kind"] == "policy") == [
        ('module "vpc"', 2), ('provider "registry.opentofu.org/hashicorp/aws"', 21)], found
    assert "approved_namespace" not in json.dumps(found)
    report = analyse(root, {}, Settings.from_environ(dict(os.environ)), network=True)
    said = json.dumps([f.message for f in report.findings])
    assert "version_and_source_check" in said and "no_newest" in said and "approved_namespace" not in said

    # init -lockfile=readonly refuses both moves, naming both rules; init moves both
    ro = tofu_solve(root, "init", "-handover=false", "-lockfile=readonly")
    assert ro.code == 1
    text = " ".join(ro.err.split())
    assert "version_and_source_check" in text and "no_newest" in text and "approved_namespace" not in text
    moved = tofu_solve(root, "init", "-handover=false")
    assert moved.code == 0, moved.err
    after = tofu_solve(root, "list", "-json").json()["items"]
    assert all(i["policy"] == "allowed" for i in after), after
    assert next(i["version"] for i in after if i["kind"] == "module" and i["name"].endswith("vpc/aws")) != vpc_top
    assert next(i["version"] for i in after if i["kind"] == "provider") != aws
    assert tofu_solve(root, "check").code == 0
    assert "approved_namespace" not in moved.out + moved.err

    # outdated, why, graph: the newest versions held back by the rules that refuse them
    items = {i["name"]: i for i in tofu_solve(root, "outdated", "-json").json()["items"]}
    vpc_newer = {n["version"]: n["denied"] for n in items["vpc"]["newer"]}
    assert "version_and_source_check" in vpc_newer[vpc_top]
    assert not any(d and "approved_namespace" in d for i in items.values() for n in i.get("newer") or []
                   for d in [n["denied"]])
    why = tofu_solve(root, "why", "vpc", "-json").json()[0]["held_back"]
    assert any(h["version"] == vpc_top and h["kind"] == "policy" and "version_and_source_check" in h["reason"]
               for h in why)
    why_aws = " ".join(tofu_solve(root, "why", "hashicorp/aws").out.split())
    assert f'{aws} is available, but not selected: the policy denies it: provider_policy "aws" "no_newest"' in why_aws
    assert "denied" in tofu_solve(root, "graph").out
    sbom = json.loads(tofu_solve(root, "list", "-format=cyclonedx").out)
    verdicts = [p["value"] for c in sbom["components"] for p in c.get("properties", [])
                if p["name"] == "tofu-solve:policy"]
    assert verdicts and set(verdicts) == {"allowed"}


GUIDE = Path(__file__).resolve().parents[2] / "docs" / "user-guide.md"


def guide_policy() -> str:
    """The user guide's example policy file (the block under "HashiCorp's policy files"), as written."""
    section = GUIDE.read_text(encoding="utf-8").split("#### HashiCorp's policy files", 1)[1]
    return re.findall(r"```hcl\n(.*?)```", section, re.S)[0]


def test_the_guides_example_rules_judge_alike_everywhere(tmp_path, tofu_solve):
    """Issue #69 §2: the guide's own example, as written: a lock at aws 6.1.x (which its
    no_6_0 rule refuses) is flagged by check and the language server, refused by init
    -lockfile=readonly, moved by init out of the range, then allowed by list and the SBOM;
    its module rule (at least 1.0.0) refuses nothing in the fixture world, anywhere."""
    root = write_root(tmp_path / "root", MAIN.replace('version = ">= 6.0"', 'version = "~> 6.1"'))
    assert tofu_solve(root, "init", "-handover=false", "-policy=none", "-upgrade").code == 0
    listed = tofu_solve(root, "list", "-json").json()["items"]
    (root / "versions.policy.hcl").write_text(guide_policy())
    locked_aws = next(i["version"] for i in listed if i["kind"] == "provider")
    (root / ".terraform.lock.hcl").write_text((root / ".terraform.lock.hcl").read_text().replace(
        f'version     = "{locked_aws}"', 'version     = "6.1.0"'))
    found = tofu_solve(root, "check", "-json").json()["differences"]
    policy_rows = [d for d in found if d["kind"] == "policy"]
    assert [d["subject"] for d in policy_rows] == ['provider "registry.opentofu.org/hashicorp/aws"'], found
    assert "no_6_0" in policy_rows[0]["detail"] and "version_and_source_check" not in json.dumps(found)
    said = json.dumps([f.message for f in analyse(root, {}, Settings.from_environ(dict(os.environ)),
                                                 network=True).findings])
    assert "no_6_0" in said and "version_and_source_check" not in said
    ro = tofu_solve(root, "init", "-handover=false", "-lockfile=readonly")
    assert ro.code == 1 and "no_6_0" in ro.err and "version_and_source_check" not in ro.err
    moved = tofu_solve(root, "init", "-handover=false")
    assert moved.code == 0, moved.err
    after = tofu_solve(root, "list", "-json").json()["items"]
    aws = next(i for i in after if i["kind"] == "provider")
    assert aws["policy"] == "allowed" and not aws["version"].startswith(("6.0.", "6.1."))
    assert all(i["policy"] == "allowed" for i in after)
    assert tofu_solve(root, "check").code == 0
    why = " ".join(tofu_solve(root, "why", "hashicorp/aws").out.split())
    assert "version_and_source_check" not in why
