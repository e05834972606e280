"""Fetching module packages named by go-getter addresses into the cache.

Supported: git (``git::URL?ref=``, ``git://``, GitHub shorthand after normalization), http(s)
archives (zip, tar.gz/tgz, tar.xz/txz, tar.bz2/tbz2, detected from the URL or
``?archive=``; other URLs are followed through ``X-Terraform-Get`` / ``<meta
name="terraform-get">`` at most 10 times, as go-getter does), and ``file://`` directories.
``s3::``, ``gcs::`` and ``hg::`` packages are understood as addresses but cannot be fetched by
tofu-solve (a clear error says so).

Archives are extracted safely: entries with absolute paths, ``..`` components, or links that
point outside the package are refused (zip-slip).
"""

from __future__ import annotations

import binascii
import hashlib
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from ..addrs.immutable import GIT_COMMIT_RE
from ..addrs.module_source import OciSource, RemoteSource, SourceKind, parse_source
from ..addrs.redact import redact
from ..config.files import PackageFiles
from ..errors import ChecksumMismatch, IntegrityError, NetworkError, OfflineError, TofuSolveError, TruncatedDownload
from ..store.cache import Cache
from .archives import extract_archive, sniff_archive
from .flight import SingleFlight
from .git import FetchAborted, GitRemotes, RemoteRef
from .limits import MAX_REDIRECTS, Limits, describe_failure, read_bounded, read_document
from .ops import OpCounter, lazy_import
from .package_store.keys import git_base, module_key
from .package_store.store import PackageStore

if TYPE_CHECKING:
    import requests
else:
    requests = lazy_import("requests")  # loaded on first use: no network, no import

ARCHIVE_EXTS = ("tar.gz", "tgz", "tar.xz", "txz", "tar.bz2", "tbz2", "zip", "gz", "bz2", "xz")


log = logging.getLogger(__name__)


class UnsupportedSourceError(TofuSolveError):
    """A source address tofu-solve understands but cannot download (s3, gcs, hg)."""


@dataclass(frozen=True)
class FetchedPackage:
    """A package extracted in the cache.

    Attributes:
        path: the package root directory (read-only by convention).
        package: the package address it was fetched from (credentials kept out of it only
            if the address had none).
        pinned: the same address pinned to what was fetched (a git commit for ``?ref=``
            branches); used in lock entries.
        commit: the git commit, for git packages.
    """

    path: Path
    package: str
    pinned: str
    commit: str | None = None
    zh: str | None = None  # "zh:<sha256 of the archive>" when the package came as an archive


