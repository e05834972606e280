"""Hostile input and faults (issue #11): every case reproduces a probe that once failed.

Names that would escape the root, secrets in source addresses, decompression bombs,
oversized and drip-fed downloads, remote module cycles, poisoned git mirrors, a cache
directory that is a file, configuration nested 100,000 deep, a full disk, and inits killed
at several points. Servers run on 127.0.0.1 only and stop with the test.
"""

from __future__ import annotations

import contextlib
import http.server
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import threading
import time
import zipfile
from pathlib import Path
from typing import ClassVar

import pytest

from tests.e2e.conftest import lock_versions, make_repo, write_root
from tofu_solve.addrs.module_source import parse_source
from tofu_solve.lockfile import parse_lock_text
from tofu_solve.store.cache import Cache

MiB = 1 << 20


# --------------------------------------------------------------------------- a hostile HTTP server


class _Hostile(http.server.BaseHTTPRequestHandler):
    """Serves ``files`` by path; ``drip/...`` paths send one byte every 0.2 s; paths under
    ``secret/`` answer 403 unless ``?token=`` is right."""

    protocol_version = "HTTP/1.1"
    files: ClassVar[dict[str, bytes]] = {}
    token = "s3cr3t-token-value"

    def log_message(self, *a):
        pass

    def _empty(self, status: int, **headers: str) -> None:
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k.replace("_", "-"), v)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        path, _, query = self.path.partition("?")
        name = path.lstrip("/")
        # endless answers (GHSA-pxh5-6rrc-8rjv's class): a relative redirect to itself
        # (opentofu#4472), redirects that never end, a terraform-get chain that never ends
        if name.startswith("loop/"):
            return self._empty(302, Location="./" + name.rsplit("/", 1)[-1])
        if name.startswith("hop/"):
            return self._empty(302, Location=f"/hop/{int(name.split('/')[1]) + 1}/m.zip")
        if name.startswith("tfget/"):
            return self._empty(200, X_Terraform_Get=f"/tfget/{int(name.split('/')[1]) + 1}/m")
        body = self.files.get(name)
        if body is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if name.startswith("secret/") and f"token={self.token}" not in query:
            self.send_response(403)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if name.startswith("drip/"):
            with contextlib.suppress(OSError):
                for i in range(len(body)):
                    self.wfile.write(body[i:i + 1])
                    self.wfile.flush()
                    time.sleep(0.2)
            return
        self.wfile.write(body)


@pytest.fixture
def hostile():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hostile)
    httpd.daemon_threads = True
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    _Hostile.files = {}
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", _Hostile.files
    finally:
        httpd.shutdown()
        httpd.server_close()


def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()


