"""What one run knows of the store (issue #49; split by job in issue #71 §2): what the lock
expects of each package, how reports name it, what the store was found to hold or lack, and
:class:`StoreReport`. The reader, the verifier and the pusher (``reading``, ``verifying``,
``pushing``) share one :class:`StoreLedger`; nothing else of the run's state is shared.
"""

from __future__ import annotations

import enum
import logging
import threading
from dataclasses import dataclass, field

from ...errors import TofuSolveError
from .address import PUSH_VARIABLE, StoreAddress
from .keys import ModuleKey, ProviderKey, module_key, provider_label

log = logging.getLogger(__name__)

REPAIR_ADVICE = (
    "A push cannot replace it: a registry keeps one copy of each digest, and the verified package has the same "
    "digest. Delete the corrupt copy, then run tofu-solve store push again. On CNCF distribution (Debian's "
    "docker-registry, the registry image): delete the tag's manifest (DELETE /v2/REPOSITORY/manifests/DIGEST, with "
    "storage.delete.enabled), then run `registry garbage-collect --delete-untagged CONFIG` (Debian: docker-registry "
    "garbage-collect --delete-untagged /etc/docker/registry/config.yml), or remove the blob's directory "
    "docker/registry/v2/blobs/sha256/XX/HEX under the storage root; on a hosted registry, delete the blob or the "
    "tag from its console.")
"""What the operator must do about a corrupt blob that only a deletion can clear (a
provider package's zip, whose digest is its ``zh:`` hash: no other bytes can stand in)."""


class StoreOutcome(enum.StrEnum):
    """What the store holds for one package, as ``store push`` and ``store verify`` report it."""

    VERIFIED = "verified"  # read and verified exactly as init verifies it (store verify)
    COMPLETE = "complete"  # there, in OpenTofu's format, every blob present at its size (store push)
    PUSHED = "pushed"  # something was uploaded or written for it now
    MISSING = "missing"  # the store does not hold it (and, for push, it could not be had)
    REJECTED = "rejected"  # the store holds something under its name that is not it


@dataclass(frozen=True)
class PackageOutcome:
    """One package's line in ``store push`` / ``store verify``.

    Attributes:
        package: the label reports use (``ORIGIN at IDENTITY``, ``provider ADDRESS VERSION (OS_ARCH)``).
        outcome: what the store holds.
        reason: why (what differed, where the package could not be had), "" when all is well.
    """

    package: str
    outcome: StoreOutcome
    reason: str = ""


class Rejected(Exception):
    """What the store holds under a package's name is not that package in OpenTofu's format."""


class Lacking(Exception):
    """The store does not hold the package (for this platform)."""


@dataclass
class StoreReport:
    """What the store did in a run, for the summary line, warnings and ``-json``.

    Attributes:
        read: packages installed from the store, verified (labels).
        pushed: packages for which something was uploaded or written.
        rejected: (package label, what differed) for artifacts that failed verification or
            are not in OpenTofu's formats, each once.
        unrepaired: (package label, the corrupt blob and what the operator must do) for
            blobs a push cannot replace.
        not_pushed: packages whose push did not finish within the grace period, or failed.
        down: why the store stopped being asked ("" while it answers).
        read_only: why nothing was pushed ("" when pushing).
    """

    read: list[str] = field(default_factory=list)
    pushed: list[str] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)
    unrepaired: list[tuple[str, str]] = field(default_factory=list)
    not_pushed: list[str] = field(default_factory=list)
    down: str = ""
    read_only: str = ""


