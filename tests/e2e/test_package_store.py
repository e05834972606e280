"""A package store on a real OCI registry shared by CI jobs (issue #49): Debian's
docker-registry as the store, a fixture world of the test's own (registry, provider
files and git daemon on 127.0.0.1) as the origins, which a test can stop."""

from __future__ import annotations

import contextlib
import io
import json
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import VPC6_EKS20, Run, write_root
from tests.e2e.oci_fixtures import free_port, run_registry
from tofu_solve.cli import main
from tofu_solve.lockfile import parse_lock_text
from tofu_solve.lockfile.hashes import VCS_DIRS, hash_dir
from tofu_solve.plugins import current_platform
from tofu_solve.world import running_world


@pytest.fixture
def store(tmp_path):
    with run_registry(tmp_path / "store") as reg:
        yield reg


@contextlib.contextmanager
def origins(world, tmp: Path):
    """The fixture world's servers of a test's own: leaving the block stops them."""
    tmp.mkdir(parents=True, exist_ok=True)
    with running_world(world, tmp) as rw:
        yield rw


def job(root: Path, cache: Path, cli_config: Path, monkeypatch, *args: str) -> Run:
    """One CI job: a cache of its own, the store named by the environment."""
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(cli_config))
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(cache))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["init", "-handover=false", "-json", *args, f"-chdir={root}"])
    return Run(code, out.getvalue(), err.getvalue(), root)


def clone(tmp: Path, name: str, lock: str) -> Path:
    """A fresh clone of the repository: the root and its lock file, nothing installed."""
    root = write_root(tmp / name, VPC6_EKS20)
    (root / ".terraform.lock.hcl").write_text(lock)
    return root


def installed(root: Path) -> dict[str, str]:
    """The h1: of every installed module copy, by its directory."""
    modules = root / ".terraform" / "modules"
    return {d.name: hash_dir(d, exclude=VCS_DIRS) for d in sorted(modules.iterdir()) if d.is_dir()}


def warnings(run: Run) -> list[str]:
    return [w["summary"] for w in run.json()["warnings"]]


@pytest.fixture
def fleet(tmp_path, monkeypatch, store):
    monkeypatch.setenv("TOFU_SOLVE_PACKAGE_STORE", f"oci://{store.host}/ci")
    monkeypatch.setenv("TOFU_SOLVE_PACKAGE_STORE_GRACE", "120")  # every push finishes in a test
    return tmp_path


def test_a_filled_store_serves_a_job_whose_origins_are_all_stopped(fleet, world, store, monkeypatch):
    with origins(world, fleet / "servers") as rw:
        first = job(write_root(fleet / "root", VPC6_EKS20), fleet / "c1", rw.cli_config, monkeypatch)
        assert first.code == 0, first.err
        pushed = first.json()["package_store"]
        # every module package (vpc, eks, eks's kms) and every provider package it verified
        assert len([p for p in pushed["pushed"] if p.startswith("git::")]) == 3, pushed
        assert any(p.startswith("provider registry.opentofu.org/hashicorp/aws ") for p in pushed["pushed"]), pushed
        assert pushed["read"] == [] and pushed["rejected"] == []
        cli_config = rw.cli_config
        # the store is an OpenTofu module package registry too: an oci:// source reads the same artifact
        locks, _ = parse_lock_text(first.lock)
        vpc = locks.modules["vpc"]
        commit = vpc.package.rsplit("ref=", 1)[1]
        repos = json.loads(_get(store, "/v2/_catalog"))["repositories"]
        vpc_repo = next(r for r in repos if "terraform-aws-vpc" in r)
        assert vpc_repo.startswith("ci/modules/127-0-0-1/terraform-aws-modules/terraform-aws-vpc-")
        direct = write_root(fleet / "direct", f'module "vpc" {{\n  source = "oci://{store.host}/{vpc_repo}?tag=git-{commit}"\n}}\n')
        r = job(direct, fleet / "c3", cli_config, monkeypatch, "-package-store=")
        assert r.code == 0, r.err
        assert r.json()["package_store"] is None
        assert hash_dir(direct / ".terraform/modules/vpc", exclude=VCS_DIRS) in vpc.hashes
    # every origin is stopped: the registry, its provider files and the git daemon
    second = job(clone(fleet, "clone", first.lock), fleet / "c2", cli_config, monkeypatch)
    assert second.code == 0, second.err
    assert second.lock == first.lock  # nothing moved: the lock file is the authority
    assert installed(second.root) == installed(first.root)
    used = second.json()["package_store"]
    locks, _ = parse_lock_text(first.lock)
    platform = current_platform()
    expected = {p for p in pushed["pushed"] if p.startswith("git::")} | {
        f"provider {a} {p.version} ({platform})" for a, p in locks.providers.items()}
    assert len(expected) == 3 + len(locks.providers) >= 4
    assert sorted(used["read"]) == sorted(expected)  # every locked package, and nothing else
    assert used["pushed"] == [] and used["rejected"] == [] and used["down"] == ""
    assert "Package store artifact rejected" not in warnings(second)
    # no git operation and no package download: every package came from the store
    ops = second.json()["network_operations"]
    assert not {k for k in ops if k.startswith("git") or k in ("provider_package", "http_download")}, ops


