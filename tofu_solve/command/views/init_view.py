"""What ``init`` shows, as OpenTofu's ``internal/command/views/init.go`` shows it: one view
interface with a method per message (:class:`InitView`), a human and a JSON implementation,
and :class:`InitViews`, the views one run speaks to (people unless ``-json``; the JSON-lines
stream on standard output with ``-json`` and/or into a file with ``-json-into=FILE``). The
command hands them data; only the views print. JSON message codes belong to the message
(the method), never to its English text."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..._lazy import load
from ...addrs.redact import redact
from ...errors import RuleWarning, SourceRange, WarningText
from ...events import Event
from ...output_edge import json_safe, one_line, workflow_commands
from .human import HumanView, use_color
from .json_stream import JsonStream, warning_data
from .store_view import summary_line

EMPTY_DIRECTORY = ("tofu-solve initialized in an empty directory!",
                   "The directory has no OpenTofu configuration files. You may begin working with OpenTofu "
                   "immediately by creating OpenTofu configuration files.")


def plural(n: int, noun: str) -> str:
    """``1 module call``, ``2 module calls``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def describe_change(c) -> str:
    """One lock change as a line of the lists ``init`` prints and refuses with:
    ``  ~ module "eks" 20.37.2 -> 21.19.0: constraint edited to "~> 21.0" (main.tf:19)``."""
    if c.block == "header":
        return f"  ~ {c.label} written for {c.old} -> {c.new}: {c.reason}"
    what = f'{c.block} "{c.label}"'
    if c.kind == "added":
        line = f"  + {what} {c.new or '(no version)'}"
    elif c.kind == "removed":
        line = f"  - {what} (was {c.old or 'no version'})"
    elif c.old == c.new:  # the same version: the reason says what changed (issue #50 §5)
        return f"  ~ {what} {c.new}: {c.reason}" if c.reason else f"  ~ {what} {c.new}"
    else:
        line = f"  ~ {what} {c.old} -> {c.new}"
    return f"{line}: {c.reason}" if c.reason else line


def init_result_as_data(result) -> dict:
    res = result.resolution
    mods = []
    for path, cand in res.modules.items():
        req = res.module_requirements.get(path)
        lock = result.locks.modules.get(path)
        mods.append({"path": path, "source": redact(str(cand.source)), "version": cand.version_text,
                     "package": (lock.package or None) if lock else None, "floating": bool(lock and lock.floating),
                     "constraint": req.constraint.text if req and req.constraint else None,
                     "file": req.call.where.file if req else None, "line": req.call.where.line if req else None,
                     "called_by": req.origin.call_path if req else None})
    return {
        "modules": mods,
        "providers": [{"address": a, "version": str(c.version),
                       "constraints": [r.text for r in res.provider_requirements.get(a, []) if r.text]}
                      for a, c in res.providers.items()],
        "opentofu": str(res.tofu.version) if res.product.command == "tofu" else None,
        "target": {"product": res.product.name, "version": str(res.tofu.version), "origin": res.target_origin},
        "handover": result.handover,
        "next_command": result.next_command,
        "warnings": [warning_data(w) for w in res.warnings],
        "lock_file": {"path": str(result.lock_path), "written": result.lock_written,
                      "changes": [{"path": c.path, "kind": c.kind, "old": c.old, "new": c.new, "reason": c.reason}
                                  for c in result.changes],
                      "provider_changes": [{"address": c.label, "kind": c.kind, "old": c.old, "new": c.new,
                                            "reason": c.reason} for c in result.provider_changes]},
        "network_operations": result.network,
        "stats": result.stats,
        "modules_json": str(result.manifest) if result.manifest else None,
        "verified": result.verified,
        "override_files_written": [str(p) for p in result.bridge_written],
        "terragrunt_pins_written": [str(p) for p in result.unit_pins],
        "policy": result.policy,
        "package_store": result.store,
        "deprecated": list(result.deprecated),
        "selection": res.optimality.data() if res.optimality is not None else None,
    }


@dataclass(frozen=True)
class ModuleSelected:
    """A module call's selection as ``init`` shows it: the call path, its source address as
    displayed (credentials redacted), the version (empty for a local or unversioned source),
    and whether its installed copy was verified against the lock's ``h1:`` this run."""

    call: str
    source: str
    version: str
    verified: bool


@dataclass(frozen=True)
class ProviderSelected:
    """A provider locked: its address as displayed and the version."""

    address: str
    version: str


@dataclass(frozen=True)
class Target:
    """What the selection was solved for: the product (``OpenTofu``, ``Terraform``), its
    version, where the version came from, and, when the selection is not proven best by the
    stated objective (issue #48 §3), the bound that cut the search (else None)."""

    product: str
    version: str
    origin: str
    bound: str | None = None


