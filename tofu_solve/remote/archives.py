"""Unpacking module packages safely: every entry stays inside the package directory, and
no archive unpacks to more than :class:`~tofu_solve.remote.limits.Limits` allow.

Zip, tar, tar.gz, tar.xz and tar.bz2 are read in one streaming pass. Sizes are counted as
bytes are written, never taken from headers alone, so a 2 MiB archive claiming to hold a
2 GiB file stops at the limit ("Module package too large"). Entries with absolute paths,
``..`` components, drive letters, or links pointing outside are refused (zip-slip).
"""

from __future__ import annotations

import io
import lzma
import os
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any, cast

from ..addrs.redact import redact
from ..config.files import PackageFiles, is_config_file
from ..errors import IntegrityError, TofuSolveError
from .limits import Limits


def _check_member(name: str, dest: Path, links: bool = True) -> Path:
    """Where entry ``name`` goes in ``dest``, refused when it would land outside. ``links``:
    whether ``dest`` may hold a symbolic link (one an earlier entry made, or anything already
    there); without one, a relative path with no ``..`` cannot leave ``dest``, and the check
    that resolves every link on the way (two ``realpath`` calls, a ``stat`` per path
    component) is not needed."""
    p = PurePosixPath(name.replace("\\", "/"))
    drive = bool(p.parts) and ":" in p.parts[0]  # "C:/..." from a Windows-made archive
    if p.is_absolute() or ".." in p.parts or drive:
        raise IntegrityError("Unsafe module package",
                             f"The archive entry {name!r} would be written outside the package directory.")
    target = dest.joinpath(*p.parts)
    if links and not _inside(dest, target.parent):  # through a link an earlier entry made
        raise IntegrityError("Unsafe module package",
                             f"The archive entry {name!r} would be written outside the package directory.")
    return target


def _inside(dest: Path, path: str | Path) -> bool:
    """Whether ``path``, every link on the way resolved as the file system resolves it now,
    stays within ``dest`` (the check of Python's ``data`` filter, PEP 706)."""
    base = os.path.realpath(dest)
    real = os.path.realpath(path)
    return real == base or real.startswith(base + os.sep)


def _check_link(name: str, link: str, dest: Path) -> None:
    """A symbolic link ``name`` -> ``link`` must point inside ``dest``, however earlier links
    resolve: refused when absolute, when ``..`` leaves the package, or when it resolves
    outside."""
    target = os.path.join(dest, *PurePosixPath(name).parts[:-1], link)
    lexical = os.path.normpath(os.path.join(os.path.dirname(name), link))
    if os.path.isabs(link) or lexical == ".." or lexical.startswith("../") or not _inside(dest, target):
        raise IntegrityError("Unsafe module package", f"The archive link {name!r} points outside the package.")


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


class _Budget:
    """What one archive may still unpack to (:class:`~tofu_solve.remote.limits.Limits`)."""

    def __init__(self, limits: Limits, dest: Path):
        self.limits = limits
        self.entries = 0
        self.total = 0
        # whether dest may hold a symbolic link: anything there before (never, for the fresh
        # directories tofu-solve extracts into), or a link an entry made
        self.links = dest.exists() and any(dest.iterdir())
        self.dirs: set[Path] = set()  # directories made so far

    def parent_of(self, target: Path) -> None:
        """Make ``target``'s directory (once per directory)."""
        parent = target.parent
        if parent not in self.dirs:
            parent.mkdir(parents=True, exist_ok=True)
            self.dirs.add(parent)

    def entry(self, name: str) -> None:
        self.entries += 1
        if self.entries > self.limits.entries:
            raise IntegrityError("Module package too large",
                                 f"The archive has more than {self.limits.entries} entries "
                                 "(TOFU_SOLVE_MAX_ARCHIVE_ENTRIES).")

    def check(self, name: str, size: int) -> None:
        """Refuse an entry whose declared ``size`` alone would break a limit (nothing counted)."""
        if size > self.limits.file_bytes or self.total + size > self.limits.extracted_bytes:
            self.add(name, size, size)

    def add(self, name: str, n: int, file_total: int) -> None:
        """Account for ``n`` more bytes of entry ``name``, which then holds ``file_total``."""
        self.total += n
        if file_total > self.limits.file_bytes:
            raise IntegrityError("Module package too large",
                                 f"The archive entry {name!r} unpacks to more than {self.limits.file_bytes} bytes "
                                 "(TOFU_SOLVE_MAX_FILE_BYTES).")
        if self.total > self.limits.extracted_bytes:
            raise IntegrityError("Module package too large",
                                 f"The archive unpacks to more than {self.limits.extracted_bytes} bytes "
                                 "(TOFU_SOLVE_MAX_EXTRACTED_BYTES): refused as a decompression bomb.")


def _copy_bounded(fsrc, fdst, name: str, budget: _Budget) -> None:
    written = 0
    for chunk in iter(lambda: fsrc.read(1 << 16), b""):
        written += len(chunk)
        budget.add(name, len(chunk), written)
        fdst.write(chunk)


