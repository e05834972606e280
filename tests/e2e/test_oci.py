"""OCI module sources against a real registry (Debian's docker-registry on 127.0.0.1)."""

from __future__ import annotations

import base64
import json
import re
from datetime import UTC

import pytest

from tests.e2e.conftest import lock_versions, write_root
from tests.e2e.oci_fixtures import run_registry
from tofu_solve.lockfile import parse_lock_text


@pytest.fixture(scope="module")
def oci(tmp_path_factory):
    with run_registry(tmp_path_factory.mktemp("oci")) as reg:
        yield reg


def _module(text: str) -> dict[str, str]:
    return {"main.tf": text}


def test_constraint_across_many_tags(tmp_path, tofu_solve, oci, own_cache):
    repo = "modules/net"
    for tag in ["v1.0.0", "1.1.0", "1.2.0-rc1", "latest", "stable", "2.0.0", "release-3"]:
        oci.push_module(repo, tag, _module(f"# net {tag}\n"))
    for i in range(120):  # more than one page of tags
        oci.push_module(repo, f"build-{i}", _module("# nightly\n"))
    oci.push_module(repo, "1.9.7", _module("# net 1.9.7\n"))
    root = write_root(tmp_path / "root", f'''
        module "net" {{
          source  = "oci://{oci.host}/{repo}"
          version = "~> 1.0"
        }}
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"net": "1.9.7"}
    locks, _ = parse_lock_text(r.lock)
    entry = locks.modules["net"]
    assert entry.source == f"oci://{oci.host}/{repo}?tag=1.9.7"
    assert any(h.startswith("h1:") for h in entry.hashes)
    assert re.fullmatch(rf"oci://{re.escape(oci.host)}/{repo}\?digest=sha256:[0-9a-f]{{64}}", entry.package)
    assert any(h.startswith("zh:") for h in entry.hashes)
    assert (root / ".terraform/modules/net/main.tf").read_text() == "# net 1.9.7\n"


def test_prerelease_tag_only_when_named(tmp_path, tofu_solve, oci, own_cache):
    oci.push_module("modules/pre", "1.0.0", _module("# 1.0.0\n"))
    oci.push_module("modules/pre", "1.1.0-beta", _module("# beta\n"))
    root = write_root(tmp_path / "root", f'''
        module "m" {{
          source  = "oci://{oci.host}/modules/pre"
          version = "1.1.0-beta"
        }}
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"m": "1.1.0-beta"}


def test_digest_and_tag_pins(tmp_path, tofu_solve, oci, own_cache):
    d1 = oci.push_module("modules/pin", "1.0.0", _module("# one\n"))
    oci.push_module("modules/pin", "latest", _module("# latest\n"))
    root = write_root(tmp_path / "root", f'''
        module "by_digest" {{
          source = "oci://{oci.host}/modules/pin?digest={d1}"
        }}

        module "by_tag" {{
          source = "oci://{oci.host}/modules/pin?tag=1.0.0"
        }}

        module "latest" {{
          source = "oci://{oci.host}/modules/pin"
        }}
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert (root / ".terraform/modules/by_digest/main.tf").read_text() == "# one\n"
    assert (root / ".terraform/modules/by_tag/main.tf").read_text() == "# one\n"
    assert (root / ".terraform/modules/latest/main.tf").read_text() == "# latest\n"


def test_repushed_tag_is_caught_by_digest(tmp_path, tofu_solve, oci, own_cache, monkeypatch):
    """Issue #25: the lock's package is the manifest digest. A re-pushed tag changes
    nothing for a machine that installs from the lock (fresh cache included: the digest is
    fetched, not the tag); resolving the tag again (-upgrade) refuses the new digest, exit
    1, nothing changed; -accept-checksum=m accepts it."""
    oci.push_module("modules/moving", "1.0.0", _module("# original\n"))
    root = write_root(tmp_path / "root", f'''
        module "m" {{
          source  = "oci://{oci.host}/modules/moving"
          version = "1.0.0"
        }}
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    digest = parse_lock_text(r.lock)[0].modules["m"].package.rsplit("=", 1)[1]
    before = (root / ".terraform.lock.hcl").read_text()
    oci.push_module("modules/moving", "1.0.0", _module("# pushed again\n"))
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(tmp_path / "fresh-cache"))
    r = tofu_solve(root, "init", "-json")
    assert r.code == 0, r.err
    assert "oci_tags" not in r.json()["network_operations"]
    assert (root / ".terraform/modules/m/main.tf").read_text() == "# original\n"
    assert (root / ".terraform.lock.hcl").read_text() == before
    r = tofu_solve(root, "init", "-upgrade")
    assert r.code == 1
    assert "Error: Module package verification failed" in r.err
    assert f"Expected: oci://{oci.host}/modules/moving?digest={digest}" in r.err
    assert "tofu-solve init -accept-checksum=m" in r.err
    assert (root / ".terraform.lock.hcl").read_text() == before
    r = tofu_solve(root, "init", "-accept-checksum=m")
    assert r.code == 0, r.err
    assert (root / ".terraform/modules/m/main.tf").read_text() == "# pushed again\n"
    assert parse_lock_text(r.lock)[0].modules["m"].package != f"oci://{oci.host}/modules/moving?digest={digest}"


