"""git modules with a ``version`` constraint: strict-SemVer tags from ``git ls-remote``."""

from __future__ import annotations

from ..addrs.immutable import immutable_address, pinned_reference
from ..addrs.module_source import RemoteSource
from ..remote.fetch import Fetcher
from ..remote.git import GitRemotes, strict_semver_tags
from .base import AvailableVersion, ConfigFiles, Package


class GitCandidates:
    """Candidate provider for ``git::`` sources that carry a ``version`` constraint."""

    def __init__(self, remotes: GitRemotes, fetcher: Fetcher):
        self.remotes = remotes
        self.fetcher = fetcher

    def package_address(self, source: RemoteSource) -> str:
        return source.with_ref("").package.replace("?ref=", "").rstrip("?")

    def versions(self, source: RemoteSource) -> list[AvailableVersion]:
        tags = self.remotes.tags(source.git.url)
        return [AvailableVersion(tag, v, tags[tag]) for v, tag in strict_semver_tags(tags)]

    def fetch(self, source: RemoteSource, available: AvailableVersion) -> Package:
        """The tag's package; a version from the lock comes straight from the commit its
        ``package`` names, from the call's own repository (no ``ls-remote``)."""
        fetched = self.fetcher.fetch(*self._address(source, available))
        return Package(fetched.path, source.subdir, self.package_address(source), fetched.commit,
                       pin=immutable_address(str(source), fetched.commit))

    def config_files(self, source: RemoteSource, available: AvailableVersion) -> ConfigFiles | None:
        if available.package:
            return None  # a locked version is installed anyway: read from the one fetch that unpacks it
        got = self.fetcher.config_files(*self._address(source, available))
        return None if got is None else ConfigFiles(got[0], source.subdir, immutable_address(str(source), got[1]))

    @staticmethod
    def _address(source: RemoteSource, available: AvailableVersion) -> tuple[str, str | None]:
        """(package address, expected commit) to fetch ``available`` from."""
        commit = pinned_reference(available.package) if available.package else None
        if commit:
            return source.with_ref(commit).package, commit
        return source.with_ref(available.label).package, available.commit