def _tgz(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


MODULE = {"main.tf": b'variable "x" {\n  default = 1\n}\n'}


# --------------------------------------------------------------------------- 1. names and paths


@pytest.mark.parametrize("name", ["../../../../../victim", "a.b", "1abc", "-a", "a b"])
def test_module_name_that_is_not_an_identifier_is_refused(name, isolated, tofu_solve):
    """OpenTofu: internal/configs/module_call.go decodeModuleBlock (hclsyntax.ValidIdentifier,
    "Invalid module instance name")."""
    victim = isolated / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("precious")
    root = write_root(isolated / "work" / "a" / "b" / "c" / "root", f'''
        module "ok" {{
          source = "./local"
        }}
        module "{name}" {{
          source  = "terraform-aws-modules/kms/aws"
          version = "~> 3.0"
        }}
    ''', {"local/main.tf": "# local\n"})
    r = tofu_solve(root, "init")
    assert r.code == 1
    assert "Error: Invalid module instance name" in r.err
    assert f'on main.tf line 4, in module "{name}":\n   4: module "{name}" {{' in r.err
    assert "A name must start with a letter or underscore" in r.err
    assert (victim / "keep.txt").read_text() == "precious"
    assert sorted(p.name for p in victim.iterdir()) == ["keep.txt"]
    assert not (root / ".terraform").exists() and not (root / ".terraform.lock.hcl").exists()


def test_module_name_in_json_is_checked_too(isolated, tofu_solve):
    root = isolated / "root"
    root.mkdir()
    (root / "main.tf.json").write_text(json.dumps(
        {"module": {"../escape": {"source": "terraform-aws-modules/kms/aws", "version": "~> 3.0"}}}, indent=1))
    r = tofu_solve(root, "init")
    assert r.code == 1 and "Error: Invalid module instance name" in r.err
    assert 'on main.tf.json line 3, in module "../escape":' in r.err


def test_module_that_is_not_an_object_in_json_is_an_error(isolated, tofu_solve):
    root = isolated / "root"
    root.mkdir()
    (root / "main.tf.json").write_text('{\n "module": "oops"\n}\n')
    r = tofu_solve(root, "inspect")
    assert r.code == 1
    assert "Error: Incorrect JSON value type" in r.err and "on main.tf.json line 2:" in r.err


def test_remote_package_with_an_escaping_module_name_is_refused(isolated, tofu_solve):
    """A package's own module blocks are validated as the root's are: the bad name never
    becomes a directory."""
    url = make_repo(isolated / "repos" / "evil", [("v1.0.0", {
        "main.tf": 'module "../../../../../../victim" {\n  source = "git::https://127.0.0.1:1/x.git?ref=v1"\n}\n'})])
    victim = isolated / "victim"
    victim.mkdir()
    root = write_root(isolated / "root", f'''
        module "evil" {{
          source  = "git::{url}"
          version = "~> 1.0"
        }}
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 1
    assert "Invalid module instance name" in r.err
    assert list(victim.iterdir()) == []


def test_lock_file_module_label_that_escapes_is_refused(isolated, tofu_solve):
    root = write_root(isolated / "root", 'module "kms" {\n  source = "./kms"\n}\n', {"kms/main.tf": "#\n"})
    (root / ".terraform.lock.hcl").write_text(
        '# This file is maintained automatically by "tofu init".\n# Manual edits may be lost in future updates.\n\n'
        'module "../../victim" {\n  version = "1.0.0"\n  source  = "x/y/z"\n  hashes = [\n'
        '    "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",\n  ]\n}\n')
    before = (root / ".terraform.lock.hcl").read_text()
    r = tofu_solve(root, "init")
    assert r.code == 1 and "Error: Invalid module lock address" in r.err and "line 4" in r.err
    assert (root / ".terraform.lock.hcl").read_text() == before


# --------------------------------------------------------------------------- 2. secrets


def test_presigned_url_secret_stays_out_of_every_file_and_line(isolated, tofu_solve, hostile):
    base, files = hostile
    files["secret/m.tar.gz"] = _tgz(MODULE)
    secret = _Hostile.token
    root = write_root(isolated / "root", f'''
        module "m" {{
          source = "{base}/secret/m.tar.gz?token={secret}&X-Amz-Signature=abcdef0123"
        }}
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert f'source = "{base}/secret/m.tar.gz?token=***&X-Amz-Signature=***"' in r.lock
    texts = {"stdout": r.out, "stderr": r.err, "lock": r.lock,
             "state": (root / ".terraform/tofu-solve.json").read_text()}
    for cmd in (["graph", "-json"], ["why", "m"], ["inspect", "-json"], ["inspect"]):
        rr = tofu_solve(root, *cmd)
        assert rr.code == 0, rr.err
        texts[" ".join(cmd)] = rr.out + rr.err
    for p in (isolated / "cache").rglob("*"):
        assert secret not in str(p) and "abcdef0123" not in str(p)
        if p.is_file() and p.suffix == ".json":
            texts[str(p)] = p.read_text()
    leaks = [k for k, t in texts.items() if secret in t or "abcdef0123" in t]
    assert leaks == []
    # the redacted lock still matches the call: the next init verifies and changes nothing
    lock = r.lock
    r2 = tofu_solve(root, "init")
    assert r2.code == 0, r2.err
    assert "Verified checksum matches lock file" in r2.out and r2.lock == lock


def test_registry_location_with_credentials_is_never_cached(isolated, tofu_solve, hostile, running):
    base, files = hostile
    files["secret/m.zip"] = _zip(MODULE)
    secret = _Hostile.token
    running.registry.extra["acme/secret/aws"] = {"versions": {"1.0.0": f"{base}/secret/m.zip?token={secret}"}}
    try:
        root = write_root(isolated / "root", '''
            module "m" {
              source  = "acme/secret/aws"
              version = "1.0.0"
            }
        ''')
        r = tofu_solve(root, "init")
        assert r.code == 0, r.err
        for p in (isolated / "cache").rglob("*.json"):
            assert secret not in p.read_text(), p
        assert secret not in r.out + r.err + r.lock
    finally:
        del running.registry.extra["acme/secret/aws"]


# --------------------------------------------------------------------------- 3. bounds


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_decompression_bomb_is_refused(kind, isolated, tofu_solve, hostile, monkeypatch):
    base, files = hostile
    zeros = bytes(64 * MiB)  # compresses to ~64 KiB
    files[f"bomb.{kind}"] = (_zip if kind == "zip" else _tgz)({**MODULE, "pad.bin": zeros})
    assert len(files[f"bomb.{kind}"]) < MiB
    monkeypatch.setenv("TOFU_SOLVE_MAX_EXTRACTED_BYTES", str(16 * MiB))
    root = write_root(isolated / "root", f'module "b" {{\n  source = "{base}/bomb.{kind}"\n}}\n')
    r = tofu_solve(root, "init")
    assert r.code == 1
    assert "Error: Module package too large" in r.err
    assert "TOFU_SOLVE_MAX_EXTRACTED_BYTES" in r.err
    written = sum(p.stat().st_size for p in (isolated / "cache").rglob("*") if p.is_file())
    assert written < 24 * MiB, f"{written} bytes written to the cache"
    assert not (root / ".terraform" / "modules" / "b").exists()


def test_per_file_and_entry_count_limits(isolated, tofu_solve, hostile, monkeypatch):
    base, files = hostile
    files["many.zip"] = _zip({**MODULE, **{f"f{i}.txt": b"x" for i in range(300)}})
    monkeypatch.setenv("TOFU_SOLVE_MAX_ARCHIVE_ENTRIES", "100")
    r = tofu_solve(write_root(isolated / "root", f'module "b" {{\n  source = "{base}/many.zip"\n}}\n'), "init")
    assert r.code == 1 and "more than 100 entries" in r.err
    monkeypatch.delenv("TOFU_SOLVE_MAX_ARCHIVE_ENTRIES")
    files["big.zip"] = _zip({**MODULE, "big.bin": bytes(3 * MiB)})
    monkeypatch.setenv("TOFU_SOLVE_MAX_FILE_BYTES", str(MiB))
    r = tofu_solve(write_root(isolated / "root2", f'module "b" {{\n  source = "{base}/big.zip"\n}}\n'), "init")
    assert r.code == 1 and "'big.bin' unpacks to more than 1048576 bytes" in r.err


def test_download_size_is_capped(isolated, tofu_solve, hostile, monkeypatch):
    base, files = hostile
    files["large.zip"] = _zip({**MODULE, "noise.bin": os.urandom(3 * MiB)})
    monkeypatch.setenv("TOFU_SOLVE_MAX_DOWNLOAD_BYTES", str(MiB))
    r = tofu_solve(write_root(isolated / "root", f'module "b" {{\n  source = "{base}/large.zip"\n}}\n'), "init")
    assert r.code == 1 and "is too large" in r.err and "TOFU_SOLVE_MAX_DOWNLOAD_BYTES" in r.err


def test_invalid_limit_setting_names_the_variable(isolated, tofu_solve, monkeypatch):
    monkeypatch.setenv("TOFU_SOLVE_MAX_DOWNLOAD_BYTES", "lots")
    r = tofu_solve(write_root(isolated / "root", 'module "a" {\n  source = "./a"\n}\n', {"a/main.tf": "#\n"}),
                   "init")
    assert r.code == 1 and "TOFU_SOLVE_MAX_DOWNLOAD_BYTES must be a positive integer" in r.err


def test_drip_fed_download_hits_the_deadline(isolated, tofu_solve, hostile, monkeypatch):
    base, files = hostile
    files["drip/m.zip"] = _zip(MODULE)  # a few hundred bytes at 5 bytes a second
    monkeypatch.setenv("TOFU_SOLVE_DOWNLOAD_DEADLINE", "1.5")  # the server alone would take over a minute
    r = tofu_solve(write_root(isolated / "root", f'module "d" {{\n  source = "{base}/drip/m.zip"\n}}\n'), "init")
    assert r.code == 1 and "timed out" in r.err and "TOFU_SOLVE_DOWNLOAD_DEADLINE" in r.err
    assert "did not finish within 1.5 s" in r.err


@pytest.mark.parametrize("path,words", [
    ("loop/m.zip", "it redirected too many times"),
    ("hop/0/m.zip", "it redirected too many times"),
    ("tfget/0/m", "Too many redirects"),
])
def test_a_server_that_answers_forever_is_cut_off(path, words, isolated, tofu_solve, hostile):
    """Issue #38 (GHSA-pxh5-6rrc-8rjv; opentofu#4472: a relative redirect loop): a download
    that redirects forever, to itself or onwards, or hands on X-Terraform-Get locations
    forever, stops after remote/limits.MAX_REDIRECTS hops with an error at the source line."""
    from tofu_solve.remote.limits import MAX_REDIRECTS
    url, _ = hostile
    root = write_root(isolated / "root", f'module "m" {{\n  source = "{url}/{path}"\n}}\n')
    started = time.monotonic()
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 1 and words in r.err and "on main.tf line 2" in r.err, r.err
    assert time.monotonic() - started < 60
    assert MAX_REDIRECTS == 10  # Go's net/http client's limit, which go-getter and tofu use


def test_a_drip_fed_registry_module_archive_hits_the_deadline(isolated, tofu_solve, hostile, running, monkeypatch):
    """Issue #38 (GHSA-pxh5-6rrc-8rjv's class): the archive a registry module's download
    location names, dripped a byte at a time while declaring its full length, is cut off at
    the download deadline, as a direct archive is, and named; the run does not hang."""
    base, files = hostile
    files["drip/reg.zip"] = _zip(MODULE)
    running.registry.extra["acme/drip/aws"] = {"versions": {"1.0.0": f"{base}/drip/reg.zip"}}
    monkeypatch.setenv("TOFU_SOLVE_DOWNLOAD_DEADLINE", "1.5")
    try:
        r = tofu_solve(write_root(isolated / "root", 'module "d" {\n  source  = "acme/drip/aws"\n'
                                                     '  version = "1.0.0"\n}\n'), "init", "-handover=false")
    finally:
        running.registry.extra.pop("acme/drip/aws", None)
    assert r.code == 1 and "did not finish within 1.5 s" in r.err, r.err  # the server alone takes over a minute
    assert "drip/reg.zip" in r.err


@pytest.mark.parametrize("source", [
    "git::file://{repo}?ref=--upload-pack=touch {marker}",   # a ref that is an option of git fetch
    "git::ssh://-oProxyCommand=touch {marker}/r.git",         # a host that is an option of ssh
    "git::ext::sh -c touch% {marker}",                        # git's ext:: transport runs a command
    "git::file://{repo}//../../../{marker}?ref=v1.0.0",       # a subdirectory outside the package
])
def test_crafted_git_sources_run_nothing_and_read_nothing(isolated, tofu_solve, source):
    """Issue #38, the class of go-getter's CVE-2026-4660 (GHSA-q7j3-v8qv-22vq: a crafted git
    URL reads a local file) and CVE-2024-3817 (argument injection): each crafted source is
    refused with an error at its ``source`` line; nothing runs (no marker file), no internal
    error. git is run with ``GIT_ALLOW_PROTOCOL`` (no ``ext::``), every remote and refspec
    after ``--``, and ssh refuses a host that starts with ``-``."""
    repo = make_repo(isolated / "repo", [("v1.0.0", {"main.tf": "# one\n"})]).removeprefix("file://")
    marker = isolated / "PWNED"
    src = source.format(repo=repo, marker=marker)
    r = tofu_solve(write_root(isolated / "root", f'module "m" {{\n  source = "{src}"\n}}\n'), "init",
                   "-handover=false")
    assert r.code == 1, r.out
    assert "internal error" not in r.err
    assert "on main.tf line 2" in r.err, r.err
    assert not marker.exists()


class _Recorder(http.server.BaseHTTPRequestHandler):
    """Another origin: records every request's headers; serves a version list and a zip."""

    protocol_version = "HTTP/1.1"
    seen: ClassVar[list[dict[str, str]]] = []
    body: ClassVar[bytes] = b""

    def log_message(self, *a):
        pass

    def do_GET(self):
        self.seen.append({k.lower(): v for k, v in self.headers.items()} | {"path": self.path})
        data = (json.dumps({"modules": [{"versions": [{"version": "1.0.0"}]}]}).encode()
                if self.path.startswith("/versions") else self.body)
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _serve(handler) -> tuple[http.server.ThreadingHTTPServer, str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


def test_registry_credentials_never_follow_a_redirect_to_another_origin(isolated, tofu_solve, monkeypatch):
    """Issue #38 (opentofu#4422): a registry that answers with a redirect to another origin,
    and a download location on another origin, never receive the registry's token; the
    registry itself does (the control)."""
    token = "s3cret-registry-token"
    _Recorder.seen, _Recorder.body = [], _zip(MODULE)
    other, other_url = _serve(_Recorder)
    registry_seen: list[dict[str, str]] = []

    class Registry(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def do_GET(self):
            registry_seen.append({k.lower(): v for k, v in self.headers.items()})
            if self.path.endswith("/versions"):
                self.send_response(302)
                self.send_header("Location", f"{other_url}/versions")
            elif self.path.endswith("/download"):
                self.send_response(204)
                self.send_header("X-Terraform-Get", f"{other_url}/m.zip")
            else:
                self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

    registry, registry_url = _serve(Registry)
    try:
        rc = isolated / "rc.tfrc"
        rc.write_text(f'host "registry.opentofu.org" {{\n  services = {{\n'
                      f'    "modules.v1" = "{registry_url}/v1/modules/"\n  }}\n}}\n'
                      f'credentials "registry.opentofu.org" {{\n  token = "{token}"\n}}\n')
        monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(rc))
        r = tofu_solve(write_root(isolated / "root", 'module "m" {\n  source  = "acme/leak/aws"\n'
                                                     '  version = "1.0.0"\n}\n'), "init", "-handover=false")
        assert r.code == 0, r.err
    finally:
        registry.shutdown()
        other.shutdown()
    assert registry_seen and all(h.get("authorization") == f"Bearer {token}" for h in registry_seen)
    assert {h["path"] for h in _Recorder.seen} == {"/versions", "/m.zip"}
    assert not any(token in v for h in _Recorder.seen for v in h.values()), _Recorder.seen


# --------------------------------------------------------------------------- 4. cycles


def test_remote_module_cycle_is_reported_with_its_chain(isolated, tofu_solve):
    a_dir, b_dir = isolated / "repos" / "a", isolated / "repos" / "b"
    make_repo(a_dir, [("v1.0.0", {"main.tf": f'module "b" {{\n  source = "git::file://{b_dir}?ref=v1.0.0"\n}}\n'})])
    make_repo(b_dir, [("v1.0.0", {"main.tf": f'module "a" {{\n  source = "git::file://{a_dir}?ref=v1.0.0"\n}}\n'})])
    root = write_root(isolated / "root", f'module "a" {{\n  source = "git::file://{a_dir}?ref=v1.0.0"\n}}\n')
    r = tofu_solve(root, "init")
    assert r.code == 1
    assert "Error: Module call cycle" in r.err
    assert 'module "a" (' in r.err and 'module "a.b" (' in r.err and 'module "a.b.a" (' in r.err


# --------------------------------------------------------------------------- 5. caches that heal


def _git_root(tmp: Path) -> tuple[Path, str]:
    url = make_repo(tmp / "repos" / "m", [("v1.0.0", {"main.tf": "# one\n", "sub/x.tf": "# x\n"}),
                                          ("v1.1.0", {"main.tf": "# two\n", "sub/x.tf": "# y\n"})])
    root = write_root(tmp / "root", f'module "m" {{\n  source  = "git::{url}"\n  version = "~> 1.0"\n}}\n')
    return root, url


def _fresh_cache_entries(cache: Path) -> None:
    """Drop the extracted packages (and their trees) so the next init reads the mirror."""
    for kind in ("packages", "package-h1", "metadata"):
        shutil.rmtree(cache / kind, ignore_errors=True)


def test_mirror_with_incomplete_objects_is_rebuilt(isolated, tofu_solve):
    root, url = _git_root(isolated)
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    lock = r.lock
    cache = isolated / "cache"
    mirror = Cache(cache).git_mirror(parse_source(f"git::{url}").git.url)
    commit = subprocess.run(["git", "--git-dir", str(mirror), "rev-parse", "refs/tags/v1.1.0"],
                            capture_output=True, text=True, check=True).stdout.strip()
    body = subprocess.run(["git", "--git-dir", str(mirror), "cat-file", "commit", commit],
                          capture_output=True, check=True).stdout
    # What a fetch killed half-way leaves: the commit object, none of its tree.
    shutil.rmtree(mirror)
    subprocess.run(["git", "init", "-q", "--bare", str(mirror)], check=True)
    subprocess.run(["git", "--git-dir", str(mirror), "hash-object", "-t", "commit", "-w", "--stdin"],
                   input=body, check=True, capture_output=True)
    _fresh_cache_entries(cache)
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert r.lock == lock and (root / ".terraform/modules/m/main.tf").read_text() == "# two\n"


def test_stale_git_lock_files_are_cleared(isolated, tofu_solve):
    root, url = _git_root(isolated)
    assert tofu_solve(root, "init").code == 0
    cache = isolated / "cache"
    mirror = Cache(cache).git_mirror(parse_source(f"git::{url}").git.url)
    shutil.rmtree(mirror)
    subprocess.run(["git", "init", "-q", "--bare", str(mirror)], check=True)
    for name in ("shallow.lock", "packed-refs.lock", "config.lock"):
        (mirror / name).write_text("")
    (mirror / "refs" / "tags").mkdir(parents=True, exist_ok=True)
    (mirror / "refs" / "tags" / "v1.1.0.lock").write_text("")
    _fresh_cache_entries(cache)
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert not list(mirror.rglob("*.lock"))


def _whole(root: Path) -> None:
    """What a killed run left in ``root`` is never partial: the lock file and modules.json
    are absent or complete."""
    lock = root / ".terraform.lock.hcl"
    assert not lock.exists() or parse_lock_text(lock.read_text())[1] == [], lock.read_text()
    manifest = root / ".terraform" / "modules" / "modules.json"
    if manifest.exists():
        json.loads(manifest.read_text())


def test_init_killed_anywhere_is_fine_next_time(tmp_path, running):
    """Issue #38 §2: kill -9 of a cold init at points spread over the whole run (listings,
    git fetches, downloads, archive extraction, cache writes, the lock and modules.json
    writes), each with a cache of its own, and of a warm re-init: nothing is ever left
    partial, and the next init exits 0 with the lock an uninterrupted run writes."""
    a = make_repo(tmp_path / "repos" / "a", [(f"v1.{i}.0", {"main.tf": f"# a {i}\n" + "# " + "x" * 20000 + "\n"})
                                            for i in range(3)])
    tf = f'''
        module "a" {{
          source  = "git::{a}"
          version = "~> 1.0"
        }}
        module "kms" {{
          source  = "terraform-aws-modules/kms/aws"
          version = "~> 3.0"
        }}
    '''

    def env(cache: Path) -> dict[str, str]:
        return {**os.environ, "TF_CLI_CONFIG_FILE": str(running.cli_config), "TOFU_SOLVE_CACHE_DIR": str(cache)}

    def init(root: Path, cache: Path) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "tofu_solve", "init", f"-chdir={root}", "-handover=false"],
                              env=env(cache), capture_output=True, text=True, timeout=300)

    def killed(root: Path, cache: Path, after: float) -> None:
        proc = subprocess.Popen([sys.executable, "-m", "tofu_solve", "init", f"-chdir={root}", "-handover=false"],
                                env=env(cache), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(after)
        proc.send_signal(signal.SIGKILL)
        proc.wait()

    reference = write_root(tmp_path / "reference", tf)
    started = time.monotonic()
    r = init(reference, tmp_path / "reference-cache")
    cold = time.monotonic() - started
    assert r.returncode == 0, r.stderr
    lock = (reference / ".terraform.lock.hcl").read_text()
    assert lock_versions(lock)["a"] == "v1.2.0"
    for i, share in enumerate((0.1, 0.25, 0.4, 0.55, 0.7, 0.85, 1.0)):
        root, cache = write_root(tmp_path / f"cold{i}", tf), tmp_path / f"cache{i}"
        killed(root, cache, cold * share)
        _whole(root)
        r = init(root, cache)
        assert r.returncode == 0, (share, r.stderr)
        assert (root / ".terraform.lock.hcl").read_text() == lock, share
        assert (root / ".terraform/modules/a/main.tf").read_text().startswith("# a 2\n")
    root, cache = tmp_path / "cold0", tmp_path / "cache0"  # complete: a warm re-init from here
    started = time.monotonic()
    assert init(root, cache).returncode == 0
    warm = time.monotonic() - started
    for share in (0.2, 0.5, 0.8):
        killed(root, cache, warm * share)
        _whole(root)
        r = init(root, cache)
        assert r.returncode == 0, (share, r.stderr)
        assert (root / ".terraform.lock.hcl").read_text() == lock, share


# --------------------------------------------------------------------------- 8. errors, not crashes


def test_cache_dir_that_is_a_file(isolated, tofu_solve, monkeypatch):
    f = isolated / "not-a-dir"
    f.write_text("x")
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(f))
    root, _ = _git_root(isolated)
    r = tofu_solve(root, "init")
    assert r.code == 1
    assert "Error: Cannot use the cache directory" in r.err and str(f) in r.err
    assert "internal error" not in r.err


def test_json_nested_100000_deep(isolated, tofu_solve):
    root = isolated / "root"
    root.mkdir()
    (root / "main.tf.json").write_text('{"locals": {"a": ' + "[" * 100_000 + "]" * 100_000 + "}}")
    r = tofu_solve(root, "inspect")
    assert r.code == 1
    assert "nested too deeply" in r.err and "main.tf.json" in r.err and "internal error" not in r.err


def _tmpfs(path: Path, size: str) -> bool:
    path.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
    return r.returncode == 0


def test_full_disk_under_the_cache(isolated, tofu_solve, hostile, monkeypatch):
    disk = isolated / "small-disk"
    if not _tmpfs(disk, "2m"):
        pytest.skip("this machine does not allow mounting a small tmpfs (needs root and mount rights)")
    try:
        base, files = hostile
        files["fill.zip"] = _zip({**MODULE, "noise.bin": os.urandom(3 * MiB)})
        monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(disk / "cache"))
        root = write_root(isolated / "root", f'module "f" {{\n  source = "{base}/fill.zip"\n}}\n')
        r = tofu_solve(root, "init")
        assert r.code == 1
        assert "No space left on device" in r.err and "internal error" not in r.err
        assert not (root / ".terraform.lock.hcl").exists()
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)


