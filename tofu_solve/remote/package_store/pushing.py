"""Pushing to the store (issue #49; split by job in issue #71 §2): what a job verified from
an origin is pushed in the background for the next jobs (at most :data:`PUSH_WORKERS` at
once): blobs first (content-addressed), then the manifest under its tag, only when the tag is
absent or holds what failed verification. :meth:`StorePusher.finish` waits at most a grace
period and names what was not pushed.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from ..._threads import NETWORK, start_thread
from ...errors import NetworkError, TofuSolveError
from ..oci import IMAGE_INDEX, IMAGE_MANIFEST, OciClient, OciError, PushRefused, StoredBlobCorrupt
from .address import PUSH_GRACE
from .artifacts import (
    ANNOTATION,
    EMPTY_JSON,
    MODULE_ARTIFACT,
    PROVIDER_ARTIFACT,
    PROVIDER_PACKAGE,
    PROVIDER_TARGET,
    image_manifest,
    package_zip,
)
from .keys import ModuleKey, ProviderKey, provider_label
from .ledger import REPAIR_ADVICE, StoreLedger, StoreReport

PUSH_WORKERS = 4
RETRY_PAUSE = 0.5  # seconds before a push the registry answered 400 is tried again, once


class StorePusher:
    """Pushes verified packages to the store in the background over the run's one client,
    recording outcomes in the ledger (thread-safe).

    Args:
        ledger: the run's record of the store.
        client: the store's :class:`OciClient`.
        grace: seconds :meth:`finish` waits for pushes still running.
    """

    def __init__(self, ledger: StoreLedger, client: OciClient, grace: float = PUSH_GRACE):
        self.ledger = ledger
        self.client = client
        self.grace = grace
        self._lock = threading.Lock()
        self._offered: dict[tuple[ProviderKey, str], Path] = {}  # verified provider zips, pushed once locked
        self._pushing: dict[str, threading.Thread] = {}
        self._slots = threading.Semaphore(PUSH_WORKERS)
        self._index_locks: dict[tuple[str, str], threading.Lock] = {}

    def push_module(self, key: ModuleKey, root: Path, h1: str, version: str = "") -> None:
        """Push the verified package at ``root`` (hashing to ``h1``) in the background,
        unless it came from the store, is being pushed, or pushing is off. When the store's
        blob of the package's zip failed verification this run, the zip carries a comment
        that names the corrupt digest, so that its digest is new and the tag is repaired."""
        if self.ledger.came_from_store(key) or not self.ledger.available():
            return
        label = self.ledger.label(key)
        annotations = {ANNOTATION + "origin": key.origin, ANNOTATION + "identity": key.identity,
                       ANNOTATION + "h1": h1}
        if version:
            annotations[ANNOTATION + "version"] = version
        repository = key.repository(self.ledger.address)

        def push() -> bool:
            data = package_zip(root)
            digest = "sha256:" + hashlib.sha256(data).hexdigest()
            if self.ledger.is_corrupt(repository, digest):  # the registry's copy is not these bytes:
                # other bytes, the same files
                data = package_zip(root, f"tofu-solve: the registry's {digest} was corrupt".encode())
            try:
                layer, uploaded = self.client.push_blob(self.ledger.address.host, repository, data)
            except StoredBlobCorrupt:
                data = package_zip(root, f"tofu-solve: the registry's {digest} was corrupt".encode())
                layer, uploaded = self.client.push_blob(self.ledger.address.host, repository, data)
            config, _ = self.client.push_blob(self.ledger.address.host, repository, EMPTY_JSON)
            body = image_manifest(MODULE_ARTIFACT, layer, config, annotations)
            return self._put_unless_present(repository, key.tag, body, IMAGE_MANIFEST) or uploaded
        self._background(label, push)

    def _put_unless_present(self, repository: str, tag: str, body: bytes, media: str) -> bool:
        """Write the manifest under ``tag`` unless the tag already names a manifest that did
        not fail verification this run (first writer wins: a tag is never turned to other
        contents, but an artifact that failed verification is replaced); True when written."""
        poisoned = self.ledger.poisoned((repository, tag))
        present = self.client.has_manifest(self.ledger.address.host, repository, tag, media)
        if present is not None and (not poisoned or present == "sha256:" + hashlib.sha256(body).hexdigest()):
            return False
        self.client.push_manifest(self.ledger.address.host, repository, tag, body, media)
        return True

    def _background(self, label: str, job: Callable[[], bool]) -> None:
        """Run the push ``job`` (True when it uploaded or wrote anything) in the background,
        once per package label; its outcome goes to the report."""
        if self.ledger.read_only():
            return
        with self._lock:
            if label in self._pushing:
                return

        def run() -> None:
            with self._slots:
                if not self.ledger.available() or self.ledger.read_only():
                    return
                try:
                    try:
                        wrote = job()
                    except PushRefused as e:
                        if e.status != 400:
                            raise
                        # a blob another job was pushing at the same moment was not yet linked
                        # (distribution: MANIFEST_BLOB_UNKNOWN), or the index changed under us:
                        # the whole push once more, every step of it idempotent
                        time.sleep(RETRY_PAUSE)
                        wrote = job()
                except StoredBlobCorrupt as e:
                    self.ledger.note("unrepaired", (label, f"{e.detail} {REPAIR_ADVICE}"))
                    return
                except PushRefused as e:
                    if e.status in (401, 403):
                        self.ledger.turn_read_only(f"the credentials found may not write ({e.detail})")
                    else:
                        self.ledger.note("not_pushed", f"{label} ({e.detail})")
                    return
                except NetworkError as e:
                    self.ledger.went_down(e)
                    return
                except (OSError, TofuSolveError) as e:
                    self.ledger.note("not_pushed", f"{label} ({e.summary if isinstance(e, TofuSolveError) else e})")
                    return
                if wrote:
                    self.ledger.note("pushed", label)
        with self._lock:
            self._pushing[label] = start_thread(run, "tofu-solve-store-push", needs=NETWORK)

    def finish(self, grace: float | None = None) -> StoreReport:
        """Wait at most ``grace`` seconds (default the store's) for the pushes still
        running; those unfinished are named in ``not_pushed`` (their threads are daemons:
        a push cut off by the process's exit leaves blobs without a tag, which nobody reads).
        Provider packages offered but never published (versions read while solving that no
        lock names) are discarded."""
        self.discard()
        deadline = time.monotonic() + (self.grace if grace is None else grace)
        with self._lock:
            threads = list(self._pushing.items())
        for label, thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                self.ledger.note("not_pushed", f"{label} (still pushing after {self.grace:g} s)")
        return self.ledger.report

    def _index_lock(self, repository: str, tag: str) -> threading.Lock:
        with self._lock:
            return self._index_locks.setdefault((repository, tag), threading.Lock())

    def _add_to_index(self, repository: str, tag: str, digest: str, size: int, os_name: str, arch: str) -> bool:
        """Write the version's index with the platform manifest ``digest`` in it, keeping
        the other platforms it lists (a new index when there is none or it is not an
        OpenTofu provider index); True when written, False when it had this package."""
        host = self.ledger.address.host
        entries: list[dict] = []
        try:
            old, _, _ = self.client.manifest(host, repository, tag, IMAGE_INDEX)
            doc = json.loads(old)
            if doc.get("artifactType") == PROVIDER_ARTIFACT:
                entries = [m for m in doc.get("manifests") or [] if isinstance(m, dict)]
            else:
                entries = []  # not an OpenTofu provider index (copied without its artifactType): written anew
        except NetworkError as e:
            if e.summary != "OCI artifact not found":
                raise
        except (OciError, ValueError, AttributeError):
            entries = []  # not an index we can extend: replaced
        if any(m.get("digest") == digest for m in entries):
            return False  # the index has this package already
        kept = [m for m in entries if (m.get("platform") or {}) != {"os": os_name, "architecture": arch}
                and m.get("artifactType") == PROVIDER_TARGET]
        kept.append({"mediaType": IMAGE_MANIFEST, "artifactType": PROVIDER_TARGET, "digest": digest,
                     "size": size, "platform": {"os": os_name, "architecture": arch}})
        kept.sort(key=lambda m: (str((m.get("platform") or {}).get("os")),
                                 str((m.get("platform") or {}).get("architecture"))))
        index = {"schemaVersion": 2, "mediaType": IMAGE_INDEX, "artifactType": PROVIDER_ARTIFACT, "manifests": kept}
        self.client.push_manifest(host, repository, tag,
                                  json.dumps(index, separators=(",", ":"), sort_keys=True).encode(), IMAGE_INDEX)
        return True

    def offer_provider(self, key: ProviderKey, platform: str, zip_file: Path) -> None:
        """Hold the verified zip of ``platform`` (a file the store removes when done) until
        the run knows which versions its lock names: :meth:`publish_providers` pushes those,
        :meth:`finish` discards the rest (a version only read while solving is never pushed)."""
        if key.repository(self.ledger.address) is None or not self.ledger.available() or self.ledger.read_only():
            zip_file.unlink(missing_ok=True)
            return
        with self._lock:
            old = self._offered.pop((key, platform), None)
            self._offered[(key, platform)] = zip_file
        if old is not None and old != zip_file:
            old.unlink(missing_ok=True)

    def publish_providers(self, locked: Mapping[ProviderKey, tuple[str, ...]]) -> None:
        """Push, in the background, every offered zip whose version a lock names
        (``locked``: key -> the lock's hashes) and whose ``zh:`` it records (or, for an
        ``h1:``-only lock, which was verified by its ``h1:``)."""
        with self._lock:
            chosen = [(k, p, f) for (k, p), f in self._offered.items() if k in locked]
            for k, p, _ in chosen:
                del self._offered[(k, p)]
        for key, platform, zip_file in chosen:
            self.push_provider(key, platform, zip_file)

    def discard(self) -> None:
        """Remove the offered zips no lock named (the run ended, or failed)."""
        with self._lock:
            files, self._offered = list(self._offered.values()), {}
        for f in files:
            f.unlink(missing_ok=True)

    def push_provider(self, key: ProviderKey, platform: str, zip_file: Path) -> None:
        """Add the verified zip of ``platform`` (a file the store removes when done) to the
        version's index in the background (the index keeps the platforms it has; a platform
        another job adds at the same moment may be lost from the index, and is added again
        by the next job that needs it)."""
        repository = key.repository(self.ledger.address)
        if repository is None or not self.ledger.available() or self.ledger.read_only():
            zip_file.unlink(missing_ok=True)
            return
        label = provider_label(key, platform)
        os_name, _, arch = platform.partition("_")

        read: list[bytes] = []  # the zip, read once (a retried push reads it from here)

        def push() -> bool:
            host = self.ledger.address.host
            if not read:
                try:
                    read.append(zip_file.read_bytes())
                finally:
                    zip_file.unlink(missing_ok=True)
            zip_bytes = read[0]
            layer, uploaded = self.client.push_blob(host, repository, zip_bytes)
            if self.ledger.is_corrupt(repository, layer["digest"]) and not uploaded:
                # the registry's copy of this zh: is corrupt: only a deletion clears it
                raise StoredBlobCorrupt(repository, layer["digest"], "its bytes do not match its digest")
            config, _ = self.client.push_blob(host, repository, EMPTY_JSON)
            body = image_manifest(PROVIDER_TARGET, layer, config, {}, PROVIDER_PACKAGE)
            digest = "sha256:" + hashlib.sha256(body).hexdigest()
            wrote = self.client.has_manifest(host, repository, digest, IMAGE_MANIFEST) is None
            if wrote:
                self.client.push_manifest(host, repository, digest, body, IMAGE_MANIFEST)
            with self._index_lock(repository, key.tag):  # one read-modify-write at a time in this run
                indexed = self._add_to_index(repository, key.tag, digest, len(body), os_name, arch)
            return uploaded or wrote or indexed
        self._background(label, push)

