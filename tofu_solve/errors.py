"""One error hierarchy for tofu-solve.

Every error a user can meet is a :class:`TofuSolveError`. Each renders the message a
user sees in OpenTofu's diagnostic style::

    Error: <summary>

      on <file> line <N>:

    <detail>

Subclasses say which kind of failure it is, so callers (and the CLI's exit code) can
tell them apart without parsing text.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from ._lazy import load
from .output_edge import one_line


@dataclass(frozen=True)
class SourceRange:
    """Where something was written: a file path (as given) and a 1-based line.

    Attributes:
        context: the enclosing block as OpenTofu names it in diagnostics
            (``module "vpc"``, ``terraform``), or "".
        snippet: the text of that line, or "" (not part of equality).
    """

    file: str
    line: int
    context: str = field(default="", compare=False)
    snippet: str = field(default="", compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


def name_suggestion(given: str, suggestions) -> str | None:
    """The first of ``suggestions`` close to ``given``, as OpenTofu's "did you mean" helper
    chooses it (``internal/didyoumean/name_suggestion.go`` ``NameSuggestion``: Levenshtein
    distance below 3, the suggestions tried in order, so earlier ones win a tie), or None.
    The distance is rapidfuzz's ``Levenshtein.distance``."""
    load("rapidfuzz.distance")
    from rapidfuzz.distance import Levenshtein

    for s in suggestions:
        if s != given and Levenshtein.distance(given, s, score_cutoff=3) < 3:
            return s
    return None


def go_quote(text: str) -> str:
    """``text`` as Go's ``%q`` writes a printable string (``strconv.Quote``): in double
    quotes, with backslashes, double quotes and control characters escaped, as OpenTofu's
    messages quote what they name."""
    out = ['"']
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif c == "\r":
            out.append("\\r")
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\x{ord(c):02x}")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


class TofuSolveError(Exception):
    """Root of every tofu-solve error.

    Attributes:
        summary: one line, OpenTofu's diagnostic summary (e.g. "Invalid version constraint").
        detail: longer explanation, may span lines; may be empty.
        where: the file and line the problem was written at, when known.
    """

    exit_code = 1
    # warnings that explain the failure (the CLI configuration that could not be opened, then
    # a registry that cannot be reached), shown before it (issue #34)
    warnings: tuple[str, ...] = ()
    # what the run's package store did before the failure (``report_data``'s dict; issue #68
    # §3: a failed root's reads and rejections are counted and named, not lost with it)
    store: dict | None = None

    def __init__(self, summary: str, detail: str = "", where: SourceRange | None = None):
        self.summary = summary
        self.detail = detail
        self.where = where
        super().__init__(self.render())

    def at(self, where: SourceRange | None) -> TofuSolveError:
        """This error cited at ``where`` when it names no place yet (a copy: the same error
        may be remembered for several calls that share a source), else itself. A failure to
        reach a call's source is cited at its ``source`` argument (issue #34)."""
        if self.where is not None or where is None:
            return self
        cited = copy.copy(self)
        cited.where = where
        cited.args = (cited.render(),)
        return cited

    def adding(self, text: str) -> TofuSolveError:
        """A copy of this error whose detail ends with ``text`` (a further paragraph: what
        another place, tried first, said of the same thing)."""
        told = copy.copy(self)
        told.detail = f"{self.detail}\n\n{text}" if self.detail else text
        told.args = (told.render(),)
        return told

    def render(self) -> str:
        """The message as a user sees it (no trailing newline)."""
        out = [f"Error: {self.summary}"]
        if self.where is not None:  # a file's name is a repository's text: on one line (issue #67 §1)
            ctx = f", in {one_line(self.where.context)}" if self.where.context else ""
            out += ["", f"  on {one_line(self.where.file)} line {self.where.line}{ctx}:"]
            if self.where.snippet.strip():  # tofu's source snippet: "%4d: %s", one line, bounded (issue #67 §1)
                out.append(f"{self.where.line:4d}: {one_line(self.where.snippet.rstrip().replace(chr(9), '  '), 300)}")
        if self.detail:
            out += ["", self.detail]
        return "\n".join(out)

    def to_dict(self) -> dict:
        """The same message as data, for ``-json`` output."""
        return {
            "kind": type(self).__name__,
            "summary": self.summary,
            "detail": self.detail,
            "file": self.where.file if self.where else None,
            "line": self.where.line if self.where else None,
            "context": self.where.context if self.where and self.where.context else None,
            "snippet": self.where.snippet.rstrip() if self.where and self.where.snippet.strip() else None,
        }


class WarningText(str):
    """A warning: its text (a ``str``, printed as is after "Warning: ") and a short
    ``summary`` naming its kind, for diagnostics (``-json``)."""

    summary: str

    def __new__(cls, summary: str, text: str):
        obj = super().__new__(cls, text)
        obj.summary = summary
        return obj


class RepairWarning(WarningText):
    """A warning that the run mended something: a damaged cache entry fetched again, an
    installed module copy that no longer matched the lock reinstalled. A run that mended
    something is not one the warm path may answer for (:mod:`tofu_solve.workdir.stamp`)."""