class Fetcher:
    """Fetches packages into a :class:`Cache` (one fetch per package and commit)."""

    def __init__(self, cache: Cache, git_remotes: GitRemotes, session: requests.Session,
                 counter: OpCounter | None = None, timeout: float = 60.0, offline: bool = False,
                 fresh_refs: bool = False, limits: Limits | None = None, store: PackageStore | None = None):
        self.store = store  # the package store on an OCI registry (issue #49), or None
        self.limits = limits or Limits()
        self.offline = offline
        self.fresh_refs = fresh_refs
        self.cache = cache
        self.git = git_remotes
        self.session = session
        self.counter = counter or OpCounter()
        self.timeout = timeout
        self._once = SingleFlight(remember_errors=False)  # one fetch per address and commit, however many calls want it
        self._aborted = False

    def abort(self) -> None:
        """Stop the downloads and git fetches still running and refuse new ones: the run no
        longer needs them (read-ahead in flight when the solve is done, issue #13). A
        download stops at its next chunk; nothing partial reaches the cache (packages are
        unpacked into a temporary directory and renamed only when complete)."""
        self._aborted = True
        self.git.abort()

    def fetch(self, address: str, commit: str | None = None) -> FetchedPackage:
        """Fetch the package of a go-getter address (any subdir in it is ignored; callers
        keep the subdir), once per run for each address and commit: the submodules of one
        package version share one fetch. Raises NetworkError, UnsupportedSourceError,
        IntegrityError."""
        return self._once((address, commit), lambda: self._fetch_address(address, commit))

    def has_git_package(self, address: str, commit: str) -> bool:
        """Whether the git package at ``address`` is unpacked in this machine's cache at
        ``commit`` (verified when it was put there); False for any other address."""
        try:
            src = parse_source(address)
        except TofuSolveError:
            return False
        if not isinstance(src, RemoteSource) or src.kind is not SourceKind.GIT:
            return False
        return self.cache.package_dir(_git_base(src), commit).is_dir()

    def config_files(self, address: str, commit: str | None = None) -> tuple[PackageFiles, str] | None:
        """The configuration files of a git package and its commit, read into memory without
        unpacking the package (:meth:`GitRemotes.config_files`), for a module version the
        solver reads but may never install (issue #23); once per run for each address and
        commit. None when the address is not a git one, when the package is already unpacked
        in the cache (read it there), or when it holds links: :meth:`fetch` it then. Raises
        as :meth:`fetch` does."""
        return self._once((address, commit, "config"), lambda: self._config_files(address, commit))

    def _config_files(self, address: str, commit: str | None) -> tuple[PackageFiles, str] | None:
        src = parse_source(address)
        if not isinstance(src, RemoteSource) or src.kind is not SourceKind.GIT:
            return None
        base = _git_base(src)
        if commit and self.cache.package_dir(base, commit).is_dir():
            return None
        ref = self._git_ref(src, commit)
        if self.cache.package_dir(base, ref.commit).is_dir():
            return None
        files = self.git.config_files(src.git.url, ref)
        return None if files is None else (files, ref.commit)

    def _git_ref(self, src: RemoteSource, commit: str | None):
        """The commit a git address names (its ``ref``, else the default branch), checked
        against ``commit`` when the lock records one.

        Raises:
            IntegrityError: "Moved git tag", the remote points the ref elsewhere.
            NetworkError: listing or fetching fails.
        """
        g = src.git
        ref = None
        if g.ref and GIT_COMMIT_RE.fullmatch(g.ref) and commit in (None, g.ref):
            # a commit id (a lock's package, issue #25): fetched by its id, nothing to list
            return RemoteRef(g.ref, g.ref)
        by_name, first = self.git.before_listing(g.url) if not commit and g.ref else (False, False)
        if by_name:
            # The registry (or the address) named the tag: fetch it at once and list the
            # remote beside it, off the critical path (moved tags are still detected).
            if first:
                self.git.list_in_background(g.url)
            ref = self.git.fetch_tag(g.url, g.ref)
        if ref is None:
            ref = self.git.resolve(g.url, g.ref, fresh=self.fresh_refs)
        if commit and ref.commit != commit:
            raise IntegrityError(
                "Moved git tag",
                f'The lock file records {g.ref or "the default branch"} of {redact(g.url)} at commit {commit}, '
                f"but the remote now points it at {ref.commit}: the tag was moved. If the new commit is "
                "intended, review it, then accept it at the same tag with: tofu-solve init -accept-checksum=CALL "
                "(the module call cited here)")
        return ref

    def _fetch_address(self, address: str, commit: str | None) -> FetchedPackage:
        src = parse_source(address)
        if isinstance(src, OciSource):
            raise UnsupportedSourceError("OCI packages are not supported yet",
                                         f"Cannot fetch {redact(str(src))}: OCI module packages arrive in a later "
                                         "release of tofu-solve.")
        if not isinstance(src, RemoteSource):
            raise TofuSolveError("Not a remote package", f"{address} is not a remote module package address.")
        return self._fetch_remote(src, 0, commit)

    def _fetch_remote(self, src: RemoteSource, depth: int, commit: str | None = None) -> FetchedPackage:
        kind = src.kind
        if kind is SourceKind.GIT:
            g = src.git
            base = _git_base(src)
            key = module_key(base, commit) if commit and self.store is not None else None
            if key is not None and self.store is not None and self.store.ledger.expects(key) and commit:
                # the lock names this commit: the store first, verified against the lock's
                # h1:, then the origin (no listing of the remote either way)
                store, known = self.store, commit

                def from_store_or_origin(d: Path) -> None:
                    if store.reader.read_module(key, d):
                        return
                    try:
                        self.git.export(g.url, self._git_ref(src, known), d)
                    except NetworkError as e:  # both places named (issue #49)
                        label = store.ledger.label(key)
                        why = store.ledger.why_not(label)
                        raise NetworkError(e.summary, f"{e.detail}\nThe locked package {label} could not come from "
                                           f"the package store either: {why}.", e.where, e.url) from None
                path = self.cache.ensure_package(base, commit, from_store_or_origin)
                return FetchedPackage(path, src.package, src.package, commit)
            if commit and self.cache.package_dir(base, commit).is_dir():
                # checked against the hash it was stored with; fetched again by its id if damaged
                path = self.cache.ensure_package(base, commit,
                                                 lambda d: self.git.export(g.url, RemoteRef(commit, commit), d))
                return FetchedPackage(path, src.package, src.package, commit)
            ref = self._git_ref(src, commit)
            path = self.cache.ensure_package(base, ref.commit, lambda d: self.git.export(g.url, ref, d))
            pinned = src.package if g.ref else src.with_ref(ref.commit).package
            return FetchedPackage(path, src.package, pinned, ref.commit)
        if kind is SourceKind.HTTP:
            if self.offline:
                path = self.cache.package_dir(src.package, "archive")
                if path.is_dir():
                    return FetchedPackage(path, src.package, src.package)
                raise OfflineError("Not available offline", f"{redact(src.package)} is not in the cache.")
            return self._fetch_http(src, depth)
        if kind is SourceKind.FILE:
            local = Path(urlsplit(src.package).path)
            if not local.is_dir():
                raise NetworkError("Module package not found", f"{local} is not a directory.")
            path = self.cache.ensure_package(src.package, "dir", lambda d: _copy_tree(local, d))
            return FetchedPackage(path, src.package, src.package)
        raise UnsupportedSourceError(
            f"Cannot fetch {kind.value} module packages",
            f"tofu-solve understands the address {redact(src.package)} but cannot download {kind.value} packages. "
            "Mirror the module to a git repository or a registry to lock it.")

    def _fetch_http(self, src: RemoteSource, depth: int) -> FetchedPackage:
        url = src.package.split("::", 1)[-1] if "::" in src.package.split("://", 1)[0] else src.package
        parts = urlsplit(url)
        query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)]
        forced = dict(query).get("archive")
        checksum = dict(query).get("checksum")
        kept = [(k, v) for k, v in query if k not in ("archive", "checksum")]
        clean = urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(kept), ""))
        ext = forced or next((e for e in ARCHIVE_EXTS if parts.path.endswith("." + e)), None)
        if ext is None:
            if depth >= MAX_REDIRECTS:
                raise NetworkError("Too many redirects", f"{redact(url)}: more than {MAX_REDIRECTS} terraform-get "
                                   "redirections.")
            probe = urlunsplit((parts.scheme, parts.netloc, parts.path,
                                urlencode(kept + [("terraform-get", "1")]), ""))
            r = self._get(probe, stream=True)
            target = r.headers.get("X-Terraform-Get")
            if target:
                r.close()
            else:  # the page is read bounded, as every answer is (size and overall deadline)
                page = read_document(r, self.limits, probe)
                target = terraform_get_meta(page.content.decode(page.encoding or "utf-8", errors="replace"))
            if not target:
                raise NetworkError("No module package found",
                                   f"{redact(url)} is not an archive and gave no X-Terraform-Get location.")
            target = urljoin(probe, target) if target.startswith(("/", "./", "../")) else target
            nxt = parse_source(target)
            if not isinstance(nxt, RemoteSource):
                raise NetworkError("Invalid module location", f"{redact(url)} pointed at {redact(target)}.")
            return self._fetch_remote(nxt, depth + 1)

        key = module_key(src.package) if checksum and self.store is not None else None

        def fill(dest: Path) -> None:
            if key is not None and self.store is not None and self.store.reader.read_module(key, dest):
                # verified against the lock's h1:; the lock's zh: of the origin's archive stands
                recorded = self.store.ledger.recorded_zh(key)
                if recorded:
                    self.cache.write_archive_hash(dest_key, recorded)
                return
            # A truncated download or a checksum mismatch is retried once, then reported.
            try:
                archive, sha = self.download(clean)
                if checksum:
                    _verify_checksum(checksum, archive, clean)
            except (TruncatedDownload, ChecksumMismatch):
                self.counter.add("http_retry")
                archive, sha = self.download(clean)
                if checksum:
                    _verify_checksum(checksum, archive, clean)
            try:
                extract_archive(archive, ext, dest, self.limits)
                self.cache.write_archive_hash(dest_key, sha)
            finally:
                archive.unlink(missing_ok=True)

        dest_key = (src.package, "archive")
        path = self.cache.ensure_package(src.package, "archive", fill)
        return FetchedPackage(path, src.package, src.package, zh=self.cache.archive_hash(dest_key))

    def download(self, url: str, headers: dict | None = None, max_bytes: int | None = None) -> tuple[Path, str]:
        """Stream ``url`` into a temporary file under the cache, bounded by
        ``limits.download_bytes`` (or ``max_bytes`` when smaller: a download made ahead of
        need, refused at once when the server announces more) and ``limits.deadline``.
        Returns (file, sha256 hex); the caller removes the file. Raises NetworkError."""
        if self._aborted:
            raise FetchAborted()
        r = self._get(url, stream=True, headers=headers)
        limit = self.limits.download_bytes if max_bytes is None else min(max_bytes, self.limits.download_bytes)
        announced = r.headers.get("Content-Length", "")
        if max_bytes is not None and announced.isdigit() and int(announced) > limit:
            r.close()
            raise NetworkError("Download too large", f"{redact(url)} is {announced} bytes, over the {limit} bytes "
                               "allowed for this download.", url=redact(url))
        tmp_dir = self.cache.tmp_dir()
        fd, name = tempfile.mkstemp(prefix="download-", dir=tmp_dir)
        path = Path(name)
        digest = hashlib.sha256()
        try:
            with os.fdopen(fd, "wb") as fh:
                def sink(chunk: bytes) -> None:
                    if self._aborted:
                        raise FetchAborted()
                    fh.write(chunk)
                    digest.update(chunk)
                try:
                    got = read_bounded(r, sink, limit, self.limits.deadline, url)
                except OSError as e:
                    raise self.cache.cache_error(e, path) from None
            expected = r.headers.get("Content-Length")
            if expected and r.headers.get("Content-Encoding", "identity") == "identity" and \
                    expected.isdigit() and int(expected) != got:
                raise TruncatedDownload("Truncated download", f"{redact(url)}: got {got} of {expected} bytes.")
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        return path, digest.hexdigest()

    def fetch_direct(self, url: str, headers: dict[str, str]) -> FetchedPackage:
        """A registry's v1.12 direct download: an archive whose format is sniffed (zip,
        tar.gz, tar.xz, tar.bz2), fetched with the given headers, bounded as every download
        is. Raises NetworkError, IntegrityError, OfflineError."""
        def fill(dest: Path) -> None:
            archive, sha = self.download(url, {
                "Accept": "application/zip, application/x-tar; *;q=0.1",
                "Accept-Encoding": "identity, gzip, *;q=0.1", **headers})
            try:
                with open(archive, "rb") as fh:
                    head = fh.read(8)
                extract_archive(archive, sniff_archive(head, url), dest, self.limits)
                self.cache.write_archive_hash((url, "direct"), sha)
            finally:
                archive.unlink(missing_ok=True)

        if self.offline and not self.cache.package_dir(url, "direct").is_dir():
            raise OfflineError("Not available offline", f"{redact(url)} is not in the cache.")
        path = self.cache.ensure_package(url, "direct", fill)
        return FetchedPackage(path, url, url, zh=self.cache.archive_hash((url, "direct")))

    def _get(self, url: str, stream: bool, headers: dict | None = None) -> requests.Response:
        self.counter.add("http_download")
        log.debug("GET %s (download)", redact(url))
        try:
            r = self.session.get(url, stream=stream, timeout=self.timeout, headers=headers or {})
        except requests.RequestException as e:
            raise NetworkError("Failed to download module package",
                               f"{describe_failure(e)} contacting {redact(url)}.", url=redact(url)) from None
        if r.status_code >= 400:
            raise NetworkError("Failed to download module package",
                               f"{redact(url)} answered {r.status_code}.", url=redact(url))
        return r