def _get(store, path: str) -> str:
    import requests
    return requests.get(f"http://{store.host}{path}", timeout=10,
                        headers={"Accept": "application/vnd.oci.image.manifest.v1+json"}).text


def test_an_artifact_that_fails_verification_is_reported_once_and_the_origin_used(fleet, world, store,
                                                                                 monkeypatch):
    with origins(world, fleet / "servers") as rw:
        first = job(write_root(fleet / "root", VPC6_EKS20), fleet / "c1", rw.cli_config, monkeypatch)
        assert first.code == 0, first.err
        repos = json.loads(_get(store, "/v2/_catalog"))["repositories"]
        vpc_repo = next(r for r in repos if "terraform-aws-vpc" in r)
        tag = json.loads(_get(store, f"/v2/{vpc_repo}/tags/list"))["tags"][0]
        # someone with write access puts other contents under the package's tag
        store.push_module(vpc_repo, tag, {"main.tf": 'output "owned" { value = "yes" }\n'})
        # and rewrites the bytes of eks's blob on the registry's disk
        repos_eks = next(r for r in repos if "terraform-aws-eks" in r)
        manifest = json.loads(_get(store, f"/v2/{repos_eks}/manifests/"
                                   f"{json.loads(_get(store, f'/v2/{repos_eks}/tags/list'))['tags'][0]}"))
        blob = store.blob_path(manifest["layers"][0]["digest"])
        blob.write_bytes(b"PK\x05\x06" + b"\x00" * 18)
        second = job(clone(fleet, "clone", first.lock), fleet / "c2", rw.cli_config, monkeypatch)
        assert second.code == 0, second.err
        assert second.lock == first.lock
        assert installed(second.root) == installed(first.root)  # the origin's verified contents
        used = second.json()["package_store"]
        rejected = {r["package"].split("/")[-1].split(".git")[0]: r["reason"] for r in used["rejected"]}
        assert set(rejected) == {"terraform-aws-vpc", "terraform-aws-eks"}, used
        assert "the lock records" in rejected["terraform-aws-vpc"]
        assert "Corrupt OCI blob" in rejected["terraform-aws-eks"]
        texts = [w for w in second.json()["warnings"] if w["summary"] == "Package store artifact rejected"]
        assert len(texts) == 2  # each once, naming the store and the package
        # the poisoned tag was replaced by the verified package: the next job reads it
        third = job(clone(fleet, "third", first.lock), fleet / "c3", rw.cli_config, monkeypatch)
        assert third.code == 0, third.err
        read = third.json()["package_store"]["read"]
        assert any("terraform-aws-vpc" in p for p in read), read
        assert installed(third.root) == installed(first.root)


def test_a_store_that_is_down_costs_a_warning_not_the_job(tmp_path, world, monkeypatch):
    monkeypatch.setenv("TOFU_SOLVE_PACKAGE_STORE", f"oci://127.0.0.1:{free_port()}/ci")  # nobody listens
    with origins(world, tmp_path / "servers") as rw:
        started = time.monotonic()
        r = job(write_root(tmp_path / "root", VPC6_EKS20), tmp_path / "c1", rw.cli_config, monkeypatch)
        took = time.monotonic() - started
    assert r.code == 0, r.err
    assert warnings(r).count("Package store unavailable") == 1
    assert r.json()["package_store"]["down"].startswith("Failed to reach OCI registry")
    print(f"a job with its store down took {took:.1f} s")


def test_push_false_reads_without_writing(fleet, world, store, monkeypatch):
    monkeypatch.setenv("TOFU_SOLVE_PACKAGE_STORE_PUSH", "false")
    with origins(world, fleet / "servers") as rw:
        r = job(write_root(fleet / "root", VPC6_EKS20), fleet / "c1", rw.cli_config, monkeypatch)
    assert r.code == 0, r.err
    assert r.json()["package_store"]["pushed"] == []
    assert r.json()["package_store"]["read_only"] == "TOFU_SOLVE_PACKAGE_STORE_PUSH=false"
    assert json.loads(_get(store, "/v2/_catalog"))["repositories"] == []


def test_an_invalid_store_address_is_an_error_naming_its_origin(tmp_path, world, monkeypatch):
    with origins(world, tmp_path / "servers") as rw:
        r = job(write_root(tmp_path / "root", VPC6_EKS20), tmp_path / "c1", rw.cli_config, monkeypatch,
                "-package-store=https://user:secret@ghcr.io/Org")
    assert r.code == 1
    err = r.json()["error"]
    assert "Invalid package store address" in json.dumps(err)
    assert "secret" not in r.out + r.err