class RuleWarning(WarningText):
    """A warning about what one rule (a policy ``deny`` block, or the release cooldown)
    changed in a selection (issue #47 §5): ``rule`` the rule's identity (its text as cited),
    ``why`` its reason as the warning ends with, ``held`` what it held back, ((subject,
    selected version, versions kept out), ...), so that ``-recursive`` can say it once
    across roots."""

    rule: str = ""
    why: str = ""
    held: tuple[tuple[str, str, tuple[str, ...]], ...] = ()


class VersionError(TofuSolveError):
    """A version, a constraint, or a version pick that failed."""


class InvalidVersion(VersionError):
    """A version string rejected by the parser named in the message."""


class InvalidConstraint(VersionError):
    """A constraint string rejected by the parser named in the message."""


class NoVersionsError(VersionError):
    """OpenTofu's "Module has no versions": nothing usable was published."""


class NoMatchingVersionError(VersionError):
    """OpenTofu's "Unresolvable module version constraint" / provider "no available releases".

    Attributes:
        newest: the newest available version (string), when there is one.
    """

    def __init__(self, summary: str, detail: str = "", where: SourceRange | None = None,
                 newest: str | None = None):
        self.newest = newest
        super().__init__(summary, detail, where)


class SourceAddressError(TofuSolveError):
    """A module source address that OpenTofu would not accept."""


class ConfigurationError(TofuSolveError):
    """Broken or unsupported configuration: bad HCL, a misplaced argument, an expression
    that cannot be evaluated statically."""


class LockFileError(TofuSolveError):
    """A malformed ``.terraform.lock.hcl``: nothing is overwritten."""


class LockFileWouldChange(TofuSolveError):
    """``-lockfile=readonly`` and the selection differs from the lock file (a well-formed
    one): a different kind from :class:`LockFileError`.

    Attributes:
        changes: each lock that would change, as findings for code scanning: (subject, what
            would change and why, where it is written in the root module or None for the
            lock file).
    """

    changes: tuple[tuple[str, str, SourceRange | None], ...] = ()


class LockedVersionGone(VersionError):
    """The version the lock file holds for a call or provider is no longer offered by its
    source (withdrawn, or a hand-edited lock): an error, never a silent re-pick, as OpenTofu
    says of a provider (``internal/providercache/installer.go``: "the previously-selected
    version %s is no longer available"); ``-upgrade=NAME`` chooses afresh."""


def locked_version_gone(subject: str, version: str, upgrade: str, where=None, also: str = "") -> LockedVersionGone:
    """OpenTofu's words for a locked version its source no longer offers
    (``internal/providercache/installer.go``: "the previously-selected version %s is no
    longer available"), naming the subject and the ``-upgrade=NAME`` that chooses afresh."""
    return LockedVersionGone(
        "Locked version no longer available",
        f"The lock file holds {subject} at {version}, but the previously-selected version {version} is no longer "
        f"available: it was withdrawn or deleted from the registry's index, or the lock file was edited by hand. "
        f"tofu-solve does not pick another version silently; run tofu-solve init {upgrade} to choose afresh.{also}",
        where)


class HashError(TofuSolveError):
    """A package that cannot be hashed (e.g. a file name with a newline)."""


class NetworkError(TofuSolveError):
    """A registry, git remote or download that could not be reached or answered wrongly.

    Attributes:
        url: what was being contacted (credentials removed).
    """

    def __init__(self, summary: str, detail: str = "", where: SourceRange | None = None, url: str = ""):
        self.url = url
        super().__init__(summary, detail, where)


class TruncatedDownload(NetworkError):
    """The connection broke, or the body ended, before the announced size: worth one retry."""


class DownloadTooLarge(NetworkError):
    """A download that sent more than the bound it was read under (the run's limit, or the
    size a descriptor declared)."""


class RegistryError(TofuSolveError):
    """A registry answered, but not with what the protocol requires (404, bad JSON...)."""


class ModuleNotFound(RegistryError):
    """The registry answered that it has no such module package (404): a definite answer,
    unlike a network failure. A module version that calls one is passed over (issue #24)."""


class ResolutionError(TofuSolveError):
    """No consistent set of versions exists (see :mod:`tofu_solve.explain`).

    Attributes:
        explanation: the structured explanation (a dict, also printed by ``-json``).
    """

    def __init__(self, summary: str, detail: str = "", where: SourceRange | None = None,
                 explanation: dict | None = None):
        self.explanation = explanation or {}
        super().__init__(summary, detail, where)

    def to_dict(self) -> dict:
        d = super().to_dict()
        d["explanation"] = self.explanation
        return d


class IntegrityError(TofuSolveError):
    """A package whose content does not match its recorded hash."""


class ChecksumMismatch(IntegrityError):
    """A download whose checksum is not the one its source published: worth one retry."""


class LockHashEdited(IntegrityError):
    """The lock's ``h1:`` matches neither the package nor the installed copy, which agree:
    the lock file was edited, not the package (:func:`tofu_solve.workdir.install.hash_mismatch`)."""


class CacheError(TofuSolveError):
    """The cache directory cannot be used (not a directory, not writable, disk full)."""


class OfflineError(TofuSolveError):
    """``-offline`` was given and something needed is not in the lock or the cache."""