class _MetaFound(Exception):
    def __init__(self, content: str | None):
        self.content = content


class _TerraformGetMeta(HTMLParser):
    """go-getter's ``parseMeta`` (``get_http.go``): the ``content`` of the first ``<meta>``
    whose ``name`` is ``terraform-get``, looked for until ``<body>`` or ``</head>``; element
    and attribute names are case-insensitive, attributes in any order and quoted either way,
    entities decoded (``&amp;``)."""

    def handle_starttag(self, tag, attrs):
        if tag == "body":
            raise _MetaFound(None)
        if tag != "meta":
            return
        values: dict[str, str | None] = {}
        for k, v in attrs:
            values.setdefault(k, v)
        if values.get("name") == "terraform-get" and values.get("content"):
            raise _MetaFound(values["content"])

    def handle_endtag(self, tag):
        if tag == "head":
            raise _MetaFound(None)


def terraform_get_meta(page: str) -> str | None:
    """The module location a ``?terraform-get=1`` page names in its ``<meta
    name="terraform-get" content="...">``, or None."""
    parser = _TerraformGetMeta(convert_charrefs=True)
    try:
        parser.feed(page)
        parser.close()
    except _MetaFound as found:
        return found.content
    return None


# go-getter checksum.go: newChecksumFromType / newChecksumFromValue
_CHECKSUM_BYTES = {"md5": 16, "sha1": 20, "sha256": 32, "sha512": 64}


