"""The protocol every candidate provider implements."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..addrs.module_source import ModuleSource
from ..addrs.provider import ProviderAddress
from ..config.files import PackageFiles
from ..versions.hashicorp_go_version import GoVersion


@dataclass(frozen=True)
class AvailableVersion:
    """One version a source offers.

    Attributes:
        label: how the source names it: the registry's version string, or the git tag.
        version: parsed with go-version (None for unversioned pins such as ``?ref=main``).
        commit: for git tags, the commit the tag points at (peeled).
        package: the immutable package address the lock file records for this version
            (:mod:`tofu_solve.addrs.immutable`), when the candidate comes from the lock:
            the package is then fetched from there, with no tag listing and no registry
            download-location request (issue #25); "" otherwise. Not part of equality: the
            same version listed by the source is the same candidate.
    """

    label: str
    version: GoVersion | None
    commit: str | None = None
    package: str = field(default="", compare=False)


@dataclass(frozen=True)
class Package:
    """A fetched module package and where the module sits in it.

    Attributes:
        root: the extracted package directory.
        subdir: the module's directory inside it ("" for the root).
        package: the package address (no version or ref).
        commit: the git commit, when there is one.
        zh: ``zh:`` of the archive the package came as, if it came as one.
        pin: the immutable address it was fetched from, redacted
            (:func:`tofu_solve.addrs.immutable.immutable_address`), or None when the source
            has none (floating).
    """

    root: Path
    subdir: str
    package: str
    commit: str | None = None
    zh: str | None = None
    pin: str | None = None


@dataclass(frozen=True)
class ConfigFiles:
    """A package's configuration files held in memory (:mod:`tofu_solve.config.files`) and
    where the module sits in it (``subdir``, "" for the root), to read its module tree;
    ``pin``: the immutable address they were read from (as :attr:`Package.pin`)."""

    files: PackageFiles
    subdir: str
    pin: str | None = None


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


class ProviderVersionSource(Protocol):
    """Where the versions of OpenTofu provider plugins are listed: the registry client, or
    the CLI configuration's installation methods in order (``remote.provider_sources``)."""

    def provider_versions(self, address: ProviderAddress) -> list[str]:
        """Every version listed, as text, in the source's order.

        Raises:
            RegistryError, NetworkError, OfflineError: the listing cannot be had.
        """
        ...

    def relist(self, address: ProviderAddress) -> list[str]:
        """:meth:`provider_versions` asked of the network again, not of the cache (a lock
        names a version a kept listing predates)."""
        ...
