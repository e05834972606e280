"""Registry modules: versions from ``/versions``, packages through ``/download``."""

from __future__ import annotations

import logging

from ..addrs.immutable import immutable_address, pinned_reference
from ..addrs.module_source import (
    OciSource,
    RegistrySource,
    go_path_clean,
    parse_source,
    source_dir_subdir,
)
from ..errors import InvalidVersion, NetworkError
from ..remote.fetch import Fetcher
from ..remote.registry import DirectLocation, RegistryClient
from ..versions.hashicorp_go_version import GoVersion
from .base import AvailableVersion, ConfigFiles, Package

log = logging.getLogger(__name__)


class RegistryCandidates:
    """Candidate provider for ``[host/]namespace/name/system`` sources."""

    def __init__(self, client: RegistryClient, fetcher: Fetcher, oci=None):
        self.client = client
        self.fetcher = fetcher
        self.oci = oci  # OciCandidates, for registries whose download location is oci://

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
        """The version's package, through the registry's download location (OpenTofu
        requests the normalized go-version string, reference §1, step 6); a version from
        the lock comes straight from the immutable ``package`` it records (issue #25): no
        download-location request, no tag resolution. When that package cannot be fetched
        (a repository that needs the credential its redacted address left out, or one
        gone), the version is fetched through the registry as it would be without a lock,
        and the package it resolves to is compared with the lock's by the caller."""
        first: NetworkError | None = None
        if available.package:
            try:
                return self._from_location(source, available.package)
            except NetworkError as e:
                log.info("the locked package %s could not be fetched (%s); asking the registry", available.package,
                         e.summary)
                first = e
        version = available.version.string if available.version else available.label
        try:
            location = self.client.module_location(source.package, version)
        except NetworkError as e:
            if first is None:
                raise
            # both failed: say both (the locked package's own failure may name the package store)
            raise NetworkError(e.summary, f"{e.detail}\nFirst, the locked package {available.package} could not be "
                               f"fetched: {first.detail}", e.where, e.url) from None
        if isinstance(location, DirectLocation):
            headers = self.client.auth_headers(location.host) if location.use_registry_credentials else {}
            fetched = self.fetcher.fetch_direct(str(location), headers)
            sub = go_path_clean(source.subdir) if source.subdir else ""
            return Package(fetched.path, "" if sub == "." else sub, str(source.package), None, fetched.zh)
        return self._from_location(source, location)

    def _from_location(self, source: RegistrySource, location: str) -> Package:
        """The package at a go-getter or ``oci://`` location (a download location, or the
        lock's immutable package), the call's own subdirectory joined to the location's."""
        loc_pkg, loc_sub = source_dir_subdir(location)
        if loc_pkg.startswith("oci://") and self.oci is not None:
            oci_src = parse_source(location)
            if not isinstance(oci_src, OciSource):
                raise TypeError(f"not an OCI source: {location}")
            ref = oci_src.digest or oci_src.tag or "latest"
            got = self.oci.fetch(oci_src, AvailableVersion(ref, None, oci_src.digest or None))
            sub = "/".join(p for p in (oci_src.subdir, source.subdir) if p)
            sub = go_path_clean(sub) if sub else ""
            return Package(got.root, "" if sub == "." else sub, str(source.package), got.commit,
                           got.zh, pin=immutable_address(location, got.commit))
        fetched = self.fetcher.fetch(loc_pkg, commit=pinned_reference(location))
        sub = "/".join(p for p in (loc_sub, source.subdir) if p)
        sub = go_path_clean(sub) if sub else ""
        return Package(fetched.path, "" if sub == "." else sub, str(source.package), fetched.commit,
                       fetched.zh, pin=immutable_address(location, fetched.commit))

    def config_files(self, source: RegistrySource, available: AvailableVersion) -> ConfigFiles | None:
        if available.package:
            # a locked version is installed anyway: read from the package fetch unpacks (which
            # falls back to the registry, see fetch), not from a second read of the same commit
            return None
        version = available.version.string if available.version else available.label
        location = self.client.module_location(source.package, version)
        if isinstance(location, DirectLocation):
            return None
        loc_pkg, loc_sub = source_dir_subdir(location)
        if loc_pkg.startswith("oci://"):
            return None
        got = self.fetcher.config_files(loc_pkg, commit=pinned_reference(location))
        if got is None:
            return None
        sub = "/".join(p for p in (loc_sub, source.subdir) if p)
        sub = go_path_clean(sub) if sub else ""
        return ConfigFiles(got[0], "" if sub == "." else sub, immutable_address(location, got[1]))

