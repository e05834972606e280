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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ...addrs.redact import redact
from ...errors import RuleWarning, WarningText
from ...events import Event
from .human import HumanView, use_color
from .json_stream import JsonStream, warning_data

EMPTY_DIRECTORY = ("tofu-solve initialized in an empty directory!",
                   "The directory has no OpenTofu configuration files. You may begin working with OpenTofu "
                   "immediately by creating OpenTofu configuration files.")


def plural(n: int, noun: str) -> str:
    """``1 module call``, ``2 module calls``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def module_line(path, cand) -> str:
    src = cand.source
    shown = src.for_display if hasattr(src, "for_display") else redact(str(src))
    ver = f" {cand.version_text}" if cand.version_text else ""
    return f"- {path} in {shown}{ver}"


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
        "policy": result.policy,
        "package_store": result.store,
        "selection": res.optimality.data() if res.optimality is not None else None,
    }


@dataclass(frozen=True)
class InitSummary:
    """What one ``init`` did, as its views show it (built by :func:`summarize`).

    Attributes:
        modules: a line per module call selected (``- vpc in .../vpc/aws 6.0.1``), each
            followed by ``  Verified checksum matches lock file`` when its copy was verified.
        providers: a line per provider locked.
        solved_for: ``Solved for OpenTofu 1.10.6 (...)``.
        warnings: the resolution's warnings.
        changes: the lock file's changes, a heading line first (or "up to date").
        after: what was written beside the lock and what to run next, a paragraph each.
        final: the closing success line.
        data: the result document (``init -json``'s ``init_result``).
    """

    modules: tuple[str, ...]
    providers: tuple[str, ...]
    solved_for: str
    warnings: tuple[Any, ...]
    changes: tuple[str, ...]
    after: tuple[str, ...]
    final: str
    data: dict


def summarize(result, readonly: bool, chdir: str) -> InitSummary:
    """The summary of ``result`` (an ``InitResult``); ``readonly``: ``-lockfile=readonly``
    (the lock changes are what *would* change); ``chdir``: the directory paths are shown from."""
    res = result.resolution
    modules: list[str] = []
    for path, cand in res.modules.items():
        modules.append(module_line(path, cand))
        if path in result.verified:
            modules.append("  Verified checksum matches lock file")
    changes: list[str] = []
    if result.changes or result.provider_changes:
        verb = "would update" if readonly else "has updated"
        changes.append(f"tofu-solve {verb} the lock file {result.lock_path.name}:")
        changes.extend(describe_change(c) for c in result.provider_changes + result.changes)
    else:
        changes.append("The lock file is up to date.")
    since = ".".join(map(str, res.product.bridge_from))
    client_name = f"{res.product.command} init ({res.product.name} {since} or later)"
    after = [f"tofu-solve wrote {os.path.relpath(p, chdir)}: {client_name} installs the locked "
             "tags of the git and OCI calls with a version constraint through it." for p in result.bridge_written]
    if result.next_command:
        after.append(f"Next, to install providers and configure the backend, run:\n  {result.next_command}")
    return InitSummary(
        tuple(modules), tuple(f"- {c.address.for_display} {c.version}" for c in res.providers.values()),
        f"Solved for {res.product.name} {res.tofu.version} ({res.target_origin})." + _bounded(res),
        tuple(res.warnings),
        tuple(changes), tuple(after),
        f"tofu-solve has been successfully initialized: {plural(len(res.modules), 'module call')} and "
        f"{plural(len(result.locks.providers), 'provider')} locked.",
        init_result_as_data(result))


def _bounded(res: Any) -> str:
    """The sentence a selection not proven best adds to "Solved for" (issue #48 §3), else ""."""
    opt = res.optimality
    if opt is None or opt.optimal:
        return ""
    return (f" The selection is the best found within the search's bounds ({opt.bound}); "
            "a better one by the stated objective may exist.")


SHOWN_ROOTS = 3  # roots a rule's warning names under -recursive before "and N more"


def across_roots(rule: str, found: Sequence[tuple[str, Any]]) -> str:
    """One rule's warnings from several roots (each a :class:`~tofu_solve.errors.RuleWarning`)
    as one, under two lines: what it held back, at which versions, in how many roots."""
    where: dict[tuple[str, str], list[str]] = {}
    for name, w in found:
        for subject, selected, _ in w.held:
            where.setdefault((subject, selected), []).append(name)
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
    lines = ["Initializing modules..."] + [m for m in s.modules if not m.startswith("  Verified")]
    if s.providers:
        lines += ["", "Initializing provider locks...", *s.providers]
    lines += ["", s.solved_for]
    for w in s.warnings:
        lines += ["", f"Warning: {w}"]
    lines += ["", "The lock file is up to date. The configuration, the lock file and every installed module have the "
              "sizes and modification times of the last verified init, whose checksums matched the lock file "
              "(TOFU_SOLVE_FULL_CHECK=1 reads and verifies them again)."]
    lines += [x for a in s.after if a.startswith("Next,") for x in ("", a)]
    return "\n".join([*lines, "", s.final])


@dataclass(frozen=True)
class RootsSummary:
    """What ``init -recursive`` did: each root's outcome (``RootOutcome`` of an
    ``InitResult``), named from ``base``, and the cross-root report."""

    outcomes: Sequence[Any]
    base: Path
    report: Any

    def name(self, root: Path) -> str:
        from ..monorepo import relative_name
        return relative_name(root, self.base)

    @property
    def failed(self) -> list[tuple[Path, Any]]:
        return [(o.root, o.error) for o in self.outcomes if o.error is not None]


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
    def handing_over(self, command_line: str, product: str, version: str, origin: str) -> None: ...
    def module_locks_note(self, note: str) -> None: ...
    def close(self) -> None: ...


class InitHuman:
    """:class:`InitView` for people: OpenTofu's wording on standard output, progress and
    errors on standard error (:class:`~.human.HumanView`)."""

    def __init__(self, human: HumanView):
        self.human = human

    def initializing_modules(self) -> None:
        self.human.heading("Initializing modules...")

    def initializing_roots(self, count: int, base: Path) -> None:
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
        for text in s.modules:
            h.line(text)
        if s.providers:
            h.line()
            h.heading("Initializing provider locks...")
            for text in s.providers:
                h.line(text)
        h.line()
        h.line(s.solved_for)
        for w in s.warnings:
            h.warning(w)
        h.line()
        for text in s.changes:
            h.line(text)
        for text in s.after:
            h.line()
            h.line(text)
        h.line()
        h.success(s.final)

    def roots_summary(self, s: RootsSummary) -> None:
        h = self.human
        rows = []
        for o in s.outcomes:
            name = s.name(o.root)
            if o.value is not None:
                r = o.value
                lock = "up to date" if not (r.changes or r.provider_changes) else \
                    f"updated ({len(r.changes) + len(r.provider_changes)} changes)"
                rows.append((name, "ok", str(len(r.resolution.modules)), str(len(r.locks.providers)), lock))
            else:
                rows.append((name, "error", "-", "-", o.error.summary if o.error else ""))
        head = ("ROOT", "RESULT", "MODULES", "PROVIDERS", "LOCK FILE")
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(4)]
        for r in [head, *rows]:
            h.line("  ".join(c.ljust(widths[i]) for i, c in enumerate(r[:4])) + "  " + r[4])
        # a policy or cooldown rule is warned about once across roots, with the roots it touched
        # counted (issue #47 §5); every other warning under the root it is about
        by_rule: dict[tuple[str, str], list[tuple[str, Any]]] = {}
        for o in s.outcomes:
            warnings = o.value.resolution.warnings if o.value is not None else ()
            for w in warnings:
                if isinstance(w, RuleWarning):
                    by_rule.setdefault((w.summary, w.rule), []).append((s.name(o.root), w))
            own = [w for w in warnings if not isinstance(w, RuleWarning)]
            if own:
                h.line()
                h.line(f"In {s.name(o.root)}:", "bold")
                for w in own:
                    h.warning(w)
        for (summary, rule), found in by_rule.items():
            h.warning(WarningText(summary, across_roots(rule, found)))
        failed = s.failed
        for failed_root, error in failed:
            h.line()
            h.line(f"In {s.name(failed_root)}:", "bold")
            h.error_text(error.render())
        lines = s.report.lines()
        if lines:
            h.line()
            for line in lines:
                h.line(line)
        h.line()
        if failed:
            h.line(f"{len(failed)} of {len(s.outcomes)} root modules failed.", "bold red")
        else:
            h.success(f"tofu-solve has been successfully initialized: {len(s.outcomes)} root modules.")
        nexts = [(s.name(o.root), o.value.next_command) for o in s.outcomes
                 if o.value is not None and o.value.next_command]
        if nexts:
            h.line()
            h.line("Next, in each root, to install providers and configure the backend, run:")
            for name, cmd in nexts:
                h.line(f"  (cd {name} && {cmd})")

    def in_root(self, name: str) -> None:
        self.human.line()
        self.human.line(f"In {name}:", "bold")

    def handing_over(self, command_line: str, product: str, version: str, origin: str) -> None:
        self.human.line()
        self.human.heading(f"Handing over to {command_line} ({product} {version}, {origin})...")

    def module_locks_note(self, note: str) -> None:
        self.human.line()
        self.human.line(note)

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
        for text in s.modules:
            self.stream.log(text.strip() if text.startswith("  ") else text)
        if s.providers:
            self.stream.init_output("Initializing provider locks...", "initializing_provider_plugin_message")
            for text in s.providers:
                self.stream.log(text)
        self.stream.log(s.solved_for)
        for w in s.warnings:
            self.stream.warning(w)
        for text in s.changes + s.after:
            self.stream.log(text)
        self.stream.result("init", s.final, s.data)

    def roots_summary(self, s: RootsSummary) -> None:
        failed = s.failed
        for _, error in failed:
            self.stream.error(error)
        for o in s.outcomes:  # each root's warnings, as a plain init shows them, naming the root
            for w in (o.value.resolution.warnings if o.value is not None else ()):
                d = warning_data(w)
                self.stream.diagnostic("warning", d["summary"], d["detail"], root=s.name(o.root))
        doc = {"roots": [{"root": s.name(o.root), "ok": o.ok,
                          "result": init_result_as_data(o.value) if o.value is not None else None,
                          "error": o.error.to_dict() if o.error else None} for o in s.outcomes],
               "report": s.report.as_data()}
        self.stream.result("init", f"{len(s.outcomes) - len(failed)} of {len(s.outcomes)} root modules initialized",
                           doc)

    def in_root(self, name: str) -> None:
        pass  # each message of a root already names it

    def handing_over(self, command_line: str, product: str, version: str, origin: str) -> None:
        pass  # the client's own -json stream follows

    def module_locks_note(self, note: str) -> None:
        self.stream.log(note)

    def close(self) -> None:
        pass


class InitViews:
    """The views one ``init`` speaks to, each message sent to every one of them: people
    (unless ``-json``), the JSON-lines stream on standard output (``-json``) and/or into a
    file (``-json-into=FILE``), as OpenTofu pairs its human and JSON views."""

    def __init__(self, chdir: str, as_json: bool = False, json_into: str | None = None, no_color: bool = False,
                 no_color_env: bool = False):
        self.human = None if as_json else HumanView(use_color(no_color, no_color_env))
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
        for v in self._views:
            v.error(e)

    def summary(self, s: InitSummary) -> None:
        for v in self._views:
            v.summary(s)

    def roots_summary(self, s: RootsSummary) -> None:
        for v in self._views:
            v.roots_summary(s)

    def in_root(self, name: str) -> None:
        for v in self._views:
            v.in_root(name)

    def handing_over(self, command_line: str, product: str, version: str, origin: str) -> None:
        for v in self._views:
            v.handing_over(command_line, product, version, origin)

    def module_locks_note(self, note: str) -> None:
        for v in self._views:
            v.module_locks_note(note)

    def root_handed_over(self, name: str, product: str, seconds: float) -> None:
        """``-recursive``, text: a root whose client's init succeeded and said nothing more
        than expected, as one line (issue #50 §1)."""
        if self.human is not None:
            self.human.line(f"  {name}: {product} init done ({seconds:.1f} s)")

    def client_output(self, output: str) -> None:
        """``-recursive``, text: what a root's client said, when it said more than expected."""
        if self.human is not None:
            for line in output.rstrip("\n").splitlines():
                self.human.line(line)

    def close(self) -> None:
        for v in self._views:
            v.close()
        if self._into is not None:
            self._into.close()
