"""Where a module's files are read from: a directory on disk, or a package's configuration
files held in memory.

The solver reads many module versions that it never installs (the versions a conflict walks
back over, every candidate of the dead-end pass). Writing each of those packages out in full
costs more than everything else the solve does with it on real module contents: a
terraform-aws-modules/iam release holds 241 files, about 175 ms to write out on this project's
machines, against 12 ms to read its module tree (issue #23). :class:`PackageFiles` holds just
the configuration files of such a package (``.tf``, ``.tf.json``, ``.tofu``, ``.tofu.json``,
and a symbol library's ``.sym.hcl``),
read from its archive without touching the disk; :class:`MemoryDir` lets the loader
(:mod:`tofu_solve.config.loader`, :mod:`tofu_solve.config.tree`) read a directory of it as it
reads one on disk (:class:`DiskDir`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .. import confined

CONFIG_SUFFIXES = (".tf", ".tf.json", ".tofu", ".tofu.json", ".sym.hcl")  # .sym.hcl: symbol libraries


def is_config_file(path: str) -> bool:
    """Whether the loader may read the file at ``path`` (by its name's suffix)."""
    return path.endswith(CONFIG_SUFFIXES)


@dataclass(frozen=True)
class PackageFiles:
    """A module package's configuration files, read from its archive: ``files`` maps a
    relative POSIX path to the file's bytes; ``dirs`` holds every directory of the package
    (``""`` for its root), configuration files or not, so that a local call to a directory
    without any is told from one to a directory that does not exist."""

    files: dict[str, bytes]
    dirs: frozenset[str]


class DiskDir:
    """A directory on disk, as the loader reads it: only files whose real path is inside
    ``top`` (:func:`tofu_solve.confined.boundary` of the first directory, its repository; issue #67
    §3), which its children share."""

    def __init__(self, path: Path, top: str | None = None):
        self.path = Path(path)
        self._top = top

    @property
    def top(self) -> str:
        if self._top is None:
            self._top = confined.boundary(os.fspath(self.path))
        return self._top

    def entries(self) -> list[tuple[str, bool]]:
        """(name, is a directory) of every entry. Raises OSError."""
        names = sorted(os.listdir(self.path))
        return [(n, os.path.isdir(os.path.join(self.path, n))) for n in names]

    def read_text(self, name: str, shown: str = "") -> str:
        """The file ``name`` (``shown``: its name in messages).

        Raises: ConfigurationError (:func:`tofu_solve.confined.check`: outside the repository, not a
        regular file, too large), OSError, UnicodeDecodeError."""
        return confined.read_text(self.path / name, shown or name, self.top)

    def child(self, rel: str) -> DiskDir:
        """The directory ``rel`` below (or, for a local call such as ``../shared``, beside)
        this one: inside this one's boundary it shares it; a directory written outside it
        (OpenTofu reads local modules anywhere) has the boundary of its own place."""
        if not rel:
            return self
        path = self.path / rel
        inside = os.path.normpath(os.path.abspath(path)).startswith(self.top.rstrip(os.sep) + os.sep)
        return DiskDir(path, self.top if inside else None)

    def exists(self) -> bool:
        return self.path.is_dir()

    def __fspath__(self) -> str:
        return os.fspath(self.path)


class OverlayDir(DiskDir):
    """A directory on disk as an editor shows it: each open file's unsaved text in place of
    the disk's (``texts``: absolute path -> text; a file open but never saved is listed
    too). What the language server reads a root module from, with the CLI's own loader."""

    def __init__(self, path: Path, texts: Mapping[Path, str], top: str | None = None):
        super().__init__(path, top)
        self.texts = texts

    def entries(self) -> list[tuple[str, bool]]:
        found = dict(super().entries()) if self.path.is_dir() else {}
        for p in self.texts:
            if p.parent == self.path:
                found.setdefault(p.name, False)
        return sorted(found.items())

    def read_text(self, name: str, shown: str = "") -> str:
        text = self.texts.get(self.path / name)
        return text if text is not None else super().read_text(name, shown)

    def child(self, rel: str) -> OverlayDir:
        if not rel:
            return self
        inner = DiskDir.child(self, rel)
        return OverlayDir(inner.path, self.texts, inner._top)

    def exists(self) -> bool:
        return self.path.is_dir() or any(p.parent == self.path for p in self.texts)


class MemoryDir:
    """A directory of a :class:`PackageFiles` (``rel``: its POSIX path in the package)."""

    def __init__(self, package: PackageFiles, rel: str = ""):
        self.package = package
        self.rel = rel.strip("/")

    def _join(self, name: str) -> str:
        return f"{self.rel}/{name}" if self.rel else name

    def entries(self) -> list[tuple[str, bool]]:
        if self.rel not in self.package.dirs:
            raise FileNotFoundError(2, "No such file or directory", self.rel)
        prefix = f"{self.rel}/" if self.rel else ""
        found: dict[str, bool] = {}
        for path in self.package.files:
            if path.startswith(prefix) and "/" not in path[len(prefix):]:
                found[path[len(prefix):]] = False
        for d in self.package.dirs:
            if d and d.startswith(prefix) and "/" not in d[len(prefix):]:
                found[d[len(prefix):]] = True
        return sorted(found.items())

    def read_text(self, name: str, shown: str = "") -> str:
        data = self.package.files.get(self._join(name))
        if data is None:
            raise FileNotFoundError(2, "No such file or directory", self._join(name))
        return data.decode("utf-8")

    def child(self, rel: str) -> MemoryDir:
        if not rel:
            return self
        return MemoryDir(self.package, str(PurePosixPath(self._join(rel))))

    def exists(self) -> bool:
        return self.rel in self.package.dirs

    def __fspath__(self) -> str:
        return self.rel or "."


ModuleDir = DiskDir | MemoryDir


def module_dir(directory: str | os.PathLike | ModuleDir) -> ModuleDir:
    """``directory`` as the loader reads it."""
    return directory if isinstance(directory, (DiskDir, MemoryDir)) else DiskDir(Path(directory))


__all__ = ["CONFIG_SUFFIXES", "DiskDir", "MemoryDir", "ModuleDir", "OverlayDir", "PackageFiles", "is_config_file",
           "module_dir"]
