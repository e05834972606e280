"""A package store on an OCI registry, shared by a fleet of CI jobs (issue #49).

``TOFU_SOLVE_PACKAGE_STORE=oci://HOST[:PORT]/PREFIX`` (or ``init -package-store=``) names it.
Before an origin, ``init`` looks in the store for every package the lock file names; what
comes from the store is untrusted until verified against the lock, and what a job verified
from an origin it pushes to the store for the next jobs.

Layout, in formats OpenTofu itself reads:

* **Module packages** (:class:`ModuleKey`): ``PREFIX/modules/<origin host and path>-<hash>``,
  tag ``git-<commit>`` or ``<algorithm>-<checksum>`` (the package's identity, never reused
  for other contents). An OpenTofu module package (reference §4, ``oci_getter.go``): an
  image manifest, ``artifactType`` ``application/vnd.opentofu.modulepkg``, one
  ``archive/zip`` layer holding the whole package, so ``oci://HOST/REPO?tag=...`` works as
  a module source for ``tofu``. Annotations record the origin address, version, identity
  and ``h1:``. The zip is built deterministically (sorted names, fixed times and modes), so
  every job pushes the same bytes for the same package.
* **Provider packages** (:class:`ProviderKey`): ``PREFIX/providers/${hostname}/${namespace}/
  ${type}``, a tag per version (``+`` written ``_``), an index manifest of ``artifactType``
  ``application/vnd.opentofu.provider`` with one ``application/vnd.opentofu.provider-target``
  image manifest per platform holding the registry's own ``.zip`` (OpenTofu's
  ``website/docs/cli/oci_registries/provider-mirror.mdx``): ``tofu`` with an ``oci_mirror``
  block whose ``repository_template`` is ``HOST/PREFIX/providers/${hostname}/${namespace}/
  ${type}`` installs from the same store.

Trust: a module artifact is installed only when its unpacked contents hash to an ``h1:`` the
lock records; a provider package only when its zip's SHA-256 is a ``zh:`` the lock records
or its unpacked ``h1:`` is one. Anything else is reported once (:attr:`PackageStore.reports`)
and the origin is used. A store that is down, slow or refuses costs at most
:data:`STORE_TIMEOUT` per request and one warning: after its first failure to answer it is
not asked again in the run.

Writing: after a package is verified, it is pushed in the background (at most
:data:`PUSH_WORKERS` at once): blobs first (content-addressed), then the manifest under its
tag, only when the tag is absent or holds what failed verification. A job killed mid-push
leaves blobs without a tag, which no job reads; the next job's push completes it.
:meth:`PackageStore.finish` waits at most a grace period and names what was not pushed.
``TOFU_SOLVE_PACKAGE_STORE_PUSH=false`` or credentials that may only read: nothing is pushed
(one note per run).
"""

from __future__ import annotations

import enum
import hashlib
import io
import json
import logging
import re
import shutil
import stat
import threading
import time
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from .._lazy import load
from .._threads import NETWORK, start_thread
from ..addrs.module_source import OciSource, RemoteSource, SourceKind, parse_source, source_dir_subdir
from ..addrs.provider import ProviderAddress
from ..addrs.redact import redact
from ..errors import ConfigurationError, IntegrityError, NetworkError, TofuSolveError
from ..lockfile.hashes import VCS_DIRS, hash_dir
from .archives import extract_archive
from .limits import Limits
from .oci import IMAGE_INDEX, IMAGE_MANIFEST, OciClient, OciError, PushRefused, StoredBlobCorrupt
from .ops import OpCounter

log = logging.getLogger(__name__)

STORE_VARIABLE = "TOFU_SOLVE_PACKAGE_STORE"
PUSH_VARIABLE = "TOFU_SOLVE_PACKAGE_STORE_PUSH"
GRACE_VARIABLE = "TOFU_SOLVE_PACKAGE_STORE_GRACE"
STORE_TIMEOUT = 5.0
"""Seconds one request to the store may wait for a connection or a read: the store is an
optimisation, so a silent one is given up on sooner than an origin (10 s)."""
PUSH_GRACE = 10.0
"""Seconds ``init`` waits at its end for pushes still running (``TOFU_SOLVE_PACKAGE_STORE_GRACE``)."""
PUSH_WORKERS = 4
RETRY_PAUSE = 0.5  # seconds before a push the registry answered 400 is tried again, once

MODULE_ARTIFACT = "application/vnd.opentofu.modulepkg"
PROVIDER_ARTIFACT = "application/vnd.opentofu.provider"
PROVIDER_TARGET = "application/vnd.opentofu.provider-target"
PROVIDER_PACKAGE = "application/vnd.opentofu.providerpkg"  # a provider-target manifest's zip layer
ZIP_LAYER = "archive/zip"
EMPTY_CONFIG = "application/vnd.oci.empty.v1+json"
EMPTY_JSON = b"{}"
ANNOTATION = "dev.tofu-solve."  # our annotations' prefix: origin, version, identity, h1
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip entry can hold: the same bytes from every job

_COMPONENT = re.compile(r"[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*")  # OCI distribution spec: a path component
_VERSION_TAG = re.compile(r"(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)"
                          r"(?:-[0-9A-Za-z.-]+)?(?:_[0-9A-Za-z.-]+)?")  # semver, "+" written "_"
_HOST = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*"
                   r"(?::[0-9]{1,5})?")


@dataclass(frozen=True)
class StoreAddress:
    """``oci://HOST[:PORT]/PREFIX``: the registry and the repository prefix of the store."""

    host: str
    prefix: str

    def repository(self, *parts: str) -> str:
        return "/".join(p for p in (self.prefix, *parts) if p)

    def __str__(self) -> str:
        return f"oci://{self.host}/{self.prefix}" if self.prefix else f"oci://{self.host}"


