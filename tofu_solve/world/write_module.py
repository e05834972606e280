"""Render one module directory of the corpus as ``.tf`` files whose module calls,
``required_providers`` entries, ``required_version`` and legacy ``provider`` version
arguments stand at the recorded file names and lines."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable


def _q(s: str) -> str:
    return json.dumps(s)


def render_dir(d: dict, rewrite_source: Callable[[str], str]) -> dict[str, str]:
    """Files (name -> text) for one corpus directory entry ``d``."""
    items: dict[str, list] = defaultdict(list)
    for c in d.get("module_calls", []):
        items[c["file"]].append((c["line"], 0, "call", c))
    for p in d.get("required_providers", []):
        items[p["file"]].append((p["line"], 1, "rp", p))
    for s in d.get("required_version_sources", []) or []:
        items[s["file"]].append((s["line"], 1, "rv", s))
    for lp in d.get("legacy_provider_versions", []) or []:
        items[lp["file"]].append((lp["line"], 0, "legacy", lp))
    files = {}
    for name, its in items.items():
        base = name.rsplit("/", 1)[-1]
        files[base] = _render_file(sorted(its, key=lambda t: (t[0], t[1])), rewrite_source)
    if not files:
        files["main.tf"] = "# This module version declares no module calls or provider requirements.\n"
    return files


def _render_file(items: list, rewrite_source) -> str:
    out: list[str] = []
    state = {"tf": False, "rp": False}

    def pad_to(line: int) -> None:
        while len(out) < line - 1:
            out.append("")

    def close_rp() -> None:
        if state["rp"]:
            out.append("  }")
            state["rp"] = False

    def close_tf() -> None:
        close_rp()
        if state["tf"]:
            out.append("}")
            state["tf"] = False

    for line, _, kind, it in items:
        if kind == "call":
            close_tf()
            pad_to(line)
            out.append(f'module {_q(it["name"])} {{')
            out.append(f'  source = {_q(rewrite_source(it["source"]))}')
            if it.get("version") is not None:
                out.append(f'  version = {_q(it["version"])}')
            if it.get("count"):
                out.append("  count = 1")
            if it.get("for_each"):
                out.append("  for_each = {}")
            out.append("}")
        elif kind == "legacy":
            close_tf()
            pad_to(line - 1)
            out.append(f'provider {_q(it["name"])} {{')
            pad_to(line)
            out.append(f'  version = {_q(it["version"])}')
            if it.get("alias"):
                out.append(f'  alias = {_q(it["alias"])}')
            out.append("}")
        elif kind == "rv":
            close_rp()
            if not state["tf"]:
                pad_to(line - 1)
                out.append("terraform {")
                state["tf"] = True
            pad_to(line)
            out.append(f'  required_version = {_q(it["value"])}')
        else:  # required provider entry
            if not state["tf"]:
                pad_to(line - 2)
                out.append("terraform {")
                state["tf"] = True
            if not state["rp"]:
                pad_to(line - 1)
                out.append("  required_providers {")
                state["rp"] = True
            pad_to(line)
            if it.get("legacy_string_form"):
                out.append(f'    {it["name"]} = {_q(it["version"] or "")}')
                continue
            out.append(f'    {it["name"]} = {{')
            if it.get("source"):
                out.append(f'      source = {_q(it["source"])}')
            if it.get("version") is not None:
                out.append(f'      version = {_q(it["version"])}')
            out.append("    }")
    close_tf()
    return "\n".join(out) + "\n"
