"""The lock rules, in one place (issue #48 §1): which lock applies, what one search holds,
in what order a subject's versions come, what a solution moved, and what ``-upgrade=NAME``
frees. The lock as Cargo treats ``Cargo.lock`` (issue #34).

A *subject* is what a lock block pins, an :class:`~.model.Identity`: a module call
(``Identity.module("eks.kms")``) or a provider
(``Identity.provider("registry.opentofu.org/hashicorp/aws")``), never a bare string. A lock
*applies* to a subject when the configuration still admits it:

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

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeVar

from .._lazy import load
from ..addrs.module_source import RegistrySource, lock_source
from ..errors import IntegrityError, InvalidVersion, TofuSolveError, locked_version_gone
from ..providers import AvailableVersion
from ..versions import apparentlymart_go_versions as gvs
from ..versions.hashicorp_go_version import GoVersion
from ..versions.version_pick import list_module_versions
from .model import (
    Identity,
    Kind,
    ModuleCandidate,
    ModuleRequirement,
    ProviderCandidate,
    ProviderRequirement,
)

if TYPE_CHECKING:
    from ..config.module_dir import ModuleCall
    from ..config.policy import Denial, Policy, PolicyFailure, Subject
    from ..lockfile import LockFile, ModuleLock
    from .lock_terms import LockTerms


class _UpgradeOption(Protocol):
    @property
    def upgrade(self) -> bool: ...

    @property
    def policy(self) -> Policy | None: ...


class LockView(Protocol):
    """What the lock rules ask of a solve's context (:class:`~.context.Context` is one;
    named here so that this module, which the context uses, does not import it)."""

    @property
    def options(self) -> _UpgradeOption: ...

    @property
    def locks(self) -> LockFile: ...

    @property
    def terms(self) -> LockTerms: ...

    def locked_candidate(self, req: ModuleRequirement) -> ModuleCandidate | None: ...

T = TypeVar("T")


@dataclass(frozen=True)
class Holds:
    """What one search keeps fixed.

    Attributes:
        held: subjects kept at their locked version; a held subject whose lock does not
            apply is free.
        applicable: the subjects whose lock applies (:func:`locked_subjects`): they offer
            their locked version first, then the nearest.
        every_lock_applies: every locked subject's lock applies, whatever ``applicable``
            says (the what-if solves of the explanations, which hold nothing: :meth:`what_if`).
    """

    held: frozenset[Identity] = frozenset()
    applicable: frozenset[Identity] = frozenset()
    every_lock_applies: bool = False

    @classmethod
    def what_if(cls) -> Holds:
        """Nothing held, every lock offered first: an explanation's what-if solve."""
        return cls(every_lock_applies=True)

    def __contains__(self, subject: object) -> bool:
        return subject in self.held

    def applies(self, subject: Identity) -> bool:
        return self.every_lock_applies or subject in self.applicable

    def without(self, released: Iterable[Identity]) -> Holds:
        return Holds(self.held - frozenset(released), self.applicable, self.every_lock_applies)




def nearest_first(ordered: Sequence[T], rank: Callable[[T], int], anchor: int | Iterable[int]) -> list[T]:
    """``ordered`` re-ordered nearest ``anchor`` first: by distance in the version order
    (``rank``: a version's position, ascending with the version) to the anchor (a locked
    version's rank; or several ranks, the nearest of which counts), the newer of two
    equally near first. The one "nearest" of the project: a lock that has to move moves as
    little as it can (issue #34: "the fewest locks move, nearest versions first"), and a
    what-if search walks out from the versions a constraint admitted
    (:func:`tofu_solve.explain.whatif.nearest_order`)."""
    anchors = (anchor,) if isinstance(anchor, int) else tuple(anchor)
    return sorted(ordered, key=lambda c: (min(abs(rank(c) - a) for a in anchors), -rank(c)))


def locked_for(lock: ModuleLock, call: ModuleCall) -> bool:
    """Whether ``lock`` was made for ``call``'s source as it stands (the one home of the
    lock-source rule: the solver's, the change list's and ``check``'s): its ``source`` is
    the one a lock of the call at the locked version records
    (:func:`~tofu_solve.addrs.module_source.lock_source`)."""
    return lock.source == lock_source(call.source, call.version is not None, lock.version)


