"""Registry modules: versions from ``/versions``, packages through ``/download``."""

from __future__ import annotations

from ..errors import InvalidVersion
from ..fetch import Fetcher
from ..registry import RegistryClient
from ..sources import RegistrySource, go_path_clean, source_dir_subdir
from ..versions.goversion import GoVersion
from .base import AvailableVersion, Package


class RegistryCandidates:
    """Candidate provider for ``[host/]namespace/name/system`` sources."""

    def __init__(self, client: RegistryClient, fetcher: Fetcher):
        self.client = client
        self.fetcher = fetcher

    def package_address(self, source: RegistrySource) -> str:
        return str(source.package)

    def versions(self, source: RegistrySource) -> list[AvailableVersion]:
        out = []
        for label in self.client.module_versions(source.package):
            try:
                v = GoVersion.parse(label)
            except InvalidVersion:
                v = None  # OpenTofu warns and skips; the selection layer drops it
            out.append(AvailableVersion(label, v))
        return out

    def fetch(self, source: RegistrySource, available: AvailableVersion) -> Package:
        # OpenTofu requests the normalized go-version string (reference §1, step 6).
        version = available.version.string if available.version else available.label
        location = self.client.module_location(source.package, version)
        loc_pkg, loc_sub = source_dir_subdir(location)
        fetched = self.fetcher.fetch(loc_pkg)
        sub = "/".join(p for p in (loc_sub, source.subdir) if p)
        sub = go_path_clean(sub) if sub else ""
        return Package(fetched.path, "" if sub == "." else sub, str(source.package), str(source), fetched.commit)
