"""Reading from the store (issue #49; split by job in issue #71 §2): a module package or a
provider package, found as OpenTofu's ``oci`` getter and ``oci_mirror`` find them, and
accepted only when it verifies against what the lock records (:class:`StoreLedger`). Nothing
read is trusted before that; what fails is recorded once in the ledger and the origin is used.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ...addrs.provider import ProviderAddress
from ...errors import IntegrityError, NetworkError, TofuSolveError
from ...lockfile.hashes import VCS_DIRS, hash_dir
from ..archives import extract_archive
from ..limits import Limits
from ..oci import IMAGE_INDEX, IMAGE_MANIFEST, OciClient, OciError
from .artifacts import MODULE_ARTIFACT, PROVIDER_ARTIFACT, PROVIDER_PACKAGE, PROVIDER_TARGET, ZIP_LAYER, empty_dir
from .keys import VERSION_TAG, ModuleKey, ProviderKey, provider_label
from .ledger import Lacking, PackageOutcome, Rejected, StoreLedger, StoreOutcome


class StoreReader:
    """Reads packages from the store over the run's one client, verified against the lock.

    Args:
        ledger: the run's record of the store (what the lock expects, what failed).
        client: an :class:`OciClient` made for the store (``store_retries``, ``STORE_TIMEOUT``).
        limits: the run's bounds (sizes of what is unpacked).
    """

    def __init__(self, ledger: StoreLedger, client: OciClient, limits: Limits):
        self.ledger = ledger
        self.client = client
        self.limits = limits

    # ------------------------------------------------------------------ modules

    def read_module(self, key: ModuleKey, dest: Path) -> bool:
        """Fill the empty directory ``dest`` with the package at ``key`` from the store,
        when the lock records an ``h1:`` for it and the artifact's contents hash to one of
        them. False (``dest`` left empty) on a miss, a store that does not answer, or an
        artifact that fails OpenTofu's module package checks or the ``h1:``; never raises
        for the store's sake."""
        h1s = self.ledger.module_h1s(key)
        if h1s is None or not self.ledger.available():
            return False
        return self.module_into(key, dest, h1s) is None

    def module_into(self, key: ModuleKey, dest: Path, h1s: tuple[str, ...],
                    installing: bool = True) -> PackageOutcome | None:
        """:meth:`read_module`'s work: None when ``dest`` holds the verified package, else
        what the store holds instead (missing, rejected); ``installing``: the package is
        installed from it, and counts as read from the store this run (a check's is not)."""
        repository, label = key.repository(self.ledger.address), self.ledger.label(key)
        rejection = self.ledger.rejection(label)
        if rejection is not None:
            return PackageOutcome(label, StoreOutcome.REJECTED, rejection)
        layer = ""
        try:
            art = self.client.resolve(self.ledger.address.host, repository, key.tag)
            layer = art.layer_digest
            data = self.client.download(self.ledger.address.host, repository, art, dest)
        except (OciError, IntegrityError) as e:
            if isinstance(e, IntegrityError) and layer:
                self.ledger.corrupt(repository, layer)
            self.ledger.rejected(label, f"{e.summary}: {e.detail}", (repository, key.tag))
            return PackageOutcome(label, StoreOutcome.REJECTED, f"{e.summary}: {e.detail}")
        except NetworkError as e:
            if e.summary != "OCI artifact not found":
                self.ledger.went_down(e)
                return PackageOutcome(label, StoreOutcome.MISSING, f"the store did not answer ({e.summary})")
            self.ledger.lacks(label, f"no tag {key.tag} in {repository}")
            return PackageOutcome(label, StoreOutcome.MISSING, f"no tag {key.tag} in {repository}")
        try:
            extract_archive(data, "zip", dest, self.limits)
            got = hash_dir(dest, exclude=VCS_DIRS)
        except TofuSolveError as e:
            empty_dir(dest)
            self.ledger.rejected(label, f"{e.summary}: {e.detail}", (repository, key.tag))
            return PackageOutcome(label, StoreOutcome.REJECTED, f"{e.summary}: {e.detail}")
        if got not in h1s:
            empty_dir(dest)
            why = f"its contents hash to {got}, the lock records {', '.join(h1s)}"
            self.ledger.rejected(label, why, (repository, key.tag))
            return PackageOutcome(label, StoreOutcome.REJECTED, why)
        if installing:
            self.ledger.installed(key, label)
        return None

    # ------------------------------------------------------------------ providers

    def provider_index(self, key: ProviderKey) -> list[dict]:
        """The ``provider-target`` entries of a provider version's index, checked as
        OpenTofu's ``oci_mirror`` checks it (``internal/getproviders/
        oci_registry_mirror_source.go``): the tag names an index of ``artifactType``
        ``application/vnd.opentofu.provider``; entries of other artifact types are ignored,
        and each entry of that type has a platform.

        Raises:
            Lacking: no tag for the version.
            Rejected: not in OpenTofu's format (the reason in OpenTofu's words).
            NetworkError: the store failed.
        """
        repository = key.repository(self.ledger.address) or ""
        try:
            body, _, media = self.client.manifest(self.ledger.address.host, repository, key.tag, IMAGE_INDEX)
        except NetworkError as e:
            if e.summary == "OCI artifact not found":
                raise Lacking(f"no tag {key.tag} in {repository}") from None
            raise
        except OciError as e:
            raise Rejected(e.detail) from None
        try:
            index = json.loads(body)
            if not isinstance(index, dict):
                raise ValueError
        except ValueError:
            raise Rejected(f"the tag {key.tag} names a manifest that is not JSON") from None
        artifact = index.get("artifactType")
        if artifact != PROVIDER_ARTIFACT:
            why = {PROVIDER_TARGET: "the tag refers directly to an image manifest, but OpenTofu providers require an "
                                    "index manifest for multi-platform support",
                   MODULE_ARTIFACT: "the tag names an OpenTofu module package, not a provider package",
                   None: "the tag names a manifest with no artifactType (an OpenTofu provider index has "
                         f"{PROVIDER_ARTIFACT!r}); a tool that copied it may have dropped it"
                   }.get(artifact, f"unsupported OCI artifact type {artifact!r}")
            raise Rejected(why)
        if (index.get("mediaType") or media) != IMAGE_INDEX:
            raise Rejected(f"unsupported media type {index.get('mediaType') or media!r} for OCI index manifest")
        entries = [m for m in index.get("manifests") or [] if isinstance(m, dict)
                   and m.get("artifactType") == PROVIDER_TARGET]
        if any(not isinstance(m.get("platform"), dict) for m in entries):
            raise Rejected("provider image manifest lacks the required platform constraints")
        if not entries and index.get("manifests"):
            raise Rejected("provider image manifest has unsupported artifact type; the index lists no "
                            f"{PROVIDER_TARGET!r} manifest")
        return entries

    def provider_layer(self, key: ProviderKey, platform: str) -> dict:
        """The zip layer's descriptor of ``platform``'s package, found as OpenTofu's
        ``oci_mirror`` finds it: in :meth:`provider_index`'s entries exactly one has the
        platform; its image manifest's one layer of ``artifactType``
        ``application/vnd.opentofu.providerpkg`` is ``archive/zip``.

        Raises:
            Lacking: no tag for the version, or no package for the platform.
            Rejected: not in OpenTofu's format (the reason in OpenTofu's words).
            NetworkError: the store failed.
        """
        repository = key.repository(self.ledger.address) or ""
        host = self.ledger.address.host
        entries = self.provider_index(key)
        os_name, _, arch = platform.partition("_")
        listed = sorted(f"{m['platform'].get('os')}_{m['platform'].get('architecture')}" for m in entries)
        matching = [m for m in entries if m["platform"].get("os") == os_name
                    and m["platform"].get("architecture") == arch and not m["platform"].get("os.version")]
        if not matching:
            raise Lacking(f"its index has no {platform} package" + (f" (it has {', '.join(listed)})" if listed
                                                                      else ""))
        if len(matching) > 1:
            raise Rejected(f"ambiguous manifest has multiple descriptors for platform {platform}")
        if matching[0].get("mediaType") != IMAGE_MANIFEST:
            raise Rejected(f"provider image manifest has unsupported media type {matching[0].get('mediaType')!r}")
        try:
            body, _, _ = self.client.manifest(host, repository, str(matching[0].get("digest")), IMAGE_MANIFEST)
            manifest = json.loads(body)
        except OciError as e:
            raise Rejected(e.detail) from None
        except ValueError:
            raise Rejected("the platform's manifest is not JSON") from None
        except NetworkError as e:
            if e.summary == "OCI artifact not found":
                raise Rejected(f"its index names the {platform} manifest {matching[0].get('digest')}, which the "
                                "repository does not have") from None
            raise
        if not isinstance(manifest, dict) or manifest.get("artifactType") != PROVIDER_TARGET:
            found = manifest.get("artifactType") if isinstance(manifest, dict) else None
            raise Rejected(f"unexpected artifact type {found!r}")
        layers = [la for la in manifest.get("layers") or [] if isinstance(la, dict)
                  and la.get("artifactType") == PROVIDER_PACKAGE]
        zips = [la for la in layers if la.get("mediaType") == ZIP_LAYER]
        if len(zips) > 1:
            raise Rejected("manifest specifies more than one provider package")
        if not zips:
            if layers:
                raise Rejected(f"provider package has unsupported media type {layers[0].get('mediaType')!r}")
            raise Rejected("no suitable provider package declared in artifact manifest (a layer of "
                            f"artifactType {PROVIDER_PACKAGE!r} and media type {ZIP_LAYER!r})")
        return zips[0]

    def read_provider(self, key: ProviderKey, platform: str) -> tuple[bytes, str] | None:
        """The zip of a provider package for ``platform`` (``os_arch``) from the store and
        the hash of the lock it matched (``zh:`` of the zip), or None: no lock hashes for
        the version, a miss (what it lacked is kept for the ledger's ``why_not``), a store that does
        not answer, or a package that is not in OpenTofu's format or none of the lock's
        ``zh:`` hashes verifies (reported once). The caller checks an ``h1:``-only lock
        against the unpacked package."""
        hashes = self.ledger.provider_hashes(key) or None
        repository = key.repository(self.ledger.address)
        label = provider_label(key, platform)
        if hashes is None or repository is None or not self.ledger.available() \
                or self.ledger.rejection(label) is not None:
            return None
        digest = ""

        def recorded(zh: str) -> bool:  # an h1:-only lock is checked by the caller, against the unpacked package
            return zh in hashes or any(h.startswith("h1:") for h in hashes)
        try:
            layer = self.provider_layer(key, platform)
            digest = str(layer.get("digest"))
            # the zip's zh: is its sha256: digest, known before a byte is read; a digest of another
            # algorithm (which the client checks the bytes against) tells it only from the bytes
            zh = "zh:" + digest.removeprefix("sha256:") if digest.startswith("sha256:") else ""
            if zh and not recorded(zh):
                raise Rejected(f"its zip is {zh}, which the lock does not record")
            data = self.client.blob(self.ledger.address.host, repository, digest, int(layer.get("size", -1)),
                                    "the provider package")
        except Lacking as e:
            self.ledger.lacks(label, str(e))
            return None
        except Rejected as e:
            self.ledger.rejected(label, str(e), (repository, key.tag))
            return None
        except (OciError, IntegrityError) as e:
            if isinstance(e, IntegrityError) and digest:
                self.ledger.corrupt(repository, digest)
            self.ledger.rejected(label, f"{e.summary}: {e.detail}", (repository, key.tag))
            return None
        except NetworkError as e:
            self.ledger.went_down(e)
            return None
        except (ValueError, TypeError) as e:
            self.ledger.rejected(label, f"not an OpenTofu provider package ({e})", (repository, key.tag))
            return None
        if not zh:
            zh = "zh:" + hashlib.sha256(data).hexdigest()
            if not recorded(zh):
                self.ledger.rejected(label, f"its zip is {zh}, which the lock does not record", (repository, key.tag))
                return None
        return data, zh

    def stored_platforms(self, key: ProviderKey) -> tuple[dict[str, str], str]:
        """The platforms the store's index lists for a provider version, each with its
        zip's ``zh:`` hash (from its manifest's layer digest; "" for a platform whose
        manifest is not in OpenTofu's format), and why the index as a whole was rejected
        ("" when it was not). ({}, "") when there is no index. Raises NetworkError."""
        label = f"provider {key.hostname}/{key.namespace}/{key.type} {key.version}"
        try:
            entries = self.provider_index(key)
        except Lacking:
            return {}, ""
        except Rejected as e:
            self.ledger.rejected(label, str(e), (key.repository(self.ledger.address) or "", key.tag))
            return {}, str(e)
        out: dict[str, str] = {}
        for m in entries:
            platform = f"{m['platform'].get('os')}_{m['platform'].get('architecture')}"
            try:
                out[platform] = "zh:" + str(self.provider_layer(key, platform).get("digest")).removeprefix("sha256:")
            except (Lacking, Rejected):
                out[platform] = ""
        return out, ""

    def provider_versions(self, address: ProviderAddress) -> list[str]:
        """The versions the store holds for a provider: its repository's tags that are
        versions (``_`` read as ``+``, as OpenTofu's ``oci_mirror`` reads them), for a run
        whose registry cannot be reached; [] on a miss or a store that does not answer."""
        key = ProviderKey(address.host, address.namespace, address.type, "")
        repository = key.repository(self.ledger.address)
        if repository is None or not self.ledger.available():
            return []
        try:
            tags = self.client.tags(self.ledger.address.host, repository)
        except NetworkError as e:
            if e.summary != "OCI repository not found":
                self.ledger.went_down(e)
            return []
        return [t.replace("_", "+") for t in tags if VERSION_TAG.fullmatch(t)]
