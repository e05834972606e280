"""A lock file with Git's merge-conflict markers, read as its two sides (issue #60 §2).

Two pull requests that each move a lock (two Renovate updates merged one after the other,
the common case in a monorepo) leave ``.terraform.lock.hcl`` with conflict hunks::

    <<<<<<< HEAD
      version     = "6.5.1"
    ||||||| base            (merge.conflictStyle=diff3 or zdiff3 only)
      version     = "6.4.0"
    =======
      version     = "6.6.0"
    >>>>>>> renovate/vpc

Each side is the file with every hunk replaced by that side's lines (the common ancestor's
too, when the hunks carry it); each is read as a lock file of its own. npm resolves
``package-lock.json`` conflicts on ``npm install`` and Bundler ``Gemfile.lock`` on
``bundle install`` the same way: from the sides, by solving again. What the sides agree on
is kept; a block the sides lock differently is a *conflicted block*: at one version with
different hashes (other platforms) its hashes are the union (verified as any lock is); at
two versions, the newer side's block is where the solve starts, and the solve moves it as it
moves any lock (:mod:`tofu_solve.solver.locks`): nearest first, the older side's version
among the nearest. ``init`` then writes a lock without markers and says how each conflicted
block was resolved; ``-lockfile=readonly`` and ``check`` refuse the file, naming the blocks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from ..errors import LockFileError, SourceRange
from ..versions import apparentlymart_go_versions as gvs
from ..versions.hashicorp_go_version import GoVersion
from .entries import LockFile

_OURS = re.compile(r"^<{7}(?: .*)?$")
_BASE = re.compile(r"^\|{7}(?: .*)?$")
_SPLIT = re.compile(r"^={7}$")
_THEIRS = re.compile(r"^>{7}(?: .*)?$")


@dataclass(frozen=True)
class Sides:
    """A conflicted file's texts: ``ours`` (the ``<<<<<<<`` side, the branch merged into),
    ``theirs`` (the ``>>>>>>>`` side), ``base`` (the common ancestor, None without diff3
    hunks), and the 1-based line of each hunk's ``<<<<<<<`` marker."""

    ours: str
    theirs: str
    base: str | None
    hunks: tuple[int, ...]


def has_conflict_markers(text: str) -> bool:
    """Whether ``text`` holds a Git conflict hunk (a ``<<<<<<<`` line at the start of a line)."""
    return any(_OURS.match(line) for line in text.splitlines())


def split_sides(text: str, filename: str) -> Sides:
    """The two sides of a conflicted file (and the common ancestor's, from diff3 hunks).

    Raises:
        LockFileError: a hunk that is not closed, or markers out of order, at its line.
    """
    ours: list[str] = []
    theirs: list[str] = []
    base: list[str] = []
    hunks: list[int] = []
    has_base = False
    state = None  # None outside a hunk, else "ours", "base" or "theirs"
    opened = 0
    for n, line in enumerate(text.splitlines(keepends=True), 1):
        bare = line.rstrip("\r\n")
        if state is None and _OURS.match(bare):
            state, opened = "ours", n
            hunks.append(n)
        elif state == "ours" and _BASE.match(bare):
            state, has_base = "base", True
        elif state in ("ours", "base") and _SPLIT.match(bare):
            state = "theirs"
        elif state == "theirs" and _THEIRS.match(bare):
            state = None
        elif state is None and (_BASE.match(bare) or _SPLIT.match(bare) or _THEIRS.match(bare)):
            raise LockFileError("Merge conflict markers out of order",
                                f"A {bare[:7]} marker stands outside a conflict hunk.", SourceRange(filename, n))
        elif state is None:
            ours.append(line)
            theirs.append(line)
            base.append(line)
        else:
            {"ours": ours, "base": base, "theirs": theirs}[state].append(line)
    if state is not None:
        raise LockFileError("Unclosed merge conflict",
                            "The conflict hunk opened here is not closed by a >>>>>>> line.",
                            SourceRange(filename, opened))
    return Sides("".join(ours), "".join(theirs), "".join(base) if has_base else None, tuple(hunks))


@dataclass(frozen=True)
class ConflictedBlock:
    """A block the two sides lock differently: ``kind`` ("module" or "provider"), its
    ``name`` (call path or provider address), each side's version (None: the side has no
    such block), the common ancestor's (None: unknown or absent), and the version the
    merged lock starts the solve from (``start``, None: the block is dropped)."""

    kind: str
    name: str
    ours: str | None
    theirs: str | None
    base: str | None
    start: str | None
    how: str  # how the starting block was formed, for the change list

    @property
    def subject(self) -> str:
        return f'{self.kind} "{self.name}"'


@dataclass
class MergedLock:
    """A conflicted lock file read from its sides: ``locks``, where the solve starts (every
    block the sides agree on, and each conflicted block as :class:`ConflictedBlock` says),
    and ``conflicts``, every conflicted block, in file order of kind then name."""

    locks: LockFile
    conflicts: list[ConflictedBlock] = field(default_factory=list)
    hunks: tuple[int, ...] = ()

    @property
    def unions(self) -> frozenset[str]:
        """The blocks (call paths, provider addresses) formed from both sides' hashes at one
        version: only what the run verifies of them is kept (issue #67 §5)."""
        return frozenset(c.name for c in self.conflicts if c.ours == c.theirs and c.ours is not None)