@dataclass(frozen=True)
class InitSummary:
    """What one ``init`` did, as values its views render (built by :func:`summarize`;
    issue #51 §4: views take data, never lines).

    Attributes:
        modules: each module call selected.
        providers: each provider locked.
        target: what the selection was solved for.
        warnings: the resolution's warnings (:class:`~tofu_solve.errors.WarningText`).
        lock_changes: the lock file's changes (``LockChange``), the providers' first.
        lock_name: the lock file's name.
        readonly: ``-lockfile=readonly``: the changes are what *would* change.
        written: the override files written beside the lock, as shown (relative paths).
        client: the client that installs through them (``tofu init (OpenTofu 1.10 or later)``).
        next_command: what to run next, or None.
        providers_locked: how many providers the lock file holds.
        data: the result document (``init -json``'s ``init_result``).
        unit_pins: a Terragrunt unit's files written or removed (its ``terragrunt.hcl``
            pin, its override file), as shown.
    """

    modules: tuple[ModuleSelected, ...]
    providers: tuple[ProviderSelected, ...]
    target: Target
    warnings: tuple[Any, ...]
    lock_changes: tuple[Any, ...]
    lock_name: str
    readonly: bool
    written: tuple[str, ...]
    client: str
    next_command: str | None
    providers_locked: int
    data: dict
    merge_conflicts: int = 0
    unit_pins: tuple[str, ...] = ()


def summarize(result, readonly: bool, chdir: str) -> InitSummary:
    """The summary of ``result`` (an ``InitResult``); ``readonly``: ``-lockfile=readonly``
    (the lock changes are what *would* change); ``chdir``: the directory paths are shown from."""
    res = result.resolution
    opt = res.optimality
    since = ".".join(map(str, res.product.bridge_from))
    return InitSummary(
        modules=tuple(ModuleSelected(path, _source_shown(cand.source), cand.version_text, path in result.verified)
                      for path, cand in res.modules.items()),
        providers=tuple(ProviderSelected(c.address.for_display, str(c.version)) for c in res.providers.values()),
        target=Target(res.product.name, str(res.tofu.version), res.target_origin,
                      opt.bound if opt is not None and not opt.optimal else None),
        warnings=tuple(res.warnings),
        lock_changes=tuple(result.provider_changes + result.changes),
        lock_name=result.lock_path.name, readonly=readonly,
        written=tuple(os.path.relpath(p, chdir) for p in result.bridge_written),
        client=f"{res.product.command} init ({res.product.name} {since} or later)",
        next_command=result.next_command,
        providers_locked=len(result.locks.providers),
        data=init_result_as_data(result), merge_conflicts=result.merge_conflicts,
        unit_pins=tuple(os.path.relpath(p, chdir) for p in result.unit_pins))


def _source_shown(src: Any) -> str:
    return src.for_display if hasattr(src, "for_display") else redact(str(src))


def _module_text(m: ModuleSelected) -> str:
    return f"- {m.call} in {m.source}" + (f" {m.version}" if m.version else "")


VERIFIED = "Verified checksum matches lock file"


def _provider_text(p: ProviderSelected) -> str:
    return f"- {p.address} {p.version}"


def _solved_for(t: Target) -> str:
    """``Solved for OpenTofu 1.10.6 (...).``, with the sentence a selection not proven best
    adds (issue #48 §3)."""
    text = f"Solved for {t.product} {t.version} ({t.origin})."
    if t.bound is None:
        return text
    return (f"{text} The selection is the best found within the search's bounds ({t.bound}); "
            "a better one by the stated objective may exist.")


def _changes_text(s: InitSummary) -> list[str]:
    """The lock file's changes, a heading line first, or that it is up to date."""
    if not s.lock_changes and s.merge_conflicts:  # rewritten without its markers: never "up to date"
        return [f"tofu-solve has rewritten the lock file {s.lock_name} without its merge-conflict markers; no lock "
                "moved from what the sides agreed on."]
    if not s.lock_changes:
        return ["The lock file is up to date."]
    verb = "would update" if s.readonly else "has updated"
    return [f"tofu-solve {verb} the lock file {s.lock_name}:", *(describe_change(c) for c in s.lock_changes)]


TERRAGRUNT_ALL = "terragrunt run --all init"
"""What runs the client in every Terragrunt unit below (:func:`tofu_solve.workdir.handover.terragrunt_next_command`)."""


def _next_text(command: str) -> str:
    return f"Next, to install providers and configure the backend, run:\n  {command}"


def _after_text(s: InitSummary) -> list[str]:
    """What was written beside the lock and what to run next, a paragraph each."""
    after = [f"tofu-solve wrote {p}: {s.client} installs the locked tags of the git and OCI calls with a "
             "version constraint through it." for p in s.written]
    if s.unit_pins:
        after.append("tofu-solve pinned the Terragrunt unit (" + ", ".join(s.unit_pins) + "): Terragrunt installs "
                     "the locked version of the unit's module and of each module it calls, without tofu-solve.")
    if s.next_command:
        after.append(_next_text(s.next_command))
    return after


def _final_text(s: InitSummary) -> str:
    return (f"tofu-solve has been successfully initialized: {plural(len(s.modules), 'module call')} and "
            f"{plural(s.providers_locked, 'provider')} locked.")


def module_locks_text(product: str, lock: str, outputs_hidden: bool = False) -> str:
    """The note after the client's init: its warning about module locks is expected
    (``product``: the client's name; ``lock``: the lock file's name); ``outputs_hidden``:
    under ``-recursive``, each root's client output was shown only where it said more."""
    text = (f'The client\'s warning "Dependency locks for modules are not yet supported" is expected: {product} reads '
            f"the module blocks tofu-solve writes into {lock} as placeholders and keeps them (its "
            "internal/depsfile/locks_file.go); tofu-solve verifies them on every init.")
    if outputs_hidden:
        text += " Each root's client output is shown only where it said more (-verbose shows all)."
    return text


