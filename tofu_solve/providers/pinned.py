"""Remote modules without a ``version``: one candidate, what the address names (a git
``?ref=``, the default branch, an archive URL), as ``tofu init`` installs it."""

from __future__ import annotations

from ..addrs.immutable import GIT_COMMIT_RE, immutable_address, pinned_reference
from ..addrs.module_source import RemoteSource, SourceKind
from ..remote.fetch import Fetcher
from ..remote.git import GitRemotes
from .base import AvailableVersion, ConfigFiles, Package
from .git_tags import check_tag_commit


class PinnedCandidates:
    """Candidate provider for remote sources whose address fixes what is installed."""

    def __init__(self, remotes: GitRemotes, fetcher: Fetcher):
        self.remotes = remotes
        self.fetcher = fetcher

    def package_address(self, source: RemoteSource) -> str:
        return source.package

    def versions(self, source: RemoteSource) -> list[AvailableVersion]:
        if source.kind is SourceKind.GIT:
            g = source.git
            ref = self.remotes.resolve(g.url, g.ref)
            return [AvailableVersion(g.ref or ref.name, None, ref.commit)]
        return [AvailableVersion("", None)]

    def config_files(self, source: RemoteSource, available: AvailableVersion) -> ConfigFiles | None:
        """Never without unpacking: a pinned package is fetched once and installed (see
        :meth:`~tofu_solve.providers.base.CandidateProvider.config_files`)."""
        return None

    def fetch(self, source: RemoteSource, available: AvailableVersion) -> Package:
        """What the address names; a git ref from the lock comes straight from the commit
        its ``package`` names, and, when it is downloaded now, once the ref (a tag) is known
        to name that commit (issue #80 §4: an exact ``?ref=TAG`` holds the lock to the tag's
        commit as a ``version`` does, :func:`.git_tags.check_tag_commit`).

        Raises:
            IntegrityError: "Moved git tag": the remote's tag names another commit than the
                lock's ``package``.
        """
        commit = pinned_reference(available.package) if available.package else None
        if commit and source.kind is SourceKind.GIT:
            address = source.with_ref(commit).package
            ref = source.git.ref
            check = bool(ref) and not GIT_COMMIT_RE.fullmatch(ref or "") and \
                not self.fetcher.has_git_package(address, commit)
            fetched = self.fetcher.fetch(address, commit=commit)
            if check and fetched.commit and ref:
                check_tag_commit(self.remotes, source.git.url, ref, fetched.commit)
        else:
            fetched = self.fetcher.fetch(source.package, commit=available.commit)
        return Package(fetched.path, source.subdir, source.package, fetched.commit, fetched.zh,
                       pin=immutable_address(str(source), fetched.commit))
