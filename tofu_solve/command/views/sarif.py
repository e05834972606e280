"""``check``'s findings for CI code scanning (issue #59 §5): a SARIF 2.1.0 log
(``-format=sarif``; OASIS's ``sarif-schema-2.1.0.json``, as GitHub and GitLab code scanning
read it), and GitHub Actions workflow commands (``::error file=…,line=…,title=…::…``) beside
the text when ``GITHUB_ACTIONS=true``.

Each difference is one result at the file and line it concerns: the configuration line
(a module call's ``version`` or ``source``, a ``required_providers`` entry), else the file
that differs (an override file), else the root's lock file. Paths are relative to where the
command was run (the ``%SRCROOT%`` base), as the user and a CI checkout see them. Rules are
the difference kinds of :mod:`tofu_solve.command.check`."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ..._version import __version__
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
    "lock-change": ("LockFileWouldChange", "A lock that init would change, which -lockfile=readonly forbids."),
}
"""Difference kind -> (the rule's name, its one-line description)."""


@dataclass(frozen=True)
class Finding:
    """A finding that is not one of ``check``'s differences (``init -lockfile=readonly``'s
    lock changes), in the same shape: ``kind`` (a :data:`RULES` key), ``subject``,
    ``detail``, ``where`` (None: the root's lock file)."""

    kind: str
    subject: str
    detail: str
    where: SourceRange | None = None


def _uri(root: str, file: str, cwd: str) -> str:
    """``file`` (relative to the root directory ``root``, as a difference names it) relative
    to ``cwd``, ``/``-separated."""
    full = os.path.normpath(os.path.join(os.path.abspath(root), file))
    try:
        rel = os.path.relpath(full, cwd)
    except ValueError:  # another drive
        rel = full
    return PurePosixPath(*Path(rel).parts).as_posix()


def _place(diff: Any, root: str, cwd: str, lock_file: str) -> tuple[str, int]:
    """(URI, line) where a difference is shown."""
    where = getattr(diff, "where", None)
    if where is not None and where.file:
        return _uri(root, where.file, cwd), max(1, int(where.line or 1))
    subject = str(diff.subject)
    if diff.kind == "override" and not subject.startswith(("module ", "provider ")):
        return _uri(root, subject, cwd), 1
    return _uri(root, lock_file, cwd), 1


def _placed(found: Sequence[tuple[str, Sequence[Any]]], base: str, cwd: str,
            lock_file: str) -> Iterator[tuple[str, Any, str, int]]:
    """Each finding with where it is shown: (root, finding, URI, line). Under ``-recursive``
    a finding's file is already named from ``base`` (the root's prefix); else from its root."""
    for root, diffs in found:
        for d in diffs:
            where = getattr(d, "where", None)
            anchor = base if where is not None and where.file and root != "." else os.path.join(base, root)
            uri, line = _place(d, anchor, cwd, lock_file)
            yield root, d, uri, line


def check_log(found: Sequence[tuple[str, Sequence[Any]]], base: str, cwd: str,
              lock_file: str = ".terraform.lock.hcl") -> dict:
    """The SARIF log of ``check``: ``found`` is (root directory relative to ``base``, its
    differences) per root (one root, ``"."``, without ``-recursive``); ``base``: the
    ``-chdir`` directory; ``cwd``: where the command was run."""
    kinds = list(RULES)
    results = [{"ruleId": d.kind, "ruleIndex": kinds.index(d.kind), "level": "error",
                "message": {"text": f"{d.subject}: {d.detail}" + (f" (root module {root})" if root != "." else "")},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri, "uriBaseId": BASE_ID},
                                                    "region": {"startLine": line}}}]}
               for root, d, uri, line in _placed(found, base, cwd, lock_file)]
    rules = [{"id": kind, "name": name, "shortDescription": {"text": text},
              "defaultConfiguration": {"level": "error"},
              "help": {"text": f"{text} Run tofu-solve init to make the working directory match the lock "
                               "file again (tofu-solve check lists each difference)."}}
             for kind, (name, text) in RULES.items()]
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "tofu-solve", "version": __version__, "semanticVersion": __version__,
                            "rules": rules}},
        "originalUriBaseIds": {BASE_ID: {"uri": Path(os.path.abspath(cwd)).as_uri() + "/"}},
        "results": results}]}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotations(found: Sequence[tuple[str, Sequence[Any]]], base: str, cwd: str,
                       lock_file: str = ".terraform.lock.hcl") -> list[str]:
    """The GitHub Actions workflow commands for ``check``'s differences (as
    :func:`check_log` places them): ``::error file=F,line=L,title=T::MESSAGE``, escaped as
    the runner reads them (``%``, CR and LF in the message; ``:`` and ``,`` too in
    properties)."""
    return [f"::error file={_escape_property(uri)},line={line},"
            f"title={_escape_property(RULES.get(d.kind, (d.kind, ''))[0])}::{_escape_data(f'{d.subject}: {d.detail}')}"
            for _, d, uri, line in _placed(found, base, cwd, lock_file)]


__all__ = ["RULES", "Finding", "check_log", "github_annotations"]