def module_lock_entry(req: ModuleRequirement, terms: LockTerms) -> ModuleLock | None:
    """The lock entry of ``req``'s call that may apply: its lock holds by the run's terms
    (:meth:`~.lock_terms.LockTerms.standing`: not ``-upgrade``, not freed by
    ``-upgrade=NAME``), and it was locked for the call's source as it is now
    (:func:`locked_for`; the constraint and the policy are asked separately)."""
    lock = terms.module(req.call_path)
    if lock is None or not locked_for(lock, req.call):
        return None
    return lock


def module_lock_anchor(req: ModuleRequirement, terms: LockTerms, package: str) -> ModuleCandidate | None:
    """The call's locked version as a candidate whenever the configuration still admits it
    (:func:`module_lock_entry`, and the call's constraint allows it), whether or not the
    policy denies it: what a lock that must move moves nearest to. ``package``: the
    package address of the call's source. :meth:`.Context.locked_candidate` adds the policy."""
    load("tofu_solve.lockfile.entries")
    from ..lockfile.entries import locked_commit

    lock = module_lock_entry(req, terms)
    if lock is None:
        return None
    source = req.call.source
    version = None
    if req.versioned:
        try:
            version = GoVersion.parse(lock.version)
        except TofuSolveError:
            return None
        if not list_module_versions(req.constraint, [lock.version]).matching:
            return None
    # a registry version is named by its version, not by the commit behind its location
    commit = None if isinstance(source, RegistrySource) else locked_commit(lock)
    avail = AvailableVersion(lock.version, version, commit, package=lock.package)
    return ModuleCandidate(req.call_path, source, avail, package)


def nearest_listed(version: str, listed: Sequence[GoVersion]) -> GoVersion | None:
    """The version of ``listed`` nearest ``version`` in the version order (the newer of two
    equally near), or None when nothing is listed or ``version`` does not parse: what a lock
    whose version was deleted from its registry's index can move to with the least change
    (issue #62 §3)."""
    try:
        gone = GoVersion.parse(version)
    except TofuSolveError:
        return None
    ordered = sorted(listed, key=functools.cmp_to_key(GoVersion.compare))
    below = [v for v in ordered if v.compare(gone) < 0]
    above = [v for v in ordered if v.compare(gone) > 0]
    return above[0] if above else (below[-1] if below else None)


def gone_module_lock(req: ModuleRequirement, version: str, lock_line: int = 0,
                     listed: Sequence[GoVersion] = ()) -> TofuSolveError:
    """The error for a module lock whose version its source no longer offers, cited at the
    lock file's block (issue #60 §4: an edited lock is where the edit was made), the call's
    ``version`` line named beside it; at the call when the block's line is not known. With
    ``listed`` (the versions the source lists that the call's constraint admits), the nearest
    of them is named as the fix (issue #62 §3: a version deleted from a registry's index)."""
    load("tofu_solve.errors")
    from ..errors import SourceRange
    load("tofu_solve.lockfile.filename")
    from ..lockfile.filename import LOCK_FILE_NAME

    call = req.call.version_where or req.call.where
    near = nearest_listed(version, listed)
    fix = (f" The nearest listed version the constraint admits is {near.string}: pin version = \"{near.string}\" "
           f"at {call.file}:{call.line} to take it, or let -upgrade={req.call_path} choose afresh.") if near else ""
    if not lock_line:
        return locked_version_gone(f'module "{req.call_path}"', version, f"-upgrade={req.call_path}", call, fix)
    return locked_version_gone(f'module "{req.call_path}"', version, f"-upgrade={req.call_path}",
                               SourceRange(LOCK_FILE_NAME, lock_line),
                               f" (The call is at {call.file}:{call.line}.){fix}")