SHOWN_ROOTS = 3  # roots a rule's warning names under -recursive before "and N more"


def across_roots(rule: str, found: Sequence[tuple[str, Any]]) -> str:
    """One rule's warnings from several roots (each a :class:`~tofu_solve.errors.RuleWarning`)
    as one, under two lines: what it held back, at which versions, in how many roots."""
    where: dict[tuple[str, str], list[str]] = {}
    for name, w in found:
        for subject, selected, _ in w.held:
            roots = where.setdefault((subject, selected), [])
            if name not in roots:  # a root counts once, however often its warning names the subject
                roots.append(name)
    parts = []
    for (subject, selected), names in list(where.items())[:1]:
        shown = ", ".join(names[:SHOWN_ROOTS]) + (f" and {len(names) - SHOWN_ROOTS} more" if len(names) > SHOWN_ROOTS
                                                   else "")
        parts.append(f"{subject} at {selected} in {len(names)} root{'s' if len(names) != 1 else ''} ({shown})")
    more = f" and {len(where) - 1} more (-verbose lists them)" if len(where) > 1 else ""
    return f"{rule} held back {', '.join(parts)}{more}{found[0][1].why}."


def unchanged_text(s: InitSummary) -> str:
    """What a warm ``init`` prints when the working directory is as the verified run left it
    (:mod:`tofu_solve.workdir.stamp`): that run's modules, providers, target, warnings and
    next step; the checksums were verified then, by size and time now."""
    lines = ["Initializing modules...", *(_module_text(m) for m in s.modules)]
    if s.providers:
        lines += ["", "Initializing provider locks...", *(_provider_text(p) for p in s.providers)]
    lines += ["", _solved_for(s.target)]
    for w in s.warnings:
        lines += ["", f"Warning: {w}"]
    lines += ["", "The lock file is up to date. The configuration, the lock file and every installed module have the "
              "sizes and modification times of the last verified init, whose checksums matched the lock file "
              "(TOFU_SOLVE_FULL_CHECK=1 reads and verifies them again)."]
    if s.next_command:
        lines += ["", _next_text(s.next_command)]
    store = summary_line([s.data.get("package_store")])  # a run with a store says so, warm or not (#57 §4)
    if store:
        lines += ["", store]
    return "\n".join([*lines, "", _final_text(s)])


@dataclass(frozen=True)
class HandedOver:
    """A root's hand-over under ``-recursive`` (text): the client's init, run with its output
    kept, before the summary, so that its result stands in the root's line (issue #59 §1).

    Attributes:
        product: the client's name (``OpenTofu``, ``Terraform``).
        command_line: what was run.
        version, origin: the client's version and how it was found.
        code: its exit status.
        output: what it printed (both streams).
        seconds: how long it took.
        said_more: whether it said more than expected (a warning or error besides its
            warning about tofu-solve's module blocks): then its output is shown under the root.
    """

    product: str
    command_line: str
    version: str
    origin: str
    code: int
    output: str
    seconds: float
    said_more: bool


@dataclass(frozen=True)
class RootsSummary:
    """What ``init -recursive`` did: each root's outcome (``RootOutcome`` of an
    ``InitResult``), named from ``base``, the cross-root report, and (text) each root's
    hand-over, run before the summary; ``verbose``: every root named, the whole report."""

    outcomes: Sequence[Any]
    base: Path
    report: Any
    handed: Mapping[Path, HandedOver] = field(default_factory=dict)
    verbose: bool = False
    readonly: bool = False
    # the roots -recursive left out (issue #81 §5), each with why (``LeftOut``): never read, never a failure
    left_out: Mapping[Path, Any] = field(default_factory=dict)
    # the policy files of the tree that applied to no root (issue #84 §1), worded once; None when none
    passed_over: WarningText | None = None

    def name(self, root: Path) -> str:
        """A root as the summary names it: its path from where the run started, on one line
        (a directory's name is a repository's text: issue #67 §1)."""
        load("tofu_solve.command.monorepo")
        from ..monorepo import relative_name
        return one_line(relative_name(root, self.base))

    @property
    def failed(self) -> list[tuple[Path, Any]]:
        return [(o.root, o.error) for o in self.outcomes if o.error is not None]


def _error_key(e: Any) -> tuple | None:
    """What makes two roots' errors one: the same summary, detail and place (a file several
    roots read, named alike from each); None for an error without a place (its own root's)."""
    where = getattr(e, "where", None)
    if where is None or not where.file:
        return None
    return (getattr(e, "summary", ""), getattr(e, "detail", ""), where.file, where.line)


def shared_errors(s: Any) -> dict[tuple, list[str]]:
    """The errors several roots share (a policy or version file above them that does not
    read), each with the roots it stopped, in order."""
    out: dict[tuple, list[str]] = {}
    for root, e in s.failed:
        key = _error_key(e)
        if key is not None:
            out.setdefault(key, []).append(s.name(root))
    return out


