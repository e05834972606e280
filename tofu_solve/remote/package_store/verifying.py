"""Verifying what the store holds (issue #49; split by job in issue #71 §2), for ``store
verify`` and ``store push``: each package read or looked at exactly as ``init`` would accept
it, and reported as VERIFIED, COMPLETE, MISSING or REJECTED with what differed.
"""

from __future__ import annotations

from pathlib import Path

from ...errors import NetworkError, TofuSolveError
from ...lockfile.hashes import hash_dir
from ..archives import extract_archive
from ..limits import Limits
from .artifacts import empty_dir
from .keys import ModuleKey, ProviderKey, provider_label
from .ledger import REPAIR_ADVICE, Lacking, PackageOutcome, Rejected, StoreLedger, StoreOutcome
from .reading import StoreReader


class StoreVerifier:
    """Checks packages in the store against the lock's hashes, reading through the run's
    :class:`StoreReader` (one client) and recording in its ledger.

    Args:
        reader: the run's reader of the store.
        limits: the run's bounds (sizes of what is unpacked).
    """

    def __init__(self, reader: StoreReader, limits: Limits):
        self.reader = reader
        self.ledger: StoreLedger = reader.ledger
        self.client = reader.client
        self.limits = limits

    def check_module(self, key: ModuleKey, h1s: tuple[str, ...], scratch: Path) -> PackageOutcome:
        """Read the module package at ``key`` into ``scratch`` (an empty directory, emptied
        again after) and verify it against ``h1s`` exactly as ``init`` would: VERIFIED,
        MISSING or REJECTED (with what differed). A module package is small, so ``store
        push`` checks it this way too, and replaces what fails."""
        label = self.ledger.label(key)
        if not self.ledger.available():
            return PackageOutcome(label, StoreOutcome.MISSING, f"the store did not answer ({self.ledger.report.down})")
        try:
            found = self.reader.module_into(key, scratch, h1s, installing=False)
        finally:
            empty_dir(scratch)
        return found or PackageOutcome(label, StoreOutcome.VERIFIED)

    def check_provider(self, key: ProviderKey, platform: str, scratch: Path) -> PackageOutcome:
        """Read ``platform``'s package of a provider version from the store and verify it as
        ``init`` would (:meth:`~.reading.StoreReader.read_provider`, then the zip unpacked into ``scratch``, an
        empty directory emptied again after: its ``zh:`` or its ``h1:`` must be one the
        lock records): VERIFIED, MISSING or REJECTED, with what differed."""
        label = provider_label(key, platform)
        got = self.reader.read_provider(key, platform)
        if got is None:
            rejected = self.ledger.rejection(label)
            down, lacking = self.ledger.report.down, self.ledger.lacking(label)
            if rejected is not None:
                return PackageOutcome(label, StoreOutcome.REJECTED, rejected)
            if down:
                return PackageOutcome(label, StoreOutcome.MISSING, f"the store did not answer ({down})")
            return PackageOutcome(label, StoreOutcome.MISSING, lacking or "the lock records no hash for it")
        data, zh = got
        hashes = self.ledger.provider_hashes(key)
        try:
            extract_archive(data, "zip", scratch, self.limits)
            h1 = hash_dir(scratch)
        except TofuSolveError as e:
            why = f"{e.summary}: {e.detail}"
            self.ledger.rejected(label, why, (key.repository(self.ledger.address) or "", key.tag))
            return PackageOutcome(label, StoreOutcome.REJECTED, why)
        finally:
            empty_dir(scratch)
        if zh not in hashes and h1 not in hashes:
            why = f"its zip is {zh} and unpacks to {h1}, neither of which the lock records"
            self.ledger.rejected(label, why, (key.repository(self.ledger.address) or "", key.tag))
            return PackageOutcome(label, StoreOutcome.REJECTED, why)
        return PackageOutcome(label, StoreOutcome.VERIFIED)

    def provider_complete(self, key: ProviderKey, platform: str) -> PackageOutcome:
        """Whether the store holds ``platform``'s package of a provider version in OpenTofu's
        format, its zip's digest one of the lock's ``zh:`` hashes and the blob there at its
        size (``HEAD``: the bytes are read by ``store verify``): COMPLETE, MISSING or
        REJECTED. ``store push`` pushes what is not COMPLETE."""
        label = provider_label(key, platform)
        repository = key.repository(self.ledger.address) or ""
        hashes = self.ledger.provider_hashes(key)
        if not self.ledger.available():
            return PackageOutcome(label, StoreOutcome.MISSING, f"the store did not answer ({self.ledger.report.down})")
        try:
            layer = self.reader.provider_layer(key, platform)
            digest, size = str(layer.get("digest")), int(layer.get("size", -1))
            if hashes and any(h.startswith("zh:") for h in hashes) and \
                    "zh:" + digest.removeprefix("sha256:") not in hashes:
                raise Rejected(f"its zip is {digest}, which the lock does not record")
            stored = self.client.blob_size(self.ledger.address.host, repository, digest)
        except Lacking as e:
            return PackageOutcome(label, StoreOutcome.MISSING, str(e))
        except Rejected as e:
            self.ledger.rejected(label, str(e), (repository, key.tag))
            return PackageOutcome(label, StoreOutcome.REJECTED, str(e))
        except NetworkError as e:
            self.ledger.went_down(e)
            return PackageOutcome(label, StoreOutcome.MISSING, f"the store did not answer ({e.summary})")
        if stored is None:
            return PackageOutcome(label, StoreOutcome.MISSING, f"its zip {digest} is not in {repository}")
        if stored not in (-1, size):
            why = f"Corrupt OCI blob: {repository}@{digest} is {stored} bytes, its descriptor says {size}"
            self.ledger.rejected(label, why, (repository, key.tag))
            self.ledger.corrupt(repository, digest, (label, f"{repository}@{digest}: {why}. {REPAIR_ADVICE}"))
            return PackageOutcome(label, StoreOutcome.REJECTED, why)
        return PackageOutcome(label, StoreOutcome.COMPLETE)
