"""init: the source kinds, version forms and options, each against real servers."""

from __future__ import annotations

import re

from tests.e2e.conftest import AWS5_VPC61, lock_versions, make_repo, write_root


def test_git_source_with_version_constraint_v_tags(tmp_path, tofu_solve, world):
    url = f"file://{world.repo_path('terraform-aws-modules/terraform-aws-vpc')}"
    root = write_root(tmp_path, f'''
        module "vpc" {{
          source  = "git::{url}"
          version = "~> 6.0"
        }}
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"vpc": "v6.6.0"}
    assert f'source      = "git::{url}?ref=v6.6.0"' in r.lock
    assert 'constraints = "~> 6.0"' in r.lock


def test_git_over_git_daemon_with_version(tmp_path, tofu_solve, running):
    url = running.git.url + "terraform-aws-modules/terraform-aws-kms.git"
    root = write_root(tmp_path, f'''
        module "kms" {{
          source  = "git::{url}"
          version = "~> 2.0"
        }}
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert lock_versions(r.lock)["kms"].startswith("v2.")


def test_registry_prerelease_only_when_named_exactly(tmp_path, tofu_solve):
    root = write_root(tmp_path / "exact", '''
        module "label" {
          source  = "cloudposse/label/null"
          version = "0.25.0-rc.1"
        }
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"label": "0.25.0-rc.1"}
    root = write_root(tmp_path / "range", '''
        module "label" {
          source  = "cloudposse/label/null"
          version = ">= 0.25.0-rc.1"
        }
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"label": "0.25.0"}


def test_registry_subdirectory(tmp_path, tofu_solve):
    root = write_root(tmp_path, '''
        module "role" {
          source  = "terraform-aws-modules/iam/aws//modules/iam-assumable-role"
          version = "~> 5.0"
        }
    ''')
    r = tofu_solve(root, "init", "-json")
    assert r.code == 0, r.err
    data = r.json()
    mod = data["modules"][0]
    assert mod["source"] == "registry.opentofu.org/terraform-aws-modules/iam/aws//modules/iam-assumable-role"
    assert mod["version"].startswith("5.")
    assert any(p["address"] == "registry.opentofu.org/hashicorp/aws" for p in data["providers"])


def test_unversioned_calls(tmp_path, tofu_solve, world):
    label = f"file://{world.repo_path('cloudposse/terraform-null-label')}"
    root = write_root(tmp_path, f'''
        module "kms" {{
          source = "terraform-aws-modules/kms/aws"
        }}

        module "label" {{
          source = "git::{label}?ref=0.24.1"
        }}

        module "local" {{
          source = "./modules/local"
        }}
    ''', {"modules/local/main.tf": '''
        module "nested_kms" {
          source  = "terraform-aws-modules/kms/aws"
          version = "~> 3.0"
        }
    '''})
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    v = lock_versions(r.lock)
    # unversioned: the newest release; the nested "~> 3.0" call takes the newest 3.x; both fit aws 6.x
    assert v["kms"] == "4.2.0"
    assert v["local.nested_kms"] == "3.1.1"
    assert v["label"] == "0.24.1"  # a ?ref pin is locked at its ref (its content by the h1 hash)
    assert "local" not in v  # local modules are followed, never versioned


def test_terraform_only_required_version_is_skipped_for_opentofu_before_1_12(tmp_path, tofu_solve):
    root = write_root(tmp_path, '''
        module "kp" {
          source  = "terraform-aws-modules/key-pair/aws"
          version = "< 0.6.0"
        }
    ''')
    # 0.5.0, 0.4.0 and 0.3.0 declare Terraform 0.12/0.13-only required_version in a .tf file:
    # OpenTofu before 1.12 enforces it, so they cannot be used with 1.11.6; 0.2.0 declares none.
    r = tofu_solve(root, "init", "-tofu-version=1.11.6")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"kp": "0.2.0"}
    # OpenTofu 1.12 honours required_version only in .tofu files (reference §8): 0.5.0 is fine.
    r = tofu_solve(root, "init", "-tofu-version=1.12.0", "-upgrade")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"kp": "0.5.0"}