def parse_store_address(text: str, origin: str) -> StoreAddress:
    """``oci://HOST[:PORT][/PREFIX]``; ``origin`` names where it was given (``-package-store``
    or ``TOFU_SOLVE_PACKAGE_STORE``) for the error.

    Raises:
        ConfigurationError: "Invalid package store address": another scheme, a credential,
            a query, or a host or path component an OCI registry refuses.
    """
    def bad(why: str) -> ConfigurationError:
        return ConfigurationError("Invalid package store address",
                                  f"{origin} is {redact(text)!r}: {why}. Write it as oci://HOST[:PORT]/PREFIX, for "
                                  "example oci://ghcr.io/my-org/tofu-packages.")
    if not text.startswith("oci://"):
        raise bad("the package store is an OCI registry, named with oci://")
    parts = urlsplit(text)
    if parts.username or parts.password or "@" in parts.netloc:
        raise bad("credentials never go in the address; they come from the Docker-style config files")
    if parts.query or parts.fragment:
        raise bad("it may not have a query or a fragment")
    if not _HOST.fullmatch(parts.netloc or ""):
        raise bad("the host is not a valid registry host")
    prefix = parts.path.strip("/")
    for component in prefix.split("/") if prefix else ():
        if not _COMPONENT.fullmatch(component):
            raise bad(f"the path component {component!r} is not a valid OCI repository name (lower-case letters, "
                       "digits and single separators)")
    return StoreAddress(parts.netloc, prefix)


def store_setting(flag: str | None, env: Mapping[str, str]) -> StoreAddress | None:
    """The store a run uses: ``-package-store`` (an empty value turns the store off), else
    ``TOFU_SOLVE_PACKAGE_STORE``; None for none. Raises ConfigurationError."""
    if flag is not None:
        return parse_store_address(flag, "-package-store") if flag else None
    text = env.get(STORE_VARIABLE, "")
    return parse_store_address(text, STORE_VARIABLE) if text else None


# --------------------------------------------------------------------------- names


def _slug(text: str) -> str:
    """A path component the registry accepts, from any text (lower-cased, separators folded)."""
    out = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60].strip("-")
    return out or "x"


def git_base(src: RemoteSource) -> str:
    """The package address of a git source without its ref (the cache's key for it too)."""
    return src.with_ref("").package.split("?ref=")[0].rstrip("?")


def archive_base(src: RemoteSource) -> tuple[str, str | None]:
    """An archive address without its ``checksum``, and the checksum (or None)."""
    parts = urlsplit(src.package.split("::", 1)[-1] if "::" in src.package.split("://", 1)[0] else src.package)
    query = parse_qsl(parts.query, keep_blank_values=True)
    checksum = dict(query).get("checksum")
    kept = "&".join(f"{k}={v}" for k, v in query if k != "checksum")
    return urlunsplit((parts.scheme, parts.netloc, parts.path, kept, "")), checksum


@dataclass(frozen=True)
class ModuleKey:
    """Where a module package lives in the store: its origin package address (redacted,
    without ref, subdirectory or checksum) and its identity (a git commit, or an archive's
    ``algorithm:hex`` checksum)."""

    origin: str
    identity: str

    @property
    def tag(self) -> str:
        algorithm, _, value = self.identity.partition(":")
        return f"git-{self.identity}" if not value else f"{_slug(algorithm)}-{_slug(value)}"[:128]

    def repository(self, store: StoreAddress) -> str:
        bare = re.sub(r"^[a-z0-9]+::", "", self.origin)
        parts = urlsplit(bare if "://" in bare else "x://" + bare)
        path = [_slug(parts.hostname or "host")] + [_slug(p) for p in parts.path.removesuffix(".git").split("/")
                                                    if p][:6]
        path[-1] = f"{path[-1]}-{hashlib.sha256(self.origin.encode()).hexdigest()[:10]}"
        return store.repository("modules", *path)


def module_key(address: str, commit: str | None = None) -> ModuleKey | None:
    """The store key of a module package: a git address at ``commit`` (else at its ``ref``
    when that is a commit) or an archive address pinned by ``checksum``; None for what has
    no identity (an archive without checksum, ``file://``, an OCI package: already in a
    registry) or does not parse."""
    load("tofu_solve.addrs.immutable")
    from ..addrs.immutable import GIT_COMMIT_RE

    try:
        src = parse_source(source_dir_subdir(address)[0])
    except TofuSolveError:
        return None
    if not isinstance(src, RemoteSource) or isinstance(src, OciSource):
        return None
    if src.kind is SourceKind.GIT:
        ref = commit or src.git.ref or ""
        return ModuleKey(redact(git_base(src)), ref) if GIT_COMMIT_RE.fullmatch(ref) else None
    if src.kind is SourceKind.HTTP:
        base, checksum = archive_base(src)
        if checksum and ":" in checksum:
            return ModuleKey(redact(base), checksum.lower())
    return None


@dataclass(frozen=True)
class ProviderKey:
    """A provider package in the store: (hostname, namespace, type, version, platform)."""

    hostname: str
    namespace: str
    type: str
    version: str

    def repository(self, store: StoreAddress) -> str | None:
        """The oci_mirror repository, or None when a part is not a valid path component."""
        parts = (self.hostname.lower(), self.namespace.lower(), self.type.lower())
        return store.repository("providers", *parts) if all(_COMPONENT.fullmatch(p) for p in parts) else None

    @property
    def tag(self) -> str:
        return self.version.replace("+", "_")


# --------------------------------------------------------------------------- artifacts


def package_zip(root: Path, comment: bytes = b"") -> bytes:
    """The package directory as a zip, the same bytes for the same files on every machine:
    names sorted, times fixed, modes 0644 or 0755, version-control directories left out
    (as the ``h1:`` leaves them out), links stored as the files they point to (as the
    ``h1:`` reads them). ``comment``, the zip's comment, gives the same files other bytes
    (a digest the registry holds a corrupt copy of is avoided so). Raises OSError."""
    buf = io.BytesIO()
    files: list[tuple[str, Path]] = []
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if rel.parts[0] in VCS_DIRS or path.is_dir():
            continue
        files.append((rel.as_posix(), path))
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, path in sorted(files):
            info = zipfile.ZipInfo(name, ZIP_TIME)
            mode = 0o755 if path.stat().st_mode & stat.S_IXUSR else 0o644
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, path.read_bytes(), compresslevel=6)
        zf.comment = comment
    return buf.getvalue()


