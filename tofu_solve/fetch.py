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

import io
import os
import re
import shutil
import stat
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

import requests

from .cache import Cache
from .errors import IntegrityError, NetworkError, OfflineError, TofuSolveError
from .gitremote import GitRemotes
from .netutil import OpCounter, redact
from .sources import OciSource, RemoteSource, SourceKind, parse_source

ARCHIVE_EXTS = ("tar.gz", "tgz", "tar.xz", "txz", "tar.bz2", "tbz2", "zip", "gz", "bz2", "xz")
_META_RE = re.compile(r'<meta\s+name="terraform-get"\s+content="([^"]*)"', re.I)
MAX_REDIRECTS = 10
MAX_ARCHIVE_BYTES = 512 << 20


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
                 fresh_refs: bool = False):
        self.offline = offline
        self.fresh_refs = fresh_refs
        self.cache = cache
        self.git = git_remotes
        self.session = session
        self.counter = counter or OpCounter()
        self.timeout = timeout

    def fetch(self, address: str, commit: str | None = None) -> FetchedPackage:
        """Fetch the package of a go-getter address (any subdir in it is ignored; callers
        keep the subdir). Raises NetworkError, UnsupportedSourceError, IntegrityError."""
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
            base = src.with_ref("").package.split("?ref=")[0].rstrip("?")
            if commit and self.cache.package_dir(base, commit).is_dir():
                return FetchedPackage(self.cache.package_dir(base, commit), src.package, src.package, commit)
            ref = self.git.resolve(g.url, g.ref, fresh=self.fresh_refs)
            if commit and ref.commit != commit:
                raise IntegrityError(
                    "Moved git tag",
                    f'The lock file records {g.ref or "the default branch"} of {redact(g.url)} at commit {commit}, '
                    f"but the remote now points it at {ref.commit}: the tag was moved. If the new commit is "
                    "intended, run: tofu-solve init -upgrade")
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
            r = self._get(probe, stream=False)
            target = r.headers.get("X-Terraform-Get")
            if not target:
                m = _META_RE.search(r.text or "")
                target = m.group(1) if m else None
            if not target:
                raise NetworkError("No module package found",
                                   f"{redact(url)} is not an archive and gave no X-Terraform-Get location.")
            target = urljoin(probe, target) if target.startswith(("/", "./", "../")) else target
            nxt = parse_source(target)
            if not isinstance(nxt, RemoteSource):
                raise NetworkError("Invalid module location", f"{redact(url)} pointed at {redact(target)}.")
            return self._fetch_remote(nxt, depth + 1)

        def download() -> bytes:
            r = self._get(clean, stream=True)
            data = io.BytesIO()
            try:
                for chunk in r.iter_content(1 << 16):
                    data.write(chunk)
                    if data.tell() > MAX_ARCHIVE_BYTES:
                        raise NetworkError("Module package too large", f"{redact(clean)} is larger than 512 MiB.")
            except requests.RequestException as e:
                raise NetworkError("Truncated download",
                                   f"{redact(clean)}: the connection broke after {data.tell()} bytes "
                                   f"({type(e).__name__}).") from None
            expected = r.headers.get("Content-Length")
            if expected and int(expected) != data.tell():
                raise NetworkError("Truncated download", f"{redact(clean)}: got {data.tell()} of {expected} bytes.")
            if checksum:
                _verify_checksum(checksum, data.getvalue(), clean)
            return data.getvalue()

        def fill(dest: Path) -> None:
            # A truncated download or a checksum mismatch is retried once, then reported.
            try:
                data = download()
            except (NetworkError, IntegrityError) as first:
                if first.summary not in ("Truncated download", "Checksum mismatch"):
                    raise
                self.counter.add("http_retry")
                data = download()
            extract_archive(data, ext, dest)
            self.cache.write_archive_hash(dest_key, data)

        dest_key = (src.package, "archive")
        path = self.cache.ensure_package(src.package, "archive", fill)
        return FetchedPackage(path, src.package, src.package, zh=self.cache.archive_hash(dest_key))

    def fetch_direct(self, url: str, headers: dict[str, str]) -> FetchedPackage:
        """A registry's v1.12 direct download: an archive whose format is sniffed (zip,
        tar.gz, tar.xz, tar.bz2), fetched with the given headers. Raises NetworkError,
        IntegrityError, OfflineError."""
        def fill(dest: Path) -> None:
            r = self._get(url, stream=True, headers={
                "Accept": "application/zip, application/x-tar; *;q=0.1",
                "Accept-Encoding": "identity, gzip, *;q=0.1", **headers})
            data = r.content
            expected = r.headers.get("Content-Length")
            if expected and r.headers.get("Content-Encoding", "identity") == "identity" and int(expected) != len(data):
                raise NetworkError("Truncated download", f"{redact(url)}: got {len(data)} of {expected} bytes.")
            extract_archive(data, sniff_archive(data, url), dest)
            self.cache.write_archive_hash((url, "direct"), data)

        if self.offline and not self.cache.package_dir(url, "direct").is_dir():
            raise OfflineError("Not available offline", f"{redact(url)} is not in the cache.")
        path = self.cache.ensure_package(url, "direct", fill)
        return FetchedPackage(path, url, url, zh=self.cache.archive_hash((url, "direct")))

    def _get(self, url: str, stream: bool, headers: dict | None = None) -> requests.Response:
        self.counter.add("http_download")
        try:
            r = self.session.get(url, stream=stream, timeout=self.timeout, headers=headers or {})
        except requests.RequestException as e:
            raise NetworkError("Failed to download module package",
                               f"{type(e).__name__} contacting {redact(url)}.", url=redact(url)) from None
        if r.status_code >= 400:
            raise NetworkError("Failed to download module package",
                               f"{redact(url)} answered {r.status_code}.", url=redact(url))
        return r


