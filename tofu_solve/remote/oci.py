"""OCI module packages through oras, exactly as OpenTofu reads them (reference §4).

* A package is an **image manifest** (an index is refused: "found index manifest but need
  image manifest") of ``artifactType`` ``application/vnd.opentofu.modulepkg`` with exactly
  one ``archive/zip`` layer (none: "image manifest contains no layers of types supported as
  module packages by OpenTofu"); the manifest is at most 4 MiB and its sha256 must equal
  the digest it was fetched by.
* The blob is downloaded with oras and **its sha256 and size verified here** (oras does not),
  then extracted safely (:func:`tofu_solve.remote.archives.extract_archive`).
* Tags are listed through the distribution API (all pages).
* Transport: HTTPS, plain HTTP only for registries on loopback (127.0.0.0/8, localhost:
  Docker's rule) or named in ``TOFU_SOLVE_OCI_INSECURE`` (comma-separated hosts).
* Credentials, as OpenTofu's ambient discovery finds them: ``$XDG_RUNTIME_DIR/containers/
  auth.json``, ``${XDG_CONFIG_HOME:-~/.config}/containers/auth.json``,
  ``$DOCKER_CONFIG/config.json`` (else ``~/.docker/config.json``), ``~/.dockercfg``; ``auths``
  entries (the most specific key wins), ``credHelpers`` and ``credsStore``
  (``docker-credential-<name> get``). Basic and bearer-token registries both work. Secrets
  never reach messages.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from urllib.parse import urljoin

from .._lazy import load
from ..addrs.redact import is_loopback_host
from ..errors import DownloadTooLarge, IntegrityError, NetworkError, OfflineError, TofuSolveError
from .limits import (
    CREDENTIAL_HELPER_TIMEOUT,
    MAX_TAG_PAGES,
    OCI_MANIFEST_BYTES,
    REQUEST_TIMEOUT,
    Limits,
    describe_failure,
    read_bounded,
    read_document,
)
from .ops import OpCounter, lazy_import

requests = lazy_import("requests")  # loaded on first use: no network, no import
log = logging.getLogger(__name__)

STORE_ATTEMPTS = 3
"""Attempts a ``store_retries`` client (the package store's) makes of one request that
met a transient fault (a refused or reset connection, a timeout, a 429 or 5xx answer)
before the fault is the store's answer; urllib3's ``Retry`` waits 0 s, then 0.5 s between
them. A read timeout is tried twice at most, so one silent request costs at most
2 x the client's timeout."""
RETRY_BACKOFF = 0.25  # urllib3's backoff_factor: the n-th retry waits 0.25 * 2**(n-1) s (the first: 0)
TRANSIENT_STATUS = (429, 500, 502, 503, 504)

ARTIFACT_TYPE = "application/vnd.opentofu.modulepkg"
IMAGE_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
IMAGE_INDEX = "application/vnd.oci.image.index.v1+json"
DOCKER_MANIFEST_LIST = "application/vnd.docker.distribution.manifest.list.v2+json"
ZIP_LAYER = "archive/zip"
ACCEPT = ", ".join([IMAGE_MANIFEST, IMAGE_INDEX, DOCKER_MANIFEST_LIST,
                    "application/vnd.docker.distribution.manifest.v2+json"])


class OciError(TofuSolveError):
    """An OCI artifact that is not an OpenTofu module package."""


class PushRefused(NetworkError):
    """The registry answered a push with an error status (``status``; 401 and 403: the
    credentials found may read but not write)."""

    def __init__(self, status: int, detail: str):
        self.status = status
        super().__init__("OCI registry refused the push", detail)


class StoredBlobCorrupt(TofuSolveError):
    """The registry holds a blob under a digest its bytes do not have (``repository``,
    ``digest``): a push of the right bytes cannot replace it, since a registry keeps one
    copy per digest."""

    def __init__(self, repository: str, digest: str, why: str):
        self.repository = repository
        self.digest = digest
        super().__init__("Corrupt OCI blob in the registry", f"{repository}@{digest}: {why}.")


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str


def _auth_files(env: Mapping[str, str]) -> list[Path]:
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    out = []
    if env.get("XDG_RUNTIME_DIR"):
        out.append(Path(env["XDG_RUNTIME_DIR"]) / "containers" / "auth.json")
    out.append(Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "containers" / "auth.json")
    out.append(Path(env["DOCKER_CONFIG"]) / "config.json" if env.get("DOCKER_CONFIG")
               else home / ".docker" / "config.json")
    out.append(home / ".dockercfg")
    return out


def _match_len(key: str, host: str, repository: str) -> int:
    """How specific an ``auths`` key is for host/repository (0: no match)."""
    k = key.split("://", 1)[-1].rstrip("/")
    target = f"{host}/{repository}"
    if k == host:
        return 1
    if target == k or target.startswith(k + "/"):
        return 1 + k.count("/")
    return 0


def _helper(name: str, host: str) -> Credentials | None:
    exe = shutil.which(f"docker-credential-{name}")
    if exe is None:
        return None
    try:
        r = subprocess.run([exe, "get"], input=host.encode(), capture_output=True,
                           timeout=CREDENTIAL_HELPER_TIMEOUT, check=True)
        data = json.loads(r.stdout)
        return Credentials(data["Username"], data["Secret"])
    except (subprocess.SubprocessError, ValueError, KeyError, OSError):
        return None


def find_credentials(host: str, repository: str, env: Mapping[str, str],
                     configured: Mapping[str, tuple[str, str]] | None = None) -> Credentials | None:
    """Credentials for ``host/repository``: the CLI configuration's ``oci_credentials``
    blocks first (``configured``, :attr:`tofu_solve.config.cliconfig.CliConfig.oci_credentials`;
    the most specific label wins), then Docker-style ones (see the module docstring); ``env``
    is the run's environment (:attr:`tofu_solve.settings.Settings.environ`)."""
    best = max((configured or {}).items(), key=lambda kv: _match_len(kv[0], host, repository), default=None)
    if best is not None and _match_len(best[0], host, repository):
        user, secret = best[1]
        return Credentials(user, secret) if user else _helper(secret, host)
    for path in _auth_files(env):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        auths = data.get("auths", data if path.name == ".dockercfg" else {}) or {}
        best = max(auths.items(), key=lambda kv: _match_len(kv[0], host, repository), default=None)
        if best and _match_len(best[0], host, repository):
            entry = best[1] or {}
            if entry.get("auth"):
                try:
                    user, _, pw = base64.b64decode(entry["auth"]).decode().partition(":")
                    return Credentials(user, pw)
                except (ValueError, UnicodeDecodeError):
                    pass
            if entry.get("username"):
                return Credentials(entry["username"], entry.get("password", ""))
        helpers = data.get("credHelpers") or {}
        if host in helpers:
            c = _helper(helpers[host], host)
            if c:
                return c
        if data.get("credsStore"):
            c = _helper(data["credsStore"], host)
            if c:
                return c
    return None


@dataclass(frozen=True)
class Artifact:
    """A resolved OpenTofu module package: its manifest digest and zip layer, and when it
    was created (the manifest's ``org.opencontainers.image.created`` annotation, which
    ``oras push`` writes, in seconds since the epoch; None when absent or not RFC 3339)."""

    manifest_digest: str
    layer_digest: str
    layer_size: int
    created: float | None = None
    config: tuple[str, str, int] | None = None  # the config descriptor: (media type, digest, size)


class OciClient:
    """Lists tags, resolves manifests and downloads module packages. Thread-safe enough
    for tofu-solve's use (one oras registry object per host, guarded)."""

    def __init__(self, env: Mapping[str, str] | None = None, counter: OpCounter | None = None, offline: bool = False,
                 timeout: float = REQUEST_TIMEOUT, limits: Limits | None = None, store_retries: bool = False,
                 configured: Mapping[str, tuple[str, str]] | None = None):
        self.configured = dict(configured or {})  # the CLI configuration's oci_credentials blocks
        # the package store's client: its requests are tried STORE_ATTEMPTS times by urllib3 (short, bounded
        # back-off) instead of by oras's retry decorator (minutes of back-off)
        self.store_retries = store_retries
        self.limits = limits or Limits()
        self.env = dict(env or {})
        self.counter = counter or OpCounter()
        self.offline = offline
        self.timeout = timeout
        self._lock = threading.Lock()
        self._registries: dict[str, object] = {}
        self._probes: dict[str, tuple[int, str, object]] = {}  # host -> (status, challenge, session)

    def _insecure(self, host: str) -> bool:
        named = {h.strip() for h in self.env.get("TOFU_SOLVE_OCI_INSECURE", "").split(",") if h.strip()}
        return is_loopback_host(host) or host in named

    def _registry(self, host: str, repository: str):
        """The object requests to ``host/repository`` go through: oras's ``Registry``, which
        answers the registry's authentication challenges, or, for a registry that asked for
        none at its ``/v2/`` probe and for which no credentials are configured, the host's
        session itself (:class:`_Open`: oras's import, 0.1 s and up to 0.9 s where
        ``jsonschema[format]`` is installed, is not paid for nothing; issue #57 §5)."""
        if self.offline:
            raise OfflineError("Not available offline", f"-offline forbids contacting the OCI registry {host}.")
        key = f"{host}/{repository}"
        with self._lock:
            if key in self._registries:
                return self._registries[key]
        scheme = "http" if self._insecure(host) else "https"
        status, challenge, session = self._probe(host, scheme)
        creds = find_credentials(host, repository, self.env, self.configured)
        if status == 200 and creds is None:
            with self._lock:
                return self._registries.setdefault(key, _Open(session))
        load("oras.provider")
        import oras.provider

        backend = "token" if challenge.lower().startswith("bearer") else "basic"
        reg = oras.provider.Registry(hostname=host, insecure=scheme == "http", auth_backend=backend)
        reg.session = session  # one per host (its connections reused by every repository), with a timeout
        if creds is not None:
            reg.auth.set_basic_auth(creds.username, creds.password)
        elif status == 401:
            raise NetworkError("OCI registry requires authentication",
                               f"The OCI registry {host} asks for credentials and none were found for "
                               f"{host}/{repository} in the Docker-style config files (DOCKER_CONFIG, "
                               "~/.docker/config.json, containers auth.json) or credential helpers.")
        with self._lock:
            self._registries[key] = reg
        return reg

    def _probe(self, host: str, scheme: str) -> tuple[int, str, object]:
        """``GET /v2/`` once per host and run: (its status, its ``WWW-Authenticate``, the
        session the host's repositories share). Probed first because oras retries
        unreachable hosts for minutes, while a refused connection is final.

        Raises:
            NetworkError: the registry cannot be reached.
        """
        with self._lock:
            known = self._probes.get(host)
        if known is not None:
            return known
        # oras sets no timeout: a silent registry would hang the run
        session = _timed_session(self.timeout, retries=self.store_retries)
        url = f"{scheme}://{host}/v2/"
        try:
            probe = session.get(url, stream=True)
            read_document(probe, self.limits, url)
        except requests.RequestException as e:
            raise NetworkError("Failed to reach OCI registry",
                               f"Could not contact the OCI registry {host} ({describe_failure(e)}).",
                               url=url) from None
        answer = (probe.status_code, probe.headers.get("WWW-Authenticate", ""), session)
        with self._lock:
            return self._probes.setdefault(host, answer)

    def _do(self, reg, url: str, method: str, **kwargs):
        """One request through oras (which answers the registry's authentication challenge);
        with ``store_retries``, without oras's retry decorator (five attempts, 3 s to 83 s
        apart): the session's own bounded retries (:data:`STORE_ATTEMPTS`) stand in for it, so
        that a failing package store costs a few seconds, not minutes."""
        call = type(reg).do_request
        if self.store_retries:
            call = getattr(call, "__wrapped__", call)
        started = time.monotonic()
        try:
            r = call(reg, url, method, **kwargs)
        except Exception as e:
            log.debug("OCI %s %s: %s after %.0f ms", method, _request_name(url), type(e).__name__,
                      (time.monotonic() - started) * 1000)
            raise
        log.debug("OCI %s %s -> %d in %.0f ms", method, _request_name(url), r.status_code,
                  (time.monotonic() - started) * 1000)
        return r

    def _request(self, reg, url: str, what: str, headers: dict | None = None, stream: bool = False):
        try:
            r = self._do(reg, url, "GET", headers=headers or {}, stream=stream)
        except ValueError as e:  # oras: "Cannot respond to request for authentication." and friends
            raise NetworkError("OCI registry refused the request", f"Could not {what}: {e}") from None
        except requests.RequestException as e:
            raise NetworkError("Failed to reach OCI registry", f"Could not {what} ({describe_failure(e)}).") from None
        if r.status_code in (401, 403):
            raise NetworkError("OCI registry authentication failed",
                               f"Could not {what}: the registry refused the credentials found "
                               f"(HTTP {r.status_code}). Check the Docker-style config for this registry.")
        return r

    def tags(self, host: str, repository: str) -> list[str]:
        """Every tag of the repository, following the registry's ``Link: <...>; rel="next"``
        pages (OCI distribution spec, "Listing Tags"), at most :data:`MAX_TAG_PAGES` of them,
        each bounded in size and time like every answer. Raises NetworkError."""
        reg = self._registry(host, repository)
        prefix = "http" if self._insecure(host) else "https"
        url: str | None = f"{prefix}://{host}/v2/{repository}/tags/list?n=1000"
        what = f"list the tags of {host}/{repository}"
        out: list[str] = []
        for _ in range(MAX_TAG_PAGES):
            if url is None:
                return out
            self.counter.add("oci_tags")
            r = read_document(self._request(reg, url, what, stream=True), self.limits, url)
            body = r.content
            if r.status_code == 404:
                raise NetworkError("OCI repository not found", f"{host}/{repository} does not exist.")
            if r.status_code != 200:
                raise NetworkError("Failed to list OCI tags", f"Could not {what}: the registry answered "
                                   f"{r.status_code}.")
            try:
                tags = json.loads(body).get("tags") or []
            except (ValueError, AttributeError):
                raise NetworkError("Failed to list OCI tags", f"Could not {what}: the answer is not JSON.") from None
            out += [t for t in tags if isinstance(t, str)]
            nxt = r.links.get("next", {}).get("url")
            url = urljoin(url, nxt) if nxt else None
        raise NetworkError("Failed to list OCI tags", f"Could not {what}: more than {MAX_TAG_PAGES} pages of tags.")

    def manifest(self, host: str, repository: str, reference: str, accept: str = ACCEPT) -> tuple[bytes, str, str]:
        """The manifest a tag or digest names: (its bytes, its ``sha256:`` digest, the
        answer's media type), at most 4 MiB and, fetched by digest, checked against it.

        Raises:
            OciError: over 4 MiB, or not matching the digest it was fetched by.
            NetworkError: the registry failed, or has no such manifest ("OCI artifact not found").
        """
        reg = self._registry(host, repository)
        self.counter.add("oci_manifest")
        prefix = "http" if self._insecure(host) else "https"
        url = f"{prefix}://{host}/v2/{repository}/manifests/{reference}"
        # bounded in size and time, like every answer
        r = read_document(self._request(reg, url, f"read the manifest {host}/{repository}:{reference}",
                                        {"Accept": accept}, stream=True), self.limits, url)
        if r.status_code == 404:
            raise NetworkError("OCI artifact not found",
                               f"{host}/{repository} has no manifest for {reference!r}.")
        if r.status_code != 200:
            raise NetworkError("Error reading OCI manifest",
                               f"{host}/{repository}:{reference}: the registry answered {r.status_code}.")
        body = r.content
        if len(body) > OCI_MANIFEST_BYTES:
            raise OciError("Invalid OCI module package",
                           f"{host}/{repository}:{reference}: manifest larger than 4 MiB.")
        digest = "sha256:" + hashlib.sha256(body).hexdigest()
        if reference.startswith("sha256:") and reference != digest:
            raise OciError("Invalid OCI module package",
                           f"{host}/{repository}: the manifest fetched by {reference} has digest {digest}.")
        return body, digest, r.headers.get("Content-Type", "").split(";")[0].strip()

    def resolve(self, host: str, repository: str, reference: str) -> Artifact:
        """The module package a tag or digest names, checked as OpenTofu checks it.

        Raises:
            OciError: not an image manifest, an index, a wrong ``artifactType``, no or several
                ``archive/zip`` layers, a manifest over 4 MiB or not matching its digest.
            NetworkError: the registry failed or the reference does not exist.
        """
        body, digest, header_type = self.manifest(host, repository, reference)
        try:
            manifest = json.loads(body)
        except ValueError:
            raise OciError("Invalid OCI module package",
                           f"{host}/{repository}:{reference}: manifest is not JSON.") from None
        media = manifest.get("mediaType") or header_type
        if media in (IMAGE_INDEX, DOCKER_MANIFEST_LIST):
            raise OciError("Invalid OCI module package",
                           f"{host}/{repository}:{reference}: found index manifest but need image manifest")
        if media != IMAGE_MANIFEST:
            raise OciError("Invalid OCI module package",
                           f"{host}/{repository}:{reference}: selected object is not an OCI image manifest")
        if manifest.get("artifactType") != ARTIFACT_TYPE:
            raise OciError("Invalid OCI module package",
                           f"{host}/{repository}:{reference}: unsupported OCI artifact type "
                           f"{manifest.get('artifactType')!r}; an OpenTofu module package has artifactType "
                           f"{ARTIFACT_TYPE!r}")
        zips = [layer for layer in manifest.get("layers", []) if layer.get("mediaType") == ZIP_LAYER]
        if not zips:
            raise OciError("Invalid OCI module package",
                           f"{host}/{repository}:{reference}: image manifest contains no layers of types supported "
                           "as module packages by OpenTofu")
        if len(zips) > 1:
            raise OciError("Invalid OCI module package",
                           f"{host}/{repository}:{reference}: image manifest has more than one archive/zip layer")
        cfg = manifest.get("config") if isinstance(manifest.get("config"), dict) else {}
        config = (str(cfg.get("mediaType", "")), str(cfg.get("digest", "")), int(cfg.get("size") or 0)) \
            if cfg.get("digest") else None
        return Artifact(digest, zips[0]["digest"], int(zips[0].get("size", -1)), _created(manifest), config)

    def config_created(self, host: str, repository: str, art: Artifact) -> float | None:
        """The ``created`` time of the artifact's image configuration (OCI image-spec
        ``config.md``: RFC 3339), when its config is an image configuration of at most
        :data:`MAX_CONFIG_BYTES` (an OpenTofu module package's is usually the empty
        descriptor: then None, without a request). The blob is checked against its digest;
        anything unreadable gives None (the release time stays unknown).

        Raises:
            NetworkError: the registry cannot be reached.
        """
        if art.config is None:
            return None
        media, digest, size = art.config
        if media != IMAGE_CONFIG or not 0 < size <= MAX_CONFIG_BYTES or not digest.startswith("sha256:"):
            return None
        r, url = self._blob(host, repository, digest, "read the configuration")
        if r.status_code != 200:
            r.close()
            return None
        buf = bytearray()
        read_bounded(r, buf.extend, MAX_CONFIG_BYTES, self.limits.deadline, url)
        if "sha256:" + hashlib.sha256(bytes(buf)).hexdigest() != digest:
            return None
        try:
            doc = json.loads(bytes(buf))
        except ValueError:
            return None
        return _rfc3339(doc.get("created")) if isinstance(doc, dict) else None

    def _blob(self, host: str, repository: str, digest: str, what: str):
        """(the streamed response to ``GET /v2/<repository>/blobs/<digest>``, its URL),
        counted as one ``oci_blob`` operation; ``what`` names the request in errors. The
        caller checks the status and closes the response. Raises NetworkError."""
        reg = self._registry(host, repository)
        self.counter.add("oci_blob")
        prefix = "http" if self._insecure(host) else "https"
        url = f"{prefix}://{host}/v2/{repository}/blobs/{digest}"
        return self._request(reg, url, f"{what} {host}/{repository}@{digest}", stream=True), url

    def download(self, host: str, repository: str, art: Artifact, dest: Path) -> bytes:
        """The zip layer's bytes, verified against its digest and size.

        Raises IntegrityError (digest or size mismatch), NetworkError."""
        return self.blob(host, repository, art.layer_digest, art.layer_size, "the archive/zip layer")

    def blob(self, host: str, repository: str, digest: str, size: int, what: str = "the blob") -> bytes:
        """A blob's bytes, at most ``size`` (-1: unknown) and the download limit, verified
        against its ``sha256:``/``sha512:`` digest and size (oras does not verify).

        Raises:
            IntegrityError: "Corrupt OCI blob", the bytes do not match the digest or size.
            NetworkError: too large, or the registry failed.
        """
        if size > self.limits.download_bytes:
            raise NetworkError("The download is too large",
                               f"{host}/{repository}: {what} declares {size} bytes, more "
                               f"than {self.limits.download_bytes} (TOFU_SOLVE_MAX_DOWNLOAD_BYTES).")
        r, url = self._blob(host, repository, digest, "download")
        if r.status_code != 200:
            r.close()
            raise NetworkError("Failed to download OCI blob",
                               f"{host}/{repository}@{digest}: the registry answered {r.status_code}.")
        declared = r.headers.get("Content-Length", "")
        if size >= 0 and declared.isdigit() and int(declared) != size:
            r.close()  # the registry's copy is not the blob its descriptor names: nothing to read
            raise IntegrityError("Corrupt OCI blob",
                                 f"{host}/{repository}: {what} {digest} is {declared} bytes in the registry, but its "
                                 f"descriptor says {size}.")
        buf = bytearray()
        limit = min(self.limits.download_bytes, size) if size >= 0 else self.limits.download_bytes
        try:
            read_bounded(r, buf.extend, limit, self.limits.deadline, url)  # size and overall deadline
        except DownloadTooLarge:
            if 0 <= size < self.limits.download_bytes:  # the bound was the size the descriptor declares
                raise IntegrityError("Corrupt OCI blob",
                                     f"{host}/{repository}: {what} {digest} sent more than the {size} bytes its "
                                     "descriptor says.") from None
            raise
        data = bytes(buf)
        algo, _, want = digest.partition(":")
        got = hashlib.new(algo, data).hexdigest() if algo in ("sha256", "sha512") else None
        if got != want or (size >= 0 and len(data) != size):
            raise IntegrityError("Corrupt OCI blob",
                                 f"{host}/{repository}: {what} does not match its digest "
                                 f"{digest} (got {algo}:{got}, {len(data)} bytes).")
        return data

    # ------------------------------------------------------------------ writing (the package store)

    def _head(self, host: str, repository: str, kind: str, reference: str, headers: dict | None = None):
        """``HEAD /v2/<repository>/<kind>/<reference>``: the answer, or None for a 404.

        Raises:
            NetworkError: the registry cannot be reached, or answered otherwise than 200/404.
        """
        reg = self._registry(host, repository)
        prefix = "http" if self._insecure(host) else "https"
        url = f"{prefix}://{host}/v2/{repository}/{kind}/{reference}"
        shown = f"{host}/{repository}{'@' if kind == 'blobs' else ':'}{reference}"
        try:
            r = self._do(reg, url, "HEAD", headers=headers or {})
        except (ValueError, requests.RequestException) as e:
            raise NetworkError("Failed to reach OCI registry", f"Could not read {shown} ({describe_failure(e)}).") \
                from None
        if r.status_code == 404:
            return None
        if r.status_code != 200:
            raise NetworkError("Error reading OCI manifest" if kind == "manifests" else "Error reading OCI blob",
                               f"{shown}: the registry answered {r.status_code}.")
        return r

    def has_manifest(self, host: str, repository: str, reference: str, accept: str = ACCEPT) -> str | None:
        """The digest of the manifest a tag names (``HEAD``, the registry's
        ``Docker-Content-Digest``), or None when there is none. Raises NetworkError."""
        self.counter.add("oci_manifest")
        r = self._head(host, repository, "manifests", reference, {"Accept": accept})
        return None if r is None else r.headers.get("Docker-Content-Digest") or ""

    def blob_size(self, host: str, repository: str, digest: str) -> int | None:
        """The size the registry gives for a blob (``HEAD``, its ``Content-Length``; -1 when
        it names none), or None when the repository has no such blob. Raises NetworkError."""
        r = self._head(host, repository, "blobs", digest)
        if r is None:
            return None
        length = r.headers.get("Content-Length", "")
        return int(length) if length.isdigit() else -1

    def push_blob(self, host: str, repository: str, data: bytes) -> tuple[dict, bool]:
        """Upload ``data`` as a blob unless the repository has it (``HEAD``, then a monolithic
        ``POST``/``PUT``, OCI distribution spec "Pushing a blob monolithically"); returns its
        descriptor fields (``digest``, ``size``) and whether anything was uploaded.
        Content-addressed, so any number of jobs may push the same blob at once.

        Raises:
            StoredBlobCorrupt: the repository has a blob of that digest of another size (a
                registry keeps one copy per digest: uploading again changes nothing).
            PushRefused: the registry answered with an error (401/403: read-only credentials).
            NetworkError: the registry failed.
        """
        reg = self._registry(host, repository)
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        prefix = "http" if self._insecure(host) else "https"
        base = f"{prefix}://{host}/v2/{repository}/blobs"
        what = f"upload a blob to {host}/{repository}"
        present = self.blob_size(host, repository, digest)
        if present is not None:
            if present not in (-1, len(data)):
                raise StoredBlobCorrupt(repository, digest, f"it is {present} bytes, the blob is {len(data)}")
            return {"digest": digest, "size": len(data)}, False
        try:
            self.counter.add("oci_push")
            r = self._do(reg, f"{base}/uploads/", "POST", headers={"Content-Length": "0"})
            if r.status_code != 202 or not r.headers.get("Location"):
                raise PushRefused(r.status_code, f"Could not {what}: the registry answered {r.status_code}.")
            location = urljoin(f"{base}/uploads/", r.headers["Location"])
            sep = "&" if "?" in location else "?"
            r = self._do(reg, f"{location}{sep}digest={digest}", "PUT", data=data,
                         headers={"Content-Type": "application/octet-stream", "Content-Length": str(len(data))})
        except ValueError as e:  # oras: the registry's authentication challenge could not be answered
            raise PushRefused(401, f"Could not {what}: {e}") from None
        except requests.RequestException as e:
            raise NetworkError("Failed to reach OCI registry", f"Could not {what} ({describe_failure(e)}).") from None
        if r.status_code not in (200, 201, 202):
            raise PushRefused(r.status_code, f"Could not {what}: the registry answered {r.status_code}.")
        return {"digest": digest, "size": len(data)}, True

    def push_manifest(self, host: str, repository: str, reference: str, body: bytes, media: str) -> str:
        """``PUT`` a manifest under a tag (or its digest); returns its digest.

        Raises:
            NetworkError: the registry refused (401/403: read-only credentials) or failed.
        """
        reg = self._registry(host, repository)
        self.counter.add("oci_push")
        prefix = "http" if self._insecure(host) else "https"
        url = f"{prefix}://{host}/v2/{repository}/manifests/{reference}"
        try:
            r = self._do(reg, url, "PUT", headers={"Content-Type": media}, data=body)
        except ValueError as e:  # oras: the registry's authentication challenge could not be answered
            raise PushRefused(401, f"Could not write {host}/{repository}:{reference}: {e}") from None
        except requests.RequestException as e:
            raise NetworkError("Failed to reach OCI registry",
                               f"Could not write {host}/{repository}:{reference} ({describe_failure(e)}).") from None
        if r.status_code not in (200, 201, 202):
            raise PushRefused(r.status_code, f"Writing {host}/{repository}:{reference}: the registry answered "
                              f"{r.status_code}{_error_codes(r)}.")
        return "sha256:" + hashlib.sha256(body).hexdigest()


class _Open:
    """A registry that asks for no authentication: its requests go straight to the host's
    session (what oras's ``do_request`` does when no challenge comes)."""

    def __init__(self, session):
        self.session = session

    def do_request(self, url: str, method: str = "GET", data=None, headers: dict | None = None,
                   json=None, stream: bool = False):
        return self.session.request(method, url, data=data, headers=headers or {}, json=json, stream=stream)


def _request_name(url: str) -> str:
    """How a log line names an OCI request: ``HOST REPOSITORY manifests|blobs|tags
    REFERENCE`` from its URL (``/v2/<repository>/<kind>/<reference>``), without the query
    (an upload's session state)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    path = parts.path.removeprefix("/v2/")
    for kind in ("/manifests/", "/blobs/uploads/", "/blobs/", "/tags/"):
        repository, found, reference = path.partition(kind)
        if found:
            return f"{parts.netloc} {repository} {kind.strip('/')} {reference}".rstrip()
    return f"{parts.netloc} {parts.path}"


def _error_codes(r) -> str:
    """The OCI error codes of an error answer (distribution spec "Error Codes"), as
    `` (MANIFEST_BLOB_UNKNOWN)``; "" when it has none or is not JSON. Only the codes, never
    the messages, which a hostile registry could fill."""
    try:
        codes = [e.get("code") for e in json.loads(r.content[:65536]).get("errors", [])]
    except (ValueError, AttributeError, TypeError):
        return ""
    shown = [c for c in codes if isinstance(c, str) and c.replace("_", "").isalnum()][:3]
    return f" ({', '.join(shown)})" if shown else ""


def _timed_session(timeout: float, retries: bool = False):
    """A requests session whose requests wait at most ``timeout`` seconds for a connection
    and for each read (requests has no default timeout); with ``retries``, transient faults
    are tried again as :data:`STORE_ATTEMPTS` says (urllib3's ``Retry``, every method: each
    request the store makes is idempotent, a blob upload's ``POST`` opening a new session)."""
    session = requests.Session()
    if retries:
        load("requests.adapters")
        from requests.adapters import HTTPAdapter
        load("urllib3.util.retry")
        from urllib3.util.retry import Retry

        policy = Retry(total=STORE_ATTEMPTS - 1, connect=STORE_ATTEMPTS - 1, read=1, status=STORE_ATTEMPTS - 1,
                       other=STORE_ATTEMPTS - 1, backoff_factor=RETRY_BACKOFF, backoff_max=1.0,
                       status_forcelist=TRANSIENT_STATUS, allowed_methods=None, raise_on_status=False,
                       respect_retry_after_header=False)
        adapter = HTTPAdapter(max_retries=policy)
        session.mount("http://", adapter)
        session.mount("https://", adapter)
    plain = session.request

    def request(method, url, *args, **kwargs):
        kwargs.setdefault("timeout", timeout)
        return plain(method, url, *args, **kwargs)
    session.request = request
    return session


CREATED = "org.opencontainers.image.created"  # OCI image-spec annotations.md


IMAGE_CONFIG = "application/vnd.oci.image.config.v1+json"
MAX_CONFIG_BYTES = 64 * 1024  # an image configuration read only for its creation time


def _created(manifest: dict) -> float | None:
    """The manifest's creation time (its ``org.opencontainers.image.created`` annotation,
    RFC 3339 with a zone), or None."""
    annotations = manifest.get("annotations")
    return _rfc3339(annotations.get(CREATED) if isinstance(annotations, dict) else None)


def _rfc3339(stamp) -> float | None:
    """An RFC 3339 time with a zone in seconds since the epoch, or None."""
    if not isinstance(stamp, str):
        return None
    try:
        t = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return t.timestamp() if t.tzinfo is not None else None
