"""Policy overrides that are committed, reviewed and expire (issue #84 §4).

Besides ``-policy-override=LABEL`` (a flag CI must repeat on every run), a repository may
commit its exceptions in **``tofu-solve-overrides.hcl``** at its top (the directory with
``.git``; outside a repository, none is read), where CODEOWNERS can require the policy
team's review of every change::

    override "eks_tested_line" {
      reason  = "eks 20 verified in staging (PR #812)"
      expires = "2027-01-31"
      roots   = ["live/prod/*"]   # optional: .gitignore patterns of root paths from the top
    }

Each block names a ``mandatory_overridable`` rule by its label (as ``-policy-override``
does), and must give a ``reason`` and an ``expires`` date (``YYYY-MM-DD``, the last day it
applies, in UTC). An override whose date has passed, or whose label names no
``mandatory_overridable`` rule of the root's policy, is an error at its line; a run that
lets a version through by one says so, naming the file, line, reason and date.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from .. import confined
from .._lazy import load
from ..errors import ConfigurationError, SourceRange

OVERRIDES_FILE = "tofu-solve-overrides.hcl"
MAX_OVERRIDES = 1000


@dataclass(frozen=True)
class CommittedOverride:
    """One ``override "LABEL"`` block: the rule's ``label``, its ``reason``, the last day it
    applies (``expires``), the ``roots`` patterns it is limited to (empty: every root), and
    ``where`` it is written (named as the root's files are)."""

    label: str
    reason: str
    expires: date
    roots: tuple[str, ...]
    where: SourceRange

    def applies_to(self, root_from_top: str) -> bool:
        """Whether the override applies to the root at ``root_from_top`` (its path from the
        repository's top, ``/``-separated; ``.`` for the top itself)."""
        if not self.roots:
            return True
        load("pathspec")
        import pathspec

        spec = pathspec.PathSpec.from_lines("gitignore", self.roots)
        return bool(spec.match_file(root_from_top.rstrip("/") + "/"))

    def as_data(self) -> dict:
        return {"label": self.label, "reason": self.reason, "expires": self.expires.isoformat(),
                "roots": list(self.roots), "file": self.where.file, "line": self.where.line}

    def cite(self) -> str:
        """``tofu-solve-overrides.hcl:3 (reason: …; expires 2027-01-31)``."""
        return f"{self.where} (reason: {self.reason}; expires {self.expires.isoformat()})"


def read_committed_overrides(root: Path, shown_as: Callable[[Path], str],
                             today: Callable[[], date] | None = None, reads=None) -> tuple[CommittedOverride, ...]:
    """The overrides of the repository that holds ``root`` that apply to it (none outside a
    repository, or without the file), each named as ``shown_as`` names the file; the file
    looked for is registered in ``reads`` (a ``ReadLog``: the warm path's stamp).

    Raises:
        ConfigurationError: the file does not read (confinement, syntax); a block without a
            label, ``reason`` or a valid ``expires``; an unsupported argument; an override
            whose date has passed ("Policy override expired"); each at its line.
    """
    top = confined.boundary(str(root))
    path = Path(top) / OVERRIDES_FILE
    if not os.path.lexists(os.path.join(top, ".git")):
        return ()
    if reads is not None:
        reads.saw(path)
    if not path.exists():
        return ()
    shown = shown_as(path)
    load("tofu_solve.config.hcl")
    from . import hcl

    body = hcl.parse(confined.read_text(path, shown, top), shown)
    for a in body.attributes:
        raise ConfigurationError("Unsupported argument", f'An argument named "{a.name}" is not expected at the top '
                                 f"of {OVERRIDES_FILE}.", SourceRange(shown, a.line))
    now = (today or (lambda: datetime.now().astimezone().date()))()
    rel = os.path.relpath(os.path.realpath(root), top).replace(os.sep, "/")
    out = []
    for b in body.blocks:
        where = SourceRange(shown, b.line, f'override "{b.labels[0]}"' if b.labels else "override")
        if b.type != "override" or len(b.labels) != 1:
            raise ConfigurationError("Unsupported block type", f'{OVERRIDES_FILE} holds only override "LABEL" '
                                     "blocks, each naming one mandatory_overridable rule.", where)
        args = {}
        for a in b.body.attributes:
            if a.name not in ("reason", "expires", "roots"):
                raise ConfigurationError("Unsupported argument", f'An argument named "{a.name}" is not expected in '
                                         "an override block (reason, expires, roots).", SourceRange(shown, a.line))
            try:
                args[a.name] = (a.expr.literal(), a.line)
            except Exception:
                raise ConfigurationError("Invalid override", f"{a.name} must be a constant.",
                                         SourceRange(shown, a.line)) from None
        reason = args.get("reason", ("", b.line))
        if not isinstance(reason[0], str) or not reason[0].strip():
            raise ConfigurationError("Invalid override", "An override needs a reason: who lifted the rule, and why.",
                                     SourceRange(shown, reason[1], where.context))
        expires_text, line = args.get("expires", (None, b.line))
        try:
            expires = date.fromisoformat(expires_text) if isinstance(expires_text, str) else None
        except ValueError:
            expires = None
        if expires is None:
            raise ConfigurationError("Invalid override", 'An override needs expires = "YYYY-MM-DD": the last day it '
                                     "applies, so that every exception ends.", SourceRange(shown, line, where.context))
        roots, roots_line = args.get("roots", ([], b.line))
        if not isinstance(roots, list) or not all(isinstance(r, str) and r for r in roots):
            raise ConfigurationError("Invalid override", "roots must be a list of root module paths or patterns, from "
                                     "the repository's top.", SourceRange(shown, roots_line, where.context))
        o = CommittedOverride(b.labels[0], reason[0].strip(), expires, tuple(roots), where)
        if not o.applies_to(rel):
            continue
        if expires < now:
            raise ConfigurationError("Policy override expired", f'The override of "{o.label}" expired on '
                                     f"{expires.isoformat()} ({o.reason}). Remove it, or renew it with a new date "
                                     "and its reviewers' approval.", SourceRange(shown, line, where.context))
        out.append(o)
        if len(out) > MAX_OVERRIDES:
            raise ConfigurationError("Too many overrides", f"{OVERRIDES_FILE} holds more than {MAX_OVERRIDES}.", where)
    return tuple(out)


__all__ = ["OVERRIDES_FILE", "CommittedOverride", "read_committed_overrides"]