def extract_archive(archive: bytes | Path, ext: str, dest: Path, limits: Limits | None = None) -> None:
    """Extract an archive (its bytes, or a file holding them) into ``dest``, refusing
    entries that escape it and archives that unpack to more than ``limits`` allow. Sizes
    are counted as bytes are written, never taken from headers alone.

    Raises:
        IntegrityError: an unsafe entry (absolute path, ``..``, a link pointing outside), a
            corrupt archive, or one over the limits ("Module package too large").
    """
    budget = _Budget(limits or Limits(), dest)
    source = io.BytesIO(archive) if isinstance(archive, (bytes, bytearray)) else open(archive, "rb")  # noqa: SIM115
    try:
        with source:
            _extract(source, ext, dest, budget)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, zlib.error, lzma.LZMAError) as e:
        if isinstance(e, IntegrityError):
            raise
        if isinstance(e, OSError) and e.errno is not None and not isinstance(e, tarfile.TarError):
            raise TofuSolveError("Failed to unpack module package",
                                 f"Writing into {dest} failed: {e.strerror}.") from None
        raise IntegrityError("Corrupt module package", f"The archive could not be read: {e}.") from None


def _extract(source, ext: str, dest: Path, budget: _Budget) -> None:
    if ext == "zip":
        with zipfile.ZipFile(source) as zf:
            infos = zf.infolist()
            if len(infos) > budget.limits.entries:
                budget.entries = len(infos) - 1
                budget.entry("")
            for info in infos:
                target = _check_member(info.filename, dest, budget.links)
                budget.entry(info.filename)
                mode = info.external_attr >> 16
                if stat.S_ISLNK(mode):
                    if info.file_size > 4096:
                        raise IntegrityError("Unsafe module package",
                                             f"The archive link {info.filename!r} is too long.")
                    link = zf.read(info).decode()
                    _check_link(info.filename, link, dest)
                    budget.links = True
                    target.parent.mkdir(parents=True, exist_ok=True)
                    os.symlink(link, target)
                elif info.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                else:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    if os.path.lexists(target):
                        os.unlink(target)  # never written through a link an earlier entry made
                    with zf.open(info) as fsrc, open(target, "wb") as fdst:
                        _copy_bounded(fsrc, fdst, info.filename, budget)
                    if info.create_system == 3 and mode & 0o777:
                        # the entry's Unix mode, as go-getter's ZipDecompressor applies it (a
                        # provider's executable stays executable); the tar rule: no set-id
                        # bits, nothing writable by others, always readable by its owner
                        os.chmod(target, (mode & 0o755) | 0o600)
        return
    tar_mode = {"tar.gz": "r:gz", "tgz": "r:gz", "gz": "r:gz", "tar.xz": "r:xz", "txz": "r:xz", "xz": "r:xz",
            "tar.bz2": "r:bz2", "tbz2": "r:bz2", "bz2": "r:bz2", "tar": "r:"}.get(ext, "r:*")
    # Stream mode ("r|"): member by member, so a bomb is refused at its first big member
    # without the whole stream being decompressed. First a pass over the headers alone, so
    # that an archive of too many entries (or declaring more than the limits) is refused
    # before anything is written (issue #80 §5: 100,000 empty files were written first).
    with tarfile.open(fileobj=source, mode=cast(Any, tar_mode.replace(":", "|"))) as tf:
        counted = _Budget(budget.limits, dest)
        for m in tf:
            counted.entry(m.name)
            if m.isfile():
                counted.check(m.name, m.size)
                counted.total += m.size
    source.seek(0)
    with tarfile.open(fileobj=source, mode=cast(Any, tar_mode.replace(":", "|"))) as tf:
        for m in tf:
            _extract_tar_member(tf, m, dest, budget)