def preferred_order(req: ModuleRequirement, listed: list[ModuleCandidate], locked: ModuleCandidate | None,
                    anchor: ModuleCandidate | None,
                    denied: Callable[[ModuleCandidate], object] | None, lock_line: int = 0,
                    deprecated: Callable[[ModuleCandidate], bool] | None = None) -> list[ModuleCandidate]:
    """The one order a call's versions are offered in (issue #48 §2), for the search, the
    improvement pass's lag and the objective (:mod:`.optimum`): the locked version first
    when its lock applies (``locked``); versions the policy denies (``denied`` not None for
    them) passed over, kept only when nothing else is left, so that the conflict names the
    rule; then, for a call with a lock (``anchor``: applying, or one the policy denies), the
    versions nearest it first (:func:`nearest_first`: by position among ``listed``, the
    newer of two equally near first), else newest first, as ``tofu init`` picks; versions
    their registry marks deprecated (``deprecated``) after all the others, in that order
    (issue #62 §3: taken only when no other version gives an equally good selection).

    Raises:
        LockedVersionGone: ``listed`` (the listing) no longer offers the locked version
            (cited at the lock's block, ``lock_line``, when known: :func:`gone_module_lock`).
    """
    cands = listed
    if denied is not None:
        allowed = [c for c in cands if denied(c) is None]
        if allowed:
            cands = allowed
    if anchor is not None and req.versioned:
        ordered = [c for _, c in sorted(((c.version, c) for c in listed if c.version is not None),
                                        key=lambda vc: vc[0])]
        rank = {c.version_text: i for i, c in enumerate(ordered)}
        if anchor.version_text not in rank:
            raise gone_module_lock(req, anchor.version_text, lock_line,
                                   [c.version for c in listed if c.version is not None])
        keep = set(cands)
        cands = nearest_first([c for c in ordered[::-1] if c in keep], lambda c: rank[c.version_text],
                              rank[anchor.version_text])
    if deprecated is not None:
        marked = {c.version_text for c in cands if deprecated(c)}
        if marked:
            cands = [c for c in cands if c.version_text not in marked] + [c for c in cands if c.version_text in marked]
    if locked is not None:
        cands = [locked] + [c for c in cands if c.version_text != locked.version_text]
    return cands


def nearest_provider_versions(cands: list[ProviderCandidate], versions: Sequence[gvs.Version],
                              locked: str) -> list[ProviderCandidate]:
    """The one order of a provider's versions whose lock may move (issue #48 §2):
    ``cands`` nearest the ``locked`` version first by position among every version the
    provider has (``versions``, ascending), the newer of two equally near first
    (:func:`nearest_first`); unchanged when the locked version is not listed (refused
    before any search: :func:`~.resolve.refuse_gone_provider_locks`)."""
    rank = {str(v): i for i, v in enumerate(versions)}
    at = rank.get(locked)
    if at is None:
        return cands
    return nearest_first(cands, lambda c: rank[str(c.version)], at)


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


def locked_subjects(root_reqs: Sequence, ctx: LockView) -> frozenset[Identity]:
    """Every subject with a lock that may apply: each module call path the context's lock
    holds (whether it applies is judged per requirement, during the search), and each
    locked provider whose lock the root's own constraints admit and the policy does not
    deny; each lock holding by the context's terms (:meth:`~.lock_terms.LockTerms.standing`:
    none with ``-upgrade``)."""
    terms = ctx.terms
    out = {Identity.module(p) for p in terms.kept.modules if terms.module(p) is not None}
    out |= {Identity.provider(a) for a in terms.kept.providers if (lock := terms.provider(a)) is not None
            and provider_lock_applies(a, lock.version, root_reqs) and provider_lock_denial(ctx, a) is None}
    return frozenset(out)


def moved(mapping: Mapping, requirements: Mapping[str, ModuleRequirement], ctx: LockView,
          subjects: Iterable[Identity]) -> set[Identity]:
    """The subjects of ``subjects`` whose lock applies in this solution but which it puts at
    another version: a module call present with an applicable lock at another version, a
    provider at another version than its lock. ``mapping`` is a resolvelib result's mapping;
    ``requirements`` the selected requirement of each call path."""
    out = set()
    for s in subjects:
        if s.kind is Kind.MODULE:
            cand = mapping.get(s)
            req = requirements.get(s.name)
            if s.name in ctx.locks.modules and isinstance(cand, ModuleCandidate) and req is not None:
                locked = ctx.locked_candidate(req)
                if locked is not None and locked.version_text != cand.version_text:
                    out.add(s)
            continue
        plock = ctx.locks.providers.get(s.name)
        cand = mapping.get(s)
        if plock is not None and isinstance(cand, ProviderCandidate) and str(cand.version) != plock.version:
            out.add(s)
    return out


