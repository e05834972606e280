"""The package store's trust rules, each at the place it lives (issue #71 §1), in process
against a real OCI registry (Debian's ``docker-registry`` on 127.0.0.1): nothing the store
holds is installed, reported verified or left as complete unless it verifies against what
the lock records; a blob is checked against its digest before anything else reads it; the
store's client retries a transient failure. A few seconds, so that switching any of these
off fails the fast suite, not only the end-to-end store tests.
"""

from __future__ import annotations

import hashlib
import io
import json
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
import requests

from tests.e2e.oci_fixtures import run_registry
from tofu_solve.errors import NetworkError
from tofu_solve.lockfile.hashes import hash_dir
from tofu_solve.remote.limits import Limits
from tofu_solve.remote.oci import IMAGE_INDEX, IMAGE_MANIFEST, OciClient
from tofu_solve.remote.package_store.address import STORE_TIMEOUT, parse_store_address
from tofu_solve.remote.package_store.artifacts import (
    EMPTY_JSON,
    PROVIDER_ARTIFACT,
    PROVIDER_PACKAGE,
    PROVIDER_TARGET,
    image_manifest,
    package_zip,
)
from tofu_solve.remote.package_store.keys import ModuleKey, ProviderKey
from tofu_solve.remote.package_store.ledger import StoreOutcome
from tofu_solve.remote.package_store.store import PackageStore

COMMIT = "a" * 40
KEY = ModuleKey("git::https://example.com/net.git", COMMIT)
PROVIDER = ProviderKey("registry.opentofu.org", "hashicorp", "null", "3.2.2")
PLATFORM = "linux_amd64"


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    with run_registry(tmp_path_factory.mktemp("oci")) as reg:
        yield reg


def _store(registry, prefix: str) -> PackageStore:
    client = OciClient({}, timeout=STORE_TIMEOUT, limits=Limits(), store_retries=True)
    return PackageStore(parse_store_address(f"oci://{registry.host}/{prefix}", "-package-store"), client,
                        limits=Limits(), grace=30)


def _module(tmp_path: Path) -> tuple[Path, str]:
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "main.tf").write_text('variable "cidr" {}\n')
    return root, hash_dir(root)


