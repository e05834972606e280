"""OpenTofu's version pick for one module call and one provider, exactly.

Modules: ``internal/initwd/module_install.go`` ``installRegistryModule`` (reference §1):
invalid registry versions are skipped with a warning; a prerelease survives only if the
npm-style go-versions set of the constraint text (retried once with ``v`` prefixes
stripped) *requests* it; then the newest (strict ``GreaterThan``, so the first listed of
equal versions) that go-version's ``Check`` accepts.

Providers: ``internal/providercache/installer.go`` (reference §10): the lock wins unless
``upgrade``; the newest available version in ``MeetingConstraints``, ties going to the
last listed (a stable ascending sort walked from the end).
"""

from __future__ import annotations

import functools
import operator
import re
from dataclasses import dataclass

from ..errors import (
    InvalidConstraint,
    InvalidVersion,
    NoMatchingVersionError,
    NoVersionsError,
    VersionError,
)
from . import apparentlymart_go_versions as gvs
from .constraints import (
    ModuleConstraint,
    ProviderConstraint,
    module_constraint,
    provider_constraint,
)
from .hashicorp_go_version import VERSION_REGEXP_RAW, GoVersion

_V_VERSION_RE = re.compile(VERSION_REGEXP_RAW)


def _npm_gate(constraint_text: str):
    """The go-versions set OpenTofu checks registry prereleases against, or None when the
    constraint text does not parse in npm style (then no prerelease is ever selected)."""
    try:
        return gvs.parse_canon(constraint_text)
    except InvalidConstraint:
        pass
    stripped = _V_VERSION_RE.sub(lambda m: m.group(0)[1:] if m.group(0).startswith("v") else m.group(0),
                                 constraint_text)
    if stripped == constraint_text:
        return None
    try:
        return gvs.parse_canon(stripped)
    except InvalidConstraint:
        return None


@dataclass(frozen=True)
class ModuleVersionListing:
    """The registry versions of one module package as OpenTofu filters them for one call.

    Attributes:
        survivors: parsed versions in listing order that OpenTofu would consider (invalid
            ones and unrequested prereleases dropped).
        invalid: listed strings go-version could not parse (OpenTofu warns and skips).
        matching: survivors the constraint allows, newest first; equal versions keep
            listing order (the first listed wins, as OpenTofu's strict ``GreaterThan``).
    """

    survivors: tuple[GoVersion, ...]
    invalid: tuple[str, ...]
    matching: tuple[GoVersion, ...]

    @property
    def newest(self) -> GoVersion | None:
        """OpenTofu's ``latestVersion``: the greatest survivor, first listed on ties."""
        best = None
        for v in self.survivors:
            if best is None or v.compare(best) > 0:
                best = v
        return best


def list_module_versions(constraint: ModuleConstraint | str | None,
                         available: list[str]) -> ModuleVersionListing:
    """Filter and order ``available`` (registry order) for one module call.

    ``constraint`` None means the call has no ``version`` argument: every released
    version matches and no prerelease survives (the npm gate of ``""`` fails).

    Raises:
        InvalidConstraint: the constraint text is not valid go-version syntax.
    """
    if isinstance(constraint, str):
        constraint = module_constraint(constraint)
    gate = _npm_gate(constraint.text) if constraint is not None else None
    survivors: list[GoVersion] = []
    invalid: list[str] = []
    for text in available:
        try:
            v = GoVersion.parse(text)
        except InvalidVersion:
            invalid.append(text)
            continue
        if v.pre:
            if gate is None:
                continue
            try:
                pv = gvs.Version.parse(v.string)
            except InvalidVersion:
                continue
            if not gvs.meets(gate, pv):
                continue
        survivors.append(v)
    ok = [v for v in survivors if constraint is None or constraint.parsed.check(v)]
    # Python's sort is stable: equal versions keep listing order, so the first listed of
    # equal versions comes first, as OpenTofu's running strict-GreaterThan maximum picks it.
    ok.sort(key=functools.cmp_to_key(GoVersion.compare), reverse=True)  # stable: reverse keeps equal ones in order
    return ModuleVersionListing(tuple(survivors), tuple(invalid), tuple(ok))