# --------------------------------------------------------------------------- go-getter HTTP pages


def test_a_drip_fed_terraform_get_page_hits_the_deadline(isolated, tofu_solve, hostile, monkeypatch):
    """The ``?terraform-get=1`` probe is read as bounded as every other answer (it once read
    the whole page with no deadline: a byte every half second kept init running 21.8 s
    under a 2 s deadline)."""
    base, files = hostile
    files["drip/page"] = b"<html><head>" + b" " * 400 + b"</head></html>"
    monkeypatch.setenv("TOFU_SOLVE_DOWNLOAD_DEADLINE", "1.5")
    started = time.monotonic()
    r = tofu_solve(write_root(isolated / "root", f'module "d" {{\n  source = "{base}/drip/page"\n}}\n'), "init")
    assert r.code == 1 and "timed out" in r.err and "did not finish within 1.5 s" in r.err
    assert time.monotonic() - started < 30


def test_an_oversized_terraform_get_page_is_refused(isolated, tofu_solve, hostile, monkeypatch):
    base, files = hostile
    files["big/page"] = b"<html><head></head><body>" + b"x" * 20_000 + b"</body></html>"
    monkeypatch.setenv("TOFU_SOLVE_MAX_DOCUMENT_BYTES", "10000")
    r = tofu_solve(write_root(isolated / "root", f'module "d" {{\n  source = "{base}/big/page"\n}}\n'), "init")
    assert r.code == 1 and "too large" in r.err and "TOFU_SOLVE_MAX_DOCUMENT_BYTES" in r.err


