"""Issue #62 §3: what a registry says about a version's life, against a real HTTP registry
that answers as HCP Terraform's private registry does (``RegistryServer(hcp=True)``: a
``deprecation`` per version in the module versions listing, ``revoked-versions`` and each
version's ``revocation`` in the v2 API; ``../shared/docs/policy-lifecycle-reference.md``
§2). Deprecated and revoked versions, locked and not; a registry without the v2 API is never
asked. (A locked version deleted from the index: ``tests/e2e/test_integrity.py``.)"""

from __future__ import annotations

import json

import pytest

from tests.e2e.conftest import lock_versions, write_root
from tofu_solve.world.servers import RegistryServer, write_cli_config

VPC_ADDR = "terraform-aws-modules/vpc/aws"
VPC = '''
module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 6.0"
}
'''
NAT = {"reason": "NAT gateways are recreated on upgrade", "link": "https://example.com/notices/7"}
CVE = {"message": "CVE-2026-0001: leaks the flow logs bucket", "link": "https://example.com/cve/1"}


@pytest.fixture
def hcp(isolated, world, running, monkeypatch):
    """A registry answering as HCP's private registry, with a cache of the test's own (what
    a registry says of a version is kept there)."""
    reg = RegistryServer(world, running.git.url, hcp=True).start()
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(write_cli_config(isolated / "rc", reg.url, hcp=True)))
    yield reg
    reg.stop()


def result(run) -> dict:
    return json.loads(run.out.strip().splitlines()[-1])["result"]


def test_a_deprecated_version_is_taken_only_when_nothing_else_does_as_well(isolated, hcp, tofu_solve):
    hcp.deprecations[VPC_ADDR] = {"6.6.0": NAT}
    root = write_root(isolated / "root", VPC)
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"vpc": "6.5.1"}  # the newest not deprecated
    why = tofu_solve(root, "why", "vpc")
    assert why.code == 0
    assert ("6.6.0: deprecated by its registry: NAT gateways are recreated on upgrade "
            "(https://example.com/notices/7)") in " ".join(why.out.split()), why.out
    rows = tofu_solve(root, "outdated", "-json").json()
    assert "deprecated by its registry" in json.dumps(rows)
    # pinned to the deprecated version: nothing else does as well, so it is taken, with a warning
    (root / "main.tf").write_text(VPC.replace('"~> 6.0"', '"6.6.0"'))
    r = tofu_solve(root, "init", "-handover=false", "-json")
    assert r.code == 0, r.err
    data = result(r)
    assert data["deprecated"] == [{"subject": "vpc", "version": "6.6.0", **NAT}]
    assert any(w["summary"] == "Deprecated module version" and "vpc is at 6.6.0, deprecated by its registry: NAT "
               "gateways are recreated on upgrade (https://example.com/notices/7)" in w["detail"]
               for w in data["warnings"]), data["warnings"]


def test_a_locked_version_deprecated_later_stays_with_a_warning(isolated, hcp, tofu_solve):
    root = write_root(isolated / "root", VPC)
    assert lock_versions(tofu_solve(root, "init", "-handover=false").lock) == {"vpc": "6.6.0"}
    hcp.deprecations[VPC_ADDR] = {"6.6.0": NAT}
    r = tofu_solve(root, "init", "-handover=false", "-lockfile=readonly")  # deprecation is no lock change
    assert r.code == 0, r.err
    assert "vpc is at 6.6.0, deprecated by its registry" in " ".join(r.out.split())


