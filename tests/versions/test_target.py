"""Which client a configuration is solved for (issue #26): flags, then the client the
hand-over runs (asked for its version), then version files, then the newest OpenTofu.
Clients here are scripts that print what ``tofu version`` / ``terraform version`` print."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tofu_solve.addrs.product import OPENTOFU, TERRAFORM
from tofu_solve.errors import ConfigurationError
from tofu_solve.settings import Settings
from tofu_solve.versions.target import configured_client, find_client, lock_product, target_version


def _client(d: Path, name: str, first_line: str) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    p = d / name
    p.write_text(f'#!/bin/sh\n[ "$1" = version ] && echo "{first_line}" && echo "on linux_amd64"\n')
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return p


def test_tofu_on_path_comes_before_terraform(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    _client(a, "terraform", "Terraform v1.11.4")
    assert find_client({"PATH": str(a)}).product is TERRAFORM
    _client(b, "tofu", "OpenTofu v1.10.6")
    found = find_client({"PATH": f"{a}:{b}"})
    assert (found.product, str(found.version), found.origin) == (OPENTOFU, "1.10.6", "tofu on PATH")
    assert find_client({"PATH": str(tmp_path / "empty")}) is None


def test_tf_path_wins_and_must_be_a_client(tmp_path):
    tf = _client(tmp_path / "bin", "tf", "Terraform v1.15.5")
    _client(tmp_path / "path", "tofu", "OpenTofu v1.12.0")
    settings = Settings.from_environ({"PATH": str(tmp_path / "path"), "TOFU_SOLVE_TF_PATH": str(tf)})
    assert configured_client(settings).origin == "TOFU_SOLVE_TF_PATH"
    assert configured_client(settings, str(tf)).origin == "-tf-path"
    bogus = _client(tmp_path / "bin", "bogus", "Something v1.0.0")
    with pytest.raises(ConfigurationError, match="not an OpenTofu or Terraform executable"):
        configured_client(settings, str(bogus))


def test_target_order(tmp_path):
    tf = find_client({"PATH": str(_client(tmp_path / "bin", "terraform", "Terraform v1.9.8").parent)})
    root = tmp_path / "repo" / "live"
    root.mkdir(parents=True)
    t = target_version(None, root, client=tf)
    assert (t.product, str(t.version), t.origin) == (TERRAFORM, "1.9.8", "terraform on PATH")
    # issue #34: the repository's choice (a version file) comes before the client on PATH
    (tmp_path / "repo" / ".terraform-version").write_text("1.5.7\n")
    assert (target_version(None, root).product, str(target_version(None, root).version)) == (TERRAFORM, "1.5.7")
    t = target_version(None, root, client=tf)
    assert (t.product, str(t.version)) == (TERRAFORM, "1.5.7") and t.origin.startswith(".terraform-version in ")
    t = target_version(None, root, terraform="1.15.5", client=tf)
    assert (str(t), t.origin) == ("Terraform 1.15.5", "-terraform-version")
    assert target_version("1.10.0", root, client=tf).product is OPENTOFU
    (root / ".opentofu-version").write_text("1.10.2\n")  # nearer than the parent's .terraform-version
    assert str(target_version(None, root)) == "OpenTofu 1.10.2"
    with pytest.raises(ConfigurationError, match="give one"):
        target_version("1.10.0", root, terraform="1.15.5")
    with pytest.raises(ConfigurationError, match="Invalid Terraform version"):
        target_version(None, root, terraform="one")


def test_the_lock_file_decides_the_product_before_the_client(tmp_path):
    """Issue #34: with no flag and no version file, the product the lock was written for
    (its header, else its provider addresses) is the target, whatever client a teammate
    has; a client of that product gives the version; a lock that agrees with the client
    changes nothing, not even the origin printed."""
    tofu = find_client({"PATH": str(_client(tmp_path / "bin-tofu", "tofu", "OpenTofu v1.11.2").parent)})
    tf = find_client({"PATH": str(_client(tmp_path / "bin-tf", "terraform", "Terraform v1.9.8").parent)})
    root = tmp_path / "repo"
    root.mkdir()
    (root / ".terraform.lock.hcl").write_text(TERRAFORM.lock_header + "\n")
    t = target_version(None, root, client=tofu)
    assert t.product is TERRAFORM and str(t.version) == "1.15.5"
    assert "written by terraform init (its header)" in t.origin
    t = target_version(None, root, client=tf)
    assert (t.product, str(t.version), t.origin) == (TERRAFORM, "1.9.8", "terraform on PATH")
    (root / ".terraform.lock.hcl").write_text('provider "registry.opentofu.org/hashicorp/aws" {\n}\n')
    t = target_version(None, root, client=tf)
    assert t.product is OPENTOFU and "locks providers of registry.opentofu.org" in t.origin
    assert target_version("1.10.0", root, client=tf).origin == "-tofu-version"  # a flag still comes first
    assert lock_product(tmp_path) is None


@pytest.mark.parametrize("flag", [None, "tofu", "terraform"])
@pytest.mark.parametrize("version_file", [None, ".opentofu-version", ".terraform-version"])
@pytest.mark.parametrize("lock", [None, "tofu", "terraform"])
def test_the_product_decided_without_the_client_is_the_targets(tmp_path, flag, version_file, lock):
    """Issue #72 §2: the early start asks no client when something else decides the product;
    the answer is target_version's, whichever client it would have had (one truth)."""
    from tofu_solve.versions.hashicorp_go_version import GoVersion
    from tofu_solve.versions.target import Client, decided_product

    root = tmp_path / "root"
    root.mkdir()
    if version_file:
        (root / version_file).write_text("1.10.6\n" if "opentofu" in version_file else "1.11.4\n")
    if lock:
        product = OPENTOFU if lock == "tofu" else TERRAFORM
        (root / ".terraform.lock.hcl").write_text(product.lock_header + "\n")
    flags = {"flag": "1.10.6" if flag == "tofu" else None, "terraform": "1.11.4" if flag == "terraform" else None}
    decided = decided_product(flags["flag"], root, terraform=flags["terraform"])
    clients = [None, Client("/bin/tofu", OPENTOFU, GoVersion.parse("1.9.0"), "tofu on PATH"),
               Client("/bin/terraform", TERRAFORM, GoVersion.parse("1.11.4"), "terraform on PATH")]
    products = {target_version(flags["flag"], root, terraform=flags["terraform"], client=c).product for c in clients}
    if decided is None:
        assert not (flag or version_file or lock) and len(products) > 1  # only the client decides
    else:
        assert products == {decided}
