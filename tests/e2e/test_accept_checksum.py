"""A changed checksum is re-accepted at the same version (issue #60 §1), against the fixture
world's registry, git daemon and provider registry on 127.0.0.1.

``tofu-solve init -accept-checksum=NAME`` is what every checksum error advises: it records
the package's new contents at the locked version and moves nothing; it is refused when the
version itself would change (``-upgrade=NAME`` used to be the advice, and it moved vpc
6.5.1 -> 6.6.0, a version nobody reviewed). A provider package replaced at its locked
version is refused as OpenTofu's installer refuses it (``internal/providercache/installer.go``:
"doesn't match any of the checksums previously recorded in the dependency lock file"), with
the same way to accept it.
"""

from __future__ import annotations

import hashlib

from tests.e2e.conftest import write_root
from tests.e2e.test_provider_locks import ROOT as PROVIDERS_ROOT
from tofu_solve.lockfile import parse_lock_text
from tofu_solve.world import RegistryServer, write_cli_config
from tofu_solve.world.provider_files import PLATFORMS, ProviderFiles

AWS = "registry.opentofu.org/hashicorp/aws"


def _vpc(version: str) -> str:
    return f'module "vpc" {{\n  source  = "terraform-aws-modules/vpc/aws"\n  version = "{version}"\n}}\n'


def _locked_at_651(root):
    """vpc locked at 6.5.1 while "~> 6.0" admits 6.6.0 too (the issue's repository)."""
    write_root(root, _vpc("6.5.1"))
    return root


def test_an_edited_hash_is_accepted_at_the_locked_version_not_upgraded(isolated, tofu_solve):
    root = _locked_at_651(isolated / "root")
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    write_root(root, _vpc("~> 6.0"))  # the lock still applies: 6.6.0 is allowed, 6.5.1 is kept
    lock_path = root / ".terraform.lock.hcl"
    genuine_lock = lock_path.read_text()
    real = parse_lock_text(genuine_lock)[0].modules["vpc"].hashes[0]
    forged = real[:-2] + ("A" if real[-2] != "A" else "B") + "="  # one character changed
    lock_path.write_text(genuine_lock.replace(real, forged))
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 1 and "Error: Lock file hash edited" in r.err
    assert "tofu-solve init -accept-checksum=vpc" in r.err and "-upgrade" not in r.err
    r = tofu_solve(root, "init", "-accept-checksum=vpc", "-handover=false")
    assert r.code == 0, r.err
    after = parse_lock_text(lock_path.read_text())[0].modules["vpc"]
    assert after.version == "6.5.1" and after.hashes == (real,)  # the reviewed version, its genuine hash
    assert after.package == parse_lock_text(genuine_lock)[0].modules["vpc"].package and after.constraints == "~> 6.0"
    said = " ".join(r.out.split())
    assert f"checksum accepted at 6.5.1 (-accept-checksum=vpc): {forged}" in said and f"-> {real}" in said
    assert tofu_solve(root, "check").code == 0


def test_accepting_is_refused_when_the_version_would_change(isolated, tofu_solve):
    root = _locked_at_651(isolated / "root")
    assert tofu_solve(root, "init", "-handover=false").code == 0
    write_root(root, _vpc(">= 6.6.0"))  # the configuration no longer admits the locked version
    lock_path = root / ".terraform.lock.hcl"
    before = lock_path.read_text()
    r = tofu_solve(root, "init", "-accept-checksum=vpc", "-handover=false")
    assert r.code == 1 and "Error: Checksum not accepted" in r.err
    said = " ".join(r.err.split())
    assert 'module "vpc" at its locked version 6.5.1 only, but the configuration would move it 6.5.1 -> 6.6.0' in said
    assert "Nothing was changed" in said
    assert lock_path.read_text() == before


def test_accept_checksum_names_only_what_the_lock_holds_and_stands_alone(isolated, tofu_solve):
    root = _locked_at_651(isolated / "root")
    assert tofu_solve(root, "init", "-handover=false").code == 0
    r = tofu_solve(root, "init", "-accept-checksum=vcp", "-handover=false")
    assert r.code == 1 and "Unknown name in -accept-checksum" in r.err and "Did you mean -accept-checksum=vpc?" in r.err
    r = tofu_solve(root, "init", "-accept-checksum=vpc", "-upgrade", "-handover=false")
    assert r.code == 1 and "Incompatible flags" in r.err
    r = tofu_solve(root, "init", "-accept-checksum=vpc", "-lockfile=readonly", "-handover=false")
    assert r.code == 1 and "Incompatible flags" in r.err


ROOT = PROVIDERS_ROOT.split('module "kms"', 1)[0]  # hashicorp/aws "~> 5.90" alone


def test_a_provider_package_replaced_at_its_version_is_refused_then_accepted(isolated, tofu_solve, world, running,
                                                                             monkeypatch):
    reg = RegistryServer(world, running.git.url).start()
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(write_cli_config(isolated / "rc", reg.url)))
    try:
        root = write_root(isolated / "root", ROOT)
        r = tofu_solve(root, "init", "-handover=false")
        assert r.code == 0, r.err
        lock_path = root / ".terraform.lock.hcl"
        before = lock_path.read_text()
        old = parse_lock_text(before)[0].providers[AWS]
        assert old.version == "5.100.0"
        # the registry re-releases 5.100.0 with other bytes, signed anew (a compromised release pipeline)
        files = reg.provider_files
        genuine = files.package
        monkeypatch.setattr(files, "package", lambda a, v, p: genuine(a, "5.99.0", p) if v == "5.100.0"
                            else genuine(a, v, p))
        resigned = ProviderFiles.sums.__wrapped__(files, "hashicorp/aws", "5.100.0")
        real_sums = files.sums
        monkeypatch.setattr(files, "sums", lambda a, v: resigned if v == "5.100.0" else real_sums(a, v))
        monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(isolated / "fresh-machine"))  # a CI job's empty cache
        r = tofu_solve(root, "init", "-handover=false")
        assert r.code == 1 and "Error: Provider checksum verification failed" in r.err
        said = " ".join(r.err.split())
        assert "doesn't match any of the checksums previously recorded in the dependency lock file" in said
        assert "tofu-solve init -accept-checksum=hashicorp/aws" in r.err
        assert lock_path.read_text() == before
        r = tofu_solve(root, "init", "-accept-checksum=hashicorp/aws", "-handover=false")
        assert r.code == 0, r.err
        new = parse_lock_text(lock_path.read_text())[0].providers[AWS]
        assert new.version == "5.100.0"
        replaced = {"zh:" + hashlib.sha256(files.package("hashicorp/aws", "5.100.0", p)).hexdigest() for p in PLATFORMS}
        assert replaced <= set(new.hashes) and not set(old.hashes) & set(new.hashes)  # the old ones no longer hold
        assert "checksum accepted at 5.100.0 (-accept-checksum=hashicorp/aws)" in " ".join(r.out.split())
    finally:
        reg.stop()