def _image_manifest(artifact: str, layer: dict, config: dict, annotations: Mapping[str, str],
                    layer_artifact: str = "") -> bytes:
    """An image manifest of ``artifact`` with one ``archive/zip`` layer (of
    ``layer_artifact``, when given: OpenTofu's provider packages need it)."""
    zip_layer = {"mediaType": ZIP_LAYER, **layer}
    if layer_artifact:
        zip_layer["artifactType"] = layer_artifact
    doc = {"schemaVersion": 2, "mediaType": IMAGE_MANIFEST, "artifactType": artifact,
           "config": {"mediaType": EMPTY_CONFIG, **config}, "layers": [zip_layer]}
    if annotations:
        doc["annotations"] = dict(sorted(annotations.items()))
    return json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()


def _empty(directory: Path) -> None:
    """Remove everything inside ``directory`` (what a rejected artifact unpacked)."""
    for child in directory.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


# --------------------------------------------------------------------------- the store


REPAIR_ADVICE = (
    "A push cannot replace it: a registry keeps one copy of each digest, and the verified package has the same "
    "digest. Delete the corrupt copy, then run tofu-solve store push again. On CNCF distribution (Debian's "
    "docker-registry, the registry image): delete the tag's manifest (DELETE /v2/REPOSITORY/manifests/DIGEST, with "
    "storage.delete.enabled), then run `registry garbage-collect --delete-untagged CONFIG` (Debian: docker-registry "
    "garbage-collect --delete-untagged /etc/docker/registry/config.yml), or remove the blob's directory "
    "docker/registry/v2/blobs/sha256/XX/HEX under the storage root; on a hosted registry, delete the blob or the "
    "tag from its console.")
"""What the operator must do about a corrupt blob that only a deletion can clear (a
provider package's zip, whose digest is its ``zh:`` hash: no other bytes can stand in)."""


class StoreOutcome(enum.StrEnum):
    """What the store holds for one package, as ``store push`` and ``store verify`` report it."""

    VERIFIED = "verified"  # read and verified exactly as init verifies it (store verify)
    COMPLETE = "complete"  # there, in OpenTofu's format, every blob present at its size (store push)
    PUSHED = "pushed"  # something was uploaded or written for it now
    MISSING = "missing"  # the store does not hold it (and, for push, it could not be had)
    REJECTED = "rejected"  # the store holds something under its name that is not it


@dataclass(frozen=True)
class PackageOutcome:
    """One package's line in ``store push`` / ``store verify``.

    Attributes:
        package: the label reports use (``ORIGIN at IDENTITY``, ``provider ADDRESS VERSION (OS_ARCH)``).
        outcome: what the store holds.
        reason: why (what differed, where the package could not be had), "" when all is well.
    """

    package: str
    outcome: StoreOutcome
    reason: str = ""


class _Rejected(Exception):
    """What the store holds under a package's name is not that package in OpenTofu's format."""


class _Lacking(Exception):
    """The store does not hold the package (for this platform)."""


@dataclass
class StoreReport:
    """What the store did in a run, for the summary line, warnings and ``-json``.

    Attributes:
        read: packages installed from the store, verified (labels).
        pushed: packages for which something was uploaded or written.
        rejected: (package label, what differed) for artifacts that failed verification or
            are not in OpenTofu's formats, each once.
        unrepaired: (package label, the corrupt blob and what the operator must do) for
            blobs a push cannot replace.
        not_pushed: packages whose push did not finish within the grace period, or failed.
        down: why the store stopped being asked ("" while it answers).
        read_only: why nothing was pushed ("" when pushing).
    """

    read: list[str] = field(default_factory=list)
    pushed: list[str] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)
    unrepaired: list[tuple[str, str]] = field(default_factory=list)
    not_pushed: list[str] = field(default_factory=list)
    down: str = ""
    read_only: str = ""


def provider_label(key: ProviderKey, platform: str) -> str:
    """How reports name a provider package: ``provider HOST/NS/TYPE VERSION (OS_ARCH)``."""
    return f"provider {key.hostname}/{key.namespace}/{key.type} {key.version} ({platform})"