@functools.lru_cache(maxsize=1 << 16)
def registry_pick_considers(constraint_text: str | None, label: str) -> bool:
    """Whether OpenTofu's pick for a call with ``constraint_text`` (None: no ``version``)
    would consider the version ``label``: go-version ``Check`` plus the npm-style prerelease
    gate (``internal/initwd/module_install.go``). Memoized: the search asks it for every
    requirement of a criterion on every round.

    Raises:
        InvalidConstraint: the constraint text is not valid go-version syntax.
    """
    return bool(list_module_versions(constraint_text, [label]).matching)


def pick_module_version(constraint: ModuleConstraint | str | None, available: list[str],
                        module: str = "") -> GoVersion:
    """OpenTofu's registry pick for one call: the newest matching version.

    Raises:
        NoVersionsError: "Module has no versions" (nothing survived the filters).
        NoMatchingVersionError: "Unresolvable module version constraint", with
            ``newest`` set to the newest available version.
        InvalidConstraint: invalid constraint text.
    """
    listing = list_module_versions(constraint, available)
    label = f" {module}" if module else ""
    if not listing.survivors:
        raise NoVersionsError("Module has no versions", f"Module{label} has no versions available.")
    if not listing.matching:
        newest = listing.newest
        assert newest is not None  # there are survivors
        raise NoMatchingVersionError(
            "Unresolvable module version constraint",
            f"There is no available version of module{label} which matches the given version "
            f"constraint. The newest available version is {newest.string}.",
            newest=newest.string,
        )
    return listing.matching[0]


def select_module_version(constraint: str | None, available: list[str]) -> str:
    """The version ``tofu init`` installs for a registry module call, normalized as
    OpenTofu requests it (go-version ``String()``: no ``v``, at least three segments).

    Raises:
        NoVersionsError, NoMatchingVersionError, InvalidConstraint: see
            :func:`pick_module_version`.
    """
    return pick_module_version(constraint, available).string


def select_provider_version(constraints: list[str], available: list[str], *,
                            locked: str | None = None, upgrade: bool = False,
                            provider: str = "") -> str:
    """The version ``tofu init`` selects for one provider (go-versions string).

    ``constraints`` are ANDed (one per declaration across the module tree).

    Raises:
        VersionError: with OpenTofu's exact message: ``locked provider P V does not match
            configured version constraint C; must use tofu init -upgrade ...``, ``0.0.0 is
            not a valid provider version. ...``, ``the previously-selected version V is no
            longer available``, or ``no available releases match the given constraints C``.
        InvalidConstraint: a constraint string OpenTofu rejects.
    """
    parsed: list[ProviderConstraint] = [provider_constraint(c) for c in constraints]
    spec: tuple = tuple(s for c in parsed for s in c.spec)
    canonical = gvs.canonical_string(spec)
    acceptable = lambda v: gvs.meets(spec, v)  # noqa: E731
    is_locked = False
    if not upgrade and locked is not None:
        lv = gvs.Version.parse(locked)
        if not acceptable(lv):
            raise VersionError(
                "Incompatible locked provider version",
                f"locked provider {provider} {lv} does not match configured version constraint "
                f"{canonical}; must use tofu init -upgrade to allow selection of new versions")
        acceptable = functools.partial(operator.eq, lv)
        is_locked = True
    elif gvs.is_exactly_unspecified(spec):
        raise VersionError(
            "Invalid provider version",
            "0.0.0 is not a valid provider version. \nIf the version 0.0.0 is intended to "
            "represent a non-published provider, consider using dev_overrides - "
            "https://opentofu.org/docs/cli/config/config-file/#development-overrides-for-provider-developers")
    versions = []
    for text in available:
        try:
            versions.append(gvs.Version.parse(text))
        except InvalidVersion:
            continue
    versions.sort(key=functools.cmp_to_key(lambda a, b: a.compare(b)))
    for v in reversed(versions):
        if acceptable(v):
            return str(v)
    if is_locked:
        raise VersionError("Provider version unavailable",
                           f"the previously-selected version {locked} is no longer available")
    raise NoMatchingVersionError(
        "Failed to query available provider packages",
        f"no available releases match the given constraints {canonical}")
