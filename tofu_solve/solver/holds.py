"""Which locks a search may move: the lock as Cargo treats ``Cargo.lock`` (issue #34).

A *subject* is what a lock block pins: a module call path (``eks.kms``) or a provider
address (``registry.opentofu.org/hashicorp/aws``). A lock *applies* to a subject when the
configuration still admits it:

* a module call's lock applies while the call has the source it was locked for and its
  ``version`` constraint admits the locked version (:meth:`Context.locked_candidate`); a
  nested call is judged against the requirement of the version its parent takes, so a lock
  applies again wherever the parent's new version calls it the same way;
* a provider's lock applies while every constraint of the root module (and of its local
  modules) on the provider admits the locked version;
* neither applies while the team's policy denies the locked version (issue #47): a policy
  change is a lock change, as an edited constraint is, except that the lock moves to the
  allowed version nearest it rather than the newest. A module version's constraint that
  excludes it does not stop it applying: that is a reason for the lock to move, counted as
  a move.

:class:`Holds` is what one search keeps fixed: a held subject whose lock applies has only
its locked version to offer; every other subject with an applicable lock offers its locked
version first, then the versions nearest to it (:func:`nearest_first`); a subject without
one (a new call, an edited constraint, an ``-upgrade`` target) offers the newest first, as
``tofu init`` picks. :func:`moved` counts what a solution moved, the quantity the
conservative update minimises (:mod:`.conservative`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeVar

from ..versions import apparentlymart_go_versions as gvs
from .model import (
    Identity,
    ModuleCandidate,
    ModuleRequirement,
    ProviderCandidate,
    ProviderRequirement,
)

if TYPE_CHECKING:
    from ..config.policy import DenyRule
    from ..lockfile import LockFile


class _UpgradeOption(Protocol):
    @property
    def upgrade(self) -> bool: ...


class LockView(Protocol):
    """What the lock rules ask of a solve's context (:class:`~.context.Context` is one;
    named here so that this module, which the context uses, does not import it)."""

    @property
    def options(self) -> _UpgradeOption: ...

    @property
    def locks(self) -> LockFile: ...

    def locked_candidate(self, req: ModuleRequirement) -> ModuleCandidate | None: ...

    def provider_lock_denial(self, address: str) -> DenyRule | None: ...

T = TypeVar("T")


@dataclass(frozen=True)
class Holds:
    """What one search keeps fixed.

    Attributes:
        held: subjects kept at their locked version (module call paths and provider
            addresses, as strings); a held subject whose lock does not apply is free.
        applicable: the subjects whose lock applies (:func:`locked_subjects`): they offer
            their locked version first, then the nearest; None: every locked subject (the
            what-if solves of the explanations, which hold nothing).
    """

    held: frozenset[str] = frozenset()
    applicable: frozenset[str] | None = None

    def __contains__(self, subject: object) -> bool:
        return subject in self.held

    def applies(self, subject: str) -> bool:
        return self.applicable is None or subject in self.applicable

    def without(self, released: Iterable[str]) -> Holds:
        return Holds(self.held - frozenset(released), self.applicable)




def nearest_first(ordered: Sequence[T], rank: Callable[[T], int], locked_rank: int) -> list[T]:
    """``ordered`` (newest first) re-ordered for a subject whose lock may move: the versions
    nearest the locked one first, by distance in the version order (``rank``: a version's
    position, ascending with the version), the newer of two equally near first. A lock that
    has to move moves as little as it can (issue #34: "the fewest locks move, nearest
    versions first")."""
    return sorted(ordered, key=lambda c: (abs(rank(c) - locked_rank), -rank(c)))


def provider_lock_applies(address: str, locked_version: str, root_reqs: Iterable) -> bool:
    """Whether every constraint of the root module (and its local modules) on ``address``
    admits ``locked_version`` (see the module docstring). A version that does not parse
    never applies."""
    try:
        v = gvs.Version.parse(locked_version)
    except Exception:
        return False
    for r in root_reqs:
        if isinstance(r, ProviderRequirement) and str(r.address) == address and r.origin.version is None \
                and r.constraint is not None and not gvs.meets(r.constraint.spec, v):
            return False
    return True


def locked_subjects(root_reqs: Sequence, ctx: LockView) -> frozenset[str]:
    """Every subject with a lock that may apply: each module call path the context's lock
    holds (whether it applies is judged per requirement, during the search), and each
    locked provider whose lock the root's own constraints admit and the policy does not
    deny. Empty with ``-upgrade``."""
    if ctx.options.upgrade:
        return frozenset()
    out = set(ctx.locks.modules)
    out |= {a for a, lock in ctx.locks.providers.items()
            if provider_lock_applies(a, lock.version, root_reqs) and ctx.provider_lock_denial(a) is None}
    return frozenset(out)


def moved(mapping: Mapping, requirements: Mapping[str, ModuleRequirement], ctx: LockView,
          subjects: Iterable[str]) -> set[str]:
    """The subjects of ``subjects`` whose lock applies in this solution but which it puts at
    another version: a module call present with an applicable lock at another version, a
    provider at another version than its lock. ``mapping`` is a resolvelib result's mapping;
    ``requirements`` the selected requirement of each call path."""
    out = set()
    for s in subjects:
        lock = ctx.locks.modules.get(s)
        if lock is not None:
            cand = mapping.get(Identity.module(s))
            req = requirements.get(s)
            if isinstance(cand, ModuleCandidate) and req is not None:
                locked = ctx.locked_candidate(req)
                if locked is not None and locked.version_text != cand.version_text:
                    out.add(s)
            continue
        plock = ctx.locks.providers.get(s)
        cand = mapping.get(Identity.provider(s))
        if plock is not None and isinstance(cand, ProviderCandidate) and str(cand.version) != plock.version:
            out.add(s)
    return out


def module_requirements_of(criteria: Mapping) -> dict[str, ModuleRequirement]:
    """Call path -> its requirement, from a resolvelib result's criteria."""
    out = {}
    for crit in criteria.values():
        for info in crit.information:
            r = info.requirement
            if isinstance(r, ModuleRequirement):
                out[r.call_path] = r
    return out


__all__ = ["Holds", "locked_subjects", "module_requirements_of", "moved", "nearest_first",
           "provider_lock_applies"]
