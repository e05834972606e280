"""The package store as a fleet meets it (issue #57), against Debian's docker-registry:
``store push`` from a warm cache, partial provider indexes, corrupt blobs with and without a
change of size, transient faults in front of the registry, an index another OCI tool
rewrote, and ``store verify`` after each. In every case nothing unverified is installed."""

from __future__ import annotations

import contextlib
import hashlib
import http.server
import io
import json
import logging
import shutil
import socket
import subprocess
import threading
from pathlib import Path

import pytest
import requests

from tests.conftest import require_tool
from tests.e2e.conftest import VPC6_EKS20, Run, write_root
from tests.e2e.oci_fixtures import INDEX, MANIFEST, run_registry
from tests.e2e.test_package_store import clone, installed, origins
from tofu_solve.cli import main
from tofu_solve.lockfile import parse_lock_text
from tofu_solve.plugins import current_platform

PROVIDERS = "ci/providers/registry.opentofu.org/hashicorp"


@pytest.fixture
def store(tmp_path):
    with run_registry(tmp_path / "store") as reg:
        yield reg


@pytest.fixture
def fleet(tmp_path, monkeypatch, store):
    monkeypatch.setenv("TOFU_SOLVE_PACKAGE_STORE", f"oci://{store.host}/ci")
    monkeypatch.setenv("TOFU_SOLVE_PACKAGE_STORE_GRACE", "120")  # every push finishes in a test
    return tmp_path


def _cli(args: list[str], cache: Path, cli_config: Path, monkeypatch) -> Run:
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(cli_config))
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(cache))
    out, err = io.StringIO(), io.StringIO()
    root = Path(next(a.split("=", 1)[1] for a in args if a.startswith("-chdir=")))
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return Run(code, out.getvalue(), err.getvalue(), root)


def job(root: Path, cache: Path, cli_config: Path, monkeypatch, *args: str) -> Run:
    """One CI job (``init -json``): a cache of its own, the store named by the environment."""
    return _cli(["init", "-handover=false", "-json", *args, f"-chdir={root}"], cache, cli_config, monkeypatch)


def store_cmd(action: str, root: Path, cache: Path, cli_config: Path, monkeypatch, *args: str) -> Run:
    return _cli(["store", action, "-json", *args, f"-chdir={root}"], cache, cli_config, monkeypatch)


def outcomes(run: Run) -> dict[str, str]:
    """``store push|verify -json``: package label -> outcome."""
    return {p["package"]: p["outcome"] for p in json.loads(run.out)["packages"]}


def _get(store, path: str, accept: str = MANIFEST) -> requests.Response:
    return requests.get(f"http://{store.host}{path}", timeout=10, headers={"Accept": accept})


def aws_index(store, version: str) -> dict:
    return _get(store, f"/v2/{PROVIDERS}/aws/manifests/{version}", INDEX).json()


def module_repo(store, name: str) -> tuple[str, str, dict]:
    """(repository, tag, manifest) of the module package whose repository names ``name``."""
    repos = _get(store, "/v2/_catalog").json()["repositories"]
    repo = next(r for r in repos if name in r)
    tag = _get(store, f"/v2/{repo}/tags/list").json()["tags"][0]
    return repo, tag, _get(store, f"/v2/{repo}/manifests/{tag}").json()


def platform_layer(store, version: str, platform: str) -> tuple[str, int]:
    """(digest, size) of ``platform``'s zip of hashicorp/aws ``version`` in the store."""
    os_name, arch = platform.split("_")
    child = next(m for m in aws_index(store, version)["manifests"]
                 if m["platform"] == {"os": os_name, "architecture": arch})
    layer = _get(store, f"/v2/{PROVIDERS}/aws/manifests/{child['digest']}").json()["layers"][0]
    return layer["digest"], layer["size"]


@pytest.fixture
def locked(fleet, world, monkeypatch):
    """A team's lock file, written without any store, and the origins' CLI configuration;
    the origins stay up inside the test's ``with origins(...)`` blocks only."""
    def make(servers: Path):
        return origins(world, servers)
    return make


