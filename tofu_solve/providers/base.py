"""The protocol every candidate provider implements."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..addrs.module_source import ModuleSource
from ..config.files import PackageFiles
from ..versions.goversion import GoVersion


@dataclass(frozen=True)
class AvailableVersion:
    """One version a source offers.

    Attributes:
        label: how the source names it: the registry's version string, or the git tag.
        version: parsed with go-version (None for unversioned pins such as ``?ref=main``).
        commit: for git tags, the commit the tag points at (peeled).
    """

    label: str
    version: GoVersion | None
    commit: str | None = None


@dataclass(frozen=True)
class Package:
    """A fetched module package and where the module sits in it.

    Attributes:
        root: the extracted package directory.
        subdir: the module's directory inside it ("" for the root).
        package: the package address (no version or ref).
        locked_source: the source address to record in the lock (pinned to the version).
        commit: the git commit, when there is one.
    """

    root: Path
    subdir: str
    package: str
    locked_source: str
    commit: str | None = None
    zh: str | None = None


@dataclass(frozen=True)
class ConfigFiles:
    """A package's configuration files held in memory (:mod:`tofu_solve.config.files`) and
    where the module sits in it (``subdir``, "" for the root), to read its module tree."""

    files: PackageFiles
    subdir: str


class CandidateProvider(Protocol):
    """Lists and fetches the versions of one kind of module source."""

    def versions(self, source: ModuleSource) -> list[AvailableVersion]:
        """Every version the source offers, in the source's own order. Raises
        NetworkError/RegistryError."""

    def fetch(self, source: ModuleSource, available: AvailableVersion) -> Package:
        """The package of ``available``. Raises NetworkError/IntegrityError."""

    def config_files(self, source: ModuleSource, available: AvailableVersion) -> ConfigFiles | None:
        """The configuration files of ``available``'s package read into memory, without
        unpacking it, when the source can give them (a git package not yet in the cache);
        None otherwise (then :meth:`fetch` it). Raises as :meth:`fetch`."""

    def package_address(self, source: ModuleSource) -> str:
        """The address that identifies the package across calls (no version)."""
