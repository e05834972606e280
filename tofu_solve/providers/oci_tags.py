"""OCI module sources: ``oci://host/repo`` with a ``version`` constraint (strict-SemVer
tags of the repository), or pinned by ``?tag=`` / ``?digest=`` (neither: ``latest``, as in
OpenTofu)."""

from __future__ import annotations

import hashlib

from ..addrs.immutable import immutable_address
from ..addrs.module_source import OciSource
from ..errors import IntegrityError
from ..remote.archives import extract_archive
from ..remote.git import strict_semver_tags
from ..remote.oci import Artifact, OciClient
from ..store.cache import Cache, key_of
from .base import AvailableVersion, ConfigFiles, Package


class OciCandidates:
    """Candidate provider for ``oci://`` sources."""

    def __init__(self, client: OciClient, cache: Cache):
        self.client = client
        self.cache = cache
        # (repository, tag or digest) -> the artifact fetched this run, and its creation time once known
        self._artifacts: dict[tuple[str, str], Artifact] = {}
        self._created: dict[tuple[str, str], float | None] = {}

    def release_time(self, source: OciSource, label: str) -> float | None:
        """When the artifact a tag (or digest) names was created, known once it was fetched
        this run: its manifest's ``org.opencontainers.image.created`` annotation, else the
        ``created`` time of its image configuration (one small request, made only here, for
        the cooldown); None otherwise. Raises NetworkError (reading the configuration)."""
        key = (source.package_address, label)
        if key in self._created:
            return self._created[key]
        art = self._artifacts.get(key)
        doc = key_of(f"{source.package_address}@{label}")
        if art is None:
            # not fetched this run (its requirements came from the metadata cache): the time
            # an earlier run read, so that a warm run decides as a cold one did
            known = self.cache.read_json("oci-created", doc)
            return float(known) if isinstance(known, (int, float)) else None
        when = art.created if art.created is not None else \
            self.client.config_created(source.registry, source.repository, art)
        self._created[key] = when
        if when is not None:
            self.cache.write_json("oci-created", doc, when)
        return when

    def package_address(self, source: OciSource) -> str:
        return source.package_address

    def versions(self, source: OciSource) -> list[AvailableVersion]:
        tags = dict.fromkeys(self.client.tags(source.registry, source.repository), "")
        return [AvailableVersion(tag, v) for v, tag in strict_semver_tags(tags)]

    def pin(self, source: OciSource) -> list[AvailableVersion]:
        return [AvailableVersion(source.digest or source.tag or "latest", None, source.digest or None)]

    def config_files(self, source: OciSource, available: AvailableVersion) -> ConfigFiles | None:
        """Never without unpacking: an OCI package arrives as one blob, unpacked (see
        :meth:`~tofu_solve.providers.base.CandidateProvider.config_files`)."""
        return None

    def fetch(self, source: OciSource, available: AvailableVersion) -> Package:
        """Resolve the tag (or digest) to its manifest, check it, download and verify the zip
        layer, extract it into the cache (keyed by manifest digest).

        Raises:
            IntegrityError: the tag now names another manifest than the locked digest
                (re-pushed tag), or the blob does not match its digest.
        """
        reference = available.label
        if available.package and available.commit:
            reference = available.commit  # the lock's digest: the tag is not resolved again
        if available.commit and not reference.startswith("sha256:"):
            art = self.client.resolve(source.registry, source.repository, reference)
            if art.manifest_digest != available.commit:
                raise IntegrityError(
                    "Moved OCI tag",
                    f"The lock file records {source.package_address}:{reference} at manifest {available.commit}, "
                    f"but the registry now serves {art.manifest_digest} for that tag: it was pushed again. If the "
                    "new artifact is intended, review it, then accept it at the same tag with: tofu-solve init "
                    "-accept-checksum=CALL (the module call cited here)")
        else:
            art = self.client.resolve(source.registry, source.repository, reference)
        label = available.label
        self._artifacts[(source.package_address, label)] = art
        if art.created is not None:  # remembered for runs that do not fetch it (see release_time)
            self.cache.write_json("oci-created", key_of(f"{source.package_address}@{label}"), art.created)

        def fill(dest):
            data = self.client.download(source.registry, source.repository, art, dest)
            extract_archive(data, "zip", dest, self.client.limits)
            self.cache.write_archive_hash((source.package_address, art.manifest_digest),
                                          hashlib.sha256(data).hexdigest())

        root = self.cache.ensure_package(source.package_address, art.manifest_digest, fill)
        zh = self.cache.archive_hash((source.package_address, art.manifest_digest))
        return Package(root, source.subdir, source.package_address, art.manifest_digest, zh,
                       pin=immutable_address(str(source), art.manifest_digest))