def test_terraform_get_meta_is_read_as_html(isolated, tofu_solve, hostile):
    """go-getter ``get_http.go`` ``parseMeta``: attributes in any order and quoting, element
    names in any case, entities decoded; nothing after ``</head>`` counts."""
    base, files = hostile
    files["pkg/m.zip"] = _zip(MODULE)
    files["page"] = (f"<!doctype html><html><head><title>x</title><META content='{base}/pkg/m.zip?a=1&amp;b=2' "
                     'NAME="terraform-get"></head><body></body></html>').encode()
    files["late"] = (f'<html><head></head><body><meta name="terraform-get" content="{base}/pkg/m.zip"></body>'
                     "</html>").encode()
    r = tofu_solve(write_root(isolated / "root", f'module "p" {{\n  source = "{base}/page"\n}}\n'), "init")
    assert r.code == 0, r.err
    assert (isolated / "root/.terraform/modules/p/main.tf").exists()
    r = tofu_solve(write_root(isolated / "late", f'module "p" {{\n  source = "{base}/late"\n}}\n'), "init")
    assert r.code == 1 and "gave no X-Terraform-Get location" in r.err


def test_terraform_get_meta_parser():
    from tofu_solve.remote.fetch import terraform_get_meta

    assert terraform_get_meta('<meta name="terraform-get" content="git::https://h/r?ref=v1&amp;depth=1">') == \
        "git::https://h/r?ref=v1&depth=1"
    assert terraform_get_meta("<head><meta content='x' name='terraform-get'/></head>") == "x"
    assert terraform_get_meta('<head><meta name="terraform-get" content=""><meta name="terraform-get" '
                              'content="second"></head>') == "second"  # an empty content is passed over
    assert terraform_get_meta('<meta name="Terraform-Get" content="x">') is None  # the value is exact
    assert terraform_get_meta("<html><body>no meta</body></html>") is None


