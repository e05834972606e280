"""Leaving roots out of ``-recursive`` (issue #81 §5): by the repository, in a committed
``.tofu-solve-exclude`` file, and by the ``-exclude-dir=PATTERN`` flag (as Terragrunt's
``--queue-exclude-dir``).

A ``.tofu-solve-exclude`` file is read in the directory ``-recursive`` runs in and in each
directory above it up to the top of its repository (the nearest directory upward with a
``.git`` entry; outside a repository, only the run's own directory). Its lines are
``.gitignore`` patterns (read by pathspec's ``gitignore`` patterns), relative to the file's
directory: ``live/prod/app/``, ``**/legacy/``, ``!live/dev/keep/``; ``#`` starts a comment
line, and the comment lines right above a pattern are its **reason**, shown wherever the
root is named. ``-exclude-dir`` patterns are the same syntax, relative to the ``-chdir``
directory, and come last. A root is left out when the last pattern that matches its path
(as a directory) is not a negation: files from the top down, then the flags.

A left-out root is never read (its configuration may need what only Terragrunt's runtime
knows), is never a failure, and is shown as left out, with the pattern's file and line or
flag and its reason, in the text, the JSON and the summary: never silently.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .._lazy import load
from ..confined import boundary, read_text
from ..errors import ConfigurationError, SourceRange
from ..output_edge import one_line

EXCLUDE_FILE = ".tofu-solve-exclude"
MAX_PATTERNS = 10_000  # a committed file's patterns (each is a regular expression to match every root against)


@dataclass(frozen=True)
class LeftOut:
    """Why a root is left out: the ``pattern`` that matched it, as written; ``file`` the
    ``.tofu-solve-exclude`` it is in, named from the run's directory, and its 1-based
    ``line`` (``""`` and 0 for ``-exclude-dir``); ``reason``: the comment lines above it
    (``""`` when none)."""

    pattern: str
    file: str = ""
    line: int = 0
    reason: str = ""

    @property
    def by(self) -> str:
        """Where the pattern was given: ``.tofu-solve-exclude:3`` or ``-exclude-dir=PATTERN``."""
        return f"{one_line(self.file)}:{self.line}" if self.file else f"-exclude-dir={one_line(self.pattern)}"

    def text(self) -> str:
        """One line: ``left out by BY`` and the reason, when there is one."""
        return f"left out by {self.by}" + (f": {one_line(self.reason, 200)}" if self.reason else "")

    def as_data(self) -> dict:
        """``{"pattern", "file", "line", "reason", "by"}`` (``file`` and ``line`` None for the flag)."""
        return {"pattern": self.pattern, "file": self.file or None, "line": self.line or None,
                "reason": self.reason or None, "by": self.by}


@dataclass(frozen=True)
class _Rules:
    """One file's patterns (or the flags'), relative to ``directory``, each with its :class:`LeftOut`."""

    directory: str
    spec: object  # pathspec.PathSpec
    entries: tuple[LeftOut, ...]


@dataclass(frozen=True)
class Exclusions:
    """Every pattern that applies to one ``-recursive`` run, in the order they are decided."""

    rules: tuple[_Rules, ...] = ()

    def left_out(self, root: Path) -> LeftOut | None:
        """Why ``root`` is left out, or None when it is not: the last pattern, across the
        files from the top down and then the flags, that matches the root's path relative to
        the pattern's directory (as a directory: ``live/prod/app/``) decides; a negation
        (``!``) that matches last keeps the root."""
        found: LeftOut | None = None
        real = os.path.abspath(root)
        for r in self.rules:
            rel = os.path.relpath(real, r.directory)
            if rel == "." or rel == ".." or rel.startswith(".." + os.sep):
                continue
            res = r.spec.check_file(rel.replace(os.sep, "/") + "/")  # type: ignore[attr-defined]
            if res.include is True:
                found = r.entries[res.index]
            elif res.include is False:
                found = None
        return found

    def __bool__(self) -> bool:
        return bool(self.rules)


def read_exclusions(base: Path, flags: Sequence[str] = ()) -> Exclusions:
    """The patterns of the ``.tofu-solve-exclude`` files from the top of ``base``'s
    repository down to ``base`` (read through :func:`tofu_solve.confined.read_text`), then
    the ``-exclude-dir`` ``flags`` (relative to ``base``).

    Raises:
        ConfigurationError: a pattern that is not a valid ``.gitignore`` pattern (its file
            and line, or the flag), a file over :data:`MAX_PATTERNS` patterns or that cannot
            be read (confinement, size, UTF-8).
    """
    load("pathspec")
    import pathspec

    start = os.path.abspath(base)
    top = boundary(start)
    dirs = [start]
    while os.path.realpath(dirs[-1]) != top and os.path.dirname(dirs[-1]) != dirs[-1]:
        dirs.append(os.path.dirname(dirs[-1]))
    if os.path.realpath(dirs[-1]) != top:  # no repository above: only the run's own directory
        dirs = [start]
    rules = []
    for d in reversed(dirs):
        path = Path(d) / EXCLUDE_FILE
        if not os.path.lexists(path):
            continue
        shown = os.path.relpath(path, start).replace(os.sep, "/")
        try:
            text = read_text(path, shown, top)
        except UnicodeDecodeError:
            raise ConfigurationError("Invalid exclude file", f"{shown} is not UTF-8 text.") from None
        rules.append(_parse(text, d, shown, pathspec))
    if flags:
        spec: list = []
        entries: list[LeftOut] = []
        for f in flags:
            try:
                spec.append(_compiled(pathspec, f))
            except ValueError as e:
                raise ConfigurationError("Invalid -exclude-dir pattern",
                                         f"-exclude-dir={one_line(f)} is not a .gitignore pattern: {e}") from None
            entries.append(LeftOut(f))
        rules.append(_Rules(start, pathspec.PathSpec(spec), tuple(entries)))
    return Exclusions(tuple(r for r in rules if r.entries))


def _compiled(pathspec, line: str):
    """One ``.gitignore`` pattern, compiled (pathspec's ``gitignore`` patterns).

    Raises:
        ValueError: not a valid pattern (pathspec's ``GitIgnorePatternError``), or a comment."""
    compiled = pathspec.PathSpec.from_lines("gitignore", [line]).patterns
    if not compiled or compiled[0].include is None:
        raise ValueError("it is a comment or names nothing")
    return compiled[0]


def _parse(text: str, directory: str, shown: str, pathspec) -> _Rules:
    """One ``.tofu-solve-exclude`` file: its patterns, each with the comment lines right above it."""
    patterns: list = []
    entries: list[LeftOut] = []
    comment: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if not line:
            comment = []
            continue
        if line.startswith("#"):
            comment.append(line[1:].strip())
            continue
        try:
            compiled = _compiled(pathspec, line)
        except ValueError as e:
            raise ConfigurationError("Invalid exclude pattern", f"{one_line(line, 200)} is not a .gitignore pattern: "
                                     f"{one_line(str(e), 200)}", SourceRange(shown, number, snippet=raw)) from None
        if len(patterns) >= MAX_PATTERNS:
            raise ConfigurationError("Too many exclude patterns", f"{shown} holds more than {MAX_PATTERNS} patterns.",
                                     SourceRange(shown, number))
        patterns.append(compiled)
        entries.append(LeftOut(line, shown, number, " ".join(c for c in comment if c)))
        comment = []
    return _Rules(directory, pathspec.PathSpec(patterns), tuple(entries))


__all__ = ["EXCLUDE_FILE", "Exclusions", "LeftOut", "read_exclusions"]