def _provider_zip(tmp_path: Path, text: str = "binary") -> tuple[Path, str, str]:
    """A provider zip (a file the store removes when pushed), its ``zh:`` and its ``h1:``."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("terraform-provider-null_v3.2.2", text)
    data = buf.getvalue()
    unpacked = tmp_path / f"unpacked-{text}"
    unpacked.mkdir()
    (unpacked / "terraform-provider-null_v3.2.2").write_text(text)
    path = tmp_path / f"{text}.zip"
    path.write_bytes(data)
    return path, "zh:" + hashlib.sha256(data).hexdigest(), hash_dir(unpacked)


def _pushed_module(registry, tmp_path: Path, prefix: str) -> tuple[Path, str]:
    root, h1 = _module(tmp_path)
    store = _store(registry, prefix)
    store.pusher.push_module(KEY, root, h1, "1.0.0")
    assert store.pusher.finish().pushed
    return root, h1


def _pushed_provider(registry, tmp_path: Path, prefix: str) -> tuple[str, str]:
    path, zh, h1 = _provider_zip(tmp_path)
    store = _store(registry, prefix)
    store.pusher.push_provider(PROVIDER, PLATFORM, path)
    assert store.pusher.finish().pushed
    return zh, h1


def test_a_module_package_is_installed_only_when_it_hashes_to_the_locks_h1(registry, tmp_path):
    _, h1 = _pushed_module(registry, tmp_path, "modules-h1")
    store = _store(registry, "modules-h1")
    store.ledger.expect_module(KEY, ("h1:" + "A" * 43 + "=",), "1.0.0", "net")
    dest = tmp_path / "dest"
    dest.mkdir()
    assert not store.reader.read_module(KEY, dest)
    assert not any(dest.iterdir())  # nothing of it left behind
    assert "hash to " + h1 in store.ledger.why_not(store.ledger.label(KEY))
    trusted = _store(registry, "modules-h1")
    trusted.ledger.expect_module(KEY, (h1,), "1.0.0", "net")
    assert trusted.reader.read_module(KEY, dest) and (dest / "main.tf").is_file()


def test_a_module_blob_is_checked_against_its_digest_before_it_is_unpacked(registry, tmp_path):
    """A blob whose bytes are not its digest's is named corrupt (the push repairs it under
    new bytes), not merely a package that fails its ``h1:``."""
    root, h1 = _pushed_module(registry, tmp_path, "modules-corrupt")
    digest = "sha256:" + hashlib.sha256(package_zip(root)).hexdigest()
    blob = registry.blob_path(digest)
    data = bytearray(blob.read_bytes())
    data[-30] ^= 0xFF  # same size, other bytes: only the digest tells
    blob.write_bytes(bytes(data))
    store = _store(registry, "modules-corrupt")
    store.ledger.expect_module(KEY, (h1,), "1.0.0", "net")
    dest = tmp_path / "dest"
    dest.mkdir()
    assert not store.reader.read_module(KEY, dest)
    assert "Corrupt OCI blob" in store.ledger.why_not(store.ledger.label(KEY))
    assert store.ledger.is_corrupt(KEY.repository(store.address), digest)


def test_a_provider_zip_the_lock_does_not_record_is_never_downloaded(registry, tmp_path):
    _pushed_provider(registry, tmp_path, "providers-zh")
    store = _store(registry, "providers-zh")
    store.ledger.expect_provider(PROVIDER, ("zh:" + "0" * 64,))
    assert store.reader.read_provider(PROVIDER, PLATFORM) is None
    assert "which the lock does not record" in store.ledger.why_not(f"provider registry.opentofu.org/hashicorp/"
                                                                    f"null 3.2.2 ({PLATFORM})")
    assert store.client.counter.counts["oci_blob"] == 0  # refused from its descriptor, before a byte


def test_a_provider_zip_the_lock_records_is_read(registry, tmp_path):
    zh, _ = _pushed_provider(registry, tmp_path, "providers-ok")
    store = _store(registry, "providers-ok")
    store.ledger.expect_provider(PROVIDER, (zh,))
    got = store.reader.read_provider(PROVIDER, PLATFORM)
    assert got is not None and got[1] == zh


def test_store_verify_checks_an_h1_only_lock_against_the_unpacked_package(registry, tmp_path):
    """A lock with only ``h1:`` hashes cannot judge the zip by its digest: ``store verify``
    unpacks it and compares (what ``init`` does), so a package that unpacks to another
    ``h1:`` is rejected, and the right one verified."""
    _, h1 = _pushed_provider(registry, tmp_path, "providers-h1")
    for hashes, outcome in ((("h1:" + "B" * 43 + "=",), StoreOutcome.REJECTED), ((h1,), StoreOutcome.VERIFIED)):
        store = _store(registry, "providers-h1")
        store.ledger.expect_provider(PROVIDER, hashes)
        scratch = tmp_path / f"scratch-{outcome}"
        scratch.mkdir()
        found = store.verifier.check_provider(PROVIDER, PLATFORM, scratch)
        assert found.outcome is outcome, found


def test_store_push_calls_complete_only_a_zip_the_lock_records(registry, tmp_path):
    zh, _ = _pushed_provider(registry, tmp_path, "providers-complete")
    for hashes, outcome in ((("zh:" + "1" * 64,), StoreOutcome.REJECTED), ((zh,), StoreOutcome.COMPLETE)):
        store = _store(registry, "providers-complete")
        store.ledger.expect_provider(PROVIDER, hashes)
        found = store.verifier.provider_complete(PROVIDER, PLATFORM)
        assert found.outcome is outcome, found


class _FlakyRegistry(BaseHTTPRequestHandler):
    """A registry that answers its first request of each path 503, then as a registry does."""

    seen: ClassVar[set[str]] = set()
    lock: ClassVar[threading.Lock] = threading.Lock()

    def do_GET(self):
        with self.lock:
            first = self.path not in self.seen
            self.seen.add(self.path)
        if first:
            self.send_response(503)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = b'{"name": "store/providers/x", "tags": ["1.0.0"]}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_the_stores_client_tries_a_transient_failure_again():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FlakyRegistry)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        host = f"127.0.0.1:{server.server_address[1]}"
        client = OciClient({}, timeout=STORE_TIMEOUT, limits=Limits(), store_retries=True)
        assert client.tags(host, "store/providers/x") == ["1.0.0"]
        _FlakyRegistry.seen.clear()
        once = OciClient({}, timeout=STORE_TIMEOUT, limits=Limits())  # an origin's client: its caller retries
        with pytest.raises(NetworkError):
            once.tags(host, "store/providers/x")
    finally:
        server.shutdown()


def _put_sha512_blob(registry, repository: str, data: bytes) -> str:
    digest = "sha512:" + hashlib.sha512(data).hexdigest()
    s = requests.Session()
    location = s.post(f"http://{registry.host}/v2/{repository}/blobs/uploads/").headers["Location"]
    location = location if location.startswith("http") else f"http://{registry.host}{location}"
    s.put(f"{location}{'&' if '?' in location else '?'}digest={digest}", data=data,
          headers={"Content-Type": "application/octet-stream"}).raise_for_status()
    return digest


def test_a_provider_zip_named_by_a_sha512_digest_is_checked_against_the_lock_from_its_bytes(registry, tmp_path):
    """An index may name the zip by another algorithm's digest (the OCI spec allows
    ``sha512:``): the client checks the bytes against it, and the zip's ``zh:`` (its
    SHA-256) is then known only from the bytes, and must be one the lock records."""
    path, zh, _ = _provider_zip(tmp_path, "sha512")
    data = path.read_bytes()
    store = _store(registry, "providers-sha512")
    repository = PROVIDER.repository(store.address)
    layer = {"digest": _put_sha512_blob(registry, repository, data), "size": len(data)}
    config = {"digest": registry.put_blob(repository, EMPTY_JSON), "size": len(EMPTY_JSON)}
    body = json.loads(image_manifest(PROVIDER_TARGET, layer, config, {}, PROVIDER_PACKAGE))
    target = registry.put_manifest(repository, "target", body)
    registry.put_manifest(repository, PROVIDER.tag, {
        "schemaVersion": 2, "mediaType": IMAGE_INDEX, "artifactType": PROVIDER_ARTIFACT,
        "manifests": [{"mediaType": IMAGE_MANIFEST, "artifactType": PROVIDER_TARGET, "digest": target,
                       "size": len(json.dumps(body).encode()), "platform": {"os": "linux", "architecture": "amd64"}}]},
        IMAGE_INDEX)
    store.ledger.expect_provider(PROVIDER, ("zh:" + "2" * 64,))
    assert store.reader.read_provider(PROVIDER, PLATFORM) is None
    assert f"its zip is {zh}, which the lock does not record" in store.ledger.why_not(
        f"provider registry.opentofu.org/hashicorp/null 3.2.2 ({PLATFORM})")
    trusted = _store(registry, "providers-sha512")
    trusted.ledger.expect_provider(PROVIDER, (zh,))
    got = trusted.reader.read_provider(PROVIDER, PLATFORM)
    assert got is not None and got == (data, zh)


def test_store_verify_rejects_a_provider_tag_re_pointed_to_another_package(registry, tmp_path):
    """Issue #80 §5: the tag of the locked version re-pointed to another version's index:
    ``store verify`` reports the package the tag names as rejected (tampering), not as one
    the store does not hold."""
    from tofu_solve.addrs.provider import parse_provider_source
    from tofu_solve.command.store import _verify_provider
    from tofu_solve.lockfile import ProviderLock

    good, zh, _ = _provider_zip(tmp_path, "good")
    other = ProviderKey("registry.opentofu.org", "hashicorp", "null", "3.2.3")
    evil, _, _ = _provider_zip(tmp_path, "evil")
    store = _store(registry, "providers-repointed")
    store.pusher.push_provider(PROVIDER, PLATFORM, good)
    store.pusher.push_provider(other, PLATFORM, evil)
    assert len(store.pusher.finish().pushed) == 2
    repository = PROVIDER.repository(store.ledger.address)
    base = f"http://{registry.host}/v2/{repository}/manifests/"
    index = requests.get(base + other.tag, headers={"Accept": IMAGE_INDEX}, timeout=10)
    assert requests.put(base + PROVIDER.tag, data=index.content, timeout=10,
                        headers={"Content-Type": index.headers["Content-Type"]}).status_code == 201
    verifying = _store(registry, "providers-repointed")
    lock = ProviderLock(parse_provider_source("hashicorp/null"), "3.2.2", "", (zh,))
    verifying.ledger.expect_provider(PROVIDER, lock.hashes)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    outcomes = _verify_provider(verifying, PROVIDER, lock, (), scratch)
    rejected = [o for o in outcomes if o.outcome is StoreOutcome.REJECTED]
    assert rejected and "which the lock does not record" in rejected[0].reason, outcomes