class PackageStore:
    """The store of one run (thread-safe): reads verified against the lock, pushes after
    verification. ``expect_module`` / ``expect_provider`` register what the lock records;
    nothing else is read from the store.

    Args:
        address: the store.
        client: an :class:`OciClient` made for it (``store_retries``, :data:`STORE_TIMEOUT`).
        push: whether to push what was verified from origins.
        limits: the run's bounds (sizes of what is unpacked).
    """

    def __init__(self, address: StoreAddress, client: OciClient, push: bool = True,
                 limits: Limits | None = None, grace: float = PUSH_GRACE):
        self.address = address
        self.client = client
        self.limits = limits or Limits()
        self.grace = grace
        self.report = StoreReport(read_only="" if push else f"{PUSH_VARIABLE}=false")
        self._lock = threading.Lock()
        self._modules: dict[ModuleKey, tuple[tuple[str, ...], str]] = {}  # key -> (h1s, version)
        self._providers: dict[ProviderKey, tuple[str, ...]] = {}  # key -> the lock's hashes
        self._from_store: set[ModuleKey] = set()
        self._poisoned: set[tuple[str, str]] = set()  # (repository, tag) that failed verification
        self._corrupt: set[tuple[str, str]] = set()  # (repository, blob digest) whose bytes are not the digest's
        self._lacking: dict[str, str] = {}  # package label -> what the store lacks of it
        self._offered: dict[tuple[ProviderKey, str], Path] = {}  # verified provider zips, pushed once locked
        self._pushing: dict[str, threading.Thread] = {}
        self._slots = threading.Semaphore(PUSH_WORKERS)
        self._index_locks: dict[tuple[str, str], threading.Lock] = {}
        self._names: dict[ModuleKey, str] = {}  # how reports name a module package (name_module)

    # ------------------------------------------------------------------ expectations

    def expect_module(self, key: ModuleKey, hashes: tuple[str, ...], version: str = "", call: str = "") -> None:
        """Record the hashes the lock gives the package at ``key`` (``h1:`` verifies what
        the store gives; an archive's ``zh:`` is kept for the lock), and how reports name it
        (``call``, the call path of the lock's block, and ``version``: :meth:`label`)."""
        self.name_module(key, call, version)
        if any(h.startswith("h1:") for h in hashes):
            with self._lock:
                self._modules[key] = (tuple(hashes), version)

    def name_module(self, key: ModuleKey, call: str, version: str) -> None:
        """Name the package at ``key`` in reports ``CALL VERSION`` (``vpc 6.6.0``, issue #68
        §3), by the first call that names it; another package already so named is named
        with its origin too, so that no two packages share a label."""
        if not call or not version:
            return
        with self._lock:
            if key in self._names:
                return
            name = f"{call} {version}"
            if name in self._names.values():
                name = f"{name} ({key.origin})"
            self._names[key] = name

    def recorded_zh(self, key: ModuleKey) -> str | None:
        """The hex SHA-256 of the origin's archive that the lock records for ``key`` (its
        ``zh:``), or None."""
        with self._lock:
            hashes = self._modules.get(key, ((), ""))[0]
        return next((h[3:] for h in hashes if h.startswith("zh:")), None)

    def expects(self, key: ModuleKey) -> bool:
        """Whether the lock records an ``h1:`` for the package at ``key`` (only such a
        package is ever read from the store)."""
        with self._lock:
            return key in self._modules

    def expect_provider(self, key: ProviderKey, hashes: tuple[str, ...]) -> None:
        """Record the hashes the lock gives a provider version."""
        if hashes:
            with self._lock:
                self._providers[key] = hashes

    def came_from_store(self, key: ModuleKey) -> bool:
        """Whether the package at ``key`` was read from the store this run (verified)."""
        with self._lock:
            return key in self._from_store

    def expects_package(self, package: str) -> bool:
        """:meth:`expects` for a lock's immutable ``package`` address."""
        key = module_key(package) if package else None
        return key is not None and self.expects(key)

    def served_package(self, package: str) -> bool:
        """:meth:`came_from_store` for a lock's immutable ``package`` address."""
        key = module_key(package) if package else None
        return key is not None and self.came_from_store(key)

    # ------------------------------------------------------------------ failure handling

    def _available(self) -> bool:
        with self._lock:
            return not self.report.down

    def _went_down(self, e: TofuSolveError) -> None:
        """The store failed to answer after the client's retries (:data:`~.oci.STORE_ATTEMPTS`):
        it is not asked again in this run."""
        with self._lock:
            if not self.report.down:
                self.report.down = f"{e.summary}: {e.detail}" if e.detail else e.summary
                log.warning("package store %s: %s", self.address, self.report.down)

    def why_not(self, label: str) -> str:
        """Why the store did not give the package ``label`` (for an error that names both
        places when its origin failed too)."""
        with self._lock:
            rejected = next((why for lbl, why in self.report.rejected if lbl == label), None)
            lacking = self._lacking.get(label)
            down = self.report.down
        if rejected is not None:
            return f"the package store {self.address} holds it, but it failed verification ({rejected})"
        if down:
            return f"the package store {self.address} did not answer ({down})"
        if lacking:
            return f"the package store {self.address} does not hold it ({lacking})"
        return f"the package store {self.address} does not hold it"

    def label(self, key: ModuleKey) -> str:
        """How reports name the module package at ``key``: its call and version
        (:meth:`name_module`), else its origin at its identity (a commit, a checksum)."""
        with self._lock:
            name = self._names.get(key)
        return name or f"{key.origin} at {key.identity[:12] if len(key.identity) == 40 else key.identity}"

    def _rejected(self, label: str, why: str, where: tuple[str, str]) -> None:
        """Record that the artifact at ``where`` (repository, tag) is not the package
        ``label``: reported once, never read again this run, replaced by a push."""
        with self._lock:
            self._poisoned.add(where)
            if all(lbl != label for lbl, _ in self.report.rejected):
                self.report.rejected.append((label, why))

    def _was_rejected(self, label: str) -> bool:
        with self._lock:
            return any(lbl == label for lbl, _ in self.report.rejected)

    def _lacks(self, label: str, why: str) -> None:
        with self._lock:
            self._lacking.setdefault(label, why)

    # ------------------------------------------------------------------ modules

    def read_module(self, key: ModuleKey, dest: Path) -> bool:
        """Fill the empty directory ``dest`` with the package at ``key`` from the store,
        when the lock records an ``h1:`` for it and the artifact's contents hash to one of
        them. False (``dest`` left empty) on a miss, a store that does not answer, or an
        artifact that fails OpenTofu's module package checks or the ``h1:``; never raises
        for the store's sake."""
        with self._lock:
            expected = self._modules.get(key)
        if expected is None or not self._available():
            return False
        return self._read_module(key, dest, tuple(h for h in expected[0] if h.startswith("h1:"))) is None

    def _read_module(self, key: ModuleKey, dest: Path, h1s: tuple[str, ...],
                     installing: bool = True) -> PackageOutcome | None:
        """:meth:`read_module`'s work: None when ``dest`` holds the verified package, else
        what the store holds instead (missing, rejected); ``installing``: the package is
        installed from it, and counts as read from the store this run (a check's is not)."""
        repository, label = key.repository(self.address), self.label(key)
        if self._was_rejected(label):
            return PackageOutcome(label, StoreOutcome.REJECTED, self._rejection(label))
        layer = ""
        try:
            art = self.client.resolve(self.address.host, repository, key.tag)
            layer = art.layer_digest
            data = self.client.download(self.address.host, repository, art, dest)
        except (OciError, IntegrityError) as e:
            if isinstance(e, IntegrityError) and layer:
                with self._lock:
                    self._corrupt.add((repository, layer))
            self._rejected(label, f"{e.summary}: {e.detail}", (repository, key.tag))
            return PackageOutcome(label, StoreOutcome.REJECTED, f"{e.summary}: {e.detail}")
        except NetworkError as e:
            if e.summary != "OCI artifact not found":
                self._went_down(e)
                return PackageOutcome(label, StoreOutcome.MISSING, f"the store did not answer ({e.summary})")
            self._lacks(label, f"no tag {key.tag} in {repository}")
            return PackageOutcome(label, StoreOutcome.MISSING, f"no tag {key.tag} in {repository}")
        try:
            extract_archive(data, "zip", dest, self.limits)
            got = hash_dir(dest, exclude=VCS_DIRS)
        except TofuSolveError as e:
            _empty(dest)
            self._rejected(label, f"{e.summary}: {e.detail}", (repository, key.tag))
            return PackageOutcome(label, StoreOutcome.REJECTED, f"{e.summary}: {e.detail}")
        if got not in h1s:
            _empty(dest)
            why = f"its contents hash to {got}, the lock records {', '.join(h1s)}"
            self._rejected(label, why, (repository, key.tag))
            return PackageOutcome(label, StoreOutcome.REJECTED, why)
        if installing:
            with self._lock:
                self._from_store.add(key)
                if label not in self.report.read:
                    self.report.read.append(label)
        return None

    def _rejection(self, label: str) -> str:
        with self._lock:
            return next((why for lbl, why in self.report.rejected if lbl == label), "")

    def check_module(self, key: ModuleKey, h1s: tuple[str, ...], scratch: Path) -> PackageOutcome:
        """Read the module package at ``key`` into ``scratch`` (an empty directory, emptied
        again after) and verify it against ``h1s`` exactly as ``init`` would: VERIFIED,
        MISSING or REJECTED (with what differed). A module package is small, so ``store
        push`` checks it this way too, and replaces what fails."""
        label = self.label(key)
        if not self._available():
            return PackageOutcome(label, StoreOutcome.MISSING, f"the store did not answer ({self.report.down})")
        try:
            found = self._read_module(key, scratch, h1s, installing=False)
        finally:
            _empty(scratch)
        return found or PackageOutcome(label, StoreOutcome.VERIFIED)

    def push_module(self, key: ModuleKey, root: Path, h1: str, version: str = "") -> None:
        """Push the verified package at ``root`` (hashing to ``h1``) in the background,
        unless it came from the store, is being pushed, or pushing is off. When the store's
        blob of the package's zip failed verification this run, the zip carries a comment
        that names the corrupt digest, so that its digest is new and the tag is repaired."""
        if self.came_from_store(key) or not self._available():
            return
        label = self.label(key)
        annotations = {ANNOTATION + "origin": key.origin, ANNOTATION + "identity": key.identity,
                       ANNOTATION + "h1": h1}
        if version:
            annotations[ANNOTATION + "version"] = version
        repository = key.repository(self.address)

        def push() -> bool:
            data = package_zip(root)
            digest = "sha256:" + hashlib.sha256(data).hexdigest()
            with self._lock:
                corrupt = (repository, digest) in self._corrupt
            if corrupt:  # the registry's copy of this digest is not these bytes: other bytes, the same files
                data = package_zip(root, f"tofu-solve: the registry's {digest} was corrupt".encode())
            try:
                layer, uploaded = self.client.push_blob(self.address.host, repository, data)
            except StoredBlobCorrupt:
                data = package_zip(root, f"tofu-solve: the registry's {digest} was corrupt".encode())
                layer, uploaded = self.client.push_blob(self.address.host, repository, data)
            config, _ = self.client.push_blob(self.address.host, repository, EMPTY_JSON)
            body = _image_manifest(MODULE_ARTIFACT, layer, config, annotations)
            return self._put_unless_present(repository, key.tag, body, IMAGE_MANIFEST) or uploaded
        self._background(label, push)

    def _put_unless_present(self, repository: str, tag: str, body: bytes, media: str) -> bool:
        """Write the manifest under ``tag`` unless the tag already names a manifest that did
        not fail verification this run (first writer wins: a tag is never turned to other
        contents, but an artifact that failed verification is replaced); True when written."""
        with self._lock:
            poisoned = (repository, tag) in self._poisoned
        present = self.client.has_manifest(self.address.host, repository, tag, media)
        if present is not None and (not poisoned or present == "sha256:" + hashlib.sha256(body).hexdigest()):
            return False
        self.client.push_manifest(self.address.host, repository, tag, body, media)
        return True

    def _background(self, label: str, job: Callable[[], bool]) -> None:
        """Run the push ``job`` (True when it uploaded or wrote anything) in the background,
        once per package label; its outcome goes to the report."""
        with self._lock:
            if self.report.read_only or label in self._pushing:
                return

        def run() -> None:
            with self._slots:
                if not self._available():
                    return
                with self._lock:
                    if self.report.read_only:
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
                    with self._lock:
                        self.report.unrepaired.append((label, f"{e.detail} {REPAIR_ADVICE}"))
                    return
                except PushRefused as e:
                    if e.status in (401, 403):
                        with self._lock:
                            self.report.read_only = f"the credentials found may not write ({e.detail})"
                    else:
                        with self._lock:
                            self.report.not_pushed.append(f"{label} ({e.detail})")
                    return
                except NetworkError as e:
                    self._went_down(e)
                    return
                except (OSError, TofuSolveError) as e:
                    with self._lock:
                        self.report.not_pushed.append(f"{label} ({e.summary if isinstance(e, TofuSolveError) else e})")
                    return
                if wrote:
                    with self._lock:
                        self.report.pushed.append(label)
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
                with self._lock:
                    self.report.not_pushed.append(f"{label} (still pushing after {self.grace:g} s)")
        return self.report

    # ------------------------------------------------------------------ providers

    def _provider_index(self, key: ProviderKey) -> list[dict]:
        """The ``provider-target`` entries of a provider version's index, checked as
        OpenTofu's ``oci_mirror`` checks it (``internal/getproviders/
        oci_registry_mirror_source.go``): the tag names an index of ``artifactType``
        ``application/vnd.opentofu.provider``; entries of other artifact types are ignored,
        and each entry of that type has a platform.

        Raises:
            _Lacking: no tag for the version.
            _Rejected: not in OpenTofu's format (the reason in OpenTofu's words).
            NetworkError: the store failed.
        """
        repository = key.repository(self.address) or ""
        try:
            body, _, media = self.client.manifest(self.address.host, repository, key.tag, IMAGE_INDEX)
        except NetworkError as e:
            if e.summary == "OCI artifact not found":
                raise _Lacking(f"no tag {key.tag} in {repository}") from None
            raise
        except OciError as e:
            raise _Rejected(e.detail) from None
        try:
            index = json.loads(body)
            if not isinstance(index, dict):
                raise ValueError
        except ValueError:
            raise _Rejected(f"the tag {key.tag} names a manifest that is not JSON") from None
        artifact = index.get("artifactType")
        if artifact != PROVIDER_ARTIFACT:
            why = {PROVIDER_TARGET: "the tag refers directly to an image manifest, but OpenTofu providers require an "
                                    "index manifest for multi-platform support",
                   MODULE_ARTIFACT: "the tag names an OpenTofu module package, not a provider package",
                   None: "the tag names a manifest with no artifactType (an OpenTofu provider index has "
                         f"{PROVIDER_ARTIFACT!r}); a tool that copied it may have dropped it"
                   }.get(artifact, f"unsupported OCI artifact type {artifact!r}")
            raise _Rejected(why)
        if (index.get("mediaType") or media) != IMAGE_INDEX:
            raise _Rejected(f"unsupported media type {index.get('mediaType') or media!r} for OCI index manifest")
        entries = [m for m in index.get("manifests") or [] if isinstance(m, dict)
                   and m.get("artifactType") == PROVIDER_TARGET]
        if any(not isinstance(m.get("platform"), dict) for m in entries):
            raise _Rejected("provider image manifest lacks the required platform constraints")
        if not entries and index.get("manifests"):
            raise _Rejected("provider image manifest has unsupported artifact type; the index lists no "
                            f"{PROVIDER_TARGET!r} manifest")
        return entries

    def _provider_layer(self, key: ProviderKey, platform: str) -> dict:
        """The zip layer's descriptor of ``platform``'s package, found as OpenTofu's
        ``oci_mirror`` finds it: in :meth:`_provider_index`'s entries exactly one has the
        platform; its image manifest's one layer of ``artifactType``
        ``application/vnd.opentofu.providerpkg`` is ``archive/zip``.

        Raises:
            _Lacking: no tag for the version, or no package for the platform.
            _Rejected: not in OpenTofu's format (the reason in OpenTofu's words).
            NetworkError: the store failed.
        """
        repository = key.repository(self.address) or ""
        host = self.address.host
        entries = self._provider_index(key)
        os_name, _, arch = platform.partition("_")
        listed = sorted(f"{m['platform'].get('os')}_{m['platform'].get('architecture')}" for m in entries)
        matching = [m for m in entries if m["platform"].get("os") == os_name
                    and m["platform"].get("architecture") == arch and not m["platform"].get("os.version")]
        if not matching:
            raise _Lacking(f"its index has no {platform} package" + (f" (it has {', '.join(listed)})" if listed
                                                                      else ""))
        if len(matching) > 1:
            raise _Rejected(f"ambiguous manifest has multiple descriptors for platform {platform}")
        if matching[0].get("mediaType") != IMAGE_MANIFEST:
            raise _Rejected(f"provider image manifest has unsupported media type {matching[0].get('mediaType')!r}")
        try:
            body, _, _ = self.client.manifest(host, repository, str(matching[0].get("digest")), IMAGE_MANIFEST)
            manifest = json.loads(body)
        except OciError as e:
            raise _Rejected(e.detail) from None
        except ValueError:
            raise _Rejected("the platform's manifest is not JSON") from None
        except NetworkError as e:
            if e.summary == "OCI artifact not found":
                raise _Rejected(f"its index names the {platform} manifest {matching[0].get('digest')}, which the "
                                "repository does not have") from None
            raise
        if not isinstance(manifest, dict) or manifest.get("artifactType") != PROVIDER_TARGET:
            found = manifest.get("artifactType") if isinstance(manifest, dict) else None
            raise _Rejected(f"unexpected artifact type {found!r}")
        layers = [la for la in manifest.get("layers") or [] if isinstance(la, dict)
                  and la.get("artifactType") == PROVIDER_PACKAGE]
        zips = [la for la in layers if la.get("mediaType") == ZIP_LAYER]
        if len(zips) > 1:
            raise _Rejected("manifest specifies more than one provider package")
        if not zips:
            if layers:
                raise _Rejected(f"provider package has unsupported media type {layers[0].get('mediaType')!r}")
            raise _Rejected("no suitable provider package declared in artifact manifest (a layer of "
                            f"artifactType {PROVIDER_PACKAGE!r} and media type {ZIP_LAYER!r})")
        return zips[0]

    def read_provider(self, key: ProviderKey, platform: str) -> tuple[bytes, str] | None:
        """The zip of a provider package for ``platform`` (``os_arch``) from the store and
        the hash of the lock it matched (``zh:`` of the zip), or None: no lock hashes for
        the version, a miss (what it lacked is kept for :meth:`why_not`), a store that does
        not answer, or a package that is not in OpenTofu's format or none of the lock's
        ``zh:`` hashes verifies (reported once). The caller checks an ``h1:``-only lock
        against the unpacked package."""
        with self._lock:
            hashes = self._providers.get(key)
        repository = key.repository(self.address)
        label = provider_label(key, platform)
        if hashes is None or repository is None or not self._available() or self._was_rejected(label):
            return None
        digest = ""
        try:
            layer = self._provider_layer(key, platform)
            digest = str(layer.get("digest"))
            zh = "zh:" + digest.removeprefix("sha256:")
            if digest.startswith("sha256:") and zh not in hashes and not any(h.startswith("h1:") for h in hashes):
                raise _Rejected(f"its zip is {zh}, which the lock does not record")  # known before a byte is read
            data = self.client.blob(self.address.host, repository, digest, int(layer.get("size", -1)),
                                    "the provider package")
        except _Lacking as e:
            self._lacks(label, str(e))
            return None
        except _Rejected as e:
            self._rejected(label, str(e), (repository, key.tag))
            return None
        except (OciError, IntegrityError) as e:
            if isinstance(e, IntegrityError) and digest:
                with self._lock:
                    self._corrupt.add((repository, digest))
            self._rejected(label, f"{e.summary}: {e.detail}", (repository, key.tag))
            return None
        except NetworkError as e:
            self._went_down(e)
            return None
        except (ValueError, TypeError) as e:
            self._rejected(label, f"not an OpenTofu provider package ({e})", (repository, key.tag))
            return None
        zh = "zh:" + hashlib.sha256(data).hexdigest()
        if zh not in hashes and not any(h.startswith("h1:") for h in hashes):
            self._rejected(label, f"its zip is {zh}, which the lock does not record", (repository, key.tag))
            return None
        return data, zh

    def check_provider(self, key: ProviderKey, platform: str, scratch: Path) -> PackageOutcome:
        """Read ``platform``'s package of a provider version from the store and verify it as
        ``init`` would (:meth:`read_provider`, then the zip unpacked into ``scratch``, an
        empty directory emptied again after: its ``zh:`` or its ``h1:`` must be one the
        lock records): VERIFIED, MISSING or REJECTED, with what differed."""
        label = provider_label(key, platform)
        got = self.read_provider(key, platform)
        if got is None:
            with self._lock:
                rejected = next((why for lbl, why in self.report.rejected if lbl == label), None)
                down, lacking = self.report.down, self._lacking.get(label, "")
            if rejected is not None:
                return PackageOutcome(label, StoreOutcome.REJECTED, rejected)
            if down:
                return PackageOutcome(label, StoreOutcome.MISSING, f"the store did not answer ({down})")
            return PackageOutcome(label, StoreOutcome.MISSING, lacking or "the lock records no hash for it")
        data, zh = got
        hashes = self.provider_hashes(key)
        try:
            extract_archive(data, "zip", scratch, self.limits)
            h1 = hash_dir(scratch)
        except TofuSolveError as e:
            why = f"{e.summary}: {e.detail}"
            self._rejected(label, why, (key.repository(self.address) or "", key.tag))
            return PackageOutcome(label, StoreOutcome.REJECTED, why)
        finally:
            _empty(scratch)
        if zh not in hashes and h1 not in hashes:
            why = f"its zip is {zh} and unpacks to {h1}, neither of which the lock records"
            self._rejected(label, why, (key.repository(self.address) or "", key.tag))
            return PackageOutcome(label, StoreOutcome.REJECTED, why)
        return PackageOutcome(label, StoreOutcome.VERIFIED)

    def provider_complete(self, key: ProviderKey, platform: str) -> PackageOutcome:
        """Whether the store holds ``platform``'s package of a provider version in OpenTofu's
        format, its zip's digest one of the lock's ``zh:`` hashes and the blob there at its
        size (``HEAD``: the bytes are read by ``store verify``): COMPLETE, MISSING or
        REJECTED. ``store push`` pushes what is not COMPLETE."""
        label = provider_label(key, platform)
        repository = key.repository(self.address) or ""
        with self._lock:
            hashes = self._providers.get(key, ())
        if not self._available():
            return PackageOutcome(label, StoreOutcome.MISSING, f"the store did not answer ({self.report.down})")
        try:
            layer = self._provider_layer(key, platform)
            digest, size = str(layer.get("digest")), int(layer.get("size", -1))
            if hashes and any(h.startswith("zh:") for h in hashes) and \
                    "zh:" + digest.removeprefix("sha256:") not in hashes:
                raise _Rejected(f"its zip is {digest}, which the lock does not record")
            stored = self.client.blob_size(self.address.host, repository, digest)
        except _Lacking as e:
            return PackageOutcome(label, StoreOutcome.MISSING, str(e))
        except _Rejected as e:
            self._rejected(label, str(e), (repository, key.tag))
            return PackageOutcome(label, StoreOutcome.REJECTED, str(e))
        except NetworkError as e:
            self._went_down(e)
            return PackageOutcome(label, StoreOutcome.MISSING, f"the store did not answer ({e.summary})")
        if stored is None:
            return PackageOutcome(label, StoreOutcome.MISSING, f"its zip {digest} is not in {repository}")
        if stored not in (-1, size):
            why = f"Corrupt OCI blob: {repository}@{digest} is {stored} bytes, its descriptor says {size}"
            self._rejected(label, why, (repository, key.tag))
            with self._lock:
                self._corrupt.add((repository, digest))
                self.report.unrepaired.append((label, f"{repository}@{digest}: {why}. {REPAIR_ADVICE}"))
            return PackageOutcome(label, StoreOutcome.REJECTED, why)
        return PackageOutcome(label, StoreOutcome.COMPLETE)

    def stored_platforms(self, key: ProviderKey) -> tuple[dict[str, str], str]:
        """The platforms the store's index lists for a provider version, each with its
        zip's ``zh:`` hash (from its manifest's layer digest; "" for a platform whose
        manifest is not in OpenTofu's format), and why the index as a whole was rejected
        ("" when it was not). ({}, "") when there is no index. Raises NetworkError."""
        label = f"provider {key.hostname}/{key.namespace}/{key.type} {key.version}"
        try:
            entries = self._provider_index(key)
        except _Lacking:
            return {}, ""
        except _Rejected as e:
            self._rejected(label, str(e), (key.repository(self.address) or "", key.tag))
            return {}, str(e)
        out: dict[str, str] = {}
        for m in entries:
            platform = f"{m['platform'].get('os')}_{m['platform'].get('architecture')}"
            try:
                out[platform] = "zh:" + str(self._provider_layer(key, platform).get("digest")).removeprefix("sha256:")
            except (_Lacking, _Rejected):
                out[platform] = ""
        return out, ""

    def provider_versions(self, address: ProviderAddress) -> list[str]:
        """The versions the store holds for a provider: its repository's tags that are
        versions (``_`` read as ``+``, as OpenTofu's ``oci_mirror`` reads them), for a run
        whose registry cannot be reached; [] on a miss or a store that does not answer."""
        key = ProviderKey(address.host, address.namespace, address.type, "")
        repository = key.repository(self.address)
        if repository is None or not self._available():
            return []
        try:
            tags = self.client.tags(self.address.host, repository)
        except NetworkError as e:
            if e.summary != "OCI repository not found":
                self._went_down(e)
            return []
        return [t.replace("_", "+") for t in tags if _VERSION_TAG.fullmatch(t)]

    def provider_read(self, key: ProviderKey, platform: str, verified: bool, why: str = "") -> None:
        """Record the outcome of the caller's check of a package :meth:`read_provider` gave."""
        label = provider_label(key, platform)
        if verified:
            with self._lock:
                if label not in self.report.read:  # read ahead during the solve, then asked by the plan
                    self.report.read.append(label)
        else:
            repository = key.repository(self.address) or ""
            self._rejected(label, why, (repository, key.tag))

    def _index_lock(self, repository: str, tag: str) -> threading.Lock:
        with self._lock:
            return self._index_locks.setdefault((repository, tag), threading.Lock())

    def _add_to_index(self, repository: str, tag: str, digest: str, size: int, os_name: str, arch: str) -> bool:
        """Write the version's index with the platform manifest ``digest`` in it, keeping
        the other platforms it lists (a new index when there is none or it is not an
        OpenTofu provider index); True when written, False when it had this package."""
        host = self.address.host
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

    def provider_hashes(self, key: ProviderKey) -> tuple[str, ...]:
        """The hashes the lock records for a provider version (() when none)."""
        with self._lock:
            return self._providers.get(key, ())

    def offer_provider(self, key: ProviderKey, platform: str, zip_file: Path) -> None:
        """Hold the verified zip of ``platform`` (a file the store removes when done) until
        the run knows which versions its lock names: :meth:`publish_providers` pushes those,
        :meth:`finish` discards the rest (a version only read while solving is never pushed)."""
        if key.repository(self.address) is None or not self._available() or self.report.read_only:
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
        repository = key.repository(self.address)
        if repository is None or not self._available() or self.report.read_only:
            zip_file.unlink(missing_ok=True)
            return
        label = provider_label(key, platform)
        os_name, _, arch = platform.partition("_")

        read: list[bytes] = []  # the zip, read once (a retried push reads it from here)

        def push() -> bool:
            host = self.address.host
            if not read:
                try:
                    read.append(zip_file.read_bytes())
                finally:
                    zip_file.unlink(missing_ok=True)
            zip_bytes = read[0]
            layer, uploaded = self.client.push_blob(host, repository, zip_bytes)
            with self._lock:
                corrupt = (repository, layer["digest"]) in self._corrupt
            if corrupt and not uploaded:  # the registry's copy of this zh: is corrupt: only a deletion clears it
                raise StoredBlobCorrupt(repository, layer["digest"], "its bytes do not match its digest")
            config, _ = self.client.push_blob(host, repository, EMPTY_JSON)
            body = _image_manifest(PROVIDER_TARGET, layer, config, {}, PROVIDER_PACKAGE)
            digest = "sha256:" + hashlib.sha256(body).hexdigest()
            wrote = self.client.has_manifest(host, repository, digest, IMAGE_MANIFEST) is None
            if wrote:
                self.client.push_manifest(host, repository, digest, body, IMAGE_MANIFEST)
            with self._index_lock(repository, key.tag):  # one read-modify-write at a time in this run
                indexed = self._add_to_index(repository, key.tag, digest, len(body), os_name, arch)
            return uploaded or wrote or indexed
        self._background(label, push)


def open_store(address: StoreAddress | None, env: Mapping[str, str], limits: Limits,
               counter: OpCounter | None = None, offline: bool = False,
               configured: Mapping[str, tuple[str, str]] | None = None) -> PackageStore | None:
    """The run's store, or None (no address, or ``-offline``). ``env`` gives the credentials
    (Docker-style config files, as for OCI module sources), ``TOFU_SOLVE_PACKAGE_STORE_PUSH``
    and ``TOFU_SOLVE_PACKAGE_STORE_GRACE`` (seconds); ``configured``: the CLI configuration's
    ``oci_credentials`` blocks, which come first."""
    if address is None or offline:
        return None
    push = env.get(PUSH_VARIABLE, "true").strip().lower() not in ("false", "0", "no", "off")
    try:
        grace = float(env.get(GRACE_VARIABLE, "") or PUSH_GRACE)
    except ValueError:
        raise ConfigurationError("Invalid package store grace",
                                 f"{GRACE_VARIABLE} must be a number of seconds.") from None
    client = OciClient(env, counter, timeout=STORE_TIMEOUT, limits=limits, store_retries=True,
                       configured=configured)
    return PackageStore(address, client, push=push, limits=limits, grace=max(0.0, grace))