def test_opentofu_version_conflict_is_explained(tmp_path, tofu_solve):
    root = write_root(tmp_path, '''
        module "label" {
          source  = "cloudposse/label/null"
          version = "0.19.2"
        }
    ''')
    r = tofu_solve(root, "init", "-tofu-version=1.11.6")
    assert r.code == 1
    assert "The constraints on the OpenTofu version cannot all be met:" in r.err
    assert "this configuration is solved for OpenTofu 1.11.6 (-tofu-version)" in r.err
    assert '0.19.2: ">= 0.12.0, < 0.14.0" (versions.tf:' in r.err
    assert "-tofu-version=X.Y.Z" in r.err


def test_no_matching_version_is_opentofus_error(tmp_path, tofu_solve):
    root = write_root(tmp_path, '''
        module "vpc" {
          source  = "terraform-aws-modules/vpc/aws"
          version = "~> 99.0"
        }
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 1
    assert "Error: Unresolvable module version constraint" in r.err
    assert "on main.tf line 3, in module " in r.err
    assert "The newest available version is 6.6.0." in r.err


def test_unreachable_registry(tmp_path, tofu_solve, monkeypatch):
    cfg = tmp_path / "down.tfrc"
    cfg.write_text('host "registry.opentofu.org" {\n  services = {\n    "modules.v1" = "http://127.0.0.1:9/v1/modules/"\n  }\n}\n')
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(cfg))
    root = write_root(tmp_path / "root", '''
        module "vpc" {
          source  = "terraform-aws-modules/vpc/aws"
          version = "~> 6.0"
        }
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 1
    assert "Error: Failed to reach registry registry.opentofu.org" in r.err
    assert "127.0.0.1:9" in r.err
    assert "Traceback" not in r.err


def test_git_constraint_without_semver_tags(tmp_path, tofu_solve):
    url = make_repo(tmp_path / "repo", [("release-1", {"main.tf": "# one\n"}), ("latest", {"main.tf": "# two\n"})])
    root = write_root(tmp_path / "root", f'''
        module "m" {{
          source  = "git::{url}"
          version = ">= 1.0.0"
        }}
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 1
    assert "Error: Module has no versions" in r.err
    assert "has no semver tags to choose from" in r.err
    assert "on main.tf line 3, in module " in r.err


def _app_utils_common(tmp_path):
    common = make_repo(tmp_path / "common", [(t, {"main.tf": f"# common {t}\n"}) for t in
                                             ("v1.0.0", "v1.5.0", "v2.0.0", "v2.1.0")])
    app = make_repo(tmp_path / "app", [("v1.0.0", {"main.tf": f'''
        module "common" {{
          source  = "git::{common}"
          version = ">= 2.0.0"
        }}
    '''})])
    utils = make_repo(tmp_path / "utils", [("v1.0.0", {"main.tf": f'''
        module "common" {{
          source  = "git::{common}"
          version = "< 2.0.0"
        }}
    '''})])
    return write_root(tmp_path / "root", f'''
        module "app" {{
          source  = "git::{app}"
          version = "1.0.0"
        }}

        module "utils" {{
          source  = "git::{utils}"
          version = "1.0.0"
        }}
    ''')


def test_module_versions_shared_fails_fast_on_the_rfc_example(tmp_path, tofu_solve):
    root = _app_utils_common(tmp_path)
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"app": "v1.0.0", "app.common": "v2.1.0", "utils": "v1.0.0",
                                     "utils.common": "v1.5.0"}
    (root / ".terraform.lock.hcl").unlink()
    r = tofu_solve(root, "init", "-module-versions=shared")
    assert r.code == 1
    assert "With -module-versions=shared, every call of" in r.err
    assert '"app.common" asks for ">= 2.0.0" (main.tf:1 in app v1.0.0)' in r.err
    assert '"utils.common" asks for "< 2.0.0" (main.tf:1 in utils v1.0.0)' in r.err
    assert not (root / ".terraform.lock.hcl").exists()


def test_lock_reuse_upgrade_and_stale_lock(tmp_path, tofu_solve):
    root = write_root(tmp_path, '''
        module "vpc" {
          source  = "terraform-aws-modules/vpc/aws"
          version = "6.4.0"
        }
    ''')
    r = tofu_solve(root, "init")
    assert lock_versions(r.lock) == {"vpc": "6.4.0"}
    main = root / "main.tf"
    main.write_text(main.read_text().replace('"6.4.0"', '"~> 6.0"'))
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"vpc": "6.4.0"}  # the locked version is reused
    assert "Verified checksum matches lock file" in r.out
    r = tofu_solve(root, "init", "--upgrade")  # GNU-style flag
    assert r.code == 0 and lock_versions(r.lock) == {"vpc": "6.6.0"}
    assert '~ module "vpc" 6.4.0 -> 6.6.0' in r.out
    main.write_text(main.read_text().replace("~> 6.0", "~> 5.0"))
    lock = root / ".terraform.lock.hcl"
    before = lock.read_text()
    # issue #34: a locked version the edited constraint no longer allows is chosen afresh in
    # one init (as Cargo re-resolves an edited manifest); -lockfile=readonly refuses, naming
    # the edit, its place and the one command that lands it
    r = tofu_solve(root, "init", "-lockfile=readonly")
    assert r.code == 1 and "Error: Lock file would change" in r.err
    assert '~ module "vpc" 6.6.0 -> 5.' in r.err and 'constraint edited to "~> 5.0" (main.tf:3)' in r.err
    assert "Run tofu-solve init (without -lockfile=readonly) to land the change" in r.err
    assert lock.read_text() == before
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert lock_versions(r.lock)["vpc"].startswith("5.")
    assert 'constraint edited to "~> 5.0" (main.tf:3)' in r.out


def test_editing_one_constraint_repicks_that_call_alone(tmp_path, tofu_solve):
    """Issue #15: the other calls keep their locked versions although newer ones fit; issue
    #34: the edited call moves in the same init, alone, with its reason."""
    root = write_root(tmp_path, '''
        module "vpc" {
          source  = "terraform-aws-modules/vpc/aws"
          version = "6.4.0"
        }
        module "kms" {
          source  = "terraform-aws-modules/kms/aws"
          version = "3.0.0"
        }
    ''')
    assert tofu_solve(root, "init").code == 0
    main = root / "main.tf"
    main.write_text(main.read_text().replace('"6.4.0"', '"~> 6.0"').replace('"3.0.0"', '"~> 3.0"'))
    r = tofu_solve(root, "init")
    assert lock_versions(r.lock) == {"vpc": "6.4.0", "kms": "3.0.0"}  # both still allowed: both kept
    main.write_text(main.read_text().replace('"~> 6.0"', '"~> 5.0"'))
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    versions = lock_versions(r.lock)
    assert versions["kms"] == "3.0.0" and versions["vpc"].startswith("5.")
    changes = r.out.split("lock file")[-1]
    assert '~ module "vpc" 6.4.0 -> ' in changes and 'module "kms"' not in changes


def test_an_edit_that_needs_a_provider_lock_to_move_lands_in_one_init(tmp_path, tofu_solve):
    """Issue #34 (#15 before): the edited root is impossible with aws held at its lock; one
    init lands it, moving the fewest locks (aws alone: vpc is edited, so chosen afresh),
    each with its reason; -lockfile=readonly lists the same changes and refuses."""
    root = write_root(tmp_path, '''
        terraform {
          required_providers {
            aws = {
              source  = "hashicorp/aws"
              version = "~> 5.0"
            }
          }
        }
        module "vpc" {
          source  = "terraform-aws-modules/vpc/aws"
          version = "~> 5.0"
        }
        module "kms" {
          source  = "terraform-aws-modules/kms/aws"
          version = "~> 3.0"
        }
    ''')
    first = tofu_solve(root, "init")
    assert first.code == 0, first.err
    locked = lock_versions(first.lock)
    main = root / "main.tf"
    # aws stays locked at 5.x (still allowed by ">= 5.0"); vpc 6.6 needs aws >= 6.28
    main.write_text(main.read_text().replace('version = "~> 5.0"', 'version = ">= 5.0"', 1)
                    .replace('"~> 5.0"', '"~> 6.6"'))
    lock = root / ".terraform.lock.hcl"
    before = lock.read_text()
    r = tofu_solve(root, "init", "-lockfile=readonly")
    assert r.code == 1 and lock.read_text() == before
    assert 'provider "registry.opentofu.org/hashicorp/aws" 5.' in r.err and 'vpc 6.6.0 requires ">= 6.28"' in r.err
    r = tofu_solve(root, "init", "-json")
    assert r.code == 0, r.err
    doc = r.json()
    assert lock_versions(r.lock)["vpc"].startswith("6.6") and lock_versions(r.lock)["kms"] == locked["kms"]
    aws = next(c for c in doc["lock_file"]["provider_changes"] if c["address"].endswith("hashicorp/aws"))
    assert aws["new"].startswith("6.") and aws["reason"].startswith('vpc 6.6.0 requires ">= 6.28"')
    vpc = next(c for c in doc["lock_file"]["changes"] if c["path"] == "vpc")
    assert vpc["reason"] == 'constraint edited to "~> 6.6" (main.tf:11)'  # the version line
    assert [c["path"] for c in doc["lock_file"]["changes"]] == ["vpc"]  # kms stays


def test_lockfile_readonly(tmp_path, tofu_solve):
    root = write_root(tmp_path, '''
        module "kms" {
          source  = "terraform-aws-modules/kms/aws"
          version = "~> 3.0"
        }
    ''')
    r = tofu_solve(root, "init", "-lockfile=readonly")
    assert r.code == 1 and "Error: Lock file would change" in r.err
    assert not (root / ".terraform.lock.hcl").exists()
    assert tofu_solve(root, "init").code == 0
    before = (root / ".terraform.lock.hcl").read_text()
    r = tofu_solve(root, "init", "-lockfile=readonly")
    assert r.code == 0 and (root / ".terraform.lock.hcl").read_text() == before


def test_json_output_and_provider_block_completed_as_tofu_init_would(tmp_path, tofu_solve):
    """A locked provider keeps its version; the block gains this platform's h1: and the
    signed zh: hashes (installer.go: prior hashes + new ones when the version is unchanged),
    exactly what tofu init would add, so tofu init afterwards has nothing to change."""
    root = write_root(tmp_path, '''
        module "kms" {
          source  = "terraform-aws-modules/kms/aws"
          version = "~> 3.0"
        }
    ''')
    provider_block = ('# This file is maintained automatically by "tofu init".\n'
                      "# Manual edits may be lost in future updates.\n\n"
                      'provider "registry.opentofu.org/hashicorp/aws" {\n'
                      '  version     = "5.100.0"\n'
                      '  constraints = ">= 4.0.0"\n'
                      "  hashes = [\n"
                      '    "h1:abc=",\n'
                      "  ]\n"
                      "}\n")
    (root / ".terraform.lock.hcl").write_text(provider_block)
    r = tofu_solve(root, "init", "-json")
    assert r.code == 0, r.err
    data = r.json()
    assert data["modules"][0]["path"] == "kms" and data["modules"][0]["constraint"] == "~> 3.0"
    aws = next(p for p in data["providers"] if p["address"].endswith("hashicorp/aws"))
    assert aws["version"] == "5.100.0"  # the locked provider version is what tofu init will use
    assert data["lock_file"]["written"] is True
    for c in data["lock_file"]["provider_changes"]:  # the same version: what changed in the block (issue #50 §5)
        # ... and which constraint moved the constraints (issue #59 §2)
        assert c.pop("reason") == ('constraints ">= 4.0.0" -> ">= 5.49.0" (">= 5.49.0" required by kms 3.1.1 '
                                   '(terraform-aws-modules/kms/aws 3.1.1: versions.tf:7); ">= 4.0.0" no longer '
                                   'required), 8 hashes added')  # each platform's h1: and zh: (OpenTofu 1.12)

    assert data["lock_file"]["provider_changes"] == [
        {"address": "registry.opentofu.org/hashicorp/aws", "kind": "changed", "old": "5.100.0", "new": "5.100.0"}]
    from tofu_solve.lockfile import parse_lock_text
    locks, _ = parse_lock_text(r.lock)
    lock = locks.providers["registry.opentofu.org/hashicorp/aws"]
    assert (lock.version, lock.constraints) == ("5.100.0", ">= 5.49.0")  # kms 3.1.1 requires it
    assert "h1:abc=" in lock.hashes
    # the prior h1: kept beside every platform's from the registry's packages field (OpenTofu 1.12)
    assert sum(h.startswith("h1:") for h in lock.hashes) == 5 and sum(h.startswith("zh:") for h in lock.hashes) == 4
    again = tofu_solve(root, "init", "-json")
    assert again.code == 0 and again.lock == r.lock
    assert again.json()["lock_file"]["provider_changes"] == []


def test_errors_as_json(tmp_path, tofu_solve):
    root = write_root(tmp_path, AWS5_VPC61)
    r = tofu_solve(root, "init", "-json")
    assert r.code == 1
    err = r.json()["error"]
    assert err["kind"] == "ResolutionError"
    subject = err["explanation"]["subjects"][0]
    assert subject["subject"] == "provider hashicorp/aws"
    assert any(q["constraint"] == "~> 5.0" and q["line"] == 5 for q in subject["requirements"])  # its version line
    # issue #12: suggestions as data, each edit the constraint string on its line
    suggestions = err["explanation"]["suggestions"]
    assert [s["edits"] for s in suggestions] == [
        [{"file": "main.tf", "line": 5, "old": "~> 5.0", "new": "~> 6.0"}],
        [{"file": "main.tf", "line": 12, "old": "~> 6.1", "new": "~> 6.0"}]]  # lands on a fenced-off 6.0.0: after
    assert suggestions[1]["caveats"] == ['vpc 6.0.0 is fenced off by its own line (6.0.1 requires hashicorp/aws '
                                         '">= 6.0", which excludes 5.100.0)'] and suggestions[0]["caveats"] == []
    assert all(s["summary"].startswith("change ") for s in suggestions)


def test_opentofu_version_from_tofu_on_path(tmp_path, tofu_solve, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tofu = bin_dir / "tofu"
    tofu.write_text("#!/bin/sh\necho 'OpenTofu v1.11.6'\necho 'on linux_amd64'\n")
    tofu.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{__import__('os').environ['PATH']}")
    root = write_root(tmp_path / "root", '''
        module "kp" {
          source  = "terraform-aws-modules/key-pair/aws"
          version = "< 0.6.0"
        }
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert "Solved for OpenTofu 1.11.6 (tofu on PATH)." in r.out
    assert lock_versions(r.lock) == {"kp": "0.2.0"}  # as with -tofu-version=1.11.6


def test_transitive_call_with_no_matching_version(tmp_path, tofu_solve):
    common = make_repo(tmp_path / "common", [("v1.0.0", {"main.tf": "# common 1\n"})])
    app = make_repo(tmp_path / "app", [
        ("v0.9.0", {"main.tf": f'module "common" {{\n  source  = "git::{common}"\n  version = "~> 1.0"\n}}\n'}),
        ("v1.0.0", {"main.tf": f'module "common" {{\n  source  = "git::{common}"\n  version = "~> 9.0"\n}}\n'}),
    ])
    root = write_root(tmp_path / "root", f'''
        module "app" {{
          source  = "git::{app}"
          version = ">= 0.9.0"
        }}
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    # app v1.0.0 calls common "~> 9.0", which does not exist: the solver goes back to v0.9.0
    assert lock_versions(r.lock) == {"app": "v0.9.0", "app.common": "v1.0.0"}
    (root / "main.tf").write_text((root / "main.tf").read_text().replace(">= 0.9.0", "1.0.0"))
    r = tofu_solve(root, "init", "-upgrade")
    assert r.code == 1
    assert "Error: Unresolvable module version constraint" in r.err
    assert 'There is no available version of module "app.common"' in r.err
    assert "The newest available version is 1.0.0." in r.err
    assert 'at main.tf:3 (in module "app" (' in r.err and 'app v1.0.0))' in r.err


def test_missing_subdirectory_is_named_by_package_not_cache_path(tmp_path, tofu_solve, own_cache):
    """Issue #12: a package without the requested subdirectory is reported by package,
    version and subdirectory, at the call's line, never with a path inside the cache."""
    root = write_root(tmp_path / "root", '''
        module "kms" {
          source  = "terraform-aws-modules/kms/aws//modules/does-not-exist"
          version = "3.1.1"
        }
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 1
    assert 'terraform-aws-modules/kms/aws 3.1.1 has no subdirectory "modules/does-not-exist"' in r.err
    assert str(own_cache) not in r.err
    assert "(called at main.tf:1)" in r.err


def test_targeted_upgrade_moves_only_what_it_names(tmp_path, tofu_solve, own_cache):
    """Issue #15 (part): -upgrade=NAME re-picks only the named calls, packages or providers
    and keeps every other lock."""
    root = write_root(tmp_path / "root", '''
        terraform {
          required_providers {
            aws = {
              source  = "hashicorp/aws"
              version = ">= 5.0"
            }
          }
        }
        module "kms" {
          source  = "terraform-aws-modules/kms/aws"
          version = "3.0.0"
        }
        module "vpc" {
          source  = "terraform-aws-modules/vpc/aws"
          version = "6.4.1"
        }
    ''')
    assert tofu_solve(root, "init").code == 0
    text = (root / "main.tf").read_text().replace('"3.0.0"', '"~> 3.0"').replace('"6.4.1"', '"~> 6.0"')
    (root / "main.tf").write_text(text)
    assert tofu_solve(root, "init").code == 0
    before = lock_versions((root / ".terraform.lock.hcl").read_text())
    assert before == {"kms": "3.0.0", "vpc": "6.4.1"}  # the locks hold both
    r = tofu_solve(root, "init", "-upgrade=vpc")
    assert r.code == 0, r.err
    after = lock_versions(r.lock)
    assert after["vpc"] == "6.6.0" and after["kms"] == "3.0.0"
    assert '~ module "vpc" 6.4.1 -> 6.6.0' in r.out and 'module "kms"' not in r.out.split("lock file")[-1]
    r = tofu_solve(root, "init", "-upgrade=terraform-aws-modules/kms/aws")
    assert r.code == 0, r.err
    assert lock_versions(r.lock)["kms"].startswith("3.") and lock_versions(r.lock)["kms"] != "3.0.0"
    bad = tofu_solve(root, "init", "-upgrade=nothing-here")
    assert bad.code == 1 and "Unknown name in -upgrade" in bad.err
    lock = (root / ".terraform.lock.hcl").read_text()
    r = tofu_solve(root, "init", "-upgrade=hashicorp/aws")  # already the newest: re-checked, nothing changes
    assert r.code == 0, r.err
    assert "The lock file is up to date." in r.out and r.lock == lock


def test_upgrade_takes_gos_boolean_values(tmp_path, tofu_solve):
    """``-upgrade=true`` and ``-upgrade=false`` as tofu takes them; ``-upgrade=NAME`` stays."""
    root = write_root(tmp_path, '''
        module "vpc" {
          source  = "terraform-aws-modules/vpc/aws"
          version = "6.4.0"
        }
    ''')
    assert tofu_solve(root, "init").code == 0
    main = root / "main.tf"
    main.write_text(main.read_text().replace('"6.4.0"', '"~> 6.0"'))
    r = tofu_solve(root, "init", "-upgrade=false")
    assert r.code == 0 and lock_versions(r.lock) == {"vpc": "6.4.0"}
    r = tofu_solve(root, "init", "-upgrade=true")
    assert r.code == 0 and lock_versions(r.lock) == {"vpc": "6.6.0"}


def test_a_version_that_calls_a_missing_module_is_passed_over(isolated, tofu_solve, running):
    """A module version whose nested call the registry does not have (404) is passed over,
    like one whose constraints clash; when no version is left, the explanation names the
    missing module and the versions that call it (issue #24)."""
    from tests.e2e.conftest import make_repo

    good = make_repo(isolated / "repos" / "app1", [("v1.0.0", {"main.tf": "# no calls\n"})])
    bad = make_repo(isolated / "repos" / "app2", [
        ("v2.0.0", {"main.tf": 'module "gone" {\n  source  = "acme/missing/aws"\n  version = "~> 1.0"\n}\n'}),
        ("v2.1.0", {"main.tf": 'module "gone" {\n  source  = "acme/missing/aws"\n  version = "~> 1.1"\n}\n'})])
    running.registry.extra["acme/app/aws"] = {"versions": {"1.0.0": f"git::{good}?ref=v1.0.0",
                                                           "2.0.0": f"git::{bad}?ref=v2.0.0",
                                                           "2.1.0": f"git::{bad}?ref=v2.1.0"}}
    try:
        root = write_root(isolated / "root", 'module "app" {\n  source  = "acme/app/aws"\n  version = ">= 1.0"\n}\n')
        r = tofu_solve(root, "init")
        assert r.code == 0, r.err
        assert "- app in acme/app/aws 1.0.0" in r.out
        (root / "main.tf").write_text('module "app" {\n  source  = "acme/app/aws"\n  version = ">= 2.0"\n}\n')
        r = tofu_solve(root, "init", "-upgrade=app")
        assert r.code == 1
        assert "Error: No consistent set of versions" in r.err
        assert 'it calls module "gone" (acme/missing/aws), which cannot be found: Module acme/missing/aws could ' \
               "not be found in the registry" in r.err
        assert r.err.count("No version of module \"app\"") == 1  # one subject, its versions grouped by reason
        assert "  - 2.1.0, 2.0.0: it calls module \"gone\"" in r.err
    finally:
        running.registry.extra.pop("acme/app/aws", None)


def test_a_missing_root_call_stays_an_error(isolated, tofu_solve):
    root = write_root(isolated / "root", 'module "x" {\n  source  = "acme/nothing-here/aws"\n  version = "1.0.0"\n}\n')
    r = tofu_solve(root, "init")
    assert r.code == 1 and "Error: Module not found" in r.err


def test_an_edited_provider_constraint_moves_the_provider_alone(isolated, tofu_solve):
    """Issue #34 (#24 before): a locked provider its edited constraint excludes is chosen
    afresh in one init, newest first, with every module lock kept and the edit named as the
    reason; a hand-edited lock whose version the registry no longer lists is an error in
    OpenTofu's words (``internal/providercache/installer.go``: "the previously-selected
    version %s is no longer available"), never a silent re-pick."""
    main = '''
        terraform {
          required_providers {
            aws = {
              source  = "hashicorp/aws"
              version = "%s"
            }
          }
        }
        module "vpc" {
          source  = "terraform-aws-modules/vpc/aws"
          version = "~> 6.0"
        }
    '''
    root = write_root(isolated / "root", main % ">= 6.0")
    first = tofu_solve(root, "init")
    assert first.code == 0, first.err
    locked_vpc = lock_versions(first.lock)["vpc"]
    assert 'provider "registry.opentofu.org/hashicorp/aws"' in first.lock and "6.58.0" in first.lock
    write_root(root, main % "~> 6.0, < 6.50")
    up = tofu_solve(root, "init")
    assert up.code == 0, up.err
    assert lock_versions(up.lock)["vpc"] == locked_vpc  # the module lock is kept
    assert "6.58.0" not in up.lock
    assert 'provider "registry.opentofu.org/hashicorp/aws" 6.58.0 -> ' in up.out
    assert 'constraint edited to "~> 6.0, < 6.50" (main.tf:' in up.out
    lock = root / ".terraform.lock.hcl"
    text = lock.read_text()
    version = re.search(r'provider "registry.opentofu.org/hashicorp/aws" \{\n  version\s*=\s*"([^"]+)"', text).group(1)
    lock.write_text(text.replace(f'"{version}"', '"6.49.9"', 1))
    before = lock.read_text()
    gone = tofu_solve(root, "init")
    assert gone.code == 1 and "Error: Locked version no longer available" in gone.err
    assert "the previously-selected version 6.49.9 is no longer available" in gone.err
    assert "tofu-solve init -upgrade=hashicorp/aws" in gone.err and lock.read_text() == before
    assert tofu_solve(root, "init", "-upgrade=hashicorp/aws").code == 0


def test_a_nested_call_that_cannot_be_reached_is_cited_inside_its_package(tmp_path, tofu_solve):
    """Issue #50 §5: a source a package's own call names that cannot be reached is cited at
    that call's source line, named with the package and version first, never as a line of
    the user's own file."""
    from tests.e2e.conftest import make_repo
    missing = tmp_path / "nothing-here"
    pkg = make_repo(tmp_path / "repos" / "outer", [("v1.0.0", {"main.tf": "# outer\n\n\nmodule \"inner\" {\n"
                                                                          f'  source = "git::file://{missing}?ref=v1"\n'
                                                                          "}\n"})])
    root = write_root(tmp_path / "root", f'module "outer" {{\n  source  = "git::{pkg}"\n  version = "~> 1.0"\n}}\n')
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 1
    assert f'on git::{pkg} v1.0.0: main.tf line 5, in module "inner":' in r.err, r.err
    assert "on main.tf line 5" not in r.err
