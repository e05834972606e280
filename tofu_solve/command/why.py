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
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..addrs.provider import parse_provider_source
from ..config.tree import ModuleTree
from ..errors import TofuSolveError
from ..settings import Settings
from ..versions import apparentlymart_go_versions as gvs
from ..versions.constraints import ProviderConstraint
from ..workdir.solved import CallNode, Solved, load_solved
from .arguments import WhyArguments
from .views.reports import WhyView


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
    held = []
    if node.locked:
        # The solver took the lock's version without looking further: say so rather than
        # call it the newest, and name what -upgrade would consider (issue #12).
        if node.newer:
            seen = f" (the registry's listing read {_age(node.listed_at)} ago)" if node.listed_at else ""
            others = [v for v, _ in node.newer[1:5]]
            also = f" (also {', '.join(others)}{'...' if len(node.newer) > 5 else ''})" if others else ""
            lines.append(f'  {node.version} is held by .terraform.lock.hcl; "{_constraint(node.call)}" allows up to '
                         f"{node.newer[0][0]}{seen}{also}: tofu-solve init -upgrade={node.path} takes the newest "
                         "that fits, every other lock kept.")
            held = [{"version": v, "reason": "the lock file holds the call"} for v, _ in node.newer]
        elif node.listed:
            lines.append(f'  {node.version} is held by .terraform.lock.hcl, and is the newest version '
                         f'"{_constraint(node.call)}" allows.')
        else:
            lines.append(f"  {node.version} is held by .terraform.lock.hcl; newer versions were not looked up (no "
                         f"listing of {node.display_source} is cached): tofu-solve init -upgrade={node.path} takes the "
                         f'newest that "{_constraint(node.call)}" allows.')
    elif node.newer:
        lines.append(f'  {node.version} is not the newest version "{_constraint(node.call)}" allows:')
        for version, tree in node.newer:
            reason = _held_back(s, node, version, tree)
            held.append({"version": version, "reason": reason})
            lines.append(f"    - {node.path.rsplit('.', 1)[-1]} is {node.version}, not {version}: {reason}")
    else:
        lines.append(f'  {node.version} is the newest version "{_constraint(node.call)}" allows.')
    data = {"kind": "module", "call": node.path, "source": node.display_source, "version": node.version,
            "chain": chain, "held_back": held, "locked": node.locked}
    if node.locked:
        data["upgrade"] = f"tofu-solve init -upgrade={node.path}"
        data["newest_allowed"] = node.newer[0][0] if node.newer else (node.version if node.listed else None)
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


def _held_back(s: Solved, node: CallNode, version: str, tree: ModuleTree | None) -> str:
    """Why ``version`` of ``node`` was not taken: the first of its constraints that clashes
    with the rest of the solution (or the release cooldown, when it kept the version out)."""
    if version in node.cooldown:
        return f"the release cooldown: {node.cooldown[version]}"
    if tree is None:
        return "not examined by the solver (no metadata in the cache)"
    for _lp, r in tree.providers:
        addr = str(r.address)
        chosen = s.providers.get(addr, {}).get("version")
        if r.constraint is None or chosen is None:
            continue
        others = [(u, u.requirement.constraint) for u in s.provider_uses.get(addr, [])
                  if u.owner != node.path and u.requirement.constraint is not None]
        spec = r.constraint.spec + tuple(x for _, pc in others for x in pc.spec)
        # the clash: this version's constraint together with another constraint admits no version
        for u, pc in others:
            pair = r.constraint.spec + pc.spec
            if not _any_release(pair, chosen, r.constraint.text, pc.text):
                who = (f"module \"{u.owner}\" {u.module_version}" if u.owner else "the root module")
                return (f'{version} needs {r.address.for_display} "{r.constraint.text}" ({r.where}) and {who} '
                        f'needs "{pc.text}" ({u.requirement.where})')
        if not gvs.meets(spec, gvs.Version.parse(chosen)):
            return (f'{version} needs {r.address.for_display} "{r.constraint.text}" ({r.where}), which excludes '
                    f"the selected {chosen}")
    for _lp, c in tree.core:
        from ..versions.hashicorp_go_version import GoVersion
        if not c.constraint.allows(GoVersion.parse(s.opentofu)):
            return f'{version} needs OpenTofu "{c.constraint.text}" ({c.where}), but this is solved for {s.opentofu}'
    for rc in tree.remote_calls:
        child = f"{node.path}." + ".".join(rc.rel_path)
        if child in s.calls and rc.call.version and not rc.call.version.allows(s.calls[child].version):
            return (f'{version} calls {rc.call.name} with "{rc.call.version.text}" ({rc.call.where}), which the '
                    f"rest of the solution does not allow")
    return "taking it would have gone back further elsewhere (tofu-solve minimizes versions skipped in total)"


def _any_release(spec, chosen: str, a: str, b: str) -> bool:
    """Whether two constraints admit a common version, judged around ``chosen`` and the
    constraints' own bounds."""
    probes = {gvs.Version.parse(chosen)}
    for sel in spec:
        v = sel.boundary.constrain_to_zero().to_version()
        probes |= {v, gvs.Version(v.major, v.minor, v.patch + 1), gvs.Version(v.major + 1, 0, 0),
                   gvs.Version(v.major, v.minor + 1, 0)}
        if v.patch:
            probes.add(gvs.Version(v.major, v.minor, v.patch - 1))
        if v.minor:
            probes.add(gvs.Version(v.major, v.minor - 1, 99999))
        if v.major:
            probes.add(gvs.Version(v.major - 1, 99999, 99999))
    return any(gvs.meets(spec, p) for p in probes)


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
        lines.append(f'    - "{text}" required by {who} at {r.where}')
        entries.append({"constraint": text, "imposed_by": u.imposed_by or "root", "module_version": u.module_version,
                        "file": r.where.file, "line": r.where.line})
    nxt = info.get("next")
    bound: list[tuple[Any, ProviderConstraint]] = []  # (use, its constraint that excludes the next version)
    cooled = info.get("cooldown") or {}
    if cooled:  # the release cooldown kept these out at the last init (issue #25): newest first
        by_version = functools.cmp_to_key(gvs.Version.compare)
        newest_first = sorted(cooled, key=lambda text: by_version(gvs.Version.parse(text)), reverse=True)
        lines.append(f"  {len(cooled)} newer version{'s' if len(cooled) > 1 else ''} held back by the release "
                     "cooldown:")
        for version in newest_first[:5]:
            lines.append(f"    - {version}: {cooled[version]}")
        if len(cooled) > 5:
            lines.append(f"    - and {len(cooled) - 5} more")
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
                lines.append(f'    - "{c.text}" ({who}, {u.requirement.where})')
        else:
            lines.append(f"  {nxt} is available, but the provider lock keeps {chosen} (tofu init -upgrade moves it).")
    else:
        lines.append(f"  {chosen} is the newest version available.")
    data = {"kind": "provider", "provider": addr, "version": chosen, "constraints": entries, "cooldown": cooled,
            "bounded_by": [{"constraint": c.text, "file": u.requirement.where.file,
                            "line": u.requirement.where.line, "imposed_by": u.imposed_by or "root"} for u, c in bound]}
    return WhyAnswer("provider", addr, "\n".join(lines), data)


def run(ns, settings: Settings) -> int:
    """The command: ``ns`` as the parser left it, read once into :class:`WhyArguments`."""
    args = WhyArguments.from_namespace(ns)
    answers = why(load_solved(Path(args.chdir), settings, tuple(args.vars or ())), args.name)
    WhyView(args.json).answers(answers)
    return 0
