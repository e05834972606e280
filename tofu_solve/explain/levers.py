"""The constraints a user owns and can edit (levers): a module call's ``version``, a
``required_providers`` entry, a ``required_version`` or ``compatible_with`` in the root module
or a local module inside it, each with the file and line that holds its string, and what the
lock file recorded for it when the user edited it since. Everything else (constraints inside
published module versions) changes only by choosing another version of the call that carries
it; :mod:`.whatif` relaxes and rewrites levers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import TofuSolveError
from ..lockfile import LockFile
from ..solver.model import CoreRequirement, Kind, ModuleRequirement, ProviderRequirement
from ..versions.constraints import provider_constraint


@dataclass(frozen=True)
class Lever:
    """A version constraint the user owns and can edit.

    Attributes:
        kind: ``Kind.MODULE`` (a call's ``version``), ``Kind.PROVIDER`` (a
            ``required_providers`` entry) or ``Kind.OPENTOFU`` (``required_version`` /
            ``compatible_with``).
        name: the call path, the provider address, or ``"opentofu"``.
        text: the constraint exactly as written.
        file, line: where ``text`` is written (the line that holds the string), relative to
            the root module directory.
        index: position of the requirement in the root requirements.
        locked_as: when the user changed this constraint since the lock file was written,
            what the lock recorded for it (the module block's ``constraints``; of a provider,
            the block's ``constraints``, which no longer hold this one); else None.
    """

    kind: Kind
    name: str
    text: str
    file: str | None
    line: int | None
    index: int
    locked_as: str | None = None

    @property
    def at(self) -> str:
        return f"{self.file}:{self.line}" if self.file else "?"

    def short(self) -> str:
        """``eks ">= 21.0" (main.tf:17)``, ``hashicorp/aws "~> 5.0" (main.tf:5)``."""
        who = self.name.removeprefix("registry.opentofu.org/") if self.kind is Kind.PROVIDER else \
            "required_version" if self.kind is Kind.OPENTOFU else self.name
        return f'{who} "{self.text}" ({self.at})'


def _constraint_line(root: Path | None, where, text: str) -> tuple[str | None, int | None]:
    """The file and line that hold ``"text"``: ``where`` names the argument or the block
    that holds it; the string itself may be a few lines further (``aws = {`` then
    ``version = "~> 5.0"``)."""
    if where is None:
        return None, None
    file, line = where.file, where.line
    if root is None:
        return file, line
    try:
        lines = _file_in(root, file).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return file, line
    needle = f'"{text}"'
    for i in range(max(line - 1, 0), min(line + 40, len(lines))):
        if needle in lines[i]:
            return file, i + 1
    return file, line


def _file_in(root: Path, file: str) -> Path:
    """The file a citation names: relative to the root module, or (``init -recursive``) to
    the directory the user ran in, which the citation's leading directories name."""
    path = root / file
    if path.is_file():
        return path
    parts = Path(file).parts
    for k in range(len(parts) - 1, 0, -1):
        if tuple(root.parts[-k:]) == parts[:k]:
            return root.joinpath(*parts[k:])
    return path


def locked_as(lv: Lever, locks: LockFile) -> str | None:
    """What the lock file recorded for ``lv`` when the user has changed it since (see
    :class:`Lever`), else None. A module block records its call's constraint as written; a
    provider block the canonical AND of every constraint on the provider, which holds each
    of the root's own terms unless the user changed them."""
    if lv.kind is Kind.MODULE:
        lock = locks.modules.get(lv.name)
        if lock is None or not lock.constraints or lock.constraints == lv.text:
            return None
        return lock.constraints
    if lv.kind is Kind.PROVIDER:
        plock = locks.providers.get(lv.name)
        if plock is None or not plock.constraints:
            return None
        try:
            mine = set(provider_constraint(lv.text).canonical.split(", "))
            recorded = set(provider_constraint(plock.constraints).canonical.split(", "))
        except TofuSolveError:
            return None
        return None if mine <= recorded else plock.constraints
    return None


def levers_of(root_reqs: list, root: Path | None) -> list[Lever]:
    """The editable constraints among the root requirements (root module and its local
    modules), in requirement order."""
    out = []
    for i, r in enumerate(root_reqs):
        if isinstance(r, ModuleRequirement) and r.constraint is not None:
            where = r.call.version_where or r.call.where
            f, ln = _constraint_line(root, where, r.constraint.text)
            out.append(Lever(Kind.MODULE, r.call_path, r.constraint.text, f, ln, i))
        elif isinstance(r, ProviderRequirement) and r.constraint is not None:
            f, ln = _constraint_line(root, r.origin.where, r.constraint.text)
            out.append(Lever(Kind.PROVIDER, str(r.address), r.constraint.text, f, ln, i))
        elif isinstance(r, CoreRequirement):
            f, ln = _constraint_line(root, r.origin.where, r.constraint.text)
            out.append(Lever(Kind.OPENTOFU, "opentofu", r.constraint.text, f, ln, i))
    return out
