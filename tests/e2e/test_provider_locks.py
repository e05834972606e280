"""Provider blocks as ``tofu init`` writes them (issue #10 §1), against the fixture
world's provider registry: signed SHA256SUMS, deterministic zips, ``signing_keys``.

OpenTofu sources: ``internal/providercache/installer.go`` (hashes = this platform's h1 +
signed zh + prior hashes when the version is unchanged), ``internal/getproviders/
package_authentication.go`` (signature, matching checksum, archive checksum),
``internal/getproviders/types.go`` ``VersionConstraintsString``.
"""

from __future__ import annotations

import hashlib

from tests.e2e.conftest import write_root
from tofu_solve.lockfile import parse_lock_text
from tofu_solve.lockfile.hashes import hash_dir
from tofu_solve.plugins import current_platform
from tofu_solve.world import RegistryServer, write_cli_config
from tofu_solve.world.provider_files import PLATFORMS, SignedSums

AWS = "registry.opentofu.org/hashicorp/aws"
ROOT = '''
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.90"
    }
  }
}
module "kms" {
  source  = "terraform-aws-modules/kms/aws"
  version = "~> 3.0"
}
'''


def _lock(r):
    locks, diags = parse_lock_text(r.lock)
    assert [d for d in diags if d.severity == "error"] == []
    return locks


def test_provider_block_has_version_constraints_and_hashes(isolated, tofu_solve, world, running):
    root = write_root(isolated / "root", ROOT)
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    lock = _lock(r).providers[AWS]
    assert lock.version == "5.100.0"
    # root "~> 5.90" and kms 3.1.1 ">= 5.49" in one canonical string, as VersionConstraintsString sorts them
    assert lock.constraints == ">= 5.49.0, ~> 5.90"
    files = running.registry.provider_files
    signed = {"zh:" + hashlib.sha256(files.package("hashicorp/aws", "5.100.0", p)).hexdigest() for p in PLATFORMS}
    h1s = {h for h in lock.hashes if h.startswith("h1:")}
    assert set(lock.hashes) - h1s == signed  # every platform of the signed SHA256SUMS
    # OpenTofu 1.12 (the default target): every platform's h1: from the registry's packages field
    assert h1s == {files.package_h1("hashicorp/aws", "5.100.0", p) for p in PLATFORMS}
    # this machine's h1: is the unpacked package's, hashed as OpenTofu's PackageHashV1 does
    import io
    import zipfile
    d = isolated / "unpacked"
    zipfile.ZipFile(io.BytesIO(files.package("hashicorp/aws", "5.100.0", current_platform()))).extractall(d)
    assert hash_dir(d) in h1s
    assert f'+ provider "{AWS}" 5.100.0' in r.out
    # OpenTofu before 1.12 reads no packages field: this machine's platform only
    (root / ".opentofu-version").write_text("1.11.4\n")
    (root / ".terraform.lock.hcl").unlink()
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    assert {h for h in _lock(r).providers[AWS].hashes if h.startswith("h1:")} == {hash_dir(d)}


def test_platform_flag_adds_h1_for_each_target(isolated, tofu_solve):
    root = write_root(isolated / "root", ROOT)
    (root / ".opentofu-version").write_text("1.11.4\n")  # before the registry's packages field: each downloaded
    r = tofu_solve(root, "init", "-platform=linux_amd64", "-platform=darwin_arm64", "-platform=linux_amd64")
    assert r.code == 0, r.err
    lock = _lock(r).providers[AWS]
    assert sum(h.startswith("h1:") for h in lock.hashes) == 2
    bad = tofu_solve(root, "init", "-platform=linux")
    assert bad.code == 1 and "Invalid target platform" in bad.err


def test_fitting_block_kept_byte_for_byte_and_warm_run_needs_no_network(isolated, tofu_solve):
    root = write_root(isolated / "root", ROOT)
    assert tofu_solve(root, "init").code == 0
    # a comment tofu would not write, in a block that still fits: kept as it is
    text = (root / ".terraform.lock.hcl").read_text().replace(
        f'provider "{AWS}" {{\n', f'provider "{AWS}" {{\n  # pinned after review\n')
    (root / ".terraform.lock.hcl").write_text(text)
    r = tofu_solve(root, "init", "-json")
    assert r.code == 0, r.err
    data = r.json()
    assert data["lock_file"]["provider_changes"] == [] and data["lock_file"]["written"] is False
    assert data["network_operations"] == {}
    assert (root / ".terraform.lock.hcl").read_text() == text