def _extract_tar_member(tf: tarfile.TarFile, m: tarfile.TarInfo, dest: Path, budget: _Budget) -> None:
    """One tar entry, with the rules of Python's ``data`` extraction filter (PEP 706), written
    out here so that they hold on every 3.11 release (the filter arrived in 3.11.4): nothing
    outside ``dest``, links only to places inside it, no device or FIFO, no setuid, setgid,
    sticky or group/other write bits, files always readable and writable by their owner, no
    ownership taken from the archive. Sizes are counted as bytes are written."""
    target = _check_member(m.name, dest, budget.links)
    budget.entry(m.name)
    name = m.name
    if m.issym() or m.islnk():
        link = m.linkname.replace("\\", "/")
        if m.issym():
            _check_link(name, link, dest)
            budget.links = True
        else:  # a hard link names an entry by its path in the archive
            _check_member(link, dest)
        target.parent.mkdir(parents=True, exist_ok=True)
        if os.path.lexists(target):
            os.unlink(target)
        if m.issym():
            os.symlink(link, target)
            return
        source = dest.joinpath(*PurePosixPath(link).parts)
        if not link or not _inside(dest, source) or not source.is_file():
            raise IntegrityError("Unsafe module package",
                                 f"The archive hard link {name!r} does not name a file extracted before it.")
        with open(source, "rb") as plain, open(target, "wb") as fdst:
            _copy_bounded(plain, fdst, name, budget)
        os.chmod(target, stat.S_IMODE(os.stat(source).st_mode))
        return
    if m.isdir():
        target.mkdir(parents=True, exist_ok=True)
        return
    if not m.isfile():
        raise IntegrityError("Unsafe module package",
                             f"The archive entry {name!r} is a device or FIFO, which a module package cannot hold.")
    budget.check(name, m.size)  # a header that already claims too much is refused before reading
    budget.parent_of(target)
    fsrc = tf.extractfile(m)
    if fsrc is None:  # a regular file always has its content
        raise IntegrityError("Unsafe module package", f"The archive entry {name!r} has no content.")
    if os.path.lexists(target):
        os.unlink(target)
    with fsrc, open(target, "wb") as fdst:
        _copy_bounded(fsrc, fdst, name, budget)
    os.chmod(target, (m.mode & 0o755) | 0o600)


def read_config_files(archive: Path, limits: Limits | None = None) -> PackageFiles | None:
    """The configuration files of a tar archive (a ``git archive`` of a module package),
    read into memory without writing anything (:mod:`tofu_solve.config.files`), under the
    same rules and bounds as :func:`extract_archive`: an entry that would leave the package
    or a device is refused, and the archive's entries and declared sizes count against
    ``limits`` as if it were unpacked. None when the archive holds a link, whose meaning
    depends on the files around it: such a package is unpacked instead.

    Raises:
        IntegrityError: an unsafe entry, a corrupt archive, or one over the limits.
    """
    budget = _Budget(limits or Limits(), Path("/nonexistent"))
    files: dict[str, bytes] = {}
    dirs: set[str] = {""}
    try:
        with open(archive, "rb") as source, tarfile.open(fileobj=source, mode="r|") as tf:
            for m in tf:
                name = m.name.replace("\\", "/")
                _check_member(name, Path("/"), links=False)
                budget.entry(name)
                parts = PurePosixPath(name).parts
                if m.issym() or m.islnk():
                    return None
                if m.isdir():
                    dirs.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
                    continue
                if not m.isfile():
                    raise IntegrityError("Unsafe module package",
                                         f"The archive entry {name!r} is a device or FIFO, which a module package "
                                         "cannot hold.")
                budget.check(name, m.size)
                dirs.update("/".join(parts[:i]) for i in range(1, len(parts)))
                path = "/".join(parts)
                if is_config_file(path):
                    member = tf.extractfile(m)
                    data = member.read(m.size + 1) if member is not None else b""
                    budget.add(name, len(data), len(data))
                    files[path] = data
                else:
                    budget.add(name, m.size, m.size)  # counted as if it were written out
    except (tarfile.TarError, EOFError) as e:
        raise IntegrityError("Corrupt module package", f"The archive could not be read: {e}.") from None
    return PackageFiles(files, frozenset(dirs))



def config_files_from_tree(entries: list[tuple[str, str, int]], read: Callable[[list[str]], dict[str, bytes]],
                           limits: Limits | None = None) -> PackageFiles | None:
    """:func:`read_config_files` for a package listed rather than archived: ``entries`` are
    ``(path, kind, size)`` with kind ``"file"``, ``"dir"`` or ``"link"`` (a git tree as
    ``git ls-tree -r -t -l`` lists it, a submodule as the empty directory ``git archive``
    writes for it), in listing order; ``read(paths)`` returns the bytes of those files. The
    same checks, in the same order, with the same errors and bounds: every entry counts,
    an unsafe name is refused, a link makes the answer None.

    Raises:
        IntegrityError: an unsafe entry, or a package over the limits.
    """
    budget = _Budget(limits or Limits(), Path("/nonexistent"))
    dirs: set[str] = {""}
    wanted: list[tuple[str, int]] = []
    for name, kind, size in entries:
        _check_member(name, Path("/"), links=False)
        budget.entry(name)
        parts = PurePosixPath(name).parts
        if kind == "link":
            return None
        if kind == "dir":
            dirs.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
            continue
        budget.check(name, size)
        dirs.update("/".join(parts[:i]) for i in range(1, len(parts)))
        path = "/".join(parts)
        budget.add(name, size, size)  # a configuration file is read whole, the others counted as written
        if is_config_file(path):
            wanted.append((path, size))
    files = read([p for p, _ in wanted]) if wanted else {}
    for path, size in wanted:
        if len(files.get(path, b"")) != size:
            raise IntegrityError("Corrupt module package",
                                 f"The file {path!r} could not be read whole from the package.")
    return PackageFiles({p: files[p] for p, _ in wanted}, frozenset(dirs))
