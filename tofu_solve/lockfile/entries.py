"""The contents of a ``.terraform.lock.hcl``: provider locks (OpenTofu's) and module locks
(tofu-solve's, keyed by module call path as the module-locking RFC's first draft shows)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .._lazy import load
from ..addrs.provider import DEFAULT_PROVIDER_HOST, ProviderAddress

TRANSITIONAL_HOST = "registry.terraform.io"


@dataclass(frozen=True)
class ProviderLock:
    """One ``provider "<host/ns/type>"`` block.

    Attributes:
        address: the provider.
        version: canonical go-versions string.
        constraints: canonical constraint string ("" when none).
        hashes: sorted, de-duplicated hash strings.
        raw: the block's text as read (None for locks built in memory); kept so that
            provider blocks tofu-solve does not change are written back untouched.
    """

    address: ProviderAddress
    version: str
    constraints: str = ""
    hashes: tuple[str, ...] = ()
    raw: str | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "hashes", tuple(sorted(set(self.hashes))))

    def contains_all(self, target: ProviderLock | None) -> bool:
        """OpenTofu's ``ProviderLock.ContainsAll``: every hash of ``target`` is here
        (a missing or hash-less target is contained)."""
        if target is None:
            return True
        return set(target.hashes) <= set(self.hashes)


@dataclass(frozen=True)
class ModuleLock:
    """One ``module "<call.path>"`` block.

    Attributes:
        path: the module call path (``vpc``, ``vpc.nested``).
        version: the selected version as written in the lock (go-version ``String()``
            for registry modules; the tag for git and OCI).
        source: the module source address the version was resolved for (normalized; for
            git and OCI pinned to the selected tag/commit or digest).
        constraints: the call's version constraint text ("" when none).
        hashes: sorted, de-duplicated (``h1:``, ``zh:``; lock files written before issue #25
            also hold ``git:<commit>`` or an OCI ``sha256:`` manifest digest here).
        package: the immutable address the version was installed from, redacted (issue
            #25, the layout of OpenTofu's draft module-installation RFC, PR #4071): a git
            package at its commit (``git::https://host/repo.git//sub?ref=<40 hex>``), an OCI
            package at its manifest digest (``oci://host/repo?digest=sha256:...``), or an
            archive URL that carries a ``checksum``; "" when there is none.
        floating: True when the source has no immutable form (an archive without
            ``checksum``, a registry's direct download): only the ``h1:`` hash pins it.
        line: the line the block starts at in the lock file it was read from (0 when it was
            not read from one); not part of its value.
    """

    path: str
    version: str
    source: str
    constraints: str = ""
    hashes: tuple[str, ...] = ()
    package: str = ""
    floating: bool = False
    line: int = field(default=0, compare=False)  # where the block starts in the file read (0: not read from one)

    def __post_init__(self):
        object.__setattr__(self, "hashes", tuple(sorted(set(self.hashes))))


@dataclass(frozen=True)
class LockChange:
    """One lock block added, changed or removed by an init.

    Attributes:
        block: ``"module"`` or ``"provider"``.
        label: the block's label: a module call path or a provider address.
        old, new: the version before and after (None: the block was absent / is removed).
        reason: why it changed, with the place that caused it (issue #34); "" when unknown.
    """

    block: str
    label: str
    old: str | None
    new: str | None
    reason: str = ""

    @property
    def kind(self) -> str:
        return "added" if self.old is None else "removed" if self.new is None else "changed"

    @property
    def path(self) -> str:
        """The label, for module blocks (a call path)."""
        return self.label


@dataclass
class LockFile:
    """Provider and module locks, keyed by address string / call path."""

    providers: dict[str, ProviderLock] = field(default_factory=dict)
    modules: dict[str, ModuleLock] = field(default_factory=dict)

    def upgrade_from_predecessor(self) -> dict[str, str]:
        """OpenTofu's ``Locks.UpgradeFromPredecessorProject``: copy each
        ``registry.terraform.io/hashicorp/*`` lock to ``registry.opentofu.org`` (without
        hashes, which differ between the registries) when no lock exists there.

        Returns the changes made, old address -> new address.
        """
        changes = {}
        for key, lock in sorted(self.providers.items()):
            a = lock.address
            if a.host != TRANSITIONAL_HOST or a.namespace != "hashicorp":
                continue
            new = ProviderAddress(DEFAULT_PROVIDER_HOST, a.namespace, a.type)
            if str(new) in self.providers:
                continue
            self.providers[str(new)] = ProviderLock(new, lock.version, lock.constraints, ())
            changes[key] = str(new)
        return changes

    def with_modules(self, modules: dict[str, ModuleLock]) -> LockFile:
        """A copy whose module locks are exactly ``modules`` (providers untouched)."""
        return LockFile(dict(self.providers), dict(modules))


LEGACY_PINS = ("git:", "sha256:")  # hash-list prefixes that pinned a commit or digest before issue #25


def content_hashes(lock: ModuleLock) -> tuple[str, ...]:
    """The lock's hashes without the commit and digest pins that lock files written before
    issue #25 kept among them (now in ``package``)."""
    return tuple(h for h in lock.hashes if not h.startswith(LEGACY_PINS))


def same_selection(old: ModuleLock, new: ModuleLock) -> bool:
    """Whether ``new`` locks what ``old`` locks: equal, or ``old`` was written before issue
    #25 (no ``package``, no ``floating``; a ``git:``/``sha256:`` pin among its hashes) and
    ``new`` is the same entry completed. Such a lock file stays valid: it is completed on
    its next write, and ``-lockfile=readonly`` accepts it."""
    if old == new:
        return True
    if old.package or old.floating:
        return False
    return (old.version, old.source, old.constraints, content_hashes(old)) == \
        (new.version, new.source, new.constraints, new.hashes)


def locked_commit(lock: ModuleLock | None) -> str | None:
    """What a lock entry pins beyond content: the commit or OCI manifest digest of its
    ``package``, else (lock files written before issue #25) the ``git:`` commit or the
    ``sha256:`` manifest digest among its hashes."""
    if lock is None:
        return None
    if lock.package:
        load("tofu_solve.addrs.immutable")
        from ..addrs.immutable import pinned_reference
        return pinned_reference(lock.package)
    for h in lock.hashes:
        if h.startswith("git:"):
            return h[4:]
        if h.startswith("sha256:"):
            return h
    return None
