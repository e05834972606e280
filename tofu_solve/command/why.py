"""``tofu-solve why NAME``: why a module call or provider is at its version.

NAME is a call name (every call with that name), a call path (``vpc.nested``), a module
package (``terraform-aws-modules/kms/aws``) or a provider (``hashicorp/aws``). For a module
call: the chain of calls from the root, each with its constraint, file and line and the
version selected; and, when a newer version within the constraint was not taken, what held
it back (the constraint of that version and the one it clashed with, with file and line).
For a provider: every constraint on it, who imposed it, and which one bounds the choice.
Reads only the state ``init`` left (:mod:`tofu_solve.workdir.solved`).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..addrs.provider import parse_provider_source
from ..errors import TofuSolveError
from ..explain.holdback import HoldBack, said, said_of
from ..settings import Settings
from ..solver.kept_out import KeptOut, Why, merged
from ..versions import apparentlymart_go_versions as gvs
from ..versions.constraints import ProviderConstraint
from ..workdir.solved import CallNode, Solved, load_solved
from .arguments.report_flags import WhyArguments
from .views.report_views import WhyView


class UnknownNameError(TofuSolveError):
    """``why`` was asked about a name that is not in the solved tree."""


@dataclass
class WhyAnswer:
    """One match: its kind (``module`` or ``provider``), the text and the data."""

    kind: str
    name: str
    text: str
    data: dict


def _names(s: Solved) -> list[str]:
    out = set()
    for p, node in s.calls.items():
        out.add(p)
        out.add(p.rsplit(".", 1)[-1])
        out.add(node.display_source.split("//")[0])
    for addr in s.providers:
        out.add(addr)
        out.add(s.product.short(addr))
    return sorted(out)


def find(s: Solved, name: str) -> tuple[list[CallNode], list[str]]:
    """(matching call nodes, matching provider addresses)."""
    calls = [n for p, n in sorted(s.calls.items())
             if name in (p, p.rsplit(".", 1)[-1]) or n.display_source.split("//")[0] == name
             or n.package == name]
    providers = []
    try:
        addr = str(parse_provider_source(name, s.product.registry_host))
        if addr in s.providers:
            providers.append(addr)
    except TofuSolveError:
        pass
    return calls, providers


def why(s: Solved, name: str) -> list[WhyAnswer]:
    """Answers for NAME. Raises UnknownNameError (with the closest names)."""
    calls, providers = find(s, name)
    if not calls and not providers and s.missing and (missing := s.missing_error()) is not None:
        raise missing  # the name may be inside a package whose contents are not at hand (issue #47 §4)
    if not calls and not providers:
        close = difflib.get_close_matches(name, _names(s), n=5, cutoff=0.5)
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        raise UnknownNameError("Unknown name",
                               f'"{name}" is not a module call, module package or provider of this configuration.'
                               f"{hint}")
    return [why_call(s, n) for n in calls] + [why_provider(s, a) for a in providers]


def _constraint(call) -> str:
    return call.version.text if call.version else "any version"


def why_call(s: Solved, node: CallNode) -> WhyAnswer:
    lines = [f'module "{node.path}" ({node.display_source}) is at {node.version}']
    chain = []
    lines.append("  root module")
    for depth, n in enumerate(s.chain(node.path), 1):
        at = n.call.version_where or n.call.where  # the attribute that imposes the constraint
        # inside a package, the package and version come first (issue #24: one way to cite)
        cited = f"{s.calls[n.parent].display_source} {s.calls[n.parent].version}: {at}" if n.parent else str(at)
        lines.append(f'  {"   " * (depth - 1)}└─ {n.path.rsplit(".", 1)[-1]}: {n.display_source} '
                     f'"{_constraint(n.call)}" ({cited}) -> {n.version}')
        chain.append({"call": n.path, "source": n.display_source, "constraint": _constraint(n.call),
                      "file": at.file, "line": at.line, "version": n.version,
                      "package": s.calls[n.parent].display_source if n.parent else None,
                      "package_version": s.calls[n.parent].version if n.parent else None})
    held = [h.as_data() for h in node.newer]
    name = node.path.rsplit(".", 1)[-1]
    if node.deprecated is not None:  # issue #70 §4: the version the call is at, as init warned of it
        link, reason = node.deprecated.get("link"), node.deprecated.get("reason") or "no reason given"
        lines.append(f"  {node.version} is deprecated by its registry: {reason}" + (f" ({link})" if link else ""))
    if node.newer:
        if node.locked:
            seen = f" (the registry's listing read {_age(node.listed_at)} ago)" if node.listed_at else ""
            lines.append(f'  {node.version} is held by .terraform.lock.hcl; "{_constraint(node.call)}" allows up to '
                         f"{node.newer[0].version}{seen}:")
        else:
            lines.append(f'  {node.version} is not the newest version "{_constraint(node.call)}" allows:')
        for one in said(node.newer):  # a reason shared by many versions said once (issue #83 §3)
            lines.append(f"    - {name} is {node.version}, not {one.versions_words()}: {one.reason}")
    elif node.locked and node.listed:
        lines.append(f'  {node.version} is held by .terraform.lock.hcl, and is the newest version '
                     f'"{_constraint(node.call)}" allows.')
    elif node.locked:
        lines.append(f"  {node.version} is held by .terraform.lock.hcl; newer versions were not looked up (no "
                     f"listing of {node.display_source} is cached): tofu-solve outdated looks them up.")
    else:
        lines.append(f'  {node.version} is the newest version "{_constraint(node.call)}" allows.')
    data = {"kind": "module", "call": node.path, "source": node.display_source, "version": node.version,
            "chain": chain, "held_back": held, "locked": node.locked, "fenced_off": node.fenced_off,
            "deprecated": node.deprecated}
    if node.locked:
        # a command is named only where init proved it lands a newer version (issue #47 §3)
        data["upgrade"] = next((h.command for h in node.newer if h.command), None)
        data["newest_allowed"] = node.newer[0].version if node.newer else (node.version if node.listed else None)
        data["listed_at"] = node.listed_at
    return WhyAnswer("module", node.path, "\n".join(lines), data)


def _age(when: float) -> str:
    """``when`` (seconds since the epoch) as an age: "40 seconds", "3 hours", "2 days"."""
    import time

    s = max(0, int(time.time() - when))
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if s >= size:
            n = s // size
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{s} second{'s' if s != 1 else ''}"


def why_provider(s: Solved, addr: str) -> WhyAnswer:
    info = s.providers[addr]
    chosen = info["version"]
    short = s.product.short(addr)
    lines = [f"provider {short} is at {chosen}"]
    uses = s.provider_uses.get(addr, [])
    entries = []
    lines.append("  constraints:")
    for u in uses:
        r = u.requirement
        who = (f'module "{u.imposed_by}" ({s.calls[u.owner].display_source} {u.module_version})'
               if u.owner in s.calls else "the root module")
        text = r.constraint.text if r.constraint else "(any version)"
        via = getattr(r, "via", "")  # Terraform 1.17: the variable or local the entry read, and its value's origin
        lines.append(f'    - "{text}" required by {who} at {r.where}' + (f", from {via}" if via else ""))
        entries.append({"constraint": text, "imposed_by": u.imposed_by or "root", "module_version": u.module_version,
                        "file": r.where.file, "line": r.where.line, **({"via": via} if via else {})})
    nxt = info.get("next")
    bound: list[tuple[Any, ProviderConstraint]] = []  # (use, its constraint that excludes the next version)
    cooled = info.get("cooldown") or {}
    newer = [h for h in (HoldBack.from_data(x) for x in info.get("newer") or []) if h is not None]
    if cooled:  # the release cooldown kept these out at the last init (issue #25), said once (issue #83 §3)
        lines.append(f"  {len(cooled)} newer version{'s' if len(cooled) > 1 else ''} held back by the release "
                     "cooldown:")
        # one cooldown per init: every version it kept out shares it
        kept = {v: KeptOut(Why.COOLDOWN, str(words), "the release cooldown") for v, words in cooled.items()}
        for one in merged(kept):
            lines.append(f"    - {one.sentence()}")
    if nxt and nxt in cooled:
        pass  # the next version up is one the cooldown held back: said above
    elif nxt:
        nv = gvs.Version.parse(nxt)
        for u in uses:
            r = u.requirement
            if r.constraint and not r.constraint.allows(nv):
                bound.append((u, r.constraint))
        if bound:
            lines.append(f"  {nxt} and later are excluded by:")
            for u, c in bound:
                who = f'module "{u.imposed_by}" {u.module_version}' if u.owner else "the root module"
                via = getattr(u.requirement, "via", "")
                lines.append(f'    - "{c.text}" ({who}, {u.requirement.where}' + (f", from {via}" if via else "") + ")")
        else:  # the one analysis init made (issue #47 §3): the lock, the policy, ...
            held = said_of(newer, nxt)
            lines.append(f"  {nxt} is available, but not selected: {held.sentence().rstrip('.')}." if held is not None
                         else f"  {nxt} is available, but not selected.")
    else:
        lines.append(f"  {chosen} is the newest version available.")
    data = {"kind": "provider", "provider": addr, "version": chosen, "constraints": entries, "cooldown": cooled,
            "bounded_by": [{"constraint": c.text, "file": u.requirement.where.file,
                            "line": u.requirement.where.line, "imposed_by": u.imposed_by or "root"} for u, c in bound]}
    return WhyAnswer("provider", addr, "\n".join(lines), data)


def run(ns, settings: Settings) -> int:
    """The command: ``ns`` as the parser left it, read once into :class:`WhyArguments`."""
    args = WhyArguments.from_namespace(ns)
    solved = load_solved(Path(args.chdir), settings, tuple(args.vars or ()))
    answers = why(solved, args.name)
    view = WhyView(args.json)
    view.answers(answers)
    missing = solved.missing_error()
    if missing is not None:  # the answer lacks what those packages call and require (issue #47 §4)
        view.incomplete(missing)
        return 1
    return 0
