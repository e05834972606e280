"""Requirements and candidates the resolver works with.

Identities (what gets exactly one version) are :class:`Identity` values over a :class:`Kind`:

* ``Identity(Kind.MODULE, "vpc.nested")``: a module call path (OpenTofu installs per call);
* ``Identity(Kind.PACKAGE, "<package address>")``: a module package, only with
  ``-module-versions=shared`` (every call of the package then pins this identity);
* ``Identity(Kind.PROVIDER, "registry.opentofu.org/hashicorp/aws")``: one version for the
  whole tree;
* ``OPENTOFU``: the OpenTofu release the configuration is solved for;
* ``Identity(Kind.UNUSABLE, "eks", "20.1.0")``: a module version whose content cannot be used
  (never satisfied; ``version`` empty where a whole call's versions are meant).

Every requirement carries its provenance: the call path that imposed it, the version of
the module that imposed it, the file and line. Conflict explanations are built from these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import NamedTuple

from ..addrs.identifiers import is_symbols_segment
from ..addrs.module_source import ModuleSource, RegistrySource
from ..addrs.provider import ProviderAddress
from ..config import ModuleCall
from ..errors import SourceRange
from ..providers.base import AvailableVersion
from ..versions import apparentlymart_go_versions as gvs
from ..versions.constraints import ModuleConstraint, ProviderConstraint
from ..versions.hashicorp_go_version import GoVersion
from ..versions.version_pick import registry_pick_considers
from .kept_out import KeptOut

ROOT = ""


class Kind(StrEnum):
    """What an identity names. A ``StrEnum``: its members hash and compare as their text, so
    identities stay as cheap to hash as tuples of strings (resolvelib hashes them on every
    round)."""

    MODULE = "module"
    PACKAGE = "package"
    PROVIDER = "provider"
    OPENTOFU = "opentofu"
    UNUSABLE = "unusable"
    CLASH = "clash"  # not a resolvelib identity: an explanation's subject when no identity is named


class Identity(NamedTuple):
    """What the resolver gives exactly one version (resolvelib's ``KT``).

    Attributes:
        kind: what is named.
        name: the call path (``MODULE``, ``UNUSABLE``), package address (``PACKAGE``) or
            provider address (``PROVIDER``); empty for ``OPENTOFU`` and ``CLASH``.
        version: ``UNUSABLE`` only: the version that cannot be used ("" for a whole call).
    """

    kind: Kind
    name: str = ""
    version: str = ""

    @staticmethod
    def module(call_path: str) -> Identity:
        return Identity(Kind.MODULE, call_path)

    @staticmethod
    def provider(address: object) -> Identity:
        """``address``: a :class:`ProviderAddress` or its text."""
        return Identity(Kind.PROVIDER, str(address))

    @staticmethod
    def package(address: str) -> Identity:
        return Identity(Kind.PACKAGE, address)


OPENTOFU = Identity(Kind.OPENTOFU)
CLASH = Identity(Kind.CLASH)


@dataclass(frozen=True)
class Origin:
    """Who imposed a requirement: a module call path ("" for the root module) at a
    selected version (None for the root), and where it is written."""

    call_path: str
    version: str | None
    where: SourceRange | None
    package: str | None = None  # display name of the imposing module package

    def cite(self) -> str:
        """Where, as every citation reads (issue #24): ``main.tf:5`` in the root module;
        inside a package, the package and version first
        (``terraform-aws-modules/eks/aws 21.19.0: main.tf:340``)."""
        at = str(self.where) if self.where is not None else "?"
        if self.call_path == ROOT or not self.package:
            return at
        return f"{self.package} {self.version}: {at}" if self.version else f"{self.package}: {at}"

    def describe(self) -> str:
        if self.call_path == ROOT:
            return "the root module"
        ver = f" {self.version}" if self.version else ""
        return f'module "{self.call_path}" ({self.package}{ver})' if self.package else \
            f'module "{self.call_path}"{ver}'


@dataclass(frozen=True)
class ModuleRequirement:
    """A module call: the call path must get a version of the call's source that meets
    its constraint (None: any released version / what the address pins)."""

    call_path: str
    call: ModuleCall = field(compare=False)
    origin: Origin = field(compare=False)
    source_key: str = ""  # normalized source, part of equality

    @property
    def identifier(self) -> Identity:
        return Identity(Kind.MODULE, self.call_path)

    @property
    def constraint(self) -> ModuleConstraint | None:
        return self.call.version

    @property
    def versioned(self) -> bool:
        """Whether the call chooses among versions: a registry source always; a git or OCI
        source only with a ``version`` (its tags); any other source is what its address
        pins."""
        return isinstance(self.call.source, RegistrySource) or self.call.version is not None

    def is_satisfied_by(self, candidate: Candidate) -> bool:
        """A version of this call's own source that OpenTofu's pick would consider (go-version
        ``Check`` plus the prerelease gate); any candidate of the source when not versioned."""
        if not isinstance(candidate, ModuleCandidate) or candidate.source_key != self.source_key:
            return False
        if not self.versioned:
            return True
        if candidate.version is None:
            return False
        return registry_pick_considers(self.call.version.text if self.call.version else None,
                                       candidate.available.label)


@dataclass(frozen=True)
class PackagePin:
    """``-module-versions=shared``: the package must be at exactly this version."""

    package: str
    version: str
    origin: Origin = field(compare=False)

    @property
    def identifier(self) -> Identity:
        return Identity(Kind.PACKAGE, self.package)

    def is_satisfied_by(self, candidate: Candidate) -> bool:
        return isinstance(candidate, PackageCandidate) and candidate.version == self.version


@dataclass(frozen=True)
class ProviderRequirement:
    """A provider version constraint from one ``required_providers`` entry; ``via``: what
    a non-literal entry read (:attr:`tofu_solve.config.module_dir.RequiredProvider.via`)."""

    address: ProviderAddress
    constraint: ProviderConstraint | None = field(compare=False)
    origin: Origin = field(compare=False)
    text: str = ""
    where_key: str = ""
    via: str = field(default="", compare=False)

    @property
    def identifier(self) -> Identity:
        return Identity(Kind.PROVIDER, str(self.address))

    def is_satisfied_by(self, candidate: Candidate) -> bool:
        """go-versions ``MeetingConstraints(spec).Has``: prereleases only when named exactly."""
        if not isinstance(candidate, ProviderCandidate):
            return False
        return gvs.meets(self.constraint.spec if self.constraint else (), candidate.version)


@dataclass(frozen=True)
class CoreRequirement:
    """An OpenTofu version constraint (``required_version`` or ``compatible_with``)."""

    constraint: ModuleConstraint = field(compare=False)
    origin: Origin = field(compare=False)
    kind: str = "required_version"
    text: str = ""
    where_key: str = ""

    @property
    def identifier(self) -> Identity:
        return OPENTOFU

    def is_satisfied_by(self, candidate: Candidate) -> bool:
        return isinstance(candidate, TofuCandidate) and self.constraint.allows(candidate.version)


@dataclass(frozen=True)
class Unusable:
    """Emitted by a module candidate that is kept out (its package fails to load, a rule
    refuses it, ...): it can never be satisfied, so the resolver moves on and the
    explanation can say why (``kept``: the one vocabulary of :mod:`.kept_out`)."""

    call_path: str
    version: str
    kept: KeptOut = field(compare=False)

    @property
    def reason(self) -> str:
        """The reason's words for this version (:attr:`KeptOut.text`)."""
        return self.kept.text

    @property
    def where(self) -> SourceRange | None:
        return self.kept.where

    @property
    def identifier(self) -> Identity:
        return Identity(Kind.UNUSABLE, self.call_path, self.version)

    def is_satisfied_by(self, candidate: Candidate) -> bool:
        return False


@dataclass(frozen=True)
class NewerThan:
    """Only candidates newer than ``version`` (used when looking for a solution that goes
    back fewer versions; never part of the user's constraints)."""

    call_path: str
    version: GoVersion = field(compare=False)
    label: str = ""

    @property
    def identifier(self) -> Identity:
        return Identity(Kind.MODULE, self.call_path)

    def is_satisfied_by(self, candidate: Candidate) -> bool:
        return isinstance(candidate, ModuleCandidate) and candidate.version is not None and \
            candidate.version.compare(self.version) > 0


Requirement = ModuleRequirement | PackagePin | ProviderRequirement | CoreRequirement | Unusable | NewerThan


@dataclass(frozen=True)
class ModuleCandidate:
    """A version of a call path's source.

    Attributes:
        call_path: the call.
        source: the call's source.
        available: the version as the source offers it.
        package: the package address.
    """

    call_path: str
    source: ModuleSource = field(compare=False)
    available: AvailableVersion
    package: str

    @property
    def identifier(self) -> Identity:
        return Identity(Kind.MODULE, self.call_path)

    @cached_property
    def source_key(self) -> str:
        """``str(source)``, computed once: resolvelib asks whether the current pin still
        satisfies every criterion on every round, so this is compared millions of times in a
        large tree (issue #23)."""
        return str(self.source)

    @property
    def version(self) -> GoVersion | None:
        return self.available.version

    @property
    def symbols(self) -> bool:
        """A version of a symbol library (the call path ends in ``symbols:name``): its
        package is read for ``*.sym.hcl`` files, not as a module."""
        return is_symbols_segment(self.call_path.rpartition(".")[2])

    @cached_property
    def version_text(self) -> str:
        """The version as the lock and output show it: go-version ``String()`` for
        registry modules, the tag for git, the ref for pins (computed once: the dead-end
        pass and the search ask for it tens of thousands of times)."""
        a = self.available
        if a.version is not None and self.source.kind.value == "registry":
            return a.version.string
        return a.label or (a.commit or "")


@dataclass(frozen=True)
class PackageCandidate:
    package: str
    version: str

    @property
    def identifier(self) -> Identity:
        return Identity(Kind.PACKAGE, self.package)


@dataclass(frozen=True)
class ProviderCandidate:
    address: ProviderAddress
    version: gvs.Version

    @property
    def identifier(self) -> Identity:
        return Identity(Kind.PROVIDER, str(self.address))


@dataclass(frozen=True)
class TofuCandidate:
    version: GoVersion

    @property
    def identifier(self) -> Identity:
        return OPENTOFU


Candidate = ModuleCandidate | PackageCandidate | ProviderCandidate | TofuCandidate


def short_provider(addr: str) -> str:
    """A provider address without the default registry host."""
    return addr.removeprefix("registry.opentofu.org/")


def subject_name(ident: Identity) -> str:
    """An identity as people name it (``module call "eks"``, ``provider hashicorp/aws``)."""
    kind = ident.kind
    if kind is Kind.PROVIDER:
        return f"provider {short_provider(ident.name)}"
    if kind is Kind.OPENTOFU:
        return "the OpenTofu version"
    if kind is Kind.PACKAGE:
        return f"module package {ident.name}"
    if kind is Kind.MODULE or (not ident.version and kind is Kind.UNUSABLE):
        return f'module call "{ident.name}"'
    if kind is Kind.CLASH:
        return "the constraints of this configuration"
    return f'module "{ident.name}" {ident.version}'
