"""Package hashes as OpenTofu writes them in lock files (reference §5).

* ``h1:`` is Go's ``golang.org/x/mod/sumdb/dirhash.Hash1``: one line
  ``"<sha256 hex>  <name>\\n"`` per file, files sorted by the bytes of their
  slash-separated names, then ``"h1:" + base64(sha256(lines))``.
* ``zh:`` is the lowercase hex SHA-256 of a ``.zip`` file's bytes
  (``getproviders.PackageHashLegacyZipSHA``).

For directories the listing is ``dirhash.DirFiles``: every non-directory entry below the
root (found with ``lstat``), symlinks to files hashed through the link, a symlink to a
directory an error, nothing excluded unless the caller asks (tofu-solve excludes
``.git``/``.hg``/``.svn`` for version-control packages, as the module-locking RFC says).
"""

from __future__ import annotations

import base64
import hashlib
import os
import stat
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import IO, BinaryIO

from ..errors import HashError

EMPTY_H1 = "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
VCS_DIRS = frozenset({".git", ".hg", ".svn"})
_CHUNK = 1 << 16


def _sha256_stream(fh: IO[bytes]) -> str:
    h = hashlib.sha256()
    for chunk in iter(lambda: fh.read(_CHUNK), b""):
        h.update(chunk)
    return h.hexdigest()


def hash1(files: Iterable[str], open_file: Callable[[str], bytes | IO[bytes]]) -> str:
    """``dirhash.Hash1`` over ``files`` (slash-separated names), reading each with
    ``open_file(name)``, which returns the bytes or a binary file object; file objects are
    read in 64 KiB chunks and closed, so hashing a large package needs little memory.

    Raises:
        HashError: a name contains a newline ("dirhash: filenames with newlines are not
            supported").
    """
    names = sorted(files, key=lambda n: n.encode("utf-8", "surrogateescape"))
    summary = hashlib.sha256()
    for name in names:
        if "\n" in name:
            raise HashError("Cannot hash package", "dirhash: filenames with newlines are not supported")
        content = open_file(name)
        if isinstance(content, (bytes, bytearray)):
            digest = hashlib.sha256(content).hexdigest()
        else:
            with content:
                digest = _sha256_stream(content)
        summary.update(f"{digest}  {name}\n".encode("utf-8", "surrogateescape"))
    return "h1:" + base64.b64encode(summary.digest()).decode("ascii")


def dir_files(root: str | os.PathLike, prefix: str = "", exclude: frozenset[str] = frozenset(),
              exclude_files: frozenset[str] = frozenset()) -> list[str]:
    """``dirhash.DirFiles(root, prefix)``: slash-separated names of every non-directory
    entry below ``root``, optionally skipping directories whose base name is in
    ``exclude`` (anywhere in the tree) and files whose base name is in ``exclude_files``.

    Raises:
        HashError: ``root`` is not a directory.
    """
    root = os.fspath(root)
    if not os.path.isdir(root):
        raise HashError("Cannot hash package", f"{root} is not a directory")
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        # os.walk lists symlinks to directories in dirnames; dirhash (Lstat) treats them as files.
        keep = []
        for d in dirnames:
            full = os.path.join(dirpath, d)
            if os.path.islink(full):
                filenames.append(d)
            elif d not in exclude:
                keep.append(d)
        dirnames[:] = keep
        rel_dir = os.path.relpath(dirpath, root)
        for f in filenames:
            if f in exclude_files:
                continue
            rel = f if rel_dir == "." else os.path.join(rel_dir, f)
            name = rel.replace(os.sep, "/")
            out.append(f"{prefix}/{name}" if prefix else name)
    return out


@dataclass(frozen=True)
class DirHash:
    """A directory's ``h1:`` and the slash-separated names of the files it covers."""

    h1: str
    names: tuple[str, ...]

    def covers_any(self, base_names: frozenset[str]) -> bool:
        """Whether a file whose base name is in ``base_names`` is among :attr:`names`."""
        return bool(base_names) and any(n.rsplit("/", 1)[-1] in base_names for n in self.names)


