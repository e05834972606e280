"""``check``'s findings for CI code scanning (issue #59 §5): a SARIF 2.1.0 log
(``-format=sarif``; OASIS's ``sarif-schema-2.1.0.json``, as GitHub and GitLab code scanning
read it), and GitHub Actions workflow commands (``::error file=…,line=…,title=…::…``) beside
the text when ``GITHUB_ACTIONS=true``.

Each difference is one result at the file and line it concerns: the configuration line
(a module call's ``version`` or ``source``, a ``required_providers`` entry, a policy rule),
else the file that differs (an override file), else the root's lock file (when it exists;
else the root's main file). Every error of an ``init`` run is a result too (issue #70 §1):
at each of its lines in the repository (the clashing constraints of a conflict, a policy
rule, an invalid constraint), else on its root's main file; a failure of the run itself (a
registry, a store, an origin) is one tool notification (SARIF) or one annotation without a
file. Paths are relative to the repository's top (the ``%SRCROOT%`` base, the directory with
``.git`` above where the command ran, else that directory), as code scanning and the
runner place them; a file outside it keeps its absolute URI (SARIF) or no file (an
annotation). Rules are the difference kinds of :mod:`tofu_solve.command.check`, with
``lock-change`` and ``error`` for ``init``."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ..._version import __version__
from ...confined import boundary
from ...errors import SourceRange

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
BASE_ID = "SRCROOT"

RULES: Mapping[str, tuple[str, str]] = {
    "no-lock": ("ModuleCallNotLocked", "A remote module call has no module lock entry."),
    "constraints": ("ConstraintNotLocked", "A module call's version constraint is not the one the lock records."),
    "source": ("SourceNotLocked", "A module call's source is not the one the lock records."),
    "stale-lock": ("StaleModuleLock", "A module lock entry names a call that no longer exists."),
    "not-installed": ("ModuleNotInstalled", "A locked module is not installed where tofu init looks."),
    "manifest": ("ManifestDiffers", "modules.json records another source, version or directory than the lock."),
    "hash": ("InstalledCopyChanged", "An installed module's h1: hash is not among the lock's hashes."),
    "lock-hash": ("LockHashEdited", "The lock's h1: hash matches neither the installed copy nor the last init."),
    "override": ("OverrideFileStale", "The override bridge file is missing, stale or no longer needed."),
    "provider": ("ProviderLockDiffers", "A provider lock is missing, or the configuration no longer meets it."),
    "policy": ("PolicyDenies", "A locked version or source that the team's policy denies."),
    "revoked": ("VersionRevoked", "A locked module version that its registry revoked."),
    "pin": ("TerragruntUnitNotPinned", "A Terragrunt unit whose terragrunt.hcl lets Terragrunt take another version "
                                       "than its lock's."),
    "lock-change": ("LockFileWouldChange", "A lock that init would change, which -lockfile=readonly forbids."),
    "error": ("RootModuleError", "An error that stopped a root module's init or check: a conflict, an invalid "
                                 "constraint or source, a policy refusal, a file that does not read."),
}
"""Difference kind -> (the rule's name, its one-line description)."""


@dataclass(frozen=True)
class Finding:
    """A finding that is not one of ``check``'s differences (``init -lockfile=readonly``'s
    lock changes, an ``init`` error), in the same shape: ``kind`` (a :data:`RULES` key),
    ``subject``, ``detail``, ``where`` (None: the root's lock file, else its main file)."""

    kind: str
    subject: str
    detail: str
    where: SourceRange | None = None


@dataclass(frozen=True)
class Notification:
    """A failure of the run itself, not of a line (a registry, a store, an origin): said
    once; or, at ``level`` ``"note"``, what the run did not do (a root ``-recursive`` left
    out, issue #81 §5), which does not make the run unsuccessful."""

    summary: str
    detail: str
    level: str = "error"


RUN_LEVEL = ("NetworkError", "RegistryError", "OciError", "StoreError", "CacheError", "OfflineError")
"""The error classes that are a failure of the run's surroundings, not of a root's files."""


def error_findings(e: Any) -> list[Finding] | Notification:
    """An ``init`` error as findings: one at each line of the repository it names (its own
    ``where``, and for a conflict every constraint the root module writes that the
    explanation cites), or none (the caller places it on the root's main file); a failure of
    the run itself, named by no line, as a :class:`Notification`."""
    summary, detail = str(getattr(e, "summary", "Error")), str(getattr(e, "detail", ""))
    places: list[SourceRange] = []
    where = getattr(e, "where", None)
    if where is not None and where.file:
        places.append(where)
    for file, line in _root_places(getattr(e, "explanation", None)):
        if not any(p.file == file and p.line == line for p in places):
            places.append(SourceRange(file, line))
    if not places and any(c.__name__ in RUN_LEVEL for c in type(e).__mro__):
        return Notification(summary, detail)
    return [Finding("error", summary, detail, p) for p in places]


def _root_places(doc: Any, depth: int = 0, lever: bool = False) -> Iterator[tuple[str, int]]:
    """(file, line) of the lines a reviewer can change in an explanation: every constraint of
    its ``clashes`` (the root module's levers: a call's constraint, a provider requirement,
    a policy rule) and every fact the root module imposes (``imposed_by`` is ``root``)."""
    if depth > 20:
        return
    if isinstance(doc, dict):
        placed = isinstance(doc.get("file"), str) and isinstance(doc.get("line"), int)
        if placed and (lever or doc.get("imposed_by") == "root"):
            yield doc["file"], doc["line"]
        for k, v in doc.items():
            if k != "suggestions":  # a suggestion's edit is where a fix goes, not the failure
                yield from _root_places(v, depth + 1, lever or k == "clashes")
    elif isinstance(doc, list):
        for v in doc:
            yield from _root_places(v, depth + 1, lever)


def repository_top(cwd: str) -> str:
    """The directory code scanning's paths are relative to: the repository holding ``cwd``
    (the nearest directory upward with a ``.git`` entry), else ``cwd``; a real path."""
    return boundary(cwd)


def _uri(root: str, file: str, top: str) -> str | None:
    """``file`` (relative to the root directory ``root``, as a difference names it) relative
    to the repository's ``top``, ``/``-separated; None when it is outside ``top``."""
    full = _placed_path(root, file)
    try:
        rel = os.path.relpath(full, top)
    except ValueError:  # another drive
        return None
    if rel == ".." or rel.startswith(".." + os.sep):
        return None
    return PurePosixPath(*Path(rel).parts).as_posix()


def _placed_path(root: str, file: str) -> str:
    """Where ``file`` (relative to ``root``) is, its directory's links resolved as the
    repository's top is, the file's own name kept: a finding about a link is shown on the
    link (a link out of the repository is placed where it sits, not where it points)."""
    joined = os.path.normpath(os.path.join(os.path.abspath(root), file))
    return os.path.join(os.path.realpath(os.path.dirname(joined)), os.path.basename(joined))


def main_file(root: str) -> str:
    """The file a finding without a line is shown on: ``main.tf`` (``main.tofu``) when the root
    has it, else a Terragrunt unit's ``terragrunt.hcl``, else its first configuration file by
    name, else its lock file."""
    try:
        names = sorted(os.listdir(root))
    except OSError:
        names = []
    for preferred in ("main.tf", "main.tofu", "terragrunt.hcl"):
        if preferred in names:
            return preferred
    return next((n for n in names if n.endswith((".tf", ".tofu", ".tf.json", ".tofu.json"))), LOCK_FILE)


LOCK_FILE = ".terraform.lock.hcl"


def _place(diff: Any, root: str, top: str, lock_file: str) -> tuple[str | None, int, str]:
    """(URI relative to ``top`` or None, line, absolute path) where a finding is shown."""
    where = getattr(diff, "where", None)
    if where is not None and where.file:
        file, line = where.file, max(1, int(where.line or 1))
    elif diff.kind == "override" and not str(diff.subject).startswith(("module ", "provider ")):
        file, line = str(diff.subject), 1
    else:  # the lock file; a lock file that does not exist yet is not where a reviewer looks
        file = lock_file if os.path.exists(os.path.join(root, lock_file)) else main_file(root)
        line = 1
    return _uri(root, file, top), line, _placed_path(root, file)


def _placed(found: Sequence[tuple[str, Sequence[Any]]], base: str, top: str,
            lock_file: str) -> Iterator[tuple[str, Any, str | None, int, str]]:
    """Each finding with where it is shown: (roots, finding, URI, line, absolute path).
    Under ``-recursive`` a finding's file is already named from ``base`` (the root's
    prefix), but the root's own lock file (named as it is, with no directory: issue #81 §2,
    it was placed in the top's); else from its root. A finding at a line several roots share
    (an include, a module file) is one result naming every root it affects (``roots``: the
    root names joined by ", ")."""
    placed: dict[tuple, tuple[list[str], Any, str | None, int, str]] = {}
    for root, diffs in found:
        for d in diffs:
            where = getattr(d, "where", None)
            own_lock = where is not None and where.file == lock_file
            anchor = base if where is not None and where.file and root != "." and not own_lock else \
                os.path.join(base, root)
            uri, line, full = _place(d, anchor, top, lock_file)
            key = (full, line, d.kind, d.subject, d.detail)
            if key in placed:  # a shared file's finding, met in every root that reads it: one, naming them all
                if root not in placed[key][0]:
                    placed[key][0].append(root)
                continue
            placed[key] = ([root], d, uri, line, full)
    for roots, d, uri, line, full in placed.values():
        yield ", ".join(roots), d, uri, line, full


def _roots_named(roots: str) -> str:
    """`` (root module A)`` or `` (root modules A, B)`` ("" for the one root of a run without
    ``-recursive``)."""
    if roots == ".":
        return ""
    return f" (root module{'s' if ', ' in roots else ''} {roots})"


def _location(uri: str | None, full: str, line: int) -> dict:
    artifact = {"uri": uri, "uriBaseId": BASE_ID} if uri is not None else {"uri": Path(full).as_uri()}
    return {"physicalLocation": {"artifactLocation": artifact, "region": {"startLine": line}}}


def check_log(found: Sequence[tuple[str, Sequence[Any]]], base: str, cwd: str,
              lock_file: str = LOCK_FILE, notifications: Sequence[Notification] = ()) -> dict:
    """The SARIF log of ``check`` (and of ``init``'s findings): ``found`` is (root directory
    relative to ``base``, its findings) per root (one root, ``"."``, without ``-recursive``);
    ``base``: the ``-chdir`` directory; ``cwd``: where the command was run (its repository's
    top is the base of every URI); ``notifications``: failures of the run itself."""
    top = repository_top(cwd)
    kinds = list(RULES)
    results = [{"ruleId": d.kind, "ruleIndex": kinds.index(d.kind), "level": "error",
                "message": {"text": f"{d.subject}: {d.detail}" + _roots_named(root)},
                "locations": [_location(uri, full, line)]}
               for root, d, uri, line, full in _placed(found, base, top, lock_file)]
    rules = [{"id": kind, "name": name, "shortDescription": {"text": text},
              "defaultConfiguration": {"level": "error"},
              "help": {"text": f"{text} Run tofu-solve init to make the working directory match the lock "
                               "file again (tofu-solve check lists each difference)."}}
             for kind, (name, text) in RULES.items()]
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "tofu-solve", "version": __version__, "semanticVersion": __version__,
                            "rules": rules}},
        "originalUriBaseIds": {BASE_ID: {"uri": Path(top).as_uri() + "/"}},
        "results": results}
    if notifications:
        run["invocations"] = [{"executionSuccessful": not any(n.level == "error" for n in notifications),
                               "toolExecutionNotifications": [
            {"level": n.level, "message": {"text": f"{n.summary}: {n.detail}" if n.detail else n.summary}}
            for n in notifications]}]
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotations(found: Sequence[tuple[str, Sequence[Any]]], base: str, cwd: str,
                       lock_file: str = LOCK_FILE, notifications: Sequence[Notification] = ()) -> list[str]:
    """The GitHub Actions workflow commands for the findings (as :func:`check_log` places
    them, relative to the repository's top): ``::error file=F,line=L,title=T::MESSAGE``, or
    without ``file`` for one outside the repository and for a notification; escaped as the
    runner reads them (``%``, CR and LF in the message; ``:`` and ``,`` too in properties)."""
    top = repository_top(cwd)
    out = []
    for roots, d, uri, line, _full in _placed(found, base, top, lock_file):
        place = f"file={_escape_property(uri)},line={line}," if uri is not None else ""
        out.append(f"::error {place}title={_escape_property(RULES.get(d.kind, (d.kind, ''))[0])}::"
                   f"{_escape_data(f'{d.subject}: {d.detail}' + _roots_named(roots))}")
    out += [f"::{'notice' if n.level == 'note' else 'error'} title={_escape_property(n.summary)}::"
            f"{_escape_data(n.detail or n.summary)}" for n in notifications]
    return out


__all__ = ["RULES", "Finding", "Notification", "check_log", "error_findings", "github_annotations",
           "main_file", "repository_top"]