def _verify_checksum(spec: str, archive: Path, url: str) -> None:
    """``?checksum=TYPE:HEX`` or ``?checksum=HEX`` as go-getter reads it (``checksum.go``):
    TYPE is md5, sha1, sha256 or sha512 (any case); without one, the type follows from the
    digest's length. Raises IntegrityError ("Invalid checksum", "Unsupported checksum",
    "Checksum mismatch")."""
    algo, sep, value = spec.partition(":")
    if not sep:
        algo, value = "", algo
    try:
        want = binascii.unhexlify(value)
    except (binascii.Error, ValueError):
        raise IntegrityError("Invalid checksum",
                             f"The checksum {value!r} of {redact(url)} is not hexadecimal.") from None
    if not algo:
        algo = next((a for a, n in _CHECKSUM_BYTES.items() if n == len(want)), "")
        if not algo:
            raise IntegrityError("Invalid checksum", f"Unknown type for checksum {value} ({redact(url)}): give it as "
                                 "TYPE:HEX (md5, sha1, sha256, sha512).")
    algo = algo.lower()
    if algo not in _CHECKSUM_BYTES:
        raise IntegrityError("Unsupported checksum", f"{algo} checksums are not supported ({redact(url)}): md5, "
                             "sha1, sha256 or sha512.")
    h = hashlib.new(algo)
    with open(archive, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 16), b""):
            h.update(chunk)
    if h.digest() != want:
        raise ChecksumMismatch("Checksum mismatch", f"{redact(url)}: expected {algo}:{value.lower()}, got "
                             f"{algo}:{h.hexdigest()}.")


def _copy_tree(src: Path, dest: Path) -> None:
    shutil.copytree(src, dest, dirs_exist_ok=True, symlinks=True,
                    ignore=shutil.ignore_patterns(".git", ".terraform"))


def _git_base(src: RemoteSource) -> str:
    """The package address of a git source without its ref: the cache's key for it."""
    return git_base(src)