def test_provider_no_longer_required_is_removed(isolated, tofu_solve):
    with_random = ROOT.replace("  required_providers {\n", "  required_providers {\n    random = {\n"
                               '      source  = "hashicorp/random"\n      version = "~> 3.0"\n    }\n')
    root = write_root(isolated / "root", with_random)
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert "registry.opentofu.org/hashicorp/random" in _lock(r).providers
    write_root(root, ROOT)
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert '- provider "registry.opentofu.org/hashicorp/random" (was 3.' in r.out
    assert set(_lock(r).providers) == {AWS}


def test_upgrade_moves_the_provider_and_readonly_reports_it(isolated, tofu_solve):
    root = write_root(isolated / "root", ROOT.replace('"~> 5.90"', '"5.95.0"'))
    assert tofu_solve(root, "init").code == 0
    write_root(root, ROOT)
    before = (root / ".terraform.lock.hcl").read_text()
    ro = tofu_solve(root, "init", "-upgrade", "-lockfile=readonly")
    assert ro.code == 1 and "Error: Lock file would change" in ro.err
    assert f'~ provider "{AWS}" 5.95.0 -> 5.' in ro.err and ': -upgrade' in ro.err
    assert (root / ".terraform.lock.hcl").read_text() == before
    r = tofu_solve(root, "init", "-upgrade")
    assert r.code == 0, r.err
    assert f'~ provider "{AWS}" 5.95.0 -> 5.100.0' in r.out
    lock = _lock(r).providers[AWS]
    assert lock.version == "5.100.0" and lock.constraints == ">= 5.49.0, ~> 5.90"


def test_plugin_cache_gets_the_unpacked_package_in_opentofu_layout(isolated, tofu_solve, monkeypatch):
    cache = isolated / "plugins"
    monkeypatch.setenv("TF_PLUGIN_CACHE_DIR", str(cache))
    root = write_root(isolated / "root", ROOT)
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    d = cache / "registry.opentofu.org" / "hashicorp" / "aws" / "5.100.0" / current_platform()
    assert (d / "terraform-provider-aws_v5.100.0_x5").is_file()
    assert hash_dir(d) in _lock(r).providers[AWS].hashes


def _own_registry(world, running, isolated, monkeypatch):
    reg = RegistryServer(world, running.git.url).start()
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(write_cli_config(isolated / "rc", reg.url)))
    return reg


def test_tampered_checksums_fail_signature_verification(isolated, tofu_solve, world, running, monkeypatch):
    reg = _own_registry(world, running, isolated, monkeypatch)
    try:
        real = reg.provider_files.sums("hashicorp/aws", "5.100.0")
        forged = real.document.replace(real.document[:8], b"00000000", 1)
        monkeypatch.setattr(reg.provider_files, "sums", lambda a, v: SignedSums(forged, real.signature))
        r = tofu_solve(write_root(isolated / "root", ROOT), "init")
        assert r.code == 1
        assert "Error: Failed to authenticate provider package" in r.err
        assert "does not verify against any signing key" in r.err
        assert "Stack backtrace" not in r.err
        assert not (isolated / "root" / ".terraform.lock.hcl").exists()
    finally:
        reg.stop()


def test_package_that_differs_from_its_checksum_is_refused(isolated, tofu_solve, world, running, monkeypatch):
    reg = _own_registry(world, running, isolated, monkeypatch)
    try:
        files = reg.provider_files
        real_package = files.package
        sums = files.sums("hashicorp/aws", "5.100.0")  # signed over the genuine packages
        monkeypatch.setattr(files, "sums", lambda a, v: sums)
        # the registry serves (and vouches for) other bytes than the signed document lists
        monkeypatch.setattr(files, "package", lambda a, v, p: real_package(a, "5.99.0", p))
        r = tofu_solve(write_root(isolated / "root", ROOT), "init")
        assert r.code == 1 and "Failed to authenticate provider package" in r.err
        assert "does not list terraform-provider-aws_5.100.0_" in r.err
    finally:
        reg.stop()