def _first(fleet: Path, rw, monkeypatch, name: str = "root") -> Run:
    first = job(write_root(fleet / name, VPC6_EKS20), fleet / f"c-{name}", rw.cli_config, monkeypatch,
                "-package-store=")
    assert first.code == 0, first.err
    return first


def test_store_push_from_a_warm_cache_fills_what_a_job_with_every_origin_down_needs(fleet, world, store,
                                                                                      monkeypatch):
    with origins(world, fleet / "servers") as rw:
        first = _first(fleet, rw, monkeypatch)
        # the same cache the lock was written with: every package is there, verified
        pushed = store_cmd("push", first.root, fleet / "c-root", rw.cli_config, monkeypatch)
        assert pushed.code == 0, pushed.err
        got = outcomes(pushed)
        locks, _ = parse_lock_text(first.lock)
        aws = next(p for a, p in locks.providers.items() if a.endswith("/hashicorp/aws"))
        assert f"provider registry.opentofu.org/hashicorp/aws {aws.version} ({current_platform()})" in got
        assert set(got.values()) == {"pushed"}, got
        assert len([p for p in got if not p.startswith("provider ")]) == 3
        again = store_cmd("push", first.root, fleet / "c-root", rw.cli_config, monkeypatch)
        assert again.code == 0 and set(outcomes(again).values()) == {"complete"}, again.out
        cli_config = rw.cli_config
    # every origin is down: the store alone serves the job, and verify says so beforehand
    verified = store_cmd("verify", first.root, fleet / "c-verify", cli_config, monkeypatch)
    assert verified.code == 0, verified.out
    assert set(outcomes(verified).values()) == {"verified"}
    assert set(outcomes(verified)) >= {p for p in got if "(" not in p or current_platform() in p}
    ci = job(clone(fleet, "ci", first.lock), fleet / "c-ci", cli_config, monkeypatch)
    assert ci.code == 0, ci.err
    assert ci.lock == first.lock
    assert installed(ci.root) == installed(first.root)
    assert ci.json()["package_store"]["rejected"] == []


def _drop_this_platform(store, lock: str) -> tuple[str, dict]:
    """This machine's platform dropped out of hashicorp/aws's index, the others kept (a push
    cut off, a hand edit): (the locked version, the index as written)."""
    locks, _ = parse_lock_text(lock)
    version = next(p.version for a, p in locks.providers.items() if a.endswith("/hashicorp/aws"))
    index = aws_index(store, version)
    os_name, arch = current_platform().split("_")
    assert len(index["manifests"]) >= 2
    index["manifests"] = [m for m in index["manifests"] if m["platform"] != {"os": os_name, "architecture": arch}]
    store.put_manifest(f"{PROVIDERS}/aws", version, index, INDEX)
    return version, index


def test_a_partial_provider_index_is_missing_to_verify_and_completed_by_the_next_push(fleet, world, store,
                                                                                       monkeypatch):
    with origins(world, fleet / "servers") as rw:
        first = _first(fleet, rw, monkeypatch)
        assert store_cmd("push", first.root, fleet / "c1", rw.cli_config, monkeypatch).code == 0
        version, index = _drop_this_platform(store, first.lock)
        cli_config = rw.cli_config
        label = f"provider registry.opentofu.org/hashicorp/aws {version} ({current_platform()})"
        before = store_cmd("verify", first.root, fleet / "c2", cli_config, monkeypatch)
        assert before.code == 1
        doc = json.loads(before.out)
        lacking = [p for p in doc["packages"] if p["outcome"] == "missing"]
        # one outcome per platform package, as push counts them (issue #68 §3)
        assert [p["package"].split(" (")[1][:19] for p in lacking] == ["the platform of zh:"], lacking
        assert "the store does not hold it" in lacking[0]["reason"]
        # the text names it too
        text = _cli(["store", "verify", f"-chdir={first.root}", f"-platform={current_platform()}"], fleet / "c2",
                    cli_config, monkeypatch)
        assert text.code == 1 and f"MISSING  {label}: its index has no {current_platform()} package" in text.out
        completed = store_cmd("push", first.root, fleet / "c3", cli_config, monkeypatch)
        assert completed.code == 0
        assert outcomes(completed)[label] == "pushed"
        assert {v for k, v in outcomes(completed).items() if k != label} == {"complete"}
        assert len(aws_index(store, version)["manifests"]) == len(index["manifests"]) + 1
    after = store_cmd("verify", first.root, fleet / "c4", cli_config, monkeypatch)
    assert after.code == 0, after.out
    ci = job(clone(fleet, "ci", first.lock), fleet / "c5", cli_config, monkeypatch)
    assert ci.code == 0, ci.err