def named_roots(names: Sequence[str], verbose: bool = False) -> str:
    """Roots in a sentence: the first :data:`SHOWN_ROOTS` and how many more (``-verbose``:
    all of them)."""
    if verbose or len(names) <= SHOWN_ROOTS:
        return ", ".join(names)
    return f"{', '.join(names[:SHOWN_ROOTS])} and {len(names) - SHOWN_ROOTS} more (-verbose names them all)"


def _root_line_lock(r: Any) -> str:
    n = len(r.changes) + len(r.provider_changes)
    return "up to date" if not n else f"updated ({plural(n, 'change')})"


def _client_cell(ho: HandedOver | None) -> str:
    if ho is None:
        return "-"
    return f"{ho.product} init done ({ho.seconds:.1f} s)" if ho.code == 0 else \
        f"{ho.product} init failed (exit {ho.code})"


def shared_warnings(s: RootsSummary) -> tuple[dict[tuple[str, str], list[str]], set[tuple[str, str]]]:
    """The warnings of the roots that are the same text in several of them: (summary, text)
    -> the roots' names, in order; and the set of those keys (issue #59 §3: said once, with
    the roots counted). Rule warnings are grouped by their rule instead (:func:`across_roots`)."""
    where: dict[tuple[str, str], list[str]] = {}
    for o in s.outcomes:
        for w in (o.value.resolution.warnings if o.value is not None else ()):
            if isinstance(w, RuleWarning):
                continue
            names = where.setdefault((getattr(w, "summary", ""), str(w)), [])
            if s.name(o.root) not in names:
                names.append(s.name(o.root))
    shared = {k for k, names in where.items() if len(names) > 1}
    return {k: v for k, v in where.items() if k in shared}, shared


class InitView(Protocol):
    """Every message ``init`` shows, one method each (OpenTofu's ``views.Init``)."""

    def initializing_modules(self) -> None: ...
    def initializing_roots(self, count: int, base: Path) -> None: ...
    def empty_directory(self) -> None: ...
    def working(self) -> contextlib.AbstractContextManager[Any]: ...
    def progress(self, event: Event) -> None: ...
    def error(self, e: Any) -> None: ...
    def summary(self, s: InitSummary) -> None: ...
    def roots_summary(self, s: RootsSummary) -> None: ...
    def in_root(self, name: str) -> None: ...
    def handing_over(self, command_line: str, product: str, version: str, origin: str,
                     offered: str = "") -> None: ...
    def module_locks_note(self, product: str, lock: str, outputs_hidden: bool = False) -> None: ...
    def close(self) -> None: ...


def failure_cell(error: Any) -> str:
    """A failed root's reason in the ``-recursive`` table: its first cause (issue #68 §3): a
    package the store held but that failed verification, then what the error says (an
    origin that failed too), else the error's summary."""
    if error is None:
        return ""
    rejected = (getattr(error, "store", None) or {}).get("rejected") or []
    if rejected:
        more = f" and {len(rejected) - 1} more" if len(rejected) > 1 else ""
        return f"package store rejected {rejected[0]['package']}{more}; then: {error.summary}"
    return str(error.summary)


