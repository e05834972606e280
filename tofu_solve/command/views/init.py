"""What ``init`` shows: the views one run speaks to, the lines it prints and its result as
data (``init -json``'s ``init_result``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ...addrs.redact import redact
from ...events import Event
from .human import HumanView, use_color
from .json_stream import JsonStream, warning_data


def plural(n: int, noun: str) -> str:
    """``1 module call``, ``2 module calls``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def module_line(path, cand) -> str:
    src = cand.source
    shown = src.for_display if hasattr(src, "for_display") else redact(str(src))
    ver = f" {cand.version_text}" if cand.version_text else ""
    return f"- {path} in {shown}{ver}"


class InitViews:
    """The views one ``init`` speaks to: people (unless ``-json``), the JSON-lines stream on
    standard output (``-json``) and/or into a file (``-json-into=FILE``)."""

    def __init__(self, args, no_color_env: bool = False):
        self.human = None if args.json else HumanView(use_color(args.no_color, no_color_env))
        outs = []
        if args.json:
            outs.append(sys.stdout)
        self._into = None
        if getattr(args, "json_into", None):
            self._into = open(args.json_into, "w", encoding="utf-8")  # noqa: SIM115 (closed by close())
            outs.append(self._into)
        self.stream = JsonStream(*outs, root=Path(args.chdir)) if outs else None
        if self.stream:
            self.stream.version()

    def progress(self, event: Event) -> None:
        """A progress event (:mod:`tofu_solve.events`), to every view."""
        if self.human:
            self.human.progress(event)
        if self.stream:
            self.stream.progress(event)

    def error(self, e) -> None:
        """A failure, after the warnings that may explain it (``e.warnings``)."""
        for w in getattr(e, "warnings", ()):
            if self.stream:
                self.stream.warning(w)
            if self.human:
                self.human.warning(w)
        if self.stream:
            self.stream.error(e)
        if self.human:
            self.human.error_text(e.render())

    def close(self) -> None:
        if self.human:
            self.human.stop_progress()
        if self._into is not None:
            self._into.close()


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
    elif c.old == c.new:
        recorded = "source or hashes" if c.block == "module" else "constraints or hashes"
        line = f"  ~ {what} {c.new} ({recorded} recorded)"
    else:
        line = f"  ~ {what} {c.old} -> {c.new}"
    if c.reason and c.old == c.new and c.block == "module":
        return f"  ~ {what} {c.new}: {c.reason}"
    return f"{line}: {c.reason}" if c.reason and c.old != c.new else line


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
    }


def show_result(views: InitViews, result, readonly: bool, chdir: str) -> None:
    """Print what ``init`` did: the selected module calls and providers, the OpenTofu version
    solved for, the warnings, the lock file's changes and the override files written."""
    human, stream = views.human, views.stream
    res = result.resolution
    lines: list[tuple[str, str | None]] = []  # (text, style)
    for path, cand in res.modules.items():
        lines.append((module_line(path, cand), None))
        if path in result.verified:
            lines.append(("  Verified checksum matches lock file", None))
    if res.providers:
        lines.append(("", None))
        lines.append(("Initializing provider locks...", "bold"))
        for _addr, cand in res.providers.items():
            lines.append((f"- {cand.address.for_display} {cand.version}", None))
    lines.append(("", None))
    lines.append((f"Solved for {res.product.name} {res.tofu.version} ({res.target_origin}).", None))
    change_lines: list[str] = []
    if result.changes or result.provider_changes:
        verb = "would update" if readonly else "has updated"
        change_lines.append(f"tofu-solve {verb} the lock file {result.lock_path.name}:")
        change_lines.extend(describe_change(c) for c in result.provider_changes + result.changes)
    else:
        change_lines.append("The lock file is up to date.")
    since = ".".join(map(str, res.product.bridge_from))
    client_name = f"{res.product.command} init ({res.product.name} {since} or later)"
    bridge = [f"tofu-solve wrote {os.path.relpath(p, chdir)}: {client_name} installs the locked "
              "tags of the git and OCI calls with a version constraint through it." for p in result.bridge_written]
    if result.next_command:
        bridge.append(f"Next, to install providers and configure the backend, run:\n  {result.next_command}")
    final = (f"tofu-solve has been successfully initialized: {plural(len(res.modules), 'module call')} and "
             f"{plural(len(result.locks.providers), 'provider')} locked.")
    if stream:
        for text, _ in lines:
            if text.strip() and text != "Initializing provider locks...":
                stream.log(text.strip() if text.startswith("  ") else text)
            elif text == "Initializing provider locks...":
                stream.init_output(text, "initializing_provider_plugin_message")
        for w in res.warnings:
            stream.warning(w)
        for text in change_lines + bridge:
            stream.log(text)
        stream.result("init", final, init_result_as_data(result))
    if human:
        for text, style in lines:
            human.line(text, style)
        for w in res.warnings:
            human.warning(w)
        human.line()
        for text in change_lines:
            human.line(text)
        for text in bridge:
            human.line()
            human.line(text)
        human.line()
        human.success(final)