def policy_denial(policy: Policy | None, kind: Kind, name: str,
                  version: str | GoVersion | gvs.Version | None, call: Subject | None = None) -> Denial | None:
    """The policy rule that denies ``version`` of a subject, or None: the one home of the
    question "does the policy deny this version" (issue #58 §2), asked of a locked version
    (whether its lock applies), of a candidate (the search), of a lock file (``check``) and
    of a newer release (the held-back analysis, ``outdated``).

    ``kind``: :attr:`Kind.MODULE` (``name`` the package address, the version by
    hashicorp/go-version) or :attr:`Kind.PROVIDER` (``name`` the provider address, the
    version by apparentlymart/go-versions); ``version`` as text or already parsed. None
    without a policy, without rules, or when the version does not parse (a lock that names
    no version is refused elsewhere, never denied here). ``call``: for a module, the call
    the version would serve (what ``module_policy`` rules bind as ``meta.address`` and
    ``meta.source``, issue #62).

    Raises:
        ConfigurationError: a ``*.policy.hcl`` rule that cannot be evaluated."""
    if policy is None or not policy.decides_versions or version is None:
        return None
    try:
        if kind is Kind.MODULE:
            parsed = version if isinstance(version, GoVersion) else GoVersion.parse(str(version))
            return policy.module_denial(name, parsed, call)
        return policy.provider_denial(name, version if isinstance(version, gvs.Version)
                                      else gvs.Version.parse(str(version)))
    except InvalidVersion:
        return None


def policy_notices(policy: Policy | None, kind: Kind, name: str, version: str,
                   call: Subject | None = None) -> list[PolicyFailure]:
    """The ``*.policy.hcl`` rules a selected version fails without being kept out (issue
    #62 §2): ``advisory`` rules, and ``mandatory_overridable`` ones ``-policy-override``
    names; each is a warning with its ``error_message``. Arguments as :func:`policy_denial`.

    Raises:
        ConfigurationError: a rule that cannot be evaluated."""
    if policy is None or not policy.hcl_rules:
        return []
    if kind is Kind.MODULE:
        found = policy.module_verdicts(name, version, call)
    else:
        found = policy.provider_verdicts(name, version)
    return [f for f in found if f.level == "advisory" or f.overridden]


def provider_lock_denial(ctx: LockView, address: str) -> Denial | None:
    """The policy rule that denies the locked version of the provider at ``address``, or
    None (no lock that holds by the context's terms: none with ``-upgrade``; no rule): such
    a lock no longer applies; it moves to the nearest allowed version (issue #47).
    :func:`policy_denial` of the lock."""
    lock = ctx.terms.provider(address)
    if lock is None:
        return None
    return policy_denial(ctx.options.policy, Kind.PROVIDER, address, lock.version)


def module_requirements_of(criteria: Mapping) -> dict[str, ModuleRequirement]:
    """Call path -> its requirement, from a resolvelib result's criteria."""
    out = {}
    for crit in criteria.values():
        for info in crit.information:
            r = info.requirement
            if isinstance(r, ModuleRequirement):
                out[r.call_path] = r
    return out


def refuse_against_policy(policy: Policy | None, modules: dict[str, ModuleLock], unsigned: Iterable[str]) -> None:
    """The policy's requirements on what is locked (issue #39), before anything is written:
    ``require_package_pins`` (every module lock records an immutable package: a git commit,
    an OCI digest, a registry version's location) and ``require_signed_providers`` (every
    provider's checksums signature-checked).

    Raises:
        IntegrityError: naming the modules or providers and the policy line."""
    if policy is None:
        return
    floating = sorted(p for p, m in modules.items() if not m.package)
    if policy.require_pins and floating:
        raise IntegrityError(
            "Floating module refused by policy",
            f"The policy requires every module lock to record an immutable package, but {', '.join(floating)} "
            "come from sources that give none (an archive without a checksum, a git branch...). Pin them (?ref= a "
            "commit or tag, ?checksum=, an OCI digest) or change the policy.", policy.where_of("require_package_pins"))
    unsigned = sorted(unsigned)
    if policy.require_signed and unsigned:
        raise IntegrityError(
            "Unsigned provider checksums refused by policy",
            f"The policy requires signature-checked provider checksums, but the registry lists no signing key for "
            f"{', '.join(sorted(unsigned))}.", policy.where_of("require_signed_providers"))


__all__ = [
    "Holds",
    "locked_for",
    "locked_subjects",
    "module_lock_anchor",
    "module_lock_entry",
    "module_requirements_of",
    "moved",
    "nearest_first",
    "nearest_provider_versions",
    "policy_denial",
    "policy_notices",
    "preferred_order",
    "provider_lock_applies",
    "provider_lock_denial",
    "refuse_against_policy",
]