class InitHuman:
    """:class:`InitView` for people: OpenTofu's wording on standard output, progress and
    errors on standard error (:class:`~.human.HumanView`)."""

    def __init__(self, human: HumanView):
        self.human = human
        self._shared_errors: dict[tuple, list[str]] = {}  # -recursive: errors several roots share

    def initializing_modules(self) -> None:
        self.human.heading("Initializing modules...")

    def initializing_roots(self, count: int, base: Path) -> None:
        self.human.roots = count
        self.human.heading(f"Initializing {count} root module{'s' if count != 1 else ''} (under {base})...")

    def empty_directory(self) -> None:
        self.human.success(EMPTY_DIRECTORY[0])
        self.human.line()
        self.human.line(EMPTY_DIRECTORY[1])

    def working(self) -> contextlib.AbstractContextManager[Any]:
        return self.human

    def progress(self, event: Event) -> None:
        self.human.progress(event)

    def error(self, e: Any) -> None:
        for w in getattr(e, "warnings", ()):
            self.human.warning(w)
        self.human.error_text(e.render())

    def summary(self, s: InitSummary) -> None:
        h = self.human
        for m in s.modules:
            h.line(_module_text(m))
            if m.verified:
                h.line(f"  {VERIFIED}")
        if s.providers:
            h.line()
            h.heading("Initializing provider locks...")
            for p in s.providers:
                h.line(_provider_text(p))
        h.line()
        h.line(_solved_for(s.target))
        for w in s.warnings:
            h.warning(w)
        h.line()
        for text in _changes_text(s):
            h.line(text)
        for text in _after_text(s):
            h.line()
            h.line(text)
        store = summary_line([s.data.get("package_store")])
        if store:
            h.line()
            h.line(store)
        h.line()
        h.success(_final_text(s))

    def roots_summary(self, s: RootsSummary) -> None:
        """One line per root (its result, counts, lock file and client init), then a section
        under each root's name only where something happened there (lock changes, its own
        warnings, its error, what its client said), each warning several roots share once
        with the roots counted, what is at several versions across roots, and the verdict
        (issue #59 §1-3)."""
        h = self.human
        self._roots_table(s)
        shared, shared_keys = shared_warnings(s)
        self._shared_errors = shared_errors(s)
        by_rule: dict[tuple[str, str], list[tuple[str, Any]]] = {}
        for o in s.outcomes:
            for w in o.value.resolution.warnings if o.value is not None else ():
                if isinstance(w, RuleWarning):
                    by_rule.setdefault((w.summary, w.rule), []).append((s.name(o.root), w))
            self._root_section(s, o, shared_keys)
        for (summary, text), names in shared.items():
            h.warning(WarningText(summary, f"{text}\n(In {len(names)} root modules: "
                                           f"{named_roots(names, s.verbose)}.)"), wrap=True)
        for (summary, rule), found in by_rule.items():
            h.warning(WarningText(summary, across_roots(rule, found)), wrap=True)
        if s.passed_over is not None:
            h.warning(s.passed_over, wrap=True)
        lines = s.report.lines() if s.verbose else s.report.several_lines()
        if lines:
            h.line()
            for line in lines:
                h.folded(line, indent="    ")
        # a failed root's store counts too (its error keeps them): issue #68 §3
        store = summary_line([o.value.store if o.value is not None else getattr(o.error, "store", None)
                              for o in s.outcomes], roots=len(s.outcomes))
        if store:
            h.line()
            h.folded(store)
        self._roots_verdict(s)

    def _roots_table(self, s: RootsSummary) -> None:
        """The line of each root: result, module calls, providers, lock file, client init."""
        rows = []
        handed = bool(s.handed)
        for o in s.outcomes:
            ho = s.handed.get(o.root)
            if o.value is not None:
                r = o.value
                row = [s.name(o.root), "ok" if ho is None or ho.code == 0 else "error",
                       str(len(r.resolution.modules)), str(len(r.locks.providers)), _root_line_lock(r)]
            else:
                row = [s.name(o.root), "error", "-", "-", failure_cell(o.error)]
            rows.append(row + ([_client_cell(ho)] if handed else []))
        for root, why in s.left_out.items():  # never silently (issue #81 §5)
            rows.append([s.name(root), "left out", "-", "-", why.text()] + (["-"] if handed else []))
        load("tofu_solve.command.monorepo")
        from ..monorepo import natural_key
        rows.sort(key=lambda r: natural_key(Path(r[0])))
        head = ["ROOT", "RESULT", "MODULES", "PROVIDERS", "LOCK FILE"] + (["CLIENT INIT"] if handed else [])
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head) - 1)]
        for r in [head, *rows]:
            self.human.line("  ".join(c.ljust(widths[i]) for i, c in enumerate(r[:-1])) + "  " + r[-1])

    def _root_section(self, s: RootsSummary, o: Any, shared_keys: set[tuple[str, str]]) -> None:
        """What happened in one root, under its name, only when something did: its lock
        changes, its own warnings (not those several roots share), what its client said
        beyond the expected; its error on standard error, under its name there too."""
        h = self.human
        name = s.name(o.root)
        own = [w for w in (o.value.resolution.warnings if o.value is not None else ())
               if not isinstance(w, RuleWarning) and (getattr(w, "summary", ""), str(w)) not in shared_keys]
        changes = list(o.value.provider_changes + o.value.changes) if o.value is not None else []
        ho = s.handed.get(o.root)
        client = ho is not None and (ho.code != 0 or ho.said_more)
        if own or changes or client:
            h.line()
            h.line(f"In {name}:", "bold")
            if changes:
                h.line(f"tofu-solve has updated the lock file {o.value.lock_path.name}:")
                for c in changes:
                    h.folded(describe_change(c), indent="    ")
            for w in own:
                h.warning(w, wrap=True)
            if client and ho is not None:
                h.line()
                h.line(f"{ho.product} {ho.version} ({ho.origin}): {ho.command_line}")
                for line in ho.output.rstrip("\n").splitlines():
                    h.line(line)
        if o.error is not None:
            key = _error_key(o.error)
            names = self._shared_errors.get(key, [name]) if key is not None else [name]
            if len(names) == 1:
                h.error_in_root(name, o.error.render())
            elif names[0] == name:  # a shared file's error: said once, with its roots (issue #70 §1)
                h.error_in_root(f"{len(names)} root modules ({named_roots(names, s.verbose)})", o.error.render())

    def _roots_verdict(self, s: RootsSummary) -> None:
        """The module-lock note (once), how many roots failed or that all succeeded, and,
        only then, the next command, one line per distinct command (``-verbose``: per root)."""
        h = self.human
        noted = [o for o in s.outcomes if o.value is not None and o.value.locks.modules and o.root in s.handed]
        if noted and any(ho.code == 0 and not ho.said_more for ho in s.handed.values()):
            h.line()
            h.folded(module_locks_text(s.handed[noted[0].root].product, noted[0].value.lock_path.name,
                                       outputs_hidden=True))
        failed = len(s.failed) + sum(1 for ho in s.handed.values() if ho.code != 0)
        h.line()
        left = f"; {len(s.left_out)} left out (-recursive's exclude patterns, named above)" if s.left_out else ""
        if failed:
            h.line(f"{failed} of {len(s.outcomes)} root modules failed{left}.", "bold red")
            return  # a failed run names no next command (issue #59 §2)
        h.success(f"tofu-solve has been successfully initialized: {len(s.outcomes)} root modules{left}.")
        nexts: dict[str, list[str]] = {}
        for o in s.outcomes:
            if o.value is not None and o.value.next_command and o.root not in s.handed:
                nexts.setdefault(o.value.next_command, []).append(s.name(o.root))
        for i, (cmd, names) in enumerate(nexts.items()):
            if i or s.verbose:
                h.line()
            if cmd == TERRAGRUNT_ALL:  # one command for every unit below, run where this one ran
                h.folded(f"Next, run {cmd} here: Terragrunt installs the locked versions of "
                         f"{'every unit' if len(names) == len(s.outcomes) else named_roots(names)} from the pins "
                         "tofu-solve wrote.")
            elif s.verbose:
                h.line("Next, to install providers and configure the backend, in each of "
                       f"{plural(len(names), 'root module')}, run:")
                for name in names:
                    h.line(f"  (cd {name} && {cmd})")
            elif len(names) == len(s.outcomes) and not s.left_out:  # the table names every root: one line (#70 §2)
                h.folded(f"Next, to install providers and configure the backend, run {cmd} in each root module "
                         "above.")
            else:
                h.folded(f"Next, to install providers and configure the backend, run {cmd} in each of "
                         f"{plural(len(names), 'root module')} ({named_roots(names)}).")

    def in_root(self, name: str) -> None:
        self.human.line()
        self.human.line(f"In {name}:", "bold")

    def handing_over(self, command_line: str, product: str, version: str, origin: str, offered: str = "") -> None:
        self.human.line()
        self.human.heading(f"Handing over to {command_line} ({product} {version}, {origin})...")
        for line in offered.splitlines():  # the provider packages offered (workdir/client_config.py)
            self.human.line(line)

    def module_locks_note(self, product: str, lock: str, outputs_hidden: bool = False) -> None:
        self.human.line()
        self.human.line(module_locks_text(product, lock, outputs_hidden))

    def close(self) -> None:
        self.human.stop_progress()