def _verify_checksum(spec: str, data: bytes, url: str) -> None:
    import hashlib
    algo, _, want = spec.partition(":")
    if not want:
        algo, want = "sha256", algo
    try:
        got = hashlib.new(algo, data).hexdigest()
    except ValueError:
        raise IntegrityError("Unsupported checksum", f"{algo} checksums are not supported ({redact(url)}).") from None
    if got != want.lower():
        raise IntegrityError("Checksum mismatch", f"{redact(url)}: expected {algo}:{want}, got {algo}:{got}.")


def _copy_tree(src: Path, dest: Path) -> None:
    shutil.copytree(src, dest, dirs_exist_ok=True, symlinks=True,
                    ignore=shutil.ignore_patterns(".git", ".terraform"))


def _check_member(name: str, dest: Path) -> Path:
    p = PurePosixPath(name.replace("\\", "/"))
    drive = bool(p.parts) and ":" in p.parts[0]  # "C:/..." from a Windows-made archive
    if p.is_absolute() or ".." in p.parts or drive:
        raise IntegrityError("Unsafe module package",
                             f"The archive entry {name!r} would be written outside the package directory.")
    return dest.joinpath(*p.parts)


def sniff_archive(data: bytes, url: str = "") -> str:
    """The archive format by its magic bytes, as OpenTofu's ``package_extract.go`` sniffs
    them. Raises IntegrityError for anything else."""
    if data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
        return "zip"
    if data[:2] == b"\x1f\x8b":
        return "tar.gz"
    if data[:6] == b"\xfd7zXZ\x00":
        return "tar.xz"
    if data[:3] == b"BZh":
        return "tar.bz2"
    raise IntegrityError("Unsupported module package format",
                         f"{redact(url)} is not a zip, tar.gz, tar.xz or tar.bz2 archive.")


def extract_archive(data: bytes, ext: str, dest: Path) -> None:
    """Extract an archive's bytes into ``dest``, refusing entries that escape it.

    Raises:
        IntegrityError: an unsafe entry (absolute path, ``..``, a link pointing outside), or a
            corrupt archive.
    """
    try:
        if ext == "zip":
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                for info in zf.infolist():
                    target = _check_member(info.filename, dest)
                    mode = info.external_attr >> 16
                    if stat.S_ISLNK(mode):
                        link = zf.read(info).decode()
                        resolved = os.path.normpath(os.path.join(os.path.dirname(info.filename), link))
                        if os.path.isabs(link) or resolved.startswith(".."):
                            raise IntegrityError("Unsafe module package",
                                                 f"The archive link {info.filename!r} points outside the package.")
                        target.parent.mkdir(parents=True, exist_ok=True)
                        os.symlink(link, target)
                    elif info.is_dir():
                        target.mkdir(parents=True, exist_ok=True)
                    else:
                        target.parent.mkdir(parents=True, exist_ok=True)
                        with zf.open(info) as fsrc, open(target, "wb") as fdst:
                            shutil.copyfileobj(fsrc, fdst)
            return
        mode = {"tar.gz": "r:gz", "tgz": "r:gz", "gz": "r:gz", "tar.xz": "r:xz", "txz": "r:xz", "xz": "r:xz",
                "tar.bz2": "r:bz2", "tbz2": "r:bz2", "bz2": "r:bz2", "tar": "r:"}.get(ext, "r:*")
        with tarfile.open(fileobj=io.BytesIO(data), mode=mode) as tf:
            for m in tf.getmembers():
                _check_member(m.name, dest)
            try:
                tf.extractall(dest, filter="data")
            except tarfile.FilterError as e:
                raise IntegrityError("Unsafe module package", f"The archive was refused: {e}.") from None
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as e:
        if isinstance(e, IntegrityError):
            raise
        raise IntegrityError("Corrupt module package", f"The archive could not be read: {e}.") from None