def test_with_the_origins_down_a_job_names_what_the_store_lacked(fleet, world, store, monkeypatch):
    with origins(world, fleet / "servers") as rw:
        first = _first(fleet, rw, monkeypatch)
        assert store_cmd("push", first.root, fleet / "c1", rw.cli_config, monkeypatch).code == 0
        _drop_this_platform(store, first.lock)
        cli_config = rw.cli_config
    r = job(clone(fleet, "ci", first.lock), fleet / "c2", cli_config, monkeypatch)
    assert r.code == 1
    error = r.json()["error"]
    assert f"could not come from the package store either: the package store oci://{store.host}/ci does not " \
           f"hold it (its index has no {current_platform()} package" in error["detail"], error


def _grow(path: Path, extra: bytes) -> None:
    path.chmod(0o644)
    path.write_bytes(path.read_bytes() + extra)


def _same_size(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", ["grown", "same-size"])
def test_a_corrupt_module_blob_is_rejected_by_name_and_repaired_by_the_job(fleet, world, store, monkeypatch,
                                                                         damage):
    with origins(world, fleet / "servers") as rw:
        first = _first(fleet, rw, monkeypatch)
        assert store_cmd("push", first.root, fleet / "c1", rw.cli_config, monkeypatch).code == 0
        _, _, manifest = module_repo(store, "terraform-aws-eks")
        blob = store.blob_path(manifest["layers"][0]["digest"])
        _grow(blob, b"x" * 31) if damage == "grown" else _same_size(blob)
        verify = store_cmd("verify", first.root, fleet / "c2", rw.cli_config, monkeypatch)
        assert verify.code == 1
        rejected = {p["package"]: p["reason"] for p in json.loads(verify.out)["packages"] if p["outcome"] == "rejected"}
        assert len(rejected) == 1 and next(iter(rejected)).startswith("eks 20."), rejected  # by call and version (#68 §3)
        assert "Corrupt OCI blob" in next(iter(rejected.values()))
        r = job(clone(fleet, "clone", first.lock), fleet / "c3", rw.cli_config, monkeypatch)
        assert r.code == 0, r.err
        assert installed(r.root) == installed(first.root)  # the origin's verified contents
        doc = r.json()
        used = doc["package_store"]
        assert used["down"] == "", used  # one bad blob does not turn the store off
        assert len(used["read"]) >= 3, used  # every other package still came from the store
        assert [x["package"] for x in used["rejected"]] == [next(iter(rejected))]
        reason = used["rejected"][0]["reason"]
        assert "Corrupt OCI blob" in reason and "TOFU_SOLVE_MAX_DOWNLOAD_BYTES" not in reason
        texts = [w for w in doc["warnings"] if w["summary"].startswith("Package store")]
        assert [w["summary"] for w in texts] == ["Package store artifact rejected"]
        assert "Error:" not in texts[0]["detail"]
        # the job pushed the package under new bytes (the corrupt digest cannot be replaced), so it counts
        assert used["pushed"] == [next(iter(rejected))], used
        assert module_repo(store, "terraform-aws-eks")[2]["layers"][0]["digest"] != manifest["layers"][0]["digest"]
        cli_config = rw.cli_config
    after = store_cmd("verify", first.root, fleet / "c4", cli_config, monkeypatch)
    assert after.code == 0, after.out
    ci = job(clone(fleet, "ci", first.lock), fleet / "c5", cli_config, monkeypatch)
    assert ci.code == 0, ci.err
    assert ci.json()["package_store"]["rejected"] == []


def test_a_corrupt_provider_blob_is_said_once_with_what_the_operator_must_do(fleet, world, store, monkeypatch):
    with origins(world, fleet / "servers") as rw:
        first = _first(fleet, rw, monkeypatch)
        assert store_cmd("push", first.root, fleet / "c1", rw.cli_config, monkeypatch).code == 0
        locks, _ = parse_lock_text(first.lock)
        version = next(p.version for a, p in locks.providers.items() if a.endswith("/hashicorp/aws"))
        digest, _ = platform_layer(store, version, current_platform())
        _same_size(store.blob_path(digest))
        r = job(clone(fleet, "clone", first.lock), fleet / "c2", rw.cli_config, monkeypatch)
        assert r.code == 0, r.err
        doc = r.json()
        used = doc["package_store"]
        label = f"provider registry.opentofu.org/hashicorp/aws {version} ({current_platform()})"
        assert [x["package"] for x in used["rejected"]] == [label]
        assert label not in used["pushed"]  # nothing new reached the store: not reported as pushed
        assert [x["package"] for x in used["unrepaired"]] == [label]
        texts = [w for w in doc["warnings"] if w["summary"].startswith("Package store")]
        assert len(texts) == 1, texts  # once, with one header
        assert "Error:" not in texts[0]["detail"]
        assert "garbage-collect" in texts[0]["detail"] and digest in texts[0]["detail"]
        # the zip it installed came from the registry, verified
        assert (r.root / ".terraform.lock.hcl").read_text() == first.lock
        # store push cannot repair it either, and says so (exit 1)
        push = store_cmd("push", first.root, fleet / "c3", rw.cli_config, monkeypatch)
        verify = store_cmd("verify", first.root, fleet / "c3", rw.cli_config, monkeypatch)
    assert verify.code == 1 and outcomes(verify)[label] == "rejected"
    # a same-size corruption passes push's presence check: push says complete, verify says rejected
    assert push.code == 0 and outcomes(push)[label] == "complete"
    # the operator deletes the blob's data, as the advice says; then a push repairs the store
    shutil.rmtree(store.blob_path(digest).parent)
    with origins(world, fleet / "servers2") as rw:
        repaired = store_cmd("push", first.root, fleet / "c4", rw.cli_config, monkeypatch)
        assert repaired.code == 0, repaired.out
        assert outcomes(repaired)[label] == "pushed"
        assert store_cmd("verify", first.root, fleet / "c5", rw.cli_config, monkeypatch).code == 0


def test_an_index_another_oci_tool_copied_without_its_artifact_type_is_rejected_then_rewritten(
        fleet, world, store, monkeypatch):
    require_tool(shutil.which("skopeo") is not None, "Debian's skopeo", "skopeo")
    with origins(world, fleet / "servers") as rw:
        first = _first(fleet, rw, monkeypatch)
        src = f"-package-store=oci://{store.host}/src"
        assert store_cmd("push", first.root, fleet / "c1", rw.cli_config, monkeypatch, src).code == 0
        # a mirror made with another OCI tool: skopeo copy --all rewrites each index
        for repo in _get(store, "/v2/_catalog").json()["repositories"]:
            for tag in _get(store, f"/v2/{repo}/tags/list").json()["tags"]:
                subprocess.run(["skopeo", "copy", "--all", "--src-tls-verify=false", "--dest-tls-verify=false",
                                f"docker://{store.host}/{repo}:{tag}",
                                f"docker://{store.host}/ci/{repo.removeprefix('src/')}:{tag}"],
                               check=True, capture_output=True)
        locks, _ = parse_lock_text(first.lock)
        version = next(p.version for a, p in locks.providers.items() if a.endswith("/hashicorp/aws"))
        assert "artifactType" not in aws_index(store, version)  # what the copy left
        verify = store_cmd("verify", first.root, fleet / "c2", rw.cli_config, monkeypatch)
        assert verify.code == 1
        reasons = {p["package"]: p["reason"] for p in json.loads(verify.out)["packages"] if p["outcome"] != "verified"}
        assert reasons and all("no artifactType" in why for why in reasons.values()), reasons
        assert all(p.startswith("provider ") for p in reasons)  # the module packages' manifests came through whole
        r = job(clone(fleet, "clone", first.lock), fleet / "c3", rw.cli_config, monkeypatch)
        assert r.code == 0, r.err
        used = r.json()["package_store"]
        assert {x["package"] for x in used["rejected"]} == \
            {f"provider {a} {p.version} ({current_platform()})" for a, p in locks.providers.items()}
        assert all("no artifactType" in x["reason"] for x in used["rejected"])
        warned = [w for w in r.json()["warnings"] if w["summary"] == "Package store artifact rejected"]
        assert len(warned) == len(used["rejected"])
        assert aws_index(store, version)["artifactType"] == "application/vnd.opentofu.provider"  # rewritten
        cli_config = rw.cli_config
    ci = job(clone(fleet, "ci", first.lock), fleet / "c4", cli_config, monkeypatch)
    assert ci.code == 0, ci.err
    assert ci.json()["package_store"]["rejected"] == []


class FaultyFront:
    """A reverse proxy on 127.0.0.1 in front of the registry that fails the first request
    for each (method, path) once: with a 500 answer (``mode="500"``) or by resetting the
    connection (``mode="reset"``); every later one is passed on."""

    def __init__(self, upstream: str, mode: str):
        self.seen: set[tuple[str, str]] = set()
        self.faults = 0
        front = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _any(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                key = (self.command, self.path.split("?")[0])
                if key not in front.seen:
                    front.seen.add(key)
                    front.faults += 1
                    if mode == "reset":
                        import struct
                        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                        self.close_connection = True
                        self.connection.close()
                        return
                    self.send_response(500)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
                r = requests.request(self.command, f"http://{upstream}{self.path}", data=body or None,
                                     headers=headers, allow_redirects=False, timeout=30)
                self.send_response(r.status_code)
                for k, v in r.headers.items():
                    if k.lower() not in ("transfer-encoding", "connection", "content-length", "content-encoding"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(r.content)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(r.content)
            do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = _any

            def log_message(self, *a):
                pass
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.host = f"127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.mark.parametrize("mode", ["500", "reset"])
def test_transient_faults_are_retried_and_a_job_with_the_origins_down_still_succeeds(fleet, world, store,
                                                                                    monkeypatch, mode):
    with origins(world, fleet / "servers") as rw:
        first = _first(fleet, rw, monkeypatch)
        assert store_cmd("push", first.root, fleet / "c1", rw.cli_config, monkeypatch).code == 0
        cli_config = rw.cli_config
    front = FaultyFront(store.host, mode)
    try:
        monkeypatch.setenv("TOFU_SOLVE_PACKAGE_STORE", f"oci://{front.host}/ci")
        verify = store_cmd("verify", first.root, fleet / "c2", cli_config, monkeypatch)
        assert verify.code == 0, verify.out
        front.seen.clear()
        ci = job(clone(fleet, "ci", first.lock), fleet / "c3", cli_config, monkeypatch)
    finally:
        front.close()
    assert ci.code == 0, ci.err
    used = ci.json()["package_store"]
    assert used["down"] == "" and used["rejected"] == []
    assert front.faults >= 4  # every request met a fault once, and was retried
    assert installed(ci.root) == installed(first.root)


def test_a_store_down_for_good_costs_one_warning_and_the_origins_serve(fleet, world, store, monkeypatch):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens there once closed: every connection is refused
    monkeypatch.setenv("TOFU_SOLVE_PACKAGE_STORE", f"oci://127.0.0.1:{port}/ci")
    with origins(world, fleet / "servers") as rw:
        first = _first(fleet, rw, monkeypatch)
        r = job(clone(fleet, "clone", first.lock), fleet / "c2", rw.cli_config, monkeypatch)
    assert r.code == 0, r.err
    assert [w["summary"] for w in r.json()["warnings"] if w["summary"].startswith("Package store")] == \
        ["Package store unavailable"]
    assert "after retrying" in next(w["detail"] for w in r.json()["warnings"]
                                    if w["summary"] == "Package store unavailable")


def test_init_pushes_only_what_its_lock_names_and_says_so_in_one_line(fleet, world, store, monkeypatch):
    with origins(world, fleet / "servers") as rw:
        root = write_root(fleet / "root", VPC6_EKS20)
        r = _cli(["init", "-handover=false", f"-chdir={root}"], fleet / "c1", rw.cli_config, monkeypatch)
        assert r.code == 0, r.err
        locks, _ = parse_lock_text(r.lock)
        lines = [line for line in r.out.splitlines() if line.startswith("Package store ")]
        pushed = 3 + len(locks.providers)  # three module packages, one package per provider for this platform
        assert lines == [f"Package store oci://{store.host}/ci: 0 packages read, {pushed} pushed, 0 rejected."], r.out
        # every provider version in the store is one the lock names: none only read while solving
        for address, provider in locks.providers.items():
            repo = "ci/providers/" + address.lower()
            assert _get(store, f"/v2/{repo}/tags/list").json()["tags"] == [provider.version.replace("+", "_")]
        catalog = _get(store, "/v2/_catalog").json()["repositories"]
        assert len([c for c in catalog if c.startswith("ci/providers/")]) == len(locks.providers)
        # the next job reads them all, and its log shows each OCI request
        log_file = fleet / "trace.log"
        monkeypatch.setenv("TF_LOG", "TRACE")
        monkeypatch.setenv("TF_LOG_PATH", str(log_file))
        again = _cli(["init", "-handover=false", f"-chdir={clone(fleet, 'clone', r.lock)}"], fleet / "c2",
                     rw.cli_config, monkeypatch)
        logging.getLogger("tofu_solve").handlers.clear()
    assert again.code == 0, again.err
    assert f"Package store oci://{store.host}/ci: {pushed} packages read, 0 pushed, 0 rejected." in again.out
    trace = log_file.read_text()
    oci = [line for line in trace.splitlines() if " OCI GET " in line or " OCI HEAD " in line]
    assert any(f"OCI GET {store.host} ci/providers/registry.opentofu.org/hashicorp/aws manifests " in line
               and "-> 200 in " in line for line in oci), trace[-3000:]
    assert any(" blobs sha256:" in line for line in oci)


def test_jobs_filling_an_empty_store_at_once_leave_it_verified(fleet, world, store, monkeypatch):
    import os
    with origins(world, fleet / "servers") as rw:
        first = _first(fleet, rw, monkeypatch)
        env = {**os.environ, "TF_CLI_CONFIG_FILE": str(rw.cli_config)}
        procs = []
        for i in range(4):
            root = clone(fleet, f"job{i}", first.lock)
            procs.append(subprocess.Popen(
                [os.sys.executable, "-m", "tofu_solve", "init", "-handover=false", "-json", f"-chdir={root}"],
                env={**env, "TOFU_SOLVE_CACHE_DIR": str(fleet / f"cache{i}")}, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True))
        results = [p.communicate(timeout=300) for p in procs]
        assert all(p.returncode == 0 for p in procs), [e for _, e in results]
        cli_config = rw.cli_config
    verify = store_cmd("verify", first.root, fleet / "cv", cli_config, monkeypatch,
                       f"-platform={current_platform()}")
    assert verify.code == 0, verify.out
    assert set(outcomes(verify).values()) == {"verified"}
    # a stamp of what the store holds: every blob of every package is its digest's bytes
    for repo in _get(store, "/v2/_catalog").json()["repositories"]:
        for tag in _get(store, f"/v2/{repo}/tags/list").json()["tags"]:
            doc = _get(store, f"/v2/{repo}/manifests/{tag}", f"{MANIFEST}, {INDEX}").json()
            for layer in doc.get("layers", []):
                data = store.blob_path(layer["digest"]).read_bytes()
                assert "sha256:" + hashlib.sha256(data).hexdigest() == layer["digest"]
