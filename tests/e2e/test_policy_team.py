"""A policy team's day (issue #84 §5): a HashiCorp-style policy set in its own folder
(``policies/``, with ``policies/tests/``), five roots that each break one rule (one of them
under a committed override), run as their own processes through ``policy test``,
``init -recursive``, ``check -recursive`` and ``outdated -recursive``: each message names its
rule, its file and line, the configuration line that fails it and the next step."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import pytest

from tests.e2e.conftest import write_root

MODULES = '''module_policy "*" "approved_sources" {
  enforce {
    condition     = startswith(meta.source, "terraform-aws-modules/")
    error_message = "only terraform-aws-modules are approved"
  }
}

module_policy "*" "bad_release" {
  enforce {
    condition     = meta.version != "6.6.0"
    error_message = "vpc 6.6.0 breaks subnets (INC-1234)"
  }
}

module_policy "terraform-aws-modules/eks/aws" "eks_tested_line" {
  enforcement_level = "mandatory_overridable"
  enforce {
    condition     = core::semverconstraint(meta.version, "< 20.0.0")
    error_message = "eks ${meta.version} is not on the tested line"
  }
}
'''
PROVIDERS = '''input "allowed_regions" {
  type    = list(string)
  default = ["eu-west-1"]
}

provider_policy "aws" "allowed_regions" {
  filter = attrs.region != null
  enforce {
    condition     = contains(input.allowed_regions, attrs.region)
    error_message = "aws must be configured in an allowed region"
  }
}
'''
TESTS = '''policytest {
  targets = ["../modules.policy.hcl"]
}

module "terraform-aws-modules/vpc/aws" "approved" {
  meta = {
    version = "6.5.1"
  }
}

module "terraform-aws-modules/vpc/aws" "the_bad_release" {
  expect_failure = true
  meta = {
    version = "6.6.0"
  }
}

module "cloudposse/label/null" "elsewhere" {
  expect_failure = true
  meta = {
    version = "0.25.0"
  }
}
'''
ROOTS = {
    "live/eks": 'module "eks" {\n  source  = "terraform-aws-modules/eks/aws"\n  version = "~> 20.0"\n}\n',
    "live/label": 'module "label" {\n  source  = "cloudposse/label/null"\n  version = "0.25.0"\n}\n',
    "live/region": ('terraform {\n  required_providers {\n    aws = {\n      source  = "hashicorp/aws"\n'
                    '      version = ">= 5.0"\n    }\n  }\n}\n\nprovider "aws" {\n  region = "us-east-1"\n}\n'),
    "live/fine": 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n  version = "~> 6.0"\n}\n',
    "live/pinned": 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n  version = "6.6.0"\n}\n',
}
LATER = (date.today() + timedelta(days=30)).isoformat()


@pytest.fixture
def team(tmp_path, running):
    repo = tmp_path / "repo"
    for path, text in ROOTS.items():
        write_root(repo / path, text)
    (repo / "policies" / "tests").mkdir(parents=True)
    (repo / "policies" / "modules.policy.hcl").write_text(MODULES)
    (repo / "policies" / "providers.policy.hcl").write_text(PROVIDERS)
    (repo / "policies" / "tests" / "modules.policytest.hcl").write_text(TESTS)
    (repo / "tofu-solve-overrides.hcl").write_text(
        f'override "eks_tested_line" {{\n  reason  = "eks 20 verified in staging (PR #812)"\n  expires = "{LATER}"\n'
        '  roots   = ["live/eks"]\n}\n')
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TOFU_SOLVE_", "TF_", "TFPOLICY_"))}
    env.update(TF_CLI_CONFIG_FILE=str(running.cli_config), TOFU_SOLVE_CACHE_DIR=str(tmp_path / "cache"),
               NO_COLOR="1", GITHUB_ACTIONS="false")

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "tofu_solve", *args], cwd=repo, env=env, capture_output=True,
                              text=True, timeout=600)
    return repo, run


def _section(out: str, root: str) -> str:
    """The lines of ``out`` from ``In ROOT:`` to the next root's, on one line (the text folds
    at the terminal's width)."""
    lines, on = [], False
    for line in out.splitlines():
        if line.startswith("In "):
            on = line == f"In {root}:"
            continue
        if on:
            lines.append(line)
    return " ".join(" ".join(lines).split())


def test_a_policy_team_runs_its_set_and_every_message_names_its_rule(team):
    repo, run = team
    r = run("policy", "test", "-policies=policies")
    assert r.returncode == 0 and "Success! 3 passed, 0 failed." in r.stdout, r.stdout + r.stderr

    r = run("init", "-recursive", "-handover=false")  # policies/ is on no root's path: said, not silent
    assert "applied to no root module" in r.stdout + r.stderr and "-policy=policies" in r.stdout + r.stderr

    r = run("init", "-recursive", "-handover=false", "-policy=policies")
    said = r.stdout + "\n" + r.stderr
    assert r.returncode == 1, said
    rows = {line.split()[0]: line for line in r.stdout.splitlines() if line.startswith("live/")}
    assert "ok" in rows["live/eks"] and "ok" in rows["live/fine"], rows
    assert all("error" in rows[name] for name in ("live/label", "live/region", "live/pinned")), rows
    # each failing root names the one rule it breaks, where it is written, and what would work
    label = _section(r.stderr, "live/label")
    assert 'module_policy "*" "approved_sources" (policies/modules.policy.hcl:1)' in label, label
    assert "(the call at live/label/main.tf:3)" in label and "change the call at live/label/main.tf:3" in label
    region = _section(r.stderr, "live/region")
    assert 'provider_policy "aws" "allowed_regions" (policies/providers.policy.hcl:6)' in region, region
    assert 'attrs.region = "us-east-1" in provider "aws", live/region/main.tf:10' in region, region
    assert "-policy-input allowed_regions=VALUE" in region
    pinned = _section(r.stderr, "live/pinned")
    assert 'module_policy "*" "bad_release" (policies/modules.policy.hcl:8)' in pinned, pinned
    # the committed override: used, and said so, with its file, line, reason and date
    said = " ".join(said.split())
    assert "committed at tofu-solve-overrides.hcl:1" in said and f"expires {LATER}" in said, said

    r = run("check", "-recursive", "-json", "-policy=policies")
    doc = json.loads(r.stdout)
    by_root = {x["root"]: x for x in doc["roots"]}
    assert by_root["live/eks"]["ok"] and by_root["live/fine"]["ok"], by_root
    assert not by_root["live/label"]["ok"]  # never initialized: no lock to agree with

    r = run("outdated", "-recursive", "-json", "-policy=policies")
    assert r.returncode == 1  # the roots that do not solve are errors, the others rows
    rows = {x["root"]: x for x in json.loads(r.stdout)["roots"]}
    assert rows["live/fine"]["items"] and rows["live/label"]["error"] is not None

    # the override expires: every run that would use it stops at its line, naming the date
    (repo / "tofu-solve-overrides.hcl").write_text((repo / "tofu-solve-overrides.hcl").read_text().replace(
        LATER, (date.today() - timedelta(days=1)).isoformat()))
    r = run("init", "-handover=false", "-policy=../../policies", f"-chdir={Path('live') / 'eks'}")
    assert r.returncode == 1 and "Policy override expired" in r.stderr, r.stderr
    assert "tofu-solve-overrides.hcl line 3" in r.stderr
