"""Where a package lives in the store (issue #49): :class:`ModuleKey` for a module package
(its origin and its identity, a git commit or an archive checksum) and :class:`ProviderKey`
for a provider version, each with its repository and tag; and how reports name them."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from ..._lazy import load
from ...addrs.module_source import OciSource, RemoteSource, SourceKind, parse_source, source_dir_subdir
from ...addrs.redact import redact
from ...errors import TofuSolveError
from .address import COMPONENT, StoreAddress

VERSION_TAG = re.compile(r"(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)"
                         r"(?:-[0-9A-Za-z.-]+)?(?:_[0-9A-Za-z.-]+)?")  # semver, "+" written "_"


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
    from ...addrs.immutable import GIT_COMMIT_RE

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
        return store.repository("providers", *parts) if all(COMPONENT.fullmatch(p) for p in parts) else None

    @property
    def tag(self) -> str:
        return self.version.replace("+", "_")



def provider_label(key: ProviderKey, platform: str) -> str:
    """How reports name a provider package: ``provider HOST/NS/TYPE VERSION (OS_ARCH)``."""
    return f"provider {key.hostname}/{key.namespace}/{key.type} {key.version} ({platform})"