def test_offline_without_a_cached_package_names_it(isolated, tofu_solve, monkeypatch):
    root = write_root(isolated / "root", ROOT)
    r = tofu_solve(root, "init", "-offline")
    assert r.code == 1 and "Not available offline" in r.err


def test_lock_written_by_terraform_is_migrated_as_tofu_init_does(isolated, tofu_solve):
    """depsfile/locks.go UpgradeFromPredecessorProject: the registry.terraform.io lock's
    version carries over to registry.opentofu.org (hashes do not), the old block goes."""
    root = write_root(isolated / "root", ROOT)
    (root / ".terraform.lock.hcl").write_text(
        '# This file is maintained automatically by "terraform init".\n'
        '# Manual edits may be lost in future updates.\n\n'
        'provider "registry.terraform.io/hashicorp/aws" {\n  version     = "5.95.0"\n'
        '  constraints = "~> 5.90"\n  hashes = [\n    "h1:terraform-registry-hash=",\n  ]\n}\n')
    # the lock says Terraform: without a choice of the repository's, that is the product
    # (issue #34), whatever client this machine has
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    assert "written by terraform init" in r.out and set(_lock(r).providers) == {"registry.terraform.io/hashicorp/aws"}
    # the repository chooses OpenTofu: the migration is a lock change listed like any other
    (root / ".opentofu-version").write_text("1.12.6\n")
    ro = tofu_solve(root, "init", "-lockfile=readonly")
    assert ro.code == 1 and ".terraform.lock.hcl written for Terraform -> OpenTofu" in ro.err
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    locks = _lock(r)
    assert set(locks.providers) == {AWS}
    lock = locks.providers[AWS]
    assert lock.version == "5.95.0" and "h1:terraform-registry-hash=" not in lock.hashes
    assert '- provider "registry.terraform.io/hashicorp/aws" (was 5.95.0)' in r.out
    assert ".terraform.lock.hcl written for Terraform -> OpenTofu: solved for OpenTofu 1.12.6" in r.out
    assert r.lock.startswith('# This file is maintained automatically by "tofu init".')


def test_main_registry_without_signing_keys_as_opentofu_allows(isolated, tofu_solve, world, running, monkeypatch):
    """package_authentication.go ShouldEnforceGPGValidationForProvider: no key from
    registry.opentofu.org skips the check (with a warning) unless
    OPENTOFU_ENFORCE_GPG_VALIDATION=true; the document's hashes are recorded all the same.
    Any other registry must list a key."""
    reg = RegistryServer(world, running.git.url, signing_keys=False).start()
    try:
        monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(write_cli_config(isolated / "rc", reg.url)))
        r = tofu_solve(write_root(isolated / "root", ROOT), "init")
        assert r.code == 0, r.err
        assert "were not signature-checked" in r.out and "OPENTOFU_ENFORCE_GPG_VALIDATION" in r.out
        assert sum(h.startswith("zh:") for h in _lock(r).providers[AWS].hashes) == 4
        monkeypatch.setenv("OPENTOFU_ENFORCE_GPG_VALIDATION", "true")
        monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(isolated / "cache2"))
        r = tofu_solve(write_root(isolated / "root2", ROOT), "init")
        assert r.code == 1 and "not signed with a valid signing key" in r.err
        monkeypatch.delenv("OPENTOFU_ENFORCE_GPG_VALIDATION")
        monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(isolated / "cache3"))
        other = ROOT.replace('source  = "hashicorp/aws"', 'source  = "registry.example.com/hashicorp/aws"')
        monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(write_cli_config(isolated / "rc2", reg.url,
                                                                      hosts=("registry.example.com",
                                                                             "registry.opentofu.org"))))
        r = tofu_solve(write_root(isolated / "root3", other), "init")
        assert r.code == 1 and "not signed with a valid signing key" in r.err
    finally:
        reg.stop()