class StoreLedger:
    """The run's record of the store (thread-safe). ``expect_module`` / ``expect_provider``
    register what the lock records; nothing else is read from the store.

    Args:
        address: the store.
        push: whether the run pushes what it verified from origins (else the report says
            why not: ``TOFU_SOLVE_PACKAGE_STORE_PUSH=false``).
    """

    def __init__(self, address: StoreAddress, push: bool = True):
        self.address = address
        self.report = StoreReport(read_only="" if push else f"{PUSH_VARIABLE}=false")
        self._lock = threading.Lock()
        self._modules: dict[ModuleKey, tuple[tuple[str, ...], str]] = {}  # key -> (hashes, version)
        self._providers: dict[ProviderKey, tuple[str, ...]] = {}  # key -> the lock's hashes
        self._from_store: set[ModuleKey] = set()
        self._poisoned: set[tuple[str, str]] = set()  # (repository, tag) that failed verification
        self._corrupt: set[tuple[str, str]] = set()  # (repository, blob digest) whose bytes are not the digest's
        self._lacking: dict[str, str] = {}  # package label -> what the store lacks of it
        self._names: dict[ModuleKey, str] = {}  # how reports name a module package (name_module)

    # ------------------------------------------------------------------ what the lock expects

    def expect_module(self, key: ModuleKey, hashes: tuple[str, ...], version: str = "", call: str = "") -> None:
        """Record the hashes the lock gives the package at ``key`` (``h1:`` verifies what
        the store gives; an archive's ``zh:`` is kept for the lock), and how reports name it
        (``call``, the call path of the lock's block, and ``version``: :meth:`label`)."""
        self.name_module(key, call, version)
        if any(h.startswith("h1:") for h in hashes):
            with self._lock:
                self._modules[key] = (tuple(hashes), version)

    def name_module(self, key: ModuleKey, call: str, version: str) -> None:
        """Name the package at ``key`` in reports ``CALL VERSION`` (``vpc 6.6.0``, issue #68
        §3), by the first call that names it; another package already so named is named
        with its origin too, so that no two packages share a label."""
        if not call or not version:
            return
        with self._lock:
            if key in self._names:
                return
            name = f"{call} {version}"
            if name in self._names.values():
                name = f"{name} ({key.origin})"
            self._names[key] = name

    def module_h1s(self, key: ModuleKey) -> tuple[str, ...] | None:
        """The ``h1:`` hashes the lock records for the package at ``key``; None when the lock
        records none (such a package is never read from the store)."""
        with self._lock:
            expected = self._modules.get(key)
        return None if expected is None else tuple(h for h in expected[0] if h.startswith("h1:"))

    def recorded_zh(self, key: ModuleKey) -> str | None:
        """The hex SHA-256 of the origin's archive that the lock records for ``key`` (its
        ``zh:``), or None."""
        with self._lock:
            hashes = self._modules.get(key, ((), ""))[0]
        return next((h[3:] for h in hashes if h.startswith("zh:")), None)

    def expects(self, key: ModuleKey) -> bool:
        """Whether the lock records an ``h1:`` for the package at ``key`` (only such a
        package is ever read from the store)."""
        with self._lock:
            return key in self._modules

    def expect_provider(self, key: ProviderKey, hashes: tuple[str, ...]) -> None:
        """Record the hashes the lock gives a provider version."""
        if hashes:
            with self._lock:
                self._providers[key] = hashes

    def provider_hashes(self, key: ProviderKey) -> tuple[str, ...]:
        """The hashes the lock records for a provider version (() when none)."""
        with self._lock:
            return self._providers.get(key, ())

    def expects_package(self, package: str) -> bool:
        """:meth:`expects` for a lock's immutable ``package`` address."""
        key = module_key(package) if package else None
        return key is not None and self.expects(key)

    # ------------------------------------------------------------------ what the store gave

    def came_from_store(self, key: ModuleKey) -> bool:
        """Whether the package at ``key`` was read from the store this run (verified)."""
        with self._lock:
            return key in self._from_store

    def served_package(self, package: str) -> bool:
        """:meth:`came_from_store` for a lock's immutable ``package`` address."""
        key = module_key(package) if package else None
        return key is not None and self.came_from_store(key)

    def installed(self, key: ModuleKey, label: str) -> None:
        """The package at ``key`` (reported as ``label``) was installed from the store, verified."""
        with self._lock:
            self._from_store.add(key)
            if label not in self.report.read:
                self.report.read.append(label)

    def provider_read(self, key: ProviderKey, platform: str, verified: bool, why: str = "") -> None:
        """Record the outcome of the caller's check of a package the reader gave
        (:meth:`~.reading.StoreReader.read_provider`)."""
        label = provider_label(key, platform)
        if verified:
            with self._lock:
                if label not in self.report.read:  # read ahead during the solve, then asked by the plan
                    self.report.read.append(label)
        else:
            self.rejected(label, why, (key.repository(self.address) or "", key.tag))

    # ------------------------------------------------------------------ failures

    def available(self) -> bool:
        """Whether the store is still asked (it has not failed to answer this run)."""
        with self._lock:
            return not self.report.down

    def went_down(self, e: TofuSolveError) -> None:
        """The store failed to answer after the client's retries (:data:`~..oci.STORE_ATTEMPTS`):
        it is not asked again in this run."""
        with self._lock:
            if not self.report.down:
                self.report.down = f"{e.summary}: {e.detail}" if e.detail else e.summary
                log.warning("package store %s: %s", self.address, self.report.down)

    def rejected(self, label: str, why: str, where: tuple[str, str]) -> None:
        """Record that the artifact at ``where`` (repository, tag) is not the package
        ``label``: reported once, never read again this run, replaced by a push."""
        with self._lock:
            self._poisoned.add(where)
            if all(lbl != label for lbl, _ in self.report.rejected):
                self.report.rejected.append((label, why))

    def rejection(self, label: str) -> str | None:
        """Why the package ``label`` was rejected this run, or None when it was not."""
        with self._lock:
            return next((why for lbl, why in self.report.rejected if lbl == label), None)

    def poisoned(self, where: tuple[str, str]) -> bool:
        """Whether the artifact at ``where`` (repository, tag) failed verification this run."""
        with self._lock:
            return where in self._poisoned

    def corrupt(self, repository: str, digest: str, unrepaired: tuple[str, str] | None = None) -> None:
        """The registry's blob ``digest`` in ``repository`` is not the digest's bytes;
        ``unrepaired``: (label, what the operator must do) when no push can replace it."""
        with self._lock:
            self._corrupt.add((repository, digest))
            if unrepaired is not None:
                self.report.unrepaired.append(unrepaired)

    def is_corrupt(self, repository: str, digest: str) -> bool:
        """Whether the blob ``digest`` in ``repository`` was found corrupt this run."""
        with self._lock:
            return (repository, digest) in self._corrupt

    def lacks(self, label: str, why: str) -> None:
        """The store does not hold the package ``label`` (``why``: what it lacks)."""
        with self._lock:
            self._lacking.setdefault(label, why)

    def lacking(self, label: str) -> str:
        """What the store lacks of the package ``label`` ("" when nothing is known)."""
        with self._lock:
            return self._lacking.get(label, "")

    def why_not(self, label: str) -> str:
        """Why the store did not give the package ``label`` (for an error that names both
        places when its origin failed too)."""
        rejected, lacking = self.rejection(label), self.lacking(label)
        with self._lock:
            down = self.report.down
        if rejected is not None:
            return f"the package store {self.address} holds it, but it failed verification ({rejected})"
        if down:
            return f"the package store {self.address} did not answer ({down})"
        if lacking:
            return f"the package store {self.address} does not hold it ({lacking})"
        return f"the package store {self.address} does not hold it"

    def label(self, key: ModuleKey) -> str:
        """How reports name the module package at ``key``: its call and version
        (:meth:`name_module`), else its origin at its identity (a commit, a checksum)."""
        with self._lock:
            name = self._names.get(key)
        return name or f"{key.origin} at {key.identity[:12] if len(key.identity) == 40 else key.identity}"

    def note(self, field_name: str, entry) -> None:
        """Append ``entry`` to the report's list ``field_name`` (``pushed``, ``not_pushed``,
        ``unrepaired``), under the ledger's lock."""
        with self._lock:
            getattr(self.report, field_name).append(entry)

    def turn_read_only(self, why: str) -> None:
        """Nothing more is pushed this run (``why``: the credentials may not write)."""
        with self._lock:
            self.report.read_only = why

    def read_only(self) -> bool:
        """Whether pushing is off for this run."""
        with self._lock:
            return bool(self.report.read_only)
