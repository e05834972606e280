"""Does this lock hold? The one answer (issue #83 §2).

:class:`LockTerms` is built once per run from the lock file as read, ``-upgrade``,
``-upgrade=NAME,...`` and ``-accept-checksum=NAME,...``, and answers for any module call or
provider whether its lock holds for this run and, when it does not, why
(:meth:`LockTerms.standing`). Every place that used to ask on its own asks it: the solve's
lock entries (:func:`~.locks.module_lock_entry`, :func:`~.locks.locked_subjects`,
:func:`~.locks.provider_lock_denial`), what ``-upgrade=NAME`` freed (the explanations, the
change list, the blocked-upgrade analysis), which provider listings are asked again, and the
verification's lock. The conductor never rewrites the lock file before the solve: the terms
keep the file as read (:attr:`LockTerms.recorded`) and derive the locks a search keeps
(:attr:`LockTerms.kept`) themselves.

What the configuration says of a lock that holds by these terms (the call's source and
constraint, the policy, a registry's revocation) is asked per requirement on top of it, by
:meth:`~.context.Context.locked_candidate` (the module docstring of :mod:`.locks`).

The rules, transcribed from ``tofu init`` and Cargo (``cargo update -p``):

* ``-upgrade``: no lock holds; every version is chosen afresh (``tofu init -upgrade``).
* ``-upgrade=NAME,...``: the entries each NAME names (:func:`~tofu_solve.lockfile.named.named_locks`:
  a call path or name, a module package, a provider), with the calls inside a named call,
  are chosen afresh; every other lock holds. Their providers' version lists are asked again.
* ``-accept-checksum=NAME,...``: the named entries hold at their versions, without what pins
  their contents (hashes, the package's commit or digest), so that the version's current
  package is fetched and hashed (issue #60 §1).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..lockfile import LockFile
from ..lockfile.named import named_locks
from .model import Identity, Kind

if TYPE_CHECKING:
    from ..addrs.product import Product
    from ..config.tree import ModuleTree
    from ..lockfile import ModuleLock, ProviderLock


class Released(enum.Enum):
    """Why a lock does not hold for a run (a closed set; :meth:`Standing.why_not` says each)."""

    UPGRADE = "upgrade"  # -upgrade: every version chosen afresh
    NAMED = "named"  # -upgrade=NAME names it, or the call it is inside
    WHAT_IF = "what-if"  # a hypothetical search frees it (an explanation, the blocked-upgrade analysis)
    NOT_LOCKED = "not-locked"  # the lock file has no entry for it


@dataclass(frozen=True)
class Standing:
    """A subject's lock for this run: the entry the search starts from when it holds
    (``lock``; an accepted entry without its pins), else why not (``released``), with the
    NAME of the flag that named it (``-upgrade=NAME`` or ``-accept-checksum=NAME``)."""

    subject: Identity
    lock: ModuleLock | ProviderLock | None
    released: Released | None = None
    named_by: str = ""
    accepted: bool = False  # -accept-checksum: held at its version, its contents fetched again

    @property
    def holds(self) -> bool:
        return self.lock is not None

    def why_not(self) -> str:
        """Why the lock does not hold, as the change list gives a lock change's reason
        (``-upgrade``, ``-upgrade=eks`` for the NAME that freed it: a call inside ``eks``
        too); "" when it holds."""
        if self.released is None:
            return ""
        return {Released.UPGRADE: "-upgrade",
                Released.NAMED: f"-upgrade={self.named_by}",
                Released.WHAT_IF: "a what-if search frees it",
                Released.NOT_LOCKED: "the lock file has no entry for it"}[self.released]


@dataclass(frozen=True)
class LockTerms:
    """See the module docstring. Build it with :meth:`of` (a run) or :meth:`holding` (every
    entry of a lock file holds: a test's, an in-memory solve's).

    Attributes:
        recorded: the lock file as read.
        upgrade: ``-upgrade``.
        freed_modules: call path -> the ``-upgrade`` NAME that frees it (calls inside a named
            call included).
        freed_providers: provider address -> the NAME.
        accepted_modules: call path -> the ``-accept-checksum`` NAME that names it.
        accepted_providers: provider address -> the NAME.
        kept: the locks a search keeps: ``recorded`` without the freed entries, the accepted
            module entries without their pins; a what-if view's own (:meth:`with_kept`).
    """

    recorded: LockFile
    upgrade: bool = False
    freed_modules: Mapping[str, str] = field(default_factory=dict)
    freed_providers: Mapping[str, str] = field(default_factory=dict)
    accepted_modules: Mapping[str, str] = field(default_factory=dict)
    accepted_providers: Mapping[str, str] = field(default_factory=dict)
    kept: LockFile = field(default_factory=LockFile)

    @classmethod
    def holding(cls, locks: LockFile, upgrade: bool = False) -> LockTerms:
        """Terms under which every entry of ``locks`` holds (none with ``upgrade``)."""
        return cls(locks, upgrade, kept=locks)

    @classmethod
    def of(cls, recorded: LockFile, tree: ModuleTree, product: Product, *, upgrade: bool = False,
           upgrade_only: tuple[str, ...] = ()) -> LockTerms:
        """The run's terms from the lock file as read and ``-upgrade`` / ``-upgrade=NAME,...``
        (``upgrade_only``; ignored with ``-upgrade``). ``tree``: the root's
        :class:`~tofu_solve.config.tree.ModuleTree` (what a NAME may name besides the lock).
        Accepted checksums are added with :meth:`accepting`.

        Raises:
            ConfigurationError: a NAME that names nothing (:func:`~tofu_solve.lockfile.named.named_locks`).
        """
        freed_modules: dict[str, str] = {}
        freed_providers: dict[str, str] = {}
        if upgrade_only and not upgrade:
            named_modules, named_providers = named_locks(recorded, tree, upgrade_only, product, "-upgrade")
            gone = {p: n for n, paths in named_modules.items() for p in paths}
            for path in recorded.modules:
                name = gone.get(path) or next((n for g, n in gone.items() if path.startswith(g + ".")), None)
                if name is not None:
                    freed_modules[path] = name
            freed_providers = {a: n for n, addrs in named_providers.items() for a in addrs}
        terms = cls(recorded, upgrade, freed_modules, freed_providers)
        return replace(terms, kept=terms._derived_kept())

    def accepting(self, modules: Mapping[str, str], providers: Mapping[str, str]) -> LockTerms:
        """These terms with ``-accept-checksum``'s resolved names (call path or provider
        address -> NAME: :class:`~tofu_solve.workdir.accept.AcceptedChecksums`)."""
        terms = replace(self, accepted_modules=dict(modules), accepted_providers=dict(providers))
        return replace(terms, kept=terms._derived_kept())

    def with_kept(self, locks: LockFile) -> LockTerms:
        """These terms for a what-if search that keeps ``locks`` instead (every other
        subject is free in it: :attr:`Released.WHAT_IF`)."""
        return replace(self, kept=locks)

    def releasing(self, subjects: Iterable[Identity]) -> LockTerms:
        """What ``-upgrade=NAME,OTHERS`` would keep on top of these terms: ``subjects`` (with
        the calls inside a released call) left out of :attr:`kept` as a what-if."""
        released = frozenset(subjects)

        def freed(path: str) -> bool:
            return any(s.kind is Kind.MODULE and (path == s.name or path.startswith(s.name + "."))
                       for s in released)
        return self.with_kept(LockFile(
            {a: p for a, p in self.kept.providers.items() if Identity.provider(a) not in released},
            {p: m for p, m in self.kept.modules.items() if not freed(p)}))

    def _derived_kept(self) -> LockFile:
        modules = {p: (replace(m, hashes=(), package="") if p in self.accepted_modules else m)
                   for p, m in self.recorded.modules.items() if p not in self.freed_modules}
        providers = {a: p for a, p in self.recorded.providers.items() if a not in self.freed_providers}
        return LockFile(providers, modules)

    # ------------------------------------------------------------------ the one answer

    def standing(self, subject: Identity) -> Standing:
        """Whether ``subject``'s lock holds for this run, and why not (see the module
        docstring)."""
        module = subject.kind is Kind.MODULE
        kept = (self.kept.modules if module else self.kept.providers).get(subject.name)
        recorded = (self.recorded.modules if module else self.recorded.providers).get(subject.name)
        freed = (self.freed_modules if module else self.freed_providers).get(subject.name)
        accepted = (self.accepted_modules if module else self.accepted_providers).get(subject.name, "")
        if kept is None and recorded is None:
            return Standing(subject, None, Released.NOT_LOCKED)
        if self.upgrade:
            return Standing(subject, None, Released.UPGRADE)
        if freed is not None:
            return Standing(subject, None, Released.NAMED, freed)
        if kept is None:
            return Standing(subject, None, Released.WHAT_IF)
        return Standing(subject, kept, None, accepted, bool(accepted))

    def module(self, call_path: str) -> ModuleLock | None:
        """The module call's lock entry when it holds (:meth:`standing`), else None."""
        return self.standing(Identity.module(call_path)).lock  # type: ignore[return-value]

    def provider(self, address: str) -> ProviderLock | None:
        """The provider's lock entry when it holds (:meth:`standing`), else None."""
        return self.standing(Identity.provider(address)).lock  # type: ignore[return-value]

    @property
    def freed(self) -> frozenset[Identity]:
        """What ``-upgrade=NAME,...`` freed: the recorded subjects it names (one explicit set)."""
        return frozenset({Identity.module(p) for p in self.freed_modules}
                         | {Identity.provider(a) for a in self.freed_providers})

    @property
    def relisted_providers(self) -> frozenset[str]:
        """The provider addresses whose kept version lists are asked again (``-upgrade=NAME``)."""
        return frozenset(self.freed_providers)

    def verified_against(self) -> LockFile:
        """The lock the verification compares packages with: :attr:`recorded`, the kept
        module entries as the file records them (an accepted entry's old pins are what the
        change list compares its new ones with)."""
        return self.recorded.with_modules({p: (self.recorded.modules[p] if p in self.accepted_modules else m)
                                           for p, m in self.kept.modules.items()})

    def recorded_at(self, subject: Identity, version: str) -> bool:
        """Whether the lock file as read locks ``subject`` at ``version``: the release
        cooldown's exemption (issue #25: a locked version stays, however young; an
        ``-upgrade=NAME`` target's recorded version too, so NAME never goes down for it)."""
        lock = (self.recorded.modules if subject.kind is Kind.MODULE else self.recorded.providers).get(subject.name)
        return lock is not None and lock.version == version


__all__ = ["LockTerms", "Released", "Standing"]