class InitJson:
    """:class:`InitView` as ``tofu init -json`` writes it (:class:`~.json_stream.JsonStream`):
    each message with its own ``message_code``."""

    def __init__(self, stream: JsonStream):
        self.stream = stream

    def initializing_modules(self) -> None:
        self.stream.init_output("Initializing modules...", "initializing_modules_message")

    def initializing_roots(self, count: int, base: Path) -> None:
        self.stream.init_output(f"Initializing {count} root modules", "initializing_root_modules_message")

    def empty_directory(self) -> None:
        self.stream.result("init", EMPTY_DIRECTORY[0], {"empty_directory": True, "modules": [], "providers": []})

    def working(self) -> contextlib.AbstractContextManager[Any]:
        return contextlib.nullcontext()

    def progress(self, event: Event) -> None:
        self.stream.progress(event)

    def error(self, e: Any) -> None:
        for w in getattr(e, "warnings", ()):
            self.stream.warning(w)
        self.stream.error(e)

    def summary(self, s: InitSummary) -> None:
        for m in s.modules:
            self.stream.log(_module_text(m))
            if m.verified:
                self.stream.log(VERIFIED)
        if s.providers:
            self.stream.init_output("Initializing provider locks...", "initializing_provider_plugin_message")
            for p in s.providers:
                self.stream.log(_provider_text(p))
        self.stream.log(_solved_for(s.target))
        for w in s.warnings:
            self.stream.warning(w)
        for text in _changes_text(s) + _after_text(s):
            self.stream.log(text)
        self.stream.result("init", _final_text(s), s.data)

    def roots_summary(self, s: RootsSummary) -> None:
        failed = s.failed
        for failed_root, error in failed:  # every diagnostic names its root (issue #59 §2)
            self.stream.error(error, root=s.name(failed_root))
        for o in s.outcomes:  # each root's warnings, as a plain init shows them, naming the root
            for w in (o.value.resolution.warnings if o.value is not None else ()):
                d = warning_data(w)
                self.stream.diagnostic("warning", d["summary"], d["detail"], root=s.name(o.root))
        if s.passed_over is not None:
            self.stream.diagnostic("warning", s.passed_over.summary, str(s.passed_over))
        doc = {"roots": [{"root": s.name(o.root), "ok": o.ok,
                          "result": init_result_as_data(o.value) if o.value is not None else None,
                          "error": o.error.to_dict() if o.error else None, "left_out": None} for o in s.outcomes],
               "report": s.report.as_data()}
        for root, why in s.left_out.items():  # never silently (issue #81 §5)
            doc["roots"].append({"root": s.name(root), "ok": True, "result": None, "error": None,
                                 "left_out": why.as_data()})
            self.stream.log(f"{s.name(root)}: {why.text()}")
        load("tofu_solve.command.monorepo")
        from ..monorepo import natural_key
        doc["roots"].sort(key=lambda r: natural_key(Path(r["root"])))
        left = f", {len(s.left_out)} left out" if s.left_out else ""
        self.stream.result("init", f"{len(s.outcomes) - len(failed)} of {len(s.outcomes)} root modules "
                                   f"initialized{left}", doc)

    def in_root(self, name: str) -> None:
        pass  # each message of a root already names it

    def handing_over(self, command_line: str, product: str, version: str, origin: str, offered: str = "") -> None:
        if offered:
            self.stream.log(" ".join(line.strip() for line in offered.splitlines()))
        # the client's own -json stream follows

    def module_locks_note(self, product: str, lock: str, outputs_hidden: bool = False) -> None:
        self.stream.log(module_locks_text(product, lock, outputs_hidden))

    def close(self) -> None:
        pass


