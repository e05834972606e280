"""Constraint values for module calls and provider requirements.

:class:`ModuleConstraint` is what OpenTofu builds from a ``module`` block's ``version``
(hashicorp/go-version, ``configs/version_constraint.go``); :class:`ProviderConstraint` is
what it builds from a ``required_providers`` entry (go-version must accept the text, then
go-versions ``ParseRubyStyleMulti`` gives the meaning; ``getproviders.ParseVersionConstraints``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from ..errors import InvalidConstraint, InvalidVersion
from . import apparentlymart_go_versions as gvs
from .hashicorp_go_version import GoConstraints, GoVersion


@dataclass(frozen=True)
class ModuleConstraint:
    """A module ``version`` constraint with hashicorp/go-version semantics.

    Attributes:
        text: the constraint as written (``str()`` gives go-version's ``String()``, the
            same text).
        parsed: the go-version constraint list (AND).
    """

    text: str
    parsed: GoConstraints = field(repr=False, compare=False)

    def allows(self, version: str | GoVersion) -> bool:
        """True when ``version`` meets every element (go-version ``Check``).

        This is go-version alone: registry prereleases additionally pass OpenTofu's
        npm-style gate, see :func:`tofu_solve.versions.select_module_version`.

        Raises:
            InvalidVersion: ``version`` is a string go-version cannot parse.
        """
        v = version if isinstance(version, GoVersion) else GoVersion.parse(version)
        return self.parsed.check(v)

    def __str__(self) -> str:
        return str(self.parsed)


def module_constraint(text: str) -> ModuleConstraint:
    """Parse a module ``version`` argument as OpenTofu does.

    Raises:
        InvalidConstraint: summary "Invalid version constraint", detail naming the text
            (empty strings, ``==``, ``>= 1 < 2`` without a comma, a trailing comma...).
    """
    if not isinstance(text, str):
        raise InvalidConstraint("Invalid version constraint",
                                f"A version constraint must be a string, not {text!r}.")
    try:
        parsed = GoConstraints.parse(text)
    except InvalidConstraint as e:
        raise InvalidConstraint(
            "Invalid version constraint",
            f"This string does not use correct version constraint syntax: {text!r} "
            f"({e.detail.split(' in ')[0]}).",
        ) from None
    return ModuleConstraint(text, parsed)


@dataclass(frozen=True)
class ProviderConstraint:
    """A provider ``version`` constraint with go-versions Ruby-style semantics.

    Attributes:
        text: as written.
        spec: the parsed intersection of selections (empty: no constraint).
    """

    text: str
    spec: tuple = field(repr=False, compare=False)

    def allows(self, version: str | gvs.Version) -> bool:
        """``versions.MeetingConstraints(spec).Has(version)``: released versions in range,
        prereleases only when named exactly.

        Raises:
            InvalidVersion: ``version`` is a string go-versions cannot parse.
        """
        v = version if isinstance(version, gvs.Version) else gvs.Version.parse(version)
        return gvs.meets(self.spec, v)

    @property
    def canonical(self) -> str:
        """The form OpenTofu writes in the lock file (``~> 1`` is ``~> 1.0``)."""
        return gvs.canonical_string(self.spec)

    def __and__(self, other: ProviderConstraint) -> ProviderConstraint:
        """Both constraints at once (OpenTofu appends them: AND)."""
        texts = [t for t in (self.text, other.text) if t.strip()]
        return ProviderConstraint(", ".join(texts), self.spec + other.spec)

    def __str__(self) -> str:
        return self.text


def provider_constraint(text: str) -> ProviderConstraint:
    """Parse a provider ``version`` argument as OpenTofu does.

    Raises:
        InvalidConstraint: go-version rejects it ("Invalid version constraint", "This
            string does not use correct version constraint syntax.") or go-versions does
            ("Invalid version constraint", "Incorrect version constraint syntax: <err>.").
    """
    if not isinstance(text, str):
        raise InvalidConstraint("Invalid version constraint",
                                f"A version constraint must be a string, not {text!r}.")
    try:
        GoConstraints.parse(text)
    except InvalidConstraint:
        raise InvalidConstraint(
            "Invalid version constraint",
            f"This string does not use correct version constraint syntax: {text!r}.") from None
    try:
        spec = gvs.parse_ruby_style_multi(text)
    except InvalidConstraint as e:
        raise InvalidConstraint(
            "Invalid version constraint",
            f"Incorrect version constraint syntax: {e.detail}.") from None
    return ProviderConstraint(text, spec)


def provider_constraints_all(constraints: list[ProviderConstraint]) -> ProviderConstraint:
    """AND of several provider constraints (empty list: no constraint)."""
    out = ProviderConstraint("", ())
    for c in constraints:
        out = out & c
    return out


__all__ = [
    "InvalidConstraint",
    "InvalidVersion",
    "ModuleConstraint",
    "ProviderConstraint",
    "module_constraint",
    "provider_constraint",
    "provider_constraints_all",
]


# The one memo of "does this constraint text admit this version" (issue #35): the search, the
# dead-end pass and the what-if explanations ask the same few thousand pairs again and again.
# Pure functions of their arguments, so a bounded cache is no state.


@functools.lru_cache(maxsize=1 << 16)
def module_constraint_allows(text: str, version: str) -> bool:
    """``module_constraint(text).allows(version)``, memoized.

    Raises:
        InvalidConstraint: as :func:`module_constraint`.
        InvalidVersion: ``version`` is not a go-version.
    """
    return module_constraint(text).allows(version)


@functools.lru_cache(maxsize=1 << 16)
def provider_constraint_allows(text: str, version: str) -> bool:
    """``provider_constraint(text).allows(version)``, memoized.

    Raises:
        InvalidConstraint: as :func:`provider_constraint`.
        InvalidVersion: ``version`` is not a go-versions version.
    """
    return provider_constraint(text).allows(version)
