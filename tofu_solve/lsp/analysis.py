"""A root module read and solved as an editor shows it (issue #61 §2-4): findings at file and
line, fixes that were verified by solving, hovers and lenses.

Nothing here is a second implementation: the root is read by the CLI's loader (from the
buffers' unsaved text through :class:`~tofu_solve.config.files.OverlayDir`), solved by
:func:`tofu_solve.explain.solve` (offline first: from the lock and the cache; the network
only when something is not there), explained by the explanation the CLI prints (its
clashing constraints and its suggestions, each checked by solving again), held back by the
one held-back analysis ``why`` uses, checked by ``check``. Every position is a file relative
to the root and a 1-based line, as the CLI cites them; :mod:`.server` maps them to the
protocol's ranges.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._lazy import load
from ..addrs.module_source import RegistrySource
from ..config.files import OverlayDir
from ..config.policy import load_policy
from ..config.tree import ModuleTree, read_module_tree
from ..config.variables import collect_input_values
from ..errors import OfflineError, ResolutionError, SourceRange, TofuSolveError
from ..explain import solve
from ..explain.holdback import module_hold_backs, said, said_of
from ..explain.typos import unknown_arguments
from ..explain.whatif import Edit
from ..lockfile import LOCK_FILE_NAME, LockFile, LockFileErrors, parse_lock_text, read_lock_file
from ..lockfile.merge_conflict import conflicted_error, has_conflict_markers, merge_sides
from ..output_edge import one_line
from ..settings import Settings
from ..solver.changes import lock_change_reasons
from ..solver.context import SolveOptions
from ..solver.factory import display_package
from ..solver.resolve import Resolution
from ..solver.wiring import build_context
from ..terragrunt import CONFIG_FILE as UNIT_FILE
from ..versions.hashicorp_go_version import GoVersion
from ..versions.target import Client, target_version

log = logging.getLogger(__name__)

#: Commands the findings and lenses offer (:mod:`.server` runs them).
INIT_COMMAND = "tofu-solve.init"
UPGRADE_COMMAND = "tofu-solve.upgrade"


@dataclass(frozen=True)
class Related:
    """Another place a finding involves: file (relative to the root), 1-based line, why."""

    file: str
    line: int
    message: str


@dataclass(frozen=True)
class Finding:
    """A diagnostic: ``severity`` ``error``, ``warning``, ``information`` or ``hint``;
    ``code`` what kind (``conflict``, ``lock``, ``check``, ``policy``, ``held-back``,
    ``fenced-off``, ``typo``, ``configuration``); ``needle``: the text on the line the range
    covers (a constraint string), None for the whole line; ``command``: a command that
    resolves it (name, arguments), offered as a code action."""

    file: str
    line: int
    severity: str
    message: str
    code: str
    related: tuple[Related, ...] = ()
    needle: str | None = None
    command: tuple[str, str, tuple[str, ...]] | None = None  # (title, command, arguments)


@dataclass(frozen=True)
class Fix:
    """A quick fix the explanation verified by solving with it (issue #61 §3): a short
    ``title`` (``Change "~> 5.0" to "~> 6.0" (versions.tf:6)``), its ``edits``, and the
    conflict's lines it is offered from (``at``: every clashing line, so that each line of a
    conflict offers the same fixes in the same order, issue #70 §3)."""

    title: str
    edits: tuple[Edit, ...]
    at: tuple[tuple[str, int], ...] = ()

    def offered(self, file: str, first: int, last: int) -> bool:
        """Whether the fix is offered for lines ``first``..``last`` of ``file``."""
        return any(f == file and first <= line <= last for f, line in
                   [*((e.file, e.line) for e in self.edits), *self.at])


def fix_title(edits: tuple[Edit, ...]) -> str:
    """A fix's title: each edit as ``Change "OLD" to "NEW" (FILE:LINE)``, joined by ``; ``."""
    return "; ".join(f'Change "{e.old}" to "{e.new}" ({e.file}:{e.line})' for e in edits)


@dataclass(frozen=True)
class Lens:
    """A code lens above ``line`` of ``file``."""

    file: str
    line: int
    title: str


@dataclass(frozen=True)
class Hover:
    """What hovering lines ``first``..``last`` of ``file`` shows (Markdown)."""

    file: str
    first: int
    last: int
    markdown: str


@dataclass
class RootReport:
    """What the editor shows for one root module. ``files``: every file the report speaks
    of (those with none of its findings get an empty list, clearing old ones); ``solved``:
    the solve succeeded (hovers and lenses are from it); ``read_error``: the root could not
    be read (a syntax error: the other files keep the last good report's findings)."""

    root: Path
    findings: list[Finding] = field(default_factory=list)
    fixes: list[Fix] = field(default_factory=list)
    lenses: list[Lens] = field(default_factory=list)
    hovers: list[Hover] = field(default_factory=list)
    files: set[str] = field(default_factory=set)
    solved: bool = False
    read_error: bool = False
    # the version of each open document the report was computed from (relative file -> the
    # client's version): diagnostics carry it, and a fix is offered only while it holds
    versions: dict[str, int] = field(default_factory=dict)


def find_root(path: Path) -> Path:
    """The root module a file belongs to: the nearest directory from the file's own upward
    that holds a lock file or a ``.terraform`` directory (where ``init`` runs), else the
    file's own directory."""
    start = path.parent
    for d in (start, *start.parents):
        if (d / LOCK_FILE_NAME).is_file() or (d / ".terraform").is_dir():
            return d
    return start


def _finding_at(e: TofuSolveError, severity: str, code: str, root: Path) -> Finding:
    where = e.where if e.where is not None else SourceRange("main.tf", 1)
    return Finding(_rel(where.file, root), max(1, where.line or 1), severity, f"{e.summary}: {e.detail}", code)


def _rel(file: str, root: Path) -> str:
    p = Path(file)
    if p.is_absolute():
        try:
            return str(p.relative_to(root))
        except ValueError:
            return str(p)
    return file


class SolveTimedOut(TofuSolveError):
    """A solve ran past its time budget (:func:`analyse`'s ``deadline``) and was stopped."""


def analyse(root: Path, texts: Mapping[Path, str], settings: Settings, client: Client | None = None,
            network: bool = False, deadline: float | None = None) -> RootReport:
    """Read and solve the root module at ``root`` as the editor shows it (``texts``: the
    open buffers' text by absolute path), and say what the editor should show. Never
    raises for what the configuration, the lock or the network does: that is a finding.

    ``network``: whether the solve may ask a registry, git host or store what the lock and
    the cache do not hold (issue #67 §6: opening a repository must not make the editor
    fetch what the repository names; off until the user turns it on or runs an action).
    ``deadline``: a ``time.monotonic()`` past which the solve stops at its next round and
    the report says so (each solve has a time budget, so other roots keep theirs)."""
    report = RootReport(root)
    target = target_version(None, root, client=client)
    try:
        tree, target = _root_tree(root, texts, settings, target)
    except TofuSolveError as e:
        if e.summary == "Unit left out":  # as init -recursive says it, at the line that reads what Terragrunt knows
            report.findings.append(_finding_at(e, "warning", "unit left out", root))
            return _done(report)
        report.read_error = True
        report.findings.append(_finding_at(e, "error", "configuration", root))
        return _done(report)
    try:
        locks = _locks(root, texts)
    except TofuSolveError as e:
        report.findings.append(_finding_at(e, "error", "lock", root))
        return _done(report)
    try:
        policy = load_policy(root, None, settings.environ, target.product.registry_host)
    except TofuSolveError as e:
        report.findings.append(_finding_at(e, "error", "policy", root))
        return _done(report)
    def budget(_event) -> None:
        if deadline is not None and time.monotonic() > deadline:
            raise SolveTimedOut("Solve stopped", "The solve of this root module ran past the language server's time "
                                "budget and was stopped; tofu-solve init in a terminal solves it in full.")
    for offline in ((True, False) if network else (True,)):  # the lock and the cache first
        wired = build_context(SolveOptions(target, offline=offline, policy=policy), locks, settings, budget)
        ctx = wired.context
        try:
            res = solve(tree, ctx, root)
            _solved(report, res, ctx, locks, tree)
            break
        except OfflineError as e:
            if network:
                continue
            where = e.where if e.where is not None else SourceRange("main.tf", 1)
            report.findings.append(Finding(
                _rel(where.file, root), max(1, where.line or 1), "information",
                "Not solved: what the lock file and the cache hold is not enough, and the language server asks no "
                "registry, git host or store until you run tofu-solve init (its code action) or turn its network on "
                "for this workspace (the \"network\" setting).", "offline", (), None,
                ("Run tofu-solve init", INIT_COMMAND, (str(root),))))
            break
        except SolveTimedOut as e:
            report.findings.append(_finding_at(e, "information", "time budget", root))
            break
        except ResolutionError as e:
            _conflict(report, e, locks)
            break
        except TofuSolveError as e:
            report.findings.append(_finding_at(e, "error", "configuration", root))
            _without_the_call(report, tree, e, locks, lambda t, offline=offline: _conflict_of(
                t, SolveOptions(target, offline=offline, policy=policy), locks, settings, budget, root))
            break
        finally:
            ctx.close()
    _check(report, settings, target, policy, locks)
    return _done(report)


def _root_tree(root: Path, texts: Mapping[Path, str], settings: Settings, target) -> tuple[ModuleTree, Any]:
    """The tree ``init`` and ``check`` solve for ``root`` as the editor shows it, and the
    target: a Terragrunt unit's (its ``terragrunt.hcl`` and every file it includes or reads,
    from the open buffers where there are some; its ``terraform_binary`` may name the
    product: :func:`tofu_solve.terragrunt.unit.unit_and_target`), else the root module's.

    Raises:
        TofuSolveError: the configuration does not read (file and line); ``UnitLeftOut``
            ("Unit left out"): the unit's source or range needs Terragrunt's runtime.
    """
    if (root / UNIT_FILE).is_file() or root / UNIT_FILE in texts:
        load("tofu_solve.terragrunt.unit")
        from ..terragrunt.unit import unit_and_target, unit_tree

        unit, target = unit_and_target(root, "", settings.environ, target, texts=texts)
        if unit is not None:
            return unit_tree(unit, target.product), target
    return read_module_tree(OverlayDir(root, texts), confine=False,
                            inputs=collect_input_values(root, settings.environ, ()), product=target.product), target


def units_reading(path: Path, workspace: Path, settings: Settings, texts: Mapping[Path, str]) -> list[Path]:
    """The Terragrunt units under ``workspace`` that read the file at ``path`` (an include,
    ``root.hcl``, a file ``read_terragrunt_config`` reads), as each is read now (the open
    buffers included); a unit that does not read (left out, broken) counts for the files it
    read before it stopped. Raises nothing."""
    load("tofu_solve.command.monorepo")
    from ..command.monorepo import walk_roots
    load("tofu_solve.terragrunt.unit")
    from ..terragrunt.unit import read_unit

    want = Path(os.path.abspath(path))
    out = []
    try:
        roots = walk_roots(workspace, settings)
    except TofuSolveError:
        return []
    for root in roots:
        if not (root / UNIT_FILE).is_file():
            continue
        seen: list[Path] = []
        try:
            read_unit(root, settings.environ, root, reads=seen.append, texts=texts)
        except TofuSolveError:
            pass
        if any(Path(os.path.abspath(p)) == want for p in seen):
            out.append(root)
    return out


def _call_at(tree: ModuleTree, where: SourceRange | None) -> Any:
    """The remote call of ``tree`` whose source or version line ``where`` is, or None."""
    if where is None:
        return None
    for rc in tree.remote_calls:
        places = [rc.call.version_where, rc.call.source_where, rc.call.where]
        if any(p is not None and p.file == where.file and p.line == where.line for p in places):
            return rc
    return None


def _without_the_call(report: RootReport, tree: ModuleTree, e: TofuSolveError, locks: LockFile, solve_rest) -> None:
    """A call that alone stops the solve (a constraint no version meets, a source that
    cannot be had) must not hide a conflict among the others (issue #70 §3): the root is
    solved again without it, up to three calls, and a conflict found then is shown too."""
    for _ in range(3):
        rc = _call_at(tree, e.where)
        if rc is None:
            return
        tree = dataclasses.replace(tree, remote_calls=tuple(r for r in tree.remote_calls if r is not rc))
        try:
            solve_rest(tree)
            return
        except ResolutionError as conflict:
            _conflict(report, conflict, locks)
            return
        except TofuSolveError as again:
            e = again
            report.findings.append(_finding_at(again, "error", "configuration", report.root))


def _conflict_of(tree: ModuleTree, options: SolveOptions, locks: LockFile, settings: Settings, budget,
                 root: Path) -> None:
    """Solve ``tree`` once with ``options`` (those of the solve that failed), for what it
    raises only."""
    wired = build_context(options, locks, settings, budget)
    try:
        solve(tree, wired.context, root)
    finally:
        wired.context.close()


def _locks(root: Path, texts: Mapping[Path, str]) -> LockFile:
    """The lock file as the editor shows it. Raises LockFileError (conflict markers
    included: ``init`` resolves those)."""
    text = texts.get(root / LOCK_FILE_NAME)
    if text is None:
        return read_lock_file(root / LOCK_FILE_NAME, refused_by="The language server")
    if has_conflict_markers(text):  # init resolves those; the server says so, as check does
        raise conflicted_error(LOCK_FILE_NAME, merge_sides(text, LOCK_FILE_NAME, parse_lock_text, LockFileErrors),
                               "The language server")
    locks, diags = parse_lock_text(text, LOCK_FILE_NAME)
    errors = [d for d in diags if d.severity == "error"]
    if errors:
        raise LockFileErrors(LOCK_FILE_NAME, errors)
    return locks


def _done(report: RootReport) -> RootReport:
    report.files |= {f.file for f in report.findings} | {e.file for fix in report.fixes for e in fix.edits}
    return report


def _root_calls(tree: ModuleTree):
    return [rc for rc in tree.remote_calls if not rc.local_path]


def _solved(report: RootReport, res: Resolution, ctx, locks: LockFile, tree: ModuleTree) -> None:
    """Findings, hovers and lenses of a solve that succeeded."""
    report.solved = True
    root = report.root
    reasons = lock_change_reasons(res, ctx, locks)
    selected_trees = {}
    for rc in _root_calls(res.root_tree):
        path = rc.call.name
        cand = res.modules.get(path)
        if cand is None:
            continue
        try:
            t = ctx.known_tree(cand)
        except TofuSolveError:
            t = None
        if isinstance(t, ModuleTree):
            selected_trees[path] = (display_package(cand.source), cand.version_text, t)
    for u in unknown_arguments(res.root_tree, selected_trees):
        report.findings.append(Finding(_rel(u.where.file, root), u.where.line, "warning",
                                       f'"{u.name}": did you mean "{u.suggestion}"? {u.module} {u.version} does not '
                                       f'declare "{u.name}"; tofu plan would stop at it.', "typo", needle=u.name))
    for rc in _root_calls(res.root_tree):
        _call(report, res, ctx, locks, rc.call, reasons)
    for _, p in res.root_tree.providers:
        addr = str(p.address)
        why = reasons.get(addr)
        old = locks.providers.get(addr)
        new = res.providers.get(addr)
        if why and old is not None and new is not None and old.version != str(new.version):
            report.findings.append(Finding(
                _rel(p.where.file, root), p.where.line, "warning",
                f"The lock holds {p.address.for_display} {old.version}; tofu-solve init would move it to "
                f"{new.version}: {why}.", "lock", needle=p.constraint.text if p.constraint else None,
                command=("Run tofu-solve init", INIT_COMMAND, (str(root),))))
    for f in res.fenced_off:
        call = res.module_requirements.get(f.call)
        if call is None or call.origin.call_path:
            continue
        r = f.requirement
        report.findings.append(Finding(
            _rel(call.call.where.file, root), call.call.where.line, "warning",
            f'{f.call} is at {f.selected}, but {f.newer} of the same line requires {r.address.for_display} '
            f'"{r.constraint.text if r.constraint else ""}" ({r.where}), which excludes the selected {f.chosen}.',
            "fenced-off"))


def _call(report: RootReport, res: Resolution, ctx, locks: LockFile, call, reasons: Mapping[str, str]) -> None:
    """One root module call: its lens, its hover, a lock that would move, a held-back hint."""
    root = report.root
    path = call.name
    cand = res.modules.get(path)
    req = res.module_requirements.get(path)
    if cand is None or req is None:
        return
    at = call.version_where or call.where
    file = _rel(at.file, root)
    lock = locks.modules.get(path)
    needle = call.version.text if call.version is not None else None
    why = reasons.get(path)
    if lock is not None and lock.version != cand.version_text and why:
        report.findings.append(Finding(file, at.line, "warning",
                                       f"The lock holds {path} at {lock.version}; tofu-solve init would move it to "
                                       f"{cand.version_text}: {why}.", "lock",
                                       (Related(LOCK_FILE_NAME, lock.line, f'module "{path}" is locked here'),)
                                       if lock.line else (), needle,
                                       ("Run tofu-solve init", INIT_COMMAND, (str(root),))))
    held = module_hold_backs(res, ctx, path) if req.versioned else []
    listed = ctx.known_candidates(req) or []
    allowed_newer = [c.version_text for c in listed if c.version is not None and cand.version is not None
                     and c.version.compare(cand.version) > 0]
    outside = _newer_outside(ctx, req, listed)
    state = "locked" if lock is not None and lock.version == cand.version_text else "selected"
    report.lenses.append(Lens(_rel(call.where.file, root), call.where.line,
                              f"{cand.version_text} {state} · {len(allowed_newer)} newer allowed · "
                              f"{outside} newer outside the constraint"))
    first = next((h for h in held if h.kind not in ("objective", "unknown")), None)
    first_said = said_of(held, first.version) if first is not None else None
    if first is not None and first_said is not None:
        constraint = f'"{call.version.text}"' if call.version is not None else "the call"
        report.findings.append(Finding(
            file, at.line, "information" if first.kind in ("policy", "provider", "opentofu", "module") else "hint",
            f"{cand.version_text} {state}; {first.version} allowed by {constraint} is held back: "
            f"{first_said.sentence() or 'held by the lock'}", "held-back",
            (Related(_rel(first.file, root), first.line, first.reason),) if first.file and first.line else (),
            needle, ((f"Upgrade {path} to {first.version}" if first.command else  # proven to land it
                      f"Upgrade {path} (tofu-solve init -upgrade={path})"), UPGRADE_COMMAND, (str(root), path))
            if first.kind == "lock" else None))
    # every piece of outside text (a registry's, a policy's, a lock's) is Markdown-escaped: no
    # link, image or command: URI from outside reaches the editor (issue #67 §6)
    lines = [f"**module \"{markdown(path)}\"**: {markdown(display_package(cand.source))} "
             f"**{markdown(cand.version_text)}** ({state})"]
    if lock is not None and lock.package:
        lines.append(f"- package: {markdown(lock.package)}")
    if why:
        lines.append(f"- the lock would move: {markdown(why)}")
    for one in said(held)[:8]:  # a reason shared by many versions said once (issue #83 §3)
        lines.append(f"- {markdown(one.versions_words())}: {one.kind}: {markdown(one.reason or 'held by the lock')}")
    page = _versions_page(cand.source)
    if page:
        lines.append(f"- versions: {page}")
    last = max([call.where.line, *(w.line for _, w in call.arguments)])
    report.hovers.append(Hover(_rel(call.where.file, root), call.where.line, last + 1, "\n".join(lines)))


_MARKDOWN = re.compile(r"([\\`*_{}\[\]()!|<>~:])")


def markdown(text: object) -> str:
    """Outside text as Markdown that shows it as written and does nothing else: on one line
    (:func:`tofu_solve.output_edge.one_line`), every character Markdown or HTML could read
    escaped with a backslash (so ``[x](command:...)``, ``![](http://...)`` and ``<img>`` are
    shown as text, and no autolink forms)."""
    return _MARKDOWN.sub(r"\\\1", one_line(text, 500))


def _newer_outside(ctx, req, allowed) -> int:
    """How many released versions are newer than the newest the constraint allows (from
    the listing already read)."""
    try:
        every = ctx.available(req) if ctx.listed(req) is not None else []
    except TofuSolveError:
        return 0
    versions = [c.version for c in allowed if c.version is not None]
    if not versions:
        return 0
    newest = max(versions, key=functools.cmp_to_key(GoVersion.compare))
    return sum(1 for a in every if a.version is not None and not a.version.prerelease
               and a.version.compare(newest) > 0)


def _versions_page(source) -> str | None:
    if not isinstance(source, RegistrySource):
        return None
    p = source.package
    if p.host == "registry.opentofu.org":
        return f"https://search.opentofu.org/module/{p.namespace}/{p.name}/{p.system}"
    if p.host == "registry.terraform.io":
        return f"https://registry.terraform.io/modules/{p.namespace}/{p.name}/{p.system}"
    return None


def _conflict(report: RootReport, e: ResolutionError, locks: LockFile) -> None:
    """An Error on each clashing constraint, each pointing at the others, with the
    explanation's words; each suggestion the explanation verified as a quick fix; the lock
    lines that hold the clash when the lock is what makes it impossible."""
    data = e.explanation or {}
    first_line = e.detail.split("\n\n", 1)[0].strip()
    for clash in data.get("clashes", []):
        places = [(c["file"], c["line"], c) for c in clash if c.get("file") and c.get("line")]
        for file, line, c in places:
            others = tuple(Related(f, ln, f'"{o["constraint"]}" ({o["name"]})') for f, ln, o in places if o is not c)
            report.findings.append(Finding(
                file, line, "error", f'{e.summary}: "{c["constraint"]}" ({c["name"]}) cannot hold with ' +
                "; ".join(f'"{o["constraint"]}" ({o["name"]}, {f}:{ln})' for f, ln, o in places if o is not c) +
                f". {first_line}", "conflict", others, c["constraint"]))
    if not data.get("clashes") and e.where is not None:
        report.findings.append(Finding(_rel(e.where.file, report.root), e.where.line or 1, "error",
                                       f"{e.summary}: {e.detail}", "conflict"))
    clash_lines = tuple(dict.fromkeys((c["file"], c["line"]) for clash in data.get("clashes", []) for c in clash
                                      if c.get("file") and c.get("line")))
    for sg in data.get("suggestions", []):
        # init's verified suggestions, in init's order; one whose selection is fenced off or
        # otherwise caveated is not a fix (issue #70 §3)
        if sg.get("edits") and not sg.get("caveats"):
            edits = tuple(Edit.from_data(x) for x in sg["edits"])
            report.fixes.append(Fix(fix_title(edits), edits, clash_lines))
        for name in sg.get("upgrade", []):
            lock = locks.modules.get(name)
            if lock is not None and lock.line:
                report.findings.append(Finding(LOCK_FILE_NAME, lock.line, "error",
                                               f'The lock holds "{name}" at {lock.version}, which makes this '
                                               f"impossible: {sg['summary']}", "conflict",
                                               command=(f"Run tofu-solve init -upgrade={name}", UPGRADE_COMMAND,
                                                        (str(report.root), name))))


def _check(report: RootReport, settings: Settings, target, policy, locks: LockFile) -> None:
    """What ``check`` reports of the working directory on disk (a lock that no longer
    matches, an installed copy that is not the locked one, a denied lock), as warnings at
    the lines it names, with "Run tofu-solve init"."""
    load("tofu_solve.command.check")
    from ..command.check import check

    if not (report.root / LOCK_FILE_NAME).is_file():
        return
    try:
        differences = check(report.root, settings, target=target, policy=policy)
    except TofuSolveError as e:
        log.debug("check did not run: %s", e.summary)
        return
    init = ("Run tofu-solve init", INIT_COMMAND, (str(report.root),))
    # one diagnostic per fact and line (issue #70 §3): a line the solve already says the lock
    # moves on says it once; the words are check's own ("module "vpc": its version ...")
    taken = {(f.file, f.line) for f in report.findings if f.code in ("lock", "conflict")}
    for d in differences:
        path = d.subject.removeprefix('module "').removesuffix('"') if d.subject.startswith('module "') else None
        lock = locks.modules.get(path) if path is not None else None
        if d.kind == "policy" and lock is not None and lock.line:  # at the lock that holds it, the rule beside
            related = (Related(_rel(d.where.file, report.root), d.where.line or 1, "the rule"),) if d.where else ()
            report.findings.append(Finding(LOCK_FILE_NAME, lock.line, "error", f"{d.subject}: {d.detail}", "policy",
                                           related, command=init))
            continue
        if d.where is None:
            continue
        file, line = _rel(d.where.file, report.root), d.where.line or 1
        if d.kind != "policy" and (file, line) in taken:
            continue
        taken.add((file, line))
        report.findings.append(Finding(file, line, "error" if d.kind == "policy" else "warning",
                                       f"{d.subject}: {d.detail}", "policy" if d.kind == "policy" else "check",
                                       command=init))


__all__ = ["INIT_COMMAND", "UPGRADE_COMMAND", "Edit", "Finding", "Fix", "Hover", "Lens", "Related", "RootReport",
           "analyse", "find_root", "units_reading"]
