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
        assert len([p for p in pushed["pushed"] if not p.startswith("provider ")]) == 3, pushed  # vpc, eks, eks.kms
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
    expected = {p for p in pushed["pushed"] if not p.startswith("provider ")} | {
        f"provider {a} {p.version} ({platform})" for a, p in locks.providers.items()}
    assert len(expected) == 3 + len(locks.providers) >= 4
    assert sorted(used["read"]) == sorted(expected)  # every locked package, and nothing else
    assert used["pushed"] == [] and used["rejected"] == [] and used["down"] == ""
    assert "Package store artifact rejected" not in warnings(second)
    # no git operation and no package download: every package came from the store
    ops = second.json()["network_operations"]
    assert not {k for k in ops if k.startswith("git") or k in ("provider_package", "http_download")}, ops


def _get(store, path: str, accept: str = "application/vnd.oci.image.manifest.v1+json") -> str:
    import requests
    return requests.get(f"http://{store.host}{path}", timeout=10, headers={"Accept": accept}).text


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
        # module packages are named by call and version (issue #68 §3)
        rejected = {r["package"].split()[0]: r["reason"] for r in used["rejected"]}
        assert set(rejected) == {"vpc", "eks"}, used
        assert "the lock records" in rejected["vpc"]
        assert "Corrupt OCI blob" in rejected["eks"]
        texts = [w for w in second.json()["warnings"] if w["summary"] == "Package store artifact rejected"]
        assert len(texts) == 2  # each once, naming the store and the package
        # the poisoned tag was replaced by the verified package: the next job reads it
        third = job(clone(fleet, "third", first.lock), fleet / "c3", rw.cli_config, monkeypatch)
        assert third.code == 0, third.err
        read = third.json()["package_store"]["read"]
        assert any(p.startswith("vpc 6.") for p in read), read
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


def _store_push(root: Path, cache: Path, cli_config: Path, monkeypatch, *args: str) -> Run:
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(cli_config))
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(cache))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["store", "push", "-json", *args, f"-chdir={root}"])
    return Run(code, out.getvalue(), err.getvalue(), root)


def test_store_push_prepares_an_air_gapped_store_from_lock_files(fleet, world, store, monkeypatch):
    with origins(world, fleet / "servers") as rw:
        # the lock file is written without any store, as a team has it today
        first = job(write_root(fleet / "root", VPC6_EKS20), fleet / "c1", rw.cli_config, monkeypatch,
                    "-package-store=")
        assert first.code == 0, first.err
        assert json.loads(_get(store, "/v2/_catalog"))["repositories"] == []
        repo = fleet / "repo"
        clone(repo, "envs/prod", first.lock)
        clone(repo, "envs/dev", first.lock)
        pushed = _store_push(repo, fleet / "c2", rw.cli_config, monkeypatch, "-recursive")
        assert pushed.code == 0, pushed.err
        doc = json.loads(pushed.out)
        assert len(doc["lock_files"]) == 2
        assert len([p for p in doc["store"]["pushed"] if not p.startswith("provider ")]) == 3  # once, for two lock files
        # every platform the lock records a zh: for, not only this machine's
        aws = sorted(p for p in doc["store"]["pushed"] if "/hashicorp/aws " in p)
        assert len(aws) >= 2, aws
        index = json.loads(_get(store, "/v2/ci/providers/registry.opentofu.org/hashicorp/aws/manifests/"
                                f"{aws[0].split()[2]}", "application/vnd.oci.image.index.v1+json"))
        assert index["artifactType"] == "application/vnd.opentofu.provider"
        assert sorted(f"{m['platform']['os']}_{m['platform']['architecture']}" for m in index["manifests"]) == \
            sorted(p.rsplit("(", 1)[1].rstrip(")") for p in aws)  # every platform, none lost to a race
        again = _store_push(repo, fleet / "c3", rw.cli_config, monkeypatch, "-recursive")
        assert again.code == 0, again.err
        assert json.loads(again.out)["store"]["pushed"] == []  # idempotent: all there already
        cli_config = rw.cli_config
    # every origin blocked: CI runs from the store alone
    ci = job(clone(fleet, "ci", first.lock), fleet / "c4", cli_config, monkeypatch)
    assert ci.code == 0, ci.err
    assert ci.lock == first.lock
    assert installed(ci.root) == installed(first.root)