class InitViews:
    """The views one ``init`` speaks to, each message sent to every one of them: people
    (unless ``-json``), the JSON-lines stream on standard output (``-json``) and/or into a
    file (``-json-into=FILE``), as OpenTofu pairs its human and JSON views."""

    def __init__(self, chdir: str, as_json: bool = False, json_into: str | None = None, no_color: bool = False,
                 no_color_env: bool = False, quiet: bool = False, sarif: bool = False, annotations: bool = False,
                 cwd: str = ".", markdown: str | None = None, environ: Mapping[str, str] | None = None):
        # -format=sarif or markdown: the SARIF log or the report is standard output, the text goes to standard
        # error; ``markdown`` names the command in the report's heading (issue #81 §3)
        self.human = None if as_json else HumanView(use_color(no_color, no_color_env), quiet=quiet,
                                                    out=sys.stderr if sarif or markdown is not None else None)
        self.sarif = sarif
        self.markdown, self._environ = markdown, environ or {}
        self.reports: list[Any] = []  # -format=markdown: each root's RootReport
        self.notes: list[str] = []  # -format=markdown: what the run says once, under the count line
        self.judged: dict[str, int] = {}  # -format=markdown: each policy file, how many roots it judged
        self.annotations = annotations and not as_json  # SARIF too: on standard error (issue #81 §1)
        self._chdir, self._cwd = chdir, cwd
        self.findings: list[tuple[str, list[Any]]] = []  # (root, the lock changes refused, its errors)
        self.notifications: list[Any] = []  # failures of the run itself (sarif.Notification), each once
        outs = []
        if as_json:
            outs.append(sys.stdout)
        self._into = None
        if json_into:
            self._into = open(json_into, "w", encoding="utf-8")  # noqa: SIM115 (closed by close())
            outs.append(self._into)
        self.stream = JsonStream(*outs, root=Path(chdir)) if outs else None
        if self.stream:
            self.stream.version()
        self._views: list[InitView] = []
        if self.stream is not None:
            self._views.append(InitJson(self.stream))
        if self.human is not None:
            self._views.append(InitHuman(self.human))

    def initializing_modules(self) -> None:
        for v in self._views:
            v.initializing_modules()

    def initializing_roots(self, count: int, base: Path) -> None:
        for v in self._views:
            v.initializing_roots(count, base)

    def empty_directory(self) -> None:
        for v in self._views:
            v.empty_directory()

    @contextlib.contextmanager
    def working(self) -> Iterator[None]:
        """Around the work: the live progress line is cleared before results are shown."""
        with contextlib.ExitStack() as stack:
            for v in self._views:
                stack.enter_context(v.working())
            yield

    def progress(self, event: Event) -> None:
        for v in self._views:
            v.progress(event)

    def error(self, e: Any) -> None:
        """A failure, after the warnings that may explain it (``e.warnings``)."""
        self._found(".", e)
        if self.markdown is not None:
            failed = _root_report(".", (), e)
            if self.reports:  # after a summary: the run failed after it (the hand-over's client)
                self.reports[0].moves += failed.moves
                self.reports[0].failures += failed.failures
            else:
                self.reports.append(failed)
        for v in self._views:
            v.error(e)

    def _found(self, root: str, e: Any) -> None:
        """Keep what ``-lockfile=readonly`` refused, and every other error at its lines (on
        the root's main file when it names none; a failure of the run itself as one
        notification), for ``-format=sarif`` and GitHub annotations (issue #70 §1)."""
        load("tofu_solve.command.views.sarif")
        from .sarif import Finding, Notification, error_findings, main_file

        changes = getattr(e, "changes", ())
        if changes:
            self.findings.append((root, [Finding("lock-change", subject, detail, where)
                                         for subject, detail, where in changes]))
            return
        found = error_findings(e)
        if isinstance(found, Notification):
            if found not in self.notifications:
                self.notifications.append(found)
            return
        if not found:
            main = main_file(os.path.join(self._chdir, root))
            found = [Finding("error", str(getattr(e, "summary", "Error")), str(getattr(e, "detail", "")),
                             SourceRange(main if root == "." else os.path.join(root, main), 1))]
        self.findings.append((root, found))

    def _overrides_noted(self, root: str, warnings: Sequence[Any]) -> None:
        """Each override a run used, a note in SARIF and an annotation (issue #84 §4: every run
        that uses one says so, where the reviewer looks)."""
        used = [w for w in warnings if getattr(w, "summary", "") == "Policy overridden"]
        if used and (self.sarif or self.annotations):
            load("tofu_solve.command.views.sarif")
            from .sarif import Notification
            for w in used:
                note = Notification("Policy overridden", (f"{root}: " if root != "." else "") + str(w), level="note")
                if note not in self.notifications:
                    self.notifications.append(note)

    def summary(self, s: InitSummary) -> None:
        self._overrides_noted(".", s.warnings)
        if self.markdown is not None:
            self.reports.append(_root_report(".", s.lock_changes, None, s.warnings))
            self._judged(s.data.get("policy"))
        for v in self._views:
            v.summary(s)

    def roots_summary(self, s: RootsSummary) -> None:
        for failed_root, error in s.failed:
            self._found(s.name(failed_root), error)
        for o in s.outcomes:
            if o.value is not None:
                self._overrides_noted(s.name(o.root), o.value.resolution.warnings)
        if self.markdown is not None:
            load("tofu_solve.command.monorepo")
            from ..monorepo import natural_key
            if s.passed_over is not None:
                self.notes.append(f"{s.passed_over.summary}: {s.passed_over}")
            for o in s.outcomes:
                self._judged(o.value.policy if o.value is not None else None)
            self.reports = sorted(
                [_root_report(s.name(o.root), o.value.provider_changes + o.value.changes if o.value else (), o.error,
                              o.value.resolution.warnings if o.value else ()) for o in s.outcomes]
                + [_root_report(s.name(root), (), None, left_out=why) for root, why in s.left_out.items()],
                key=lambda r: natural_key(Path(r.name)))
        if s.left_out:  # a note each in SARIF and the annotations: never silently (issue #81 §5)
            load("tofu_solve.command.views.sarif")
            from .sarif import Notification
            self.notifications += [Notification("Root left out", f"{s.name(root)}: {why.text()}", level="note")
                                   for root, why in s.left_out.items()]
        for v in self._views:
            v.roots_summary(s)

    def in_root(self, name: str) -> None:
        for v in self._views:
            v.in_root(name)

    def handing_over(self, command_line: str, product: str, version: str, origin: str, offered: str = "") -> None:
        for v in self._views:
            v.handing_over(command_line, product, version, origin, offered)

    def module_locks_note(self, product: str, lock: str, outputs_hidden: bool = False) -> None:
        for v in self._views:
            v.module_locks_note(product, lock, outputs_hidden)

    def _judged(self, policy: Mapping[str, Any] | None) -> None:
        for f in (policy or {}).get("files") or ():
            self.judged[f] = self.judged.get(f, 0) + 1

    def close(self) -> None:
        for v in self._views:
            v.close()
        if self._into is not None:
            self._into.close()
        if self.markdown is not None and self.reports:  # before the annotations, which end the output
            load("tofu_solve.command.views.markdown")
            from .markdown import Report, Words, append_to_step_summary, render

            readonly = "-lockfile=readonly" in self.markdown
            doc = render(Report(self.markdown, self.reports, notes=tuple(self.notes),
                                policies=tuple(self.judged.items()), words=
                                Words("would change their lock files" if readonly else "changed their lock files",
                                      "would change its lock file" if readonly else "changed its lock file",
                                      "are up to date", "is up to date", "Lock changes")))
            sys.stdout.write(doc)
            sys.stdout.flush()
            warning = append_to_step_summary(doc, self._environ)
            if warning:
                print(f"\nWarning: Job summary not written\n\n{warning}\n", file=sys.stderr)
        if self.sarif or self.annotations:  # issue #59 §5: the findings at their lines, for CI
            load("tofu_solve.command.views.sarif")
            from .sarif import check_log, github_annotations

            if self.sarif:
                import json

                print(json.dumps(json_safe(check_log(self.findings, self._chdir, self._cwd,
                                                     notifications=self.notifications)), indent=2))
            if self.annotations:  # the runner's commands resumed for tofu-solve's own (issue #67 §1)
                workflow_commands(sys.stderr if self.sarif or self.markdown is not None else sys.stdout,
                                  github_annotations(self.findings, self._chdir, self._cwd,
                                                     notifications=self.notifications))