@pytest.mark.parametrize("algo", ["md5", "sha1", "sha256", "sha512"])
def test_a_checksum_without_its_type_is_known_by_its_length(isolated, tofu_solve, hostile, algo):
    """go-getter ``checksum.go`` ``newChecksumFromValue``: 16, 20, 32 or 64 bytes are md5,
    sha1, sha256 or sha512 (tofu-solve once took every untyped checksum for sha256)."""
    import hashlib
    base, files = hostile
    files["c/m.zip"] = body = _zip(MODULE)
    digest = hashlib.new(algo, body).hexdigest()
    ok = tofu_solve(write_root(isolated / algo, f'module "c" {{\n  source = "{base}/c/m.zip?checksum={digest}"\n}}\n'),
                    "init")
    assert ok.code == 0, ok.err
    typed = tofu_solve(write_root(isolated / f"{algo}-typed", f'module "c" {{\n  source = '
                                  f'"{base}/c/m.zip?checksum={algo.upper()}:{"0" * len(digest)}"\n}}\n'), "init")
    assert typed.code == 1 and "Checksum mismatch" in typed.err


def test_a_checksum_of_no_known_length_is_refused(isolated, tofu_solve, hostile):
    base, files = hostile
    files["c/m.zip"] = _zip(MODULE)
    r = tofu_solve(write_root(isolated / "root", f'module "c" {{\n  source = "{base}/c/m.zip?checksum=abcd"\n}}\n'),
                   "init")
    assert r.code == 1 and "Invalid checksum" in r.err and "Unknown type for checksum abcd" in r.err


