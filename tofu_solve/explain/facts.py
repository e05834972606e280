"""What an explanation says, as data: gathered by :mod:`.analysis` (which reads module
trees, listings and runs what-if solves) and turned into text and ``-json`` data by
:mod:`.render` (which reads nothing).

Every value here is already in the words and places a user sees: call paths, constraint
strings as written, ``file:line`` texts. A version that could not be examined is kept in
``not_examined`` (version -> error summary) instead of vanishing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..solver.kept_out import KeptOut
from ..solver.model import Identity
from .whatif import Lever, Suggestion


@dataclass(frozen=True)
class ConstraintFact:
    """One constraint on a subject: its text, who imposed it, where.

    ``imposed_by`` is a call path ("" for the root), ``module_version`` the version of the
    module that carries it ("" for the root and local modules), ``where`` the ``file:line``
    text (None when unknown), ``file``/``line`` the same as data."""

    subject: str
    constraint: str
    imposed_by: str
    module_version: str | None
    where: str | None
    file: str | None
    line: int | None
    who: str = ""  # "the root module", 'the local module "x"', or Origin.describe()
    at: str = ""  # " at file:line" of the origin, or ""

    def as_data(self) -> dict:
        return {"subject": self.subject, "constraint": self.constraint, "imposed_by": self.imposed_by or "root",
                "module_version": self.module_version, "file": self.file, "line": self.line}


@dataclass
class SideFacts:
    """A module call's position on a subject, over its candidate versions (newest first):
    ``per_version`` maps a version to the constraints it puts on the subject."""

    call_path: str
    display: str  # the call's source as shown
    within: str  # its constraint, quoted, or "any version"
    at: str  # where the call is written
    via: str  # the chain of calls from the root ("" for a root call)
    order: list[str] = field(default_factory=list)
    per_version: dict[str, list[ConstraintFact]] = field(default_factory=dict)
    not_examined: dict[str, str] = field(default_factory=dict)


@dataclass
class ConstraintClash:
    """A provider or OpenTofu that no version can satisfy for the parties of a clash."""

    ident: Identity
    name: str
    target: str | None  # "OpenTofu 1.12.6 (tofu on PATH)" for the OpenTofu (or Terraform) subject
    direct: list[tuple[str, ConstraintFact]]  # the user's own constraints on it: (as written, fact)
    sides: list[SideFacts]  # the module calls among the parties, with what each version requires
    unmatched: list[str]  # constraints that admit no published version


@dataclass
class CausesClash:
    """What resolvelib saw about a provider or OpenTofu, when no clash among the user's
    constraints was found (the conflict is inside fixed module versions, or the what-if
    bounds were reached)."""

    ident: Identity
    name: str
    requirements: list[ConstraintFact]
    unmatched: list[str]


@dataclass
class SharedPackageClash:
    """``-module-versions=shared``: one package, calls that want different versions.

    ``parties``, in the order of the clash: ``(lever, None, None)`` for a call of the
    package itself, ``(lever, display, {what its versions ask: versions})`` for a party that
    calls the package from inside."""

    ident: Identity
    name: str
    package: str
    parties: list[tuple] = field(default_factory=list)


@dataclass
class SharedPackageCauses:
    """``-module-versions=shared`` as resolvelib saw it: each call, what it asked for and
    the version it was tried at; ``no_overlap`` when no version meets them all."""

    ident: Identity
    name: str
    package: str
    entries: list[dict]  # call, constraint, tried, file, line (as data)
    places: list[str]  # per entry: where the call is written, and inside which module
    no_overlap: bool


@dataclass
class UnusableCall:
    """Every version of a call that its constraint allows is unusable: version -> why it
    is kept out (:class:`~tofu_solve.solver.kept_out.KeptOut`)."""

    ident: Identity
    name: str
    call: str
    by_version: dict[str, KeptOut]


@dataclass
class UnusableVersion:
    """One version of a call cannot be used (resolvelib's cause)."""

    ident: Identity
    name: str
    call_path: str
    version: str
    kept: KeptOut
    where: str = ""  # the call's constraint (or source) line, when the root module writes the call


@dataclass
class NoSuchVersion:
    """A module call whose constraint matches no version at all (OpenTofu's
    "Unresolvable module version constraint")."""

    ident: Identity
    name: str
    call_path: str
    detail: str | None  # None: not even the call is known
    at: str
    inside: str
    via: str
    file: str | None
    line: int | None


@dataclass
class PlainClash:
    """Constraints that cannot all hold, with no single subject to name."""

    levers: list[Lever]


@dataclass
class Explanation:
    """Everything the error says: the subjects (one of the classes above each), the minimal
    clashes, the verified suggestions, the lock upgrade that solves it (the ``-upgrade=``
    names, or None) and how the what-if search went."""

    subjects: list
    clashes: list[list[Lever]]
    suggestions: list[Suggestion]
    held_by_lock: list[str] | None
    exhausted: bool
    what_if_solves: int
    upgrade_targets: tuple[str, ...] = ()  # the -upgrade=NAME names already given (kept in advice)
    keeps: dict = field(default_factory=dict)  # "the providers" / "the modules" -> the best such Suggestion


