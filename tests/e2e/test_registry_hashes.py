"""OpenTofu 1.12's registry hashes (issue #82 §2): the ``packages`` field of
registry.opentofu.org's provider download answers checked against the downloaded package,
and every platform's hashes in the lock, as ``tofu init`` 1.12 writes them.

Sources: ``rfc/20251027-provider-registry-hashes.md``;
``internal/getproviders/registry_client.go`` (``PackageMeta`` reads ``packages``);
``internal/getproviders/package_authentication.go`` ``registryPackageAuthentication`` (the
checks and their words); ``internal/providercache/installer.go`` (hashes reported by the
registry reach the lock where ``ShouldEnforceGPGValidationForProvider`` is false), all at
v1.12.0. The fixture world's registry serves the field on the OpenTofu registry's host only,
as registry.opentofu.org does and registry.terraform.io does not.
"""

from __future__ import annotations

import hashlib

import pytest

from tests.e2e.conftest import write_root
from tofu_solve.lockfile import parse_lock_text
from tofu_solve.plugins import current_platform
from tofu_solve.world import RegistryServer, write_cli_config
from tofu_solve.world.provider_files import PLATFORMS

AWS = "registry.opentofu.org/hashicorp/aws"
ROOT = '''
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "5.100.0"
    }
  }
}
'''
HERE = current_platform()


def _hashes(r, address: str = AWS) -> set[str]:
    locks, diags = parse_lock_text(r.lock)
    assert [d for d in diags if d.severity == "error"] == []
    return set(locks.providers[address].hashes)


def _expected(files, platforms=PLATFORMS) -> set[str]:
    return {files.package_h1("hashicorp/aws", "5.100.0", p) for p in platforms} | {
        "zh:" + hashlib.sha256(files.package("hashicorp/aws", "5.100.0", p)).hexdigest() for p in PLATFORMS}


@pytest.fixture
def own_registry(world, running, isolated, monkeypatch):
    """A registry of the test's own (its answers changed by the test), on both hosts."""
    reg = RegistryServer(world, running.git.url).start()
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(write_cli_config(isolated / "rc", reg.url)))
    yield reg
    reg.stop()


def test_every_platforms_hashes_are_locked_and_the_lock_then_holds(isolated, tofu_solve, running):
    root = write_root(isolated / "root", ROOT)
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    assert _hashes(r) == _expected(running.registry.provider_files)
    # the lock holds for every command that asks: readonly, check, a warm init writes nothing
    assert tofu_solve(root, "init", "-lockfile=readonly", "-handover=false").code == 0
    assert tofu_solve(root, "check").code == 0
    before = (root / ".terraform.lock.hcl").read_text()
    warm = tofu_solve(root, "init", "-json", "-handover=false")
    assert warm.code == 0 and warm.json()["lock_file"]["provider_changes"] == []
    assert (root / ".terraform.lock.hcl").read_text() == before


def test_terraform_and_older_opentofu_lock_this_machines_h1_only(isolated, tofu_solve, running):
    files = running.registry.provider_files
    for pin, address in ((".opentofu-version", AWS), (".terraform-version", "registry.terraform.io/hashicorp/aws")):
        root = write_root(isolated / pin.strip("."), ROOT)
        (root / pin).write_text("1.11.4\n")
        r = tofu_solve(root, "init", "-handover=false")
        assert r.code == 0, r.err
        assert _hashes(r, address) == _expected(files, (HERE,)), pin


def test_enforced_signatures_keep_the_registrys_hashes_out(isolated, tofu_solve, running, monkeypatch):
    """installer.go: with signing required, only signed hashes (the SHA256SUMS zh:) and
    this machine's h1: are locked; the field is still checked."""
    monkeypatch.setenv("OPENTOFU_ENFORCE_GPG_VALIDATION", "true")
    root = write_root(isolated / "root", ROOT)
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    assert _hashes(r) == _expected(running.registry.provider_files, (HERE,))


def _lie(field: str):
    def edit(addr, version, packages):
        entry = packages[HERE]
        if field == "size":
            entry["package_size"] += 1
        elif field == "zh":
            entry["hashes"][0] = "zh:" + "0" * 64
        elif field == "h1":
            entry["hashes"][1] = "h1:" + "A" * 43 + "="
        elif field == "platform":
            del packages[HERE]
        elif field == "malformed":
            entry["hashes"].append('h1:"\n  ]\n}\nprovider "x" {')
        return packages
    return edit


@pytest.mark.parametrize("field,words", [
    ("size", "registry response indicates a package of size"),
    ("zh", "registry response expected sha256sum is"),
    ("h1", "but the package unpacks to"),
    ("platform", f'registry response missing package with platform "{HERE}"'),
    ("malformed", "Invalid response from provider registry"),
])
def test_a_registry_whose_packages_lie_is_refused_and_nothing_is_locked(isolated, tofu_solve, own_registry, field,
                                                                        words):
    own_registry.packages_edit = _lie(field)
    root = write_root(isolated / "root", ROOT)
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 1, r.out
    assert words in r.err and "hashicorp/aws" in r.err
    assert not (root / ".terraform.lock.hcl").exists()
    assert not (root / ".terraform").exists() or not any((root / ".terraform").rglob("terraform-provider-*"))


def test_the_lie_is_found_on_the_next_run_too(isolated, tofu_solve, own_registry):
    """A package unpacked in the cache by an earlier run is checked again against the field
    (its zip's size was recorded when it was downloaded)."""
    root = write_root(isolated / "root", ROOT)
    assert tofu_solve(root, "init", "-handover=false").code == 0
    (root / ".terraform.lock.hcl").unlink()
    own_registry.packages_edit = _lie("size")
    r = tofu_solve(root, "init", "-handover=false", "-upgrade")
    assert r.code == 1 and "registry response indicates a package of size" in r.err


def test_platform_takes_another_platforms_h1_from_the_field_without_its_package(isolated, tofu_solve, own_registry):
    other = next(p for p in PLATFORMS if p != HERE)
    root = write_root(isolated / "root", ROOT)
    r = tofu_solve(root, "init", "-handover=false", f"-platform={HERE}", f"-platform={other}")
    assert r.code == 0, r.err
    assert _hashes(r) == _expected(own_registry.provider_files)
    downloads = [p for _, p, _ in own_registry.log.requests if p.endswith(".zip")]
    assert downloads and all(HERE in p for p in downloads)  # the other platform's zip was never asked for
