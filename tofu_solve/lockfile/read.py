"""Reading ``.terraform.lock.hcl`` as strictly as OpenTofu does (``depsfile/locks_file.go``).

Provider blocks are validated exactly as OpenTofu validates them (canonical address,
canonical version, canonical constraints, non-empty hash list); ``module`` blocks are
tofu-solve's own and are validated as such. Every problem is reported with its line; any
error means the file is not used and nothing is overwritten.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .. import confined
from .._lazy import load
from ..addrs.identifiers import valid_call_path
from ..addrs.immutable import package_problem
from ..addrs.provider import ProviderAddressError, parse_provider_source
from ..config import hcl
from ..errors import ConfigurationError, HashError, InvalidConstraint, InvalidVersion, LockFileError, SourceRange
from ..output_edge import has_control, one_line
from ..versions import apparentlymart_go_versions as gvs
from ..versions.constraints import module_constraint
from ..versions.hashicorp_go_version import GoVersion
from .entries import LockFile, ModuleLock, ProviderLock
from .filename import LOCK_FILE_NAME
from .hashes import parse_hash

if TYPE_CHECKING:
    from .merge_conflict import MergedLock


@dataclass(frozen=True)
class Diagnostic:
    """One problem found in a lock file."""

    severity: str  # "error" or "warning"
    summary: str
    detail: str
    line: int


class LockFileErrors(LockFileError):
    """Several lock-file problems at once; ``diagnostics`` has them all."""

    def __init__(self, filename: str, diagnostics: list[Diagnostic]):
        self.diagnostics = diagnostics
        first = diagnostics[0]
        more = len(diagnostics) - 1
        detail = first.detail
        if more:
            others = "; ".join(f"line {d.line}: {d.summary}" for d in diagnostics[1:])
            detail += f"\n\n{more} more problem{'s' if more > 1 else ''} in this file: {others}."
        detail += ("\n\nThe lock file was not changed. Fix or remove the entries named here, "
                   "then run tofu-solve init again.")
        super().__init__(first.summary, detail, SourceRange(filename, first.line))


def parse_lock_text(text: str, filename: str = LOCK_FILE_NAME) -> tuple[LockFile, list[Diagnostic]]:
    """Parse lock-file text. Returns the locks and every diagnostic (errors and warnings);
    callers must not use the locks when any diagnostic is an error.

    Raises:
        LockFileError: the text is not valid HCL (with the line).
    """
    # every block is read; those in tofu's own layout without a parse tree (a large lock file costs a scan)
    body = hcl.parse_blocks(text, filename, _every_block, LockFileError)
    hcl.force(body)  # every argument of every block: a syntax error anywhere is this file's error
    diags: list[Diagnostic] = []
    locks = LockFile()

    def err(summary: str, detail: str, line: int):
        diags.append(Diagnostic("error", summary, detail, line))

    for attr in body.attributes:
        err("Unsupported argument", f'An argument named "{attr.name}" is not expected here.', attr.line)
    for block in body.blocks:
        if block.type == "provider":
            _provider_block(block, text, locks, err)
        elif block.type == "module":
            _module_block(block, locks, err)
        else:
            err("Unsupported block type", f'Blocks of type "{block.type}" are not expected here.', block.line)
    return locks, diags


def _every_block(block, text: str) -> bool:
    return True


def _only(block, allowed: set[str], where: str, err) -> bool:
    """Whether ``block`` holds only arguments named in ``allowed`` and no nested block; else
    the first offender is reported through ``err`` ("not expected " + ``where``)."""
    for a in block.body.attributes:
        if a.name not in allowed:
            err("Unsupported argument", f'An argument named "{a.name}" is not expected {where}.', a.line)
            return False
    for b in block.body.blocks:
        err("Unsupported block type", f'Blocks of type "{b.type}" are not expected here.', b.line)
        return False
    return True


def _string_attr(block: hcl.Block, name: str, err) -> tuple[str | None, int]:
    a = block.body.attribute(name)
    if a is None:
        return None, block.line
    try:
        v = a.expr.literal()
    except hcl.NotLiteral:
        err("Invalid expression", f"The {name} argument must be a literal string.", a.line)
        return None, a.line
    if v is None:
        return None, a.line
    if not isinstance(v, str):
        err(f"Invalid {name}", f"The {name} argument must be a string.", a.line)
        return None, a.line
    return v, a.line


CONFLICT_MARK = "<" * 7
"""What every Git conflict hunk's first line starts with (:func:`.merge_conflict.has_conflict_markers`
decides; a text without it has no hunk)."""
_HASH = re.compile(r"[a-z0-9]+:[A-Za-z0-9+/=_.\-]{1,512}")
"""What a recorded hash may be: ``h1:`` base64, ``zh:`` hex, or another scheme's plain value
(issue #67 §1: a lock value is printed by ``-lockfile=readonly`` and ``check``)."""


def _is_version(text: str) -> bool:
    """A module lock's ``version``: a registry version, or the version tag of a git or OCI
    package (``v1.2.3`` as well), as tofu-solve selects them."""
    try:
        GoVersion.parse(text.removeprefix("v"))
    except InvalidVersion:
        return False
    return not has_control(text)


def _hashes_attr(block: hcl.Block, what: str, err) -> tuple[str, ...] | None:
    a = block.body.attribute("hashes")
    if a is None:
        return ()
    try:
        v = a.expr.literal()
    except hcl.NotLiteral:
        err(f"Invalid {what} hash set", "The hashes argument must be a list of literal strings.", a.line)
        return None
    if not isinstance(v, list) or not all(isinstance(h, str) for h in v):
        err(f"Invalid {what} hash set", "The hashes argument must be a list of strings.", a.line)
        return None
    if not v:
        err(f"Invalid {what} hash set", "The hashes argument must not be an empty list.", a.line)
        return None
    for h in v:
        try:
            parse_hash(h)
            if not _HASH.fullmatch(h):  # OpenTofu keeps any scheme:value; a value is never text to show
                raise HashError("Invalid hash string", "a hash is a scheme and a value of letters, digits and "
                                "+/=_.- only")
        except HashError as e:
            err(f"Invalid {what} hash string", f"Cannot interpret {one_line(repr(h), 200)} as a hash: {e.detail}.",
                a.line)
            return None
    return tuple(sorted(set(v)))


def _provider_block(block: hcl.Block, text: str, locks: LockFile, err) -> None:
    if len(block.labels) != 1:
        err("Invalid provider block", "A provider lock block needs exactly one label: the provider source address.",
            block.line)
        return
    label = block.labels[0]
    try:
        addr = parse_provider_source(label)
    except ProviderAddressError as e:
        err("Invalid provider source address", f"Cannot use {label!r} to specify a provider: {e.detail}", block.line)
        return
    if addr.is_legacy or addr.is_builtin:
        what = "legacy" if addr.is_legacy else "built-in"
        err("Invalid provider source address", f"Cannot lock the {what} provider {label!r}.", block.line)
        return
    if str(addr) != label:
        err("Non-normalized provider source address",
            f'The provider source address for a provider lock must be a normalized, fully-qualified '
            f'address. Write "{addr}" instead of "{label}".', block.line)
        return
    if str(addr) in locks.providers:
        err("Duplicate provider lock", f'This lock file already declared a lock for provider {addr}.', block.line)
        return
    if not _only(block, {"version", "constraints", "hashes"}, "here", err):
        return
    version, vline = _string_attr(block, "version", err)
    if version is None:
        if block.body.attribute("version") is None or _is_null(block, "version"):
            err("Missing required argument", 'The argument "version" is required, but no definition was found.',
                vline)
        return
    try:
        v = gvs.Version.parse(version)
        if str(v) != version:
            raise InvalidVersion("Invalid version", f"must be written in normalized form {str(v)!r}")
    except InvalidVersion as e:
        err("Invalid provider version number", f"The selected version number for provider {addr} is invalid: "
            f"{e.detail}.", vline)
        return
    constraints, cline = _string_attr(block, "constraints", err)
    canonical = ""
    if constraints is not None:
        try:
            canonical = gvs.canonical_string(gvs.parse_ruby_style_multi(constraints))
        except InvalidConstraint as e:
            err("Invalid provider version constraints",
                f"The recorded version constraints for provider {addr} are invalid: {e.detail}.", cline)
            return
        if canonical != constraints:
            err("Invalid provider version constraints",
                f"The recorded version constraints for provider {addr} must be written in normalized form: "
                f'"{canonical}".', cline)
            return
    hashes = _hashes_attr(block, "provider", err)
    if hashes is None:
        return
    locks.providers[str(addr)] = ProviderLock(addr, version, canonical, hashes, text[block.start:block.end])


def _is_null(block: hcl.Block, name: str) -> bool:
    a = block.body.attribute(name)
    try:
        return a is not None and a.expr.literal() is None
    except hcl.NotLiteral:
        return False


def _module_block(block: hcl.Block, locks: LockFile, err) -> None:
    if len(block.labels) != 1 or not valid_call_path(block.labels[0]):
        err("Invalid module lock address",
            "A module lock block needs one label: the module call path, such as \"vpc\" or \"vpc.nested\".",
            block.line)
        return
    path = block.labels[0]
    if path in locks.modules:
        err("Duplicate module lock", f'This lock file already declared a lock for module "{path}".', block.line)
        return
    if not _only(block, {"version", "source", "constraints", "hashes", "package", "floating"}, "in a module lock",
                 err):
        return
    version, vline = _string_attr(block, "version", err)
    source, sline = _string_attr(block, "source", err)
    # "version" is absent for packages that have none (an archive URL without a version);
    # when present it must not be empty.
    if version == "":
        err("Missing required argument", f'The module lock for "{path}" needs a non-empty "version".', vline)
        return
    if not source:
        err("Missing required argument", f'The module lock for "{path}" needs a non-empty "source".', sline)
        return
    if version is not None and not _is_version(version):
        err("Invalid module version", f'The version recorded for module "{path}" is not a version number or a '
            f"version tag: {one_line(version, 80)}.", vline)
        return
    if has_control(source):
        err("Invalid module source", f'The source recorded for module "{path}" holds control characters: '
            f"{one_line(source, 200)}.", sline)
        return
    constraints, cline = _string_attr(block, "constraints", err)
    if constraints:
        try:
            module_constraint(constraints)
        except InvalidConstraint as e:
            err("Invalid module version constraints", f'The recorded version constraints for module "{path}" '
                f"are invalid: {e.detail}", cline)
            return
    hashes = _hashes_attr(block, "module", err)
    if hashes is None:
        return
    package, pline = _string_attr(block, "package", err)
    if package is not None:
        problem = package_problem(package)
        if problem:
            err("Invalid module package", f'The package recorded for module "{path}" is not an immutable package '
                f"address: {problem}.", pline)
            return
    floating = False
    fa = block.body.attribute("floating")
    if fa is not None:
        try:
            written = fa.expr.literal()
        except hcl.NotLiteral:
            written = None
        if not isinstance(written, bool):
            err("Invalid floating", "The floating argument must be true or false.", fa.line)
            return
        floating = written
        if floating and package:
            err("Invalid module lock", f'The module lock for "{path}" records a package and floating = true; a '
                "package is either pinned or floating.", fa.line)
            return
    locks.modules[path] = ModuleLock(path, version or "", source, constraints or "", hashes, package or "", floating,
                                     line=block.line)


def _lock_text(path: str | os.PathLike, missing_ok: bool) -> str | None:
    p = Path(path)
    if not p.exists() and missing_ok:
        return None
    try:
        if p.is_dir():  # OpenTofu's words for it (depsfile's TestLoadLocksFromFile "directory" case)
            raise IsADirectoryError(p)
        return confined.read_text(p, p.name)  # a link out of the repository is refused (issue #67 §3)
    except ConfigurationError as e:
        raise LockFileError(e.summary, e.detail) from None
    except (OSError, UnicodeDecodeError):
        raise LockFileError("Failed to read file",
                            f'The configuration file "{os.fspath(path)}" could not be read.') from None


def read_lock_file(path: str | os.PathLike, missing_ok: bool = True, refused_by: str = "This command") -> LockFile:
    """Read and validate a lock file.

    Returns an empty :class:`LockFile` when the file does not exist and ``missing_ok``.

    Raises:
        LockFileError: unreadable ("Failed to read file"), invalid HCL, or any invalid
            entry (every problem listed, the first with its line); Git merge-conflict
            markers ("Lock file has merge conflicts", naming the blocks in conflict and
            ``tofu-solve init``, which resolves them: :mod:`.merge_conflict`; ``refused_by``
            names the command that refuses).
    """
    text = _lock_text(path, missing_ok)
    if text is None:
        return LockFile()
    if CONFLICT_MARK in text:  # the conflict reader is imported only for a file that may need it
        load("tofu_solve.lockfile.merge_conflict")
        from .merge_conflict import conflicted_error, has_conflict_markers, merge_sides

        if has_conflict_markers(text):
            raise conflicted_error(os.fspath(path), merge_sides(text, os.fspath(path), parse_lock_text,
                                                                LockFileErrors), refused_by)
    locks, diags = parse_lock_text(text, os.fspath(path))
    errors = [d for d in diags if d.severity == "error"]
    if errors:
        raise LockFileErrors(os.fspath(path), errors)
    return locks


def read_conflicted_lock_file(path: str | os.PathLike) -> MergedLock | None:
    """The lock a lock file with Git merge-conflict markers stands for, read from its sides
    (:func:`.merge_conflict.merge_sides`); None when the file has no markers (or does not
    exist): :func:`read_lock_file` reads it then.

    Raises:
        LockFileError: unreadable, or a side that is not a valid lock file.
    """
    load("tofu_solve.lockfile.merge_conflict")
    from .merge_conflict import has_conflict_markers, merge_sides

    text = _lock_text(path, True)
    if text is None or not has_conflict_markers(text):
        return None
    return merge_sides(text, os.fspath(path), parse_lock_text, LockFileErrors)
