"""git modules with a ``version`` constraint: strict-SemVer tags from ``git ls-remote``."""

from __future__ import annotations

import logging

from ..addrs.immutable import immutable_address, pinned_reference
from ..addrs.module_source import RemoteSource
from ..addrs.redact import redact
from ..errors import IntegrityError, TofuSolveError
from ..output_edge import one_line
from ..remote.fetch import Fetcher
from ..remote.git import GitRemotes, strict_semver_tags
from .base import AvailableVersion, ConfigFiles, Package

log = logging.getLogger(__name__)


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
        ``package`` names, from the call's own repository, and, when it is not in this
        machine's cache already, once the tag is known to name that commit
        (:meth:`_check_tag`).

        Raises:
            IntegrityError: "Moved git tag": the remote's tag names another commit than the
                lock's ``package``.
            NetworkError, OfflineError: as fetching raises them.
        """
        address, commit = self._address(source, available)
        # a package downloaded now (a fresh clone's job always) is checked against its tag; one this
        # machine already holds was checked when it came, and a warm re-init asks no network
        check = bool(available.package and commit) and not self.fetcher.has_git_package(address, str(commit))
        fetched = self.fetcher.fetch(address, commit)
        if check and fetched.commit:
            self._check_tag(source, available, fetched.commit)
        return Package(fetched.path, source.subdir, self.package_address(source), fetched.commit,
                       pin=immutable_address(str(source), fetched.commit))

    def _check_tag(self, source: RemoteSource, available: AvailableVersion, commit: str) -> None:
        check_tag_commit(self.remotes, source.git.url, available.label, commit)

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



def check_tag_commit(remotes: GitRemotes, url: str, tag: str, commit: str) -> None:
    """A lock's ``package`` must be what its ``source`` and tag name (issue #67 §5; for an
    exact ``?ref=TAG`` too, issue #80 §4): a pull request that points the package at another
    commit, one the host serves (its head), must not be installed as the tag. The remote is
    listed once per run (else what the cache kept of an earlier listing); when neither can be
    had (every origin down, -offline on a fresh cache) the package is the lock's, as it was
    verified by the run that locked it, and whatever gives it (the store) is checked against
    the lock's ``h1:``. A ref that is not a tag of the remote (a branch, which moves by
    design) is not checked.

    Raises:
        IntegrityError: "Moved git tag", naming both commits.
    """
    refs: dict[str, str] | None
    try:
        refs = remotes.refs(url)
    except TofuSolveError as e:
        refs = remotes.cached_refs(url)
        if refs is None:
            log.debug("the tag %s of %s not checked against the lock: %s", tag, redact(url), e)
            return
    named = refs.get(f"refs/tags/{tag}")
    if named is not None and named != commit:
        raise IntegrityError(
            "Moved git tag",
            f"The lock file records the tag {one_line(tag, 80)} of {redact(url)} at commit {commit}, "
            f"but the remote points that tag at {named}: either the tag was moved or the lock's package was "
            "edited to another commit. If the remote's commit is intended, review it, then accept it at the "
            "same tag with: tofu-solve init -accept-checksum=CALL (the module call cited here)")
