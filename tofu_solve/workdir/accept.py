"""``-accept-checksum=NAME,...`` (issue #60 §1): which lock entries get new contents at
their locked versions, the lock the solve starts from for them, the refusal when the solve
would move one, and the change list's reasons."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..addrs.product import Product
from ..config.tree import ModuleTree
from ..errors import ConfigurationError, IntegrityError, SourceRange
from ..lockfile import LOCK_FILE_NAME, LockFile
from ..lockfile.named import named_locks
from ..plugins.provider_locks import ProviderLockPlan
from ..solver.resolve import Resolution
from .verify import AcceptedChecksum


@dataclass(frozen=True)
class AcceptedChecksums:
    """What ``-accept-checksum=NAME,...`` names (issue #60 §1): module call paths and
    provider addresses whose new contents are accepted at their locked versions. Nothing
    moves for it: the solve holds every lock as a plain ``init`` does, and the run is
    refused when a named subject's version would change (:meth:`refuse_moves`)."""

    names: tuple[str, ...] = ()
    modules: dict[str, str] = field(default_factory=dict)  # call path -> the NAME that named it
    providers: dict[str, str] = field(default_factory=dict)  # provider address -> the NAME

    @staticmethod
    def of(names: tuple[str, ...], locks: LockFile, tree: ModuleTree, product: Product, *, upgrade: bool = False,
           readonly: bool = False) -> AcceptedChecksums:
        """The flag's ``names`` resolved against the lock file; ``upgrade``: ``-upgrade`` or
        ``-upgrade=NAME`` given, ``readonly``: ``-lockfile=readonly``.

        Raises:
            ConfigurationError: with ``-upgrade`` or ``-lockfile=readonly`` (one moves what
                should stay, the other writes nothing to accept into), or a NAME that names
                no lock entry (:func:`named_locks`).
        """
        if not names:
            return AcceptedChecksums()
        if upgrade or readonly:
            other = "-lockfile=readonly" if readonly else "-upgrade"
            raise ConfigurationError(
                "Incompatible flags",
                f"-accept-checksum accepts new contents at the locked versions and writes them to the lock file; "
                f"it cannot be combined with {other}. Accept the checksums first, then run the other command.")
        named_modules, named_providers = named_locks(locks, tree, names, product, "-accept-checksum")
        return AcceptedChecksums(names, {p: n for n, ps in named_modules.items() for p in ps},
                       {a: n for n, addrs in named_providers.items() for a in addrs})

    def unpinned(self, locks: LockFile) -> LockFile:
        """``locks`` with the named modules' entries kept at their versions but without what
        pins their contents (hashes, the package's commit or digest), so that the version's
        current package is fetched and hashed."""
        if not self.modules:
            return locks
        return locks.with_modules({p: replace(m, hashes=(), package="") if p in self.modules else m
                                   for p, m in locks.modules.items()})

    def refuse_moves(self, res: Resolution, locks: LockFile) -> None:
        """Raises IntegrityError when the solve moves a named subject off its locked version
        (the configuration no longer admits it, or the call is gone): the reviewed code and
        the installed code must be the same."""
        for path, name in sorted(self.modules.items()):
            lock, cand = locks.modules[path], res.modules.get(path)
            if cand is None or cand.version_text != lock.version:
                now = f"would move it {lock.version} -> {cand.version_text}" if cand is not None else \
                    "no longer calls it"
                raise IntegrityError(
                    "Checksum not accepted",
                    f'-accept-checksum={name} accepts new contents of module "{path}" at its locked version '
                    f"{lock.version} only, but the configuration {now}. Nothing was changed. Choose the version "
                    f"first (tofu-solve init -upgrade={path}, then review what it selects), or restore the "
                    "constraint that admits the locked version.", SourceRange(LOCK_FILE_NAME, lock.line)
                    if lock.line else None)
        for addr, name in sorted(self.providers.items()):
            plock, pick = locks.providers[addr], res.providers.get(addr)
            if pick is None or str(pick.version) != plock.version:
                now = f"would move it {plock.version} -> {pick.version}" if pick is not None else \
                    "no longer requires it"
                raise IntegrityError(
                    "Checksum not accepted",
                    f"-accept-checksum={name} accepts new contents of provider {addr} at its locked version "
                    f"{plock.version} only, but the configuration {now}. Nothing was changed.")

    def provider_reason(self, addr: str, locks: LockFile, plan: ProviderLockPlan) -> str:
        """The change list's reason for a provider block whose checksums were accepted: the
        hashes before and after; "" for any other block."""
        old, new = locks.providers.get(addr), plan.providers.get(addr)
        if addr not in self.providers or old is None or new is None:
            return ""
        gone = sorted(set(old.hashes) - set(new.hashes))
        added = sorted(set(new.hashes) - set(old.hashes))
        return (f"checksum accepted at {new.version} (-accept-checksum={self.providers[addr]}): "
                f"{len(gone)} hash{'es' if len(gone) != 1 else ''} replaced by {len(added)}"
                + (f", {gone[0]} -> {added[0]}" if gone and added else ""))


def accepted_reason(a: AcceptedChecksum, name: str) -> str:
    """The change list's reason for a module block whose checksum was accepted: the old and
    new ``h1:`` with the package each came from."""
    def side(h1s: tuple[str, ...], package: str) -> str:
        return (", ".join(h1s) or "(no h1:)") + (f" ({package})" if package else "")
    return f"checksum accepted at {a.version} (-accept-checksum={name}): {side(a.old_h1, a.old_package)} -> " \
           f"{side(a.new_h1, a.new_package)}"


__all__ = ["AcceptedChecksums", "accepted_reason"]
