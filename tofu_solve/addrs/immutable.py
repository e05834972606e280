"""Immutable package addresses: the ``package`` a module lock entry pins (issue #25).

A tag, a branch or a registry version can be moved; a git commit, an OCI manifest digest
and an archive whose address carries its ``checksum`` cannot. OpenTofu's draft RFC for
module installation (opentofu/opentofu PR #4071) calls the second form the
"immutability-transformed" address and records it beside the hashes of each module lock
entry; a source that has no such form is recorded as ``floating = true``.

* :func:`immutable_address`: the form of an address once it was fetched at a commit or
  digest, or None when it has none.
* :func:`pinned_reference`: the commit or digest an immutable address names.
* :func:`package_problem`: why a lock file's ``package`` value is not one (hostile input).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

from ..errors import TofuSolveError
from .module_source import OciSource, RemoteSource, SourceKind, parse_source
from .redact import redact

GIT_COMMIT_RE = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # SHA-1 or SHA-256 object names
OCI_DIGEST_RE = re.compile(r"sha256:[0-9a-f]{64}")


def immutable_address(address: str, reference: str | None) -> str | None:
    """The immutable form of the package ``address`` (a go-getter or ``oci://`` address,
    subdirectory included) fetched at ``reference`` (a git commit, or an OCI manifest
    digest ``sha256:...``), redacted (:func:`~tofu_solve.addrs.redact.redact`):

    * git: the address with ``?ref=<commit>`` (any other ``ref`` replaced);
    * OCI: ``oci://host/repo[//sub]?digest=<digest>`` (a ``tag`` dropped);
    * an http(s) archive whose address carries ``checksum=``: the address itself, whose
      content go-getter verifies on every download.

    None when there is no immutable form: an archive without a checksum, ``s3::``/``gcs::``
    (no object version is recorded), a ``file://`` directory, or a git or OCI package
    whose commit or digest is unknown. Never raises: an unparsable address has none.
    """
    try:
        src = parse_source(address)
    except TofuSolveError:
        return None
    if isinstance(src, OciSource):
        if not reference or not OCI_DIGEST_RE.fullmatch(reference):
            return None
        return redact(str(OciSource(src.registry, src.repository, "", reference, src.subdir)))
    if not isinstance(src, RemoteSource):
        return None
    if src.kind is SourceKind.GIT:
        if not reference or not GIT_COMMIT_RE.fullmatch(reference):
            return None
        return redact(str(src.with_ref(reference)))
    if src.kind is SourceKind.HTTP and _query(src.package).get("checksum"):
        return redact(str(src))
    return None


def pinned_reference(package: str) -> str | None:
    """The git commit or OCI manifest digest an immutable address names, or None (an
    archive pinned by its checksum, or not an immutable address)."""
    try:
        src = parse_source(package)
    except TofuSolveError:
        return None
    if isinstance(src, OciSource):
        return src.digest or None
    if isinstance(src, RemoteSource) and src.kind is SourceKind.GIT:
        ref = src.git.ref
        return ref if GIT_COMMIT_RE.fullmatch(ref or "") else None
    return None


def package_identity(package: str) -> str | None:
    """What an immutable package address names, wherever it is served from (issue #34: a
    repository that moved host keeps its commits): ``git:<commit>//<subdir>``,
    ``oci:<digest>//<subdir>``, ``checksum:<type:value>`` for an archive pinned by its
    checksum; None for anything else. Two addresses with the same identity name the same
    contents; the lock's ``h1:`` still checks them."""
    try:
        src = parse_source(package)
    except TofuSolveError:
        return None
    if isinstance(src, OciSource):
        return f"oci:{src.digest}//{src.subdir}" if src.digest else None
    if not isinstance(src, RemoteSource):
        return None
    if src.kind is SourceKind.GIT:
        ref = src.git.ref or ""
        return f"git:{ref}//{src.subdir}" if GIT_COMMIT_RE.fullmatch(ref) else None
    checksum = _query(src.package).get("checksum") if src.kind is SourceKind.HTTP else None
    return f"checksum:{checksum}//{src.subdir}" if checksum else None


def package_problem(package: str) -> str | None:
    """Why ``package`` (a lock file's value) is not an immutable package address, or None
    when it is one. Refused: anything that does not parse as a remote module source; a git
    address whose ``ref`` is not a full commit name; an OCI address without a digest or
    with a tag; any other address without ``checksum=``; an address holding a credential
    (a lock file never holds one)."""
    try:
        src = parse_source(package)
    except TofuSolveError as e:
        return f"{package!r} is not a module package address: {e.detail}"
    if redact(package) != package:
        return "it holds a credential, which a lock file never records"
    if isinstance(src, OciSource):
        if src.tag or not OCI_DIGEST_RE.fullmatch(src.digest or ""):
            return "an OCI package is pinned by ?digest=sha256:<64 hex>, without a tag"
        return None
    if not isinstance(src, RemoteSource):
        return "a local path has no package to pin"
    if src.kind is SourceKind.GIT:
        if not GIT_COMMIT_RE.fullmatch(src.git.ref or ""):
            return "a git package is pinned by ?ref=<full commit id>"
        return None
    if src.kind is SourceKind.HTTP and _query(src.package).get("checksum"):
        return None
    return "only a git commit, an OCI digest or an archive with checksum= is immutable"


def _query(package: str) -> dict[str, str]:
    url = package.split("::", 1)[-1] if "::" in package.split("://", 1)[0] else package
    return dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))
