"""The ``provider`` lock blocks ``tofu init`` would write for a solved configuration.

Rules (OpenTofu ``internal/command/init.go``, ``internal/providercache/installer.go``
lines 705-787, ``internal/depsfile/locks.go``; reference §6 and §10):

* one block per required provider, built-in providers excepted; a locked provider the
  configuration no longer requires is dropped;
* ``version``: the selected version (the locked one unless ``-upgrade``, which the solver
  already honours);
* ``constraints``: ``VersionConstraintsString`` of every constraint on the provider in the
  whole configuration, root and every selected module, appended in one list;
* ``hashes``: the ``h1:`` of the package unpacked for each target platform, every ``zh:``
  of the signed ``SHA256SUMS`` document, for an OpenTofu 1.12 target every platform's
  ``h1:`` and ``zh:`` from the registry's ``packages`` field (:mod:`.registry_hashes`) and,
  when the version is unchanged, the ``h1:`` and ``zh:`` hashes the lock already had
  (``PreferredHashes``; other schemes are dropped);
* a block whose version and constraints are unchanged and that already holds every hash
  this run would add is kept byte for byte, so ``tofu init`` sees equal locks and does not
  rewrite the file (which would drop every ``module`` block).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .._threads import worker_pool
from ..addrs.provider import ProviderAddress
from ..errors import IntegrityError, TofuSolveError
from ..lockfile import LockChange, LockFile, ProviderLock
from ..solver.resolve import Resolution
from ..versions import apparentlymart_go_versions as gvs
from .packages import PackageInfo, ProviderPackages

_PREFERRED = ("h1:", "zh:")  # getproviders.PreferredHashes: the schemes OpenTofu carries over


@dataclass
class ProviderLockPlan:
    """The provider blocks to write and how they differ from the lock file.

    Attributes:
        providers: address -> lock (kept blocks keep their raw text).
        changes: blocks added, changed (version, constraints or hashes) or removed.
        kept: addresses whose blocks stay byte for byte.
        unsigned: "ns/type version" of providers whose checksums OpenTofu's no-key rule
            let through without a signature check.
        dropped: address -> the hashes of a merged block that this run could not verify,
            left out of the lock (issue #67 §5).
    """

    providers: dict[str, ProviderLock] = field(default_factory=dict)
    changes: list[LockChange] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    unsigned: list[str] = field(default_factory=list)  # providers whose checksums were not signature-checked
    dropped: dict[str, tuple[str, ...]] = field(default_factory=dict)


def lock_constraints(requirements) -> str:
    """``VersionConstraintsString`` of every requirement's constraint, appended (AND)."""
    spec: tuple = ()
    for r in requirements:
        if r.constraint is not None:
            spec += r.constraint.spec
    return gvs.canonical_string(spec)


def same_version_change(old: ProviderLock, new: ProviderLock, why: str = "") -> str:
    """What changed in a provider block whose version stays (issue #50 §5: name it rather
    than "constraints or hashes"): ``constraints "…" -> "…"`` (followed by ``why``, in
    parentheses, when given: which constraint moved them, issue #59 §2) and/or ``hashes
    added``, ``hashes removed``; "" when the version changed (the reason says why)."""
    if old.version != new.version:
        return ""
    parts = []
    if old.constraints != new.constraints:
        parts.append(f'constraints "{old.constraints}" -> "{new.constraints}"' + (f" ({why})" if why else ""))
    added, removed = set(new.hashes) - set(old.hashes), set(old.hashes) - set(new.hashes)
    if added:
        parts.append(f"{len(added)} hash{'es' if len(added) > 1 else ''} added")
    if removed:
        parts.append(f"{len(removed)} hash{'es' if len(removed) > 1 else ''} removed")
    return ", ".join(parts)


def _needs_packages(want: tuple[ProviderAddress, str, str], old: ProviderLock | None, refresh: bool,
                    packages: ProviderPackages, platforms: tuple[str, ...]) -> bool:
    """Whether a provider's packages must be looked at, every target platform: its block
    (``old``) cannot be kept on the evidence of the cache alone."""
    addr, version, constraints = want
    if refresh or old is None or old.version != version or old.constraints != constraints:
        return True
    if any(not h.startswith(_PREFERRED) for h in old.hashes):
        return True  # tofu init keeps only h1:/zh: of a lock (PreferredHashes) and would rewrite it
    for p in platforms:
        hit = packages.cached(addr, version, p)
        if hit is None:
            return not packages.offline  # a fresh clone: learn this platform's h1 as tofu init would
        if hit.h1 not in old.hashes or not set(hit.signed) <= set(old.hashes) or not set(hit.reported) <= set(
                old.hashes):
            return True
    return packages.plugin_cache_dir is not None and not all(
        packages.in_plugin_cache(addr, version, p) for p in platforms)


def _package_infos(todo: dict[str, tuple[ProviderAddress, str, str]], packages: ProviderPackages,
                   platforms: tuple[str, ...], workers: int) -> dict[tuple[str, str], PackageInfo]:
    """(address, platform) -> the package's information, for each provider in ``todo``,
    read in parallel.

    Raises:
        TofuSolveError: the first failure, once every read has ended.
    """
    infos: dict[tuple[str, str], PackageInfo] = {}
    if not todo:
        return infos
    with worker_pool(workers, "tofu-solve-provider") as pool:
        futures = {(a, p): pool.submit(packages.info, want[0], want[1], p) for a, want in todo.items()
                   for p in platforms}
        errors = []
        for key, fut in futures.items():
            try:
                infos[key] = fut.result()
            except TofuSolveError as e:
                errors.append(e)
        if errors:
            raise errors[0]
    return infos


def changed_package(addr: ProviderAddress, old: ProviderLock, info: PackageInfo,
                    platform: str) -> IntegrityError | None:
    """The error for a provider package that is not the one the lock recorded at the same
    version, or None. OpenTofu's installer refuses a package that matches none of the
    lock's hashes for its version (``internal/providercache/installer.go``, "doesn't match
    any of the checksums previously recorded in the dependency lock file"); a block that
    records the registry's signed ``zh:`` checksums covers every platform, so a package that
    matches neither its ``zh:`` nor its ``h1:`` there was replaced at the same version. A
    block without ``zh:`` checksums may simply lack this platform: its hashes are added, as
    ``tofu providers lock`` adds them (issue #60 §1)."""
    zh = f"zh:{info.shasum}"
    if zh in old.hashes or info.h1 in old.hashes or not any(h.startswith("zh:") for h in old.hashes):
        return None
    shown = addr.for_display
    return IntegrityError(
        "Provider checksum verification failed",
        f"The {platform} package of provider {addr} {old.version} doesn't match any of the checksums previously "
        "recorded in the dependency lock file: the registry now serves other contents at the same version. This "
        "may indicate the provider has been modified or tampered with.\n\n"
        f"Locked: {', '.join(sorted(old.hashes))}\nFound:  {info.h1}, {zh}\n\n"
        "If the new package is intended, review it, then accept it at the same version with:\n"
        f"  tofu-solve init -accept-checksum={shown}")


def plan_provider_locks(selected: dict[str, tuple[ProviderAddress, str]], requirements: dict[str, list],
                        locks: LockFile, packages: ProviderPackages, platforms: tuple[str, ...],
                        workers: int = 8, refresh: frozenset[str] = frozenset(),
                        accept: frozenset[str] = frozenset(), merged: frozenset[str] = frozenset()) -> ProviderLockPlan:
    """Build the provider blocks for ``selected`` (address -> (address, version)).

    Args:
        requirements: address -> the requirements on it (each with ``.constraint``).
        locks: the lock file as read.
        packages: where package hashes come from.
        platforms: target platforms (``OS_ARCH``), at least one.
        refresh: addresses whose block is rebuilt even when it still fits (``-upgrade=NAME``);
            changes are still reported against ``locks``.
        accept: addresses whose package's new contents are accepted at the locked version
            (``-accept-checksum``): their block is rebuilt from the registry's hashes alone.
            Any other provider whose package changed at its locked version is refused
            (:func:`changed_package`).
        merged: addresses whose block a lock merge conflict formed from both sides' hashes
            (issue #67 §5): always checked against the registry, and only the hashes this
            run verified are kept (every ``zh:`` of the version's signed ``SHA256SUMS``, the
            ``h1:`` of each package unpacked here); the others are in ``plan.dropped``.

    Raises:
        RegistryError, NetworkError, IntegrityError: fetching or authenticating a package.
        OfflineError: offline and a needed package is not cached.
    """
    plan = ProviderLockPlan()
    wanted = {a: (addr, v, lock_constraints(requirements.get(a, ()))) for a, (addr, v) in sorted(selected.items())
              if not addr.is_builtin and not addr.is_legacy}

    todo = [a for a in wanted if a in merged or _needs_packages(wanted[a], locks.providers.get(a),
                                                                 a in refresh or a in accept, packages, platforms)]
    infos = _package_infos({a: wanted[a] for a in todo}, packages, platforms, workers)
    for a, (addr, version, constraints) in wanted.items():
        old = locks.providers.get(a)
        if a not in todo and old is not None:
            plan.providers[a] = old
            plan.kept.append(a)
            continue
        hashes = set()
        for p in platforms:
            info = infos[(a, p)]
            if old is not None and old.version == version and a not in accept:
                problem = changed_package(addr, old, info, p)
                if problem is not None:
                    raise problem
            hashes.add(info.h1)
            hashes.update(info.signed)
            hashes.update(info.reported)  # OpenTofu 1.12: every platform's hashes from the registry
        if old is not None and old.version == version and a not in accept:
            kept = [h for h in old.hashes if h.startswith(_PREFERRED)]  # ProviderLock.PreferredHashes
            if a in merged:  # both sides' hashes: only what was verified here stays
                verified = set(hashes)
                plan.dropped[a] = tuple(sorted(h for h in kept if h not in verified))
                kept = [h for h in kept if h in verified]
            hashes.update(kept)
        new = ProviderLock(addr, version, constraints, tuple(hashes))
        if old is not None and (old.version, old.constraints, old.hashes) == (new.version, new.constraints,
                                                                              new.hashes):
            plan.providers[a] = old
            plan.kept.append(a)
            continue
        plan.providers[a] = new
        plan.changes.append(LockChange("provider", a, old.version if old else None, version,
                                       same_version_change(old, new) if old is not None else ""))
    for a, old in sorted(locks.providers.items()):
        if a not in wanted:
            plan.changes.append(LockChange("provider", a, old.version, None))
    plan.unsigned = sorted(packages.unsigned)
    return plan


__all__ = ["ProviderLockPlan", "changed_package", "lock_constraints", "plan_provider_locks"]


def plan_for_resolution(res: Resolution, locks: LockFile, packages: ProviderPackages, platforms: tuple[str, ...],
                        workers: int, refresh: frozenset[str] = frozenset(), accept: frozenset[str] = frozenset(),
                        merged: frozenset[str] = frozenset()) -> ProviderLockPlan:
    """The provider blocks ``tofu init`` would write for the providers ``res`` selected
    (:func:`plan_provider_locks`, against ``locks``, the file as it was)."""
    selected = {a: (c.address, str(c.version)) for a, c in res.providers.items()}
    return plan_provider_locks(selected, res.provider_requirements, locks, packages, platforms, workers,
                               refresh, accept, merged)


def provider_change_reason(c: LockChange, why: str | None, old: ProviderLock | None,
                            new: ProviderLock | None) -> str:
    """A provider block's change with its reason: the version's reason, or, when the
    version stays, what changed in the block (its constraints, with what moved them, issue
    #59 §2; its hashes)."""
    if why is None:
        return c.reason
    if c.old == c.new and old is not None and new is not None:
        return same_version_change(old, new, why) or c.reason
    return why