@pytest.mark.parametrize("case,fragment", [
    ("artifact", "unsupported OCI artifact type"),
    ("index", "found index manifest but need image manifest"),
    ("two-layers", "more than one archive/zip layer"),
    ("corrupt", "does not match its digest"),
])
def test_invalid_packages(tmp_path, tofu_solve, oci, own_cache, case, fragment):
    repo = f"bad/{case}"
    if case == "artifact":
        oci.push_module(repo, "1.0.0", _module("# x\n"), artifact_type="application/vnd.example.other")
    elif case == "index":
        child = oci.push_module(repo, "child", _module("# x\n"))
        oci.push_index(repo, "1.0.0", child)
    elif case == "two-layers":
        oci.push_module(repo, "1.0.0", _module("# x\n"), layers=2)
    else:
        oci.push_module(repo, "1.0.0", _module("# corrupt me\n"))
        manifest = json.loads(__import__("requests").get(
            f"http://{oci.host}/v2/{repo}/manifests/1.0.0",
            headers={"Accept": "application/vnd.oci.image.manifest.v1+json"}).content)
        blob = oci.blob_path(manifest["layers"][0]["digest"])
        data = bytearray(blob.read_bytes())
        data[-1] ^= 0xFF
        blob.write_bytes(bytes(data))
    root = write_root(tmp_path / "root", f'''
        module "m" {{
          source  = "oci://{oci.host}/{repo}"
          version = "1.0.0"
        }}
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 1
    assert fragment in r.err, r.err
    assert not (root / ".terraform.lock.hcl").exists()


def test_module_inside_oci_package_calls_registry_git_and_oci(tmp_path, tofu_solve, oci, own_cache, world):
    oci.push_module("leaf/oci", "1.0.0", _module("# leaf\n"))
    git_url = f"file://{world.repo_path('terraform-aws-modules/terraform-aws-kms')}"
    oci.push_module("stack/app", "2.0.0", _module(f'''
module "kms" {{
  source  = "terraform-aws-modules/kms/aws"
  version = "~> 3.0"
}}

module "kms_git" {{
  source  = "git::{git_url}"
  version = "~> 2.0"
}}

module "leaf" {{
  source  = "oci://{oci.host}/leaf/oci"
  version = "~> 1.0"
}}
'''))
    root = write_root(tmp_path / "root", f'''
        module "app" {{
          source  = "oci://{oci.host}/stack/app"
          version = "~> 2.0"
        }}
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    v = lock_versions(r.lock)
    assert v["app"] == "2.0.0" and v["app.leaf"] == "1.0.0"
    assert v["app.kms"].startswith("3.") and v["app.kms_git"].startswith("v2.")


def test_registry_down(tmp_path, tofu_solve, own_cache):
    root = write_root(tmp_path / "root", '''
        module "m" {
          source  = "oci://127.0.0.1:9/modules/x"
          version = "~> 1.0"
        }
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 1
    assert "Error: Failed to reach OCI registry" in r.err and "127.0.0.1:9" in r.err


def test_authentication(tmp_path, tofu_solve, own_cache, monkeypatch):
    with run_registry(tmp_path / "authreg", ("alice", "correct-horse")) as reg:
        reg.push_module("private/mod", "1.0.0", _module("# private\n"))
        root = write_root(tmp_path / "root", f'''
            module "m" {{
              source  = "oci://{reg.host}/private/mod"
              version = "~> 1.0"
            }}
        ''')
        r = tofu_solve(root, "init")
        assert r.code == 1
        assert "Error: OCI registry requires authentication" in r.err
        docker = tmp_path / "docker"
        docker.mkdir()
        monkeypatch.setenv("DOCKER_CONFIG", str(docker))
        (docker / "config.json").write_text(json.dumps(
            {"auths": {reg.host: {"auth": base64.b64encode(b"alice:wrong-password").decode()}}}))
        r = tofu_solve(root, "init")
        assert r.code == 1
        assert "Error: OCI registry authentication failed" in r.err
        assert "wrong-password" not in r.err
        (docker / "config.json").write_text(json.dumps(
            {"auths": {reg.host: {"auth": base64.b64encode(b"alice:correct-horse").decode()}}}))
        r = tofu_solve(root, "init")
        assert r.code == 0, r.err
        assert lock_versions(r.lock) == {"m": "1.0.0"}
        assert "correct-horse" not in r.lock + r.out + r.err


def test_credential_helper(tmp_path, tofu_solve, own_cache, monkeypatch):
    with run_registry(tmp_path / "helperreg", ("bob", "from-helper")) as reg:
        reg.push_module("private/helped", "1.0.0", _module("# helped\n"))
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        helper = bin_dir / "docker-credential-testhelper"
        helper.write_text('#!/bin/sh\nread host\necho \'{"Username": "bob", "Secret": "from-helper"}\'\n')
        helper.chmod(0o755)
        monkeypatch.setenv("PATH", f"{bin_dir}:{__import__('os').environ['PATH']}")
        docker = tmp_path / "docker"
        docker.mkdir()
        (docker / "config.json").write_text(json.dumps({"credHelpers": {reg.host: "testhelper"}}))
        monkeypatch.setenv("DOCKER_CONFIG", str(docker))
        root = write_root(tmp_path / "root", f'''
            module "m" {{
              source  = "oci://{reg.host}/private/helped"
              version = "1.0.0"
            }}
        ''')
        r = tofu_solve(root, "init")
        assert r.code == 0, r.err
        assert "from-helper" not in r.out + r.err + r.lock


def test_a_young_oci_tag_waits_out_the_cooldown(tmp_path, tofu_solve, oci, own_cache):
    """Issue #25: an OCI tag's release time is its manifest's org.opencontainers.image.created
    (as oras push writes it), known once fetched; a tag without it counts as old enough."""
    import time
    from datetime import datetime

    from tofu_solve.versions.cooldown import format_day

    now = int(time.time())

    def stamp(days: float) -> str:
        return datetime.fromtimestamp(now - days * 86400, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

    def note(days: float) -> str:  # as OpenTofu's module-cooldown RFC words it, under -min-age=7d
        return f"discovered {format_day(now - days * 86400)}, clears cooldown {format_day(now + (7 - days) * 86400)}"
    oci.push_module("modules/cool", "1.0.0", _module("# old\n"), created=stamp(30))
    oci.push_module("modules/cool", "1.1.0", _module("# young\n"), created=stamp(2))
    root = write_root(tmp_path / "root", f'''
        module "m" {{
          source  = "oci://{oci.host}/modules/cool"
          version = "~> 1.0"
        }}
    ''')
    r = tofu_solve(root, "init", "-min-age=7d", "-handover=false", "-json")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"m": "1.0.0"}
    result = r.json()
    assert any(f"1.1.0, {note(2)}" in w["detail"] for w in result["warnings"]), result["warnings"]
    assert result["stats"]["release_time_unknown"] == 0
    # without the annotation, the image configuration's created time (one more small request)
    oci.push_module("modules/cool", "1.2.0", _module("# configured\n"), config_created=stamp(1))
    r = tofu_solve(root, "init", "-min-age=7d", "-upgrade", "-handover=false", "-json")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"m": "1.0.0"}
    assert any(f"1.2.0, {note(1)}" in w["detail"] for w in r.json()["warnings"])
    oci.push_module("modules/cool", "1.3.0", _module("# undated\n"))
    r = tofu_solve(root, "init", "-min-age=7d", "-upgrade", "-handover=false", "-json")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"m": "1.3.0"}  # no creation time: old enough, and counted
    assert r.json()["stats"]["release_time_unknown"] == 1