def test_hashes_of_unknown_schemes_are_dropped_as_tofu_drops_them(isolated, tofu_solve):
    """installer.go keeps a same-version lock's PreferredHashes (h1:, zh:) only."""
    root = write_root(isolated / "root", ROOT)
    assert tofu_solve(root, "init").code == 0
    text = (root / ".terraform.lock.hcl").read_text()
    at = text.index('\nprovider "')  # the first provider block's hashes (module blocks come first)
    (root / ".terraform.lock.hcl").write_text(
        text[:at] + text[at:].replace("  hashes = [\n", '  hashes = [\n    "h9:future-scheme",\n', 1))
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert r.lock == text


def test_provider_packages_read_ahead_during_the_solve_are_not_fetched_twice(isolated, tofu_solve):
    """Issue #13: the solver's likely provider pick is read ahead while it runs; the plan
    after the solve finds the package answer and the verified checksums in memory, so each
    is asked for once (without sharing, the answer and both documents would be asked twice)."""
    root = write_root(isolated / "root", ROOT)
    r = tofu_solve(root, "init", "-json")
    assert r.code == 0, r.err
    ops = r.json()["network_operations"]
    assert _lock(r).providers[AWS].version == "5.100.0"
    assert r.json()["stats"]["provider_versions_read_ahead"] >= 1  # read ahead during the solve
    assert (ops["provider_download"], ops["provider_checksums"], ops["provider_package"]) == (1, 2, 1), ops


def test_read_ahead_takes_a_guess_zip_only_when_small_and_the_locked_one_whatever_its_size(running, tmp_path):
    """A guess costs the small requests and a small zip at most: a zip the server announces
    over the read-ahead bound is refused at once (nothing cached), the locked version's zip
    is read whatever its size. Either way the plan's later ``info`` asks again only for
    what is missing; at most MAX_GUESSES versions per provider are read ahead."""
    from tofu_solve.addrs.provider import parse_provider_source
    from tofu_solve.lockfile import LockFile
    from tofu_solve.plugins.packages import packages_for_run
    from tofu_solve.plugins.provider_readahead import MAX_GUESSES, ProviderReadAhead
    from tofu_solve.settings import Settings
    from tofu_solve.solver.context import SolveOptions
    from tofu_solve.solver.wiring import build_context
    from tofu_solve.versions.target import target_version

    aws = parse_provider_source("hashicorp/aws")
    platform = current_platform()
    size = len(running.registry.provider_files.package("hashicorp/aws", "5.98.0", platform))
    for bound, guess_cached in ((size - 1, False), (size, True)):
        cache = tmp_path / f"cache-{bound}"
        wired = build_context(SolveOptions(target_version("1.10.0")), LockFile(), Settings.from_environ(running.env(cache)), None)
        ctx, counter = wired.context, wired.counter
        try:
            packages = packages_for_run(wired, offline=False, plugin_cache=None)
            ahead = ProviderReadAhead(packages, (platform,), {AWS: "5.99.0"}, zip_bytes=bound)
            ahead.likely(aws, "5.98.0")  # a guess
            ahead.likely(aws, "5.99.0")  # the locked version
            ahead.likely(aws, "5.98.0")  # the same guess again: nothing more
            for v in ("5.97.0", "5.96.0", "5.95.0"):
                ahead.likely(aws, v)
            ahead.close()
            assert ahead.guesses()[AWS] == ["5.98.0", "5.99.0", "5.97.0"][:MAX_GUESSES]
            assert (packages.cached(aws, "5.98.0", platform) is not None) == guess_cached
            assert packages.cached(aws, "5.99.0", platform) is not None  # locked: whatever the bound
            before = counter.snapshot()
            assert before["provider_download"] == MAX_GUESSES
            assert before["provider_checksums"] == 2 * MAX_GUESSES
            packages.info(aws, "5.98.0", platform)
            packages.info(aws, "5.99.0", platform)
            after = counter.snapshot()
            assert after["provider_download"] == before["provider_download"]  # answers kept in memory
            assert after["provider_checksums"] == before["provider_checksums"]  # verified documents too
            # the refused guess's zip is fetched now that it is needed; a read-ahead one is not
            assert after["provider_package"] - before["provider_package"] == (0 if guess_cached else 1)
        finally:
            ctx.close()