def test_a_revoked_version_is_never_selected_anew(isolated, hcp, tofu_solve):
    hcp.revocations[VPC_ADDR] = {"6.6.0": CVE}
    root = write_root(isolated / "root", VPC)
    r = tofu_solve(root, "init", "-handover=false", "-json")
    assert r.code == 0, r.err
    assert lock_versions((root / ".terraform.lock.hcl").read_text()) == {"vpc": "6.5.1"}
    assert any(w["summary"] == "Versions revoked by their registry" and "CVE-2026-0001" in w["detail"]
               for w in result(r)["warnings"]), result(r)["warnings"]
    (root / "main.tf").write_text(VPC.replace('"~> 6.0"', '"6.6.0"'))
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 1
    said = " ".join(r.err.split())
    assert "its registry revoked it: CVE-2026-0001: leaks the flow logs bucket (https://example.com/cve/1)" in said
    assert 'change "6.6.0" to "6.5.1" at main.tf:4' in said, said  # the file as written here: line 4


def test_a_revoked_locked_version_is_a_lock_change_check_flags_and_readonly_refuses(isolated, hcp, tofu_solve):
    root = write_root(isolated / "root", VPC)
    assert lock_versions(tofu_solve(root, "init", "-handover=false").lock) == {"vpc": "6.6.0"}
    hcp.revocations[VPC_ADDR] = {"6.6.0": CVE}
    refused = tofu_solve(root, "init", "-handover=false", "-lockfile=readonly")
    assert refused.code == 1 and "Lock file would change" in refused.err
    assert "CVE-2026-0001" in refused.err, refused.err
    checked = tofu_solve(root, "check")  # offline: what the last init heard from the registry
    assert checked.code == 1
    assert ('module "vpc": is locked at 6.6.0, which its registry revoked: CVE-2026-0001: leaks the flow logs '
            "bucket (https://example.com/cve/1)") in " ".join(checked.err.split()), checked.err
    moved = tofu_solve(root, "init", "-handover=false", "-json")
    assert moved.code == 0, moved.err
    data = result(moved)
    assert lock_versions((root / ".terraform.lock.hcl").read_text()) == {"vpc": "6.5.1"}  # the nearest not revoked
    change = next(c for c in data["lock_file"]["changes"] if c["path"] == "vpc")
    assert "CVE-2026-0001" in change["reason"], change
    assert tofu_solve(root, "check").code == 0


def test_a_registry_without_the_v2_api_is_never_asked(isolated, tofu_solve, running):
    before = sum(1 for _, path, _ in list(running.registry.log.requests) if path.startswith("/api/v2/"))
    root = write_root(isolated / "root", VPC)
    assert tofu_solve(root, "init", "-handover=false").code == 0
    after = sum(1 for _, path, _ in list(running.registry.log.requests) if path.startswith("/api/v2/"))
    assert after == before == 0


def test_a_move_down_from_a_deprecated_lock_is_called_a_downgrade_and_why_names_it(isolated, hcp, tofu_solve):
    """Issue #70 §4: outdated calls the move to an older version a downgrade and says why;
    why names the deprecation of the version the call is at."""
    root = write_root(isolated / "root", VPC)
    assert lock_versions(tofu_solve(root, "init", "-handover=false").lock) == {"vpc": "6.6.0"}
    hcp.deprecations[VPC_ADDR] = {"6.6.0": NAT}
    rows = {r["name"]: r for r in tofu_solve(root, "outdated", "-json").json()["items"]}
    vpc = rows["vpc"]
    assert (vpc["locked"], vpc["can_move_to"], vpc["downgrade"]) == ("6.6.0", "6.5.1", True), vpc
    assert ("the lock holds 6.6.0, which its registry deprecated (NAT gateways are recreated on upgrade, "
            "https://example.com/notices/7); tofu-solve init -upgrade=vpc moves it down to 6.5.1") in vpc["reason"]
    text = tofu_solve(root, "outdated")
    assert "6.5.1 (down)" in text.out, text.out
    assert "selects 6.5.1" not in text.out
    assert tofu_solve(root, "init", "-handover=false").code == 0  # kept, with init's warning
    why = " ".join(tofu_solve(root, "why", "vpc").out.split())
    assert "6.6.0 is deprecated by its registry: NAT gateways are recreated on upgrade" in why, why