def test_a_run_writes_nothing_outside_the_root_the_cache_and_the_data_directory(tmp_path, running):
    """Not even Lark's compiled grammar, which it keeps in the system's temporary directory by
    default: tofu-solve keeps it in its cache (config/hcl.py use_cache_dir)."""
    tmp, home, cache = tmp_path / "tmp", tmp_path / "home", tmp_path / "cache"
    tmp.mkdir()
    home.mkdir()
    # an argument that is not a plain value: the parser is built (plain values need none)
    root = write_root(tmp_path / "root", 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n'
                                         '  version = "~> 6.0"\n  azs     = slice(["a", "b"], 0, 1)\n}\n')
    env = {**os.environ, **running.env(cache), "TMPDIR": str(tmp), "HOME": str(home)}
    for args in (["init"], ["check"], ["why", "vpc"], ["inspect"]):
        r = subprocess.run([sys.executable, "-m", "tofu_solve", *args, f"-chdir={root}"], env=env, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stderr
    assert list(tmp.iterdir()) == [] and list(home.iterdir()) == []
    assert list((cache / "grammar").glob("hcl2-tofu-solve-*.lark"))


@pytest.mark.parametrize("leftover", ["HEAD only", "no objects", "empty HEAD", "config missing"])
def test_a_mirror_a_killed_git_init_left_is_rebuilt(isolated, tofu_solve, leftover):
    """kill -9 while git creates a mirror leaves a directory git does not recognize (once:
    "internal error … InvalidGitRepositoryError" on the next run); it is rebuilt instead."""
    root, url = _git_root(isolated)
    assert tofu_solve(root, "init").code == 0
    cache = isolated / "cache"
    mirror = Cache(cache).git_mirror(parse_source(f"git::{url}").git.url)
    if leftover == "HEAD only":
        shutil.rmtree(mirror)
        mirror.mkdir()
        (mirror / "HEAD").write_text("ref: refs/heads/main\n")
    elif leftover == "no objects":
        shutil.rmtree(mirror / "objects")
    elif leftover == "empty HEAD":
        (mirror / "HEAD").write_text("")
    else:
        (mirror / "config").unlink()
    _fresh_cache_entries(cache)
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert "internal error" not in r.err
    assert (root / ".terraform/modules/m/main.tf").read_text() == "# two\n"


# --------------------------------------------------------------------------- a hostile OCI registry


class _HostileOci(http.server.BaseHTTPRequestHandler):
    """An OCI distribution endpoint on 127.0.0.1: ``drip/*`` repositories send their tag list
    a byte every 0.2 s; ``huge/*`` answer a 20 MB manifest; others list a tag whose manifest
    points at a blob that never ends."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def _send(self, body: bytes, drip: bool = False, length: int | None = None,
              ctype: str = "application/json") -> None:
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        with contextlib.suppress(OSError):
            if drip:
                for i in range(len(body)):
                    self.wfile.write(body[i:i + 1])
                    self.wfile.flush()
                    time.sleep(0.2)
            else:
                self.wfile.write(body)

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == "/v2/":
            return self._send(b"{}")
        repo = path[len("/v2/"):].split("/", 1)[0]
        if path.endswith("/tags/list"):
            return self._send(json.dumps({"name": repo, "tags": ["1.0.0"]}).encode(), drip=repo == "drip")
        if "/manifests/" in path:
            if repo == "huge":
                return self._send(b"{" + b" " * 20_000_000 + b"}",
                                  ctype="application/vnd.oci.image.manifest.v1+json")
            manifest = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                        "artifactType": "application/vnd.opentofu.modulepkg",
                        "config": {"mediaType": "application/vnd.oci.empty.v1+json", "size": 2,
                                   "digest": "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"},
                        "layers": [{"mediaType": "archive/zip", "size": 100,
                                    "digest": "sha256:" + "0" * 64}]}
            return self._send(json.dumps(manifest).encode(), ctype="application/vnd.oci.image.manifest.v1+json")
        if "/blobs/" in path:  # declares 100 bytes, then drips forever
            return self._send(b"x" * 100, drip=True)
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture
def hostile_oci():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _HostileOci)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize("repo, expected", [
    ("drip", "did not finish within 1.5 s"),  # the tag list
    ("huge", "is too large"),  # the manifest
    ("slow", "did not finish within 1.5 s"),  # the blob
])
def test_every_oci_read_is_bounded(isolated, tofu_solve, hostile_oci, monkeypatch, repo, expected):
    """OCI answers are read as bounded as every other (the tag list and manifests once came
    through oras and requests with no size or overall time limit, the blob into $TMPDIR)."""
    monkeypatch.setenv("TOFU_SOLVE_DOWNLOAD_DEADLINE", "1.5")
    started = time.monotonic()
    r = tofu_solve(write_root(isolated / "root", f'module "o" {{\n  source  = "oci://{hostile_oci}/{repo}/mod"\n'
                                                 '  version = "1.0.0"\n}\n'), "init")
    assert r.code == 1 and expected in r.err, r.err
    assert time.monotonic() - started < 30
