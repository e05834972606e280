"""Typos caught where the user made them (issue #60 §4), against the fixture world's
registry and git daemon: a module block's argument one or two edits from a meta-argument or
a declared variable, a policy block's argument, a registry module that is not there, and a
hand-edited lock version, each named at its file and line with what was meant, by OpenTofu's
own "did you mean" rule (``internal/didyoumean/name_suggestion.go``: Levenshtein distance
below 3)."""

from __future__ import annotations

from tests.e2e.conftest import make_repo, write_root


def test_a_misspelt_version_is_a_warning_at_its_line(isolated, tofu_solve):
    root = write_root(isolated / "root", '''
        module "vpc" {
          source  = "terraform-aws-modules/vpc/aws"
          verison = "~> 5.0"
        }
    ''')
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    said = " ".join((r.out + r.err).split())
    assert ('on main.tf line 3: module "vpc" sets "verison", which terraform-aws-modules/vpc/aws 6.6.0 does not '
            'declare. Did you mean "version"?') in said
    assert "without a version constraint the newest version was selected" in said


def test_a_misspelt_variable_of_the_selected_module_is_named(isolated, tofu_solve):
    url = make_repo(isolated / "net", [("v1.0.0", {"main.tf": 'variable "cidr_block" {}\nvariable "name" {}\n'})])
    root = write_root(isolated / "root", f'''
        module "net" {{
          source    = "git::{url}"
          version   = "1.0.0"
          cidr_blok = "10.0.0.0/16"
          name      = "prod"
          tags      = {{}}
        }}
    ''')
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    said = " ".join((r.out + r.err).split())
    assert 'on main.tf line 4: module "net" sets "cidr_blok"' in said and 'Did you mean "cidr_block"?' in said
    assert '"name"' not in said.split("cidr_blok", 1)[1].split("Did you mean", 1)[0]  # declared: not named
    assert 'sets "tags"' not in said  # undeclared, but near no valid name: left to tofu plan


def test_a_policy_argument_gets_did_you_mean(isolated, tofu_solve):
    root = write_root(isolated / "root", 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n'
                                         '  version = "~> 6.0"\n}\n')
    (root / "tofu-solve-policy.hcl").write_text('deny "module" "terraform-aws-modules/vpc/aws" {\n'
                                                '  version = "6.6.0"\n  reason  = "NAT"\n}\n')
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 1 and "Error: Unsupported argument" in r.err
    assert 'An argument named "version" is not expected in a deny "module" "terraform-aws-modules/vpc/aws" block. ' \
           'Did you mean "versions"?' in " ".join(r.err.split())
    assert "on tofu-solve-policy.hcl line 2" in r.err


def test_a_module_the_registry_does_not_have_names_the_near_one(isolated, tofu_solve):
    root = write_root(isolated / "root", 'module "vpc" {\n  source  = "terraform-aws-modules/vpcc/aws"\n'
                                         '  version = "~> 6.0"\n}\n')
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 1 and "Error: Module not found" in r.err
    assert "Did you mean terraform-aws-modules/vpc/aws?" in " ".join(r.err.split())
