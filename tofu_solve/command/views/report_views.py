"""What the reporting commands show (``check``, ``outdated``, ``why``, ``inspect``,
``version``): one view per command with a method per message, text for people or the JSON
document with ``-json``. The commands compute and hand their results here; only these print
(OpenTofu's ``internal/command/views``)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ..._lazy import load
from ...errors import SourceRange
from ...output_edge import json_safe, workflow_commands

if TYPE_CHECKING:
    from ...addrs.product import Product

AGREE = "The lock file, .terraform/modules, modules.json and the override files all agree."

class _View:
    """Standard output for results, standard error for failures; JSON or text."""

    def __init__(self, as_json: bool, out: IO[str] | None = None, err: IO[str] | None = None):
        self.json = as_json
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        # what a -recursive run says once, concerning no one root (a WarningText: policy files applied to no
        # root, issue #84 §1): on standard error after the text, in -json's "warnings", a note in SARIF
        self.notices: list[Any] = []

    def _notices_data(self) -> list[dict]:
        return [{"summary": w.summary, "detail": str(w)} for w in self.notices]

    def _notices_text(self) -> None:
        for w in self.notices:
            self._print(f"\nWarning: {w.summary}\n\n{w}", err=True)

    def _dump(self, doc: object, indent: int | None = 2) -> None:
        json.dump(doc, self.out, indent=indent)
        print(file=self.out)

    def _print(self, text: str = "", *, err: bool = False) -> None:
        print(text, file=self.err if err else self.out)

    def incomplete(self, problem: Any) -> None:
        """A warning on standard error that the answer lacks something it needs (``problem``:
        a ``TofuSolveError`` naming what and how to get it, issue #47 §4); the command then
        exits 1. Standard output stays the (partial) answer, valid JSON with ``-json``."""
        self._print(f"\nWarning: {problem.summary}\n\n{problem.detail}\n", err=True)


class CheckView(_View):
    """``check``: whether the working directory matches the lock file; ``sarif``: the
    findings as a SARIF 2.1.0 log instead (:mod:`.sarif`); ``annotations``: GitHub Actions
    workflow commands after the text (``GITHUB_ACTIONS=true``); ``base``: the ``-chdir``
    directory; ``cwd``: where the command was run (the log's paths are relative to it)."""

    def __init__(self, as_json: bool, sarif: bool = False, annotations: bool = False, base: str = ".",
                 cwd: str = ".", out: IO[str] | None = None, err: IO[str] | None = None,
                 markdown: str | None = None, environ: Mapping[str, str] | None = None):
        super().__init__(as_json, out, err)
        self.sarif = sarif
        # -format=markdown: the report (``markdown`` names the command in its heading) is standard output,
        # appended to GitHub's job summary too; the text goes to standard error (issue #81 §3)
        self.markdown, self.environ = markdown, environ or {}
        self.report_out = self.out
        if markdown is not None:
            self.out = self.err
        # under GitHub Actions the annotations follow the text in text and SARIF modes (on standard
        # error beside a SARIF log on standard output); -json carries the findings itself (issue #81 §1)
        self.annotations = annotations and not as_json
        self.base = base
        self.cwd = cwd

    def _scanning(self, found: Sequence[tuple[str, Sequence[Any]]], failed: Sequence[tuple[str, Any]] = (),
                  left_out: Sequence[tuple[str, Any]] = ()) -> bool:
        """The SARIF log (True: it is the whole output), or the annotations after the text;
        ``failed``: (root, error) of each root whose check stopped, each a finding at its
        lines (or a notification) as ``init``'s errors are (issue #70 §1); ``left_out``:
        (root, ``LeftOut``) of each root ``-recursive`` left out, a note each (issue #81 §5)."""
        load("tofu_solve.command.views.sarif")
        from .sarif import Finding, Notification, check_log, error_findings, github_annotations, main_file

        found = list(found)
        notes: list[Any] = [Notification("Root left out", f"{root}: {why.text()}", level="note")
                            for root, why in left_out]
        notes += [Notification(w.summary, str(w), level="note") for w in self.notices]
        for root, e in failed:
            got = error_findings(e)
            if isinstance(got, Notification):
                if got not in notes:
                    notes.append(got)
                continue
            if not got:
                main = main_file(os.path.join(self.base, root))
                got = [Finding("error", e.summary, e.detail, SourceRange(main if root == "." else
                                                                         os.path.join(root, main), 1))]
            found.append((root, got))
        if self.sarif:
            self._dump(check_log(found, self.base, self.cwd, notifications=notes))
        if self.annotations:  # the runner's commands resumed for tofu-solve's own (issue #67 §1)
            workflow_commands(sys.stderr if self.sarif or self.markdown is not None else sys.stdout,
                              github_annotations(found, self.base, self.cwd, notifications=notes))
        return self.sarif

    def failed(self, e: Any) -> None:
        """A check that stopped (its error is printed by the caller): under ``-format=sarif``
        the log still is standard output, the error a result at its lines; annotations too;
        under ``-format=markdown``, the report names it."""
        self._report([(".", [], e, None)])
        if self.sarif or self.annotations:
            self._scanning([], [(".", e)])

    def _report(self, roots: Sequence[tuple[str, Sequence[Any], Any, Any]]) -> None:
        """``-format=markdown``: the report of (root name, its differences, its error or None,
        why it was left out or None) per root, on standard output and in the job summary."""
        if self.markdown is None:
            return
        load("tofu_solve.command.views.markdown")
        from .markdown import Line, Report, RootReport, Words, append_to_step_summary, render

        reports = []
        for name, diffs, error, left in roots:
            r = RootReport(name, left_out=left.text() if left is not None else "")
            for d in diffs:
                (r.findings if d.kind in ("policy", "revoked") else r.moves).append(
                    Line(d.subject, d.detail, str(d.where) if d.where else ""))
            if error is not None:
                r.failures.append(_error_line(error))
            reports.append(r)
        doc = render(Report(self.markdown, reports, notes=tuple(f"{w.summary}: {w}" for w in self.notices),
                            words=Words("differ from their lock files", "differs from its lock file",
                                                          "agree with their lock files", "agrees with its lock file",
                                                          "Differences")))
        print(doc, file=self.report_out, end="")
        warning = append_to_step_summary(doc, self.environ)
        if warning:
            self._print(f"\nWarning: Job summary not written\n\n{warning}\n", err=True)

    def result(self, diffs: Sequence[Any]) -> None:
        """``diffs``: the differences (``check.Difference``), none when all agree."""
        self._report([(".", diffs, None, None)])
        if self.sarif:
            self._scanning([(".", diffs)])
            return
        if self.json:
            self._dump({"ok": not diffs, "differences": [d.as_data() for d in diffs]})
        elif diffs:
            self._print("\nError: The working directory does not match the lock file\n", err=True)
            self._print("\n".join(str(d) for d in diffs), err=True)
            if any(d.kind == "lock-hash" for d in diffs):  # init refuses an edited lock: it does not mend it
                self._print(f"\n{len(diffs)} difference{'s' if len(diffs) != 1 else ''}. An edited lock hash is not "
                            "mended by tofu-solve init: restore the lock file, or accept the new hash with the command "
                            "named above.\n", err=True)
            else:
                self._print(f"\n{len(diffs)} difference{'s' if len(diffs) != 1 else ''}. tofu-solve init makes the "
                            "working directory match the lock again (it reinstalls from the verified cache).\n",
                            err=True)
        else:
            self._print(AGREE)
        self._scanning([(".", diffs)])

    def roots(self, results: Sequence[tuple[str, Any]]) -> None:
        """``check -recursive``: (root name, ``RootOutcome`` of its differences) per root; a
        root ``-recursive`` left out is named as such in every mode, never a difference."""
        self._report([(n, o.value or [], o.error, o.left_out) for n, o in results])
        left = [(n, o.left_out) for n, o in results if not o.ran]
        results = [(n, o) for n, o in results if o.ran]
        bad = [(n, o) for n, o in results if not o.ok or o.value]
        stopped = [(n, o.error) for n, o in results if not o.ok]
        if self.sarif:
            for n, o in results:  # the text first: the annotations (under GitHub Actions) end the output
                if not o.ok:
                    self._print(f"\nIn {n}:\n{o.error.render()}", err=True)
            for n, why in left:
                self._print(f"{n}: {why.text()}", err=True)
            self._notices_text()
            self._scanning([(n, o.value) for n, o in results if o.ok], stopped, left)
            return
        if self.json:
            self._dump({"ok": not bad, "roots": [{"root": n, "ok": o.ok and not o.value,
                                                  "differences": [d.as_data() for d in o.value] if o.ok else None,
                                                  "error": o.error.to_dict() if o.error else None, "left_out": None}
                                                 for n, o in results]
                        + [{"root": n, "ok": True, "differences": None, "error": None, "left_out": why.as_data()}
                           for n, why in left], "warnings": self._notices_data()})
            return
        shared = _shared_error(stopped)
        if shared is not None and len(stopped) > 1:  # one input every root shares (-policy...): said once
            self._print(f"\nEvery root module stopped at the same error:\n{shared.render()}", err=True)
        lines = [(name, "error: " + o.error.summary if not o.ok else
                  (f"{len(o.value)} difference{'s' if len(o.value) != 1 else ''}" if o.value else
                   "agrees with its lock"), o.value if o.ok else None) for name, o in results]
        lines += [(name, why.text(), None) for name, why in left]
        for name, state, diffs in sorted(lines, key=lambda line: _natural(line[0])):
            self._print(f"{name}: {state}")
            for d in diffs or []:
                self._print(f"  {d}")
        differ = sum(1 for _, o in results if o.ok and o.value)
        # what happened, counted apart: a root that could not be checked does not "differ" (issue #81 §4)
        counts = [f"{differ} of {len(results)} root modules differ from their lock files"] if differ else []
        if stopped:
            counts.append(f"{len(stopped)} could not be checked (an error above)")
        if left:
            counts.append(f"{len(left)} left out (-recursive's exclude patterns)")
        self._print("\n" + "; ".join(counts) + "." if differ or stopped else
                    f"\nAll {len(results)} root modules agree with their lock files"
                    + (f"; {counts[-1]}." if left else "."))
        self._notices_text()
        self._scanning([(n, o.value) for n, o in results if o.ok], stopped, left)


def _error_line(e: Any):
    """An error as one line of a ``-format=markdown`` report: its summary, detail and place."""
    load("tofu_solve.command.views.markdown")
    from .markdown import Line

    where = getattr(e, "where", None)
    return Line(str(getattr(e, "summary", "Error")), str(getattr(e, "detail", "")),
                f"{where.file}:{where.line}" if where is not None and where.file else "")


def _natural(name: str) -> tuple:
    load("tofu_solve.command.monorepo")
    from ..monorepo import natural_key
    return natural_key(Path(name))


def _shared_error(stopped: Sequence[tuple[str, Any]]):
    """The error every stopped root stopped at, when they all stopped at the same one (the
    same summary and detail: an input they share, such as a ``-policy`` file), else None."""
    if not stopped:
        return None
    first = stopped[0][1]
    same = all((e.summary, e.detail) == (first.summary, first.detail) for _, e in stopped)
    return first if same else None


class OutdatedView(_View):
    """``outdated``: what could move, and what holds the rest."""

    def result(self, rows: Sequence[Any], product: Product, upgrade_names: str) -> None:
        """``rows``: the ``Outdated`` rows (providers named without ``product``'s registry
        host); ``upgrade_names``: the
        ``-upgrade=`` list of those that can move on their own, each proven to (issue #47
        §3: a command is named only when it lands something); "" when none can."""
        movable = [r for r in rows if r.can_move or r.moves_with_others]
        if self.json:
            self._dump({"can_move": bool(movable), "items": [r.as_data() for r in rows]})
            return
        self._print(render_table(rows, product))
        alone = len(upgrade_names.split(",")) if upgrade_names else 0
        if alone:
            self._print(f"\n{alone} can move within the constraints: tofu-solve init -upgrade={upgrade_names}")
        further = [r for r in rows if r.moves_with_others]
        if further:  # each row's reason names what reaches it (issue #81 §6)
            self._print(f"\n{len(further)} can move further only if other locks move too: " + "; ".join(
                f"{product.short(r.name) if r.kind == 'provider' else r.name} to {r.with_others_to} with "
                f"{r.with_others_command}" for r in further))
        elif len([r for r in rows if r.can_move]) > alone:
            together = len([r for r in rows if r.can_move]) - alone
            self._print(f"\n{together} can move only if other locks move too: tofu-solve init -upgrade (every lock "
                        "moves to the newest that fits)")
        if not movable:
            self._print("\nNothing can move without changing a constraint.")

    def roots(self, results: Sequence[tuple[str, Any]]) -> None:
        """``outdated -recursive``: (root name, ``RootOutcome`` of its rows) per root. A root
        where nothing can move and nothing newer that the constraints allow is held back is
        one line; the others show the rows that can move or are held back, each with what
        holds it (issue #59 §6: the rows the single-root table shows for them)."""
        if self.json:
            movable = any(o.ran and o.ok and any(r.can_move for r in o.value) for _, o in results)
            self._dump({"can_move": movable,
                        "roots": [{"root": n, "items": [r.as_data() for r in o.value] if o.ran and o.ok else None,
                                   "error": o.error.to_dict() if o.error else None,
                                   "left_out": o.left_out.as_data() if o.left_out else None} for n, o in results],
                        "warnings": self._notices_data()})
            return
        quiet = []
        left = [n for n, o in results if not o.ran]
        for name, o in results:
            if not o.ran:  # never silently (issue #81 §5)
                self._print(f"{name}: {o.left_out.text()}")
                continue
            if not o.ok:
                self._print(f"== {name}")
                self._print("\n" + o.error.render())
                self._print()
                continue
            shown = [r for r in o.value if r.can_move or (r.newest_allowed is not None and r.can_move_to is not None
                                                          and r.newest_allowed != r.can_move_to)]
            if not shown:  # a root where nothing can move is one line (issue #50 §1)
                quiet.append(name)
                self._print(f"{name}: nothing can move without changing a constraint")
                continue
            self._print(f"== {name}")
            self._print(render_table(shown))
            if len(shown) < len(o.value):
                self._print(f"({len(o.value) - len(shown)} more at the newest their constraints allow: outdated "
                            f"-chdir={name} shows every row)")
            self._print()
        ran = len(results) - len(left)
        if quiet and len(quiet) < ran:
            self._print(f"{len(quiet)} of {ran} root modules: nothing can move (outdated -chdir=ROOT shows "
                        "one's table).")
        if left:
            self._print(f"{len(left)} left out (-recursive's exclude patterns): {', '.join(left)}.")
        self._notices_text()


class ModulesView(_View):
    """``modules``: Terraform's ``modules`` output, text or its ``-json`` document."""

    def result(self, doc: dict, top: Sequence[Any]) -> None:
        """``doc``: the ``terraform modules -json`` document; ``top``: the root's module
        records (``Record``), drawn as a tree."""
        if self.json:
            print(json.dumps(json_safe(doc), separators=(",", ":")), file=self.out)  # as Go's json.Marshal, one line
        else:
            self._print(tree_text(top))  # as Terraform prints it: the tree, then an empty line

    def root(self, name: str, doc: dict, top: Sequence[Any]) -> None:
        """One root of ``-recursive``: a JSON line ``{"root", ...document}``, or the tree under
        the root's name."""
        if self.json:
            print(json.dumps(json_safe({"root": name, **doc}), separators=(",", ":")), file=self.out)
        else:
            self._print(f"== {name}")
            self._print(tree_text(top))


class GraphView(_View):
    """``graph``: the graph itself is written by the command (DOT, JSON or a rendered file);
    this view gives its warnings."""


class WhyView(_View):
    """``why NAME``: each answer's text, or the answers as data."""

    def answers(self, answers: Sequence[Any]) -> None:
        if self.json:
            self._dump([a.data for a in answers])
        else:
            self._print("\n\n".join(a.text for a in answers))


class InspectView(_View):
    """``inspect``: the configuration as tofu-solve reads it."""

    def config(self, cfg: Any, data: dict, product: str = "OpenTofu") -> None:
        """``cfg``: the ``ModuleConfig``; ``data``: it as the JSON document; ``product``: the
        client it was read as (``OpenTofu`` or ``Terraform``)."""
        if self.json:
            self._dump(data)
            return
        load("tofu_solve.addrs.redact")
        from ...addrs.redact import redact
        p = self._print
        n = len(cfg.files)
        p(f"Configuration in {cfg.dir}, read as {product} ({n} file{'s' if n != 1 else ''}: "
          f"{', '.join(cfg.files) or 'none'})")
        p("\nModule calls:")
        if not cfg.module_calls:
            p("  (none)")
        for c in cfg.module_calls:
            ver = f" {c.version.text}" if c.version else ""
            extra = " (count)" if c.has_count else " (for_each)" if c.has_for_each else ""
            shown = getattr(c.source, "for_display", redact(str(c.source)))
            p(f"  - {c.name}: {shown}{ver}{extra}  [{c.constraint_where}]")
        p("\nRequired providers:")
        if not cfg.provider_requirements:
            p("  (none)")
        for r in cfg.provider_requirements:
            ver = r.constraint.text if r.constraint else "(any version)"
            p(f"  - {r.local_name} = {r.address.for_display} {ver}  [{r.where}]")
        p(f"\n{product} version constraints:")
        if not cfg.core_requirements:
            p("  (none)")
        for r in cfg.core_requirements:
            note = "" if product != "OpenTofu" or r.kind == "compatible_with" or r.tofu_file else \
                " (ignored by OpenTofu >= 1.12: not a .tofu file)"
            p(f"  - {r.kind} {r.constraint.text}  [{r.where}]{note}")


class VersionView(_View):
    """``version``: as ``tofu version`` prints it."""

    def version(self, version: str) -> None:
        if self.json:
            self._dump({"tofu_solve_version": version}, indent=None)
        else:
            self._print(f"tofu-solve v{version}")


def render_table(rows: Sequence[Any], product: Product | None = None) -> str:
    """A plain-text table, one row per call and provider (named without ``product``'s
    registry host; default OpenTofu's), with a header."""
    if product is None:
        load("tofu_solve.addrs.product")
        from ...addrs.product import OPENTOFU  # this module stays light: check imports it

        product = OPENTOFU
    head = ("NAME", "LOCKED", "CAN MOVE TO", "NEWEST ALLOWED", "NEWEST", "HELD BACK BY")
    body = [(product.short(r.name) if r.kind == "provider" else r.name,
             r.locked or "-", (f"{r.can_move_to} (down)" if r.downgrade else r.can_move_to) or "-",
             r.newest_allowed or "-", _with_age(r.newest, r) or "-",
             (r.held_by or "-") if r.held_by is None else f"{r.held_by}: {r.reason}")
            for r in rows]
    widths = [max(len(x[i]) for x in [head] + body) for i in range(5)]
    lines = []
    for row in [head] + body:
        lines.append("  ".join(c.ljust(widths[i]) for i, c in enumerate(row[:5])) + "  " + row[5])
    return "\n".join(line.rstrip() for line in lines)


def _with_age(version: str | None, row: Any) -> str | None:
    """``version`` followed by its age when known (``6.6.0 (2 days)``)."""
    load("tofu_solve.versions.cooldown")
    from ...versions.cooldown import format_age

    for n in row.newer:
        if version and n["version"].lstrip("v") == version.lstrip("v") and n["age_seconds"] is not None:
            return f"{version} ({format_age(n['age_seconds'])})"
    return version


def tree_text(top: Sequence[Any]) -> str:
    """Terraform's text: ``Modules declared by configuration:`` and a tree from ``.``."""
    if not top:
        return "No modules found in configuration."
    lines = ["", "Modules declared by configuration:", "."]

    def walk(rs: Sequence[Any], indent: str) -> None:
        for i, r in enumerate(rs):
            last = i == len(rs) - 1
            item = f'"{r.key}"[{r.source}]'
            if r.version:
                item += f" {r.version}"
                if r.constraint and r.constraint != r.version:
                    item += f" ({r.constraint})"
            lines.append(f"{indent}{'└── ' if last else '├── '}{item}")
            walk(r.children, indent + ("    " if last else "│   "))
    walk(top, "")
    return "\n".join(lines) + "\n"
