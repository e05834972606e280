"""Issue #39: a team's module policy applied while solving, against the fixture world: a
denied version skipped and named, a call whose allowed versions are all denied explained
with the rule, refused sources, a denied provider version, and a committed lock that today's
policy denies caught by ``check``."""

from __future__ import annotations

import json

import pytest

from tests.e2e.conftest import lock_versions, write_root
from tofu_solve.config.policy import find_policy, read_policy
from tofu_solve.errors import ConfigurationError

VPC = '''
module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 6.0"
}
'''

DENY_VPC_660 = '''
deny "module" "terraform-aws-modules/vpc/aws" {
  versions = "6.6.0"
  reason   = "breaks the NAT gateways"
  link     = "https://example.com/incidents/42"
}
'''


def test_a_denied_version_is_not_a_candidate_and_is_named(tmp_path, tofu_solve):
    root = write_root(tmp_path / "repo" / "envs" / "prod", VPC)
    (tmp_path / "repo" / "tofu-solve-policy.hcl").write_text(DENY_VPC_660)  # found from the root upward
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"vpc": "6.5.1"}  # the newest the policy allows
    assert ('Warning: deny "module" "registry.opentofu.org/terraform-aws-modules/vpc/aws" '
            "(../../tofu-solve-policy.hcl:2) held back vpc at 6.5.1 (kept out: 6.6.0): breaks the NAT gateways "
            "(https://example.com/incidents/42).") in " ".join(r.out.split())
    data = json.loads(tofu_solve(root, "init", "-handover=false", "-json", "-upgrade").out.strip()
                      .splitlines()[-1])["result"]  # -upgrade: chosen afresh, so 6.6.0 is looked at
    assert data["policy"]["file"] == "../../tofu-solve-policy.hcl"
    assert data["policy"]["denied"] == [{"subject": "vpc", "version": "6.6.0", "why": "policy", "rule": {
        "kind": "module", "subject": "registry.opentofu.org/terraform-aws-modules/vpc/aws", "versions": "6.6.0",
        "reason": "breaks the NAT gateways", "link": "https://example.com/incidents/42",
        "file": "../../tofu-solve-policy.hcl", "line": 2}}]
    # without the policy (-policy=none), the newest
    assert lock_versions(tofu_solve(root, "init", "-handover=false", "-upgrade", "-policy=none").lock) == \
        {"vpc": "6.6.0"}


