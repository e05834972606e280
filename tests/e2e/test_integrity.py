"""Packages and integrity: hashes in the lock, verification on every init, moved and deleted
tags, interrupted and concurrent inits, unsafe archives, offline mode, modules.json,
credentials. All against real git repositories and real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import http.server
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path
from typing import ClassVar

import pytest

from tests.e2e.conftest import VPC6_EKS20, lock_versions, make_repo, write_root
from tofu_solve.lockfile import parse_lock_text

REPO = Path(__file__).resolve().parents[2]


def _kms_root(dir: Path) -> Path:
    return write_root(dir, '''
        module "kms" {
          source  = "terraform-aws-modules/kms/aws"
          version = "~> 3.0"
        }
    ''')


def test_hashes_recorded_and_verified(tmp_path, tofu_solve, own_cache):
    root = _kms_root(tmp_path / "root")
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    locks, _ = parse_lock_text(r.lock)
    h = locks.modules["kms"].hashes
    assert len(h) == 1 and h[0].startswith("h1:")
    from tofu_solve.lockfile.hashes import VCS_DIRS, hash_dir
    assert hash_dir(root / ".terraform/modules/kms", exclude=VCS_DIRS) == h[0]
    r = tofu_solve(root, "init")
    assert r.code == 0 and "Verified checksum matches lock file" in r.out


def _package_files(cache: Path):
    # not the entries being written (replace_dir's hidden ".<name>." directories beside them)
    return [p for p in (cache / "packages").rglob("*.tf")
            if not any(part.startswith(".") for part in p.relative_to(cache / "packages").parts)]


def test_tampered_cached_package_is_discarded_and_fetched_again(tmp_path, tofu_solve, own_cache):
    """Issue #11 (caches that heal): a changed byte in a cached package is caught before
    reuse; the entry is discarded and fetched again, and the lock keeps the genuine hash."""
    root = _kms_root(tmp_path / "root")
    assert tofu_solve(root, "init").code == 0
    lock_before = (root / ".terraform.lock.hcl").read_text()
    f = _package_files(own_cache)[0]
    genuine = f.read_bytes()
    data = bytearray(genuine)
    data[0] ^= 1
    f.write_bytes(bytes(data))
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert "was damaged; it was discarded and fetched again" in r.out + r.err
    assert "Verified checksum matches lock file" in r.out
    assert f.read_bytes() == genuine
    assert (root / ".terraform.lock.hcl").read_text() == lock_before


def test_upgrade_never_locks_a_tampered_cache(tmp_path, tofu_solve, own_cache):
    """Issue #11 item 6: -upgrade fetches fresh, so a tampered cached copy never reaches
    the lock (it used to record the tampered copy's h1:)."""
    root = _kms_root(tmp_path / "root")
    assert tofu_solve(root, "init").code == 0
    lock_before = (root / ".terraform.lock.hcl").read_text()
    for f in _package_files(own_cache):
        f.write_text(f.read_text() + "\n# tampered\n")
    # The recorded hashes are tampered with too: only a fresh fetch can tell.
    for p in (own_cache / "package-h1").rglob("*.json"):
        p.unlink()
    r = tofu_solve(root, "init", "-upgrade")
    assert r.code == 0, r.err
    assert (root / ".terraform.lock.hcl").read_text() == lock_before
    assert all("# tampered" not in f.read_text() for f in _package_files(own_cache))


def test_an_edited_lock_hash_gets_one_diagnosis_from_check_and_init(tmp_path, tofu_solve, own_cache):
    """Issue #47 §6: the lock's ``h1:`` edited. ``check`` and ``init`` agree on what changed
    (the lock: the package and the installed copy agree with each other), name the block and
    its line, and name ``-accept-checksum=kms`` for that one call (issue #60 §1: never an
    ``-upgrade``, which may select a version nobody reviewed); which, after review, lands the
    genuine hash and moves nothing."""
    root = _kms_root(tmp_path / "root")
    assert tofu_solve(root, "init").code == 0
    lock_path = root / ".terraform.lock.hcl"
    locks, _ = parse_lock_text(lock_path.read_text())
    real = locks.modules["kms"].hashes[0]
    forged = "h1:" + "A" * 43 + "="
    genuine_lock = lock_path.read_text()
    lock_path.write_text(genuine_lock.replace(real, forged))
    lock_before = lock_path.read_text()
    line = next(i for i, x in enumerate(lock_before.splitlines(), 1) if x.startswith('module "kms"'))
    words = (f'The module "kms" block of .terraform.lock.hcl records {forged}, but the package it locks hashes to '
             f"{real}, as does the installed copy: the lock file was edited, not the package.")
    for args in (("init",), ("init", "-lockfile=readonly")):
        r = tofu_solve(root, *args)
        assert r.code == 1
        assert "Error: Lock file hash edited" in r.err and f"on .terraform.lock.hcl line {line}" in r.err
        assert " ".join(words.split()) in " ".join(r.err.split())
        assert "tofu-solve init -accept-checksum=kms" in r.err and "-upgrade" not in r.err
        assert f"Locked: {forged}" in r.err and f"Found:  {real}" in r.err
        assert lock_path.read_text() == lock_before
    c = tofu_solve(root, "check", "-json").json()
    assert [(d["kind"], d["file"], d["line"]) for d in c["differences"]] == [("lock-hash", ".terraform.lock.hcl", line)]
    assert words in c["differences"][0]["detail"] and "-accept-checksum=kms" in c["differences"][0]["detail"]
    text = tofu_solve(root, "check")
    assert text.code == 1 and "An edited lock hash is not mended by tofu-solve init" in text.err
    r = tofu_solve(root, "init", "-accept-checksum=kms")  # reviewed: accepted for this call alone
    assert r.code == 0, r.err
    assert lock_path.read_text() == genuine_lock
    said = " ".join(r.out.split())
    assert f"checksum accepted at {locks.modules['kms'].version} (-accept-checksum=kms): {forged}" in said
    assert f"-> {real}" in said


def test_a_changed_package_is_told_apart_from_an_edited_lock(tmp_path, tofu_solve, own_cache):
    """The package, not the lock, changed (every cached file and its recorded hash
    rewritten, as a compromised origin would serve it): the lock and the installed copy
    agree, so init names the package, with -accept-checksum=kms to accept it after review, at
    the same version."""
    root = _kms_root(tmp_path / "root")
    assert tofu_solve(root, "init").code == 0
    lock_before = (root / ".terraform.lock.hcl").read_text()
    for f in _package_files(own_cache):
        f.write_text(f.read_text() + "\n# changed upstream\n")
    for p in (own_cache / "package-h1").rglob("*.json"):
        p.unlink()
    r = tofu_solve(root, "init")
    assert r.code == 1
    assert "Error: Module checksum verification failed" in r.err
    said = " ".join(r.err.split())
    assert ".terraform.lock.hcl and the installed copy both record" in said
    assert "the package changed where it comes from, or in the cache" in said
    assert "tofu-solve init -accept-checksum=kms" in r.err
    assert (root / ".terraform.lock.hcl").read_text() == lock_before
    version = parse_lock_text(lock_before)[0].modules["kms"].version
    r = tofu_solve(root, "init", "-accept-checksum=kms")
    assert r.code == 0, r.err
    after = parse_lock_text(r.lock)[0].modules["kms"]
    assert after.version == version and after.hashes != parse_lock_text(lock_before)[0].modules["kms"].hashes
    assert all("# changed upstream" in f.read_text() for f in (root / ".terraform/modules/kms").rglob("*.tf"))
    assert tofu_solve(root, "init").code == 0  # the accepted contents verify from now on


def test_an_edited_installed_module_is_reinstalled_from_the_verified_package(tmp_path, tofu_solve, own_cache):
    """The lock, not the working copy, is the authority (issue #21): an installed copy edited
    after installation is put back, with a warning; check and init give the same advice; the
    lock and every other module stay as they are (no blanket -upgrade)."""
    root = _kms_root(tmp_path / "root")
    assert tofu_solve(root, "init").code == 0
    lock_before = (root / ".terraform.lock.hcl").read_text()
    installed = next((root / ".terraform/modules/kms").rglob("*.tf"))
    genuine = installed.read_text()
    installed.write_text(genuine + "\n# edited\n")
    r = tofu_solve(root, "check")
    assert r.code == 1 and "tofu-solve init reinstalls it from the package verified against the lock" in r.err
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert "Warning: The installed copy of module \"kms\" (.terraform/modules/kms) no longer matched the lock" in r.out
    assert installed.read_text() == genuine
    assert (root / ".terraform.lock.hcl").read_text() == lock_before
    assert tofu_solve(root, "check").code == 0


def _git(repo: Path, *args):
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x.invalid", "HOME": str(repo), "PATH": "/usr/bin:/bin"}
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def _head(repo: Path, rev: str = "HEAD") -> str:
    return subprocess.run(["git", "rev-parse", f"{rev}^{{commit}}"], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_moved_git_tag_is_reported(tmp_path, tofu_solve, own_cache, monkeypatch):
    """Issue #25: the lock pins the commit in ``package``; issue #67 §5: that package must be
    what the tag names, so a machine that installs it lists the tag beside the fetch, and a
    moved tag (or a lock edited to another commit) is "Moved git tag" naming both commits,
    exit 1, nothing changed; resolving the tag again (``-upgrade``) meets the moved tag too;
    ``-accept-checksum=m`` accepts the new commit after hashing it."""
    url = make_repo(tmp_path / "mod", [("v1.0.0", {"main.tf": "# one\n"}), ("v1.1.0", {"main.tf": "# two\n"})])
    genuine = _head(tmp_path / "mod", "v1.0.0")
    root = write_root(tmp_path / "root", f'''
        module "m" {{
          source  = "git::{url}"
          version = "~> 1.0.0"
        }}
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"m": "v1.0.0"}
    lock = parse_lock_text(r.lock)[0].modules["m"]
    assert lock.package == f"git::{url}?ref={genuine}" and not lock.floating
    assert not any(h.startswith("git:") for h in lock.hashes)  # the commit is the package, not a hash
    assert f'  ]\n  package = "git::{url}?ref={genuine}"\n}}' in r.lock  # after the hashes
    lock_before = r.lock
    # somebody re-points v1.0.0 at a new commit
    (tmp_path / "mod" / "main.tf").write_text("# tampered release\n")
    _git(tmp_path / "mod", "commit", "-qam", "retag")
    _git(tmp_path / "mod", "tag", "-f", "v1.0.0")
    moved = _head(tmp_path / "mod", "v1.0.0")
    # a machine with an empty cache fetches the locked commit and lists the tag: they differ
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(tmp_path / "other-cache"))
    r = tofu_solve(root, "init")
    assert r.code == 1 and "Error: Moved git tag" in r.err, r.err
    said = " ".join(r.err.split())
    assert f"at commit {genuine}, but the remote points that tag at {moved}" in said
    assert "tofu-solve init -accept-checksum=CALL" in said
    assert (root / ".terraform/modules/m/main.tf").read_text() == "# one\n"
    assert (root / ".terraform.lock.hcl").read_text() == lock_before
    # resolving the tag again meets the moved tag: init -upgrade resolves it
    r = tofu_solve(root, "init", "-upgrade")
    assert r.code == 1
    assert "Error: Module package verification failed" in r.err
    assert f"Expected: git::{url}?ref={genuine}" in r.err and f"Got:      git::{url}?ref={moved}" in r.err
    assert "tofu-solve init -accept-checksum=m" in r.err
    assert (root / ".terraform.lock.hcl").read_text() == lock_before
    assert (root / ".terraform/modules/m/main.tf").read_text() == "# one\n"
    # -upgrade=m refuses it exactly as -upgrade does (issue #67 §5: never "package changed, hashes recorded")
    r = tofu_solve(root, "init", "-upgrade=m")
    assert r.code == 1 and "Error: Module package verification failed" in r.err, r.out + r.err
    assert f"Got:      git::{url}?ref={moved}" in r.err
    assert (root / ".terraform.lock.hcl").read_text() == lock_before
    # -accept-checksum=m accepts the new commit at the same tag, re-hashed (issue #60 §1)
    r = tofu_solve(root, "init", "-accept-checksum=m")
    assert r.code == 0, r.err
    lock = parse_lock_text(r.lock)[0].modules["m"]
    assert lock.package == f"git::{url}?ref={moved}" and lock.version == "v1.0.0"
    assert f"git::{url}?ref={genuine}) -> " in " ".join(r.out.split())
    assert (root / ".terraform/modules/m/main.tf").read_text() == "# tampered release\n"


def test_deleted_git_tag(tmp_path, tofu_solve, own_cache, monkeypatch):
    url = make_repo(tmp_path / "mod", [("v1.0.0", {"main.tf": "# one\n"}), ("v1.1.0", {"main.tf": "# two\n"})])
    root = write_root(tmp_path / "root", f'''
        module "m" {{
          source  = "git::{url}"
          version = "1.1.0"
        }}
    ''')
    assert tofu_solve(root, "init").code == 0
    _git(tmp_path / "mod", "tag", "-d", "v1.1.0")
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(tmp_path / "other-cache"))
    r = tofu_solve(root, "init")
    # a fresh machine installs the locked commit from the lock's package: the tag is not asked for
    assert r.code == 0, r.err
    assert (root / ".terraform/modules/m/main.tf").read_text() == "# two\n"
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(own_cache))
    r = tofu_solve(root, "init", "-upgrade")
    assert r.code == 1  # "1.1.0" no longer exists anywhere
    assert "Error: Unresolvable module version constraint" in r.err  # the listing has no 1.1.0 any more


def _subprocess_env(running, cache: Path) -> dict:
    env = dict(os.environ)
    env.update(running.env(cache))
    env["PYTHONPATH"] = str(REPO)
    return env


def _vpc_eks(dir: Path) -> Path:
    return write_root(dir, VPC6_EKS20)


def test_killed_init_leaves_no_partial_lock_or_cache(tmp_path, running):
    root = _vpc_eks(tmp_path / "root")
    cache = tmp_path / "cache"
    env = _subprocess_env(running, cache)
    proc = subprocess.Popen([sys.executable, "-m", "tofu_solve", "init", f"-chdir={root}"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list((cache / "packages").glob("*/*")):
        time.sleep(0.01)
    # killed in the middle of the run, not after it: a package is cached and the run goes on
    assert list((cache / "packages").glob("*/*")), "no package reached the cache within 60 s"
    assert proc.poll() is None, "the init ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    lock = root / ".terraform.lock.hcl"
    assert not lock.exists() or parse_lock_text(lock.read_text())[1] == []
    # every visible cache entry is complete: the next run verifies and succeeds
    r = subprocess.run([sys.executable, "-m", "tofu_solve", "init", f"-chdir={root}"], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert lock_versions(lock.read_text()) == {"eks": "20.37.0", "eks.kms": "2.1.0", "vpc": "6.6.0"}


def test_two_concurrent_inits_share_one_cache(tmp_path, running):
    cache = tmp_path / "cache"
    env = _subprocess_env(running, cache)
    roots = [_vpc_eks(tmp_path / f"root{i}") for i in range(2)]
    procs = [subprocess.Popen([sys.executable, "-m", "tofu_solve", "init", f"-chdir={r}"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in roots]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    locks = [(r / ".terraform.lock.hcl").read_text() for r in roots]
    assert locks[0] == locks[1]
    assert not list((cache / "packages").glob("*/.*")), "no half-written entry left visible"


class _ArchiveHandler(http.server.BaseHTTPRequestHandler):
    files: ClassVar[dict] = {}
    hits: ClassVar[dict] = {}

    def log_message(self, *a):
        pass

    def do_GET(self):
        name = self.path.split("?", 1)[0].lstrip("/")
        body = self.files.get(name)
        n = self.hits[name] = self.hits.get(name, 0) + 1
        if body is None:
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if name.startswith("flaky") and n == 1:
            self.wfile.write(body[: len(body) // 2])  # truncated first answer
            self.close_connection = True
            return
        self.wfile.write(body)


@pytest.fixture
def archive_server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _ArchiveHandler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def _zip(entries: dict[str, str], links: dict[str, str] | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n, c in entries.items():
            zf.writestr(n, c)
        for n, target in (links or {}).items():
            info = zipfile.ZipInfo(n)
            info.external_attr = (0o120777 << 16)
            zf.writestr(info, target)
    return buf.getvalue()


@pytest.mark.parametrize("evil", [{"../../escape.tf": "x"}, {"/abs.tf": "x"}], ids=["dotdot", "absolute"])
def test_zip_slip_archive_is_refused(tmp_path, tofu_solve, own_cache, archive_server, evil):
    _ArchiveHandler.files["evil.zip"] = _zip({"main.tf": "# ok\n", **evil})
    root = write_root(tmp_path / "root", f'''
        module "m" {{
          source = "http://127.0.0.1:{archive_server.server_address[1]}/evil.zip"
        }}
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 1
    assert "Error: Unsafe module package" in r.err
    assert not (tmp_path / "escape.tf").exists() and not Path("/abs.tf").exists()


def test_symlink_out_of_archive_is_refused(tmp_path, tofu_solve, own_cache, archive_server):
    _ArchiveHandler.files["link.zip"] = _zip({"main.tf": "# ok\n"}, {"passwd": "../../../etc/passwd"})
    root = write_root(tmp_path / "root", f'''
        module "m" {{
          source = "http://127.0.0.1:{archive_server.server_address[1]}/link.zip"
        }}
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 1 and "points outside the package" in r.err


def test_truncated_download_is_retried_once(tmp_path, tofu_solve, own_cache, archive_server):
    _ArchiveHandler.files["flaky.zip"] = _zip({"main.tf": "# flaky but fine\n"})
    _ArchiveHandler.hits.pop("flaky.zip", None)
    root = write_root(tmp_path / "root", f'''
        module "m" {{
          source = "http://127.0.0.1:{archive_server.server_address[1]}/flaky.zip"
        }}
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert _ArchiveHandler.hits["flaky.zip"] == 2
    import hashlib
    zh = "zh:" + hashlib.sha256(_ArchiveHandler.files["flaky.zip"]).hexdigest()
    assert f'"{zh}",' in r.lock  # the archive's own hash is recorded beside h1
    assert (root / ".terraform/modules/m/main.tf").read_text() == "# flaky but fine\n"
    # no immutable form (no checksum= in the address): floating, pinned by its hashes only
    assert "  ]\n  floating = true\n}" in r.lock and "package" not in r.lock


def test_an_archive_with_its_checksum_is_its_own_package(tmp_path, tofu_solve, own_cache, archive_server):
    """Issue #25: an archive URL that carries ``checksum=`` is immutable (go-getter checks
    the bytes on every download), so it is the lock's package."""
    import hashlib
    _ArchiveHandler.files["sum.zip"] = _zip({"main.tf": "# summed\n"})
    url = (f"http://127.0.0.1:{archive_server.server_address[1]}/sum.zip?checksum=sha256:"
           f"{hashlib.sha256(_ArchiveHandler.files['sum.zip']).hexdigest()}")
    root = write_root(tmp_path / "root", f'module "m" {{\n  source = "{url}"\n}}\n')
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert parse_lock_text(r.lock)[0].modules["m"].package == url


def test_a_fresh_machine_installs_registry_modules_from_the_locked_package(tmp_path, tofu_solve, own_cache,
                                                                         monkeypatch):
    """Issue #25: a registry version's lock entry records the commit its download location
    resolved to; a machine with an empty cache installs from there: no download-location
    request, no tag listing; the same files, the same lock. Issue #34: the registry's version
    listing is read beside the fetch, to refuse a locked version the registry no longer
    offers (``test_a_withdrawn_registry_version_is_an_error``)."""
    root = _vpc_eks(tmp_path / "root")
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    locks = parse_lock_text(r.lock)[0].modules
    assert locks and all(re.fullmatch(r"git::\S+\?ref=[0-9a-f]{40}", m.package) for m in locks.values()), locks
    lock_before = r.lock
    installed = _files(root / ".terraform/modules")
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(tmp_path / "fresh-cache"))
    r = tofu_solve(root, "init", "-json")
    assert r.code == 0, r.err
    assert {m["path"]: m["package"] for m in r.json()["modules"]} == {p: m.package for p, m in locks.items()}
    ops = r.json()["network_operations"]
    assert not {"module_download", "git_ls_remote"} & set(ops), ops
    assert ops.get("module_versions", 0) == 3  # vpc, eks and eks.kms: one listing each, beside the fetches
    assert ops.get("git_fetch", 0) >= 1
    assert (root / ".terraform.lock.hcl").read_text() == lock_before
    assert _files(root / ".terraform/modules") == installed


def test_a_withdrawn_registry_version_is_an_error(tmp_path, tofu_solve, own_cache, monkeypatch):
    """Issue #34: a locked registry version the registry no longer lists (here the lock
    edited by hand to a version never published, its package pin unchanged) is an error in
    OpenTofu's words for a provider ("the previously-selected version %s is no longer
    available", ``internal/providercache/installer.go``), never installed under a false
    name nor silently re-picked; ``-upgrade=NAME`` chooses afresh."""
    root = _kms_root(tmp_path / "root")
    assert tofu_solve(root, "init").code == 0
    lock = root / ".terraform.lock.hcl"
    locked = lock_versions(lock.read_text())["kms"]
    lock.write_text(lock.read_text().replace(f'version     = "{locked}"', 'version     = "3.99.9"', 1))
    before = _files(root)
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(tmp_path / "fresh-cache"))
    r = tofu_solve(root, "init")
    assert r.code == 1 and "Error: Locked version no longer available" in r.err, r.err
    assert 'The lock file holds module "kms" at 3.99.9' in r.err and "tofu-solve init -upgrade=kms" in r.err
    # issue #60 §4: cited where the edit was made, the lock's block; the call's version line beside it
    line = next(n for n, x in enumerate(lock.read_text().splitlines(), 1) if x.startswith('module "kms"'))
    assert f"on .terraform.lock.hcl line {line}" in r.err and "(The call is at main.tf:3.)" in r.err
    said = " ".join(r.err.split())  # issue #62 §3: deleted from the index, and the nearest listed version as the fix
    assert "withdrawn or deleted from the registry's index" in said
    assert f'The nearest listed version the constraint admits is {locked}: pin version = "{locked}" at main.tf:3' in said
    assert _files(root) == before
    r = tofu_solve(root, "init", "-upgrade=kms")
    assert r.code == 0 and lock_versions(r.lock)["kms"] == locked


def test_offline_after_a_warm_init(tmp_path, tofu_solve, own_cache, monkeypatch):
    root = _vpc_eks(tmp_path / "root")
    assert tofu_solve(root, "init").code == 0
    # no registry, no git daemon reachable: offline must not need them
    cfg = tmp_path / "down.tfrc"
    cfg.write_text('host "registry.opentofu.org" {\n  services = {\n    "modules.v1" = "http://127.0.0.1:9/",\n'
                   '    "providers.v1" = "http://127.0.0.1:9/"\n  }\n}\n')
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(cfg))
    r = tofu_solve(root, "init", "-offline", "-json")
    assert r.code == 0, r.err
    assert r.json()["network_operations"] == {}
    other = _kms_root(tmp_path / "other")
    r = tofu_solve(other, "init", "-offline")
    assert r.code == 1
    assert "Error: Not available offline" in r.err
    assert "-offline forbids contacting registry.opentofu.org" in r.err


def test_modules_json_matches_opentofu(tmp_path, tofu_solve, own_cache):
    # reference §7 example: a root with one local child
    root = write_root(tmp_path / "local", '''
        module "child" {
          source = "./child"
        }
    ''', {"child/main.tf": "# child\n"})
    assert tofu_solve(root, "init").code == 0
    text = (root / ".terraform/modules/modules.json").read_text()
    assert text == '{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"child","Source":"./child","Dir":"child"}]}'
    root = _kms_root(tmp_path / "reg")
    assert tofu_solve(root, "init").code == 0
    records = json.loads((root / ".terraform/modules/modules.json").read_text())["Modules"]
    kms = next(m for m in records if m["Key"] == "kms")
    assert list(kms) == ["Key", "Source", "Version", "Dir"]
    assert kms["Source"] == "registry.opentofu.org/terraform-aws-modules/kms/aws"  # with host
    assert kms["Version"] == lock_versions((root / ".terraform.lock.hcl").read_text())["kms"]
    assert kms["Dir"] == ".terraform/modules/kms"
    assert [m["Key"] for m in records] == sorted(m["Key"] for m in records)


def test_credentials_never_leak(tmp_path, tofu_solve, own_cache, world, running):
    secret = "s3cr3t-token-value"
    url = f"file://{world.repo_path('terraform-aws-modules/terraform-aws-kms')}"
    root = write_root(tmp_path / "root", f'''
        module "kms" {{
          source  = "git::{url.replace('file://', 'file://user:' + secret + '@')}"
          version = "~> 3.0"
        }}
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert f'source      = "git::{url}?ref=v' in r.lock  # user-info stripped, not masked
    texts = [r.out, r.err, r.lock, (root / ".terraform/tofu-solve.json").read_text()]
    # modules.json holds the source exactly as OpenTofu writes it (credentials included),
    # so that `tofu init` reuses the install; it is local state under .terraform/.
    assert secret in (root / ".terraform/modules/modules.json").read_text()
    for p in own_cache.rglob("*"):
        assert secret not in str(p)
        if p.is_file() and p.suffix == ".json":
            texts.append(p.read_text())
    assert all(secret not in t for t in texts), [t[max(0, t.find(secret) - 300):t.find(secret) + 50] for t in texts if secret in t]
    # and a failure message names the remote without its credentials
    (root / "main.tf").write_text((root / "main.tf").read_text().replace("terraform-aws-kms", "no-such-repo"))
    r = tofu_solve(root, "init")
    assert r.code == 1 and "no-such-repo" in r.err and secret not in r.err


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_moved_tag_changes_nothing_with_a_warm_cache_and_is_an_error_without(tmp_path, tofu_solve, own_cache,
                                                                              monkeypatch):
    """The lock pins the commit (its package), and that commit must be what the tag names
    (issue #67 §5): a tag re-pointed upstream changes nothing on a machine that has the
    locked commit (checked when it came; a warm re-init asks no network), and is "Moved git
    tag", exit 1, nothing changed, on one that must fetch it, under -lockfile=readonly too; a
    lock written before package pins likewise. -accept-checksum=m takes the new commit,
    reviewed."""
    url = make_repo(tmp_path / "mod", [("v1.0.0", {"main.tf": "# one\n"}), ("v1.1.0", {"main.tf": "# two\n"})])
    root = write_root(tmp_path / "root", f'module "m" {{\n  source  = "git::{url}"\n  version = "~> 1.0.0"\n}}\n')
    assert tofu_solve(root, "init").code == 0
    assert tofu_solve(root, "init").code == 0  # the re-init a teammate runs: selections from the lock
    before = _files(root)
    (tmp_path / "mod" / "main.tf").write_text("# tampered release\n")
    _git(tmp_path / "mod", "commit", "-qam", "retag")
    _git(tmp_path / "mod", "tag", "-f", "v1.0.0")
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert _files(root) == before
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(tmp_path / "cold-cache"))
    r = tofu_solve(root, "init", "-lockfile=readonly")
    assert r.code == 1 and "Error: Moved git tag" in r.err, r.err  # checked under -lockfile=readonly too
    assert _files(root) == before
    # a lock file written before package pins (the commit among the hashes) still holds: a
    # machine that must fetch resolves the tag, and refuses the moved one
    lock = root / ".terraform.lock.hcl"
    legacy = re.sub(r'(  hashes = \[\n)(.*?)  \]\n  package = "git::[^"]*\?ref=([0-9a-f]{40})"\n',
                    lambda m: f'{m[1]}    "git:{m[3]}",\n{m[2]}  ]\n', lock.read_text(), flags=re.S)
    assert "package" not in legacy and "git:" in legacy
    lock.write_text(legacy)
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(tmp_path / "cold-cache-2"))
    before = _files(root)
    r = tofu_solve(root, "init")
    assert r.code == 1 and "Error: Moved git tag" in r.err
    assert "tofu-solve init -accept-checksum=CALL" in " ".join(r.err.split()) and "init -upgrade" not in r.err
    assert _files(root) == before
    r = tofu_solve(root, "init", "-accept-checksum=m")  # reviewed: the moved tag's commit, at the same tag
    assert r.code == 0, r.err
    assert "checksum accepted at v1.0.0 (-accept-checksum=m)" in " ".join(r.out.split())


def test_a_new_call_to_a_locked_package_version_meets_its_moved_tag(tmp_path, tofu_solve, own_cache):
    """Issue #25: a call added beside one locked at v1.0.0 resolves the tag again; the tag
    moved since, so its commit is not the locked call's package: refused, naming both,
    nothing changed."""
    url = make_repo(tmp_path / "mod", [("v1.0.0", {"main.tf": "# one\n"})])
    call = 'module "{}" {{\n  source  = "git::' + url + '"\n  version = "1.0.0"\n}}\n'
    root = write_root(tmp_path / "root", call.format("m"))
    assert tofu_solve(root, "init").code == 0
    genuine = parse_lock_text((root / ".terraform.lock.hcl").read_text())[0].modules["m"].package
    (tmp_path / "mod" / "main.tf").write_text("# tampered release\n")
    _git(tmp_path / "mod", "commit", "-qam", "retag")
    _git(tmp_path / "mod", "tag", "-f", "v1.0.0")
    (root / "main.tf").write_text(call.format("m") + call.format("n"))
    before = _files(root)
    r = tofu_solve(root, "init")
    assert r.code == 1 and "Error: Module package verification failed" in r.err
    assert f"Expected: {genuine}" in r.err and 'Module "m"' in r.err
    assert _files(root) == before


def test_a_locked_package_found_at_another_location_is_the_same_package(tmp_path, tofu_solve, own_cache,
                                                                         monkeypatch):
    """Issue #25, #34: a registry version whose locked ``package`` cannot be fetched (its
    repository moved host) is fetched through the registry as without a lock. The package
    that gives has the same identity (the same commit) at another address: a package is its
    identity, not its address, so ``-lockfile=readonly`` installs it with a note and keeps
    the lock byte for byte, and the next writable init records the new location as a listed
    lock change. A different commit stays the error naming both
    (``test_package_that_differs_from_the_lock_is_refused``)."""
    root = _kms_root(tmp_path / "root")
    assert tofu_solve(root, "init").code == 0
    lock_path = root / ".terraform.lock.hcl"
    genuine = parse_lock_text(lock_path.read_text())[0].modules["kms"].package
    commit = genuine.rsplit("=", 1)[1]
    gone = f"git::file://{tmp_path}/moved-away/terraform-aws-kms.git?ref={commit}"
    lock_path.write_text(lock_path.read_text().replace(genuine, gone))
    moved_lock = lock_path.read_text()
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(tmp_path / "fresh-cache"))
    r = tofu_solve(root, "init", "-lockfile=readonly")
    assert r.code == 0, r.err
    assert 'The package locked for module "kms" was found at another location' in r.out
    assert f"Locked: {gone}" in r.out and f"Found:  {genuine}" in r.out
    assert "-lockfile=readonly keeps the locked location" in r.out
    assert lock_path.read_text() == moved_lock
    assert (root / ".terraform" / "modules" / "kms").is_dir()
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert f'~ module "kms" {lock_versions(r.lock)["kms"]}: package moved to {genuine}' in r.out
    assert parse_lock_text(lock_path.read_text())[0].modules["kms"].package == genuine
    r = tofu_solve(root, "init", "-lockfile=readonly")
    assert r.code == 0 and "found at another location" not in r.out


def test_a_mirror_a_kill_left_without_an_object_is_rebuilt(tmp_path, tofu_solve, own_cache):
    """Issue #38: a cold init killed inside a git fetch left a mirror whose trees name a blob
    it does not hold; the next run died on every later init with "internal error ...
    invalid literal for int() with base 10: b'BAD'" (git ls-tree -l sizes a missing blob
    BAD). The mirror is now rebuilt from the remote and the run goes on."""
    import shutil
    import subprocess

    from tests.e2e.conftest import lock_versions, make_repo

    url = make_repo(tmp_path / "mod", [("v1.0.0", {"main.tf": "# one\n"}),
                                       ("v1.1.0", {"main.tf": "# two\n", "extra.tf": "locals {}\n"})])
    tf = f'module "m" {{\n  source  = "git::{url}"\n  version = "~> 1.0"\n}}\n'
    r = tofu_solve(write_root(tmp_path / "first", tf), "init", "-handover=false")
    assert r.code == 0 and lock_versions(r.lock) == {"m": "v1.1.0"}, r.err
    (mirror,) = (own_cache / "git").glob("*.git")
    oid = subprocess.run(["git", "--git-dir", str(mirror), "rev-parse", "v1.1.0:extra.tf"], capture_output=True,
                         text=True, check=True).stdout.strip()
    (mirror / "objects" / oid[:2] / oid[2:]).unlink()  # a fetch killed before it wrote this object
    for kept in ("metadata", "packages"):  # nothing read from the mirror is remembered elsewhere
        shutil.rmtree(own_cache / kept, ignore_errors=True)
    r = tofu_solve(write_root(tmp_path / "second", tf), "init", "-handover=false")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"m": "v1.1.0"}
    assert subprocess.run(["git", "--git-dir", str(mirror), "cat-file", "-e", oid]).returncode == 0  # healed


def test_an_exact_refs_lock_is_held_to_the_commit_the_tag_names(tmp_path, tofu_solve, own_cache, monkeypatch):
    """Issue #80 §4: a call with an exact ``?ref=v1.0.0`` (no ``version``) whose lock a pull
    request points at another commit of the same repository (its head, which the host
    serves): on a machine that must fetch it, "Moved git tag" naming both commits, under
    -lockfile=readonly too, nothing installed; the lock as locked installs."""
    url = make_repo(tmp_path / "mod", [("v1.0.0", {"main.tf": "# one\n"}), ("v1.1.0", {"main.tf": "# two\n"})])
    root = write_root(tmp_path / "root", f'module "m" {{\n  source = "git::{url}?ref=v1.0.0"\n}}\n')
    assert tofu_solve(root, "init", "-handover=false").code == 0
    lock = root / ".terraform.lock.hcl"
    locked = lock.read_text()
    tagged = re.search(r"\?ref=([0-9a-f]{40})", locked)[1]
    head = subprocess.run(["git", "-C", str(tmp_path / "mod"), "rev-parse", "v1.1.0^{commit}"], capture_output=True,
                          text=True, check=True).stdout.strip()
    assert head != tagged
    lock.write_text(locked.replace(tagged, head))  # the pull request's edit
    shutil.rmtree(root / ".terraform")
    for args in (("-lockfile=readonly",), ()):
        monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(tmp_path / f"cold{len(args)}"))
        r = tofu_solve(root, "init", "-handover=false", *args)
        assert r.code == 1 and "Error: Moved git tag" in r.err, r.err
        assert tagged in r.err and head in r.err
        assert not (root / ".terraform/modules/m").exists()
    lock.write_text(locked)
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(tmp_path / "cold-ok"))
    assert tofu_solve(root, "init", "-handover=false", "-lockfile=readonly").code == 0