def _newer(a: str, b: str, kind: str) -> bool:
    """Whether version text ``a`` is newer than ``b`` (module versions by hashicorp/go-version,
    provider versions by apparentlymart/go-versions); text order when one does not parse."""
    try:
        if kind == "module":
            return GoVersion.parse(a).compare(GoVersion.parse(b)) > 0
        return gvs.Version.parse(a).compare(gvs.Version.parse(b)) > 0
    except Exception:
        return a > b


def _merge_block(kind: str, name: str, ours, theirs, base) -> tuple[object | None, ConflictedBlock | None]:
    """The block the merged lock starts from for one subject, and the conflict it was, if any."""
    if ours == theirs and (ours is None or ours.hashes == theirs.hashes):
        return ours, None
    ov, tv = (ours.version if ours else None), (theirs.version if theirs else None)
    bv = base.version if base else None
    if ours is None or theirs is None:
        one = ours if ours is not None else theirs
        if base is not None and base == (theirs if ours is None else ours):
            # unchanged on one side, removed on the other: the removal is the change
            return None, ConflictedBlock(kind, name, ov, tv, bv, None, "removed on one side, unchanged on the other")
        return one, ConflictedBlock(kind, name, ov, tv, bv, one.version, "added on one side")
    if ov == tv:
        union = tuple(sorted(set(ours.hashes) | set(theirs.hashes)))
        if kind == "module" and ours.package != theirs.package:
            pick = ours if base is None or base.package != ours.package else theirs
            return replace(pick, hashes=pick.hashes), ConflictedBlock(
                kind, name, ov, tv, bv, ov, "one version from two packages: the side that changed it kept")
        merged = replace(ours, hashes=union, raw=None) if kind == "provider" else replace(ours, hashes=union)
        return merged, ConflictedBlock(kind, name, ov, tv, bv, ov, _same_version_how(ours, theirs))
    pick = ours if _newer(str(ov), str(tv), kind) else theirs
    return pick, ConflictedBlock(kind, name, ov, tv, bv, pick.version, "two versions: the solve starts from the newer")


def _same_version_how(ours, theirs) -> str:
    """How a block both sides lock at one version was merged, naming what differed (issue
    #70 §4): the hashes (their union), the constraints (the solve writes the configuration's),
    or another argument."""
    differs = []
    if set(ours.hashes) != set(theirs.hashes):
        differs.append("hashes (the union of both sides)")
    mine, other = getattr(ours, "constraints", None), getattr(theirs, "constraints", None)
    if mine != other:
        differs.append(f"constraints ({_shown(mine)} and {_shown(other)}: the configuration's are written)")
    for attr in ("source", "package"):
        if getattr(ours, attr, None) != getattr(theirs, attr, None):
            differs.append(attr)
    return "one version; the sides differ in " + (", ".join(differs) if differs else "their layout only")


def _shown(value) -> str:
    if not value:
        return "none"
    return f'"{getattr(value, "text", value)}"'


def merge_sides(text: str, filename: str, parse, invalid) -> MergedLock:
    """The lock a conflicted file stands for (see the module docstring). ``parse``:
    :func:`~.read.parse_lock_text`, ``invalid``: :class:`~.read.LockFileErrors` (passed in:
    the reader imports this module).

    Raises:
        LockFileError: the markers do not form hunks, or a side is not a valid lock file
            (its problems listed, as for any lock file).
    """
    sides = split_sides(text, filename)
    read: list[LockFile | None] = []
    for label, side in (("ours", sides.ours), ("theirs", sides.theirs), ("base", sides.base)):
        if side is None:
            read.append(None)
            continue
        locks, diags = parse(side, filename)
        errors = [d for d in diags if d.severity == "error"]
        if errors and label != "base":
            raise invalid(filename, errors)
        read.append(locks if not errors else None)
    ours, theirs, base = read
    assert ours is not None and theirs is not None  # invalid sides raised above
    merged = LockFile()
    conflicts: list[ConflictedBlock] = []
    for kind, table in (("module", "modules"), ("provider", "providers")):
        mine, other = getattr(ours, table), getattr(theirs, table)
        common = getattr(base, table) if base is not None else {}
        for name in sorted(set(mine) | set(other)):
            block, conflict = _merge_block(kind, name, mine.get(name), other.get(name), common.get(name))
            if block is not None:
                getattr(merged, table)[name] = block
            if conflict is not None:
                conflicts.append(conflict)
    return MergedLock(merged, conflicts, sides.hunks)


def conflicted_error(filename: str, merged: MergedLock, refused_by: str) -> LockFileError:
    """The error of a command that does not resolve a conflicted lock file (``refused_by``:
    ``init -lockfile=readonly``, ``check``...): the blocks in conflict and the command that
    resolves them, at the first hunk's line."""
    blocks = "; ".join(f"{c.subject}: {c.ours or 'none'} / {c.theirs or 'none'}" for c in merged.conflicts) or \
        "the sides agree on every block"
    return LockFileError(
        "Lock file has merge conflicts",
        f"{filename} holds {len(merged.hunks)} merge conflict hunk{'s' if len(merged.hunks) != 1 else ''} "
        f"({blocks}). {refused_by} does not resolve them; tofu-solve init does, by solving from both sides, "
        "and lists how it resolved each block.", SourceRange(filename, merged.hunks[0] if merged.hunks else 1))


__all__ = ["ConflictedBlock", "MergedLock", "Sides", "conflicted_error", "has_conflict_markers", "merge_sides",
           "split_sides"]