def hash_dir(root: str | os.PathLike, prefix: str = "", exclude: frozenset[str] = frozenset(),
             exclude_files: frozenset[str] = frozenset()) -> str:
    """``h1:`` of a directory, as OpenTofu's ``PackageHashV1`` (``EvalSymlinks`` on the
    root, then ``dirhash.HashDir(root, prefix, Hash1)``).

    Raises:
        HashError: not a directory, a symlink to a directory inside it, an unreadable
            file, or a name with a newline.
    """
    return hash_dir_listed(root, prefix, exclude, exclude_files).h1


def hash_dir_listed(root: str | os.PathLike, prefix: str = "", exclude: frozenset[str] = frozenset(),
                    exclude_files: frozenset[str] = frozenset()) -> DirHash:
    """:func:`hash_dir`, with the names of the files hashed.

    Raises:
        HashError: as :func:`hash_dir`.
    """
    real = os.path.realpath(os.fspath(root))
    names = dir_files(real, prefix, exclude, exclude_files)

    def read(name: str) -> BinaryIO:
        rel = name[len(prefix) + 1 :] if prefix else name
        path = os.path.join(real, *rel.split("/"))
        try:
            st = os.stat(path)
            if stat.S_ISDIR(st.st_mode):
                raise HashError("Cannot hash package", f"read {path}: is a directory")
            return open(path, "rb")
        except OSError as e:
            raise HashError("Cannot hash package", f"{path}: {e.strerror}") from None

    try:
        return DirHash(hash1(names, read), tuple(names))
    except OSError as e:
        raise HashError("Cannot hash package", f"{real}: {e.strerror or e}") from None


def hash_zip(path: str | os.PathLike) -> str:
    """``h1:`` of a zip file's entries (``dirhash.HashZip``): every entry name, directory
    entries included (hashed as empty content).

    Raises:
        HashError: not a readable zip file, or a name with a newline.
    """
    try:
        with zipfile.ZipFile(path) as zf:
            infos = {i.filename: i for i in zf.infolist()}
            return hash1(list(infos), lambda n: b"" if n.endswith("/") else zf.open(infos[n]))
    except (zipfile.BadZipFile, OSError) as e:
        raise HashError("Cannot hash package", f"{os.fspath(path)}: {e}") from None


def zip_sha256(path: str | os.PathLike) -> str:
    """``zh:`` of a file: lowercase hex SHA-256 of its bytes.

    Raises:
        HashError: the file cannot be read.
    """
    try:
        with open(path, "rb") as fh:
            return "zh:" + _sha256_stream(fh)
    except OSError as e:
        raise HashError("Cannot hash package", f"{os.fspath(path)}: {e.strerror}") from None


@dataclass(frozen=True)
class Hash:
    """A parsed ``scheme:value`` hash string (``getproviders.ParseHash``)."""

    scheme: str  # includes the colon, e.g. "h1:"
    value: str

    def __str__(self) -> str:
        return self.scheme + self.value


def parse_hash(text: str) -> Hash:
    """``getproviders.ParseHash``: a colon at index >= 1; unknown schemes are kept.

    Raises:
        HashError: "hash string must start with a scheme keyword followed by a colon".
    """
    idx = text.find(":")
    if idx < 1:
        raise HashError("Invalid hash string", "hash string must start with a scheme keyword followed by a colon")
    return Hash(text[: idx + 1], text[idx + 1 :])



def zh_hashes_from_sha256sums(document: str) -> list[str]:
    """Every ``zh:`` hash a ``SHA256SUMS`` document lists (``sha256sum`` format:
    ``<64 hex>  <file name>``), lower-cased, in document order.

    Blank lines are skipped (OpenTofu's ``acceptableHashes`` would index an empty line).

    Raises:
        HashError: a line whose first field is not 64 hex digits.
    """
    out = []
    for n, line in enumerate(document.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        digest = fields[0]
        if len(digest) != 64 or any(c not in "0123456789abcdefABCDEF" for c in digest):
            raise HashError("Invalid SHA256SUMS document", f"line {n}: {digest!r} is not a SHA-256 digest")
        out.append("zh:" + digest.lower())
    return out