def _job_process(root: Path, cache: Path, cli_config: Path, env: dict):
    import os
    import subprocess
    import sys
    full = {**os.environ, **env, "TF_CLI_CONFIG_FILE": str(cli_config), "TOFU_SOLVE_CACHE_DIR": str(cache)}
    return subprocess.Popen([sys.executable, "-m", "tofu_solve", "init", "-handover=false", "-json",
                             f"-chdir={root}"], env=full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_jobs_in_parallel_with_empty_caches_fill_one_store(fleet, world, store, monkeypatch):
    import os
    env = {k: os.environ[k] for k in ("TOFU_SOLVE_PACKAGE_STORE", "TOFU_SOLVE_PACKAGE_STORE_GRACE")}
    with origins(world, fleet / "servers") as rw:
        first = job(write_root(fleet / "root", VPC6_EKS20), fleet / "c0", rw.cli_config, monkeypatch,
                    "-package-store=")
        assert first.code == 0, first.err
        jobs = [_job_process(clone(fleet, f"job{i}", first.lock), fleet / f"c{i + 1}", rw.cli_config, env)
                for i in range(4)]
        results = [(p.wait(300), *p.communicate()) for p in jobs]
        cli_config = rw.cli_config
    for code, out, err in results:
        assert code == 0, err
        r = Run(code, out, err, fleet)
        assert r.json()["package_store"]["rejected"] == [] and r.json()["package_store"]["not_pushed"] == []
    pushed = [label for _, out, err in results for label in Run(0, out, err, fleet).json()["package_store"]["pushed"]]
    assert len([p for p in pushed if not p.startswith("provider ")]) >= 3  # racing pushes of one package all succeed
    for i in range(4):
        assert (fleet / f"job{i}" / ".terraform.lock.hcl").read_text() == first.lock
    last = job(clone(fleet, "last", first.lock), fleet / "c9", cli_config, monkeypatch)
    assert last.code == 0, last.err
    assert last.json()["package_store"]["rejected"] == []
    assert installed(last.root) == installed(first.root)


def test_a_job_killed_while_pushing_leaves_nothing_unverified_and_the_next_push_completes(fleet, world, store,
                                                                                       monkeypatch):
    import os
    env = {k: os.environ[k] for k in ("TOFU_SOLVE_PACKAGE_STORE", "TOFU_SOLVE_PACKAGE_STORE_GRACE")}
    with origins(world, fleet / "servers") as rw:
        first = job(write_root(fleet / "root", VPC6_EKS20), fleet / "c0", rw.cli_config, monkeypatch,
                    "-package-store=")
        assert first.code == 0, first.err
        killed = _job_process(clone(fleet, "killed", first.lock), fleet / "c1", rw.cli_config, env)
        # wait until its first push has reached the store, then kill it while it still runs
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not list((store.data / "docker").rglob("_uploads")) \
                and killed.poll() is None:
            time.sleep(0.005)
        assert killed.poll() is None, "the job ended before it could be killed mid-push"
        killed.kill()
        killed.wait()
        # the next job installs only what it verified, and completes the store
        second = job(clone(fleet, "second", first.lock), fleet / "c2", rw.cli_config, monkeypatch)
        assert second.code == 0, second.err
        assert second.json()["package_store"]["rejected"] == []
        assert installed(second.root) == installed(first.root)
        cli_config = rw.cli_config
    third = job(clone(fleet, "third", first.lock), fleet / "c3", cli_config, monkeypatch)
    assert third.code == 0, third.err
    assert installed(third.root) == installed(first.root)


def test_a_rejected_artifact_with_its_origin_down_names_the_package_and_both_places(fleet, world, store,
                                                                                   monkeypatch):
    with origins(world, fleet / "servers") as rw:
        first = job(write_root(fleet / "root", VPC6_EKS20), fleet / "c1", rw.cli_config, monkeypatch)
        assert first.code == 0, first.err
        repos = json.loads(_get(store, "/v2/_catalog"))["repositories"]
        vpc_repo = next(r for r in repos if "terraform-aws-vpc" in r)
        tag = json.loads(_get(store, f"/v2/{vpc_repo}/tags/list"))["tags"][0]
        store.push_module(vpc_repo, tag, {"main.tf": 'output "owned" { value = "yes" }\n'})
        cli_config = rw.cli_config
    r = job(clone(fleet, "clone", first.lock), fleet / "c2", cli_config, monkeypatch)
    assert r.code == 1
    text = json.dumps(r.json()["error"])
    assert "terraform-aws-vpc" in text  # the package
    assert f"the package store oci://{store.host}/ci holds it, but it failed verification" in text  # the store
    assert "git" in text.lower()  # and its origin
    assert not (r.root / ".terraform" / "modules" / "vpc").exists()  # nothing unverified installed


class _BadStore:
    """An OCI registry that never answers (``drip``) or refuses everything (``refuse``)."""

    def __init__(self, mode: str):
        import http.server
        import socket
        import threading
        self.mode = mode
        if mode == "drip":
            self.sock = socket.socket()
            self.sock.bind(("127.0.0.1", 0))
            self.sock.listen(64)  # accepts connections into the backlog, never answers
            self.port = self.sock.getsockname()[1]
            return

        class Refuse(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(500)
                self.send_header("Content-Length", "0")
                self.end_headers()
            do_HEAD = do_POST = do_PUT = do_GET
            def log_message(self, *a):
                pass
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        if self.mode == "drip":
            self.sock.close()
        else:
            self.httpd.shutdown()


@pytest.mark.parametrize("mode", ["drip", "refuse"])
def test_a_store_that_drips_or_refuses_costs_a_bounded_delay_and_a_warning(tmp_path, world, monkeypatch, mode):
    bad = _BadStore(mode)
    monkeypatch.setenv("TOFU_SOLVE_PACKAGE_STORE", f"oci://127.0.0.1:{bad.port}/ci")
    try:
        with origins(world, tmp_path / "servers") as rw:
            first = job(write_root(tmp_path / "root", VPC6_EKS20), tmp_path / "c1", rw.cli_config, monkeypatch,
                        "-package-store=")
            assert first.code == 0, first.err
            started = time.monotonic()
            r = job(clone(tmp_path, "clone", first.lock), tmp_path / "c2", rw.cli_config, monkeypatch)
            took = time.monotonic() - started
    finally:
        bad.close()
    assert r.code == 0, r.err
    assert r.lock == first.lock
    assert warnings(r).count("Package store unavailable") == 1
    assert r.json()["package_store"]["read"] == []
    print(f"{mode}: {took:.1f} s")


def test_an_edit_that_moves_a_provider_the_store_listed_gives_the_registries_answer(fleet, world, store,
                                                                                   monkeypatch):
    """One truth: the store lists only what jobs locked; an edit that moves a locked provider
    is solved on the registries' listings, as a run without the store solves it."""
    edited = VPC6_EKS20 + '''
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "< 6.50.0"
    }
  }
}
'''
    with origins(world, fleet / "servers") as rw:
        first = job(write_root(fleet / "root", VPC6_EKS20), fleet / "c1", rw.cli_config, monkeypatch)
        assert first.code == 0, first.err
        locks, _ = parse_lock_text(first.lock)
        aws = locks.providers["registry.opentofu.org/hashicorp/aws"].version
        assert tuple(map(int, aws.split("."))) >= (6, 50, 0)  # the edit below moves it
        # unchanged: every locked provider listed by the store, nothing asked of the registry
        quiet = job(clone(fleet, "quiet", first.lock), fleet / "c2", rw.cli_config, monkeypatch)
        assert quiet.code == 0, quiet.err
        assert "provider_versions" not in quiet.json()["network_operations"], quiet.json()["network_operations"]
        runs = {}
        for name, flag in (("store", ()), ("none", ("-package-store=",))):
            root = write_root(fleet / f"edit-{name}", edited)
            (root / ".terraform.lock.hcl").write_text(first.lock)
            runs[name] = job(root, fleet / f"c-{name}", rw.cli_config, monkeypatch, *flag)
            assert runs[name].code == 0, runs[name].err
    assert runs["store"].lock == runs["none"].lock
    moved, _ = parse_lock_text(runs["store"].lock)
    assert moved.providers["registry.opentofu.org/hashicorp/aws"].version != aws
    assert [c["address"] for c in runs["store"].json()["lock_file"]["provider_changes"]] == \
        [c["address"] for c in runs["none"].json()["lock_file"]["provider_changes"]]


def test_oci_credentials_in_the_cli_configuration_open_a_store_that_needs_them(tmp_path, world, monkeypatch):
    """OpenTofu's oci_credentials blocks (internal/command/cliconfig/oci_credentials.go) come
    before Docker-style files; without credentials the store is a warning, not a failure."""
    with run_registry(tmp_path / "store", htpasswd_user=("ci", "s3cret-pw")) as store:
        monkeypatch.setenv("TOFU_SOLVE_PACKAGE_STORE", f"oci://{store.host}/ci")
        monkeypatch.setenv("TOFU_SOLVE_PACKAGE_STORE_GRACE", "120")
        monkeypatch.setenv("DOCKER_CONFIG", str(tmp_path / "no-docker-config"))
        with origins(world, tmp_path / "servers") as rw:
            with_creds = tmp_path / "with-creds.tfrc"
            with_creds.write_text(rw.cli_config.read_text() + f'\noci_credentials "{store.host}" {{\n'
                                  '  username = "ci"\n  password = "s3cret-pw"\n}\n')
            first = job(write_root(tmp_path / "root", VPC6_EKS20), tmp_path / "c1", with_creds, monkeypatch)
            assert first.code == 0, first.err
            assert len(first.json()["package_store"]["pushed"]) >= 3
            second = job(clone(tmp_path, "clone", first.lock), tmp_path / "c2", with_creds, monkeypatch)
            assert second.code == 0, second.err
            assert len(second.json()["package_store"]["read"]) >= 3
            anonymous = job(clone(tmp_path, "anon", first.lock), tmp_path / "c3", rw.cli_config, monkeypatch)
    assert anonymous.code == 0, anonymous.err
    assert anonymous.json()["package_store"]["read"] == []
    assert "Package store unavailable" in warnings(anonymous)
    assert "s3cret-pw" not in first.out + first.err + second.out + anonymous.out + anonymous.err