def test_only_denied_versions_left_is_a_conflict_naming_the_rule(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", VPC.replace('"~> 6.0"', '"6.6.0"'))
    (tmp_path / "root" / "tofu-solve-policy.hcl").write_text(DENY_VPC_660)
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 1
    assert "the policy denies it" in r.err and "tofu-solve-policy.hcl:2" in r.err, r.err
    assert "main.tf" in r.err  # beside the constraint that pins it
    # a compliant alternative, verified by solving again under the policy
    assert 'change "6.6.0" to "6.5.1" at main.tf:3: vpc 6.5.1 would be selected' in r.err
    assert not (root / ".terraform.lock.hcl").exists()


def test_a_refused_source_is_an_error_at_the_call(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", VPC)
    policy = tmp_path / "policy.hcl"
    policy.write_text('sources {\n  allow = ["cloudposse/*/*"]\n}\n')
    r = tofu_solve(root, "init", "-handover=false", f"-policy={policy}")
    assert r.code == 1
    assert "Error: Module source refused by policy" in r.err and "on main.tf line 2" in r.err
    assert "not in sources.allow at" in r.err
    policy.write_text('sources {\n  deny = ["terraform-aws-modules/vpc/*"]\n}\n')
    r = tofu_solve(root, "init", "-handover=false", f"-policy={policy}")
    assert r.code == 1 and 'sources.deny "registry.opentofu.org/terraform-aws-modules/vpc/*"' in r.err


def test_a_denied_provider_version_is_skipped(tmp_path, tofu_solve):
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
    free = tofu_solve(root, "init", "-handover=false", "-policy=none")
    assert free.code == 0, free.err
    newest = json.loads(tofu_solve(root, "init", "-handover=false", "-json", "-policy=none").out.strip()
                        .splitlines()[-1])["result"]["providers"]
    top = next(p["version"] for p in newest if p["address"].endswith("hashicorp/aws"))
    (root / "tofu-solve-policy.hcl").write_text(f'deny "provider" "hashicorp/aws" {{\n  versions = "{top}"\n'
                                                f'  reason   = "GHSA-test"\n}}\n')
    r = tofu_solve(root, "init", "-handover=false", "-upgrade")
    assert r.code == 0, r.err
    assert f'version     = "{top}"' not in r.lock and 'provider "registry.opentofu.org/hashicorp/aws"' in r.lock
    assert "GHSA-test" in r.out + r.err


def test_check_catches_a_lock_that_todays_policy_denies(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", VPC)
    assert tofu_solve(root, "init", "-handover=false").code == 0
    assert tofu_solve(root, "check").code == 0
    (root / "tofu-solve-policy.hcl").write_text(DENY_VPC_660)  # a rule added after the lock was committed
    r = tofu_solve(root, "check")
    assert r.code == 1
    assert 'module "vpc": is locked at 6.6.0, which the policy denies' in r.err
    assert "breaks the NAT gateways" in r.err and "tofu-solve init moves it to the nearest allowed version" in r.err
    data = tofu_solve(root, "check", "-json").json()
    assert [d["kind"] for d in data["differences"]] == ["policy"]
    assert data["differences"][0]["file"].endswith("tofu-solve-policy.hcl") and data["differences"][0]["line"] == 2
    moved = tofu_solve(root, "init", "-handover=false")  # the command check names
    assert moved.code == 0 and lock_versions(moved.lock) == {"vpc": "6.5.1"}
    assert tofu_solve(root, "check").code == 0


@pytest.mark.parametrize("text,summary,line", [
    ('deny "module" "a/b/c" {\n  reason = "x"\n}\n', "Missing required argument", 1),
    ('deny "module" "a/b/c" {\n  versions = "~> not"\n  reason = "x"\n}\n', "Invalid version constraint", 2),
    ('deny "provider" "a/b/c/d" {\n  versions = "1.0.0"\n  reason = "x"\n}\n', "Invalid provider source address", 1),
    ('sources {\n  allow = "x"\n}\n', "Invalid policy value", 2),
    ('allow = ["x"]\n', "Unsupported argument", 1),
    ('permit "x" {\n}\n', "Unsupported block type", 1),
    ('deny "module" "a/b/c" {\n  versions = "1.0.0"\n  reason = "x"\n  why = "y"\n}\n', "Unsupported argument", 4),
])
def test_policy_file_errors_name_file_and_line(tmp_path, text, summary, line):
    p = tmp_path / "tofu-solve-policy.hcl"
    p.write_text(text)
    with pytest.raises(ConfigurationError) as e:
        read_policy(p, "tofu-solve-policy.hcl")
    assert (e.value.summary, e.value.where.file, e.value.where.line) == (summary, "tofu-solve-policy.hcl", line)


def test_the_policy_file_is_found_upward_and_named_by_flag_or_variable(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "tofu-solve-policy.hcl").write_text("")
    assert find_policy(tmp_path / "a" / "b", None, {}) == tmp_path / "tofu-solve-policy.hcl"
    other = tmp_path / "other.hcl"
    other.write_text("")
    assert find_policy(tmp_path / "a", None, {"TOFU_SOLVE_POLICY": str(other)}) == other
    assert find_policy(tmp_path / "a", "none", {"TOFU_SOLVE_POLICY": str(other)}) is None  # the flag wins
    with pytest.raises(ConfigurationError, match="Policy file not found"):
        find_policy(tmp_path, str(tmp_path / "missing.hcl"), {})


def test_the_policys_release_cooldown_is_a_floor(tmp_path, tofu_solve, own_cache):
    """release_cooldown is the existing cooldown (one mechanism): a shorter -min-age does not
    lower it, and it is named as the policy's in the warning."""
    import time

    from tests.e2e.conftest import make_repo
    day = 86400
    now = int(time.time())
    url = make_repo(tmp_path / "mod", [("v1.0.0", {"main.tf": "# one\n"}), ("v1.1.0", {"main.tf": "# two\n"})],
                    dates={"v1.0.0": now - 30 * day, "v1.1.0": now - 2 * day})
    root = write_root(tmp_path / "root", f'module "m" {{\n  source  = "git::{url}"\n  version = "~> 1.0"\n}}\n')
    (root / "tofu-solve-policy.hcl").write_text('release_cooldown = "7d"\n')
    r = tofu_solve(root, "init", "-handover=false", "-min-age=1d")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"m": "v1.0.0"}
    assert "release_cooldown=7d (tofu-solve-policy.hcl:1) held back m at v1.0.0 (kept out: v1.1.0, discovered " \
        in " ".join(r.out.split())
    r = tofu_solve(root, "init", "-handover=false", "-upgrade", "-min-age=30d")  # a longer one still applies
    assert r.code == 0 and lock_versions(r.lock) == {"m": "v1.0.0"} and "-min-age=30d" in " ".join(r.out.split())


def test_required_package_pins_refuse_a_floating_module(tmp_path, tofu_solve, own_cache):
    from tests.e2e.conftest import make_repo
    url = make_repo(tmp_path / "mod", [("v1.0.0", {"main.tf": "# one\n"})])
    root = write_root(tmp_path / "root", f'module "m" {{\n  source = "git::{url}?ref=v1.0.0"\n}}\n')
    (root / "tofu-solve-policy.hcl").write_text("require_package_pins = true\nrequire_signed_providers = true\n")
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err  # a git tag is locked at its commit; no provider: nothing unsigned
    assert f'package = "git::{url}?ref=' in r.lock

    # an archive without ?checksum= has no immutable address: refused before anything is written
    import functools
    import http.server
    import io
    import threading
    import zipfile
    site = tmp_path / "site"
    site.mkdir()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("main.tf", "# archived\n")
    (site / "m.zip").write_bytes(buf.getvalue())
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        other = write_root(tmp_path / "other", f'module "a" {{\n  source = '
                                               f'"http://127.0.0.1:{httpd.server_address[1]}/m.zip"\n}}\n')
        (other / "tofu-solve-policy.hcl").write_text("require_package_pins = true\n")
        r = tofu_solve(other, "init", "-handover=false")
        assert r.code == 1 and "Error: Floating module refused by policy" in r.err, r.err
        assert "on tofu-solve-policy.hcl line 1" in r.err and not (other / ".terraform.lock.hcl").exists()
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize("text,summary", [
    ('release_cooldown = "7 days"\n', "Invalid duration"),
    ("require_package_pins = 1\n", "Invalid policy value"),
])
def test_policy_settings_are_checked(tmp_path, text, summary):
    p = tmp_path / "tofu-solve-policy.hcl"
    p.write_text(text)
    with pytest.raises(ConfigurationError) as e:
        read_policy(p, "tofu-solve-policy.hcl")
    assert (e.value.summary, e.value.where.line) == (summary, 1)


def test_outdated_shows_what_the_policy_holds_back(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", VPC)
    (root / "tofu-solve-policy.hcl").write_text(DENY_VPC_660)
    assert tofu_solve(root, "init", "-handover=false").code == 0
    r = tofu_solve(root, "outdated", "-json")
    assert r.code == 0, r.err  # nothing can move: the newer version is denied
    row = next(x for x in r.json()["items"] if x["name"] == "vpc")
    assert (row["locked"], row["can_move_to"], row["newest_allowed"], row["held_by"]) == ("6.5.1", "6.5.1", "6.6.0",
                                                                                          "policy")
    assert row["newer"][0]["version"] == "6.6.0" and "breaks the NAT gateways" in row["newer"][0]["denied"]
    text = tofu_solve(root, "outdated").out
    assert "policy" in text


# ---------------------------------------------------------------- issue #47 §1: a policy change is a lock change


def _vpc_locked_at(tofu_solve, root, version: str) -> None:
    """Lock vpc at ``version`` under the constraint "~> 6.0" (pinned first, then widened:
    the lock still applies, so it stays)."""
    (root / "main.tf").write_text(VPC.replace('"~> 6.0"', f'"{version}"').lstrip())
    assert lock_versions(tofu_solve(root, "init", "-handover=false").lock) == {"vpc": version}
    (root / "main.tf").write_text(VPC.lstrip())
    assert lock_versions(tofu_solve(root, "init", "-handover=false").lock) == {"vpc": version}


def test_a_lock_the_policy_denies_moves_to_the_nearest_allowed_version(tmp_path, tofu_solve):
    """Issue #47 §1: a locked version today's policy denies is a lock that no longer applies,
    as an edited constraint is: ``-lockfile=readonly`` refuses with the change and the rule,
    a plain ``init`` moves it to the nearest allowed version (6.2.0 -> 6.3.0, not the newest
    6.6.0), naming the rule, and "Locked version no longer available" is never said."""
    root = write_root(tmp_path / "repo" / "envs" / "prod", VPC)
    _vpc_locked_at(tofu_solve, root, "6.2.0")
    (tmp_path / "repo" / "tofu-solve-policy.hcl").write_text(DENY_VPC_660.replace('"6.6.0"', '"6.2.0"'))
    before = (root / ".terraform.lock.hcl").read_text()
    rule = ('denied by deny "module" "registry.opentofu.org/terraform-aws-modules/vpc/aws" '
            "(../../tofu-solve-policy.hcl:2): breaks the NAT gateways (https://example.com/incidents/42)")

    ro = tofu_solve(root, "init", "-handover=false", "-lockfile=readonly")
    assert ro.code == 1 and "Error: Lock file would change" in ro.err, ro.err
    assert f'~ module "vpc" 6.2.0 -> 6.3.0: {rule}' in ro.err
    assert "no longer available" not in ro.out + ro.err
    assert (root / ".terraform.lock.hcl").read_text() == before

    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"vpc": "6.3.0"}  # nearest, the newer of two equally near
    assert f'~ module "vpc" 6.2.0 -> 6.3.0: {rule}' in r.out
    assert "no longer available" not in r.out + r.err
    assert tofu_solve(root, "check").code == 0


def test_a_denied_lock_with_no_newer_allowed_version_moves_down(tmp_path, tofu_solve):
    """The nearest allowed version may be older: a rule denying everything from the locked
    version up moves the lock to the newest version below it, not to a fresh pick."""
    root = write_root(tmp_path / "root", VPC)
    _vpc_locked_at(tofu_solve, root, "6.2.0")
    (root / "tofu-solve-policy.hcl").write_text(DENY_VPC_660.replace('"6.6.0"', '">= 6.2.0"'))
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"vpc": "6.1.0"}
    assert '~ module "vpc" 6.2.0 -> 6.1.0: denied by deny "module"' in r.out


def test_upgrade_name_on_a_denied_lock_names_the_rule(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", VPC)
    assert lock_versions(tofu_solve(root, "init", "-handover=false").lock) == {"vpc": "6.6.0"}
    (root / "tofu-solve-policy.hcl").write_text(DENY_VPC_660)
    r = tofu_solve(root, "init", "-handover=false", "-upgrade=vpc")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"vpc": "6.5.1"}
    assert '~ module "vpc" 6.6.0 -> 6.5.1: denied by deny "module" "registry.opentofu.org/terraform-aws-modules/' \
        'vpc/aws" (tofu-solve-policy.hcl:2): breaks the NAT gateways' in r.out


def test_a_provider_lock_the_policy_denies_moves_to_the_nearest_allowed_version(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", AWS5.replace('"~> 5.0"', '"5.95.0"'))
    assert tofu_solve(root, "init", "-handover=false").code == 0
    (root / "main.tf").write_text(AWS5.lstrip())
    assert tofu_solve(root, "init", "-handover=false").code == 0
    assert 'version     = "5.95.0"' in (root / ".terraform.lock.hcl").read_text()  # the lock applies: kept
    (root / "tofu-solve-policy.hcl").write_text('deny "provider" "hashicorp/aws" {\n  versions = "5.95.0"\n'
                                                '  reason   = "GHSA-test"\n}\n')
    ro = tofu_solve(root, "init", "-handover=false", "-lockfile=readonly")
    assert ro.code == 1 and "Error: Lock file would change" in ro.err
    assert ('~ provider "registry.opentofu.org/hashicorp/aws" 5.95.0 -> 5.96.0: denied by deny "provider" '
            '"registry.opentofu.org/hashicorp/aws" (tofu-solve-policy.hcl:1): GHSA-test') in ro.err, ro.err
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    assert 'version     = "5.96.0"' in r.lock  # nearest, not the newest 5.x
    assert "no longer available" not in r.out + r.err


AWS5 = """
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
  }
}
"""


# ---------------------------------------------------------------- issue #47 §5: warnings a team reads

AWS6 = AWS5.replace('"~> 5.0"', '">= 6.0"')
DENY_NEW_AWS = 'deny "provider" "hashicorp/aws" {\n  versions = ">= 6.50.0"\n  reason   = "GHSA-test"\n}\n'


def _denied_aws(world) -> list[str]:
    """The released hashicorp/aws versions the rule above denies, newest first."""
    from tofu_solve.versions import apparentlymart_go_versions as gvs
    released = [gvs.Version.parse(v) for v in world.providers["hashicorp/aws"] if "-" not in v]
    floor = gvs.Version.parse("6.50.0")
    return [str(v) for v in sorted((v for v in released if v.compare(floor) >= 0), reverse=True,
                                   key=lambda v: (v.major, v.minor, v.patch))]


def test_a_rule_is_warned_about_once_under_two_lines_and_only_when_it_changed_something(tmp_path, tofu_solve,
                                                                                        world):
    denied = _denied_aws(world)
    root = write_root(tmp_path / "root", AWS6)
    (root / "tofu-solve-policy.hcl").write_text(DENY_NEW_AWS)
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    warned = [w for w in r.out.split("\n\n") if w.startswith("Warning: ")]
    assert len(warned) == 1, r.out
    text = " ".join(warned[0].split())
    assert len(text) <= 240, text  # under two lines of a wide terminal
    assert text == (f'Warning: deny "provider" "registry.opentofu.org/hashicorp/aws" (tofu-solve-policy.hcl:1) held back '
                    f"hashicorp/aws at 6.49.0 (kept out: {len(denied)} newer, the newest {denied[0]}): GHSA-test.")
    data = tofu_solve(root, "init", "-handover=false", "-json", "-upgrade").json()  # -json keeps the whole list
    assert sorted(d["version"] for d in data["policy"]["denied"]) == sorted(denied)
    again = tofu_solve(root, "init", "-handover=false")  # the lock holds 6.49.0: the rule changed nothing
    assert again.code == 0 and "Warning:" not in again.out
    verbose = tofu_solve(root, "init", "-handover=false", "-upgrade", "-verbose")
    assert f"hashicorp/aws at 6.49.0, not {', '.join(denied)}: GHSA-test." in " ".join(verbose.out.split())


def test_under_recursive_a_rule_is_warned_about_once_across_roots(tmp_path, tofu_solve):
    base = tmp_path / "repo"
    for env in ("envs/a", "envs/b", "envs/c"):
        write_root(base / env, AWS6)
    (base / "tofu-solve-policy.hcl").write_text(DENY_NEW_AWS)
    r = tofu_solve(base, "init", "-recursive", "-handover=false")
    assert r.code == 0, r.out + r.err
    assert r.out.count("Warning: ") == 1, r.out
    said = " ".join(r.out.split())
    assert ('deny "provider" "registry.opentofu.org/hashicorp/aws" (tofu-solve-policy.hcl:1) held back hashicorp/aws '
            "at 6.49.0 in 3 roots (envs/a, envs/b, envs/c): GHSA-test.") in said, r.out