def _root_report(name: str, changes: Sequence[Any], error: Any, warnings: Sequence[Any] = (), left_out: Any = None):
    """One root of a ``-format=markdown`` report (:mod:`.markdown`): its lock changes
    (``LockChange``), or what ``-lockfile=readonly`` refused (the error's ``changes``, each
    at its line); its error otherwise; the policy's and the cooldown's findings (each
    ``RuleWarning``); or why ``-recursive`` left it out."""
    load("tofu_solve.command.views.markdown")
    from .markdown import Line, RootReport

    r = RootReport(name, left_out=left_out.text() if left_out is not None else "")
    def said(subject: str, detail: str) -> str:  # describe_change's line without its sign and subject
        return detail.strip().lstrip("~+-").strip().removeprefix(subject).strip()

    for c in changes:
        subject = f'{c.block} "{c.label}"'
        r.moves.append(Line(subject, said(subject, describe_change(c))))
    refused = getattr(error, "changes", ()) if error is not None else ()
    for subject, detail, where in refused:
        r.moves.append(Line(subject, said(subject, detail), f"{where.file}:{where.line}" if where is not None else ""))
    if error is not None and not refused:
        where = getattr(error, "where", None)
        r.failures.append(Line(str(getattr(error, "summary", "Error")), str(getattr(error, "detail", "")),
                               f"{where.file}:{where.line}" if where is not None and where.file else ""))
    for w in warnings:  # what a rule kept out, and what an advisory rule or an override let through
        if isinstance(w, RuleWarning) or getattr(w, "summary", "") in ("Policy overridden", "Policy advisory"):
            r.findings.append(Line(w.summary, str(w)))
    return r
